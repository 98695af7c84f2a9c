/* bench_hotpath - times amdkit's runtime hot paths on a machine WITHOUT a GPU,
 * through the cuda backend's own code, so a change to the warm hit, the
 * disk hit or ak_launch can be A/B'd locally before the H100 run.
 *
 *   build/bench_hotpath [--quick]
 *
 * How: a cpu context is switched to the cuda backend's table
 * (_ak_backend_cuda, >>impl:backend) with the driver entry points it needs
 * replaced in the context's own function table (ctx->api): cuModuleLoadData
 * and cuModuleGetFunction hand out fake handles, cuLaunchKernel and
 * cuCtxSetCurrent count. Compiles run the real NVRTC (for sm_90), so every
 * line of ak_kernel_get / ak_kernel_release / ak_launch that runs on the
 * H100 runs here, the driver calls excepted. Needs NVRTC (the CUDA toolkit);
 * without it the figures are skipped with a message.
 *
 * Prints (median of many trials, host clock):
 *   warm_hit_ns         ak_kernel_get + ak_kernel_release of a memory-cached kernel (per pair)
 *   warm_hit_lib_ns     the same for a kernel-library-sized source (ak_prelude_source()-long)
 *   disk_hit_us         ak_kernel_get in a fresh context (empty memory level), served from disk:
 *                       read + verify + (fake) module load + index update; the options of the
 *                       bench_runtime child (one -D) so the same path runs
 *   disk_hit_fresh_us   the same in a fresh process (what bench_runtime's fresh_process_disk_hit
 *                       times on the GPU, less the driver's module load); its parts:
 *     target_check_us   the compiler check (ak_compile_target_check: NVRTC's arch list) of that get
 *     get_after_us      ak_kernel_get after that check: key digest, read, checks, load, index
 *   disk_read_us        the disk level's read + checks alone (_ak_cache_disk_read)
 *   disk_verify_us      the code-object check (_ak_code_object_check) alone
 *   launch_ns / raw_ns  ak_launch vs the (fake) cuLaunchKernel called directly: the
 *                       difference is amdkit's own work per launch
 * Timing output only: no target, no assert; exit code 0 unless an API call failed.
 */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/wait.h>
#include "../tests/fake_cuda.h"

extern char** environ;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
static int cmp_d(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y ? 1 : 0;
}
static double median(double* v, int n) {
    if (n <= 0) return -1;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- the fake driver --------------------------------------------------------- */
static long fk_loads, fk_unloads, fk_functions, fk_launches, fk_sets;
static char fk_module;   /* the fake module handle's target */
static _akT_CUresult fk_set_current(_akT_CUcontext c) { (void)c; fk_sets++; return 0; }
static _akT_CUresult fk_sync(void) { return 0; }
static _akT_CUresult fk_load(_akT_CUmodule* m, const void* image) {
    (void)image;
    fk_loads++;
    *m = (_akT_CUmodule)(void*)&fk_module;
    return 0;
}
static _akT_CUresult fk_unload(_akT_CUmodule m) { (void)m; fk_unloads++; return 0; }
static _akT_CUresult fk_function(_akT_CUfunction* f, _akT_CUmodule m, const char* name) {
    (void)m; (void)name;
    fk_functions++;
    *f = (_akT_CUfunction)(void*)&fk_functions;
    return 0;
}
static _akT_CUresult fk_launch(_akT_CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                               unsigned sh, _akT_CUstream s, void** args, void** extra) {
    (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)sh; (void)s; (void)args; (void)extra;
    fk_launches++;
    return 0;
}

/* A cpu context (its pool and cache made as usual) running the cuda table on the fake driver (tests/fake_cuda.h),
 * compiling with the real NVRTC. */
static ak_context* fake_cuda_context(const char* cache_dir) {
    static const akf_driver fake = { fk_set_current, fk_sync, fk_load, fk_unload, fk_function, fk_launch,
                                     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU;
    cfg.cache_dir = cache_dir;
    cfg.log_level = AK_LOG_ERROR;
    if (ak_context_create(&cfg, &ctx) != AK_OK) { fprintf(stderr, "context: %s\n", ak_last_error()); return NULL; }
    {
        char why[512];
        if (!_ak_load_nvrtc(ctx->api, why, sizeof why)) { fprintf(stderr, "bench_hotpath: no NVRTC here (%s); nothing to time\n", why); ak_context_destroy(ctx); return NULL; }
    }
    if (!ctx->api->lib_nvrtc) { fprintf(stderr, "bench_hotpath: no NVRTC here; nothing to time\n"); ak_context_destroy(ctx); return NULL; }
    akf_cuda_attach(ctx, &fake, "sm_90");
    return ctx;
}
static void fake_destroy(ak_context* ctx) {
    akf_cuda_detach(ctx);
    if (ctx) ak_context_destroy(ctx);
}

static const char k_empty_src[] = "extern \"C\" __global__ void akb_empty(float* p) { (void)p; }\n";
static const char k_cold_src[] =
    "#ifndef AKB_UNIQUE\n#define AKB_UNIQUE 0\n#endif\n"
    "extern \"C\" __global__ void akb_cold(float* y, long long n) {\n"
    "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)\n"
    "        y[i] = y[i] * 2.0f + (float)AKB_UNIQUE;\n"
    "}\n";

static int g_failed;
#define CHECK(x) do { if ((x) != AK_OK) { fprintf(stderr, "FAILED %s: %s\n", #x, ak_last_error()); g_failed = 1; goto out; } } while (0)

static double time_warm(ak_context* ctx, const char* src, const char* name, int trials, int batch) {
    double* v = (double*)malloc((size_t)trials * sizeof *v), m;
    ak_kernel* keep = NULL;
    int i, j;
    if (!v) return -1;
    if (ak_kernel_get(ctx, src, name, NULL, &keep) != AK_OK) { fprintf(stderr, "warm: %s\n", ak_last_error()); g_failed = 1; free(v); return -1; }
    for (i = 0; i < trials; i++) {
        double t0 = now_ns();
        for (j = 0; j < batch; j++) {
            ak_kernel* k = NULL;
            if (ak_kernel_get(ctx, src, name, NULL, &k) != AK_OK) { g_failed = 1; break; }
            ak_kernel_release(k);
        }
        v[i] = (now_ns() - t0) / batch;
    }
    ak_kernel_release(keep);
    m = median(v, trials);
    free(v);
    return m;
}

/* --disk-child DIR UNIQUE SPLIT: one disk hit in this fresh process; prints "us_check us_get" */
static int disk_child(char** argv) {
    ak_context* ctx = fake_cuda_context(argv[2]);
    ak_kernel* k = NULL;
    ak_compile_options o;
    const char* opts[1];
    double t0, t1, t2;
    int split = atoi(argv[4]);
    if (!ctx) return 1;
    opts[0] = argv[3];
    memset(&o, 0, sizeof o);
    o.options = opts;
    o.num_options = 1;
    o.source_name = "bench_cold.hip";
    t0 = now_ns();
    if (split && ak_compile_target_check(ctx, "sm_90") != AK_OK) return 1;
    t1 = now_ns();
    if (ak_kernel_get(ctx, k_cold_src, "akb_cold", &o, &k) != AK_OK || ak_kernel_cache_source(k) != AK_CACHE_DISK) return 1;
    t2 = now_ns();
    printf("%.3f %.3f\n", (t1 - t0) / 1e3, (t2 - t1) / 1e3);
    ak_kernel_release(k);
    fake_destroy(ctx);
    return 0;
}
static int run_disk_child(const char* self, const char* dir, const char* def, int split, double* check_us, double* get_us) {
    char out[] = "/tmp/bench_hotpath_child_XXXXXX", line[128], sp[4];
    char* args[6];
    int fd = mkstemp(out), status = 0, ok = 0;
    pid_t pid;
    posix_spawn_file_actions_t fa;
    FILE* f;
    if (fd < 0) return 0;
    snprintf(sp, sizeof sp, "%d", split);
    args[0] = (char*)self; args[1] = (char*)"--disk-child"; args[2] = (char*)dir; args[3] = (char*)def; args[4] = sp; args[5] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    if (posix_spawn(&pid, self, &fa, NULL, args, environ) == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
        !WEXITSTATUS(status) && (f = fopen(out, "r")) != NULL) {
        ok = fgets(line, sizeof line, f) && sscanf(line, "%lf %lf", check_us, get_us) == 2;
        fclose(f);
    }
    posix_spawn_file_actions_destroy(&fa);
    close(fd);
    unlink(out);
    return ok;
}

int main(int argc, char** argv) {
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int trials = quick ? 20 : 200, i, n;
    char dir[256], def[64];
    ak_context* ctx = NULL;
    ak_kernel* k = NULL;
    double *v = NULL, *w = NULL, t0;
    const char* opts[1];
    ak_compile_options o;
    ak_cache_stats st;
    _ak_cache_key key;
    char* lib = NULL;

    if (argc == 5 && !strcmp(argv[1], "--disk-child")) return disk_child(argv);
    snprintf(dir, sizeof dir, "/tmp/bench_hotpath-%ld", (long)getpid());
    if (!(ctx = fake_cuda_context(dir))) return 0;
    v = (double*)malloc((size_t)trials * sizeof *v);
    w = (double*)malloc((size_t)trials * sizeof *w);
    if (!v || !w) goto out;

    /* warm hit: a tiny source, and one as long as the prelude (the kernel library's sources are kilobytes) */
    printf("warm_hit_ns        %8.1f   (ak_kernel_get + ak_kernel_release, memory hit, %zu-byte source)\n",
           time_warm(ctx, k_empty_src, "akb_empty", trials, 2000), strlen(k_empty_src));
    {   /* a kernel-library-sized source: the kernel behind 8 KiB of comment lines */
        size_t pl = 8192, j;
        lib = (char*)malloc(pl + sizeof k_empty_src);
        if (!lib) goto out;
        for (j = 0; j < pl; j += 64) memcpy(lib + j, "// padding: the kernel library's sources are kilobytes long ...\n", 64);
        memcpy(lib + pl, k_empty_src, sizeof k_empty_src);
        printf("warm_hit_lib_ns    %8.1f   (the same, %zu-byte source)\n", time_warm(ctx, lib, "akb_empty", trials, 2000), strlen(lib));
    }

    /* launch: ak_launch vs the (fake) driver launch on the same function */
    {
        float* p = NULL;
        void* args[1];
        ak_dim3 g = { 1, 1, 1 }, b = { 64, 1, 1 };
        int batch = 10000, j;
        CHECK(ak_kernel_get(ctx, k_empty_src, "akb_empty", NULL, &k));
        args[0] = &p;
        for (i = 0; i < trials; i++) {
            t0 = now_ns();
            for (j = 0; j < batch; j++) if (ak_launch(k, g, b, 0, NULL, args) != AK_OK) { g_failed = 1; break; }
            v[i] = (now_ns() - t0) / batch;
            t0 = now_ns();
            for (j = 0; j < batch; j++) ctx->api->cuLaunchKernel(k->fn, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL);
            w[i] = (now_ns() - t0) / batch;
        }
        printf("launch_ns          %8.1f   (ak_launch on the fake driver)\n", median(v, trials));
        printf("launch_raw_ns      %8.1f   (the fake cuLaunchKernel called directly)\n", median(w, trials));
        ak_kernel_release(k);
        k = NULL;
    }

    /* disk hit: compile once (real NVRTC) into the disk level, then fresh contexts read it */
    snprintf(def, sizeof def, "-DAKB_UNIQUE=%ld", (long)getpid());
    opts[0] = def;
    memset(&o, 0, sizeof o);
    o.options = opts;
    o.num_options = 1;
    o.source_name = "bench_cold.hip";
    t0 = now_ns();
    CHECK(ak_kernel_get(ctx, k_cold_src, "akb_cold", &o, &k));
    printf("cold_compile_ms    %8.2f   (real NVRTC, sm_90, + fake load + disk write)\n", (now_ns() - t0) / 1e6);
    ak_kernel_release(k);
    k = NULL;
    n = quick ? 10 : 60;
    for (i = 0; i < n; i++) {
        ak_context* c2 = fake_cuda_context(dir);
        if (!c2) { g_failed = 1; goto out; }
        t0 = now_ns();
        if (ak_kernel_get(c2, k_cold_src, "akb_cold", &o, &k) != AK_OK) { fprintf(stderr, "disk hit: %s\n", ak_last_error()); g_failed = 1; fake_destroy(c2); goto out; }
        v[i] = (now_ns() - t0) / 1e3;
        if (ak_kernel_cache_source(k) != AK_CACHE_DISK) { fprintf(stderr, "disk hit: not served from disk\n"); g_failed = 1; }
        ak_kernel_release(k);
        k = NULL;
        fake_destroy(c2);
    }
    printf("disk_hit_us        %8.1f   (ak_kernel_get in a fresh context: read + verify + fake load + index)\n", median(v, n));
    {   /* the same in fresh processes: as a whole, then the compiler check and the rest apart */
        int m = quick ? 5 : 20, got = 0, got2 = 0;
        double c0, g0;
        double* x = (double*)malloc((size_t)m * 3 * sizeof *x);
        if (!x) goto out;
        for (i = 0; i < m; i++) {
            if (run_disk_child("/proc/self/exe", dir, def, 0, &c0, &g0)) x[got++] = g0;
            if (run_disk_child("/proc/self/exe", dir, def, 1, &c0, &g0)) { x[m + got2] = c0; x[2 * m + got2++] = g0; }
        }
        if (got < m || got2 < m) { fprintf(stderr, "disk-hit children failed (%d, %d of %d)\n", got, got2, m); g_failed = 1; }
        printf("disk_hit_fresh_us  %8.1f   (the same in a fresh process, as bench_runtime's child; the driver's load excepted)\n", median(x, got));
        printf("  target_check_us  %8.1f   (its compiler check: ak_compile_target_check, NVRTC's arch list)\n", median(x + m, got2));
        printf("  get_after_us     %8.1f   (ak_kernel_get after that check)\n", median(x + 2 * m, got2));
        free(x);
    }
    /* its parts: the disk read (+ header, size and SHA-256 checks) and the code-object check */
    {
        _ak_opts op;
        _ak_str canon = { NULL, 0, 0, 0 };
        _ak_compile_job job;
        const char* f[_AK_KF_COUNT];
        size_t l[_AK_KF_COUNT];
        uint8_t digest[32];
        char cid[128], why[256];
        void* data = NULL;
        void** keep = (void**)calloc((size_t)n, sizeof(void*));   /* freed after the loop: a free per iteration */
        size_t size = 0;                                             /* made the allocator trim and refault the heap */
        if (!keep) goto out;
        CHECK(_ak_prepare_compile(ctx, "sm_90", k_cold_src, "akb_cold", &o, &op, &canon, &job, &key, cid, sizeof cid));
        key.device_tag = ctx->dev_tag;
        _ak_cache_key_fields(&key, f, l);
        for (i = 0; i < n; i++) {
            t0 = now_ns();
            _ak_cache_disk_digest(f, l, digest);
            if (!_ak_cache_disk_read(ctx->cache, digest, "akb_cold", &data, &size)) { fprintf(stderr, "disk read failed\n"); g_failed = 1; break; }
            v[i] = (now_ns() - t0) / 1e3;
            t0 = now_ns();
            if (_ak_code_object_check("sm_90", data, size, why, sizeof why) != 0) { fprintf(stderr, "verify: %s\n", why); g_failed = 1; }
            w[i] = (now_ns() - t0) / 1e3;
            keep[i] = data;
            data = NULL;
        }
        for (i = 0; i < n; i++) _ak_dealloc(keep[i]);
        free(keep);
        printf("disk_read_us       %8.1f   (key digest + open/read/close + header, size, SHA-256 checks; %zu-byte cubin)\n", median(v, n), size);
        printf("disk_verify_us     %8.1f   (code-object check)\n", median(w, n));
        for (i = 0; i < n; i++) {
            ak_context* c2;
            t0 = now_ns();
            c2 = fake_cuda_context(dir);
            v[i] = (now_ns() - t0) / 1e3;
            fake_destroy(c2);
        }
        printf("context_create_us  %8.1f   (for scale: not part of the disk hit)\n", median(v, n));
        _ak_str_free(&canon);
    }
    ak_cache_stats_get(ctx, &st);
    printf("driver calls: %ld loads, %ld functions, %ld launches, %ld binds; cache: %llu memory hits, %llu compilations\n",
           fk_loads, fk_functions, fk_launches, fk_sets, st.memory_hits, st.compilations);
out:
    free(lib);
    free(v);
    free(w);
    fake_destroy(ctx);
    {   /* remove the scratch cache folder */
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    }
    return g_failed;
}
