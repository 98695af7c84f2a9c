/* Suite ops_elementwise: the element-wise ops on the cpu backend (their C
 * references) against naive double computations written here, on fresh
 * random data, odd sizes, all three dtypes; every validation error; the
 * embedded-source table. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype ew_types[3] = { AK_F32, AK_F16, AK_BF16 };
static const size_t ew_sizes[4] = { 1, 7, 1023, 4097 };
#define EW_GUARD 16 /* elements past n that must stay untouched */

/* Tolerance of a result stored in dtype t: the storage rounding dominates. */
static double ew_rtol(ak_dtype t) { return t == AK_F32 ? 2e-6 : t == AK_F16 ? 1.2e-3 : 8e-3; }
static double ew_atol(ak_dtype t) { return t == AK_F32 ? 1e-6 : 1e-5; }

/* Host buffer of n + EW_GUARD elements from ak_malloc (host memory on cpu). */
static void* ew_alloc(ak_context* ctx, ak_dtype t, size_t n) {
    void* p = NULL;
    ak_result r = ak_malloc(ctx, (n + EW_GUARD) * ak_dtype_size(t), NULL, &p);
    if (r != AK_OK) { akt_fail(__FILE__, __LINE__, "ak_malloc: %s", ak_last_error()); return NULL; }
    memset(p, 0xA5, (n + EW_GUARD) * ak_dtype_size(t));
    return p;
}
/* Random values in [lo, hi) away from zero (|v| >= 1/16), stored as t. */
static void ew_random(void* p, ak_dtype t, size_t n, unsigned long long* st, double lo, double hi) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(st, lo, hi);
        if (fabs(v) < 0.0625) v = v < 0 ? -0.0625 - fabs(v) : 0.0625 + v;
        ak_elem_set(p, t, i, v);
    }
}
static int ew_guard_ok(const void* p, ak_dtype t, size_t n) {
    const unsigned char* b = (const unsigned char*)p + n * ak_dtype_size(t);
    size_t i;
    for (i = 0; i < EW_GUARD * ak_dtype_size(t); i++)
        if (b[i] != 0xA5) return 0;
    return 1;
}
/* Compare out (dtype t) with expected doubles; report the first few misses. */
static void ew_compare(const char* what, const void* out, ak_dtype t, const double* expect, size_t n) {
    size_t i, bad = 0;
    for (i = 0; i < n; i++) {
        double got = ak_elem_get(out, t, i), e = expect[i];
        double tol = ew_atol(t) + ew_rtol(t) * fabs(e);
        if (!(fabs(got - e) <= tol)) {
            if (bad < 3)
                akt_fail(__FILE__, __LINE__, "%s %s n=%zu: [%zu] = %.9g, expected %.9g", what, ak_dtype_name(t), n, i, got, e);
            bad++;
        }
    }
    AKT_CHECKF(ew_guard_ok(out, t, n), "%s %s n=%zu: wrote past the end", what, ak_dtype_name(t), n);
}

/* Naive formulas, written independently of the library's. */
static double nv_sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x)); }
static double nv_unary(ak_unary_op op, double x, double p) {
    const double pi = 3.14159265358979323846;
    switch (op) {
    case AK_OP_NONE: return x;
    case AK_OP_RELU: return x > 0 ? x : 0.0;
    case AK_OP_LEAKY_RELU: return x > 0 ? x : p * x;
    case AK_OP_SIGMOID: return nv_sigmoid(x);
    case AK_OP_TANH: return (exp(2 * x) - 1) / (exp(2 * x) + 1);
    case AK_OP_SILU: return x * nv_sigmoid(x);
    case AK_OP_GELU: return x * 0.5 * erfc(-x / sqrt(2.0));
    case AK_OP_GELU_TANH: return 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * pow(x, 3))));
    case AK_OP_ELU: return x > 0 ? x : p * (exp(x) - 1);
    case AK_OP_SELU: return 1.0507009873554804934 * (x > 0 ? x : 1.6732632423543772848 * (exp(x) - 1));
    case AK_OP_HARDSIGMOID: return x <= -3 ? 0.0 : x >= 3 ? 1.0 : x / 6 + 0.5;
    case AK_OP_HARDTANH: return fmin(fmax(x, p), 0.0);   /* ak_unary: min(max(x, param), 0) */
    case AK_OP_SOFTPLUS: return p * x > 20 ? x : log(1 + exp(p * x)) / p;
    case AK_OP_SOFTSIGN: return x / (1 + fabs(x));
    case AK_OP_HARDSWISH: return x <= -3 ? 0.0 : x >= 3 ? x : x * (x + 3) / 6;
    case AK_OP_MISH: return x * tanh(log(1 + exp(x)));
    case AK_OP_ABS: return x < 0 ? -x : x;
    case AK_OP_SQUARE: return x * x;
    default: return 0;
    }
}

static void test_fill(void) {
    ak_context* ctx = akt_cpu_context("ew_fill");
    unsigned long long st = akt_seed() ^ 0x1111;
    int ti, si;
    if (!ctx) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < 4; si++) {
            ak_dtype t = ew_types[ti];
            size_t n = ew_sizes[si], i;
            float v = (float)akt_uniform(&st, 0.5, 3.0);
            void* y = ew_alloc(ctx, t, n);
            double* e = (double*)malloc(n * sizeof(double));
            if (!y || !e) { free(e); continue; }
            AKT_OK(ak_fill(ctx, t, y, n, v, NULL));
            for (i = 0; i < n; i++) e[i] = v;
            ew_compare("fill", y, t, e, n);
            free(e);
            ak_free(ctx, y);
        }
    ak_context_destroy(ctx);
}

static void test_copy_and_cast(void) {
    ak_context* ctx = akt_cpu_context("ew_cast");
    unsigned long long st = akt_seed() ^ 0x2222;
    int a, b, si;
    if (!ctx) return;
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++)
            for (si = 0; si < 4; si++) {
                ak_dtype ts = ew_types[a], td = ew_types[b];
                size_t n = ew_sizes[si], i;
                void* x = ew_alloc(ctx, ts, n);
                void* y = ew_alloc(ctx, td, n);
                double* e = (double*)malloc(n * sizeof(double));
                if (!x || !y || !e) { free(e); continue; }
                ew_random(x, ts, n, &st, -300.0, 300.0);
                AKT_OK(ak_cast(ctx, ts, x, td, y, n, NULL));
                for (i = 0; i < n; i++) e[i] = ak_elem_get(x, ts, i);
                ew_compare("cast", y, td, e, n);
                if (ts == td) /* identity: bit-exact, and ak_copy too */
                    AKT_CHECK(memcmp(x, y, n * ak_dtype_size(ts)) == 0);
                if (ts == td) {
                    memset(y, 0xA5, (n + EW_GUARD) * ak_dtype_size(td));
                    AKT_OK(ak_copy(ctx, ts, x, y, n, NULL));
                    AKT_CHECK(memcmp(x, y, n * ak_dtype_size(ts)) == 0);
                    AKT_CHECK(ew_guard_ok(y, td, n));
                    AKT_OK(ak_copy(ctx, ts, x, x, n, NULL)); /* same buffer: no-op */
                }
                free(e);
                ak_free(ctx, x);
                ak_free(ctx, y);
            }
    ak_context_destroy(ctx);
}

/* Rounding: f32 -> f16/bf16 is round to nearest even (exact checks on chosen values). */
static void test_cast_rounding(void) {
    ak_context* ctx = akt_cpu_context("ew_round");
    float x[4] = { 1.0f + 1.0f / 2048.0f, 1.0f + 3.0f / 2048.0f, 65520.0f, -1.0f - 1.0f / 256.0f };
    uint16_t h[4], bf[4];
    if (!ctx) return;
    AKT_OK(ak_cast(ctx, AK_F32, x, AK_F16, h, 4, NULL));
    AKT_EQ_INT(h[0], 0x3C00);   /* tie -> even (1.0) */
    AKT_EQ_INT(h[1], 0x3C02);   /* tie -> even (1 + 2/1024) */
    AKT_EQ_INT(h[2], 0x7C00);   /* overflow -> inf */
    AKT_OK(ak_cast(ctx, AK_F32, x, AK_BF16, bf, 4, NULL));
    AKT_EQ_INT(bf[3], 0xBF80);  /* -1 - 2^-8: tie -> even (-1.0) */
    ak_context_destroy(ctx);
}

static void test_axpy_scale(void) {
    ak_context* ctx = akt_cpu_context("ew_axpy");
    unsigned long long st = akt_seed() ^ 0x3333;
    int ti, si;
    if (!ctx) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < 4; si++) {
            ak_dtype t = ew_types[ti];
            size_t n = ew_sizes[si], i;
            float alpha = (float)akt_uniform(&st, -2.0, 2.0);
            void* x = ew_alloc(ctx, t, n);
            void* y = ew_alloc(ctx, t, n);
            double* e = (double*)malloc(n * sizeof(double));
            if (!x || !y || !e) { free(e); continue; }
            ew_random(x, t, n, &st, -4, 4);
            ew_random(y, t, n, &st, -4, 4);
            for (i = 0; i < n; i++) e[i] = (double)alpha * ak_elem_get(x, t, i) + ak_elem_get(y, t, i);
            AKT_OK(ak_axpy(ctx, t, x, y, n, alpha, NULL));
            ew_compare("axpy", y, t, e, n);
            for (i = 0; i < n; i++) e[i] = (double)alpha * ak_elem_get(x, t, i);
            AKT_OK(ak_scale(ctx, t, x, y, n, alpha, NULL));
            ew_compare("scale", y, t, e, n);
            /* in place: x = alpha * x, then x = 0.5 x + x */
            AKT_OK(ak_scale(ctx, t, x, x, n, alpha, NULL));
            ew_compare("scale in place", x, t, e, n);
            for (i = 0; i < n; i++) e[i] = 1.5 * ak_elem_get(x, t, i);
            AKT_OK(ak_axpy(ctx, t, x, x, n, 0.5f, NULL));
            ew_compare("axpy x == y", x, t, e, n);
            free(e);
            ak_free(ctx, x);
            ak_free(ctx, y);
        }
    ak_context_destroy(ctx);
}

static void test_binary(void) {
    ak_context* ctx = akt_cpu_context("ew_binary");
    unsigned long long st = akt_seed() ^ 0x4444;
    int ti, si, op;
    if (!ctx) return;
    for (op = 0; op < (int)AK_BINARY_OP_COUNT; op++)
        for (ti = 0; ti < 3; ti++)
            for (si = 0; si < 4; si++) {
                ak_dtype t = ew_types[ti];
                size_t n = ew_sizes[si], i;
                void* x = ew_alloc(ctx, t, n);
                void* y = ew_alloc(ctx, t, n);
                void* z = ew_alloc(ctx, t, n);
                double* e = (double*)malloc(n * sizeof(double));
                char what[64];
                if (!x || !y || !z || !e) { free(e); continue; }
                ew_random(x, t, n, &st, -4, 4);
                ew_random(y, t, n, &st, -4, 4);
                for (i = 0; i < n; i++) {
                    double a = ak_elem_get(x, t, i), b = ak_elem_get(y, t, i);
                    e[i] = op == AK_OP_ADD ? a + b : op == AK_OP_SUB ? a - b : op == AK_OP_MUL ? a * b : a / b;
                }
                snprintf(what, sizeof what, "binary %s", ak_binary_op_name((ak_binary_op)op));
                AKT_OK(ak_binary(ctx, (ak_binary_op)op, t, x, y, z, n, NULL));
                ew_compare(what, z, t, e, n);
                if (op == AK_OP_ADD) {
                    AKT_OK(ak_add(ctx, t, x, y, z, n, NULL));
                    ew_compare("ak_add", z, t, e, n);
                }
                if (op == AK_OP_MUL) {
                    AKT_OK(ak_mul(ctx, t, x, y, z, n, NULL));
                    ew_compare("ak_mul", z, t, e, n);
                }
                /* in place into x */
                AKT_OK(ak_binary(ctx, (ak_binary_op)op, t, x, y, x, n, NULL));
                ew_compare("binary in place", x, t, e, n);
                free(e);
                ak_free(ctx, x);
                ak_free(ctx, y);
                ak_free(ctx, z);
            }
    ak_context_destroy(ctx);
}

static void test_unary(void) {
    ak_context* ctx = akt_cpu_context("ew_unary");
    unsigned long long st = akt_seed() ^ 0x5555;
    int ti, si, op;
    if (!ctx) return;
    for (op = 0; op < (int)AK_UNARY_OP_COUNT; op++)
        for (ti = 0; ti < 3; ti++)
            for (si = 0; si < 4; si++) {
                ak_dtype t = ew_types[ti];
                size_t n = ew_sizes[si], i;
                float p = (float)akt_uniform(&st, 0.01, 0.3);
                void* x = ew_alloc(ctx, t, n);
                void* y = ew_alloc(ctx, t, n);
                double* e = (double*)malloc(n * sizeof(double));
                char what[64];
                if (!x || !y || !e) { free(e); continue; }
                ew_random(x, t, n, &st, -6, 6);
                for (i = 0; i < n; i++) e[i] = nv_unary((ak_unary_op)op, ak_elem_get(x, t, i), (double)p);
                snprintf(what, sizeof what, "unary %s", ak_unary_op_name((ak_unary_op)op));
                AKT_OK(ak_unary(ctx, (ak_unary_op)op, t, x, y, n, p, NULL));
                ew_compare(what, y, t, e, n);
                AKT_OK(ak_unary(ctx, (ak_unary_op)op, t, x, x, n, p, NULL));
                ew_compare("unary in place", x, t, e, n);
                free(e);
                ak_free(ctx, x);
                ak_free(ctx, y);
            }
    /* the two-parameter forms (ak_unary2) and their zero defaults */
    {
        static const float ps[][2] = { { 0.0f, 0.0f }, { -0.5f, 2.0f }, { 1.5f, 0.0f }, { 0.0f, 3.0f }, { 2.0f, 1.0f } };
        const size_t n = 1001;
        size_t i, k;
        float* x = (float*)malloc(n * sizeof(float));
        float* y = (float*)malloc(n * sizeof(float));
        if (x && y) {
            for (i = 0; i < n; i++) x[i] = (float)akt_uniform(&st, -8, 8);
            for (k = 0; k < sizeof ps / sizeof ps[0]; k++) {
                double lo = ps[k][0] == 0 && ps[k][1] == 0 ? -1.0 : ps[k][0], hi = ps[k][0] == 0 && ps[k][1] == 0 ? 1.0 : ps[k][1];
                double beta = ps[k][0] == 0 ? 1.0 : ps[k][0], thr = ps[k][1] == 0 ? 20.0 : ps[k][1];
                AKT_OK(ak_unary2(ctx, AK_OP_HARDTANH, AK_F32, x, y, n, ps[k][0], ps[k][1], NULL));
                for (i = 0; i < n; i++) AKT_NEAR(y[i], fmin(fmax(x[i], lo), hi), 0.0);
                AKT_OK(ak_unary2(ctx, AK_OP_SOFTPLUS, AK_F32, x, y, n, ps[k][0], ps[k][1], NULL));
                for (i = 0; i < n; i++) {
                    double e = beta * x[i] > thr ? x[i] : log(1 + exp(beta * x[i])) / beta;
                    AKT_NEAR(y[i], e, 2e-6 * (1 + fabs(e)));
                }
            }
            /* ak_unary's default hardtanh is [-1, 1]; a second parameter on a one-parameter op is refused */
            AKT_OK(ak_unary(ctx, AK_OP_HARDTANH, AK_F32, x, y, n, 0.0f, NULL));
            for (i = 0; i < n; i++) AKT_NEAR(y[i], x[i] < -1 ? -1.0 : x[i] > 1 ? 1.0 : x[i], 0.0);
            AKT_ERR(ak_unary2(ctx, AK_OP_ELU, AK_F32, x, y, n, 1.0f, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT);
            AKT_ERR(ak_unary2(ctx, AK_OP_SOFTPLUS, AK_F32, x, y, n, (float)NAN, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT);
            AKT_ERR(ak_unary2(ctx, AK_OP_HARDTANH, AK_F32, x, y, n, 0.0f, (float)INFINITY, NULL), AK_ERROR_INVALID_ARGUMENT);
        }
        free(x);
        free(y);
    }
    /* NaN propagates through relu (not clamped to 0) */
    {
        float x[2], y[2];
        x[0] = (float)NAN; x[1] = -1.0f;
        AKT_OK(ak_unary(ctx, AK_OP_RELU, AK_F32, x, y, 2, 0.0f, NULL));
        AKT_CHECK(y[0] != y[0]);
        AKT_CHECK(y[1] == 0.0f);
    }
    ak_context_destroy(ctx);
}

/* ak_transpose (batch 0 in the table) and ak_transpose_batched against the definition, y[b][c][r] == x[b][r][c]
 * bit for bit, the guard past y untouched; then the batched form's refusals. */
static void test_transpose(void) {
    static const size_t shapes[][3] = { { 0, 1, 1 }, { 0, 1, 7 }, { 0, 7, 1 }, { 0, 33, 65 }, { 0, 64, 32 }, { 0, 1023, 5 },
                                        { 0, 3, 4097 }, { 3, 33, 65 }, { 5, 1, 7 }, { 2, 64, 64 }, { 4, 7, 3 }, { 1, 5, 9 } };
    ak_context* ctx = akt_cpu_context("ew_transpose");
    unsigned long long st = akt_seed() ^ 0x6666;
    float x[8], y[8];
    int ti;
    size_t s;
    if (!ctx) return;
    for (ti = 0; ti < 3; ti++)
        for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            ak_dtype t = ew_types[ti];
            size_t nb = shapes[s][0], rows = shapes[s][1], cols = shapes[s][2], mat = rows * cols, n = (nb ? nb : 1) * mat, b, r, c, bad = 0;
            size_t es = ak_dtype_size(t);
            void* xb = ew_alloc(ctx, t, n);
            void* yb = ew_alloc(ctx, t, n);
            if (!xb || !yb) continue;
            ew_random(xb, t, n, &st, -100, 100);
            AKT_OK(nb ? ak_transpose_batched(ctx, t, xb, yb, nb, rows, cols, NULL) : ak_transpose(ctx, t, xb, yb, rows, cols, NULL));
            for (b = 0; b < (nb ? nb : 1); b++)
                for (r = 0; r < rows; r++)
                    for (c = 0; c < cols; c++)
                        if (memcmp((char*)yb + (b * mat + c * rows + r) * es, (char*)xb + (b * mat + r * cols + c) * es, es)) bad++;
            AKT_CHECKF(bad == 0, "transpose %s %zu x %zux%zu: %zu elements wrong", ak_dtype_name(t), nb, rows, cols, bad);
            AKT_CHECK(ew_guard_ok(yb, t, n));
            ak_free(ctx, xb);
            ak_free(ctx, yb);
        }
    AKT_ERR_ITEM(ak_transpose_batched(ctx, AK_F32, x, y, 0, 2, 4, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_CONTAINS(ak_last_error(), "ak_transpose_batched");
    AKT_ERR_ITEM(ak_transpose_batched(ctx, AK_F32, x, y, 2, 0, 4, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_transpose_batched(ctx, AK_F32, x, y, (size_t)1 << 40, (size_t)1 << 20, (size_t)1 << 20, NULL), AK_ERROR_INVALID_ARGUMENT,
                 AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ERR_ITEM(ak_transpose_batched(ctx, AK_F32, x, x + 1, 1, 2, 3, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_transpose_batched(ctx, AK_I32, x, y, 2, 2, 2, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_transpose_batched(NULL, AK_F32, x, y, 2, 2, 2, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ak_context_destroy(ctx);
}

/* Every validation error: right code, a message naming the op, output untouched. */
static void test_errors(void) {
    ak_context* ctx = akt_cpu_context("ew_errors");
    float* x;
    float* y;
    float snap[64];
    const size_t huge = (size_t)-1 / 2;
    unsigned long long st = akt_seed() ^ 0x7777;
    if (!ctx) return;
    x = (float*)ew_alloc(ctx, AK_F32, 64);
    y = (float*)ew_alloc(ctx, AK_F32, 64);
    if (!x || !y) return;
    ew_random(x, AK_F32, 64, &st, -1, 1);
    memcpy(snap, y, sizeof snap);

    /* NULL context */
    AKT_ERR_ITEM(ak_fill(NULL, AK_F32, y, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "ak_fill");
    AKT_ERR_ITEM(ak_copy(NULL, AK_F32, x, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cast(NULL, AK_F32, x, AK_F16, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_axpy(NULL, AK_F32, x, y, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_scale(NULL, AK_F32, x, y, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_binary(NULL, AK_OP_ADD, AK_F32, x, x, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_unary(NULL, AK_OP_RELU, AK_F32, x, y, 8, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_transpose(NULL, AK_F32, x, y, 2, 4, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "ak_transpose");

    /* NULL pointers */
    AKT_ERR_ITEM(ak_fill(ctx, AK_F32, NULL, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ITEM(AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_copy(ctx, AK_F32, NULL, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_copy(ctx, AK_F32, x, NULL, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cast(ctx, AK_F32, NULL, AK_F16, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cast(ctx, AK_F32, x, AK_F16, NULL, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_axpy(ctx, AK_F32, NULL, y, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_axpy(ctx, AK_F32, x, NULL, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_scale(ctx, AK_F32, x, NULL, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_binary(ctx, AK_OP_MUL, AK_F32, NULL, x, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_binary(ctx, AK_OP_MUL, AK_F32, x, NULL, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_binary(ctx, AK_OP_MUL, AK_F32, x, x, NULL, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_unary(ctx, AK_OP_GELU, AK_F32, NULL, y, 8, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_transpose(ctx, AK_F32, x, NULL, 2, 4, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);

    /* bad dtypes */
    AKT_ERR_ITEM(ak_fill(ctx, AK_F64, y, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "f64");
    AKT_ERR_ITEM(ak_fill(ctx, (ak_dtype)99, y, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_copy(ctx, AK_I32, x, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_cast(ctx, AK_F32, x, AK_I64, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_cast(ctx, AK_U8, x, AK_F32, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_axpy(ctx, AK_FP8_E4M3, x, y, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_unary(ctx, AK_OP_TANH, (ak_dtype)-1, x, y, 8, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_transpose(ctx, AK_I32, x, y, 2, 4, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);

    /* zero sizes */
    AKT_ERR_ITEM(ak_fill(ctx, AK_F32, y, 0, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_CONTAINS(ak_last_error(), "0");
    AKT_ERR_ITEM(ak_cast(ctx, AK_F32, x, AK_BF16, y, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_binary(ctx, AK_OP_ADD, AK_F16, x, x, y, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_transpose(ctx, AK_F32, x, y, 0, 4, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_transpose(ctx, AK_F32, x, y, 4, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);

    /* huge sizes: overflow of the byte count */
    AKT_ERR_ITEM(ak_fill(ctx, AK_F32, y, huge, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ITEM(AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ERR_ITEM(ak_scale(ctx, AK_F16, x, y, (size_t)-1, 2.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ERR_ITEM(ak_cast(ctx, AK_F16, x, AK_F32, y, huge / 2 + 7, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ERR_ITEM(ak_transpose(ctx, AK_F32, x, y, huge, 4, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ERR_ITEM(ak_transpose(ctx, AK_F32, x, y, (size_t)1 << 40, (size_t)1 << 40, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);

    /* misaligned pointers (one byte off for the element size) */
    AKT_ERR_ITEM(ak_fill(ctx, AK_F32, (char*)y + 1, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ITEM(AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_copy(ctx, AK_F16, (char*)x + 1, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_cast(ctx, AK_F16, x, AK_F32, (char*)y + 2, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_axpy(ctx, AK_F32, (char*)x + 2, y, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_binary(ctx, AK_OP_DIV, AK_BF16, x, (char*)x + 1, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_unary(ctx, AK_OP_SILU, AK_F32, x, (char*)y + 3, 8, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_transpose(ctx, AK_F32, (char*)x + 1, y, 2, 4, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    /* 2-byte aligned is fine for halves (scalar path) */
    AKT_OK(ak_copy(ctx, AK_F16, (char*)x + 2, (char*)y + 34, 5, NULL));
    memcpy(y, snap, sizeof snap);

    /* bad ops */
    AKT_ERR_ITEM(ak_binary(ctx, (ak_binary_op)99, AK_F32, x, x, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_CONTAINS(ak_last_error(), "op");
    AKT_ERR_ITEM(ak_binary(ctx, (ak_binary_op)-1, AK_F32, x, x, y, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_unary(ctx, AK_UNARY_OP_COUNT, AK_F32, x, y, 8, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_EQ_STR(ak_unary_op_name((ak_unary_op)42), "?");
    AKT_EQ_STR(ak_unary_op_name(AK_OP_GELU_TANH), "gelu_tanh");
    AKT_EQ_STR(ak_binary_op_name(AK_OP_DIV), "div");

    /* overlapping (but not identical) buffers; mismatched sizes of one buffer */
    AKT_ERR_ITEM(ak_copy(ctx, AK_F32, x, x + 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_cast(ctx, AK_F32, x, AK_F16, x, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_unary(ctx, AK_OP_RELU, AK_F32, x + 2, x, 8, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_binary(ctx, AK_OP_ADD, AK_F32, x, y, x + 1, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_axpy(ctx, AK_F32, y + 4, y, 8, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_transpose(ctx, AK_F32, x, x, 2, 4, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);

    /* nothing was written by any failing call */
    AKT_CHECK(memcmp(y, snap, sizeof snap) == 0);
    AKT_CHECK(ew_guard_ok(y, AK_F32, 64));

    /* a stream of another context */
    {
        ak_context* other = akt_cpu_context("ew_errors2");
        ak_stream* s = NULL;
        if (other && ak_stream_create(other, "other", 0, &s) == AK_OK) {
            AKT_ERR_ITEM(ak_fill(ctx, AK_F32, y, 8, 1.0f, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);
            AKT_CONTAINS(ak_last_error(), "stream");
            AKT_OK(ak_fill(other, AK_F32, y, 8, 1.0f, s));
            AKT_OK(ak_stream_synchronize(other, s));
            AKT_EQ_INT(y[7] == 1.0f, 1);
            ak_stream_destroy(s);
        } else {
            akt_fail(__FILE__, __LINE__, "second context / stream: %s", ak_last_error());
        }
        ak_context_destroy(other);
    }
    ak_free(ctx, x);
    ak_free(ctx, y);
    ak_context_destroy(ctx);
}

/* The embedded-source table: families, complete kernel lists, accessors. */
static void test_embedded(void) {
    static const char* want[] = { "ak_fill_f32", "ak_fill_bf16", "ak_copy_f16", "ak_cast_f32_f16", "ak_cast_f16_bf16",
                                  "ak_cast_bf16_f32", "ak_axpy_f16", "ak_scale_bf16", "ak_binary_f32",
                                  "ak_unary_bf16", "ak_transpose_f32", "ak_transpose_f16" };
    int n = ak_embedded_count(), i, found[sizeof want / sizeof want[0]];
    size_t w;
    const char *fam, *src, *names;
    memset(found, 0, sizeof found);
    AKT_CHECK(n >= 4);
    for (i = 0; i < n; i++) {
        char buf[128];
        const char* p;
        fam = src = names = NULL;
        AKT_OK(ak_embedded_at(i, &fam, &src, &names));
        if (!fam || !src || !names) { akt_fail(__FILE__, __LINE__, "family %d: NULL field", i); continue; }
        AKT_CHECKF(fam[0] && src[0] && names[0], "family %d (%s) has an empty field", i, fam);
        AKT_CHECKF(strstr(src, "#include") == NULL, "family %s includes a header", fam);
        /* each listed kernel is defined in the source */
        for (p = names; *p;) {
            size_t l = strcspn(p, " ");
            char def[160];
            if (l && l < sizeof buf) {
                memcpy(buf, p, l);
                buf[l] = 0;
                snprintf(def, sizeof def, "void %s(", buf);
                AKT_CHECKF(strstr(src, def) != NULL || strstr(src, buf) != NULL, "%s: kernel %s not in the source", fam, buf);
                for (w = 0; w < sizeof want / sizeof want[0]; w++)
                    if (!strcmp(buf, want[w])) found[w] = 1;
            }
            p += l;
            while (*p == ' ') p++;
        }
    }
    for (w = 0; w < sizeof want / sizeof want[0]; w++) AKT_CHECKF(found[w], "kernel %s not listed", want[w]);
    AKT_ERR_ITEM(ak_embedded_at(-1, &fam, &src, &names), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_embedded_at(n, NULL, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_OK(ak_embedded_at(0, NULL, NULL, NULL));
    AKT_CONTAINS(ak_prelude_source(), "AK_WAVE");
    AKT_CONTAINS(ak_prelude_source(), "ak_f2bf");
}

void akt_suite_ops_elementwise(void) {
    AKT_RUN(test_fill);
    AKT_RUN(test_copy_and_cast);
    AKT_RUN(test_cast_rounding);
    AKT_RUN(test_axpy_scale);
    AKT_RUN(test_binary);
    AKT_RUN(test_unary);
    AKT_RUN(test_transpose);
    AKT_RUN(test_errors);
    AKT_RUN(test_embedded);
}
