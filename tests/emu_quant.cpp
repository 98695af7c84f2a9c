/* emu_quant - ak_quantize's and ak_dequantize's kernels (kernels/quant.hip:
 * rows held in registers in 16- or 8-byte vectors, the 1 x 128 blocks in
 * 16-byte vectors over sub-waves or a wave a block, the tensor form and its
 * amax pass) executed on the CPU in the host SIMT emulation of
 * tests/emu_harness.h, compared bit for bit with the cpu backend by
 * tests/t_quant.c's case function (codes, scales, amax, dequantised values).
 *
 *   make build/emu_quant_w64 && ./build/emu_quant_w64
 *
 * Why: the vector forms pick their path from the width and the alignment and
 * split a wave into sub-waves of 16 or 32 lanes; their index math and the
 * fallbacks are checked here on every `make test` without a GPU (wave 64; the
 * full tier adds wave 32). The emulation runs the AMD path of the fp8 encoder
 * (the integer rounding), so the NVIDIA conversion instruction is checked on
 * the device only (gpu_quant). Grids are cut to at most 3 blocks, so the
 * grid-stride loops take several turns. */
#define AKEMU_NAME "emu_quant"
#include "emu_harness.h"

namespace emu {
#include "../kernels/prelude.hip"
#include "../kernels/quant.hip"
}
/* quant.hip's scale-mode macros (the host reads them as _AK_QUANT_*) would hide amdkit.h's enumerators from t_quant.c */
#undef AK_QUANT_TENSOR
#undef AK_QUANT_ROW
#undef AK_QUANT_BLOCK

#include "t_quant.c"

static ak_context* g_gpu;

static void akemu_register(void) {
#define EMU_Q(dn) AKEMU_K(ak_quant_##dn##_e4m3) AKEMU_K(ak_quant_##dn##_e5m2_fnuz) AKEMU_K(ak_quant_row_##dn##_e4m3)   \
    AKEMU_K(ak_quant_row_##dn##_e5m2_fnuz) AKEMU_K(ak_quant_block_##dn##_e4m3) AKEMU_K(ak_quant_block_##dn##_e5m2_fnuz) \
    AKEMU_K(ak_dequant_e4m3_##dn) AKEMU_K(ak_dequant_e5m2_fnuz_##dn) AKEMU_K(ak_quant_amax_##dn)                 \
    AKEMU_K(ak_quant_tensor_##dn##_e4m3) AKEMU_K(ak_quant_tensor_##dn##_e5m2_fnuz)
    EMU_Q(f32) EMU_Q(f16) EMU_Q(bf16)
#undef EMU_Q
}
static akemu_dim3 akemu_grid_policy(const char* kernel, akemu_dim3 g) {
    /* the one-pass tensor kernel's blocks wait for each other, and the emulation runs blocks one after another:
       one block (its registers hold 8192 f32 / 16384 16-bit elements with wave 64's 1024 threads; the longer
       shapes stream the rest twice) */
    if (g.x > 3) g.x = 3;
    if (strstr(kernel, "quant_tensor_")) g.x = 1;
    return g;
}

/* two formats (OCP e4m3, FNUZ e5m2), every dtype, mode and scale source, over the suite's shape classes that the
 * emulation runs in seconds: rows in 16- and 8-byte vectors and too long for registers, partial blocks, widths
 * that are no multiple of the vector, unaligned starts */
static void emu_quant_cases(void) {
    static const size_t shapes[][2] = { { 1, 1 }, { 3, 129 }, { 7, 300 }, { 5, 128 }, { 4, 8192 }, { 1, 8196 },
                                        { 33, 384 }, { 2, 1004 }, { 5, 1000 }, { 2, 999 }, { 3, 1004 }, { 2, 16388 },
                                        { 3, 20004 }, { 2, 33004 }, { 2, 40004 } };
    static const int fmts[2] = { 0, 3 };
    ak_context* cpu = akt_cpu_context("emu_quant_ref");
    if (!cpu) { akt_fail(__FILE__, __LINE__, "no cpu context"); return; }
    for (int ti = 0; ti < 3; ti++)
        for (int fi = 0; fi < 2; fi++)
            for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
                for (int mode = 0; mode < 3; mode++)
                    for (int compute = 0; compute < 2; compute++)
                        gq_case(g_gpu, cpu, ti, fmts[fi], shapes[si][0], shapes[si][1], si & 1, si & 1, mode, compute);
    /* codes out of step with x (q 3 bytes past x's element offset): no aligned head exists, so rows, spans and
       blocks take their element paths */
    static const size_t odd[][2] = { { 3, 1000 }, { 2, 8196 }, { 1, 40004 }, { 5, 384 } };
    for (int ti = 0; ti < 3; ti++)
        for (size_t si = 0; si < sizeof odd / sizeof odd[0]; si++)
            for (int mode = 0; mode < 3; mode++)
                for (int compute = 0; compute < 2; compute++) gq_case(g_gpu, cpu, ti, 0, odd[si][0], odd[si][1], 0, 3, mode, compute);
    /* one compute unit: the tensor past what the one-pass kernel's block holds, both of its paths */
    ak_context* one = akemu_context_for(NULL, NULL, 1);
    if (one) gq_tensor_paths(one, cpu);
    else akt_fail(__FILE__, __LINE__, "no one-unit context");
    ak_context_destroy(one);
    ak_context_destroy(cpu);
}

/* The row division of ak_dequantize's kernel (ak_div31: a multiply and a shift for n < 2^31, the constants from
 * the host's _ak_div31) against the
 * integer division: every d up to 4096, and random d up to 2^31 - 1, at 0, multiples of d and their neighbours,
 * 2^31 - 1 and random n. */
static void emu_div31(void) {
    unsigned long long rng = akemu_seed ^ 0xD1D1ull, bad = 0, n_checked = 0;
    auto rnd = [&]() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; };
    for (int i = 0; i < 4096 + 4096; i++) {
        const unsigned d = i < 4096 ? (unsigned)i + 1u : (unsigned)(rnd() % 0x7FFFFFFFull) + 1u;
        emu::ak_div31 v;
        int32_t s;
        _ak_div31(d, &v.m, &s);
        v.s = s;
        for (int j = 0; j < 64; j++) {
            unsigned long long n;
            if (j == 0) n = 0;
            else if (j == 1) n = 0x7FFFFFFFull;
            else if (j < 40) n = (unsigned long long)d * (rnd() % (0x80000000ull / d + 1)) + (unsigned long long)(j % 3) - 1;
            else n = rnd() % 0x80000000ull;
            if (n > 0x7FFFFFFFull) continue;
            n_checked++;
            bad += emu::ak_div31_div(v, (unsigned)n) != (unsigned)(n / d);
        }
    }
    AKT_CHECKF(bad == 0 && n_checked > 400000, "ak_div31: %llu wrong of %llu", bad, n_checked);
}

int main(void) {
    akemu_begin("emu_quant", "");
    g_gpu = akemu_context();
    q_rng = akemu_seed ^ 0x6A7ull;
    if (!g_gpu) { printf("0 passed, 1 failed\n"); return 1; }
    AKT_RUN(emu_div31);
    AKT_RUN(emu_quant_cases);
    printf("%ld emulated launches\n%d passed, %d failed\n", akemu_launches, akemu_passed, akemu_failed);
    return akemu_failed != 0;
}
