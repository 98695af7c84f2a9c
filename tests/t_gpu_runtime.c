/* Suite gpu_runtime (runs with --gpu, needs a GPU): the runtime half of
 * amdkit on the real device. A context made with AK_BACKEND_AUTO must land on
 * a GPU backend (cpu is a failure here). Then: device info and the fp16/bf16
 * probe; compile + launch of saxpy against a CPU computation (every
 * element); ak_check with a right and a deliberately wrong CPU
 * implementation; a compile error with its log; memory-cache hit, disk hit
 * from a second context on the same cache dir; launch errors (block too big,
 * dynamic shared memory over the limit, and the limit itself working); a
 * kernel name missing from the module; the pool on device memory (reuse,
 * the pool_size limit and its OOM path, double free / foreign pointer,
 * cross-stream reuse only after the freeing stream's work); copies H2D/D2H/D2D
 * sync and on a stream, memset, pinned host memory; streams with priorities;
 * events around real work; GPU-timed profiling regions and the Chrome trace
 * export parsed as JSON. Every check runs on fresh random data (akt_seed).
 *
 * Build with -DAKT_GPU_ON_CPU to dry-run this suite's harness on the cpu
 * backend (GPU-only checks are then left out). */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static ak_context* g_ctx;          /* the suite's device context */
static unsigned long long g_rng;
static char g_cache[600];          /* its cache directory (shared with the second contexts) */

#define GR_MIB ((size_t)1 << 20)

/* ---- kernels ------------------------------------------------------------------ */
static const char gr_saxpy_src[] =
    "extern \"C\" __global__ void akt_saxpy(int n, float a, const float* x, float* y) {\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

/* x[i] = v + i after spinning `spin` (ns of %globaltimer on NVIDIA, clock64
 * cycles elsewhere): a kernel that is still running when the host moves on. */
static const char gr_spin_src[] =
    "extern \"C\" __global__ void akt_spin_fill(float* x, int n, float v, unsigned long long spin) {\n"
    "#if defined(AK_NVIDIA)\n"
    "    unsigned long long t0, t;\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
    "    do { asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); } while (t - t0 < spin);\n"
    "#else\n"
    "    long long t0 = clock64();\n"
    "    while ((unsigned long long)(clock64() - t0) < spin) { }\n"
    "#endif\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = v + (float)i;\n"
    "}\n";

/* Fills all of the dynamic shared memory, reports its first and last word. */
static const char gr_shmem_src[] =
    "extern \"C\" __global__ void akt_shmem(float* out, int nf, float v) {\n"
    "    extern __shared__ float sm[];\n"
    "    for (int i = threadIdx.x; i < nf; i += blockDim.x) sm[i] = v + (float)i;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) { out[0] = sm[0]; out[1] = sm[nf - 1]; }\n"
    "}\n";

/* A syntax error on line 2 of the user's source. */
static const char gr_bad_src[] =
    "extern \"C\" __global__ void akt_bad(float* x) {\n"
    "    x[0] = 1.0f + ;\n"
    "}\n";

/* CPU implementations (the cpu dry run and ak_check). */
static void gr_saxpy_cpu(const ak_launch_info* info, void** args) {
    int n = *(const int*)args[0], i;
    float a = *(const float*)args[1];
    const float* x = *(float* const*)args[2];
    float* y = *(float**)args[3];
    (void)info;
    for (i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
static void gr_saxpy_cpu_wrong(const ak_launch_info* info, void** args) {
    int n = *(const int*)args[0], i;
    float a = *(const float*)args[1];
    const float* x = *(float* const*)args[2];
    float* y = *(float**)args[3];
    (void)info;
    for (i = 0; i < n; i++) y[i] = a * x[i] - y[i];   /* the sign bug */
}
static void gr_spin_cpu(const ak_launch_info* info, void** args) {
    float* x = *(float**)args[0];
    int n = *(const int*)args[1], i;
    float v = *(const float*)args[2];
    (void)info;
    for (i = 0; i < n; i++) x[i] = v + (float)i;
}
static void gr_shmem_cpu(const ak_launch_info* info, void** args) {
    float* out = *(float**)args[0];
    int nf = *(const int*)args[1];
    float v = *(const float*)args[2];
    (void)info;
    out[0] = v;
    out[1] = v + (float)(nf - 1);
}

/* ---- helpers -------------------------------------------------------------------- */
static int gr_gpu(ak_context* c) { return ak_context_device(c)->backend != AK_BACKEND_CPU; }

/* A context on the device (AUTO), the suite's cache dir, the given pool size
 * and profiling switch; the environment is applied first, then the fields the
 * tests depend on are pinned. */
static ak_context* gr_context(long long pool_size, int profiling) {
    ak_config cfg = ak_config_default();
    ak_context* c = NULL;
    ak_result r;
    if (ak_config_apply_env(&cfg) != AK_OK) cfg = ak_config_default();
    cfg.backend = AK_BACKEND_AUTO;
    cfg.cache_dir = g_cache;
    cfg.cache_enabled = 1;
    cfg.disk_cache = 1;
    cfg.cache_capacity = 100;
    cfg.pool_enabled = 1;
    cfg.pool_size = pool_size;
    cfg.max_memory_fraction = 0.9;
    cfg.oom_protection = 1;
    cfg.profiling = profiling;
    cfg.log_level = AK_LOG_ERROR;
    r = ak_context_create(&cfg, &c);
    if (r != AK_OK) {
        akt_fail(__FILE__, __LINE__, "ak_context_create(AUTO): %s: %s", ak_result_name(r), ak_last_error());
        return NULL;
    }
#ifndef AKT_GPU_ON_CPU
    if (!gr_gpu(c)) {
        int n = 0, i;
        const ak_backend_report* rep = ak_context_backend_reports(c, &n);
        akt_fail(__FILE__, __LINE__, "no GPU: AK_BACKEND_AUTO fell back to the cpu backend; the gpu_runtime suite needs a GPU");
        for (i = 0; rep && i < n; i++)
            akt_fail(__FILE__, __LINE__, "  %s: %s", ak_backend_name(rep[i].backend), rep[i].reason);
        ak_context_destroy(c);
        return NULL;
    }
#endif
    return c;
}

static int g_setup_failed;
static int gr_setup(void) {
    if (!g_ctx && g_setup_failed) {
        akt_fail(__FILE__, __LINE__, "no GPU context (see the first test of this suite)");
        return 0;
    }
    if (!g_ctx) {
        snprintf(g_cache, sizeof g_cache, "%s/gpu_runtime_cache", akt_tmpdir());
        g_rng = akt_seed() ^ 0x52554E54494D45ull;
        g_ctx = gr_context(0, 0);
        g_setup_failed = g_ctx == NULL;
    }
    return g_ctx != NULL;
}

/* Random floats in [lo, hi), never near zero. */
static void gr_random(float* p, size_t n, double lo, double hi) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(&g_rng, lo, hi);
        if (fabs(v) < 0.01) v = 0.5;
        p[i] = (float)v;
    }
}
static unsigned char gr_byte(void) { return (unsigned char)(1 + (int)akt_uniform(&g_rng, 0, 254.999)); }

/* Count elements of got that differ from ref by more than tol*(1+|ref|); report the first. */
static size_t gr_compare(const char* what, const float* got, const float* ref, size_t n, double tol) {
    size_t i, bad = 0;
    for (i = 0; i < n; i++) {
        double g = got[i], r = ref[i];
        if (!(fabs(g - r) <= tol * (1.0 + fabs(r)))) {
            if (!bad) akt_fail(__FILE__, __LINE__, "%s: [%zu] = %.9g, expected %.9g", what, i, g, r);
            bad++;
        }
    }
    return bad;
}

static ak_dim3 gr_dim(unsigned x) { ak_dim3 d; d.x = x; d.y = 1; d.z = 1; return d; }

static ak_kernel* gr_kernel(ak_context* c, const char* src, const char* name, ak_cpu_kernel_fn cpu) {
    ak_kernel* k = NULL;
    ak_result r = ak_kernel_get(c, src, name, NULL, &k);
    if (r != AK_OK) {
        akt_fail(__FILE__, __LINE__, "ak_kernel_get(%s): %s: %s", name, ak_result_name(r), ak_last_error());
        return NULL;
    }
    ak_kernel_set_cpu(k, cpu, NULL);
    return k;
}

/* y = a*x + y on the device of c (stream s) for fresh random data; check every element. */
static void gr_saxpy_run(ak_context* c, ak_kernel* k, ak_stream* s, int n, const char* what) {
    float *hx = (float*)malloc((size_t)n * sizeof(float)), *hy = (float*)malloc((size_t)n * sizeof(float));
    float *ref = (float*)malloc((size_t)n * sizeof(float)), *out = (float*)malloc((size_t)n * sizeof(float));
    void *dx = NULL, *dy = NULL;
    float a = (float)akt_uniform(&g_rng, -3, 3);
    ak_args args;
    int i;
    if (!hx || !hy || !ref || !out) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    gr_random(hx, (size_t)n, -4, 4);
    gr_random(hy, (size_t)n, -4, 4);
    for (i = 0; i < n; i++) ref[i] = a * hx[i] + hy[i];
    for (i = 0; i < n; i++) out[i] = -12345.0f;
    AKT_OK(ak_malloc(c, (size_t)n * sizeof(float), s, &dx));
    AKT_OK(ak_malloc(c, (size_t)n * sizeof(float), s, &dy));
    if (!dx || !dy) goto done;
    AKT_OK(ak_memcpy(c, dx, hx, (size_t)n * sizeof(float), AK_H2D));
    AKT_OK(ak_memcpy(c, dy, hy, (size_t)n * sizeof(float), AK_H2D));
    memset(&args, 0, sizeof args);
    ak_args_i32(&args, n);
    ak_args_f32(&args, a);
    ak_args_ptr(&args, dx);
    ak_args_ptr(&args, dy);
    AKT_OK(ak_launch(k, gr_dim((unsigned)((n + 255) / 256 < 2048 ? (n + 255) / 256 : 2048)), gr_dim(256), 0, s,
                     ak_args_params(&args)));
    AKT_OK(ak_stream_synchronize(c, s));
    AKT_OK(ak_memcpy(c, out, dy, (size_t)n * sizeof(float), AK_D2H));
    AKT_CHECKF(gr_compare(what, out, ref, (size_t)n, 1e-5) == 0, "%s: saxpy result wrong (n=%d)", what, n);
done:
    ak_free(c, dx);
    ak_free(c, dy);
    free(hx); free(hy); free(ref); free(out);
}

/* A spin value for about `ms` milliseconds of kernel time (at least that on NVIDIA). */
static unsigned long long gr_spin(ak_context* c, double ms) {
    const ak_device_info* d = ak_context_device(c);
    if (d->backend == AK_BACKEND_CUDA) return (unsigned long long)(ms * 1e6);
    return (unsigned long long)(ms * (d->clock_khz > 0 ? (double)d->clock_khz : 2e6));
}

static double gr_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- a small JSON validator (the Chrome trace must parse) --------------------------- */
typedef struct gr_json { const char* s; size_t i, n; int depth; } gr_json;
static void gj_ws(gr_json* j) {
    while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r')) j->i++;
}
static int gj_value(gr_json* j);
static int gj_string(gr_json* j) {
    if (j->i >= j->n || j->s[j->i] != '"') return 0;
    j->i++;
    while (j->i < j->n) {
        unsigned char c = (unsigned char)j->s[j->i++];
        if (c == '"') return 1;
        if (c < 0x20) return 0;
        if (c == '\\') {
            if (j->i >= j->n) return 0;
            c = (unsigned char)j->s[j->i++];
            if (c == 'u') {
                int k;
                for (k = 0; k < 4; k++, j->i++)
                    if (j->i >= j->n || !strchr("0123456789abcdefABCDEF", j->s[j->i]) || !j->s[j->i]) return 0;
            } else if (!strchr("\"\\/bfnrt", c) || !c) {
                return 0;
            }
        }
    }
    return 0;
}
static int gj_digits(gr_json* j) {
    size_t s = j->i;
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
    return j->i > s;
}
static int gj_number(gr_json* j) {
    if (j->i < j->n && j->s[j->i] == '-') j->i++;
    if (j->i < j->n && j->s[j->i] == '0') j->i++;
    else if (!gj_digits(j)) return 0;
    if (j->i < j->n && j->s[j->i] == '.') { j->i++; if (!gj_digits(j)) return 0; }
    if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
        j->i++;
        if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-')) j->i++;
        if (!gj_digits(j)) return 0;
    }
    return 1;
}
static int gj_lit(gr_json* j, const char* lit) {
    size_t n = strlen(lit);
    if (j->n - j->i < n || strncmp(j->s + j->i, lit, n)) return 0;
    j->i += n;
    return 1;
}
static int gj_value(gr_json* j) {
    char c;
    int ok = 1;
    gj_ws(j);
    if (j->i >= j->n || j->depth > 64) return 0;
    c = j->s[j->i];
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->depth++;
        j->i++;
        gj_ws(j);
        if (j->i < j->n && j->s[j->i] == close) { j->i++; j->depth--; return 1; }
        for (;;) {
            if (c == '{') {
                gj_ws(j);
                if (!gj_string(j)) return 0;
                gj_ws(j);
                if (j->i >= j->n || j->s[j->i] != ':') return 0;
                j->i++;
            }
            if (!gj_value(j)) return 0;
            gj_ws(j);
            if (j->i < j->n && j->s[j->i] == ',') { j->i++; continue; }
            if (j->i < j->n && j->s[j->i] == close) { j->i++; break; }
            return 0;
        }
        j->depth--;
        return ok;
    }
    if (c == '"') return gj_string(j);
    if (c == 't') return gj_lit(j, "true");
    if (c == 'f') return gj_lit(j, "false");
    if (c == 'n') return gj_lit(j, "null");
    return gj_number(j);
}
static int gr_json_valid(const char* s, size_t n) {
    gr_json j;
    j.s = s; j.i = 0; j.n = n; j.depth = 0;
    if (!gj_value(&j)) return 0;
    gj_ws(&j);
    return j.i == j.n;
}
static char* gr_read_file(const char* path, size_t* n) {
    FILE* f = fopen(path, "rb");
    char* buf = NULL;
    long len;
    *n = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (char*)malloc((size_t)len + 1)) != NULL) {
        *n = fread(buf, 1, (size_t)len, f);
        buf[*n] = 0;
    }
    fclose(f);
    return buf;
}

/* ---- tests ---------------------------------------------------------------------------- */
static void test_gpu_device_info(void) {
    const ak_device_info* d;
    if (!gr_setup()) return;
    d = ak_context_device(g_ctx);
    AKT_CHECK(d != NULL);
    if (!d) return;
    printf("    device: %s (%s, %s, %d CUs, wave %d, %.1f GiB, %s)\n", d->name, d->arch, ak_backend_name(d->backend),
           d->compute_units, d->wave_size, (double)d->mem_total / (double)(1u << 30), d->compiler_version);
    AKT_CHECKF(d->name[0] != 0, "device name is empty");
    AKT_CHECKF(d->compute_units > 0, "compute_units = %d", d->compute_units);
    AKT_CHECKF(d->mem_total > ((size_t)1 << 30), "mem_total = %zu bytes (expected over 1 GiB)", d->mem_total);
    AKT_CHECKF(d->device_count >= 1, "device_count = %d", d->device_count);
    AKT_CHECKF(d->arch[0] != 0, "arch is empty");
    AKT_CHECKF(d->shared_mem_per_block >= 16384, "shared_mem_per_block = %zu", d->shared_mem_per_block);
    if (gr_gpu(g_ctx)) {   /* the cpu dry run has wave 1 and no table row */
        AKT_CHECKF(d->wave_size == 32 || d->wave_size == 64, "wave_size = %d", d->wave_size);
        AKT_CHECKF(d->arch_info != NULL, "arch '%s' (base '%s') is not in the architecture table", d->arch, d->arch_base);
        if (d->arch_info)
            AKT_CHECKF(d->wave_size == d->arch_info->wave_size || d->wave_size == d->arch_info->wave_size_alt,
                       "device wave %d vs table %s wave %d/%d", d->wave_size, d->arch_info->name, d->arch_info->wave_size,
                       d->arch_info->wave_size_alt);
        AKT_CHECKF(d->compiler_version[0] != 0, "compiler_version is empty");
        AKT_CHECKF(d->mem_free > 0 && d->mem_free <= d->mem_total, "mem_free %zu of %zu", d->mem_free, d->mem_total);
        if (d->backend == AK_BACKEND_CUDA) AKT_CHECKF(!strncmp(d->arch, "sm_", 3), "cuda arch '%s'", d->arch);
        if (d->backend == AK_BACKEND_HIP) AKT_CHECKF(!strncmp(d->arch, "gfx", 3), "hip arch '%s'", d->arch);
    }
    AKT_OK(ak_context_probe(g_ctx));
    d = ak_context_device(g_ctx);
    AKT_CHECKF(d->fp16 == 1, "fp16 probe = %d (%s)", d->fp16, ak_last_error());
    AKT_CHECKF(d->bf16 == 1, "bf16 probe = %d (%s)", d->bf16, ak_last_error());
    AKT_OK(ak_context_refresh_memory(g_ctx));
    AKT_CHECK(ak_context_device(g_ctx)->mem_free > 0);
}

static void test_gpu_saxpy(void) {
    ak_kernel* k;
    if (!gr_setup()) return;
    k = gr_kernel(g_ctx, gr_saxpy_src, "akt_saxpy", gr_saxpy_cpu);
    if (!k) return;
    gr_saxpy_run(g_ctx, k, NULL, 1, "saxpy n=1");
    gr_saxpy_run(g_ctx, k, NULL, 1000 + (int)akt_uniform(&g_rng, 0, 1000), "saxpy small");
    gr_saxpy_run(g_ctx, k, NULL, (1 << 22) + 3 + (int)akt_uniform(&g_rng, 0, 64), "saxpy 4M (grid-stride)");
    ak_kernel_release(k);
}

static void test_gpu_check_helper(void) {
    const int n = 100000 + (int)akt_uniform(&g_rng, 0, 5000);
    float* hx = (float*)malloc((size_t)n * sizeof(float));
    float* hy = (float*)malloc((size_t)n * sizeof(float));
    void *dx = NULL, *dy = NULL;
    ak_kernel* k = NULL;
    ak_args args;
    ak_check_result cr;
    float a;
    if (!gr_setup() || !hx || !hy) { free(hx); free(hy); return; }
    k = gr_kernel(g_ctx, gr_saxpy_src, "akt_saxpy", gr_saxpy_cpu);
    AKT_OK(ak_malloc(g_ctx, (size_t)n * sizeof(float), NULL, &dx));
    AKT_OK(ak_malloc(g_ctx, (size_t)n * sizeof(float), NULL, &dy));
    if (!k || !dx || !dy) goto done;
    /* the right CPU implementation: passes */
    gr_random(hx, (size_t)n, -4, 4);
    gr_random(hy, (size_t)n, -4, 4);
    a = (float)akt_uniform(&g_rng, 0.5, 2.5);
    AKT_OK(ak_memcpy(g_ctx, dx, hx, (size_t)n * sizeof(float), AK_H2D));
    AKT_OK(ak_memcpy(g_ctx, dy, hy, (size_t)n * sizeof(float), AK_H2D));
    memset(&args, 0, sizeof args);
    ak_args_i32(&args, n);
    ak_args_f32(&args, a);
    ak_args_buffer(&args, dx, (size_t)n * sizeof(float), AK_F32, AK_ARG_IN);
    ak_args_buffer(&args, dy, (size_t)n * sizeof(float), AK_F32, AK_ARG_INOUT);
    memset(&cr, 0xAB, sizeof cr);
    AKT_OK(ak_check(k, gr_dim(256), gr_dim(256), 0, &args, 1e-5, 1e-5, &cr));
    AKT_CHECKF(cr.passed == 1 && cr.mismatches == 0, "ak_check with the right CPU code: passed %d, %zu mismatches, max abs %g at [%zu]",
               cr.passed, cr.mismatches, cr.max_abs_err, cr.worst_index);
    AKT_CHECKF(cr.max_abs_err <= 1e-4, "max_abs_err %g", cr.max_abs_err);
    /* a deliberately wrong CPU implementation: fails, every element flagged (on
     * the cpu dry run the launch itself runs the CPU code, so there is nothing to compare) */
    if (!gr_gpu(g_ctx)) goto done;
    gr_random(hx, (size_t)n, -4, 4);
    gr_random(hy, (size_t)n, -4, 4);
    AKT_OK(ak_memcpy(g_ctx, dx, hx, (size_t)n * sizeof(float), AK_H2D));
    AKT_OK(ak_memcpy(g_ctx, dy, hy, (size_t)n * sizeof(float), AK_H2D));
    ak_kernel_set_cpu(k, gr_saxpy_cpu_wrong, NULL);
    memset(&cr, 0, sizeof cr);
    cr.passed = 1;
    AKT_OK(ak_check(k, gr_dim(256), gr_dim(256), 0, &args, 1e-5, 1e-5, &cr));
    AKT_CHECKF(cr.passed == 0, "ak_check with a wrong CPU implementation passed");
    AKT_CHECKF(cr.mismatches > 0, "ak_check with a wrong CPU implementation: 0 mismatches");
    AKT_CHECKF(cr.mismatches == (size_t)n, "wrong CPU implementation: %zu mismatches of %d (every y is non-zero)", cr.mismatches, n);
    AKT_CHECKF(cr.worst_arg == 3, "worst_arg %d, expected 3 (y)", cr.worst_arg);
    AKT_CHECKF(cr.max_abs_err > 0.01, "max_abs_err %g", cr.max_abs_err);
done:
    ak_free(g_ctx, dx);
    ak_free(g_ctx, dy);
    ak_kernel_release(k);
    free(hx); free(hy);
}

static void test_gpu_compile_error(void) {
    ak_kernel* k = NULL;
    ak_compile_options o;
    const ak_error_info* info;
    ak_cache_stats s0, s1;
    if (!gr_setup()) return;
    if (!gr_gpu(g_ctx)) { akt_skip("cpu dry run: no compiler"); return; }
    memset(&o, 0, sizeof o);
    o.source_name = "akt_bad.hip";
    o.opt_level = AK_OPT_AUTO;   /* (0 would be AK_OPT_CONSERVATIVE) */
    AKT_OK(ak_cache_stats_get(g_ctx, &s0));
    AKT_ERR(ak_kernel_get(g_ctx, gr_bad_src, "akt_bad", &o, &k), AK_ERROR_COMPILATION);
    AKT_CHECK(k == NULL);
    info = ak_last_error_info();
    AKT_EQ_INT(info->result, AK_ERROR_COMPILATION);
    AKT_CHECKF(info->log[0] != 0, "compile error without a log");
    AKT_CONTAINS(info->log, "error");
    /* NVRTC names the program in its log ("akt_bad.hip(2): error ..."); hipRTC says "CompileSource:2:19" */
    if (ak_context_device(g_ctx)->backend == AK_BACKEND_CUDA) AKT_CONTAINS(info->log, "akt_bad.hip");
    /* the line number is the user's line 2, not shifted by the prelude */
    AKT_CHECKF(strstr(info->log, "(2)") || strstr(info->log, ":2:"), "log does not point at line 2: %s", info->log);
    AKT_CHECKF(info->options[0] != 0, "compile error without the options");
    AKT_CONTAINS(info->options, "AK_WAVE");
    AKT_EQ_STR(info->source_name, "akt_bad.hip");
    AKT_CONTAINS(info->message, "akt_bad");
    /* a failed compile is not cached: a second try compiles again */
    AKT_ERR(ak_kernel_get(g_ctx, gr_bad_src, "akt_bad", &o, &k), AK_ERROR_COMPILATION);
    AKT_OK(ak_cache_stats_get(g_ctx, &s1));
    AKT_EQ_INT(s1.compilations - s0.compilations, 2);
}

static void test_gpu_cache_memory_and_disk(void) {
    char src[1024];
    ak_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL, *k4 = NULL;
    ak_cache_stats s0, s1, s2, t0, t1;
    ak_context* c2 = NULL;
    if (!gr_setup()) return;
    /* a source no cache level has seen (seeded comment) */
    snprintf(src, sizeof src, "/* gpu_runtime cache test, seed %llu */\n%s", akt_seed(), gr_saxpy_src);
    AKT_OK(ak_cache_stats_get(g_ctx, &s0));
    AKT_OK(ak_kernel_get(g_ctx, src, "akt_saxpy", NULL, &k1));
    if (!k1) return;
    ak_kernel_set_cpu(k1, gr_saxpy_cpu, NULL);
    AKT_OK(ak_cache_stats_get(g_ctx, &s1));
    if (gr_gpu(g_ctx)) {
        AKT_EQ_INT(ak_kernel_cache_source(k1), AK_CACHE_MISS);
        AKT_EQ_INT(s1.compilations - s0.compilations, 1);
        AKT_EQ_INT(s1.misses - s0.misses, 1);
        AKT_CHECKF(s1.disk_enabled == 1, "disk cache not enabled in %s", s1.dir);
    }
    /* second get: memory hit, no compile */
    AKT_OK(ak_kernel_get(g_ctx, src, "akt_saxpy", NULL, &k2));
    if (!k2) { ak_kernel_release(k1); return; }
    ak_kernel_set_cpu(k2, gr_saxpy_cpu, NULL);
    AKT_OK(ak_cache_stats_get(g_ctx, &s2));
    if (gr_gpu(g_ctx)) {
        AKT_EQ_INT(ak_kernel_cache_source(k2), AK_CACHE_MEMORY);
        AKT_EQ_INT(s2.memory_hits - s1.memory_hits, 1);
        AKT_EQ_INT(s2.compilations, s1.compilations);
    }
    gr_saxpy_run(g_ctx, k2, NULL, 4099, "saxpy through a memory hit");
    /* a second context on the same cache directory: disk hit, nothing compiled */
    c2 = gr_context(0, 0);
    if (c2) {
        AKT_OK(ak_cache_stats_get(c2, &t0));
        AKT_OK(ak_kernel_get(c2, src, "akt_saxpy", NULL, &k3));
        AKT_OK(ak_cache_stats_get(c2, &t1));
        if (k3) {
            ak_kernel_set_cpu(k3, gr_saxpy_cpu, NULL);
            if (gr_gpu(c2)) {
                AKT_EQ_INT(ak_kernel_cache_source(k3), AK_CACHE_DISK);
                AKT_EQ_INT(t1.disk_hits - t0.disk_hits, 1);
                AKT_EQ_INT(t1.compilations - t0.compilations, 0);
            }
            gr_saxpy_run(c2, k3, NULL, 77777, "saxpy loaded from the disk cache (second context)");
            AKT_OK(ak_kernel_get(c2, src, "akt_saxpy", NULL, &k4));
            if (k4 && gr_gpu(c2)) AKT_EQ_INT(ak_kernel_cache_source(k4), AK_CACHE_MEMORY);
        }
        ak_kernel_release(k4);
        ak_kernel_release(k3);
        ak_context_destroy(c2);
    }
    ak_kernel_release(k2);
    ak_kernel_release(k1);
}

static void test_gpu_kernel_not_found(void) {
    ak_kernel* k = NULL;
    if (!gr_setup()) return;
    if (!gr_gpu(g_ctx)) { akt_skip("cpu dry run: no module"); return; }
    AKT_ERR(ak_kernel_get(g_ctx, gr_saxpy_src, "akt_no_such_kernel", NULL, &k), AK_ERROR_NOT_FOUND);
    AKT_CHECK(k == NULL);
    AKT_CONTAINS(ak_last_error(), "akt_no_such_kernel");
    /* the real name in the same source still works afterwards */
    k = gr_kernel(g_ctx, gr_saxpy_src, "akt_saxpy", gr_saxpy_cpu);
    if (k) gr_saxpy_run(g_ctx, k, NULL, 513, "saxpy after a lookup failure");
    ak_kernel_release(k);
}

static void test_gpu_launch_errors(void) {
    ak_kernel *k = NULL, *ks = NULL;
    void* d = NULL;
    float out[2];
    ak_args args;
    ak_dim3 big;
    const ak_device_info* dev;
    size_t limit;
    int nf;
    float v;
    if (!gr_setup()) return;
    dev = ak_context_device(g_ctx);
    k = gr_kernel(g_ctx, gr_saxpy_src, "akt_saxpy", gr_saxpy_cpu);
    ks = gr_kernel(g_ctx, gr_shmem_src, "akt_shmem", gr_shmem_cpu);
    AKT_OK(ak_malloc(g_ctx, 4096, NULL, &d));
    if (!k || !ks || !d) goto done;
    memset(&args, 0, sizeof args);
    ak_args_i32(&args, 1);
    ak_args_f32(&args, 1.0f);
    ak_args_ptr(&args, d);
    ak_args_ptr(&args, d);
    /* 2048 threads in a block */
    AKT_ERR(ak_launch(k, gr_dim(1), gr_dim(2048), 0, NULL, ak_args_params(&args)), AK_ERROR_INVALID_ARGUMENT);
    big.x = 32; big.y = 32; big.z = 2;
    AKT_ERR(ak_launch(k, gr_dim(1), big, 0, NULL, ak_args_params(&args)), AK_ERROR_INVALID_ARGUMENT);
    /* dynamic shared memory: the device limit works, one byte more is a launch error */
    limit = dev->shared_mem_per_block;
    nf = (int)(limit / sizeof(float));
    v = (float)akt_uniform(&g_rng, 1, 100);
    memset(&args, 0, sizeof args);
    ak_args_ptr(&args, d);
    ak_args_i32(&args, nf);
    ak_args_f32(&args, v);
    if (gr_gpu(g_ctx)) {
        AKT_ERR(ak_launch(ks, gr_dim(1), gr_dim(256), limit + 1, NULL, ak_args_params(&args)), AK_ERROR_LAUNCH);
        AKT_ERR(ak_launch(ks, gr_dim(1), gr_dim(256), limit + (1u << 20), NULL, ak_args_params(&args)), AK_ERROR_LAUNCH);
    }
    AKT_OK(ak_launch(ks, gr_dim(1), gr_dim(256), (size_t)nf * sizeof(float), NULL, ak_args_params(&args)));
    AKT_OK(ak_device_synchronize(g_ctx));
    out[0] = out[1] = 0;
    AKT_OK(ak_memcpy(g_ctx, out, d, sizeof out, AK_D2H));
    AKT_CHECKF(out[0] == v && out[1] == v + (float)(nf - 1), "shared memory at the limit (%zu bytes): got %g %g, expected %g %g",
               (size_t)nf * sizeof(float), out[0], out[1], v, v + (float)(nf - 1));
    /* the context is still fine after the rejected launches */
    gr_saxpy_run(g_ctx, k, NULL, 1000, "saxpy after launch errors");
done:
    ak_free(g_ctx, d);
    ak_kernel_release(k);
    ak_kernel_release(ks);
}

static void test_gpu_pool_reuse(void) {
    ak_context* c;
    void *p = NULL, *q = NULL;
    size_t bytes = 1000 + (size_t)akt_uniform(&g_rng, 0, 500000), n = bytes / sizeof(float), i;
    float *h = (float*)malloc(n * sizeof(float)), *o = (float*)malloc(n * sizeof(float));
    ak_pool_stats s0, s1, s2;
    int stack_var = 0;
    if (!gr_setup() || !h || !o) { free(h); free(o); return; }
    c = gr_context(0, 0);   /* a fresh pool: the reuse is deterministic */
    if (!c) { free(h); free(o); return; }
    gr_random(h, n, -100, 100);
    AKT_OK(ak_pool_stats_get(c, &s0));
    AKT_OK(ak_malloc(c, bytes, NULL, &p));
    if (!p) goto done;
    AKT_CHECKF(((uintptr_t)p & 255u) == 0, "pool pointer %p not 256-byte aligned", p);
    AKT_OK(ak_memcpy(c, p, h, n * sizeof(float), AK_H2D));
    AKT_OK(ak_memcpy(c, o, p, n * sizeof(float), AK_D2H));
    for (i = 0; i < n; i++) if (o[i] != h[i]) { akt_fail(__FILE__, __LINE__, "device memory round trip: [%zu] %g != %g", i, o[i], h[i]); break; }
    AKT_OK(ak_free(c, p));
    AKT_OK(ak_pool_stats_get(c, &s1));
    AKT_EQ_INT(s1.runtime_allocs - s0.runtime_allocs, 1);
    AKT_EQ_INT(s1.in_use, 0);
    AKT_CHECK(s1.reserved >= bytes);
    AKT_OK(ak_malloc(c, bytes, NULL, &q));
    AKT_OK(ak_pool_stats_get(c, &s2));
    AKT_CHECKF(q == p, "same size after a free on the same stream: %p, expected the cached %p", q, p);
    AKT_EQ_INT(s2.cache_hits - s1.cache_hits, 1);
    AKT_EQ_INT(s2.runtime_allocs, s1.runtime_allocs);
    AKT_CHECK(s2.in_use >= bytes);
    /* the reused block is usable device memory */
    gr_random(h, n, -100, 100);
    AKT_OK(ak_memcpy(c, q, h, n * sizeof(float), AK_H2D));
    AKT_OK(ak_memcpy(c, o, q, n * sizeof(float), AK_D2H));
    AKT_CHECK(memcmp(o, h, n * sizeof(float)) == 0);
    AKT_OK(ak_free(c, q));
    /* double free and a foreign pointer: clear errors, pool intact */
    AKT_ERR(ak_free(c, q), AK_ERROR_MEMORY);
    AKT_ERR(ak_free(c, &stack_var), AK_ERROR_MEMORY);
    AKT_OK(ak_malloc(c, bytes, NULL, &q));
    AKT_CHECK(q == p);
    AKT_OK(ak_free(c, q));
    AKT_OK(ak_pool_trim(c));
    AKT_OK(ak_pool_stats_get(c, &s2));
    AKT_EQ_INT(s2.reserved, 0);
done:
    ak_context_destroy(c);
    free(h); free(o);
}

static void test_gpu_pool_limit(void) {
    ak_context* c;
    void *a = NULL, *b = NULL, *e = NULL, *f = NULL;
    ak_pool_stats s0, s1;
    const size_t lim = 64 * GR_MIB;
    unsigned char pat = gr_byte(), chk[4096];
    size_t i;
    if (!gr_setup()) return;
    c = gr_context((long long)lim, 0);
    if (!c) return;
    AKT_OK(ak_pool_stats_get(c, &s0));
    AKT_EQ_INT(s0.limit, lim);
    AKT_OK(ak_malloc(c, 48 * GR_MIB, NULL, &a));
    if (!a) goto done;
    AKT_OK(ak_memset(c, a, pat, 48 * GR_MIB, NULL));
    /* a second 48 MiB exceeds pool_size: out of memory (after the retry), with the numbers */
    AKT_ERR(ak_malloc(c, 48 * GR_MIB, NULL, &b), AK_ERROR_OUT_OF_MEMORY);
    AKT_CHECK(b == NULL);
    AKT_CONTAINS(ak_last_error(), "limit");
    AKT_OK(ak_pool_stats_get(c, &s1));
    AKT_EQ_INT(s1.oom_count - s0.oom_count, 1);
    AKT_CHECK(s1.oom_retries >= 1);
    AKT_CHECKF(s1.reserved <= lim, "reserved %zu over the limit %zu", s1.reserved, lim);
    /* the first block is untouched */
    AKT_OK(ak_memcpy(c, chk, (char*)a + 48 * GR_MIB - sizeof chk, sizeof chk, AK_D2H));
    for (i = 0; i < sizeof chk; i++) if (chk[i] != pat) { akt_fail(__FILE__, __LINE__, "byte %zu changed after the OOM", i); break; }
    /* up to the limit exactly: 48 + 16 MiB fits */
    AKT_OK(ak_malloc(c, 16 * GR_MIB, NULL, &e));
    AKT_ERR(ak_malloc(c, 1 * GR_MIB, NULL, &f), AK_ERROR_OUT_OF_MEMORY);
    AKT_OK(ak_free(c, e));
    e = NULL;
    /* free the first: the second 48 MiB now succeeds through reuse */
    AKT_OK(ak_free(c, a));
    AKT_OK(ak_pool_stats_get(c, &s0));
    AKT_OK(ak_malloc(c, 48 * GR_MIB, NULL, &b));
    AKT_OK(ak_pool_stats_get(c, &s1));
    AKT_CHECKF(b == a, "48 MiB after the free: %p, expected the cached block %p", b, a);
    AKT_EQ_INT(s1.cache_hits - s0.cache_hits, 1);
    AKT_EQ_INT(s1.runtime_allocs, s0.runtime_allocs);
    AKT_CHECKF(s1.reserved <= lim, "reserved %zu over the limit %zu", s1.reserved, lim);
    a = NULL;
    AKT_OK(ak_free(c, b));
    b = NULL;
done:
    ak_free(c, a);
    ak_free(c, b);
    ak_free(c, e);
    ak_context_destroy(c);
}

/* A block freed on stream A is handed to stream B only once A's work is done. */
static void test_gpu_pool_cross_stream(void) {
    ak_context* c;
    ak_stream *sa = NULL, *sb = NULL;
    ak_kernel* k = NULL;
    void *x = NULL, *y = NULL, *z = NULL;
    const int n = 1 << 20;   /* 4 MiB: a large block of its own segment */
    const size_t bytes = (size_t)n * sizeof(float);
    const double spin_ms = 200.0;
    float* h = (float*)malloc(bytes);
    unsigned char* hb = (unsigned char*)malloc(bytes);
    float v = (float)akt_uniform(&g_rng, -1000, 1000);
    unsigned char pat = gr_byte();
    unsigned long long spin;
    ak_pool_stats s0, s1, s2;
    ak_args args;
    double t_launch, t_alloc;
    int i;
    if (!gr_setup() || !h || !hb) { free(h); free(hb); return; }
    c = gr_context(0, 0);
    if (!c) { free(h); free(hb); return; }
    AKT_OK(ak_stream_create(c, "A", 0, &sa));
    AKT_OK(ak_stream_create(c, "B", 0, &sb));
    k = gr_kernel(c, gr_spin_src, "akt_spin_fill", gr_spin_cpu);
    if (!sa || !sb || !k) goto done;
    spin = gr_spin(c, spin_ms);
    /* warm-up launch (module load, lazy loading) on a scratch buffer */
    AKT_OK(ak_malloc(c, 4096, NULL, &z));
    memset(&args, 0, sizeof args);
    ak_args_ptr(&args, z);
    ak_args_i32(&args, 1024);
    ak_args_f32(&args, v);
    ak_args_u64(&args, 0);
    AKT_OK(ak_launch(k, gr_dim(1), gr_dim(256), 0, sa, ak_args_params(&args)));
    AKT_OK(ak_stream_synchronize(c, sa));
    AKT_OK(ak_free(c, z));
    z = NULL;

    AKT_OK(ak_malloc(c, bytes, sa, &x));
    if (!x) goto done;
    memset(&args, 0, sizeof args);
    ak_args_ptr(&args, x);
    ak_args_i32(&args, n);
    ak_args_f32(&args, v);
    ak_args_u64(&args, spin);
    AKT_OK(ak_pool_stats_get(c, &s0));
    t_launch = gr_now_ms();
    AKT_OK(ak_launch(k, gr_dim(1), gr_dim(256), 0, sa, ak_args_params(&args)));   /* writes x at its end */
    AKT_OK(ak_free(c, x));                                                       /* stream-ordered free on A */
    AKT_OK(ak_malloc(c, bytes, sb, &y));                                         /* B asks while A still works */
    t_alloc = gr_now_ms();
    AKT_OK(ak_pool_stats_get(c, &s1));
    if (!y) goto done;
    if (y == x) {
        /* allowed only if A's work was done: the pool must have seen its event complete */
        AKT_EQ_INT(s1.cache_hits - s0.cache_hits, 1);
        if (ak_context_device(c)->backend == AK_BACKEND_CUDA)
            AKT_CHECKF(t_alloc - t_launch >= spin_ms,
                       "block freed on A handed to B %.3f ms after the launch, while A's kernel runs for %.0f ms",
                       t_alloc - t_launch, spin_ms);
    } else {
        AKT_EQ_INT(s1.runtime_allocs - s0.runtime_allocs, 1);
    }
    if (gr_gpu(c))
        AKT_CHECKF(y != x, "B got A's block %.3f ms after a %.0f ms kernel was queued on A (expected a new block)",
                   t_alloc - t_launch, spin_ms);
    /* B writes its block; after both streams finish, B's bytes are intact and A's kernel output landed in x */
    AKT_OK(ak_memset(c, y, pat, bytes, sb));
    AKT_OK(ak_stream_synchronize(c, sb));
    AKT_OK(ak_stream_synchronize(c, sa));
    AKT_OK(ak_memcpy(c, hb, y, bytes, AK_D2H));
    for (i = 0; i < (int)bytes; i++)
        if (hb[i] != pat) { akt_fail(__FILE__, __LINE__, "B's block byte %d = 0x%02x, expected 0x%02x: A's kernel wrote into it", i, hb[i], pat); break; }
    if (y != x) {
        AKT_OK(ak_memcpy(c, h, x, bytes, AK_D2H));   /* x is cached in the pool: its memory is still there */
        for (i = 0; i < n; i++)
            if (h[i] != v + (float)i) { akt_fail(__FILE__, __LINE__, "A's output [%d] = %g, expected %g", i, h[i], v + (float)i); break; }
        /* A is done now: B may take the block */
        AKT_OK(ak_malloc(c, bytes, sb, &z));
        AKT_OK(ak_pool_stats_get(c, &s2));
        AKT_CHECKF(z == x, "after A finished, B's request got %p, expected the cached block %p", z, x);
        AKT_EQ_INT(s2.cache_hits - s1.cache_hits, 1);
        AKT_EQ_INT(s2.runtime_allocs, s1.runtime_allocs);
    }
done:
    ak_free(c, y);
    ak_free(c, z);
    ak_kernel_release(k);
    ak_stream_destroy(sa);
    ak_stream_destroy(sb);
    ak_context_destroy(c);
    free(h); free(hb);
}

static void test_gpu_memcpy_memset(void) {
    const size_t n = 300000 + (size_t)akt_uniform(&g_rng, 0, 1000), bytes = n * sizeof(float);
    float *h = (float*)malloc(bytes), *o = (float*)malloc(bytes);
    unsigned char* hb = (unsigned char*)malloc(bytes);
    void *d1 = NULL, *d2 = NULL;
    ak_stream* s = NULL;
    unsigned char b1 = gr_byte(), b2 = gr_byte();
    size_t i, off, len;
    if (!gr_setup() || !h || !o || !hb) { free(h); free(o); free(hb); return; }
    AKT_OK(ak_malloc(g_ctx, bytes, NULL, &d1));
    AKT_OK(ak_malloc(g_ctx, bytes, NULL, &d2));
    AKT_OK(ak_stream_create(g_ctx, "copies", 0, &s));
    if (!d1 || !d2 || !s) goto done;
    /* synchronous H2D, D2D, D2H */
    gr_random(h, n, -1e3, 1e3);
    memset(o, 0, bytes);
    AKT_OK(ak_memcpy(g_ctx, d1, h, bytes, AK_H2D));
    AKT_OK(ak_memcpy(g_ctx, d2, d1, bytes, AK_D2D));
    AKT_OK(ak_memcpy(g_ctx, o, d2, bytes, AK_D2H));
    AKT_CHECKF(memcmp(o, h, bytes) == 0, "sync H2D -> D2D -> D2H round trip differs");
    /* the same on a stream */
    gr_random(h, n, -1e3, 1e3);
    memset(o, 0, bytes);
    AKT_OK(ak_memcpy_async(g_ctx, d1, h, bytes, AK_H2D, s));
    AKT_OK(ak_memcpy_async(g_ctx, d2, d1, bytes, AK_D2D, s));
    AKT_OK(ak_memcpy_async(g_ctx, o, d2, bytes, AK_D2H, s));
    AKT_OK(ak_stream_synchronize(g_ctx, s));
    AKT_CHECKF(memcmp(o, h, bytes) == 0, "async H2D -> D2D -> D2H round trip differs");
    /* memset all, then a middle range on the stream; the edges keep the first value */
    AKT_OK(ak_memset(g_ctx, d1, b1, bytes, NULL));
    off = 1 + (size_t)akt_uniform(&g_rng, 0, 1000);
    len = bytes / 2 + (size_t)akt_uniform(&g_rng, 0, 1000);
    AKT_OK(ak_memset(g_ctx, (char*)d1 + off, b2, len, s));
    AKT_OK(ak_device_synchronize(g_ctx));
    AKT_OK(ak_memcpy(g_ctx, hb, d1, bytes, AK_D2H));
    for (i = 0; i < bytes; i++) {
        unsigned char want = (i >= off && i < off + len) ? b2 : b1;
        if (hb[i] != want) { akt_fail(__FILE__, __LINE__, "memset byte %zu = 0x%02x, expected 0x%02x (off %zu len %zu)", i, hb[i], want, off, len); break; }
    }
    /* bad arguments: clear errors */
    AKT_ERR(ak_memcpy(g_ctx, NULL, h, 16, AK_H2D), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_memcpy(g_ctx, d1, h, 16, (ak_copy_kind)7), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_memset(g_ctx, NULL, 0, 16, NULL), AK_ERROR_INVALID_ARGUMENT);
done:
    ak_stream_destroy(s);
    ak_free(g_ctx, d1);
    ak_free(g_ctx, d2);
    free(h); free(o); free(hb);
}

static void test_gpu_pinned(void) {
    const size_t n = (1u << 20) + (size_t)akt_uniform(&g_rng, 0, 4096), bytes = n * sizeof(float);
    float *p1 = NULL, *p2 = NULL;
    void* d = NULL;
    ak_stream* s = NULL;
    if (!gr_setup()) return;
    AKT_OK(ak_host_alloc(g_ctx, bytes, (void**)&p1));
    AKT_OK(ak_host_alloc(g_ctx, bytes, (void**)&p2));
    AKT_OK(ak_malloc(g_ctx, bytes, NULL, &d));
    AKT_OK(ak_stream_create(g_ctx, "pinned", 0, &s));
    if (!p1 || !p2 || !d || !s) goto done;
    gr_random(p1, n, -50, 50);
    memset(p2, 0, bytes);
    AKT_OK(ak_memcpy_async(g_ctx, d, p1, bytes, AK_H2D, s));
    AKT_OK(ak_memcpy_async(g_ctx, p2, d, bytes, AK_D2H, s));
    AKT_OK(ak_stream_synchronize(g_ctx, s));
    AKT_CHECKF(memcmp(p1, p2, bytes) == 0, "pinned host -> device -> pinned host round trip differs");
    /* sync copies from pinned memory too */
    gr_random(p1, n, -50, 50);
    AKT_OK(ak_memcpy(g_ctx, d, p1, bytes, AK_H2D));
    AKT_OK(ak_memcpy(g_ctx, p2, d, bytes, AK_D2H));
    AKT_CHECK(memcmp(p1, p2, bytes) == 0);
done:
    ak_stream_destroy(s);
    ak_free(g_ctx, d);
    AKT_OK(ak_host_free(g_ctx, p1));
    AKT_OK(ak_host_free(g_ctx, p2));
}

static void test_gpu_streams_priorities(void) {
    static const int prios[4] = { 0, -1, -1000, 1000 };   /* normal, higher, clamped both ways */
    static const char* names[4] = { "normal", "high", "clamp_high", "clamp_low" };
    ak_stream* s[4] = { NULL, NULL, NULL, NULL };
    ak_kernel* k;
    int i;
    if (!gr_setup()) return;
    k = gr_kernel(g_ctx, gr_saxpy_src, "akt_saxpy", gr_saxpy_cpu);
    for (i = 0; i < 4; i++) {
        AKT_OK(ak_stream_create(g_ctx, names[i], prios[i], &s[i]));
        if (s[i]) AKT_EQ_STR(ak_stream_name(s[i]), names[i]);
    }
    AKT_EQ_STR(ak_stream_name(NULL), "default");
    if (k)
        for (i = 0; i < 4; i++)
            if (s[i]) gr_saxpy_run(g_ctx, k, s[i], 100000 + i, names[i]);
    for (i = 0; i < 4; i++) {
        if (s[i]) AKT_OK(ak_stream_synchronize(g_ctx, s[i]));
        ak_stream_destroy(s[i]);
    }
    ak_kernel_release(k);
}

static void test_gpu_events(void) {
    ak_event *e0 = NULL, *e1 = NULL, *e2 = NULL;
    ak_stream* s = NULL;
    ak_kernel* k;
    void* d = NULL;
    ak_args args;
    float ms = -1;
    const double spin_ms = 5.0 + akt_uniform(&g_rng, 0, 5);
    if (!gr_setup()) return;
    k = gr_kernel(g_ctx, gr_spin_src, "akt_spin_fill", gr_spin_cpu);
    AKT_OK(ak_event_create(g_ctx, &e0));
    AKT_OK(ak_event_create(g_ctx, &e1));
    AKT_OK(ak_event_create(g_ctx, &e2));
    AKT_OK(ak_stream_create(g_ctx, "events", -1, &s));
    AKT_OK(ak_malloc(g_ctx, 65536 * sizeof(float), s, &d));
    if (!k || !e0 || !e1 || !e2 || !s || !d) goto done;
    /* an event never recorded is an error */
    AKT_ERR(ak_event_elapsed_ms(e0, e2, &ms), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_event_synchronize(e2), AK_ERROR_INVALID_ARGUMENT);
    memset(&args, 0, sizeof args);
    ak_args_ptr(&args, d);
    ak_args_i32(&args, 65536);
    ak_args_f32(&args, (float)akt_uniform(&g_rng, 1, 2));
    ak_args_u64(&args, gr_spin(g_ctx, spin_ms));
    AKT_OK(ak_event_record(e0, s));
    AKT_OK(ak_launch(k, gr_dim(64), gr_dim(256), 0, s, ak_args_params(&args)));
    AKT_OK(ak_event_record(e1, s));
    AKT_OK(ak_event_synchronize(e1));
    AKT_OK(ak_event_elapsed_ms(e0, e1, &ms));
    AKT_CHECKF(ms > 0, "elapsed %g ms around a kernel", ms);
    if (ak_context_device(g_ctx)->backend == AK_BACKEND_CUDA)
        AKT_CHECKF(ms >= 0.9 * spin_ms && ms < 100 * spin_ms, "elapsed %g ms around a %.2f ms kernel", ms, spin_ms);
    /* the default stream too */
    AKT_OK(ak_event_record(e0, NULL));
    AKT_OK(ak_launch(k, gr_dim(64), gr_dim(256), 0, NULL, ak_args_params(&args)));
    AKT_OK(ak_event_record(e1, NULL));
    AKT_OK(ak_event_elapsed_ms(e0, e1, &ms));
    AKT_CHECKF(ms > 0, "elapsed %g ms around a kernel on the default stream", ms);
    AKT_OK(ak_stream_synchronize(g_ctx, NULL));
done:
    ak_free(g_ctx, d);
    ak_stream_destroy(s);
    ak_event_destroy(e0);
    ak_event_destroy(e1);
    ak_event_destroy(e2);
    ak_kernel_release(k);
}

static void test_gpu_profiling(void) {
    ak_context* c;
    ak_kernel* k = NULL;
    ak_stream* s = NULL;
    void* d = NULL;
    ak_args args;
    ak_prof_stat st[8];
    int count = 0, i, found = -1, outer = -1;
    const double spin_ms = 2.0;
    char path[700];
    char* json = NULL;
    size_t jn = 0;
    if (!gr_setup()) return;
    c = gr_context(0, 1);
    if (!c) return;
    k = gr_kernel(c, gr_spin_src, "akt_spin_fill", gr_spin_cpu);
    AKT_OK(ak_stream_create(c, "prof", 0, &s));
    AKT_OK(ak_malloc(c, 4096 * sizeof(float), NULL, &d));
    if (!k || !s || !d) goto done;
    memset(&args, 0, sizeof args);
    ak_args_ptr(&args, d);
    ak_args_i32(&args, 4096);
    ak_args_f32(&args, (float)akt_uniform(&g_rng, 1, 2));
    ak_args_u64(&args, gr_spin(c, spin_ms));
    AKT_OK(ak_prof_begin(c, "akt_outer", NULL));
    for (i = 0; i < 3; i++) {
        AKT_OK(ak_prof_begin(c, "akt_gpu_region", s));
        AKT_OK(ak_launch(k, gr_dim(4), gr_dim(256), 0, s, ak_args_params(&args)));
        AKT_OK(ak_prof_end(c));
    }
    AKT_OK(ak_stream_synchronize(c, s));
    AKT_OK(ak_prof_end(c));
    AKT_OK(ak_prof_stats(c, st, 8, &count));
    AKT_EQ_INT(count, 2);
    for (i = 0; i < count && i < 8; i++) {
        if (!strcmp(st[i].name, "akt_gpu_region")) found = i;
        if (!strcmp(st[i].name, "akt_outer")) outer = i;
    }
    AKT_CHECKF(found >= 0 && outer >= 0, "regions missing from the statistics");
    if (found >= 0) {
        AKT_EQ_INT(st[found].count, 3);
        AKT_CHECKF(st[found].total_ms > 0 && st[found].min_ms > 0, "GPU region times %g / %g ms", st[found].total_ms, st[found].min_ms);
        AKT_CHECKF(st[found].min_ms <= st[found].mean_ms && st[found].mean_ms <= st[found].max_ms, "min %g mean %g max %g",
                   st[found].min_ms, st[found].mean_ms, st[found].max_ms);
        if (gr_gpu(c)) AKT_EQ_INT(st[found].gpu_timed, 1);
        if (ak_context_device(c)->backend == AK_BACKEND_CUDA)
            AKT_CHECKF(st[found].min_ms >= 0.9 * spin_ms, "GPU-timed region of a %.1f ms kernel: min %g ms", spin_ms, st[found].min_ms);
    }
    if (outer >= 0) AKT_EQ_INT(st[outer].count, 1);
    /* Chrome trace: valid JSON naming the regions (GPU-timed ones as such) */
    snprintf(path, sizeof path, "%s/gpu_runtime_trace.json", akt_tmpdir());
    AKT_OK(ak_prof_export_chrome(c, path));
    json = gr_read_file(path, &jn);
    AKT_CHECKF(json != NULL && jn > 0, "cannot read the trace %s", path);
    if (json) {
        AKT_CHECKF(gr_json_valid(json, jn), "the Chrome trace %s is not valid JSON", path);
        AKT_CONTAINS(json, "\"traceEvents\"");
        AKT_CONTAINS(json, "akt_gpu_region");
        AKT_CONTAINS(json, "akt_outer");
        if (gr_gpu(c)) AKT_CONTAINS(json, "\"timer\":\"gpu\"");
    }
    /* the validator itself rejects broken JSON (so the check above can fail) */
    AKT_CHECK(!gr_json_valid("{\"a\":[1,2,]}", 12));
    AKT_CHECK(!gr_json_valid("{\"a\":1", 6));
    AKT_CHECK(gr_json_valid("{\"a\":[1,-2.5e3,\"x\\n\",true,null]}", 32));
done:
    free(json);
    ak_free(c, d);
    ak_stream_destroy(s);
    ak_kernel_release(k);
    ak_context_destroy(c);
}

static void test_gpu_runtime_cleanup(void) {
    ak_context_destroy(g_ctx);
    g_ctx = NULL;
    g_setup_failed = 0;
}

void akt_suite_gpu_runtime(void) {
    AKT_RUN(test_gpu_device_info);
    AKT_RUN(test_gpu_saxpy);
    AKT_RUN(test_gpu_check_helper);
    AKT_RUN(test_gpu_compile_error);
    AKT_RUN(test_gpu_cache_memory_and_disk);
    AKT_RUN(test_gpu_kernel_not_found);
    AKT_RUN(test_gpu_launch_errors);
    AKT_RUN(test_gpu_pool_reuse);
    AKT_RUN(test_gpu_pool_limit);
    AKT_RUN(test_gpu_pool_cross_stream);
    AKT_RUN(test_gpu_memcpy_memset);
    AKT_RUN(test_gpu_pinned);
    AKT_RUN(test_gpu_streams_priorities);
    AKT_RUN(test_gpu_events);
    AKT_RUN(test_gpu_profiling);
    AKT_RUN(test_gpu_runtime_cleanup);
}
