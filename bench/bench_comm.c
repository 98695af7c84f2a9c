/* bench_comm.c - collectives and peer copies over N devices (JSON out).
 *
 *   bench_comm [--ranks N] [--max BYTES] [--quick] out.json
 *
 * All-reduce (sum) and all-gather of f32 from 8 KiB to --max (default 4 GiB),
 * one thread per rank, each on its own amdkit stream, timed with events as
 * nccl-tests does: per trial the slowest rank's time over `iters` back-to-back
 * calls; five trials. size = bytes of the all-reduce buffer / of the gathered
 * output; algbw = size / time; busbw = algbw * 2(n-1)/n (all-reduce),
 * algbw * (n-1)/n (all-gather). Also: host time to enqueue one collective
 * through amdkit and through the library's own entry point on the same
 * communicator (the difference is amdkit's overhead), and peer-copy bandwidth
 * (direct, staged through host memory, and a same-device copy for scale).
 * The first all-reduce is checked (every rank's sum of 1..n).
 */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 16
#define TRIALS 5

static int g_n;
static ak_context* g_ctx[MAXR];
static ak_comm* g_comm[MAXR];
static pthread_barrier_t g_bar;

typedef struct {
    int rank, op;          /* op 0: all_reduce, 1: all_gather */
    size_t bytes;
    int iters;
    double ms[TRIALS];     /* per trial */
    double enq_ak_us, enq_raw_us;
    int check_ok;
    ak_result r;
    char err[512];
} bc_job;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
/* a number for JSON: null where not finite */
static const char* jnum(char* buf, double v) { if (v == v && v - v == 0) sprintf(buf, "%.3f", v); else strcpy(buf, "null"); return buf; }
static int cmp_d(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }

#define BC_TRY(e) do { if ((J->r = (e)) != AK_OK) { snprintf(J->err, sizeof J->err, "rank %d: %s: %.400s", J->rank, #e, ak_last_error()); goto out; } } while (0)

/* One size of one collective on one rank. Every rank runs the same loop. */
static void* bc_rank(void* arg) {
    bc_job* J = (bc_job*)arg;
    ak_context* ctx = g_ctx[J->rank];
    ak_comm* c = g_comm[J->rank];
    ak_stream* s = NULL;
    ak_event *e0 = NULL, *e1 = NULL;
    void *send = NULL, *recv = NULL;
    size_t count = J->op == 0 ? J->bytes / 4 : J->bytes / 4 / (size_t)g_n;
    size_t send_bytes = count * 4, recv_bytes = J->op == 0 ? count * 4 : count * 4 * (size_t)g_n;
    int t, i;
    J->r = AK_OK;
    BC_TRY(ak_stream_create(ctx, "bench", 0, &s));
    BC_TRY(ak_event_create(ctx, &e0));
    BC_TRY(ak_event_create(ctx, &e1));
    BC_TRY(ak_malloc(ctx, send_bytes, s, &send));
    BC_TRY(ak_malloc(ctx, recv_bytes, s, &recv));
    BC_TRY(ak_fill(ctx, AK_F32, send, count, (double)(J->rank + 1), s));
    if (J->op == 0 && J->check_ok == -1) {
        /* check: sum over ranks of (rank + 1) */
        float h[4];
        BC_TRY(ak_all_reduce(c, AK_REDUCE_SUM, AK_F32, send, recv, count, s));
        BC_TRY(ak_memcpy_async(ctx, h, recv, sizeof h < send_bytes ? sizeof h : send_bytes, AK_D2H, s));
        BC_TRY(ak_stream_synchronize(ctx, s));
        J->check_ok = h[0] == (float)(g_n * (g_n + 1) / 2);
    }
    for (i = 0; i < 3; i++) {   /* warm-up */
        if (J->op == 0) BC_TRY(ak_all_reduce(c, AK_REDUCE_SUM, AK_F32, send, recv, count, s));
        else BC_TRY(ak_all_gather(c, AK_F32, send, recv, count, s));
    }
    BC_TRY(ak_stream_synchronize(ctx, s));
    for (t = 0; t < TRIALS; t++) {
        float ms = 0;
        pthread_barrier_wait(&g_bar);
        BC_TRY(ak_event_record(e0, s));
        for (i = 0; i < J->iters; i++) {
            if (J->op == 0) BC_TRY(ak_all_reduce(c, AK_REDUCE_SUM, AK_F32, send, recv, count, s));
            else BC_TRY(ak_all_gather(c, AK_F32, send, recv, count, s));
        }
        BC_TRY(ak_event_record(e1, s));
        BC_TRY(ak_event_elapsed_ms(e0, e1, &ms));
        J->ms[t] = ms;
    }
    if (J->enq_ak_us == -1) {
        /* host cost of enqueueing one small all-reduce: amdkit vs the library's entry point, same communicator */
        double a[TRIALS], b[TRIALS], t0;
        int reps = 100;
        for (t = 0; t < TRIALS; t++) {
            pthread_barrier_wait(&g_bar);
            t0 = now_us();
            for (i = 0; i < reps; i++) BC_TRY(ak_all_reduce(c, AK_REDUCE_SUM, AK_F32, send, recv, 2, s));
            a[t] = (now_us() - t0) / reps;
            BC_TRY(ak_stream_synchronize(ctx, s));
            pthread_barrier_wait(&g_bar);
            if (c->nccl) {
                _ak_bind(ctx);
                t0 = now_us();
                for (i = 0; i < reps; i++) ctx->api->ncclAllReduce(send, recv, 2, _AK_NCCL_F32, _AK_NCCL_SUM, c->nccl, s->native);
                b[t] = (now_us() - t0) / reps;
            } else b[t] = NAN;
            BC_TRY(ak_stream_synchronize(ctx, s));
        }
        qsort(a, TRIALS, sizeof a[0], cmp_d);
        qsort(b, TRIALS, sizeof b[0], cmp_d);
        J->enq_ak_us = a[TRIALS / 2];
        J->enq_raw_us = b[TRIALS / 2];
    }
out:
    if (J->r != AK_OK) fprintf(stderr, "%s\n", J->err);
    ak_stream_synchronize(ctx, s);
    ak_free(ctx, send);
    ak_free(ctx, recv);
    ak_event_destroy(e0);
    ak_event_destroy(e1);
    ak_stream_destroy(s);
    return NULL;
}

static void stats(const double* v, int n, double* mean, double* sd, double* mn, double* mx) {
    int i;
    double s = 0, q = 0;
    *mn = v[0]; *mx = v[0];
    for (i = 0; i < n; i++) { s += v[i]; if (v[i] < *mn) *mn = v[i]; if (v[i] > *mx) *mx = v[i]; }
    *mean = s / n;
    for (i = 0; i < n; i++) q += (v[i] - *mean) * (v[i] - *mean);
    *sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

/* Peer copy GB/s: the median of 5 timed synchronous copies (host clock). */
static double peer_gbps(ak_context* dst_ctx, void* dst, ak_context* src_ctx, void* src, size_t bytes, int staged) {
    double t[5], t0;
    int i;
    for (i = 0; i < 6; i++) {
        ak_result r;
        t0 = now_us();
        r = staged ? _ak_copy_peer_staged(dst_ctx, dst, src_ctx, src, bytes, NULL) : ak_memcpy_peer(dst_ctx, dst, src_ctx, src, bytes);
        if (r != AK_OK) { fprintf(stderr, "peer copy: %s\n", ak_last_error()); return NAN; }
        if (i) t[i - 1] = now_us() - t0;
    }
    qsort(t, 5, sizeof t[0], cmp_d);
    return bytes / (t[2] * 1e-6) / 1e9;
}

int main(int argc, char** argv) {
    ak_config cfg = ak_config_default();
    const char* out_path = NULL;
    size_t maxb = (size_t)4 << 30, minb = 8 << 10, b;
    int i, op, N = 0, ndev = 0, quick = 0, first = 1;
    FILE* f;
    double enq_ak = NAN, enq_raw = NAN;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ranks") && i + 1 < argc) N = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max") && i + 1 < argc) maxb = (size_t)strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick")) { quick = 1; maxb = 1 << 20; }
        else out_path = argv[i];
    }
    if (!out_path) { fprintf(stderr, "usage: bench_comm [--ranks N] [--max BYTES] [--quick] out.json\n"); return 2; }
    if (ak_config_apply_env(&cfg) != AK_OK) { fprintf(stderr, "%s\n", ak_last_error()); return 1; }
    cfg.log_level = AK_LOG_ERROR;
    if (ak_context_create(&cfg, &g_ctx[0]) != AK_OK) { fprintf(stderr, "%s\n", ak_last_error()); return 1; }
    cfg.backend = ak_context_device(g_ctx[0])->backend;
    if (cfg.backend == AK_BACKEND_CPU) ndev = MAXR; else ak_device_count(cfg.backend, &ndev);
    if (N == 0) N = cfg.backend == AK_BACKEND_CPU ? 2 : ndev;
    if (N < 1 || N > MAXR || N > ndev) { fprintf(stderr, "bench_comm: %d ranks, %d devices\n", N, ndev); return 2; }
    for (i = 1; i < N; i++) {
        cfg.device = cfg.backend == AK_BACKEND_CPU ? 0 : i;
        if (ak_context_create(&cfg, &g_ctx[i]) != AK_OK) { fprintf(stderr, "%s\n", ak_last_error()); return 1; }
    }
    g_n = N;
    if (ak_comm_init_all(g_ctx, N, g_comm) != AK_OK) { fprintf(stderr, "ak_comm_init_all: %s\n", ak_last_error()); return 1; }
    pthread_barrier_init(&g_bar, NULL, (unsigned)N);
    f = fopen(out_path, "w");
    if (!f) { perror(out_path); return 1; }
    fprintf(f, "{\"hardware\":\"%s\",\"device\":\"%s\",\"ranks\":%d,\"backend\":\"%s\",\"library\":\"%s\",\"collectives\":[",
            ak_context_device(g_ctx[0])->name, ak_context_device(g_ctx[0])->name, N, ak_backend_name(cfg.backend), ak_comm_library(g_comm[0]));
    printf("%d ranks, %s, %s\n%-11s %12s %10s %10s %10s\n", N, ak_context_device(g_ctx[0])->name, ak_comm_library(g_comm[0]),
           "op", "bytes", "time us", "algbw GB/s", "busbw GB/s");
    for (op = 0; op < 2; op++) {
        for (b = minb; b <= maxb; b *= 2) {
            bc_job J[MAXR];
            pthread_t th[MAXR];
            double ms[TRIALS], mean, sd, mn, mx, alg, bus;
            int t, ok = 1;
            int iters = (int)(1e9 / (double)b);   /* about 1 GB through each rank per trial */
            if (iters > 1000) iters = 1000;
            if (iters < 10) iters = 10;
            if (quick) iters = 3;
            for (i = 0; i < N; i++) {
                memset(&J[i], 0, sizeof J[i]);
                J[i].rank = i; J[i].op = op; J[i].bytes = b; J[i].iters = iters;
                J[i].check_ok = first && op == 0 ? -1 : 1;
                J[i].enq_ak_us = first && op == 0 ? -1 : 0;
                pthread_create(&th[i], NULL, bc_rank, &J[i]);
            }
            for (i = 0; i < N; i++) { pthread_join(th[i], NULL); if (J[i].r != AK_OK || J[i].check_ok != 1) ok = 0; }
            if (!ok) { fprintf(stderr, "bench_comm: %s %zu bytes failed%s\n", op ? "all_gather" : "all_reduce", b,
                               J[0].check_ok == 0 ? " (wrong all-reduce sum)" : ""); return 1; }
            if (first && op == 0) { enq_ak = J[0].enq_ak_us; enq_raw = J[0].enq_raw_us; }
            first = 0;
            for (t = 0; t < TRIALS; t++) {
                ms[t] = 0;
                for (i = 0; i < N; i++) if (J[i].ms[t] > ms[t]) ms[t] = J[i].ms[t];
                ms[t] /= iters;
            }
            stats(ms, TRIALS, &mean, &sd, &mn, &mx);
            alg = b / (mean * 1e-3) / 1e9;
            bus = alg * (op == 0 ? 2.0 * (N - 1) / N : (double)(N - 1) / N);
            printf("%-11s %12zu %10.1f %10.2f %10.2f\n", op ? "all_gather" : "all_reduce", b, mean * 1e3, alg, bus);
            fprintf(f, "%s{\"op\":\"%s\",\"dtype\":\"f32\",\"bytes\":%zu,\"mean\":%.6f,\"std\":%.6f,\"min\":%.6f,\"max\":%.6f,"
                       "\"num_trials\":%d,\"iters_per_trial\":%d,\"unit\":\"ms\",\"algbw_GBps\":%.3f,\"busbw_GBps\":%.3f}",
                    (op || b != minb) ? "," : "", op ? "all_gather" : "all_reduce", b, mean, sd, mn, mx, TRIALS, iters, alg, bus);
            fflush(stdout);
        }
    }
    {
        char b1[32], b2[32], b3[32];
        fprintf(f, "],\"enqueue_us\":{\"amdkit\":%s,\"library\":%s,\"overhead\":%s}", jnum(b1, enq_ak), jnum(b2, enq_raw),
                jnum(b3, enq_ak - enq_raw));
    }
    printf("enqueue one all-reduce: amdkit %.2f us, %s %.2f us\n", enq_ak, cfg.backend == AK_BACKEND_HIP ? "RCCL" : "NCCL", enq_raw);
    fprintf(f, ",\"peer_copy\":[");
    if (N >= 2) {
        size_t pb, pmax = quick ? (size_t)1 << 20 : (size_t)1 << 30;
        void *a = NULL, *z = NULL, *c0 = NULL;
        int can = 0, k = 0;
        ak_device_can_access_peer(g_ctx[1], g_ctx[0], &can);
        if (can) { ak_enable_peer_access(g_ctx[1], g_ctx[0]); ak_enable_peer_access(g_ctx[0], g_ctx[1]); }
        printf("peer copy device 0 -> 1 (peer access %s):\n%12s %12s %12s %12s\n", can ? "yes" : "no", "bytes", "direct GB/s", "staged GB/s", "same-dev GB/s");
        if (ak_malloc(g_ctx[0], pmax, NULL, &a) == AK_OK && ak_malloc(g_ctx[1], pmax, NULL, &z) == AK_OK &&
            ak_malloc(g_ctx[0], pmax, NULL, &c0) == AK_OK && ak_fill(g_ctx[0], AK_F32, a, pmax / 4, 1.5, NULL) == AK_OK) {
            for (pb = (size_t)1 << 20; pb <= pmax; pb *= 4) {
                double d = peer_gbps(g_ctx[1], z, g_ctx[0], a, pb, 0);
                double st = peer_gbps(g_ctx[1], z, g_ctx[0], a, pb, 1);
                double same = peer_gbps(g_ctx[0], c0, g_ctx[0], a, pb, 0);  /* same device: D2D, read + write = 2x bytes */
                printf("%12zu %12.1f %12.1f %12.1f\n", pb, d, st, same);
                char b1[32], b2[32], b3[32];
                fprintf(f, "%s{\"bytes\":%zu,\"direct_GBps\":%s,\"staged_GBps\":%s,\"same_device_GBps\":%s,\"peer_access\":%d}",
                        k++ ? "," : "", pb, jnum(b1, d), jnum(b2, st), jnum(b3, same), can);
            }
        }
        ak_free(g_ctx[0], a); ak_free(g_ctx[1], z); ak_free(g_ctx[0], c0);
    }
    fprintf(f, "]}\n");
    fclose(f);
    for (i = 0; i < N; i++) ak_comm_destroy(g_comm[i]);
    for (i = 0; i < N; i++) ak_context_destroy(g_ctx[i]);
    return 0;
}
