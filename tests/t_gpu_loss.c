/* Suite gpu_loss (runs with --gpu, needs a GPU): ak_loss (every op, target
 * layout and reduction, KL flags) and ak_triplet_margin_loss on the device
 * against their CPU references (the same call on a cpu context) on fresh
 * random inputs, outputs poisoned with 0xFF bytes and a guard after them,
 * odd shapes (one element, partial blocks, several blocks), every dtype,
 * aligned and offset pointers. Tolerances: 1e-4 relative for per-element f32
 * losses, 1e-2 for halves; reduced values 1e-4 relative (fp32 block sums
 * added in double). */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* g_gpu;
static ak_context* g_cpu;
static unsigned long long g_rng;
#define GL_PAD 256

static int gl_setup(void) {
    if (!g_gpu) {
        if (!(g_gpu = akt_gpu_context(NULL))) return 0;
        g_rng = akt_seed() ^ 0x10557ull;
    }
    if (!g_cpu) g_cpu = akt_cpu_context("gpu_loss_ref");
    return g_cpu != NULL;
}

static void* gl_up(const void* h, size_t bytes, size_t off, void** base) {
    *base = NULL;
    if (ak_malloc(g_gpu, bytes + off + GL_PAD, NULL, base) != AK_OK) return NULL;
    if (ak_memcpy(g_gpu, (char*)*base + off, h, bytes, AK_H2D) != AK_OK) return NULL;
    return (char*)*base + off;
}

static void gl_case(ak_loss_op op, ak_dtype dt, ak_loss_target tl, ak_loss_reduction red, unsigned flags, size_t rows, size_t cols, size_t off) {
    size_t n = rows * cols, es = ak_dtype_size(dt), tn = tl == AK_TARGET_FULL ? n : tl == AK_TARGET_ROW ? cols : rows, i, bad = 0;
    size_t nout = red == AK_LOSS_NONE ? n : 1;
    void *hx = malloc(n * es), *ht = malloc(tn * es), *bx = NULL, *bt = NULL, *bo = NULL, *dx, *dt_;
    float *go = (float*)malloc(nout * 4 + GL_PAD), *co = (float*)malloc(nout * 4);
    if (!hx || !ht || !go || !co) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    for (i = 0; i < n; i++)
        ak_elem_set(hx, dt, i, op == AK_LOSS_KL_DIV ? ((flags & AK_LOSS_PROB_INPUT) ? akt_uniform(&g_rng, 0.01, 1) : akt_uniform(&g_rng, -5, -0.1))
                                                    : akt_uniform(&g_rng, -2, 2));
    for (i = 0; i < tn; i++)
        ak_elem_set(ht, dt, i, op == AK_LOSS_KL_DIV ? ((flags & AK_LOSS_LOG_TARGET) ? akt_uniform(&g_rng, -5, -0.1) : (i % 7 == 0 ? 0.0 : akt_uniform(&g_rng, 0.01, 1)))
                             : op == AK_LOSS_HINGE ? (akt_uniform(&g_rng, 0, 1) < 0.5 ? -1.0 : 1.0) : akt_uniform(&g_rng, -2, 2));
    dx = gl_up(hx, n * es, off * es, &bx);
    dt_ = gl_up(ht, tn * es, 0, &bt);
    if (!dx || !dt_ || ak_malloc(g_gpu, nout * 4 + GL_PAD, NULL, &bo) != AK_OK) { akt_fail(__FILE__, __LINE__, "device: %s", ak_last_error()); goto done; }
    AKT_OK(ak_memset(g_gpu, bo, 0xFF, nout * 4 + GL_PAD, NULL));
    AKT_OK(ak_loss(g_gpu, op, dt, dx, dt_, tl, (float*)bo, rows, cols, 0.0f, flags, red, NULL));
    AKT_OK(ak_device_synchronize(g_gpu));
    AKT_OK(ak_memcpy(g_gpu, go, bo, nout * 4 + GL_PAD, AK_D2H));
    for (i = 0; i < GL_PAD; i++) if (((unsigned char*)(go + nout))[i] != 0xFF) { akt_fail(__FILE__, __LINE__, "loss wrote past out"); break; }
    AKT_OK(ak_loss(g_cpu, op, dt, hx, ht, tl, co, rows, cols, 0.0f, flags, red, NULL));
    for (i = 0; i < nout; i++) {
        double g = go[i], c = co[i], tol = red == AK_LOSS_NONE ? (dt == AK_F32 ? 1e-4 : 1e-2) * (1 + fabs(c)) : 1e-4 * (1 + fabs(c));
        if (!(fabs(g - c) <= tol) && !bad++)
            akt_fail(__FILE__, __LINE__, "loss op %d %s layout %d reduction %d flags %u %zux%zu off %zu: [%zu] %.9g vs %.9g", (int)op,
                     ak_dtype_name(dt), (int)tl, (int)red, flags, rows, cols, off, i, g, c);
    }
done:
    ak_free(g_gpu, bx); ak_free(g_gpu, bt); ak_free(g_gpu, bo);
    free(hx); free(ht); free(go); free(co);
}

static void test_gpu_loss(void) {
    /* cols % 4 == 0 (37 x 1024, 2 x 4): the vector row / column target path */
    static const size_t shapes[][2] = { { 1, 1 }, { 7, 13 }, { 33, 1003 }, { 300, 4099 }, { 37, 1024 }, { 2, 4 } };
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    size_t s, t;
    int op, tl, red;
    if (!gl_setup()) return;
    for (s = 0; s < 6; s++)
        for (t = 0; t < 3; t++)
            for (op = 0; op < (int)AK_LOSS_OP_COUNT; op++)
                for (tl = 0; tl < 3; tl++)
                    for (red = 0; red < (int)AK_LOSS_REDUCTION_COUNT; red++) {
                        unsigned flags = op == AK_LOSS_KL_DIV ? (unsigned)((s + (size_t)red) % 4) : 0u;
                        if (tl != 0 && red % 2) continue;   /* keep the count down: every layout with none / sum */
                        gl_case((ak_loss_op)op, types[t], (ak_loss_target)tl, (ak_loss_reduction)red, flags, shapes[s][0], shapes[s][1],
                                (s + t) % 2);
                    }
}

static void test_gpu_triplet(void) {
    static const size_t shapes[][2] = { { 1, 1 }, { 7, 13 }, { 300, 1031 }, { 40, 8192 } };
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    size_t s, t, i;
    int red;
    if (!gl_setup()) return;
    for (s = 0; s < 4; s++)
        for (t = 0; t < 3; t++)
            for (red = 0; red < 3; red++) {
                ak_dtype dt = types[t];
                size_t rows = shapes[s][0], cols = shapes[s][1], n = rows * cols, es = ak_dtype_size(dt), nout = red ? 1 : rows, bad = 0;
                float norm = s == 1 ? 1.0f : 2.0f;
                int swap = (int)(s + t) % 2;
                void *ha = malloc(n * es), *hp = malloc(n * es), *hn = malloc(n * es), *ba = NULL, *bp = NULL, *bn = NULL, *bo = NULL;
                float *go = (float*)malloc(nout * 4), *co = (float*)malloc(nout * 4);
                void *da, *dp, *dn;
                if (!ha || !hp || !hn || !go || !co) goto next;
                for (i = 0; i < n; i++) {
                    ak_elem_set(ha, dt, i, akt_uniform(&g_rng, -1, 1)); ak_elem_set(hp, dt, i, akt_uniform(&g_rng, -1, 1));
                    ak_elem_set(hn, dt, i, akt_uniform(&g_rng, -1, 1));
                }
                da = gl_up(ha, n * es, (s % 2) * es, &ba); dp = gl_up(hp, n * es, 0, &bp); dn = gl_up(hn, n * es, 0, &bn);
                if (!da || !dp || !dn || ak_malloc(g_gpu, nout * 4, NULL, &bo) != AK_OK) { akt_fail(__FILE__, __LINE__, "device"); goto next; }
                AKT_OK(ak_triplet_margin_loss(g_gpu, dt, da, dp, dn, (float*)bo, rows, cols, 1.0f, norm, 1e-6f, swap, (ak_loss_reduction)red, NULL));
                AKT_OK(ak_device_synchronize(g_gpu));
                AKT_OK(ak_memcpy(g_gpu, go, bo, nout * 4, AK_D2H));
                AKT_OK(ak_triplet_margin_loss(g_cpu, dt, ha, hp, hn, co, rows, cols, 1.0f, norm, 1e-6f, swap, (ak_loss_reduction)red, NULL));
                for (i = 0; i < nout; i++)
                    if (!(fabs(go[i] - co[i]) <= 1e-4 * (1 + fabs(co[i]))) && !bad++)
                        akt_fail(__FILE__, __LINE__, "triplet %s %zux%zu norm %g swap %d reduction %d: [%zu] %.9g vs %.9g", ak_dtype_name(dt),
                                 rows, cols, (double)norm, swap, red, i, go[i], co[i]);
            next:
                ak_free(g_gpu, ba); ak_free(g_gpu, bp); ak_free(g_gpu, bn); ak_free(g_gpu, bo);
                free(ha); free(hp); free(hn); free(go); free(co);
            }
}

static void test_gpu_loss_cleanup(void) {
    if (g_gpu) ak_context_destroy(g_gpu);
    if (g_cpu) ak_context_destroy(g_cpu);
    g_gpu = g_cpu = NULL;
}

void akt_suite_gpu_loss(void) {
    AKT_RUN(test_gpu_loss);
    AKT_RUN(test_gpu_triplet);
    AKT_RUN(test_gpu_loss_cleanup);
}
