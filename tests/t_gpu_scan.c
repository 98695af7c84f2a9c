/* Suite gpu_scan (runs with --gpu, needs a GPU): ak_cumsum and ak_topk on the
 * device against the cpu backend on fresh random data over odd shapes (narrow
 * rows, rows of several tiles, few wide rows that take the reduce-then-scan
 * path, 1 x 3000017), every dtype, inclusive / exclusive, in place,
 * 1-element-offset pointers. Tolerances: integers exact; f32 1e-5 x the row's
 * running sum of |x| (+ 1e-5 relative), f16 / bf16 the output rounding
 * (2^-10 / 2^-7 relative) + 1e-4 x the running |x| sum. Top-k: values
 * (bits) and indices exact, with ties (small integers), NaN, -0 and +inf in
 * the data, largest and smallest, k = 1 .. 1024 and k = cols; twice the
 * same call gives the same bits (deterministic). */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* g_sgpu;
static ak_context* g_scpu;
static unsigned long long g_srng;

static int gs_setup(void) {
    if (!g_sgpu) {
        if (ak_context_create(NULL, &g_sgpu) != AK_OK) {
            akt_fail(__FILE__, __LINE__, "no GPU context: %s", ak_last_error());
            g_sgpu = NULL;
            return 0;
        }
        g_srng = akt_seed() ^ 0x5CA11ull;
    }
#ifndef AKT_GPU_ON_CPU
    if (ak_context_device(g_sgpu)->backend == AK_BACKEND_CPU) {
        akt_fail(__FILE__, __LINE__, "no GPU: the context fell back to the cpu backend (gpu_* suites need a GPU)");
        return 0;
    }
#endif
    if (!g_scpu) g_scpu = akt_cpu_context("gpu_sc_ref");
    return g_scpu != NULL;
}

static void* gs_dev(size_t bytes) {
    void* p = NULL;
    if (ak_malloc(g_sgpu, bytes + 64, NULL, &p) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "ak_malloc: %s", ak_last_error());
        return NULL;
    }
    ak_memset(g_sgpu, p, 0xFF, bytes + 64, NULL);
    return p;
}

static void test_gpu_cumsum(void) {
    static const size_t shapes[][2] = { { 1, 1 }, { 3, 7 }, { 300, 5000 }, { 4, 2049 }, { 2, 100003 }, { 1, 3000017 },
                                        { 1000, 33 }, { 5, 65536 } };
    static const ak_dtype types[5] = { AK_F32, AK_F16, AK_BF16, AK_I32, AK_I64 };
    size_t s;
    int t, ex;
    if (!gs_setup()) return;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (t = 0; t < 5; t++)
            for (ex = 0; ex < 2; ex++) {
                size_t rows = shapes[s][0], cols = shapes[s][1], n = rows * cols, es = ak_dtype_size(types[t]), i, r, c;
                ak_dtype dt = types[t];
                int mis = (int)((s + (size_t)t) % 2), inplace = ex && s % 3 == 0, isint = dt == AK_I32 || dt == AK_I64;
                size_t off = mis ? es : 0, nbad = 0;
                void *hx = malloc(n * es), *hy = malloc(n * es), *gy = malloc(n * es);
                void *dx = gs_dev(n * es), *dy = inplace ? dx : gs_dev(n * es);
                if (!hx || !hy || !gy || !dx || !dy) goto next;
                for (i = 0; i < n; i++) {
                    double v = isint ? (double)(int)akt_uniform(&g_srng, -1000, 1000) : akt_uniform(&g_srng, -1, 1);
                    if (dt == AK_I64 && i % 7 == 0) v *= 1e12;
                    ak_elem_set(hx, dt, i, v == 0.0 ? 0.5 : v);
                }
                AKT_OK(ak_memcpy(g_sgpu, (char*)dx + off, hx, n * es, AK_H2D));
                AKT_OK(ak_cumsum(g_sgpu, dt, (char*)dx + off, (char*)dy + off, rows, cols, ex, NULL));
                AKT_OK(ak_cumsum(g_scpu, dt, hx, hy, rows, cols, ex, NULL));
                AKT_OK(ak_memcpy(g_sgpu, gy, (char*)dy + off, n * es, AK_D2H));
                for (r = 0; r < rows; r++) {
                    double absrun = 0.0;
                    for (c = 0; c < cols; c++) {
                        size_t e = r * cols + c;
                        int ok;
                        absrun += fabs(ak_elem_get(hx, dt, e));
                        if (isint) ok = memcmp((char*)gy + e * es, (char*)hy + e * es, es) == 0;
                        else {
                            double g = ak_elem_get(gy, dt, e), w = ak_elem_get(hy, dt, e);
                            double tol = dt == AK_F32 ? 1e-5 * absrun + 1e-5 * fabs(w)
                                                      : (dt == AK_F16 ? 1.0 / 1024 : 1.0 / 128) * fabs(w) + 1e-4 * absrun;
                            ok = fabs(g - w) <= tol;
                        }
                        if (!ok) {
                            if (!nbad)
                                akt_fail(__FILE__, __LINE__, "cumsum %s %zux%zu ex=%d%s%s [%zu,%zu]: gpu %.9g cpu %.9g",
                                         ak_dtype_name(dt), rows, cols, ex, mis ? " offset" : "", inplace ? " in place" : "",
                                         r, c, ak_elem_get(gy, dt, e), ak_elem_get(hy, dt, e));
                            nbad++;
                        }
                    }
                }
            next:
                free(hx); free(hy); free(gy);
                ak_free(g_sgpu, dx);
                if (!inplace) ak_free(g_sgpu, dy);
            }
}

/* ak_scan: products (values near 1 so long rows stay finite), reversed, masked, exclusive; every dtype */
static void test_gpu_scan_general(void) {
    static const size_t shapes[][2] = { { 1, 1 }, { 3, 7 }, { 300, 5000 }, { 2, 100003 }, { 1000, 33 }, { 5, 65536 } };
    static const ak_dtype types[5] = { AK_F32, AK_F16, AK_BF16, AK_I32, AK_I64 };
    size_t s;
    int t, v;
    if (!gs_setup()) return;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (t = 0; t < 5; t++)
            for (v = 0; v < 4; v++) {
                size_t rows = shapes[s][0], cols = shapes[s][1], n = rows * cols, es = ak_dtype_size(types[t]), i, r, c;
                ak_dtype dt = types[t];
                ak_scan_op op = v % 2 ? AK_SCAN_PROD : AK_SCAN_SUM;
                unsigned flags = v == 0 ? AK_SCAN_REVERSE : v == 1 ? AK_SCAN_REVERSE | AK_SCAN_EXCLUSIVE : v == 2 ? AK_SCAN_EXCLUSIVE : 0u;
                int masked = v >= 2, isint = dt == AK_I32 || dt == AK_I64, mis = (int)((s + (size_t)t + (size_t)v) % 2);
                size_t off = mis ? es : 0, nbad = 0;
                void *hx = malloc(n * es), *hy = malloc(n * es), *gy = malloc(n * es);
                uint8_t* hm = (uint8_t*)malloc(n);
                void *dx = gs_dev(n * es + es), *dy = gs_dev(n * es + es), *dm = gs_dev(n + 1);
                if (!hx || !hy || !gy || !hm || !dx || !dy || !dm) goto next;
                for (i = 0; i < n; i++) {
                    double x;
                    if (op == AK_SCAN_PROD) x = isint ? (akt_uniform(&g_srng, 0, 1) < 0.5 ? -1.0 : 1.0) * (i % 97 == 0 ? 3 : 1)
                                                      : akt_uniform(&g_srng, 0.999, 1.001);
                    else x = isint ? (double)(int)akt_uniform(&g_srng, -1000, 1000) : akt_uniform(&g_srng, -1, 1);
                    ak_elem_set(hx, dt, i, x == 0.0 ? 0.5 : x);
                    hm[i] = (uint8_t)(akt_uniform(&g_srng, 0, 1) < 0.7);
                }
                AKT_OK(ak_memcpy(g_sgpu, (char*)dx + off, hx, n * es, AK_H2D));
                AKT_OK(ak_memcpy(g_sgpu, dm, hm, n, AK_H2D));
                AKT_OK(ak_scan(g_sgpu, op, dt, (char*)dx + off, masked ? (uint8_t*)dm : NULL, (char*)dy + off, rows, cols, flags, NULL));
                AKT_OK(ak_scan(g_scpu, op, dt, hx, masked ? hm : NULL, hy, rows, cols, flags, NULL));
                AKT_OK(ak_memcpy(g_sgpu, gy, (char*)dy + off, n * es, AK_D2H));
                for (r = 0; r < rows; r++) {
                    double absrun = 0.0;
                    for (c = 0; c < cols; c++) {
                        size_t e = r * cols + ((flags & AK_SCAN_REVERSE) ? cols - 1 - c : c);
                        int ok;
                        absrun += fabs(ak_elem_get(hx, dt, e));
                        if (isint) ok = memcmp((char*)gy + e * es, (char*)hy + e * es, es) == 0;
                        else {
                            double g = ak_elem_get(gy, dt, e), w = ak_elem_get(hy, dt, e);
                            double tol = op == AK_SCAN_PROD ? (dt == AK_F32 ? 1e-4 : 1e-2) * (1 + fabs(w))
                                         : dt == AK_F32 ? 1e-5 * absrun + 1e-5 * fabs(w)
                                                        : (dt == AK_F16 ? 1.0 / 1024 : 1.0 / 128) * fabs(w) + 1e-4 * absrun;
                            ok = fabs(g - w) <= tol;
                        }
                        if (!ok) {
                            if (!nbad)
                                akt_fail(__FILE__, __LINE__, "scan %s %s %zux%zu flags %u mask %d%s [%zu,%zu]: gpu %.9g cpu %.9g",
                                         op == AK_SCAN_PROD ? "prod" : "sum", ak_dtype_name(dt), rows, cols, flags, masked,
                                         mis ? " offset" : "", r, c, ak_elem_get(gy, dt, e), ak_elem_get(hy, dt, e));
                            nbad++;
                        }
                    }
                }
            next:
                free(hx); free(hy); free(gy); free(hm);
                ak_free(g_sgpu, dx); ak_free(g_sgpu, dy); ak_free(g_sgpu, dm);
            }
}

static void test_gpu_topk(void) {
    static const struct { size_t rows, cols; int k; } cs[] = {
        { 1, 1, 1 }, { 3, 1000, 7 }, { 5, 128256, 50 }, { 2, 128256, 1024 }, { 7, 4096, 8 }, { 64, 33, 33 },
        { 300, 2049, 100 }, { 2, 20000, 1000 } };
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    size_t s;
    int t, lg, ties;
    if (!gs_setup()) return;
    for (s = 0; s < sizeof cs / sizeof cs[0]; s++)
        for (t = 0; t < 3; t++)
            for (lg = 0; lg < 2; lg++)
                for (ties = 0; ties < 2; ties++) {
                    size_t rows = cs[s].rows, cols = cs[s].cols, n = rows * cols, es = ak_dtype_size(types[t]), i;
                    size_t nk = rows * (size_t)cs[s].k;
                    ak_dtype dt = types[t];
                    int k = cs[s].k, rep;
                    void *hx = malloc(n * es), *hv = malloc(nk * es), *gv = malloc(nk * es), *dx = gs_dev(n * es),
                         *dv = gs_dev(nk * es);
                    int64_t *hi = (int64_t*)malloc(nk * 8), *gi = (int64_t*)malloc(nk * 8), *di = (int64_t*)gs_dev(nk * 8);
                    if (!hx || !hv || !gv || !dx || !dv || !hi || !gi || !di) goto next;
                    for (i = 0; i < n; i++)
                        ak_elem_set(hx, dt, i, ties ? (double)(int)akt_uniform(&g_srng, -20, 20) : akt_uniform(&g_srng, -50, 50));
                    if (ties && cols > 8)
                        for (i = 0; i < rows; i++) {
                            ak_elem_set(hx, dt, i * cols + 3, NAN);
                            ak_elem_set(hx, dt, i * cols + 5, -0.0);
                            ak_elem_set(hx, dt, i * cols + cols - 2, INFINITY);
                            ak_elem_set(hx, dt, i * cols + cols - 1, NAN);
                        }
                    AKT_OK(ak_memcpy(g_sgpu, dx, hx, n * es, AK_H2D));
                    AKT_OK(ak_topk(g_scpu, dt, hx, hv, hi, rows, cols, k, lg, NULL));
                    for (rep = 0; rep < 2; rep++) {
                        AKT_OK(ak_topk(g_sgpu, dt, dx, dv, di, rows, cols, k, lg, NULL));
                        AKT_OK(ak_memcpy(g_sgpu, gv, dv, nk * es, AK_D2H));
                        AKT_OK(ak_memcpy(g_sgpu, gi, di, nk * 8, AK_D2H));
                        for (i = 0; i < nk; i++)
                            if (gi[i] != hi[i] || memcmp((char*)gv + i * es, (char*)hv + i * es, es) != 0) {
                                akt_fail(__FILE__, __LINE__,
                                         "topk %s %zux%zu k=%d largest=%d ties=%d rep %d: row %zu [%zu]: gpu (%.9g, %lld) cpu (%.9g, %lld)",
                                         ak_dtype_name(dt), rows, cols, k, lg, ties, rep, i / (size_t)k, i % (size_t)k,
                                         ak_elem_get(gv, dt, i), (long long)gi[i], ak_elem_get(hv, dt, i), (long long)hi[i]);
                                break;
                            }
                        ak_memset(g_sgpu, dv, 0xFF, nk * es, NULL);
                    }
                next:
                    free(hx); free(hv); free(gv); free(hi); free(gi);
                    ak_free(g_sgpu, dx); ak_free(g_sgpu, dv); ak_free(g_sgpu, di);
                }
}

static void test_gpu_scan_cleanup(void) {
    ak_context_destroy(g_sgpu);
    ak_context_destroy(g_scpu);
    g_sgpu = NULL;
    g_scpu = NULL;
}

void akt_suite_gpu_scan(void) {
    AKT_RUN(test_gpu_cumsum);
    AKT_RUN(test_gpu_scan_general);
    AKT_RUN(test_gpu_topk);
    AKT_RUN(test_gpu_scan_cleanup);
}
