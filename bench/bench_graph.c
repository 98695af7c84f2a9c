/* bench_graph - a decode-like sequence of 100 small ops (25 layers of rmsnorm,
 * a 1 x H x H gemm, silu, residual add; bf16 (the decode GEMM path), H = 512 by default), issued one
 * by one against captured once (ak_graph_begin / ak_graph_end) and replayed
 * (ak_graph_launch). Each figure is the wall time of `reps` back-to-back
 * sequences on one stream ending in one ak_stream_synchronize, per sequence,
 * the median of 7 such runs after a warm-up. The replay is checked against the
 * direct calls first (the same output). Then each op kind alone (its 25
 * launches, one by one and replayed: us per op, "amdkit_per_op_us"), to see
 * where the time goes. bench/graph_torch.py times the same sequence in
 * PyTorch (eager and torch.cuda.CUDAGraph) beside it.
 *   bench_graph [--quick] [--hidden H] [--f32] OUT.json */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

typedef struct bg_model { int hidden, layers; void *x, *h, *y, *w_norm, *w; } bg_model;
static ak_dtype BG_T = AK_BF16;   /* --f32: the f32 sequence */
/* The ops of `kinds` (1 rmsnorm, 2 gemm, 4 silu, 8 add; 15: the whole sequence) of every layer. */
static ak_result bg_ops(ak_context* ctx, const bg_model* m, ak_stream* s, int kinds) {
    int l;
    ak_result r;
    for (l = 0; l < m->layers; l++) {
        ak_gemm_desc g = ak_gemm_desc_default();
        g.dtype = g.out_dtype = BG_T;
        if ((kinds & 1) && (r = ak_rmsnorm(ctx, BG_T, m->x, m->w_norm, m->h, 1, (size_t)m->hidden, 1e-6f, s)) != AK_OK) return r;
        g.a = m->h; g.b = (char*)m->w + (size_t)l * m->hidden * m->hidden * ak_dtype_size(BG_T); g.d = m->y;
        g.m = 1; g.n = g.k = (size_t)m->hidden;
        if ((kinds & 2) && (r = ak_gemm(ctx, &g, s)) != AK_OK) return r;
        if ((kinds & 4) && (r = ak_unary(ctx, AK_OP_SILU, BG_T, m->y, m->y, (size_t)m->hidden, 0.0f, s)) != AK_OK) return r;
        if ((kinds & 8) && (r = ak_add(ctx, BG_T, m->x, m->y, m->x, (size_t)m->hidden, s)) != AK_OK) return r;
    }
    return AK_OK;
}
static ak_result bg_decode(ak_context* ctx, const bg_model* m, ak_stream* s) { return bg_ops(ctx, m, s, 15); }
static double bg_now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int bg_cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
#define BG_FAIL(what) do { fprintf(stderr, "bench_graph: %s: %s\n", what, ak_last_error()); return 1; } while (0)

int main(int argc, char** argv) {
    ak_context* ctx = NULL;
    ak_stream* s = NULL;
    ak_graph* g = NULL;
    bg_model m;
    const char* out = NULL;
    int quick = 0, i, run, rep, reps, H = 512, L = 25;
    double direct[7], graph[7], issue[7], worst = 0, kind_direct[4], kind_graph[4];
    static const char* const kind_name[4] = { "rmsnorm", "gemm", "silu", "add" };
    float *x0, *ref, *got, *w;
    void *stage = NULL, *x0d = NULL;
    size_t nw, es;
    FILE* f;
    unsigned long long rng = 12345;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--hidden") && i + 1 < argc) H = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--f32")) BG_T = AK_F32;
        else out = argv[i];
    }
    if (!out || H < 16) { fprintf(stderr, "usage: bench_graph [--quick] [--hidden H] [--f32] OUT.json\n"); return 2; }
    reps = quick ? 50 : 200;
    es = ak_dtype_size(BG_T);
    if (ak_context_create(NULL, &ctx) != AK_OK) BG_FAIL("context");
    if (ak_stream_create(ctx, "decode", 0, &s) != AK_OK) BG_FAIL("stream");
    memset(&m, 0, sizeof m);
    m.hidden = H; m.layers = L;
    nw = (size_t)L * H * H;
    x0 = (float*)malloc((size_t)H * 4); ref = (float*)malloc((size_t)H * 4); got = (float*)malloc((size_t)H * 4); w = (float*)malloc(nw * 4);
    if (!x0 || !ref || !got || !w) return 1;
    for (i = 0; i < H; i++) { rng = rng * 6364136223846793005ull + 1442695040888963407ull; x0[i] = (float)((rng >> 40) % 2000) / 1000.0f - 1.0f; }
    for (i = 0; i < (int)nw; i++) { rng = rng * 6364136223846793005ull + 1442695040888963407ull; w[i] = ((float)((rng >> 40) % 2000) / 1000.0f - 1.0f) * 0.05f; }
    if (ak_malloc(ctx, (size_t)H * es, NULL, (void**)&m.x) || ak_malloc(ctx, (size_t)H * es, NULL, (void**)&m.h) ||
        ak_malloc(ctx, (size_t)H * es, NULL, (void**)&m.y) || ak_malloc(ctx, (size_t)H * es, NULL, (void**)&m.w_norm) ||
        ak_malloc(ctx, nw * es, NULL, (void**)&m.w)) BG_FAIL("malloc");
    if (ak_malloc(ctx, nw * 4, NULL, &stage) || ak_malloc(ctx, (size_t)H * es, NULL, (void**)&x0d)) BG_FAIL("malloc");
    if (ak_memcpy(ctx, stage, w, nw * 4, AK_H2D) || ak_cast(ctx, AK_F32, stage, BG_T, m.w, nw, NULL)) BG_FAIL("copy");
    for (i = 0; i < H; i++) w[i] = 1.0f;
    if (ak_memcpy(ctx, stage, w, (size_t)H * 4, AK_H2D) || ak_cast(ctx, AK_F32, stage, BG_T, m.w_norm, (size_t)H, NULL)) BG_FAIL("copy");
    if (ak_memcpy(ctx, stage, x0, (size_t)H * 4, AK_H2D) || ak_cast(ctx, AK_F32, stage, BG_T, x0d, (size_t)H, NULL)) BG_FAIL("copy");
    if (ak_memcpy(ctx, m.x, x0d, (size_t)H * es, AK_D2D)) BG_FAIL("copy");
    /* warm-up (loads every kernel) and the reference */
    if (bg_decode(ctx, &m, s) || ak_stream_synchronize(ctx, s) || ak_cast(ctx, BG_T, m.x, AK_F32, stage, (size_t)H, NULL) ||
        ak_memcpy(ctx, ref, stage, (size_t)H * 4, AK_D2H)) BG_FAIL("direct");
    if (ak_graph_begin(s) || bg_decode(ctx, &m, s) || ak_graph_end(s, &g)) BG_FAIL("capture");
    if (ak_memcpy(ctx, m.x, x0d, (size_t)H * es, AK_D2D) || ak_graph_launch(g, s) || ak_stream_synchronize(ctx, s) ||
        ak_cast(ctx, BG_T, m.x, AK_F32, stage, (size_t)H, NULL) || ak_memcpy(ctx, got, stage, (size_t)H * 4, AK_D2H)) BG_FAIL("replay");
    for (i = 0; i < H; i++) { double e = fabs((double)got[i] - ref[i]) / (1.0 + fabs((double)ref[i])); if (e > worst) worst = e; }
    for (run = 0; run < 7; run++) {
        double t0, t1;
        t0 = bg_now();
        for (rep = 0; rep < reps; rep++) if (bg_decode(ctx, &m, s)) BG_FAIL("direct");
        t1 = bg_now();
        if (ak_stream_synchronize(ctx, s)) BG_FAIL("sync");
        direct[run] = (bg_now() - t0) / reps * 1e6;
        issue[run] = (t1 - t0) / reps * 1e6;
        t0 = bg_now();
        for (rep = 0; rep < reps; rep++) if (ak_graph_launch(g, s)) BG_FAIL("replay");
        if (ak_stream_synchronize(ctx, s)) BG_FAIL("sync");
        graph[run] = (bg_now() - t0) / reps * 1e6;
    }
    /* where the time goes: each op kind alone (its 25 launches), one by one and replayed, us per op */
    for (i = 0; i < 4; i++) {
        ak_graph* gk = NULL;
        double d7[7], g7[7], t0;
        if (ak_graph_begin(s) || bg_ops(ctx, &m, s, 1 << i) || ak_graph_end(s, &gk)) BG_FAIL("capture");
        for (run = 0; run < 7; run++) {
            t0 = bg_now();
            for (rep = 0; rep < reps; rep++) if (bg_ops(ctx, &m, s, 1 << i)) BG_FAIL("direct");
            if (ak_stream_synchronize(ctx, s)) BG_FAIL("sync");
            d7[run] = (bg_now() - t0) / reps / L * 1e6;
            t0 = bg_now();
            for (rep = 0; rep < reps; rep++) if (ak_graph_launch(gk, s)) BG_FAIL("replay");
            if (ak_stream_synchronize(ctx, s)) BG_FAIL("sync");
            g7[run] = (bg_now() - t0) / reps / L * 1e6;
        }
        qsort(d7, 7, sizeof(double), bg_cmp);
        qsort(g7, 7, sizeof(double), bg_cmp);
        kind_direct[i] = d7[3];
        kind_graph[i] = g7[3];
        ak_graph_destroy(gk);
    }
    qsort(direct, 7, sizeof(double), bg_cmp);
    qsort(graph, 7, sizeof(double), bg_cmp);
    qsort(issue, 7, sizeof(double), bg_cmp);
    f = fopen(out, "w");
    if (!f) { perror(out); return 1; }
    fprintf(f, "{\n  \"device\": \"%s\", \"backend\": \"%s\", \"arch\": \"%s\",\n", ak_context_device(ctx)->name,
            ak_backend_name(ak_context_device(ctx)->backend), ak_context_device(ctx)->arch);
    fprintf(f, "  \"sequence\": \"%d x (rmsnorm 1x%d, gemm 1x%dx%d, silu %d, add %d), %s\", \"dtype\": \"%s\", \"ops\": %d, \"hidden\": %d, \"layers\": %d,\n",
            L, H, H, H, H, H, ak_dtype_name(BG_T), ak_dtype_name(BG_T), 4 * L, H, L);
    fprintf(f, "  \"reps\": %d, \"runs\": 7, \"replay_max_rel_err\": %.3g,\n", reps, worst);
    fprintf(f, "  \"amdkit_per_op_us\": {");
    for (i = 0; i < 4; i++)
        fprintf(f, "%s\"%s\": {\"direct\": %.2f, \"graph\": %.2f}", i ? ", " : "", kind_name[i], kind_direct[i], kind_graph[i]);
    fprintf(f, "},\n");
    fprintf(f, "  \"amdkit_direct_us\": %.2f, \"amdkit_direct_issue_us\": %.2f, \"amdkit_graph_us\": %.2f, \"amdkit_graph_speedup\": %.2f\n}\n",
            direct[3], issue[3], graph[3], direct[3] / graph[3]);
    fclose(f);
    printf("bench_graph %s: %d ops, one by one %.1f us (host issue %.1f us), replay %.1f us: %.2fx; replay max rel err %.2g\n",
           ak_context_device(ctx)->name, 4 * L, direct[3], issue[3], graph[3], direct[3] / graph[3], worst);
    for (i = 0; i < 4; i++) printf("  %-8s us per op: one by one %.2f, replayed %.2f\n", kind_name[i], kind_direct[i], kind_graph[i]);
    ak_graph_destroy(g);
    ak_stream_destroy(s);
    ak_context_destroy(ctx);
    free(x0); free(ref); free(got); free(w);
    return worst == 0 ? 0 : 3;   /* the same kernels on the same data: bit-identical */
}
