/* bench_common.h - what the benchmarks share (include after amdkit.h).
 * Statistics of a set of trials: ak_bench_stats_of (amdkit.h). */
#ifndef AK_BENCH_COMMON_H
#define AK_BENCH_COMMON_H

/* Device-to-device copy bandwidth in GB/s (bytes read + written): the median
 * of 20 copies of `bytes`, each between two events on the default stream,
 * after 3 untimed ones. The roofline the memory-bound kernels are compared
 * with. 0 when something fails (or on the cpu backend, where it is not
 * asked for). */
static double bench_copy_gbps(ak_context* ctx, size_t bytes) {
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

#endif
