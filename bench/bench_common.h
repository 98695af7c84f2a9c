/* bench_common.h - what the benchmarks share (include after amdkit.h).
 * Statistics of a set of trials: ak_bench_stats_of (amdkit.h). static inline: a benchmark
 * that uses only some of these compiles without unused-function warnings. */
#ifndef AK_BENCH_COMMON_H
#define AK_BENCH_COMMON_H

/* Device-to-device copy bandwidth in GB/s (bytes read + written): the median
 * of 20 copies of `bytes`, each between two events on the default stream,
 * after 3 untimed ones. The roofline the memory-bound kernels are compared
 * with. 0 when something fails (or on the cpu backend, where it is not
 * asked for). */
static inline double bench_copy_gbps(ak_context* ctx, size_t bytes) {
    void *a = NULL, *b = NULL;
    ak_event *e0 = NULL, *e1 = NULL;
    double t[20], gbps = 0;
    ak_bench_stats s;
    int k, ok;
    ok = ak_malloc(ctx, bytes, NULL, &a) == AK_OK && ak_malloc(ctx, bytes, NULL, &b) == AK_OK &&
         ak_event_create(ctx, &e0) == AK_OK && ak_event_create(ctx, &e1) == AK_OK && ak_memset(ctx, a, 1, bytes, NULL) == AK_OK;
    for (k = 0; ok && k < 23; k++) {
        float ms = 0;
        ok = ak_event_record(e0, NULL) == AK_OK && ak_memcpy_async(ctx, b, a, bytes, AK_D2D, NULL) == AK_OK &&
             ak_event_record(e1, NULL) == AK_OK && ak_event_synchronize(e1) == AK_OK && ak_event_elapsed_ms(e0, e1, &ms) == AK_OK;
        if (k >= 3) t[k - 3] = ms;
    }
    if (ok && ak_bench_stats_of(t, 20, &s) == AK_OK && s.median > 0) gbps = 2.0 * (double)bytes / (s.median * 1e-3) / 1e9;
    if (e0) ak_event_destroy(e0);
    if (e1) ak_event_destroy(e1);
    if (a) ak_free(ctx, a);
    if (b) ak_free(ctx, b);
    return gbps;
}

/* The GPU-idle gap before a timed call, made the same on both sides of a
 * comparison: PyTorch's timer (bench/peer_torch.py Timer) follows its L2
 * flush with a spin kernel (torch.cuda._sleep, >= 50 us) before the start
 * event, so the flush's dirty lines drain and the host dispatch hides behind
 * it. bench_spin does the same for amdkit's side: a one-thread kernel that
 * waits `ticks` of clock64(), calibrated with events at init. On the cpu
 * backend (no device code) init leaves it off and bench_spin_run does nothing. */
#define BENCH_SPIN_US 50.0   /* the spin after each L2 flush: PyTorch's timer spins >= 50 us */
typedef struct bench_spin { ak_context* ctx; ak_kernel* k; double ticks_per_us; } bench_spin;
static const char bench_spin_src[] =
    "extern \"C\" __global__ void bench_spin(long long ticks) {\n"
    "    long long t0 = clock64();\n"
    "    while (clock64() - t0 < ticks) { }\n"
    "}\n";
static inline ak_result bench_spin_run(bench_spin* s, double us) {
    ak_dim3 one = {1, 1, 1};
    long long ticks;
    void* args[1];
    if (!s->k || s->ticks_per_us <= 0 || us <= 0) return AK_OK;
    ticks = (long long)(us * s->ticks_per_us);
    args[0] = &ticks;
    return ak_launch(s->k, one, one, 0, NULL, args);
}
/* Compile and calibrate (3 spins of 2^20 ticks between events; the fastest
 * gives ticks per us). Returns AK_OK with the spin off when the backend has
 * no device code; another error leaves it off too (the caller says so). */
static inline ak_result bench_spin_init(ak_context* ctx, bench_spin* s) {
    ak_event *e0 = NULL, *e1 = NULL;
    ak_result r;
    double best = 0;
    int k;
    s->ctx = ctx;
    s->k = NULL;
    s->ticks_per_us = 0;
    if (ak_context_device(ctx)->backend == AK_BACKEND_CPU) return AK_OK;
    if ((r = ak_kernel_get(ctx, bench_spin_src, "bench_spin", NULL, &s->k)) != AK_OK) return r;
    if ((r = ak_event_create(ctx, &e0)) == AK_OK) r = ak_event_create(ctx, &e1);
    s->ticks_per_us = 1.0;   /* bench_spin_run below: us == ticks while calibrating */
    for (k = 0; r == AK_OK && k < 4; k++) {
        float ms = 0;
        if ((r = ak_event_record(e0, NULL)) != AK_OK || (r = bench_spin_run(s, (double)(1 << 20))) != AK_OK ||
            (r = ak_event_record(e1, NULL)) != AK_OK || (r = ak_event_synchronize(e1)) != AK_OK ||
            (r = ak_event_elapsed_ms(e0, e1, &ms)) != AK_OK)
            break;
        if (k > 0 && ms > 0 && (best == 0 || ms < best)) best = ms;   /* k == 0: warm-up */
    }
    if (e0) ak_event_destroy(e0);
    if (e1) ak_event_destroy(e1);
    s->ticks_per_us = (r == AK_OK && best > 0) ? (double)(1 << 20) / (best * 1e3) : 0;
    if (r != AK_OK) { ak_kernel_release(s->k); s->k = NULL; }
    return r;
}
/* Release the spin kernel. */
static inline void bench_spin_free(bench_spin* s) {
    if (s->k) ak_kernel_release(s->k);
    s->k = NULL;
}

#endif
