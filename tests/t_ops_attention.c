/* Suite ops_attention: ak_attention on the cpu backend (its C reference)
 * against the naive reference of at_common.h, on fresh random data over the
 * matrix of the issue: odd sequence lengths (1, 17, 1000, 4097), every
 * layout, GQA ratios 1 / 4 / 8 (MQA), causal both ways, seq_q > seq_kv
 * (fully masked rows: O = 0, lse = -inf, no NaN) and seq_q < seq_kv, head
 * sizes 32 / 64 / 80 / 96 / 128 / 256, large logits, explicit scale; the
 * split (flash-decoding) combine rule against the unsplit result; and every
 * validation error. */
#include "at_common.h"

static unsigned long long at_rng;

/* Run one case on ctx and compare with the naive reference. */
static void at_run_case(ak_context* ctx, const at_case* c) {
    at_host h;
    char tag[160];
    double *ref, *rlse;
    size_t rows = c->b * c->hq * c->sq;
    double tol = c->t == AK_F32 ? 2e-6 : c->t == AK_F16 ? 1e-3 : 8e-3;
    at_tag(c, tag, sizeof tag);
    if (!at_make(c, &at_rng, &h)) { akt_fail(__FILE__, __LINE__, "%s: host allocation", tag); return; }
    ref = (double*)malloc(rows * c->d * sizeof(double));
    rlse = (double*)malloc(rows * sizeof(double));
    if (!ref || !rlse || !at_naive(c, &h, ref, rlse)) {
        akt_fail(__FILE__, __LINE__, "%s: reference allocation", tag);
    } else {
        ak_result r = ak_attention(ctx, &h.a, NULL);
        AKT_CHECKF(r == AK_OK, "%s: %s: %s", tag, ak_result_name(r), ak_last_error());
        if (r == AK_OK) at_compare(c, &h, ref, rlse, tol, 1e-6, tag);
    }
    free(ref); free(rlse);
    at_free(&h);
}

static ak_context* at_ctx(void) {
    static ak_context* ctx;
    if (!ctx) {
        ctx = akt_cpu_context("ops_attention");
        at_rng = akt_seed() ^ 0xA77E471ull;
    }
    return ctx;
}

/* The matrix of the issue, spread over dtypes so the suite stays quick. */
static void attention_matrix(void) {
    static const ak_dtype ts[3] = { AK_F32, AK_F16, AK_BF16 };
    ak_context* ctx = at_ctx();
    int n = 0;
    if (!ctx) return;
#define AT(...) do { at_case c_ = at_mk(ts[n % 3], __VA_ARGS__); n++; at_run_case(ctx, &c_); } while (0)
    /* seq lengths 1 / 17 / 1000 / 4097, square and not, causal both ways */
    AT(2, 4, 4, 17, 17, 64, AK_ATTN_BHSD, 1);
    AT(2, 4, 4, 17, 17, 64, AK_ATTN_BSHD, 0);
    AT(1, 2, 2, 1, 1, 64, AK_ATTN_BHSD, 1);
    AT(1, 2, 2, 1, 1, 32, AK_ATTN_STRIDED, 0);
    AT(1, 4, 1, 1, 4097, 128, AK_ATTN_BSHD, 0);       /* decode, GQA 4 */
    AT(1, 4, 1, 1, 1000, 128, AK_ATTN_BHSD, 1);       /* causal decode sees everything */
    AT(1, 8, 1, 16, 300, 80, AK_ATTN_STRIDED, 1);     /* MQA (GQA 8), d 80, packed KV cache */
    AT(1, 8, 1, 5, 1000, 96, AK_ATTN_BHSD, 0);        /* GQA 8, d 96 */
    AT(1, 2, 2, 1000, 17, 32, AK_ATTN_BSHD, 1);       /* seq_q > seq_kv: 983 fully masked rows per head */
    AT(1, 2, 2, 1000, 17, 32, AK_ATTN_STRIDED, 0);
    AT(1, 1, 1, 4097, 33, 32, AK_ATTN_BHSD, 1);       /* 4064 fully masked rows */
    AT(1, 2, 1, 9, 1000, 256, AK_ATTN_BSHD, 1);       /* seq_q < seq_kv, d 256 */
    AT(1, 2, 2, 17, 4097, 32, AK_ATTN_STRIDED, 1);
    AT(1, 4, 1, 1000, 1000, 3, AK_ATTN_BHSD, 1);      /* GQA 4, square causal, tiny head */
    AT(1, 1, 1, 300, 300, 64, AK_ATTN_BSHD, 1);
    AT(3, 4, 4, 33, 65, 128, AK_ATTN_BSHD, 1);
    AT(1, 3, 3, 7, 5, 3, AK_ATTN_BHSD, 1);            /* tiny odd head_dim */
#undef AT
}

/* Large logits (|score| up to ~4000): the max subtraction keeps exp finite. */
static void attention_large_logits(void) {
    ak_context* ctx = at_ctx();
    at_case c;
    if (!ctx) return;
    c = at_mk(AK_F32, 1, 2, 2, 7, 1000, 64, AK_ATTN_BHSD, 0);
    c.amp = 8.0; c.scale = 1.0f;
    at_run_case(ctx, &c);
    c = at_mk(AK_F16, 1, 4, 1, 3, 4097, 64, AK_ATTN_BSHD, 1);
    c.amp = 8.0; c.scale = 1.0f;
    at_run_case(ctx, &c);
    c = at_mk(AK_BF16, 1, 2, 2, 33, 33, 128, AK_ATTN_STRIDED, 1);
    c.amp = 8.0; c.scale = 0.5f;
    at_run_case(ctx, &c);
}

/* num_splits 1, 3, 7, 128 and automatic give the plain softmax result (the
 * reference combines the splits as the GPU combine kernel does). */
static void attention_splits(void) {
    ak_context* ctx = at_ctx();
    static const int sp[5] = { 1, 3, 7, 128, 0 };
    int i;
    if (!ctx) return;
    for (i = 0; i < 5; i++) {
        at_case c = at_mk(i % 2 ? AK_F16 : AK_F32, 2, 4, 1, 2, 4097, 32, AK_ATTN_BSHD, i % 2);
        c.splits = sp[i];
        at_run_case(ctx, &c);
    }
    {   /* causal rows with empty splits: seq_q > seq_kv and splits */
        at_case c = at_mk(AK_F32, 1, 2, 1, 16, 9, 32, AK_ATTN_BHSD, 1);
        c.splits = 5;
        at_run_case(ctx, &c);
    }
}

/* A fully masked row: exactly 0 output and -inf lse, never NaN. */
static void attention_fully_masked(void) {
    ak_context* ctx = at_ctx();
    at_case c = at_mk(AK_F16, 1, 1, 1, 8, 3, 64, AK_ATTN_BHSD, 1);
    at_host h;
    size_t i, e;
    if (!ctx || !at_make(&c, &at_rng, &h)) return;
    AKT_OK(ak_attention(ctx, &h.a, NULL));
    for (i = 0; i < 8; i++) {
        int masked = i < 5; /* rows 0..4 see no key (3 keys, 8 queries, bottom-right) */
        for (e = 0; e < 64; e++) {
            double v = ak_elem_get(h.o, AK_F16, i * 64 + e);
            AKT_CHECKF(v == v, "row %zu col %zu is NaN", i, e);
            if (masked) AKT_CHECKF(v == 0.0, "masked row %zu col %zu = %g", i, e, v);
        }
        if (masked) AKT_CHECKF(h.lse[i] == -HUGE_VALF, "masked row %zu lse = %g", i, (double)h.lse[i]);
        else AKT_CHECKF(h.lse[i] > -HUGE_VALF && h.lse[i] == h.lse[i], "row %zu lse = %g", i, (double)h.lse[i]);
    }
    /* row 5 sees key 0 only: output = v[0] exactly (after rounding), lse = scaled q.k */
    for (e = 0; e < 64; e++)
        AKT_NEAR(ak_elem_get(h.o, AK_F16, 5 * 64 + e), ak_elem_get(h.a.v, AK_F16, e), 1e-3);
    at_free(&h);
}

static void attention_errors(void) {
    ak_context* ctx = at_ctx();
    at_case c = at_mk(AK_F16, 1, 4, 2, 8, 8, 64, AK_ATTN_BHSD, 0);
    at_host h;
    ak_attention_args a;
    if (!ctx || !at_make(&c, &at_rng, &h)) return;
    AKT_OK(ak_attention(ctx, &h.a, NULL));
    AKT_ERR_ITEM(ak_attention(NULL, &h.a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_attention(ctx, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    a = h.a; a.dtype = AK_I32;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    a = h.a; a.seq_kv = 0;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ITEM(AK_ERRITEM_BAD_SHAPE);
    a = h.a; a.head_dim = 257;
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "head_dim");
    a = h.a; a.heads_kv = 3;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_CONTAINS(ak_last_error(), "multiple");
    a = h.a; a.q = NULL;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    a = h.a; a.k = (const char*)a.k + 1;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ITEM(AK_ERRITEM_MISALIGNED);
    a = h.a; a.lse = (float*)((char*)h.lse + 2);
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    a = h.a; a.o = (void*)a.q;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    a = h.a; a.o = (void*)a.v;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    a = h.a; a.lse = (float*)h.o;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    a = h.a; a.layout = (ak_attention_layout)7;
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "layout");
    a = h.a; a.scale = NAN;
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    a = h.a; a.scale = HUGE_VALF;
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    a = h.a; a.num_splits = -1;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    a = h.a; a.num_splits = 129;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    /* strided: negative stride; output rows that overlap each other */
    a = h.a; a.layout = AK_ATTN_STRIDED;
    a.q_stride[0] = 4 * 8 * 64; a.q_stride[1] = 8 * 64; a.q_stride[2] = 64;
    memcpy(a.o_stride, a.q_stride, sizeof a.o_stride);
    a.k_stride[0] = 2 * 8 * 64; a.k_stride[1] = 8 * 64; a.k_stride[2] = 64;
    memcpy(a.v_stride, a.k_stride, sizeof a.v_stride);
    AKT_OK(ak_attention(ctx, &a, NULL)); /* the BHSD strides written out: fine */
    a.k_stride[2] = -64;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_CONTAINS(ak_last_error(), "negative");
    a.k_stride[2] = 64;
    a.o_stride[2] = 32; /* rows of 64 elements, 32 apart */
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    a.o_stride[2] = 64;
    a.o_stride[1] = 0; /* two heads write the same rows */
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    a.o_stride[1] = 8 * 64;
    a.q_stride[0] = (int64_t)1 << 61; /* extent overflows */
    a.batch = 5;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    /* a stream of another context */
    {
        ak_context* other = akt_cpu_context("ops_attention_other");
        ak_stream* s = NULL;
        if (other && ak_stream_create(other, "x", 0, &s) == AK_OK) {
            AKT_ERR_ITEM(ak_attention(ctx, &h.a, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);
            ak_stream_destroy(s);
        }
        if (other) ak_context_destroy(other);
    }
    AKT_EQ_STR(ak_attention_layout_name(AK_ATTN_BSHD), "bshd");
    AKT_EQ_STR(ak_attention_layout_name((ak_attention_layout)9), "?");
    at_free(&h);
}

void akt_suite_ops_attention(void) {
    AKT_RUN(attention_matrix);
    AKT_RUN(attention_large_logits);
    AKT_RUN(attention_splits);
    AKT_RUN(attention_fully_masked);
    AKT_RUN(attention_errors);
}
