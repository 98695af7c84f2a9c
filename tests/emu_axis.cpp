/* emu_axis - ak_reduce_axes over a middle axis (kernels/axis.hip's
 * ak_axred_<op>_<dt>, reduce.hip's ak_reduce2_<op> for the split chunks)
 * executed on the CPU in the host SIMT emulation of tests/emu_harness.h,
 * compared with the cpu backend's reference by tests/t_gpu_axis.c's case
 * function; ak_binary_broadcast's kernel (ak_bcast_<dt>) through the suite's
 * own broadcast test.
 *
 *   make build/emu_axis_w64 build/emu_axis_w32 && ./build/emu_axis_w64 && ./build/emu_axis_w32
 *
 * Why: the column kernel's blocks are columns x interleaved pieces of R
 * (2-D blocks, pieces merged through shared memory between barriers, argmax /
 * argmin by the lowest row of equal extremes and the lowest NaN, a
 * grid-stride walk over column tiles), short-R argmax / argmin run a thread
 * per column (ak_axcol), and R goes in chunks to a second pass (the first
 * extreme, the first NaN across chunks); their index math is checked on every
 * `make test`, for wave 64 (wave 32 in the full tier), without a GPU. Not a
 * GPU test: gpu_axis (--gpu) runs the cases on a device. The ops' real
 * planning (block shape, pieces, splits) drives the launches; the column
 * kernels run at most 3 blocks along x, so their grid-stride loops take
 * several turns. */
#define AKEMU_NAME "emu_axis"
#include "emu_harness.h"

namespace emu {
#include "../kernels/prelude.hip"
#include "../kernels/reduce.hip"
#include "../kernels/axis.hip"
}

#include "t_gpu_axis.c"

/* ---- the emulated kernels ---------------------------------------------------------- */
static void akemu_register(void) {
#define EMU_AX3(op) AKEMU_K(ak_axred_##op##_f32) AKEMU_K(ak_axred_##op##_f16) AKEMU_K(ak_axred_##op##_bf16)
    EMU_AX3(sum) EMU_AX3(max) EMU_AX3(min) AKEMU_K(ak_axred_argmax_f32) AKEMU_K(ak_axred_argmin_f32)
#undef EMU_AX3
    AKEMU_K(ak_axcol_argmax_f32) AKEMU_K(ak_axcol_argmax_f16) AKEMU_K(ak_axcol_argmax_bf16)
    AKEMU_K(ak_axcol_argmin_f32) AKEMU_K(ak_axcol_argmin_f16) AKEMU_K(ak_axcol_argmin_bf16)
    AKEMU_K(ak_reduce2_sum) AKEMU_K(ak_reduce2_max) AKEMU_K(ak_reduce2_min) AKEMU_K(ak_reduce2_argmax)
    AKEMU_K(ak_reduce2_argmin)
    AKEMU_K(ak_bcast_f32) AKEMU_K(ak_bcast_f16) AKEMU_K(ak_bcast_bf16)
#define EMU_RR3(op) AKEMU_K(ak_reduce_##op##_f32) AKEMU_K(ak_reduce_##op##_f16) AKEMU_K(ak_reduce_##op##_bf16)
    EMU_RR3(sum) EMU_RR3(max) EMU_RR3(min) EMU_RR3(argmax) EMU_RR3(argmin)
#undef EMU_RR3
}
/* the column and broadcast kernels are grid-stride: at most 3 blocks along x (several turns each); the combine maps
 * rows to blocks */
static akemu_dim3 akemu_grid_policy(const char* kernel, akemu_dim3 g) {
    if (g.x > 3 && (!strncmp(kernel, "ak_axred", 8) || !strncmp(kernel, "ak_axcol", 8) || !strncmp(kernel, "ak_bcast", 8))) g.x = 3;
    return g;
}

/* ---- the cases: every op and dtype; shapes that take 1, 2, 4 and 16 pieces, with and without chunks ---- */
static void emu_reduce_cols(void) {
    static const size_t shapes[][3] = {
        { 7, 33, 5 },      /* 32 columns x 4 pieces of 8-9 rows */
        { 3, 500, 7 },     /* 16 pieces, split */
        { 4, 257, 129 },   /* 256 columns x 2 pieces, split, a partial tile */
        { 5, 2000, 33 },   /* 1024-thread blocks: 64 columns x 16 pieces, split */
        { 9, 300, 70 },    /* 2 pieces, split */
        { 2, 1500, 300 },  /* 256 columns x 4 pieces, split, two tiles */
        { 3, 45, 2 },      /* tiny: 32 columns x 4 pieces */
        { 2, 1100, 20 },   /* 64 columns: pieces of R >= 1024 */
        { 6, 5, 3 },       /* R < 16: one piece */
        { 2, 64, 300 },    /* 2 pieces of 32 rows, no split (short R) */
    };
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (size_t ti = 0; ti < 3; ti++)
            for (int op = 0; op < (int)AK_REDUCE_OP_COUNT; op++) {
                gx_reduce_case_x((ak_reduce_op)op, gx_types[ti], 3, shapes[si], 2, si % 2, 0);
                if (op >= (int)AK_REDUCE_MAX) gx_reduce_case_x((ak_reduce_op)op, gx_types[ti], 3, shapes[si], 2, si % 2, 1);
            }
}

/* ---- last-axis reductions (ak_reduce's row kernels, reduce.hip) on a device of 4 compute units, so that rows
 * keep groups of 64-128 threads and run the 4-vector loop one to four turns (132 would widen the groups of so
 * few rows past it): single vectors after it, unaligned rows (scalar heads and tails), rows split into segments
 * for the second pass; random values, values with ties and NaNs, and ties with -0, rare NaNs and both
 * infinities (the arg ops' late index and their exact scan) */
static void emu_reduce_rows(void) {
    static const size_t shapes[][2] = {
        { 20, 5000 },    /* 128 threads (f32) / 64 (16-bit) a row: one / two turns, then single vectors */
        { 24, 777 },     /* odd rows: heads and tails */
        { 2, 40000 },    /* segments of 4096 (10 a row), the second pass */
        { 40, 129 },     /* short rows: no 4-vector turn */
        { 1, 100003 },   /* one long row, split, an odd tail */
        { 20, 30000 },   /* 256 threads a row: several turns */
    };
    ak_context* dev = g_gpu;
    g_gpu = akemu_context_for(NULL, NULL, 4);
    if (!g_gpu) { akt_fail(__FILE__, __LINE__, "emulated context"); g_gpu = dev; return; }
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (size_t ti = 0; ti < 3; ti++)
            for (int op = 0; op < (int)AK_REDUCE_OP_COUNT; op++)
                for (int ties = 0; ties < 3; ties++) {
                    if (op < (int)AK_REDUCE_MAX && ties) continue;
                    gx_reduce_case_x((ak_reduce_op)op, gx_types[ti], 2, shapes[si], 2, (si + (size_t)ties) % 3, ties);
                }
    ak_context_destroy(g_gpu);
    g_gpu = dev;
}

int main(void) {
    akemu_begin("emu_axis", "");
    g_gpu = akemu_context();   /* gx_setup keeps it and adds the reference context */
    g_rng = akemu_seed ^ 0xA715ull;
    if (!g_gpu || !gx_setup()) { printf("0 passed, 1 failed\n"); return 1; }
    AKT_RUN(emu_reduce_cols);
    AKT_RUN(emu_reduce_rows);
    AKT_RUN(test_gpu_broadcast);   /* the suite's cases: two units a thread, tails, unaligned, several launches */
    printf("%ld emulated launches\n%d passed, %d failed\n", akemu_launches, akemu_passed, akemu_failed);
    return akemu_failed != 0;
}
