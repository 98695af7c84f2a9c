/* Suite ops_conv (cpu backend): ak_conv (standard and transposed, 1-D / 2-D /
 * 3-D, stride, padding, dilation, groups, depthwise, output_padding, both
 * layouts, bias, activation, every dtype) against a brute-force reference
 * written here from the definitions (every output x input x tap triple whose
 * coordinates match contributes); the output-shape rule; the plan per
 * architecture; descriptor errors. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

typedef struct {
    int ndim, tr, cl, act;
    size_t n, ci, co, g, in[3], k[3], s[3], p[3], d[3], op[3];
    int bias;
} cv_case;

/* torch's output extent */
static long long cv_out(int tr, long long in, long long k, long long s, long long p, long long d, long long op) {
    if (tr) return (in - 1) * s - 2 * p + d * (k - 1) + op + 1;
    return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

static size_t cv_at(int cl, size_t n, size_t c, size_t pos, size_t C, size_t vol) {
    return cl ? (n * vol + pos) * C + c : (n * C + c) * vol + pos;
}

/* Brute force: output o, input i, tap t contribute when i s - p + t d == o (transposed) or o s - p + t d == i
 * (standard) in every dimension. Values as the dtype stores them, sums in double. */
static void cv_naive(const cv_case* c, const double* x, const double* w, const double* b, double* y, const long long in[3],
                     const long long out[3], const long long k[3], const long long s[3], const long long p[3],
                     const long long d[3]) {
    const size_t G = c->g ? c->g : 1, cig = c->ci / G, cog = c->co / G;
    const long long ivol = in[0] * in[1] * in[2], ovol = out[0] * out[1] * out[2], taps = k[0] * k[1] * k[2];
    size_t n, co;
    long long o, i, t;
    for (n = 0; n < c->n; n++)
        for (co = 0; co < c->co; co++) {
            const size_t grp = co / cog;
            for (o = 0; o < ovol; o++) {
                const long long oc[3] = { o / (out[1] * out[2]), (o / out[2]) % out[1], o % out[2] };
                double acc = c->bias ? b[co] : 0.0;
                size_t cil;
                for (cil = 0; cil < cig; cil++) {
                    const size_t ci = grp * cig + cil;
                    for (i = 0; i < ivol; i++) {
                        const long long ic[3] = { i / (in[1] * in[2]), (i / in[2]) % in[1], i % in[2] };
                        for (t = 0; t < taps; t++) {
                            const long long tc[3] = { t / (k[1] * k[2]), (t / k[2]) % k[1], t % k[2] };
                            int j, hit = 1;
                            for (j = 0; j < 3; j++) {
                                if (c->tr) hit &= ic[j] * s[j] - p[j] + tc[j] * d[j] == oc[j];
                                else hit &= oc[j] * s[j] - p[j] + tc[j] * d[j] == ic[j];
                            }
                            if (!hit) continue;
                            acc += x[cv_at(c->cl, n, ci, (size_t)i, c->ci, (size_t)ivol)] *
                                   w[c->tr ? (ci * cog + (co % cog)) * (size_t)taps + (size_t)t : (co * cig + cil) * (size_t)taps + (size_t)t];
                        }
                    }
                }
                if (c->act == AK_OP_RELU) acc = acc > 0 ? acc : 0;
                else if (c->act == AK_OP_LEAKY_RELU) acc = acc > 0 ? acc : 0.1 * acc;
                y[cv_at(c->cl, n, co, (size_t)o, c->co, (size_t)ovol)] = acc;
            }
        }
}

static void cv_fill(const cv_case* c, ak_conv_desc* a, ak_dtype t) {
    int j;
    memset(a, 0, sizeof *a);
    a->dtype = t; a->ndim = c->ndim; a->layout = c->cl ? AK_CONV_CHANNELS_LAST : AK_CONV_CHANNELS_FIRST;
    a->batch = c->n; a->in_channels = c->ci; a->out_channels = c->co; a->groups = c->g; a->transposed = c->tr;
    for (j = 0; j < c->ndim; j++) {
        a->in[j] = c->in[j]; a->kernel[j] = c->k[j]; a->stride[j] = c->s[j]; a->padding[j] = c->p[j];
        a->dilation[j] = c->d[j]; a->output_padding[j] = c->op[j];
    }
    a->activation = c->act;
    a->act_param = c->act == AK_OP_LEAKY_RELU ? 0.1f : 0.0f;
}

static void test_conv_random(void) {
    static const cv_case cases[] = {
        /* ndim tr cl act      n ci co g   in              k           s           p           d           op     bias */
        { 1, 0, 0, 0,          2, 3, 4, 1, { 17 }, { 3 }, { 1 }, { 0 }, { 1 }, { 0 }, 0 },
        { 1, 0, 1, AK_OP_RELU, 2, 4, 6, 2, { 23 }, { 3 }, { 3 }, { 2 }, { 4 }, { 0 }, 1 },          /* stride, dilation, groups */
        { 2, 0, 0, 0,          1, 3, 5, 1, { 9, 11 }, { 3, 2 }, { 2, 1 }, { 1, 0 }, { 1, 2 }, { 0 }, 1 },
        { 2, 0, 1, AK_OP_LEAKY_RELU, 2, 6, 4, 2, { 7, 8 }, { 2, 3 }, { 1, 2 }, { 1, 1 }, { 2, 1 }, { 0 }, 0 },
        { 2, 0, 0, 0,          2, 4, 4, 4, { 8, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 }, 1 },   /* depthwise */
        { 2, 0, 1, 0,          1, 3, 6, 3, { 6, 7 }, { 3, 1 }, { 2, 1 }, { 0, 0 }, { 1, 1 }, { 0 }, 0 },   /* depthwise x2 */
        { 2, 0, 0, 0,          1, 5, 3, 1, { 6, 5 }, { 1, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0 }, 0 },   /* pointwise */
        { 3, 0, 0, 0,          1, 2, 3, 1, { 5, 6, 7 }, { 3, 2, 3 }, { 1, 2, 1 }, { 1, 0, 1 }, { 1, 1, 2 }, { 0 }, 1 },
        { 1, 1, 0, 0,          2, 3, 4, 1, { 9 }, { 3 }, { 2 }, { 1 }, { 2 }, { 1 }, 1 },           /* transposed */
        { 2, 1, 0, AK_OP_RELU, 1, 4, 6, 2, { 5, 6 }, { 3, 5 }, { 2, 3 }, { 1, 2 }, { 2, 1 }, { 1, 0 }, 0 },
        { 2, 1, 1, 0,          2, 3, 2, 1, { 4, 5 }, { 3, 3 }, { 1, 1 }, { 0, 1 }, { 1, 1 }, { 0, 0 }, 1 },
        { 3, 1, 0, 0,          1, 4, 4, 2, { 3, 4, 5 }, { 3, 2, 3 }, { 2, 2, 1 }, { 1, 0, 1 }, { 1, 2, 1 }, { 1, 1, 0 }, 1 },
        { 2, 1, 0, 0,          1, 2, 2, 2, { 4, 4 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0, 0 }, 0 },   /* transposed depthwise */
    };
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    ak_context* ctx = akt_cpu_context("ops_conv");
    unsigned long long rng = akt_seed() ^ 0xC0417ull;
    size_t ci_, ti;
    if (!ctx) return;
    for (ci_ = 0; ci_ < sizeof cases / sizeof cases[0]; ci_++)
        for (ti = 0; ti < 3; ti++) {
            const cv_case* c = &cases[ci_];
            const ak_dtype t = types[ti];
            const size_t es = ak_dtype_size(t), G = c->g ? c->g : 1;
            long long in[3] = { 1, 1, 1 }, out[3] = { 1, 1, 1 }, k[3] = { 1, 1, 1 }, s[3] = { 1, 1, 1 }, p[3] = { 0, 0, 0 },
                      d[3] = { 1, 1, 1 };
            size_t sh[3], nx, ny, nw, i, ivol = 1, ovol = 1, bad = 0;
            void *x, *w, *b, *y;
            double *xd, *wd, *bd, *yd;
            ak_conv_desc a;
            int j;
            cv_fill(c, &a, t);
            for (j = 0; j < c->ndim; j++) {
                const int q = 3 - c->ndim + j;
                in[q] = (long long)c->in[j]; k[q] = (long long)c->k[j]; s[q] = c->s[j] ? (long long)c->s[j] : 1;
                p[q] = (long long)c->p[j]; d[q] = c->d[j] ? (long long)c->d[j] : 1;
                out[q] = cv_out(c->tr, in[q], k[q], s[q], p[q], d[q], (long long)c->op[j]);
            }
            AKT_OK(ak_conv_output_shape(&a, sh));
            for (j = 0; j < c->ndim; j++) AKT_EQ_INT(sh[j], out[3 - c->ndim + j]);
            for (j = 0; j < 3; j++) { ivol *= (size_t)in[j]; ovol *= (size_t)out[j]; }
            nx = c->n * c->ci * ivol; ny = c->n * c->co * ovol;
            nw = (c->tr ? c->ci * (c->co / G) : c->co * (c->ci / G)) * (size_t)(k[0] * k[1] * k[2]);
            x = malloc(nx * es); w = malloc(nw * es); b = malloc(c->co * es); y = malloc(ny * es);
            xd = (double*)malloc(nx * 8); wd = (double*)malloc(nw * 8); bd = (double*)malloc(c->co * 8); yd = (double*)malloc(ny * 8);
            if (!x || !w || !b || !y || !xd || !wd || !bd || !yd) { akt_fail(__FILE__, __LINE__, "host OOM"); return; }
            for (i = 0; i < nx; i++) { ak_elem_set(x, t, i, akt_uniform(&rng, -2, 2)); xd[i] = ak_elem_get(x, t, i); }
            for (i = 0; i < nw; i++) { ak_elem_set(w, t, i, akt_uniform(&rng, -1, 1)); wd[i] = ak_elem_get(w, t, i); }
            for (i = 0; i < c->co; i++) { ak_elem_set(b, t, i, akt_uniform(&rng, -1, 1)); bd[i] = ak_elem_get(b, t, i); }
            a.x = x; a.w = w; a.bias = c->bias ? b : NULL; a.y = y;
            AKT_OK(ak_conv(ctx, &a, NULL));
            cv_naive(c, xd, wd, bd, yd, in, out, k, s, p, d);
            for (i = 0; i < ny; i++) {
                const double g = ak_elem_get(y, t, i), tol = (t == AK_F32 ? 1e-5 : t == AK_F16 ? 2e-3 : 1.6e-2) * (1 + fabs(yd[i]));
                if (!(fabs(g - yd[i]) <= tol) && !bad++)
                    akt_fail(__FILE__, __LINE__, "conv case %zu %s: output %zu of %zu: %.9g vs %.9g", ci_, ak_dtype_name(t), i, ny, g, yd[i]);
            }
            free(x); free(w); free(b); free(y); free(xd); free(wd); free(bd); free(yd);
        }
    ak_context_destroy(ctx);
}

static ak_context* cv_plan_ctx(const char* arch, int tf32) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU; cfg.log_level = AK_LOG_NONE; cfg.arch = arch; cfg.matrix_cores = AK_ON; cfg.allow_tf32 = tf32;
    if (ak_context_create(&cfg, &ctx) != AK_OK) akt_fail(__FILE__, __LINE__, "context for %s: %s", arch, ak_last_error());
    return ctx;
}

/* The plan of `a` on ctx names `kernel` and `path` (NULL: not checked); `what` says which step of a test failed. */
static void cv_plan_is(ak_context* ctx, const ak_conv_desc* a, const char* kernel, const char* path, const char* what) {
    ak_conv_plan p;
    AKT_OK(ak_conv_plan_get(ctx, a, &p));
    if (kernel) AKT_CHECKF(!strcmp(p.kernel, kernel), "%s: kernel %s, expected %s", what, p.kernel, kernel);
    if (path) AKT_CHECKF(!strcmp(p.path, path), "%s: path %s, expected %s", what, p.path, path);
}

static void cv_expect_plan(const char* arch, int tf32, ak_dtype t, size_t groups, const char* kernel, const char* path) {
    ak_context* ctx = cv_plan_ctx(arch, tf32);
    ak_conv_desc a;
    ak_conv_plan p;
    if (!ctx) return;
    memset(&a, 0, sizeof a);
    a.dtype = t; a.ndim = 2; a.batch = 2; a.in_channels = 8; a.out_channels = 16; a.groups = groups;
    a.in[0] = 10; a.in[1] = 12; a.kernel[0] = 3; a.kernel[1] = 3;
    AKT_OK(ak_conv_plan_get(ctx, &a, &p));
    AKT_EQ_STR(p.kernel, kernel);
    AKT_EQ_STR(p.path, path);
    if (groups != 8) {
        AKT_EQ_INT(p.gemm_m, 2 * 8 * 10);
        AKT_EQ_INT(p.gemm_n, 16 / (groups ? groups : 1));
        AKT_EQ_INT(p.gemm_k, 8 / (groups ? groups : 1) * 9);
    }
    ak_context_destroy(ctx);
}

/* Depthwise: the stride-1 tiles (ak_conv_dwv_*) for channels-first with stride 1, dilation 1 across, kernel width
 * <= 7 and a window of at most 48 rows a 32-row tile; otherwise the general kernel (ak_conv_dw_*). */
static void cv_expect_dw(void) {
    ak_context* ctx = cv_plan_ctx("sm_90", 0);
    ak_conv_desc a;
    if (!ctx) return;
    memset(&a, 0, sizeof a);
    a.dtype = AK_BF16; a.ndim = 2; a.batch = 2; a.in_channels = 8; a.out_channels = 16; a.groups = 8;
    a.in[0] = 40; a.in[1] = 300; a.kernel[0] = 5; a.kernel[1] = 7; a.padding[1] = 3; a.dilation[0] = 4;
    cv_plan_is(ctx, &a, "ak_conv_dwv_bf16", NULL, "32 + 4 x 4 = 48 window rows");
    a.dilation[0] = 5;
    cv_plan_is(ctx, &a, "ak_conv_dw_bf16", NULL, "52 window rows");
    a.dilation[0] = 1; a.kernel[1] = 8;
    cv_plan_is(ctx, &a, "ak_conv_dw_bf16", NULL, "kernel width 8");
    a.kernel[1] = 3; a.stride[1] = 2;
    cv_plan_is(ctx, &a, "ak_conv_dw_bf16", NULL, "stride 2 across");
    a.stride[1] = 1; a.dilation[1] = 2;
    cv_plan_is(ctx, &a, "ak_conv_dw_bf16", NULL, "dilation 2 across");
    a.dilation[1] = 1; a.dtype = AK_F32;
    cv_plan_is(ctx, &a, "ak_conv_dwv_f32", NULL, "f32");
    a.layout = AK_CONV_CHANNELS_LAST;
    cv_plan_is(ctx, &a, "ak_conv_dw_f32", NULL, "channels-last");
    ak_context_destroy(ctx);
}

/* Pointwise convolutions go to ak_gemm (the conv plan names the GEMM's kernel); channels-first with bias,
 * groups or padding stay on the implicit GEMM. */
static void cv_expect_pointwise(void) {
    ak_context* ctx = cv_plan_ctx("sm_90", 0);
    ak_conv_desc a;
    ak_conv_plan p;
    static const float bias[16];
    int cl;
    if (!ctx) return;
    for (cl = 0; cl < 2; cl++) {
        memset(&a, 0, sizeof a);
        a.dtype = AK_F16; a.ndim = 2; a.batch = 3; a.in_channels = 24; a.out_channels = 16; a.layout = (ak_conv_layout)cl;
        a.in[0] = 10; a.in[1] = 12; a.kernel[0] = 1; a.kernel[1] = 1;
        AKT_OK(ak_conv_plan_get(ctx, &a, &p));
        AKT_EQ_STR(p.path, "gemm");
        AKT_CHECK(!strncmp(p.kernel, "ak_gemm_", 8));
        a.transposed = 1;
        cv_plan_is(ctx, &a, NULL, "gemm", "transposed");
        a.transposed = 0; a.padding[1] = 1;
        /* channels-first: 16 outputs x 1 tap, too little reuse for x's copy */
        cv_plan_is(ctx, &a, NULL, cl ? "wgmma" : "mma.sync", "padding");
        a.padding[1] = 0; a.groups = 2;
        cv_plan_is(ctx, &a, NULL, "mma.sync", "groups");
        a.groups = 0; a.bias = bias;
        cv_plan_is(ctx, &a, NULL, cl ? "gemm" : "mma.sync", "bias");
    }
    ak_context_destroy(ctx);
}

/* Transposed convolutions with a stride > 1 split into sub-pixel phases (the reason says so); stride 1 does not. */
static void cv_expect_phases(void) {
    ak_context* ctx = cv_plan_ctx("sm_90", 0);
    ak_conv_desc a;
    ak_conv_plan p;
    if (!ctx) return;
    memset(&a, 0, sizeof a);
    a.dtype = AK_F16; a.ndim = 2; a.batch = 2; a.in_channels = 32; a.out_channels = 16; a.transposed = 1;
    a.in[0] = 10; a.in[1] = 12; a.kernel[0] = 3; a.kernel[1] = 3; a.stride[0] = 2; a.stride[1] = 3;
    AKT_OK(ak_conv_plan_get(ctx, &a, &p));
    AKT_EQ_STR(p.path, "wgmma");
    AKT_CHECK(strstr(p.reason, "sub-pixel phase") != NULL);
    a.dtype = AK_F32;
    AKT_OK(ak_conv_plan_get(ctx, &a, &p));
    AKT_EQ_STR(p.path, "simt");
    AKT_CHECK(strstr(p.reason, "sub-pixel phase") == NULL);
    a.dtype = AK_F16; a.in_channels = 12;
    AKT_OK(ak_conv_plan_get(ctx, &a, &p));
    AKT_EQ_STR(p.path, "mma.sync");
    AKT_CHECK(strstr(p.reason, "sub-pixel phase") != NULL);
    a.in_channels = 32;
    a.stride[0] = a.stride[1] = 1;
    AKT_OK(ak_conv_plan_get(ctx, &a, &p));
    AKT_CHECK(strstr(p.reason, "sub-pixel phase") == NULL);
    ak_context_destroy(ctx);
}

/* The cp.async kernels (NVIDIA mma.sync, 16-bit): the vector loader without phases and with more than 2 k tiles a
 * block; AMD, short k, phases and 8 channels a group keep the 2-stage kernel. */
static void cv_expect_cpasync_one(const char* arch, ak_dtype t, int cin, int k, int stride, int transposed, const char* kernel) {
    ak_context* ctx = cv_plan_ctx(arch, 0);
    ak_conv_desc a;
    ak_conv_plan p;
    if (!ctx) return;
    memset(&a, 0, sizeof a);
    a.dtype = t; a.ndim = 2; a.batch = 2; a.in_channels = cin; a.out_channels = 64; a.transposed = transposed;
    a.in[0] = 10; a.in[1] = 12; a.kernel[0] = k; a.kernel[1] = k; a.stride[0] = a.stride[1] = stride;
    AKT_OK(ak_conv_plan_get(ctx, &a, &p));
    AKT_EQ_STR(p.kernel, kernel);
    if (!strncmp(kernel, "ak_conv_igemm_vec_", 18)) AKT_CHECK(strstr(p.reason, "cp.async") != NULL);
    ak_context_destroy(ctx);
}
static void cv_expect_cpasync(void) {
    cv_expect_cpasync_one("sm_89", AK_F16, 64, 3, 1, 0, "ak_conv_igemm_vec_f16");
    cv_expect_cpasync_one("sm_80", AK_BF16, 64, 3, 1, 1, "ak_conv_igemm_vec_bf16");   /* transposed, stride 1 */
    cv_expect_cpasync_one("gfx942", AK_F16, 64, 3, 1, 0, "ak_conv_igemm_mma_f16");   /* AMD: the register-staged loader */
    cv_expect_cpasync_one("sm_89", AK_F16, 64, 1, 2, 0, "ak_conv_igemm_mma_f16");    /* 1 tap x 2 channel tiles */
    cv_expect_cpasync_one("sm_89", AK_F16, 64, 3, 2, 1, "ak_conv_igemm_mma_f16");    /* sub-pixel phases */
    cv_expect_cpasync_one("sm_89", AK_F16, 8, 3, 1, 0, "ak_conv_igemm_mma_f16");     /* 8 channels: element loader */
}

/* The Hopper wgmma kernel (sm_90, 16-bit): channel counts multiples of 8 (8 channels too: k chunks cross the taps),
 * standard, transposed with stride 1 or in sub-pixel phases, the 128-column tile past 64 out channels a group; f32,
 * AMD and sm_89 keep their kernels. */
static void cv_expect_wg(void) {
    cv_expect_cpasync_one("sm_90", AK_F16, 64, 3, 1, 0, "ak_conv_igemm_wg64_f16");
    cv_expect_cpasync_one("sm_90", AK_BF16, 64, 3, 1, 1, "ak_conv_igemm_wg64_bf16");  /* transposed, stride 1 */
    cv_expect_cpasync_one("sm_90", AK_F16, 8, 3, 1, 0, "ak_conv_igemm_wg64_f16");     /* 8 channels */
    cv_expect_cpasync_one("sm_90", AK_F16, 64, 1, 2, 0, "ak_conv_igemm_wg64_f16");    /* 1 tap, stride 2 */
    cv_expect_cpasync_one("sm_90", AK_F16, 64, 3, 2, 1, "ak_conv_igemm_wg64_f16");    /* sub-pixel phases */
    cv_expect_cpasync_one("sm_90", AK_F16, 12, 3, 1, 0, "ak_conv_igemm_mma_f16");     /* 12 channels: element loader */
    cv_expect_cpasync_one("gfx950", AK_F16, 64, 3, 1, 0, "ak_conv_igemm_mma_f16");
    {
        ak_context* ctx = cv_plan_ctx("sm_90", 0);
        ak_conv_desc a;
        ak_conv_plan p;
        if (!ctx) return;
        memset(&a, 0, sizeof a);
        a.dtype = AK_BF16; a.ndim = 2; a.batch = 2; a.in_channels = 64; a.out_channels = 130;
        a.in[0] = 10; a.in[1] = 12; a.kernel[0] = 3; a.kernel[1] = 3;
        AKT_OK(ak_conv_plan_get(ctx, &a, &p));
        AKT_EQ_STR(p.kernel, "ak_conv_igemm_wg128_bf16");
        AKT_EQ_STR(p.path, "wgmma");
        AKT_EQ_INT(p.bm, 128); AKT_EQ_INT(p.bn, 128); AKT_EQ_INT(p.bk, 64);
        AKT_CHECK(strstr(p.reason, "copied channels-last") != NULL);
        a.out_channels = 64; a.groups = 2;   /* 32 out channels a group */
        AKT_OK(ak_conv_plan_get(ctx, &a, &p));
        AKT_EQ_STR(p.kernel, "ak_conv_igemm_wg64_bf16");
        a.groups = 0; a.dtype = AK_F32;
        AKT_OK(ak_conv_plan_get(ctx, &a, &p));
        AKT_EQ_STR(p.path, "simt");
        /* past the kernel's tap table (1024 taps): the mma.sync kernels */
        a.dtype = AK_BF16; a.ndim = 3; a.in[2] = 14; a.kernel[0] = 11; a.kernel[1] = 11; a.kernel[2] = 11; a.in[0] = 12; a.in[1] = 12;
        AKT_OK(ak_conv_plan_get(ctx, &a, &p));
        AKT_EQ_STR(p.path, "mma.sync");
        a.kernel[2] = 8;   /* 968 taps */
        AKT_OK(ak_conv_plan_get(ctx, &a, &p));
        AKT_EQ_STR(p.path, "wgmma");
        ak_context_destroy(ctx);
    }
}

static void test_conv_plan(void) {
    cv_expect_plan("sm_90", 0, AK_F16, 1, "ak_conv_igemm_wg64_f16", "wgmma");
    cv_expect_plan("sm_89", 0, AK_F16, 1, "ak_conv_igemm_mma_f16", "mma.sync");
    cv_expect_plan("sm_80", 0, AK_BF16, 2, "ak_conv_igemm_mma_bf16", "mma.sync");
    cv_expect_plan("sm_90", 0, AK_F32, 1, "ak_conv_igemm_simt_f32", "simt");
    cv_expect_plan("sm_90", 1, AK_F32, 1, "ak_conv_igemm_mma_x32", "mma.sync");
    cv_expect_plan("gfx90a", 0, AK_F32, 1, "ak_conv_igemm_mma_f32", "mfma");
    cv_expect_plan("gfx942", 1, AK_F16, 1, "ak_conv_igemm_mma_f16", "mfma");
    cv_expect_plan("gfx1100", 0, AK_BF16, 1, "ak_conv_igemm_mma_bf16", "wmma");
    cv_expect_plan("gfx1100", 0, AK_F32, 1, "ak_conv_igemm_simt_f32", "simt");
    cv_expect_plan("gfx906", 0, AK_F16, 1, "ak_conv_igemm_simt_f16", "simt");
    cv_expect_plan("sm_90", 0, AK_F16, 8, "ak_conv_dwv_f16", "depthwise");
    cv_expect_dw();
    cv_expect_pointwise();
    cv_expect_phases();
    cv_expect_cpasync();
    cv_expect_wg();
}

static void test_conv_errors(void) {
    ak_context* ctx = akt_cpu_context("ops_conv_err");
    ak_conv_desc a;
    float x[64], w[64], y[64];
    size_t out[3];
    if (!ctx) return;
    memset(x, 0, sizeof x); memset(w, 0, sizeof w);
    memset(&a, 0, sizeof a);
    a.dtype = AK_F32; a.ndim = 2; a.batch = 1; a.in_channels = 2; a.out_channels = 2;
    a.in[0] = 4; a.in[1] = 4; a.kernel[0] = 3; a.kernel[1] = 3; a.x = x; a.w = w; a.y = y;
    AKT_OK(ak_conv_output_shape(&a, out));
    AKT_EQ_INT(out[0], 2); AKT_EQ_INT(out[1], 2);
    AKT_OK(ak_conv(ctx, &a, NULL));
    AKT_ERR_ITEM(ak_conv(NULL, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_conv(ctx, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_conv_output_shape(&a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_conv_plan_get(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    a.ndim = 0; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.ndim = 4;
    AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.ndim = 2;
    a.batch = 0; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.batch = 1;
    a.in_channels = 0; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.in_channels = 2;
    a.kernel[1] = 0; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.kernel[1] = 3;
    a.groups = 3; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.groups = 0;
    a.out_channels = 3; a.groups = 2; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    a.out_channels = 2; a.groups = 0;
    a.kernel[0] = 5; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.kernel[0] = 3;
    a.dilation[0] = 2; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE); a.dilation[0] = 0;
    a.output_padding[0] = 1; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    a.transposed = 1; a.stride[0] = 1;
    AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);   /* op >= stride and dilation */
    a.stride[0] = 2;
    AKT_OK(ak_conv_output_shape(&a, out));
    AKT_EQ_INT(out[0], 3 * 2 + 2 + 1 + 1); AKT_EQ_INT(out[1], 6);
    a.transposed = 0; a.stride[0] = 0; a.output_padding[0] = 0;
    a.transposed = 2; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE); a.transposed = 0;
    a.layout = (ak_conv_layout)5; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    a.layout = AK_CONV_CHANNELS_FIRST;
    a.activation = 999; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE); a.activation = 0;
    a.dtype = AK_I32; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE); a.dtype = AK_F32;
    a.y = x + 4; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP); a.y = y;
    a.x = NULL; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT); a.x = x;
    a.w = NULL; AKT_ERR_ITEM(ak_conv(ctx, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT); a.w = w;
    /* 32-bit index math: one sample past 2^31 elements, the GEMM's rows past 2^31 */
    a.in_channels = 2; a.in[0] = 65536; a.in[1] = 65536;
    AKT_ERR_ITEM(ak_conv_output_shape(&a, out), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    a.in_channels = 1; a.out_channels = 1; a.in[0] = 40000; a.in[1] = 40000; a.batch = 4; a.kernel[0] = 1; a.kernel[1] = 1;
    AKT_ERR_ITEM(ak_conv_output_shape(&a, out), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    a.batch = 1; a.in[0] = (size_t)1 << 33;
    AKT_ERR_ITEM(ak_conv_output_shape(&a, out), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_SIZE_OVERFLOW);
    ak_context_destroy(ctx);
}

void akt_suite_ops_conv(void) {
    AKT_RUN(test_conv_random);
    AKT_RUN(test_conv_plan);
    AKT_RUN(test_conv_errors);
}
