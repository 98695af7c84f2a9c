/* Test runner: runs every suite (or those named on the command line) and
 * prints `N passed, N failed` last. */
#define AMDKIT_IMPLEMENTATION
#define AMDKIT_TESTS   /* the test-only internals (_ak_pool_check, _ak_hash128) */
#include "../amdkit.h"
#include "ak_test.h"
#include "ti_pool.c"
#include "ti_cache.c"
#include "ti_graph.c"
#include "ti_races.c"
#include "ti_backend.c"
#include "ti_kargs.c"
#include "ti_rowop.c"
#include "ti_multi.c"
#include "ti_gpu_multi.c"
#include "ti_harden.c"
#include "ti_rocm.c"
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

/* Every suite, in run order. Add one line per suite file. */
#define AKT_SUITES(X) \
    X(basics) \
    X(config) \
    X(arch) \
    X(prof) \
    X(context) \
    X(compile) \
    X(target) \
    X(rocm_internals) \
    X(ops_elementwise) \
    X(ops_quant) \
    X(gpu_quant) \
    X(gpu_elementwise) \
    X(ops_reduce) \
    X(gpu_reduce) \
    X(ops_llm) \
    X(gpu_llm) \
    X(ops_random) \
    X(gpu_random) \
    X(ops_scan) \
    X(gpu_scan) \
    X(ops_axis) \
    X(gpu_axis) \
    X(ops_pool) \
    X(ops_conv) \
    X(gpu_conv) \
    X(gpu_pool) \
    X(ops_chnorm) \
    X(gpu_chnorm) \
    X(ops_loss) \
    X(gpu_loss) \
    X(ops_attention) \
    X(gpu_attention) \
    X(gpu_prof) \
    X(gpu_runtime) \
    X(graph) \
    X(gpu_graph) \
    X(cache) \
    X(cache_api) \
    X(pool) \
    X(pool_internals) \
    X(matrix) \
    X(ops_gemm) \
    X(gpu_gemm) \
    X(gpu_gemm_fp8) \
    X(gpu_gemm_i8) \
    X(races) \
    X(backend) \
    X(kargs) \
    X(multi) \
    X(multi_internals) \
    X(gpu_multi) \
    X(compile_kernels) \
    X(rowop) \
    X(gpu_rowop) \
    X(harden) \
    X(autotune) \
    X(gpu_autotune)

#define AKT_DECL(name) void akt_suite_##name(void);
AKT_SUITES(AKT_DECL)

static int akt_passed, akt_failed, akt_skipped, akt_cur_failed, akt_cur_skipped;
static const char* akt_cur_name;
/* AKT_SAMPLE=K/N: run only the tests whose index in their suite is K mod N
 * (tests/gpu_check.sh samples the GPU suites this way under the slower
 * compute-sanitizer tools); the others are not run and not counted. */
static int akt_sample_k, akt_sample_n = 1, akt_suite_index;

void akt_fail(const char* file, int line, const char* fmt, ...) {
    va_list ap;
    fprintf(stdout, "    FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fprintf(stdout, "\n");
    akt_cur_failed++;
}
void akt_skip(const char* why) {
    fprintf(stdout, "    skip: %s\n", why);
    akt_cur_skipped = 1;
}
void akt_run(const char* name, void (*fn)(void)) {
    static const char* only;
    static int only_read;
    if (akt_suite_index++ % akt_sample_n != akt_sample_k) return;
    if (!only_read) { only = getenv("AKT_ONLY"); only_read = 1; }
    if (only && *only && !strstr(name, only)) return;   /* AKT_ONLY=SUBSTR: only the tests whose name has it */
    akt_cur_name = name;
    akt_cur_failed = 0;
    akt_cur_skipped = 0;
    ak_clear_error();
    fn();
    if (akt_cur_failed) { akt_failed++; printf("  FAIL %s\n", name); }
    else if (akt_cur_skipped) { akt_skipped++; printf("  skip %s\n", name); }
    else { akt_passed++; printf("  ok   %s\n", name); }
    fflush(stdout);
}
static unsigned long long akt_seed_value;
unsigned long long akt_seed(void) { return akt_seed_value; }
double akt_uniform(unsigned long long* s, double lo, double hi) {
    /* splitmix64 */
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return lo + (hi - lo) * ((double)(z >> 11) / 9007199254740992.0);
}
static char akt_tmp[512];
int akt_list_has(const char* list, const char* name) {
    size_t n = strlen(name);
    while (list && *list) {
        const char* c = strchr(list, ',');
        size_t len = c ? (size_t)(c - list) : strlen(list);
        if (len == n && !strncmp(list, name, n)) return 1;
        list = c ? c + 1 : NULL;
    }
    return 0;
}

const char* akt_tmpdir(void) {
    if (!akt_tmp[0]) {
        const char* base = getenv("AKT_TMP");
        char cwd[256];
        /* absolute, as the context makes a relative cache directory */
        if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
        snprintf(akt_tmp, sizeof akt_tmp, "%s%s%s/akt-%ld", (base && base[0] == '/') ? "" : cwd, (base && base[0] == '/') ? "" : "/",
                 base ? base : "build/tmp", (long)getpid());
        mkdir(base ? base : "build", 0755);
        mkdir("build/tmp", 0755);
        mkdir(akt_tmp, 0755);
    }
    return akt_tmp;
}
ak_context* akt_gpu_context_ex(const ak_config* cfg, int allow_cpu) {
    ak_context* ctx = NULL;
    ak_result r = ak_context_create(cfg, &ctx);
    int n = 0, i;
    const ak_backend_report* rep;
    if (r != AK_OK) {
        akt_fail(__FILE__, __LINE__, "no GPU context: %s: %s", ak_result_name(r), ak_last_error());
        return NULL;
    }
    if (allow_cpu || ak_context_device(ctx)->backend != AK_BACKEND_CPU) return ctx;
    akt_fail(__FILE__, __LINE__, "no GPU: the context fell back to the cpu backend (gpu_* suites need a GPU)");
    rep = ak_context_backend_reports(ctx, &n);
    for (i = 0; rep && i < n; i++) akt_fail(__FILE__, __LINE__, "  %s: %s", ak_backend_name(rep[i].backend), rep[i].reason);
    ak_context_destroy(ctx);
    return NULL;
}
ak_context* akt_cpu_context(const char* sub) {
    static char dir[600];
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU;
    cfg.cpu_compile_check = 0;   /* the suites' cpu kernels are stand-ins; t_compile.c tests the check itself */
    snprintf(dir, sizeof dir, "%s/%s", akt_tmpdir(), sub ? sub : "cache");
    cfg.cache_dir = dir;
    cfg.log_level = AK_LOG_NONE;
    if (ak_context_create(&cfg, &ctx) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "cpu context: %s", ak_last_error());
        return NULL;
    }
    return ctx;
}

/* test hook of t_autotune.c: the cpu backend stores and reads autotune choices as a GPU backend does */
void akt_tune_store_on_host(int on) { _ak_tune_store_host = on; }

/* wall-clock seconds, for the per-suite times the runner prints (where a tier's time goes) */
static double akt_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
    const char* seed = getenv("AKT_SEED");
    akt_seed_value = seed ? strtoull(seed, NULL, 0) : ((unsigned long long)time(NULL) * 2654435761ull) ^ (unsigned long long)getpid();
    printf("amdkit tests, seed %llu (replay with AKT_SEED=%llu)\n", akt_seed_value, akt_seed_value);
    {
        const char* smp = getenv("AKT_SAMPLE");
        int k = 0, n = 1;
        if (smp && (sscanf(smp, "%d/%d", &k, &n) != 2 || n < 1 || k < 0 || k >= n)) {
            fprintf(stderr, "AKT_SAMPLE='%s': expected K/N with 0 <= K < N\n", smp);
            return 2;
        }
        akt_sample_k = k;
        akt_sample_n = n;
        if (n > 1) printf("sample: test K of every N in each suite, K/N = %d/%d\n", k, n);
    }
    /* AKT_ONLY=SUBSTR runs only the tests whose function name contains SUBSTR (a device run of one part of a suite).
     * No arguments: every suite except gpu_* (which need a GPU); `--gpu`: every
     * gpu_* suite; names: those suites. AKT_FULL=1 (make check): the suites that
     * sample a matrix (compile_kernels: one target per family) run all of it. */
    {
        int i, named = 0, gpu = 0;
        for (i = 1; i < argc; i++) { if (!strcmp(argv[i], "--gpu")) gpu = 1; else named = 1; }
#define AKT_RUN_SUITE(name) \
        { int i_, is_gpu_ = !strncmp(#name, "gpu_", 4), want_ = named ? 0 : (gpu ? is_gpu_ : !is_gpu_); \
          for (i_ = 1; i_ < argc; i_++) if (!strcmp(argv[i_], #name)) want_ = 1; \
          if (want_) { double t0_ = akt_now_s(); printf("suite %s\n", #name); fflush(stdout); akt_suite_index = 0; akt_suite_##name(); \
                       printf("  (suite %s: %.1f s)\n", #name, akt_now_s() - t0_); fflush(stdout); } }
        AKT_SUITES(AKT_RUN_SUITE)
    }
    if (akt_skipped) printf("%d passed, %d failed, %d skipped\n", akt_passed, akt_failed, akt_skipped);
    else printf("%d passed, %d failed\n", akt_passed, akt_failed);
    return akt_failed ? 1 : 0;
}
