/* Internal tests of the generated kernel interfaces (tools/akgen.c writes
 * _ak_kargs_<stem>, _AK_KIF_* and _ak_kernel_ifaces into amdkit.h; the ops of
 * >>impl:ops* launch through them): included by tests/test_main.c after the
 * implementation. Suite `kargs`.
 *
 * - the generated table: every embedded kernel has an interface, every
 *   interface a name, every table row an embedded kernel;
 * - a dry run of every op's GPU path: a cpu context whose backend table says
 *   "device memory" (so the ops take their GPU path) and records launches
 *   instead of running them (the cpu table has no compiler: nothing is
 *   compiled). Every launch goes through _ak_op_launch3, which refuses a
 *   kernel launched with another interface's packer, so an op whose kernel
 *   and packer drift apart fails here, without a GPU. The walk covers the
 *   ops' paths (shapes, dtypes, arch rows for GEMM and attention) and must
 *   reach every kernel of the library;
 * - the check itself can fail: a kernel launched with a foreign packer, and a
 *   kernel name without an interface, are errors. */
#include "at_walk_pool.h"

#define AKK_SEEN 2048 /* above the library's kernel count (a full table would drop launches and fail below) */
static char akk_seen[AKK_SEEN][96];
static int akk_nseen, akk_launches;

static ak_result akk_launch(ak_kernel* k, ak_dim3 g, ak_dim3 b, size_t sh, ak_stream* st, void** args) {
    int i;
    (void)g; (void)b; (void)sh; (void)st;
    akk_launches++;
    if (!args) return _ak_err(AK_ERROR_LAUNCH, "dry run: %s launched without arguments", k->name);
    for (i = 0; i < akk_nseen; i++)
        if (!strcmp(akk_seen[i], k->name)) return AK_OK;
    if (akk_nseen < AKK_SEEN) _ak_copy(akk_seen[akk_nseen++], sizeof akk_seen[0], k->name);
    else return _ak_err(AK_ERROR_LAUNCH, "dry run: more than %d kernels launched (raise AKK_SEEN)", AKK_SEEN);
    return AK_OK;
}

static _ak_backend_ops akk_backend;

/* Tensor maps of the dry run: any map is accepted (nothing reads it), unless akk_refuse_tmap (a driver that
 * refuses them: the GEMM's fallbacks run). */
static int akk_refuse_tmap;
static int akk_tensor_map(ak_context* ctx, void* map, int dtype, unsigned rank, const void* addr, const uint64_t* dims,
                          const uint64_t* strides, const uint32_t* box) {
    (void)ctx; (void)dtype; (void)rank; (void)addr; (void)dims; (void)strides; (void)box;
    memset(map, 0, 128);
    return akk_refuse_tmap ? 1 : 0;
}

/* A cpu context on the dry-run table; arch (NULL: none) names the arch row the
 * GEMM and attention planners read. */
static ak_context* akk_context(const char* arch) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU;
    cfg.log_level = AK_LOG_NONE;
    cfg.arch = arch;
    if (ak_context_create(&cfg, &ctx) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "cpu context: %s", ak_last_error());
        return NULL;
    }
    if (arch) {
        const ak_arch_info* ai = NULL;
        if (ak_arch_find(arch, &ai) == AK_OK) ctx->dev.arch_info = ai;
        _ak_copy(ctx->dev.arch, sizeof ctx->dev.arch, arch);
    }
    ctx->dev.compute_units = 132;  /* an H100's count: the planners' split / small-tile choices as on a GPU */
    _ak_pool_destroy(ctx->pool);
    ctx->pool = NULL;
    akk_backend = _ak_backend_cpu;
    akk_backend.host_memory = 0;   /* the ops take their GPU path */
    akk_backend.launch = akk_launch;
    akk_backend.tensor_map = akk_tensor_map;
    ctx->bk = &akk_backend;
    if (_ak_pool_create(ctx, &ctx->pool) != AK_OK) { ak_context_destroy(ctx); return NULL; }
    return ctx;
}

static int akk_was_launched(const char* name) {
    int i;
    for (i = 0; i < akk_nseen; i++)
        if (!strcmp(akk_seen[i], name)) return 1;
    return 0;
}

static void test_kargs_table(void) {
    int f, n = ak_embedded_count(), total = 0;
    size_t i;
    for (f = 0; f < n; f++) {
        const char *fam, *names, *p;
        AKT_OK(ak_embedded_at(f, &fam, NULL, &names));
        for (p = names; *p;) {
            char nm[128];
            size_t l = strcspn(p, " ");
            _ak_copy(nm, l + 1 < sizeof nm ? l + 1 : sizeof nm, p);
            AKT_CHECKF(_ak_op_kernel_iface(nm) > 0, "kernel %s (family %s) has no generated interface", nm, fam);
            total++;
            p += l;
            while (*p == ' ') p++;
        }
    }
    AKT_EQ_INT(total, (int)(sizeof _ak_kernel_ifaces / sizeof _ak_kernel_ifaces[0]));
    for (i = 0; i < sizeof _ak_kernel_ifaces / sizeof _ak_kernel_ifaces[0]; i++) {
        int id = _ak_kernel_ifaces[i].iface;
        AKT_CHECK(id > 0 && id < _AK_KIF_COUNT && _ak_kernel_interface_names[id][0]);
    }
    AKT_EQ_INT((int)(sizeof _ak_kernel_interface_names / sizeof _ak_kernel_interface_names[0]), _AK_KIF_COUNT);
}

/* Every op, over its paths, on a dry-run context. */
static void akk_walk_rowwise(ak_context* ctx) {
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16 };
    /* widths: in registers, co-operating blocks / wide norm, stats + apply (f16 past 131072; f32 past CUs x 8192) */
    static const size_t widths[] = { 100, 20000, 140000, 1200000 };
    size_t big = 2u * 1200000u;
    void *x = calloc(big, 4), *y = calloc(big, 4), *w = calloc(1200000, 4), *out = calloc(64, 8);
    int64_t tgt[2] = { 1, 3 };
    int64_t* tgt_many = (int64_t*)calloc(9000, sizeof(int64_t));
    float loss[2];
    size_t d, c;
    int op;
    if (!x || !y || !w || !out || !tgt_many) { akt_fail(__FILE__, __LINE__, "out of memory"); goto done; }
    for (d = 0; d < 3; d++) {
        ak_dtype t = dts[d];
        for (c = 0; c < 4; c++) {
            size_t cols = widths[c], rows = 2;
            AKT_OK(ak_softmax(ctx, t, x, y, rows, cols, 0, NULL));
            AKT_OK(ak_softmax(ctx, t, x, y, rows, cols, 1, NULL));
            AKT_OK(ak_layernorm(ctx, t, x, w, w, y, rows, cols, 1e-5f, NULL));
            AKT_OK(ak_rmsnorm(ctx, t, x, w, y, rows, cols, 1e-5f, NULL));
            AKT_OK(ak_cross_entropy(ctx, t, x, tgt, loss, rows, cols, -100, AK_LOSS_NONE, NULL));
            AKT_OK(ak_cross_entropy(ctx, t, x, tgt, loss, rows, cols, -100, AK_LOSS_MEAN, NULL));
            for (op = 0; op < (int)AK_REDUCE_OP_COUNT; op++) {
                AKT_OK(ak_reduce(ctx, (ak_reduce_op)op, t, x, out, rows, cols, NULL));
                AKT_OK(ak_reduce(ctx, (ak_reduce_op)op, t, x, out, 1, big, NULL)); /* split rows */
            }
        }
        /* cross-entropy mean over more rows than one combining block takes (_AK_ROWOP_XENT_ONE): partials + ak_xent_mean */
        if (tgt_many) AKT_OK(ak_cross_entropy(ctx, t, x, tgt_many, loss, 9000, 1, -100, AK_LOSS_MEAN, NULL));
        /* the row-op table's variants that no row picks yet (tests/ti_rowop.c): forced */
        _ak_rowop_force.variant = _AK_ROW_VARIANT_WIDE;
        _ak_rowop_force.block = 512;
        AKT_OK(ak_softmax(ctx, t, x, y, 2, 20001, 0, NULL));
        _ak_rowop_force.variant = _AK_ROW_VARIANT_SPLIT;   /* f16 / bf16 at 20000 take the wide kernel */
        _ak_rowop_force.block = 128;
        AKT_OK(ak_softmax(ctx, t, x, y, 2, 20000, 0, NULL));
        _ak_rowop_force.variant = _AK_ROW_VARIANT_SMALL;
        AKT_OK(ak_cross_entropy(ctx, t, x, tgt, loss, 2, 1000, -100, AK_LOSS_MEAN, NULL));
        _ak_rowop_force.variant = _AK_ROW_VARIANT_SLAB;
        AKT_OK(ak_softmax(ctx, t, x, y, 2, 127, 1, NULL));
        _ak_rowop_force.variant = _AK_ROW_VARIANT_GROUP;   /* a group that is not a power of two */
        _ak_rowop_force.block = 0;
        AKT_OK(ak_softmax(ctx, t, x, y, 2, 5120, 0, NULL));
        AKT_OK(ak_rmsnorm(ctx, t, x, w, y, 2, 4999, 1e-5f, NULL));
        _ak_rowop_force.variant = -1;
    }
done:
    free(x); free(y); free(w); free(out); free(tgt_many);
}

static void akk_walk_elementwise(ak_context* ctx) {
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16 };
    size_t n = 1000, d, e;
    void *x = calloc(n, 4), *y = calloc(n, 4), *z = calloc(n, 4);
    if (!x || !y || !z) { akt_fail(__FILE__, __LINE__, "out of memory"); goto done; }
    for (d = 0; d < 3; d++) {
        ak_dtype t = dts[d];
        AKT_OK(ak_fill(ctx, t, y, n, 1.0f, NULL));
        AKT_OK(ak_copy(ctx, t, x, y, n, NULL));
        for (e = 0; e < 3; e++)
            if (e != d) AKT_OK(ak_cast(ctx, t, x, dts[e], y, n, NULL));
        AKT_OK(ak_axpy(ctx, t, x, y, n, 2.0f, NULL));
        AKT_OK(ak_scale(ctx, t, x, y, n, 2.0f, NULL));
        AKT_OK(ak_binary(ctx, AK_OP_SUB, t, x, y, z, n, NULL));
        AKT_OK(ak_unary(ctx, AK_OP_GELU, t, x, y, n, 0.0f, NULL));
        AKT_OK(ak_transpose(ctx, t, x, y, 20, 50, NULL));
    }
done:
    free(x); free(y); free(z);
}

/* The LLM building blocks (>>impl:ops-llm): residual norms in registers and
 * wide, RoPE per dtype, the gather and the strided copy at every unit width
 * (16 / 8 / 4 / 2 / 1 bytes from the row bytes and alignment) and every cast. */
static void akk_walk_llm(ak_context* ctx) {
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16 };
    static const size_t widths[] = { 100, 20000 };
    static const ak_dtype bits[] = { AK_U8, AK_F16, AK_F32, AK_I64, AK_F32 };   /* u8 u16 u32 u64, u128 (4 f32) */
    size_t big = 2u * 20000u;
    char *x = (char*)calloc(big, 4), *r = (char*)calloc(big, 4), *h = (char*)calloc(big, 4), *y = (char*)calloc(big, 4);
    int64_t pos[4] = { 0, 1, 2, 3 };
    size_t d, c, e;
    if (!x || !r || !h || !y) { akt_fail(__FILE__, __LINE__, "out of memory"); goto done; }
    for (d = 0; d < 3; d++) {
        ak_dtype t = dts[d];
        for (c = 0; c < 2; c++) {
            AKT_OK(ak_add_layernorm(ctx, t, x, r, NULL, NULL, h, y, 2, widths[c], 1e-5f, NULL));
            AKT_OK(ak_add_rmsnorm(ctx, t, x, r, NULL, h, y, 2, widths[c], 1e-5f, NULL));
        }
        AKT_OK(ak_rope(ctx, AK_ROPE_NEOX, t, AK_I64, x, pos, y, 4, 2, 64, 64, 1e4f, NULL));
        /* interleaved halves, 16-byte aligned, multiples of 16: the grouped kernel ak_ropeg_<dt> */
        AKT_OK(ak_rope(ctx, AK_ROPE_INTERLEAVED, t, AK_I64, x, pos, y, 4, 2, 64, 64, 1e4f, NULL));
        for (e = 0; e < 3; e++) {
            size_t sh[1] = { 64 };
            int64_t st[1] = { 1 };
            if (e != d) AKT_OK(ak_copy_strided(ctx, t, dts[e], x, y, 1, sh, st, st, NULL));
        }
    }
    for (e = 0; e < 5; e++) {
        size_t sh[1] = { e == 4 ? 64u : 1u }, dim = e == 4 ? 4u : 1u;
        int64_t st[1] = { 1 };
        AKT_OK(ak_embedding(ctx, bits[e], AK_I64, x, pos, y, 4, 4, dim, NULL));
        AKT_OK(ak_copy_strided(ctx, bits[e], bits[e], x, y, 1, sh, st, st, NULL));
    }
    {   /* the integer casts */
        size_t sh[1] = { 64 };
        int64_t st[1] = { 1 };
        AKT_OK(ak_copy_strided(ctx, AK_I32, AK_I64, x, y, 1, sh, st, st, NULL));
        AKT_OK(ak_copy_strided(ctx, AK_I64, AK_I32, x, y, 1, sh, st, st, NULL));
    }
done:
    free(x); free(r); free(h); free(y);
}

/* random numbers, dropout, cumsum (one block per row; reduce-then-scan), top-k */
static void akk_walk_rng(ak_context* ctx) {
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16, AK_I32, AK_I64 };
    size_t n = 2u * 100000u, d;
    void *x = calloc(n, 8), *y = calloc(n, 8), *v = calloc(2048, 8);
    int64_t* ix = (int64_t*)calloc(2048, 8);
    uint8_t* m = (uint8_t*)calloc(n, 1);
    if (!x || !y || !v || !ix || !m) { akt_fail(__FILE__, __LINE__, "out of memory"); goto done; }
    for (d = 0; d < 5; d++) {
        ak_dtype t = dts[d];
        AKT_OK(ak_cumsum(ctx, t, x, y, 50, 1000, 0, NULL));
        AKT_OK(ak_cumsum(ctx, t, x, y, 2, 100000, 1, NULL));
        if (d >= 3) continue;
        AKT_OK(ak_rand_uniform(ctx, t, y, 1001, 1, 2, 0.0f, 1.0f, NULL));
        AKT_OK(ak_rand_normal(ctx, t, y, 1001, 1, 2, 0.0f, 1.0f, NULL));
        AKT_OK(ak_dropout(ctx, t, x, y, m, 1001, 0.5f, 1, 2, NULL));
        AKT_OK(ak_topk(ctx, t, x, v, ix, 2, 100000, 1024, 1, NULL));     /* a row over several blocks */
        AKT_OK(ak_topk(ctx, t, x, v, ix, 400, 500, 5, 1, NULL));         /* one block per row */
    }
done:
    free(x); free(y); free(v); free(ix); free(m);
}

/* a call of a shared walk (tests/at_walk_pool.h) that must succeed */
static void akk_ok(ak_result r) { AKT_CHECKF(r == AK_OK, "%s: %s", ak_result_name(r), ak_last_error()); }

/* along an axis, pooling, batch / group norm, scans: every path per dtype */
static void akk_walk_axis(ak_context* ctx) {
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16 };
    size_t n = 320000, d;
    void *x = calloc(n, 8), *y = calloc(n, 8), *w = calloc(64, 8);
    float* rs = (float*)calloc(64, 4);
    uint8_t* m = (uint8_t*)calloc(n, 1);
    if (!x || !y || !w || !rs || !m) { akt_fail(__FILE__, __LINE__, "out of memory"); goto done; }
    for (d = 0; d < 3; d++) {
        ak_dtype t = dts[d];
        size_t s1[3] = { 7, 33, 5 }, s2[3] = { 3, 5000, 7 }, s4[2] = { 5, 7 }, y4[2] = { 5, 1 };
        int op;
        for (op = 0; op < (int)AK_REDUCE_OP_COUNT; op++) {
            AKT_OK(ak_reduce_axes(ctx, (ak_reduce_op)op, t, x, y, 3, s1, 2u, NULL));   /* columns */
            AKT_OK(ak_reduce_axes(ctx, (ak_reduce_op)op, t, x, y, 3, s2, 2u, NULL));   /* columns, R in chunks */
        }
        AKT_OK(ak_normalize(ctx, AK_NORM_L2, t, x, y, 3, 64, 100, 0.0f, NULL));      /* columns */
        AKT_OK(ak_normalize(ctx, AK_NORM_L2, t, x, y, 300, 1000, 1, 0.0f, NULL));    /* block rows */
        AKT_OK(ak_normalize(ctx, AK_NORM_L2, t, x, y, 1, 300000, 1, 0.0f, NULL));    /* segments */
        AKT_OK(ak_binary_broadcast(ctx, AK_OP_MUL, t, x, w, y, 2, s4, y4, NULL));
        AKT_OK(ak_triangular(ctx, t, x, y, 2, 30, 40, 0, 1, NULL));
        akw_pool_calls(ctx, t, x, y, (int64_t*)w, akk_ok);
        AKT_OK(ak_batch_norm(ctx, t, x, y, 2, 8, 1000, w, w, rs, rs + 8, 1, 0.1f, 1e-5f, NULL));
        AKT_OK(ak_batch_norm(ctx, t, x, y, 2, 8, 1000, w, w, rs, rs + 8, 0, 0.1f, 1e-5f, NULL));
        AKT_OK(ak_group_norm(ctx, t, x, y, 2, 8, 1000, 4, w, w, 1e-5f, NULL));
        AKT_OK(ak_scan(ctx, AK_SCAN_PROD, t, x, m, y, 50, 1000, AK_SCAN_REVERSE, NULL));
        AKT_OK(ak_scan(ctx, AK_SCAN_SUM, t, x, m, y, 2, 100000, AK_SCAN_EXCLUSIVE | AK_SCAN_REVERSE, NULL));
        AKT_OK(ak_loss(ctx, AK_LOSS_MSE, t, x, w, AK_TARGET_ROW, (float*)y, 4, 16, 0.0f, 0, AK_LOSS_MEAN, NULL));
        AKT_OK(ak_triplet_margin_loss(ctx, t, x, x, x, (float*)y, 4, 16, 1.0f, 2.0f, 1e-6f, 0, AK_LOSS_MEAN, NULL));
    }
done:
    free(x); free(y); free(w); free(rs); free(m);
}

/* convolution on one arch row: every dtype, standard (f32 also as TF32), depthwise, transposed */
static void akk_walk_conv(ak_context* ctx) {
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16 };
    void *x = calloc(4096, 8), *w = calloc(4096, 8), *y = calloc(16384, 8);
    size_t d;
    int tf;
    if (!x || !w || !y) { akt_fail(__FILE__, __LINE__, "out of memory"); goto done; }
    for (d = 0; d < 3; d++) {
        ak_conv_desc c;
        memset(&c, 0, sizeof c);
        c.dtype = dts[d]; c.ndim = 2; c.batch = 2; c.in_channels = 4; c.out_channels = 8;
        c.in[0] = 9; c.in[1] = 10; c.kernel[0] = 3; c.kernel[1] = 3; c.x = x; c.w = w; c.y = y; c.bias = w;
        for (tf = 0; tf < (dts[d] == AK_F32 ? 2 : 1); tf++) {
            const int keep = ctx->cfg.allow_tf32;
            ctx->cfg.allow_tf32 = tf;
            AKT_OK(ak_conv(ctx, &c, NULL));
            ctx->cfg.allow_tf32 = keep;
        }
        c.transposed = 1; c.stride[0] = 2; c.output_padding[0] = 1;
        AKT_OK(ak_conv(ctx, &c, NULL));
        c.transposed = 0; c.stride[0] = 0; c.output_padding[0] = 0; c.groups = 4;
        AKT_OK(ak_conv(ctx, &c, NULL));   /* depthwise (channel multiplier 2): the stride-1 tiles */
        c.stride[1] = 2;
        AKT_OK(ak_conv(ctx, &c, NULL));   /* depthwise, strided: the general kernel */
        c.stride[1] = 0;
        if (dts[d] != AK_F32) {   /* the vector loader's cp.async kernels (NVIDIA: 32 channels, 9 k tiles a block) */
            memset(&c, 0, sizeof c);
            c.dtype = dts[d]; c.ndim = 2; c.batch = 2; c.in_channels = 32; c.out_channels = 32; c.layout = AK_CONV_CHANNELS_LAST;
            c.in[0] = 9; c.in[1] = 10; c.kernel[0] = 3; c.kernel[1] = 3; c.x = x; c.w = w; c.y = y;
            AKT_OK(ak_conv(ctx, &c, NULL));
            c.in_channels = 16; c.out_channels = 96;   /* sm_90: the wgmma kernel's 128-column tile */
            AKT_OK(ak_conv(ctx, &c, NULL));
        }
    }
done:
    free(x); free(y); free(w);
}

/* GEMM and attention on one arch row: every dtype, a large, a small and a
 * decode (m <= 16) GEMM; attention per head size, prefill and decode (split). */
/* 1: ak_attention keeps off the Hopper kernel (the mma.sync kernel runs on sm_90 too); 0: its own choice. */
void akt_attn_force_mma(int on) { _ak_attn_force_mma = on; }
/* the Hopper kernel's consumer warpgroups at head sizes <= 64: 0 the plan's, else 2 or 3. */
void akt_attn_sm90_nc(int n) { _ak_attn_sm90_nc = n; }

ak_result akt_attn_mmagen_launch(ak_context* ctx, ak_dtype t, size_t hd, ak_dim3 grid, ak_dim3 block, const void* q,
                                 const void* k, const void* v, void* o, float* lse, int hkv, int group, int sq, int skv,
                                 const int64_t qs[3], const int64_t ks[3], float scale_log2, int causal, int rows_per_block) {
    char name[64];
    ak_kernel* kr = NULL;
    _ak_kargs g;
    ak_result r;
    snprintf(name, sizeof name, "ak_attn_mmagen%zu_%s", hd, ak_dtype_name(t));
    if ((r = _ak_attn_mma_kernel(ctx, name, (int)hd, &kr)) != AK_OK) return r;
    _ak_kargs_attn_mmagen(&g, q, k, v, o, lse, hkv, group, sq, skv, (int32_t)hd, qs[0], qs[1], qs[2], ks[0], ks[1], ks[2],
                          ks[0], ks[1], ks[2], qs[0], qs[1], qs[2], scale_log2, causal, rows_per_block, 1,
                          (skv + 31) / 32 * 32, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, -1, causal ? 0 : -1, 0.0f);
    return _ak_op_launch3(ctx, kr, grid, block, 0, NULL, &g);
}

static void akk_walk_matrix(ak_context* ctx) {
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16 };
    static const size_t ms[] = { 2048, 2048, 256, 256, 8 };   /* large / small tiles, B stored K x N or N x K; decode */
    static const size_t hds[] = { 32, 64, 80, 96, 128, 160, 192, 256 };
    size_t big = 4096u * 4096u;
    void *a = calloc(big, 4), *b = calloc(big, 4), *dd = calloc(big, 4);
    size_t d, i, h;
    if (!a || !b || !dd) { akt_fail(__FILE__, __LINE__, "out of memory"); goto done; }
    for (d = 0; d < 3; d++) {
        for (i = 0; i < 5; i++) {
            ak_gemm_desc g = ak_gemm_desc_default();
            int x32;
            for (x32 = 0; x32 < 5; x32++) { /* 1: TF32; 2..4: the other transposes (the Hopper kernel's layouts) */
                ak_config* cfg = &ctx->cfg;
                g.dtype = dts[d]; g.out_dtype = dts[d];
                g.a = a; g.b = b; g.d = dd;
                g.m = ms[i]; g.n = i < 2 ? 4096 : 1024; g.k = i == 0 ? 4096 : i == 4 ? 4096 : 64; /* Hopper: 128x256, ping-pong, 128x128; decode split-K */
                g.trans_b = (i % 2 == 1 || i == 4) ^ (x32 >= 3);
                g.trans_a = x32 == 2 || x32 == 4;
                if (x32 == 1 && dts[d] != AK_F32) continue;
                if (x32 == 1) cfg->allow_tf32 = 1;
                AKT_OK(ak_gemm(ctx, &g, NULL));
                if (x32 == 1 && ctx->dev.arch_info && ctx->dev.arch_info->matrix == AK_MATRIX_WGMMA) {
                    akk_refuse_tmap = 1; /* TF32 without tensor maps: the cp.async wgmma kernels */
                    AKT_OK(ak_gemm(ctx, &g, NULL));
                    akk_refuse_tmap = 0;
                }
                cfg->allow_tf32 = 0;
            }
        }
        if (d > 0 && ctx->dev.arch_info && ctx->dev.arch_info->matrix == AK_MATRIX_WGMMA) {
            /* the Hopper kernel's 128x128 cooperative tile (a wave of 128x128 tiles, long k) and the 128x64 tile in
               2-CTA clusters (forced: not planned), every layout */
            int t;
            for (t = 0; t < 8; t++) {
                ak_gemm_desc g = ak_gemm_desc_default();
                const int was = _ak_gemm_force;
                g.dtype = dts[d]; g.out_dtype = dts[d]; g.a = a; g.b = b; g.d = dd;
                g.trans_a = t & 1; g.trans_b = (t >> 1) & 1;
                g.m = t < 4 ? 1024 : 256; g.n = t < 4 ? 2048 : 1024; g.k = t < 4 ? 4096 : 64;
                if (t >= 4) _ak_gemm_force = 8;
                AKT_OK(ak_gemm(ctx, &g, NULL));
                _ak_gemm_force = was;
            }
        }
        if (d == 0 && ctx->dev.arch_info && ctx->dev.arch_info->matrix == AK_MATRIX_WGMMA) {
            /* fp8 on the Hopper kernel: every pair of formats x the four kernels (128x256, ping-pong, 128x128 and
               the precise 128x128 one, q128); v 2 is precise (fast_accum 0), v 3 the 128x128 tile with fast_accum 1 */
            static const ak_dtype f8[2] = { AK_FP8_E4M3, AK_FP8_E5M2 };
            static const size_t sh[3][3] = { { 2048, 4096, 4096 }, { 2048, 4096, 64 }, { 256, 1024, 64 } };
            int pa, v;
            for (pa = 0; pa < 4; pa++)
                for (v = 0; v < 4; v++) {
                    ak_gemm_desc g = ak_gemm_desc_default();
                    const int si = v == 3 ? 2 : v;
                    g.dtype = f8[pa / 2]; g.dtype_b = f8[pa % 2]; g.out_dtype = v == 1 ? AK_F16 : AK_BF16;
                    g.a = a; g.b = b; g.d = dd; g.trans_b = 1;
                    g.m = sh[si][0]; g.n = sh[si][1]; g.k = sh[si][2];
                    g.scale_a = (const float*)(const void*)((char*)b + big * 2); g.scale_b = g.scale_a + 4096;
                    g.scale_a_per_row = g.scale_b_per_col = v != 2;
                    g.fast_accum = v != 2;
                    AKT_OK(ak_gemm(ctx, &g, NULL));
                }
        }
        {   /* few output tiles and a long k on the SIMT path (B stored n x k, so not the small-m gemv): split-K and
               its finishing kernel */
            ak_gemm_desc g = ak_gemm_desc_default();
            g.dtype = dts[d]; g.out_dtype = dts[d]; g.a = a; g.b = b; g.d = dd;
            g.m = 200; g.n = 300; g.k = 4096; g.trans_b = 1;
            AKT_OK(ak_gemm(ctx, &g, NULL));
        }
        if (d > 0) {   /* int8 (K-major): large and small tiles, f16 / bf16 out (Hopper: the TMA kernel's 128x256,
                          ping-pong and 128x128 variants); arches without int8 matrix instructions refuse */
            static const size_t sh[3][3] = { { 2048, 4096, 4096 }, { 2048, 4096, 64 }, { 256, 1024, 64 } };
            int v;
            for (v = 0; v < 3; v++) {
                ak_gemm_desc g = ak_gemm_desc_default();
                ak_result r;
                g.dtype = AK_I8; g.dtype_b = AK_I8; g.out_dtype = dts[d]; g.a = a; g.b = b; g.d = dd; g.trans_b = 1;
                g.m = sh[v][0]; g.n = sh[v][1]; g.k = sh[v][2];
                r = ak_gemm(ctx, &g, NULL);
                AKT_CHECK(r == AK_OK || r == AK_ERROR_MATRIX_CORES);
            }
            /* fp8 (K-major): every pair of formats, large and small tiles (AMD targets with fp8 matrix instructions,
             * Hopper's TMA kernel); the others refuse */
            for (v = 0; v < 8; v++) {
                ak_gemm_desc g = ak_gemm_desc_default();
                ak_result r;
                g.dtype = v & 1 ? AK_FP8_E5M2 : AK_FP8_E4M3; g.dtype_b = v & 2 ? AK_FP8_E5M2 : AK_FP8_E4M3; g.out_dtype = dts[d];
                g.a = a; g.b = b; g.d = dd; g.trans_b = 1;
                g.m = v & 4 ? 256 : 2048; g.n = v & 4 ? 1024 : 4096; g.k = 64;
                r = ak_gemm(ctx, &g, NULL);
                AKT_CHECK(r == AK_OK || r == AK_ERROR_MATRIX_CORES);
            }
        }
        {   /* a matrix times a vector: the gemv kernel */
            ak_gemm_desc g = ak_gemm_desc_default();
            g.dtype = dts[d]; g.out_dtype = dts[d]; g.a = a; g.b = b; g.d = dd;
            g.m = 1000; g.n = 1; g.k = 4096;
            AKT_OK(ak_gemm(ctx, &g, NULL));
            if (dts[d] == AK_F32) { /* exact f32, few rows and few columns: the 32-column gemvn kernel */
                g.m = 8; g.n = 768; g.k = 512;
                AKT_OK(ak_gemm(ctx, &g, NULL));
                g.m = 1; g.n = 4096; g.k = 512; /* one row: the 512-thread gemvn kernel */
                AKT_OK(ak_gemm(ctx, &g, NULL));
                g.n = 20000; /* many column blocks: its 256-thread form (NVIDIA) */
                AKT_OK(ak_gemm(ctx, &g, NULL));
            }
        }
        for (h = 0; h < sizeof hds / sizeof hds[0]; h++) {
            ak_attention_args at;
            int dec;
            for (dec = 0; dec < 2; dec++) {
                memset(&at, 0, sizeof at);
                at.dtype = dts[d];
                at.batch = 1; at.heads_q = 4; at.heads_kv = 2;
                at.seq_q = dec ? 1 : 256; at.seq_kv = dec ? 4096 : 256; at.head_dim = hds[h];
                at.q = a; at.k = b; at.v = dd; at.o = (char*)a + big * 2;
                AKT_OK(ak_attention(ctx, &at, NULL));
                if (!dec && hds[h] <= 64) {   /* the Hopper kernel's 3 consumer warpgroups (planned on large grids only) */
                    akt_attn_sm90_nc(3);
                    AKT_OK(ak_attention(ctx, &at, NULL));
                    akt_attn_sm90_nc(0);
                }
                {   /* 8-bit K / V: the decode kernels (f16 / bf16 decode), else dequantised K / V (f32, prefill) */
                    int f;
                    for (f = 0; f < 2; f++) {
                        at.kv_dtype = f ? AK_FP8_E5M2 : AK_FP8_E4M3;
                        at.k_scale = (const float*)(const void*)((char*)b + big * 2);
                        at.v_scale = at.k_scale + 64;
                        AKT_OK(ak_attention(ctx, &at, NULL));
                    }
                }
            }
            if (dts[d] != AK_F32 && (hds[h] == 64 || hds[h] == 128)) {   /* the generic kernel, as t_gpu_attention runs it */
                ak_dim3 grid = { 4, 1, 2 }, block = { 128, 1, 1 };
                int64_t qs[3] = { 256 * 4 * 64, 256 * 64, 64 }, ks[3] = { 256 * 2 * 64, 256 * 64, 64 };
                AKT_OK(akt_attn_mmagen_launch(ctx, dts[d], hds[h], grid, block, a, b, dd, (char*)a + big * 2, NULL, 2, 2, 256, 256,
                                              qs, ks, 0.125f, 1, 128));
            }
        }
    }
done:
    free(a); free(b); free(dd);
}

/* quantisation: every source dtype x fp8 encoding, scales computed (the amax
 * pass) and given, and the way back */
static void akk_walk_quant(ak_context* ctx) {
    static const ak_dtype xs[3] = { AK_F32, AK_F16, AK_BF16 };
    static const ak_dtype qs[4] = { AK_FP8_E4M3, AK_FP8_E5M2, AK_FP8_E4M3_FNUZ, AK_FP8_E5M2_FNUZ };
    float x[3 * 300], y[3 * 300], sc[3 * 3], amax;
    uint8_t q[3 * 300];
    int i, j, m;
    memset(x, 0, sizeof x);
    for (i = 0; i < 3; i++)
        for (j = 0; j < 4; j++)
            for (m = 0; m < 3; m++) {
                ak_quant_args a;
                memset(&a, 0, sizeof a);
                a.x_dtype = xs[i]; a.x = x; a.q_dtype = qs[j]; a.q = q; a.rows = 3; a.cols = 300;
                a.mode = (ak_quant_mode)m; a.scale = sc; a.compute_scale = 1; a.amax = &amax;
                AKT_OK(ak_quantize(ctx, &a, NULL));
                AKT_OK(ak_dequantize(ctx, qs[j], q, xs[i], y, 3, 300, (ak_quant_mode)m, sc, NULL));
            }
    {   /* the tensor past twice what the one-pass kernel's registers hold (here on one compute unit: 65536 16-bit
           elements): the amax pass and the code pass */
        const int cus = ctx->dev.compute_units;
        const size_t n = 140000;
        void* bx = calloc(n, 4);
        uint8_t* bq = (uint8_t*)malloc(n);
        ctx->dev.compute_units = 1;
        for (i = 0; bx && bq && i < 3; i++)
            for (j = 0; j < 4; j++) {
                ak_quant_args a;
                memset(&a, 0, sizeof a);
                a.x_dtype = xs[i]; a.x = bx; a.q_dtype = qs[j]; a.q = bq; a.rows = 2; a.cols = n / 2;
                a.mode = AK_QUANT_TENSOR; a.scale = sc; a.compute_scale = 1; a.amax = &amax;
                AKT_OK(ak_quantize(ctx, &a, NULL));
            }
        ctx->dev.compute_units = cus;
        free(bx); free(bq);
    }
}

static void test_kargs_every_op_launch(void) {
    static const char* archs[] = { NULL, "sm_90", "sm_80", "gfx942", "gfx90a", "gfx1100", "gfx1030" };
    size_t i, a;
    int missing = 0;
    akk_nseen = akk_launches = 0;
    for (a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        ak_context* ctx = akk_context(archs[a]);
        if (!ctx) return;
        if (!archs[a]) {
            akk_walk_elementwise(ctx);
            akk_walk_rowwise(ctx);
            akk_walk_llm(ctx);
            akk_walk_rng(ctx);
            akk_walk_axis(ctx);
            akk_walk_quant(ctx);
        }
        akk_walk_matrix(ctx);
        akk_walk_conv(ctx);
        ak_context_destroy(ctx);
    }
    AKT_CHECK(akk_launches > 0);
    for (i = 0; i < sizeof _ak_kernel_ifaces / sizeof _ak_kernel_ifaces[0]; i++)
        if (!akk_was_launched(_ak_kernel_ifaces[i].kernel)) {
            missing++;
            akt_fail(__FILE__, __LINE__, "kernel %s was not launched by any op of the walk (add the op / shape / arch "
                     "that runs it to tests/ti_kargs.c)", _ak_kernel_ifaces[i].kernel);
        }
    AKT_EQ_INT(missing, 0);
}

static void test_kargs_mismatch_refused(void) {
    ak_context* ctx = akk_context(NULL);
    ak_kernel* k = NULL;
    _ak_kargs a;
    float buf[64];
    if (!ctx) return;
    AKT_OK(_ak_op_kernel(ctx, _ak_src_norm, "ak_norm_f32", &k));
    AKT_EQ_INT(k->iface, _AK_KIF_norm);
    /* another interface's packer: refused before anything is launched */
    akk_launches = 0;
    _ak_kargs_softmax(&a, buf, buf, 1, 16, 1, 0, 0);
    AKT_ERR_ITEM(_ak_op_launch(ctx, k, 1, 128, 0, NULL, &a), AK_ERROR_LAUNCH, AK_ERRITEM_RUNTIME_CALL);
    AKT_CHECK(strstr(ak_last_error(), "ak_norm_f32") && strstr(ak_last_error(), "'softmax'") &&
              strstr(ak_last_error(), "'norm'"));
    AKT_EQ_INT(akk_launches, 0);
    /* its own packer: launched */
    _ak_kargs_norm(&a, buf, NULL, NULL, buf, 1, 16, 1, 0, 1e-5f, 0);
    AKT_OK(_ak_op_launch(ctx, k, 1, 128, 0, NULL, &a));
    AKT_EQ_INT(akk_launches, 1);
    /* a kernel name the generated table does not know */
    AKT_ERR_ITEM(_ak_op_kernel(ctx, _ak_src_norm, "ak_norm_f64", &k), AK_ERROR_NOT_FOUND, AK_ERRITEM_KERNEL_NOT_FOUND);
    AKT_CHECK(strstr(ak_last_error(), "ak_norm_f64") != NULL);
    ak_context_destroy(ctx);
}

/* The split counts of the NVIDIA decode forms on the H100's row (132 SMs), bf16 q, GQA 4 (32 query heads,
 * 8 kv heads), one query: the counts the rule gives where an H100 split sweep measured them (bench/NOTES.md,
 * decode split rule). 16-bit: the fill rule, then >= 2.5 full waves once split; 8-bit: the modelled time. */
static void test_kargs_attention_decode_splits(void) {
    static const struct { size_t b, skv, d; int kv8, want; } cs[] = {
        { 64, 8192, 128, 0, 1 }, { 32, 4096, 128, 0, 1 }, { 8, 32768, 128, 0, 12 }, { 1, 131072, 128, 0, 30 },
        { 16, 3000, 128, 0, 2 }, { 32, 8192, 64, 0, 1 }, { 32, 4096, 256, 0, 6 }, { 4, 20000, 128, 0, 23 },
        { 64, 8192, 128, 1, 2 }, { 32, 4096, 128, 1, 1 }, { 8, 32768, 128, 1, 4 }, { 1, 131072, 128, 1, 32 },
        { 16, 3000, 128, 1, 2 }, { 32, 8192, 64, 1, 1 }, { 32, 4096, 256, 1, 3 }, { 2, 65536, 128, 1, 16 } };
    ak_context* ctx = akk_context("sm_90");
    static const float sc[1] = { 1.0f };
    size_t i;
    if (!ctx) return;
    for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        ak_attention_args a;
        ak_attention_plan pl;
        memset(&a, 0, sizeof a);
        a.dtype = AK_BF16;
        a.batch = cs[i].b; a.heads_q = 32; a.heads_kv = 8; a.seq_q = 1; a.seq_kv = cs[i].skv; a.head_dim = cs[i].d;
        /* planned, not launched: addresses far apart (the plan checks overlaps and alignment only) */
        a.q = (const void*)((size_t)1 << 40); a.k = (const void*)((size_t)2 << 40);
        a.v = (const void*)((size_t)3 << 40); a.o = (void*)((size_t)4 << 40);
        if (cs[i].kv8) { a.kv_dtype = AK_FP8_E4M3; a.k_scale = a.v_scale = sc; }
        AKT_OK(ak_attention_plan_get(ctx, &a, &pl));
        AKT_CHECKF(strstr(pl.kernel, "ak_attn_mmadec") == pl.kernel, "kernel %s", pl.kernel);
        AKT_CHECKF(pl.splits == cs[i].want, "b%zu x %zu keys d%zu %s: %d splits, want %d", cs[i].b, cs[i].skv, cs[i].d,
                   cs[i].kv8 ? "8-bit" : "16-bit", pl.splits, cs[i].want);
        a.num_splits = 7;   /* a count asked for is kept */
        AKT_OK(ak_attention_plan_get(ctx, &a, &pl));
        AKT_EQ_INT(pl.splits, 7);
    }
    ak_context_destroy(ctx);
}

void akt_suite_kargs(void) {
    AKT_RUN(test_kargs_table);
    AKT_RUN(test_kargs_every_op_launch);
    AKT_RUN(test_kargs_mismatch_refused);
    AKT_RUN(test_kargs_attention_decode_splits);
}
