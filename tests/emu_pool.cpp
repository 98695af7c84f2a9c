/* emu_pool - ak_pool's kernels (kernels/pool.hip: the tiles of max without
 * indices and of average, the one-thread-an-output kernel where a tile's
 * window does not fit or indices are asked for) executed on the CPU in the
 * host SIMT emulation of tests/emu_harness.h, compared with the cpu
 * backend's reference by tests/t_gpu_pool.c's case function.
 *
 *   make build/emu_pool_w64 && ./build/emu_pool_w64
 *
 * Why: a tile stages its input window in shared memory with a position that
 * steps without a division, eight loads at a time, and maps threads to rows
 * (tall tiles) or to columns at a stride (wide, 1-D); the planning picks the
 * rows a thread from the window's size. The index math is checked here on
 * every `make test` without a GPU (the shared buffer starts as garbage, so a
 * tap read before it is staged fails). Not a GPU test: gpu_pool (--gpu) runs
 * the cases on a device. The tile kernels run at most 3 blocks along y, so
 * their (plane, depth) loop takes several turns. */
#define AKEMU_NAME "emu_pool"
#include "emu_harness.h"

namespace emu {
#include "../kernels/prelude.hip"
#include "../kernels/pool.hip"
}

#include "t_gpu_pool.c"

extern "C" ak_context* akt_gpu_context_ex(const ak_config* cfg, int allow_cpu) {
    (void)cfg;
    (void)allow_cpu;
    return akemu_context();
}

static void akemu_register(void) {
#define EMU_P3(k) AKEMU_K(k##_f32) AKEMU_K(k##_f16) AKEMU_K(k##_bf16)
    EMU_P3(ak_pool_max) EMU_P3(ak_pool_avg) EMU_P3(ak_pool_tmax) EMU_P3(ak_pool_tavg)
#undef EMU_P3
}
static akemu_dim3 akemu_grid_policy(const char* kernel, akemu_dim3 g) {
    if (g.y > 3 && !strncmp(kernel, "ak_pool_t", 9)) g.y = 3;
    return g;
}

/* tiles of every shape class: wide (1-D) with 8, 4 or fewer columns a thread, tall with 64 / 32 columns and 8 .. 1 rows
 * a thread (a window that only fits with fewer rows), 3-D with strides and dilation, partial tiles, padding,
 * ceil_mode, count_include_pad on and off, divisor_override; indices and a window too large for a tile take the
 * one-thread-an-output kernel */
static void emu_pool_cases(void) {
    static const gp_case cases[] = {
        /* kind ndim b c  in           k          s          p          d        ceil cip divo idx */
        { AK_POOL_MAX, 1, 2, 3, { 3000 }, { 8 }, { 1 }, { 4 }, { 3 }, 0, 0, 0, 0 },          /* wide, 8 a thread, 2 tiles */
        { AK_POOL_MAX, 1, 1, 2, { 5000 }, { 7 }, { 5 }, { 3 }, { 2 }, 1, 0, 0, 0 },          /* wide, stride 5: 4 a thread */
        { AK_POOL_AVG, 1, 2, 2, { 999 }, { 8 }, { 1 }, { 4 }, { 0 }, 0, 1, 0, 0 },          /* 44-like */
        { AK_POOL_AVG, 1, 1, 3, { 700 }, { 5 }, { 3 }, { 2 }, { 0 }, 1, 0, 0, 0 },          /* ceil, no cip */
        { AK_POOL_MAX, 2, 2, 3, { 67, 61 }, { 4, 4 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0, 0, 0 },   /* tall 64 wide, 42-like */
        { AK_POOL_MAX, 2, 1, 2, { 90, 150 }, { 3, 5 }, { 2, 1 }, { 1, 2 }, { 2, 1 }, 0, 0, 0, 0 },  /* tall, strides */
        { AK_POOL_MAX, 2, 1, 2, { 50, 20 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1, 0, 0, 0 },   /* tall 32 wide */
        { AK_POOL_AVG, 2, 1, 3, { 45, 77 }, { 3, 4 }, { 2, 3 }, { 1, 2 }, { 0, 0 }, 1, 0, 0, 0 },
        { AK_POOL_AVG, 2, 2, 2, { 70, 66 }, { 5, 5 }, { 1, 1 }, { 2, 2 }, { 0, 0 }, 0, 1, 7, 0 },   /* divisor_override */
        { AK_POOL_MAX, 3, 1, 3, { 19, 37, 41 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 3, 3, 3 }, 0, 0, 0, 0 },  /* 43-like */
        { AK_POOL_AVG, 3, 2, 2, { 9, 33, 70 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 0, 0, 0 }, 0, 1, 0, 0 },   /* 46-like */
        { AK_POOL_MAX, 2, 1, 2, { 300, 300 }, { 3, 40 }, { 1, 20 }, { 1, 0 }, { 1, 1 }, 0, 0, 0, 0 },  /* fewer rows a thread */
        { AK_POOL_AVG, 2, 1, 2, { 400, 400 }, { 11, 11 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 0, 1, 0, 0 },  /* 45-like: no tile */
        { AK_POOL_MAX, 2, 1, 2, { 67, 61 }, { 4, 4 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0, 0, 1 },   /* indices: no tile */
    };
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (size_t ti = 0; ti < 3; ti++) gp_run(&cases[ci], types[ti], (ci + ti) % 2);
}

int main(void) {
    akemu_begin("emu_pool", "");
    g_gpu = akemu_context();
    g_rng = akemu_seed ^ 0x7001ull;
    if (!g_gpu || !gp_setup()) { printf("0 passed, 1 failed\n"); return 1; }
    AKT_RUN(emu_pool_cases);
    printf("%ld emulated launches (tile kernels: %ld)\n%d passed, %d failed\n", akemu_launches,
           akemu_ran["ak_pool_tmax_f32"] + akemu_ran["ak_pool_tmax_f16"] + akemu_ran["ak_pool_tmax_bf16"] + akemu_ran["ak_pool_tavg_f32"] +
               akemu_ran["ak_pool_tavg_f16"] + akemu_ran["ak_pool_tavg_bf16"], akemu_passed, akemu_failed);
    return akemu_failed != 0;
}
