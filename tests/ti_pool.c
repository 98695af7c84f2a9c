/* Internal tests of the memory pool (amdkit.h (>>impl:pool)): included by
 * tests/test_main.c after amdkit.h's implementation, so the static
 * internals are visible. Suite `pool_internals`.
 *
 * The pool's raw operations are replaced by fakes here: a device with an
 * optional capacity and injectable failures, and events whose completion
 * the test controls (a single fake queue of "work": an event is done when
 * the work issued before its record has been completed). */
#include <pthread.h>

/* ---- fakes ---- */
static size_t akti_cap;           /* fake device capacity (0: unlimited) */
static size_t akti_used;          /* bytes the fake device has handed out */
static int akti_fail_next;        /* fail this many allocations */
static long akti_allocs, akti_frees;
static unsigned long long akti_issued, akti_completed; /* fake work queue */
static long akti_ev_live, akti_ev_queries;
static int akti_auto_complete;    /* queries complete all work after this many (0: never) */
static int akti_ev_fail;          /* event creation fails */

typedef struct akti_seg { size_t size; } akti_seg;

static ak_result akti_alloc(ak_context* ctx, size_t n, void** out) {
    char* m;
    (void)ctx;
    *out = NULL;
    if (akti_fail_next > 0) { akti_fail_next--; return _ak_err(AK_ERROR_OUT_OF_MEMORY, "fake device: injected failure"); }
    if (akti_cap && akti_used + n > akti_cap) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "fake device: full");
    /* 256-byte header keeps the size; the pointer returned stays 256-aligned */
    if (posix_memalign((void**)&m, 256, n + 256) != 0) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "host");
    ((akti_seg*)(void*)m)->size = n;
    akti_used += n;
    akti_allocs++;
    *out = m + 256;
    return AK_OK;
}
static void akti_free(ak_context* ctx, void* p) {
    char* m = (char*)p - 256;
    (void)ctx;
    akti_used -= ((akti_seg*)(void*)m)->size;
    akti_frees++;
    free(m);
}
static ak_result akti_ev_create(ak_context* ctx, void** ev) {
    (void)ctx;
    if (akti_ev_fail) return _ak_err(AK_ERROR_DEVICE, "fake: event creation failed");
    *ev = calloc(1, sizeof(unsigned long long));
    if (!*ev) return AK_ERROR_OUT_OF_MEMORY;
    akti_ev_live++;
    return AK_OK;
}
static ak_result akti_ev_record(ak_context* ctx, void* ev, void* stream) {
    (void)ctx; (void)stream;
    *(unsigned long long*)ev = akti_issued;
    return AK_OK;
}
static int akti_ev_done(ak_context* ctx, void* ev) {
    (void)ctx;
    akti_ev_queries++;
    if (akti_auto_complete > 0 && --akti_auto_complete == 0) akti_completed = akti_issued;
    return *(unsigned long long*)ev <= akti_completed;
}
static void akti_ev_destroy(ak_context* ctx, void* ev) { (void)ctx; if (ev) { akti_ev_live--; free(ev); } }

/* A cpu context whose pool uses the fakes (pool limit `limit`, 0: none). */
static ak_context* akti_ctx(size_t limit) {
    ak_context* ctx = akt_cpu_context("pool_int");
    struct _ak_pool* p;
    if (!ctx) return NULL;
    p = ctx->pool;
    AKT_CHECK(p != NULL);
    if (!p) { ak_context_destroy(ctx); return NULL; }
    /* nothing allocated yet: swap the raw operations */
    p->ops.alloc = akti_alloc;
    p->ops.free = akti_free;
    p->ops.ev_create = akti_ev_create;
    p->ops.ev_record = akti_ev_record;
    p->ops.ev_done = akti_ev_done;
    p->ops.ev_destroy = akti_ev_destroy;
    p->enabled = 1;
    p->oom_protection = 1;
    p->limit = limit ? limit : (size_t)-1;
    akti_cap = 0; akti_used = 0; akti_fail_next = 0; akti_allocs = akti_frees = 0;
    akti_issued = akti_completed = 0; akti_ev_live = 0; akti_ev_queries = 0;
    akti_auto_complete = 0; akti_ev_fail = 0;
    return ctx;
}
static void akti_done(ak_context* ctx) {
    ak_context_destroy(ctx);
    AKT_EQ_INT(akti_used, 0);          /* every segment went back */
    AKT_EQ_INT(akti_allocs, akti_frees);
    AKT_EQ_INT(akti_ev_live, 0);       /* every event destroyed */
}
static void akti_stream(ak_context* ctx, ak_stream* s, const char* name) {
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    _ak_copy(s->name, sizeof s->name, name);
}
#define AKTI_CHECK_POOL(ctx) do { char akti_m_[512]; \
    if (_ak_pool_check((ctx)->pool, akti_m_, sizeof akti_m_)) akt_fail(__FILE__, __LINE__, "pool check: %s", akti_m_); } while (0)

static void akti_stats(ak_context* ctx, ak_pool_stats* st) { AKT_OK(ak_pool_stats_get(ctx, st)); }

/* ---- treap and hash map against simple models ---- */
static void test_pool_treap_model(void) {
    enum { N = 600 };
    static _ak_ptnode nodes[N];
    static int in[N];
    _ak_ptnode* root = NULL;
    unsigned long long seed = akt_seed() ^ 0x7ea9ull;
    int i, op;
    memset(in, 0, sizeof in);
    for (i = 0; i < N; i++) {
        memset(&nodes[i], 0, sizeof nodes[i]);
        nodes[i].k0 = (uintptr_t)(i % 3);
        nodes[i].k1 = (size_t)akt_uniform(&seed, 0, 50) * 256;
        nodes[i].k2 = (uintptr_t)(i + 1) * 4096;
        nodes[i].prio = (uint32_t)akt_uniform(&seed, 0, 4294967295.0);
    }
    for (op = 0; op < 20000; op++) {
        int k = (int)akt_uniform(&seed, 0, N);
        if (in[k]) { AKT_CHECK(_ak_treap_erase(&root, &nodes[k])); in[k] = 0; }
        else { _ak_treap_insert(&root, &nodes[k]); in[k] = 1; }
        if (op % 97 == 0) {
            /* lower bound of a random key equals the model's minimum */
            _ak_ptnode key, *got, *want = NULL;
            int j, cnt = 0;
            memset(&key, 0, sizeof key);
            key.k0 = (uintptr_t)akt_uniform(&seed, 0, 3);
            key.k1 = (size_t)akt_uniform(&seed, 0, 52) * 256;
            for (j = 0; j < N; j++) {
                if (!in[j]) continue;
                cnt++;
                if (_ak_treap_cmp(&nodes[j], &key) >= 0 && (!want || _ak_treap_cmp(&nodes[j], want) < 0)) want = &nodes[j];
            }
            got = _ak_treap_lower(root, &key);
            AKT_CHECK(got == want);
            AKT_EQ_INT(_ak_treap_count(root), cnt);
        }
    }
}
static void test_pool_hash_model(void) {
    enum { N = 3000 };
    static _ak_pblock vals[N];
    static int in[N];
    _ak_phash h;
    unsigned long long seed = akt_seed() ^ 0x4a5bull;
    int op, i;
    size_t cnt = 0;
    memset(&h, 0, sizeof h);
    memset(in, 0, sizeof in);
    AKT_CHECK(_ak_phash_get(&h, (void*)(uintptr_t)256) == NULL);
    for (op = 0; op < 60000; op++) {
        int k = (int)akt_uniform(&seed, 0, N);
        void* key = (void*)(uintptr_t)(0x7f0000000000ull + (uint64_t)k * 256 * 5);
        if (in[k]) { AKT_CHECK(_ak_phash_del(&h, key)); in[k] = 0; cnt--; }
        else { AKT_CHECK(_ak_phash_reserve(&h, h.count + 1)); _ak_phash_put_nogrow(&h, (uintptr_t)key, &vals[k]); in[k] = 1; cnt++; }
        if (op % 500 == 0) {
            for (i = 0; i < N; i++) {
                void* kk = (void*)(uintptr_t)(0x7f0000000000ull + (uint64_t)i * 256 * 5);
                AKT_CHECK(_ak_phash_get(&h, kk) == (in[i] ? &vals[i] : NULL));
            }
            AKT_EQ_INT(h.count, cnt);
        }
    }
    AKT_CHECK(!_ak_phash_del(&h, (void*)(uintptr_t)12345));
    _ak_phash_free(&h);
}

/* ---- streams and ordering events ---- */
static void test_pool_stream_event_order(void) {
    ak_context* ctx = akti_ctx(0);
    ak_stream A, B;
    void *x = NULL, *y = NULL, *z = NULL, *w = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    akti_stream(ctx, &A, "A");
    akti_stream(ctx, &B, "B");
    AKT_OK(ak_malloc(ctx, 4 << 20, &A, &x));      /* its own 4 MiB segment */
    akti_issued++;                                /* work on A uses x */
    AKT_OK(ak_free(ctx, x));
    /* the same stream takes it back at once */
    AKT_OK(ak_malloc(ctx, 4 << 20, &A, &y));
    AKT_CHECK(y == x);
    akti_issued++;
    AKT_OK(ak_free(ctx, y));
    /* another stream may not: the work is not done */
    AKT_OK(ak_malloc(ctx, 4 << 20, &B, &z));
    AKT_CHECK(z != x);
    akti_stats(ctx, &st);
    AKT_EQ_INT(st.runtime_allocs, 2);
    AKT_EQ_INT(akti_ev_live, 1);                  /* one event for A's blocks */
    AKTI_CHECK_POOL(ctx);
    /* still not for B after more misses (queries the same event) */
    AKT_OK(ak_malloc(ctx, 4 << 20, &B, &w));
    AKT_CHECK(w != x);
    AKT_OK(ak_free(ctx, w));
    /* B freed w itself: B takes w back, not x */
    AKT_OK(ak_malloc(ctx, 4 << 20, &B, &w));
    AKT_CHECK(w != x);
    /* the work completes: now B gets x */
    akti_completed = akti_issued;
    {
        void* v = NULL;
        AKT_OK(ak_malloc(ctx, 4 << 20, &B, &v));
        AKT_CHECK(v == x);
        AKT_OK(ak_free(ctx, v));
    }
    AKT_OK(ak_free(ctx, z));
    AKT_OK(ak_free(ctx, w));
    AKTI_CHECK_POOL(ctx);
    akti_done(ctx);
}

/* Events are shared per stream and recycled, never one per free. */
static void test_pool_event_reuse(void) {
    ak_context* ctx = akti_ctx(0);
    ak_stream A, B;
    void* p[64];
    int i, round;
    if (!ctx) return;
    akti_stream(ctx, &A, "A");
    akti_stream(ctx, &B, "B");
    for (round = 0; round < 20; round++) {
        for (i = 0; i < 64; i++) AKT_OK(ak_malloc(ctx, 8192, &A, &p[i]));
        akti_issued++;
        for (i = 0; i < 64; i++) AKT_OK(ak_free(ctx, p[i]));
        akti_completed = akti_issued;
        /* B asks for more than the free A blocks can give without events */
        AKT_OK(ak_malloc(ctx, 1 << 20, &B, &p[0]));
        AKT_OK(ak_free(ctx, p[0]));
        AKTI_CHECK_POOL(ctx);
    }
    AKT_CHECKF(ctx->pool->events_created <= 4, "events created: %llu", ctx->pool->events_created);
    akti_done(ctx);
}

/* Event creation failing: blocks stay with their stream, nothing breaks. */
static void test_pool_event_failure(void) {
    ak_context* ctx = akti_ctx(0);
    ak_stream A, B;
    void *x = NULL, *y = NULL;
    if (!ctx) return;
    akti_stream(ctx, &A, "A");
    akti_stream(ctx, &B, "B");
    akti_ev_fail = 1;
    AKT_OK(ak_malloc(ctx, 4 << 20, &A, &x));
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_malloc(ctx, 4 << 20, &B, &y));
    AKT_CHECK(y != x);
    AKT_OK(ak_free(ctx, y));
    AKT_OK(ak_pool_trim(ctx));  /* x cannot be proven idle: it stays */
    AKTI_CHECK_POOL(ctx);
    akti_ev_fail = 0;
    AKT_OK(ak_pool_trim(ctx));
    {
        ak_pool_stats st;
        akti_stats(ctx, &st);
        AKT_EQ_INT(st.reserved, 0);
    }
    akti_done(ctx);
}

/* A destroyed (synchronized) stream: its waiting blocks become ready, its
 * live blocks become ready when freed. */
static void test_pool_stream_destroyed(void) {
    ak_context* ctx = akti_ctx(0);
    ak_stream A, B;
    void *x = NULL, *y = NULL, *v = NULL;
    if (!ctx) return;
    akti_stream(ctx, &A, "A");
    akti_stream(ctx, &B, "B");
    AKT_OK(ak_malloc(ctx, 4 << 20, &A, &x));
    AKT_OK(ak_malloc(ctx, 6 << 20, &A, &y));
    akti_issued++;
    AKT_OK(ak_free(ctx, x));
    _ak_pool_stream_destroyed(ctx->pool, &A);
    AKTI_CHECK_POOL(ctx);
    AKT_OK(ak_malloc(ctx, 4 << 20, &B, &v));   /* event never done, but A is gone */
    AKT_CHECK(v == x);
    AKT_OK(ak_free(ctx, y));                    /* orphan: ready at once */
    AKT_OK(ak_malloc(ctx, 6 << 20, &B, &x));
    AKT_CHECK(x == y);
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_free(ctx, v));
    _ak_pool_stream_destroyed(ctx->pool, NULL); /* no-op */
    AKTI_CHECK_POOL(ctx);
    akti_done(ctx);
}

/* Neighbours waiting on different streams stay apart until ready. */
static void test_pool_merge_states(void) {
    ak_context* ctx = akti_ctx(0);
    ak_stream A, B;
    void *a = NULL, *b = NULL, *c = NULL, *d = NULL, *big = NULL, *big2 = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    akti_stream(ctx, &A, "A");
    akti_stream(ctx, &B, "B");
    AKT_OK(ak_malloc(ctx, 512 << 10, &A, &a));
    AKT_OK(ak_malloc(ctx, 512 << 10, &B, &b));
    AKT_OK(ak_malloc(ctx, 1 << 20, NULL, &c));
    AKT_CHECK((char*)b == (char*)a + (512 << 10));
    AKT_CHECK((char*)c == (char*)b + (512 << 10));
    akti_issued++;
    AKT_OK(ak_free(ctx, a));
    AKT_OK(ak_free(ctx, b));
    akti_stats(ctx, &st);
    AKT_EQ_INT(st.free_blocks, 2);      /* A's and B's pieces not merged */
    AKTI_CHECK_POOL(ctx);
    /* the default stream cannot take 1 MiB from them yet: a new segment,
     * kept full (big, big2) so it offers nothing later */
    AKT_OK(ak_malloc(ctx, 1 << 20, NULL, &big));
    AKT_OK(ak_malloc(ctx, 1 << 20, NULL, &big2));
    AKT_CHECK(big != a && big2 != a && big2 != b);
    akti_stats(ctx, &st);
    AKT_EQ_INT(st.runtime_allocs, 2);
    akti_completed = akti_issued;
    AKT_OK(ak_malloc(ctx, 1 << 20, NULL, &d));    /* poll: both ready and merged */
    AKT_CHECK(d == a);
    akti_stats(ctx, &st);
    AKT_EQ_INT(st.runtime_allocs, 2);
    AKTI_CHECK_POOL(ctx);
    AKT_OK(ak_free(ctx, big));
    AKT_OK(ak_free(ctx, big2));
    AKT_OK(ak_free(ctx, d));
    AKT_OK(ak_free(ctx, c));
    AKTI_CHECK_POOL(ctx);
    akti_stats(ctx, &st);
    AKT_EQ_INT(st.in_use, 0);
    akti_done(ctx);
}

/* ---- runtime failure, OOM protection, trim waiting for work ---- */
static void test_pool_runtime_oom(void) {
    ak_context* ctx = akti_ctx(0);
    void *a = NULL, *b = NULL, *c = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    akti_cap = 10u << 20;                          /* the fake device has 10 MiB */
    AKT_OK(ak_malloc(ctx, 4 << 20, NULL, &a));
    AKT_OK(ak_malloc(ctx, 4 << 20, NULL, &b));
    AKT_OK(ak_free(ctx, a));
    AKT_OK(ak_malloc(ctx, 6 << 20, NULL, &c));      /* runtime fails, cached a released, retry ok */
    akti_stats(ctx, &st);
    AKT_EQ_INT(st.oom_retries, 1);
    AKT_EQ_INT(st.oom_count, 0);
    AKT_EQ_INT(st.reserved, 10u << 20);
    AKT_OK(ak_free(ctx, c));
    /* injected failure on a request with nothing cached to free:
     * the retry (runtime memory came back) succeeds */
    AKT_OK(ak_pool_trim(ctx));
    akti_fail_next = 1;
    AKT_OK(ak_malloc(ctx, 2 << 20, NULL, &a));
    akti_stats(ctx, &st);
    AKT_EQ_INT(st.oom_retries, 2);
    /* two failures: out of memory with the runtime's message */
    akti_fail_next = 2;
    AKT_ERR_ITEM(ak_malloc(ctx, 2 << 20, NULL, &c), AK_ERROR_OUT_OF_MEMORY, AK_ERRITEM_POOL_LIMIT);
    AKT_CONTAINS(ak_last_error(), "injected failure");
    AKT_CONTAINS(ak_last_error(), "runtime allocation failed");
    AKT_CHECK(c == NULL);
    /* without protection: no retry */
    ctx->pool->oom_protection = 0;
    akti_fail_next = 1;
    AKT_ERR_ITEM(ak_malloc(ctx, 2 << 20, NULL, &c), AK_ERROR_OUT_OF_MEMORY, AK_ERRITEM_POOL_LIMIT);
    akti_stats(ctx, &st);
    AKT_EQ_INT(st.oom_retries, 3);
    AKT_EQ_INT(st.oom_count, 2);
    AKT_OK(ak_free(ctx, a));
    AKT_OK(ak_free(ctx, b));
    AKTI_CHECK_POOL(ctx);
    akti_done(ctx);
}
static void test_pool_trim_waits_for_work(void) {
    ak_context* ctx = akti_ctx(0);
    ak_stream A;
    void* x = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    akti_stream(ctx, &A, "A");
    AKT_OK(ak_malloc(ctx, 4 << 20, &A, &x));
    akti_issued++;
    AKT_OK(ak_free(ctx, x));
    akti_auto_complete = 5;                   /* the work finishes after a few queries */
    AKT_OK(ak_pool_trim(ctx));
    AKT_CHECK(akti_completed == akti_issued); /* trim waited for it */
    akti_stats(ctx, &st);
    AKT_EQ_INT(st.reserved, 0);
    AKT_EQ_INT(akti_used, 0);
    AKTI_CHECK_POOL(ctx);
    akti_done(ctx);
}

/* ---- random sequences against a model, with streams and events ---- */
typedef struct akti_live { char* p; size_t n; int sid; unsigned char pat; } akti_live;
typedef struct akti_freed { char* p; size_t n; int sid; unsigned long long need; } akti_freed;

/* Streams have identities (sid); a "destroyed" stream is replaced by a new
 * object, and its live blocks queue no more work. sid -1: default stream. */
static void test_pool_random_model(void) {
    enum { MAXL = 400, MAXF = 4000, NS = 3, MAXSTREAMS = 64 };
    static akti_live live[MAXL];
    static akti_freed fr[MAXF];
    static ak_stream SS[MAXSTREAMS];
    static int dead[MAXSTREAMS];
    int cur[NS], nstreams = 0;
    ak_context* ctx = akti_ctx(96u << 20);
    unsigned long long seed = akt_seed() ^ 0x9001ull;
    int nl = 0, nf = 0, op, i, j, violations = 0, ooms = 0;
    if (!ctx) return;
    memset(dead, 0, sizeof dead);
    for (i = 0; i < NS; i++) { akti_stream(ctx, &SS[nstreams], "s"); cur[i] = nstreams++; }
    for (op = 0; op < 12000; op++) {
        double r = akt_uniform(&seed, 0, 1);
        if (r < 0.48 && nl < MAXL) {
            size_t n;
            int si = (int)akt_uniform(&seed, 0, NS + 1);
            int sid = si < NS ? cur[si] : -1;
            double kind = akt_uniform(&seed, 0, 1);
            void* v = NULL;
            ak_result rr;
            if (kind < 0.7) n = 1 + (size_t)akt_uniform(&seed, 0, 64 * 1024);
            else if (kind < 0.9) n = 1 + (size_t)akt_uniform(&seed, 0, 1 << 20);
            else n = (1 << 20) + (size_t)akt_uniform(&seed, 0, 12 << 20);
            akti_auto_complete = 300;  /* an OOM release waiting for work sees it finish */
            rr = ak_malloc(ctx, n, sid >= 0 ? &SS[sid] : NULL, &v);
            akti_auto_complete = 0;
            if (rr == AK_ERROR_OUT_OF_MEMORY) { ooms++; AKT_CONTAINS(ak_last_error(), "limit"); continue; }
            AKT_OK(rr);
            if (!v) continue;
            AKT_CHECK(((uintptr_t)v & 255) == 0);
            /* no overlap with a live block */
            for (i = 0; i < nl; i++)
                if ((char*)v < live[i].p + live[i].n && live[i].p < (char*)v + n) { AKT_CHECKF(0, "overlap of %p", v); break; }
            /* memory freed on another stream: its work must be complete */
            for (i = 0; i < nf; i++) {
                if ((char*)v < fr[i].p + fr[i].n && fr[i].p < (char*)v + n) {
                    if (fr[i].sid != sid && fr[i].need > akti_completed) violations++;
                    fr[i] = fr[--nf];
                    i--;
                }
            }
            live[nl].p = (char*)v; live[nl].n = n; live[nl].sid = sid;
            live[nl].pat = (unsigned char)akt_uniform(&seed, 1, 255);
            memset(v, live[nl].pat, n < 4096 ? n : 4096);
            memset((char*)v + (n > 4096 ? n - 4096 : 0), live[nl].pat, n < 4096 ? n : 4096);
            nl++;
        } else if (r < 0.93 && nl > 0) {
            int k = (int)akt_uniform(&seed, 0, nl);
            size_t n = live[k].n, m = n < 4096 ? n : 4096;
            int gone = live[k].sid >= 0 && dead[live[k].sid];
            for (j = 0; j < (int)m; j++) if ((unsigned char)live[k].p[j] != live[k].pat) break;
            AKT_CHECKF(j == (int)m, "pattern of block %p damaged", (void*)live[k].p);
            for (j = 0; j < (int)m; j++) if ((unsigned char)live[k].p[n - m + j] != live[k].pat) break;
            AKT_CHECKF(j == (int)m, "tail pattern of block %p damaged", (void*)live[k].p);
            if (!gone) akti_issued++;  /* work queued on the block's stream (none on a destroyed one) */
            AKT_OK(ak_free(ctx, live[k].p));
            if (nf < MAXF && !gone) {
                fr[nf].p = live[k].p; fr[nf].n = n; fr[nf].sid = live[k].sid; fr[nf].need = akti_issued; nf++;
            }
            live[k] = live[--nl];
        } else if (r < 0.97) {
            akti_completed += (unsigned long long)akt_uniform(&seed, 0, 4);  /* some work finishes */
            if (akti_completed > akti_issued) akti_completed = akti_issued;
        } else if (r < 0.98) {
            akti_completed = akti_issued;   /* (trim would wait for the work anyway) */
            AKT_OK(ak_pool_trim(ctx));
        } else if (r < 0.985 && nstreams < MAXSTREAMS) {
            int si = (int)akt_uniform(&seed, 0, NS);
            /* the stream is synchronized (its work is done) and destroyed */
            akti_completed = akti_issued;
            _ak_pool_stream_destroyed(ctx->pool, &SS[cur[si]]);
            dead[cur[si]] = 1;
            akti_stream(ctx, &SS[nstreams], "s");
            cur[si] = nstreams++;
        }
        if (op % 200 == 0) AKTI_CHECK_POOL(ctx);
    }
    AKT_EQ_INT(violations, 0);
    {
        ak_pool_stats st;
        size_t sum = 0;
        akti_stats(ctx, &st);
        for (i = 0; i < nl; i++) sum += live[i].n;
        AKT_CHECK(st.in_use >= sum);
        AKT_CHECK(st.reserved <= (96u << 20));
        AKT_CHECK(st.peak_reserved <= (96u << 20));
        AKT_EQ_INT(st.oom_count, ooms);
    }
    for (i = 0; i < nl; i++) AKT_OK(ak_free(ctx, live[i].p));
    AKTI_CHECK_POOL(ctx);
    akti_completed = akti_issued;
    AKT_OK(ak_pool_trim(ctx));
    {
        ak_pool_stats st;
        akti_stats(ctx, &st);
        AKT_EQ_INT(st.in_use, 0);
        AKT_EQ_INT(st.reserved, 0);
        AKT_EQ_INT(st.free_blocks, 0);
        AKT_EQ_INT(st.allocations, st.frees);
    }
    akti_done(ctx);
}

/* Bad pointers leave the structures intact (checked internally). */
static void test_pool_bad_pointers_intact(void) {
    ak_context* ctx = akti_ctx(0);
    void *a = NULL, *b = NULL, *c = NULL;
    int local = 0;
    if (!ctx) return;
    AKT_OK(ak_malloc(ctx, 1000, NULL, &a));
    AKT_OK(ak_malloc(ctx, 1000, NULL, &b));
    AKT_OK(ak_malloc(ctx, 3 << 20, NULL, &c));
    AKT_OK(ak_free(ctx, a));
    AKT_ERR_ITEM(ak_free(ctx, a), AK_ERROR_MEMORY, AK_ERRITEM_DOUBLE_FREE);
    AKT_ITEM(AK_ERRITEM_DOUBLE_FREE);
    AKT_ERR_ITEM(ak_free(ctx, (char*)b + 256), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_ITEM(AK_ERRITEM_FOREIGN_POINTER);
    AKT_ERR_ITEM(ak_free(ctx, (char*)c + (1 << 20)), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_ITEM(AK_ERRITEM_FOREIGN_POINTER);
    AKT_ERR_ITEM(ak_free(ctx, &local), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_ITEM(AK_ERRITEM_FOREIGN_POINTER);
    AKT_ERR_ITEM(ak_free(ctx, (char*)a + 8), AK_ERROR_MEMORY, AK_ERRITEM_DOUBLE_FREE);   /* inside free memory */
    AKTI_CHECK_POOL(ctx);
    AKT_OK(ak_free(ctx, b));
    AKT_OK(ak_free(ctx, c));
    AKTI_CHECK_POOL(ctx);
    akti_done(ctx);
}

void akt_suite_pool_internals(void) {
    AKT_RUN(test_pool_treap_model);
    AKT_RUN(test_pool_hash_model);
    AKT_RUN(test_pool_stream_event_order);
    AKT_RUN(test_pool_event_reuse);
    AKT_RUN(test_pool_event_failure);
    AKT_RUN(test_pool_stream_destroyed);
    AKT_RUN(test_pool_merge_states);
    AKT_RUN(test_pool_runtime_oom);
    AKT_RUN(test_pool_trim_waits_for_work);
    AKT_RUN(test_pool_random_model);
    AKT_RUN(test_pool_bad_pointers_intact);
}
