/* Suite ops_attention: ak_attention on the cpu backend (its C reference)
 * against the naive reference of at_common.h, on fresh random data over the
 * test matrix: odd sequence lengths (1, 17, 1000, 4097), every
 * layout, GQA ratios 1 / 4 / 8 (MQA), causal both ways, seq_q > seq_kv
 * (fully masked rows: O = 0, lse = -inf, no NaN) and seq_q < seq_kv, head
 * sizes 32 / 64 / 80 / 96 / 128 / 256, large logits, explicit scale; the
 * split (flash-decoding) combine rule against the unsplit result; sliding
 * windows, the soft-cap, packed variable-length sequences, per-sequence key
 * counts and a paged K / V cache (alone and together, with splits); the plan
 * (ak_attention_plan_get) for named archs; 8-bit K / V (e4m3 / e5m2 codes
 * with and without per-kv-head scales, against the naive reference on the
 * dequantised values) with GQA, pages, packing and splits; and every
 * validation error. */
#include "at_common.h"

static unsigned long long at_rng;

/* Run one case on ctx and compare with the naive reference. */
static void at_run_case(ak_context* ctx, const at_case* c) {
    at_host h;
    char tag[384];
    double *ref, *rlse;
    size_t rows = c->b * c->hq * c->sq;
    double tol = c->t == AK_F32 ? 2e-6 : c->t == AK_F16 ? 1e-3 : 8e-3;
    if (c->softcap > 0.0f && c->t == AK_F32) tol = 1e-5;
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

/* The test matrix, spread over dtypes so the suite stays quick. */
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


/* Sliding windows (left, right, both, with causal), the soft-cap, packed
 * sequences (q, k / v, both), per-sequence key counts and paged K / V (page
 * sizes 1 .. 256), alone and combined, over odd lengths and every layout. */
static void attention_options(void) {
    static const ak_dtype ts[3] = { AK_F32, AK_F16, AK_BF16 };
    ak_context* ctx = at_ctx();
    int n = 0;
    at_case c;
    if (!ctx) return;
#define AT_OPT(SET, ...) do { c = at_mk(ts[n % 3], __VA_ARGS__); SET; n++; at_run_case(ctx, &c); } while (0)
    AT_OPT(c.wl = 16, 1, 2, 2, 129, 129, 64, AK_ATTN_BHSD, 1);                       /* causal + left window */
    AT_OPT((c.wl = 7, c.wr = 5), 2, 4, 2, 33, 65, 32, AK_ATTN_BSHD, 0);              /* both sides */
    AT_OPT(c.wr = 3, 1, 2, 1, 40, 17, 96, AK_ATTN_STRIDED, 0);                        /* right only, seq_q > seq_kv */
    AT_OPT(c.wl = 1000, 1, 1, 1, 7, 1000, 80, AK_ATTN_BHSD, 1);                       /* window wider than the keys */
    AT_OPT((c.wl = 64, c.splits = 5), 1, 4, 1, 3, 1000, 128, AK_ATTN_BSHD, 1);       /* window + splits: empty splits */
    AT_OPT(c.softcap = 30.0f, 1, 2, 2, 17, 129, 64, AK_ATTN_BHSD, 1);
    AT_OPT((c.softcap = 5.0f, c.amp = 8.0, c.scale = 1.0f), 1, 2, 1, 9, 300, 32, AK_ATTN_BSHD, 0);  /* capped large logits */
    AT_OPT(c.varlen = 1, 3, 2, 2, 129, 129, 64, AK_ATTN_BSHD, 1);                     /* packed q only */
    AT_OPT(c.varlen = 3, 4, 4, 2, 65, 100, 32, AK_ATTN_BHSD, 1);                      /* packed q and k / v */
    AT_OPT(c.varlen = 3, 3, 2, 1, 33, 33, 96, AK_ATTN_STRIDED, 0);
    AT_OPT((c.varlen = 2, c.used = 1), 3, 2, 2, 1, 300, 64, AK_ATTN_BSHD, 0);        /* decode on packed k / v, key counts */
    AT_OPT((c.varlen = 3, c.splits = 3, c.wl = 9), 3, 4, 2, 40, 70, 32, AK_ATTN_BHSD, 1);
    AT_OPT((c.page = 16, c.used = 1), 3, 4, 1, 1, 100, 64, AK_ATTN_BSHD, 0);         /* paged decode, MQA */
    AT_OPT((c.page = 1, c.used = 1), 2, 2, 2, 3, 17, 32, AK_ATTN_BHSD, 1);           /* a page a token */
    AT_OPT((c.page = 256, c.splits = 2), 2, 2, 1, 2, 1000, 80, AK_ATTN_STRIDED, 0);  /* interleaved k / v pages */
    AT_OPT((c.page = 32, c.used = 1, c.varlen = 1), 3, 2, 1, 20, 129, 64, AK_ATTN_BSHD, 1);  /* chunked prefill */
    AT_OPT((c.page = 64, c.used = 1, c.varlen = 1, c.wl = 10, c.softcap = 20.0f), 2, 4, 2, 7, 200, 96, AK_ATTN_BHSD, 1);
#undef AT_OPT
}

/* The plan for named archs (a cpu context with config.arch; pointers are
 * not read, only their spans checked): on sm_80 the mma.sync kernel for
 * every head size (padded to its next size) and option, on sm_90 the Hopper
 * kernel for prefill and the mma.sync decode kernel, the SIMT family for f32
 * and on AMD where the generic matrix kernel does not take the call, and
 * "cpu" without an arch. */
static void attention_plan(void) {
    ak_attention_plan pl;
    ak_context* ctx = at_ctx();
    ak_config cfg;
    ak_context *sm80 = NULL, *sm90 = NULL, *mi = NULL;
    ak_attention_args a0, a;
    if (!ctx) return;
    memset(&a0, 0, sizeof a0);
    a0.dtype = AK_BF16; a0.batch = 2; a0.heads_q = 8; a0.heads_kv = 2; a0.seq_q = 300; a0.seq_kv = 300;
    a0.head_dim = 96; a0.layout = AK_ATTN_BSHD; a0.causal = 1;
    a0.q = (const void*)(uintptr_t)0x10000000u; a0.k = (const void*)(uintptr_t)0x20000000u;
    a0.v = (const void*)(uintptr_t)0x30000000u; a0.o = (void*)(uintptr_t)0x40000000u;
    AKT_OK(ak_attention_plan_get(ctx, &a0, &pl));
    AKT_EQ_STR(pl.path, "cpu");
    AKT_EQ_STR(pl.kernel, "");
    AKT_ERR_ITEM(ak_attention_plan_get(ctx, &a0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    a = a0; a.head_dim = 300;
    AKT_ERR(ak_attention_plan_get(ctx, &a, &pl), AK_ERROR_INVALID_ARGUMENT);
    cfg = ak_config_default();
    cfg.backend = AK_BACKEND_CPU;
    cfg.arch = "sm_80";
    AKT_OK(ak_context_create(&cfg, &sm80));
    cfg.arch = "sm_90";
    AKT_OK(ak_context_create(&cfg, &sm90));
    cfg.arch = "gfx90a";
    AKT_OK(ak_context_create(&cfg, &mi));
    if (sm80 && sm90 && mi) {
        static const size_t dims[] = { 16, 32, 40, 64, 80, 96, 112, 128, 144, 192, 200, 256 };
        static const int want80[] = { 32, 32, 64, 64, 80, 96, 128, 128, 160, 192, 256, 256 };
        static const int want90[] = { 32, 32, 64, 64, 80, 96, 128, 128, 192, 192, 256, 256 };
        size_t i;
        for (i = 0; i < sizeof dims / sizeof dims[0]; i++) {
            a = a0;
            a.head_dim = dims[i];
            AKT_OK(ak_attention_plan_get(sm80, &a, &pl));
            AKT_EQ_STR(pl.path, "mma.sync");
            AKT_EQ_INT(pl.head_dim, want80[i]);
            AKT_CHECK(pl.threads == 128 && pl.shared_bytes > 0 && pl.block_kv > 0 && pl.splits >= 1 && pl.reason);
            AKT_CHECKF(strstr(pl.kernel, "ak_attn_mma") == pl.kernel, "kernel %s", pl.kernel);
            AKT_OK(ak_attention_plan_get(sm90, &a, &pl));
            AKT_EQ_STR(pl.path, "wgmma");
            AKT_EQ_INT(pl.head_dim, want90[i]);
            AKT_EQ_INT(pl.threads, 384);
            AKT_EQ_INT(pl.rows_per_block, 128);
            AKT_CHECK(pl.shared_bytes > 0 && pl.shared_bytes <= 227u * 1024u && pl.reason);
            AKT_CHECKF(strstr(pl.kernel, "ak_attn_sm90_") == pl.kernel, "kernel %s", pl.kernel);
        }
        a = a0;
        a.head_dim = 36;   /* rows not 16-byte aligned: the mma.sync kernel (element copies) on sm_90 too */
        AKT_OK(ak_attention_plan_get(sm90, &a, &pl));
        AKT_EQ_STR(pl.path, "mma.sync");
        AKT_EQ_INT(pl.head_dim, 64);
        a = a0;
        a.window_left = 8; a.softcap = 10.0f;
        AKT_OK(ak_attention_plan_get(sm80, &a, &pl));
        AKT_EQ_STR(pl.path, "mma.sync");
        AKT_OK(ak_attention_plan_get(sm90, &a, &pl));
        AKT_EQ_STR(pl.path, "wgmma");
        AKT_OK(ak_attention_plan_get(mi, &a, &pl));   /* options: the AMD generic kernel takes none */
        AKT_EQ_STR(pl.path, "simt");
        a = a0; a.head_dim = 128;
        AKT_OK(ak_attention_plan_get(mi, &a, &pl));
        AKT_EQ_STR(pl.path, "mfma");
        AKT_EQ_STR(pl.kernel, "ak_attn_mma128_bf16");
        {   /* AMD: every head_dim <= 256 on the generic matrix kernel, padded to a multiple of 32 (80 -> 96) */
            static const size_t ad[] = { 16, 32, 40, 64, 80, 96, 112, 128, 144, 160, 192, 200, 256 };
            static const int aw[] = { 32, 32, 64, 64, 96, 96, 128, 128, 160, 160, 192, 256, 256 };
            static const char* const amd[] = { "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "gfx908" };
            size_t j;
            for (j = 0; j < sizeof amd / sizeof amd[0]; j++) {
                ak_context* x = NULL;
                cfg.arch = amd[j];
                AKT_OK(ak_context_create(&cfg, &x));
                if (!x) continue;
                for (i = 0; i < sizeof ad / sizeof ad[0]; i++) {
                    char want[48];
                    a = a0;
                    a.head_dim = ad[i];
                    AKT_OK(ak_attention_plan_get(x, &a, &pl));
                    if (j == 5 && aw[i] > 192) { /* gfx908 bf16 past 192: its 2-a-lane bf16 MFMA kernel would spill */
                        AKT_EQ_STR(pl.path, "simt");
                        AKT_CONTAINS(pl.reason, "gfx908");
                        a.dtype = AK_F16;
                        AKT_OK(ak_attention_plan_get(x, &a, &pl));   /* f16: the mfma kernel */
                    }
                    AKT_EQ_STR(pl.path, j < 3 || j == 5 ? "mfma" : "wmma");
                    AKT_EQ_INT(pl.head_dim, aw[i]);
                    AKT_EQ_INT(pl.threads, (j < 3 || j == 5 ? 64 : 32) * 4);
                    snprintf(want, sizeof want, "ak_attn_mma%d_%s", aw[i], ak_dtype_name(a.dtype));
                    AKT_EQ_STR(pl.kernel, want);
                }
                a = a0; a.head_dim = 300;
                AKT_ERR(ak_attention_plan_get(x, &a, &pl), AK_ERROR_INVALID_ARGUMENT);
                ak_context_destroy(x);
            }
            a = a0; a.head_dim = 128;
        }
        a.dtype = AK_F32;
        AKT_OK(ak_attention_plan_get(sm90, &a, &pl));
        AKT_EQ_STR(pl.path, "simt");
        AKT_CONTAINS(pl.reason, "f32");
        /* decode: one 16-row tile per block (a GQA group's heads) and a split of the keys */
        a = a0; a.seq_q = 1; a.seq_kv = 100000; a.batch = 1; a.causal = 0;
        AKT_OK(ak_attention_plan_get(sm90, &a, &pl));
        AKT_EQ_STR(pl.path, "mma.sync");
        AKT_EQ_INT(pl.rows_per_block, 16);
        AKT_CHECK(pl.splits > 1 && pl.split_len > 0);
        AKT_CHECKF(strstr(pl.kernel, "ak_attn_mmadec96") == pl.kernel, "kernel %s", pl.kernel);
    }
    if (sm80) ak_context_destroy(sm80);
    if (sm90) ak_context_destroy(sm90);
    if (mi) ak_context_destroy(mi);
}

/* Bad option values: clear errors, nothing written. */
static void attention_option_errors(void) {
    ak_context* ctx = at_ctx();
    at_case c = at_mk(AK_F16, 2, 2, 2, 8, 32, 64, AK_ATTN_BSHD, 0);
    at_host h;
    ak_attention_args a;
    int32_t cu1;
    if (!ctx) return;
    c.varlen = 3; c.used = 1;
    if (!at_make(&c, &at_rng, &h)) return;
    AKT_OK(ak_attention(ctx, &h.a, NULL));
    a = h.a; a.window_left = -1;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_CONTAINS(ak_last_error(), "window");
    a = h.a; a.softcap = -1.0f;
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    a = h.a; a.softcap = NAN;
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "softcap");
    a = h.a; a.cu_seqlens_q = (const int32_t*)((const char*)h.cuq + 2);
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    cu1 = h.cuq[1];
    h.cuq[1] = h.cuq[2] + 1;   /* not ascending */
    AKT_ERR_ITEM(ak_attention(ctx, &h.a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_CONTAINS(ak_last_error(), "cu_seqlens_q");
    h.cuq[1] = h.cuq[0] + 9;   /* a step past seq_q */
    AKT_ERR(ak_attention(ctx, &h.a, NULL), AK_ERROR_INVALID_ARGUMENT);
    h.cuq[1] = cu1;
    AKT_OK(ak_attention(ctx, &h.a, NULL));
    h.used[1] = 33;            /* more keys than the sequence has */
    AKT_ERR(ak_attention(ctx, &h.a, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "seqused_kv");
    h.used[1] = 0;
    AKT_OK(ak_attention(ctx, &h.a, NULL));
    a = h.a; a.total_q = 0; a.cu_seqlens_q = NULL;
    a.total_kv = 5; a.cu_seqlens_kv = NULL;   /* total without offsets */
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    /* paged */
    a = h.a; a.cu_seqlens_kv = NULL; a.total_kv = 0; a.block_table = h.cuq; a.page_size = 16; a.num_pages = 0;
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "num_pages");
    a.num_pages = 4; a.page_size = 24;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_CONTAINS(ak_last_error(), "power of two");
    a.page_size = 16; a.block_table_stride = 1;   /* seq_kv 32 needs 2 pages */
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    a = h.a; a.block_table = h.cuq; a.page_size = 16; a.num_pages = 4;  /* with cu_seqlens_kv */
    AKT_ERR(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT);
    a = h.a; a.page_size = 16;   /* page fields without a block table */
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    at_free(&h);
    c = at_mk(AK_F16, 2, 2, 2, 1, 40, 64, AK_ATTN_BSHD, 0);
    c.page = 16;
    if (!at_make(&c, &at_rng, &h)) return;
    AKT_OK(ak_attention(ctx, &h.a, NULL));
    h.btab[1] = (int32_t)h.a.num_pages;   /* a page out of range */
    AKT_ERR(ak_attention(ctx, &h.a, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "block_table");
    at_free(&h);
}

/* A zero-filled args struct with the required fields set is plain attention
 * (every option's zero is "off"). */
static void attention_zero_defaults(void) {
    ak_context* ctx = at_ctx();
    at_case c = at_mk(AK_F32, 1, 2, 2, 9, 20, 32, AK_ATTN_BHSD, 0);
    at_host h;
    ak_attention_args a;
    double *ref, *rlse;
    if (!ctx || !at_make(&c, &at_rng, &h)) return;
    memset(&a, 0, sizeof a);
    a.dtype = AK_F32; a.batch = 1; a.heads_q = 2; a.heads_kv = 2; a.seq_q = 9; a.seq_kv = 20; a.head_dim = 32;
    a.q = h.a.q; a.k = h.a.k; a.v = h.a.v; a.o = h.a.o; a.lse = h.a.lse;
    ref = (double*)malloc(2 * 9 * 32 * sizeof(double));
    rlse = (double*)malloc(2 * 9 * sizeof(double));
    if (ref && rlse && at_naive(&c, &h, ref, rlse)) {
        AKT_OK(ak_attention(ctx, &a, NULL));
        at_compare(&c, &h, ref, rlse, 2e-6, 1e-6, "zero-filled args");
    }
    free(ref); free(rlse);
    at_free(&h);
}

/* 8-bit K / V: the reference reads the codes times the head's scale. */
static void attention_kv8(void) {
    ak_context* ctx = at_ctx();
    at_case c;
    if (!ctx) return;
    c = at_mk(AK_BF16, 2, 8, 2, 1, 129, 64, AK_ATTN_BHSD, 0);   /* GQA 4 decode, splits */
    c.kvt = AK_FP8_E4M3; c.kvscale = 1; c.splits = 3;
    at_run_case(ctx, &c);
    c = at_mk(AK_F16, 3, 4, 1, 7, 1000, 128, AK_ATTN_BSHD, 1);   /* MQA, paged, causal */
    c.kvt = AK_FP8_E5M2; c.kvscale = 1; c.page = 16;
    at_run_case(ctx, &c);
    c = at_mk(AK_F32, 1, 2, 2, 1, 1, 32, AK_ATTN_STRIDED, 0);    /* one key, f32 q / o, no scales */
    c.kvt = AK_FP8_E4M3;
    at_run_case(ctx, &c);
    c = at_mk(AK_BF16, 3, 4, 2, 129, 1000, 80, AK_ATTN_BSHD, 1); /* packed, per-sequence key counts */
    c.kvt = AK_FP8_E5M2; c.kvscale = 1; c.varlen = 3; c.used = 1;
    at_run_case(ctx, &c);
    c = at_mk(AK_F16, 2, 4, 4, 7, 7, 96, AK_ATTN_BHSD, 0);       /* MHA, paged with seqused, splits */
    c.kvt = AK_FP8_E4M3; c.kvscale = 1; c.page = 4; c.used = 1; c.splits = 2;
    at_run_case(ctx, &c);
    c = at_mk(AK_F16, 1, 2, 1, 1000, 1000, 64, AK_ATTN_BHSD, 1); /* prefill */
    c.kvt = AK_FP8_E5M2;
    at_run_case(ctx, &c);
    c = at_mk(AK_BF16, 1, 4, 2, 1, 1000, 128, AK_ATTN_BSHD, 0);  /* large logits */
    c.kvt = AK_FP8_E4M3; c.kvscale = 1; c.amp = 6.0;
    at_run_case(ctx, &c);
}

/* 8-bit K / V: argument errors and the plan. */
static void attention_kv8_errors(void) {
    ak_context* ctx = at_ctx();
    at_case c = at_mk(AK_BF16, 1, 4, 2, 1, 40, 64, AK_ATTN_BHSD, 0);
    at_host h;
    ak_attention_args a;
    ak_attention_plan pl;
    ak_config cfg;
    ak_context *sm90 = NULL, *sm80 = NULL, *mi = NULL;
    c.kvt = AK_FP8_E4M3;
    c.kvscale = 1;
    if (!ctx || !at_make(&c, &at_rng, &h)) return;
    AKT_OK(ak_attention(ctx, &h.a, NULL));
    a = h.a; a.kv_dtype = AK_BF16;   /* dtype itself: K / V are bf16 (scales then refused) */
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "k_scale");
    a = h.a; a.kv_dtype = AK_F16;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "kv_dtype");
    a = h.a; a.kv_dtype = AK_FP8_E4M3_FNUZ;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    a = h.a; a.kv_dtype = AK_I8;
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    a = h.a; a.k_scale = (const float*)(const void*)((const char*)h.ksc + 1);
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    a = h.a; a.v_scale = (const float*)h.o;   /* o overlaps v_scale */
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    a = h.a; a.k_scale = (const float*)(const void*)h.lse;   /* lse overlaps k_scale */
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    a = h.a; a.o = (void*)(uintptr_t)a.k;   /* o over the codes (extent in bytes of the codes) */
    AKT_ERR_ITEM(ak_attention(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    {   /* codes are bytes: any address is aligned (a copy of K one byte into a larger buffer) */
        size_t kb = c.b * c.hkv * c.skv * c.d;
        unsigned char* k1 = (unsigned char*)malloc(kb + 1);
        if (k1) {
            memcpy(k1 + 1, h.a.k, kb);
            a = h.a; a.k = k1 + 1;
            AKT_OK(ak_attention(ctx, &a, NULL));
            free(k1);
        } else {
            akt_fail(__FILE__, __LINE__, "out of memory");
        }
    }
    {   /* zero: K / V of dtype (a bf16 K / V buffer of the same element count) */
        uint16_t* kv16 = (uint16_t*)calloc(h.kvn, sizeof(uint16_t));
        if (kv16) {
            a = h.a; a.kv_dtype = (ak_dtype)0; a.k_scale = a.v_scale = NULL;
            a.k = kv16 + h.kofs; a.v = kv16 + h.vofs;
            AKT_OK(ak_attention(ctx, &a, NULL));
            free(kv16);
        } else {
            akt_fail(__FILE__, __LINE__, "out of memory");
        }
    }
    /* the plan: the 8-bit decode kernel on NVIDIA sm_89+, dequantised K / V elsewhere */
    cfg = ak_config_default();
    cfg.backend = AK_BACKEND_CPU;
    cfg.arch = "sm_90";
    AKT_OK(ak_context_create(&cfg, &sm90));
    cfg.arch = "sm_80";
    AKT_OK(ak_context_create(&cfg, &sm80));
    cfg.arch = "gfx942";
    AKT_OK(ak_context_create(&cfg, &mi));
    if (sm90 && sm80 && mi) {
        ak_attention_plan p16;
        ak_attention_args a0;   /* pointers not read by the plan */
        memset(&a0, 0, sizeof a0);
        a0.dtype = AK_BF16; a0.batch = 2; a0.heads_q = 8; a0.heads_kv = 2; a0.seq_q = 1; a0.seq_kv = 5000;
        a0.head_dim = 64; a0.kv_dtype = AK_FP8_E4M3;
        a0.q = (const void*)(uintptr_t)0x10000000u; a0.k = (const void*)(uintptr_t)0x20000000u;
        a0.v = (const void*)(uintptr_t)0x30000000u; a0.o = (void*)(uintptr_t)0x40000000u;
        a0.k_scale = (const float*)(uintptr_t)0x50000000u; a0.v_scale = (const float*)(uintptr_t)0x50001000u;
        a = a0;
        AKT_OK(ak_attention_plan_get(sm90, &a, &pl));
        AKT_EQ_STR(pl.kernel, "ak_attn_mmadec64_e4m3_bf16");
        AKT_EQ_STR(pl.path, "mma.sync");
        AKT_CONTAINS(pl.reason, "8-bit");
        a.kv_dtype = (ak_dtype)0; a.k_scale = a.v_scale = NULL;
        AKT_OK(ak_attention_plan_get(sm90, &a, &p16));
        AKT_EQ_STR(p16.kernel, "ak_attn_mmadec64_bf16");
        AKT_CHECKF(pl.shared_bytes < p16.shared_bytes, "8-bit %zu, 16-bit %zu shared bytes", pl.shared_bytes,
                   p16.shared_bytes);
        a = a0; a.kv_dtype = AK_FP8_E5M2; a.head_dim = 256;
        AKT_OK(ak_attention_plan_get(sm90, &a, &pl));
        AKT_EQ_STR(pl.kernel, "ak_attn_mmadec256_e5m2_bf16");
        a = a0; a.head_dim = 40;   /* head_dim % 16 != 0: dequantised, then the 16-bit kernel */
        AKT_OK(ak_attention_plan_get(sm90, &a, &pl));
        AKT_EQ_STR(pl.kernel, "ak_attn_mmadec64_bf16");
        AKT_CONTAINS(pl.reason, "dequantised");
        a = a0; a.seq_q = 64;   /* prefill */
        AKT_OK(ak_attention_plan_get(sm90, &a, &pl));
        AKT_CONTAINS(pl.reason, "dequantised");
        a = a0;   /* sm_80: no 8-bit conversion instruction, the 16-bit kernel on dequantised K / V */
        AKT_OK(ak_attention_plan_get(sm80, &a, &pl));
        AKT_EQ_STR(pl.kernel, "ak_attn_mmadec64_bf16");
        AKT_CONTAINS(pl.reason, "dequantised");
        a = a0;   /* AMD */
        AKT_OK(ak_attention_plan_get(mi, &a, &pl));
        AKT_CONTAINS(pl.reason, "dequantised");
        AKT_CHECKF(strstr(pl.kernel, "e4m3") == NULL, "kernel %s", pl.kernel);
    }
    if (sm90) ak_context_destroy(sm90);
    if (sm80) ak_context_destroy(sm80);
    if (mi) ak_context_destroy(mi);
    at_free(&h);
}

void akt_suite_ops_attention(void) {
    AKT_RUN(attention_matrix);
    AKT_RUN(attention_large_logits);
    AKT_RUN(attention_splits);
    AKT_RUN(attention_fully_masked);
    AKT_RUN(attention_errors);
    AKT_RUN(attention_options);
    AKT_RUN(attention_plan);
    AKT_RUN(attention_option_errors);
    AKT_RUN(attention_zero_defaults);
    AKT_RUN(attention_kv8);
    AKT_RUN(attention_kv8_errors);
}
