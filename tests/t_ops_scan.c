/* Suite ops_scan: ak_cumsum and ak_topk on the cpu backend against naive
 * computations written here (a running double / integer sum; top-k by
 * repeated selection of the best remaining element), on fresh random data,
 * odd shapes, every dtype; exclusive scans, integer wrap-around, in place;
 * top-k ties (lower index first), NaN (larger than +inf), -0 == +0,
 * largest = 0, k = cols; every validation error. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const size_t sc_shapes[][2] = { { 1, 1 }, { 1, 7 }, { 3, 1000 }, { 5, 4097 }, { 2, 70001 }, { 9, 33 } };
#define SC_NSHAPES (sizeof sc_shapes / sizeof sc_shapes[0])

static void test_cumsum_float(void) {
    ak_context* ctx = akt_cpu_context("sc_cumsum");
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    unsigned long long st = akt_seed();
    size_t s;
    int t, ex;
    if (!ctx) return;
    for (s = 0; s < SC_NSHAPES; s++)
        for (t = 0; t < 3; t++)
            for (ex = 0; ex < 2; ex++) {
                size_t rows = sc_shapes[s][0], cols = sc_shapes[s][1], n = rows * cols, r, c, bad = 0;
                ak_dtype dt = types[t];
                void *x = malloc(n * 4), *y = malloc(n * 4);
                if (!x || !y) { free(x); free(y); break; }
                for (c = 0; c < n; c++) ak_elem_set(x, dt, c, akt_uniform(&st, -1, 1) + 0.01);
                AKT_OK(ak_cumsum(ctx, dt, x, y, rows, cols, ex, NULL));
                for (r = 0; r < rows; r++) {
                    double acc = 0.0, abs_acc = 0.0;
                    for (c = 0; c < cols; c++) {
                        double v = ak_elem_get(x, dt, r * cols + c), want, got;
                        if (!ex) { acc += v; abs_acc += fabs(v); }
                        want = acc;
                        got = ak_elem_get(y, dt, r * cols + c);
                        if (!(fabs(got - want) <= (dt == AK_F32 ? 1e-6 : 8e-3) * (fabs(want) + 1e-3 * abs_acc) + 1e-30)) {
                            if (!bad) akt_fail(__FILE__, __LINE__, "%s %zux%zu ex=%d [%zu,%zu]: %.9g vs %.9g",
                                               ak_dtype_name(dt), rows, cols, ex, r, c, got, want);
                            bad++;
                        }
                        if (ex) { acc += v; abs_acc += fabs(v); }
                    }
                }
                free(x);
                free(y);
            }
    ak_context_destroy(ctx);
}

static void test_cumsum_int(void) {
    ak_context* ctx = akt_cpu_context("sc_cumsum_int");
    int32_t x32[2 * 5] = { 2147483647, 1, 5, -7, 3, -1, -2, -3, -4, -5 }, y32[10];
    int64_t x64[3] = { INT64_MAX, 1, 2 }, y64[3];
    AKT_OK(ak_cumsum(ctx, AK_I32, x32, y32, 2, 5, 0, NULL));
    AKT_EQ_INT(y32[0], 2147483647);
    AKT_EQ_INT(y32[1], INT32_MIN);          /* wraps */
    AKT_EQ_INT(y32[4], INT32_MIN + 1);
    AKT_EQ_INT(y32[5], -1);
    AKT_EQ_INT(y32[9], -15);
    AKT_OK(ak_cumsum(ctx, AK_I32, x32, y32, 2, 5, 1, NULL));
    AKT_EQ_INT(y32[0], 0);
    AKT_EQ_INT(y32[1], 2147483647);
    AKT_EQ_INT(y32[5], 0);
    AKT_EQ_INT(y32[9], -10);
    AKT_OK(ak_cumsum(ctx, AK_I64, x64, y64, 1, 3, 0, NULL));
    AKT_CHECK(y64[0] == INT64_MAX && y64[1] == INT64_MIN && y64[2] == INT64_MIN + 2);
    /* in place */
    AKT_OK(ak_cumsum(ctx, AK_I64, x64, x64, 1, 3, 1, NULL));
    AKT_CHECK(x64[0] == 0 && x64[1] == INT64_MAX && x64[2] == INT64_MIN);
    ak_context_destroy(ctx);
}

/* Naive top-k: k times, the best remaining element (NaN largest, ties: lower index). */
static int sc_better(double a, size_t ia, double b, size_t ib, int largest) {
    int na = a != a, nb = b != b;
    if (na || nb) {
        if (na && nb) return ia < ib;
        return largest ? na : nb;
    }
    if (a == b) return ia < ib;
    return largest ? a > b : a < b;
}
static void sc_naive_topk(const void* x, ak_dtype dt, size_t cols, int k, int largest, double* v, int64_t* ix) {
    char* used = (char*)calloc(cols, 1);
    int j;
    if (!used) return;
    for (j = 0; j < k; j++) {
        size_t c, best = (size_t)-1;
        for (c = 0; c < cols; c++)
            if (!used[c] && (best == (size_t)-1 || sc_better(ak_elem_get(x, dt, c), c, ak_elem_get(x, dt, best), best, largest)))
                best = c;
        used[best] = 1;
        ix[j] = (int64_t)best;
        v[j] = ak_elem_get(x, dt, best);
    }
    free(used);
}

static void test_topk(void) {
    ak_context* ctx = akt_cpu_context("sc_topk");
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    static const struct { size_t rows, cols; int k; } cs[] = { { 1, 1, 1 }, { 3, 7, 7 }, { 4, 1000, 13 },
                                                               { 2, 5000, 1024 }, { 5, 33, 8 } };
    unsigned long long st = akt_seed();
    size_t s;
    int t, lg, ties;
    if (!ctx) return;
    for (s = 0; s < sizeof cs / sizeof cs[0]; s++)
        for (t = 0; t < 3; t++)
            for (lg = 0; lg < 2; lg++)
                for (ties = 0; ties < 2; ties++) {
                    size_t rows = cs[s].rows, cols = cs[s].cols, n = rows * cols, r, c;
                    int k = cs[s].k, j, bad = 0;
                    ak_dtype dt = types[t];
                    void *x = malloc(n * 4), *v = malloc(rows * (size_t)k * 4);
                    int64_t *ix = (int64_t*)malloc(rows * (size_t)k * 8), *nix = (int64_t*)malloc((size_t)k * 8);
                    double* nv = (double*)malloc((size_t)k * 8);
                    if (!x || !v || !ix || !nix || !nv) { free(x); free(v); free(ix); free(nix); free(nv); continue; }
                    for (c = 0; c < n; c++)
                        ak_elem_set(x, dt, c, ties ? (double)(int)akt_uniform(&st, -5, 5) : akt_uniform(&st, -100, 100));
                    if (ties && cols > 3) {  /* NaN, -0, +0, inf */
                        ak_elem_set(x, dt, 1, NAN);
                        ak_elem_set(x, dt, 2, -0.0);
                        ak_elem_set(x, dt, cols - 1, INFINITY);
                    }
                    AKT_OK(ak_topk(ctx, dt, x, v, ix, rows, cols, k, lg, NULL));
                    for (r = 0; r < rows && !bad; r++) {
                        sc_naive_topk((char*)x + r * cols * ak_dtype_size(dt), dt, cols, k, lg, nv, nix);
                        for (j = 0; j < k; j++) {
                            double got = ak_elem_get(v, dt, r * (size_t)k + (size_t)j);
                            if (ix[r * (size_t)k + (size_t)j] != nix[j] || !(got == nv[j] || (got != got && nv[j] != nv[j]))) {
                                akt_fail(__FILE__, __LINE__, "%s %zux%zu k=%d largest=%d ties=%d row %zu [%d]: (%.9g, %lld) vs (%.9g, %lld)",
                                         ak_dtype_name(dt), rows, cols, k, lg, ties, r, j, got,
                                         (long long)ix[r * (size_t)k + (size_t)j], nv[j], (long long)nix[j]);
                                bad = 1;
                                break;
                            }
                        }
                    }
                    free(x); free(v); free(ix); free(nix); free(nv);
                }
    ak_context_destroy(ctx);
}

/* ak_scan against a naive loop: sums and products, exclusive, reversed (walked from the end), masked */
static void test_scan_general(void) {
    ak_context* ctx = akt_cpu_context("ops_scan_general");
    unsigned long long st = akt_seed() ^ 0x5CA9ull;
    static const ak_dtype types[5] = { AK_F32, AK_F16, AK_BF16, AK_I32, AK_I64 };
    int trial;
    if (!ctx) return;
    for (trial = 0; trial < 80; trial++) {
        ak_dtype t = types[trial % 5];
        ak_scan_op op = (ak_scan_op)(trial / 5 % 2);
        unsigned flags = (unsigned)(trial / 10 % 4);
        int masked = trial / 40 % 2, isint = t == AK_I32 || t == AK_I64;
        size_t rows = 1 + (size_t)akt_uniform(&st, 0, 4), cols = 1 + (size_t)akt_uniform(&st, 0, 60), n = rows * cols, r, c, bad = 0;
        void *x = malloc(n * 8), *y = malloc(n * 8);
        uint8_t* m = (uint8_t*)malloc(n);
        if (!x || !y || !m) { free(x); free(y); free(m); continue; }
        for (c = 0; c < n; c++) {
            ak_elem_set(x, t, c, isint ? (double)(int)akt_uniform(&st, -3, 4) : akt_uniform(&st, 0.5, 1.5));
            m[c] = (uint8_t)(akt_uniform(&st, 0, 1) < 0.6);
        }
        AKT_OK(ak_scan(ctx, op, t, x, masked ? m : NULL, y, rows, cols, flags, NULL));
        for (r = 0; r < rows; r++) {
            uint64_t acc = op == AK_SCAN_PROD ? 1u : 0u, wanti = 0;
            double accd = op == AK_SCAN_PROD ? 1.0 : 0.0, want = 0.0;
            size_t k;
            /* walk in scan order; integers wrap (unsigned arithmetic) */
            for (k = 0; k < cols; k++) {
                size_t col = (flags & AK_SCAN_REVERSE) ? cols - 1 - k : k, e = r * cols + col;
                double v = (masked && !m[e]) ? 0.0 : ak_elem_get(x, t, e);
                uint64_t vi = (uint64_t)(int64_t)v;
                int ok;
                if (flags & AK_SCAN_EXCLUSIVE) { want = accd; wanti = acc; }
                if (op == AK_SCAN_PROD) { acc *= vi; accd *= v; } else { acc += vi; accd += v; }
                if (!(flags & AK_SCAN_EXCLUSIVE)) { want = accd; wanti = acc; }
                if (t == AK_I32) ok = ((int32_t*)y)[e] == (int32_t)(uint32_t)wanti;
                else if (t == AK_I64) ok = ((int64_t*)y)[e] == (int64_t)wanti;
                else ok = fabs(ak_elem_get(y, t, e) - want) <= (t == AK_F32 ? 1e-5 : 1e-2) * (1 + fabs(want));
                if (!ok && !bad++)
                    akt_fail(__FILE__, __LINE__, "scan %s %s flags %u mask %d: [%zu,%zu] %g vs %g", op ? "prod" : "sum",
                             ak_dtype_name(t), flags, masked, r, col, ak_elem_get(y, t, e), isint ? (double)(int64_t)wanti : want);
            }
        }
        free(x); free(y); free(m);
    }
    {
        float xs[8], ys[8];
        memset(xs, 0, sizeof xs);
        AKT_ERR_ITEM(ak_scan(ctx, AK_SCAN_OP_COUNT, AK_F32, xs, NULL, ys, 1, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
        AKT_ERR_ITEM(ak_scan(ctx, AK_SCAN_SUM, AK_F32, xs, NULL, ys, 1, 8, 4u, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
        AKT_ERR_ITEM(ak_scan(ctx, AK_SCAN_SUM, AK_F32, xs, (const uint8_t*)ys, ys, 1, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    }
    ak_context_destroy(ctx);
}

static void test_scan_errors(void) {
    ak_context* ctx = akt_cpu_context("sc_err");
    float x[64], v[64];
    int64_t ix[64];
    if (!ctx) return;
    memset(x, 0, sizeof x);
    AKT_ERR_ITEM(ak_cumsum(NULL, AK_F32, x, v, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cumsum(ctx, AK_U8, x, v, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_cumsum(ctx, AK_F32, NULL, v, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cumsum(ctx, AK_F32, x, NULL, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cumsum(ctx, AK_F32, x, v, 0, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_cumsum(ctx, AK_F32, x, v, 2, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_cumsum(ctx, AK_F32, x, x + 1, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_cumsum(ctx, AK_I64, (char*)x + 4, v, 2, 2, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_cumsum(ctx, AK_F32, x, v, SIZE_MAX, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ERR_ITEM(ak_topk(NULL, AK_F32, x, v, ix, 2, 8, 2, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_topk(ctx, AK_I32, x, v, ix, 2, 8, 2, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_topk(ctx, AK_F32, x, v, ix, 2, 8, 0, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_topk(ctx, AK_F32, x, v, ix, 2, 8, 9, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_topk(ctx, AK_F32, x, v, ix, 1, 2000, 1025, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_topk(ctx, AK_F32, x, NULL, ix, 2, 8, 2, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_topk(ctx, AK_F32, x, v, NULL, 2, 8, 2, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_topk(ctx, AK_F32, x, v, (int64_t*)((char*)ix + 4), 2, 8, 2, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_topk(ctx, AK_F32, x, x + 4, ix, 2, 8, 2, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_topk(ctx, AK_F32, x, v, (int64_t*)v, 2, 8, 2, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    ak_context_destroy(ctx);
}

void akt_suite_ops_scan(void) {
    AKT_RUN(test_cumsum_float);
    AKT_RUN(test_cumsum_int);
    AKT_RUN(test_topk);
    AKT_RUN(test_scan_general);
    AKT_RUN(test_scan_errors);
}
