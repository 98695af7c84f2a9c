/* Suite ops_pool (cpu backend): ak_pool (max with indices, average with and
 * without count_include_pad / divisor_override, 1-D / 2-D / 3-D, stride,
 * padding, dilation, ceil_mode) against a naive reference written here from
 * torch's definitions (padded input of -inf / 0, output size formula), every
 * dtype; the output-shape rule; argument errors. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype po_types[3] = { AK_F32, AK_F16, AK_BF16 };

/* torch's output size: floor((in + 2p - d(k-1) - 1) / s) + 1, ceil_mode: ceil, and the last window must start in
 * the input or the left padding */
static long long nv_pool_out(long long in, long long k, long long s, long long p, long long d, int ceil_mode) {
    long long num = in + 2 * p - d * (k - 1) - 1, o;
    o = ceil_mode ? (long long)ceil((double)num / (double)s) + 1 : (long long)floor((double)num / (double)s) + 1;
    if (ceil_mode && (o - 1) * s >= in + p) o--;
    return o;
}

/* Naive pooling of one plane over a padded 3-D view (1-D / 2-D: leading extents 1). */
static void nv_pool(int maxp, const double* x, const long long in[3], const long long k[3], const long long s[3],
                    const long long p[3], const long long d[3], const long long out[3], int cip, int divo, double* y,
                    long long* idx) {
    long long o[3];
    for (o[0] = 0; o[0] < out[0]; o[0]++)
        for (o[1] = 0; o[1] < out[1]; o[1]++)
            for (o[2] = 0; o[2] < out[2]; o[2]++) {
                long long q[3], at = (o[0] * out[1] + o[1]) * out[2] + o[2];
                double best = -INFINITY, sum = 0;
                long long bi = -1, cnt = 0, padded = 0;
                for (q[0] = 0; q[0] < k[0]; q[0]++)
                    for (q[1] = 0; q[1] < k[1]; q[1]++)
                        for (q[2] = 0; q[2] < k[2]; q[2]++) {
                            long long c[3], i, inside = 1, inpad = 1;
                            for (i = 0; i < 3; i++) {
                                c[i] = o[i] * s[i] - p[i] + q[i] * d[i];
                                if (c[i] < 0 || c[i] >= in[i]) inside = 0;
                                if (c[i] >= in[i] + p[i]) inpad = 0;
                            }
                            padded += inpad;
                            if (!inside) continue;
                            {
                                long long e = (c[0] * in[1] + c[1]) * in[2] + c[2];
                                double v = x[e];
                                cnt++;
                                sum += v;
                                if (bi < 0 || (best == best && (v > best || v != v))) { best = v; bi = e; }
                            }
                        }
                if (maxp) { y[at] = best; idx[at] = bi; }
                else y[at] = sum / (divo > 0 ? (double)divo : cip ? (double)padded : (double)cnt);
            }
}

static void test_pool_random(void) {
    ak_context* ctx = akt_cpu_context("ops_pool");
    unsigned long long st = akt_seed() ^ 0x9001ull;
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 200; trial++) {
        ak_pool_args a;
        size_t outs[3], ip = 1, op = 1, planes, i, bad = 0, pl;
        long long in[3] = { 1, 1, 1 }, k[3] = { 1, 1, 1 }, s[3] = { 1, 1, 1 }, p[3] = { 0, 0, 0 }, d[3] = { 1, 1, 1 }, out[3] = { 1, 1, 1 };
        int j, ok = 1;
        ak_dtype t = po_types[trial % 3];
        double *xd, *yd;
        long long* id;
        void *x, *y;
        int64_t* idx;
        memset(&a, 0, sizeof a);
        a.kind = (ak_pool_kind)(trial % 2);
        a.dtype = t;
        a.ndim = 1 + trial / 2 % 3;
        a.batch = 1 + (size_t)akt_uniform(&st, 0, 2);
        a.channels = 1 + (size_t)akt_uniform(&st, 0, 3);
        a.ceil_mode = (trial / 6) % 2;
        a.count_include_pad = (trial / 12) % 2;
        if (a.kind == AK_POOL_AVG && trial % 17 == 3) a.divisor_override = 5;
        for (j = 0; j < a.ndim; j++) {
            int q = 3 - a.ndim + j;
            a.in[j] = 1 + (size_t)akt_uniform(&st, 0, a.ndim == 3 ? 7 : 13);
            a.kernel[j] = 1 + (size_t)akt_uniform(&st, 0, 4);
            a.stride[j] = (size_t)akt_uniform(&st, 0, 3);   /* 0: kernel */
            a.dilation[j] = a.kind == AK_POOL_MAX ? (size_t)akt_uniform(&st, 0, 3) : 0;
            in[q] = (long long)a.in[j]; k[q] = (long long)a.kernel[j];
            s[q] = a.stride[j] ? (long long)a.stride[j] : k[q];
            d[q] = a.dilation[j] ? (long long)a.dilation[j] : 1;
            a.padding[j] = (size_t)akt_uniform(&st, 0, (double)((a.kind == AK_POOL_MAX ? (k[q] - 1) * d[q] + 1 : k[q]) / 2 + 1));
            p[q] = (long long)a.padding[j];
            out[q] = nv_pool_out(in[q], k[q], s[q], p[q], d[q], a.ceil_mode);
            if (out[q] < 1) ok = 0;
        }
        if (!ok) {   /* too small: refused */
            AKT_ERR_ITEM(ak_pool_output_shape(&a, outs), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
            continue;
        }
        AKT_OK(ak_pool_output_shape(&a, outs));
        for (j = 0; j < a.ndim; j++) AKT_EQ_INT(outs[j], out[3 - a.ndim + j]);
        for (j = 0; j < 3; j++) { ip *= (size_t)in[j]; op *= (size_t)out[j]; }
        planes = a.batch * a.channels;
        x = malloc(planes * ip * 4); y = malloc(planes * op * 4); idx = (int64_t*)malloc(planes * op * 8);
        xd = (double*)malloc(ip * sizeof(double)); yd = (double*)malloc(op * sizeof(double)); id = (long long*)malloc(op * sizeof(long long));
        if (!x || !y || !idx || !xd || !yd || !id) { free(x); free(y); free(idx); free(xd); free(yd); free(id); continue; }
        for (i = 0; i < planes * ip; i++) ak_elem_set(x, t, i, akt_uniform(&st, -5, 5));
        if (trial % 13 == 7) ak_elem_set(x, t, 0, NAN);
        a.x = x; a.y = y; a.indices = a.kind == AK_POOL_MAX ? idx : NULL;
        AKT_OK(ak_pool(ctx, &a, NULL));
        for (pl = 0; pl < planes; pl++) {
            for (i = 0; i < ip; i++) xd[i] = ak_elem_get(x, t, pl * ip + i);
            nv_pool(a.kind == AK_POOL_MAX, xd, in, k, s, p, d, out, a.count_include_pad, a.divisor_override, yd, id);
            for (i = 0; i < op; i++) {
                double g = ak_elem_get(y, t, pl * op + i), want = yd[i];
                double tol = t == AK_F32 ? 1e-6 : t == AK_F16 ? 1e-3 : 8e-3;
                int good = (want != want) ? g != g : (g == want || fabs(g - want) <= tol * (1 + fabs(want)));
                if (a.kind == AK_POOL_MAX && idx[pl * op + i] != id[i]) good = 0;
                if (!good && !bad++)
                    akt_fail(__FILE__, __LINE__, "pool %s %s %dd trial %d: plane %zu output %zu: %g vs %g (index %lld vs %lld)",
                             a.kind == AK_POOL_MAX ? "max" : "avg", ak_dtype_name(t), a.ndim, trial, pl, i, g, want,
                             a.kind == AK_POOL_MAX ? (long long)idx[pl * op + i] : 0, id[i]);
            }
        }
        free(x); free(y); free(idx); free(xd); free(yd); free(id);
    }
    ak_context_destroy(ctx);
}

static void test_pool_errors(void) {
    ak_context* ctx = akt_cpu_context("ops_pool_err");
    ak_pool_args a;
    float x[64], y[64];
    int64_t idx[64];
    size_t out[3];
    if (!ctx) return;
    memset(x, 0, sizeof x);
    memset(&a, 0, sizeof a);
    a.kind = AK_POOL_MAX; a.dtype = AK_F32; a.ndim = 2; a.batch = 1; a.channels = 1;
    a.in[0] = 8; a.in[1] = 8; a.kernel[0] = 2; a.kernel[1] = 2; a.x = x; a.y = y;
    AKT_OK(ak_pool_output_shape(&a, out));
    AKT_EQ_INT(out[0], 4); AKT_EQ_INT(out[1], 4);
    AKT_OK(ak_pool(ctx, &a, NULL));
    AKT_ERR_ITEM(ak_pool(NULL, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_pool(ctx, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_pool_output_shape(&a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    a.ndim = 4; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.ndim = 2;
    a.kernel[1] = 0; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.kernel[1] = 2;
    a.padding[0] = 2; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE); a.padding[0] = 0;
    a.kernel[0] = 9; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.kernel[0] = 2;
    a.kind = AK_POOL_AVG; a.dilation[0] = 2; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE); a.dilation[0] = 0;
    a.indices = idx; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE); a.indices = NULL;
    a.divisor_override = -1; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE); a.divisor_override = 0;
    a.kind = AK_POOL_MAX; a.divisor_override = 3; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE); a.divisor_override = 0;
    a.kind = (ak_pool_kind)7; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE); a.kind = AK_POOL_MAX;
    a.dtype = AK_I32; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE); a.dtype = AK_F32;
    a.y = x + 4; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP); a.y = y;
    a.indices = (int64_t*)(void*)y; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP); a.indices = NULL;
    a.batch = 0; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.batch = 1;
    a.x = NULL; AKT_ERR_ITEM(ak_pool(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT); a.x = x;
    /* ceil_mode: a window that would start in the right padding is dropped (5, k 2, s 2, p 1: 3 windows, ceil 4 -> 3) */
    memset(&a, 0, sizeof a);
    a.kind = AK_POOL_AVG; a.dtype = AK_F32; a.ndim = 1; a.batch = 1; a.channels = 1; a.in[0] = 5; a.kernel[0] = 2;
    a.stride[0] = 2; a.padding[0] = 1; a.ceil_mode = 1;
    AKT_OK(ak_pool_output_shape(&a, out));
    AKT_EQ_INT(out[0], 3);
    a.in[0] = 6;
    AKT_OK(ak_pool_output_shape(&a, out));
    AKT_EQ_INT(out[0], 4);
    ak_context_destroy(ctx);
}

void akt_suite_ops_pool(void) {
    AKT_RUN(test_pool_random);
    AKT_RUN(test_pool_errors);
}
