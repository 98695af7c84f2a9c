/* Suite gpu_chnorm (runs with --gpu, needs a GPU): ak_batch_norm (training
 * with running statistics, inference) and ak_group_norm (groups, instance
 * norm, one group) on the device against their CPU references (the same call
 * on a cpu context) on fresh random inputs with a mean far from 0, outputs
 * poisoned with 0xFF bytes and a guard after them, odd shapes (planes shorter
 * and longer than a statistics chunk, planes past the grid's y limit), every
 * dtype, aligned and offset pointers, in place. Tolerances: 1e-4 f32, 1e-2
 * halves (KernelBench's), plus f32's own limit on a group of small variance
 * (16 ulp of its largest |x| over its standard deviation, times |weight|),
 * the running statistics 1e-5 relative. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* g_gpu;
static ak_context* g_cpu;
static unsigned long long g_rng;
#define GC_PAD 256

static int gc_setup(void) {
    if (!g_gpu) {
        if (!(g_gpu = akt_gpu_context(NULL))) return 0;
        g_rng = akt_seed() ^ 0xC4A7ull;
    }
    if (!g_cpu) g_cpu = akt_cpu_context("gpu_chnorm_ref");
    return g_cpu != NULL;
}

/* G == 0: batch norm (training or not); else group norm with G groups */
static void gc_run(ak_dtype t, size_t N, size_t C, size_t S, size_t G, int training, int affine, size_t off, int inplace) {
    size_t n = N * C * S, es = ak_dtype_size(t), i, bad = 0, nst;
    double* gsd = NULL;
    void *hx = malloc(n * es), *gy = malloc(n * es), *cy = malloc(n * es), *hw = malloc(C * es), *hb = malloc(C * es);
    float *rm = (float*)malloc(C * 4), *rv = (float*)malloc(C * 4), *grm = (float*)malloc(C * 4), *grv = (float*)malloc(C * 4);
    void *bx = NULL, *by = NULL, *bw = NULL, *bbias = NULL, *brs = NULL, *dx, *dy;
    unsigned char guard[GC_PAD];
    double tol = t == AK_F32 ? 1e-4 : 1e-2;
    if (!hx || !gy || !cy || !hw || !hb || !rm || !rv || !grm || !grv) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    for (i = 0; i < n; i++) ak_elem_set(hx, t, i, akt_uniform(&g_rng, 3, 5));   /* mean ~4, std ~0.6 */
    for (i = 0; i < C; i++) {
        ak_elem_set(hw, t, i, akt_uniform(&g_rng, 0.5, 2)); ak_elem_set(hb, t, i, akt_uniform(&g_rng, -1, 1));
        rm[i] = (float)akt_uniform(&g_rng, -1, 1); rv[i] = (float)akt_uniform(&g_rng, 0.5, 2);
    }
    if (ak_malloc(g_gpu, n * es + off * es + GC_PAD, NULL, &bx) != AK_OK || ak_malloc(g_gpu, n * es + off * es + GC_PAD, NULL, &by) != AK_OK ||
        ak_malloc(g_gpu, C * es, NULL, &bw) != AK_OK || ak_malloc(g_gpu, C * es, NULL, &bbias) != AK_OK ||
        ak_malloc(g_gpu, C * 8, NULL, &brs) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "device OOM: %s", ak_last_error());
        goto done;
    }
    dx = (char*)bx + off * es;
    dy = inplace ? dx : (char*)by + off * es;
    AKT_OK(ak_memset(g_gpu, bx, 0xFF, n * es + off * es + GC_PAD, NULL));
    AKT_OK(ak_memset(g_gpu, by, 0xFF, n * es + off * es + GC_PAD, NULL));
    AKT_OK(ak_memcpy(g_gpu, dx, hx, n * es, AK_H2D));
    AKT_OK(ak_memcpy(g_gpu, bw, hw, C * es, AK_H2D));
    AKT_OK(ak_memcpy(g_gpu, bbias, hb, C * es, AK_H2D));
    AKT_OK(ak_memcpy(g_gpu, brs, rm, C * 4, AK_H2D));
    AKT_OK(ak_memcpy(g_gpu, (char*)brs + C * 4, rv, C * 4, AK_H2D));
    if (G == 0)
        AKT_OK(ak_batch_norm(g_gpu, t, dx, dy, N, C, S, affine ? bw : NULL, affine ? bbias : NULL, (float*)brs,
                             (float*)((char*)brs + C * 4), training, 0.1f, 1e-5f, NULL));
    else AKT_OK(ak_group_norm(g_gpu, t, dx, dy, N, C, S, G, affine ? bw : NULL, affine ? bbias : NULL, 1e-5f, NULL));
    AKT_OK(ak_device_synchronize(g_gpu));
    AKT_OK(ak_memcpy(g_gpu, gy, dy, n * es, AK_D2H));
    AKT_OK(ak_memcpy(g_gpu, guard, (char*)dy + n * es, GC_PAD, AK_D2H));
    for (i = 0; i < GC_PAD; i++) if (guard[i] != 0xFF) { akt_fail(__FILE__, __LINE__, "chnorm wrote past y"); break; }
    AKT_OK(ak_memcpy(g_gpu, grm, brs, C * 4, AK_D2H));
    AKT_OK(ak_memcpy(g_gpu, grv, (char*)brs + C * 4, C * 4, AK_D2H));
    if (G == 0) AKT_OK(ak_batch_norm(g_cpu, t, hx, cy, N, C, S, affine ? hw : NULL, affine ? hb : NULL, rm, rv, training, 0.1f, 1e-5f, NULL));
    else AKT_OK(ak_group_norm(g_cpu, t, hx, cy, N, C, S, G, affine ? hw : NULL, affine ? hb : NULL, 1e-5f, NULL));
    /* f32 arithmetic cannot do better than a few units in the last place of x divided by the statistics'
     * standard deviation: a batch-norm channel of 3 values (N1 S3) may have a variance far below eps, where that
     * error reaches 1e-4 in the output. Allow it per statistics group (the reference computes in double). */
    nst = G ? N * G : C;
    if (!(gsd = (double*)calloc(nst * 3, sizeof(double)))) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    for (i = 0; i < n; i++) {
        size_t c = (i / S) % C, gi = G ? (i / (C * S)) * G + c / (C / G) : c;
        double x = ak_elem_get(hx, t, i);
        gsd[3 * gi] += x; gsd[3 * gi + 1] += x * x; if (fabs(x) > gsd[3 * gi + 2]) gsd[3 * gi + 2] = fabs(x);
    }
    for (i = 0; i < nst; i++) {
        double cnt = (double)n / (double)nst, m = gsd[3 * i] / cnt, v = gsd[3 * i + 1] / cnt - m * m;
        gsd[3 * i] = (G || training) ? 16.0 * ldexp(1.0, -24) * gsd[3 * i + 2] / sqrt((v > 0 ? v : 0) + 1e-5) : 0.0;
    }
    for (i = 0; i < n; i++) {
        double g = ak_elem_get(gy, t, i), c = ak_elem_get(cy, t, i);
        size_t ch = (i / S) % C, gi = G ? (i / (C * S)) * G + ch / (C / G) : ch;
        double w = affine ? fabs(ak_elem_get(hw, t, ch)) : 1.0;
        if (!(fabs(g - c) <= tol * (1 + fabs(c)) + gsd[3 * gi] * w) && !bad++)
            akt_fail(__FILE__, __LINE__, "%s %s N%zu C%zu S%zu G%zu training %d off %zu in-place %d: element %zu %.9g vs %.9g",
                     G ? "group_norm" : "batch_norm", ak_dtype_name(t), N, C, S, G, training, off, inplace, i, g, c);
    }
    for (i = 0; i < C && G == 0; i++)
        if (fabs(grm[i] - rm[i]) > 1e-5 * (1 + fabs(rm[i])) || fabs(grv[i] - rv[i]) > 1e-5 * (1 + fabs(rv[i]))) {
            akt_fail(__FILE__, __LINE__, "batch_norm %s: running statistics of channel %zu: %g %g vs %g %g", ak_dtype_name(t), i, grm[i],
                     grv[i], rm[i], rv[i]);
            break;
        }
done:
    ak_free(g_gpu, bx); ak_free(g_gpu, by); ak_free(g_gpu, bw); ak_free(g_gpu, bbias); ak_free(g_gpu, brs);
    free(hx); free(gy); free(cy); free(hw); free(hb); free(rm); free(rv); free(grm); free(grv); free(gsd);
}

static void test_gpu_batch_norm(void) {
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    size_t ti;
    if (!gc_setup()) return;
    for (ti = 0; ti < 3; ti++) {
        ak_dtype t = types[ti];
        gc_run(t, 3, 5, 40001, 0, 1, 1, ti % 2, 0);      /* planes of several chunks */
        gc_run(t, 7, 3, 33, 0, 1, 0, 0, 0);              /* short planes */
        gc_run(t, 2, 4, 1000, 0, 0, 1, 1, 0);            /* inference */
        gc_run(t, 4, 17, 257, 0, 1, 1, 0, 1);            /* in place */
        gc_run(t, 1, 70001, 3, 0, 1, 1, 0, 0);           /* planes past 65535 */
    }
}

static void test_gpu_group_norm(void) {
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    size_t ti;
    if (!gc_setup()) return;
    for (ti = 0; ti < 3; ti++) {
        ak_dtype t = types[ti];
        gc_run(t, 3, 8, 20001, 4, 1, 1, ti % 2, 0);      /* groups of 2 channels, several chunks */
        gc_run(t, 5, 6, 129, 6, 1, 0, 0, 0);             /* instance norm */
        gc_run(t, 2, 9, 77, 1, 1, 1, 1, 1);              /* one group, in place */
        gc_run(t, 1, 3, 50003, 3, 1, 1, 0, 0);
    }
}

static void test_gpu_chnorm_cleanup(void) {
    if (g_gpu) ak_context_destroy(g_gpu);
    if (g_cpu) ak_context_destroy(g_cpu);
    g_gpu = g_cpu = NULL;
}

void akt_suite_gpu_chnorm(void) {
    AKT_RUN(test_gpu_batch_norm);
    AKT_RUN(test_gpu_group_norm);
    AKT_RUN(test_gpu_chnorm_cleanup);
}
