/* Suite gpu_prof (runs with --gpu, needs a GPU): profiling regions timed
 * with device events on the real device: GPU-timed statistics, nesting on
 * one stream, regions on several streams from several threads, event reuse
 * across many regions, and the Chrome trace with its GPU stream tracks.
 * Durations are only checked through relations, never absolute times. */
#include "ak_test.h"
#include <pthread.h>
#include <stdlib.h>

static ak_context* gp_ctx(void) {
    ak_config cfg = ak_config_default();
    static char dir[700];
    if (ak_config_apply_env(&cfg) != AK_OK) { akt_fail(__FILE__, __LINE__, "env: %s", ak_last_error()); return NULL; }
    cfg.profiling = 1;
    snprintf(dir, sizeof dir, "%s/gpu_prof", akt_tmpdir());
    cfg.cache_dir = dir;
    if (cfg.log_level > AK_LOG_WARN) cfg.log_level = AK_LOG_WARN;
    return akt_gpu_context(&cfg);
}
static const ak_prof_stat* gp_find(const ak_prof_stat* s, int n, const char* name) {
    int i;
    for (i = 0; i < n; i++) if (!strcmp(s[i].name, name)) return &s[i];
    return NULL;
}

static void test_gpu_regions(void) {
    ak_context* ctx = gp_ctx();
    ak_stream* s = NULL;
    void* buf = NULL;
    const size_t bytes = (size_t)256 << 20;
    ak_prof_stat st[4];
    const ak_prof_stat *outer, *inner;
    int i, n = 0, gpu = 1;
    if (!ctx) return;
#ifdef AKT_GPU_ON_CPU
    gpu = ak_context_device(ctx)->backend != AK_BACKEND_CPU;
#endif
    AKT_OK(ak_stream_create(ctx, "work", 0, &s));
    AKT_OK(ak_malloc(ctx, bytes, s, &buf));
    if (!buf) { ak_stream_destroy(s); ak_context_destroy(ctx); return; }
    for (i = 0; i < 10; i++) {
        AKT_OK(ak_prof_begin(ctx, "outer", s));
        AKT_OK(ak_memset(ctx, buf, i, bytes, s));
        AKT_OK(ak_prof_begin(ctx, "inner", s));
        AKT_OK(ak_memset(ctx, buf, i + 1, bytes, s));
        AKT_OK(ak_prof_end(ctx));
        AKT_OK(ak_prof_end(ctx));
    }
    AKT_OK(ak_prof_stats(ctx, st, 4, &n));
    AKT_EQ_INT(n, 2);
    outer = gp_find(st, n, "outer");
    inner = gp_find(st, n, "inner");
    AKT_CHECK(outer && inner);
    if (outer && inner) {
        AKT_EQ_INT(outer->count, 10);
        AKT_EQ_INT(inner->count, 10);
        AKT_EQ_INT(outer->gpu_timed, gpu);
        AKT_EQ_INT(inner->gpu_timed, gpu);
        AKT_CHECK(inner->min_ms > 0.0);   /* a 256 MiB memset takes device time */
        AKT_CHECK(outer->min_ms <= outer->mean_ms && outer->mean_ms <= outer->max_ms);
        /* on one stream the outer region holds the inner one plus another memset */
        AKT_CHECKF(outer->total_ms > inner->total_ms, "outer %g ms, inner %g ms", outer->total_ms, inner->total_ms);
    }
    AKT_OK(ak_free(ctx, buf));
    ak_stream_destroy(s);
    ak_context_destroy(ctx);
}

typedef struct { ak_context* ctx; void* buf; size_t bytes; int id, errors; } gp_arg;
static void* gp_thread(void* p) {
    gp_arg* a = (gp_arg*)p;
    ak_stream* s = NULL;
    char name[32];
    int i;
    snprintf(name, sizeof name, "worker%d", a->id);
    if (ak_stream_create(a->ctx, name, 0, &s) != AK_OK) { a->errors++; return NULL; }
    for (i = 0; i < 100; i++) {
        if (ak_prof_begin(a->ctx, "worker_memset", s) != AK_OK) a->errors++;
        if (ak_memset(a->ctx, a->buf, i, a->bytes, s) != AK_OK) a->errors++;
        if (ak_prof_end(a->ctx) != AK_OK) a->errors++;
    }
    if (ak_stream_synchronize(a->ctx, s) != AK_OK) a->errors++;
    ak_stream_destroy(s);
    return NULL;
}

static void test_gpu_threads_and_trace(void) {
    ak_context* ctx = gp_ctx();
    gp_arg args[4];
    pthread_t th[4];
    void* bufs[4] = { NULL, NULL, NULL, NULL };
    ak_prof_stat st[4];
    char path[700];
    FILE* f;
    char* text = NULL;
    long len = 0;
    int i, n = 0;
    if (!ctx) return;
    for (i = 0; i < 4; i++) {
        AKT_OK(ak_malloc(ctx, (size_t)16 << 20, NULL, &bufs[i]));
        args[i].ctx = ctx; args[i].buf = bufs[i]; args[i].bytes = (size_t)16 << 20; args[i].id = i; args[i].errors = 0;
    }
    AKT_OK(ak_device_synchronize(ctx));
    for (i = 0; i < 4; i++) AKT_CHECK(pthread_create(&th[i], NULL, gp_thread, &args[i]) == 0);
    for (i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (i = 0; i < 4; i++) AKT_EQ_INT(args[i].errors, 0);
    /* many empty regions: events come from the free list, pending timings stay bounded */
    for (i = 0; i < 20000; i++) { AKT_OK(ak_prof_begin(ctx, "empty", NULL)); AKT_OK(ak_prof_end(ctx)); }
    AKT_OK(ak_prof_stats(ctx, st, 4, &n));
    AKT_EQ_INT(n, 2);
    AKT_EQ_STR(st[0].name, "worker_memset");
    AKT_EQ_INT(st[0].count, 400);
    AKT_EQ_STR(st[1].name, "empty");
    AKT_EQ_INT(st[1].count, 20000);
    snprintf(path, sizeof path, "%s/gpu_trace.json", akt_tmpdir());
    AKT_OK(ak_prof_export_chrome(ctx, path));
    f = fopen(path, "rb");
    AKT_CHECK(f != NULL);
    if (f) {
        fseek(f, 0, SEEK_END);
        len = ftell(f);
        fseek(f, 0, SEEK_SET);
        text = (char*)malloc((size_t)len + 1);
        if (text && fread(text, 1, (size_t)len, f) == (size_t)len) text[len] = 0;
        fclose(f);
    }
    if (text) {
        if (ak_context_device(ctx)->backend != AK_BACKEND_CPU) {
            AKT_CONTAINS(text, "\"GPU stream worker0\"");
            AKT_CONTAINS(text, "\"GPU stream worker3\"");
            AKT_CONTAINS(text, "\"timer\":\"gpu\"");
        }
        AKT_CONTAINS(text, "\"displayTimeUnit\":\"ms\"");
        free(text);
    }
    for (i = 0; i < 4; i++) AKT_OK(ak_free(ctx, bufs[i]));
    ak_context_destroy(ctx);
}

void akt_suite_gpu_prof(void) {
    AKT_RUN(test_gpu_regions);
    AKT_RUN(test_gpu_threads_and_trace);
}
