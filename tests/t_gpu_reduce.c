/* Suite gpu_reduce (runs with --gpu, needs a GPU): every reduction, softmax,
 * norm and cross-entropy kernel on the device against its CPU reference (the
 * same op on a cpu context), on fresh random inputs (never zeros), output
 * poisoned with 0xFF bytes (NaN / -1) before the run, odd shapes (1, 7,
 * 1000003, 4097-wide rows, 393216-wide softmax rows, rows wider than the
 * split path takes), 16-byte-aligned (vector path) and 1-element-offset
 * (scalar path) pointers, all dtypes, every kernel path. Tolerances: the
 * KernelBench ones (atol = rtol = 1e-4 for f32 outputs, 1e-2 for f16/bf16),
 * relative to the row's sum of |x| for sums over many elements; max / min /
 * argmax / argmin exact; NaN where the reference has none is a failure.
 * Also: bitwise determinism of repeated runs, -inf / NaN handling, and the
 * NaN a bad cross-entropy target gives. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* g_gpu;   /* one device context for the suite */
static ak_context* g_cpu;   /* the reference */
static unsigned long long g_rng;

static const ak_dtype gr_types[3] = { AK_F32, AK_F16, AK_BF16 };
#define GR_PAD 256 /* bytes after each output that must keep the poison */

static int gr_setup(void) {
    if (!g_gpu) {
        if (!(g_gpu = akt_gpu_context(NULL))) return 0;   /* AKT_GPU_ON_CPU: dry-run on the cpu backend */
        g_rng = akt_seed() ^ 0x9E3779B9ull;
    }
    if (!g_cpu) g_cpu = akt_cpu_context("gpu_rd_ref");
    return g_cpu != NULL;
}

static int gr_cus(void) {
    int c = ak_context_device(g_gpu)->compute_units;
    return c > 0 ? c : 64;
}

static int gr_isnan(double v) { return v != v; }

static void gr_random(void* p, ak_dtype t, size_t n, double lo, double hi) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(&g_rng, lo, hi);
        if (fabs(v) < 0.01) v = 0.5; /* never zero */
        ak_elem_set(p, t, i, v);
    }
}

typedef enum { GR_REDUCE, GR_SOFTMAX, GR_LAYERNORM, GR_RMSNORM, GR_XENT } gr_kind;

/* One case's buffers: host inputs, device copies, outputs of both sides. */
typedef struct gr_bufs {
    void *hx, *hw, *hb, *dx, *dw, *db, *dy, *gy, *cy;
    int64_t *ht, *dt;
    size_t xbytes, ybytes, wbytes;
} gr_bufs;

static void gr_free(gr_bufs* b) {
    free(b->hx); free(b->hw); free(b->hb); free(b->gy); free(b->cy); free(b->ht);
    if (g_gpu) {
        ak_free(g_gpu, b->dx); ak_free(g_gpu, b->dw); ak_free(g_gpu, b->db); ak_free(g_gpu, b->dy);
        ak_free(g_gpu, b->dt);
    }
    memset(b, 0, sizeof *b);
}

/* Call the op on context c. op: reduce op / log flag / reduction; flags: bit 0
 * weight, bit 1 bias. */
static ak_result gr_call(ak_context* c, gr_kind k, int op, int flags, ak_dtype t, const void* x, const void* w,
                         const void* b, const int64_t* tg, void* y, size_t rows, size_t cols) {
    switch (k) {
    case GR_REDUCE: return ak_reduce(c, (ak_reduce_op)op, t, x, y, rows, cols, NULL);
    case GR_SOFTMAX: return ak_softmax(c, t, x, y, rows, cols, op, NULL);
    case GR_LAYERNORM:
        return ak_layernorm(c, t, x, (flags & 1) ? w : NULL, (flags & 2) ? b : NULL, y, rows, cols, 1e-5f, NULL);
    case GR_RMSNORM: return ak_rmsnorm(c, t, x, (flags & 1) ? w : NULL, y, rows, cols, 1e-6f, NULL);
    default: return ak_cross_entropy(c, t, x, tg, (float*)y, rows, cols, -100, (ak_loss_reduction)op, NULL);
    }
}

/* Output element type and count. */
static ak_dtype gr_out_type(gr_kind k, int op, ak_dtype t) {
    if (k == GR_REDUCE) return (op == AK_REDUCE_ARGMAX || op == AK_REDUCE_ARGMIN) ? AK_I64 : AK_F32;
    if (k == GR_XENT) return AK_F32;
    return t;
}
static size_t gr_out_count(gr_kind k, int op, size_t rows, size_t cols) {
    if (k == GR_REDUCE) return rows;
    if (k == GR_XENT) return op == AK_LOSS_NONE ? rows : 1;
    return rows * cols;
}

static const char* gr_kind_name(gr_kind k, int op) {
    switch (k) {
    case GR_REDUCE: return ak_reduce_op_name((ak_reduce_op)op);
    case GR_SOFTMAX: return op ? "log_softmax" : "softmax";
    case GR_LAYERNORM: return "layernorm";
    case GR_RMSNORM: return "rmsnorm";
    default: return op == AK_LOSS_NONE ? "cross_entropy" : op == AK_LOSS_MEAN ? "cross_entropy(mean)" : "cross_entropy(sum)";
    }
}

/* Sum of |x| over row r (the scale of a sum's rounding error). */
static double gr_row_abs(const void* x, ak_dtype t, size_t r, size_t cols) {
    size_t c;
    double s = 0.0;
    for (c = 0; c < cols; c++) s += fabs(ak_elem_get(x, t, r * cols + c));
    return s;
}

/* Fill the inputs; inject: 1 = a few -inf entries (softmax), 2 = a NaN in row 0. */
static int gr_prepare(gr_bufs* b, gr_kind k, ak_dtype t, size_t rows, size_t cols, size_t off, int inject) {
    size_t es = ak_dtype_size(t), n = rows * cols, r;
    memset(b, 0, sizeof *b);
    b->xbytes = (n + off) * es;
    b->wbytes = (cols + off) * es;
    b->hx = malloc(b->xbytes);
    b->hw = malloc(b->wbytes);
    b->hb = malloc(b->wbytes);
    b->ht = (int64_t*)malloc(rows * 8);
    if (!b->hx || !b->hw || !b->hb || !b->ht) { akt_fail(__FILE__, __LINE__, "host out of memory"); return 0; }
    gr_random(b->hx, t, n + off, k == GR_XENT ? -8.0 : -5.0, 5.0);
    gr_random(b->hw, t, cols + off, 0.5, 2.0);
    gr_random(b->hb, t, cols + off, -1.0, 1.0);
    if (inject == 1)
        for (r = 0; r < rows; r++) {
            ak_elem_set(b->hx, t, off + r * cols, -INFINITY);
            if (cols > 5) ak_elem_set(b->hx, t, off + r * cols + cols / 2, -INFINITY);
        }
    if (inject == 2) ak_elem_set(b->hx, t, off + cols / 3, NAN);
    for (r = 0; r < rows; r++) {
        double u = akt_uniform(&g_rng, 0.0, (double)cols);
        b->ht[r] = (int64_t)u < (int64_t)cols ? (int64_t)u : (int64_t)cols - 1;
        if (rows > 3 && r % 5 == 2) b->ht[r] = -100; /* ignored rows */
    }
    if (ak_malloc(g_gpu, b->xbytes, NULL, &b->dx) != AK_OK || ak_malloc(g_gpu, b->wbytes, NULL, &b->dw) != AK_OK ||
        ak_malloc(g_gpu, b->wbytes, NULL, &b->db) != AK_OK || ak_malloc(g_gpu, rows * 8, NULL, (void**)&b->dt) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "device alloc: %s", ak_last_error());
        return 0;
    }
    AKT_OK(ak_memcpy(g_gpu, b->dx, b->hx, b->xbytes, AK_H2D));
    AKT_OK(ak_memcpy(g_gpu, b->dw, b->hw, b->wbytes, AK_H2D));
    AKT_OK(ak_memcpy(g_gpu, b->db, b->hb, b->wbytes, AK_H2D));
    AKT_OK(ak_memcpy(g_gpu, b->dt, b->ht, rows * 8, AK_H2D));
    return 1;
}

/* Run one case on both sides and compare. */
static void gr_case(gr_kind k, int op, int flags, ak_dtype t, size_t rows, size_t cols, size_t off, int inject) {
    gr_bufs b;
    ak_dtype ot = gr_out_type(k, op, t);
    size_t es = ak_dtype_size(t), eo = ak_dtype_size(ot), no = gr_out_count(k, op, rows, cols), i, bad = 0;
    size_t yoff = (k == GR_SOFTMAX || k == GR_LAYERNORM || k == GR_RMSNORM) ? off : 0;
    char what[200];
    ak_result rg, rc;
    snprintf(what, sizeof what, "%s %s %zux%zu off=%zu%s%s%s", gr_kind_name(k, op), ak_dtype_name(t), rows, cols, off,
             (k == GR_LAYERNORM || k == GR_RMSNORM) && (flags & 1) ? " +w" : "",
             k == GR_LAYERNORM && (flags & 2) ? " +b" : "", inject == 1 ? " -inf" : inject == 2 ? " nan" : "");
    if (!gr_prepare(&b, k, t, rows, cols, off, inject)) { gr_free(&b); return; }
    b.ybytes = (no + yoff) * eo;
    b.gy = malloc(b.ybytes + GR_PAD);
    b.cy = malloc(b.ybytes + GR_PAD);
    if (!b.gy || !b.cy || ak_malloc(g_gpu, b.ybytes + GR_PAD, NULL, &b.dy) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "%s: out of memory", what);
        gr_free(&b);
        return;
    }
    AKT_OK(ak_memset(g_gpu, b.dy, 0xFF, b.ybytes + GR_PAD, NULL));
    memset(b.cy, 0xFF, b.ybytes + GR_PAD);

    rg = gr_call(g_gpu, k, op, flags, t, (char*)b.dx + off * es, (char*)b.dw + off * es, (char*)b.db + off * es, b.dt,
                 (char*)b.dy + yoff * eo, rows, cols);
    AKT_CHECKF(rg == AK_OK, "%s: gpu call -> %s: %s", what, ak_result_name(rg), ak_last_error());
    AKT_OK(ak_device_synchronize(g_gpu));
    AKT_OK(ak_memcpy(g_gpu, b.gy, b.dy, b.ybytes + GR_PAD, AK_D2H));
    rc = gr_call(g_cpu, k, op, flags, t, (char*)b.hx + off * es, (char*)b.hw + off * es, (char*)b.hb + off * es, b.ht,
                 (char*)b.cy + yoff * eo, rows, cols);
    AKT_CHECKF(rc == AK_OK, "%s: cpu reference -> %s: %s", what, ak_result_name(rc), ak_last_error());

    for (i = 0; i < no && rg == AK_OK; i++) {
        double g, c, tol;
        int ok;
        if (ot == AK_I64) {
            int64_t gi = ((int64_t*)b.gy)[yoff + i], ci = ((int64_t*)b.cy)[yoff + i];
            ok = gi == ci;
            g = (double)gi;
            c = (double)ci;
        } else {
            g = ak_elem_get(b.gy, ot, yoff + i);
            c = ak_elem_get(b.cy, ot, yoff + i);
            if (k == GR_REDUCE && (op == AK_REDUCE_MAX || op == AK_REDUCE_MIN)) tol = 0.0;
            else if (k == GR_REDUCE) {
                double as = gr_row_abs((char*)b.hx + off * es, t, i, cols);
                if (op == AK_REDUCE_MEAN) as /= (double)cols;
                tol = 1e-4 * (1.0 + fabs(c)) + 5e-7 * as;
            } else if (k == GR_XENT) tol = 1e-4 * (1.0 + fabs(c));
            else tol = (t == AK_F32 ? 1e-4 : 1e-2) * (1.0 + fabs(c));
            ok = gr_isnan(c) ? gr_isnan(g) : (!gr_isnan(g) && (fabs(g - c) <= tol || g == c));
        }
        if (!ok) {
            if (bad < 3) akt_fail(__FILE__, __LINE__, "%s: [%zu] = %.9g, reference %.9g", what, i, g, c);
            bad++;
        }
    }
    if (bad > 3) akt_fail(__FILE__, __LINE__, "%s: %zu of %zu outputs wrong", what, bad, no);
    /* the poison before (offset) and after the output must be intact */
    for (i = 0; i < yoff * eo; i++)
        if (((unsigned char*)b.gy)[i] != 0xFF) { akt_fail(__FILE__, __LINE__, "%s: wrote before the output", what); break; }
    for (i = 0; i < GR_PAD; i++)
        if (((unsigned char*)b.gy)[b.ybytes + i] != 0xFF) {
            akt_fail(__FILE__, __LINE__, "%s: wrote past the output", what);
            break;
        }
    gr_free(&b);
}

/* ---- tests ------------------------------------------------------------------ */

static void test_gpu_reduce_ops(void) {
    static const size_t shapes[][3] = { /* rows, cols, element offset */
        { 1, 1, 0 }, { 1, 7, 0 }, { 1, 1000003, 0 }, { 1, 1000003, 1 }, { 7, 4097, 0 }, { 7, 4096, 1 },
        { 1000, 33, 0 }, { 4096, 1024, 0 }, { 3, 5000000, 0 }, { 2, 9001, 3 },
        { 1000, 1, 0 } /* arg ops of 1-element rows: a memset */ };
    size_t ti, si;
    int op;
    if (!gr_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (op = 0; op < (int)AK_REDUCE_OP_COUNT; op++)
                gr_case(GR_REDUCE, op, 0, gr_types[ti], shapes[si][0], shapes[si][1], shapes[si][2], 0);
}

static void test_gpu_reduce_nan(void) {
    size_t ti;
    int op;
    if (!gr_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (op = 0; op < (int)AK_REDUCE_OP_COUNT; op++) {
            gr_case(GR_REDUCE, op, 0, gr_types[ti], 1, 300007, 0, 2);
            gr_case(GR_REDUCE, op, 0, gr_types[ti], 5, 777, 0, 2);
        }
}

/* Same input, same call: the same bits (no atomics in the sums). */
static void test_gpu_reduce_deterministic(void) {
    size_t n = ((size_t)1 << 24) + 3, i;
    float* h = (float*)malloc(n * 4);
    void *dx = NULL, *dy = NULL;
    float a[4], b[4];
    int64_t ia[2], ib[2];
    if (!gr_setup() || !h) { free(h); return; }
    gr_random(h, AK_F32, n, -3.0, 3.0);
    AKT_OK(ak_malloc(g_gpu, n * 4, NULL, &dx));
    AKT_OK(ak_malloc(g_gpu, 64, NULL, &dy));
    if (!dx || !dy) { free(h); return; }
    AKT_OK(ak_memcpy(g_gpu, dx, h, n * 4, AK_H2D));
    for (i = 0; i < 2; i++) {
        AKT_OK(ak_reduce(g_gpu, AK_REDUCE_SUM, AK_F32, dx, dy, 1, n, NULL));
        AKT_OK(ak_memcpy(g_gpu, i ? b : a, dy, 4, AK_D2H));
        AKT_OK(ak_reduce(g_gpu, AK_REDUCE_MEAN, AK_F32, dx, dy, 4, n / 4, NULL));
        AKT_OK(ak_memcpy(g_gpu, (i ? b : a) + 1, dy, 12, AK_D2H));
        AKT_OK(ak_reduce(g_gpu, AK_REDUCE_ARGMAX, AK_F32, dx, dy, 2, n / 2, NULL));
        AKT_OK(ak_memcpy(g_gpu, i ? ib : ia, dy, 16, AK_D2H));
    }
    AKT_CHECKF(!memcmp(a, b, sizeof a), "sum/mean differ between runs: %.9g vs %.9g", (double)a[0], (double)b[0]);
    AKT_CHECK(ia[0] == ib[0] && ia[1] == ib[1]);
    ak_free(g_gpu, dx);
    ak_free(g_gpu, dy);
    free(h);
}

static void test_gpu_softmax(void) {
    static const size_t shapes[][3] = {
        { 1, 1, 0 }, { 7, 7, 0 }, { 5, 4097, 0 }, { 64, 4096, 0 }, { 64, 4096, 1 }, { 3, 16384, 0 },
        { 1000, 100, 0 }, { 2, 20000, 0 }, { 2, 20001, 0 }, { 2, 24000, 1 }, { 4, 393216, 0 } };
    size_t ti, si;
    int lg;
    if (!gr_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (lg = 0; lg < 2; lg++)
                gr_case(GR_SOFTMAX, lg, 0, gr_types[ti], shapes[si][0], shapes[si][1], shapes[si][2], 0);
}

/* Rows too wide for 128-thread split blocks (more chunks than compute
 * units: 256-thread blocks), and rows too wide for those too: the two-pass
 * stats + apply kernels. */
static void test_gpu_softmax_widest(void) {
    size_t cols;
    int lg;
    if (!gr_setup()) return;
    cols = (size_t)gr_cus() * 4096u + 1000u;
    for (lg = 0; lg < 2; lg++) {
        gr_case(GR_SOFTMAX, lg, 0, AK_F32, 2, cols, 0, 0);
        gr_case(GR_SOFTMAX, lg, 0, AK_BF16, 1, cols + 1, 0, 0);
    }
    cols = (size_t)gr_cus() * 8192u + 1000u;
    for (lg = 0; lg < 2; lg++) {
        gr_case(GR_SOFTMAX, lg, 0, AK_F32, 2, cols, 0, 0);
        gr_case(GR_SOFTMAX, lg, 0, AK_BF16, 1, cols + 1, 0, 0);
        gr_case(GR_SOFTMAX, lg, 0, AK_F16, 1, cols, 1, 0);
    }
}

/* -inf entries give 0 (log: -inf), a NaN poisons its row only. */
static void test_gpu_softmax_special(void) {
    size_t ti;
    int lg;
    if (!gr_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (lg = 0; lg < 2; lg++) {
            gr_case(GR_SOFTMAX, lg, 0, gr_types[ti], 9, 1024, 0, 1);
            gr_case(GR_SOFTMAX, lg, 0, gr_types[ti], 3, 50000, 0, 1);
            gr_case(GR_SOFTMAX, lg, 0, gr_types[ti], 9, 1024, 0, 2);
            gr_case(GR_SOFTMAX, lg, 0, gr_types[ti], 3, 50000, 0, 2);
        }
}

static void test_gpu_norms(void) {
    static const size_t shapes[][3] = { { 1, 1, 0 }, { 7, 7, 0 }, { 5, 4097, 0 }, { 64, 4096, 0 }, { 64, 4096, 1 },
                                        { 3, 16384, 0 }, { 1000, 100, 0 }, { 3, 20000, 0 }, { 2, 20001, 0 } };
    size_t ti, si;
    int fl;
    if (!gr_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (fl = 0; fl < 4; fl++) {
                gr_case(GR_LAYERNORM, 0, fl, gr_types[ti], shapes[si][0], shapes[si][1], shapes[si][2], 0);
                if (fl < 2) gr_case(GR_RMSNORM, 0, fl, gr_types[ti], shapes[si][0], shapes[si][1], shapes[si][2], 0);
            }
}

static void test_gpu_cross_entropy(void) {
    static const size_t shapes[][3] = { { 1, 1, 0 }, { 5, 7, 0 }, { 64, 4096, 0 }, { 64, 4096, 1 }, { 9, 50257, 0 },
                                        { 3, 40000, 0 }, { 2, 130000, 0 }, { 3000, 10, 0 },
                                        { 1, 60000, 1 },   /* mean / sum: one 1024-thread block (ak_xent_small) */
                                        { 9000, 33, 0 } }; /* mean / sum past _AK_ROWOP_XENT_ONE rows: 3 launches */
    size_t ti, si;
    int red;
    if (!gr_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (red = 0; red < 3; red++)
                gr_case(GR_XENT, red, 0, gr_types[ti], shapes[si][0], shapes[si][1], shapes[si][2], 0);
}

/* A target out of range: the kernel writes NaN for that row (and the mean). */
static void test_gpu_cross_entropy_bad_target(void) {
    float x[2 * 8], loss[2], m = 0.0f;
    int64_t tg[2] = { 3, 8 };
    void *dx = NULL, *dt = NULL, *dl = NULL;
    ak_result r;
    int cpu;
    if (!gr_setup()) return;
    cpu = ak_context_device(g_gpu)->backend == AK_BACKEND_CPU;
    gr_random(x, AK_F32, 16, -2.0, 2.0);
    AKT_OK(ak_malloc(g_gpu, sizeof x, NULL, &dx));
    AKT_OK(ak_malloc(g_gpu, sizeof tg, NULL, &dt));
    AKT_OK(ak_malloc(g_gpu, sizeof loss, NULL, &dl));
    if (!dx || !dt || !dl) return;
    AKT_OK(ak_memcpy(g_gpu, dx, x, sizeof x, AK_H2D));
    AKT_OK(ak_memcpy(g_gpu, dt, tg, sizeof tg, AK_H2D));
    /* a GPU cannot report the bad target: AK_OK and NaN (the cpu backend of a
     * dry run also returns AK_ERROR_INVALID_ARGUMENT, with the same NaN) */
    r = ak_cross_entropy(g_gpu, AK_F32, dx, (const int64_t*)dt, (float*)dl, 2, 8, -100, AK_LOSS_NONE, NULL);
    AKT_CHECKF(r == AK_OK || (cpu && r == AK_ERROR_INVALID_ARGUMENT), "bad target: %s", ak_result_name(r));
    AKT_OK(ak_memcpy(g_gpu, loss, dl, sizeof loss, AK_D2H));
    AKT_CHECK(!gr_isnan(loss[0]) && loss[0] > 0.0f);
    AKT_CHECK(gr_isnan(loss[1]));
    r = ak_cross_entropy(g_gpu, AK_F32, dx, (const int64_t*)dt, (float*)dl, 2, 8, -100, AK_LOSS_MEAN, NULL);
    AKT_CHECKF(r == AK_OK || (cpu && r == AK_ERROR_INVALID_ARGUMENT), "bad target (mean): %s", ak_result_name(r));
    AKT_OK(ak_memcpy(g_gpu, &m, dl, 4, AK_D2H));
    AKT_CHECK(gr_isnan(m));
    ak_free(g_gpu, dx);
    ak_free(g_gpu, dt);
    ak_free(g_gpu, dl);
}

static void test_gpu_reduce_cleanup(void) {
    ak_context_destroy(g_gpu);
    ak_context_destroy(g_cpu);
    g_gpu = NULL;
    g_cpu = NULL;
}

void akt_suite_gpu_reduce(void) {
    AKT_RUN(test_gpu_reduce_ops);
    AKT_RUN(test_gpu_reduce_nan);
    AKT_RUN(test_gpu_reduce_deterministic);
    AKT_RUN(test_gpu_softmax);
    AKT_RUN(test_gpu_softmax_widest);
    AKT_RUN(test_gpu_softmax_special);
    AKT_RUN(test_gpu_norms);
    AKT_RUN(test_gpu_cross_entropy);
    AKT_RUN(test_gpu_cross_entropy_bad_target);
    AKT_RUN(test_gpu_reduce_cleanup);
}
