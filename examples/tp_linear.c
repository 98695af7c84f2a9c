/* tp_linear.c - tensor-parallel linear layers over N devices with amdkit.
 *
 *   Zt = W2t · relu(W1t · Xt)     (activations feature-major: Xt is D x B)
 *
 * Layer 1, column-parallel: rank i owns the output features (rows of W1t)
 *   [i*Hn, (i+1)*Hn), Hn = ceil(H / N) (the last block padded with zero rows),
 *   computes its slice of Yt and all-gathers the slices: every rank then holds
 *   all of Yt (N*Hn x B; rows past H are zeros).
 * Layer 2, row-parallel: rank i multiplies its columns of W2t (the same feature
 *   range) by its rows of Yt, and an all-reduce (sum) of the partial products
 *   gives Zt on every rank.
 * Both results are checked on every rank against the same layers computed on
 * one device (context 0 alone) and against a double-precision host reference.
 *
 * One context per device (devices 0..N-1 on hip/cuda; N contexts of the one
 * device on the cpu backend), one thread per rank, collectives through
 * ak_comm_init_all (NCCL / RCCL / cpu threads). Exit 0 when everything matches.
 *
 *   tp_linear [--ranks N] [--batch B] [--in D] [--hidden H] [--out O] [--quiet]
 *   (AMDKIT_BACKEND picks the backend; default N: every device, 2 on cpu)
 */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A plain SIMT matmul: C[M][N] = A[M][K] B[K][N] with leading dimensions. */
static const char tp_src[] =
    "extern \"C\" __global__ void tp_matmul(const float* A, const float* B, float* C, int M, int N, int K,\n"
    "                                      int lda, int ldb, int ldc) {\n"
    "    __shared__ float As[16][17], Bs[16][17];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
    "    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;\n"
    "    float acc = 0.f;\n"
    "    for (int k0 = 0; k0 < K; k0 += 16) {\n"
    "        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * lda + k0 + tx] : 0.f;\n"
    "        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * ldb + col] : 0.f;\n"
    "        __syncthreads();\n"
    "        for (int k = 0; k < 16; k++) acc += As[ty][k] * Bs[k][tx];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (row < M && col < N) C[(size_t)row * ldc + col] = acc;\n"
    "}\n";

/* Its CPU implementation (the cpu backend runs it; args point to the argument values). */
static void tp_matmul_cpu(const ak_launch_info* info, void** args) {
    const float* A = *(const float**)args[0];
    const float* B = *(const float**)args[1];
    float* C = *(float**)args[2];
    int M = *(int*)args[3], N = *(int*)args[4], K = *(int*)args[5];
    int lda = *(int*)args[6], ldb = *(int*)args[7], ldc = *(int*)args[8];
    int i, j, k;
    (void)info;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            float acc = 0.f;
            for (k = 0; k < K; k++) acc += A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
            C[(size_t)i * ldc + j] = acc;
        }
}

static ak_result tp_matmul(ak_kernel* k, const float* A, const float* B, float* C, int M, int N, int K, int lda, int ldb, int ldc,
                           ak_stream* s) {
    ak_args a;
    ak_dim3 grid, block;
    memset(&a, 0, sizeof a);
    ak_args_ptr(&a, A); ak_args_ptr(&a, B); ak_args_ptr(&a, C);
    ak_args_i32(&a, M); ak_args_i32(&a, N); ak_args_i32(&a, K);
    ak_args_i32(&a, lda); ak_args_i32(&a, ldb); ak_args_i32(&a, ldc);
    grid.x = (unsigned)(N + 15) / 16; grid.y = (unsigned)(M + 15) / 16; grid.z = 1;
    block.x = 16; block.y = 16; block.z = 1;
    return ak_launch(k, grid, block, 0, s, ak_args_params(&a));
}

typedef struct {
    int N, B, D, H, O, Hn;
    const float *Xt, *W1t, *W2t;   /* host: D x B, H x D, O x H */
} tp_problem;

typedef struct {
    const tp_problem* p;
    ak_context* ctx;
    ak_comm* comm;
    int rank;
    float* Yt;                    /* host out: N*Hn x B (gathered) */
    float* Zt;                    /* host out: O x B */
    ak_result r;
    char err[2400];
} tp_rank;

#define TP_TRY(e) do { if ((R->r = (e)) != AK_OK) { snprintf(R->err, sizeof R->err, "rank %d: %s: %s", R->rank, #e, ak_last_error()); goto out; } } while (0)

static void* tp_rank_main(void* arg) {
    tp_rank* R = (tp_rank*)arg;
    const tp_problem* p = R->p;
    int i = R->rank, Hn = p->Hn, h0 = i * Hn, hn = p->H - h0 < Hn ? (p->H - h0 > 0 ? p->H - h0 : 0) : Hn;
    size_t fB = sizeof(float) * (size_t)p->B;
    ak_kernel* k = NULL;
    ak_stream* s = NULL;
    float *dX = NULL, *dW1 = NULL, *dW2 = NULL, *dY = NULL, *dYg = NULL, *dZ = NULL, *hW1 = NULL, *hW2 = NULL;
    int row;
    R->r = AK_OK;
    TP_TRY(ak_kernel_get(R->ctx, tp_src, "tp_matmul", NULL, &k));
    ak_kernel_set_cpu(k, tp_matmul_cpu, NULL);
    TP_TRY(ak_stream_create(R->ctx, "tp", 0, &s));
    /* this rank's weights: W1t rows [h0, h0+hn) padded to Hn rows; W2t columns [h0, h0+hn) as O x Hn */
    hW1 = (float*)calloc((size_t)Hn * p->D, sizeof(float));
    hW2 = (float*)calloc((size_t)p->O * Hn, sizeof(float));
    if (!hW1 || !hW2) { R->r = AK_ERROR_OUT_OF_MEMORY; snprintf(R->err, sizeof R->err, "rank %d: host memory", i); goto out; }
    if (hn > 0) memcpy(hW1, p->W1t + (size_t)h0 * p->D, sizeof(float) * (size_t)hn * p->D);
    for (row = 0; row < p->O; row++)
        if (hn > 0) memcpy(hW2 + (size_t)row * Hn, p->W2t + (size_t)row * p->H + h0, sizeof(float) * (size_t)hn);
    TP_TRY(ak_malloc(R->ctx, sizeof(float) * (size_t)p->D * p->B, s, (void**)&dX));
    TP_TRY(ak_malloc(R->ctx, sizeof(float) * (size_t)Hn * p->D, s, (void**)&dW1));
    TP_TRY(ak_malloc(R->ctx, sizeof(float) * (size_t)p->O * Hn, s, (void**)&dW2));
    TP_TRY(ak_malloc(R->ctx, fB * Hn, s, (void**)&dY));
    TP_TRY(ak_malloc(R->ctx, fB * Hn * p->N, s, (void**)&dYg));
    TP_TRY(ak_malloc(R->ctx, fB * p->O, s, (void**)&dZ));
    TP_TRY(ak_memcpy_async(R->ctx, dX, p->Xt, sizeof(float) * (size_t)p->D * p->B, AK_H2D, s));
    TP_TRY(ak_memcpy_async(R->ctx, dW1, hW1, sizeof(float) * (size_t)Hn * p->D, AK_H2D, s));
    TP_TRY(ak_memcpy_async(R->ctx, dW2, hW2, sizeof(float) * (size_t)p->O * Hn, AK_H2D, s));
    TP_TRY(ak_stream_synchronize(R->ctx, s));   /* the host buffers are freed below */
    /* layer 1, column-parallel: Yt_i = relu(W1t_i Xt), then all-gather the slices */
    TP_TRY(tp_matmul(k, dW1, dX, dY, Hn, p->B, p->D, p->D, p->B, p->B, s));
    TP_TRY(ak_unary(R->ctx, AK_OP_RELU, AK_F32, dY, dY, (size_t)Hn * p->B, 0.f, s));
    TP_TRY(ak_all_gather(R->comm, AK_F32, dY, dYg, (size_t)Hn * p->B, s));
    /* layer 2, row-parallel: partial Zt = W2t[:, block i] Yt[block i, :], then all-reduce (sum) */
    TP_TRY(tp_matmul(k, dW2, dYg + (size_t)h0 * p->B, dZ, p->O, p->B, Hn, Hn, p->B, p->B, s));
    TP_TRY(ak_all_reduce(R->comm, AK_REDUCE_SUM, AK_F32, dZ, dZ, (size_t)p->O * p->B, s));
    TP_TRY(ak_memcpy_async(R->ctx, R->Yt, dYg, fB * Hn * p->N, AK_D2H, s));
    TP_TRY(ak_memcpy_async(R->ctx, R->Zt, dZ, fB * p->O, AK_D2H, s));
    TP_TRY(ak_stream_synchronize(R->ctx, s));
out:
    ak_free(R->ctx, dX); ak_free(R->ctx, dW1); ak_free(R->ctx, dW2);
    ak_free(R->ctx, dY); ak_free(R->ctx, dYg); ak_free(R->ctx, dZ);
    free(hW1); free(hW2);
    ak_stream_destroy(s);
    ak_kernel_release(k);
    return NULL;
}

/* The same two layers on one context, no split. */
static ak_result tp_single(ak_context* ctx, const tp_problem* p, float* Yt, float* Zt) {
    ak_kernel* k = NULL;
    float *dX = NULL, *dW1 = NULL, *dW2 = NULL, *dY = NULL, *dZ = NULL;
    size_t fB = sizeof(float) * (size_t)p->B;
    ak_result r;
    if ((r = ak_kernel_get(ctx, tp_src, "tp_matmul", NULL, &k)) != AK_OK) return r;
    ak_kernel_set_cpu(k, tp_matmul_cpu, NULL);
    if ((r = ak_malloc(ctx, sizeof(float) * (size_t)p->D * p->B, NULL, (void**)&dX)) == AK_OK &&
        (r = ak_malloc(ctx, sizeof(float) * (size_t)p->H * p->D, NULL, (void**)&dW1)) == AK_OK &&
        (r = ak_malloc(ctx, sizeof(float) * (size_t)p->O * p->H, NULL, (void**)&dW2)) == AK_OK &&
        (r = ak_malloc(ctx, fB * p->H, NULL, (void**)&dY)) == AK_OK &&
        (r = ak_malloc(ctx, fB * p->O, NULL, (void**)&dZ)) == AK_OK &&
        (r = ak_memcpy(ctx, dX, p->Xt, sizeof(float) * (size_t)p->D * p->B, AK_H2D)) == AK_OK &&
        (r = ak_memcpy(ctx, dW1, p->W1t, sizeof(float) * (size_t)p->H * p->D, AK_H2D)) == AK_OK &&
        (r = ak_memcpy(ctx, dW2, p->W2t, sizeof(float) * (size_t)p->O * p->H, AK_H2D)) == AK_OK &&
        (r = tp_matmul(k, dW1, dX, dY, p->H, p->B, p->D, p->D, p->B, p->B, NULL)) == AK_OK &&
        (r = ak_unary(ctx, AK_OP_RELU, AK_F32, dY, dY, (size_t)p->H * p->B, 0.f, NULL)) == AK_OK &&
        (r = tp_matmul(k, dW2, dY, dZ, p->O, p->B, p->H, p->H, p->B, p->B, NULL)) == AK_OK &&
        (r = ak_memcpy(ctx, Yt, dY, fB * p->H, AK_D2H)) == AK_OK)
        r = ak_memcpy(ctx, Zt, dZ, fB * p->O, AK_D2H);
    ak_free(ctx, dX); ak_free(ctx, dW1); ak_free(ctx, dW2); ak_free(ctx, dY); ak_free(ctx, dZ);
    ak_kernel_release(k);
    return r;
}

/* max |a - b| / max(max |b|, 1) over n values; NaN counts as a mismatch. */
static double tp_err(const float* a, const float* b, size_t n) {
    double m = 1, e = 0;
    size_t i;
    for (i = 0; i < n; i++) if (fabs(b[i]) > m) m = fabs(b[i]);
    for (i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (d != d) return INFINITY;
        if (d > e) e = d;
    }
    return e / m;
}

int main(int argc, char** argv) {
    tp_problem p;
    ak_context* ctx[64];
    ak_comm* comm[64];
    tp_rank R[64];
    pthread_t th[64];
    ak_config cfg = ak_config_default();
    float *Xt, *W1t, *W2t, *Y1, *Z1, *Yref, *Zref;
    int i, j, k, quiet = 0, N = 0, ndev = 0, bad = 0;
    unsigned long long seed = 0x5eed1234ull;
    double tol = 1e-4;
    memset(&p, 0, sizeof p);
    p.B = 33; p.D = 70; p.H = 101; p.O = 45;
    for (i = 1; i < argc; i++) {
        const char* a = argv[i];
        int v = i + 1 < argc ? atoi(argv[i + 1]) : 0;
        if (!strcmp(a, "--quiet")) { quiet = 1; continue; }
        if (!strcmp(a, "--ranks")) N = v;
        else if (!strcmp(a, "--batch")) p.B = v;
        else if (!strcmp(a, "--in")) p.D = v;
        else if (!strcmp(a, "--hidden")) p.H = v;
        else if (!strcmp(a, "--out")) p.O = v;
        else { fprintf(stderr, "tp_linear: unknown option %s\nusage: tp_linear [--ranks N] [--batch B] [--in D] [--hidden H] [--out O] [--quiet]\n", a); return 2; }
        i++;
    }
    if (p.B < 1 || p.D < 1 || p.H < 1 || p.O < 1) { fprintf(stderr, "tp_linear: sizes must be >= 1\n"); return 2; }
    if (ak_config_apply_env(&cfg) != AK_OK) { fprintf(stderr, "tp_linear: %s\n", ak_last_error()); return 1; }
    cfg.log_level = AK_LOG_ERROR;
    if (ak_device_count(cfg.backend, &ndev) != AK_OK) { fprintf(stderr, "tp_linear: %s\n", ak_last_error()); return 1; }
    /* context 0 tells which backend is in use */
    cfg.device = 0;
    if (ak_context_create(&cfg, &ctx[0]) != AK_OK) { fprintf(stderr, "tp_linear: %s\n", ak_last_error()); return 1; }
    cfg.backend = ak_context_device(ctx[0])->backend;
    if (cfg.backend != AK_BACKEND_CPU) ak_device_count(cfg.backend, &ndev); else ndev = 0;
    if (N == 0) N = cfg.backend == AK_BACKEND_CPU ? 2 : ndev;
    if (N < 1 || N > 64 || (cfg.backend != AK_BACKEND_CPU && N > ndev)) {
        fprintf(stderr, "tp_linear: %d ranks asked, the %s backend has %d device(s)\n", N, ak_backend_name(cfg.backend),
                cfg.backend == AK_BACKEND_CPU ? 64 : ndev);
        ak_context_destroy(ctx[0]);
        return 2;
    }
    for (i = 1; i < N; i++) {
        cfg.device = cfg.backend == AK_BACKEND_CPU ? 0 : i;
        if (ak_context_create(&cfg, &ctx[i]) != AK_OK) { fprintf(stderr, "tp_linear: device %d: %s\n", cfg.device, ak_last_error()); return 1; }
    }
    p.N = N;
    p.Hn = (p.H + N - 1) / N;
    Xt = (float*)malloc(sizeof(float) * (size_t)p.D * p.B);
    W1t = (float*)malloc(sizeof(float) * (size_t)p.H * p.D);
    W2t = (float*)malloc(sizeof(float) * (size_t)p.O * p.H);
    Y1 = (float*)malloc(sizeof(float) * (size_t)p.H * p.B);
    Z1 = (float*)malloc(sizeof(float) * (size_t)p.O * p.B);
    Yref = (float*)malloc(sizeof(float) * (size_t)p.H * p.B);
    Zref = (float*)malloc(sizeof(float) * (size_t)p.O * p.B);
    if (!Xt || !W1t || !W2t || !Y1 || !Z1 || !Yref || !Zref) { fprintf(stderr, "tp_linear: host memory\n"); return 1; }
    {
        /* random inputs in [-1, 1) (never zeros), a fresh seed each run unless TP_SEED is set */
        const char* s = getenv("TP_SEED");
        unsigned long long z;
        seed = s ? strtoull(s, NULL, 0) : (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
        z = seed;
#define TP_RAND() (z = z * 6364136223846793005ull + 1442695040888963407ull, (float)((double)(z >> 11) / 4503599627370496.0 - 1.0))
        for (i = 0; i < p.D * p.B; i++) Xt[i] = TP_RAND();
        for (i = 0; i < p.H * p.D; i++) W1t[i] = TP_RAND() / (float)sqrt((double)p.D);
        for (i = 0; i < p.O * p.H; i++) W2t[i] = TP_RAND() / (float)sqrt((double)p.H);
#undef TP_RAND
    }
    p.Xt = Xt; p.W1t = W1t; p.W2t = W2t;
    /* double-precision host reference */
    for (i = 0; i < p.H; i++)
        for (j = 0; j < p.B; j++) {
            double acc = 0;
            for (k = 0; k < p.D; k++) acc += (double)W1t[(size_t)i * p.D + k] * Xt[(size_t)k * p.B + j];
            Yref[(size_t)i * p.B + j] = (float)(acc > 0 ? acc : 0);
        }
    for (i = 0; i < p.O; i++)
        for (j = 0; j < p.B; j++) {
            double acc = 0;
            for (k = 0; k < p.H; k++) acc += (double)W2t[(size_t)i * p.H + k] * Yref[(size_t)k * p.B + j];
            Zref[(size_t)i * p.B + j] = (float)acc;
        }
    if (tp_single(ctx[0], &p, Y1, Z1) != AK_OK) { fprintf(stderr, "tp_linear: one device: %s\n", ak_last_error()); return 1; }
    if (ak_comm_init_all(ctx, N, comm) != AK_OK) { fprintf(stderr, "tp_linear: ak_comm_init_all: %s\n", ak_last_error()); return 1; }
    if (!quiet) {
        printf("tp_linear: B=%d D=%d H=%d O=%d over %d rank(s) on the %s backend (seed %llu); collectives: %s\n", p.B, p.D, p.H, p.O, N,
               ak_backend_name(cfg.backend), seed, ak_comm_library(comm[0]));
        for (i = 0; i < N; i++) printf("  rank %d: %s (device %d)\n", i, ak_context_device(ctx[i])->name, ak_context_device(ctx[i])->device);
    }
    for (i = 0; i < N; i++) {
        memset(&R[i], 0, sizeof R[i]);
        R[i].p = &p; R[i].ctx = ctx[i]; R[i].comm = comm[i]; R[i].rank = i;
        R[i].Yt = (float*)malloc(sizeof(float) * (size_t)p.Hn * N * p.B);
        R[i].Zt = (float*)malloc(sizeof(float) * (size_t)p.O * p.B);
        if (!R[i].Yt || !R[i].Zt) { fprintf(stderr, "tp_linear: host memory\n"); return 1; }
        for (j = 0; j < p.Hn * N * p.B; j++) R[i].Yt[j] = NAN;   /* poison: every element must be written */
        for (j = 0; j < p.O * p.B; j++) R[i].Zt[j] = NAN;
        pthread_create(&th[i], NULL, tp_rank_main, &R[i]);
    }
    for (i = 0; i < N; i++) pthread_join(th[i], NULL);
    {
        double e1 = tp_err(Y1, Yref, (size_t)p.H * p.B), e2 = tp_err(Z1, Zref, (size_t)p.O * p.B);
        if (!quiet) printf("  one device vs host double reference: layer 1 %.2e, layer 2 %.2e\n", e1, e2);
        if (!(e1 <= tol && e2 <= tol)) { printf("  MISMATCH: one device vs host reference\n"); bad++; }
    }
    for (i = 0; i < N; i++) {
        double ey, ez;
        int pad_ok = 1;
        if (R[i].r != AK_OK) { printf("  rank %d FAILED: %s\n", i, R[i].err); bad++; continue; }
        ey = tp_err(R[i].Yt, Y1, (size_t)p.H * p.B);
        ez = tp_err(R[i].Zt, Z1, (size_t)p.O * p.B);
        for (j = p.H * p.B; j < p.Hn * N * p.B; j++) if (R[i].Yt[j] != 0.f) pad_ok = 0;  /* padded rows: relu(0) */
        if (!quiet) printf("  rank %d vs one device: gathered activations %.2e, all-reduced output %.2e%s\n", i, ey, ez, pad_ok ? "" : ", padding rows not zero");
        if (!(ey <= tol && ez <= tol) || !pad_ok) { printf("  MISMATCH on rank %d (tolerance %.0e)\n", i, tol); bad++; }
    }
    for (i = 0; i < N; i++) { ak_comm_destroy(comm[i]); free(R[i].Yt); free(R[i].Zt); }
    for (i = 0; i < N; i++) ak_context_destroy(ctx[i]);
    free(Xt); free(W1t); free(W2t); free(Y1); free(Z1); free(Yref); free(Zref);
    printf("tp_linear: %d rank(s): %s\n", N, bad ? "MISMATCH" : "matches one device");
    return bad ? 1 : 0;
}
