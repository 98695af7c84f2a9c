/* Suite ops_llm: the LLM building blocks on the cpu backend (their C
 * references) against naive computations written here, on fresh random data
 * (never zeros) and odd shapes: residual add + layernorm / rmsnorm (h exact,
 * y within a few ulps, in-place forms), RoPE (both conventions, i32 / i64
 * positions, partial rotary_dim, a hand-computed case), embedding gather
 * (every dtype as a bit copy, the out-of-range error and its zero row) and
 * the strided N-d copy (permutes, slices, negative and zero strides, casts,
 * 6 dimensions); every validation error. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype ll_types[3] = { AK_F32, AK_F16, AK_BF16 };
#define LL_GUARD 16

static void* ll_alloc(ak_context* ctx, size_t bytes) {
    void* p = NULL;
    if (ak_malloc(ctx, bytes + LL_GUARD, NULL, &p) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "ak_malloc: %s", ak_last_error());
        return NULL;
    }
    memset(p, 0xA5, bytes + LL_GUARD);
    return p;
}
static int ll_guard_ok(const void* p, size_t bytes) {
    const unsigned char* b = (const unsigned char*)p + bytes;
    size_t i;
    for (i = 0; i < LL_GUARD; i++)
        if (b[i] != 0xA5) return 0;
    return 1;
}
static void ll_random(void* p, ak_dtype t, size_t n, unsigned long long* st, double lo, double hi) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(st, lo, hi);
        if (fabs(v) < 0.0625) v = v < 0 ? -0.0625 - fabs(v) : 0.0625 + v;
        ak_elem_set(p, t, i, v);
    }
}
static double ll_rtol(ak_dtype t) { return t == AK_F32 ? 4e-6 : t == AK_F16 ? 1.5e-3 : 9e-3; }
static double ll_atol(ak_dtype t) { return t == AK_F32 ? 1e-6 : 2e-5; }
/* value v rounded to dtype t, read back */
static double ll_round(ak_dtype t, double v) {
    unsigned char b[8];
    ak_elem_set(b, t, 0, v);
    return ak_elem_get(b, t, 0);
}

/* ---- residual add + norm ------------------------------------------------------ */

static void ll_check_add_norm(ak_context* ctx, ak_dtype t, size_t rows, size_t cols, int rms, int wb, int form,
                              unsigned long long* st) {
    /* form 0: separate h, y; 1: h = r (in place); 2: h = x, y = r; 3: y = x */
    size_t es = ak_dtype_size(t), n = rows * cols, rr, c, bad = 0;
    void *x = ll_alloc(ctx, n * es), *r = ll_alloc(ctx, n * es), *w = ll_alloc(ctx, cols * es),
         *b = ll_alloc(ctx, cols * es), *h0 = ll_alloc(ctx, n * es), *y0 = ll_alloc(ctx, n * es);
    double *hn = (double*)malloc(n * sizeof(double)), *e = (double*)malloc(cols * sizeof(double));
    void *h, *y;
    const void *wp, *bp;
    float eps = rms ? 1e-6f : 1e-5f;
    if (!x || !r || !w || !b || !h0 || !y0 || !hn || !e) goto done;
    ll_random(x, t, n, st, -3.0, 4.0);
    ll_random(r, t, n, st, -2.0, 2.0);
    ll_random(w, t, cols, st, 0.5, 2.0);
    ll_random(b, t, cols, st, -1.0, 1.0);
    for (c = 0; c < n; c++) hn[c] = ll_round(t, (double)((float)ak_elem_get(x, t, c) + (float)ak_elem_get(r, t, c)));
    h = form == 1 ? r : form == 2 ? x : h0;
    y = form == 2 ? r : form == 3 ? x : y0;
    wp = (wb & 1) ? w : NULL;
    bp = (wb & 2) && !rms ? b : NULL;
    if (rms) AKT_OK(ak_add_rmsnorm(ctx, t, x, r, wp, h, y, rows, cols, eps, NULL));
    else AKT_OK(ak_add_layernorm(ctx, t, x, r, wp, bp, h, y, rows, cols, eps, NULL));
    for (rr = 0; rr < rows; rr++) {
        double s = 0.0, sq = 0.0, mean, var;
        for (c = 0; c < cols; c++) {
            double v = hn[rr * cols + c];
            if (ak_elem_get(h, t, rr * cols + c) != v && bad++ < 3)
                akt_fail(__FILE__, __LINE__, "add_norm %s %zux%zu form %d: h[%zu,%zu] = %.9g, expected %.9g",
                         ak_dtype_name(t), rows, cols, form, rr, c, ak_elem_get(h, t, rr * cols + c), v);
            s += v;
            sq += v * v;
        }
        mean = rms ? 0.0 : s / (double)cols;
        var = 0.0;
        for (c = 0; c < cols; c++) var += (hn[rr * cols + c] - mean) * (hn[rr * cols + c] - mean);
        var /= (double)cols;
        (void)sq;
        for (c = 0; c < cols; c++) {
            double v = (hn[rr * cols + c] - mean) / sqrt(var + (double)eps), got;
            if (wp) v *= ak_elem_get(w, t, c);
            if (bp) v += ak_elem_get(b, t, c);
            e[c] = v;
            got = ak_elem_get(y, t, rr * cols + c);
            if (!(fabs(got - v) <= 4 * ll_atol(t) + 2 * ll_rtol(t) * fabs(v)) && bad++ < 3)
                akt_fail(__FILE__, __LINE__, "add_%s %s %zux%zu form %d w=%d b=%d: y[%zu,%zu] = %.9g, expected %.9g",
                         rms ? "rmsnorm" : "layernorm", ak_dtype_name(t), rows, cols, form, wp != NULL, bp != NULL, rr,
                         c, got, v);
        }
    }
    AKT_CHECKF(ll_guard_ok(h, n * es) && ll_guard_ok(y, n * es), "add_norm: wrote past the end");
done:
    free(hn); free(e);
    ak_free(ctx, x); ak_free(ctx, r); ak_free(ctx, w); ak_free(ctx, b); ak_free(ctx, h0); ak_free(ctx, y0);
}

static void test_add_norm_values(void) {
    static const size_t shapes[][2] = { { 1, 1 }, { 1, 7 }, { 3, 1023 }, { 2, 4097 }, { 33, 8 }, { 5, 1 } };
    ak_context* ctx = akt_cpu_context("ll_addnorm");
    unsigned long long st = akt_seed() ^ 0x11A0;
    size_t ti, si;
    int form;
    if (!ctx) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (form = 0; form < 4; form++) {
                ll_check_add_norm(ctx, ll_types[ti], shapes[si][0], shapes[si][1], 0, form == 0 ? 3 : form, form, &st);
                ll_check_add_norm(ctx, ll_types[ti], shapes[si][0], shapes[si][1], 1, form & 1, form, &st);
            }
    ak_context_destroy(ctx);
}

/* x + r rounds before the norm: f16 2048 + 1 is 2048 (ties to even), so h is 2048. */
static void test_add_norm_semantics(void) {
    ak_context* ctx = akt_cpu_context("ll_addnorm_sem");
    uint16_t x[2], r[2], h[2], y[2];
    if (!ctx) return;
    x[0] = ak_f32_to_f16(2048.0f); x[1] = ak_f32_to_f16(-2048.0f);
    r[0] = ak_f32_to_f16(1.0f); r[1] = ak_f32_to_f16(-1.0f);
    AKT_OK(ak_add_rmsnorm(ctx, AK_F16, x, r, NULL, h, y, 1, 2, 0.0f, NULL));
    AKT_NEAR(ak_f16_to_f32(h[0]), 2048.0, 0.0);
    AKT_NEAR(ak_f16_to_f32(h[1]), -2048.0, 0.0);
    AKT_NEAR(ak_f16_to_f32(y[0]), 1.0, 0.0);
    AKT_NEAR(ak_f16_to_f32(y[1]), -1.0, 0.0);
    ak_context_destroy(ctx);
}

static void test_add_norm_errors(void) {
    ak_context* ctx = akt_cpu_context("ll_addnorm_err");
    float* x;
    unsigned long long rs = akt_seed() + 5;
    if (!ctx) return;
    x = (float*)ll_alloc(ctx, 128 * 4);
    if (!x) return;
    ll_random(x, AK_F32, 128, &rs, -1, 1);
    /* x = x[0..16), r = x[16..32), h = x[32..48), y = x[48..64), weight = x[64..72) */
    AKT_OK(ak_add_layernorm(ctx, AK_F32, x, x + 16, x + 64, x + 72, x + 32, x + 48, 2, 8, 1e-5f, NULL));
    AKT_ERR(ak_add_layernorm(NULL, AK_F32, x, x + 16, NULL, NULL, x + 32, x + 48, 2, 8, 1e-5f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_add_layernorm(ctx, AK_I32, x, x + 16, NULL, NULL, x + 32, x + 48, 2, 8, 1e-5f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_add_layernorm(ctx, AK_F32, x, NULL, NULL, NULL, x + 32, x + 48, 2, 8, 1e-5f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_ITEM(AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_add_rmsnorm(ctx, AK_F32, x, x + 16, NULL, NULL, x + 48, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ITEM(AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_add_rmsnorm(ctx, AK_F32, x, x + 16, NULL, x + 32, NULL, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_add_rmsnorm(ctx, AK_F32, x, x + 16, NULL, x + 32, x + 40, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_add_rmsnorm(ctx, AK_F32, x, x + 16, NULL, x + 32, x + 32, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_add_rmsnorm(ctx, AK_F32, x, x + 16, NULL, x + 8, x + 48, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_add_rmsnorm(ctx, AK_F32, x, x + 16, x + 36, x + 32, x + 48, 2, 8, 1e-5f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_CONTAINS(ak_last_error(), "weight");
    AKT_ERR(ak_add_layernorm(ctx, AK_F32, x, x + 16, NULL, (char*)x + 258, x + 32, x + 48, 2, 8, 1e-5f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_add_layernorm(ctx, AK_F32, x, x + 16, NULL, NULL, x + 32, x + 48, 2, 8, -1.0f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "eps");
    AKT_ERR(ak_add_layernorm(ctx, AK_F32, x, x + 16, NULL, NULL, x + 32, x + 48, 0, 8, 1e-5f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_add_layernorm(ctx, AK_F32, x, x + 16, NULL, NULL, x + 32, x + 48, SIZE_MAX / 2, 8, 1e-5f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    /* in place: h = r, y = x */
    AKT_OK(ak_add_rmsnorm(ctx, AK_F32, x, x + 16, NULL, x + 16, x, 2, 8, 1e-5f, NULL));
    ak_free(ctx, x);
    ak_context_destroy(ctx);
}

/* ---- RoPE --------------------------------------------------------------------- */

/* naive: inverse frequency through pow, the fp32 angle, double rotation */
static void nv_rope(ak_rope_mode mode, ak_dtype t, const void* x, const int64_t* pos, double* out, size_t tokens,
                    size_t heads, size_t hd, size_t rd, float theta) {
    size_t tk, h, i;
    for (tk = 0; tk < tokens; tk++)
        for (h = 0; h < heads; h++) {
            size_t base = (tk * heads + h) * hd;
            for (i = 0; i < hd; i++) out[base + i] = ak_elem_get(x, t, base + i);
            for (i = 0; i < rd / 2; i++) {
                float inv = (float)pow((double)theta, -(double)(2 * i) / (double)rd);
                volatile float a = (float)pos[tk] * inv;
                size_t i0 = mode == AK_ROPE_NEOX ? i : 2 * i, i1 = mode == AK_ROPE_NEOX ? i + rd / 2 : 2 * i + 1;
                double u = ak_elem_get(x, t, base + i0), v = ak_elem_get(x, t, base + i1);
                out[base + i0] = u * cos((double)a) - v * sin((double)a);
                out[base + i1] = v * cos((double)a) + u * sin((double)a);
            }
        }
}

static void ll_check_rope(ak_context* ctx, ak_rope_mode mode, ak_dtype t, ak_dtype pt, size_t tokens, size_t heads,
                          size_t hd, size_t rd, float theta, int inplace, unsigned long long* st) {
    size_t es = ak_dtype_size(t), n = tokens * heads * hd, i, bad = 0;
    void *x = ll_alloc(ctx, n * es), *y = inplace ? NULL : ll_alloc(ctx, n * es), *p = ll_alloc(ctx, tokens * 8);
    int64_t* pos = (int64_t*)malloc(tokens * sizeof(int64_t));
    double* e = (double*)malloc(n * sizeof(double));
    if (!x || (!inplace && !y) || !p || !pos || !e) goto done;
    ll_random(x, t, n, st, -2.0, 2.0);
    for (i = 0; i < tokens; i++) {
        pos[i] = (int64_t)akt_uniform(st, -50.0, 3000.0);
        if (pt == AK_I64) ((int64_t*)p)[i] = pos[i];
        else ((int32_t*)p)[i] = (int32_t)pos[i];
    }
    nv_rope(mode, t, x, pos, e, tokens, heads, hd, rd, theta);
    if (inplace) y = x;
    AKT_OK(ak_rope(ctx, mode, t, pt, x, p, y, tokens, heads, hd, rd, theta, NULL));
    for (i = 0; i < n; i++) {
        double got = ak_elem_get(y, t, i);
        /* pow vs exp2 may move inv_freq by an fp32 ulp: an angle error up to |a| 2^-23 (|a| < 3000) */
        double tol = 4 * ll_atol(t) + 2 * ll_rtol(t) * fabs(e[i]) + 3000.0 * 2.5e-7 * 2.0;
        if (!(fabs(got - e[i]) <= tol) && bad++ < 3)
            akt_fail(__FILE__, __LINE__, "rope %s %s pos %s %zux%zux%zu rd %zu%s: [%zu] = %.9g, expected %.9g",
                     mode == AK_ROPE_NEOX ? "neox" : "interleaved", ak_dtype_name(t), ak_dtype_name(pt), tokens, heads,
                     hd, rd, inplace ? " in place" : "", i, got, e[i]);
    }
    AKT_CHECKF(ll_guard_ok(y, n * es), "rope: wrote past the end");
done:
    free(pos); free(e);
    ak_free(ctx, x); if (!inplace) ak_free(ctx, y); ak_free(ctx, p);
}

static void test_rope_values(void) {
    static const size_t shapes[][4] = { { 1, 1, 2, 2 }, { 3, 2, 8, 8 }, { 5, 3, 64, 64 }, { 2, 4, 128, 32 },
                                        { 7, 1, 6, 4 }, { 1, 2, 10, 6 } };
    ak_context* ctx = akt_cpu_context("ll_rope");
    unsigned long long st = akt_seed() ^ 0x20BE;
    size_t ti, si;
    int m;
    if (!ctx) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (m = 0; m < 2; m++) {
                ll_check_rope(ctx, (ak_rope_mode)m, ll_types[ti], AK_I64, shapes[si][0], shapes[si][1], shapes[si][2],
                              shapes[si][3], 10000.0f, 0, &st);
                ll_check_rope(ctx, (ak_rope_mode)m, ll_types[ti], AK_I32, shapes[si][0], shapes[si][1], shapes[si][2],
                              shapes[si][3], 500000.0f, 1, &st);
            }
    ak_context_destroy(ctx);
}

/* theta = 1: every pair turns by the position itself; position 0 is the identity. */
static void test_rope_semantics(void) {
    ak_context* ctx = akt_cpu_context("ll_rope_sem");
    float x[8] = { 1, 2, 3, 4, 1, 2, 3, 4 }, y[8];
    int32_t pos[2] = { 1, 0 };
    double c = cos(1.0), s = sin(1.0);
    if (!ctx) return;
    AKT_OK(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I32, x, pos, y, 2, 1, 4, 4, 1.0f, NULL));
    AKT_NEAR(y[0], 1 * c - 3 * s, 1e-6);
    AKT_NEAR(y[2], 3 * c + 1 * s, 1e-6);
    AKT_NEAR(y[1], 2 * c - 4 * s, 1e-6);
    AKT_NEAR(y[3], 4 * c + 2 * s, 1e-6);
    AKT_CHECK(y[4] == 1 && y[5] == 2 && y[6] == 3 && y[7] == 4);
    AKT_OK(ak_rope(ctx, AK_ROPE_INTERLEAVED, AK_F32, AK_I32, x, pos, y, 2, 1, 4, 4, 1.0f, NULL));
    AKT_NEAR(y[0], 1 * c - 2 * s, 1e-6);
    AKT_NEAR(y[1], 2 * c + 1 * s, 1e-6);
    AKT_NEAR(y[2], 3 * c - 4 * s, 1e-6);
    AKT_NEAR(y[3], 4 * c + 3 * s, 1e-6);
    /* rotary_dim 2 of head_dim 4: elements 2, 3 copied */
    AKT_OK(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I32, x, pos, y, 2, 1, 4, 2, 1.0f, NULL));
    AKT_NEAR(y[0], 1 * c - 2 * s, 1e-6);
    AKT_CHECK(y[2] == 3 && y[3] == 4);
    ak_context_destroy(ctx);
}

static void test_rope_errors(void) {
    ak_context* ctx = akt_cpu_context("ll_rope_err");
    float* x;
    int64_t pos[4] = { 0, 1, 2, 3 };
    unsigned long long rs = akt_seed() + 7;
    if (!ctx) return;
    x = (float*)ll_alloc(ctx, 256 * 4);
    if (!x) return;
    ll_random(x, AK_F32, 256, &rs, -1, 1);
    AKT_OK(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x + 128, 4, 2, 16, 16, 10000.0f, NULL));
    AKT_ERR_ITEM(ak_rope(NULL, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x, 4, 2, 16, 16, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_rope(ctx, (ak_rope_mode)2, AK_F32, AK_I64, x, pos, x, 4, 2, 16, 16, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "mode");
    AKT_ERR_ITEM(ak_rope(ctx, AK_ROPE_NEOX, AK_I32, AK_I64, x, pos, x, 4, 2, 16, 16, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_F32, x, pos, x, 4, 2, 16, 16, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "pos_dtype");
    AKT_ERR_ITEM(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, NULL, x, 4, 2, 16, 16, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, (char*)pos + 4, x, 4, 2, 16, 16, 1e4f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x, 4, 2, 16, 15, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "rotary_dim");
    AKT_ERR(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x, 4, 2, 16, 18, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x, 4, 2, 16, 0, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x, 1, 1, 2048, 2048, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x, 4, 2, 16, 16, 0.0f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "theta");
    AKT_ERR(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x, 4, 2, 16, 16, NAN, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x, 0, 2, 16, 16, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x, 4, (size_t)1 << 20, (size_t)1 << 12, 16, 1e4f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, pos, x + 4, 4, 2, 16, 16, 1e4f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_ERR(ak_rope(ctx, AK_ROPE_NEOX, AK_F32, AK_I64, x, x + 130, x + 128, 4, 2, 8, 8, 1e4f, NULL),
            AK_ERROR_INVALID_ARGUMENT);
    ak_free(ctx, x);
    ak_context_destroy(ctx);
}

/* ---- embedding ------------------------------------------------------------------ */

static void test_embedding_values(void) {
    static const ak_dtype types[] = { AK_F32, AK_F16, AK_BF16, AK_I64, AK_U8, AK_F64 };
    static const size_t dims[] = { 1, 3, 8, 65 };
    ak_context* ctx = akt_cpu_context("ll_emb");
    unsigned long long st = akt_seed() ^ 0xE3B;
    size_t ti, di, i, vocab = 37, n = 29;
    int it;
    if (!ctx) return;
    for (ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (di = 0; di < sizeof dims / sizeof dims[0]; di++)
            for (it = 0; it < 2; it++) {
                ak_dtype t = types[ti], idt = it ? AK_I64 : AK_I32;
                size_t es = ak_dtype_size(t), dim = dims[di], rb = dim * es;
                unsigned char* tab = (unsigned char*)ll_alloc(ctx, vocab * rb);
                unsigned char* out = (unsigned char*)ll_alloc(ctx, n * rb);
                void* idx = ll_alloc(ctx, n * 8);
                if (!tab || !out || !idx) continue;
                for (i = 0; i < vocab * rb; i++) tab[i] = (unsigned char)(akt_uniform(&st, 0, 256));
                for (i = 0; i < n; i++) {
                    int64_t k = (int64_t)akt_uniform(&st, 0, (double)vocab);
                    if (i == 3) k = (int64_t)vocab - 1;
                    if (it) ((int64_t*)idx)[i] = k;
                    else ((int32_t*)idx)[i] = (int32_t)k;
                }
                AKT_OK(ak_embedding(ctx, t, idt, tab, idx, out, n, vocab, dim, NULL));
                for (i = 0; i < n; i++) {
                    int64_t k = it ? ((int64_t*)idx)[i] : ((int32_t*)idx)[i];
                    AKT_CHECKF(!memcmp(out + i * rb, tab + (size_t)k * rb, rb), "embedding %s dim %zu idx %s: row %zu",
                               ak_dtype_name(t), dim, ak_dtype_name(idt), i);
                }
                AKT_CHECKF(ll_guard_ok(out, n * rb), "embedding: wrote past the end");
                ak_free(ctx, tab); ak_free(ctx, out); ak_free(ctx, idx);
            }
    ak_context_destroy(ctx);
}

/* An index outside [0, vocab): error naming the position, that row zero-filled, the others copied. */
static void test_embedding_bad_index(void) {
    ak_context* ctx = akt_cpu_context("ll_emb_bad");
    float tab[4 * 3], out[4 * 3];
    int64_t idx[4] = { 2, 4, 0, -1 };
    int32_t idx32[2] = { 1, 3 };
    size_t i;
    if (!ctx) return;
    for (i = 0; i < 12; i++) tab[i] = (float)i + 0.5f;
    memset(out, 0x7F, sizeof out);
    AKT_ERR(ak_embedding(ctx, AK_F32, AK_I64, tab, idx, out, 4, 4, 3, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "indices[1] = 4");
    AKT_CHECK(out[0] == 6.5f && out[2] == 8.5f);
    AKT_CHECK(out[3] == 0.0f && out[4] == 0.0f && out[5] == 0.0f);
    AKT_CHECK(out[6] == 0.5f && out[8] == 2.5f);
    AKT_CHECK(out[9] == 0.0f && out[11] == 0.0f);
    AKT_OK(ak_embedding(ctx, AK_F32, AK_I32, tab, idx32, out, 2, 4, 3, NULL));
    AKT_CHECK(out[0] == 3.5f && out[5] == 11.5f);
    ak_context_destroy(ctx);
}

static void test_embedding_errors(void) {
    ak_context* ctx = akt_cpu_context("ll_emb_err");
    float tab[64], out[64];
    int64_t idx[4] = { 0, 1, 2, 3 };
    if (!ctx) return;
    memset(tab, 0, sizeof tab);
    AKT_ERR_ITEM(ak_embedding(NULL, AK_F32, AK_I64, tab, idx, out, 4, 8, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_F32, tab, idx, out, 4, 8, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "idx_dtype");
    AKT_ERR_ITEM(ak_embedding(ctx, (ak_dtype)99, AK_I64, tab, idx, out, 4, 8, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_I64, NULL, idx, out, 4, 8, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_I64, tab, NULL, out, 4, 8, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_I64, tab, idx, NULL, 4, 8, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_I64, tab, idx, out, 0, 8, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_I64, tab, idx, out, 4, 0, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_I64, tab, idx, out, 4, 8, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_I64, tab, idx, out, 4, SIZE_MAX / 2, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_I64, tab, idx, tab + 8, 4, 8, 2, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_embedding(ctx, AK_F32, AK_I64, tab, idx, (char*)out + 2, 4, 8, 2, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_OK(ak_embedding(ctx, AK_F32, AK_I64, tab, idx, out, 4, 8, 8, NULL));
    ak_context_destroy(ctx);
}

/* ---- strided copy ---------------------------------------------------------------- */

/* naive: linear index decomposed with div / mod (the reference walks an odometer) */
static void nv_copy(ak_dtype st, ak_dtype dt, const void* src, void* dst, size_t nd, const size_t* shape,
                    const int64_t* ss, const int64_t* ds) {
    size_t n = 1, i, k;
    for (k = 0; k < nd; k++) n *= shape[k];
    for (i = 0; i < n; i++) {
        size_t q = i;
        int64_t so = 0, dof = 0;
        for (k = nd; k-- > 0;) {
            size_t c = q % shape[k];
            q /= shape[k];
            so += (int64_t)c * ss[k];
            dof += (int64_t)c * ds[k];
        }
        if (st == dt)
            memcpy((char*)dst + dof * (int64_t)ak_dtype_size(dt), (const char*)src + so * (int64_t)ak_dtype_size(st),
                   ak_dtype_size(st));
        else if (st == AK_I32)   /* i32 -> i64: the same value */
            ((int64_t*)dst)[dof] = (int64_t)((const int32_t*)src)[so];
        else if (st == AK_I64) { /* i64 -> i32: the value modulo 2^32, in [-2^31, 2^31) */
            int64_t v = ((const int64_t*)src)[so], m = v % 4294967296ll;
            if (m < 0) m += 4294967296ll;
            ((int32_t*)dst)[dof] = (int32_t)(m >= 2147483648ll ? m - 4294967296ll : m);
        } else
            ak_elem_set((char*)dst + dof * (int64_t)ak_dtype_size(dt), dt, 0,
                        ak_elem_get((const char*)src + so * (int64_t)ak_dtype_size(st), st, 0));
    }
}

/* One case: src is a buffer of sn elements with the view's origin at element s0, dst likewise (d0, dn). */
static void ll_check_copy(ak_context* ctx, ak_dtype st, ak_dtype dt, size_t nd, const size_t* shape,
                          const int64_t* ss, size_t s0, size_t sn, const int64_t* ds, size_t d0, size_t dn,
                          unsigned long long* rng, const char* what) {
    size_t es = ak_dtype_size(st), ed = ak_dtype_size(dt);
    void *s = ll_alloc(ctx, sn * es), *d = ll_alloc(ctx, dn * ed);
    unsigned char* e = (unsigned char*)malloc(dn * ed);
    if (!s || !d || !e) goto done;
    if (st == AK_F32 || st == AK_F16 || st == AK_BF16) ll_random(s, st, sn, rng, -100.0, 100.0);
    else { size_t i; for (i = 0; i < sn * es; i++) ((unsigned char*)s)[i] = (unsigned char)akt_uniform(rng, 0, 256); }
    memset(d, 0x5A, dn * ed);
    memset(e, 0x5A, dn * ed);
    nv_copy(st, dt, (char*)s + s0 * es, e + d0 * ed, nd, shape, ss, ds);
    AKT_OK(ak_copy_strided(ctx, st, dt, (char*)s + s0 * es, (char*)d + d0 * ed, nd, shape, ss, ds, NULL));
    AKT_CHECKF(!memcmp(d, e, dn * ed), "copy_strided %s (%s -> %s): differs from the naive copy", what,
               ak_dtype_name(st), ak_dtype_name(dt));
    AKT_CHECKF(ll_guard_ok(d, dn * ed), "copy_strided %s: wrote past the end", what);
done:
    free(e);
    ak_free(ctx, s); ak_free(ctx, d);
}

static void test_copy_strided_values(void) {
    static const ak_dtype pairs[][2] = { { AK_F32, AK_F32 }, { AK_F16, AK_F16 }, { AK_I64, AK_I64 }, { AK_U8, AK_U8 },
                                         { AK_F32, AK_BF16 }, { AK_BF16, AK_F32 }, { AK_F16, AK_BF16 },
                                         { AK_F32, AK_F16 }, { AK_I32, AK_I64 }, { AK_I64, AK_I32 } };
    ak_context* ctx = akt_cpu_context("ll_copy");
    unsigned long long rng = akt_seed() ^ 0xC09;
    size_t pi;
    if (!ctx) return;
    for (pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        ak_dtype st = pairs[pi][0], dt = pairs[pi][1];
        {   /* permute (0, 2, 1, 3) of a contiguous [3][5][7][9] into a contiguous [3][7][5][9] */
            size_t sh[4] = { 3, 7, 5, 9 };
            int64_t ss[4] = { 315, 9, 63, 1 }, ds[4] = { 315, 45, 9, 1 };
            ll_check_copy(ctx, st, dt, 4, sh, ss, 0, 945, ds, 0, 945, &rng, "permute 0213");
        }
        {   /* permute (3, 1, 2, 0): the innermost dimension moves */
            size_t sh[4] = { 9, 5, 7, 3 };
            int64_t ss[4] = { 1, 63, 9, 315 }, ds[4] = { 105, 21, 3, 1 };
            ll_check_copy(ctx, st, dt, 4, sh, ss, 0, 945, ds, 0, 945, &rng, "permute 3120");
        }
        {   /* slice [2:6, 1:4] of a 8 x 5 matrix into the middle of a 6 x 7 one */
            size_t sh[2] = { 4, 3 };
            int64_t ss[2] = { 5, 1 }, ds[2] = { 7, 1 };
            ll_check_copy(ctx, st, dt, 2, sh, ss, 11, 40, ds, 8, 42, &rng, "slice");
        }
        {   /* reversed rows and columns (negative strides), broadcast (stride 0) */
            size_t sh[3] = { 2, 4, 5 };
            int64_t ss[3] = { 0, -5, -1 }, ds[3] = { 20, 5, 1 };
            ll_check_copy(ctx, st, dt, 3, sh, ss, 19, 20, ds, 0, 40, &rng, "reverse + broadcast");
        }
        {   /* 6 dimensions, contiguous source, permuted destination with gaps */
            size_t sh[6] = { 2, 3, 2, 2, 3, 4 };
            int64_t ss[6] = { 288, 96, 48, 24, 8, 1 }, ds[6] = { 1, 2, 6, 12, 24, 72 };
            ll_check_copy(ctx, st, dt, 6, sh, ss, 0, 576, ds, 0, 288, &rng, "6-d");
        }
        {   /* one element, and a 1-D copy */
            size_t sh1[1] = { 1 }, sh2[1] = { 1000 };
            int64_t one[1] = { 1 }, two[1] = { 2 };
            ll_check_copy(ctx, st, dt, 1, sh1, one, 0, 1, one, 0, 1, &rng, "one element");
            ll_check_copy(ctx, st, dt, 1, sh2, one, 3, 1003, two, 1, 2001, &rng, "1-d strided");
        }
    }
    ak_context_destroy(ctx);
}

/* concat along the last dimension: two copies into offset pointers of one output */
static void test_copy_strided_concat(void) {
    ak_context* ctx = akt_cpu_context("ll_copy_cat");
    float a[6] = { 1, 2, 3, 4, 5, 6 }, b[4] = { 7, 8, 9, 10 }, out[10];
    size_t sa[2] = { 2, 3 }, sb[2] = { 2, 2 };
    int64_t as[2] = { 3, 1 }, bs[2] = { 2, 1 }, os[2] = { 5, 1 };
    float want[10] = { 1, 2, 3, 7, 8, 4, 5, 6, 9, 10 };
    if (!ctx) return;
    AKT_OK(ak_copy_strided(ctx, AK_F32, AK_F32, a, out, 2, sa, as, os, NULL));
    AKT_OK(ak_copy_strided(ctx, AK_F32, AK_F32, b, out + 3, 2, sb, bs, os, NULL));
    AKT_CHECK(!memcmp(out, want, sizeof want));
    /* the same buffer and layout: a no-op */
    AKT_OK(ak_copy_strided(ctx, AK_F32, AK_F32, out, out, 2, sa, os, os, NULL));
    AKT_CHECK(!memcmp(out, want, sizeof want));
    ak_context_destroy(ctx);
}

static void test_copy_strided_errors(void) {
    ak_context* ctx = akt_cpu_context("ll_copy_err");
    float a[64], b[64];
    size_t sh[2] = { 4, 4 }, sh0[2] = { 4, 0 }, sh7[7] = { 1, 1, 1, 1, 1, 1, 1 };
    int64_t st[2] = { 4, 1 }, zero[2] = { 0, 1 }, dup[2] = { 1, 1 }, big[2] = { INT64_MAX / 2, 1 }, s7[7] = { 1, 1, 1, 1, 1, 1, 1 };
    if (!ctx) return;
    memset(a, 0, sizeof a);
    AKT_OK(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 2, sh, st, st, NULL));
    AKT_ERR_ITEM(ak_copy_strided(NULL, AK_F32, AK_F32, a, b, 2, sh, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_I32, AK_F32, a, b, 2, sh, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "cast");
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_I64, AK_F32, a, b, 2, sh, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_I32, AK_U8, a, b, 2, sh, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 0, sh, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 7, sh7, s7, s7, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_CONTAINS(ak_last_error(), "ndim");
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 2, sh0, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 2, NULL, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 2, sh, NULL, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, NULL, b, 2, sh, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, (char*)b + 2, 2, sh, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    /* destination writing one element twice */
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 2, sh, st, zero, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 2, sh, st, dup, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    /* a source stride of 0 is a broadcast: fine */
    AKT_OK(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 2, sh, zero, st, NULL));
    /* overlapping extents, a different layout of the same buffer */
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, a + 8, 2, sh, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F16, a, a, 2, sh, st, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_copy_strided(ctx, AK_F32, AK_F32, a, b, 2, sh, big, st, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    AKT_ITEM(AK_ERRITEM_SIZE_OVERFLOW);
    ak_context_destroy(ctx);
}

void akt_suite_ops_llm(void) {
    AKT_RUN(test_add_norm_values);
    AKT_RUN(test_add_norm_semantics);
    AKT_RUN(test_add_norm_errors);
    AKT_RUN(test_rope_values);
    AKT_RUN(test_rope_semantics);
    AKT_RUN(test_rope_errors);
    AKT_RUN(test_embedding_values);
    AKT_RUN(test_embedding_bad_index);
    AKT_RUN(test_embedding_errors);
    AKT_RUN(test_copy_strided_values);
    AKT_RUN(test_copy_strided_concat);
    AKT_RUN(test_copy_strided_errors);
}
