/* Suite gpu_elementwise (runs with --gpu, needs a GPU): every element-wise
 * kernel on the device against its CPU reference (the same op on a cpu
 * context) on fresh random inputs, output poisoned with 0xFF bytes (NaN)
 * before the run, odd sizes, aligned (vector path) and 1-element-offset
 * (scalar path) pointers, all dtypes; KernelBench tolerances (atol = rtol =
 * 1e-4 for f32, 1e-2 for f16/bf16); NaN in an output is a failure. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* g_gpu;   /* one device context for the suite */
static ak_context* g_cpu;   /* the reference */
static unsigned long long g_rng;

static const ak_dtype gt_types[3] = { AK_F32, AK_F16, AK_BF16 };
static const size_t gt_sizes[3] = { 1, 7, 1000003 };
#define GT_PAD 64 /* elements after the output that must keep the poison */

static int gt_setup(void) {
    if (!g_gpu) {
        if (!(g_gpu = akt_gpu_context(NULL))) return 0;   /* AKT_GPU_ON_CPU: dry-run on the cpu backend */
        g_rng = akt_seed() ^ 0xE1E3E7ull;
    }
    if (!g_cpu) g_cpu = akt_cpu_context("gpu_ew_ref");
    return g_cpu != NULL;
}

static double gt_tol(ak_dtype t) { return t == AK_F32 ? 1e-4 : 1e-2; }

/* What the op is. */
typedef enum { GT_FILL, GT_COPY, GT_CAST, GT_AXPY, GT_SCALE, GT_BINARY, GT_UNARY } gt_kind;

static ak_result gt_call(ak_context* c, gt_kind k, int op, ak_dtype t, ak_dtype t2, void* x, void* y, void* z,
                         size_t n, float a) {
    switch (k) {
    case GT_FILL: return ak_fill(c, t, y, n, a, NULL);
    case GT_COPY: return ak_copy(c, t, x, y, n, NULL);
    case GT_CAST: return ak_cast(c, t, x, t2, y, n, NULL);
    case GT_AXPY: return ak_axpy(c, t, x, y, n, a, NULL);
    case GT_SCALE: return ak_scale(c, t, x, y, n, a, NULL);
    case GT_BINARY: return ak_binary(c, (ak_binary_op)op, t, x, y, z, n, NULL);
    default: return ak_unary(c, (ak_unary_op)op, t, x, y, n, a, NULL);
    }
}

static void gt_random(void* p, ak_dtype t, size_t n, double lo, double hi) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(&g_rng, lo, hi);
        if (fabs(v) < 0.01) v = 0.5;   /* never zero */
        ak_elem_set(p, t, i, v);
    }
}

/* Compare n elements of dtype t; count bad ones, report the first. */
static size_t gt_compare(const char* what, const void* got, const void* ref, ak_dtype t, size_t n) {
    size_t i, bad = 0;
    double tol = gt_tol(t);
    for (i = 0; i < n; i++) {
        double g = ak_elem_get(got, t, i), r = ak_elem_get(ref, t, i);
        int ok = (g == g) ? fabs(g - r) <= tol + tol * fabs(r) : 0;
        if (!ok) {
            if (!bad) akt_fail(__FILE__, __LINE__, "%s: [%zu] = %.8g, reference %.8g", what, i, g, r);
            bad++;
        }
    }
    return bad;
}

/* Run one case: kind/op on dtype t (t2: cast destination), n elements,
 * element offset off (0: 16-byte aligned, 1: scalar path). */
static void gt_case(gt_kind k, int op, ak_dtype t, ak_dtype t2, size_t n, size_t off, float a) {
    ak_dtype to = (k == GT_CAST || k == GT_COPY) ? t2 : t;   /* output dtype */
    size_t es = ak_dtype_size(t), eo = ak_dtype_size(to);
    size_t in_bytes = (n + off + GT_PAD) * es, out_bytes = (n + off + GT_PAD) * eo;
    void *hx = malloc(in_bytes), *hy = malloc(in_bytes > out_bytes ? in_bytes : out_bytes), *hout = malloc(out_bytes);
    void *rx = malloc(in_bytes), *ry = malloc(in_bytes > out_bytes ? in_bytes : out_bytes);
    void *rz = malloc(out_bytes);
    void *dx = NULL, *dy = NULL, *dz = NULL;
    char what[160];
    size_t i, bad;
    int out_is_z = (k == GT_BINARY);
    const unsigned char* pad;

    snprintf(what, sizeof what, "%s%s%s %s%s%s n=%zu off=%zu",
             k == GT_FILL ? "fill" : k == GT_COPY ? "copy" : k == GT_CAST ? "cast" : k == GT_AXPY ? "axpy"
             : k == GT_SCALE ? "scale" : k == GT_BINARY ? "binary " : "unary ",
             k == GT_BINARY ? ak_binary_op_name((ak_binary_op)op) : "", k == GT_UNARY ? ak_unary_op_name((ak_unary_op)op) : "",
             ak_dtype_name(t), k == GT_CAST ? "->" : "", k == GT_CAST ? ak_dtype_name(t2) : "", n, off);
    if (!hx || !hy || !hout || !rx || !ry || !rz) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    gt_random(hx, t, n + off + GT_PAD, -5, 5);
    gt_random(hy, t, n + off + GT_PAD, k == GT_BINARY && op == AK_OP_DIV ? 0.5 : -5, 5);
    AKT_OK(ak_malloc(g_gpu, in_bytes, NULL, &dx));
    AKT_OK(ak_malloc(g_gpu, in_bytes > out_bytes ? in_bytes : out_bytes, NULL, &dy));
    AKT_OK(ak_malloc(g_gpu, out_bytes, NULL, &dz));
    if (!dx || !dy || !dz) goto done;
    AKT_OK(ak_memcpy(g_gpu, dx, hx, in_bytes, AK_H2D));
    /* y is an input for axpy and binary; else it is the output: poison it */
    if (k == GT_AXPY || k == GT_BINARY) AKT_OK(ak_memcpy(g_gpu, dy, hy, in_bytes, AK_H2D));
    else AKT_OK(ak_memset(g_gpu, dy, 0xFF, out_bytes, NULL));
    AKT_OK(ak_memset(g_gpu, dz, 0xFF, out_bytes, NULL));

    AKT_OK(gt_call(g_gpu, k, op, t, t2, (char*)dx + off * es, (char*)dy + off * (k == GT_AXPY || k == GT_BINARY ? es : eo),
                   (char*)dz + off * eo, n, a));
    AKT_OK(ak_device_synchronize(g_gpu));
    AKT_OK(ak_memcpy(g_gpu, hout, out_is_z ? dz : dy, out_bytes, AK_D2H));

    /* reference on host copies (poisoned the same way) */
    memcpy(rx, hx, in_bytes);
    if (k == GT_AXPY || k == GT_BINARY) memcpy(ry, hy, in_bytes);
    else memset(ry, 0xFF, out_bytes);
    memset(rz, 0xFF, out_bytes);
    AKT_OK(gt_call(g_cpu, k, op, t, t2, (char*)rx + off * es, (char*)ry + off * (k == GT_AXPY || k == GT_BINARY ? es : eo),
                   (char*)rz + off * eo, n, a));
    bad = gt_compare(what, (char*)hout + off * eo, (char*)(out_is_z ? rz : ry) + off * eo, to, n);
    AKT_CHECKF(bad == 0, "%s: %zu of %zu elements wrong", what, bad, n);
    /* nothing written outside [off, off + n) of the output (y of axpy keeps its input) */
    if (k != GT_AXPY) {
        pad = (const unsigned char*)hout;
        for (i = 0; i < off * eo; i++) AKT_CHECKF(pad[i] == 0xFF, "%s: wrote before the start", what);
        pad = (const unsigned char*)hout + (n + off) * eo;
        for (i = 0; i < GT_PAD * eo; i++)
            if (pad[i] != 0xFF) { akt_fail(__FILE__, __LINE__, "%s: wrote past the end", what); break; }
    }
done:
    ak_free(g_gpu, dx); ak_free(g_gpu, dy); ak_free(g_gpu, dz);
    free(hx); free(hy); free(hout); free(rx); free(ry); free(rz);
}

static void test_gpu_fill(void) {
    int ti, si;
    size_t off;
    if (!gt_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < 3; si++)
            for (off = 0; off < 2; off++)
                gt_case(GT_FILL, 0, gt_types[ti], gt_types[ti], gt_sizes[si], off, (float)akt_uniform(&g_rng, 0.5, 2));
}

static void test_gpu_copy_cast(void) {
    int a, b, si;
    size_t off;
    if (!gt_setup()) return;
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++)
            for (si = 0; si < 3; si++)
                for (off = 0; off < 2; off++) {
                    gt_case(GT_CAST, 0, gt_types[a], gt_types[b], gt_sizes[si], off, 0.0f);
                    if (a == b) gt_case(GT_COPY, 0, gt_types[a], gt_types[b], gt_sizes[si], off, 0.0f);
                }
}

static void test_gpu_axpy_scale(void) {
    int ti, si;
    size_t off;
    if (!gt_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < 3; si++)
            for (off = 0; off < 2; off++) {
                gt_case(GT_AXPY, 0, gt_types[ti], gt_types[ti], gt_sizes[si], off, (float)akt_uniform(&g_rng, -2, 2));
                gt_case(GT_SCALE, 0, gt_types[ti], gt_types[ti], gt_sizes[si], off, (float)akt_uniform(&g_rng, -2, 2));
            }
}

static void test_gpu_binary(void) {
    int ti, si, op;
    size_t off;
    if (!gt_setup()) return;
    for (op = 0; op < (int)AK_BINARY_OP_COUNT; op++)
        for (ti = 0; ti < 3; ti++)
            for (si = 0; si < 3; si++)
                for (off = 0; off < 2; off++) gt_case(GT_BINARY, op, gt_types[ti], gt_types[ti], gt_sizes[si], off, 0.0f);
}

static void test_gpu_unary(void) {
    int ti, si, op;
    size_t off;
    if (!gt_setup()) return;
    for (op = 0; op < (int)AK_UNARY_OP_COUNT; op++)
        for (ti = 0; ti < 3; ti++)
            for (si = 0; si < 3; si++)
                for (off = 0; off < 2; off++)
                    gt_case(GT_UNARY, op, gt_types[ti], gt_types[ti], gt_sizes[si], off, (float)akt_uniform(&g_rng, 0.01, 0.3));
}

/* One transpose case on the device against the cpu backend (a transpose moves bits: exact), y poisoned and
 * guarded past its end: ak_transpose for nb == 0, else ak_transpose_batched of nb matrices. */
static void gt_transpose_case(ak_dtype t, size_t nb, size_t rows, size_t cols) {
    const size_t n = (nb ? nb : 1) * rows * cols, es = ak_dtype_size(t), bytes = (n + GT_PAD) * es;
    size_t bad = 0, i;
    void *hx = malloc(bytes), *hy = malloc(bytes), *ry = malloc(bytes);
    void *dx = NULL, *dy = NULL;
    if (!hx || !hy || !ry) { akt_fail(__FILE__, __LINE__, "host OOM"); free(hx); free(hy); free(ry); return; }
    gt_random(hx, t, n + GT_PAD, -100, 100);
    AKT_OK(ak_malloc(g_gpu, bytes, NULL, &dx));
    AKT_OK(ak_malloc(g_gpu, bytes, NULL, &dy));
    if (dx && dy) {
        AKT_OK(ak_memcpy(g_gpu, dx, hx, bytes, AK_H2D));
        AKT_OK(ak_memset(g_gpu, dy, 0xFF, bytes, NULL));
        AKT_OK(nb ? ak_transpose_batched(g_gpu, t, dx, dy, nb, rows, cols, NULL) : ak_transpose(g_gpu, t, dx, dy, rows, cols, NULL));
        AKT_OK(ak_device_synchronize(g_gpu));
        AKT_OK(ak_memcpy(g_gpu, hy, dy, bytes, AK_D2H));
        memset(ry, 0xFF, bytes);
        AKT_OK(nb ? ak_transpose_batched(g_cpu, t, hx, ry, nb, rows, cols, NULL) : ak_transpose(g_cpu, t, hx, ry, rows, cols, NULL));
        for (i = 0; i < n; i++)
            if (memcmp((char*)hy + i * es, (char*)ry + i * es, es)) {
                if (!bad) akt_fail(__FILE__, __LINE__, "transpose %s %zu x %zux%zu: element %zu differs", ak_dtype_name(t), nb, rows, cols, i);
                bad++;
            }
        for (i = n * es; i < bytes; i++)
            if (((unsigned char*)hy)[i] != 0xFF) {
                akt_fail(__FILE__, __LINE__, "transpose %s %zu x %zux%zu: wrote past the end", ak_dtype_name(t), nb, rows, cols);
                break;
            }
        AKT_CHECKF(bad == 0, "transpose %s %zu x %zux%zu: %zu elements wrong", ak_dtype_name(t), nb, rows, cols, bad);
    }
    ak_free(g_gpu, dx);
    ak_free(g_gpu, dy);
    free(hx); free(hy); free(ry);
}

static void test_gpu_transpose(void) {
    static const size_t shapes[][2] = { { 1, 1 }, { 1, 7 }, { 7, 1 }, { 33, 65 }, { 1000, 1003 }, { 4097, 3 },
                                        { 3, 4097 }, { 1000003, 2 }, { 2048, 4096 },
                                        { 64, 64 }, { 130, 66 }, { 64, 96 }, { 2, 100000 } };
    int ti;
    size_t s;
    if (!gt_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) gt_transpose_case(gt_types[ti], 0, shapes[s][0], shapes[s][1]);
}

/* ak_transpose_batched: whole and edge tiles, odd extents, vectors, a batch of 64 */
static void test_gpu_transpose_batched(void) {
    static const size_t shapes[][3] = { { 3, 33, 65 }, { 16, 16, 1000 }, { 5, 64, 64 }, { 7, 1, 9 }, { 2, 130, 67 }, { 64, 24, 35 } };
    int ti;
    size_t s;
    if (!gt_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++) gt_transpose_case(gt_types[ti], shapes[s][0], shapes[s][1], shapes[s][2]);
}

static void test_gpu_in_place(void) {
    /* y == x for unary/scale and z == x for binary, on the vector path */
    const size_t n = 4099;
    float *h = (float*)malloc(n * sizeof(float)), *r = (float*)malloc(n * sizeof(float)), *o = (float*)malloc(n * sizeof(float));
    void* d = NULL;
    if (!gt_setup() || !h || !r || !o) { free(h); free(r); free(o); return; }
    gt_random(h, AK_F32, n, -3, 3);
    AKT_OK(ak_malloc(g_gpu, n * sizeof(float), NULL, &d));
    if (d) {
        memcpy(r, h, n * sizeof(float));
        AKT_OK(ak_memcpy(g_gpu, d, h, n * sizeof(float), AK_H2D));
        AKT_OK(ak_unary(g_gpu, AK_OP_SILU, AK_F32, d, d, n, 0.0f, NULL));
        AKT_OK(ak_scale(g_gpu, AK_F32, d, d, n, -1.5f, NULL));
        AKT_OK(ak_binary(g_gpu, AK_OP_MUL, AK_F32, d, d, d, n, NULL));
        AKT_OK(ak_device_synchronize(g_gpu));
        AKT_OK(ak_memcpy(g_gpu, o, d, n * sizeof(float), AK_D2H));
        AKT_OK(ak_unary(g_cpu, AK_OP_SILU, AK_F32, r, r, n, 0.0f, NULL));
        AKT_OK(ak_scale(g_cpu, AK_F32, r, r, n, -1.5f, NULL));
        AKT_OK(ak_binary(g_cpu, AK_OP_MUL, AK_F32, r, r, r, n, NULL));
        AKT_CHECK(gt_compare("in place chain f32", o, r, AK_F32, n) == 0);
    }
    ak_free(g_gpu, d);
    free(h); free(r); free(o);
}

static void test_gpu_cleanup(void) {
    ak_context_destroy(g_gpu);
    ak_context_destroy(g_cpu);
    g_gpu = g_cpu = NULL;
}

void akt_suite_gpu_elementwise(void) {
    AKT_RUN(test_gpu_fill);
    AKT_RUN(test_gpu_copy_cast);
    AKT_RUN(test_gpu_axpy_scale);
    AKT_RUN(test_gpu_binary);
    AKT_RUN(test_gpu_unary);
    AKT_RUN(test_gpu_transpose);
    AKT_RUN(test_gpu_transpose_batched);
    AKT_RUN(test_gpu_in_place);
    AKT_RUN(test_gpu_cleanup);
}
