/* Offline compilation with the REAL compilers (Debian's ROCm hipRTC and the
 * CUDA toolkit's NVRTC, both installed by `make test`) and the compile cache
 * through the public API: targets, unsupported / bad targets, compile errors
 * with their details and nothing printed, memory / disk hits and misses,
 * stats, purge, and the acceptance check "running the same program twice
 * with one cache directory compiles nothing the second time" in two fresh
 * processes (this binary re-executed; see compile_child_hook). The embedded
 * kernel families are compiled by t_compile_kernels.c, not here. */
#define _POSIX_C_SOURCE 200809L /* fork, execve, pipe, dup2 */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

extern char** environ;

static const char saxpy_src[] =
    "extern \"C\" __global__ void saxpy(const float* x, float* y, int n, float a) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

/* ---- helpers ------------------------------------------------------------------ */

static ak_context* compile_ctx(const char* sub) { return akt_cpu_context(sub); }

static unsigned elf_u16(const unsigned char* p) { return (unsigned)p[0] | ((unsigned)p[1] << 8); }
static unsigned long elf_u32(const unsigned char* p) {
    return (unsigned long)p[0] | ((unsigned long)p[1] << 8) | ((unsigned long)p[2] << 16) | ((unsigned long)p[3] << 24);
}

/* 1 if `name` occurs as a NUL-terminated string in the blob (symbol table). */
static int blob_has(const unsigned char* b, size_t n, const char* name) {
    size_t k = strlen(name), i;
    for (i = 1; i + k < n; i++)
        if (b[i + k] == 0 && b[i - 1] == 0 && !memcmp(b + i, name, k)) return 1;
    return 0;
}

/* "runtime N" from the hip probe report (the HIP runtime version), or "". */
static void hip_runtime_version(char* out, size_t cap) {
    ak_backend_report r[3];
    const char* p;
    out[0] = 0;
    ak_probe_backends(r);
    p = strstr(r[0].reason, "runtime ");
    if (p) {
        size_t n;
        p += 8;
        n = strspn(p, "0123456789");
        if (n && n < cap) { memcpy(out, p, n); out[n] = 0; }
    }
}

/* Redirect fd (1 or 2) into a file; returns the saved fd. */
static int capture_begin(int fd, const char* path) {
    int saved, f;
    fflush(stdout);
    fflush(stderr);
    saved = dup(fd);
    f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (f >= 0) { dup2(f, fd); close(f); }
    return saved;
}
/* Restore fd; returns the number of bytes written while captured. */
static long capture_end(int fd, int saved, const char* path) {
    struct stat st;
    fflush(stdout);
    fflush(stderr);
    if (saved >= 0) { dup2(saved, fd); close(saved); }
    if (stat(path, &st) != 0) return -1;
    return (long)st.st_size;
}

/* ---- targets -------------------------------------------------------------------- */

static void offline_targets_compile(void) {
    static const struct { const char* target; unsigned machine; unsigned mach_flag; } t[] = {
        /* e_machine: EM_AMDGPU 224 / EM_CUDA 190; AMD e_flags & 0xff: EF_AMDGPU_MACH_AMDGCN_GFX* (LLVM ELF.h) */
        { "gfx906", 224, 0x2f }, { "gfx908", 224, 0x30 }, { "gfx90a", 224, 0x3f }, { "gfx1030", 224, 0x36 },
        { "gfx90a:sramecc+:xnack-", 224, 0x3f }, { "sm_80", 190, 0 }, { "sm_90", 190, 0 },
    };
    ak_context* ctx = compile_ctx("compile_targets");
    unsigned long flags_plain = 0, flags_feat = 0;
    int i;
    if (!ctx) return;
    for (i = 0; i < (int)(sizeof t / sizeof t[0]); i++) {
        ak_code_object co;
        ak_result r = ak_compile_offline(ctx, t[i].target, saxpy_src, "saxpy", NULL, &co);
        const unsigned char* b;
        AKT_CHECKF(r == AK_OK, "%s: %s: %s\n%s", t[i].target, ak_result_name(r), ak_last_error(), ak_last_error_info()->log);
        if (r != AK_OK) continue;
        b = (const unsigned char*)co.data;
        AKT_CHECKF(co.size > 64 && b && !memcmp(b, "\177ELF", 4), "%s: not an ELF code object (%zu bytes)", t[i].target, co.size);
        if (co.size > 64) {
            AKT_CHECKF(b[4] == 2, "%s: not a 64-bit ELF", t[i].target);
            AKT_CHECKF(elf_u16(b + 18) == t[i].machine, "%s: e_machine %u, expected %u", t[i].target, elf_u16(b + 18), t[i].machine);
            if (t[i].mach_flag)
                AKT_CHECKF((elf_u32(b + 48) & 0xff) == t[i].mach_flag, "%s: e_flags 0x%lx, expected machine 0x%x", t[i].target,
                           elf_u32(b + 48), t[i].mach_flag);
            if (!strcmp(t[i].target, "gfx90a")) flags_plain = elf_u32(b + 48);
            if (!strcmp(t[i].target, "gfx90a:sramecc+:xnack-")) flags_feat = elf_u32(b + 48);
        }
        AKT_CHECKF(blob_has(b, co.size, "saxpy"), "%s: kernel symbol missing", t[i].target);
        AKT_EQ_STR(co.target, t[i].target);
        AKT_EQ_INT(co.source, AK_CACHE_MISS);
        AKT_CHECK(co.compile_ms > 0);
        printf("    %-24s %7zu bytes %6.0f ms\n", t[i].target, co.size, co.compile_ms);
        ak_code_object_free(&co);
        AKT_CHECK(co.data == NULL && co.size == 0);
    }
    /* the feature suffixes reach the compiler: a different code object header */
    AKT_CHECKF(flags_plain != flags_feat, "gfx90a and gfx90a:sramecc+:xnack- have the same e_flags 0x%lx", flags_plain);
    ak_code_object_free(NULL);
    ak_context_destroy(ctx);
}

static void unsupported_targets_refused(void) {
    static const char* const bad[] = { "gfx942", "gfx940", "gfx1100", "gfx942:sramecc+:xnack-" };
    ak_context* ctx = compile_ctx("compile_unsupported");
    char ver[32];
    int i;
    if (!ctx) return;
    hip_runtime_version(ver, sizeof ver);
    AKT_CHECKF(ver[0] != 0, "no HIP runtime version in the probe report");
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        ak_code_object co;
        memset(&co, 0x5A, sizeof co);
        AKT_ERR_ITEM(ak_compile_offline(ctx, bad[i], saxpy_src, "saxpy", NULL, &co), AK_ERROR_UNSUPPORTED_TARGET, AK_ERRITEM_UNKNOWN_TARGET);
        AKT_CONTAINS(ak_last_error(), "hipRTC");
        AKT_CHECKF(strstr(ak_last_error(), "gfx9") || strstr(ak_last_error(), "gfx11"), "target not named: %s", ak_last_error());
        if (ver[0]) AKT_CONTAINS(ak_last_error(), ver);
        AKT_CHECK(co.data == NULL && co.size == 0);
    }
    /* the context still compiles afterwards */
    {
        ak_code_object co;
        AKT_OK(ak_compile_offline(ctx, "gfx906", saxpy_src, "saxpy", NULL, &co));
        ak_code_object_free(&co);
    }
    ak_context_destroy(ctx);
}

static void bad_targets_and_arguments(void) {
    ak_context* ctx = compile_ctx("compile_bad");
    ak_code_object co;
    ak_compile_options o;
    const char* opts2[2] = { "-DA=1", NULL };
    static const char* const bad[] = { "foo", "gfx", "sm_", "sm_9x", "sm_abc", "GFX90A", "gfx90a x", "cpu" };
    int i;
    if (!ctx) return;
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        ak_result r = ak_compile_offline(ctx, bad[i], saxpy_src, "saxpy", NULL, &co);
        AKT_CHECKF(r == AK_ERROR_UNSUPPORTED_TARGET || r == AK_ERROR_INVALID_ARGUMENT, "'%s' -> %s (%s)", bad[i], ak_result_name(r),
                   ak_last_error());
        AKT_CHECKF(ak_last_error()[0] != 0, "'%s': empty message", bad[i]);
        if (r == AK_OK) ak_code_object_free(&co);
    }
    AKT_ERR_ITEM(ak_compile_offline(ctx, "foo", saxpy_src, "saxpy", NULL, &co), AK_ERROR_UNSUPPORTED_TARGET, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_CONTAINS(ak_last_error(), "foo");
    AKT_ERR(ak_compile_offline(ctx, "", saxpy_src, "saxpy", NULL, &co), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_compile_offline(ctx, NULL, saxpy_src, "saxpy", NULL, &co), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_compile_offline(NULL, "gfx90a", saxpy_src, "saxpy", NULL, &co), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_compile_offline(ctx, "gfx90a", NULL, "saxpy", NULL, &co), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_compile_offline(ctx, "gfx90a", saxpy_src, NULL, NULL, &co), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_compile_offline(ctx, "gfx90a", saxpy_src, "", NULL, &co), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_compile_offline(ctx, "gfx90a", saxpy_src, "saxpy", NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    memset(&o, 0, sizeof o);
    o.num_options = -1;
    AKT_ERR_ITEM(ak_compile_offline(ctx, "gfx90a", saxpy_src, "saxpy", &o, &co), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    o.num_options = 1000;
    AKT_ERR_ITEM(ak_compile_offline(ctx, "gfx90a", saxpy_src, "saxpy", &o, &co), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    o.num_options = 2;
    o.options = NULL;
    AKT_ERR_ITEM(ak_compile_offline(ctx, "gfx90a", saxpy_src, "saxpy", &o, &co), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    o.options = opts2; /* second one NULL */
    AKT_ERR_ITEM(ak_compile_offline(ctx, "sm_80", saxpy_src, "saxpy", &o, &co), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "options[1]");
    ak_context_destroy(ctx);
}

/* Every optimization level is accepted by both compilers (and is part of the key). */
static void opt_levels_both_compilers(void) {
    static const char* const targets[] = { "gfx90a", "sm_80" };
    static const ak_opt_level levels[] = { AK_OPT_CONSERVATIVE, AK_OPT_BALANCED, AK_OPT_AGGRESSIVE, AK_OPT_AUTO };
    ak_context* ctx = compile_ctx("compile_opt_levels");
    int t, l;
    if (!ctx) return;
    for (t = 0; t < 2; t++) {
        ak_code_object co[4];
        memset(co, 0, sizeof co);
        for (l = 0; l < 4; l++) {
            ak_compile_options o;
            ak_result r;
            memset(&o, 0, sizeof o);
            o.opt_level = levels[l];
            r = ak_compile_offline(ctx, targets[t], saxpy_src, "saxpy", &o, &co[l]);
            AKT_CHECKF(r == AK_OK, "%s at %s: %s: %s\n%s", targets[t], ak_opt_level_name(levels[l]), ak_result_name(r), ak_last_error(),
                       ak_last_error_info()->log);
            if (r != AK_OK) continue;
            /* AUTO on a context without an arch is balanced: the same entry */
            AKT_EQ_INT(co[l].source, l == 3 ? AK_CACHE_MEMORY : AK_CACHE_MISS);
        }
        /* on NVIDIA, conservative (no FMA contraction) gives different code for a*x+y */
        if (t == 1 && co[0].data && co[1].data)
            AKT_CHECK(co[0].size != co[1].size || memcmp(co[0].data, co[1].data, co[0].size) != 0);
        for (l = 0; l < 4; l++) ak_code_object_free(&co[l]);
    }
    ak_context_destroy(ctx);
}

/* ---- compile errors ---------------------------------------------------------------- */

typedef struct { int loud, info_log, failed, total; } quiet_log;
static void quiet_fn(void* ud, ak_log_level level, ak_log_item item, const char* msg) {
    quiet_log* q = (quiet_log*)ud;
    (void)msg;
    q->total++;
    if (level == AK_LOG_WARN || level == AK_LOG_ERROR) q->loud++;
    if (level == AK_LOG_INFO && item == AK_LOGITEM_COMPILER_LOG) q->info_log++;
    if (item == AK_LOGITEM_COMPILE_FAILED) q->failed++;
}

static const char broken_src[] =
    "extern \"C\" __global__ void broken(float* y) {\n"
    "    int i = threadIdx.x;\n"
    "    y[i] = undeclared_thing_xyz * 2.0f;\n"
    "}\n";

static void compile_error_details(void) {
    static const char* const targets[] = { "gfx90a", "sm_80" };
    char dir[600], out_path[700], err_path[700];
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    quiet_log q;
    const char* user_opts[1] = { "-DUSER_OPT=7" };
    int t;
    snprintf(dir, sizeof dir, "%s/compile_errors", akt_tmpdir());
    snprintf(out_path, sizeof out_path, "%s/compile_errors.stdout", akt_tmpdir());
    snprintf(err_path, sizeof err_path, "%s/compile_errors.stderr", akt_tmpdir());
    memset(&q, 0, sizeof q);
    cfg.backend = AK_BACKEND_CPU;
    cfg.cache_dir = dir;
    cfg.log_level = AK_LOG_INFO;  /* compile failures are INFO: a WARN logger would see nothing */
    cfg.logger = quiet_fn;
    cfg.logger_user_data = &q;
    AKT_OK(ak_context_create(&cfg, &ctx));
    if (!ctx) return;
    for (t = 0; t < 2; t++) {
        ak_compile_options o;
        ak_code_object co;
        const ak_error_info* info;
        ak_result r;
        long out_bytes, err_bytes;
        int so, se, k;
        memset(&o, 0, sizeof o);
        o.source_name = "my_kernel.hip";
        o.options = user_opts;
        o.num_options = 1;
        memset(&q, 0, sizeof q);
        memset(&co, 0x5A, sizeof co);
        so = capture_begin(1, out_path);
        se = capture_begin(2, err_path);
        r = ak_compile_offline(ctx, targets[t], broken_src, "broken", &o, &co);
        err_bytes = capture_end(2, se, err_path);
        out_bytes = capture_end(1, so, out_path);
        AKT_CHECKF(r == AK_ERROR_COMPILATION, "%s: %s (%s)", targets[t], ak_result_name(r), ak_last_error());
        AKT_CHECKF(out_bytes == 0 && err_bytes == 0, "%s: %ld bytes printed to stdout, %ld to stderr", targets[t], out_bytes, err_bytes);
        AKT_CHECK(co.data == NULL && co.size == 0);
        info = ak_last_error_info();
        AKT_EQ_INT(info->result, AK_ERROR_COMPILATION);
        AKT_CONTAINS(info->log, "undeclared_thing_xyz");
        /* the line of the user's source (the prelude does not shift it); ROCm 5.2's hipRTC
         * names its own temp file ("CompileSource") instead of the source name */
        AKT_CHECKF(strstr(info->log, "my_kernel.hip:3:") || strstr(info->log, "my_kernel.hip(3)") ||
                   strstr(info->log, "CompileSource:3:"), "%s: line 3 not in the log:\n%s", targets[t], info->log);
        AKT_CONTAINS(info->options, "-DUSER_OPT=7");
        AKT_CONTAINS(info->options, t == 0 ? "gfx90a" : "sm_80");
        AKT_EQ_STR(info->source_name, "my_kernel.hip");
        AKT_CONTAINS(info->message, "my_kernel.hip");
        AKT_CONTAINS(info->message, "broken");
        AKT_CONTAINS(info->message, targets[t]);
        AKT_EQ_STR(ak_last_error(), info->message);
        /* logged, but only at INFO */
        AKT_EQ_INT(q.loud, 0);
        AKT_CHECK(q.info_log >= 1);
        AKT_CHECK(q.failed >= 1);
        /* a failure is not cached: the next try compiles (and fails) again */
        for (k = 0; k < 2; k++) {
            ak_cache_stats st0, st1;
            AKT_OK(ak_cache_stats_get(ctx, &st0));
            AKT_ERR_ITEM(ak_compile_offline(ctx, targets[t], broken_src, "broken", &o, &co), AK_ERROR_COMPILATION, AK_ERRITEM_COMPILE_FAILED);
            AKT_OK(ak_cache_stats_get(ctx, &st1));
            AKT_EQ_INT(st1.compilations, st0.compilations + 1);
        }
        /* the details are cleared by the next failure of another kind */
        AKT_ERR_ITEM(ak_compile_offline(ctx, "foo", broken_src, "broken", &o, &co), AK_ERROR_UNSUPPORTED_TARGET, AK_ERRITEM_UNKNOWN_TARGET);
        AKT_EQ_STR(ak_last_error_info()->log, "");
        AKT_EQ_STR(ak_last_error_info()->source_name, "");
        /* and by ak_clear_error */
        AKT_ERR_ITEM(ak_compile_offline(ctx, targets[t], broken_src, "broken", &o, &co), AK_ERROR_COMPILATION, AK_ERRITEM_COMPILE_FAILED);
        AKT_CHECK(ak_last_error_info()->log[0] != 0);
        ak_clear_error();
        AKT_EQ_STR(ak_last_error_info()->log, "");
        AKT_EQ_STR(ak_last_error_info()->options, "");
    }
    /* the default source name (NVRTC puts it in the log) */
    {
        ak_code_object co;
        AKT_ERR_ITEM(ak_compile_offline(ctx, "sm_80", broken_src, "broken", NULL, &co), AK_ERROR_COMPILATION, AK_ERRITEM_COMPILE_FAILED);
        AKT_CHECK(ak_last_error_info()->source_name[0] != 0);
        AKT_CONTAINS(ak_last_error_info()->log, ak_last_error_info()->source_name);
    }
    ak_context_destroy(ctx);
    unlink(out_path);
    unlink(err_path);
}

/* ---- the compile cache through the public API -------------------------------------- */

static ak_cache_source compile_src(ak_context* ctx, const char* target, const char* src, const char* const* opts, int nopts,
                                   size_t* size, double* ms) {
    ak_compile_options o;
    ak_code_object co;
    ak_result r;
    memset(&o, 0, sizeof o);
    o.options = opts;
    o.num_options = nopts;
    r = ak_compile_offline(ctx, target, src, "saxpy", &o, &co);
    AKT_CHECKF(r == AK_OK, "%s: %s: %s", target, ak_result_name(r), ak_last_error());
    if (r != AK_OK) return (ak_cache_source)-1;
    if (size) *size = co.size;
    if (ms) *ms = co.compile_ms;
    AKT_CHECK(co.size > 0 && co.data && !memcmp(co.data, "\177ELF", 4));
    ak_code_object_free(&co);
    return co.source;
}

static void cache_levels(void) {
    char dir[600];
    ak_config cfg = ak_config_default();
    ak_context *a = NULL, *b = NULL;
    ak_cache_stats st;
    const char* x2[1] = { "-DX=2" };
    const char* x3[1] = { "-DX=3" };
    char src2[sizeof saxpy_src];
    size_t s1 = 0, s2 = 0;
    double ms = -1;
    snprintf(dir, sizeof dir, "%s/compile_cache", akt_tmpdir());
    cfg.backend = AK_BACKEND_CPU;
    cfg.cache_dir = dir;
    cfg.log_level = AK_LOG_NONE;
    AKT_OK(ak_context_create(&cfg, &a));
    AKT_OK(ak_context_create(&cfg, &b));
    if (!a || !b) { ak_context_destroy(a); ak_context_destroy(b); return; }
    /* first: a miss that really compiled */
    AKT_EQ_INT(compile_src(a, "gfx90a", saxpy_src, NULL, 0, &s1, &ms), AK_CACHE_MISS);
    AKT_CHECK(ms > 0);
    /* same context: memory hit, same bytes, no compile time */
    AKT_EQ_INT(compile_src(a, "gfx90a", saxpy_src, NULL, 0, &s2, &ms), AK_CACHE_MEMORY);
    AKT_EQ_INT(s2, s1);
    AKT_NEAR(ms, 0, 0);
    AKT_OK(ak_cache_stats_get(a, &st));
    AKT_EQ_INT(st.compilations, 1);
    AKT_EQ_INT(st.misses, 1);
    AKT_EQ_INT(st.memory_hits, 1);
    AKT_EQ_INT(st.disk_hits, 0);
    AKT_NEAR(st.hit_rate, 0.5, 1e-9);
    AKT_CHECK(st.compile_ms > 0);
    AKT_EQ_INT(st.disk_enabled, 1);
    AKT_EQ_STR(st.dir, dir);
    AKT_EQ_INT(st.capacity, 100);
    AKT_CHECK(st.memory_entries >= 1);
    /* another context on the same directory: a disk hit, then memory */
    AKT_EQ_INT(compile_src(b, "gfx90a", saxpy_src, NULL, 0, &s2, &ms), AK_CACHE_DISK);
    AKT_EQ_INT(s2, s1);
    AKT_NEAR(ms, 0, 0);
    AKT_EQ_INT(compile_src(b, "gfx90a", saxpy_src, NULL, 0, NULL, NULL), AK_CACHE_MEMORY);
    AKT_OK(ak_cache_stats_get(b, &st));
    AKT_EQ_INT(st.compilations, 0);
    AKT_EQ_INT(st.disk_hits, 1);
    AKT_EQ_INT(st.memory_hits, 1);
    /* what makes a different key: an option, the arch, one source character */
    AKT_EQ_INT(compile_src(b, "gfx90a", saxpy_src, x2, 1, NULL, NULL), AK_CACHE_MISS);
    AKT_EQ_INT(compile_src(b, "gfx90a", saxpy_src, x3, 1, NULL, NULL), AK_CACHE_MISS);
    AKT_EQ_INT(compile_src(b, "gfx90a", saxpy_src, x2, 1, NULL, NULL), AK_CACHE_MEMORY);
    AKT_EQ_INT(compile_src(b, "gfx906", saxpy_src, NULL, 0, NULL, NULL), AK_CACHE_MISS);
    AKT_EQ_INT(compile_src(b, "gfx90a:sramecc+:xnack-", saxpy_src, NULL, 0, NULL, NULL), AK_CACHE_MISS);
    memcpy(src2, saxpy_src, sizeof saxpy_src);
    {
        char* p = strstr(src2, "a * x[i]");
        AKT_CHECK(p != NULL);
        if (p) p[0] = 'n'; /* "n * x[i]": one character */
    }
    AKT_EQ_INT(compile_src(b, "gfx90a", src2, NULL, 0, NULL, NULL), AK_CACHE_MISS);
    AKT_EQ_INT(compile_src(b, "gfx90a", saxpy_src, NULL, 0, NULL, NULL), AK_CACHE_MEMORY);
    AKT_OK(ak_cache_stats_get(b, &st));
    AKT_EQ_INT(st.compilations, 5);
    AKT_EQ_INT(st.misses, 5);
    AKT_EQ_INT(st.disk_hits, 1);
    AKT_EQ_INT(st.memory_hits, 3);
    /* context a sees b's new entries on disk */
    AKT_EQ_INT(compile_src(a, "gfx906", saxpy_src, NULL, 0, NULL, NULL), AK_CACHE_DISK);
    /* no_cache: always compiles */
    {
        ak_compile_options o;
        ak_code_object co;
        memset(&o, 0, sizeof o);
        o.no_cache = 1;
        AKT_OK(ak_compile_offline(a, "gfx90a", saxpy_src, "saxpy", &o, &co));
        AKT_EQ_INT(co.source, AK_CACHE_MISS);
        AKT_CHECK(co.compile_ms > 0);
        ak_code_object_free(&co);
    }
    /* purge: both levels forgotten */
    AKT_OK(ak_cache_purge(b));
    AKT_EQ_INT(compile_src(b, "gfx90a", saxpy_src, NULL, 0, NULL, NULL), AK_CACHE_MISS);
    AKT_EQ_INT(compile_src(a, "gfx906", saxpy_src, NULL, 0, NULL, NULL), AK_CACHE_MEMORY); /* a's memory level is a's */
    AKT_OK(ak_cache_purge(a));
    AKT_EQ_INT(compile_src(a, "gfx906", saxpy_src, NULL, 0, NULL, NULL), AK_CACHE_MISS);
    AKT_OK(ak_cache_stats_get(b, &st));
    AKT_EQ_INT(st.compilations, 6);
    AKT_ERR_ITEM(ak_cache_stats_get(NULL, &st), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cache_stats_get(a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cache_purge(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ak_context_destroy(a);
    ak_context_destroy(b);
}

/* ---- two fresh processes on one cache directory --------------------------------------- */

static const char* const child_targets[2] = { "gfx90a", "sm_80" };
static const char* const child_src[3] = {
    "extern \"C\" __global__ void k_add(float* y, float v) { y[threadIdx.x] += v; }\n",
    "extern \"C\" __global__ void k_mul(float* y, float v) { y[threadIdx.x] *= v; }\n",
    "extern \"C\" __global__ void k_neg(float* y) { y[threadIdx.x] = -y[threadIdx.x]; }\n",
};
static const char* const child_names[3] = { "k_add", "k_mul", "k_neg" };

/* The child's whole life: one context, 3 kernels x 2 targets, stats to fd. */
static int compile_child_run(const char* dir, int fd) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    ak_cache_stats st;
    char line[256];
    int i, t, failures = 0;
    cfg.backend = AK_BACKEND_CPU;
    cfg.cache_dir = dir;
    cfg.log_level = AK_LOG_NONE;
    if (ak_context_create(&cfg, &ctx) != AK_OK) return 2;
    for (i = 0; i < 3; i++)
        for (t = 0; t < 2; t++) {
            ak_code_object co;
            if (ak_compile_offline(ctx, child_targets[t], child_src[i], child_names[i], NULL, &co) != AK_OK) failures++;
            else ak_code_object_free(&co);
        }
    if (ak_cache_stats_get(ctx, &st) != AK_OK) failures++;
    snprintf(line, sizeof line, "compilations %llu memory_hits %llu disk_hits %llu misses %llu failures %d\n",
             st.compilations, st.memory_hits, st.disk_hits, st.misses, failures);
    ak_context_destroy(ctx);
    return write(fd, line, strlen(line)) == (ssize_t)strlen(line) ? 0 : 3;
}

/* Runs before main in a re-executed copy of this binary that has
 * AKT_COMPILE_CHILD_DIR and AKT_COMPILE_CHILD_FD set: do the child's work and
 * exit. (If a compiler ignored the attribute, the child would run main with a
 * suite name that does not exist, print "0 passed" and the parent would fail
 * the test for lack of stats.) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((constructor))
#endif
static void compile_child_hook(void) {
    const char* dir = getenv("AKT_COMPILE_CHILD_DIR");
    const char* fd = getenv("AKT_COMPILE_CHILD_FD");
    if (!dir || !fd) return;
    _exit(compile_child_run(dir, atoi(fd)));
}

/* Run one child process; parse its stats line. Returns 0 on success. */
static int run_child(const char* dir, unsigned long long* comp, unsigned long long* disk, unsigned long long* mem,
                     unsigned long long* miss, int* failures) {
    int pfd[2], status = 0, n = 0;
    pid_t pid;
    char buf[512], dir_env[700], fd_env[64];
    char* argv[3];
    char** envp;
    size_t ne = 0, k;
    ssize_t got;
    while (environ[ne]) ne++;
    envp = (char**)malloc((ne + 3) * sizeof *envp);
    if (!envp || pipe(pfd) != 0) { free(envp); return -1; }
    for (k = 0; k < ne; k++) envp[k] = environ[k];
    snprintf(dir_env, sizeof dir_env, "AKT_COMPILE_CHILD_DIR=%s", dir);
    snprintf(fd_env, sizeof fd_env, "AKT_COMPILE_CHILD_FD=%d", pfd[1]);
    envp[ne] = dir_env;
    envp[ne + 1] = fd_env;
    envp[ne + 2] = NULL;
    argv[0] = (char*)"amdkit_tests";
    argv[1] = (char*)"akt-compile-child-no-such-suite";
    argv[2] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        execve("/proc/self/exe", argv, envp);
        _exit(127);
    }
    free(envp);
    close(pfd[1]);
    if (pid < 0) { close(pfd[0]); return -1; }
    while ((got = read(pfd[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0) n += (int)got;
    buf[n] = 0;
    close(pfd[0]);
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        akt_fail(__FILE__, __LINE__, "child exited with status 0x%x, said '%s'", status, buf);
        return -1;
    }
    if (sscanf(buf, "compilations %llu memory_hits %llu disk_hits %llu misses %llu failures %d", comp, mem, disk, miss, failures) != 5) {
        akt_fail(__FILE__, __LINE__, "child said '%s'", buf);
        return -1;
    }
    return 0;
}

static void second_process_compiles_nothing(void) {
    char dir[600];
    unsigned long long comp = 99, disk = 99, mem = 99, miss = 99;
    int failures = -1;
    snprintf(dir, sizeof dir, "%s/compile_two_processes", akt_tmpdir());
    /* first process: everything compiled */
    if (run_child(dir, &comp, &disk, &mem, &miss, &failures) != 0) return;
    printf("    first process:  compilations %llu, disk hits %llu, memory hits %llu, misses %llu\n", comp, disk, mem, miss);
    AKT_EQ_INT(failures, 0);
    AKT_EQ_INT(comp, 6);
    AKT_EQ_INT(miss, 6);
    AKT_EQ_INT(disk, 0);
    /* second process, same directory: nothing compiled, all disk hits */
    if (run_child(dir, &comp, &disk, &mem, &miss, &failures) != 0) return;
    printf("    second process: compilations %llu, disk hits %llu, memory hits %llu, misses %llu\n", comp, disk, mem, miss);
    AKT_EQ_INT(failures, 0);
    AKT_EQ_INT(comp, 0);
    AKT_EQ_INT(disk, 6);
    AKT_EQ_INT(miss, 0);
    AKT_EQ_INT(mem, 0);
}

/* A caller's one-letter macros (-DB=64, -DN=7, -DM, -UNDEBUG) reach the kernel
 * but not the prelude, whose templates use such names (B, N, M, A, C ...): with
 * the macros on the compiler's command line the prelude itself failed to parse. */
static void user_macros_do_not_touch_the_prelude(void) {
    static const char* const targets[] = { "gfx90a", "sm_90" };
    static const char src[] =
        "#if !defined(M) || M != 1 || B != 64 || N != 7 || defined(NDEBUG)\n"
        "#error user macros did not arrive as given\n"
        "#endif\n"
        "extern \"C\" __global__ void k(float* y) { y[threadIdx.x % B] = (float)(N * M); }\n";
    const char* opts[5] = { "-DB=64", "-DN=7", "-DM", "-DNDEBUG", "-UNDEBUG" };
    ak_compile_options o;
    ak_context* ctx = compile_ctx("compile_user_macros");
    int i;
    if (!ctx) return;
    memset(&o, 0, sizeof o);
    o.options = opts;
    o.num_options = 5;
    o.source_name = "user_macros.hip";
    for (i = 0; i < 2; i++) {
        ak_code_object co;
        ak_result r = ak_compile_offline(ctx, targets[i], src, "k", &o, &co);
        AKT_CHECKF(r == AK_OK, "%s: %s: %s\n%s", targets[i], ak_result_name(r), ak_last_error(), ak_last_error_info()->log);
        if (r == AK_OK) ak_code_object_free(&co);
    }
    ak_context_destroy(ctx);
}

void akt_suite_compile(void) {
    AKT_RUN(user_macros_do_not_touch_the_prelude);
    AKT_RUN(offline_targets_compile);
    AKT_RUN(unsupported_targets_refused);
    AKT_RUN(bad_targets_and_arguments);
    AKT_RUN(opt_levels_both_compilers);
    AKT_RUN(compile_error_details);
    AKT_RUN(cache_levels);
    AKT_RUN(second_process_compiles_nothing);
}
