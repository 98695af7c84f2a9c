/* Suite gpu_random (runs with --gpu, needs a GPU): ak_rand_uniform,
 * ak_rand_normal and ak_dropout on the device against the cpu backend BIT FOR
 * BIT (memcmp of the outputs and masks): all dtypes, odd n (1, 3, 5, 4099,
 * 1000003), fresh random seeds, offsets across the 2^32 carry of the counter,
 * 16-byte-aligned (vector path) and 1-element-offset (scalar path) outputs,
 * dropout with and without a mask, p in {0, 0.1, 0.5, 1}, in place. Outputs
 * are poisoned with 0xFF bytes first and the bytes after them must keep it. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* g_rgpu;
static ak_context* g_rcpu;
static unsigned long long g_rrng;
#define GN_PAD 64

static int gn_setup(void) {
    if (!g_rgpu) {
        if (ak_context_create(NULL, &g_rgpu) != AK_OK) {
            akt_fail(__FILE__, __LINE__, "no GPU context: %s", ak_last_error());
            g_rgpu = NULL;
            return 0;
        }
        g_rrng = akt_seed() ^ 0x51ED27ull;
    }
#ifndef AKT_GPU_ON_CPU
    if (ak_context_device(g_rgpu)->backend == AK_BACKEND_CPU) {
        akt_fail(__FILE__, __LINE__, "no GPU: the context fell back to the cpu backend (gpu_* suites need a GPU)");
        return 0;
    }
#endif
    if (!g_rcpu) g_rcpu = akt_cpu_context("gpu_rn_ref");
    return g_rcpu != NULL;
}

static uint64_t gn_u64(void) {
    return ((uint64_t)akt_uniform(&g_rrng, 0, 4294967296.0) << 32) | (uint64_t)akt_uniform(&g_rrng, 0, 4294967296.0);
}

/* Device buffer of `bytes` + pad, poisoned; NULL on failure (reported). */
static void* gn_dev(size_t bytes) {
    void* p = NULL;
    if (ak_malloc(g_rgpu, bytes + GN_PAD + 16, NULL, &p) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "ak_malloc: %s", ak_last_error());
        return NULL;
    }
    ak_memset(g_rgpu, p, 0xFF, bytes + GN_PAD + 16, NULL);
    return p;
}

/* Compare the device's bytes [off, off + bytes) with the host's, and the pad after them. */
static int gn_same(const void* dev, size_t off, const void* host, size_t bytes, const char* what) {
    unsigned char* h = (unsigned char*)malloc(bytes + GN_PAD + off);
    size_t i, first = (size_t)-1, ndiff = 0;
    int ok = 1;
    if (!h) return 0;
    if (ak_memcpy(g_rgpu, h, dev, bytes + GN_PAD + off, AK_D2H) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "%s: copy back: %s", what, ak_last_error());
        free(h);
        return 0;
    }
    for (i = 0; i < bytes; i++)
        if (h[off + i] != ((const unsigned char*)host)[i]) { if (first == (size_t)-1) first = i; ndiff++; }
    if (ndiff) {
        akt_fail(__FILE__, __LINE__, "%s: %zu of %zu bytes differ from the cpu backend, first at byte %zu", what, ndiff,
                 bytes, first);
        ok = 0;
    }
    for (i = 0; i < GN_PAD; i++)
        if (h[off + bytes + i] != 0xFF) {
            akt_fail(__FILE__, __LINE__, "%s: wrote past the end (byte %zu)", what, i);
            ok = 0;
            break;
        }
    free(h);
    return ok;
}

static const size_t gn_sizes[] = { 1, 3, 5, 4099, 1000003 };
#define GN_NSIZES (sizeof gn_sizes / sizeof gn_sizes[0])
static const ak_dtype gn_types[3] = { AK_F32, AK_F16, AK_BF16 };

static void test_gpu_random_gen(void) {
    size_t s;
    int t, kind, mis;
    if (!gn_setup()) return;
    for (s = 0; s < GN_NSIZES; s++)
        for (t = 0; t < 3; t++)
            for (kind = 0; kind < 2; kind++)
                for (mis = 0; mis < 2; mis++) {
                    size_t n = gn_sizes[s], es = ak_dtype_size(gn_types[t]), off = mis ? es : 0;
                    uint64_t seed = gn_u64(), offset = s == 2 ? 0xFFFFFFFFull - 1 : gn_u64() >> 8;
                    void* d = gn_dev(n * es);
                    void* h = malloc(n * es);
                    char what[128];
                    if (!d || !h) { free(h); ak_free(g_rgpu, d); return; }
                    snprintf(what, sizeof what, "%s %s n=%zu%s", kind ? "normal" : "uniform", ak_dtype_name(gn_types[t]), n,
                             mis ? " (offset by one element)" : "");
                    if (kind) {
                        AKT_OK(ak_rand_normal(g_rgpu, gn_types[t], (char*)d + off, n, seed, offset, 0.25f, 3.0f, NULL));
                        AKT_OK(ak_rand_normal(g_rcpu, gn_types[t], h, n, seed, offset, 0.25f, 3.0f, NULL));
                    } else {
                        AKT_OK(ak_rand_uniform(g_rgpu, gn_types[t], (char*)d + off, n, seed, offset, -1.5f, 2.5f, NULL));
                        AKT_OK(ak_rand_uniform(g_rcpu, gn_types[t], h, n, seed, offset, -1.5f, 2.5f, NULL));
                    }
                    AKT_OK(ak_device_synchronize(g_rgpu));
                    gn_same(d, off, h, n * es, what);
                    free(h);
                    ak_free(g_rgpu, d);
                }
}

static void test_gpu_dropout(void) {
    static const float ps[4] = { 0.0f, 0.1f, 0.5f, 1.0f };
    size_t s;
    int t, pi, mis;
    if (!gn_setup()) return;
    for (s = 0; s < GN_NSIZES; s++)
        for (t = 0; t < 3; t++)
            for (pi = 0; pi < 4; pi++)
                for (mis = 0; mis < 2; mis++) {
                    size_t n = gn_sizes[s], es = ak_dtype_size(gn_types[t]), off = mis ? es : 0, i;
                    uint64_t seed = gn_u64(), offset = gn_u64() >> 4;
                    void *dx = gn_dev(n * es), *dy = gn_dev(n * es), *dm = gn_dev(n);
                    void *hx = malloc(n * es), *hy = malloc(n * es);
                    uint8_t* hm = (uint8_t*)malloc(n);
                    char what[128];
                    int with_mask = (pi + mis) % 2 == 0 || s < 2, inplace = pi == 2 && mis;
                    if (dx && dy && dm && hx && hy && hm) {
                        for (i = 0; i < n; i++) ak_elem_set(hx, gn_types[t], i, akt_uniform(&g_rrng, -3, 3) + 0.001);
                        AKT_OK(ak_memcpy(g_rgpu, (char*)dx + off, hx, n * es, AK_H2D));
                        snprintf(what, sizeof what, "dropout %s n=%zu p=%g%s%s%s", ak_dtype_name(gn_types[t]), n, (double)ps[pi],
                                 mis ? " (offset)" : "", with_mask ? " mask" : "", inplace ? " in place" : "");
                        AKT_OK(ak_dropout(g_rgpu, gn_types[t], (char*)dx + off, inplace ? (char*)dx + off : (char*)dy + off,
                                          with_mask ? (uint8_t*)dm + mis : NULL, n, ps[pi], seed, offset, NULL));
                        AKT_OK(ak_dropout(g_rcpu, gn_types[t], hx, hy, hm, n, ps[pi], seed, offset, NULL));
                        AKT_OK(ak_device_synchronize(g_rgpu));
                        gn_same(inplace ? dx : dy, off, hy, n * es, what);
                        if (with_mask) gn_same(dm, (size_t)mis, hm, n, what);
                    }
                    free(hx); free(hy); free(hm);
                    ak_free(g_rgpu, dx); ak_free(g_rgpu, dy); ak_free(g_rgpu, dm);
                }
}

static void test_gpu_random_cleanup(void) {
    ak_context_destroy(g_rgpu);
    ak_context_destroy(g_rcpu);
    g_rgpu = NULL;
    g_rcpu = NULL;
}

void akt_suite_gpu_random(void) {
    AKT_RUN(test_gpu_random_gen);
    AKT_RUN(test_gpu_dropout);
    AKT_RUN(test_gpu_random_cleanup);
}
