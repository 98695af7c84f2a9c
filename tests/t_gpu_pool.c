/* Suite gpu_pool (runs with --gpu, needs a GPU): ak_pool on the device
 * against its CPU reference (the same call on a cpu context) on fresh random
 * inputs, outputs and indices poisoned with 0xFF bytes and a guard after
 * them: max (values bit-exact, indices exact) and average (KernelBench
 * tolerance: 1e-4 f32, 1e-2 halves), 1-D / 2-D / 3-D, odd extents, strides,
 * padding, dilation, ceil_mode, count_include_pad, divisor_override, planes
 * past the grid's y limit, every dtype, aligned and offset pointers. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* g_gpu;
static ak_context* g_cpu;
static unsigned long long g_rng;
#define GP_PAD 256

static int gp_setup(void) {
    if (!g_gpu) {
        if (!(g_gpu = akt_gpu_context(NULL))) return 0;
        g_rng = akt_seed() ^ 0x7001ull;
    }
    if (!g_cpu) g_cpu = akt_cpu_context("gpu_pool_ref");
    return g_cpu != NULL;
}

typedef struct { int kind, ndim; size_t b, c, in[3], k[3], s[3], p[3], d[3]; int ceil, cip, divo, idx; } gp_case;

static void gp_run(const gp_case* cs, ak_dtype t, size_t off) {
    ak_pool_args a;
    size_t out[3], ip = 1, op = 1, n, m, es = ak_dtype_size(t), i, bad = 0;
    void *hx = NULL, *gy = NULL, *cy = NULL, *bx = NULL, *by = NULL, *bi = NULL;
    int64_t *gi = NULL, *ci = NULL;
    unsigned char guard[GP_PAD];
    int j;
    memset(&a, 0, sizeof a);
    a.kind = (ak_pool_kind)cs->kind; a.dtype = t; a.ndim = cs->ndim; a.batch = cs->b; a.channels = cs->c;
    for (j = 0; j < 3; j++) {
        a.in[j] = cs->in[j]; a.kernel[j] = cs->k[j]; a.stride[j] = cs->s[j]; a.padding[j] = cs->p[j]; a.dilation[j] = cs->d[j];
    }
    a.ceil_mode = cs->ceil; a.count_include_pad = cs->cip; a.divisor_override = cs->divo;
    AKT_OK(ak_pool_output_shape(&a, out));
    for (j = 0; j < cs->ndim; j++) { ip *= cs->in[j]; op *= out[j]; }
    n = cs->b * cs->c * ip; m = cs->b * cs->c * op;
    hx = malloc(n * es); gy = malloc(m * es); cy = malloc(m * es); gi = (int64_t*)malloc(m * 8); ci = (int64_t*)malloc(m * 8);
    if (!hx || !gy || !cy || !gi || !ci) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    for (i = 0; i < n; i++) ak_elem_set(hx, t, i, akt_uniform(&g_rng, -4, 4));
    if (ak_malloc(g_gpu, n * es + off * es, NULL, &bx) != AK_OK || ak_malloc(g_gpu, m * es + off * es + GP_PAD, NULL, &by) != AK_OK ||
        ak_malloc(g_gpu, m * 8 + GP_PAD, NULL, &bi) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "device OOM: %s", ak_last_error());
        goto done;
    }
    AKT_OK(ak_memcpy(g_gpu, (char*)bx + off * es, hx, n * es, AK_H2D));
    AKT_OK(ak_memset(g_gpu, by, 0xFF, m * es + off * es + GP_PAD, NULL));
    AKT_OK(ak_memset(g_gpu, bi, 0xFF, m * 8 + GP_PAD, NULL));
    a.x = (char*)bx + off * es; a.y = (char*)by + off * es; a.indices = cs->idx ? (int64_t*)bi : NULL;
    AKT_OK(ak_pool(g_gpu, &a, NULL));
    AKT_OK(ak_device_synchronize(g_gpu));
    AKT_OK(ak_memcpy(g_gpu, gy, a.y, m * es, AK_D2H));
    AKT_OK(ak_memcpy(g_gpu, guard, (char*)a.y + m * es, GP_PAD, AK_D2H));
    for (i = 0; i < GP_PAD; i++) if (guard[i] != 0xFF) { akt_fail(__FILE__, __LINE__, "pool wrote past y"); break; }
    if (cs->idx) {
        AKT_OK(ak_memcpy(g_gpu, gi, bi, m * 8, AK_D2H));
        AKT_OK(ak_memcpy(g_gpu, guard, (char*)bi + m * 8, GP_PAD, AK_D2H));
        for (i = 0; i < GP_PAD; i++) if (guard[i] != 0xFF) { akt_fail(__FILE__, __LINE__, "pool wrote past indices"); break; }
    }
    a.x = hx; a.y = cy; a.indices = cs->idx ? ci : NULL;
    AKT_OK(ak_pool(g_cpu, &a, NULL));
    for (i = 0; i < m; i++) {
        double g = ak_elem_get(gy, t, i), c = ak_elem_get(cy, t, i);
        double tol = cs->kind == AK_POOL_MAX ? 0.0 : (t == AK_F32 ? 1e-4 : 1e-2) * (1 + fabs(c));
        int ok = g == c || (g == g && fabs(g - c) <= tol);
        if (cs->idx && gi[i] != ci[i]) ok = 0;
        if (!ok && !bad++)
            akt_fail(__FILE__, __LINE__, "pool %s %dd %s off %zu: output %zu of %zu: %.9g vs %.9g (index %lld vs %lld)",
                     cs->kind == AK_POOL_MAX ? "max" : "avg", cs->ndim, ak_dtype_name(t), off, i, m, g, c,
                     cs->idx ? (long long)gi[i] : 0, cs->idx ? (long long)ci[i] : 0);
    }
done:
    ak_free(g_gpu, bx); ak_free(g_gpu, by); ak_free(g_gpu, bi);
    free(hx); free(gy); free(cy); free(gi); free(ci);
}

static void test_gpu_pool(void) {
    static const gp_case cases[] = {
        /* kind ndim b c  in           k          s          p          d        ceil cip divo idx */
        { AK_POOL_MAX, 1, 2, 3, { 1000 }, { 8 }, { 1 }, { 4 }, { 3 }, 0, 0, 0, 1 },          /* KernelBench 41-like */
        { AK_POOL_MAX, 2, 2, 5, { 67, 61 }, { 4, 4 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0, 0, 0 },   /* 42-like */
        { AK_POOL_MAX, 3, 2, 3, { 19, 17, 23 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 3, 3, 3 }, 0, 0, 0, 1 },  /* 43 */
        { AK_POOL_MAX, 3, 1, 2, { 9, 10, 11 }, { 2, 3, 2 }, { 2, 1, 3 }, { 1, 1, 0 }, { 1, 2, 1 }, 1, 0, 0, 1 },
        { AK_POOL_MAX, 2, 1, 70000, { 3, 5 }, { 2, 2 }, { 1, 2 }, { 0, 1 }, { 1, 1 }, 1, 0, 0, 1 },  /* planes > 65535 */
        { AK_POOL_MAX, 2, 2, 3, { 21, 37 }, { 3, 6 }, { 2, 1 }, { 1, 3 }, { 1, 2 }, 0, 0, 0, 1 },   /* a row of 6: a group of 8, edges */
        { AK_POOL_MAX, 1, 1, 3, { 300 }, { 12 }, { 2 }, { 5 }, { 2 }, 1, 0, 0, 1 },       /* a row of 12: two groups of 8 */
        { AK_POOL_MAX, 2, 1, 2, { 33, 40 }, { 5, 5 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, 0, 0, 0, 0 },   /* a row of 5, no indices */
        { AK_POOL_AVG, 1, 2, 3, { 1001 }, { 8 }, { 1 }, { 4 }, { 0 }, 0, 1, 0, 0 },          /* 44-like */
        { AK_POOL_AVG, 2, 2, 3, { 123, 131 }, { 11, 11 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 0, 1, 0, 0 },  /* 45-like */
        { AK_POOL_AVG, 3, 2, 3, { 17, 16, 33 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 0, 0, 0 }, 0, 1, 0, 0 },  /* 46 */
        { AK_POOL_AVG, 2, 1, 4, { 31, 29 }, { 3, 4 }, { 2, 3 }, { 1, 2 }, { 0, 0 }, 1, 0, 0, 0 },
        { AK_POOL_AVG, 3, 1, 2, { 8, 9, 7 }, { 2, 2, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 0, 0, 0 }, 1, 1, 0, 0 },
        { AK_POOL_AVG, 1, 3, 1, { 50 }, { 5 }, { 3 }, { 2 }, { 0 }, 0, 1, 4, 0 },
        /* max without indices, 4 outputs a thread (1024 a block) spanning rows / depths, a partial last block */
        { AK_POOL_MAX, 1, 2, 3, { 5001 }, { 8 }, { 1 }, { 4 }, { 3 }, 0, 0, 0, 0 },
        { AK_POOL_MAX, 2, 2, 3, { 67, 61 }, { 4, 4 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0, 0, 0 },
        { AK_POOL_MAX, 3, 1, 2, { 19, 37, 41 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 3, 3, 3 }, 1, 0, 0, 0 },
        { AK_POOL_MAX, 2, 1, 70000, { 3, 5 }, { 2, 2 }, { 1, 2 }, { 0, 1 }, { 1, 1 }, 1, 0, 0, 0 },  /* planes > 65535 */
    };
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    size_t ci, ti;
    if (!gp_setup()) return;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (ti = 0; ti < 3; ti++) gp_run(&cases[ci], types[ti], (ci + ti) % 2);
}

static void test_gpu_pool_cleanup(void) {
    if (g_gpu) ak_context_destroy(g_gpu);
    if (g_cpu) ak_context_destroy(g_cpu);
    g_gpu = g_cpu = NULL;
}

void akt_suite_gpu_pool(void) {
    AKT_RUN(test_gpu_pool);
    AKT_RUN(test_gpu_pool_cleanup);
}
