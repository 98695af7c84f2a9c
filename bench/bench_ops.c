/* bench_ops - times the kernel library the KernelBench way and writes JSON.
 *
 *   build/bench_ops [--quick] [--trials N] [--warmup N] [--filter SUBSTR] [OUT.json]
 *
 * For every entry: warm-up runs, then N timed trials (>= 100 by default),
 * each between a pair of ak_event records on the default stream, with the L2
 * flushed before each trial (an ak_memset over a scratch buffer of twice the
 * device's L2, outside the timed region). Reports median, mean, std
 * (population), min and max in ms, GB/s = bytes moved / median time, and the
 * fraction of the device's copy bandwidth measured in the same run (a large
 * device-to-device ak_memcpy_async, counted as read + write).
 *
 * Bytes moved: every input read once plus every output written once (an
 * in/out buffer such as y of axpy counts twice). Nothing else (no L2 reuse,
 * no index arrays unless an entry says so).
 *
 * JSON (KernelBench baseline format, times in ms): {"tool", "hardware",
 * "device", "backend", "copy_gbps", "results": [ {"name", "dtype", "shape",
 * "mean", "std", "min", "max", "median", "num_trials", "hardware", "device",
 * "gbps", "roofline_fraction"}, ... ]}.
 *
 * --quick uses small shapes and 10 trials (CI runs it on the cpu backend to
 * check the harness; its numbers mean nothing).
 *
 * ADDING AN ENTRY:
 *   1. write `static ak_result run_NAME(const bench_case* c, const bench_entry* e)`
 *      that queues your op once on c->buf[0..3] (device buffers of c->buf_bytes
 *      bytes each, initialised with small non-zero values; use e->op / e->dtype2
 *      / e->param as you like) and returns its result;
 *   2. add one row to entries[] below: name, dtype, second dtype, op, full
 *      shape (rows, cols), --quick shape, io (arrays of rows*cols elements moved:
 *      inputs read + outputs written), the run function, and optionally a
 *      bytes function (when io * rows * cols * size is not the truth, e.g. a
 *      reduction writing `rows` values), a setup function (run once, untimed,
 *      e.g. to write valid int64 targets), the number of buffers (0 = 4) and
 *      a float param.
 *   The BENCH3 macro adds the f32, f16 and bf16 rows of one op at once.
 */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

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
};

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
/* one op for f32, f16, bf16: name, op, io, run, nbuf, param */
#define BENCH3(name, op, io, run, nbuf, param) \
    { name, AK_F32, AK_F32, op, 1, EW_N, 1, EW_Q, io, run, NULL, NULL, nbuf, param }, \
    { name, AK_F16, AK_F16, op, 1, EW_N, 1, EW_Q, io, run, NULL, NULL, nbuf, param }, \
    { name, AK_BF16, AK_BF16, op, 1, EW_N, 1, EW_Q, io, run, NULL, NULL, nbuf, param }
#define BENCH_CAST(a, b) { "cast", a, b, 0, 1, EW_N, 1, EW_Q, 0, run_cast, bytes_cast, NULL, 2, 0.0f }
/* row ops (rows x cols) for f32, f16, bf16 */
#define RD_R 65536
#define RD_C 4096
#define RD_QR 64
#define RD_QC 1000
#define BENCH_ROW3(name, op, r, c, qr, qc, io, run, bytes, setup, nbuf, param) \
    { name, AK_F32, AK_F32, op, r, c, qr, qc, io, run, bytes, setup, nbuf, param }, \
    { name, AK_F16, AK_F16, op, r, c, qr, qc, io, run, bytes, setup, nbuf, param }, \
    { name, AK_BF16, AK_BF16, op, r, c, qr, qc, io, run, bytes, setup, nbuf, param }
/* one reduction over the whole tensor and along the last dim, three dtypes */
#define BENCH_RD3(name, op) \
    BENCH_ROW3(name, op, 1, EW_N, 1, EW_Q, 0, run_reduce, bytes_reduce, NULL, 2, 0.0f), \
    BENCH_ROW3(name, op, RD_R, RD_C, RD_QR, RD_QC, 0, run_reduce, bytes_reduce, NULL, 2, 0.0f)

static const bench_entry entries[] = {
    /* name          op                io  run           nbuf param */
    BENCH3("fill",      0,                1, run_fill,      2, 0.0f),
    BENCH3("copy",      0,                2, run_copy,      2, 0.0f),
    BENCH_CAST(AK_F32, AK_F16), BENCH_CAST(AK_F16, AK_F32),
    BENCH_CAST(AK_F32, AK_BF16), BENCH_CAST(AK_BF16, AK_F32),
    BENCH_CAST(AK_F16, AK_BF16), BENCH_CAST(AK_BF16, AK_F16),
    BENCH3("axpy",      0,                3, run_axpy,      2, 0.0f),
    BENCH3("scale",     0,                2, run_scale,     2, 0.0f),
    BENCH3("add",       AK_OP_ADD,        3, run_binary,    3, 0.0f),
    BENCH3("mul",       AK_OP_MUL,        3, run_binary,    3, 0.0f),
    BENCH3("relu",      AK_OP_RELU,       2, run_unary,     2, 0.0f),
    BENCH3("leaky_relu", AK_OP_LEAKY_RELU, 2, run_unary,    2, 0.01f),
    BENCH3("sigmoid",   AK_OP_SIGMOID,    2, run_unary,     2, 0.0f),
    BENCH3("tanh",      AK_OP_TANH,       2, run_unary,     2, 0.0f),
    BENCH3("silu",      AK_OP_SILU,       2, run_unary,     2, 0.0f),
    BENCH3("gelu",      AK_OP_GELU,       2, run_unary,     2, 0.0f),
    BENCH3("gelu_tanh", AK_OP_GELU_TANH,  2, run_unary,     2, 0.0f),
    { "transpose", AK_F32, AK_F32, 0, 16384, 16384, 1000, 1003, 2, run_transpose, NULL, NULL, 2, 0.0f },
    { "transpose", AK_F16, AK_F16, 0, 16384, 16384, 1000, 1003, 2, run_transpose, NULL, NULL, 2, 0.0f },
    { "transpose", AK_BF16, AK_BF16, 0, 16384, 16384, 1000, 1003, 2, run_transpose, NULL, NULL, 2, 0.0f },
    /* reductions, softmax, norms, cross-entropy rows go here */
    /* whole tensor (rows = 1, 256M elements) and along the last dim (65536 x 4096) */
    BENCH_RD3("sum", AK_REDUCE_SUM), BENCH_RD3("mean", AK_REDUCE_MEAN), BENCH_RD3("max", AK_REDUCE_MAX),
    BENCH_RD3("min", AK_REDUCE_MIN), BENCH_RD3("argmax", AK_REDUCE_ARGMAX),
    BENCH_ROW3("softmax", 0, RD_R, RD_C, RD_QR, RD_QC, 2, run_softmax, NULL, NULL, 2, 0.0f),
    BENCH_ROW3("log_softmax", 1, RD_R, RD_C, RD_QR, RD_QC, 2, run_softmax, NULL, NULL, 2, 0.0f),
    BENCH_ROW3("softmax", 0, 4096, 393216, 4, 40000, 2, run_softmax, NULL, NULL, 2, 0.0f),
    BENCH_ROW3("layernorm", 0, RD_R, RD_C, RD_QR, RD_QC, 0, run_layernorm, bytes_norm, NULL, 4, 1e-5f),
    BENCH_ROW3("rmsnorm", 0, RD_R, RD_C, RD_QR, RD_QC, 0, run_rmsnorm, bytes_norm, NULL, 3, 1e-5f),
    BENCH_ROW3("cross_entropy", AK_LOSS_NONE, RD_R, RD_C, RD_QR, RD_QC, 0, run_xent, bytes_xent, setup_xent, 3, 0.0f),
    BENCH_ROW3("cross_entropy_mean", AK_LOSS_MEAN, RD_R, RD_C, RD_QR, RD_QC, 0, run_xent, bytes_xent, setup_xent, 3,
               0.0f),
    /* random numbers, dropout (p = 0.1, no mask), cumsum, top-k (k in the name; vocab rows, MoE routing) */
    BENCH_ROW3("rand_uniform", 0, 4096, 4096, 64, 1000, 1, run_rand_uniform, NULL, NULL, 1, 0.0f),
    BENCH_ROW3("rand_normal", 0, 4096, 4096, 64, 1000, 1, run_rand_normal, NULL, NULL, 1, 0.0f),
    BENCH_ROW3("dropout", 0, 4096, 4096, 64, 1000, 2, run_dropout, NULL, NULL, 2, 0.1f),
    BENCH_ROW3("cumsum", 0, 4096, 4096, 64, 1000, 2, run_cumsum, NULL, setup_randn, 2, 0.0f),
    { "cumsum", AK_F32, AK_F32, 0, 64, 1048576, 4, 40000, 2, run_cumsum, NULL, setup_randn, 2, 0.0f },
    { "cumsum", AK_BF16, AK_BF16, 0, 64, 1048576, 4, 40000, 2, run_cumsum, NULL, setup_randn, 2, 0.0f },
    BENCH_ROW3("topk_k8", 8, 4096, 4096, 64, 1000, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f),
    BENCH_ROW3("topk_k50", 50, 256, 128256, 2, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f),
    { "topk_k50", AK_F32, AK_F32, 50, 1, 128256, 1, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f },
    { "topk_k50", AK_F32, AK_F32, 50, 16, 128256, 3, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f },
    BENCH_ROW3("topk_k1024", 1024, 256, 128256, 2, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f),
    { "topk_k1024", AK_F32, AK_F32, 1024, 1, 128256, 1, 8192, 0, run_topk, bytes_topk, setup_randn, 3, 0.0f },
};

/* ---- harness ------------------------------------------------------------------ */
typedef struct stats { double mean, std, min, max, median; int n; } stats;

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}
static stats compute_stats(double* t, int n) {
    stats s;
    int i;
    double sum = 0, sq = 0;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    for (i = 0; i < n; i++) sum += t[i];
    s.mean = sum / n;
    for (i = 0; i < n; i++) sq += (t[i] - s.mean) * (t[i] - s.mean);
    s.std = sqrt(sq / n);
    s.min = t[0];
    s.max = t[n - 1];
    s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    s.n = n;
    return s;
}

typedef struct harness {
    ak_context* ctx;
    ak_event *start, *end;
    void* scratch;         /* L2 flush buffer */
    size_t scratch_bytes;
    int trials, warmup;
} harness;

typedef ak_result (*timed_fn)(void* user);

/* Time fn: warm-up, then trials with the L2 flushed before each. */
static ak_result time_it(harness* h, timed_fn fn, void* user, double* times) {
    int i;
    ak_result r;
    for (i = 0; i < h->warmup; i++)
        if ((r = fn(user)) != AK_OK) return r;
    if ((r = ak_device_synchronize(h->ctx)) != AK_OK) return r;
    for (i = 0; i < h->trials; i++) {
        float ms = 0;
        if (h->scratch && (r = ak_memset(h->ctx, h->scratch, i & 0xFF, h->scratch_bytes, NULL)) != AK_OK) return r;
        if ((r = ak_event_record(h->start, NULL)) != AK_OK) return r;
        if ((r = fn(user)) != AK_OK) return r;
        if ((r = ak_event_record(h->end, NULL)) != AK_OK) return r;
        if ((r = ak_event_synchronize(h->end)) != AK_OK) return r;
        if ((r = ak_event_elapsed_ms(h->start, h->end, &ms)) != AK_OK) return r;
        times[i] = ms;
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

static void json_str(FILE* f, const char* s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s >= 32) fputc(*s, f);
    }
    fputc('"', f);
}

int main(int argc, char** argv) {
    harness h;
    ak_context* ctx = NULL;
    const ak_device_info* dev;
    const char *out_path = NULL, *filter = NULL;
    int quick = 0, i, nres = 0, failures = 0;
    size_t e;
    double copy_gbps = 0, *times;
    char device_str[64];
    FILE* jf = NULL;
    ak_result r;

    memset(&h, 0, sizeof h);
    h.trials = -1;
    h.warmup = -1;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc) h.trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) h.warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [--quick] [--trials N] [--warmup N] [--filter SUBSTR] [OUT.json]\n", argv[0]);
            return 2;
        } else out_path = argv[i];
    }
    if (h.trials < 1) h.trials = quick ? 10 : 100;
    if (h.warmup < 0) h.warmup = quick ? 1 : 5;

    if ((r = ak_context_create(NULL, &ctx)) != AK_OK) {
        fprintf(stderr, "bench_ops: no context: %s\n", ak_last_error());
        return 1;
    }
    dev = ak_context_device(ctx);
    snprintf(device_str, sizeof device_str, "%s:%d",
             dev->backend == AK_BACKEND_CUDA ? "cuda" : dev->backend == AK_BACKEND_HIP ? "hip" : "cpu", dev->device);
    h.ctx = ctx;
    times = (double*)malloc((size_t)h.trials * sizeof(double));
    if (!times || ak_event_create(ctx, &h.start) != AK_OK || ak_event_create(ctx, &h.end) != AK_OK) {
        fprintf(stderr, "bench_ops: setup failed: %s\n", ak_last_error());
        return 1;
    }
    h.scratch_bytes = dev->l2_bytes ? 2 * dev->l2_bytes : ((size_t)64 << 20);
    if (quick && h.scratch_bytes > ((size_t)8 << 20)) h.scratch_bytes = (size_t)8 << 20;
    if (ak_malloc(ctx, h.scratch_bytes, NULL, &h.scratch) != AK_OK) {
        fprintf(stderr, "bench_ops: L2 flush buffer: %s\n", ak_last_error());
        return 1;
    }
    printf("bench_ops on %s (%s, %s), %d trials, L2 flush %zu MiB\n", dev->name, device_str, dev->arch,
           h.trials, h.scratch_bytes >> 20);

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
        if ((r = time_it(&h, call_copy, &cc, times)) != AK_OK) {
            fprintf(stderr, "bench_ops: copy: %s\n", ak_last_error());
            return 1;
        }
        s = compute_stats(times, h.trials);
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
        fprintf(jf, ",\n  \"quick\": %s,\n  \"copy_gbps\": %.2f,\n  \"results\": [", quick ? "true" : "false", copy_gbps);
    }

    for (e = 0; e < sizeof entries / sizeof entries[0]; e++) {
        const bench_entry* en = &entries[e];
        bench_case c;
        entry_call ec;
        stats s;
        int b, nbuf = en->nbuf ? en->nbuf : 4;
        size_t es = ak_dtype_size(en->dtype), es2 = ak_dtype_size(en->dtype2);
        double bytes, gbps;
        char shape[64], label[64];
        if (filter && !strstr(en->name, filter)) continue;
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
        for (b = 0; b < nbuf && r == AK_OK; b++) {
            r = ak_malloc(ctx, c.buf_bytes, NULL, &c.buf[b]);
            /* small non-zero values in every float dtype: 0x3C bytes are 1.05 (f16), 0.0115 (f32, bf16) */
            if (r == AK_OK) r = ak_memset(ctx, c.buf[b], 0x3C, c.buf_bytes, NULL);
        }
        if (r == AK_OK && en->setup) r = en->setup(&c, en);
        ec.c = &c;
        ec.e = en;
        if (r == AK_OK) r = time_it(&h, call_entry, &ec, times);
        if (r != AK_OK) {
            printf("%-12s %-10s %-16s FAILED: %s\n", en->name, label, shape, ak_last_error());
            failures++;
        } else {
            s = compute_stats(times, h.trials);
            bytes = en->bytes ? en->bytes(&c, en) : en->io * (double)c.n * (double)es;
            gbps = bytes / (s.median * 1e-3) / 1e9;
            printf("%-12s %-10s %-16s %10.4f ms %9.1f GB/s %6.1f%% of copy\n", en->name, label, shape, s.median, gbps,
                   copy_gbps > 0 ? 100.0 * gbps / copy_gbps : 0.0);
            if (jf) {
                fprintf(jf, "%s\n    {\"name\": ", nres ? "," : "");
                json_str(jf, en->name);
                fprintf(jf, ", \"dtype\": ");
                json_str(jf, label);
                fprintf(jf, ", \"shape\": %s, \"mean\": %.6f, \"std\": %.6f, \"min\": %.6f, \"max\": %.6f, "
                            "\"median\": %.6f, \"num_trials\": %d, \"hardware\": ",
                        shape, s.mean, s.std, s.min, s.max, s.median, s.n);
                json_str(jf, dev->name);
                fprintf(jf, ", \"device\": ");
                json_str(jf, device_str);
                fprintf(jf, ", \"bytes\": %.0f, \"gbps\": %.2f, \"roofline_fraction\": %.4f}", bytes, gbps,
                        copy_gbps > 0 ? gbps / copy_gbps : 0.0);
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
    ak_free(ctx, h.scratch);
    ak_event_destroy(h.start);
    ak_event_destroy(h.end);
    free(times);
    ak_context_destroy(ctx);
    return failures ? 1 : 0;
}
