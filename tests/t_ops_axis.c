/* Suite ops_axis (cpu backend): ak_reduce_axes, ak_normalize,
 * ak_binary_broadcast and ak_triangular against naive references written
 * here (loops over output and reduced coordinates, double accumulation), on
 * random shapes and axis sets, every dtype; argument errors. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype ax_types[3] = { AK_F32, AK_F16, AK_BF16 };

static void ax_fill(void* p, ak_dtype t, size_t n, unsigned long long* st, double lo, double hi) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(st, lo, hi);
        if (fabs(v) < 0.01) v = 0.25;
        ak_elem_set(p, t, i, v);
    }
}

/* Row-major offset of coordinates c[0..nd) in shape s. */
static size_t ax_off(const size_t* c, const size_t* s, size_t nd) {
    size_t o = 0, k;
    for (k = 0; k < nd; k++) o = o * s[k] + c[k];
    return o;
}
/* Next coordinates in row-major order over the dimensions where use[k]; 0 when done. */
static int ax_next(size_t* c, const size_t* s, size_t nd, const int* use) {
    size_t k;
    for (k = nd; k-- > 0;) {
        if (!use[k]) continue;
        if (++c[k] < s[k]) return 1;
        c[k] = 0;
    }
    return 0;
}

/* Naive reduction: for each output coordinate, walk the reduced coordinates. */
static void nv_reduce_axes(ak_reduce_op op, const void* x, ak_dtype t, size_t nd, const size_t* shape, uint32_t axes,
                           double* val, long long* idx, double* absum) {
    size_t c[AK_AXES_MAX_DIMS], k, o = 0;
    int keep[AK_AXES_MAX_DIMS], red[AK_AXES_MAX_DIMS];
    for (k = 0; k < nd; k++) { red[k] = (int)(axes >> k & 1u); keep[k] = !red[k]; c[k] = 0; }
    do {
        double best = 0, s = 0, a = 0;
        long long bi = -1, pos = 0, cnt = 0;
        for (k = 0; k < nd; k++) if (red[k]) c[k] = 0;
        do {
            double v = ak_elem_get(x, t, ax_off(c, shape, nd));
            s += v; a += fabs(v); cnt++;
            if (bi < 0) { best = v; bi = pos; }
            else if (best == best && (v != v || ((op == AK_REDUCE_MAX || op == AK_REDUCE_ARGMAX) ? v > best : v < best))) {
                best = v; bi = pos;
            }
            pos++;
        } while (ax_next(c, shape, nd, red));
        val[o] = op == AK_REDUCE_SUM ? s : op == AK_REDUCE_MEAN ? s / (double)cnt : best;
        idx[o] = bi;
        absum[o] = op == AK_REDUCE_MEAN ? a / (double)cnt : a;
        o++;
    } while (ax_next(c, shape, nd, keep));
}

static void test_reduce_axes(void) {
    ak_context* ctx = akt_cpu_context("ops_axis_reduce");
    unsigned long long st = akt_seed() ^ 0xA11A5ull;
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 120; trial++) {
        size_t nd = 1 + (size_t)akt_uniform(&st, 0, 4), shape[AK_AXES_MAX_DIMS], n = 1, nout = 1, k, i, bad = 0;
        ak_dtype t = ax_types[trial % 3];
        ak_reduce_op op = (ak_reduce_op)(trial % (int)AK_REDUCE_OP_COUNT);
        int arg = op == AK_REDUCE_ARGMAX || op == AK_REDUCE_ARGMIN;
        uint32_t axes;
        void *x, *out;
        double *val, *ab;
        long long* idx;
        for (k = 0; k < nd; k++) { shape[k] = 1 + (size_t)akt_uniform(&st, 0, trial % 7 == 0 ? 2 : 9); n *= shape[k]; }
        if (arg) {   /* one axis, or a run of adjacent ones */
            size_t a0 = (size_t)akt_uniform(&st, 0, (double)nd), a1 = a0 + (size_t)akt_uniform(&st, 0, (double)(nd - a0));
            axes = 0;
            for (k = a0; k <= a1; k++) axes |= 1u << k;
        } else {
            axes = (uint32_t)akt_uniform(&st, 1, (double)(1u << nd));
        }
        for (k = 0; k < nd; k++) if (!(axes >> k & 1u)) nout *= shape[k];
        x = malloc(n * ak_dtype_size(t));
        out = malloc(nout * 8);
        val = (double*)malloc(nout * sizeof(double));
        ab = (double*)malloc(nout * sizeof(double));
        idx = (long long*)malloc(nout * sizeof(long long));
        if (!x || !out || !val || !ab || !idx) { free(x); free(out); free(val); free(ab); free(idx); continue; }
        ax_fill(x, t, n, &st, -4, 4);
        if (trial % 11 == 5) ak_elem_set(x, t, n / 2, NAN);
        AKT_OK(ak_reduce_axes(ctx, op, t, x, out, nd, shape, axes, NULL));
        nv_reduce_axes(op, x, t, nd, shape, axes, val, idx, ab);
        for (i = 0; i < nout; i++) {
            int ok;
            if (arg) ok = ((int64_t*)out)[i] == idx[i];
            else {
                double g = ((float*)out)[i];
                ok = (g != g && val[i] != val[i]) || fabs(g - val[i]) <= 1e-6 * (ab[i] + 1e-30) + 1e-30;
            }
            if (!ok && !bad++)
                akt_fail(__FILE__, __LINE__, "reduce_axes %s %s nd %zu axes 0x%x: output %zu: %g vs %g (index %lld vs %lld)",
                         ak_reduce_op_name(op), ak_dtype_name(t), nd, (unsigned)axes, i, arg ? 0.0 : ((float*)out)[i], val[i],
                         arg ? (long long)((int64_t*)out)[i] : 0, idx[i]);
        }
        free(x); free(out); free(val); free(ab); free(idx);
    }
    ak_context_destroy(ctx);
}

static void test_normalize(void) {
    ak_context* ctx = akt_cpu_context("ops_axis_norm");
    unsigned long long st = akt_seed() ^ 0x40B3ull;
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 48; trial++) {
        ak_dtype t = ax_types[trial % 3];
        ak_norm_kind kind = (ak_norm_kind)(trial / 3 % (int)AK_NORM_KIND_COUNT);
        size_t outer = 1 + (size_t)akt_uniform(&st, 0, 5), len = 1 + (size_t)akt_uniform(&st, 0, 40), inner = 1 + (size_t)akt_uniform(&st, 0, 4);
        size_t n = outer * len * inner, o, i, l, bad = 0;
        float eps = trial % 2 ? 1e-6f : 0.5f;
        void* x = malloc(n * 4);
        void* y = malloc(n * 4);
        if (!x || !y) { free(x); free(y); continue; }
        ax_fill(x, t, n, &st, -2, 2);
        AKT_OK(ak_normalize(ctx, kind, t, x, y, outer, len, inner, eps, NULL));
        for (o = 0; o < outer; o++)
            for (i = 0; i < inner; i++) {
                double s1 = 0, s2 = 0, nrm;
                for (l = 0; l < len; l++) {
                    double v = ak_elem_get(x, t, (o * len + l) * inner + i);
                    s1 += fabs(v); s2 += v * v;
                }
                nrm = kind == AK_NORM_L1 ? s1 : kind == AK_NORM_L2 ? sqrt(s2) : kind == AK_NORM_MEAN_ABS ? s1 / (double)len
                                                                                               : sqrt(s2 / (double)len + eps);
                if (kind != AK_NORM_RMS && nrm < eps) nrm = eps;
                for (l = 0; l < len; l++) {
                    size_t e = (o * len + l) * inner + i;
                    double want = ak_elem_get(x, t, e) / nrm, got = ak_elem_get(y, t, e);
                    double tol = t == AK_F32 ? 1e-6 : t == AK_F16 ? 1e-3 : 8e-3;
                    if (fabs(got - want) > tol * (1 + fabs(want)) && !bad++)
                        akt_fail(__FILE__, __LINE__, "normalize %s %s %zux%zux%zu: element %zu %g vs %g", ak_norm_kind_name(kind),
                                 ak_dtype_name(t), outer, len, inner, e, got, want);
                }
            }
        /* in place */
        AKT_OK(ak_normalize(ctx, kind, t, x, x, outer, len, inner, eps, NULL));
        AKT_CHECK(memcmp(x, y, n * ak_dtype_size(t)) == 0);
        free(x); free(y);
    }
    ak_context_destroy(ctx);
}

static void test_broadcast(void) {
    ak_context* ctx = akt_cpu_context("ops_axis_bcast");
    unsigned long long st = akt_seed() ^ 0xBCA57ull;
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 90; trial++) {
        ak_dtype t = ax_types[trial % 3];
        ak_binary_op op = (ak_binary_op)(trial % (int)AK_BINARY_OP_COUNT);
        size_t nd = 1 + (size_t)akt_uniform(&st, 0, 5), shape[AK_AXES_MAX_DIMS], ysh[AK_AXES_MAX_DIMS], n = 1, ny = 1, k, i, bad = 0;
        size_t c[AK_AXES_MAX_DIMS];
        int all[AK_AXES_MAX_DIMS];
        void *x, *y, *z;
        for (k = 0; k < nd; k++) {
            shape[k] = 1 + (size_t)akt_uniform(&st, 0, 6);
            ysh[k] = akt_uniform(&st, 0, 1) < 0.5 ? 1 : shape[k];
            n *= shape[k]; ny *= ysh[k];
            all[k] = 1; c[k] = 0;
        }
        x = malloc(n * 4); y = malloc(ny * 4); z = malloc(n * 4);
        if (!x || !y || !z) { free(x); free(y); free(z); continue; }
        ax_fill(x, t, n, &st, -3, 3);
        ax_fill(y, t, ny, &st, 0.5, 3);
        AKT_OK(ak_binary_broadcast(ctx, op, t, x, y, z, nd, shape, ysh, NULL));
        i = 0;
        do {
            size_t yc[AK_AXES_MAX_DIMS];
            double a, b, want, got;
            for (k = 0; k < nd; k++) yc[k] = ysh[k] == 1 ? 0 : c[k];
            a = ak_elem_get(x, t, i); b = ak_elem_get(y, t, ax_off(yc, ysh, nd));
            want = op == AK_OP_ADD ? a + b : op == AK_OP_SUB ? a - b : op == AK_OP_MUL ? a * b : a / b;
            got = ak_elem_get(z, t, i);
            if (fabs(got - want) > (t == AK_F32 ? 1e-6 : 1e-2) * (1 + fabs(want)) && !bad++)
                akt_fail(__FILE__, __LINE__, "broadcast %s %s nd %zu: element %zu %g vs %g", ak_binary_op_name(op), ak_dtype_name(t),
                         nd, i, got, want);
            i++;
        } while (ax_next(c, shape, nd, all));
        free(x); free(y); free(z);
    }
    ak_context_destroy(ctx);
}

static void test_triangular(void) {
    ak_context* ctx = akt_cpu_context("ops_axis_tri");
    unsigned long long st = akt_seed() ^ 0x7121ull;
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 24; trial++) {
        ak_dtype t = ax_types[trial % 3];
        size_t b = 1 + (size_t)akt_uniform(&st, 0, 3), rows = 1 + (size_t)akt_uniform(&st, 0, 9), cols = 1 + (size_t)akt_uniform(&st, 0, 9);
        int64_t diag = (int64_t)akt_uniform(&st, -4, 4);
        int upper = trial % 2;
        size_t n = b * rows * cols, bi, r, cc, bad = 0;
        void* x = malloc(n * 4);
        void* y = malloc(n * 4);
        if (!x || !y) { free(x); free(y); continue; }
        ax_fill(x, t, n, &st, -3, 3);
        AKT_OK(ak_triangular(ctx, t, x, y, b, rows, cols, diag, upper, NULL));
        for (bi = 0; bi < b; bi++)
            for (r = 0; r < rows; r++)
                for (cc = 0; cc < cols; cc++) {
                    size_t e = (bi * rows + r) * cols + cc;
                    int keep = upper ? (long long)cc >= (long long)r + diag : (long long)cc <= (long long)r + diag;
                    if (ak_elem_get(y, t, e) != (keep ? ak_elem_get(x, t, e) : 0.0) && !bad++)
                        akt_fail(__FILE__, __LINE__, "triangular %s upper %d diag %lld: (%zu, %zu)", ak_dtype_name(t), upper,
                                 (long long)diag, r, cc);
                }
        free(x); free(y);
    }
    ak_context_destroy(ctx);
}

static void test_axis_errors(void) {
    ak_context* ctx = akt_cpu_context("ops_axis_err");
    float x[64], y[64];
    int64_t oi[64];
    size_t shape[3] = { 2, 4, 8 }, ysh[3] = { 1, 4, 2 }, big[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    if (!ctx) return;
    memset(x, 0, sizeof x);
    AKT_ERR_ITEM(ak_reduce_axes(NULL, AK_REDUCE_SUM, AK_F32, x, y, 3, shape, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_SUM, AK_F32, x, y, 3, shape, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_SUM, AK_F32, x, y, 3, shape, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_SUM, AK_F32, x, y, 0, shape, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_SUM, AK_F32, x, y, 9, big, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_SUM, AK_F32, x, y, 3, NULL, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_OP_COUNT, AK_F32, x, y, 3, shape, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_ARGMAX, AK_F32, x, oi, 3, shape, 5, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_SUM, AK_F32, x, x + 1, 3, shape, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_SUM, AK_I32, x, y, 3, shape, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_SUM, AK_F32, x, (char*)y + 2, 3, shape, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    shape[1] = 0;
    AKT_ERR_ITEM(ak_reduce_axes(ctx, AK_REDUCE_SUM, AK_F32, x, y, 3, shape, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    shape[1] = 4;
    /* argmax over two adjacent axes (an extent-1 one between them does not separate them) is fine */
    {
        size_t s4[4] = { 2, 4, 1, 8 };
        AKT_OK(ak_reduce_axes(ctx, AK_REDUCE_ARGMAX, AK_F32, x, oi, 4, s4, 2u | 8u, NULL));
    }
    AKT_ERR_ITEM(ak_normalize(ctx, AK_NORM_L2, AK_F32, x, y, 2, 4, 8, -1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_normalize(ctx, AK_NORM_L2, AK_F32, x, y, 2, 4, 8, (float)NAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_normalize(ctx, AK_NORM_KIND_COUNT, AK_F32, x, y, 2, 4, 8, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_normalize(ctx, AK_NORM_L1, AK_F32, x, y, 0, 4, 8, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_normalize(ctx, AK_NORM_L1, AK_F32, x, x + 1, 2, 4, 7, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_binary_broadcast(ctx, AK_OP_ADD, AK_F32, x, y, x, 3, shape, ysh, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    ysh[2] = 8;
    AKT_ERR_ITEM(ak_binary_broadcast(ctx, AK_OP_ADD, AK_F32, x, x + 4, x, 3, shape, ysh, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_binary_broadcast(ctx, AK_BINARY_OP_COUNT, AK_F32, x, y, x, 3, shape, ysh, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_binary_broadcast(ctx, AK_OP_ADD, AK_F32, x, y, x, 3, shape, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_triangular(ctx, AK_F32, x, x + 1, 1, 4, 4, 0, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_triangular(ctx, AK_F32, x, y, 1, 0, 4, 0, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_EQ_STR(ak_norm_kind_name(AK_NORM_RMS), "rms");
    AKT_EQ_STR(ak_norm_kind_name((ak_norm_kind)99), "?");
    ak_context_destroy(ctx);
}

void akt_suite_ops_axis(void) {
    AKT_RUN(test_reduce_axes);
    AKT_RUN(test_normalize);
    AKT_RUN(test_broadcast);
    AKT_RUN(test_triangular);
    AKT_RUN(test_axis_errors);
}
