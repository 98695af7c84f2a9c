/* Suite gpu_multi (runs with --gpu, needs a GPU): device enumeration against
 * a context's own description, two contexts on one device (threads
 * alternating between them, the second context's kernel a disk-cache hit),
 * a one-rank communicator through NCCL / RCCL (every collective, every dtype,
 * checked against the host), and where two devices are visible: a two-rank
 * communicator, direct and staged peer copies, and a cross-device stream wait. */
/* (included by test_main.c: the staged copy is an internal function) */
#include <pthread.h>

static char gm_cache[600];
static unsigned long long gm_rng;

static ak_context* gm_context(int device) {
    ak_config cfg = ak_config_default();
    ak_context* c = NULL;
    if (ak_config_apply_env(&cfg) != AK_OK) cfg = ak_config_default();
    if (!gm_cache[0]) snprintf(gm_cache, sizeof gm_cache, "%s/gpu_multi_cache", akt_tmpdir());
    cfg.backend = AK_BACKEND_AUTO;
    cfg.device = device;
    cfg.cache_dir = gm_cache;
    cfg.log_level = AK_LOG_ERROR;
    if (!(c = akt_gpu_context_ex(&cfg, 0))) akt_fail(__FILE__, __LINE__, "(the context on device %d)", device);
    return c;
}
static void gm_random(float* p, size_t n) { size_t i; for (i = 0; i < n; i++) p[i] = (float)akt_uniform(&gm_rng, 0.25, 4.0) * (i & 1 ? -1.f : 1.f); }

static void test_gpu_enumeration(void) {
    ak_context* c = gm_context(0);
    ak_device_info d;
    int n = 0, i;
    if (!c) return;
    AKT_OK(ak_device_count(AK_BACKEND_AUTO, &n));
    AKT_EQ_INT(n, ak_context_device(c)->device_count);
    for (i = 0; i < n; i++) {
        AKT_OK(ak_device_get_info(AK_BACKEND_AUTO, i, &d));
        AKT_EQ_INT(d.backend, ak_context_device(c)->backend);
        AKT_CHECK(d.mem_total > ((size_t)1 << 30));
        AKT_CHECK(d.compute_units > 0);
        AKT_CHECKF(d.pci_bus_id[0] != 0, "device %d: no PCI bus id", i);
        AKT_CHECKF(!strncmp(d.uuid, "GPU-", 4), "device %d: uuid '%s'", i, d.uuid);
        printf("    device %d: %s %s %s %s\n", i, d.name, d.arch, d.pci_bus_id, d.uuid);
        if (i == 0) {
            AKT_EQ_STR(d.name, ak_context_device(c)->name);
            AKT_EQ_STR(d.arch, ak_context_device(c)->arch);
            AKT_EQ_STR(d.pci_bus_id, ak_context_device(c)->pci_bus_id);
        }
    }
    AKT_ERR(ak_device_get_info(AK_BACKEND_AUTO, n, &d), AK_ERROR_INVALID_ARGUMENT);
    ak_context_destroy(c);
}

static const char gm_src[] =
    "extern \"C\" __global__ void gm_scale(float* x, float a, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] *= a;\n"
    "}\n";

typedef struct { ak_context* a; ak_context* b; int bad; char why[300]; } gm_alt;
static void* gm_alternate(void* p) {
    gm_alt* t = (gm_alt*)p;
    int it;
    for (it = 0; it < 20; it++) {
        enum { N = 4097 };
        float h[N], g[N];
        void *x = NULL, *y = NULL;
        int i;
        ak_context* c1 = it & 1 ? t->a : t->b;
        ak_context* c2 = it & 1 ? t->b : t->a;
        for (i = 0; i < N; i++) h[i] = (float)(i % 97) + 0.5f * (float)it;
        if (ak_malloc(c1, sizeof h, NULL, &x) != AK_OK || ak_malloc(c2, sizeof h, NULL, &y) != AK_OK ||
            ak_memcpy(c1, x, h, sizeof h, AK_H2D) != AK_OK || ak_memcpy_peer(c2, y, c1, x, sizeof h) != AK_OK ||
            ak_scale(c2, AK_F32, y, y, N, 2.0f, NULL) != AK_OK || ak_memcpy(c2, g, y, sizeof g, AK_D2H) != AK_OK) {
            t->bad++; snprintf(t->why, sizeof t->why, "%.280s", ak_last_error());
        } else {
            for (i = 0; i < N; i++) if (g[i] != 2.f * h[i]) { t->bad++; snprintf(t->why, sizeof t->why, "[%d] %g vs %g", i, g[i], 2 * h[i]); break; }
        }
        ak_free(c1, x);
        ak_free(c2, y);
    }
    return NULL;
}

static void test_gpu_two_contexts_one_device(void) {
    ak_context* a = gm_context(0);
    ak_context* b = gm_context(0);
    ak_kernel *ka = NULL, *kb = NULL;
    ak_compile_options o;
    char src[512];
    pthread_t th[4];
    gm_alt t[4];
    int i, can = 0;
    if (!a || !b) { ak_context_destroy(a); ak_context_destroy(b); return; }
    AKT_OK(ak_device_can_access_peer(a, b, &can));
    AKT_EQ_INT(can, 1);
    AKT_OK(ak_enable_peer_access(a, b));
    /* same arch: the second context's kernel comes from the disk cache the first wrote */
    snprintf(src, sizeof src, "/* gpu_multi seed %llu */\n%s", akt_seed(), gm_src);
    memset(&o, 0, sizeof o);
    AKT_OK(ak_kernel_get(a, src, "gm_scale", &o, &ka));
    AKT_OK(ak_kernel_get(b, src, "gm_scale", &o, &kb));
    if (ka) AKT_EQ_INT(ak_kernel_cache_source(ka), AK_CACHE_MISS);
    if (kb) AKT_EQ_INT(ak_kernel_cache_source(kb), AK_CACHE_DISK);
    ak_kernel_release(ka);
    ak_kernel_release(kb);
    for (i = 0; i < 4; i++) { memset(&t[i], 0, sizeof t[i]); t[i].a = a; t[i].b = b; pthread_create(&th[i], NULL, gm_alternate, &t[i]); }
    for (i = 0; i < 4; i++) { pthread_join(th[i], NULL); AKT_CHECKF(t[i].bad == 0, "thread %d: %d bad, %s", i, t[i].bad, t[i].why); }
    ak_context_destroy(a);
    ak_context_destroy(b);
}

/* Every collective over the given communicators (one thread, groups), every dtype and op, vs the host. */
static void gm_collectives(ak_context** ctx, ak_comm** comm, int n) {
    static const ak_dtype ts[4] = { AK_F32, AK_F16, AK_BF16, AK_I32 };
    static const ak_reduce_op ops[4] = { AK_REDUCE_SUM, AK_REDUCE_MEAN, AK_REDUCE_MAX, AK_REDUCE_MIN };
    size_t c = 1000003, i;   /* odd, not divisible by the rank count */
    int ti, oi, r, k;
    void* hin[2]; void* hout; void* din[2]; void* dout[2];
    hout = malloc(c * 4 * 2);
    for (r = 0; r < n; r++) { hin[r] = malloc(c * 4 * 2); din[r] = NULL; dout[r] = NULL;
        AKT_OK(ak_malloc(ctx[r], c * 4 * 2, NULL, &din[r])); AKT_OK(ak_malloc(ctx[r], c * 4 * 2, NULL, &dout[r])); }
    for (ti = 0; ti < 4; ti++) {
        ak_dtype t = ts[ti];
        size_t es = ak_dtype_size(t);
        for (r = 0; r < n; r++) {
            for (i = 0; i < c * 2; i++) ak_elem_set(hin[r], t, i, t == AK_I32 ? (double)((int)(akt_uniform(&gm_rng, -1e6, 1e6))) : akt_uniform(&gm_rng, -4, 4));
            AKT_OK(ak_memcpy(ctx[r], din[r], hin[r], c * es * 2, AK_H2D));
        }
        for (oi = 0; oi < 4; oi++) {
            double worst = 0;
            AKT_OK(ak_comm_group_start());
            for (r = 0; r < n; r++) AKT_OK(ak_all_reduce(comm[r], ops[oi], t, din[r], dout[r], c, NULL));
            AKT_OK(ak_comm_group_end());
            for (r = 0; r < n; r++) {
                AKT_OK(ak_memcpy(ctx[r], hout, dout[r], c * es, AK_D2H));
                for (i = 0; i < c; i++) {
                    double ref = ak_elem_get(hin[0], t, i), got = ak_elem_get(hout, t, i), tol;
                    for (k = 1; k < n; k++) {
                        double v = ak_elem_get(hin[k], t, i);
                        ref = ops[oi] == AK_REDUCE_MAX ? (v > ref ? v : ref) : ops[oi] == AK_REDUCE_MIN ? (v < ref ? v : ref) : ref + v;
                    }
                    if (ops[oi] == AK_REDUCE_MEAN) ref = t == AK_I32 ? (double)((long long)ref / n) : ref / n;
                    tol = t == AK_I32 ? 0 : t == AK_F32 ? 1e-5 * (fabs(ref) + 1) : t == AK_F16 ? 4e-3 * (fabs(ref) + 1) : 3e-2 * (fabs(ref) + 1);
                    if (fabs(got - ref) > tol) { worst = fabs(got - ref); akt_fail(__FILE__, __LINE__, "all_reduce %s %s rank %d [%zu]: %g vs %g", ak_dtype_name(t), ak_reduce_op_name(ops[oi]), r, i, got, ref); break; }
                }
            }
            (void)worst;
        }
        /* all_gather, broadcast (root n-1), a ring of send/recv */
        AKT_OK(ak_comm_group_start());
        for (r = 0; r < n; r++) AKT_OK(ak_all_gather(comm[r], t, din[r], dout[r], c, NULL));
        AKT_OK(ak_comm_group_end());
        for (r = 0; r < n; r++) {
            AKT_OK(ak_memcpy(ctx[r], hout, dout[r], c * es * n, AK_D2H));
            for (k = 0; k < n; k++) AKT_CHECKF(!memcmp((char*)hout + k * c * es, hin[k], c * es), "all_gather %s rank %d block %d", ak_dtype_name(t), r, k);
        }
        AKT_OK(ak_comm_group_start());
        for (r = 0; r < n; r++) AKT_OK(ak_broadcast(comm[r], t, din[r], dout[r], c, n - 1, NULL));
        AKT_OK(ak_comm_group_end());
        for (r = 0; r < n; r++) { AKT_OK(ak_memcpy(ctx[r], hout, dout[r], c * es, AK_D2H)); AKT_CHECKF(!memcmp(hout, hin[n - 1], c * es), "broadcast %s rank %d", ak_dtype_name(t), r); }
        AKT_OK(ak_comm_group_start());
        for (r = 0; r < n; r++) { AKT_OK(ak_send(comm[r], t, din[r], c, (r + 1) % n, NULL)); AKT_OK(ak_recv(comm[r], t, dout[r], c, (r + n - 1) % n, NULL)); }
        AKT_OK(ak_comm_group_end());
        for (r = 0; r < n; r++) { AKT_OK(ak_memcpy(ctx[r], hout, dout[r], c * es, AK_D2H)); AKT_CHECKF(!memcmp(hout, hin[(r + n - 1) % n], c * es), "ring %s rank %d", ak_dtype_name(t), r); }
        /* reduce_scatter (sum): rank r gets block r of the sum */
        AKT_OK(ak_comm_group_start());
        for (r = 0; r < n; r++) AKT_OK(ak_reduce_scatter(comm[r], AK_REDUCE_MAX, t, din[r], dout[r], c * 2 / n / 2, NULL));
        AKT_OK(ak_comm_group_end());
        for (r = 0; r < n; r++) {
            size_t rc = c * 2 / n / 2;
            AKT_OK(ak_memcpy(ctx[r], hout, dout[r], rc * es, AK_D2H));
            for (i = 0; i < rc; i++) {
                double ref = ak_elem_get(hin[0], t, r * rc + i);
                for (k = 1; k < n; k++) { double v = ak_elem_get(hin[k], t, r * rc + i); if (v > ref) ref = v; }
                if (ak_elem_get(hout, t, i) != ref) { akt_fail(__FILE__, __LINE__, "reduce_scatter max %s rank %d [%zu]", ak_dtype_name(t), r, i); break; }
            }
        }
    }
    for (r = 0; r < n; r++) { ak_free(ctx[r], din[r]); ak_free(ctx[r], dout[r]); free(hin[r]); }
    free(hout);
}

static void test_gpu_one_rank_communicator(void) {
    ak_context* c = gm_context(0);
    ak_comm* comm = NULL;
    ak_comm* c2 = NULL;
    ak_comm_id id;
    if (!c) return;
    gm_rng = akt_seed() ^ 0x4D554C5449ull;
    AKT_OK(ak_comm_init_all(&c, 1, &comm));
    if (comm) {
        printf("    %s\n", ak_comm_library(comm));
        AKT_CONTAINS(ak_comm_library(comm), ak_context_device(c)->backend == AK_BACKEND_HIP ? "rccl" : "nccl");
        gm_collectives(&c, &comm, 1);
        ak_comm_destroy(comm);
    }
    /* the id path, one rank */
    AKT_OK(ak_comm_get_unique_id(c, &id));
    AKT_OK(ak_comm_init_rank(c, 1, &id, 0, &c2));
    if (c2) {
        void* d = NULL;
        float h[3] = { 1.5f, -2.f, 3.f }, g[3];
        AKT_OK(ak_malloc(c, sizeof h, NULL, &d));
        AKT_OK(ak_memcpy(c, d, h, sizeof h, AK_H2D));
        AKT_OK(ak_all_reduce(c2, AK_REDUCE_SUM, AK_F32, d, d, 3, NULL));
        AKT_OK(ak_memcpy(c, g, d, sizeof g, AK_D2H));
        AKT_CHECK(!memcmp(g, h, sizeof h));
        AKT_ERR(ak_all_reduce(c2, AK_REDUCE_SUM, AK_F64, d, d, 1, NULL), AK_ERROR_INVALID_ARGUMENT);
        ak_free(c, d);
        ak_comm_destroy(c2);
    }
    ak_context_destroy(c);
}

static void test_gpu_two_devices(void) {
    ak_context* ctx[2] = { NULL, NULL };
    ak_comm* comm[2] = { NULL, NULL };
    int n = 0, can = 0;
    ak_device_count(AK_BACKEND_AUTO, &n);
    if (n < 2) { akt_skip("one device visible: the two-device checks run on a machine with two (tests/multi_gpu.sh)"); return; }
    if (!(ctx[0] = gm_context(0)) || !(ctx[1] = gm_context(1))) goto done;
    AKT_OK(ak_comm_init_all(ctx, 2, comm));
    if (comm[0] && comm[1]) gm_collectives(ctx, comm, 2);
    AKT_OK(ak_device_can_access_peer(ctx[1], ctx[0], &can));
    printf("    peer access 1 -> 0: %d\n", can);
    if (can) { AKT_OK(ak_enable_peer_access(ctx[1], ctx[0])); AKT_OK(ak_enable_peer_access(ctx[0], ctx[1])); }
    {
        size_t nb = ((size_t)37 << 20) + 12;   /* not a whole number of staging chunks */
        float* h = (float*)malloc(nb);
        float* g = (float*)malloc(nb);
        void *a = NULL, *b = NULL;
        ak_stream* s = NULL;
        ak_event* e = NULL;
        size_t i;
        gm_random(h, nb / 4);
        AKT_OK(ak_malloc(ctx[0], nb, NULL, &a));
        AKT_OK(ak_malloc(ctx[1], nb, NULL, &b));
        AKT_OK(ak_memcpy(ctx[0], a, h, nb, AK_H2D));
        AKT_OK(ak_memcpy_peer(ctx[1], b, ctx[0], a, nb));
        AKT_OK(ak_memcpy(ctx[1], g, b, nb, AK_D2H));
        AKT_CHECK(!memcmp(g, h, nb));
        AKT_OK(ak_memset(ctx[1], b, 0, nb, NULL));
        AKT_OK(_ak_copy_peer_staged(ctx[1], b, ctx[0], a, nb, NULL));   /* the path taken without peer access */
        AKT_OK(ak_memcpy(ctx[1], g, b, nb, AK_D2H));
        AKT_CHECK(!memcmp(g, h, nb));
        /* device 1's stream waits for device 0's work: scale on 0, event, async peer copy on 1 */
        AKT_OK(ak_stream_create(ctx[1], "after0", 0, &s));
        AKT_OK(ak_event_create(ctx[0], &e));
        AKT_OK(ak_scale(ctx[0], AK_F32, a, a, nb / 4, 3.0f, NULL));
        AKT_OK(ak_event_record(e, NULL));
        AKT_OK(ak_stream_wait_event(ctx[1], s, e));
        if (can) AKT_OK(ak_memcpy_peer_async(ctx[1], b, ctx[0], a, nb, s));
        else AKT_OK(ak_memcpy_peer(ctx[1], b, ctx[0], a, nb));
        AKT_OK(ak_stream_synchronize(ctx[1], s));
        AKT_OK(ak_memcpy(ctx[1], g, b, nb, AK_D2H));
        for (i = 0; i < nb / 4; i++) if (g[i] != 3.f * h[i]) { akt_fail(__FILE__, __LINE__, "after wait [%zu]: %g vs %g", i, g[i], 3 * h[i]); break; }
        ak_event_destroy(e);
        ak_stream_destroy(s);
        ak_free(ctx[0], a);
        ak_free(ctx[1], b);
        free(h);
        free(g);
    }
done:
    ak_comm_destroy(comm[0]); ak_comm_destroy(comm[1]);
    ak_context_destroy(ctx[0]); ak_context_destroy(ctx[1]);
}

void akt_suite_gpu_multi(void);
void akt_suite_gpu_multi(void) {
    gm_rng = akt_seed() ^ 0x6D756C7469ull;
    AKT_RUN(test_gpu_enumeration);
    AKT_RUN(test_gpu_two_contexts_one_device);
    AKT_RUN(test_gpu_one_rank_communicator);
    AKT_RUN(test_gpu_two_devices);
}
