/* emu_pool - ak_pool's kernels (kernels/pool.hip: max without indices with
 * four outputs a thread, max with indices and average with one) executed on
 * the CPU in the host SIMT emulation of tests/emu_harness.h, compared with the
 * cpu backend's reference by tests/t_gpu_pool.c's case function.
 *
 *   make build/emu_pool_w64 && ./build/emu_pool_w64
 *
 * Why: a thread of the max kernel holds four outputs a block apart (they may
 * sit in different rows or depths of the plane, some past its end) and loads
 * a window row for all of them before comparing; that index math is checked
 * here on every `make test` without a GPU. Not a GPU test: gpu_pool (--gpu)
 * runs the cases on a device. The kernels run at most 3 blocks along x and
 * along y, so their grid-stride loops over outputs and planes take several
 * turns. */
#define AKEMU_NAME "emu_pool"
#include "emu_harness.h"

namespace emu {
#include "../kernels/prelude.hip"
#include "../kernels/pool.hip"
}

#include "t_gpu_pool.c"

static void akemu_register(void) {
#define EMU_P3(k) AKEMU_K(k##_f32) AKEMU_K(k##_f16) AKEMU_K(k##_bf16)
    EMU_P3(ak_pool_max) EMU_P3(ak_pool_avg)
#undef EMU_P3
}
static akemu_dim3 akemu_grid_policy(const char* kernel, akemu_dim3 g) {
    (void)kernel;
    if (g.x > 3) g.x = 3;
    if (g.y > 3) g.y = 3;
    return g;
}

/* every shape class: 1-D with groups of 8 (a window past 4 columns) and 4, 2-D and 3-D where a thread's outputs span
 * rows and depths, strides, dilation, padding, ceil_mode, partial blocks; average with count_include_pad on and off
 * and divisor_override; max with indices */
static void emu_pool_cases(void) {
    static const gp_case cases[] = {
        /* kind ndim b c  in           k          s          p          d        ceil cip divo idx */
        { AK_POOL_MAX, 1, 2, 3, { 3000 }, { 8 }, { 1 }, { 4 }, { 3 }, 0, 0, 0, 0 },          /* 41-like */
        { AK_POOL_MAX, 1, 1, 2, { 5000 }, { 7 }, { 5 }, { 3 }, { 2 }, 1, 0, 0, 0 },          /* stride 5, ceil */
        { AK_POOL_AVG, 1, 2, 2, { 999 }, { 8 }, { 1 }, { 4 }, { 0 }, 0, 1, 0, 0 },          /* 44-like */
        { AK_POOL_AVG, 1, 1, 3, { 700 }, { 5 }, { 3 }, { 2 }, { 0 }, 1, 0, 0, 0 },          /* ceil, no cip */
        { AK_POOL_MAX, 2, 2, 3, { 67, 61 }, { 4, 4 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0, 0, 0 },   /* 42-like */
        { AK_POOL_MAX, 2, 1, 2, { 90, 150 }, { 3, 5 }, { 2, 1 }, { 1, 2 }, { 2, 1 }, 0, 0, 0, 0 },  /* strides, dilation */
        { AK_POOL_MAX, 2, 1, 2, { 50, 20 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1, 0, 0, 0 },   /* narrow rows */
        { AK_POOL_AVG, 2, 1, 3, { 45, 77 }, { 3, 4 }, { 2, 3 }, { 1, 2 }, { 0, 0 }, 1, 0, 0, 0 },
        { AK_POOL_AVG, 2, 2, 2, { 70, 66 }, { 5, 5 }, { 1, 1 }, { 2, 2 }, { 0, 0 }, 0, 1, 7, 0 },   /* divisor_override */
        { AK_POOL_MAX, 3, 1, 3, { 19, 37, 41 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 3, 3, 3 }, 0, 0, 0, 0 },  /* 43-like */
        { AK_POOL_AVG, 3, 2, 2, { 9, 33, 70 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 0, 0, 0 }, 0, 1, 0, 0 },   /* 46-like */
        { AK_POOL_MAX, 2, 1, 2, { 300, 300 }, { 3, 40 }, { 1, 20 }, { 1, 0 }, { 1, 1 }, 0, 0, 0, 0 },  /* a row of 40: groups of 8 */
        { AK_POOL_AVG, 2, 1, 2, { 400, 400 }, { 11, 11 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 0, 1, 0, 0 },  /* 45-like */
        { AK_POOL_MAX, 2, 1, 2, { 67, 61 }, { 4, 4 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0, 0, 1 },   /* indices */
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
    printf("%ld emulated launches\n%d passed, %d failed\n", akemu_launches, akemu_passed, akemu_failed);
    return akemu_failed != 0;
}
