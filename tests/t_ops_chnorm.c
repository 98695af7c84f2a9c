/* Suite ops_chnorm (cpu backend): ak_batch_norm (training with running
 * statistics, inference) and ak_group_norm (groups, instance norm, layer
 * norm over channels) against naive references written here (gather each
 * statistic's values, two-pass mean / variance in double), every dtype;
 * argument errors. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype cn_types[3] = { AK_F32, AK_F16, AK_BF16 };

static double cn_tol(ak_dtype t) { return t == AK_F32 ? 2e-5 : t == AK_F16 ? 2e-3 : 1.6e-2; }

static void test_group_norm(void) {
    ak_context* ctx = akt_cpu_context("ops_chnorm_gn");
    unsigned long long st = akt_seed() ^ 0x6E0ull;
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 36; trial++) {
        ak_dtype t = cn_types[trial % 3];
        size_t N = 1 + (size_t)akt_uniform(&st, 0, 3), G = 1 + (size_t)akt_uniform(&st, 0, 4), cpg = 1 + (size_t)akt_uniform(&st, 0, 3);
        size_t C = G * cpg, S = 1 + (size_t)akt_uniform(&st, 0, 50), n = N * C * S, i, bad = 0, nn, g;
        int affine = trial % 2;
        void *x = malloc(n * 4), *y = malloc(n * 4), *w = malloc(C * 4), *b = malloc(C * 4);
        double* vals = (double*)malloc(cpg * S * sizeof(double));
        if (!x || !y || !w || !b || !vals) { free(x); free(y); free(w); free(b); free(vals); continue; }
        for (i = 0; i < n; i++) ak_elem_set(x, t, i, akt_uniform(&st, -2, 5));
        for (i = 0; i < C; i++) { ak_elem_set(w, t, i, akt_uniform(&st, 0.5, 2)); ak_elem_set(b, t, i, akt_uniform(&st, -1, 1)); }
        AKT_OK(ak_group_norm(ctx, t, x, y, N, C, S, G, affine ? w : NULL, affine ? b : NULL, 1e-5f, NULL));
        for (nn = 0; nn < N; nn++)
            for (g = 0; g < G; g++) {
                size_t base = (nn * C + g * cpg) * S, m = cpg * S, j;
                double mean = 0, var = 0;
                for (j = 0; j < m; j++) { vals[j] = ak_elem_get(x, t, base + j); mean += vals[j]; }
                mean /= (double)m;
                for (j = 0; j < m; j++) var += (vals[j] - mean) * (vals[j] - mean);
                var /= (double)m;
                for (j = 0; j < m; j++) {
                    size_t ch = g * cpg + j / S;
                    double want = (vals[j] - mean) / sqrt(var + 1e-5);
                    if (affine) want = want * ak_elem_get(w, t, ch) + ak_elem_get(b, t, ch);
                    if (fabs(ak_elem_get(y, t, base + j) - want) > cn_tol(t) * (1 + fabs(want)) && !bad++)
                        akt_fail(__FILE__, __LINE__, "group_norm %s N%zu C%zu S%zu G%zu: element %zu %g vs %g", ak_dtype_name(t), N, C, S, G,
                                 base + j, ak_elem_get(y, t, base + j), want);
                }
            }
        free(x); free(y); free(w); free(b); free(vals);
    }
    ak_context_destroy(ctx);
}

static void test_batch_norm(void) {
    ak_context* ctx = akt_cpu_context("ops_chnorm_bn");
    unsigned long long st = akt_seed() ^ 0xB47ull;
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 30; trial++) {
        ak_dtype t = cn_types[trial % 3];
        size_t N = 1 + (size_t)akt_uniform(&st, 0, 4), C = 1 + (size_t)akt_uniform(&st, 0, 5), S = 1 + (size_t)akt_uniform(&st, 0, 40);
        size_t n = N * C * S, i, c, nn, s, bad = 0;
        int training = trial % 3 != 2, affine = trial % 2;
        float mom = 0.1f;
        void *x = malloc(n * 4), *y = malloc(n * 4), *w = malloc(C * 4), *b = malloc(C * 4);
        float *rm = (float*)malloc(C * 4), *rv = (float*)malloc(C * 4), *rm0 = (float*)malloc(C * 4), *rv0 = (float*)malloc(C * 4);
        if (!x || !y || !w || !b || !rm || !rv || !rm0 || !rv0) { free(x); free(y); free(w); free(b); free(rm); free(rv); free(rm0); free(rv0); continue; }
        for (i = 0; i < n; i++) ak_elem_set(x, t, i, akt_uniform(&st, -1, 3));
        for (c = 0; c < C; c++) {
            ak_elem_set(w, t, c, akt_uniform(&st, 0.5, 2)); ak_elem_set(b, t, c, akt_uniform(&st, -1, 1));
            rm[c] = rm0[c] = (float)akt_uniform(&st, -0.5, 0.5); rv[c] = rv0[c] = (float)akt_uniform(&st, 0.5, 2);
        }
        AKT_OK(ak_batch_norm(ctx, t, x, y, N, C, S, affine ? w : NULL, affine ? b : NULL, rm, rv, training, mom, 1e-5f, NULL));
        for (c = 0; c < C; c++) {
            double mean = 0, var = 0, cnt = (double)(N * S);
            for (nn = 0; nn < N; nn++) for (s = 0; s < S; s++) mean += ak_elem_get(x, t, (nn * C + c) * S + s);
            mean /= cnt;
            for (nn = 0; nn < N; nn++) for (s = 0; s < S; s++) {
                double d = ak_elem_get(x, t, (nn * C + c) * S + s) - mean;
                var += d * d;
            }
            var /= cnt;
            if (training) {
                AKT_NEAR(rm[c], 0.9 * rm0[c] + 0.1 * mean, 1e-5);
                AKT_NEAR(rv[c], 0.9 * rv0[c] + 0.1 * (cnt > 1 ? var * cnt / (cnt - 1) : var), 1e-5);
            } else {
                AKT_CHECK(rm[c] == rm0[c] && rv[c] == rv0[c]);
                mean = rm0[c]; var = rv0[c];
            }
            for (nn = 0; nn < N; nn++) for (s = 0; s < S; s++) {
                size_t e = (nn * C + c) * S + s;
                double want = (ak_elem_get(x, t, e) - mean) / sqrt(var + 1e-5);
                if (affine) want = want * ak_elem_get(w, t, c) + ak_elem_get(b, t, c);
                if (fabs(ak_elem_get(y, t, e) - want) > cn_tol(t) * (1 + fabs(want)) && !bad++)
                    akt_fail(__FILE__, __LINE__, "batch_norm %s training %d N%zu C%zu S%zu: element %zu %g vs %g", ak_dtype_name(t),
                             training, N, C, S, e, ak_elem_get(y, t, e), want);
            }
        }
        free(x); free(y); free(w); free(b); free(rm); free(rv); free(rm0); free(rv0);
    }
    ak_context_destroy(ctx);
}

static void test_chnorm_errors(void) {
    ak_context* ctx = akt_cpu_context("ops_chnorm_err");
    float x[64], y[64], rm[4], rv[4];
    if (!ctx) return;
    memset(x, 0, sizeof x);
    AKT_ERR_ITEM(ak_group_norm(ctx, AK_F32, x, y, 2, 4, 8, 3, NULL, NULL, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_group_norm(ctx, AK_F32, x, y, 2, 4, 8, 0, NULL, NULL, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_group_norm(ctx, AK_F32, x, y, 2, 4, 8, 2, NULL, NULL, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_group_norm(NULL, AK_F32, x, y, 2, 4, 8, 2, NULL, NULL, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_group_norm(ctx, AK_F32, x, x + 1, 2, 4, 8, 2, NULL, NULL, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_group_norm(ctx, AK_F32, x, y, 2, 4, 8, 2, y, NULL, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_batch_norm(ctx, AK_F32, x, y, 2, 4, 8, NULL, NULL, NULL, NULL, 0, 0.1f, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_batch_norm(ctx, AK_F32, x, y, 2, 4, 8, NULL, NULL, rm, NULL, 1, 0.1f, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_batch_norm(ctx, AK_F32, x, y, 2, 4, 8, NULL, NULL, rm, rv, 1, 1.5f, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_batch_norm(ctx, AK_F32, x, y, 2, 4, 8, NULL, NULL, (float*)y, rv, 1, 0.1f, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_batch_norm(ctx, AK_I32, x, y, 2, 4, 8, NULL, NULL, NULL, NULL, 1, 0.1f, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_batch_norm(ctx, AK_F32, x, y, 0, 4, 8, NULL, NULL, NULL, NULL, 1, 0.1f, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_OK(ak_batch_norm(ctx, AK_F32, x, y, 2, 4, 8, NULL, NULL, NULL, NULL, 1, 0.1f, 1e-5f, NULL));
    ak_context_destroy(ctx);
}

void akt_suite_ops_chnorm(void) {
    AKT_RUN(test_group_norm);
    AKT_RUN(test_batch_norm);
    AKT_RUN(test_chnorm_errors);
}
