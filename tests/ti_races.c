/* Internal tests of the context identity used across threads (amdkit.h
 * >>impl:backend _ak_bind, >>impl:compile _ak_prelude_id): included by
 * tests/test_main.c after amdkit.h's implementation (suite `races`) and by
 * tests/tsan_races.c, which runs the same checks under ThreadSanitizer
 * (`make check` step races-tsan).
 *
 * _ak_bind used to remember a thread's binding by context address: a
 * context created at a destroyed context's address skipped cuCtxSetCurrent /
 * hipSetDevice and ran on the old device context. _ak_prelude_hash was
 * written lazily by whichever thread compiled first (a data race). The
 * cuda backend's binding is exercised with a fake cuCtxSetCurrent, so no GPU
 * is needed. Each check returns a message on failure, NULL when it holds. */
#include <pthread.h>

static void* akr_current;      /* what the fake cuCtxSetCurrent was given last */
static int akr_sets;
static _akT_CUresult akr_set_current(_akT_CUcontext c) { akr_current = c; akr_sets++; return 0; }

/* A cuda "context" made by hand in caller-owned memory, as ak_context_create
 * would make it: a fresh serial each time. */
static void akr_fake_ctx(ak_context* ctx, _ak_api* api, void* native) {
    memset(ctx, 0, sizeof *ctx);
    ctx->backend = AK_BACKEND_CUDA;
    ctx->bk = &_ak_backend_cuda;
    ctx->api = api;
    ctx->native_ctx = native;
    ctx->serial = _ak_ctx_new_serial();
}

static void* akr_bind_thread(void* arg) {
    ak_context* ctx = (ak_context*)arg;
    return _ak_bind(ctx) == AK_OK && akr_current == ctx->native_ctx ? NULL : (void*)"bind in a new thread";
}

static const char* akr_bind_address_reuse(void) {
    static _ak_api api;
    static ak_context mem;     /* one address, two contexts in turn */
    pthread_t t;
    void* res = NULL;
    memset(&api, 0, sizeof api);
    api.cuCtxSetCurrent = akr_set_current;
    akr_sets = 0;
    akr_fake_ctx(&mem, &api, (void*)0x1000);
    if (_ak_bind(&mem) != AK_OK || akr_current != (void*)0x1000 || akr_sets != 1) return "first bind did not set the context";
    if (_ak_bind(&mem) != AK_OK || akr_sets != 1) return "a second bind of the same context set it again";
    /* "destroy" it and create another context at the same address */
    akr_fake_ctx(&mem, &api, (void*)0x2000);
    if (_ak_bind(&mem) != AK_OK) return "bind of the new context failed";
    if (akr_current != (void*)0x2000 || akr_sets != 2)
        return "a context created at a destroyed context's address was not bound (the thread kept the old device context)";
    /* another thread binds on its own */
    if (pthread_create(&t, NULL, akr_bind_thread, &mem) != 0) return "pthread_create";
    pthread_join(t, &res);
    if (res) return (const char*)res;
    if (akr_sets != 3) return "a new thread did not bind";
    return NULL;
}

/* Every thread asks for the prelude id at once: one value, no race (TSan). */
#define AKR_THREADS 8
static uint64_t akr_ids[AKR_THREADS];
static pthread_barrier_t akr_barrier;
static void* akr_prelude_thread(void* arg) {
    int i = (int)(intptr_t)arg;
    pthread_barrier_wait(&akr_barrier);
    akr_ids[i] = _ak_prelude_id();
    return NULL;
}
static const char* akr_prelude_id_threads(void) {
    pthread_t t[AKR_THREADS];
    int i;
    pthread_barrier_init(&akr_barrier, NULL, AKR_THREADS);
    for (i = 0; i < AKR_THREADS; i++) pthread_create(&t[i], NULL, akr_prelude_thread, (void*)(intptr_t)i);
    for (i = 0; i < AKR_THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&akr_barrier);
    for (i = 0; i < AKR_THREADS; i++) if (akr_ids[i] != akr_ids[0] || akr_ids[i] == 0) return "threads saw different prelude ids";
    return NULL;
}

/* Contexts created on several threads at once get distinct serials and device tags. */
static ak_context* akr_ctxs[AKR_THREADS];
static void* akr_create_thread(void* arg) {
    int i = (int)(intptr_t)arg;
    ak_config cfg = ak_config_default();
    cfg.backend = AK_BACKEND_CPU;
    cfg.disk_cache = 0;
    cfg.log_level = AK_LOG_NONE;
    pthread_barrier_wait(&akr_barrier);
    if (ak_context_create(&cfg, &akr_ctxs[i]) != AK_OK) akr_ctxs[i] = NULL;
    return NULL;
}
static const char* akr_serials_distinct(void) {
    pthread_t t[AKR_THREADS];
    const char* bad = NULL;
    int i, j;
    pthread_barrier_init(&akr_barrier, NULL, AKR_THREADS);
    for (i = 0; i < AKR_THREADS; i++) pthread_create(&t[i], NULL, akr_create_thread, (void*)(intptr_t)i);
    for (i = 0; i < AKR_THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&akr_barrier);
    for (i = 0; i < AKR_THREADS && !bad; i++) {
        if (!akr_ctxs[i]) { bad = "context creation failed"; break; }
        if (!akr_ctxs[i]->serial || !akr_ctxs[i]->dev_tag[0]) bad = "no serial or device tag";
        for (j = 0; j < i && !bad; j++)
            if (akr_ctxs[j] && (akr_ctxs[j]->serial == akr_ctxs[i]->serial || !strcmp(akr_ctxs[j]->dev_tag, akr_ctxs[i]->dev_tag)))
                bad = "two contexts share a serial or device tag";
    }
    for (i = 0; i < AKR_THREADS; i++) { ak_context_destroy(akr_ctxs[i]); akr_ctxs[i] = NULL; }
    return bad;
}

#define AKR_CHECKS(X) X(akr_bind_address_reuse) X(akr_prelude_id_threads) X(akr_serials_distinct)

#ifdef AKT_RUN   /* inside the test runner */
#define AKR_TEST(fn) static void fn##_test(void) { const char* why_ = fn(); AKT_CHECKF(why_ == NULL, "%s", why_); }
AKR_CHECKS(AKR_TEST)
void akt_suite_races(void) {
#define AKR_SUITE_RUN(fn) akt_run(#fn, fn##_test);
    AKR_CHECKS(AKR_SUITE_RUN)
}
#endif
