/* Internal tests of the backend table (amdkit.h >>impl:context-struct,
 * >>impl:backend): included by tests/test_main.c after the implementation.
 * Suite `backend`.
 *
 * A test backend in the manner of sokol's dummy backend: the cpu table with
 * every operation replaced by a counting fake (host memory, a fake device
 * binding, a fake memory size), installed in a cpu context. The public API
 * must reach each operation through the table: no GPU needed. */

typedef struct akb_counts {
    int probe, open, close, make_current, mem_info, event_new, synchronize;
    int alloc, free, ev_create, ev_record, ev_done, ev_destroy;
    long live;
} akb_counts;
static akb_counts akb;

static ak_result akb_probe(struct _ak_api* api, int device, ak_device_info* dev, ak_backend_report* rep) {
    akb.probe++;
    return _ak_backend_cpu.probe(api, device, dev, rep);
}
static ak_result akb_open(ak_context* ctx) { (void)ctx; akb.open++; return AK_OK; }
static void akb_close(ak_context* ctx) { (void)ctx; akb.close++; }
static ak_result akb_make_current(ak_context* ctx) { (void)ctx; akb.make_current++; return AK_OK; }
static ak_result akb_mem_info(ak_context* ctx, size_t* fr, size_t* to) { (void)ctx; akb.mem_info++; *fr = 12345; *to = 67890; return AK_OK; }
static ak_result akb_event_new(ak_context* ctx, void** ev, unsigned flags) { (void)ctx; (void)flags; akb.event_new++; *ev = NULL; return AK_OK; }
static ak_result akb_synchronize(ak_context* ctx) { (void)ctx; akb.synchronize++; return AK_OK; }
static ak_result akb_alloc(ak_context* ctx, size_t n, void** out) {
    akb.alloc++;
    akb.live++;
    return _ak_backend_cpu.dev.alloc(ctx, n, out);
}
static void akb_free(ak_context* ctx, void* p) { akb.free++; akb.live--; _ak_backend_cpu.dev.free(ctx, p); }
static ak_result akb_ev_create(ak_context* ctx, void** ev) { (void)ctx; akb.ev_create++; *ev = (void*)&akb; return AK_OK; }
static ak_result akb_ev_record(ak_context* ctx, void* ev, void* s) { (void)ctx; (void)ev; (void)s; akb.ev_record++; return AK_OK; }
static int akb_ev_done(ak_context* ctx, void* ev) { (void)ctx; (void)ev; akb.ev_done++; return 1; }
static void akb_ev_destroy(ak_context* ctx, void* ev) { (void)ctx; (void)ev; akb.ev_destroy++; }

static const _ak_backend_ops akb_backend = {
    AK_BACKEND_CPU, akb_probe, akb_open, akb_close, akb_make_current, akb_mem_info, akb_event_new, akb_synchronize,
    { akb_alloc, akb_free, akb_ev_create, akb_ev_record, akb_ev_done, akb_ev_destroy }
};

/* A cpu context switched to the test backend (its pool re-made on it). */
static ak_context* akb_context(void) {
    ak_context* ctx = akt_cpu_context("backend");
    if (!ctx) return NULL;
    _ak_pool_destroy(ctx->pool);
    ctx->pool = NULL;
    ctx->bk = &akb_backend;
    memset(&akb, 0, sizeof akb);
    if (_ak_pool_create(ctx, &ctx->pool) != AK_OK) { ak_context_destroy(ctx); return NULL; }
    return ctx;
}

static void* akb_thread(void* arg) { return (void*)(intptr_t)(_ak_bind((ak_context*)arg) == AK_OK); }

static void test_backend_dispatch(void) {
    ak_context* ctx = akb_context();
    void *a = NULL, *b = NULL;
    ak_event* ev = NULL;
    ak_stream* s = NULL;
    pthread_t t;
    void* ok = NULL;
    if (!ctx) return;
    /* memory: the pool reaches the table's alloc/free */
    AKT_OK(ak_malloc(ctx, 3u << 20, NULL, &a));
    AKT_OK(ak_malloc(ctx, 100, NULL, &b));
    AKT_EQ_INT(akb.alloc, 2);            /* one large segment, one small segment */
    AKT_OK(ak_free(ctx, a));
    AKT_OK(ak_free(ctx, b));
    AKT_OK(ak_pool_trim(ctx));
    AKT_EQ_INT(akb.free, 2);
    AKT_EQ_INT(akb.live, 0);
    /* a block freed on a named stream waits for an ordering event of the table */
    AKT_OK(ak_stream_create(ctx, "side", 0, &s));
    AKT_OK(ak_malloc(ctx, 4096, s, &a));
    AKT_OK(ak_free(ctx, a));
    AKT_OK(ak_malloc(ctx, 4096, NULL, &a));   /* another stream asks: the pool checks the event */
    AKT_CHECK(akb.ev_create >= 1 && akb.ev_record >= 1 && akb.ev_done >= 1);
    AKT_OK(ak_free(ctx, a));
    ak_stream_destroy(s);
    /* public events, device synchronize, memory refresh */
    AKT_OK(ak_event_create(ctx, &ev));
    AKT_EQ_INT(akb.event_new, 1);
    ak_event_destroy(ev);
    AKT_OK(ak_device_synchronize(ctx));
    AKT_EQ_INT(akb.synchronize, 1);
    AKT_OK(ak_context_refresh_memory(ctx));
    AKT_EQ_INT(akb.mem_info, 1);
    AKT_EQ_INT(ak_context_device(ctx)->mem_free, 12345);
    AKT_EQ_INT(ak_context_device(ctx)->mem_total, 67890);
    /* binding: once per thread (make_current is not NULL here, unlike the cpu table's) */
    AKT_OK(_ak_bind(ctx));
    AKT_OK(_ak_bind(ctx));
    AKT_EQ_INT(akb.make_current, 1);
    AKT_CHECK(pthread_create(&t, NULL, akb_thread, ctx) == 0);
    pthread_join(t, &ok);
    AKT_CHECK(ok != NULL);
    AKT_EQ_INT(akb.make_current, 2);
    /* destroy: synchronize, the pool's segments back through free, then close */
    ak_context_destroy(ctx);
    AKT_EQ_INT(akb.close, 1);
    AKT_EQ_INT(akb.synchronize, 2);
    AKT_EQ_INT(akb.live, 0);
}

/* The real tables: every operation is there; only the cpu's has no binding. */
static void test_backend_tables(void) {
    int i;
    for (i = 0; i < 3; i++) {
        const _ak_backend_ops* b = _ak_backends[i];
        AKT_EQ_INT(b->id, AK_BACKEND_HIP + i);
        AKT_CHECK(b->probe && b->open && b->close && b->mem_info && b->event_new && b->synchronize);
        AKT_CHECK(b->dev.alloc && b->dev.free && b->dev.ev_create && b->dev.ev_record && b->dev.ev_done && b->dev.ev_destroy);
        AKT_CHECK((b->make_current == NULL) == (b->id == AK_BACKEND_CPU));
    }
    {
        ak_context* ctx = akt_cpu_context("backend_tables");
        if (!ctx) return;
        AKT_CHECK(ctx->bk == &_ak_backend_cpu);
        ak_context_destroy(ctx);
    }
}

void akt_suite_backend(void) {
    AKT_RUN(test_backend_tables);
    AKT_RUN(test_backend_dispatch);
}
