/* emu_llm - the GPU kernels of kernels/norm.hip (residual form), llm.hip and
 * layout.hip executed on the CPU in a host SIMT emulation, compared with the
 * cpu backend's references by the case functions of tests/t_gpu_llm.c.
 *
 *   make build/emu_llm_w64 build/emu_llm_w32 && ./build/emu_llm_w64 && ./build/emu_llm_w32
 *
 * Why: the kernels' index math (vector and scalar paths, grid-stride loops,
 * chunked rows, unit widening, wave-level reductions for AK_WAVE 32 and 64)
 * is checked on every `make test`, without a GPU. It is not a GPU test: the
 * gpu_llm suite (--gpu) runs the same cases on a device; this emulation
 * cannot see races between real waves, memory-model effects or compiler
 * behaviour of hipRTC / NVRTC.
 *
 * How: tests/emu_harness.h (shared with tests/emu_matrix.cpp): the kernel
 * sources are compiled as host C++20 inside a namespace with the HIP
 * built-ins of the prelude's AMD path defined there, every GPU thread a
 * fiber. The "device" is a cpu context on a copy of the cpu backend
 * table that claims device memory and launches into the emulation, so the
 * ops' real planning (kernel name, grid, block, the generated packers'
 * argument values) drives it. */
#define AKEMU_NAME "emu_llm"
#include "emu_harness.h"
#include <sys/wait.h>

namespace emu {
using std::exp2;
using std::cos;
using std::sin;
#include "../kernels/prelude.hip"
#include "../kernels/norm.hip"
#include "../kernels/llm.hip"
#include "../kernels/layout.hip"
}

#include "t_gpu_llm.c"

/* ---- the emulated kernels ---------------------------------------------------------- */
static void akemu_register(void) {
    AKEMU_K(ak_add_norm_f32) AKEMU_K(ak_add_norm_f16) AKEMU_K(ak_add_norm_bf16)
    AKEMU_K(ak_add_norm_wide_f32) AKEMU_K(ak_add_norm_wide_f16) AKEMU_K(ak_add_norm_wide_bf16)
    AKEMU_K(ak_rope_f32) AKEMU_K(ak_rope_f16) AKEMU_K(ak_rope_bf16) AKEMU_K(ak_ropeg_f16) AKEMU_K(ak_ropeg_bf16)
    AKEMU_K(ak_copy_nd_u8) AKEMU_K(ak_copy_nd_u16) AKEMU_K(ak_copy_nd_u32) AKEMU_K(ak_copy_nd_u64)
    AKEMU_K(ak_copy_nd_u128) AKEMU_K(ak_copy_cast_f32_f16) AKEMU_K(ak_copy_cast_f32_bf16)
    AKEMU_K(ak_copy_cast_f16_f32) AKEMU_K(ak_copy_cast_bf16_f32) AKEMU_K(ak_copy_cast_f16_bf16)
    AKEMU_K(ak_copy_cast_bf16_f16) AKEMU_K(ak_copy_cast_i32_i64) AKEMU_K(ak_copy_cast_i64_i32)
    AKEMU_K(ak_embedding_u8) AKEMU_K(ak_embedding_u16) AKEMU_K(ak_embedding_u32) AKEMU_K(ak_embedding_u64)
    AKEMU_K(ak_embedding_u128)
}
/* the grid-stride kernels get at most 5 blocks, so their loops take several turns; the norm
 * kernels map one row per group / block and get what the wrapper asked for */
static akemu_dim3 akemu_grid_policy(const char* kernel, akemu_dim3 g) {
    if (g.x > 5 && strncmp(kernel, "ak_add_norm", 11)) g.x = 5;
    return g;
}

/* ---- the cases: every kernel and path at small sizes ------------------------------- */
static void emu_add_norm(void) {
    static const size_t shapes[][3] = { { 3, 7, 0 }, { 5, 64, 0 }, { 2, 4096, 1 }, { 9, 24, 0 }, { 2, 16392, 0 },
                                        { 1, 20001, 1 } };
    for (size_t ti = 0; ti < 3; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            size_t r = shapes[si][0], c = shapes[si][1], o = shapes[si][2];
            gl_add_norm(gl_types[ti], r, c, o, 0, 3, (int)(si % 3));
            gl_add_norm(gl_types[ti], r, c, o, 1, 1, (int)((si + 1) % 3));
        }
}
static void emu_rope(void) {
    static const size_t shapes[][4] = { { 3, 2, 16, 16 }, { 2, 3, 6, 4 }, { 2, 2, 40, 16 }, { 7, 1, 8, 8 },
                                        { 1057, 2, 48, 32 } };   /* 2 tokens per block (interleaved halves), odd tail */
    for (size_t ti = 0; ti < 3; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int m = 0; m < 2; m++) {
                const size_t* s = shapes[si];
                gl_rope((ak_rope_mode)m, gl_types[ti], AK_I64, s[0], s[1], s[2], s[3], 0, 0, 10000.0f);
                gl_rope((ak_rope_mode)m, gl_types[ti], AK_I32, s[0], s[1], s[2], s[3], 1, 0, 500000.0f);
                gl_rope((ak_rope_mode)m, gl_types[ti], AK_I32, s[0], s[1], s[2], s[3], 0, 1, 10000.0f);
            }
}
static void emu_embedding(void) {
    static const ak_dtype types[] = { AK_F32, AK_F16, AK_I64, AK_U8 };
    static const size_t dims[] = { 1, 3, 8, 65 };
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
            gl_embedding(types[ti], AK_I32, 50, dims[di], 13, 0, 0);
            gl_embedding(types[ti], AK_I64, 37, dims[di], 11, 1, 1);
        }
}
static void emu_copy(void) {
    static const ak_dtype pairs[][2] = { { AK_F32, AK_F32 }, { AK_F16, AK_F16 }, { AK_I64, AK_I64 }, { AK_U8, AK_U8 },
                                         { AK_F32, AK_F16 }, { AK_F32, AK_BF16 }, { AK_F16, AK_F32 },
                                         { AK_BF16, AK_F32 }, { AK_F16, AK_BF16 }, { AK_BF16, AK_F16 },
                                         { AK_I32, AK_I64 }, { AK_I64, AK_I32 } };
    for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        ak_dtype st = pairs[pi][0], dt = pairs[pi][1];
        size_t p4[4] = { 2, 3, 5, 8 }, p3[3] = { 5, 3, 9 }, sl[2] = { 4, 24 }, rv[3] = { 2, 5, 7 };
        size_t s6[6] = { 2, 2, 3, 2, 2, 4 }, l1[1] = { 20011 }, one[1] = { 1 };
        int64_t p4s[4] = { 120, 8, 24, 1 }, p4d[4] = { 120, 40, 8, 1 };   /* [2][5][3][8] read as [2][3][5][8] */
        int64_t p3s[3] = { 1, 5, 15 }, p3d[3] = { 27, 9, 1 };
        int64_t sls[2] = { 32, 1 }, sld[2] = { 48, 1 };
        int64_t rvs[3] = { 0, -7, -1 }, rvd[3] = { 35, 7, 1 };
        int64_t s6s[6] = { 96, 48, 16, 8, 4, 1 }, s6d[6] = { 1, 2, 4, 12, 24, 48 }, u1[1] = { 1 };
        gl_copy(st, dt, 4, p4, p4s, 0, 240, p4d, 0, 240, "permute 0213");
        gl_copy(st, dt, 4, p4, p4s, 1, 241, p4d, 3, 243, "permute 0213 odd");
        gl_copy(st, dt, 3, p3, p3s, 0, 135, p3d, 0, 135, "permute 210");
        gl_copy(st, dt, 2, sl, sls, 36, 160, sld, 24, 200, "slice / concat");
        gl_copy(st, dt, 3, rv, rvs, 34, 35, rvd, 0, 70, "reverse + broadcast");
        gl_copy(st, dt, 6, s6, s6s, 0, 192, s6d, 0, 192, "6-d");
        gl_copy(st, dt, 1, l1, u1, 0, 20011, u1, 0, 20011, "1-d long (chunked)");
        gl_copy(st, dt, 1, l1, u1, 1, 20012, u1, 0, 20011, "1-d long misaligned");
        gl_copy(st, dt, 1, one, u1, 0, 1, u1, 0, 1, "one element");
    }
}

/* the harness itself: shared memory across a barrier, a wave shuffle, and a barrier in divergent code reported
 * (the program ends with status 3, here in a child process) rather than run past or hung */
namespace selftest {
static void exchange(int* out) {
    __shared__ int s[256];
    const int t = (int)threadIdx.x;
    s[t] = t * 3 + (int)blockIdx.x;
    __syncthreads();
    out[blockIdx.x * 256 + t] = s[255 - t] + 1000 * __shfl_xor(t, 1, AK_WAVE);
}
static void divergent(int* out) {
    if (threadIdx.x < (unsigned)AK_WAVE) __syncthreads();
    out[threadIdx.x] = 1;
}
}
static void emu_harness_self(void) {
    std::vector<int> out(512, -1);
    int bad = 0, st = 0;
    akemu_run(selftest::exchange, akemu_dim3{ 2, 1, 1 }, 256, out.data());
    for (int b = 0; b < 2; b++)
        for (int t = 0; t < 256; t++) bad += out[b * 256 + t] != (255 - t) * 3 + b + 1000 * (t ^ 1);
    AKT_CHECKF(bad == 0, "%d of 512 lanes read the wrong shared / shuffled value", bad);
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(1);
        akemu_run(selftest::divergent, akemu_dim3{ 1, 1, 1 }, 2 * AK_WAVE, out.data());
        _exit(0);
    }
    AKT_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    AKT_CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 3, "a barrier in divergent code was not reported (status %#x)", st);
}

int main(void) {
    akemu_begin("emu_llm", "");
    gl_gpu = akemu_context();   /* gl_setup keeps it and adds the reference context */
    gl_rng = akemu_seed ^ 0x5EED11ull;
    if (!gl_gpu || !gl_setup()) { printf("0 passed, 1 failed\n"); return 1; }
    AKT_RUN(emu_harness_self);
    AKT_RUN(emu_add_norm);
    AKT_RUN(emu_rope);
    AKT_RUN(emu_embedding);
    AKT_RUN(emu_copy);
    AKT_RUN(test_gpu_llm_cleanup);
    printf("%ld emulated launches\n%d passed, %d failed\n", akemu_launches, akemu_passed, akemu_failed);
    return akemu_failed != 0;
}
