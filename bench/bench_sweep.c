/* bench_sweep - shape sweep of the row-wise ops: every op x dtype over a grid
 * of rows x cols, each cell checked against the CPU reference and timed.
 *
 *   build/bench_sweep [--quick] [--ops a,b,..] [--dtypes f32,f16,bf16] [--rows r1,r2,..]
 *                     [--cols c1,c2,..] [--max-bytes B] [--budget-s S] [--force V,B,P[;V,B,P..]] OUT.json
 *
 * Ops: softmax log_softmax layernorm rmsnorm sum mean max min argmax argmin
 *      cross_entropy (reduction none) cross_entropy_mean transpose.
 * Grid (default): rows 1 16 256 1024 4096 16384 65536, cols 1 32 64 127 768
 * 1000 4096 8192 16384 32768 50257 128256 400000; a cell runs when its input
 * tensor is at most --max-bytes (default 2 GiB).
 *
 * Data: one buffer of the largest input per dtype, filled once with random
 * values (host generator, uniform in [-4, 4) as f32, uploaded; f16 / bf16 are
 * the device cast of it), and a host mirror of it (copied back from the
 * device, so the references read exactly the device's input). A cell uses a
 * prefix of it as its rows x cols input; weights / biases are random, the
 * cross-entropy targets random classes with every 17th row ignored.
 *
 * Correctness, per cell: the output is poisoned (0xFF bytes: NaN in every
 * float dtype), the op runs once, and sampled rows (all rows when few; else
 * the first, the last and some between, at most ~1M elements) are compared
 * with the cpu backend's reference run on the same rows (a second context
 * with AK_BACKEND_CPU: the C references the tests use). Metric: max over the
 * sampled rows of |out - ref|_2 / |ref|_2 (arg ops: index mismatches; sums:
 * |out - ref| / sum|x| of the row). transpose: sampled output rows compared
 * bit for bit with the input's columns. cross_entropy_mean: the mean of the
 * per-row losses of a reduction-none run (themselves checked on the sampled
 * rows), computed on the host in double. Tolerances: f32 1e-4, f16 4e-3,
 * bf16 2e-2 (rel. L2), losses 1e-4 for every dtype (fp32 math on the same
 * inputs).
 *
 * Timing: as bench_ops.c (events on the default stream around one call, L2
 * flushed before each trial), except that the flush is a fill kernel (ak_fill
 * over twice the L2) like PyTorch's side (sweep_torch.py) rather than a
 * memset, followed like PyTorch's by a 50 us spin kernel before the start event
 * (bench_common.h bench_spin: the flush's dirty lines drain, the GPU is busy while
 * the host queues), so both sides start from the same kind of preceding work;
 * 2 warm-ups, then 25 trials (10 past 0.5 ms, 5
 * past 5 ms); median, min, mean, std. GB/s and the fraction of the copy
 * bandwidth (1 GiB D2D memcpy in the same run) use bench_ops.c's byte counts.
 *
 * --force V,B,P[;V,B,P...] (variant, block, param) overrides the row-op
 * model of amdkit.h (>>impl:ops-reduce, _ak_rowop_model) for every cell
 * where the variant applies to the op, once per triple (-1 = the model's
 * own choice, -2 = the measured table it replaced, _ak_rowop_table; each
 * result records its "force"): how the model was calibrated. Variants: 0 rows,
 * 1 split, 2 twopass, 3 wide, 4 stream, 5 segments, 6 small, 7 slab, 8 group. JSON: {"tool", "hardware", "device", "copy_gbps",
 * "max_bytes", "rows": [..], "cols": [..], "force", "results": [{"op",
 * "dtype", "rows", "cols", "bytes", "median", "min", "mean", "std",
 * "trials", "gbps", "frac", "correct", "err", "checked_rows", "variant", "force", "copy_same_ms",
 * "frac_same"}]}. copy_same_ms / frac_same (cells moving >= 64 MiB, else 0): a plain D2D copy of the
 * cell's bytes (half read, half written) timed with the same protocol (flush, spin, events), and the
 * cell's speed as a fraction of it - "frac" divides by the 1 GiB copy instead, which does not pay for
 * the L2 full of the flush's dirty lines that a 64-256 MiB call has to write back first.
 * times in ms. The file is rewritten after every op x dtype.
 */
#define AMDKIT_IMPLEMENTATION
#define AMDKIT_ROWOP_FORCE   /* the --force override of the row-op table (amdkit.h >>impl:ops-reduce) */
#include "../amdkit.h"
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

enum { OP_SOFTMAX, OP_LOGSOFTMAX, OP_LAYERNORM, OP_RMSNORM, OP_SUM, OP_MEAN, OP_MAX, OP_MIN, OP_ARGMAX, OP_ARGMIN,
       OP_XENT, OP_XENT_MEAN, OP_TRANSPOSE, OP_COUNT };
static const char* op_names[OP_COUNT] = { "softmax", "log_softmax", "layernorm", "rmsnorm", "sum", "mean", "max",
                                          "min", "argmax", "argmin", "cross_entropy", "cross_entropy_mean",
                                          "transpose" };
/* default order: the most used first (a --budget-s cut drops the tail) */
static const int op_order[OP_COUNT] = { OP_SOFTMAX, OP_LAYERNORM, OP_RMSNORM, OP_XENT, OP_SUM, OP_MAX, OP_ARGMAX,
                                        OP_TRANSPOSE, OP_LOGSOFTMAX, OP_MEAN, OP_MIN, OP_ARGMIN, OP_XENT_MEAN };

static int is_reduce(int op) { return op >= OP_SUM && op <= OP_ARGMIN; }
static int is_arg(int op) { return op == OP_ARGMAX || op == OP_ARGMIN; }
static ak_reduce_op reduce_of(int op) {
    switch (op) {
    case OP_SUM: return AK_REDUCE_SUM;
    case OP_MEAN: return AK_REDUCE_MEAN;
    case OP_MAX: return AK_REDUCE_MAX;
    case OP_MIN: return AK_REDUCE_MIN;
    case OP_ARGMAX: return AK_REDUCE_ARGMAX;
    default: return AK_REDUCE_ARGMIN;
    }
}

#define MAXN 32
typedef struct grid { size_t v[MAXN]; int n; } grid;

static int parse_list(const char* s, grid* g) {
    g->n = 0;
    while (*s && g->n < MAXN) {
        char* end;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || v == 0) return -1;
        g->v[g->n++] = (size_t)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return g->n > 0 ? 0 : -1;
}

/* ---- state ------------------------------------------------------------------ */
typedef struct sweep {
    ak_context *ctx, *cpu;
    ak_event *start, *end;
    void* flush;
    size_t flush_bytes;
    bench_spin spin;       /* the gap after the flush (BENCH_SPIN_US) */
    ak_dtype dt;
    size_t es, maxn, maxrows, maxcols;
    void *x, *y, *w, *b, *out;   /* device: input, output, weight, bias, per-row output (8 bytes x rows) */
    int64_t* tgt;                /* device targets (maxrows) */
    void* hx;                    /* host mirror of x */
    void *hw, *hb;               /* host weight / bias */
    int64_t* htgt;               /* host targets of the current cell */
    unsigned long long rng;
} sweep;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned long long xs_next(unsigned long long* s) {
    unsigned long long x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}
/* uniform in [-4, 4) */
static float rnd_val(unsigned long long* s) { return (float)((double)(xs_next(s) >> 40) * (8.0 / 16777216.0) - 4.0); }

#define CK(call)                                                                                     \
    do {                                                                                             \
        ak_result r_ = (call);                                                                       \
        if (r_ != AK_OK) {                                                                           \
            fprintf(stderr, "bench_sweep: %s failed: %s (%s:%d)\n", #call, ak_last_error(), __FILE__, \
                    __LINE__);                                                                       \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

/* Random f32 on the host in chunks, uploaded; cast on the device to dt. */
static void fill_random(sweep* s, void* dst, ak_dtype dt, size_t n, void* stage_dev, size_t stage_n) {
    float* h = (float*)malloc(stage_n * sizeof(float));
    size_t i, done = 0;
    if (!h) { fprintf(stderr, "bench_sweep: out of host memory\n"); exit(1); }
    while (done < n) {
        size_t m = n - done < stage_n ? n - done : stage_n;
        for (i = 0; i < m; i++) h[i] = rnd_val(&s->rng);
        if (dt == AK_F32) {
            CK(ak_memcpy(s->ctx, (float*)dst + done, h, m * 4, AK_H2D));
        } else {
            CK(ak_memcpy(s->ctx, stage_dev, h, m * 4, AK_H2D));
            CK(ak_cast(s->ctx, AK_F32, stage_dev, dt, (char*)dst + done * ak_dtype_size(dt), m, NULL));
        }
        done += m;
    }
    CK(ak_device_synchronize(s->ctx));
    free(h);
}

/* ---- one call of an op on the device (or the cpu context) ------------------- */
typedef struct cell { int op; size_t rows, cols; } cell;

static ak_result run_op(ak_context* ctx, ak_dtype dt, int op, const void* x, void* y, const void* w, const void* b,
                        const int64_t* tgt, void* out, size_t rows, size_t cols) {
    switch (op) {
    case OP_SOFTMAX: return ak_softmax(ctx, dt, x, y, rows, cols, 0, NULL);
    case OP_LOGSOFTMAX: return ak_softmax(ctx, dt, x, y, rows, cols, 1, NULL);
    case OP_LAYERNORM: return ak_layernorm(ctx, dt, x, w, b, y, rows, cols, 1e-5f, NULL);
    case OP_RMSNORM: return ak_rmsnorm(ctx, dt, x, w, y, rows, cols, 1e-5f, NULL);
    case OP_XENT: return ak_cross_entropy(ctx, dt, x, tgt, (float*)out, rows, cols, -100, AK_LOSS_NONE, NULL);
    case OP_XENT_MEAN: return ak_cross_entropy(ctx, dt, x, tgt, (float*)out, rows, cols, -100, AK_LOSS_MEAN, NULL);
    case OP_TRANSPOSE: return ak_transpose(ctx, dt, x, y, rows, cols, NULL);
    default: return ak_reduce(ctx, reduce_of(op), dt, x, out, rows, cols, NULL);
    }
}

/* bench_ops.c's byte counts */
static double cell_bytes(int op, size_t rows, size_t cols, size_t es) {
    double n = (double)rows * (double)cols;
    if (op == OP_SOFTMAX || op == OP_LOGSOFTMAX || op == OP_TRANSPOSE) return 2.0 * n * (double)es;
    if (op == OP_LAYERNORM) return 2.0 * n * (double)es + 2.0 * (double)cols * (double)es;
    if (op == OP_RMSNORM) return 2.0 * n * (double)es + (double)cols * (double)es;
    if (op == OP_XENT) return n * (double)es + (double)rows * 12.0;
    if (op == OP_XENT_MEAN) return n * (double)es + (double)rows * 8.0 + 4.0;
    return n * (double)es + (double)rows * (is_arg(op) ? 8.0 : 4.0);
}

static double ld_f(const void* p, ak_dtype t, size_t i) {
    if (t == AK_F32) return ((const float*)p)[i];
    if (t == AK_F16) return ak_f16_to_f32(((const uint16_t*)p)[i]);
    return ak_bf16_to_f32(((const uint16_t*)p)[i]);
}

/* sampled rows: all when the cell is small, else first, last and evenly spread ones (<= ~1M elements) */
static int sample_rows(size_t rows, size_t cols, size_t* pick) {
    size_t budget = (size_t)1 << 20, want, i;
    int n = 0;
    want = budget / cols;
    if (want < 2) want = 2;
    if (want > 16) want = 16;
    if (rows <= want) {
        for (i = 0; i < rows; i++) pick[n++] = i;
        return n;
    }
    for (i = 0; i < want; i++) pick[n++] = (size_t)((double)i * (double)(rows - 1) / (double)(want - 1));
    return n;
}

/* Check one cell's output (already computed on the device). Returns 1 when
 * within tolerance; *err gets the metric, *nchk the rows checked. */
static int check_cell(sweep* s, const cell* c, double* err, int* nchk) {
    size_t pick[16], cols = c->cols, rows = c->rows, es = s->es, rb = cols * es;
    int np = sample_rows(rows, cols, pick), i, ok = 1;
    double tol = s->dt == AK_F32 ? 1e-4 : s->dt == AK_F16 ? 4e-3 : 2e-2, worst = 0.0;
    void *yrow = NULL, *ref = NULL;
    const char* hx = (const char*)s->hx;
    *nchk = np;
    if (c->op == OP_TRANSPOSE) {
        /* y is cols x rows: sampled output rows j (= input column j) */
        size_t jp[16];
        int nj = sample_rows(cols, rows, jp), k;
        size_t r;
        yrow = malloc(rows * es);
        for (k = 0; k < nj && ok; k++) {
            CK(ak_memcpy(s->ctx, yrow, (const char*)s->y + jp[k] * rows * es, rows * es, AK_D2H));
            for (r = 0; r < rows; r++)
                if (memcmp((const char*)yrow + r * es, hx + (r * cols + jp[k]) * es, es)) { ok = 0; worst = 1.0; break; }
        }
        *nchk = nj;
        *err = worst;
        free(yrow);
        return ok;
    }
    if (c->op == OP_XENT_MEAN) {
        /* mean of a reduction-none run's losses (double, on the host) vs the device mean */
        float* l = (float*)malloc(rows * sizeof(float));
        float m = 0.0f;
        double sum = 0.0, n = 0.0, ref_m;
        size_t r;
        CK(ak_memcpy(s->ctx, &m, s->out, sizeof m, AK_D2H));
        CK(run_op(s->ctx, s->dt, OP_XENT, s->x, NULL, NULL, NULL, s->tgt, s->out, rows, cols));
        CK(ak_memcpy(s->ctx, l, s->out, rows * sizeof(float), AK_D2H));
        for (r = 0; r < rows; r++)
            if (s->htgt[r] != -100) { sum += l[r]; n += 1.0; }
        ref_m = n > 0 ? sum / n : NAN;
        free(l);
        if (n == 0) { *err = 0.0; return m != m; }
        *err = fabs((double)m - ref_m) / (fabs(ref_m) + 1e-30);
        *nchk = (int)(rows < 0x7fffffff ? rows : 0x7fffffff);
        return *err <= 1e-5;
    }
    if (is_reduce(c->op) || c->op == OP_XENT) {
        size_t ob = is_arg(c->op) ? 8 : 4;
        unsigned char dv[8], rv[8];
        for (i = 0; i < np; i++) {
            size_t r = pick[i];
            double e;
            CK(ak_memcpy(s->ctx, dv, (const char*)s->out + r * ob, ob, AK_D2H));
            if (c->op == OP_XENT)
                (void)ak_cross_entropy(s->cpu, s->dt, hx + r * rb, s->htgt + r, (float*)rv, 1, cols, -100, AK_LOSS_NONE,
                                       NULL);
            else
                CK(ak_reduce(s->cpu, reduce_of(c->op), s->dt, hx + r * rb, rv, 1, cols, NULL));
            if (is_arg(c->op)) {
                int64_t a, bb;
                memcpy(&a, dv, 8);
                memcpy(&bb, rv, 8);
                e = a == bb ? 0.0 : 1.0;
            } else {
                float a, bb;
                double scale = 0.0;
                memcpy(&a, dv, 4);
                memcpy(&bb, rv, 4);
                if (c->op == OP_SUM || c->op == OP_MEAN) {
                    size_t k;
                    for (k = 0; k < cols; k++) scale += fabs(ld_f(hx, s->dt, r * cols + k));
                    if (c->op == OP_MEAN) scale /= (double)cols;
                } else scale = fabs((double)bb);
                if (a != a || bb != bb) e = (a != a && bb != bb) ? 0.0 : 1.0;
                else e = fabs((double)a - (double)bb) / (scale + 1e-30);
            }
            if (e > worst) worst = e;
        }
        *err = worst;
        if (is_arg(c->op)) return worst == 0.0;
        /* losses: relative 1e-4; sums: 1e-5 of sum |x| (fp32 accumulation); max / min: exact up to 1e-6 */
        return worst <= (c->op == OP_XENT ? 1e-4 : (c->op == OP_SUM || c->op == OP_MEAN) ? 1e-5 : 1e-6);
    }
    /* softmax / log_softmax / norms: output rows vs the reference rows */
    yrow = malloc(rb);
    ref = malloc(rb);
    for (i = 0; i < np; i++) {
        size_t r = pick[i], k;
        double num = 0.0, den = 0.0, e;
        CK(ak_memcpy(s->ctx, yrow, (const char*)s->y + r * rb, rb, AK_D2H));
        CK(run_op(s->cpu, s->dt, c->op, hx + r * rb, ref, s->hw, s->hb, NULL, NULL, 1, cols));
        for (k = 0; k < cols; k++) {
            double a = ld_f(yrow, s->dt, k), bb = ld_f(ref, s->dt, k);
            if (a != a) { num = HUGE_VAL; break; }
            num += (a - bb) * (a - bb);
            den += bb * bb;
        }
        e = num == HUGE_VAL ? HUGE_VAL : sqrt(num) / (sqrt(den) + 1e-30);
        if (den == 0.0 && num == 0.0) e = 0.0;
        if (e > worst) worst = e;
    }
    free(yrow);
    free(ref);
    *err = worst;
    (void)ok;
    return worst <= tol;
}

/* ---- timing ------------------------------------------------------------------ */
typedef struct stats { double median, min, mean, std; int n; } stats;
static int cmp_d(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}
/* The timed call of a trial: the cell's op, or (copy_bytes > 0) a D2D copy of copy_bytes from x to y:
 * the same-size copy that --same-copy's "frac_same" divides by. */
static ak_result timed_call(sweep* s, const cell* c, size_t copy_bytes) {
    if (copy_bytes) return ak_memcpy_async(s->ctx, s->y, s->x, copy_bytes, AK_D2D, NULL);
    return run_op(s->ctx, s->dt, c->op, s->x, s->y, s->w, s->b, s->tgt, s->out, c->rows, c->cols);
}
static ak_result time_cell(sweep* s, const cell* c, size_t copy_bytes, stats* st) {
    double t[32], sum = 0, sq = 0;
    int i, n = 25, w;
    ak_result r;
    float ms = 0;
    for (w = 0; w < 2; w++) {
        if ((r = ak_event_record(s->start, NULL)) != AK_OK) return r;
        if ((r = timed_call(s, c, copy_bytes)) != AK_OK) return r;
        if ((r = ak_event_record(s->end, NULL)) != AK_OK) return r;
        if ((r = ak_event_synchronize(s->end)) != AK_OK) return r;
        if ((r = ak_event_elapsed_ms(s->start, s->end, &ms)) != AK_OK) return r;
    }
    if (ms > 5.0f) n = 5;
    else if (ms > 0.5f) n = 10;
    for (i = 0; i < n; i++) {
        if ((r = ak_fill(s->ctx, AK_F32, s->flush, s->flush_bytes / 4, (float)i, NULL)) != AK_OK) return r;
        if ((r = bench_spin_run(&s->spin, BENCH_SPIN_US)) != AK_OK) return r;
        if ((r = ak_event_record(s->start, NULL)) != AK_OK) return r;
        if ((r = timed_call(s, c, copy_bytes)) != AK_OK) return r;
        if ((r = ak_event_record(s->end, NULL)) != AK_OK) return r;
        if ((r = ak_event_synchronize(s->end)) != AK_OK) return r;
        if ((r = ak_event_elapsed_ms(s->start, s->end, &ms)) != AK_OK) return r;
        t[i] = ms;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_d);
    for (i = 0; i < n; i++) sum += t[i];
    st->mean = sum / n;
    for (i = 0; i < n; i++) sq += (t[i] - st->mean) * (t[i] - st->mean);
    st->std = sqrt(sq / n);
    st->min = t[0];
    st->median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    st->n = n;
    return AK_OK;
}

static void set_targets(sweep* s, size_t rows, size_t cols) {
    size_t r;
    for (r = 0; r < rows; r++)
        s->htgt[r] = r % 17 == 16 ? -100 : (int64_t)(xs_next(&s->rng) % cols);
    CK(ak_memcpy(s->ctx, s->tgt, s->htgt, rows * sizeof(int64_t), AK_H2D));
}

static void write_json(const char* path, const ak_device_info* dev, double copy_gbps, size_t max_bytes,
                       const char* force, const grid* rows, const grid* cols, const char* json) {
    int i;
    FILE* jf = fopen(path, "w");
    if (!jf) { fprintf(stderr, "bench_sweep: cannot write %s\n", path); exit(1); }
    fprintf(jf, "{\"tool\": \"amdkit bench_sweep\", \"hardware\": \"%s\", \"device\": \"%s\", \"copy_gbps\": %.2f, "
                "\"max_bytes\": %zu, \"force\": \"%s\", \"rows\": [", dev->name, dev->arch, copy_gbps, max_bytes,
            force ? force : "");
    for (i = 0; i < rows->n; i++) fprintf(jf, "%s%zu", i ? ", " : "", rows->v[i]);
    fprintf(jf, "], \"cols\": [");
    for (i = 0; i < cols->n; i++) fprintf(jf, "%s%zu", i ? ", " : "", cols->v[i]);
    fprintf(jf, "], \"results\": [%s\n]}\n", json ? json : "");
    fclose(jf);
}

/* the row-op rule the cell ran with (amdkit.h _ak_rowop_pick: the model, or the forced variant / the measured
 * table), as "variant/block/param" */
static const char* variant_of(sweep* s, const cell* c) {
    static char buf[48];
    unsigned m;
    _ak_rowop_rule r;
    switch (c->op) {
    case OP_SOFTMAX: case OP_LOGSOFTMAX: m = _AK_RO_SOFTMAX; break;
    case OP_LAYERNORM: case OP_RMSNORM: m = _AK_RO_NORM; break;
    case OP_SUM: case OP_MEAN: m = _AK_RO_SUM; break;
    case OP_MAX: case OP_MIN: m = _AK_RO_MINMAX; break;
    case OP_ARGMAX: case OP_ARGMIN: m = _AK_RO_ARG; break;
    case OP_XENT: m = _AK_RO_XENT; break;
    case OP_XENT_MEAN: m = _AK_RO_XENT_RED; break;
    default: return "tiles";
    }
    r = _ak_rowop_pick(s->ctx, m, s->dt, c->rows, c->cols);
    snprintf(buf, sizeof buf, "%s/%u/%u", _ak_row_variant_names[r.variant], r.block, r.param);
    return buf;
}

int main(int argc, char** argv) {
    size_t copy_sz[512];   /* same-size copies timed so far (bytes of the copy) and their medians (ms) */
    double copy_t[512];
    int ncopy = 0;
    static const size_t def_rows[] = { 1, 16, 256, 1024, 4096, 16384, 65536 };
    static const size_t def_cols[] = { 1, 32, 64, 127, 768, 1000, 4096, 8192, 16384, 32768, 50257, 128256, 400000 };
    grid rows, cols;
    int ops[OP_COUNT], nops = 0, dts[3] = { AK_F32, AK_F16, AK_BF16 }, ndt = 3, i, j, k, d, quick = 0;
    size_t max_bytes = (size_t)2 << 30;
    double budget = 0, t0 = now_s(), copy_gbps;
    const char *out_path = NULL, *force = NULL;
    int fvar[16] = { -1 }, fblk[16] = { 0 }, fpar[16] = { 0 }, nforce = 1, f;
    sweep s;
    ak_config cc;
    const ak_device_info* dev;
    long nres = 0, nbad = 0;
    char* json = NULL;   /* results so far, rewritten into the file after every op x dtype */
    size_t json_len = 0, json_cap = 0;

    memset(&s, 0, sizeof s);
    rows.n = cols.n = 0;
    for (i = 0; i < (int)(sizeof def_rows / sizeof def_rows[0]); i++) rows.v[rows.n++] = def_rows[i];
    for (i = 0; i < (int)(sizeof def_cols / sizeof def_cols[0]); i++) cols.v[cols.n++] = def_cols[i];
    for (i = 0; i < OP_COUNT; i++) ops[nops++] = op_order[i];
    for (i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            quick = 1;
            parse_list("1,3,64,130", &rows);
            parse_list("1,7,64,127,1000,5000,20000", &cols);
            max_bytes = (size_t)8 << 20;
        } else if (!strcmp(a, "--rows") && v) { if (parse_list(v, &rows)) goto usage; i++; }
        else if (!strcmp(a, "--cols") && v) { if (parse_list(v, &cols)) goto usage; i++; }
        else if (!strcmp(a, "--max-bytes") && v) { max_bytes = (size_t)strtoull(v, NULL, 10); i++; }
        else if (!strcmp(a, "--budget-s") && v) { budget = atof(v); i++; }
        else if (!strcmp(a, "--force") && v) { force = v; i++; }
        else if (!strcmp(a, "--ops") && v) {
            const char* p = v;
            nops = 0;
            while (*p) {
                size_t len = strcspn(p, ",");
                for (k = 0; k < OP_COUNT; k++)
                    if (strlen(op_names[k]) == len && !strncmp(p, op_names[k], len)) break;
                if (k == OP_COUNT) goto usage;
                ops[nops++] = k;
                p += len + (p[len] == ',');
            }
            i++;
        } else if (!strcmp(a, "--dtypes") && v) {
            const char* p = v;
            ndt = 0;
            while (*p && ndt < 3) {
                size_t len = strcspn(p, ",");
                if (len == 3 && !strncmp(p, "f32", 3)) dts[ndt++] = AK_F32;
                else if (len == 3 && !strncmp(p, "f16", 3)) dts[ndt++] = AK_F16;
                else if (len == 4 && !strncmp(p, "bf16", 4)) dts[ndt++] = AK_BF16;
                else goto usage;
                p += len + (p[len] == ',');
            }
            i++;
        } else if (a[0] == '-') goto usage;
        else out_path = a;
    }
    if (!out_path) goto usage;
    if (force) {
        const char* p = force;
        nforce = 0;
        while (*p && nforce < 16) {
            int fv = -1, fb = 0, fp = 0;
            if (sscanf(p, "%d,%d,%d", &fv, &fb, &fp) < 1) goto usage;
            fvar[nforce] = fv; fblk[nforce] = fb; fpar[nforce] = fp;
            nforce++;
            p += strcspn(p, ";");
            if (*p == ';') p++;
        }
    }

    CK(ak_context_create(NULL, &s.ctx));
    cc = ak_config_default();
    cc.backend = AK_BACKEND_CPU;
    CK(ak_context_create(&cc, &s.cpu));
    dev = ak_context_device(s.ctx);
    CK(ak_event_create(s.ctx, &s.start));
    CK(ak_event_create(s.ctx, &s.end));
    s.flush_bytes = dev->l2_bytes ? 2 * dev->l2_bytes : ((size_t)64 << 20);
    if (quick && s.flush_bytes > ((size_t)8 << 20)) s.flush_bytes = (size_t)8 << 20;
    CK(ak_malloc(s.ctx, s.flush_bytes, NULL, &s.flush));
    CK(bench_spin_init(s.ctx, &s.spin));
    s.rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)time(NULL);

    /* copy bandwidth: a 1 GiB (quick: 8 MiB) D2D memcpy, read + write, median of 20 (bench_common.h) */
    copy_gbps = bench_copy_gbps(s.ctx, quick ? ((size_t)8 << 20) : ((size_t)1 << 30));
    if (copy_gbps <= 0) {
        fprintf(stderr, "bench_sweep: copy bandwidth: %s\n", ak_last_error());
        return 1;
    }
    printf("bench_sweep on %s (%s), copy %.1f GB/s, %d ops x %d dtypes x %d x %d grid, max %zu MiB per tensor\n",
           dev->name, dev->arch, copy_gbps, nops, ndt, rows.n, cols.n, max_bytes >> 20);

    for (d = 0; d < ndt; d++) {
        void* stage = NULL;
        size_t stage_n = (size_t)16 << 20, maxr = 0, maxc = 0, maxn = 0;
        s.dt = (ak_dtype)dts[d];
        s.es = ak_dtype_size(s.dt);
        for (i = 0; i < rows.n; i++)
            for (j = 0; j < cols.n; j++) {
                size_t n = rows.v[i] * cols.v[j];
                if (n * s.es > max_bytes) continue;
                if (n > maxn) maxn = n;
                if (rows.v[i] > maxr) maxr = rows.v[i];
                if (cols.v[j] > maxc) maxc = cols.v[j];
            }
        if (!maxn) continue;
        s.maxn = maxn; s.maxrows = maxr; s.maxcols = maxc;
        CK(ak_malloc(s.ctx, maxn * s.es, NULL, &s.x));
        CK(ak_malloc(s.ctx, maxn * s.es, NULL, &s.y));
        CK(ak_malloc(s.ctx, maxc * s.es, NULL, &s.w));
        CK(ak_malloc(s.ctx, maxc * s.es, NULL, &s.b));
        CK(ak_malloc(s.ctx, maxr * 8, NULL, &s.out));
        CK(ak_malloc(s.ctx, maxr * 8, NULL, (void**)&s.tgt));
        CK(ak_malloc(s.ctx, stage_n * 4, NULL, &stage));
        s.hx = malloc(maxn * s.es);
        s.hw = malloc(maxc * s.es);
        s.hb = malloc(maxc * s.es);
        s.htgt = (int64_t*)malloc(maxr * 8);
        if (!s.hx || !s.hw || !s.hb || !s.htgt) { fprintf(stderr, "bench_sweep: out of host memory\n"); return 1; }
        fill_random(&s, s.x, s.dt, maxn, stage, stage_n);
        fill_random(&s, s.w, s.dt, maxc, stage, stage_n);
        fill_random(&s, s.b, s.dt, maxc, stage, stage_n);
        CK(ak_memcpy(s.ctx, s.hx, s.x, maxn * s.es, AK_D2H));
        CK(ak_memcpy(s.ctx, s.hw, s.w, maxc * s.es, AK_D2H));
        CK(ak_memcpy(s.ctx, s.hb, s.b, maxc * s.es, AK_D2H));
        ak_free(s.ctx, stage);
        printf("%s: %zu elements of random input ready (%.1f s)\n", ak_dtype_name(s.dt), maxn, now_s() - t0);

        for (k = 0; k < nops; k++)
          for (f = 0; f < nforce; f++) {
            int op = ops[k];
            char fstr[48];
            _ak_rowop_force.variant = fvar[f];
            _ak_rowop_force.block = (unsigned)fblk[f];
            _ak_rowop_force.param = (unsigned)fpar[f];
            snprintf(fstr, sizeof fstr, "%d,%d,%d", fvar[f], fblk[f], fpar[f]);
            for (i = 0; i < rows.n; i++)
                for (j = 0; j < cols.n; j++) {
                    cell c;
                    stats st, cst;
                    double err = 0, bytes, gbps, copy_ms;
                    int nchk = 0, ok;
                    ak_result r;
                    char line[512];
                    c.op = op; c.rows = rows.v[i]; c.cols = cols.v[j];
                    if (c.rows * c.cols * s.es > max_bytes) continue;
                    if (budget > 0 && now_s() - t0 > budget) {
                        printf("bench_sweep: --budget-s %.0f reached at %s %s [%zu, %zu]\n", budget, op_names[op],
                               ak_dtype_name(s.dt), c.rows, c.cols);
                        goto done;
                    }
                    if (op == OP_XENT || op == OP_XENT_MEAN) set_targets(&s, c.rows, c.cols);
                    /* poison, run once, check */
                    CK(ak_memset(s.ctx, s.y, 0xFF, c.rows * c.cols * s.es, NULL));
                    CK(ak_memset(s.ctx, s.out, 0xFF, c.rows * 8, NULL));
                    r = run_op(s.ctx, s.dt, op, s.x, s.y, s.w, s.b, s.tgt, s.out, c.rows, c.cols);
                    if (r == AK_OK) r = ak_device_synchronize(s.ctx);
                    if (r != AK_OK) {
                        printf("%-18s %-5s [%zu, %zu] FAILED: %s\n", op_names[op], ak_dtype_name(s.dt), c.rows, c.cols,
                               ak_last_error());
                        nbad++;
                        continue;
                    }
                    ok = check_cell(&s, &c, &err, &nchk);
                    if (!ok) nbad++;
                    r = time_cell(&s, &c, 0, &st);
                    if (r != AK_OK) {
                        printf("%-18s %-5s [%zu, %zu] timing FAILED: %s\n", op_names[op], ak_dtype_name(s.dt), c.rows,
                               c.cols, ak_last_error());
                        nbad++;
                        continue;
                    }
                    bytes = cell_bytes(op, c.rows, c.cols, s.es);
                    gbps = bytes / (st.median * 1e-3) / 1e9;
                    copy_ms = 0;
                    if (bytes >= (double)(64 << 20)) {   /* the same bytes moved by a plain copy, same protocol */
                        size_t cb = (size_t)(bytes / 2), have = c.rows * c.cols * s.es;
                        int k;
                        if (cb > have) cb = have;
                        cb &= ~(size_t)255;
                        for (k = 0; k < ncopy && copy_sz[k] != cb; k++) {}
                        if (k < ncopy) copy_ms = copy_t[k];
                        else if (time_cell(&s, &c, cb, &cst) == AK_OK) {
                            copy_ms = cst.median * (bytes / 2.0 / (double)cb);
                            if (ncopy < (int)(sizeof copy_sz / sizeof copy_sz[0])) {
                                copy_sz[ncopy] = cb; copy_t[ncopy] = copy_ms; ncopy++;
                            }
                        }
                    }
                    if (bytes >= (double)(64 << 20) || !ok)
                        printf("%-18s %-5s [%6zu, %6zu] %9.4f ms %7.1f GB/s %5.1f%% %s %.2e %s\n", op_names[op],
                               ak_dtype_name(s.dt), c.rows, c.cols, st.median, gbps, 100.0 * gbps / copy_gbps,
                               ok ? "ok" : "WRONG", err, variant_of(&s, &c));
                    if (nforce > 1 || fvar[0] >= 0) printf("    (force %s)\n", fstr);
                    snprintf(line, sizeof line,
                             "%s\n  {\"op\": \"%s\", \"dtype\": \"%s\", \"rows\": %zu, \"cols\": %zu, \"bytes\": %.0f, "
                             "\"median\": %.6f, \"min\": %.6f, \"mean\": %.6f, \"std\": %.6f, \"trials\": %d, "
                             "\"gbps\": %.2f, \"frac\": %.4f, \"correct\": %s, \"err\": %.3e, \"checked_rows\": %d, "
                             "\"variant\": \"%s\", \"force\": \"%s\", \"copy_same_ms\": %.6f, \"frac_same\": %.4f}",
                             nres ? "," : "", op_names[op], ak_dtype_name(s.dt), c.rows, c.cols, bytes, st.median,
                             st.min, st.mean, st.std, st.n, gbps, gbps / copy_gbps, ok ? "true" : "false",
                             err == err && err < 1e300 ? err : 1e300, nchk, variant_of(&s, &c), fstr, copy_ms,
                             copy_ms > 0 ? copy_ms / st.median : 0.0);
                    if (json_len + strlen(line) + 1 > json_cap) {
                        json_cap = (json_cap + strlen(line) + 1) * 2;
                        json = (char*)realloc(json, json_cap);
                        if (!json) { fprintf(stderr, "bench_sweep: out of host memory\n"); return 1; }
                    }
                    memcpy(json + json_len, line, strlen(line) + 1);
                    json_len += strlen(line);
                    nres++;
                }
            /* rewrite the file after every op x dtype */
            write_json(out_path, dev, copy_gbps, max_bytes, force, &rows, &cols, json);
            fflush(stdout);
        }
    done:
        write_json(out_path, dev, copy_gbps, max_bytes, force, &rows, &cols, json);
        ak_free(s.ctx, s.x); ak_free(s.ctx, s.y); ak_free(s.ctx, s.w); ak_free(s.ctx, s.b);
        ak_free(s.ctx, s.out); ak_free(s.ctx, s.tgt);
        free(s.hx); free(s.hw); free(s.hb); free(s.htgt);
        if (budget > 0 && now_s() - t0 > budget) break;
    }
    printf("bench_sweep: %ld cells, %ld wrong or failed, %.0f s -> %s\n", nres, nbad, now_s() - t0, out_path);
    free(json);
    ak_event_destroy(s.start);
    ak_event_destroy(s.end);
    ak_free(s.ctx, s.flush);
    bench_spin_free(&s.spin);
    ak_context_destroy(s.cpu);
    ak_context_destroy(s.ctx);
    return nbad ? 1 : 0;

usage:
    fprintf(stderr, "usage: %s [--quick] [--ops a,b] [--dtypes f32,f16,bf16] [--rows r,..] [--cols c,..] "
                    "[--max-bytes B] [--budget-s S] [--force V,B,P[;V,B,P..]] OUT.json\n", argv[0]);
    return 2;
}
