/* bench_gemm - times ak_gemm and writes JSON (KernelBench baseline format).
 *
 *   build/bench_gemm [--quick] [--filter SUBSTR] [OUT.json]
 *
 * Shapes (the GEMM targets' list, README.md): square 1024..8192 in f16, bf16, f32 (exact) and
 * f32 as TF32; LLM shapes M in {1, 16, 4096, 16384} x (N, K) in {(4096, 4096),
 * (14336, 4096), (4096, 14336), (128256, 4096)} in bf16 as x W^T (W stored
 * N x K, trans_b = 1: the nn.Linear layout); matmul + bias + gelu fused on the
 * M = 4096 LLM shapes; batched 64 x (512 x 512 x 64). B is stored N x K
 * (trans_b = 1) everywhere; the PyTorch peer (bench/peer_torch_gemm.py) runs
 * the same layouts (A @ W.t()).
 * Protocol: 3 warm-up calls (the first compiles), then trials (10..100, about
 * 0.3 s) each between two events, the L2 flushed before each (a memset of 2x
 * the L2, untimed). TF/s = 2 M N K batch / median; roofline_fraction = TF/s
 * over the arch table's dense peak (f16/bf16 matrix, f32 vector; TF32 is
 * taken as half the f16 peak) and, for M <= 16, the bandwidth of reading B
 * (N K elements) over the device-to-device copy bandwidth measured here.
 * Inputs: random in [-1, 1) (never zeros), made on the host once per size. */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef struct gcase {
    char name[96];
    ak_dtype dt;
    int tf32;        /* f32 through TF32 (context with allow_tf32 = 1) */
    size_t m, n, k, batch;
    int epi;         /* 1: bias + gelu */
} gcase;


static unsigned long long g_rng = 88172645463325252ull;
static double rnd(void) {
    g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) / 9007199254740992.0 * 2 - 1;
}
static void* dev_random(ak_context* ctx, ak_dtype t, size_t n) {
    size_t es = ak_dtype_size(t), i, chunk = (size_t)1 << 24;
    void *d = NULL, *h = malloc(chunk * es);
    if (!h || ak_malloc(ctx, n * es, NULL, &d) != AK_OK) { free(h); return NULL; }
    for (i = 0; i < n; i += chunk) {
        size_t c = n - i < chunk ? n - i : chunk, j;
        for (j = 0; j < c; j++) { double v = rnd(); ak_elem_set(h, t, j, fabs(v) < 0.01 ? 0.5 : v); }
        ak_memcpy(ctx, (char*)d + i * es, h, c * es, AK_H2D);
    }
    free(h);
    return d;
}

int main(int argc, char** argv) {
    const char* out = NULL;
    const char* filter = NULL;
    int quick = 0, i, nc = 0, written = 0;
    static gcase cs[128];
    ak_context *ctx = NULL, *ctx32 = NULL, *ctxf = NULL;
    ak_config cfg;
    const ak_device_info* di;
    ak_event *e0, *e1;
    void* scratch = NULL;
    size_t scratch_bytes;
    double copy_gbps = 0;
    FILE* f;
    static const size_t sq[] = { 1024, 2048, 4096, 8192 };
    static const size_t llm_m[] = { 1, 16, 4096, 16384 };
    static const size_t llm_nk[][2] = { { 4096, 4096 }, { 14336, 4096 }, { 4096, 14336 }, { 128256, 4096 } };
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else out = argv[i];
    }
    /* cases */
    for (i = 0; i < 4; i++) {
        size_t s = quick ? (size_t)64 << (i / 2) : sq[i];
        static const ak_dtype d4[4] = { AK_F16, AK_BF16, AK_F32, AK_F32 };
        int d;
        for (d = 0; d < 4; d++) {
            gcase* c = &cs[nc++];
            c->dt = d4[d]; c->tf32 = d == 3; c->m = c->n = c->k = s; c->batch = 1; c->epi = 0;
            snprintf(c->name, sizeof c->name, "gemm_square_%zu_%s", s, d == 3 ? "tf32" : ak_dtype_name(d4[d]));
        }
    }
    for (i = 0; i < 4 && !quick; i++) {
        int j;
        for (j = 0; j < 4; j++) {
            gcase* c = &cs[nc++];
            c->dt = AK_BF16; c->tf32 = 0; c->m = llm_m[i]; c->n = llm_nk[j][0]; c->k = llm_nk[j][1]; c->batch = 1; c->epi = 0;
            snprintf(c->name, sizeof c->name, "gemm_llm_m%zu_n%zu_k%zu_bf16", c->m, c->n, c->k);
        }
    }
    for (i = 0; i < 4 && !quick; i++) {
        gcase* c = &cs[nc++];
        c->dt = AK_BF16; c->tf32 = 0; c->m = 4096; c->n = llm_nk[i][0]; c->k = llm_nk[i][1]; c->batch = 1; c->epi = 1;
        snprintf(c->name, sizeof c->name, "gemm_bias_gelu_m%zu_n%zu_k%zu_bf16", c->m, c->n, c->k);
    }
    {
        static const ak_dtype d2[2] = { AK_F16, AK_BF16 };
        for (i = 0; i < 2; i++) {
            gcase* c = &cs[nc++];
            c->dt = d2[i]; c->tf32 = 0; c->m = quick ? 64 : 512; c->n = quick ? 64 : 512; c->k = 64; c->batch = quick ? 4 : 64; c->epi = 0;
            snprintf(c->name, sizeof c->name, "gemm_batched_%zux%zux%zux%zu_%s", c->batch, c->m, c->n, c->k, ak_dtype_name(d2[i]));
        }
    }
    if (ak_context_create(NULL, &ctx) != AK_OK) { fprintf(stderr, "%s\n", ak_last_error()); return 1; }
    cfg = *ak_context_config(ctx);
    cfg.precision = AK_BF16; cfg.mixed_precision = AK_ON; /* the TF32 context */
    cfg.logger = NULL;
    {
        ak_config c2 = ak_config_default();
        ak_config_apply_env(&c2);
        c2.allow_tf32 = 1; /* the TF32 context (f32 is exact unless a caller opts in) */
        if (ak_context_create(&c2, &ctx32) != AK_OK) { fprintf(stderr, "%s\n", ak_last_error()); return 1; }
    }
    {
        ak_config c3 = ak_config_default();
        ak_config_apply_env(&c3);
        c3.allow_tf32 = 0; /* exact fp32 */
        if (ak_context_create(&c3, &ctxf) != AK_OK) { fprintf(stderr, "%s\n", ak_last_error()); return 1; }
    }
    (void)cfg;
    di = ak_context_device(ctx);
    ak_event_create(ctx, &e0);
    ak_event_create(ctx, &e1);
    scratch_bytes = di->l2_bytes ? 2 * di->l2_bytes : ((size_t)64 << 20);
    if (ak_malloc(ctx, scratch_bytes, NULL, &scratch) != AK_OK) scratch = NULL;
    if (di->backend != AK_BACKEND_CPU)   /* copy bandwidth: 1 GiB D2D, read + write */
        copy_gbps = bench_copy_gbps(ctx, quick ? ((size_t)64 << 20) : ((size_t)1 << 30));
    f = out ? fopen(out, "w") : stdout;
    if (!f) { perror(out); return 1; }
    fprintf(f, "{\"tool\": \"bench_gemm\", \"hardware\": \"%s\", \"device\": \"%s\", \"backend\": \"%s\", \"copy_gbps\": %.1f, \"results\": [\n",
            di->name, di->arch, ak_backend_name(di->backend), copy_gbps);
    printf("%-44s %10s %9s %7s %s\n", "case", "median ms", "TF/s", "%peak", "kernel");
    for (i = 0; i < nc; i++) {
        gcase* c = &cs[i];
        ak_context* cx = c->tf32 ? ctx32 : c->dt == AK_F32 ? ctxf : ctx;
        ak_gemm_desc g = ak_gemm_desc_default();
        ak_gemm_plan p;
        void *A, *B, *D, *bias = NULL;
        double t[100], flops, tf, peak, frac, bw_frac = 0;
        int trials = 0, k, w;
        ak_result r = AK_OK;
        if (filter && !strstr(c->name, filter)) continue;
        A = dev_random(ctx, c->dt, c->m * c->k * c->batch);
        B = dev_random(ctx, c->dt, c->n * c->k * c->batch);
        D = NULL;
        ak_malloc(ctx, c->m * c->n * c->batch * ak_dtype_size(c->dt), NULL, &D);
        if (c->epi) bias = dev_random(ctx, c->dt, c->n);
        if (!A || !B || !D || (c->epi && !bias)) {
            fprintf(stderr, "%s: out of memory\n", c->name);
            ak_free(ctx, A); ak_free(ctx, B); ak_free(ctx, D); ak_free(ctx, bias);
            continue;
        }
        g.dtype = c->dt; g.out_dtype = c->dt; g.m = c->m; g.n = c->n; g.k = c->k; g.a = A; g.b = B; g.d = D;
        g.trans_b = 1; g.batch = c->batch; g.stride_a = c->m * c->k; g.stride_b = c->n * c->k; g.stride_d = c->m * c->n;
        if (c->epi) { g.bias = bias; g.activation = AK_OP_GELU; }
        ak_gemm_plan_get(cx, &g, &p);
        for (w = 0; w < 3 && r == AK_OK; w++) r = ak_gemm(cx, &g, NULL);
        if (r == AK_OK) r = ak_device_synchronize(cx);
        if (r == AK_OK) {
            float ms = 0;
            ak_event_record(e0, NULL);
            r = ak_gemm(cx, &g, NULL);
            ak_event_record(e1, NULL);
            ak_event_synchronize(e1);
            ak_event_elapsed_ms(e0, e1, &ms);
            trials = ms > 0 ? (int)(300.0 / ms) : 100;
            if (trials < 10) trials = 10;
            if (trials > 100) trials = 100;
            if (quick) trials = 3;
        }
        for (k = 0; k < trials && r == AK_OK; k++) {
            float ms = 0;
            if (scratch) ak_memset(ctx, scratch, k & 0xFF, scratch_bytes, NULL);
            ak_event_record(e0, NULL);
            r = ak_gemm(cx, &g, NULL);
            ak_event_record(e1, NULL);
            ak_event_synchronize(e1);
            ak_event_elapsed_ms(e0, e1, &ms);
            t[k] = ms;
        }
        if (r != AK_OK || trials == 0) {
            fprintf(stderr, "%s: %s\n", c->name, ak_last_error());
        } else {
            ak_bench_stats st;
            double med;
            ak_bench_stats_of(t, trials, &st);
            med = st.median;
            flops = 2.0 * (double)c->m * (double)c->n * (double)c->k * (double)c->batch;
            tf = flops / (med * 1e-3) / 1e12;
            peak = !di->arch_info ? 0 : c->dt == AK_F32 ? (c->tf32 ? di->arch_info->fp16_matrix_tflops / 2 : di->arch_info->fp32_tflops)
                                                        : c->dt == AK_F16 ? di->arch_info->fp16_matrix_tflops : di->arch_info->bf16_matrix_tflops;
            frac = peak > 0 ? tf / peak : 0;
            if (c->m <= 16 && copy_gbps > 0)
                bw_frac = ((double)c->n * (double)c->k * (double)ak_dtype_size(c->dt) / (med * 1e-3) / 1e9) / copy_gbps;
            printf("%-44s %10.4f %9.1f %6.1f%% %s%s\n", c->name, med, tf, 100 * frac, p.kernel,
                   c->m <= 16 ? "" : "");
            if (c->m <= 16) printf("%44s B read at %.1f%% of copy bandwidth\n", "", 100 * bw_frac);
            fprintf(f, "%s  {\"name\": \"%s\", \"dtype\": \"%s\", \"m\": %zu, \"n\": %zu, \"k\": %zu, \"batch\": %zu, \"epilogue\": \"%s\", "
                       "\"kernel\": \"%s\", \"path\": \"%s\", \"mean\": %.6f, \"std\": %.6f, \"min\": %.6f, \"max\": %.6f, \"median\": %.6f, "
                       "\"num_trials\": %d, \"hardware\": \"%s\", \"device\": \"%s\", \"tflops\": %.3f, \"peak_tflops\": %.1f, "
                       "\"roofline_fraction\": %.4f, \"b_read_copy_fraction\": %.4f, \"times\": [",
                    written++ ? ",\n" : "", c->name, c->tf32 ? "tf32" : ak_dtype_name(c->dt), c->m, c->n, c->k, c->batch, c->epi ? "bias+gelu" : "none",
                    p.kernel, p.path, st.mean, st.std, st.min, st.max, med, trials, di->name, di->arch, tf, peak, frac, bw_frac);
            for (k = 0; k < trials; k++) fprintf(f, "%s%.6g", k ? "," : "", t[k]);   /* for report.py's intervals */
            fprintf(f, "]}");
            fflush(f);
        }
        ak_free(ctx, A); ak_free(ctx, B); ak_free(ctx, D); ak_free(ctx, bias);
    }
    fprintf(f, "\n]}\n");
    if (out) fclose(f);
    ak_event_destroy(e0);
    ak_event_destroy(e1);
    ak_free(ctx, scratch);
    ak_context_destroy(ctx32);
    ak_context_destroy(ctxf);
    ak_context_destroy(ctx);
    return 0;
}
