/* bench_gemm_fp8 - times ak_gemm on 8-bit float inputs (scaled GEMM) and writes JSON.
 *
 *   build/bench_gemm_fp8 [--quick] [--filter SUBSTR] [OUT.json]
 *
 * Cases (the PyTorch peer bench/peer_torch_gemm_fp8.py runs the same ones with
 * torch._scaled_mm): e4m3 x e4m3 -> bf16, A stored M x K and W stored N x K
 * (y = A W^T, the layout fp8 wgmma and cuBLASLt take), f32 scales per tensor
 * and rowwise (one per row of A, one per row of W); squares 2048..8192 with
 * both scale kinds; LLM shapes M in {1, 16, 128, 2048, 16384} x (N, K) in
 * {(4096, 4096), (14336, 4096), (4096, 14336)} with rowwise scales.
 * Protocol as bench_gemm: 3 warm-ups (the first compiles), then trials
 * (10..100, about 0.2 s) between two events, the L2 flushed before each.
 * TF/s = 2 M N K / median; roofline_fraction over the arch table's fp8 dense
 * peak (twice the f16 one where the arch has fp8), and for M <= 16 the
 * bandwidth of reading W over the device-to-device copy bandwidth.
 * Inputs: random codes of values in [-1, 1) (never zeros), scales in [0.5, 1.5).
 * --variants: also time each variant of the Hopper kernel (0 cooperative
 * 128x256, 1 cooperative 128x128, 2 ping-pong 128x128; 20 trials each) and
 * record their medians ("variants_ms") beside the planner's choice. */
#define AMDKIT_GEMM_FORCE
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef struct fcase {
    char name[96];
    size_t m, n, k;
    int rowwise;
} fcase;

static unsigned long long g_rng = 88172645463325252ull;
static double rnd(void) {
    g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) / 9007199254740992.0 * 2 - 1;
}
/* n fp8 codes (or f32 scales in [0.5, 1.5) when scales) on the device */
static void* dev_fill(ak_context* ctx, size_t n, int scales) {
    size_t es = scales ? 4 : 1, i, chunk = (size_t)1 << 24;
    void *d = NULL, *h = malloc(chunk * es);
    static uint8_t codes[256];
    if (!codes[0]) /* 256 codes of values in [-1, 1), none zero */
        for (i = 0; i < 256; i++) codes[i] = ak_f32_to_fp8((float)((i + 0.5) / 128.0 - 1.0), AK_FP8_E4M3, 1);
    if (!h || ak_malloc(ctx, n * es, NULL, &d) != AK_OK) { free(h); return NULL; }
    for (i = 0; i < n; i += chunk) {
        size_t c = n - i < chunk ? n - i : chunk, j;
        for (j = 0; j < c; j++) {
            if (scales) ((float*)h)[j] = (float)(1.0 + 0.5 * rnd());
            else {
                g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
                ((uint8_t*)h)[j] = codes[g_rng >> 56];
            }
        }
        ak_memcpy(ctx, (char*)d + i * es, h, c * es, AK_H2D);
    }
    free(h);
    return d;
}

int main(int argc, char** argv) {
    const char* out = NULL;
    const char* filter = NULL;
    int quick = 0, variants = 0, i, nc = 0, written = 0;
    static fcase cs[64];
    ak_context* ctx = NULL;
    const ak_device_info* di;
    ak_event *e0, *e1;
    void* scratch = NULL;
    size_t scratch_bytes;
    double copy_gbps = 0;
    FILE* f;
    static const size_t sq[] = { 2048, 4096, 6144, 8192 };
    static const size_t llm_m[] = { 1, 16, 128, 2048, 16384 };
    static const size_t llm_nk[][2] = { { 4096, 4096 }, { 14336, 4096 }, { 4096, 14336 } };
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--variants")) variants = 1;
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else out = argv[i];
    }
    for (i = 0; i < 4; i++) {
        int r;
        for (r = 0; r < 2; r++) {
            fcase* c = &cs[nc++];
            c->m = c->n = c->k = quick ? (size_t)256 << (i / 2) : sq[i]; c->rowwise = r;
            snprintf(c->name, sizeof c->name, "fp8_square_%zu_%s", c->m, r ? "rowwise" : "tensor");
        }
    }
    for (i = 0; i < 5 && !quick; i++) {
        int j;
        for (j = 0; j < 3; j++) {
            fcase* c = &cs[nc++];
            c->m = llm_m[i]; c->n = llm_nk[j][0]; c->k = llm_nk[j][1]; c->rowwise = 1;
            snprintf(c->name, sizeof c->name, "fp8_llm_m%zu_n%zu_k%zu_rowwise", c->m, c->n, c->k);
        }
    }
    if (ak_context_create(NULL, &ctx) != AK_OK) { fprintf(stderr, "%s\n", ak_last_error()); return 1; }
    di = ak_context_device(ctx);
    ak_event_create(ctx, &e0);
    ak_event_create(ctx, &e1);
    scratch_bytes = di->l2_bytes ? 2 * di->l2_bytes : ((size_t)64 << 20);
    if (ak_malloc(ctx, scratch_bytes, NULL, &scratch) != AK_OK) scratch = NULL;
    if (di->backend != AK_BACKEND_CPU) copy_gbps = bench_copy_gbps(ctx, quick ? ((size_t)64 << 20) : ((size_t)1 << 30));
    f = out ? fopen(out, "w") : stdout;
    if (!f) { perror(out); return 1; }
    fprintf(f, "{\"tool\": \"bench_gemm_fp8\", \"hardware\": \"%s\", \"device\": \"%s\", \"backend\": \"%s\", \"copy_gbps\": %.1f, \"results\": [\n",
            di->name, di->arch, ak_backend_name(di->backend), copy_gbps);
    printf("%-44s %10s %9s %7s %s\n", "case", "median ms", "TF/s", "%peak", "kernel");
    for (i = 0; i < nc; i++) {
        fcase* c = &cs[i];
        ak_gemm_desc g = ak_gemm_desc_default();
        ak_gemm_plan p;
        void *A, *B, *D = NULL, *sa, *sb;
        double t[100], flops, tf, peak, frac, bw_frac = 0;
        int trials = 0, k, w;
        ak_result r = AK_OK;
        if (filter && !strstr(c->name, filter)) continue;
        A = dev_fill(ctx, c->m * c->k, 0);
        B = dev_fill(ctx, c->n * c->k, 0);
        sa = dev_fill(ctx, c->rowwise ? c->m : 1, 1);
        sb = dev_fill(ctx, c->rowwise ? c->n : 1, 1);
        ak_malloc(ctx, c->m * c->n * 2, NULL, &D);
        if (!A || !B || !D || !sa || !sb) {
            fprintf(stderr, "%s: out of memory\n", c->name);
            ak_free(ctx, A); ak_free(ctx, B); ak_free(ctx, D); ak_free(ctx, sa); ak_free(ctx, sb);
            continue;
        }
        g.dtype = AK_FP8_E4M3; g.out_dtype = AK_BF16; g.m = c->m; g.n = c->n; g.k = c->k; g.a = A; g.b = B; g.d = D; g.trans_b = 1;
        g.scale_a = (const float*)sa; g.scale_b = (const float*)sb; g.scale_a_per_row = c->rowwise; g.scale_b_per_col = c->rowwise;
        if (ak_gemm_plan_get(ctx, &g, &p) != AK_OK) { fprintf(stderr, "%s: %s\n", c->name, ak_last_error()); r = AK_ERROR_INVALID_ARGUMENT; }
        for (w = 0; w < 3 && r == AK_OK; w++) r = ak_gemm(ctx, &g, NULL);
        if (r == AK_OK) r = ak_device_synchronize(ctx);
        if (r == AK_OK) {
            float ms = 0;
            ak_event_record(e0, NULL);
            r = ak_gemm(ctx, &g, NULL);
            ak_event_record(e1, NULL);
            ak_event_synchronize(e1);
            ak_event_elapsed_ms(e0, e1, &ms);
            trials = ms > 0 ? (int)(200.0 / ms) : 100;
            if (trials < 10) trials = 10;
            if (trials > 100) trials = 100;
            if (quick) trials = 3;
        }
        for (k = 0; k < trials && r == AK_OK; k++) {
            float ms = 0;
            if (scratch) ak_memset(ctx, scratch, k & 0xFF, scratch_bytes, NULL);
            ak_event_record(e0, NULL);
            r = ak_gemm(ctx, &g, NULL);
            ak_event_record(e1, NULL);
            ak_event_synchronize(e1);
            ak_event_elapsed_ms(e0, e1, &ms);
            t[k] = ms;
        }
        double vms[3] = { 0, 0, 0 };
        if (variants && r == AK_OK && !strcmp(p.path, "wgmma")) {
            int v;
            for (v = 0; v < 3; v++) {
                double tv[20];
                ak_bench_stats sv;
                ak_gemm(ctx, &g, NULL);   /* the variant's compile */
                _ak_gemm_force = v;
                for (w = 0; w < 2; w++) ak_gemm(ctx, &g, NULL);
                for (k = 0; k < 20 && r == AK_OK; k++) {
                    float ms = 0;
                    if (scratch) ak_memset(ctx, scratch, k & 0xFF, scratch_bytes, NULL);
                    ak_event_record(e0, NULL);
                    r = ak_gemm(ctx, &g, NULL);
                    ak_event_record(e1, NULL);
                    ak_event_synchronize(e1);
                    ak_event_elapsed_ms(e0, e1, &ms);
                    tv[k] = ms;
                }
                _ak_gemm_force = -1;
                if (r != AK_OK) break;
                ak_bench_stats_of(tv, 20, &sv);
                vms[v] = sv.median;
            }
        }
        if (r != AK_OK || trials == 0) {
            fprintf(stderr, "%s: %s\n", c->name, ak_last_error());
        } else {
            ak_bench_stats st;
            double med;
            ak_bench_stats_of(t, trials, &st);
            med = st.median;
            flops = 2.0 * (double)c->m * (double)c->n * (double)c->k;
            tf = flops / (med * 1e-3) / 1e12;
            peak = di->arch_info && di->arch_info->fp8 ? 2 * di->arch_info->fp16_matrix_tflops : 0;
            frac = peak > 0 ? tf / peak : 0;
            if (c->m <= 16 && copy_gbps > 0) bw_frac = ((double)c->n * (double)c->k / (med * 1e-3) / 1e9) / copy_gbps;
            printf("%-44s %10.4f %9.1f %6.1f%% %s\n", c->name, med, tf, 100 * frac, p.kernel);
            if (vms[0] > 0) printf("%44s variants 0 / 1 / 2: %.4f / %.4f / %.4f ms\n", "", vms[0], vms[1], vms[2]);
            fprintf(f, "%s  {\"name\": \"%s\", \"dtype\": \"fp8_e4m3\", \"out_dtype\": \"bf16\", \"scales\": \"%s\", \"m\": %zu, \"n\": %zu, \"k\": %zu, "
                       "\"kernel\": \"%s\", \"path\": \"%s\", \"mean\": %.6f, \"std\": %.6f, \"min\": %.6f, \"max\": %.6f, \"median\": %.6f, "
                       "\"num_trials\": %d, \"hardware\": \"%s\", \"device\": \"%s\", \"tflops\": %.3f, \"peak_tflops\": %.1f, "
                       "\"roofline_fraction\": %.4f, \"b_read_copy_fraction\": %.4f, \"variants_ms\": [%.6f, %.6f, %.6f], \"times\": [",
                    written++ ? ",\n" : "", c->name, c->rowwise ? "rowwise" : "tensor", c->m, c->n, c->k, p.kernel, p.path, st.mean, st.std,
                    st.min, st.max, med, trials, di->name, di->arch, tf, peak, frac, bw_frac, vms[0], vms[1], vms[2]);
            for (k = 0; k < trials; k++) fprintf(f, "%s%.6g", k ? "," : "", t[k]);
            fprintf(f, "]}");
            fflush(f);
        }
        ak_free(ctx, A); ak_free(ctx, B); ak_free(ctx, D); ak_free(ctx, sa); ak_free(ctx, sb);
    }
    fprintf(f, "\n]}\n");
    if (out) fclose(f);
    ak_event_destroy(e0);
    ak_event_destroy(e1);
    ak_free(ctx, scratch);
    ak_context_destroy(ctx);
    return 0;
}
