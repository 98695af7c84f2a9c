/* bench_attention - times ak_attention (prefill, decode, paged decode and
 * packed variable-length shapes; or a sweep) and writes JSON in the
 * KernelBench baseline format.
 *
 *   build/bench_attention [--quick] [--sweep] [--dim D] [--decode] [--bf16] [--splits N[,N..]]
 *                         [--shape B,HQ,HKV,SKV,D] [--path auto|mma|simt] [--trials N] [--filter SUBSTR] [OUT.json]
 *
 * Each entry: inputs filled once with random values (never zeros; the first
 * 2^24 of a tensor drawn on the host, the rest copies of them), 3 warm-up
 * calls, then N timed calls (default 20; decode 50) each between a pair of
 * ak_event records on the default stream with the L2 flushed before it (an
 * ak_memset over twice the L2, outside the timed region). Reports median,
 * mean, std, min, max (ms), TF/s = 4 * b * hq * sq * skv * d / median (halved
 * for causal; packed sequences: the sum over sequences), and for decode GB/s
 * = bytes of K and V read / median, with the fraction of the
 * device-to-device copy bandwidth measured in the same run (read + write).
 * Entries: the default list (the shapes the attention targets name: prefill
 * head sizes 64 / 96 / 128, GQA, BSHD, decode contiguous and paged, packed
 * sequences beside the equal-length batch of the same tokens), or --sweep:
 * batch x heads x seq x head_dim (32 .. 256) x causal, bf16, plus decode
 * shapes (contiguous and paged), or --dim D: prefill at head size D, bf16, seq
 * 1024 .. 8192 x causal, each with a batch x heads of several waves and one
 * under a wave, or --decode: the decode shapes alone, 16-bit and 8-bit K / V
 * alike (the default list's, longer and held-out ones: 32768 and 131072 keys,
 * 3000 keys, head sizes 64 / 256, MQA). --bf16: bf16 only (no f16 twin).
 * --splits N: num_splits = N instead of the plan's choice; a list (0 = the plan's choice) times each count
 * in turn on the same inputs, the effective count (whole key tiles) first on the line as splits=N, a count
 * the plan makes the same as an earlier one skipped. --shape B,HQ,HKV,SKV,D (up to 8): decode entries of
 * that shape (16-bit and 8-bit K / V) instead of the lists. Paths: "auto" (what ak_attention picks, its
 * kernel named in the JSON from ak_attention_plan_get), "mma" (the mma.sync
 * kernel forced on Hopper), "simt" (a context with matrix_cores off) where
 * asked. --quick: tiny shapes, 3 trials (a harness check on any backend). */
#define AMDKIT_IMPLEMENTATION
#define AMDKIT_ATTN_FORCE   /* --path mma: _ak_attn_force_mma (amdkit.h >>impl:ops-attention) */
#include "../amdkit.h"
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef struct entry {
    const char* name;
    size_t b, hq, hkv, sq, skv, d;
    int causal;
    int decode;     /* report GB/s of K + V */
    int simt;       /* also time the SIMT path */
    ak_attention_layout layout;
    size_t page;    /* > 0: paged K / V with pages of this many rows */
    int varlen;     /* 1: packed sequences of lengths drawn in [seq / 4, seq] (q and k / v the same) */
    ak_dtype kvt;   /* 0: K / V of the entry's dtype; AK_FP8_E4M3: 8-bit K / V with per-kv-head scales */
} entry;

static const entry entries[] = {
    { "prefill", 16, 16, 16, 4096, 4096, 128, 0, 0, 1, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill", 16, 16, 16, 4096, 4096, 128, 1, 0, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill", 8, 32, 32, 2048, 2048, 64, 0, 0, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill", 8, 32, 32, 2048, 2048, 64, 1, 0, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill", 4, 32, 32, 2048, 2048, 128, 1, 0, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill", 8, 16, 16, 1024, 1024, 64, 0, 0, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill", 4, 32, 32, 2048, 2048, 96, 1, 0, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill", 4, 16, 16, 2048, 2048, 256, 1, 0, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill_bshd", 1, 40, 40, 8192, 8192, 128, 0, 0, 0, AK_ATTN_BSHD, 0, 0, 0 },
    { "prefill_gqa", 2, 32, 8, 4096, 4096, 128, 1, 0, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill_gqa", 2, 32, 8, 8192, 8192, 128, 1, 0, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill_eqlen", 8, 16, 4, 2048, 2048, 128, 1, 0, 0, AK_ATTN_BSHD, 0, 0, 0 },
    { "prefill_varlen", 8, 16, 4, 2048, 2048, 128, 1, 0, 0, AK_ATTN_BSHD, 0, 1, 0 },
    { "decode", 64, 32, 8, 1, 8192, 128, 0, 1, 1, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode", 32, 32, 8, 1, 4096, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode", 1, 32, 8, 1, 131072, 128, 0, 1, 1, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_paged", 32, 32, 8, 1, 4096, 128, 0, 1, 0, AK_ATTN_BSHD, 16, 0, 0 },
    { "decode_paged", 32, 32, 8, 1, 4096, 128, 0, 1, 0, AK_ATTN_BSHD, 256, 0, 0 },
    { "decode16", 16, 32, 8, 16, 8192, 128, 1, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_kv8", 64, 32, 8, 1, 8192, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
    { "decode_kv8", 32, 32, 8, 1, 4096, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
    { "decode_kv8_paged", 32, 32, 8, 1, 4096, 128, 0, 1, 0, AK_ATTN_BSHD, 16, 0, AK_FP8_E4M3 },
};
static const entry decode_entries[] = {
    { "decode", 64, 32, 8, 1, 8192, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_kv8", 64, 32, 8, 1, 8192, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
    { "decode", 32, 32, 8, 1, 4096, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_kv8", 32, 32, 8, 1, 4096, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
    { "decode_paged", 32, 32, 8, 1, 4096, 128, 0, 1, 0, AK_ATTN_BSHD, 16, 0, 0 },
    { "decode_kv8_paged", 32, 32, 8, 1, 4096, 128, 0, 1, 0, AK_ATTN_BSHD, 16, 0, AK_FP8_E4M3 },
    { "decode", 8, 32, 8, 1, 32768, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_kv8", 8, 32, 8, 1, 32768, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
    { "decode", 1, 32, 8, 1, 131072, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_kv8", 1, 32, 8, 1, 131072, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
    { "decode", 16, 32, 8, 1, 3000, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_kv8", 16, 32, 8, 1, 3000, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
    { "decode", 32, 32, 8, 1, 8192, 64, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_kv8", 32, 32, 8, 1, 8192, 64, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
    { "decode", 32, 32, 8, 1, 4096, 256, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_kv8", 32, 32, 8, 1, 4096, 256, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
    { "decode_mqa", 32, 32, 1, 1, 16384, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_kv8_mqa", 32, 32, 1, 1, 16384, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
};
static const entry quick_entries[] = {
    { "prefill", 1, 2, 2, 64, 64, 64, 1, 0, 1, AK_ATTN_BHSD, 0, 0, 0 },
    { "prefill", 1, 2, 2, 64, 64, 96, 1, 0, 0, AK_ATTN_BSHD, 0, 0, 0 },
    { "prefill_varlen", 3, 2, 1, 64, 64, 64, 1, 0, 0, AK_ATTN_BSHD, 0, 1, 0 },
    { "decode", 2, 4, 2, 1, 300, 128, 0, 1, 1, AK_ATTN_BHSD, 0, 0, 0 },
    { "decode_paged", 2, 4, 2, 1, 300, 128, 0, 1, 0, AK_ATTN_BSHD, 16, 0, 0 },
    { "decode_kv8", 2, 4, 2, 1, 300, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, AK_FP8_E4M3 },
};

/* --sweep: prefill b x h x s (tokens x heads constant per seq) x head_dim x causal, decode contiguous / paged */
static entry sweep_entries[128];
static int sweep_make(void) {
    static const size_t dims[7] = { 32, 64, 80, 96, 128, 192, 256 };
    static const size_t seqs[3][3] = { { 1024, 16, 16 }, { 4096, 4, 16 }, { 8192, 1, 32 } };  /* seq, batch, heads */
    int n = 0, di, si, c;
    for (si = 0; si < 3; si++)
        for (di = 0; di < 7; di++)
            for (c = 0; c < 2; c++) {
                entry e;
                memset(&e, 0, sizeof e);
                e.name = "sweep";
                e.b = seqs[si][1]; e.hq = e.hkv = seqs[si][2];
                e.sq = e.skv = seqs[si][0]; e.d = dims[di]; e.causal = c;
                sweep_entries[n++] = e;
            }
    for (di = 0; di < 3; di++) {   /* decode: head sizes 64 / 128 / 256, contiguous and paged (16) */
        size_t d = di == 0 ? 64 : di == 1 ? 128 : 256;
        int pg;
        for (pg = 0; pg < 2; pg++) {
            entry e;
            memset(&e, 0, sizeof e);
            e.name = pg ? "sweep_decode_paged" : "sweep_decode";
            e.b = 32; e.hq = 32; e.hkv = 8; e.sq = 1; e.skv = 8192; e.d = d; e.decode = 1;
            e.layout = pg ? AK_ATTN_BSHD : AK_ATTN_BHSD;
            e.page = pg ? 16 : 0;
            sweep_entries[n++] = e;
        }
    }
    return n;
}

/* --dim D: prefill at head size D, seq 1024 .. 8192 x causal, batch x heads of several waves (64 K tokens x 16
   heads) and one under a wave (8 heads at 1024, 16 K tokens x 1 head above) */
static int dim_make(size_t d) {
    static const size_t seqs[4][5] = { { 1024, 16, 16, 2, 4 }, { 2048, 8, 16, 1, 8 }, { 4096, 4, 16, 1, 4 },
                                       { 8192, 2, 16, 1, 2 } };  /* seq, batch, heads, small batch, small heads */
    int n = 0, si, c, sm;
    for (si = 0; si < 4; si++)
        for (sm = 0; sm < 2; sm++)
            for (c = 0; c < 2; c++) {
                entry e;
                memset(&e, 0, sizeof e);
                e.name = "dim";
                e.b = seqs[si][sm ? 3 : 1]; e.hq = e.hkv = seqs[si][sm ? 4 : 2];
                e.sq = e.skv = seqs[si][0]; e.d = d; e.causal = c;
                sweep_entries[n++] = e;
            }
    return n;
}

static unsigned lcg(unsigned* seed) { *seed = *seed * 1664525u + 1013904223u; return *seed >> 8; }

/* n random values in [-1, 1] (never near zero) on the device: the first
 * min(n, 2^24) drawn on the host, the rest copies of them (a host fill of
 * every element took minutes for the GB-sized K / V of the decode entries) */
static void* dev_random(ak_context* ctx, ak_dtype t, size_t n, unsigned* seed) {
    size_t es = ak_dtype_size(t), i, m = n < ((size_t)1 << 24) ? n : ((size_t)1 << 24), have;
    unsigned char* h = (unsigned char*)malloc(m * es);
    void* d = NULL;
    if (!h) return NULL;
    for (i = 0; i < m; i++) {
        double v = ((double)lcg(seed) / 16777216.0) * 2.0 - 1.0;
        if (fabs(v) < 0.05) v = 0.5;
        ak_elem_set(h, t, i, v);
    }
    if (ak_malloc(ctx, n * es, NULL, &d) != AK_OK || ak_memcpy(ctx, d, h, m * es, AK_H2D) != AK_OK) d = NULL;
    for (have = m; d && have < n; have *= 2) {
        size_t c = have < n - have ? have : n - have;
        if (ak_memcpy(ctx, (unsigned char*)d + have * es, d, c * es, AK_D2D) != AK_OK) d = NULL;
    }
    free(h);
    return d;
}

static void* dev_ints(ak_context* ctx, const int32_t* h, size_t n) {
    void* d = NULL;
    if (ak_malloc(ctx, n * 4, NULL, &d) != AK_OK || ak_memcpy(ctx, d, h, n * 4, AK_H2D) != AK_OK) return NULL;
    return d;
}

int main(int argc, char** argv) {
    const char* out = NULL;
    const char* filter = NULL;
    const char* want = "auto";
    int quick = 0, sweep = 0, decode_only = 0, bf16_only = 0, trials = 0, i, first = 1;
    int splits[32] = { 0 }, nsplits = 1, listed = 0, nshape = 0;
    entry shapes[16];
    size_t dim = 0;
    ak_context *ctx = NULL, *simt = NULL;
    ak_config cfg;
    const ak_device_info* dev;
    ak_event *e0 = NULL, *e1 = NULL;
    void* flush = NULL;
    size_t flush_bytes;
    double copy_gbps = 0.0;
    FILE* jf = NULL;
    const entry* list;
    int nlist;
    unsigned seed = 12345u;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--sweep")) sweep = 1;
        else if (!strcmp(argv[i], "--dim") && i + 1 < argc) sweep = 2, dim = (size_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--decode")) decode_only = 1;
        else if (!strcmp(argv[i], "--bf16")) bf16_only = 1;
        else if (!strcmp(argv[i], "--splits") && i + 1 < argc) {
            const char* sp = argv[++i];
            nsplits = 0;
            listed = strchr(sp, ',') != NULL;
            while (*sp && nsplits < 32) {
                splits[nsplits++] = atoi(sp);
                sp = strchr(sp, ',');
                if (!sp) break;
                sp++;
            }
            if (nsplits == 0) nsplits = 1;
        } else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
            unsigned long v[5] = { 0, 0, 0, 0, 0 };
            entry e = { "decode", 1, 1, 1, 1, 1, 128, 0, 1, 0, AK_ATTN_BHSD, 0, 0, 0 };
            if (sscanf(argv[++i], "%lu,%lu,%lu,%lu,%lu", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5 || !v[0] || !v[1] ||
                !v[2] || !v[3] || !v[4] || v[1] % v[2] || nshape >= 16) {
                fprintf(stderr, "--shape B,HQ,HKV,SKV,D (HQ a multiple of HKV, up to 8)\n");
                return 2;
            }
            e.b = v[0]; e.hq = v[1]; e.hkv = v[2]; e.skv = v[3]; e.d = v[4];
            shapes[nshape++] = e;
            e.name = "decode_kv8"; e.kvt = AK_FP8_E4M3;
            shapes[nshape++] = e;
        }
        else if (!strcmp(argv[i], "--path") && i + 1 < argc) want = argv[++i];
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc) trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else out = argv[i];
    }
    if (getenv("AK_BENCH_A9_PP")) _ak_attn_sm90_pp = atoi(getenv("AK_BENCH_A9_PP"));  /* Hopper ping-pong on / off */
    if (getenv("AK_BENCH_A9_BN")) _ak_attn_sm90_bn = atoi(getenv("AK_BENCH_A9_BN"));  /* Hopper key tile */
    if (getenv("AK_BENCH_A9_NC")) _ak_attn_sm90_nc = atoi(getenv("AK_BENCH_A9_NC"));  /* Hopper consumers */
    if (getenv("AK_BENCH_A9_DEF")) _ak_attn_sm90_def = getenv("AK_BENCH_A9_DEF");  /* a -D of the Hopper kernel */
    if (strcmp(want, "auto") && strcmp(want, "mma") && strcmp(want, "simt") && strcmp(want, "all")) {
        fprintf(stderr, "--path: auto, mma, simt or all\n");
        return 2;
    }
    if (ak_context_create(NULL, &ctx) != AK_OK) { fprintf(stderr, "context: %s\n", ak_last_error()); return 1; }
    cfg = ak_config_default();
    ak_config_apply_env(&cfg);
    cfg.matrix_cores = AK_OFF;
    if (ak_context_create(&cfg, &simt) != AK_OK) { fprintf(stderr, "context: %s\n", ak_last_error()); return 1; }
    dev = ak_context_device(ctx);
    if (ak_event_create(ctx, &e0) != AK_OK || ak_event_create(ctx, &e1) != AK_OK) {
        fprintf(stderr, "events: %s\n", ak_last_error());
        return 1;
    }
    flush_bytes = dev->l2_bytes ? 2 * dev->l2_bytes : ((size_t)64 << 20);
    if (ak_malloc(ctx, flush_bytes, NULL, &flush) != AK_OK) { fprintf(stderr, "flush: %s\n", ak_last_error()); return 1; }
    if (nshape) { list = shapes; nlist = nshape; }
    else if (sweep == 2) { list = sweep_entries; nlist = dim_make(dim); }
    else if (sweep) { list = sweep_entries; nlist = sweep_make(); }
    else if (decode_only) { list = decode_entries; nlist = (int)(sizeof decode_entries / sizeof *decode_entries); }
    else if (quick) { list = quick_entries; nlist = (int)(sizeof quick_entries / sizeof *quick_entries); }
    else { list = entries; nlist = (int)(sizeof entries / sizeof *entries); }
    printf("bench_attention on %s (%s, %s)\n", dev->name, ak_backend_name(dev->backend), dev->arch);

    /* copy roofline: 1 GiB device-to-device (64 MiB with --quick) */
    copy_gbps = bench_copy_gbps(ctx, quick ? ((size_t)64 << 20) : ((size_t)1 << 30));
    printf("copy roofline %.1f GB/s\n", copy_gbps);
    if (out) {
        jf = fopen(out, "w");
        if (!jf) { fprintf(stderr, "cannot write %s\n", out); return 1; }
        fprintf(jf, "{\n  \"tool\": \"amdkit bench_attention\",\n  \"hardware\": \"%s\",\n  \"device\": \"%s:%d\",\n"
                    "  \"backend\": \"%s\",\n  \"arch\": \"%s\",\n  \"quick\": %s,\n  \"sweep\": %s,\n  \"copy_gbps\": %.2f,\n"
                    "  \"results\": [",
                dev->name, dev->backend == AK_BACKEND_CUDA ? "cuda" : dev->backend == AK_BACKEND_HIP ? "hip" : "cpu",
                dev->device, ak_backend_name(dev->backend), dev->arch, quick ? "true" : "false", sweep ? "true" : "false",
                copy_gbps);
    }
    for (i = 0; i < nlist; i++) {
        const entry* en = &list[i];
        int ti;
        for (ti = sweep || bf16_only ? 1 : 0; ti < 2; ti++) {
            ak_dtype t = ti == 1 ? AK_BF16 : AK_F16, kt = en->kvt ? en->kvt : t;
            size_t es = ak_dtype_size(t), kes = ak_dtype_size(kt), b;
            size_t totq = en->b * en->sq, totkv = en->b * en->skv, npages = 0, per = 0;
            int32_t *cu = NULL, *bt = NULL, *used = NULL;
            void *q, *k, *v, *o = NULL, *dcu = NULL, *dbt = NULL, *dused = NULL, *dsc = NULL;
            double flops = 0.0, kvbytes;
            char label[200];
            int pi;
            snprintf(label, sizeof label, "%s %s%s%s b%zu hq%zu hkv%zu sq%zu skv%zu d%zu%s%s%s", en->name, ak_dtype_name(t),
                     en->kvt ? " kv " : "", en->kvt ? ak_dtype_name(en->kvt) : "",
                     en->b, en->hq, en->hkv, en->sq, en->skv, en->d, en->causal ? " causal" : "",
                     en->layout == AK_ATTN_BSHD ? " bshd" : "", en->page ? " paged" : en->varlen ? " varlen" : "");
            if (filter && !strstr(label, filter)) continue;
            /* packed lengths (q = k / v), or the block table */
            if (en->varlen) {
                cu = (int32_t*)malloc((en->b + 1) * sizeof(int32_t));
                cu[0] = 0;
                for (b = 0; b < en->b; b++) {
                    size_t len = en->sq / 4 + lcg(&seed) % (en->sq - en->sq / 4 + 1);
                    if (b == 0) len = en->sq;
                    cu[b + 1] = cu[b] + (int32_t)len;
                    flops += 4.0 * (double)en->hq * (double)len * (double)len * (double)en->d * (en->causal ? 0.5 : 1.0);
                }
                totq = totkv = (size_t)cu[en->b];
            } else {
                flops = 4.0 * (double)en->b * (double)en->hq * (double)en->sq * (double)en->skv * (double)en->d;
                if (en->causal) flops *= 0.5;
            }
            if (en->page) {
                size_t pg;
                per = (en->skv + en->page - 1) / en->page;
                npages = en->b * per;
                bt = (int32_t*)malloc(npages * sizeof(int32_t));
                used = (int32_t*)malloc(en->b * sizeof(int32_t));
                for (pg = 0; pg < npages; pg++) bt[pg] = (int32_t)pg;
                for (pg = npages - 1; pg > 0; pg--) {   /* pages dealt out in a shuffled order */
                    size_t r = lcg(&seed) % (pg + 1);
                    int32_t tmp = bt[pg]; bt[pg] = bt[r]; bt[r] = tmp;
                }
                for (b = 0; b < en->b; b++) used[b] = (int32_t)en->skv;
                totkv = npages * en->page;
            }
            kvbytes = 2.0 * (double)en->b * (double)en->hkv * (double)en->skv * (double)en->d * (double)kes;
            q = dev_random(ctx, t, totq * en->hq * en->d, &seed);
            k = dev_random(ctx, kt, totkv * en->hkv * en->d, &seed);
            v = dev_random(ctx, kt, totkv * en->hkv * en->d, &seed);
            if (en->kvt) { /* per-kv-head scales */
                float sc[256];
                size_t hh;
                for (hh = 0; hh < en->hkv && hh < 256; hh++) sc[hh] = 0.02f * (1.0f + 0.125f * (float)hh);
                dsc = dev_ints(ctx, (const int32_t*)(const void*)sc, en->hkv < 256 ? en->hkv : 256);
            }
            if (cu) dcu = dev_ints(ctx, cu, en->b + 1);
            if (bt) { dbt = dev_ints(ctx, bt, npages); dused = dev_ints(ctx, used, en->b); }
            if (!q || !k || !v || ak_malloc(ctx, totq * en->hq * en->d * es, NULL, &o) != AK_OK || (cu && !dcu) ||
                (bt && (!dbt || !dused))) {
                fprintf(stderr, "%s: allocation: %s\n", label, ak_last_error());
                return 1;
            }
            for (pi = 0; pi < 3 * nsplits; pi++) {
                const char* path = pi % 3 == 0 ? "auto" : pi % 3 == 1 ? "mma" : "simt";
                ak_context* c = pi % 3 == 2 ? simt : ctx;
                int si = pi / 3, sj, dup = 0;
                ak_attention_args a;
                ak_attention_plan pl;
                int n = trials > 0 ? trials : quick ? 3 : en->decode ? 50 : 20, kk, ok = 1;
                double* tm;
                ak_bench_stats s;
                double tf, gbps = 0.0;
                /* auto always (the peer matches it); mma on Hopper when asked; simt when asked and the entry says */
                if (pi % 3 == 1 && !(dev->arch_info && dev->arch_info->matrix == AK_MATRIX_WGMMA &&
                                 (!strcmp(want, "mma") || !strcmp(want, "all"))))
                    continue;
                if (pi % 3 == 2 && !(en->simt && (!strcmp(want, "simt") || !strcmp(want, "all")))) continue;
                memset(&a, 0, sizeof a);
                a.dtype = t;
                a.batch = en->b; a.heads_q = en->hq; a.heads_kv = en->hkv;
                a.seq_q = en->sq; a.seq_kv = en->skv; a.head_dim = en->d;
                a.q = q; a.k = k; a.v = v; a.o = o;
                if (en->kvt) { a.kv_dtype = en->kvt; a.k_scale = a.v_scale = (const float*)dsc; }
                a.causal = en->causal;
                a.num_splits = splits[si];
                a.layout = en->layout;
                if (cu) {
                    a.cu_seqlens_q = a.cu_seqlens_kv = (const int32_t*)dcu;
                    a.total_q = a.total_kv = totq;
                }
                if (bt) {
                    a.block_table = (const int32_t*)dbt;
                    a.seqused_kv = (const int32_t*)dused;
                    a.page_size = en->page;
                    a.num_pages = npages;
                }
                _ak_attn_force_mma = pi % 3 == 1;
                if (ak_attention_plan_get(c, &a, &pl) != AK_OK) { fprintf(stderr, "%s: plan: %s\n", label, ak_last_error()); return 1; }
                for (sj = 0; sj < si; sj++) {   /* a count the plan makes the same as an earlier one's: skipped */
                    ak_attention_args b2 = a;
                    ak_attention_plan p2;
                    b2.num_splits = splits[sj];
                    if (ak_attention_plan_get(c, &b2, &p2) == AK_OK && p2.splits == pl.splits) dup = 1;
                }
                if (listed && dup) { _ak_attn_force_mma = 0; continue; }
                tm = (double*)malloc((size_t)n * sizeof(double));
                if (pi % 3 == 2 && !en->decode && !quick) n = 3; /* the SIMT prefill is slow: a few trials */
                for (kk = 0; kk < 3 + n && ok; kk++) {
                    float ms = 0;
                    ak_memset(c, flush, kk & 0xFF, flush_bytes, NULL);
                    if (ak_event_record(e0, NULL) != AK_OK || ak_attention(c, &a, NULL) != AK_OK ||
                        ak_event_record(e1, NULL) != AK_OK || ak_event_synchronize(e1) != AK_OK ||
                        ak_event_elapsed_ms(e0, e1, &ms) != AK_OK) {
                        fprintf(stderr, "%s [%s]: %s\n", label, path, ak_last_error());
                        ok = 0;
                    }
                    if (kk >= 3) tm[kk - 3] = ms;
                }
                _ak_attn_force_mma = 0;
                if (!ok) { free(tm); return 1; }
                ak_bench_stats_of(tm, n, &s);   /* sorts tm: the samples go into the JSON for report.py's intervals */
                tf = flops / (s.median * 1e-3) / 1e12;
                if (en->decode) gbps = kvbytes / (s.median * 1e-3) / 1e9;
                if (listed) printf("splits=%d%s ", pl.splits, splits[si] == 0 ? "(plan)" : "");
                printf("%-66s %-4s %-22s %9.4f ms %7.1f TF/s", label, path, pl.kernel, s.median, tf);
                if (en->decode) printf(" %7.1f GB/s (%.1f%% of copy)", gbps, copy_gbps > 0 ? 100.0 * gbps / copy_gbps : 0.0);
                printf("\n");
                fflush(stdout);
                if (jf) {
                    fprintf(jf, "%s\n    {\"name\": \"attention_%s\", \"path\": \"%s\", \"kernel\": \"%s\", \"splits\": %d, "
                                "\"dtype\": \"%s\", \"kv_dtype\": \"%s\", \"shape\": "
                                "{\"batch\": %zu, \"heads_q\": %zu, \"heads_kv\": %zu, \"seq_q\": %zu, \"seq_kv\": %zu, "
                                "\"head_dim\": %zu, \"causal\": %s, \"layout\": \"%s\", \"page\": %zu, \"varlen\": %s}, "
                                "\"mean\": %.6f, \"std\": %.6f, \"min\": %.6f, "
                                "\"max\": %.6f, \"median\": %.6f, \"num_trials\": %d, \"hardware\": \"%s\", \"device\": "
                                "\"%s:%d\", \"flops\": %.6g, \"tflops\": %.2f",
                            first ? "" : ",", en->name, path, pl.kernel, pl.splits, ak_dtype_name(t), ak_dtype_name(kt),
                            en->b, en->hq,
                            en->hkv, en->sq, en->skv, en->d, en->causal ? "true" : "false",
                            ak_attention_layout_name(en->layout), en->page, en->varlen ? "true" : "false", s.mean,
                            s.std, s.min, s.max, s.median, s.num_trials, dev->name,
                            dev->backend == AK_BACKEND_CUDA ? "cuda" : dev->backend == AK_BACKEND_HIP ? "hip" : "cpu",
                            dev->device, flops, tf);
                    if (en->decode)
                        fprintf(jf, ", \"kv_bytes\": %.0f, \"gbps\": %.2f, \"roofline_fraction\": %.4f", kvbytes, gbps,
                                copy_gbps > 0 ? gbps / copy_gbps : 0.0);
                    fprintf(jf, ", \"times\": [");
                    for (kk = 0; kk < n; kk++) fprintf(jf, "%s%.6g", kk ? "," : "", tm[kk]);
                    fprintf(jf, "]}");
                    first = 0;
                }
                free(tm);
            }
            ak_free(ctx, q); ak_free(ctx, k); ak_free(ctx, v); ak_free(ctx, o);
            if (dsc) ak_free(ctx, dsc);
            if (dcu) ak_free(ctx, dcu);
            if (dbt) ak_free(ctx, dbt);
            if (dused) ak_free(ctx, dused);
            free(cu); free(bt); free(used);
        }
    }
    if (jf) { fprintf(jf, "\n  ]\n}\n"); fclose(jf); }
    ak_free(ctx, flush);
    ak_event_destroy(e0); ak_event_destroy(e1);
    ak_context_destroy(simt);
    ak_context_destroy(ctx);
    return 0;
}
