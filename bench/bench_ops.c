/* bench_ops - times the kernel library the KernelBench way, checks every
 * entry against the CPU reference in the same run, and writes JSON.
 *
 *   build/bench_ops [--quick] [--trials N | --min-trials N --max-trials N] [--ci W] [--max-s S]
 *                   [--warmup N] [--filter SUBSTR[,SUBSTR...]] [--no-check] [--check-elems N] [--check-corrupt]
 *                   [--budget-s S] [OUT.json]
 *
 * --budget-s S: start no entry after S seconds (the JSON stays valid; exit 1).
 *
 * TIMING. For every entry: warm-up runs, then timed trials, each between a
 * pair of ak_event records on the default stream, with the L2 flushed before
 * each trial (an ak_memset over a scratch buffer of twice the device's L2,
 * outside the timed region) and then a 50 us spin kernel before the start event
 * (bench_common.h bench_spin; PyTorch's timer in peer_torch.py does the same, so
 * both sides start their call on a GPU whose flush has drained). Trials repeat until the 95% confidence interval
 * of the median (distribution free: the order statistics at ranks
 * n/2 -+ 1.96 sqrt(n)/2) is narrower than --ci of the median (default 0.01,
 * i.e. about +-0.5%), at least --min-trials (100) and at most --max-trials
 * (2000) trials or --max-s seconds (2) per entry, whichever comes first
 * ("stop": "ci" | "max_trials" | "time_cap"). --trials N: exactly N trials.
 * Reports median, mean, std (population), min and max in ms, every trial's
 * time ("times", in trial order, for bench/report.py's speedup intervals),
 * GB/s = bytes moved / median time, and the fraction of the device's copy
 * bandwidth measured in the same run (a large device-to-device
 * ak_memcpy_async, counted as read + write).
 *
 * Bytes moved: every input read once plus every output written once (an
 * in/out buffer such as y of axpy counts twice). Nothing else (no L2 reuse,
 * no index arrays unless an entry says so).
 *
 * CHECKING (KernelBench: only an entry that is correct in the same run counts
 * for fast_p). Inputs are random (a normal(0, 1) pool of POOL_N values per
 * dtype, repeated with a per-buffer offset, so every row differs; integer
 * inputs are written by the entry's setup). After the timing, the inputs are
 * written again (in/out buffers were overwritten by the trials), outputs are
 * filled with NaN bytes (0xFF), the entry runs once more on the device at its
 * full shape, and its output is compared with the SAME run function called on
 * a cpu-backend context (the ak_* CPU reference) over the same inputs:
 *   - element-wise entries (layout 'e...'): three windows of 1M elements
 *     (--check-elems; the first, the middle and the last), the whole tensor
 *     when that is not more;
 *   - row entries: three windows of rows (first, middle, last), each about 1M
 *     elements (at least one row), every row when that is not more;
 *   - a transposed output ('T'): three windows of input columns (= output
 *     rows) of about 1M elements each;
 *   - an output over all rows ('1', e.g. a mean) and rows = 1 reductions:
 *     the whole tensor.
 * Tolerance (KernelBench's): |gpu - ref| <= tol * (1 + |ref|), tol = 1e-4 when
 * the input and output are f32, else 1e-2; sums and means add 5e-7 * sum|x| of
 * the row (/ cols for means), as tests/t_gpu_reduce.c; max/min and int64
 * indices must match exactly; a NaN reference needs a NaN. JSON per entry:
 * "correct", "max_abs_err", "err_tol_ratio" (worst |err| / tol, <= 1 passes),
 * "checked" (values compared), "check_detail" (which rows/elements).
 * --no-check skips it ("correct" absent: bench/report.py counts the entry as
 * unchecked); --check-corrupt adds 1 to the first value of every device result
 * before the comparison (a test that the check can fail: every entry must come
 * out incorrect).
 *
 * JSON (KernelBench baseline format, times in ms): {"tool", "hardware",
 * "device", "backend", "copy_gbps", "results": [ {"name", "dtype", "shape",
 * "mean", "std", "min", "max", "median", "num_trials", "hardware", "device",
 * "gbps", "roofline_fraction", "ci95", "stop", "correct", ..., "times"}, ... ]}.
 *
 * --quick uses small shapes and exactly 10 trials (CI runs it on the cpu
 * backend to check the harness and the checker; its numbers mean nothing).
 *
 * ADDING AN ENTRY (one table row):
 *   1. write `static ak_result run_NAME(const bench_case* c, const bench_entry* e)`
 *      that queues your op once on c->buf[0..3] (buffers of c->buf_bytes
 *      bytes each; use e->op / e->dtype2 / e->param as you like) and returns its
 *      result; it must use only c->ctx, c->dtype, c->rows/cols/n and c->buf,
 *      because the check calls it again on a cpu context with host buffers of
 *      a subsampled shape;
 *   2. add one row to entries[] below: name, dtype, second dtype, op, full
 *      shape (rows, cols), --quick shape, io (arrays of rows*cols elements moved:
 *      inputs read + outputs written), the run function, and optionally a
 *      bytes function (when io * rows * cols * size is not the truth, e.g. a
 *      reduction writing `rows` values), a setup function (run once, untimed,
 *      e.g. to write valid int64 targets), the number of buffers (0 = 4), a
 *      float param, and the CHECK LAYOUT: one character per buffer,
 *        x  input, rows*cols elements of dtype (random)
 *        Y  input and output (in place), rows*cols elements of dtype
 *        y  output, rows*cols elements of dtype2
 *        w  input, cols elements of dtype (a per-column weight, random)
 *        t  input, one int64 per row, written by setup (copied from the device)
 *        f  output, one f32 per row         i  output, one int64 per row
 *        b  output, one f32 per 1 x 128 block of each row (ceil(cols / 128) a row: block scales)
 *        T  output, cols x rows elements of dtype (a transpose; with x only)
 *        c  output, one f32 per column (a reduction over the rows; with x only: windows of columns)
 *        1  output, one f32 for the whole tensor (checked in full)
 *        F  output, rows*cols elements of dtype2, checked in full (no windows: an op
 *           whose outputs depend on their position, e.g. random numbers, dropout, or
 *           whose rows are not windows of the input rows: a gather, a permute)
 *        v  output, op elements of dtype per row   j  output, op int64 per row (top-k)
 *        -  unused
 *      with a leading 'e' when the op is element-wise (output i depends on
 *      input i alone: the check may take windows of single elements; without
 *      it, windows are whole rows), and the tolerance kind (TOL_DEFAULT,
 *      TOL_EXACT, TOL_SUM, TOL_MEAN, TOL_SCAN: prefix sums, 'y' element c of a
 *      row also allows 1e-6 (halves 1e-3) x sum |x[0..c]| of that row: an fp32
 *      running sum that cancels to ~0 keeps the rounding of its large terms).
 *   The BENCH3 macro adds the f32, f16 and bf16 rows of one op at once.
 */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

typedef struct bench_case {
    ak_context* ctx;
    ak_dtype dtype;
    size_t rows, cols, n;   /* shape; n = rows * cols */
    void* buf[4];           /* device buffers (host memory on cpu) */
    size_t buf_bytes;       /* size of each buffer */
} bench_case;

typedef struct bench_entry bench_entry;
struct bench_entry {
    const char* name;
    ak_dtype dtype, dtype2;           /* dtype2: output dtype of a cast */
    int op;                           /* ak_unary_op / ak_binary_op / your own */
    size_t rows, cols;                /* full shape */
    size_t qrows, qcols;              /* --quick shape */
    double io;                        /* arrays of n elements moved (see bytes) */
    ak_result (*run)(const bench_case* c, const bench_entry* e);
    double (*bytes)(const bench_case* c, const bench_entry* e);  /* NULL: io * n * size(dtype) */
    ak_result (*setup)(bench_case* c, const bench_entry* e);     /* NULL: none */
    int nbuf;                         /* buffers to allocate (0 = 4) */
    float param;
    const char* bufs;                 /* check layout: one character per buffer (see CHECKING) */
    int tol;                          /* TOL_* */
};
enum { TOL_DEFAULT = 0, TOL_EXACT, TOL_SUM, TOL_MEAN, TOL_SCAN };

/* ---- run functions of the element-wise family  ------------------------ */
static ak_result run_fill(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_fill(c->ctx, c->dtype, c->buf[1], c->n, 1.5f, NULL);
}
static ak_result run_copy(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_copy(c->ctx, c->dtype, c->buf[0], c->buf[1], c->n, NULL);
}
static ak_result run_cast(const bench_case* c, const bench_entry* e) {
    return ak_cast(c->ctx, c->dtype, c->buf[0], e->dtype2, c->buf[1], c->n, NULL);
}
static double bytes_cast(const bench_case* c, const bench_entry* e) {
    return (double)c->n * (double)(ak_dtype_size(c->dtype) + ak_dtype_size(e->dtype2));
}
/* fp8 scaled casts (ak_quantize, e4m3): op = the mode; param 1: delayed scaling (the scale read from buf[2], the
 * tensor's amax written to buf[3] in the same pass), else current scaling (the scales computed, into buf[2]) */
static ak_result run_quant(const bench_case* c, const bench_entry* e) {
    ak_quant_args q;
    memset(&q, 0, sizeof q);
    q.x_dtype = c->dtype; q.x = c->buf[0]; q.q_dtype = e->dtype2; q.q = c->buf[1];
    q.rows = c->rows; q.cols = c->cols; q.mode = (ak_quant_mode)e->op; q.scale = (float*)c->buf[2];
    q.compute_scale = e->param == 0.0f;
    q.amax = e->param != 0.0f ? (float*)c->buf[3] : NULL;
    return ak_quantize(c->ctx, &q, NULL);
}
static double bytes_quant(const bench_case* c, const bench_entry* e) {
    const double groups = e->op == AK_QUANT_ROW ? (double)c->rows
                          : e->op == AK_QUANT_BLOCK ? (double)c->rows * (double)((c->cols + 127) / 128) : 1.0;
    return (double)c->n * (double)(ak_dtype_size(c->dtype) + 1) + 4.0 * groups + (e->param != 0.0f ? 4.0 : 0.0);
}
/* fp8 -> f32 / f16 / bf16 (ak_dequantize, e4m3 codes in buf[0], y in buf[1]): op = the mode, the scales in buf[2]
 * (setup_dequant_scales) */
static ak_result run_dequant(const bench_case* c, const bench_entry* e) {
    return ak_dequantize(c->ctx, c->dtype, c->buf[0], e->dtype2, c->buf[1], c->rows, c->cols, (ak_quant_mode)e->op,
                         (const float*)c->buf[2], NULL);
}
static double bytes_dequant(const bench_case* c, const bench_entry* e) {
    return (double)c->n * (double)(1 + ak_dtype_size(e->dtype2)) + 4.0 * (e->op == AK_QUANT_ROW ? (double)c->rows : 1.0);
}
/* a scale a row, (1 + r % 7) / 64 (the tensor form reads the first); the check copies them to the cpu case as a
 * 't' buffer (8 bytes a row: the rows' floats are its first half) */
static ak_result setup_dequant_scales(bench_case* c, const bench_entry* e) {
    float* s = (float*)malloc(c->rows * sizeof(float));
    size_t r;
    ak_result rc;
    (void)e;
    if (!s) return AK_ERROR_OUT_OF_MEMORY;
    for (r = 0; r < c->rows; r++) s[r] = (float)(1 + r % 7) / 64.0f;
    rc = ak_memcpy(c->ctx, c->buf[2], s, c->rows * sizeof(float), AK_H2D);
    free(s);
    return rc;
}
/* delayed scaling's scale: 1 / 64 (|x| of the normal pool stays far below 448 / 64); the check copies it to the
 * cpu case as a 't' buffer */
static ak_result setup_quant_scale(bench_case* c, const bench_entry* e) {
    const float s = 1.0f / 64.0f;
    (void)e;
    return ak_memcpy(c->ctx, c->buf[2], &s, sizeof s, AK_H2D);
}
static ak_result run_axpy(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_axpy(c->ctx, c->dtype, c->buf[0], c->buf[1], c->n, 1e-3f, NULL);
}
static ak_result run_scale(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_scale(c->ctx, c->dtype, c->buf[0], c->buf[1], c->n, 0.75f, NULL);
}
static ak_result run_binary(const bench_case* c, const bench_entry* e) {
    return ak_binary(c->ctx, (ak_binary_op)e->op, c->dtype, c->buf[0], c->buf[1], c->buf[2], c->n, NULL);
}
static ak_result run_unary(const bench_case* c, const bench_entry* e) {
    return ak_unary(c->ctx, (ak_unary_op)e->op, c->dtype, c->buf[0], c->buf[1], c->n, e->param, NULL);
}
static ak_result run_transpose(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_transpose(c->ctx, c->dtype, c->buf[0], c->buf[1], c->rows, c->cols, NULL);
}

/* ---- run functions of reductions, softmax, norms, cross-entropy  ------- */
static ak_result run_reduce(const bench_case* c, const bench_entry* e) {
    return ak_reduce(c->ctx, (ak_reduce_op)e->op, c->dtype, c->buf[0], c->buf[1], c->rows, c->cols, NULL);
}
/* x read once, one fp32 value (int64 for arg ops) written per row */
static double bytes_reduce(const bench_case* c, const bench_entry* e) {
    int arg = e->op == AK_REDUCE_ARGMAX || e->op == AK_REDUCE_ARGMIN;
    return (double)c->n * (double)ak_dtype_size(c->dtype) + (double)c->rows * (arg ? 8.0 : 4.0);
}
/* ---- along an axis (ak_reduce_axes, ak_normalize, ak_binary_broadcast, ak_triangular) ---- */
/* reduction over the rows of rows x cols (axis 0): one fp32 per column */
static ak_result run_reduce_axis0(const bench_case* c, const bench_entry* e) {
    size_t shape[2];
    shape[0] = c->rows; shape[1] = c->cols;
    return ak_reduce_axes(c->ctx, (ak_reduce_op)e->op, c->dtype, c->buf[0], c->buf[1], 2, shape, 1u, NULL);
}
static double bytes_reduce_axis0(const bench_case* c, const bench_entry* e) {
    (void)e;
    return (double)c->n * (double)ak_dtype_size(c->dtype) + (double)c->cols * 4.0;
}
/* y = x / ||x|| along each row (op: ak_norm_kind) */
static ak_result run_normalize_rows(const bench_case* c, const bench_entry* e) {
    return ak_normalize(c->ctx, (ak_norm_kind)e->op, c->dtype, c->buf[0], c->buf[1], c->rows, c->cols, 1, e->param, NULL);
}
/* RMS over 64 channels of each row's [64][cols / 64] (KernelBench's RMSNorm over dim 1) */
static ak_result run_normalize_channels(const bench_case* c, const bench_entry* e) {
    return ak_normalize(c->ctx, (ak_norm_kind)e->op, c->dtype, c->buf[0], c->buf[1], c->rows, 64, c->cols / 64, e->param,
                        NULL);
}
/* z = x op w, w one row of cols values broadcast over the rows */
static ak_result run_bcast_row(const bench_case* c, const bench_entry* e) {
    size_t shape[2], ysh[2];
    shape[0] = c->rows; shape[1] = c->cols; ysh[0] = 1; ysh[1] = c->cols;
    return ak_binary_broadcast(c->ctx, (ak_binary_op)e->op, c->dtype, c->buf[0], c->buf[2], c->buf[1], 2, shape, ysh, NULL);
}
static double bytes_bcast_row(const bench_case* c, const bench_entry* e) {
    (void)e;
    return (double)(2 * c->n + c->cols) * (double)ak_dtype_size(c->dtype);
}
/* torch.triu(x) (op 1) / torch.tril(x) (op 0) */
static ak_result run_triangular(const bench_case* c, const bench_entry* e) {
    return ak_triangular(c->ctx, c->dtype, c->buf[0], c->buf[1], 1, c->rows, c->cols, 0, e->op, NULL);
}
/* 2x2 pooling, stride 2, of each row as a (cols / 512) x 512 plane (param 0: max, 1: average) */
static ak_result run_pool(const bench_case* c, const bench_entry* e) {
    ak_pool_args a;
    memset(&a, 0, sizeof a);
    a.kind = e->param > 0.5f ? AK_POOL_AVG : AK_POOL_MAX;
    a.dtype = c->dtype;
    a.ndim = 2;
    a.batch = 1;
    a.channels = c->rows;
    a.in[0] = c->cols / 512; a.in[1] = 512;
    a.kernel[0] = a.kernel[1] = 2;
    a.count_include_pad = 1;
    a.x = c->buf[0];
    a.y = c->buf[1];
    return ak_pool(c->ctx, &a, NULL);
}
static double bytes_pool(const bench_case* c, const bench_entry* e) {
    (void)e;
    return (double)(c->n + c->n / 4) * (double)ak_dtype_size(c->dtype);
}
/* rows = batch x 64 channels, cols = spatial; batch norm in training (running statistics in buf[2]) */
static ak_result run_batch_norm(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_batch_norm(c->ctx, c->dtype, c->buf[0], c->buf[1], c->rows / 64, 64, c->cols, NULL, NULL, (float*)c->buf[2],
                         (float*)c->buf[2] + 64, 1, 0.1f, 1e-5f, NULL);
}
/* group norm with op groups of the 64 channels (64: instance norm) */
static ak_result run_group_norm(const bench_case* c, const bench_entry* e) {
    return ak_group_norm(c->ctx, c->dtype, c->buf[0], c->buf[1], c->rows / 64, 64, c->cols, (size_t)e->op, NULL, NULL, 1e-5f,
                         NULL);
}
/* ak_scan: op bit 0 the scan op (sum, prod), the bits above it the flags */
static ak_result run_scan(const bench_case* c, const bench_entry* e) {
    return ak_scan(c->ctx, (ak_scan_op)(e->op & 1), c->dtype, c->buf[0], NULL, c->buf[1], c->rows, c->cols,
                   (unsigned)e->op >> 1, NULL);
}
/* element-wise loss of buf[0] against buf[1], mean (BATCHMEAN for KL) into one float */
static ak_result run_loss(const bench_case* c, const bench_entry* e) {
    return ak_loss(c->ctx, (ak_loss_op)e->op, c->dtype, c->buf[0], c->buf[1], AK_TARGET_FULL, (float*)c->buf[2], c->rows,
                   c->cols, 0.0f, 0, e->op == AK_LOSS_KL_DIV ? AK_LOSS_BATCHMEAN : AK_LOSS_MEAN, NULL);
}
static ak_result run_triplet(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_triplet_margin_loss(c->ctx, c->dtype, c->buf[0], c->buf[1], c->buf[2], (float*)c->buf[3], c->rows, c->cols, 1.0f,
                                  2.0f, 1e-6f, 0, AK_LOSS_MEAN, NULL);
}
static ak_result run_softmax(const bench_case* c, const bench_entry* e) {
    return ak_softmax(c->ctx, c->dtype, c->buf[0], c->buf[1], c->rows, c->cols, e->op, NULL);
}
static ak_result run_layernorm(const bench_case* c, const bench_entry* e) {
    return ak_layernorm(c->ctx, c->dtype, c->buf[0], c->buf[2], c->buf[3], c->buf[1], c->rows, c->cols, e->param, NULL);
}
static ak_result run_rmsnorm(const bench_case* c, const bench_entry* e) {
    return ak_rmsnorm(c->ctx, c->dtype, c->buf[0], c->buf[2], c->buf[1], c->rows, c->cols, e->param, NULL);
}
/* x read, y written, weight (and bias) read once */
static double bytes_norm(const bench_case* c, const bench_entry* e) {
    double es = (double)ak_dtype_size(c->dtype);
    return 2.0 * (double)c->n * es + (e->run == run_layernorm ? 2.0 : 1.0) * (double)c->cols * es;
}
static ak_result run_xent(const bench_case* c, const bench_entry* e) {
    return ak_cross_entropy(c->ctx, c->dtype, c->buf[0], (const int64_t*)c->buf[1], (float*)c->buf[2], c->rows, c->cols, -100, (ak_loss_reduction)e->op, NULL);
}
/* logits read, int64 targets read, loss written (rows floats, or one) */
static double bytes_xent(const bench_case* c, const bench_entry* e) {
    return (double)c->n * (double)ak_dtype_size(c->dtype) + (double)c->rows * 8.0 +
           (e->op == AK_LOSS_NONE ? (double)c->rows * 4.0 : 4.0);
}
/* valid targets (every 17th row ignored, like a padded batch) */
static ak_result setup_xent(bench_case* c, const bench_entry* e) {
    int64_t* t = (int64_t*)malloc(c->rows * sizeof(int64_t));
    size_t r;
    ak_result res;
    (void)e;
    if (!t) return AK_ERROR_OUT_OF_MEMORY;
    for (r = 0; r < c->rows; r++) t[r] = r % 17 == 16 ? -100 : (int64_t)((r * 7919u) % c->cols);
    res = ak_memcpy(c->ctx, c->buf[1], t, c->rows * sizeof(int64_t), AK_H2D);
    free(t);
    return res;
}

/* ---- LLM building blocks (shapes of a Llama-style model) ------------------ */
/* residual + norm over tokens x hidden: x = buf0, r = buf1, h = buf2, y = buf3;
 * weight and bias are the first cols elements of x and r (inputs may share memory) */
static ak_result run_add_layernorm(const bench_case* c, const bench_entry* e) {
    return ak_add_layernorm(c->ctx, c->dtype, c->buf[0], c->buf[1], c->buf[0], c->buf[1], c->buf[2], c->buf[3], c->rows,
                            c->cols, e->param, NULL);
}
static ak_result run_add_rmsnorm(const bench_case* c, const bench_entry* e) {
    return ak_add_rmsnorm(c->ctx, c->dtype, c->buf[0], c->buf[1], c->buf[0], c->buf[2], c->buf[3], c->rows, c->cols,
                          e->param, NULL);
}
/* x, r read, h, y written, weight (and bias) read once */
static double bytes_add_norm(const bench_case* c, const bench_entry* e) {
    double es = (double)ak_dtype_size(c->dtype);
    return 4.0 * (double)c->n * es + (e->run == run_add_layernorm ? 2.0 : 1.0) * (double)c->cols * es;
}
/* RoPE over [rows = tokens][cols = heads x 128]: x = buf0, y = buf1, int64 positions in buf2 */
#define ROPE_HEAD_DIM 128
static ak_result run_rope(const bench_case* c, const bench_entry* e) {
    return ak_rope(c->ctx, (ak_rope_mode)e->op, c->dtype, AK_I64, c->buf[0], c->buf[2], c->buf[1], c->rows,
                   c->cols / ROPE_HEAD_DIM, ROPE_HEAD_DIM, ROPE_HEAD_DIM, e->param, NULL);
}
static ak_result setup_rope(bench_case* c, const bench_entry* e) {
    int64_t* p = (int64_t*)malloc(c->rows * sizeof(int64_t));
    size_t i;
    ak_result r;
    (void)e;
    if (!p) return AK_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < c->rows; i++) p[i] = (int64_t)i;
    r = ak_memcpy(c->ctx, c->buf[2], p, c->rows * sizeof(int64_t), AK_H2D);
    free(p);
    return r;
}
static double bytes_rope(const bench_case* c, const bench_entry* e) {
    (void)e;
    return 2.0 * (double)c->n * (double)ak_dtype_size(c->dtype) + (double)c->rows * 8.0;
}
/* embedding: rows = indices = table rows (vocab), cols = dim: table = buf0, int64 indices in buf1 (a
 * scattered permutation: every table row is read once, so no row comes from the cache, as with a
 * 128256-row vocabulary), out = buf2 */
static ak_result run_embedding(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_embedding(c->ctx, c->dtype, AK_I64, c->buf[0], c->buf[1], c->buf[2], c->rows, c->rows, c->cols, NULL);
}
static ak_result setup_embedding(bench_case* c, const bench_entry* e) {
    int64_t* idx = (int64_t*)malloc(c->rows * sizeof(int64_t));
    size_t i, step = 2654435761u % c->rows;
    ak_result r;
    (void)e;
    if (!idx) return AK_ERROR_OUT_OF_MEMORY;
    while (step < 2 || (c->rows % step == 0 && c->rows > 1)) step++;   /* a step coprime with rows for the sizes used */
    for (i = 0; i < c->rows; i++) idx[i] = (int64_t)((i * step + 7u) % c->rows);
    r = ak_memcpy(c->ctx, c->buf[1], idx, c->rows * sizeof(int64_t), AK_H2D);
    free(idx);
    return r;
}
/* gathered rows read, output written, int64 indices read */
static double bytes_embedding(const bench_case* c, const bench_entry* e) {
    (void)e;
    return 2.0 * (double)c->n * (double)ak_dtype_size(c->dtype) + (double)c->rows * 8.0;
}
/* permute (0, 2, 1, 3) of [batch][seq][heads][128] (rows = batch x seq, cols = heads x 128)
 * into [batch][heads][seq][128], with the dtype cast of the entry */
#define PERM_SEQ 1024u
#define PERM_QSEQ 16u
#define PERM_HEAD_DIM 128u
static ak_result run_permute(const bench_case* c, const bench_entry* e) {
    size_t S = c->rows >= PERM_SEQ ? PERM_SEQ : PERM_QSEQ, D = PERM_HEAD_DIM, H = c->cols / D, B = c->rows / S;
    size_t shape[4];
    int64_t ss[4], ds[4];
    shape[0] = B; shape[1] = H; shape[2] = S; shape[3] = D;
    ss[0] = (int64_t)(S * H * D); ss[1] = (int64_t)D; ss[2] = (int64_t)(H * D); ss[3] = 1;
    ds[0] = (int64_t)(H * S * D); ds[1] = (int64_t)(S * D); ds[2] = (int64_t)D; ds[3] = 1;
    return ak_copy_strided(c->ctx, c->dtype, e->dtype2, c->buf[0], c->buf[1], 4, shape, ss, ds, NULL);
}

/* ---- random numbers, dropout, cumsum, top-k (>>impl:ops-random, >>impl:ops-scan) ---- */
static ak_result run_rand_uniform(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_rand_uniform(c->ctx, c->dtype, c->buf[0], c->n, 1234, 0, 0.0f, 1.0f, NULL);
}
static ak_result run_rand_normal(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_rand_normal(c->ctx, c->dtype, c->buf[0], c->n, 1234, 0, 0.0f, 1.0f, NULL);
}
/* y = dropout(x, p = param) without the mask (F.dropout returns no mask either) */
static ak_result run_dropout(const bench_case* c, const bench_entry* e) {
    return ak_dropout(c->ctx, c->dtype, c->buf[0], c->buf[1], NULL, c->n, e->param, 1234, 0, NULL);
}
static ak_result run_cumsum(const bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_cumsum(c->ctx, c->dtype, c->buf[0], c->buf[1], c->rows, c->cols, 0, NULL);
}
/* op = k; values into buf[1], int64 indices into buf[2] */
static ak_result run_topk(const bench_case* c, const bench_entry* e) {
    return ak_topk(c->ctx, c->dtype, c->buf[0], c->buf[1], (int64_t*)c->buf[2], c->rows, c->cols, e->op, 1, NULL);
}
/* x read; k values and k int64 indices per row written */
static double bytes_topk(const bench_case* c, const bench_entry* e) {
    double es = (double)ak_dtype_size(c->dtype);
    return (double)c->n * es + (double)c->rows * (double)e->op * (es + 8.0);
}
/* standard normal inputs (a constant row would be all ties) */
static ak_result setup_randn(bench_case* c, const bench_entry* e) {
    (void)e;
    return ak_rand_normal(c->ctx, c->dtype, c->buf[0], c->n, 99, 0, 0.0f, 1.0f, NULL);
}

#define EW_N ((size_t)256 << 20)   /* 256M elements */
#define EW_Q ((size_t)1 << 20)     /* --quick: 1M */
/* one op for f32, f16, bf16: name, op, io, run, nbuf, param, check layout */
#define BENCH3(name, op, io, run, nbuf, param, bufs) \
    { name, AK_F32, AK_F32, op, 1, EW_N, 1, EW_Q, io, run, NULL, NULL, nbuf, param, "e" bufs, TOL_DEFAULT }, \
    { name, AK_F16, AK_F16, op, 1, EW_N, 1, EW_Q, io, run, NULL, NULL, nbuf, param, "e" bufs, TOL_DEFAULT }, \
    { name, AK_BF16, AK_BF16, op, 1, EW_N, 1, EW_Q, io, run, NULL, NULL, nbuf, param, "e" bufs, TOL_DEFAULT }
#define BENCH_CAST(a, b) { "cast", a, b, 0, 1, EW_N, 1, EW_Q, 0, run_cast, bytes_cast, NULL, 2, 0.0f, "exy", TOL_DEFAULT }
/* fp8 scaled casts of an 8192 x 8192 tensor (f32, f16, bf16 -> e4m3): per row and per 1 x 128 block (current
 * scaling: codes and scales checked bit for bit), per tensor current (two passes: the amax, then the codes) and
 * per tensor delayed (one pass: the given scale, the amax written beside the codes); then rows and blocks at
 * widths off that square: 3000 (rows in registers, not a multiple of 128), 12292 (past the registers' 8192:
 * two reads), 14336 and 1024; then the two-pass tensor form from 8M to 134M elements (16-bit: 16 MB to 268 MB,
 * either side of the 50 MB L2 the second pass reads from); then the way back (ak_dequantize, e4m3 codes -> f32 /
 * f16 / bf16) per tensor and per row, 8192 square, 16384 x 3000, 4096 x 11008 and 2048 x 5004 (no multiple of 8) */
#define BENCH_QUANT(t)                                                                                                    \
    { "quant_row", t, AK_FP8_E4M3, AK_QUANT_ROW, 8192, 8192, 64, 1000, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xyf", TOL_EXACT }, \
    { "quant_block", t, AK_FP8_E4M3, AK_QUANT_BLOCK, 8192, 8192, 64, 1000, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xyb", TOL_EXACT }, \
    { "quant_tensor", t, AK_FP8_E4M3, AK_QUANT_TENSOR, 8192, 8192, 64, 1000, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xF1", TOL_EXACT }, \
    { "quant_tensor_delayed", t, AK_FP8_E4M3, AK_QUANT_TENSOR, 8192, 8192, 64, 1000, 0, run_quant, bytes_quant,             \
      setup_quant_scale, 4, 1.0f, "xFt1", TOL_EXACT },                                                                   \
    { "quant_row", t, AK_FP8_E4M3, AK_QUANT_ROW, 16384, 3000, 33, 3000, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xyf", TOL_EXACT }, \
    { "quant_row", t, AK_FP8_E4M3, AK_QUANT_ROW, 4096, 12292, 8, 12292, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xyf", TOL_EXACT }, \
    { "quant_block", t, AK_FP8_E4M3, AK_QUANT_BLOCK, 4096, 14336, 8, 14336, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xyb", TOL_EXACT }, \
    { "quant_block", t, AK_FP8_E4M3, AK_QUANT_BLOCK, 32768, 1024, 64, 1024, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xyb", TOL_EXACT }, \
    { "quant_tensor", t, AK_FP8_E4M3, AK_QUANT_TENSOR, 2048, 4096, 7, 4100, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xF1", TOL_EXACT }, \
    { "quant_tensor", t, AK_FP8_E4M3, AK_QUANT_TENSOR, 4096, 4096, 64, 1000, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xF1", TOL_EXACT }, \
    { "quant_tensor", t, AK_FP8_E4M3, AK_QUANT_TENSOR, 8192, 3000, 33, 3000, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xF1", TOL_EXACT }, \
    { "quant_tensor", t, AK_FP8_E4M3, AK_QUANT_TENSOR, 4096, 14336, 8, 14336, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xF1", TOL_EXACT }, \
    { "quant_tensor", t, AK_FP8_E4M3, AK_QUANT_TENSOR, 16384, 8192, 64, 1000, 0, run_quant, bytes_quant, NULL, 4, 0.0f, "xF1", TOL_EXACT }, \
    { "dequant_tensor", AK_FP8_E4M3, t, AK_QUANT_TENSOR, 8192, 8192, 64, 1008, 0, run_dequant, bytes_dequant,          \
      setup_dequant_scales, 4, 0.0f, "xFt-", TOL_EXACT },                                                                \
    { "dequant_row", AK_FP8_E4M3, t, AK_QUANT_ROW, 8192, 8192, 64, 1008, 0, run_dequant, bytes_dequant,                \
      setup_dequant_scales, 4, 0.0f, "xFt-", TOL_EXACT },                                                                \
    { "dequant_row", AK_FP8_E4M3, t, AK_QUANT_ROW, 16384, 3000, 33, 3000, 0, run_dequant, bytes_dequant,               \
      setup_dequant_scales, 4, 0.0f, "xFt-", TOL_EXACT },                                                                \
    { "dequant_row", AK_FP8_E4M3, t, AK_QUANT_ROW, 4096, 11008, 8, 11008, 0, run_dequant, bytes_dequant,               \
      setup_dequant_scales, 4, 0.0f, "xFt-", TOL_EXACT },                                                                \
    { "dequant_tensor", AK_FP8_E4M3, t, AK_QUANT_TENSOR, 2048, 5004, 7, 5004, 0, run_dequant, bytes_dequant,           \
      setup_dequant_scales, 4, 0.0f, "xFt-", TOL_EXACT }
/* row ops (rows x cols) for f32, f16, bf16 */
#define RD_R 65536
#define RD_C 4096
#define RD_QR 64
#define RD_QC 1000
#define BENCH_ROW3(name, op, r, c, qr, qc, io, run, bytes, setup, nbuf, param, bufs, tol) \
    { name, AK_F32, AK_F32, op, r, c, qr, qc, io, run, bytes, setup, nbuf, param, bufs, tol }, \
    { name, AK_F16, AK_F16, op, r, c, qr, qc, io, run, bytes, setup, nbuf, param, bufs, tol }, \
    { name, AK_BF16, AK_BF16, op, r, c, qr, qc, io, run, bytes, setup, nbuf, param, bufs, tol }
/* one reduction over the whole tensor and along the last dim, three dtypes */
#define BENCH_RD3(name, op, bufs, tol) \
    BENCH_ROW3(name, op, 1, EW_N, 1, EW_Q, 0, run_reduce, bytes_reduce, NULL, 2, 0.0f, bufs, tol), \
    BENCH_ROW3(name, op, RD_R, RD_C, RD_QR, RD_QC, 0, run_reduce, bytes_reduce, NULL, 2, 0.0f, bufs, tol)

static const bench_entry entries[] = {
    /* name          op                io  run           nbuf param  check */
    BENCH3("fill",      0,                1, run_fill,      2, 0.0f, "-y"),
    BENCH3("copy",      0,                2, run_copy,      2, 0.0f, "xy"),
    BENCH_CAST(AK_F32, AK_F16), BENCH_CAST(AK_F16, AK_F32),
    BENCH_CAST(AK_F32, AK_BF16), BENCH_CAST(AK_BF16, AK_F32),
    BENCH_CAST(AK_F16, AK_BF16), BENCH_CAST(AK_BF16, AK_F16),
    BENCH_QUANT(AK_F32), BENCH_QUANT(AK_F16), BENCH_QUANT(AK_BF16),
    BENCH3("axpy",      0,                3, run_axpy,      2, 0.0f, "xY"),
    BENCH3("scale",     0,                2, run_scale,     2, 0.0f, "xy"),
    BENCH3("add",       AK_OP_ADD,        3, run_binary,    3, 0.0f, "xxy"),
    BENCH3("mul",       AK_OP_MUL,        3, run_binary,    3, 0.0f, "xxy"),
    BENCH3("relu",      AK_OP_RELU,       2, run_unary,     2, 0.0f, "xy"),
    BENCH3("leaky_relu", AK_OP_LEAKY_RELU, 2, run_unary,    2, 0.01f, "xy"),
    BENCH3("sigmoid",   AK_OP_SIGMOID,    2, run_unary,     2, 0.0f, "xy"),
    BENCH3("tanh",      AK_OP_TANH,       2, run_unary,     2, 0.0f, "xy"),
    BENCH3("silu",      AK_OP_SILU,       2, run_unary,     2, 0.0f, "xy"),
    BENCH3("gelu",      AK_OP_GELU,       2, run_unary,     2, 0.0f, "xy"),
    BENCH3("gelu_tanh", AK_OP_GELU_TANH,  2, run_unary,     2, 0.0f, "xy"),
    BENCH3("elu",       AK_OP_ELU,        2, run_unary,     2, 1.0f, "xy"),
    BENCH3("selu",      AK_OP_SELU,       2, run_unary,     2, 0.0f, "xy"),
    BENCH3("hardsigmoid", AK_OP_HARDSIGMOID, 2, run_unary,  2, 0.0f, "xy"),
    BENCH3("hardtanh",  AK_OP_HARDTANH,   2, run_unary,     2, 0.0f, "xy"),
    BENCH3("softplus",  AK_OP_SOFTPLUS,   2, run_unary,     2, 0.0f, "xy"),
    BENCH3("softsign",  AK_OP_SOFTSIGN,   2, run_unary,     2, 0.0f, "xy"),
    BENCH3("hardswish", AK_OP_HARDSWISH,  2, run_unary,     2, 0.0f, "xy"),
    BENCH3("mish",      AK_OP_MISH,       2, run_unary,     2, 0.0f, "xy"),
    BENCH_ROW3("transpose", 0, 16384, 16384, 1000, 1003, 2, run_transpose, NULL, NULL, 2, 0.0f, "xT", TOL_DEFAULT),
    /* reductions, softmax, norms, cross-entropy rows go here */
    /* whole tensor (rows = 1, 256M elements) and along the last dim (65536 x 4096) */
    BENCH_RD3("sum", AK_REDUCE_SUM, "xf", TOL_SUM), BENCH_RD3("mean", AK_REDUCE_MEAN, "xf", TOL_MEAN),
    BENCH_RD3("max", AK_REDUCE_MAX, "xf", TOL_EXACT), BENCH_RD3("min", AK_REDUCE_MIN, "xf", TOL_EXACT),
    BENCH_RD3("argmax", AK_REDUCE_ARGMAX, "xi", TOL_EXACT),
    BENCH_ROW3("softmax", 0, RD_R, RD_C, RD_QR, RD_QC, 2, run_softmax, NULL, NULL, 2, 0.0f, "xy", TOL_DEFAULT),
    BENCH_ROW3("log_softmax", 1, RD_R, RD_C, RD_QR, RD_QC, 2, run_softmax, NULL, NULL, 2, 0.0f, "xy", TOL_DEFAULT),
    BENCH_ROW3("softmax", 0, 4096, 393216, 4, 40000, 2, run_softmax, NULL, NULL, 2, 0.0f, "xy", TOL_DEFAULT),
    BENCH_ROW3("layernorm", 0, RD_R, RD_C, RD_QR, RD_QC, 0, run_layernorm, bytes_norm, NULL, 4, 1e-5f, "xyww",
               TOL_DEFAULT),
    BENCH_ROW3("rmsnorm", 0, RD_R, RD_C, RD_QR, RD_QC, 0, run_rmsnorm, bytes_norm, NULL, 3, 1e-5f, "xyw", TOL_DEFAULT),
    /* along an axis: column reductions (KernelBench's sum / max over a middle dimension), vector norms of rows,
     * RMS over 64 channels ([256][64][16384]), a row operand broadcast over the rows, triu */
    BENCH_ROW3("sum_axis0", AK_REDUCE_SUM, 16384, 16384, 1000, 1003, 0, run_reduce_axis0, bytes_reduce_axis0, NULL, 2, 0.0f,
               "xc", TOL_SUM),
    BENCH_ROW3("max_axis0", AK_REDUCE_MAX, 16384, 16384, 1000, 1003, 0, run_reduce_axis0, bytes_reduce_axis0, NULL, 2, 0.0f,
               "xc", TOL_EXACT),
    BENCH_ROW3("sum_axis0", AK_REDUCE_SUM, 262144, 64, 4000, 7, 0, run_reduce_axis0, bytes_reduce_axis0, NULL, 2, 0.0f,
               "xc", TOL_SUM),
    BENCH_ROW3("normalize_l2", AK_NORM_L2, RD_R, RD_C, RD_QR, RD_QC, 2, run_normalize_rows, NULL, NULL, 2, 1e-12f, "xy",
               TOL_DEFAULT),
    BENCH_ROW3("normalize_l1", AK_NORM_L1, 4096, 65536, 4, 70000, 2, run_normalize_rows, NULL, NULL, 2, 1e-12f, "xy",
               TOL_DEFAULT),
    BENCH_ROW3("rms_channels", AK_NORM_RMS, 256, 1048576, 4, 6400, 2, run_normalize_channels, NULL, NULL, 2, 1e-5f, "xy",
               TOL_DEFAULT),
    BENCH_ROW3("bcast_row_mul", AK_OP_MUL, 16384, 16384, 1000, 1003, 0, run_bcast_row, bytes_bcast_row, NULL, 3, 0.0f,
               "xyw", TOL_DEFAULT),
    BENCH_ROW3("triu", 1, 8192, 8192, 300, 301, 2, run_triangular, NULL, NULL, 2, 0.0f, "xF", TOL_EXACT),
    /* pooling (2x2 of (cols / 512) x 512 planes; 'v': cols / 4 outputs per row), batch / group / instance norm
     * (rows = batch x 64 channels; whole-tensor statistics: checked in full), scans, losses */
    BENCH_ROW3("max_pool2d", 16384, 8192, 65536, 4, 65536, 0, run_pool, bytes_pool, NULL, 2, 0.0f, "xv", TOL_EXACT),
    BENCH_ROW3("avg_pool2d", 16384, 8192, 65536, 4, 65536, 0, run_pool, bytes_pool, NULL, 2, 1.0f, "xv", TOL_DEFAULT),
    BENCH_ROW3("batch_norm", 0, 4096, 16384, 64, 1000, 2, run_batch_norm, NULL, NULL, 3, 0.0f, "xF-", TOL_DEFAULT),
    BENCH_ROW3("group_norm", 8, 4096, 16384, 64, 1000, 2, run_group_norm, NULL, NULL, 2, 0.0f, "xF", TOL_DEFAULT),
    BENCH_ROW3("instance_norm", 64, 4096, 16384, 64, 1000, 2, run_group_norm, NULL, NULL, 2, 0.0f, "xF", TOL_DEFAULT),
    BENCH_ROW3("cumprod", AK_SCAN_PROD, 4096, 4096, 64, 1000, 2, run_scan, NULL, setup_randn, 2, 0.0f, "xy", TOL_SCAN),
    BENCH_ROW3("cumsum_reverse", AK_SCAN_REVERSE << 1, 4096, 4096, 64, 1000, 2, run_scan, NULL, setup_randn, 2, 0.0f, "xy",
               TOL_SCAN),
    BENCH_ROW3("mse_loss", AK_LOSS_MSE, 16384, 16384, 64, 1000, 2, run_loss, NULL, NULL, 3, 0.0f, "xx1", TOL_DEFAULT),
    BENCH_ROW3("smooth_l1_loss", AK_LOSS_SMOOTH_L1, 16384, 16384, 64, 1000, 2, run_loss, NULL, NULL, 3, 0.0f, "xx1", TOL_DEFAULT),
    BENCH_ROW3("kl_div_loss", AK_LOSS_KL_DIV, 16384, 16384, 64, 1000, 2, run_loss, NULL, NULL, 3, 0.0f, "xx1", TOL_DEFAULT),
    BENCH_ROW3("hinge_loss", AK_LOSS_HINGE, 16384, 16384, 64, 1000, 2, run_loss, NULL, NULL, 3, 0.0f, "xx1", TOL_DEFAULT),
    BENCH_ROW3("triplet_margin_loss", 0, 32768, 8192, 64, 1000, 3, run_triplet, NULL, NULL, 4, 0.0f, "xxx1", TOL_DEFAULT),
    BENCH_ROW3("cross_entropy", AK_LOSS_NONE, RD_R, RD_C, RD_QR, RD_QC, 0, run_xent, bytes_xent, setup_xent, 3, 0.0f,
               "xtf", TOL_DEFAULT),
    BENCH_ROW3("cross_entropy_mean", AK_LOSS_MEAN, RD_R, RD_C, RD_QR, RD_QC, 0, run_xent, bytes_xent, setup_xent, 3,
               0.0f, "xt1", TOL_DEFAULT),
    /* LLM building blocks: residual + norm over 4096 tokens x 4096 hidden; RoPE over 4096 tokens x 32 heads
     * x 128 (theta 500000, Llama 3); embedding of 8192 tokens from a 128256 x 4096 table; permute (0, 2, 1, 3)
     * of [8][1024][32][128] (also with a cast). The gather and the permute mix rows: checked over the whole
     * tensor ('F'). */
    BENCH_ROW3("add_layernorm", 0, 4096, 4096, RD_QR, RD_QC, 0, run_add_layernorm, bytes_add_norm, NULL, 4, 1e-5f,
               "xxyy", TOL_DEFAULT),
    BENCH_ROW3("add_rmsnorm", 0, 4096, 4096, RD_QR, RD_QC, 0, run_add_rmsnorm, bytes_add_norm, NULL, 4, 1e-6f, "xxyy",
               TOL_DEFAULT),
    BENCH_ROW3("rope_neox", AK_ROPE_NEOX, 4096, 4096, 64, 1024, 0, run_rope, bytes_rope, setup_rope, 3, 500000.0f,
               "xyt", TOL_DEFAULT),
    BENCH_ROW3("rope_interleaved", AK_ROPE_INTERLEAVED, 4096, 4096, 64, 1024, 0, run_rope, bytes_rope, setup_rope, 3,
               500000.0f, "xyt", TOL_DEFAULT),
    BENCH_ROW3("embedding", 0, 8192, 4096, 64, 1000, 0, run_embedding, bytes_embedding, setup_embedding, 3, 0.0f, "xtF",
               TOL_EXACT),
    BENCH_ROW3("permute", 0, 8192, 4096, 64, 1024, 2, run_permute, NULL, NULL, 2, 0.0f, "xF", TOL_EXACT),
    { "permute", AK_F32, AK_BF16, 0, 8192, 4096, 64, 1024, 0, run_permute, bytes_cast, NULL, 2, 0.0f, "xF", TOL_EXACT },
    { "permute", AK_BF16, AK_F32, 0, 8192, 4096, 64, 1024, 0, run_permute, bytes_cast, NULL, 2, 0.0f, "xF", TOL_EXACT },
    { "permute", AK_I32, AK_I64, 0, 8192, 4096, 64, 1024, 0, run_permute, bytes_cast, NULL, 2, 0.0f, "xF", TOL_EXACT },
    { "permute", AK_I64, AK_I32, 0, 8192, 4096, 64, 1024, 0, run_permute, bytes_cast, NULL, 2, 0.0f, "xF", TOL_EXACT },
    /* random numbers, dropout (p = 0.1, no mask): checked in full and bit for bit ("F": the whole
     * n-element output; positions matter, so no windows); cumsum; top-k (k = op, in the name: vocab
     * rows, MoE routing; "v" / "j": k values / k int64 indices per row) */
    BENCH_ROW3("rand_uniform", 0, 4096, 4096, 64, 1000, 1, run_rand_uniform, NULL, NULL, 1, 0.0f, "F", TOL_EXACT),
    BENCH_ROW3("rand_normal", 0, 4096, 4096, 64, 1000, 1, run_rand_normal, NULL, NULL, 1, 0.0f, "F", TOL_EXACT),
    BENCH_ROW3("dropout", 0, 4096, 4096, 64, 1000, 2, run_dropout, NULL, NULL, 2, 0.1f, "xF", TOL_EXACT),
    BENCH_ROW3("cumsum", 0, 4096, 4096, 64, 1000, 2, run_cumsum, NULL, setup_randn, 2, 0.0f, "xy", TOL_SCAN),
    { "cumsum", AK_F32, AK_F32, 0, 64, 1048576, 4, 40000, 2, run_cumsum, NULL, setup_randn, 2, 0.0f, "xy", TOL_SCAN },
    { "cumsum", AK_BF16, AK_BF16, 0, 64, 1048576, 4, 40000, 2, run_cumsum, NULL, setup_randn, 2, 0.0f, "xy", TOL_SCAN },
    BENCH_ROW3("topk_k8", 8, 4096, 4096, 64, 1000, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f, "xvj", TOL_EXACT),
    BENCH_ROW3("topk_k50", 50, 256, 128256, 2, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f, "xvj", TOL_EXACT),
    { "topk_k50", AK_F32, AK_F32, 50, 1, 128256, 1, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f, "xvj", TOL_EXACT },
    { "topk_k50", AK_F32, AK_F32, 50, 16, 128256, 3, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f, "xvj", TOL_EXACT },
    BENCH_ROW3("topk_k1024", 1024, 256, 128256, 2, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f, "xvj",
               TOL_EXACT),
    { "topk_k1024", AK_F32, AK_F32, 1024, 1, 128256, 1, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f, "xvj",
      TOL_EXACT },
};

/* ---- harness ------------------------------------------------------------------ */
typedef struct stats { double mean, std, min, max, median, ci_lo, ci_hi; int n; } stats;

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}
/* Summary of t[0..n) (t itself is left in trial order). ci_lo/ci_hi: the
 * distribution-free 95% interval of the median, order statistics at ranks
 * floor(n/2 - 1.96 sqrt(n)/2) and ceil(n/2 + 1.96 sqrt(n)/2) + 1 (1-based),
 * as bench/report.py computes it. */
static stats compute_stats(const double* t, int n, double* work) {
    stats s;
    int i, j, k;
    double sum = 0, sq = 0, half = 1.959964 * sqrt((double)n) / 2.0;
    memcpy(work, t, (size_t)n * sizeof *t);
    qsort(work, (size_t)n, sizeof *work, cmp_double);
    for (i = 0; i < n; i++) sum += work[i];
    s.mean = sum / n;
    for (i = 0; i < n; i++) sq += (work[i] - s.mean) * (work[i] - s.mean);
    s.std = sqrt(sq / n);
    s.min = work[0];
    s.max = work[n - 1];
    s.median = n % 2 ? work[n / 2] : 0.5 * (work[n / 2 - 1] + work[n / 2]);
    j = (int)floor(n / 2.0 - half);
    k = (int)ceil(n / 2.0 + half) + 1;
    s.ci_lo = work[(j < 1 ? 1 : j) - 1];
    s.ci_hi = work[(k > n ? n : k) - 1];
    s.n = n;
    return s;
}

typedef struct harness {
    ak_context* ctx;
    ak_event *start, *end;
    void* scratch;         /* L2 flush buffer */
    bench_spin spin;       /* the gap after the flush (BENCH_SPIN_US) */
    size_t scratch_bytes;
    int min_trials, max_trials, warmup;
    double ci_width;       /* stop when the 95% interval of the median is this narrow (relative) */
    double max_s;          /* or after this many seconds of trials */
    double *times, *work;  /* max_trials each */
} harness;

typedef ak_result (*timed_fn)(void* user);

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Time fn: warm-up, then trials with the L2 flushed before each, until the
 * median is known (see TIMING). h->times[0..*n) gets the trials; *stop why
 * they stopped. */
static ak_result time_it(harness* h, timed_fn fn, void* user, int* n, const char** stop) {
    int i;
    ak_result r;
    double t0;
    *n = 0;
    *stop = "max_trials";
    for (i = 0; i < h->warmup; i++)
        if ((r = fn(user)) != AK_OK) return r;
    if ((r = ak_device_synchronize(h->ctx)) != AK_OK) return r;
    t0 = now_s();
    for (i = 0; i < h->max_trials; i++) {
        float ms = 0;
        if (h->scratch && (r = ak_memset(h->ctx, h->scratch, i & 0xFF, h->scratch_bytes, NULL)) != AK_OK) return r;
        if ((r = bench_spin_run(&h->spin, BENCH_SPIN_US)) != AK_OK) return r;
        if ((r = ak_event_record(h->start, NULL)) != AK_OK) return r;
        if ((r = fn(user)) != AK_OK) return r;
        if ((r = ak_event_record(h->end, NULL)) != AK_OK) return r;
        if ((r = ak_event_synchronize(h->end)) != AK_OK) return r;
        if ((r = ak_event_elapsed_ms(h->start, h->end, &ms)) != AK_OK) return r;
        h->times[i] = ms;
        *n = i + 1;
        if (*n >= h->min_trials && *n < h->max_trials && (*n - h->min_trials) % 25 == 0) {
            stats s = compute_stats(h->times, *n, h->work);
            if (s.median > 0 && (s.ci_hi - s.ci_lo) <= h->ci_width * s.median) { *stop = "ci"; break; }
            if (now_s() - t0 >= h->max_s) { *stop = "time_cap"; break; }
        }
    }
    return AK_OK;
}

typedef struct entry_call { const bench_case* c; const bench_entry* e; } entry_call;
static ak_result call_entry(void* u) {
    entry_call* ec = (entry_call*)u;
    return ec->e->run(ec->c, ec->e);
}
typedef struct copy_call { ak_context* ctx; void* dst; const void* src; size_t bytes; } copy_call;
static ak_result call_copy(void* u) {
    copy_call* cc = (copy_call*)u;
    return ak_memcpy_async(cc->ctx, cc->dst, cc->src, cc->bytes, AK_D2D, NULL);
}

/* ---- checking against the CPU reference (see CHECKING) ---------------------------- */
#define POOL_N 4194319u  /* random values per dtype; a prime, so the repeats never line up with a row */
typedef struct pool {
    ak_dtype dtype;
    void* host;          /* the POOL_N values twice: any window of <= POOL_N values is contiguous */
    void* dev;           /* the same on the device (NULL until first used) */
} pool;

static uint64_t rng_next(uint64_t* s) {   /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}
static ak_result pool_get(ak_context* ctx, pool* pools, ak_dtype t, pool** out) {
    size_t es = ak_dtype_size(t), i;
    uint64_t st = 0x9E3779B97F4A7C15ULL ^ (uint64_t)t;
    pool* p = &pools[t == AK_F32 ? 0 : t == AK_F16 ? 1 : t == AK_BF16 ? 2 : t == AK_I32 ? 3 : t == AK_I64 ? 4 : 5];
    ak_result r;
    if (t != AK_F32 && t != AK_F16 && t != AK_BF16 && t != AK_I32 && t != AK_I64 && t != AK_FP8_E4M3) { fprintf(stderr, "bench_ops: no random pool for dtype %s\n", ak_dtype_name(t)); return AK_ERROR_INVALID_ARGUMENT; }
    if (!p->host) {
        p->dtype = t;
        if (!(p->host = malloc(2 * (size_t)POOL_N * es))) return AK_ERROR_OUT_OF_MEMORY;
        /* e4m3 codes: uniform over the 254 that are not NaN (both signs, zeros, subnormals, up to 448) */
        if (t == AK_FP8_E4M3)
            for (i = 0; i < POOL_N; i++) {
                unsigned c = (unsigned)(rng_next(&st) >> 56);
                ((uint8_t*)p->host)[i] = (uint8_t)((c & 0x7Fu) == 0x7Fu ? c - 1u : c);
            }
        /* integers: uniform in [-2^30, 2^30) (i32) / [-2^40, 2^40) (i64): exact as doubles for the check */
        if (t == AK_I32) for (i = 0; i < POOL_N; i++) ((int32_t*)p->host)[i] = (int32_t)(rng_next(&st) >> 33) - (1 << 30);
        if (t == AK_I64) for (i = 0; i < POOL_N; i++) ((int64_t*)p->host)[i] = (int64_t)(rng_next(&st) >> 23) - ((int64_t)1 << 40);
        for (i = 0; i < POOL_N && (t == AK_F32 || t == AK_F16 || t == AK_BF16); i += 2) {   /* normal(0, 1), Box-Muller */
            double u1 = ((double)(rng_next(&st) >> 11) + 1.0) / 9007199254740993.0;
            double u2 = (double)(rng_next(&st) >> 11) / 9007199254740992.0;
            double rad = sqrt(-2.0 * log(u1));
            ak_elem_set(p->host, t, i, rad * cos(6.283185307179586 * u2));
            if (i + 1 < POOL_N) ak_elem_set(p->host, t, i + 1, rad * sin(6.283185307179586 * u2));
        }
        memcpy((char*)p->host + (size_t)POOL_N * es, p->host, (size_t)POOL_N * es);
    }
    if (!p->dev) {
        if ((r = ak_malloc(ctx, 2 * (size_t)POOL_N * es, NULL, &p->dev)) != AK_OK) return r;
        if ((r = ak_memcpy(ctx, p->dev, p->host, 2 * (size_t)POOL_N * es, AK_H2D)) != AK_OK) return r;
    }
    *out = p;
    return AK_OK;
}
/* dst[0..count) = values first .. first+count of the stream that starts at pool offset shift
 * (device: dst is a device buffer filled by D2D copies; host: memcpy) */
static ak_result pool_copy(ak_context* ctx, const pool* p, void* dst, size_t first, size_t count, size_t shift,
                           int device) {
    size_t es = ak_dtype_size(p->dtype), done = 0;
    ak_result r;
    while (done < count) {
        size_t start = (shift + first + done) % POOL_N, len = count - done;
        if (len > POOL_N) len = POOL_N;
        if (device) {
            if ((r = ak_memcpy(ctx, (char*)dst + done * es, (const char*)p->dev + start * es, len * es, AK_D2D)) != AK_OK)
                return r;
        } else memcpy((char*)dst + done * es, (const char*)p->host + start * es, len * es);
        done += len;
    }
    return AK_OK;
}
static size_t buf_shift(int b) { return ((size_t)b * 1000003u + 17u) % POOL_N; }

typedef struct check_result {
    int correct;
    double max_abs, max_ratio;
    size_t compared;
    char detail[160];
} check_result;

/* Write the random inputs of the device case c (x, Y, w buffers), NaN bytes in its outputs. */
static ak_result init_inputs(ak_context* ctx, pool* pools, const bench_entry* en, const bench_case* c) {
    int b;
    ak_result r;
    pool* p;
    const char* lay;
    if (!en->bufs) {   /* a row without a check layout: small non-zero bytes as before; the entry stays unchecked */
        for (b = 0; b < 4; b++)
            if (c->buf[b] && (r = ak_memset(ctx, c->buf[b], 0x3C, c->buf_bytes, NULL)) != AK_OK) return r;
        return AK_OK;
    }
    lay = en->bufs + (en->bufs[0] == 'e');
    if ((r = pool_get(ctx, pools, c->dtype, &p)) != AK_OK) return r;
    for (b = 0; b < 4 && lay[b]; b++) {
        char k = lay[b];
        if (k != '-' && !c->buf[b]) {
            fprintf(stderr, "bench_ops: %s: check layout \"%s\" names buffer %d, the entry allocates fewer\n", en->name,
                    en->bufs, b);
            return AK_ERROR_INVALID_ARGUMENT;
        }
        if (k == 'x' || k == 'Y') r = pool_copy(ctx, p, c->buf[b], 0, c->n, buf_shift(b), 1);
        else if (k == 'w') r = pool_copy(ctx, p, c->buf[b], 0, c->cols, buf_shift(b), 1);
        else if (k == 'y' || k == 'f' || k == 'b' || k == 'i' || k == 'T' || k == '1' || k == 'F' || k == 'v' || k == 'j' || k == 'c')
            r = ak_memset(ctx, c->buf[b], 0xFF, c->buf_bytes, NULL);
        if (r != AK_OK) return r;
    }
    return AK_OK;
}

static int is_nan(double v) { return v != v; }

/* Run the entry once more on the device after init_inputs, and compare it with
 * the same run function on the cpu context over the same inputs (see CHECKING). */
static ak_result check_entry(ak_context* ctx, ak_context* cpu, pool* pools, const bench_entry* en, bench_case* c,
                             size_t win_elems, int corrupt, check_result* res) {
    size_t es = ak_dtype_size(c->dtype), es2 = ak_dtype_size(en->dtype2);
    size_t U, ulen, W, win[3][2], nw = 0, K = 0, w, j;
    const char* lay = en->bufs + (en->bufs[0] == 'e');   /* one character per buffer */
    int full = strchr(lay, '1') != NULL || strchr(lay, 'F') != NULL;   /* whole tensor */
    int cm = !full && (strchr(lay, 'T') != NULL || strchr(lay, 'c') != NULL);   /* windows of columns */
    int ew = en->bufs[0] == 'e' && !full && !cm, b;
    bench_case hc;
    void* gpu[4] = {NULL, NULL, NULL, NULL};
    size_t gcount[4] = {0, 0, 0, 0};
    ak_dtype gtype[4] = {AK_F32, AK_F32, AK_F32, AK_F32};
    double base = (c->dtype == AK_F32 && en->dtype2 == AK_F32) ? 1e-4 : 1e-2;
    ak_result r = AK_OK;
    pool* p;
    const char* k;

    memset(res, 0, sizeof *res);
    for (k = lay; *k; k++)
        if (!strchr(ew ? "xyY-" : cm ? "xTc-" : "xyYwtfbiT1Fvj-", *k)) {
            fprintf(stderr, "bench_ops: %s: check layout \"%s\": '%c' is not a buffer kind%s\n", en->name, en->bufs, *k,
                    ew ? " of an element-wise op" : cm ? " beside a transposed output 'T'" : "");
            return AK_ERROR_INVALID_ARGUMENT;
        }
    /* units: elements (ew), input columns = output rows (cm), or rows */
    U = ew ? c->n : cm ? c->cols : c->rows;
    ulen = ew ? 1 : cm ? c->rows : c->cols;
    W = ew ? win_elems : (win_elems / ulen ? win_elems / ulen : 1);
    if (full || U <= 3 * W) {
        win[0][0] = 0; win[0][1] = U; nw = 1;
    } else {
        win[0][0] = 0; win[0][1] = W;
        win[1][0] = U / 2 - W / 2; win[1][1] = U / 2 - W / 2 + W;
        win[2][0] = U - W; win[2][1] = U;
        nw = 3;
    }
    for (w = 0; w < nw; w++) K += win[w][1] - win[w][0];
    if (nw == 1)
        snprintf(res->detail, sizeof res->detail, "all %zu %s", U, ew ? "elements" : cm ? "columns" : U == 1 ? "row" : "rows");
    else snprintf(res->detail, sizeof res->detail, "%s [0,%zu) [%zu,%zu) [%zu,%zu) of %zu",
                  ew ? "elements" : cm ? "columns (output rows)" : "rows", win[0][1], win[1][0], win[1][1], win[2][0],
                  win[2][1], U);

    /* the device run on fresh inputs */
    if ((r = init_inputs(ctx, pools, en, c)) != AK_OK) return r;
    if ((r = en->run(c, en)) != AK_OK) return r;
    if ((r = ak_device_synchronize(ctx)) != AK_OK) return r;
    if ((r = pool_get(ctx, pools, c->dtype, &p)) != AK_OK) return r;

    /* the host case: same inputs (the windows of them), the cpu context */
    memset(&hc, 0, sizeof hc);
    hc.ctx = cpu;
    hc.dtype = c->dtype;
    if (ew) { hc.rows = 1; hc.cols = K; } else if (cm) { hc.rows = c->rows; hc.cols = K; } else { hc.rows = K; hc.cols = c->cols; }
    hc.n = hc.rows * hc.cols;
    hc.buf_bytes = hc.n * (es > es2 ? es : es2);
    if (hc.buf_bytes < 16) hc.buf_bytes = 16;
    for (b = 0; b < 4 && r == AK_OK; b++) {
        char kk = b < (int)strlen(lay) ? lay[b] : '-';
        size_t per = 0, off = 0;     /* bytes per unit of the device buffer */
        if (!(hc.buf[b] = calloc(1, hc.buf_bytes + K * 8 + 64))) { r = AK_ERROR_OUT_OF_MEMORY; break; }
        if (kk == 'x' && cm) {   /* the windows of columns, row by row */
            size_t i;
            for (i = 0; i < c->rows && r == AK_OK; i++)
                for (w = 0, off = 0; w < nw && r == AK_OK; w++) {
                    r = pool_copy(ctx, p, (char*)hc.buf[b] + (i * K + off) * es, i * c->cols + win[w][0],
                                  win[w][1] - win[w][0], buf_shift(b), 0);
                    off += win[w][1] - win[w][0];
                }
        } else if (kk == 'x' || kk == 'Y') {
            for (w = 0; w < nw && r == AK_OK; w++) {
                r = pool_copy(ctx, p, (char*)hc.buf[b] + off * ulen * es, win[w][0] * ulen, (win[w][1] - win[w][0]) * ulen,
                              buf_shift(b), 0);
                off += win[w][1] - win[w][0];
            }
        } else if (kk == 'w') {
            r = pool_copy(ctx, p, hc.buf[b], 0, c->cols, buf_shift(b), 0);
        }
        switch (kk) {
        case 'y': per = ulen * es2; gtype[b] = en->dtype2; break;
        case 'Y': per = ulen * es; gtype[b] = c->dtype; break;
        case 'T': per = ulen * es; gtype[b] = c->dtype; break;
        case 'f': case 'c': per = 4; gtype[b] = AK_F32; break;
        case 'b': per = 4 * ((c->cols + 127) / 128); gtype[b] = AK_F32; break;
        case 'i': case 't': per = 8; gtype[b] = AK_I64; break;
        case '1': per = 4; gtype[b] = AK_F32; break;
        case 'F': per = ulen * es2; gtype[b] = en->dtype2; break;
        case 'v': per = (size_t)en->op * es; gtype[b] = c->dtype; break;
        case 'j': per = (size_t)en->op * 8; gtype[b] = AK_I64; break;
        default: break;
        }
        if (per && r == AK_OK) {   /* the device's values of this buffer, same windows */
            size_t bytes = kk == '1' ? 4 : K * per;
            void* dst = kk == 't' ? hc.buf[b] : (gpu[b] = malloc(bytes + 8));
            if (!dst) { r = AK_ERROR_OUT_OF_MEMORY; break; }
            if (kk == '1') r = ak_memcpy(ctx, dst, c->buf[b], bytes, AK_D2H);
            else
                for (w = 0, off = 0; w < nw && r == AK_OK; w++) {
                    r = ak_memcpy(ctx, (char*)dst + off * per, (const char*)c->buf[b] + win[w][0] * per,
                                  (win[w][1] - win[w][0]) * per, AK_D2H);
                    off += win[w][1] - win[w][0];
                }
            if (kk != 't') gcount[b] = bytes / (kk == 'f' || kk == 'b' || kk == '1' || kk == 'c' ? 4 : kk == 'i' ? 8 : ak_dtype_size(gtype[b]));
        }
    }
    /* the CPU reference: the same run function on the cpu context */
    if (r == AK_OK && (r = en->run(&hc, en)) != AK_OK)
        fprintf(stderr, "bench_ops: %s: cpu reference failed: %s\n", en->name, ak_last_error());
    if (r == AK_OK) {
        res->correct = 1;
        for (b = 0; b < 4; b++) {
            char kk = b < (int)strlen(lay) ? lay[b] : '-';
            if (!gpu[b]) continue;
            if (corrupt) {   /* --check-corrupt: the check must catch this */
                if (gtype[b] == AK_I64) ((int64_t*)gpu[b])[0] += 1;
                else ak_elem_set(gpu[b], gtype[b], 0, ak_elem_get(gpu[b], gtype[b], 0) + 1.0);
            }
            double scan_abs = 0.0;   /* TOL_SCAN: running sum of |x| along the row */
            for (j = 0; j < gcount[b]; j++) {
                double g = ak_elem_get(gpu[b], gtype[b], j), cr = ak_elem_get(hc.buf[b], gtype[b], j), tol, d;
                int ok;
                if (en->tol == TOL_SCAN && kk == 'y') {
                    if (j % hc.cols == 0) scan_abs = 0.0;
                    scan_abs += fabs(ak_elem_get(hc.buf[0], hc.dtype, j));
                }
                if (en->tol == TOL_EXACT || gtype[b] == AK_I64) tol = 0.0;
                else if (en->tol == TOL_SCAN && kk == 'y')
                    tol = base * (1.0 + fabs(cr)) + (c->dtype == AK_F32 ? 1e-6 : 1e-3) * scan_abs;
                else if ((en->tol == TOL_SUM || en->tol == TOL_MEAN) && kk == 'f') {
                    double as = 0;
                    size_t q;
                    for (q = 0; q < hc.cols; q++) as += fabs(ak_elem_get(hc.buf[0], hc.dtype, j * hc.cols + q));
                    if (en->tol == TOL_MEAN) as /= (double)hc.cols;
                    tol = 1e-4 * (1.0 + fabs(cr)) + 5e-7 * as;
                } else if ((en->tol == TOL_SUM || en->tol == TOL_MEAN) && kk == 'c') {
                    double as = 0;   /* column j of the rows x K host input */
                    size_t q;
                    for (q = 0; q < hc.rows; q++) as += fabs(ak_elem_get(hc.buf[0], hc.dtype, q * hc.cols + j));
                    if (en->tol == TOL_MEAN) as /= (double)hc.rows;
                    tol = 1e-4 * (1.0 + fabs(cr)) + 5e-7 * as;
                } else tol = base * (1.0 + fabs(cr));
                d = fabs(g - cr);
                ok = is_nan(cr) ? is_nan(g) : (!is_nan(g) && (d <= tol || g == cr));
                if (!is_nan(d)) {
                    if (d > res->max_abs) res->max_abs = d;
                    if (tol > 0 && d / tol > res->max_ratio) res->max_ratio = d / tol;
                    if (tol == 0 && d > 0 && res->max_ratio < 1e30) res->max_ratio = 1e30;
                } else if (!ok) res->max_ratio = 1e30;
                if (!ok) {
                    if (res->correct)
                        fprintf(stderr, "bench_ops: %s %s: [%zu] = %.9g, reference %.9g (tol %.3g)\n", en->name,
                                ak_dtype_name(c->dtype), j, g, cr, tol);
                    res->correct = 0;
                }
                res->compared++;
            }
        }
    }
    for (b = 0; b < 4; b++) { free(gpu[b]); free(hc.buf[b]); }
    return r;
}

static void json_str(FILE* f, const char* s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s >= 32) fputc(*s, f);
    }
    fputc('"', f);
}
static void json_num(FILE* f, double v) {
    if (v != v || v > 1e300 || v < -1e300) fputs("null", f);
    else fprintf(f, "%.6g", v);
}

/* --filter A,B,...: the entry's name contains one of the comma-separated substrings */
static int filter_match(const char* filter, const char* name) {
    char sub[128];
    while (*filter) {
        size_t n = strcspn(filter, ",");
        if (n && n < sizeof sub) {
            memcpy(sub, filter, n);
            sub[n] = 0;
            if (strstr(name, sub)) return 1;
        }
        filter += n;
        if (*filter == ',') filter++;
    }
    return 0;
}

static void usage(const char* argv0) {
    fprintf(stderr, "usage: %s [--quick] [--trials N | --min-trials N --max-trials N] [--ci W] [--max-s S] [--warmup N]\n"
                    "       [--filter SUBSTR[,SUBSTR...]] [--no-check] [--check-elems N] [--check-corrupt] [--budget-s S] [OUT.json]\n", argv0);
}

int main(int argc, char** argv) {
    harness h;
    ak_context *ctx = NULL, *cpu = NULL;
    ak_config cpucfg;
    const ak_device_info* dev;
    const char *out_path = NULL, *filter = NULL;
    int quick = 0, i, nres = 0, failures = 0, incorrect = 0, unchecked = 0, check = 1, corrupt = 0, trials = -1, ntr;
    size_t e;
    double copy_gbps = 0;
    char device_str[64];
    FILE* jf = NULL;
    ak_result r;
    pool pools[6];
    const char* stop;
    size_t win_elems = (size_t)1 << 20;
    double budget_s = 0, t_start = now_s();

    memset(&h, 0, sizeof h);
    memset(pools, 0, sizeof pools);
    h.min_trials = h.max_trials = h.warmup = -1;
    h.ci_width = 0.01;
    h.max_s = 2.0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc) trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--min-trials") && i + 1 < argc) h.min_trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-trials") && i + 1 < argc) h.max_trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ci") && i + 1 < argc) h.ci_width = atof(argv[++i]);
        else if (!strcmp(argv[i], "--max-s") && i + 1 < argc) h.max_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) h.warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else if (!strcmp(argv[i], "--no-check")) check = 0;
        else if (!strcmp(argv[i], "--check-corrupt")) corrupt = 1;
        else if (!strcmp(argv[i], "--check-elems") && i + 1 < argc) win_elems = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--budget-s") && i + 1 < argc) budget_s = atof(argv[++i]);
        else if (argv[i][0] == '-') { usage(argv[0]); return 2; }
        else out_path = argv[i];
    }
    if (quick && trials < 1) trials = 10;
    if (trials > 0) h.min_trials = h.max_trials = trials;
    if (h.min_trials < 1) h.min_trials = 100;
    if (h.max_trials < h.min_trials) h.max_trials = h.min_trials > 2000 ? h.min_trials : 2000;
    if (h.warmup < 0) h.warmup = quick ? 1 : 5;
    if (!(h.ci_width > 0) || !(h.max_s > 0) || h.max_trials > 1000000 || win_elems < 1) {
        fprintf(stderr, "bench_ops: --ci, --max-s and --check-elems must be > 0, --max-trials <= 1000000\n");
        return 2;
    }

    if ((r = ak_context_create(NULL, &ctx)) != AK_OK) {
        fprintf(stderr, "bench_ops: no context: %s\n", ak_last_error());
        return 1;
    }
    cpucfg = ak_config_default();
    cpucfg.backend = AK_BACKEND_CPU;
    if (check && ak_context_create(&cpucfg, &cpu) != AK_OK) {
        fprintf(stderr, "bench_ops: no cpu context for the reference: %s\n", ak_last_error());
        return 1;
    }
    dev = ak_context_device(ctx);
    snprintf(device_str, sizeof device_str, "%s:%d",
             dev->backend == AK_BACKEND_CUDA ? "cuda" : dev->backend == AK_BACKEND_HIP ? "hip" : "cpu", dev->device);
    h.ctx = ctx;
    h.times = (double*)malloc((size_t)h.max_trials * sizeof(double));
    h.work = (double*)malloc((size_t)h.max_trials * sizeof(double));
    if (!h.times || !h.work || ak_event_create(ctx, &h.start) != AK_OK || ak_event_create(ctx, &h.end) != AK_OK) {
        fprintf(stderr, "bench_ops: setup failed: %s\n", ak_last_error());
        return 1;
    }
    h.scratch_bytes = dev->l2_bytes ? 2 * dev->l2_bytes : ((size_t)64 << 20);
    if (quick && h.scratch_bytes > ((size_t)8 << 20)) h.scratch_bytes = (size_t)8 << 20;
    if (ak_malloc(ctx, h.scratch_bytes, NULL, &h.scratch) != AK_OK) {
        fprintf(stderr, "bench_ops: L2 flush buffer: %s\n", ak_last_error());
        return 1;
    }
    if (bench_spin_init(ctx, &h.spin) != AK_OK) {
        fprintf(stderr, "bench_ops: spin kernel: %s\n", ak_last_error());
        return 1;
    }
    printf("bench_ops on %s (%s, %s), %d..%d trials (stop at a 95%% interval of the median < %.2g%% or %.3g s), "
           "L2 flush %zu MiB, %s\n", dev->name, device_str, dev->arch, h.min_trials, h.max_trials, 100 * h.ci_width,
           h.max_s, h.scratch_bytes >> 20, check ? "each entry checked against the CPU reference" : "NOT checked");

    /* copy bandwidth of this device, same protocol */
    {
        size_t bytes = quick ? ((size_t)8 << 20) : ((size_t)1 << 30);
        void *a = NULL, *b = NULL;
        copy_call cc;
        stats s;
        if (ak_malloc(ctx, bytes, NULL, &a) != AK_OK || ak_malloc(ctx, bytes, NULL, &b) != AK_OK ||
            ak_memset(ctx, a, 1, bytes, NULL) != AK_OK) {
            fprintf(stderr, "bench_ops: copy buffers: %s\n", ak_last_error());
            return 1;
        }
        cc.ctx = ctx; cc.dst = b; cc.src = a; cc.bytes = bytes;
        if ((r = time_it(&h, call_copy, &cc, &ntr, &stop)) != AK_OK) {
            fprintf(stderr, "bench_ops: copy: %s\n", ak_last_error());
            return 1;
        }
        s = compute_stats(h.times, ntr, h.work);
        copy_gbps = 2.0 * (double)bytes / (s.median * 1e-3) / 1e9;
        printf("%-12s %-10s %-16s %10.4f ms %9.1f GB/s (copy roofline)\n", "memcpy_d2d", "u8", "", s.median, copy_gbps);
        ak_free(ctx, a);
        ak_free(ctx, b);
    }

    if (out_path) {
        jf = fopen(out_path, "w");
        if (!jf) { fprintf(stderr, "bench_ops: cannot write %s\n", out_path); return 1; }
        fprintf(jf, "{\n  \"tool\": \"amdkit bench_ops\",\n  \"hardware\": ");
        json_str(jf, dev->name);
        fprintf(jf, ",\n  \"device\": ");
        json_str(jf, device_str);
        fprintf(jf, ",\n  \"backend\": \"%s\",\n  \"arch\": ", ak_backend_name(dev->backend));
        json_str(jf, dev->arch);
        fprintf(jf, ",\n  \"quick\": %s,\n  \"checked\": %s,\n  \"min_trials\": %d,\n  \"max_trials\": %d,\n"
                    "  \"ci_width\": %g,\n  \"max_s\": %g,\n  \"copy_gbps\": %.2f,\n  \"results\": [",
                quick ? "true" : "false", check ? "true" : "false", h.min_trials, h.max_trials, h.ci_width, h.max_s,
                copy_gbps);
    }

    for (e = 0; e < sizeof entries / sizeof entries[0]; e++) {
        const bench_entry* en = &entries[e];
        bench_case c;
        entry_call ec;
        stats s;
        check_result cr;
        int b, nbuf = en->nbuf ? en->nbuf : 4, checked = 0;
        size_t es = ak_dtype_size(en->dtype), es2 = ak_dtype_size(en->dtype2);
        double bytes, gbps;
        char shape[64], label[64];
        if (filter && !filter_match(filter, en->name)) continue;
        if (budget_s > 0 && now_s() - t_start > budget_s) {
            printf("bench_ops: --budget-s %g reached: %s %s and later entries not run\n", budget_s, en->name,
                   ak_dtype_name(en->dtype));
            failures++;
            break;
        }
        memset(&c, 0, sizeof c);
        c.ctx = ctx;
        c.dtype = en->dtype;
        c.rows = quick ? en->qrows : en->rows;
        c.cols = quick ? en->qcols : en->cols;
        c.n = c.rows * c.cols;
        c.buf_bytes = c.n * (es > es2 ? es : es2);
        if (c.buf_bytes < 4) c.buf_bytes = 4;
        snprintf(shape, sizeof shape, "[%zu, %zu]", c.rows, c.cols);
        if (en->dtype2 != en->dtype) snprintf(label, sizeof label, "%s->%s", ak_dtype_name(en->dtype), ak_dtype_name(en->dtype2));
        else snprintf(label, sizeof label, "%s", ak_dtype_name(en->dtype));
        r = AK_OK;
        for (b = 0; b < nbuf && r == AK_OK; b++) r = ak_malloc(ctx, c.buf_bytes, NULL, &c.buf[b]);
        if (r == AK_OK) r = init_inputs(ctx, pools, en, &c);
        if (r == AK_OK && en->setup) r = en->setup(&c, en);
        ec.c = &c;
        ec.e = en;
        if (r == AK_OK) r = time_it(&h, call_entry, &ec, &ntr, &stop);
        memset(&cr, 0, sizeof cr);
        if (r == AK_OK && check && !en->bufs)
            fprintf(stderr, "bench_ops: %s %s: no check layout in its table row: NOT checked (counts as incorrect "
                            "in bench/report.py)\n", en->name, label);
        else if (r == AK_OK && check) {
            r = check_entry(ctx, cpu, pools, en, &c, win_elems, corrupt, &cr);
            checked = r == AK_OK;
        }
        if (r != AK_OK) {
            printf("%-12s %-10s %-16s FAILED: %s\n", en->name, label, shape, ak_last_error());
            failures++;
        } else {
            s = compute_stats(h.times, ntr, h.work);
            bytes = en->bytes ? en->bytes(&c, en) : en->io * (double)c.n * (double)es;
            gbps = bytes / (s.median * 1e-3) / 1e9;
            if (checked && !cr.correct) incorrect++;
            if (!checked) unchecked++;
            printf("%-12s %-10s %-16s %10.4f ms [%.4f, %.4f] %5d trials (%s) %9.1f GB/s %6.1f%% of copy  %s\n", en->name,
                   label, shape, s.median, s.ci_lo, s.ci_hi, s.n, stop, gbps,
                   copy_gbps > 0 ? 100.0 * gbps / copy_gbps : 0.0,
                   !checked ? "unchecked" : cr.correct ? "correct" : "INCORRECT");
            if (jf) {
                int t;
                fprintf(jf, "%s\n    {\"name\": ", nres ? "," : "");
                json_str(jf, en->name);
                fprintf(jf, ", \"dtype\": ");
                json_str(jf, label);
                fprintf(jf, ", \"shape\": %s, \"mean\": %.6f, \"std\": %.6f, \"min\": %.6f, \"max\": %.6f, "
                            "\"median\": %.6f, \"num_trials\": %d, \"ci95\": [%.6f, %.6f], \"stop\": \"%s\", \"hardware\": ",
                        shape, s.mean, s.std, s.min, s.max, s.median, s.n, s.ci_lo, s.ci_hi, stop);
                json_str(jf, dev->name);
                fprintf(jf, ", \"device\": ");
                json_str(jf, device_str);
                fprintf(jf, ", \"bytes\": %.0f, \"gbps\": %.2f, \"roofline_fraction\": %.4f", bytes, gbps,
                        copy_gbps > 0 ? gbps / copy_gbps : 0.0);
                if (checked) {
                    fprintf(jf, ", \"correct\": %s, \"max_abs_err\": ", cr.correct ? "true" : "false");
                    json_num(jf, cr.max_abs);
                    fprintf(jf, ", \"err_tol_ratio\": ");
                    json_num(jf, cr.max_ratio);
                    fprintf(jf, ", \"checked\": %zu, \"check_detail\": ", cr.compared);
                    json_str(jf, cr.detail);
                }
                fprintf(jf, ", \"times\": [");
                for (t = 0; t < s.n; t++) fprintf(jf, "%s%.6g", t ? "," : "", h.times[t]);
                fprintf(jf, "]}");
            }
            nres++;
        }
        for (b = 0; b < nbuf; b++) ak_free(ctx, c.buf[b]);
        fflush(stdout);
    }
    if (jf) {
        fprintf(jf, "\n  ]\n}\n");
        fclose(jf);
        printf("wrote %s (%d results)\n", out_path, nres);
    }
    if (check)
        printf("checked against the CPU reference: %d of %d entries correct, %d incorrect, %d unchecked\n",
               nres - incorrect - unchecked, nres, incorrect, unchecked);
    for (i = 0; i < 5; i++) { free(pools[i].host); if (pools[i].dev) ak_free(ctx, pools[i].dev); }
    ak_free(ctx, h.scratch);
    bench_spin_free(&h.spin);
    ak_event_destroy(h.start);
    ak_event_destroy(h.end);
    free(h.times);
    free(h.work);
    if (cpu) ak_context_destroy(cpu);
    ak_context_destroy(ctx);
    return failures ? 1 : incorrect ? 3 : 0;
}
