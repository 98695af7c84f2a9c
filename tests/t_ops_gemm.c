/* Suite ops_gemm (cpu backend): ak_gemm's C reference against a naive
 * triple loop written here (double accumulation, its own epilogue) over an
 * odd-shape matrix (1, 7, 127, 129, 1000, K = 1, M = 1), every transpose
 * combination, every dtype and output dtype, bias / activation / residual /
 * beta C epilogues, padded leading dimensions and batched strides; beta = 0
 * with NaN in C; TF32 rounding only when config.allow_tf32 opts in (a
 * reduced config.precision alone keeps f32 exact); argument errors; the plan
 * each config field and architecture gives (matrix_cores, allow_tf32,
 * precision, allowed_precisions, strict); and the tile
 * table against the numbers in kernels/gemm.hip. 8-bit float inputs: every
 * OCP pair and FNUZ, each scale granularity, every output dtype, against a
 * naive loop that decodes the codes from their bits; the fp8 errors and the
 * Hopper fp8 plans. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static unsigned long long g_st;

static double naive_act(int op, double x, double p) {
    switch (op) {
    case AK_OP_RELU: return x < 0 ? 0 : x;
    case AK_OP_LEAKY_RELU: return x < 0 ? p * x : x;
    case AK_OP_SIGMOID: return 1 / (1 + exp(-x));
    case AK_OP_TANH: return tanh(x);
    case AK_OP_SILU: return x / (1 + exp(-x));
    case AK_OP_GELU: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    case AK_OP_GELU_TANH: return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case AK_OP_ELU: return x > 0 ? x : p * (exp(x) - 1);
    case AK_OP_SELU: return 1.0507009873554804934 * (x > 0 ? x : 1.6732632423543772848 * (exp(x) - 1));
    case AK_OP_HARDSIGMOID: return fmin(fmax(x / 6 + 0.5, 0.0), 1.0);
    case AK_OP_HARDTANH: return p == 0 ? fmin(fmax(x, -1.0), 1.0) : fmin(fmax(x, p), 0.0);
    case AK_OP_SOFTPLUS: { double b = p == 0 ? 1 : p; return b * x > 20 ? x : log(1 + exp(b * x)) / b; }
    case AK_OP_SOFTSIGN: return x / (1 + fabs(x));
    case AK_OP_HARDSWISH: return x * fmin(fmax(x + 3, 0.0), 6.0) / 6;
    case AK_OP_MISH: return x * tanh(log(1 + exp(x)));
    case AK_OP_ABS: return fabs(x);
    case AK_OP_SQUARE: return x * x;
    default: return x;
    }
}

static void* rnd_buf(ak_dtype t, size_t n) {
    void* p = calloc(n ? n : 1, ak_dtype_size(t));
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(&g_st, -1, 1);
        if (fabs(v) < 0.01) v = 0.37;
        ak_elem_set(p, t, i, v);
    }
    return p;
}

/* naive D for the descriptor (packed or padded lds as given, 0 = packed) */
static double naive_at(const ak_gemm_desc* g, size_t b, size_t i, size_t j) {
    size_t lda = g->lda ? g->lda : (g->trans_a ? g->m : g->k), ldb = g->ldb ? g->ldb : (g->trans_b ? g->k : g->n);
    size_t ldc = g->ldc ? g->ldc : g->n, ldr = g->ldr ? g->ldr : g->n, kk;
    double acc = 0, v;
    for (kk = 0; kk < g->k; kk++) {
        double a = ak_elem_get(g->a, g->dtype, b * g->stride_a + (g->trans_a ? kk * lda + i : i * lda + kk));
        double bb = ak_elem_get(g->b, g->dtype, b * g->stride_b + (g->trans_b ? j * ldb + kk : kk * ldb + j));
        acc += a * bb;
    }
    v = g->alpha * acc;
    if (g->beta != 0) v += g->beta * ak_elem_get(g->c, g->out_dtype, b * g->stride_c + i * ldc + j);
    if (g->bias) v += ak_elem_get(g->bias, g->out_dtype, j);
    if (g->activation != AK_OP_NONE) v = naive_act(g->activation, v, g->act_param);
    if (g->residual) v += ak_elem_get(g->residual, g->out_dtype, b * g->stride_r + i * ldr + j);
    return v;
}

/* one case: build buffers, run ak_gemm on ctx, compare with the naive loop */
static void run_case(ak_context* ctx, ak_dtype dt, ak_dtype ot, size_t m, size_t n, size_t k, int ta, int tb, int epi,
                     size_t batch, int pad) {
    ak_gemm_desc g = ak_gemm_desc_default();
    size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    size_t lda = ac + (size_t)pad, ldb = bc + (size_t)pad, ldd = n + (size_t)pad;
    size_t sa = ar * lda + (size_t)pad * 3, sb = br * ldb, sd = m * ldd + 5;
    size_t b, i, j, bad = 0;
    double worst = 0;
    void *A = rnd_buf(dt, sa * batch), *B = rnd_buf(dt, sb * batch), *C = rnd_buf(ot, sd * batch);
    void *R = rnd_buf(ot, sd * batch), *bias = rnd_buf(ot, n), *D = rnd_buf(ot, sd * batch);
    g.dtype = dt; g.out_dtype = ot; g.m = m; g.n = n; g.k = k; g.trans_a = ta; g.trans_b = tb;
    g.a = A; g.b = B; g.d = D; g.lda = pad ? lda : 0; g.ldb = pad ? ldb : 0; g.ldd = pad ? ldd : 0;
    g.batch = batch; g.stride_a = sa; g.stride_b = sb; g.stride_d = sd;
    g.alpha = epi ? 0.75f : 1.0f;
    if (epi & 1) { g.beta = -0.5f; g.c = C; g.ldc = g.ldd; g.stride_c = sd; }
    if (epi & 2) g.bias = bias;
    if (epi & 4) { g.activation = 1 + (int)(akt_uniform(&g_st, 0, AK_UNARY_OP_COUNT - 1)) % (AK_UNARY_OP_COUNT - 1); g.act_param = 0.1f; }
    if (epi & 8) { g.residual = R; g.ldr = g.ldd; g.stride_r = sd; }
    AKT_OK(ak_gemm(ctx, &g, NULL));
    for (b = 0; b < batch; b++)
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                double ref = naive_at(&g, b, i, j), got = ak_elem_get(D, ot, b * sd + i * (pad ? ldd : n) + j);
                double tol = (ot == AK_F32 ? 1e-6 : ot == AK_F16 ? 1e-3 : 8e-3) * (fabs(ref) + 1e-3);
                if (!(fabs(got - ref) <= tol)) {
                    if (bad++ < 3)
                        akt_fail(__FILE__, __LINE__, "gemm %s->%s %zux%zux%zu ta%d tb%d epi%d batch %zu pad %d: D[%zu][%zu][%zu] = %.8g, expected %.8g",
                                 ak_dtype_name(dt), ak_dtype_name(ot), m, n, k, ta, tb, epi, batch, pad, b, i, j, got, ref);
                }
                if (fabs(got - ref) > worst) worst = fabs(got - ref);
            }
    free(A); free(B); free(C); free(R); free(bias); free(D);
}

static void odd_shapes_match_naive(void) {
    ak_context* ctx = akt_cpu_context("ops_gemm");
    static const size_t shapes[][3] = { { 1, 1, 1 }, { 7, 7, 7 }, { 1, 129, 127 }, { 127, 1, 129 }, { 129, 127, 1 },
                                        { 1, 1000, 7 }, { 33, 65, 1000 }, { 1000, 3, 5 } };
    static const ak_dtype dts[3] = { AK_F32, AK_F16, AK_BF16 };
    size_t s;
    int t, d;
    if (!ctx) return;
    g_st = akt_seed() ^ 0x6e6d6d67ull;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (t = 0; t < 4; t++)
            for (d = 0; d < 3; d++)
                run_case(ctx, dts[d], (s + (size_t)t) % 2 ? AK_F32 : dts[d], shapes[s][0], shapes[s][1], shapes[s][2], t & 1, t >> 1,
                         (int)((s * 4 + (size_t)t + (size_t)d) % 16), 1, (int)(s % 3));
    /* batched strided, every epilogue */
    for (t = 0; t < 16; t++) run_case(ctx, dts[t % 3], t & 1 ? AK_F32 : dts[t % 3], 9, 17, 13, t & 1, (t >> 1) & 1, t, 3, t % 2);
    ak_context_destroy(ctx);
}

static void beta_zero_never_reads_c(void) {
    ak_context* ctx = akt_cpu_context("ops_gemm");
    ak_gemm_desc g = ak_gemm_desc_default();
    float A[6] = { 1, 2, 3, 4, 5, 6 }, B[6] = { 1, 0, 0, 1, 1, 1 }, D[4], C[4];
    int i;
    if (!ctx) return;
    for (i = 0; i < 4; i++) { C[i] = NAN; D[i] = NAN; }
    g.m = 2; g.n = 2; g.k = 3; g.a = A; g.b = B; g.c = C; g.d = D; g.beta = 0.0f;
    AKT_OK(ak_gemm(ctx, &g, NULL));
    AKT_NEAR(D[0], 1 + 3, 0); AKT_NEAR(D[1], 2 + 3, 0); AKT_NEAR(D[2], 4 + 6, 0); AKT_NEAR(D[3], 5 + 6, 0);
    g.c = NULL; /* C may be NULL then */
    AKT_OK(ak_gemm(ctx, &g, NULL));
    /* in place: D == C with beta = 1 accumulates */
    g.c = D; g.beta = 1.0f;
    AKT_OK(ak_gemm(ctx, &g, NULL));
    AKT_NEAR(D[0], 8, 0); AKT_NEAR(D[3], 22, 0);
    ak_context_destroy(ctx);
}

/* every field's zero is its default: a zero-filled descriptor with the required
 * fields set is a plain D = A B (no activation, alpha 1, one problem, packed),
 * and the same as ak_gemm_desc_default() with those fields */
static void zero_filled_desc_is_plain_gemm(void) {
    ak_context* ctx = akt_cpu_context("ops_gemm");
    ak_gemm_desc z, d = ak_gemm_desc_default();
    float A[6] = { -1, 2, -3, 4, -5, 6 }, B[6] = { 1, -2, 3, -4, 5, -6 }, D[4], E[4];
    ak_gemm_plan pz, pd;
    if (!ctx) return;
    memset(&z, 0, sizeof z);
    z.m = 2; z.n = 2; z.k = 3; z.a = A; z.b = B; z.d = D;
    d.m = 2; d.n = 2; d.k = 3; d.a = A; d.b = B; d.d = E;
    AKT_OK(ak_gemm(ctx, &z, NULL));
    AKT_OK(ak_gemm(ctx, &d, NULL));
    /* A 2x3 times B 3x2, negative entries kept: a ReLU would zero them */
    AKT_NEAR(D[0], -1 * 1 + 2 * 3 + -3 * 5, 0); AKT_NEAR(D[1], -1 * -2 + 2 * -4 + -3 * -6, 0);
    AKT_NEAR(D[2], 4 * 1 + -5 * 3 + 6 * 5, 0);  AKT_NEAR(D[3], 4 * -2 + -5 * -4 + 6 * -6, 0);
    AKT_CHECK(memcmp(D, E, sizeof D) == 0);
    AKT_OK(ak_gemm_plan_get(ctx, &z, &pz));
    AKT_OK(ak_gemm_plan_get(ctx, &d, &pd));
    AKT_EQ_STR(pz.kernel, pd.kernel);
    ak_context_destroy(ctx);
}

static void tf32_when_the_config_allows_it(void) {
    ak_config cfg = ak_config_default();
    ak_context *exact = akt_cpu_context("ops_gemm"), *fast = NULL;
    ak_gemm_desc g = ak_gemm_desc_default();
    /* 2 x 2 (a matrix-vector product would run the exact gemv kernel whatever the config) */
    float A[4] = { 1.0f + 1.0f / 4096, 1.0f, 1.0f + 1.0f / 4096, 1.0f }, B[4] = { 1.0f, 1.0f, 1.0f + 1.0f / 4096, 1.0f + 1.0f / 4096 }, D[4];
    ak_gemm_plan p;
    cfg.backend = AK_BACKEND_CPU; cfg.log_level = AK_LOG_NONE;
    cfg.allow_tf32 = 1; cfg.matrix_cores = AK_ON; cfg.arch = "sm_90";
    AKT_OK(ak_context_create(&cfg, &fast));
    if (!exact || !fast) return;
    g.m = 2; g.n = 2; g.k = 2; g.a = A; g.b = B; g.d = D;
    AKT_OK(ak_gemm(exact, &g, NULL));
    AKT_NEAR(D[0], 2.0 + 2.0 / 4096, 1e-7);   /* 1 + 2^-12 survives fp32 */
    AKT_OK(ak_gemm_plan_get(fast, &g, &p));
    AKT_EQ_INT(p.fast32, 1);
    AKT_EQ_STR(p.kernel, "ak_gemm_mma_s_x32");
    AKT_OK(ak_gemm(fast, &g, NULL));
    AKT_NEAR(D[0], 2.0, 1e-7);                /* TF32 keeps 10 mantissa bits: 1 + 2^-12 rounds to 1 */
    ak_context_destroy(exact);
    ak_context_destroy(fast);
}

static void bad_arguments(void) {
    ak_context* ctx = akt_cpu_context("ops_gemm");
    ak_gemm_desc g = ak_gemm_desc_default(), x;
    float A[64], B[64], D[64];
    int i;
    if (!ctx) return;
    for (i = 0; i < 64; i++) { A[i] = 1; B[i] = 1; D[i] = 0; }
    g.m = 4; g.n = 4; g.k = 4; g.a = A; g.b = B; g.d = D;
    AKT_OK(ak_gemm(ctx, &g, NULL));
    AKT_ERR_ITEM(ak_gemm(NULL, &g, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_gemm(ctx, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    x = g; x.m = 0; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    x = g; x.k = 0; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    x = g; x.dtype = AK_I32; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.dtype = AK_F16; x.out_dtype = AK_BF16; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.lda = 3; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_CONTAINS(ak_last_error(), "lda");
    x = g; x.a = (const char*)A + 2; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    x = g; x.a = NULL; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    x = g; x.beta = 1; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT); /* C needed */
    x = g; x.d = A + 8; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP); /* D overlaps A */
    AKT_ITEM(AK_ERRITEM_OVERLAP);
    x = g; x.beta = 1; x.c = D + 1; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP); /* partial overlap with C */
    x = g; x.trans_a = 2; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    x = g; x.activation = 99; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    x = g; x.activation = -1; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "AK_OP_NONE");
    x = g; x.batch = 2; x.stride_a = 16; x.stride_b = 16; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); /* stride_d 0 */
    x = g; x.m = (size_t)1 << 33; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    /* batched outputs that overlap between problems: on a GPU the problems would race on the shared elements */
    x = g; x.batch = 2; x.stride_a = 16; x.stride_b = 16; x.stride_d = 1; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_CONTAINS(ak_last_error(), "problems 0 and 1 of the batch write the same elements of d");
    x.stride_d = 8; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    x.ldd = 8; x.stride_d = 5; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);   /* wraps into the next row */
    x.ldd = 8; x.stride_d = 3; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    for (i = 0; i < 64; i++) AKT_NEAR(D[i], i < 16 ? 4 : 0, 0); /* failed calls wrote nothing */
    x.ldd = 8; x.stride_d = 4; AKT_OK(ak_gemm(ctx, &x, NULL));   /* side by side: columns 0..3 and 4..7 of rows of 8 */
    x.ldd = 0; x.stride_d = 16; AKT_OK(ak_gemm(ctx, &x, NULL));  /* one after the other */
    for (i = 0; i < 32; i++) AKT_NEAR(D[i], 4, 0);
    for (i = 0; i < 64; i++) D[i] = i < 16 ? 4.0f : 0.0f;
    {   /* every small layout: ak_gemm accepts exactly the batches whose problems write disjoint elements */
        static float bd[512], ba[64], bb[64];
        unsigned long long rng = akt_seed() ^ 0xd0dull;
        int t;
        for (i = 0; i < 64; i++) { ba[i] = 1; bb[i] = 1; }
        for (t = 0; t < 400; t++) {
            size_t m = 1 + (size_t)akt_uniform(&rng, 0, 5), n = 1 + (size_t)akt_uniform(&rng, 0, 5);
            size_t ld = n + (size_t)akt_uniform(&rng, 0, 7), st = 1 + (size_t)akt_uniform(&rng, 0, 40);
            size_t nb = 2 + (size_t)akt_uniform(&rng, 0, 4), b1, b2, i1, i2, j1, j2;
            int overlap = 0;
            ak_result r;
            for (b1 = 0; b1 < nb && !overlap; b1++)
                for (b2 = b1 + 1; b2 < nb && !overlap; b2++)
                    for (i1 = 0; i1 < m && !overlap; i1++)
                        for (j1 = 0; j1 < n && !overlap; j1++)
                            for (i2 = 0; i2 < m && !overlap; i2++)
                                for (j2 = 0; j2 < n && !overlap; j2++)
                                    overlap = b1 * st + i1 * ld + j1 == b2 * st + i2 * ld + j2;
            x = g; x.m = m; x.n = n; x.k = 1; x.a = ba; x.b = bb; x.d = bd; x.ldd = ld;
            x.batch = nb; x.stride_a = m; x.stride_b = n; x.stride_d = st;
            r = ak_gemm(ctx, &x, NULL);
            AKT_CHECKF(r == (overlap ? AK_ERROR_INVALID_ARGUMENT : AK_OK), "m %zu n %zu ldd %zu stride_d %zu batch %zu: %s, %s",
                       m, n, ld, st, nb, overlap ? "overlap" : "disjoint", ak_last_error());
        }
    }
    ak_context_destroy(ctx);
}

/* a cpu context planning for a named architecture with config tweaks */
static ak_context* plan_ctx(const char* arch, int mc, int prec, int mixed, int tf32, unsigned allowed, int strict) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU; cfg.log_level = AK_LOG_NONE; cfg.arch = arch;
    cfg.matrix_cores = (ak_tristate)mc; cfg.precision = prec; cfg.mixed_precision = (ak_tristate)mixed;
    cfg.allowed_precisions = allowed; cfg.strict = strict; cfg.allow_tf32 = tf32;
    if (ak_context_create(&cfg, &ctx) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "context for %s: %s", arch, ak_last_error());
        return NULL;
    }
    return ctx;
}

static void expect_plan_tb(const char* arch, int mc, int prec, int mixed, int tf32, ak_dtype dt, size_t m, int tb, const char* kernel,
                           const char* path) {
    ak_context* ctx = plan_ctx(arch, mc, prec, mixed, tf32, 0, 0);
    ak_gemm_desc g = ak_gemm_desc_default();
    ak_gemm_plan p;
    static double buf[8];
    if (!ctx) return;
    /* planning never dereferences: far-apart fake addresses (no overlap) */
    (void)buf;
    g.dtype = dt; g.out_dtype = dt; g.m = m; g.n = 4096; g.k = 64; g.trans_b = tb;
    g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
    if (ak_gemm_plan_get(ctx, &g, &p) == AK_OK) {
        AKT_CHECKF(!strcmp(p.kernel, kernel) && !strcmp(p.path, path), "%s mc %d prec %d mixed %d tf32 %d %s m %zu: %s (%s), expected %s (%s)",
                   arch, mc, prec, mixed, tf32, ak_dtype_name(dt), m, p.kernel, p.path, kernel, path);
        AKT_CHECK(p.reason && p.reason[0]);
    } else akt_fail(__FILE__, __LINE__, "plan %s: %s", arch, ak_last_error());
    ak_context_destroy(ctx);
}

static void expect_plan(const char* arch, int mc, int prec, int mixed, int tf32, ak_dtype dt, size_t m, const char* kernel, const char* path) {
    expect_plan_tb(arch, mc, prec, mixed, tf32, dt, m, 0, kernel, path);
}

/* A planning descriptor of dtype dt (as the output too), m x n x k, batch (packed strides) at far-apart fake
 * addresses: planning never dereferences. */
static ak_gemm_desc split_desc(ak_dtype dt, size_t m, size_t n, size_t k, size_t batch) {
    ak_gemm_desc g = ak_gemm_desc_default();
    g.dtype = dt; g.out_dtype = dt; g.m = m; g.n = n; g.k = k; g.batch = batch;
    g.stride_a = m * k; g.stride_b = k * n; g.stride_d = m * n;
    g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
    return g;
}

/* Split-K of the SIMT tile: few output tiles and a long k -> k slices (a batch of 1 only); many tiles, short k or
 * a batch -> none. The same for the gemv kernel's few outputs, and the gemvn kernel's column blocks. */
static void simt_split_k_plans(void) {
    static const struct { size_t m, n, k, batch; int split; } cs[] = {
        { 256, 256, 524288, 1, 1 }, { 130, 70, 20000, 1, 1 }, { 4096, 4096, 4096, 1, 0 }, { 256, 256, 300, 1, 0 },
        { 256, 256, 524288, 2, 0 }, { 1024, 1024, 8192, 1, 1 }, { 2048, 2048, 8192, 1, 0 },
    };
    size_t i;
    ak_context* ctx = plan_ctx("sm_90", AK_AUTO, -1, -1, 0, 0, 0);
    if (!ctx) return;
    for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        ak_gemm_desc g = split_desc(AK_F32, cs[i].m, cs[i].n, cs[i].k, cs[i].batch);
        ak_gemm_plan p;
        if (ak_gemm_plan_get(ctx, &g, &p) != AK_OK) { akt_fail(__FILE__, __LINE__, "plan: %s", ak_last_error()); continue; }
        AKT_CHECKF(!strcmp(p.path, "simt") && (cs[i].split ? p.k_splits >= 2 && p.k_splits <= 64 : p.k_splits == 1),
                   "%zux%zux%zu batch %zu: path %s, k_splits %d (split expected: %d)", g.m, g.n, g.k, g.batch, p.path, p.k_splits,
                   cs[i].split);
    }
    /* the FFMA kernel's tile: 256 x 128 once its tiles fill the SMs and k >= 1024 (4096 with a staged epilogue),
     * else 128 x 128 (and its split-K) */
    {
        static const struct { size_t m, n, k, batch; int wide; } ts[] = {
            { 4096, 4096, 4096, 1, 1 }, { 512, 1024, 2048, 128, 1 }, { 32768, 32768, 64, 1, 0 }, { 2048, 2048, 8192, 1, 0 },
            { 256, 256, 524288, 1, 0 }, { 8205, 2949, 5921, 1, 1 }, { 2304, 2048, 1024, 1, 1 }, { 3001, 1999, 777, 1, 0 },
            { 2304, 2304, 1000, 1, 0 }, { 4096, 4096, 2048, 1, 2 }, { 4096, 4096, 4096, 1, 3 },
        };
        for (i = 0; i < sizeof ts / sizeof ts[0]; i++) {
            /* wide 2 / 3: with bias + GELU (staged epilogue), 128 x 128 below k 4096 and 256 x 128 from there */
            ak_gemm_desc g = split_desc(AK_F32, ts[i].m, ts[i].n, ts[i].k, ts[i].batch);
            const int wide = ts[i].wide == 1 || ts[i].wide == 3;
            ak_gemm_plan p;
            if (ts[i].wide >= 2) { g.bias = g.a; g.activation = AK_OP_GELU; }
            if (ak_gemm_plan_get(ctx, &g, &p) != AK_OK) { akt_fail(__FILE__, __LINE__, "plan: %s", ak_last_error()); continue; }
            AKT_CHECKF(!strncmp(p.kernel, wide ? "ak_gemm_ffmaw_" : "ak_gemm_ffma_", wide ? 14 : 13) && p.bm == (wide ? 256 : 128) && p.bn == 128,
                       "%zux%zux%zu batch %zu: %s %dx%d (wide expected: %d)", g.m, g.n, g.k, g.batch, p.kernel, p.bm, p.bn, ts[i].wide);
        }
    }
    /* the gemv kernel: few outputs (a wave each) and a long k -> slices at least 2048 deep, up to 32 waves an SM */
    {
        static const struct { size_t m, n, k; int tb, split; } gv[] = {
            { 256, 1, 131072, 0, 16 }, { 1, 256, 131072, 1, 16 }, { 4096, 1, 131072, 0, 1 }, { 256, 1, 3000, 0, 1 }, { 1000, 1, 4099, 0, 2 },
        };
        for (i = 0; i < sizeof gv / sizeof gv[0]; i++) {
            ak_gemm_desc g = split_desc(AK_F32, gv[i].m, gv[i].n, gv[i].k, 1);
            ak_gemm_plan p;
            g.trans_b = gv[i].tb;
            if (ak_gemm_plan_get(ctx, &g, &p) != AK_OK) { akt_fail(__FILE__, __LINE__, "plan: %s", ak_last_error()); continue; }
            AKT_CHECKF(!strcmp(p.path, "gemv") && p.k_splits == gv[i].split && (p.k_splits == 1 || strstr(p.reason, "split-K")),
                       "gemv %zux%zux%zu: path %s, k_splits %d (expected %d)", g.m, g.n, g.k, p.path, p.k_splits, gv[i].split);
        }
    }
    /* the gemvn kernels (exact f32, m <= 16, B stored K x N): the form (128 or 32 columns a block; 32 columns of 512
     * threads for one row, or at most 4 whose rows of A allow 16-byte loads) and slice count of least modelled time on
     * 132 SMs, 2 blocks each (1 of 512 threads): the last wave filled (393 column blocks -> 2 slices, 112 -> 3; a
     * batch's blocks count together), slices at least 128 deep; few columns take 32-column blocks, unsplit where the
     * finishing pass would cost more than the slices save; one row of 4096 columns fills the SMs from 128 blocks of
     * 512 threads, unsplit; more column blocks than SMs take the 256-thread form at 2 an SM (cols 2: 448 blocks in
     * 1.7 waves, not 3.4), never on AMD; 3 rows of k = 4098 (A's rows not 16-byte) keep the 128-column form */
    {
        static const struct { size_t m, n, k, batch; int split, cols; } gn[] = {
            { 16, 4096, 4096, 1, 8, 128 }, { 16, 50257, 1024, 1, 2, 128 }, { 1, 14336, 4096, 1, 1, 2 },
            { 8, 11008, 4096, 1, 3, 128 }, { 4, 1024, 8192, 1, 5, 2 },     { 16, 40000, 300, 1, 1, 128 },
            { 3, 4099, 7, 1, 1, 32 },      { 16, 4096, 4096, 2, 4, 128 }, { 8, 1024, 1024, 4, 8, 128 },
            { 1, 2048, 2048, 16, 1, 128 }, { 8, 768, 512, 1, 1, 32 },     { 16, 2304, 512, 1, 1, 32 },
            { 16, 384, 5120, 1, 22, 32 },  { 16, 256, 256, 1, 1, 32 },    { 1, 4096, 4096, 1, 1, 4 },
            { 3, 4096, 4096, 1, 1, 4 },    { 3, 4096, 4098, 1, 8, 128 },  { 1, 50257, 1024, 1, 1, 2 },
            { 2, 8192, 2048, 1, 1, 2 },    { 1, 2304, 2048, 1, 1, 4 },
        };
        for (i = 0; i < sizeof gn / sizeof gn[0]; i++) {
            ak_gemm_desc g = split_desc(AK_F32, gn[i].m, gn[i].n, gn[i].k, gn[i].batch);
            ak_gemm_plan p;
            const char* want = gn[i].cols == 4 ? "ak_gemm_gemvn4_f32" : gn[i].cols == 2 ? "ak_gemm_gemvn4h_f32" : gn[i].cols == 32 ? "ak_gemm_gemvn32_f32" : "ak_gemm_gemvn_f32";
            if (ak_gemm_plan_get(ctx, &g, &p) != AK_OK) { akt_fail(__FILE__, __LINE__, "plan: %s", ak_last_error()); continue; }
            AKT_CHECKF(!strcmp(p.kernel, want) && p.bn == (gn[i].cols == 128 ? 128 : 32) && p.threads == (gn[i].cols == 4 ? 512 : gn[i].cols == 2 ? 256 : 128) &&
                           p.k_splits == gn[i].split && (p.k_splits == 1 || strstr(p.reason, "split-K")),
                       "gemvn %zux%zux%zu batch %zu: %s (%d columns, %d threads), k_splits %d (expected %s, %d)", g.m, g.n, g.k,
                       g.batch, p.kernel, p.bn, p.threads, p.k_splits, want, gn[i].split);
        }
    }
    ak_context_destroy(ctx);
    /* AMD (RDNA wave 32, CDNA wave 64): the 256-thread form is NVIDIA's alone (measured there only) */
    {
        static const char* const archs[] = { "gfx1100", "gfx942" };
        size_t a;
        for (a = 0; a < 2; a++) {
            ak_context* actx = plan_ctx(archs[a], AK_AUTO, -1, -1, 0, 0, 0);
            if (!actx) continue;
            for (i = 0; i < 3; i++) {
                ak_gemm_desc g = split_desc(AK_F32, i == 2 ? 2 : 1, i ? 8192 : 14336, i ? 2048 : 4096, 1);
                ak_gemm_plan p;
                if (ak_gemm_plan_get(actx, &g, &p) != AK_OK) { akt_fail(__FILE__, __LINE__, "plan: %s", ak_last_error()); continue; }
                AKT_CHECKF(!strncmp(p.kernel, "ak_gemm_gemvn", 13) && strcmp(p.kernel, "ak_gemm_gemvn4h_f32"), "%s %zux%zux%zu: %s",
                           archs[a], g.m, g.n, g.k, p.kernel);
            }
            ak_context_destroy(actx);
        }
    }
}

/* Split-K of the Hopper TMA kernel (f16 / bf16): 128 x 128 tiles filling at most half the SMs and k >= 2048 -> k
 * slices (a batch of 1 only) that fill the SMs once, on the cooperative 128 x 128 kernel; otherwise none. Where the
 * 128 x 64 tiles fill at least three quarters of the SMs in one wave (or k is too short to split), that tile over all
 * of k instead (bn 64; bn 0: not checked). */
static void sm90_split_k_plans(void) {
    static const struct { size_t m, n, k, batch; int split, bn; } cs[] = {
        { 256, 256, 524288, 1, 33, 128 }, { 130, 70, 20000, 1, 19, 128 }, { 4096, 4096, 4096, 1, 1, 256 }, { 256, 256, 1500, 1, 1, 64 },
        { 256, 256, 524288, 2, 1, 64 }, { 1024, 1024, 8192, 1, 1, 64 }, { 2048, 2048, 8192, 1, 1, 256 }, { 128, 64, 16384, 1, 16, 128 },
        { 512, 512, 16384, 1, 8, 128 }, { 1024, 1024, 4096, 1, 1, 64 }, { 768, 1000, 6000, 1, 2, 128 }, { 1024, 1024, 1024, 1, 1, 64 },
        { 1536, 1536, 1536, 1, 1, 0 },
    };
    size_t i;
    ak_context* ctx = plan_ctx("sm_90", AK_ON, -1, -1, 0, 0, 0);
    if (!ctx) return;
    for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        ak_gemm_desc g = split_desc(i % 2 ? AK_BF16 : AK_F16, cs[i].m, cs[i].n, cs[i].k, cs[i].batch);
        ak_gemm_plan p;
        g.trans_a = (int)(i % 3 == 1); g.trans_b = (int)(i % 4 < 2);
        if (ak_gemm_plan_get(ctx, &g, &p) != AK_OK) { akt_fail(__FILE__, __LINE__, "plan: %s", ak_last_error()); continue; }
        AKT_CHECKF(!strcmp(p.path, "wgmma") && !strncmp(p.kernel, "ak_gemm_sm90_", 13) && p.k_splits == cs[i].split &&
                       (p.k_splits == 1 || (strstr(p.reason, "split-K") && p.bn == 128)) && (!cs[i].bn || p.bn == cs[i].bn),
                   "%zux%zux%zu batch %zu: path %s %s (bn %d), k_splits %d (expected %d, bn %d)", g.m, g.n, g.k, g.batch, p.path, p.kernel,
                   p.bn, p.k_splits, cs[i].split, cs[i].bn);
        if (cs[i].bn == 64) AKT_CHECKF(strstr(p.kernel, "_n64_") != NULL, "%zux%zux%zu: %s", g.m, g.n, g.k, p.kernel);
    }
    ak_context_destroy(ctx);
}

/* Split-K of the AMD matrix-core tiles (MFMA / WMMA, the plan's own tile): fewer tiles than compute units and k of
 * at least 2 x 1024 -> slices that fill the units once; NVIDIA's portable mma.sync tile does not split. */
static void amd_split_k_plans(void) {
    static const struct { const char* arch; ak_dtype dt; size_t m, n, k; int split; const char* path; } cs[] = {
        { "gfx942", AK_F16, 256, 256, 524288, 19, "mfma" },   /* 16 tiles of 64 x 64 on 304 CUs */
        { "gfx942", AK_BF16, 256, 256, 1500, 1, "mfma" },     /* short k */
        { "gfx942", AK_F16, 8192, 8192, 65536, 1, "mfma" },   /* many tiles */
        { "gfx90a", AK_F32, 130, 70, 20000, 18, "mfma" },     /* exact f32 MFMA: 6 tiles on 110 CUs */
        { "gfx1100", AK_BF16, 256, 256, 65536, 6, "wmma" },
        { "sm_80", AK_F16, 256, 256, 524288, 1, "mma.sync" },
    };
    size_t i;
    for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        ak_context* ctx = plan_ctx(cs[i].arch, AK_ON, -1, -1, 0, 0, 0);
        ak_gemm_desc g = split_desc(cs[i].dt, cs[i].m, cs[i].n, cs[i].k, 1);
        ak_gemm_plan p;
        if (!ctx) continue;
        g.trans_b = (int)(i % 2);
        if (ak_gemm_plan_get(ctx, &g, &p) != AK_OK) akt_fail(__FILE__, __LINE__, "plan: %s", ak_last_error());
        else
            AKT_CHECKF(!strcmp(p.path, cs[i].path) && p.k_splits == cs[i].split && (p.k_splits == 1 || strstr(p.reason, "split-K")),
                       "%s %zux%zux%zu: path %s %s, k_splits %d (expected %s, %d)", cs[i].arch, g.m, g.n, g.k, p.path, p.kernel,
                       p.k_splits, cs[i].path, cs[i].split);
        ak_context_destroy(ctx);
    }
}

static void plans_follow_arch_and_config(void) {
    /* Hopper: the TMA kernel for 16-bit inputs, every layout; the 128-wide tile when it fills the SMs' waves better */
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_BF16, 8192, 1, "ak_gemm_sm90_p128_kk_bf16", "wgmma"); /* k 64: ping-pong */
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_F16, 1024, 1, "ak_gemm_sm90_n256_kk_f16", "wgmma");
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_F16, 8192, 0, "ak_gemm_sm90_p128_kn_f16", "wgmma");
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_F16, 256, 0, "ak_gemm_sm90_n64_kn_f16", "wgmma"); /* 128 tiles of 128x64: one wave */
    expect_plan_tb("sm_90", AK_OFF, -1, -1, 0, AK_F16, 8192, 1, "ak_gemm_simt_l_f16", "simt");
    expect_plan_tb("sm_80", AK_ON, -1, -1, 0, AK_F16, 8192, 1, "ak_gemm_mma_w_f16", "mma.sync");
    expect_plan_tb("sm_90", AK_ON, AK_BF16, AK_ON, 1, AK_F32, 8192, 1, "ak_gemm_sm90_p128_kk_x32", "wgmma"); /* TF32: the TMA kernel */
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_BF16, 16, 1, "ak_gemm_decode_kk_bf16", "decode");
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_F16, 1, 0, "ak_gemm_decode_kn_f16", "decode");
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_F32, 8, 1, "ak_gemm_skinny_f32", "skinny");      /* exact f32: FMAs */
    expect_plan_tb("gfx90a", AK_ON, -1, -1, 0, AK_BF16, 8, 1, "ak_gemm_skinny_bf16", "skinny");  /* AMD: the FMA kernel */
    expect_plan_tb("gfx942", AK_ON, AK_BF16, AK_ON, 0, AK_F32, 1, 1, "ak_gemm_gemv_f32", "gemv");   /* one row: a matrix-vector product */
    expect_plan_tb("gfx90a", AK_ON, -1, -1, 0, AK_BF16, 1, 1, "ak_gemm_gemv_bf16", "gemv");
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_BF16, 1, 1, "ak_gemm_decode_kk_bf16", "decode");  /* NVIDIA 16-bit: the decode kernel */
    /* exact f32 x @ B, B stored K x N, up to 16 rows (k = 64: the 32-column blocks, 4x as many) */
    expect_plan_tb("gfx1100", AK_ON, -1, -1, 0, AK_F32, 1, 0, "ak_gemm_gemvn32_f32", "gemv");
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_F32, 16, 0, "ak_gemm_gemvn32_f32", "gemv");
    expect_plan_tb("sm_90", AK_ON, -1, -1, 0, AK_F32, 17, 0, "ak_gemm_ffma_kn_f32", "simt");     /* exact f32 on NVIDIA: FFMAs */
    expect_plan_tb("sm_90", AK_ON, AK_F32, AK_OFF, 0, AK_F32, 8192, 1, "ak_gemm_ffma_kk_f32", "simt");
    expect_plan_tb("sm_80", AK_OFF, -1, -1, 0, AK_F32, 8192, 1, "ak_gemm_ffma_kk_f32", "simt");    /* matrix cores off: the same */
    /* matrix_cores: on -> the architecture's matrix instruction, off -> FMAs */
    expect_plan("gfx90a", AK_ON, -1, -1, 0, AK_F16, 8192, "ak_gemm_mma_l_f16", "mfma");
    expect_plan("gfx90a", AK_OFF, -1, -1, 0, AK_F16, 8192, "ak_gemm_simt_l_f16", "simt");
    expect_plan("gfx908", AK_ON, -1, -1, 0, AK_BF16, 8192, "ak_gemm_mma_l_bf16", "mfma");
    /* CDNA3 / CDNA4, 16-bit, >= one 256 x 128 tile a CU, 16-byte rows: the large-tile kernel of gemm_cdna.hip (one per
     * layout); fewer tiles (m 256: 32 of them), f32, or no 16-byte rows: the portable kernels */
    expect_plan("gfx950", AK_ON, -1, -1, 0, AK_BF16, 8192, "ak_gemm_cdna_kn_bf16", "mfma");
    expect_plan_tb("gfx942", AK_ON, -1, -1, 0, AK_F16, 8192, 1, "ak_gemm_cdna_kk_f16", "mfma");
    expect_plan("gfx942", AK_ON, -1, -1, 0, AK_F16, 256, "ak_gemm_mma_s_f16", "mfma");
    expect_plan("gfx90a", AK_ON, -1, -1, 0, AK_BF16, 8192, "ak_gemm_mma_l_bf16", "mfma");
    {
        ak_context* ctx = plan_ctx("gfx942", AK_ON, -1, -1, 0, 0, 0);
        ak_gemm_desc g = ak_gemm_desc_default();
        ak_gemm_plan p;
        if (ctx) {
            g.dtype = g.out_dtype = AK_BF16; g.m = 8192; g.n = 4096; g.k = 64; g.trans_a = 1;
            g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40);
            g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
            AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
            AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_cdna_mn_bf16") && p.bm == 256 && p.bn == 128 && p.bk == 32 && p.threads == 256,
                       "gfx942 A^T B: %s %dx%dx%d/%d", p.kernel, p.bm, p.bn, p.bk, p.threads);
            g.k = 60; g.lda = 8192; g.trans_a = 0; g.ldb = 4096; /* k not a multiple of 8 on a k-contiguous A */
            AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
            AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_mma_l_bf16"), "gfx942 k 60: %s", p.kernel);
            g.k = 64; g.lda = 0; g.a = (const void*)((uintptr_t)g.a + 2); /* A not 16-byte aligned */
            AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
            AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_mma_l_bf16"), "gfx942 unaligned A: %s", p.kernel);
            ak_context_destroy(ctx);
        }
    }
    expect_plan("gfx1100", AK_ON, -1, -1, 0, AK_F16, 8192, "ak_gemm_mma_l_f16", "wmma");
    expect_plan("gfx1201", AK_ON, -1, -1, 0, AK_BF16, 8192, "ak_gemm_mma_l_bf16", "wmma");
    /* RDNA3 / RDNA4: WMMA by default for 16-bit inputs (the rows recommend matrix cores); exact f32 on FMAs */
    expect_plan("gfx1100", AK_AUTO, -1, -1, 0, AK_F16, 8192, "ak_gemm_mma_l_f16", "wmma");
    expect_plan("gfx1201", AK_AUTO, -1, -1, 0, AK_BF16, 8192, "ak_gemm_mma_l_bf16", "wmma");
    expect_plan("gfx1151", AK_AUTO, -1, -1, 0, AK_BF16, 8192, "ak_gemm_mma_l_bf16", "wmma");
    expect_plan("gfx1201", AK_AUTO, -1, -1, 0, AK_F32, 8192, "ak_gemm_simt_l_f32", "simt");
    expect_plan("gfx906", AK_AUTO, -1, -1, 0, AK_F16, 8192, "ak_gemm_simt_l_f16", "simt");
    expect_plan("gfx1030", AK_AUTO, -1, -1, 0, AK_BF16, 8192, "ak_gemm_simt_l_bf16", "simt");
    expect_plan("sm_80", AK_ON, -1, -1, 0, AK_F16, 8192, "ak_gemm_mma_w_f16", "mma.sync");
    /* shape class: few tiles -> the small tile */
    expect_plan("sm_80", AK_ON, -1, -1, 0, AK_F16, 17, "ak_gemm_mma_s_f16", "mma.sync");
    /* f32 exact unless allow_tf32 opts in; a reduced precision with mixed precision on does not */
    expect_plan("sm_90", AK_ON, AK_F32, AK_OFF, 0, AK_F32, 8192, "ak_gemm_ffma_kn_f32", "simt");
    expect_plan("sm_90", AK_ON, AK_BF16, AK_OFF, 0, AK_F32, 8192, "ak_gemm_ffma_kn_f32", "simt");
    /* TF32 with B stored K x N on Hopper: B copied into N x K rows for the wgmma kernel from 2^30 multiply-adds and
     * k 256 (expect_plan's k is 64: mma.sync; split_desc's 4096^3: the copy) */
    expect_plan("sm_90", AK_ON, AK_BF16, AK_ON, 1, AK_F32, 8192, "ak_gemm_mma_l_x32", "mma.sync");
    {
        ak_context* ctx = plan_ctx("sm_90", AK_ON, AK_BF16, AK_ON, 1, 0, 0);
        ak_gemm_desc g = split_desc(AK_F32, 4096, 4096, 4096, 1);
        ak_gemm_plan p;
        if (ctx && ak_gemm_plan_get(ctx, &g, &p) == AK_OK)
            AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_sm90_n256_kk_x32") && strstr(p.reason, "copying B"), "TF32 A @ B 4096^3: %s (%s)",
                       p.kernel, p.reason);
        else
            akt_fail(__FILE__, __LINE__, "plan: %s", ak_last_error());
        ak_context_destroy(ctx);
    }
    expect_plan("sm_80", AK_ON, AK_BF16, AK_ON, 1, AK_F32, 8192, "ak_gemm_mma_l_x32", "mma.sync");
    expect_plan("gfx942", AK_ON, AK_BF16, AK_ON, 1, AK_F32, 8192, "ak_gemm_mma_l_x32", "mfma");
    expect_plan("gfx942", AK_ON, AK_F32, AK_OFF, 0, AK_F32, 8192, "ak_gemm_mma_l_f32", "mfma");
    expect_plan("gfx90a", AK_ON, AK_BF16, AK_ON, 1, AK_F32, 8192, "ak_gemm_mma_l_f32", "mfma"); /* no xf32: exact MFMA */
    expect_plan("gfx1100", AK_ON, AK_BF16, AK_ON, 1, AK_F32, 8192, "ak_gemm_simt_l_f32", "simt");
    expect_plan("sm_90", AK_ON, AK_BF16, AK_ON, 0, AK_F32, 8192, "ak_gemm_ffma_kn_f32", "simt"); /* no opt-in: exact */
    expect_plan("gfx942", AK_ON, AK_BF16, AK_ON, 0, AK_F32, 8192, "ak_gemm_mma_l_f32", "mfma");
}

/* n <= 16 < m: the transposed product C^T = B^T A^T on the decode (16-bit,
 * NVIDIA) or skinny (A stored m x k) kernels with k >= 512, the gemvn
 * kernels (exact f32, A stored k x m) with k >= 64; a shorter k, an AMD
 * 16-bit A stored k x m and m <= 16 keep their plans. */
static void tall_products_turned(void) {
    static const struct { const char* arch; ak_dtype dt; size_t m, n, k; int ta, tb, turned; const char* kernel; } c[] = {
        { "sm_90", AK_BF16, 14336, 1, 4096, 1, 0, 1, "ak_gemm_decode_kn_bf16" },
        { "sm_90", AK_BF16, 11008, 8, 4096, 0, 0, 1, "ak_gemm_decode_mk_bf16" },
        { "sm_90", AK_F16, 4096, 16, 14336, 1, 1, 1, "ak_gemm_decode_kn_f16" },
        { "sm_90", AK_F32, 11008, 8, 4096, 0, 1, 1, "ak_gemm_skinny_f32" },
        { "sm_90", AK_F32, 4096, 1, 14336, 1, 0, 1, "ak_gemm_gemvn4_f32" },
        { "sm_90", AK_BF16, 100000, 3, 64, 0, 0, 0, "ak_gemm_sm90_" },      /* short k: the tile */
        { "sm_90", AK_BF16, 8192, 17, 4096, 0, 1, 0, "ak_gemm_sm90_" },     /* n = 17 */
        { "sm_90", AK_F32, 8192, 1, 8192, 0, 0, 0, "ak_gemm_gemv_f32" },    /* A x: the gemv kernel as it is */
        { "gfx942", AK_F16, 11008, 8, 4096, 0, 1, 1, "ak_gemm_skinny_f16" },
        { "gfx942", AK_F16, 11008, 8, 4096, 1, 1, 0, "ak_gemm_mma_" },      /* A stored k x m: no 16-bit stream of it */
        { "gfx1100", AK_F32, 3000, 5, 1000, 1, 0, 1, "ak_gemm_gemvn_f32" },
        { "sm_90", AK_F32, 384, 8, 256, 1, 0, 1, "ak_gemm_gemvn32_f32" },  /* short k: a stream still */
        { "sm_90", AK_F32, 65536, 16, 64, 1, 0, 1, "ak_gemm_gemvn_f32" },
        { "sm_90", AK_F32, 384, 8, 63, 1, 0, 0, "ak_gemm_ffma" },           /* k < 64: the tile */
        { "sm_90", AK_F32, 8192, 4, 256, 0, 0, 0, "ak_gemm_ffma" },         /* A stored m x k, k < 512: the tile */
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        ak_context* ctx = plan_ctx(c[i].arch, AK_AUTO, -1, -1, 0, 0, 0);
        ak_gemm_desc g = ak_gemm_desc_default();
        ak_gemm_plan p;
        if (!ctx) continue;
        g.dtype = c[i].dt; g.out_dtype = c[i].dt; g.m = c[i].m; g.n = c[i].n; g.k = c[i].k; g.trans_a = c[i].ta; g.trans_b = c[i].tb;
        g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
        AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
        AKT_CHECKF(p.transposed == c[i].turned && !strncmp(p.kernel, c[i].kernel, strlen(c[i].kernel)),
                   "%s %s %zux%zux%zu ta%d tb%d: plan %s transposed %d, expected %s transposed %d", c[i].arch, ak_dtype_name(c[i].dt),
                   c[i].m, c[i].n, c[i].k, c[i].ta, c[i].tb, p.kernel, p.transposed, c[i].kernel, c[i].turned);
        if (c[i].turned) AKT_CONTAINS(p.reason, "transposed product");
        ak_context_destroy(ctx);
    }
}

/* Hopper: the transposes pick the operand layouts of the TMA kernel; TMA's
 * alignment rules send the rest to mma.sync, with the reason in the plan. */
static void hopper_layouts_and_fallbacks(void) {
    ak_context* ctx = plan_ctx("sm_90", AK_AUTO, -1, -1, 0, 0, 0);
    static const char* const want[4] = { "ak_gemm_sm90_n256_kn_bf16", "ak_gemm_sm90_n256_mn_bf16", "ak_gemm_sm90_n256_kk_bf16",
                                         "ak_gemm_sm90_n256_mk_bf16" };
    ak_gemm_desc g = ak_gemm_desc_default();
    ak_gemm_plan p;
    int t;
    if (!ctx) return;
    g.dtype = AK_BF16; g.out_dtype = AK_BF16; g.m = 4096; g.n = 4096; g.k = 4096;
    g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
    for (t = 0; t < 4; t++) {
        g.trans_a = t & 1; g.trans_b = t >> 1;
        AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
        AKT_EQ_STR(p.kernel, want[t]);
        AKT_EQ_INT(p.threads, 384);
        AKT_CHECK(p.shared_bytes > 200000 && p.shared_bytes <= 227 * 1024);
        AKT_CONTAINS(p.reason, "TMA");
    }
    /* batched strided: still the TMA kernel (batches are the maps' third dimension) */
    g.trans_a = 0; g.trans_b = 0; g.batch = 32; g.m = 1024; g.n = 1024; g.k = 128;
    g.stride_a = 1024 * 128; g.stride_b = 128 * 1024; g.stride_d = 1024 * 1024;
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_CHECK(!strncmp(p.kernel, "ak_gemm_sm90_", 13));
    /* a leading dimension that is not a multiple of 8 elements: the operand is copied into 16-byte rows first
       (large problems), or mma.sync runs (small ones); the plan says which and why */
    g.batch = 1; g.lda = 130;
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_EQ_STR(p.path, "wgmma");
    AKT_CONTAINS(p.reason, "copying A");
    g.lda = 0; g.b = (const char*)g.b + 2; /* B 2 bytes off 16-byte alignment */
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_CONTAINS(p.reason, "copying B");
    g.m = 64; g.n = 64; g.k = 64; /* 2^18 multiply-adds: not worth a copy */
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_EQ_STR(p.path, "mma.sync");
    AKT_CONTAINS(p.reason, "TMA");
    /* rows TMA reads but not in whole 32-byte sectors (k = 1000: 2000-byte rows of A; n = 5000: 10000-byte rows of
       B): copied into 128-byte rows first when the product outweighs the copy, else read as they are */
    g.b = (const char*)g.b - 2; g.m = 3000; g.n = 5000; g.k = 1000;
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_EQ_STR(p.path, "wgmma");
    AKT_CONTAINS(p.reason, "copying A and B into rows of whole 128 bytes");
    AKT_CONTAINS(p.reason, "32-byte sectors");
    g.n = 5120; /* B's rows whole sectors: A alone */
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_CONTAINS(p.reason, "copying A into");
    g.k = 1024; /* both whole sectors */
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_CHECK(strstr(p.reason, "copying") == NULL);
    g.m = 1000; g.n = 1000; g.k = 1000; /* 2^30 multiply-adds: the copies would cost more than they save */
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_EQ_STR(p.path, "wgmma");
    AKT_CHECK(strstr(p.reason, "copying") == NULL);
    g.b = (const char*)g.b + 2; g.m = 1024; g.n = 1024; g.k = 128;
    /* f32: exact by default (SIMT), the TF32 wgmma kernel with allow_tf32 */
    g.b = (const char*)g.b - 2; g.dtype = AK_F32; g.out_dtype = AK_F32; g.trans_b = 1;
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_EQ_STR(p.path, "simt");
    ak_context_destroy(ctx);
}

static void strict_and_allowed_precisions(void) {
    ak_context* ctx = plan_ctx("sm_90", AK_ON, AK_F32, AK_OFF, 0, 0, 1);
    ak_gemm_desc g = ak_gemm_desc_default();
    ak_gemm_plan p;
    static float buf[64];
    if (!ctx) return;
    g.m = 4; g.n = 4; g.k = 4; g.a = buf; g.b = buf + 16; g.d = buf + 32;
    /* strict: exact f32 on the matrix cores is impossible on NVIDIA -> error, not a silent FMA fallback */
    AKT_ERR_ITEM(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_MATRIX_CORES, AK_ERRITEM_MATRIX_CORES);
    AKT_ERR_ITEM(ak_gemm(ctx, &g, NULL), AK_ERROR_MATRIX_CORES, AK_ERRITEM_MATRIX_CORES);
    AKT_CONTAINS(ak_last_error(), "TF32");
    ak_context_destroy(ctx);
    ctx = plan_ctx("sm_90", AK_OFF, AK_F32, AK_OFF, 0, 0, 1); /* matrix cores off: fine */
    if (ctx) { AKT_OK(ak_gemm(ctx, &g, NULL)); ak_context_destroy(ctx); }
    /* allowed_precisions without f16: an f16 GEMM is a config error */
    ctx = plan_ctx("sm_90", AK_ON, AK_F32, AK_AUTO, 0, AK_DTYPE_BIT(AK_F32), 0);
    if (!ctx) return;
    g.dtype = AK_F16; g.out_dtype = AK_F16;
    AKT_ERR_ITEM(ak_gemm(ctx, &g, NULL), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    AKT_CONTAINS(ak_last_error(), "allowed_precisions");
    g.dtype = AK_F32; g.out_dtype = AK_F32;
    AKT_OK(ak_gemm(ctx, &g, NULL));
    ak_context_destroy(ctx);
}

/* The tile table in amdkit.h (seen through ak_gemm_plan_get) must match the
 * template arguments of the kernels in kernels/gemm.hip (and the fixed
 * shapes of kernels/gemm_decode.hip's). */
static void tile_table_matches_kernel_source(void) {
    static const char* const archs[] = { "gfx90a", "gfx1100", "sm_90", "gfx906" };
    static const size_t ms[] = { 8192, 16, 1 };
    static const ak_dtype dts[] = { AK_F16, AK_F32 };
    const char *src = NULL, *src90 = NULL, *srcd = NULL, *srcf = NULL, *fam = NULL, *s;
    int i, a, mi, d, tb;
    static double buf[64];
    for (i = 0; i < ak_embedded_count(); i++) {
        AKT_OK(ak_embedded_at(i, &fam, &s, NULL));
        if (fam && !strcmp(fam, "gemm")) src = s;
        if (fam && !strcmp(fam, "gemm_sm90")) src90 = s;
        if (fam && !strcmp(fam, "gemm_decode")) srcd = s;
        if (fam && !strcmp(fam, "gemm_ffma")) srcf = s;
    }
    AKT_CHECK(src && src90 && srcd && srcf);
    if (!src || !src90 || !srcd || !srcf) return;
    /* exact f32 on NVIDIA: AK_GEMM_FFMA(name, TA, TB, MF), the tile in ak_gff (enum BM = 64 MF, BN, BK; 256
     * threads); k 64 plans the 128-row tile, k 4096 the 256-row one */
    for (d = 0; d < 8; d++) {
        ak_context* ctx = plan_ctx(d & 1 ? "sm_80" : "sm_90", AK_AUTO, -1, -1, 0, 0, 0);
        ak_gemm_desc g = ak_gemm_desc_default();
        ak_gemm_plan p;
        char pat[128];
        if (!ctx) continue;
        g.m = 4096; g.n = 4096; g.k = d < 4 ? 64 : 4096; g.trans_a = d & 1; g.trans_b = (d >> 1) & 1;
        g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
        AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
        AKT_CHECKF(!strncmp(p.kernel, d < 4 ? "ak_gemm_ffma_" : "ak_gemm_ffmaw_", d < 4 ? 13 : 14), "k %zu: %s", g.k, p.kernel);
        snprintf(pat, sizeof pat, "AK_GEMM_FFMA(%s, %s, %s, %d)", p.kernel, d & 1 ? "true" : "false", (d >> 1) & 1 ? "true" : "false", p.bm / 64);
        AKT_CHECKF(strstr(srcf, pat) != NULL, "%s not in kernels/gemm_ffma.hip", pat);
        snprintf(pat, sizeof pat, "enum { BM = 64 * MF, BN = %d, BK = %d,", p.bn, p.bk);
        AKT_CHECKF(strstr(srcf, pat) != NULL && p.bm % 64 == 0 && p.threads == 256 && strstr(srcf, "__launch_bounds__(256,"),
                   "%s: table %dx%dx%d/%d", p.kernel, p.bm, p.bn, p.bk, p.threads);
        ak_context_destroy(ctx);
    }
    for (a = 0; a < 4; a++)
        for (mi = 0; mi < 3; mi++)
            for (d = 0; d < 4; d++) {
                ak_context* ctx = plan_ctx(archs[a], AK_AUTO, AK_BF16, AK_ON, 1, 0, 0);
                ak_gemm_desc g = ak_gemm_desc_default();
                ak_gemm_plan p;
                char pat[96];
                const char* hit;
                int bm = 0, bn = 0, bk = 0, nt = 0;
                if (!ctx) continue;
                (void)buf;
                tb = d / 2;
                g.dtype = dts[d % 2]; g.out_dtype = dts[d % 2]; g.m = ms[mi]; g.n = 8192; g.k = 64; g.trans_b = tb;
                g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
                AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
                snprintf(pat, sizeof pat, "(%s, ", p.kernel);
                hit = strstr(src, pat);
                if (!hit && (hit = strstr(srcd, pat)) != NULL && ((hit >= srcd + 12 && !strncmp(hit - 12, "AK_GEMM_GEMV", 12)) ||
                                                                  (hit >= srcd + 13 && !strncmp(hit - 13, "AK_GEMM_GEMVN", 13)))) {
                    /* kernels/gemm_decode.hip, fixed in ak_gemm_gemv: one wave per output, 4 waves a block, 8 elements a lane step;
                     * AK_GEMM_GEMVN(name, DT, CT): 4 waves a block of CT column threads of 4 columns */
                    const int gn = hit >= srcd + 13 && !strncmp(hit - 13, "AK_GEMM_GEMVN", 13);
                    int ct = 0;
                    if (gn) AKT_EQ_INT(sscanf(hit + strlen(pat), "%*[^,], %d", &ct), 1);
                    nt = !strncmp(archs[a], "gfx1", 4) || !strncmp(archs[a], "sm_", 3) ? 128 : 256;
                    AKT_CHECKF(p.bm == 4 && p.bn == (gn ? 4 * ct : 4) && p.bk == 8 && p.threads == nt, "%s: table %dx%dx%d/%d",
                               p.kernel, p.bm, p.bn, p.bk, p.threads);
                    ak_context_destroy(ctx);
                    continue;
                }
                hit = strstr(src, pat);
                if (!hit && strstr(srcd, pat)) { /* AK_GEMM_DECODE(name, DT, TA, TB): 16 x 64 x 64, 128 threads (fixed in ak_gd_gemm) */
                    AKT_CHECKF(p.bm == 16 && p.bn == 64 && p.bk == 64 && p.threads == 128, "%s: table %dx%dx%d/%d", p.kernel, p.bm, p.bn,
                               p.bk, p.threads);
                    ak_context_destroy(ctx);
                    continue;
                }
                if (!hit && (hit = strstr(src90, pat)) != NULL) {
                    /* AK_GEMM_SM90(name, DT, BN, TA, TB): 128 x BN x (128 bytes of k: 64 16-bit values, 32 TF32), 384 threads */
                    const char* q = hit + strlen(pat);
                    const int bk = strstr(p.kernel, "_x32") ? 32 : 64;
                    while (*q && *q != ',') q++;
                    AKT_EQ_INT(sscanf(q, ", %d", &bn), 1);
                    AKT_CHECKF(bn == p.bn && p.bm == 128 && p.bk == bk && p.threads == 384, "%s: table %dx%dx%d/%d, source 128x%dx%d/384",
                               p.kernel, p.bm, p.bn, p.bk, p.threads, bn, bk);
                    ak_context_destroy(ctx);
                    continue;
                }
                AKT_CHECKF(hit != NULL, "kernel %s not defined in kernels/gemm.hip, kernels/gemm_decode.hip or kernels/gemm_sm90.hip", p.kernel);
                if (hit) {
                    /* AK_GEMM_MMA(name, DT, FAST32, BM, BN, BK, NT) / AK_GEMM_SIMT(name, DT, BM, BN, BK, NT) */
                    const char* q = hit + strlen(pat);
                    if (hit >= src + 14 && !strncmp(hit - 14, "AK_GEMM_SKINNY", 14)) {
                        bm = 16; bn = 16; bk = 512; nt = 256; /* fixed in ak_gemm_skinny */
                    } else if (hit >= src + 13 && !strncmp(hit - 13, "AK_GEMM_WGMMA", 13)) {
                        /* AK_GEMM_WGMMA(name, DT, BN): 128 x BN x 64, 256 threads */
                        while (*q && *q != ',') q++;
                        AKT_EQ_INT(sscanf(q, ", %d", &bn), 1);
                        bm = 128; bk = strstr(p.kernel, "x32") ? 32 : 64; nt = 256;
                    } else {
                        int commas = !strncmp(hit - 11, "AK_GEMM_MMA", 11) ? 2 : 1;
                        while (commas > 0 && *q) { if (*q == ',') commas--; q++; }
                        AKT_EQ_INT(sscanf(q, " %d, %d, %d, %d", &bm, &bn, &bk, &nt), 4);
                    }
                    AKT_CHECKF(bm == p.bm && bn == p.bn && bk == p.bk && nt == p.threads,
                               "%s: table %dx%dx%d/%d, kernel source %dx%dx%d/%d", p.kernel, p.bm, p.bn, p.bk, p.threads, bm, bn, bk, nt);
                }
                ak_context_destroy(ctx);
            }
}

/* ---- 8-bit float inputs (scaled GEMM) ---------------------------------- */
/* fp8 decoded from its bits here (sign, exponent, mantissa), independent of ak_fp8_to_f32 */
static double dec8(uint8_t v, ak_dtype t) {
    const int e4 = t == AK_FP8_E4M3 || t == AK_FP8_E4M3_FNUZ, fnuz = t == AK_FP8_E4M3_FNUZ || t == AK_FP8_E5M2_FNUZ;
    const int mb = e4 ? 3 : 2, eb = e4 ? 4 : 5, bias = (e4 ? 7 : 15) + fnuz;
    const int sg = v >> 7, e = (v >> mb) & ((1 << eb) - 1), mt = v & ((1 << mb) - 1);
    double x;
    if (fnuz && v == 0x80) return NAN;
    if (!fnuz && e4 && e == 15 && mt == 7) return NAN;
    if (!fnuz && !e4 && e == 31) return mt ? NAN : sg ? -INFINITY : INFINITY;
    x = e ? ldexp(1.0 + mt / (double)(1 << mb), e - bias) : ldexp(mt / (double)(1 << mb), 1 - bias);
    return sg ? -x : x;
}

/* random finite codes of magnitude 2^-8 .. 16 (every mantissa, subnormals of e4m3 included) */
static uint8_t* rnd8(ak_dtype t, size_t n) {
    uint8_t* p = (uint8_t*)malloc(n ? n : 1);
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(&g_st, -1, 1) * ldexp(1.0, (int)akt_uniform(&g_st, -8, 5));
        p[i] = ak_f32_to_fp8((float)v, t, 1);
        if (dec8(p[i], t) != dec8(p[i], t)) p[i] = 0x38;
    }
    return p;
}

/* The scales and epilogue of a quantised case (fp8, int8): sm bits 1 / 2 a per-tensor scale of A / B, 4 / 8 per-row A /
 * per-column B; epi bits 1 C (beta 0.75), 2 bias, 4 the activation act, 8 a residual; alpha 0.5 with any epilogue. */
static void q_epilogue_set(ak_gemm_desc* g, int sm, int epi, int act, const float* sA, const float* sB, const void* C,
                           const void* bias, const void* R, size_t sd) {
    g->alpha = epi ? 0.5f : 0.0f; /* 0: 1 */
    if (sm & 1) g->scale_a = sA;
    if (sm & 2) g->scale_b = sB;
    g->scale_a_per_row = (sm & 4) ? 1 : 0;
    g->scale_b_per_col = (sm & 8) ? 1 : 0;
    if (sm & 4) g->scale_a = sA;
    if (sm & 8) g->scale_b = sB;
    if (epi & 1) { g->beta = 0.75f; g->c = C; g->ldc = g->ldd; g->stride_c = sd; }
    if (epi & 2) g->bias = bias;
    if (epi & 4) g->activation = act;
    if (epi & 8) { g->residual = R; g->ldr = g->ldd; g->stride_r = sd; }
}

/* D[off] (row i, column j) of a quantised case against the exact sum acc taken through q_epilogue_set's scales and
 * epilogue in double; the output type's tolerance. Returns 1 when it matches; *want / *got for the message. */
static int q_epilogue_ok(const ak_gemm_desc* g, double acc, size_t off, size_t i, size_t j, double* want, double* got) {
    const ak_dtype ot = g->out_dtype;
    double v = (g->alpha != 0.0f ? (double)g->alpha : 1.0) * acc;
    if (g->scale_a) v *= g->scale_a[g->scale_a_per_row ? i : 0];
    if (g->scale_b) v *= g->scale_b[g->scale_b_per_col ? j : 0];
    if (g->c) v += (double)g->beta * ak_elem_get(g->c, ot, off);
    if (g->bias) v += ak_elem_get(g->bias, ot, j);
    if (g->activation) v = naive_act(g->activation, v, 0);
    if (g->residual) v += ak_elem_get(g->residual, ot, off);
    *want = v;
    *got = ak_elem_get(g->d, ot, off);
    return fabs(*got - v) <= (ot == AK_F32 ? 1e-6 : ot == AK_F16 ? 1e-3 : 8e-3) * (fabs(v) + 1e-3);
}

static void fp8_case(ak_context* ctx, ak_dtype ta8, ak_dtype tb8, ak_dtype ot, size_t m, size_t n, size_t k, int ta, int tb, int sm,
                     int epi, size_t batch) {
    ak_gemm_desc g = ak_gemm_desc_default();
    const size_t sa = m * k + 3, sb = n * k + 1, sd = m * n;
    uint8_t *A = rnd8(ta8, sa * batch), *B = rnd8(tb8, sb * batch);
    void *D = rnd_buf(ot, sd * batch), *C = rnd_buf(ot, sd * batch), *R = rnd_buf(ot, sd * batch), *bias = rnd_buf(ot, n);
    float* sA = (float*)malloc(m * sizeof(float));
    float* sB = (float*)malloc(n * sizeof(float));
    size_t b, i, j, kk, bad = 0;
    for (i = 0; i < m; i++) sA[i] = (float)akt_uniform(&g_st, 0.01, 4);
    for (j = 0; j < n; j++) sB[j] = (float)akt_uniform(&g_st, 0.01, 4);
    g.dtype = ta8; g.dtype_b = tb8 == ta8 && (m & 1) ? (ak_dtype)0 : tb8; g.out_dtype = ot;
    g.m = m; g.n = n; g.k = k; g.trans_a = ta; g.trans_b = tb; g.a = A; g.b = B; g.d = D;
    g.batch = batch; g.stride_a = sa; g.stride_b = sb; g.stride_d = sd;
    q_epilogue_set(&g, sm, epi, AK_OP_GELU, sA, sB, C, bias, R, sd);
    AKT_OK(ak_gemm(ctx, &g, NULL));
    for (b = 0; b < batch; b++)
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                double acc = 0, v, got;
                for (kk = 0; kk < k; kk++)
                    acc += dec8(A[b * sa + (ta ? kk * m + i : i * k + kk)], ta8) * dec8(B[b * sb + (tb ? j * k + kk : kk * n + j)], tb8);
                if (!q_epilogue_ok(&g, acc, b * sd + i * n + j, i, j, &v, &got) && bad++ < 3)
                    akt_fail(__FILE__, __LINE__, "fp8 gemm %s x %s -> %s %zux%zux%zu ta%d tb%d scales %d epi %d batch %zu: D[%zu][%zu][%zu] = %.8g, expected %.8g",
                             ak_dtype_name(ta8), ak_dtype_name(tb8), ak_dtype_name(ot), m, n, k, ta, tb, sm, epi, batch, b, i, j, got, v);
            }
    free(A); free(B); free(D); free(C); free(R); free(bias); free(sA); free(sB);
}

static void fp8_matches_naive_decode(void) {
    ak_context* ctx = akt_cpu_context("ops_gemm");
    static const size_t shapes[][3] = { { 1, 1, 1 }, { 7, 9, 16 }, { 33, 17, 5 }, { 130, 65, 64 }, { 1, 300, 129 }, { 65, 1, 48 } };
    static const ak_dtype pairs[][2] = { { AK_FP8_E4M3, AK_FP8_E4M3 }, { AK_FP8_E4M3, AK_FP8_E5M2 }, { AK_FP8_E5M2, AK_FP8_E4M3 },
                                         { AK_FP8_E5M2, AK_FP8_E5M2 }, { AK_FP8_E4M3_FNUZ, AK_FP8_E4M3_FNUZ },
                                         { AK_FP8_E4M3_FNUZ, AK_FP8_E5M2_FNUZ } };
    static const ak_dtype outs[3] = { AK_F32, AK_F16, AK_BF16 };
    static const int scales[] = { 0, 3, 12, 7, 11, 1, 2 }; /* none, both per tensor, row x col, row x tensor, tensor x col, a, b */
    size_t s, q;
    if (!ctx) return;
    g_st = akt_seed() ^ 0x66703867ull;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (q = 0; q < sizeof pairs / sizeof pairs[0]; q++)
            fp8_case(ctx, pairs[q][0], pairs[q][1], outs[(s + q) % 3], shapes[s][0], shapes[s][1], shapes[s][2], (int)(q == 2 && s & 1),
                     (int)(s + q) % 2 || q == 0, scales[(s + q) % 7], (int)((s * 6 + q) % 16), 1);
    for (q = 0; q < 7; q++) fp8_case(ctx, AK_FP8_E4M3, AK_FP8_E4M3, outs[q % 3], 9, 17, 32, 0, 1, scales[q], (int)q * 2 + 1, 3);
    ak_context_destroy(ctx);
}

static void fp8_errors_and_plans(void) {
    ak_context* ctx = akt_cpu_context("ops_gemm");
    ak_gemm_desc g = ak_gemm_desc_default(), x;
    ak_gemm_plan p;
    static uint8_t A[64 * 64], B[64 * 64];
    static float D[64 * 64], D2[64 * 64], sc[64];
    const char *src90 = NULL, *fam = NULL, *s;
    int i;
    if (!ctx) return;
    for (i = 0; i < 64; i++) sc[i] = 1;
    g.dtype = AK_FP8_E4M3; g.out_dtype = AK_BF16; g.m = 64; g.n = 64; g.k = 64; g.trans_b = 1; g.a = A; g.b = B; g.d = D;
    AKT_OK(ak_gemm(ctx, &g, NULL));
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_CHECK(!strcmp(p.path, "cpu"));
    x = g; x.dtype_b = AK_F16; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.dtype_b = AK_FP8_E5M2_FNUZ; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "same family");
    x = g; x.out_dtype = AK_FP8_E4M3; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.out_dtype = AK_I32; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.scale_a_per_row = 1; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    x = g; x.scale_b_per_col = 2; x.scale_b = sc; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    x = g; x.scale_a = (const float*)(const void*)((const char*)sc + 2); AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    x = g; x.scale_b = (const float*)D; x.scale_b_per_col = 1; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    /* scales and dtype_b are for fp8 only */
    x = g; x.dtype = AK_F16; x.out_dtype = AK_F16; x.scale_a = sc; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.dtype = AK_F16; x.out_dtype = AK_F16; x.dtype_b = AK_BF16; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    /* fast_accum: 0 or 1, fp8 only; the cpu reference is exact either way (the same D) */
    x = g; x.dtype = AK_F16; x.out_dtype = AK_F16; x.fast_accum = 1; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "fast_accum");
    x = g; x.fast_accum = 2; AKT_ERR(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT);
    for (i = 0; i < 64 * 64; i++) { A[i] = (uint8_t)(i * 37 + 11); B[i] = (uint8_t)(i * 53 + 5); if ((A[i] & 0x7F) == 0x7F) A[i] = 0; if ((B[i] & 0x7F) == 0x7F) B[i] = 0; }
    x = g; x.out_dtype = AK_F32; AKT_OK(ak_gemm(ctx, &x, NULL));
    memcpy(D2, D, sizeof D);
    x.fast_accum = 1; AKT_OK(ak_gemm(ctx, &x, NULL));
    AKT_CHECK(!memcmp(D2, D, sizeof D));
    ak_context_destroy(ctx);
    /* an explicit precision mask without fp8 refuses it */
    ctx = plan_ctx("sm_90", AK_ON, -1, AK_AUTO, 0, AK_DTYPE_BIT(AK_F16), 0);
    if (ctx) {
        AKT_ERR_ITEM(ak_gemm(ctx, &g, NULL), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
        AKT_CONTAINS(ak_last_error(), "allowed_precisions");
        ak_context_destroy(ctx);
    }
    /* Hopper: the TMA kernel with fp8 wgmma, K-major operands only; the tile by the same rule as 16-bit */
    ctx = plan_ctx("sm_90", AK_ON, -1, AK_AUTO, 0, 0, 0);
    if (!ctx) return;
    for (i = 0; i < ak_embedded_count(); i++) {
        AKT_OK(ak_embedded_at(i, &fam, &s, NULL));
        if (fam && !strcmp(fam, "gemm_sm90")) src90 = s;
    }
    x = g; x.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); x.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); x.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
    x.m = 8192; x.n = 8192; x.k = 8192; x.dtype_b = AK_FP8_E5M2;
    /* precise (default): the 128x128 cooperative kernel with the precise k loop (q128) at every shape; fast_accum 1:
       the 16-bit tile rule */
    AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
    AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_sm90_q128_kk_e4e5") && strstr(p.reason, "precise"), "fp8 precise 8192^3 plan %s", p.kernel);
    AKT_CHECK(src90 && strstr(src90, "AK_GEMM_SM90(ak_gemm_sm90_q128_kk_e4e5, ak_bf16_t, 128, 0, 1, 0, 2, 1)"));
    x.k = 1024; AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
    AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_sm90_q128_kk_e4e5"), "fp8 precise k 1024 plan %s", p.kernel);
    x.k = 8192; x.fast_accum = 1;
    AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
    AKT_CHECKF(!strcmp(p.path, "wgmma") && !strcmp(p.kernel, "ak_gemm_sm90_n256_kk_e4e5") && p.bk == 128 && p.threads == 384,
               "fp8 8192^3 plan %s (%s) bk %d", p.kernel, p.path, p.bk);
    AKT_CHECK(src90 && strstr(src90, "AK_GEMM_SM90(ak_gemm_sm90_n256_kk_e4e5, ak_bf16_t, 256, 0, 1, 0, 2, 0)"));
    x.k = 1024; x.dtype_b = 0;
    AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
    AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_sm90_p128_kk_e4e4"), "fp8 k 1024 plan %s", p.kernel);
    AKT_CHECK(src90 && strstr(src90, "AK_GEMM_SM90(ak_gemm_sm90_p128_kk_e4e4, ak_bf16_t, 128, 0, 1, 1, 1, 0)"));
    x.m = 1; x.n = 4096; x.k = 4096;
    AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
    AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_sm90_n128_kk_e4e4"), "fp8 m 1 plan %s", p.kernel);
    x.trans_b = 0; AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "K-major");
    x.trans_b = 1; x.trans_a = 1; AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_INVALID_ARGUMENT);
    x.trans_a = 0; x.k = 4104; AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_INVALID_ARGUMENT); /* lda not a multiple of 16 */
    AKT_CONTAINS(ak_last_error(), "multiple of 16");
    x.k = 4096; x.dtype = AK_FP8_E4M3_FNUZ; AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "FNUZ");
    /* the cpu backend runs the reference whatever architecture it plans for */
    AKT_OK(ak_gemm(ctx, &g, NULL));
    ak_context_destroy(ctx);
    ctx = plan_ctx("sm_90", AK_OFF, -1, AK_AUTO, 0, 0, 0);
    if (ctx) {
        x.dtype = AK_FP8_E4M3; AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_MATRIX_CORES);
        ak_context_destroy(ctx);
    }
    /* AMD: kernels/gemm_fp8.hip where the target has fp8 matrix instructions (gfx942: FNUZ and OCP, gfx950 / gfx12: OCP),
     * the 128x128 tile or the 64x64 one for few tiles, K-major only; every other AMD target refuses it clearly */
    {
        static const char* const amd[4] = { "gfx942", "gfx950", "gfx1200", "gfx1201" };
        const char* srcf8 = NULL;
        for (i = 0; i < ak_embedded_count(); i++) {
            AKT_OK(ak_embedded_at(i, &fam, &s, NULL));
            if (fam && !strcmp(fam, "gemm_fp8")) srcf8 = s;
        }
        AKT_CHECK(srcf8 && strstr(srcf8, "AK_GEMM_FP8(ak_gemm_fp8_l_e5e4, 1, 0, 128, 128, 256)") &&
                  strstr(srcf8, "AK_GEMM_FP8(ak_gemm_fp8_s_e4e5, 0, 1, 64, 64, 128)"));
        for (i = 0; i < 4; i++) {
            ctx = plan_ctx(amd[i], AK_ON, -1, AK_AUTO, 0, 0, 0);
            if (!ctx) continue;
            x.dtype = i ? AK_FP8_E5M2 : AK_FP8_E5M2_FNUZ; x.dtype_b = i ? AK_FP8_E4M3 : AK_FP8_E4M3_FNUZ; x.fast_accum = 0;
            x.m = 4096; x.n = 4096; x.k = 1000; x.trans_a = 0; x.trans_b = 1;
            AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
            AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_fp8_l_e5e4") && !strcmp(p.path, i < 2 ? "mfma" : "wmma") && p.bm == 128 && p.bn == 128 &&
                       p.bk == 64 && p.threads == 256, "%s fp8 plan %s (%s) %dx%dx%d/%d", amd[i], p.kernel, p.path, p.bm, p.bn, p.bk, p.threads);
            x.m = 100; x.n = 300; x.dtype = i ? AK_FP8_E4M3 : AK_FP8_E4M3_FNUZ; x.dtype_b = i ? AK_FP8_E5M2 : AK_FP8_E5M2_FNUZ;
            AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
            AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_fp8_s_e4e5") && p.bm == 64 && p.bn == 64 && p.threads == 128, "%s fp8 small plan %s", amd[i],
                       p.kernel);
            x.dtype = AK_FP8_E4M3; x.dtype_b = AK_FP8_E4M3;
            AKT_OK(ak_gemm_plan_get(ctx, &x, &p)); /* OCP: gfx942 too (converted exactly in the kernel's loads) */
            x.dtype = AK_FP8_E4M3_FNUZ; x.dtype_b = AK_FP8_E4M3_FNUZ;
            if (i) {
                AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_INVALID_ARGUMENT);
                AKT_CONTAINS(ak_last_error(), "FNUZ");
            }
            x.dtype = AK_FP8_E4M3; x.dtype_b = AK_FP8_E4M3; x.trans_b = 0;
            AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_INVALID_ARGUMENT);
            AKT_CONTAINS(ak_last_error(), "K-major");
            x.trans_b = 1;
            AKT_OK(ak_gemm(ctx, &g, NULL)); /* the cpu backend still runs the reference */
            ak_context_destroy(ctx);
        }
        ctx = plan_ctx("gfx942", AK_OFF, -1, AK_AUTO, 0, 0, 0);
        if (ctx) {
            AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_MATRIX_CORES);
            AKT_CONTAINS(ak_last_error(), "matrix_cores");
            ak_context_destroy(ctx);
        }
    }
    /* no fp8 matrix instruction: a clear refusal (gfx90a: int8 MFMA only; gfx1100: int8 WMMA only) */
    for (i = 0; i < 3; i++) {
        static const char* const none[3] = { "gfx90a", "gfx1100", "gfx906" };
        ctx = plan_ctx(none[i], AK_ON, -1, AK_AUTO, 0, 0, 0);
        if (!ctx) continue;
        x.dtype = AK_FP8_E4M3; AKT_ERR_ITEM(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_MATRIX_CORES, AK_ERRITEM_MATRIX_CORES);
        AKT_CONTAINS(ak_last_error(), none[i]);
        AKT_OK(ak_gemm(ctx, &g, NULL));
        ak_context_destroy(ctx);
    }
}

/* ---- 8-bit integer inputs ---------------------------------------------- */
/* naive int8 GEMM: the exact sum wrapped to int32 (as the hardware's accumulator), the scales and the epilogue in
 * double; every case A m x k, B n x k (the kernel's layout), any other layout through the cpu backend too */
static void i8_case(ak_context* ctx, ak_dtype ot, size_t m, size_t n, size_t k, int ta, int tb, int sm, int epi, size_t batch, int pad) {
    ak_gemm_desc g = ak_gemm_desc_default();
    const size_t lda = (ta ? m : k) + (size_t)pad, ldb = (tb ? k : n) + (size_t)pad, ldd = n + (size_t)(pad ? 3 : 0);
    const size_t sa = (ta ? k : m) * lda + 5, sb = (tb ? n : k) * ldb + 1, sd = m * ldd;
    int8_t *A = (int8_t*)malloc(sa * batch), *B = (int8_t*)malloc(sb * batch);
    void *D = rnd_buf(ot, sd * batch), *C = rnd_buf(ot, sd * batch), *R = rnd_buf(ot, sd * batch), *bias = rnd_buf(ot, n);
    float* sA = (float*)malloc(m * sizeof(float));
    float* sB = (float*)malloc(n * sizeof(float));
    size_t b, i, j, kk, bad = 0;
    for (i = 0; i < sa * batch; i++) A[i] = (int8_t)(int)akt_uniform(&g_st, -128, 128);
    for (i = 0; i < sb * batch; i++) B[i] = (int8_t)(int)akt_uniform(&g_st, -128, 128);
    if (batch * sa > 2) A[1] = -128;
    if (batch * sb > 2) B[0] = -128;
    for (i = 0; i < m; i++) sA[i] = (float)akt_uniform(&g_st, 1e-4, 1e-2);
    for (j = 0; j < n; j++) sB[j] = (float)akt_uniform(&g_st, 1e-4, 1e-2);
    g.dtype = AK_I8; g.dtype_b = (m & 1) ? (ak_dtype)0 : AK_I8; g.out_dtype = ot;
    g.m = m; g.n = n; g.k = k; g.trans_a = ta; g.trans_b = tb; g.a = A; g.b = B; g.d = D;
    g.lda = pad ? lda : 0; g.ldb = pad ? ldb : 0; g.ldd = pad ? ldd : 0;
    g.batch = batch; g.stride_a = sa; g.stride_b = sb; g.stride_d = sd;
    if (ot != AK_I32) q_epilogue_set(&g, sm, epi, AK_OP_SILU, sA, sB, C, bias, R, sd);
    AKT_OK(ak_gemm(ctx, &g, NULL));
    for (b = 0; b < batch; b++)
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                long long acc = 0;
                double v, got;
                for (kk = 0; kk < k; kk++)
                    acc += (long long)A[b * sa + (ta ? kk * lda + i : i * lda + kk)] * (long long)B[b * sb + (tb ? j * ldb + kk : kk * ldb + j)];
                if (ot == AK_I32) {
                    const int32_t want = (int32_t)(uint32_t)(unsigned long long)acc, have = ((const int32_t*)D)[b * sd + i * ldd + j];
                    if (have != want && bad++ < 3)
                        akt_fail(__FILE__, __LINE__, "i8 gemm -> i32 %zux%zux%zu ta%d tb%d batch %zu: D[%zu][%zu][%zu] = %d, expected %d", m, n, k,
                                 ta, tb, batch, b, i, j, (int)have, (int)want);
                    continue;
                }
                if (!q_epilogue_ok(&g, (double)acc, b * sd + i * ldd + j, i, j, &v, &got) && bad++ < 3)
                    akt_fail(__FILE__, __LINE__, "i8 gemm -> %s %zux%zux%zu ta%d tb%d scales %d epi %d batch %zu: D[%zu][%zu][%zu] = %.8g, expected %.8g",
                             ak_dtype_name(ot), m, n, k, ta, tb, sm, epi, batch, b, i, j, got, v);
            }
    free(A); free(B); free(D); free(C); free(R); free(bias); free(sA); free(sB);
}

static void i8_matches_naive(void) {
    ak_context* ctx = akt_cpu_context("ops_gemm");
    static const size_t shapes[][3] = { { 1, 1, 1 }, { 7, 7, 7 }, { 127, 129, 64 }, { 1, 1000, 127 }, { 1000, 7, 129 }, { 33, 65, 1000 } };
    static const ak_dtype outs[4] = { AK_F32, AK_F16, AK_BF16, AK_I32 };
    static const int scales[] = { 0, 3, 12, 7, 11, 1, 2 }; /* none, both per tensor, row x col, row x tensor, tensor x col, a, b */
    size_t s, q;
    if (!ctx) return;
    g_st = akt_seed() ^ 0x69386d6dull;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (q = 0; q < 4; q++)
            i8_case(ctx, outs[q], shapes[s][0], shapes[s][1], shapes[s][2], 0, 1, scales[(s + q) % 7], (int)((s * 5 + q * 3) % 16), 1,
                    (int)(s + q) % 3 == 0 ? 16 : 0);
    for (q = 0; q < 7; q++) i8_case(ctx, outs[q % 4], 9, 17, 40, (int)(q & 1), (int)(q % 3 != 0), scales[q], (int)q * 2 + 1, 3, 0);
    ak_context_destroy(ctx);
}

static void i8_errors_and_plans(void) {
    ak_context* ctx = akt_cpu_context("ops_gemm");
    ak_gemm_desc g = ak_gemm_desc_default(), x;
    ak_gemm_plan p;
    static int8_t A[64 * 64], B[64 * 64];
    static int32_t D[64 * 64];
    static float sc[64];
    static const char* const archs[] = { "sm_80", "sm_90", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201" };
    const char *src = NULL, *src9 = NULL, *fam = NULL, *s;
    int i;
    if (!ctx) return;
    for (i = 0; i < 64; i++) sc[i] = 1;
    g.dtype = AK_I8; g.out_dtype = AK_I32; g.m = 64; g.n = 64; g.k = 64; g.trans_b = 1; g.a = A; g.b = B; g.d = D;
    AKT_OK(ak_gemm(ctx, &g, NULL));
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_CHECK(!strcmp(p.path, "cpu"));
    /* B must be i8; out f32 / f16 / bf16 / i32 */
    x = g; x.dtype_b = AK_U8; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "i8 too");
    x = g; x.dtype_b = AK_FP8_E4M3; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.out_dtype = AK_I8; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.dtype = AK_FP8_E4M3; x.dtype_b = AK_I8; x.out_dtype = AK_F32; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    /* i32 out is the raw sum: no scales, no epilogue */
    x = g; x.scale_a = sc; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "raw int32");
    x = g; x.alpha = 2.0f; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.activation = AK_OP_RELU; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.bias = sc; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    x = g; x.fast_accum = 1; x.out_dtype = AK_F32; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_CONTAINS(ak_last_error(), "fast_accum");
    x = g; x.out_dtype = AK_F32; x.scale_b_per_col = 1; AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    x = g; x.out_dtype = AK_F32; x.scale_a = (const float*)(const void*)((const char*)sc + 1);
    AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    x = g; x.d = (void*)((char*)D + 2); AKT_ERR_ITEM(ak_gemm(ctx, &x, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    ak_context_destroy(ctx);
    /* an explicit precision mask without i8 refuses it */
    ctx = plan_ctx("sm_90", AK_ON, -1, AK_AUTO, 0, AK_DTYPE_BIT(AK_F16), 0);
    if (ctx) {
        AKT_ERR_ITEM(ak_gemm(ctx, &g, NULL), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
        ak_context_destroy(ctx);
    }
    for (i = 0; i < ak_embedded_count(); i++) {
        AKT_OK(ak_embedded_at(i, &fam, &s, NULL));
        if (fam && !strcmp(fam, "gemm")) src = s;
        if (fam && !strcmp(fam, "gemm_sm90")) src9 = s;
    }
    /* every matrix ISA: the int8 tile (large, or small for few tiles), K-major only; the kernel's tile in the source */
    x = g; x.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); x.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); x.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
    for (i = 0; i < (int)(sizeof archs / sizeof archs[0]); i++) {
        const char* path = archs[i][0] == 's' ? "mma.sync" : !strncmp(archs[i], "gfx9", 4) ? "mfma" : "wmma";
        ctx = plan_ctx(archs[i], AK_ON, -1, AK_AUTO, 0, 0, 0);
        if (!ctx) continue;
        x.m = 8192; x.n = 8192; x.k = 4096; x.out_dtype = AK_BF16; x.trans_a = 0; x.trans_b = 1;
        if (!strcmp(archs[i], "sm_90")) {
            /* Hopper: the TMA kernel with s8 wgmma where A and B suit TMA (the fp8 kernels' tile choice) */
            AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
            AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_sm90_n256_kk_i8") && !strcmp(p.path, "wgmma") && p.bm == 128 && p.bn == 256 &&
                       p.bk == 128 && p.threads == 384, "sm_90 i8 plan %s (%s) %dx%dx%d/%d", p.kernel, p.path, p.bm, p.bn, p.bk, p.threads);
            AKT_CHECK(src9 && strstr(src9, "AK_GEMM_SM90(ak_gemm_sm90_n256_kk_i8, ak_bf16_t, 256, 0, 1, 0, 5, 0)"));
            x.m = 100; x.n = 300; x.out_dtype = AK_I32;
            AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
            AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_sm90_n128_kk_i8") && p.bn == 128, "sm_90 i8 small plan %s", p.kernel);
            x.k = 64;
            x.m = 4096; x.n = 4096; AKT_OK(ak_gemm_plan_get(ctx, &x, &p)); /* short k, many tiles: ping-pong */
            AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_sm90_p128_kk_i8"), "sm_90 i8 ping-pong plan %s", p.kernel);
            x.m = 8192; x.n = 8192; x.k = 4096; x.out_dtype = AK_BF16;
            /* rows TMA cannot take (not a multiple of 16 bytes): the portable kernel below */
            x.lda = 4100; x.ldb = 4100;
        }
        AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
        AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_i8_l_bf16") && !strcmp(p.path, path) && p.bm == 128 && p.bn == 128 && p.bk == 64 &&
                   p.threads == 256, "%s i8 plan %s (%s) %dx%dx%d/%d", archs[i], p.kernel, p.path, p.bm, p.bn, p.bk, p.threads);
        AKT_CHECK(src && strstr(src, "AK_GEMM_I8(ak_gemm_i8_l_bf16, ak_bf16_t, 128, 128, 64, 256)"));
        x.m = 100; x.n = 300; x.out_dtype = AK_I32;
        AKT_OK(ak_gemm_plan_get(ctx, &x, &p));
        AKT_CHECKF(!strcmp(p.kernel, "ak_gemm_i8_s_f16") && p.bm == 64 && p.bn == 64 && p.threads == 128, "%s i8 small plan %s",
                   archs[i], p.kernel);
        AKT_CHECK(src && strstr(src, "AK_GEMM_I8(ak_gemm_i8_s_f16, ak_f16_t, 64, 64, 64, 128)"));
        x.trans_b = 0; AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_INVALID_ARGUMENT);
        AKT_CONTAINS(ak_last_error(), "K-major");
        x.trans_b = 1; x.trans_a = 1; AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_INVALID_ARGUMENT);
        x.trans_a = 0; x.lda = 0; x.ldb = 0;
        ak_context_destroy(ctx);
    }
    /* no int8 matrix instruction, or matrix cores off: a clear refusal (the cpu backend still runs the reference) */
    ctx = plan_ctx("gfx906", AK_ON, -1, AK_AUTO, 0, 0, 0);
    if (ctx) {
        AKT_ERR_ITEM(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_MATRIX_CORES, AK_ERRITEM_MATRIX_CORES);
        AKT_CONTAINS(ak_last_error(), "gfx906");
        AKT_OK(ak_gemm(ctx, &g, NULL));
        ak_context_destroy(ctx);
    }
    ctx = plan_ctx("gfx1030", AK_ON, -1, AK_AUTO, 0, 0, 0);
    if (ctx) {
        AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_MATRIX_CORES);
        ak_context_destroy(ctx);
    }
    ctx = plan_ctx("sm_90", AK_OFF, -1, AK_AUTO, 0, 0, 0);
    if (ctx) {
        AKT_ERR(ak_gemm_plan_get(ctx, &x, &p), AK_ERROR_MATRIX_CORES);
        AKT_CONTAINS(ak_last_error(), "matrix_cores");
        ak_context_destroy(ctx);
    }
}

void akt_suite_ops_gemm(void) {
    AKT_RUN(odd_shapes_match_naive);
    AKT_RUN(beta_zero_never_reads_c);
    AKT_RUN(zero_filled_desc_is_plain_gemm);
    AKT_RUN(tf32_when_the_config_allows_it);
    AKT_RUN(bad_arguments);
    AKT_RUN(plans_follow_arch_and_config);
    AKT_RUN(simt_split_k_plans);
    AKT_RUN(sm90_split_k_plans);
    AKT_RUN(amd_split_k_plans);
    AKT_RUN(hopper_layouts_and_fallbacks);
    AKT_RUN(tall_products_turned);
    AKT_RUN(strict_and_allowed_precisions);
    AKT_RUN(tile_table_matches_kernel_source);
    AKT_RUN(fp8_matches_naive_decode);
    AKT_RUN(fp8_errors_and_plans);
    AKT_RUN(i8_matches_naive);
    AKT_RUN(i8_errors_and_plans);
}
