/* Suite gpu_axis (runs with --gpu, needs a GPU): ak_reduce_axes,
 * ak_normalize, ak_binary_broadcast and ak_triangular on the device against
 * their CPU references (the same call on a cpu context) on fresh random
 * inputs (never zeros), outputs poisoned with 0xFF bytes (NaN / -1) and a
 * guard after them, odd shapes that take every path (row reductions, column
 * reductions with and without R split into chunks, several runs of reduced
 * axes; column / row / segmented norms; broadcasts of rows, columns,
 * scalars, channels and more than three alternating runs), 16-byte-aligned
 * and 1-element-offset pointers, every dtype. Tolerances: the KernelBench
 * ones (1e-4 for f32 outputs, 1e-2 for f16 / bf16 storage), sums relative to
 * the sum of |x|; max / min / argmax / argmin exact. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* g_gpu;
static ak_context* g_cpu;
static unsigned long long g_rng;
static const ak_dtype gx_types[3] = { AK_F32, AK_F16, AK_BF16 };
#define GX_PAD 256 /* guard bytes after each output */

static int gx_setup(void) {
    if (!g_gpu) {
        if (!(g_gpu = akt_gpu_context(NULL))) return 0;
        g_rng = akt_seed() ^ 0xA715ull;
    }
    if (!g_cpu) g_cpu = akt_cpu_context("gpu_axis_ref");
    return g_cpu != NULL;
}

static void gx_random(void* p, ak_dtype t, size_t n, double lo, double hi) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(&g_rng, lo, hi);
        if (fabs(v) < 0.01) v = 0.5;
        ak_elem_set(p, t, i, v);
    }
}

/* Device copy of host bytes at an element offset (off elements of es bytes before the data). */
static void* gx_upload(const void* h, size_t bytes, size_t off_bytes, void** base) {
    void* d = NULL;
    *base = NULL;
    if (ak_malloc(g_gpu, bytes + off_bytes + GX_PAD, NULL, &d) != AK_OK) return NULL;
    *base = d;
    if (ak_memcpy(g_gpu, (char*)d + off_bytes, h, bytes, AK_H2D) != AK_OK) return NULL;
    return (char*)d + off_bytes;
}
static void* gx_out(size_t bytes, size_t off_bytes, void** base) {
    void* d = NULL;
    *base = NULL;
    if (ak_malloc(g_gpu, bytes + off_bytes + GX_PAD, NULL, &d) != AK_OK) return NULL;
    *base = d;
    if (ak_memset(g_gpu, d, 0xFF, bytes + off_bytes + GX_PAD, NULL) != AK_OK) return NULL;
    return (char*)d + off_bytes;
}
/* Download out (bytes) and its guard; 0 if the guard was written. */
static int gx_download(void* h, const void* d, size_t bytes) {
    unsigned char g[GX_PAD];
    size_t i;
    if (ak_device_synchronize(g_gpu) != AK_OK) return 0;
    if (ak_memcpy(g_gpu, h, d, bytes, AK_D2H) != AK_OK) return 0;
    if (ak_memcpy(g_gpu, g, (const char*)d + bytes, GX_PAD, AK_D2H) != AK_OK) return 0;
    for (i = 0; i < GX_PAD; i++) if (g[i] != 0xFF) return 0;
    return 1;
}

/* Download without a guard check (an input buffer written in place). */
static int gx_fetch(void* h, const void* d, size_t bytes) {
    return ak_device_synchronize(g_gpu) == AK_OK && ak_memcpy(g_gpu, h, d, bytes, AK_D2H) == AK_OK;
}

/* ---- reductions over axes ------------------------------------------------------ */
/* ties: x from {-2, -1, 0, 1, 2} (every extreme repeats along R) with NaN at about one element in 40, so that
 * columns hold NaNs in several rows: the arg ops must return the first extreme / the first NaN, max / min NaN. */
static void gx_reduce_case_x(ak_reduce_op op, ak_dtype t, size_t nd, const size_t* shape, uint32_t axes, size_t off,
                             int ties) {
    size_t n = 1, nout = 1, k, i, bad = 0, es = ak_dtype_size(t);
    int arg = op == AK_REDUCE_ARGMAX || op == AK_REDUCE_ARGMIN;
    size_t ob, rlen = 1;
    void *hx, *go, *co, *bx = NULL, *bo = NULL, *dx, *dout;
    double* absum;
    for (k = 0; k < nd; k++) { n *= shape[k]; if (!(axes >> k & 1u)) nout *= shape[k]; else rlen *= shape[k]; }
    ob = nout * (arg ? 8u : 4u);
    hx = malloc(n * es); go = malloc(ob); co = malloc(ob); absum = (double*)calloc(nout, sizeof(double));
    if (!hx || !go || !co || !absum) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    gx_random(hx, t, n, -3, 3);
    if (ties == 1)
        for (k = 0; k < n; k++) {
            const double u = akt_uniform(&g_rng, 0.0, 200.0);
            ak_elem_set(hx, t, k, u < 5.0 ? NAN : (double)((int)u % 5 - 2));
        }
    /* ties == 2: the same values with -0 beside +0, a NaN at about one element in 4000 and each infinity at one in
     * 2000 (most runs of 32 hold neither, some hold both infinities) */
    if (ties == 2)
        for (k = 0; k < n; k++) {
            const double u = akt_uniform(&g_rng, 0.0, 4000.0);
            const int v = (int)u % 5 - 2;
            ak_elem_set(hx, t, k, u < 1.0 ? NAN : u < 3.0 ? INFINITY : u < 5.0 ? -INFINITY : v == 0 && ((int)u & 8) ? -0.0 : (double)v);
        }
    /* the sum of |x| per output, for the tolerance of the sums */
    if (!arg && (op == AK_REDUCE_SUM || op == AK_REDUCE_MEAN)) {
        void* ax = malloc(n * 4);
        size_t j;
        if (ax) {
            for (j = 0; j < n; j++) ((float*)ax)[j] = (float)fabs(ak_elem_get(hx, t, j));
            if (ak_reduce_axes(g_cpu, op, AK_F32, ax, co, nd, shape, axes, NULL) == AK_OK)
                for (j = 0; j < nout; j++) absum[j] = ((float*)co)[j];
            free(ax);
        }
    }
    dx = gx_upload(hx, n * es, off * es, &bx);
    dout = gx_out(ob, off * (arg ? 8u : 4u), &bo);
    if (!dx || !dout) { akt_fail(__FILE__, __LINE__, "device buffers: %s", ak_last_error()); goto done; }
    AKT_OK(ak_reduce_axes(g_gpu, op, t, dx, dout, nd, shape, axes, NULL));
    AKT_CHECKF(gx_download(go, dout, ob), "reduce_axes %s %s: download failed or wrote past the end", ak_reduce_op_name(op), ak_dtype_name(t));
    AKT_OK(ak_reduce_axes(g_cpu, op, t, hx, co, nd, shape, axes, NULL));
    for (i = 0; i < nout; i++) {
        int ok;
        if (arg) ok = ((int64_t*)go)[i] == ((int64_t*)co)[i];
        else {
            double g = ((float*)go)[i], c = ((float*)co)[i];
            double tol = (op == AK_REDUCE_SUM || op == AK_REDUCE_MEAN) ? 1e-5 * absum[i] + 1e-6 : 0.0;
            ok = c != c ? g != g : g == c || (g == g && fabs(g - c) <= tol);
        }
        if (!ok && !bad++)
            akt_fail(__FILE__, __LINE__, "reduce_axes %s %s shape [%zu %zu %zu %zu] axes 0x%x (reduced %zu) off %zu: output %zu: %.9g vs %.9g",
                     ak_reduce_op_name(op), ak_dtype_name(t), shape[0], nd > 1 ? shape[1] : 1, nd > 2 ? shape[2] : 1,
                     nd > 3 ? shape[3] : 1, (unsigned)axes, rlen, off, i,
                     arg ? (double)((int64_t*)go)[i] : ((float*)go)[i], arg ? (double)((int64_t*)co)[i] : ((float*)co)[i]);
    }
done:
    ak_free(g_gpu, bx); ak_free(g_gpu, bo);
    free(hx); free(go); free(co); free(absum);
}

static void gx_reduce_case(ak_reduce_op op, ak_dtype t, size_t nd, const size_t* shape, uint32_t axes, size_t off) {
    gx_reduce_case_x(op, t, nd, shape, axes, off, 0);
}

static void test_gpu_reduce_axes(void) {
    static const struct { size_t nd, s[4]; uint32_t axes; } cases[] = {
        { 3, { 7, 33, 5, 1 }, 2 },          /* middle axis, few outputs: R not split (R < 256) */
        { 3, { 3, 5000, 7, 1 }, 2 },        /* few outputs, long R: split into chunks + combine */
        { 3, { 128, 257, 129, 1 }, 2 },     /* KernelBench-like, odd */
        { 3, { 5, 9, 1000, 1 }, 1 },        /* leading axis */
        { 3, { 17, 31, 3, 1 }, 4 },         /* last axis: ak_reduce's rows */
        { 4, { 6, 7, 8, 9 }, 5 },           /* two runs: axes 0 and 2 */
        { 4, { 6, 7, 8, 9 }, 15 },          /* everything */
        { 4, { 4, 1, 300, 5 }, 6 },         /* an extent-1 axis inside the run */
        { 2, { 1, 100003, 1, 1 }, 1 },      /* a vector */
        { 3, { 2, 70000, 3, 1 }, 3 },       /* a leading run of two, inner 3, split */
    };
    size_t ci, ti;
    int op;
    if (!gx_setup()) return;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (ti = 0; ti < 3; ti++)
            for (op = 0; op < (int)AK_REDUCE_OP_COUNT; op++) {
                int arg = op == AK_REDUCE_ARGMAX || op == AK_REDUCE_ARGMIN;
                if (arg && cases[ci].axes == 5) continue;   /* not adjacent: refused (ops_axis) */
                gx_reduce_case((ak_reduce_op)op, gx_types[ti], cases[ci].nd, cases[ci].s, cases[ci].axes, ci % 2);
            }
}

/* Middle-axis reductions on values with ties and NaNs, R in interleaved pieces (max / min: a block reads rows k,
 * k + P, ...) and in chunks for a second pass: max / min NaN wherever a column holds one, argmax / argmin the
 * first extreme or the first NaN across the chunks. */
static void test_gpu_reduce_axes_ties(void) {
    static const struct { size_t s[3]; } cases[] = {
        { { 5, 2000, 33 } },     /* long R: 1024-thread blocks of 64 columns x 16 pieces, split */
        { { 9, 300, 70 } },      /* short R: 2 pieces, split */
        { { 40, 1500, 300 } },   /* 256 columns x 4 pieces, more columns than one block, R not a multiple of 32 */
        { { 3, 45, 2 } },        /* tiny: 32 columns x 4 pieces of 11-12 rows */
    };
    size_t ci, ti;
    int op;
    if (!gx_setup()) return;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (ti = 0; ti < 3; ti++)
            for (op = (int)AK_REDUCE_MAX; op < (int)AK_REDUCE_OP_COUNT; op++)
                gx_reduce_case_x((ak_reduce_op)op, gx_types[ti], 3, cases[ci].s, 2, ci % 2, 1);
}

/* Last-axis argmax / argmin (ak_reduce's row kernels) on rows enough that the groups stay at 64-128 threads and
 * the 4-vector loop runs (1500 x 5000: one or two turns, then single vectors) or at 256 threads (600 x 30000: several
 * turns): random values (the trees alone), ties with NaNs (the exact scan), and ties with -0, rare NaNs and both
 * infinities (both, in one row). */
static void test_gpu_reduce_rows_ties(void) {
    static const size_t shapes[][2] = { { 1500, 5000 }, { 600, 30000 } };
    size_t si, ti;
    int op, ties;
    if (!gx_setup()) return;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (ti = 0; ti < 3; ti++)
            for (op = (int)AK_REDUCE_ARGMAX; op <= (int)AK_REDUCE_ARGMIN; op++)
                for (ties = 0; ties < 3; ties++)
                    gx_reduce_case_x((ak_reduce_op)op, gx_types[ti], 2, shapes[si], 2, (si + (size_t)ties) % 3, ties);
}

/* ---- normalize ------------------------------------------------------------------------ */
static void gx_norm_case(ak_norm_kind kind, ak_dtype t, size_t outer, size_t len, size_t inner, size_t off, float eps) {
    size_t n = outer * len * inner, es = ak_dtype_size(t), i, bad = 0;
    void *hx = malloc(n * es), *gy = malloc(n * es), *cy = malloc(n * es), *bx = NULL, *by = NULL, *dx, *dy;
    double tol = t == AK_F32 ? 1e-4 : 1e-2;
    if (!hx || !gy || !cy) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    gx_random(hx, t, n, -2, 2);
    dx = gx_upload(hx, n * es, off * es, &bx);
    dy = gx_out(n * es, off * es, &by);
    if (!dx || !dy) { akt_fail(__FILE__, __LINE__, "device buffers: %s", ak_last_error()); goto done; }
    AKT_OK(ak_normalize(g_gpu, kind, t, dx, dy, outer, len, inner, eps, NULL));
    AKT_CHECKF(gx_download(gy, dy, n * es), "normalize: download failed or wrote past the end");
    AKT_OK(ak_normalize(g_cpu, kind, t, hx, cy, outer, len, inner, eps, NULL));
    for (i = 0; i < n; i++) {
        double g = ak_elem_get(gy, t, i), c = ak_elem_get(cy, t, i);
        if (!(fabs(g - c) <= tol + tol * fabs(c)) && !bad++)
            akt_fail(__FILE__, __LINE__, "normalize %s %s %zux%zux%zu off %zu: element %zu %.9g vs %.9g", ak_norm_kind_name(kind),
                     ak_dtype_name(t), outer, len, inner, off, i, g, c);
    }
    /* in place on the device */
    AKT_OK(ak_normalize(g_gpu, kind, t, dx, dx, outer, len, inner, eps, NULL));
    if (gx_fetch(gy, dx, n * es)) {
        size_t b2 = 0;
        for (i = 0; i < n; i++) {
            double g = ak_elem_get(gy, t, i), c = ak_elem_get(cy, t, i);
            if (!(fabs(g - c) <= tol + tol * fabs(c)) && !b2++)
                akt_fail(__FILE__, __LINE__, "normalize in place %s %s: element %zu %.9g vs %.9g", ak_norm_kind_name(kind),
                         ak_dtype_name(t), i, g, c);
        }
    }
done:
    ak_free(g_gpu, bx); ak_free(g_gpu, by);
    free(hx); free(gy); free(cy);
}

static void test_gpu_normalize(void) {
    static const size_t shapes[][3] = {
        { 5, 64, 1031 },     /* columns in registers (RMSNorm over channels) */
        { 3, 1, 7 },         /* len 1 */
        { 7, 13, 300 },      /* columns in registers, 16 */
        { 3, 100, 37 },      /* columns read twice */
        { 300, 4097, 1 },    /* rows, block per row */
        { 7, 33, 1 },        /* short rows */
        { 1, 300007, 1 },    /* one long row: segments */
        { 2, 1000003, 1 },   /* two long rows: segments */
        { 1, 1, 1 },
    };
    size_t si, ti;
    int kind;
    if (!gx_setup()) return;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (ti = 0; ti < 3; ti++)
            for (kind = 0; kind < (int)AK_NORM_KIND_COUNT; kind++)
                gx_norm_case((ak_norm_kind)kind, gx_types[ti], shapes[si][0], shapes[si][1], shapes[si][2], (si + ti) % 2,
                             kind == AK_NORM_RMS ? 1e-5f : 1e-12f);
}

/* ---- broadcast ------------------------------------------------------------------------ */
static void gx_bcast_case(ak_binary_op op, ak_dtype t, size_t nd, const size_t* shape, const size_t* ysh, size_t off) {
    size_t n = 1, ny = 1, k, i, bad = 0, es = ak_dtype_size(t);
    void *hx, *hy, *gz, *cz, *bx = NULL, *by = NULL, *bz = NULL, *dx, *dy, *dz;
    double tol = t == AK_F32 ? 1e-4 : 1e-2;
    for (k = 0; k < nd; k++) { n *= shape[k]; ny *= ysh[k]; }
    hx = malloc(n * es); hy = malloc(ny * es); gz = malloc(n * es); cz = malloc(n * es);
    if (!hx || !hy || !gz || !cz) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    gx_random(hx, t, n, -3, 3);
    gx_random(hy, t, ny, 0.5, 3);
    dx = gx_upload(hx, n * es, off * es, &bx);
    dy = gx_upload(hy, ny * es, 0, &by);
    dz = gx_out(n * es, off * es, &bz);
    if (!dx || !dy || !dz) { akt_fail(__FILE__, __LINE__, "device buffers: %s", ak_last_error()); goto done; }
    AKT_OK(ak_binary_broadcast(g_gpu, op, t, dx, dy, dz, nd, shape, ysh, NULL));
    AKT_CHECKF(gx_download(gz, dz, n * es), "broadcast: download failed or wrote past the end");
    AKT_OK(ak_binary_broadcast(g_cpu, op, t, hx, hy, cz, nd, shape, ysh, NULL));
    for (i = 0; i < n; i++) {
        double g = ak_elem_get(gz, t, i), c = ak_elem_get(cz, t, i);
        if (!(fabs(g - c) <= tol + tol * fabs(c)) && !bad++)
            akt_fail(__FILE__, __LINE__, "broadcast %s %s nd %zu off %zu: element %zu %.9g vs %.9g", ak_binary_op_name(op),
                     ak_dtype_name(t), nd, off, i, g, c);
    }
done:
    ak_free(g_gpu, bx); ak_free(g_gpu, by); ak_free(g_gpu, bz);
    free(hx); free(hy); free(gz); free(cz);
}

static void test_gpu_broadcast(void) {
    static const struct { size_t nd, s[5], y[5]; } cases[] = {
        { 2, { 1001, 1003 }, { 1001, 1 } },                  /* column operand: diag(v) * A */
        { 2, { 1001, 1003 }, { 1, 1003 } },                  /* row operand */
        { 2, { 77, 3 }, { 1, 1 } },                          /* scalar */
        { 4, { 3, 17, 33, 35 }, { 1, 17, 1, 1 } },           /* per channel */
        { 5, { 3, 4, 5, 6, 7 }, { 3, 1, 5, 1, 7 } },         /* five alternating runs: several launches */
        { 3, { 1, 1, 7 }, { 1, 1, 1 } },
        { 3, { 64, 1, 100003 }, { 1, 1, 100003 } },
    };
    size_t ci, ti;
    int op;
    if (!gx_setup()) return;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (ti = 0; ti < 3; ti++)
            for (op = 0; op < (int)AK_BINARY_OP_COUNT; op++)
                gx_bcast_case((ak_binary_op)op, gx_types[ti], cases[ci].nd, cases[ci].s, cases[ci].y, (ci + (size_t)op) % 2);
}

/* ---- triangular ----------------------------------------------------------------------- */
static void test_gpu_triangular(void) {
    static const size_t shapes[][3] = { { 1, 1, 1 }, { 3, 33, 65 }, { 1, 1000, 999 }, { 2, 7, 3 } };
    static const int64_t diags[] = { 0, 1, -2, 40 };
    size_t si, ti, di;
    if (!gx_setup()) return;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (ti = 0; ti < 3; ti++)
            for (di = 0; di < 4; di++) {
                ak_dtype t = gx_types[ti];
                size_t b = shapes[si][0], rows = shapes[si][1], cols = shapes[si][2], n = b * rows * cols, es = ak_dtype_size(t);
                int upper = (int)(di % 2);
                size_t off = (si + di) % 2;
                void *hx = malloc(n * es), *gy = malloc(n * es), *cy = malloc(n * es), *bx = NULL, *by = NULL, *dx, *dy;
                if (!hx || !gy || !cy) { free(hx); free(gy); free(cy); akt_fail(__FILE__, __LINE__, "host OOM"); return; }
                gx_random(hx, t, n, -3, 3);
                dx = gx_upload(hx, n * es, off * es, &bx);
                dy = gx_out(n * es, off * es, &by);
                if (dx && dy) {
                    AKT_OK(ak_triangular(g_gpu, t, dx, dy, b, rows, cols, diags[di], upper, NULL));
                    AKT_CHECKF(gx_download(gy, dy, n * es), "triangular: download failed or wrote past the end");
                    AKT_OK(ak_triangular(g_cpu, t, hx, cy, b, rows, cols, diags[di], upper, NULL));
                    AKT_CHECKF(memcmp(gy, cy, n * es) == 0, "triangular %s %zux%zux%zu diag %lld upper %d: differs",
                               ak_dtype_name(t), b, rows, cols, (long long)diags[di], upper);
                    /* in place */
                    AKT_OK(ak_triangular(g_gpu, t, dx, dx, b, rows, cols, diags[di], upper, NULL));
                    AKT_CHECK(gx_fetch(gy, dx, n * es));
                    AKT_CHECKF(memcmp(gy, cy, n * es) == 0, "triangular in place %s: differs", ak_dtype_name(t));
                } else akt_fail(__FILE__, __LINE__, "device buffers: %s", ak_last_error());
                ak_free(g_gpu, bx); ak_free(g_gpu, by);
                free(hx); free(gy); free(cy);
            }
}

static void test_gpu_axis_cleanup(void) {
    if (g_gpu) ak_context_destroy(g_gpu);
    if (g_cpu) ak_context_destroy(g_cpu);
    g_gpu = g_cpu = NULL;
}

void akt_suite_gpu_axis(void) {
    AKT_RUN(test_gpu_reduce_axes);
    AKT_RUN(test_gpu_reduce_axes_ties);
    AKT_RUN(test_gpu_reduce_rows_ties);
    AKT_RUN(test_gpu_normalize);
    AKT_RUN(test_gpu_broadcast);
    AKT_RUN(test_gpu_triangular);
    AKT_RUN(test_gpu_axis_cleanup);
}
