/* Suite gpu_attention (runs with --gpu, needs a GPU): ak_attention on the
 * device against its CPU reference (the same call on a cpu context), on
 * fresh random inputs (never zeros), output and lse poisoned with 0xFF bytes
 * (NaN) before each run, over every kernel path: the matrix-core path of the
 * device (default context), the SIMT path (a context with matrix_cores off:
 * every dtype and head_dim 32 / 64 / 80 / 96 / 128 / 256), the split
 * (flash-decoding) path with forced and automatic split counts; odd sequence
 * lengths (1, 17, 1000, 4097), every layout, GQA 1 / 4 / 8, causal both ways,
 * seq_q > seq_kv (fully masked rows) and < seq_kv, large logits; every head
 * size of the matrix path against every option (windows, soft-cap, packed
 * sequences, per-sequence key counts, paged K / V); and the
 * generic matrix kernel (the AMD matrix path's algorithm) launched directly
 * on this device; 8-bit K / V (e4m3 / e5m2 codes, per-kv-head scales) on the
 * 8-bit decode kernels (every head size, contiguous, paged, splits) and on
 * the dequantising path (prefill, head sizes off the 16 grid, SIMT). Tolerance
 * relative to max |v|: f32 1e-4, f16 3e-3, bf16 2e-2 (the matrix-core path
 * rounds the probabilities to the input type before P V, as FlashAttention
 * does); lse 2e-5 x (1 + |lse|). */
#include "at_common.h"

static ak_context *g_gpu, *g_simt, *g_cpu;
static unsigned long long g_rng;

static int ga_setup(void) {
    if (!g_gpu) {
        ak_config cfg;
        if (ak_context_create(NULL, &g_gpu) != AK_OK) {
            akt_fail(__FILE__, __LINE__, "no GPU context: %s", ak_last_error());
            g_gpu = NULL;
            return 0;
        }
        cfg = ak_config_default();
        if (ak_config_apply_env(&cfg) == AK_OK) {
            cfg.matrix_cores = AK_OFF;
            if (ak_context_create(&cfg, &g_simt) != AK_OK) {
                akt_fail(__FILE__, __LINE__, "second GPU context (matrix_cores off): %s", ak_last_error());
                g_simt = NULL;
            }
        }
        g_rng = akt_seed() ^ 0x5EEDA77Eull;
        if (getenv("AKT_ATTN_FORCE_MMA")) akt_attn_force_mma(1);   /* bench/attn_device.sh: keep off the Hopper kernel */
    }
#ifndef AKT_GPU_ON_CPU
    if (ak_context_device(g_gpu)->backend == AK_BACKEND_CPU) {
        akt_fail(__FILE__, __LINE__, "no GPU: the context fell back to the cpu backend (gpu_* suites need a GPU)");
        return 0;
    }
#endif
    if (!g_cpu) g_cpu = akt_cpu_context("gpu_attention_ref");
    return g_cpu != NULL && g_simt != NULL;
}


/* n int32 values to new device memory (*out stays NULL when src is NULL). 0 on failure. */
static int ga_ints(ak_context* ctx, const int32_t* src, size_t n, void** out) {
    *out = NULL;
    if (!src) return 1;
    if (ak_malloc(ctx, (n ? n : 1) * 4, NULL, out) != AK_OK) return 0;
    return ak_memcpy(ctx, *out, src, n * 4, AK_H2D) == AK_OK;
}

/* One case on ctx (g_gpu or g_simt) against the CPU reference. */
static void ga_case(ak_context* ctx, const char* path, const at_case* c) {
    at_host h;
    size_t es = ak_dtype_size(c->t), kes = ak_dtype_size(at_kvt(c)), rows = c->b * c->hq * c->sq;
    char tag[448], t0[384];
    double *ref = NULL, *rlse = NULL;
    void *dq = NULL, *dkv = NULL, *dout = NULL, *dlse = NULL, *dcuq = NULL, *dcukv = NULL, *dused = NULL, *dbt = NULL;
    void *dks = NULL, *dvs = NULL;
    double tol = c->t == AK_F32 ? 1e-4 : c->t == AK_F16 ? 3e-3 : 2e-2;
    ak_attention_args a;
    ak_result r;
    at_tag(c, t0, sizeof t0);
    snprintf(tag, sizeof tag, "[%s] %s", path, t0);
    if (!at_make(c, &g_rng, &h)) { akt_fail(__FILE__, __LINE__, "%s: host allocation", tag); return; }
    ref = (double*)malloc(rows * c->d * sizeof(double));
    rlse = (double*)malloc(rows * sizeof(double));
    if (!ref || !rlse) { akt_fail(__FILE__, __LINE__, "%s: host allocation", tag); goto out; }
    /* the reference */
    r = ak_attention(g_cpu, &h.a, NULL);
    if (r != AK_OK) { akt_fail(__FILE__, __LINE__, "%s: cpu reference: %s", tag, ak_last_error()); goto out; }
    at_collect(c, &h, ref, rlse);   /* a cpu-context run: at_compare's reference */
    /* the device run */
    if (ak_malloc(ctx, h.qn * es, NULL, &dq) != AK_OK || ak_malloc(ctx, h.kvn * kes, NULL, &dkv) != AK_OK ||
        ak_malloc(ctx, h.on * es, NULL, &dout) != AK_OK || ak_malloc(ctx, rows * 4, NULL, &dlse) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "%s: device allocation: %s", tag, ak_last_error());
        goto out;
    }
    AKT_OK(ak_memcpy(ctx, dq, h.q, h.qn * es, AK_H2D));
    AKT_OK(ak_memcpy(ctx, dkv, h.kv, h.kvn * kes, AK_H2D));
    AKT_OK(ak_memset(ctx, dout, 0xFF, h.on * es, NULL));
    AKT_OK(ak_memset(ctx, dlse, 0xFF, rows * 4, NULL));
    a = h.a;
    a.q = dq;
    a.k = (char*)dkv + h.kofs * kes;
    a.v = (char*)dkv + h.vofs * kes;
    if (h.ksc) {
        if (ak_malloc(ctx, c->hkv * 4, NULL, &dks) != AK_OK || ak_malloc(ctx, c->hkv * 4, NULL, &dvs) != AK_OK) {
            akt_fail(__FILE__, __LINE__, "%s: device allocation: %s", tag, ak_last_error());
            goto out;
        }
        AKT_OK(ak_memcpy(ctx, dks, h.ksc, c->hkv * 4, AK_H2D));
        AKT_OK(ak_memcpy(ctx, dvs, h.vsc, c->hkv * 4, AK_H2D));
        a.k_scale = (const float*)dks;
        a.v_scale = (const float*)dvs;
    }
    a.o = dout;
    a.lse = c->lse ? (float*)dlse : NULL;
    /* the per-sequence arrays in device memory */
    if (!ga_ints(ctx, h.cuq, c->b + 1, &dcuq) || !ga_ints(ctx, h.cukv, c->b + 1, &dcukv) ||
        !ga_ints(ctx, h.used, c->b, &dused) || !ga_ints(ctx, h.btab, h.nbt, &dbt)) {
        akt_fail(__FILE__, __LINE__, "%s: device allocation: %s", tag, ak_last_error());
        goto out;
    }
    a.cu_seqlens_q = (const int32_t*)dcuq;
    a.cu_seqlens_kv = (const int32_t*)dcukv;
    a.seqused_kv = (const int32_t*)dused;
    a.block_table = (const int32_t*)dbt;
    r = ak_attention(ctx, &a, NULL);
    if (r != AK_OK) { akt_fail(__FILE__, __LINE__, "%s: %s: %s", tag, ak_result_name(r), ak_last_error()); goto out; }
    r = ak_device_synchronize(ctx);
    if (r != AK_OK) { akt_fail(__FILE__, __LINE__, "%s: synchronize: %s", tag, ak_last_error()); goto out; }
    AKT_OK(ak_memcpy(ctx, h.o, dout, h.on * es, AK_D2H));
    AKT_OK(ak_memcpy(ctx, h.lse, dlse, rows * 4, AK_D2H));
    if (at_compare(c, &h, ref, rlse, c->amp > 4 ? tol * 2 : tol, c->amp > 4 ? 1e-4 : 2e-5, tag))
        printf("    ok %s\n", tag);
out:
    if (dq) ak_free(ctx, dq);
    if (dkv) ak_free(ctx, dkv);
    if (dout) ak_free(ctx, dout);
    if (dlse) ak_free(ctx, dlse);
    if (dcuq) ak_free(ctx, dcuq);
    if (dcukv) ak_free(ctx, dcukv);
    if (dused) ak_free(ctx, dused);
    if (dbt) ak_free(ctx, dbt);
    if (dks) ak_free(ctx, dks);
    if (dvs) ak_free(ctx, dvs);
    free(ref); free(rlse);
    at_free(&h);
}

/* Prefill / general shapes on one context: per head size, the dtype rotates
 * over the shapes (CPU reference time stays in seconds). */
static void ga_matrix(ak_context* ctx, const char* path, const size_t* dims, int ndims) {
    static const ak_dtype ts[3] = { AK_F16, AK_BF16, AK_F32 };
    int di;
    for (di = 0; di < ndims; di++) {
        size_t d = dims[di];
        at_case c;
        c = at_mk(ts[di % 3], 2, 4, 4, 17, 17, d, AK_ATTN_BHSD, di % 2);
        ga_case(ctx, path, &c);
        c = at_mk(ts[(di + 1) % 3], 1, 4, 1, 1000, 1000, d, (ak_attention_layout)(di % 3), 1);  /* GQA 4 */
        ga_case(ctx, path, &c);
        c = at_mk(ts[(di + 2) % 3], 1, 8, 1, 65, 4097, d, (ak_attention_layout)((di + 1) % 3), di % 2);  /* GQA 8 */
        ga_case(ctx, path, &c);
        c = at_mk(ts[di % 3], 1, 2, 2, 1000, 17, d, (ak_attention_layout)((di + 2) % 3), 1);  /* fully masked rows */
        ga_case(ctx, path, &c);
        c = at_mk(ts[(di + 1) % 3], 2, 2, 1, 129, 1000, d, AK_ATTN_BSHD, (di + 1) % 2);
        ga_case(ctx, path, &c);
    }
}

static void gpu_attention_simt(void) {
    static const size_t dims[6] = { 32, 64, 80, 96, 128, 256 };
    if (!ga_setup()) return;
    ga_matrix(g_simt, "simt", dims, 6);
}

static void gpu_attention_default(void) {
    static const size_t dims[3] = { 64, 128, 96 };
    at_case c;
    if (!ga_setup()) return;
    ga_matrix(g_gpu, "default", dims, 3);
    /* a long square causal sequence */
    c = at_mk(AK_F16, 1, 1, 1, 4097, 4097, 128, AK_ATTN_BSHD, 1);
    ga_case(g_gpu, "default", &c);
    c = at_mk(AK_BF16, 1, 2, 2, 1000, 4097, 64, AK_ATTN_BHSD, 0);
    ga_case(g_gpu, "default", &c);
}

/* Decode: seq_q 1..16 against long K/V, automatic and forced splits. */
static void gpu_attention_decode(void) {
    static const ak_dtype ts[3] = { AK_F16, AK_BF16, AK_F32 };
    int ti;
    if (!ga_setup()) return;
    for (ti = 0; ti < 3; ti++) {
        at_case c = at_mk(ts[ti], 4, 32, 8, 1, 8191, 128, AK_ATTN_BHSD, 0);
        ga_case(g_gpu, "decode", &c);
        c = at_mk(ts[ti], 1, 8, 1, 16, 10001, 128, AK_ATTN_BSHD, 1);
        ga_case(g_gpu, "decode", &c);
        c = at_mk(ts[ti], 2, 4, 4, 5, 4097, 64, AK_ATTN_STRIDED, 1);
        c.splits = 7;
        ga_case(g_gpu, "decode", &c);
        c = at_mk(ts[ti], 1, 4, 1, 16, 17, 256, AK_ATTN_BHSD, 1);
        c.splits = 3;
        ga_case(g_simt, "decode-simt", &c);
        c = at_mk(ts[ti], 1, 8, 2, 3, 1000, 80, AK_ATTN_BSHD, 0);
        c.splits = 128;
        ga_case(g_simt, "decode-simt", &c);
    }
    {
        at_case c = at_mk(AK_F16, 1, 8, 2, 1, 131072, 128, AK_ATTN_BHSD, 1);
        ga_case(g_gpu, "decode", &c);
    }
}

/* Large logits (|scores| in the thousands) and an explicit scale. */
static void gpu_attention_large_logits(void) {
    static const ak_dtype ts[3] = { AK_F16, AK_BF16, AK_F32 };
    int ti;
    if (!ga_setup()) return;
    for (ti = 0; ti < 3; ti++) {
        at_case c = at_mk(ts[ti], 1, 4, 2, 300, 1000, 128, AK_ATTN_BHSD, ti % 2);
        c.amp = 8.0; c.scale = 1.0f;
        ga_case(g_gpu, "default", &c);
        ga_case(g_simt, "simt", &c);
        c = at_mk(ts[ti], 1, 4, 1, 1, 4097, 64, AK_ATTN_BSHD, 0);
        c.amp = 8.0; c.scale = 0.7f;
        ga_case(g_gpu, "decode", &c);
    }
}

/* The generic matrix kernel (ak_attn_mmagen*: what AMD targets run as their
 * matrix path, built on the prelude's fragment operations) launched directly
 * on this device, against the CPU reference: the algorithm (scores through
 * shared memory, transposed V, per-lane accumulator rows) checked on silicon. */
static void ga_generic_case(const at_case* c) {
    const ak_device_info* dev = ak_context_device(g_gpu);
    int wave = dev->wave_size > 0 ? dev->wave_size : 32;
    int mfma = dev->arch_info && dev->arch_info->matrix == AK_MATRIX_MFMA;
    unsigned R = mfma ? 128u : 64u;
    size_t es = ak_dtype_size(c->t), rows = c->b * c->hq * c->sq, group = c->hq / c->hkv;
    char tag[448], t0[384];
    at_host h;
    double *ref = NULL, *rlse = NULL;
    void *dq = NULL, *dkv = NULL, *dout = NULL, *dlse = NULL;
    int64_t qs[3], ks[3];
    at_tag(c, t0, sizeof t0);
    snprintf(tag, sizeof tag, "[generic] %s", t0);
    if (!at_make(c, &g_rng, &h)) return;
    ref = (double*)malloc(rows * c->d * sizeof(double));
    rlse = (double*)malloc(rows * sizeof(double));
    if (ref && rlse && ak_attention(g_cpu, &h.a, NULL) == AK_OK &&
        ak_malloc(g_gpu, h.qn * es, NULL, &dq) == AK_OK && ak_malloc(g_gpu, h.kvn * es, NULL, &dkv) == AK_OK &&
        ak_malloc(g_gpu, h.on * es, NULL, &dout) == AK_OK && ak_malloc(g_gpu, rows * 4, NULL, &dlse) == AK_OK) {
        ak_dim3 grid, block;
        float scale = c->scale != 0.0f ? c->scale : (float)(1.0 / sqrt((double)c->d));
        ak_result r;
        at_collect(c, &h, ref, rlse);   /* a cpu-context run: at_compare's reference */
        at_strides(c, c->hq, c->sq, 1, qs);
        at_strides(c, c->hkv, c->skv, 0, ks);
        AKT_OK(ak_memcpy(g_gpu, dq, h.q, h.qn * es, AK_H2D));
        AKT_OK(ak_memcpy(g_gpu, dkv, h.kv, h.kvn * es, AK_H2D));
        AKT_OK(ak_memset(g_gpu, dout, 0xFF, h.on * es, NULL));
        AKT_OK(ak_memset(g_gpu, dlse, 0xFF, rows * 4, NULL));
        grid.x = (unsigned)((group * c->sq + R - 1) / R); grid.y = 1; grid.z = (unsigned)(c->b * c->hkv);
        block.x = 4u * (unsigned)wave; block.y = 1; block.z = 1;
        r = akt_attn_mmagen_launch(g_gpu, c->t, c->d, grid, block, dq, (char*)dkv + h.kofs * es, (char*)dkv + h.vofs * es, dout,
                                   (float*)dlse, (int)c->hkv, (int)group, (int)c->sq, (int)c->skv, qs, ks,
                                   scale * 1.4426950408889634f, c->causal, (int)R);
        AKT_CHECKF(r == AK_OK, "%s: launch: %s", tag, ak_last_error());
        if (r == AK_OK && ak_device_synchronize(g_gpu) == AK_OK) {
            AKT_OK(ak_memcpy(g_gpu, h.o, dout, h.on * es, AK_D2H));
            AKT_OK(ak_memcpy(g_gpu, h.lse, dlse, rows * 4, AK_D2H));
            if (at_compare(c, &h, ref, rlse, c->t == AK_F16 ? 3e-3 : 2e-2, 2e-5, tag)) printf("    ok %s\n", tag);
        }
    } else {
        akt_fail(__FILE__, __LINE__, "%s: setup: %s", tag, ak_last_error());
    }
    if (dq) ak_free(g_gpu, dq);
    if (dkv) ak_free(g_gpu, dkv);
    if (dout) ak_free(g_gpu, dout);
    if (dlse) ak_free(g_gpu, dlse);
    free(ref); free(rlse);
    at_free(&h);
}

static void gpu_attention_generic_matrix(void) {
    at_case c;
    if (!ga_setup()) return;
    if (!ak_context_device(g_gpu)->arch_info || ak_context_device(g_gpu)->arch_info->matrix == AK_MATRIX_NONE) {
        akt_skip("no matrix instruction on this device");
        return;
    }
    c = at_mk(AK_F16, 2, 4, 4, 17, 17, 64, AK_ATTN_BHSD, 1);
    ga_generic_case(&c);
    c = at_mk(AK_BF16, 1, 8, 2, 300, 1000, 128, AK_ATTN_BSHD, 1);
    ga_generic_case(&c);
    c = at_mk(AK_F16, 1, 8, 1, 65, 4097, 128, AK_ATTN_STRIDED, 0);
    ga_generic_case(&c);
    c = at_mk(AK_BF16, 1, 2, 2, 1000, 17, 64, AK_ATTN_BHSD, 1);
    ga_generic_case(&c);
    c = at_mk(AK_F16, 1, 4, 4, 129, 129, 128, AK_ATTN_BSHD, 0);
    c.amp = 8.0; c.scale = 1.0f;
    ga_generic_case(&c);
}


/* Every head size of the matrix path (32, 64, 80, 96, 128, 192, 256, and 40 /
 * 200 / 36 that run padded; 36: rows not 16-byte aligned, element copies) x causal or not x MHA / GQA / MQA x the three
 * layouts x plain / packed / paged sequences x windows and the soft-cap,
 * over odd lengths (1, 7, 129, 1000, 4097): each dimension rotates through
 * its values across the head sizes, so every value meets every head size in
 * some case while the CPU reference time stays in seconds. */
static void ga_options(ak_context* ctx, const char* path, size_t dmax) {
    static const size_t dims[] = { 32, 64, 80, 96, 128, 192, 256, 40, 200, 36 };
    static const size_t sqs[5] = { 1, 7, 129, 1000, 129 }, skvs[5] = { 4097, 1000, 129, 7, 1000 };
    int di;
    for (di = 0; di < (int)(sizeof dims / sizeof dims[0]); di++) {
        size_t d = dims[di];
        ak_dtype t = di % 2 ? AK_BF16 : AK_F16;
        if (d > dmax) continue;
        ak_attention_layout lay = (ak_attention_layout)(di % 3);
        size_t hkv = di % 3 == 0 ? 4 : di % 3 == 1 ? 1 : 2;    /* MHA, MQA, GQA 2 */
        at_case c;
        /* plain, odd lengths */
        c = at_mk(t, 2, 4, hkv, sqs[di % 5], skvs[di % 5], d, lay, di % 2);
        ga_case(ctx, path, &c);
        c = at_mk(t, 1, 4, hkv, sqs[(di + 2) % 5], skvs[(di + 2) % 5], d, (ak_attention_layout)((di + 1) % 3), (di + 1) % 2);
        ga_case(ctx, path, &c);
        /* packed q and k / v, causal or not, with a window every other size */
        c = at_mk(t, 3, 4, hkv, 129, 300, d, lay, di % 2);
        c.varlen = 3;
        if (di % 2) c.wl = 50;
        ga_case(ctx, path, &c);
        /* paged decode (page 16 .. 256), key counts per sequence, GQA in the rows */
        c = at_mk(t, 3, 8, hkv == 4 ? 2 : hkv, 1, 1000, d, (ak_attention_layout)((di + 2) % 3), 0);
        c.page = (size_t)16 << (di % 5);
        c.used = 1;
        ga_case(ctx, path, &c);
        /* chunked prefill: packed queries against a paged cache, causal, left window */
        c = at_mk(t, 2, 4, hkv, 129, 1000, d, lay, 1);
        c.varlen = 1; c.page = 64; c.used = 1; c.wl = 200;
        ga_case(ctx, path, &c);
        /* both windows and the soft-cap (7 queries, 4097 keys: long rows, splits) */
        c = at_mk(t, 1, 2, hkv == 4 ? 2 : 1, 7, 4097, d, (ak_attention_layout)((di + 1) % 3), 0);
        c.wl = 300; c.wr = 100; c.softcap = 30.0f;
        ga_case(ctx, path, &c);
    }
}

static void gpu_attention_options(void) {
    const ak_arch_info* ai;
    if (!ga_setup()) return;
    ga_options(g_gpu, "default", 256);
    ai = ak_context_device(g_gpu)->arch_info;
    if (ai && ai->matrix == AK_MATRIX_WGMMA && !getenv("AKT_ATTN_FORCE_MMA")) {  /* Hopper: the mma.sync kernel too */
        akt_attn_force_mma(1);
        ga_options(g_gpu, "mma.sync", 256);
        akt_attn_force_mma(0);
        /* both consumer counts of the Hopper kernel at head sizes <= 64 (the plan takes one) */
        akt_attn_sm90_nc(2);
        ga_options(g_gpu, "wgmma 2 consumers", 64);
        akt_attn_sm90_nc(3);
        ga_options(g_gpu, "wgmma 3 consumers", 64);
        akt_attn_sm90_nc(0);
    }
}

static void gpu_attention_options_simt(void) {
    at_case c;
    if (!ga_setup()) return;
    /* the SIMT family takes every option too (f32, AMD fallbacks) */
    c = at_mk(AK_F32, 3, 4, 2, 129, 300, 64, AK_ATTN_BSHD, 1);
    c.varlen = 3; c.wl = 40;
    ga_case(g_simt, "simt", &c);
    c = at_mk(AK_F16, 3, 8, 2, 1, 1000, 128, AK_ATTN_BHSD, 0);
    c.page = 16; c.used = 1;
    ga_case(g_simt, "simt", &c);
    c = at_mk(AK_BF16, 2, 4, 1, 129, 1000, 96, AK_ATTN_STRIDED, 1);
    c.varlen = 1; c.page = 64; c.used = 1; c.softcap = 20.0f;
    ga_case(g_simt, "simt", &c);
    c = at_mk(AK_F32, 1, 2, 2, 7, 4097, 32, AK_ATTN_BSHD, 0);
    c.wl = 300; c.wr = 100; c.softcap = 30.0f;
    ga_case(g_simt, "simt", &c);
}

/* An 8-bit K / V case on ctx whose plan must name `want` (a part of the kernel name or the reason). */
static void ga_kv8(ak_context* ctx, const char* path, const at_case* c, const char* want) {
    at_host h;
    ak_attention_plan pl;
    if (!at_make(c, &g_rng, &h)) { akt_fail(__FILE__, __LINE__, "host allocation"); return; }
    if (ak_attention_plan_get(ctx, &h.a, &pl) != AK_OK) akt_fail(__FILE__, __LINE__, "plan: %s", ak_last_error());
    else AKT_CHECKF(strstr(pl.kernel, want) || strstr(pl.reason, want), "plan %s (%s) lacks %s", pl.kernel, pl.reason, want);
    at_free(&h);
    ga_case(ctx, path, c);
}

static void gpu_attention_kv8(void) {
    static const size_t dims[] = { 32, 64, 80, 96, 128, 160, 192, 256 };
    at_case c;
    int i;
    if (!ga_setup()) return;
    /* the 8-bit decode kernels */
    c = at_mk(AK_BF16, 4, 32, 8, 1, 8191, 128, AK_ATTN_BHSD, 0);   /* GQA 4, automatic splits */
    c.kvt = AK_FP8_E4M3; c.kvscale = 1;
    ga_kv8(g_gpu, "kv8", &c, "_e4m3_bf16");
    c = at_mk(AK_F16, 3, 8, 2, 1, 1000, 64, AK_ATTN_BSHD, 0);      /* paged, per-sequence key counts */
    c.kvt = AK_FP8_E5M2; c.kvscale = 1; c.page = 16; c.used = 1;
    ga_kv8(g_gpu, "kv8", &c, "_e5m2_f16");
    c = at_mk(AK_BF16, 2, 4, 1, 4, 4097, 128, AK_ATTN_BSHD, 1);    /* MQA, 4 queries, causal, forced splits */
    c.kvt = AK_FP8_E4M3; c.kvscale = 1; c.splits = 5;
    ga_kv8(g_gpu, "kv8", &c, "_e4m3_bf16");
    c = at_mk(AK_BF16, 2, 32, 1, 1, 1000, 128, AK_ATTN_BHSD, 0);  /* MQA, 32 query heads: 2 row tiles */
    c.kvt = AK_FP8_E4M3; c.kvscale = 1;
    ga_kv8(g_gpu, "kv8", &c, "_e4m3_bf16");
    c = at_mk(AK_F16, 2, 16, 1, 3, 777, 64, AK_ATTN_BSHD, 1);     /* 48 rows (3 tiles), causal, paged */
    c.kvt = AK_FP8_E5M2; c.kvscale = 1; c.page = 16; c.used = 1;
    ga_kv8(g_gpu, "kv8", &c, "_e5m2_f16");
    c = at_mk(AK_BF16, 2, 8, 2, 1, 1000, 128, AK_ATTN_BSHD, 0);    /* 8-row pages: the per-row copy */
    c.kvt = AK_FP8_E4M3; c.kvscale = 1; c.page = 8; c.used = 1;
    ga_kv8(g_gpu, "kv8", &c, "_e4m3_bf16");
    c = at_mk(AK_F16, 2, 8, 2, 1, 1000, 128, AK_ATTN_BSHD, 0);     /* pages of 16, a window: tiles off the page grid */
    c.kvt = AK_FP8_E5M2; c.kvscale = 1; c.page = 16; c.wl = 300;
    ga_kv8(g_gpu, "kv8", &c, "_e5m2_f16");
    c = at_mk(AK_F16, 2, 2, 2, 1, 129, 128, AK_ATTN_STRIDED, 0);  /* interleaved K / V cache, no scales */
    c.kvt = AK_FP8_E4M3; c.splits = 1;
    ga_kv8(g_gpu, "kv8", &c, "_e4m3_f16");
    for (i = 0; i < (int)(sizeof dims / sizeof dims[0]); i++) {   /* every head size, lengths 1 / 7 / 1000 */
        static const size_t skv[3] = { 1, 7, 1000 };
        c = at_mk(i % 2 ? AK_F16 : AK_BF16, 2, 8, 2, 1, skv[i % 3], dims[i], (ak_attention_layout)(i % 2), 0);
        c.kvt = i % 3 ? AK_FP8_E5M2 : AK_FP8_E4M3; c.kvscale = 1;
        if (i % 4 == 3) { c.page = 16; c.used = 1; }
        ga_kv8(g_gpu, "kv8", &c, "mmadec");
    }
    c = at_mk(AK_BF16, 1, 4, 1, 1, 1000, 128, AK_ATTN_BHSD, 0);    /* large logits */
    c.kvt = AK_FP8_E4M3; c.kvscale = 1; c.amp = 6.0;
    ga_kv8(g_gpu, "kv8", &c, "_e4m3_bf16");
    /* bf16 q past f16's range either way (the kernel's mma takes f16: each Q row is scaled by a power of two
       first), logits of order 1 through the softmax scale */
    c = at_mk(AK_BF16, 2, 8, 2, 1, 1000, 128, AK_ATTN_BHSD, 0);
    c.kvt = AK_FP8_E4M3; c.kvscale = 1; c.amp = 3e5; c.scale = 3e-12f;
    ga_kv8(g_gpu, "kv8", &c, "_e4m3_bf16");
    c = at_mk(AK_BF16, 2, 8, 2, 1, 1000, 64, AK_ATTN_BSHD, 0);
    c.kvt = AK_FP8_E5M2; c.kvscale = 1; c.amp = 1e-6; c.scale = 3e11f;
    ga_kv8(g_gpu, "kv8", &c, "_e5m2_bf16");
    /* dequantised K / V: prefill, head size off the 16 grid, the SIMT path */
    c = at_mk(AK_BF16, 1, 4, 2, 129, 1000, 128, AK_ATTN_BSHD, 1);
    c.kvt = AK_FP8_E4M3; c.kvscale = 1;
    ga_kv8(g_gpu, "kv8", &c, "dequantised");
    c = at_mk(AK_F16, 2, 4, 2, 1, 300, 40, AK_ATTN_BHSD, 0);
    c.kvt = AK_FP8_E5M2; c.kvscale = 1; c.page = 16;
    ga_kv8(g_gpu, "kv8", &c, "dequantised");
    c = at_mk(AK_F32, 2, 4, 1, 7, 1000, 64, AK_ATTN_BHSD, 1);
    c.kvt = AK_FP8_E4M3; c.kvscale = 1; c.splits = 3;
    ga_kv8(g_simt, "kv8 simt", &c, "dequantised");
}

void akt_suite_gpu_attention(void) {
    AKT_RUN(gpu_attention_simt);
    AKT_RUN(gpu_attention_default);
    AKT_RUN(gpu_attention_decode);
    AKT_RUN(gpu_attention_large_logits);
    AKT_RUN(gpu_attention_generic_matrix);
    AKT_RUN(gpu_attention_options);
    AKT_RUN(gpu_attention_options_simt);
    AKT_RUN(gpu_attention_kv8);
}
