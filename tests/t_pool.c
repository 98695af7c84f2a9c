/* Memory pool through the public API, on the cpu backend (host memory). */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>
#include <pthread.h>

#define MiB ((size_t)1 << 20)
#define KiB ((size_t)1 << 10)

/* A cpu context with pool settings. */
static ak_context* pool_ctx(const char* sub, int enabled, long long pool_size, int oom_protection) {
    static char dir[600];
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU;
    snprintf(dir, sizeof dir, "%s/%s", akt_tmpdir(), sub);
    cfg.cache_dir = dir;
    cfg.log_level = AK_LOG_NONE;
    cfg.pool_enabled = enabled;
    cfg.pool_size = pool_size;
    cfg.oom_protection = oom_protection;
    if (ak_context_create(&cfg, &ctx) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "cpu context: %s", ak_last_error());
        return NULL;
    }
    return ctx;
}
static ak_pool_stats stats(ak_context* ctx) {
    ak_pool_stats st;
    memset(&st, 0, sizeof st);
    AKT_OK(ak_pool_stats_get(ctx, &st));
    return st;
}

static void test_pool_alignment_no_overlap(void) {
    ak_context* ctx = akt_cpu_context("pool");
    static const size_t sizes[] = { 1, 7, 255, 256, 257, 1000, 4096, 65537, 300000, 1 << 20, (1 << 20) + 1, 3000000, 9 << 20 };
    enum { NS = sizeof sizes / sizeof sizes[0] };
    void* p[NS];
    int i, j;
    if (!ctx) return;
    for (i = 0; i < NS; i++) {
        AKT_OK(ak_malloc(ctx, sizes[i], NULL, &p[i]));
        AKT_CHECK(p[i] != NULL);
        AKT_CHECKF(((uintptr_t)p[i] % 256) == 0, "%p not 256-byte aligned", p[i]);
        memset(p[i], 0x10 + i, sizes[i]);
    }
    for (i = 0; i < NS; i++) {
        const unsigned char* c = (const unsigned char*)p[i];
        size_t k;
        for (k = 0; k < sizes[i]; k++) if (c[k] != (unsigned char)(0x10 + i)) break;
        AKT_CHECKF(k == sizes[i], "block %d damaged at byte %zu", i, k);
        for (j = 0; j < NS; j++)
            if (j != i) AKT_CHECK((char*)p[i] + sizes[i] <= (char*)p[j] || (char*)p[j] + sizes[j] <= (char*)p[i]);
    }
    for (i = 0; i < NS; i++) AKT_OK(ak_free(ctx, p[i]));
    AKT_EQ_INT(stats(ctx).in_use, 0);
    ak_context_destroy(ctx);
}

static void test_pool_reuse(void) {
    ak_context* ctx = akt_cpu_context("pool");
    void *a = NULL, *b = NULL;
    ak_pool_stats st;
    int i;
    if (!ctx) return;
    AKT_OK(ak_malloc(ctx, 5000, NULL, &a));
    AKT_OK(ak_free(ctx, a));
    for (i = 0; i < 100; i++) {
        AKT_OK(ak_malloc(ctx, 5000, NULL, &b));
        AKT_CHECK(b == a);
        AKT_OK(ak_free(ctx, b));
    }
    st = stats(ctx);
    AKT_EQ_INT(st.runtime_allocs, 1);
    AKT_EQ_INT(st.cache_hits, 100);
    AKT_EQ_INT(st.allocations, 101);
    AKT_EQ_INT(st.frees, 101);
    AKT_EQ_INT(st.blocks, 1);
    ak_context_destroy(ctx);
}

/* a, b, c fill a 1 MiB run of one small segment; freed, they merge and one
 * allocation of their total size reuses them without a new segment. */
static void test_pool_split_merge(void) {
    ak_context* ctx = akt_cpu_context("pool");
    void *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    AKT_OK(ak_malloc(ctx, 256 * KiB, NULL, &a));
    AKT_OK(ak_malloc(ctx, 256 * KiB, NULL, &b));
    AKT_OK(ak_malloc(ctx, 512 * KiB, NULL, &c));
    AKT_OK(ak_malloc(ctx, 1 * MiB, NULL, &d));      /* the rest of the 2 MiB segment */
    AKT_CHECK((char*)b == (char*)a + 256 * KiB);     /* split from one segment */
    AKT_CHECK((char*)c == (char*)b + 256 * KiB);
    AKT_CHECK((char*)d == (char*)c + 512 * KiB);
    st = stats(ctx);
    AKT_EQ_INT(st.blocks, 1);
    AKT_EQ_INT(st.free_blocks, 0);
    AKT_OK(ak_free(ctx, b));
    AKT_OK(ak_free(ctx, a));
    AKT_OK(ak_free(ctx, c));
    st = stats(ctx);
    AKT_EQ_INT(st.free_blocks, 1);                   /* merged into one */
    AKT_OK(ak_malloc(ctx, 1 * MiB, NULL, &e));
    AKT_CHECK(e == a);
    st = stats(ctx);
    AKT_EQ_INT(st.runtime_allocs, 1);
    AKT_EQ_INT(st.blocks, 1);
    AKT_OK(ak_free(ctx, e));
    AKT_OK(ak_free(ctx, d));
    st = stats(ctx);
    AKT_EQ_INT(st.free_blocks, 1);                   /* the whole segment again */
    AKT_EQ_INT(st.in_use, 0);
    ak_context_destroy(ctx);
}

/* Holes of 64, 32 and 128 KiB: requests take the smallest that fits. */
static void test_pool_best_fit(void) {
    ak_context* ctx = akt_cpu_context("pool");
    void *h1, *s1, *h2, *s2, *h3, *s3, *f1, *f2, *x = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    AKT_OK(ak_malloc(ctx, 64 * KiB, NULL, &h1));
    AKT_OK(ak_malloc(ctx, 4 * KiB, NULL, &s1));
    AKT_OK(ak_malloc(ctx, 32 * KiB, NULL, &h2));
    AKT_OK(ak_malloc(ctx, 4 * KiB, NULL, &s2));
    AKT_OK(ak_malloc(ctx, 128 * KiB, NULL, &h3));
    AKT_OK(ak_malloc(ctx, 4 * KiB, NULL, &s3));
    AKT_OK(ak_malloc(ctx, 1024 * KiB, NULL, &f1));
    AKT_OK(ak_malloc(ctx, (2048 - 64 - 4 - 32 - 4 - 128 - 4 - 1024) * KiB, NULL, &f2));
    AKT_CHECK((char*)f2 == (char*)h1 + 1260 * KiB);  /* one segment, in order */
    AKT_EQ_INT(stats(ctx).blocks, 1);
    AKT_OK(ak_free(ctx, h3));
    AKT_OK(ak_free(ctx, h1));
    AKT_OK(ak_free(ctx, h2));
    AKT_EQ_INT(stats(ctx).free_blocks, 3);
    AKT_OK(ak_malloc(ctx, 30 * KiB, NULL, &x));
    AKT_CHECK(x == h2);
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_malloc(ctx, 60 * KiB, NULL, &x));
    AKT_CHECK(x == h1);
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_malloc(ctx, 100 * KiB, NULL, &x));
    AKT_CHECK(x == h3);
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_malloc(ctx, 16 * KiB, NULL, &x));       /* split from the 32 KiB hole */
    AKT_CHECK(x == h2);
    st = stats(ctx);
    AKT_EQ_INT(st.runtime_allocs, 1);
    AKT_EQ_INT(st.free_blocks, 3);                    /* 64, 16 (rest of h2), 128 */
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_free(ctx, s1)); AKT_OK(ak_free(ctx, s2)); AKT_OK(ak_free(ctx, s3));
    AKT_OK(ak_free(ctx, f1)); AKT_OK(ak_free(ctx, f2));
    AKT_EQ_INT(stats(ctx).free_blocks, 1);
    ak_context_destroy(ctx);
}

/* A cached block more than 2x the request and 8 MiB above it is not split
 * for it; a block close in size is. */
static void test_pool_oversize_rule(void) {
    ak_context* ctx = akt_cpu_context("pool");
    void *x = NULL, *y = NULL, *z = NULL, *w = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    AKT_OK(ak_malloc(ctx, 64 * MiB, NULL, &x));
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_malloc(ctx, 4 * MiB, NULL, &y));        /* oversize: own segment */
    AKT_CHECK(y != x);
    st = stats(ctx);
    AKT_EQ_INT(st.runtime_allocs, 2);
    AKT_EQ_INT(st.reserved, 68 * MiB);
    AKT_OK(ak_malloc(ctx, 40 * MiB, NULL, &z));       /* 64 <= 2 x 40: split */
    AKT_CHECK(z == x);
    AKT_OK(ak_malloc(ctx, 24 * MiB, NULL, &w));       /* the 24 MiB rest */
    AKT_CHECK((char*)w == (char*)x + 40 * MiB);
    st = stats(ctx);
    AKT_EQ_INT(st.runtime_allocs, 2);
    AKT_EQ_INT(st.cache_hits, 2);
    AKT_OK(ak_free(ctx, y));
    AKT_OK(ak_free(ctx, z));
    AKT_OK(ak_free(ctx, w));
    /* a small request never takes a large block */
    AKT_OK(ak_malloc(ctx, 1000, NULL, &y));
    AKT_CHECK(y != x);
    AKT_EQ_INT(stats(ctx).runtime_allocs, 3);
    AKT_OK(ak_free(ctx, y));
    ak_context_destroy(ctx);
}

/* On cpu, work is done when it is queued: a block freed on one stream is
 * reused by another (after the pool's ordering event says so). */
static void test_pool_streams(void) {
    ak_context* ctx = akt_cpu_context("pool");
    ak_context* other = akt_cpu_context("pool2");
    ak_stream *A = NULL, *B = NULL, *C = NULL;
    void *x = NULL, *y = NULL;
    if (!ctx || !other) { ak_context_destroy(ctx); ak_context_destroy(other); return; }
    AKT_OK(ak_stream_create(ctx, "A", 0, &A));
    AKT_OK(ak_stream_create(ctx, "B", 0, &B));
    AKT_OK(ak_stream_create(other, "C", 0, &C));
    AKT_OK(ak_malloc(ctx, 3 * MiB, A, &x));
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_malloc(ctx, 3 * MiB, A, &y));
    AKT_CHECK(y == x);
    AKT_OK(ak_free(ctx, y));
    AKT_OK(ak_malloc(ctx, 3 * MiB, B, &y));
    AKT_CHECK(y == x);
    AKT_EQ_INT(stats(ctx).runtime_allocs, 1);
    /* freed after its stream is destroyed */
    ak_stream_destroy(B);
    AKT_OK(ak_free(ctx, y));
    AKT_OK(ak_malloc(ctx, 3 * MiB, NULL, &y));
    AKT_CHECK(y == x);
    AKT_OK(ak_free(ctx, y));
    /* a stream of another context */
    AKT_ERR_ITEM(ak_malloc(ctx, 100, C, &y), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);
    ak_stream_destroy(A);
    ak_stream_destroy(C);
    ak_context_destroy(ctx);
    ak_context_destroy(other);
}

static void test_pool_limit(void) {
    ak_context* ctx = pool_ctx("pool_limit", 1, (long long)(8 * MiB), 1);
    void *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    AKT_EQ_INT(stats(ctx).limit, 8 * MiB);
    AKT_OK(ak_malloc(ctx, 4 * MiB, NULL, &a));
    AKT_OK(ak_malloc(ctx, 4 * MiB, NULL, &b));          /* exactly the limit */
    AKT_ERR_ITEM(ak_malloc(ctx, 256, NULL, &c), AK_ERROR_OUT_OF_MEMORY, AK_ERRITEM_POOL_LIMIT);
    AKT_CHECK(c == NULL);
    AKT_CONTAINS(ak_last_error(), "out of memory");
    AKT_CONTAINS(ak_last_error(), "256 bytes");           /* the request */
    AKT_CONTAINS(ak_last_error(), "(8388608 bytes) in use");
    AKT_CONTAINS(ak_last_error(), "(8388608 bytes) reserved");
    AKT_CONTAINS(ak_last_error(), "limit 8.00 MiB (8388608 bytes)");
    AKT_CONTAINS(ak_last_error(), "device");
    AKT_CONTAINS(ak_last_error(), "total");
    st = stats(ctx);
    AKT_EQ_INT(st.oom_count, 1);
    AKT_EQ_INT(st.oom_retries, 1);                        /* nothing cached to free */
    AKT_EQ_INT(st.reserved, 8 * MiB);
    /* two 4 MiB blocks cached, a 6 MiB request: the cache is freed, then it fits */
    AKT_OK(ak_free(ctx, a));
    AKT_OK(ak_free(ctx, b));
    st = stats(ctx);
    AKT_EQ_INT(st.reserved, 8 * MiB);
    AKT_EQ_INT(st.free_blocks, 2);
    AKT_OK(ak_malloc(ctx, 6 * MiB, NULL, &d));
    st = stats(ctx);
    AKT_EQ_INT(st.oom_retries, 2);
    AKT_EQ_INT(st.oom_count, 1);
    AKT_EQ_INT(st.reserved, 6 * MiB);
    AKT_EQ_INT(st.free_blocks, 0);
    AKT_CHECK(st.peak_reserved <= 8 * MiB);
    AKT_OK(ak_free(ctx, d));
    ak_context_destroy(ctx);
}

static void test_pool_limit_no_protection(void) {
    ak_context* ctx = pool_ctx("pool_limit", 1, (long long)(8 * MiB), 0);
    void *a = NULL, *b = NULL, *d = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    AKT_OK(ak_malloc(ctx, 4 * MiB, NULL, &a));
    AKT_OK(ak_malloc(ctx, 2 * MiB, NULL, &b));
    AKT_OK(ak_free(ctx, a));
    AKT_ERR_ITEM(ak_malloc(ctx, 6 * MiB, NULL, &d), AK_ERROR_OUT_OF_MEMORY, AK_ERRITEM_POOL_LIMIT);
    st = stats(ctx);
    AKT_EQ_INT(st.oom_retries, 0);
    AKT_EQ_INT(st.oom_count, 1);
    AKT_OK(ak_pool_trim(ctx));                            /* by hand instead */
    AKT_OK(ak_malloc(ctx, 6 * MiB, NULL, &d));
    AKT_OK(ak_free(ctx, b));
    AKT_OK(ak_free(ctx, d));
    ak_context_destroy(ctx);
}

static void test_pool_bad_arguments(void) {
    ak_context* ctx = akt_cpu_context("pool");
    void *a = NULL, *b = NULL, *v = (void*)&a;
    ak_pool_stats before, after;
    int local = 0;
    void* heap = malloc(1024);
    if (!ctx) { free(heap); return; }
    AKT_OK(ak_malloc(ctx, 1000, NULL, &a));
    AKT_OK(ak_malloc(ctx, 5 * MiB, NULL, &b));
    before = stats(ctx);
    AKT_OK(ak_free(ctx, NULL));
    AKT_OK(ak_free(NULL, NULL));
    AKT_ERR_ITEM(ak_malloc(ctx, 0, NULL, &v), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_CHECK(v == NULL);
    AKT_ERR(ak_malloc(ctx, (size_t)-1 / 2 + 1, NULL, &v), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_malloc(ctx, (size_t)-1, NULL, &v), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_malloc(NULL, 16, NULL, &v), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_malloc(ctx, 16, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_free(NULL, a), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_free(ctx, &local), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_ITEM(AK_ERRITEM_FOREIGN_POINTER);
    AKT_ERR_ITEM(ak_free(ctx, heap), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_ERR_ITEM(ak_free(ctx, (char*)a + 256), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_ITEM(AK_ERRITEM_FOREIGN_POINTER);
    AKT_ERR_ITEM(ak_free(ctx, (char*)a + 1), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_ERR_ITEM(ak_free(ctx, (char*)b + 3 * MiB), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_ITEM(AK_ERRITEM_FOREIGN_POINTER);
    AKT_ERR(ak_pool_stats_get(NULL, &after), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_pool_stats_get(ctx, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_pool_trim(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    after = stats(ctx);
    AKT_CHECK(memcmp(&before, &after, sizeof before) == 0);  /* nothing changed */
    AKT_OK(ak_free(ctx, a));
    {
        char msg[64];
        snprintf(msg, sizeof msg, "%p", a);
        AKT_ERR_ITEM(ak_free(ctx, a), AK_ERROR_MEMORY, AK_ERRITEM_DOUBLE_FREE);           /* double free */
        AKT_ITEM(AK_ERRITEM_DOUBLE_FREE);
        AKT_CONTAINS(ak_last_error(), msg);                  /* names the pointer */
    }
    AKT_OK(ak_free(ctx, b));
    AKT_ERR_ITEM(ak_free(ctx, b), AK_ERROR_MEMORY, AK_ERRITEM_DOUBLE_FREE);
    AKT_OK(ak_pool_trim(ctx));
    AKT_ERR_ITEM(ak_free(ctx, b), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);               /* after its segment went back */
    /* still fully working */
    AKT_OK(ak_malloc(ctx, 1000, NULL, &a));
    AKT_OK(ak_free(ctx, a));
    after = stats(ctx);
    AKT_EQ_INT(after.in_use, 0);
    AKT_EQ_INT(after.frees, after.allocations);
    free(heap);
    ak_context_destroy(ctx);
}

static void test_pool_trim_and_stats(void) {
    ak_context* ctx = akt_cpu_context("pool");
    void* p[10];
    ak_pool_stats st;
    int i;
    if (!ctx) return;
    for (i = 0; i < 5; i++) AKT_OK(ak_malloc(ctx, 100 * KiB, NULL, &p[i]));      /* one small segment */
    for (i = 5; i < 10; i++) AKT_OK(ak_malloc(ctx, (size_t)(i - 3) * MiB, NULL, &p[i])); /* five large */
    st = stats(ctx);
    AKT_EQ_INT(st.blocks, 6);
    AKT_EQ_INT(st.in_use, 500 * KiB + (2 + 3 + 4 + 5 + 6) * MiB);
    AKT_EQ_INT(st.reserved, 2 * MiB + (2 + 4 + 4 + 6 + 6) * MiB);
    AKT_CHECK(st.in_use <= st.reserved && st.reserved <= st.limit);
    AKT_EQ_INT(st.peak_in_use, st.in_use);
    AKT_EQ_INT(st.peak_reserved, st.reserved);
    AKT_EQ_INT(st.allocations, 10);
    AKT_EQ_INT(st.runtime_allocs, 6);
    AKT_EQ_INT(st.cache_hits, 4);
    AKT_CHECK(st.limit > 0);
    for (i = 0; i < 10; i += 2) AKT_OK(ak_free(ctx, p[i]));  /* 0,2,4 small; 6 (4 MiB), 8 (6 MiB) */
    AKT_OK(ak_pool_trim(ctx));
    st = stats(ctx);
    AKT_EQ_INT(st.blocks, 4);                                 /* the small one is still in use */
    AKT_EQ_INT(st.reserved, 2 * MiB + (2 + 4 + 6) * MiB);
    AKT_EQ_INT(st.in_use, 200 * KiB + (2 + 4 + 6) * MiB);
    AKT_EQ_INT(st.peak_reserved, 24 * MiB);
    for (i = 1; i < 10; i += 2) AKT_OK(ak_free(ctx, p[i]));
    st = stats(ctx);
    AKT_EQ_INT(st.in_use, 0);
    AKT_CHECK(st.free_blocks >= 4);
    AKT_OK(ak_pool_trim(ctx));
    st = stats(ctx);
    AKT_EQ_INT(st.reserved, 0);
    AKT_EQ_INT(st.blocks, 0);
    AKT_EQ_INT(st.free_blocks, 0);
    AKT_EQ_INT(st.frees, 10);
    AKT_EQ_INT(st.peak_in_use, 500 * KiB + 20 * MiB);
    ak_context_destroy(ctx);
}

static void test_pool_disabled(void) {
    ak_context* ctx = pool_ctx("pool_off", 0, 0, 1);
    void *a = NULL, *b = NULL, *c = NULL;
    ak_pool_stats st;
    if (!ctx) return;
    AKT_OK(ak_malloc(ctx, 1000, NULL, &a));
    AKT_OK(ak_malloc(ctx, 3 * MiB, NULL, &b));
    AKT_CHECK(((uintptr_t)a % 256) == 0 && ((uintptr_t)b % 256) == 0);
    memset(a, 1, 1000);
    memset(b, 2, 3 * MiB);
    st = stats(ctx);
    AKT_EQ_INT(st.reserved, 1024 + 3 * MiB);
    AKT_EQ_INT(st.in_use, 1024 + 3 * MiB);
    AKT_EQ_INT(st.blocks, 2);
    AKT_EQ_INT(st.runtime_allocs, 2);
    AKT_ERR_ITEM(ak_free(ctx, (char*)a + 256), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    AKT_OK(ak_free(ctx, a));
    AKT_ERR_ITEM(ak_free(ctx, a), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);               /* tracked: double free seen */
    st = stats(ctx);
    AKT_EQ_INT(st.reserved, 3 * MiB);                        /* went straight back */
    AKT_EQ_INT(st.free_blocks, 0);
    AKT_OK(ak_malloc(ctx, 1000, NULL, &c));
    st = stats(ctx);
    AKT_EQ_INT(st.cache_hits, 0);
    AKT_EQ_INT(st.runtime_allocs, 3);
    AKT_OK(ak_free(ctx, b));
    AKT_OK(ak_free(ctx, c));
    st = stats(ctx);
    AKT_EQ_INT(st.reserved, 0);
    AKT_EQ_INT(st.in_use, 0);
    AKT_EQ_INT(st.frees, 3);
    AKT_OK(ak_pool_trim(ctx));
    ak_context_destroy(ctx);
}

typedef struct { void* p; size_t n; unsigned char pat; } live_blk;

static int check_blk(const live_blk* b) {
    const unsigned char* c = (const unsigned char*)b->p;
    size_t k, m = b->n < 2048 ? b->n : 2048;
    for (k = 0; k < m; k++) if (c[k] != b->pat || c[b->n - 1 - k] != b->pat) return 0;
    return 1;
}
static void fill_blk(const live_blk* b) {
    size_t m = b->n < 2048 ? b->n : 2048;
    memset(b->p, b->pat, m);
    memset((char*)b->p + b->n - m, b->pat, m);
}

/* Random alloc/free against a model of the live blocks. */
static void test_pool_random_model(void) {
    enum { MAXL = 300 };
    static live_blk live[MAXL];
    ak_context* ctx = pool_ctx("pool_rand", 1, (long long)(64 * MiB), 1);
    unsigned long long seed = akt_seed() ^ 0x5eedull;
    int n = 0, op, i, ooms = 0;
    size_t sum = 0;
    ak_pool_stats st;
    if (!ctx) return;
    for (op = 0; op < 20000; op++) {
        double r = akt_uniform(&seed, 0, 1);
        if (r < 0.5 && n < MAXL) {
            double k = akt_uniform(&seed, 0, 1);
            size_t sz = k < 0.75 ? 1 + (size_t)akt_uniform(&seed, 0, 32 * KiB)
                      : k < 0.95 ? 1 + (size_t)akt_uniform(&seed, 0, (double)MiB)
                                 : MiB + (size_t)akt_uniform(&seed, 0, 10.0 * MiB);
            void* v = NULL;
            ak_result rr = ak_malloc(ctx, sz, NULL, &v);
            if (rr == AK_ERROR_OUT_OF_MEMORY) { ooms++; continue; }
            AKT_OK(rr);
            if (rr != AK_OK) break;
            for (i = 0; i < n; i++)
                if ((char*)v < (char*)live[i].p + live[i].n && (char*)live[i].p < (char*)v + sz) break;
            AKT_CHECKF(i == n, "new block %p overlaps a live one", v);
            live[n].p = v; live[n].n = sz; live[n].pat = (unsigned char)akt_uniform(&seed, 1, 256);
            fill_blk(&live[n]);
            sum += sz;
            n++;
        } else if (n > 0) {
            int k = (int)akt_uniform(&seed, 0, n);
            AKT_CHECKF(check_blk(&live[k]), "block %p (%zu bytes) damaged", live[k].p, live[k].n);
            AKT_OK(ak_free(ctx, live[k].p));
            sum -= live[k].n;
            live[k] = live[--n];
        }
        if (op % 1000 == 0) {
            st = stats(ctx);
            AKT_CHECK(st.in_use >= sum && st.in_use <= st.reserved && st.reserved <= 64 * MiB);
            AKT_EQ_INT(st.allocations - st.frees, n);
            if (op % 5000 == 0) AKT_OK(ak_pool_trim(ctx));
        }
    }
    st = stats(ctx);
    AKT_EQ_INT(st.oom_count, ooms);
    for (i = 0; i < n; i++) { AKT_CHECK(check_blk(&live[i])); AKT_OK(ak_free(ctx, live[i].p)); }
    st = stats(ctx);
    AKT_EQ_INT(st.in_use, 0);
    AKT_EQ_INT(st.allocations, st.frees);
    AKT_CHECK(st.cache_hits + st.runtime_allocs == st.allocations);
    AKT_OK(ak_pool_trim(ctx));
    AKT_EQ_INT(stats(ctx).reserved, 0);
    ak_context_destroy(ctx);
}

/* Several threads allocating and freeing at once. */
typedef struct { ak_context* ctx; ak_stream* stream; unsigned long long seed; int errors; } thr_arg;

static void* pool_thread(void* vp) {
    thr_arg* a = (thr_arg*)vp;
    live_blk mine[64];
    int n = 0, op, i;
    for (op = 0; op < 4000; op++) {
        if ((akt_uniform(&a->seed, 0, 1) < 0.55 && n < 64) || n == 0) {
            size_t sz = akt_uniform(&a->seed, 0, 1) < 0.9 ? 1 + (size_t)akt_uniform(&a->seed, 0, 64 * KiB)
                                                           : MiB + (size_t)akt_uniform(&a->seed, 0, 3.0 * MiB);
            void* v = NULL;
            if (ak_malloc(a->ctx, sz, a->stream, &v) != AK_OK || !v) { a->errors++; continue; }
            mine[n].p = v; mine[n].n = sz; mine[n].pat = (unsigned char)akt_uniform(&a->seed, 1, 256);
            fill_blk(&mine[n]);
            n++;
        } else {
            int k = (int)akt_uniform(&a->seed, 0, n);
            if (!check_blk(&mine[k])) a->errors++;
            if (ak_free(a->ctx, mine[k].p) != AK_OK) a->errors++;
            mine[k] = mine[--n];
        }
        if (op % 1000 == 999 && ak_pool_trim(a->ctx) != AK_OK) a->errors++;
    }
    for (i = 0; i < n; i++) {
        if (!check_blk(&mine[i])) a->errors++;
        if (ak_free(a->ctx, mine[i].p) != AK_OK) a->errors++;
    }
    return NULL;
}
static void test_pool_threads(void) {
    enum { NT = 8 };
    ak_context* ctx = akt_cpu_context("pool");
    pthread_t th[NT];
    thr_arg args[NT];
    ak_stream* s[2] = { NULL, NULL };
    ak_pool_stats st;
    int i;
    if (!ctx) return;
    AKT_OK(ak_stream_create(ctx, "t0", 0, &s[0]));
    AKT_OK(ak_stream_create(ctx, "t1", 0, &s[1]));
    for (i = 0; i < NT; i++) {
        args[i].ctx = ctx;
        args[i].stream = (i % 3 == 2) ? NULL : s[i % 3];
        args[i].seed = akt_seed() * 31 + (unsigned long long)i;
        args[i].errors = 0;
        AKT_CHECK(pthread_create(&th[i], NULL, pool_thread, &args[i]) == 0);
    }
    for (i = 0; i < NT; i++) {
        pthread_join(th[i], NULL);
        AKT_EQ_INT(args[i].errors, 0);
    }
    st = stats(ctx);
    AKT_EQ_INT(st.in_use, 0);
    AKT_EQ_INT(st.allocations, st.frees);
    AKT_CHECK(st.allocations >= NT * 1000);
    AKT_CHECK(st.cache_hits > st.runtime_allocs);
    ak_stream_destroy(s[0]);
    ak_stream_destroy(s[1]);
    AKT_OK(ak_pool_trim(ctx));
    AKT_EQ_INT(stats(ctx).reserved, 0);
    ak_context_destroy(ctx);
}

void akt_suite_pool(void) {
    AKT_RUN(test_pool_alignment_no_overlap);
    AKT_RUN(test_pool_reuse);
    AKT_RUN(test_pool_split_merge);
    AKT_RUN(test_pool_best_fit);
    AKT_RUN(test_pool_oversize_rule);
    AKT_RUN(test_pool_streams);
    AKT_RUN(test_pool_limit);
    AKT_RUN(test_pool_limit_no_protection);
    AKT_RUN(test_pool_bad_arguments);
    AKT_RUN(test_pool_trim_and_stats);
    AKT_RUN(test_pool_disabled);
    AKT_RUN(test_pool_random_model);
    AKT_RUN(test_pool_threads);
}
