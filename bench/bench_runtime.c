/* bench_runtime - times amdkit's runtime (contexts, compile cache, launch,
 * memory pool, streams, events, profiling) and writes JSON.
 *
 *   build/bench_runtime [--quick] OUT.json
 *
 * Runs on whatever backend AUTO picks (AMDKIT_BACKEND=... forces one). Every
 * figure is many trials with mean / std (population) / min / max / median;
 * host-side costs use a monotonic host clock, GPU-side figures ak_event
 * timing. A figure that is "per call" over a batch (time N calls / N) says so
 * in calls_per_trial. Entries:
 *   context_create_destroy      ms  ak_context_create + ak_context_destroy, no other context alive
 *                                   (one untimed first run pays dlopen/driver init: first_ms)
 *   context_create_destroy_shared ms  the same while another context holds the device
 *   device_info_read            us  ak_context_device + a copy of the struct
 *   device_info_refresh_memory  us  ak_context_refresh_memory (a driver query)
 *   compile_cold                ms  ak_kernel_get of a ~50-line kernel, cache bypassed
 *                                   (no_cache), unique define per trial: compile + module load
 *   cache_warm_hit              us  ak_kernel_get + ak_kernel_release of a cached kernel
 *   fresh_process_cold_compile  ms  in a new process (re-exec): ak_kernel_get of a kernel no
 *                                   level has: compile + load + disk write, timed in the child
 *   fresh_process_disk_hit      ms  in a new process: ak_kernel_get of the kernel the previous
 *                                   child compiled: disk read + verify + module load
 *   fresh_process_module_load   ms  in the disk-hit child, after the hit: the driver's load + unload of
 *                                   the same code object alone (cuModuleLoadData / hipModuleLoadData)
 *   launch_ak                   us  per launch: N empty-kernel ak_launch back to back + synchronize
 *                                   (the ak and raw batches alternate which runs first per trial)
 *   launch_raw                  us  the same through cuLaunchKernel / hipModuleLaunchKernel
 *                                   (dlopen'ed here) on the same function (cpu: null)
 *   pool_alloc_free_<size>      us  ak_malloc + ak_free (warm pool), per pair
 *   runtime_alloc_free_<size>   us  cuMemAlloc+cuMemFree / hipMalloc+hipFree (cpu: posix_memalign+free)
 *   stream_create_destroy, event_create_destroy, event_record_synchronize   us
 *   prof_region_on, prof_region_off   us  ak_prof_begin + ak_prof_end, profiling on / off
 * Ratios (the runtime targets of BRIEF.md, reported, never asserted): warm
 * hit < 0.2 us; cold compile / disk hit >= 100 (both in a fresh process);
 * ak_launch within 2% of the raw driver launch (ratio <= 1.02); runtime
 * malloc+free / pool >= 50 at every size.
 * On the cpu backend the targets are labelled n/a (no compiler, no driver).
 *
 * JSON: {"tool", "hardware", "device", "backend", "quick", "results": [ {"name",
 * "mean", "std", "min", "max", "median", "num_trials", "unit", "hardware",
 * "device", "backend", "calls_per_trial", ...}, ... ], "ratios": [ {"name",
 * "value", "target", "status", ...} ], "errors": [...]}. hardware is the
 * device name, device its arch (ak_context_device).
 *
 * The exit code is 0 unless something failed (an API error), never because
 * a target was missed.
 */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <time.h>
#include <errno.h>
#include <unistd.h>
#include <dirent.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <dlfcn.h>

extern char** environ;

/* ---- statistics and result table ------------------------------------------ */
typedef struct bstats { double mean, std, min, max, median; int n; } bstats;

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y ? 1 : 0;
}
static bstats compute_stats(const double* v, int n) {
    bstats s;
    double* t;
    int i;
    memset(&s, 0, sizeof s);
    s.n = n;
    if (n <= 0) return s;
    t = (double*)malloc((size_t)n * sizeof *t);
    if (!t) return s;
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    s.min = t[0];
    s.max = t[n - 1];
    s.median = (n & 1) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    for (i = 0; i < n; i++) s.mean += t[i];
    s.mean /= n;
    for (i = 0; i < n; i++) s.std += (t[i] - s.mean) * (t[i] - s.mean);
    s.std = sqrt(s.std / n);
    free(t);
    return s;
}

#define MAX_RESULTS 64
#define MAX_RATIOS 16
#define MAX_ERRORS 32
typedef struct bresult {
    char name[64];
    const char* unit;
    bstats s;
    long calls_per_trial;
    char extra[768];   /* more JSON members, each starting with ", " */
    char note[256];
} bresult;
typedef struct bratio {
    char name[64];
    double value;      /* NaN: null */
    char target[64];
    char status[32];
    char detail[256];
} bratio;

static bresult g_res[MAX_RESULTS];
static int g_nres;
static bratio g_ratio[MAX_RATIOS];
static int g_nratio;
static char g_err[MAX_ERRORS][512];
static int g_nerr;
static int g_quick;
static ak_context* g_ctx;
static char g_cache_dir[512];
static const char* g_self = "/proc/self/exe";

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void fail(const char* what) {
    if (g_nerr < MAX_ERRORS) _ak_fmt(g_err[g_nerr++], sizeof g_err[0], "%s: %s", what, ak_last_error());
    fprintf(stderr, "bench_runtime: %s failed: %s\n", what, ak_last_error());
}
static void fail_msg(const char* what, const char* msg) {
    if (g_nerr < MAX_ERRORS) _ak_fmt(g_err[g_nerr++], sizeof g_err[0], "%s: %s", what, msg);
    fprintf(stderr, "bench_runtime: %s failed: %s\n", what, msg);
}

static bresult* add_result(const char* name, const char* unit, const double* v, int n, long calls_per_trial) {
    bresult* r;
    if (g_nres >= MAX_RESULTS || n <= 0) return NULL;
    r = &g_res[g_nres++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->unit = unit;
    r->s = compute_stats(v, n);
    r->calls_per_trial = calls_per_trial;
    return r;
}
static const bresult* find_result(const char* name) {
    int i;
    for (i = 0; i < g_nres; i++) if (!strcmp(g_res[i].name, name)) return &g_res[i];
    return NULL;
}
static void extra_add(bresult* r, const char* fmt, ...) _AK_PRINTF(2, 3);
static void extra_add(bresult* r, const char* fmt, ...) {
    size_t len;
    va_list ap;
    if (!r) return;
    len = strlen(r->extra);
    if (len + 1 >= sizeof r->extra) return;
    va_start(ap, fmt);
    vsnprintf(r->extra + len, sizeof r->extra - len, fmt, ap);
    va_end(ap);
}
static void add_ratio(const char* name, double value, const char* target, int pass, int applicable, const char* detail) {
    bratio* q;
    if (g_nratio >= MAX_RATIOS) return;
    q = &g_ratio[g_nratio++];
    memset(q, 0, sizeof *q);
    snprintf(q->name, sizeof q->name, "%s", name);
    q->value = value;
    snprintf(q->target, sizeof q->target, "%s", target);
    if (!applicable) snprintf(q->status, sizeof q->status, "n/a (cpu backend)");
    else if (value != value) snprintf(q->status, sizeof q->status, "n/a (not measured)");
    else snprintf(q->status, sizeof q->status, "%s", pass ? "PASS" : "MISS");
    snprintf(q->detail, sizeof q->detail, "%s", detail ? detail : "");
}

/* ---- JSON -------------------------------------------------------------------- */
static void json_str(FILE* f, const char* s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { fputc('\\', f); fputc(c, f); }
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}
static void json_num(FILE* f, double v) {
    if (v != v || v > DBL_MAX || v < -DBL_MAX) fputs("null", f);
    else fprintf(f, "%.6g", v);
}

static int write_json(const char* path, const ak_device_info* dev) {
    FILE* f = fopen(path, "w");
    int i;
    if (!f) { fprintf(stderr, "bench_runtime: cannot write %s: %s\n", path, strerror(errno)); return 0; }
    fprintf(f, "{\n  \"tool\": \"amdkit bench_runtime\",\n  \"amdkit_version\": \"%s\",\n  \"hardware\": ", AK_VERSION_STRING);
    json_str(f, dev->name);
    fprintf(f, ",\n  \"device\": ");
    json_str(f, dev->arch);
    fprintf(f, ",\n  \"backend\": \"%s\",\n  \"device_index\": %d,\n  \"compiler\": ", ak_backend_name(dev->backend), dev->device);
    json_str(f, dev->compiler_version);
    fprintf(f, ",\n  \"driver_version\": %d,\n  \"quick\": %s,\n  \"results\": [", dev->driver_version, g_quick ? "true" : "false");
    for (i = 0; i < g_nres; i++) {
        const bresult* r = &g_res[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_str(f, r->name);
        fprintf(f, ", \"mean\": "); json_num(f, r->s.mean);
        fprintf(f, ", \"std\": "); json_num(f, r->s.std);
        fprintf(f, ", \"min\": "); json_num(f, r->s.min);
        fprintf(f, ", \"max\": "); json_num(f, r->s.max);
        fprintf(f, ", \"median\": "); json_num(f, r->s.median);
        fprintf(f, ", \"num_trials\": %d, \"unit\": ", r->s.n);
        json_str(f, r->unit);
        fprintf(f, ", \"hardware\": ");
        json_str(f, dev->name);
        fprintf(f, ", \"device\": ");
        json_str(f, dev->arch);
        fprintf(f, ", \"backend\": \"%s\", \"calls_per_trial\": %ld%s", ak_backend_name(dev->backend), r->calls_per_trial, r->extra);
        if (r->note[0]) { fprintf(f, ", \"note\": "); json_str(f, r->note); }
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"ratios\": [");
    for (i = 0; i < g_nratio; i++) {
        const bratio* q = &g_ratio[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_str(f, q->name);
        fprintf(f, ", \"value\": "); json_num(f, q->value);
        fprintf(f, ", \"target\": "); json_str(f, q->target);
        fprintf(f, ", \"status\": "); json_str(f, q->status);
        fprintf(f, ", \"detail\": "); json_str(f, q->detail);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"errors\": [");
    for (i = 0; i < g_nerr; i++) {
        fprintf(f, "%s\n    ", i ? "," : "");
        json_str(f, g_err[i]);
    }
    fprintf(f, "%s]\n}\n", g_nerr ? "\n  " : "");
    if (fclose(f) != 0) { fprintf(stderr, "bench_runtime: writing %s failed\n", path); return 0; }
    return 1;
}

/* ---- kernels ------------------------------------------------------------------ */
/* Empty kernel for the launch and warm-hit figures. */
static const char k_empty_src[] =
    "extern \"C\" __global__ void akb_empty(float* p) { (void)p; }\n";

/* The cold-compile subject: about 50 lines, templates, shared memory, the
 * prelude's block reductions; AKB_UNIQUE (a -D per trial) changes the key. */
static const char k_cold_src[] =
    "/* bench_runtime cold-compile kernel: row softmax + scaled residual */\n"
    "#ifndef AKB_UNIQUE\n"
    "#define AKB_UNIQUE 0\n"
    "#endif\n"
    "#define AKB_THREADS 256\n"
    "template <int VEC>\n"
    "struct akb_loader {\n"
    "    static __device__ __forceinline__ float load(const float* p, long long i, long long n) {\n"
    "        float acc = 0.0f;\n"
    "        for (int k = 0; k < VEC; k++) if (i + k < n) acc += p[i + k];\n"
    "        return acc;\n"
    "    }\n"
    "};\n"
    "__device__ __forceinline__ float akb_mix(float a, float b, float w) {\n"
    "    return a * w + b * (1.0f - w) + (float)AKB_UNIQUE * 1e-30f;\n"
    "}\n"
    "extern \"C\" __global__ void akb_cold(const float* x, const float* res, float* y,\n"
    "                                      long long rows, long long cols, float scale) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {\n"
    "        const float* xr = x + r * cols;\n"
    "        float* yr = y + r * cols;\n"
    "        float m = -AK_INF;\n"
    "        for (long long c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);\n"
    "        m = ak_block_max(m, scratch);\n"
    "        float s = 0.0f;\n"
    "        for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);\n"
    "        s = ak_block_sum(s, scratch);\n"
    "        const float inv = 1.0f / s;\n"
    "        for (long long c = threadIdx.x; c < cols; c += blockDim.x) {\n"
    "            float v = expf(xr[c] - m) * inv;\n"
    "            float rr = akb_loader<2>::load(res + r * cols, c, cols);\n"
    "            yr[c] = akb_mix(v * scale, rr, 0.75f);\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "}\n"
    "extern \"C\" __global__ void akb_cold_colsum(const float* y, float* out, long long rows, long long cols) {\n"
    "    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < cols;\n"
    "         c += (long long)gridDim.x * blockDim.x) {\n"
    "        float acc = 0.0f, comp = 0.0f;\n"
    "        for (long long r = 0; r < rows; r++) {\n"
    "            float t = y[r * cols + c] - comp;\n"
    "            float u = acc + t;\n"
    "            comp = (u - acc) - t;\n"
    "            acc = u;\n"
    "        }\n"
    "        out[c] = acc;\n"
    "    }\n"
    "}\n";

static void cpu_noop(const ak_launch_info* info, void** args) { (void)info; (void)args; }

/* ---- the child process: one ak_kernel_get in a fresh process ----------------------- */
/* argv: --child CACHE_DIR UNIQUE FD. Writes "OK ctx_ms get_ms source load_ms" or "ERR msg" to FD;
 * load_ms: the driver's module load + unload of the same code object, right
 * after the get (a second load in this process; -1 on the cpu backend). */
static int child_main(int argc, char** argv) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    ak_kernel* k = NULL;
    ak_compile_options o;
    const char* opts[1];
    char def[96], line[1024];
    double t0, t1, t2, load_ms = -1;
    int fd;
    ak_result r;
    if (argc < 5) return 2;
    fd = atoi(argv[4]);
    if (ak_config_apply_env(&cfg) != AK_OK) cfg = ak_config_default();
    cfg.cache_dir = argv[2];
    cfg.log_level = AK_LOG_ERROR;
    snprintf(def, sizeof def, "-DAKB_UNIQUE=%s", argv[3]);
    opts[0] = def;
    memset(&o, 0, sizeof o);
    o.options = opts;
    o.num_options = 1;
    o.source_name = "bench_cold.hip";
    o.opt_level = AK_OPT_AUTO;
    t0 = now_us();
    r = ak_context_create(&cfg, &ctx);
    t1 = now_us();
    if (r == AK_OK) r = ak_kernel_get(ctx, k_cold_src, "akb_cold", &o, &k);
    t2 = now_us();
    if (r == AK_OK && ctx->bk->module_load && k->entry) {   /* the driver alone on the same bytes */
        void* mod = NULL;
        double t3 = now_us();
        if (ctx->bk->module_load(ctx, _ak_cache_entry_data(k->entry, NULL), &mod) == 0) {
            ctx->bk->module_unload(ctx, mod);
            load_ms = (now_us() - t3) / 1e3;
        }
    }
    if (r == AK_OK) snprintf(line, sizeof line, "OK %.6f %.6f %d %.6f\n", (t1 - t0) / 1e3, (t2 - t1) / 1e3, (int)ak_kernel_cache_source(k), load_ms);
    else _ak_fmt(line, sizeof line, "ERR %s: %s\n", ak_result_name(r), ak_last_error());
    if (write(fd, line, strlen(line)) < 0) return 3;
    close(fd);
    ak_kernel_release(k);
    ak_context_destroy(ctx);
    return r == AK_OK ? 0 : 1;
}

/* Run the child; 1 and the figures on success. */
static int run_child(const char* unique, double* ctx_ms, double* get_ms, int* source, double* load_ms, char* err, size_t errcap) {
    int fds[2], status = 0, rc;
    pid_t pid;
    char fdbuf[16], buf[1200];
    char* args[6];
    size_t len = 0;
    ssize_t n;
    err[0] = 0;
    if (pipe(fds) != 0) { snprintf(err, errcap, "pipe: %s", strerror(errno)); return 0; }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    snprintf(fdbuf, sizeof fdbuf, "%d", fds[1]);
    args[0] = (char*)g_self;
    args[1] = (char*)"--child";
    args[2] = g_cache_dir;
    args[3] = (char*)unique;
    args[4] = fdbuf;
    args[5] = NULL;
    if ((rc = posix_spawn(&pid, g_self, NULL, NULL, args, environ)) != 0) {
        snprintf(err, errcap, "posix_spawn %s: %s", g_self, strerror(rc));
        close(fds[0]); close(fds[1]);
        return 0;
    }
    close(fds[1]);
    while (len + 1 < sizeof buf && (n = read(fds[0], buf + len, sizeof buf - 1 - len)) != 0) {
        if (n < 0) { if (errno == EINTR) continue; break; }
        len += (size_t)n;
    }
    buf[len] = 0;
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!strncmp(buf, "OK ", 3) && sscanf(buf + 3, "%lf %lf %d %lf", ctx_ms, get_ms, source, load_ms) == 4) return 1;
    if (!strncmp(buf, "ERR ", 4)) { buf[strcspn(buf, "\n")] = 0; _ak_fmt(err, errcap, "child: %s", buf + 4); }
    else snprintf(err, errcap, "child exited with status %d and no result", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}

/* ---- temporary cache directory ------------------------------------------------- */
static void rm_tree(const char* path, int depth) {
    DIR* d;
    struct dirent* e;
    char sub[1024];
    struct stat st;
    if (depth > 4) return;
    d = opendir(path);
    if (d) {
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) rm_tree(sub, depth + 1);
            else unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

static ak_config bench_config(int profiling) {
    ak_config c = ak_config_default();
    if (ak_config_apply_env(&c) != AK_OK) {
        fprintf(stderr, "bench_runtime: ignoring the AMDKIT_* environment: %s\n", ak_last_error());
        c = ak_config_default();
    }
    c.cache_dir = g_cache_dir;
    c.profiling = profiling;
    if (c.log_level > AK_LOG_WARN) c.log_level = AK_LOG_WARN;
    return c;
}

/* ---- sections -------------------------------------------------------------------- */
static void bench_context(int shared) {
    ak_config cfg = bench_config(0);
    int trials = g_quick ? 3 : 20, i, n = 0;
    double* v = (double*)malloc((size_t)trials * sizeof *v);
    double first = -1;
    bresult* r;
    if (!v) return;
    if (!shared) { /* untimed first run: dlopen, driver init */
        ak_context* c = NULL;
        double t0 = now_us();
        if (ak_context_create(&cfg, &c) != AK_OK) { fail("context create (first)"); free(v); return; }
        ak_context_destroy(c);
        first = (now_us() - t0) / 1e3;
    }
    for (i = 0; i < trials; i++) {
        ak_context* c = NULL;
        double t0 = now_us();
        if (ak_context_create(&cfg, &c) != AK_OK) { fail("context create"); break; }
        ak_context_destroy(c);
        v[n++] = (now_us() - t0) / 1e3;
    }
    r = add_result(shared ? "context_create_destroy_shared" : "context_create_destroy", "ms", v, n, 1);
    if (r && !shared) {
        extra_add(r, ", \"first_ms\": %.6f", first);
        snprintf(r->note, sizeof r->note, "no other amdkit context alive; first_ms is the untimed first run (libraries, driver init)");
    }
    if (r && shared) snprintf(r->note, sizeof r->note, "while another context of the same device is alive");
    free(v);
}

static void bench_device_info(void) {
    int trials = g_quick ? 10 : 100, batch = g_quick ? 1000 : 10000, i, j, n = 0;
    double* v = (double*)malloc((size_t)trials * sizeof *v);
    volatile long long sink = 0;
    bresult* r;
    if (!v) return;
    for (i = 0; i < trials; i++) {
        double t0 = now_us();
        for (j = 0; j < batch; j++) {
            ak_device_info copy;
            memcpy(&copy, ak_context_device(g_ctx), sizeof copy);
            sink += copy.compute_units + (long long)copy.mem_total;
        }
        v[i] = (now_us() - t0) / batch;
    }
    (void)sink;
    r = add_result("device_info_read", "us", v, trials, batch);
    if (r) snprintf(r->note, sizeof r->note, "ak_context_device + copy of the %zu-byte struct", sizeof(ak_device_info));
    for (i = 0; i < trials; i++) {
        double t0 = now_us();
        if (ak_context_refresh_memory(g_ctx) != AK_OK) { fail("ak_context_refresh_memory"); break; }
        v[n++] = now_us() - t0;
    }
    add_result("device_info_refresh_memory", "us", v, n, 1);
    free(v);
}

static void bench_cold_compile(void) {
    int trials = g_quick ? 2 : 10, i, n = 0;
    double* v = (double*)malloc((size_t)trials * sizeof *v);
    ak_cache_stats s0, s1;
    bresult* r;
    if (!v) return;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    ak_cache_stats_get(g_ctx, &s0);
    for (i = 0; i < trials; i++) {
        ak_compile_options o;
        const char* opts[1];
        char def[96];
        ak_kernel* k = NULL;
        double t0;
        snprintf(def, sizeof def, "-DAKB_UNIQUE=%ld%03d", (long)getpid(), i);
        opts[0] = def;
        memset(&o, 0, sizeof o);
        o.options = opts;
        o.num_options = 1;
        o.source_name = "bench_cold.hip";
        o.opt_level = AK_OPT_AUTO;
        o.no_cache = 1;
        t0 = now_us();
        if (ak_kernel_get(g_ctx, k_cold_src, "akb_cold", &o, &k) != AK_OK) { fail("cold compile"); break; }
        v[n++] = (now_us() - t0) / 1e3;
        ak_kernel_release(k);
    }
    ak_cache_stats_get(g_ctx, &s1);
    r = add_result("compile_cold", "ms", v, n, 1);
    if (r) {
        unsigned long long c = s1.compilations - s0.compilations;
        extra_add(r, ", \"compilations\": %llu, \"compiler_ms_mean\": %.6f", c, c ? (s1.compile_ms - s0.compile_ms) / (double)c : 0.0);
        snprintf(r->note, sizeof r->note, "%s", ak_context_device(g_ctx)->backend == AK_BACKEND_CPU
                 ? "cpu backend: no compiler runs, this is the API path only"
                 : "in-process, cache bypassed (no_cache): device compile + module load; compiler_ms_mean is the compiler alone");
    }
    free(v);
}

static void bench_warm_hit(void) {
    int trials = g_quick ? 10 : 100, batch = 1000, i, j, n = 0, bad = 0;
    double* v = (double*)malloc((size_t)trials * sizeof *v);
    ak_kernel* keep = NULL;
    ak_cache_stats s0, s1;
    bresult* r;
    if (!v) return;
    if (ak_kernel_get(g_ctx, k_empty_src, "akb_empty", NULL, &keep) != AK_OK) { fail("warm hit: first get"); free(v); return; }
    {   /* one hit, checked */
        ak_kernel* k = NULL;
        if (ak_kernel_get(g_ctx, k_empty_src, "akb_empty", NULL, &k) != AK_OK) { fail("warm hit: second get"); ak_kernel_release(keep); free(v); return; }
        if (ak_context_device(g_ctx)->backend != AK_BACKEND_CPU && ak_kernel_cache_source(k) != AK_CACHE_MEMORY)
            fail_msg("warm hit", "the second ak_kernel_get was not a memory hit");
        ak_kernel_release(k);
    }
    ak_cache_stats_get(g_ctx, &s0);
    for (i = 0; i < trials && !bad; i++) {
        double t0 = now_us();
        for (j = 0; j < batch; j++) {
            ak_kernel* k = NULL;
            if (ak_kernel_get(g_ctx, k_empty_src, "akb_empty", NULL, &k) != AK_OK) { fail("warm hit"); bad = 1; break; }
            ak_kernel_release(k);
        }
        if (!bad) v[n++] = (now_us() - t0) / batch;
    }
    ak_cache_stats_get(g_ctx, &s1);
    r = add_result("cache_warm_hit", "us", v, n, batch);
    if (r) {
        extra_add(r, ", \"memory_hits\": %llu", s1.memory_hits - s0.memory_hits);
        snprintf(r->note, sizeof r->note, "%s", ak_context_device(g_ctx)->backend == AK_BACKEND_CPU
                 ? "cpu backend: ak_kernel_get does not use the cache"
                 : "ak_kernel_get + ak_kernel_release of a kernel in the memory cache");
    }
    ak_kernel_release(keep);
    free(v);
}

static void bench_fresh_process(void) {
    int trials = g_quick ? 2 : 8, i, n = 0, wrong = 0;
    double *cold = (double*)malloc((size_t)trials * sizeof(double)), *hit = (double*)malloc((size_t)trials * sizeof(double));
    double *cctx = (double*)malloc((size_t)trials * sizeof(double)), *hctx = (double*)malloc((size_t)trials * sizeof(double));
    double* hload = (double*)malloc((size_t)trials * sizeof(double));
    int gpu = ak_context_device(g_ctx)->backend != AK_BACKEND_CPU;
    bresult* r;
    if (!cold || !hit || !cctx || !hctx || !hload) { free(cold); free(hit); free(cctx); free(hctx); free(hload); return; }
    for (i = 0; i < trials; i++) {
        char unique[64], err[700];
        int src1 = -1, src2 = -1;
        snprintf(unique, sizeof unique, "%ld%ld%03d", (long)getpid(), (long)time(NULL) % 100000, i);
        if (!run_child(unique, &cctx[n], &cold[n], &src1, &hload[n], err, sizeof err)) { fail_msg("fresh process cold compile", err); break; }
        if (!run_child(unique, &hctx[n], &hit[n], &src2, &hload[n], err, sizeof err)) { fail_msg("fresh process disk hit", err); break; }
        if (gpu && (src1 != AK_CACHE_MISS || src2 != AK_CACHE_DISK)) wrong++;
        n++;
    }
    if (wrong) {
        char m[200];
        _ak_fmt(m, sizeof m, "%d of %d child pairs were not (miss, disk hit): is the disk cache usable in %s?", wrong, n, g_cache_dir);
        fail_msg("fresh process", m);
    }
    r = add_result("fresh_process_cold_compile", "ms", cold, n, 1);
    if (r) {
        bstats cs = compute_stats(cctx, n);
        extra_add(r, ", \"context_create_ms_median\": %.6f", cs.median);
        snprintf(r->note, sizeof r->note, "new process: ak_kernel_get of a kernel no cache level has (compile + load + disk write), timed in the child");
    }
    r = add_result("fresh_process_disk_hit", "ms", hit, n, 1);
    if (r) {
        bstats hs = compute_stats(hctx, n);
        extra_add(r, ", \"context_create_ms_median\": %.6f", hs.median);
        snprintf(r->note, sizeof r->note, "new process, same cache dir: ak_kernel_get served from disk (read + verify + module load), timed in the child");
    }
    if (gpu && n) {   /* the floor under the disk hit: the driver's load of the same code object */
        r = add_result("fresh_process_module_load", "ms", hload, n, 1);
        if (r) snprintf(r->note, sizeof r->note, "in the disk-hit child, after the hit: the driver's module load + unload of the same "
                        "code object (a second load in that process): the part of the disk hit amdkit does not do");
    }
    free(cold); free(hit); free(cctx); free(hctx); free(hload);
}

typedef int (*raw_launch_fn)(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                             unsigned shmem, void* stream, void** params, void** extra);

static void bench_launch(void) {
    int trials = g_quick ? 3 : 20, N = g_quick ? 1000 : 10000, i, j, na = 0, nr = 0, bad = 0;
    double *va = (double*)malloc((size_t)trials * sizeof(double)), *vr = (double*)malloc((size_t)trials * sizeof(double));
    double *ga = (double*)malloc((size_t)trials * sizeof(double)), *gr = (double*)malloc((size_t)trials * sizeof(double));
    const ak_device_info* dev = ak_context_device(g_ctx);
    ak_kernel* k = NULL;
    ak_event *e0 = NULL, *e1 = NULL;
    raw_launch_fn raw = NULL;
    void* dptr = NULL;
    void* params[1];
    ak_dim3 grid = { 1, 1, 1 }, block = { 64, 1, 1 };
    const char* raw_name = "none";
    bresult* r;
    if (!va || !vr || !ga || !gr) goto out;
    if (ak_kernel_get(g_ctx, k_empty_src, "akb_empty", NULL, &k) != AK_OK) { fail("launch: kernel"); goto out; }
    ak_kernel_set_cpu(k, cpu_noop, NULL);
    if (ak_malloc(g_ctx, 256, NULL, &dptr) != AK_OK) { fail("launch: buffer"); goto out; }
    params[0] = &dptr;
    if (ak_event_create(g_ctx, &e0) != AK_OK || ak_event_create(g_ctx, &e1) != AK_OK) { fail("launch: events"); goto out; }
    /* the raw entry point, loaded here from the library the context uses */
    if (dev->backend == AK_BACKEND_CUDA || dev->backend == AK_BACKEND_HIP) {
        const char* lib = dev->backend == AK_BACKEND_CUDA ? "libcuda.so.1" : g_ctx->api->hip_path;
        const char* sym = dev->backend == AK_BACKEND_CUDA ? "cuLaunchKernel" : "hipModuleLaunchKernel";
        void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        void* p = h ? dlsym(h, sym) : NULL;
        if (!p) {
            const char* why = dlerror();
            fail_msg("launch: raw entry point", why ? why : "dlsym failed");
        }
        memcpy(&raw, &p, sizeof p);
        raw_name = sym;
    }
    /* warm-up: both paths once, and bind the context to this thread */
    if (ak_launch(k, grid, block, 0, NULL, params) != AK_OK || ak_device_synchronize(g_ctx) != AK_OK) { fail("launch: warm-up"); goto out; }
    if (raw) {
        int e;
        if (_ak_bind(g_ctx) != AK_OK) { fail("launch: bind"); goto out; }
        e = raw(k->fn, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL);
        if (e || ak_device_synchronize(g_ctx) != AK_OK) {
            char m[96];
            snprintf(m, sizeof m, "%s returned %d", raw_name, e);
            fail_msg("launch: raw warm-up", m);
            raw = NULL;
        }
    }
    /* the two batches alternate which goes first (ak_launch on even trials,
     * the raw launch on odd ones): neither side always follows a synchronize */
    for (i = 0; i < 2 * trials && !bad; i++) {
        double t0;
        float ms = 0;
        if (((i & 1) ^ ((i >> 1) & 1)) == 0) {   /* ak_launch: trial t's first batch when t is even, its second when odd */
            t0 = now_us();
            if (ak_event_record(e0, NULL) != AK_OK) { fail("launch: event"); bad = 1; break; }
            for (j = 0; j < N; j++)
                if (ak_launch(k, grid, block, 0, NULL, params) != AK_OK) { fail("ak_launch"); bad = 1; break; }
            if (bad || ak_event_record(e1, NULL) != AK_OK || ak_stream_synchronize(g_ctx, NULL) != AK_OK) { if (!bad) fail("launch: sync"); bad = 1; break; }
            va[na] = (now_us() - t0) / N;
            if (ak_event_elapsed_ms(e0, e1, &ms) != AK_OK) { fail("launch: elapsed"); bad = 1; break; }
            ga[na++] = (double)ms * 1e3 / N;
        } else if (raw) {   /* raw driver launch, same function, same arguments */
            int e = 0;
            t0 = now_us();
            if (ak_event_record(e0, NULL) != AK_OK) { fail("launch: event"); bad = 1; break; }
            for (j = 0; j < N && !e; j++) e = raw(k->fn, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL);
            if (e) { char m[96]; snprintf(m, sizeof m, "%s returned %d", raw_name, e); fail_msg("raw launch", m); bad = 1; break; }
            if (ak_event_record(e1, NULL) != AK_OK || ak_stream_synchronize(g_ctx, NULL) != AK_OK) { fail("raw launch: sync"); bad = 1; break; }
            vr[nr] = (now_us() - t0) / N;
            if (ak_event_elapsed_ms(e0, e1, &ms) != AK_OK) { fail("raw launch: elapsed"); bad = 1; break; }
            gr[nr++] = (double)ms * 1e3 / N;
        }
    }
    r = add_result("launch_ak", "us", va, na, N);
    if (r) {
        bstats g = compute_stats(ga, na);
        extra_add(r, ", \"gpu_us_per_launch_median\": %.6f", g.median);
        snprintf(r->note, sizeof r->note, "host time of N empty-kernel ak_launch calls + synchronize, / N (grid 1, block 64, one pointer argument); "
                 "gpu_us_per_launch from ak_event timing around the N launches");
    }
    if (nr) {
        r = add_result("launch_raw", "us", vr, nr, N);
        if (r) {
            bstats g = compute_stats(gr, nr);
            extra_add(r, ", \"gpu_us_per_launch_median\": %.6f, \"entry_point\": \"%s\"", g.median, raw_name);
            snprintf(r->note, sizeof r->note, "the same through %s (dlopen'ed by the bench) on the same function", raw_name);
        }
    } else if (g_nres < MAX_RESULTS) {
        /* raw launch not available (cpu): a null entry */
        bresult* z = &g_res[g_nres++];
        memset(z, 0, sizeof *z);
        snprintf(z->name, sizeof z->name, "launch_raw");
        z->unit = "us";
        z->s.mean = z->s.std = z->s.min = z->s.max = z->s.median = NAN;
        z->calls_per_trial = N;
        snprintf(z->note, sizeof z->note, "%s", dev->backend == AK_BACKEND_CPU ? "cpu backend: no driver launch" : "raw entry point unavailable");
    }
out:
    ak_free(g_ctx, dptr);
    ak_event_destroy(e0);
    ak_event_destroy(e1);
    ak_kernel_release(k);
    free(va); free(vr); free(ga); free(gr);
}

static void size_label(size_t b, char* out, size_t cap) {
    if (b >= ((size_t)1 << 20)) snprintf(out, cap, "%zuMiB", b >> 20);
    else if (b >= 1024) snprintf(out, cap, "%zuKiB", b >> 10);
    else snprintf(out, cap, "%zuB", b);
}

static double g_pool_min_ratio = NAN;
static char g_pool_detail[256];

static void bench_pool(void) {
    static const size_t sizes[4] = { 256, (size_t)64 << 10, (size_t)4 << 20, (size_t)64 << 20 };
    int trials = g_quick ? 10 : 100, batch = g_quick ? 100 : 1000, rtrials = g_quick ? 10 : 100;
    double* v = (double*)malloc((size_t)(trials > rtrials ? trials : rtrials) * sizeof(double));
    int si, i, j;
    g_pool_detail[0] = 0;
    if (!v) return;
    for (si = 0; si < 4; si++) {
        size_t bytes = sizes[si];
        char lab[32], name[64];
        int n = 0, bad = 0;
        double pool_med = NAN, rt_med = NAN;
        bresult* r;
        size_label(bytes, lab, sizeof lab);
        /* pool, warm */
        {
            void* p = NULL;
            if (ak_malloc(g_ctx, bytes, NULL, &p) != AK_OK) { fail("pool warm-up"); continue; }
            ak_free(g_ctx, p);
        }
        for (i = 0; i < trials && !bad; i++) {
            double t0 = now_us();
            for (j = 0; j < batch; j++) {
                void* p = NULL;
                if (ak_malloc(g_ctx, bytes, NULL, &p) != AK_OK) { fail("ak_malloc"); bad = 1; break; }
                if (ak_free(g_ctx, p) != AK_OK) { fail("ak_free"); bad = 1; break; }
            }
            if (!bad) v[n++] = (now_us() - t0) / batch;
        }
        snprintf(name, sizeof name, "pool_alloc_free_%s", lab);
        r = add_result(name, "us", v, n, batch);
        if (r) { extra_add(r, ", \"bytes\": %zu", bytes); pool_med = r->s.median; }
        /* runtime */
        ak_pool_trim(g_ctx);
        n = 0;
        bad = 0;
        for (i = 0; i < rtrials && !bad; i++) {
            void* p = NULL;
            double t0 = now_us();
            if (_ak_backend_alloc(g_ctx, bytes, &p) != AK_OK) { fail("runtime alloc"); bad = 1; break; }
            _ak_backend_free(g_ctx, p);
            v[n++] = now_us() - t0;
        }
        snprintf(name, sizeof name, "runtime_alloc_free_%s", lab);
        r = add_result(name, "us", v, n, 1);
        if (r) {
            const ak_device_info* dev = ak_context_device(g_ctx);
            extra_add(r, ", \"bytes\": %zu", bytes);
            snprintf(r->note, sizeof r->note, "%s", dev->backend == AK_BACKEND_CUDA ? "cuMemAlloc + cuMemFree"
                     : dev->backend == AK_BACKEND_HIP ? "hipMalloc + hipFree" : "posix_memalign + free (cpu backend)");
            rt_med = r->s.median;
        }
        if (pool_med > 0 && rt_med == rt_med) {
            double q = rt_med / pool_med;
            char part[48];
            snprintf(part, sizeof part, "%s%s %.1fx", g_pool_detail[0] ? ", " : "", lab, q);
            strncat(g_pool_detail, part, sizeof g_pool_detail - strlen(g_pool_detail) - 1);
            if (g_pool_min_ratio != g_pool_min_ratio || q < g_pool_min_ratio) g_pool_min_ratio = q;
        }
    }
    ak_pool_trim(g_ctx);
    free(v);
}

static void bench_streams_events(void) {
    int trials = g_quick ? 20 : 200, i, n;
    double* v = (double*)malloc((size_t)trials * sizeof(double));
    ak_event* e = NULL;
    if (!v) return;
    for (i = 0, n = 0; i < trials; i++) {
        ak_stream* s = NULL;
        double t0 = now_us();
        if (ak_stream_create(g_ctx, "bench", 0, &s) != AK_OK) { fail("ak_stream_create"); break; }
        ak_stream_destroy(s);
        v[n++] = now_us() - t0;
    }
    add_result("stream_create_destroy", "us", v, n, 1);
    for (i = 0, n = 0; i < trials; i++) {
        ak_event* x = NULL;
        double t0 = now_us();
        if (ak_event_create(g_ctx, &x) != AK_OK) { fail("ak_event_create"); break; }
        ak_event_destroy(x);
        v[n++] = now_us() - t0;
    }
    add_result("event_create_destroy", "us", v, n, 1);
    if (ak_event_create(g_ctx, &e) != AK_OK) { fail("ak_event_create"); free(v); return; }
    ak_device_synchronize(g_ctx);
    for (i = 0, n = 0; i < trials; i++) {
        double t0 = now_us();
        if (ak_event_record(e, NULL) != AK_OK || ak_event_synchronize(e) != AK_OK) { fail("event record/synchronize"); break; }
        v[n++] = now_us() - t0;
    }
    {
        bresult* r = add_result("event_record_synchronize", "us", v, n, 1);
        if (r) snprintf(r->note, sizeof r->note, "on the idle default stream");
    }
    ak_event_destroy(e);
    free(v);
}

static void bench_prof(void) {
    int trials = g_quick ? 10 : 100, batch = 1000, i, j, n = 0, bad = 0, cnt = 0;
    double* v = (double*)malloc((size_t)trials * sizeof(double));
    ak_config cfg = bench_config(1);
    ak_context* pc = NULL;
    ak_prof_stat st;
    bresult* r;
    if (!v) return;
    if (ak_context_create(&cfg, &pc) != AK_OK) { fail("profiling context"); free(v); return; }
    memset(&st, 0, sizeof st);
    for (i = 0; i < trials && !bad; i++) {
        double t0 = now_us();
        for (j = 0; j < batch; j++)
            if (ak_prof_begin(pc, "bench_region", NULL) != AK_OK || ak_prof_end(pc) != AK_OK) { fail("ak_prof_begin/end"); bad = 1; break; }
        if (bad) break;
        v[n++] = (now_us() - t0) / batch;
        if (i == 0 && ak_prof_stats(pc, &st, 1, &cnt) != AK_OK) { fail("ak_prof_stats"); bad = 1; }
        ak_prof_reset(pc);
    }
    r = add_result("prof_region_on", "us", v, n, batch);
    if (r) {
        extra_add(r, ", \"gpu_timed\": %d", cnt ? st.gpu_timed : 0);
        snprintf(r->note, sizeof r->note, "ak_prof_begin + ak_prof_end with profiling on (GPU-timed with events on a GPU backend); "
                 "statistics resolved and reset between trials, outside the timing");
    }
    ak_context_destroy(pc);
    n = 0;
    bad = 0;
    for (i = 0; i < trials && !bad; i++) {
        double t0 = now_us();
        for (j = 0; j < batch; j++)
            if (ak_prof_begin(g_ctx, "bench_region", NULL) != AK_OK || ak_prof_end(g_ctx) != AK_OK) { fail("ak_prof_begin/end (off)"); bad = 1; break; }
        if (!bad) v[n++] = (now_us() - t0) / batch;
    }
    r = add_result("prof_region_off", "us", v, n, batch);
    if (r) snprintf(r->note, sizeof r->note, "profiling off: the calls return at once");
    free(v);
}

/* A number for a message: "null" when not measured. */
static const char* num_text(double v, char* buf, size_t cap) {
    if (v != v) snprintf(buf, cap, "null");
    else snprintf(buf, cap, "%.4g", v);
    return buf;
}

static void compute_ratios(int gpu) {
    const bresult *w = find_result("cache_warm_hit"), *c = find_result("fresh_process_cold_compile"),
                  *d = find_result("fresh_process_disk_hit"), *la = find_result("launch_ak"), *lr = find_result("launch_raw");
    char det[256], a[32], b[32];
    double q;
    q = w ? w->s.median : NAN;
    _ak_fmt(det, sizeof det, "median of ak_kernel_get + ak_kernel_release on a memory hit");
    add_ratio("warm_hit_us", q, "< 0.2 us", q < 0.2, gpu, det);
    q = (c && d && d->s.median > 0) ? c->s.median / d->s.median : NAN;
    _ak_fmt(det, sizeof det, "fresh process: cold compile %s ms / disk hit %s ms (medians)",
             num_text(c ? c->s.median : NAN, a, sizeof a), num_text(d ? d->s.median : NAN, b, sizeof b));
    add_ratio("cold_compile_over_disk_hit", q, ">= 100x", q >= 100.0, gpu, det);
    q = (la && lr && lr->s.median > 0) ? la->s.median / lr->s.median : NAN;
    _ak_fmt(det, sizeof det, "ak_launch %s us / raw driver launch %s us per launch (medians)",
             num_text(la ? la->s.median : NAN, a, sizeof a), num_text(lr ? lr->s.median : NAN, b, sizeof b));
    add_ratio("launch_over_raw", q, "<= 1.02 (within 2%)", q <= 1.02, gpu, det);
    _ak_fmt(det, sizeof det, "runtime malloc+free / pool alloc+free, smallest over sizes (%s)", g_pool_detail);
    add_ratio("runtime_over_pool_alloc_free", g_pool_min_ratio, ">= 50x at every size", g_pool_min_ratio >= 50.0, gpu, det);
}

static void print_table(const ak_device_info* dev) {
    int i;
    printf("\n%-32s %14s  %-4s %8s\n", "name", "median", "unit", "trials");
    for (i = 0; i < g_nres; i++) {
        const bresult* r = &g_res[i];
        if (r->s.median != r->s.median) printf("%-32s %14s  %-4s %8s\n", r->name, "null", r->unit, "-");
        else printf("%-32s %14.4f  %-4s %8d\n", r->name, r->s.median, r->unit, r->s.n);
    }
    printf("\ntargets (%s, %s):\n", dev->name, ak_backend_name(dev->backend));
    for (i = 0; i < g_nratio; i++) {
        const bratio* q = &g_ratio[i];
        char val[32];
        if (q->value != q->value) snprintf(val, sizeof val, "null");
        else snprintf(val, sizeof val, "%.4g", q->value);
        printf("  %-30s %10s  target %-22s %s\n", q->name, val, q->target, q->status);
        if (q->detail[0]) printf("      %s\n", q->detail);
    }
    if (g_nerr) {
        printf("\n%d error(s):\n", g_nerr);
        for (i = 0; i < g_nerr; i++) printf("  %s\n", g_err[i]);
    }
}

int main(int argc, char** argv) {
    const char* out_path = NULL;
    const ak_device_info* dev;
    ak_config cfg;
    const char* tmp;
    int i, gpu;
    if (argc >= 2 && !strcmp(argv[1], "--child")) return child_main(argc, argv);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) g_quick = 1;
        else if (argv[i][0] == '-' || out_path) {
            fprintf(stderr, "usage: %s [--quick] OUT.json\n", argv[0]);
            return 2;
        } else out_path = argv[i];
    }
    if (!out_path) { fprintf(stderr, "usage: %s [--quick] OUT.json\n", argv[0]); return 2; }
    if (access("/proc/self/exe", X_OK) != 0) g_self = argv[0];
    /* a fresh cache directory: nothing from earlier runs can hit */
    tmp = getenv("TMPDIR");
    snprintf(g_cache_dir, sizeof g_cache_dir, "%s/akbench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_cache_dir)) { fprintf(stderr, "bench_runtime: mkdtemp %s: %s\n", g_cache_dir, strerror(errno)); return 1; }

    printf("bench_runtime%s: cache dir %s\n", g_quick ? " (quick)" : "", g_cache_dir);
    bench_context(0);
    cfg = bench_config(0);
    if (ak_context_create(&cfg, &g_ctx) != AK_OK) {
        fprintf(stderr, "bench_runtime: no context: %s\n", ak_last_error());
        rm_tree(g_cache_dir, 0);
        return 1;
    }
    dev = ak_context_device(g_ctx);
    gpu = dev->backend != AK_BACKEND_CPU;
    printf("device: %s (%s, %s backend, %s)\n", dev->name, dev->arch, ak_backend_name(dev->backend), dev->compiler_version);
    fflush(stdout);
    bench_context(1);
    bench_device_info();
    printf("  context, device info done\n"); fflush(stdout);
    bench_cold_compile();
    bench_warm_hit();
    printf("  compile, warm hit done\n"); fflush(stdout);
    bench_fresh_process();
    printf("  fresh-process disk hit done\n"); fflush(stdout);
    bench_launch();
    printf("  launch done\n"); fflush(stdout);
    bench_pool();
    printf("  pool done\n"); fflush(stdout);
    bench_streams_events();
    bench_prof();
    compute_ratios(gpu);
    print_table(dev);
    if (write_json(out_path, dev)) printf("\nwrote %s (%d results, %d ratios)\n", out_path, g_nres, g_nratio);
    else g_nerr++;
    ak_context_destroy(g_ctx);
    rm_tree(g_cache_dir, 0);
    return g_nerr ? 1 : 0;
}
