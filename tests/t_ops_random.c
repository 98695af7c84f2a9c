/* Suite ops_random: ak_rand_uniform, ak_rand_normal and ak_dropout on the cpu
 * backend: the Philox4x32-10 known-answer vector (Random123's kat_vectors,
 * counter 0 key 0), the stream layout against an independent Philox written
 * here (element i = word i % 4 of counter offset + i / 4, carries into the
 * high counter word), slices regenerated from (seed, offset + a), the range
 * of uniforms, moments of normals and their values against a double
 * Box-Muller with libm on the same words, dropout's mask / scale / p = 0 /
 * p = 1 / in-place / regeneration, and every validation error. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype rn_types[3] = { AK_F32, AK_F16, AK_BF16 };

/* An independent Philox4x32-10 (textbook form: round, then bump the key). */
static void rn_philox(uint32_t ctr[4], uint32_t key0, uint32_t key1, uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key0, k1 = key1;
    int i;
    for (i = 0; i < 10; i++) {
        uint64_t a = (uint64_t)c0 * 0xD2511F53ull, b = (uint64_t)c2 * 0xCD9E8D57ull;
        uint32_t n0 = (uint32_t)(b >> 32) ^ c1 ^ k0, n1 = (uint32_t)b, n2 = (uint32_t)(a >> 32) ^ c3 ^ k1,
                 n3 = (uint32_t)a;
        c0 = n0; c1 = n1; c2 = n2; c3 = n3;
        k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}
/* Word of element i of the stream (seed, offset). */
static uint32_t rn_word(uint64_t seed, uint64_t offset, uint64_t i) {
    uint64_t c = offset + i / 4;
    uint32_t ctr[4], out[4];
    ctr[0] = (uint32_t)c; ctr[1] = (uint32_t)(c >> 32); ctr[2] = 0; ctr[3] = 0;
    rn_philox(ctr, (uint32_t)seed, (uint32_t)(seed >> 32), out);
    return out[i % 4];
}

static void test_random_kat(void) {
    ak_context* ctx = akt_cpu_context("rn_kat");
    float y[4];
    const uint32_t want[4] = { 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u };
    int i;
    uint32_t ctr[4] = { 0, 0, 0, 0 }, out[4];
    if (!ctx) return;
    rn_philox(ctr, 0, 0, out);
    for (i = 0; i < 4; i++) AKT_EQ_INT(out[i], want[i]);
    AKT_OK(ak_rand_uniform(ctx, AK_F32, y, 4, 0, 0, 0.0f, 1.0f, NULL));
    for (i = 0; i < 4; i++) AKT_CHECKF(y[i] == (float)(want[i] >> 8) / 16777216.0f, "u[%d] = %.9g", i, y[i]);
    ak_context_destroy(ctx);
}

/* Layout: every uniform equals the independent Philox's word >> 8, across the 2^32 carry of the counter. */
static void test_random_layout(void) {
    ak_context* ctx = akt_cpu_context("rn_layout");
    unsigned long long st = akt_seed();
    const uint64_t offsets[3] = { 0, 0xFFFFFFFEull, 0x123456789Aull };
    float y[1003];
    int o;
    if (!ctx) return;
    for (o = 0; o < 3; o++) {
        uint64_t seed = (uint64_t)(akt_uniform(&st, 0, 4294967296.0)) << 32 | (uint64_t)akt_uniform(&st, 0, 4294967296.0);
        size_t i, bad = 0;
        AKT_OK(ak_rand_uniform(ctx, AK_F32, y, 1003, seed, offsets[o], 0.0f, 1.0f, NULL));
        for (i = 0; i < 1003; i++)
            if (y[i] != (float)(rn_word(seed, offsets[o], i) >> 8) / 16777216.0f) bad++;
        AKT_CHECKF(bad == 0, "offset %llx: %zu of 1003 differ from the reference Philox", (unsigned long long)offsets[o], bad);
    }
    ak_context_destroy(ctx);
}

/* A slice [4a, 4a + m) of a call is the call with offset + a and n = m. */
static void test_random_slice(void) {
    ak_context* ctx = akt_cpu_context("rn_slice");
    int t;
    if (!ctx) return;
    for (t = 0; t < 3; t++) {
        ak_dtype dt = rn_types[t];
        size_t es = ak_dtype_size(dt);
        unsigned char full[1001 * 4], part[300 * 4];
        AKT_OK(ak_rand_normal(ctx, dt, full, 1001, 42, 7, 0.5f, 2.0f, NULL));
        AKT_OK(ak_rand_normal(ctx, dt, part, 300, 42, 7 + 25, 0.5f, 2.0f, NULL));
        AKT_CHECKF(memcmp(full + 100 * es, part, 300 * es) == 0, "%s normal slice differs", ak_dtype_name(dt));
        AKT_OK(ak_rand_uniform(ctx, dt, full, 1001, 43, 9, -1.0f, 3.0f, NULL));
        AKT_OK(ak_rand_uniform(ctx, dt, part, 297, 43, 9 + 176, -1.0f, 3.0f, NULL));
        AKT_CHECKF(memcmp(full + 704 * es, part, 297 * es) == 0, "%s uniform slice differs", ak_dtype_name(dt));
        /* another seed or offset: another stream */
        AKT_OK(ak_rand_uniform(ctx, dt, part, 297, 44, 9 + 176, -1.0f, 3.0f, NULL));
        AKT_CHECK(memcmp(full + 704 * es, part, 297 * es) != 0);
    }
    ak_context_destroy(ctx);
}

static void test_random_uniform_range(void) {
    ak_context* ctx = akt_cpu_context("rn_uniform");
    const size_t n = 100003;
    float* y = (float*)malloc(n * 4);
    unsigned long long st = akt_seed();
    int t;
    if (!ctx || !y) { free(y); ak_context_destroy(ctx); return; }
    for (t = 0; t < 3; t++) {
        ak_dtype dt = rn_types[t];
        const float lo = -2.5f, hi = 1.5f;
        double s = 0.0, mn = 1e9, mx = -1e9;
        size_t i;
        AKT_OK(ak_rand_uniform(ctx, dt, y, n, (uint64_t)akt_uniform(&st, 0, 1e15), 3, lo, hi, NULL));
        for (i = 0; i < n; i++) {
            double v = ak_elem_get(y, dt, i);
            s += v;
            if (v < mn) mn = v;
            if (v > mx) mx = v;
        }
        AKT_CHECKF(mn >= lo && mx < hi, "%s: [%g, %g] outside [%g, %g)", ak_dtype_name(dt), mn, mx, lo, hi);
        AKT_NEAR(s / (double)n, -0.5, 0.02);
        AKT_CHECK(mx > 1.45 && mn < -2.45);
    }
    free(y);
    ak_context_destroy(ctx);
}

/* Normals: moments, and each value against a double Box-Muller of the same words. */
static void test_random_normal(void) {
    ak_context* ctx = akt_cpu_context("rn_normal");
    const size_t n = 200002;
    float* y = (float*)malloc(n * 4);
    unsigned long long st = akt_seed();
    uint64_t seed = (uint64_t)akt_uniform(&st, 0, 1e15), off = 11;
    double s = 0.0, s2 = 0.0, within1 = 0.0, maxerr = 0.0;
    size_t i;
    const double pi = 3.14159265358979323846;
    if (!ctx || !y) { free(y); ak_context_destroy(ctx); return; }
    AKT_OK(ak_rand_normal(ctx, AK_F32, y, n, seed, off, 0.0f, 1.0f, NULL));
    for (i = 0; i < n; i++) {
        uint64_t pair = i & ~(uint64_t)1;
        uint32_t wa = rn_word(seed, off, pair), wb = rn_word(seed, off, pair + 1);
        double u1 = ((double)(wa >> 8) + 1.0) / 16777216.0, th = 2.0 * pi * (double)(wb >> 8) / 16777216.0;
        double r = sqrt(-2.0 * log(u1)), z = (i & 1) ? r * sin(th) : r * cos(th), e = fabs(z - (double)y[i]);
        if (e > maxerr) maxerr = e;
        s += y[i];
        s2 += (double)y[i] * y[i];
        if (fabs(y[i]) < 1.0f) within1 += 1.0;
    }
    AKT_CHECKF(maxerr < 2e-6, "largest difference from a double Box-Muller: %g", maxerr);
    AKT_NEAR(s / (double)n, 0.0, 0.01);
    AKT_NEAR(sqrt(s2 / (double)n), 1.0, 0.01);
    AKT_NEAR(within1 / (double)n, 0.682689, 0.005);
    /* mean and std, halves */
    AKT_OK(ak_rand_normal(ctx, AK_BF16, y, 1001, seed, off, 3.0f, 0.0f, NULL));
    for (i = 0; i < 1001; i++) AKT_CHECK(ak_elem_get(y, AK_BF16, i) == 3.0);
    AKT_OK(ak_rand_normal(ctx, AK_F16, y, 50001, seed, off, -1.0f, 0.25f, NULL));
    s = 0.0;
    for (i = 0; i < 50001; i++) s += ak_elem_get(y, AK_F16, i);
    AKT_NEAR(s / 50001.0, -1.0, 0.01);
    free(y);
    ak_context_destroy(ctx);
}

static void test_dropout(void) {
    ak_context* ctx = akt_cpu_context("rn_dropout");
    const size_t n = 40001;
    float *x = (float*)malloc(n * 4), *y = (float*)malloc(n * 4), *u = (float*)malloc(n * 4);
    uint8_t *m = (uint8_t*)malloc(n), *m2 = (uint8_t*)malloc(n);
    unsigned long long st = akt_seed();
    size_t i, kept = 0, bad = 0;
    int t;
    const float p = 0.3f;
    if (!ctx || !x || !y || !u || !m || !m2) goto done;
    for (i = 0; i < n; i++) { x[i] = (float)akt_uniform(&st, -2, 2); if (x[i] == 0.0f) x[i] = 1.0f; }
    AKT_OK(ak_dropout(ctx, AK_F32, x, y, m, n, p, 5, 17, NULL));
    AKT_OK(ak_rand_uniform(ctx, AK_F32, u, n, 5, 17, 0.0f, 1.0f, NULL));
    for (i = 0; i < n; i++) {
        int keep = u[i] >= p;
        float want = keep ? x[i] * (float)(1.0 / (1.0 - (double)p)) : 0.0f;
        if (m[i] != keep || y[i] != want) bad++;
        kept += m[i];
    }
    AKT_CHECKF(bad == 0, "%zu elements disagree with u >= p and x / (1 - p)", bad);
    AKT_NEAR((double)kept / (double)n, 0.7, 0.01);
    /* backward: the same call regenerates the mask (no mask buffer needed) */
    AKT_OK(ak_dropout(ctx, AK_F32, x, u, NULL, n, p, 5, 17, NULL));
    AKT_CHECK(memcmp(u, y, n * 4) == 0);
    /* in place */
    memcpy(u, x, n * 4);
    AKT_OK(ak_dropout(ctx, AK_F32, u, u, m2, n, p, 5, 17, NULL));
    AKT_CHECK(memcmp(u, y, n * 4) == 0 && memcmp(m, m2, n) == 0);
    /* p = 0: everything kept, y = x; p = 1: nothing kept, y = 0 (also for inf / NaN) */
    for (t = 0; t < 3; t++) {
        ak_dtype dt = rn_types[t];
        size_t es = ak_dtype_size(dt);
        for (i = 0; i < 1001; i++) ak_elem_set(u, dt, i, x[i]);
        ak_elem_set(u, dt, 3, INFINITY);
        AKT_OK(ak_dropout(ctx, dt, u, y, m, 1001, 0.0f, 9, 0, NULL));
        AKT_CHECK(memcmp(u, y, 1001 * es) == 0);
        for (i = 0, bad = 0; i < 1001; i++) bad += m[i] != 1;
        AKT_EQ_INT(bad, 0);
        ak_elem_set(u, dt, 4, NAN);
        AKT_OK(ak_dropout(ctx, dt, u, y, m, 1001, 1.0f, 9, 0, NULL));
        for (i = 0, bad = 0; i < 1001; i++) bad += m[i] != 0 || ak_elem_get(y, dt, i) != 0.0;
        AKT_EQ_INT(bad, 0);
    }
done:
    free(x); free(y); free(u); free(m); free(m2);
    ak_context_destroy(ctx);
}

static void test_random_errors(void) {
    ak_context* ctx = akt_cpu_context("rn_err");
    float y[16], x[16];
    uint8_t m[16];
    if (!ctx) return;
    memset(x, 0, sizeof x);
    AKT_ERR_ITEM(ak_rand_uniform(NULL, AK_F32, y, 4, 0, 0, 0.0f, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_rand_uniform(ctx, AK_I32, y, 4, 0, 0, 0.0f, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_rand_uniform(ctx, AK_F32, NULL, 4, 0, 0, 0.0f, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_rand_uniform(ctx, AK_F32, y, 0, 0, 0, 0.0f, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_rand_uniform(ctx, AK_F32, (char*)y + 1, 4, 0, 0, 0.0f, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR(ak_rand_uniform(ctx, AK_F32, y, 4, 0, 0, 1.0f, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rand_uniform(ctx, AK_F32, y, 4, 0, 0, 2.0f, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rand_uniform(ctx, AK_F32, y, 4, 0, 0, NAN, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rand_uniform(ctx, AK_F32, y, 4, 0, 0, -3e38f, 3e38f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rand_uniform(ctx, AK_F32, y, 4, 0, 0, 0.0f, INFINITY, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rand_normal(ctx, AK_F32, y, 4, 0, 0, 0.0f, -1.0f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_rand_normal(ctx, AK_F32, y, 4, 0, 0, NAN, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_rand_normal(ctx, AK_F64, y, 4, 0, 0, 0.0f, 1.0f, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_dropout(ctx, AK_F32, NULL, y, m, 4, 0.5f, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_dropout(ctx, AK_F32, x, y, m, 4, -0.1f, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_dropout(ctx, AK_F32, x, y, m, 4, 1.5f, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_dropout(ctx, AK_F32, x, y, m, 4, NAN, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_dropout(ctx, AK_F32, x, x + 1, m, 4, 0.5f, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_dropout(ctx, AK_F32, x, y, (uint8_t*)(y + 2), 4, 0.5f, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_dropout(ctx, AK_U8, x, y, m, 4, 0.5f, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    ak_context_destroy(ctx);
}

void akt_suite_ops_random(void) {
    AKT_RUN(test_random_kat);
    AKT_RUN(test_random_layout);
    AKT_RUN(test_random_slice);
    AKT_RUN(test_random_uniform_range);
    AKT_RUN(test_random_normal);
    AKT_RUN(test_dropout);
    AKT_RUN(test_random_errors);
}
