/* bench_attention - times ak_attention (the prefill and decode shapes of the attention targets)
 * and writes JSON in the KernelBench baseline format.
 *
 *   build/bench_attention [--quick] [--trials N] [--filter SUBSTR] [OUT.json]
 *
 * Each entry: inputs filled once with random values (never zeros), 3 warm-up
 * calls, then N timed calls (default 20; decode 50) each between a pair of
 * ak_event records on the default stream with the L2 flushed before it (an
 * ak_memset over twice the L2, outside the timed region). Reports median,
 * mean, std, min, max (ms), TF/s = 4 * b * hq * sq * skv * d / median (halved
 * for causal, the usual count), and for decode GB/s = bytes of K and V read
 * / median, with the fraction of the device-to-device copy bandwidth measured
 * in the same run (read + write). Paths: "auto" (what ak_attention picks) and
 * "simt" (a context with matrix_cores off) where asked.
 * --quick: tiny shapes, 3 trials (a harness check on any backend). */
#define AMDKIT_IMPLEMENTATION
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
} entry;

static const entry entries[] = {
    { "prefill", 16, 16, 16, 4096, 4096, 128, 0, 0, 1 },
    { "prefill", 16, 16, 16, 4096, 4096, 128, 1, 0, 0 },
    { "prefill", 8, 32, 32, 2048, 2048, 64, 0, 0, 0 },
    { "prefill", 8, 32, 32, 2048, 2048, 64, 1, 0, 0 },
    { "prefill_gqa", 2, 32, 8, 8192, 8192, 128, 1, 0, 0 },
    { "decode", 64, 32, 8, 1, 8192, 128, 0, 1, 1 },
    { "decode", 1, 32, 8, 1, 131072, 128, 0, 1, 1 },
    { "decode16", 16, 32, 8, 16, 8192, 128, 1, 1, 0 },
};
static const entry quick_entries[] = {
    { "prefill", 1, 2, 2, 64, 64, 64, 1, 0, 1 },
    { "decode", 2, 4, 2, 1, 300, 128, 0, 1, 1 },
};

static void* dev_random(ak_context* ctx, ak_dtype t, size_t n, unsigned* seed) {
    size_t es = ak_dtype_size(t), i;
    unsigned char* h = (unsigned char*)malloc(n * es);
    void* d = NULL;
    if (!h) return NULL;
    for (i = 0; i < n; i++) {
        double v;
        *seed = *seed * 1664525u + 1013904223u;
        v = ((double)(*seed >> 8) / 16777216.0) * 2.0 - 1.0;
        if (fabs(v) < 0.05) v = 0.5;
        ak_elem_set(h, t, i, v);
    }
    if (ak_malloc(ctx, n * es, NULL, &d) != AK_OK || ak_memcpy(ctx, d, h, n * es, AK_H2D) != AK_OK) d = NULL;
    free(h);
    return d;
}

int main(int argc, char** argv) {
    const char* out = NULL;
    const char* filter = NULL;
    int quick = 0, trials = 0, i, first = 1;
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
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc) trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else out = argv[i];
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
    list = quick ? quick_entries : entries;
    nlist = quick ? (int)(sizeof quick_entries / sizeof *quick_entries) : (int)(sizeof entries / sizeof *entries);
    printf("bench_attention on %s (%s, %s)\n", dev->name, ak_backend_name(dev->backend), dev->arch);

    /* copy roofline: 1 GiB device-to-device (64 MiB with --quick) */
    copy_gbps = bench_copy_gbps(ctx, quick ? ((size_t)64 << 20) : ((size_t)1 << 30));
    printf("copy roofline %.1f GB/s\n", copy_gbps);
    if (out) {
        jf = fopen(out, "w");
        if (!jf) { fprintf(stderr, "cannot write %s\n", out); return 1; }
        fprintf(jf, "{\n  \"tool\": \"amdkit bench_attention\",\n  \"hardware\": \"%s\",\n  \"device\": \"%s:%d\",\n"
                    "  \"backend\": \"%s\",\n  \"arch\": \"%s\",\n  \"quick\": %s,\n  \"copy_gbps\": %.2f,\n  \"results\": [",
                dev->name, dev->backend == AK_BACKEND_CUDA ? "cuda" : dev->backend == AK_BACKEND_HIP ? "hip" : "cpu",
                dev->device, ak_backend_name(dev->backend), dev->arch, quick ? "true" : "false", copy_gbps);
    }
    for (i = 0; i < nlist; i++) {
        const entry* en = &list[i];
        int ti, pi;
        for (ti = 0; ti < 2; ti++) {
            ak_dtype t = ti == 0 ? AK_F16 : AK_BF16;
            size_t nq = en->b * en->hq * en->sq * en->d, nk = en->b * en->hkv * en->skv * en->d;
            void *q, *k, *v, *o = NULL;
            char label[160];
            snprintf(label, sizeof label, "%s %s b%zu hq%zu hkv%zu sq%zu skv%zu d%zu%s", en->name, ak_dtype_name(t),
                     en->b, en->hq, en->hkv, en->sq, en->skv, en->d, en->causal ? " causal" : "");
            if (filter && !strstr(label, filter)) continue;
            q = dev_random(ctx, t, nq, &seed);
            k = dev_random(ctx, t, nk, &seed);
            v = dev_random(ctx, t, nk, &seed);
            if (!q || !k || !v || ak_malloc(ctx, nq * ak_dtype_size(t), NULL, &o) != AK_OK) {
                fprintf(stderr, "%s: allocation: %s\n", label, ak_last_error());
                return 1;
            }
            for (pi = 0; pi < (en->simt ? 2 : 1); pi++) {
                ak_context* c = pi == 0 ? ctx : simt;
                const char* path = pi == 0 ? "auto" : "simt";
                ak_attention_args a;
                int n = trials > 0 ? trials : quick ? 3 : en->decode ? 50 : 20, kk, ok = 1;
                double* tm = (double*)malloc((size_t)n * sizeof(double));
                ak_bench_stats s;
                double flops, tf, gbps = 0.0;
                memset(&a, 0, sizeof a);
                a.dtype = t;
                a.batch = en->b; a.heads_q = en->hq; a.heads_kv = en->hkv;
                a.seq_q = en->sq; a.seq_kv = en->skv; a.head_dim = en->d;
                a.q = q; a.k = k; a.v = v; a.o = o;
                a.causal = en->causal;
                if (pi == 1 && !en->decode && !quick) n = 3; /* the SIMT prefill is slow: a few trials */
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
                if (!ok) { free(tm); return 1; }
                ak_bench_stats_of(tm, n, &s);   /* sorts tm: the samples go into the JSON for report.py's intervals */
                flops = 4.0 * (double)en->b * (double)en->hq * (double)en->sq * (double)en->skv * (double)en->d;
                if (en->causal) flops *= 0.5;
                tf = flops / (s.median * 1e-3) / 1e12;
                if (en->decode) gbps = 2.0 * (double)nk * (double)ak_dtype_size(t) / (s.median * 1e-3) / 1e9;
                printf("%-60s %-4s %9.4f ms %7.1f TF/s", label, path, s.median, tf);
                if (en->decode) printf(" %7.1f GB/s (%.1f%% of copy)", gbps, copy_gbps > 0 ? 100.0 * gbps / copy_gbps : 0.0);
                printf("\n");
                fflush(stdout);
                if (jf) {
                    fprintf(jf, "%s\n    {\"name\": \"attention_%s\", \"path\": \"%s\", \"dtype\": \"%s\", \"shape\": "
                                "{\"batch\": %zu, \"heads_q\": %zu, \"heads_kv\": %zu, \"seq_q\": %zu, \"seq_kv\": %zu, "
                                "\"head_dim\": %zu, \"causal\": %s}, \"mean\": %.6f, \"std\": %.6f, \"min\": %.6f, "
                                "\"max\": %.6f, \"median\": %.6f, \"num_trials\": %d, \"hardware\": \"%s\", \"device\": "
                                "\"%s:%d\", \"tflops\": %.2f",
                            first ? "" : ",", en->name, path, ak_dtype_name(t), en->b, en->hq, en->hkv, en->sq, en->skv,
                            en->d, en->causal ? "true" : "false", s.mean, s.std, s.min, s.max, s.median, s.num_trials, dev->name,
                            dev->backend == AK_BACKEND_CUDA ? "cuda" : dev->backend == AK_BACKEND_HIP ? "hip" : "cpu",
                            dev->device, tf);
                    if (en->decode)
                        fprintf(jf, ", \"kv_bytes\": %.0f, \"gbps\": %.2f, \"roofline_fraction\": %.4f",
                                2.0 * (double)nk * (double)ak_dtype_size(t), gbps, copy_gbps > 0 ? gbps / copy_gbps : 0.0);
                    fprintf(jf, ", \"times\": [");
                    for (kk = 0; kk < n; kk++) fprintf(jf, "%s%.6g", kk ? "," : "", tm[kk]);
                    fprintf(jf, "]}");
                    first = 0;
                }
                free(tm);
            }
            ak_free(ctx, q); ak_free(ctx, k); ak_free(ctx, v); ak_free(ctx, o);
        }
    }
    if (jf) { fprintf(jf, "\n  ]\n}\n"); fclose(jf); }
    ak_free(ctx, flush);
    ak_event_destroy(e0); ak_event_destroy(e1);
    ak_context_destroy(simt);
    ak_context_destroy(ctx);
    return 0;
}
