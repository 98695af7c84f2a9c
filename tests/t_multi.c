/* Suite multi: device enumeration, several contexts on one device, peer
 * copies, and the collectives of the cpu backend (the reference the NCCL /
 * RCCL paths are held to) with 1, 2, 3 and 8 ranks: every dtype and
 * reduction, counts not divisible by the rank count, one thread per rank and
 * one thread driving every rank in groups; mismatched calls are errors. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "ak_test.h"
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype mt_types[4] = { AK_F32, AK_F16, AK_BF16, AK_I32 };
static const ak_reduce_op mt_ops[4] = { AK_REDUCE_SUM, AK_REDUCE_MEAN, AK_REDUCE_MAX, AK_REDUCE_MIN };

/* ---- enumeration ---------------------------------------------------------------- */
static void test_device_enumeration(void) {
    int n = -1;
    ak_device_info d;
    char* old = getenv("CUDA_VISIBLE_DEVICES") ? strdup(getenv("CUDA_VISIBLE_DEVICES")) : NULL;
    AKT_OK(ak_device_count(AK_BACKEND_CPU, &n));
    AKT_EQ_INT(n, 1);
    setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
    AKT_OK(ak_device_get_info(AK_BACKEND_CPU, 0, &d));
    AKT_EQ_INT(d.backend, AK_BACKEND_CPU);
    AKT_EQ_STR(d.arch, "cpu");
    AKT_CHECK(d.name[0] != 0);
    AKT_CHECK(d.mem_total > 0);
    AKT_CONTAINS(d.visible_devices, "CUDA_VISIBLE_DEVICES=1,0");
    if (old) { setenv("CUDA_VISIBLE_DEVICES", old, 1); free(old); } else unsetenv("CUDA_VISIBLE_DEVICES");
    AKT_ERR(ak_device_get_info(AK_BACKEND_CPU, 1, &d), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "has 1 device");
    AKT_ERR(ak_device_get_info(AK_BACKEND_CPU, -1, &d), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_device_get_info(AK_BACKEND_CPU, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_device_count(AK_BACKEND_CPU, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_device_count((ak_backend)17, &n), AK_ERROR_INVALID_ARGUMENT);
    /* AUTO answers for whatever backend the machine has, at least one device */
    AKT_OK(ak_device_count(AK_BACKEND_AUTO, &n));
    AKT_CHECK(n >= 1);
}

/* ---- two contexts on one device ------------------------------------------------- */
typedef struct { ak_context* a; ak_context* b; int iters; int bad; } mt_alt;
static void* mt_alternate(void* p) {
    mt_alt* t = (mt_alt*)p;
    int i;
    for (i = 0; i < t->iters; i++) {
        float h[64], g[64];
        void *x = NULL, *y = NULL;
        int k;
        for (k = 0; k < 64; k++) h[k] = (float)(i * 64 + k) + 0.5f;
        if (ak_malloc(t->a, sizeof h, NULL, &x) != AK_OK || ak_malloc(t->b, sizeof h, NULL, &y) != AK_OK) { t->bad++; break; }
        if (ak_memcpy(t->a, x, h, sizeof h, AK_H2D) != AK_OK || ak_memcpy_peer(t->b, y, t->a, x, sizeof h) != AK_OK ||
            ak_memcpy(t->b, g, y, sizeof g, AK_D2H) != AK_OK || memcmp(g, h, sizeof h) != 0) t->bad++;
        if (ak_free(t->a, x) != AK_OK || ak_free(t->b, y) != AK_OK) t->bad++;
        /* a pointer of one context is foreign to the other's pool */
    }
    return NULL;
}
static void test_two_contexts_one_device(void) {
    ak_context* a = akt_cpu_context("multi_two_a");
    ak_context* b = akt_cpu_context("multi_two_b");
    ak_pool_stats sa, sb;
    pthread_t th[3];
    mt_alt t[3];
    int i, can = -1;
    void* x = NULL;
    if (!a || !b) { ak_context_destroy(a); ak_context_destroy(b); return; }
    AKT_OK(ak_device_can_access_peer(a, b, &can));
    AKT_EQ_INT(can, 1);
    AKT_OK(ak_enable_peer_access(a, b));
    AKT_OK(ak_enable_peer_access(b, a));
    for (i = 0; i < 3; i++) { t[i].a = i & 1 ? a : b; t[i].b = i & 1 ? b : a; t[i].iters = 50; t[i].bad = 0; pthread_create(&th[i], NULL, mt_alternate, &t[i]); }
    for (i = 0; i < 3; i++) { pthread_join(th[i], NULL); AKT_EQ_INT(t[i].bad, 0); }
    /* each context has its own pool: memory of one is a foreign pointer to the other */
    AKT_OK(ak_malloc(a, 1000, NULL, &x));
    AKT_ERR_ITEM(ak_free(b, x), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_OK(ak_pool_stats_get(a, &sa));
    AKT_OK(ak_pool_stats_get(b, &sb));
    AKT_EQ_INT(sa.in_use, 1024);
    AKT_EQ_INT(sb.in_use, 0);
    AKT_OK(ak_free(a, x));
    AKT_ERR_ITEM(ak_memcpy_peer(a, NULL, b, &can, 4), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_memcpy_peer(NULL, &can, b, &can, 4), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_device_can_access_peer(a, b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    {
        ak_stream* s = NULL;
        ak_event* e = NULL;
        AKT_OK(ak_stream_create(b, "s", 0, &s));
        AKT_OK(ak_event_create(a, &e));
        AKT_ERR(ak_stream_wait_event(b, s, e), AK_ERROR_INVALID_ARGUMENT);  /* never recorded */
        AKT_OK(ak_event_record(e, NULL));
        AKT_OK(ak_stream_wait_event(b, s, e));                              /* cross-context wait */
        AKT_ERR_ITEM(ak_stream_wait_event(a, s, e), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);  /* stream of b */
        AKT_ERR(ak_memcpy_peer_async(b, &can, a, &can, 4, NULL) == AK_OK ? AK_OK : AK_ERROR_DEVICE, AK_OK);
        ak_event_destroy(e);
        ak_stream_destroy(s);
    }
    ak_context_destroy(a);
    ak_context_destroy(b);
}

/* ---- collectives: reference and checks ------------------------------------------ */
static double mt_round(ak_dtype t, double v) {
    switch (t) {
    case AK_F32: return (float)v;
    case AK_F16: return ak_f16_to_f32(ak_f32_to_f16((float)v));
    case AK_BF16: return ak_bf16_to_f32(ak_f32_to_bf16((float)v));
    default: return v;
    }
}
static double mt_tol(ak_dtype t, double ref) {
    double a = fabs(ref);
    switch (t) {
    case AK_F32: return 1e-6 * (a + 1);
    case AK_F16: return 2e-3 * (a + 1);
    case AK_BF16: return 1.6e-2 * (a + 1);
    default: return 0;
    }
}
/* Value of element i of rank r's input (exactly representable in every dtype). */
static void mt_fill(void* buf, ak_dtype t, size_t n, int rank, unsigned long long seed) {
    size_t i;
    unsigned long long s = seed * 1315423911ull + (unsigned long long)rank * 2654435761ull + 7;
    for (i = 0; i < n; i++) {
        double v = t == AK_I32 ? floor(akt_uniform(&s, -1e9, 1e9)) : mt_round(t, akt_uniform(&s, -8, 8));
        if (t != AK_I32 && fabs(v) < 1e-3) v = 0.25;
        ak_elem_set(buf, t, i, v);
    }
}
static double mt_reduce_ref(ak_reduce_op op, ak_dtype t, void** in, int n, size_t i) {
    int k;
    if (t == AK_I32) {
        uint32_t s = 0;
        int32_t mx = ((int32_t*)in[0])[i], mn = mx;
        for (k = 0; k < n; k++) { int32_t v = ((int32_t*)in[k])[i]; s += (uint32_t)v; if (v > mx) mx = v; if (v < mn) mn = v; }
        if (op == AK_REDUCE_MAX) return mx;
        if (op == AK_REDUCE_MIN) return mn;
        if (op == AK_REDUCE_MEAN) return (double)((int32_t)s / n);
        return (double)(int32_t)s;
    } else {
        double acc = ak_elem_get(in[0], t, i);
        for (k = 1; k < n; k++) {
            double v = ak_elem_get(in[k], t, i);
            if (op == AK_REDUCE_MAX) acc = v > acc ? v : acc;
            else if (op == AK_REDUCE_MIN) acc = v < acc ? v : acc;
            else acc += v;
        }
        return mt_round(t, op == AK_REDUCE_MEAN ? acc / n : acc);
    }
}

typedef struct {
    int n, rank, mode_group;
    ak_comm* comm;
    size_t count;                  /* all_reduce / broadcast count; all_gather send count; reduce_scatter recv count */
    unsigned long long seed;
    int failures;
    char first[400];
} mt_rank;

#define MT_FAIL(R, ...) do { if (!(R)->failures++) snprintf((R)->first, sizeof (R)->first, __VA_ARGS__); } while (0)

/* Every collective, every dtype and op, on rank R (its own buffers, its own thread). */
static void mt_run_rank(mt_rank* R, void** all_in /* [n] inputs of every rank, for the reference */) {
    int ti, oi, n = R->n, r = R->rank;
    size_t i, c = R->count, es;
    for (ti = 0; ti < 4; ti++) {
        ak_dtype t = mt_types[ti];
        void* in = all_in[r];
        void* out;
        es = ak_dtype_size(t);
        out = malloc((size_t)n * c * es + 64);
        for (oi = 0; oi < 4; oi++) {
            ak_reduce_op op = mt_ops[oi];
            mt_fill(in, t, (size_t)n * c, r, R->seed + (unsigned long long)(ti * 16 + oi));
            /* all ranks' inputs must be filled before anyone reduces: the collective is the barrier, so every
               rank fills its own and the reference reads the others' after the call */
            memset(out, 0xAB, (size_t)n * c * es);
            if (ak_all_reduce(R->comm, op, t, in, out, c, NULL) != AK_OK) { MT_FAIL(R, "all_reduce: %s", ak_last_error()); continue; }
            for (i = 0; i < c; i++) {
                double ref = mt_reduce_ref(op, t, all_in, n, i), got = ak_elem_get(out, t, i);
                if (!(fabs(got - ref) <= mt_tol(t, ref))) { MT_FAIL(R, "all_reduce %s %s n=%d rank %d [%zu]: %g vs %g", ak_dtype_name(t), ak_reduce_op_name(op), n, r, i, got, ref); break; }
            }
            memset(out, 0xAB, c * es);
            if (ak_reduce_scatter(R->comm, op, t, in, out, c, NULL) != AK_OK) { MT_FAIL(R, "reduce_scatter: %s", ak_last_error()); continue; }
            for (i = 0; i < c; i++) {
                double ref = mt_reduce_ref(op, t, all_in, n, (size_t)r * c + i), got = ak_elem_get(out, t, i);
                if (!(fabs(got - ref) <= mt_tol(t, ref))) { MT_FAIL(R, "reduce_scatter %s %s n=%d rank %d [%zu]: %g vs %g", ak_dtype_name(t), ak_reduce_op_name(op), n, r, i, got, ref); break; }
            }
            /* the others read this rank's input until everyone is past the reduce-scatter: one more collective as a barrier */
            if (ak_all_reduce(R->comm, AK_REDUCE_SUM, AK_I32, NULL, NULL, 0, NULL) != AK_OK) MT_FAIL(R, "barrier: %s", ak_last_error());
        }
        /* in place all-reduce (sum): send == recv */
        mt_fill(in, t, c, r, R->seed + 99);
        memcpy(out, in, c * es);
        if (ak_all_reduce(R->comm, AK_REDUCE_SUM, t, out, out, c, NULL) != AK_OK) MT_FAIL(R, "in-place all_reduce: %s", ak_last_error());
        else for (i = 0; i < c; i++) {
            double ref = mt_reduce_ref(AK_REDUCE_SUM, t, all_in, n, i), got = ak_elem_get(out, t, i);
            if (!(fabs(got - ref) <= mt_tol(t, ref))) { MT_FAIL(R, "in-place all_reduce %s [%zu]: %g vs %g", ak_dtype_name(t), i, got, ref); break; }
        }
        /* all_gather: rank k's c elements land at k * c */
        memset(out, 0xAB, (size_t)n * c * es);
        if (ak_all_gather(R->comm, t, in, out, c, NULL) != AK_OK) MT_FAIL(R, "all_gather: %s", ak_last_error());
        else {
            int k;
            for (k = 0; k < n; k++)
                if (memcmp((char*)out + (size_t)k * c * es, all_in[k], c * es) != 0) { MT_FAIL(R, "all_gather %s n=%d rank %d: block %d differs", ak_dtype_name(t), n, r, k); break; }
        }
        /* broadcast from the last rank */
        memset(out, 0xAB, c * es);
        if (ak_broadcast(R->comm, t, in, out, c, n - 1, NULL) != AK_OK) MT_FAIL(R, "broadcast: %s", ak_last_error());
        else if (memcmp(out, all_in[n - 1], c * es) != 0) MT_FAIL(R, "broadcast %s n=%d rank %d differs from root", ak_dtype_name(t), n, r);
        /* ring: send to r+1, receive from r-1 (one group) */
        memset(out, 0xAB, c * es);
        ak_comm_group_start();
        if (ak_send(R->comm, t, in, c, (r + 1) % n, NULL) != AK_OK) MT_FAIL(R, "send: %s", ak_last_error());
        if (ak_recv(R->comm, t, out, c, (r + n - 1) % n, NULL) != AK_OK) MT_FAIL(R, "recv: %s", ak_last_error());
        if (ak_comm_group_end() != AK_OK) MT_FAIL(R, "group (send/recv): %s", ak_last_error());
        else if (memcmp(out, all_in[(r + n - 1) % n], c * es) != 0) MT_FAIL(R, "ring %s n=%d rank %d: wrong data from rank %d", ak_dtype_name(t), n, r, (r + n - 1) % n);
        if (ak_all_reduce(R->comm, AK_REDUCE_SUM, AK_I32, NULL, NULL, 0, NULL) != AK_OK) MT_FAIL(R, "barrier: %s", ak_last_error());
        free(out);
    }
}

typedef struct { mt_rank* R; void** all_in; } mt_arg;
static void* mt_thread(void* p) { mt_arg* a = (mt_arg*)p; mt_run_rank(a->R, a->all_in); return NULL; }

static void mt_collectives(int n, int via_unique_id) {
    ak_context* ctx[8];
    ak_comm* comm[8];
    mt_rank R[8];
    mt_arg A[8];
    void* in[8];
    pthread_t th[8];
    int i;
    size_t count = 37;  /* divisible by none of 2, 3, 8 */
    char name[64];
    memset(comm, 0, sizeof comm);
    for (i = 0; i < n; i++) {
        snprintf(name, sizeof name, "multi_cc_%d", i);
        ctx[i] = akt_cpu_context(name);
        if (!ctx[i]) return;
        in[i] = malloc((size_t)n * count * 4 + 64);
    }
    if (!via_unique_id) {
        AKT_OK(ak_comm_init_all(ctx, n, comm));
    } else {
        ak_comm_id id;
        AKT_OK(ak_comm_get_unique_id(ctx[0], &id));
        for (i = 0; i < n; i++) AKT_OK(ak_comm_init_rank(ctx[i], n, &id, i, &comm[i]));
    }
    for (i = 0; i < n; i++) {
        if (!comm[i]) goto done;
        AKT_EQ_INT(ak_comm_rank(comm[i]), i);
        AKT_EQ_INT(ak_comm_size(comm[i]), n);
        AKT_CHECK(ak_comm_context(comm[i]) == ctx[i]);
        AKT_CONTAINS(ak_comm_library(comm[i]), "cpu");
    }
    for (i = 0; i < n; i++) {
        memset(&R[i], 0, sizeof R[i]);
        R[i].n = n; R[i].rank = i; R[i].comm = comm[i]; R[i].count = count; R[i].seed = akt_seed() + (unsigned long long)n;
        A[i].R = &R[i]; A[i].all_in = in;
        pthread_create(&th[i], NULL, mt_thread, &A[i]);
    }
    for (i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        AKT_CHECKF(R[i].failures == 0, "n=%d rank %d: %d failures, first: %s", n, i, R[i].failures, R[i].first);
    }
done:
    for (i = 0; i < n; i++) { ak_comm_destroy(comm[i]); ak_context_destroy(ctx[i]); free(in[i]); }
}
static void test_collectives_1_rank(void) { mt_collectives(1, 0); }
static void test_collectives_2_ranks(void) { mt_collectives(2, 0); }
static void test_collectives_3_ranks_unique_id(void) { mt_collectives(3, 1); }
static void test_collectives_8_ranks(void) { mt_collectives(8, 0); }

/* One thread drives every rank: each round of calls in a group. */
static void test_collectives_one_thread_groups(void) {
    enum { N = 3, C = 11 };
    ak_context* ctx[N];
    ak_comm* comm[N];
    float in[N][N * C], out[N][N * C];
    int i, k, ti;
    size_t j;
    for (i = 0; i < N; i++) { char nm[32]; snprintf(nm, sizeof nm, "multi_grp_%d", i); if (!(ctx[i] = akt_cpu_context(nm))) return; }
    AKT_OK(ak_comm_init_all(ctx, N, comm));
    for (ti = 0; ti < 2; ti++) {
        for (i = 0; i < N; i++) mt_fill(in[i], AK_F32, N * C, i, akt_seed() + (unsigned long long)ti);
        AKT_OK(ak_comm_group_start());
        for (i = 0; i < N; i++) AKT_OK(ak_all_reduce(comm[i], AK_REDUCE_MAX, AK_F32, in[i], out[i], C, NULL));
        AKT_OK(ak_comm_group_end());
        for (i = 0; i < N; i++)
            for (j = 0; j < C; j++) {
                float m = in[0][j];
                for (k = 1; k < N; k++) m = in[k][j] > m ? in[k][j] : m;
                AKT_CHECKF(out[i][j] == m, "rank %d [%zu]: %g vs %g", i, j, out[i][j], m);
            }
        /* nested group: work happens at the outermost end */
        AKT_OK(ak_comm_group_start());
        AKT_OK(ak_comm_group_start());
        for (i = 0; i < N; i++) AKT_OK(ak_all_gather(comm[i], AK_F32, in[i], out[i], C, NULL));
        AKT_OK(ak_comm_group_end());
        AKT_OK(ak_comm_group_end());
        for (i = 0; i < N; i++)
            for (k = 0; k < N; k++) AKT_CHECK(memcmp(out[i] + k * C, in[k], C * sizeof(float)) == 0);
        /* a ring of sends and receives posted by one thread in one group */
        AKT_OK(ak_comm_group_start());
        for (i = 0; i < N; i++) AKT_OK(ak_send(comm[i], AK_F32, in[i], C, (i + 1) % N, NULL));
        for (i = 0; i < N; i++) AKT_OK(ak_recv(comm[i], AK_F32, out[i], C, (i + N - 1) % N, NULL));
        AKT_OK(ak_comm_group_end());
        for (i = 0; i < N; i++) AKT_CHECK(memcmp(out[i], in[(i + N - 1) % N], C * sizeof(float)) == 0);
    }
    for (i = 0; i < N; i++) { ak_comm_destroy(comm[i]); ak_context_destroy(ctx[i]); }
}

static void test_collectives_errors(void) {
    enum { N = 2 };
    ak_context* ctx[N];
    ak_comm* comm[N];
    ak_comm* extra = NULL;
    ak_comm_id id;
    float a[8], b[8];
    int i;
    for (i = 0; i < N; i++) { char nm[32]; snprintf(nm, sizeof nm, "multi_err_%d", i); if (!(ctx[i] = akt_cpu_context(nm))) return; }
    memset(a, 0, sizeof a);
    AKT_ERR(ak_comm_init_all(ctx, 0, comm), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_comm_init_all(NULL, N, comm), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_OK(ak_comm_init_all(ctx, N, comm));
    AKT_ERR_ITEM(ak_all_reduce(NULL, AK_REDUCE_SUM, AK_F32, a, b, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_all_reduce(comm[0], AK_REDUCE_SUM, AK_F64, a, b, 1, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "f64");
    AKT_ERR(ak_all_reduce(comm[0], AK_REDUCE_ARGMAX, AK_F32, a, b, 8, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_all_reduce(comm[0], AK_REDUCE_SUM, AK_F32, NULL, b, 8, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_broadcast(comm[0], AK_F32, a, b, 8, 2, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_send(comm[0], AK_F32, a, 8, -1, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_comm_group_end(), AK_ERROR_INVALID_ARGUMENT);
    {
        ak_stream* s = NULL;
        AKT_OK(ak_stream_create(ctx[1], "other", 0, &s));
        AKT_ERR_ITEM(ak_all_reduce(comm[0], AK_REDUCE_SUM, AK_F32, a, b, 8, s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);
        ak_stream_destroy(s);
    }
    /* ranks that disagree: every rank gets the error, naming both calls */
    AKT_OK(ak_comm_group_start());
    AKT_OK(ak_all_reduce(comm[0], AK_REDUCE_SUM, AK_F32, a, b, 8, NULL));
    AKT_OK(ak_all_gather(comm[1], AK_F32, a, b, 4, NULL));
    AKT_ERR(ak_comm_group_end(), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "rank 0 called all_reduce(f32, count 8, sum)");
    AKT_CONTAINS(ak_last_error(), "rank 1 called all_gather(f32, count 4)");
    /* the communicator goes on after a refused call */
    AKT_OK(ak_comm_group_start());
    for (i = 0; i < N; i++) AKT_OK(ak_all_reduce(comm[i], AK_REDUCE_SUM, AK_F32, a, b, 8, NULL));
    AKT_OK(ak_comm_group_end());
    /* send / recv of different sizes */
    AKT_OK(ak_comm_group_start());
    AKT_OK(ak_send(comm[0], AK_F32, a, 8, 1, NULL));
    AKT_OK(ak_recv(comm[1], AK_F32, b, 4, 0, NULL));
    AKT_ERR(ak_comm_group_end(), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "recv posted for 4");
    /* ids */
    AKT_OK(ak_comm_get_unique_id(ctx[0], &id));
    AKT_OK(ak_comm_init_rank(ctx[0], 2, &id, 0, &extra));
    {
        ak_comm* e2 = NULL;
        AKT_ERR(ak_comm_init_rank(ctx[1], 3, &id, 1, &e2), AK_ERROR_INVALID_ARGUMENT);   /* says 3 ranks, made with 2 */
        AKT_ERR(ak_comm_init_rank(ctx[1], 2, &id, 0, &e2), AK_ERROR_INVALID_ARGUMENT);   /* rank 0 joined already */
        AKT_ERR(ak_comm_init_rank(ctx[1], 2, &id, 2, &e2), AK_ERROR_INVALID_ARGUMENT);   /* rank out of range */
        id.internal[16] ^= 0x55;                                                         /* another process' id */
        AKT_ERR(ak_comm_init_rank(ctx[1], 2, &id, 1, &e2), AK_ERROR_INVALID_ARGUMENT);
        AKT_CONTAINS(ak_last_error(), "one process");
        memset(&id, 0, sizeof id);
        AKT_ERR(ak_comm_init_rank(ctx[1], 2, &id, 1, &e2), AK_ERROR_INVALID_ARGUMENT);
        AKT_CHECK(e2 == NULL);
    }
    ak_comm_destroy(extra);
    for (i = 0; i < N; i++) { ak_comm_destroy(comm[i]); ak_context_destroy(ctx[i]); }
    ak_comm_destroy(NULL);
}

void akt_suite_multi(void) {
    AKT_RUN(test_device_enumeration);
    AKT_RUN(test_two_contexts_one_device);
    AKT_RUN(test_collectives_1_rank);
    AKT_RUN(test_collectives_2_ranks);
    AKT_RUN(test_collectives_3_ranks_unique_id);
    AKT_RUN(test_collectives_8_ranks);
    AKT_RUN(test_collectives_one_thread_groups);
    AKT_RUN(test_collectives_errors);
}
