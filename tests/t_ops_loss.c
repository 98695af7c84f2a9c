/* Suite ops_loss (cpu backend): ak_loss (every op, target layouts, every
 * reduction, KL flags) and ak_triplet_margin_loss against naive formulas
 * written here (torch's definitions, double), every dtype; argument errors. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype lo_types[3] = { AK_F32, AK_F16, AK_BF16 };

static double nv_loss(ak_loss_op op, double x, double t, double p, unsigned f) {
    double d = x - t, a = d < 0 ? -d : d;
    switch (op) {
    case AK_LOSS_MSE: return d * d;
    case AK_LOSS_L1: return a;
    case AK_LOSS_HUBER: return a <= p ? 0.5 * a * a : p * a - 0.5 * p * p;
    case AK_LOSS_SMOOTH_L1: return a < p ? 0.5 * a * a / p : a - 0.5 * p;
    case AK_LOSS_KL_DIV: {
        double lq = (f & AK_LOSS_PROB_INPUT) ? log(x) : x;
        if (f & AK_LOSS_LOG_TARGET) return exp(t) * (t - lq);
        return t == 0 ? 0.0 : t * log(t) - t * lq;
    }
    default: return 1.0 * p - x * t > 0 ? p - x * t : 0.0;
    }
}

static void test_loss(void) {
    ak_context* ctx = akt_cpu_context("ops_loss");
    unsigned long long st = akt_seed() ^ 0x1055ull;
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 144; trial++) {
        ak_dtype dt = lo_types[trial % 3];
        ak_loss_op op = (ak_loss_op)(trial / 3 % (int)AK_LOSS_OP_COUNT);
        ak_loss_target tl = (ak_loss_target)(trial / 18 % 3);
        ak_loss_reduction red = (ak_loss_reduction)(trial / 54 % 4 == 3 ? 3 : trial / 54 % 4);
        unsigned flags = op == AK_LOSS_KL_DIV ? (unsigned)(trial % 4) : 0u;
        size_t rows = 1 + (size_t)akt_uniform(&st, 0, 6), cols = 1 + (size_t)akt_uniform(&st, 0, 40), n = rows * cols, i;
        size_t tn = tl == AK_TARGET_FULL ? n : tl == AK_TARGET_ROW ? cols : rows, bad = 0;
        float param = trial % 2 ? 0.0f : 0.7f, out1;
        double p = param == 0.0f ? 1.0 : 0.7, s = 0.0, tol = dt == AK_F32 ? 1e-5 : 1e-5;
        void *x = malloc(n * 4), *t = malloc(tn * 4);
        float* out = (float*)malloc(n * 4);
        if (!x || !t || !out) { free(x); free(t); free(out); continue; }
        for (i = 0; i < n; i++) ak_elem_set(x, dt, i, op == AK_LOSS_KL_DIV ? ((flags & AK_LOSS_PROB_INPUT) ? akt_uniform(&st, 0.01, 1) : akt_uniform(&st, -5, -0.1)) : akt_uniform(&st, -2, 2));
        for (i = 0; i < tn; i++) ak_elem_set(t, dt, i, op == AK_LOSS_KL_DIV ? ((flags & AK_LOSS_LOG_TARGET) ? akt_uniform(&st, -5, -0.1) : (i % 5 == 0 ? 0.0 : akt_uniform(&st, 0.01, 1))) : op == AK_LOSS_HINGE ? (i % 2 ? 1.0 : -1.0) : akt_uniform(&st, -2, 2));
        AKT_OK(ak_loss(ctx, op, dt, x, t, tl, out, rows, cols, param, flags, red, NULL));
        out1 = out[0];
        for (i = 0; i < n; i++) {
            size_t ti = tl == AK_TARGET_FULL ? i : tl == AK_TARGET_ROW ? i % cols : i / cols;
            double v = nv_loss(op, ak_elem_get(x, dt, i), ak_elem_get(t, dt, ti), p, flags);
            s += v;
            if (red == AK_LOSS_NONE && fabs(out[i] - v) > tol * (1 + fabs(v)) && !bad++)
                akt_fail(__FILE__, __LINE__, "loss %d %s layout %d: element %zu %g vs %g", (int)op, ak_dtype_name(dt), (int)tl, i, out[i], v);
        }
        if (red != AK_LOSS_NONE) {
            double want = red == AK_LOSS_MEAN ? s / (double)n : red == AK_LOSS_BATCHMEAN ? s / (double)rows : s;
            AKT_CHECKF(fabs(out1 - want) <= 1e-5 * (1 + fabs(want)), "loss %d %s reduction %d: %g vs %g", (int)op, ak_dtype_name(dt),
                       (int)red, out1, want);
        }
        free(x); free(t); free(out);
    }
    ak_context_destroy(ctx);
}

static void test_triplet(void) {
    ak_context* ctx = akt_cpu_context("ops_triplet");
    unsigned long long st = akt_seed() ^ 0x3217ull;
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 24; trial++) {
        ak_dtype dt = lo_types[trial % 3];
        size_t rows = 1 + (size_t)akt_uniform(&st, 0, 6), cols = 1 + (size_t)akt_uniform(&st, 0, 30), n = rows * cols, r, c;
        float norm = trial % 4 == 3 ? 1.0f : 2.0f, margin = 1.0f, eps = 1e-6f;
        int swap = trial % 5 == 2;
        ak_loss_reduction red = (ak_loss_reduction)(trial % 3);
        void *a = malloc(n * 4), *p = malloc(n * 4), *ng = malloc(n * 4);
        float* out = (float*)malloc(rows * 4);
        double s = 0;
        if (!a || !p || !ng || !out) { free(a); free(p); free(ng); free(out); continue; }
        for (r = 0; r < n; r++) {
            ak_elem_set(a, dt, r, akt_uniform(&st, -1, 1)); ak_elem_set(p, dt, r, akt_uniform(&st, -1, 1));
            ak_elem_set(ng, dt, r, akt_uniform(&st, -1, 1));
        }
        AKT_OK(ak_triplet_margin_loss(ctx, dt, a, p, ng, out, rows, cols, margin, norm, eps, swap, red, NULL));
        for (r = 0; r < rows; r++) {
            double dp = 0, dn = 0, dw = 0, l;
            for (c = 0; c < cols; c++) {
                size_t e = r * cols + c;
                double u = ak_elem_get(a, dt, e) - ak_elem_get(p, dt, e) + eps, v = ak_elem_get(a, dt, e) - ak_elem_get(ng, dt, e) + eps;
                double w = ak_elem_get(p, dt, e) - ak_elem_get(ng, dt, e) + eps;
                dp += norm == 2 ? u * u : fabs(u); dn += norm == 2 ? v * v : fabs(v); dw += norm == 2 ? w * w : fabs(w);
            }
            if (norm == 2) { dp = sqrt(dp); dn = sqrt(dn); dw = sqrt(dw); }
            if (swap && dw < dn) dn = dw;
            l = dp - dn + margin;
            if (l < 0) l = 0;
            s += l;
            if (red == AK_LOSS_NONE) AKT_NEAR(out[r], l, 1e-5 * (1 + l));
        }
        if (red == AK_LOSS_MEAN) AKT_NEAR(out[0], s / (double)rows, 1e-5 * (1 + s));
        if (red == AK_LOSS_SUM) AKT_NEAR(out[0], s, 1e-5 * (1 + s));
        free(a); free(p); free(ng); free(out);
    }
    ak_context_destroy(ctx);
}

static void test_loss_errors(void) {
    ak_context* ctx = akt_cpu_context("ops_loss_err");
    float x[64], t[64], out[64];
    if (!ctx) return;
    memset(x, 0, sizeof x); memset(t, 0, sizeof t);
    AKT_ERR_ITEM(ak_loss(NULL, AK_LOSS_MSE, AK_F32, x, t, AK_TARGET_FULL, out, 4, 8, 0, 0, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_loss(ctx, AK_LOSS_OP_COUNT, AK_F32, x, t, AK_TARGET_FULL, out, 4, 8, 0, 0, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_loss(ctx, AK_LOSS_MSE, AK_F32, x, t, AK_TARGET_LAYOUT_COUNT, out, 4, 8, 0, 0, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_loss(ctx, AK_LOSS_MSE, AK_F32, x, t, AK_TARGET_FULL, out, 4, 8, 0, 0, AK_LOSS_REDUCTION_COUNT, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_loss(ctx, AK_LOSS_MSE, AK_F32, x, t, AK_TARGET_FULL, out, 4, 8, 0, AK_LOSS_LOG_TARGET, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_loss(ctx, AK_LOSS_HUBER, AK_F32, x, t, AK_TARGET_FULL, out, 4, 8, -1.0f, 0, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_loss(ctx, AK_LOSS_MSE, AK_F32, x, t, AK_TARGET_FULL, x, 4, 8, 0, 0, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_loss(ctx, AK_LOSS_MSE, AK_F32, x, t, AK_TARGET_FULL, out, 0, 8, 0, 0, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_triplet_margin_loss(ctx, AK_F32, x, t, x, out, 4, 8, 1.0f, 0.0f, 1e-6f, 0, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_triplet_margin_loss(ctx, AK_F32, x, t, x, out, 4, 8, 1.0f, 2.0f, -1.0f, 0, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_triplet_margin_loss(ctx, AK_F32, x, t, x, x, 4, 8, 1.0f, 2.0f, 1e-6f, 0, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_cross_entropy(ctx, AK_F32, x, (const int64_t*)(const void*)t, out, 4, 8, -100, AK_LOSS_BATCHMEAN, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    ak_context_destroy(ctx);
}

void akt_suite_ops_loss(void) {
    AKT_RUN(test_loss);
    AKT_RUN(test_triplet);
    AKT_RUN(test_loss_errors);
}
