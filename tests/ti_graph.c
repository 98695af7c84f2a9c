/* Suites graph (cpu backend and the fake CUDA driver) and gpu_graph (--gpu):
 * ak_graph_begin / end / launch / update / destroy. Included by test_main.c
 * after the implementation (the fake driver reaches into the context).
 *
 * cpu: a capture records and runs nothing; a replay gives what the direct
 * calls give, also after the inputs' contents change; an update brings new
 * arguments in, a different sequence is refused; every misuse is an error
 * that leaves the capture intact. Fake driver: the driver calls, in order.
 * GPU: a decode-like sequence of library ops and a user kernel, replayed,
 * equals the direct calls; an update with new buffers. */

/* y[i] = a * x[i] + y[i] over n, a C stand-in for a GPU kernel */
static const char akg_src[] =
    "extern \"C\" __global__ void akg_axpy(const float* x, float* y, float a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";
static void akg_axpy_cpu(const ak_launch_info* info, void** args) {
    const float* x = *(const float* const*)args[0];
    float* y = *(float**)args[1];
    float a = *(const float*)args[2];
    int n = *(const int*)args[3], i;
    (void)info;
    for (i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
static const size_t akg_axpy_sizes[4] = { sizeof(void*), sizeof(void*), sizeof(float), sizeof(int) };

/* The sequence: y = 2x + y; z := y (copy); w := 0 (memset); w = a*z + w. With
 * `extra`, one more memset (a different sequence). */
static ak_result akg_seq(ak_context* ctx, ak_kernel* k, ak_stream* s, float* x, float* y, float* z, float* w, int n, float a, int extra) {
    ak_args p, q;
    ak_dim3 g = { (unsigned)(n + 63) / 64, 1, 1 }, b = { 64, 1, 1 };
    ak_result r;
    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    ak_args_ptr(&p, x); ak_args_ptr(&p, y); ak_args_f32(&p, 2.0f); ak_args_i32(&p, n);
    ak_args_ptr(&q, z); ak_args_ptr(&q, w); ak_args_f32(&q, a); ak_args_i32(&q, n);
    if ((r = ak_launch(k, g, b, 0, s, ak_args_params(&p))) != AK_OK) return r;
    if ((r = ak_memcpy_async(ctx, z, y, (size_t)n * 4, AK_D2D, s)) != AK_OK) return r;
    if ((r = ak_memset(ctx, w, 0, (size_t)n * 4, s)) != AK_OK) return r;
    if (extra && (r = ak_memset(ctx, w, 0, 4, s)) != AK_OK) return r;
    return ak_launch(k, g, b, 0, s, ak_args_params(&q));
}

typedef struct akg_bufs { float *x, *y, *z, *w; int n; } akg_bufs;
static int akg_alloc(ak_context* ctx, akg_bufs* B, int n) {
    int i;
    memset(B, 0, sizeof *B);
    B->n = n;
    if (ak_malloc(ctx, (size_t)n * 4, NULL, (void**)&B->x) || ak_malloc(ctx, (size_t)n * 4, NULL, (void**)&B->y) ||
        ak_malloc(ctx, (size_t)n * 4, NULL, (void**)&B->z) || ak_malloc(ctx, (size_t)n * 4, NULL, (void**)&B->w)) return 0;
    for (i = 0; i < n; i++) { B->x[i] = (float)(i % 7) - 3.0f; B->y[i] = 0.5f * (float)(i % 5); B->z[i] = -1.0f; B->w[i] = 9.0f; }
    return 1;
}
static void akg_free(ak_context* ctx, akg_bufs* B) { ak_free(ctx, B->x); ak_free(ctx, B->y); ak_free(ctx, B->z); ak_free(ctx, B->w); }
static ak_kernel* akg_kernel(ak_context* ctx) {
    ak_kernel* k = NULL;
    if (ak_kernel_get(ctx, akg_src, "akg_axpy", NULL, &k) != AK_OK) { akt_fail(__FILE__, __LINE__, "kernel: %s", ak_last_error()); return NULL; }
    ak_kernel_set_cpu(k, akg_axpy_cpu, NULL);
    if (ak_kernel_set_cpu_args(k, 4, akg_axpy_sizes) != AK_OK) akt_fail(__FILE__, __LINE__, "set_cpu_args: %s", ak_last_error());
    return k;
}

static void test_graph_cpu_replay(void) {
    ak_context* ctx = akt_cpu_context("graph");
    ak_kernel* k;
    ak_stream* s = NULL;
    ak_graph* g = NULL;
    akg_bufs D, G;
    const int n = 200;
    int i, it, same = 1;
    memset(&D, 0, sizeof D);
    memset(&G, 0, sizeof G);
    if (!ctx) return;
    k = akg_kernel(ctx);
    AKT_OK(ak_stream_create(ctx, "cap", 0, &s));
    AKT_CHECK(k && akg_alloc(ctx, &D, n) && akg_alloc(ctx, &G, n));
    if (!k || !s) goto done;
    AKT_EQ_INT(ak_stream_capturing(s), 0);
    AKT_OK(ak_graph_begin(s));
    AKT_EQ_INT(ak_stream_capturing(s), 1);
    AKT_OK(akg_seq(ctx, k, s, G.x, G.y, G.z, G.w, n, 0.25f, 0));
    for (i = 0; i < n; i++) same &= G.y[i] == 0.5f * (float)(i % 5) && G.z[i] == -1.0f && G.w[i] == 9.0f;
    AKT_CHECKF(same, "a capture ran the work it recorded");
    AKT_OK(ak_graph_end(s, &g));
    AKT_EQ_INT(ak_stream_capturing(s), 0);
    for (it = 0; it < 3; it++) {   /* three replays = three direct runs, the inputs changed between them */
        AKT_OK(akg_seq(ctx, k, s, D.x, D.y, D.z, D.w, n, 0.25f, 0));
        AKT_OK(ak_graph_launch(g, s));
        AKT_OK(ak_stream_synchronize(ctx, s));
        for (i = 0, same = 1; i < n; i++) same &= D.y[i] == G.y[i] && D.z[i] == G.z[i] && D.w[i] == G.w[i];
        AKT_CHECKF(same, "replay %d differs from the direct calls", it);
        for (i = 0; i < n; i++) { D.x[i] += (float)it; G.x[i] += (float)it; }
    }
    AKT_OK(ak_graph_launch(g, NULL));   /* the default stream takes a replay too */
    ak_graph_destroy(g);
done:
    akg_free(ctx, &D);
    akg_free(ctx, &G);
    ak_stream_destroy(s);
    ak_kernel_release(k);
    ak_context_destroy(ctx);
}

static void test_graph_cpu_update(void) {
    ak_context* ctx = akt_cpu_context("graph");
    ak_kernel* k;
    ak_stream* s = NULL;
    ak_graph *g = NULL, *g2 = NULL, *g3 = NULL;
    akg_bufs D, G, H;
    const int n = 64;
    int i, same = 1;
    memset(&D, 0, sizeof D);
    memset(&G, 0, sizeof G);
    memset(&H, 0, sizeof H);
    if (!ctx) return;
    k = akg_kernel(ctx);
    AKT_OK(ak_stream_create(ctx, "cap", 0, &s));
    AKT_CHECK(k && akg_alloc(ctx, &D, n) && akg_alloc(ctx, &G, n) && akg_alloc(ctx, &H, n));
    if (!k || !s) goto done;
    AKT_OK(ak_graph_begin(s));
    AKT_OK(akg_seq(ctx, k, s, G.x, G.y, G.z, G.w, n, 0.25f, 0));
    AKT_OK(ak_graph_end(s, &g));
    AKT_OK(ak_graph_launch(g, s));
    /* re-capture with another scalar and other buffers: same operations, update in place */
    AKT_OK(ak_graph_begin(s));
    AKT_OK(akg_seq(ctx, k, s, H.x, H.y, H.z, H.w, n, -3.0f, 0));
    AKT_OK(ak_graph_end(s, &g2));
    AKT_OK(ak_graph_update(g, g2));   /* g2 is consumed */
    AKT_ERR_ITEM(ak_graph_launch(g2, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_FOREIGN_POINTER);
    AKT_OK(ak_graph_launch(g, s));
    AKT_OK(akg_seq(ctx, k, s, D.x, D.y, D.z, D.w, n, -3.0f, 0));
    for (i = 0; i < n; i++) same &= D.y[i] == H.y[i] && D.z[i] == H.z[i] && D.w[i] == H.w[i];
    AKT_CHECKF(same, "the updated graph does not run the new arguments");
    /* a different sequence: refused, both graphs left as they were */
    AKT_OK(ak_graph_begin(s));
    AKT_OK(akg_seq(ctx, k, s, H.x, H.y, H.z, H.w, n, 1.0f, 1));
    AKT_OK(ak_graph_end(s, &g3));
    AKT_ERR_ITEM(ak_graph_update(g, g3), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_GRAPH_TOPOLOGY);
    AKT_CONTAINS(ak_last_error(), "launch the new graph");
    AKT_OK(ak_graph_launch(g, s));
    AKT_OK(ak_graph_launch(g3, s));
    AKT_ERR(ak_graph_update(g, g), AK_ERROR_INVALID_ARGUMENT);
    ak_graph_destroy(g3);
    ak_graph_destroy(g);
done:
    akg_free(ctx, &D);
    akg_free(ctx, &G);
    akg_free(ctx, &H);
    ak_stream_destroy(s);
    ak_kernel_release(k);
    ak_context_destroy(ctx);
}

static void test_graph_cpu_errors(void) {
    ak_context* ctx = akt_cpu_context("graph");
    ak_kernel *k, *k2 = NULL;
    ak_stream *s = NULL, *s2 = NULL;
    ak_graph* g = NULL;
    ak_event* ev = NULL;
    akg_bufs B;
    void* tmp = NULL;
    ak_pool_stats st0, st1;
    float h[4] = { 0 };
    ak_dim3 one = { 1, 1, 1 };
    memset(&B, 0, sizeof B);
    if (!ctx) return;
    k = akg_kernel(ctx);
    AKT_OK(ak_stream_create(ctx, "cap", 0, &s));
    AKT_OK(ak_stream_create(ctx, "other", 0, &s2));
    AKT_OK(ak_event_create(ctx, &ev));
    AKT_CHECK(k && akg_alloc(ctx, &B, 16));
    if (!k || !s || !s2) goto done;
    /* out of order */
    AKT_ERR_ITEM(ak_graph_end(s, &g), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_CHECK(g == NULL);
    AKT_ERR_ITEM(ak_graph_begin(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_CONTAINS(ak_last_error(), "default stream");
    AKT_ERR_ITEM(ak_graph_end(NULL, &g), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_OK(ak_graph_begin(s));
    AKT_ERR_ITEM(ak_graph_begin(s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_CONTAINS(ak_last_error(), "do not nest");
    AKT_ERR_ITEM(ak_graph_begin(s2), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    /* refused during the capture; each leaves it intact */
    AKT_ERR_ITEM(ak_stream_synchronize(ctx, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_ERR_ITEM(ak_stream_synchronize(ctx, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_OK(ak_stream_synchronize(ctx, s2));                         /* another stream is not affected */
    AKT_ERR_ITEM(ak_device_synchronize(ctx), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_ERR_ITEM(ak_memcpy(ctx, h, B.x, 16, AK_D2H), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_ERR_ITEM(ak_memcpy_async(ctx, h, B.x, 16, AK_D2H, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_ERR_ITEM(ak_memcpy_async(ctx, h, h + 2, 8, AK_H2H, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_ERR_ITEM(ak_memset(ctx, B.x, 0, 16, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_ERR_ITEM(ak_event_record(ev, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_ERR_ITEM(ak_fill(ctx, AK_F32, B.x, 4, 1.0f, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);   /* cpu: ops run at once */
    AKT_CONTAINS(ak_last_error(), "cpu backend cannot capture library ops");
    AKT_ERR_ITEM(ak_fill(ctx, AK_F32, B.x, 4, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_OK(ak_fill(ctx, AK_F32, B.z, 4, 7.0f, s2));                 /* ops on another stream run */
    AKT_CHECK(B.z[0] == 7.0f);
    {
        void* a[4];
        float alpha = 1.0f;
        int n = 4;
        a[0] = &B.x; a[1] = &B.y; a[2] = &alpha; a[3] = &n;
        AKT_ERR_ITEM(ak_launch(k, one, one, 0, NULL, a), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
        AKT_OK(ak_kernel_get(ctx, akg_src, "akg_axpy", NULL, &k2));   /* no argument sizes on this handle */
        if (k2) {
            ak_kernel_set_cpu(k2, akg_axpy_cpu, NULL);
            AKT_ERR_ITEM(ak_launch(k2, one, one, 0, s, a), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
            AKT_CONTAINS(ak_last_error(), "ak_kernel_set_cpu_args");
        }
    }
    /* memory freed during the capture is kept for the graph */
    AKT_OK(ak_pool_stats_get(ctx, &st0));
    AKT_OK(ak_malloc(ctx, 1024, s, &tmp));
    AKT_OK(ak_free(ctx, tmp));
    AKT_ERR(ak_free(ctx, h), AK_ERROR_MEMORY);                      /* a foreign pointer is still refused */
    AKT_OK(ak_pool_stats_get(ctx, &st1));
    AKT_EQ_INT(st1.frees, st0.frees);
    AKT_OK(akg_seq(ctx, k, s, B.x, B.y, B.z, B.w, 16, 1.0f, 0));  /* the capture still works */
    AKT_OK(ak_graph_end(s, &g));
    AKT_OK(ak_graph_launch(g, s2));
    ak_graph_destroy(g);
    AKT_OK(ak_pool_stats_get(ctx, &st1));
    AKT_EQ_INT(st1.frees, st0.frees + 1);                           /* returned by ak_graph_destroy */
    /* a destroyed graph; a graph launched into a capture */
    AKT_ERR_ITEM(ak_graph_launch(g, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_FOREIGN_POINTER);
    AKT_CONTAINS(ak_last_error(), "not a live graph");
    ak_graph_destroy(g);                                            /* twice: nothing happens */
    AKT_ERR_ITEM(ak_graph_launch(NULL, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_OK(ak_graph_begin(s));
    AKT_OK(akg_seq(ctx, k, s, B.x, B.y, B.z, B.w, 16, 1.0f, 0));
    AKT_OK(ak_graph_end(s, &g));
    AKT_OK(ak_graph_begin(s2));
    AKT_ERR_ITEM(ak_graph_launch(g, s2), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_CAPTURE);
    AKT_ERR_ITEM(ak_graph_end(s2, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_EQ_INT(ak_stream_capturing(s2), 1);
    ak_stream_destroy(s2);                                          /* destroying a capturing stream ends the capture */
    s2 = NULL;
    AKT_OK(ak_graph_begin(s));
    AKT_OK(ak_kernel_set_cpu_args(k, 0, NULL));
    AKT_ERR(ak_kernel_set_cpu_args(k, AK_MAX_ARGS + 1, akg_axpy_sizes), AK_ERROR_INVALID_ARGUMENT);
    {
        size_t zero = 0;
        AKT_ERR(ak_kernel_set_cpu_args(k, 1, &zero), AK_ERROR_INVALID_ARGUMENT);
    }
    /* the graph g and the capture on s are left to ak_context_destroy */
done:
    ak_kernel_release(k2);
    ak_kernel_release(k);
    ak_event_destroy(ev);
    if (s2) ak_stream_destroy(s2);
    ak_context_destroy(ctx);   /* frees B with the pool, ends the capture, destroys g */
}

/* ---- the fake CUDA driver: the right calls in order ---- */
static char akg_calls[512];
static void akg_log(const char* c) { size_t n = strlen(akg_calls); snprintf(akg_calls + n, sizeof akg_calls - n, "%s%s", n ? " " : "", c); }
static int akg_end_fail, akg_update_fail, akg_graph_objs;
static _akT_CUresult akg_set_current(_akT_CUcontext c) { (void)c; return 0; }
static _akT_CUresult akg_sync(void) { akg_log("sync"); return 0; }
static _akT_CUresult akg_unload(_akT_CUmodule m) { (void)m; return 0; }
static _akT_CUresult akg_launch(_akT_CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                unsigned sh, _akT_CUstream s, void** args, void** extra) {
    (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)sh; (void)s; (void)args; (void)extra;
    akg_log("launch");
    return 0;
}
static _akT_CUresult akg_memset8(_akT_CUdeviceptr d, unsigned char v, size_t n, _akT_CUstream s) { (void)d; (void)v; (void)n; (void)s; akg_log("memset"); return 0; }
static _akT_CUresult akg_begin(_akT_CUstream s, _akT_CUstreamCaptureMode mode) { (void)s; akg_log(mode == 2 ? "begin(relaxed)" : "begin(?)"); return 0; }
static _akT_CUresult akg_end(_akT_CUstream s, _akT_CUgraph* g) {
    (void)s;
    akg_log("end");
    if (akg_end_fail) { *g = NULL; return 901; }   /* CUDA_ERROR_STREAM_CAPTURE_INVALIDATED */
    *g = &akg_graph_objs;
    akg_graph_objs++;
    return 0;
}
static _akT_CUresult akg_inst(_akT_CUgraphExec* x, _akT_CUgraph g, unsigned long long f) { (void)g; (void)f; akg_log("instantiate"); *x = &akg_end_fail; akg_graph_objs++; return 0; }
static _akT_CUresult akg_glaunch(_akT_CUgraphExec x, _akT_CUstream s) { (void)x; (void)s; akg_log("graph_launch"); return 0; }
static _akT_CUresult akg_update(_akT_CUgraphExec x, _akT_CUgraph g, _akT_CUgraphExecUpdateResultInfo* info) {
    (void)x; (void)g;
    akg_log("update");
    info->result = akg_update_fail ? 2 : 0;
    return akg_update_fail ? 910 : 0;
}
static _akT_CUresult akg_xdestroy(_akT_CUgraphExec x) { (void)x; akg_log("exec_destroy"); akg_graph_objs--; return 0; }
static _akT_CUresult akg_gdestroy(_akT_CUgraph g) { (void)g; akg_log("graph_destroy"); akg_graph_objs--; return 0; }

static void test_graph_fake_cuda(void) {
    ak_context* ctx = akt_cpu_context("graph_fake");
    ak_kernel* k = NULL;
    ak_stream* s = NULL;
    ak_graph *g = NULL, *g2 = NULL;
    void* buf = NULL;
    int n = 4;
    void* a[1];
    ak_dim3 one = { 1, 1, 1 };
    static const akf_driver fake = { akg_set_current, akg_sync, NULL, akg_unload, NULL, akg_launch, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL, NULL, akg_begin, akg_end, akg_inst, akg_glaunch, akg_update, akg_xdestroy, akg_gdestroy,
                                     akg_memset8 };
    if (!ctx) return;
    /* made on the cpu table (host memory, no module), then the context speaks to the fake driver */
    AKT_OK(ak_kernel_get(ctx, akg_src, "akg_axpy", NULL, &k));
    AKT_OK(ak_stream_create(ctx, "cap", 0, &s));
    AKT_OK(ak_malloc(ctx, 64, NULL, &buf));
    if (!k || !s || !buf) goto done;
    akf_cuda_attach(ctx, &fake, "sm_90");
    a[0] = &n;
    akg_calls[0] = 0;
    akg_graph_objs = 0;
    AKT_OK(ak_graph_begin(s));
    AKT_OK(ak_launch(k, one, one, 0, s, a));
    AKT_OK(ak_memset(ctx, buf, 0, 64, s));
    AKT_OK(ak_launch(k, one, one, 0, s, a));
    AKT_OK(ak_graph_end(s, &g));
    AKT_OK(ak_graph_launch(g, s));
    AKT_OK(ak_graph_launch(g, s));
    AKT_EQ_STR(akg_calls, "begin(relaxed) launch memset launch end instantiate graph_launch graph_launch");
    /* an update that fits, one that does not */
    akg_calls[0] = 0;
    AKT_OK(ak_graph_begin(s));
    AKT_OK(ak_launch(k, one, one, 0, s, a));
    AKT_OK(ak_graph_end(s, &g2));
    akg_update_fail = 1;
    AKT_ERR_ITEM(ak_graph_update(g, g2), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_GRAPH_TOPOLOGY);
    akg_update_fail = 0;
    AKT_OK(ak_graph_update(g, g2));
    AKT_EQ_STR(akg_calls, "begin(relaxed) launch end update update graph_destroy");   /* g2 consumed: never instantiated */
    /* a capture the runtime invalidated: an error, and the stream is usable again */
    akg_calls[0] = 0;
    akg_end_fail = 1;
    AKT_OK(ak_graph_begin(s));
    AKT_OK(ak_launch(k, one, one, 0, s, a));
    g2 = NULL;
    AKT_ERR_ITEM(ak_graph_end(s, &g2), AK_ERROR_DEVICE, AK_ERRITEM_RUNTIME_CALL);
    AKT_CONTAINS(ak_last_error(), "invalidated");
    akg_end_fail = 0;
    AKT_CHECK(g2 == NULL && !ak_stream_capturing(s));
    AKT_OK(ak_graph_begin(s));
    AKT_OK(ak_graph_end(s, &g2));
    ak_graph_destroy(g2);
    akg_calls[0] = 0;
    ak_graph_destroy(g);
    AKT_EQ_STR(akg_calls, "exec_destroy graph_destroy");
    AKT_EQ_INT(akg_graph_objs, 0);
    akf_cuda_detach(ctx);
done:
    ak_free(ctx, buf);
    ak_stream_destroy(s);
    ak_kernel_release(k);
    ak_context_destroy(ctx);
}

/* The pool during a capture: a miss gives waiting blocks their events, except the capturing stream's (a query of
 * an event recorded in a capture invalidates it on the GPU runtimes; gpu_graph's pool_growth case runs it there). */
static int akg_unev_has(const ak_context* ctx, const void* ptr) {
    const _ak_pblock* b;
    for (b = ctx->pool->unev; b; b = b->lnext) if ((const void*)b->ptr == ptr) return 1;
    return 0;
}
static void test_graph_cpu_pool_capture(void) {
    ak_context* ctx = akt_cpu_context("graph_pool");
    ak_stream *s = NULL, *s2 = NULL;
    ak_graph* g = NULL;
    void *early = NULL, *other = NULL, *big = NULL, *big2 = NULL;
    if (!ctx) return;
    AKT_OK(ak_stream_create(ctx, "capture", 0, &s));
    AKT_OK(ak_stream_create(ctx, "other", 0, &s2));
    AKT_OK(ak_malloc(ctx, 4096, s, &early));
    AKT_OK(ak_malloc(ctx, 4096, s2, &other));
    if (!s || !s2 || !early || !other) goto done;
    AKT_OK(ak_free(ctx, early));
    AKT_OK(ak_free(ctx, other));
    AKT_CHECK(akg_unev_has(ctx, early) && akg_unev_has(ctx, other));   /* both wait for their streams */
    AKT_OK(ak_graph_begin(s));
    AKT_OK(ak_malloc(ctx, (size_t)40 << 20, s, &big));   /* nothing fits: a miss */
    AKT_CHECKF(akg_unev_has(ctx, early), "a block waiting on the capturing stream got an event during the capture");
    AKT_CHECKF(!akg_unev_has(ctx, other), "a block waiting on another stream got no event on a miss");
    AKT_OK(ak_graph_end(s, &g));
    AKT_OK(ak_malloc(ctx, (size_t)40 << 20, s, &big2));  /* a miss after the capture: now it gets its event */
    AKT_CHECK(!akg_unev_has(ctx, early));
done:
    ak_graph_destroy(g);
    ak_free(ctx, big);
    ak_free(ctx, big2);
    ak_stream_destroy(s2);
    ak_stream_destroy(s);
    ak_context_destroy(ctx);
}

void akt_suite_graph(void) {
    AKT_RUN(test_graph_cpu_pool_capture);
    AKT_RUN(test_graph_cpu_replay);
    AKT_RUN(test_graph_cpu_update);
    AKT_RUN(test_graph_cpu_errors);
    AKT_RUN(test_graph_fake_cuda);
}

/* ---- GPU: a decode-like sequence of library ops and a user kernel, replayed = direct ---- */
typedef struct akg_model { int hidden, layers; float *x, *h, *y, *w_norm, *w; } akg_model;
static ak_result akg_decode(ak_context* ctx, const akg_model* m, ak_stream* s) {
    int l;
    ak_result r;
    for (l = 0; l < m->layers; l++) {
        ak_gemm_desc g = ak_gemm_desc_default();
        if ((r = ak_rmsnorm(ctx, AK_F32, m->x, m->w_norm, m->h, 1, (size_t)m->hidden, 1e-6f, s)) != AK_OK) return r;
        g.a = m->h; g.b = m->w + (size_t)l * m->hidden * m->hidden; g.d = m->y;
        g.m = 1; g.n = g.k = (size_t)m->hidden;
        if ((r = ak_gemm(ctx, &g, s)) != AK_OK) return r;
        if ((r = ak_unary(ctx, AK_OP_SILU, AK_F32, m->y, m->y, (size_t)m->hidden, 0.0f, s)) != AK_OK) return r;
        if ((r = ak_add(ctx, AK_F32, m->x, m->y, m->x, (size_t)m->hidden, s)) != AK_OK) return r;
    }
    return AK_OK;
}
static void test_gpu_graph_decode(void) {
    ak_context* ctx = akt_gpu_context_ex(NULL, 0);
    ak_stream* s = NULL;
    ak_graph *g = NULL, *g2 = NULL;
    ak_kernel* k = NULL;
    akg_model m;
    const int H = 384, L = 4;
    float *x0 = NULL, *wts = NULL, *ref = NULL, *got = NULL, *x2 = NULL;
    size_t i, nw = (size_t)L * H * H;
    unsigned long long rng = akt_seed() ^ 0x6a09e667ull;
    double worst = 0;
    int rep;
    if (!ctx) return;
    memset(&m, 0, sizeof m);
    m.hidden = H; m.layers = L;
    x0 = (float*)malloc(H * 4); ref = (float*)malloc(H * 4); got = (float*)malloc(H * 4); wts = (float*)malloc(nw * 4);
    AKT_OK(ak_stream_create(ctx, "decode", 0, &s));
    if (!x0 || !ref || !got || !wts || !s) goto done;
    for (i = 0; i < (size_t)H; i++) x0[i] = (float)akt_uniform(&rng, -1, 1);
    for (i = 0; i < nw; i++) wts[i] = (float)akt_uniform(&rng, -0.05, 0.05);
    AKT_OK(ak_malloc(ctx, H * 4, NULL, (void**)&m.x));
    AKT_OK(ak_malloc(ctx, H * 4, NULL, (void**)&m.h));
    AKT_OK(ak_malloc(ctx, H * 4, NULL, (void**)&m.y));
    AKT_OK(ak_malloc(ctx, H * 4, NULL, (void**)&m.w_norm));
    AKT_OK(ak_malloc(ctx, H * 4, NULL, (void**)&x2));
    AKT_OK(ak_malloc(ctx, nw * 4, NULL, (void**)&m.w));
    if (!m.x || !m.h || !m.y || !m.w_norm || !m.w || !x2) goto done;
    AKT_OK(ak_memcpy(ctx, m.w, wts, nw * 4, AK_H2D));
    for (i = 0; i < (size_t)H; i++) wts[i] = 1.0f + 0.01f * (float)(i % 9);
    AKT_OK(ak_memcpy(ctx, m.w_norm, wts, H * 4, AK_H2D));
    /* direct (also the warm-up that loads every kernel) */
    AKT_OK(ak_memcpy(ctx, m.x, x0, H * 4, AK_H2D));
    AKT_OK(akg_decode(ctx, &m, s));
    AKT_OK(ak_stream_synchronize(ctx, s));
    AKT_OK(ak_memcpy(ctx, ref, m.x, H * 4, AK_D2H));
    /* captured once, replayed twice from the same input: each replay equals the direct run */
    AKT_OK(ak_graph_begin(s));
    AKT_OK(akg_decode(ctx, &m, s));
    AKT_OK(ak_graph_end(s, &g));
    if (!g) goto done;
    for (rep = 0; rep < 2; rep++) {
        AKT_OK(ak_memcpy(ctx, m.x, x0, H * 4, AK_H2D));
        AKT_OK(ak_graph_launch(g, s));
        AKT_OK(ak_stream_synchronize(ctx, s));
        AKT_OK(ak_memcpy(ctx, got, m.x, H * 4, AK_D2H));
        for (i = 0; i < (size_t)H; i++) {
            double e = fabs((double)got[i] - ref[i]) / (1.0 + fabs((double)ref[i]));
            if (e > worst) worst = e;
        }
    }
    AKT_CHECKF(worst <= 1e-5, "replay differs from the direct calls: worst relative error %g", worst);
    /* a user kernel through ak_launch, re-captured on another buffer and brought in by an update */
    AKT_OK(ak_kernel_get(ctx, akg_src, "akg_axpy", NULL, &k));
    if (k) {
        ak_args p;
        ak_dim3 gr = { (unsigned)(H + 127) / 128, 1, 1 }, bl = { 128, 1, 1 };
        ak_graph* g3 = NULL;
        memset(&p, 0, sizeof p);
        ak_args_ptr(&p, m.h); ak_args_ptr(&p, m.y); ak_args_f32(&p, 2.0f); ak_args_i32(&p, H);
        AKT_OK(ak_graph_begin(s));
        AKT_OK(ak_launch(k, gr, bl, 0, s, ak_args_params(&p)));
        AKT_OK(ak_graph_end(s, &g2));
        memset(&p, 0, sizeof p);
        ak_args_ptr(&p, m.h); ak_args_ptr(&p, x2); ak_args_f32(&p, 2.0f); ak_args_i32(&p, H);
        AKT_OK(ak_graph_begin(s));
        AKT_OK(ak_launch(k, gr, bl, 0, s, ak_args_params(&p)));
        AKT_OK(ak_graph_end(s, &g3));
        AKT_OK(ak_graph_launch(g2, s));
        AKT_OK(ak_graph_update(g2, g3));
        AKT_OK(ak_memset(ctx, x2, 0, H * 4, s));
        AKT_OK(ak_graph_launch(g2, s));   /* now writes x2 = 2 h */
        AKT_OK(ak_stream_synchronize(ctx, s));
        AKT_OK(ak_memcpy(ctx, got, x2, H * 4, AK_D2H));
        AKT_OK(ak_memcpy(ctx, ref, m.h, H * 4, AK_D2H));
        for (i = 0, worst = 0; i < (size_t)H; i++) if (fabs(got[i] - 2.0 * ref[i]) > worst) worst = fabs(got[i] - 2.0 * ref[i]);
        AKT_CHECKF(worst <= 1e-6, "the updated graph's kernel wrote the wrong values (worst %g)", worst);
        /* a different sequence is refused */
        AKT_OK(ak_graph_begin(s));
        AKT_OK(ak_launch(k, gr, bl, 0, s, ak_args_params(&p)));
        AKT_OK(ak_memset(ctx, x2, 0, 4, s));
        AKT_OK(ak_graph_end(s, &g3));
        AKT_ERR_ITEM(ak_graph_update(g2, g3), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_GRAPH_TOPOLOGY);
        ak_graph_destroy(g3);
    }
done:
    ak_graph_destroy(g);
    ak_graph_destroy(g2);
    ak_kernel_release(k);
    if (ctx) {
        ak_free(ctx, m.x); ak_free(ctx, m.h); ak_free(ctx, m.y); ak_free(ctx, m.w_norm); ak_free(ctx, m.w); ak_free(ctx, x2);
    }
    ak_stream_destroy(s);
    free(x0); free(ref); free(got); free(wts);
    ak_context_destroy(ctx);
}
/* ---- GPU: the pool during a capture ----
 * A block freed on the capturing stream just before the capture waits for that stream's work; an allocation in
 * the capture that no free block fits makes the pool grow. The pool must not give that block an event on the
 * capturing stream (a query of it invalidates the capture: the next captured call fails with the runtime's
 * "previous error during capture", as a split-K GEMM's workspace did at 4096 wide). */
static void test_gpu_graph_pool_growth(void) {
    ak_context* ctx = akt_gpu_context_ex(NULL, 0);
    ak_stream* s = NULL;
    ak_graph* g = NULL;
    void *early = NULL, *big = NULL, *mid = NULL, *after = NULL;
    unsigned char* host = NULL;
    const size_t nbig = (size_t)40 << 20, nmid = (size_t)3 << 20;
    size_t i, bad = 0;
    int rep;
    if (!ctx) return;
    AKT_OK(ak_stream_create(ctx, "capture", 0, &s));
    host = (unsigned char*)malloc(nbig);
    if (!s || !host) goto done;
    AKT_OK(ak_malloc(ctx, 4096, s, &early));
    AKT_OK(ak_memset(ctx, early, 1, 4096, s));
    AKT_OK(ak_free(ctx, early));   /* free, waiting for s (no event yet) */
    AKT_OK(ak_graph_begin(s));
    AKT_OK(ak_malloc(ctx, nbig, s, &big));   /* nothing free fits: the pool grows during the capture */
    AKT_OK(ak_malloc(ctx, nmid, s, &mid));
    AKT_OK(ak_memset(ctx, big, 0x5a, nbig, s));
    AKT_OK(ak_memset(ctx, mid, 0x33, nmid, s));
    AKT_OK(ak_graph_end(s, &g));
    if (!g || !big || !mid) goto done;
    for (rep = 0; rep < 2; rep++) {
        AKT_OK(ak_memset(ctx, big, 0, nbig, s));
        AKT_OK(ak_graph_launch(g, s));
        AKT_OK(ak_stream_synchronize(ctx, s));
        AKT_OK(ak_memcpy(ctx, host, big, nbig, AK_D2H));
        for (i = 0; i < nbig; i++) bad += host[i] != 0x5a;
        AKT_OK(ak_memcpy(ctx, host, mid, nmid, AK_D2H));
        for (i = 0; i < nmid; i++) bad += host[i] != 0x33;
    }
    AKT_CHECKF(bad == 0, "%zu bytes not written by the replayed memsets", bad);
    /* the pool after the capture: the waiting block gets its event and is handed out again */
    AKT_OK(ak_malloc(ctx, 4096, s, &after));
    AKT_OK(ak_memset(ctx, after, 2, 4096, s));
    AKT_OK(ak_stream_synchronize(ctx, s));
done:
    ak_graph_destroy(g);
    if (ctx) { ak_free(ctx, big); ak_free(ctx, mid); ak_free(ctx, after); }
    ak_stream_destroy(s);
    free(host);
    ak_context_destroy(ctx);
}
void akt_suite_gpu_graph(void) {
    AKT_RUN(test_gpu_graph_decode);
    AKT_RUN(test_gpu_graph_pool_growth);
}
