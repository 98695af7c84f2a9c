/* emu_matrix - the AMD matrix-core kernels (kernels/gemm.hip's MFMA / WMMA
 * path, kernels/attention_mma.hip's generic AMD path) executed on the CPU in
 * the host SIMT emulation of tests/emu_harness.h, with the matrix
 * instructions emulated lane by lane in the hardware's register layouts,
 * compared with the cpu backend's references by the case functions of
 * tests/t_gpu_gemm.c and tests/t_gpu_attention.c.
 *
 *   make build/emu_matrix_gfx942 && ./build/emu_matrix_gfx942      (also gfx908, gfx90a, gfx950, gfx1100, gfx1200)
 *
 * One binary per target (AKEMU_GFX): the prelude picks the instruction by the
 * target macro (__gfx942__ ...), so each binary compiles the kernels as that
 * target's compiler would see them (AK_WAVE 64 for CDNA, 32 for RDNA), and
 * plans with config.arch = that target and matrix_cores on, so ak_gemm /
 * ak_attention choose kernel, tile, grid and block as on the device.
 *
 * What it proves: the kernels' fragment loads and stores, tile and wave
 * index math, k loop, edge handling and epilogues compute the right result
 * with each instruction's real lane layout (a layout mistake, a wrong k
 * offset, a missing edge guard or a wave reading another wave's tile shows
 * as a wrong element). What it cannot: races between real waves, the memory
 * model, LDS bank behaviour, timing, the real compiler (hipRTC / ROCm) and
 * its register allocation; the instruction's internal summation order and
 * denormal handling (fp32 here, products exact as on the hardware).
 *
 * The Makefile rewrites the prelude's clang vector typedefs
 * (`typedef T name __attribute__((ext_vector_type(N)))`, which g++ ignores)
 * to akemu_vec<T, N> (build/emu/prelude.hip); the kernel files are included
 * unchanged. */
#define AKEMU_NAME "emu_matrix"
#define AKEMU_OWN_GPU_CONTEXT   /* its own below: the arch and CU count of the row it emulates */
#include "emu_harness.h"

/* ---- the matrix instructions ----------------------------------------------------------
 * Each emulated built-in: every lane writes its A, B and C registers to its
 * wave's slot and waits at the wave barrier; the barrier's completion step
 * (akemu_mx_step, run once by the last lane to arrive) rebuilds the A (M x K)
 * and B (K x N) tiles from the lanes through the instruction's layout, forms
 * D = A B + C in fp32 (products of f16 / bf16 operands are exact in fp32; a
 * double sum rounded once, within the fp32 MFMA's error) and scatters D back
 * into the lanes' result registers by the D layout.
 *
 * Layouts, (lane, register element e) -> matrix entry. Source: the output of
 * AMD's Matrix Instruction Calculator (ROCm/amd_matrix_instruction_calculator,
 * `matrix_calculator.py -a <arch> -i <instruction> -w <wave> -M -A|-B|-D`),
 * checked entry by entry for every instruction listed here except gfx950's
 * (the calculator has no CDNA4 yet; there, Composable Kernel's
 * xdlops_gemm.hpp mfma_type for mfma_f32_32x32x16f16 / bf16: the 32x32x8
 * structure with k_per_blk 8: 2 input blocks of 32 lanes, k reduction, the
 * same 4-row output groups).
 *
 * MFMA 32x32xK, 1 block, wave64, KL = K / 2 operand elements a lane:
 *   A[m][k]: lane = m + 32 (k / KL), element k % KL       (B[k][n]: n for m)
 *   D[m][n]: lane = n + 32 ((m / 4) % 2), element 4 (m / 8) + m % 4
 *   v_mfma_f32_32x32x8_f16 / _32x32x8_bf16 (CDNA3) / _32x32x8bf16_1k (CDNA2): KL 4
 *   v_mfma_f32_32x32x4bf16 (CDNA1, gfx908): KL 2      v_mfma_f32_32x32x4_xf32 (CDNA3): KL 2
 *   v_mfma_f32_32x32x2_f32: KL 1                       v_mfma_f32_32x32x16_f16 / _bf16 (gfx950): KL 8
 *   xf32: each operand rounded to 10 mantissa bits (round to nearest even) before the product.
 * MFMA 16x16xK, 1 block, wave64, KL = K / 4 operand elements a lane (none of the kernels uses them yet):
 *   A[m][k]: lane = m + 16 (k / KL), element k % KL      (B[k][n]: n for m)
 *   D[m][n]: lane = n + 16 (m / 4), element m % 4
 *   v_mfma_f32_16x16x4_f32: KL 1   v_mfma_f32_16x16x8_xf32: KL 2   v_mfma_f32_16x16x16_f16 / _bf16 (CDNA3) /
 *   _16x16x16bf16_1k (CDNA2): KL 4   v_mfma_f32_16x16x32_f16 / _bf16 (gfx950, CK: k_per_blk 8, 4 input blocks): KL 8
 * WMMA 16x16x16 f32 <- f16 / bf16, wave32:
 *   RDNA3 (gfx11): A[m][k]: lanes m and m + 16, element k (the two halves of the wave must hold the
 *     same A and B; the emulation fails a kernel whose halves differ); B[k][n]: lanes n, n + 16, element k;
 *     D[m][n]: lane n + 16 (m % 2), element m / 2.
 *   RDNA4 (gfx12): A[m][k]: lane m + 16 ((k / 4) % 2), element 4 (k / 8) + k % 4 (lanes 0..15 hold
 *     k 0..3, 8..11; lanes 16..31 k 4..7, 12..15); B[k][n] likewise with n; D[m][n]: lane n + 16 (m / 8),
 *     element m % 8.
 * The kernels' loads (the prelude's ak_mma) give each lane a run of consecutive k for both A and B; where
 * that run is not the hardware's k order (gfx12: the prelude gives lane group g k 8g .. 8g + 7), A and B are
 * permuted along k alike and the product is unchanged: the emulation, using the hardware order, checks it. */
enum { AKEMU_MX_NONE, AKEMU_MFMA32_KL1, AKEMU_MFMA32_KL2, AKEMU_MFMA32_KL4, AKEMU_MFMA32_KL8, AKEMU_MFMA32_XF32,
       AKEMU_MFMA16_KL1, AKEMU_MFMA16_XF32, AKEMU_MFMA16_KL4, AKEMU_MFMA16_KL8, AKEMU_WMMA11, AKEMU_WMMA12,
       AKEMU_MFMA32_I8_KL4, AKEMU_MFMA32_I8_KL8, AKEMU_MFMA32_I8_KL16, AKEMU_WMMA11_I8, AKEMU_WMMA12_I8,
       AKEMU_MFMA32_F8_KL8, AKEMU_MFMA32_F8_KL32, AKEMU_WMMA12_F8, AKEMU_MX_COUNT };
/* int8 (i32 accumulators), the same lane layouts with KL bytes a lane (CK's xdlops_gemm.hpp mfma_type for
 * mfma_i32_32x32x8i8 / _32x32x16i8 / _32x32x32i8: k_per_blk 4 / 8 / 16, 2 input blocks of 32 lanes, the f32
 * output groups; the calculator's v_wmma_i32_16x16x16_iu8 tables: 16 bytes a lane on gfx11 (the halves
 * repeat), 8 on gfx12 in the f16 order by element), products and sums exact, wrapped to int32 */
static constexpr bool akemu_mx_is_i8(int op) { return op >= AKEMU_MFMA32_I8_KL4 && op <= AKEMU_WMMA12_I8; }
/* fp8 / bf8 (f32 accumulators), each code decoded exactly by the target's encoding (ak_fp8_to_f32: FNUZ on gfx94x,
 * OCP on gfx950 / gfx12), products exact:
 *   v_mfma_f32_32x32x16_{fp8,bf8}_{fp8,bf8} (gfx94x; on gfx950 OCP): the int8 32x32x16 layout, KL 8 bytes;
 *   v_mfma_scale_f32_32x32x64_f8f6f4 (gfx950; fp8 / bf8 operands, unit E8M0 scales 127 only): 32 bytes a lane,
 *     A[m][k]: lane m + 32 ((k / 16) % 2), byte 16 (k / 32) + k % 16 (AMD's CDNA4 matrix-core blog, the fp8 x fp8
 *     figure of __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4); D as the other 32x32 MFMAs;
 *   v_wmma_f32_16x16x16_{fp8,bf8}_{fp8,bf8} (gfx12, OCP): the int8 gfx12 layout (8 bytes a lane). */
static constexpr bool akemu_mx_is_f8(int op) { return op >= AKEMU_MFMA32_F8_KL8 && op <= AKEMU_WMMA12_F8; }
struct akemu_mx_shape { int lanes, m, n, k, kl, nc, xf32; };
static constexpr akemu_mx_shape akemu_mx_shapes[AKEMU_MX_COUNT] = {
    { 0, 0, 0, 0, 0, 0, 0 },       { 64, 32, 32, 2, 1, 16, 0 },  { 64, 32, 32, 4, 2, 16, 0 },
    { 64, 32, 32, 8, 4, 16, 0 },   { 64, 32, 32, 16, 8, 16, 0 }, { 64, 32, 32, 4, 2, 16, 1 },
    { 64, 16, 16, 4, 1, 4, 0 },    { 64, 16, 16, 8, 2, 4, 1 },   { 64, 16, 16, 16, 4, 4, 0 },
    { 64, 16, 16, 32, 8, 4, 0 },   { 32, 16, 16, 16, 16, 8, 0 },  { 32, 16, 16, 16, 8, 8, 0 },
    { 64, 32, 32, 8, 4, 16, 0 },   { 64, 32, 32, 16, 8, 16, 0 }, { 64, 32, 32, 32, 16, 16, 0 },
    { 32, 16, 16, 16, 16, 8, 0 },  { 32, 16, 16, 16, 8, 8, 0 },
    { 64, 32, 32, 16, 8, 16, 0 },  { 64, 32, 32, 64, 32, 16, 0 }, { 32, 16, 16, 16, 8, 8, 0 },
};
/* (lane, e) of an A operand -> (row m, k); of B -> (column n, k); of D -> (m, n) */
static void akemu_mx_ab(int op, int lane, int e, int* mn, int* k) {
    const akemu_mx_shape& s = akemu_mx_shapes[op];
    if (op == AKEMU_WMMA11 || op == AKEMU_WMMA11_I8) { *mn = lane % 16; *k = e; }
    else if (op == AKEMU_WMMA12 || op == AKEMU_WMMA12_I8 || op == AKEMU_WMMA12_F8) { *mn = lane % 16; *k = 8 * (e / 4) + 4 * (lane / 16) + e % 4; }
    else if (op == AKEMU_MFMA32_F8_KL32) { *mn = lane % 32; *k = 32 * (e / 16) + 16 * (lane / 32) + e % 16; }
    else { *mn = lane % s.m; *k = s.kl * (lane / s.m) + e; }
}
static void akemu_mx_d(int op, int lane, int e, int* m, int* n) {
    if (op == AKEMU_WMMA11 || op == AKEMU_WMMA11_I8) { *n = lane % 16; *m = 2 * e + lane / 16; }
    else if (op == AKEMU_WMMA12 || op == AKEMU_WMMA12_I8 || op == AKEMU_WMMA12_F8) { *n = lane % 16; *m = 8 * (lane / 16) + e; }
    else if (akemu_mx_shapes[op].m == 16) { *n = lane % 16; *m = 4 * (lane / 16) + e; }
    else { *n = lane % 32; *m = 8 * (e / 4) + 4 * (lane / 32) + e % 4; }
}
struct akemu_mx_wave {
    int op;
    float a[64][32], b[64][32], c[64][16], d[64][16];
    int ci[64][16], di[64][16];   /* int8 instructions: the i32 accumulators */
};
static akemu_mx_wave akemu_mx[32];
static std::atomic<long> akemu_mx_ops, akemu_mx_bad;
static float akemu_xf32(float x) {
    uint32_t u = __float_as_uint(x);
    if ((u & 0x7F800000u) == 0x7F800000u) return x;
    u = (u + 0xFFFu + ((u >> 13) & 1u)) & ~0x1FFFu;
    return __uint_as_float(u);
}
/* the barrier completion: one instruction of wave w */
static void akemu_mx_step(int w) {
    akemu_mx_wave& W = akemu_mx[w];
    if (!W.op) return;
    const akemu_mx_shape& s = akemu_mx_shapes[W.op];
    float A[32][64], B[64][32];   /* M, N <= 32, K <= 64 */
    bool ha[32][64] = {}, hb[64][32] = {};
    for (int l = 0; l < s.lanes; l++)
        for (int e = 0; e < s.kl; e++) {
            int mn, k;
            akemu_mx_ab(W.op, l, e, &mn, &k);
            const float a = s.xf32 ? akemu_xf32(W.a[l][e]) : W.a[l][e], b = s.xf32 ? akemu_xf32(W.b[l][e]) : W.b[l][e];
            /* gfx11: the second half of the wave repeats the first; a kernel that loads them differently is wrong */
            if ((ha[mn][k] && __float_as_uint(A[mn][k]) != __float_as_uint(a)) ||
                (hb[k][mn] && __float_as_uint(B[k][mn]) != __float_as_uint(b)))
                akemu_mx_bad++;
            A[mn][k] = a;
            B[k][mn] = b;
            ha[mn][k] = hb[k][mn] = true;
        }
    for (int l = 0; l < s.lanes; l++)
        for (int e = 0; e < s.nc; e++) {
            int m, n;
            double acc = 0.0;
            akemu_mx_d(W.op, l, e, &m, &n);
            for (int k = 0; k < s.k; k++) acc += (double)A[m][k] * (double)B[k][n];
            if (akemu_mx_is_i8(W.op)) W.di[l][e] = (int)(uint32_t)(uint64_t)((long long)acc + (long long)W.ci[l][e]);
            else W.d[l][e] = (float)(acc + (double)W.c[l][e]);
        }
    W.op = 0;
    akemu_mx_ops++;
}
static float akemu_tof(akemu_half h) { return (float)h; }
static float akemu_tof(akemu_bf16 h) { return __uint_as_float((uint32_t)h.bits << 16); }
static float akemu_tof(short s) { return __uint_as_float((uint32_t)(uint16_t)s << 16); }   /* bf16 bits (the i16 vectors) */
static float akemu_tof(float f) { return f; }
template <class V> static int akemu_len(const V&) { return V::SIZE; }
static int akemu_len(const float&) { return 1; }
template <class V> static float akemu_at(const V& v, int i) { return akemu_tof(v[i]); }
static float akemu_at(const float& v, int) { return v; }
/* one matrix instruction, called by every lane of the wave */
template <int OP, class V, class C> static C akemu_mx_call(const V& a, const V& b, const C& c) {
    const akemu_mx_shape& s = akemu_mx_shapes[OP];
    const int t = akemu_cur, w = t / AK_WAVE, l = t % AK_WAVE;
    akemu_mx_wave& W = akemu_mx[w];
    static_assert(C::SIZE == akemu_mx_shapes[OP].nc, "accumulator registers");
    if (AK_WAVE != s.lanes || akemu_len(a) != s.kl) akemu_mx_bad++;
    for (int e = 0; e < s.kl; e++) { W.a[l][e] = akemu_at(a, e); W.b[l][e] = akemu_at(b, e); }
    for (int e = 0; e < s.nc; e++) W.c[l][e] = c[e];
    W.op = OP;
    akemu_wave_bar[w]->arrive_and_wait();
    C d;
    for (int e = 0; e < s.nc; e++) d[e] = W.d[l][e];
    return d;
}
/* the bytes of an int8 operand register set (little-endian, signed) */
static int akemu_bytes(int v, float* o) { for (int i = 0; i < 4; i++) o[i] = (float)(int8_t)(uint8_t)((uint32_t)v >> (8 * i)); return 4; }
static int akemu_bytes(long v, float* o) { for (int i = 0; i < 8; i++) o[i] = (float)(int8_t)(uint8_t)((uint64_t)v >> (8 * i)); return 8; }
template <int N> static int akemu_bytes(const akemu_vec<int, N>& v, float* o) {
    for (int i = 0; i < N; i++) akemu_bytes(v[i], o + 4 * i);
    return 4 * N;
}
template <int OP, class V, class C> static C akemu_mx_call_i8(const V& a, const V& b, const C& c) {
    const akemu_mx_shape& s = akemu_mx_shapes[OP];
    const int t = akemu_cur, w = t / AK_WAVE, l = t % AK_WAVE;
    akemu_mx_wave& W = akemu_mx[w];
    static_assert(C::SIZE == akemu_mx_shapes[OP].nc, "accumulator registers");
    if (AK_WAVE != s.lanes || akemu_bytes(a, W.a[l]) != s.kl || akemu_bytes(b, W.b[l]) != s.kl) akemu_mx_bad++;
    for (int e = 0; e < s.nc; e++) W.ci[l][e] = c[e];
    W.op = OP;
    akemu_wave_bar[w]->arrive_and_wait();
    C d;
    for (int e = 0; e < s.nc; e++) d[e] = W.di[l][e];
    return d;
}
/* the raw bytes of an fp8 operand register set, decoded by the target's encoding (TA / TB 0: e4m3, 1: e5m2) */
static int akemu_codes(long v, uint8_t* o) { for (int i = 0; i < 8; i++) o[i] = (uint8_t)((uint64_t)v >> (8 * i)); return 8; }
template <int N> static int akemu_codes(const akemu_vec<int, N>& v, uint8_t* o) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 4; j++) o[4 * i + j] = (uint8_t)((uint32_t)v[i] >> (8 * j));
    return 4 * N;
}
static ak_dtype akemu_f8_dtype(int t) {
#if AKEMU_GFX == 942
    return t ? AK_FP8_E5M2_FNUZ : AK_FP8_E4M3_FNUZ;
#else
    return t ? AK_FP8_E5M2 : AK_FP8_E4M3;
#endif
}
template <int OP, class V, class C> static C akemu_mx_call_f8(const V& a, const V& b, const C& c, int ta, int tb, int sa = 127, int sb = 127) {
    const akemu_mx_shape& s = akemu_mx_shapes[OP];
    const int t = akemu_cur, w = t / AK_WAVE, l = t % AK_WAVE;
    akemu_mx_wave& W = akemu_mx[w];
    uint8_t ca[32], cb[32];
    static_assert(C::SIZE == akemu_mx_shapes[OP].nc, "accumulator registers");
    if (AK_WAVE != s.lanes || akemu_codes(a, ca) != s.kl || akemu_codes(b, cb) != s.kl || ta < 0 || ta > 1 || tb < 0 || tb > 1 ||
        sa != 127 || sb != 127)
        akemu_mx_bad++;
    for (int e = 0; e < s.kl; e++) { W.a[l][e] = ak_fp8_to_f32(ca[e], akemu_f8_dtype(ta)); W.b[l][e] = ak_fp8_to_f32(cb[e], akemu_f8_dtype(tb)); }
    for (int e = 0; e < s.nc; e++) W.c[l][e] = c[e];
    W.op = OP;
    akemu_wave_bar[w]->arrive_and_wait();
    C d;
    for (int e = 0; e < s.nc; e++) d[e] = W.d[l][e];
    return d;
}
#define __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, b, c, x, y, z) akemu_mx_call_f8<AKEMU_MFMA32_F8_KL8>(a, b, c, 0, 0)
#define __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8(a, b, c, x, y, z) akemu_mx_call_f8<AKEMU_MFMA32_F8_KL8>(a, b, c, 0, 1)
#define __builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8(a, b, c, x, y, z) akemu_mx_call_f8<AKEMU_MFMA32_F8_KL8>(a, b, c, 1, 0)
#define __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8(a, b, c, x, y, z) akemu_mx_call_f8<AKEMU_MFMA32_F8_KL8>(a, b, c, 1, 1)
#define __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a, b, c, ta, tb, oa, sa, ob, sb) \
    akemu_mx_call_f8<AKEMU_MFMA32_F8_KL32>(a, b, c, (oa) == 0 && (ob) == 0 ? (ta) : -1, tb, sa, sb)
#define __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(a, b, c) akemu_mx_call_f8<AKEMU_WMMA12_F8>(a, b, c, 0, 0)
#define __builtin_amdgcn_wmma_f32_16x16x16_fp8_bf8_w32_gfx12(a, b, c) akemu_mx_call_f8<AKEMU_WMMA12_F8>(a, b, c, 0, 1)
#define __builtin_amdgcn_wmma_f32_16x16x16_bf8_fp8_w32_gfx12(a, b, c) akemu_mx_call_f8<AKEMU_WMMA12_F8>(a, b, c, 1, 0)
#define __builtin_amdgcn_wmma_f32_16x16x16_bf8_bf8_w32_gfx12(a, b, c) akemu_mx_call_f8<AKEMU_WMMA12_F8>(a, b, c, 1, 1)
#define __builtin_amdgcn_mfma_i32_32x32x8i8(a, b, c, x, y, z) akemu_mx_call_i8<AKEMU_MFMA32_I8_KL4>(a, b, c)
#define __builtin_amdgcn_mfma_i32_32x32x16_i8(a, b, c, x, y, z) akemu_mx_call_i8<AKEMU_MFMA32_I8_KL8>(a, b, c)
#define __builtin_amdgcn_mfma_i32_32x32x32_i8(a, b, c, x, y, z) akemu_mx_call_i8<AKEMU_MFMA32_I8_KL16>(a, b, c)
#define __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(sa, a, sb, b, c, cl) akemu_mx_call_i8<AKEMU_WMMA11_I8>(a, b, c)
#define __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(sa, a, sb, b, c, cl) akemu_mx_call_i8<AKEMU_WMMA12_I8>(a, b, c)
#define __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA32_KL1>(a, b, c)
#define __builtin_amdgcn_mfma_f32_32x32x4bf16(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA32_KL2>(a, b, c)
#define __builtin_amdgcn_mfma_f32_32x32x4_xf32(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA32_XF32>(a, b, c)
#define __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA32_KL4>(a, b, c)
#define __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA32_KL4>(a, b, c)
#define __builtin_amdgcn_mfma_f32_32x32x16_f16(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA32_KL8>(a, b, c)
#define __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA32_KL8>(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA16_KL1>(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x8_xf32(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA16_XF32>(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA16_KL4>(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA16_KL4>(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA16_KL8>(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, x, y, z) akemu_mx_call<AKEMU_MFMA16_KL8>(a, b, c)
#define __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c) akemu_mx_call<AKEMU_WMMA11>(a, b, c)
#define __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c) akemu_mx_call<AKEMU_WMMA11>(a, b, c)
#define __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c) akemu_mx_call<AKEMU_WMMA12>(a, b, c)
#define __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c) akemu_mx_call<AKEMU_WMMA12>(a, b, c)
#define __align__(n) __attribute__((aligned(n)))

/* the target: AKEMU_GFX (the Makefile passes it) -> the compiler's target macro */
#if AKEMU_GFX == 908
#define __gfx908__ 1
#define AKEMU_ARCH "gfx908"
#elif AKEMU_GFX == 90 /* gfx90a */
#define __gfx90a__ 1
#define AKEMU_ARCH "gfx90a"
#elif AKEMU_GFX == 942
#define __gfx942__ 1
#define AKEMU_ARCH "gfx942"
#elif AKEMU_GFX == 950
#define __gfx950__ 1
#define AKEMU_ARCH "gfx950"
#elif AKEMU_GFX == 1100
#define __gfx1100__ 1
#define AKEMU_ARCH "gfx1100"
#elif AKEMU_GFX == 1200
#define __gfx1200__ 1
#define AKEMU_ARCH "gfx1200"
#else
#error "AKEMU_GFX: 908, 90 (gfx90a), 942, 950, 1100 or 1200"
#endif

namespace emu {
using std::exp2;
using std::cos;
using std::sin;
using std::log2;
using std::min;
using std::max;
#include "../build/emu/prelude.hip"
#include "../kernels/gemm.hip"
#include "../kernels/gemm_decode.hip"
#include "../kernels/gemm_cdna.hip"
#include "../kernels/gemm_fp8.hip"
#include "../kernels/attention_mma.hip"
#include "../kernels/attention.hip"
#include "../kernels/conv.hip"
#include "../kernels/transpose.hip"
}
#if !defined(AK_MMA_MFMA) && !defined(AK_MMA_WMMA11) && !defined(AK_MMA_WMMA12)
#error "emu_matrix: the prelude chose no AMD matrix path for this target"
#endif

/* ---- the case functions of the GPU suites, on emulating contexts ---------------------- */
static int akemu_cus = 1;   /* compute units the emulated device reports (the plans' small-grid choice) */
extern "C" ak_context* akt_gpu_context_ex(const ak_config* cfg, int allow_cpu) {
    (void)allow_cpu;
    return akemu_context_for(cfg, AKEMU_ARCH, akemu_cus);
}
#include "t_gpu_gemm.c"
/* tests/ti_kargs.c's switch (the Hopper kernel; never taken on an AMD row) and launcher of the generic kernel */
extern "C" void akt_attn_force_mma(int on) { _ak_attn_force_mma = on; }
extern "C" void akt_attn_sm90_nc(int n) { (void)n; }   /* the Hopper kernel's consumer count (never planned on an AMD row) */
extern "C" ak_result akt_attn_mmagen_launch(ak_context* ctx, ak_dtype t, size_t hd, ak_dim3 grid, ak_dim3 block, const void* q,
                                            const void* k, const void* v, void* o, float* lse, int hkv, int group, int sq,
                                            int skv, const int64_t qs[3], const int64_t ks[3], float scale_log2, int causal,
                                            int rows_per_block) {
    (void)ctx; (void)t; (void)hd; (void)grid; (void)block; (void)q; (void)k; (void)v; (void)o; (void)lse; (void)hkv;
    (void)group; (void)sq; (void)skv; (void)qs; (void)ks; (void)scale_log2; (void)causal; (void)rows_per_block;
    return _ak_err(AK_ERROR_LAUNCH, "emu_matrix: the generic attention kernel runs through ak_attention here (never called)");
}
#include "t_gpu_attention.c"
namespace emuconv {   /* its own g_gpu / g_cpu / g_rng */
#include "t_gpu_conv.c"
}

static void akemu_register(void) {
    AKEMU_K(ak_gemm_mma_l_f16) AKEMU_K(ak_gemm_mma_l_bf16) AKEMU_K(ak_gemm_mma_l_f32) AKEMU_K(ak_gemm_mma_l_x32)
    AKEMU_K(ak_gemm_mma_s_f16) AKEMU_K(ak_gemm_mma_s_bf16) AKEMU_K(ak_gemm_mma_s_f32) AKEMU_K(ak_gemm_mma_s_x32)
    AKEMU_K(ak_gemm_simt_l_f32) AKEMU_K(ak_gemm_simt_l_f16) AKEMU_K(ak_gemm_simt_l_bf16)
    AKEMU_K(ak_gemm_skinny_f32) AKEMU_K(ak_gemm_skinny_f16) AKEMU_K(ak_gemm_skinny_bf16)
    AKEMU_K(ak_gemm_gemv_f32) AKEMU_K(ak_gemm_gemv_f16) AKEMU_K(ak_gemm_gemv_bf16) AKEMU_K(ak_gemm_gemvn_f32) AKEMU_K(ak_gemm_gemvn32_f32) AKEMU_K(ak_gemm_gemvn4_f32) AKEMU_K(ak_gemm_gemvn4h_f32) AKEMU_K(ak_gemm_decode_fin_f32)
    AKEMU_K(ak_gemm_splitk_fin_f32) AKEMU_K(ak_gemm_splitk_fin_f16) AKEMU_K(ak_gemm_splitk_fin_bf16)
    AKEMU_K(ak_gemm_i8_l_f16) AKEMU_K(ak_gemm_i8_l_bf16) AKEMU_K(ak_gemm_i8_s_f16) AKEMU_K(ak_gemm_i8_s_bf16)
    AKEMU_K(ak_gemm_fp8_l_e4e4) AKEMU_K(ak_gemm_fp8_l_e4e5) AKEMU_K(ak_gemm_fp8_l_e5e4) AKEMU_K(ak_gemm_fp8_l_e5e5)
    AKEMU_K(ak_gemm_fp8_s_e4e4) AKEMU_K(ak_gemm_fp8_s_e4e5) AKEMU_K(ak_gemm_fp8_s_e5e4) AKEMU_K(ak_gemm_fp8_s_e5e5)
    AKEMU_K(ak_gemm_cdna_kk_f16) AKEMU_K(ak_gemm_cdna_kn_f16) AKEMU_K(ak_gemm_cdna_mk_f16) AKEMU_K(ak_gemm_cdna_mn_f16)
    AKEMU_K(ak_gemm_cdna_kk_bf16) AKEMU_K(ak_gemm_cdna_kn_bf16) AKEMU_K(ak_gemm_cdna_mk_bf16) AKEMU_K(ak_gemm_cdna_mn_bf16)
    AKEMU_K(ak_attn_mma64_f16) AKEMU_K(ak_attn_mma64_bf16) AKEMU_K(ak_attn_mma128_f16) AKEMU_K(ak_attn_mma128_bf16)
    AKEMU_K(ak_attn_mmadec64_f16) AKEMU_K(ak_attn_mmadec64_bf16) AKEMU_K(ak_attn_mmadec128_f16)
    AKEMU_K(ak_attn_mmadec128_bf16) AKEMU_K(ak_attn_combine_f32) AKEMU_K(ak_attn_combine_f16) AKEMU_K(ak_attn_combine_bf16)
    AKEMU_K(ak_attn_mma32_f16) AKEMU_K(ak_attn_mma32_bf16) AKEMU_K(ak_attn_mmadec32_f16) AKEMU_K(ak_attn_mmadec32_bf16)
    AKEMU_K(ak_attn_mma96_f16) AKEMU_K(ak_attn_mma96_bf16) AKEMU_K(ak_attn_mmadec96_f16) AKEMU_K(ak_attn_mmadec96_bf16)
    AKEMU_K(ak_attn_mma160_f16) AKEMU_K(ak_attn_mma160_bf16) AKEMU_K(ak_attn_mmadec160_f16) AKEMU_K(ak_attn_mmadec160_bf16)
    AKEMU_K(ak_attn_mma192_f16) AKEMU_K(ak_attn_mma192_bf16) AKEMU_K(ak_attn_mmadec192_f16) AKEMU_K(ak_attn_mmadec192_bf16)
    AKEMU_K(ak_attn_mma256_f16) AKEMU_K(ak_attn_mma256_bf16) AKEMU_K(ak_attn_mmadec256_f16) AKEMU_K(ak_attn_mmadec256_bf16)
    AKEMU_K(ak_conv_igemm_mma_f16) AKEMU_K(ak_conv_igemm_mma_bf16) AKEMU_K(ak_conv_igemm_mma_f32)
    AKEMU_K(ak_conv_igemm_simt_f32) AKEMU_K(ak_conv_igemm_simt_f16) AKEMU_K(ak_conv_igemm_simt_bf16)
    AKEMU_K(ak_transpose_f32) AKEMU_K(ak_transpose_f16) AKEMU_K(ak_transpose_bf16)
    AKEMU_K(ak_conv_dw_f32) AKEMU_K(ak_conv_dw_f16) AKEMU_K(ak_conv_dw_bf16)
    AKEMU_K(ak_conv_dwv_f32) AKEMU_K(ak_conv_dwv_f16) AKEMU_K(ak_conv_dwv_bf16)
}
/* every block of the grid runs: the tiles are the work */
static akemu_dim3 akemu_grid_policy(const char* kernel, akemu_dim3 g) {
    (void)kernel;
    return g;
}

/* ---- self-tests of the emulated instructions: a plain product through the documented layout ----
 * One wave; A (M x K), B (K x N), C small integers (every product and sum exact); each lane fills
 * its registers by the layout read the other way round (entry -> lane, element: the calculator's
 * tables), calls the built-in, and D is read back the same way; D must equal A B + C exactly. */
static const float* akst_A;
static const float* akst_B;
static const float* akst_C;
static float* akst_D;
/* entry -> (lane, element); gfx11's A / B entries sit in two lanes (lane and lane + 16) */
static void akst_where_ab(int op, int mn, int k, int* lane, int* e) {
    const akemu_mx_shape& s = akemu_mx_shapes[op];
    if (op == AKEMU_WMMA11) { *lane = mn; *e = k; }
    else if (op == AKEMU_WMMA12) { *lane = mn + 16 * ((k / 4) % 2); *e = 4 * (k / 8) + k % 4; }
    else { *lane = mn + s.m * (k / s.kl); *e = k % s.kl; }
}
static void akst_where_d(int op, int m, int n, int* lane, int* e) {
    if (op == AKEMU_WMMA11) { *lane = n + 16 * (m % 2); *e = m / 2; }
    else if (op == AKEMU_WMMA12) { *lane = n + 16 * (m / 8); *e = m % 8; }
    else if (akemu_mx_shapes[op].m == 16) { *lane = n + 16 * (m / 4); *e = m % 4; }
    else { *lane = n + 32 * ((m / 4) % 2); *e = 4 * (m / 8) + m % 4; }
}
template <class V> static void akst_set(V& v, int e, float x) {
    if constexpr (std::is_same_v<typename V::elem, short>) v[e] = (short)(__float_as_uint(x) >> 16);   /* bf16 bits */
    else if constexpr (std::is_same_v<typename V::elem, akemu_bf16>) v[e].bits = (uint16_t)(__float_as_uint(x) >> 16);
    else v[e] = (typename V::elem)x;
}
static void akst_set(float& v, int, float x) { v = x; }
template <int OP, class V> static void akst_kernel(void) {
    const akemu_mx_shape& s = akemu_mx_shapes[OP];
    const int l = (int)threadIdx.x;
    V a{}, b{};
    akemu_vec<float, akemu_mx_shapes[OP].nc> c{};
    for (int mn = 0; mn < s.m; mn++)
        for (int k = 0; k < s.k; k++) {
            int lane, e;
            akst_where_ab(OP, mn, k, &lane, &e);
            if (lane == l || (OP == AKEMU_WMMA11 && lane + 16 == l)) {
                akst_set(a, e, akst_A[mn * s.k + k]);
                akst_set(b, e, akst_B[k * s.n + mn]);
            }
        }
    for (int m = 0; m < s.m; m++)
        for (int n = 0; n < s.n; n++) {
            int lane, e;
            akst_where_d(OP, m, n, &lane, &e);
            if (lane == l) c[e] = akst_C[m * s.n + n];
        }
    auto d = akemu_mx_call<OP>(a, b, c);
    for (int m = 0; m < s.m; m++)
        for (int n = 0; n < s.n; n++) {
            int lane, e;
            akst_where_d(OP, m, n, &lane, &e);
            if (lane == l) akst_D[m * s.n + n] = d[e];
        }
}
template <int OP, class V> static void akst_one(const char* name) {
    const akemu_mx_shape& s = akemu_mx_shapes[OP];
    std::vector<float> A(s.m * s.k), B(s.k * s.n), C(s.m * s.n), D(s.m * s.n, NAN);
    unsigned long long st = akemu_seed ^ (unsigned long long)OP;
    long bad0 = akemu_mx_bad, wrong = 0;
    for (auto& x : A) x = (float)(int)akt_uniform(&st, -4, 5);
    for (auto& x : B) x = (float)(int)akt_uniform(&st, -4, 5);
    for (auto& x : C) x = (float)(int)akt_uniform(&st, -64, 65);
    akst_A = A.data(); akst_B = B.data(); akst_C = C.data(); akst_D = D.data();
    akemu_run(akst_kernel<OP, V>, akemu_dim3{ 1, 1, 1 }, akemu_dim3{ (unsigned)s.lanes, 1, 1 });
    for (int m = 0; m < s.m; m++)
        for (int n = 0; n < s.n; n++) {
            double ref = C[m * s.n + n];
            for (int k = 0; k < s.k; k++) ref += (double)A[m * s.k + k] * B[k * s.n + n];
            if (D[m * s.n + n] != (float)ref && wrong++ < 3)
                akt_fail(__FILE__, __LINE__, "%s: D[%d][%d] = %g, A B + C = %g", name, m, n, D[m * s.n + n], ref);
        }
    AKT_CHECKF(akemu_mx_bad == bad0, "%s: the emulation flagged its operands", name);
}
/* spot entries of the calculator's tables (-M: lane, register element -> entry), against the emulation's map */
static void akst_spot(int op, int lane, int e, char mat, int i, int j, const char* name) {
    int x, y;
    if (mat == 'D') akemu_mx_d(op, lane, e, &x, &y);
    else {
        akemu_mx_ab(op, lane, e, &x, &y);
        if (mat == 'B') std::swap(x, y);   /* B[k][n] */
    }
    AKT_CHECKF(x == i && y == j, "%s: lane %d element %d is %c[%d][%d], the calculator says %c[%d][%d]", name, lane, e, mat, x, y,
               mat, i, j);
}
static void emu_instructions(void) {
#if AK_WAVE == 64
    akst_one<AKEMU_MFMA32_KL1, float>("v_mfma_f32_32x32x2_f32");
    akst_one<AKEMU_MFMA32_KL2, akemu_vec<short, 2>>("v_mfma_f32_32x32x4bf16 (gfx908)");
    akst_one<AKEMU_MFMA32_XF32, akemu_vec<float, 2>>("v_mfma_f32_32x32x4_xf32");
    akst_one<AKEMU_MFMA32_KL4, akemu_vec<akemu_half, 4>>("v_mfma_f32_32x32x8_f16");
    akst_one<AKEMU_MFMA32_KL4, akemu_vec<short, 4>>("v_mfma_f32_32x32x8_bf16 / bf16_1k");
    akst_one<AKEMU_MFMA32_KL8, akemu_vec<akemu_half, 8>>("v_mfma_f32_32x32x16_f16 (gfx950)");
    akst_one<AKEMU_MFMA32_KL8, akemu_vec<akemu_bf16, 8>>("v_mfma_f32_32x32x16_bf16 (gfx950)");
    akst_one<AKEMU_MFMA16_KL1, float>("v_mfma_f32_16x16x4_f32");
    akst_one<AKEMU_MFMA16_XF32, akemu_vec<float, 2>>("v_mfma_f32_16x16x8_xf32");
    akst_one<AKEMU_MFMA16_KL4, akemu_vec<akemu_half, 4>>("v_mfma_f32_16x16x16_f16");
    akst_one<AKEMU_MFMA16_KL4, akemu_vec<short, 4>>("v_mfma_f32_16x16x16_bf16 / bf16_1k");
    akst_one<AKEMU_MFMA16_KL8, akemu_vec<akemu_half, 8>>("v_mfma_f32_16x16x32_f16 (gfx950)");
    akst_one<AKEMU_MFMA16_KL8, akemu_vec<akemu_bf16, 8>>("v_mfma_f32_16x16x32_bf16 (gfx950)");
    /* v_mfma_f32_16x16x16_f16 (CDNA3): lane 16 v1.[31:16] = A[0][7]; lane 0 v3 = D[3][0]; lane 63 v0 = D[12][15];
     * v_mfma_f32_16x16x4_f32: lane 48 v0 = B[3][0] */
    akst_spot(AKEMU_MFMA16_KL4, 16, 3, 'A', 0, 7, "16x16x16");
    akst_spot(AKEMU_MFMA16_KL4, 0, 3, 'D', 3, 0, "16x16x16");
    akst_spot(AKEMU_MFMA16_KL4, 63, 0, 'D', 12, 15, "16x16x16");
    akst_spot(AKEMU_MFMA16_KL1, 48, 0, 'B', 3, 0, "16x16x4f32");
    /* v_mfma_f32_32x32x8_f16 (CDNA3): lane 32 v1.[31:16] = A[0][7]; lane 47 v0.[15:0] = B[4][15];
     * lane 32 v4 = D[12][0]; lane 63 v15 = D[31][31]; lane 16 v9 = D[17][16] */
    akst_spot(AKEMU_MFMA32_KL4, 32, 3, 'A', 0, 7, "32x32x8");
    akst_spot(AKEMU_MFMA32_KL4, 47, 0, 'B', 4, 15, "32x32x8");
    akst_spot(AKEMU_MFMA32_KL4, 32, 4, 'D', 12, 0, "32x32x8");
    akst_spot(AKEMU_MFMA32_KL4, 63, 15, 'D', 31, 31, "32x32x8");
    akst_spot(AKEMU_MFMA32_KL4, 16, 9, 'D', 17, 16, "32x32x8");
    /* v_mfma_f32_32x32x4bf16 (CDNA1): lane 32 v0.[31:16] = A[0][3]; v_mfma_f32_32x32x2_f32: lane 40 v0 = B[1][8] */
    akst_spot(AKEMU_MFMA32_KL2, 32, 1, 'A', 0, 3, "32x32x4bf16");
    akst_spot(AKEMU_MFMA32_KL1, 40, 0, 'B', 1, 8, "32x32x2f32");
    /* v_mfma_scale_f32_32x32x64_f8f6f4, fp8 x fp8 (the blog's figure): lane 32 byte 0 = A[0][16]; lane 0 byte 16 = A[0][32];
     * lane 63 byte 31 = A[31][63]; lane 33 byte 17 = B[49][1] */
    akst_spot(AKEMU_MFMA32_F8_KL32, 32, 0, 'A', 0, 16, "32x32x64 f8f6f4");
    akst_spot(AKEMU_MFMA32_F8_KL32, 0, 16, 'A', 0, 32, "32x32x64 f8f6f4");
    akst_spot(AKEMU_MFMA32_F8_KL32, 63, 31, 'A', 31, 63, "32x32x64 f8f6f4");
    akst_spot(AKEMU_MFMA32_F8_KL32, 33, 17, 'B', 49, 1, "32x32x64 f8f6f4");
#else
    akst_one<AKEMU_WMMA11, akemu_vec<akemu_half, 16>>("v_wmma_f32_16x16x16_f16 (gfx11)");
    akst_one<AKEMU_WMMA11, akemu_vec<short, 16>>("v_wmma_f32_16x16x16_bf16 (gfx11)");
    akst_one<AKEMU_WMMA12, akemu_vec<akemu_half, 8>>("v_wmma_f32_16x16x16_f16 (gfx12)");
    akst_one<AKEMU_WMMA12, akemu_vec<short, 8>>("v_wmma_f32_16x16x16_bf16 (gfx12)");
    /* RDNA3: lane 16 v7.[31:16] = A[0][15]; lane 17 v3 = D[7][1].  RDNA4: lane 13 v2.[15:0] = A[13][8];
     * lane 16 v0.[15:0] = B[4][0]; lane 31 v3.[31:16] = B[15][15]; lane 16 v0 = D[8][0] */
    akst_spot(AKEMU_WMMA11, 16, 15, 'A', 0, 15, "wmma gfx11");
    akst_spot(AKEMU_WMMA11, 17, 3, 'D', 7, 1, "wmma gfx11");
    akst_spot(AKEMU_WMMA12, 13, 4, 'A', 13, 8, "wmma gfx12");
    akst_spot(AKEMU_WMMA12, 16, 0, 'B', 4, 0, "wmma gfx12");
    akst_spot(AKEMU_WMMA12, 31, 7, 'B', 15, 15, "wmma gfx12");
    akst_spot(AKEMU_WMMA12, 16, 0, 'D', 8, 0, "wmma gfx12");
#endif
}

/* ---- GEMM through ak_gemm's plan for this target ---------------------------------------- */
static const char* akemu_gemm_path(ak_dtype dt) {
#if AK_WAVE == 64
    (void)dt;
    return "mfma";
#else
    return dt == AK_F32 ? "simt" : "wmma";
#endif
}
/* the large (128 x 128) or small (64 x 64) tile: the plan takes the small one when the grid has fewer
 * 128 x 128 tiles than the device has compute units */
static void emu_gemm_tile(int small, int quick) {
    ak_config cfg = ak_config_default();
    ak_context* ctx;
    long bad0 = akemu_mx_bad;
    cfg.matrix_cores = AK_ON;
    akemu_cus = small ? 100000 : 1;
    ctx = akt_gpu_context(&cfg);
    AKT_CHECKF(ctx != NULL, "no emulating context: %s", ak_last_error());
    if (!ctx) return;
    for (int d = 0; d < 3; d++) {
        const ak_dtype dt = T3[d];
        const char* path = akemu_gemm_path(dt);
        if (quick && dt == AK_F32) continue;
        for (int t = 0; t < 4; t++) {
            const int ta = t & 1, tb = t >> 1;
            if (quick && !small && (t || dt != AK_F16)) continue;   /* quick: the large tile once */
            /* edges in M, N and K (K not a multiple of the k step, nor of 8: the element loads) */
            gg_case(ctx, path, dt, dt, small ? 37 : 131, small ? 70 : 133, 45, ta, tb, 0, 1, 0, 0);
            if (small && (!quick || t == 0)) { /* few tiles, long k: split-K (2 slices, the second shorter), epilogue after */
                g_split = 1;
                gg_case(ctx, path, dt, t & 1 ? AK_F32 : dt, 70, 40, 2100, ta, tb, 15, 1, 0, 0);
                g_split = 0;
            }
            if (quick) continue;
            /* K = 1 with C, bias, activation and residual */
            gg_case(ctx, path, dt, dt, 17, 23, 1, ta, tb, 15, 1, 0, 0);
            if (dt == AK_F32) continue;   /* exact f32 (CDNA's 32x32x2): the same code with one element a lane */
            /* bias + activation, f32 out, batch 2; then C, bias, activation, residual, batch 2, 16-byte rows */
            gg_case(ctx, path, dt, AK_F32, small ? 65 : 129, small ? 33 : 129, 7, ta, tb, 2 | 4, 2, 0, 0);
            gg_case(ctx, path, dt, dt, small ? 64 : 128, small ? 64 : 136, 72, ta, tb, 15, 2, 0, 0);
            /* odd leading dimensions and a 1-element offset: the element-wise loads */
            gg_case(ctx, path, dt, dt, 40, 50, 67, ta, tb, 1 | 2, 1, 1, 1);
        }
    }
    /* exact f32 with m <= 16 and B stored K x N: the gemv kernel's n-contiguous branch (ak_gemm_gemvn: lanes of
     * a wave and waves summed in shared memory), 16-byte rows and a column tail, then scalar loads */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 3, 37, 45, 1, 0, 15, 2, -1, 0);
    if (!quick) gg_case(ctx, "gemv", AK_F32, AK_F32, 16, 20, 300, 0, 0, 2 | 4, 1, 1, 1);
    /* long k: the lanes' k loop several turns and a partial last turn, both layouts of A */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 7, 40, 1100, 1, 0, 2, 1, 0, 0);
    if (!quick) gg_case(ctx, "gemv", AK_F32, AK_F32, 16, 9, 1030, 0, 0, 1 | 8, 2, 1, 1);
    /* many columns: the 128-column kernel at either wave size (few columns take the 32-column one) */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 4, 40000, 100, 0, 0, 2, 1, 0, 0);
    /* at most 4 rows (ak_gemm_gemvn4, 256 threads on AMD; wave 32 plans it for these, wave 64 the 32-column kernel):
     * A stored M x K in 16-byte loads and a ragged k, A stored K x M with 4 rows, one row at an odd offset (element
     * loads) */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 2, 70, 1100, 0, 0, 15, 2, -1, 0);
    gg_case(ctx, "gemv", AK_F32, AK_F32, 4, 40, 600, 1, 0, 2 | 4, 1, -1, 0);
    gg_case(ctx, "gemv", AK_F32, AK_F32, 1, 50, 700, 0, 0, 8, 1, 0, 1);
    /* the matrix-vector kernel (ak_gemm_gemv: a wave a row of A, its evict-first 16-byte loads two steps deep, then
     * one step, then the element tail), A x for every type; x W^T in f32 */
    {
        static const ak_dtype gv[3] = { AK_F32, AK_F16, AK_BF16 };
        for (int d = 0; d < 3; d++) gg_case(ctx, "gemv", gv[d], gv[d], 37, 1, 1500, 0, 0, 0, 1, 0, 0);
        gg_case(ctx, "gemv", AK_F32, AK_F32, 1, 29, 1100, 0, 1, 2, 1, 0, 0);
    }
    /* n <= 16 < m: the transposed product (the skinny kernel for A stored m x k, gemvn for exact f32 with A
     * stored k x m), D / C / R addressed transposed */
    gg_turned_cases(ctx, 0, quick);
    /* m <= 16 with B stored N x K: the same skinny kernel on its own, 16 columns a block at either wave size */
    gg_case(ctx, "skinny", AK_F16, AK_F16, 7, 300, 1000, 0, 1, 15, 2, -1, 0);
    if (!quick) gg_case(ctx, "skinny", AK_BF16, AK_F32, 16, 33, 2000, 1, 1, 2 | 4, 1, -1, 0);
    if (!quick) {
        /* beta = 0 with NaN in C (must not be read) */
        gg_case(ctx, "", AK_F16, AK_F16, 33, 33, 33, 1, 1, 16, 1, 0, 0);
#if AK_WAVE == 64 && AKEMU_GFX == 942
        { /* f32 through xf32 (allow_tf32) */
            ak_config x = cfg;
            ak_context* xc;
            x.allow_tf32 = 1;
            xc = akt_gpu_context(&x);
            if (xc) {
                gg_case(xc, "mfma", AK_F32, AK_F32, 70, 90, 77, 0, 1, 6, 2, 0, 0);
                gg_case(xc, "mfma", AK_F32, AK_F32, 70, 90, 77, 1, 0, 0, 1, 0, 0);
                ak_context_destroy(xc);
            }
        }
#endif
    }
    AKT_CHECKF(akemu_mx_bad == bad0, "the emulated instructions flagged %ld operand sets (gfx11 halves differing, wrong width)",
               (long)(akemu_mx_bad - bad0));
    ak_context_destroy(ctx);
}
/* ---- attention through ak_attention's plan for this target: the generic AMD matrix kernel (head sizes
 * 32 .. 256 in steps of 32; head_dim 80 on 96, 200 on 256: zero columns past head_dim, BSHD rows catch a store
 * past it), prefill (4 waves of 32 (MFMA) / 16 (WMMA) rows) and decode (one wave, split keys + combine); WMMA
 * past head size 128 with Q in shared memory and 16-key tiles */
static void emu_attention_case(ak_context* ctx, ak_dtype t, size_t b, size_t hq, size_t hkv, size_t sq, size_t skv, size_t d,
                               ak_attention_layout lay, int causal, int splits = 0) {
    at_case c = at_mk(t, b, hq, hkv, sq, skv, d, lay, causal);
    c.splits = splits;
    ga_case(ctx, AK_WAVE == 64 ? "mfma" : "wmma", &c);
}
static int akemu_quick;
static void emu_attention(void) {
    ak_config cfg = ak_config_default();
    long bad0 = akemu_mx_bad;
    cfg.matrix_cores = AK_ON;
    akemu_cus = 4;
    g_gpu = akt_gpu_context(&cfg);
    g_cpu = g_ref;
    g_rng = akemu_seed ^ 0x5EEDA77Eull;
    AKT_CHECKF(g_gpu != NULL, "no emulating context: %s", ak_last_error());
    if (!g_gpu) return;
    emu_attention_case(g_gpu, AK_F16, 2, 4, 4, 17, 17, 64, AK_ATTN_BHSD, 1);
    if (!akemu_quick) {
        emu_attention_case(g_gpu, AK_BF16, 1, 4, 1, 40, 70, 128, AK_ATTN_BSHD, 1);      /* GQA 4, causal, sq < skv */
        emu_attention_case(g_gpu, AK_BF16, 1, 2, 2, 33, 17, 64, AK_ATTN_STRIDED, 1);    /* sq > skv: fully masked rows */
        emu_attention_case(g_gpu, AK_F16, 1, 3, 3, 45, 100, 128, AK_ATTN_BHSD, 0);
        emu_attention_case(g_gpu, AK_F16, 2, 8, 2, 1, 300, 128, AK_ATTN_BSHD, 0);       /* decode: split keys + combine */
        emu_attention_case(g_gpu, AK_BF16, 1, 4, 4, 1, 77, 64, AK_ATTN_BHSD, 1, 3);    /* 3 splits + combine */
        emu_attention_case(g_gpu, AK_F16, 1, 2, 2, 70, 90, 64, AK_ATTN_BSHD, 1);       /* prefill, head size 64 */
    }
    emu_attention_case(g_gpu, AK_F16, 1, 4, 2, 37, 45, 80, AK_ATTN_BSHD, 1);           /* 80 on 96, GQA 2, causal */
    if (!akemu_quick) {
        emu_attention_case(g_gpu, AK_BF16, 1, 2, 2, 1, 70, 96, AK_ATTN_BHSD, 0, 2);    /* decode, 2 splits + combine */
        emu_attention_case(g_gpu, AK_F16, 1, 2, 1, 20, 33, 160, AK_ATTN_BHSD, 0);      /* GQA 2: 40 rows */
        emu_attention_case(g_gpu, AK_BF16, 1, 2, 2, 19, 40, 192, AK_ATTN_BSHD, 1);     /* MFMA: decode form; WMMA: prefill */
        emu_attention_case(g_gpu, AK_F16, 1, 2, 2, 40, 50, 256, AK_ATTN_BHSD, 1);      /* prefill, causal, sq < skv */
        emu_attention_case(g_gpu, AK_F16, 2, 4, 2, 1, 90, 200, AK_ATTN_BSHD, 0, 3);    /* 200 on 256, decode, 3 splits */
        emu_attention_case(g_gpu, AK_BF16, 1, 2, 2, 33, 30, 32, AK_ATTN_STRIDED, 1);   /* head size 32, sq > skv */
#if AKEMU_GFX != 908
        emu_attention_case(g_gpu, AK_BF16, 1, 2, 2, 35, 60, 256, AK_ATTN_BSHD, 0);     /* (gfx908 bf16 256: SIMT) */
#endif
    }
    AKT_CHECKF(akemu_mx_bad == bad0, "the emulated instructions flagged %ld operand sets", (long)(akemu_mx_bad - bad0));
    ak_context_destroy(g_gpu);
    g_gpu = NULL;
}
/* ---- convolution through ak_conv's plan for this target: the implicit GEMM on the matrix cores with the
 * element loader and the vector loader (channel counts multiples of 8; channels-first through the
 * channels-last copy), standard and transposed (strides > 1: the sub-pixel phases), depthwise, against the C reference (tests/t_gpu_conv.c) */
static void emu_conv(void) {
    using emuconv::gc_case;
    static const gc_case cases[] = {
        /* ndim tr cl act bias  n ci co g   in   k   s   p   d   op */
        { 2, 0, 1, AK_OP_RELU, 1, 1, 24, 70, 1, { 5, 7 }, { 3, 3 }, { 2, 1 }, { 1, 2 }, { 1, 2 }, { 0 } },   /* vector, NHWC */
        { 2, 0, 0, 0, 1,          1, 48, 9, 1, { 6, 5 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 } },      /* vector, NCHW copy */
        { 1, 1, 1, 0, 0,          2, 64, 12, 2, { 9 }, { 3 }, { 1 }, { 1 }, { 2 }, { 0 } },                  /* vector, transposed */
        { 2, 0, 0, 0, 0,          1, 5, 10, 1, { 7, 6 }, { 3, 2 }, { 1, 1 }, { 1, 0 }, { 1, 1 }, { 0 } },       /* element loader */
        { 2, 1, 0, 0, 1,          1, 32, 20, 1, { 5, 6 }, { 3, 3 }, { 2, 3 }, { 1, 1 }, { 1, 2 }, { 1, 0 } },   /* vector, phases */
        { 2, 1, 1, 0, 1,          1, 6, 10, 2, { 4, 5 }, { 3, 3 }, { 5, 2 }, { 1, 1 }, { 2, 2 }, { 0, 1 } },    /* element, phases */
        { 2, 0, 0, AK_OP_RELU, 1, 1, 2, 4, 2, { 35, 66 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 } },      /* depthwise, tiled */
        { 2, 0, 0, AK_OP_RELU, 1, 1, 2, 4, 2, { 35, 270 }, { 3, 3 }, { 2, 1 }, { 1, 1 }, { 1, 1 }, { 0 } },    /* depthwise, stride 2 */
        { 2, 0, 0, AK_OP_LEAKY_RELU, 1, 1, 2, 4, 2, { 35, 270 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 } }, /* stride 1 */
        { 2, 0, 0, 0, 0,          1, 2, 2, 2, { 41, 37 }, { 3, 7 }, { 1, 1 }, { 0, 9 }, { 2, 1 }, { 0 } },       /* stride 1, 7 wide */
    };
    ak_config cfg = ak_config_default();
    cfg.matrix_cores = AK_ON;
    cfg.log_level = AK_LOG_NONE;
    akemu_cus = 4;
    emuconv::g_gpu = akt_gpu_context(&cfg);
    emuconv::g_tf32 = akt_gpu_context(&cfg);
    emuconv::g_cpu = g_ref;
    emuconv::g_rng = akemu_seed ^ 0xC0417ull;
    AKT_CHECKF(emuconv::g_gpu != NULL, "no emulating context: %s", ak_last_error());
    if (!emuconv::g_gpu) return;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (akemu_quick && i == 1) continue;
        emuconv::gc_run(&cases[i], AK_F16, 0);
        if (!akemu_quick) emuconv::gc_run(&cases[i], AK_BF16, 0);
    }
    ak_context_destroy(emuconv::g_gpu);
    ak_context_destroy(emuconv::g_tf32);
    emuconv::g_gpu = emuconv::g_tf32 = emuconv::g_cpu = NULL;
}
/* int8 through ak_gemm's plan for this target: the small and the large tile (the GPU suite's cases) */
static void emu_gemm_i8(void) {
    ak_config cfg = ak_config_default();
    long bad0 = akemu_mx_bad;
    cfg.matrix_cores = AK_ON;
    for (int small = 0; small < 2; small++) {
        ak_context* ctx;
        akemu_cus = small ? 100000 : 1;
        ctx = akt_gpu_context(&cfg);
        AKT_CHECKF(ctx != NULL, "no emulating context: %s", ak_last_error());
        if (!ctx) return;
        gg_i8_case(ctx, AK_WAVE == 64 ? "mfma" : "wmma", AK_I32, small ? 37 : 131, small ? 70 : 133, 77, 0, 0, 1, 0);
        gg_i8_case(ctx, AK_WAVE == 64 ? "mfma" : "wmma", AK_BF16, 40, 50, 130, 15, 15, 2, 3);
        if (!akemu_quick) {
            gg_i8_case(ctx, AK_WAVE == 64 ? "mfma" : "wmma", AK_F32, 65, 33, 7, 7, 4, 1, 16);
            gg_i8_case(ctx, AK_WAVE == 64 ? "mfma" : "wmma", AK_F16, 1, 9, 200, 3, 2 | 8, 1, 0);
        }
        ak_context_destroy(ctx);
    }
    AKT_CHECKF(akemu_mx_bad == bad0, "the emulated int8 instructions flagged %ld operand sets", (long)(akemu_mx_bad - bad0));
}
/* fp8 through ak_gemm's plan for this target (tests/t_gpu_gemm.c's AMD fp8 cases: both tiles, every pair of formats,
 * every scale granularity, every pair of codes exactly); targets without an fp8 matrix instruction refuse it, and
 * an OCP target refuses the FNUZ encodings */
static void emu_gemm_fp8(void) {
    ak_config cfg = ak_config_default();
    long bad0 = akemu_mx_bad;
    const int fnuz = AKEMU_GFX == 942, has = AKEMU_GFX == 942 || AKEMU_GFX == 950 || AKEMU_GFX == 1200;
    cfg.matrix_cores = AK_ON;
    for (int small = 0; small < 2; small++) {
        ak_context* ctx;
        ak_gemm_desc g = ak_gemm_desc_default();
        ak_gemm_plan p;
        akemu_cus = small ? 100000 : 1;
        ctx = akt_gpu_context(&cfg);
        AKT_CHECKF(ctx != NULL, "no emulating context: %s", ak_last_error());
        if (!ctx) return;
        g.dtype = AK_FP8_E4M3; g.out_dtype = AK_BF16; g.m = 300; g.n = 300; g.k = 64; g.trans_b = 1;
        g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40);
        g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
        if (!has) {
            AKT_ERR(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_MATRIX_CORES);
            AKT_CONTAINS(ak_last_error(), AKEMU_ARCH);
        } else {
            AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
            AKT_CHECKF(!strcmp(p.kernel, small ? "ak_gemm_fp8_s_e4e4" : "ak_gemm_fp8_l_e4e4"), "fp8 plan %s", p.kernel);
            g.dtype = AK_FP8_E4M3_FNUZ; g.dtype_b = AK_FP8_E5M2_FNUZ;
            if (fnuz) {
                AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
                AKT_CHECKF(!strcmp(p.kernel, small ? "ak_gemm_fp8_s_e4e5" : "ak_gemm_fp8_l_e4e5"), "fp8 fnuz plan %s", p.kernel);
            } else {
                AKT_ERR(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_INVALID_ARGUMENT);
                AKT_CONTAINS(ak_last_error(), "FNUZ");
            }
            g.dtype = AK_FP8_E4M3; g.dtype_b = AK_FP8_E4M3; g.trans_b = 0;
            AKT_ERR(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_INVALID_ARGUMENT);
            AKT_CONTAINS(ak_last_error(), "K-major");
            fp8_amd_cases(ctx, AK_WAVE == 64 ? "mfma" : "wmma", fnuz, akemu_quick || small);
        }
        ak_context_destroy(ctx);
    }
    AKT_CHECKF(akemu_mx_bad == bad0, "the emulated fp8 instructions flagged %ld operand sets", (long)(akemu_mx_bad - bad0));
}
/* ---- the CDNA3 / CDNA4 large-tile kernel (kernels/gemm_cdna.hip; gfx942 / gfx950 plans, 16-byte rows, contiguous
 * extents multiples of 8): every layout, f16 / bf16; full k tiles only, several full tiles + a masked last one, the
 * masked one alone (K < the k step); M and N past the 256 x 128 tile (rows clamped, never stored); the epilogues */
static void emu_gemm_cdna(void) {
#if AKEMU_GFX == 942 || AKEMU_GFX == 950
    ak_config cfg = ak_config_default();
    ak_context* ctx;
    long bad0 = akemu_mx_bad;
    cfg.matrix_cores = AK_ON;
    akemu_cus = 1;
    ctx = akt_gpu_context(&cfg);
    AKT_CHECKF(ctx != NULL, "no emulating context: %s", ak_last_error());
    if (!ctx) return;
    for (int d = 0; d < 2; d++) {
        const ak_dtype dt = d ? AK_BF16 : AK_F16;
        for (int t = 0; t < 4; t++) {
            const int ta = t & 1, tb = t >> 1;
            if (akemu_quick && (d || t)) continue;
            /* K 200: full tiles and a masked last one; C, bias, activation, residual; batch 2 */
            gg_case(ctx, "mfma", dt, dt, 264, 136, 200, ta, tb, 15, 2, 0, 0);
            if (akemu_quick) continue;
            /* K 8: the masked tile alone; f32 output with bias + activation */
            gg_case(ctx, "mfma", dt, AK_F32, 40, 24, 8, ta, tb, 2 | 4, 1, 0, 0);
            /* K 128 (gfx942: 4 full tiles, gfx950: 2), padded rows */
            gg_case(ctx, "mfma", dt, dt, 256, 128, 128, ta, tb, 0, 1, 8, 0);
        }
        /* k-contiguous operands: any M and N */
        if (!akemu_quick) gg_case(ctx, "mfma", dt, dt, 37, 70, 48, 0, 1, 1, 1, 0, 0);
    }
    AKT_CHECKF(akemu_mx_bad == bad0, "the emulated instructions flagged %ld operand sets", (long)(akemu_mx_bad - bad0));
    ak_context_destroy(ctx);
#endif
}
static void emu_gemm_large(void) { emu_gemm_tile(0, akemu_quick); }
static void emu_gemm_small(void) { emu_gemm_tile(1, akemu_quick); }

/* the full run launched every matrix kernel variant the plans have for this target */
static void emu_every_kernel(void) {
    static const char* const every[] = {
        "ak_gemm_mma_l_f16", "ak_gemm_mma_l_bf16", "ak_gemm_mma_s_f16", "ak_gemm_mma_s_bf16",
#if AK_WAVE == 64
        "ak_gemm_mma_l_f32", "ak_gemm_mma_s_f32",
#endif
#if AKEMU_GFX == 942
        "ak_gemm_mma_l_x32", "ak_gemm_mma_s_x32",
#endif
#if AKEMU_GFX == 942 || AKEMU_GFX == 950
        "ak_gemm_cdna_kk_f16", "ak_gemm_cdna_kn_f16", "ak_gemm_cdna_mk_f16", "ak_gemm_cdna_mn_f16",
        "ak_gemm_cdna_kk_bf16", "ak_gemm_cdna_kn_bf16", "ak_gemm_cdna_mk_bf16", "ak_gemm_cdna_mn_bf16",
#endif
        "ak_attn_mma64_f16", "ak_attn_mma64_bf16", "ak_attn_mma128_f16", "ak_attn_mma128_bf16",
        "ak_attn_mmadec64_bf16", "ak_attn_mmadec128_f16", "ak_attn_combine_bf16",
        "ak_attn_mma96_f16", "ak_attn_mmadec96_bf16", "ak_attn_mma160_f16", "ak_attn_mma256_f16",
        "ak_attn_mmadec256_f16", "ak_attn_mma32_bf16", "ak_attn_combine_f16",
#if AKEMU_GFX != 908
        "ak_attn_mma256_bf16",
#endif
        "ak_conv_igemm_mma_f16", "ak_conv_igemm_mma_bf16", "ak_transpose_f16",
        "ak_gemm_i8_l_f16", "ak_gemm_i8_l_bf16", "ak_gemm_i8_s_f16", "ak_gemm_i8_s_bf16",
#if AKEMU_GFX == 942 || AKEMU_GFX == 950 || AKEMU_GFX == 1200
        "ak_gemm_fp8_l_e4e4", "ak_gemm_fp8_l_e4e5", "ak_gemm_fp8_l_e5e4", "ak_gemm_fp8_l_e5e5",
        "ak_gemm_fp8_s_e4e4", "ak_gemm_fp8_s_e4e5", "ak_gemm_fp8_s_e5e4", "ak_gemm_fp8_s_e5e5",
#endif
    };
    for (const char* k : every) AKT_CHECKF(akemu_ran.count(k) != 0, "%s never ran", k);
}

int main(int argc, char** argv) {
    akemu_quick = argc > 1 && !strcmp(argv[1], "--quick");
    akemu_begin("emu_matrix " AKEMU_ARCH, akemu_quick ? " quick" : "");
    akemu_wave_hook = akemu_mx_step;
    g_st = akemu_seed ^ 0x47454d4dull;
    g_ref = akt_cpu_context("ref");
    if (!g_ref) { printf("0 passed, 1 failed\n"); return 1; }
    AKT_RUN(emu_instructions);
    AKT_RUN(emu_gemm_small);
    AKT_RUN(emu_gemm_large);
    AKT_RUN(emu_gemm_i8);
    AKT_RUN(emu_gemm_fp8);
    AKT_RUN(emu_gemm_cdna);
    AKT_RUN(emu_attention);
    AKT_RUN(emu_conv);
    if (!akemu_quick) AKT_RUN(emu_every_kernel);
    printf("kernels run:");
    for (auto& k : akemu_ran) printf(" %s x%ld", k.first.c_str(), k.second);
    printf("\n");
    ak_context_destroy(g_ref);
    printf("%ld emulated launches, %ld matrix instructions\n%d passed, %d failed\n", akemu_launches, (long)akemu_mx_ops,
           akemu_passed, akemu_failed);
    return akemu_failed != 0;
}
