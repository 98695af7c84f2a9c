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
static int akb_make_current(ak_context* ctx) { (void)ctx; akb.make_current++; return 0; }
static int akb_mem_info(ak_context* ctx, size_t* fr, size_t* to) { (void)ctx; akb.mem_info++; *fr = 12345; *to = 67890; return 0; }
static int akb_synchronize(ak_context* ctx) { (void)ctx; akb.synchronize++; return 0; }
static int akb_alloc(ak_context* ctx, size_t n, void** out) { akb.alloc++; akb.live++; return _ak_backend_cpu.alloc(ctx, n, out); }
static int akb_free(ak_context* ctx, void* p) { akb.free++; akb.live--; return _ak_backend_cpu.free(ctx, p); }
/* events: a handle that is not NULL, so the shared layer really records, queries and destroys */
static int akb_event_create(ak_context* ctx, void** ev, unsigned flags) {
    (void)ctx;
    if (flags) akb.ev_create++; else akb.event_new++;
    *ev = (void*)&akb;
    return 0;
}
static int akb_event_record(ak_context* ctx, void* ev, void* s) { (void)ctx; (void)ev; (void)s; akb.ev_record++; return 0; }
static int akb_event_query(ak_context* ctx, void* ev) { (void)ctx; (void)ev; akb.ev_done++; return 0; }
static int akb_event_destroy(ak_context* ctx, void* ev) { (void)ctx; (void)ev; akb.ev_destroy++; return 0; }

static int akb_copies, akb_memsets, akb_streams, akb_stream_syncs, akb_launches;
static int akb_copy(ak_context* ctx, void* dst, const void* src, size_t n, ak_copy_kind kind, void* st, int async) {
    akb_copies++;
    return _ak_backend_cpu.copy(ctx, dst, src, n, kind, st, async);
}
static int akb_memset(ak_context* ctx, void* dst, int v, size_t n, void* st) { akb_memsets++; return _ak_backend_cpu.memset(ctx, dst, v, n, st); }
/* the cpu table's stream objects (its copies, memsets and launches read them), counted */
static int akb_stream_create(ak_context* ctx, void** native, int prio) { akb_streams++; return _ak_backend_cpu.stream_create(ctx, native, prio); }
static int akb_stream_destroy(ak_context* ctx, void* native) { if (native) akb_streams--; return _ak_backend_cpu.stream_destroy(ctx, native); }
static int akb_stream_synchronize(ak_context* ctx, void* native) { (void)ctx; (void)native; akb_stream_syncs++; return 0; }
static ak_result akb_launch(ak_kernel* k, ak_dim3 g, ak_dim3 b, size_t sh, ak_stream* st, void** args) {
    akb_launches++;
    return _ak_backend_cpu.launch(k, g, b, sh, st, args);
}

/* several devices: peers, stream waits, communicators (delegating to the cpu table's) */
static int akb_peer_queries, akb_peer_enables, akb_peer_copies, akb_waits, akb_comm_ids, akb_comm_ranks, akb_comm_alls;
static int akb_peer_enable_error;   /* the runtime code peer_enable returns (0: success) */
static int akb_peer_can_access(ak_context* ctx, ak_context* peer, int* can) {
    akb_peer_queries++;
    return _ak_backend_cpu.peer_can_access(ctx, peer, can);
}
static int akb_peer_enable(ak_context* ctx, ak_context* peer) { (void)ctx; (void)peer; akb_peer_enables++; return akb_peer_enable_error; }
static int akb_peer_copy(ak_context* dc, void* dst, ak_context* sc, const void* src, size_t n, void* st) {
    akb_peer_copies++;
    return _ak_backend_cpu.peer_copy(dc, dst, sc, src, n, st);
}
static int akb_stream_wait_event(ak_context* ctx, void* st, void* ev) { (void)ctx; (void)st; (void)ev; akb_waits++; return 0; }
static ak_result akb_comm_unique_id(ak_context* ctx, ak_comm_id* id) { akb_comm_ids++; return _ak_backend_cpu.comm_unique_id(ctx, id); }
static ak_result akb_comm_init_rank(ak_context* ctx, int n, const ak_comm_id* id, int rank, ak_comm** out) {
    akb_comm_ranks++;
    return _ak_backend_cpu.comm_init_rank(ctx, n, id, rank, out);
}
static ak_result akb_comm_init_all(ak_context* const* ctxs, int n, ak_comm** comms) {
    akb_comm_alls++;
    return _ak_backend_cpu.comm_init_all(ctxs, n, comms);
}

/* The cpu table with every operation this test watches replaced (sokol's dummy backend, counting). */
static _ak_backend_ops akb_backend;
static void akb_make_backend(void) {
    akb_backend = _ak_backend_cpu;
    akb_backend.probe = akb_probe;
    akb_backend.open = akb_open;
    akb_backend.close = akb_close;
    akb_backend.make_current = akb_make_current;
    akb_backend.mem_info = akb_mem_info;
    akb_backend.synchronize = akb_synchronize;
    akb_backend.alloc = akb_alloc;
    akb_backend.free = akb_free;
    akb_backend.event_create = akb_event_create;
    akb_backend.event_record = akb_event_record;
    akb_backend.event_query = akb_event_query;
    akb_backend.event_destroy = akb_event_destroy;
    akb_backend.copy = akb_copy;
    akb_backend.memset = akb_memset;
    akb_backend.stream_create = akb_stream_create;
    akb_backend.stream_destroy = akb_stream_destroy;
    akb_backend.stream_synchronize = akb_stream_synchronize;
    akb_backend.launch = akb_launch;
    akb_backend.peer_can_access = akb_peer_can_access;
    akb_backend.peer_enable = akb_peer_enable;
    akb_backend.peer_copy = akb_peer_copy;
    akb_backend.stream_wait_event = akb_stream_wait_event;
    akb_backend.comm_unique_id = akb_comm_unique_id;
    akb_backend.comm_init_rank = akb_comm_init_rank;
    akb_backend.comm_init_all = akb_comm_init_all;
}

/* A cpu context switched to the test backend (its pool re-made on it). */
static ak_context* akb_context(void) {
    ak_context* ctx = akt_cpu_context("backend");
    if (!ctx) return NULL;
    _ak_pool_destroy(ctx->pool);
    ctx->pool = NULL;
    akb_make_backend();
    ctx->bk = &akb_backend;
    memset(&akb, 0, sizeof akb);
    akb_copies = akb_memsets = akb_streams = akb_stream_syncs = akb_launches = 0;
    if (_ak_pool_create(ctx, &ctx->pool) != AK_OK) { ak_context_destroy(ctx); return NULL; }
    return ctx;
}

static void akb_cpu_fn(const ak_launch_info* info, void** args) { (void)info; (*(float**)args[0])[0] = 7.0f; }
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
    /* copies (host to host stays generic), memset, streams, a launch */
    {
        float h[4] = { 1, 2, 3, 4 }, g[4];
        ak_kernel* k = NULL;
        ak_args args;
        ak_dim3 one = { 1, 1, 1 };
        AKT_OK(ak_malloc(ctx, sizeof h, NULL, &a));
        AKT_OK(ak_memcpy(ctx, a, h, sizeof h, AK_H2D));
        AKT_OK(ak_memcpy(ctx, g, a, sizeof g, AK_D2H));
        AKT_OK(ak_memcpy(ctx, g, h, sizeof g, AK_H2H));
        AKT_EQ_INT(akb_copies, 2);
        AKT_CHECK(g[3] == 4.0f);
        AKT_OK(ak_memset(ctx, a, 0, sizeof h, NULL));
        AKT_EQ_INT(akb_memsets, 1);
        akb_stream_syncs = 0;
        AKT_OK(ak_stream_create(ctx, "watched", 0, &s));
        AKT_EQ_INT(akb_streams, 1);
        AKT_OK(ak_stream_synchronize(ctx, s));
        AKT_EQ_INT(akb_stream_syncs, 1);
        ak_stream_destroy(s);                 /* synchronizes, then destroys */
        AKT_EQ_INT(akb_streams, 0);
        AKT_EQ_INT(akb_stream_syncs, 2);
        AKT_OK(ak_kernel_get(ctx, "AK_KERNEL void f(float* x) { }", "f", NULL, &k));
        ak_kernel_set_cpu(k, akb_cpu_fn, NULL);
        memset(&args, 0, sizeof args);
        ak_args_ptr(&args, a);
        AKT_OK(ak_launch(k, one, one, 0, NULL, ak_args_params(&args)));
        AKT_EQ_INT(akb_launches, 1);
        AKT_CHECK(((float*)a)[0] == 7.0f);
        ak_kernel_release(k);
        AKT_OK(ak_free(ctx, a));
    }
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

/* Several devices through the table: two test-backend contexts posing as
 * devices 0 and 1 (a pair on one device never reaches the backend). */
static void test_backend_multi_dispatch(void) {
    ak_context* a = akb_context();
    ak_context* b = akb_context();
    ak_context* pair[2];
    ak_comm* comms[2] = { NULL, NULL };
    ak_comm* one = NULL;
    ak_comm_id id;
    ak_event* ev = NULL;
    float src[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, dst[8];
    int can = 0;
    if (!a || !b) { if (a) ak_context_destroy(a); if (b) ak_context_destroy(b); AKT_CHECK(a && b); return; }
    b->dev.device = 1;
    akb_peer_queries = akb_peer_enables = akb_peer_copies = akb_waits = akb_comm_ids = akb_comm_ranks = akb_comm_alls = 0;
    akb_peer_enable_error = 0;
    AKT_OK(ak_device_can_access_peer(a, a, &can));     /* one device: answered without the backend */
    AKT_CHECK(can == 1);
    AKT_EQ_INT(akb_peer_queries, 0);
    can = 0;
    AKT_OK(ak_device_can_access_peer(a, b, &can));
    AKT_CHECK(can == 1);
    AKT_EQ_INT(akb_peer_queries, 1);
    AKT_OK(ak_enable_peer_access(a, b));
    AKT_EQ_INT(akb_peer_queries, 2);
    AKT_EQ_INT(akb_peer_enables, 1);
    akb_peer_enable_error = 3;                         /* a runtime error is worded by the shared layer */
    AKT_EQ_INT(ak_enable_peer_access(a, b), AK_ERROR_DEVICE);
    AKT_CONTAINS(ak_last_error(), "peer access from device 0 to device 1 failed");
    akb_peer_enable_error = 0;
    AKT_OK(ak_memcpy_peer(a, dst, b, src, sizeof src));
    AKT_EQ_INT(akb_peer_copies, 1);
    AKT_CHECK(dst[0] == 1.0f && dst[7] == 8.0f);
    AKT_OK(ak_memcpy_peer(a, dst, a, src, sizeof src));   /* same device: a plain device copy */
    AKT_EQ_INT(akb_peer_copies, 1);
    AKT_OK(ak_event_create(b, &ev));
    AKT_OK(ak_event_record(ev, NULL));
    AKT_OK(ak_stream_wait_event(a, NULL, ev));
    AKT_EQ_INT(akb_waits, 1);
    ak_event_destroy(ev);
    pair[0] = a;
    pair[1] = b;
    AKT_OK(ak_comm_init_all(pair, 2, comms));
    AKT_EQ_INT(akb_comm_alls, 1);
    AKT_CONTAINS(ak_comm_library(comms[0]), "cpu");
    ak_comm_destroy(comms[0]);
    ak_comm_destroy(comms[1]);
    AKT_OK(ak_comm_get_unique_id(a, &id));
    AKT_EQ_INT(akb_comm_ids, 1);
    AKT_OK(ak_comm_init_rank(a, 1, &id, 0, &one));
    AKT_EQ_INT(akb_comm_ranks, 1);
    ak_comm_destroy(one);
    ak_context_destroy(b);
    ak_context_destroy(a);
}

/* The real tables: every operation is there; only the cpu's has no binding and no modules. */
static void test_backend_tables(void) {
    int i;
    for (i = 0; i < 3; i++) {
        const _ak_backend_ops* b = _ak_backends[i];
        int cpu = b->id == AK_BACKEND_CPU;
        AKT_EQ_INT(b->id, AK_BACKEND_HIP + i);
        AKT_CHECK(b->probe && b->open && b->close && b->probe_features && b->launch && b->error_string);
        AKT_CHECK(b->alloc && b->free && b->mem_info && b->event_create && b->event_record && b->event_query && b->event_destroy);
        AKT_CHECK(b->event_synchronize && b->event_elapsed && b->synchronize && b->copy && b->memset && b->host_alloc && b->host_free);
        AKT_CHECK(b->stream_priority_range && b->stream_create && b->stream_destroy && b->stream_synchronize);
        AKT_CHECK((b->make_current == NULL) == cpu && (b->module_load == NULL) == cpu && (b->module_function == NULL) == cpu);
        AKT_CHECK((b->module_unload == NULL) == cpu && (b->launch_kernel == NULL) == cpu && (b->host_memory != 0) == cpu);
    }
    for (i = 0; i < 3; i++) {
        const _ak_backend_ops* b = _ak_backends[i];
        int cpu = b->id == AK_BACKEND_CPU;
        AKT_CHECK(b->device_count && b->describe && b->peer_can_access && b->peer_enable && b->peer_copy && b->stream_wait_event);
        AKT_CHECK(b->comm_unique_id && b->comm_init_rank && b->comm_init_all);
        AKT_CHECK((b->ccl == NULL) == cpu && (b->ccl_load == NULL) == cpu);
    }
    AKT_CHECK(!strcmp(_ak_backend_hip.ccl, "RCCL") && !strcmp(_ak_backend_cuda.ccl, "NCCL"));
    AKT_CHECK(_ak_backend_hip.comm_init_all == _ak_backend_cuda.comm_init_all && _ak_backend_cpu.comm_init_all != _ak_backend_hip.comm_init_all);
    {   /* the cpu's describe is the device ak_device_get_info reports */
        ak_device_info d;
        int n = 0;
        memset(&d, 0, sizeof d);
        AKT_CHECK(_ak_backend_cpu.device_count(NULL, &n) == 0 && n == 1);
        _ak_backend_cpu.describe(NULL, 0, &d);
        AKT_EQ_INT(d.backend, AK_BACKEND_CPU);
        AKT_CHECK(!strcmp(d.arch, "cpu") && d.device_count == 1);
    }
    AKT_CHECK(_ak_backend_cuda.shmem_optin != NULL && _ak_backend_hip.shmem_optin == NULL);
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
    AKT_RUN(test_backend_multi_dispatch);
}
