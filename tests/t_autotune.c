/* Suites autotune (cpu backend) and gpu_autotune (runs with --gpu): kernel
 * timing (ak_bench_kernel: statistics, buffers restored before each trial)
 * and the autotuner (ak_autotune): the space enumerated in order, variants
 * left out by the geometry callback, the progress callback, budgets, bad
 * input, and the stored choice - a second call from a fresh context on the
 * same cache directory compiles only the chosen variant, times nothing and
 * picks the same one; another shape key or retune tunes again (on the cpu
 * backend through a test hook: there ak_autotune stores nothing, tested too).
 * On the GPU a deliberately wrong variant must be rejected by the check. */
#include "ak_test.h"
#include <stdlib.h>
#include <string.h>

static const char at_src[] =
    "extern \"C\" __global__ void at_saxpy(int n, float a, const float* x, float* y) {\n"
    "    int base = (blockIdx.x * BLOCK + threadIdx.x) * UNROLL;\n"
    "    for (int u = 0; u < UNROLL; u++) {\n"
    "        int i = base + u;\n"
    "        if (i < n) y[i] = BUG ? a * x[i] : a * x[i] + y[i];\n"
    "    }\n"
    "}\n";

/* y = a*x + y (args: int n, float a, const float* x, float* y) */
static void at_saxpy_cpu(const ak_launch_info* info, void** args) {
    int n = *(int*)args[0], i;
    float a = *(float*)args[1];
    const float* x = *(const float**)args[2];
    float* y = *(float**)args[3];
    (void)info;
    for (i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

typedef struct at_geo { int n; int calls; } at_geo;
/* grid covers n with BLOCK threads of UNROLL elements; BLOCK 32 with UNROLL 4 is left out */
static ak_result at_geometry(void* user, const ak_tune_point* p, ak_dim3* grid, ak_dim3* block, size_t* shmem) {
    at_geo* g = (at_geo*)user;
    long long b = p->ivalues[0], u = p->ivalues[1];
    g->calls++;
    if (b == 32 && u == 4) return AK_ERROR_INVALID_ARGUMENT;
    block->x = (unsigned)b; block->y = block->z = 1;
    grid->x = (unsigned)((g->n + b * u - 1) / (b * u)); grid->y = grid->z = 1;
    *shmem = 0;
    return AK_OK;
}

typedef struct at_prog { int calls, timed, skipped, wrong, failed, last_done; } at_prog;
static void at_progress(void* user, const ak_tune_progress* p) {
    at_prog* s = (at_prog*)user;
    s->calls++;
    if (p->status == AK_TUNE_TIMED) { s->timed++; AKT_CHECK(p->ms >= 0); AKT_CHECK(p->best_index >= 0); }
    if (p->status == AK_TUNE_SKIPPED) s->skipped++;
    if (p->status == AK_TUNE_WRONG) { s->wrong++; AKT_CHECK(p->message && p->message[0]); }
    if (p->status == AK_TUNE_FAILED) s->failed++;
    AKT_CHECK(p->done >= s->last_done && p->done <= p->total);
    s->last_done = p->done;
}

static const char* const at_blocks[] = { "32", "64", "128", "256" };
static const char* const at_unrolls[] = { "1", "4" };
static const char* const at_bug0[] = { "0" };
static const char* const at_bugs[] = { "0", "1" };

typedef struct at_problem {
    ak_context* ctx;
    int n;
    float* hx;
    float* hy;
    void *dx, *dy;
    ak_args args;
} at_problem;

static int at_setup(at_problem* p, ak_context* ctx, int n) {
    unsigned long long rng = akt_seed() ^ 0xa77u;
    int i;
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->n = n;
    p->hx = (float*)malloc((size_t)n * sizeof(float));
    p->hy = (float*)malloc((size_t)n * sizeof(float));
    if (!p->hx || !p->hy) return 0;
    for (i = 0; i < n; i++) { p->hx[i] = (float)akt_uniform(&rng, -1, 1); p->hy[i] = (float)akt_uniform(&rng, -1, 1); }
    if (ak_malloc(ctx, (size_t)n * 4, NULL, &p->dx) != AK_OK || ak_malloc(ctx, (size_t)n * 4, NULL, &p->dy) != AK_OK) return 0;
    if (ak_memcpy(ctx, p->dx, p->hx, (size_t)n * 4, ak_context_device(ctx)->backend == AK_BACKEND_CPU ? AK_H2H : AK_H2D) != AK_OK) return 0;
    if (ak_memcpy(ctx, p->dy, p->hy, (size_t)n * 4, ak_context_device(ctx)->backend == AK_BACKEND_CPU ? AK_H2H : AK_H2D) != AK_OK) return 0;
    ak_args_i32(&p->args, n);
    ak_args_f32(&p->args, 1.5f);
    ak_args_buffer(&p->args, p->dx, (size_t)n * 4, AK_F32, AK_ARG_IN);
    ak_args_buffer(&p->args, p->dy, (size_t)n * 4, AK_F32, AK_ARG_INOUT);
    return 1;
}
static void at_teardown(at_problem* p) {
    if (p->ctx) { ak_free(p->ctx, p->dx); ak_free(p->ctx, p->dy); }
    free(p->hx);
    free(p->hy);
}
/* y on the device equals y0 + k * a * x (k launches) */
static void at_expect_y(at_problem* p, int k) {
    float* y = (float*)malloc((size_t)p->n * 4);
    int i, bad = 0;
    AKT_CHECK(y != NULL);
    if (!y) return;
    AKT_OK(ak_memcpy(p->ctx, y, p->dy, (size_t)p->n * 4, ak_context_device(p->ctx)->backend == AK_BACKEND_CPU ? AK_H2H : AK_D2H));
    for (i = 0; i < p->n; i++) {
        float want = p->hy[i];
        int j;
        for (j = 0; j < k; j++) want = 1.5f * p->hx[i] + want;
        if (!(fabsf(y[i] - want) <= 1e-5f + 1e-5f * fabsf(want))) bad++;
    }
    AKT_CHECKF(bad == 0, "%d of %d elements of y are not y0 + %d*a*x", bad, p->n, k);
    free(y);
}

static void at_space(ak_tune_space* sp, ak_tune_param prm[3], at_geo* geo, const char* const* bugs, int nbugs) {
    memset(sp, 0, sizeof *sp);
    prm[0].name = "BLOCK"; prm[0].values = at_blocks; prm[0].count = 4;
    prm[1].name = "UNROLL"; prm[1].values = at_unrolls; prm[1].count = 2;
    prm[2].name = "BUG"; prm[2].values = bugs; prm[2].count = nbugs;
    sp->params = prm;
    sp->num_params = 3;
    sp->geometry = at_geometry;
    sp->geometry_user = geo;
    sp->geometry_key = "grid=cdiv(n,BLOCK*UNROLL) block=BLOCK";
}

/* ---- cpu suite ------------------------------------------------------------ */

static void test_bench_stats(void) {
    double t[4] = { 3, 1, 2, 4 };
    ak_bench_stats s;
    AKT_OK(ak_bench_stats_of(t, 4, &s));
    AKT_NEAR(s.mean, 2.5, 1e-12);
    AKT_NEAR(s.median, 2.5, 1e-12);
    AKT_NEAR(s.std, sqrt(1.25), 1e-12);
    AKT_NEAR(s.min, 1, 0);
    AKT_NEAR(s.max, 4, 0);
    AKT_EQ_INT(s.num_trials, 4);
    AKT_ERR_ITEM(ak_bench_stats_of(t, 0, &s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_bench_stats_of(NULL, 3, &s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
}

static void test_bench_kernel_restores(void) {
    ak_context* ctx = akt_cpu_context("at-bench");
    at_problem p;
    ak_kernel* k = NULL;
    ak_bench_options bo;
    ak_bench_stats st;
    double times[7];
    int i;
    if (!ctx) return;
    AKT_CHECK(at_setup(&p, ctx, 1000));
    AKT_OK(ak_kernel_get(ctx, at_src, "at_saxpy", NULL, &k));
    ak_kernel_set_cpu(k, at_saxpy_cpu, NULL);
    memset(&bo, 0, sizeof bo);
    bo.warmup = 2;
    bo.trials = 7;
    AKT_OK(ak_bench_kernel(k, (ak_dim3){ 4, 1, 1 }, (ak_dim3){ 256, 1, 1 }, 0, &p.args, &bo, times, &st));
    AKT_EQ_INT(st.num_trials, 7);
    AKT_CHECK(st.min <= st.median && st.median <= st.max && st.min >= 0 && st.std >= 0);
    for (i = 0; i < 7; i++) AKT_CHECK(times[i] >= st.min && times[i] <= st.max);
    at_expect_y(&p, 1); /* restored before each trial: one launch's result */
    bo.no_restore = 1;
    bo.trials = 3;
    bo.warmup = -1;
    AKT_OK(ak_bench_kernel(k, (ak_dim3){ 4, 1, 1 }, (ak_dim3){ 256, 1, 1 }, 0, &p.args, &bo, NULL, &st));
    at_expect_y(&p, 4); /* 1 + 3 launches, none undone */
    bo.trials = -2;
    AKT_ERR(ak_bench_kernel(k, (ak_dim3){ 4, 1, 1 }, (ak_dim3){ 256, 1, 1 }, 0, &p.args, &bo, NULL, &st), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_bench_kernel(NULL, (ak_dim3){ 4, 1, 1 }, (ak_dim3){ 256, 1, 1 }, 0, &p.args, NULL, NULL, &st), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ak_kernel_release(k);
    at_teardown(&p);
    ak_context_destroy(ctx);
}

/* Tune on one context, then again on fresh contexts sharing the cache dir. */
static void at_tune_twice(int gpu) {
    ak_context* ctx;
    at_problem p;
    ak_tune_param prm[3];
    ak_tune_space sp;
    ak_tune_options o;
    ak_tune_result res, res2;
    at_geo geo;
    at_prog prog;
    char dir[700];
    int total;
    if (gpu) {
        ak_config cfg = ak_config_default();
        ak_config_apply_env(&cfg);
        snprintf(dir, sizeof dir, "%s/at-gpu-cache", akt_tmpdir());
        cfg.cache_dir = dir;
        cfg.log_level = AK_LOG_NONE;
        AKT_OK(ak_context_create(&cfg, &ctx));
        if (!ctx) return;
        AKT_CHECKF(ak_context_device(ctx)->backend != AK_BACKEND_CPU, "gpu_autotune: the context landed on the cpu backend");
    } else {
        ctx = akt_cpu_context("at-tune");
        if (!ctx) return;
    }
    AKT_CHECK(at_setup(&p, ctx, 100003));
    memset(&geo, 0, sizeof geo);
    geo.n = p.n;
    at_space(&sp, prm, &geo, gpu ? at_bugs : at_bug0, gpu ? 2 : 1);
    total = 4 * 2 * (gpu ? 2 : 1);
    memset(&o, 0, sizeof o);
    memset(&prog, 0, sizeof prog);
    o.shape_key = "n=100003";
    o.cpu = at_saxpy_cpu;
    o.atol = 1e-5;
    o.rtol = 1e-5;
    o.trials = 3;
    o.warmup = 1;
    o.progress = at_progress;
    o.progress_user = &prog;
    AKT_OK(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res));
    AKT_EQ_INT(res.from_cache, 0);
    AKT_EQ_INT(res.stored, 1);
    AKT_EQ_INT(res.total, total);
    AKT_EQ_INT(prog.skipped, gpu ? 2 : 1);               /* BLOCK 32 x UNROLL 4 (x BUG) */
    AKT_EQ_INT(res.tried, total - prog.skipped);
    AKT_EQ_INT(prog.calls, total);
    AKT_EQ_INT(prog.wrong, gpu ? 7 : 0);                  /* every BUG=1 variant tried (8 less the one left out) */
    AKT_EQ_INT(res.timed, total - prog.skipped - prog.wrong);
    AKT_EQ_INT(res.rejected, prog.wrong + prog.failed);
    AKT_CHECK(res.kernel != NULL);
    AKT_CHECK(res.ms > 0 || !gpu);
    AKT_CHECK(strstr(res.defines, "-DBUG=0") != NULL);
    AKT_CHECK(!(res.point.ivalues[0] == 32 && res.point.ivalues[1] == 4));
    AKT_EQ_INT(res.block.x, (unsigned)res.point.ivalues[0]);
    at_expect_y(&p, 0);                                   /* the caller's buffers are left as they were */
    /* the chosen kernel launches as returned */
    AKT_OK(ak_launch(res.kernel, res.grid, res.block, res.shared_bytes, NULL, ak_args_params(&p.args)));
    AKT_OK(ak_stream_synchronize(ctx, NULL));
    at_expect_y(&p, 1);
    AKT_OK(ak_memcpy(ctx, p.dy, p.hy, (size_t)p.n * 4, gpu ? AK_H2D : AK_H2H));

    /* a fresh context on the same cache dir: stored choice, nothing timed */
    {
        ak_context* ctx2;
        ak_config cfg = *ak_context_config(ctx);
        at_prog prog2;
        ak_cache_stats cs;
        AKT_OK(ak_context_create(&cfg, &ctx2));
        if (ctx2) {
            at_problem p2;
            AKT_CHECK(at_setup(&p2, ctx2, p.n));
            memset(&prog2, 0, sizeof prog2);
            o.progress_user = &prog2;
            geo.calls = 0;
            AKT_OK(ak_autotune(ctx2, at_src, "at_saxpy", &sp, &p2.args, &o, &res2));
            AKT_EQ_INT(res2.from_cache, 1);
            AKT_EQ_INT(res2.tried, 0);
            AKT_EQ_INT(res2.timed, 0);
            AKT_EQ_INT(prog2.calls, 0);
            AKT_EQ_INT(geo.calls, 1);                      /* the chosen variant's geometry only */
            AKT_EQ_INT(res2.point.index, res.point.index);
            AKT_EQ_STR(res2.defines, res.defines);
            AKT_NEAR(res2.ms, res.ms, 1e-6 * res.ms + 1e-12);
            AKT_OK(ak_cache_stats_get(ctx2, &cs));
            AKT_CHECK(cs.compilations <= 1);                 /* the chosen variant only (a disk hit on a GPU) */
            AKT_OK(ak_launch(res2.kernel, res2.grid, res2.block, res2.shared_bytes, NULL, ak_args_params(&p2.args)));
            AKT_OK(ak_stream_synchronize(ctx2, NULL));
            at_expect_y(&p2, 1);
            ak_kernel_release(res2.kernel);

            /* another shape key: tuned again */
            o.shape_key = "n=100003 other";
            memset(&prog2, 0, sizeof prog2);
            AKT_OK(ak_autotune(ctx2, at_src, "at_saxpy", &sp, &p2.args, &o, &res2));
            AKT_EQ_INT(res2.from_cache, 0);
            AKT_CHECK(res2.timed > 0);
            ak_kernel_release(res2.kernel);
            /* retune: timed again even though a choice is stored */
            o.shape_key = "n=100003";
            o.retune = 1;
            memset(&prog2, 0, sizeof prog2);
            AKT_OK(ak_autotune(ctx2, at_src, "at_saxpy", &sp, &p2.args, &o, &res2));
            AKT_EQ_INT(res2.from_cache, 0);
            AKT_CHECK(res2.timed > 0);
            ak_kernel_release(res2.kernel);
            o.retune = 0;
            at_teardown(&p2);
            ak_context_destroy(ctx2);
        }
    }
    ak_kernel_release(res.kernel);
    at_teardown(&p);
    ak_context_destroy(ctx);
}
static void test_autotune_stores_choice(void) {
    akt_tune_store_on_host(1);
    at_tune_twice(0);
    akt_tune_store_on_host(0);
}

/* the cpu backend times the same C function for every variant: nothing is stored, the next call tunes again */
static void test_autotune_cpu_stores_nothing(void) {
    ak_context* ctx = akt_cpu_context("at-nostore");
    at_problem p;
    ak_tune_param prm[3];
    ak_tune_space sp;
    ak_tune_options o;
    ak_tune_result res;
    at_geo geo;
    if (!ctx) return;
    AKT_CHECK(at_setup(&p, ctx, 1000));
    memset(&geo, 0, sizeof geo);
    geo.n = p.n;
    at_space(&sp, prm, &geo, at_bug0, 1);
    memset(&o, 0, sizeof o);
    o.cpu = at_saxpy_cpu;
    o.trials = 2;
    o.shape_key = "nostore";
    AKT_OK(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res));
    AKT_EQ_INT(res.stored, 0);
    AKT_CHECK(res.timed > 0);
    ak_kernel_release(res.kernel);
    AKT_OK(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res));
    AKT_EQ_INT(res.from_cache, 0);
    AKT_CHECK(res.timed > 0);
    ak_kernel_release(res.kernel);
    at_teardown(&p);
    ak_context_destroy(ctx);
}

static void test_autotune_budget(void) {
    ak_context* ctx = akt_cpu_context("at-budget");
    at_problem p;
    ak_tune_param prm[3];
    ak_tune_space sp;
    ak_tune_options o;
    ak_tune_result res;
    at_geo geo;
    if (!ctx) return;
    AKT_CHECK(at_setup(&p, ctx, 5000));
    memset(&geo, 0, sizeof geo);
    geo.n = p.n;
    at_space(&sp, prm, &geo, at_bug0, 1);
    memset(&o, 0, sizeof o);
    o.cpu = at_saxpy_cpu;
    o.no_store = 1;
    o.trials = 2;
    o.max_variants = 3;
    AKT_OK(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res));
    AKT_EQ_INT(res.tried, 2); /* variants 0..2; 1 (BLOCK 32, UNROLL 4) is left out by the geometry */
    AKT_CHECK(res.point.index == 0 || res.point.index == 2);
    ak_kernel_release(res.kernel);
    o.max_variants = 0;
    o.max_ms = 1e-9; /* expires at once: one variant is still tried */
    AKT_OK(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res));
    AKT_EQ_INT(res.timed, 1);
    AKT_EQ_INT(res.from_cache, 0);
    ak_kernel_release(res.kernel);
    /* no_store: nothing was stored, so a normal call tunes */
    o.max_ms = 0;
    o.no_store = 0;
    o.shape_key = "budget";
    AKT_OK(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res));
    AKT_EQ_INT(res.from_cache, 0);
    ak_kernel_release(res.kernel);
    /* after a purge the choice is gone too */
    AKT_OK(ak_cache_purge(ctx));
    AKT_OK(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res));
    AKT_EQ_INT(res.from_cache, 0);
    ak_kernel_release(res.kernel);
    AKT_OK(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res));
    AKT_EQ_INT(res.from_cache, 1);
    ak_kernel_release(res.kernel);
    at_teardown(&p);
    ak_context_destroy(ctx);
}

static void test_autotune_bad_input(void) {
    ak_context* ctx = akt_cpu_context("at-bad");
    at_problem p;
    ak_tune_param prm[3];
    ak_tune_space sp;
    ak_tune_options o;
    ak_tune_result res;
    at_geo geo;
    static const char* const bad_vals[] = { "1", "" };
    if (!ctx) return;
    AKT_CHECK(at_setup(&p, ctx, 100));
    memset(&geo, 0, sizeof geo);
    geo.n = p.n;
    memset(&o, 0, sizeof o);
    o.cpu = at_saxpy_cpu;
    o.no_store = 1;
    at_space(&sp, prm, &geo, at_bug0, 1);
    AKT_ERR_ITEM(ak_autotune(NULL, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_autotune(ctx, at_src, "at_saxpy", &sp, NULL, &o, &res), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    prm[0].name = "9BLOCK";
    AKT_ERR(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "9BLOCK");
    prm[0].name = "BLOCK";
    prm[1].values = bad_vals;
    AKT_ERR_ITEM(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    prm[1].values = at_unrolls;
    prm[1].count = 0;
    AKT_ERR(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_INVALID_ARGUMENT);
    prm[1].count = 2;
    sp.num_params = AK_TUNE_MAX_PARAMS + 1;
    AKT_ERR(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_INVALID_ARGUMENT);
    sp.num_params = 3;
    sp.geometry = NULL; /* and no fixed geometry */
    AKT_ERR_ITEM(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
    sp.geometry = at_geometry;
    o.max_variants = -1;
    AKT_ERR(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_INVALID_ARGUMENT);
    o.max_variants = 0;
    /* one name, two parameters: the geometry would see one value, the compiler the other */
    prm[1].name = "BLOCK";
    AKT_ERR(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "both named BLOCK");
    prm[1].name = "UNROLL";
    {   /* a parameter also defined by a compile option */
        const char* opts[2] = { "-DOTHER=1", "-DUNROLL=4" };
        o.options = opts;
        o.num_options = 2;
        AKT_ERR(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_INVALID_ARGUMENT);
        AKT_CONTAINS(ak_last_error(), "-DUNROLL=4");
        o.options = NULL;
        o.num_options = 0;
    }
    {   /* ak_args.count is public: a bad value is refused, nothing written past the arrays */
        ak_args bad = p.args;
        char want[32];
        bad.count = AK_MAX_ARGS + 1;
        snprintf(want, sizeof want, "ak_args.count = %d", AK_MAX_ARGS + 1);
        AKT_ERR_ITEM(ak_autotune(ctx, at_src, "at_saxpy", &sp, &bad, &o, &res), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
        AKT_CONTAINS(ak_last_error(), want);
        AKT_CHECK(ak_args_params(&bad) == NULL);
        bad = p.args;
        bad.count = -1;
        AKT_CHECK(ak_args_params(&bad) == NULL);
    }
    /* on the cpu backend a variant without a CPU implementation cannot run */
    o.cpu = NULL;
    AKT_ERR_ITEM(ak_autotune(ctx, at_src, "at_saxpy", &sp, &p.args, &o, &res), AK_ERROR_OPTIMIZATION, AK_ERRITEM_TUNING);
    AKT_ITEM(AK_ERRITEM_TUNING); AKT_CONTAINS(ak_last_error(), "CPU implementation"); /* the variant's own failure, named */
    AKT_CHECK(res.kernel == NULL);
    at_teardown(&p);
    ak_context_destroy(ctx);
}

void akt_suite_autotune(void) {
    AKT_RUN(test_bench_stats);
    AKT_RUN(test_bench_kernel_restores);
    AKT_RUN(test_autotune_stores_choice);
    AKT_RUN(test_autotune_cpu_stores_nothing);
    akt_tune_store_on_host(1);   /* its stored-choice half, on the cpu backend */
    AKT_RUN(test_autotune_budget);
    akt_tune_store_on_host(0);
    AKT_RUN(test_autotune_bad_input);
}

/* ---- GPU suite ------------------------------------------------------------ */
static void test_gpu_autotune_stores_choice(void) { at_tune_twice(1); }
void akt_suite_gpu_autotune(void) {
    AKT_RUN(test_gpu_autotune_stores_choice);
}
