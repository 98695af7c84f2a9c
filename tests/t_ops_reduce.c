/* Suite ops_reduce: reductions, softmax / log_softmax, layernorm / rmsnorm
 * and cross-entropy on the cpu backend (their C references) against naive
 * double computations written here, on fresh random data (never zeros), odd
 * shapes, all three dtypes; NaN / tie / -inf semantics; every validation
 * error. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype rd_types[3] = { AK_F32, AK_F16, AK_BF16 };
/* rows x cols shapes: odd sizes, whole-tensor (rows 1), one column, many rows */
static const size_t rd_shapes[][2] = { { 1, 1 }, { 1, 7 }, { 1, 1023 }, { 1, 4097 }, { 7, 1023 }, { 3, 4097 },
                                       { 5, 1 }, { 33, 8 } };
#define RD_NSHAPES (sizeof rd_shapes / sizeof rd_shapes[0])
#define RD_GUARD 16 /* bytes past the end that must stay untouched */

static void* rd_alloc(ak_context* ctx, size_t bytes) {
    void* p = NULL;
    if (ak_malloc(ctx, bytes + RD_GUARD, NULL, &p) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "ak_malloc: %s", ak_last_error());
        return NULL;
    }
    memset(p, 0xA5, bytes + RD_GUARD);
    return p;
}
static int rd_guard_ok(const void* p, size_t bytes) {
    const unsigned char* b = (const unsigned char*)p + bytes;
    size_t i;
    for (i = 0; i < RD_GUARD; i++)
        if (b[i] != 0xA5) return 0;
    return 1;
}
/* Random values in [lo, hi), |v| >= 1/16, stored as t. */
static void rd_random(void* p, ak_dtype t, size_t n, unsigned long long* st, double lo, double hi) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(st, lo, hi);
        if (fabs(v) < 0.0625) v = v < 0 ? -0.0625 - fabs(v) : 0.0625 + v;
        ak_elem_set(p, t, i, v);
    }
}
/* Tolerance of a value rounded to dtype t. */
static double rd_rtol(ak_dtype t) { return t == AK_F32 ? 4e-6 : t == AK_F16 ? 1.5e-3 : 9e-3; }
static double rd_atol(ak_dtype t) { return t == AK_F32 ? 1e-6 : 2e-5; }

static int rd_is_nan(double v) { return v != v; }

/* ---- reductions ---------------------------------------------------------- */

/* Naive reduction of row r (stored values read back as double). */
static double nv_reduce(ak_reduce_op op, const void* x, ak_dtype t, size_t cols, size_t r, double* abs_sum) {
    size_t c;
    double acc = 0.0, best = 0.0;
    long long bi = -1;
    *abs_sum = 0.0;
    for (c = 0; c < cols; c++) {
        double v = ak_elem_get(x, t, r * cols + c);
        *abs_sum += fabs(v);
        acc += v;
        if (bi < 0) { best = v; bi = (long long)c; continue; }
        if (rd_is_nan(best)) continue;
        if (rd_is_nan(v)) { best = v; bi = (long long)c; continue; }
        if ((op == AK_REDUCE_MAX || op == AK_REDUCE_ARGMAX) && v > best) { best = v; bi = (long long)c; }
        if ((op == AK_REDUCE_MIN || op == AK_REDUCE_ARGMIN) && v < best) { best = v; bi = (long long)c; }
    }
    switch (op) {
    case AK_REDUCE_SUM: return acc;
    case AK_REDUCE_MEAN: *abs_sum /= (double)cols; return acc / (double)cols;
    case AK_REDUCE_MAX: case AK_REDUCE_MIN: return best;
    default: return (double)bi;
    }
}

static void rd_check_reduce(ak_context* ctx, ak_reduce_op op, ak_dtype t, const void* x, size_t rows, size_t cols) {
    int arg = op == AK_REDUCE_ARGMAX || op == AK_REDUCE_ARGMIN;
    size_t ob = rows * (arg ? 8u : 4u), r, bad = 0;
    void* out = rd_alloc(ctx, ob);
    if (!out) return;
    AKT_OK(ak_reduce(ctx, op, t, x, out, rows, cols, NULL));
    for (r = 0; r < rows; r++) {
        double as, e = nv_reduce(op, x, t, cols, r, &as);
        double got = arg ? (double)((int64_t*)out)[r] : (double)((float*)out)[r];
        double tol = arg ? 0.0 : (op == AK_REDUCE_SUM || op == AK_REDUCE_MEAN) ? 1e-6 * as + 1e-6 : 0.0;
        int ok = rd_is_nan(e) ? rd_is_nan(got) : fabs(got - e) <= tol;
        if (!ok && bad++ < 3)
            akt_fail(__FILE__, __LINE__, "reduce %s %s %zux%zu row %zu: %.9g, expected %.9g", ak_reduce_op_name(op),
                     ak_dtype_name(t), rows, cols, r, got, e);
    }
    AKT_CHECKF(rd_guard_ok(out, ob), "reduce %s: wrote past the end", ak_reduce_op_name(op));
    ak_free(ctx, out);
}

static void test_reduce_values(void) {
    ak_context* ctx = akt_cpu_context("rd_reduce");
    unsigned long long st = akt_seed() ^ 0x2001;
    size_t ti, si;
    int op;
    if (!ctx) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < RD_NSHAPES; si++) {
            ak_dtype t = rd_types[ti];
            size_t rows = rd_shapes[si][0], cols = rd_shapes[si][1];
            void* x = rd_alloc(ctx, rows * cols * ak_dtype_size(t));
            if (!x) continue;
            rd_random(x, t, rows * cols, &st, -4.0, 4.0);
            for (op = 0; op < (int)AK_REDUCE_OP_COUNT; op++) rd_check_reduce(ctx, (ak_reduce_op)op, t, x, rows, cols);
            ak_free(ctx, x);
        }
    ak_context_destroy(ctx);
}

/* Ties go to the first index; NaN wins max/min/argmax/argmin; -inf / +inf work. */
static void test_reduce_semantics(void) {
    ak_context* ctx = akt_cpu_context("rd_sem");
    float x[8], outf[2];
    int64_t outi[2];
    size_t ti;
    if (!ctx) return;
    x[0] = 1.0f; x[1] = 5.0f; x[2] = -2.0f; x[3] = 5.0f; x[4] = -2.0f; x[5] = 0.5f; x[6] = 5.0f; x[7] = -1.0f;
    AKT_OK(ak_reduce(ctx, AK_REDUCE_ARGMAX, AK_F32, x, outi, 1, 8, NULL));
    AKT_EQ_INT(outi[0], 1);
    AKT_OK(ak_reduce(ctx, AK_REDUCE_ARGMIN, AK_F32, x, outi, 1, 8, NULL));
    AKT_EQ_INT(outi[0], 2);
    /* two rows of 4: per-row indices */
    AKT_OK(ak_reduce(ctx, AK_REDUCE_ARGMAX, AK_F32, x, outi, 2, 4, NULL));
    AKT_EQ_INT(outi[0], 1);
    AKT_EQ_INT(outi[1], 2);
    AKT_OK(ak_reduce(ctx, AK_REDUCE_MEAN, AK_F32, x, outf, 2, 4, NULL));
    AKT_NEAR(outf[0], 9.0 / 4.0, 1e-6);
    AKT_NEAR(outf[1], 2.5 / 4.0, 1e-6);
    /* NaN */
    x[5] = NAN;
    x[7] = NAN;
    AKT_OK(ak_reduce(ctx, AK_REDUCE_MAX, AK_F32, x, outf, 1, 8, NULL));
    AKT_CHECK(rd_is_nan(outf[0]));
    AKT_OK(ak_reduce(ctx, AK_REDUCE_MIN, AK_F32, x, outf, 1, 8, NULL));
    AKT_CHECK(rd_is_nan(outf[0]));
    AKT_OK(ak_reduce(ctx, AK_REDUCE_ARGMAX, AK_F32, x, outi, 1, 8, NULL));
    AKT_EQ_INT(outi[0], 5);
    AKT_OK(ak_reduce(ctx, AK_REDUCE_ARGMIN, AK_F32, x, outi, 1, 8, NULL));
    AKT_EQ_INT(outi[0], 5);
    AKT_OK(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, x, outf, 1, 8, NULL));
    AKT_CHECK(rd_is_nan(outf[0]));
    /* infinities */
    x[5] = -INFINITY;
    x[7] = INFINITY;
    AKT_OK(ak_reduce(ctx, AK_REDUCE_MAX, AK_F32, x, outf, 1, 8, NULL));
    AKT_CHECK(isinf(outf[0]) && outf[0] > 0);
    AKT_OK(ak_reduce(ctx, AK_REDUCE_ARGMIN, AK_F32, x, outi, 1, 8, NULL));
    AKT_EQ_INT(outi[0], 5);
    /* all -inf: max -inf, argmax 0 */
    for (ti = 0; ti < 8; ti++) x[ti] = -INFINITY;
    AKT_OK(ak_reduce(ctx, AK_REDUCE_MAX, AK_F32, x, outf, 1, 8, NULL));
    AKT_CHECK(isinf(outf[0]) && outf[0] < 0);
    AKT_OK(ak_reduce(ctx, AK_REDUCE_ARGMAX, AK_F32, x, outi, 1, 8, NULL));
    AKT_EQ_INT(outi[0], 0);
    /* the same through half storage */
    for (ti = 1; ti < 3; ti++) {
        uint16_t h[4];
        ak_dtype t = rd_types[ti];
        ak_elem_set(h, t, 0, 3.0);
        ak_elem_set(h, t, 1, 7.0);
        ak_elem_set(h, t, 2, 7.0);
        ak_elem_set(h, t, 3, -9.0);
        AKT_OK(ak_reduce(ctx, AK_REDUCE_ARGMAX, t, h, outi, 1, 4, NULL));
        AKT_EQ_INT(outi[0], 1);
        AKT_OK(ak_reduce(ctx, AK_REDUCE_MIN, t, h, outf, 1, 4, NULL));
        AKT_NEAR(outf[0], -9.0, 0.0);
    }
    AKT_EQ_STR(ak_reduce_op_name(AK_REDUCE_ARGMAX), "argmax");
    AKT_EQ_STR(ak_reduce_op_name((ak_reduce_op)99), "?");
    ak_context_destroy(ctx);
}

static void test_reduce_errors(void) {
    ak_context* ctx = akt_cpu_context("rd_err");
    ak_context* other = akt_cpu_context("rd_err2");
    ak_stream* s = NULL;
    float* x;
    int64_t* oi;
    unsigned long long rs = akt_seed();
    if (!ctx || !other) { ak_context_destroy(ctx); ak_context_destroy(other); return; }
    x = (float*)rd_alloc(ctx, 64 * 4);
    oi = (int64_t*)rd_alloc(ctx, 8 * 8);
    if (!x || !oi) return;
    rd_random(x, AK_F32, 64, &rs, -1, 1);
    AKT_ERR_ITEM(ak_reduce(NULL, AK_REDUCE_SUM, AK_F32, x, oi, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_reduce(ctx, (ak_reduce_op)-1, AK_F32, x, oi, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_reduce(ctx, AK_REDUCE_OP_COUNT, AK_F32, x, oi, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F64, x, oi, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "f64");
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_I32, x, oi, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, (ak_dtype)77, x, oi, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, NULL, oi, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "x");
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, x, NULL, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "out");
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, (char*)x + 2, oi, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ITEM(AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F16, (char*)x + 1, oi, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    /* argmax writes int64: 8-byte alignment; value ops write floats: 4 */
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_ARGMAX, AK_F32, x, (char*)oi + 4, 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_OK(ak_reduce(ctx, AK_REDUCE_MAX, AK_F32, x, (char*)oi + 4, 1, 8, NULL));
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, x, oi, 0, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_CONTAINS(ak_last_error(), "zero");
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, x, oi, 1, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, x, oi, SIZE_MAX / 2, 3, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ITEM(AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, x, oi, (size_t)1 << 62, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    /* out inside x */
    AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, x, x + 8, 4, 16, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    /* a stream of another context */
    if (ak_stream_create(other, "s", 0, &s) == AK_OK) {
        AKT_ERR_ITEM(ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, x, oi, 1, 8, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);
        ak_stream_destroy(s);
    }
    /* state intact: a good call still works */
    AKT_OK(ak_reduce(ctx, AK_REDUCE_ARGMAX, AK_F32, x, oi, 8, 8, NULL));
    ak_free(ctx, x);
    ak_free(ctx, oi);
    ak_context_destroy(ctx);
    ak_context_destroy(other);
}

/* ---- softmax ------------------------------------------------------------- */

/* Naive: p = exp(x) / sum exp(x) computed through log-sum-exp around the row mean. */
static void nv_softmax_row(const void* x, ak_dtype t, size_t cols, size_t r, int logsm, double* out) {
    size_t c;
    double mean = 0.0, s = 0.0, lse;
    for (c = 0; c < cols; c++) mean += ak_elem_get(x, t, r * cols + c);
    mean /= (double)cols;
    for (c = 0; c < cols; c++) s += exp(ak_elem_get(x, t, r * cols + c) - mean);
    lse = mean + log(s);
    for (c = 0; c < cols; c++) {
        double v = ak_elem_get(x, t, r * cols + c) - lse;
        out[c] = logsm ? v : exp(v);
    }
}

static void rd_check_softmax(ak_context* ctx, ak_dtype t, const void* x, size_t rows, size_t cols, int logsm,
                             int inplace) {
    size_t es = ak_dtype_size(t), n = rows * cols, r, c, bad = 0;
    void* y = rd_alloc(ctx, n * es);
    double* e = (double*)malloc(cols * sizeof(double));
    if (!y || !e) { free(e); return; }
    if (inplace) memcpy(y, x, n * es);
    AKT_OK(ak_softmax(ctx, t, inplace ? y : x, y, rows, cols, logsm, NULL));
    for (r = 0; r < rows; r++) {
        double rowsum = 0.0;
        nv_softmax_row(x, t, cols, r, logsm, e);
        for (c = 0; c < cols; c++) {
            double got = ak_elem_get(y, t, r * cols + c);
            rowsum += got;
            if (!(fabs(got - e[c]) <= rd_atol(t) + rd_rtol(t) * fabs(e[c])) && bad++ < 3)
                akt_fail(__FILE__, __LINE__, "%s %s %zux%zu%s [%zu,%zu] = %.9g, expected %.9g",
                         logsm ? "log_softmax" : "softmax", ak_dtype_name(t), rows, cols, inplace ? " in place" : "", r,
                         c, got, e[c]);
        }
        if (!logsm && t == AK_F32) AKT_NEAR(rowsum, 1.0, 1e-5 + 1e-6 * (double)cols);
    }
    AKT_CHECKF(rd_guard_ok(y, n * es), "softmax: wrote past the end");
    free(e);
    ak_free(ctx, y);
}

static void test_softmax_values(void) {
    ak_context* ctx = akt_cpu_context("rd_softmax");
    unsigned long long st = akt_seed() ^ 0x3001;
    size_t ti, si;
    if (!ctx) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < RD_NSHAPES; si++) {
            ak_dtype t = rd_types[ti];
            size_t rows = rd_shapes[si][0], cols = rd_shapes[si][1];
            void* x = rd_alloc(ctx, rows * cols * ak_dtype_size(t));
            if (!x) continue;
            rd_random(x, t, rows * cols, &st, -6.0, 6.0);
            rd_check_softmax(ctx, t, x, rows, cols, 0, 0);
            rd_check_softmax(ctx, t, x, rows, cols, 1, 0);
            rd_check_softmax(ctx, t, x, rows, cols, (int)(si & 1), 1);
            ak_free(ctx, x);
        }
    ak_context_destroy(ctx);
}

/* Large logits (no overflow thanks to the max shift), -inf entries -> 0, NaN -> NaN row. */
static void test_softmax_semantics(void) {
    ak_context* ctx = akt_cpu_context("rd_softmax_sem");
    float x[8] = { 1000.0f, 999.0f, -INFINITY, 998.0f, 5.0f, 6.0f, 7.0f, 8.0f }, y[8];
    double s = exp(0.0) + exp(-1.0) + exp(-2.0);
    if (!ctx) return;
    AKT_OK(ak_softmax(ctx, AK_F32, x, y, 2, 4, 0, NULL));
    AKT_NEAR(y[0], 1.0 / s, 1e-6);
    AKT_NEAR(y[1], exp(-1.0) / s, 1e-6);
    AKT_NEAR(y[2], 0.0, 0.0);
    AKT_NEAR(y[3], exp(-2.0) / s, 1e-6);
    AKT_OK(ak_softmax(ctx, AK_F32, x, y, 2, 4, 1, NULL));
    AKT_NEAR(y[0], -log(s), 1e-5);
    AKT_CHECK(isinf(y[2]) && y[2] < 0);
    AKT_NEAR(y[7], -log(1.0 + exp(-1.0) + exp(-2.0) + exp(-3.0)), 1e-5);
    x[5] = NAN;
    AKT_OK(ak_softmax(ctx, AK_F32, x, y, 2, 4, 0, NULL));
    AKT_CHECK(!rd_is_nan(y[0]) && rd_is_nan(y[4]) && rd_is_nan(y[7]));
    ak_context_destroy(ctx);
}

static void test_softmax_errors(void) {
    ak_context* ctx = akt_cpu_context("rd_softmax_err");
    float* x;
    unsigned long long rs = akt_seed() + 1;
    if (!ctx) return;
    x = (float*)rd_alloc(ctx, 64 * 4);
    if (!x) return;
    rd_random(x, AK_F32, 64, &rs, -1, 1);
    AKT_ERR_ITEM(ak_softmax(NULL, AK_F32, x, x, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_softmax(ctx, AK_I64, x, x, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_softmax(ctx, AK_F32, NULL, x, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_softmax(ctx, AK_F32, x, NULL, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "y");
    AKT_ERR_ITEM(ak_softmax(ctx, AK_F32, x, (char*)x + 130, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_softmax(ctx, AK_BF16, (char*)x + 3, x + 32, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_softmax(ctx, AK_F32, x, x, 0, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_softmax(ctx, AK_F32, x, x, 2, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_softmax(ctx, AK_F32, x, x, SIZE_MAX, SIZE_MAX, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    /* partial overlap (y shifted by one row) is refused; y == x is fine */
    AKT_ERR_ITEM(ak_softmax(ctx, AK_F32, x, x + 8, 2, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_OK(ak_softmax(ctx, AK_F32, x, x, 2, 8, 0, NULL));
    ak_free(ctx, x);
    ak_context_destroy(ctx);
}

/* ---- layernorm / rmsnorm --------------------------------------------------- */

static void nv_norm_row(const void* x, const void* w, const void* b, ak_dtype t, size_t cols, size_t r, double eps,
                        int rms, double* out) {
    size_t c;
    double s = 0.0, sq = 0.0, mean, var;
    for (c = 0; c < cols; c++) {
        double v = ak_elem_get(x, t, r * cols + c);
        s += v;
        sq += v * v;
    }
    mean = rms ? 0.0 : s / (double)cols;
    var = rms ? sq / (double)cols : sq / (double)cols - mean * mean; /* fine in double for these data */
    for (c = 0; c < cols; c++) {
        double v = (ak_elem_get(x, t, r * cols + c) - mean) / sqrt(var + eps);
        if (w) v *= ak_elem_get(w, t, c);
        if (b) v += ak_elem_get(b, t, c);
        out[c] = v;
    }
}

static void rd_check_norm(ak_context* ctx, ak_dtype t, const void* x, const void* w, const void* b, size_t rows,
                          size_t cols, float eps, int rms, int inplace) {
    size_t es = ak_dtype_size(t), n = rows * cols, r, c, bad = 0;
    void* y = rd_alloc(ctx, n * es);
    double* e = (double*)malloc(cols * sizeof(double));
    if (!y || !e) { free(e); return; }
    if (inplace) memcpy(y, x, n * es);
    if (rms) AKT_OK(ak_rmsnorm(ctx, t, inplace ? y : x, w, y, rows, cols, eps, NULL));
    else AKT_OK(ak_layernorm(ctx, t, inplace ? y : x, w, b, y, rows, cols, eps, NULL));
    for (r = 0; r < rows; r++) {
        nv_norm_row(x, w, rms ? NULL : b, t, cols, r, (double)eps, rms, e);
        for (c = 0; c < cols; c++) {
            double got = ak_elem_get(y, t, r * cols + c);
            /* the normalized value is rounded to t before the affine step only in
             * the sense of one fp32 op chain: allow a few ulps of t */
            int ok = rd_is_nan(e[c]) ? rd_is_nan(got) : fabs(got - e[c]) <= 4 * rd_atol(t) + 2 * rd_rtol(t) * fabs(e[c]);
            if (!ok && bad++ < 3)
                akt_fail(__FILE__, __LINE__, "%s %s %zux%zu w=%d b=%d eps=%g [%zu,%zu] = %.9g, expected %.9g",
                         rms ? "rmsnorm" : "layernorm", ak_dtype_name(t), rows, cols, w != NULL, b != NULL,
                         (double)eps, r, c, got, e[c]);
        }
    }
    AKT_CHECKF(rd_guard_ok(y, n * es), "norm: wrote past the end");
    free(e);
    ak_free(ctx, y);
}

static void test_norm_values(void) {
    ak_context* ctx = akt_cpu_context("rd_norm");
    unsigned long long st = akt_seed() ^ 0x4001;
    size_t ti, si;
    if (!ctx) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < RD_NSHAPES; si++) {
            ak_dtype t = rd_types[ti];
            size_t rows = rd_shapes[si][0], cols = rd_shapes[si][1], es = ak_dtype_size(t);
            void* x = rd_alloc(ctx, rows * cols * es);
            void* w = rd_alloc(ctx, cols * es);
            void* b = rd_alloc(ctx, cols * es);
            if (!x || !w || !b) continue;
            rd_random(x, t, rows * cols, &st, -3.0, 5.0);
            rd_random(w, t, cols, &st, 0.5, 2.0);
            rd_random(b, t, cols, &st, -1.0, 1.0);
            rd_check_norm(ctx, t, x, w, b, rows, cols, 1e-5f, 0, 0);
            rd_check_norm(ctx, t, x, NULL, NULL, rows, cols, 1e-3f, 0, 0);
            rd_check_norm(ctx, t, x, w, NULL, rows, cols, 0.0f, 0, 1);
            rd_check_norm(ctx, t, x, NULL, b, rows, cols, 0.5f, 0, 0);
            rd_check_norm(ctx, t, x, w, NULL, rows, cols, 1e-6f, 1, 0);
            rd_check_norm(ctx, t, x, NULL, NULL, rows, cols, 1e-5f, 1, 1);
            ak_free(ctx, x);
            ak_free(ctx, w);
            ak_free(ctx, b);
        }
    ak_context_destroy(ctx);
}

/* A constant row: layernorm gives bias (var 0, eps > 0); rmsnorm of 3s with eps 0 gives 1. */
static void test_norm_semantics(void) {
    ak_context* ctx = akt_cpu_context("rd_norm_sem");
    float x[4] = { 3.0f, 3.0f, 3.0f, 3.0f }, y[4], b[4] = { 0.25f, -1.0f, 2.0f, 0.0f };
    if (!ctx) return;
    AKT_OK(ak_layernorm(ctx, AK_F32, x, NULL, b, y, 1, 4, 1e-5f, NULL));
    AKT_NEAR(y[0], 0.25, 0.0);
    AKT_NEAR(y[2], 2.0, 0.0);
    AKT_OK(ak_rmsnorm(ctx, AK_F32, x, NULL, y, 1, 4, 0.0f, NULL));
    AKT_NEAR(y[1], 1.0, 1e-6);
    ak_context_destroy(ctx);
}

static void test_norm_errors(void) {
    ak_context* ctx = akt_cpu_context("rd_norm_err");
    float* x;
    unsigned long long rs = akt_seed() + 2;
    if (!ctx) return;
    x = (float*)rd_alloc(ctx, 64 * 4);
    if (!x) return;
    rd_random(x, AK_F32, 64, &rs, -1, 1);
    AKT_ERR_ITEM(ak_layernorm(NULL, AK_F32, x, NULL, NULL, x, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_layernorm(ctx, AK_U8, x, NULL, NULL, x, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_layernorm(ctx, AK_F32, NULL, NULL, NULL, x, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_layernorm(ctx, AK_F32, x, NULL, NULL, NULL, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_layernorm(ctx, AK_F32, x, (char*)x + 130, NULL, x + 32, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_CONTAINS(ak_last_error(), "weight");
    AKT_ERR_ITEM(ak_layernorm(ctx, AK_F32, x, NULL, (char*)x + 129, x + 32, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_CONTAINS(ak_last_error(), "bias");
    AKT_ERR(ak_layernorm(ctx, AK_F32, x, NULL, NULL, x, 2, 8, -1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "eps");
    AKT_ERR(ak_layernorm(ctx, AK_F32, x, NULL, NULL, x, 2, 8, NAN, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rmsnorm(ctx, AK_F32, x, NULL, x, 2, 8, INFINITY, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_layernorm(ctx, AK_F32, x, NULL, NULL, x, 0, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_rmsnorm(ctx, AK_F32, x, NULL, x, 2, 0, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_rmsnorm(ctx, AK_F32, x, NULL, x, SIZE_MAX / 4, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ERR_ITEM(ak_layernorm(ctx, AK_F32, x, NULL, NULL, x + 1, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_rmsnorm(ctx, AK_F32, x, x + 4, x, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_OK(ak_rmsnorm(ctx, AK_F32, x, x + 32, x, 2, 8, 1e-5f, NULL));
    ak_free(ctx, x);
    ak_context_destroy(ctx);
}

/* ---- cross-entropy --------------------------------------------------------- */

static double nv_xent_row(const void* x, ak_dtype t, size_t cols, size_t r, int64_t k) {
    size_t c;
    double m = -1e300, s = 0.0;
    for (c = 0; c < cols; c++) {
        double v = ak_elem_get(x, t, r * cols + c);
        if (v > m) m = v;
    }
    for (c = 0; c < cols; c++) s += exp(ak_elem_get(x, t, r * cols + c) - m);
    /* -log(softmax[k]) */
    return -log(exp(ak_elem_get(x, t, r * cols + (size_t)k) - m) / s);
}

static void test_xent_values(void) {
    ak_context* ctx = akt_cpu_context("rd_xent");
    unsigned long long st = akt_seed() ^ 0x5001;
    size_t ti, si;
    if (!ctx) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < RD_NSHAPES; si++) {
            ak_dtype t = rd_types[ti];
            size_t rows = rd_shapes[si][0], cols = rd_shapes[si][1], r, bad = 0;
            void* x = rd_alloc(ctx, rows * cols * ak_dtype_size(t));
            int64_t* tg = (int64_t*)rd_alloc(ctx, rows * 8);
            float* loss = (float*)rd_alloc(ctx, rows * 4);
            float red[2];
            double sum = 0.0, n = 0.0;
            if (!x || !tg || !loss) continue;
            rd_random(x, t, rows * cols, &st, -5.0, 5.0);
            for (r = 0; r < rows; r++) {
                tg[r] = (int64_t)(akt_uniform(&st, 0, (double)cols));
                if (tg[r] >= (int64_t)cols) tg[r] = (int64_t)cols - 1;
                if (rows > 2 && r % 3 == 1) tg[r] = -100; /* ignored */
            }
            AKT_OK(ak_cross_entropy(ctx, t, x, tg, loss, rows, cols, -100, AK_LOSS_NONE, NULL));
            for (r = 0; r < rows; r++) {
                double e = tg[r] == -100 ? 0.0 : nv_xent_row(x, t, cols, r, tg[r]);
                if (tg[r] != -100) { sum += e; n += 1.0; }
                if (!(fabs(loss[r] - e) <= 2e-6 + 2e-6 * fabs(e)) && bad++ < 3)
                    akt_fail(__FILE__, __LINE__, "xent %s %zux%zu row %zu (target %lld): %.9g, expected %.9g",
                             ak_dtype_name(t), rows, cols, r, (long long)tg[r], (double)loss[r], e);
            }
            AKT_CHECK(rd_guard_ok(loss, rows * 4));
            AKT_OK(ak_cross_entropy(ctx, t, x, tg, red, rows, cols, -100, AK_LOSS_MEAN, NULL));
            AKT_NEAR(red[0], sum / n, 1e-5 * (1 + fabs(sum / n)));
            AKT_OK(ak_cross_entropy(ctx, t, x, tg, red, rows, cols, -100, AK_LOSS_SUM, NULL));
            AKT_NEAR(red[0], sum, 1e-5 * (1 + fabs(sum)));
            ak_free(ctx, x);
            ak_free(ctx, tg);
            ak_free(ctx, loss);
        }
    ak_context_destroy(ctx);
}

static void test_xent_semantics(void) {
    ak_context* ctx = akt_cpu_context("rd_xent_sem");
    float x[6] = { 1.0f, 2.0f, 3.0f, 0.5f, 0.5f, 0.5f }, loss[2], m;
    int64_t tg[2] = { 2, 0 };
    double e0 = -log(exp(3.0) / (exp(1.0) + exp(2.0) + exp(3.0)));
    if (!ctx) return;
    AKT_OK(ak_cross_entropy(ctx, AK_F32, x, tg, loss, 2, 3, -100, AK_LOSS_NONE, NULL));
    AKT_NEAR(loss[0], e0, 1e-6);
    AKT_NEAR(loss[1], log(3.0), 1e-6);
    /* out of range target: NaN in that row, the mean NaN, and an error naming the row */
    tg[1] = 3;
    AKT_ERR(ak_cross_entropy(ctx, AK_F32, x, tg, loss, 2, 3, -100, AK_LOSS_NONE, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "targets[1]");
    AKT_NEAR(loss[0], e0, 1e-6);
    AKT_CHECK(rd_is_nan(loss[1]));
    AKT_ERR(ak_cross_entropy(ctx, AK_F32, x, tg, &m, 2, 3, -100, AK_LOSS_MEAN, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CHECK(rd_is_nan(m));
    tg[1] = -7;
    AKT_ERR(ak_cross_entropy(ctx, AK_F32, x, tg, &m, 2, 3, -100, AK_LOSS_SUM, NULL), AK_ERROR_INVALID_ARGUMENT);
    /* the same value as ignore_index is fine */
    AKT_OK(ak_cross_entropy(ctx, AK_F32, x, tg, &m, 2, 3, -7, AK_LOSS_MEAN, NULL));
    AKT_NEAR(m, e0, 1e-6);
    AKT_OK(ak_cross_entropy(ctx, AK_F32, x, tg, loss, 2, 3, -7, AK_LOSS_NONE, NULL));
    AKT_NEAR(loss[1], 0.0, 0.0);
    /* every row ignored: mean NaN (like torch), sum 0 */
    tg[0] = -7;
    AKT_OK(ak_cross_entropy(ctx, AK_F32, x, tg, &m, 2, 3, -7, AK_LOSS_MEAN, NULL));
    AKT_CHECK(rd_is_nan(m));
    AKT_OK(ak_cross_entropy(ctx, AK_F32, x, tg, &m, 2, 3, -7, AK_LOSS_SUM, NULL));
    AKT_NEAR(m, 0.0, 0.0);
    ak_context_destroy(ctx);
}

static void test_xent_errors(void) {
    ak_context* ctx = akt_cpu_context("rd_xent_err");
    float* x;
    int64_t* tg;
    float loss[8];
    size_t i;
    unsigned long long rs = akt_seed() + 3;
    if (!ctx) return;
    x = (float*)rd_alloc(ctx, 64 * 4);
    tg = (int64_t*)rd_alloc(ctx, 16 * 8);
    if (!x || !tg) return;
    rd_random(x, AK_F32, 64, &rs, -1, 1);
    for (i = 0; i < 16; i++) tg[i] = (int64_t)(i % 8);
    AKT_ERR_ITEM(ak_cross_entropy(NULL, AK_F32, x, tg, loss, 8, 8, -100, AK_LOSS_NONE, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cross_entropy(ctx, AK_F64, x, tg, loss, 8, 8, -100, AK_LOSS_NONE, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_cross_entropy(ctx, AK_F32, NULL, tg, loss, 8, 8, -100, AK_LOSS_NONE, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cross_entropy(ctx, AK_F32, x, NULL, loss, 8, 8, -100, AK_LOSS_NONE, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "targets");
    AKT_ERR(ak_cross_entropy(ctx, AK_F32, x, (const int64_t*)((char*)tg + 4), loss, 8, 8, -100, AK_LOSS_NONE, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_cross_entropy(ctx, AK_F32, x, tg, NULL, 8, 8, -100, AK_LOSS_NONE, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "loss");
    AKT_ERR(ak_cross_entropy(ctx, AK_F32, x, tg, (float*)((char*)loss + 2), 8, 8, -100, AK_LOSS_NONE, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_cross_entropy(ctx, AK_F32, x, tg, loss, 8, 8, -100, (ak_loss_reduction)3, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "reduction");
    AKT_ERR_ITEM(ak_cross_entropy(ctx, AK_F32, x, tg, loss, 0, 8, -100, AK_LOSS_NONE, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_cross_entropy(ctx, AK_F32, x, tg, loss, 8, 0, -100, AK_LOSS_NONE, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR(ak_cross_entropy(ctx, AK_F32, x, tg, loss, SIZE_MAX / 8, 9, -100, AK_LOSS_NONE, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    /* loss written over the logits or the targets */
    AKT_ERR_ITEM(ak_cross_entropy(ctx, AK_F32, x, tg, x + 4, 8, 8, -100, AK_LOSS_NONE, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_ERR(ak_cross_entropy(ctx, AK_F32, x, tg, (float*)(tg + 3), 8, 8, -100, AK_LOSS_MEAN, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_OK(ak_cross_entropy(ctx, AK_F32, x, tg, loss, 8, 8, -100, AK_LOSS_NONE, NULL));
    ak_free(ctx, x);
    ak_free(ctx, tg);
    ak_context_destroy(ctx);
}

void akt_suite_ops_reduce(void) {
    AKT_RUN(test_reduce_values);
    AKT_RUN(test_reduce_semantics);
    AKT_RUN(test_reduce_errors);
    AKT_RUN(test_softmax_values);
    AKT_RUN(test_softmax_semantics);
    AKT_RUN(test_softmax_errors);
    AKT_RUN(test_norm_values);
    AKT_RUN(test_norm_semantics);
    AKT_RUN(test_norm_errors);
    AKT_RUN(test_xent_values);
    AKT_RUN(test_xent_semantics);
    AKT_RUN(test_xent_errors);
}
