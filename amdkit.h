/* amdkit.h - a single-file C toolkit for AMD GPUs over ROCm HIP and hipRTC
 * (and for NVIDIA GPUs through HIP's NVIDIA platform: CUDA driver + NVRTC).
 * Public domain-style permissive licence: see LICENSE at the end of this file.
 *
 * ============================================================================
 * USAGE
 * ============================================================================
 *   In ONE C or C++ file:
 *       #define AMDKIT_IMPLEMENTATION
 *       #include "amdkit.h"
 *   Everywhere else just #include "amdkit.h".
 *   Link with -ldl -lpthread -lm. Nothing else: no ROCm or CUDA header or
 *   library is needed at build time; GPU libraries are found with dlopen at
 *   run time, and when none is usable everything runs on the `cpu` backend.
 *
 *       ak_context* ctx;
 *       if (ak_context_create(NULL, &ctx) != AK_OK) {        // NULL: defaults + env
 *           fprintf(stderr, "%s\n", ak_last_error());
 *           return 1;
 *       }
 *       printf("running on %s\n", ak_context_device(ctx)->name);
 *       ak_context_destroy(ctx);
 *
 * Options (define before including the implementation):
 *   AMDKIT_STATIC            all functions are static (private to one file)
 *   AK_ASSERT(x)             your assert (default: assert from <assert.h>)
 *   AK_MALLOC(sz) AK_REALLOC(p,sz) AK_FREE(p)
 *                            compile-time allocator; define all three or none
 *   (run-time logger and allocator with user_data: see ak_config)
 *
 * Thread safety, in general: a context may be shared between threads; every
 * function says what holds for it on its doc line.
 *
 * ============================================================================
 * TABLE OF CONTENTS  (grep the tag to jump; declarations use `>>decl:`,
 *                     implementation sections use `>>impl:`)
 * ============================================================================
 *   >>decl:base       version, linkage, basic types, dtypes
 *   >>decl:result     result codes, last error, log items, logger, allocator
 *   >>decl:config     ak_config, defaults, environment overrides, validation
 *   >>decl:arch       GPU architecture tables
 *   >>decl:context    backends, context, device info
 *   >>decl:compile    run-time compilation, offline compilation, compile cache
 *   >>decl:launch     kernels, launch arguments, CPU implementations, checks
 *   >>decl:memory     memory pool, copies, memset, pinned host memory
 *   >>decl:stream     streams and events
 *   >>decl:prof       profiling regions, summary, Chrome trace export
 *   >>decl:ops        kernel library (element-wise, reductions, norms, ...)
 *
 *   >>impl:platform   includes, allocation, mutexes, thread-local state, clocks
 *   >>impl:result     errors and logging
 *   >>impl:config     defaults, env parsing, validation
 *   >>impl:arch       architecture table rows (with sources)
 *   >>impl:api        dlopen'ed entry points (one X-macro list per library)
 *   >>impl:backend    backend probing and selection
 *   >>impl:context    context creation, device info
 *   >>impl:hash       SHA-256 and a fast 128-bit hash
 *   >>impl:compile    prelude, compiler invocation (hipRTC / NVRTC)
 *   >>impl:cache      memory LRU + disk cache
 *   >>impl:launch     modules, kernels, launch, CPU kernels, check helper
 *   >>impl:pool       caching allocator
 *   >>impl:memory     public memory API over the pool
 *   >>impl:stream     streams and events
 *   >>impl:prof       profiling regions
 *   >>impl:kernels    embedded kernel sources (generated) and ops
 */
#ifndef AMDKIT_H
#define AMDKIT_H

/* The implementation uses POSIX/GNU functions (dladdr, clock_gettime,
 * posix_memalign): include the implementation before other system headers,
 * or build with -D_GNU_SOURCE. */
#if defined(AMDKIT_IMPLEMENTATION) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif

/* ==========================================================================
 * >>decl:base
 * ========================================================================== */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define AK_VERSION_MAJOR 0
#define AK_VERSION_MINOR 1
#define AK_VERSION_PATCH 0
#define AK_VERSION_STRING "0.1.0"

#ifdef AMDKIT_STATIC
#define AKAPI static
#else
#define AKAPI extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of buffers and kernels. */
typedef enum ak_dtype {
    AK_F32 = 0,     /* IEEE binary32 */
    AK_F16 = 1,     /* IEEE binary16 */
    AK_BF16 = 2,    /* bfloat16 */
    AK_F64 = 3,
    AK_I32 = 4,
    AK_I64 = 5,
    AK_U8 = 6,
    AK_FP8_E4M3 = 7,
    AK_FP8_E5M2 = 8,
    AK_DTYPE_COUNT
} ak_dtype;

/* Bit of a dtype in a precision mask (ak_config.allowed_precisions). */
#define AK_DTYPE_BIT(t) (1u << (unsigned)(t))

typedef struct ak_arch_info ak_arch_info;  /* >>decl:arch */

/* Three-valued switch for config fields whose default depends on the GPU. */
typedef enum ak_tristate { AK_AUTO = -1, AK_OFF = 0, AK_ON = 1 } ak_tristate;

/* Name of a dtype ("f32", "f16", ...); "?" for an unknown value. Thread safety: any thread. */
AKAPI const char* ak_dtype_name(ak_dtype t);
/* Size in bytes of one element of dtype t, 0 if unknown. Thread safety: any thread. */
AKAPI size_t ak_dtype_size(ak_dtype t);
/* Host conversions (round to nearest even; NaN stays NaN). Thread safety: any thread. */
AKAPI uint16_t ak_f32_to_f16(float f);
AKAPI float ak_f16_to_f32(uint16_t h);
AKAPI uint16_t ak_f32_to_bf16(float f);
AKAPI float ak_bf16_to_f32(uint16_t b);
/* Element i of a host buffer of dtype t, as double (fp8 not supported: 0). Thread safety: any thread. */
AKAPI double ak_elem_get(const void* buf, ak_dtype t, size_t i);
/* Store v (rounded to dtype t) at element i of a host buffer. Thread safety: caller's buffer. */
AKAPI void ak_elem_set(void* buf, ak_dtype t, size_t i, double v);

/* ==========================================================================
 * >>decl:result
 * ========================================================================== */

/* One result enum for the whole API. 0 is success. */
#define AK_RESULT_LIST(X) \
    X(AK_OK,                        0, "ok") \
    X(AK_ERROR_BACKEND_UNAVAILABLE, 1, "backend not available (ROCm/CUDA library missing or unusable)") \
    X(AK_ERROR_NO_DEVICE,           2, "no GPU device") \
    X(AK_ERROR_DEVICE,              3, "device error") \
    X(AK_ERROR_COMPILATION,         4, "compilation error") \
    X(AK_ERROR_UNSUPPORTED_TARGET,  5, "compilation target not supported by this compiler") \
    X(AK_ERROR_OUT_OF_MEMORY,       6, "out of memory") \
    X(AK_ERROR_MEMORY,              7, "memory error (double free, foreign pointer, copy failure)") \
    X(AK_ERROR_MATRIX_CORES,        8, "matrix cores not supported by this architecture") \
    X(AK_ERROR_OPTIMIZATION,        9, "optimization error") \
    X(AK_ERROR_CONFIG,             10, "configuration error") \
    X(AK_ERROR_INVALID_ARGUMENT,   11, "invalid argument") \
    X(AK_ERROR_LAUNCH,             12, "kernel launch error") \
    X(AK_ERROR_IO,                 13, "I/O error") \
    X(AK_ERROR_NOT_FOUND,          14, "not found")

typedef enum ak_result {
#define AK_X_(name, value, text) name = value,
    AK_RESULT_LIST(AK_X_)
#undef AK_X_
    AK_RESULT_COUNT
} ak_result;

/* Short description of a result code. Thread safety: any thread. */
AKAPI const char* ak_result_string(ak_result r);
/* Name of a result code ("AK_ERROR_CONFIG"). Thread safety: any thread. */
AKAPI const char* ak_result_name(ak_result r);

/* Detail of the last failure on the calling thread. The strings stay valid
 * until the next failing amdkit call on the same thread. */
typedef struct ak_error_info {
    ak_result result;          /* code of the last failure (AK_OK if none yet) */
    const char* message;       /* what failed, the value, what was expected */
    const char* log;           /* compiler log of the last compilation error, or "" */
    const char* options;       /* compiler options of that compilation, or "" */
    const char* source_name;   /* source name of that compilation, or "" */
} ak_error_info;

/* Detailed message of the last failure on this thread ("" if none). Thread safety: thread-local. */
AKAPI const char* ak_last_error(void);
/* Full detail of the last failure on this thread. Thread safety: thread-local. */
AKAPI const ak_error_info* ak_last_error_info(void);
/* Forget the last failure on this thread. Thread safety: thread-local. */
AKAPI void ak_clear_error(void);

typedef enum ak_log_level {
    AK_LOG_NONE = 0, AK_LOG_ERROR = 1, AK_LOG_WARN = 2, AK_LOG_INFO = 3, AK_LOG_DEBUG = 4
} ak_log_level;

/* Every message amdkit can log has an item id (sokol style): one X-macro list. */
#define AK_LOG_ITEM_LIST(X) \
    X(GENERIC,                "message") \
    X(BACKEND_SKIPPED,        "backend skipped") \
    X(BACKEND_SELECTED,       "backend selected") \
    X(CONFIG_DOWNGRADED,      "config field downgraded (non-strict mode)") \
    X(CONFIG_ENV_OVERRIDE,    "config field set from the environment") \
    X(OPTIONAL_SYMBOL_MISSING,"optional entry point missing: feature unavailable") \
    X(COMPILE_START,          "compiling") \
    X(COMPILE_FAILED,         "compilation failed") \
    X(COMPILER_LOG,           "compiler log") \
    X(CACHE_MEMORY_HIT,       "compile cache: memory hit") \
    X(CACHE_DISK_HIT,         "compile cache: disk hit") \
    X(CACHE_MISS,             "compile cache: miss") \
    X(CACHE_EVICT,            "compile cache: eviction") \
    X(CACHE_DIR_UNUSABLE,     "compile cache: directory unusable, memory-only") \
    X(CACHE_CORRUPT_ENTRY,    "compile cache: corrupt entry removed") \
    X(CACHE_WRITE_FAILED,     "compile cache: write failed") \
    X(POOL_OOM_RETRY,         "memory pool: allocation failed, freeing cached blocks and retrying") \
    X(POOL_TRIM,              "memory pool: trimmed") \
    X(PROF_TOOLS,             "profiling: tracer library") \
    X(LAUNCH_CONFIG,          "launch configuration")

typedef enum ak_log_item {
#define AK_X_(name, text) AK_LOGITEM_##name,
    AK_LOG_ITEM_LIST(AK_X_)
#undef AK_X_
    AK_LOGITEM_COUNT
} ak_log_item;

/* Name of a log item ("CACHE_MISS"). Thread safety: any thread. */
AKAPI const char* ak_log_item_name(ak_log_item item);

/* Run-time logger. Called from whichever thread logs; must be thread-safe. */
typedef void (*ak_log_fn)(void* user_data, ak_log_level level, ak_log_item item, const char* message);

/* Run-time allocator for host memory amdkit allocates for itself. */
typedef struct ak_allocator {
    void* (*alloc)(size_t size, void* user_data);
    void (*free)(void* ptr, void* user_data);
    void* user_data;
} ak_allocator;

/* ==========================================================================
 * >>decl:config
 * ========================================================================== */

typedef enum ak_backend {
    AK_BACKEND_AUTO = 0,  /* hip, then cuda, then cpu */
    AK_BACKEND_HIP = 1,   /* ROCm HIP runtime + hipRTC */
    AK_BACKEND_CUDA = 2,  /* HIP's NVIDIA platform: CUDA driver API + NVRTC */
    AK_BACKEND_CPU = 3,   /* CPU reference path, host memory */
    AK_BACKEND_COUNT
} ak_backend;

/* Zero is AUTO, so a zero-initialized ak_compile_options asks for the context's level. */
typedef enum ak_opt_level {
    AK_OPT_AUTO = 0,           /* the architecture's recommendation (context), the context's (compile options) */
    AK_OPT_CONSERVATIVE = 1,   /* hipRTC -O1; NVRTC --fmad=false */
    AK_OPT_BALANCED = 2,       /* hipRTC -O2; NVRTC default (-O3 equivalent in ptxas) */
    AK_OPT_AGGRESSIVE = 3      /* hipRTC -O3; NVRTC --use_fast_math */
} ak_opt_level;

typedef struct ak_config {
    ak_backend backend;          /* AUTO; env AMDKIT_BACKEND=auto|hip|cuda|cpu */
    const char* arch;            /* NULL or "auto": the device's; else e.g. "gfx90a"; env AMDKIT_ARCH */
    int device;                  /* device ordinal, >= 0 (0); env AMDKIT_DEVICE */
    ak_opt_level opt_level;      /* AUTO; env AMDKIT_OPT_LEVEL=auto|conservative|balanced|aggressive */
    ak_tristate matrix_cores;    /* AUTO; env AMDKIT_MATRIX_CORES=auto|on|off */
    ak_tristate mixed_precision; /* AUTO; env AMDKIT_MIXED_PRECISION */
    int precision;               /* default precision: -1 auto, or AK_F32/AK_F16/AK_BF16/AK_FP8_*; env AMDKIT_PRECISION */
    unsigned allowed_precisions; /* mask of AK_DTYPE_BIT(); 0 = f32|f16|bf16; env AMDKIT_ALLOWED_PRECISIONS=f32,f16 */
    int operator_fusion;         /* 1; env AMDKIT_FUSION=on|off */
    /* memory pool */
    int pool_enabled;            /* 1; env AMDKIT_POOL=on|off */
    long long pool_size;         /* bytes the pool may hold, 0 = no limit but the fraction; env AMDKIT_POOL_SIZE (k/m/g suffix) */
    double max_memory_fraction;  /* (0,1], fraction of device memory the pool may hold (0.9); env AMDKIT_MAX_MEMORY_FRACTION */
    int oom_protection;          /* 1: on failure free cached blocks and retry once; env AMDKIT_OOM_PROTECTION */
    /* compile cache */
    int cache_enabled;           /* 1; env AMDKIT_CACHE=on|off */
    int cache_capacity;          /* memory LRU entries, >= 1 (100); env AMDKIT_CACHE_CAPACITY */
    int disk_cache;              /* 1; env AMDKIT_DISK_CACHE=on|off */
    const char* cache_dir;       /* NULL: $AMDKIT_CACHE_DIR, $XDG_CACHE_HOME/amdkit, ~/.cache/amdkit */
    long long cache_max_bytes;   /* disk cap, >= 0, 0 = no cap (256 MiB); env AMDKIT_CACHE_MAX_BYTES */
    /* diagnostics */
    int profiling;               /* 0; env AMDKIT_PROFILE=on|off */
    int strict;                  /* 0: unsupported features are downgraded with a warning; 1: they are errors; env AMDKIT_STRICT */
    ak_log_level log_level;      /* WARN; env AMDKIT_LOG=none|error|warn|info|debug */
    ak_log_fn logger;            /* NULL: print to stderr */
    void* logger_user_data;
    ak_allocator allocator;      /* all NULL: AK_MALLOC/AK_FREE; used for the context and its streams, events and kernel handles */
} ak_config;

/* Documented defaults, no environment applied. Thread safety: any thread. */
AKAPI ak_config ak_config_default(void);
/* Overlay AMDKIT_* environment variables on *cfg; a malformed value is
 * AK_ERROR_CONFIG naming the variable and value, and leaves *cfg untouched.
 * Thread safety: reads the environment; do not race with setenv. */
AKAPI ak_result ak_config_apply_env(ak_config* cfg);
/* Check every field; arch may be NULL (then only arch-independent checks).
 * In strict mode a feature the architecture lacks is AK_ERROR_CONFIG; else
 * *cfg (if not const-needed, pass fixed != NULL) gets the downgraded copy.
 * Thread safety: any thread. */
AKAPI ak_result ak_config_validate(const ak_config* cfg, const ak_arch_info* arch, ak_config* fixed);
/* Parse helpers shared by config and CLI: names to enums. AK_ERROR_CONFIG on
 * unknown names. Thread safety: any thread. */
AKAPI ak_result ak_backend_parse(const char* s, ak_backend* out);
AKAPI ak_result ak_dtype_parse(const char* s, ak_dtype* out);
AKAPI ak_result ak_opt_level_parse(const char* s, ak_opt_level* out);
/* Name of a backend / optimization level. Thread safety: any thread. */
AKAPI const char* ak_backend_name(ak_backend b);
AKAPI const char* ak_opt_level_name(ak_opt_level o);

/* ==========================================================================
 * >>decl:arch
 * ========================================================================== */

typedef enum ak_vendor { AK_VENDOR_AMD = 0, AK_VENDOR_NVIDIA = 1 } ak_vendor;

typedef enum ak_family {
    AK_FAMILY_GCN5 = 0, AK_FAMILY_CDNA1, AK_FAMILY_CDNA2, AK_FAMILY_CDNA3, AK_FAMILY_CDNA4,
    AK_FAMILY_RDNA2, AK_FAMILY_RDNA3, AK_FAMILY_RDNA4,
    AK_FAMILY_AMPERE, AK_FAMILY_ADA, AK_FAMILY_HOPPER, AK_FAMILY_BLACKWELL,
    AK_FAMILY_COUNT
} ak_family;

typedef enum ak_matrix_isa {
    AK_MATRIX_NONE = 0, AK_MATRIX_MFMA, AK_MATRIX_WMMA, AK_MATRIX_MMA, AK_MATRIX_WGMMA
} ak_matrix_isa;

/* One row of the architecture table. */
struct ak_arch_info {
    const char* name;              /* canonical target: "gfx90a", "sm_90" */
    const char* aliases;           /* comma-separated other names mapping here ("gfx940,gfx941") */
    ak_vendor vendor;
    ak_family family;
    const char* family_name;       /* "CDNA2" */
    const char* products;          /* "Instinct MI210, MI250, MI250X" */
    int compute_units;             /* CUs / SMs of the flagship product */
    int wave_size;                 /* native wave/warp size used by amdkit kernels */
    int wave_size_alt;             /* other supported size (RDNA: 64), 0 if none */
    int lds_bytes;                 /* LDS / shared memory per workgroup, bytes */
    int l2_bytes;                  /* L2 of the flagship product, bytes */
    const char* memory_type;       /* "HBM2e" */
    double memory_bw_gbs;          /* peak memory bandwidth, GB/s */
    double fp32_tflops;            /* peak vector FP32 */
    double fp16_matrix_tflops;     /* peak dense FP16 matrix */
    double bf16_matrix_tflops;     /* peak dense BF16 matrix */
    int fp8;                       /* 1 if FP8 is supported in hardware */
    const char* fp8_encoding;      /* "OCP E4M3/E5M2", "FNUZ E4M3/E5M2", "" */
    ak_matrix_isa matrix;          /* matrix instruction family */
    /* recommended defaults */
    ak_dtype rec_precision;
    ak_opt_level rec_opt_level;
    int rec_matrix_cores;
    const char* source;            /* where the numbers come from */
};

/* Find a row by name; feature suffixes (":sramecc+:xnack-") and aliases are
 * accepted; "sm_90a" maps to sm_90. AK_ERROR_NOT_FOUND for an unknown name.
 * Thread safety: any thread. */
AKAPI ak_result ak_arch_find(const char* name, const ak_arch_info** out);
/* Number of rows in the table. Thread safety: any thread. */
AKAPI int ak_arch_count(void);
/* Row i (0 <= i < ak_arch_count()), NULL otherwise. Thread safety: any thread. */
AKAPI const ak_arch_info* ak_arch_at(int i);
/* Name of a family / matrix ISA. Thread safety: any thread. */
AKAPI const char* ak_family_name(ak_family f);
AKAPI const char* ak_matrix_isa_name(ak_matrix_isa m);

/* ==========================================================================
 * >>decl:context
 * ========================================================================== */

typedef struct ak_context ak_context;
typedef struct ak_stream ak_stream;  /* NULL means the default stream */
typedef struct ak_event ak_event;

/* Why each backend was selected or skipped. */
typedef struct ak_backend_report {
    ak_backend backend;
    int tried;               /* 1 if probed */
    int selected;            /* 1 for the backend in use */
    ak_result status;        /* AK_OK if usable, else why not */
    char reason[512];        /* "libamdhip64.so.7, libamdhip64.so.6 not found; ..." */
} ak_backend_report;

typedef struct ak_device_info {
    ak_backend backend;
    int device;                    /* ordinal in the runtime's numbering */
    int device_count;              /* devices the runtime sees */
    char name[256];                /* "NVIDIA H100 80GB HBM3", "AMD Instinct MI250X" */
    char arch[128];                /* full arch string: "gfx90a:sramecc+:xnack-", "sm_90" */
    char arch_base[32];            /* without feature suffixes: "gfx90a" */
    const ak_arch_info* arch_info; /* table row, NULL if the arch is not in the table */
    int compute_units;
    int wave_size;
    size_t shared_mem_per_block;
    size_t l2_bytes;
    size_t mem_total;
    size_t mem_free;
    int clock_khz;
    int memory_clock_khz;
    int memory_bus_width;
    int runtime_version;           /* hipRuntimeGetVersion / cuDriverGetVersion */
    int driver_version;
    char compiler_version[64];     /* "hipRTC 5.2", "NVRTC 13.0" */
    char runtime_library[256];     /* path of the runtime library loaded */
    char compiler_library[256];    /* path of the compiler library loaded */
    int fp16;                      /* fp16 arithmetic: probed on the device */
    int bf16;                      /* bf16 conversions: probed on the device */
    char visible_devices[256];     /* "HIP_VISIBLE_DEVICES=1" / "CUDA_VISIBLE_DEVICES=..." or "" */
} ak_device_info;

/* Create a context. cfg NULL: ak_config_default() + environment. With cfg
 * given, the environment is NOT applied (call ak_config_apply_env yourself).
 * Errors: AK_ERROR_CONFIG, AK_ERROR_BACKEND_UNAVAILABLE (forced backend
 * unusable: the message lists what was tried), AK_ERROR_NO_DEVICE.
 * Thread safety: any thread; contexts are independent. */
AKAPI ak_result ak_context_create(const ak_config* cfg, ak_context** out);
/* Destroy a context and everything it owns (kernels, pool, streams). NULL ok.
 * Thread safety: no other thread may use ctx during or after. */
AKAPI void ak_context_destroy(ak_context* ctx);
/* Device description. Thread safety: any thread (mem_free is a snapshot). */
AKAPI const ak_device_info* ak_context_device(const ak_context* ctx);
/* Effective (validated, downgraded) config. Thread safety: any thread. */
AKAPI const ak_config* ak_context_config(const ak_context* ctx);
/* Reports for hip, cuda, cpu (in that order): *count gets 3.
 * Thread safety: any thread. */
AKAPI const ak_backend_report* ak_context_backend_reports(const ak_context* ctx, int* count);
/* Probe the backends without creating a context (what AUTO would see).
 * reports must hold 3. Thread safety: any thread. */
AKAPI void ak_probe_backends(ak_backend_report reports[3]);
/* Probe fp16 arithmetic and bf16 conversions on the device by compiling and
 * running a tiny kernel; fills device info fp16/bf16 (-1 until probed; the
 * cpu backend reports 1). Thread safety: not concurrently with itself. */
AKAPI ak_result ak_context_probe(ak_context* ctx);
/* Refresh mem_free in the device info. Thread safety: any thread. */
AKAPI ak_result ak_context_refresh_memory(ak_context* ctx);
/* Wait for all work on the device. Thread safety: any thread. */
AKAPI ak_result ak_device_synchronize(ak_context* ctx);

/* ==========================================================================
 * >>decl:compile
 * ========================================================================== */

typedef struct ak_compile_options {
    const char* const* options;  /* extra compiler options, e.g. "-DTILE=16" */
    int num_options;
    const char* source_name;     /* for logs and errors (default "kernel.hip") */
    ak_opt_level opt_level;      /* AK_OPT_AUTO: the context's */
    int no_prelude;              /* 1: do not prepend amdkit's portable prelude */
    int no_cache;                /* 1: bypass the compile cache (always compile) */
} ak_compile_options;

/* Where a code object came from. */
typedef enum ak_cache_source { AK_CACHE_MISS = 0, AK_CACHE_MEMORY = 1, AK_CACHE_DISK = 2 } ak_cache_source;

typedef struct ak_code_object {
    void* data;               /* code object (AMD ELF / CUDA cubin); free with ak_code_object_free */
    size_t size;
    char target[128];         /* target it was built for */
    ak_cache_source source;   /* miss (compiled now), memory or disk hit */
    double compile_ms;        /* time spent compiling (0 on a hit) */
} ak_code_object;

/* Compile for a named target without a device: "gfx906", "gfx908", "gfx90a",
 * "gfx1030", ... through hipRTC; "sm_80", "sm_90", ... through NVRTC. Works on
 * every backend (a cpu context can compile offline). Goes through the disk
 * cache. AK_ERROR_UNSUPPORTED_TARGET for a target the loaded compiler cannot
 * handle (checked before calling it), AK_ERROR_COMPILATION with the log.
 * Thread safety: any thread. */
AKAPI ak_result ak_compile_offline(ak_context* ctx, const char* target, const char* source,
                                   const char* kernel_name, const ak_compile_options* opts,
                                   ak_code_object* out);
/* Free a code object's data. Thread safety: any thread. */
AKAPI void ak_code_object_free(ak_code_object* co);

typedef struct ak_cache_stats {
    unsigned long long compilations;  /* compiler invocations */
    unsigned long long memory_hits;
    unsigned long long disk_hits;
    unsigned long long misses;        /* neither level had it */
    unsigned long long evictions;     /* memory LRU + disk cap */
    unsigned long long disk_errors;   /* corrupt/unreadable entries removed */
    double hit_rate;                  /* (memory+disk hits) / lookups */
    double compile_ms;                /* total time in the compiler */
    int memory_entries;
    int capacity;
    int disk_enabled;                 /* 0 when degraded to memory-only */
    char dir[512];                    /* disk cache directory */
} ak_cache_stats;

/* Cache statistics of this context. Thread safety: any thread. */
AKAPI ak_result ak_cache_stats_get(ak_context* ctx, ak_cache_stats* out);
/* Remove every disk entry (all contexts and processes sharing the dir) and
 * the memory entries no kernel handle holds. Thread safety: any thread. */
AKAPI ak_result ak_cache_purge(ak_context* ctx);
/* The disk cache directory a context with this config would use (no I/O).
 * Thread safety: any thread. */
AKAPI ak_result ak_cache_dir(const ak_config* cfg, char* buf, size_t buf_size);

/* ==========================================================================
 * >>decl:launch
 * ========================================================================== */

typedef struct ak_kernel ak_kernel;
typedef struct ak_dim3 { unsigned x, y, z; } ak_dim3;

/* What a CPU implementation of a kernel gets. */
typedef struct ak_launch_info {
    ak_dim3 grid, block;
    size_t shared_bytes;
    void* user_data;
} ak_launch_info;
/* A CPU implementation: args are the same pointers the GPU kernel gets
 * (host pointers on the cpu backend / in ak_check). */
typedef void (*ak_cpu_kernel_fn)(const ak_launch_info* info, void** args);

/* Get a kernel: compile `source` for the context's device (through the
 * cache) and look up `kernel_name` (an extern "C" __global__ function).
 * On the cpu backend no compiler is needed; the kernel then runs its CPU
 * implementation (ak_kernel_set_cpu). Release with ak_kernel_release.
 * Thread safety: any thread; two threads asking for the same kernel compile it once. */
AKAPI ak_result ak_kernel_get(ak_context* ctx, const char* source, const char* kernel_name,
                              const ak_compile_options* opts, ak_kernel** out);
/* Drop a reference. NULL ok. Thread safety: any thread. */
AKAPI void ak_kernel_release(ak_kernel* k);
/* Attach a CPU implementation (used on the cpu backend and by ak_check).
 * Thread safety: not while the kernel is launched from another thread. */
AKAPI void ak_kernel_set_cpu(ak_kernel* k, ak_cpu_kernel_fn fn, void* user_data);
/* Where the kernel's code came from (miss, memory, disk). Thread safety: any thread. */
AKAPI ak_cache_source ak_kernel_cache_source(const ak_kernel* k);

/* Launch. args: array of pointers to each argument value, as
 * hipModuleLaunchKernel takes them. stream NULL: default stream.
 * AK_ERROR_LAUNCH with the runtime's message on failure.
 * Thread safety: any thread. */
AKAPI ak_result ak_launch(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shared_bytes,
                          ak_stream* stream, void** args);

/* Argument builder: ak_args a = {0}; ak_args_ptr(&a, dx); ak_args_i32(&a, n);
 * ak_launch(k, g, b, 0, NULL, ak_args_params(&a)); */
#define AK_MAX_ARGS 32
typedef enum ak_arg_dir { AK_ARG_VALUE = 0, AK_ARG_IN = 1, AK_ARG_OUT = 2, AK_ARG_INOUT = 3 } ak_arg_dir;
typedef struct ak_args {
    int count;
    int error;                             /* set when too many args were added */
    void* params[AK_MAX_ARGS];             /* filled by ak_args_params */
    union { void* p; int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f32; double f64; }
        value[AK_MAX_ARGS];
    /* buffer metadata for ak_check */
    size_t bytes[AK_MAX_ARGS];
    ak_dtype dtype[AK_MAX_ARGS];
    ak_arg_dir dir[AK_MAX_ARGS];
} ak_args;
/* Append an argument. Thread safety: the ak_args is the caller's. */
AKAPI void ak_args_ptr(ak_args* a, const void* device_ptr);
AKAPI void ak_args_i32(ak_args* a, int32_t v);
AKAPI void ak_args_u32(ak_args* a, uint32_t v);
AKAPI void ak_args_i64(ak_args* a, int64_t v);
AKAPI void ak_args_u64(ak_args* a, uint64_t v);
AKAPI void ak_args_f32(ak_args* a, float v);
AKAPI void ak_args_f64(ak_args* a, double v);
/* A device buffer argument with its size, dtype and direction, so ak_check
 * can mirror it on the host. Thread safety: the ak_args is the caller's. */
AKAPI void ak_args_buffer(ak_args* a, void* device_ptr, size_t bytes, ak_dtype dtype, ak_arg_dir dir);
/* The void** to pass to ak_launch (points into *a). Thread safety: caller's. */
AKAPI void** ak_args_params(ak_args* a);

/* Result of ak_check: worst error over all OUT/INOUT buffers. */
typedef struct ak_check_result {
    double max_abs_err;
    double max_rel_err;
    size_t worst_index;      /* element index of the worst error */
    int worst_arg;           /* argument index of that buffer */
    size_t mismatches;       /* elements over tolerance */
    int passed;              /* 1 if every element is within atol + rtol*|ref| */
} ak_check_result;

/* Run kernel k on the device with `args` and its CPU implementation on host
 * copies of the same inputs; compare every OUT/INOUT buffer elementwise.
 * Thread safety: any thread. */
AKAPI ak_result ak_check(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shared_bytes,
                         ak_args* args, double atol, double rtol, ak_check_result* out);

/* ==========================================================================
 * >>decl:memory
 * ========================================================================== */

typedef enum ak_copy_kind { AK_H2D = 1, AK_D2H = 2, AK_D2D = 3, AK_H2H = 0 } ak_copy_kind;

typedef struct ak_pool_stats {
    size_t in_use;            /* bytes handed out */
    size_t reserved;          /* bytes held from the runtime */
    size_t peak_in_use;
    size_t peak_reserved;
    size_t limit;             /* bytes the pool may reserve */
    unsigned long long blocks;        /* blocks reserved from the runtime (segments) */
    unsigned long long free_blocks;   /* cached free blocks */
    unsigned long long allocations;   /* ak_malloc calls that succeeded */
    unsigned long long frees;
    unsigned long long cache_hits;    /* allocations served from cached blocks */
    unsigned long long runtime_allocs;/* allocations that went to the runtime */
    unsigned long long oom_count;     /* allocations that failed with out of memory */
    unsigned long long oom_retries;   /* times cached blocks were freed to retry */
} ak_pool_stats;

/* Allocate device memory (host memory on cpu) from the pool, for use on
 * `stream` (NULL: default). 256-byte aligned. Zero bytes is
 * AK_ERROR_INVALID_ARGUMENT. AK_ERROR_OUT_OF_MEMORY with the numbers.
 * Thread safety: any thread. */
AKAPI ak_result ak_malloc(ak_context* ctx, size_t bytes, ak_stream* stream, void** out);
/* Return memory to the pool; it is reused on the stream it was allocated for,
 * and on others once the work queued before the free is done. NULL ok.
 * Double free or foreign pointer: AK_ERROR_MEMORY. Thread safety: any thread. */
AKAPI ak_result ak_free(ak_context* ctx, void* ptr);
/* Copy bytes (synchronous). Thread safety: any thread. */
AKAPI ak_result ak_memcpy(ak_context* ctx, void* dst, const void* src, size_t bytes, ak_copy_kind kind);
/* Copy on a stream. Thread safety: any thread. */
AKAPI ak_result ak_memcpy_async(ak_context* ctx, void* dst, const void* src, size_t bytes,
                                ak_copy_kind kind, ak_stream* stream);
/* Set bytes to `value` (on a stream; NULL = default stream, asynchronous).
 * Thread safety: any thread. */
AKAPI ak_result ak_memset(ak_context* ctx, void* dst, int value, size_t bytes, ak_stream* stream);
/* Page-locked host memory for fast async copies. Thread safety: any thread. */
AKAPI ak_result ak_host_alloc(ak_context* ctx, size_t bytes, void** out);
AKAPI ak_result ak_host_free(ak_context* ctx, void* ptr);
/* Pool statistics. Thread safety: any thread. */
AKAPI ak_result ak_pool_stats_get(ak_context* ctx, ak_pool_stats* out);
/* Release every cached free whole segment (runtime allocation) to the runtime;
 * free pieces of partly used segments stay cached. Thread safety: any thread. */
AKAPI ak_result ak_pool_trim(ak_context* ctx);

/* ==========================================================================
 * >>decl:stream
 * ========================================================================== */

/* Create a named stream; priority: 0 normal, negative = higher (runtime's
 * convention, clamped to the device range). Thread safety: any thread. */
AKAPI ak_result ak_stream_create(ak_context* ctx, const char* name, int priority, ak_stream** out);
/* Destroy (waits for its work). NULL ok. Thread safety: not while in use. */
AKAPI void ak_stream_destroy(ak_stream* s);
/* Wait for the stream's work; NULL = default stream of ctx. Thread safety: any thread. */
AKAPI ak_result ak_stream_synchronize(ak_context* ctx, ak_stream* s);
/* Name given at creation ("default" for NULL). Thread safety: any thread. */
AKAPI const char* ak_stream_name(const ak_stream* s);

/* Events with timing. Thread safety: any thread. */
AKAPI ak_result ak_event_create(ak_context* ctx, ak_event** out);
AKAPI void ak_event_destroy(ak_event* e);
/* Record on a stream (NULL = default). Thread safety: any thread. */
AKAPI ak_result ak_event_record(ak_event* e, ak_stream* s);
/* Wait for the event. Thread safety: any thread. */
AKAPI ak_result ak_event_synchronize(ak_event* e);
/* Milliseconds between two recorded events. Thread safety: any thread. */
AKAPI ak_result ak_event_elapsed_ms(ak_event* start, ak_event* end, float* ms);

/* ==========================================================================
 * >>decl:prof
 * ========================================================================== */

typedef struct ak_prof_stat {
    const char* name;
    unsigned long long count;
    double total_ms, mean_ms, min_ms, max_ms;
    int gpu_timed;            /* 1 if timed with device events */
} ak_prof_stat;

/* Open a region on a stream (NULL = default); regions nest per thread.
 * A no-op unless ak_config.profiling is on. Thread safety: any thread. */
AKAPI ak_result ak_prof_begin(ak_context* ctx, const char* name, ak_stream* stream);
/* Close the innermost open region of this thread. Thread safety: any thread. */
AKAPI ak_result ak_prof_end(ak_context* ctx);
/* Scope macro: AK_PROF_SCOPE(ctx, "step") { ... }  (C99 / C++; do not `break`,
 * `return` or `goto` out of it; nested scopes on separate lines are -Wshadow clean) */
#define AK_PROF_SCOPE(ctx, name) AK_PROF_SCOPE_(ctx, name, AK_PROF_CAT_(ak_prof_once_, __LINE__))
#define AK_PROF_CAT2_(a, b) a##b
#define AK_PROF_CAT_(a, b) AK_PROF_CAT2_(a, b)
#define AK_PROF_SCOPE_(ctx, name, v) \
    for (int v = (ak_prof_begin((ctx), (name), NULL), 1); v; v = (ak_prof_end(ctx), 0))
/* Statistics of region i (in first-seen order); *count receives the number of
 * regions. Resolves pending GPU timings (synchronizes). Thread safety: any thread. */
AKAPI ak_result ak_prof_stats(ak_context* ctx, ak_prof_stat* out, int max, int* count);
/* Print a summary table. Thread safety: any thread. */
AKAPI ak_result ak_prof_summary(ak_context* ctx, FILE* f);
/* Write every recorded region instance as Chrome trace JSON (Perfetto opens
 * it). Thread safety: any thread. */
AKAPI ak_result ak_prof_export_chrome(ak_context* ctx, const char* path);
/* Forget all regions. Thread safety: not while regions are open. */
AKAPI void ak_prof_reset(ak_context* ctx);

/* ==========================================================================
 * >>decl:ops
 * ========================================================================== */
/* Kernel sources embedded in this header (kernels/<family>.hip, generated by
 * `make gen`). Number of families. Thread safety: any thread. */
AKAPI int ak_embedded_count(void);
/* Family i (0 <= i < ak_embedded_count()): its name ("elementwise"), its HIP
 * source (without the prelude) and the space-separated names of its extern "C"
 * kernels. Any output pointer may be NULL. AK_ERROR_INVALID_ARGUMENT for an
 * index out of range. The strings are static. Thread safety: any thread. */
AKAPI ak_result ak_embedded_at(int i, const char** family, const char** source, const char** kernel_names);
/* The portable prelude every kernel source is compiled with (defines AK_WAVE
 * defaults, AK_KERNEL, fp16/bf16 conversions, wave shuffles, block reductions).
 * Static string. Thread safety: any thread. */
AKAPI const char* ak_prelude_source(void);
/*@AKOPS_DECL_COMMON@*/
/* ---- element-wise ops (K1) ------------------------------------------------
 * Common rules of the element-wise ops: dtypes are AK_F32, AK_F16 or AK_BF16
 * (storage; the math is fp32); pointers are device memory of ctx (host memory
 * on the cpu backend), non-NULL and aligned to the element size (16-byte
 * alignment enables the vector path); n >= 1. An output may be the same
 * pointer as an input where noted, but buffers must not partially overlap.
 * Each op is queued on `stream` (NULL: default stream) and returns without
 * waiting (the cpu backend runs it at once). Errors: AK_ERROR_INVALID_ARGUMENT
 * with a message for bad arguments (nothing is launched), AK_ERROR_COMPILATION
 * / AK_ERROR_LAUNCH from the first-use compile and the launch. Kernels are
 * compiled on first use per context and kept until ak_context_destroy.
 * Thread safety of all of them: any thread (a context may be shared). */

/* Unary ops of ak_unary. */
typedef enum ak_unary_op {
    AK_OP_RELU = 0,        /* x < 0 ? 0 : x (NaN stays NaN) */
    AK_OP_LEAKY_RELU = 1,  /* x < 0 ? param * x : x */
    AK_OP_SIGMOID = 2,     /* 1 / (1 + exp(-x)) */
    AK_OP_TANH = 3,        /* tanh(x) */
    AK_OP_SILU = 4,        /* x * sigmoid(x) */
    AK_OP_GELU = 5,        /* 0.5 x (1 + erf(x / sqrt(2))) */
    AK_OP_GELU_TANH = 6,   /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    AK_UNARY_OP_COUNT
} ak_unary_op;

/* Binary ops of ak_binary: z = x op y. */
typedef enum ak_binary_op {
    AK_OP_ADD = 0, AK_OP_SUB = 1, AK_OP_MUL = 2, AK_OP_DIV = 3,
    AK_BINARY_OP_COUNT
} ak_binary_op;

/* Name of an op ("gelu_tanh", "add"); "?" if unknown. Thread safety: any thread. */
AKAPI const char* ak_unary_op_name(ak_unary_op op);
AKAPI const char* ak_binary_op_name(ak_binary_op op);

/* y[i] = value (rounded to dtype) for i < n. Thread safety: any thread. */
AKAPI ak_result ak_fill(ak_context* ctx, ak_dtype dtype, void* y, size_t n, float value, ak_stream* stream);
/* y[i] = x[i], bit-exact, for n elements of dtype; x == y is allowed (no-op),
 * other overlaps are errors. Thread safety: any thread. */
AKAPI ak_result ak_copy(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t n, ak_stream* stream);
/* y[i] = (dst_dtype) x[i]: conversion between f32, f16 and bf16 (round to
 * nearest even; the same dtype is ak_copy). x and y must not overlap.
 * Thread safety: any thread. */
AKAPI ak_result ak_cast(ak_context* ctx, ak_dtype src_dtype, const void* x, ak_dtype dst_dtype, void* y, size_t n,
                        ak_stream* stream);
/* y[i] = alpha * x[i] + y[i]; x == y allowed. Thread safety: any thread. */
AKAPI ak_result ak_axpy(ak_context* ctx, ak_dtype dtype, size_t n, float alpha, const void* x, void* y,
                        ak_stream* stream);
/* y[i] = alpha * x[i]; y == x allowed (in place). Thread safety: any thread. */
AKAPI ak_result ak_scale(ak_context* ctx, ak_dtype dtype, size_t n, float alpha, const void* x, void* y,
                         ak_stream* stream);
/* z[i] = x[i] op y[i]; z may be x or y. Thread safety: any thread. */
AKAPI ak_result ak_binary(ak_context* ctx, ak_binary_op op, ak_dtype dtype, const void* x, const void* y, void* z,
                          size_t n, ak_stream* stream);
/* ak_binary with AK_OP_ADD / AK_OP_MUL. Thread safety: any thread. */
AKAPI ak_result ak_add(ak_context* ctx, ak_dtype dtype, const void* x, const void* y, void* z, size_t n,
                       ak_stream* stream);
AKAPI ak_result ak_mul(ak_context* ctx, ak_dtype dtype, const void* x, const void* y, void* z, size_t n,
                       ak_stream* stream);
/* y[i] = op(x[i]); param is the negative slope of AK_OP_LEAKY_RELU (ignored
 * by the others); y == x allowed. Thread safety: any thread. */
AKAPI ak_result ak_unary(ak_context* ctx, ak_unary_op op, ak_dtype dtype, const void* x, void* y, size_t n,
                         float param, ak_stream* stream);
/* y = transpose(x): x is rows x cols row-major, y becomes cols x rows
 * row-major (y[c * rows + r] = x[r * cols + c]); any shape; x and y must not
 * overlap. Thread safety: any thread. */
AKAPI ak_result ak_transpose(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t rows, size_t cols,
                             ak_stream* stream);
/*@AKOPS_DECL_ELEMENTWISE@*/
/* ---- reductions, softmax, norms, cross-entropy (K2) ------------------------
 * Common rules (as for the element-wise ops): x is a row-major, contiguous
 * rows x cols tensor of dtype AK_F32, AK_F16 or AK_BF16 and every op works
 * along the last dimension (a whole-tensor reduction is rows = 1,
 * cols = n); the math and accumulation are fp32. Pointers are device memory
 * of ctx (host memory on the cpu backend), non-NULL unless noted, aligned to
 * their element size (16-byte alignment and cols % 8 == 0 enable the vector
 * path); rows, cols >= 1. Outputs may equal the input where noted; other
 * overlaps are AK_ERROR_INVALID_ARGUMENT. Each op is queued on `stream`
 * (NULL: default stream) and returns without waiting; some take a small
 * workspace from the context's pool on that stream. Results are
 * deterministic (fixed reduction order, no atomics in any sum): the same call
 * on the same device gives the same bits. The cpu backend runs a C reference
 * with double accumulation. Errors: AK_ERROR_INVALID_ARGUMENT with a message
 * (nothing launched), AK_ERROR_OUT_OF_MEMORY (workspace), AK_ERROR_COMPILATION
 * / AK_ERROR_LAUNCH. Thread safety of all of them: any thread. */

/* Reductions of ak_reduce. */
typedef enum ak_reduce_op {
    AK_REDUCE_SUM = 0,     /* out: float */
    AK_REDUCE_MEAN = 1,    /* sum / cols; out: float */
    AK_REDUCE_MAX = 2,     /* out: float; NaN if the row has a NaN (like torch.max) */
    AK_REDUCE_MIN = 3,     /* out: float; NaN if the row has a NaN */
    AK_REDUCE_ARGMAX = 4,  /* out: int64_t, index of the first maximum; a NaN counts as the maximum */
    AK_REDUCE_ARGMIN = 5,  /* out: int64_t, index of the first minimum; a NaN counts as the minimum */
    AK_REDUCE_OP_COUNT
} ak_reduce_op;

/* Name of a reduction ("sum", "argmax"); "?" if unknown. Thread safety: any thread. */
AKAPI const char* ak_reduce_op_name(ak_reduce_op op);

/* out[r] = op(x[r, 0..cols)) for r < rows. out holds rows elements: fp32
 * (float) for SUM / MEAN / MAX / MIN whatever the input dtype, int64_t for
 * ARGMAX / ARGMIN; it must not overlap x. Large rows (and rows = 1) run as
 * two passes: per-chunk partials, then a fixed-order combine.
 * Thread safety: any thread. */
AKAPI ak_result ak_reduce(ak_context* ctx, ak_reduce_op op, ak_dtype dtype, const void* x, size_t rows, size_t cols,
                          void* out, ak_stream* stream);

/* Softmax along the last dimension: y[r, c] = exp(x[r, c] - m) / sum_c exp(x[r, c] - m),
 * m = max of the row (numerically stable); log_softmax != 0: y = x - m - log(sum).
 * A row with a NaN gives NaN; -inf entries give 0 (-inf). Any width: rows up
 * to 16384 wide are held in registers, wider ones are split over several
 * co-operating blocks (one read and one write of x in both cases); rows past
 * 8192 x compute units (f16 / bf16: past 131072), and every row wider than
 * 16384 at AK_OPT_CONSERVATIVE, take a second read of x instead.
 * y may equal x (in place). Thread safety: any thread. */
AKAPI ak_result ak_softmax(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t rows, size_t cols,
                           int log_softmax, ak_stream* stream);

/* Layer normalization along the last dimension:
 * y = (x - mean) / sqrt(var + eps) * weight + bias, var the biased variance of
 * the row. weight and bias (cols elements of dtype) may each be NULL (1 and
 * 0). eps >= 0 and finite. y may equal x. Thread safety: any thread. */
AKAPI ak_result ak_layernorm(ak_context* ctx, ak_dtype dtype, const void* x, const void* weight, const void* bias,
                             void* y, size_t rows, size_t cols, float eps, ak_stream* stream);

/* RMS normalization along the last dimension: y = x / sqrt(mean(x^2) + eps) * weight.
 * weight (cols elements of dtype) may be NULL (1). eps >= 0 and finite. y may
 * equal x. Thread safety: any thread. */
AKAPI ak_result ak_rmsnorm(ak_context* ctx, ak_dtype dtype, const void* x, const void* weight, void* y, size_t rows,
                           size_t cols, float eps, ak_stream* stream);

/* How ak_cross_entropy reduces the per-row losses. */
typedef enum ak_loss_reduction {
    AK_LOSS_NONE = 0,  /* loss[r] for every row: rows floats */
    AK_LOSS_MEAN = 1,  /* one float: mean over the rows whose target is not ignore_index (NaN if none) */
    AK_LOSS_SUM = 2,   /* one float: sum over those rows */
    AK_LOSS_REDUCTION_COUNT
} ak_loss_reduction;

/* Cross-entropy of logits (rows x cols, cols = classes, dtype f32/f16/bf16)
 * with int64 class targets (rows of them):
 * loss[r] = logsumexp(logits[r, :]) - logits[r, targets[r]], in fp32.
 * targets[r] == ignore_index: loss 0, not counted by the mean (pass e.g. -100
 * like torch, or any value outside [0, cols) that no row uses to disable).
 * A target outside [0, cols) that is not ignore_index cannot be checked
 * without reading device memory: the GPU kernels write NaN for that row (so a
 * mean or sum becomes NaN); the cpu backend writes the same NaN and then
 * returns AK_ERROR_INVALID_ARGUMENT naming the first such row. loss: float,
 * rows of them for AK_LOSS_NONE, one for MEAN / SUM; it must not overlap the
 * inputs. The logits are read once. Thread safety: any thread. */
AKAPI ak_result ak_cross_entropy(ak_context* ctx, ak_dtype dtype, const void* logits, const int64_t* targets,
                                 size_t rows, size_t cols, int64_t ignore_index, ak_loss_reduction reduction,
                                 float* loss, ak_stream* stream);
/*@AKOPS_DECL_REDUCE@*/

#ifdef __cplusplus
}
#endif
#endif /* AMDKIT_H */

/* ##########################################################################
 * IMPLEMENTATION
 * ########################################################################## */
#ifdef AMDKIT_IMPLEMENTATION
#ifndef AMDKIT_IMPLEMENTATION_DONE
#define AMDKIT_IMPLEMENTATION_DONE

/* ==========================================================================
 * >>impl:platform
 * ========================================================================== */
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <time.h>
#include <ctype.h>
#include <limits.h>
#include <float.h>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
#include <fcntl.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifndef AK_ASSERT
#include <assert.h>
#define AK_ASSERT(x) assert(x)
#endif

#if defined(AK_MALLOC) && defined(AK_REALLOC) && defined(AK_FREE)
/* all three given */
#elif !defined(AK_MALLOC) && !defined(AK_REALLOC) && !defined(AK_FREE)
#define AK_MALLOC(sz) malloc(sz)
#define AK_REALLOC(p, sz) realloc((p), (sz))
#define AK_FREE(p) free(p)
#else
#error "amdkit: define all of AK_MALLOC, AK_REALLOC and AK_FREE, or none of them"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define _AK_UNUSED __attribute__((unused))
#define _AK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define _AK_UNUSED
#define _AK_PRINTF(a, b)
#endif

#ifdef AMDKIT_STATIC
#define AKDEF static _AK_UNUSED
#else
#define AKDEF
#endif

/* Host allocation: AK_MALLOC & co. The run-time allocator of a context
 * (ak_config.allocator) is used for the context's own objects through
 * _ak_ctx_alloc / _ak_ctx_free (>>impl:context). */
static void* _ak_alloc(size_t n) { return AK_MALLOC(n ? n : 1); }
static void* _ak_calloc(size_t n) { void* p = AK_MALLOC(n ? n : 1); if (p) memset(p, 0, n ? n : 1); return p; }
static void* _ak_realloc(void* p, size_t n) { return AK_REALLOC(p, n ? n : 1); }
static void _ak_dealloc(void* p) { if (p) AK_FREE(p); }
static char* _ak_strdup(const char* s) {
    size_t n; char* d;
    if (!s) return NULL;
    n = strlen(s);
    d = (char*)_ak_alloc(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}
/* snprintf into a fixed buffer, always terminated, never overflowing. */
static void _ak_copy(char* dst, size_t cap, const char* src) {
    size_t n;
    if (!cap) return;
    if (!src) src = "";
    n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}
/* snprintf that may truncate on purpose (no -Wformat-truncation noise). */
static void _ak_fmt(char* dst, size_t cap, const char* fmt, ...) _AK_PRINTF(3, 4);
static void _ak_fmt(char* dst, size_t cap, const char* fmt, ...) {
    va_list ap;
    if (!cap) return;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}
static void _ak_appendf(char* dst, size_t cap, const char* fmt, ...) _AK_PRINTF(3, 4);
static void _ak_appendf(char* dst, size_t cap, const char* fmt, ...) {
    size_t len = strlen(dst);
    va_list ap;
    if (len + 1 >= cap) return;
    va_start(ap, fmt);
    vsnprintf(dst + len, cap - len, fmt, ap);
    va_end(ap);
}

/* Growable string. */
typedef struct _ak_str { char* p; size_t len, cap; int oom; } _ak_str;
static void _ak_str_addn(_ak_str* s, const char* t, size_t n) {
    if (s->oom) return;
    if (s->len + n + 1 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        char* np;
        while (nc < s->len + n + 1) nc *= 2;
        np = (char*)_ak_realloc(s->p, nc);
        if (!np) { s->oom = 1; return; }
        s->p = np; s->cap = nc;
    }
    memcpy(s->p + s->len, t, n);
    s->len += n;
    s->p[s->len] = 0;
}
static void _ak_str_add(_ak_str* s, const char* t) { _ak_str_addn(s, t, strlen(t)); }
static void _ak_str_addf(_ak_str* s, const char* fmt, ...) _AK_PRINTF(2, 3) _AK_UNUSED;
static void _ak_str_addf(_ak_str* s, const char* fmt, ...) {
    char buf[1024];
    int n;
    va_list ap;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof buf) { _ak_str_addn(s, buf, (size_t)n); return; }
    {
        char* big = (char*)_ak_alloc((size_t)n + 1);
        if (!big) { s->oom = 1; return; }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        _ak_str_addn(s, big, (size_t)n);
        _ak_dealloc(big);
    }
}
static void _ak_str_free(_ak_str* s) { _ak_dealloc(s->p); s->p = NULL; s->len = s->cap = 0; }

/* Mutexes and condition variables (pthreads). */
typedef struct _ak_mutex { pthread_mutex_t m; } _ak_mutex;
typedef struct _ak_cond { pthread_cond_t c; } _ak_cond;
static void _ak_mutex_init(_ak_mutex* m) { pthread_mutex_init(&m->m, NULL); }
static void _ak_mutex_destroy(_ak_mutex* m) { pthread_mutex_destroy(&m->m); }
static void _ak_mutex_lock(_ak_mutex* m) { pthread_mutex_lock(&m->m); }
static void _ak_mutex_unlock(_ak_mutex* m) { pthread_mutex_unlock(&m->m); }
static void _ak_cond_init(_ak_cond* c) { pthread_cond_init(&c->c, NULL); }
static void _ak_cond_destroy(_ak_cond* c) { pthread_cond_destroy(&c->c); }
static void _ak_cond_wait(_ak_cond* c, _ak_mutex* m) { pthread_cond_wait(&c->c, &m->m); }
static void _ak_cond_broadcast(_ak_cond* c) { pthread_cond_broadcast(&c->c); }

/* Monotonic clock in nanoseconds. */
static uint64_t _ak_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* dlopen / dlsym without the object-to-function pointer cast ISO C forbids. */
static void* _ak_dlopen(const char* name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
static void _ak_dlsym(void* lib, const char* name, void* fnptr_out) {
    void* sym = lib ? dlsym(lib, name) : NULL;
    memcpy(fnptr_out, &sym, sizeof sym);
}
/* Path of the file a loaded library came from (for device info). */
static void _ak_dlpath(void* lib, const char* any_symbol, char* out, size_t cap) {
    Dl_info info;
    void* sym = lib ? dlsym(lib, any_symbol) : NULL;
    out[0] = 0;
    if (sym && dladdr(sym, &info) && info.dli_fname) _ak_copy(out, cap, info.dli_fname);
}

/* Environment lookup: NULL when unset or empty. */
static const char* _ak_getenv(const char* name) {
    const char* v = getenv(name);
    return (v && *v) ? v : NULL;
}

/* Case-insensitive string equality. */
static int _ak_streq_ci(const char* a, const char* b) {
    if (!a || !b) return 0;
    while (*a && *b) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
        a++; b++;
    }
    return *a == *b;
}

/* ==========================================================================
 * >>impl:result
 * ========================================================================== */
typedef struct _ak_tls {
    ak_error_info info;
    char message[2048];
    char* log;
    char* options;
    char* source_name;
} _ak_tls;

static pthread_key_t _ak_tls_key;
static pthread_once_t _ak_tls_once = PTHREAD_ONCE_INIT;
static void _ak_tls_free(void* p) {
    _ak_tls* t = (_ak_tls*)p;
    if (!t) return;
    _ak_dealloc(t->log); _ak_dealloc(t->options); _ak_dealloc(t->source_name);
    _ak_dealloc(t);
}
static void _ak_tls_make_key(void) { pthread_key_create(&_ak_tls_key, _ak_tls_free); }
static _ak_tls* _ak_tls_get(void) {
    static _ak_tls fallback; /* only if the allocator fails */
    _ak_tls* t;
    pthread_once(&_ak_tls_once, _ak_tls_make_key);
    t = (_ak_tls*)pthread_getspecific(_ak_tls_key);
    if (!t) {
        t = (_ak_tls*)_ak_calloc(sizeof *t);
        if (!t) return &fallback;
        pthread_setspecific(_ak_tls_key, t);
    }
    return t;
}

AKDEF const char* ak_result_string(ak_result r) {
    switch (r) {
#define AK_X_(name, value, text) case name: return text;
    AK_RESULT_LIST(AK_X_)
#undef AK_X_
    default: return "unknown result code";
    }
}
AKDEF const char* ak_result_name(ak_result r) {
    switch (r) {
#define AK_X_(name, value, text) case name: return #name;
    AK_RESULT_LIST(AK_X_)
#undef AK_X_
    default: return "AK_RESULT_UNKNOWN";
    }
}
AKDEF const char* ak_log_item_name(ak_log_item item) {
    static const char* names[] = {
#define AK_X_(name, text) #name,
        AK_LOG_ITEM_LIST(AK_X_)
#undef AK_X_
    };
    if ((int)item < 0 || (int)item >= (int)AK_LOGITEM_COUNT) return "UNKNOWN";
    return names[item];
}

/* Record a failure on this thread and return its code:
 *   return _ak_err(AK_ERROR_CONFIG, "max_memory_fraction is %g, expected (0, 1]", v); */
static ak_result _ak_err(ak_result r, const char* fmt, ...) _AK_PRINTF(2, 3);
static ak_result _ak_err(ak_result r, const char* fmt, ...) {
    _ak_tls* t = _ak_tls_get();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->message, sizeof t->message, fmt, ap);
    va_end(ap);
    t->info.result = r;
    _ak_dealloc(t->log); t->log = NULL;
    _ak_dealloc(t->options); t->options = NULL;
    _ak_dealloc(t->source_name); t->source_name = NULL;
    return r;
}
/* Attach compiler details to the last error of this thread (after _ak_err). */
static void _ak_err_compile_detail(const char* log, const char* options, const char* source_name) {
    _ak_tls* t = _ak_tls_get();
    _ak_dealloc(t->log); _ak_dealloc(t->options); _ak_dealloc(t->source_name);
    t->log = _ak_strdup(log ? log : "");
    t->options = _ak_strdup(options ? options : "");
    t->source_name = _ak_strdup(source_name ? source_name : "");
}
AKDEF const ak_error_info* ak_last_error_info(void) {
    _ak_tls* t = _ak_tls_get();
    t->info.message = t->message;
    t->info.log = t->log ? t->log : "";
    t->info.options = t->options ? t->options : "";
    t->info.source_name = t->source_name ? t->source_name : "";
    return &t->info;
}
AKDEF const char* ak_last_error(void) { return _ak_tls_get()->message; }
AKDEF void ak_clear_error(void) {
    _ak_tls* t = _ak_tls_get();
    t->message[0] = 0;
    t->info.result = AK_OK;
    _ak_dealloc(t->log); t->log = NULL;
    _ak_dealloc(t->options); t->options = NULL;
    _ak_dealloc(t->source_name); t->source_name = NULL;
}

/* A logger as a context (or a standalone object) holds it. */
typedef struct _ak_logger {
    ak_log_fn fn;        /* NULL: stderr */
    void* user_data;
    ak_log_level level;
} _ak_logger;

static void _ak_log(const _ak_logger* lg, ak_log_level level, ak_log_item item, const char* fmt, ...)
    _AK_PRINTF(4, 5);
static void _ak_log(const _ak_logger* lg, ak_log_level level, ak_log_item item, const char* fmt, ...) {
    char buf[4096];
    va_list ap;
    ak_log_level max = lg ? lg->level : AK_LOG_WARN;
    if (level == AK_LOG_NONE || level > max) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (lg && lg->fn) {
        lg->fn(lg->user_data, level, item, buf);
    } else {
        static const char* lv[] = { "", "error", "warn", "info", "debug" };
        fprintf(stderr, "amdkit %s [%s]: %s\n", lv[level], ak_log_item_name(item), buf);
    }
}

/* ==========================================================================
 * >>impl:context-struct  (the context and the raw device operations every
 * section uses; the functions are defined in >>impl:backend)
 * ========================================================================== */
struct _ak_api;
struct _ak_pool;
struct _ak_cache;
struct _ak_prof;
struct _ak_ops;

struct ak_stream {
    ak_context* ctx;
    void* native;          /* hipStream_t / CUstream; NULL on cpu */
    char name[64];
    int priority;
};
struct ak_event {
    ak_context* ctx;
    void* native;          /* hipEvent_t / CUevent; NULL on cpu */
    uint64_t host_ns;      /* cpu backend: host clock at record */
    int recorded;
};

struct ak_context {
    ak_config cfg;                 /* effective config; string fields point into the buffers below */
    char arch_buf[128];
    char cache_dir_buf[512];
    _ak_logger log;
    ak_backend backend;
    ak_device_info dev;
    ak_backend_report reports[3];  /* hip, cuda, cpu */
    struct _ak_api* api;           /* entry points of the backend in use (NULL on cpu) */
    void* native_ctx;              /* CUcontext (cuda) */
    _ak_mutex lock;                /* guards small context state (stream list) */
    struct _ak_cache* cache;
    struct _ak_pool* pool;
    struct _ak_prof* prof;
    struct _ak_ops* ops;           /* kernel library state (loaded kernels) */
    char dev_tag[64];              /* memory-cache identity of this context's device */
};

/* Raw device operations of the context's backend, no pool involved.
 * `stream` arguments are native handles (ak_stream.native; NULL = default). */
static ak_result _ak_dev_alloc(ak_context* ctx, size_t bytes, void** out);   /* AK_ERROR_OUT_OF_MEMORY on failure */
static void _ak_dev_free(ak_context* ctx, void* ptr);
static ak_result _ak_dev_mem_info(ak_context* ctx, size_t* free_bytes, size_t* total_bytes);
static ak_result _ak_dev_event_create(ak_context* ctx, void** ev);           /* timing-disabled, for ordering */
static ak_result _ak_dev_event_record(ak_context* ctx, void* ev, void* stream);
static int _ak_dev_event_done(ak_context* ctx, void* ev);                  /* 1 when complete (or on error) */
static void _ak_dev_event_destroy(ak_context* ctx, void* ev);
static void* _ak_native_stream(ak_stream* s);                               /* NULL for NULL */
static void _ak_unload_cb(void* ctx, void* loaded);                         /* cache eviction: unload a module */
static void _ak_ops_destroy(ak_context* ctx);                               /* kernel library state */

/* ==========================================================================
 * >>impl:dtype
 * ========================================================================== */
AKDEF const char* ak_dtype_name(ak_dtype t) {
    static const char* n[] = { "f32", "f16", "bf16", "f64", "i32", "i64", "u8", "fp8_e4m3", "fp8_e5m2" };
    if ((int)t < 0 || (int)t >= (int)AK_DTYPE_COUNT) return "?";
    return n[t];
}
AKDEF size_t ak_dtype_size(ak_dtype t) {
    static const size_t z[] = { 4, 2, 2, 8, 4, 8, 1, 1, 1 };
    if ((int)t < 0 || (int)t >= (int)AK_DTYPE_COUNT) return 0;
    return z[t];
}
static uint32_t _ak_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float _ak_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
AKDEF uint16_t ak_f32_to_f16(float f) {
    uint32_t x = _ak_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7FFFFFFFu;
    if (ax >= 0x7F800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7C00u | (ax > 0x7F800000u ? 0x200u | ((ax >> 13) & 0x3FFu) : 0));
    if (ax >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* rounds to >= 65520: inf */
    if (ax < 0x38800000u) { /* subnormal half (or zero) */
        /* value = ax as float; half subnormal unit is 2^-24 */
        float a = _ak_bits_f32(ax);
        float scaled = a * 16777216.0f; /* / 2^-24, exact */
        /* round to nearest even integer */
        float r = (float)(long)scaled;
        float diff = scaled - r;
        if (diff > 0.5f || (diff == 0.5f && ((long)r & 1))) r += 1.0f;
        return (uint16_t)(sign | (uint32_t)r);
    }
    {
        uint32_t mant = ax & 0x7FFFFFu;
        uint32_t exp = (ax >> 23) - 127 + 15;
        uint32_t h = (exp << 10) | (mant >> 13);
        uint32_t rest = mant & 0x1FFFu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
        return (uint16_t)(sign | h);
    }
}
AKDEF float ak_f16_to_f32(uint16_t h) {
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = ((uint32_t)h >> 10) & 0x1Fu;
    uint32_t mant = (uint32_t)h & 0x3FFu;
    if (exp == 0) {
        float v = (float)mant * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    if (exp == 31) return _ak_bits_f32(sign | 0x7F800000u | (mant << 13));
    return _ak_bits_f32(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}
AKDEF uint16_t ak_f32_to_bf16(float f) {
    uint32_t x = _ak_f32_bits(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet nan */
    x += 0x7FFFu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}
AKDEF float ak_bf16_to_f32(uint16_t b) { return _ak_bits_f32((uint32_t)b << 16); }
AKDEF double ak_elem_get(const void* buf, ak_dtype t, size_t i) {
    switch (t) {
    case AK_F32: return (double)((const float*)buf)[i];
    case AK_F16: return (double)ak_f16_to_f32(((const uint16_t*)buf)[i]);
    case AK_BF16: return (double)ak_bf16_to_f32(((const uint16_t*)buf)[i]);
    case AK_F64: return ((const double*)buf)[i];
    case AK_I32: return (double)((const int32_t*)buf)[i];
    case AK_I64: return (double)((const int64_t*)buf)[i];
    case AK_U8: return (double)((const uint8_t*)buf)[i];
    default: return 0.0;
    }
}
AKDEF void ak_elem_set(void* buf, ak_dtype t, size_t i, double v) {
    switch (t) {
    case AK_F32: ((float*)buf)[i] = (float)v; break;
    case AK_F16: ((uint16_t*)buf)[i] = ak_f32_to_f16((float)v); break;
    case AK_BF16: ((uint16_t*)buf)[i] = ak_f32_to_bf16((float)v); break;
    case AK_F64: ((double*)buf)[i] = v; break;
    case AK_I32: ((int32_t*)buf)[i] = (int32_t)v; break;
    case AK_I64: ((int64_t*)buf)[i] = (int64_t)v; break;
    case AK_U8: ((uint8_t*)buf)[i] = (uint8_t)v; break;
    default: break;
    }
}

/* ==========================================================================
 * >>impl:sources  (embedded kernel sources: the .hip files of kernels/)
 * ========================================================================== */
//>#akgen
/* Generated by `make gen` (tools/akgen.c) from the files in kernels/ -- do not edit;
 * edit kernels/<family>.hip and run `make gen`. One string literal per source line. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#endif

/* kernels/prelude.hip: prepended to every kernel source by the compiler wrapper */
static const char _ak_src_prelude[] =
    "/* amdkit kernel prelude (kernels/prelude.hip): the portable layer every\n"
    " * embedded kernel source is compiled with. The host prepends it and passes\n"
    " * -DAK_WAVE=<32|64> and one of -DAK_AMD=1 / -DAK_NVIDIA=1 (both are guessed\n"
    " * from the compiler when missing). No #include: hipRTC and NVRTC provide the\n"
    " * built-ins used here (threadIdx, __syncthreads, __shfl_*, expf, erff, tanhf,\n"
    " * float4 / uint4, __float_as_uint); plain clang for AMD (gfx940 checks)\n"
    " * needs `-include hip/hip_runtime.h` (what hipRTC adds implicitly).\n"
    " *\n"
    " * Sections: K1 owns everything not marked otherwise; K2 adds pieces marked\n"
    " * \"K2:\" (keep the marks when editing).\n"
    " *\n"
    " * Kernel naming convention (tools/akgen.c relies on it): every kernel is\n"
    " * defined on a line `AK_KERNEL void ak_<name>(` with its literal name, or\n"
    " * listed in a `// kernels: a b c` comment line when a macro generates it. */\n"
    "\n"
    "/* ---- vendor and wave size ------------------------------------------------ */\n"
    "#if !defined(AK_AMD) && !defined(AK_NVIDIA)\n"
    "#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__NVCC__)\n"
    "#define AK_NVIDIA 1\n"
    "#else\n"
    "#define AK_AMD 1\n"
    "#endif\n"
    "#endif\n"
    "#ifndef AK_WAVE\n"
    "#if defined(AK_NVIDIA)\n"
    "#define AK_WAVE 32\n"
    "#elif defined(__AMDGCN_WAVEFRONT_SIZE)\n"
    "#define AK_WAVE __AMDGCN_WAVEFRONT_SIZE\n"
    "#else\n"
    "#define AK_WAVE 64\n"
    "#endif\n"
    "#endif\n"
    "#if AK_WAVE != 32 && AK_WAVE != 64\n"
    "#error \"amdkit prelude: AK_WAVE must be 32 or 64\"\n"
    "#endif\n"
    "/* Most waves a block of up to 1024 threads has (size of the block scratch). */\n"
    "#define AK_MAX_WAVES (1024 / AK_WAVE)\n"
    "\n"
    "#define AK_KERNEL extern \"C\" __global__\n"
    "#define AK_INLINE __device__ __forceinline__\n"
    "#define AK_RESTRICT __restrict__\n"
    "\n"
    "/* ---- integer types ------------------------------------------------------- */\n"
    "typedef long long ak_i64;\n"
    "typedef unsigned long long ak_u64;\n"
    "typedef int ak_i32;\n"
    "typedef unsigned int ak_u32;\n"
    "typedef short ak_i16;\n"
    "typedef unsigned short ak_u16;\n"
    "typedef unsigned char ak_u8;\n"
    "\n"
    "/* ---- float constants ----------------------------------------------------- */\n"
    "#define AK_INF (__uint_as_float(0x7F800000u))\n"
    "#define AK_NAN (__uint_as_float(0x7FC00000u))\n"
    "#define AK_FLT_MAX 3.402823466e+38f\n"
    "\n"
    "/* ---- thread indexing ----------------------------------------------------- */\n"
    "/* Global 1-D thread index and grid-stride step, 64-bit. */\n"
    "AK_INLINE ak_i64 ak_gtid(void) { return (ak_i64)blockIdx.x * (ak_i64)blockDim.x + (ak_i64)threadIdx.x; }\n"
    "AK_INLINE ak_i64 ak_gstride(void) { return (ak_i64)gridDim.x * (ak_i64)blockDim.x; }\n"
    "AK_INLINE int ak_lane(void) { return (int)(threadIdx.x % AK_WAVE); }\n"
    "AK_INLINE int ak_wave_id(void) { return (int)(threadIdx.x / AK_WAVE); }\n"
    "\n"
    "/* ---- bit casts ----------------------------------------------------------- */\n"
    "AK_INLINE float ak_u2f(ak_u32 u) { return __uint_as_float(u); }\n"
    "AK_INLINE ak_u32 ak_f2u(float f) { return __float_as_uint(f); }\n"
    "\n"
    "/* ---- fp16 / bf16 storage (unsigned short) and conversions ----------------- */\n"
    "typedef unsigned short ak_half;   /* IEEE binary16 bits */\n"
    "typedef unsigned short ak_bf16;   /* bfloat16 bits */\n"
    "\n"
    "#if defined(AK_AMD)\n"
    "/* AMD: clang's _Float16; the conversions compile to v_cvt_f32_f16 / v_cvt_f16_f32 (RNE). */\n"
    "AK_INLINE float ak_h2f(ak_half h) {\n"
    "    _Float16 v;\n"
    "    __builtin_memcpy(&v, &h, 2);\n"
    "    return (float)v;\n"
    "}\n"
    "AK_INLINE ak_half ak_f2h(float f) {\n"
    "    _Float16 v = (_Float16)f;\n"
    "    ak_half h;\n"
    "    __builtin_memcpy(&h, &v, 2);\n"
    "    return h;\n"
    "}\n"
    "#else\n"
    "/* NVIDIA: PTX conversions (no cuda_fp16.h). */\n"
    "AK_INLINE float ak_h2f(ak_half h) {\n"
    "    float f;\n"
    "    asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n"
    "    return f;\n"
    "}\n"
    "AK_INLINE ak_half ak_f2h(float f) {\n"
    "    ak_half h;\n"
    "    asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f));\n"
    "    return h;\n"
    "}\n"
    "#endif\n"
    "\n"
    "AK_INLINE float ak_bf2f(ak_bf16 b) { return ak_u2f((ak_u32)b << 16); }\n"
    "#if defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
    "AK_INLINE ak_bf16 ak_f2bf(float f) {\n"
    "    ak_bf16 b;\n"
    "    asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(b) : \"f\"(f));\n"
    "    return b;\n"
    "}\n"
    "#else\n"
    "/* Round to nearest even; NaN stays a (quiet) NaN. Same result as the host's ak_f32_to_bf16. */\n"
    "AK_INLINE ak_bf16 ak_f2bf(float f) {\n"
    "    ak_u32 u = ak_f2u(f);\n"
    "    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (ak_bf16)((u >> 16) | 0x40u);\n"
    "    u += 0x7FFFu + ((u >> 16) & 1u);\n"
    "    return (ak_bf16)(u >> 16);\n"
    "}\n"
    "#endif\n"
    "\n"
    "/* ---- dtype traits: storage type T, to/from fp32, and vector I/O ----------- */\n"
    "/* ld8/st8 move 8 consecutive elements (f32: two 16-byte accesses, halves:\n"
    " * one), ld4/st4 move 4 (f32: 16 bytes, halves: 8 bytes); the pointer must be\n"
    " * aligned to the access (16 bytes is always enough: ak_aligned16).\n"
    " * Coalescing note, measured on H100: when consecutive threads each st8 f32 at\n"
    " * p + 8 * tid, every store instruction writes every other 16 bytes, each\n"
    " * 32-byte sector is written half by two instructions, and a pure f32 store\n"
    " * stream runs at ~50% of copy bandwidth. Let thread t of a warp access\n"
    " * p + 4 * t and p + 4 * (t + blockDim) instead (ak_map8 with SPLIT, below). */\n"
    "AK_INLINE bool ak_aligned16(const void* p) { return (((ak_u64)p) & 15u) == 0; }\n"
    "\n"
    "struct ak_f32_t {\n"
    "    typedef float T;\n"
    "    enum { SIZE = 4 };\n"
    "    static AK_INLINE float to(float v) { return v; }\n"
    "    static AK_INLINE float from(float v) { return v; }\n"
    "    static AK_INLINE void ld8(const float* p, float f[8]) {\n"
    "        float4 a = ((const float4*)p)[0], b = ((const float4*)p)[1];\n"
    "        f[0] = a.x; f[1] = a.y; f[2] = a.z; f[3] = a.w;\n"
    "        f[4] = b.x; f[5] = b.y; f[6] = b.z; f[7] = b.w;\n"
    "    }\n"
    "    static AK_INLINE void st8(float* p, const float f[8]) {\n"
    "        float4 a, b;\n"
    "        a.x = f[0]; a.y = f[1]; a.z = f[2]; a.w = f[3];\n"
    "        b.x = f[4]; b.y = f[5]; b.z = f[6]; b.w = f[7];\n"
    "        ((float4*)p)[0] = a;\n"
    "        ((float4*)p)[1] = b;\n"
    "    }\n"
    "    static AK_INLINE void ld4(const float* p, float f[4]) {\n"
    "        float4 a = *(const float4*)p;\n"
    "        f[0] = a.x; f[1] = a.y; f[2] = a.z; f[3] = a.w;\n"
    "    }\n"
    "    static AK_INLINE void st4(float* p, const float f[4]) {\n"
    "        float4 a;\n"
    "        a.x = f[0]; a.y = f[1]; a.z = f[2]; a.w = f[3];\n"
    "        *(float4*)p = a;\n"
    "    }\n"
    "};\n"
    "\n"
    "/* 16 bytes of halves: eight 16-bit elements in four 32-bit words (low half first). */\n"
    "typedef uint4 ak_u16x8;\n"
    "AK_INLINE ak_u32 ak_u16x8_word(const ak_u16x8& v, int i) {\n"
    "    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;\n"
    "}\n"
    "AK_INLINE ak_u32 ak_pack2(ak_u16 lo, ak_u16 hi) { return (ak_u32)lo | ((ak_u32)hi << 16); }\n"
    "\n"
    "struct ak_f16_t {\n"
    "    typedef ak_half T;\n"
    "    enum { SIZE = 2 };\n"
    "    static AK_INLINE float to(ak_half v) { return ak_h2f(v); }\n"
    "    static AK_INLINE ak_half from(float v) { return ak_f2h(v); }\n"
    "    static AK_INLINE void ld8(const ak_half* p, float f[8]) {\n"
    "        ak_u16x8 v = *(const ak_u16x8*)p;\n"
    "        for (int i = 0; i < 4; i++) {\n"
    "            ak_u32 w = ak_u16x8_word(v, i);\n"
    "            f[2 * i] = ak_h2f((ak_u16)(w & 0xFFFFu));\n"
    "            f[2 * i + 1] = ak_h2f((ak_u16)(w >> 16));\n"
    "        }\n"
    "    }\n"
    "    static AK_INLINE void st8(ak_half* p, const float f[8]) {\n"
    "        ak_u16x8 v;\n"
    "        v.x = ak_pack2(ak_f2h(f[0]), ak_f2h(f[1]));\n"
    "        v.y = ak_pack2(ak_f2h(f[2]), ak_f2h(f[3]));\n"
    "        v.z = ak_pack2(ak_f2h(f[4]), ak_f2h(f[5]));\n"
    "        v.w = ak_pack2(ak_f2h(f[6]), ak_f2h(f[7]));\n"
    "        *(ak_u16x8*)p = v;\n"
    "    }\n"
    "    static AK_INLINE void ld4(const ak_half* p, float f[4]) {\n"
    "        uint2 v = *(const uint2*)p;\n"
    "        f[0] = ak_h2f((ak_u16)(v.x & 0xFFFFu)); f[1] = ak_h2f((ak_u16)(v.x >> 16));\n"
    "        f[2] = ak_h2f((ak_u16)(v.y & 0xFFFFu)); f[3] = ak_h2f((ak_u16)(v.y >> 16));\n"
    "    }\n"
    "    static AK_INLINE void st4(ak_half* p, const float f[4]) {\n"
    "        uint2 v;\n"
    "        v.x = ak_pack2(ak_f2h(f[0]), ak_f2h(f[1]));\n"
    "        v.y = ak_pack2(ak_f2h(f[2]), ak_f2h(f[3]));\n"
    "        *(uint2*)p = v;\n"
    "    }\n"
    "};\n"
    "\n"
    "struct ak_bf16_t {\n"
    "    typedef ak_bf16 T;\n"
    "    enum { SIZE = 2 };\n"
    "    static AK_INLINE float to(ak_bf16 v) { return ak_bf2f(v); }\n"
    "    static AK_INLINE ak_bf16 from(float v) { return ak_f2bf(v); }\n"
    "    static AK_INLINE void ld8(const ak_bf16* p, float f[8]) {\n"
    "        ak_u16x8 v = *(const ak_u16x8*)p;\n"
    "        for (int i = 0; i < 4; i++) {\n"
    "            ak_u32 w = ak_u16x8_word(v, i);\n"
    "            f[2 * i] = ak_u2f(w << 16);\n"
    "            f[2 * i + 1] = ak_u2f(w & 0xFFFF0000u);\n"
    "        }\n"
    "    }\n"
    "    static AK_INLINE void st8(ak_bf16* p, const float f[8]) {\n"
    "        ak_u16x8 v;\n"
    "        v.x = ak_pack2(ak_f2bf(f[0]), ak_f2bf(f[1]));\n"
    "        v.y = ak_pack2(ak_f2bf(f[2]), ak_f2bf(f[3]));\n"
    "        v.z = ak_pack2(ak_f2bf(f[4]), ak_f2bf(f[5]));\n"
    "        v.w = ak_pack2(ak_f2bf(f[6]), ak_f2bf(f[7]));\n"
    "        *(ak_u16x8*)p = v;\n"
    "    }\n"
    "    static AK_INLINE void ld4(const ak_bf16* p, float f[4]) {\n"
    "        uint2 v = *(const uint2*)p;\n"
    "        f[0] = ak_u2f(v.x << 16); f[1] = ak_u2f(v.x & 0xFFFF0000u);\n"
    "        f[2] = ak_u2f(v.y << 16); f[3] = ak_u2f(v.y & 0xFFFF0000u);\n"
    "    }\n"
    "    static AK_INLINE void st4(ak_bf16* p, const float f[4]) {\n"
    "        uint2 v;\n"
    "        v.x = ak_pack2(ak_f2bf(f[0]), ak_f2bf(f[1]));\n"
    "        v.y = ak_pack2(ak_f2bf(f[2]), ak_f2bf(f[3]));\n"
    "        *(uint2*)p = v;\n"
    "    }\n"
    "};\n"
    "\n"
    "/* Grid-stride map over n elements in tiles of 8 * blockDim.x elements.\n"
    " * For each full tile, `chunk(i0, i1)` handles the 4 elements at i0 and the 4\n"
    " * at i1 (only when vec is true: every pointer 16-byte aligned). SPLIT (use it\n"
    " * when an f32 array takes part): i0 = tile + 4t, i1 = tile + 4 (blockDim + t),\n"
    " * so each 16-byte f32 access instruction of a warp is contiguous; otherwise\n"
    " * i0 = tile + 8t and i1 = i0 + 4 (one 16-byte access for halves). Then\n"
    " * `one(i)` handles the remaining elements (all of them when vec is false). */\n"
    "template <bool SPLIT, class C, class O>\n"
    "AK_INLINE void ak_map8(ak_i64 n, bool vec, C chunk, O one) {\n"
    "    ak_i64 done = 0;\n"
    "    if (vec) {\n"
    "        const ak_i64 B = (ak_i64)blockDim.x, t = (ak_i64)threadIdx.x;\n"
    "        const ak_i64 ntiles = n / (8 * B);\n"
    "        /* indices written as (vector index) x (vector length): nvcc then keeps\n"
    "         * the 16-byte stores whole (with tile + 8t it split them into 4-byte ones) */\n"
    "        for (ak_i64 T = blockIdx.x; T < ntiles; T += gridDim.x) {\n"
    "            if (SPLIT) chunk(4 * (2 * T * B + t), 4 * (2 * T * B + B + t));\n"
    "            else chunk(8 * (T * B + t), 8 * (T * B + t) + 4);\n"
    "        }\n"
    "        done = ntiles * 8 * B;\n"
    "    }\n"
    "    for (ak_i64 i = done + ak_gtid(); i < n; i += ak_gstride()) one(i);\n"
    "}\n"
    "/* The 8 elements of a chunk(i0, i1) of ak_map8<SPLIT>, as fp32. */\n"
    "template <class D, bool SPLIT>\n"
    "AK_INLINE void ak_ld8(const typename D::T* p, ak_i64 i0, ak_i64 i1, float f[8]) {\n"
    "    if (SPLIT) { D::ld4(p + i0, f); D::ld4(p + i1, f + 4); }\n"
    "    else D::ld8(p + i0, f);\n"
    "}\n"
    "template <class D, bool SPLIT>\n"
    "AK_INLINE void ak_st8(typename D::T* p, ak_i64 i0, ak_i64 i1, const float f[8]) {\n"
    "    if (SPLIT) { D::st4(p + i0, f); D::st4(p + i1, f + 4); }\n"
    "    else D::st8(p + i0, f);\n"
    "}\n"
    "\n"
    "/* ---- math ---------------------------------------------------------------- */\n"
    "/* expf / erff / tanhf / logf / sqrtf / rsqrtf exist on both compilers without\n"
    " * headers. The fast forms trade a few ulp for speed (aggressive builds). */\n"
    "AK_INLINE float ak_fast_exp(float x) { return __expf(x); }\n"
    "AK_INLINE float ak_fast_tanh(float x) {\n"
    "    /* 1 - 2 / (exp(2x) + 1): saturates correctly at +-inf */\n"
    "    return 1.0f - 2.0f / (__expf(2.0f * x) + 1.0f);\n"
    "}\n"
    "AK_INLINE float ak_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }\n"
    "\n"
    "/* ---- wave (warp) primitives ------------------------------------------------ */\n"
    "/* All lanes of the wave must take part (blocks are a multiple of AK_WAVE). */\n"
    "#if defined(AK_AMD)\n"
    "AK_INLINE float ak_shfl_xor(float v, int mask) { return __shfl_xor(v, mask, AK_WAVE); }\n"
    "AK_INLINE float ak_shfl_down(float v, int delta) { return __shfl_down(v, (unsigned)delta, AK_WAVE); }\n"
    "AK_INLINE float ak_shfl(float v, int src) { return __shfl(v, src, AK_WAVE); }\n"
    "AK_INLINE int ak_shfl_xor_i(int v, int mask) { return __shfl_xor(v, mask, AK_WAVE); }\n"
    "AK_INLINE ak_u64 ak_ballot(int pred) { return (ak_u64)__ballot(pred); }\n"
    "#else\n"
    "AK_INLINE float ak_shfl_xor(float v, int mask) { return __shfl_xor_sync(0xFFFFFFFFu, v, mask); }\n"
    "AK_INLINE float ak_shfl_down(float v, int delta) { return __shfl_down_sync(0xFFFFFFFFu, v, (unsigned)delta); }\n"
    "AK_INLINE float ak_shfl(float v, int src) { return __shfl_sync(0xFFFFFFFFu, v, src); }\n"
    "AK_INLINE int ak_shfl_xor_i(int v, int mask) { return __shfl_xor_sync(0xFFFFFFFFu, v, mask); }\n"
    "AK_INLINE ak_u64 ak_ballot(int pred) { return (ak_u64)__ballot_sync(0xFFFFFFFFu, pred); }\n"
    "#endif\n"
    "\n"
    "/* Butterfly reductions: every lane gets the result. */\n"
    "AK_INLINE float ak_warp_sum(float v) {\n"
    "    for (int o = AK_WAVE / 2; o > 0; o >>= 1) v += ak_shfl_xor(v, o);\n"
    "    return v;\n"
    "}\n"
    "AK_INLINE float ak_warp_max(float v) {\n"
    "    for (int o = AK_WAVE / 2; o > 0; o >>= 1) v = fmaxf(v, ak_shfl_xor(v, o));\n"
    "    return v;\n"
    "}\n"
    "AK_INLINE float ak_warp_min(float v) {\n"
    "    for (int o = AK_WAVE / 2; o > 0; o >>= 1) v = fminf(v, ak_shfl_xor(v, o));\n"
    "    return v;\n"
    "}\n"
    "\n"
    "/* Block reductions over a 1-D block whose size is a multiple of AK_WAVE (at\n"
    " * most 1024). `scratch` is a __shared__ float[AK_MAX_WAVES] of the caller;\n"
    " * every thread gets the result; safe to call repeatedly with the same\n"
    " * scratch (the leading barrier protects the previous call's readers). */\n"
    "AK_INLINE float ak_block_sum(float v, float* scratch) {\n"
    "    const int nw = (int)((blockDim.x + AK_WAVE - 1) / AK_WAVE);\n"
    "    v = ak_warp_sum(v);\n"
    "    __syncthreads();\n"
    "    if (ak_lane() == 0) scratch[ak_wave_id()] = v;\n"
    "    __syncthreads();\n"
    "    v = 0.0f;\n"
    "    for (int w = 0; w < nw; w++) v += scratch[w];\n"
    "    return v;\n"
    "}\n"
    "AK_INLINE float ak_block_max(float v, float* scratch) {\n"
    "    const int nw = (int)((blockDim.x + AK_WAVE - 1) / AK_WAVE);\n"
    "    v = ak_warp_max(v);\n"
    "    __syncthreads();\n"
    "    if (ak_lane() == 0) scratch[ak_wave_id()] = v;\n"
    "    __syncthreads();\n"
    "    v = -AK_INF;\n"
    "    for (int w = 0; w < nw; w++) v = fmaxf(v, scratch[w]);\n"
    "    return v;\n"
    "}\n"
    "AK_INLINE float ak_block_min(float v, float* scratch) {\n"
    "    const int nw = (int)((blockDim.x + AK_WAVE - 1) / AK_WAVE);\n"
    "    v = ak_warp_min(v);\n"
    "    __syncthreads();\n"
    "    if (ak_lane() == 0) scratch[ak_wave_id()] = v;\n"
    "    __syncthreads();\n"
    "    v = AK_INF;\n"
    "    for (int w = 0; w < nw; w++) v = fminf(v, scratch[w]);\n"
    "    return v;\n"
    "}\n"
    "\n"
    "/* ---- K2: additions by the reductions / norms helper go below ---------------- */\n"
    "/* K2: NaN test on the bits (still right under finite-math compiler flags). */\n"
    "AK_INLINE bool ak_isnan(float v) { return (ak_f2u(v) & 0x7FFFFFFFu) > 0x7F800000u; }\n"
    "/* K2: sum, and max / min that propagate NaN (torch semantics), as functors. */\n"
    "struct ak_op_add { AK_INLINE float operator()(float a, float b) const { return a + b; } };\n"
    "struct ak_op_max { AK_INLINE float operator()(float a, float b) const { return (a > b || ak_isnan(a)) ? a : b; } };\n"
    "struct ak_op_min { AK_INLINE float operator()(float a, float b) const { return (a < b || ak_isnan(a)) ? a : b; } };\n"
    "#define AK_LOG2E 1.4426950408889634f\n"
    "#define AK_LN2 0.6931471805599453f\n"
    "/* K2: 2^x through the hardware unit (relative error about 2^-22; results\n"
    " * below 2^-126 flush to 0; 2^-inf = 0). exp2f adds denormal fix-ups. */\n"
    "#if defined(AK_NVIDIA)\n"
    "AK_INLINE float ak_exp2(float x) {\n"
    "    float y;\n"
    "    asm(\"ex2.approx.ftz.f32 %0, %1;\" : \"=f\"(y) : \"f\"(x));\n"
    "    return y;\n"
    "}\n"
    "#elif defined(__has_builtin)\n"
    "#if __has_builtin(__builtin_amdgcn_exp2f)\n"
    "AK_INLINE float ak_exp2(float x) { return __builtin_amdgcn_exp2f(x); }\n"
    "#else\n"
    "AK_INLINE float ak_exp2(float x) { return exp2f(x); }\n"
    "#endif\n"
    "#else\n"
    "AK_INLINE float ak_exp2(float x) { return exp2f(x); }\n"
    "#endif\n"
    "\n"
    "/* K2: reduce v over aligned groups of G consecutive threads (G a power of two,\n"
    " * 1 <= G <= blockDim.x, blockDim.x a multiple of G and of AK_WAVE). Every\n"
    " * thread of the block must call it (it uses __syncthreads when G > AK_WAVE);\n"
    " * each gets its group's result. scratch: __shared__ float[AK_MAX_WAVES]. The\n"
    " * combination order is fixed, so the result is deterministic. */\n"
    "template <class Op>\n"
    "AK_INLINE float ak_group_reduce(float v, int G, float* scratch, Op op) {\n"
    "    const int w = G < AK_WAVE ? G : AK_WAVE;\n"
    "    for (int o = w >> 1; o > 0; o >>= 1) v = op(v, ak_shfl_xor(v, o));\n"
    "    if (G > AK_WAVE) {\n"
    "        const int wpg = G / AK_WAVE, first = ((int)threadIdx.x / G) * wpg;\n"
    "        __syncthreads();\n"
    "        if (ak_lane() == 0) scratch[ak_wave_id()] = v;\n"
    "        __syncthreads();\n"
    "        v = scratch[first];\n"
    "        for (int i = 1; i < wpg; i++) v = op(v, scratch[first + i]);\n"
    "    }\n"
    "    return v;\n"
    "}\n"
    "\n"
    "/* K2: a row (or a slice of one) of len elements held in registers, MAXE per\n"
    " * thread, by a group of G threads; lane = index in the group. vec: 8-element\n"
    " * 16-byte accesses (p 16-byte aligned and len % 8 == 0), element\n"
    " * (k * G + lane) * 8 + q goes to v[k * 8 + q]; else element k * G + lane goes\n"
    " * to v[k]. Slots past len get `pad`; ak_row_store skips them. */\n"
    "template <class D, int MAXE>\n"
    "AK_INLINE void ak_row_load(float* v, const typename D::T* p, int len, int lane, int G, bool vec, float pad) {\n"
    "    if (vec) {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < MAXE / 8; k++) {\n"
    "            const int e = (k * G + lane) * 8;\n"
    "            if (e < len) D::ld8(p + e, v + k * 8);\n"
    "            else {\n"
    "#pragma unroll\n"
    "                for (int q = 0; q < 8; q++) v[k * 8 + q] = pad;\n"
    "            }\n"
    "        }\n"
    "    } else {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < MAXE; k++) {\n"
    "            const int e = k * G + lane;\n"
    "            v[k] = e < len ? D::to(p[e]) : pad;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "template <class D, int MAXE>\n"
    "AK_INLINE void ak_row_store(const float* v, typename D::T* p, int len, int lane, int G, bool vec) {\n"
    "    if (vec) {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < MAXE / 8; k++) {\n"
    "            const int e = (k * G + lane) * 8;\n"
    "            if (e < len) D::st8(p + e, v + k * 8);\n"
    "        }\n"
    "    } else {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < MAXE; k++) {\n"
    "            const int e = k * G + lane;\n"
    "            if (e < len) p[e] = D::from(v[k]);\n"
    "        }\n"
    "    }\n"
    "}\n"
    ;

/* kernels/activation.hip */
static const char _ak_src_activation[] =
    "/* kernels/activation.hip: unary activations y = f(x) for f32, f16 and bf16\n"
    " * storage, fp32 math: relu, leaky_relu (slope = param), sigmoid, tanh, silu,\n"
    " * gelu (erf form) and gelu (tanh form). One kernel per dtype; the op code\n"
    " * (ak_unary_op of amdkit.h) picks the loop once, outside it. NaN inputs give\n"
    " * NaN outputs (relu and leaky_relu too). In-place (y == x) is fine.\n"
    " * Host wrapper: ak_unary in parts/ops_elementwise.inc. */\n"
    "\n"
    "#define AK_UNARY_RELU 0\n"
    "#define AK_UNARY_LEAKY_RELU 1\n"
    "#define AK_UNARY_SIGMOID 2\n"
    "#define AK_UNARY_TANH 3\n"
    "#define AK_UNARY_SILU 4\n"
    "#define AK_UNARY_GELU 5\n"
    "#define AK_UNARY_GELU_TANH 6\n"
    "\n"
    "struct ak_uop_relu { static AK_INLINE float f(float x, float) { return x < 0.0f ? 0.0f : x; } };\n"
    "struct ak_uop_leaky { static AK_INLINE float f(float x, float s) { return x < 0.0f ? x * s : x; } };\n"
    "struct ak_uop_sigmoid { static AK_INLINE float f(float x, float) { return 1.0f / (1.0f + expf(-x)); } };\n"
    "struct ak_uop_tanh { static AK_INLINE float f(float x, float) { return tanhf(x); } };\n"
    "struct ak_uop_silu { static AK_INLINE float f(float x, float) { return x / (1.0f + expf(-x)); } };\n"
    "/* erf for gelu: Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7), one fast exp\n"
    " * and one fast reciprocal; erff cost 5% of bandwidth on H100 for f16/bf16 */\n"
    "AK_INLINE float ak_erf_as(float x) {\n"
    "    const float a = fabsf(x);\n"
    "    const float t = __fdividef(1.0f, 1.0f + 0.3275911f * a);\n"
    "    const float p = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t + 0.254829592f) * t;\n"
    "    const float r = 1.0f - p * __expf(-a * a);\n"
    "    return x < 0.0f ? -r : r;\n"
    "}\n"
    "struct ak_uop_gelu {\n"
    "    /* 0.5 x (1 + erf(x / sqrt(2))) */\n"
    "    static AK_INLINE float f(float x, float) { return 0.5f * x * (1.0f + ak_erf_as(x * 0.70710678118654752f)); }\n"
    "};\n"
    "struct ak_uop_gelu_tanh {\n"
    "    /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */\n"
    "    static AK_INLINE float f(float x, float) {\n"
    "        const float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);\n"
    "        return 0.5f * x * (1.0f + tanhf(u));\n"
    "    }\n"
    "};\n"
    "\n"
    "template <class D, class OP>\n"
    "AK_INLINE void ak_unary_body(const typename D::T* x, typename D::T* y, ak_i64 n, float p) {\n"
    "    ak_map8<D::SIZE == 4>(n, ak_aligned16(x) && ak_aligned16(y),\n"
    "        [&](ak_i64 i0, ak_i64 i1) {\n"
    "            float a[8];\n"
    "            ak_ld8<D, D::SIZE == 4>(x, i0, i1, a);\n"
    "            for (int k = 0; k < 8; k++) a[k] = OP::f(a[k], p);\n"
    "            ak_st8<D, D::SIZE == 4>(y, i0, i1, a);\n"
    "        },\n"
    "        [&](ak_i64 i) { y[i] = D::from(OP::f(D::to(x[i]), p)); });\n"
    "}\n"
    "template <class D>\n"
    "AK_INLINE void ak_unary_impl(const typename D::T* x, typename D::T* y, ak_i64 n, int op, float p) {\n"
    "    switch (op) {\n"
    "    case AK_UNARY_RELU: ak_unary_body<D, ak_uop_relu>(x, y, n, p); break;\n"
    "    case AK_UNARY_LEAKY_RELU: ak_unary_body<D, ak_uop_leaky>(x, y, n, p); break;\n"
    "    case AK_UNARY_SIGMOID: ak_unary_body<D, ak_uop_sigmoid>(x, y, n, p); break;\n"
    "    case AK_UNARY_TANH: ak_unary_body<D, ak_uop_tanh>(x, y, n, p); break;\n"
    "    case AK_UNARY_SILU: ak_unary_body<D, ak_uop_silu>(x, y, n, p); break;\n"
    "    case AK_UNARY_GELU: ak_unary_body<D, ak_uop_gelu>(x, y, n, p); break;\n"
    "    default: ak_unary_body<D, ak_uop_gelu_tanh>(x, y, n, p); break;\n"
    "    }\n"
    "}\n"
    "AK_KERNEL void ak_unary_f32(const float* x, float* y, ak_i64 n, int op, float param) {\n"
    "    ak_unary_impl<ak_f32_t>(x, y, n, op, param);\n"
    "}\n"
    "AK_KERNEL void ak_unary_f16(const ak_half* x, ak_half* y, ak_i64 n, int op, float param) {\n"
    "    ak_unary_impl<ak_f16_t>(x, y, n, op, param);\n"
    "}\n"
    "AK_KERNEL void ak_unary_bf16(const ak_bf16* x, ak_bf16* y, ak_i64 n, int op, float param) {\n"
    "    ak_unary_impl<ak_bf16_t>(x, y, n, op, param);\n"
    "}\n"
    ;

/* kernels/cast.hip */
static const char _ak_src_cast[] =
    "/* kernels/cast.hip: dtype conversion between f32, f16 and bf16 (all six\n"
    " * directions, round to nearest even) and the bit-exact copy of each dtype.\n"
    " * 1-D grid-stride over tiles (ak_map8) with coalesced vector accesses when\n"
    " * both pointers are 16-byte aligned, scalar otherwise. The buffers must not\n"
    " * overlap. Host wrappers: ak_cast / ak_copy in parts/ops_elementwise.inc. */\n"
    "\n"
    "template <class S, class D>\n"
    "AK_INLINE void ak_cast_impl(const typename S::T* x, typename D::T* y, ak_i64 n) {\n"
    "    const bool split = S::SIZE == 4 || D::SIZE == 4;  /* an f32 side: coalesce its 16-byte accesses */\n"
    "    ak_map8<split>(n, ak_aligned16(x) && ak_aligned16(y),\n"
    "        [&](ak_i64 i0, ak_i64 i1) {\n"
    "            float f[8];\n"
    "            ak_ld8<S, split>(x, i0, i1, f);\n"
    "            ak_st8<D, split>(y, i0, i1, f);\n"
    "        },\n"
    "        [&](ak_i64 i) { y[i] = D::from(S::to(x[i])); });\n"
    "}\n"
    "AK_KERNEL void ak_cast_f32_f16(const float* x, ak_half* y, ak_i64 n) { ak_cast_impl<ak_f32_t, ak_f16_t>(x, y, n); }\n"
    "AK_KERNEL void ak_cast_f32_bf16(const float* x, ak_bf16* y, ak_i64 n) { ak_cast_impl<ak_f32_t, ak_bf16_t>(x, y, n); }\n"
    "AK_KERNEL void ak_cast_f16_f32(const ak_half* x, float* y, ak_i64 n) { ak_cast_impl<ak_f16_t, ak_f32_t>(x, y, n); }\n"
    "AK_KERNEL void ak_cast_f16_bf16(const ak_half* x, ak_bf16* y, ak_i64 n) { ak_cast_impl<ak_f16_t, ak_bf16_t>(x, y, n); }\n"
    "AK_KERNEL void ak_cast_bf16_f32(const ak_bf16* x, float* y, ak_i64 n) { ak_cast_impl<ak_bf16_t, ak_f32_t>(x, y, n); }\n"
    "AK_KERNEL void ak_cast_bf16_f16(const ak_bf16* x, ak_half* y, ak_i64 n) { ak_cast_impl<ak_bf16_t, ak_f16_t>(x, y, n); }\n"
    "\n"
    "/* Bit-exact copy (no conversion, NaN payloads kept): 16-byte units, two per\n"
    " * step, then the elements of the tail. */\n"
    "template <class T>\n"
    "AK_INLINE void ak_copy_impl(const T* x, T* y, ak_i64 n) {\n"
    "    const int per = 16 / (int)sizeof(T);\n"
    "    const ak_i64 tid = ak_gtid(), stride = ak_gstride();\n"
    "    ak_i64 done = 0;\n"
    "    if (ak_aligned16(x) && ak_aligned16(y)) {\n"
    "        const ak_i64 nv = n / per;\n"
    "        const uint4* xv = (const uint4*)x;\n"
    "        uint4* yv = (uint4*)y;\n"
    "        ak_i64 c = tid;\n"
    "        for (; c + stride < nv; c += 2 * stride) {\n"
    "            const uint4 a = xv[c], b = xv[c + stride];\n"
    "            yv[c] = a;\n"
    "            yv[c + stride] = b;\n"
    "        }\n"
    "        if (c < nv) yv[c] = xv[c];\n"
    "        done = nv * per;\n"
    "    }\n"
    "    for (ak_i64 i = done + tid; i < n; i += stride) y[i] = x[i];\n"
    "}\n"
    "AK_KERNEL void ak_copy_f32(const float* x, float* y, ak_i64 n) { ak_copy_impl<float>(x, y, n); }\n"
    "AK_KERNEL void ak_copy_f16(const ak_half* x, ak_half* y, ak_i64 n) { ak_copy_impl<ak_half>(x, y, n); }\n"
    "AK_KERNEL void ak_copy_bf16(const ak_bf16* x, ak_bf16* y, ak_i64 n) { ak_copy_impl<ak_bf16>(x, y, n); }\n"
    ;

/* kernels/elementwise.hip */
static const char _ak_src_elementwise[] =
    "/* kernels/elementwise.hip: fill, axpy, scale and the binary ops (add, sub,\n"
    " * mul, div) for f32, f16 and bf16 storage, fp32 math.\n"
    " *\n"
    " * All kernels: 1-D grid-stride over tiles of 8 x blockDim elements with\n"
    " * 16-byte (f32) / 8- or 16-byte (halves) coalesced accesses when every pointer\n"
    " * is 16-byte aligned (ak_map8; scalar loop otherwise and for the tail).\n"
    " * In-place use (an output equal to an input) is fine: each element is read\n"
    " * and written by one thread. Host wrappers:\n"
    " * parts/ops_elementwise.inc (ak_fill, ak_axpy, ak_scale, ak_binary). */\n"
    "\n"
    "/* y[i] = value (rounded once to the storage type) */\n"
    "template <class D>\n"
    "AK_INLINE void ak_fill_impl(typename D::T* y, ak_i64 n, float value) {\n"
    "    typedef typename D::T T;\n"
    "    const T v = D::from(value);\n"
    "    const float fv = D::to(v);\n"
    "    ak_map8<D::SIZE == 4>(n, ak_aligned16(y),\n"
    "        [&](ak_i64 i0, ak_i64 i1) {\n"
    "            float f[8];\n"
    "            for (int k = 0; k < 8; k++) f[k] = fv;\n"
    "            ak_st8<D, D::SIZE == 4>(y, i0, i1, f);\n"
    "        },\n"
    "        [&](ak_i64 i) { y[i] = v; });\n"
    "}\n"
    "AK_KERNEL void ak_fill_f32(float* y, ak_i64 n, float value) { ak_fill_impl<ak_f32_t>(y, n, value); }\n"
    "AK_KERNEL void ak_fill_f16(ak_half* y, ak_i64 n, float value) { ak_fill_impl<ak_f16_t>(y, n, value); }\n"
    "AK_KERNEL void ak_fill_bf16(ak_bf16* y, ak_i64 n, float value) { ak_fill_impl<ak_bf16_t>(y, n, value); }\n"
    "\n"
    "/* y[i] = alpha * x[i] + y[i] */\n"
    "template <class D>\n"
    "AK_INLINE void ak_axpy_impl(ak_i64 n, float alpha, const typename D::T* x, typename D::T* y) {\n"
    "    ak_map8<D::SIZE == 4>(n, ak_aligned16(x) && ak_aligned16(y),\n"
    "        [&](ak_i64 i0, ak_i64 i1) {\n"
    "            float a[8], b[8];\n"
    "            ak_ld8<D, D::SIZE == 4>(x, i0, i1, a);\n"
    "            ak_ld8<D, D::SIZE == 4>(y, i0, i1, b);\n"
    "            for (int k = 0; k < 8; k++) b[k] = alpha * a[k] + b[k];\n"
    "            ak_st8<D, D::SIZE == 4>(y, i0, i1, b);\n"
    "        },\n"
    "        [&](ak_i64 i) { y[i] = D::from(alpha * D::to(x[i]) + D::to(y[i])); });\n"
    "}\n"
    "AK_KERNEL void ak_axpy_f32(ak_i64 n, float alpha, const float* x, float* y) { ak_axpy_impl<ak_f32_t>(n, alpha, x, y); }\n"
    "AK_KERNEL void ak_axpy_f16(ak_i64 n, float alpha, const ak_half* x, ak_half* y) { ak_axpy_impl<ak_f16_t>(n, alpha, x, y); }\n"
    "AK_KERNEL void ak_axpy_bf16(ak_i64 n, float alpha, const ak_bf16* x, ak_bf16* y) { ak_axpy_impl<ak_bf16_t>(n, alpha, x, y); }\n"
    "\n"
    "/* y[i] = alpha * x[i] */\n"
    "template <class D>\n"
    "AK_INLINE void ak_scale_impl(ak_i64 n, float alpha, const typename D::T* x, typename D::T* y) {\n"
    "    ak_map8<D::SIZE == 4>(n, ak_aligned16(x) && ak_aligned16(y),\n"
    "        [&](ak_i64 i0, ak_i64 i1) {\n"
    "            float a[8];\n"
    "            ak_ld8<D, D::SIZE == 4>(x, i0, i1, a);\n"
    "            for (int k = 0; k < 8; k++) a[k] = alpha * a[k];\n"
    "            ak_st8<D, D::SIZE == 4>(y, i0, i1, a);\n"
    "        },\n"
    "        [&](ak_i64 i) { y[i] = D::from(alpha * D::to(x[i])); });\n"
    "}\n"
    "AK_KERNEL void ak_scale_f32(ak_i64 n, float alpha, const float* x, float* y) { ak_scale_impl<ak_f32_t>(n, alpha, x, y); }\n"
    "AK_KERNEL void ak_scale_f16(ak_i64 n, float alpha, const ak_half* x, ak_half* y) { ak_scale_impl<ak_f16_t>(n, alpha, x, y); }\n"
    "AK_KERNEL void ak_scale_bf16(ak_i64 n, float alpha, const ak_bf16* x, ak_bf16* y) { ak_scale_impl<ak_bf16_t>(n, alpha, x, y); }\n"
    "\n"
    "/* z[i] = x[i] op y[i]; op codes are ak_binary_op of amdkit.h */\n"
    "#define AK_BINARY_ADD 0\n"
    "#define AK_BINARY_SUB 1\n"
    "#define AK_BINARY_MUL 2\n"
    "#define AK_BINARY_DIV 3\n"
    "struct ak_bop_add { static AK_INLINE float f(float a, float b) { return a + b; } };\n"
    "struct ak_bop_sub { static AK_INLINE float f(float a, float b) { return a - b; } };\n"
    "struct ak_bop_mul { static AK_INLINE float f(float a, float b) { return a * b; } };\n"
    "struct ak_bop_div { static AK_INLINE float f(float a, float b) { return a / b; } };\n"
    "\n"
    "template <class D, class OP>\n"
    "AK_INLINE void ak_binary_body(const typename D::T* x, const typename D::T* y, typename D::T* z, ak_i64 n) {\n"
    "    ak_map8<D::SIZE == 4>(n, ak_aligned16(x) && ak_aligned16(y) && ak_aligned16(z),\n"
    "        [&](ak_i64 i0, ak_i64 i1) {\n"
    "            float a[8], b[8];\n"
    "            ak_ld8<D, D::SIZE == 4>(x, i0, i1, a);\n"
    "            ak_ld8<D, D::SIZE == 4>(y, i0, i1, b);\n"
    "            for (int k = 0; k < 8; k++) a[k] = OP::f(a[k], b[k]);\n"
    "            ak_st8<D, D::SIZE == 4>(z, i0, i1, a);\n"
    "        },\n"
    "        [&](ak_i64 i) { z[i] = D::from(OP::f(D::to(x[i]), D::to(y[i]))); });\n"
    "}\n"
    "template <class D>\n"
    "AK_INLINE void ak_binary_impl(const typename D::T* x, const typename D::T* y, typename D::T* z, ak_i64 n, int op) {\n"
    "    switch (op) {\n"
    "    case AK_BINARY_ADD: ak_binary_body<D, ak_bop_add>(x, y, z, n); break;\n"
    "    case AK_BINARY_SUB: ak_binary_body<D, ak_bop_sub>(x, y, z, n); break;\n"
    "    case AK_BINARY_MUL: ak_binary_body<D, ak_bop_mul>(x, y, z, n); break;\n"
    "    default: ak_binary_body<D, ak_bop_div>(x, y, z, n); break;\n"
    "    }\n"
    "}\n"
    "AK_KERNEL void ak_binary_f32(const float* x, const float* y, float* z, ak_i64 n, int op) {\n"
    "    ak_binary_impl<ak_f32_t>(x, y, z, n, op);\n"
    "}\n"
    "AK_KERNEL void ak_binary_f16(const ak_half* x, const ak_half* y, ak_half* z, ak_i64 n, int op) {\n"
    "    ak_binary_impl<ak_f16_t>(x, y, z, n, op);\n"
    "}\n"
    "AK_KERNEL void ak_binary_bf16(const ak_bf16* x, const ak_bf16* y, ak_bf16* z, ak_i64 n, int op) {\n"
    "    ak_binary_impl<ak_bf16_t>(x, y, z, n, op);\n"
    "}\n"
    ;

/* kernels/norm.hip */
static const char _ak_src_norm[] =
    "// kernels/norm.hip - layernorm and rmsnorm along the last dimension of a\n"
    "// rows x cols tensor, fp32 statistics:\n"
    "//   layernorm: y = (x - mean) / sqrt(var + eps) * w + b   (biased variance)\n"
    "//   rmsnorm:   y = x / sqrt(mean(x^2) + eps) * w\n"
    "// w and b (same dtype as x, cols elements) may be NULL (1 and 0). `rms` picks\n"
    "// rmsnorm. vec != 0: 16-byte accesses (x, y, w, b 16-byte aligned, cols % 8 == 0).\n"
    "//\n"
    "// ak_norm_<dt>: the row lives in registers (E = 16 per thread for f32, 32 for\n"
    "// f16 / bf16) of a group of G threads (G a power of two, G * E >= cols,\n"
    "// G * E <= 16384): one read, one write; the\n"
    "// variance is the mean of (x - mean)^2 over the registers (two passes, no\n"
    "// cancellation).\n"
    "// ak_norm_wide_<dt>: any width, one block per row: a pass for sum(x - K) and\n"
    "// sum((x - K)^2) with K = the row's first element (shifted data keep the\n"
    "// one-pass variance accurate), then a pass that writes.\n"
    "//\n"
    "// kernels: ak_norm_f32 ak_norm_f16 ak_norm_bf16 ak_norm_wide_f32 ak_norm_wide_f16 ak_norm_wide_bf16\n"
    "\n"
    "// elements per thread of ak_norm: 16 (f32), 32 (f16 / bf16: the same 64 bytes)\n"
    "#define AK_NORM_E(D) (D::SIZE == 4 ? 16 : 32)\n"
    "\n"
    "// y[e..e+n) from the normalized values a: a * w + b\n"
    "template <class D, int N>\n"
    "AK_INLINE void ak_norm_affine(float* a, const typename D::T* w, const typename D::T* b, ak_i64 e, bool vec) {\n"
    "    if (vec && N == 8) {\n"
    "        float t[8];\n"
    "        if (w) {\n"
    "            D::ld8(w + e, t);\n"
    "#pragma unroll\n"
    "            for (int q = 0; q < 8; q++) a[q] *= t[q];\n"
    "        }\n"
    "        if (b) {\n"
    "            D::ld8(b + e, t);\n"
    "#pragma unroll\n"
    "            for (int q = 0; q < 8; q++) a[q] += t[q];\n"
    "        }\n"
    "    } else {\n"
    "#pragma unroll\n"
    "        for (int q = 0; q < N; q++) {\n"
    "            if (w) a[q] *= D::to(w[e + q]);\n"
    "            if (b) a[q] += D::to(b[e + q]);\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "template <class D, int E>\n"
    "AK_INLINE void ak_norm_rows(const typename D::T* AK_RESTRICT x, const typename D::T* AK_RESTRICT w,\n"
    "                            const typename D::T* AK_RESTRICT b, typename D::T* AK_RESTRICT y, ak_i64 rows, int cols,\n"
    "                            int G, bool vec, float eps, bool rms) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const int lane = (int)threadIdx.x & (G - 1);\n"
    "    ak_i64 row = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);\n"
    "    const int len = row < rows ? cols : 0;\n"
    "    if (row >= rows) row = 0;\n"
    "    float v[E];\n"
    "    ak_row_load<D, E>(v, x + row * cols, len, lane, G, vec, 0.0f);\n"
    "    const float inv_n = 1.0f / (float)cols;\n"
    "    float mean = 0.0f, s = 0.0f;\n"
    "    if (!rms) {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < E; k++) s += v[k];\n"
    "        mean = ak_group_reduce(s, G, scratch, ak_op_add()) * inv_n;\n"
    "        s = 0.0f;\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < E; k++) {\n"
    "            const int e = vec ? ((k >> 3) * G + lane) * 8 : k * G + lane;\n"
    "            const float d = v[k] - mean;\n"
    "            if (e < len) s += d * d;\n"
    "        }\n"
    "    } else {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < E; k++) s += v[k] * v[k];\n"
    "    }\n"
    "    const float r = rsqrtf(ak_group_reduce(s, G, scratch, ak_op_add()) * inv_n + eps);\n"
    "    typename D::T* yr = y + row * cols;\n"
    "    if (vec) {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < E / 8; k++) {\n"
    "            const int e = (k * G + lane) * 8;\n"
    "            if (e < len) {\n"
    "                float* a = v + k * 8;\n"
    "#pragma unroll\n"
    "                for (int q = 0; q < 8; q++) a[q] = (a[q] - mean) * r;\n"
    "                ak_norm_affine<D, 8>(a, w, b, e, true);\n"
    "                D::st8(yr + e, a);\n"
    "            }\n"
    "        }\n"
    "    } else {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < E; k++) {\n"
    "            const int e = k * G + lane;\n"
    "            if (e < len) {\n"
    "                float a = (v[k] - mean) * r;\n"
    "                ak_norm_affine<D, 1>(&a, w, b, e, false);\n"
    "                yr[e] = D::from(a);\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "// One block per row, any width.\n"
    "template <class D>\n"
    "AK_INLINE void ak_norm_wide(const typename D::T* AK_RESTRICT x, const typename D::T* AK_RESTRICT w,\n"
    "                            const typename D::T* AK_RESTRICT b, typename D::T* AK_RESTRICT y, ak_i64 cols, bool vec,\n"
    "                            float eps, bool rms) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const ak_i64 row = blockIdx.x;\n"
    "    const typename D::T* p = x + row * cols;\n"
    "    typename D::T* q = y + row * cols;\n"
    "    const int B = (int)blockDim.x;\n"
    "    const float K = rms ? 0.0f : D::to(p[0]);\n"
    "    float s1 = 0.0f, s2 = 0.0f;\n"
    "    if (vec) {\n"
    "        for (ak_i64 e = (ak_i64)threadIdx.x * 8; e < cols; e += (ak_i64)B * 8) {\n"
    "            float a[8];\n"
    "            D::ld8(p + e, a);\n"
    "#pragma unroll\n"
    "            for (int k = 0; k < 8; k++) { const float d = a[k] - K; s1 += d; s2 += d * d; }\n"
    "        }\n"
    "    } else {\n"
    "        for (ak_i64 e = threadIdx.x; e < cols; e += B) { const float d = D::to(p[e]) - K; s1 += d; s2 += d * d; }\n"
    "    }\n"
    "    const float inv_n = (float)(1.0 / (double)cols);\n"
    "    float mean = 0.0f, var;\n"
    "    if (rms) {\n"
    "        var = ak_group_reduce(s2, B, scratch, ak_op_add()) * inv_n;\n"
    "    } else {\n"
    "        const float m1 = ak_group_reduce(s1, B, scratch, ak_op_add()) * inv_n;\n"
    "        const float m2 = ak_group_reduce(s2, B, scratch, ak_op_add()) * inv_n;\n"
    "        mean = K + m1;\n"
    "        var = m2 - m1 * m1;\n"
    "        if (var < 0.0f) var = 0.0f;\n"
    "    }\n"
    "    const float r = rsqrtf(var + eps);\n"
    "    if (vec) {\n"
    "        for (ak_i64 e = (ak_i64)threadIdx.x * 8; e < cols; e += (ak_i64)B * 8) {\n"
    "            float a[8];\n"
    "            D::ld8(p + e, a);\n"
    "#pragma unroll\n"
    "            for (int k = 0; k < 8; k++) a[k] = (a[k] - mean) * r;\n"
    "            ak_norm_affine<D, 8>(a, w, b, e, true);\n"
    "            D::st8(q + e, a);\n"
    "        }\n"
    "    } else {\n"
    "        for (ak_i64 e = threadIdx.x; e < cols; e += B) {\n"
    "            float a = (D::to(p[e]) - mean) * r;\n"
    "            ak_norm_affine<D, 1>(&a, w, b, e, false);\n"
    "            q[e] = D::from(a);\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "#define AK_NORM(DT, D)                                                                                               \\\n"
    "    AK_KERNEL __launch_bounds__(16384 / AK_NORM_E(D), 1) void ak_norm_##DT(const D::T* x, const D::T* w,              \\\n"
    "                                                                           const D::T* b, D::T* y, ak_i64 rows,      \\\n"
    "                                                                           int cols, int G, int vec, float eps,      \\\n"
    "                                                                           int rms) {                                \\\n"
    "        ak_norm_rows<D, AK_NORM_E(D)>(x, w, b, y, rows, cols, G, vec != 0, eps, rms != 0);                           \\\n"
    "    }                                                                                                                \\\n"
    "    AK_KERNEL __launch_bounds__(1024, 1) void ak_norm_wide_##DT(const D::T* x, const D::T* w, const D::T* b, D::T* y, \\\n"
    "                                                                ak_i64 cols, int vec, float eps, int rms) {          \\\n"
    "        ak_norm_wide<D>(x, w, b, y, cols, vec != 0, eps, rms != 0);                                                  \\\n"
    "    }\n"
    "AK_NORM(f32, ak_f32_t)\n"
    "AK_NORM(f16, ak_f16_t)\n"
    "AK_NORM(bf16, ak_bf16_t)\n"
    ;

/* kernels/reduce.hip */
static const char _ak_src_reduce[] =
    "// kernels/reduce.hip - reductions along the last dimension of a rows x cols\n"
    "// tensor (a whole-tensor reduction is rows = 1): sum (mean = sum x scale),\n"
    "// max, min (NaN propagates, like torch), argmax, argmin (int64 index of the\n"
    "// first best element; a NaN counts as the best, like torch).\n"
    "//\n"
    "// Stage 1 (ak_reduce_<op>_<dtype>): every row is cut into `splits` chunks of\n"
    "// `chunk` elements; segment s = row * splits + chunk index is reduced by a\n"
    "// group of G threads (G a power of two dividing blockDim.x) into outv[s]\n"
    "// (value x scale) and outi[s] (index, arg ops; outv may be NULL for them).\n"
    "// With splits == 1 that is the answer. Otherwise stage 2 (ak_reduce2_<op>)\n"
    "// combines the splits partials of each row in a fixed order: no atomics, so\n"
    "// results are bitwise deterministic run to run.\n"
    "// Loads: 8-element 16-byte-aligned vectors (4 in flight per thread) from the first 16-byte\n"
    "// aligned element of each segment, scalar head and tail.\n"
    "//\n"
    "// kernels: ak_reduce_sum_f32 ak_reduce_sum_f16 ak_reduce_sum_bf16 ak_reduce_max_f32 ak_reduce_max_f16 ak_reduce_max_bf16 ak_reduce_min_f32 ak_reduce_min_f16 ak_reduce_min_bf16 ak_reduce_argmax_f32 ak_reduce_argmax_f16 ak_reduce_argmax_bf16 ak_reduce_argmin_f32 ak_reduce_argmin_f16 ak_reduce_argmin_bf16 ak_reduce2_sum ak_reduce2_max ak_reduce2_min ak_reduce2_argmax ak_reduce2_argmin\n"
    "\n"
    "#define AK_RED_SUM 0\n"
    "#define AK_RED_MAX 1\n"
    "#define AK_RED_MIN 2\n"
    "#define AK_RED_ARGMAX 3\n"
    "#define AK_RED_ARGMIN 4\n"
    "#define AK_RED_NOIDX 0x7fffffffffffffffLL\n"
    "\n"
    "// Running state of one thread (and of a group after ak_red_state::group).\n"
    "template <int OP>\n"
    "struct ak_red_state {\n"
    "    float v;\n"
    "    ak_i64 i;\n"
    "    AK_INLINE void init() {\n"
    "        v = OP == AK_RED_SUM ? 0.0f : (OP == AK_RED_MAX || OP == AK_RED_ARGMAX) ? -AK_INF : AK_INF;\n"
    "        i = AK_RED_NOIDX;\n"
    "    }\n"
    "    // does (a, ia) beat (b, ib)? NaN beats everything; ties go to the lower index\n"
    "    static AK_INLINE bool better(float a, ak_i64 ia, float b, ak_i64 ib) {\n"
    "        bool an = ak_isnan(a), bn = ak_isnan(b);\n"
    "        if (an || bn) return an && (!bn || ia < ib);\n"
    "        if (a == b) return ia < ib;\n"
    "        return OP == AK_RED_ARGMAX ? a > b : a < b;\n"
    "    }\n"
    "    AK_INLINE void add(float x, ak_i64 ix) {\n"
    "        if (OP == AK_RED_SUM) v += x;\n"
    "        else if (OP == AK_RED_MAX) v = ak_op_max()(v, x);\n"
    "        else if (OP == AK_RED_MIN) v = ak_op_min()(v, x);\n"
    "        else if (better(x, ix, v, i)) { v = x; i = ix; }\n"
    "    }\n"
    "    // add n consecutive elements (indices ix, ix+1, ...)\n"
    "    template <int N>\n"
    "    AK_INLINE void addv(const float* x, ak_i64 ix) {\n"
    "        if (OP == AK_RED_SUM) {\n"
    "            float s = 0.0f;\n"
    "#pragma unroll\n"
    "            for (int k = 0; k < N; k++) s += x[k];\n"
    "            v += s;\n"
    "        } else if (OP == AK_RED_MAX || OP == AK_RED_MIN) {\n"
    "#pragma unroll\n"
    "            for (int k = 0; k < N; k++) add(x[k], 0);\n"
    "        } else {\n"
    "            // best of the N first (ties keep the lower index, the first NaN wins), then one 64-bit compare\n"
    "            float bv = x[0];\n"
    "            int bk = 0;\n"
    "#pragma unroll\n"
    "            for (int k = 1; k < N; k++) {\n"
    "                const bool nb = ak_isnan(x[k]) && !ak_isnan(bv);\n"
    "                if (nb || (OP == AK_RED_ARGMAX ? x[k] > bv : x[k] < bv)) { bv = x[k]; bk = k; }\n"
    "            }\n"
    "            add(bv, ix + bk);\n"
    "        }\n"
    "    }\n"
    "    // combine over a group of G threads (all threads of the block call it)\n"
    "    AK_INLINE void group(int G, float* redv, ak_i64* redi) {\n"
    "        if (OP == AK_RED_SUM) { v = ak_group_reduce(v, G, redv, ak_op_add()); return; }\n"
    "        if (OP == AK_RED_MAX) { v = ak_group_reduce(v, G, redv, ak_op_max()); return; }\n"
    "        if (OP == AK_RED_MIN) { v = ak_group_reduce(v, G, redv, ak_op_min()); return; }\n"
    "        int w = G < AK_WAVE ? G : AK_WAVE;\n"
    "        for (int o = w >> 1; o > 0; o >>= 1) {\n"
    "            float ov = ak_shfl_xor(v, o);\n"
    "            unsigned lo = __float_as_uint(ak_shfl_xor(__uint_as_float((unsigned)(unsigned long long)i), o));\n"
    "            unsigned hi = __float_as_uint(ak_shfl_xor(__uint_as_float((unsigned)((unsigned long long)i >> 32)), o));\n"
    "            ak_i64 oi = (ak_i64)(((unsigned long long)hi << 32) | lo);\n"
    "            if (better(ov, oi, v, i)) { v = ov; i = oi; }\n"
    "        }\n"
    "        if (G > AK_WAVE) {\n"
    "            int warp = (int)threadIdx.x / AK_WAVE, wpg = G / AK_WAVE, first = ((int)threadIdx.x / G) * wpg;\n"
    "            __syncthreads();\n"
    "            if ((threadIdx.x & (AK_WAVE - 1)) == 0) { redv[warp] = v; redi[warp] = i; }\n"
    "            __syncthreads();\n"
    "            v = redv[first];\n"
    "            i = redi[first];\n"
    "            for (int k = 1; k < wpg; k++)\n"
    "                if (better(redv[first + k], redi[first + k], v, i)) { v = redv[first + k]; i = redi[first + k]; }\n"
    "        }\n"
    "    }\n"
    "};\n"
    "\n"
    "template <class D, int OP>\n"
    "AK_INLINE void ak_reduce1(const typename D::T* AK_RESTRICT x, ak_i64 cols, ak_i64 nseg,\n"
    "                                           ak_i64 splits, ak_i64 chunk, int G, float scale, float* AK_RESTRICT outv,\n"
    "                                           ak_i64* AK_RESTRICT outi) {\n"
    "    typedef typename D::T T;\n"
    "    __shared__ float redv[256 / 32 + 1];\n"
    "    __shared__ ak_i64 redi[256 / 32 + 1];\n"
    "    const int lane = (int)threadIdx.x & (G - 1);\n"
    "    const ak_i64 seg = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);\n"
    "    const bool active = seg < nseg;\n"
    "    ak_i64 row = 0, s0 = 0, len = 0;\n"
    "    if (active) {\n"
    "        row = seg / splits;\n"
    "        s0 = (seg - row * splits) * chunk;\n"
    "        len = cols - s0 < chunk ? cols - s0 : chunk;\n"
    "    }\n"
    "    const T* p = x + row * cols + s0;\n"
    "    ak_i64 head = (ak_i64)(((16u - ((unsigned)(unsigned long long)p & 15u)) & 15u) / sizeof(T));\n"
    "    if (head > len) head = len;\n"
    "    ak_red_state<OP> st;\n"
    "    st.init();\n"
    "    for (ak_i64 k = lane; k < head; k += G) st.add(D::to(p[k]), s0 + k);\n"
    "    const T* pv = p + head;\n"
    "    const ak_i64 nv = (len - head) >> 3;\n"
    "    const ak_i64 base = s0 + head;\n"
    "    ak_i64 k = lane;\n"
    "    for (; k + 3 * G < nv; k += 4 * G) {\n"
    "        float a[4][8];\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < 4; u++) D::ld8(pv + (k + u * G) * 8, a[u]);\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < 4; u++) st.template addv<8>(a[u], base + (k + u * G) * 8);\n"
    "    }\n"
    "    for (; k < nv; k += G) {\n"
    "        float a[8];\n"
    "        D::ld8(pv + k * 8, a);\n"
    "        st.template addv<8>(a, base + k * 8);\n"
    "    }\n"
    "    for (k = head + nv * 8 + lane; k < len; k += G) st.add(D::to(p[k]), s0 + k);\n"
    "    st.group(G, redv, redi);\n"
    "    if (active && lane == 0) {\n"
    "        if (outv) outv[seg] = OP == AK_RED_SUM ? st.v * scale : st.v;\n"
    "        if (outi) outi[seg] = st.i;\n"
    "    }\n"
    "}\n"
    "\n"
    "// Stage 2: row r's partials pv[r * splits + j] (and pi, arg ops), j in order.\n"
    "template <int OP>\n"
    "AK_INLINE void ak_reduce2(const float* AK_RESTRICT pv, const ak_i64* AK_RESTRICT pi, ak_i64 rows,\n"
    "                                           ak_i64 splits, int G, float scale, float* AK_RESTRICT outv,\n"
    "                                           ak_i64* AK_RESTRICT outi) {\n"
    "    __shared__ float redv[256 / 32 + 1];\n"
    "    __shared__ ak_i64 redi[256 / 32 + 1];\n"
    "    const int lane = (int)threadIdx.x & (G - 1);\n"
    "    const ak_i64 row = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);\n"
    "    const bool active = row < rows;\n"
    "    ak_red_state<OP> st;\n"
    "    st.init();\n"
    "    if (active)\n"
    "        for (ak_i64 j = lane; j < splits; j += G)\n"
    "            st.add(pv[row * splits + j], (OP == AK_RED_ARGMAX || OP == AK_RED_ARGMIN) ? pi[row * splits + j] : 0);\n"
    "    st.group(G, redv, redi);\n"
    "    if (active && lane == 0) {\n"
    "        if (outv) outv[row] = OP == AK_RED_SUM ? st.v * scale : st.v;\n"
    "        if (outi) outi[row] = st.i;\n"
    "    }\n"
    "}\n"
    "\n"
    "#define AK_REDUCE1(NAME, OP, D)                                                                                     \\\n"
    "    AK_KERNEL __launch_bounds__(256) void NAME(const D::T* x, ak_i64 cols, ak_i64 nseg, ak_i64 splits,      \\\n"
    "                                                ak_i64 chunk, int G, float scale, float* outv, ak_i64* outi) {        \\\n"
    "        ak_reduce1<D, OP>(x, cols, nseg, splits, chunk, G, scale, outv, outi);                                       \\\n"
    "    }\n"
    "AK_REDUCE1(ak_reduce_sum_f32, AK_RED_SUM, ak_f32_t)\n"
    "AK_REDUCE1(ak_reduce_sum_f16, AK_RED_SUM, ak_f16_t)\n"
    "AK_REDUCE1(ak_reduce_sum_bf16, AK_RED_SUM, ak_bf16_t)\n"
    "AK_REDUCE1(ak_reduce_max_f32, AK_RED_MAX, ak_f32_t)\n"
    "AK_REDUCE1(ak_reduce_max_f16, AK_RED_MAX, ak_f16_t)\n"
    "AK_REDUCE1(ak_reduce_max_bf16, AK_RED_MAX, ak_bf16_t)\n"
    "AK_REDUCE1(ak_reduce_min_f32, AK_RED_MIN, ak_f32_t)\n"
    "AK_REDUCE1(ak_reduce_min_f16, AK_RED_MIN, ak_f16_t)\n"
    "AK_REDUCE1(ak_reduce_min_bf16, AK_RED_MIN, ak_bf16_t)\n"
    "AK_REDUCE1(ak_reduce_argmax_f32, AK_RED_ARGMAX, ak_f32_t)\n"
    "AK_REDUCE1(ak_reduce_argmax_f16, AK_RED_ARGMAX, ak_f16_t)\n"
    "AK_REDUCE1(ak_reduce_argmax_bf16, AK_RED_ARGMAX, ak_bf16_t)\n"
    "AK_REDUCE1(ak_reduce_argmin_f32, AK_RED_ARGMIN, ak_f32_t)\n"
    "AK_REDUCE1(ak_reduce_argmin_f16, AK_RED_ARGMIN, ak_f16_t)\n"
    "AK_REDUCE1(ak_reduce_argmin_bf16, AK_RED_ARGMIN, ak_bf16_t)\n"
    "\n"
    "#define AK_REDUCE2(NAME, OP)                                                                                         \\\n"
    "    AK_KERNEL __launch_bounds__(256) void NAME(const float* pv, const ak_i64* pi, ak_i64 rows, ak_i64 splits, int G, \\\n"
    "                                                float scale, float* outv, ak_i64* outi) {                            \\\n"
    "        ak_reduce2<OP>(pv, pi, rows, splits, G, scale, outv, outi);                                                   \\\n"
    "    }\n"
    "AK_REDUCE2(ak_reduce2_sum, AK_RED_SUM)\n"
    "AK_REDUCE2(ak_reduce2_max, AK_RED_MAX)\n"
    "AK_REDUCE2(ak_reduce2_min, AK_RED_MIN)\n"
    "AK_REDUCE2(ak_reduce2_argmax, AK_RED_ARGMAX)\n"
    "AK_REDUCE2(ak_reduce2_argmin, AK_RED_ARGMIN)\n"
    ;

/* kernels/softmax.hip */
static const char _ak_src_softmax[] =
    "// kernels/softmax.hip - softmax and log_softmax along the last dimension of a\n"
    "// rows x cols tensor, numerically stable (max subtracted), fp32 math.\n"
    "// Every kernel takes `logsm`: 0 softmax, 1 log_softmax (x - max - log(sum)).\n"
    "// vec != 0: 16-byte accesses (x and y 16-byte aligned and cols % 8 == 0).\n"
    "//\n"
    "// Three paths (the host picks one):\n"
    "// 1. ak_softmax_<dt>: the row lives in registers (E = 16 per thread for f32,\n"
    "//    32 for f16 / bf16) of a group of G threads (G a power of two, G * E >=\n"
    "//    cols, G * E <= 16384, blockDim.x / G rows per block): one read and one\n"
    "//    write of the row.\n"
    "// 2. ak_softmax_split_<dt>: rows wider than one group: S blocks per row, each\n"
    "//    holding a chunk of blockDim.x * 32 elements in registers. A block takes a\n"
    "//    ticket (atomic counter) that names its (row, chunk), publishes the\n"
    "//    chunk's (max, sum of exp) and waits until the S blocks of its row have\n"
    "//    published, then combines the S partials (same order in every block) and\n"
    "//    writes its chunk: still one read and one write. (blockDim.x <= 256) Tickets are handed out in\n"
    "//    start order, so every row but the last started one has all its blocks\n"
    "//    running: no deadlock as long as S blocks fit on the device at once (the\n"
    "//    host keeps S <= compute units). cnt[0] is the ticket counter, cnt[1 + row]\n"
    "//    the row's count; cnt must be zeroed before the launch.\n"
    "// 3. ak_softmax_stats_<dt> + ak_softmax_apply_<dt>: any width, no co-residency\n"
    "//    assumption: per (row, chunk) block the online (max, sum) partial, then a\n"
    "//    second pass that combines the row's partials and writes: two reads, one\n"
    "//    write (the host uses it past S > compute units, for f16 / bf16 rows past\n"
    "//    131072, where it measured faster, and at the conservative opt level).\n"
    "//\n"
    "// kernels: ak_softmax_f32 ak_softmax_f16 ak_softmax_bf16 ak_softmax_split_f32 ak_softmax_split_f16 ak_softmax_split_bf16 ak_softmax_stats_f32 ak_softmax_stats_f16 ak_softmax_stats_bf16 ak_softmax_apply_f32 ak_softmax_apply_f16 ak_softmax_apply_bf16\n"
    "\n"
    "// elements per thread of path 1: 16 (f32), 32 (f16 / bf16: the same 64 bytes)\n"
    "#define AK_SM_ROW_E(D) (D::SIZE == 4 ? 16 : 32)\n"
    "#define AK_SM_SPLIT_E 32\n"
    "\n"
    "// exp(m - M) as a rescale factor; 1 when m == M (also for -inf == -inf).\n"
    "AK_INLINE float ak_sm_rescale(float m, float M) { return m == M ? 1.0f : ak_exp2((m - M) * AK_LOG2E); }\n"
    "\n"
    "// In-register softmax of n slots already loaded in v (pads are -inf), whose\n"
    "// group max is M and sum of exp(v - M) is S: v becomes the output.\n"
    "template <int E>\n"
    "AK_INLINE void ak_sm_finish(float* v, float M, float S, bool logsm) {\n"
    "    if (logsm) {\n"
    "        const float ls = logf(S);\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < E; k++) v[k] = (v[k] - M) - ls;\n"
    "    } else {\n"
    "        const float r = 1.0f / S;\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < E; k++) v[k] *= r;\n"
    "    }\n"
    "}\n"
    "\n"
    "// Path 1: one group of G threads per row, E elements per thread.\n"
    "template <class D, int E>\n"
    "AK_INLINE void ak_softmax_rows(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 rows, int cols,\n"
    "                               int G, bool vec, bool logsm) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const int lane = (int)threadIdx.x & (G - 1);\n"
    "    ak_i64 row = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);\n"
    "    const int len = row < rows ? cols : 0;\n"
    "    if (row >= rows) row = 0;\n"
    "    float v[E];\n"
    "    ak_row_load<D, E>(v, x + row * cols, len, lane, G, vec, -AK_INF);\n"
    "    float m = -AK_INF;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < E; k++) m = ak_op_max()(m, v[k]);\n"
    "    m = ak_group_reduce(m, G, scratch, ak_op_max());\n"
    "    float s = 0.0f;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < E; k++) {\n"
    "        const float e = ak_exp2((v[k] - m) * AK_LOG2E);\n"
    "        s += e;\n"
    "        if (!logsm) v[k] = e;\n"
    "    }\n"
    "    s = ak_group_reduce(s, G, scratch, ak_op_add());\n"
    "    ak_sm_finish<E>(v, m, s, logsm);\n"
    "    ak_row_store<D, E>(v, y + row * cols, len, lane, G, vec);\n"
    "}\n"
    "\n"
    "// Combine the S partials (max, sum) of one row, read with volatile loads\n"
    "// (they may come from blocks running now). Wave 0 does it, in a fixed order;\n"
    "// the result goes to stat[0] (max) and stat[1] (sum). Ends with __syncthreads.\n"
    "AK_INLINE void ak_sm_combine(const float* part, int S, float* stat) {\n"
    "    if (threadIdx.x < AK_WAVE) {\n"
    "        const volatile float* p = (const volatile float*)part;\n"
    "        float m = -AK_INF;\n"
    "        for (int j = (int)threadIdx.x; j < S; j += AK_WAVE) m = ak_op_max()(m, p[2 * j]);\n"
    "        for (int o = AK_WAVE / 2; o > 0; o >>= 1) m = ak_op_max()(m, ak_shfl_xor(m, o));\n"
    "        float s = 0.0f;\n"
    "        for (int j = (int)threadIdx.x; j < S; j += AK_WAVE) s += p[2 * j + 1] * ak_sm_rescale(p[2 * j], m);\n"
    "        for (int o = AK_WAVE / 2; o > 0; o >>= 1) s += ak_shfl_xor(s, o);\n"
    "        if (threadIdx.x == 0) { stat[0] = m; stat[1] = s; }\n"
    "    }\n"
    "    __syncthreads();\n"
    "}\n"
    "\n"
    "AK_INLINE void ak_sm_pause(void) {\n"
    "#if defined(AK_NVIDIA)\n"
    "    __nanosleep(64);\n"
    "#else\n"
    "    __builtin_amdgcn_s_sleep(1);\n"
    "#endif\n"
    "}\n"
    "\n"
    "// Path 2: S co-operating blocks per row, chunk = blockDim.x * 32 elements each.\n"
    "template <class D>\n"
    "AK_INLINE void ak_softmax_split(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 cols, int S,\n"
    "                                unsigned* cnt, float* part, bool vec, bool logsm) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    __shared__ float stat[2];\n"
    "    __shared__ unsigned ticket;\n"
    "    if (threadIdx.x == 0) ticket = atomicAdd(cnt, 1u);\n"
    "    __syncthreads();\n"
    "    const ak_i64 t = (ak_i64)ticket;\n"
    "    const ak_i64 row = t / S;\n"
    "    const int c = (int)(t - row * S);\n"
    "    const int G = (int)blockDim.x, chunk = G * AK_SM_SPLIT_E;\n"
    "    const ak_i64 s0 = (ak_i64)c * chunk;\n"
    "    const int len = cols - s0 < chunk ? (int)(cols - s0) : chunk;\n"
    "    float v[AK_SM_SPLIT_E];\n"
    "    ak_row_load<D, AK_SM_SPLIT_E>(v, x + row * cols + s0, len, (int)threadIdx.x, G, vec, -AK_INF);\n"
    "    float m = -AK_INF;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < AK_SM_SPLIT_E; k++) m = ak_op_max()(m, v[k]);\n"
    "    m = ak_group_reduce(m, G, scratch, ak_op_max());\n"
    "    float s = 0.0f;\n"
    "    if (m != -AK_INF) {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < AK_SM_SPLIT_E; k++) s += ak_exp2((v[k] - m) * AK_LOG2E);\n"
    "    }\n"
    "    s = ak_group_reduce(s, G, scratch, ak_op_add());\n"
    "    if (threadIdx.x == 0) {\n"
    "        part[2 * t] = m;\n"
    "        part[2 * t + 1] = s;\n"
    "        __threadfence();\n"
    "        atomicAdd(cnt + 1 + row, 1u);\n"
    "        while (*(volatile unsigned*)(cnt + 1 + row) < (unsigned)S) ak_sm_pause();\n"
    "        __threadfence();\n"
    "    }\n"
    "    __syncthreads();\n"
    "    ak_sm_combine(part + 2 * row * S, S, stat);\n"
    "    const float M = stat[0], Sum = stat[1];\n"
    "    if (!logsm) {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < AK_SM_SPLIT_E; k++) v[k] = ak_exp2((v[k] - M) * AK_LOG2E);\n"
    "    }\n"
    "    ak_sm_finish<AK_SM_SPLIT_E>(v, M, Sum, logsm);\n"
    "    ak_row_store<D, AK_SM_SPLIT_E>(v, y + row * cols + s0, len, (int)threadIdx.x, G, vec);\n"
    "}\n"
    "\n"
    "// Path 3a: block `seg` = row * S + chunk: online (max, sum) of `chunk` elements.\n"
    "template <class D>\n"
    "AK_INLINE void ak_softmax_stats(const typename D::T* AK_RESTRICT x, ak_i64 cols, int S, ak_i64 chunk, float* part,\n"
    "                                bool vec) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const ak_i64 seg = blockIdx.x, row = seg / S, s0 = (seg - row * S) * chunk;\n"
    "    const ak_i64 len = cols - s0 < chunk ? cols - s0 : chunk;\n"
    "    const typename D::T* p = x + row * cols + s0;\n"
    "    float m = -AK_INF, s = 0.0f;\n"
    "    if (vec) {\n"
    "        for (ak_i64 e = (ak_i64)threadIdx.x * 8; e < len; e += (ak_i64)blockDim.x * 8) {\n"
    "            float a[8];\n"
    "            D::ld8(p + e, a);\n"
    "            float mn = m;\n"
    "#pragma unroll\n"
    "            for (int q = 0; q < 8; q++) mn = ak_op_max()(mn, a[q]);\n"
    "            if (mn != -AK_INF) {\n"
    "                float t = 0.0f;\n"
    "#pragma unroll\n"
    "                for (int q = 0; q < 8; q++) t += ak_exp2((a[q] - mn) * AK_LOG2E);\n"
    "                s = s * ak_sm_rescale(m, mn) + t;\n"
    "                m = mn;\n"
    "            }\n"
    "        }\n"
    "    } else {\n"
    "        for (ak_i64 e = threadIdx.x; e < len; e += blockDim.x) {\n"
    "            const float a = D::to(p[e]);\n"
    "            const float mn = ak_op_max()(m, a);\n"
    "            if (mn != -AK_INF) {\n"
    "                s = s * ak_sm_rescale(m, mn) + ak_exp2((a - mn) * AK_LOG2E);\n"
    "                m = mn;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    const float M = ak_group_reduce(m, (int)blockDim.x, scratch, ak_op_max());\n"
    "    s = ak_group_reduce(s * ak_sm_rescale(m, M), (int)blockDim.x, scratch, ak_op_add());\n"
    "    if (threadIdx.x == 0) {\n"
    "        part[2 * seg] = M;\n"
    "        part[2 * seg + 1] = s;\n"
    "    }\n"
    "}\n"
    "\n"
    "// Path 3b: block `seg` combines its row's S partials and writes its chunk.\n"
    "template <class D>\n"
    "AK_INLINE void ak_softmax_apply(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 cols, int S,\n"
    "                                ak_i64 chunk, const float* part, bool vec, bool logsm) {\n"
    "    __shared__ float stat[2];\n"
    "    const ak_i64 seg = blockIdx.x, row = seg / S, s0 = (seg - row * S) * chunk;\n"
    "    const ak_i64 len = cols - s0 < chunk ? cols - s0 : chunk;\n"
    "    ak_sm_combine(part + 2 * row * S, S, stat);\n"
    "    const float M = stat[0], Sum = stat[1], r = 1.0f / Sum, ls = logf(Sum);\n"
    "    const typename D::T* p = x + row * cols + s0;\n"
    "    typename D::T* q = y + row * cols + s0;\n"
    "    if (vec) {\n"
    "        for (ak_i64 e = (ak_i64)threadIdx.x * 8; e < len; e += (ak_i64)blockDim.x * 8) {\n"
    "            float a[8];\n"
    "            D::ld8(p + e, a);\n"
    "#pragma unroll\n"
    "            for (int k = 0; k < 8; k++) a[k] = logsm ? (a[k] - M) - ls : ak_exp2((a[k] - M) * AK_LOG2E) * r;\n"
    "            D::st8(q + e, a);\n"
    "        }\n"
    "    } else {\n"
    "        for (ak_i64 e = threadIdx.x; e < len; e += blockDim.x) {\n"
    "            const float a = D::to(p[e]);\n"
    "            q[e] = D::from(logsm ? (a - M) - ls : ak_exp2((a - M) * AK_LOG2E) * r);\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "#define AK_SOFTMAX(DT, D)                                                                                            \\\n"
    "    AK_KERNEL __launch_bounds__(16384 / AK_SM_ROW_E(D), 1) void ak_softmax_##DT(const D::T* x, D::T* y, ak_i64 rows, \\\n"
    "                                                                                int cols, int G, int vec, int logsm) {  \\\n"
    "        ak_softmax_rows<D, AK_SM_ROW_E(D)>(x, y, rows, cols, G, vec != 0, logsm != 0);                               \\\n"
    "    }                                                                                                                \\\n"
    "    AK_KERNEL __launch_bounds__(256, 1) void ak_softmax_split_##DT(const D::T* x, D::T* y, ak_i64 cols, int S,          \\\n"
    "                                                                 unsigned* cnt, float* part, int vec, int logsm) {   \\\n"
    "        ak_softmax_split<D>(x, y, cols, S, cnt, part, vec != 0, logsm != 0);                                         \\\n"
    "    }                                                                                                                \\\n"
    "    AK_KERNEL __launch_bounds__(256, 1) void ak_softmax_stats_##DT(const D::T* x, ak_i64 cols, int S, ak_i64 chunk,     \\\n"
    "                                                                 float* part, int vec) {                             \\\n"
    "        ak_softmax_stats<D>(x, cols, S, chunk, part, vec != 0);                                                      \\\n"
    "    }                                                                                                                \\\n"
    "    AK_KERNEL __launch_bounds__(256, 1) void ak_softmax_apply_##DT(const D::T* x, D::T* y, ak_i64 cols, int S,          \\\n"
    "                                                                 ak_i64 chunk, const float* part, int vec,           \\\n"
    "                                                                 int logsm) {                                        \\\n"
    "        ak_softmax_apply<D>(x, y, cols, S, chunk, part, vec != 0, logsm != 0);                                       \\\n"
    "    }\n"
    "AK_SOFTMAX(f32, ak_f32_t)\n"
    "AK_SOFTMAX(f16, ak_f16_t)\n"
    "AK_SOFTMAX(bf16, ak_bf16_t)\n"
    ;

/* kernels/transpose.hip */
static const char _ak_src_transpose[] =
    "/* kernels/transpose.hip: y = transpose(x) for a row-major rows x cols matrix\n"
    " * x (y is cols x rows), f32, f16 and bf16 (the 16-bit types share one body: a\n"
    " * transpose moves bits). Tiled through shared memory by blocks of 32 x 8\n"
    " * threads (blockDim = (32, 8)); both the reads of x and the writes of y are\n"
    " * coalesced, and the tile rows are padded so the column reads of the tile hit\n"
    " * distinct banks. Any shape: edge tiles are masked; the 1-D grid strides over\n"
    " * all tiles (no grid-dimension limit). Host wrapper: ak_transpose in\n"
    " * parts/ops_elementwise.inc.\n"
    " *\n"
    " * Both: 64 x 64 tiles moved two elements per access (f32: float2, 16-bit:\n"
    " * one 32-bit word) on both sides when the tile is whole, the row lengths\n"
    " * even and the pointers aligned to the pair; element by element otherwise.\n"
    " * Each thread moves 16 elements per tile. Measured on H100 (16384^2 f32):\n"
    " * 64 x 64 pairs 2873 GB/s vs 32 x 32 scalar 2753 GB/s and memcpy 3016 GB/s,\n"
    " * with one block per tile (the host launches a block for every tile). */\n"
    "\n"
    "#define AK_TX 32   /* blockDim.x */\n"
    "#define AK_TY 8    /* blockDim.y */\n"
    "\n"
    "/* T: element bits, P: two of them */\n"
    "struct ak_tp32 {\n"
    "    typedef float T;\n"
    "    typedef float2 P;\n"
    "    static AK_INLINE void split(P v, T& a, T& b) { a = v.x; b = v.y; }\n"
    "    static AK_INLINE P join(T a, T b) { P v; v.x = a; v.y = b; return v; }\n"
    "};\n"
    "struct ak_tp16 {\n"
    "    typedef ak_u16 T;\n"
    "    typedef ak_u32 P;\n"
    "    static AK_INLINE void split(P v, T& a, T& b) { a = (T)(v & 0xFFFFu); b = (T)(v >> 16); }\n"
    "    static AK_INLINE P join(T a, T b) { return ak_pack2(a, b); }\n"
    "};\n"
    "\n"
    "/* tile: __shared__ T[64][65] of the kernel; 65, an odd row length, keeps the\n"
    " * column reads tile[2t][c], tile[2t + 1][c] (t = 0..31) off shared banks\n"
    " * (conflict-free for 16-bit, 2-way for f32) */\n"
    "template <class S>\n"
    "AK_INLINE void ak_transpose_tiles(const typename S::T* AK_RESTRICT x, typename S::T* AK_RESTRICT y, ak_i64 rows,\n"
    "                                  ak_i64 cols, typename S::T (*tile)[65]) {\n"
    "    typedef typename S::P P;\n"
    "    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;\n"
    "    const ak_i64 tiles_c = (cols + 63) / 64;\n"
    "    const ak_i64 tiles = tiles_c * ((rows + 63) / 64);\n"
    "    const bool pairs = ((rows | cols) & 1) == 0 && ((((ak_u64)x) | ((ak_u64)y)) % sizeof(P)) == 0;\n"
    "    for (ak_i64 t = blockIdx.x; t < tiles; t += gridDim.x) {\n"
    "        const ak_i64 r0 = (t / tiles_c) * 64, c0 = (t % tiles_c) * 64;\n"
    "        const bool whole = pairs && r0 + 64 <= rows && c0 + 64 <= cols;\n"
    "        if (whole) {\n"
    "#pragma unroll\n"
    "            for (int k = 0; k < 64; k += AK_TY) {\n"
    "                const P v = *(const P*)(x + (r0 + ty + k) * cols + c0 + 2 * tx);\n"
    "                S::split(v, tile[ty + k][2 * tx], tile[ty + k][2 * tx + 1]);\n"
    "            }\n"
    "        } else {\n"
    "            for (int k = 0; k < 64; k += AK_TY) {\n"
    "                const ak_i64 r = r0 + ty + k, ca = c0 + 2 * tx, cb = ca + 1;\n"
    "                if (r < rows) {\n"
    "                    if (ca < cols) tile[ty + k][2 * tx] = x[r * cols + ca];\n"
    "                    if (cb < cols) tile[ty + k][2 * tx + 1] = x[r * cols + cb];\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (whole) {\n"
    "#pragma unroll\n"
    "            for (int k = 0; k < 64; k += AK_TY) {\n"
    "                const int c = ty + k;\n"
    "                *(P*)(y + (c0 + c) * rows + r0 + 2 * tx) = S::join(tile[2 * tx][c], tile[2 * tx + 1][c]);\n"
    "            }\n"
    "        } else {\n"
    "            for (int k = 0; k < 64; k += AK_TY) {\n"
    "                const ak_i64 c = c0 + ty + k, ra = r0 + 2 * tx, rb = ra + 1;\n"
    "                if (c < cols) {\n"
    "                    if (ra < rows) y[c * rows + ra] = tile[2 * tx][ty + k];\n"
    "                    if (rb < rows) y[c * rows + rb] = tile[2 * tx + 1][ty + k];\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "}\n"
    "\n"
    "AK_KERNEL void ak_transpose_f32(const float* x, float* y, ak_i64 rows, ak_i64 cols) {\n"
    "    __shared__ float tile[64][65];\n"
    "    ak_transpose_tiles<ak_tp32>(x, y, rows, cols, tile);\n"
    "}\n"
    "AK_KERNEL void ak_transpose_f16(const ak_half* x, ak_half* y, ak_i64 rows, ak_i64 cols) {\n"
    "    __shared__ ak_u16 tile[64][65];\n"
    "    ak_transpose_tiles<ak_tp16>(x, y, rows, cols, tile);\n"
    "}\n"
    "AK_KERNEL void ak_transpose_bf16(const ak_bf16* x, ak_bf16* y, ak_i64 rows, ak_i64 cols) {\n"
    "    __shared__ ak_u16 tile[64][65];\n"
    "    ak_transpose_tiles<ak_tp16>(x, y, rows, cols, tile);\n"
    "}\n"
    ;

/* kernels/xent.hip */
static const char _ak_src_xent[] =
    "// kernels/xent.hip - cross-entropy loss over logits (rows x classes, f32 /\n"
    "// f16 / bf16) and int64 targets, fp32 math:\n"
    "//   loss[r] = logsumexp(x[r, :]) - x[r, t[r]]\n"
    "// t[r] == ignore_index: loss 0, left out of the mean. t[r] outside [0, cols)\n"
    "// (and not ignore_index): loss NaN (so the mean is NaN too): the device\n"
    "// cannot report an error cheaply, the NaN marks the bad row.\n"
    "//\n"
    "// ak_xent_<dt>: a group of G threads per row (G a power of two), one pass:\n"
    "// each thread keeps an online (max, sum of exp) over its elements, 4 x 8\n"
    "// elements in flight; the group combines them. One read of the logits.\n"
    "// ak_xent_partial + ak_xent_mean: sum (mean = 0) or mean (mean = 1) of the\n"
    "// losses over the rows whose target is not ignore_index: per-block partial\n"
    "// sums and counts, then one block combines them in a fixed order\n"
    "// (deterministic); the mean is NaN when every row is ignored.\n"
    "//\n"
    "// kernels: ak_xent_f32 ak_xent_f16 ak_xent_bf16 ak_xent_partial ak_xent_mean\n"
    "\n"
    "AK_INLINE float ak_xent_rescale(float m, float M) { return m == M ? 1.0f : ak_exp2((m - M) * AK_LOG2E); }\n"
    "\n"
    "// fold n values into the running (m, s)\n"
    "template <int N>\n"
    "AK_INLINE void ak_xent_fold(float& m, float& s, const float* a) {\n"
    "    float mn = m;\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < N; q++) mn = ak_op_max()(mn, a[q]);\n"
    "    if (mn != -AK_INF) {\n"
    "        float t = 0.0f;\n"
    "#pragma unroll\n"
    "        for (int q = 0; q < N; q++) t += ak_exp2((a[q] - mn) * AK_LOG2E);\n"
    "        s = s * ak_xent_rescale(m, mn) + t;\n"
    "        m = mn;\n"
    "    }\n"
    "}\n"
    "\n"
    "template <class D>\n"
    "AK_INLINE void ak_xent_rows(const typename D::T* AK_RESTRICT x, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,\n"
    "                            ak_i64 cols, int G, bool vec, ak_i64 ignore_index, float* AK_RESTRICT loss) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const int lane = (int)threadIdx.x & (G - 1);\n"
    "    ak_i64 row = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);\n"
    "    const bool active = row < rows;\n"
    "    const ak_i64 len = active ? cols : 0;\n"
    "    if (!active) row = 0;\n"
    "    const typename D::T* p = x + row * cols;\n"
    "    float m = -AK_INF, s = 0.0f;\n"
    "    if (vec) {\n"
    "        const ak_i64 nv = len >> 3;\n"
    "        ak_i64 k = lane;\n"
    "        for (; k + 3 * G < nv; k += 4 * G) {\n"
    "            float a[32];\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < 4; u++) D::ld8(p + (k + u * G) * 8, a + 8 * u);\n"
    "            ak_xent_fold<32>(m, s, a);\n"
    "        }\n"
    "        for (; k < nv; k += G) {\n"
    "            float a[8];\n"
    "            D::ld8(p + k * 8, a);\n"
    "            ak_xent_fold<8>(m, s, a);\n"
    "        }\n"
    "    } else {\n"
    "        ak_i64 e = lane;\n"
    "        for (; e + 3 * G < len; e += 4 * G) {\n"
    "            float a[4];\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < 4; u++) a[u] = D::to(p[e + u * G]);\n"
    "            ak_xent_fold<4>(m, s, a);\n"
    "        }\n"
    "        for (; e < len; e += G) {\n"
    "            float a = D::to(p[e]);\n"
    "            ak_xent_fold<1>(m, s, &a);\n"
    "        }\n"
    "    }\n"
    "    const float M = ak_group_reduce(m, G, scratch, ak_op_max());\n"
    "    const float S = ak_group_reduce(s * ak_xent_rescale(m, M), G, scratch, ak_op_add());\n"
    "    if (active && lane == 0) {\n"
    "        const ak_i64 t = tgt[row];\n"
    "        float l;\n"
    "        if (t == ignore_index) l = 0.0f;\n"
    "        else if (t < 0 || t >= cols) l = AK_NAN;\n"
    "        else l = (M + logf(S)) - D::to(p[t]);\n"
    "        loss[row] = l;\n"
    "    }\n"
    "}\n"
    "\n"
    "// Stage 1 of the mean / sum: block b adds the losses and counts the rows\n"
    "// r in [b * per, (b + 1) * per) whose target is not ignore_index (ignored\n"
    "// rows hold loss 0): part[2b] = sum, part[2b + 1] = count.\n"
    "AK_INLINE void ak_xent_partial_body(const float* AK_RESTRICT loss, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,\n"
    "                                    ak_i64 per, ak_i64 ignore_index, float* AK_RESTRICT part) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const ak_i64 r0 = (ak_i64)blockIdx.x * per, r1 = rows - r0 < per ? rows : r0 + per;\n"
    "    float s = 0.0f, n = 0.0f;\n"
    "    for (ak_i64 r = r0 + threadIdx.x; r < r1; r += blockDim.x)\n"
    "        if (tgt[r] != ignore_index) { s += loss[r]; n += 1.0f; }\n"
    "    s = ak_group_reduce(s, (int)blockDim.x, scratch, ak_op_add());\n"
    "    n = ak_group_reduce(n, (int)blockDim.x, scratch, ak_op_add());\n"
    "    if (threadIdx.x == 0) { part[2 * blockIdx.x] = s; part[2 * blockIdx.x + 1] = n; }\n"
    "}\n"
    "\n"
    "// Stage 2: one block combines the nparts partials in order: the sum, or the\n"
    "// mean (NaN when every row is ignored).\n"
    "AK_INLINE void ak_xent_mean_body(const float* AK_RESTRICT part, int nparts, bool mean, float* AK_RESTRICT out) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    float s = 0.0f, n = 0.0f;\n"
    "    for (int j = (int)threadIdx.x; j < nparts; j += (int)blockDim.x) { s += part[2 * j]; n += part[2 * j + 1]; }\n"
    "    s = ak_group_reduce(s, (int)blockDim.x, scratch, ak_op_add());\n"
    "    n = ak_group_reduce(n, (int)blockDim.x, scratch, ak_op_add());\n"
    "    if (threadIdx.x == 0) *out = !mean ? s : n > 0.0f ? s / n : AK_NAN;\n"
    "}\n"
    "\n"
    "#define AK_XENT(DT, D)                                                                                               \\\n"
    "    AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_##DT(const D::T* x, const ak_i64* tgt, ak_i64 rows,             \\\n"
    "                                                           ak_i64 cols, int G, int vec, ak_i64 ignore_index,         \\\n"
    "                                                           float* loss) {                                            \\\n"
    "        ak_xent_rows<D>(x, tgt, rows, cols, G, vec != 0, ignore_index, loss);                                        \\\n"
    "    }\n"
    "AK_XENT(f32, ak_f32_t)\n"
    "AK_XENT(f16, ak_f16_t)\n"
    "AK_XENT(bf16, ak_bf16_t)\n"
    "AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_partial(const float* loss, const ak_i64* tgt, ak_i64 rows,\n"
    "                                                          ak_i64 per, ak_i64 ignore_index, float* part) {\n"
    "    ak_xent_partial_body(loss, tgt, rows, per, ignore_index, part);\n"
    "}\n"
    "AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_mean(const float* part, int nparts, int mean, float* out) {\n"
    "    ak_xent_mean_body(part, nparts, mean != 0, out);\n"
    "}\n"
    ;

static const struct { const char* family; const char* source; const char* kernels; } _ak_embedded[] = {
    { "activation", _ak_src_activation,
      "ak_unary_f32 ak_unary_f16 ak_unary_bf16" },
    { "cast", _ak_src_cast,
      "ak_cast_f32_f16 ak_cast_f32_bf16 ak_cast_f16_f32 ak_cast_f16_bf16 ak_cast_bf16_f32 ak_cast_bf16_f16 ak_copy_f32 ak_copy_f16 ak_copy_bf16" },
    { "elementwise", _ak_src_elementwise,
      "ak_fill_f32 ak_fill_f16 ak_fill_bf16 ak_axpy_f32 ak_axpy_f16 ak_axpy_bf16 ak_scale_f32 ak_scale_f16 ak_scale_bf16 ak_binary_f32 ak_binary_f16 ak_binary_bf16" },
    { "norm", _ak_src_norm,
      "ak_norm_f32 ak_norm_f16 ak_norm_bf16 ak_norm_wide_f32 ak_norm_wide_f16 ak_norm_wide_bf16" },
    { "reduce", _ak_src_reduce,
      "ak_reduce_sum_f32 ak_reduce_sum_f16 ak_reduce_sum_bf16 ak_reduce_max_f32 ak_reduce_max_f16 ak_reduce_max_bf16 ak_reduce_min_f32 ak_reduce_min_f16 ak_reduce_min_bf16 ak_reduce_argmax_f32 ak_reduce_argmax_f16 ak_reduce_argmax_bf16 ak_reduce_argmin_f32 ak_reduce_argmin_f16 ak_reduce_argmin_bf16 ak_reduce2_sum ak_reduce2_max ak_reduce2_min ak_reduce2_argmax ak_reduce2_argmin" },
    { "softmax", _ak_src_softmax,
      "ak_softmax_f32 ak_softmax_f16 ak_softmax_bf16 ak_softmax_split_f32 ak_softmax_split_f16 ak_softmax_split_bf16 ak_softmax_stats_f32 ak_softmax_stats_f16 ak_softmax_stats_bf16 ak_softmax_apply_f32 ak_softmax_apply_f16 ak_softmax_apply_bf16" },
    { "transpose", _ak_src_transpose,
      "ak_transpose_f32 ak_transpose_f16 ak_transpose_bf16" },
    { "xent", _ak_src_xent,
      "ak_xent_f32 ak_xent_f16 ak_xent_bf16 ak_xent_partial ak_xent_mean" },
};
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
//<#akgen

/* ==========================================================================
 * Sections written as separate parts during development (inlined later).
 * ========================================================================== */
#include "parts/api.inc"
#ifndef AK_TYPECHECK_ONLY /* tests/typecheck_*.c stop after the entry-point lists */
#include "parts/arch.inc"
#include "parts/hash.inc"
#include "parts/cache.inc"
#include "parts/pool.inc"
#include "parts/prof.inc"
#include "parts/core.inc"   /* lead: backends, context, compile, launch, memory, streams */

/* ==========================================================================
 * >>impl:kernels  (the kernel library: host wrappers and CPU references)
 * ========================================================================== */
#include "parts/ops_common.inc"
#include "parts/ops_elementwise.inc"
#include "parts/ops_reduce.inc"
#endif /* AK_TYPECHECK_ONLY */

#endif /* AMDKIT_IMPLEMENTATION_DONE */
#endif /* AMDKIT_IMPLEMENTATION */
