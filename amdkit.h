/* amdkit.h - a single-file C toolkit for AMD GPUs over ROCm HIP and hipRTC
 * (and for NVIDIA GPUs through HIP's NVIDIA platform: CUDA driver + NVRTC).
 * MIT licence: see the LICENSE file next to this header (and at the end of this file).
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
 * Options (define before including the header, the same in every file):
 *   AMDKIT_STATIC            all functions are static (private to one file)
 *   AK_MALLOC(sz) AK_REALLOC(p,sz) AK_FREE(p)
 *                            compile-time allocator; define all three or none
 *   AMDKIT_NO_HIP            never load the HIP runtime or hipRTC: the hip
 *                            backend reports "compiled out", gfx targets
 *                            cannot be compiled offline
 *   AMDKIT_NO_CUDA           the same for the CUDA driver and NVRTC (cuda
 *                            backend, sm_ targets)
 *   AMDKIT_NO_OPS            drop the kernel library (>>decl:ops: ak_fill ...
 *                            ak_cross_entropy, ak_embedded_*) and its ~230 KB
 *                            of embedded sources; ak_kernel_get, the prelude and
 *                            everything else stay
 *   (run-time logger and allocator with user_data: see ak_config)
 *
 * Thread safety, in general: a context may be shared between threads; every
 * function says what holds for it on its doc line.
 *
 * BAD INPUT: what amdkit promises. Whatever a caller, an environment variable
 * or a file on disk hands it, the answer is an ak_result code and a message
 * (ak_last_error, thread-local), never an abort, a hang or heap corruption;
 * the library has no assert or exit on input, and a failed call leaves the
 * state it was given intact.
 *   - NULL, zero or huge sizes, mismatched shapes, unaligned pointers, bad
 *     enums: AK_ERROR_INVALID_ARGUMENT. Launch geometry is checked against the
 *     device's limits (ak_device_info.max_block / max_grid /
 *     max_threads_per_block) before anything is launched.
 *   - A pointer that ak_free / ak_host_free did not hand out, or one freed
 *     already: AK_ERROR_MEMORY, and nothing is freed.
 *   - Config fields and AMDKIT_* variables: AK_ERROR_CONFIG naming the field or
 *     the variable and its value; unknown targets AK_ERROR_UNSUPPORTED_TARGET
 *     before any compiler sees them.
 *   - The disk cache trusts nothing it reads (model: >>decl:compile, "Disk
 *     cache trust"): a bad entry is a miss, logged, and recompiled.
 * Tested by the suites under ASan/UBSan/TSan, fuzzing (tests/fuzz) and a
 * kill-the-writer test of the cache (make test).
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
 *   >>decl:autotune   timing a kernel (ak_bench_kernel), choosing among its variants (ak_autotune)
 *   >>decl:multi      several devices: peer access and copies, collectives (NCCL / RCCL / cpu threads)
 *
 *   >>impl:platform   includes, allocation, strings, mutexes, clocks, dlopen
 *   >>impl:result     errors (thread-local detail) and logging
 *   >>impl:context-struct  the context struct and the backend table type (_ak_backend_ops)
 *   >>impl:dtype      dtype names, fp16/bf16 host conversions
 *   >>impl:sources    embedded kernel sources + kernel interfaces (typed argument packers), generated from kernels/ by `make gen`
 *   >>impl:api        dlopen'ed entry points (one X-macro list per library)
 *   >>impl:arch       architecture table rows (with sources)
 *   >>impl:hash       SHA-256 and a fast 128-bit hash
 *   >>impl:cache      memory LRU + disk compile cache
 *   >>impl:pool       caching device memory allocator
 *   >>impl:prof       profiling regions, Chrome trace
 *   >>impl:config     defaults, env parsing, validation
 *   >>impl:backend    backend probing, the hip/cuda/cpu tables and the layer they share
 *   >>impl:context    context creation, device info, raw device operations
 *   >>impl:compile    target checks, options, hipRTC / NVRTC invocation, offline compile
 *   >>impl:launch     modules, kernels, launch, argument builder, ak_check
 *   >>impl:memory     copies, memset, pinned host memory (ak_malloc/ak_free: >>impl:pool)
 *   >>impl:stream     streams and events
 *   >>impl:multi      peers, stream waits, communicators (cpu reference over threads; NCCL / RCCL), groups
 *   >>impl:kernels    kernel library (AMDKIT_NO_OPS drops it): ak_prelude_source
 *   >>impl:ops        kernel library: shared op code (kernel memo, checks, launch sizing, interface-checked launch)
 *   >>impl:ops-elementwise  fill, copy, cast, axpy, scale, binary, unary, transpose + CPU references
 *   >>impl:ops-reduce reductions, softmax, layernorm, rmsnorm, cross-entropy (one row-chunked launch helper) + CPU references
 *   >>impl:ops-gemm   GEMM with fused epilogue: tile table, planning, launch, CPU reference
 *   >>impl:ops-attention  fused attention (SIMT, split/flash-decoding, matrix cores) + CPU reference
 *   >>impl:ops-llm    residual add + norm, RoPE, embedding gather, strided N-d copy + CPU references
 *   >>impl:ops-random  Philox random numbers (uniform, normal), dropout + bit-identical CPU references
 *   >>impl:ops-scan   cumsum (inclusive / exclusive scan), top-k + CPU references
 *   >>impl:autotune   kernel timing (events, L2 flush, restored inputs), autotuner + its stored choices
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

/* The config fields, one row each (sokol-style X-macro): C type, field,
 * kind, default, environment variable, range lo..hi, names, doc. The rows
 * generate the struct below, ak_config_default, ak_config_apply_env, the
 * per-field checks of ak_config_validate and the field listing
 * (ak_config_field_at / ak_config_field_value, used by `amdkit info`).
 * Kinds (each one parser + one check):
 *   BOOL  0/1; env on|off, 1|0, true|false, yes|no
 *   TRI   AK_AUTO/AK_OFF/AK_ON; env auto|on|off (and the BOOL spellings)
 *   ENUM  a value of the names table; env one of the names
 *   INT   integer in lo..hi;  BYTES  byte count in lo..hi, env with k/m/g suffix
 *   SEG   like BYTES, and a multiple of the pool's 2 MiB segment (0 = none)
 *   FRAC  number in (lo, hi]
 *   PREC  -1 (auto) or a floating-point dtype; env auto|f32|f16|bf16|fp8_e4m3|fp8_e5m2
 *   MASK  AK_DTYPE_BIT() mask of floating-point dtypes; env f32,f16,...
 *   STR   string, NULL = unset;  PATH  string shorter than hi characters
 * A value from the environment that fails its check is AK_ERROR_CONFIG naming
 * the variable (AMDKIT_POOL_SIZE='-5k'); one set in code names the field
 * (config.pool_size). Checks across fields (precision within
 * allowed_precisions, known arch) are ak_config_validate's. */
#define AK_CONFIG_FIELDS(X) \
    X(ak_backend, backend, ENUM, AK_BACKEND_AUTO, "AMDKIT_BACKEND", 0, 0, _ak_backend_names, \
      "backend: auto tries hip, then cuda, then cpu; a forced one that is unavailable is an error") \
    X(const char*, arch, STR, NULL, "AMDKIT_ARCH", 0, 0, NULL, \
      "target architecture: NULL or \"auto\" = the device's, else e.g. \"gfx90a\"") \
    X(int, device, INT, 0, "AMDKIT_DEVICE", 0, INT_MAX, NULL, "device ordinal") \
    X(ak_opt_level, opt_level, ENUM, AK_OPT_AUTO, "AMDKIT_OPT_LEVEL", 0, 0, _ak_opt_level_names, \
      "optimization level; auto = the architecture's recommendation") \
    X(ak_tristate, matrix_cores, TRI, AK_AUTO, "AMDKIT_MATRIX_CORES", 0, 0, NULL, \
      "matrix cores (MFMA/WMMA/MMA); auto = the architecture's recommendation") \
    X(ak_tristate, mixed_precision, TRI, AK_AUTO, "AMDKIT_MIXED_PRECISION", 0, 0, NULL, \
      "mixed precision; auto = on unless the precision is f32") \
    X(int, precision, PREC, -1, "AMDKIT_PRECISION", 0, 0, NULL, \
      "default precision: -1 = auto (the architecture's), or AK_F32/AK_F16/AK_BF16/AK_FP8_*") \
    X(unsigned, allowed_precisions, MASK, 0u, "AMDKIT_ALLOWED_PRECISIONS", 0, 0, NULL, \
      "mask of AK_DTYPE_BIT() the library may use; 0 = f32|f16|bf16") \
    X(int, operator_fusion, BOOL, 1, "AMDKIT_FUSION", 0, 0, NULL, "operator fusion") \
    X(int, pool_enabled, BOOL, 1, "AMDKIT_POOL", 0, 0, NULL, "caching memory pool (off: every ak_malloc goes to the runtime)") \
    X(long long, pool_size, SEG, 0, "AMDKIT_POOL_SIZE", 0, LLONG_MAX, NULL, \
      "bytes the pool may reserve, a multiple of 2 MiB; 0 = no limit but max_memory_fraction") \
    X(double, max_memory_fraction, FRAC, 0.9, "AMDKIT_MAX_MEMORY_FRACTION", 0, 1, NULL, \
      "fraction of device memory the pool may reserve, in (0, 1]") \
    X(int, oom_protection, BOOL, 1, "AMDKIT_OOM_PROTECTION", 0, 0, NULL, \
      "on an allocation failure release cached blocks and retry once") \
    X(int, cache_enabled, BOOL, 1, "AMDKIT_CACHE", 0, 0, NULL, "compile cache") \
    X(int, cache_capacity, INT, 100, "AMDKIT_CACHE_CAPACITY", 1, INT_MAX, NULL, "entries of the memory LRU") \
    X(int, disk_cache, BOOL, 1, "AMDKIT_DISK_CACHE", 0, 0, NULL, "disk level of the compile cache") \
    X(const char*, cache_dir, PATH, NULL, "AMDKIT_CACHE_DIR", 0, 400, NULL, \
      "disk cache directory; NULL = $AMDKIT_CACHE_DIR, $XDG_CACHE_HOME/amdkit, ~/.cache/amdkit; " \
      "a relative path is made absolute (against the current directory) when a context is created") \
    X(long long, cache_max_bytes, BYTES, 256ll << 20, "AMDKIT_CACHE_MAX_BYTES", 0, LLONG_MAX, NULL, \
      "disk cache cap in bytes; 0 = no cap") \
    X(long long, cache_max_entry_bytes, BYTES, 64ll << 20, "AMDKIT_CACHE_MAX_ENTRY_BYTES", 4096, LLONG_MAX, NULL, \
      "largest disk cache entry read, in bytes: a bigger file at an entry's path is never read") \
    X(int, cache_trusted, BOOL, 0, "AMDKIT_CACHE_TRUSTED", 0, 0, NULL, \
      "0: serve only disk entries owned by this user and not writable by group/others; " \
      "1: trust every entry (a shared, managed cache directory)") \
    X(int, profiling, BOOL, 0, "AMDKIT_PROFILE", 0, 0, NULL, "profiling regions record (ak_prof_*)") \
    X(int, strict, BOOL, 0, "AMDKIT_STRICT", 0, 0, NULL, \
      "a feature the architecture lacks is an error (1) or downgraded with a warning (0)") \
    X(ak_log_level, log_level, ENUM, AK_LOG_WARN, "AMDKIT_LOG", 0, 0, _ak_log_level_names, \
      "messages at or above this level go to the logger")

typedef struct ak_config {
#define AK_X_(type, name, kind, def, env, lo, hi, names, doc) type name;
    AK_CONFIG_FIELDS(AK_X_)
#undef AK_X_
    ak_log_fn logger;            /* NULL: print to stderr */
    void* logger_user_data;
    ak_allocator allocator;      /* all NULL: AK_MALLOC/AK_FREE; used for the context and its streams, events and kernel handles */
} ak_config;

/* Documented defaults (the table's), no environment applied. Thread safety: any thread. */
AKAPI ak_config ak_config_default(void);
/* Overlay AMDKIT_* environment variables on *cfg (the table's env column); a
 * malformed or out-of-range value is AK_ERROR_CONFIG naming the variable and
 * value, and leaves *cfg untouched. Thread safety: reads the environment; do
 * not race with setenv. */
AKAPI ak_result ak_config_apply_env(ak_config* cfg);
/* Check every field; arch may be NULL (then only arch-independent checks).
 * In strict mode a feature the architecture lacks is an error
 * (AK_ERROR_MATRIX_CORES for matrix_cores on, AK_ERROR_CONFIG for fp8); else
 * *cfg (if not const-needed, pass fixed != NULL) gets the downgraded copy.
 * Thread safety: any thread. */
AKAPI ak_result ak_config_validate(const ak_config* cfg, const ak_arch_info* arch, ak_config* fixed);

/* One config field as the table describes it. */
typedef struct ak_config_field {
    const char* name;     /* "pool_size" */
    const char* env;      /* "AMDKIT_POOL_SIZE" */
    const char* doc;
} ak_config_field;
/* Number of table fields. Thread safety: any thread. */
AKAPI int ak_config_field_count(void);
/* Field i (0 .. count-1), NULL outside. Thread safety: any thread. */
AKAPI const ak_config_field* ak_config_field_at(int i);
/* Field i of *cfg as text, in the env variable's spelling ("auto", "on",
 * "2097152", "f32,f16", "(unset)"). Thread safety: any thread. */
AKAPI ak_result ak_config_field_value(const ak_config* cfg, int i, char* buf, size_t buf_size);
/* What field i's environment variable accepts, as text ("auto, hip, cuda or
 * cpu", "on or off (1/0, true/false, yes/no)", "integer >= 1", ...); the
 * README's configuration table is generated from this, the value and the doc
 * (`amdkit info --config-markdown`). Thread safety: any thread. */
AKAPI ak_result ak_config_field_syntax(int i, char* buf, size_t buf_size);
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
    const char* features;          /* target-ID features it takes, in canonical order: "sramecc,xnack", "xnack" or "" */
};

/* Find a row by name; feature suffixes (":sramecc+:xnack-") and aliases are
 * accepted; "sm_90a" maps to sm_90; a family name ("CDNA3", "RDNA4", "Hopper",
 * any case) maps to the family's representative row, the first of the family
 * in the table (`amdkit arch` lists them). AK_ERROR_NOT_FOUND for an unknown
 * name. Only the row is looked up: ak_target_id_parse validates features.
 * Thread safety: any thread. */
AKAPI ak_result ak_arch_find(const char* name, const ak_arch_info** out);
/* A parsed target ID: processor plus optional features, as LLVM's AMDGPU
 * target IDs spell them ("gfx90a", "gfx90a:xnack-", "gfx90a:sramecc+:xnack-"),
 * or an NVIDIA "sm_90" / "sm_90a". */
typedef struct ak_target_id {
    char processor[32];            /* "gfx90a" (lower case) */
    int sramecc;                   /* 1 "sramecc+", 0 "sramecc-", -1 not given */
    int xnack;                     /* 1 "xnack+", 0 "xnack-", -1 not given */
    char canonical[64];            /* processor + features in canonical order: what compilers get */
    const ak_arch_info* info;      /* table row of the processor, NULL if not in the table */
} ak_target_id;
/* Parse and validate a target ID before it reaches any compiler: each feature
 * is "sramecc" or "xnack" followed by '+' or '-', at most once, in that order,
 * and only on processors whose table row lists it (ak_arch_info.features); a
 * processor outside the table takes no features. The processor's case is
 * ignored (out->canonical is lower case). A family name is not a target ID.
 * AK_ERROR_INVALID_ARGUMENT with what is wrong and what is expected.
 * Thread safety: any thread. */
AKAPI ak_result ak_target_id_parse(const char* id, ak_target_id* out);
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
    char compiler_version[64];     /* "hipRTC 5.2", "NVRTC 13.0"; cpu backend after ak_context_probe: the offline compilers */
    char runtime_library[256];     /* path of the runtime library loaded */
    char compiler_library[256];    /* path of the compiler library loaded */
    int fp16;                      /* fp16 arithmetic: probed on the device */
    int bf16;                      /* bf16 conversions: probed on the device */
    char visible_devices[256];     /* every one of HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
                                      CUDA_VISIBLE_DEVICES that is set ("CUDA_VISIBLE_DEVICES=1,0"), or "" */
    char pci_bus_id[32];           /* "0000:c1:00.0", or "" where the runtime gives none */
    char uuid[40];                 /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (cuda), the runtime's
                                      UUID (hip), or "" where it gives none */
    char library_search[400];      /* why those files: "runtime: ROCM_PATH=/opt/rocm-6.4.0; hipRTC: ..." (ROCm search
                                      order: ROCM_PATH, HIP_PATH, /opt/rocm, /opt/rocm-* newest first, loader path) */
    int max_threads_per_block;     /* launch limits (device attributes; the cpu backend uses NVIDIA's, the strictest): */
    int max_block[3];              /*   block dimensions x, y, z */
    int max_grid[3];               /*   grid dimensions x, y, z (in blocks) */
} ak_device_info;

/* Create a context. cfg NULL: ak_config_default() + environment. With cfg
 * given, the environment is NOT applied (call ak_config_apply_env yourself).
 * Errors: AK_ERROR_CONFIG, AK_ERROR_MATRIX_CORES (strict config asking for
 * matrix cores the architecture lacks), AK_ERROR_BACKEND_UNAVAILABLE (forced backend
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
/* Refresh mem_free in the device info. Thread safety: any thread; the fields
 * are stored atomically (read them with an atomic load, e.g. __atomic_load_n,
 * while another thread may refresh). */
AKAPI ak_result ak_context_refresh_memory(ak_context* ctx);
/* Wait for all work on the device. Thread safety: any thread. */
AKAPI ak_result ak_device_synchronize(ak_context* ctx);

/* Devices of a backend, without creating a context. backend AUTO: the one
 * ak_context_create(NULL) would select (AMDKIT_BACKEND, else hip, cuda, cpu).
 * The cpu backend has 1 device. The runtimes apply HIP_VISIBLE_DEVICES /
 * ROCR_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES: ordinals count visible devices.
 * Errors: AK_ERROR_BACKEND_UNAVAILABLE / AK_ERROR_NO_DEVICE (why, in the
 * message). Thread safety: any thread. */
AKAPI ak_result ak_device_count(ak_backend backend, int* count);
/* Description of device `index` of a backend (AUTO as above) without creating
 * a context: name, arch, memory (mem_total; mem_free 0, as a free-memory query
 * needs a context), PCI bus id, UUID, runtime; fp16/bf16 -1 (not probed).
 * Index out of range: AK_ERROR_INVALID_ARGUMENT. Thread safety: any thread. */
AKAPI ak_result ak_device_get_info(ak_backend backend, int index, ak_device_info* out);

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
/* Can the compiler this context would load build `target` (a target ID:
 * "gfx942", "gfx90a:sramecc+:xnack-", "sm_90")? Parses the target ID, loads
 * hipRTC or NVRTC and asks it (comgr's ISA list for hipRTC, NVRTC's supported
 * archs), without compiling. AK_ERROR_INVALID_ARGUMENT for a malformed ID,
 * AK_ERROR_UNSUPPORTED_TARGET for an unknown target or one that needs a newer
 * compiler (the message says which), AK_ERROR_BACKEND_UNAVAILABLE when no
 * compiler loads. Thread safety: any thread. */
AKAPI ak_result ak_compile_target_check(ak_context* ctx, const char* target);
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
/* What the disk level holds now, across every process sharing the directory. */
typedef struct ak_cache_disk_usage {
    unsigned long long entries;       /* code objects (*.akc files) */
    unsigned long long bytes;         /* their total size */
    long long oldest, newest;         /* modification times, seconds since the epoch (0: no entry) */
    long long max_bytes;              /* the cap (config.cache_max_bytes), 0 = none */
} ak_cache_disk_usage;
/* Scan the disk cache directory (all zero when there is none). Thread
 * safety: any thread (entries other processes write meanwhile may or may not
 * be counted). */
AKAPI ak_result ak_cache_disk_usage_get(ak_context* ctx, ak_cache_disk_usage* out);
/* Disk cache trust. Entries live in dir/<2 hex>/<64 hex>.akc (dir: config
 * cache_dir, else AMDKIT_CACHE_DIR, $XDG_CACHE_HOME/amdkit, ~/.cache/amdkit),
 * each a header (magic, format version, SHA-256 key digest, size, SHA-256 of
 * the payload) and the code object. A lookup serves an entry only if all of
 * this holds, checked before any byte reaches the module loader or the
 * caller, else it is a miss (logged as a warning, counted in disk_errors,
 * recompiled):
 *   - it is a regular file, opened with O_NONBLOCK | O_NOFOLLOW (a FIFO,
 *     device, directory or symlink at the path is refused, never waited on
 *     or followed);
 *   - it is owned by this process's effective user and not writable by group
 *     or others, unless config.cache_trusted (AMDKIT_CACHE_TRUSTED=1) says the
 *     directory is a trusted shared cache; entries amdkit writes are 0644
 *     whatever the umask;
 *   - it is at most config.cache_max_entry_bytes (64 MiB) long: a larger
 *     file is not read at all;
 *   - header, key digest and payload checksum verify;
 *   - the payload is a code object for the target: an ELF64 for EM_AMDGPU
 *     whose note names amdgcn-amd-amdhsa--<gfx> (or a clang offload bundle
 *     with that entry), or an ELF64 cubin for EM_CUDA whose e_flags give sm_NN.
 * A corrupt file of ours is removed; a refused file that is not ours (owner,
 * mode, type) is left alone. Entries are written to a temp file and renamed
 * over the final name, so a process killed mid-write leaves at most a
 * *.tmp file (removed by the size cap's scan after an hour, or by a purge),
 * never a torn entry. The checksum is against accidents and the owner/mode
 * checks against other users; a process running as you can write anything
 * your files can hold, so the directory is as trusted as your account.
 * An entry over the disk cap (or the entry limit) is not written, with one
 * warning per cache. */
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
/* The kernel's name, as given to ak_kernel_get ("" for NULL). Thread safety: any thread. */
AKAPI const char* ak_kernel_name(const ak_kernel* k);
/* The target its code was built for ("gfx90a:sramecc+:xnack-", "sm_90"), or
 * "cpu" when no device code was built (cpu backend); "" for NULL.
 * Thread safety: any thread. */
AKAPI const char* ak_kernel_target(const ak_kernel* k);
/* Size in bytes of the code object holding the kernel (its whole family), 0
 * when none was built. Thread safety: any thread. */
AKAPI size_t ak_kernel_code_size(const ak_kernel* k);

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
/* Page-locked host memory for fast async copies (plain host memory on cpu).
 * ak_context_destroy frees what is still allocated. Thread safety: any thread. */
AKAPI ak_result ak_host_alloc(ak_context* ctx, size_t bytes, void** out);
/* Free ak_host_alloc memory of this context. NULL ok. A pointer this context
 * did not hand out, or one freed already, is AK_ERROR_MEMORY and nothing is
 * freed (never passed to free()). Thread safety: any thread. */
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
/* Scope macros: AK_PROF_SCOPE(ctx, "step") { ... } times the default stream,
 * AK_PROF_SCOPE_STREAM(ctx, "step", stream) { ... } the work queued on a named
 * stream (C99 / C++; do not `break`, `return` or `goto` out of it; nested
 * scopes on separate lines are -Wshadow clean). */
#define AK_PROF_SCOPE(ctx, name) AK_PROF_SCOPE_(ctx, name, NULL, AK_PROF_CAT_(ak_prof_once_, __LINE__))
#define AK_PROF_SCOPE_STREAM(ctx, name, stream) AK_PROF_SCOPE_(ctx, name, stream, AK_PROF_CAT_(ak_prof_once_, __LINE__))
#define AK_PROF_CAT2_(a, b) a##b
#define AK_PROF_CAT_(a, b) AK_PROF_CAT2_(a, b)
#define AK_PROF_SCOPE_(ctx, name, stream, v) \
    for (int v = (ak_prof_begin((ctx), (name), (stream)), 1); v; v = (ak_prof_end(ctx), 0))
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
/* The portable prelude every kernel source is compiled with (defines AK_WAVE
 * defaults, AK_KERNEL, fp16/bf16 conversions, wave shuffles, block reductions).
 * Static string. Thread safety: any thread. */
AKAPI const char* ak_prelude_source(void);

/* Reductions (ak_reduce, and the collectives of >>decl:multi). */
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

#ifndef AMDKIT_NO_OPS   /* AMDKIT_NO_OPS drops the kernel library (below) and its embedded sources */
/* Kernel sources embedded in this header (kernels/<family>.hip, generated by
 * `make gen`). Number of families. Thread safety: any thread. */
AKAPI int ak_embedded_count(void);
/* Family i (0 <= i < ak_embedded_count()): its name ("elementwise"), its HIP
 * source (without the prelude) and the space-separated names of its extern "C"
 * kernels. Any output pointer may be NULL. AK_ERROR_INVALID_ARGUMENT for an
 * index out of range. The strings are static. Thread safety: any thread. */
AKAPI ak_result ak_embedded_at(int i, const char** family, const char** source, const char** kernel_names);
/* ---- argument order of every op (one rule for the whole op API) ---------
 *   ctx, the op selector and dtype(s), the pointers (inputs, then outputs),
 *   the sizes (n, or rows and cols, ...), scalar parameters, the stream:
 *     ak_axpy(ctx, dtype, x, y, n, alpha, stream)
 *     ak_reduce(ctx, op, dtype, x, out, rows, cols, stream)
 *   New ops follow it. */
/* ---- element-wise ops  ------------------------------------------------
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
AKAPI ak_result ak_axpy(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t n, float alpha,
                        ak_stream* stream);
/* y[i] = alpha * x[i]; y == x allowed (in place). Thread safety: any thread. */
AKAPI ak_result ak_scale(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t n, float alpha,
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
 * row-major (y[c * rows + r] = x[r * cols + c]); any shape (rows == 1 or
 * cols == 1: one device copy, the bytes are the same); x and y must not
 * overlap. Thread safety: any thread. */
AKAPI ak_result ak_transpose(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t rows, size_t cols,
                             ak_stream* stream);
/* ---- reductions, softmax, norms, cross-entropy  ------------------------
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

/* out[r] = op(x[r, 0..cols)) for r < rows. out holds rows elements: fp32
 * (float) for SUM / MEAN / MAX / MIN whatever the input dtype, int64_t for
 * ARGMAX / ARGMIN; it must not overlap x. Large rows (and rows = 1) run as
 * two passes: per-chunk partials, then a fixed-order combine.
 * Thread safety: any thread. */
AKAPI ak_result ak_reduce(ak_context* ctx, ak_reduce_op op, ak_dtype dtype, const void* x, void* out, size_t rows,
                          size_t cols, ak_stream* stream);

/* Softmax along the last dimension: y[r, c] = exp(x[r, c] - m) / sum_c exp(x[r, c] - m),
 * m = max of the row (numerically stable); log_softmax != 0: y = x - m - log(sum).
 * A row with a NaN gives NaN; -inf entries give 0 (-inf). Any width; the
 * kernel per shape comes from the row-op table (>>impl:ops-reduce,
 * _ak_rowop_table): rows up to 16384 wide held in registers, wider ones split
 * over several co-operating blocks (one read and one write of x in both
 * cases) or one block per row with a second read of the row from L2; rows
 * past 8192 x compute units (f16 / bf16: past 131072), and every row wider
 * than 16384 at AK_OPT_CONSERVATIVE, take a second read of x instead.
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
                                 float* loss, size_t rows, size_t cols, int64_t ignore_index,
                                 ak_loss_reduction reduction, ak_stream* stream);
/*@AKOPS_DECL_REDUCE@*/
/* ---- LLM building blocks: residual + norm, RoPE, embedding, strided copy --
 * Common rules as above (pointers are device memory of ctx, host memory on
 * the cpu backend; queued on `stream`, NULL: default; AK_ERROR_INVALID_ARGUMENT
 * with a message and nothing launched for bad arguments; fp32 math for
 * f16 / bf16 storage; the cpu backend runs a C reference in double). */

/* Residual add + norm, fused (the transformer block's hot path):
 * h = x + r (rounded to dtype, written to h), y = layernorm(h) with optional
 * weight / bias (ak_add_rmsnorm: y = rmsnorm(h) with optional weight), the
 * statistics of the rounded h as the unfused `h = x + r; y = norm(h)` computes
 * them. x, r, h, y: rows x cols of dtype (f32, f16, bf16); weight, bias: cols
 * elements or NULL. One read of x and r, one write of h and y for rows up to
 * 16384 wide (wider rows read h back once). h may be the very same buffer as
 * x or r (the usual in-place residual stream), y too, but h and y must not
 * overlap each other; weight and bias must not overlap h or y.
 * eps >= 0 and finite. Thread safety: any thread. */
AKAPI ak_result ak_add_layernorm(ak_context* ctx, ak_dtype dtype, const void* x, const void* r, const void* weight,
                                 const void* bias, void* h, void* y, size_t rows, size_t cols, float eps,
                                 ak_stream* stream);
/* See ak_add_layernorm: y = h / sqrt(mean(h^2) + eps) * weight, h = x + r.
 * Thread safety: any thread. */
AKAPI ak_result ak_add_rmsnorm(ak_context* ctx, ak_dtype dtype, const void* x, const void* r, const void* weight,
                               void* h, void* y, size_t rows, size_t cols, float eps, ak_stream* stream);

/* Pairing convention of ak_rope. */
typedef enum ak_rope_mode {
    AK_ROPE_NEOX = 0,         /* rotate-half (GPT-NeoX, Llama in Hugging Face): pairs (i, i + rotary_dim / 2) */
    AK_ROPE_INTERLEAVED = 1,  /* GPT-J / Meta's original Llama: pairs (2i, 2i + 1) */
    AK_ROPE_MODE_COUNT
} ak_rope_mode;

/* Rotary position embedding of x, a contiguous [tokens][heads][head_dim]
 * tensor of dtype (f32, f16, bf16), into y (same shape; y == x: in place;
 * other overlaps are errors). positions: tokens integers of pos_dtype
 * (AK_I32 or AK_I64), any values. Pair i < rotary_dim / 2 of every head of
 * token t turns by a = (float)positions[t] * inv_freq[i] with
 * inv_freq[i] = theta^(-2i / rotary_dim) rounded to fp32 (the fp32 angle of
 * Hugging Face's rotary embedding; positions past 2^24 round to fp32);
 * (u, v) -> (u cos a - v sin a, v cos a + u sin a). cos and sin are computed
 * in double from that fp32 angle (accurate at any position: fast fp32 sin /
 * cos lose several bits at angles of 10^4 rad and more; a cos / sin cache
 * tensor would add a second input stream and a workspace, while the double
 * evaluation costs one per token and pair, shared by all heads) and rounded
 * to fp32; the rotation is fp32. Elements rotary_dim..head_dim-1 are copied.
 * rotary_dim even, 2 <= rotary_dim <= head_dim, rotary_dim <= 1024;
 * heads * head_dim < 2^31; theta > 0 and finite (10000 for Llama 2, 500000
 * for Llama 3). Vector path: x, y 16-byte aligned and head_dim, rotary_dim
 * multiples of 8. Thread safety: any thread. */
AKAPI ak_result ak_rope(ak_context* ctx, ak_rope_mode mode, ak_dtype dtype, ak_dtype pos_dtype, const void* x,
                        const void* positions, void* y, size_t tokens, size_t heads, size_t head_dim,
                        size_t rotary_dim, float theta, ak_stream* stream);

/* Embedding gather: out[i, :] = table[indices[i], :] for i < num_indices;
 * table is vocab x dim of dtype (any dtype: a bit copy), indices AK_I32 or
 * AK_I64, out num_indices x dim (must not overlap table or indices). An index
 * outside [0, vocab) cannot be checked without reading device memory: the GPU
 * kernels zero-fill that output row and return AK_OK; the cpu backend
 * zero-fills it too and then returns AK_ERROR_INVALID_ARGUMENT naming the
 * first such position and its value. Rows move in 16-byte pieces when the row
 * bytes and the pointers allow. Thread safety: any thread. */
AKAPI ak_result ak_embedding(ak_context* ctx, ak_dtype dtype, ak_dtype idx_dtype, const void* table,
                             const void* indices, void* out, size_t num_indices, size_t vocab, size_t dim,
                             ak_stream* stream);

/* Most dimensions of ak_copy_strided. */
#define AK_COPY_MAX_DIMS 6

/* Strided N-dimensional copy with a cast: for every index (i0, .., i_{n-1})
 * of shape[0..ndim), dst[sum i_k * dst_strides[k]] =
 * (dst_dtype) src[sum i_k * src_strides[k]], strides in elements (of each
 * tensor's own dtype), pointers at element (0, .., 0). The generic permute /
 * slice / concat / expand building block: a permute is a copy with permuted
 * source strides, a slice a copy from an offset pointer, a concat two copies
 * into offset pointers of one output, a broadcast a source stride of 0.
 * 1 <= ndim <= AK_COPY_MAX_DIMS, every shape[k] >= 1. Strides may be
 * negative (a reversed view) or, for the source, 0; the destination strides
 * must not make two indices write one element (checked), and the two
 * tensors' extents must not overlap unless src == dst with the same dtype and
 * strides (a no-op). Same dtype: any dtype, a bit copy; different dtypes:
 * between f32, f16 and bf16 (round to nearest even). Fast paths: the
 * dimensions are ordered by destination stride and merged where contiguous;
 * when the innermost is contiguous in both tensors, rows move in units of up
 * to 16 bytes (the bandwidth of ak_copy); a permute that moves the innermost
 * dimension reads it with a stride (ak_transpose is the fast 2-D transpose).
 * Thread safety: any thread. */
AKAPI ak_result ak_copy_strided(ak_context* ctx, ak_dtype src_dtype, ak_dtype dst_dtype, const void* src, void* dst,
                                size_t ndim, const size_t* shape, const int64_t* src_strides,
                                const int64_t* dst_strides, ak_stream* stream);
/* ---- GEMM: matrix multiplication with a fused epilogue ------------------
 *   D = act(alpha * op(A) * op(B) + beta * C + bias) + residual
 * row-major; op(X) = X or X^T per operand; op(A) is m x k, op(B) k x n, D
 * m x n. A and B have dtype `dtype` (AK_F32, AK_F16 or AK_BF16); D, C, bias
 * and residual have `out_dtype` (dtype itself or AK_F32). Products accumulate
 * in fp32. Column-major callers: a column-major X is a row-major X^T, so
 * compute D^T = op(B)^T op(A)^T, i.e. swap A and B (and m and n) and keep
 * the leading dimensions. BLAS conventions: beta == 0 never reads C (C may
 * be NULL, NaN in C does not leak); any m, n, k >= 1; leading dimensions of
 * at least the stored row length (0: exactly that); pointers aligned to the
 * element size (16-byte aligned pointers and leading dimensions that are a
 * multiple of 8 elements take the vector path, anything else a slower
 * element-wise path). D may be C or residual (same pointer and leading
 * dimension: in place); other overlaps of D with an input are errors.
 * Batched strided: batch >= 1 problems, problem i at X + i * stride_x
 * (elements; stride 0 reuses one matrix, except for D).
 * Precision: f16 / bf16 run on the matrix cores where the architecture has
 * them and config.matrix_cores is on (MFMA on CDNA, WMMA on RDNA3 / RDNA4,
 * mma.sync on NVIDIA sm_80+), else on FMAs. f32 stays exact fp32 (MFMA
 * f32 on CDNA, FMAs elsewhere) unless config.precision is below f32 and
 * config.mixed_precision is on: then f32 runs as TF32 (NVIDIA) / xf32
 * (gfx94x) where the hardware has it. The input dtype must be in
 * config.allowed_precisions. config.strict makes a matrix-core request the
 * device cannot honour an AK_ERROR_MATRIX_CORES error instead of a fallback.
 * The cpu backend runs a threaded C reference (double accumulation, TF32
 * rounding of the inputs when the TF32 path would be chosen).
 * Thread safety: any thread. */
typedef struct ak_gemm_desc {
    ak_dtype dtype;               /* A, B: AK_F32, AK_F16, AK_BF16 */
    ak_dtype out_dtype;           /* D, C, bias, residual: dtype or AK_F32 */
    const void* a;                /* stored m x k (trans_a = 0) or k x m (trans_a = 1) */
    const void* b;                /* stored k x n (trans_b = 0) or n x k (trans_b = 1) */
    const void* c;                /* m x n, read only when beta != 0 */
    const void* bias;             /* NULL or n values, added to every row */
    const void* residual;         /* NULL or m x n, added after the activation */
    void* d;                      /* m x n output */
    size_t m, n, k;               /* each >= 1 (and < 2^31) */
    size_t lda, ldb, ldc, ldd, ldr;   /* leading dimensions in elements (0: packed) */
    int trans_a, trans_b;         /* 0 or 1 */
    float alpha, beta;
    int activation;               /* -1: none, else an ak_unary_op (applied after the bias) */
    float act_param;              /* slope of AK_OP_LEAKY_RELU */
    size_t batch;                 /* problems, >= 1 */
    size_t stride_a, stride_b, stride_c, stride_d, stride_r;  /* elements between problems */
} ak_gemm_desc;

/* A descriptor with alpha = 1, beta = 0, no activation, batch 1, dtype and
 * out_dtype AK_F32, everything else 0 / NULL. Thread safety: any thread. */
AKAPI ak_gemm_desc ak_gemm_desc_default(void);

/* How ak_gemm would run a descriptor on ctx (nothing is launched). */
typedef struct ak_gemm_plan {
    char kernel[64];      /* kernel name, "" on the cpu backend without a named arch */
    const char* path;     /* "mfma", "wmma", "mma.sync", "wgmma", "simt", "skinny" (m <= 16) or "cpu" */
    int bm, bn, bk;       /* block tile */
    int threads;          /* per block */
    size_t shared_bytes;  /* dynamic shared memory per block */
    int fast32;           /* 1: f32 inputs as TF32 / xf32 */
    const char* reason;   /* why this tile (the tile table's row) */
} ak_gemm_plan;
/* Plan a descriptor for ctx's device (config.arch when set, so a cpu context
 * can plan for "gfx90a"). Same argument checks as ak_gemm.
 * Thread safety: any thread. */
AKAPI ak_result ak_gemm_plan_get(ak_context* ctx, const ak_gemm_desc* g, ak_gemm_plan* out);
/* Run the descriptor on `stream` (NULL: default). Thread safety: any thread. */
AKAPI ak_result ak_gemm(ak_context* ctx, const ak_gemm_desc* g, ak_stream* stream);
/* ---- attention  ----------------------------------------------------------
 * Fused attention forward (flash-attention style: one pass over K and V with
 * an online softmax in fp32; the seq_q x seq_kv scores are never stored). */

/* Memory layout of q, k, v and o in ak_attention_args. */
typedef enum ak_attention_layout {
    AK_ATTN_BHSD = 0,     /* [batch][heads][seq][head_dim], contiguous */
    AK_ATTN_BSHD = 1,     /* [batch][seq][heads][head_dim], contiguous */
    AK_ATTN_STRIDED = 2,  /* element strides of batch, head, seq in *_stride[0..2]; head_dim contiguous */
    AK_ATTN_LAYOUT_COUNT
} ak_attention_layout;

/* Arguments of ak_attention (zero-initialize, then fill; zero means the default
 * where a field says so). Shapes: q and o are batch x heads_q x seq_q x
 * head_dim, k and v batch x heads_kv x seq_kv x head_dim, heads_q a multiple of
 * heads_kv (MHA: equal; GQA; MQA: heads_kv = 1); query head h uses kv head
 * h / (heads_q / heads_kv). */
typedef struct ak_attention_args {
    ak_dtype dtype;              /* of q, k, v, o: AK_F16, AK_BF16 (fast paths) or AK_F32; math in fp32 */
    size_t batch, heads_q, heads_kv, seq_q, seq_kv, head_dim;   /* all >= 1; head_dim <= 256 */
    const void* q;
    const void* k;
    const void* v;
    void* o;                     /* must not overlap q, k, v or lse */
    float* lse;                  /* optional (NULL): per-row natural log-sum-exp of the scaled, masked
                                    scores, fp32, contiguous [batch][heads_q][seq_q]; -inf for a row
                                    that sees no key */
    ak_attention_layout layout;  /* AK_ATTN_BHSD (0) */
    int64_t q_stride[3], k_stride[3], v_stride[3], o_stride[3];  /* AK_ATTN_STRIDED only: elements, >= 0 */
    float scale;                 /* scores = scale * q.k; 0: 1 / sqrt(head_dim) */
    int causal;                  /* 1: causal mask aligned bottom-right (FlashAttention 2 convention): query i
                                    sees keys j <= i + seq_kv - seq_q; rows that see no key (seq_q > seq_kv)
                                    get O = 0 and lse = -inf */
    int num_splits;              /* split of seq_kv over blocks (flash-decoding): 0 automatic (used when
                                    the (batch, head, query) work alone cannot fill the GPU, e.g. seq_q
                                    1..16 against a long K/V), 1 never, N: N splits (at most 128) */
} ak_attention_args;

/* Name of a layout ("bhsd", "bshd", "strided"); "?" if unknown. Thread safety: any thread. */
AKAPI const char* ak_attention_layout_name(ak_attention_layout layout);

/* O = softmax(scale * Q K^T + mask) V per (batch, query head), mask = the
 * causal mask when args->causal (bottom-right aligned when seq_q != seq_kv, as
 * FlashAttention 2), optional per-row logsumexp into args->lse. Pointers are
 * device memory of ctx (host memory on the cpu backend), aligned to the
 * element size. Paths (chosen from the device, dtype and head_dim): matrix
 * cores where the arch has them and ctx's matrix_cores is not off (f16/bf16),
 * else a SIMT kernel for every arch and head_dim <= 256; small seq_q against
 * long K/V splits K/V over blocks and combines (workspace from the pool on
 * `stream`). The cpu backend runs a C reference with double accumulation.
 * Queued on `stream` (NULL: default), returns without waiting. Errors:
 * AK_ERROR_INVALID_ARGUMENT with a message (nothing launched),
 * AK_ERROR_OUT_OF_MEMORY (workspace), AK_ERROR_COMPILATION / AK_ERROR_LAUNCH.
 * Thread safety: any thread. */
AKAPI ak_result ak_attention(ak_context* ctx, const ak_attention_args* args, ak_stream* stream);
/* ---- random numbers, dropout  ---------------------------------------------
 * Counter-based Philox4x32-10 (Salmon et al., SC'11), reproducible from
 * (seed, offset) alone and BIT-IDENTICAL on every backend (cpu, hip, cuda):
 * element i of a call uses word i % 4 of philox4x32_10(counter
 * (lo32(c), hi32(c), 0, 0) with c = offset + i / 4, key (lo32(seed),
 * hi32(seed))). A call of n elements consumes the counters offset ..
 * offset + ceil(n / 4) - 1: pass offset + ceil(n / 4) to the next call for a
 * fresh stream, or regenerate elements [4a, 4a + m) of a call with
 * (seed, offset + a) and n = m. Uniform numbers have 24 random bits:
 * u = (word >> 8) * 2^-24 in [0, 1). The float transforms (ln, sqrt, sin,
 * cos of Box-Muller) are written from fused multiply-adds on both sides (no
 * libm): the C references use fmaf() and must not be built with -ffast-math
 * (they would not be bit-identical). Outputs are f32, f16 or bf16 (fp32 math,
 * rounded to nearest even once), device memory of ctx, aligned to the
 * element size, n >= 1; queued on `stream` (NULL: default), no waiting.
 * Errors: AK_ERROR_INVALID_ARGUMENT with a message (nothing launched),
 * AK_ERROR_COMPILATION / AK_ERROR_LAUNCH. Thread safety of all of them: any
 * thread. */

/* y[i] = lo + u_i (hi - lo), rounded to dtype, in [lo, hi): a value that
 * rounds to hi or above becomes lo (as torch does). lo < hi, both finite and
 * hi - lo finite. Thread safety: any thread. */
AKAPI ak_result ak_rand_uniform(ak_context* ctx, ak_dtype dtype, void* y, size_t n, uint64_t seed, uint64_t offset,
                                float lo, float hi, ak_stream* stream);
/* y[i] = mean + std * z_i, z standard normal by Box-Muller on the pairs
 * (word 0, word 1) and (word 2, word 3) of a counter: u1 = ((w >> 8) + 1)
 * 2^-24 in (0, 1], t = (w' >> 8) 2^-24 turns, z = sqrt(-2 ln u1) (cos 2 pi t,
 * sin 2 pi t) (|z| <= 5.77). mean and std finite, std >= 0.
 * Thread safety: any thread. */
AKAPI ak_result ak_rand_normal(ak_context* ctx, ak_dtype dtype, void* y, size_t n, uint64_t seed, uint64_t offset,
                               float mean, float std, ak_stream* stream);
/* Dropout of n elements: keep element i when u_i >= p (u_i the uniform of
 * the stream layout above), y[i] = keep ? x[i] / (1 - p) : 0 (the scale
 * 1 / (1 - p) is rounded to fp32 once; a dropped element is exactly 0, also
 * for inf / NaN inputs). p in [0, 1]: p = 0 keeps everything (y = x bit for
 * bit), p = 1 drops everything (y = 0). mask: NULL or n bytes (AK_U8),
 * 1 = kept, 0 = dropped. The backward pass is the same call on dy with the
 * same (seed, offset, p): it regenerates the mask. y may equal x (in place);
 * mask must not overlap x or y. Thread safety: any thread. */
AKAPI ak_result ak_dropout(ak_context* ctx, ak_dtype dtype, const void* x, void* y, uint8_t* mask, size_t n,
                           float p, uint64_t seed, uint64_t offset, ak_stream* stream);
/* ---- scan (cumsum), top-k  --------------------------------------------------
 * Along the last dimension of a row-major, contiguous rows x cols tensor
 * (rows, cols >= 1); pointers are device memory of ctx (host memory on the
 * cpu backend), aligned to the element size. Queued on `stream`, no waiting;
 * errors as for the reductions above. */

/* Prefix sums of each row: inclusive (exclusive == 0) y[r, c] = sum of
 * x[r, 0..c], exclusive y[r, c] = sum of x[r, 0..c) (y[r, 0] = 0). dtype:
 * AK_F32, AK_F16, AK_BF16 (fp32 accumulation, output rounded to dtype),
 * AK_I32, AK_I64 (exact, wrapping modulo 2^32 / 2^64). Any width: rows are
 * walked in tiles by one block each, wide rows with few rows are split into
 * chunks (reduce-then-scan, a small workspace from the pool on `stream`).
 * The GPU's fp32 sums are in a fixed order (deterministic); the cpu backend
 * accumulates in double (integers: exact). y may equal x (in place), other
 * overlaps are errors. Thread safety: any thread. */
AKAPI ak_result ak_cumsum(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t rows, size_t cols,
                          int exclusive, ak_stream* stream);
/* The k largest (largest != 0) or smallest (largest == 0) elements of each
 * row, sorted (descending / ascending), with their column indices: values
 * (rows x k, dtype) and indices (rows x k, int64). Ties keep the lower index
 * first. NaN policy (as torch.topk): every NaN counts as larger than +inf, so
 * largest picks NaNs first and smallest picks them last; -0 and +0 are equal
 * (ordered by index). dtype AK_F32, AK_F16 or AK_BF16; 1 <= k <= min(cols,
 * 1024); cols < 2^31. values / indices must not overlap x or each other.
 * Thread safety: any thread. */
AKAPI ak_result ak_topk(ak_context* ctx, ak_dtype dtype, const void* x, void* values, int64_t* indices, size_t rows,
                        size_t cols, int k, int largest, ak_stream* stream);
#endif /* AMDKIT_NO_OPS */

/* ==========================================================================
 * >>decl:autotune  timing a kernel (ak_bench_kernel) and choosing the fastest
 *                  correct variant of a kernel (ak_autotune)
 * ========================================================================== */

typedef struct ak_bench_options {
    int warmup;            /* untimed launches before the trials (0: 3; negative: none) */
    int trials;            /* timed launches (0: 20) */
    int no_flush;          /* 1: do not flush the L2 between trials */
    int no_restore;        /* 1: do not restore the OUT/INOUT buffers before each trial */
} ak_bench_options;

typedef struct ak_bench_stats {
    double mean, std, min, max, median;   /* milliseconds; std: population standard deviation */
    int num_trials;
} ak_bench_stats;

/* Time a kernel the KernelBench way, on the default stream: warm-up launches, then
 * `trials` launches, each between two events; before each trial, outside the timed
 * region, every OUT/INOUT buffer of `args` (described with ak_args_buffer) is restored
 * from a copy taken when the call starts (each trial sees the same fresh inputs) and
 * the L2 is flushed (a memset over twice the device's L2). Afterwards the buffers hold
 * the result of one launch on the original inputs. times (NULL or `trials` doubles)
 * gets each trial in ms, in launch order. On the cpu backend events read the host
 * clock: this times the CPU implementation. Thread safety: any thread; nothing else
 * may use the buffers meanwhile. */
AKAPI ak_result ak_bench_kernel(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shared_bytes, ak_args* args,
                                const ak_bench_options* opts, double* times, ak_bench_stats* out);
/* Mean, std, min, max, median of n >= 1 times; sorts `times`. Thread safety: caller's buffers. */
AKAPI ak_result ak_bench_stats_of(double* times, int n, ak_bench_stats* out);

/* A compile-time parameter: variants are compiled with -D<name>=<value>. */
typedef struct ak_tune_param {
    const char* name;               /* macro name, e.g. "BLOCK" */
    const char* const* values;      /* its values as text, e.g. {"64", "128", "256"} */
    int count;
} ak_tune_param;

#define AK_TUNE_MAX_PARAMS 8

/* One variant: a value for each parameter. Variants are numbered in
 * enumeration order, the last parameter varying fastest. */
typedef struct ak_tune_point {
    int index;
    int num_params;
    const char* names[AK_TUNE_MAX_PARAMS];
    const char* values[AK_TUNE_MAX_PARAMS];   /* point into the caller's space */
    long long ivalues[AK_TUNE_MAX_PARAMS];    /* values read as integers (0 when not one) */
} ak_tune_point;

/* Launch geometry of a variant. Return anything but AK_OK to leave the variant out
 * (a combination the kernel does not support). */
typedef ak_result (*ak_tune_geometry_fn)(void* user, const ak_tune_point* p, ak_dim3* grid, ak_dim3* block,
                                         size_t* shared_bytes);

typedef struct ak_tune_space {
    const ak_tune_param* params;    /* up to AK_TUNE_MAX_PARAMS; none: one variant */
    int num_params;
    ak_dim3 grid, block;            /* the geometry of every variant when `geometry` is NULL */
    size_t shared_bytes;
    ak_tune_geometry_fn geometry;   /* or the geometry per variant */
    void* geometry_user;
    const char* geometry_key;       /* text naming the geometry rule when `geometry` is set (part of the stored key) */
} ak_tune_space;

typedef enum ak_tune_status {
    AK_TUNE_TIMED = 0,              /* compiled, checked (when a CPU reference was given), timed */
    AK_TUNE_FAILED = 1,             /* compile or launch failed (message) */
    AK_TUNE_WRONG = 2,              /* results differ from the CPU reference (message) */
    AK_TUNE_SKIPPED = 3             /* geometry callback left it out */
} ak_tune_status;

/* What the progress callback gets after each variant. */
typedef struct ak_tune_progress {
    const ak_tune_point* point;
    ak_tune_status status;
    double ms;                      /* median ms of this variant (TIMED) */
    int done, total;                /* variants tried so far / to try */
    int best_index;                 /* fastest correct variant so far (-1: none) */
    double best_ms;
    const char* message;            /* why FAILED / WRONG, else "" */
} ak_tune_progress;
typedef void (*ak_tune_progress_fn)(void* user, const ak_tune_progress* p);

typedef struct ak_tune_options {
    const char* shape_key;          /* the problem class this choice is for ("n=1048576"): part of the stored key */
    const char* const* options;     /* compile options of every variant (up to 48) */
    int num_options;
    const char* source_name;
    int max_variants;               /* budget: try at most this many (0: all) */
    double max_ms;                  /* budget: stop starting variants after this many ms (0: none; one is always tried) */
    int warmup, trials;             /* per variant (0: 2 and 10) */
    int threads;                    /* compile threads (0: 1 for hipRTC, which compiles one at a time per process; 4 for NVRTC) */
    ak_cpu_kernel_fn cpu;           /* CPU reference: each variant must match it (ak_check); NULL: no check */
    void* cpu_user;
    double atol, rtol;              /* tolerance of that check */
    int retune;                     /* 1: ignore a stored choice, time again, store the new one */
    int no_store;                   /* 1: neither read nor write the stored choice */
    ak_tune_progress_fn progress;   /* called on the calling thread after each variant */
    void* progress_user;
} ak_tune_options;

typedef struct ak_tune_result {
    ak_kernel* kernel;              /* the chosen variant, compiled (release with ak_kernel_release); its CPU implementation is opts->cpu */
    ak_tune_point point;
    char defines[512];              /* "-DBLOCK=128 -DUNROLL=2" */
    ak_dim3 grid, block;
    size_t shared_bytes;
    double ms;                      /* its median time when it was tuned */
    int from_cache;                 /* 1: the stored choice was used and nothing was timed */
    int total;                      /* variants in the space */
    int tried, timed, rejected;     /* this call: variants tried / timed / failed or wrong */
} ak_tune_result;

/* Choose the fastest variant of a kernel that passes the check: compile every
 * variant of `space` (in opts->threads threads), check each against opts->cpu on
 * `args` (buffers from ak_args_buffer; OUT/INOUT buffers are restored between
 * variants), time it with ak_bench_kernel and keep the fastest. The choice is stored
 * in the disk compile cache under (source, kernel, space, compile options, device
 * name and arch, backend, compiler, shape key): the next call with the same inputs,
 * in any process, compiles only the chosen variant and times nothing (from_cache).
 * Errors: AK_ERROR_INVALID_ARGUMENT (bad space or options), AK_ERROR_OPTIMIZATION
 * (no variant compiled and passed; the message says why the first one failed).
 * Thread safety: any thread; nothing else may use the buffers meanwhile. */
AKAPI ak_result ak_autotune(ak_context* ctx, const char* source, const char* kernel_name, const ak_tune_space* space,
                            ak_args* args, const ak_tune_options* opts, ak_tune_result* out);

/* ==========================================================================
 * >>decl:multi
 * Several devices: one context per device (ak_config.device = ordinal; list
 * them with ak_device_count / ak_device_get_info), peer access and copies
 * between contexts, and collectives over a set of contexts. Collectives run
 * through NCCL (libnccl.so.2, cuda backend) or RCCL (librccl.so.1, hip
 * backend), loaded with dlopen on first use; the cpu backend runs the same
 * API over threads of one process (the reference). Contexts of one process
 * may share a device and may be used from any thread: each call binds its
 * context's device on the calling thread.
 *
 *   Collectives follow NCCL's rules: every rank calls the same collectives in
 *   the same order; a thread that drives several ranks (ak_comm_init_all from
 *   one thread) puts each round of calls between ak_comm_group_start and
 *   ak_comm_group_end; send/recv pairs go in one group. Work is queued on the
 *   given stream of the rank's context (NULL: its default stream); on the cpu
 *   backend a call returns when the result is in place (at group end inside a
 *   group). Buffers: device memory of the rank's context (ak_malloc).
 *   dtypes: AK_F32, AK_F16, AK_BF16, AK_I32; reductions: AK_REDUCE_SUM,
 *   AK_REDUCE_MEAN (average), AK_REDUCE_MAX, AK_REDUCE_MIN. i32 sums wrap
 *   like int32 arithmetic; an i32 mean is the wrapped sum / ranks, truncated.
 * ========================================================================== */

/* 1 in *can when ctx's device can access peer's memory directly (the same
 * device, or peer access between the two GPUs; the cpu backend: 1).
 * Contexts of different backends: AK_ERROR_INVALID_ARGUMENT. Thread safety: any thread. */
AKAPI ak_result ak_device_can_access_peer(ak_context* ctx, ak_context* peer, int* can);
/* Map peer's memory into ctx's device (one direction: call it both ways for
 * both). Already enabled, or the same device: AK_OK. Not possible:
 * AK_ERROR_DEVICE naming both devices. Thread safety: any thread. */
AKAPI ak_result ak_enable_peer_access(ak_context* ctx, ak_context* peer);
/* Copy bytes from src (memory of src_ctx) to dst (memory of dst_ctx); returns
 * when the copy is done. Direct (peer DMA) where ak_device_can_access_peer
 * says 1, else staged through pinned host memory. Make src ready first
 * (synchronize its stream or wait on an event). Thread safety: any thread. */
AKAPI ak_result ak_memcpy_peer(ak_context* dst_ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes);
/* Same, queued on `stream` of dst_ctx (NULL: its default stream) where the
 * copy is direct; the staged path (no peer access) returns when done.
 * Thread safety: any thread. */
AKAPI ak_result ak_memcpy_peer_async(ak_context* dst_ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes,
                                     ak_stream* stream);
/* Make later work on stream s of ctx (NULL: default stream) wait until event
 * e is complete; e may belong to another context (cross-device ordering).
 * e must have been recorded. Thread safety: any thread. */
AKAPI ak_result ak_stream_wait_event(ak_context* ctx, ak_stream* s, ak_event* e);

typedef struct ak_comm ak_comm;
/* Identity of a communicator across processes (NCCL's ncclUniqueId): one rank
 * makes it, the caller hands the 128 bytes to every rank (file, socket, MPI). */
typedef struct ak_comm_id { char internal[128]; } ak_comm_id;

/* One communicator per context, rank i on ctxs[i], in this process (one
 * device per rank on hip/cuda; the cpu backend allows any contexts).
 * comms must hold n. Thread safety: any thread; the contexts may be in use. */
AKAPI ak_result ak_comm_init_all(ak_context* const* ctxs, int n, ak_comm** comms);
/* Make a unique id on ctx's backend (loads NCCL/RCCL). On the cpu backend the
 * id is valid in this process only. Thread safety: any thread. */
AKAPI ak_result ak_comm_get_unique_id(ak_context* ctx, ak_comm_id* id);
/* Join rank `rank` of `nranks` of the communicator `id`, on ctx's device.
 * NCCL/RCCL block until every rank has joined (call it from one thread per
 * rank, or for several ranks of one thread between group start and end).
 * Thread safety: any thread. */
AKAPI ak_result ak_comm_init_rank(ak_context* ctx, int nranks, const ak_comm_id* id, int rank, ak_comm** out);
/* Free a communicator (after its work is done). NULL ok. Thread safety: not while in use. */
AKAPI void ak_comm_destroy(ak_comm* c);
/* Rank, number of ranks, context. Thread safety: any thread. */
AKAPI int ak_comm_rank(const ak_comm* c);
AKAPI int ak_comm_size(const ak_comm* c);
AKAPI ak_context* ak_comm_context(const ak_comm* c);
/* What carries the collectives: "/path/libnccl.so.2 (NCCL 2.28.9)", "cpu (threads of one process)". Thread safety: any thread. */
AKAPI const char* ak_comm_library(const ak_comm* c);
/* Group the collective calls of this thread (nesting counts); the work is
 * issued (NCCL/RCCL) or waited for (cpu) at the outermost group end, which
 * returns the first error of the group. Thread safety: per thread. */
AKAPI ak_result ak_comm_group_start(void);
AKAPI ak_result ak_comm_group_end(void);
/* recv[i] = op over ranks of send[i], count elements, on every rank (in place: send == recv).
 * Thread safety: one thread per communicator at a time. */
AKAPI ak_result ak_all_reduce(ak_comm* c, ak_reduce_op op, ak_dtype dtype, const void* send, void* recv, size_t count,
                              ak_stream* stream);
/* recv (size * send_count elements) = every rank's send, in rank order.
 * Thread safety: one thread per communicator at a time. */
AKAPI ak_result ak_all_gather(ak_comm* c, ak_dtype dtype, const void* send, void* recv, size_t send_count, ak_stream* stream);
/* recv (recv_count) = op over ranks of block `rank` of send (size * recv_count).
 * Thread safety: one thread per communicator at a time. */
AKAPI ak_result ak_reduce_scatter(ak_comm* c, ak_reduce_op op, ak_dtype dtype, const void* send, void* recv, size_t recv_count,
                                  ak_stream* stream);
/* recv = root's send (count elements) on every rank; send is read on the root
 * only. Thread safety: one thread per communicator at a time. */
AKAPI ak_result ak_broadcast(ak_comm* c, ak_dtype dtype, const void* send, void* recv, size_t count, int root, ak_stream* stream);
/* Point to point: count elements to / from rank `peer`; pair each send with
 * the peer's recv (same count and dtype), both in a group when one thread
 * does both. Thread safety: one thread per communicator at a time. */
AKAPI ak_result ak_send(ak_comm* c, ak_dtype dtype, const void* send, size_t count, int peer, ak_stream* stream);
AKAPI ak_result ak_recv(ak_comm* c, ak_dtype dtype, void* recv, size_t count, int peer, ak_stream* stream);

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
#include <glob.h>
#include <sys/stat.h>
#include <sys/types.h>

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
static void _ak_str_addf(_ak_str* s, const char* fmt, ...) _AK_PRINTF(2, 3);
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
struct _ak_phash;

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
    const struct _ak_backend_ops* bk; /* the backend's operations (>>impl:backend) */
    ak_device_info dev;
    ak_backend_report reports[3];  /* hip, cuda, cpu */
    struct _ak_api* api;           /* entry points of the backend in use (NULL on cpu) */
    void* native_ctx;              /* CUcontext (cuda) */
    _ak_mutex lock;                /* guards small context state (stream list) */
    struct _ak_cache* cache;
    struct _ak_pool* pool;
    struct _ak_prof* prof;
    struct _ak_ops* ops;           /* kernel library state (loaded kernels) */
    uintptr_t serial;              /* unique per context in this process (_ak_bind), never 0 */
    char dev_tag[64];              /* memory-cache identity of this context's device (set at creation) */
    void* optmemo[8];              /* _ak_optmemo: compile options built once (>>impl:compile) */
    int n_optmemo;
    struct _ak_phash* host_live;   /* live ak_host_alloc pointers (under lock; made on first use) */
    struct {                       /* launch limits from dev and bk, set once at creation (_ak_launch_limits_set) */
        unsigned block[3], grid[3];
        unsigned long long threads, per_dim;
    } lim;
};

/* One table of operations per backend (in the manner of miniaudio's backend
 * callbacks and sokol's dummy backend), chosen at context creation (ctx->bk;
 * the hip, cuda and cpu tables are in >>impl:backend). Outside the backends'
 * own functions and the loaders, code goes through the table and never asks
 * which backend it runs on (tests/backend_check.sh, a `make test` step,
 * fails on an AK_BACKEND_HIP/CUDA/CPU outside those sections). The runtime calls are raw: each returns the
 * runtime's error code (0 = ok) and does not bind; the shared layer
 * (>>impl:backend, "one way for every backend") binds, calls and words the
 * error once. `stream` arguments are native handles (NULL = default). */
typedef struct _ak_dev_ops {        /* device memory and ordering events, as the pool uses them (it keeps a copy) */
    ak_result (*alloc)(ak_context* ctx, size_t bytes, void** out);   /* AK_ERROR_OUT_OF_MEMORY on failure */
    void (*free)(ak_context* ctx, void* ptr);
    ak_result (*ev_create)(ak_context* ctx, void** ev);              /* timing disabled, for ordering */
    ak_result (*ev_record)(ak_context* ctx, void* ev, void* native_stream);
    int (*ev_done)(ak_context* ctx, void* ev);                       /* 1 when complete (or on error) */
    void (*ev_destroy)(ak_context* ctx, void* ev);
} _ak_dev_ops;
typedef struct _ak_backend_ops {
    ak_backend id;
    int host_memory;           /* buffers are host memory, kernels run their C implementation (cpu) */
    unsigned long long max_threads_per_dim;  /* grid x block per dimension (HIP counts in 32 bits), 0 = no limit */
    int compile_threads;       /* compiles worth running at once (hipRTC serializes in a process; NVRTC does not) */
    const char* tracer;        /* "roctx" / "NVTX": profiling ranges also go to this tracer (NULL: none) */
    const char* const* tracer_libs;  /* its libraries (NULL-terminated), push and pop symbols */
    const char* tracer_push;
    const char* tracer_pop;
    /* fill report (and dev when not NULL) for device `device`; AK_OK if usable */
    ak_result (*probe)(struct _ak_api* api, int device, ak_device_info* dev, ak_backend_report* rep);
    ak_result (*open)(ak_context* ctx);          /* after a successful probe (cuda: the primary context) */
    void (*close)(ak_context* ctx);              /* undo open (everything else is released before) */
    ak_result (*probe_features)(ak_context* ctx);  /* ak_context_probe: fp16/bf16 (and the compilers) */
    ak_result (*launch)(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shmem, ak_stream* stream, void** args);
    const char* (*error_string)(ak_context* ctx, int e);
    /* raw runtime calls: error code, 0 = ok */
    int (*make_current)(ak_context* ctx);        /* bind ctx's device to the calling thread; NULL: nothing to bind */
    int (*alloc)(ak_context* ctx, size_t bytes, void** out);   /* 2: out of memory */
    int (*free)(ak_context* ctx, void* ptr);
    int (*mem_info)(ak_context* ctx, size_t* free_bytes, size_t* total_bytes);
    int (*event_create)(ak_context* ctx, void** ev, unsigned flags);  /* flags 0: timing; 2: ordering only */
    int (*event_record)(ak_context* ctx, void* ev, void* stream);
    int (*event_query)(ak_context* ctx, void* ev);                     /* 600: not ready */
    int (*event_destroy)(ak_context* ctx, void* ev);
    int (*event_synchronize)(ak_context* ctx, void* ev);
    int (*event_elapsed)(ak_context* ctx, float* ms, ak_event* a, ak_event* b);  /* b is complete */
    int (*synchronize)(ak_context* ctx);          /* the whole device */
    int (*copy)(ak_context* ctx, void* dst, const void* src, size_t bytes, ak_copy_kind kind, void* stream, int async);
    int (*memset)(ak_context* ctx, void* dst, int value, size_t bytes, void* stream);
    int (*host_alloc)(ak_context* ctx, void** out, size_t bytes);
    int (*host_free)(ak_context* ctx, void* ptr);
    int (*stream_priority_range)(ak_context* ctx, int* least, int* greatest);
    int (*stream_create)(ak_context* ctx, void** native, int priority);
    int (*stream_destroy)(ak_context* ctx, void* native);
    int (*stream_synchronize)(ak_context* ctx, void* native);
    /* modules (NULL on backends that do not compile: then kernels run their C implementation) */
    int (*module_load)(ak_context* ctx, const void* data, void** module);
    int (*module_function)(ak_context* ctx, void* module, const char* name, void** fn);
    int (*module_unload)(ak_context* ctx, void* module);
    int (*shmem_optin)(ak_context* ctx, void* fn, size_t bytes);      /* allow more dynamic shared memory; NULL: not needed */
    int (*launch_kernel)(ak_context* ctx, void* fn, ak_dim3 grid, ak_dim3 block, size_t shmem, void* stream, void** args);
    /* several devices (>>impl:multi); runtime entry points that may be missing: _AK_E_NO_ENTRY */
    int (*device_count)(struct _ak_api* api, int* n);          /* after a successful probe of device 0 */
    void (*describe)(struct _ak_api* api, int device, ak_device_info* dev);  /* identity + attributes, no context */
    int (*peer_can_access)(ak_context* ctx, ak_context* peer, int* can);     /* *can 0 where the runtime cannot say */
    int (*peer_enable)(ak_context* ctx, ak_context* peer);     /* ctx bound; enabled already: 0 */
    int (*peer_copy)(ak_context* dst_ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes, void* stream);
    int (*stream_wait_event)(ak_context* ctx, void* stream, void* ev);       /* ctx bound */
    /* collectives: the library (NULL: the cpu reference over threads) and the communicator constructors */
    const char* ccl;                                           /* "RCCL" / "NCCL" */
    int (*ccl_load)(struct _ak_api* api, char* why, size_t cap);   /* 1 when loaded, else 0 and why */
    ak_result (*comm_unique_id)(ak_context* ctx, ak_comm_id* id);
    ak_result (*comm_init_rank)(ak_context* ctx, int nranks, const ak_comm_id* id, int rank, ak_comm** out);
    ak_result (*comm_init_all)(ak_context* const* ctxs, int n, ak_comm** comms);   /* ctxs checked, all of this backend */
} _ak_backend_ops;
#define _AK_E_NO_ENTRY (-2)   /* a raw call's runtime lacks the entry point (runtimes' own codes are >= 0) */

static ak_result _ak_dev_mem_info(ak_context* ctx, size_t* free_bytes, size_t* total_bytes);
static ak_result _ak_dev_event_record(ak_context* ctx, void* ev, void* stream);
static int _ak_dev_event_done(ak_context* ctx, void* ev);
static void _ak_dev_event_destroy(ak_context* ctx, void* ev);
static ak_result _ak_event_new(ak_context* ctx, void** ev, unsigned flags);
static const _ak_dev_ops* _ak_dev_ops_shared(void);                       /* the pool's device operations */
static void* _ak_native_stream(ak_stream* s);                               /* NULL for NULL */
static void _ak_unload_cb(void* ctx, void* loaded);                         /* cache eviction: unload a module */
static void _ak_ops_destroy(ak_context* ctx);                               /* kernel library state */
static void _ak_optmemo_free_all(ak_context* ctx);                          /* compile options memo */
static void _ak_host_free_all(ak_context* ctx);                             /* ak_host_alloc leftovers */
static void _ak_launch_limits_set(ak_context* ctx);                         /* ctx->lim (>>impl:launch) */

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
 * >>impl:sources  (embedded kernel sources: the .hip files of kernels/, and
 * the kernel interfaces tools/akgen.c reads from their kernel signatures:
 * _ak_kargs_<stem>, one typed argument packer per parameter list, and
 * _ak_kernel_ifaces, every kernel's interface; see tools/akgen.c)
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
    " *\n"
    " * Kernel naming convention (tools/akgen.c relies on it): every kernel is\n"
    " * defined on a line `AK_KERNEL void ak_<name>(` with its literal name, or\n"
    " * listed in a `// kernels: a b c` comment line when a macro generates it. */\n"
    "\n"
    "/* AK_HOST_LAYOUT_TEST: tests/t_matrix.c includes this file as plain C to get\n"
    " * the matrix-fragment lane layouts (end of file) and nothing else. */\n"
    "#ifndef AK_HOST_LAYOUT_TEST\n"
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
    "/* AMD code objects carry the wave size they were built for as a symbol name,\n"
    " * ak_built_for_wave32 / ak_built_for_wave64, which the ISA check\n"
    " * (tests/isa_check.sh) compares with the code object's own wavefront size. */\n"
    "#if defined(AK_AMD)\n"
    "#define AK_CAT2_(a, b) a##b\n"
    "#define AK_CAT_(a, b) AK_CAT2_(a, b)\n"
    "extern \"C\" __device__ __attribute__((used)) const int AK_CAT_(ak_built_for_wave, AK_WAVE) = AK_WAVE;\n"
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
    "/* ---- row and reduction helpers (reductions, softmax, norms, cross-entropy) ---- */\n"
    "/* NaN test on the bits (still right under finite-math compiler flags). */\n"
    "AK_INLINE bool ak_isnan(float v) { return (ak_f2u(v) & 0x7FFFFFFFu) > 0x7F800000u; }\n"
    "/* sum, and max / min that propagate NaN (torch semantics), as functors. */\n"
    "struct ak_op_add { AK_INLINE float operator()(float a, float b) const { return a + b; } };\n"
    "struct ak_op_max { AK_INLINE float operator()(float a, float b) const { return (a > b || ak_isnan(a)) ? a : b; } };\n"
    "struct ak_op_min { AK_INLINE float operator()(float a, float b) const { return (a < b || ak_isnan(a)) ? a : b; } };\n"
    "#define AK_LOG2E 1.4426950408889634f\n"
    "#define AK_LN2 0.6931471805599453f\n"
    "/* 2^x through the hardware unit (relative error about 2^-22; results\n"
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
    "/* online softmax statistics: fold N values a[] into a running (max m, sum s\n"
    " * of exp(v - m)); ak_online_rescale(m, M) = exp(m - M), 1 when m == M (also\n"
    " * -inf == -inf). Used by softmax, cross-entropy. */\n"
    "AK_INLINE float ak_online_rescale(float m, float M) { return m == M ? 1.0f : ak_exp2((m - M) * AK_LOG2E); }\n"
    "template <int N>\n"
    "AK_INLINE void ak_online_fold(float& m, float& s, const float* a) {\n"
    "    float mn = m;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < N; k++) mn = ak_op_max()(mn, a[k]);\n"
    "    if (mn != -AK_INF) {\n"
    "        float t = 0.0f;\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < N; k++) t += ak_exp2((a[k] - mn) * AK_LOG2E);\n"
    "        s = s * ak_online_rescale(m, mn) + t;\n"
    "        m = mn;\n"
    "    }\n"
    "}\n"
    "\n"
    "/* reduce v over aligned groups of G consecutive threads (G a power of two,\n"
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
    "/* a row (or a slice of one) of len elements held in registers, MAXE per\n"
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
    "/* ---- activations: the ak_unary_op codes of amdkit.h, fp32 math --------- */\n"
    "/* (ak_unary and the GEMM epilogue; ak_uop_apply dispatches a run-time code) */\n"
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
    "AK_INLINE float ak_uop_apply(int op, float x, float p) {\n"
    "    switch (op) {\n"
    "    case AK_UNARY_RELU: return ak_uop_relu::f(x, p);\n"
    "    case AK_UNARY_LEAKY_RELU: return ak_uop_leaky::f(x, p);\n"
    "    case AK_UNARY_SIGMOID: return ak_uop_sigmoid::f(x, p);\n"
    "    case AK_UNARY_TANH: return ak_uop_tanh::f(x, p);\n"
    "    case AK_UNARY_SILU: return ak_uop_silu::f(x, p);\n"
    "    case AK_UNARY_GELU: return ak_uop_gelu::f(x, p);\n"
    "    case AK_UNARY_GELU_TANH: return ak_uop_gelu_tanh::f(x, p);\n"
    "    default: return x;\n"
    "    }\n"
    "}\n"
    "#endif /* !AK_HOST_LAYOUT_TEST */\n"
    "\n"
    "/* ==========================================================================\n"
    " * ---- matrix fragments: one warp/wave-level MMA layer for every arch ---------\n"
    " * (used by kernels/gemm.hip and kernels/attention.hip)\n"
    " *\n"
    " * A matrix instruction multiplies an M x K tile A by a K x N tile B into an\n"
    " * M x N fp32 tile C, the tiles spread over the lanes of one wave. Part 1\n"
    " * below is the LANE LAYOUT of each instruction, as pure integer functions\n"
    " * (valid C99 too: tests/t_matrix.c checks them on the host against the\n"
    " * instruction semantics, an independent inverse map, and an emulated MMA):\n"
    " *\n"
    " *   ak_lay_<I>_a(lane, e, &m, &k)  element e of `lane`'s A fragment is A[m][k]\n"
    " *   ak_lay_<I>_b(lane, e, &k, &n)  element e of `lane`'s B fragment is B[k][n]\n"
    " *   ak_lay_<I>_c(lane, e, &m, &n)  accumulator e of `lane` is C[m][n]\n"
    " *\n"
    " *   <I>          instruction (builtin / PTX)                      lanes  A/B elems  C elems\n"
    " *   mfma32x32x8  mfma_f32_32x32x8f16, _32x32x8bf16_1k (gfx90a+)   64     4          16\n"
    " *   mfma32x32x16 mfma_f32_32x32x16_f16 / _bf16 (gfx950)           64     8          16\n"
    " *   mfma32x32x4  mfma_f32_32x32x4bf16 (gfx908), _32x32x4_xf32     64     2          16\n"
    " *                (gfx942)\n"
    " *   mfma32x32x2  mfma_f32_32x32x2f32 (exact fp32, all CDNA)       64     1          16\n"
    " *   wmma11       wmma_f32_16x16x16_f16_w32 / _bf16_w32 (gfx11)    32     16         8\n"
    " *                (lanes 16..31 repeat lanes 0..15's A and B)\n"
    " *   wmma12       wmma_f32_16x16x16_{f16,bf16}_w32_gfx12 (gfx12)   32     8          8\n"
    " *   mma16816     mma.sync.m16n8k16 f16 / bf16 (sm_80+)            32     8 / 4      4\n"
    " *   mma1688      mma.sync.m16n8k8 tf32 (sm_80+)                   32     4 / 2      4\n"
    " *\n"
    " * Sources: AMD's CDNA3 ISA guide (section 7, \"Matrix arithmetic\") and the\n"
    " * AMD matrix instruction calculator (MFMA), AMD GPUOpen's RDNA3 / RDNA4 WMMA\n"
    " * articles (WMMA), NVIDIA's PTX ISA \"Matrix fragments for mma.m16n8k16 /\n"
    " * m16n8k8\" (mma.sync). In words: an MFMA A operand puts row m = lane % M\n"
    " * and a run of consecutive k per lane, the lane group (lane / M) picking\n"
    " * which run; B mirrors it with n for m; C rows come in groups of 4 (MFMA)\n"
    " * spread over the lane groups. WMMA gfx11 gives each lane a whole row of 16\n"
    " * k and puts C row 2e + lane/16 in element e; gfx12 halves the k run (8,\n"
    " * lane group picks the half) and puts C row 8 (lane/16) + e. mma.sync uses\n"
    " * groupID g = lane / 4 and thread t = lane % 4.\n"
    " *\n"
    " * Part 2 (device) is ak_mma<D, FAST32>, D = ak_f16_t / ak_bf16_t / ak_f32_t,\n"
    " * FAST32 = f32 through tf32 (NVIDIA) / xf32 (gfx942) instead of exact fp32:\n"
    " *   ak_mma<D>::OK           1 when this target has a matrix instruction for\n"
    " *                           D (else every member still compiles; do not call)\n"
    " *   M, N, K                 tile of one instruction; NC accumulators per lane\n"
    " *   A, B, C                 fragment types; C has `v[e]` (float, e < NC)\n"
    " *   zero(C&)                C = 0\n"
    " *   load_a(A&, s, ld)       A tile from memory (shared or global), k-contiguous:\n"
    " *                           element (m, k) at s[m * ld + k]\n"
    " *   load_b(B&, s, ld)       B tile, k-contiguous: element (k, n) at s[n * ld + k]\n"
    " *                           (i.e. B^T row-major); both need s and ld aligned to\n"
    " *                           the access: ld % 8 == 0 and s 16-byte aligned is enough\n"
    " *   mma(C&, A, B)           C += A * B\n"
    " *   c_row(lane, e), c_col   where accumulator e of a lane sits in the M x N tile\n"
    " * Everything is wave-synchronous: all lanes of the wave call together.\n"
    " * ========================================================================== */\n"
    "#ifdef AK_HOST_LAYOUT_TEST\n"
    "#define AK_LAY static inline\n"
    "#else\n"
    "#define AK_LAY AK_INLINE\n"
    "#endif\n"
    "\n"
    "/* MFMA 32x32xKL, KL = k elements per lane (8 f16 on gfx908..942: 4; gfx950: 8). */\n"
    "#define AK_LAY_MFMA32(NAME, KL)                                                                    \\\n"
    "    AK_LAY void ak_lay_##NAME##_a(int lane, int e, int* m, int* k) { *m = lane % 32; *k = (KL) * (lane / 32) + e; } \\\n"
    "    AK_LAY void ak_lay_##NAME##_b(int lane, int e, int* k, int* n) { *n = lane % 32; *k = (KL) * (lane / 32) + e; } \\\n"
    "    AK_LAY void ak_lay_##NAME##_c(int lane, int e, int* m, int* n) {                              \\\n"
    "        *n = lane % 32;                                                                            \\\n"
    "        *m = 8 * (e / 4) + 4 * (lane / 32) + e % 4;                                                \\\n"
    "    }\n"
    "AK_LAY_MFMA32(mfma32x32x8, 4)\n"
    "AK_LAY_MFMA32(mfma32x32x16, 8)\n"
    "AK_LAY_MFMA32(mfma32x32x4, 2)\n"
    "AK_LAY_MFMA32(mfma32x32x2, 1)\n"
    "\n"
    "AK_LAY void ak_lay_wmma11_a(int lane, int e, int* m, int* k) { *m = lane % 16; *k = e; }\n"
    "AK_LAY void ak_lay_wmma11_b(int lane, int e, int* k, int* n) { *n = lane % 16; *k = e; }\n"
    "AK_LAY void ak_lay_wmma11_c(int lane, int e, int* m, int* n) { *n = lane % 16; *m = 2 * e + lane / 16; }\n"
    "\n"
    "AK_LAY void ak_lay_wmma12_a(int lane, int e, int* m, int* k) { *m = lane % 16; *k = 8 * (lane / 16) + e; }\n"
    "AK_LAY void ak_lay_wmma12_b(int lane, int e, int* k, int* n) { *n = lane % 16; *k = 8 * (lane / 16) + e; }\n"
    "AK_LAY void ak_lay_wmma12_c(int lane, int e, int* m, int* n) { *n = lane % 16; *m = 8 * (lane / 16) + e; }\n"
    "\n"
    "/* mma.sync m16n8k16 (f16/bf16): A a0..a7, B b0..b3, C c0..c3 in PTX order. */\n"
    "AK_LAY void ak_lay_mma16816_a(int lane, int e, int* m, int* k) {\n"
    "    *m = lane / 4 + 8 * ((e / 2) % 2);\n"
    "    *k = 2 * (lane % 4) + e % 2 + 8 * (e / 4);\n"
    "}\n"
    "AK_LAY void ak_lay_mma16816_b(int lane, int e, int* k, int* n) { *n = lane / 4; *k = 2 * (lane % 4) + e % 2 + 8 * (e / 2); }\n"
    "AK_LAY void ak_lay_mma16816_c(int lane, int e, int* m, int* n) { *m = lane / 4 + 8 * (e / 2); *n = 2 * (lane % 4) + e % 2; }\n"
    "/* mma.sync m16n8k8 (tf32) */\n"
    "AK_LAY void ak_lay_mma1688_a(int lane, int e, int* m, int* k) { *m = lane / 4 + 8 * (e % 2); *k = lane % 4 + 4 * (e / 2); }\n"
    "AK_LAY void ak_lay_mma1688_b(int lane, int e, int* k, int* n) { *n = lane / 4; *k = lane % 4 + 4 * e; }\n"
    "AK_LAY void ak_lay_mma1688_c(int lane, int e, int* m, int* n) { ak_lay_mma16816_c(lane, e, m, n); }\n"
    "\n"
    "#ifndef AK_HOST_LAYOUT_TEST\n"
    "/* ---- part 2: ak_mma<D, FAST32> per target -------------------------------- */\n"
    "#if defined(AK_AMD) && (defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || \\\n"
    "                        defined(__gfx942__) || defined(__gfx950__))\n"
    "#define AK_MMA_MFMA 1\n"
    "#elif defined(AK_AMD) && (defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1103__) || \\\n"
    "                          defined(__gfx1150__) || defined(__gfx1151__) || defined(__gfx1152__) || defined(__gfx1153__))\n"
    "#define AK_MMA_WMMA11 1\n"
    "#elif defined(AK_AMD) && (defined(__gfx1200__) || defined(__gfx1201__))\n"
    "#define AK_MMA_WMMA12 1\n"
    "#elif defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
    "#define AK_MMA_SYNC 1\n"
    "#endif\n"
    "\n"
    "/* Reference form used where the target has no instruction for D: the\n"
    " * members exist so code compiles everywhere; OK = 0 says never call them. */\n"
    "template <class D, bool FAST32 = false>\n"
    "struct ak_mma {\n"
    "    enum { OK = 0, M = 16, N = 16, K = 16, NC = 1 };\n"
    "    struct A { float x; };\n"
    "    struct B { float x; };\n"
    "    struct C { float v[1]; };\n"
    "    static AK_INLINE void zero(C& c) { c.v[0] = 0.0f; }\n"
    "    static AK_INLINE void load_a(A& a, const typename D::T* s, int ld) { (void)ld; a.x = D::to(s[0]); }\n"
    "    static AK_INLINE void load_b(B& b, const typename D::T* s, int ld) { (void)ld; b.x = D::to(s[0]); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v[0] += a.x * b.x; }\n"
    "    static AK_INLINE int c_row(int lane, int e) { (void)e; return lane; }\n"
    "    static AK_INLINE int c_col(int lane, int e) { (void)lane; return e; }\n"
    "};\n"
    "\n"
    "#if defined(AK_MMA_MFMA)\n"
    "typedef float ak_f32x16 __attribute__((ext_vector_type(16)));\n"
    "typedef _Float16 ak_f16x4 __attribute__((ext_vector_type(4)));\n"
    "typedef short ak_i16x4 __attribute__((ext_vector_type(4)));\n"
    "typedef short ak_i16x2 __attribute__((ext_vector_type(2)));\n"
    "typedef float ak_f32x2 __attribute__((ext_vector_type(2)));\n"
    "#if defined(__gfx950__)\n"
    "typedef _Float16 ak_f16x8 __attribute__((ext_vector_type(8)));\n"
    "typedef __bf16 ak_bf16x8 __attribute__((ext_vector_type(8)));\n"
    "#endif\n"
    "/* 32 x 32 output tile on 64 lanes; C accumulators per ak_lay_mfma32x32x*_c. */\n"
    "struct ak_mfma32_c {\n"
    "    struct C { ak_f32x16 v; };\n"
    "    enum { M = 32, N = 32, NC = 16 };\n"
    "    static AK_INLINE void zero(C& c) {\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < 16; e++) c.v[e] = 0.0f;\n"
    "    }\n"
    "    static AK_INLINE int c_row(int lane, int e) { return 8 * (e / 4) + 4 * (lane / 32) + e % 4; }\n"
    "    static AK_INLINE int c_col(int lane, int e) { (void)e; return lane % 32; }\n"
    "};\n"
    "#if defined(__gfx950__)\n"
    "/* gfx950: 32x32x16, 8 halves per lane (ak_lay_mfma32x32x16) */\n"
    "template <> struct ak_mma<ak_f16_t, false> : ak_mfma32_c {\n"
    "    enum { OK = 1, K = 16 };\n"
    "    struct A { ak_f16x8 x; };\n"
    "    typedef A B;\n"
    "    static AK_INLINE void load_a(A& a, const ak_half* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        a.x = *(const ak_f16x8*)(s + (l % 32) * ld + 8 * (l / 32));\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const ak_half* s, int ld) { load_a(b, s, ld); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x16_f16(a.x, b.x, c.v, 0, 0, 0); }\n"
    "};\n"
    "template <> struct ak_mma<ak_bf16_t, false> : ak_mfma32_c {\n"
    "    enum { OK = 1, K = 16 };\n"
    "    struct A { ak_bf16x8 x; };\n"
    "    typedef A B;\n"
    "    static AK_INLINE void load_a(A& a, const ak_bf16* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        a.x = *(const ak_bf16x8*)(s + (l % 32) * ld + 8 * (l / 32));\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const ak_bf16* s, int ld) { load_a(b, s, ld); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a.x, b.x, c.v, 0, 0, 0); }\n"
    "};\n"
    "#else\n"
    "/* gfx908 / gfx90a / gfx94x: 32x32x8, 4 halves per lane (ak_lay_mfma32x32x8) */\n"
    "template <> struct ak_mma<ak_f16_t, false> : ak_mfma32_c {\n"
    "    enum { OK = 1, K = 8 };\n"
    "    struct A { ak_f16x4 x; };\n"
    "    typedef A B;\n"
    "    static AK_INLINE void load_a(A& a, const ak_half* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        a.x = *(const ak_f16x4*)(s + (l % 32) * ld + 4 * (l / 32));\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const ak_half* s, int ld) { load_a(b, s, ld); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x8f16(a.x, b.x, c.v, 0, 0, 0); }\n"
    "};\n"
    "#if defined(__gfx908__)\n"
    "/* gfx908 has no _1k bf16 forms: 32x32x4bf16, 2 per lane (ak_lay_mfma32x32x4) */\n"
    "template <> struct ak_mma<ak_bf16_t, false> : ak_mfma32_c {\n"
    "    enum { OK = 1, K = 4 };\n"
    "    struct A { ak_i16x2 x; };\n"
    "    typedef A B;\n"
    "    static AK_INLINE void load_a(A& a, const ak_bf16* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        a.x = *(const ak_i16x2*)(s + (l % 32) * ld + 2 * (l / 32));\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const ak_bf16* s, int ld) { load_a(b, s, ld); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x4bf16(a.x, b.x, c.v, 0, 0, 0); }\n"
    "};\n"
    "#else\n"
    "template <> struct ak_mma<ak_bf16_t, false> : ak_mfma32_c {\n"
    "    enum { OK = 1, K = 8 };\n"
    "    struct A { ak_i16x4 x; };\n"
    "    typedef A B;\n"
    "    static AK_INLINE void load_a(A& a, const ak_bf16* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        a.x = *(const ak_i16x4*)(s + (l % 32) * ld + 4 * (l / 32));\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const ak_bf16* s, int ld) { load_a(b, s, ld); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a.x, b.x, c.v, 0, 0, 0); }\n"
    "};\n"
    "#endif\n"
    "#endif\n"
    "/* exact fp32 on every CDNA: 32x32x2f32, 1 per lane (ak_lay_mfma32x32x2) */\n"
    "template <> struct ak_mma<ak_f32_t, false> : ak_mfma32_c {\n"
    "    enum { OK = 1, K = 2 };\n"
    "    struct A { float x; };\n"
    "    typedef A B;\n"
    "    static AK_INLINE void load_a(A& a, const float* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        a.x = s[(l % 32) * ld + (l / 32)];\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const float* s, int ld) { load_a(b, s, ld); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x2f32(a.x, b.x, c.v, 0, 0, 0); }\n"
    "};\n"
    "#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)\n"
    "/* xf32 (gfx94x only; gfx950 dropped it): 32x32x4_xf32, 2 per lane (ak_lay_mfma32x32x4) */\n"
    "template <> struct ak_mma<ak_f32_t, true> : ak_mfma32_c {\n"
    "    enum { OK = 1, K = 4 };\n"
    "    struct A { ak_f32x2 x; };\n"
    "    typedef A B;\n"
    "    static AK_INLINE void load_a(A& a, const float* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        a.x = *(const ak_f32x2*)(s + (l % 32) * ld + 2 * (l / 32));\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const float* s, int ld) { load_a(b, s, ld); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x4_xf32(a.x, b.x, c.v, 0, 0, 0); }\n"
    "};\n"
    "#else\n"
    "template <> struct ak_mma<ak_f32_t, true> : ak_mma<ak_f32_t, false> {};\n"
    "#endif\n"
    "#endif /* AK_MMA_MFMA */\n"
    "\n"
    "#if defined(AK_MMA_WMMA11) || defined(AK_MMA_WMMA12)\n"
    "typedef float ak_f32x8 __attribute__((ext_vector_type(8)));\n"
    "#if defined(AK_MMA_WMMA11)\n"
    "#define AK_WMMA_KL 16\n"
    "#define AK_WMMA_F16(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c)\n"
    "#define AK_WMMA_BF16(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c)\n"
    "#else\n"
    "#define AK_WMMA_KL 8\n"
    "#define AK_WMMA_F16(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c)\n"
    "#define AK_WMMA_BF16(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c)\n"
    "#endif\n"
    "typedef _Float16 ak_wmma_h __attribute__((ext_vector_type(AK_WMMA_KL)));\n"
    "typedef short ak_wmma_s __attribute__((ext_vector_type(AK_WMMA_KL)));\n"
    "struct ak_wmma_c {\n"
    "    struct C { ak_f32x8 v; };\n"
    "    enum { M = 16, N = 16, K = 16, NC = 8 };\n"
    "    static AK_INLINE void zero(C& c) {\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < 8; e++) c.v[e] = 0.0f;\n"
    "    }\n"
    "#if defined(AK_MMA_WMMA11)\n"
    "    static AK_INLINE int c_row(int lane, int e) { return 2 * e + lane / 16; }\n"
    "#else\n"
    "    static AK_INLINE int c_row(int lane, int e) { return 8 * (lane / 16) + e; }\n"
    "#endif\n"
    "    static AK_INLINE int c_col(int lane, int e) { (void)e; return lane % 16; }\n"
    "    /* lane's k run start: gfx11 0 (whole row, lanes 16..31 repeat), gfx12 8 * (lane / 16) */\n"
    "    static AK_INLINE int k0(int lane) { return AK_WMMA_KL == 16 ? 0 : 8 * (lane / 16); }\n"
    "};\n"
    "template <> struct ak_mma<ak_f16_t, false> : ak_wmma_c {\n"
    "    enum { OK = 1 };\n"
    "    struct A { ak_wmma_h x; };\n"
    "    typedef A B;\n"
    "    static AK_INLINE void load_a(A& a, const ak_half* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        a.x = *(const ak_wmma_h*)(s + (l % 16) * ld + k0(l));\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const ak_half* s, int ld) { load_a(b, s, ld); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = AK_WMMA_F16(a.x, b.x, c.v); }\n"
    "};\n"
    "template <> struct ak_mma<ak_bf16_t, false> : ak_wmma_c {\n"
    "    enum { OK = 1 };\n"
    "    struct A { ak_wmma_s x; };\n"
    "    typedef A B;\n"
    "    static AK_INLINE void load_a(A& a, const ak_bf16* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        a.x = *(const ak_wmma_s*)(s + (l % 16) * ld + k0(l));\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const ak_bf16* s, int ld) { load_a(b, s, ld); }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = AK_WMMA_BF16(a.x, b.x, c.v); }\n"
    "};\n"
    "#endif /* WMMA */\n"
    "\n"
    "#if defined(AK_MMA_SYNC)\n"
    "/* 32-bit shared-memory address of a generic pointer into shared memory. */\n"
    "AK_INLINE ak_u32 ak_smem_addr(const void* p) {\n"
    "    ak_u32 a;\n"
    "    asm(\"{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }\" : \"=r\"(a) : \"l\"(p));\n"
    "    return a;\n"
    "}\n"
    "struct ak_mma_sync_c {\n"
    "    struct C { float v[4]; };\n"
    "    enum { M = 16, N = 8, NC = 4 };\n"
    "    static AK_INLINE void zero(C& c) { c.v[0] = c.v[1] = c.v[2] = c.v[3] = 0.0f; }\n"
    "    static AK_INLINE int c_row(int lane, int e) { return lane / 4 + 8 * (e / 2); }\n"
    "    static AK_INLINE int c_col(int lane, int e) { return 2 * (lane % 4) + e % 2; }\n"
    "};\n"
    "/* m16n8k16 for 16-bit types; A and B read 32 bits (two consecutive k) at a\n"
    " * time per ak_lay_mma16816. load_a_ldsm / load_b_ldsm: the same fragments\n"
    " * through ldmatrix (s must point to SHARED memory, rows 16-byte aligned). */\n"
    "template <class D>\n"
    "struct ak_mma_sync16 : ak_mma_sync_c {\n"
    "    enum { OK = 1, K = 16 };\n"
    "    struct A { ak_u32 r[4]; };\n"
    "    struct B { ak_u32 r[2]; };\n"
    "    static AK_INLINE void load_a(A& a, const typename D::T* s, int ld) {\n"
    "        const int l = ak_lane(), g = l / 4, t = l % 4;\n"
    "        a.r[0] = *(const ak_u32*)(s + g * ld + 2 * t);\n"
    "        a.r[1] = *(const ak_u32*)(s + (g + 8) * ld + 2 * t);\n"
    "        a.r[2] = *(const ak_u32*)(s + g * ld + 2 * t + 8);\n"
    "        a.r[3] = *(const ak_u32*)(s + (g + 8) * ld + 2 * t + 8);\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const typename D::T* s, int ld) {\n"
    "        const int l = ak_lane(), g = l / 4, t = l % 4;\n"
    "        b.r[0] = *(const ak_u32*)(s + g * ld + 2 * t);\n"
    "        b.r[1] = *(const ak_u32*)(s + g * ld + 2 * t + 8);\n"
    "    }\n"
    "    static AK_INLINE void load_a_ldsm(A& a, const typename D::T* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        const ak_u32 p = ak_smem_addr(s + (l % 16) * ld + 8 * (l / 16));\n"
    "        asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\"\n"
    "                     : \"=r\"(a.r[0]), \"=r\"(a.r[1]), \"=r\"(a.r[2]), \"=r\"(a.r[3]) : \"r\"(p));\n"
    "    }\n"
    "    /* two B fragments at once: columns n 0..7 (b0) and 8..15 (b1) */\n"
    "    static AK_INLINE void load_b2_ldsm(B& b0, B& b1, const typename D::T* s, int ld) {\n"
    "        const int l = ak_lane();\n"
    "        const ak_u32 p = ak_smem_addr(s + ((l % 8) + 8 * (l / 16)) * ld + 8 * ((l / 8) % 2));\n"
    "        asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\"\n"
    "                     : \"=r\"(b0.r[0]), \"=r\"(b0.r[1]), \"=r\"(b1.r[0]), \"=r\"(b1.r[1]) : \"r\"(p));\n"
    "    }\n"
    "};\n"
    "template <> struct ak_mma<ak_f16_t, false> : ak_mma_sync16<ak_f16_t> {\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) {\n"
    "        asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
    "                     : \"+f\"(c.v[0]), \"+f\"(c.v[1]), \"+f\"(c.v[2]), \"+f\"(c.v[3])\n"
    "                     : \"r\"(a.r[0]), \"r\"(a.r[1]), \"r\"(a.r[2]), \"r\"(a.r[3]), \"r\"(b.r[0]), \"r\"(b.r[1]));\n"
    "    }\n"
    "};\n"
    "template <> struct ak_mma<ak_bf16_t, false> : ak_mma_sync16<ak_bf16_t> {\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) {\n"
    "        asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
    "                     : \"+f\"(c.v[0]), \"+f\"(c.v[1]), \"+f\"(c.v[2]), \"+f\"(c.v[3])\n"
    "                     : \"r\"(a.r[0]), \"r\"(a.r[1]), \"r\"(a.r[2]), \"r\"(a.r[3]), \"r\"(b.r[0]), \"r\"(b.r[1]));\n"
    "    }\n"
    "};\n"
    "/* tf32: m16n8k8 per ak_lay_mma1688; inputs rounded to tf32 (cvt.rna) */\n"
    "AK_INLINE ak_u32 ak_f2tf32(float f) {\n"
    "    ak_u32 r;\n"
    "    asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(f));\n"
    "    return r;\n"
    "}\n"
    "template <> struct ak_mma<ak_f32_t, true> : ak_mma_sync_c {\n"
    "    enum { OK = 1, K = 8 };\n"
    "    struct A { ak_u32 r[4]; };\n"
    "    struct B { ak_u32 r[2]; };\n"
    "    static AK_INLINE void load_a(A& a, const float* s, int ld) {\n"
    "        const int l = ak_lane(), g = l / 4, t = l % 4;\n"
    "        a.r[0] = ak_f2tf32(s[g * ld + t]);\n"
    "        a.r[1] = ak_f2tf32(s[(g + 8) * ld + t]);\n"
    "        a.r[2] = ak_f2tf32(s[g * ld + t + 4]);\n"
    "        a.r[3] = ak_f2tf32(s[(g + 8) * ld + t + 4]);\n"
    "    }\n"
    "    static AK_INLINE void load_b(B& b, const float* s, int ld) {\n"
    "        const int l = ak_lane(), g = l / 4, t = l % 4;\n"
    "        b.r[0] = ak_f2tf32(s[g * ld + t]);\n"
    "        b.r[1] = ak_f2tf32(s[g * ld + t + 4]);\n"
    "    }\n"
    "    static AK_INLINE void mma(C& c, const A& a, const B& b) {\n"
    "        asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
    "                     : \"+f\"(c.v[0]), \"+f\"(c.v[1]), \"+f\"(c.v[2]), \"+f\"(c.v[3])\n"
    "                     : \"r\"(a.r[0]), \"r\"(a.r[1]), \"r\"(a.r[2]), \"r\"(a.r[3]), \"r\"(b.r[0]), \"r\"(b.r[1]));\n"
    "    }\n"
    "};\n"
    "#endif /* AK_MMA_SYNC */\n"
    "\n"
    "/* ---- Hopper (sm_90a) warpgroup MMA: wgmma + cp.async ----------------------\n"
    " * Compiled only for sm_90a (NVRTC --gpu-architecture=sm_90a defines\n"
    " * __CUDA_ARCH_FEAT_SM90_ALL); AK_WGMMA says it is there.\n"
    " * Shared-memory operand layout (K-major, 128-byte swizzle): a tile of R rows\n"
    " * x 64 16-bit k values takes R x 128 bytes, 1024-byte aligned; the 16-byte\n"
    " * chunk c (k = 8c..8c+7) of row r sits at r * 128 + ((c ^ (r % 8)) * 16)\n"
    " * (ak_sw128). ak_wgmma_desc(p) describes such a tile starting at p  (a row\n"
    " * multiple of 8; add 32 bytes per k step within the 128-byte row).\n"
    " * ak_wgmma_<f16|bf16>_n<128|256>(d, da, db, acc): one warpgroup (4 warps,\n"
    " * 128 threads, starting at a warp index divisible by 4) does\n"
    " * D(64 x N) = A(64 x 16) B(16 x N) (+ D when acc != 0), A rows from da, B\n"
    " * (ak_wgmma_tf32_n*: k step 8 of fp32 data read as TF32, i.e. the low 13\n"
    " * mantissa bits ignored; a 128-byte row holds 32 of them)\n"
    " * \"rows\" (= columns n) from db, both K-major. Accumulator d[r] of thread t\n"
    " * (warp w = t / 32, lane l): row 16 w + l / 4 + 8 ((r / 2) % 2), column\n"
    " * 8 (r / 4) + 2 (l % 4) + r % 2 (ak_wgmma_row / ak_wgmma_col).\n"
    " * Order: ak_wgmma_fence() before the first wgmma of a batch, ak_wgmma_commit()\n"
    " * after, ak_wgmma_wait<N>() before touching d or overwriting the operands.\n"
    " * Shared memory filled by cp.async (ak_cp_async16: 16 bytes, the tail past\n"
    " * src_bytes zero-filled) needs ak_cp_async_wait<N>() + ak_fence_proxy_async()\n"
    " * in each writing thread, then a barrier, before wgmma reads it. */\n"
    "#if defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
    "#define AK_WGMMA 1\n"
    "AK_INLINE int ak_sw128(int r, int c) { return r * 128 + ((c ^ (r & 7)) << 4); }\n"
    "AK_INLINE ak_u64 ak_wgmma_desc(const void* p) {\n"
    "    const ak_u32 a = ak_smem_addr(p);\n"
    "    return (ak_u64)((a & 0x3FFFF) >> 4) | ((ak_u64)1 << 16) | ((ak_u64)(1024 >> 4) << 32) | ((ak_u64)1 << 62);\n"
    "}\n"
    "AK_INLINE int ak_wgmma_row(int t, int r) { return 16 * ((t % 128) / 32) + (t % 32) / 4 + 8 * ((r / 2) % 2); }\n"
    "AK_INLINE int ak_wgmma_col(int t, int r) { return 8 * (r / 4) + 2 * (t % 4) + r % 2; }\n"
    "AK_INLINE void ak_wgmma_fence(void) { asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\"); }\n"
    "AK_INLINE void ak_wgmma_commit(void) { asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\"); }\n"
    "template <int N> AK_INLINE void ak_wgmma_wait(void) { asm volatile(\"wgmma.wait_group.sync.aligned %0;\\n\" ::\"n\"(N) : \"memory\"); }\n"
    "AK_INLINE void ak_fence_proxy_async(void) { asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: \"memory\"); }\n"
    "AK_INLINE void ak_cp_async16(void* smem, const void* src, int src_bytes) {\n"
    "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\\n\" ::\"r\"(ak_smem_addr(smem)), \"l\"(src), \"r\"(src_bytes) : \"memory\");\n"
    "}\n"
    "AK_INLINE void ak_cp_async_commit(void) { asm volatile(\"cp.async.commit_group;\\n\" ::: \"memory\"); }\n"
    "template <int N> AK_INLINE void ak_cp_async_wait(void) { asm volatile(\"cp.async.wait_group %0;\\n\" ::\"n\"(N) : \"memory\"); }\n"
    "/* The wgmma wrappers, one macro: AK_WGMMA_FN(N, NAME, INSTR, TAIL) defines\n"
    " * NAME(d, da, db, acc) as wgmma.mma_async.sync.aligned.<INSTR> with N (n128 or\n"
    " * n256) accumulators' operands, TAIL the immediates after the scale ones\n"
    " * (\", 0, 0\": no transpose, for f16/bf16; none for tf32). For each N:\n"
    " * AK_WGMMA_OUT_<N> the \"+f\"(d[i]) operands (64 or 128 of them, from\n"
    " * AK_WGMMA_D8(i): d[i] .. d[i + 7]), AK_WGMMA_REGS_<N> the instruction's\n"
    " * \"%0, %1, ...\" list naming them (AK_WGMMA_R10(t): %t0 .. %t9), then the two\n"
    " * descriptors and the acc predicate as the next operand numbers. */\n"
    "#define AK_WGMMA_D8(i) \"+f\"(d[i]), \"+f\"(d[i + 1]), \"+f\"(d[i + 2]), \"+f\"(d[i + 3]), \"+f\"(d[i + 4]), \"+f\"(d[i + 5]), \"+f\"(d[i + 6]), \"+f\"(d[i + 7])\n"
    "#define AK_WGMMA_D64(i) AK_WGMMA_D8(i), AK_WGMMA_D8(i + 8), AK_WGMMA_D8(i + 16), AK_WGMMA_D8(i + 24), \\\n"
    "    AK_WGMMA_D8(i + 32), AK_WGMMA_D8(i + 40), AK_WGMMA_D8(i + 48), AK_WGMMA_D8(i + 56)\n"
    "#define AK_WGMMA_R10(t) \"%\" #t \"0, %\" #t \"1, %\" #t \"2, %\" #t \"3, %\" #t \"4, %\" #t \"5, %\" #t \"6, %\" #t \"7, %\" #t \"8, %\" #t \"9\"\n"
    "#define AK_WGMMA_OUT_n128 AK_WGMMA_D64(0)\n"
    "#define AK_WGMMA_OUT_n256 AK_WGMMA_D64(0), AK_WGMMA_D64(64)\n"
    "#define AK_WGMMA_REGS_n128 \"%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, \" AK_WGMMA_R10(1) \", \" AK_WGMMA_R10(2) \", \" \\\n"
    "    AK_WGMMA_R10(3) \", \" AK_WGMMA_R10(4) \", \" AK_WGMMA_R10(5) \", %60, %61, %62, %63\"\n"
    "#define AK_WGMMA_REGS_n256 AK_WGMMA_REGS_n128 \", %64, %65, %66, %67, %68, %69, \" AK_WGMMA_R10(7) \", \" AK_WGMMA_R10(8) \", \" \\\n"
    "    AK_WGMMA_R10(9) \", \" AK_WGMMA_R10(10) \", \" AK_WGMMA_R10(11) \", %120, %121, %122, %123, %124, %125, %126, %127\"\n"
    "#define AK_WGMMA_DESC_n128 \"%64, %65\"\n"
    "#define AK_WGMMA_PRED_n128 \"%66\"\n"
    "#define AK_WGMMA_DESC_n256 \"%128, %129\"\n"
    "#define AK_WGMMA_PRED_n256 \"%130\"\n"
    "#define AK_WGMMA_FN(N, NAME, INSTR, TAIL) \\\n"
    "    AK_INLINE void NAME(float* d, ak_u64 da, ak_u64 db, int acc) { \\\n"
    "        asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, \" AK_WGMMA_PRED_##N \", 0;\\nwgmma.mma_async.sync.aligned.\" INSTR \\\n"
    "                     \" {\" AK_WGMMA_REGS_##N \"}, \" AK_WGMMA_DESC_##N \", p, 1, 1\" TAIL \";\\n}\\n\" \\\n"
    "                     : AK_WGMMA_OUT_##N : \"l\"(da), \"l\"(db), \"r\"(acc) : \"memory\"); \\\n"
    "    }\n"
    "AK_WGMMA_FN(n128, ak_wgmma_f16_n128, \"m64n128k16.f32.f16.f16\", \", 0, 0\")\n"
    "AK_WGMMA_FN(n128, ak_wgmma_bf16_n128, \"m64n128k16.f32.bf16.bf16\", \", 0, 0\")\n"
    "AK_WGMMA_FN(n256, ak_wgmma_f16_n256, \"m64n256k16.f32.f16.f16\", \", 0, 0\")\n"
    "AK_WGMMA_FN(n256, ak_wgmma_bf16_n256, \"m64n256k16.f32.bf16.bf16\", \", 0, 0\")\n"
    "AK_WGMMA_FN(n128, ak_wgmma_tf32_n128, \"m64n128k8.f32.tf32.tf32\", \"\")\n"
    "AK_WGMMA_FN(n256, ak_wgmma_tf32_n256, \"m64n256k8.f32.tf32.tf32\", \"\")\n"
    "#endif /* AK_WGMMA */\n"
    "#endif /* !AK_HOST_LAYOUT_TEST */\n"
    ;

#ifndef AMDKIT_NO_OPS   /* the kernel library's sources */

/* kernels/activation.hip */
static const char _ak_src_activation[] =
    "/* kernels/activation.hip: unary activations y = f(x) for f32, f16 and bf16\n"
    " * storage, fp32 math: relu, leaky_relu (slope = param), sigmoid, tanh, silu,\n"
    " * gelu (erf form) and gelu (tanh form). One kernel per dtype; the op code\n"
    " * (ak_unary_op of amdkit.h) picks the loop once, outside it. NaN inputs give\n"
    " * NaN outputs (relu and leaky_relu too). In-place (y == x) is fine.\n"
    " * Host wrapper: ak_unary in amdkit.h (>>impl:ops-elementwise). */\n"
    "\n"
    "/* the ops (AK_UNARY_* codes and ak_uop_* functors) are in the prelude: GEMM\n"
    " * epilogues use them too */\n"
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

/* kernels/attention.hip */
static const char _ak_src_attention[] =
    "// kernels/attention.hip - fused attention forward, SIMT path (every arch; the\n"
    "// path of matrix_cores = off, gfx906, gfx1030, f32 inputs and head sizes the\n"
    "// matrix-core kernels do not take), and the combine step of the split\n"
    "// (flash-decoding) path. Host wrapper: ak_attention in amdkit.h\n"
    "// (>>impl:ops-attention), which also holds the CPU reference.\n"
    "//\n"
    "// O = softmax(scale * Q K^T [+ causal mask]) V, one pass over K / V with an\n"
    "// online softmax in fp32 (scores never stored). Rows: a kernel block works on\n"
    "// the rows of one (batch, kv head) pair: row r = g * seq_q + i, g the query\n"
    "// head inside the GQA group (hq = hkv * group + g), i the query index; so the\n"
    "// rows of a pair are its group's query heads one after another, and a row's\n"
    "// global index (b * hq + hq_idx) * seq_q + i is also its lse index.\n"
    "// Causal mask, bottom-right aligned (FlashAttention 2): query i sees keys\n"
    "// j <= i + seq_kv - seq_q; a row that sees no key gets O = 0, lse = -inf.\n"
    "//\n"
    "// Block: 256 threads in groups of G = DMAX / 16 lanes; each group owns one\n"
    "// row (16 of its q and o elements per lane: lane l holds dims l + G * e) and\n"
    "// a `slot`: with R rows per block there are 256 / G / R slots, and slot s\n"
    "// takes the keys c of each tile with c % slots == s (R < 256 / G when a pair\n"
    "// has few rows: decode). Slots are merged through shared memory at the end.\n"
    "// K / V tiles of BK = 4096 / DMAX keys live in shared memory as fp32 rows of\n"
    "// DMAX + G floats (the pad keeps the groups of a wave on distinct banks); the\n"
    "// next tile is loaded into registers while the current one is used.\n"
    "// Scores are kept in base 2: q is pre-multiplied by scale * log2(e).\n"
    "//\n"
    "// Split (flash-decoding): blockIdx.y = split s takes keys\n"
    "// [s * split_len, (s + 1) * split_len); with nsplit > 1 a block writes its\n"
    "// normalized partial output (part, fp32, [row][split][DMAX]) and its base-2\n"
    "// log-sum-exp (after the partial outputs: [row][split]) instead of O, and\n"
    "// ak_attn_combine merges the splits of each row.\n"
    "//\n"
    "// kernels: ak_attn_combine_f32 ak_attn_combine_f16 ak_attn_combine_bf16 ak_attn_simt32_f32 ak_attn_simt32_f16 ak_attn_simt32_bf16 ak_attn_simt64_f32 ak_attn_simt64_f16 ak_attn_simt64_bf16 ak_attn_simt128_f32 ak_attn_simt128_f16 ak_attn_simt128_bf16 ak_attn_simt256_f32 ak_attn_simt256_f16 ak_attn_simt256_bf16\n"
    "\n"
    "#define AK_ATTN_THREADS 256\n"
    "#define AK_ATTN_CH 4   // keys per online-softmax update of a group\n"
    "\n"
    "// Load a tile's 8-element chunk `ci` (of BK * DMAX / 8) of rows [k0, k0 + BK)\n"
    "// (rows >= klim and dims >= d read as 0) into f[8] (fp32).\n"
    "template <class D, int DMAX>\n"
    "AK_INLINE void ak_attn_ld_chunk(const typename D::T* p, ak_i64 ss, int k0, int klim, int d, int ci, bool vec,\n"
    "                                float f[8]) {\n"
    "    const int c = ci / (DMAX / 8), dd = (ci % (DMAX / 8)) * 8;\n"
    "    const ak_i64 row = (ak_i64)k0 + c;\n"
    "    if (row < klim && vec && dd < d) {\n"
    "        D::ld8(p + row * ss + dd, f);\n"
    "    } else {\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < 8; e++) f[e] = (row < klim && dd + e < d) ? D::to(p[row * ss + dd + e]) : 0.0f;\n"
    "    }\n"
    "}\n"
    "\n"
    "template <class D, int DMAX>\n"
    "AK_INLINE void ak_attn_simt(const typename D::T* AK_RESTRICT q, const typename D::T* AK_RESTRICT k,\n"
    "                            const typename D::T* AK_RESTRICT v, typename D::T* AK_RESTRICT o, float* AK_RESTRICT lse,\n"
    "                            int hkv, int group, int sq, int skv, int d, ak_i64 qsb, ak_i64 qsh, ak_i64 qss, ak_i64 ksb,\n"
    "                            ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh, ak_i64 vss, ak_i64 osb, ak_i64 osh,\n"
    "                            ak_i64 oss, float scale_log2, int causal, int R, int nsplit, int split_len,\n"
    "                            float* AK_RESTRICT part, int vec) {\n"
    "    typedef typename D::T T;\n"
    "    enum { G = DMAX / 16, E = 16, NG = AK_ATTN_THREADS / G, BK = 4096 / DMAX, LD = DMAX + G,\n"
    "           CHUNKS = BK * DMAX / 8 / AK_ATTN_THREADS };\n"
    "    __shared__ float ks[BK * LD];\n"
    "    __shared__ float vs[BK * LD];\n"
    "    __shared__ float ml[2 * NG];\n"
    "\n"
    "    const int tid = (int)threadIdx.x, lane = tid % G, gi = tid / G;\n"
    "    const int row = gi % R, slots = NG / R, slot = gi / R;\n"
    "    const int pair = (int)blockIdx.z, b = pair / hkv, h = pair % hkv;\n"
    "    const int rows = group * sq;\n"
    "    const int r0 = (int)blockIdx.x * R;\n"
    "    const int r = r0 + row;\n"
    "    const bool valid = r < rows;\n"
    "    const int g = valid ? r / sq : 0, i = valid ? r % sq : 0;\n"
    "    const int hq_idx = h * group + g;\n"
    "    const int diag = skv - sq;  // causal: key j visible to query i when j <= i + diag\n"
    "\n"
    "    // keys this block needs: [kbeg, kend)\n"
    "    int kend = skv;\n"
    "    if (causal) {\n"
    "        const int rl = (r0 + R < rows ? r0 + R : rows) - 1;\n"
    "        const int imax = (r0 / sq != rl / sq) ? sq - 1 : rl % sq;\n"
    "        const int lim = imax + diag + 1;\n"
    "        kend = lim < kend ? lim : kend;\n"
    "    }\n"
    "    const int kbeg = (int)blockIdx.y * split_len;\n"
    "    {\n"
    "        const int se = kbeg + split_len;\n"
    "        if (se < kend) kend = se;\n"
    "    }\n"
    "    const int myend = causal ? (i + diag + 1 < kend ? i + diag + 1 : kend) : kend;  // this row's key limit\n"
    "\n"
    "    const T* kp = k + (ak_i64)b * ksb + (ak_i64)h * ksh;\n"
    "    const T* vp = v + (ak_i64)b * vsb + (ak_i64)h * vsh;\n"
    "\n"
    "    float qr[E], acc[E];\n"
    "    {\n"
    "        const T* qp = q + (ak_i64)b * qsb + (ak_i64)hq_idx * qsh + (ak_i64)i * qss;\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < E; e++) {\n"
    "            const int dd = lane + G * e;\n"
    "            qr[e] = (valid && dd < d) ? D::to(qp[dd]) * scale_log2 : 0.0f;\n"
    "            acc[e] = 0.0f;\n"
    "        }\n"
    "    }\n"
    "    float m = -AK_INF, l = 0.0f;\n"
    "\n"
    "    float pk[CHUNKS][8], pv[CHUNKS][8];\n"
    "    if (kbeg < kend) {\n"
    "#pragma unroll\n"
    "        for (int c = 0; c < CHUNKS; c++) {\n"
    "            ak_attn_ld_chunk<D, DMAX>(kp, kss, kbeg, kend, d, tid + c * AK_ATTN_THREADS, vec != 0, pk[c]);\n"
    "            ak_attn_ld_chunk<D, DMAX>(vp, vss, kbeg, kend, d, tid + c * AK_ATTN_THREADS, vec != 0, pv[c]);\n"
    "        }\n"
    "    }\n"
    "    for (int k0 = kbeg; k0 < kend; k0 += BK) {\n"
    "        __syncthreads();  // previous tile fully used\n"
    "#pragma unroll\n"
    "        for (int c = 0; c < CHUNKS; c++) {\n"
    "            const int ci = tid + c * AK_ATTN_THREADS;\n"
    "            const int cc = ci / (DMAX / 8), dd = (ci % (DMAX / 8)) * 8;\n"
    "#pragma unroll\n"
    "            for (int e = 0; e < 8; e++) {\n"
    "                ks[cc * LD + dd + e] = pk[c][e];\n"
    "                vs[cc * LD + dd + e] = pv[c][e];\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (k0 + BK < kend) {  // prefetch the next tile while this one is used\n"
    "#pragma unroll\n"
    "            for (int c = 0; c < CHUNKS; c++) {\n"
    "                ak_attn_ld_chunk<D, DMAX>(kp, kss, k0 + BK, kend, d, tid + c * AK_ATTN_THREADS, vec != 0, pk[c]);\n"
    "                ak_attn_ld_chunk<D, DMAX>(vp, vss, k0 + BK, kend, d, tid + c * AK_ATTN_THREADS, vec != 0, pv[c]);\n"
    "            }\n"
    "        }\n"
    "        // the group's keys of this tile: c = slot + (t * CH + j) * slots (uniform trip count in a wave)\n"
    "        const int per = (BK + slots - 1) / slots;\n"
    "        for (int t = 0; t * AK_ATTN_CH < per; t++) {\n"
    "            float s[AK_ATTN_CH];\n"
    "            float mc = -AK_INF;\n"
    "#pragma unroll\n"
    "            for (int j = 0; j < AK_ATTN_CH; j++) {\n"
    "                const int c = slot + (t * AK_ATTN_CH + j) * slots;\n"
    "                const int cs = c < BK ? c : BK - 1;\n"
    "                float x = 0.0f;\n"
    "#pragma unroll\n"
    "                for (int e = 0; e < E; e++) x += qr[e] * ks[cs * LD + lane + G * e];\n"
    "#pragma unroll\n"
    "                for (int off = G / 2; off > 0; off >>= 1) x += ak_shfl_xor(x, off);\n"
    "                const bool ok = valid && c < BK && k0 + c < myend;\n"
    "                s[j] = ok ? x : -AK_INF;\n"
    "                mc = fmaxf(mc, s[j]);\n"
    "            }\n"
    "            const float mn = fmaxf(m, mc);\n"
    "            if (mn != -AK_INF) {  // else nothing visible yet\n"
    "                const float alpha = ak_exp2(m - mn);  // m = -inf: 0\n"
    "                l *= alpha;\n"
    "#pragma unroll\n"
    "                for (int e = 0; e < E; e++) acc[e] *= alpha;\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < AK_ATTN_CH; j++) {\n"
    "                    const float p = ak_exp2(s[j] - mn);  // -inf: 0\n"
    "                    if (p != 0.0f) {\n"
    "                        const int c = slot + (t * AK_ATTN_CH + j) * slots;\n"
    "                        l += p;\n"
    "#pragma unroll\n"
    "                        for (int e = 0; e < E; e++) acc[e] += p * vs[c * LD + lane + G * e];\n"
    "                    }\n"
    "                }\n"
    "                m = mn;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "\n"
    "    if (slots > 1) {  // merge the slots of each row (shared memory of the tiles is free now)\n"
    "        float* so = ks;  // [NG][DMAX] partial outputs\n"
    "        __syncthreads();\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < E; e++) so[gi * DMAX + lane + G * e] = acc[e];\n"
    "        if (lane == 0) { ml[2 * gi] = m; ml[2 * gi + 1] = l; }\n"
    "        __syncthreads();\n"
    "        if (slot == 0) {\n"
    "            float M = -AK_INF;\n"
    "            for (int sl = 0; sl < slots; sl++) M = fmaxf(M, ml[2 * (row + sl * R)]);\n"
    "            float L = 0.0f;\n"
    "#pragma unroll\n"
    "            for (int e = 0; e < E; e++) acc[e] = 0.0f;\n"
    "            if (M != -AK_INF) {\n"
    "                for (int sl = 0; sl < slots; sl++) {\n"
    "                    const int gs = row + sl * R;\n"
    "                    const float w = ak_exp2(ml[2 * gs] - M);\n"
    "                    L += w * ml[2 * gs + 1];\n"
    "#pragma unroll\n"
    "                    for (int e = 0; e < E; e++) acc[e] += w * so[gs * DMAX + lane + G * e];\n"
    "                }\n"
    "            }\n"
    "            m = M;\n"
    "            l = L;\n"
    "        }\n"
    "    }\n"
    "    if (slot != 0 || !valid) return;\n"
    "\n"
    "    const float inv = l > 0.0f ? 1.0f / l : 0.0f;\n"
    "    const float lse2 = l > 0.0f ? m + log2f(l) : -AK_INF;  // base 2\n"
    "    const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;  // (b * hq + hq_idx) * sq + i\n"
    "    if (nsplit > 1) {\n"
    "        float* po = part + (grow * nsplit + blockIdx.y) * DMAX;\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < E; e++) po[lane + G * e] = acc[e] * inv;\n"
    "        if (lane == 0) {\n"
    "            const ak_i64 rows_all = (ak_i64)gridDim.z * group * sq;  // batch * hq * sq\n"
    "            part[rows_all * nsplit * DMAX + grow * nsplit + blockIdx.y] = lse2;\n"
    "        }\n"
    "        return;\n"
    "    }\n"
    "    T* op = o + (ak_i64)b * osb + (ak_i64)hq_idx * osh + (ak_i64)i * oss;\n"
    "#pragma unroll\n"
    "    for (int e = 0; e < E; e++) {\n"
    "        const int dd = lane + G * e;\n"
    "        if (dd < d) op[dd] = D::from(acc[e] * inv);\n"
    "    }\n"
    "    if (lse && lane == 0) lse[grow] = lse2 * AK_LN2;\n"
    "}\n"
    "\n"
    "#define AK_ATTN_SIMT(DMAX, DT, D)                                                                                    \\\n"
    "    AK_KERNEL void __launch_bounds__(AK_ATTN_THREADS) ak_attn_simt##DMAX##_##DT(                                    \\\n"
    "        const D::T* q, const D::T* k, const D::T* v, D::T* o, float* lse, int hkv, int group, int sq, int skv,     \\\n"
    "        int d, ak_i64 qsb, ak_i64 qsh, ak_i64 qss, ak_i64 ksb, ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh,      \\\n"
    "        ak_i64 vss, ak_i64 osb, ak_i64 osh, ak_i64 oss, float scale_log2, int causal, int R, int nsplit,           \\\n"
    "        int split_len, float* part, int vec) {                                                                       \\\n"
    "        ak_attn_simt<D, DMAX>(q, k, v, o, lse, hkv, group, sq, skv, d, qsb, qsh, qss, ksb, ksh, kss, vsb, vsh, vss, \\\n"
    "                              osb, osh, oss, scale_log2, causal, R, nsplit, split_len, part, vec);                  \\\n"
    "    }\n"
    "// the three dtypes of one head_dim bound\n"
    "#define AK_ATTN_SIMT_DTYPES(DMAX) AK_ATTN_SIMT(DMAX, f32, ak_f32_t) AK_ATTN_SIMT(DMAX, f16, ak_f16_t) AK_ATTN_SIMT(DMAX, bf16, ak_bf16_t)\n"
    "AK_ATTN_SIMT_DTYPES(32)\n"
    "AK_ATTN_SIMT_DTYPES(64)\n"
    "AK_ATTN_SIMT_DTYPES(128)\n"
    "AK_ATTN_SIMT_DTYPES(256)\n"
    "\n"
    "// Merge the nsplit partial results of each row (one wave per row): weights\n"
    "// w_s = 2^(lse_s - max), O = sum w_s o_s / sum w_s, lse = log(sum 2^lse_s).\n"
    "// part: [rows][nsplit][dmax] outputs, then [rows][nsplit] base-2 lse; rows =\n"
    "// batch * hq * sq, row = (b * hq + h) * sq + i. A row whose splits are all\n"
    "// empty (-inf) gets O = 0 and lse = -inf.\n"
    "template <class D>\n"
    "AK_INLINE void ak_attn_combine(const float* AK_RESTRICT part, int nsplit, int dmax, ak_i64 rows, int hq, int sq,\n"
    "                               int d, typename D::T* AK_RESTRICT o, ak_i64 osb, ak_i64 osh, ak_i64 oss,\n"
    "                               float* AK_RESTRICT lse) {\n"
    "    const ak_i64 row = (ak_i64)blockIdx.x * (blockDim.x / AK_WAVE) + ak_wave_id();\n"
    "    if (row >= rows) return;  // whole waves leave together\n"
    "    const int lane = ak_lane();\n"
    "    const float* pl = part + rows * nsplit * dmax + row * nsplit;\n"
    "    float M = -AK_INF;\n"
    "    for (int s = lane; s < nsplit; s += AK_WAVE) M = fmaxf(M, pl[s]);\n"
    "    M = ak_warp_max(M);\n"
    "    float W = 0.0f;\n"
    "    if (M != -AK_INF)\n"
    "        for (int s = lane; s < nsplit; s += AK_WAVE) W += ak_exp2(pl[s] - M);\n"
    "    W = ak_warp_sum(W);\n"
    "    const float inv = W > 0.0f ? 1.0f / W : 0.0f;\n"
    "    const int i = (int)(row % sq);\n"
    "    const ak_i64 bh = row / sq;\n"
    "    const int b = (int)(bh / hq), h = (int)(bh % hq);\n"
    "    typename D::T* op = o + (ak_i64)b * osb + (ak_i64)h * osh + (ak_i64)i * oss;\n"
    "    const float* po = part + row * nsplit * dmax;\n"
    "    for (int dd = lane; dd < d; dd += AK_WAVE) {\n"
    "        float x = 0.0f;\n"
    "        if (M != -AK_INF)\n"
    "            for (int s = 0; s < nsplit; s++) {\n"
    "                const float w = ak_exp2(pl[s] - M);\n"
    "                if (w != 0.0f) x += w * po[(ak_i64)s * dmax + dd];\n"
    "            }\n"
    "        op[dd] = D::from(x * inv);\n"
    "    }\n"
    "    if (lse && lane == 0) lse[row] = W > 0.0f ? (M + log2f(W)) * AK_LN2 : -AK_INF;\n"
    "}\n"
    "\n"
    "#define AK_ATTN_COMBINE(DT, D)                                                                                      \\\n"
    "    AK_KERNEL void ak_attn_combine_##DT(const float* part, int nsplit, int dmax, ak_i64 rows, int hq, int sq, int d, \\\n"
    "                                        D::T* o, ak_i64 osb, ak_i64 osh, ak_i64 oss, float* lse) {                  \\\n"
    "        ak_attn_combine<D>(part, nsplit, dmax, rows, hq, sq, d, o, osb, osh, oss, lse);                            \\\n"
    "    }\n"
    "AK_ATTN_COMBINE(f32, ak_f32_t)\n"
    "AK_ATTN_COMBINE(f16, ak_f16_t)\n"
    "AK_ATTN_COMBINE(bf16, ak_bf16_t)\n"
    ;

/* kernels/attention_mma.hip */
static const char _ak_src_attention_mma[] =
    "// kernels/attention_mma.hip - fused attention forward on the matrix units\n"
    "// (flash-attention 2 structure), head_dim 64 and 128, f16 / bf16 inputs,\n"
    "// fp32 accumulation and softmax. Host wrapper: ak_attention in amdkit.h\n"
    "// (>>impl:ops-attention), which picks this family where the arch has\n"
    "// matrix instructions and matrix_cores is not off, and the SIMT family of\n"
    "// kernels/attention.hip otherwise.\n"
    "//\n"
    "// Work layout (the same as the SIMT kernels, so the host code and the\n"
    "// split-combine kernel are shared): the rows of one (batch, kv head) pair\n"
    "// are its GQA group's query heads one after another (row r = g * seq_q + i),\n"
    "// blockIdx.x picks 16 * WM consecutive rows, blockIdx.y the split of seq_kv\n"
    "// (flash-decoding; part / lse partials as in attention.hip), blockIdx.z the\n"
    "// pair. Packing a GQA group into the rows lets one 16-row tile hold all\n"
    "// query heads of a decode step, so K and V are read once per group.\n"
    "//\n"
    "// Block: WM x WN warps. Warp (wm, wn) owns rows 16 wm .. 16 wm + 15 of the\n"
    "// block and keys wn * BK / WN .. of every K / V tile (WN > 1 for decode,\n"
    "// where a block has one row tile: the warps split each tile's keys and are\n"
    "// merged through shared memory at the end). K / V tiles of BK = 64 keys go\n"
    "// through shared memory (rows padded by 16 bytes against bank conflicts) in\n"
    "// ST stages: 2 for prefill, 3 for the decode form (more bytes in flight).\n"
    "//\n"
    "// NVIDIA (sm_80+, mma.sync m16n8k16 via the prelude's ak_mma layer): tiles\n"
    "// are copied with cp.async (zero-filled past the end), Q fragments stay in\n"
    "// registers (ldmatrix), S = Q K^T on the tensor cores, the online softmax on\n"
    "// the S accumulators, P is converted in registers to the A fragments of\n"
    "// O += P V (the m16n8 C layout of two n-tiles is the m16k16 A layout), V\n"
    "// fragments through ldmatrix.trans.\n"
    "//\n"
    "// kernels: ak_attn_mma64_f16 ak_attn_mma64_bf16 ak_attn_mma128_f16 ak_attn_mma128_bf16 ak_attn_mmadec64_f16 ak_attn_mmadec64_bf16 ak_attn_mmadec128_f16 ak_attn_mmadec128_bf16 ak_attn_mmagen64_f16 ak_attn_mmagen64_bf16 ak_attn_mmagen128_f16 ak_attn_mmagen128_bf16\n"
    "\n"
    "#define AK_AMMA_BK 64\n"
    "\n"
    "// One argument list for every kernel of the family (the SIMT kernels' list of\n"
    "// kernels/attention.hip: d, R and vec unused here), and the list the kernels\n"
    "// pass to the two device functions (ak_attn_mma_gen, ak_attn_mma), with the\n"
    "// names it uses.\n"
    "#define AK_AMMA_KPARAMS(D)                                                                                       \\\n"
    "    const D::T* q, const D::T* k, const D::T* v, D::T* o, float* lse, int hkv, int group, int sq, int skv, int d, \\\n"
    "        ak_i64 qsb, ak_i64 qsh, ak_i64 qss, ak_i64 ksb, ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh, ak_i64 vss,  \\\n"
    "        ak_i64 osb, ak_i64 osh, ak_i64 oss, float scale_log2, int causal, int R, int nsplit, int split_len,         \\\n"
    "        float* part, int vec\n"
    "#define AK_AMMA_PARAMS(D)                                                                                        \\\n"
    "    const typename D::T* AK_RESTRICT q, const typename D::T* AK_RESTRICT k, const typename D::T* AK_RESTRICT v,  \\\n"
    "        typename D::T* AK_RESTRICT o, float* AK_RESTRICT lse, int hkv, int group, int sq, int skv, ak_i64 qsb,     \\\n"
    "        ak_i64 qsh, ak_i64 qss, ak_i64 ksb, ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh, ak_i64 vss,            \\\n"
    "        ak_i64 osb, ak_i64 osh, ak_i64 oss, float scale_log2, int causal, int nsplit, int split_len,                \\\n"
    "        float* AK_RESTRICT part\n"
    "#define AK_AMMA_ARGS                                                                                             \\\n"
    "    q, k, v, o, lse, hkv, group, sq, skv, qsb, qsh, qss, ksb, ksh, kss, vsb, vsh, vss, osb, osh, oss, scale_log2, \\\n"
    "        causal, nsplit, split_len, part\n"
    "\n"
    "#if defined(AK_MMA_MFMA) || defined(AK_MMA_WMMA11) || defined(AK_MMA_WMMA12) || defined(AK_MMA_SYNC)\n"
    "// Generic matrix path: the kernels of AMD targets (MFMA on CDNA, WMMA on\n"
    "// RDNA3 / RDNA4), and ak_attn_mmagen* on every matrix target (NVIDIA too,\n"
    "// where the GPU suite runs it against the CPU reference, so the algorithm is\n"
    "// checked on silicon; the per-instruction lane layouts are checked on the\n"
    "// host by tests/t_matrix.c). Written on the generic fragment\n"
    "// operations of the prelude's ak_mma<D> (load_a / load_b / mma / c_row /\n"
    "// c_col), whose lane layouts differ per instruction: the scores leave the\n"
    "// accumulators through shared memory. Per wave: M query rows (32 MFMA, 16\n"
    "// WMMA); K / V tiles of AK_AMMA_BK_AMD keys, V stored transposed (Vt[d][key],\n"
    "// so P V reads it k-contiguous); S = Q K^T (Q fragments from global memory)\n"
    "// -> S in shared memory -> online softmax by AK_WAVE / M lanes per row ->\n"
    "// P (input type) and the row rescale factors in shared memory -> O += P Vt\n"
    "// on the accumulators. W waves, each on its own rows; no cross-wave merge.\n"
    "#define AK_AMMA_BK_AMD 32\n"
    "template <class D, int HD, int W>\n"
    "AK_INLINE void ak_attn_mma_gen(AK_AMMA_PARAMS(D)) {\n"
    "    typedef typename D::T T;\n"
    "    typedef ak_mma<D> MM;\n"
    "    enum {\n"
    "        M = MM::M, N = MM::N, KS = MM::K, BK = AK_AMMA_BK_AMD, BQ = M * W, NT = AK_WAVE * W,\n"
    "        LDK = HD + 8, LDV = BK + 8, LDP = BK + 8, LDS_ = BK + 4,\n"
    "        LPR = AK_WAVE / M,   // lanes per row in the softmax\n"
    "        CPL = BK / LPR,      // columns per lane\n"
    "        NTO = HD / N         // O tiles per wave\n"
    "    };\n"
    "    __shared__ __align__(16) T ks[BK * LDK];\n"
    "    __shared__ __align__(16) T vt[HD * LDV];\n"
    "    __shared__ __align__(16) T ps[W * M * LDP];\n"
    "    __shared__ float ss[W * M * LDS_];\n"
    "    __shared__ float alpha_s[W * M];\n"
    "\n"
    "    const int tid = (int)threadIdx.x, lane = ak_lane(), wave = ak_wave_id();\n"
    "    const int pair = (int)blockIdx.z, b = pair / hkv, h = pair % hkv;\n"
    "    const int rows = group * sq;\n"
    "    const int bx = causal ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x;\n"
    "    const int r0 = bx * BQ;\n"
    "    const int diag = skv - sq;\n"
    "    int kend = skv;\n"
    "    if (causal) {\n"
    "        const int rl = (r0 + BQ < rows ? r0 + BQ : rows) - 1;\n"
    "        const int imax = (r0 / sq != rl / sq) ? sq - 1 : rl % sq;\n"
    "        if (imax + diag + 1 < kend) kend = imax + diag + 1;\n"
    "    }\n"
    "    const int kbeg = (int)blockIdx.y * split_len;\n"
    "    if (kbeg + split_len < kend) kend = kbeg + split_len;\n"
    "    const T* kp = k + (ak_i64)b * ksb + (ak_i64)h * ksh;\n"
    "    const T* vp = v + (ak_i64)b * vsb + (ak_i64)h * vsh;\n"
    "\n"
    "    // this lane's softmax row (LPR lanes per row, CPL columns each)\n"
    "    const int srow = lane / LPR, scol = (lane % LPR) * CPL;\n"
    "    const int gr = r0 + wave * M + srow;  // its block row\n"
    "    const int slim = gr < rows ? (causal ? (gr % sq) + diag : skv - 1) : -1;\n"
    "    float m = -AK_INF, l = 0.0f;\n"
    "\n"
    "    // Q fragments straight from global memory (rows past the end read row 0, never stored)\n"
    "    typename MM::A qf[HD / KS];\n"
    "    {\n"
    "        const int qr = r0 + wave * M;  // the wave's first row; load_a reads rows qr .. qr + M - 1\n"
    "        // per-row pointers differ (GQA rows span heads): copy the wave's Q tile into the P area first\n"
    "        T* qt = ps + wave * M * LDP;   // reused: M x HD would not fit LDP, so go in HD / BK slices\n"
    "#pragma unroll\n"
    "        for (int sl = 0; sl < HD / BK; sl++) {\n"
    "            for (int e = lane; e < M * BK; e += AK_WAVE) {\n"
    "                const int rr = e / BK, cc = e % BK, r = qr + rr;\n"
    "                const bool ok = r < rows;\n"
    "                const int g = ok ? r / sq : 0, i = ok ? r % sq : 0;\n"
    "                qt[rr * LDP + cc] = ok ? q[(ak_i64)b * qsb + (ak_i64)(h * group + g) * qsh + (ak_i64)i * qss + sl * BK + cc]\n"
    "                                       : D::from(0.0f);\n"
    "            }\n"
    "            __syncthreads();\n"
    "#pragma unroll\n"
    "            for (int kk = 0; kk < BK / KS; kk++) MM::load_a(qf[sl * (BK / KS) + kk], qt + kk * KS, LDP);\n"
    "            __syncthreads();\n"
    "        }\n"
    "    }\n"
    "    typename MM::C acc[NTO];\n"
    "#pragma unroll\n"
    "    for (int n = 0; n < NTO; n++) MM::zero(acc[n]);\n"
    "\n"
    "    for (int k0 = kbeg; k0 < kend; k0 += BK) {\n"
    "        __syncthreads();\n"
    "        for (int e = tid; e < BK * HD; e += NT) {  // K row-major, V transposed; zeros past kend\n"
    "            const int j = e / HD, dd = e % HD;\n"
    "            const bool ok = k0 + j < kend;\n"
    "            ks[j * LDK + dd] = ok ? kp[(ak_i64)(k0 + j) * kss + dd] : D::from(0.0f);\n"
    "            vt[dd * LDV + j] = ok ? vp[(ak_i64)(k0 + j) * vss + dd] : D::from(0.0f);\n"
    "        }\n"
    "        __syncthreads();\n"
    "        // S = Q K^T (M x BK per wave) -> shared\n"
    "#pragma unroll\n"
    "        for (int n = 0; n < BK / N; n++) {\n"
    "            typename MM::C sc;\n"
    "            MM::zero(sc);\n"
    "#pragma unroll\n"
    "            for (int kk = 0; kk < HD / KS; kk++) {\n"
    "                typename MM::B kb;\n"
    "                MM::load_b(kb, ks + (n * N) * LDK + kk * KS, LDK);\n"
    "                MM::mma(sc, qf[kk], kb);\n"
    "            }\n"
    "#pragma unroll\n"
    "            for (int e = 0; e < MM::NC; e++)\n"
    "                ss[(wave * M + MM::c_row(lane, e)) * LDS_ + n * N + MM::c_col(lane, e)] = sc.v[e];\n"
    "        }\n"
    "        __syncthreads();\n"
    "        // online softmax of the lane's row slice\n"
    "        {\n"
    "            float x[CPL];\n"
    "            float mx = -AK_INF;\n"
    "#pragma unroll\n"
    "            for (int c = 0; c < CPL; c++) {\n"
    "                const int j = k0 + scol + c;\n"
    "                float t = ss[(wave * M + srow) * LDS_ + scol + c] * scale_log2;\n"
    "                if (j > slim || j >= kend) t = -AK_INF;\n"
    "                x[c] = t;\n"
    "                mx = fmaxf(mx, t);\n"
    "            }\n"
    "#pragma unroll\n"
    "            for (int off = LPR / 2; off > 0; off >>= 1) mx = fmaxf(mx, ak_shfl_xor(mx, off));\n"
    "            const float mn = fmaxf(m, mx), base = mn == -AK_INF ? 0.0f : mn;\n"
    "            const float al = ak_exp2(m - base);\n"
    "            float ps_ = 0.0f;\n"
    "#pragma unroll\n"
    "            for (int c = 0; c < CPL; c++) {\n"
    "                const float pv = ak_exp2(x[c] - base);\n"
    "                ps_ += pv;\n"
    "                ps[(wave * M + srow) * LDP + scol + c] = D::from(pv);\n"
    "            }\n"
    "#pragma unroll\n"
    "            for (int off = LPR / 2; off > 0; off >>= 1) ps_ += ak_shfl_xor(ps_, off);\n"
    "            l = l * al + ps_;\n"
    "            m = mn;\n"
    "            if (lane % LPR == 0) alpha_s[wave * M + srow] = al;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        // O = alpha O + P Vt\n"
    "#pragma unroll\n"
    "        for (int n = 0; n < NTO; n++) {\n"
    "#pragma unroll\n"
    "            for (int e = 0; e < MM::NC; e++) acc[n].v[e] *= alpha_s[wave * M + MM::c_row(lane, e)];\n"
    "#pragma unroll\n"
    "            for (int kk = 0; kk < BK / KS; kk++) {\n"
    "                typename MM::A pa;\n"
    "                typename MM::B vb;\n"
    "                MM::load_a(pa, ps + (wave * M) * LDP + kk * KS, LDP);\n"
    "                MM::load_b(vb, vt + (n * N) * LDV + kk * KS, LDV);\n"
    "                MM::mma(acc[n], pa, vb);\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    // per-row 1 / l and lse through shared memory (rows of the accumulators differ per lane)\n"
    "    __syncthreads();\n"
    "    if (lane % LPR == 0) {\n"
    "        ss[(wave * M + srow) * LDS_] = l > 0.0f ? 1.0f / l : 0.0f;\n"
    "        ss[(wave * M + srow) * LDS_ + 1] = l > 0.0f ? m + log2f(l) : -AK_INF;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    const ak_i64 rows_all = (ak_i64)gridDim.z * rows;\n"
    "#pragma unroll\n"
    "    for (int n = 0; n < NTO; n++) {\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < MM::NC; e++) {\n"
    "            const int rr = MM::c_row(lane, e), cc = n * N + MM::c_col(lane, e), r = r0 + wave * M + rr;\n"
    "            if (r >= rows) continue;\n"
    "            const int g = r / sq, i = r % sq, hq_idx = h * group + g;\n"
    "            const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;\n"
    "            const float val = acc[n].v[e] * ss[(wave * M + rr) * LDS_];\n"
    "            if (nsplit > 1) part[(grow * nsplit + blockIdx.y) * HD + cc] = val;\n"
    "            else o[(ak_i64)b * osb + (ak_i64)hq_idx * osh + (ak_i64)i * oss + cc] = D::from(val);\n"
    "        }\n"
    "    }\n"
    "    if (lane % LPR == 0 && gr < rows) {\n"
    "        const int g = gr / sq, i = gr % sq, hq_idx = h * group + g;\n"
    "        const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;\n"
    "        const float ls = ss[(wave * M + srow) * LDS_ + 1];\n"
    "        if (nsplit > 1) part[rows_all * nsplit * HD + grow * nsplit + blockIdx.y] = ls;\n"
    "        else if (lse) lse[grow] = ls * AK_LN2;\n"
    "    }\n"
    "}\n"
    "#define AK_AMMA_GEN_BODY(D, HD, W)                                                                              \\\n"
    "    ak_attn_mma_gen<D, HD, W>(AK_AMMA_ARGS)\n"
    "#else\n"
    "#define AK_AMMA_GEN_BODY(D, HD, W) \\\n"
    "    do {                           \\\n"
    "    } while (0)\n"
    "#endif\n"
    "\n"
    "#if defined(AK_MMA_SYNC)\n"
    "AK_INLINE void ak_cp_async16(void* smem, const void* gmem, bool full) {\n"
    "    const ak_u32 s = ak_smem_addr(smem);\n"
    "    const int n = full ? 16 : 0;  // 0: write 16 zero bytes\n"
    "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\" ::\"r\"(s), \"l\"(gmem), \"r\"(n));\n"
    "}\n"
    "AK_INLINE void ak_cp_async_commit(void) { asm volatile(\"cp.async.commit_group;\"); }\n"
    "template <int N>\n"
    "AK_INLINE void ak_cp_async_wait(void) { asm volatile(\"cp.async.wait_group %0;\" ::\"n\"(N)); }\n"
    "\n"
    "// two fp32 -> one 32-bit register of two 16-bit values (lo in the low half)\n"
    "template <class D> AK_INLINE ak_u32 ak_pack2f(float lo, float hi);\n"
    "template <> AK_INLINE ak_u32 ak_pack2f<ak_f16_t>(float lo, float hi) {\n"
    "    ak_u32 r;\n"
    "    asm(\"cvt.rn.f16x2.f32 %0, %1, %2;\" : \"=r\"(r) : \"f\"(hi), \"f\"(lo));\n"
    "    return r;\n"
    "}\n"
    "template <> AK_INLINE ak_u32 ak_pack2f<ak_bf16_t>(float lo, float hi) {\n"
    "    ak_u32 r;\n"
    "    asm(\"cvt.rn.bf16x2.f32 %0, %1, %2;\" : \"=r\"(r) : \"f\"(hi), \"f\"(lo));\n"
    "    return r;\n"
    "}\n"
    "\n"
    "// B fragments of two n8 column blocks (n0..n0+7, n0+8..n0+15) for k = k0..k0+15\n"
    "// from a row-major [k][n] shared tile (V stored [key][d]): ldmatrix.trans.\n"
    "template <class D>\n"
    "AK_INLINE void ak_ldsm_b2_trans(typename ak_mma<D>::B& b0, typename ak_mma<D>::B& b1, const typename D::T* s, int ld) {\n"
    "    const int l = ak_lane();\n"
    "    const ak_u32 p = ak_smem_addr(s + ((l % 8) + 8 * ((l / 8) % 2)) * ld + 8 * (l / 16));\n"
    "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\"\n"
    "                 : \"=r\"(b0.r[0]), \"=r\"(b0.r[1]), \"=r\"(b1.r[0]), \"=r\"(b1.r[1])\n"
    "                 : \"r\"(p));\n"
    "}\n"
    "\n"
    "template <class D, int HD, int WM, int WN, int ST>\n"
    "AK_INLINE void ak_attn_mma(AK_AMMA_PARAMS(D)) {\n"
    "    typedef typename D::T T;\n"
    "    typedef ak_mma<D> MM;\n"
    "    enum {\n"
    "        BK = AK_AMMA_BK, LD = HD + 8, BQ = 16 * WM, NT = 32 * WM * WN, KW = BK / WN,  // keys per warp per tile\n"
    "        NTS = KW / 8,                                                               // S n-tiles per warp\n"
    "        NTO = HD / 8,                                                               // O n-tiles\n"
    "        KQ = HD / 16,                                                               // k-steps of Q K^T\n"
    "        CH = HD / 8                                                                 // 16-byte chunks per row\n"
    "    };\n"
    "    extern __shared__ __align__(16) unsigned char ak_smem_raw[];\n"
    "    T* qs = (T*)ak_smem_raw;           // [BQ][LD]\n"
    "    T* ks = qs + BQ * LD;              // [ST][BK][LD]\n"
    "    T* vs = ks + ST * BK * LD;         // [ST][BK][LD]\n"
    "\n"
    "    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;\n"
    "    const int wm = warp % WM, wn = warp / WM;\n"
    "    const int pair = (int)blockIdx.z, b = pair / hkv, h = pair % hkv;\n"
    "    const int rows = group * sq;\n"
    "    // causal: the row tiles with the most keys first (less tail at the end of the grid)\n"
    "    const int r0 = (causal ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x) * BQ;\n"
    "    const int diag = skv - sq;\n"
    "\n"
    "    // key range of this block (causal: up to the last row's limit) and split\n"
    "    int kend = skv, kmask = skv;  // tiles from kmask on need the per-element mask\n"
    "    if (causal) {\n"
    "        const int rl = (r0 + BQ < rows ? r0 + BQ : rows) - 1;\n"
    "        const bool span = r0 / sq != rl / sq;\n"
    "        const int imax = span ? sq - 1 : rl % sq, imin = span ? 0 : r0 % sq;\n"
    "        if (imax + diag + 1 < kend) kend = imax + diag + 1;\n"
    "        kmask = imin + diag + 1;\n"
    "    }\n"
    "    const int kbeg = (int)blockIdx.y * split_len;\n"
    "    if (kbeg + split_len < kend) kend = kbeg + split_len;\n"
    "    if (kend < kmask) kmask = kend;\n"
    "\n"
    "    const T* kp = k + (ak_i64)b * ksb + (ak_i64)h * ksh;\n"
    "    const T* vp = v + (ak_i64)b * vsb + (ak_i64)h * vsh;\n"
    "\n"
    "    // Q tile -> shared (zero rows past the end)\n"
    "    for (int c = tid; c < BQ * CH; c += NT) {\n"
    "        const int rr = c / CH, cc = c % CH, r = r0 + rr;\n"
    "        const bool ok = r < rows;\n"
    "        const int g = ok ? r / sq : 0, i = ok ? r % sq : 0;\n"
    "        const T* src = q + (ak_i64)b * qsb + (ak_i64)(h * group + g) * qsh + (ak_i64)i * qss + cc * 8;\n"
    "        ak_cp_async16(qs + rr * LD + cc * 8, ok ? src : q, ok);\n"
    "    }\n"
    "    auto load_kv = [&](int stage, int k0) {\n"
    "        T* kd = ks + stage * BK * LD;\n"
    "        T* vd = vs + stage * BK * LD;\n"
    "        for (int c = tid; c < BK * CH; c += NT) {\n"
    "            const int rr = c / CH, cc = c % CH, j = k0 + rr;\n"
    "            const bool ok = j < kend;\n"
    "            ak_cp_async16(kd + rr * LD + cc * 8, ok ? kp + (ak_i64)j * kss + cc * 8 : kp, ok);\n"
    "            ak_cp_async16(vd + rr * LD + cc * 8, ok ? vp + (ak_i64)j * vss + cc * 8 : vp, ok);\n"
    "        }\n"
    "    };\n"
    "    const int ntiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;\n"
    "#pragma unroll\n"
    "    for (int s0 = 0; s0 < ST - 1; s0++) {  // groups 0 .. ST - 2 (group 0 also holds Q)\n"
    "        if (s0 < ntiles) load_kv(s0, kbeg + s0 * BK);\n"
    "        ak_cp_async_commit();\n"
    "    }\n"
    "\n"
    "    // per-lane state: rows g = lane / 4 (e = 0, 1) and g + 8 (e = 2, 3) of the warp's 16\n"
    "    const int lr0 = r0 + wm * 16 + lane / 4, lr1 = lr0 + 8;\n"
    "    int lim0 = -1, lim1 = -1;  // last visible key of each row (-1: none; rows past the end see none)\n"
    "    if (lr0 < rows) lim0 = causal ? (lr0 % sq) + diag : skv - 1;\n"
    "    if (lr1 < rows) lim1 = causal ? (lr1 % sq) + diag : skv - 1;\n"
    "    float m0 = -AK_INF, m1 = -AK_INF, l0 = 0.0f, l1 = 0.0f;\n"
    "    typename MM::C acc[NTO];\n"
    "#pragma unroll\n"
    "    for (int n = 0; n < NTO; n++) MM::zero(acc[n]);\n"
    "    typename MM::A qf[KQ];\n"
    "\n"
    "    for (int t = 0; t < ntiles; t++) {\n"
    "        const int k0 = kbeg + t * BK, st = t % ST;\n"
    "        if (t + ST - 1 < ntiles) load_kv((t + ST - 1) % ST, k0 + (ST - 1) * BK);\n"
    "        ak_cp_async_commit();\n"
    "        ak_cp_async_wait<ST - 1>();  // tile t (and Q) landed\n"
    "        __syncthreads();\n"
    "        if (t == 0) {\n"
    "#pragma unroll\n"
    "            for (int kk = 0; kk < KQ; kk++) MM::load_a_ldsm(qf[kk], qs + (wm * 16) * LD + kk * 16, LD);\n"
    "        }\n"
    "        const T* kt = ks + st * BK * LD + (wn * KW) * LD;\n"
    "        const T* vt = vs + st * BK * LD + (wn * KW) * LD;\n"
    "        // S = Q K^T for this warp's KW keys\n"
    "        typename MM::C s[NTS];\n"
    "#pragma unroll\n"
    "        for (int n = 0; n < NTS; n++) MM::zero(s[n]);\n"
    "#pragma unroll\n"
    "        for (int kk = 0; kk < KQ; kk++) {\n"
    "#pragma unroll\n"
    "            for (int n = 0; n < NTS; n += 2) {\n"
    "                typename MM::B b0, b1;\n"
    "                MM::load_b2_ldsm(b0, b1, kt + (n * 8) * LD + kk * 16, LD);\n"
    "                MM::mma(s[n], qf[kk], b0);\n"
    "                MM::mma(s[n + 1], qf[kk], b1);\n"
    "            }\n"
    "        }\n"
    "        // scale, mask, online softmax (rows lr0: v[0..1], lr1: v[2..3])\n"
    "        const int kw0 = k0 + wn * KW;\n"
    "        const bool need_mask = k0 + BK > kmask;\n"
    "        float mx0 = -AK_INF, mx1 = -AK_INF;\n"
    "#pragma unroll\n"
    "        for (int n = 0; n < NTS; n++) {\n"
    "#pragma unroll\n"
    "            for (int e = 0; e < 4; e++) {\n"
    "                float x = s[n].v[e] * scale_log2;\n"
    "                if (need_mask) {\n"
    "                    const int j = kw0 + n * 8 + 2 * (lane % 4) + (e & 1);\n"
    "                    const int lim = e < 2 ? lim0 : lim1;\n"
    "                    if (j > lim || j >= kend) x = -AK_INF;\n"
    "                }\n"
    "                s[n].v[e] = x;\n"
    "            }\n"
    "            mx0 = fmaxf(mx0, fmaxf(s[n].v[0], s[n].v[1]));\n"
    "            mx1 = fmaxf(mx1, fmaxf(s[n].v[2], s[n].v[3]));\n"
    "        }\n"
    "        mx0 = fmaxf(mx0, ak_shfl_xor(mx0, 1));\n"
    "        mx0 = fmaxf(mx0, ak_shfl_xor(mx0, 2));\n"
    "        mx1 = fmaxf(mx1, ak_shfl_xor(mx1, 1));\n"
    "        mx1 = fmaxf(mx1, ak_shfl_xor(mx1, 2));\n"
    "        const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);\n"
    "        const float base0 = mn0 == -AK_INF ? 0.0f : mn0, base1 = mn1 == -AK_INF ? 0.0f : mn1;\n"
    "        const float al0 = ak_exp2(m0 - base0), al1 = ak_exp2(m1 - base1);\n"
    "        m0 = mn0;\n"
    "        m1 = mn1;\n"
    "        float ps0 = 0.0f, ps1 = 0.0f;\n"
    "#pragma unroll\n"
    "        for (int n = 0; n < NTS; n++) {\n"
    "            s[n].v[0] = ak_exp2(s[n].v[0] - base0);\n"
    "            s[n].v[1] = ak_exp2(s[n].v[1] - base0);\n"
    "            s[n].v[2] = ak_exp2(s[n].v[2] - base1);\n"
    "            s[n].v[3] = ak_exp2(s[n].v[3] - base1);\n"
    "            ps0 += s[n].v[0] + s[n].v[1];\n"
    "            ps1 += s[n].v[2] + s[n].v[3];\n"
    "        }\n"
    "        l0 = l0 * al0 + ps0;  // lane-partial sums, reduced over the 4 lanes of a row at the end\n"
    "        l1 = l1 * al1 + ps1;\n"
    "#pragma unroll\n"
    "        for (int n = 0; n < NTO; n++) {\n"
    "            acc[n].v[0] *= al0; acc[n].v[1] *= al0;\n"
    "            acc[n].v[2] *= al1; acc[n].v[3] *= al1;\n"
    "        }\n"
    "        // O += P V: P (16 x KW) from the S accumulators, 16 keys per k-step\n"
    "#pragma unroll\n"
    "        for (int kk = 0; kk < KW / 16; kk++) {\n"
    "            typename MM::A pa;\n"
    "            pa.r[0] = ak_pack2f<D>(s[2 * kk].v[0], s[2 * kk].v[1]);\n"
    "            pa.r[1] = ak_pack2f<D>(s[2 * kk].v[2], s[2 * kk].v[3]);\n"
    "            pa.r[2] = ak_pack2f<D>(s[2 * kk + 1].v[0], s[2 * kk + 1].v[1]);\n"
    "            pa.r[3] = ak_pack2f<D>(s[2 * kk + 1].v[2], s[2 * kk + 1].v[3]);\n"
    "#pragma unroll\n"
    "            for (int n = 0; n < NTO; n += 2) {\n"
    "                typename MM::B b0, b1;\n"
    "                ak_ldsm_b2_trans<D>(b0, b1, vt + (kk * 16) * LD + n * 8, LD);\n"
    "                MM::mma(acc[n], pa, b0);\n"
    "                MM::mma(acc[n + 1], pa, b1);\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();  // this stage is overwritten by the next iteration's copy\n"
    "    }\n"
    "    ak_cp_async_wait<0>();\n"
    "    l0 += ak_shfl_xor(l0, 1);\n"
    "    l0 += ak_shfl_xor(l0, 2);\n"
    "    l1 += ak_shfl_xor(l1, 1);\n"
    "    l1 += ak_shfl_xor(l1, 2);\n"
    "\n"
    "    if (WN > 1) {  // merge the key slots of each row tile through shared memory (tiles are free now)\n"
    "        float* so = (float*)(void*)ks;         // [WN][16][HD + 4] outputs\n"
    "        float* sml = so + WN * 16 * (HD + 4);  // [WN][16][2] (m, l)\n"
    "        __syncthreads();\n"
    "        const int g = lane / 4, c0 = 2 * (lane % 4);\n"
    "#pragma unroll\n"
    "        for (int n = 0; n < NTO; n++) {\n"
    "            float* p0 = so + (wn * 16 + g) * (HD + 4) + n * 8 + c0;\n"
    "            float* p1 = p0 + 8 * (HD + 4);\n"
    "            p0[0] = acc[n].v[0]; p0[1] = acc[n].v[1];\n"
    "            p1[0] = acc[n].v[2]; p1[1] = acc[n].v[3];\n"
    "        }\n"
    "        if (lane % 4 == 0) {\n"
    "            sml[(wn * 16 + g) * 2] = m0; sml[(wn * 16 + g) * 2 + 1] = l0;\n"
    "            sml[(wn * 16 + g + 8) * 2] = m1; sml[(wn * 16 + g + 8) * 2 + 1] = l1;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (wn != 0) return;\n"
    "        float M0 = -AK_INF, M1 = -AK_INF;\n"
    "        for (int w = 0; w < WN; w++) {\n"
    "            M0 = fmaxf(M0, sml[(w * 16 + g) * 2]);\n"
    "            M1 = fmaxf(M1, sml[(w * 16 + g + 8) * 2]);\n"
    "        }\n"
    "        const float B0 = M0 == -AK_INF ? 0.0f : M0, B1 = M1 == -AK_INF ? 0.0f : M1;\n"
    "        float L0 = 0.0f, L1 = 0.0f;\n"
    "#pragma unroll\n"
    "        for (int n = 0; n < NTO; n++) MM::zero(acc[n]);\n"
    "        for (int w = 0; w < WN; w++) {\n"
    "            const float w0 = ak_exp2(sml[(w * 16 + g) * 2] - B0), w1 = ak_exp2(sml[(w * 16 + g + 8) * 2] - B1);\n"
    "            L0 += w0 * sml[(w * 16 + g) * 2 + 1];\n"
    "            L1 += w1 * sml[(w * 16 + g + 8) * 2 + 1];\n"
    "#pragma unroll\n"
    "            for (int n = 0; n < NTO; n++) {\n"
    "                const float* p0 = so + (w * 16 + g) * (HD + 4) + n * 8 + c0;\n"
    "                const float* p1 = p0 + 8 * (HD + 4);\n"
    "                acc[n].v[0] += w0 * p0[0]; acc[n].v[1] += w0 * p0[1];\n"
    "                acc[n].v[2] += w1 * p1[0]; acc[n].v[3] += w1 * p1[1];\n"
    "            }\n"
    "        }\n"
    "        m0 = M0; m1 = M1; l0 = L0; l1 = L1;\n"
    "    }\n"
    "\n"
    "    // write: rows lr0 / lr1, columns n * 8 + 2 (lane % 4) + {0, 1}\n"
    "    const float inv0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, inv1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;\n"
    "    const float lse0 = l0 > 0.0f ? m0 + log2f(l0) : -AK_INF, lse1 = l1 > 0.0f ? m1 + log2f(l1) : -AK_INF;\n"
    "    const ak_i64 rows_all = (ak_i64)gridDim.z * rows;  // batch * hq * sq\n"
    "#pragma unroll\n"
    "    for (int half = 0; half < 2; half++) {\n"
    "        const int r = half ? lr1 : lr0;\n"
    "        if (r >= rows) continue;\n"
    "        const int g = r / sq, i = r % sq, hq_idx = h * group + g;\n"
    "        const float inv = half ? inv1 : inv0, ls = half ? lse1 : lse0;\n"
    "        const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;\n"
    "        const int c0 = 2 * (lane % 4);\n"
    "        if (nsplit > 1) {\n"
    "            float* po = part + (grow * nsplit + blockIdx.y) * HD;\n"
    "#pragma unroll\n"
    "            for (int n = 0; n < NTO; n++) {\n"
    "                po[n * 8 + c0] = acc[n].v[2 * half] * inv;\n"
    "                po[n * 8 + c0 + 1] = acc[n].v[2 * half + 1] * inv;\n"
    "            }\n"
    "            if (lane % 4 == 0) part[rows_all * nsplit * HD + grow * nsplit + blockIdx.y] = ls;\n"
    "        } else {\n"
    "            T* op = o + (ak_i64)b * osb + (ak_i64)hq_idx * osh + (ak_i64)i * oss;\n"
    "#pragma unroll\n"
    "            for (int n = 0; n < NTO; n++)\n"
    "                *(ak_u32*)(op + n * 8 + c0) = ak_pack2f<D>(acc[n].v[2 * half] * inv, acc[n].v[2 * half + 1] * inv);\n"
    "            if (lse && lane % 4 == 0) lse[grow] = ls * AK_LN2;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "#define AK_AMMA_BODY(D, HD, WM, WN)                                                                              \\\n"
    "    ak_attn_mma<D, HD, WM, WN, (WN > 1 ? 3 : 2)>(AK_AMMA_ARGS)\n"
    "#else\n"
    "// AMD: the generic path (WM waves; the decode form is one wave). Targets\n"
    "// without a matrix instruction get empty kernels (one source for every\n"
    "// target); the host never launches them there (it runs the SIMT family).\n"
    "#define AK_AMMA_BODY(D, HD, WM, WN) AK_AMMA_GEN_BODY(D, HD, WM)\n"
    "#endif\n"
    "\n"
    "// Same argument list as the SIMT kernels (d and R unused: head_dim == HD, rows per block fixed).\n"
    "#define AK_AMMA(NAME, HD, WM, WN, DT, D)                                                                         \\\n"
    "    AK_KERNEL void __launch_bounds__(32 * WM * WN) NAME##HD##_##DT(AK_AMMA_KPARAMS(D)) { \\\n"
    "        (void)d; (void)R; (void)vec;                                                                              \\\n"
    "        AK_AMMA_BODY(D, HD, WM, WN);                                                                              \\\n"
    "    }\n"
    "AK_AMMA(ak_attn_mma, 64, 4, 1, f16, ak_f16_t)\n"
    "AK_AMMA(ak_attn_mma, 64, 4, 1, bf16, ak_bf16_t)\n"
    "AK_AMMA(ak_attn_mma, 128, 4, 1, f16, ak_f16_t)\n"
    "AK_AMMA(ak_attn_mma, 128, 4, 1, bf16, ak_bf16_t)\n"
    "AK_AMMA(ak_attn_mmadec, 64, 1, 4, f16, ak_f16_t)\n"
    "AK_AMMA(ak_attn_mmadec, 64, 1, 4, bf16, ak_bf16_t)\n"
    "AK_AMMA(ak_attn_mmadec, 128, 1, 4, f16, ak_f16_t)\n"
    "AK_AMMA(ak_attn_mmadec, 128, 1, 4, bf16, ak_bf16_t)\n"
    "\n"
    "// the generic path under its own name on every target (4 waves)\n"
    "#define AK_AMMA_GEN(HD, DT, D)                                                                                   \\\n"
    "    AK_KERNEL void __launch_bounds__(4 * AK_WAVE) ak_attn_mmagen##HD##_##DT(AK_AMMA_KPARAMS(D)) { \\\n"
    "        (void)d; (void)R; (void)vec;                                                                              \\\n"
    "        AK_AMMA_GEN_BODY(D, HD, 4);                                                                               \\\n"
    "    }\n"
    "AK_AMMA_GEN(64, f16, ak_f16_t)\n"
    "AK_AMMA_GEN(64, bf16, ak_bf16_t)\n"
    "AK_AMMA_GEN(128, f16, ak_f16_t)\n"
    "AK_AMMA_GEN(128, bf16, ak_bf16_t)\n"
    ;

/* kernels/cast.hip */
static const char _ak_src_cast[] =
    "/* kernels/cast.hip: dtype conversion between f32, f16 and bf16 (all six\n"
    " * directions, round to nearest even) and the bit-exact copy of each dtype.\n"
    " * 1-D grid-stride over tiles (ak_map8) with coalesced vector accesses when\n"
    " * both pointers are 16-byte aligned, scalar otherwise. The buffers must not\n"
    " * overlap. Host wrappers: ak_cast / ak_copy in amdkit.h (>>impl:ops-elementwise). */\n"
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
    " * amdkit.h (>>impl:ops-elementwise) (ak_fill, ak_axpy, ak_scale, ak_binary). */\n"
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

/* kernels/gemm.hip */
static const char _ak_src_gemm[] =
    "/* kernels/gemm.hip: D = act(alpha op(A) op(B) + beta C + bias) + R, batched\n"
    " * (strided), row-major, on the matrix cores through the prelude's fragment\n"
    " * layer (ak_mma: MFMA / WMMA / mma.sync) or on plain FMAs (SIMT).\n"
    " * Host wrapper, tile table (with the reason of each shape) and CPU reference:\n"
    " * ak_gemm in amdkit.h (>>impl:ops-gemm).\n"
    " *\n"
    " * Block tile BM x BN, k step BK, 256 or 128 threads. Each k step loads the\n"
    " * op(A) (BM x BK) and op(B) (BK x BN) tiles from global memory into\n"
    " * registers (8 consecutive elements along the matrix's contiguous\n"
    " * dimension: one 16-byte load where the vec flag says the matrix allows it,\n"
    " * element by element with bounds checks otherwise, zeros outside), while\n"
    " * the previous tiles are multiplied from shared memory (double buffer).\n"
    " * Shared layout: k-contiguous rows for the matrix-core path (what ak_mma's\n"
    " * load_a / load_b want), m/n-contiguous rows for the SIMT path.\n"
    " *\n"
    " * flags: bit 0 A transposed, 1 B transposed, 2 D/C/bias/R are f32 (else the\n"
    " * input dtype), 3 read C (beta != 0), 4 bias, 5 residual, 6 A 16-byte\n"
    " * vectors allowed, 7 same for B, bits 8.. activation code + 1 (0: none).\n"
    " * Batch b reads A + b sA, B + b sB, ... (blockIdx.z strides over batches). */\n"
    "\n"
    "#define AK_GF_TA 1\n"
    "#define AK_GF_TB 2\n"
    "#define AK_GF_OUT32 4\n"
    "#define AK_GF_C 8\n"
    "#define AK_GF_BIAS 16\n"
    "#define AK_GF_RES 32\n"
    "#define AK_GF_VA 64\n"
    "#define AK_GF_VB 128\n"
    "\n"
    "/* Load a ROWS x BK tile of op(X) (rows = m for A, n for B) starting at\n"
    " * (r0, k0) into registers. kc: X is k-contiguous (element (r, k) at\n"
    " * X[r ld + k]), else r-contiguous (X[k ld + r]). */\n"
    "template <class DT, int ROWS, int BK, int NT>\n"
    "struct ak_gemm_tile {\n"
    "    typedef typename DT::T T;\n"
    "    enum { VPR = 8, NV = ROWS * BK / 8 / NT };\n"
    "    T v[NV][8];\n"
    "    /* 16 bytes <-> 8 halves or 4 floats */\n"
    "    static AK_INLINE void unpack(const uint4 x, T* d) {\n"
    "        const ak_u32 w[4] = { x.x, x.y, x.z, x.w };\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < 4; i++) {\n"
    "            if constexpr (DT::SIZE == 2) { d[2 * i] = (T)(w[i] & 0xFFFFu); d[2 * i + 1] = (T)(w[i] >> 16); }\n"
    "            else d[i] = ak_u2f(w[i]);\n"
    "        }\n"
    "    }\n"
    "    static AK_INLINE uint4 pack(const T* s) {\n"
    "        ak_u32 w[4];\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < 4; i++) {\n"
    "            if constexpr (DT::SIZE == 2) w[i] = ak_pack2(s[2 * i], s[2 * i + 1]);\n"
    "            else w[i] = ak_f2u(s[i]);\n"
    "        }\n"
    "        uint4 r;\n"
    "        r.x = w[0]; r.y = w[1]; r.z = w[2]; r.w = w[3];\n"
    "        return r;\n"
    "    }\n"
    "    /* The 8 elements of chunk i of this thread: row r, k .. k + 7 (kc), else\n"
    "     * rows r .. r + 7 at k. */\n"
    "    static AK_INLINE void at(int i, bool kc, int& r, int& k) {\n"
    "        const int q = (int)threadIdx.x + i * NT;\n"
    "        if (kc) { r = q / (BK / 8); k = (q % (BK / 8)) * 8; }\n"
    "        else { k = q / (ROWS / 8); r = (q % (ROWS / 8)) * 8; }\n"
    "    }\n"
    "    AK_INLINE void load(const T* X, ak_i64 ld, bool kc, bool vec, int r0, int k0, int R, int K) {\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < NV; i++) {\n"
    "            int r, k;\n"
    "            at(i, kc, r, k);\n"
    "            const int gr = r0 + r, gk = k0 + k;\n"
    "            if (kc) {\n"
    "                const T* p = X + (ak_i64)gr * ld + gk;\n"
    "                if (vec && gr < R && gk + 8 <= K) {\n"
    "                    unpack(*(const uint4*)p, &v[i][0]);\n"
    "                    if (DT::SIZE == 4) unpack(*(const uint4*)(p + 4), &v[i][4]);\n"
    "                } else {\n"
    "#pragma unroll\n"
    "                    for (int j = 0; j < 8; j++) v[i][j] = (gr < R && gk + j < K) ? p[j] : (T)0;\n"
    "                }\n"
    "            } else {\n"
    "                const T* p = X + (ak_i64)gk * ld + gr;\n"
    "                if (vec && gk < K && gr + 8 <= R) {\n"
    "                    unpack(*(const uint4*)p, &v[i][0]);\n"
    "                    if (DT::SIZE == 4) unpack(*(const uint4*)(p + 4), &v[i][4]);\n"
    "                } else {\n"
    "#pragma unroll\n"
    "                    for (int j = 0; j < 8; j++) v[i][j] = (gk < K && gr + j < R) ? p[j] : (T)0;\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    /* Store into shared: KMAJOR: S[r * LD + k], else S[k * LD + r]. */\n"
    "    template <bool KMAJOR, int LD>\n"
    "    AK_INLINE void store(T* S, bool kc) const {\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < NV; i++) {\n"
    "            int r, k;\n"
    "            at(i, kc, r, k);\n"
    "            if (kc == KMAJOR) {\n"
    "                T* p = KMAJOR ? S + r * LD + k : S + k * LD + r;\n"
    "                *(uint4*)p = pack(&v[i][0]);\n"
    "                if (DT::SIZE == 4) *(uint4*)(p + 4) = pack(&v[i][4]);\n"
    "            } else {\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < 8; j++) {\n"
    "                    if (KMAJOR) S[(r + j) * LD + k] = v[i][j];\n"
    "                    else S[(k + j) * LD + r] = v[i][j];\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "};\n"
    "\n"
    "/* The epilogue of one output element (m, n) with accumulator value acc. */\n"
    "template <class DT>\n"
    "AK_INLINE void ak_gemm_out(int m, int n, float acc, void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias,\n"
    "                           const void* R, ak_i64 ldr, float alpha, float beta, int flags, float ap) {\n"
    "    const bool o32 = (flags & AK_GF_OUT32) != 0;\n"
    "    float v = alpha * acc;\n"
    "    if (flags & AK_GF_C)\n"
    "        v += beta * (o32 ? ((const float*)C)[(ak_i64)m * ldc + n] : DT::to(((const typename DT::T*)C)[(ak_i64)m * ldc + n]));\n"
    "    if (flags & AK_GF_BIAS) v += o32 ? ((const float*)bias)[n] : DT::to(((const typename DT::T*)bias)[n]);\n"
    "    const int act = (flags >> 8) - 1;\n"
    "    if (act >= 0) v = ak_uop_apply(act, v, ap);\n"
    "    if (flags & AK_GF_RES)\n"
    "        v += o32 ? ((const float*)R)[(ak_i64)m * ldr + n] : DT::to(((const typename DT::T*)R)[(ak_i64)m * ldr + n]);\n"
    "    if (o32) ((float*)D)[(ak_i64)m * ldd + n] = v;\n"
    "    else ((typename DT::T*)D)[(ak_i64)m * ldd + n] = DT::from(v);\n"
    "}\n"
    "\n"
    "#define AK_GEMM_PARAMS_T(DT)                                                                                      \\\n"
    "    const typename DT::T *A, const typename DT::T *B, const void *C, void *D, const void *bias, const void *R, \\\n"
    "        int M, int N, int K, ak_i64 lda, ak_i64 ldb, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sA, ak_i64 sB,  \\\n"
    "        ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta, int flags, float ap\n"
    "#define AK_GEMM_ARGS A, B, C, D, bias, R, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, alpha, beta, flags, ap\n"
    "\n"
    "/* Per-batch pointer offset (elements of the output dtype for C/D/R). */\n"
    "AK_INLINE const void* ak_gemm_off(const void* p, ak_i64 s, int b, int o32, int esz) {\n"
    "    return p ? (const void*)((const char*)p + (ak_i64)b * s * (o32 ? 4 : esz)) : p;\n"
    "}\n"
    "\n"
    "/* Epilogue of a rows x cols chunk of accumulators staged in shared memory\n"
    " * (st[r * ldst + c] is output (m0 + r, n0 + c)), threads tid, tid + nthr, ...\n"
    " * of the caller's group; consecutive threads take consecutive columns\n"
    " * (coalesced C / R / D). Not inlined: one copy of the epilogue code per\n"
    " * kernel instead of one per accumulator register (compile time, code size). */\n"
    "template <class DT>\n"
    "__device__ __noinline__ void ak_gemm_epi(const float* st, int ldst, int rows, int cols, int m0, int n0, int tid, int nthr,\n"
    "                                         int M, int N, void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias,\n"
    "                                         const void* R, ak_i64 ldr, float alpha, float beta, int flags, float ap) {\n"
    "#pragma unroll 1\n"
    "    for (int r = 0; r < rows; r++) {\n"
    "        const int m = m0 + r;\n"
    "        if (m >= M) break;\n"
    "#pragma unroll 1\n"
    "        for (int c = tid; c < cols; c += nthr) {\n"
    "            const int n = n0 + c;\n"
    "            if (n < N) ak_gemm_out<DT>(m, n, st[r * ldst + c], D, ldd, C, ldc, bias, R, ldr, alpha, beta, flags, ap);\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "/* The k loop of the register-staged paths (matrix-core, SIMT) over one batch\n"
    " * entry: tile 0 of A (BM rows) and B (BN rows) into stage 0 of As / Bs, then\n"
    " * for each k tile kt: tile kt + 1 loaded into registers, step(kt & 1) on the\n"
    " * stage holding tile kt, tile kt + 1 stored into the other stage. KMAJOR /\n"
    " * LDA / LDB: the shared layout (ak_gemm_tile::store). */\n"
    "template <bool KMAJOR, int LDA, int LDB, class DT, int BM, int BN, int BK, int NT, class SA, class SB, class STEP>\n"
    "AK_INLINE void ak_gemm_kloop(const typename DT::T* Ab, const typename DT::T* Bb, ak_i64 lda, ak_i64 ldb, int flags, int m0,\n"
    "                             int n0, int M, int N, int K, SA As, SB Bs, STEP&& step) {\n"
    "    const bool kca = !(flags & AK_GF_TA), kcb = (flags & AK_GF_TB) != 0; /* k-contiguous in global memory */\n"
    "    ak_gemm_tile<DT, BM, BK, NT> ta_;\n"
    "    ak_gemm_tile<DT, BN, BK, NT> tb_;\n"
    "    const int nk = (K + BK - 1) / BK;\n"
    "    ta_.load(Ab, lda, kca, (flags & AK_GF_VA) != 0, m0, 0, M, K);\n"
    "    tb_.load(Bb, ldb, kcb, (flags & AK_GF_VB) != 0, n0, 0, N, K);\n"
    "    __syncthreads(); /* the previous batch's readers are done */\n"
    "    ta_.template store<KMAJOR, LDA>(As[0], kca);\n"
    "    tb_.template store<KMAJOR, LDB>(Bs[0], kcb);\n"
    "    __syncthreads();\n"
    "    for (int kt = 0; kt < nk; kt++) {\n"
    "        const int cur = kt & 1;\n"
    "        if (kt + 1 < nk) {\n"
    "            ta_.load(Ab, lda, kca, (flags & AK_GF_VA) != 0, m0, (kt + 1) * BK, M, K);\n"
    "            tb_.load(Bb, ldb, kcb, (flags & AK_GF_VB) != 0, n0, (kt + 1) * BK, N, K);\n"
    "        }\n"
    "        step(cur);\n"
    "        if (kt + 1 < nk) {\n"
    "            __syncthreads();\n"
    "            ta_.template store<KMAJOR, LDA>(As[cur ^ 1], kca);\n"
    "            tb_.template store<KMAJOR, LDB>(Bs[cur ^ 1], kcb);\n"
    "            __syncthreads();\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "/* ---- matrix-core path: NT threads, waves laid out WM x WN ---------------- */\n"
    "template <class DT, bool FAST32, int BM, int BN, int BK, int NT>\n"
    "AK_INLINE void ak_gemm_mma(AK_GEMM_PARAMS_T(DT), const int m0, const int n0) {\n"
    "    typedef ak_mma<DT, FAST32> MM;\n"
    "    typedef typename DT::T T;\n"
    "    enum { NW = NT / AK_WAVE, WM = NW >= 2 ? 2 : 1, WN = NW / WM,\n"
    "           TM = BM / WM, TN = BN / WN, FM = TM / MM::M, FN = TN / MM::N,\n"
    "           PAD = DT::SIZE == 4 ? 4 : 8, LDS = BK + PAD };\n"
    "    static_assert(FM >= 1 && FN >= 1 && TM % MM::M == 0 && TN % MM::N == 0, \"gemm: tile too small for the instruction\");\n"
    "    static_assert(BK % MM::K == 0, \"gemm: BK must be a multiple of the instruction's K\");\n"
    "    enum { TILE_BYTES = 2 * (BM + BN) * LDS * DT::SIZE, STAGE_BYTES = NW * MM::M * TN * 4,\n"
    "           SMEM = TILE_BYTES > STAGE_BYTES ? TILE_BYTES : STAGE_BYTES };\n"
    "    __shared__ __attribute__((aligned(16))) unsigned char smem[SMEM];\n"
    "    T (*As)[BM * LDS] = (T (*)[BM * LDS])smem;\n"
    "    T (*Bs)[BN * LDS] = (T (*)[BN * LDS])(smem + 2 * BM * LDS * DT::SIZE);\n"
    "    const int lane = ak_lane(), w = ak_wave_id(), wm = w / WN, wn = w % WN;\n"
    "    const int o32 = (flags & AK_GF_OUT32) ? 1 : 0;\n"
    "    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {\n"
    "        typename MM::C acc[FM][FN];\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < FM; i++)\n"
    "#pragma unroll\n"
    "            for (int j = 0; j < FN; j++) MM::zero(acc[i][j]);\n"
    "        ak_gemm_kloop<true, LDS, LDS, DT, BM, BN, BK, NT>(A + (ak_i64)b * sA, B + (ak_i64)b * sB, lda, ldb, flags, m0, n0, M, N, K,\n"
    "                                                        As, Bs, [&](int cur) {\n"
    "            const T* as = As[cur] + (wm * TM) * LDS;\n"
    "            const T* bs = Bs[cur] + (wn * TN) * LDS;\n"
    "#pragma unroll\n"
    "            for (int kk = 0; kk < BK; kk += MM::K) {\n"
    "                typename MM::A fa[FM];\n"
    "                typename MM::B fb[FN];\n"
    "#if defined(AK_MMA_SYNC)\n"
    "                if constexpr (DT::SIZE == 2 && FN % 2 == 0) {\n"
    "#pragma unroll\n"
    "                    for (int i = 0; i < FM; i++) MM::load_a_ldsm(fa[i], as + i * MM::M * LDS + kk, LDS);\n"
    "#pragma unroll\n"
    "                    for (int j = 0; j < FN; j += 2) MM::load_b2_ldsm(fb[j], fb[j + 1], bs + j * MM::N * LDS + kk, LDS);\n"
    "                } else\n"
    "#endif\n"
    "                {\n"
    "#pragma unroll\n"
    "                    for (int i = 0; i < FM; i++) MM::load_a(fa[i], as + i * MM::M * LDS + kk, LDS);\n"
    "#pragma unroll\n"
    "                    for (int j = 0; j < FN; j++) MM::load_b(fb[j], bs + j * MM::N * LDS + kk, LDS);\n"
    "                }\n"
    "#pragma unroll\n"
    "                for (int i = 0; i < FM; i++)\n"
    "#pragma unroll\n"
    "                    for (int j = 0; j < FN; j++) MM::mma(acc[i][j], fa[i], fb[j]);\n"
    "            }\n"
    "        });\n"
    "        void* Db = (void*)ak_gemm_off(D, sD, b, o32, DT::SIZE);\n"
    "        const void* Cb = ak_gemm_off(C, sC, b, o32, DT::SIZE);\n"
    "        const void* Rb = ak_gemm_off(R, sR, b, o32, DT::SIZE);\n"
    "        /* stage one MM::M-row slab of each wave's tile at a time, then the epilogue */\n"
    "        float* st = (float*)smem + w * (MM::M * TN);\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < FM; i++) {\n"
    "            __syncthreads();\n"
    "#pragma unroll\n"
    "            for (int j = 0; j < FN; j++)\n"
    "#pragma unroll\n"
    "                for (int e = 0; e < MM::NC; e++)\n"
    "                    st[MM::c_row(lane, e) * TN + j * MM::N + MM::c_col(lane, e)] = acc[i][j].v[e];\n"
    "            __syncthreads();\n"
    "            ak_gemm_epi<DT>(st, TN, MM::M, TN, m0 + wm * TM + i * MM::M, n0 + wn * TN, lane, AK_WAVE, M, N, Db, ldd, Cb, ldc,\n"
    "                            bias, Rb, ldr, alpha, beta, flags, ap);\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "/* ---- SIMT path: NT threads, each a TM x TN micro-tile of FMAs ------------ */\n"
    "template <class DT, int BM, int BN, int BK, int NT>\n"
    "AK_INLINE void ak_gemm_simt(AK_GEMM_PARAMS_T(DT), const int m0, const int n0) {\n"
    "    typedef typename DT::T T;\n"
    "    enum { TX = BN / 8, TY = NT / TX, TM = BM / TY, TN = 8, PADS = DT::SIZE == 2 ? 8 : 4, LDA_ = BM + PADS, LDB_ = BN + PADS };\n"
    "    static_assert(TX * TY == NT && TM * TY == BM, \"gemm simt: bad tile\");\n"
    "    enum { TILE_BYTES = 2 * BK * (LDA_ + LDB_) * DT::SIZE, STAGE_BYTES = TY * BN * 4,\n"
    "           SMEM = TILE_BYTES > STAGE_BYTES ? TILE_BYTES : STAGE_BYTES };\n"
    "    __shared__ __attribute__((aligned(16))) unsigned char smem[SMEM];\n"
    "    T (*As)[BK * LDA_] = (T (*)[BK * LDA_])smem;\n"
    "    T (*Bs)[BK * LDB_] = (T (*)[BK * LDB_])(smem + 2 * BK * LDA_ * DT::SIZE);\n"
    "    const int tx = (int)threadIdx.x % TX, ty = (int)threadIdx.x / TX;\n"
    "    const int o32 = (flags & AK_GF_OUT32) ? 1 : 0;\n"
    "    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {\n"
    "        float acc[TM][TN];\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < TM; i++)\n"
    "#pragma unroll\n"
    "            for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;\n"
    "        ak_gemm_kloop<false, LDA_, LDB_, DT, BM, BN, BK, NT>(A + (ak_i64)b * sA, B + (ak_i64)b * sB, lda, ldb, flags, m0, n0, M, N,\n"
    "                                                           K, As, Bs, [&](int cur) {\n"
    "#pragma unroll\n"
    "            for (int kk = 0; kk < BK; kk++) {\n"
    "                float a[TM], bv[TN];\n"
    "                /* rows ty + i TY (strided: conflict-free broadcast reads), columns tx + j TX */\n"
    "#pragma unroll\n"
    "                for (int i = 0; i < TM; i++) a[i] = DT::to(As[cur][kk * LDA_ + ty + i * TY]);\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < TN; j++) bv[j] = DT::to(Bs[cur][kk * LDB_ + tx + j * TX]);\n"
    "#pragma unroll\n"
    "                for (int i = 0; i < TM; i++)\n"
    "#pragma unroll\n"
    "                    for (int j = 0; j < TN; j++) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);\n"
    "            }\n"
    "        });\n"
    "        void* Db = (void*)ak_gemm_off(D, sD, b, o32, DT::SIZE);\n"
    "        const void* Cb = ak_gemm_off(C, sC, b, o32, DT::SIZE);\n"
    "        const void* Rb = ak_gemm_off(R, sR, b, o32, DT::SIZE);\n"
    "        /* rows ty + i TY for one i at a time: a TY x BN chunk through shared memory */\n"
    "        float* st = (float*)smem;\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < TM; i++) {\n"
    "            __syncthreads();\n"
    "#pragma unroll\n"
    "            for (int j = 0; j < TN; j++) st[ty * BN + tx + j * TX] = acc[i][j];\n"
    "            __syncthreads();\n"
    "            /* chunk row r (= ty) is output row m0 + r + i TY: epilogue one row at a time */\n"
    "            for (int r = 0; r < TY; r++)\n"
    "                ak_gemm_epi<DT>(st + r * BN, BN, 1, BN, m0 + r + i * TY, n0, (int)threadIdx.x, NT, M, N, Db, ldd, Cb, ldc, bias,\n"
    "                                Rb, ldr, alpha, beta, flags, ap);\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "/* One BM x BN tile at (m0, n0) on the matrix cores where the target has the\n"
    " * instruction for DT, else on FMAs. */\n"
    "template <class DT, bool FAST32, int BM, int BN, int BK, int NT>\n"
    "AK_INLINE void ak_gemm_mma_or_simt(AK_GEMM_PARAMS_T(DT), int m0, int n0) {\n"
    "    if constexpr (ak_mma<DT, FAST32>::OK) ak_gemm_mma<DT, FAST32, BM, BN, BK, NT>(AK_GEMM_ARGS, m0, n0);\n"
    "    else ak_gemm_simt<DT, BM, BN, 16, NT>(AK_GEMM_ARGS, m0, n0);\n"
    "}\n"
    "/* Block -> tile (rows tm, columns tn) in groups of 8 tile rows (all column\n"
    " * tiles of 8 row tiles before the next 8): concurrent blocks share A rows and\n"
    " * B columns in L2 instead of sweeping all of B for every row of tiles. */\n"
    "AK_INLINE void ak_gemm_tile_of_block(int& tm, int& tn) {\n"
    "    const int gx = (int)gridDim.x, gy = (int)gridDim.y, pid = (int)blockIdx.y * gx + (int)blockIdx.x;\n"
    "    const int per = 8 * gx, first = (pid / per) * 8, rows = gy - first < 8 ? gy - first : 8;\n"
    "    tm = first + (pid % per) % rows;\n"
    "    tn = (pid % per) / rows;\n"
    "}\n"
    "AK_INLINE int ak_gemm_tm(void) { int tm, tn; ak_gemm_tile_of_block(tm, tn); return tm; }\n"
    "AK_INLINE int ak_gemm_tn(void) { int tm, tn; ak_gemm_tile_of_block(tm, tn); return tn; }\n"
    "#define AK_GEMM_ORIGIN(BM, BN) ak_gemm_tm() * (BM), ak_gemm_tn() * (BN)\n"
    "\n"
    "/* ---- Hopper path (sm_90a): wgmma from a 4-stage cp.async ring ------------\n"
    " * 128 x BN block tile, k step 64 (f16 / bf16) or 32 (f32 as TF32: wgmma\n"
    " * ignores the low 13 mantissa bits of each fp32 operand), two consumer warpgroups (rows 0..63 and\n"
    " * 64..127), both of which also issue the cp.async copies. A must be\n"
    " * k-contiguous (not transposed) and B k-contiguous (transposed: stored N x K),\n"
    " * both 16-byte aligned with leading dimensions and batch strides a multiple\n"
    " * of 8 elements (the host checks; any M, N, K: rows past M / N and k past K\n"
    " * are zero-filled by cp.async). Tiles are stored 128-byte swizzled (ak_sw128)\n"
    " * so wgmma reads them without bank conflicts. Prefetch distance 2 tiles with\n"
    " * one wgmma group in flight: at step kt the copy of tile kt + 2 goes into the\n"
    " * stage tile kt - 2 used, whose wgmma has completed (wait<1> at kt - 1, then\n"
    " * the barrier). Epilogue: accumulators staged in shared memory (row stride\n"
    " * BN + 4: no bank conflicts), then ak_gemm_epi (coalesced). Dynamic shared\n"
    " * memory: 4 (128 + BN) 128 + 1024 bytes (the host passes it). */\n"
    "template <class DT> struct ak_gemm_is_f16 { enum { V = 0 }; };\n"
    "template <> struct ak_gemm_is_f16<ak_f16_t> { enum { V = 1 }; };\n"
    "#if defined(AK_WGMMA)\n"
    "template <class DT, int BN>\n"
    "AK_INLINE void ak_gemm_wgmma_tile(AK_GEMM_PARAMS_T(DT)) {\n"
    "    typedef typename DT::T T;\n"
    "    /* EPC elements per 16-byte chunk; a tile row is 128 bytes = BK elements; KS k per wgmma */\n"
    "    enum { EPC = 16 / DT::SIZE, BM = 128, BK = 8 * EPC, KS = DT::SIZE == 4 ? 8 : 16, S = 4, A_BYTES = BM * 128, B_BYTES = BN * 128,\n"
    "           STAGE = A_BYTES + B_BYTES, NT = 256, LDST = BN + 4 };\n"
    "    extern __shared__ unsigned char ak_gemm_dyn_smem[];\n"
    "    unsigned char* sm = ak_gemm_dyn_smem + ((1024 - (ak_smem_addr(ak_gemm_dyn_smem) & 1023)) & 1023);\n"
    "    const int tid = (int)threadIdx.x, wg = tid / 128;\n"
    "    const int m0 = ak_gemm_tm() * BM, n0 = ak_gemm_tn() * BN;\n"
    "    const int o32 = (flags & AK_GF_OUT32) ? 1 : 0;\n"
    "    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {\n"
    "        const T* Ab = A + (ak_i64)b * sA;\n"
    "        const T* Bb = B + (ak_i64)b * sB;\n"
    "        float d[BN / 2];\n"
    "#pragma unroll\n"
    "        for (int r = 0; r < BN / 2; r++) d[r] = 0.0f;\n"
    "        const int nk = (K + BK - 1) / BK;\n"
    "        auto load = [&](int kt) {\n"
    "            unsigned char* sa = sm + (kt % S) * STAGE;\n"
    "            unsigned char* sb = sa + A_BYTES;\n"
    "            const int k0 = kt * BK;\n"
    "#pragma unroll\n"
    "            for (int i = 0; i < BM * 8 / NT; i++) {\n"
    "                const int q = tid + i * NT, r = q >> 3, c = q & 7, gr = m0 + r, gk = k0 + c * EPC;\n"
    "                const int left = (K - gk) * DT::SIZE;\n"
    "                const int bytes = (gr < M && gk < K) ? (left < 16 ? left : 16) : 0;\n"
    "                ak_cp_async16(sa + ak_sw128(r, c), bytes ? (const void*)(Ab + (ak_i64)gr * lda + gk) : (const void*)Ab, bytes);\n"
    "            }\n"
    "#pragma unroll\n"
    "            for (int i = 0; i < BN * 8 / NT; i++) {\n"
    "                const int q = tid + i * NT, r = q >> 3, c = q & 7, gr = n0 + r, gk = k0 + c * EPC;\n"
    "                const int left = (K - gk) * DT::SIZE;\n"
    "                const int bytes = (gr < N && gk < K) ? (left < 16 ? left : 16) : 0;\n"
    "                ak_cp_async16(sb + ak_sw128(r, c), bytes ? (const void*)(Bb + (ak_i64)gr * ldb + gk) : (const void*)Bb, bytes);\n"
    "            }\n"
    "        };\n"
    "        __syncthreads(); /* the previous batch's epilogue is done with the shared memory */\n"
    "        load(0);\n"
    "        ak_cp_async_commit();\n"
    "        if (nk > 1) load(1);\n"
    "        ak_cp_async_commit();\n"
    "        for (int kt = 0; kt < nk; kt++) {\n"
    "            ak_cp_async_wait<1>();\n"
    "            ak_fence_proxy_async();\n"
    "            __syncthreads();\n"
    "            if (kt + 2 < nk) load(kt + 2);\n"
    "            ak_cp_async_commit();\n"
    "            const unsigned char* sa = sm + (kt % S) * STAGE + wg * 64 * 128;\n"
    "            const unsigned char* sb = sm + (kt % S) * STAGE + A_BYTES;\n"
    "            ak_wgmma_fence();\n"
    "#pragma unroll\n"
    "            for (int kk = 0; kk < BK / KS; kk++) {\n"
    "                const ak_u64 da = ak_wgmma_desc(sa + kk * 32), db = ak_wgmma_desc(sb + kk * 32);\n"
    "                if constexpr (BN == 128) {\n"
    "                    if constexpr (DT::SIZE == 4) ak_wgmma_tf32_n128(d, da, db, 1);\n"
    "                    else if constexpr (ak_gemm_is_f16<DT>::V) ak_wgmma_f16_n128(d, da, db, 1);\n"
    "                    else ak_wgmma_bf16_n128(d, da, db, 1);\n"
    "                } else {\n"
    "                    if constexpr (DT::SIZE == 4) ak_wgmma_tf32_n256(d, da, db, 1);\n"
    "                    else if constexpr (ak_gemm_is_f16<DT>::V) ak_wgmma_f16_n256(d, da, db, 1);\n"
    "                    else ak_wgmma_bf16_n256(d, da, db, 1);\n"
    "                }\n"
    "            }\n"
    "            ak_wgmma_commit();\n"
    "            ak_wgmma_wait<1>();\n"
    "        }\n"
    "        ak_wgmma_wait<0>();\n"
    "        ak_cp_async_wait<0>();\n"
    "        __syncthreads(); /* both warpgroups are done reading the stages */\n"
    "        float* st = (float*)sm + wg * 64 * LDST;\n"
    "#pragma unroll\n"
    "        for (int r = 0; r < BN / 2; r++) st[ak_wgmma_row(tid, r) * LDST + ak_wgmma_col(tid, r)] = d[r];\n"
    "        __syncthreads();\n"
    "        ak_gemm_epi<DT>(st, LDST, 64, BN, m0 + 64 * wg, n0, tid % 128, 128, M, N, (void*)ak_gemm_off(D, sD, b, o32, DT::SIZE), ldd,\n"
    "                        ak_gemm_off(C, sC, b, o32, DT::SIZE), ldc, bias, ak_gemm_off(R, sR, b, o32, DT::SIZE), ldr, alpha, beta,\n"
    "                        flags, ap);\n"
    "    }\n"
    "}\n"
    "#endif\n"
    "/* The wgmma kernels; on every other target the same tile is computed by the\n"
    " * generic path, 128 columns at a time (the host only picks them on sm_90a). */\n"
    "template <class DT, int BN>\n"
    "AK_INLINE void ak_gemm_wgmma_or_generic(AK_GEMM_PARAMS_T(DT)) {\n"
    "#if defined(AK_WGMMA)\n"
    "    ak_gemm_wgmma_tile<DT, BN>(AK_GEMM_ARGS);\n"
    "#else\n"
    "    for (int h = 0; h < BN / 128; h++)\n"
    "        ak_gemm_mma_or_simt<DT, DT::SIZE == 4, 128, 128, DT::SIZE == 4 ? 16 : 32, 256>(AK_GEMM_ARGS, ak_gemm_tm() * 128, ak_gemm_tn() * BN + h * 128);\n"
    "#endif\n"
    "}\n"
    "#define AK_GEMM_WGMMA(NAME, DT, BN)                                       \\\n"
    "    AK_KERNEL void __launch_bounds__(256, 1) NAME(AK_GEMM_PARAMS_T(DT)) { \\\n"
    "        ak_gemm_wgmma_or_generic<DT, BN>(AK_GEMM_ARGS);                     \\\n"
    "    }\n"
    "\n"
    "/* ---- decode shapes: M <= 16 rows, B stored N x K (k-contiguous) ---------\n"
    " * A GEMM with few rows is a read of B: each warp owns 2 columns n and\n"
    " * streams their k-contiguous rows of B with 16-byte loads (4 in flight per\n"
    " * lane per 512-wide k chunk), against the A chunk staged once per block in\n"
    " * shared memory as fp32; then a butterfly sum per (row, column) and the\n"
    " * epilogue. 8 warps = 16 columns per block, so even N = 4096 gives 256\n"
    " * blocks. Needs B 16-byte aligned with ldb and the batch stride a multiple\n"
    " * of 8 elements (the host checks; a K tail is handled element-wise). */\n"
    "template <class DT>\n"
    "AK_INLINE void ak_gemm_skinny(AK_GEMM_PARAMS_T(DT)) {\n"
    "    typedef typename DT::T T;\n"
    "    enum { MM = 16, CW = 2, NW = 8, KC = 512 };\n"
    "    __shared__ __attribute__((aligned(16))) float As[MM * KC];\n"
    "    const int lane = ak_lane(), w = ak_wave_id();\n"
    "    const int n_base = (int)blockIdx.x * (NW * CW) + w * CW;\n"
    "    const bool ta = flags & AK_GF_TA;\n"
    "    const int o32 = (flags & AK_GF_OUT32) ? 1 : 0;\n"
    "    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {\n"
    "        const T* Ab = A + (ak_i64)b * sA;\n"
    "        const T* Bb = B + (ak_i64)b * sB;\n"
    "        float acc[MM][CW];\n"
    "#pragma unroll\n"
    "        for (int m = 0; m < MM; m++)\n"
    "#pragma unroll\n"
    "            for (int c = 0; c < CW; c++) acc[m][c] = 0.0f;\n"
    "        for (int k0 = 0; k0 < K; k0 += KC) {\n"
    "            __syncthreads();\n"
    "            for (int i = (int)threadIdx.x; i < M * KC; i += NW * AK_WAVE) {\n"
    "                const int m = i / KC, k = k0 + i % KC;\n"
    "                As[i] = k < K ? DT::to(ta ? Ab[(ak_i64)k * lda + m] : Ab[(ak_i64)m * lda + k]) : 0.0f;\n"
    "            }\n"
    "            __syncthreads();\n"
    "#pragma unroll\n"
    "            for (int c = 0; c < CW; c++) {\n"
    "                const int n = n_base + c;\n"
    "                if (n >= N) continue;\n"
    "                const T* bp = Bb + (ak_i64)n * ldb;\n"
    "#pragma unroll\n"
    "                for (int q = 0; q < KC / (8 * AK_WAVE); q++) {\n"
    "                    const int kk = (q * AK_WAVE + lane) * 8, gk = k0 + kk;\n"
    "                    float bv[8];\n"
    "                    if (gk + 8 <= K) DT::ld8(bp + gk, bv);\n"
    "                    else {\n"
    "#pragma unroll\n"
    "                        for (int j = 0; j < 8; j++) bv[j] = gk + j < K ? DT::to(bp[gk + j]) : 0.0f;\n"
    "                    }\n"
    "#pragma unroll\n"
    "                    for (int m = 0; m < MM; m++) {\n"
    "                        if (m < M) {\n"
    "                            const float4 a0 = *(const float4*)&As[m * KC + kk], a1 = *(const float4*)&As[m * KC + kk + 4];\n"
    "                            acc[m][c] += a0.x * bv[0] + a0.y * bv[1] + a0.z * bv[2] + a0.w * bv[3] + a1.x * bv[4] + a1.y * bv[5] +\n"
    "                                         a1.z * bv[6] + a1.w * bv[7];\n"
    "                        }\n"
    "                    }\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "        /* sums over the lanes, staged, then the epilogue */\n"
    "#pragma unroll\n"
    "        for (int m = 0; m < MM; m++)\n"
    "#pragma unroll\n"
    "            for (int c = 0; c < CW; c++) acc[m][c] = ak_warp_sum(acc[m][c]);\n"
    "        __syncthreads(); /* every warp is done with the A chunk: stage the sums there */\n"
    "        float* st = As + w * (MM * CW);\n"
    "        if (lane == 0) {\n"
    "#pragma unroll\n"
    "            for (int m = 0; m < MM; m++)\n"
    "#pragma unroll\n"
    "                for (int c = 0; c < CW; c++) st[m * CW + c] = acc[m][c];\n"
    "        }\n"
    "        __syncthreads();\n"
    "        ak_gemm_epi<DT>(st, CW, M < MM ? M : MM, CW, 0, n_base, lane, AK_WAVE, M, N, (void*)ak_gemm_off(D, sD, b, o32, DT::SIZE), ldd,\n"
    "                        ak_gemm_off(C, sC, b, o32, DT::SIZE), ldc, bias, ak_gemm_off(R, sR, b, o32, DT::SIZE), ldr, alpha, beta,\n"
    "                        flags, ap);\n"
    "    }\n"
    "}\n"
    "#define AK_GEMM_SKINNY(NAME, DT)                                       \\\n"
    "    AK_KERNEL void __launch_bounds__(256) NAME(AK_GEMM_PARAMS_T(DT)) { \\\n"
    "        ak_gemm_skinny<DT>(AK_GEMM_ARGS);                                \\\n"
    "    }\n"
    "\n"
    "/* Kernels: ak_gemm_<path>_<tile>_<in>. The tile of each name is in\n"
    " * amdkit.h's _ak_gemm_tiles table (with the reason); a cpu test checks that\n"
    " * the numbers here and there agree. A matrix-core kernel on a target without\n"
    " * the instruction for its dtype runs the SIMT body (the host never picks it\n"
    " * there; it stays correct). */\n"
    "#define AK_GEMM_MMA(NAME, DT, FAST32, BM, BN, BK, NT)                 \\\n"
    "    AK_KERNEL void __launch_bounds__(NT) NAME(AK_GEMM_PARAMS_T(DT)) { \\\n"
    "        ak_gemm_mma_or_simt<DT, FAST32, BM, BN, BK, NT>(AK_GEMM_ARGS, AK_GEMM_ORIGIN(BM, BN)); \\\n"
    "    }\n"
    "#define AK_GEMM_SIMT(NAME, DT, BM, BN, BK, NT)                        \\\n"
    "    AK_KERNEL void __launch_bounds__(NT) NAME(AK_GEMM_PARAMS_T(DT)) { \\\n"
    "        ak_gemm_simt<DT, BM, BN, BK, NT>(AK_GEMM_ARGS, AK_GEMM_ORIGIN(BM, BN)); \\\n"
    "    }\n"
    "\n"
    "// kernels: ak_gemm_mma_l_f16 ak_gemm_mma_l_bf16 ak_gemm_mma_l_f32 ak_gemm_mma_l_x32\n"
    "// kernels: ak_gemm_mma_s_f16 ak_gemm_mma_s_bf16 ak_gemm_mma_s_f32 ak_gemm_mma_s_x32\n"
    "// kernels: ak_gemm_simt_l_f32 ak_gemm_simt_l_f16 ak_gemm_simt_l_bf16\n"
    "// kernels: ak_gemm_wgmma_n128_f16 ak_gemm_wgmma_n128_bf16 ak_gemm_wgmma_n256_f16 ak_gemm_wgmma_n256_bf16\n"
    "// kernels: ak_gemm_wgmma_n128_x32 ak_gemm_wgmma_n256_x32\n"
    "// kernels: ak_gemm_skinny_f32 ak_gemm_skinny_f16 ak_gemm_skinny_bf16\n"
    "AK_GEMM_MMA(ak_gemm_mma_l_f16, ak_f16_t, false, 128, 128, 32, 256)\n"
    "AK_GEMM_MMA(ak_gemm_mma_l_bf16, ak_bf16_t, false, 128, 128, 32, 256)\n"
    "AK_GEMM_MMA(ak_gemm_mma_l_f32, ak_f32_t, false, 128, 128, 16, 256)\n"
    "AK_GEMM_MMA(ak_gemm_mma_l_x32, ak_f32_t, true, 128, 128, 16, 256)\n"
    "AK_GEMM_MMA(ak_gemm_mma_s_f16, ak_f16_t, false, 64, 64, 32, 128)\n"
    "AK_GEMM_MMA(ak_gemm_mma_s_bf16, ak_bf16_t, false, 64, 64, 32, 128)\n"
    "AK_GEMM_MMA(ak_gemm_mma_s_f32, ak_f32_t, false, 64, 64, 16, 128)\n"
    "AK_GEMM_MMA(ak_gemm_mma_s_x32, ak_f32_t, true, 64, 64, 16, 128)\n"
    "AK_GEMM_SIMT(ak_gemm_simt_l_f32, ak_f32_t, 128, 128, 16, 256)\n"
    "AK_GEMM_SIMT(ak_gemm_simt_l_f16, ak_f16_t, 128, 128, 16, 256)\n"
    "AK_GEMM_SIMT(ak_gemm_simt_l_bf16, ak_bf16_t, 128, 128, 16, 256)\n"
    "AK_GEMM_WGMMA(ak_gemm_wgmma_n128_f16, ak_f16_t, 128)\n"
    "AK_GEMM_WGMMA(ak_gemm_wgmma_n128_bf16, ak_bf16_t, 128)\n"
    "AK_GEMM_WGMMA(ak_gemm_wgmma_n256_f16, ak_f16_t, 256)\n"
    "AK_GEMM_WGMMA(ak_gemm_wgmma_n256_bf16, ak_bf16_t, 256)\n"
    "AK_GEMM_WGMMA(ak_gemm_wgmma_n128_x32, ak_f32_t, 128)\n"
    "AK_GEMM_WGMMA(ak_gemm_wgmma_n256_x32, ak_f32_t, 256)\n"
    "AK_GEMM_SKINNY(ak_gemm_skinny_f32, ak_f32_t)\n"
    "AK_GEMM_SKINNY(ak_gemm_skinny_f16, ak_f16_t)\n"
    "AK_GEMM_SKINNY(ak_gemm_skinny_bf16, ak_bf16_t)\n"
    ;

/* kernels/layout.hip */
static const char _ak_src_layout[] =
    "// kernels/layout.hip - data movement: strided N-dimensional copy (with a\n"
    "// dtype cast on the way) and embedding gather. Host wrappers: ak_copy_strided\n"
    "// and ak_embedding in amdkit.h (>>impl:ops-llm), which also hold the CPU\n"
    "// references and do the planning described here.\n"
    "//\n"
    "// Both kernels see their work as `rows` of `inner` units, a group of G\n"
    "// threads per row (G a power of two <= the block), blockDim / G rows per\n"
    "// block, grid-stride over rows; each thread moves units lane, lane + G, ...\n"
    "// of its row.\n"
    "//\n"
    "// ak_copy_nd_<unit> (bit copy; unit u8 / u16 / u32 / u64 / u128 = 1..16\n"
    "// bytes): the host has dropped size-1 dimensions, ordered the dimensions by\n"
    "// decreasing destination stride, merged the ones that are contiguous in both\n"
    "// tensors, and, when the innermost dimension is contiguous in both, re-cut it\n"
    "// into the widest unit that the row bytes, the pointers and the outer strides\n"
    "// allow (16 bytes for any aligned contiguous slice). A row is one index of\n"
    "// the outer dimensions (at most 5: decomposed once per row, 32-bit division\n"
    "// while the row count fits), optionally split into chunks of `chunk` units\n"
    "// so a long contiguous row still spreads over many blocks. Strides are in\n"
    "// units and may be negative or 0 (source only).\n"
    "// ak_copy_cast_<src>_<dst> (cast between f32 / f16 / bf16, fp32 in between,\n"
    "// round to nearest even): the same walk in elements; vec != 0 (innermost\n"
    "// contiguous in both, its length and the outer strides multiples of 4, the\n"
    "// pointers aligned to 4 elements) moves 4 elements per unit.\n"
    "//\n"
    "// ak_embedding_<unit>: row i of the output is row idx[i] of the table (units\n"
    "// of the widest size that divides the row bytes and the pointers); an index\n"
    "// outside [0, vocab) zero-fills its output row (the documented GPU result;\n"
    "// the cpu backend reports it as an error).\n"
    "//\n"
    "// kernels: ak_copy_nd_u8 ak_copy_nd_u16 ak_copy_nd_u32 ak_copy_nd_u64 ak_copy_nd_u128\n"
    "// kernels: ak_copy_cast_f32_f16 ak_copy_cast_f32_bf16 ak_copy_cast_f16_f32 ak_copy_cast_bf16_f32\n"
    "// kernels: ak_copy_cast_f16_bf16 ak_copy_cast_bf16_f16\n"
    "// kernels: ak_embedding_u8 ak_embedding_u16 ak_embedding_u32 ak_embedding_u64 ak_embedding_u128\n"
    "\n"
    "#define AK_ND_OUTER 5\n"
    "\n"
    "AK_INLINE void ak_zero_unit(ak_u8& v) { v = 0; }\n"
    "AK_INLINE void ak_zero_unit(ak_u16& v) { v = 0; }\n"
    "AK_INLINE void ak_zero_unit(ak_u32& v) { v = 0; }\n"
    "AK_INLINE void ak_zero_unit(ak_u64& v) { v = 0; }\n"
    "AK_INLINE void ak_zero_unit(uint4& v) { v.x = 0; v.y = 0; v.z = 0; v.w = 0; }\n"
    "\n"
    "// The outer dimensions of a copy (sizes and both strides, innermost last).\n"
    "struct ak_nd_outer {\n"
    "    ak_i64 sz[AK_ND_OUTER], ss[AK_ND_OUTER], ds[AK_ND_OUTER];\n"
    "    int nd;\n"
    "};\n"
    "\n"
    "// Source and destination offsets of outer index q.\n"
    "AK_INLINE void ak_nd_offsets(const ak_nd_outer& o, ak_i64 q, bool small, ak_i64& so, ak_i64& dof) {\n"
    "    so = 0;\n"
    "    dof = 0;\n"
    "    if (small) {\n"
    "        ak_u32 r = (ak_u32)q;\n"
    "#pragma unroll\n"
    "        for (int d = AK_ND_OUTER - 1; d >= 0; d--) {\n"
    "            if (d < o.nd) {\n"
    "                const ak_u32 n = (ak_u32)o.sz[d], c = r % n;\n"
    "                r /= n;\n"
    "                so += (ak_i64)c * o.ss[d];\n"
    "                dof += (ak_i64)c * o.ds[d];\n"
    "            }\n"
    "        }\n"
    "    } else {\n"
    "#pragma unroll\n"
    "        for (int d = AK_ND_OUTER - 1; d >= 0; d--) {\n"
    "            if (d < o.nd) {\n"
    "                const ak_i64 c = q % o.sz[d];\n"
    "                q /= o.sz[d];\n"
    "                so += c * o.ss[d];\n"
    "                dof += c * o.ds[d];\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "// The row walk shared by both copy kernels: calls f(src offset, dst offset,\n"
    "// unit index in the row) for every unit of this thread (iss / ids: the\n"
    "// innermost strides in the functor's pointer units).\n"
    "template <class F>\n"
    "AK_INLINE void ak_nd_walk(const ak_nd_outer& o, ak_i64 rows, ak_i64 inner, ak_i64 chunk, ak_i64 iss, ak_i64 ids,\n"
    "                          int G, F f) {\n"
    "    const ak_i64 nchunk = (inner + chunk - 1) / chunk, vrows = rows * nchunk;\n"
    "    const int lane = (int)threadIdx.x & (G - 1);\n"
    "    const ak_i64 per = (ak_i64)(blockDim.x / G);\n"
    "    const bool small = rows <= 0xFFFFFFFFll;\n"
    "    for (ak_i64 vr = (ak_i64)blockIdx.x * per + (ak_i64)(threadIdx.x / G); vr < vrows; vr += (ak_i64)gridDim.x * per) {\n"
    "        const ak_i64 row = nchunk == 1 ? vr : vr / nchunk, c0 = (vr - row * nchunk) * chunk;\n"
    "        const ak_i64 c1 = c0 + chunk < inner ? c0 + chunk : inner;\n"
    "        ak_i64 so, dof;\n"
    "        ak_nd_offsets(o, row, small, so, dof);\n"
    "        for (ak_i64 u = c0 + lane; u < c1; u += G) f(so + u * iss, dof + u * ids, u);\n"
    "    }\n"
    "}\n"
    "\n"
    "#define AK_ND_OUTER_INIT(o)                                                                                          \\\n"
    "    ak_nd_outer o;                                                                                                   \\\n"
    "    o.nd = nd;                                                                                                       \\\n"
    "    o.sz[0] = sz0; o.sz[1] = sz1; o.sz[2] = sz2; o.sz[3] = sz3; o.sz[4] = sz4;                                       \\\n"
    "    o.ss[0] = ss0; o.ss[1] = ss1; o.ss[2] = ss2; o.ss[3] = ss3; o.ss[4] = ss4;                                       \\\n"
    "    o.ds[0] = ds0; o.ds[1] = ds1; o.ds[2] = ds2; o.ds[3] = ds3; o.ds[4] = ds4\n"
    "\n"
    "template <class U>\n"
    "struct ak_nd_bits {\n"
    "    const U* s;\n"
    "    U* d;\n"
    "    AK_INLINE void operator()(ak_i64 so, ak_i64 dof, ak_i64) const { d[dof] = s[so]; }\n"
    "};\n"
    "\n"
    "// vec: 4 consecutive elements per unit (the host passes inner strides of 4)\n"
    "template <class S, class D>\n"
    "struct ak_nd_cast {\n"
    "    const typename S::T* s;\n"
    "    typename D::T* d;\n"
    "    bool vec;\n"
    "    AK_INLINE void operator()(ak_i64 so, ak_i64 dof, ak_i64) const {\n"
    "        if (vec) {\n"
    "            float f[4];\n"
    "            S::ld4(s + so, f);\n"
    "            D::st4(d + dof, f);\n"
    "        } else {\n"
    "            d[dof] = D::from(S::to(s[so]));\n"
    "        }\n"
    "    }\n"
    "};\n"
    "\n"
    "#define AK_COPY_ND_BITS(NAME, U)                                                                                     \\\n"
    "    AK_KERNEL __launch_bounds__(256) void ak_copy_nd_##NAME(                                                         \\\n"
    "        const U* src, U* dst, ak_i64 rows, ak_i64 inner, ak_i64 chunk, ak_i64 iss, ak_i64 ids,                       \\\n"
    "        int nd, ak_i64 sz0, ak_i64 sz1, ak_i64 sz2, ak_i64 sz3, ak_i64 sz4, ak_i64 ss0, ak_i64 ss1,                  \\\n"
    "        ak_i64 ss2, ak_i64 ss3, ak_i64 ss4, ak_i64 ds0, ak_i64 ds1, ak_i64 ds2, ak_i64 ds3, ak_i64 ds4, int G) {     \\\n"
    "        AK_ND_OUTER_INIT(o);                                                                                         \\\n"
    "        ak_nd_bits<U> f;                                                                                             \\\n"
    "        f.s = src;                                                                                                   \\\n"
    "        f.d = dst;                                                                                                   \\\n"
    "        ak_nd_walk(o, rows, inner, chunk, iss, ids, G, f);                                                           \\\n"
    "    }\n"
    "AK_COPY_ND_BITS(u8, ak_u8)\n"
    "AK_COPY_ND_BITS(u16, ak_u16)\n"
    "AK_COPY_ND_BITS(u32, ak_u32)\n"
    "AK_COPY_ND_BITS(u64, ak_u64)\n"
    "AK_COPY_ND_BITS(u128, uint4)\n"
    "\n"
    "#define AK_COPY_ND_CAST(SN, S, DN, D)                                                                                \\\n"
    "    AK_KERNEL __launch_bounds__(256) void ak_copy_cast_##SN##_##DN(                                                  \\\n"
    "        const S::T* src, D::T* dst, ak_i64 rows, ak_i64 inner, ak_i64 chunk, ak_i64 iss, ak_i64 ids,                 \\\n"
    "        int nd, ak_i64 sz0, ak_i64 sz1, ak_i64 sz2, ak_i64 sz3, ak_i64 sz4, ak_i64 ss0, ak_i64 ss1,                  \\\n"
    "        ak_i64 ss2, ak_i64 ss3, ak_i64 ss4, ak_i64 ds0, ak_i64 ds1, ak_i64 ds2, ak_i64 ds3, ak_i64 ds4, int G,       \\\n"
    "        int vec) {                                                                                                   \\\n"
    "        AK_ND_OUTER_INIT(o);                                                                                         \\\n"
    "        ak_nd_cast<S, D> f;                                                                                          \\\n"
    "        f.s = src;                                                                                                   \\\n"
    "        f.d = dst;                                                                                                   \\\n"
    "        f.vec = vec != 0;                                                                                            \\\n"
    "        ak_nd_walk(o, rows, inner, chunk, iss, ids, G, f);                                                           \\\n"
    "    }\n"
    "AK_COPY_ND_CAST(f32, ak_f32_t, f16, ak_f16_t)\n"
    "AK_COPY_ND_CAST(f32, ak_f32_t, bf16, ak_bf16_t)\n"
    "AK_COPY_ND_CAST(f16, ak_f16_t, f32, ak_f32_t)\n"
    "AK_COPY_ND_CAST(bf16, ak_bf16_t, f32, ak_f32_t)\n"
    "AK_COPY_ND_CAST(f16, ak_f16_t, bf16, ak_bf16_t)\n"
    "AK_COPY_ND_CAST(bf16, ak_bf16_t, f16, ak_f16_t)\n"
    "\n"
    "// out[i, :] = table[idx[i], :] in units of U (upr units per row); rows whose\n"
    "// index is outside [0, vocab) are zero-filled.\n"
    "#define AK_EMBEDDING(NAME, U)                                                                                        \\\n"
    "    AK_KERNEL __launch_bounds__(256) void ak_embedding_##NAME(const U* table, const void* idx, U* out, ak_i64 n,     \\\n"
    "                                                              ak_i64 vocab, ak_i64 upr, int G, int idx64) {          \\\n"
    "        const int lane = (int)threadIdx.x & (G - 1);                                                                 \\\n"
    "        const ak_i64 per = (ak_i64)(blockDim.x / G);                                                                 \\\n"
    "        for (ak_i64 i = (ak_i64)blockIdx.x * per + (ak_i64)(threadIdx.x / G); i < n; i += (ak_i64)gridDim.x * per) { \\\n"
    "            const ak_i64 k = idx64 ? ((const long long*)idx)[i] : (ak_i64)((const int*)idx)[i];                      \\\n"
    "            U* o = out + i * upr;                                                                                    \\\n"
    "            if (k >= 0 && k < vocab) {                                                                               \\\n"
    "                const U* s = table + k * upr;                                                                        \\\n"
    "                for (ak_i64 u = lane; u < upr; u += G) o[u] = s[u];                                                  \\\n"
    "            } else {                                                                                                 \\\n"
    "                U z;                                                                                                 \\\n"
    "                ak_zero_unit(z);                                                                                     \\\n"
    "                for (ak_i64 u = lane; u < upr; u += G) o[u] = z;                                                     \\\n"
    "            }                                                                                                        \\\n"
    "        }                                                                                                            \\\n"
    "    }\n"
    "AK_EMBEDDING(u8, ak_u8)\n"
    "AK_EMBEDDING(u16, ak_u16)\n"
    "AK_EMBEDDING(u32, ak_u32)\n"
    "AK_EMBEDDING(u64, ak_u64)\n"
    "AK_EMBEDDING(u128, uint4)\n"
    ;

/* kernels/llm.hip */
static const char _ak_src_llm[] =
    "// kernels/llm.hip - rotary position embedding (RoPE) over a contiguous\n"
    "// [tokens][heads][head_dim] tensor, fp32 math. Host wrapper: ak_rope in\n"
    "// amdkit.h (>>impl:ops-llm), which also holds the CPU reference.\n"
    "//\n"
    "// Pair i (0 <= i < rotary_dim / 2) of every head of token t turns by the angle\n"
    "//   a = (float)pos[t] * inv_freq[i],  inv_freq[i] = (float)2^(-(2i / rotary_dim) * log2(theta))\n"
    "// (both products in fp32, as Hugging Face's rotary embedding computes them);\n"
    "// cos a and sin a are evaluated in double on that fp32 angle and rounded to\n"
    "// fp32 (the fast-math sinf / cosf are off by far more than a bf16 ulp at\n"
    "// angles of 10^4..10^6 rad; the double work is once per (token, pair) and is\n"
    "// shared by all heads of the token through shared memory).\n"
    "//   rotate-half (GPT-NeoX, interleaved = 0): the pair is (i, i + rotary_dim / 2)\n"
    "//   interleaved (GPT-J, interleaved = 1):    the pair is (2i, 2i + 1)\n"
    "//   (u, v) -> (u cos a - v sin a, v cos a + u sin a)\n"
    "// Elements rotary_dim..head_dim-1 of each head are copied (skipped in place).\n"
    "//\n"
    "// ak_rope_<dt>: one block per token (grid-stride over tokens); the block\n"
    "// first computes the token's cos / sin table (rotary_dim / 2 <= 512 pairs),\n"
    "// then its threads walk the token's work units: vec != 0 (x, y 16-byte\n"
    "// aligned, head_dim and rotary_dim multiples of 8) moves 4 pairs per unit\n"
    "// with 4-element accesses (rotate-half: at i and i + rotary_dim / 2;\n"
    "// interleaved: 2 pairs per 4-element access) and the tail in 4-element\n"
    "// pieces; else one pair (one tail element) per unit. y may be x.\n"
    "//\n"
    "// kernels: ak_rope_f32 ak_rope_f16 ak_rope_bf16\n"
    "\n"
    "#define AK_ROPE_MAX_PAIRS 512\n"
    "\n"
    "template <class D>\n"
    "AK_INLINE void ak_rope_pair(const typename D::T* x, typename D::T* y, int i0, int i1, float c, float s) {\n"
    "    const float u = D::to(x[i0]), v = D::to(x[i1]);\n"
    "    y[i0] = D::from(u * c - v * s);\n"
    "    y[i1] = D::from(v * c + u * s);\n"
    "}\n"
    "\n"
    "template <class D>\n"
    "AK_INLINE void ak_rope_token(const typename D::T* x, const void* pos, typename D::T* y, ak_i64 tokens, int heads,\n"
    "                             int hd, int rd, double l2theta, bool interleaved, bool pos64, bool vec, bool inplace) {\n"
    "    __shared__ float cs_c[AK_ROPE_MAX_PAIRS], cs_s[AK_ROPE_MAX_PAIRS];\n"
    "    const int half = rd / 2, B = (int)blockDim.x, tid = (int)threadIdx.x;\n"
    "    // pairs per unit, units per head (rotation), tail elements per unit and units per head\n"
    "    const int P = vec ? (interleaved ? 2 : 4) : 1;\n"
    "    const int ppr = half / P;\n"
    "    const int tail = inplace ? 0 : hd - rd;\n"
    "    const int tp = vec ? 4 : 1;\n"
    "    const int tpr = tail / tp;\n"
    "    const int urot = heads * ppr, units = urot + heads * tpr;\n"
    "    for (ak_i64 t = blockIdx.x; t < tokens; t += gridDim.x) {\n"
    "        const float p = pos64 ? (float)((const long long*)pos)[t] : (float)((const int*)pos)[t];\n"
    "        __syncthreads();   // the previous token's readers are done with the table\n"
    "        for (int i = tid; i < half; i += B) {\n"
    "            const float inv = (float)exp2(-(double)(2 * i) / (double)rd * l2theta);\n"
    "            const float a = p * inv;\n"
    "            cs_c[i] = (float)cos((double)a);\n"
    "            cs_s[i] = (float)sin((double)a);\n"
    "        }\n"
    "        __syncthreads();\n"
    "        const ak_i64 base = t * (ak_i64)heads * (ak_i64)hd;\n"
    "        for (int u = tid; u < units; u += B) {\n"
    "            if (u < urot) {\n"
    "                const int h = u / ppr, j = u - h * ppr;\n"
    "                const typename D::T* xh = x + base + (ak_i64)h * hd;\n"
    "                typename D::T* yh = y + base + (ak_i64)h * hd;\n"
    "                if (vec && !interleaved) {\n"
    "                    const int i = j * 4;\n"
    "                    float a[4], b[4], oa[4], ob[4];\n"
    "                    D::ld4(xh + i, a);\n"
    "                    D::ld4(xh + i + half, b);\n"
    "#pragma unroll\n"
    "                    for (int q = 0; q < 4; q++) {\n"
    "                        const float c = cs_c[i + q], s = cs_s[i + q];\n"
    "                        oa[q] = a[q] * c - b[q] * s;\n"
    "                        ob[q] = b[q] * c + a[q] * s;\n"
    "                    }\n"
    "                    D::st4(yh + i, oa);\n"
    "                    D::st4(yh + i + half, ob);\n"
    "                } else if (vec) {\n"
    "                    const int i = j * 2;   // pairs i, i + 1: elements 2i .. 2i + 3\n"
    "                    float a[4], o[4];\n"
    "                    D::ld4(xh + 2 * i, a);\n"
    "#pragma unroll\n"
    "                    for (int q = 0; q < 2; q++) {\n"
    "                        const float c = cs_c[i + q], s = cs_s[i + q];\n"
    "                        o[2 * q] = a[2 * q] * c - a[2 * q + 1] * s;\n"
    "                        o[2 * q + 1] = a[2 * q + 1] * c + a[2 * q] * s;\n"
    "                    }\n"
    "                    D::st4(yh + 2 * i, o);\n"
    "                } else if (interleaved) {\n"
    "                    ak_rope_pair<D>(xh, yh, 2 * j, 2 * j + 1, cs_c[j], cs_s[j]);\n"
    "                } else {\n"
    "                    ak_rope_pair<D>(xh, yh, j, j + half, cs_c[j], cs_s[j]);\n"
    "                }\n"
    "            } else {\n"
    "                const int v = u - urot, h = v / tpr, e = rd + (v - h * tpr) * tp;\n"
    "                const ak_i64 o = base + (ak_i64)h * hd + e;\n"
    "                if (vec) {\n"
    "                    float a[4];\n"
    "                    D::ld4(x + o, a);\n"
    "                    D::st4(y + o, a);\n"
    "                } else {\n"
    "                    y[o] = x[o];\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "#define AK_ROPE(DT, D)                                                                                             \\\n"
    "    AK_KERNEL __launch_bounds__(256) void ak_rope_##DT(const D::T* x, const void* pos, D::T* y, ak_i64 tokens,      \\\n"
    "                                                       int heads, int hd, int rd, double l2theta, int interleaved, \\\n"
    "                                                       int pos64, int vec, int inplace) {                          \\\n"
    "        ak_rope_token<D>(x, pos, y, tokens, heads, hd, rd, l2theta, interleaved != 0, pos64 != 0, vec != 0,         \\\n"
    "                         inplace != 0);                                                                            \\\n"
    "    }\n"
    "AK_ROPE(f32, ak_f32_t)\n"
    "AK_ROPE(f16, ak_f16_t)\n"
    "AK_ROPE(bf16, ak_bf16_t)\n"
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
    "// one-pass variance accurate), then a pass that writes (re-reading the row,\n"
    "// from L2 while the rows in flight fit in it). Its vec / wvec flags: see\n"
    "// ak_norm_wide (odd widths stay vectorized).\n"
    "//\n"
    "// ak_add_norm_<dt> / ak_add_norm_wide_<dt> (ak_add_layernorm / ak_add_rmsnorm,\n"
    "// the residual form): the same kernels with RES = true: h = x + r is rounded\n"
    "// to the dtype, written to h and normalized (y = norm(h)); x and r are read\n"
    "// once where the row kernel normalizes from registers, the wide kernel's\n"
    "// second pass reads h back. h may be x or r: each thread reads its elements\n"
    "// once, before it writes them (r and h carry no __restrict__; x keeps the\n"
    "// one it has for ak_norm, where y may be x under the same rule).\n"
    "//\n"
    "// kernels: ak_norm_f32 ak_norm_f16 ak_norm_bf16 ak_norm_wide_f32 ak_norm_wide_f16 ak_norm_wide_bf16\n"
    "// kernels: ak_add_norm_f32 ak_add_norm_f16 ak_add_norm_bf16\n"
    "// kernels: ak_add_norm_wide_f32 ak_add_norm_wide_f16 ak_add_norm_wide_bf16\n"
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
    "// RES: v = h = round(x + r) (the residual sum in the storage dtype), h\n"
    "// written as it is formed; else v = x.\n"
    "template <class D, int E, bool RES>\n"
    "AK_INLINE void ak_norm_load(float* v, const typename D::T* x, const typename D::T* r, typename D::T* h, int len,\n"
    "                            int lane, int G, bool vec) {\n"
    "    if (!RES) {\n"
    "        ak_row_load<D, E>(v, x, len, lane, G, vec, 0.0f);\n"
    "    } else if (vec) {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < E / 8; k++) {\n"
    "            const int e = (k * G + lane) * 8;\n"
    "            float* a = v + k * 8;\n"
    "            if (e < len) {\n"
    "                float t[8];\n"
    "                D::ld8(x + e, a);\n"
    "                D::ld8(r + e, t);\n"
    "#pragma unroll\n"
    "                for (int q = 0; q < 8; q++) a[q] = D::to(D::from(a[q] + t[q]));\n"
    "                D::st8(h + e, a);\n"
    "            } else {\n"
    "#pragma unroll\n"
    "                for (int q = 0; q < 8; q++) a[q] = 0.0f;\n"
    "            }\n"
    "        }\n"
    "    } else {\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < E; k++) {\n"
    "            const int e = k * G + lane;\n"
    "            v[k] = 0.0f;\n"
    "            if (e < len) {\n"
    "                const typename D::T s = D::from(D::to(x[e]) + D::to(r[e]));\n"
    "                h[e] = s;\n"
    "                v[k] = D::to(s);\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "template <class D, int E, bool RES>\n"
    "AK_INLINE void ak_norm_rows(const typename D::T* AK_RESTRICT x, const typename D::T* res, const typename D::T* AK_RESTRICT w,\n"
    "                            const typename D::T* AK_RESTRICT b, typename D::T* h, typename D::T* AK_RESTRICT y,\n"
    "                            ak_i64 rows, int cols, int G, bool vec, float eps, bool rms) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const int lane = (int)threadIdx.x & (G - 1);\n"
    "    ak_i64 row = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);\n"
    "    const int len = row < rows ? cols : 0;\n"
    "    if (row >= rows) row = 0;\n"
    "    float v[E];\n"
    "    ak_norm_load<D, E, RES>(v, x + row * cols, RES ? res + row * cols : res, RES ? h + row * cols : h, len, lane, G, vec);\n"
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
    "// Element e of the row as the first wide pass sees it: x[e], or (RES) h[e] =\n"
    "// round(x[e] + r[e]), written as it is formed.\n"
    "template <class D, bool RES>\n"
    "AK_INLINE float ak_norm_res1(const typename D::T* x, const typename D::T* r, typename D::T* h, ak_i64 e) {\n"
    "    if (!RES) return D::to(x[e]);\n"
    "    const typename D::T s = D::from(D::to(x[e]) + D::to(r[e]));\n"
    "    h[e] = s;\n"
    "    return D::to(s);\n"
    "}\n"
    "\n"
    "// One block per row, any width. vec: x and y 16-byte aligned (any width:\n"
    "// each row runs a scalar head to its first 16-byte boundary, 8-element\n"
    "// vectors, a scalar tail); wvec: w and b 16-byte aligned too (their vector\n"
    "// loads are used where the row's vectors start on a multiple of 8 columns).\n"
    "// RES (residual form): the first pass forms h = round(x + r) and writes it\n"
    "// (r and h aligned like x), the second reads h back (each thread reads what\n"
    "// it wrote: same head / vector / tail split).\n"
    "template <class D, bool RES>\n"
    "AK_INLINE void ak_norm_wide(const typename D::T* AK_RESTRICT x, const typename D::T* res,\n"
    "                            const typename D::T* AK_RESTRICT w, const typename D::T* AK_RESTRICT b, typename D::T* h,\n"
    "                            typename D::T* AK_RESTRICT y, ak_i64 cols, bool vec, bool wvec, float eps, bool rms) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const ak_i64 row = blockIdx.x;\n"
    "    const typename D::T* p = x + row * cols;\n"
    "    const typename D::T* pr = RES ? res + row * cols : res;\n"
    "    typename D::T* ph = RES ? h + row * cols : h;\n"
    "    typename D::T* q = y + row * cols;\n"
    "    const int B = (int)blockDim.x, t = (int)threadIdx.x;\n"
    "    ak_i64 head = cols, nv = 0;\n"
    "    if (vec) {\n"
    "        head = (ak_i64)(((16u - ((unsigned)(unsigned long long)p & 15u)) & 15u) / sizeof(typename D::T));\n"
    "        if (head > cols) head = cols;\n"
    "        nv = (cols - head) >> 3;\n"
    "    }\n"
    "    const ak_i64 tail0 = head + nv * 8;\n"
    "    const float K = rms ? 0.0f : RES ? D::to(D::from(D::to(p[0]) + D::to(pr[0]))) : D::to(p[0]);\n"
    "    if (RES && !rms) __syncthreads();   // every thread has K before thread 0 may overwrite x[0] (h == x)\n"
    "    float s1 = 0.0f, s2 = 0.0f;\n"
    "    for (ak_i64 e = t; e < head; e += B) { const float d = ak_norm_res1<D, RES>(p, pr, ph, e) - K; s1 += d; s2 += d * d; }\n"
    "    for (ak_i64 k = t; k < nv; k += B) {\n"
    "        const ak_i64 e = head + k * 8;\n"
    "        float a[8];\n"
    "        D::ld8(p + e, a);\n"
    "        if (RES) {\n"
    "            float u8[8];\n"
    "            D::ld8(pr + e, u8);\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < 8; u++) a[u] = D::to(D::from(a[u] + u8[u]));\n"
    "            D::st8(ph + e, a);\n"
    "        }\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < 8; u++) { const float d = a[u] - K; s1 += d; s2 += d * d; }\n"
    "    }\n"
    "    for (ak_i64 e = tail0 + t; e < cols; e += B) { const float d = ak_norm_res1<D, RES>(p, pr, ph, e) - K; s1 += d; s2 += d * d; }\n"
    "    if (RES) p = ph;   // the second pass normalizes h\n"
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
    "    for (ak_i64 e = t; e < head; e += B) {\n"
    "        float a = (D::to(p[e]) - mean) * r;\n"
    "        ak_norm_affine<D, 1>(&a, w, b, e, false);\n"
    "        q[e] = D::from(a);\n"
    "    }\n"
    "    const bool wv = wvec && head == 0;\n"
    "    for (ak_i64 k = t; k < nv; k += B) {\n"
    "        const ak_i64 e = head + k * 8;\n"
    "        float a[8];\n"
    "        D::ld8(p + e, a);\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < 8; u++) a[u] = (a[u] - mean) * r;\n"
    "        ak_norm_affine<D, 8>(a, w, b, e, wv);\n"
    "        D::st8(q + e, a);\n"
    "    }\n"
    "    for (ak_i64 e = tail0 + t; e < cols; e += B) {\n"
    "        float a = (D::to(p[e]) - mean) * r;\n"
    "        ak_norm_affine<D, 1>(&a, w, b, e, false);\n"
    "        q[e] = D::from(a);\n"
    "    }\n"
    "}\n"
    "\n"
    "// ak_norm_wide on NVIDIA: two blocks of 1024 threads per SM (<= 32 registers).\n"
    "// The head / vector / tail + residual form took it to 48-56 registers (ptxas,\n"
    "// sm_90), one block per SM, and the H100 sweep of 2026-11-23 measured f16/bf16\n"
    "// rows of 32768-400000 at 0.61-0.75x their earlier time (88% -> 54% of copy\n"
    "// at 16384 x 32768 bf16). AMD keeps the default (its second argument means\n"
    "// something else there; the ROCm ISA checks cover it).\n"
    "#if defined(AK_NVIDIA)\n"
    "#define AK_NORM_WIDE_MINB 2\n"
    "#else\n"
    "#define AK_NORM_WIDE_MINB 1\n"
    "#endif\n"
    "\n"
    "#define AK_NORM(DT, D)                                                                                               \\\n"
    "    AK_KERNEL __launch_bounds__(16384 / AK_NORM_E(D), 1) void ak_norm_##DT(const D::T* x, const D::T* w,              \\\n"
    "                                                                           const D::T* b, D::T* y, ak_i64 rows,      \\\n"
    "                                                                           int cols, int G, int vec, float eps,      \\\n"
    "                                                                           int rms) {                                \\\n"
    "        ak_norm_rows<D, AK_NORM_E(D), false>(x, x, w, b, (D::T*)0, y, rows, cols, G, vec != 0, eps, rms != 0);       \\\n"
    "    }                                                                                                                \\\n"
    "    AK_KERNEL __launch_bounds__(1024, AK_NORM_WIDE_MINB) void ak_norm_wide_##DT(const D::T* x, const D::T* w, const D::T* b, D::T* y, \\\n"
    "                                                                ak_i64 cols, int vec, int wvec, float eps, int rms) { \\\n"
    "        ak_norm_wide<D, false>(x, x, w, b, (D::T*)0, y, cols, vec != 0, wvec != 0, eps, rms != 0);                   \\\n"
    "    }                                                                                                                \\\n"
    "    AK_KERNEL __launch_bounds__(16384 / AK_NORM_E(D), 1) void ak_add_norm_##DT(                                      \\\n"
    "        const D::T* x, const D::T* r, const D::T* w, const D::T* b, D::T* h, D::T* y, ak_i64 rows, int cols, int G,  \\\n"
    "        int vec, float eps, int rms) {                                                                               \\\n"
    "        ak_norm_rows<D, AK_NORM_E(D), true>(x, r, w, b, h, y, rows, cols, G, vec != 0, eps, rms != 0);               \\\n"
    "    }                                                                                                                \\\n"
    "    AK_KERNEL __launch_bounds__(1024, AK_NORM_WIDE_MINB) void ak_add_norm_wide_##DT(                                                 \\\n"
    "        const D::T* x, const D::T* r, const D::T* w, const D::T* b, D::T* h, D::T* y, ak_i64 cols, int vec, int wvec, \\\n"
    "        float eps, int rms) {                                                                                        \\\n"
    "        ak_norm_wide<D, true>(x, r, w, b, h, y, cols, vec != 0, wvec != 0, eps, rms != 0);                           \\\n"
    "    }\n"
    "AK_NORM(f32, ak_f32_t)\n"
    "AK_NORM(f16, ak_f16_t)\n"
    "AK_NORM(bf16, ak_bf16_t)\n"
    ;

/* kernels/random.hip */
static const char _ak_src_random[] =
    "/* kernels/random.hip - counter-based random numbers (Philox4x32-10) and\n"
    " * dropout, for f32, f16 and bf16 storage. Host wrappers and the CPU\n"
    " * references: amdkit.h (>>impl:ops-random): ak_rand_uniform, ak_rand_normal,\n"
    " * ak_dropout.\n"
    " *\n"
    " * Stream layout (the same on every backend): element i of a call with\n"
    " * (seed, offset) takes word i % 4 of philox4x32_10(counter, key) with\n"
    " * counter = (lo32(offset + i / 4), hi32(offset + i / 4), 0, 0) and\n"
    " * key = (lo32(seed), hi32(seed)). Uniform: u = (word >> 8) * 2^-24 in [0, 1).\n"
    " * Normal: Box-Muller on the pairs (word 0, word 1) and (word 2, word 3) of a\n"
    " * counter: u1 = ((w_a >> 8) + 1) * 2^-24 in (0, 1], turns t = (w_b >> 8) *\n"
    " * 2^-24, r = sqrt(-2 ln u1), elements (r cos 2 pi t, r sin 2 pi t).\n"
    " *\n"
    " * BIT-IDENTICAL with the CPU reference: every float operation of the\n"
    " * transform is an explicit fused multiply-add (ak_xfma; a product is\n"
    " * fma(a, b, -0), a sum fma(a, 1, b)) and ln, sqrt, sin, cos are written here\n"
    " * from those (no libm, no __logf): NVIDIA through inline PTX fma.rn.f32\n"
    " * (immune to --use_fast_math's FTZ and contraction), AMD through\n"
    " * __builtin_fmaf with FP contraction off. The C side in amdkit.h repeats\n"
    " * the same sequence with fmaf(). Threads: one counter (4 elements) per step\n"
    " * of a grid-stride loop; 16-byte (f32) / 8-byte (halves) accesses when the\n"
    " * pointers allow. */\n"
    "\n"
    "/* ---- exact float primitives ---------------------------------------------- */\n"
    "#if defined(AK_NVIDIA)\n"
    "AK_INLINE float ak_xfma(float a, float b, float c) {\n"
    "    float d;\n"
    "    asm(\"fma.rn.f32 %0, %1, %2, %3;\" : \"=f\"(d) : \"f\"(a), \"f\"(b), \"f\"(c));\n"
    "    return d;\n"
    "}\n"
    "#else\n"
    "AK_INLINE float ak_xfma(float a, float b, float c) {\n"
    "#pragma clang fp contract(off)\n"
    "    return __builtin_fmaf(a, b, c);\n"
    "}\n"
    "#endif\n"
    "AK_INLINE float ak_xmul(float a, float b) { return ak_xfma(a, b, -0.0f); }  /* exact a * b, signed zeros included */\n"
    "AK_INLINE float ak_xadd(float a, float b) { return ak_xfma(a, 1.0f, b); }\n"
    "\n"
    "/* ---- Philox4x32-10 --------------------------------------------------------- */\n"
    "AK_INLINE void ak_philox(ak_u32 c[4], ak_u32 k0, ak_u32 k1) {\n"
    "#pragma unroll\n"
    "    for (int r = 0; r < 10; r++) {\n"
    "        const ak_u32 h0 = __umulhi(0xD2511F53u, c[0]), l0 = 0xD2511F53u * c[0];\n"
    "        const ak_u32 h1 = __umulhi(0xCD9E8D57u, c[2]), l1 = 0xCD9E8D57u * c[2];\n"
    "        const ak_u32 n0 = h1 ^ c[1] ^ k0, n2 = h0 ^ c[3] ^ k1;\n"
    "        c[0] = n0; c[1] = l1; c[2] = n2; c[3] = l0;\n"
    "        k0 += 0x9E3779B9u;\n"
    "        k1 += 0xBB67AE85u;\n"
    "    }\n"
    "}\n"
    "/* The 4 words of counter j of the stream (seed, offset). */\n"
    "AK_INLINE void ak_philox_at(ak_u64 seed, ak_u64 offset, ak_u64 j, ak_u32 w[4]) {\n"
    "    const ak_u64 c = offset + j;\n"
    "    w[0] = (ak_u32)c; w[1] = (ak_u32)(c >> 32); w[2] = 0u; w[3] = 0u;\n"
    "    ak_philox(w, (ak_u32)seed, (ak_u32)(seed >> 32));\n"
    "}\n"
    "/* [0, 1) with 24 random bits (exact). */\n"
    "AK_INLINE float ak_philox_unit(ak_u32 w) { return ak_xmul((float)(w >> 8), 5.9604644775390625e-08f); }\n"
    "\n"
    "/* ---- ln, sqrt, sincos from fma ------------------------------------------------ */\n"
    "/* ln(u) for normal u > 0: u = m 2^e, m in [sqrt(1/2), sqrt(2)), f = m - 1,\n"
    " * s = f / (2 + f) (Newton reciprocal), ln m = 2s + 2s z P(z), z = s^2. */\n"
    "AK_INLINE float ak_xlog(float u) {\n"
    "    const ak_u32 b = __float_as_uint(u);\n"
    "    int e = (int)(b >> 23) - 127;\n"
    "    float m = __uint_as_float((b & 0x7FFFFFu) | 0x3F800000u);\n"
    "    if (m > 1.41421356f) { m = ak_xmul(m, 0.5f); e += 1; }\n"
    "    const float f = ak_xadd(m, -1.0f), d = ak_xadd(f, 2.0f);\n"
    "    float y = __uint_as_float(0x7EF311C3u - __float_as_uint(d));\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < 4; i++) { const float er = ak_xfma(-d, y, 1.0f); y = ak_xfma(y, er, y); }\n"
    "    const float s = ak_xmul(f, y), z = ak_xmul(s, s);\n"
    "    float p = 0.0769230769f;\n"
    "    p = ak_xfma(p, z, 0.0909090909f);\n"
    "    p = ak_xfma(p, z, 0.111111111f);\n"
    "    p = ak_xfma(p, z, 0.142857143f);\n"
    "    p = ak_xfma(p, z, 0.2f);\n"
    "    p = ak_xfma(p, z, 0.333333333f);\n"
    "    const float s2 = ak_xmul(s, 2.0f), lm = ak_xfma(ak_xmul(s2, z), p, s2), fe = (float)e;\n"
    "    return ak_xfma(fe, 0.693145751953125f, ak_xfma(fe, 1.42860677e-06f, lm));\n"
    "}\n"
    "/* sqrt(v), v >= 0 normal or 0: Newton on 1/sqrt, then one correction of v * y. */\n"
    "AK_INLINE float ak_xsqrt(float v) {\n"
    "    if (v == 0.0f) return 0.0f;\n"
    "    float y = __uint_as_float(0x5F3759DFu - (__float_as_uint(v) >> 1));\n"
    "    const float h = ak_xmul(v, 0.5f);\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < 4; i++) y = ak_xmul(y, ak_xfma(-h, ak_xmul(y, y), 1.5f));\n"
    "    const float r = ak_xmul(v, y);\n"
    "    return ak_xfma(ak_xfma(-r, r, v), ak_xmul(y, 0.5f), r);\n"
    "}\n"
    "/* sin and cos of k * 2^-24 turns (k < 2^24): quarter-turn reduction in\n"
    " * integers (exact), then Taylor polynomials on |x| <= pi/4. */\n"
    "AK_INLINE void ak_xsincos_turns(ak_u32 k, float* s, float* c) {\n"
    "    const ak_u32 q = (k + (1u << 21)) >> 22;\n"
    "    const int ri = (int)k - (int)(q << 22);\n"
    "    const float x = ak_xmul(ak_xmul((float)ri, 2.38418579e-07f), 1.57079637f), x2 = ak_xmul(x, x);\n"
    "    float sp = -2.50521084e-08f;\n"
    "    sp = ak_xfma(sp, x2, 2.75573192e-06f);\n"
    "    sp = ak_xfma(sp, x2, -1.98412698e-04f);\n"
    "    sp = ak_xfma(sp, x2, 8.33333333e-03f);\n"
    "    sp = ak_xfma(sp, x2, -1.66666667e-01f);\n"
    "    const float sn = ak_xfma(ak_xmul(x, x2), sp, x);\n"
    "    float cp = 2.08767570e-09f;\n"
    "    cp = ak_xfma(cp, x2, -2.75573192e-07f);\n"
    "    cp = ak_xfma(cp, x2, 2.48015873e-05f);\n"
    "    cp = ak_xfma(cp, x2, -1.38888889e-03f);\n"
    "    cp = ak_xfma(cp, x2, 4.16666667e-02f);\n"
    "    cp = ak_xfma(cp, x2, -0.5f);\n"
    "    const float cs = ak_xfma(x2, cp, 1.0f);\n"
    "    switch (q & 3u) {\n"
    "    case 0: *s = sn; *c = cs; break;\n"
    "    case 1: *s = cs; *c = -sn; break;\n"
    "    case 2: *s = -sn; *c = -cs; break;\n"
    "    default: *s = -cs; *c = sn; break;\n"
    "    }\n"
    "}\n"
    "/* Two standard normals from two words (Box-Muller). */\n"
    "AK_INLINE void ak_box_muller(ak_u32 wa, ak_u32 wb, float* z0, float* z1) {\n"
    "    const float u1 = ak_xmul((float)((wa >> 8) + 1u), 5.9604644775390625e-08f);\n"
    "    const float r = ak_xsqrt(ak_xmul(ak_xlog(u1), -2.0f));\n"
    "    float s, c;\n"
    "    ak_xsincos_turns(wb >> 8, &s, &c);\n"
    "    *z0 = ak_xmul(r, c);\n"
    "    *z1 = ak_xmul(r, s);\n"
    "}\n"
    "\n"
    "/* ---- the counter loop ------------------------------------------------------ */\n"
    "/* For every counter j < ceil(n / 4): gen(j, f[4]) fills 4 fp32 values, put\n"
    " * writes elements 4j .. 4j + 3 (< n). vec: y 4-element aligned (whole\n"
    " * groups as one access). */\n"
    "template <class D, class G>\n"
    "AK_INLINE void ak_rand_store(typename D::T* y, ak_i64 n, G gen) {\n"
    "    const ak_i64 groups = (n + 3) / 4;\n"
    "    const bool vec = (((ak_u64)y) & (4u * D::SIZE - 1u)) == 0;\n"
    "    for (ak_i64 j = ak_gtid(); j < groups; j += ak_gstride()) {\n"
    "        float f[4];\n"
    "        gen(j, f);\n"
    "        const ak_i64 e = 4 * j;\n"
    "        if (vec && e + 4 <= n) D::st4(y + e, f);\n"
    "        else\n"
    "            for (int q = 0; q < 4 && e + q < n; q++) y[e + q] = D::from(f[q]);\n"
    "    }\n"
    "}\n"
    "\n"
    "/* y = lo + u * range, rounded to the dtype; a value that rounds to >= hi is lo. */\n"
    "template <class D>\n"
    "AK_INLINE void ak_rand_uniform_impl(typename D::T* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float lo, float range,\n"
    "                                    float hi) {\n"
    "    ak_rand_store<D>(y, n, [&](ak_i64 j, float f[4]) {\n"
    "        ak_u32 w[4];\n"
    "        ak_philox_at(seed, offset, (ak_u64)j, w);\n"
    "#pragma unroll\n"
    "        for (int q = 0; q < 4; q++) {\n"
    "            const float v = D::to(D::from(ak_xfma(ak_philox_unit(w[q]), range, lo)));\n"
    "            f[q] = v >= hi ? lo : v;\n"
    "        }\n"
    "    });\n"
    "}\n"
    "AK_KERNEL void ak_rand_uniform_f32(float* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float lo, float range, float hi) {\n"
    "    ak_rand_uniform_impl<ak_f32_t>(y, n, seed, offset, lo, range, hi);\n"
    "}\n"
    "AK_KERNEL void ak_rand_uniform_f16(ak_half* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float lo, float range, float hi) {\n"
    "    ak_rand_uniform_impl<ak_f16_t>(y, n, seed, offset, lo, range, hi);\n"
    "}\n"
    "AK_KERNEL void ak_rand_uniform_bf16(ak_bf16* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float lo, float range, float hi) {\n"
    "    ak_rand_uniform_impl<ak_bf16_t>(y, n, seed, offset, lo, range, hi);\n"
    "}\n"
    "\n"
    "/* y = mean + std * z */\n"
    "template <class D>\n"
    "AK_INLINE void ak_rand_normal_impl(typename D::T* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float mean, float sd) {\n"
    "    ak_rand_store<D>(y, n, [&](ak_i64 j, float f[4]) {\n"
    "        ak_u32 w[4];\n"
    "        ak_philox_at(seed, offset, (ak_u64)j, w);\n"
    "        ak_box_muller(w[0], w[1], &f[0], &f[1]);\n"
    "        ak_box_muller(w[2], w[3], &f[2], &f[3]);\n"
    "#pragma unroll\n"
    "        for (int q = 0; q < 4; q++) f[q] = ak_xfma(f[q], sd, mean);\n"
    "    });\n"
    "}\n"
    "AK_KERNEL void ak_rand_normal_f32(float* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float mean, float sd) {\n"
    "    ak_rand_normal_impl<ak_f32_t>(y, n, seed, offset, mean, sd);\n"
    "}\n"
    "AK_KERNEL void ak_rand_normal_f16(ak_half* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float mean, float sd) {\n"
    "    ak_rand_normal_impl<ak_f16_t>(y, n, seed, offset, mean, sd);\n"
    "}\n"
    "AK_KERNEL void ak_rand_normal_bf16(ak_bf16* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float mean, float sd) {\n"
    "    ak_rand_normal_impl<ak_bf16_t>(y, n, seed, offset, mean, sd);\n"
    "}\n"
    "\n"
    "/* Dropout: keep element i when u_i >= p; y = keep ? x * scale : 0 (exactly 0,\n"
    " * also for inf / NaN inputs); mask (may be NULL) = keep as 0 / 1 bytes. */\n"
    "template <class D>\n"
    "AK_INLINE void ak_dropout_impl(const typename D::T* x, typename D::T* y, ak_u8* mask, ak_i64 n, ak_u64 seed,\n"
    "                               ak_u64 offset, float p, float scale) {\n"
    "    typedef typename D::T T;\n"
    "    const ak_i64 groups = (n + 3) / 4;\n"
    "    const ak_u64 al = 4u * D::SIZE - 1u;\n"
    "    const bool vec = ((((ak_u64)x) | ((ak_u64)y)) & al) == 0 && (((ak_u64)mask) & 3u) == 0;\n"
    "    for (ak_i64 j = ak_gtid(); j < groups; j += ak_gstride()) {\n"
    "        ak_u32 w[4];\n"
    "        ak_philox_at(seed, offset, (ak_u64)j, w);\n"
    "        const ak_i64 e = 4 * j;\n"
    "        bool keep[4];\n"
    "#pragma unroll\n"
    "        for (int q = 0; q < 4; q++) keep[q] = ak_philox_unit(w[q]) >= p;\n"
    "        if (vec && e + 4 <= n) {\n"
    "            float f[4];\n"
    "            D::ld4(x + e, f);\n"
    "#pragma unroll\n"
    "            for (int q = 0; q < 4; q++) f[q] = keep[q] ? ak_xmul(f[q], scale) : 0.0f;\n"
    "            D::st4(y + e, f);\n"
    "            if (mask)\n"
    "                *(ak_u32*)(mask + e) = (ak_u32)keep[0] | ((ak_u32)keep[1] << 8) | ((ak_u32)keep[2] << 16) |\n"
    "                                       ((ak_u32)keep[3] << 24);\n"
    "        } else {\n"
    "            for (int q = 0; q < 4 && e + q < n; q++) {\n"
    "                const T v = x[e + q];\n"
    "                y[e + q] = D::from(keep[q] ? ak_xmul(D::to(v), scale) : 0.0f);\n"
    "                if (mask) mask[e + q] = (ak_u8)keep[q];\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "}\n"
    "AK_KERNEL void ak_dropout_f32(const float* x, float* y, ak_u8* mask, ak_i64 n, ak_u64 seed, ak_u64 offset, float p,\n"
    "                              float scale) {\n"
    "    ak_dropout_impl<ak_f32_t>(x, y, mask, n, seed, offset, p, scale);\n"
    "}\n"
    "AK_KERNEL void ak_dropout_f16(const ak_half* x, ak_half* y, ak_u8* mask, ak_i64 n, ak_u64 seed, ak_u64 offset, float p,\n"
    "                              float scale) {\n"
    "    ak_dropout_impl<ak_f16_t>(x, y, mask, n, seed, offset, p, scale);\n"
    "}\n"
    "AK_KERNEL void ak_dropout_bf16(const ak_bf16* x, ak_bf16* y, ak_u8* mask, ak_i64 n, ak_u64 seed, ak_u64 offset,\n"
    "                               float p, float scale) {\n"
    "    ak_dropout_impl<ak_bf16_t>(x, y, mask, n, seed, offset, p, scale);\n"
    "}\n"
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

/* kernels/scan.hip */
static const char _ak_src_scan[] =
    "/* kernels/scan.hip - prefix sums (cumsum) and top-k along the last dimension\n"
    " * of a row-major rows x cols tensor. Host wrappers and CPU references:\n"
    " * amdkit.h (>>impl:ops-scan): ak_cumsum, ak_topk.\n"
    " *\n"
    " * ak_cumsum_<dt>: one block per (row, chunk) segment; the segment is walked in\n"
    " * tiles of 8 x blockDim elements: a coalesced load into shared memory, a\n"
    " * sequential scan of 8 consecutive elements per thread, a block scan of the\n"
    " * per-thread totals, a coalesced store, and the running total carried to the\n"
    " * next tile. Narrow and medium rows: one segment per row (chunk = cols).\n"
    " * Wide rows with few rows (reduce-then-scan): ak_cumsum_part_<dt> writes each\n"
    " * chunk's total, and every block of ak_cumsum_<dt> first adds the totals of\n"
    " * the chunks before it (fixed order). f16 / bf16 accumulate in fp32; i32 /\n"
    " * i64 in unsigned integers of their width (wrap-around, no overflow trap).\n"
    " *\n"
    " * ak_topk_<dt>: one block per row. Radix select on an order-preserving 32-bit\n"
    " * key (NaN the largest, -0 == +0; largest == 0 flips the key): up to four\n"
    " * 8-bit histogram passes over the row find the key of the k-th element (a\n"
    " * pass stops early when the whole bin is taken, and then the collecting pass\n"
    " * needs no barriers; lanes of a wave that hit the\n"
    " * same bin add once, so skewed data does not serialize on one shared\n"
    " * address; 4 loads in flight per thread); one more pass collects the\n"
    " * keys above it (shared atomics) and the equal ones in index order (ballot\n"
    " * ranks), then a bitonic sort of (key, ~index) in shared memory gives values\n"
    " * descending (ascending when largest == 0) with ties by lower index. */\n"
    "\n"
    "/* ---- cumsum ------------------------------------------------------------------ */\n"
    "#define AK_SCAN_E 8\n"
    "#define AK_SCAN_B 256\n"
    "#define AK_SCAN_TILE (AK_SCAN_E * AK_SCAN_B)\n"
    "/* shared index with one pad word per 32: the 8-consecutive-per-thread phase is conflict-free */\n"
    "#define AK_SCAN_P(i) ((i) + ((i) >> 5))\n"
    "\n"
    "struct ak_scan_f32 { typedef float S; typedef float A;\n"
    "    static AK_INLINE A to(S v) { return v; } static AK_INLINE S from(A v) { return v; } };\n"
    "struct ak_scan_f16 { typedef ak_half S; typedef float A;\n"
    "    static AK_INLINE A to(S v) { return ak_h2f(v); } static AK_INLINE S from(A v) { return ak_f2h(v); } };\n"
    "struct ak_scan_bf16 { typedef ak_bf16 S; typedef float A;\n"
    "    static AK_INLINE A to(S v) { return ak_bf2f(v); } static AK_INLINE S from(A v) { return ak_f2bf(v); } };\n"
    "struct ak_scan_i32 { typedef int S; typedef ak_u32 A;\n"
    "    static AK_INLINE A to(S v) { return (A)v; } static AK_INLINE S from(A v) { return (S)v; } };\n"
    "struct ak_scan_i64 { typedef ak_i64 S; typedef ak_u64 A;\n"
    "    static AK_INLINE A to(S v) { return (A)v; } static AK_INLINE S from(A v) { return (S)v; } };\n"
    "\n"
    "/* Sum of v over the block in a fixed order (shared tree); every thread gets it. */\n"
    "template <class A>\n"
    "AK_INLINE A ak_scan_block_sum(A v, A* sh) {\n"
    "    const int t = (int)threadIdx.x;\n"
    "    __syncthreads();\n"
    "    sh[t] = v;\n"
    "    __syncthreads();\n"
    "    for (int o = AK_SCAN_B / 2; o > 0; o >>= 1) {\n"
    "        if (t < o) sh[t] = sh[t] + sh[t + o];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    return sh[0];\n"
    "}\n"
    "\n"
    "/* Block (row, chunk) of nch chunks per row: total of x[row, c0 .. c1). */\n"
    "template <class D>\n"
    "AK_INLINE void ak_cumsum_part_impl(const typename D::S* AK_RESTRICT x, ak_i64 cols, ak_i64 chunk, int nch,\n"
    "                                   typename D::A* AK_RESTRICT part) {\n"
    "    typedef typename D::A A;\n"
    "    __shared__ A sh[AK_SCAN_B];\n"
    "    const ak_i64 row = (ak_i64)blockIdx.x / nch, ci = (ak_i64)blockIdx.x % nch;\n"
    "    const ak_i64 c0 = ci * chunk, c1 = c0 + chunk < cols ? c0 + chunk : cols;\n"
    "    const typename D::S* xr = x + row * cols;\n"
    "    A s = (A)0;\n"
    "    for (ak_i64 c = c0 + threadIdx.x; c < c1; c += AK_SCAN_B) s = s + D::to(xr[c]);\n"
    "    s = ak_scan_block_sum<A>(s, sh);\n"
    "    if (threadIdx.x == 0) part[blockIdx.x] = s;\n"
    "}\n"
    "\n"
    "template <class D>\n"
    "AK_INLINE void ak_cumsum_impl(const typename D::S* AK_RESTRICT x, typename D::S* AK_RESTRICT y, ak_i64 cols,\n"
    "                              ak_i64 chunk, int nch, const typename D::A* AK_RESTRICT part, int exclusive) {\n"
    "    typedef typename D::A A;\n"
    "    __shared__ A sh[AK_SCAN_P(AK_SCAN_TILE)];\n"
    "    __shared__ A tot[AK_SCAN_B];\n"
    "    const int t = (int)threadIdx.x;\n"
    "    const ak_i64 row = (ak_i64)blockIdx.x / nch, ci = (ak_i64)blockIdx.x % nch;\n"
    "    const ak_i64 c0 = ci * chunk, c1 = c0 + chunk < cols ? c0 + chunk : cols;\n"
    "    const typename D::S* xr = x + row * cols;\n"
    "    typename D::S* yr = y + row * cols;\n"
    "    A carry = (A)0;\n"
    "    if (part && ci > 0) {\n"
    "        const A* pr = part + row * nch;\n"
    "        for (ak_i64 j = t; j < ci; j += AK_SCAN_B) carry = carry + pr[j];\n"
    "        carry = ak_scan_block_sum<A>(carry, tot);\n"
    "    }\n"
    "    for (ak_i64 t0 = c0; t0 < c1; t0 += AK_SCAN_TILE) {\n"
    "        const int len = c1 - t0 < AK_SCAN_TILE ? (int)(c1 - t0) : AK_SCAN_TILE;\n"
    "        __syncthreads();  /* the previous tile's readers of sh / tot are done */\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < AK_SCAN_E; i++) {\n"
    "            const int e = i * AK_SCAN_B + t;\n"
    "            sh[AK_SCAN_P(e)] = e < len ? D::to(xr[t0 + e]) : (A)0;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        A v[AK_SCAN_E], run = (A)0;\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < AK_SCAN_E; j++) {\n"
    "            const A a = sh[AK_SCAN_P(t * AK_SCAN_E + j)];\n"
    "            if (exclusive) { v[j] = run; run = run + a; }\n"
    "            else { run = run + a; v[j] = run; }\n"
    "        }\n"
    "        tot[t] = run;\n"
    "        __syncthreads();\n"
    "        for (int o = 1; o < AK_SCAN_B; o <<= 1) {   /* inclusive scan of the thread totals */\n"
    "            const A u = t >= o ? tot[t - o] : (A)0;\n"
    "            __syncthreads();\n"
    "            tot[t] = tot[t] + u;\n"
    "            __syncthreads();\n"
    "        }\n"
    "        const A before = t > 0 ? tot[t - 1] : (A)0;\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < AK_SCAN_E; j++) sh[AK_SCAN_P(t * AK_SCAN_E + j)] = carry + (before + v[j]);\n"
    "        __syncthreads();\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < AK_SCAN_E; i++) {\n"
    "            const int e = i * AK_SCAN_B + t;\n"
    "            if (e < len) yr[t0 + e] = D::from(sh[AK_SCAN_P(e)]);\n"
    "        }\n"
    "        carry = carry + tot[AK_SCAN_B - 1];\n"
    "    }\n"
    "}\n"
    "\n"
    "#define AK_SCAN_KERNELS(DT, D)                                                                                     \\\n"
    "    AK_KERNEL __launch_bounds__(AK_SCAN_B) void ak_cumsum_part_##DT(const D::S* x, ak_i64 cols, ak_i64 chunk,      \\\n"
    "                                                                     int nch, D::A* part) {                        \\\n"
    "        ak_cumsum_part_impl<D>(x, cols, chunk, nch, part);                                                         \\\n"
    "    }                                                                                                              \\\n"
    "    AK_KERNEL __launch_bounds__(AK_SCAN_B) void ak_cumsum_##DT(const D::S* x, D::S* y, ak_i64 cols, ak_i64 chunk,  \\\n"
    "                                                                int nch, const D::A* part, int exclusive) {        \\\n"
    "        ak_cumsum_impl<D>(x, y, cols, chunk, nch, part, exclusive);                                                \\\n"
    "    }\n"
    "// kernels: ak_cumsum_part_f32 ak_cumsum_f32 ak_cumsum_part_f16 ak_cumsum_f16 ak_cumsum_part_bf16 ak_cumsum_bf16\n"
    "// kernels: ak_cumsum_part_i32 ak_cumsum_i32 ak_cumsum_part_i64 ak_cumsum_i64\n"
    "AK_SCAN_KERNELS(f32, ak_scan_f32)\n"
    "AK_SCAN_KERNELS(f16, ak_scan_f16)\n"
    "AK_SCAN_KERNELS(bf16, ak_scan_bf16)\n"
    "AK_SCAN_KERNELS(i32, ak_scan_i32)\n"
    "AK_SCAN_KERNELS(i64, ak_scan_i64)\n"
    "\n"
    "/* ---- top-k ------------------------------------------------------------------- */\n"
    "#define AK_TOPK_KMAX 1024\n"
    "\n"
    "/* Order-preserving key of a float: larger value -> larger key; every NaN is\n"
    " * the largest key, -0 the same key as +0; largest == 0 flips the order. */\n"
    "AK_INLINE ak_u32 ak_topk_key(float f, int largest) {\n"
    "    ak_u32 u = __float_as_uint(f), k;\n"
    "    if (f != f) k = 0xFFFFFFFFu;\n"
    "    else {\n"
    "        if (u == 0x80000000u) u = 0u;\n"
    "        k = (u & 0x80000000u) ? ~u : (u | 0x80000000u);\n"
    "    }\n"
    "    return largest ? k : ~k;\n"
    "}\n"
    "\n"
    "/* hist[bin] += 1 for the lanes with act: up to two rounds of wave aggregation\n"
    " * (the lanes sharing the lowest active lane's bin add once, by popcount),\n"
    " * then plain shared atomics. Skewed data (a few bins take most keys) would\n"
    " * otherwise serialize 32 / 64 lanes on one address. All lanes of the wave\n"
    " * call it. */\n"
    "/* A wave's lane mask in the wave's width (wave32 code keeps to 32-bit masks:\n"
    " * the ISA check wants no 64-bit exec / vcc pairs there). */\n"
    "#if AK_WAVE == 32\n"
    "typedef ak_u32 ak_wmask;\n"
    "AK_INLINE int ak_wmask_ffs(ak_wmask m) { return __ffs((int)m); }\n"
    "AK_INLINE ak_u32 ak_wmask_popc(ak_wmask m) { return (ak_u32)__popc(m); }\n"
    "#else\n"
    "typedef ak_u64 ak_wmask;\n"
    "AK_INLINE int ak_wmask_ffs(ak_wmask m) { return __ffsll((long long)m); }\n"
    "AK_INLINE ak_u32 ak_wmask_popc(ak_wmask m) { return (ak_u32)__popcll(m); }\n"
    "#endif\n"
    "AK_INLINE ak_u32 ak_topk_shfl(ak_u32 v, int src) {\n"
    "#if defined(AK_AMD)\n"
    "    return (ak_u32)__shfl((int)v, src, AK_WAVE);\n"
    "#else\n"
    "    return __shfl_sync(0xFFFFFFFFu, v, src);\n"
    "#endif\n"
    "}\n"
    "AK_INLINE void ak_topk_hist_add(ak_u32* hist, ak_u32 bin, bool act) {\n"
    "    ak_wmask pending = (ak_wmask)ak_ballot(act);\n"
    "#pragma unroll\n"
    "    for (int round = 0; round < 2; round++) {\n"
    "        if (pending == 0u) break;\n"
    "        const int leader = ak_wmask_ffs(pending) - 1;\n"
    "        const ak_u32 lb = ak_topk_shfl(bin, leader);\n"
    "        const bool mine = act && bin == lb;\n"
    "        const ak_wmask same = (ak_wmask)ak_ballot(mine);\n"
    "        if (ak_lane() == leader) atomicAdd(&hist[lb], ak_wmask_popc(same));\n"
    "        if (mine) act = false;\n"
    "        pending &= ~same;\n"
    "    }\n"
    "    if (act) atomicAdd(&hist[bin], 1u);\n"
    "}\n"
    "\n"
    "#define AK_TOPK_U 8   /* elements per thread per step (loads in flight) */\n"
    "/* Lowest radix pass a dtype needs: a key made from an f16 value has its low 13\n"
    " * bits constant (all 0, or all 1 for negatives), from a bf16 value its low 16:\n"
    " * once the bits above are fixed, so are they (f16: the last pass, bf16: the\n"
    " * last two are skipped). */\n"
    "template <class D> struct ak_topk_last { enum { SHIFT = 0 }; };\n"
    "template <> struct ak_topk_last<ak_f16_t> { enum { SHIFT = 8 }; };\n"
    "template <> struct ak_topk_last<ak_bf16_t> { enum { SHIFT = 16 }; };\n"
    "\n"
    "template <class D>\n"
    "AK_INLINE void ak_topk_impl(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT vals,\n"
    "                            ak_i64* AK_RESTRICT idx, ak_i64 cols, int k, int largest) {\n"
    "    __shared__ ak_u32 hist[256];\n"
    "    __shared__ ak_u64 sel[AK_TOPK_KMAX];\n"
    "    __shared__ ak_u32 info[4];\n"
    "    __shared__ ak_u32 wsum[AK_MAX_WAVES];\n"
    "    __shared__ ak_u32 lsum[64];\n"
    "    const int t = (int)threadIdx.x, B = (int)blockDim.x, lane = ak_lane(), wid = ak_wave_id();\n"
    "    const int nw = (B + AK_WAVE - 1) / AK_WAVE;\n"
    "    const ak_i64 row = blockIdx.x, step = (ak_i64)B * AK_TOPK_U;\n"
    "    const typename D::T* xr = x + row * cols;\n"
    "    ak_u32 prefix = 0u, pmask = 0u, kk = (ak_u32)k;\n"
    "    bool alltaken = false;   /* every key equal to prefix (on pmask) is taken: no tie to break */\n"
    "    /* radix select: the (k - kk + 1)-th .. k-th largest keys share `prefix` on the bits of pmask */\n"
    "    for (int shift = 24; shift >= (int)ak_topk_last<D>::SHIFT; shift -= 8) {\n"
    "        for (int i = t; i < 256; i += B) hist[i] = 0u;\n"
    "        __syncthreads();\n"
    "        for (ak_i64 t0 = 0; t0 < cols; t0 += step) {   /* block-uniform trip count (ballots inside) */\n"
    "            float v[AK_TOPK_U];\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < AK_TOPK_U; u++) {\n"
    "                const ak_i64 e = t0 + (ak_i64)u * B + t;\n"
    "                v[u] = e < cols ? D::to(xr[e]) : 0.0f;\n"
    "            }\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < AK_TOPK_U; u++) {\n"
    "                const ak_i64 e = t0 + (ak_i64)u * B + t;\n"
    "                const ak_u32 key = ak_topk_key(v[u], largest);\n"
    "                ak_topk_hist_add(hist, (key >> shift) & 255u, e < cols && (key & pmask) == prefix);\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "        /* the bin holding the kk-th largest: wave 0, 256 / AK_WAVE bins per lane from the top */\n"
    "        if (t < AK_WAVE) {\n"
    "            const int per = 256 / AK_WAVE, top = 255 - lane * per;\n"
    "            ak_u32 s = 0u;\n"
    "            for (int q = 0; q < per; q++) s += hist[top - q];\n"
    "            lsum[lane] = s;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (t < AK_WAVE) {\n"
    "            const int per = 256 / AK_WAVE, top = 255 - lane * per;\n"
    "            ak_u32 cum = 0u;\n"
    "            for (int i = 0; i < lane; i++) cum += lsum[i];\n"
    "            if (cum < kk && cum + lsum[lane] >= kk) {\n"
    "                for (int q = 0; q < per; q++) {\n"
    "                    const ak_u32 h = hist[top - q];\n"
    "                    if (cum + h >= kk) {\n"
    "                        info[0] = prefix | ((ak_u32)(top - q) << shift);\n"
    "                        info[1] = kk - cum;\n"
    "                        info[2] = h == kk - cum;  /* the whole bin is taken: no tie to break */\n"
    "                        break;\n"
    "                    }\n"
    "                    cum += h;\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "        prefix = info[0];\n"
    "        kk = info[1];\n"
    "        pmask |= 255u << shift;\n"
    "        alltaken = info[2] != 0u;\n"
    "        __syncthreads();\n"
    "        if (alltaken) break;\n"
    "    }\n"
    "    /* collect: keys above prefix (on pmask) anywhere in sel[0 .. ngt), the first kk equal ones by index after them */\n"
    "    const ak_u32 ngt = (ak_u32)k - kk;\n"
    "    if (t == 0) info[3] = 0u;\n"
    "    ak_u32 eqbase = 0u;\n"
    "    __syncthreads();\n"
    "    /* no tie to break: the k keys >= prefix, in any order (the sort orders them), no barriers */\n"
    "    for (ak_i64 t0 = 0; alltaken && t0 < cols; t0 += step) {\n"
    "        float v[AK_TOPK_U];\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < AK_TOPK_U; u++) {\n"
    "            const ak_i64 e = t0 + (ak_i64)u * B + t;\n"
    "            v[u] = e < cols ? D::to(xr[e]) : 0.0f;\n"
    "        }\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < AK_TOPK_U; u++) {\n"
    "            const ak_i64 e = t0 + (ak_i64)u * B + t;\n"
    "            const ak_u32 key = ak_topk_key(v[u], largest);\n"
    "            if (e < cols && (key & pmask) >= prefix)\n"
    "                sel[atomicAdd(&info[3], 1u)] = ((ak_u64)key << 32) | (ak_u64)(0xFFFFFFFFu - (ak_u32)e);\n"
    "        }\n"
    "    }\n"
    "    /* ties: the first kk equal keys by index (ballot ranks), the keys above anywhere */\n"
    "    for (ak_i64 t0 = 0; !alltaken && t0 < cols; t0 += step) {\n"
    "        float v[AK_TOPK_U];\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < AK_TOPK_U; u++) {\n"
    "            const ak_i64 e = t0 + (ak_i64)u * B + t;\n"
    "            v[u] = e < cols ? D::to(xr[e]) : 0.0f;\n"
    "        }\n"
    "        bool finished = false;\n"
    "        for (int u = 0; u < AK_TOPK_U; u++) {  /* index order: u, then thread */\n"
    "            const ak_i64 e = t0 + (ak_i64)u * B + t;\n"
    "            const bool valid = e < cols;\n"
    "            const ak_u32 key = ak_topk_key(v[u], largest), mk = key & pmask;\n"
    "            const bool gt = valid && mk > prefix, eq = valid && mk == prefix;\n"
    "            const ak_u64 comp = ((ak_u64)key << 32) | (ak_u64)(0xFFFFFFFFu - (ak_u32)e);\n"
    "            if (gt) sel[atomicAdd(&info[3], 1u)] = comp;\n"
    "            const ak_wmask bal = (ak_wmask)ak_ballot(eq);\n"
    "            if (lane == 0) wsum[wid] = ak_wmask_popc(bal);\n"
    "            __syncthreads();\n"
    "            ak_u32 off = 0u, all = 0u;\n"
    "            for (int w = 0; w < nw; w++) { const ak_u32 c = wsum[w]; if (w < wid) off += c; all += c; }\n"
    "            const ak_u32 r = eqbase + off + ak_wmask_popc(bal & (((ak_wmask)1 << lane) - 1u));\n"
    "            if (eq && r < kk) sel[ngt + r] = comp;\n"
    "            eqbase += all;\n"
    "            finished = eqbase >= kk && info[3] >= ngt;\n"
    "            __syncthreads();\n"
    "            if (finished) break;\n"
    "        }\n"
    "        if (finished) break;\n"
    "    }\n"
    "    /* bitonic sort, descending, over P = pow2 >= k entries (padding 0 sorts last) */\n"
    "    int P = 1;\n"
    "    while (P < k) P <<= 1;\n"
    "    for (int i = k + t; i < P; i += B) sel[i] = 0ull;\n"
    "    __syncthreads();\n"
    "    for (int size = 2; size <= P; size <<= 1) {\n"
    "        for (int stride = size >> 1; stride > 0; stride >>= 1) {\n"
    "            for (int i = t; i < P / 2; i += B) {\n"
    "                const int pos = 2 * i - (i & (stride - 1)), par = pos + stride;\n"
    "                const ak_u64 a = sel[pos], b = sel[par];\n"
    "                const bool desc = (pos & size) == 0 || size == P;\n"
    "                if (desc ? a < b : a > b) { sel[pos] = b; sel[par] = a; }\n"
    "            }\n"
    "            __syncthreads();\n"
    "        }\n"
    "    }\n"
    "    for (int j = t; j < k; j += B) {\n"
    "        const ak_u32 e = 0xFFFFFFFFu - (ak_u32)sel[j];\n"
    "        vals[row * k + j] = xr[e];\n"
    "        idx[row * k + j] = (ak_i64)e;\n"
    "    }\n"
    "}\n"
    "AK_KERNEL void ak_topk_f32(const float* x, float* vals, ak_i64* idx, ak_i64 cols, int k, int largest) {\n"
    "    ak_topk_impl<ak_f32_t>(x, vals, idx, cols, k, largest);\n"
    "}\n"
    "AK_KERNEL void ak_topk_f16(const ak_half* x, ak_half* vals, ak_i64* idx, ak_i64 cols, int k, int largest) {\n"
    "    ak_topk_impl<ak_f16_t>(x, vals, idx, cols, k, largest);\n"
    "}\n"
    "AK_KERNEL void ak_topk_bf16(const ak_bf16* x, ak_bf16* vals, ak_i64* idx, ak_i64 cols, int k, int largest) {\n"
    "    ak_topk_impl<ak_bf16_t>(x, vals, idx, cols, k, largest);\n"
    "}\n"
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
    "// 4. ak_softmax_wide_<dt>: one block per row, any width: an online (max, sum)\n"
    "//    pass, then a pass that re-reads the row (from L2 while the rows in flight\n"
    "//    fit in it) and writes. vec != 0 here only needs x and y 16-byte aligned:\n"
    "//    each row runs a scalar head up to the first 16-byte boundary, 8-element\n"
    "//    vectors, a scalar tail (odd widths such as 50257 stay vectorized).\n"
    "//\n"
    "// kernels: ak_softmax_f32 ak_softmax_f16 ak_softmax_bf16 ak_softmax_wide_f32 ak_softmax_wide_f16 ak_softmax_wide_bf16 ak_softmax_split_f32 ak_softmax_split_f16 ak_softmax_split_bf16 ak_softmax_stats_f32 ak_softmax_stats_f16 ak_softmax_stats_bf16 ak_softmax_apply_f32 ak_softmax_apply_f16 ak_softmax_apply_bf16\n"
    "\n"
    "// elements per thread of path 1: 16 (f32), 32 (f16 / bf16: the same 64 bytes)\n"
    "#define AK_SM_ROW_E(D) (D::SIZE == 4 ? 16 : 32)\n"
    "#define AK_SM_SPLIT_E 32\n"
    "\n"
    "\n"
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
    "// Path 4: one block per row; pass 1 online (max, sum of exp), pass 2 writes.\n"
    "template <class D>\n"
    "AK_INLINE void ak_softmax_wide(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 cols, bool vec,\n"
    "                               bool logsm) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const ak_i64 row = blockIdx.x;\n"
    "    const typename D::T* p = x + row * cols;\n"
    "    typename D::T* q = y + row * cols;\n"
    "    const int B = (int)blockDim.x, t = (int)threadIdx.x;\n"
    "    ak_i64 head = 0, nv = 0;\n"
    "    if (vec) {\n"
    "        head = (ak_i64)(((16u - ((unsigned)(unsigned long long)p & 15u)) & 15u) / sizeof(typename D::T));\n"
    "        if (head > cols) head = cols;\n"
    "        nv = (cols - head) >> 3;\n"
    "    }\n"
    "    const ak_i64 tail0 = head + nv * 8;\n"
    "    float m = -AK_INF, s = 0.0f;\n"
    "    for (ak_i64 e = t; e < head; e += B) {\n"
    "        const float a = D::to(p[e]);\n"
    "        ak_online_fold<1>(m, s, &a);\n"
    "    }\n"
    "    {\n"
    "        const typename D::T* pv = p + head;\n"
    "        ak_i64 k = t;\n"
    "        for (; k + B < nv; k += 2 * B) {\n"
    "            float a[16];\n"
    "            D::ld8(pv + k * 8, a);\n"
    "            D::ld8(pv + (k + B) * 8, a + 8);\n"
    "            ak_online_fold<16>(m, s, a);\n"
    "        }\n"
    "        for (; k < nv; k += B) {\n"
    "            float a[8];\n"
    "            D::ld8(pv + k * 8, a);\n"
    "            ak_online_fold<8>(m, s, a);\n"
    "        }\n"
    "    }\n"
    "    for (ak_i64 e = tail0 + t; e < cols; e += B) {\n"
    "        const float a = D::to(p[e]);\n"
    "        ak_online_fold<1>(m, s, &a);\n"
    "    }\n"
    "    const float M = ak_group_reduce(m, B, scratch, ak_op_max());\n"
    "    const float S = ak_group_reduce(s * ak_online_rescale(m, M), B, scratch, ak_op_add());\n"
    "    const float r = 1.0f / S, ls = logf(S);\n"
    "    for (ak_i64 e = t; e < head; e += B) {\n"
    "        const float a = D::to(p[e]);\n"
    "        q[e] = D::from(logsm ? (a - M) - ls : ak_exp2((a - M) * AK_LOG2E) * r);\n"
    "    }\n"
    "    {\n"
    "        const typename D::T* pv = p + head;\n"
    "        typename D::T* qv = q + head;\n"
    "        for (ak_i64 k = t; k < nv; k += B) {\n"
    "            float a[8];\n"
    "            D::ld8(pv + k * 8, a);\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < 8; u++) a[u] = logsm ? (a[u] - M) - ls : ak_exp2((a[u] - M) * AK_LOG2E) * r;\n"
    "            D::st8(qv + k * 8, a);\n"
    "        }\n"
    "    }\n"
    "    for (ak_i64 e = tail0 + t; e < cols; e += B) {\n"
    "        const float a = D::to(p[e]);\n"
    "        q[e] = D::from(logsm ? (a - M) - ls : ak_exp2((a - M) * AK_LOG2E) * r);\n"
    "    }\n"
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
    "        for (int j = (int)threadIdx.x; j < S; j += AK_WAVE) s += p[2 * j + 1] * ak_online_rescale(p[2 * j], m);\n"
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
    "                s = s * ak_online_rescale(m, mn) + t;\n"
    "                m = mn;\n"
    "            }\n"
    "        }\n"
    "    } else {\n"
    "        for (ak_i64 e = threadIdx.x; e < len; e += blockDim.x) {\n"
    "            const float a = D::to(p[e]);\n"
    "            const float mn = ak_op_max()(m, a);\n"
    "            if (mn != -AK_INF) {\n"
    "                s = s * ak_online_rescale(m, mn) + ak_exp2((a - mn) * AK_LOG2E);\n"
    "                m = mn;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    const float M = ak_group_reduce(m, (int)blockDim.x, scratch, ak_op_max());\n"
    "    s = ak_group_reduce(s * ak_online_rescale(m, M), (int)blockDim.x, scratch, ak_op_add());\n"
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
    "    AK_KERNEL __launch_bounds__(1024, 1) void ak_softmax_wide_##DT(const D::T* x, D::T* y, ak_i64 cols, int vec,        \\\n"
    "                                                                 int logsm) {                                        \\\n"
    "        ak_softmax_wide<D>(x, y, cols, vec != 0, logsm != 0);                                                        \\\n"
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
    " * amdkit.h (>>impl:ops-elementwise).\n"
    " *\n"
    " * Both: 64 x 64 tiles moved two elements per access (f32: float2, 16-bit:\n"
    " * one 32-bit word) on both sides when the tile is whole, the row lengths\n"
    " * even and the pointers aligned to the pair; element by element otherwise\n"
    " * (predicated loads, all in flight before the tile is written). The host\n"
    " * copies rows == 1 or cols == 1 (the same bytes) instead.\n"
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
    "            /* edge tiles: all 16 predicated loads first, then the tile stores, so the loads\n"
    "             * are in flight together (a loop of load-store pairs waited for each load in\n"
    "             * turn: 256 x 32 f32 took 7.3 us against 4.5 for 256 x 64) */\n"
    "            typename S::T v[2 * (64 / AK_TY)];\n"
    "            const ak_i64 ca = c0 + 2 * tx, cb = ca + 1;\n"
    "#pragma unroll\n"
    "            for (int k = 0; k < 64 / AK_TY; k++) {\n"
    "                const ak_i64 r = r0 + ty + k * AK_TY;\n"
    "                v[2 * k] = r < rows && ca < cols ? x[r * cols + ca] : (typename S::T)0;\n"
    "                v[2 * k + 1] = r < rows && cb < cols ? x[r * cols + cb] : (typename S::T)0;\n"
    "            }\n"
    "#pragma unroll\n"
    "            for (int k = 0; k < 64 / AK_TY; k++) {\n"
    "                tile[ty + k * AK_TY][2 * tx] = v[2 * k];\n"
    "                tile[ty + k * AK_TY][2 * tx + 1] = v[2 * k + 1];\n"
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
    "// vec: the logits' base 16-byte aligned (any width: each row runs a scalar\n"
    "// head to its first 16-byte boundary, vectors, a scalar tail).\n"
    "// ak_xent_small_<dt>: the mean / sum of small batches in one launch (one\n"
    "// block does every row; see ak_xent_small).\n"
    "// ak_xent_partial + ak_xent_mean: sum (mean = 0) or mean (mean = 1) of the\n"
    "// losses over the rows whose target is not ignore_index: per-block partial\n"
    "// sums and counts, then one block combines them in a fixed order\n"
    "// (deterministic); the mean is NaN when every row is ignored. A single\n"
    "// partial block (fin != 0) writes the sum / mean itself: no ak_xent_mean.\n"
    "//\n"
    "// kernels: ak_xent_f32 ak_xent_f16 ak_xent_bf16 ak_xent_small_f32 ak_xent_small_f16 ak_xent_small_bf16 ak_xent_partial ak_xent_mean\n"
    "\n"
    "// loss of one row (x = the row, len elements; len 0 for an idle group) by a\n"
    "// group of G threads; every thread of the block must call it (group reduce).\n"
    "// vec: x's base is 16-byte aligned; the row runs a scalar head up to its\n"
    "// first 16-byte boundary, 8-element vectors (4 in flight), a scalar tail.\n"
    "template <class D>\n"
    "AK_INLINE float ak_xent_row(const typename D::T* AK_RESTRICT p, ak_i64 len, int lane, int G, bool vec, ak_i64 t,\n"
    "                            ak_i64 ignore_index, float* scratch) {\n"
    "    float m = -AK_INF, s = 0.0f;\n"
    "    ak_i64 head = 0, nv = 0;\n"
    "    if (vec) {\n"
    "        head = (ak_i64)(((16u - ((unsigned)(unsigned long long)p & 15u)) & 15u) / sizeof(typename D::T));\n"
    "        if (head > len) head = len;\n"
    "        nv = (len - head) >> 3;\n"
    "    }\n"
    "    if (!vec) {\n"
    "        ak_i64 e = lane;\n"
    "        for (; e + 3 * G < len; e += 4 * G) {\n"
    "            float a[4];\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < 4; u++) a[u] = D::to(p[e + u * G]);\n"
    "            ak_online_fold<4>(m, s, a);\n"
    "        }\n"
    "        for (; e < len; e += G) {\n"
    "            const float a = D::to(p[e]);\n"
    "            ak_online_fold<1>(m, s, &a);\n"
    "        }\n"
    "    } else {\n"
    "        for (ak_i64 e = lane; e < head; e += G) {\n"
    "            const float a = D::to(p[e]);\n"
    "            ak_online_fold<1>(m, s, &a);\n"
    "        }\n"
    "        const typename D::T* pv = p + head;\n"
    "        ak_i64 k = lane;\n"
    "        for (; k + 3 * G < nv; k += 4 * G) {\n"
    "            float a[32];\n"
    "#pragma unroll\n"
    "            for (int u = 0; u < 4; u++) D::ld8(pv + (k + u * G) * 8, a + 8 * u);\n"
    "            ak_online_fold<32>(m, s, a);\n"
    "        }\n"
    "        for (; k < nv; k += G) {\n"
    "            float a[8];\n"
    "            D::ld8(pv + k * 8, a);\n"
    "            ak_online_fold<8>(m, s, a);\n"
    "        }\n"
    "        for (ak_i64 e = head + nv * 8 + lane; e < len; e += G) {\n"
    "            const float a = D::to(p[e]);\n"
    "            ak_online_fold<1>(m, s, &a);\n"
    "        }\n"
    "    }\n"
    "    const float M = ak_group_reduce(m, G, scratch, ak_op_max());\n"
    "    const float S = ak_group_reduce(s * ak_online_rescale(m, M), G, scratch, ak_op_add());\n"
    "    if (t == ignore_index) return 0.0f;\n"
    "    if (t < 0 || t >= len) return AK_NAN;\n"
    "    return (M + logf(S)) - D::to(p[t]);\n"
    "}\n"
    "\n"
    "template <class D>\n"
    "AK_INLINE void ak_xent_rows(const typename D::T* AK_RESTRICT x, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,\n"
    "                            ak_i64 cols, int G, bool vec, ak_i64 ignore_index, float* AK_RESTRICT loss) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const int lane = (int)threadIdx.x & (G - 1);\n"
    "    ak_i64 row = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);\n"
    "    const bool active = row < rows;\n"
    "    if (!active) row = 0;\n"
    "    const ak_i64 t = active ? tgt[row] : ignore_index;\n"
    "    const float l = ak_xent_row<D>(x + row * cols, active ? cols : 0, lane, G, vec, t, ignore_index, scratch);\n"
    "    if (active && lane == 0) loss[row] = l;\n"
    "}\n"
    "\n"
    "// One block for the whole batch (small inputs): groups of G threads take rows\n"
    "// blockDim.x / G at a time; each group's lane 0 adds its rows' losses and\n"
    "// counts (rows in a fixed assignment, so a fixed order); then the block\n"
    "// combines them: the sum (mean = 0) or the mean (mean = 1; NaN when every row\n"
    "// is ignored) in out[0]. One launch, no workspace.\n"
    "template <class D>\n"
    "AK_INLINE void ak_xent_small(const typename D::T* AK_RESTRICT x, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,\n"
    "                             ak_i64 cols, int G, bool vec, ak_i64 ignore_index, bool mean, float* AK_RESTRICT out) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const int lane = (int)threadIdx.x & (G - 1), per = (int)blockDim.x / G;\n"
    "    float sum = 0.0f, n = 0.0f;\n"
    "    for (ak_i64 r0 = 0; r0 < rows; r0 += per) {\n"
    "        ak_i64 row = r0 + (ak_i64)(threadIdx.x / G);\n"
    "        const bool active = row < rows;\n"
    "        if (!active) row = 0;\n"
    "        const ak_i64 t = active ? tgt[row] : ignore_index;\n"
    "        const float l = ak_xent_row<D>(x + row * cols, active ? cols : 0, lane, G, vec, t, ignore_index, scratch);\n"
    "        if (active && lane == 0 && t != ignore_index) { sum += l; n += 1.0f; }\n"
    "    }\n"
    "    sum = ak_group_reduce(sum, (int)blockDim.x, scratch, ak_op_add());\n"
    "    n = ak_group_reduce(n, (int)blockDim.x, scratch, ak_op_add());\n"
    "    if (threadIdx.x == 0) *out = !mean ? sum : n > 0.0f ? sum / n : AK_NAN;\n"
    "}\n"
    "\n"
    "// Stage 1 of the mean / sum: block b adds the losses and counts the rows\n"
    "// r in [b * per, (b + 1) * per) whose target is not ignore_index (ignored\n"
    "// rows hold loss 0): part[2b] = sum, part[2b + 1] = count. fin 1 / 2 (one\n"
    "// block for every row): part[0] = the sum / the mean (NaN: every row ignored).\n"
    "AK_INLINE void ak_xent_partial_body(const float* AK_RESTRICT loss, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,\n"
    "                                    ak_i64 per, ak_i64 ignore_index, int fin, float* AK_RESTRICT part) {\n"
    "    __shared__ float scratch[AK_MAX_WAVES];\n"
    "    const ak_i64 r0 = (ak_i64)blockIdx.x * per, r1 = rows - r0 < per ? rows : r0 + per;\n"
    "    float s = 0.0f, n = 0.0f;\n"
    "    for (ak_i64 r = r0 + threadIdx.x; r < r1; r += blockDim.x)\n"
    "        if (tgt[r] != ignore_index) { s += loss[r]; n += 1.0f; }\n"
    "    s = ak_group_reduce(s, (int)blockDim.x, scratch, ak_op_add());\n"
    "    n = ak_group_reduce(n, (int)blockDim.x, scratch, ak_op_add());\n"
    "    if (threadIdx.x != 0) return;\n"
    "    if (fin) part[0] = fin == 1 ? s : n > 0.0f ? s / n : AK_NAN;\n"
    "    else { part[2 * blockIdx.x] = s; part[2 * blockIdx.x + 1] = n; }\n"
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
    "    }                                                                                                                \\\n"
    "    AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_small_##DT(const D::T* x, const ak_i64* tgt, ak_i64 rows,       \\\n"
    "                                                                 ak_i64 cols, int G, int vec, ak_i64 ignore_index,   \\\n"
    "                                                                 int mean, float* out) {                             \\\n"
    "        ak_xent_small<D>(x, tgt, rows, cols, G, vec != 0, ignore_index, mean != 0, out);                             \\\n"
    "    }\n"
    "AK_XENT(f32, ak_f32_t)\n"
    "AK_XENT(f16, ak_f16_t)\n"
    "AK_XENT(bf16, ak_bf16_t)\n"
    "AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_partial(const float* loss, const ak_i64* tgt, ak_i64 rows,\n"
    "                                                          ak_i64 per, ak_i64 ignore_index, int fin, float* part) {\n"
    "    ak_xent_partial_body(loss, tgt, rows, per, ignore_index, fin, part);\n"
    "}\n"
    "AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_mean(const float* part, int nparts, int mean, float* out) {\n"
    "    ak_xent_mean_body(part, nparts, mean != 0, out);\n"
    "}\n"
    ;

static const struct { const char* family; const char* source; const char* kernels; } _ak_embedded[] = {
    { "activation", _ak_src_activation,
      "ak_unary_f32 ak_unary_f16 ak_unary_bf16" },
    { "attention", _ak_src_attention,
      "ak_attn_combine_f32 ak_attn_combine_f16 ak_attn_combine_bf16 ak_attn_simt32_f32 ak_attn_simt32_f16 ak_attn_simt32_bf16 ak_attn_simt64_f32 ak_attn_simt64_f16 ak_attn_simt64_bf16 ak_attn_simt128_f32 ak_attn_simt128_f16 ak_attn_simt128_bf16 ak_attn_simt256_f32 ak_attn_simt256_f16 ak_attn_simt256_bf16" },
    { "attention_mma", _ak_src_attention_mma,
      "ak_attn_mma64_f16 ak_attn_mma64_bf16 ak_attn_mma128_f16 ak_attn_mma128_bf16 ak_attn_mmadec64_f16 ak_attn_mmadec64_bf16 ak_attn_mmadec128_f16 ak_attn_mmadec128_bf16 ak_attn_mmagen64_f16 ak_attn_mmagen64_bf16 ak_attn_mmagen128_f16 ak_attn_mmagen128_bf16" },
    { "cast", _ak_src_cast,
      "ak_cast_f32_f16 ak_cast_f32_bf16 ak_cast_f16_f32 ak_cast_f16_bf16 ak_cast_bf16_f32 ak_cast_bf16_f16 ak_copy_f32 ak_copy_f16 ak_copy_bf16" },
    { "elementwise", _ak_src_elementwise,
      "ak_fill_f32 ak_fill_f16 ak_fill_bf16 ak_axpy_f32 ak_axpy_f16 ak_axpy_bf16 ak_scale_f32 ak_scale_f16 ak_scale_bf16 ak_binary_f32 ak_binary_f16 ak_binary_bf16" },
    { "gemm", _ak_src_gemm,
      "ak_gemm_mma_l_f16 ak_gemm_mma_l_bf16 ak_gemm_mma_l_f32 ak_gemm_mma_l_x32 ak_gemm_mma_s_f16 ak_gemm_mma_s_bf16 ak_gemm_mma_s_f32 ak_gemm_mma_s_x32 ak_gemm_simt_l_f32 ak_gemm_simt_l_f16 ak_gemm_simt_l_bf16 ak_gemm_wgmma_n128_f16 ak_gemm_wgmma_n128_bf16 ak_gemm_wgmma_n256_f16 ak_gemm_wgmma_n256_bf16 ak_gemm_wgmma_n128_x32 ak_gemm_wgmma_n256_x32 ak_gemm_skinny_f32 ak_gemm_skinny_f16 ak_gemm_skinny_bf16" },
    { "layout", _ak_src_layout,
      "ak_copy_nd_u8 ak_copy_nd_u16 ak_copy_nd_u32 ak_copy_nd_u64 ak_copy_nd_u128 ak_copy_cast_f32_f16 ak_copy_cast_f32_bf16 ak_copy_cast_f16_f32 ak_copy_cast_bf16_f32 ak_copy_cast_f16_bf16 ak_copy_cast_bf16_f16 ak_embedding_u8 ak_embedding_u16 ak_embedding_u32 ak_embedding_u64 ak_embedding_u128" },
    { "llm", _ak_src_llm,
      "ak_rope_f32 ak_rope_f16 ak_rope_bf16" },
    { "norm", _ak_src_norm,
      "ak_norm_f32 ak_norm_f16 ak_norm_bf16 ak_norm_wide_f32 ak_norm_wide_f16 ak_norm_wide_bf16 ak_add_norm_f32 ak_add_norm_f16 ak_add_norm_bf16 ak_add_norm_wide_f32 ak_add_norm_wide_f16 ak_add_norm_wide_bf16" },
    { "random", _ak_src_random,
      "ak_rand_uniform_f32 ak_rand_uniform_f16 ak_rand_uniform_bf16 ak_rand_normal_f32 ak_rand_normal_f16 ak_rand_normal_bf16 ak_dropout_f32 ak_dropout_f16 ak_dropout_bf16" },
    { "reduce", _ak_src_reduce,
      "ak_reduce_sum_f32 ak_reduce_sum_f16 ak_reduce_sum_bf16 ak_reduce_max_f32 ak_reduce_max_f16 ak_reduce_max_bf16 ak_reduce_min_f32 ak_reduce_min_f16 ak_reduce_min_bf16 ak_reduce_argmax_f32 ak_reduce_argmax_f16 ak_reduce_argmax_bf16 ak_reduce_argmin_f32 ak_reduce_argmin_f16 ak_reduce_argmin_bf16 ak_reduce2_sum ak_reduce2_max ak_reduce2_min ak_reduce2_argmax ak_reduce2_argmin" },
    { "scan", _ak_src_scan,
      "ak_cumsum_part_f32 ak_cumsum_f32 ak_cumsum_part_f16 ak_cumsum_f16 ak_cumsum_part_bf16 ak_cumsum_bf16 ak_cumsum_part_i32 ak_cumsum_i32 ak_cumsum_part_i64 ak_cumsum_i64 ak_topk_f32 ak_topk_f16 ak_topk_bf16" },
    { "softmax", _ak_src_softmax,
      "ak_softmax_f32 ak_softmax_f16 ak_softmax_bf16 ak_softmax_wide_f32 ak_softmax_wide_f16 ak_softmax_wide_bf16 ak_softmax_split_f32 ak_softmax_split_f16 ak_softmax_split_bf16 ak_softmax_stats_f32 ak_softmax_stats_f16 ak_softmax_stats_bf16 ak_softmax_apply_f32 ak_softmax_apply_f16 ak_softmax_apply_bf16" },
    { "transpose", _ak_src_transpose,
      "ak_transpose_f32 ak_transpose_f16 ak_transpose_bf16" },
    { "xent", _ak_src_xent,
      "ak_xent_f32 ak_xent_f16 ak_xent_bf16 ak_xent_small_f32 ak_xent_small_f16 ak_xent_small_bf16 ak_xent_partial ak_xent_mean" },
};

/* Kernel interfaces, generated from the kernels' parameter lists above: one typed
 * packer per distinct list (_ak_kargs_<stem>; stems of the same list are #defines of
 * the first), _AK_KIF_<stem> ids, and every kernel's interface (_ak_kernel_ifaces).
 * A packer starts a fresh argument list; the ops' launch checks that the kernel's
 * interface is the packer's (>>impl:ops, _ak_op_launch3). */
typedef struct _ak_kargs { ak_args a; int iface; } _ak_kargs;
enum {
    _AK_KIF_NONE = 0,
    _AK_KIF_unary = 1,
    _AK_KIF_attn_simt = 2,
    _AK_KIF_attn_combine = 3,
    _AK_KIF_cast = 4,
    _AK_KIF_fill = 5,
    _AK_KIF_axpy = 6,
    _AK_KIF_binary = 7,
    _AK_KIF_gemm_wgmma = 8,
    _AK_KIF_copy_nd = 9,
    _AK_KIF_copy_cast = 10,
    _AK_KIF_embedding = 11,
    _AK_KIF_rope = 12,
    _AK_KIF_norm = 13,
    _AK_KIF_norm_wide = 14,
    _AK_KIF_add_norm = 15,
    _AK_KIF_add_norm_wide = 16,
    _AK_KIF_rand_uniform = 17,
    _AK_KIF_rand_normal = 18,
    _AK_KIF_dropout = 19,
    _AK_KIF_reduce1 = 20,
    _AK_KIF_reduce2 = 21,
    _AK_KIF_cumsum_part = 22,
    _AK_KIF_cumsum = 23,
    _AK_KIF_topk = 24,
    _AK_KIF_softmax = 25,
    _AK_KIF_softmax_wide = 26,
    _AK_KIF_softmax_split = 27,
    _AK_KIF_softmax_stats = 28,
    _AK_KIF_softmax_apply = 29,
    _AK_KIF_transpose = 30,
    _AK_KIF_xent = 31,
    _AK_KIF_xent_small = 32,
    _AK_KIF_xent_partial = 33,
    _AK_KIF_xent_mean = 34,
    _AK_KIF_COUNT
};
static const char* const _ak_kif_names[] = {
    "", "unary", "attn_simt", "attn_combine", "cast", "fill", "axpy", "binary", "gemm_wgmma", "copy_nd", "copy_cast",
    "embedding", "rope", "norm", "norm_wide", "add_norm", "add_norm_wide", "rand_uniform", "rand_normal", "dropout",
    "reduce1", "reduce2", "cumsum_part", "cumsum", "topk", "softmax", "softmax_wide", "softmax_split", "softmax_stats",
    "softmax_apply", "transpose", "xent", "xent_small", "xent_partial", "xent_mean"
};
static inline ak_args* _ak_kargs_begin(_ak_kargs* k, int iface) {
    k->iface = iface;
    k->a.count = 0;
    k->a.error = 0;
    return &k->a;
}
/* kernels/activation.hip:34 ak_unary_f32 */
static inline void _ak_kargs_unary(_ak_kargs* kargs_, const void* x, void* y, int64_t n, int32_t op, float param) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_unary);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_i64(a_, n); ak_args_i32(a_, op); ak_args_f32(a_, param);
}
/* kernels/attention.hip:225 ak_attn_simt##DMAX##_##DT (macro AK_ATTN_SIMT) */
static inline void _ak_kargs_attn_simt(_ak_kargs* kargs_, const void* q, const void* k, const void* v, void* o, void* lse, int32_t hkv, int32_t group, int32_t sq, int32_t skv, int32_t d, int64_t qsb,
                                       int64_t qsh, int64_t qss, int64_t ksb, int64_t ksh, int64_t kss, int64_t vsb, int64_t vsh, int64_t vss, int64_t osb, int64_t osh, int64_t oss, float scale_log2,
                                       int32_t causal, int32_t R, int32_t nsplit, int32_t split_len, void* part, int32_t vec) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_attn_simt);
    ak_args_ptr(a_, q); ak_args_ptr(a_, k); ak_args_ptr(a_, v); ak_args_ptr(a_, o); ak_args_ptr(a_, lse); ak_args_i32(a_, hkv); ak_args_i32(a_, group); ak_args_i32(a_, sq); ak_args_i32(a_, skv);
    ak_args_i32(a_, d); ak_args_i64(a_, qsb); ak_args_i64(a_, qsh); ak_args_i64(a_, qss); ak_args_i64(a_, ksb); ak_args_i64(a_, ksh); ak_args_i64(a_, kss); ak_args_i64(a_, vsb); ak_args_i64(a_, vsh);
    ak_args_i64(a_, vss); ak_args_i64(a_, osb); ak_args_i64(a_, osh); ak_args_i64(a_, oss); ak_args_f32(a_, scale_log2); ak_args_i32(a_, causal); ak_args_i32(a_, R); ak_args_i32(a_, nsplit);
    ak_args_i32(a_, split_len); ak_args_ptr(a_, part); ak_args_i32(a_, vec);
}
/* kernels/attention.hip:279 ak_attn_combine_##DT (macro AK_ATTN_COMBINE) */
static inline void _ak_kargs_attn_combine(_ak_kargs* kargs_, const void* part, int32_t nsplit, int32_t dmax, int64_t rows, int32_t hq, int32_t sq, int32_t d, void* o, int64_t osb, int64_t osh,
                                          int64_t oss, void* lse) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_attn_combine);
    ak_args_ptr(a_, part); ak_args_i32(a_, nsplit); ak_args_i32(a_, dmax); ak_args_i64(a_, rows); ak_args_i32(a_, hq); ak_args_i32(a_, sq); ak_args_i32(a_, d); ak_args_ptr(a_, o);
    ak_args_i64(a_, osb); ak_args_i64(a_, osh); ak_args_i64(a_, oss); ak_args_ptr(a_, lse);
}
/* kernels/cast.hip:18 ak_cast_f32_f16 */
static inline void _ak_kargs_cast(_ak_kargs* kargs_, const void* x, void* y, int64_t n) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_cast);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_i64(a_, n);
}
/* kernels/elementwise.hip:25 ak_fill_f32 */
static inline void _ak_kargs_fill(_ak_kargs* kargs_, void* y, int64_t n, float value) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_fill);
    ak_args_ptr(a_, y); ak_args_i64(a_, n); ak_args_f32(a_, value);
}
/* kernels/elementwise.hip:42 ak_axpy_f32 */
static inline void _ak_kargs_axpy(_ak_kargs* kargs_, int64_t n, float alpha, const void* x, void* y) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_axpy);
    ak_args_i64(a_, n); ak_args_f32(a_, alpha); ak_args_ptr(a_, x); ak_args_ptr(a_, y);
}
/* kernels/elementwise.hip:93 ak_binary_f32 */
static inline void _ak_kargs_binary(_ak_kargs* kargs_, const void* x, const void* y, void* z, int64_t n, int32_t op) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_binary);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_ptr(a_, z); ak_args_i64(a_, n); ak_args_i32(a_, op);
}
/* kernels/gemm.hip:451 NAME (macro AK_GEMM_WGMMA) */
static inline void _ak_kargs_gemm_wgmma(_ak_kargs* kargs_, const void* A, const void* B, const void* C, void* D, const void* bias, const void* R, int32_t M, int32_t N, int32_t K, int64_t lda,
                                        int64_t ldb, int64_t ldc, int64_t ldd, int64_t ldr, int64_t sA, int64_t sB, int64_t sC, int64_t sD, int64_t sR, int32_t batch, float alpha, float beta,
                                        int32_t flags, float ap) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_gemm_wgmma);
    ak_args_ptr(a_, A); ak_args_ptr(a_, B); ak_args_ptr(a_, C); ak_args_ptr(a_, D); ak_args_ptr(a_, bias); ak_args_ptr(a_, R); ak_args_i32(a_, M); ak_args_i32(a_, N); ak_args_i32(a_, K);
    ak_args_i64(a_, lda); ak_args_i64(a_, ldb); ak_args_i64(a_, ldc); ak_args_i64(a_, ldd); ak_args_i64(a_, ldr); ak_args_i64(a_, sA); ak_args_i64(a_, sB); ak_args_i64(a_, sC); ak_args_i64(a_, sD);
    ak_args_i64(a_, sR); ak_args_i32(a_, batch); ak_args_f32(a_, alpha); ak_args_f32(a_, beta); ak_args_i32(a_, flags); ak_args_f32(a_, ap);
}
/* kernels/layout.hip:129 ak_copy_nd_##NAME (macro AK_COPY_ND_BITS) */
static inline void _ak_kargs_copy_nd(_ak_kargs* kargs_, const void* src, void* dst, int64_t rows, int64_t inner, int64_t chunk, int64_t iss, int64_t ids, int32_t nd, int64_t sz0, int64_t sz1,
                                     int64_t sz2, int64_t sz3, int64_t sz4, int64_t ss0, int64_t ss1, int64_t ss2, int64_t ss3, int64_t ss4, int64_t ds0, int64_t ds1, int64_t ds2, int64_t ds3,
                                     int64_t ds4, int32_t G) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_copy_nd);
    ak_args_ptr(a_, src); ak_args_ptr(a_, dst); ak_args_i64(a_, rows); ak_args_i64(a_, inner); ak_args_i64(a_, chunk); ak_args_i64(a_, iss); ak_args_i64(a_, ids); ak_args_i32(a_, nd);
    ak_args_i64(a_, sz0); ak_args_i64(a_, sz1); ak_args_i64(a_, sz2); ak_args_i64(a_, sz3); ak_args_i64(a_, sz4); ak_args_i64(a_, ss0); ak_args_i64(a_, ss1); ak_args_i64(a_, ss2);
    ak_args_i64(a_, ss3); ak_args_i64(a_, ss4); ak_args_i64(a_, ds0); ak_args_i64(a_, ds1); ak_args_i64(a_, ds2); ak_args_i64(a_, ds3); ak_args_i64(a_, ds4); ak_args_i32(a_, G);
}
/* kernels/layout.hip:146 ak_copy_cast_##SN##_##DN (macro AK_COPY_ND_CAST) */
static inline void _ak_kargs_copy_cast(_ak_kargs* kargs_, const void* src, void* dst, int64_t rows, int64_t inner, int64_t chunk, int64_t iss, int64_t ids, int32_t nd, int64_t sz0, int64_t sz1,
                                       int64_t sz2, int64_t sz3, int64_t sz4, int64_t ss0, int64_t ss1, int64_t ss2, int64_t ss3, int64_t ss4, int64_t ds0, int64_t ds1, int64_t ds2, int64_t ds3,
                                       int64_t ds4, int32_t G, int32_t vec) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_copy_cast);
    ak_args_ptr(a_, src); ak_args_ptr(a_, dst); ak_args_i64(a_, rows); ak_args_i64(a_, inner); ak_args_i64(a_, chunk); ak_args_i64(a_, iss); ak_args_i64(a_, ids); ak_args_i32(a_, nd);
    ak_args_i64(a_, sz0); ak_args_i64(a_, sz1); ak_args_i64(a_, sz2); ak_args_i64(a_, sz3); ak_args_i64(a_, sz4); ak_args_i64(a_, ss0); ak_args_i64(a_, ss1); ak_args_i64(a_, ss2);
    ak_args_i64(a_, ss3); ak_args_i64(a_, ss4); ak_args_i64(a_, ds0); ak_args_i64(a_, ds1); ak_args_i64(a_, ds2); ak_args_i64(a_, ds3); ak_args_i64(a_, ds4); ak_args_i32(a_, G); ak_args_i32(a_, vec);
}
/* kernels/layout.hip:168 ak_embedding_##NAME (macro AK_EMBEDDING) */
static inline void _ak_kargs_embedding(_ak_kargs* kargs_, const void* table, const void* idx, void* out, int64_t n, int64_t vocab, int64_t upr, int32_t G, int32_t idx64) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_embedding);
    ak_args_ptr(a_, table); ak_args_ptr(a_, idx); ak_args_ptr(a_, out); ak_args_i64(a_, n); ak_args_i64(a_, vocab); ak_args_i64(a_, upr); ak_args_i32(a_, G); ak_args_i32(a_, idx64);
}
/* kernels/llm.hip:109 ak_rope_##DT (macro AK_ROPE) */
static inline void _ak_kargs_rope(_ak_kargs* kargs_, const void* x, const void* pos, void* y, int64_t tokens, int32_t heads, int32_t hd, int32_t rd, double l2theta, int32_t interleaved,
                                  int32_t pos64, int32_t vec, int32_t inplace) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_rope);
    ak_args_ptr(a_, x); ak_args_ptr(a_, pos); ak_args_ptr(a_, y); ak_args_i64(a_, tokens); ak_args_i32(a_, heads); ak_args_i32(a_, hd); ak_args_i32(a_, rd); ak_args_f64(a_, l2theta);
    ak_args_i32(a_, interleaved); ak_args_i32(a_, pos64); ak_args_i32(a_, vec); ak_args_i32(a_, inplace);
}
/* kernels/norm.hip:253 ak_norm_##DT (macro AK_NORM) */
static inline void _ak_kargs_norm(_ak_kargs* kargs_, const void* x, const void* w, const void* b, void* y, int64_t rows, int32_t cols, int32_t G, int32_t vec, float eps, int32_t rms) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_norm);
    ak_args_ptr(a_, x); ak_args_ptr(a_, w); ak_args_ptr(a_, b); ak_args_ptr(a_, y); ak_args_i64(a_, rows); ak_args_i32(a_, cols); ak_args_i32(a_, G); ak_args_i32(a_, vec); ak_args_f32(a_, eps);
    ak_args_i32(a_, rms);
}
/* kernels/norm.hip:259 ak_norm_wide_##DT (macro AK_NORM) */
static inline void _ak_kargs_norm_wide(_ak_kargs* kargs_, const void* x, const void* w, const void* b, void* y, int64_t cols, int32_t vec, int32_t wvec, float eps, int32_t rms) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_norm_wide);
    ak_args_ptr(a_, x); ak_args_ptr(a_, w); ak_args_ptr(a_, b); ak_args_ptr(a_, y); ak_args_i64(a_, cols); ak_args_i32(a_, vec); ak_args_i32(a_, wvec); ak_args_f32(a_, eps); ak_args_i32(a_, rms);
}
/* kernels/norm.hip:263 ak_add_norm_##DT (macro AK_NORM) */
static inline void _ak_kargs_add_norm(_ak_kargs* kargs_, const void* x, const void* r, const void* w, const void* b, void* h, void* y, int64_t rows, int32_t cols, int32_t G, int32_t vec, float eps,
                                      int32_t rms) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_add_norm);
    ak_args_ptr(a_, x); ak_args_ptr(a_, r); ak_args_ptr(a_, w); ak_args_ptr(a_, b); ak_args_ptr(a_, h); ak_args_ptr(a_, y); ak_args_i64(a_, rows); ak_args_i32(a_, cols); ak_args_i32(a_, G);
    ak_args_i32(a_, vec); ak_args_f32(a_, eps); ak_args_i32(a_, rms);
}
/* kernels/norm.hip:268 ak_add_norm_wide_##DT (macro AK_NORM) */
static inline void _ak_kargs_add_norm_wide(_ak_kargs* kargs_, const void* x, const void* r, const void* w, const void* b, void* h, void* y, int64_t cols, int32_t vec, int32_t wvec, float eps,
                                           int32_t rms) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_add_norm_wide);
    ak_args_ptr(a_, x); ak_args_ptr(a_, r); ak_args_ptr(a_, w); ak_args_ptr(a_, b); ak_args_ptr(a_, h); ak_args_ptr(a_, y); ak_args_i64(a_, cols); ak_args_i32(a_, vec); ak_args_i32(a_, wvec);
    ak_args_f32(a_, eps); ak_args_i32(a_, rms);
}
/* kernels/random.hip:161 ak_rand_uniform_f32 */
static inline void _ak_kargs_rand_uniform(_ak_kargs* kargs_, void* y, int64_t n, uint64_t seed, uint64_t offset, float lo, float range, float hi) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_rand_uniform);
    ak_args_ptr(a_, y); ak_args_i64(a_, n); ak_args_u64(a_, seed); ak_args_u64(a_, offset); ak_args_f32(a_, lo); ak_args_f32(a_, range); ak_args_f32(a_, hi);
}
/* kernels/random.hip:183 ak_rand_normal_f32 */
static inline void _ak_kargs_rand_normal(_ak_kargs* kargs_, void* y, int64_t n, uint64_t seed, uint64_t offset, float mean, float sd) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_rand_normal);
    ak_args_ptr(a_, y); ak_args_i64(a_, n); ak_args_u64(a_, seed); ak_args_u64(a_, offset); ak_args_f32(a_, mean); ak_args_f32(a_, sd);
}
/* kernels/random.hip:227 ak_dropout_f32 */
static inline void _ak_kargs_dropout(_ak_kargs* kargs_, const void* x, void* y, void* mask, int64_t n, uint64_t seed, uint64_t offset, float p, float scale) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_dropout);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_ptr(a_, mask); ak_args_i64(a_, n); ak_args_u64(a_, seed); ak_args_u64(a_, offset); ak_args_f32(a_, p); ak_args_f32(a_, scale);
}
/* kernels/reduce.hip:165 NAME (macro AK_REDUCE1) */
static inline void _ak_kargs_reduce1(_ak_kargs* kargs_, const void* x, int64_t cols, int64_t nseg, int64_t splits, int64_t chunk, int32_t G, float scale, void* outv, void* outi) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_reduce1);
    ak_args_ptr(a_, x); ak_args_i64(a_, cols); ak_args_i64(a_, nseg); ak_args_i64(a_, splits); ak_args_i64(a_, chunk); ak_args_i32(a_, G); ak_args_f32(a_, scale); ak_args_ptr(a_, outv);
    ak_args_ptr(a_, outi);
}
/* kernels/reduce.hip:186 NAME (macro AK_REDUCE2) */
static inline void _ak_kargs_reduce2(_ak_kargs* kargs_, const void* pv, const void* pi, int64_t rows, int64_t splits, int32_t G, float scale, void* outv, void* outi) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_reduce2);
    ak_args_ptr(a_, pv); ak_args_ptr(a_, pi); ak_args_i64(a_, rows); ak_args_i64(a_, splits); ak_args_i32(a_, G); ak_args_f32(a_, scale); ak_args_ptr(a_, outv); ak_args_ptr(a_, outi);
}
/* kernels/scan.hip:128 ak_cumsum_part_##DT (macro AK_SCAN_KERNELS) */
static inline void _ak_kargs_cumsum_part(_ak_kargs* kargs_, const void* x, int64_t cols, int64_t chunk, int32_t nch, void* part) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_cumsum_part);
    ak_args_ptr(a_, x); ak_args_i64(a_, cols); ak_args_i64(a_, chunk); ak_args_i32(a_, nch); ak_args_ptr(a_, part);
}
/* kernels/scan.hip:132 ak_cumsum_##DT (macro AK_SCAN_KERNELS) */
static inline void _ak_kargs_cumsum(_ak_kargs* kargs_, const void* x, void* y, int64_t cols, int64_t chunk, int32_t nch, const void* part, int32_t exclusive) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_cumsum);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_i64(a_, cols); ak_args_i64(a_, chunk); ak_args_i32(a_, nch); ak_args_ptr(a_, part); ak_args_i32(a_, exclusive);
}
/* kernels/scan.hip:346 ak_topk_f32 */
static inline void _ak_kargs_topk(_ak_kargs* kargs_, const void* x, void* vals, void* idx, int64_t cols, int32_t k, int32_t largest) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_topk);
    ak_args_ptr(a_, x); ak_args_ptr(a_, vals); ak_args_ptr(a_, idx); ak_args_i64(a_, cols); ak_args_i32(a_, k); ak_args_i32(a_, largest);
}
/* kernels/softmax.hip:287 ak_softmax_##DT (macro AK_SOFTMAX) */
static inline void _ak_kargs_softmax(_ak_kargs* kargs_, const void* x, void* y, int64_t rows, int32_t cols, int32_t G, int32_t vec, int32_t logsm) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_softmax);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_i64(a_, rows); ak_args_i32(a_, cols); ak_args_i32(a_, G); ak_args_i32(a_, vec); ak_args_i32(a_, logsm);
}
/* kernels/softmax.hip:291 ak_softmax_wide_##DT (macro AK_SOFTMAX) */
static inline void _ak_kargs_softmax_wide(_ak_kargs* kargs_, const void* x, void* y, int64_t cols, int32_t vec, int32_t logsm) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_softmax_wide);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_i64(a_, cols); ak_args_i32(a_, vec); ak_args_i32(a_, logsm);
}
/* kernels/softmax.hip:295 ak_softmax_split_##DT (macro AK_SOFTMAX) */
static inline void _ak_kargs_softmax_split(_ak_kargs* kargs_, const void* x, void* y, int64_t cols, int32_t S, void* cnt, void* part, int32_t vec, int32_t logsm) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_softmax_split);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_i64(a_, cols); ak_args_i32(a_, S); ak_args_ptr(a_, cnt); ak_args_ptr(a_, part); ak_args_i32(a_, vec); ak_args_i32(a_, logsm);
}
/* kernels/softmax.hip:299 ak_softmax_stats_##DT (macro AK_SOFTMAX) */
static inline void _ak_kargs_softmax_stats(_ak_kargs* kargs_, const void* x, int64_t cols, int32_t S, int64_t chunk, void* part, int32_t vec) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_softmax_stats);
    ak_args_ptr(a_, x); ak_args_i64(a_, cols); ak_args_i32(a_, S); ak_args_i64(a_, chunk); ak_args_ptr(a_, part); ak_args_i32(a_, vec);
}
/* kernels/softmax.hip:303 ak_softmax_apply_##DT (macro AK_SOFTMAX) */
static inline void _ak_kargs_softmax_apply(_ak_kargs* kargs_, const void* x, void* y, int64_t cols, int32_t S, int64_t chunk, const void* part, int32_t vec, int32_t logsm) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_softmax_apply);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_i64(a_, cols); ak_args_i32(a_, S); ak_args_i64(a_, chunk); ak_args_ptr(a_, part); ak_args_i32(a_, vec); ak_args_i32(a_, logsm);
}
/* kernels/transpose.hip:94 ak_transpose_f32 */
static inline void _ak_kargs_transpose(_ak_kargs* kargs_, const void* x, void* y, int64_t rows, int64_t cols) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_transpose);
    ak_args_ptr(a_, x); ak_args_ptr(a_, y); ak_args_i64(a_, rows); ak_args_i64(a_, cols);
}
/* kernels/xent.hip:146 ak_xent_##DT (macro AK_XENT) */
static inline void _ak_kargs_xent(_ak_kargs* kargs_, const void* x, const void* tgt, int64_t rows, int64_t cols, int32_t G, int32_t vec, int64_t ignore_index, void* loss) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_xent);
    ak_args_ptr(a_, x); ak_args_ptr(a_, tgt); ak_args_i64(a_, rows); ak_args_i64(a_, cols); ak_args_i32(a_, G); ak_args_i32(a_, vec); ak_args_i64(a_, ignore_index); ak_args_ptr(a_, loss);
}
/* kernels/xent.hip:151 ak_xent_small_##DT (macro AK_XENT) */
static inline void _ak_kargs_xent_small(_ak_kargs* kargs_, const void* x, const void* tgt, int64_t rows, int64_t cols, int32_t G, int32_t vec, int64_t ignore_index, int32_t mean, void* out) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_xent_small);
    ak_args_ptr(a_, x); ak_args_ptr(a_, tgt); ak_args_i64(a_, rows); ak_args_i64(a_, cols); ak_args_i32(a_, G); ak_args_i32(a_, vec); ak_args_i64(a_, ignore_index); ak_args_i32(a_, mean);
    ak_args_ptr(a_, out);
}
/* kernels/xent.hip:159 ak_xent_partial */
static inline void _ak_kargs_xent_partial(_ak_kargs* kargs_, const void* loss, const void* tgt, int64_t rows, int64_t per, int64_t ignore_index, int32_t fin, void* part) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_xent_partial);
    ak_args_ptr(a_, loss); ak_args_ptr(a_, tgt); ak_args_i64(a_, rows); ak_args_i64(a_, per); ak_args_i64(a_, ignore_index); ak_args_i32(a_, fin); ak_args_ptr(a_, part);
}
/* kernels/xent.hip:163 ak_xent_mean */
static inline void _ak_kargs_xent_mean(_ak_kargs* kargs_, const void* part, int32_t nparts, int32_t mean, void* out) {
    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_xent_mean);
    ak_args_ptr(a_, part); ak_args_i32(a_, nparts); ak_args_i32(a_, mean); ak_args_ptr(a_, out);
}
#define _ak_kargs_amma _ak_kargs_attn_simt   /* kernels/attention_mma.hip:527 NAME##HD##_##DT (macro AK_AMMA): the same list */
#define _AK_KIF_amma _AK_KIF_attn_simt
#define _ak_kargs_attn_mmagen _ak_kargs_attn_simt   /* kernels/attention_mma.hip:542 ak_attn_mmagen##HD##_##DT (macro AK_AMMA_GEN): the same list */
#define _AK_KIF_attn_mmagen _AK_KIF_attn_simt
#define _ak_kargs_copy _ak_kargs_cast   /* kernels/cast.hip:47 ak_copy_f32: the same list */
#define _AK_KIF_copy _AK_KIF_cast
#define _ak_kargs_scale _ak_kargs_axpy   /* kernels/elementwise.hip:58 ak_scale_f32: the same list */
#define _AK_KIF_scale _AK_KIF_axpy
#define _ak_kargs_gemm_skinny _ak_kargs_gemm_wgmma   /* kernels/gemm.hip:532 NAME (macro AK_GEMM_SKINNY): the same list */
#define _AK_KIF_gemm_skinny _AK_KIF_gemm_wgmma
#define _ak_kargs_gemm_mma _ak_kargs_gemm_wgmma   /* kernels/gemm.hip:542 NAME (macro AK_GEMM_MMA): the same list */
#define _AK_KIF_gemm_mma _AK_KIF_gemm_wgmma
#define _ak_kargs_gemm_simt _ak_kargs_gemm_wgmma   /* kernels/gemm.hip:546 NAME (macro AK_GEMM_SIMT): the same list */
#define _AK_KIF_gemm_simt _AK_KIF_gemm_wgmma
static const struct { const char* kernel; int iface; } _ak_kernel_ifaces[] = {
    { "ak_unary_f32", _AK_KIF_unary },
    { "ak_unary_f16", _AK_KIF_unary },
    { "ak_unary_bf16", _AK_KIF_unary },
    { "ak_attn_simt32_f32", _AK_KIF_attn_simt },
    { "ak_attn_simt32_f16", _AK_KIF_attn_simt },
    { "ak_attn_simt32_bf16", _AK_KIF_attn_simt },
    { "ak_attn_simt64_f32", _AK_KIF_attn_simt },
    { "ak_attn_simt64_f16", _AK_KIF_attn_simt },
    { "ak_attn_simt64_bf16", _AK_KIF_attn_simt },
    { "ak_attn_simt128_f32", _AK_KIF_attn_simt },
    { "ak_attn_simt128_f16", _AK_KIF_attn_simt },
    { "ak_attn_simt128_bf16", _AK_KIF_attn_simt },
    { "ak_attn_simt256_f32", _AK_KIF_attn_simt },
    { "ak_attn_simt256_f16", _AK_KIF_attn_simt },
    { "ak_attn_simt256_bf16", _AK_KIF_attn_simt },
    { "ak_attn_combine_f32", _AK_KIF_attn_combine },
    { "ak_attn_combine_f16", _AK_KIF_attn_combine },
    { "ak_attn_combine_bf16", _AK_KIF_attn_combine },
    { "ak_attn_mma64_f16", _AK_KIF_attn_simt },
    { "ak_attn_mma64_bf16", _AK_KIF_attn_simt },
    { "ak_attn_mma128_f16", _AK_KIF_attn_simt },
    { "ak_attn_mma128_bf16", _AK_KIF_attn_simt },
    { "ak_attn_mmadec64_f16", _AK_KIF_attn_simt },
    { "ak_attn_mmadec64_bf16", _AK_KIF_attn_simt },
    { "ak_attn_mmadec128_f16", _AK_KIF_attn_simt },
    { "ak_attn_mmadec128_bf16", _AK_KIF_attn_simt },
    { "ak_attn_mmagen64_f16", _AK_KIF_attn_simt },
    { "ak_attn_mmagen64_bf16", _AK_KIF_attn_simt },
    { "ak_attn_mmagen128_f16", _AK_KIF_attn_simt },
    { "ak_attn_mmagen128_bf16", _AK_KIF_attn_simt },
    { "ak_cast_f32_f16", _AK_KIF_cast },
    { "ak_cast_f32_bf16", _AK_KIF_cast },
    { "ak_cast_f16_f32", _AK_KIF_cast },
    { "ak_cast_f16_bf16", _AK_KIF_cast },
    { "ak_cast_bf16_f32", _AK_KIF_cast },
    { "ak_cast_bf16_f16", _AK_KIF_cast },
    { "ak_copy_f32", _AK_KIF_cast },
    { "ak_copy_f16", _AK_KIF_cast },
    { "ak_copy_bf16", _AK_KIF_cast },
    { "ak_fill_f32", _AK_KIF_fill },
    { "ak_fill_f16", _AK_KIF_fill },
    { "ak_fill_bf16", _AK_KIF_fill },
    { "ak_axpy_f32", _AK_KIF_axpy },
    { "ak_axpy_f16", _AK_KIF_axpy },
    { "ak_axpy_bf16", _AK_KIF_axpy },
    { "ak_scale_f32", _AK_KIF_axpy },
    { "ak_scale_f16", _AK_KIF_axpy },
    { "ak_scale_bf16", _AK_KIF_axpy },
    { "ak_binary_f32", _AK_KIF_binary },
    { "ak_binary_f16", _AK_KIF_binary },
    { "ak_binary_bf16", _AK_KIF_binary },
    { "ak_gemm_mma_l_f16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_mma_l_bf16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_mma_l_f32", _AK_KIF_gemm_wgmma },
    { "ak_gemm_mma_l_x32", _AK_KIF_gemm_wgmma },
    { "ak_gemm_mma_s_f16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_mma_s_bf16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_mma_s_f32", _AK_KIF_gemm_wgmma },
    { "ak_gemm_mma_s_x32", _AK_KIF_gemm_wgmma },
    { "ak_gemm_simt_l_f32", _AK_KIF_gemm_wgmma },
    { "ak_gemm_simt_l_f16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_simt_l_bf16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_wgmma_n128_f16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_wgmma_n128_bf16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_wgmma_n256_f16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_wgmma_n256_bf16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_wgmma_n128_x32", _AK_KIF_gemm_wgmma },
    { "ak_gemm_wgmma_n256_x32", _AK_KIF_gemm_wgmma },
    { "ak_gemm_skinny_f32", _AK_KIF_gemm_wgmma },
    { "ak_gemm_skinny_f16", _AK_KIF_gemm_wgmma },
    { "ak_gemm_skinny_bf16", _AK_KIF_gemm_wgmma },
    { "ak_copy_nd_u8", _AK_KIF_copy_nd },
    { "ak_copy_nd_u16", _AK_KIF_copy_nd },
    { "ak_copy_nd_u32", _AK_KIF_copy_nd },
    { "ak_copy_nd_u64", _AK_KIF_copy_nd },
    { "ak_copy_nd_u128", _AK_KIF_copy_nd },
    { "ak_copy_cast_f32_f16", _AK_KIF_copy_cast },
    { "ak_copy_cast_f32_bf16", _AK_KIF_copy_cast },
    { "ak_copy_cast_f16_f32", _AK_KIF_copy_cast },
    { "ak_copy_cast_bf16_f32", _AK_KIF_copy_cast },
    { "ak_copy_cast_f16_bf16", _AK_KIF_copy_cast },
    { "ak_copy_cast_bf16_f16", _AK_KIF_copy_cast },
    { "ak_embedding_u8", _AK_KIF_embedding },
    { "ak_embedding_u16", _AK_KIF_embedding },
    { "ak_embedding_u32", _AK_KIF_embedding },
    { "ak_embedding_u64", _AK_KIF_embedding },
    { "ak_embedding_u128", _AK_KIF_embedding },
    { "ak_rope_f32", _AK_KIF_rope },
    { "ak_rope_f16", _AK_KIF_rope },
    { "ak_rope_bf16", _AK_KIF_rope },
    { "ak_norm_f32", _AK_KIF_norm },
    { "ak_norm_wide_f32", _AK_KIF_norm_wide },
    { "ak_add_norm_f32", _AK_KIF_add_norm },
    { "ak_add_norm_wide_f32", _AK_KIF_add_norm_wide },
    { "ak_norm_f16", _AK_KIF_norm },
    { "ak_norm_wide_f16", _AK_KIF_norm_wide },
    { "ak_add_norm_f16", _AK_KIF_add_norm },
    { "ak_add_norm_wide_f16", _AK_KIF_add_norm_wide },
    { "ak_norm_bf16", _AK_KIF_norm },
    { "ak_norm_wide_bf16", _AK_KIF_norm_wide },
    { "ak_add_norm_bf16", _AK_KIF_add_norm },
    { "ak_add_norm_wide_bf16", _AK_KIF_add_norm_wide },
    { "ak_rand_uniform_f32", _AK_KIF_rand_uniform },
    { "ak_rand_uniform_f16", _AK_KIF_rand_uniform },
    { "ak_rand_uniform_bf16", _AK_KIF_rand_uniform },
    { "ak_rand_normal_f32", _AK_KIF_rand_normal },
    { "ak_rand_normal_f16", _AK_KIF_rand_normal },
    { "ak_rand_normal_bf16", _AK_KIF_rand_normal },
    { "ak_dropout_f32", _AK_KIF_dropout },
    { "ak_dropout_f16", _AK_KIF_dropout },
    { "ak_dropout_bf16", _AK_KIF_dropout },
    { "ak_reduce_sum_f32", _AK_KIF_reduce1 },
    { "ak_reduce_sum_f16", _AK_KIF_reduce1 },
    { "ak_reduce_sum_bf16", _AK_KIF_reduce1 },
    { "ak_reduce_max_f32", _AK_KIF_reduce1 },
    { "ak_reduce_max_f16", _AK_KIF_reduce1 },
    { "ak_reduce_max_bf16", _AK_KIF_reduce1 },
    { "ak_reduce_min_f32", _AK_KIF_reduce1 },
    { "ak_reduce_min_f16", _AK_KIF_reduce1 },
    { "ak_reduce_min_bf16", _AK_KIF_reduce1 },
    { "ak_reduce_argmax_f32", _AK_KIF_reduce1 },
    { "ak_reduce_argmax_f16", _AK_KIF_reduce1 },
    { "ak_reduce_argmax_bf16", _AK_KIF_reduce1 },
    { "ak_reduce_argmin_f32", _AK_KIF_reduce1 },
    { "ak_reduce_argmin_f16", _AK_KIF_reduce1 },
    { "ak_reduce_argmin_bf16", _AK_KIF_reduce1 },
    { "ak_reduce2_sum", _AK_KIF_reduce2 },
    { "ak_reduce2_max", _AK_KIF_reduce2 },
    { "ak_reduce2_min", _AK_KIF_reduce2 },
    { "ak_reduce2_argmax", _AK_KIF_reduce2 },
    { "ak_reduce2_argmin", _AK_KIF_reduce2 },
    { "ak_topk_f32", _AK_KIF_topk },
    { "ak_topk_f16", _AK_KIF_topk },
    { "ak_topk_bf16", _AK_KIF_topk },
    { "ak_cumsum_part_f32", _AK_KIF_cumsum_part },
    { "ak_cumsum_f32", _AK_KIF_cumsum },
    { "ak_cumsum_part_f16", _AK_KIF_cumsum_part },
    { "ak_cumsum_f16", _AK_KIF_cumsum },
    { "ak_cumsum_part_bf16", _AK_KIF_cumsum_part },
    { "ak_cumsum_bf16", _AK_KIF_cumsum },
    { "ak_cumsum_part_i32", _AK_KIF_cumsum_part },
    { "ak_cumsum_i32", _AK_KIF_cumsum },
    { "ak_cumsum_part_i64", _AK_KIF_cumsum_part },
    { "ak_cumsum_i64", _AK_KIF_cumsum },
    { "ak_softmax_f32", _AK_KIF_softmax },
    { "ak_softmax_wide_f32", _AK_KIF_softmax_wide },
    { "ak_softmax_split_f32", _AK_KIF_softmax_split },
    { "ak_softmax_stats_f32", _AK_KIF_softmax_stats },
    { "ak_softmax_apply_f32", _AK_KIF_softmax_apply },
    { "ak_softmax_f16", _AK_KIF_softmax },
    { "ak_softmax_wide_f16", _AK_KIF_softmax_wide },
    { "ak_softmax_split_f16", _AK_KIF_softmax_split },
    { "ak_softmax_stats_f16", _AK_KIF_softmax_stats },
    { "ak_softmax_apply_f16", _AK_KIF_softmax_apply },
    { "ak_softmax_bf16", _AK_KIF_softmax },
    { "ak_softmax_wide_bf16", _AK_KIF_softmax_wide },
    { "ak_softmax_split_bf16", _AK_KIF_softmax_split },
    { "ak_softmax_stats_bf16", _AK_KIF_softmax_stats },
    { "ak_softmax_apply_bf16", _AK_KIF_softmax_apply },
    { "ak_transpose_f32", _AK_KIF_transpose },
    { "ak_transpose_f16", _AK_KIF_transpose },
    { "ak_transpose_bf16", _AK_KIF_transpose },
    { "ak_xent_partial", _AK_KIF_xent_partial },
    { "ak_xent_mean", _AK_KIF_xent_mean },
    { "ak_xent_f32", _AK_KIF_xent },
    { "ak_xent_small_f32", _AK_KIF_xent_small },
    { "ak_xent_f16", _AK_KIF_xent },
    { "ak_xent_small_f16", _AK_KIF_xent_small },
    { "ak_xent_bf16", _AK_KIF_xent },
    { "ak_xent_small_bf16", _AK_KIF_xent_small },
};
#endif /* AMDKIT_NO_OPS */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
//<#akgen

/* ==========================================================================
 * >>impl:api
 * Entry points of the GPU libraries, loaded with dlopen. Each list is the one
 * place an entry point is added: it expands into the function-pointer types,
 * the fields of _ak_api and the dlsym calls. Columns:
 *   X(return type, field, (parameters), symbol, fallback symbol or NULL,
 *     required, type-checked against the real header)
 * Handle and enum types are spelled with _akT_* names: plain C types here,
 * the real header types in tests/typecheck_*.c (AK_TYPECHECK_*), so a wrong
 * hand-written prototype fails to compile there.
 * ========================================================================== */
#ifndef AK_TYPECHECK_HIP
typedef int _akT_hipError_t;
typedef void* _akT_hipStream_t;
typedef void* _akT_hipEvent_t;
typedef void* _akT_hipModule_t;
typedef void* _akT_hipFunction_t;
typedef int _akT_hipMemcpyKind;
typedef int _akT_hipDeviceAttribute_t;
typedef int _akT_hiprtcResult;
typedef void* _akT_hiprtcProgram;
typedef struct { char bytes[16]; } _akT_hipUUID;
#endif
#ifndef AK_TYPECHECK_CUDA
typedef int _akT_CUresult;
typedef int _akT_CUdevice;
typedef void* _akT_CUcontext;
typedef void* _akT_CUstream;
typedef void* _akT_CUevent;
typedef void* _akT_CUmodule;
typedef void* _akT_CUfunction;
typedef unsigned long long _akT_CUdeviceptr;
typedef int _akT_CUdevice_attribute;
typedef int _akT_CUfunction_attribute;
typedef int _akT_nvrtcResult;
typedef void* _akT_nvrtcProgram;
typedef struct { char bytes[16]; } _akT_CUuuid;
#endif

#define _AK_HIP_API(X) \
    X(_akT_hipError_t, hipInit, (unsigned int flags), "hipInit", NULL, 1, 1) \
    X(_akT_hipError_t, hipDriverGetVersion, (int* v), "hipDriverGetVersion", NULL, 1, 1) \
    X(_akT_hipError_t, hipRuntimeGetVersion, (int* v), "hipRuntimeGetVersion", NULL, 1, 1) \
    X(_akT_hipError_t, hipGetDeviceCount, (int* n), "hipGetDeviceCount", NULL, 1, 1) \
    X(_akT_hipError_t, hipSetDevice, (int d), "hipSetDevice", NULL, 1, 1) \
    X(_akT_hipError_t, hipDeviceGetName, (char* name, int len, int d), "hipDeviceGetName", NULL, 1, 1) \
    X(_akT_hipError_t, hipDeviceGetAttribute, (int* v, _akT_hipDeviceAttribute_t a, int d), "hipDeviceGetAttribute", NULL, 1, 1) \
    X(_akT_hipError_t, hipGetDevicePropertiesR0600, (void* props, int d), "hipGetDevicePropertiesR0600", NULL, 0, 0) \
    X(_akT_hipError_t, hipGetDevicePropertiesLegacy, (void* props, int d), "hipGetDeviceProperties", NULL, 0, 0) \
    X(_akT_hipError_t, hipMemGetInfo, (size_t* free_b, size_t* total_b), "hipMemGetInfo", NULL, 1, 1) \
    X(_akT_hipError_t, hipMalloc, (void** p, size_t n), "hipMalloc", NULL, 1, 1) \
    X(_akT_hipError_t, hipFree, (void* p), "hipFree", NULL, 1, 1) \
    X(_akT_hipError_t, hipHostMalloc, (void** p, size_t n, unsigned int flags), "hipHostMalloc", NULL, 1, 1) \
    X(_akT_hipError_t, hipHostFree, (void* p), "hipHostFree", NULL, 1, 1) \
    X(_akT_hipError_t, hipMemcpy, (void* dst, const void* src, size_t n, _akT_hipMemcpyKind k), "hipMemcpy", NULL, 1, 1) \
    X(_akT_hipError_t, hipMemcpyAsync, (void* dst, const void* src, size_t n, _akT_hipMemcpyKind k, _akT_hipStream_t s), "hipMemcpyAsync", NULL, 1, 1) \
    X(_akT_hipError_t, hipMemsetAsync, (void* dst, int v, size_t n, _akT_hipStream_t s), "hipMemsetAsync", NULL, 1, 1) \
    X(_akT_hipError_t, hipDeviceSynchronize, (void), "hipDeviceSynchronize", NULL, 1, 1) \
    X(_akT_hipError_t, hipDeviceTotalMem, (size_t* n, int d), "hipDeviceTotalMem", NULL, 0, 1) \
    X(_akT_hipError_t, hipDeviceGetPCIBusId, (char* id, int len, int d), "hipDeviceGetPCIBusId", NULL, 0, 1) \
    X(_akT_hipError_t, hipDeviceGetUuid, (_akT_hipUUID* u, int d), "hipDeviceGetUuid", NULL, 0, 1) \
    X(_akT_hipError_t, hipDeviceCanAccessPeer, (int* can, int d, int peer), "hipDeviceCanAccessPeer", NULL, 0, 1) \
    X(_akT_hipError_t, hipDeviceEnablePeerAccess, (int peer, unsigned int flags), "hipDeviceEnablePeerAccess", NULL, 0, 1) \
    X(_akT_hipError_t, hipMemcpyPeerAsync, (void* dst, int dst_dev, const void* src, int src_dev, size_t n, _akT_hipStream_t s), \
        "hipMemcpyPeerAsync", NULL, 0, 1) \
    X(_akT_hipError_t, hipStreamWaitEvent, (_akT_hipStream_t s, _akT_hipEvent_t e, unsigned int flags), "hipStreamWaitEvent", NULL, 0, 1) \
    X(_akT_hipError_t, hipDeviceGetStreamPriorityRange, (int* least, int* greatest), "hipDeviceGetStreamPriorityRange", NULL, 0, 1) \
    X(_akT_hipError_t, hipStreamCreateWithPriority, (_akT_hipStream_t* s, unsigned int flags, int prio), "hipStreamCreateWithPriority", NULL, 1, 1) \
    X(_akT_hipError_t, hipStreamDestroy, (_akT_hipStream_t s), "hipStreamDestroy", NULL, 1, 1) \
    X(_akT_hipError_t, hipStreamSynchronize, (_akT_hipStream_t s), "hipStreamSynchronize", NULL, 1, 1) \
    X(_akT_hipError_t, hipEventCreateWithFlags, (_akT_hipEvent_t* e, unsigned flags), "hipEventCreateWithFlags", NULL, 1, 1) \
    X(_akT_hipError_t, hipEventRecord, (_akT_hipEvent_t e, _akT_hipStream_t s), "hipEventRecord", NULL, 1, 1) \
    X(_akT_hipError_t, hipEventSynchronize, (_akT_hipEvent_t e), "hipEventSynchronize", NULL, 1, 1) \
    X(_akT_hipError_t, hipEventQuery, (_akT_hipEvent_t e), "hipEventQuery", NULL, 1, 1) \
    X(_akT_hipError_t, hipEventElapsedTime, (float* ms, _akT_hipEvent_t a, _akT_hipEvent_t b), "hipEventElapsedTime", NULL, 1, 1) \
    X(_akT_hipError_t, hipEventDestroy, (_akT_hipEvent_t e), "hipEventDestroy", NULL, 1, 1) \
    X(_akT_hipError_t, hipModuleLoadData, (_akT_hipModule_t* m, const void* image), "hipModuleLoadData", NULL, 1, 1) \
    X(_akT_hipError_t, hipModuleUnload, (_akT_hipModule_t m), "hipModuleUnload", NULL, 1, 1) \
    X(_akT_hipError_t, hipModuleGetFunction, (_akT_hipFunction_t* f, _akT_hipModule_t m, const char* name), "hipModuleGetFunction", NULL, 1, 1) \
    X(_akT_hipError_t, hipModuleLaunchKernel, (_akT_hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, \
        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem, _akT_hipStream_t s, void** params, void** extra), \
        "hipModuleLaunchKernel", NULL, 1, 1) \
    X(const char*, hipGetErrorString, (_akT_hipError_t e), "hipGetErrorString", NULL, 1, 1) \
    X(const char*, hipGetErrorName, (_akT_hipError_t e), "hipGetErrorName", NULL, 0, 1)

/* hipRTC and NVRTC share one API shape (hipRTC follows NVRTC): P is the
 * prefix (hiprtc / nvrtc), STRS the type of the header and option arrays,
 * CODE the code-object getters' word (hipRTC GetCode, NVRTC GetCUBIN). */
#define _AK_RTC_API(X, P, STRS, CODE) \
    X(_akT_##P##Result, P##Version, (int* major, int* minor), #P "Version", NULL, 1, 1) \
    X(_akT_##P##Result, P##CreateProgram, (_akT_##P##Program* p, const char* src, const char* name, int nh, \
        STRS headers, STRS include_names), #P "CreateProgram", NULL, 1, 1) \
    X(_akT_##P##Result, P##CompileProgram, (_akT_##P##Program p, int n, STRS opts), #P "CompileProgram", NULL, 1, 1) \
    X(_akT_##P##Result, P##GetProgramLogSize, (_akT_##P##Program p, size_t* n), #P "GetProgramLogSize", NULL, 1, 1) \
    X(_akT_##P##Result, P##GetProgramLog, (_akT_##P##Program p, char* log), #P "GetProgramLog", NULL, 1, 1) \
    X(_akT_##P##Result, P##Get##CODE##Size, (_akT_##P##Program p, size_t* n), #P "Get" #CODE "Size", NULL, 1, 1) \
    X(_akT_##P##Result, P##Get##CODE, (_akT_##P##Program p, char* code), #P "Get" #CODE, NULL, 1, 1) \
    X(_akT_##P##Result, P##DestroyProgram, (_akT_##P##Program* p), #P "DestroyProgram", NULL, 1, 1) \
    X(const char*, P##GetErrorString, (_akT_##P##Result r), #P "GetErrorString", NULL, 1, 1)

/* hipRTC: its own library on ROCm 7+, inside libamdhip64 on 5.x/6.x. */
#define _AK_HIPRTC_API(X) _AK_RTC_API(X, hiprtc, const char**, Code)

/* comgr: only to list the ISAs the installed compiler knows (optional). */
#define _AK_COMGR_API(X) \
    X(int, amd_comgr_get_isa_count, (size_t* n), "amd_comgr_get_isa_count", NULL, 1, 0) \
    X(int, amd_comgr_get_isa_name, (size_t i, const char** name), "amd_comgr_get_isa_name", NULL, 1, 0)

/* CUDA driver API (the versioned symbol names the headers map to). */
#define _AK_CUDA_API(X) \
    X(_akT_CUresult, cuInit, (unsigned int flags), "cuInit", NULL, 1, 1) \
    X(_akT_CUresult, cuDriverGetVersion, (int* v), "cuDriverGetVersion", NULL, 1, 1) \
    X(_akT_CUresult, cuDeviceGetCount, (int* n), "cuDeviceGetCount", NULL, 1, 1) \
    X(_akT_CUresult, cuDeviceGet, (_akT_CUdevice* d, int ordinal), "cuDeviceGet", NULL, 1, 1) \
    X(_akT_CUresult, cuDeviceGetName, (char* name, int len, _akT_CUdevice d), "cuDeviceGetName", NULL, 1, 1) \
    X(_akT_CUresult, cuDeviceGetAttribute, (int* v, _akT_CUdevice_attribute a, _akT_CUdevice d), "cuDeviceGetAttribute", NULL, 1, 1) \
    X(_akT_CUresult, cuDeviceTotalMem, (size_t* n, _akT_CUdevice d), "cuDeviceTotalMem_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuDeviceGetPCIBusId, (char* id, int len, _akT_CUdevice d), "cuDeviceGetPCIBusId", NULL, 0, 1) \
    X(_akT_CUresult, cuDeviceGetUuid, (_akT_CUuuid* u, _akT_CUdevice d), "cuDeviceGetUuid_v2", "cuDeviceGetUuid", 0, 1) \
    X(_akT_CUresult, cuDeviceCanAccessPeer, (int* can, _akT_CUdevice d, _akT_CUdevice peer), "cuDeviceCanAccessPeer", NULL, 0, 1) \
    X(_akT_CUresult, cuCtxEnablePeerAccess, (_akT_CUcontext peer, unsigned int flags), "cuCtxEnablePeerAccess", NULL, 0, 1) \
    X(_akT_CUresult, cuMemcpyPeerAsync, (_akT_CUdeviceptr dst, _akT_CUcontext dst_ctx, _akT_CUdeviceptr src, _akT_CUcontext src_ctx, \
        size_t n, _akT_CUstream s), "cuMemcpyPeerAsync", NULL, 0, 1) \
    X(_akT_CUresult, cuStreamWaitEvent, (_akT_CUstream s, _akT_CUevent e, unsigned int flags), "cuStreamWaitEvent", NULL, 0, 1) \
    X(_akT_CUresult, cuDevicePrimaryCtxRetain, (_akT_CUcontext* c, _akT_CUdevice d), "cuDevicePrimaryCtxRetain", NULL, 1, 1) \
    X(_akT_CUresult, cuDevicePrimaryCtxRelease, (_akT_CUdevice d), "cuDevicePrimaryCtxRelease_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuCtxSetCurrent, (_akT_CUcontext c), "cuCtxSetCurrent", NULL, 1, 1) \
    X(_akT_CUresult, cuCtxSynchronize, (void), "cuCtxSynchronize", NULL, 1, 1) \
    X(_akT_CUresult, cuCtxGetStreamPriorityRange, (int* least, int* greatest), "cuCtxGetStreamPriorityRange", NULL, 0, 1) \
    X(_akT_CUresult, cuMemGetInfo, (size_t* free_b, size_t* total_b), "cuMemGetInfo_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemAlloc, (_akT_CUdeviceptr* p, size_t n), "cuMemAlloc_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemFree, (_akT_CUdeviceptr p), "cuMemFree_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemAllocHost, (void** p, size_t n), "cuMemAllocHost_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemFreeHost, (void* p), "cuMemFreeHost", NULL, 1, 1) \
    X(_akT_CUresult, cuMemcpyHtoD, (_akT_CUdeviceptr dst, const void* src, size_t n), "cuMemcpyHtoD_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemcpyDtoH, (void* dst, _akT_CUdeviceptr src, size_t n), "cuMemcpyDtoH_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemcpyDtoD, (_akT_CUdeviceptr dst, _akT_CUdeviceptr src, size_t n), "cuMemcpyDtoD_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemcpyHtoDAsync, (_akT_CUdeviceptr dst, const void* src, size_t n, _akT_CUstream s), "cuMemcpyHtoDAsync_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemcpyDtoHAsync, (void* dst, _akT_CUdeviceptr src, size_t n, _akT_CUstream s), "cuMemcpyDtoHAsync_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemcpyDtoDAsync, (_akT_CUdeviceptr dst, _akT_CUdeviceptr src, size_t n, _akT_CUstream s), "cuMemcpyDtoDAsync_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuMemsetD8Async, (_akT_CUdeviceptr dst, unsigned char v, size_t n, _akT_CUstream s), "cuMemsetD8Async", NULL, 1, 1) \
    X(_akT_CUresult, cuStreamCreateWithPriority, (_akT_CUstream* s, unsigned int flags, int prio), "cuStreamCreateWithPriority", NULL, 1, 1) \
    X(_akT_CUresult, cuStreamDestroy, (_akT_CUstream s), "cuStreamDestroy_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuStreamSynchronize, (_akT_CUstream s), "cuStreamSynchronize", NULL, 1, 1) \
    X(_akT_CUresult, cuEventCreate, (_akT_CUevent* e, unsigned int flags), "cuEventCreate", NULL, 1, 1) \
    X(_akT_CUresult, cuEventRecord, (_akT_CUevent e, _akT_CUstream s), "cuEventRecord", NULL, 1, 1) \
    X(_akT_CUresult, cuEventSynchronize, (_akT_CUevent e), "cuEventSynchronize", NULL, 1, 1) \
    X(_akT_CUresult, cuEventQuery, (_akT_CUevent e), "cuEventQuery", NULL, 1, 1) \
    X(_akT_CUresult, cuEventElapsedTime, (float* ms, _akT_CUevent a, _akT_CUevent b), "cuEventElapsedTime_v2", "cuEventElapsedTime", 1, 1) \
    X(_akT_CUresult, cuEventDestroy, (_akT_CUevent e), "cuEventDestroy_v2", NULL, 1, 1) \
    X(_akT_CUresult, cuModuleLoadData, (_akT_CUmodule* m, const void* image), "cuModuleLoadData", NULL, 1, 1) \
    X(_akT_CUresult, cuModuleUnload, (_akT_CUmodule m), "cuModuleUnload", NULL, 1, 1) \
    X(_akT_CUresult, cuModuleGetFunction, (_akT_CUfunction* f, _akT_CUmodule m, const char* name), "cuModuleGetFunction", NULL, 1, 1) \
    X(_akT_CUresult, cuFuncSetAttribute, (_akT_CUfunction f, _akT_CUfunction_attribute a, int v), "cuFuncSetAttribute", NULL, 0, 1) \
    X(_akT_CUresult, cuLaunchKernel, (_akT_CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, \
        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem, _akT_CUstream s, void** params, void** extra), \
        "cuLaunchKernel", NULL, 1, 1) \
    X(_akT_CUresult, cuGetErrorString, (_akT_CUresult r, const char** s), "cuGetErrorString", NULL, 1, 1) \
    X(_akT_CUresult, cuGetErrorName, (_akT_CUresult r, const char** s), "cuGetErrorName", NULL, 0, 1)

/* NVRTC: the shared shape, and the list of the architectures it compiles for (optional). */
#define _AK_NVRTC_API(X) \
    _AK_RTC_API(X, nvrtc, const char* const*, CUBIN) \
    X(_akT_nvrtcResult, nvrtcGetNumSupportedArchs, (int* n), "nvrtcGetNumSupportedArchs", NULL, 0, 1) \
    X(_akT_nvrtcResult, nvrtcGetSupportedArchs, (int* archs), "nvrtcGetSupportedArchs", NULL, 0, 1)

/* NCCL (cuda) and RCCL (hip): the same C API and symbol names. The stream is
 * a cudaStream_t (== CUstream) for NCCL and a hipStream_t for RCCL. */
#ifndef AK_TYPECHECK_CCL
typedef int _akT_ncclResult_t;
typedef void* _akT_ncclComm_t;
typedef struct { char internal[128]; } _akT_ncclUniqueId;  /* NCCL_UNIQUE_ID_BYTES */
typedef int _akT_ncclDataType_t;
typedef int _akT_ncclRedOp_t;
typedef void* _akT_cclStream_t;
#endif
#define _AK_CCL_API(X) \
    X(_akT_ncclResult_t, ncclGetVersion, (int* v), "ncclGetVersion", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclGetUniqueId, (_akT_ncclUniqueId* id), "ncclGetUniqueId", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclCommInitRank, (_akT_ncclComm_t* c, int n, _akT_ncclUniqueId id, int rank), "ncclCommInitRank", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclCommDestroy, (_akT_ncclComm_t c), "ncclCommDestroy", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclCommAbort, (_akT_ncclComm_t c), "ncclCommAbort", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclCommGetAsyncError, (_akT_ncclComm_t c, _akT_ncclResult_t* e), "ncclCommGetAsyncError", NULL, 0, 1) \
    X(_akT_ncclResult_t, ncclAllReduce, (const void* s, void* r, size_t n, _akT_ncclDataType_t t, _akT_ncclRedOp_t op, \
        _akT_ncclComm_t c, _akT_cclStream_t st), "ncclAllReduce", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclAllGather, (const void* s, void* r, size_t send_count, _akT_ncclDataType_t t, \
        _akT_ncclComm_t c, _akT_cclStream_t st), "ncclAllGather", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclReduceScatter, (const void* s, void* r, size_t recv_count, _akT_ncclDataType_t t, _akT_ncclRedOp_t op, \
        _akT_ncclComm_t c, _akT_cclStream_t st), "ncclReduceScatter", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclBroadcast, (const void* s, void* r, size_t n, _akT_ncclDataType_t t, int root, \
        _akT_ncclComm_t c, _akT_cclStream_t st), "ncclBroadcast", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclSend, (const void* s, size_t n, _akT_ncclDataType_t t, int peer, _akT_ncclComm_t c, _akT_cclStream_t st), \
        "ncclSend", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclRecv, (void* r, size_t n, _akT_ncclDataType_t t, int peer, _akT_ncclComm_t c, _akT_cclStream_t st), \
        "ncclRecv", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclGroupStart, (void), "ncclGroupStart", NULL, 1, 1) \
    X(_akT_ncclResult_t, ncclGroupEnd, (void), "ncclGroupEnd", NULL, 1, 1) \
    X(const char*, ncclGetErrorString, (_akT_ncclResult_t r), "ncclGetErrorString", NULL, 1, 1) \
    X(const char*, ncclGetLastError, (_akT_ncclComm_t c), "ncclGetLastError", NULL, 0, 1)

/* NCCL / RCCL enum values (checked against nccl.h and rccl.h in tests/typecheck_ccl.c). */
enum { _AK_NCCL_I32 = 2, _AK_NCCL_F16 = 6, _AK_NCCL_F32 = 7, _AK_NCCL_BF16 = 9,
       _AK_NCCL_SUM = 0, _AK_NCCL_MAX = 2, _AK_NCCL_MIN = 3, _AK_NCCL_AVG = 4,
       _AK_NCCL_INVALID_ARGUMENT = 4, _AK_NCCL_INVALID_USAGE = 5, _AK_NCCL_ID_BYTES = 128 };

/* Function-pointer types: _ak_pfn_<name>. */
#define _AK_X_PFN(ret, name, params, sym, sym2, req, chk) typedef ret (*_ak_pfn_##name) params;
_AK_HIP_API(_AK_X_PFN)
_AK_HIPRTC_API(_AK_X_PFN)
_AK_COMGR_API(_AK_X_PFN)
_AK_CUDA_API(_AK_X_PFN)
_AK_NVRTC_API(_AK_X_PFN)
_AK_CCL_API(_AK_X_PFN)
#undef _AK_X_PFN

/* One table per context (volk style): never globals named like the API. */
#define _AK_X_FIELD(ret, name, params, sym, sym2, req, chk) _ak_pfn_##name name;
typedef struct _ak_api {
    void* lib_hip;      /* libamdhip64 */
    void* lib_hiprtc;   /* libhiprtc, or == lib_hip when hipRTC lives inside it */
    void* lib_comgr;
    void* lib_cuda;     /* libcuda */
    void* lib_nvrtc;    /* libnvrtc */
    void* lib_ccl;      /* libnccl (cuda) / librccl (hip): loaded on first use by a communicator (>>impl:multi) */
    char ccl_path[512];
    int ccl_version;    /* ncclGetVersion: 22809 = 2.28.9 */
    char hip_path[256], hiprtc_path[256], cuda_path[256], nvrtc_path[256];
    char hip_how[200], hiprtc_how[200];  /* why that file: "ROCM_PATH=/opt/rocm-6.4.0", "the loader path" */
    int hip_runtime_version;        /* e.g. 50221153 */
    int hiprtc_major, hiprtc_minor;
    char hiprtc_version[32];        /* "6.4.43484": from the library file (hiprtcVersion says 9.0 on Debian's 5.2 and 6.4) */
    char comgr_path[256];
    int nvrtc_major, nvrtc_minor;
    char nvrtc_include[300];        /* "-I<cuda>/include" or "" (found once at load) */
    char ok_targets[16][64];        /* targets already checked with the compiler (guarded by the context lock) */
    int n_ok_targets;
    _AK_HIP_API(_AK_X_FIELD)
    _AK_HIPRTC_API(_AK_X_FIELD)
    _AK_COMGR_API(_AK_X_FIELD)
    _AK_CUDA_API(_AK_X_FIELD)
    _AK_NVRTC_API(_AK_X_FIELD)
    _AK_CCL_API(_AK_X_FIELD)
} _ak_api;
#undef _AK_X_FIELD

/* Resolve every symbol of one list from `lib`; the first missing required one
 * is named in `missing` (returns 0). Optional ones stay NULL. */
#define _AK_X_RESOLVE(ret, name, params, sym, sym2, req, chk) \
    _ak_dlsym(lib, sym, &api->name); \
    if (!api->name && (sym2)) _ak_dlsym(lib, (const char*)(sym2), &api->name); \
    if (!api->name && (req) && !missing[0]) _ak_copy(missing, cap, sym);
/* _ak_resolve_<lib>: every entry point of one X-macro list; 0 and the first missing required symbol if one is absent */
#define _AK_RESOLVER(fn, LIST) \
    static int fn(_ak_api* api, void* lib, char* missing, size_t cap) { missing[0] = 0; LIST(_AK_X_RESOLVE) return missing[0] == 0; }
_AK_RESOLVER(_ak_resolve_hip, _AK_HIP_API)
_AK_RESOLVER(_ak_resolve_hiprtc, _AK_HIPRTC_API)
_AK_RESOLVER(_ak_resolve_comgr, _AK_COMGR_API)
_AK_RESOLVER(_ak_resolve_cuda, _AK_CUDA_API)
_AK_RESOLVER(_ak_resolve_nvrtc, _AK_NVRTC_API)
_AK_RESOLVER(_ak_resolve_ccl, _AK_CCL_API)
#undef _AK_RESOLVER
#undef _AK_X_RESOLVE

/* Try library names in order; on failure `why` lists every name tried. */
static void* _ak_dlopen_first(const char* const* names, char* path, size_t path_cap, char* why, size_t why_cap) {
    int i;
    for (i = 0; names[i]; i++) {
        void* h = _ak_dlopen(names[i]);
        if (h) { _ak_copy(path, path_cap, names[i]); return h; }
    }
    _ak_copy(why, why_cap, "");
    for (i = 0; names[i]; i++) _ak_appendf(why, why_cap, "%s%s", i ? ", " : "", names[i]);
    _ak_appendf(why, why_cap, " not found");
    return NULL;
}

static const char* const _ak_hip_names[] = {
    "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", NULL };
static const char* const _ak_hiprtc_names[] = {
    "libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5", "libhiprtc.so", NULL };
static const char* const _ak_comgr_names[] = {
    "libamd_comgr.so.3", "libamd_comgr.so.2", "libamd_comgr.so", NULL };
static const char* const _ak_cuda_names[] = { "libcuda.so.1", "libcuda.so", NULL };
static const char* const _ak_nvrtc_names[] = {
    "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
    "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
    "/usr/local/cuda/lib64/libnvrtc.so", NULL };

/* ROCm libraries are looked for where ROCm users expect them, in this order:
 * $ROCM_PATH/lib, $HIP_PATH/lib, /opt/rocm/lib, /opt/rocm-<version>/lib
 * (newest version first), then the loader path (LD_LIBRARY_PATH, ld.so.cache:
 * distributions install ROCm in /usr/lib). `how` says which rule found it. */
static int _ak_cmp_ver_desc(const void* a, const void* b) {
    return strverscmp(*(const char* const*)b, *(const char* const*)a);
}
static void* _ak_dlopen_rocm(const char* const* names, char* path, size_t path_cap, char* why, size_t why_cap,
                             char* how, size_t how_cap) {
    char dirs[12][300], hows[12][200], tried[600];
    int nd = 0, i, j;
    const char* v;
    glob_t g;
    void* h;
    if ((v = _ak_getenv("ROCM_PATH")) != NULL && *v && strlen(v) < 280) {
        _ak_fmt(dirs[nd], sizeof dirs[0], "%s/lib", v); _ak_fmt(hows[nd], sizeof hows[0], "ROCM_PATH=%s", v); nd++;
    }
    if ((v = _ak_getenv("HIP_PATH")) != NULL && *v && strlen(v) < 280) {
        _ak_fmt(dirs[nd], sizeof dirs[0], "%s/lib", v); _ak_fmt(hows[nd], sizeof hows[0], "HIP_PATH=%s", v); nd++;
    }
    _ak_copy(dirs[nd], sizeof dirs[0], "/opt/rocm/lib"); _ak_copy(hows[nd], sizeof hows[0], "/opt/rocm"); nd++;
    memset(&g, 0, sizeof g);
    if (glob("/opt/rocm-*/lib", GLOB_NOSORT | GLOB_ONLYDIR, NULL, &g) == 0) {
        qsort(g.gl_pathv, g.gl_pathc, sizeof g.gl_pathv[0], _ak_cmp_ver_desc);
        for (i = 0; i < (int)g.gl_pathc && nd < 12; i++) {
            if (strlen(g.gl_pathv[i]) >= sizeof dirs[0] - 40) continue;
            _ak_copy(dirs[nd], sizeof dirs[0], g.gl_pathv[i]);
            _ak_fmt(hows[nd], sizeof hows[0], "%s, the newest /opt/rocm-* with it", g.gl_pathv[i]);
            nd++;
        }
    }
    globfree(&g);
    tried[0] = 0;
    for (i = 0; i < nd; i++) {
        struct stat st;
        if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        _ak_appendf(tried, sizeof tried, "%s%s", tried[0] ? ", " : "", dirs[i]);
        for (j = 0; names[j]; j++) {
            char f[400];
            _ak_fmt(f, sizeof f, "%s/%s", dirs[i], names[j]);
            if (access(f, F_OK) != 0 || (h = _ak_dlopen(f)) == NULL) continue;
            _ak_copy(path, path_cap, f);
            _ak_copy(how, how_cap, hows[i]);
            return h;
        }
    }
    h = _ak_dlopen_first(names, path, path_cap, why, why_cap);
    if (h) {
        _ak_fmt(how, how_cap, "the loader path (%s%s)", tried[0] ? "not in " : "no ROCM_PATH, HIP_PATH or /opt/rocm*", tried);
        return h;
    }
    if (tried[0]) _ak_appendf(why, why_cap, " (looked in %s and on the loader path)", tried);
    else _ak_appendf(why, why_cap, " (no ROCM_PATH, HIP_PATH or /opt/rocm*; looked on the loader path)");
    return NULL;
}

/* Load the HIP runtime into api. 0 on failure with the reason in why. */
/* Open the first library of `names` into *lib and resolve its entry points;
 * 0 with the reason in why. `any_sym` locates the file for the device info. */
typedef int (*_ak_resolve_fn)(_ak_api* api, void* lib, char* missing, size_t cap);
static int _ak_load_lib(_ak_api* api, void** lib, const char* const* names, char* path, size_t path_cap,
                        _ak_resolve_fn resolve, const char* what, const char* any_sym, char* why, size_t cap, char* how, size_t how_cap) {
    char missing[128];
    *lib = how ? _ak_dlopen_rocm(names, path, path_cap, why, cap, how, how_cap) : _ak_dlopen_first(names, path, path_cap, why, cap);
    if (!*lib) return 0;
    if (!resolve(api, *lib, missing, sizeof missing)) {
        _ak_fmt(why, cap, "%s lacks %s (%s too old)", path, missing, what);
        dlclose(*lib);
        *lib = NULL;
        return 0;
    }
    _ak_dlpath(*lib, any_sym, path, path_cap);
    return 1;
}

/* The loaders' first step: under AMDKIT_NO_HIP / AMDKIT_NO_CUDA they refuse, saying why. */
#define _AK_COMPILED_OUT(api, why, cap, flag) do { (void)(api); _ak_copy(why, cap, "compiled out (" flag ")"); return 0; } while (0)
#ifdef AMDKIT_NO_HIP
#define _AK_NO_HIP_LOADER(api, why, cap) _AK_COMPILED_OUT(api, why, cap, "AMDKIT_NO_HIP")
#else
#define _AK_NO_HIP_LOADER(api, why, cap) ((void)0)
#endif
#ifdef AMDKIT_NO_CUDA
#define _AK_NO_CUDA_LOADER(api, why, cap) _AK_COMPILED_OUT(api, why, cap, "AMDKIT_NO_CUDA")
#else
#define _AK_NO_CUDA_LOADER(api, why, cap) ((void)0)
#endif
static int _ak_load_hip_runtime(_ak_api* api, char* why, size_t cap) {
    _AK_NO_HIP_LOADER(api, why, cap);
    if (api->lib_hip) return 1;
    if (!_ak_load_lib(api, &api->lib_hip, _ak_hip_names, api->hip_path, sizeof api->hip_path, _ak_resolve_hip,
                      "HIP runtime", "hipInit", why, cap, api->hip_how, sizeof api->hip_how))
        return 0;
    api->hipRuntimeGetVersion(&api->hip_runtime_version);
    return 1;
}
/* Load hipRTC (own library on ROCm 7, else inside libamdhip64). */
static int _ak_load_hiprtc(_ak_api* api, char* why, size_t cap) {
    _AK_NO_HIP_LOADER(api, why, cap);
    char missing[128], why2[512];
    if (api->lib_hiprtc) return 1;
    if (!_ak_load_lib(api, &api->lib_hiprtc, _ak_hiprtc_names, api->hiprtc_path, sizeof api->hiprtc_path, _ak_resolve_hiprtc,
                      "hipRTC", "hiprtcCreateProgram", why2, sizeof why2, api->hiprtc_how, sizeof api->hiprtc_how)) {
        if (!_ak_load_hip_runtime(api, why, cap)) {
            char rt[512];
            _ak_copy(rt, sizeof rt, why);
            _ak_fmt(why, cap, "hipRTC: %s; HIP runtime: %s", why2, rt);
            return 0;
        }
        if (!_ak_resolve_hiprtc(api, api->lib_hip, missing, sizeof missing)) {
            _ak_fmt(why, cap, "hipRTC: %s, and %s lacks %s", why2, api->hip_path, missing);
            return 0;
        }
        api->lib_hiprtc = api->lib_hip;
        _ak_fmt(api->hiprtc_how, sizeof api->hiprtc_how, "inside the HIP runtime (no libhiprtc.so; ROCm 5/6 layout), found via %s", api->hip_how);
    }
    _ak_dlpath(api->lib_hiprtc, "hiprtcCreateProgram", api->hiprtc_path, sizeof api->hiprtc_path);
    api->hiprtcVersion(&api->hiprtc_major, &api->hiprtc_minor);
    {
        /* The version is the library file's ("libhiprtc.so.6.4.43484", hipRTC inside
         * "libamdhip64.so.5.2.21153"): hiprtcVersion reports 9.0 on Debian's ROCm 5.2
         * and 6.4 alike. Else the HIP runtime's (60443484 = 6.4.43484). */
        char rp[4096];
        const char *base, *so;
        int maj = 0, min = 0;
        api->hiprtc_version[0] = 0;
        if (realpath(api->hiprtc_path, rp) && (base = strrchr(rp, '/')) != NULL && (so = strstr(base, ".so.")) != NULL &&
            sscanf(so + 4, "%d.%d", &maj, &min) == 2)
            _ak_copy(api->hiprtc_version, sizeof api->hiprtc_version, so + 4);
        else if (_ak_load_hip_runtime(api, why2, sizeof why2) && api->hip_runtime_version > 0) {
            maj = api->hip_runtime_version / 10000000;
            min = api->hip_runtime_version / 100000 % 100;
            _ak_fmt(api->hiprtc_version, sizeof api->hiprtc_version, "%d.%d.%d", maj, min, api->hip_runtime_version % 100000);
        }
        if (api->hiprtc_version[0]) { api->hiprtc_major = maj; api->hiprtc_minor = min; }
        else _ak_fmt(api->hiprtc_version, sizeof api->hiprtc_version, "%d.%d", api->hiprtc_major, api->hiprtc_minor);
    }
    if (!api->lib_comgr) {
        char w[256];
        /* the comgr hipRTC itself loaded, if any; else the newest installed */
        api->lib_comgr = _ak_dlopen_first(_ak_comgr_names, api->comgr_path, sizeof api->comgr_path, w, sizeof w);
        if (api->lib_comgr && !_ak_resolve_comgr(api, api->lib_comgr, missing, sizeof missing)) {
            api->amd_comgr_get_isa_count = NULL;
            api->amd_comgr_get_isa_name = NULL;
        }
        if (api->lib_comgr) _ak_dlpath(api->lib_comgr, "amd_comgr_get_isa_count", api->comgr_path, sizeof api->comgr_path);
    }
    return 1;
}
static int _ak_load_cuda_driver(_ak_api* api, char* why, size_t cap) {
    _AK_NO_CUDA_LOADER(api, why, cap);
    if (api->lib_cuda) return 1;
    return _ak_load_lib(api, &api->lib_cuda, _ak_cuda_names, api->cuda_path, sizeof api->cuda_path, _ak_resolve_cuda,
                        "driver", "cuInit", why, cap, NULL, 0);
}
static int _ak_load_nvrtc(_ak_api* api, char* why, size_t cap) {
    _AK_NO_CUDA_LOADER(api, why, cap);
    if (api->lib_nvrtc) return 1;
    if (!_ak_load_lib(api, &api->lib_nvrtc, _ak_nvrtc_names, api->nvrtc_path, sizeof api->nvrtc_path, _ak_resolve_nvrtc,
                      "NVRTC", "nvrtcVersion", why, cap, NULL, 0))
        return 0;
    api->nvrtcVersion(&api->nvrtc_major, &api->nvrtc_minor);
    {
        /* CUDA's include/ (cuda_fp16.h and friends): next to NVRTC's lib/, else $CUDA_PATH, else /usr/local/cuda */
        char dir[300];
        struct stat st;
        char* sl;
        const char* cp = _ak_getenv("CUDA_PATH");
        api->nvrtc_include[0] = 0;
        _ak_copy(dir, sizeof dir, api->nvrtc_path);
        if ((sl = strrchr(dir, '/')) != NULL) { *sl = 0; if ((sl = strrchr(dir, '/')) != NULL) *sl = 0; }
        _ak_appendf(dir, sizeof dir, "/include");
        if (!(stat(dir, &st) == 0 && S_ISDIR(st.st_mode))) {
            _ak_fmt(dir, sizeof dir, "%s/include", cp ? cp : "/usr/local/cuda");
            if (!(stat(dir, &st) == 0 && S_ISDIR(st.st_mode))) dir[0] = 0;
        }
        if (dir[0]) _ak_fmt(api->nvrtc_include, sizeof api->nvrtc_include, "-I%s", dir);
    }
    return 1;
}
/* NCCL / RCCL: the loader path first, then the folders where toolkits and
 * Python wheels put them (PyTorch's wheels ship libnccl.so.2 under
 * site-packages/nvidia/nccl/lib, ROCm builds of PyTorch librccl under
 * torch/lib). Patterns are expanded with glob(); `why` lists every place. */
static int _ak_load_ccl(_ak_api* api, int rccl, char* why, size_t cap) {
    enum { MAXC = 64 };
    const char* lib = rccl ? "librccl.so.1" : "libnccl.so.2";
    const char* const py_sub[] = { rccl ? "torch/lib/librccl.so.1" : "nvidia/nccl/lib/libnccl.so.2",
                                   rccl ? "torch/lib/librccl.so" : "torch/lib/libnccl.so.2", NULL };
    char pats[MAXC][512], names_buf[MAXC][512], w[512];
    const char* names[MAXC + 1];
    int np = 0, nn = 0, i, j;
    const char *path = getenv("PATH"), *e;
    if (api->lib_ccl) return 1;
#define _AK_PAT(...) do { if (np < MAXC) { _ak_fmt(pats[np], sizeof pats[np], __VA_ARGS__); np++; } } while (0)
    _AK_PAT("%s", lib);
    _AK_PAT("%s", rccl ? "librccl.so" : "libnccl.so");
    if (rccl) {
        if ((e = _ak_getenv("ROCM_PATH")) != NULL) _AK_PAT("%s/lib/librccl.so.1", e);
        _AK_PAT("/opt/rocm/lib/librccl.so.1");
        _AK_PAT("/usr/lib/x86_64-linux-gnu/librccl.so.1");
    } else {
        if ((e = _ak_getenv("CUDA_PATH")) != NULL) _AK_PAT("%s/lib64/libnccl.so.2", e);
        _AK_PAT("/usr/local/cuda/lib64/libnccl.so.2");
        _AK_PAT("/usr/local/cuda-*/lib64/libnccl.so.2");
    }
    /* Python environments: each PATH entry ending in /bin (virtual envs, conda), then the usual prefixes */
    for (i = 0; py_sub[i]; i++) {
        const char* p = path;
        while (p && *p) {
            size_t n = strcspn(p, ":");
            if (n > 4 && n < 400 && !strncmp(p + n - 4, "/bin", 4)) {
                _AK_PAT("%.*s/lib/python3*/site-packages/%s", (int)(n - 4), p, py_sub[i]);
                _AK_PAT("%.*s/lib/python3*/dist-packages/%s", (int)(n - 4), p, py_sub[i]);
            }
            p += n;
            if (*p == ':') p++;
        }
        if ((e = _ak_getenv("VIRTUAL_ENV")) != NULL) _AK_PAT("%s/lib/python3*/site-packages/%s", e, py_sub[i]);
        if ((e = _ak_getenv("CONDA_PREFIX")) != NULL) _AK_PAT("%s/lib/python3*/site-packages/%s", e, py_sub[i]);
        if ((e = _ak_getenv("HOME")) != NULL) _AK_PAT("%s/.local/lib/python3*/site-packages/%s", e, py_sub[i]);
        _AK_PAT("/usr/local/lib/python3*/dist-packages/%s", py_sub[i]);
        _AK_PAT("/usr/lib/python3/dist-packages/%s", py_sub[i]);
    }
#undef _AK_PAT
    /* drop repeated patterns (PATH often names a folder twice) */
    for (i = 0; i < np; i++)
        for (j = 0; j < i; j++)
            if (pats[j][0] && !strcmp(pats[i], pats[j])) { pats[i][0] = 0; break; }
    for (i = 0; i < np && nn < MAXC; i++) {
        glob_t g;
        size_t k;
        if (!pats[i][0]) continue;
        if (!strchr(pats[i], '/')) { _ak_copy(names_buf[nn], sizeof names_buf[nn], pats[i]); names[nn] = names_buf[nn]; nn++; continue; }
        if (glob(pats[i], 0, NULL, &g) != 0) continue;
        for (k = 0; k < g.gl_pathc && nn < MAXC; k++) {
            _ak_copy(names_buf[nn], sizeof names_buf[nn], g.gl_pathv[k]);
            names[nn] = names_buf[nn];
            nn++;
        }
        globfree(&g);
    }
    names[nn] = NULL;
    if (rccl) {
        /* the ROCm folders first (ROCM_PATH, HIP_PATH, /opt/rocm*), as for the HIP runtime */
        static const char* const rn[] = { "librccl.so.1", "librccl.so", NULL };
        char how[256];
        if (_ak_load_lib(api, &api->lib_ccl, rn, api->ccl_path, sizeof api->ccl_path, _ak_resolve_ccl, "RCCL", "ncclGetVersion",
                         w, sizeof w, how, sizeof how)) {
            api->ncclGetVersion(&api->ccl_version);
            return 1;
        }
        if (strstr(w, " lacks ")) { _ak_copy(why, cap, w); return 0; }
    }
    if (!_ak_load_lib(api, &api->lib_ccl, names, api->ccl_path, sizeof api->ccl_path, _ak_resolve_ccl,
                      rccl ? "RCCL" : "NCCL", "ncclGetVersion", w, sizeof w, NULL, 0)) {
        if (strstr(w, " lacks ")) { _ak_copy(why, cap, w); return 0; }
        _ak_fmt(why, cap, "%s (%s) not found; looked on the loader path (LD_LIBRARY_PATH, ldconfig) and in:", lib,
                rccl ? "RCCL" : "NCCL");
        for (i = 2; i < np; i++) if (pats[i][0]) _ak_appendf(why, cap, " %s", pats[i]);
        return 0;
    }
    api->ncclGetVersion(&api->ccl_version);
    return 1;
}
static void _ak_api_close(_ak_api* api) {
    if (!api) return;
    /* Libraries stay loaded: unloading GPU runtimes at exit is a known source
     * of crashes (their atexit handlers run after dlclose). */
    _ak_dealloc(api);
}

/* Attribute numbers and constants used without the headers (checked in tests/typecheck_*.c). */
enum { _AK_HIP_ATTR_CLOCK = 5, _AK_HIP_ATTR_L2 = 19, _AK_HIP_ATTR_BUS_WIDTH = 59, _AK_HIP_ATTR_MEM_CLOCK = 60,
       _AK_HIP_ATTR_MP_COUNT = 63, _AK_HIP_ATTR_SHMEM_PER_BLOCK = 74, _AK_HIP_ATTR_TOTAL_MEM = 84,
       _AK_HIP_ATTR_WARP = 87, _AK_HIP_ATTR_MAX_BLOCK_X = 26, _AK_HIP_ATTR_MAX_GRID_X = 29,
       _AK_HIP_ATTR_MAX_THREADS = 56 };
enum { _AK_CU_ATTR_SHMEM_PER_BLOCK = 8, _AK_CU_ATTR_WARP = 10, _AK_CU_ATTR_CLOCK = 13, _AK_CU_ATTR_MP_COUNT = 16,
       _AK_CU_ATTR_MEM_CLOCK = 36, _AK_CU_ATTR_BUS_WIDTH = 37, _AK_CU_ATTR_L2 = 38, _AK_CU_ATTR_CC_MAJOR = 75,
       _AK_CU_ATTR_CC_MINOR = 76, _AK_CU_ATTR_SHMEM_OPTIN = 97, _AK_CU_FUNC_MAX_DYN_SHMEM = 8,
       _AK_CU_ATTR_MAX_THREADS = 1, _AK_CU_ATTR_MAX_BLOCK_X = 2, _AK_CU_ATTR_MAX_GRID_X = 5 }; /* y, z follow x */
/* hipDeviceProp_t: where gcnArchName lives (x86-64). */
enum { _AK_HIP_PROPS_R0600_ARCH_OFFSET = 1160, _AK_HIP_PROPS_R0000_ARCH_OFFSET = 396, _AK_HIP_PROPS_BYTES = 8192 };
#ifndef AK_TYPECHECK_ONLY /* tests/typecheck_*.c stop after the entry-point lists */
/* ==========================================================================
 * >>impl:arch       architecture table rows (with sources)
 * ==========================================================================
 *
 * Conventions of the numbers in the table:
 * - One row per compiler target (gfxNNN / sm_NN). Figures are those of the
 *   row's FLAGSHIP product (named first in `source`), at its peak BOOST /
 *   peak engine clock, as the vendor's datasheet or whitepaper states them.
 * - "One device" means what the runtime enumerates as one device: the
 *   dual-die MI250X shows up as two HIP devices (one per GCD), so the gfx90a
 *   row holds one GCD's share (half the package figures, which `source`
 *   quotes). MI300X/MI355X in SPX mode and B200 are one device each.
 * - compute_units: CUs (AMD) or SMs (NVIDIA) enabled on that product.
 * - lds_bytes: the most LDS / shared memory ONE workgroup can use (NVIDIA:
 *   the opt-in maximum per block, cudaFuncAttributeMaxDynamicSharedMemorySize,
 *   from the CUDA C++ Programming Guide's compute-capability table).
 * - l2_bytes: the whole device's L2 (sum over XCDs / partitions; binary MiB,
 *   as device queries report them). AMD Infinity Cache / MALL is NOT counted.
 * - memory_bw_gbs: peak DRAM bandwidth in GB/s (10^9 bytes/s).
 * - fp32_tflops: peak vector FP32, FMA = 2 FLOPs (RDNA3/4 figures count dual
 *   issue, as AMD does; CDNA3/4 count packed FP32, as AMD does).
 * - fp16/bf16_matrix_tflops: peak DENSE (never 2:4-sparse) matrix-unit
 *   throughput with FP32 accumulation where the vendor distinguishes; 0 where
 *   the hardware has no matrix unit for that type (gfx906 and RDNA2 only have
 *   packed-FP16 vector math, which is not counted here).
 * - fp8_encoding: "FNUZ" = the E4M3FNUZ/E5M2FNUZ variants of CDNA3 (no
 *   negative zero, NaN = 0x80, exponent bias +1); "OCP" = the OCP 8-bit
 *   floating point spec (E4M3FN/E5M2) used by CDNA4, RDNA4 and NVIDIA.
 * - matrix: the instruction family amdkit's matrix path uses. sm_100's native
 *   form is tcgen05 (UMMA); it is recorded as AK_MATRIX_MMA (the mma.sync
 *   path that still runs there) since the enum has no separate value.
 * - Where a figure is not printed in a vendor document, or was revised
 *   between documents, `source` says so ("derived", "less sure").
 *
 * Recommended defaults (rec_*):
 * - CDNA3/CDNA4: bf16, aggressive, matrix cores (issue 2).
 * - CDNA2 and CDNA1: fp16, balanced, matrix cores (issue 2 for CDNA2; CDNA1's
 *   MFMA runs BF16 at half the FP16 rate, so fp16 is the better default).
 * - GCN5, RDNA2, RDNA3, RDNA4: fp32, conservative, no matrix cores (issue 2:
 *   "RDNA: fp32, conservative, no matrix cores"; gfx906/RDNA2 have none, and
 *   RDNA3/4 WMMA stays opt-in).
 * - NVIDIA Ampere and later (all rows, consumer parts included): bf16,
 *   aggressive, matrix cores. Every Ampere+ tensor core runs BF16 at the FP16
 *   rate (GeForce halves FP32-accumulate math for BOTH types equally), so
 *   BF16 costs nothing and avoids FP16's overflow at 65504; NVRTC's fast math
 *   (the aggressive level) is what CUDA users expect by default.
 */

static const ak_arch_info _ak_arch_table[] = {
    /* ---------------------------------------------------------------- AMD */
    { "gfx906", "", AK_VENDOR_AMD, AK_FAMILY_GCN5, "GCN5",
      "Radeon Instinct MI50, MI60; Radeon VII; Radeon Pro VII",
      64, 64, 0, 65536, 4194304, "HBM2", 1024.0,
      14.7, 0.0, 0.0, 0, "", AK_MATRIX_NONE,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon Instinct MI60 datasheet: 64 CUs at 1800 MHz peak, 14.7 TFLOPS FP32, "
      "32 GB HBM2 at 1024 GB/s (MI50: 60 CUs, 13.3 TFLOPS); L2 4 MB of the Vega 20 die as "
      "ROCm reports it; no matrix cores (29.5 TFLOPS packed FP16 is vector math)",
      "sramecc,xnack" },

    { "gfx908", "", AK_VENDOR_AMD, AK_FAMILY_CDNA1, "CDNA1",
      "Instinct MI100",
      120, 64, 0, 65536, 8388608, "HBM2", 1228.8,
      23.1, 184.6, 92.3, 0, "", AK_MATRIX_MFMA,
      AK_F16, AK_OPT_BALANCED, 1,
      "AMD Instinct MI100 datasheet and 'Introducing AMD CDNA Architecture' whitepaper (2020), "
      "specifications table: 120 CUs at 1502 MHz, FP32 vector 23.1, FP16 matrix 184.6, "
      "BF16 matrix 92.3 TFLOPS, 32 GB HBM2 at 1.2288 TB/s, 8 MB L2",
      "sramecc,xnack" },

    { "gfx90a", "", AK_VENDOR_AMD, AK_FAMILY_CDNA2, "CDNA2",
      "Instinct MI210, MI250, MI250X",
      110, 64, 0, 65536, 8388608, "HBM2e", 1638.4,
      23.95, 191.5, 191.5, 0, "", AK_MATRIX_MFMA,
      AK_F16, AK_OPT_BALANCED, 1,
      "AMD Instinct MI250X datasheet and 'AMD CDNA 2 Architecture' whitepaper (2021): package "
      "220 CUs at 1700 MHz, FP32 vector 47.9, FP16/BF16 matrix 383 TFLOPS, 128 GB HBM2e at "
      "3.2768 TB/s, 8 MB L2 per GCD. Row = one GCD (one HIP device) = half the package; "
      "MI210 (one GCD, 104 CUs): 22.6 FP32, 181 FP16/BF16 matrix, 1.6384 TB/s",
      "sramecc,xnack" },

    { "gfx942", "gfx940,gfx941", AK_VENDOR_AMD, AK_FAMILY_CDNA3, "CDNA3",
      "Instinct MI300A, MI300X, MI325X",
      304, 64, 0, 65536, 33554432, "HBM3", 5300.0,
      163.4, 1307.4, 1307.4, 1, "FNUZ E4M3/E5M2", AK_MATRIX_MFMA,
      AK_BF16, AK_OPT_AGGRESSIVE, 1,
      "AMD Instinct MI300X datasheet and 'AMD CDNA 3 Architecture' whitepaper (2023), MI300X "
      "column: 304 CUs at 2100 MHz, FP32 vector 163.4, FP16/BF16 dense matrix 1307.4, FP8 "
      "2614.9 TFLOPS, 192 GB HBM3 at 5.3 TB/s; L2 4 MB per XCD x 8 XCDs (HIP reports one "
      "XCD's 4 MB; 256 MB Infinity Cache not counted). MI325X: same compute, 256 GB HBM3E at "
      "6 TB/s; MI300A: 228 CUs",
      "sramecc,xnack" },

    { "gfx950", "", AK_VENDOR_AMD, AK_FAMILY_CDNA4, "CDNA4",
      "Instinct MI350X, MI355X",
      256, 64, 0, 163840, 33554432, "HBM3E", 8000.0,
      157.3, 2516.6, 2516.6, 1, "OCP E4M3/E5M2", AK_MATRIX_MFMA,
      AK_BF16, AK_OPT_AGGRESSIVE, 1,
      "AMD Instinct MI355X datasheet and 'AMD CDNA 4 Architecture' whitepaper (2025): 256 CUs "
      "at 2400 MHz, FP32 vector 157.3 TFLOPS, FP16/BF16 dense matrix 2.5 PFLOPS (2516.6 = "
      "256 CUs x 4096 FLOP/clk x 2.4 GHz), 288 GB HBM3E at 8 TB/s, 160 KB LDS per CU; "
      "L2 4 MB per XCD x 8 (256 MB Infinity Cache not counted). MI350X: 2200 MHz, 2.3 PFLOPS",
      "sramecc,xnack" },

    { "gfx1030", "", AK_VENDOR_AMD, AK_FAMILY_RDNA2, "RDNA2",
      "Radeon RX 6800, RX 6800 XT, RX 6900 XT, RX 6950 XT; Radeon PRO W6800",
      80, 32, 64, 65536, 4194304, "GDDR6", 512.0,
      23.04, 0.0, 0.0, 0, "", AK_MATRIX_NONE,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon RX 6900 XT product specifications: 80 CUs at 2250 MHz boost, 23.04 TFLOPS "
      "FP32, 16 GB GDDR6 16 Gbps x 256-bit = 512 GB/s; 'AMD RDNA 2' whitepaper: 4 MB L2 "
      "(128 MB Infinity Cache not counted); no matrix unit",
      "" },

    { "gfx1031", "", AK_VENDOR_AMD, AK_FAMILY_RDNA2, "RDNA2",
      "Radeon RX 6700 XT, RX 6750 XT, RX 6700; Radeon PRO W6600",
      40, 32, 64, 65536, 3145728, "GDDR6", 384.0,
      13.21, 0.0, 0.0, 0, "", AK_MATRIX_NONE,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon RX 6700 XT product specifications: 40 CUs at 2581 MHz boost, 13.21 TFLOPS "
      "FP32, 12 GB GDDR6 16 Gbps x 192-bit = 384 GB/s; Navi 22: 3 MB L2 (96 MB Infinity Cache "
      "not counted); no matrix unit",
      "" },

    { "gfx1032", "", AK_VENDOR_AMD, AK_FAMILY_RDNA2, "RDNA2",
      "Radeon RX 6600 XT, RX 6650 XT, RX 6600; Radeon PRO W6600M",
      32, 32, 64, 65536, 2097152, "GDDR6", 256.0,
      10.6, 0.0, 0.0, 0, "", AK_MATRIX_NONE,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon RX 6600 XT product specifications: 32 CUs at 2589 MHz boost, 10.6 TFLOPS "
      "FP32, 8 GB GDDR6 16 Gbps x 128-bit = 256 GB/s; Navi 23: 2 MB L2 (32 MB Infinity Cache "
      "not counted); no matrix unit",
      "" },

    { "gfx1034", "", AK_VENDOR_AMD, AK_FAMILY_RDNA2, "RDNA2",
      "Radeon RX 6500 XT, RX 6400",
      16, 32, 64, 65536, 1048576, "GDDR6", 144.0,
      5.77, 0.0, 0.0, 0, "", AK_MATRIX_NONE,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon RX 6500 XT product specifications: 16 CUs at 2815 MHz boost, 5.77 TFLOPS "
      "FP32, 4 GB GDDR6 18 Gbps x 64-bit = 144 GB/s; Navi 24: 1 MB L2 (16 MB Infinity Cache "
      "not counted); no matrix unit",
      "" },

    { "gfx1035", "", AK_VENDOR_AMD, AK_FAMILY_RDNA2, "RDNA2",
      "Radeon 680M, 660M (Ryzen 6000 mobile 'Rembrandt' integrated)",
      12, 32, 64, 65536, 2097152, "LPDDR5", 102.4,
      3.69, 0.0, 0.0, 0, "", AK_MATRIX_NONE,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Ryzen 9 6900HX product specifications: Radeon 680M, 12 CUs at 2400 MHz = 3.69 "
      "TFLOPS FP32 (derived); shared LPDDR5-6400 x 128-bit = 102.4 GB/s; L2 2 MB (less sure); "
      "no matrix unit",
      "" },

    { "gfx1036", "", AK_VENDOR_AMD, AK_FAMILY_RDNA2, "RDNA2",
      "AMD Radeon Graphics of Ryzen 7000/9000 desktop ('Raphael', 'Granite Ridge' integrated)",
      2, 32, 64, 65536, 262144, "DDR5", 83.2,
      0.56, 0.0, 0.0, 0, "", AK_MATRIX_NONE,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Ryzen 7000 desktop product specifications: 2 CUs at 2200 MHz = 0.56 TFLOPS FP32 "
      "(derived); shared DDR5-5200 x 128-bit = 83.2 GB/s; L2 256 KB (less sure); no matrix unit",
      "" },

    { "gfx1100", "", AK_VENDOR_AMD, AK_FAMILY_RDNA3, "RDNA3",
      "Radeon RX 7900 XTX, RX 7900 XT, RX 7900 GRE; Radeon PRO W7900, W7800",
      96, 32, 64, 65536, 6291456, "GDDR6", 960.0,
      61.4, 122.8, 122.8, 0, "", AK_MATRIX_WMMA,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon RX 7900 XTX product specifications: 96 CUs at 2500 MHz boost, 61.4 TFLOPS "
      "FP32 (dual issue), 122.8 TFLOPS FP16 (WMMA, 512 FLOP/clk/CU; BF16 same rate), 24 GB "
      "GDDR6 20 Gbps x 384-bit = 960 GB/s; AMD RDNA 3 architecture material: 6 MB L2 "
      "(96 MB Infinity Cache not counted)",
      "" },

    { "gfx1101", "", AK_VENDOR_AMD, AK_FAMILY_RDNA3, "RDNA3",
      "Radeon RX 7800 XT, RX 7700 XT; Radeon PRO W7700",
      60, 32, 64, 65536, 4194304, "GDDR6", 624.0,
      37.3, 74.6, 74.6, 0, "", AK_MATRIX_WMMA,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon RX 7800 XT product specifications: 60 CUs at 2430 MHz boost, 37.3 TFLOPS "
      "FP32 (dual issue), 74.6 TFLOPS FP16 (WMMA; BF16 same rate), 16 GB GDDR6 19.5 Gbps x "
      "256-bit = 624 GB/s; Navi 32: 4 MB L2 (64 MB Infinity Cache not counted)",
      "" },

    { "gfx1102", "", AK_VENDOR_AMD, AK_FAMILY_RDNA3, "RDNA3",
      "Radeon RX 7600, RX 7600 XT; Radeon PRO W7600",
      32, 32, 64, 65536, 2097152, "GDDR6", 288.0,
      22.6, 45.1, 45.1, 0, "", AK_MATRIX_WMMA,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon RX 7600 XT product specifications: 32 CUs at 2755 MHz boost, 22.6 TFLOPS "
      "FP32 (dual issue), 45.1 TFLOPS FP16 (WMMA; BF16 same rate), 16 GB GDDR6 18 Gbps x "
      "128-bit = 288 GB/s (RX 7600: 2655 MHz, 21.8 TFLOPS); Navi 33: 2 MB L2 (32 MB "
      "Infinity Cache not counted)",
      "" },

    { "gfx1103", "", AK_VENDOR_AMD, AK_FAMILY_RDNA3, "RDNA3",
      "Radeon 780M, 760M, 740M (Ryzen 7040/8040 'Phoenix', 'Hawk Point' integrated)",
      12, 32, 64, 65536, 2097152, "LPDDR5X", 120.0,
      8.6, 17.2, 17.2, 0, "", AK_MATRIX_WMMA,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Ryzen 9 7940HS product specifications: Radeon 780M, 12 CUs at 2800 MHz; FP32 8.6 "
      "TFLOPS (dual issue) and FP16 WMMA 17.2 (12 CUs x 512 FLOP/clk x 2.8 GHz) derived, less "
      "sure; shared LPDDR5X-7500 x 128-bit = 120 GB/s; L2 2 MB (less sure)",
      "" },

    { "gfx1150", "", AK_VENDOR_AMD, AK_FAMILY_RDNA3, "RDNA3",
      "Radeon 890M, 880M (Ryzen AI 300 'Strix Point' integrated, RDNA 3.5)",
      16, 32, 64, 65536, 2097152, "LPDDR5X", 120.0,
      11.88, 23.8, 23.8, 0, "", AK_MATRIX_WMMA,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Ryzen AI 9 HX 370 product specifications: Radeon 890M, 16 CUs at 2900 MHz; FP32 "
      "11.88 TFLOPS (dual issue) and FP16 WMMA 23.8 derived (16 x 512 x 2.9 GHz), less sure; "
      "shared LPDDR5X-7500 x 128-bit = 120 GB/s; L2 2 MB (less sure)",
      "" },

    { "gfx1151", "", AK_VENDOR_AMD, AK_FAMILY_RDNA3, "RDNA3",
      "Radeon 8060S, 8050S (Ryzen AI Max 'Strix Halo' integrated, RDNA 3.5)",
      40, 32, 64, 65536, 2097152, "LPDDR5X", 256.0,
      29.7, 59.4, 59.4, 0, "", AK_MATRIX_WMMA,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Ryzen AI Max+ 395 product specifications: Radeon 8060S, 40 CUs at 2900 MHz; FP32 "
      "29.7 TFLOPS (dual issue) and FP16 WMMA 59.4 derived (40 x 512 x 2.9 GHz); LPDDR5X-8000 "
      "x 256-bit = 256 GB/s; L2 2 MB (less sure; 32 MB MALL not counted)",
      "" },

    { "gfx1152", "", AK_VENDOR_AMD, AK_FAMILY_RDNA3, "RDNA3",
      "Radeon 860M, 840M (Ryzen AI 300 'Krackan Point' integrated, RDNA 3.5)",
      8, 32, 64, 65536, 2097152, "LPDDR5X", 128.0,
      6.1, 12.3, 12.3, 0, "", AK_MATRIX_WMMA,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Ryzen AI 7 350 product specifications: Radeon 860M, 8 CUs at 3000 MHz; FP32 6.1 "
      "TFLOPS (dual issue) and FP16 WMMA 12.3 derived (8 x 512 x 3.0 GHz), less sure; shared "
      "LPDDR5X-8000 x 128-bit = 128 GB/s; L2 2 MB (less sure)",
      "" },

    { "gfx1200", "", AK_VENDOR_AMD, AK_FAMILY_RDNA4, "RDNA4",
      "Radeon RX 9060 XT, RX 9060",
      32, 32, 64, 65536, 4194304, "GDDR6", 320.0,
      25.6, 102.6, 102.6, 1, "OCP E4M3/E5M2", AK_MATRIX_WMMA,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon RX 9060 XT product specifications: 32 CUs at 3130 MHz boost, 25.6 TFLOPS "
      "FP32 (dual issue), 16 GB GDDR6 20 Gbps x 128-bit = 320 GB/s; FP16/BF16 matrix dense "
      "102.6 derived (32 CUs x 1024 FLOP/clk x 3.13 GHz, half the sparse figure); Navi 44 "
      "L2 4 MB (less sure; 32 MB Infinity Cache not counted)",
      "" },

    { "gfx1201", "", AK_VENDOR_AMD, AK_FAMILY_RDNA4, "RDNA4",
      "Radeon RX 9070 XT, RX 9070, RX 9070 GRE; Radeon AI PRO R9700",
      64, 32, 64, 65536, 8388608, "GDDR6", 640.0,
      48.7, 194.6, 194.6, 1, "OCP E4M3/E5M2", AK_MATRIX_WMMA,
      AK_F32, AK_OPT_CONSERVATIVE, 0,
      "AMD Radeon RX 9070 XT product specifications: 64 CUs at 2970 MHz boost, 48.7 TFLOPS "
      "FP32 (dual issue), FP16/BF16 matrix 194.6 dense (389 sparse), 16 GB GDDR6 20 Gbps x "
      "256-bit = 640 GB/s; 'AMD RDNA 4' architecture material: 8 MB L2 (64 MB Infinity Cache "
      "not counted)",
      "" },

    /* ------------------------------------------------------------- NVIDIA */
    { "sm_80", "", AK_VENDOR_NVIDIA, AK_FAMILY_AMPERE, "Ampere",
      "A100 (SXM4, PCIe; 40/80 GB), A30",
      108, 32, 0, 166912, 41943040, "HBM2e", 2039.0,
      19.5, 312.0, 312.0, 0, "", AK_MATRIX_MMA,
      AK_BF16, AK_OPT_AGGRESSIVE, 1,
      "NVIDIA A100 datasheet, A100 80GB SXM column: 19.5 TFLOPS FP32, 312 TFLOPS FP16/BF16 "
      "tensor dense, 2039 GB/s HBM2e; 'NVIDIA A100 Tensor Core GPU Architecture' whitepaper: "
      "108 SMs, 40 MB L2; 163 KB shared per block (CUDA C++ Programming Guide, cc 8.0)",
      "" },

    { "sm_86", "", AK_VENDOR_NVIDIA, AK_FAMILY_AMPERE, "Ampere",
      "A40, A10; RTX A6000 and other RTX Ax000; GeForce RTX 3050 to 3090 Ti",
      84, 32, 0, 101376, 6291456, "GDDR6", 696.0,
      37.4, 149.7, 149.7, 0, "", AK_MATRIX_MMA,
      AK_BF16, AK_OPT_AGGRESSIVE, 1,
      "NVIDIA A40 datasheet: 84 SMs, 37.4 TFLOPS FP32, 149.7 TFLOPS FP16/BF16 tensor dense, "
      "48 GB GDDR6 at 696 GB/s; 'NVIDIA Ampere GA102 GPU Architecture' whitepaper: 6 MB L2 "
      "(GeForce parts run FP32-accumulate tensor math at half rate); 99 KB shared per block "
      "(CUDA C++ Programming Guide, cc 8.6)",
      "" },

    { "sm_89", "", AK_VENDOR_NVIDIA, AK_FAMILY_ADA, "Ada",
      "L40S, L40, L4; RTX 6000 Ada; GeForce RTX 4060 to 4090",
      142, 32, 0, 101376, 100663296, "GDDR6", 864.0,
      91.6, 362.05, 362.05, 1, "OCP E4M3/E5M2", AK_MATRIX_MMA,
      AK_BF16, AK_OPT_AGGRESSIVE, 1,
      "NVIDIA L40S datasheet: 142 SMs (18176 CUDA cores), 91.6 TFLOPS FP32, 362.05 TFLOPS "
      "FP16/BF16 tensor dense, 733 FP8 dense, 48 GB GDDR6 at 864 GB/s; L2 96 MB of the full "
      "AD102 ('NVIDIA Ada GPU Architecture' whitepaper; less sure the L40S enables all of it); "
      "99 KB shared per block (CUDA C++ Programming Guide, cc 8.9)",
      "" },

    { "sm_90", "sm_90a", AK_VENDOR_NVIDIA, AK_FAMILY_HOPPER, "Hopper",
      "H100 (SXM5, PCIe, NVL), H200, GH200",
      132, 32, 0, 232448, 52428800, "HBM3", 3350.0,
      67.0, 989.4, 989.4, 1, "OCP E4M3/E5M2", AK_MATRIX_WGMMA,
      AK_BF16, AK_OPT_AGGRESSIVE, 1,
      "NVIDIA H100 datasheet, H100 SXM5 80GB column: 67 TFLOPS FP32, 989 TFLOPS FP16/BF16 "
      "tensor dense (1979 sparse), 3.35 TB/s HBM3; 'NVIDIA H100 Tensor Core GPU Architecture' "
      "whitepaper: 132 SMs, 50 MB L2, 989.4 dense FP16 with FP32 accumulate; 227 KB shared per "
      "block (CUDA C++ Programming Guide, cc 9.0). Checked on an H100 80GB HBM3 with "
      "cuDeviceGetAttribute: 132 SMs, L2 52428800 B, opt-in shared 232448 B",
      "" },

    { "sm_100", "sm_100a,sm_100f", AK_VENDOR_NVIDIA, AK_FAMILY_BLACKWELL, "Blackwell",
      "B200, GB200, B100",
      148, 32, 0, 232448, 132120576, "HBM3E", 8000.0,
      75.0, 2250.0, 2250.0, 1, "OCP E4M3/E5M2", AK_MATRIX_MMA,
      AK_BF16, AK_OPT_AGGRESSIVE, 1,
      "NVIDIA HGX B200 specifications, per GPU: FP32 75 TFLOPS (an earlier Blackwell datasheet "
      "said 80; less sure), FP16/BF16 tensor 2.25 PFLOPS dense (4.5 sparse), 180-192 GB HBM3E "
      "at 8 TB/s (some tables: 7.7); 148 SMs and 126 MB L2 as CUDA device queries report them "
      "(not in a datasheet; less sure); 227 KB shared per block (CUDA C++ Programming Guide, "
      "cc 10.0); native tensor ISA is tcgen05, recorded as MMA",
      "" },

    { "sm_120", "sm_120a,sm_120f", AK_VENDOR_NVIDIA, AK_FAMILY_BLACKWELL, "Blackwell",
      "RTX PRO 6000 Blackwell; GeForce RTX 5050 to 5090",
      188, 32, 0, 101376, 134217728, "GDDR7", 1792.0,
      125.0, 500.0, 500.0, 1, "OCP E4M3/E5M2", AK_MATRIX_MMA,
      AK_BF16, AK_OPT_AGGRESSIVE, 1,
      "NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet: 188 SMs, 125 TFLOPS FP32, "
      "96 GB GDDR7 at 1792 GB/s, 4000 AI TOPS (FP4 sparse); FP16/BF16 tensor dense ~500 "
      "derived as 4000 / 8 (less sure); 'NVIDIA RTX Blackwell GPU Architecture' whitepaper: "
      "GB202 128 MB L2 (RTX 5090: 170 SMs, 104.8 TFLOPS, 96 MB L2, half-rate FP32-accumulate "
      "tensor math); 99 KB shared per block (CUDA C++ Programming Guide, cc 12.0)",
      "" }
};

#define _AK_ARCH_ROWS ((int)(sizeof _ak_arch_table / sizeof _ak_arch_table[0]))

/* 1 if the comma-separated `list` holds `name` (exact, both lower case). */
static int _ak_arch_list_has(const char* list, const char* name, size_t n) {
    const char* p = list;
    while (p && *p) {
        const char* comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0) return 1;
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* "gfx906, gfx908, ... (aliases: gfx940/gfx941 -> gfx942, ...)" into buf. */
static void _ak_arch_known_names(char* buf, size_t cap) {
    int i, first = 1;
    buf[0] = 0;
    for (i = 0; i < _AK_ARCH_ROWS; i++)
        _ak_appendf(buf, cap, "%s%s", i ? ", " : "", _ak_arch_table[i].name);
    for (i = 0; i < _AK_ARCH_ROWS; i++) {
        const char* p = _ak_arch_table[i].aliases;
        int k = 0;
        if (!p || !*p) continue;
        _ak_appendf(buf, cap, "%s", first ? " (aliases: " : ", ");
        first = 0;
        while (p && *p) {
            const char* comma = strchr(p, ',');
            int len = comma ? (int)(comma - p) : (int)strlen(p);
            _ak_appendf(buf, cap, "%s%.*s", k++ ? "/" : "", len, p);
            p = comma ? comma + 1 : NULL;
        }
        _ak_appendf(buf, cap, " -> %s", _ak_arch_table[i].name);
    }
    if (!first) _ak_appendf(buf, cap, ")");
}

AKDEF ak_result ak_arch_find(const char* name, const ak_arch_info** out) {
    char key[128];
    char known[768];
    size_t len = 0, n = 0, start = 0, i;
    static const char amdhsa_prefix[] = "amdgcn-amd-amdhsa--";
    int r;
    if (out) *out = NULL;
    if (!name)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT,
                       "ak_arch_find: name is NULL, expected a target name such as \"gfx90a\" or \"sm_90\"");
    if (!out)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_arch_find(\"%.64s\"): out is NULL, expected a pointer to receive the row", name);
    while (len < sizeof key && name[len]) len++;
    if (len >= sizeof key)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT,
                       "ak_arch_find: name \"%.40s...\" is longer than %d characters, expected a target "
                       "name such as \"gfx90a:sramecc+:xnack-\"", name, (int)sizeof key - 1);
    /* Lower-case the part before the first ':' (feature suffixes such as
     * ":sramecc+:xnack-" do not change the table row), trimming blanks. */
    while (start < len && isspace((unsigned char)name[start])) start++;
    for (i = start; i < len && name[i] != ':'; i++) key[n++] = (char)tolower((unsigned char)name[i]);
    while (n > 0 && isspace((unsigned char)key[n - 1])) n--;
    key[n] = 0;
    /* Accept comgr's full ISA names ("amdgcn-amd-amdhsa--gfx90a:xnack-"). */
    if (n > sizeof amdhsa_prefix - 1 && memcmp(key, amdhsa_prefix, sizeof amdhsa_prefix - 1) == 0) {
        n -= sizeof amdhsa_prefix - 1;
        memmove(key, key + sizeof amdhsa_prefix - 1, n + 1);
    }
    if (n > 0) {
        for (r = 0; r < _AK_ARCH_ROWS; r++) {
            const ak_arch_info* row = &_ak_arch_table[r];
            if ((strlen(row->name) == n && memcmp(row->name, key, n) == 0) ||
                _ak_arch_list_has(row->aliases, key, n)) {
                *out = row;
                return AK_OK;
            }
        }
        /* a family name: its first row (the representative) */
        for (r = 0; r < _AK_ARCH_ROWS; r++)
            if (_ak_streq_ci(_ak_arch_table[r].family_name, key)) { *out = &_ak_arch_table[r]; return AK_OK; }
    }
    _ak_arch_known_names(known, sizeof known);
    if (n == 0)
        return _ak_err(AK_ERROR_NOT_FOUND, "ak_arch_find: architecture name \"%s\" is empty (no target before any ':' feature suffix); known: %s", name, known);
    return _ak_err(AK_ERROR_NOT_FOUND, "ak_arch_find: unknown architecture \"%s\" (looked up as \"%s\"); known: %s",
                   name, key, known);
}

AKDEF ak_result ak_target_id_parse(const char* id, ak_target_id* out) {
    static const char* const feats[2] = { "sramecc", "xnack" };
    const ak_arch_info* row = NULL;
    const char* p;
    size_t n, i;
    int last = -1;
    if (out) memset(out, 0, sizeof *out);
    if (!id || !out)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_target_id_parse: %s is NULL", id ? "out" : "the target ID");
    out->sramecc = out->xnack = -1;
    n = strcspn(id, ":");
    if (n == 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "target ID '%.80s' has no processor before its first ':' (expected e.g. gfx90a or gfx90a:sramecc+:xnack-)", id);
    if (n >= sizeof out->processor)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "target ID '%.40s...': the processor name is over %d characters", id, (int)sizeof out->processor - 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)id[i];
        if (!(isalnum(c) || c == '_' || c == '-'))
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "target ID '%.80s': character 0x%02x in the processor name (expected letters, digits, '_', '-': gfx90a, sm_90)", id, c);
        out->processor[i] = (char)tolower(c);
    }
    out->processor[n] = 0;
    if (strncmp(out->processor, "gfx", 3) != 0 && strncmp(out->processor, "sm_", 3) != 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "target ID '%.80s': the processor '%s' is neither an AMD gfx name (gfx90a) nor an NVIDIA sm_ name (sm_90)", id, out->processor);
    for (i = 0; i < (size_t)_AK_ARCH_ROWS && !row; i++) {
        const ak_arch_info* a = &_ak_arch_table[i];
        if (!strcmp(a->name, out->processor) || _ak_arch_list_has(a->aliases, out->processor, n)) row = a;
    }
    out->info = row;
    _ak_copy(out->canonical, sizeof out->canonical, out->processor);
    for (p = id + n; *p == ':';) {
        const char* f = p + 1;
        size_t fl = strcspn(f, ":");
        int which = -1, sign, k;
        for (k = 0; k < 2; k++)
            if (fl == strlen(feats[k]) + 1 && !strncmp(f, feats[k], fl - 1)) which = k;
        if (which < 0 || (f[fl - 1] != '+' && f[fl - 1] != '-'))
            return _ak_err(AK_ERROR_INVALID_ARGUMENT,
                           "target ID '%.80s': '%.*s' is not a target feature (expected sramecc+, sramecc-, xnack+ or xnack-, "
                           "in that order, after the processor: gfx90a:sramecc+:xnack-)", id, (int)(fl > 40 ? 40 : fl), f);
        sign = f[fl - 1] == '+';
        if (which == last)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "target ID '%.80s': feature %s is given twice", id, feats[which]);
        if (which < last)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "target ID '%.80s': features out of order (sramecc comes before xnack: %s:sramecc+:xnack-)",
                           id, out->processor);
        if (which == 0) out->sramecc = sign; else out->xnack = sign;
        if (!row || !_ak_arch_list_has(row->features, feats[which], strlen(feats[which])))
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "target ID '%.80s': %s %s no %s feature (%s)", id, out->processor,
                           row ? "has" : "is not in amdkit's architecture table, so it takes", feats[which],
                           row ? (row->features[0] ? "its features: sramecc, xnack" : "it takes no target features")
                               : "features are checked against the table");
        last = which;
        if (strlen(out->canonical) + fl + 2 > sizeof out->canonical)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "target ID '%.80s' is too long", id);
        _ak_appendf(out->canonical, sizeof out->canonical, ":%.*s", (int)fl, f);
        p = f + fl;
    }
    return AK_OK;
}

AKDEF int ak_arch_count(void) { return _AK_ARCH_ROWS; }

AKDEF const ak_arch_info* ak_arch_at(int i) {
    if (i < 0 || i >= _AK_ARCH_ROWS) return NULL;
    return &_ak_arch_table[i];
}

AKDEF const char* ak_family_name(ak_family f) {
    static const char* const names[AK_FAMILY_COUNT] = {
        "GCN5", "CDNA1", "CDNA2", "CDNA3", "CDNA4", "RDNA2", "RDNA3", "RDNA4",
        "Ampere", "Ada", "Hopper", "Blackwell"
    };
    if ((int)f < 0 || (int)f >= (int)AK_FAMILY_COUNT) return "?";
    return names[(int)f];
}

AKDEF const char* ak_matrix_isa_name(ak_matrix_isa m) {
    static const char* const names[] = { "none", "MFMA", "WMMA", "MMA", "WGMMA" };
    if ((int)m < 0 || (int)m >= (int)(sizeof names / sizeof names[0])) return "?";
    return names[(int)m];
}
/* ==========================================================================
 * >>impl:hash  SHA-256 (disk cache keys and checksums) and a fast 128-bit
 * non-cryptographic hash (memory cache keys)
 * ========================================================================== */

/* ---- SHA-256 (FIPS 180-4) ------------------------------------------------
 * Incremental: _ak_sha256_init, _ak_sha256_update (any number of times, any
 * chunk sizes), _ak_sha256_final; or one shot with _ak_sha256. */
typedef struct _ak_sha256_ctx {
    uint32_t h[8];       /* chaining value */
    uint64_t total;      /* bytes hashed so far */
    uint8_t block[64];   /* partial block */
    size_t fill;         /* bytes in block */
} _ak_sha256_ctx;

/* Round constants: first 32 bits of the fractional parts of the cube roots
 * of the first 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t _ak_sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u
};

static uint32_t _ak_ror32(uint32_t x, unsigned n) { return (x >> n) | (x << (32u - n)); }

/* One 64-byte block into the chaining value. */
static void _ak_sha256_block(uint32_t h[8], const uint8_t* p) {
    uint32_t w[64];
    uint32_t a, b, c, d, e, f, g, k, t1, t2;
    int i;
    for (i = 0; i < 16; i++)
        w[i] = ((uint32_t)p[4 * i] << 24) | ((uint32_t)p[4 * i + 1] << 16) | ((uint32_t)p[4 * i + 2] << 8) |
               (uint32_t)p[4 * i + 3];
    for (i = 16; i < 64; i++) {
        uint32_t s0 = _ak_ror32(w[i - 15], 7) ^ _ak_ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = _ak_ror32(w[i - 2], 17) ^ _ak_ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4]; f = h[5]; g = h[6]; k = h[7];
    for (i = 0; i < 64; i++) {
        uint32_t big1 = _ak_ror32(e, 6) ^ _ak_ror32(e, 11) ^ _ak_ror32(e, 25);
        uint32_t choose = (e & f) ^ (~e & g);
        uint32_t big0 = _ak_ror32(a, 2) ^ _ak_ror32(a, 13) ^ _ak_ror32(a, 22);
        uint32_t major = (a & b) ^ (a & c) ^ (b & c);
        t1 = k + big1 + choose + _ak_sha256_k[i] + w[i];
        t2 = big0 + major;
        k = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

static void _ak_sha256_init(_ak_sha256_ctx* s) {
    /* Initial value: fractional parts of the square roots of the first 8 primes. */
    s->h[0] = 0x6a09e667u; s->h[1] = 0xbb67ae85u; s->h[2] = 0x3c6ef372u; s->h[3] = 0xa54ff53au;
    s->h[4] = 0x510e527fu; s->h[5] = 0x9b05688cu; s->h[6] = 0x1f83d9abu; s->h[7] = 0x5be0cd19u;
    s->total = 0;
    s->fill = 0;
}

static void _ak_sha256_update(_ak_sha256_ctx* s, const void* data, size_t n) {
    const uint8_t* p = (const uint8_t*)data;
    if (!n) return;
    s->total += (uint64_t)n;
    if (s->fill) {
        size_t take = 64 - s->fill;
        if (take > n) take = n;
        memcpy(s->block + s->fill, p, take);
        s->fill += take; p += take; n -= take;
        if (s->fill < 64) return;
        _ak_sha256_block(s->h, s->block);
        s->fill = 0;
    }
    while (n >= 64) {
        _ak_sha256_block(s->h, p);
        p += 64; n -= 64;
    }
    if (n) { memcpy(s->block, p, n); s->fill = n; }
}

static void _ak_sha256_final(_ak_sha256_ctx* s, uint8_t out[32]) {
    uint64_t bits = s->total * 8u;
    int i;
    /* Padding: 0x80, zeros up to 56 mod 64, then the bit length big-endian. */
    s->block[s->fill++] = 0x80;
    if (s->fill > 56) {
        memset(s->block + s->fill, 0, 64 - s->fill);
        _ak_sha256_block(s->h, s->block);
        s->fill = 0;
    }
    memset(s->block + s->fill, 0, 56 - s->fill);
    for (i = 0; i < 8; i++) s->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    _ak_sha256_block(s->h, s->block);
    for (i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
    memset(s, 0, sizeof *s);
}

static void _ak_sha256(const void* data, size_t n, uint8_t out[32]) {
    _ak_sha256_ctx s;
    _ak_sha256_init(&s);
    _ak_sha256_update(&s, data, n);
    _ak_sha256_final(&s, out);
}

/* Lower-case hex of n bytes into out (2n characters + terminator). */
static void _ak_hex(const uint8_t* p, size_t n, char* out) {
    static const char digits[] = "0123456789abcdef";
    size_t i;
    for (i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = 0;
}

/* ---- fast 128-bit hash ---------------------------------------------------
 * Non-cryptographic, for the in-memory cache index only (the memory level
 * compares the full key on a hit, so a collision costs nothing but a
 * comparison). Its value may differ between machines (byte order) and
 * builds: never store it.
 *
 * Design: four independent 64-bit lanes each take 16 bytes per 64-byte
 * stripe; a lane absorbs its two words with one 64x64->128 multiply whose
 * halves are folded by xor (the product of (word0 ^ lane constant) and
 * (word1 ^ lane state)), plus the old state added back so a zero factor
 * never erases what the lane has seen. The four lanes run in parallel (no
 * dependency between them), so the loop costs about one multiply latency per
 * 64 bytes. The tail (< 64 bytes) goes 16 bytes at a time into the lanes, the
 * last partial block zero-padded; the length enters the finalization, so
 * padding cannot alias. Finalization folds the lanes pairwise through two
 * more multiplies and mixes each output half once more.
 *
 * Constants: fractional parts of the square roots of the first eight primes
 * (the SHA-512 initial value), i.e. nothing chosen for a purpose. */
typedef struct _ak_h128 { uint64_t lo, hi; } _ak_h128;

#define _AK_HK0 0x6a09e667f3bcc908ull
#define _AK_HK1 0xbb67ae8584caa73bull
#define _AK_HK2 0x3c6ef372fe94f82bull
#define _AK_HK3 0xa54ff53a5f1d36f1ull
#define _AK_HK4 0x510e527fade682d1ull
#define _AK_HK5 0x9b05688c2b3e6c1full
#define _AK_HK6 0x1f83d9abfb41bd6bull
#define _AK_HK7 0x5be0cd19137e2179ull

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 _ak_u128;
/* 64x64 -> 128 multiply, high and low halves folded by xor. */
static uint64_t _ak_mulfold(uint64_t a, uint64_t b) {
    _ak_u128 r = (_ak_u128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}
#else
static uint64_t _ak_mulfold(uint64_t a, uint64_t b) {
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    uint64_t lo = (ll & 0xffffffffu) | (mid << 32);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return lo ^ hi;
}
#endif

static uint64_t _ak_rd64(const uint8_t* p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint64_t _ak_rotl64(uint64_t x, unsigned n) { return (x << n) | (x >> (64u - n)); }

/* Final mix of one 64-bit half: xor-shift, multiply by an odd constant, twice. */
static uint64_t _ak_h64_settle(uint64_t x) {
    x ^= x >> 31;
    x *= (_AK_HK5 | 1u);
    x ^= x >> 29;
    x *= (_AK_HK2 | 1u);
    x ^= x >> 32;
    return x;
}

/* 128-bit hash of n bytes, seeded (chain fields by passing the previous
 * result as the seed). */
static _ak_h128 _ak_hash128_seeded(const void* data, size_t n, _ak_h128 seed) {
    const uint8_t* p = (const uint8_t*)data;
    uint64_t s0 = seed.lo ^ _AK_HK0, s1 = seed.hi ^ _AK_HK1;
    uint64_t s2 = _ak_rotl64(seed.lo, 32) ^ _AK_HK2, s3 = _ak_rotl64(seed.hi, 32) ^ _AK_HK3;
    size_t left = n;
    _ak_h128 out;
    uint64_t u, v;
    while (left >= 64) {
        s0 = _ak_mulfold(_ak_rd64(p) ^ _AK_HK4, _ak_rd64(p + 8) ^ s0) + s0;
        s1 = _ak_mulfold(_ak_rd64(p + 16) ^ _AK_HK5, _ak_rd64(p + 24) ^ s1) + s1;
        s2 = _ak_mulfold(_ak_rd64(p + 32) ^ _AK_HK6, _ak_rd64(p + 40) ^ s2) + s2;
        s3 = _ak_mulfold(_ak_rd64(p + 48) ^ _AK_HK7, _ak_rd64(p + 56) ^ s3) + s3;
        p += 64; left -= 64;
    }
    /* 0..3 whole 16-byte blocks into lanes 0..2, then the zero-padded rest into lane 3. */
    if (left >= 16) { s0 = _ak_mulfold(_ak_rd64(p) ^ _AK_HK4, _ak_rd64(p + 8) ^ s0) + s0; p += 16; left -= 16; }
    if (left >= 16) { s1 = _ak_mulfold(_ak_rd64(p) ^ _AK_HK5, _ak_rd64(p + 8) ^ s1) + s1; p += 16; left -= 16; }
    if (left >= 16) { s2 = _ak_mulfold(_ak_rd64(p) ^ _AK_HK6, _ak_rd64(p + 8) ^ s2) + s2; p += 16; left -= 16; }
    if (left) {
        uint8_t tail[16];
        memset(tail, 0, sizeof tail);
        memcpy(tail, p, left);
        s3 = _ak_mulfold(_ak_rd64(tail) ^ _AK_HK7, _ak_rd64(tail + 8) ^ s3) + s3;
    }
    u = _ak_mulfold(s0 ^ _AK_HK6 ^ (uint64_t)n, s1 ^ _AK_HK3);
    v = _ak_mulfold(s2 ^ _AK_HK7 ^ _ak_rotl64(u, 23), s3 ^ _AK_HK1 ^ (uint64_t)n * _AK_HK0);
    out.lo = _ak_h64_settle(u + v);
    out.hi = _ak_h64_settle(v ^ _ak_rotl64(u, 41) ^ _AK_HK4);
    return out;
}

#ifdef AMDKIT_TESTS   /* test-only (tests/ti_cache.c) */
static _ak_h128 _ak_hash128(const void* data, size_t n) {
    _ak_h128 zero;
    zero.lo = 0; zero.hi = 0;
    return _ak_hash128_seeded(data, n, zero);
}
#endif
/* ==========================================================================
 * >>impl:cache  two-level compile cache: memory LRU + disk
 *
 * Memory level: entries keyed by the fast 128-bit hash of every key field
 * (device_tag included); the entry keeps the full key material and a hit
 * compares it, so a hash collision can never hand back another kernel's code.
 * Index: chained hash map (grows by doubling) + doubly linked LRU list
 * (head = most recently used). Entries are reference counted: the index
 * holds one reference, every caller of _ak_cache_get one more; an entry
 * evicted while a caller holds it lives until the last release, and only
 * then is its loaded handle passed to `unload`.
 *
 * Single flight: a miss inserts a PENDING entry and compiles outside the
 * lock; other threads asking for the same key find it and wait on the
 * cache's condition variable. Different keys never wait for each other's
 * compiles: the lock covers map/list operations and counters only; compile,
 * load and disk I/O run outside it. A failed compile wakes the waiters with
 * its error code and message, and the entry leaves the index (not cached).
 *
 * Disk level: file dir/<2 hex>/<64 hex>.akc named by the SHA-256 of a
 * canonical, length-prefixed text of (format version, amdkit version,
 * backend, compiler, arch, kernel name, options, source); device_tag is not
 * part of it (a code object does not depend on which device of one arch
 * loads it). File layout (little-endian):
 *     0  magic "AKCACHE\0"          8 bytes
 *     8  format version             u32
 *    12  header size (88)           u32
 *    16  key digest                 32 bytes
 *    48  payload size               u64
 *    56  SHA-256 of the payload     32 bytes
 *    88  payload
 * Written to a temp file in the same folder and renamed over the final name
 * (atomic between processes); a reader verifies everything and removes what
 * does not verify. A disk hit refreshes the file's mtime, so the size cap
 * (after each write: delete the oldest files until under cache_max_bytes)
 * evicts the least recently used.
 *
 * Counting: a lookup is a memory hit (also a thread that waited for another
 * thread's compile of the same key), a disk hit or a miss; compilations
 * counts compiler runs, failed ones included. With the cache disabled
 * (cache_enabled 0) or bypassed (get's `bypass`, ak_compile_options.no_cache)
 * every get compiles into a private entry freed on release: only
 * compilations and compile_ms count, nothing is read or written on disk.
 * _ak_cache_destroy frees every cached entry: release yours first.
 * ========================================================================== */

#define _AK_CACHE_FORMAT 1u
#define _AK_CACHE_HDR 88u
#define _AK_CACHE_PATH_MAX 4096
#define _AK_CACHE_MAX_ENTRY_DEFAULT (64ll << 20)

typedef struct _ak_cache_key {
    const char* source; size_t source_len;   /* source_len 0: strlen(source) */
    const char* kernel_name;
    const char* options;          /* canonical options: sorted, one per line (the caller builds it) */
    const char* arch;             /* full arch string, e.g. "gfx90a:sramecc+:xnack-" or "sm_90" */
    const char* backend;          /* "hip" / "cuda" */
    const char* compiler;         /* compiler + version, e.g. "hipRTC 50221153" */
    const char* device_tag;       /* memory level only: identity of the context/device ("offline" for offline) */
    const struct _ak_cache_prefix* prefix;  /* optional: every field but the source measured and hashed once
                                               (_ak_cache_prefix_make on the same fields); NULL: done per call */
} _ak_cache_key;

typedef struct _ak_cache_ops {
    void* user;
    /* compile: on success *data (from _ak_alloc) and *size; on failure return the code (the error message and compiler
       log are already recorded on this thread by the callee) */
    ak_result (*compile)(void* user, void** data, size_t* size);
    /* optional (NULL: no loading): make a loaded handle (module + function) kept with the memory entry */
    ak_result (*load)(void* user, const void* data, size_t size, void** loaded);
    /* optional (NULL: any payload): check a payload read from disk before `load` sees it (is it a code object for this
       target?); 0 ok, else a reason in why[cap]; a refused payload is removed and recompiled */
    int (*verify)(void* user, const void* data, size_t size, char* why, size_t cap);
    /* optional: what log messages call the code when the key's kernel name is empty (a whole-source entry) */
    const char* name;
    const char* source_name;
} _ak_cache_ops;

typedef struct _ak_cache _ak_cache;
typedef struct _ak_cache_entry _ak_cache_entry;

/* Key fields in the order the memory hash and the comparison take them. */
enum { _AK_KF_SOURCE, _AK_KF_NAME, _AK_KF_OPTIONS, _AK_KF_ARCH, _AK_KF_BACKEND, _AK_KF_COMPILER, _AK_KF_DEVICE,
       _AK_KF_COUNT };
/* The key fields after the source, measured and hashed once (_ak_cache_prefix_make). */
typedef struct _ak_cache_prefix {
    size_t l[_AK_KF_COUNT];   /* lengths of the fields after the source */
    _ak_h128 seed;            /* their hash: the seed of the source's */
} _ak_cache_prefix;
enum { _AK_CE_PENDING = 0, _AK_CE_READY = 1, _AK_CE_FAILED = 2 };

struct _ak_cache_entry {
    _ak_h128 hash;                     /* memory key */
    _ak_cache_entry* hnext;            /* hash chain (also the free list while dying) */
    _ak_cache_entry* prev;             /* LRU, towards head (more recent) */
    _ak_cache_entry* next;             /* LRU, towards tail (older) */
    int refs;                          /* index (1 while indexed) + callers */
    int state;                         /* _AK_CE_* */
    int indexed;                       /* in the map and the LRU list */
    const char* kf[_AK_KF_COUNT];      /* full key material (copies, in this allocation) */
    size_t kl[_AK_KF_COUNT];
    void* data;                        /* code object (from _ak_alloc) */
    size_t size;
    void* loaded;                      /* ops->load's handle, or NULL */
    double compile_ms;                 /* compile time of this code (0 when it came from disk) */
    ak_result err;                     /* FAILED: the compile's code and detail, for waiters */
    char* err_msg;
    char* err_log;
    char* err_opts;
    char* err_src;
};

struct _ak_cache {
    _ak_mutex lock;
    _ak_cond cond;                     /* broadcast when a pending entry completes */
    _ak_logger log;
    void (*unload)(void* unload_user, void* loaded);
    void* unload_user;
    int enabled;                       /* cfg->cache_enabled */
    int capacity;                      /* memory entries */
    int disk;                          /* disk level usable */
    long long max_bytes;               /* disk cap, 0 = none */
    long long max_entry;               /* cfg->cache_max_entry_bytes: larger files are never read */
    int trusted;                       /* cfg->cache_trusted: skip the owner/mode checks */
    int cap_warned;                    /* the 'cap smaller than one entry' warning was given */
    char dir[_AK_CACHE_PATH_MAX];      /* resolved directory ("" if none could be formed) */
    _ak_cache_entry** buckets;
    size_t nbuckets;                   /* power of two */
    int count;                         /* indexed entries */
    _ak_cache_entry* head;             /* most recently used */
    _ak_cache_entry* tail;             /* least recently used */
    unsigned long long compilations, memory_hits, disk_hits, misses, evictions, disk_errors;
    double compile_ms;
};

static void _ak_cache_entry_release(_ak_cache* c, _ak_cache_entry* e);

/* ---- directory resolution (no I/O) --------------------------------------- */

/* 0 ok, 1 nothing could be formed, 2 buffer too small (*need set). */
static int _ak_cache_resolve_dir(const ak_config* cfg, char* buf, size_t n, size_t* need) {
    const char* base = NULL;
    const char* suffix = "";
    const char* v;
    size_t len;
    if (cfg && cfg->cache_dir && cfg->cache_dir[0]) {
        base = cfg->cache_dir;
    } else if ((v = _ak_getenv("AMDKIT_CACHE_DIR")) != NULL) {
        base = v;
    } else if ((v = _ak_getenv("XDG_CACHE_HOME")) != NULL && v[0] == '/') {
        /* the XDG spec says to ignore relative values */
        base = v; suffix = "/amdkit";
    } else if ((v = _ak_getenv("HOME")) != NULL) {
        base = v; suffix = "/.cache/amdkit";
    }
    if (!base) return 1;
    len = strlen(base);
    /* drop trailing slashes (but keep "/") */
    while (len > 1 && base[len - 1] == '/') len--;
    /* a relative directory is taken against the current directory now (the
     * context keeps the absolute path: a later chdir does not move the cache) */
    if (base[0] != '/') {
        char cwd[4096];
        size_t cl;
        if (!getcwd(cwd, sizeof cwd)) return 1;
        cl = strlen(cwd);
        if (cl == 1) cl = 0;                 /* "/" */
        if (need) *need = cl + 1 + len + strlen(suffix) + 1;
        if (cl + 1 + len + strlen(suffix) + 1 > n) return 2;
        memcpy(buf, cwd, cl);
        buf[cl] = '/';
        memcpy(buf + cl + 1, base, len);
        memcpy(buf + cl + 1 + len, suffix, strlen(suffix) + 1);
        return 0;
    }
    if (need) *need = len + strlen(suffix) + 1;
    if (len + strlen(suffix) + 1 > n) return 2;
    memcpy(buf, base, len);
    memcpy(buf + len, suffix, strlen(suffix) + 1);
    return 0;
}

AKDEF ak_result ak_cache_dir(const ak_config* cfg, char* buf, size_t buf_size) {
    size_t need = 0;
    int r;
    if (!buf || !buf_size)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_cache_dir: buf is %s and buf_size is %lu, expected a buffer",
                       buf ? "set" : "NULL", (unsigned long)buf_size);
    r = _ak_cache_resolve_dir(cfg, buf, buf_size, &need);
    if (r == 1) {
        buf[0] = 0;
        return _ak_err(AK_ERROR_NOT_FOUND, "ak_cache_dir: no cache directory: cache_dir, AMDKIT_CACHE_DIR, "
                       "XDG_CACHE_HOME (absolute) and HOME are all unset");
    }
    if (r == 2) {
        buf[0] = 0;
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_cache_dir: buffer of %lu bytes too small, %lu needed",
                       (unsigned long)buf_size, (unsigned long)need);
    }
    return AK_OK;
}

/* ---- small file helpers --------------------------------------------------- */

static void _ak_put_u32le(uint8_t* p, uint32_t v) { int i; for (i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void _ak_put_u64le(uint8_t* p, uint64_t v) { int i; for (i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint32_t _ak_get_u32le(const uint8_t* p) {
    uint32_t v = 0; int i;
    for (i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint64_t _ak_get_u64le(const uint8_t* p) {
    uint64_t v = 0; int i;
    for (i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* Read/write exactly n bytes (retrying on EINTR / short transfers). 0 ok, -1 error, 1 end of file (read). */
static int _ak_read_full(int fd, void* buf, size_t n) {
    uint8_t* p = (uint8_t*)buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        if (r == 0) return 1;
        p += r; n -= (size_t)r;
    }
    return 0;
}
static int _ak_write_full(int fd, const void* buf, size_t n) {
    const uint8_t* p = (const uint8_t*)buf;
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        if (r == 0) { errno = EIO; return -1; }
        p += r; n -= (size_t)r;
    }
    return 0;
}

/* mkdir -p. 0 ok (path is a directory), else -1 with errno set. */
static int _ak_mkdir_p(const char* path) {
    char buf[_AK_CACHE_PATH_MAX];
    size_t i, n = strlen(path);
    struct stat st;
    if (!n || n >= sizeof buf) { errno = ENAMETOOLONG; return -1; }
    memcpy(buf, path, n + 1);
    for (i = 1; i < n; i++) {
        if (buf[i] != '/') continue;
        buf[i] = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) { errno = e; return -1; }
        }
        buf[i] = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) { errno = ENOTDIR; return -1; }
    return 0;
}

/* Process-wide counter for unique temp names (with pid and thread). */
static pthread_mutex_t _ak_cache_tmp_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long _ak_cache_tmp_counter;
static void _ak_cache_tmp_name(char* out, size_t cap, const char* dir_or_shard, const char* stem) {
    unsigned long long ctr, tid = 0;
    pthread_t self = pthread_self();
    memcpy(&tid, &self, sizeof self < sizeof tid ? sizeof self : sizeof tid);
    pthread_mutex_lock(&_ak_cache_tmp_lock);
    ctr = ++_ak_cache_tmp_counter;
    pthread_mutex_unlock(&_ak_cache_tmp_lock);
    snprintf(out, cap, "%s/%s.%ld.%llx.%llu.tmp", dir_or_shard, stem, (long)getpid(), tid, ctr);
}

static int _ak_has_suffix(const char* s, const char* suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !memcmp(s + a - b, suf, b);
}
static int _ak_is_shard_name(const char* s) {
    return isxdigit((unsigned char)s[0]) && isxdigit((unsigned char)s[1]) && s[2] == 0;
}

/* ---- key digests ------------------------------------------------------------ */

/* Normalized key fields (NULL -> ""). */
static void _ak_cache_key_fields(const _ak_cache_key* k, const char* f[_AK_KF_COUNT], size_t l[_AK_KF_COUNT]) {
    int i;
    f[_AK_KF_SOURCE] = k->source;
    l[_AK_KF_SOURCE] = k->source_len ? k->source_len : strlen(k->source);
    f[_AK_KF_NAME] = k->kernel_name;
    f[_AK_KF_OPTIONS] = k->options;
    f[_AK_KF_ARCH] = k->arch;
    f[_AK_KF_BACKEND] = k->backend;
    f[_AK_KF_COMPILER] = k->compiler;
    f[_AK_KF_DEVICE] = k->device_tag;
    for (i = 1; i < _AK_KF_COUNT; i++) {
        if (!f[i]) f[i] = "";
        l[i] = k->prefix ? k->prefix->l[i] : strlen(f[i]);
    }
}

/* Memory key: the fast hash chained over every field but the source, then
 * over the source (each field's length is mixed in by the hash, so field
 * boundaries cannot shift). The fields before the source are the same for
 * every kernel a context compiles with the same options: a caller that
 * keeps them (ak_kernel_get's options memo) hashes them once
 * (_ak_cache_prefix_make) and a memory hit hashes the source alone. */
static _ak_h128 _ak_cache_prefix_seed(const char* const f[_AK_KF_COUNT], const size_t l[_AK_KF_COUNT]) {
    _ak_h128 h;
    int i;
    h.lo = (uint64_t)_AK_CACHE_FORMAT; h.hi = 0;
    for (i = 0; i < _AK_KF_COUNT; i++)
        if (i != _AK_KF_SOURCE) h = _ak_hash128_seeded(f[i], l[i], h);
    return h;
}
static _ak_h128 _ak_cache_mem_hash(const char* const f[_AK_KF_COUNT], const size_t l[_AK_KF_COUNT]) {
    return _ak_hash128_seeded(f[_AK_KF_SOURCE], l[_AK_KF_SOURCE], _ak_cache_prefix_seed(f, l));
}
/* The prefix of `k` (its source is not read). */
static void _ak_cache_prefix_make(const _ak_cache_key* k, _ak_cache_prefix* p) {
    const char* f[_AK_KF_COUNT];
    _ak_cache_key k2 = *k;
    k2.source = "";
    k2.source_len = 0;
    k2.prefix = NULL;
    _ak_cache_key_fields(&k2, f, p->l);
    p->seed = _ak_cache_prefix_seed(f, p->l);
}

/* Disk key: SHA-256 over a canonical text, each field length-prefixed:
 *   "amdkit-cache-key\nformat 1\namdkit 0.1.0\n" then "<tag> <len>\n<bytes>\n"
 * for backend, compiler, arch, kernel, options, source. No device_tag. */
static void _ak_cache_disk_digest(const char* const f[_AK_KF_COUNT], const size_t l[_AK_KF_COUNT], uint8_t out[32]) {
    static const int order[6] = { _AK_KF_BACKEND, _AK_KF_COMPILER, _AK_KF_ARCH, _AK_KF_NAME, _AK_KF_OPTIONS,
                                  _AK_KF_SOURCE };
    static const char* tags[6] = { "backend", "compiler", "arch", "kernel", "options", "source" };
    _ak_sha256_ctx s;
    char line[96];
    int i, n;
    _ak_sha256_init(&s);
    n = snprintf(line, sizeof line, "amdkit-cache-key\nformat %u\namdkit %s\n", _AK_CACHE_FORMAT, AK_VERSION_STRING);
    _ak_sha256_update(&s, line, (size_t)n);
    for (i = 0; i < 6; i++) {
        n = snprintf(line, sizeof line, "%s %lu\n", tags[i], (unsigned long)l[order[i]]);
        _ak_sha256_update(&s, line, (size_t)n);
        _ak_sha256_update(&s, f[order[i]], l[order[i]]);
        _ak_sha256_update(&s, "\n", 1);
    }
    _ak_sha256_final(&s, out);
}

/* dir/<2 hex>/<64 hex>.akc (and the shard folder in `shard` if given). */
static void _ak_cache_paths(const _ak_cache* c, const uint8_t digest[32], char* path, size_t cap, char* shard,
                            size_t shard_cap) {
    char hex[65];
    _ak_hex(digest, 32, hex);
    snprintf(path, cap, "%s/%.2s/%s.akc", c->dir, hex, hex);
    if (shard) snprintf(shard, shard_cap, "%s/%.2s", c->dir, hex);
}

/* ---- entries ---------------------------------------------------------------- */

static void _ak_cache_count(_ak_cache* c, unsigned long long* field, unsigned long long n) {
    _ak_mutex_lock(&c->lock);
    *field += n;
    _ak_mutex_unlock(&c->lock);
}

/* New entry holding a copy of the key material (one allocation). */
static _ak_cache_entry* _ak_cache_entry_new(const char* const f[_AK_KF_COUNT], const size_t l[_AK_KF_COUNT]) {
    size_t total = sizeof(_ak_cache_entry), off;
    _ak_cache_entry* e;
    char* mem;
    int i;
    for (i = 0; i < _AK_KF_COUNT; i++) total += l[i] + 1;
    e = (_ak_cache_entry*)_ak_alloc(total);
    if (!e) return NULL;
    memset(e, 0, sizeof *e);
    mem = (char*)(e + 1);
    off = 0;
    for (i = 0; i < _AK_KF_COUNT; i++) {
        memcpy(mem + off, f[i], l[i]);
        mem[off + l[i]] = 0;
        e->kf[i] = mem + off;
        e->kl[i] = l[i];
        off += l[i] + 1;
    }
    return e;
}

/* Free an entry whose last reference is gone (cache lock NOT held). */
static void _ak_cache_entry_free(_ak_cache* c, _ak_cache_entry* e) {
    if (e->loaded && c->unload) c->unload(c->unload_user, e->loaded);
    _ak_dealloc(e->data);
    _ak_dealloc(e->err_msg); _ak_dealloc(e->err_log); _ak_dealloc(e->err_opts); _ak_dealloc(e->err_src);
    _ak_dealloc(e);
}
static void _ak_cache_free_list(_ak_cache* c, _ak_cache_entry* list) {
    while (list) {
        _ak_cache_entry* nx = list->hnext;
        _ak_cache_entry_free(c, list);
        list = nx;
    }
}

static int _ak_cache_key_eq(const _ak_cache_entry* e, const char* const f[_AK_KF_COUNT],
                            const size_t l[_AK_KF_COUNT]) {
    int i;
    for (i = _AK_KF_COUNT - 1; i >= 0; i--) /* short fields first, the source last */
        if (e->kl[i] != l[i] || memcmp(e->kf[i], f[i], l[i]) != 0) return 0;
    return 1;
}

/* -- map + LRU, all with the cache lock held -- */
static _ak_cache_entry* _ak_cache_find(_ak_cache* c, _ak_h128 h, const char* const f[_AK_KF_COUNT],
                                       const size_t l[_AK_KF_COUNT]) {
    _ak_cache_entry* e = c->buckets[(size_t)h.lo & (c->nbuckets - 1)];
    for (; e; e = e->hnext)
        if (e->hash.lo == h.lo && e->hash.hi == h.hi && _ak_cache_key_eq(e, f, l)) return e;
    return NULL;
}
static void _ak_cache_lru_unlink(_ak_cache* c, _ak_cache_entry* e) {
    if (e->prev) e->prev->next = e->next; else c->head = e->next;
    if (e->next) e->next->prev = e->prev; else c->tail = e->prev;
    e->prev = e->next = NULL;
}
static void _ak_cache_lru_push_front(_ak_cache* c, _ak_cache_entry* e) {
    e->prev = NULL;
    e->next = c->head;
    if (c->head) c->head->prev = e; else c->tail = e;
    c->head = e;
}
static void _ak_cache_grow(_ak_cache* c) {
    size_t nb = c->nbuckets * 2, i;
    _ak_cache_entry** b = (_ak_cache_entry**)_ak_calloc(nb * sizeof *b);
    if (!b) return; /* keep the longer chains */
    for (i = 0; i < c->nbuckets; i++) {
        _ak_cache_entry* e = c->buckets[i];
        while (e) {
            _ak_cache_entry* nx = e->hnext;
            size_t j = (size_t)e->hash.lo & (nb - 1);
            e->hnext = b[j];
            b[j] = e;
            e = nx;
        }
    }
    _ak_dealloc(c->buckets);
    c->buckets = b;
    c->nbuckets = nb;
}
static void _ak_cache_index_add(_ak_cache* c, _ak_cache_entry* e) {
    size_t j;
    if ((size_t)c->count + 1 > c->nbuckets - c->nbuckets / 4) _ak_cache_grow(c);
    j = (size_t)e->hash.lo & (c->nbuckets - 1);
    e->hnext = c->buckets[j];
    c->buckets[j] = e;
    _ak_cache_lru_push_front(c, e);
    e->indexed = 1;
    __atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
    c->count++;
}
/* Remove from map and LRU and drop the index's reference; an entry left with
 * no reference goes onto *dead (freed by the caller after unlocking). */
static void _ak_cache_index_remove(_ak_cache* c, _ak_cache_entry* e, _ak_cache_entry** dead) {
    _ak_cache_entry** pp = &c->buckets[(size_t)e->hash.lo & (c->nbuckets - 1)];
    while (*pp && *pp != e) pp = &(*pp)->hnext;
    if (*pp) *pp = e->hnext;
    e->hnext = NULL;
    _ak_cache_lru_unlink(c, e);
    e->indexed = 0;
    c->count--;
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0) { e->hnext = *dead; *dead = e; }
}
/* Evict least recently used entries (never one still being compiled) down
 * to capacity. Returns how many; *name gets the kernel name of the last one
 * (the caller logs after unlocking: no user callback runs under the lock). */
static int _ak_cache_evict_to_capacity(_ak_cache* c, _ak_cache_entry** dead, char* name, size_t name_cap) {
    _ak_cache_entry* e = c->tail;
    int n = 0;
    while (c->count > c->capacity && e) {
        _ak_cache_entry* older_next = e->prev;
        if (e->state == _AK_CE_READY) {
            _ak_copy(name, name_cap, e->kf[_AK_KF_NAME]);
            _ak_cache_index_remove(c, e, dead);
            c->evictions++;
            n++;
        }
        e = older_next;
    }
    return n;
}

/* ---- create / destroy ------------------------------------------------------- */

/* Set up the disk level: mkdir -p and a write probe. Logs one warning when
 * the directory is unusable. */
static void _ak_cache_disk_setup(_ak_cache* c) {
    char probe[_AK_CACHE_PATH_MAX + 128];
    int fd;
    if (!c->dir[0]) {
        c->disk = 0;
        _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_DIR_UNUSABLE,
                "no cache directory (cache_dir, AMDKIT_CACHE_DIR, XDG_CACHE_HOME and HOME unset): memory-only");
        return;
    }
    if (strlen(c->dir) > _AK_CACHE_PATH_MAX - 160) {
        c->disk = 0;
        _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_DIR_UNUSABLE, "cache directory path too long: memory-only");
        return;
    }
    if (_ak_mkdir_p(c->dir) != 0) {
        c->disk = 0;
        _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_DIR_UNUSABLE, "cannot create cache directory %s (%s): memory-only",
                c->dir, strerror(errno));
        return;
    }
    _ak_cache_tmp_name(probe, sizeof probe, c->dir, ".probe");
    fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        c->disk = 0;
        _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_DIR_UNUSABLE, "cache directory %s is not writable (%s): memory-only",
                c->dir, strerror(errno));
        return;
    }
    close(fd);
    unlink(probe);
    c->disk = 1;
}

static ak_result _ak_cache_create(const ak_config* cfg, const _ak_logger* log,
                                  void (*unload)(void* unload_user, void* loaded), void* unload_user, _ak_cache** out) {
    _ak_cache* c;
    if (!out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "cache: out is NULL");
    *out = NULL;
    if (!cfg) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "cache: cfg is NULL");
    if (cfg->cache_enabled && cfg->cache_capacity < 1)
        return _ak_err(AK_ERROR_CONFIG, "cache_capacity is %d, expected >= 1", cfg->cache_capacity);
    if (cfg->cache_max_bytes < 0)
        return _ak_err(AK_ERROR_CONFIG, "cache_max_bytes is %lld, expected >= 0 (0 = no cap)", cfg->cache_max_bytes);
    c = (_ak_cache*)_ak_calloc(sizeof *c);
    if (!c) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "cache: out of host memory");
    c->nbuckets = 16;
    c->buckets = (_ak_cache_entry**)_ak_calloc(c->nbuckets * sizeof *c->buckets);
    if (!c->buckets) { _ak_dealloc(c); return _ak_err(AK_ERROR_OUT_OF_MEMORY, "cache: out of host memory"); }
    _ak_mutex_init(&c->lock);
    _ak_cond_init(&c->cond);
    if (log) c->log = *log;
    else { c->log.fn = NULL; c->log.user_data = NULL; c->log.level = AK_LOG_WARN; }
    c->unload = unload;
    c->unload_user = unload_user;
    c->enabled = cfg->cache_enabled ? 1 : 0;
    c->capacity = cfg->cache_capacity > 0 ? cfg->cache_capacity : 1;
    c->max_bytes = cfg->cache_max_bytes;
    c->max_entry = cfg->cache_max_entry_bytes >= 4096 ? cfg->cache_max_entry_bytes : _AK_CACHE_MAX_ENTRY_DEFAULT;
    c->trusted = cfg->cache_trusted ? 1 : 0;
    if (_ak_cache_resolve_dir(cfg, c->dir, sizeof c->dir, NULL) != 0) c->dir[0] = 0;
    c->disk = 0;
    if (c->enabled && cfg->disk_cache) _ak_cache_disk_setup(c);
    *out = c;
    return AK_OK;
}

/* Frees every indexed entry (callers must have released theirs). */
static void _ak_cache_destroy(_ak_cache* c) {
    _ak_cache_entry* e;
    if (!c) return;
    e = c->head;
    while (e) {
        _ak_cache_entry* nx = e->next;
        _ak_cache_entry_free(c, e);
        e = nx;
    }
    _ak_dealloc(c->buckets);
    _ak_cond_destroy(&c->cond);
    _ak_mutex_destroy(&c->lock);
    _ak_dealloc(c);
}

/* ---- disk level ---------------------------------------------------------------- */

/* Open a cache file without blocking or following a symlink, and decide
 * whether it may be read at all. Returns the fd (>= 0), -1 missing, -2
 * unreadable (errno), -3 refused (*why: not a regular file, owned by another
 * user, writable by group/others unless trusted; such a file is not ours to
 * remove: the caller logs it and treats it as a miss). */
static int _ak_cache_file_open(const char* path, int trusted, struct stat* st, const char** why) {
    int fd, fl;
    *why = "";
    /* O_NONBLOCK: a FIFO (or device) at the path must not block the open;
       O_NOFOLLOW: a symlink planted in the shard is refused, not followed. */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return -1;
        if (errno == ELOOP || errno == ENXIO) { *why = errno == ELOOP ? "a symbolic link" : "not a regular file"; return -3; }
        return -2;
    }
    if (fstat(fd, st) != 0) { int e = errno; close(fd); errno = e; return -2; }
    if (!S_ISREG(st->st_mode)) { close(fd); *why = "not a regular file"; return -3; }
    if (!trusted && st->st_uid != geteuid()) { close(fd); *why = "owned by another user (set cache_trusted to serve it)"; return -3; }
    if (!trusted && (st->st_mode & (S_IWGRP | S_IWOTH))) {
        close(fd); *why = "writable by group or others (set cache_trusted to serve it)"; return -3;
    }
    /* back to blocking reads for a regular file */
    if ((fl = fcntl(fd, F_GETFL)) != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* Verify one cache file. expect_digest may be NULL (then any digest is
 * accepted). A file over max_entry bytes is never read. Returns 1 valid
 * (*data and *size set if data != NULL), 0 missing, -1 invalid (*why says
 * what; the caller removes it), -2 unreadable (errno), -3 refused (*why; see
 * _ak_cache_file_open). */
static int _ak_cache_file_read(const char* path, const uint8_t* expect_digest, long long max_entry, int trusted,
                               void** data, size_t* size, const char** why) {
    uint8_t hdr[_AK_CACHE_HDR], sum[32];
    struct stat st;
    uint64_t psize;
    void* buf;
    int fd, r;
    *why = "";
    if (data) *data = NULL;
    if (size) *size = 0;
    fd = _ak_cache_file_open(path, trusted, &st, why);
    if (fd == -1) return 0;
    if (fd < 0) return fd;
    if ((uint64_t)st.st_size < _AK_CACHE_HDR) { close(fd); *why = "truncated header"; return -1; }
    if ((long long)st.st_size > max_entry) { close(fd); *why = "larger than cache_max_entry_bytes (not read)"; return -1; }
    r = _ak_read_full(fd, hdr, sizeof hdr);
    if (r != 0) { close(fd); if (r < 0) return -2; *why = "truncated header"; return -1; }
    if (memcmp(hdr, "AKCACHE\0", 8) != 0) { close(fd); *why = "bad magic (not an amdkit cache file)"; return -1; }
    if (_ak_get_u32le(hdr + 8) != _AK_CACHE_FORMAT || _ak_get_u32le(hdr + 12) != _AK_CACHE_HDR) {
        close(fd); *why = "other format version"; return -1;
    }
    if (expect_digest && memcmp(hdr + 16, expect_digest, 32) != 0) { close(fd); *why = "key digest mismatch"; return -1; }
    psize = _ak_get_u64le(hdr + 48);
    if (psize != (uint64_t)st.st_size - _AK_CACHE_HDR) {
        close(fd);
        *why = psize > (uint64_t)st.st_size - _AK_CACHE_HDR ? "truncated payload" : "size mismatch";
        return -1;
    }
    buf = _ak_alloc(psize ? (size_t)psize : 1);
    if (!buf) { close(fd); errno = ENOMEM; return -2; }
    r = _ak_read_full(fd, buf, (size_t)psize);
    close(fd);
    if (r != 0) { _ak_dealloc(buf); if (r < 0) return -2; *why = "truncated payload"; return -1; }
    _ak_sha256(buf, (size_t)psize, sum);
    if (memcmp(sum, hdr + 56, 32) != 0) { _ak_dealloc(buf); *why = "payload checksum mismatch"; return -1; }
    if (data) { *data = buf; if (size) *size = (size_t)psize; }
    else _ak_dealloc(buf);
    return 1;
}

/* Read the entry of a digest: 1 hit (data/size set, mtime refreshed), 0 miss
 * (a corrupt file was removed, a refused one left alone; logged and counted). */
static int _ak_cache_disk_read(_ak_cache* c, const uint8_t digest[32], const char* name, void** data, size_t* size) {
    char path[_AK_CACHE_PATH_MAX + 512];
    const char* why;
    int r;
    _ak_cache_paths(c, digest, path, sizeof path, NULL, 0);
    r = _ak_cache_file_read(path, digest, c->max_entry, c->trusted, data, size, &why);
    if (r == 1) {
        utimensat(AT_FDCWD, path, NULL, 0); /* LRU order for the size cap; failure is harmless */
        return 1;
    }
    if (r == 0) return 0;
    if (r == -2) {
        _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_CORRUPT_ENTRY, "cannot read %s (%s) for %s: recompiling", path,
                strerror(errno), name);
        _ak_cache_count(c, &c->disk_errors, 1);
        return 0;
    }
    if (r == -3) {
        _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_CORRUPT_ENTRY, "%s: %s; not served, recompiling %s", path, why, name);
        _ak_cache_count(c, &c->disk_errors, 1);
        return 0;
    }
    unlink(path);
    _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_CORRUPT_ENTRY, "%s: %s; removed, recompiling %s", path, why, name);
    _ak_cache_count(c, &c->disk_errors, 1);
    return 0;
}

/* Remove a file that verified but whose payload was refused or would not load. */
static void _ak_cache_disk_reject(_ak_cache* c, const uint8_t digest[32], const char* name, const char* why) {
    char path[_AK_CACHE_PATH_MAX + 512];
    _ak_cache_paths(c, digest, path, sizeof path, NULL, 0);
    unlink(path);
    _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_CORRUPT_ENTRY, "%s: %s for %s; removed, recompiling", path, why, name);
    _ak_cache_count(c, &c->disk_errors, 1);
}

/* What log messages call an entry: 'kernel' or 'name' from source.hip. */
static const char* _ak_cache_what(const char* key_name, const _ak_cache_ops* ops, char* buf, size_t cap) {
    const char* n = key_name && *key_name ? key_name : (ops && ops->name && *ops->name) ? ops->name : NULL;
    const char* s = ops && ops->source_name && *ops->source_name ? ops->source_name : NULL;
    if (n && s) snprintf(buf, cap, "'%s' (%s)", n, s);
    else if (n || s) snprintf(buf, cap, "'%s'", n ? n : s);
    else snprintf(buf, cap, "an unnamed kernel");
    return buf;
}

typedef struct _ak_cache_file { char* path; long long bytes; long long sec, nsec; } _ak_cache_file;
static int _ak_cache_file_cmp(const void* a, const void* b) {
    const _ak_cache_file* x = (const _ak_cache_file*)a;
    const _ak_cache_file* y = (const _ak_cache_file*)b;
    if (x->sec != y->sec) return x->sec < y->sec ? -1 : 1;
    if (x->nsec != y->nsec) return x->nsec < y->nsec ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* Every *.akc entry under the cache dir: totals into *u (entries, bytes,
 * oldest/newest mtime), and the list into *files when files != NULL (caller
 * frees each path and the array). Temp files an hour old (a writer that
 * died) are removed on the way when remove_stale is set. */
static void _ak_cache_scan(_ak_cache* c, int remove_stale, _ak_cache_file** files_out, size_t* nfiles_out,
                           ak_cache_disk_usage* u) {
    _ak_cache_file* files = NULL;
    size_t nfiles = 0, capf = 0;
    DIR* top;
    struct dirent* de;
    time_t now = time(NULL);
    memset(u, 0, sizeof *u);
    u->max_bytes = c->max_bytes;
    if (files_out) *files_out = NULL;
    if (nfiles_out) *nfiles_out = 0;
    top = opendir(c->dir);
    if (!top) return;
    while ((de = readdir(top)) != NULL) {
        char shard[_AK_CACHE_PATH_MAX + 8];
        DIR* sd;
        struct dirent* fe;
        if (!_ak_is_shard_name(de->d_name)) continue;
        snprintf(shard, sizeof shard, "%s/%.2s", c->dir, de->d_name);
        sd = opendir(shard);
        if (!sd) continue;
        while ((fe = readdir(sd)) != NULL) {
            char path[_AK_CACHE_PATH_MAX + 512];
            struct stat st;
            int is_tmp = _ak_has_suffix(fe->d_name, ".tmp");
            if (!is_tmp && !_ak_has_suffix(fe->d_name, ".akc")) continue;
            snprintf(path, sizeof path, "%s/%s", shard, fe->d_name);
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
            if (is_tmp) { /* left by a writer that died: remove once it is an hour old */
                if (remove_stale && st.st_mtime + 3600 < now) unlink(path);
                continue;
            }
            if (!u->entries || (long long)st.st_mtime < u->oldest) u->oldest = (long long)st.st_mtime;
            if ((long long)st.st_mtime > u->newest) u->newest = (long long)st.st_mtime;
            u->entries++;
            u->bytes += (unsigned long long)st.st_size;
            if (!files_out) continue;
            if (nfiles == capf) {
                size_t nc = capf ? capf * 2 : 64;
                _ak_cache_file* nf = (_ak_cache_file*)_ak_realloc(files, nc * sizeof *nf);
                if (!nf) break;
                files = nf; capf = nc;
            }
            files[nfiles].path = _ak_strdup(path);
            if (!files[nfiles].path) break;
            files[nfiles].bytes = (long long)st.st_size;
            files[nfiles].sec = (long long)st.st_mtim.tv_sec;
            files[nfiles].nsec = (long long)st.st_mtim.tv_nsec;
            nfiles++;
        }
        closedir(sd);
    }
    closedir(top);
    if (files_out) { *files_out = files; *nfiles_out = nfiles; }
}

/* After a write: if the *.akc files under dir exceed the cap, delete the
 * oldest (by mtime) until under it. */
static void _ak_cache_enforce_cap(_ak_cache* c) {
    _ak_cache_file* files = NULL;
    size_t nfiles = 0, i;
    long long total;
    unsigned long long removed = 0;
    ak_cache_disk_usage u;
    if (c->max_bytes <= 0) return;
    _ak_cache_scan(c, 1, &files, &nfiles, &u);
    total = (long long)u.bytes;
    if (total > c->max_bytes && nfiles) {
        qsort(files, nfiles, sizeof *files, _ak_cache_file_cmp);
        for (i = 0; i < nfiles && total > c->max_bytes; i++) {
            int ok = unlink(files[i].path) == 0;
            if (ok || errno == ENOENT) total -= files[i].bytes; /* ENOENT: someone else removed it */
            if (ok) {
                removed++;
                _ak_log(&c->log, AK_LOG_DEBUG, AK_LOGITEM_CACHE_EVICT, "disk entry %s evicted (cap %lld bytes)",
                        files[i].path, c->max_bytes);
            }
        }
    }
    for (i = 0; i < nfiles; i++) _ak_dealloc(files[i].path);
    _ak_dealloc(files);
    if (removed) _ak_cache_count(c, &c->evictions, removed);
}

/* Write an entry: temp file in the shard folder, then rename. Failures are
 * logged and otherwise ignored. */
static void _ak_cache_disk_write(_ak_cache* c, const uint8_t digest[32], const char* name, const void* data,
                                 size_t size) {
    char path[_AK_CACHE_PATH_MAX + 512], shard[_AK_CACHE_PATH_MAX + 8], tmp[_AK_CACHE_PATH_MAX + 256], hex[65];
    uint8_t hdr[_AK_CACHE_HDR];
    const char* what = "open";
    int fd, e;
    _ak_cache_paths(c, digest, path, sizeof path, shard, sizeof shard);
    {
        /* an entry over the disk cap (or the read limit) would be evicted (or refused) at once: say so once, write
           nothing (not only at DEBUG: a cap smaller than one entry silently turns the disk level off) */
        long long need = (long long)size + (long long)_AK_CACHE_HDR;
        int over_cap = c->max_bytes > 0 && need > c->max_bytes, first;
        if (over_cap || need > c->max_entry) {
            _ak_mutex_lock(&c->lock);
            first = !c->cap_warned;
            c->cap_warned = 1;
            _ak_mutex_unlock(&c->lock);
            if (first)
                _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_WRITE_FAILED,
                        "%s takes %lld bytes on disk, over the %s of %lld bytes: not stored (raise %s; warned once)", name,
                        need, over_cap ? "cache size cap" : "entry size limit", over_cap ? c->max_bytes : c->max_entry,
                        over_cap ? "cache_max_bytes / AMDKIT_CACHE_MAX_BYTES"
                                 : "cache_max_entry_bytes / AMDKIT_CACHE_MAX_ENTRY_BYTES");
            return;
        }
    }
    if (mkdir(shard, 0755) != 0 && errno != EEXIST) {
        /* the directory itself may have been removed since: make it again */
        if (_ak_mkdir_p(shard) != 0) {
            _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_WRITE_FAILED, "cannot create %s (%s); %s not stored", shard,
                    strerror(errno), name);
            return;
        }
    }
    memcpy(hdr, "AKCACHE\0", 8);
    _ak_put_u32le(hdr + 8, _AK_CACHE_FORMAT);
    _ak_put_u32le(hdr + 12, _AK_CACHE_HDR);
    memcpy(hdr + 16, digest, 32);
    _ak_put_u64le(hdr + 48, (uint64_t)size);
    _ak_sha256(data, size, hdr + 56);
    _ak_hex(digest, 32, hex);
    _ak_cache_tmp_name(tmp, sizeof tmp, shard, hex);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
        what = "write";
        fchmod(fd, 0644); /* whatever the umask: readers refuse group/other-writable entries */
        if (_ak_write_full(fd, hdr, sizeof hdr) == 0 && _ak_write_full(fd, data, size) == 0) {
            what = "close";
            if (close(fd) == 0) {
                fd = -1;
                what = "rename";
                if (rename(tmp, path) == 0) {
                    _ak_cache_enforce_cap(c);
                    return;
                }
            }
        }
        e = errno;
        if (fd >= 0) close(fd);
        unlink(tmp);
        errno = e;
    }
    _ak_log(&c->log, AK_LOG_WARN, AK_LOGITEM_CACHE_WRITE_FAILED, "%s %s failed (%s); %s not stored", what, tmp,
            strerror(errno), name);
}

/* ---- get -------------------------------------------------------------------------- */

static double _ak_ms_since(uint64_t t0) { return (double)(_ak_now_ns() - t0) / 1e6; }

/* Run the compiler and count it. */
static ak_result _ak_cache_run_compile(_ak_cache* c, const _ak_cache_ops* ops, const char* name, void** data,
                                       size_t* size, double* ms) {
    uint64_t t0 = _ak_now_ns();
    ak_result r;
    *data = NULL; *size = 0;
    r = ops->compile(ops->user, data, size);
    *ms = _ak_ms_since(t0);
    _ak_mutex_lock(&c->lock);
    c->compilations++;
    c->compile_ms += *ms;
    _ak_mutex_unlock(&c->lock);
    if (r == AK_OK && !*data) {
        r = _ak_err(AK_ERROR_COMPILATION, "compiler returned no code for %s", name);
    } else if (r != AK_OK) {
        const ak_error_info* info = ak_last_error_info();
        _ak_dealloc(*data);
        *data = NULL; *size = 0;
        if (info->result != r || !info->message[0])
            r = _ak_err(r, "compiling %s failed: %s", name, ak_result_string(r));
    }
    return r;
}

/* Fill a pending entry: disk level, else compile (+ load, + disk write).
 * Runs without the cache lock. */
static ak_result _ak_cache_fill(_ak_cache* c, _ak_cache_entry* e, const _ak_cache_ops* ops, ak_cache_source* src) {
    char name[320], why[256];
    uint8_t digest[32];
    void* data = NULL;
    size_t size = 0;
    double ms = 0;
    ak_result r;
    _ak_cache_what(e->kf[_AK_KF_NAME], ops, name, sizeof name);
    memset(digest, 0, sizeof digest);
    if (c->disk) {
        _ak_cache_disk_digest(e->kf, e->kl, digest);
        if (_ak_cache_disk_read(c, digest, name, &data, &size)) {
            void* loaded = NULL;
            why[0] = 0;
            if (ops->verify && ops->verify(ops->user, data, size, why, sizeof why) != 0) {
                if (!why[0]) _ak_copy(why, sizeof why, "payload refused");
                r = AK_ERROR_COMPILATION; /* not loaded: recompile below */
            } else {
                r = ops->load ? ops->load(ops->user, data, size, &loaded) : AK_OK;
                if (r != AK_OK) _ak_copy(why, sizeof why, "code object failed to load");
            }
            if (r == AK_OK) {
                e->data = data; e->size = size; e->loaded = loaded; e->compile_ms = 0;
                *src = AK_CACHE_DISK;
                return AK_OK;
            }
            _ak_dealloc(data);
            data = NULL;
            _ak_cache_disk_reject(c, digest, name, why);
        }
    }
    r = _ak_cache_run_compile(c, ops, name, &data, &size, &ms);
    if (r != AK_OK) return r;
    if (ops->load) {
        void* loaded = NULL;
        r = ops->load(ops->user, data, size, &loaded);
        if (r != AK_OK) { _ak_dealloc(data); return r; }
        e->loaded = loaded;
    }
    e->data = data; e->size = size; e->compile_ms = ms;
    *src = AK_CACHE_MISS;
    if (c->disk) _ak_cache_disk_write(c, digest, name, data, size);
    return AK_OK;
}

/* Cache disabled or bypassed: a private entry, compiled and loaded now,
 * freed on release. */
static ak_result _ak_cache_get_private(_ak_cache* c, const char* const f[_AK_KF_COUNT], const size_t l[_AK_KF_COUNT],
                                       const _ak_cache_ops* ops, _ak_cache_entry** out) {
    _ak_cache_entry* e = _ak_cache_entry_new(f, l);
    double ms = 0;
    ak_result r;
    char name[320];
    _ak_cache_what(f[_AK_KF_NAME], ops, name, sizeof name);
    if (!e) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "cache: out of host memory for %s", name);
    r = _ak_cache_run_compile(c, ops, name, &e->data, &e->size, &ms);
    if (r == AK_OK && ops->load) {
        void* loaded = NULL;
        r = ops->load(ops->user, e->data, e->size, &loaded);
        if (r == AK_OK) e->loaded = loaded;
    }
    if (r != AK_OK) { _ak_cache_entry_free(c, e); return r; }
    e->compile_ms = ms;
    e->state = _AK_CE_READY;
    e->refs = 1;
    *out = e;
    return AK_OK;
}

/* Raise a failed entry's error on this thread (a waiter's view of the compile failure). */
static ak_result _ak_cache_raise(const _ak_cache_entry* e) {
    ak_result r = _ak_err(e->err, "%s", e->err_msg ? e->err_msg : "compilation failed in another thread");
    if (e->err_log && e->err_log[0]) _ak_err_compile_detail(e->err_log, e->err_opts, e->err_src);
    return r;
}

/* get with the memory hash given (tests force collisions through it). */
static ak_result _ak_cache_get_hashed(_ak_cache* c, const char* const f[_AK_KF_COUNT], const size_t l[_AK_KF_COUNT],
                                      _ak_h128 h, const _ak_cache_ops* ops, _ak_cache_entry** out,
                                      ak_cache_source* src) {
    _ak_cache_entry* e;
    _ak_cache_entry* fresh = NULL;
    _ak_cache_entry* dead = NULL;
    ak_cache_source got = AK_CACHE_MISS;
    ak_result r;
    int evicted;
    char evicted_name[128];
    for (;;) {
        _ak_mutex_lock(&c->lock);
        e = _ak_cache_find(c, h, f, l);
        if (e) break;
        if (fresh) {
            /* miss: insert the pending entry, compile outside the lock */
            fresh->hash = h;
            fresh->state = _AK_CE_PENDING;
            fresh->refs = 1; /* ours */
            _ak_cache_index_add(c, fresh);
            evicted = _ak_cache_evict_to_capacity(c, &dead, evicted_name, sizeof evicted_name);
            _ak_mutex_unlock(&c->lock);
            _ak_cache_free_list(c, dead);
            dead = NULL;
            if (evicted)
                _ak_log(&c->log, AK_LOG_DEBUG, AK_LOGITEM_CACHE_EVICT, "%d memory entr%s evicted (capacity %d), last '%s'",
                        evicted, evicted == 1 ? "y" : "ies", c->capacity, evicted_name);
            e = fresh;
            goto fill;
        }
        _ak_mutex_unlock(&c->lock);
        fresh = _ak_cache_entry_new(f, l); /* allocate outside the lock, then look again */
        if (!fresh) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "cache: out of host memory for kernel '%s'", f[_AK_KF_NAME]);
    }
    /* found (lock held) */
    __atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
    while (e->state == _AK_CE_PENDING) _ak_cond_wait(&c->cond, &c->lock);
    if (e->state == _AK_CE_READY) {
        c->memory_hits++;
        if (e->indexed && c->head != e) { _ak_cache_lru_unlink(c, e); _ak_cache_lru_push_front(c, e); }
        _ak_mutex_unlock(&c->lock);
        if (fresh) _ak_dealloc(fresh);
        if (c->log.level >= AK_LOG_DEBUG)
            _ak_log(&c->log, AK_LOG_DEBUG, AK_LOGITEM_CACHE_MEMORY_HIT, "'%s' (%s)", e->kf[_AK_KF_NAME], e->kf[_AK_KF_ARCH]);
        *out = e;
        if (src) *src = AK_CACHE_MEMORY;
        return AK_OK;
    }
    /* the compile we waited for failed: same code and message, entry not cached */
    _ak_mutex_unlock(&c->lock);
    if (fresh) _ak_dealloc(fresh);
    r = _ak_cache_raise(e);
    _ak_cache_entry_release(c, e);
    return r;

fill:
    r = _ak_cache_fill(c, e, ops, &got);
    if (r != AK_OK) {
        const ak_error_info* info = ak_last_error_info();
        e->err = r;
        e->err_msg = _ak_strdup(info->message);
        e->err_log = _ak_strdup(info->log);
        e->err_opts = _ak_strdup(info->options);
        e->err_src = _ak_strdup(info->source_name);
    }
    _ak_mutex_lock(&c->lock);
    if (got == AK_CACHE_DISK) c->disk_hits++; else c->misses++;
    if (r == AK_OK) {
        e->state = _AK_CE_READY;
    } else {
        e->state = _AK_CE_FAILED;
        if (e->indexed) _ak_cache_index_remove(c, e, &dead); /* we still hold ours: never freed here */
    }
    _ak_cond_broadcast(&c->cond);
    _ak_mutex_unlock(&c->lock);
    if (r != AK_OK) {
        _ak_cache_entry_release(c, e); /* leaves this thread's error as the compile recorded it */
        return r;
    }
    if (c->log.level >= AK_LOG_DEBUG) {
        if (got == AK_CACHE_DISK)
            _ak_log(&c->log, AK_LOG_DEBUG, AK_LOGITEM_CACHE_DISK_HIT, "'%s' (%s)", e->kf[_AK_KF_NAME], e->kf[_AK_KF_ARCH]);
        else
            _ak_log(&c->log, AK_LOG_DEBUG, AK_LOGITEM_CACHE_MISS, "'%s' (%s) compiled in %.1f ms", e->kf[_AK_KF_NAME],
                    e->kf[_AK_KF_ARCH], e->compile_ms);
    }
    *out = e;
    if (src) *src = got;
    return AK_OK;
}

static ak_result _ak_cache_get(_ak_cache* c, const _ak_cache_key* key, const _ak_cache_ops* ops, int bypass,
                               _ak_cache_entry** out, ak_cache_source* src) {
    const char* f[_AK_KF_COUNT];
    size_t l[_AK_KF_COUNT];
    if (out) *out = NULL;
    if (src) *src = AK_CACHE_MISS;
    if (!c || !key || !ops || !ops->compile || !out)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "cache get: %s is NULL",
                       !c ? "cache" : !key ? "key" : !ops ? "ops" : !ops->compile ? "ops->compile" : "out");
    if (!key->source) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "cache get: key source is NULL");
    _ak_cache_key_fields(key, f, l);
    if (!c->enabled || bypass) {
        if (c->log.level >= AK_LOG_DEBUG)
            _ak_log(&c->log, AK_LOG_DEBUG, AK_LOGITEM_CACHE_MISS, "'%s' (%s): cache %s, compiling", f[_AK_KF_NAME],
                    f[_AK_KF_ARCH], c->enabled ? "bypassed" : "disabled");
        return _ak_cache_get_private(c, f, l, ops, out);
    }
    return _ak_cache_get_hashed(c, f, l, key->prefix ? _ak_hash128_seeded(f[_AK_KF_SOURCE], l[_AK_KF_SOURCE], key->prefix->seed)
                                                     : _ak_cache_mem_hash(f, l), ops, out, src);
}

static const void* _ak_cache_entry_data(const _ak_cache_entry* e, size_t* size) {
    if (!e) { if (size) *size = 0; return NULL; }
    if (size) *size = e->size;
    return e->data;
}
static void* _ak_cache_entry_loaded(const _ak_cache_entry* e) { return e ? e->loaded : NULL; }
static double _ak_cache_entry_compile_ms(const _ak_cache_entry* e) { return e ? e->compile_ms : 0.0; }

/* Drop a reference; the last one frees the entry (and unloads its handle).
 * No lock: refs changes atomically, and an entry in the index holds the
 * index's reference, so a lookup never finds one that reached 0. */
static void _ak_cache_entry_release(_ak_cache* c, _ak_cache_entry* e) {
    if (!c || !e) return;
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0) _ak_cache_entry_free(c, e);
}

/* ---- stats, purge ----------------------------------------------------------------- */

static void _ak_cache_stats(_ak_cache* c, ak_cache_stats* s) {
    unsigned long long lookups;
    memset(s, 0, sizeof *s);
    _ak_mutex_lock(&c->lock);
    s->compilations = c->compilations;
    s->memory_hits = c->memory_hits;
    s->disk_hits = c->disk_hits;
    s->misses = c->misses;
    s->evictions = c->evictions;
    s->disk_errors = c->disk_errors;
    s->compile_ms = c->compile_ms;
    s->memory_entries = c->count;
    _ak_mutex_unlock(&c->lock);
    lookups = s->memory_hits + s->disk_hits + s->misses;
    s->hit_rate = lookups ? (double)(s->memory_hits + s->disk_hits) / (double)lookups : 0.0;
    s->capacity = c->capacity;
    s->disk_enabled = c->disk;
    _ak_copy(s->dir, sizeof s->dir, c->dir);
}

/* Remove our files from one folder (shard: *.akc and *.tmp; top: *.tmp); counts failures. */
static void _ak_cache_purge_dir(const char* dir, int shard, int* failed, char* first_fail, size_t cap) {
    DIR* d = opendir(dir);
    struct dirent* de;
    if (!d) return;
    while ((de = readdir(d)) != NULL) {
        char path[_AK_CACHE_PATH_MAX + 512];
        int ours = _ak_has_suffix(de->d_name, ".tmp") || (shard && _ak_has_suffix(de->d_name, ".akc"));
        if (!ours) continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (unlink(path) != 0 && errno != ENOENT) {
            if (!*failed) snprintf(first_fail, cap, "%.4600s (%.300s)", path, strerror(errno));
            (*failed)++;
        }
    }
    closedir(d);
}

static ak_result _ak_cache_purge(_ak_cache* c) {
    _ak_cache_entry* dead = NULL;
    _ak_cache_entry* e;
    DIR* top;
    struct dirent* de;
    int failed = 0;
    char first[_AK_CACHE_PATH_MAX + 1024];
    /* memory: every entry nobody but the index holds */
    _ak_mutex_lock(&c->lock);
    e = c->head;
    while (e) {
        _ak_cache_entry* nx = e->next;
        if (e->state == _AK_CE_READY && __atomic_load_n(&e->refs, __ATOMIC_ACQUIRE) == 1) _ak_cache_index_remove(c, e, &dead);
        e = nx;
    }
    _ak_mutex_unlock(&c->lock);
    _ak_cache_free_list(c, dead);
    /* disk: every .akc in the shards, temp files anywhere */
    if (!c->dir[0]) return AK_OK;
    first[0] = 0;
    top = opendir(c->dir);
    if (!top) {
        if (errno == ENOENT || errno == ENOTDIR) return AK_OK;
        return _ak_err(AK_ERROR_IO, "cache purge: cannot open %s: %s", c->dir, strerror(errno));
    }
    while ((de = readdir(top)) != NULL) {
        char shard[_AK_CACHE_PATH_MAX + 8];
        if (!_ak_is_shard_name(de->d_name)) continue;
        snprintf(shard, sizeof shard, "%s/%.2s", c->dir, de->d_name);
        _ak_cache_purge_dir(shard, 1, &failed, first, sizeof first);
    }
    closedir(top);
    _ak_cache_purge_dir(c->dir, 0, &failed, first, sizeof first);
    if (failed) return _ak_err(AK_ERROR_IO, "cache purge: %d file(s) could not be removed, first %s", failed, first);
    return AK_OK;
}

AKDEF ak_result ak_cache_stats_get(ak_context* ctx, ak_cache_stats* out) {
    if (!ctx || !out)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_cache_stats_get: %s is NULL", !ctx ? "ctx" : "out");
    if (!ctx->cache) {
        memset(out, 0, sizeof *out);
        out->capacity = ctx->cfg.cache_capacity;
        return AK_OK;
    }
    _ak_cache_stats(ctx->cache, out);
    return AK_OK;
}

AKDEF ak_result ak_cache_disk_usage_get(ak_context* ctx, ak_cache_disk_usage* out) {
    if (!ctx || !out)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_cache_disk_usage_get: %s is NULL", !ctx ? "ctx" : "out");
    memset(out, 0, sizeof *out);
    out->max_bytes = ctx->cfg.cache_max_bytes;
    if (ctx->cache) _ak_cache_scan(ctx->cache, 0, NULL, NULL, out);
    return AK_OK;
}

AKDEF ak_result ak_cache_purge(ak_context* ctx) {
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_cache_purge: ctx is NULL");
    if (!ctx->cache) return AK_OK;
    return _ak_cache_purge(ctx->cache);
}
/* ==========================================================================
 * >>impl:pool  caching device memory allocator
 *
 * Design (in the spirit of PyTorch's CUDA caching allocator, CuPy's pool and
 * RMM; written for amdkit):
 *
 * - Sizes. Requests are rounded up to 256 B. Small requests (<= 1 MiB) are
 *   carved from 2 MiB runtime segments; a large request gets a segment of its
 *   size rounded up to 2 MiB. Small and large blocks live in two separate
 *   free structures, so small allocations never fragment large segments.
 * - Free structure. Each of the two is a treap (randomized balanced binary
 *   tree) keyed by (owner, size, address): owner 0 holds blocks any stream
 *   may take ("ready"), owner stream+1 holds blocks that still wait for the
 *   work of that stream. Best fit is one O(log n) lower-bound query in the
 *   caller's own stream and one in the ready set; the smaller block wins.
 * - Split: the rest of a block is kept as a free block when it is at least
 *   512 B (small) or 1 MiB (large); otherwise the whole block is handed out.
 * - Oversize rule (large blocks only): a free block is not used for a
 *   request when it is more than twice the request AND more than
 *   _AK_POOL_OVERSIZE_SLACK (8 MiB) larger than it. Such a request gets its
 *   own segment instead, so a big cached block is never whittled down by
 *   small requests into pieces that pin it (pytorch#35901). Best fit gives
 *   the smallest candidate, so if it is oversize every candidate is.
 * - Merge: a block that becomes free merges with free neighbours of its
 *   segment when their states allow it (both ready, one ready, or both
 *   waiting on the same stream; two blocks waiting on different streams
 *   merge later, when one of them becomes ready).
 * - Streams. A block remembers the stream it was allocated for. ak_free
 *   makes it free at once for that stream (stream order makes it safe).
 *   Another stream may take it only after the work queued on its stream
 *   before the free has completed. The ordering events that prove this are
 *   recorded lazily: when a request misses the caches, one event per stream
 *   is recorded for all blocks freed on that stream since the last miss
 *   (the event comes after each of those frees, so waiting for it is the
 *   same or a stricter ordering than an event recorded at free time), and
 *   blocks whose event is done become ready. This keeps the hot path
 *   (ak_malloc hit + ak_free) free of runtime calls. Event objects are
 *   reference counted, recycled and destroyed with the pool.
 * - Limit: the pool never reserves more than min(pool_size if > 0,
 *   max_memory_fraction * device memory if known). When the runtime fails
 *   or the limit would be exceeded, OOM protection releases every cached
 *   whole free segment and retries once; then AK_ERROR_OUT_OF_MEMORY with
 *   the request, in use, reserved, limit and device free/total.
 * - Pool disabled (cfg.pool_enabled == 0): every allocation is its own
 *   runtime allocation and every free returns it, but pointers are still
 *   tracked (errors, stats, the limit).
 * - Pointer lookup: an open-addressing hash map from address to live block
 *   (O(1) average). Segments are also kept in a treap by base address, used
 *   only to explain a bad pointer (interior, double free, foreign).
 * - Threads: one mutex per pool. Runtime allocation and freeing of
 *   segments happen outside the lock. The event record/query calls of a
 *   miss happen inside it (they do not block, and misses are rare and
 *   followed by a runtime allocation anyway).
 * ========================================================================== */

#define _AK_POOL_ALIGN        ((size_t)256)
#define _AK_POOL_SMALL_MAX    ((size_t)1 << 20)   /* requests up to 1 MiB are small */
#define _AK_POOL_SMALL_SEG    ((size_t)2 << 20)   /* small segments are 2 MiB */
#define _AK_POOL_LARGE_ROUND  ((size_t)2 << 20)   /* large segments are multiples of 2 MiB */
#define _AK_POOL_SPLIT_SMALL  ((size_t)512)       /* keep a small remainder from 512 B */
#define _AK_POOL_SPLIT_LARGE  ((size_t)1 << 20)   /* keep a large remainder from 1 MiB */
#define _AK_POOL_OVERSIZE_SLACK ((size_t)8 << 20)
#define _AK_POOL_MAX_PASS_STREAMS 64              /* streams given an event per miss pass */

/* --- treap keyed by (k0, k1, k2) ------------------------------------------ */
typedef struct _ak_ptnode {
    struct _ak_ptnode* l;
    struct _ak_ptnode* r;
    uint32_t prio;
    uintptr_t k0;
    size_t k1;
    uintptr_t k2;
} _ak_ptnode;

static int _ak_tr_cmp(const _ak_ptnode* a, const _ak_ptnode* b) {
    if (a->k0 != b->k0) return a->k0 < b->k0 ? -1 : 1;
    if (a->k1 != b->k1) return a->k1 < b->k1 ? -1 : 1;
    if (a->k2 != b->k2) return a->k2 < b->k2 ? -1 : 1;
    return 0;
}
/* Split t into keys < key (l) and keys >= key (r). */
static void _ak_tr_split(_ak_ptnode* t, const _ak_ptnode* key, _ak_ptnode** l, _ak_ptnode** r) {
    while (t) {
        if (_ak_tr_cmp(t, key) < 0) { *l = t; l = &t->r; t = t->r; }
        else { *r = t; r = &t->l; t = t->l; }
    }
    *l = NULL;
    *r = NULL;
}
/* Join two treaps where every key of a is below every key of b. */
static _ak_ptnode* _ak_tr_join(_ak_ptnode* a, _ak_ptnode* b) {
    _ak_ptnode* res = NULL;
    _ak_ptnode** pp = &res;
    while (a && b) {
        if (a->prio > b->prio) { *pp = a; pp = &a->r; a = a->r; }
        else { *pp = b; pp = &b->l; b = b->l; }
    }
    *pp = a ? a : b;
    return res;
}
static void _ak_tr_insert(_ak_ptnode** root, _ak_ptnode* n) {
    _ak_ptnode** pp = root;
    while (*pp && (*pp)->prio >= n->prio) pp = _ak_tr_cmp(n, *pp) < 0 ? &(*pp)->l : &(*pp)->r;
    _ak_tr_split(*pp, n, &n->l, &n->r);
    *pp = n;
}
/* Remove n (which must be in the tree, with the key it was inserted with). */
static int _ak_tr_erase(_ak_ptnode** root, _ak_ptnode* n) {
    _ak_ptnode** pp = root;
    while (*pp && *pp != n) pp = _ak_tr_cmp(n, *pp) < 0 ? &(*pp)->l : &(*pp)->r;
    if (!*pp) return 0;
    *pp = _ak_tr_join(n->l, n->r);
    n->l = n->r = NULL;
    return 1;
}
/* Smallest node >= key. */
static _ak_ptnode* _ak_tr_lower(_ak_ptnode* t, const _ak_ptnode* key) {
    _ak_ptnode* best = NULL;
    while (t) {
        if (_ak_tr_cmp(t, key) >= 0) { best = t; t = t->l; }
        else t = t->r;
    }
    return best;
}
/* Largest node <= key. */
static _ak_ptnode* _ak_tr_floor(_ak_ptnode* t, const _ak_ptnode* key) {
    _ak_ptnode* best = NULL;
    while (t) {
        if (_ak_tr_cmp(t, key) <= 0) { best = t; t = t->r; }
        else t = t->l;
    }
    return best;
}
#ifdef AMDKIT_TESTS   /* test-only (_ak_pool_check) */
static size_t _ak_tr_count(const _ak_ptnode* t) {
    return t ? 1 + _ak_tr_count(t->l) + _ak_tr_count(t->r) : 0;
}
#endif

/* --- pool objects ---------------------------------------------------------- */
/* An ordering event, shared by the blocks freed on one stream before it was
 * recorded; reference counted, recycled when no block needs it. */
typedef struct _ak_pevent {
    void* ev;                      /* native event */
    int refs;
    int done;                      /* sticky: seen complete */
    unsigned long long seq;        /* record order (newer = larger) */
    unsigned long long pass;       /* poll pass of the last query */
    struct _ak_pevent* next_spare;
    struct _ak_pevent* next_all;
} _ak_pevent;

enum { _AK_PB_HELD = 0, _AK_PB_USED = 1, _AK_PB_FREE = 2 };
enum { _AK_PL_NONE = 0, _AK_PL_PEND = 1, _AK_PL_UNEV = 2 };

struct _ak_pseg;
typedef struct _ak_pblock {
    _ak_ptnode node;                 /* first: free-tree node, key (owner, size, address) */
    char* ptr;
    size_t size;
    struct _ak_pseg* seg;
    struct _ak_pblock* prev;         /* address neighbours in the segment */
    struct _ak_pblock* next;
    struct _ak_pblock* lprev;        /* pending list / spare list / local lists */
    struct _ak_pblock* lnext;
    ak_stream* stream;               /* used: allocation stream; free, not ready: stream it waits on */
    _ak_pevent* event;               /* free, not ready: event after its free (NULL: none yet) */
    unsigned char state;             /* _AK_PB_* */
    unsigned char ready;             /* free: any stream may take it */
    unsigned char orphan;            /* used: its stream was destroyed (ready on free) */
    unsigned char list;              /* _AK_PL_* */
} _ak_pblock;

typedef struct _ak_pseg {
    _ak_ptnode node;                 /* first: segment-tree node, key (base, 0, 0) */
    char* base;
    size_t size;
    int small;
    int wait;                        /* release: its block's event must be waited for */
    _ak_pblock* first;
    struct _ak_pseg* sprev;          /* all segments */
    struct _ak_pseg* snext;
} _ak_pseg;

/* Address -> live block, linear probing with backward-shift deletion. */
typedef struct _ak_phash {
    uintptr_t* keys;                 /* 0 = empty */
    _ak_pblock** vals;
    size_t cap;                      /* power of two (or 0) */
    size_t count;
} _ak_phash;

/* Raw operations the pool uses: a copy of the backend table's device part
 * (ctx->bk->dev, >>impl:context-struct); tests replace them. */
typedef _ak_dev_ops _ak_pool_ops;

struct _ak_pool {
    ak_context* ctx;
    _ak_mutex lock;
    _ak_pool_ops ops;
    int enabled;
    int oom_protection;
    size_t limit;
    _ak_ptnode* free_tree[2];        /* 0: small, 1: large */
    _ak_ptnode* seg_tree;
    _ak_pseg* segs;
    _ak_pblock* pend;                /* free, waiting, with an event */
    _ak_pblock* unev;                /* free, waiting, no event yet */
    _ak_pblock* spare_blocks;
    _ak_pevent* spare_events;
    _ak_pevent* all_events;
    _ak_phash live;
    uint32_t rng;
    unsigned long long ev_seq;
    unsigned long long pass;
    ak_pool_stats st;                /* the counters ak_pool_stats_get hands out (st.limit: unused, see limit) */
    size_t inflight;                 /* bytes being allocated from the runtime outside the lock */
    size_t releasing;                /* bytes being returned to the runtime outside the lock */
    unsigned long long events_created;
};

/* --- hash map --------------------------------------------------------------- */
static size_t _ak_phash_home(uintptr_t k, size_t mask) {
    uint64_t x = ((uint64_t)k >> 8) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    return (size_t)x & mask;
}
static _ak_pblock* _ak_phash_get(const _ak_phash* h, const void* ptr) {
    uintptr_t k = (uintptr_t)ptr;
    size_t mask, i;
    if (!h->cap || !k) return NULL;
    mask = h->cap - 1;
    for (i = _ak_phash_home(k, mask); h->keys[i]; i = (i + 1) & mask)
        if (h->keys[i] == k) return h->vals[i];
    return NULL;
}
static void _ak_phash_put_nogrow(_ak_phash* h, uintptr_t k, _ak_pblock* v) {
    size_t mask = h->cap - 1, i = _ak_phash_home(k, mask);
    while (h->keys[i] && h->keys[i] != k) i = (i + 1) & mask;
    if (!h->keys[i]) h->count++;
    h->keys[i] = k;
    h->vals[i] = v;
}
/* Make room for `want` entries (load <= 1/2). 0 on host allocation failure. */
static int _ak_phash_reserve(_ak_phash* h, size_t want) {
    size_t ncap, i;
    uintptr_t* nk;
    _ak_pblock** nv;
    _ak_phash old;
    if (want <= h->cap / 2) return 1;
    ncap = h->cap ? h->cap * 2 : 64;
    while (want > ncap / 2) ncap *= 2;
    nk = (uintptr_t*)_ak_calloc(ncap * sizeof *nk);
    nv = (_ak_pblock**)_ak_calloc(ncap * sizeof *nv);
    if (!nk || !nv) { _ak_dealloc(nk); _ak_dealloc(nv); return 0; }
    old = *h;
    h->keys = nk; h->vals = nv; h->cap = ncap; h->count = 0;
    for (i = 0; i < old.cap; i++)
        if (old.keys[i]) _ak_phash_put_nogrow(h, old.keys[i], old.vals[i]);
    _ak_dealloc(old.keys);
    _ak_dealloc(old.vals);
    return 1;
}
static int _ak_phash_del(_ak_phash* h, const void* ptr) {
    uintptr_t k = (uintptr_t)ptr;
    size_t mask, i, j, home;
    if (!h->cap || !k) return 0;
    mask = h->cap - 1;
    for (i = _ak_phash_home(k, mask); h->keys[i] && h->keys[i] != k; i = (i + 1) & mask) {}
    if (!h->keys[i]) return 0;
    j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!h->keys[j]) break;
        home = _ak_phash_home(h->keys[j], mask);
        /* the entry at j stays if its home lies cyclically in (i, j] */
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j)) continue;
        h->keys[i] = h->keys[j];
        h->vals[i] = h->vals[j];
        i = j;
    }
    h->keys[i] = 0;
    h->vals[i] = NULL;
    h->count--;
    return 1;
}
static void _ak_phash_free(_ak_phash* h) {
    _ak_dealloc(h->keys);
    _ak_dealloc(h->vals);
    memset(h, 0, sizeof *h);
}

/* --- helpers ----------------------------------------------------------------- */
static uint32_t _ak_pool_rand(struct _ak_pool* p) {
    uint32_t x = p->rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    p->rng = x ? x : 0x9E3779B9u;
    return p->rng;
}
static size_t _ak_pool_round(size_t n, size_t to) { return (n + to - 1) / to * to; }
static uintptr_t _ak_pool_owner(const _ak_pblock* b) {
    return b->ready ? (uintptr_t)0 : (uintptr_t)b->stream + 1;
}
static const char* _ak_pool_stream_label(const ak_stream* s) { return s ? s->name : "default"; }
/* "3.00 MiB" */
static const char* _ak_pool_human(size_t n, char* buf, size_t cap) {
    static const char* unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)n;
    int u = 0;
    while (v >= 1024.0 && u < 4) { v /= 1024.0; u++; }
    if (u == 0) snprintf(buf, cap, "%zu B", n);
    else snprintf(buf, cap, "%.2f %s", v, unit[u]);
    return buf;
}

static _ak_pblock* _ak_pool_block_new(struct _ak_pool* p) {
    _ak_pblock* b = p->spare_blocks;
    if (b) p->spare_blocks = b->lnext;
    else b = (_ak_pblock*)_ak_alloc(sizeof *b);
    if (b) memset(b, 0, sizeof *b);
    return b;
}
static void _ak_pool_block_recycle(struct _ak_pool* p, _ak_pblock* b) {
    b->state = _AK_PB_HELD;
    b->lnext = p->spare_blocks;
    p->spare_blocks = b;
}

static void _ak_pool_event_release(struct _ak_pool* p, _ak_pevent* w) {
    if (!w) return;
    if (--w->refs > 0) return;
    w->refs = 0;
    w->next_spare = p->spare_events;
    p->spare_events = w;
}
/* An event recorded now on stream s (refs 0; the caller takes references).
 * NULL if the runtime cannot make or record one. Under the lock. */
static _ak_pevent* _ak_pool_event_record(struct _ak_pool* p, ak_stream* s) {
    _ak_pevent* w = p->spare_events;
    if (w) {
        p->spare_events = w->next_spare;
    } else {
        void* ev = NULL;
        if (p->ops.ev_create(p->ctx, &ev) != AK_OK) return NULL;
        w = (_ak_pevent*)_ak_calloc(sizeof *w);
        if (!w) { p->ops.ev_destroy(p->ctx, ev); return NULL; }
        w->ev = ev;
        w->next_all = p->all_events;
        p->all_events = w;
        p->events_created++;
    }
    if (p->ops.ev_record(p->ctx, w->ev, _ak_native_stream(s)) != AK_OK) {
        w->next_spare = p->spare_events;
        p->spare_events = w;
        return NULL;
    }
    w->refs = 0;
    w->done = 0;
    w->pass = 0;
    w->seq = ++p->ev_seq;
    return w;
}

static void _ak_pool_list_add(_ak_pblock** head, _ak_pblock* b) {
    b->lprev = NULL;
    b->lnext = *head;
    if (*head) (*head)->lprev = b;
    *head = b;
}
static void _ak_pool_list_remove(_ak_pblock** head, _ak_pblock* b) {
    if (b->lprev) b->lprev->lnext = b->lnext;
    else *head = b->lnext;
    if (b->lnext) b->lnext->lprev = b->lprev;
    b->lprev = b->lnext = NULL;
}

/* Put a free block into the free structures (its key must not change while
 * it is there). */
static void _ak_pool_link_free(struct _ak_pool* p, _ak_pblock* b) {
    b->state = _AK_PB_FREE;
    b->node.k0 = _ak_pool_owner(b);
    b->node.k1 = b->size;
    b->node.k2 = (uintptr_t)b->ptr;
    b->node.l = b->node.r = NULL;
    b->node.prio = _ak_pool_rand(p);
    _ak_tr_insert(&p->free_tree[b->seg->small ? 0 : 1], &b->node);
    if (b->ready) b->list = _AK_PL_NONE;
    else if (b->event) { b->list = _AK_PL_PEND; _ak_pool_list_add(&p->pend, b); }
    else { b->list = _AK_PL_UNEV; _ak_pool_list_add(&p->unev, b); }
    p->st.free_blocks++;
}
static void _ak_pool_unlink_free(struct _ak_pool* p, _ak_pblock* b) {
    _ak_tr_erase(&p->free_tree[b->seg->small ? 0 : 1], &b->node);
    if (b->list == _AK_PL_PEND) _ak_pool_list_remove(&p->pend, b);
    else if (b->list == _AK_PL_UNEV) _ak_pool_list_remove(&p->unev, b);
    b->list = _AK_PL_NONE;
    b->state = _AK_PB_HELD;
    p->st.free_blocks--;
}

/* Can two adjacent free blocks become one? */
static int _ak_pool_compatible(const _ak_pblock* x, const _ak_pblock* y) {
    return x->ready || y->ready || x->stream == y->stream;
}
/* x takes the combined waiting state of x and y (both free, unlinked). */
static void _ak_pool_combine(struct _ak_pool* p, _ak_pblock* x, _ak_pblock* y) {
    if (x->ready && y->ready) return;
    if (x->ready) {
        x->ready = 0;
        x->stream = y->stream;
        x->event = y->event;
        y->event = NULL;
        return;
    }
    if (y->ready) return;
    /* both wait on the same stream */
    if (!x->event || !y->event) {
        /* a block without an event was freed after every event of its
         * stream: the merged block must wait for a new one */
        _ak_pool_event_release(p, x->event);
        _ak_pool_event_release(p, y->event);
        x->event = y->event = NULL;
    } else if (y->event->seq > x->event->seq) {
        _ak_pool_event_release(p, x->event);
        x->event = y->event;
        y->event = NULL;
    } else {
        _ak_pool_event_release(p, y->event);
        y->event = NULL;
    }
}
/* b is free and unlinked: merge it with free neighbours, then link it. */
static void _ak_pool_coalesce_link(struct _ak_pool* p, _ak_pblock* b) {
    _ak_pblock* n = b->prev;
    if (n && n->state == _AK_PB_FREE && _ak_pool_compatible(n, b)) {
        _ak_pool_unlink_free(p, n);
        _ak_pool_combine(p, n, b);
        n->size += b->size;
        n->next = b->next;
        if (b->next) b->next->prev = n;
        _ak_pool_block_recycle(p, b);
        b = n;
    }
    n = b->next;
    if (n && n->state == _AK_PB_FREE && _ak_pool_compatible(b, n)) {
        _ak_pool_unlink_free(p, n);
        _ak_pool_combine(p, b, n);
        b->size += n->size;
        b->next = n->next;
        if (n->next) n->next->prev = b;
        _ak_pool_block_recycle(p, n);
    }
    _ak_pool_link_free(p, b);
}

/* Give every waiting block without an event one event per stream. */
static void _ak_pool_mark_events(struct _ak_pool* p) {
    ak_stream* ss[_AK_POOL_MAX_PASS_STREAMS];
    _ak_pevent* ws[_AK_POOL_MAX_PASS_STREAMS];
    int n = 0, i;
    _ak_pblock* b = p->unev;
    while (b) {
        _ak_pblock* next = b->lnext;
        _ak_pevent* w = NULL;
        for (i = 0; i < n; i++) if (ss[i] == b->stream) break;
        if (i < n) {
            w = ws[i];
        } else if (n < _AK_POOL_MAX_PASS_STREAMS) {
            w = _ak_pool_event_record(p, b->stream);
            ss[n] = b->stream;
            ws[n] = w;
            n++;
        }
        if (w) {
            _ak_pool_list_remove(&p->unev, b);
            b->event = w;
            w->refs++;
            b->list = _AK_PL_PEND;
            _ak_pool_list_add(&p->pend, b);
        }
        b = next;
    }
    /* an event no block took (cannot happen, but never leak one) */
    for (i = 0; i < n; i++)
        if (ws[i] && ws[i]->refs == 0) { ws[i]->refs = 1; _ak_pool_event_release(p, ws[i]); }
}
static int _ak_pool_event_is_done(struct _ak_pool* p, _ak_pevent* w) {
    if (!w->done && w->pass != p->pass) {
        w->pass = p->pass;
        w->done = p->ops.ev_done(p->ctx, w->ev) ? 1 : 0;
    }
    return w->done;
}
/* Blocks whose event completed become ready (and merge). */
/* Blocks taken off the free lists (a list through lnext) back on them, ready
 * for any stream: their events released, merged with free neighbours. */
static void _ak_pool_relink(struct _ak_pool* p, _ak_pblock* list) {
    while (list) {
        _ak_pblock* b = list;
        list = b->lnext;
        b->lnext = NULL;
        _ak_pool_event_release(p, b->event);
        b->event = NULL;
        b->ready = 1;
        b->stream = NULL;
        _ak_pool_coalesce_link(p, b);
    }
}
static void _ak_pool_poll(struct _ak_pool* p) {
    _ak_pblock* local = NULL;
    _ak_pblock* b;
    p->pass++;
    b = p->pend;
    while (b) {
        _ak_pblock* next = b->lnext;
        if (_ak_pool_event_is_done(p, b->event)) {
            _ak_pool_unlink_free(p, b);   /* state HELD: not merged with until relinked */
            b->lnext = local;
            local = b;
        }
        b = next;
    }
    _ak_pool_relink(p, local);
}

/* Smallest free block in `tree` with owner `owner` and size >= size. */
static _ak_pblock* _ak_pool_lower(_ak_ptnode* tree, uintptr_t owner, size_t size) {
    _ak_ptnode key;
    _ak_ptnode* n;
    key.l = key.r = NULL; key.prio = 0;
    key.k0 = owner; key.k1 = size; key.k2 = 0;
    n = _ak_tr_lower(tree, &key);
    if (!n || n->k0 != owner) return NULL;
    return (_ak_pblock*)(void*)n;
}
/* block (>= req) is oversize for req: more than twice it and more than the
 * slack above it. */
static int _ak_pool_oversize(size_t block, size_t req) {
    return block - req > req && block - req > _AK_POOL_OVERSIZE_SLACK;
}
/* Best fit for `size` on `stream`: own waiting blocks or ready ones. */
static _ak_pblock* _ak_pool_find(struct _ak_pool* p, int small, ak_stream* stream, size_t size) {
    _ak_ptnode* tree = p->free_tree[small ? 0 : 1];
    _ak_pblock* a = _ak_pool_lower(tree, (uintptr_t)stream + 1, size);
    _ak_pblock* r = _ak_pool_lower(tree, 0, size);
    _ak_pblock* c = a;
    if (r && (!c || r->size < c->size)) c = r;
    if (c && !small && _ak_pool_oversize(c->size, size)) return NULL;
    return c;
}
/* Hand out b (free, unlinked) for `size` bytes on `stream`; split the rest
 * off when it is worth keeping. The hash must have room. */
static void _ak_pool_carve(struct _ak_pool* p, _ak_pblock* b, size_t size, ak_stream* stream) {
    size_t rest = b->size - size;
    if (rest >= (b->seg->small ? _AK_POOL_SPLIT_SMALL : _AK_POOL_SPLIT_LARGE)) {
        _ak_pblock* r = _ak_pool_block_new(p);
        if (r) {
            r->ptr = b->ptr + size;
            r->size = rest;
            r->seg = b->seg;
            r->prev = b;
            r->next = b->next;
            if (b->next) b->next->prev = r;
            b->next = r;
            r->ready = b->ready;
            r->stream = b->stream;
            r->event = b->event;
            if (r->event) r->event->refs++;
            _ak_pool_link_free(p, r);
            b->size = size;
        }
    }
    _ak_pool_event_release(p, b->event);
    b->event = NULL;
    b->ready = 0;
    b->orphan = 0;
    b->stream = stream;
    b->state = _AK_PB_USED;
    _ak_phash_put_nogrow(&p->live, (uintptr_t)b->ptr, b);
    p->st.in_use += b->size;
    if (p->st.in_use > p->st.peak_in_use) p->st.peak_in_use = p->st.in_use;
    p->st.allocations++;
}

static void _ak_pool_seg_add(struct _ak_pool* p, _ak_pseg* s) {
    s->node.l = s->node.r = NULL;
    s->node.prio = _ak_pool_rand(p);
    s->node.k0 = (uintptr_t)s->base;
    s->node.k1 = 0;
    s->node.k2 = 0;
    _ak_tr_insert(&p->seg_tree, &s->node);
    s->sprev = NULL;
    s->snext = p->segs;
    if (p->segs) p->segs->sprev = s;
    p->segs = s;
    p->st.reserved += s->size;
    if (p->st.reserved > p->st.peak_reserved) p->st.peak_reserved = p->st.reserved;
    p->st.blocks++;
}
static void _ak_pool_seg_remove(struct _ak_pool* p, _ak_pseg* s) {
    _ak_tr_erase(&p->seg_tree, &s->node);
    if (s->sprev) s->sprev->snext = s->snext;
    else p->segs = s->snext;
    if (s->snext) s->snext->sprev = s->sprev;
    s->sprev = s->snext = NULL;
    p->st.reserved -= s->size;
    p->st.blocks--;
}

/* Under the lock: take every whole free segment out of the pool (give
 * waiting blocks their events first). Returns them chained by snext; their
 * bytes count as `releasing` until _ak_pool_release_finish. */
static _ak_pseg* _ak_pool_release_collect(struct _ak_pool* p, size_t* count, size_t* bytes) {
    _ak_pseg* out = NULL;
    _ak_pseg* s;
    *count = 0;
    *bytes = 0;
    if (p->unev) _ak_pool_mark_events(p);
    if (p->pend) _ak_pool_poll(p);
    s = p->segs;
    while (s) {
        _ak_pseg* next = s->snext;
        _ak_pblock* b = s->first;
        if (!b->next && b->state == _AK_PB_FREE && (b->ready || b->event)) {
            _ak_pool_unlink_free(p, b);
            s->wait = b->event && !b->event->done;
            _ak_pool_seg_remove(p, s);
            p->releasing += s->size;
            s->snext = out;
            out = s;
            (*count)++;
            *bytes += s->size;
        }
        s = next;
    }
    return out;
}
/* Outside the lock: wait for pending work on the collected segments, return
 * them to the runtime, then recycle their bookkeeping. */
static void _ak_pool_release_finish(struct _ak_pool* p, _ak_pseg* list) {
    _ak_pseg* s;
    if (!list) return;
    for (s = list; s; s = s->snext) {
        if (s->wait) {
            /* the work queued before the free must finish before the memory
             * goes back (the event is kept alive by the block's reference) */
            while (!p->ops.ev_done(p->ctx, s->first->event->ev)) {
                struct timespec ts;
                ts.tv_sec = 0;
                ts.tv_nsec = 20000;
                nanosleep(&ts, NULL);
            }
        }
        p->ops.free(p->ctx, s->base);
    }
    _ak_mutex_lock(&p->lock);
    while (list) {
        s = list;
        list = s->snext;
        p->releasing -= s->size;
        _ak_pool_event_release(p, s->first->event);
        s->first->event = NULL;
        _ak_pool_block_recycle(p, s->first);
        _ak_dealloc(s);
    }
    _ak_mutex_unlock(&p->lock);
}

/* --- create / destroy / stream hook ----------------------------------------- */
static ak_result _ak_pool_create(ak_context* ctx, struct _ak_pool** out) {
    struct _ak_pool* p;
    size_t limit = (size_t)-1;
    if (!ctx || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "pool create: NULL context or output");
    *out = NULL;
    p = (struct _ak_pool*)_ak_calloc(sizeof *p);
    if (!p) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "pool create: host allocation of %zu bytes failed", sizeof *p);
    p->ctx = ctx;
    _ak_mutex_init(&p->lock);
    p->ops = *_ak_dev_ops_shared();
    p->enabled = ctx->cfg.pool_enabled != 0;
    p->oom_protection = ctx->cfg.oom_protection != 0;
    if (ctx->cfg.pool_size > 0) limit = (size_t)ctx->cfg.pool_size;
    if (ctx->dev.mem_total > 0 && ctx->cfg.max_memory_fraction > 0.0 && ctx->cfg.max_memory_fraction <= 1.0) {
        double f = ctx->cfg.max_memory_fraction * (double)ctx->dev.mem_total;
        size_t lf = f >= (double)ctx->dev.mem_total ? ctx->dev.mem_total : (size_t)f;
        if (lf < limit) limit = lf;
    }
    p->limit = limit;
    p->rng = (uint32_t)(_ak_now_ns() ^ (uint64_t)(uintptr_t)p) | 1u;
    *out = p;
    return AK_OK;
}

static void _ak_pool_destroy(struct _ak_pool* p) {
    _ak_pseg* s;
    _ak_pevent* w;
    _ak_pblock* b;
    if (!p) return;
    if (p->live.count)
        _ak_log(&p->ctx->log, AK_LOG_DEBUG, AK_LOGITEM_GENERIC,
                "memory pool destroyed with %zu live allocation(s), %zu bytes in use; freeing them",
                p->live.count, p->st.in_use);
    s = p->segs;
    while (s) {
        _ak_pseg* next = s->snext;
        p->ops.free(p->ctx, s->base);
        b = s->first;
        while (b) { _ak_pblock* nb = b->next; _ak_dealloc(b); b = nb; }
        _ak_dealloc(s);
        s = next;
    }
    b = p->spare_blocks;
    while (b) { _ak_pblock* nb = b->lnext; _ak_dealloc(b); b = nb; }
    w = p->all_events;
    while (w) { _ak_pevent* nw = w->next_all; p->ops.ev_destroy(p->ctx, w->ev); _ak_dealloc(w); w = nw; }
    _ak_phash_free(&p->live);
    _ak_mutex_destroy(&p->lock);
    _ak_dealloc(p);
}

/* Called after stream s was synchronized and before it is freed: blocks
 * waiting on it become ready; live blocks of it become ready when freed. */
static void _ak_pool_stream_destroyed(struct _ak_pool* p, ak_stream* s) {
    _ak_pblock* local = NULL;
    _ak_pblock* b;
    size_t i;
    int k;
    if (!p || !s) return;
    _ak_mutex_lock(&p->lock);
    for (k = 0; k < 2; k++) {
        while ((b = _ak_pool_lower(p->free_tree[k], (uintptr_t)s + 1, 0)) != NULL) {
            _ak_pool_unlink_free(p, b);
            b->lnext = local;
            local = b;
        }
    }
    _ak_pool_relink(p, local);
    for (i = 0; i < p->live.cap; i++) {
        b = p->live.keys[i] ? p->live.vals[i] : NULL;
        if (b && b->stream == s) { b->stream = NULL; b->orphan = 1; }
    }
    _ak_mutex_unlock(&p->lock);
}

/* Explain why ptr is not a live block (under the lock). */
static void _ak_pool_diagnose(struct _ak_pool* p, const void* ptr, char* msg, size_t cap) {
    _ak_ptnode key;
    _ak_ptnode* n;
    _ak_pseg* s;
    char h[32];
    key.l = key.r = NULL; key.prio = 0;
    key.k0 = (uintptr_t)ptr; key.k1 = 0; key.k2 = 0;
    n = _ak_tr_floor(p->seg_tree, &key);
    s = (_ak_pseg*)(void*)n;
    if (s && (uintptr_t)ptr < (uintptr_t)s->base + s->size) {
        _ak_pblock* b = s->first;
        size_t off;
        while (b && (uintptr_t)ptr >= (uintptr_t)b->ptr + b->size) b = b->next;
        if (!b) { snprintf(msg, cap, "ak_free(%p): pointer not allocated by this pool", ptr); return; }
        off = (size_t)((uintptr_t)ptr - (uintptr_t)b->ptr);
        if (b->state == _AK_PB_USED)
            snprintf(msg, cap, "ak_free(%p): interior pointer, %zu bytes into the block at %p (%s) allocated by "
                     "this pool; pass the pointer ak_malloc returned", ptr, off, (void*)b->ptr,
                     _ak_pool_human(b->size, h, sizeof h));
        else if (off == 0)
            snprintf(msg, cap, "ak_free(%p): double free: the block is already free in the pool", ptr);
        else
            snprintf(msg, cap, "ak_free(%p): pointer lies in free pool memory (%zu bytes into a free block of %s): "
                     "double free of a merged block, or a pointer never returned by ak_malloc",
                     ptr, off, _ak_pool_human(b->size, h, sizeof h));
        return;
    }
    snprintf(msg, cap, "ak_free(%p): foreign pointer: not allocated by this context's pool (or already freed "
             "and its memory returned to the runtime)", ptr);
}

/* --- public API ---------------------------------------------------------------- */
AKDEF ak_result ak_malloc(ak_context* ctx, size_t bytes, ak_stream* stream, void** out) {
    struct _ak_pool* p;
    size_t size, segsize;
    int small, attempt;
    if (!out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_malloc: out is NULL");
    *out = NULL;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_malloc: ctx is NULL");
    if (bytes == 0) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_malloc: size is 0 bytes, expected at least 1");
    if (bytes > (size_t)-1 / 2)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_malloc: size %zu bytes is too large (over SIZE_MAX/2)", bytes);
    if (stream && stream->ctx != ctx)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_malloc: stream '%s' belongs to another context", stream->name);
    p = ctx->pool;
    if (!p) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_malloc: the context has no memory pool");
    size = _ak_pool_round(bytes, _AK_POOL_ALIGN);
    small = p->enabled && size <= _AK_POOL_SMALL_MAX;
    segsize = !p->enabled ? size : small ? _AK_POOL_SMALL_SEG : _ak_pool_round(size, _AK_POOL_LARGE_ROUND);
    for (attempt = 0;; attempt++) {
        char rt_msg[512];
        const char* cause;
        size_t used, resv, lim, nseg;
        rt_msg[0] = 0;
        _ak_mutex_lock(&p->lock);
        if (!_ak_phash_reserve(&p->live, p->live.count + 1)) {
            _ak_mutex_unlock(&p->lock);
            return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_malloc: host allocation for pool bookkeeping failed");
        }
        if (p->enabled) {
            _ak_pblock* b = _ak_pool_find(p, small, stream, size);
            if (!b && (p->unev || p->pend)) {
                if (p->unev) _ak_pool_mark_events(p);
                _ak_pool_poll(p);
                b = _ak_pool_find(p, small, stream, size);
            }
            if (b) {
                _ak_pool_unlink_free(p, b);
                _ak_pool_carve(p, b, size, stream);
                p->st.cache_hits++;
                *out = b->ptr;
                _ak_mutex_unlock(&p->lock);
                return AK_OK;
            }
        }
        if (p->st.reserved + p->inflight + p->releasing > p->limit ||
            segsize > p->limit - (p->st.reserved + p->inflight + p->releasing)) {
            cause = "the pool limit (pool_size / max_memory_fraction) would be exceeded";
        } else {
            void* mem = NULL;
            ak_result r;
            _ak_pseg* s = NULL;
            _ak_pblock* b = NULL;
            p->inflight += segsize;
            _ak_mutex_unlock(&p->lock);
            r = p->ops.alloc(ctx, segsize, &mem);
            if (r == AK_OK && !mem) r = AK_ERROR_OUT_OF_MEMORY;
            if (r == AK_OK) {
                s = (_ak_pseg*)_ak_calloc(sizeof *s);
                b = (_ak_pblock*)_ak_calloc(sizeof *b);
                if (!s || !b) {
                    _ak_dealloc(s); _ak_dealloc(b);
                    p->ops.free(ctx, mem);
                    _ak_mutex_lock(&p->lock);
                    p->inflight -= segsize;
                    _ak_mutex_unlock(&p->lock);
                    return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_malloc: host allocation for pool bookkeeping failed");
                }
            } else {
                _ak_copy(rt_msg, sizeof rt_msg, ak_last_error());
            }
            _ak_mutex_lock(&p->lock);
            p->inflight -= segsize;
            if (r == AK_OK) {
                if (!_ak_phash_reserve(&p->live, p->live.count + 1)) {
                    _ak_mutex_unlock(&p->lock);
                    p->ops.free(ctx, mem);
                    _ak_dealloc(s); _ak_dealloc(b);
                    return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_malloc: host allocation for pool bookkeeping failed");
                }
                s->base = (char*)mem;
                s->size = segsize;
                s->small = small;
                s->first = b;
                b->ptr = s->base;
                b->size = segsize;
                b->seg = s;
                b->ready = 1;
                b->state = _AK_PB_HELD;
                _ak_pool_seg_add(p, s);
                p->st.runtime_allocs++;
                _ak_pool_carve(p, b, size, stream);
                *out = b->ptr;
                _ak_mutex_unlock(&p->lock);
                return AK_OK;
            }
            cause = "the runtime allocation failed";
        }
        if (attempt == 0 && p->oom_protection) {
            size_t n = 0, nb = 0;
            char h1[32], h2[32];
            _ak_pseg* list = p->enabled ? _ak_pool_release_collect(p, &n, &nb) : NULL;
            p->st.oom_retries++;
            _ak_mutex_unlock(&p->lock);
            _ak_log(&ctx->log, AK_LOG_WARN, AK_LOGITEM_POOL_OOM_RETRY,
                    "allocating %s on stream %s: %s; releasing %zu cached segment(s) (%s) and retrying",
                    _ak_pool_human(size, h1, sizeof h1), _ak_pool_stream_label(stream), cause, n,
                    _ak_pool_human(nb, h2, sizeof h2));
            _ak_pool_release_finish(p, list);
            continue;
        }
        p->st.oom_count++;
        used = p->st.in_use;
        resv = p->st.reserved;
        lim = p->limit;
        nseg = (size_t)p->st.blocks;
        _ak_mutex_unlock(&p->lock);
        {
            size_t dfree = 0, dtotal = 0;
            char hr[32], hu[32], hv[32], hl[32], hf[32], ht[32], lims[64];
            if (_ak_dev_mem_info(ctx, &dfree, &dtotal) != AK_OK) { dfree = __atomic_load_n(&ctx->dev.mem_free, __ATOMIC_RELAXED); dtotal = __atomic_load_n(&ctx->dev.mem_total, __ATOMIC_RELAXED); }
            if (lim == (size_t)-1) _ak_copy(lims, sizeof lims, "none");
            else snprintf(lims, sizeof lims, "%s (%zu bytes)", _ak_pool_human(lim, hl, sizeof hl), lim);
            return _ak_err(AK_ERROR_OUT_OF_MEMORY,
                           "ak_malloc: out of memory: tried to allocate %s (%zu bytes) on stream %s; "
                           "the pool has %s (%zu bytes) in use and %s (%zu bytes) reserved in %zu segment(s), "
                           "limit %s; device %s free of %s total; %s%s%s%s",
                           _ak_pool_human(size, hr, sizeof hr), bytes, _ak_pool_stream_label(stream),
                           _ak_pool_human(used, hu, sizeof hu), used, _ak_pool_human(resv, hv, sizeof hv), resv,
                           nseg, lims, _ak_pool_human(dfree, hf, sizeof hf), _ak_pool_human(dtotal, ht, sizeof ht),
                           cause, rt_msg[0] ? " (" : "", rt_msg, rt_msg[0] ? ")" : "");
        }
    }
}

AKDEF ak_result ak_free(ak_context* ctx, void* ptr) {
    struct _ak_pool* p;
    _ak_pblock* b;
    if (!ptr) return AK_OK;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_free(%p): ctx is NULL", ptr);
    p = ctx->pool;
    if (!p) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_free(%p): the context has no memory pool", ptr);
    _ak_mutex_lock(&p->lock);
    b = _ak_phash_get(&p->live, ptr);
    if (!b) {
        char msg[512];
        _ak_pool_diagnose(p, ptr, msg, sizeof msg);
        _ak_mutex_unlock(&p->lock);
        return _ak_err(AK_ERROR_MEMORY, "%s", msg);
    }
    _ak_phash_del(&p->live, ptr);
    p->st.in_use -= b->size;
    p->st.frees++;
    if (!p->enabled) {
        _ak_pseg* s = b->seg;
        b->state = _AK_PB_HELD;
        _ak_pool_seg_remove(p, s);
        p->releasing += s->size;
        _ak_mutex_unlock(&p->lock);
        p->ops.free(ctx, s->base);
        _ak_mutex_lock(&p->lock);
        p->releasing -= s->size;
        _ak_pool_block_recycle(p, b);
        _ak_mutex_unlock(&p->lock);
        _ak_dealloc(s);
        return AK_OK;
    }
    b->state = _AK_PB_HELD;
    b->event = NULL;
    b->ready = b->orphan;
    b->orphan = 0;
    if (b->ready) b->stream = NULL;
    _ak_pool_coalesce_link(p, b);
    _ak_mutex_unlock(&p->lock);
    return AK_OK;
}

AKDEF ak_result ak_pool_stats_get(ak_context* ctx, ak_pool_stats* out) {
    struct _ak_pool* p;
    if (!ctx || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_pool_stats_get: NULL %s", ctx ? "out" : "ctx");
    p = ctx->pool;
    if (!p) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_pool_stats_get: the context has no memory pool");
    _ak_mutex_lock(&p->lock);
    *out = p->st;
    out->limit = p->limit;
    _ak_mutex_unlock(&p->lock);
    return AK_OK;
}

AKDEF ak_result ak_pool_trim(ak_context* ctx) {
    struct _ak_pool* p;
    _ak_pseg* list;
    size_t n = 0, nb = 0, resv;
    char h1[32], h2[32];
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_pool_trim: ctx is NULL");
    p = ctx->pool;
    if (!p) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_pool_trim: the context has no memory pool");
    _ak_mutex_lock(&p->lock);
    list = _ak_pool_release_collect(p, &n, &nb);
    resv = p->st.reserved;
    _ak_mutex_unlock(&p->lock);
    _ak_pool_release_finish(p, list);
    _ak_log(&ctx->log, AK_LOG_INFO, AK_LOGITEM_POOL_TRIM, "released %zu segment(s), %s; %s still reserved",
            n, _ak_pool_human(nb, h1, sizeof h1), _ak_pool_human(resv, h2, sizeof h2));
    return AK_OK;
}

#ifdef AMDKIT_TESTS   /* test-only (tests/ti_pool.c) */
/* Consistency check of the whole pool (tests): 0 if sound, else a message
 * in msg. Takes the lock. */
static int _ak_pool_check(struct _ak_pool* p, char* msg, size_t cap) {
    _ak_pseg* s;
    size_t reserved = 0, in_use = 0, nfree = 0, nused = 0, nsegs = 0, tree_n;
    int bad = 0;
    msg[0] = 0;
    _ak_mutex_lock(&p->lock);
#define _AK_PCHK(c, ...) do { if (!bad && !(c)) { bad = 1; snprintf(msg, cap, __VA_ARGS__); } } while (0)
    for (s = p->segs; s; s = s->snext) {
        _ak_pblock* b;
        char* at = s->base;
        nsegs++;
        reserved += s->size;
        _AK_PCHK(s->first && s->first->prev == NULL, "segment %p: bad first block", (void*)s->base);
        for (b = s->first; b; b = b->next) {
            _AK_PCHK(b->ptr == at, "segment %p: block %p not contiguous", (void*)s->base, (void*)b->ptr);
            _AK_PCHK(b->seg == s, "block %p: wrong segment", (void*)b->ptr);
            _AK_PCHK(b->size > 0 && b->size % _AK_POOL_ALIGN == 0, "block %p: size %zu", (void*)b->ptr, b->size);
            _AK_PCHK(!b->next || b->next->prev == b, "block %p: broken links", (void*)b->ptr);
            at += b->size;
            if (b->state == _AK_PB_USED) {
                nused++;
                in_use += b->size;
                _AK_PCHK(_ak_phash_get(&p->live, b->ptr) == b, "block %p: used but not in the hash", (void*)b->ptr);
            } else if (b->state == _AK_PB_FREE) {
                _ak_ptnode* n;
                nfree++;
                _AK_PCHK(_ak_phash_get(&p->live, b->ptr) == NULL, "block %p: free but in the hash", (void*)b->ptr);
                _AK_PCHK(b->node.k0 == _ak_pool_owner(b) && b->node.k1 == b->size && b->node.k2 == (uintptr_t)b->ptr,
                         "block %p: stale key", (void*)b->ptr);
                n = _ak_tr_lower(p->free_tree[s->small ? 0 : 1], &b->node);
                _AK_PCHK(n == &b->node, "block %p: free but not in its tree", (void*)b->ptr);
                _AK_PCHK(!b->ready || (!b->event && b->list == _AK_PL_NONE), "block %p: ready with an event", (void*)b->ptr);
                _AK_PCHK(b->ready || b->list == (b->event ? _AK_PL_PEND : _AK_PL_UNEV), "block %p: wrong list", (void*)b->ptr);
                _AK_PCHK(!b->event || b->event->refs > 0, "block %p: event without references", (void*)b->ptr);
                _AK_PCHK(!b->next || b->next->state != _AK_PB_FREE || !_ak_pool_compatible(b, b->next),
                         "block %p: mergeable free neighbours not merged", (void*)b->ptr);
            } else {
                _AK_PCHK(0, "block %p: held block outside an operation", (void*)b->ptr);
            }
        }
        _AK_PCHK(at == s->base + s->size, "segment %p: blocks do not cover it", (void*)s->base);
    }
    tree_n = _ak_tr_count(p->free_tree[0]) + _ak_tr_count(p->free_tree[1]);
    _AK_PCHK(reserved == p->st.reserved, "reserved %zu, counted %zu", p->st.reserved, reserved);
    _AK_PCHK(in_use == p->st.in_use, "in_use %zu, counted %zu", p->st.in_use, in_use);
    _AK_PCHK(nfree == p->st.free_blocks && tree_n == nfree, "free blocks %llu, counted %zu, in trees %zu",
             p->st.free_blocks, nfree, tree_n);
    _AK_PCHK(nused == p->live.count, "live %zu, counted %zu", p->live.count, nused);
    _AK_PCHK(nsegs == p->st.blocks, "segments %llu, counted %zu", p->st.blocks, nsegs);
    _AK_PCHK(p->st.reserved <= p->limit, "reserved %zu over the limit %zu", p->st.reserved, p->limit);
    _AK_PCHK(_ak_tr_count(p->seg_tree) == nsegs, "segment tree holds %zu of %zu", _ak_tr_count(p->seg_tree), nsegs);
#undef _AK_PCHK
    _ak_mutex_unlock(&p->lock);
    return bad;
}
#endif
/* ==========================================================================
 * >>impl:prof  (profiling regions: per-thread stacks, statistics per name,
 * every instance kept for a Chrome trace, GPU timing with events, roctx/NVTX)
 *
 * Layout: one struct _ak_prof per context (ctx->prof), one mutex around its
 * tables. A region opened with ak_prof_begin lives on its thread's stack
 * (threads are found by OS thread id in a small slot list; a slot is given
 * back when its stack empties). ak_prof_end pops it, records one instance
 * (name, thread, stream name, host start, duration) and, for a host-timed
 * region, adds the duration to the name's statistics at once. A GPU-timed
 * region (hip / cuda) recorded an event at begin and one at end on its
 * stream; its timing stays pending until ak_prof_stats / summary / export
 * (which wait for the end events), or until ak_prof_end finds its end event
 * complete; more than _AK_PROF_PENDING_MAX pending timings make ak_prof_end
 * wait for the oldest few. Events are reused through a free list.
 * Trace placement: a host-timed instance sits on its thread's track at its
 * host start. A GPU-timed one sits on a track of its stream ("GPU stream
 * NAME") at the GPU time of its start event, mapped to the host clock
 * through an anchor event (recorded and waited for at creation, when the
 * device is idle, and moved forward to a later start event every second of
 * GPU time so the float milliseconds of the event API stay precise).
 * Durations are kept in integer nanoseconds, so the trace's per-instance
 * values add up exactly to the totals of the statistics.
 * ========================================================================== */
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#ifndef AK_PROF_MAX_INSTANCES
#define AK_PROF_MAX_INSTANCES 1000000   /* instances kept for the trace; stats keep counting past it */
#endif
#define _AK_PROF_PENDING_MAX 4096       /* unresolved GPU timings before ak_prof_end waits */
#define _AK_PROF_POLL 8                 /* pending timings one ak_prof_end settles at most */
#define _AK_PROF_POLL_FROM 32           /* ak_prof_end looks at finished timings from this many pending */
#define _AK_PROF_GPU_TRACK 0x40000000L  /* trace tid of GPU stream tracks: this + stream name index (above any OS tid) */

typedef int (*_ak_prof_push_fn)(const char* message);
typedef int (*_ak_prof_pop_fn)(void);

/* Interned strings (region names, stream names): index <-> string. */
typedef struct _ak_prof_names {
    char** s;
    uint32_t* hash;
    int n, cap;
    int* slot;      /* open addressing: string index or -1; nslot is 0 or a power of two */
    int nslot;
} _ak_prof_names;

typedef struct _ak_prof_frame {
    int region, stream_name;
    ak_stream* stream;
    ak_event* ev0;      /* GPU start event, NULL when host-timed */
    int tool;           /* 1 if a roctx / NVTX range was pushed */
    uint64_t t0;
} _ak_prof_frame;

typedef struct _ak_prof_thread {
    long tid;           /* OS thread id; 0 = slot free */
    int depth, cap;
    _ak_prof_frame* frames;
} _ak_prof_thread;

typedef struct _ak_prof_inst {
    uint64_t start_ns;  /* host clock at begin */
    uint64_t dur_ns;
    long tid;
    int region, stream_name;
    int timer;          /* 0 host, 1 gpu (start_ns: GPU start on the host clock), -1 gpu timing pending */
} _ak_prof_inst;

typedef struct _ak_prof_pending {
    long inst;          /* index in the instances, -1 if dropped from the trace */
    int region;
    uint64_t host_ns;   /* fallback if the events cannot be read */
    ak_event* e0;
    ak_event* e1;
} _ak_prof_pending;

typedef struct _ak_prof_region {
    unsigned long long count, gpu_count;
    uint64_t total_ns, min_ns, max_ns;
} _ak_prof_region;

struct _ak_prof {
    ak_context* ctx;
    _ak_mutex lock;
    int gpu;                          /* 1: time with device events */
    void* tool_lib;
    const char* tool_name;
    _ak_prof_push_fn push;
    _ak_prof_pop_fn pop;
    _ak_prof_names names;             /* region names, first-seen order */
    _ak_prof_region* regions;         /* parallel to names, regions_cap entries */
    int regions_cap;
    _ak_prof_names streams;           /* stream names of instances */
    _ak_prof_thread** threads;
    int nthreads, threads_cap;
    _ak_prof_inst* inst;
    size_t ninst, inst_cap, max_inst;
    unsigned long long dropped;
    _ak_prof_pending* pend;           /* FIFO: live entries are [pend_head, npend) */
    size_t pend_head, npend, pend_cap;
    ak_event** free_ev;
    int nfree, free_cap;
    int warned;
    ak_event* anchor;                 /* GPU clock anchor for trace placement (NULL: none) */
    uint64_t anchor_ns;               /* host-clock time of the anchor's GPU timestamp */
    unsigned long export_seq;         /* temp-file names of exports */
};

/* ---- OS thread id, cached per thread ---- */
static pthread_key_t _ak_prof_tid_key;
static pthread_once_t _ak_prof_tid_once = PTHREAD_ONCE_INIT;
static int _ak_prof_tid_key_ok;
static pthread_mutex_t _ak_prof_tid_mutex = PTHREAD_MUTEX_INITIALIZER;
static long _ak_prof_tid_next = 1;
static void _ak_prof_tid_make(void) { _ak_prof_tid_key_ok = pthread_key_create(&_ak_prof_tid_key, NULL) == 0; }
static long _ak_prof_tid(void) {
    void* v;
    long t;
    pthread_once(&_ak_prof_tid_once, _ak_prof_tid_make);
    if (_ak_prof_tid_key_ok && (v = pthread_getspecific(_ak_prof_tid_key)) != NULL) return (long)(intptr_t)v;
#if defined(__linux__) && defined(SYS_gettid) && defined(__USE_MISC)  /* glibc declares syscall() */
    t = (long)syscall(SYS_gettid);
#else
    t = 0;
#endif
    if (t <= 0) { /* no OS id: a process-wide sequence number */
        pthread_mutex_lock(&_ak_prof_tid_mutex);
        t = _ak_prof_tid_next++;
        pthread_mutex_unlock(&_ak_prof_tid_mutex);
    }
    if (_ak_prof_tid_key_ok) pthread_setspecific(_ak_prof_tid_key, (void*)(intptr_t)t);
    return t;
}

/* ---- interned strings ---- */
static uint32_t _ak_prof_hash(const char* s) {
    uint32_t h = 2166136261u;
    while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; }
    return h;
}
static int _ak_prof_names_find(const _ak_prof_names* t, const char* s, uint32_t h) {
    int i;
    if (!t->nslot) return -1;
    for (i = (int)(h & (uint32_t)(t->nslot - 1)); t->slot[i] >= 0; i = (i + 1) & (t->nslot - 1))
        if (t->hash[t->slot[i]] == h && !strcmp(t->s[t->slot[i]], s)) return t->slot[i];
    return -1;
}
/* Index of s, added if new; -1 when out of memory. *added set to 1 for a new string. */
static int _ak_prof_intern(_ak_prof_names* t, const char* s, int* added) {
    uint32_t h = _ak_prof_hash(s);
    int k = _ak_prof_names_find(t, s, h), i;
    char* copy;
    if (added) *added = 0;
    if (k >= 0) return k;
    if ((t->n + 1) * 2 > t->nslot) {
        int ns = t->nslot ? t->nslot * 2 : 16, j;
        int* slot = (int*)_ak_alloc((size_t)ns * sizeof(int));
        if (!slot) return -1;
        for (j = 0; j < ns; j++) slot[j] = -1;
        for (j = 0; j < t->n; j++) {
            for (i = (int)(t->hash[j] & (uint32_t)(ns - 1)); slot[i] >= 0; i = (i + 1) & (ns - 1)) {}
            slot[i] = j;
        }
        _ak_dealloc(t->slot);
        t->slot = slot;
        t->nslot = ns;
    }
    if (t->n == t->cap) {
        int nc = t->cap ? t->cap * 2 : 16;
        char** ns_ = (char**)_ak_realloc(t->s, (size_t)nc * sizeof(char*));
        uint32_t* nh;
        if (!ns_) return -1;
        t->s = ns_;
        nh = (uint32_t*)_ak_realloc(t->hash, (size_t)nc * sizeof(uint32_t));
        if (!nh) return -1;
        t->hash = nh;
        t->cap = nc;
    }
    copy = _ak_strdup(s);
    if (!copy) return -1;
    k = t->n++;
    t->s[k] = copy;
    t->hash[k] = h;
    for (i = (int)(h & (uint32_t)(t->nslot - 1)); t->slot[i] >= 0; i = (i + 1) & (t->nslot - 1)) {}
    t->slot[i] = k;
    if (added) *added = 1;
    return k;
}
static void _ak_prof_names_free(_ak_prof_names* t) {
    int i;
    for (i = 0; i < t->n; i++) _ak_dealloc(t->s[i]);
    _ak_dealloc(t->s);
    _ak_dealloc(t->hash);
    _ak_dealloc(t->slot);
    memset(t, 0, sizeof *t);
}

/* ---- tables (all called with p->lock held) ---- */
static int _ak_prof_region_id(struct _ak_prof* p, const char* name) {
    int added, k;
    if (p->names.n >= p->regions_cap) { /* room first, so a new name always has its row */
        int nc = p->regions_cap ? p->regions_cap * 2 : 16;
        _ak_prof_region* r = (_ak_prof_region*)_ak_realloc(p->regions, (size_t)nc * sizeof *r);
        if (!r) return -1;
        p->regions = r;
        p->regions_cap = nc;
    }
    k = _ak_prof_intern(&p->names, name, &added);
    if (k >= 0 && added) memset(&p->regions[k], 0, sizeof p->regions[k]);
    return k;
}
/* The calling thread's slot (tid), or a new/free one when claim is set. */
static _ak_prof_thread* _ak_prof_thread_find(struct _ak_prof* p, long tid, int claim) {
    int i;
    _ak_prof_thread* fr = NULL;
    for (i = 0; i < p->nthreads; i++) {
        if (p->threads[i]->tid == tid) return p->threads[i];
        if (!fr && !p->threads[i]->tid) fr = p->threads[i];
    }
    if (!claim) return NULL;
    if (!fr) {
        if (p->nthreads == p->threads_cap) {
            int nc = p->threads_cap ? p->threads_cap * 2 : 8;
            _ak_prof_thread** nt = (_ak_prof_thread**)_ak_realloc(p->threads, (size_t)nc * sizeof *nt);
            if (!nt) return NULL;
            p->threads = nt;
            p->threads_cap = nc;
        }
        fr = (_ak_prof_thread*)_ak_calloc(sizeof *fr);
        if (!fr) return NULL;
        p->threads[p->nthreads++] = fr;
    }
    fr->tid = tid;
    fr->depth = 0;
    return fr;
}
static void _ak_prof_event_put(struct _ak_prof* p, ak_event* e) {
    if (!e) return;
    if (p->nfree == p->free_cap) {
        int nc = p->free_cap ? p->free_cap * 2 : 16;
        ak_event** nf = (ak_event**)_ak_realloc(p->free_ev, (size_t)nc * sizeof *nf);
        if (!nf) { ak_event_destroy(e); return; }
        p->free_ev = nf;
        p->free_cap = nc;
    }
    p->free_ev[p->nfree++] = e;
}
static void _ak_prof_account(struct _ak_prof* p, int region, uint64_t ns, int gpu) {
    _ak_prof_region* r;
    if (region < 0 || region >= p->names.n) return;
    r = &p->regions[region];
    if (!r->count || ns < r->min_ns) r->min_ns = ns;
    if (!r->count || ns > r->max_ns) r->max_ns = ns;
    r->count++;
    r->total_ns += ns;
    if (gpu) r->gpu_count++;
}
/* Wait for a pending GPU timing and account it (host duration if the events fail). */
static void _ak_prof_settle(struct _ak_prof* p, _ak_prof_pending* q) {
    float ms = 0.0f;
    uint64_t ns = q->host_ns;
    int gpu = 0;
    ak_result r = ak_event_elapsed_ms(q->e0, q->e1, &ms);   /* it waits for e1 */
    if (r != AK_OK && ak_event_synchronize(q->e1) == AK_OK) r = ak_event_elapsed_ms(q->e0, q->e1, &ms);
    if (r == AK_OK && ms >= 0.0f) {
        ns = (uint64_t)((double)ms * 1e6 + 0.5);
        gpu = 1;
    } else if (!p->warned) {
        p->warned = 1;
        _ak_log(&p->ctx->log, AK_LOG_WARN, AK_LOGITEM_GENERIC,
                "profiling: reading GPU event timing failed (%s); host time used", ak_last_error());
    }
    _ak_prof_account(p, q->region, ns, gpu);
    if (q->inst >= 0 && (size_t)q->inst < p->ninst) {
        _ak_prof_inst* in = &p->inst[q->inst];
        float off = 0.0f;
        in->dur_ns = ns;
        in->timer = 0;
        if (gpu && p->anchor && ak_event_elapsed_ms(p->anchor, q->e0, &off) == AK_OK) {
            double at = (double)p->anchor_ns + (double)off * 1e6;
            in->start_ns = at > 0.0 ? (uint64_t)(at + 0.5) : 0;
            in->timer = 1;
            if (off > 1000.0f || off < -1000.0f) { /* move the anchor forward: float ms lose precision */
                ak_event* old = p->anchor;
                p->anchor = q->e0;
                p->anchor_ns = in->start_ns;
                q->e0 = old;
            }
        }
    }
    _ak_prof_event_put(p, q->e0);
    _ak_prof_event_put(p, q->e1);
    q->e0 = q->e1 = NULL;
}
static void _ak_prof_drain(struct _ak_prof* p) {
    while (p->pend_head < p->npend) _ak_prof_settle(p, &p->pend[p->pend_head++]);
    p->pend_head = p->npend = 0;
}
/* Settle what is already finished (never waits unless too much is pending). */
static void _ak_prof_poll(struct _ak_prof* p) {
    int k = 0;
    while (p->pend_head < p->npend && k < _AK_PROF_POLL) {
        _ak_prof_pending* q = &p->pend[p->pend_head];
        if (p->npend - p->pend_head <= _AK_PROF_PENDING_MAX && !_ak_dev_event_done(p->ctx, q->e1->native)) break;
        _ak_prof_settle(p, q);
        p->pend_head++;
        k++;
    }
    if (p->pend_head == p->npend) p->pend_head = p->npend = 0;
}
/* Record a closed region. ev1: its GPU end event, already recorded (or NULL). */
static void _ak_prof_record(struct _ak_prof* p, long tid, const _ak_prof_frame* fr, uint64_t t1, ak_event* ev1) {
    uint64_t host_ns = t1 > fr->t0 ? t1 - fr->t0 : 0;
    long idx = -1;
    if (p->ninst < p->max_inst) {
        if (p->ninst == p->inst_cap) {
            size_t nc = p->inst_cap ? p->inst_cap * 2 : 1024;
            _ak_prof_inst* ni;
            if (nc > p->max_inst) nc = p->max_inst;
            ni = (_ak_prof_inst*)_ak_realloc(p->inst, nc * sizeof *ni);
            if (ni) { p->inst = ni; p->inst_cap = nc; }
        }
        if (p->ninst < p->inst_cap) {
            _ak_prof_inst* in = &p->inst[p->ninst];
            idx = (long)p->ninst++;
            in->start_ns = fr->t0;
            in->dur_ns = host_ns;
            in->tid = tid;
            in->region = fr->region;
            in->stream_name = fr->stream_name;
            in->timer = 0;
        }
    }
    if (idx < 0) p->dropped++;
    if (fr->ev0 && ev1) {
        _ak_prof_pending q;
        q.inst = idx; q.region = fr->region; q.host_ns = host_ns; q.e0 = fr->ev0; q.e1 = ev1;
        if (p->npend == p->pend_cap && p->pend_head > 0) {
            memmove(p->pend, p->pend + p->pend_head, (p->npend - p->pend_head) * sizeof *p->pend);
            p->npend -= p->pend_head;
            p->pend_head = 0;
        }
        if (p->npend == p->pend_cap) {
            size_t nc = p->pend_cap ? p->pend_cap * 2 : 64;
            _ak_prof_pending* np_ = (_ak_prof_pending*)_ak_realloc(p->pend, nc * sizeof *np_);
            if (np_) { p->pend = np_; p->pend_cap = nc; }
        }
        if (p->npend < p->pend_cap) {
            if (idx >= 0) p->inst[idx].timer = -1;
            p->pend[p->npend++] = q;
        } else {
            _ak_prof_settle(p, &q); /* no room to defer it: wait now */
        }
        if (p->npend - p->pend_head >= _AK_PROF_POLL_FROM) _ak_prof_poll(p);
    } else {
        _ak_prof_event_put(p, fr->ev0);
        _ak_prof_event_put(p, ev1);
        _ak_prof_account(p, fr->region, host_ns, 0);
    }
}
static void _ak_prof_gpu_warn(struct _ak_prof* p, const char* what) {
    int first;
    _ak_mutex_lock(&p->lock);
    first = !p->warned;
    p->warned = 1;
    _ak_mutex_unlock(&p->lock);
    if (first)
        _ak_log(&p->ctx->log, AK_LOG_WARN, AK_LOGITEM_GENERIC,
                "profiling: %s failed (%s); regions fall back to host timing where this happens", what, ak_last_error());
}

/* ---- create / destroy (called by the context) ---- */
static void _ak_prof_tools_open(struct _ak_prof* p) {
    const char* const* libs = p->ctx->bk->tracer_libs;
    const char *push_sym = p->ctx->bk->tracer_push, *pop_sym = p->ctx->bk->tracer_pop;
    char tried[256];
    int i;
    tried[0] = 0;
    if (!libs) {
        _ak_log(&p->ctx->log, AK_LOG_INFO, AK_LOGITEM_PROF_TOOLS,
                "no tracer library on the %s backend; regions are recorded by amdkit only", ak_backend_name(p->ctx->backend));
        return;
    }
    for (i = 0; libs[i]; i++) {
        void* lib = _ak_dlopen(libs[i]);
        _ak_prof_push_fn push = NULL;
        _ak_prof_pop_fn pop = NULL;
        _ak_appendf(tried, sizeof tried, "%s%s", tried[0] ? ", " : "", libs[i]);
        if (!lib) continue;
        _ak_dlsym(lib, push_sym, &push);
        _ak_dlsym(lib, pop_sym, &pop);
        if (push && pop) {
            char path[256];
            _ak_dlpath(lib, push_sym, path, sizeof path);
            p->tool_lib = lib; p->push = push; p->pop = pop; p->tool_name = libs[i];
            _ak_log(&p->ctx->log, AK_LOG_INFO, AK_LOGITEM_PROF_TOOLS, "%s found (%s): regions also appear as %s ranges",
                    libs[i], path[0] ? path : libs[i], p->ctx->bk->tracer);
            return;
        }
        _ak_appendf(tried, sizeof tried, " (no %s/%s)", push_sym, pop_sym);
        dlclose(lib);
    }
    _ak_log(&p->ctx->log, AK_LOG_INFO, AK_LOGITEM_PROF_TOOLS,
            "no tracer library (tried %s); regions are recorded by amdkit only", tried);
}

/* Record an event on the idle device and wait for it: its GPU time is about
 * the host time between recording and completion. Without it the trace
 * places GPU-timed regions at their host start. */
static void _ak_prof_anchor_make(struct _ak_prof* p) {
    ak_event* e = NULL;
    uint64_t h0, h1;
    if (ak_event_create(p->ctx, &e) != AK_OK) { ak_clear_error(); return; }
    h0 = _ak_now_ns();
    if (ak_event_record(e, NULL) != AK_OK || ak_event_synchronize(e) != AK_OK) {
        ak_event_destroy(e);
        ak_clear_error();
        return;
    }
    h1 = _ak_now_ns();
    p->anchor = e;
    p->anchor_ns = h0 + (h1 - h0) / 2;
}

static ak_result _ak_prof_create(ak_context* ctx, struct _ak_prof** out) {
    struct _ak_prof* p;
    if (!ctx || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "_ak_prof_create: NULL argument");
    *out = NULL;
    p = (struct _ak_prof*)_ak_calloc(sizeof *p);
    if (!p) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "profiling: cannot allocate %u bytes", (unsigned)sizeof *p);
    p->ctx = ctx;
    p->gpu = !ctx->bk->host_memory;
    p->max_inst = AK_PROF_MAX_INSTANCES;
    _ak_mutex_init(&p->lock);
    if (ctx->cfg.profiling) {
        _ak_prof_tools_open(p);
        if (p->gpu) _ak_prof_anchor_make(p);
    }
    *out = p;
    return AK_OK;
}

/* Forget regions, instances and open stacks; events go to the free list. */
static void _ak_prof_clear(struct _ak_prof* p) {
    int i, j;
    size_t k;
    for (k = p->pend_head; k < p->npend; k++) {
        _ak_prof_event_put(p, p->pend[k].e0);
        _ak_prof_event_put(p, p->pend[k].e1);
    }
    p->pend_head = p->npend = 0;
    for (i = 0; i < p->nthreads; i++) {
        _ak_prof_thread* th = p->threads[i];
        for (j = 0; j < th->depth; j++) _ak_prof_event_put(p, th->frames[j].ev0);
        th->depth = 0;
        th->tid = 0;
    }
    _ak_prof_names_free(&p->names);
    _ak_prof_names_free(&p->streams);
    _ak_dealloc(p->regions);
    p->regions = NULL;
    p->regions_cap = 0;
    _ak_dealloc(p->inst);
    p->inst = NULL;
    p->ninst = p->inst_cap = 0;
    p->dropped = 0;
}

static void _ak_prof_destroy(struct _ak_prof* p) {
    int i;
    if (!p) return;
    _ak_prof_clear(p);
    ak_event_destroy(p->anchor);
    for (i = 0; i < p->nfree; i++) ak_event_destroy(p->free_ev[i]);
    _ak_dealloc(p->free_ev);
    for (i = 0; i < p->nthreads; i++) {
        _ak_dealloc(p->threads[i]->frames);
        _ak_dealloc(p->threads[i]);
    }
    _ak_dealloc(p->threads);
    _ak_dealloc(p->pend);
    if (p->tool_lib) dlclose(p->tool_lib);
    _ak_mutex_destroy(&p->lock);
    _ak_dealloc(p);
}

/* ---- begin / end ---- */
static ak_result _ak_prof_begin_on(struct _ak_prof* p, const char* name, ak_stream* stream) {
    long tid = _ak_prof_tid();
    const char* sname = ak_stream_name(stream);
    _ak_prof_thread* th;
    _ak_prof_frame* fr;
    ak_event* ev = NULL;
    int region, sid = -1;
    _ak_mutex_lock(&p->lock);
    th = _ak_prof_thread_find(p, tid, 1);
    region = th ? _ak_prof_region_id(p, name) : -1;
    if (region >= 0) sid = _ak_prof_intern(&p->streams, sname ? sname : "default", NULL);
    if (sid >= 0 && th->depth == th->cap) {
        int nc = th->cap ? th->cap * 2 : 16;
        _ak_prof_frame* nf = (_ak_prof_frame*)_ak_realloc(th->frames, (size_t)nc * sizeof *nf);
        if (nf) { th->frames = nf; th->cap = nc; }
        else sid = -1;
    }
    if (sid < 0) {
        if (th && !th->depth) th->tid = 0;
        _ak_mutex_unlock(&p->lock);
        return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_prof_begin(\"%.200s\"): out of host memory", name);
    }
    fr = &th->frames[th->depth++];
    fr->region = region;
    fr->stream_name = sid;
    fr->stream = stream;
    fr->ev0 = NULL;
    fr->tool = 0;
    fr->t0 = 0;
    if (p->gpu && p->nfree) ev = p->free_ev[--p->nfree];
    _ak_mutex_unlock(&p->lock);
    /* Only this thread touches its own open frames: fr stays valid. */
    if (p->gpu) {
        if (!ev && ak_event_create(p->ctx, &ev) != AK_OK) { ev = NULL; _ak_prof_gpu_warn(p, "ak_event_create"); }
        if (ev && ak_event_record(ev, stream) != AK_OK) {
            _ak_prof_gpu_warn(p, "ak_event_record");
            _ak_mutex_lock(&p->lock);
            _ak_prof_event_put(p, ev);
            _ak_mutex_unlock(&p->lock);
            ev = NULL;
        }
        fr->ev0 = ev;
    }
    if (p->push) { p->push(name); fr->tool = 1; }
    fr->t0 = _ak_now_ns();
    return AK_OK;
}

static ak_result _ak_prof_end_on(struct _ak_prof* p) {
    uint64_t t1 = _ak_now_ns();
    long tid = _ak_prof_tid();
    _ak_prof_thread* th;
    _ak_prof_frame fr;
    ak_event* ev = NULL;
    _ak_mutex_lock(&p->lock);
    th = _ak_prof_thread_find(p, tid, 0);
    if (!th || !th->depth) {
        _ak_mutex_unlock(&p->lock);
        return _ak_err(AK_ERROR_INVALID_ARGUMENT,
                       "ak_prof_end: no open region on this thread (every ak_prof_end needs an earlier ak_prof_begin on the same thread)");
    }
    fr = th->frames[--th->depth];
    if (!th->depth) th->tid = 0;
    if (!fr.ev0) { /* host-timed: one critical section */
        _ak_prof_record(p, tid, &fr, t1, NULL);
        _ak_mutex_unlock(&p->lock);
        if (fr.tool && p->pop) p->pop();
        return AK_OK;
    }
    if (p->nfree) ev = p->free_ev[--p->nfree];
    _ak_mutex_unlock(&p->lock);
    if (!ev && ak_event_create(p->ctx, &ev) != AK_OK) { ev = NULL; _ak_prof_gpu_warn(p, "ak_event_create"); }
    if (ev && ak_event_record(ev, fr.stream) != AK_OK) {
        _ak_prof_gpu_warn(p, "ak_event_record");
        _ak_mutex_lock(&p->lock);
        _ak_prof_event_put(p, ev);
        _ak_mutex_unlock(&p->lock);
        ev = NULL;
    }
    if (fr.tool && p->pop) p->pop();
    _ak_mutex_lock(&p->lock);
    _ak_prof_record(p, tid, &fr, t1, ev);
    _ak_mutex_unlock(&p->lock);
    return AK_OK;
}

/* Open a region; a no-op unless profiling is on. Thread safety: any thread. */
AKDEF ak_result ak_prof_begin(ak_context* ctx, const char* name, ak_stream* stream) {
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_begin: ctx is NULL");
    if (!name) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_begin: name is NULL");
    if (!ctx->cfg.profiling || !ctx->prof) return AK_OK;
    if (stream && stream->ctx != ctx)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_begin(\"%.200s\"): stream \"%s\" belongs to another context", name, stream->name);
    return _ak_prof_begin_on(ctx->prof, name, stream);
}

/* Close this thread's innermost region. Thread safety: any thread. */
AKDEF ak_result ak_prof_end(ak_context* ctx) {
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_end: ctx is NULL");
    if (!ctx->cfg.profiling || !ctx->prof) return AK_OK;
    return _ak_prof_end_on(ctx->prof);
}

/* ---- statistics and summary ---- */
static void _ak_prof_fill_stat(const struct _ak_prof* p, int i, ak_prof_stat* s) {
    const _ak_prof_region* r = &p->regions[i];
    s->name = p->names.s[i];
    s->count = r->count;
    s->total_ms = (double)r->total_ns / 1e6;
    s->mean_ms = r->count ? s->total_ms / (double)r->count : 0.0;
    s->min_ms = r->count ? (double)r->min_ns / 1e6 : 0.0;
    s->max_ms = r->count ? (double)r->max_ns / 1e6 : 0.0;
    s->gpu_timed = r->gpu_count ? 1 : 0;
}

/* Region statistics in first-seen order; names stay valid until ak_prof_reset
 * or context destruction. Thread safety: any thread. */
AKDEF ak_result ak_prof_stats(ak_context* ctx, ak_prof_stat* out, int max, int* count) {
    struct _ak_prof* p;
    int i;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_stats: ctx is NULL");
    if (max < 0) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_stats: max is %d, expected >= 0", max);
    if (max > 0 && !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_stats: out is NULL with max %d", max);
    if (count) *count = 0;
    p = ctx->prof;
    if (!ctx->cfg.profiling || !p) return AK_OK;
    _ak_mutex_lock(&p->lock);
    _ak_prof_drain(p);
    for (i = 0; i < p->names.n && i < max; i++) _ak_prof_fill_stat(p, i, &out[i]);
    if (count) *count = p->names.n;
    _ak_mutex_unlock(&p->lock);
    return AK_OK;
}

/* A name for the table: control characters as '?', long names cut with "...". */
static void _ak_prof_table_name(char* dst, size_t cap, const char* s) {
    size_t n = 0, len = strlen(s);
    for (; n + 1 < cap && s[n]; n++) dst[n] = ((unsigned char)s[n] < 0x20 || s[n] == 0x7f) ? '?' : s[n];
    dst[n] = 0;
    if (len >= cap && cap > 4) memcpy(dst + cap - 4, "...", 4);
}

/* Print the statistics as an aligned table. Thread safety: any thread. */
AKDEF ak_result ak_prof_summary(ak_context* ctx, FILE* f) {
    struct _ak_prof* p;
    char nm[64];
    int i, w = 6;
    unsigned long long total = 0;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_summary: ctx is NULL");
    if (!f) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_summary: FILE* is NULL");
    p = ctx->prof;
    if (!ctx->cfg.profiling || !p) {
        fprintf(f, "amdkit profile: profiling is off (set ak_config.profiling = 1 or AMDKIT_PROFILE=on)\n");
        return ferror(f) ? _ak_err(AK_ERROR_IO, "ak_prof_summary: writing the table failed") : AK_OK;
    }
    _ak_mutex_lock(&p->lock);
    _ak_prof_drain(p);
    for (i = 0; i < p->names.n; i++) {
        int len;
        _ak_prof_table_name(nm, sizeof nm, p->names.s[i]);
        len = (int)strlen(nm);
        if (len > w) w = len;
        total += p->regions[i].count;
    }
    fprintf(f, "amdkit profile: %d region%s, %llu instance%s, %s backend%s%s\n", p->names.n, p->names.n == 1 ? "" : "s",
            total, total == 1 ? "" : "s", ak_backend_name(ctx->backend), p->tool_name ? ", ranges sent to " : "",
            p->tool_name ? p->tool_name : "");
    if (p->dropped)
        fprintf(f, "  (%llu instance%s past the cap of %lu were left out of the trace; the statistics count them)\n",
                p->dropped, p->dropped == 1 ? "" : "s", (unsigned long)p->max_inst);
    fprintf(f, "%-*s %10s %14s %12s %12s %12s  %s\n", w, "name", "count", "total ms", "mean ms", "min ms", "max ms", "timer");
    for (i = 0; i < p->names.n; i++) {
        ak_prof_stat s;
        const _ak_prof_region* r = &p->regions[i];
        _ak_prof_fill_stat(p, i, &s);
        _ak_prof_table_name(nm, sizeof nm, s.name);
        fprintf(f, "%-*s %10llu %14.3f %12.4f %12.4f %12.4f  %s\n", w, nm, s.count, s.total_ms, s.mean_ms, s.min_ms,
                s.max_ms, !r->count ? "-" : r->gpu_count == r->count ? "gpu" : r->gpu_count ? "mixed" : "host");
    }
    _ak_mutex_unlock(&p->lock);
    if (ferror(f)) return _ak_err(AK_ERROR_IO, "ak_prof_summary: writing the table failed");
    return AK_OK;
}

/* ---- Chrome trace export ---- */
/* Write s as a JSON string: quotes, backslash and control characters
 * escaped; bytes that are not valid UTF-8 become U+FFFD. */
static void _ak_prof_json_str(FILE* f, const char* s) {
    const unsigned char* u = (const unsigned char*)s;
    fputc('"', f);
    while (*u) {
        unsigned c = *u;
        int need = 0, i, ok = 1;
        if (c == '"' || c == '\\') { fputc('\\', f); fputc((int)c, f); u++; continue; }
        if (c < 0x20) {
            switch (c) {
            case '\n': fputs("\\n", f); break;
            case '\r': fputs("\\r", f); break;
            case '\t': fputs("\\t", f); break;
            case '\b': fputs("\\b", f); break;
            case '\f': fputs("\\f", f); break;
            default: fprintf(f, "\\u%04x", c); break;
            }
            u++;
            continue;
        }
        if (c < 0x80) { fputc((int)c, f); u++; continue; }
        if (c >= 0xC2 && c <= 0xDF) need = 1;
        else if (c >= 0xE0 && c <= 0xEF) need = 2;
        else if (c >= 0xF0 && c <= 0xF4) need = 3;
        else ok = 0;
        for (i = 1; ok && i <= need; i++)
            if ((u[i] & 0xC0) != 0x80) ok = 0;
        if (ok && need >= 2) { /* overlong, surrogate and > U+10FFFF forms */
            if (c == 0xE0 && u[1] < 0xA0) ok = 0;
            if (c == 0xED && u[1] > 0x9F) ok = 0;
            if (c == 0xF0 && u[1] < 0x90) ok = 0;
            if (c == 0xF4 && u[1] > 0x8F) ok = 0;
        }
        if (!ok) { fputs("\\ufffd", f); u++; continue; }
        fwrite(u, 1, (size_t)need + 1, f);
        u += need + 1;
    }
    fputc('"', f);
}
/* ns as a decimal number of unit (1000: microseconds, 1000000: milliseconds), locale-free. */
static void _ak_prof_json_ns(FILE* f, uint64_t ns, uint64_t unit) {
    fprintf(f, "%llu.%0*llu", (unsigned long long)(ns / unit), unit == 1000 ? 3 : 6, (unsigned long long)(ns % unit));
}

typedef struct _ak_prof_order {
    long tid;
    uint64_t start, dur;
    size_t idx;
    int clamped;
} _ak_prof_order;
static int _ak_prof_order_cmp(const void* a, const void* b) {
    const _ak_prof_order* x = (const _ak_prof_order*)a;
    const _ak_prof_order* y = (const _ak_prof_order*)b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1;   /* outer region first */
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}
/* Sort instances by track (host thread, or GPU stream) and start, and
 * shorten a duration that would end after its enclosing region on the same
 * track (viewers need proper nesting; it can happen on a GPU stream shared
 * by threads); the args keep the measured value. */
static ak_result _ak_prof_order_make(const struct _ak_prof* p, _ak_prof_order** out) {
    _ak_prof_order* o;
    uint64_t* ends = NULL;
    size_t i, sp = 0, cap = 0;
    *out = NULL;
    if (!p->ninst) return AK_OK;
    o = (_ak_prof_order*)_ak_alloc(p->ninst * sizeof *o);
    if (!o) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_prof_export_chrome: cannot sort %lu instances", (unsigned long)p->ninst);
    for (i = 0; i < p->ninst; i++) {
        o[i].tid = p->inst[i].timer == 1 ? _AK_PROF_GPU_TRACK + p->inst[i].stream_name : p->inst[i].tid;
        o[i].start = p->inst[i].start_ns;
        o[i].dur = p->inst[i].dur_ns;
        o[i].idx = i;
        o[i].clamped = 0;
    }
    qsort(o, p->ninst, sizeof *o, _ak_prof_order_cmp);
    for (i = 0; i < p->ninst; i++) {
        uint64_t end = o[i].start + o[i].dur;
        if (i && o[i].tid != o[i - 1].tid) sp = 0;
        while (sp && ends[sp - 1] <= o[i].start) sp--;
        if (sp && end > ends[sp - 1]) { end = ends[sp - 1]; o[i].dur = end - o[i].start; o[i].clamped = 1; }
        if (sp == cap) {
            size_t nc = cap ? cap * 2 : 64;
            uint64_t* ne = (uint64_t*)_ak_realloc(ends, nc * sizeof *ne);
            if (!ne) { _ak_dealloc(ends); _ak_dealloc(o); return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_prof_export_chrome: out of host memory"); }
            ends = ne;
            cap = nc;
        }
        ends[sp++] = end;
    }
    _ak_dealloc(ends);
    *out = o;
    return AK_OK;
}

static void _ak_prof_write_trace(FILE* f, ak_context* ctx, const struct _ak_prof* p, const _ak_prof_order* o) {
    long pid = (long)getpid();
    uint64_t origin = 0;
    size_t i;
    char pname[400];
    if (p && p->ninst) {
        origin = p->inst[0].start_ns;
        for (i = 1; i < p->ninst; i++) if (p->inst[i].start_ns < origin) origin = p->inst[i].start_ns;
    }
    snprintf(pname, sizeof pname, "amdkit (%s: %s)", ak_backend_name(ctx->backend), ctx->dev.name);
    fputs("{\"traceEvents\":[\n", f);
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":0,\"args\":{\"name\":", pid);
    _ak_prof_json_str(f, pname);
    fputs("}}", f);
    for (i = 0; p && i < p->ninst; i++) {
        const _ak_prof_inst* in = &p->inst[o[i].idx];
        if (!i || o[i].tid != o[i - 1].tid) {
            char tname[128];
            if (in->timer == 1) snprintf(tname, sizeof tname, "GPU stream %s", p->streams.s[in->stream_name]);
            else snprintf(tname, sizeof tname, "thread %ld", in->tid);
            fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":", pid, o[i].tid);
            _ak_prof_json_str(f, tname);
            fputs("}}", f);
        }
        fputs(",\n{\"name\":", f);
        _ak_prof_json_str(f, p->names.s[in->region]);
        fputs(",\"cat\":\"amdkit\",\"ph\":\"X\",\"ts\":", f);
        _ak_prof_json_ns(f, in->start_ns - origin, 1000);
        fputs(",\"dur\":", f);
        _ak_prof_json_ns(f, o[i].dur, 1000);
        fprintf(f, ",\"pid\":%ld,\"tid\":%ld,\"args\":{\"thread\":%ld,\"stream\":", pid, o[i].tid, in->tid);
        _ak_prof_json_str(f, p->streams.s[in->stream_name]);
        fprintf(f, ",\"timer\":\"%s\",\"ms\":", in->timer == 1 ? "gpu" : "host");
        _ak_prof_json_ns(f, in->dur_ns, 1000000);
        if (o[i].clamped) fputs(",\"trace_dur_shortened\":true", f);
        fputs("}}", f);
    }
    fputs("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"amdkit " AK_VERSION_STRING "\",\"backend\":", f);
    _ak_prof_json_str(f, ak_backend_name(ctx->backend));
    fputs(",\"device\":", f);
    _ak_prof_json_str(f, ctx->dev.name);
    fprintf(f, ",\"profiling\":%s,\"instances\":%lu,\"instance_cap\":%lu,\"instances_dropped\":%llu",
            ctx->cfg.profiling ? "true" : "false", (unsigned long)(p ? p->ninst : 0),
            (unsigned long)(p ? p->max_inst : (size_t)AK_PROF_MAX_INSTANCES), p ? p->dropped : 0ull);
    if (p && p->dropped)
        fprintf(f, ",\"note\":\"%llu region instances past the cap were left out of this trace; the statistics count them\"",
                p->dropped);
    fputs("}}\n", f);
}

/* Write every recorded instance as Chrome trace JSON, through a temporary
 * file renamed over path. Thread safety: any thread (other threads' begin /
 * end wait while it writes). */
AKDEF ak_result ak_prof_export_chrome(ak_context* ctx, const char* path) {
    struct _ak_prof* p;
    _ak_prof_order* o = NULL;
    char* tmp;
    size_t n;
    FILE* f;
    int werr = 0, cerr = 0, e = 0;
    ak_result r;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_export_chrome: ctx is NULL");
    if (!path || !path[0]) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_prof_export_chrome: path is %s", path ? "empty" : "NULL");
    p = ctx->cfg.profiling ? ctx->prof : NULL;
    n = strlen(path) + 64;
    tmp = (char*)_ak_alloc(n);
    if (!tmp) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_prof_export_chrome: out of host memory");
    if (p) {
        _ak_mutex_lock(&p->lock);
        _ak_prof_drain(p);
        p->export_seq++;
        snprintf(tmp, n, "%s.tmp.%ld.%p.%lu", path, (long)getpid(), (void*)p, p->export_seq);
        r = _ak_prof_order_make(p, &o);
        if (r != AK_OK) { _ak_mutex_unlock(&p->lock); _ak_dealloc(tmp); return r; }
    } else {
        snprintf(tmp, n, "%s.tmp.%ld.%p", path, (long)getpid(), (void*)tmp);
    }
    f = fopen(tmp, "w");
    if (!f) {
        e = errno;
        if (p) _ak_mutex_unlock(&p->lock);
        _ak_dealloc(o);
        r = _ak_err(AK_ERROR_IO, "ak_prof_export_chrome: cannot create %s (for %s): %s", tmp, path, strerror(e));
        _ak_dealloc(tmp);
        return r;
    }
    _ak_prof_write_trace(f, ctx, p, o);
    werr = ferror(f);
    if (werr) e = errno;
    if (fclose(f) != 0 && !werr) { cerr = 1; e = errno; }
    if (p) _ak_mutex_unlock(&p->lock);
    _ak_dealloc(o);
    if (werr || cerr) {
        remove(tmp);
        r = _ak_err(AK_ERROR_IO, "ak_prof_export_chrome: writing %s failed: %s", path, strerror(e ? e : EIO));
        _ak_dealloc(tmp);
        return r;
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        remove(tmp);
        r = _ak_err(AK_ERROR_IO, "ak_prof_export_chrome: cannot rename %s to %s: %s", tmp, path, strerror(e));
        _ak_dealloc(tmp);
        return r;
    }
    _ak_dealloc(tmp);
    return AK_OK;
}

/* Forget all regions, instances and open regions. Thread safety: not while
 * other threads have regions open or use the profiler. */
AKDEF void ak_prof_reset(ak_context* ctx) {
    struct _ak_prof* p;
    if (!ctx || !(p = ctx->prof)) return;
    _ak_mutex_lock(&p->lock);
    _ak_prof_clear(p);
    p->warned = 0;
    _ak_mutex_unlock(&p->lock);
}
/* ==========================================================================
 * >>impl:config
 * ========================================================================== */
/* Names of the ENUM fields' values; the first spelling of a value is its name. */
typedef struct _ak_name { const char* name; int value; } _ak_name;
static const _ak_name _ak_backend_names[] = {
    { "auto", AK_BACKEND_AUTO }, { "hip", AK_BACKEND_HIP }, { "cuda", AK_BACKEND_CUDA }, { "cpu", AK_BACKEND_CPU }, { NULL, 0 }
};
static const _ak_name _ak_opt_level_names[] = {
    { "auto", AK_OPT_AUTO }, { "conservative", AK_OPT_CONSERVATIVE }, { "balanced", AK_OPT_BALANCED },
    { "aggressive", AK_OPT_AGGRESSIVE }, { NULL, 0 }
};
static const _ak_name _ak_log_level_names[] = {
    { "none", AK_LOG_NONE }, { "error", AK_LOG_ERROR }, { "warn", AK_LOG_WARN }, { "warning", AK_LOG_WARN },
    { "info", AK_LOG_INFO }, { "debug", AK_LOG_DEBUG }, { NULL, 0 }
};
static const char* _ak_name_of(const _ak_name* t, int v) {
    for (; t->name; t++) if (t->value == v) return t->name;
    return NULL;
}
/* "a, b or c" (distinct values only) */
static void _ak_names_list(const _ak_name* t, char* buf, size_t n) {
    const _ak_name* u;
    int count = 0, i = 0;
    buf[0] = 0;
    for (u = t; u->name; u++) if (_ak_name_of(t, u->value) == u->name) count++;
    for (u = t; u->name; u++) {
        if (_ak_name_of(t, u->value) != u->name) continue;
        _ak_appendf(buf, n, "%s%s", i == 0 ? "" : i == count - 1 ? " or " : ", ", u->name);
        i++;
    }
}
static ak_result _ak_name_parse(const _ak_name* t, const char* what, const char* s, int* out) {
    const _ak_name* u;
    char list[160];
    for (u = t; u->name; u++) if (_ak_streq_ci(s, u->name)) { *out = u->value; return AK_OK; }
    _ak_names_list(t, list, sizeof list);
    return _ak_err(AK_ERROR_CONFIG, "%s '%s' is not one of %s", what, s, list);
}

AKDEF const char* ak_backend_name(ak_backend b) {
    const char* n = _ak_name_of(_ak_backend_names, (int)b);
    return n ? n : "?";
}
AKDEF const char* ak_opt_level_name(ak_opt_level o) {
    const char* n = _ak_name_of(_ak_opt_level_names, (int)o);
    return n ? n : "?";
}
AKDEF ak_result ak_backend_parse(const char* s, ak_backend* out) {
    int v;
    ak_result r;
    if (!s || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_backend_parse: NULL argument");
    if ((r = _ak_name_parse(_ak_backend_names, "backend", s, &v)) == AK_OK) *out = (ak_backend)v;
    return r;
}
AKDEF ak_result ak_dtype_parse(const char* s, ak_dtype* out) {
    int i;
    if (!s || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_dtype_parse: NULL argument");
    for (i = 0; i < (int)AK_DTYPE_COUNT; i++)
        if (_ak_streq_ci(s, ak_dtype_name((ak_dtype)i))) { *out = (ak_dtype)i; return AK_OK; }
    if (_ak_streq_ci(s, "fp32") || _ak_streq_ci(s, "float32") || _ak_streq_ci(s, "float")) { *out = AK_F32; return AK_OK; }
    if (_ak_streq_ci(s, "fp16") || _ak_streq_ci(s, "float16") || _ak_streq_ci(s, "half")) { *out = AK_F16; return AK_OK; }
    if (_ak_streq_ci(s, "bfloat16")) { *out = AK_BF16; return AK_OK; }
    if (_ak_streq_ci(s, "fp8")) { *out = AK_FP8_E4M3; return AK_OK; }
    return _ak_err(AK_ERROR_CONFIG, "unknown precision '%s' (expected f32, f16, bf16, fp8_e4m3, fp8_e5m2)", s);
}
AKDEF ak_result ak_opt_level_parse(const char* s, ak_opt_level* out) {
    int v;
    ak_result r;
    if (!s || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_opt_level_parse: NULL argument");
    if ((r = _ak_name_parse(_ak_opt_level_names, "optimization level", s, &v)) == AK_OK) *out = (ak_opt_level)v;
    return r;
}

AKDEF ak_config ak_config_default(void) {
    ak_config c;
    memset(&c, 0, sizeof c);
#define AK_X_(type, name, kind, def, env, lo, hi, names, doc) c.name = def;
    AK_CONFIG_FIELDS(AK_X_)
#undef AK_X_
    return c;
}

/* ---- the kinds: one value type, one parser and one check each ----------- */

enum {
#define AK_X_(type, name, kind, def, env, lo, hi, names, doc) _AK_CF_##name,
    AK_CONFIG_FIELDS(AK_X_)
#undef AK_X_
    _AK_CF_COUNT
};
typedef enum { _AK_CK_BOOL, _AK_CK_TRI, _AK_CK_ENUM, _AK_CK_INT, _AK_CK_BYTES, _AK_CK_SEG, _AK_CK_FRAC,
               _AK_CK_PREC, _AK_CK_MASK, _AK_CK_STR, _AK_CK_PATH } _ak_cfg_kind;
/* A field's value: integers (every kind but FRAC, STR, PATH) in i. GET reads
 * it as the kind's member, SET stores a field into it (enums through int, so
 * a negative value set in code stays negative). */
typedef struct _ak_cfgval { long long i; double d; const char* s; } _ak_cfgval;
#define _AK_CFGV_BOOL(v) (v).i
#define _AK_CFGV_TRI(v) (v).i
#define _AK_CFGV_ENUM(v) (v).i
#define _AK_CFGV_INT(v) (v).i
#define _AK_CFGV_BYTES(v) (v).i
#define _AK_CFGV_SEG(v) (v).i
#define _AK_CFGV_PREC(v) (v).i
#define _AK_CFGV_MASK(v) (v).i
#define _AK_CFGV_FRAC(v) (v).d
#define _AK_CFGV_STR(v) (v).s
#define _AK_CFGV_PATH(v) (v).s
#define _AK_CFGSET_BOOL(v, f) ((v).i = (int)(f))
#define _AK_CFGSET_TRI(v, f) ((v).i = (int)(f))
#define _AK_CFGSET_ENUM(v, f) ((v).i = (int)(f))
#define _AK_CFGSET_INT(v, f) ((v).i = (int)(f))
#define _AK_CFGSET_BYTES(v, f) ((v).i = (long long)(f))
#define _AK_CFGSET_SEG(v, f) ((v).i = (long long)(f))
#define _AK_CFGSET_PREC(v, f) ((v).i = (int)(f))
#define _AK_CFGSET_MASK(v, f) ((v).i = (long long)(unsigned)(f))
#define _AK_CFGSET_FRAC(v, f) ((v).d = (f))
#define _AK_CFGSET_STR(v, f) ((v).s = (f))
#define _AK_CFGSET_PATH(v, f) ((v).s = (f))

typedef struct _ak_cfgrow {
    ak_config_field pub;
    _ak_cfg_kind kind;
    long long lo, hi;
    const _ak_name* names;
} _ak_cfgrow;
static const _ak_cfgrow _ak_cfg_rows[_AK_CF_COUNT] = {
#define AK_X_(type, name, kind, def, env, lo, hi, names, doc) \
    { { #name, env, doc }, _AK_CK_##kind, (long long)(lo), (long long)(hi), names },
    AK_CONFIG_FIELDS(AK_X_)
#undef AK_X_
};

#define _AK_FLOAT_PRECISIONS (AK_DTYPE_BIT(AK_F32) | AK_DTYPE_BIT(AK_F16) | AK_DTYPE_BIT(AK_BF16) | \
                              AK_DTYPE_BIT(AK_FP8_E4M3) | AK_DTYPE_BIT(AK_FP8_E5M2))
#define _AK_POOL_SEGMENT (2ll << 20)   /* the pool's small segment (>>impl:pool) */

static ak_result _ak_parse_ll(const char* var, const char* v, int allow_suffix, long long* out) {
    char* end = NULL;
    long long x;
    long long mul = 1;
    errno = 0;
    x = strtoll(v, &end, 10);
    if (end == v || errno == ERANGE) return _ak_err(AK_ERROR_CONFIG, "%s='%s' is not an integer", var, v);
    if (allow_suffix && *end) {
        switch (tolower((unsigned char)*end)) {
        case 'k': mul = 1ll << 10; end++; break;
        case 'm': mul = 1ll << 20; end++; break;
        case 'g': mul = 1ll << 30; end++; break;
        default: break;
        }
        if (mul > 1 && (*end == 'b' || *end == 'B')) end++;
    }
    if (*end) return _ak_err(AK_ERROR_CONFIG, "%s='%s' has trailing characters '%s'", var, v, end);
    if (x > LLONG_MAX / mul || x < LLONG_MIN / mul) return _ak_err(AK_ERROR_CONFIG, "%s='%s' overflows", var, v);
    *out = x * mul;
    return AK_OK;
}
static int _ak_parse_bool(const char* v, int* out) {
    if (_ak_streq_ci(v, "1") || _ak_streq_ci(v, "on") || _ak_streq_ci(v, "true") || _ak_streq_ci(v, "yes")) { *out = 1; return 1; }
    if (_ak_streq_ci(v, "0") || _ak_streq_ci(v, "off") || _ak_streq_ci(v, "false") || _ak_streq_ci(v, "no")) { *out = 0; return 1; }
    return 0;
}
static ak_result _ak_parse_precision_list(const char* var, const char* v, unsigned* out) {
    unsigned mask = 0;
    char item[32];
    const char* p = v;
    while (*p) {
        size_t n = strcspn(p, ",");
        ak_dtype t;
        if (n == 0 || n >= sizeof item) return _ak_err(AK_ERROR_CONFIG, "%s='%s' is not a comma-separated precision list", var, v);
        memcpy(item, p, n);
        item[n] = 0;
        if (ak_dtype_parse(item, &t) != AK_OK)
            return _ak_err(AK_ERROR_CONFIG, "%s='%s': unknown precision '%s'", var, v, item);
        mask |= AK_DTYPE_BIT(t);
        p += n;
        if (*p == ',' && !*++p) return _ak_err(AK_ERROR_CONFIG, "%s='%s' ends with a comma", var, v);
    }
    if (!mask) return _ak_err(AK_ERROR_CONFIG, "%s='%s' names no precision", var, v);
    *out = mask;
    return AK_OK;
}

/* Parse the text of field f's variable (set, maybe empty) into *out. */
static ak_result _ak_cfg_parse(const _ak_cfgrow* f, const char* raw, _ak_cfgval* out) {
    const char* var = f->pub.env;
    int b = 0, v;
    ak_dtype t;
    unsigned mask = 0;
    switch (f->kind) {
    case _AK_CK_STR: case _AK_CK_PATH:
        if (*raw) out->s = raw;         /* "" is unset */
        return AK_OK;
    case _AK_CK_BOOL:
        if (!*raw) return AK_OK;
        if (!_ak_parse_bool(raw, &b))
            return _ak_err(AK_ERROR_CONFIG, "%s='%s' is not a boolean (expected on/off, 1/0, true/false)", var, raw);
        out->i = b;
        return AK_OK;
    case _AK_CK_TRI:
        if (!*raw) return AK_OK;
        if (_ak_streq_ci(raw, "auto")) { out->i = AK_AUTO; return AK_OK; }
        if (!_ak_parse_bool(raw, &b)) return _ak_err(AK_ERROR_CONFIG, "%s='%s' is not auto/on/off", var, raw);
        out->i = b ? AK_ON : AK_OFF;
        return AK_OK;
    case _AK_CK_ENUM:
        if (!*raw) return AK_OK;
        if (_ak_name_parse(f->names, var, raw, &v) != AK_OK) {
            char list[160];
            _ak_names_list(f->names, list, sizeof list);
            return _ak_err(AK_ERROR_CONFIG, "%s='%s' is not one of %s", var, raw, list);
        }
        out->i = v;
        return AK_OK;
    case _AK_CK_INT: case _AK_CK_BYTES: case _AK_CK_SEG:
        if (!*raw) return _ak_err(AK_ERROR_CONFIG, "%s='' is empty, expected a number", var);
        return _ak_parse_ll(var, raw, f->kind != _AK_CK_INT, &out->i);
    case _AK_CK_FRAC: {
        char* end = NULL;
        if (!*raw) return _ak_err(AK_ERROR_CONFIG, "%s='' is empty, expected a number", var);
        errno = 0;
        out->d = strtod(raw, &end);
        if (end == raw || *end || errno == ERANGE) return _ak_err(AK_ERROR_CONFIG, "%s='%s' is not a number", var, raw);
        return AK_OK;
    }
    case _AK_CK_PREC:
        if (!*raw) return AK_OK;
        if (_ak_streq_ci(raw, "auto")) { out->i = -1; return AK_OK; }
        if (ak_dtype_parse(raw, &t) != AK_OK)
            return _ak_err(AK_ERROR_CONFIG, "%s='%s' is not auto, f32, f16, bf16, fp8_e4m3 or fp8_e5m2", var, raw);
        out->i = (long long)t;
        return AK_OK;
    case _AK_CK_MASK:
        if (!*raw) return AK_OK;
        if (_ak_parse_precision_list(var, raw, &mask) != AK_OK) return AK_ERROR_CONFIG;
        out->i = (long long)mask;
        return AK_OK;
    }
    return AK_OK;
}

/* Check field f's value; on failure the message names `who`: the variable
 * with its text (raw != NULL) or config.<field>. */
static ak_result _ak_cfg_check(const _ak_cfgrow* f, const _ak_cfgval* x, const char* raw) {
    char who[160], shown[64], want[200];
    long long i = x->i;
    if (raw) _ak_fmt(who, sizeof who, "%s='%.60s%s'", f->pub.env, raw, strlen(raw) > 60 ? "..." : "");
    else _ak_fmt(who, sizeof who, "config.%s", f->pub.name);
    _ak_fmt(shown, sizeof shown, "%lld", i);
    want[0] = 0;
    switch (f->kind) {
    case _AK_CK_BOOL: if (i != 0 && i != 1) _ak_fmt(want, sizeof want, "0 or 1"); break;
    case _AK_CK_TRI:
        if (i < -1 || i > 1) _ak_fmt(want, sizeof want, "AK_AUTO (-1), AK_OFF (0) or AK_ON (1)");
        break;
    case _AK_CK_ENUM:
        if (i < INT_MIN || i > INT_MAX || !_ak_name_of(f->names, (int)i)) {
            const _ak_name* u;
            _ak_copy(want, sizeof want, "one of");
            for (u = f->names; u->name; u++)
                if (_ak_name_of(f->names, u->value) == u->name) _ak_appendf(want, sizeof want, " %s (%d)", u->name, u->value);
        }
        break;
    case _AK_CK_INT: case _AK_CK_BYTES: case _AK_CK_SEG:
        if (i < f->lo || i > f->hi) {
            if (f->hi == LLONG_MAX || f->hi == INT_MAX) _ak_fmt(want, sizeof want, "a value >= %lld", f->lo);
            else _ak_fmt(want, sizeof want, "a value in %lld..%lld", f->lo, f->hi);
        } else if (f->kind == _AK_CK_SEG && i % _AK_POOL_SEGMENT) {
            _ak_fmt(want, sizeof want, "0 or a multiple of 2 MiB (%lld bytes: the pool reserves memory in 2 MiB segments), "
                    "e.g. %lld", _AK_POOL_SEGMENT, (i / _AK_POOL_SEGMENT + 1) * _AK_POOL_SEGMENT);
        }
        break;
    case _AK_CK_FRAC:
        _ak_fmt(shown, sizeof shown, "%g", x->d);
        if (!(x->d > (double)f->lo && x->d <= (double)f->hi))
            _ak_fmt(want, sizeof want, "a fraction in (%lld, %lld]", f->lo, f->hi);
        break;
    case _AK_CK_PREC:
        if (i != -1 && (i < 0 || i >= (long long)AK_DTYPE_COUNT || !(AK_DTYPE_BIT(i) & _AK_FLOAT_PRECISIONS))) {
            _ak_fmt(shown, sizeof shown, "%lld (%s)", i, (i >= 0 && i < (long long)AK_DTYPE_COUNT) ? ak_dtype_name((ak_dtype)i) : "?");
            _ak_fmt(want, sizeof want, "-1 (auto), AK_F32, AK_F16, AK_BF16, AK_FP8_E4M3 or AK_FP8_E5M2");
        }
        break;
    case _AK_CK_MASK:
        _ak_fmt(shown, sizeof shown, "0x%llx", (unsigned long long)i);
        if ((unsigned long long)i & ~(unsigned long long)_AK_FLOAT_PRECISIONS)
            _ak_fmt(want, sizeof want, "a mask of floating-point precisions only (allowed bits 0x%x)", (unsigned)_AK_FLOAT_PRECISIONS);
        break;
    case _AK_CK_STR: break;
    case _AK_CK_PATH:
        if (x->s && (long long)strlen(x->s) >= f->hi) {
            _ak_fmt(shown, sizeof shown, "%u characters long", (unsigned)strlen(x->s));
            _ak_fmt(want, sizeof want, "under %lld characters", f->hi);
        }
        break;
    }
    if (!want[0]) return AK_OK;
    if (raw) return _ak_err(AK_ERROR_CONFIG, "%s is out of range (%s), expected %s", who, shown, want);
    return _ak_err(AK_ERROR_CONFIG, "%s is %s, expected %s", who, shown, want);
}

AKDEF ak_result ak_config_apply_env(ak_config* cfg) {
    ak_config c;
    const char* raw;
    _ak_cfgval x;
    ak_result r;
    if (!cfg) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_config_apply_env: cfg is NULL");
    c = *cfg;
    /* unset: untouched; "" is unset for names and strings, malformed for numbers */
#define AK_X_(type, name, kind, def, env, lo, hi, names, doc) \
    if ((raw = getenv(env)) != NULL) { \
        const _ak_cfgrow* f_ = &_ak_cfg_rows[_AK_CF_##name]; \
        memset(&x, 0, sizeof x); \
        _AK_CFGSET_##kind(x, c.name); \
        if ((r = _ak_cfg_parse(f_, raw, &x)) != AK_OK) return r; \
        if (*raw && (r = _ak_cfg_check(f_, &x, raw)) != AK_OK) return r; \
        c.name = (type)_AK_CFGV_##kind(x); \
    }
    AK_CONFIG_FIELDS(AK_X_)
#undef AK_X_
    *cfg = c;
    return AK_OK;
}

/* The per-field checks of the table, naming config.<field>. */
static ak_result _ak_cfg_check_fields(const ak_config* c) {
    _ak_cfgval x;
    ak_result r;
#define AK_X_(type, name, kind, def, env, lo, hi, names, doc) \
    memset(&x, 0, sizeof x); \
    _AK_CFGSET_##kind(x, c->name); \
    if ((r = _ak_cfg_check(&_ak_cfg_rows[_AK_CF_##name], &x, NULL)) != AK_OK) return r;
    AK_CONFIG_FIELDS(AK_X_)
#undef AK_X_
    return AK_OK;
}

AKDEF int ak_config_field_count(void) { return (int)_AK_CF_COUNT; }
AKDEF const ak_config_field* ak_config_field_at(int i) {
    return (i >= 0 && i < (int)_AK_CF_COUNT) ? &_ak_cfg_rows[i].pub : NULL;
}
AKDEF ak_result ak_config_field_value(const ak_config* cfg, int i, char* buf, size_t buf_size) {
    _ak_cfgval x;
    const _ak_cfgrow* f;
    const char* n;
    if (!cfg || !buf || !buf_size) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_config_field_value: NULL argument");
    if (i < 0 || i >= (int)_AK_CF_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_config_field_value: field %d, expected 0..%d", i, (int)_AK_CF_COUNT - 1);
    f = &_ak_cfg_rows[i];
    memset(&x, 0, sizeof x);
    switch (i) {
#define AK_X_(type, name, kind, def, env, lo, hi, names, doc) case _AK_CF_##name: _AK_CFGSET_##kind(x, cfg->name); break;
    AK_CONFIG_FIELDS(AK_X_)
#undef AK_X_
    default: break;
    }
    switch (f->kind) {
    case _AK_CK_BOOL: _ak_copy(buf, buf_size, x.i ? "on" : "off"); break;
    case _AK_CK_TRI: _ak_copy(buf, buf_size, x.i == AK_AUTO ? "auto" : x.i ? "on" : "off"); break;
    case _AK_CK_ENUM: n = _ak_name_of(f->names, (int)x.i); _ak_copy(buf, buf_size, n ? n : "?"); break;
    case _AK_CK_INT: case _AK_CK_BYTES: case _AK_CK_SEG: _ak_fmt(buf, buf_size, "%lld", x.i); break;
    case _AK_CK_FRAC: _ak_fmt(buf, buf_size, "%g", x.d); break;
    case _AK_CK_PREC: _ak_copy(buf, buf_size, x.i < 0 ? "auto" : ak_dtype_name((ak_dtype)x.i)); break;
    case _AK_CK_MASK: {
        int t;
        buf[0] = 0;
        if (!x.i) _ak_copy(buf, buf_size, "f32,f16,bf16");
        for (t = 0; t < (int)AK_DTYPE_COUNT; t++)
            if ((unsigned long long)x.i & AK_DTYPE_BIT(t)) _ak_appendf(buf, buf_size, "%s%s", buf[0] ? "," : "", ak_dtype_name((ak_dtype)t));
        break;
    }
    case _AK_CK_STR: case _AK_CK_PATH: _ak_copy(buf, buf_size, x.s ? x.s : "(unset)"); break;
    }
    return AK_OK;
}

AKDEF ak_result ak_config_field_syntax(int i, char* buf, size_t buf_size) {
    const _ak_cfgrow* f;
    if (!buf || !buf_size) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_config_field_syntax: NULL argument");
    buf[0] = 0;
    if (i < 0 || i >= (int)_AK_CF_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_config_field_syntax: field %d, expected 0..%d", i, (int)_AK_CF_COUNT - 1);
    f = &_ak_cfg_rows[i];
    switch (f->kind) {
    case _AK_CK_BOOL: _ak_copy(buf, buf_size, "on or off (1/0, true/false, yes/no)"); break;
    case _AK_CK_TRI: _ak_copy(buf, buf_size, "auto, on or off"); break;
    case _AK_CK_ENUM: _ak_names_list(f->names, buf, buf_size); break;
    case _AK_CK_INT:
        if (f->hi == INT_MAX) _ak_fmt(buf, buf_size, "integer >= %lld", f->lo);
        else _ak_fmt(buf, buf_size, "integer %lld..%lld", f->lo, f->hi);
        break;
    case _AK_CK_BYTES:
        if (f->lo) _ak_fmt(buf, buf_size, "bytes, k/m/g suffix; >= %lld", f->lo);
        else _ak_copy(buf, buf_size, "bytes, k/m/g suffix");
        break;
    case _AK_CK_SEG: _ak_copy(buf, buf_size, "bytes, k/m/g suffix; 0 or a multiple of 2m"); break;
    case _AK_CK_FRAC: _ak_fmt(buf, buf_size, "number in (%g, %g]", (double)f->lo, (double)f->hi); break;
    case _AK_CK_PREC: _ak_copy(buf, buf_size, "auto, f32, f16, bf16, fp8_e4m3 or fp8_e5m2"); break;
    case _AK_CK_MASK: _ak_copy(buf, buf_size, "comma-separated list of f32, f16, bf16, fp8_e4m3, fp8_e5m2"); break;
    case _AK_CK_STR: _ak_copy(buf, buf_size, "text (empty = unset)"); break;
    case _AK_CK_PATH: _ak_fmt(buf, buf_size, "path under %lld characters (empty = unset)", f->hi); break;
    }
    return AK_OK;
}

AKDEF ak_result ak_config_validate(const ak_config* cfg, const ak_arch_info* arch, ak_config* fixed) {
    ak_config c;
    _ak_logger lg;
    unsigned allowed;
    if (!cfg) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_config_validate: cfg is NULL");
    c = *cfg;
    lg.fn = c.logger; lg.user_data = c.logger_user_data; lg.level = c.log_level;
    if (_ak_cfg_check_fields(&c) != AK_OK) return AK_ERROR_CONFIG;
    allowed = c.allowed_precisions ? c.allowed_precisions
                                   : (AK_DTYPE_BIT(AK_F32) | AK_DTYPE_BIT(AK_F16) | AK_DTYPE_BIT(AK_BF16));
    if (c.precision >= 0 && !(allowed & AK_DTYPE_BIT(c.precision)))
        return _ak_err(AK_ERROR_CONFIG, "config.precision %s is not in config.allowed_precisions (0x%x)",
                       ak_dtype_name((ak_dtype)c.precision), allowed);
    if ((c.allocator.alloc == NULL) != (c.allocator.free == NULL))
        return _ak_err(AK_ERROR_CONFIG, "config.allocator: set both alloc and free, or neither");
    if (c.arch && *c.arch && !_ak_streq_ci(c.arch, "auto")) {
        /* a target ID (gfx90a, gfx90a:sramecc+:xnack-, sm_90) or a family name
         * (CDNA3: the family's representative row); what reaches a compiler is
         * the canonical target ID */
        const ak_arch_info* named = NULL;
        ak_target_id tid;
        if (ak_target_id_parse(c.arch, &tid) == AK_OK && tid.info) {
            named = tid.info;
            if (strcmp(c.arch, tid.canonical) != 0) {
                if (strchr(c.arch, ':'))
                    return _ak_err(AK_ERROR_CONFIG, "config.arch '%s': write the target ID as '%s'", c.arch, tid.canonical);
                c.arch = tid.info->name; /* case only */
            }
        } else if (strchr(c.arch, ':')) {
            ak_target_id_parse(c.arch, &tid);
            return _ak_err(AK_ERROR_CONFIG, "config.arch: %s", ak_last_error());
        } else if (ak_arch_find(c.arch, &named) == AK_OK && named) {
            c.arch = named->name; /* family name -> representative target */
        } else {
            return _ak_err(AK_ERROR_CONFIG, "config.arch '%s' is neither a target in the architecture table nor a family name "
                           "(see `amdkit arch`)", c.arch);
        }
        if (!arch) arch = named;
    }
    if (arch) {
        /* Features the architecture lacks: errors in strict mode, downgrades otherwise. */
        if (c.matrix_cores == AK_ON && arch->matrix == AK_MATRIX_NONE) {
            if (c.strict)
                return _ak_err(AK_ERROR_MATRIX_CORES, "config.matrix_cores is on, but %s (%s) has no matrix cores (strict mode)",
                               arch->name, arch->family_name);
            _ak_log(&lg, AK_LOG_WARN, AK_LOGITEM_CONFIG_DOWNGRADED,
                    "matrix_cores on -> off: %s (%s) has no matrix cores", arch->name, arch->family_name);
            c.matrix_cores = AK_OFF;
        }
        if ((c.precision == AK_FP8_E4M3 || c.precision == AK_FP8_E5M2) && !arch->fp8) {
            if (c.strict)
                return _ak_err(AK_ERROR_CONFIG, "config.precision is %s, but %s (%s) has no fp8 support (strict mode)",
                               ak_dtype_name((ak_dtype)c.precision), arch->name, arch->family_name);
            _ak_log(&lg, AK_LOG_WARN, AK_LOGITEM_CONFIG_DOWNGRADED, "precision %s -> %s: %s has no fp8",
                    ak_dtype_name((ak_dtype)c.precision), ak_dtype_name(arch->rec_precision), arch->name);
            c.precision = (int)arch->rec_precision;
        }
        if (c.opt_level == AK_OPT_AUTO) c.opt_level = arch->rec_opt_level;
        if (c.matrix_cores == AK_AUTO) c.matrix_cores = arch->rec_matrix_cores ? AK_ON : AK_OFF;
        if (c.precision < 0) c.precision = (int)arch->rec_precision;
        if (c.precision >= 0 && !(allowed & AK_DTYPE_BIT(c.precision))) c.precision = AK_F32;
        if (c.mixed_precision == AK_AUTO) c.mixed_precision = (c.precision != AK_F32) ? AK_ON : AK_OFF;
    }
    if (fixed) *fixed = c;
    return AK_OK;
}

/* ==========================================================================
 * >>impl:backend
 * ========================================================================== */
#define _AK_NO_ENTRY_TEXT "the runtime library lacks this entry point"
static const char* _ak_hip_errstr(const _ak_api* api, int e) {
    const char* s = e == _AK_E_NO_ENTRY ? _AK_NO_ENTRY_TEXT : (api && api->hipGetErrorString) ? api->hipGetErrorString(e) : NULL;
    return s ? s : "unknown HIP error";
}
static const char* _ak_cu_errstr(const _ak_api* api, int e) {
    const char* s = e == _AK_E_NO_ENTRY ? _AK_NO_ENTRY_TEXT : NULL;
    if (!s && api && api->cuGetErrorString) api->cuGetErrorString(e, &s);
    return s ? s : "unknown CUDA error";
}

/* Per-thread binding of the current CUDA context / HIP device, so each API
 * call does not have to set it again. A thread remembers the serial of the
 * context it bound last, never its address: a context created where a
 * destroyed one lived gets a new serial, so it binds again. */
static pthread_key_t _ak_bind_key;
static pthread_once_t _ak_bind_once = PTHREAD_ONCE_INIT;
static uintptr_t _ak_ctx_serials;      /* last serial handed out (atomic) */
static void _ak_bind_make_key(void) { pthread_key_create(&_ak_bind_key, NULL); }
static uintptr_t _ak_ctx_new_serial(void) { return __atomic_add_fetch(&_ak_ctx_serials, 1, __ATOMIC_RELAXED); }
static ak_result _ak_bind(ak_context* ctx) {
    int e;
    if (!ctx->bk->make_current) return AK_OK;     /* cpu */
    pthread_once(&_ak_bind_once, _ak_bind_make_key);
    if (pthread_getspecific(_ak_bind_key) == (void*)ctx->serial) return AK_OK;
    if ((e = ctx->bk->make_current(ctx)) != 0)
        return _ak_err(AK_ERROR_DEVICE, "binding %s device %d to this thread failed: %s (%d)", ak_backend_name(ctx->backend),
                       ctx->dev.device, ctx->bk->error_string(ctx, e), e);
    pthread_setspecific(_ak_bind_key, (void*)ctx->serial);
    return AK_OK;
}

/* A probe's first step: the report says which backend was tried. */
static void _ak_probe_begin(ak_backend_report* rep, ak_backend b) {
    rep->backend = b;
    rep->tried = 1;
}
/* A probe's outcome: status and reason into the report, the status back. */
static ak_result _ak_probe_report(ak_backend_report* rep, ak_result status, const char* fmt, ...) _AK_PRINTF(3, 4);
static ak_result _ak_probe_report(ak_backend_report* rep, ak_result status, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep->reason, sizeof rep->reason, fmt, ap);
    va_end(ap);
    return rep->status = status;
}
/* The device-ordinal step every probe shares: AK_ERROR_NO_DEVICE in the
 * report when `device` is past the `n` devices `who` sees. */
static ak_result _ak_probe_device_index(ak_backend_report* rep, int device, int n, const char* who) {
    if (device < n) return AK_OK;
    return _ak_probe_report(rep, AK_ERROR_NO_DEVICE, "device %d requested, %s sees %d device%s", device, who, n, n == 1 ? "" : "s");
}

/* The variables that select visible devices, as set ("" if none). */
static void _ak_visible_devices(char* out, size_t cap) {
    static const char* const names[] = { "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES" };
    int i;
    out[0] = 0;
    for (i = 0; i < 3; i++) {
        const char* v = getenv(names[i]);
        if (v) _ak_appendf(out, cap, "%s%s=%s", out[0] ? " " : "", names[i], v);
    }
}
static void _ak_uuid_text(char* out, size_t cap, const char* prefix, const unsigned char* b) {
    _ak_fmt(out, cap, "%s%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", prefix,
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* The device attributes both GPU runtimes report, in this order (each
 * describe below passes its runtime's codes for them). */
enum { _AK_DA_CUS, _AK_DA_WAVE, _AK_DA_SHMEM, _AK_DA_L2, _AK_DA_CLOCK, _AK_DA_MEM_CLOCK, _AK_DA_BUS, _AK_DA_MAX_THREADS,
       _AK_DA_BLOCK_X, _AK_DA_BLOCK_Y, _AK_DA_BLOCK_Z, _AK_DA_GRID_X, _AK_DA_GRID_Y, _AK_DA_GRID_Z, _AK_DA_COUNT };
static void _ak_dev_set_attrs(ak_device_info* dev, const int* v) {
    int i;
    dev->compute_units = v[_AK_DA_CUS];
    dev->wave_size = v[_AK_DA_WAVE];
    dev->shared_mem_per_block = (size_t)v[_AK_DA_SHMEM];
    dev->l2_bytes = (size_t)v[_AK_DA_L2];
    dev->clock_khz = v[_AK_DA_CLOCK];
    dev->memory_clock_khz = v[_AK_DA_MEM_CLOCK];
    dev->memory_bus_width = v[_AK_DA_BUS];
    dev->max_threads_per_block = v[_AK_DA_MAX_THREADS];
    for (i = 0; i < 3; i++) {
        dev->max_block[i] = v[_AK_DA_BLOCK_X + i];
        dev->max_grid[i] = v[_AK_DA_GRID_X + i];
    }
}

/* Describe HIP device `device` (runtime loaded, hipInit done) without making
 * it current: attribute and identity queries only, no context. mem_free 0. */
static void _ak_hip_describe(_ak_api* api, int device, ak_device_info* dev) {
    unsigned char* props;
    dev->backend = AK_BACKEND_HIP;
    dev->device = device;
    api->hipDeviceGetName(dev->name, (int)sizeof dev->name, device);
    /* gcnArchName from the properties struct, R0600 layout first. */
    props = (unsigned char*)_ak_calloc(_AK_HIP_PROPS_BYTES);
    if (props) {
        if (api->hipGetDevicePropertiesR0600 && api->hipGetDevicePropertiesR0600(props, device) == 0)
            _ak_copy(dev->arch, sizeof dev->arch, (const char*)props + _AK_HIP_PROPS_R0600_ARCH_OFFSET);
        else if (api->hipGetDevicePropertiesLegacy && api->hipGetDevicePropertiesLegacy(props, device) == 0)
            _ak_copy(dev->arch, sizeof dev->arch, (const char*)props + _AK_HIP_PROPS_R0000_ARCH_OFFSET);
        _ak_dealloc(props);
    }
    {
        static const int codes[_AK_DA_COUNT] = { _AK_HIP_ATTR_MP_COUNT, _AK_HIP_ATTR_WARP, _AK_HIP_ATTR_SHMEM_PER_BLOCK, _AK_HIP_ATTR_L2,
            _AK_HIP_ATTR_CLOCK, _AK_HIP_ATTR_MEM_CLOCK, _AK_HIP_ATTR_BUS_WIDTH, _AK_HIP_ATTR_MAX_THREADS, _AK_HIP_ATTR_MAX_BLOCK_X,
            _AK_HIP_ATTR_MAX_BLOCK_X + 1, _AK_HIP_ATTR_MAX_BLOCK_X + 2, _AK_HIP_ATTR_MAX_GRID_X, _AK_HIP_ATTR_MAX_GRID_X + 1,
            _AK_HIP_ATTR_MAX_GRID_X + 2 };
        int v[_AK_DA_COUNT], i;
        for (i = 0; i < _AK_DA_COUNT; i++) {
            v[i] = 0;
            api->hipDeviceGetAttribute(&v[i], (_akT_hipDeviceAttribute_t)codes[i], device);
        }
        _ak_dev_set_attrs(dev, v);
    }
    if (api->hipDeviceTotalMem) { size_t t = 0; if (api->hipDeviceTotalMem(&t, device) == 0) dev->mem_total = t; }
    if (api->hipDeviceGetPCIBusId && api->hipDeviceGetPCIBusId(dev->pci_bus_id, (int)sizeof dev->pci_bus_id, device) != 0)
        dev->pci_bus_id[0] = 0;
    if (api->hipDeviceGetUuid) {
        _akT_hipUUID u;
        memset(&u, 0, sizeof u);
        if (api->hipDeviceGetUuid(&u, device) == 0) {
            /* ROCm fills the 16 bytes with the agent's UUID as text (hex digits), not raw bytes */
            char t[17];
            int i, printable = 1;
            memcpy(t, u.bytes, 16);
            t[16] = 0;
            for (i = 0; i < 16 && t[i]; i++) if (t[i] < 0x20 || t[i] > 0x7e) printable = 0;
            if (printable && t[0]) _ak_fmt(dev->uuid, sizeof dev->uuid, "GPU-%s", t);
            else _ak_uuid_text(dev->uuid, sizeof dev->uuid, "GPU-", (const unsigned char*)u.bytes);
        }
    }
    dev->runtime_version = api->hip_runtime_version;
    api->hipDriverGetVersion(&dev->driver_version);
    _ak_fmt(dev->compiler_version, sizeof dev->compiler_version, "hipRTC %s", api->hiprtc_version);
    _ak_copy(dev->runtime_library, sizeof dev->runtime_library, api->hip_path);
    _ak_copy(dev->compiler_library, sizeof dev->compiler_library, api->hiprtc_path);
    _ak_fmt(dev->library_search, sizeof dev->library_search, "runtime: %s; hipRTC: %s", api->hip_how, api->hiprtc_how);
    _ak_visible_devices(dev->visible_devices, sizeof dev->visible_devices);
    dev->fp16 = dev->bf16 = -1;
}

/* Describe CUDA device `device` (driver loaded, cuInit done): attribute and
 * identity queries only, no context. mem_free 0. */
static void _ak_cuda_describe(_ak_api* api, int device, ak_device_info* dev) {
    int major = 0, minor = 0;
    _akT_CUdevice d = 0;
    size_t total = 0;
    dev->backend = AK_BACKEND_CUDA;
    dev->device = device;
    api->cuDeviceGet(&d, device);
    api->cuDeviceGetName(dev->name, (int)sizeof dev->name, d);
    {   /* two more than the shared list: the compute capability */
        static const int codes[_AK_DA_COUNT + 2] = { _AK_CU_ATTR_MP_COUNT, _AK_CU_ATTR_WARP, _AK_CU_ATTR_SHMEM_OPTIN, _AK_CU_ATTR_L2,
            _AK_CU_ATTR_CLOCK, _AK_CU_ATTR_MEM_CLOCK, _AK_CU_ATTR_BUS_WIDTH, _AK_CU_ATTR_MAX_THREADS, _AK_CU_ATTR_MAX_BLOCK_X,
            _AK_CU_ATTR_MAX_BLOCK_X + 1, _AK_CU_ATTR_MAX_BLOCK_X + 2, _AK_CU_ATTR_MAX_GRID_X, _AK_CU_ATTR_MAX_GRID_X + 1,
            _AK_CU_ATTR_MAX_GRID_X + 2, _AK_CU_ATTR_CC_MAJOR, _AK_CU_ATTR_CC_MINOR };
        int v[_AK_DA_COUNT + 2], i;
        for (i = 0; i < _AK_DA_COUNT + 2; i++) {
            v[i] = 0;
            api->cuDeviceGetAttribute(&v[i], (_akT_CUdevice_attribute)codes[i], d);
        }
        _ak_dev_set_attrs(dev, v);
        major = v[_AK_DA_COUNT];
        minor = v[_AK_DA_COUNT + 1];
    }
    _ak_fmt(dev->arch, sizeof dev->arch, "sm_%d%d", major, minor);
    api->cuDeviceTotalMem(&total, d);
    dev->mem_total = total;
    if (api->cuDeviceGetPCIBusId && api->cuDeviceGetPCIBusId(dev->pci_bus_id, (int)sizeof dev->pci_bus_id, d) != 0)
        dev->pci_bus_id[0] = 0;
    if (api->cuDeviceGetUuid) {
        _akT_CUuuid u;
        memset(&u, 0, sizeof u);
        if (api->cuDeviceGetUuid(&u, d) == 0) _ak_uuid_text(dev->uuid, sizeof dev->uuid, "GPU-", (const unsigned char*)u.bytes);
    }
    api->cuDriverGetVersion(&dev->driver_version);
    dev->runtime_version = dev->driver_version;
    _ak_fmt(dev->compiler_version, sizeof dev->compiler_version, "NVRTC %d.%d", api->nvrtc_major, api->nvrtc_minor);
    _ak_copy(dev->runtime_library, sizeof dev->runtime_library, api->cuda_path);
    _ak_copy(dev->compiler_library, sizeof dev->compiler_library, api->nvrtc_path);
    _ak_visible_devices(dev->visible_devices, sizeof dev->visible_devices);
    dev->fp16 = dev->bf16 = -1;
}

/* Probe one backend into api/dev (dev may be NULL for a probe only).
 * Fills report; returns its status. */
static ak_result _ak_probe_hip(_ak_api* api, int device, ak_device_info* dev, ak_backend_report* rep) {
    char why[512];
    int e, n = 0;
    _ak_probe_begin(rep, AK_BACKEND_HIP);
    if (!_ak_load_hip_runtime(api, why, sizeof why)) return _ak_probe_report(rep, AK_ERROR_BACKEND_UNAVAILABLE, "HIP runtime: %s", why);
    if (!_ak_load_hiprtc(api, why, sizeof why))
        return _ak_probe_report(rep, AK_ERROR_BACKEND_UNAVAILABLE, "%s loaded, but no hipRTC: %s", api->hip_path, why);
    e = api->hipInit(0);
    if (e == 0) e = api->hipGetDeviceCount(&n);
    if (e != 0 || n <= 0)
        return _ak_probe_report(rep, AK_ERROR_NO_DEVICE, "%s loaded (runtime %d, found via %s), but no device: %s (%d)",
                 api->hip_path, api->hip_runtime_version, api->hip_how, e ? _ak_hip_errstr(api, e) : "device count 0", e);
    if (_ak_probe_device_index(rep, device, n, "the HIP runtime") != AK_OK) return rep->status;
    _ak_probe_report(rep, AK_OK, "%s (found via %s): %d device(s)", api->hip_path, api->hip_how, n);
    if (dev) {
        dev->device_count = n;
        _ak_hip_describe(api, device, dev);
        api->hipSetDevice(device);
        api->hipMemGetInfo(&dev->mem_free, &dev->mem_total);
    }
    return AK_OK;
}

static ak_result _ak_probe_cuda(_ak_api* api, int device, ak_device_info* dev, ak_backend_report* rep) {
    char why[512];
    int e, n = 0;
    _ak_probe_begin(rep, AK_BACKEND_CUDA);
    if (!_ak_load_cuda_driver(api, why, sizeof why)) return _ak_probe_report(rep, AK_ERROR_BACKEND_UNAVAILABLE, "CUDA driver: %s", why);
    e = api->cuInit(0);
    if (e == 0) e = api->cuDeviceGetCount(&n);
    if (e != 0 || n <= 0)
        return _ak_probe_report(rep, AK_ERROR_NO_DEVICE, "%s loaded, but no device: %s (%d)", api->cuda_path,
                 e ? _ak_cu_errstr(api, e) : "device count 0", e);
    if (!_ak_load_nvrtc(api, why, sizeof why))
        return _ak_probe_report(rep, AK_ERROR_BACKEND_UNAVAILABLE, "%s loaded with %d device(s), but no NVRTC: %s", api->cuda_path, n, why);
    if (_ak_probe_device_index(rep, device, n, "the CUDA driver") != AK_OK) return rep->status;
    _ak_probe_report(rep, AK_OK, "%s + %s: %d device(s)", api->cuda_path, api->nvrtc_path, n);
    if (dev) {
        dev->device_count = n;
        _ak_cuda_describe(api, device, dev);
    }
    return AK_OK;
}

static ak_result _ak_probe_cpu(int device, ak_device_info* dev, ak_backend_report* rep) {
    _ak_probe_begin(rep, AK_BACKEND_CPU);
    if (_ak_probe_device_index(rep, device, 1, "the cpu backend") != AK_OK) return rep->status;
    rep->status = AK_OK;
    _ak_copy(rep->reason, sizeof rep->reason, "always available (CPU reference path)");
    if (dev) {
        FILE* f = fopen("/proc/cpuinfo", "r");
        long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        long avail = sysconf(_SC_AVPHYS_PAGES);
        _ak_copy(dev->name, sizeof dev->name, "CPU");
        if (f) {
            char line[512];
            while (fgets(line, sizeof line, f)) {
                if (!strncmp(line, "model name", 10)) {
                    char* c = strchr(line, ':');
                    if (c) {
                        size_t n;
                        c++;
                        while (*c == ' ') c++;
                        n = strcspn(c, "\n");
                        c[n] = 0;
                        _ak_fmt(dev->name, sizeof dev->name, "CPU (%s)", c);
                    }
                    break;
                }
            }
            fclose(f);
        }
        _ak_copy(dev->arch, sizeof dev->arch, "cpu");
        _ak_copy(dev->arch_base, sizeof dev->arch_base, "cpu");
        dev->device_count = 1;
        dev->compute_units = (int)sysconf(_SC_NPROCESSORS_ONLN);
        dev->wave_size = 1;
        dev->shared_mem_per_block = 65536;
        /* the cpu backend has no limits of its own: it enforces NVIDIA's (AMD's are looser), so a launch tested
           here is valid on either GPU */
        dev->max_threads_per_block = 1024;
        dev->max_block[0] = 1024; dev->max_block[1] = 1024; dev->max_block[2] = 64;
        dev->max_grid[0] = 2147483647; dev->max_grid[1] = 65535; dev->max_grid[2] = 65535;
        dev->mem_total = (pages > 0 && psize > 0) ? (size_t)pages * (size_t)psize : 0;
        dev->mem_free = (avail > 0 && psize > 0) ? (size_t)avail * (size_t)psize : 0;
        _ak_copy(dev->compiler_version, sizeof dev->compiler_version, "none");
        _ak_visible_devices(dev->visible_devices, sizeof dev->visible_devices); /* reported; the cpu backend has one device */
        dev->fp16 = 1;
        dev->bf16 = 1;
    }
    return AK_OK;
}

/* ---- the backend tables --------------------------------------------------
 * Each backend's raw calls (the only functions, with the probes and the
 * loaders, that name a runtime's entry points), then the layer every backend
 * shares: bind, call, word the error. */

/* cpu: host memory, nothing to bind, events are host clock readings */
static int _ak_cpu_alloc(ak_context* ctx, size_t bytes, void** out) {
    (void)ctx;   /* 256-byte aligned host memory */
    return posix_memalign(out, 256, bytes ? bytes : 1) != 0 || !*out ? 2 : 0;
}
static int _ak_cpu_free(ak_context* ctx, void* ptr) { (void)ctx; free(ptr); return 0; }
static int _ak_cpu_mem_info(ak_context* ctx, size_t* fr, size_t* to) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE), avail = sysconf(_SC_AVPHYS_PAGES);
    (void)ctx;
    *to = (pages > 0 && psize > 0) ? (size_t)pages * (size_t)psize : 0;
    *fr = (avail > 0 && psize > 0) ? (size_t)avail * (size_t)psize : 0;
    return 0;
}
static int _ak_cpu_event_create(ak_context* ctx, void** ev, unsigned flags) { (void)ctx; (void)flags; *ev = NULL; return 0; }
static int _ak_cpu_event_elapsed(ak_context* ctx, float* ms, ak_event* a, ak_event* b) {
    (void)ctx;
    *ms = (float)((double)((int64_t)(b->host_ns - a->host_ns)) / 1e6);
    return 0;
}
static int _ak_cpu_copy(ak_context* ctx, void* dst, const void* src, size_t bytes, ak_copy_kind kind, void* stream, int async) {
    (void)ctx; (void)kind; (void)stream; (void)async;
    memmove(dst, src, bytes);
    return 0;
}
static int _ak_cpu_memset(ak_context* ctx, void* dst, int value, size_t bytes, void* stream) {
    (void)ctx; (void)stream;
    memset(dst, value, bytes);
    return 0;
}
static int _ak_cpu_host_alloc(ak_context* ctx, void** out, size_t bytes) { return _ak_cpu_alloc(ctx, bytes, out); }
static int _ak_cpu_stream_create(ak_context* ctx, void** native, int priority) { (void)ctx; (void)priority; *native = NULL; return 0; }
static int _ak_cpu_nothing(ak_context* ctx) { (void)ctx; return 0; }
static int _ak_cpu_nothing_on(ak_context* ctx, void* h) { (void)ctx; (void)h; return 0; }
static int _ak_cpu_stream_priority_range(ak_context* ctx, int* least, int* greatest) {   /* any priority is kept */
    (void)ctx;
    *least = INT_MAX;
    *greatest = INT_MIN;
    return 0;
}
static int _ak_cpu_device_count(struct _ak_api* api, int* n) { (void)api; *n = 1; return 0; }
static void _ak_cpu_describe(struct _ak_api* api, int device, ak_device_info* dev) {
    ak_backend_report rep;
    (void)api;
    memset(&rep, 0, sizeof rep);
    _ak_probe_cpu(device, dev, &rep);
    dev->backend = AK_BACKEND_CPU;
}
/* one host memory: every context reaches every buffer */
static int _ak_cpu_peer_can_access(ak_context* ctx, ak_context* peer, int* can) { (void)ctx; (void)peer; *can = 1; return 0; }
static int _ak_cpu_peer_enable(ak_context* ctx, ak_context* peer) { (void)ctx; (void)peer; return 0; }
static int _ak_cpu_peer_copy(ak_context* dst_ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes, void* stream) {
    (void)dst_ctx; (void)src_ctx; (void)stream;
    memmove(dst, src, bytes);
    return 0;
}
static const char* _ak_cpu_error_string(ak_context* ctx, int e) { (void)ctx; return e == 2 ? "out of host memory" : "host error"; }
static ak_result _ak_cpu_open(ak_context* ctx) { (void)ctx; return AK_OK; }
static void _ak_cpu_close(ak_context* ctx) { (void)ctx; }
static ak_result _ak_cpu_probe(struct _ak_api* api, int device, ak_device_info* dev, ak_backend_report* rep) {
    (void)api;
    return _ak_probe_cpu(device, dev, rep);
}
/* No device compiler; list the offline ones (ak_compile_offline) as the compiler. */
static ak_result _ak_cpu_probe_features(ak_context* ctx) {
    char why[512];
    int hip_ok, nv_ok;
    ctx->dev.fp16 = 1;
    ctx->dev.bf16 = 1;
    _ak_mutex_lock(&ctx->lock);
    hip_ok = _ak_load_hiprtc(ctx->api, why, sizeof why);
    nv_ok = _ak_load_nvrtc(ctx->api, why, sizeof why);
    _ak_mutex_unlock(&ctx->lock);
    ctx->dev.compiler_version[0] = 0;
    ctx->dev.compiler_library[0] = 0;
    if (hip_ok) {
        _ak_appendf(ctx->dev.compiler_version, sizeof ctx->dev.compiler_version, "hipRTC %s", ctx->api->hiprtc_version);
        _ak_appendf(ctx->dev.compiler_library, sizeof ctx->dev.compiler_library, "%s", ctx->api->hiprtc_path);
        _ak_fmt(ctx->dev.library_search, sizeof ctx->dev.library_search, "hipRTC: %s", ctx->api->hiprtc_how);
    }
    if (nv_ok) {
        _ak_appendf(ctx->dev.compiler_version, sizeof ctx->dev.compiler_version, "%sNVRTC %d.%d", hip_ok ? ", " : "",
                    ctx->api->nvrtc_major, ctx->api->nvrtc_minor);
        _ak_appendf(ctx->dev.compiler_library, sizeof ctx->dev.compiler_library, "%s%s", hip_ok ? " " : "", ctx->api->nvrtc_path);
    }
    _ak_appendf(ctx->dev.compiler_version, sizeof ctx->dev.compiler_version, "%s",
                hip_ok || nv_ok ? " (offline compiles only)" : "none");
    return AK_OK;
}
static ak_result _ak_gpu_probe_features(ak_context* ctx);    /* >>impl:memory (runs a probe kernel) */
static ak_result _ak_cpu_launch(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shmem, ak_stream* stream, void** args);
static ak_result _ak_gpu_launch(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shmem, ak_stream* stream, void** args);

/* The step both GPU backends end their open with: the arch row of the device. */
static void _ak_set_arch_base(ak_device_info* dev);
static void _ak_gpu_device_ready(ak_context* ctx) {
    _ak_set_arch_base(&ctx->dev);
    if (ak_arch_find(ctx->dev.arch, &ctx->dev.arch_info) != AK_OK) ctx->dev.arch_info = NULL;
    ctx->dev.fp16 = -1; /* probed by ak_context_probe */
    ctx->dev.bf16 = -1;
}

/* hip */
#define _AK_A ctx->api
static int _ak_hip_make_current(ak_context* ctx) { return _AK_A->hipSetDevice(ctx->dev.device); }
static int _ak_hip_alloc(ak_context* ctx, size_t bytes, void** out) { return _AK_A->hipMalloc(out, bytes); }
static int _ak_hip_free(ak_context* ctx, void* ptr) { return _AK_A->hipFree(ptr); }
static int _ak_hip_mem_info(ak_context* ctx, size_t* fr, size_t* to) { return _AK_A->hipMemGetInfo(fr, to); }
static int _ak_hip_event_create(ak_context* ctx, void** ev, unsigned flags) { return _AK_A->hipEventCreateWithFlags(ev, flags); }
static int _ak_hip_event_record(ak_context* ctx, void* ev, void* stream) { return _AK_A->hipEventRecord(ev, stream); }
static int _ak_hip_event_query(ak_context* ctx, void* ev) { return _AK_A->hipEventQuery(ev); }
static int _ak_hip_event_destroy(ak_context* ctx, void* ev) { return _AK_A->hipEventDestroy(ev); }
static int _ak_hip_event_synchronize(ak_context* ctx, void* ev) { return _AK_A->hipEventSynchronize(ev); }
static int _ak_hip_event_elapsed(ak_context* ctx, float* ms, ak_event* a, ak_event* b) { return _AK_A->hipEventElapsedTime(ms, a->native, b->native); }
static int _ak_hip_synchronize(ak_context* ctx) { return _AK_A->hipDeviceSynchronize(); }
static int _ak_hip_copy(ak_context* ctx, void* dst, const void* src, size_t bytes, ak_copy_kind kind, void* stream, int async) {
    return async ? _AK_A->hipMemcpyAsync(dst, src, bytes, (int)kind, stream) : _AK_A->hipMemcpy(dst, src, bytes, (int)kind);
}
static int _ak_hip_memset(ak_context* ctx, void* dst, int value, size_t bytes, void* stream) { return _AK_A->hipMemsetAsync(dst, value, bytes, stream); }
static int _ak_hip_host_alloc(ak_context* ctx, void** out, size_t bytes) { return _AK_A->hipHostMalloc(out, bytes, 0); }
static int _ak_hip_host_free(ak_context* ctx, void* ptr) { return _AK_A->hipHostFree(ptr); }
static int _ak_hip_stream_priority_range(ak_context* ctx, int* least, int* greatest) {
    return _AK_A->hipDeviceGetStreamPriorityRange ? _AK_A->hipDeviceGetStreamPriorityRange(least, greatest) : 0;
}
static int _ak_hip_stream_create(ak_context* ctx, void** native, int priority) { return _AK_A->hipStreamCreateWithPriority(native, 0, priority); }
static int _ak_hip_stream_destroy(ak_context* ctx, void* native) { return _AK_A->hipStreamDestroy(native); }
static int _ak_hip_stream_synchronize(ak_context* ctx, void* native) { return _AK_A->hipStreamSynchronize(native); }
static int _ak_hip_module_load(ak_context* ctx, const void* data, void** module) { return _AK_A->hipModuleLoadData(module, data); }
static int _ak_hip_module_function(ak_context* ctx, void* module, const char* name, void** fn) { return _AK_A->hipModuleGetFunction(fn, module, name); }
static int _ak_hip_module_unload(ak_context* ctx, void* module) { return _AK_A->hipModuleUnload(module); }
static int _ak_hip_launch_kernel(ak_context* ctx, void* fn, ak_dim3 g, ak_dim3 b, size_t shmem, void* stream, void** args) {
    return _AK_A->hipModuleLaunchKernel(fn, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)shmem, stream, args, NULL);
}
static const char* _ak_hip_error_string(ak_context* ctx, int e) { return _ak_hip_errstr(ctx->api, e); }
static ak_result _ak_hip_open(ak_context* ctx) { _ak_gpu_device_ready(ctx); return AK_OK; }
static void _ak_hip_close(ak_context* ctx) { (void)ctx; }
static int _ak_hip_device_count(struct _ak_api* api, int* n) { return api->hipGetDeviceCount(n); }
static int _ak_hip_peer_can_access(ak_context* ctx, ak_context* peer, int* can) {
    *can = 0;
    return _AK_A->hipDeviceCanAccessPeer ? _AK_A->hipDeviceCanAccessPeer(can, ctx->dev.device, peer->dev.device) : 0;
}
static int _ak_hip_peer_enable(ak_context* ctx, ak_context* peer) {
    int e = _AK_A->hipDeviceEnablePeerAccess ? _AK_A->hipDeviceEnablePeerAccess(peer->dev.device, 0) : _AK_E_NO_ENTRY;
    return e == 704 /* hipErrorPeerAccessAlreadyEnabled */ ? 0 : e;
}
static int _ak_hip_peer_copy(ak_context* ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes, void* stream) {
    return _AK_A->hipMemcpyPeerAsync ? _AK_A->hipMemcpyPeerAsync(dst, ctx->dev.device, src, src_ctx->dev.device, bytes, stream)
                                     : _AK_E_NO_ENTRY;
}
static int _ak_hip_stream_wait_event(ak_context* ctx, void* stream, void* ev) {
    return _AK_A->hipStreamWaitEvent ? _AK_A->hipStreamWaitEvent(stream, ev, 0) : _AK_E_NO_ENTRY;
}
static int _ak_hip_ccl_load(struct _ak_api* api, char* why, size_t cap) { return _ak_load_ccl(api, 1, why, cap); }

/* cuda */
static int _ak_cuda_make_current(ak_context* ctx) { return _AK_A->cuCtxSetCurrent(ctx->native_ctx); }
static int _ak_cuda_alloc(ak_context* ctx, size_t bytes, void** out) {
    _akT_CUdeviceptr p = 0;
    int e = _AK_A->cuMemAlloc(&p, bytes);
    *out = e ? NULL : (void*)(uintptr_t)p;
    return e;
}
static int _ak_cuda_free(ak_context* ctx, void* ptr) { return _AK_A->cuMemFree((_akT_CUdeviceptr)(uintptr_t)ptr); }
static int _ak_cuda_mem_info(ak_context* ctx, size_t* fr, size_t* to) { return _AK_A->cuMemGetInfo(fr, to); }
static int _ak_cuda_event_create(ak_context* ctx, void** ev, unsigned flags) { return _AK_A->cuEventCreate(ev, flags); }
static int _ak_cuda_event_record(ak_context* ctx, void* ev, void* stream) { return _AK_A->cuEventRecord(ev, stream); }
static int _ak_cuda_event_query(ak_context* ctx, void* ev) { return _AK_A->cuEventQuery(ev); }
static int _ak_cuda_event_destroy(ak_context* ctx, void* ev) { return _AK_A->cuEventDestroy(ev); }
static int _ak_cuda_event_synchronize(ak_context* ctx, void* ev) { return _AK_A->cuEventSynchronize(ev); }
static int _ak_cuda_event_elapsed(ak_context* ctx, float* ms, ak_event* a, ak_event* b) { return _AK_A->cuEventElapsedTime(ms, a->native, b->native); }
static int _ak_cuda_synchronize(ak_context* ctx) { return _AK_A->cuCtxSynchronize(); }
static int _ak_cuda_copy(ak_context* ctx, void* dst, const void* src, size_t bytes, ak_copy_kind kind, void* s, int async) {
    _akT_CUdeviceptr d = (_akT_CUdeviceptr)(uintptr_t)dst, sp = (_akT_CUdeviceptr)(uintptr_t)src;
    if (kind == AK_H2D) return async ? _AK_A->cuMemcpyHtoDAsync(d, src, bytes, s) : _AK_A->cuMemcpyHtoD(d, src, bytes);
    if (kind == AK_D2H) return async ? _AK_A->cuMemcpyDtoHAsync(dst, sp, bytes, s) : _AK_A->cuMemcpyDtoH(dst, sp, bytes);
    return async ? _AK_A->cuMemcpyDtoDAsync(d, sp, bytes, s) : _AK_A->cuMemcpyDtoD(d, sp, bytes);
}
static int _ak_cuda_memset(ak_context* ctx, void* dst, int value, size_t bytes, void* stream) {
    return _AK_A->cuMemsetD8Async((_akT_CUdeviceptr)(uintptr_t)dst, (unsigned char)value, bytes, stream);
}
static int _ak_cuda_host_alloc(ak_context* ctx, void** out, size_t bytes) { return _AK_A->cuMemAllocHost(out, bytes); }
static int _ak_cuda_host_free(ak_context* ctx, void* ptr) { return _AK_A->cuMemFreeHost(ptr); }
static int _ak_cuda_stream_priority_range(ak_context* ctx, int* least, int* greatest) {
    return _AK_A->cuCtxGetStreamPriorityRange ? _AK_A->cuCtxGetStreamPriorityRange(least, greatest) : 0;
}
static int _ak_cuda_stream_create(ak_context* ctx, void** native, int priority) { return _AK_A->cuStreamCreateWithPriority(native, 0, priority); }
static int _ak_cuda_stream_destroy(ak_context* ctx, void* native) { return _AK_A->cuStreamDestroy(native); }
static int _ak_cuda_stream_synchronize(ak_context* ctx, void* native) { return _AK_A->cuStreamSynchronize(native); }
static int _ak_cuda_module_load(ak_context* ctx, const void* data, void** module) { return _AK_A->cuModuleLoadData(module, data); }
static int _ak_cuda_module_function(ak_context* ctx, void* module, const char* name, void** fn) { return _AK_A->cuModuleGetFunction(fn, module, name); }
static int _ak_cuda_module_unload(ak_context* ctx, void* module) { return _AK_A->cuModuleUnload(module); }
static int _ak_cuda_shmem_optin(ak_context* ctx, void* fn, size_t bytes) {
    return _AK_A->cuFuncSetAttribute ? _AK_A->cuFuncSetAttribute(fn, _AK_CU_FUNC_MAX_DYN_SHMEM, (int)bytes) : 0;
}
static int _ak_cuda_launch_kernel(ak_context* ctx, void* fn, ak_dim3 g, ak_dim3 b, size_t shmem, void* stream, void** args) {
    return _AK_A->cuLaunchKernel(fn, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)shmem, stream, args, NULL);
}
static const char* _ak_cuda_error_string(ak_context* ctx, int e) { return _ak_cu_errstr(ctx->api, e); }
/* The device's primary context, current on the creating thread. */
static ak_result _ak_cuda_open(ak_context* ctx) {
    _akT_CUdevice d = 0;
    _akT_CUcontext cc = NULL;
    size_t fr = 0, to = 0;
    int e = _AK_A->cuDeviceGet(&d, ctx->dev.device);
    if (e == 0) e = _AK_A->cuDevicePrimaryCtxRetain(&cc, d);
    if (e != 0)
        return _ak_err(AK_ERROR_DEVICE, "cuDevicePrimaryCtxRetain(device %d) failed: %s (%d)", ctx->dev.device, _ak_cu_errstr(ctx->api, e), e);
    ctx->native_ctx = cc;
    _AK_A->cuCtxSetCurrent(cc);
    if (_AK_A->cuMemGetInfo(&fr, &to) == 0) { ctx->dev.mem_free = fr; ctx->dev.mem_total = to; }
    _ak_gpu_device_ready(ctx);
    return AK_OK;
}
static void _ak_cuda_close(ak_context* ctx) {
    _akT_CUdevice d = 0;
    if (ctx->native_ctx && _AK_A->cuDeviceGet(&d, ctx->dev.device) == 0) _AK_A->cuDevicePrimaryCtxRelease(d);
}
static int _ak_cuda_device_count(struct _ak_api* api, int* n) { return api->cuDeviceGetCount(n); }
static int _ak_cuda_peer_can_access(ak_context* ctx, ak_context* peer, int* can) {
    _akT_CUdevice d = 0, p = 0;
    int e;
    *can = 0;
    if (!_AK_A->cuDeviceCanAccessPeer) return 0;
    if ((e = _AK_A->cuDeviceGet(&d, ctx->dev.device)) == 0 && (e = _AK_A->cuDeviceGet(&p, peer->dev.device)) == 0)
        e = _AK_A->cuDeviceCanAccessPeer(can, d, p);
    return e;
}
static int _ak_cuda_peer_enable(ak_context* ctx, ak_context* peer) {
    int e = _AK_A->cuCtxEnablePeerAccess ? _AK_A->cuCtxEnablePeerAccess(peer->native_ctx, 0) : _AK_E_NO_ENTRY;
    return e == 704 /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */ ? 0 : e;
}
static int _ak_cuda_peer_copy(ak_context* ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes, void* stream) {
    return _AK_A->cuMemcpyPeerAsync ? _AK_A->cuMemcpyPeerAsync((_akT_CUdeviceptr)(uintptr_t)dst, ctx->native_ctx,
                                                              (_akT_CUdeviceptr)(uintptr_t)src, src_ctx->native_ctx, bytes, stream)
                                    : _AK_E_NO_ENTRY;
}
static int _ak_cuda_stream_wait_event(ak_context* ctx, void* stream, void* ev) {
    return _AK_A->cuStreamWaitEvent ? _AK_A->cuStreamWaitEvent(stream, ev, 0) : _AK_E_NO_ENTRY;
}
static int _ak_cuda_ccl_load(struct _ak_api* api, char* why, size_t cap) { return _ak_load_ccl(api, 0, why, cap); }
#undef _AK_A

static const char* const _ak_roctx_libs[] = { "libroctx64.so", "libroctx64.so.4", NULL };
static const char* const _ak_nvtx_libs[] = { "libnvToolsExt.so.1", "libnvToolsExt.so", NULL };

#define _AK_BACKEND_OPS(p) \
    _ak_##p##_probe, _ak_##p##_open, _ak_##p##_close, _ak_##p##_probe_features, _ak_##p##_launch, _ak_##p##_error_string, \
    _ak_##p##_make_current, _ak_##p##_alloc, _ak_##p##_free, _ak_##p##_mem_info, _ak_##p##_event_create, \
    _ak_##p##_event_record, _ak_##p##_event_query, _ak_##p##_event_destroy, _ak_##p##_event_synchronize, \
    _ak_##p##_event_elapsed, _ak_##p##_synchronize, _ak_##p##_copy, _ak_##p##_memset, _ak_##p##_host_alloc, \
    _ak_##p##_host_free, _ak_##p##_stream_priority_range, _ak_##p##_stream_create, _ak_##p##_stream_destroy, \
    _ak_##p##_stream_synchronize, _ak_##p##_module_load, _ak_##p##_module_function, _ak_##p##_module_unload, \
    _ak_##p##_shmem_optin, _ak_##p##_launch_kernel, _ak_##p##_device_count, _ak_##p##_describe, _ak_##p##_peer_can_access, \
    _ak_##p##_peer_enable, _ak_##p##_peer_copy, _ak_##p##_stream_wait_event, _ak_##p##_ccl, _ak_##p##_ccl_load, \
    _ak_##p##_comm_unique_id, _ak_##p##_comm_init_rank, _ak_##p##_comm_init_all
/* communicators (>>impl:multi): the cpu reference over threads, or NCCL / RCCL */
static ak_result _ak_cc_unique_id(ak_context* ctx, ak_comm_id* id);
static ak_result _ak_cc_init_rank(ak_context* ctx, int nranks, const ak_comm_id* id, int rank, ak_comm** out);
static ak_result _ak_cc_init_all(ak_context* const* ctxs, int n, ak_comm** comms);
static ak_result _ak_ccl_unique_id(ak_context* ctx, ak_comm_id* id);
static ak_result _ak_ccl_init_rank(ak_context* ctx, int nranks, const ak_comm_id* id, int rank, ak_comm** out);
static ak_result _ak_ccl_init_all(ak_context* const* ctxs, int n, ak_comm** comms);
#define _ak_hip_ccl "RCCL"
#define _ak_cuda_ccl "NCCL"
#define _ak_cpu_ccl NULL
#define _ak_cpu_ccl_load NULL
#define _ak_hip_comm_unique_id _ak_ccl_unique_id
#define _ak_hip_comm_init_rank _ak_ccl_init_rank
#define _ak_hip_comm_init_all _ak_ccl_init_all
#define _ak_cuda_comm_unique_id _ak_ccl_unique_id
#define _ak_cuda_comm_init_rank _ak_ccl_init_rank
#define _ak_cuda_comm_init_all _ak_ccl_init_all
#define _ak_cpu_comm_unique_id _ak_cc_unique_id
#define _ak_cpu_comm_init_rank _ak_cc_init_rank
#define _ak_cpu_comm_init_all _ak_cc_init_all
#define _ak_cpu_stream_wait_event _ak_cpu_nothing_record
#define _ak_hip_probe _ak_probe_hip
#define _ak_cuda_probe _ak_probe_cuda
#define _ak_hip_probe_features _ak_gpu_probe_features
#define _ak_cuda_probe_features _ak_gpu_probe_features
#define _ak_hip_launch _ak_gpu_launch
#define _ak_cuda_launch _ak_gpu_launch
#define _ak_hip_shmem_optin NULL
#define _ak_cpu_make_current NULL          /* nothing to bind */
#define _ak_cpu_event_record _ak_cpu_nothing_record
static int _ak_cpu_nothing_record(ak_context* ctx, void* ev, void* stream) { (void)ctx; (void)ev; (void)stream; return 0; }
#define _ak_cpu_event_query _ak_cpu_nothing_on
#define _ak_cpu_event_destroy _ak_cpu_nothing_on
#define _ak_cpu_event_synchronize _ak_cpu_nothing_on
#define _ak_cpu_synchronize _ak_cpu_nothing
#define _ak_cpu_host_free _ak_cpu_free
#define _ak_cpu_stream_destroy _ak_cpu_nothing_on
#define _ak_cpu_stream_synchronize _ak_cpu_nothing_on
#define _ak_cpu_module_load NULL           /* nothing compiled: kernels run their C implementation */
#define _ak_cpu_module_function NULL
#define _ak_cpu_module_unload NULL
#define _ak_cpu_shmem_optin NULL
#define _ak_cpu_launch_kernel NULL
static const _ak_backend_ops _ak_backend_hip = {
    AK_BACKEND_HIP, 0, 0xffffffffull, 1, "roctx", _ak_roctx_libs, "roctxRangePushA", "roctxRangePop", _AK_BACKEND_OPS(hip)
};
static const _ak_backend_ops _ak_backend_cuda = {
    AK_BACKEND_CUDA, 0, 0, 4, "NVTX", _ak_nvtx_libs, "nvtxRangePushA", "nvtxRangePop", _AK_BACKEND_OPS(cuda)
};
static const _ak_backend_ops _ak_backend_cpu = {
    AK_BACKEND_CPU, 1, 0, 1, NULL, NULL, NULL, NULL, _AK_BACKEND_OPS(cpu)
};
#undef _AK_BACKEND_OPS
#undef _ak_hip_probe
#undef _ak_cuda_probe
#undef _ak_hip_probe_features
#undef _ak_cuda_probe_features
#undef _ak_hip_launch
#undef _ak_cuda_launch
#undef _ak_hip_shmem_optin
#undef _ak_cpu_make_current
#undef _ak_cpu_event_record
#undef _ak_cpu_event_query
#undef _ak_cpu_event_destroy
#undef _ak_cpu_event_synchronize
#undef _ak_cpu_synchronize
#undef _ak_cpu_host_free
#undef _ak_cpu_stream_destroy
#undef _ak_cpu_stream_synchronize
#undef _ak_cpu_module_load
#undef _ak_cpu_module_function
#undef _ak_cpu_module_unload
#undef _ak_cpu_shmem_optin
#undef _ak_cpu_launch_kernel
#undef _ak_hip_ccl
#undef _ak_cuda_ccl
#undef _ak_cpu_ccl
#undef _ak_cpu_ccl_load
#undef _ak_hip_comm_unique_id
#undef _ak_hip_comm_init_rank
#undef _ak_hip_comm_init_all
#undef _ak_cuda_comm_unique_id
#undef _ak_cuda_comm_init_rank
#undef _ak_cuda_comm_init_all
#undef _ak_cpu_comm_unique_id
#undef _ak_cpu_comm_init_rank
#undef _ak_cpu_comm_init_all
#undef _ak_cpu_stream_wait_event

/* In AUTO's order of preference (and ak_backend_report order). */
static const _ak_backend_ops* const _ak_backends[3] = { &_ak_backend_hip, &_ak_backend_cuda, &_ak_backend_cpu };

/* ---- the layer every backend shares: bind, call, word the error ---------- */
static ak_result _ak_bk_alloc(ak_context* ctx, size_t bytes, void** out) {
    ak_result r;
    int e;
    *out = NULL;
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->alloc(ctx, bytes, out)) != 0) {
        *out = NULL;
        return _ak_err(e == 2 ? AK_ERROR_OUT_OF_MEMORY : AK_ERROR_MEMORY, "device allocation of %zu bytes failed: %s (%d)",
                       bytes, ctx->bk->error_string(ctx, e), e);
    }
    return AK_OK;
}
static void _ak_bk_free(ak_context* ctx, void* ptr) {
    if (ptr && _ak_bind(ctx) == AK_OK) ctx->bk->free(ctx, ptr);
}
static ak_result _ak_dev_mem_info(ak_context* ctx, size_t* fr, size_t* to) {
    ak_result r;
    int e;
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->mem_info(ctx, fr, to)) != 0) return _ak_err(AK_ERROR_DEVICE, "memory info query failed (%d)", e);
    return AK_OK;
}
static ak_result _ak_event_new(ak_context* ctx, void** ev, unsigned flags) {
    ak_result r;
    int e;
    *ev = NULL;
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->event_create(ctx, ev, flags)) != 0)
        return _ak_err(AK_ERROR_DEVICE, "event creation failed: %s (%d)", ctx->bk->error_string(ctx, e), e);
    return AK_OK;
}
static ak_result _ak_dev_event_create(ak_context* ctx, void** ev) { return _ak_event_new(ctx, ev, 0x2u /* disable timing */); }
static ak_result _ak_dev_event_record(ak_context* ctx, void* ev, void* stream) {
    ak_result r;
    int e;
    if (!ev) return AK_OK;
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->event_record(ctx, ev, stream)) != 0)
        return _ak_err(AK_ERROR_DEVICE, "event record failed: %s (%d)", ctx->bk->error_string(ctx, e), e);
    return AK_OK;
}
static int _ak_dev_event_done(ak_context* ctx, void* ev) {
    if (!ev || _ak_bind(ctx) != AK_OK) return 1;
    return ctx->bk->event_query(ctx, ev) != 600 /* hipErrorNotReady / CUDA_ERROR_NOT_READY */;
}
static void _ak_dev_event_destroy(ak_context* ctx, void* ev) {
    if (ev && _ak_bind(ctx) == AK_OK) ctx->bk->event_destroy(ctx, ev);
}
static const _ak_dev_ops* _ak_dev_ops_shared(void) {
    static const _ak_dev_ops ops = { _ak_bk_alloc, _ak_bk_free, _ak_dev_event_create, _ak_dev_event_record,
                                     _ak_dev_event_done, _ak_dev_event_destroy };
    return &ops;
}


AKDEF void ak_probe_backends(ak_backend_report reports[3]) {
    _ak_api* api;
    if (!reports) return;
    memset(reports, 0, 3 * sizeof *reports);
    api = (_ak_api*)_ak_calloc(sizeof *api);
    if (!api) return;
    {
        int i;
        for (i = 0; i < 3; i++) _ak_backends[i]->probe(api, 0, NULL, &reports[i]);
    }
    _ak_api_close(api);
}

static void _ak_set_arch_base(ak_device_info* dev); /* >>impl:context */
/* Backend that ak_context_create(NULL) would use: AMDKIT_BACKEND, else the
 * first of hip, cuda, cpu that probes usable. The api is loaded for it. */
static ak_result _ak_enum_backend(ak_backend want, _ak_api* api, const _ak_backend_ops** out, int* count) {
    ak_backend_report rep;
    ak_result r;
    int i, n = 0;
    if (want == AK_BACKEND_AUTO) {
        ak_config c = ak_config_default();
        if ((r = ak_config_apply_env(&c)) != AK_OK) return r;
        want = c.backend;
    }
    if ((int)want < (int)AK_BACKEND_AUTO || (int)want >= (int)AK_BACKEND_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "backend %d is not AK_BACKEND_AUTO, HIP, CUDA or CPU", (int)want);
    for (i = 0; i < 3; i++) {
        const _ak_backend_ops* b = _ak_backends[i];
        if (want != AK_BACKEND_AUTO && want != b->id) continue;
        memset(&rep, 0, sizeof rep);
        if (b->probe(api, 0, NULL, &rep) == AK_OK) {
            *out = b;
            *count = b->device_count(api, &n) == 0 ? n : 0;
            return AK_OK;
        }
        if (want == b->id) return _ak_err(rep.status, "%s: %s", ak_backend_name(b->id), rep.reason);
    }
    return _ak_err(AK_ERROR_BACKEND_UNAVAILABLE, "no backend is available");   /* not reached: the last one always is */
}

AKDEF ak_result ak_device_count(ak_backend backend, int* count) {
    _ak_api* api;
    const _ak_backend_ops* b = NULL;
    ak_result r;
    if (!count) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_device_count: count is NULL");
    *count = 0;
    if (!(api = (_ak_api*)_ak_calloc(sizeof *api))) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_device_count: out of host memory");
    r = _ak_enum_backend(backend, api, &b, count);
    _ak_api_close(api);
    return r;
}

AKDEF ak_result ak_device_get_info(ak_backend backend, int index, ak_device_info* out) {
    _ak_api* api;
    const _ak_backend_ops* b = NULL;
    ak_result r;
    int n = 0;
    if (!out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_device_get_info: out is NULL");
    memset(out, 0, sizeof *out);
    if (!(api = (_ak_api*)_ak_calloc(sizeof *api))) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_device_get_info: out of host memory");
    r = _ak_enum_backend(backend, api, &b, &n);
    if (r == AK_OK && (index < 0 || index >= n)) {
        char vis[256];
        _ak_visible_devices(vis, sizeof vis);
        r = _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_device_get_info: device %d requested, the %s backend has %d device(s)%s%s",
                    index, ak_backend_name(b->id), n, vis[0] ? " visible with " : "", vis);
    }
    if (r == AK_OK) {
        b->describe(api, index, out);   /* no context: mem_free stays 0 on a GPU */
        out->device_count = n;
        _ak_set_arch_base(out);
        if (ak_arch_find(out->arch, &out->arch_info) != AK_OK) out->arch_info = NULL;
        ak_clear_error();
    }
    _ak_api_close(api);
    return r;
}

/* ==========================================================================
 * >>impl:context
 * ========================================================================== */
/* Host memory for a context's own objects: the config's run-time allocator
 * when one is set, else AK_MALLOC/AK_FREE. */
static void* _ak_ctx_alloc_uninit(const ak_config* cfg, size_t n) {   /* the caller sets every field */
    return cfg->allocator.alloc ? cfg->allocator.alloc(n ? n : 1, cfg->allocator.user_data) : _ak_alloc(n ? n : 1);
}
static void* _ak_ctx_alloc(const ak_config* cfg, size_t n) {
    void* p = _ak_ctx_alloc_uninit(cfg, n);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}
static void _ak_ctx_free(const ak_config* cfg, void* p) {
    if (!p) return;
    if (cfg->allocator.free) cfg->allocator.free(p, cfg->allocator.user_data);
    else _ak_dealloc(p);
}

static void _ak_set_arch_base(ak_device_info* dev) {
    size_t n = strcspn(dev->arch, ":");
    if (n >= sizeof dev->arch_base) n = sizeof dev->arch_base - 1;
    memcpy(dev->arch_base, dev->arch, n);
    dev->arch_base[n] = 0;
}

AKDEF ak_result ak_context_create(const ak_config* cfg_in, ak_context** out) {
    ak_config cfg;
    ak_context* ctx;
    ak_result r;
    int i, order[3] = { 0, 1, 2 };
    if (!out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_context_create: out is NULL");
    *out = NULL;
    if (cfg_in) cfg = *cfg_in;
    else {
        cfg = ak_config_default();
        if ((r = ak_config_apply_env(&cfg)) != AK_OK) return r;
    }
    {
        /* Every check up front, but silently: the downgrade warnings come from
         * the validation against the architecture below (logged once). */
        ak_config quiet = cfg;
        if ((int)quiet.log_level >= (int)AK_LOG_NONE && (int)quiet.log_level <= (int)AK_LOG_DEBUG) quiet.log_level = AK_LOG_NONE;
        if ((r = ak_config_validate(&quiet, NULL, NULL)) != AK_OK) return r;
    }
    ctx = (ak_context*)_ak_ctx_alloc(&cfg, sizeof *ctx);
    if (!ctx) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_context_create: out of host memory");
    ctx->api = (_ak_api*)_ak_calloc(sizeof *ctx->api);
    if (!ctx->api) { _ak_ctx_free(&cfg, ctx); return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_context_create: out of host memory"); }
    ctx->serial = _ak_ctx_new_serial();
    _ak_mutex_init(&ctx->lock);
    ctx->log.fn = cfg.logger;
    ctx->log.user_data = cfg.logger_user_data;
    ctx->log.level = cfg.log_level;
    /* copy strings the config points to */
    if (cfg.arch) { _ak_copy(ctx->arch_buf, sizeof ctx->arch_buf, cfg.arch); cfg.arch = ctx->arch_buf; }
    if (cfg.cache_dir) { _ak_copy(ctx->cache_dir_buf, sizeof ctx->cache_dir_buf, cfg.cache_dir); cfg.cache_dir = ctx->cache_dir_buf; }
    ctx->cfg = cfg;

    /* Backend selection: AUTO tries hip, cuda, cpu; a forced one must work. */
    for (i = 0; i < 3; i++) ctx->reports[i].backend = _ak_backends[i]->id;
    r = AK_ERROR_BACKEND_UNAVAILABLE;
    for (i = 0; i < 3; i++) {
        ak_backend b = _ak_backends[order[i]]->id;
        ak_backend_report* rep = &ctx->reports[order[i]];
        ak_device_info dev;
        ak_result pr;
        if (cfg.backend != AK_BACKEND_AUTO && cfg.backend != b) continue;
        memset(&dev, 0, sizeof dev);
        dev.device = cfg.device;
        pr = _ak_backends[order[i]]->probe(ctx->api, cfg.device, &dev, rep);
        if (pr == AK_OK) {
            rep->selected = 1;
            ctx->backend = b;
            ctx->bk = _ak_backends[order[i]];
            ctx->dev = dev;
            ctx->dev.backend = b;
            r = AK_OK;
            _ak_log(&ctx->log, AK_LOG_INFO, AK_LOGITEM_BACKEND_SELECTED, "%s: %s", ak_backend_name(b), rep->reason);
            break;
        }
        _ak_log(&ctx->log, AK_LOG_INFO, AK_LOGITEM_BACKEND_SKIPPED, "%s: %s", ak_backend_name(b), rep->reason);
        r = pr;
    }
    if (r != AK_OK) {
        char msg[1600];
        msg[0] = 0;
        for (i = 0; i < 3; i++)
            if (ctx->reports[i].tried)
                _ak_appendf(msg, sizeof msg, "%s%s: %s", msg[0] ? "; " : "", ak_backend_name(ctx->reports[i].backend), ctx->reports[i].reason);
        _ak_mutex_destroy(&ctx->lock);
        _ak_api_close(ctx->api);
        _ak_ctx_free(&cfg, ctx);
        return _ak_err(r == AK_ERROR_NO_DEVICE ? AK_ERROR_NO_DEVICE : AK_ERROR_BACKEND_UNAVAILABLE,
                       "backend %s is not available: %s", ak_backend_name(cfg.backend), msg);
    }
    if ((r = ctx->bk->open(ctx)) != AK_OK) {
        _ak_mutex_destroy(&ctx->lock); _ak_api_close(ctx->api); _ak_ctx_free(&cfg, ctx);
        return r;
    }
    ak_clear_error();
    /* Validate again against the architecture (strict errors, downgrades, auto values). */
    {
        const ak_arch_info* arch = ctx->dev.arch_info;
        if (cfg.arch && *cfg.arch && !_ak_streq_ci(cfg.arch, "auto")) arch = NULL; /* explicit arch wins */
        r = ak_config_validate(&ctx->cfg, arch, &ctx->cfg);
        if (r != AK_OK) { ak_context_destroy(ctx); return r; }
    }
    _ak_launch_limits_set(ctx);
    _ak_fmt(ctx->dev_tag, sizeof ctx->dev_tag, "%s:%d:%llu", ak_backend_name(ctx->backend), ctx->dev.device,
            (unsigned long long)ctx->serial);
    if ((r = _ak_cache_create(&ctx->cfg, &ctx->log, _ak_unload_cb, ctx, &ctx->cache)) != AK_OK ||
        (r = _ak_pool_create(ctx, &ctx->pool)) != AK_OK ||
        (r = _ak_prof_create(ctx, &ctx->prof)) != AK_OK) {
        ak_error_info keep = *ak_last_error_info();
        char msg[2048];
        _ak_copy(msg, sizeof msg, keep.message);
        ak_context_destroy(ctx);
        return _ak_err(r, "%s", msg);
    }
    *out = ctx;
    return AK_OK;
}

AKDEF void ak_context_destroy(ak_context* ctx) {
    if (!ctx) return;
    if (!ctx->bk) ctx->bk = &_ak_backend_cpu;   /* not opened (failed creation): nothing native to release */
    ak_device_synchronize(ctx);
    _ak_ops_destroy(ctx);
    if (ctx->prof) _ak_prof_destroy(ctx->prof);
    if (ctx->cache) _ak_cache_destroy(ctx->cache);
    _ak_optmemo_free_all(ctx);
    if (ctx->pool) _ak_pool_destroy(ctx->pool);
    _ak_host_free_all(ctx);
    ctx->bk->close(ctx);
    pthread_once(&_ak_bind_once, _ak_bind_make_key);
    if (pthread_getspecific(_ak_bind_key) == (void*)ctx->serial) pthread_setspecific(_ak_bind_key, NULL);
    _ak_mutex_destroy(&ctx->lock);
    _ak_api_close(ctx->api);
    {
        ak_config cfg = ctx->cfg;
        _ak_ctx_free(&cfg, ctx);
    }
}

AKDEF const ak_device_info* ak_context_device(const ak_context* ctx) { return ctx ? &ctx->dev : NULL; }
AKDEF const ak_config* ak_context_config(const ak_context* ctx) { return ctx ? &ctx->cfg : NULL; }
AKDEF const ak_backend_report* ak_context_backend_reports(const ak_context* ctx, int* count) {
    if (count) *count = ctx ? 3 : 0;
    return ctx ? ctx->reports : NULL;
}
AKDEF ak_result ak_context_refresh_memory(ak_context* ctx) {
    size_t fr = 0, to = 0;
    ak_result r;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_context_refresh_memory: ctx is NULL");
    if ((r = _ak_dev_mem_info(ctx, &fr, &to)) != AK_OK) return r;
    /* Several threads may refresh at once while others read the snapshot:
       atomic stores, serialized by the context lock; mem_total is only
       written when it changes (it does not, on a real device). */
    _ak_mutex_lock(&ctx->lock);
    __atomic_store_n(&ctx->dev.mem_free, fr, __ATOMIC_RELAXED);
    if (__atomic_load_n(&ctx->dev.mem_total, __ATOMIC_RELAXED) != to) __atomic_store_n(&ctx->dev.mem_total, to, __ATOMIC_RELAXED);
    _ak_mutex_unlock(&ctx->lock);
    return AK_OK;
}
AKDEF ak_result ak_device_synchronize(ak_context* ctx) {
    ak_result r;
    int e;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_device_synchronize: ctx is NULL");
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->synchronize(ctx)) != 0)
        return _ak_err(AK_ERROR_DEVICE, "device synchronize failed: %s (%d)", ctx->bk->error_string(ctx, e), e);
    return AK_OK;
}

static void* _ak_native_stream(ak_stream* s) { return s ? s->native : NULL; }

/* ==========================================================================
 * >>impl:compile
 * ========================================================================== */
typedef enum { _AK_TC_HIPRTC = 0, _AK_TC_NVRTC = 1 } _ak_toolchain;

/* Which compiler a target name needs; AK_ERROR_UNSUPPORTED_TARGET if neither. */
static ak_result _ak_target_toolchain(const char* target, _ak_toolchain* tc) {
    if (!target || !*target) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "compile target is empty");
    if (!strncmp(target, "gfx", 3)) { *tc = _AK_TC_HIPRTC; return AK_OK; }
    if (!strncmp(target, "sm_", 3)) { *tc = _AK_TC_NVRTC; return AK_OK; }
    return _ak_err(AK_ERROR_UNSUPPORTED_TARGET, "target '%s' is neither an AMD gfx target (gfx90a) nor an NVIDIA sm_ target (sm_90)", target);
}

/* The loaded comgr's ISA list: 1 if it names `processor`; the list ("gfx906
 * gfx908 ...") goes to `names` when given. comgr is what hipRTC builds with,
 * so its list is the truth about which targets this hipRTC can build. */
static int _ak_comgr_lists(const _ak_api* a, const char* processor, char* names, size_t cap) {
    static const char prefix[] = "amdgcn-amd-amdhsa--";
    size_t cnt = 0, i;
    int found = 0;
    if (names && cap) names[0] = 0;
    if (a->amd_comgr_get_isa_count(&cnt) != 0) return 0;
    for (i = 0; i < cnt && i < 4096; i++) {
        const char* nm = NULL;
        if (a->amd_comgr_get_isa_name(i, &nm) != 0 || !nm) continue;
        if (!strncmp(nm, prefix, sizeof prefix - 1)) nm += sizeof prefix - 1;
        if (!strcmp(nm, processor)) found = 1;
        if (names) _ak_appendf(names, cap, "%s%s", names[0] ? " " : "", nm);
    }
    return found;
}

/* Load the compiler for tc into ctx->api and check the target is one it can
 * build, BEFORE handing it over (ROCm 5.2's hipRTC crashes on unknown targets,
 * comgr aborts on malformed target IDs). */
static ak_result _ak_compiler_ready(ak_context* ctx, _ak_toolchain tc, const char* target) {
    char why[512];
    ak_target_id tid;
    int ok, i;
    ak_result r;
    if ((r = ak_target_id_parse(target, &tid)) != AK_OK) return r;
    if (strcmp(tid.canonical, target) != 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "target '%s': write it as '%s' (lower case)", target, tid.canonical);
    _ak_mutex_lock(&ctx->lock);
    for (i = 0; i < ctx->api->n_ok_targets; i++)
        if (!strcmp(ctx->api->ok_targets[i], target)) { _ak_mutex_unlock(&ctx->lock); return AK_OK; }
    ok = tc == _AK_TC_HIPRTC ? _ak_load_hiprtc(ctx->api, why, sizeof why) : _ak_load_nvrtc(ctx->api, why, sizeof why);
    _ak_mutex_unlock(&ctx->lock);
    if (!ok)
        return _ak_err(AK_ERROR_BACKEND_UNAVAILABLE, "no %s to compile for %s: %s", tc == _AK_TC_HIPRTC ? "hipRTC" : "NVRTC", target, why);
    if (tc == _AK_TC_HIPRTC) {
        _ak_api* a = ctx->api;
        char names[1024];
        if (!a->lib_comgr || !a->amd_comgr_get_isa_count || !a->amd_comgr_get_isa_name)
            return _ak_err(AK_ERROR_BACKEND_UNAVAILABLE,
                           "hipRTC %s (%s) loaded, but not its code-object manager (libamd_comgr.so.3/.2): amdkit asks comgr which "
                           "targets the compiler knows before handing it one (an unknown target crashes ROCm 5.2's hipRTC)",
                           a->hiprtc_version, a->hiprtc_path);
        if (!_ak_comgr_lists(a, tid.processor, names, sizeof names)) {
            if (tid.info && tid.info->vendor == AK_VENDOR_AMD)
                return _ak_err(AK_ERROR_UNSUPPORTED_TARGET,
                               "target %s (%s: %s) is not in the ISA list of the loaded compiler (hipRTC %s, HIP runtime %d, %s): "
                               "a newer ROCm is needed for it; this one builds: %s", tid.processor, tid.info->family_name,
                               tid.info->products, a->hiprtc_version, a->hip_runtime_version, a->comgr_path, names);
            return _ak_err(AK_ERROR_UNSUPPORTED_TARGET,
                           "unknown AMD target '%s': neither the loaded compiler (hipRTC %s, %s) nor amdkit's architecture "
                           "table knows it; this compiler builds: %s", tid.processor, a->hiprtc_version, a->comgr_path, names);
        }
    } else {
        _ak_api* a = ctx->api;
        int sm = 0, cnt = 0, known = 0;
        char* end = NULL;
        if (tid.info && tid.info->vendor != AK_VENDOR_NVIDIA)
            return _ak_err(AK_ERROR_UNSUPPORTED_TARGET, "target '%s' is not an NVIDIA target", target);
        sm = (int)strtol(tid.processor + 3, &end, 10);
        if (!end || end == tid.processor + 3 || (*end && strcmp(end, "a") && strcmp(end, "f")) || sm <= 0)
            return _ak_err(AK_ERROR_UNSUPPORTED_TARGET, "target '%s' is not of the form sm_NN", target);
        if (a->nvrtcGetNumSupportedArchs && a->nvrtcGetSupportedArchs && a->nvrtcGetNumSupportedArchs(&cnt) == 0 && cnt > 0 && cnt < 256) {
            int archs[256];
            if (a->nvrtcGetSupportedArchs(archs) == 0)
                for (i = 0; i < cnt; i++) if (archs[i] == sm) known = 1;
        } else {
            known = 1; /* old NVRTC: let it decide */
        }
        if (!known)
            return _ak_err(AK_ERROR_UNSUPPORTED_TARGET, "target %s is not supported by NVRTC %d.%d (%s)", tid.processor,
                           a->nvrtc_major, a->nvrtc_minor, a->nvrtc_path);
    }
    /* remember the verdict: the warm path (cache hits) must not ask the compiler again */
    _ak_mutex_lock(&ctx->lock);
    if (ctx->api->n_ok_targets < 16 && strlen(target) < sizeof ctx->api->ok_targets[0])
        _ak_copy(ctx->api->ok_targets[ctx->api->n_ok_targets++], sizeof ctx->api->ok_targets[0], target);
    _ak_mutex_unlock(&ctx->lock);
    return AK_OK;
}

AKDEF ak_result ak_compile_target_check(ak_context* ctx, const char* target) {
    _ak_toolchain tc = _AK_TC_HIPRTC;
    ak_result r;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_compile_target_check: ctx is NULL");
    if ((r = _ak_target_toolchain(target, &tc)) != AK_OK) return r;
    return _ak_compiler_ready(ctx, tc, target);
}

/* Wave size kernels are built for on a target. */
static int _ak_target_wave(const ak_context* ctx, const char* target) {
    const ak_arch_info* a = NULL;
    if (!strcmp(target, ctx->dev.arch) && ctx->dev.wave_size > 0) return ctx->dev.wave_size;   /* the device's own target */
    if (ak_arch_find(target, &a) == AK_OK && a) return a->wave_size;
    if (!strncmp(target, "gfx9", 4)) return 64;
    return 32;
}

/* Options of a compile, in the compiler's own words. The list is sorted
 * later for the cache key; the compiler gets it in this order. */
typedef struct _ak_opts {
    const char* v[64 + 16];
    int n;
    int user0;                     /* v[user0..n) are the caller's options */
    char arch_opt[160], wave_opt[32], include_opt[300], prelude_opt[64];
} _ak_opts;

/* Identity of the prelude text in cache keys: computed once per process. */
static uint64_t _ak_prelude_hash;
static pthread_once_t _ak_prelude_once = PTHREAD_ONCE_INIT;
static void _ak_prelude_hash_init(void) {
    uint64_t h = 1469598103934665603ull;
    const char* p = _ak_src_prelude;
    while (*p) { h ^= (unsigned char)*p++; h *= 1099511628211ull; }
    _ak_prelude_hash = h | 1u;
}
static uint64_t _ak_prelude_id(void) {
    pthread_once(&_ak_prelude_once, _ak_prelude_hash_init);
    return _ak_prelude_hash;
}

/* ak_compile_options.opt_level is AUTO..AGGRESSIVE. */
static ak_result _ak_check_opt_level(const ak_compile_options* o) {
    if ((unsigned)o->opt_level > (unsigned)AK_OPT_AGGRESSIVE)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "compile options: opt_level is %d, expected AK_OPT_AUTO (0) .. AK_OPT_AGGRESSIVE (3)",
                       (int)o->opt_level);
    return AK_OK;
}

static ak_result _ak_build_options(ak_context* ctx, _ak_toolchain tc, const char* target,
                                   const ak_compile_options* o, _ak_opts* out) {
    ak_opt_level lvl = (o && o->opt_level != AK_OPT_AUTO) ? o->opt_level : ctx->cfg.opt_level;
    int i;
    ak_result r;
    if (o && (r = _ak_check_opt_level(o)) != AK_OK) return r;
    if (lvl == AK_OPT_AUTO) lvl = AK_OPT_BALANCED;
    if (o && (o->num_options < 0 || o->num_options > 64))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "compile options: num_options is %d, expected 0..64", o->num_options);
    if (o && o->num_options > 0 && !o->options)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "compile options: num_options is %d but options is NULL", o->num_options);
    out->n = 0;
    _ak_fmt(out->wave_opt, sizeof out->wave_opt, "-DAK_WAVE=%d", _ak_target_wave(ctx, target));
    out->v[out->n++] = out->wave_opt;
    if (tc == _AK_TC_HIPRTC) {
        _ak_fmt(out->arch_opt, sizeof out->arch_opt, "--offload-arch=%s", target);
        out->v[out->n++] = out->arch_opt;
        out->v[out->n++] = "-DAK_AMD=1";
        out->v[out->n++] = lvl == AK_OPT_CONSERVATIVE ? "-O1" : lvl == AK_OPT_BALANCED ? "-O2" : "-O3";
        out->v[out->n++] = "-std=c++17";
    } else {
        char base[64];
        size_t n = strcspn(target, ":");
        if (n >= sizeof base) n = sizeof base - 1;
        memcpy(base, target, n);
        base[n] = 0;
        _ak_fmt(out->arch_opt, sizeof out->arch_opt, "--gpu-architecture=%s", base);
        out->v[out->n++] = out->arch_opt;
        out->v[out->n++] = "-DAK_NVIDIA=1";
        out->v[out->n++] = "-std=c++17";
        out->v[out->n++] = "-default-device";
        if (lvl == AK_OPT_AGGRESSIVE) out->v[out->n++] = "--use_fast_math";
        /* NVRTC has no -O levels, and rejects --dopt=off (without -G); no FMA contraction is
         * the conservative choice every NVRTC version accepts */
        if (lvl == AK_OPT_CONSERVATIVE) out->v[out->n++] = "--fmad=false";
        _ak_copy(out->include_opt, sizeof out->include_opt, ctx->api->nvrtc_include);
        if (out->include_opt[0]) out->v[out->n++] = out->include_opt;
    }
    if (!(o && o->no_prelude)) {
        /* harmless define that puts the prelude's identity into the cache key */
        _ak_fmt(out->prelude_opt, sizeof out->prelude_opt, "-DAK_PRELUDE_ID=0x%016llxull", (unsigned long long)_ak_prelude_id());
        out->v[out->n++] = out->prelude_opt;
    }
    out->user0 = out->n;
    for (i = 0; o && i < o->num_options; i++) {
        if (!o->options[i]) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "compile options: options[%d] is NULL", i);
        out->v[out->n++] = o->options[i];
    }
    return AK_OK;
}

static int _ak_cmp_str(const void* a, const void* b) { return strcmp(*(const char* const*)a, *(const char* const*)b); }
/* Canonical options text: sorted, one per line. */
static ak_result _ak_canonical_options(const _ak_opts* o, _ak_str* out) {
    const char* sorted[64 + 16];
    int i;
    memcpy(sorted, o->v, (size_t)o->n * sizeof sorted[0]);
    qsort(sorted, (size_t)o->n, sizeof sorted[0], _ak_cmp_str);
    for (i = 0; i < o->n; i++) { _ak_str_add(out, sorted[i]); _ak_str_addn(out, "\n", 1); }
    if (out->oom) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "out of host memory building compile options");
    return AK_OK;
}

/* First line of a compiler log that mentions an error (for the message). */
static void _ak_first_error_line(const char* log, char* out, size_t cap) {
    const char* p = log;
    out[0] = 0;
    while (p && *p) {
        const char* e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char* hit = NULL;
        size_t i;
        for (i = 0; i + 5 <= n; i++) if (!strncmp(p + i, "error", 5)) { hit = p; break; }
        if (hit) { if (n >= cap) n = cap - 1; memcpy(out, p, n); out[n] = 0; return; }
        p = e ? e + 1 : NULL;
    }
    _ak_copy(out, cap, log);
    { char* nl = strchr(out, '\n'); if (nl) *nl = 0; }
}

typedef struct _ak_compile_job {
    ak_context* ctx;
    _ak_toolchain tc;
    const char* target;
    const char* source;
    const char* kernel_name;
    const char* source_name;
    int prelude;
    const _ak_opts* opts;
    double compile_ms;
} _ak_compile_job;

static _ak_mutex _ak_hiprtc_lock;       /* hipRTC compiles are serialized in one process */
static pthread_once_t _ak_hiprtc_lock_once = PTHREAD_ONCE_INIT;
static void _ak_hiprtc_lock_init(void) { _ak_mutex_init(&_ak_hiprtc_lock); }

/* hipRTC (comgr) names the source "/tmp/comgr-XXXXXX/input/CompileSource" in
 * its log; put the caller's source name there instead, as NVRTC does. */
static void _ak_log_rename_source(char** log, const char* name) {
    _ak_str out = { NULL, 0, 0, 0 };
    const char* p = *log;
    const char* hit;
    while ((hit = strstr(p, "CompileSource")) != NULL) {
        const char* start = hit;
        while (start > p && start[-1] != ' ' && start[-1] != '\n' && start[-1] != '\'' && start[-1] != '"') start--;
        _ak_str_addn(&out, p, (size_t)(start - p));
        _ak_str_add(&out, name);
        p = hit + strlen("CompileSource");
    }
    _ak_str_add(&out, p);
    if (out.oom || !out.p) { _ak_str_free(&out); return; }
    _ak_dealloc(*log);
    *log = out.p;
}

/* A caller's "-DNAME", "-DNAME=V" or "-UNAME" (NAME an identifier not starting
 * with AK_, no newline) appended to src as a #define / #undef line: 1; else 0
 * (the option stays a compiler option). */
static int _ak_user_define_line(const char* opt, _ak_str* src) {
    const char* p;
    size_t n = 0;
    if (opt[0] != '-' || (opt[1] != 'D' && opt[1] != 'U') || strchr(opt, '\n') || strchr(opt, '\r')) return 0;
    p = opt + 2;
    if (!(isalpha((unsigned char)p[0]) || p[0] == '_') || !strncmp(p, "AK_", 3)) return 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_') n++;
    if (opt[1] == 'U') {
        if (p[n]) return 0;
        _ak_str_add(src, "#undef ");
        _ak_str_addn(src, p, n);
    } else {
        if (p[n] != '\0' && p[n] != '=') return 0;
        _ak_str_add(src, "#define ");
        _ak_str_addn(src, p, n);
        _ak_str_add(src, " ");
        _ak_str_add(src, p[n] == '=' ? p + n + 1 : "1");
    }
    _ak_str_add(src, "\n");
    return 1;
}

static ak_result _ak_compile_cb(void* user, void** data, size_t* size) {
    _ak_compile_job* j = (_ak_compile_job*)user;
    _ak_api* a = j->ctx->api;
    _ak_str src = { NULL, 0, 0, 0 }, optline = { NULL, 0, 0, 0 };
    char* log = NULL;
    const char* estr = NULL;      /* the compiler's text for its error code */
    size_t logn = 0, coden = 0;
    int e, i, ncopts = j->prelude ? j->opts->user0 : j->opts->n;
    const char* copts[64 + 16];    /* the options the compiler sees */
    ak_result r = AK_OK;
    uint64_t t0 = _ak_now_ns();
    *data = NULL;
    *size = 0;
    for (i = 0; i < ncopts; i++) copts[i] = j->opts->v[i];
    if (j->prelude) {
        /* The caller's -DNAME[=V] / -UNAME (outside amdkit's AK_ namespace) take
         * effect after the prelude, as #define / #undef lines: a user macro such
         * as -DB=64 or -DN=1024 must not rewrite the prelude's own identifiers. */
        _ak_str_add(&src, _ak_src_prelude);
        _ak_str_add(&src, "\n");
        for (i = j->opts->user0; i < j->opts->n; i++) {
            if (_ak_user_define_line(j->opts->v[i], &src)) continue;
            copts[ncopts++] = j->opts->v[i];
        }
        _ak_str_add(&src, "#line 1\n");
    }
    _ak_str_add(&src, j->source);
    /* the options as the caller sees them (the user's -D/-U included) for logs and errors */
    for (i = 0; i < j->opts->n; i++) { _ak_str_add(&optline, i ? " " : ""); _ak_str_add(&optline, j->opts->v[i]); }
    if (src.oom || optline.oom) { r = _ak_err(AK_ERROR_OUT_OF_MEMORY, "out of host memory preparing a compile"); goto done; }
    _ak_log(&j->ctx->log, AK_LOG_DEBUG, AK_LOGITEM_COMPILE_START, "%s (%s) for %s: %s", j->kernel_name, j->source_name, j->target, optline.p);
    if (j->tc == _AK_TC_HIPRTC) {
        _akT_hiprtcProgram prog = NULL;
        pthread_once(&_ak_hiprtc_lock_once, _ak_hiprtc_lock_init);
        _ak_mutex_lock(&_ak_hiprtc_lock);
        e = a->hiprtcCreateProgram(&prog, src.p, j->source_name, 0, NULL, NULL);
        if (e) { _ak_mutex_unlock(&_ak_hiprtc_lock); r = _ak_err(AK_ERROR_COMPILATION, "hiprtcCreateProgram failed: %s", a->hiprtcGetErrorString(e)); goto done; }
        e = a->hiprtcCompileProgram(prog, ncopts, copts);
        if (a->hiprtcGetProgramLogSize(prog, &logn) == 0 && logn > 0 && (log = (char*)_ak_alloc(logn + 1)) != NULL) {
            if (a->hiprtcGetProgramLog(prog, log) != 0) log[0] = 0;
            log[logn] = 0;
        }
        if (e == 0 && a->hiprtcGetCodeSize(prog, &coden) == 0 && coden > 0) {
            *data = _ak_alloc(coden);
            if (*data && a->hiprtcGetCode(prog, (char*)*data) == 0) *size = coden;
        }
        a->hiprtcDestroyProgram(&prog);
        _ak_mutex_unlock(&_ak_hiprtc_lock);
        if (log) _ak_log_rename_source(&log, j->source_name);
        if (e) estr = a->hiprtcGetErrorString(e);
    } else {
        _akT_nvrtcProgram prog = NULL;
        e = a->nvrtcCreateProgram(&prog, src.p, j->source_name, 0, NULL, NULL);
        if (e) { r = _ak_err(AK_ERROR_COMPILATION, "nvrtcCreateProgram failed: %s", a->nvrtcGetErrorString(e)); goto done; }
        e = a->nvrtcCompileProgram(prog, ncopts, copts);
        if (a->nvrtcGetProgramLogSize(prog, &logn) == 0 && logn > 0 && (log = (char*)_ak_alloc(logn + 1)) != NULL) {
            if (a->nvrtcGetProgramLog(prog, log) != 0) log[0] = 0;
            log[logn] = 0;
        }
        if (e == 0 && a->nvrtcGetCUBINSize(prog, &coden) == 0 && coden > 0) {
            *data = _ak_alloc(coden);
            if (*data && a->nvrtcGetCUBIN(prog, (char*)*data) == 0) *size = coden;
        }
        a->nvrtcDestroyProgram(&prog);
        if (e) estr = a->nvrtcGetErrorString(e);
    }
    if (e) {   /* the compiler's message, the first error line of its log, the log itself */
        char first[512];
        _ak_first_error_line(log ? log : "", first, sizeof first);
        r = _ak_err(AK_ERROR_COMPILATION, "compiling %s (%s) for %s failed: %s: %s", j->kernel_name, j->source_name,
                    j->target, estr ? estr : "unknown error", first);
        _ak_err_compile_detail(log, optline.p, j->source_name);
        _ak_log(&j->ctx->log, AK_LOG_INFO, AK_LOGITEM_COMPILER_LOG, "%s", log ? log : "");
        goto done;
    }
    if (!*size) {
        _ak_dealloc(*data);
        *data = NULL;
        r = _ak_err(AK_ERROR_COMPILATION, "compiling %s for %s produced no code object", j->kernel_name, j->target);
    }
done:
    j->compile_ms = (double)(_ak_now_ns() - t0) / 1e6;
    if (r != AK_OK) _ak_log(&j->ctx->log, AK_LOG_INFO, AK_LOGITEM_COMPILE_FAILED, "%s", ak_last_error());
    _ak_dealloc(log);
    _ak_str_free(&src);
    _ak_str_free(&optline);
    return r;
}

/* Is data[size] a code object for target? 0 yes, else -1 with a reason in
 * why. AMD (gfx...): an ELF64 for EM_AMDGPU (224) whose note names
 * "amdgcn-amd-amdhsa--<gfx base>" (the target ID hipRTC/comgr records), or a
 * clang offload bundle holding such an entry. NVIDIA (sm_NN): an ELF64 cubin
 * for EM_CUDA (190) whose e_flags give sm_NN (bits 8..15 from ELF ABI
 * version 8, bits 0..7 before). Only the headers and one byte search are
 * read: it runs on every disk hit, before the module loader sees the bytes. */
static int _ak_code_object_check(const char* target, const void* data, size_t size, char* why, size_t cap) {
    const uint8_t* p = (const uint8_t*)data;
    char base[64], want[96];
    size_t n, wl, i;
    unsigned mach, flags;
    if (!target || !data) { _ak_copy(why, cap, "no target or no data"); return -1; }
    n = strcspn(target, ":");
    if (n == 0 || n >= sizeof base) { _ak_copy(why, cap, "target name too long"); return -1; }
    memcpy(base, target, n);
    base[n] = 0;
    if (!strncmp(base, "gfx", 3)) {
        int bundle = size >= 24 && !memcmp(p, "__CLANG_OFFLOAD_BUNDLE__", 24);
        if (!bundle) {
            if (size < 64 || memcmp(p, "\x7f" "ELF", 4) != 0) { _ak_copy(why, cap, "payload is not an ELF file (no code object)"); return -1; }
            if (p[4] != 2 || p[5] != 1) { _ak_copy(why, cap, "payload is not a little-endian ELF64 code object"); return -1; }
            mach = (unsigned)p[18] | ((unsigned)p[19] << 8);
            if (mach != 224) { _ak_fmt(why, cap, "ELF for machine %u, not an AMD GPU code object (EM_AMDGPU 224)", mach); return -1; }
        }
        wl = (size_t)snprintf(want, sizeof want, "amdgcn-amd-amdhsa--%s", base);
        for (i = 0; size >= wl && i + wl <= size; i++) {
            const uint8_t* q = (const uint8_t*)memchr(p + i, 'a', size - wl + 1 - i);
            if (!q) break;
            i = (size_t)(q - p);
            if (!memcmp(q, want, wl) && (i + wl == size || !isalnum(q[wl]))) return 0;
        }
        _ak_fmt(why, cap, "code object does not target %s (no '%s' in it)", base, want);
        return -1;
    }
    if (!strncmp(base, "sm_", 3)) {
        unsigned sm = (unsigned)strtoul(base + 3, NULL, 10), got;
        if (size < 64 || memcmp(p, "\x7f" "ELF", 4) != 0) { _ak_copy(why, cap, "payload is not an ELF file (no cubin)"); return -1; }
        if (p[4] != 2 || p[5] != 1) { _ak_copy(why, cap, "payload is not a little-endian ELF64 cubin"); return -1; }
        mach = (unsigned)p[18] | ((unsigned)p[19] << 8);
        if (mach != 190) { _ak_fmt(why, cap, "ELF for machine %u, not a cubin (EM_CUDA 190)", mach); return -1; }
        flags = _ak_get_u32le(p + 48);
        got = p[8] >= 8 ? (flags >> 8) & 0xffu : flags & 0xffu;
        if (got != sm) { _ak_fmt(why, cap, "cubin for sm_%u, expected %s", got, base); return -1; }
        return 0;
    }
    _ak_fmt(why, cap, "unknown target kind '%s'", base);
    return -1;
}
static int _ak_verify_cb(void* user, const void* data, size_t size, char* why, size_t cap) {
    return _ak_code_object_check(((_ak_compile_job*)user)->target, data, size, why, cap);
}
/* The cache's get for a prepared job: compiled by _ak_compile_cb, checked by
 * _ak_verify_cb, loaded by `load` (NULL: the code object alone). */
static ak_result _ak_job_cache_get(ak_context* ctx, _ak_compile_job* job, const _ak_cache_key* key,
                                   ak_result (*load)(void*, const void*, size_t, void**), const ak_compile_options* o,
                                   _ak_cache_entry** out, ak_cache_source* src) {
    _ak_cache_ops ops;
    ops.user = job;
    ops.compile = _ak_compile_cb;
    ops.load = load;
    ops.verify = _ak_verify_cb;
    ops.name = job->kernel_name;
    ops.source_name = job->source_name;
    return _ak_cache_get(ctx->cache, key, &ops, o ? o->no_cache : 0, out, src);
}

/* Prepare key + job for compiling `source` for `target` on ctx. */
static const char* _ak_compiler_id(ak_context* ctx, _ak_toolchain tc, char* buf, size_t cap);
/* Fill the compile job and cache key from options already built. */
static void _ak_prepare_job(ak_context* ctx, _ak_toolchain tc, const char* target, const char* source, const char* kernel_name,
                            const ak_compile_options* o, const _ak_opts* opts, const char* canon, const char* cid,
                            _ak_compile_job* job, _ak_cache_key* key) {
    job->ctx = ctx;
    job->tc = tc;
    job->target = target;
    job->source = source;
    job->kernel_name = kernel_name;
    job->source_name = (o && o->source_name) ? o->source_name : "kernel.hip";
    job->prelude = !(o && o->no_prelude);
    job->opts = opts;
    job->compile_ms = 0;
    memset(key, 0, sizeof *key);
    key->source = source;
    key->source_len = strlen(source);
    /* The code object holds every kernel of the source: it is keyed without
     * the kernel name, so a family is compiled once, not once per kernel. */
    key->kernel_name = "";
    key->options = canon;
    key->arch = target;
    key->backend = tc == _AK_TC_HIPRTC ? "hip" : "cuda";
    key->compiler = cid;
}

static ak_result _ak_prepare_compile(ak_context* ctx, const char* target, const char* source, const char* kernel_name,
                                     const ak_compile_options* o, _ak_opts* opts, _ak_str* canon,
                                     _ak_compile_job* job, _ak_cache_key* key, char* cid, size_t cid_cap) {
    _ak_toolchain tc = _AK_TC_HIPRTC;
    ak_result r;
    if (!source) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "kernel source is NULL");
    if (!kernel_name || !*kernel_name) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "kernel name is NULL or empty");
    if (strlen(kernel_name) > 200) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "kernel name is over 200 characters");
    if ((r = _ak_target_toolchain(target, &tc)) != AK_OK) return r;
    if ((r = _ak_compiler_ready(ctx, tc, target)) != AK_OK) return r;
    if ((r = _ak_build_options(ctx, tc, target, o, opts)) != AK_OK) return r;
    if ((r = _ak_canonical_options(opts, canon)) != AK_OK) return r;
    _ak_prepare_job(ctx, tc, target, source, kernel_name, o, opts, canon->p, _ak_compiler_id(ctx, tc, cid, cid_cap), job, key);
    return AK_OK;
}

/* The options of a device compile without user options, built once per
 * (target, level, prelude) and kept by the context: a memory-cache hit must
 * not format and sort them again. NULL (no error) when the table is full. */
typedef struct _ak_optmemo {
    char target[128];
    ak_opt_level lvl;
    int no_prelude;
    _ak_toolchain tc;
    _ak_opts opts;      /* v[] points into this struct: never copied */
    _ak_str canon;
    char cid[128];
    _ak_cache_prefix prefix; /* the cache key's fields but the source, hashed once (ctx->dev_tag included) */
} _ak_optmemo;

static ak_result _ak_optmemo_get(ak_context* ctx, const char* target, const ak_compile_options* o, _ak_optmemo** out) {
    ak_opt_level lvl = o ? o->opt_level : AK_OPT_AUTO;
    int np = o ? (o->no_prelude != 0) : 0, i, n;
    _ak_optmemo* m;
    ak_result r;
    *out = NULL;
    /* read without the lock: entries are only appended (published by the release store below) and live as long as ctx */
    n = __atomic_load_n(&ctx->n_optmemo, __ATOMIC_ACQUIRE);
    for (i = 0; i < n; i++) {
        m = (_ak_optmemo*)ctx->optmemo[i];
        if (m->lvl == lvl && m->no_prelude == np && !strcmp(m->target, target)) { *out = m; return AK_OK; }
    }
    if (strlen(target) >= sizeof m->target) return AK_OK;
    m = (_ak_optmemo*)_ak_calloc(sizeof *m);
    if (!m) return AK_OK;
    _ak_copy(m->target, sizeof m->target, target);
    m->lvl = lvl;
    m->no_prelude = np;
    if ((r = _ak_target_toolchain(target, &m->tc)) != AK_OK || (r = _ak_compiler_ready(ctx, m->tc, target)) != AK_OK ||
        (r = _ak_build_options(ctx, m->tc, target, o, &m->opts)) != AK_OK || (r = _ak_canonical_options(&m->opts, &m->canon)) != AK_OK) {
        _ak_str_free(&m->canon);
        _ak_dealloc(m);
        return r;
    }
    _ak_compiler_id(ctx, m->tc, m->cid, sizeof m->cid);
    {   /* the cache key ak_kernel_get makes with this memo, but the source */
        _ak_compile_job job;
        _ak_cache_key key;
        _ak_prepare_job(ctx, m->tc, m->target, "", "", o, &m->opts, m->canon.p, m->cid, &job, &key);
        key.device_tag = ctx->dev_tag;
        _ak_cache_prefix_make(&key, &m->prefix);
    }
    _ak_mutex_lock(&ctx->lock);
    n = ctx->n_optmemo;
    for (i = 0; i < n; i++) {   /* another thread may have added the same one meanwhile */
        _ak_optmemo* o2 = (_ak_optmemo*)ctx->optmemo[i];
        if (o2->lvl == lvl && o2->no_prelude == np && !strcmp(o2->target, target)) { *out = o2; break; }
    }
    if (!*out && n < (int)(sizeof ctx->optmemo / sizeof ctx->optmemo[0])) {
        ctx->optmemo[n] = m;
        __atomic_store_n(&ctx->n_optmemo, n + 1, __ATOMIC_RELEASE);
        *out = m;
    }
    _ak_mutex_unlock(&ctx->lock);
    if (*out != m) { _ak_str_free(&m->canon); _ak_dealloc(m); }   /* table full, or the other thread's is kept */
    return AK_OK;
}
static void _ak_optmemo_free_all(ak_context* ctx) {
    while (ctx->n_optmemo > 0) {
        _ak_optmemo* m = (_ak_optmemo*)ctx->optmemo[--ctx->n_optmemo];
        _ak_str_free(&m->canon);
        _ak_dealloc(m);
    }
}

/* Compiler identity for the cache key: name, version and library. */
static const char* _ak_compiler_id(ak_context* ctx, _ak_toolchain tc, char* buf, size_t cap) {
    if (tc == _AK_TC_HIPRTC)
        _ak_fmt(buf, cap, "hipRTC %s (%d.%d) runtime %d", ctx->api->hiprtc_version, ctx->api->hiprtc_major, ctx->api->hiprtc_minor, ctx->api->hip_runtime_version);
    else
        _ak_fmt(buf, cap, "NVRTC %d.%d", ctx->api->nvrtc_major, ctx->api->nvrtc_minor);
    return buf;
}

/* ELF64 code objects (AMD HSA code objects and CUDA cubins): walk the symbol
 * tables (SHT_SYMTAB, SHT_DYNSYM), bounds-checked against `size` (the bytes
 * may come from a disk cache entry). Returns 1 if a defined function symbol
 * is named `name`, 0 if not, -1 when it cannot tell (not an ELF64, or no
 * symbol table: a clang offload bundle, say); with `list`, the defined
 * function names go there too. */
static uint64_t _ak_rd(const unsigned char* p, int n) {
    uint64_t v = 0;
    while (n-- > 0) v = (v << 8) | p[n];
    return v;
}
static int _ak_elf_has_function(const void* data, size_t size, const char* name, char* list, size_t cap) {
    const unsigned char* d = (const unsigned char*)data;
    uint64_t shoff, i, shnum, shentsize;
    int found = 0, tables = 0;
    if (list && cap) list[0] = 0;
    if (!d || size < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 /* ELFCLASS64 */ || d[5] != 1 /* little endian */) return -1;
    shoff = _ak_rd(d + 40, 8);
    shentsize = _ak_rd(d + 58, 2);
    shnum = _ak_rd(d + 60, 2);
    if (shentsize < 64 || shoff > size || shnum > (size - shoff) / shentsize) return -1;
    for (i = 0; i < shnum; i++) {
        const unsigned char* sh = d + shoff + i * shentsize;
        uint64_t type = _ak_rd(sh + 4, 4), off = _ak_rd(sh + 24, 8), sz = _ak_rd(sh + 32, 8), link = _ak_rd(sh + 40, 4);
        uint64_t ent = _ak_rd(sh + 56, 8), stroff, strsz, j;
        const unsigned char* strh;
        if ((type != 2 && type != 11) || ent < 24 || off > size || sz > size - off || link >= shnum) continue;
        strh = d + shoff + link * shentsize;
        stroff = _ak_rd(strh + 24, 8);
        strsz = _ak_rd(strh + 32, 8);
        if (stroff > size || strsz > size - stroff || strsz == 0) continue;
        tables++;
        for (j = 0; j + ent <= sz; j += ent) {
            const unsigned char* sym = d + off + j;
            uint64_t nm = _ak_rd(sym, 4);
            const char* sname;
            size_t maxlen;
            if ((sym[4] & 15) != 2 /* STT_FUNC */ || _ak_rd(sym + 6, 2) == 0 /* undefined */ || nm >= strsz) continue;
            sname = (const char*)(d + stroff + nm);
            maxlen = (size_t)(strsz - nm);
            if (memchr(sname, 0, maxlen) == NULL) continue;
            if (!strcmp(sname, name)) found = 1;
            if (sname[0] == '$') continue; /* NVCC's internal helpers ($__internal_0_$...) */
            if (list && strlen(list) + strlen(sname) + 8 < cap && !strstr(list, sname))
                _ak_appendf(list, cap, "%s%s", list[0] ? ", " : "", sname);
        }
    }
    return found ? 1 : tables ? 0 : -1;
}

AKDEF ak_result ak_compile_offline(ak_context* ctx, const char* target, const char* source, const char* kernel_name,
                                   const ak_compile_options* o, ak_code_object* out) {
    _ak_opts opts;
    _ak_str canon = { NULL, 0, 0, 0 };
    _ak_compile_job job;
    _ak_cache_key key;
    _ak_cache_entry* e = NULL;
    ak_cache_source src = AK_CACHE_MISS;
    char cid[128];
    const void* data;
    size_t size = 0;
    ak_result r;
    if (!ctx || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_compile_offline: ctx or out is NULL");
    memset(out, 0, sizeof *out);
    if ((r = _ak_prepare_compile(ctx, target, source, kernel_name, o, &opts, &canon, &job, &key, cid, sizeof cid)) != AK_OK) {
        _ak_str_free(&canon);
        return r;
    }
    key.device_tag = "offline";
    r = _ak_job_cache_get(ctx, &job, &key, NULL, o, &e, &src);
    _ak_str_free(&canon);
    if (r != AK_OK) return r;
    data = _ak_cache_entry_data(e, &size);
    {
        /* the kernel must be in the code object: a wrong name is an error here, not at the first launch */
        char kernels[1024];
        if (_ak_elf_has_function(data, size, kernel_name, kernels, sizeof kernels) == 0) {
            _ak_cache_entry_release(ctx->cache, e);
            return _ak_err(AK_ERROR_NOT_FOUND, "kernel '%s' is not in the code object compiled from %s for %s (is it extern \"C\" "
                           "__global__?); its kernels: %s", kernel_name, job.source_name, target, kernels[0] ? kernels : "none");
        }
    }
    out->data = _ak_alloc(size);
    if (!out->data) { _ak_cache_entry_release(ctx->cache, e); return _ak_err(AK_ERROR_OUT_OF_MEMORY, "out of host memory copying a code object"); }
    memcpy(out->data, data, size);
    out->size = size;
    _ak_copy(out->target, sizeof out->target, target);
    out->source = src;
    out->compile_ms = src == AK_CACHE_MISS ? _ak_cache_entry_compile_ms(e) : 0.0;
    _ak_cache_entry_release(ctx->cache, e);
    return AK_OK;
}
AKDEF void ak_code_object_free(ak_code_object* co) {
    if (!co) return;
    _ak_dealloc(co->data);
    co->data = NULL;
    co->size = 0;
}

/* ==========================================================================
 * >>impl:launch
 * ========================================================================== */
/* A loaded code object: one module per (source, options, target), shared by
 * every kernel of the family; functions are looked up once per name. */
typedef struct _ak_fn_slot {
    struct _ak_fn_slot* next;
    void* fn;
    const char* name;        /* stored after the slot (one allocation) */
} _ak_fn_slot;
typedef struct _ak_loaded {
    void* module;
    _ak_mutex lock;          /* serializes the lookups that add a slot */
    _ak_fn_slot* fns;        /* read without the lock: slots are only prepended (release store) until unload */
} _ak_loaded;

struct ak_kernel {
    ak_context* ctx;
    _ak_cache_entry* entry;    /* NULL on cpu */
    void* fn;                  /* hipFunction_t / CUfunction */
    ak_cache_source source;
    ak_cpu_kernel_fn cpu;
    void* cpu_user;
    size_t shmem_optin;        /* dynamic shared memory limit raised so far */
    int iface;                 /* kernel library: its generated interface (_AK_KIF_*, set by _ak_op_kernel); 0 otherwise */
    char name[208];
    char target[128];          /* what the code was built for, "cpu" when none */
};

static ak_result _ak_load_cb(void* user, const void* data, size_t size, void** loaded) {
    _ak_compile_job* j = (_ak_compile_job*)user;  /* the cache hands both callbacks the same user */
    ak_context* ctx = j->ctx;
    _ak_loaded* L;
    int e;
    ak_result r;
    (void)size;
    *loaded = NULL;
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    L = (_ak_loaded*)_ak_calloc(sizeof *L);
    if (!L) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "out of host memory loading a module");
    e = ctx->bk->module_load(ctx, data, &L->module);
    if (e) {
        _ak_dealloc(L);
        return _ak_err(AK_ERROR_DEVICE, "loading the code object of %s (%s) failed: %s (%d)", j->kernel_name, j->source_name,
                       ctx->bk->error_string(ctx, e), e);
    }
    _ak_mutex_init(&L->lock);
    *loaded = L;
    return AK_OK;
}

/* Function `name` of a loaded module (looked up once, then remembered). */
static ak_result _ak_loaded_function(ak_context* ctx, _ak_loaded* L, const char* name, void** fn) {
    _ak_fn_slot* f;
    size_t nl;
    int e;
    ak_result r;
    for (f = __atomic_load_n(&L->fns, __ATOMIC_ACQUIRE); f; f = f->next)
        if (!strcmp(f->name, name)) { *fn = f->fn; return AK_OK; }
    _ak_mutex_lock(&L->lock);
    for (f = L->fns; f; f = f->next)
        if (!strcmp(f->name, name)) { *fn = f->fn; _ak_mutex_unlock(&L->lock); return AK_OK; }
    if ((r = _ak_bind(ctx)) != AK_OK) { _ak_mutex_unlock(&L->lock); return r; }
    e = ctx->bk->module_function(ctx, L->module, name, fn);
    if (e) {
        _ak_mutex_unlock(&L->lock);
        return _ak_err(AK_ERROR_NOT_FOUND, "kernel '%s' not found in the compiled module (is it extern \"C\" __global__?): %s", name,
                       ctx->bk->error_string(ctx, e));
    }
    nl = strlen(name);
    if ((f = (_ak_fn_slot*)_ak_alloc(sizeof *f + nl + 1)) != NULL) {   /* else it works, just not remembered */
        memcpy((char*)(f + 1), name, nl + 1);
        f->name = (const char*)(f + 1);
        f->fn = *fn;
        f->next = L->fns;
        __atomic_store_n(&L->fns, f, __ATOMIC_RELEASE);
    }
    _ak_mutex_unlock(&L->lock);
    return AK_OK;
}
static void _ak_unload_cb(void* user, void* loaded) {
    ak_context* ctx = (ak_context*)user;
    _ak_loaded* L = (_ak_loaded*)loaded;
    if (!L) return;
    if (L->module && ctx->bk->module_unload && _ak_bind(ctx) == AK_OK) ctx->bk->module_unload(ctx, L->module);
    while (L->fns) { _ak_fn_slot* nx = L->fns->next; _ak_dealloc(L->fns); L->fns = nx; }
    _ak_mutex_destroy(&L->lock);
    _ak_dealloc(L);
}

static ak_result _ak_kernel_get_at(ak_context* ctx, const char* target_override, const char* source,
                                   const char* kernel_name, const ak_compile_options* o, ak_kernel** out);
AKDEF ak_result ak_kernel_get(ak_context* ctx, const char* source, const char* kernel_name,
                              const ak_compile_options* o, ak_kernel** out) {
    return _ak_kernel_get_at(ctx, NULL, source, kernel_name, o, out);
}
/* ak_kernel_get for an explicit target of the device's vendor (e.g. "sm_90a"
 * for a kernel that needs the arch-specific features of an sm_90 device);
 * NULL: the context's target. */
static ak_result _ak_kernel_get_at(ak_context* ctx, const char* target_override, const char* source,
                                   const char* kernel_name, const ak_compile_options* o, ak_kernel** out) {
    ak_kernel* k;
    ak_result r;
    if (!ctx || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_kernel_get: ctx or out is NULL");
    *out = NULL;
    if (!source) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_kernel_get: source is NULL");
    if (!kernel_name || !*kernel_name || strlen(kernel_name) > 200)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_kernel_get: kernel name is NULL, empty or over 200 characters");
    if (o && (r = _ak_check_opt_level(o)) != AK_OK) return r;
    /* not zeroed as a whole (a warm hit is a few hundred ns; the name buffers are most of the struct) */
    k = (ak_kernel*)_ak_ctx_alloc_uninit(&ctx->cfg, sizeof *k);
    if (!k) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "out of host memory");
    memset(k, 0, offsetof(ak_kernel, name));   /* every field before the name buffers */
    k->ctx = ctx;
    _ak_copy(k->name, sizeof k->name, kernel_name);
    _ak_copy(k->target, sizeof k->target, "cpu");
    if (ctx->bk->module_load) {   /* a backend that compiles (else the kernel runs its C implementation) */
        _ak_opts opts;
        _ak_str canon = { NULL, 0, 0, 0 };
        _ak_compile_job job;
        _ak_cache_key key;
        char cid[128];
        const char* target = target_override ? target_override
                             : (ctx->cfg.arch && *ctx->cfg.arch && !_ak_streq_ci(ctx->cfg.arch, "auto")) ? ctx->cfg.arch : ctx->dev.arch;
        _ak_optmemo* m = NULL;
        _ak_copy(k->target, sizeof k->target, target);
        r = (!o || o->num_options == 0) ? _ak_optmemo_get(ctx, target, o, &m) : AK_OK;
        if (r == AK_OK && m)
            _ak_prepare_job(ctx, m->tc, target, source, kernel_name, o, &m->opts, m->canon.p, m->cid, &job, &key);
        else if (r == AK_OK)
            r = _ak_prepare_compile(ctx, target, source, kernel_name, o, &opts, &canon, &job, &key, cid, sizeof cid);
        if (r == AK_OK) {
            key.device_tag = ctx->dev_tag;
            if (m) key.prefix = &m->prefix;
            r = _ak_job_cache_get(ctx, &job, &key, _ak_load_cb, o, &k->entry, &k->source);
        }
        _ak_str_free(&canon);
        if (r == AK_OK) r = _ak_loaded_function(ctx, (_ak_loaded*)_ak_cache_entry_loaded(k->entry), kernel_name, &k->fn);
        if (r != AK_OK) {
            if (k->entry) _ak_cache_entry_release(ctx->cache, k->entry);
            _ak_ctx_free(&ctx->cfg, k);
            return r;
        }
    }
    *out = k;
    return AK_OK;
}
AKDEF void ak_kernel_release(ak_kernel* k) {
    if (!k) return;
    if (k->entry) _ak_cache_entry_release(k->ctx->cache, k->entry);
    _ak_ctx_free(&k->ctx->cfg, k);
}
AKDEF void ak_kernel_set_cpu(ak_kernel* k, ak_cpu_kernel_fn fn, void* user_data) {
    if (!k) return;
    k->cpu = fn;
    k->cpu_user = user_data;
}
AKDEF ak_cache_source ak_kernel_cache_source(const ak_kernel* k) { return k ? k->source : AK_CACHE_MISS; }
AKDEF const char* ak_kernel_name(const ak_kernel* k) { return k ? k->name : ""; }
AKDEF const char* ak_kernel_target(const ak_kernel* k) { return k ? k->target : ""; }
AKDEF size_t ak_kernel_code_size(const ak_kernel* k) {
    size_t n = 0;
    if (k && k->entry) (void)_ak_cache_entry_data(k->entry, &n);
    return n;
}

/* The launch limits, resolved once per context (at creation): the device's,
 * else the common 1024 / (1024, 1024, 64) / (2^31-1, 65535, 65535), and the
 * backend's threads per dimension. */
static void _ak_launch_limits_set(ak_context* ctx) {
    static const int dflt_block[3] = { 1024, 1024, 64 }, dflt_grid[3] = { 2147483647, 65535, 65535 };
    int i;
    for (i = 0; i < 3; i++) {
        ctx->lim.block[i] = (unsigned)(ctx->dev.max_block[i] > 0 ? ctx->dev.max_block[i] : dflt_block[i]);
        ctx->lim.grid[i] = (unsigned)(ctx->dev.max_grid[i] > 0 ? ctx->dev.max_grid[i] : dflt_grid[i]);
    }
    ctx->lim.threads = ctx->dev.max_threads_per_block > 0 ? (unsigned long long)ctx->dev.max_threads_per_block : 1024ull;
    ctx->lim.per_dim = ctx->bk->max_threads_per_dim;
}
/* Launch geometry against the context's launch limits (ctx->lim), with the
 * message that names the axis. Every product is formed from 32-bit
 * dimensions in 64 bits, so nothing overflows. */
static ak_result _ak_launch_geometry(const ak_context* ctx, const char* name, ak_dim3 grid, ak_dim3 block) {
    const unsigned b[3] = { block.x, block.y, block.z }, g[3] = { grid.x, grid.y, grid.z };
    const char* axis = "xyz";
    int i;
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_launch(%s): grid (%u,%u,%u) and block (%u,%u,%u) must be non-zero",
                       name, grid.x, grid.y, grid.z, block.x, block.y, block.z);
    for (i = 0; i < 3; i++) {
        if (b[i] > ctx->lim.block[i])
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_launch(%s): block.%c = %u, the device allows at most %u", name,
                           axis[i], b[i], ctx->lim.block[i]);
        if (g[i] > ctx->lim.grid[i])
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_launch(%s): grid.%c = %u blocks, the device allows at most %u", name,
                           axis[i], g[i], ctx->lim.grid[i]);
        /* HIP counts threads per dimension in 32 bits (grid x block) */
        if (ctx->lim.per_dim && (unsigned long long)g[i] * b[i] > ctx->lim.per_dim)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_launch(%s): grid.%c x block.%c = %llu threads, over %s's limit of %llu",
                           name, axis[i], axis[i], (unsigned long long)g[i] * b[i], ak_backend_name(ctx->backend),
                           ctx->lim.per_dim);
    }
    if ((unsigned long long)block.x * block.y * block.z > ctx->lim.threads)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_launch(%s): block (%u,%u,%u) has %llu threads, the device allows %llu",
                       name, block.x, block.y, block.z, (unsigned long long)block.x * block.y * block.z, ctx->lim.threads);
    return AK_OK;
}

/* ak_launch's quick test of the same limits (x - 1 < max: non-zero and within the limit); the full check words the error. */
static int _ak_launch_quick_ok(const ak_context* ctx, ak_dim3 g, ak_dim3 b) {
    const unsigned long long pd = ctx->lim.per_dim;
    return g.x - 1u < ctx->lim.grid[0] && g.y - 1u < ctx->lim.grid[1] && g.z - 1u < ctx->lim.grid[2] &&
           b.x - 1u < ctx->lim.block[0] && b.y - 1u < ctx->lim.block[1] && b.z - 1u < ctx->lim.block[2] &&
           (unsigned long long)b.x * b.y * b.z <= ctx->lim.threads &&
           (!pd || ((unsigned long long)g.x * b.x <= pd && (unsigned long long)g.y * b.y <= pd && (unsigned long long)g.z * b.z <= pd));
}

AKDEF ak_result ak_launch(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shmem, ak_stream* stream, void** args) {
    ak_context* ctx;
    ak_result r;
    if (!k) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_launch: kernel is NULL");
    ctx = k->ctx;
    if (!_ak_launch_quick_ok(ctx, grid, block) && (r = _ak_launch_geometry(ctx, k->name, grid, block)) != AK_OK) return r;
    if (stream && stream->ctx != ctx)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_launch(%s): stream '%s' belongs to another context", k->name, stream->name);
    return ctx->bk->launch(k, grid, block, shmem, stream, args);
}
/* The backends' launches (the table in >>impl:backend points here). */
static ak_result _ak_cpu_launch(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shmem, ak_stream* stream, void** args) {
    ak_launch_info info;
    (void)stream;
    if (!k->cpu)
        return _ak_err(AK_ERROR_LAUNCH, "ak_launch(%s): the cpu backend needs a CPU implementation (ak_kernel_set_cpu)", k->name);
    info.grid = grid; info.block = block; info.shared_bytes = shmem; info.user_data = k->cpu_user;
    k->cpu(&info, args);
    return AK_OK;
}
static ak_result _ak_launch_shmem_check(ak_kernel* k, size_t shmem) {
    if (shmem > k->ctx->dev.shared_mem_per_block)
        return _ak_err(AK_ERROR_LAUNCH, "ak_launch(%s): %zu bytes of dynamic shared memory, the device allows %zu",
                       k->name, shmem, k->ctx->dev.shared_mem_per_block);
    return AK_OK;
}
/* hip and cuda: one launch through the table's raw calls. */
static ak_result _ak_gpu_launch(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shmem, ak_stream* stream, void** args) {
    ak_context* ctx = k->ctx;
    ak_result r;
    int e;
    if ((r = _ak_launch_shmem_check(k, shmem)) != AK_OK) return r;
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if (shmem > 48 * 1024 && shmem > k->shmem_optin && ctx->bk->shmem_optin) {
        if ((e = ctx->bk->shmem_optin(ctx, k->fn, shmem)) != 0)
            return _ak_err(AK_ERROR_LAUNCH, "ak_launch(%s): raising the shared memory limit to %zu failed: %s", k->name, shmem,
                           ctx->bk->error_string(ctx, e));
        k->shmem_optin = shmem;
    }
    if ((e = ctx->bk->launch_kernel(ctx, k->fn, grid, block, shmem, _ak_native_stream(stream), args)) != 0)
        return _ak_err(AK_ERROR_LAUNCH, "ak_launch(%s) grid (%u,%u,%u) block (%u,%u,%u) shmem %zu: %s (%d)", k->name,
                       grid.x, grid.y, grid.z, block.x, block.y, block.z, shmem, ctx->bk->error_string(ctx, e), e);
    return AK_OK;
}

/* --- argument builder --- */
static int _ak_args_slot(ak_args* a) {
    if (!a) return -1;
    if (a->count < 0 || a->count >= AK_MAX_ARGS) { a->error = 1; return -1; }
    a->bytes[a->count] = 0;
    a->dtype[a->count] = AK_U8;
    a->dir[a->count] = AK_ARG_VALUE;
    return a->count++;
}
AKDEF void ak_args_ptr(ak_args* a, const void* p) { int i = _ak_args_slot(a); if (i >= 0) a->value[i].p = (void*)(uintptr_t)p; }
AKDEF void ak_args_i32(ak_args* a, int32_t v) { int i = _ak_args_slot(a); if (i >= 0) a->value[i].i32 = v; }
AKDEF void ak_args_u32(ak_args* a, uint32_t v) { int i = _ak_args_slot(a); if (i >= 0) a->value[i].u32 = v; }
AKDEF void ak_args_i64(ak_args* a, int64_t v) { int i = _ak_args_slot(a); if (i >= 0) a->value[i].i64 = v; }
AKDEF void ak_args_u64(ak_args* a, uint64_t v) { int i = _ak_args_slot(a); if (i >= 0) a->value[i].u64 = v; }
AKDEF void ak_args_f32(ak_args* a, float v) { int i = _ak_args_slot(a); if (i >= 0) a->value[i].f32 = v; }
AKDEF void ak_args_f64(ak_args* a, double v) { int i = _ak_args_slot(a); if (i >= 0) a->value[i].f64 = v; }
AKDEF void ak_args_buffer(ak_args* a, void* p, size_t bytes, ak_dtype t, ak_arg_dir dir) {
    int i = _ak_args_slot(a);
    if (i < 0) return;
    a->value[i].p = p;
    a->bytes[i] = bytes;
    a->dtype[i] = t;
    a->dir[i] = dir;
}
AKDEF void** ak_args_params(ak_args* a) {
    int i;
    if (!a || a->error) return NULL;
    for (i = 0; i < a->count; i++) a->params[i] = &a->value[i];
    return a->params;
}

AKDEF ak_result ak_check(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shmem, ak_args* args,
                         double atol, double rtol, ak_check_result* out) {
    ak_context* ctx;
    ak_args host;
    void* gpu_out[AK_MAX_ARGS];
    ak_launch_info info;
    ak_result r = AK_OK;
    double worst_ae = -1.0;  /* abs error of the element worst_index points at */
    int i;
    if (!k || !args || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_check: kernel, args or out is NULL");
    if (args->error) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_check: more than %d arguments were added", AK_MAX_ARGS);
    if (!k->cpu) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_check(%s): the kernel has no CPU implementation (ak_kernel_set_cpu)", k->name);
    if (!(atol >= 0) || !(rtol >= 0)) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_check: atol %g and rtol %g must be >= 0", atol, rtol);
    ctx = k->ctx;
    memset(out, 0, sizeof *out);
    memset(gpu_out, 0, sizeof gpu_out);
    host = *args;
    /* host mirrors of every buffer, with the inputs as they are now */
    for (i = 0; i < args->count; i++) {
        if (args->dir[i] == AK_ARG_VALUE) continue;
        if (!args->value[i].p || !args->bytes[i]) { r = _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_check: buffer argument %d is NULL or empty", i); goto done; }
        host.value[i].p = _ak_alloc(args->bytes[i]);
        if (!host.value[i].p) { r = _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_check: no host memory for argument %d", i); goto done; }
        if ((r = ak_memcpy(ctx, host.value[i].p, args->value[i].p, args->bytes[i], AK_D2H)) != AK_OK) goto done;
    }
    if ((r = ak_launch(k, grid, block, shmem, NULL, ak_args_params(args))) != AK_OK) goto done;
    if ((r = ak_stream_synchronize(ctx, NULL)) != AK_OK) goto done;
    info.grid = grid; info.block = block; info.shared_bytes = shmem; info.user_data = k->cpu_user;
    k->cpu(&info, ak_args_params(&host));
    for (i = 0; i < args->count; i++) {
        size_t n, j, es;
        if (args->dir[i] != AK_ARG_OUT && args->dir[i] != AK_ARG_INOUT) continue;
        es = ak_dtype_size(args->dtype[i]);
        if (!es) { r = _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_check: argument %d has an unknown dtype", i); goto done; }
        gpu_out[i] = _ak_alloc(args->bytes[i]);
        if (!gpu_out[i]) { r = _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_check: no host memory"); goto done; }
        if ((r = ak_memcpy(ctx, gpu_out[i], args->value[i].p, args->bytes[i], AK_D2H)) != AK_OK) goto done;
        n = args->bytes[i] / es;
        for (j = 0; j < n; j++) {
            double g = ak_elem_get(gpu_out[i], args->dtype[i], j);
            double c = ak_elem_get(host.value[i].p, args->dtype[i], j);
            double ae = fabs(g - c), re = ae / (fabs(c) > 0 ? fabs(c) : 1.0);
            int bad = !(ae <= atol + rtol * fabs(c));
            if ((g != g && c != c) || g == c) { ae = 0; re = 0; bad = 0; } /* both NaN, or equal (same infinity) */
            else if (g != g || c != c || fabs(g) == HUGE_VAL || fabs(c) == HUGE_VAL) { ae = HUGE_VAL; re = HUGE_VAL; bad = 1; } /* NaN or infinity on one side only */
            if (bad) out->mismatches++;
            if (ae > out->max_abs_err) out->max_abs_err = ae;
            /* worst element: the largest error among mismatches, or overall when none mismatch */
            if (bad ? (out->mismatches == 1 || ae > worst_ae) : (!out->mismatches && ae > worst_ae)) {
                worst_ae = ae; out->worst_index = j; out->worst_arg = i;
            }
            if (re > out->max_rel_err) out->max_rel_err = re;
        }
    }
    out->passed = out->mismatches == 0;
done:
    for (i = 0; i < args->count; i++) {
        if (args->dir[i] != AK_ARG_VALUE && host.value[i].p != args->value[i].p) _ak_dealloc(host.value[i].p);
        _ak_dealloc(gpu_out[i]);
    }
    return r;
}

/* ==========================================================================
 * >>impl:memory  (copies, memset, pinned host memory; ak_malloc/ak_free are
 * the pool's, in >>impl:pool)
 * ========================================================================== */
static ak_result _ak_copy_impl(ak_context* ctx, void* dst, const void* src, size_t bytes, ak_copy_kind kind,
                               ak_stream* stream, int async) {
    ak_result r;
    int e;
    const char* fn = async ? "ak_memcpy_async" : "ak_memcpy";
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
    if (bytes == 0) return AK_OK;
    if (!dst || !src) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %s pointer is NULL (%zu bytes)", fn, dst ? "source" : "destination", bytes);
    if (kind != AK_H2D && kind != AK_D2H && kind != AK_D2D && kind != AK_H2H)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: copy kind %d is not AK_H2D, AK_D2H, AK_D2D or AK_H2H", fn, (int)kind);
    if (bytes > (SIZE_MAX >> 1)) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %zu bytes is not a plausible size", fn, bytes);
    if (stream && stream->ctx != ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: stream belongs to another context", fn);
    if (kind == AK_H2H) {   /* host to host: after the stream's work when asynchronous */
        if (async && (r = ak_stream_synchronize(ctx, stream)) != AK_OK) return r;
        memmove(dst, src, bytes);
        return AK_OK;
    }
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->copy(ctx, dst, src, bytes, kind, _ak_native_stream(stream), async)) != 0)
        return _ak_err(AK_ERROR_MEMORY, "%s of %zu bytes (kind %d) failed: %s (%d)", fn, bytes, (int)kind, ctx->bk->error_string(ctx, e), e);
    return AK_OK;
}
AKDEF ak_result ak_memcpy(ak_context* ctx, void* dst, const void* src, size_t bytes, ak_copy_kind kind) {
    return _ak_copy_impl(ctx, dst, src, bytes, kind, NULL, 0);
}
AKDEF ak_result ak_memcpy_async(ak_context* ctx, void* dst, const void* src, size_t bytes, ak_copy_kind kind, ak_stream* stream) {
    return _ak_copy_impl(ctx, dst, src, bytes, kind, stream, 1);
}
AKDEF ak_result ak_memset(ak_context* ctx, void* dst, int value, size_t bytes, ak_stream* stream) {
    ak_result r;
    int e;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_memset: ctx is NULL");
    if (bytes == 0) return AK_OK;
    if (!dst) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_memset: destination is NULL (%zu bytes)", bytes);
    if (bytes > (SIZE_MAX >> 1)) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_memset: %zu bytes is not a plausible size", bytes);
    if (stream && stream->ctx != ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_memset: stream belongs to another context");
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->memset(ctx, dst, value, bytes, _ak_native_stream(stream))) != 0)
        return _ak_err(AK_ERROR_MEMORY, "ak_memset of %zu bytes failed: %s (%d)", bytes, ctx->bk->error_string(ctx, e), e);
    return AK_OK;
}
/* Pinned host memory. Every pointer handed out is recorded in ctx->host_live
 * (the pool's address hash, values unused), so ak_host_free can refuse a
 * pointer it never gave out or one already freed instead of passing it to
 * free()/hipHostFree (heap corruption). */
static void _ak_host_release(ak_context* ctx, void* ptr) { if (_ak_bind(ctx) == AK_OK) ctx->bk->host_free(ctx, ptr); }
AKDEF ak_result ak_host_alloc(ak_context* ctx, size_t bytes, void** out) {
    int e, ok;
    ak_result r;
    if (!ctx || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_host_alloc: ctx or out is NULL");
    *out = NULL;
    if (!bytes || bytes > (SIZE_MAX >> 1)) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_host_alloc: %zu bytes is not a valid size", bytes);
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->host_alloc(ctx, out, bytes)) != 0) {
        *out = NULL;
        return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_host_alloc: pinned allocation of %zu bytes failed (%d)", bytes, e);
    }
    _ak_mutex_lock(&ctx->lock);
    if (!ctx->host_live) ctx->host_live = (struct _ak_phash*)_ak_calloc(sizeof(_ak_phash));
    ok = ctx->host_live && _ak_phash_reserve(ctx->host_live, ctx->host_live->count + 1);
    if (ok) _ak_phash_put_nogrow(ctx->host_live, (uintptr_t)*out, NULL);
    _ak_mutex_unlock(&ctx->lock);
    if (!ok) {
        _ak_host_release(ctx, *out);
        *out = NULL;
        return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_host_alloc: out of host memory recording the allocation");
    }
    return AK_OK;
}
AKDEF ak_result ak_host_free(ak_context* ctx, void* ptr) {
    int known, e;
    ak_result r;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_host_free: ctx is NULL");
    if (!ptr) return AK_OK;
    _ak_mutex_lock(&ctx->lock);
    known = ctx->host_live && _ak_phash_del(ctx->host_live, ptr);
    _ak_mutex_unlock(&ctx->lock);
    if (!known)
        return _ak_err(AK_ERROR_MEMORY, "ak_host_free(%p): not a live allocation of this context's ak_host_alloc "
                       "(a foreign pointer, or freed already); nothing freed", ptr);
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->host_free(ctx, ptr)) != 0) return _ak_err(AK_ERROR_MEMORY, "ak_host_free(%p) failed (%d)", ptr, e);
    return AK_OK;
}
/* ak_context_destroy: free what the caller left allocated. */
static void _ak_host_free_all(ak_context* ctx) {
    size_t i;
    if (!ctx->host_live) return;
    for (i = 0; i < ctx->host_live->cap; i++)
        if (ctx->host_live->keys[i]) _ak_host_release(ctx, (void*)ctx->host_live->keys[i]);
    _ak_phash_free(ctx->host_live);
    _ak_dealloc(ctx->host_live);
    ctx->host_live = NULL;
}

/* ==========================================================================
 * >>impl:stream
 * ========================================================================== */
AKDEF ak_result ak_stream_create(ak_context* ctx, const char* name, int priority, ak_stream** out) {
    ak_stream* s;
    ak_result r;
    if (!ctx || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_stream_create: ctx or out is NULL");
    *out = NULL;
    s = (ak_stream*)_ak_ctx_alloc(&ctx->cfg, sizeof *s);
    if (!s) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_stream_create: out of host memory");
    s->ctx = ctx;
    _ak_copy(s->name, sizeof s->name, name ? name : "stream");
    {
        int least = 0, greatest = 0, e;
        if ((r = _ak_bind(ctx)) != AK_OK) { _ak_ctx_free(&ctx->cfg, s); return r; }
        ctx->bk->stream_priority_range(ctx, &least, &greatest);
        if (priority > least) priority = least;          /* greatest priority is the most negative */
        if (priority < greatest) priority = greatest;
        if ((e = ctx->bk->stream_create(ctx, &s->native, priority)) != 0) {
            _ak_ctx_free(&ctx->cfg, s);
            return _ak_err(AK_ERROR_DEVICE, "ak_stream_create(%s) failed: %s (%d)", name ? name : "", ctx->bk->error_string(ctx, e), e);
        }
    }
    s->priority = priority;
    *out = s;
    return AK_OK;
}
AKDEF void ak_stream_destroy(ak_stream* s) {
    ak_context* ctx;
    if (!s) return;
    ctx = s->ctx;
    ak_stream_synchronize(ctx, s);
    if (ctx->pool) _ak_pool_stream_destroyed(ctx->pool, s);
    if (s->native && _ak_bind(ctx) == AK_OK) ctx->bk->stream_destroy(ctx, s->native);
    _ak_ctx_free(&ctx->cfg, s);
}
AKDEF ak_result ak_stream_synchronize(ak_context* ctx, ak_stream* s) {
    int e;
    ak_result r;
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_stream_synchronize: ctx is NULL");
    if (s && s->ctx != ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_stream_synchronize: stream belongs to another context");
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->stream_synchronize(ctx, _ak_native_stream(s))) != 0)
        return _ak_err(AK_ERROR_DEVICE, "stream '%s' synchronize failed: %s (%d)", s ? s->name : "default", ctx->bk->error_string(ctx, e), e);
    return AK_OK;
}
AKDEF const char* ak_stream_name(const ak_stream* s) { return s ? s->name : "default"; }

AKDEF ak_result ak_event_create(ak_context* ctx, ak_event** out) {
    ak_event* ev;
    ak_result r;
    if (!ctx || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_event_create: ctx or out is NULL");
    *out = NULL;
    ev = (ak_event*)_ak_ctx_alloc(&ctx->cfg, sizeof *ev);
    if (!ev) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_event_create: out of host memory");
    ev->ctx = ctx;
    if ((r = _ak_event_new(ctx, &ev->native, 0)) != AK_OK) { _ak_ctx_free(&ctx->cfg, ev); return r; }
    *out = ev;
    return AK_OK;
}
AKDEF void ak_event_destroy(ak_event* e) {
    if (!e) return;
    _ak_dev_event_destroy(e->ctx, e->native);
    _ak_ctx_free(&e->ctx->cfg, e);
}
AKDEF ak_result ak_event_record(ak_event* e, ak_stream* s) {
    ak_result r;
    if (!e) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_event_record: event is NULL");
    if (s && s->ctx != e->ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_event_record: stream and event belong to different contexts");
    e->host_ns = _ak_now_ns();
    if ((r = _ak_dev_event_record(e->ctx, e->native, _ak_native_stream(s))) != AK_OK) return r;
    e->recorded = 1;
    return AK_OK;
}
AKDEF ak_result ak_event_synchronize(ak_event* e) {
    ak_result r;
    int err;
    if (!e) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_event_synchronize: event is NULL");
    if (!e->recorded) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_event_synchronize: event was never recorded");
    if ((r = _ak_bind(e->ctx)) != AK_OK) return r;
    if ((err = e->ctx->bk->event_synchronize(e->ctx, e->native)) != 0)
        return _ak_err(AK_ERROR_DEVICE, "ak_event_synchronize failed: %s (%d)", e->ctx->bk->error_string(e->ctx, err), err);
    return AK_OK;
}
AKDEF ak_result ak_event_elapsed_ms(ak_event* a, ak_event* b, float* ms) {
    ak_result r;
    int err;
    if (!a || !b || !ms) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_event_elapsed_ms: NULL argument");
    if (a->ctx != b->ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_event_elapsed_ms: events of different contexts");
    if (!a->recorded || !b->recorded) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_event_elapsed_ms: both events must be recorded");
    if ((r = _ak_bind(a->ctx)) != AK_OK) return r;
    if ((r = ak_event_synchronize(b)) != AK_OK) return r;
    if ((err = a->ctx->bk->event_elapsed(a->ctx, ms, a, b)) != 0)
        return _ak_err(AK_ERROR_DEVICE, "ak_event_elapsed_ms failed: %s (%d)", a->ctx->bk->error_string(a->ctx, err), err);
    return AK_OK;
}

/* fp16 / bf16 probe kernel: fp16 multiply and bf16 round trip, no prelude. */
static const char _ak_probe_src[] =
    "extern \"C\" __global__ void ak_probe_types(float* out) {\n"
    "#if defined(AK_AMD)\n"
    "  _Float16 a = (_Float16)1.5f; a = a * a; out[0] = (float)a;\n"
    "  float f = 2.25f; unsigned u = __builtin_bit_cast(unsigned, f); u += 0x7FFFu + ((u >> 16) & 1u);\n"
    "  unsigned short b = (unsigned short)(u >> 16); out[1] = __builtin_bit_cast(float, (unsigned)b << 16);\n"
    "#else\n"
    "  unsigned short h, b; float r, g;\n"
    "  asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(1.5f));\n"
    "  asm(\"mul.rn.f16 %0, %0, %0;\" : \"+h\"(h));\n"
    "  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(r) : \"h\"(h)); out[0] = r;\n"
    "  asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(b) : \"f\"(2.25f));\n"
    "  asm(\"mov.b32 %0, {0, %1};\" : \"=f\"(g) : \"h\"(b)); out[1] = g;\n"
    "#endif\n"
    "}\n";

AKDEF ak_result ak_context_probe(ak_context* ctx) {
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_context_probe: ctx is NULL");
    return ctx->bk->probe_features(ctx);
}
/* hip / cuda: fp16 and bf16 from a probe kernel on the device. */
static ak_result _ak_gpu_probe_features(ak_context* ctx) {
    ak_kernel* k = NULL;
    ak_compile_options o;
    void* d = NULL;
    float h[2] = { 0, 0 };
    ak_args a;
    ak_dim3 one = { 1, 1, 1 };
    ak_result r;
    memset(&o, 0, sizeof o);
    o.no_prelude = 1;
    o.source_name = "amdkit_probe.hip";
    o.opt_level = AK_OPT_BALANCED;
    ctx->dev.fp16 = 0;
    ctx->dev.bf16 = 0;
    if ((r = ak_kernel_get(ctx, _ak_probe_src, "ak_probe_types", &o, &k)) != AK_OK) return AK_OK; /* unsupported: stays 0 */
    memset(&a, 0, sizeof a);
    if ((r = ak_malloc(ctx, sizeof h, NULL, &d)) == AK_OK) {
        ak_args_ptr(&a, d);
        if ((r = ak_launch(k, one, one, 0, NULL, ak_args_params(&a))) == AK_OK &&
            (r = ak_memcpy(ctx, h, d, sizeof h, AK_D2H)) == AK_OK) {
            ctx->dev.fp16 = h[0] == 2.25f;
            ctx->dev.bf16 = h[1] == 2.25f;
        }
        ak_free(ctx, d);
    }
    ak_kernel_release(k);
    return r;
}

/* ==========================================================================
 * >>impl:multi  several devices: peer access and copies, stream waits,
 * communicators (NCCL / RCCL through >>impl:api's loader; the cpu backend's
 * reference over threads), groups
 * ========================================================================== */

/* --- peers: raw device operations per backend --- */
static ak_result _ak_peer_pair_check(const char* fn, ak_context* a, ak_context* b) {
    if (!a || !b) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: context is NULL", fn);
    if (a->backend != b->backend)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: contexts of different backends (%s, %s)", fn, ak_backend_name(a->backend),
                       ak_backend_name(b->backend));
    return AK_OK;
}
static int _ak_same_device(const ak_context* a, const ak_context* b) {
    return a->backend == b->backend && a->dev.device == b->dev.device;
}
static ak_result _ak_dev_can_access_peer(ak_context* ctx, ak_context* peer, int* can) {
    int e;
    *can = 0;
    if (_ak_same_device(ctx, peer)) { *can = 1; return AK_OK; }
    if ((e = ctx->bk->peer_can_access(ctx, peer, can)) != 0)
        return _ak_err(AK_ERROR_DEVICE, "can device %d access device %d? The query failed: %s (%d)", ctx->dev.device, peer->dev.device,
                       ctx->bk->error_string(ctx, e), e);
    *can = *can != 0;
    return AK_OK;
}
static ak_result _ak_dev_enable_peer(ak_context* ctx, ak_context* peer) {
    int e;
    ak_result r;
    if (_ak_same_device(ctx, peer)) return AK_OK;
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->peer_enable(ctx, peer)) != 0)
        return _ak_err(AK_ERROR_DEVICE, "peer access from device %d to device %d failed: %s (%d)", ctx->dev.device, peer->dev.device,
                       ctx->bk->error_string(ctx, e), e);
    return AK_OK;
}
/* Direct copy between two devices that can access each other, on a stream of dst. */
static ak_result _ak_dev_copy_peer(ak_context* dst_ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes, void* stream) {
    int e;
    ak_result r;
    if ((r = _ak_bind(dst_ctx)) != AK_OK) return r;
    if ((e = dst_ctx->bk->peer_copy(dst_ctx, dst, src_ctx, src, bytes, stream)) != 0)
        return _ak_err(AK_ERROR_MEMORY, "peer copy of %zu bytes (device %d to %d) failed: %s (%d)", bytes, src_ctx->dev.device,
                       dst_ctx->dev.device, dst_ctx->bk->error_string(dst_ctx, e), e);
    return AK_OK;
}

/* Staged copy through two pinned host buffers: the device-to-host copy of a
 * chunk overlaps the host-to-device copy of the one before. Returns when done. */
#define _AK_STAGE_CHUNK ((size_t)8 << 20)
static ak_result _ak_copy_peer_staged(ak_context* dst_ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes,
                                      ak_stream* stream) {
    void* buf[2] = { NULL, NULL };
    ak_event* ev[2] = { NULL, NULL };
    int used[2] = { 0, 0 };
    size_t chunk = bytes < _AK_STAGE_CHUNK ? bytes : _AK_STAGE_CHUNK, off;
    ak_result r = AK_OK;
    int i, k = 0;
    for (i = 0; i < 2 && r == AK_OK; i++) {
        if ((r = ak_host_alloc(src_ctx, chunk, &buf[i])) != AK_OK) break;
        r = ak_event_create(dst_ctx, &ev[i]);
    }
    for (off = 0; r == AK_OK && off < bytes; off += chunk, k ^= 1) {
        size_t n = bytes - off < chunk ? bytes - off : chunk;
        if (used[k] && (r = ak_event_synchronize(ev[k])) != AK_OK) break;     /* the H2D that read buf[k] is done */
        if ((r = ak_memcpy_async(src_ctx, buf[k], (const char*)src + off, n, AK_D2H, NULL)) != AK_OK) break;
        if ((r = ak_stream_synchronize(src_ctx, NULL)) != AK_OK) break;
        if ((r = ak_memcpy_async(dst_ctx, (char*)dst + off, buf[k], n, AK_H2D, stream)) != AK_OK) break;
        if ((r = ak_event_record(ev[k], stream)) != AK_OK) break;
        used[k] = 1;
    }
    if (r == AK_OK) r = ak_stream_synchronize(dst_ctx, stream);
    else ak_stream_synchronize(dst_ctx, stream);
    for (i = 0; i < 2; i++) {
        if (ev[i]) ak_event_destroy(ev[i]);
        if (buf[i]) ak_host_free(src_ctx, buf[i]);
    }
    return r;
}

AKDEF ak_result ak_device_can_access_peer(ak_context* ctx, ak_context* peer, int* can) {
    ak_result r;
    if (!can) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_device_can_access_peer: can is NULL");
    *can = 0;
    if ((r = _ak_peer_pair_check("ak_device_can_access_peer", ctx, peer)) != AK_OK) return r;
    return _ak_dev_can_access_peer(ctx, peer, can);
}
AKDEF ak_result ak_enable_peer_access(ak_context* ctx, ak_context* peer) {
    ak_result r;
    int can = 0;
    if ((r = _ak_peer_pair_check("ak_enable_peer_access", ctx, peer)) != AK_OK) return r;
    if ((r = _ak_dev_can_access_peer(ctx, peer, &can)) != AK_OK) return r;
    if (!can)
        return _ak_err(AK_ERROR_DEVICE, "ak_enable_peer_access: device %d (%s) cannot access device %d (%s) directly; "
                       "ak_memcpy_peer stages such copies through host memory", ctx->dev.device, ctx->dev.pci_bus_id,
                       peer->dev.device, peer->dev.pci_bus_id);
    return _ak_dev_enable_peer(ctx, peer);
}
static ak_result _ak_memcpy_peer_impl(const char* fn, ak_context* dst_ctx, void* dst, ak_context* src_ctx, const void* src,
                                      size_t bytes, ak_stream* stream, int sync) {
    ak_result r;
    int can = 0;
    if ((r = _ak_peer_pair_check(fn, dst_ctx, src_ctx)) != AK_OK) return r;
    if (bytes == 0) return AK_OK;
    if (!dst || !src) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %s pointer is NULL (%zu bytes)", fn, dst ? "source" : "destination", bytes);
    if (bytes > (SIZE_MAX >> 1)) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %zu bytes is not a plausible size", fn, bytes);
    if (stream && stream->ctx != dst_ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: the stream must belong to the destination context", fn);
    if (_ak_same_device(dst_ctx, src_ctx)) {
        if ((r = ak_memcpy_async(dst_ctx, dst, src, bytes, AK_D2D, stream)) != AK_OK) return r;
    } else {
        if ((r = _ak_dev_can_access_peer(dst_ctx, src_ctx, &can)) != AK_OK) return r;
        if (!can) return _ak_copy_peer_staged(dst_ctx, dst, src_ctx, src, bytes, stream);
        if ((r = _ak_dev_copy_peer(dst_ctx, dst, src_ctx, src, bytes, _ak_native_stream(stream))) != AK_OK) return r;
    }
    return sync ? ak_stream_synchronize(dst_ctx, stream) : AK_OK;
}
AKDEF ak_result ak_memcpy_peer(ak_context* dst_ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes) {
    return _ak_memcpy_peer_impl("ak_memcpy_peer", dst_ctx, dst, src_ctx, src, bytes, NULL, 1);
}
AKDEF ak_result ak_memcpy_peer_async(ak_context* dst_ctx, void* dst, ak_context* src_ctx, const void* src, size_t bytes, ak_stream* stream) {
    return _ak_memcpy_peer_impl("ak_memcpy_peer_async", dst_ctx, dst, src_ctx, src, bytes, stream, 0);
}

AKDEF ak_result ak_stream_wait_event(ak_context* ctx, ak_stream* s, ak_event* ev) {
    int e;
    ak_result r;
    if (!ctx || !ev) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_stream_wait_event: ctx or event is NULL");
    if (s && s->ctx != ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_stream_wait_event: stream belongs to another context");
    if (!ev->recorded) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_stream_wait_event: event was never recorded");
    if (ev->ctx->backend != ctx->backend)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_stream_wait_event: event of the %s backend, stream of %s",
                       ak_backend_name(ev->ctx->backend), ak_backend_name(ctx->backend));
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->bk->stream_wait_event(ctx, _ak_native_stream(s), ev->native)) != 0)   /* cpu: work is complete when its call returns */
        return _ak_err(AK_ERROR_DEVICE, "ak_stream_wait_event failed: %s (%d)", ctx->bk->error_string(ctx, e), e);
    return AK_OK;
}

/* --- communicators --- */
enum { _AK_CC_ALL_REDUCE, _AK_CC_ALL_GATHER, _AK_CC_REDUCE_SCATTER, _AK_CC_BROADCAST, _AK_CC_SEND, _AK_CC_RECV };
static const char* const _ak_cc_names[] = { "all_reduce", "all_gather", "reduce_scatter", "broadcast", "send", "recv" };
typedef struct _ak_coll {
    int kind;
    ak_reduce_op op;
    ak_dtype t;
    const void* send;
    void* recv;
    size_t count;     /* all_gather: send count; reduce_scatter: recv count */
    int peer;         /* broadcast: root; send/recv: the other rank */
} _ak_coll;

typedef struct _ak_cc_shared _ak_cc_shared;
struct _ak_comm_impl;
struct ak_comm {
    ak_context* ctx;
    int rank, size;
    const struct _ak_comm_impl* impl;
    void* nccl;                /* ncclComm_t (hip / cuda) */
    _ak_cc_shared* shared;     /* cpu: state shared by the ranks */
    uint64_t seq;              /* cpu: collectives issued by this rank */
    char library[600];
};
typedef struct _ak_comm_impl {
    ak_result (*coll)(ak_comm* c, const _ak_coll* op, ak_stream* s);
    void (*destroy)(ak_comm* c);
} _ak_comm_impl;

/* Per-thread group state: depth, the cpu operations to wait for at the end,
 * the collective libraries whose ncclGroupStart this group called. */
typedef struct _ak_cc_wait { _ak_cc_shared* sh; void* ticket; int p2p; } _ak_cc_wait;
typedef struct _ak_group {
    int depth;
    _ak_cc_wait* waits;
    int n_waits, cap_waits;
    _ak_api* ccl[8];           /* libraries with a group open (one per distinct ncclGroupEnd) */
    int n_ccl;
    ak_result err;             /* first error inside the group */
    char msg[1024];
} _ak_group;
static pthread_key_t _ak_group_key;
static pthread_once_t _ak_group_once = PTHREAD_ONCE_INIT;
static void _ak_group_free(void* p) { _ak_group* g = (_ak_group*)p; if (g) { _ak_dealloc(g->waits); _ak_dealloc(g); } }
static void _ak_group_make_key(void) { pthread_key_create(&_ak_group_key, _ak_group_free); }
static _ak_group* _ak_group_get(void) {
    _ak_group* g;
    pthread_once(&_ak_group_once, _ak_group_make_key);
    g = (_ak_group*)pthread_getspecific(_ak_group_key);
    if (!g && (g = (_ak_group*)_ak_calloc(sizeof *g)) != NULL) pthread_setspecific(_ak_group_key, g);
    return g;
}
static void _ak_group_note_error(_ak_group* g, ak_result r) {
    if (g->err == AK_OK && r != AK_OK) { g->err = r; _ak_copy(g->msg, sizeof g->msg, ak_last_error()); }
}

/* The thread's binding cache may be stale after NCCL/RCCL initialization
 * (it may make another device current): forget it. */
static void _ak_unbind(void) {
    pthread_once(&_ak_bind_once, _ak_bind_make_key);
    pthread_setspecific(_ak_bind_key, NULL);
}

/* ---- cpu backend: the reference, over threads of one process ----
 * Each collective of rank r is its sequence number's slot: the rank's
 * arguments are deposited there; the last rank to arrive checks that every
 * rank called the same thing and computes every rank's result; every rank
 * waits for that (at once, or at the outermost group end). send/recv are
 * matched first in, first out per (sender, receiver). */
#define _AK_CC_TIMEOUT_S 120
typedef struct _ak_cc_slot {
    struct _ak_cc_slot* next;
    uint64_t seq;
    int arrived, left, done;
    ak_result err;
    char msg[512];
    _ak_coll* ops;             /* [size] */
} _ak_cc_slot;
typedef struct _ak_cc_p2p {
    struct _ak_cc_p2p* next;   /* pending list */
    int from, to, done;        /* from: sender rank, to: receiver rank */
    _ak_coll op;
    ak_result err;
    char msg[256];
} _ak_cc_p2p;
struct _ak_cc_shared {
    _ak_cc_shared* next;       /* registry of ids (ak_comm_init_rank) */
    unsigned char key[32];
    int size, refs;
    unsigned char* joined;     /* [size] */
    _ak_mutex lock;
    _ak_cond cond;
    _ak_cc_slot* slots;
    _ak_cc_p2p* sends;         /* pending, unmatched */
    _ak_cc_p2p* recvs;
};
static _ak_mutex _ak_cc_registry_lock;
static pthread_once_t _ak_cc_registry_once = PTHREAD_ONCE_INIT;
static _ak_cc_shared* _ak_cc_registry;
static void _ak_cc_registry_init(void) { _ak_mutex_init(&_ak_cc_registry_lock); }

static _ak_cc_shared* _ak_cc_shared_new(int size) {
    _ak_cc_shared* sh = (_ak_cc_shared*)_ak_calloc(sizeof *sh);
    if (!sh) return NULL;
    if (!(sh->joined = (unsigned char*)_ak_calloc((size_t)size))) { _ak_dealloc(sh); return NULL; }
    sh->size = size;
    _ak_mutex_init(&sh->lock);
    _ak_cond_init(&sh->cond);
    return sh;
}
static void _ak_cc_shared_release(_ak_cc_shared* sh) {
    int last;
    pthread_once(&_ak_cc_registry_once, _ak_cc_registry_init);
    _ak_mutex_lock(&_ak_cc_registry_lock);
    last = --sh->refs == 0;
    if (last) {
        _ak_cc_shared** pp = &_ak_cc_registry;
        while (*pp && *pp != sh) pp = &(*pp)->next;
        if (*pp) *pp = sh->next;
    }
    _ak_mutex_unlock(&_ak_cc_registry_lock);
    if (!last) return;
    while (sh->slots) { _ak_cc_slot* s = sh->slots; sh->slots = s->next; _ak_dealloc(s->ops); _ak_dealloc(s); }
    _ak_mutex_destroy(&sh->lock);
    _ak_cond_destroy(&sh->cond);
    _ak_dealloc(sh->joined);
    _ak_dealloc(sh);
}

/* Host reductions, in rank order; floats accumulate in double and round once. */
static double _ak_cc_get(ak_dtype t, const void* p, size_t i) {
    switch (t) {
    case AK_F32: return ((const float*)p)[i];
    case AK_F16: return ak_f16_to_f32(((const uint16_t*)p)[i]);
    case AK_BF16: return ak_bf16_to_f32(((const uint16_t*)p)[i]);
    default: return 0;
    }
}
static void _ak_cc_reduce(ak_reduce_op op, ak_dtype t, const void* const* src, int n, size_t first, size_t count, void* out) {
    size_t i;
    int k;
    if (t == AK_I32) {
        int32_t* o = (int32_t*)out;
        for (i = 0; i < count; i++) {
            uint32_t sum = 0;
            int32_t mx = ((const int32_t*)src[0])[first + i], mn = mx;
            for (k = 0; k < n; k++) {
                int32_t v = ((const int32_t*)src[k])[first + i];
                sum += (uint32_t)v;
                if (v > mx) mx = v;
                if (v < mn) mn = v;
            }
            o[i] = op == AK_REDUCE_MAX ? mx : op == AK_REDUCE_MIN ? mn
                 : op == AK_REDUCE_MEAN ? (int32_t)sum / n : (int32_t)sum;
        }
        return;
    }
    for (i = 0; i < count; i++) {
        double acc = _ak_cc_get(t, src[0], first + i);
        for (k = 1; k < n; k++) {
            double v = _ak_cc_get(t, src[k], first + i);
            if (op == AK_REDUCE_MAX) { if (v > acc) acc = v; }
            else if (op == AK_REDUCE_MIN) { if (v < acc) acc = v; }
            else acc += v;
        }
        if (op == AK_REDUCE_MEAN) acc /= n;
        ak_elem_set(out, t, i, acc);
    }
}

static void _ak_cc_describe(const _ak_coll* o, char* buf, size_t cap) {
    _ak_fmt(buf, cap, "%s(%s, count %zu", _ak_cc_names[o->kind], ak_dtype_name(o->t), o->count);
    if (o->kind == _AK_CC_ALL_REDUCE || o->kind == _AK_CC_REDUCE_SCATTER) _ak_appendf(buf, cap, ", %s", ak_reduce_op_name(o->op));
    if (o->kind == _AK_CC_BROADCAST) _ak_appendf(buf, cap, ", root %d", o->peer);
    _ak_appendf(buf, cap, ")");
}

/* Run one collective whose every rank has arrived (lock held). */
static void _ak_cc_execute(_ak_cc_shared* sh, _ak_cc_slot* s) {
    const _ak_coll* o0 = &s->ops[0];
    size_t es = ak_dtype_size(o0->t), blk = o0->count * es, total;
    int n = sh->size, r;
    const void** srcs;
    char* tmp;
    for (r = 1; r < n; r++) {
        const _ak_coll* o = &s->ops[r];
        if (o->kind != o0->kind || o->t != o0->t || o->count != o0->count ||
            ((o0->kind == _AK_CC_ALL_REDUCE || o0->kind == _AK_CC_REDUCE_SCATTER) && o->op != o0->op) ||
            (o0->kind == _AK_CC_BROADCAST && o->peer != o0->peer)) {
            char a[128], b[128];
            _ak_cc_describe(o0, a, sizeof a);
            _ak_cc_describe(o, b, sizeof b);
            s->err = AK_ERROR_INVALID_ARGUMENT;
            _ak_fmt(s->msg, sizeof s->msg, "collective #%llu of a communicator of %d ranks: rank 0 called %s, rank %d called %s",
                    (unsigned long long)s->seq, n, a, r, b);
            return;
        }
    }
    if (blk == 0) return;                      /* count 0: nothing moves (buffers may be NULL) */
    total = o0->kind == _AK_CC_BROADCAST ? blk : (size_t)n * blk;
    srcs = (const void**)_ak_alloc(sizeof(void*) * (size_t)n);
    tmp = (char*)_ak_alloc(total ? total : 1);
    if (!srcs || !tmp) {
        _ak_dealloc(srcs); _ak_dealloc(tmp);
        s->err = AK_ERROR_OUT_OF_MEMORY;
        _ak_fmt(s->msg, sizeof s->msg, "collective #%llu: out of host memory (%zu bytes)", (unsigned long long)s->seq, total);
        return;
    }
    for (r = 0; r < n; r++) srcs[r] = s->ops[r].send;
    /* results into tmp first: a rank's recv may be its (or, in place, part of its) send */
    switch (o0->kind) {
    case _AK_CC_ALL_REDUCE:
        _ak_cc_reduce(o0->op, o0->t, srcs, n, 0, o0->count, tmp);
        for (r = 0; r < n; r++) memcpy(s->ops[r].recv, tmp, blk);
        break;
    case _AK_CC_ALL_GATHER:
        for (r = 0; r < n; r++) memcpy(tmp + (size_t)r * blk, srcs[r], blk);
        for (r = 0; r < n; r++) memcpy(s->ops[r].recv, tmp, total);
        break;
    case _AK_CC_REDUCE_SCATTER:
        for (r = 0; r < n; r++) _ak_cc_reduce(o0->op, o0->t, srcs, n, (size_t)r * o0->count, o0->count, tmp + (size_t)r * blk);
        for (r = 0; r < n; r++) memcpy(s->ops[r].recv, tmp + (size_t)r * blk, blk);
        break;
    case _AK_CC_BROADCAST:
        memcpy(tmp, srcs[o0->peer], blk);
        for (r = 0; r < n; r++) memcpy(s->ops[r].recv, tmp, blk);
        break;
    }
    _ak_dealloc(srcs);
    _ak_dealloc(tmp);
}

/* Wait (lock held) until *flag, with the timeout; 0 on timeout. */
static int _ak_cc_wait_flag(_ak_cc_shared* sh, const int* flag) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += _AK_CC_TIMEOUT_S;
    while (!*flag)
        if (pthread_cond_timedwait(&sh->cond.c, &sh->lock.m, &until) == ETIMEDOUT && !*flag) return 0;
    return 1;
}

static ak_result _ak_cc_wait_slot(_ak_cc_shared* sh, _ak_cc_slot* s, int rank) {
    ak_result r;
    char msg[512];
    _ak_mutex_lock(&sh->lock);
    if (!_ak_cc_wait_flag(sh, &s->done)) {
        char who[256];
        int k;
        who[0] = 0;
        for (k = 0; k < sh->size; k++) if (s->ops[k].count == (size_t)-1) _ak_appendf(who, sizeof who, " %d", k);
        _ak_mutex_unlock(&sh->lock);
        return _ak_err(AK_ERROR_DEVICE, "collective #%llu (%s) on rank %d: %d of %d ranks arrived in %d s; missing ranks:%s "
                       "(every rank must make the same calls; a thread driving several ranks groups them)",
                       (unsigned long long)s->seq, _ak_cc_names[s->ops[rank].kind], rank, s->arrived, sh->size, _AK_CC_TIMEOUT_S, who);
    }
    r = s->err;
    _ak_copy(msg, sizeof msg, s->msg);
    if (--s->left == 0) {
        _ak_cc_slot** pp = &sh->slots;
        while (*pp && *pp != s) pp = &(*pp)->next;
        if (*pp) *pp = s->next;
        _ak_dealloc(s->ops);
        _ak_dealloc(s);
    }
    _ak_mutex_unlock(&sh->lock);
    return r == AK_OK ? AK_OK : _ak_err(r, "%s", msg);
}

static ak_result _ak_cc_wait_p2p(_ak_cc_shared* sh, _ak_cc_p2p* p) {
    ak_result r;
    char msg[256];
    _ak_mutex_lock(&sh->lock);
    if (!_ak_cc_wait_flag(sh, &p->done)) {
        /* unmatched: take it off the pending list */
        _ak_cc_p2p** pp = p->op.kind == _AK_CC_SEND ? &sh->sends : &sh->recvs;
        while (*pp && *pp != p) pp = &(*pp)->next;
        if (*pp) *pp = p->next;
        _ak_mutex_unlock(&sh->lock);
        r = _ak_err(AK_ERROR_DEVICE, "%s of %zu elements from rank %d to rank %d: no matching %s in %d s", _ak_cc_names[p->op.kind],
                    p->op.count, p->from, p->to, p->op.kind == _AK_CC_SEND ? "recv" : "send", _AK_CC_TIMEOUT_S);
        _ak_dealloc(p);
        return r;
    }
    r = p->err;
    _ak_copy(msg, sizeof msg, p->msg);
    _ak_mutex_unlock(&sh->lock);
    _ak_dealloc(p);
    return r == AK_OK ? AK_OK : _ak_err(r, "%s", msg);
}

static ak_result _ak_cc_enqueue_wait(int p2p, _ak_cc_shared* sh, void* ticket, int rank) {
    _ak_group* g = _ak_group_get();
    if (g && g->depth > 0) {
        if (g->n_waits == g->cap_waits) {
            int cap = g->cap_waits ? 2 * g->cap_waits : 16;
            _ak_cc_wait* w = (_ak_cc_wait*)_ak_alloc(sizeof *w * (size_t)cap);
            if (!w) goto now;
            if (g->n_waits) memcpy(w, g->waits, sizeof *w * (size_t)g->n_waits);
            _ak_dealloc(g->waits);
            g->waits = w;
            g->cap_waits = cap;
        }
        g->waits[g->n_waits].sh = sh;
        g->waits[g->n_waits].ticket = ticket;
        g->waits[g->n_waits].p2p = p2p ? 1 : 2 + rank;  /* collectives keep the rank: 2 + rank */
        g->n_waits++;
        return AK_OK;
    }
now:
    return p2p ? _ak_cc_wait_p2p(sh, (_ak_cc_p2p*)ticket) : _ak_cc_wait_slot(sh, (_ak_cc_slot*)ticket, rank);
}

static ak_result _ak_cc_coll(ak_comm* c, const _ak_coll* op, ak_stream* stream) {
    _ak_cc_shared* sh = c->shared;
    (void)stream;
    if (op->kind == _AK_CC_SEND || op->kind == _AK_CC_RECV) {
        _ak_cc_p2p* p = (_ak_cc_p2p*)_ak_calloc(sizeof *p);
        _ak_cc_p2p **other, **pp;
        if (!p) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", _ak_cc_names[op->kind]);
        p->op = *op;
        p->from = op->kind == _AK_CC_SEND ? c->rank : op->peer;
        p->to = op->kind == _AK_CC_SEND ? op->peer : c->rank;
        _ak_mutex_lock(&sh->lock);
        other = op->kind == _AK_CC_SEND ? &sh->recvs : &sh->sends;
        for (pp = other; *pp; pp = &(*pp)->next)
            if ((*pp)->from == p->from && (*pp)->to == p->to) break;
        if (*pp) {
            _ak_cc_p2p* q = *pp;
            const _ak_coll* snd = op->kind == _AK_CC_SEND ? op : &q->op;
            const _ak_coll* rcv = op->kind == _AK_CC_SEND ? &q->op : op;
            *pp = q->next;
            if (snd->t != rcv->t || snd->count != rcv->count) {
                p->err = q->err = AK_ERROR_INVALID_ARGUMENT;
                _ak_fmt(p->msg, sizeof p->msg, "send from rank %d to rank %d: %zu x %s sent, recv posted for %zu x %s", p->from, p->to,
                        snd->count, ak_dtype_name(snd->t), rcv->count, ak_dtype_name(rcv->t));
                _ak_copy(q->msg, sizeof q->msg, p->msg);
            } else if (snd->count) {
                memmove(rcv->recv, snd->send, snd->count * ak_dtype_size(snd->t));
            }
            p->done = q->done = 1;
            _ak_cond_broadcast(&sh->cond);
        } else {
            _ak_cc_p2p** tail = op->kind == _AK_CC_SEND ? &sh->sends : &sh->recvs;
            while (*tail) tail = &(*tail)->next;
            *tail = p;
        }
        _ak_mutex_unlock(&sh->lock);
        return _ak_cc_enqueue_wait(1, sh, p, c->rank);
    } else {
        _ak_cc_slot* s;
        uint64_t seq = c->seq++;
        _ak_mutex_lock(&sh->lock);
        for (s = sh->slots; s && s->seq != seq; s = s->next) {}
        if (!s) {
            int k;
            s = (_ak_cc_slot*)_ak_calloc(sizeof *s);
            if (s) s->ops = (_ak_coll*)_ak_calloc(sizeof *s->ops * (size_t)sh->size);
            if (!s || !s->ops) {
                if (s) _ak_dealloc(s);
                _ak_mutex_unlock(&sh->lock);
                c->seq--;
                return _ak_err(AK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", _ak_cc_names[op->kind]);
            }
            for (k = 0; k < sh->size; k++) s->ops[k].count = (size_t)-1;   /* not arrived */
            s->seq = seq;
            s->left = sh->size;
            s->next = sh->slots;
            sh->slots = s;
        }
        s->ops[c->rank] = *op;
        if (++s->arrived == sh->size) {
            _ak_cc_execute(sh, s);
            s->done = 1;
            _ak_cond_broadcast(&sh->cond);
        }
        _ak_mutex_unlock(&sh->lock);
        return _ak_cc_enqueue_wait(0, sh, s, c->rank);
    }
}
static void _ak_cc_destroy(ak_comm* c) { if (c->shared) _ak_cc_shared_release(c->shared); }
static const _ak_comm_impl _ak_comm_cpu = { _ak_cc_coll, _ak_cc_destroy };

/* ---- hip / cuda: NCCL or RCCL ---- */
static ak_result _ak_ccl_load(ak_context* ctx) {
    char why[2048];
    int ok;
    _ak_mutex_lock(&ctx->lock);
    ok = ctx->bk->ccl_load(ctx->api, why, sizeof why);
    _ak_mutex_unlock(&ctx->lock);
    if (!ok) return _ak_err(AK_ERROR_BACKEND_UNAVAILABLE, "collectives on the %s backend need %s: %s", ak_backend_name(ctx->backend),
                            ctx->bk->ccl, why);
    return AK_OK;
}
static ak_result _ak_ccl_err(ak_context* ctx, void* comm, int e, const char* what) {
    const char* s = ctx->api->ncclGetErrorString ? ctx->api->ncclGetErrorString(e) : NULL;
    const char* last = (ctx->api->ncclGetLastError) ? ctx->api->ncclGetLastError(comm) : NULL;
    return _ak_err(e == _AK_NCCL_INVALID_ARGUMENT || e == _AK_NCCL_INVALID_USAGE ? AK_ERROR_INVALID_ARGUMENT : AK_ERROR_DEVICE, "%s failed: %s (%d)%s%s", what,
                   s ? s : "unknown error", e, last && *last ? ": " : "", last && *last ? last : "");
}
static int _ak_ccl_dtype(ak_dtype t) {
    switch (t) {
    case AK_F32: return _AK_NCCL_F32; case AK_F16: return _AK_NCCL_F16; case AK_BF16: return _AK_NCCL_BF16; case AK_I32: return _AK_NCCL_I32;
    default: return -1;
    }
}
static int _ak_ccl_op(ak_reduce_op op) {
    switch (op) {
    case AK_REDUCE_SUM: return _AK_NCCL_SUM; case AK_REDUCE_MAX: return _AK_NCCL_MAX; case AK_REDUCE_MIN: return _AK_NCCL_MIN;
    case AK_REDUCE_MEAN: return _AK_NCCL_AVG; default: return -1;
    }
}
/* Inside an amdkit group: open the library's group once per outermost group. */
static ak_result _ak_ccl_group_join(_ak_api* api) {
    _ak_group* g = _ak_group_get();
    int i, e;
    if (!g || g->depth == 0) return AK_OK;
    for (i = 0; i < g->n_ccl; i++) if (g->ccl[i]->ncclGroupEnd == api->ncclGroupEnd) return AK_OK;
    if (g->n_ccl == (int)(sizeof g->ccl / sizeof g->ccl[0])) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "too many collective libraries in one group");
    if ((e = api->ncclGroupStart()) != 0) return _ak_err(AK_ERROR_DEVICE, "ncclGroupStart failed (%d)", e);
    g->ccl[g->n_ccl++] = api;
    return AK_OK;
}
static ak_result _ak_ccl_coll(ak_comm* c, const _ak_coll* o, ak_stream* stream) {
    _ak_api* a = c->ctx->api;
    void* st = _ak_native_stream(stream);
    int t = _ak_ccl_dtype(o->t), op = _ak_ccl_op(o->op), e = 0;
    ak_result r;
    if ((r = _ak_bind(c->ctx)) != AK_OK) return r;
    if ((r = _ak_ccl_group_join(a)) != AK_OK) return r;
    switch (o->kind) {
    case _AK_CC_ALL_REDUCE: e = a->ncclAllReduce(o->send, o->recv, o->count, t, op, c->nccl, st); break;
    case _AK_CC_ALL_GATHER: e = a->ncclAllGather(o->send, o->recv, o->count, t, c->nccl, st); break;
    case _AK_CC_REDUCE_SCATTER: e = a->ncclReduceScatter(o->send, o->recv, o->count, t, op, c->nccl, st); break;
    case _AK_CC_BROADCAST: e = a->ncclBroadcast(o->send, o->recv, o->count, t, o->peer, c->nccl, st); break;
    case _AK_CC_SEND: e = a->ncclSend(o->send, o->count, t, o->peer, c->nccl, st); break;
    case _AK_CC_RECV: e = a->ncclRecv(o->recv, o->count, t, o->peer, c->nccl, st); break;
    }
    if (e) {
        char what[160];
        _ak_fmt(what, sizeof what, "%s on rank %d of %d (%s)", _ak_cc_names[o->kind], c->rank, c->size, c->ctx->bk->ccl);
        return _ak_ccl_err(c->ctx, c->nccl, e, what);
    }
    return AK_OK;
}
static void _ak_ccl_destroy(ak_comm* c) {
    if (!c->nccl) return;
    if (_ak_bind(c->ctx) == AK_OK) c->ctx->api->ncclCommDestroy(c->nccl);
    _ak_unbind();
}
static const _ak_comm_impl _ak_comm_ccl = { _ak_ccl_coll, _ak_ccl_destroy };

/* --- communicators: one constructor per kind (the backend table picks: cpu threads or NCCL / RCCL) --- */
static ak_comm* _ak_comm_new(ak_context* ctx, int rank, int size, const _ak_comm_impl* impl) {
    ak_comm* c = (ak_comm*)_ak_ctx_alloc(&ctx->cfg, sizeof *c);
    if (!c) return NULL;
    c->ctx = ctx;
    c->rank = rank;
    c->size = size;
    c->impl = impl;
    return c;
}
static ak_comm* _ak_cc_comm_new(ak_context* ctx, int rank, int size) {
    ak_comm* c = _ak_comm_new(ctx, rank, size, &_ak_comm_cpu);
    if (c) _ak_copy(c->library, sizeof c->library, "cpu (threads of one process)");
    return c;
}
static ak_comm* _ak_ccl_comm_new(ak_context* ctx, int rank, int size) {
    ak_comm* c = _ak_comm_new(ctx, rank, size, &_ak_comm_ccl);
    int v = ctx->api->ccl_version;
    if (c)
        _ak_fmt(c->library, sizeof c->library, "%s (%s %d.%d.%d)", ctx->api->ccl_path, ctx->bk->ccl,
                v >= 10000 ? v / 10000 : v / 1000, v >= 10000 ? (v / 100) % 100 : (v / 100) % 10, v % 100);
    return c;
}
static void _ak_comm_free(ak_comm* c) {
    ak_config cfg = c->ctx->cfg;
    _ak_ctx_free(&cfg, c);
}

/* cpu: an id is a magic, the process id and a random key (valid in this process) */
#define _AK_CC_ID_MAGIC "amdkit-cpu-comm"   /* 16 bytes with the NUL */
static ak_result _ak_cc_unique_id(ak_context* ctx, ak_comm_id* id) {
    static uint64_t counter;
    uint64_t k[2];
    int32_t pid = (int32_t)getpid();
    (void)ctx;
    k[0] = _ak_now_ns() ^ ((uint64_t)(uintptr_t)id << 17);
    k[1] = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0x9E3779B97F4A7C15ull ^ (uint64_t)pid;
    memcpy(id->internal, _AK_CC_ID_MAGIC, 16);
    memcpy(id->internal + 16, &pid, sizeof pid);
    memcpy(id->internal + 20, k, sizeof k);
    return AK_OK;
}
static ak_result _ak_ccl_unique_id(ak_context* ctx, ak_comm_id* id) {
    ak_result r;
    int e;
    _akT_ncclUniqueId u;
    if ((r = _ak_ccl_load(ctx)) != AK_OK) return r;
    if ((r = _ak_bind(ctx)) != AK_OK) return r;
    if ((e = ctx->api->ncclGetUniqueId(&u)) != 0) return _ak_ccl_err(ctx, NULL, e, "ncclGetUniqueId");
    memcpy(id->internal, &u, sizeof u < sizeof id->internal ? sizeof u : sizeof id->internal);
    return AK_OK;
}
AKDEF ak_result ak_comm_get_unique_id(ak_context* ctx, ak_comm_id* id) {
    if (!ctx || !id) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_get_unique_id: ctx or id is NULL");
    memset(id, 0, sizeof *id);
    return ctx->bk->comm_unique_id(ctx, id);
}

static ak_result _ak_comm_check_rank_args(const char* fn, ak_context* ctx, int nranks, int rank) {
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
    if (nranks < 1 || nranks > 65536) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %d ranks (1..65536)", fn, nranks);
    if (rank < 0 || rank >= nranks) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: rank %d of %d ranks (0..%d)", fn, rank, nranks, nranks - 1);
    return AK_OK;
}

static ak_result _ak_cc_init_rank(ak_context* ctx, int nranks, const ak_comm_id* id, int rank, ak_comm** out) {
    _ak_cc_shared* sh;
    ak_comm* c;
    int32_t pid;
    if (memcmp(id->internal, _AK_CC_ID_MAGIC, 16) != 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_rank: not an id of the cpu backend (make it with ak_comm_get_unique_id "
                       "on a cpu context)");
    memcpy(&pid, id->internal + 16, sizeof pid);
    if (pid != (int32_t)getpid())
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_rank: the id was made in process %d; the cpu backend's "
                       "communicators join ranks of one process only (this is %d)", (int)pid, (int)getpid());
    if (!(c = _ak_cc_comm_new(ctx, rank, nranks))) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_comm_init_rank: out of host memory");
    pthread_once(&_ak_cc_registry_once, _ak_cc_registry_init);
    _ak_mutex_lock(&_ak_cc_registry_lock);
    for (sh = _ak_cc_registry; sh && memcmp(sh->key, id->internal + 16, sizeof sh->key) != 0; sh = sh->next) {}
    if (!sh) {
        if ((sh = _ak_cc_shared_new(nranks)) != NULL) {
            memcpy(sh->key, id->internal + 16, sizeof sh->key);
            sh->next = _ak_cc_registry;
            _ak_cc_registry = sh;
        }
    } else if (sh->size != nranks) {
        int have = sh->size;
        _ak_mutex_unlock(&_ak_cc_registry_lock);
        _ak_comm_free(c);
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_rank: rank %d says %d ranks, the communicator was made with %d", rank, nranks, have);
    } else if (sh->joined[rank]) {
        _ak_mutex_unlock(&_ak_cc_registry_lock);
        _ak_comm_free(c);
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_rank: rank %d of this communicator has joined already", rank);
    }
    if (!sh) { _ak_mutex_unlock(&_ak_cc_registry_lock); _ak_comm_free(c); return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_comm_init_rank: out of host memory"); }
    sh->joined[rank] = 1;
    sh->refs++;
    c->shared = sh;
    _ak_mutex_unlock(&_ak_cc_registry_lock);
    *out = c;
    return AK_OK;
}
static ak_result _ak_ccl_init_rank(ak_context* ctx, int nranks, const ak_comm_id* id, int rank, ak_comm** out) {
    ak_comm* c;
    ak_result r;
    if ((r = _ak_ccl_load(ctx)) != AK_OK) return r;
    if (!(c = _ak_ccl_comm_new(ctx, rank, nranks))) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_comm_init_rank: out of host memory");
    if ((r = _ak_bind(ctx)) == AK_OK) {
        _akT_ncclUniqueId u;
        int e;
        memcpy(&u, id->internal, sizeof u);
        e = ctx->api->ncclCommInitRank(&c->nccl, nranks, u, rank);
        _ak_unbind();
        if (e) r = _ak_ccl_err(ctx, NULL, e, "ncclCommInitRank");
    }
    if (r != AK_OK) { _ak_comm_free(c); return r; }
    *out = c;
    return AK_OK;
}
AKDEF ak_result ak_comm_init_rank(ak_context* ctx, int nranks, const ak_comm_id* id, int rank, ak_comm** out) {
    ak_result r;
    if (!out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_rank: out is NULL");
    *out = NULL;
    if ((r = _ak_comm_check_rank_args("ak_comm_init_rank", ctx, nranks, rank)) != AK_OK) return r;
    if (!id) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_rank: id is NULL");
    return ctx->bk->comm_init_rank(ctx, nranks, id, rank, out);
}

static ak_result _ak_cc_init_all(ak_context* const* ctxs, int n, ak_comm** comms) {
    _ak_cc_shared* sh = _ak_cc_shared_new(n);
    int i, j;
    if (!sh) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_comm_init_all: out of host memory");
    for (i = 0; i < n; i++) {
        if (!(comms[i] = _ak_cc_comm_new(ctxs[i], i, n))) break;
        comms[i]->shared = sh;
        sh->joined[i] = 1;
        sh->refs++;
    }
    if (i < n) {
        for (j = 0; j < i; j++) { ak_comm_destroy(comms[j]); comms[j] = NULL; }
        if (i == 0) _ak_cc_shared_release((sh->refs++, sh));
        return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_comm_init_all: out of host memory");
    }
    return AK_OK;
}
static ak_result _ak_ccl_init_all(ak_context* const* ctxs, int n, ak_comm** comms) {
    int i, j, e = 0;
    ak_result r = AK_OK;
    ak_comm_id id;
    _akT_ncclUniqueId u;
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            if (ctxs[j]->dev.device == ctxs[i]->dev.device)
                return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_all: contexts %d and %d are both on device %d; %s needs one "
                               "rank per GPU", j, i, ctxs[i]->dev.device, ctxs[0]->bk->ccl);
    for (i = 0; i < n; i++) if ((r = _ak_ccl_load(ctxs[i])) != AK_OK) return r;
    if ((r = ak_comm_get_unique_id(ctxs[0], &id)) != AK_OK) return r;
    memcpy(&u, id.internal, sizeof u);
    for (i = 0; i < n; i++)
        if (!(comms[i] = _ak_ccl_comm_new(ctxs[i], i, n))) { r = _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_comm_init_all: out of host memory"); break; }
    if (r == AK_OK) {
        _ak_api* a = ctxs[0]->api;
        if ((e = a->ncclGroupStart()) != 0) r = _ak_ccl_err(ctxs[0], NULL, e, "ncclGroupStart");
        for (i = 0; r == AK_OK && i < n; i++) {
            if ((r = _ak_bind(ctxs[i])) != AK_OK) break;
            if ((e = ctxs[i]->api->ncclCommInitRank(&comms[i]->nccl, n, u, i)) != 0) {
                char what[96];
                _ak_fmt(what, sizeof what, "ncclCommInitRank (rank %d, device %d)", i, ctxs[i]->dev.device);
                r = _ak_ccl_err(ctxs[i], NULL, e, what);
            }
        }
        if ((e = a->ncclGroupEnd()) != 0 && r == AK_OK) r = _ak_ccl_err(ctxs[0], NULL, e, "ncclGroupEnd (communicator initialization)");
        _ak_unbind();
    }
    if (r != AK_OK) {
        for (i = 0; i < n; i++) if (comms[i]) { if (comms[i]->nccl) ctxs[i]->api->ncclCommAbort(comms[i]->nccl); _ak_comm_free(comms[i]); comms[i] = NULL; }
        _ak_unbind();
        return r;
    }
    return AK_OK;
}
AKDEF ak_result ak_comm_init_all(ak_context* const* ctxs, int n, ak_comm** comms) {
    int i;
    if (!ctxs || !comms) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_all: ctxs or comms is NULL");
    if (n < 1 || n > 65536) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_all: %d contexts (1..65536)", n);
    for (i = 0; i < n; i++) comms[i] = NULL;
    for (i = 0; i < n; i++) {
        if (!ctxs[i]) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_all: context %d is NULL", i);
        if (ctxs[i]->backend != ctxs[0]->backend)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_init_all: context %d is on the %s backend, context 0 on %s", i,
                           ak_backend_name(ctxs[i]->backend), ak_backend_name(ctxs[0]->backend));
    }
    return ctxs[0]->bk->comm_init_all(ctxs, n, comms);
}

AKDEF void ak_comm_destroy(ak_comm* c) {
    if (!c) return;
    c->impl->destroy(c);
    _ak_comm_free(c);
}
AKDEF int ak_comm_rank(const ak_comm* c) { return c ? c->rank : -1; }
AKDEF int ak_comm_size(const ak_comm* c) { return c ? c->size : 0; }
AKDEF ak_context* ak_comm_context(const ak_comm* c) { return c ? c->ctx : NULL; }
AKDEF const char* ak_comm_library(const ak_comm* c) { return c ? c->library : ""; }

AKDEF ak_result ak_comm_group_start(void) {
    _ak_group* g = _ak_group_get();
    if (!g) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_comm_group_start: out of host memory");
    if (g->depth == 0) { g->err = AK_OK; g->msg[0] = 0; }
    g->depth++;
    return AK_OK;
}
AKDEF ak_result ak_comm_group_end(void) {
    _ak_group* g = _ak_group_get();
    int i;
    if (!g || g->depth == 0) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_comm_group_end without ak_comm_group_start");
    if (--g->depth > 0) return AK_OK;
    for (i = 0; i < g->n_ccl; i++) {
        int e = g->ccl[i]->ncclGroupEnd();
        if (e) {
            const char* s = g->ccl[i]->ncclGetErrorString ? g->ccl[i]->ncclGetErrorString(e) : "?";
            _ak_group_note_error(g, _ak_err(e == _AK_NCCL_INVALID_ARGUMENT || e == _AK_NCCL_INVALID_USAGE ? AK_ERROR_INVALID_ARGUMENT : AK_ERROR_DEVICE, "ncclGroupEnd failed: %s (%d)", s, e));
        }
    }
    g->n_ccl = 0;
    _ak_unbind();
    for (i = 0; i < g->n_waits; i++) {
        _ak_cc_wait w = g->waits[i];
        ak_result r = w.p2p == 1 ? _ak_cc_wait_p2p(w.sh, (_ak_cc_p2p*)w.ticket) : _ak_cc_wait_slot(w.sh, (_ak_cc_slot*)w.ticket, w.p2p - 2);
        _ak_group_note_error(g, r);
    }
    g->n_waits = 0;
    if (g->err != AK_OK) return _ak_err(g->err, "%s", g->msg);
    return AK_OK;
}

/* Shared argument checks of every collective; then the communicator's implementation. */
static ak_result _ak_coll_issue(const char* fn, ak_comm* c, const _ak_coll* o, ak_stream* s) {
    size_t es, bytes;
    ak_result r;
    _ak_group* g;
    if (!c) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: communicator is NULL", fn);
    if (o->t != AK_F32 && o->t != AK_F16 && o->t != AK_BF16 && o->t != AK_I32)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: dtype %s (collectives take f32, f16, bf16, i32)", fn, ak_dtype_name(o->t));
    if ((o->kind == _AK_CC_ALL_REDUCE || o->kind == _AK_CC_REDUCE_SCATTER) &&
        o->op != AK_REDUCE_SUM && o->op != AK_REDUCE_MEAN && o->op != AK_REDUCE_MAX && o->op != AK_REDUCE_MIN)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: reduction %s (collectives take sum, mean, max, min)", fn, ak_reduce_op_name(o->op));
    es = ak_dtype_size(o->t);
    if (o->count > (SIZE_MAX >> 2) / es / (size_t)c->size)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: count %zu is not a plausible size", fn, o->count);
    bytes = o->count * es;
    if (bytes) {
        int need_send = o->kind != _AK_CC_RECV && (o->kind != _AK_CC_BROADCAST || o->peer == c->rank);
        int need_recv = o->kind != _AK_CC_SEND;
        if ((need_send && !o->send) || (need_recv && !o->recv))
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %s buffer is NULL (count %zu)", fn, need_send && !o->send ? "send" : "receive", o->count);
    }
    if ((o->kind == _AK_CC_BROADCAST || o->kind == _AK_CC_SEND || o->kind == _AK_CC_RECV) && (o->peer < 0 || o->peer >= c->size))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %s %d of a communicator of %d ranks", fn, o->kind == _AK_CC_BROADCAST ? "root" : "peer",
                       o->peer, c->size);
    if (s && s->ctx != c->ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: the stream belongs to another context than rank %d's", fn, c->rank);
    r = c->impl->coll(c, o, s);
    g = _ak_group_get();
    if (r != AK_OK && g && g->depth > 0) _ak_group_note_error(g, r);
    return r;
}
AKDEF ak_result ak_all_reduce(ak_comm* c, ak_reduce_op op, ak_dtype dtype, const void* send, void* recv, size_t count, ak_stream* stream) {
    _ak_coll o;
    memset(&o, 0, sizeof o);
    o.kind = _AK_CC_ALL_REDUCE; o.op = op; o.t = dtype; o.send = send; o.recv = recv; o.count = count;
    return _ak_coll_issue("ak_all_reduce", c, &o, stream);
}
AKDEF ak_result ak_all_gather(ak_comm* c, ak_dtype dtype, const void* send, void* recv, size_t send_count, ak_stream* stream) {
    _ak_coll o;
    memset(&o, 0, sizeof o);
    o.kind = _AK_CC_ALL_GATHER; o.t = dtype; o.send = send; o.recv = recv; o.count = send_count;
    return _ak_coll_issue("ak_all_gather", c, &o, stream);
}
AKDEF ak_result ak_reduce_scatter(ak_comm* c, ak_reduce_op op, ak_dtype dtype, const void* send, void* recv, size_t recv_count, ak_stream* stream) {
    _ak_coll o;
    memset(&o, 0, sizeof o);
    o.kind = _AK_CC_REDUCE_SCATTER; o.op = op; o.t = dtype; o.send = send; o.recv = recv; o.count = recv_count;
    return _ak_coll_issue("ak_reduce_scatter", c, &o, stream);
}
AKDEF ak_result ak_broadcast(ak_comm* c, ak_dtype dtype, const void* send, void* recv, size_t count, int root, ak_stream* stream) {
    _ak_coll o;
    memset(&o, 0, sizeof o);
    o.kind = _AK_CC_BROADCAST; o.t = dtype; o.send = send; o.recv = recv; o.count = count; o.peer = root;
    return _ak_coll_issue("ak_broadcast", c, &o, stream);
}
AKDEF ak_result ak_send(ak_comm* c, ak_dtype dtype, const void* send, size_t count, int peer, ak_stream* stream) {
    _ak_coll o;
    memset(&o, 0, sizeof o);
    o.kind = _AK_CC_SEND; o.t = dtype; o.send = send; o.count = count; o.peer = peer;
    return _ak_coll_issue("ak_send", c, &o, stream);
}
AKDEF ak_result ak_recv(ak_comm* c, ak_dtype dtype, void* recv, size_t count, int peer, ak_stream* stream) {
    _ak_coll o;
    memset(&o, 0, sizeof o);
    o.kind = _AK_CC_RECV; o.t = dtype; o.recv = recv; o.count = count; o.peer = peer;
    return _ak_coll_issue("ak_recv", c, &o, stream);
}

/* ==========================================================================
 * >>impl:kernels  (the kernel library: host wrappers and CPU references)
 * ========================================================================== */
AKDEF const char* ak_prelude_source(void) { return _ak_src_prelude; }
AKDEF const char* ak_reduce_op_name(ak_reduce_op op) {
    static const char* n[] = { "sum", "mean", "max", "min", "argmax", "argmin" };
    if ((int)op < 0 || (int)op >= (int)AK_REDUCE_OP_COUNT) return "?";
    return n[op];
}
#ifdef AMDKIT_NO_OPS
static void _ak_ops_destroy(ak_context* ctx) { (void)ctx; }
#else
/* ==========================================================================
 * >>impl:ops  common code of the kernel library : the per-context kernel
 * memo, argument checks, launch-size helpers, host element access for the
 * CPU references, and the accessors of the embedded sources.
 *
 * How an op uses it (every wrapper follows the same shape; adding a kernel:
 * write it in kernels/<family>.hip, run `make gen` (tools/akgen.c embeds it and
 * generates its packer from its parameter list), then launch it like this):
 *
 *     ak_result r = _ak_op_check_ctx(ctx, "ak_axpy");  then dtype / pointer /
 *     size checks (_ak_op_check_float, _ak_op_check_ptr, _ak_op_check_count);
 *     if (_ak_op_is_cpu(ctx)) { reference in plain C on host pointers; return AK_OK; }
 *     _ak_op_kernel(ctx, _ak_src_elementwise, "ak_axpy_f32", &k);
 *     _ak_kargs a; _ak_kargs_axpy(&a, n, alpha, x, y);   (the generated packer of
 *         the kernel's interface: tools/akgen.c writes one per parameter list)
 *     return _ak_op_launch(ctx, k, _ak_op_grid(ctx, work, 256), 256, 0, stream, &a);
 * Row-chunked ops (>>impl:ops-reduce) launch through _ak_rd_launch_rows.
 * ========================================================================== */

/* One memoized kernel: (source pointer, kernel name) -> handle owned by the memo. */
typedef struct _ak_ops_entry {
    const char* source;   /* identity of the source (the embedded string's address) */
    char name[96];
    ak_kernel* kernel;
} _ak_ops_entry;

struct _ak_ops {
    _ak_mutex lock;       /* guards entries */
    _ak_ops_entry* entries;
    int count, cap;
    int last;             /* index of the last hit (repeat launches of one op are the common case) */
};

/* Created lazily under ctx->lock; NULL when out of memory. */
static struct _ak_ops* _ak_ops_get(ak_context* ctx) {
    struct _ak_ops* ops;
    _ak_mutex_lock(&ctx->lock);
    ops = ctx->ops;
    if (!ops) {
        ops = (struct _ak_ops*)_ak_calloc(sizeof *ops);
        if (ops) {
            _ak_mutex_init(&ops->lock);
            ctx->ops = ops;
        }
    }
    _ak_mutex_unlock(&ctx->lock);
    return ops;
}

/* Release every memoized kernel (called by ak_context_destroy before the
 * modules and the backend go away). NULL-safe, idempotent. */
static void _ak_ops_destroy(ak_context* ctx) {
    struct _ak_ops* ops;
    int i;
    if (!ctx || !ctx->ops) return;
    ops = ctx->ops;
    for (i = 0; i < ops->count; i++) ak_kernel_release(ops->entries[i].kernel);
    _ak_dealloc(ops->entries);
    _ak_mutex_destroy(&ops->lock);
    _ak_dealloc(ops);
    ctx->ops = NULL;
}

static int _ak_ops_find(struct _ak_ops* ops, const char* source, const char* name) {
    int i;
    if (ops->last < ops->count && ops->entries[ops->last].source == source &&
        strcmp(ops->entries[ops->last].name, name) == 0)
        return ops->last;
    for (i = 0; i < ops->count; i++)
        if (ops->entries[i].source == source && strcmp(ops->entries[i].name, name) == 0) return i;
    return -1;
}

/* The kernel `name` of the embedded source `source` for ctx's device, compiled
 * once per context (ak_kernel_get does the caching and single-flight; the memo
 * only saves the lookup). The handle stays owned by the memo: do not release.
 * The compile runs with no lock of ours held. */
static ak_result _ak_op_kernel_at(ak_context* ctx, const char* source, const char* name, const char* target, ak_kernel** out);
static ak_result _ak_op_kernel(ak_context* ctx, const char* source, const char* name, ak_kernel** out) {
    return _ak_op_kernel_at(ctx, source, name, NULL, out);
}
/* The generated interface of an embedded kernel (_ak_kernel_ifaces), 0 when
 * it has none. */
static int _ak_op_kernel_iface(const char* kname) {
    size_t i;
    for (i = 0; i < sizeof _ak_kernel_ifaces / sizeof _ak_kernel_ifaces[0]; i++)
        if (strcmp(_ak_kernel_ifaces[i].kernel, kname) == 0) return _ak_kernel_ifaces[i].iface;
    return 0;
}
/* _ak_op_kernel compiled for an explicit target (NULL: the context's); the
 * memo keys it as "target/name". Each kernel gets its interface (k->iface). */
static ak_result _ak_op_kernel_at(ak_context* ctx, const char* source, const char* kname, const char* target,
                                  ak_kernel** out) {
    struct _ak_ops* ops;
    ak_kernel* k = NULL;
    ak_result r;
    int i;
    char keyname[96];
    const char* name = kname;
    if (out) *out = NULL;
    if (!ctx || !source || !kname || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "_ak_op_kernel: NULL argument");
    if (target) {
        snprintf(keyname, sizeof keyname, "%s/%s", target, kname);
        name = keyname;
    }
    if (strlen(name) >= sizeof(((_ak_ops_entry*)0)->name))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "kernel name '%s' too long", name);
    ops = _ak_ops_get(ctx);
    if (!ops) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "kernel library state: out of host memory");
    _ak_mutex_lock(&ops->lock);
    i = _ak_ops_find(ops, source, name);
    if (i >= 0) {
        ops->last = i;
        *out = ops->entries[i].kernel;
        _ak_mutex_unlock(&ops->lock);
        return AK_OK;
    }
    _ak_mutex_unlock(&ops->lock);

    r = _ak_kernel_get_at(ctx, target, source, kname, NULL, &k);
    if (r != AK_OK) return r;
    if ((k->iface = _ak_op_kernel_iface(kname)) == 0) {
        ak_kernel_release(k);
        return _ak_err(AK_ERROR_NOT_FOUND, "kernel library: kernel %s has no generated interface (tools/akgen.c)", kname);
    }

    _ak_mutex_lock(&ops->lock);
    i = _ak_ops_find(ops, source, name);
    if (i >= 0) { /* another thread got it meanwhile: keep theirs */
        *out = ops->entries[i].kernel;
        _ak_mutex_unlock(&ops->lock);
        ak_kernel_release(k);
        return AK_OK;
    }
    if (ops->count == ops->cap) {
        int nc = ops->cap ? ops->cap * 2 : 32;
        _ak_ops_entry* ne = (_ak_ops_entry*)_ak_realloc(ops->entries, (size_t)nc * sizeof *ne);
        if (!ne) {
            _ak_mutex_unlock(&ops->lock);
            ak_kernel_release(k);
            return _ak_err(AK_ERROR_OUT_OF_MEMORY, "kernel library state: out of host memory");
        }
        ops->entries = ne;
        ops->cap = nc;
    }
    ops->entries[ops->count].source = source;
    _ak_copy(ops->entries[ops->count].name, sizeof ops->entries[ops->count].name, name);
    ops->entries[ops->count].kernel = k;
    ops->last = ops->count;
    ops->count++;
    *out = k;
    _ak_mutex_unlock(&ops->lock);
    return AK_OK;
}

/* 1 when ctx runs on the cpu backend (pointers are host memory; the wrappers
 * run their C reference directly). */
static int _ak_op_is_cpu(ak_context* ctx) { return ctx && ctx->bk->host_memory; }

/* NULL context check with the op's name in the message. */
static ak_result _ak_op_check_ctx(const ak_context* ctx, const char* op) {
    if (!ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", op);
    return AK_OK;
}

/* dtype must be one of the storage types of the float kernels (f32, f16, bf16). */
static ak_result _ak_op_check_float(ak_dtype t, const char* what) {
    if (t == AK_F32 || t == AK_F16 || t == AK_BF16) return AK_OK;
    return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: dtype %s (%d) not supported, expected f32, f16 or bf16",
                   what, ak_dtype_name(t), (int)t);
}

/* p must be non-NULL and aligned to the element size of t. */
static ak_result _ak_op_check_ptr(const void* p, ak_dtype t, const char* what) {
    size_t es = ak_dtype_size(t);
    if (!p) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s is NULL", what);
    if (es == 0) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", what, (int)t);
    if (((uintptr_t)p) % es)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s = %p is not aligned to %zu bytes (dtype %s)", what, p, es,
                       ak_dtype_name(t));
    return AK_OK;
}

/* Largest buffer an op accepts: bytes must fit in ptrdiff_t (and the kernels'
 * int64 indexing) and, where the device size is known, in device memory. */
static ak_result _ak_op_check_bytes(ak_context* ctx, size_t count, ak_dtype t, const char* what) {
    size_t es = ak_dtype_size(t);
    if (es == 0) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", what, (int)t);
    /* what ak_context_probe learned: a device whose fp16 / bf16 probe failed gets no such kernel (-1: not probed) */
    if (ctx && ((t == AK_F16 && ctx->dev.fp16 == 0) || (t == AK_BF16 && ctx->dev.bf16 == 0)))
        return _ak_err(AK_ERROR_DEVICE, "%s: %s is not usable on %s (%s): its %s probe failed (ak_context_probe compiled and "
                       "ran a conversion kernel and got a wrong result or an error); use f32", what, ak_dtype_name(t),
                       ctx->dev.name, ctx->dev.arch, ak_dtype_name(t));
    if (count > (size_t)PTRDIFF_MAX / es)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %zu elements of %s overflow the address space", what, count,
                       ak_dtype_name(t));
    if (ctx && !_ak_op_is_cpu(ctx) && ctx->dev.mem_total && count * es > ctx->dev.mem_total)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %zu elements of %s (%zu bytes) exceed device memory (%zu bytes)",
                       what, count, ak_dtype_name(t), count * es, ctx->dev.mem_total);
    return AK_OK;
}

/* Element count: non-zero and not huge (see _ak_op_check_bytes). */
static ak_result _ak_op_check_count(ak_context* ctx, size_t n, ak_dtype t, const char* what) {
    if (n == 0) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: size is 0 (expected >= 1)", what);
    return _ak_op_check_bytes(ctx, n, t, what);
}

/* rows x cols: both non-zero, product without overflow, not huge. */
static ak_result _ak_op_check_shape2(ak_context* ctx, size_t rows, size_t cols, ak_dtype t, const char* what) {
    if (rows == 0 || cols == 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: shape %zu x %zu has a zero dimension", what, rows, cols);
    if (rows > SIZE_MAX / cols)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: shape %zu x %zu overflows", what, rows, cols);
    return _ak_op_check_bytes(ctx, rows * cols, t, what);
}

/* Compute units (CUs / SMs): the device's, else the arch row's, else 64. */
static int _ak_op_cus(const ak_context* ctx) {
    if (ctx->dev.compute_units > 0) return ctx->dev.compute_units;
    if (ctx->dev.arch_info && ctx->dev.arch_info->compute_units > 0) return ctx->dev.arch_info->compute_units;
    return 64;
}

/* Effective optimization level (AUTO resolves to the arch recommendation, else balanced). */
static ak_opt_level _ak_op_opt(const ak_context* ctx) {
    ak_opt_level o = ctx->cfg.opt_level;
    if (o == AK_OPT_AUTO) o = ctx->dev.arch_info ? ctx->dev.arch_info->rec_opt_level : AK_OPT_BALANCED;
    if (o == AK_OPT_AUTO) o = AK_OPT_BALANCED;
    return o;
}

/* Grid size of a grid-stride kernel: enough blocks to cover `work` items of
 * `per_block` each in one pass; at least 1, at most 2^31 - 1. */
static unsigned _ak_op_grid(const ak_context* ctx, size_t work, size_t per_block) {
    /* One pass over the work: measured on the H100 (copy, relu, 256M
     * elements), a grid capped at 8 blocks per SM with the kernels'
     * grid-stride loop reached 93.7% of the copy bandwidth, 16/SM 94.4%,
     * 64/SM 95.8%, and one block per 256 x 8 elements 99.6%: blocks that
     * finish early leave no tail when the hardware schedules many small ones.
     * The kernels keep their grid-stride loops, so the 2^31 cap stays correct. */
    size_t need;
    (void)ctx;
    if (per_block == 0) per_block = 1;
    need = work / per_block + (work % per_block != 0);
    if (need < 1) need = 1;
    if (need > 0x7FFFFFFFu) need = 0x7FFFFFFFu;
    return (unsigned)need;
}

/* Launch k (from _ak_op_kernel) with a 3-D grid/block and the arguments of a
 * generated packer: the packer's interface must be the kernel's (an op that
 * launches a kernel with another kernel's arguments gets AK_ERROR_LAUNCH, not a
 * wrong launch). */
static ak_result _ak_op_launch3(ak_context* ctx, ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shmem,
                                ak_stream* s, _ak_kargs* a) {
    (void)ctx;
    if (a->iface != k->iface || a->iface <= 0 || a->iface >= _AK_KIF_COUNT)
        return _ak_err(AK_ERROR_LAUNCH, "kernel library: %s launched with the arguments of interface '%s', its interface is '%s'",
                       k->name, a->iface > 0 && a->iface < _AK_KIF_COUNT ? _ak_kif_names[a->iface] : "?",
                       k->iface > 0 && k->iface < _AK_KIF_COUNT ? _ak_kif_names[k->iface] : "none");
    if (a->a.error) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "kernel launch: too many arguments (max %d)", AK_MAX_ARGS);
    if (grid.x == 0 || grid.y == 0 || grid.z == 0) return AK_OK; /* nothing to do */
    return ak_launch(k, grid, block, shmem, s, ak_args_params(&a->a));
}

/* Launch k on a 1-D grid. */
static ak_result _ak_op_launch(ak_context* ctx, ak_kernel* k, unsigned grid, unsigned block, size_t shmem,
                               ak_stream* s, _ak_kargs* a) {
    ak_dim3 g, b;
    g.x = grid; g.y = 1; g.z = 1;
    b.x = block; b.y = 1; b.z = 1;
    return _ak_op_launch3(ctx, k, g, b, shmem, s, a);
}

/* Kernel name "<base>_<dtype>" (ak_axpy + f16 -> "ak_axpy_f16") into buf. */
static const char* _ak_op_name(char* buf, size_t cap, const char* base, ak_dtype t) {
    snprintf(buf, cap, "%s_%s", base, ak_dtype_name(t));
    return buf;
}

/* Host element access for the CPU references (f32 / f16 / bf16 storage,
 * rounding to nearest even on store, like the device conversions). */
static float _ak_op_ld(const void* p, ak_dtype t, size_t i) {
    switch (t) {
    case AK_F32: return ((const float*)p)[i];
    case AK_F16: return ak_f16_to_f32(((const uint16_t*)p)[i]);
    case AK_BF16: return ak_bf16_to_f32(((const uint16_t*)p)[i]);
    default: return (float)ak_elem_get(p, t, i);
    }
}
static void _ak_op_st(void* p, ak_dtype t, size_t i, float v) {
    switch (t) {
    case AK_F32: ((float*)p)[i] = v; break;
    case AK_F16: ((uint16_t*)p)[i] = ak_f32_to_f16(v); break;
    case AK_BF16: ((uint16_t*)p)[i] = ak_f32_to_bf16(v); break;
    default: ak_elem_set(p, t, i, (double)v); break;
    }
}

/* Stream argument: a stream of another context is an error. */
static ak_result _ak_op_check_stream(const ak_context* ctx, const ak_stream* s, const char* op) {
    if (s && s->ctx != ctx) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: stream belongs to another context", op);
    return AK_OK;
}

/* Buffers [a, a + abytes) and [b, b + bbytes) must not overlap, except that
 * they may be the very same buffer when allow_same (an in-place op). */
static ak_result _ak_op_check_overlap(const void* a, size_t abytes, const void* b, size_t bbytes,
                                                 int allow_same, const char* what) {
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    if (allow_same && pa == pb && abytes == bbytes) return AK_OK;
    if (pa < pb + bbytes && pb < pa + abytes)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: buffers overlap (%p + %zu bytes and %p + %zu bytes)%s", what, a,
                       abytes, b, bbytes, allow_same ? "; only the very same buffer is allowed" : "");
    return AK_OK;
}

/* ---- embedded kernel sources (the table is generated by `make gen`) ------ */
AKDEF int ak_embedded_count(void) { return (int)(sizeof _ak_embedded / sizeof _ak_embedded[0]); }

AKDEF ak_result ak_embedded_at(int i, const char** family, const char** source, const char** kernel_names) {
    if (i < 0 || i >= ak_embedded_count())
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_embedded_at: index %d out of range [0, %d)", i,
                       ak_embedded_count());
    if (family) *family = _ak_embedded[i].family;
    if (source) *source = _ak_embedded[i].source;
    if (kernel_names) *kernel_names = _ak_embedded[i].kernels;
    return AK_OK;
}

/* ==========================================================================
 * >>impl:ops-elementwise  fill, copy, cast, axpy, scale, binary ops, unary
 * activations, transpose . Kernels: kernels/elementwise.hip,
 * kernels/cast.hip, kernels/activation.hip, kernels/transpose.hip (embedded
 * as _ak_src_<family>). Each public op validates, then either runs its C
 * reference (cpu backend: host pointers) or launches its kernel.
 * ========================================================================== */

#define _AK_EW_BLOCK 256u   /* threads per block of the 1-D kernels (a multiple of 32 and 64) */

AKDEF const char* ak_unary_op_name(ak_unary_op op) {
    static const char* n[] = { "relu", "leaky_relu", "sigmoid", "tanh", "silu", "gelu", "gelu_tanh" };
    if ((int)op < 0 || (int)op >= (int)AK_UNARY_OP_COUNT) return "?";
    return n[op];
}
AKDEF const char* ak_binary_op_name(ak_binary_op op) {
    static const char* n[] = { "add", "sub", "mul", "div" };
    if ((int)op < 0 || (int)op >= (int)AK_BINARY_OP_COUNT) return "?";
    return n[op];
}

/* Checks every 1-D op starts with: ctx, dtype, n, stream. */
static ak_result _ak_ew_check(ak_context* ctx, ak_dtype t, size_t n, ak_stream* s, const char* op) {
    ak_result r = _ak_op_check_ctx(ctx, op);
    if (r == AK_OK) r = _ak_op_check_float(t, op);
    if (r == AK_OK) r = _ak_op_check_count(ctx, n, t, op);
    if (r == AK_OK) r = _ak_op_check_stream(ctx, s, op);
    return r;
}

/* Get the kernel `<base>_<dtype>` of `src` and launch it over `units` work
 * items (chunks of 8 elements for the map kernels), 1-D grid-stride. */
static ak_result _ak_ew_launch(ak_context* ctx, const char* src, const char* kname, size_t units, ak_stream* s,
                               _ak_kargs* a) {
    ak_kernel* k = NULL;
    ak_result r = _ak_op_kernel(ctx, src, kname, &k);
    if (r != AK_OK) return r;
    return _ak_op_launch(ctx, k, _ak_op_grid(ctx, units, _AK_EW_BLOCK), _AK_EW_BLOCK, 0, s, a);
}

static size_t _ak_ew_chunks(size_t n) { return n / 8 + (n % 8 != 0); }

/* ---- CPU references ----------------------------------------------------- */
static double _ak_ew_unary_ref(ak_unary_op op, double x, double p) {
    switch (op) {
    case AK_OP_RELU: return x < 0.0 ? 0.0 : x;
    case AK_OP_LEAKY_RELU: return x < 0.0 ? x * p : x;
    case AK_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case AK_OP_TANH: return tanh(x);
    case AK_OP_SILU: return x / (1.0 + exp(-x));
    case AK_OP_GELU: return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
    case AK_OP_GELU_TANH: return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
    default: return x;
    }
}
static double _ak_ew_binary_ref(ak_binary_op op, double a, double b) {
    switch (op) {
    case AK_OP_ADD: return a + b;
    case AK_OP_SUB: return a - b;
    case AK_OP_MUL: return a * b;
    default: return a / b;
    }
}

/* ---- fill --------------------------------------------------------------- */
AKDEF ak_result ak_fill(ak_context* ctx, ak_dtype dtype, void* y, size_t n, float value, ak_stream* stream) {
    ak_result r = _ak_ew_check(ctx, dtype, n, stream, "ak_fill");
    char kn[64];
    _ak_kargs a;
    if (r == AK_OK) r = _ak_op_check_ptr(y, dtype, "ak_fill: y");
    if (r != AK_OK) return r;
    if (_ak_op_is_cpu(ctx)) {
        size_t i;
        if (dtype == AK_F32) {
            float* p = (float*)y;
            for (i = 0; i < n; i++) p[i] = value;
        } else {
            uint16_t v = dtype == AK_F16 ? ak_f32_to_f16(value) : ak_f32_to_bf16(value);
            uint16_t* p = (uint16_t*)y;
            for (i = 0; i < n; i++) p[i] = v;
        }
        return AK_OK;
    }
    _ak_kargs_fill(&a, y, (int64_t)n, value);
    return _ak_ew_launch(ctx, _ak_src_elementwise, _ak_op_name(kn, sizeof kn, "ak_fill", dtype), _ak_ew_chunks(n),
                         stream, &a);
}

/* ---- copy and cast ------------------------------------------------------- */
AKDEF ak_result ak_copy(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t n, ak_stream* stream) {
    ak_result r = _ak_ew_check(ctx, dtype, n, stream, "ak_copy");
    size_t bytes;
    char kn[64];
    _ak_kargs a;
    if (r == AK_OK) r = _ak_op_check_ptr(x, dtype, "ak_copy: x");
    if (r == AK_OK) r = _ak_op_check_ptr(y, dtype, "ak_copy: y");
    if (r != AK_OK) return r;
    bytes = n * ak_dtype_size(dtype);
    r = _ak_op_check_overlap(x, bytes, y, bytes, 1, "ak_copy");
    if (r != AK_OK) return r;
    if (x == y) return AK_OK;
    if (_ak_op_is_cpu(ctx)) {
        memcpy(y, x, bytes);
        return AK_OK;
    }
    _ak_kargs_copy(&a, x, y, (int64_t)n);
    /* work items: 32 bytes (two 16-byte vectors) per thread step */
    return _ak_ew_launch(ctx, _ak_src_cast, _ak_op_name(kn, sizeof kn, "ak_copy", dtype), bytes / 32 + 1, stream,
                         &a);
}

AKDEF ak_result ak_cast(ak_context* ctx, ak_dtype src_dtype, const void* x, ak_dtype dst_dtype, void* y, size_t n,
                        ak_stream* stream) {
    ak_result r = _ak_ew_check(ctx, src_dtype, n, stream, "ak_cast (source)");
    char kn[64];
    _ak_kargs a;
    if (r == AK_OK) r = _ak_op_check_float(dst_dtype, "ak_cast (destination)");
    if (r == AK_OK) r = _ak_op_check_count(ctx, n, dst_dtype, "ak_cast (destination)");
    if (r == AK_OK) r = _ak_op_check_ptr(x, src_dtype, "ak_cast: x");
    if (r == AK_OK) r = _ak_op_check_ptr(y, dst_dtype, "ak_cast: y");
    if (r != AK_OK) return r;
    if (src_dtype == dst_dtype) return ak_copy(ctx, src_dtype, x, y, n, stream);
    r = _ak_op_check_overlap(x, n * ak_dtype_size(src_dtype), y, n * ak_dtype_size(dst_dtype), 0, "ak_cast");
    if (r != AK_OK) return r;
    if (_ak_op_is_cpu(ctx)) {
        size_t i;
        for (i = 0; i < n; i++) _ak_op_st(y, dst_dtype, i, _ak_op_ld(x, src_dtype, i));
        return AK_OK;
    }
    snprintf(kn, sizeof kn, "ak_cast_%s_%s", ak_dtype_name(src_dtype), ak_dtype_name(dst_dtype));
    _ak_kargs_cast(&a, x, y, (int64_t)n);
    return _ak_ew_launch(ctx, _ak_src_cast, kn, _ak_ew_chunks(n), stream, &a);
}

/* ---- axpy and scale -------------------------------------------------------- */
/* y = alpha * x + (with_y ? y : 0) */
static ak_result _ak_ew_axpby(ak_context* ctx, ak_dtype dtype, size_t n, float alpha, const void* x, void* y,
                              ak_stream* stream, int with_y, const char* op) {
    ak_result r = _ak_ew_check(ctx, dtype, n, stream, op);
    char kn[64], what[64];
    _ak_kargs a;
    size_t bytes;
    if (r == AK_OK) r = _ak_op_check_ptr(x, dtype, (snprintf(what, sizeof what, "%s: x", op), what));
    if (r == AK_OK) r = _ak_op_check_ptr(y, dtype, (snprintf(what, sizeof what, "%s: y", op), what));
    if (r != AK_OK) return r;
    bytes = n * ak_dtype_size(dtype);
    r = _ak_op_check_overlap(x, bytes, y, bytes, 1, op);
    if (r != AK_OK) return r;
    if (_ak_op_is_cpu(ctx)) {
        size_t i;
        for (i = 0; i < n; i++) {
            double v = (double)alpha * (double)_ak_op_ld(x, dtype, i);
            if (with_y) v += (double)_ak_op_ld(y, dtype, i);
            _ak_op_st(y, dtype, i, (float)v);
        }
        return AK_OK;
    }
    if (with_y) _ak_kargs_axpy(&a, (int64_t)n, alpha, x, y);
    else _ak_kargs_scale(&a, (int64_t)n, alpha, x, y);
    return _ak_ew_launch(ctx, _ak_src_elementwise, _ak_op_name(kn, sizeof kn, with_y ? "ak_axpy" : "ak_scale", dtype),
                         _ak_ew_chunks(n), stream, &a);
}
AKDEF ak_result ak_axpy(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t n, float alpha,
                        ak_stream* stream) {
    return _ak_ew_axpby(ctx, dtype, n, alpha, x, y, stream, 1, "ak_axpy");
}
AKDEF ak_result ak_scale(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t n, float alpha,
                         ak_stream* stream) {
    return _ak_ew_axpby(ctx, dtype, n, alpha, x, y, stream, 0, "ak_scale");
}

/* ---- binary ops ------------------------------------------------------------ */
AKDEF ak_result ak_binary(ak_context* ctx, ak_binary_op op, ak_dtype dtype, const void* x, const void* y, void* z,
                          size_t n, ak_stream* stream) {
    ak_result r = _ak_ew_check(ctx, dtype, n, stream, "ak_binary");
    char kn[64];
    _ak_kargs a;
    size_t bytes;
    if (r != AK_OK) return r;
    if ((int)op < 0 || (int)op >= (int)AK_BINARY_OP_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_binary: op %d is not an ak_binary_op (0..%d)", (int)op,
                       (int)AK_BINARY_OP_COUNT - 1);
    r = _ak_op_check_ptr(x, dtype, "ak_binary: x");
    if (r == AK_OK) r = _ak_op_check_ptr(y, dtype, "ak_binary: y");
    if (r == AK_OK) r = _ak_op_check_ptr(z, dtype, "ak_binary: z");
    if (r != AK_OK) return r;
    bytes = n * ak_dtype_size(dtype);
    r = _ak_op_check_overlap(x, bytes, z, bytes, 1, "ak_binary (x and z)");
    if (r == AK_OK) r = _ak_op_check_overlap(y, bytes, z, bytes, 1, "ak_binary (y and z)");
    if (r != AK_OK) return r;
    if (_ak_op_is_cpu(ctx)) {
        size_t i;
        for (i = 0; i < n; i++)
            _ak_op_st(z, dtype, i,
                      (float)_ak_ew_binary_ref(op, (double)_ak_op_ld(x, dtype, i), (double)_ak_op_ld(y, dtype, i)));
        return AK_OK;
    }
    _ak_kargs_binary(&a, x, y, z, (int64_t)n, (int32_t)op);
    return _ak_ew_launch(ctx, _ak_src_elementwise, _ak_op_name(kn, sizeof kn, "ak_binary", dtype), _ak_ew_chunks(n),
                         stream, &a);
}
AKDEF ak_result ak_add(ak_context* ctx, ak_dtype dtype, const void* x, const void* y, void* z, size_t n,
                       ak_stream* stream) {
    return ak_binary(ctx, AK_OP_ADD, dtype, x, y, z, n, stream);
}
AKDEF ak_result ak_mul(ak_context* ctx, ak_dtype dtype, const void* x, const void* y, void* z, size_t n,
                       ak_stream* stream) {
    return ak_binary(ctx, AK_OP_MUL, dtype, x, y, z, n, stream);
}

/* ---- unary activations ------------------------------------------------------ */
AKDEF ak_result ak_unary(ak_context* ctx, ak_unary_op op, ak_dtype dtype, const void* x, void* y, size_t n,
                         float param, ak_stream* stream) {
    ak_result r = _ak_ew_check(ctx, dtype, n, stream, "ak_unary");
    char kn[64];
    _ak_kargs a;
    size_t bytes;
    if (r != AK_OK) return r;
    if ((int)op < 0 || (int)op >= (int)AK_UNARY_OP_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_unary: op %d is not an ak_unary_op (0..%d)", (int)op,
                       (int)AK_UNARY_OP_COUNT - 1);
    r = _ak_op_check_ptr(x, dtype, "ak_unary: x");
    if (r == AK_OK) r = _ak_op_check_ptr(y, dtype, "ak_unary: y");
    if (r != AK_OK) return r;
    bytes = n * ak_dtype_size(dtype);
    r = _ak_op_check_overlap(x, bytes, y, bytes, 1, "ak_unary");
    if (r != AK_OK) return r;
    if (_ak_op_is_cpu(ctx)) {
        size_t i;
        for (i = 0; i < n; i++)
            _ak_op_st(y, dtype, i, (float)_ak_ew_unary_ref(op, (double)_ak_op_ld(x, dtype, i), (double)param));
        return AK_OK;
    }
    _ak_kargs_unary(&a, x, y, (int64_t)n, (int32_t)op, param);
    return _ak_ew_launch(ctx, _ak_src_activation, _ak_op_name(kn, sizeof kn, "ak_unary", dtype), _ak_ew_chunks(n),
                         stream, &a);
}

/* ---- transpose -------------------------------------------------------------- */
AKDEF ak_result ak_transpose(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t rows, size_t cols,
                             ak_stream* stream) {
    ak_result r = _ak_op_check_ctx(ctx, "ak_transpose");
    ak_kernel* k = NULL;
    _ak_kargs a;
    ak_dim3 g, b;
    size_t es, bytes, tiles;
    char kn[64];
    if (r == AK_OK) r = _ak_op_check_float(dtype, "ak_transpose");
    if (r == AK_OK) r = _ak_op_check_shape2(ctx, rows, cols, dtype, "ak_transpose");
    if (r == AK_OK) r = _ak_op_check_stream(ctx, stream, "ak_transpose");
    if (r == AK_OK) r = _ak_op_check_ptr(x, dtype, "ak_transpose: x");
    if (r == AK_OK) r = _ak_op_check_ptr(y, dtype, "ak_transpose: y");
    if (r != AK_OK) return r;
    es = ak_dtype_size(dtype);
    bytes = rows * cols * es;
    r = _ak_op_check_overlap(x, bytes, y, bytes, 0, "ak_transpose (in-place transpose is not supported)");
    if (r != AK_OK) return r;
    if (_ak_op_is_cpu(ctx)) {
        /* 32 x 32 blocks so both sides stay in cache; bit copies, no conversion */
        size_t r0, c0, i, j;
        for (r0 = 0; r0 < rows; r0 += 32)
            for (c0 = 0; c0 < cols; c0 += 32) {
                size_t r1 = r0 + 32 < rows ? r0 + 32 : rows, c1 = c0 + 32 < cols ? c0 + 32 : cols;
                if (es == 4) {
                    for (i = r0; i < r1; i++)
                        for (j = c0; j < c1; j++) ((float*)y)[j * rows + i] = ((const float*)x)[i * cols + j];
                } else {
                    for (i = r0; i < r1; i++)
                        for (j = c0; j < c1; j++) ((uint16_t*)y)[j * rows + i] = ((const uint16_t*)x)[i * cols + j];
                }
            }
        return AK_OK;
    }
    /* a vector (rows or cols 1) is its own transpose: one device copy, no kernel (torch
     * returns a view there; amdkit's y is a separate tensor; h100 sweep 2026-11-23: the tile
     * kernel took 4.1-10 us on these shapes, walking 1-element tile rows) */
    if (rows == 1 || cols == 1) return ak_memcpy_async(ctx, y, x, bytes, AK_D2D, stream);
    r = _ak_op_kernel(ctx, _ak_src_transpose, _ak_op_name(kn, sizeof kn, "ak_transpose", dtype), &k);
    if (r != AK_OK) return r;
    _ak_kargs_transpose(&a, x, y, (int64_t)rows, (int64_t)cols);
    /* 64 x 64 tiles of kernels/transpose.hip, one block of 32 x 8 threads per tile (a
     * grid capped at CUs x 8 with blocks looping measured 5-10% slower on H100); the
     * kernel loops over tiles beyond the 1-D grid limit */
    tiles = ((rows + 63) / 64) * ((cols + 63) / 64);
    g.x = tiles > 0x7FFFFFFFu ? 0x7FFFFFFFu : (unsigned)tiles; g.y = 1; g.z = 1;
    b.x = 32; b.y = 8; b.z = 1;
    return _ak_op_launch3(ctx, k, g, b, 0, stream, &a);
}
/* ==========================================================================
 * >>impl:ops-reduce  reductions (sum, mean, max, min, argmax, argmin),
 * softmax / log_softmax, layernorm / rmsnorm, cross-entropy . Kernels:
 * kernels/reduce.hip, kernels/softmax.hip, kernels/norm.hip, kernels/xent.hip
 * (embedded as _ak_src_<family>; each file's top comment explains its paths).
 * Every public op validates, then runs its C reference (cpu backend: host
 * pointers, double accumulation) or picks launch parameters from the device
 * (wave size, compute units, opt level) and launches.
 * ========================================================================== */

#define _AK_RD_BLOCK 256u          /* threads per block of the reduce / split kernels */
#define _AK_RD_ROW_MAX 16384u      /* widest row kept in registers by ak_softmax_<dt> / ak_norm_<dt> */
#define _AK_RD_SPLIT_E 32u         /* elements per thread of ak_softmax_split_<dt> */
#define _AK_RD_MAX_THREADS 0x40000000u        /* cap of grid x block per launch (AMD: < 2^32 work-items) */
#define _AK_RD_XENT_ONE 8192u      /* cross-entropy mean / sum: up to this many rows one block combines the
                                      row losses and writes the result (no ak_xent_mean launch) */


/* Smallest power of two >= v (v >= 1), capped at cap (a power of two). */
static unsigned _ak_rd_pow2(size_t v, unsigned cap) {
    unsigned p = 1;
    while (p < cap && (size_t)p < v) p <<= 1;
    return p;
}

/* [a, a + an) and [b, b + bn) (bytes) overlap without being the same buffer start. */
static int _ak_rd_partial_overlap(const void* a, size_t an, const void* b, size_t bn) {
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    if (!a || !b || pa == pb) return 0;
    return pa < pb + bn && pb < pa + an;
}
static int _ak_rd_overlap(const void* a, size_t an, const void* b, size_t bn) {
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    if (!a || !b) return 0;
    return pa < pb + bn && pb < pa + an;
}

static int _ak_rd_aligned16(const void* p) { return p == NULL || ((uintptr_t)p & 15u) == 0; }

/* Shared checks: ctx, dtype, shape, stream, x. */
static ak_result _ak_rd_check(ak_context* ctx, ak_dtype t, const void* x, const char* xname, size_t rows, size_t cols,
                              ak_stream* s, const char* op) {
    ak_result r = _ak_op_check_ctx(ctx, op);
    char what[96];
    if (r == AK_OK) r = _ak_op_check_float(t, op);
    if (r == AK_OK) r = _ak_op_check_shape2(ctx, rows, cols, t, op);
    if (r == AK_OK) r = _ak_op_check_stream(ctx, s, op);
    if (r == AK_OK) {
        snprintf(what, sizeof what, "%s: %s", op, xname);
        r = _ak_op_check_ptr(x, t, what);
    }
    return r;
}

/* ---- the row-op variant table ----------------------------------------------
 * Which kernel (variant), block size and parameter each row-wise op uses for a
 * shape: the first row of _ak_rowop_table that matches (op, dtype, cols range,
 * rows range, cols a multiple of 8 or not) wins; each row names the
 * measurement that chose it (bench/bench_sweep.c; bench/NOTES.md "Shape
 * sweep"). A variant that cannot run the shape (a register row wider than
 * 16384, split blocks past the compute units) falls back to the op's generic
 * one (_ak_rowop_pick). */
enum {
    _AK_RV_ROWS = 0,  /* softmax / norms: the row in registers of a group of G threads (cols <= 16384); param:
                         elements per thread to aim for (0: the kernel's E, the fewest threads) */
    _AK_RV_SPLIT,     /* softmax: S co-operating blocks per row, one read; block: 128 or 256 */
    _AK_RV_TWOPASS,   /* softmax: stats + apply kernels (two reads of x), any width, no co-residency */
    _AK_RV_WIDE,      /* softmax / norms: one block per row, two passes (the second from L2); block: threads */
    _AK_RV_STREAM,    /* reductions / cross-entropy: a group of G threads per row (segment), one read; param:
                         bytes per thread to aim for; block: small inputs widen the groups until they fill
                         block threads per CU (0: never; _ak_rd_stream_group) */
    _AK_RV_SEGMENTS,  /* reductions: rows cut into segments over CUs x param blocks, then a combine kernel */
    _AK_RV_SMALL,     /* cross-entropy mean / sum: one block does every row and the reduction (one launch, no
                         workspace); block: threads */
    _AK_RV_COUNT
};
/* ops of the table (bit mask) */
#define _AK_RO_SOFTMAX 1u
#define _AK_RO_NORM 2u      /* layernorm, rmsnorm */
#define _AK_RO_SUM 4u       /* sum, mean */
#define _AK_RO_MINMAX 8u
#define _AK_RO_ARG 16u      /* argmax, argmin */
#define _AK_RO_XENT 32u     /* cross-entropy, reduction none */
#define _AK_RO_XENT_RED 64u /* cross-entropy mean / sum */
#define _AK_RO_REDUCE (_AK_RO_SUM | _AK_RO_MINMAX | _AK_RO_ARG)
#define _AK_DT_ALL 0u
#define _AK_DT_F32 (1u << AK_F32)
#define _AK_DT_HALF ((1u << AK_F16) | (1u << AK_BF16))
typedef struct _ak_rowop_rule {
    unsigned ops, dtypes;   /* _AK_RO_* mask; 1 << dtype mask (0: every dtype) */
    size_t cmin, cmax;      /* cols in [cmin, cmax] */
    size_t rmin, rmax;      /* rows in [rmin, rmax] (x compute units when per_cu) */
    int per_cu;
    int odd;                /* -1 any width, 0 only cols % 8 == 0, 1 only cols % 8 != 0 */
    int variant;            /* _AK_RV_* */
    unsigned block, param;  /* see the variant */
    const char* why;        /* the measurement that chose the row */
} _ak_rowop_rule;
#define _AK_RMAX ((size_t)-1)
static const _ak_rowop_rule _ak_rowop_table[] = {
    /* softmax, layernorm, rmsnorm */
    { _AK_RO_SOFTMAX | _AK_RO_NORM, _AK_DT_ALL, 1, 16384, 1, _AK_RMAX, 0, -1, _AK_RV_ROWS, 128, 0,
      "h100 bench_ops 2026-11-22: 65536 x 4096 at 94-100% of copy, one read; 128-thread blocks (f16 4096: 2988 GB/s "
      "vs 2903 with 256); h100 sweep 2026-11-23: 94-100% at 65536 x 768..8192, 57-71% (f32) / 49-61% (f16) at "
      "x 16384 (the rule's weak end)" },
    { _AK_RO_SOFTMAX, _AK_DT_ALL, 16385, _AK_RMAX, 1, _AK_RMAX, 0, -1, _AK_RV_SPLIT, 128, 0,
      "h100 bench_ops 2026-11-22: 4096 x 393216 f32 split 2173 GB/s vs 1811 two-pass (falls back to two-pass past "
      "CUs blocks per row, and for f16/bf16 past 131072 columns: 1974 vs 1823 GB/s)" },
    { _AK_RO_NORM, _AK_DT_ALL, 16385, _AK_RMAX, 1, _AK_RMAX, 0, -1, _AK_RV_WIDE, 1024, 0,
      "h100 sweep 2026-11-23: one 1024-thread block per row, two passes: 84-93% at 16384 x 32768, 58-66% at "
      "128256 / 400000 columns" },
    /* reductions, few rows of 8193..32768 columns: one widened group per row (no combine launch, no workspace)
     * beats segments; measured with bench_sweep --force (bench/NOTES.md "Sweep misses: reductions, ...") */
    { _AK_RO_SUM | _AK_RO_MINMAX, _AK_DT_ALL, 8193, 32768, 1, 511, 0, -1, _AK_RV_STREAM, 1024, 256,
      "h100 red 2026-11-23 (force): sum 1 / 16 / 256 rows x 16384 f32 6.24 / 7.04 / 12.64 us stream vs 9.06 / 9.50 / "
      "15.68 segments, x 32768 8.19 / 9.18 / 20.35 vs 8.86 / 9.79 / 23.49, bf16 alike (6.11 vs 8.80 at 1 x 16384); "
      "max / min run the same kernel code (not measured apart)" },
    { _AK_RO_SUM | _AK_RO_MINMAX, _AK_DT_ALL, 32769, _AK_RMAX, 256, 511, 0, -1, _AK_RV_STREAM, 1024, 256,
      "h100 red 2026-11-23 (force): sum 256 x 50257 f32 29.73 us stream vs 32.54 segments, bf16 19.62 vs 21.12; "
      "256 x 128256 f32 57.76 vs 59.04, bf16 39.04 vs 38.94 (at 1 / 16 rows segments win: 8.1 vs 10.2 at 1 x 50257)" },
    { _AK_RO_ARG, _AK_DT_ALL, 8193, 16384, 1, 511, 0, -1, _AK_RV_STREAM, 1024, 256,
      "h100 red 2026-11-23 (force): argmax 1 / 16 / 256 rows x 16384 f32 9.31 / 9.79 / 15.36 us stream vs 10.18 / "
      "10.85 / 18.46 segments, bf16 8.83 / 9.12 / 11.74 vs 10.14 / 10.40 / 14.85" },
    { _AK_RO_ARG, _AK_DT_ALL, 16385, 32768, 256, 511, 0, -1, _AK_RV_STREAM, 1024, 256,
      "h100 red 2026-11-23 (force): argmax 256 x 32768 f32 23.81 us stream vs 30.34 segments, bf16 16.64 vs 20.16 "
      "(1 / 16 rows: segments 10.2 / 10.8 vs stream 12.8-14.3; 256 x 50257: a tie, 23.97 vs 23.87)" },
    /* reductions: rows < CUs x 16 (sum, mean, f32 max/min) or x 8 (the rest) and wide: segments */
    { _AK_RO_SUM, _AK_DT_ALL, 8193, _AK_RMAX, 0, 16, 1, -1, _AK_RV_SEGMENTS, 256, 16,
      "h100 bench_ops 2026-11-22, 256M elements, segments per CU 8/16/32/64: sum f32 97.2/97.8/98.0/97.6, "
      "sum bf16 91.4/92.9/90.9/88.7" },
    { _AK_RO_MINMAX, _AK_DT_F32, 8193, _AK_RMAX, 0, 16, 1, -1, _AK_RV_SEGMENTS, 256, 16,
      "h100 bench_ops 2026-11-22: max f32 94.8/97.2/97.2/97.3 at 8/16/32/64 segments per CU" },
    { _AK_RO_MINMAX | _AK_RO_ARG, _AK_DT_ALL, 8193, _AK_RMAX, 0, 8, 1, -1, _AK_RV_SEGMENTS, 256, 8,
      "h100 bench_ops 2026-11-22: argmax bf16 84.1/80.9/81.5/75.2 at 8/16/32/64 segments per CU; max bf16 fell "
      "under 90 at 16" },
    /* cross-entropy mean / sum of small batches: one block, one launch, no workspace */
    { _AK_RO_XENT_RED, _AK_DT_ALL, 1, 32768, 1, 1, 0, -1, _AK_RV_SMALL, 512, 256,
      "h100 red 2026-11-23 (force): 1 x 32 / 127 / 1000 / 4096 / 8192 / 32768 f32 5.95 / 6.21 / 6.66 / 7.30 / 7.97 / "
      "9.60 us vs 11.55-16.74 with 3 launches (eager 7-15); bf16 alike" },
    { _AK_RO_XENT_RED, _AK_DT_ALL, 32769, _AK_RMAX, 1, 1, 0, -1, _AK_RV_SMALL, 1024, 256,
      "h100 red 2026-11-23 (force): 1 x 128256 f32 17.50 us (1024 threads) vs 22.05 with 3 launches (512: 18.18), "
      "bf16 17.60 vs 22.62; one row is one block on either path" },
    { _AK_RO_XENT_RED, _AK_DT_ALL, 1, 1000, 2, 16, 0, -1, _AK_RV_SMALL, 512, 256,
      "h100 red 2026-11-23 (force): 16 x 32 / 127 / 1000 f32 5.95 / 6.62 / 9.12 us vs 11.84 / 12.54 / 12.51 with 3 "
      "launches; bf16 5.92 / 6.62 / 8.16" },
    { _AK_RO_XENT_RED, _AK_DT_ALL, 1001, 4096, 2, 16, 0, -1, _AK_RV_SMALL, 1024, 256,
      "h100 red 2026-11-23 (force): 16 x 4096 f32 12.26 us (1024 threads) vs 13.47 with 3 launches, bf16 12.22 vs "
      "13.41; 16 x 8192: 3 launches win (15.7 vs 18.9)" },
    { _AK_RO_XENT_RED, _AK_DT_ALL, 1, 127, 17, 256, 0, -1, _AK_RV_SMALL, 512, 256,
      "h100 red 2026-11-23 (force): 256 x 32 / 127 f32 6.66 / 10.94 us vs 11.87 / 12.99 with 3 launches, bf16 "
      "6.37 / 10.40 vs 11.87 / 12.61; 256 x 1000: 3 launches win (13.5 vs 33)" },
    { _AK_RO_XENT_RED, _AK_DT_ALL, 1, 32, 257, 1024, 0, -1, _AK_RV_SMALL, 512, 256,
      "h100 red 2026-11-23 (force): 1024 x 32 f32 10.91 us vs 12.00 with 3 launches, bf16 8.67 vs 11.94; 1024 x "
      "127: 3 launches win (13.3 vs 18.5)" },
    /* cross-entropy, wide f32 rows: 256 threads per row (several blocks per SM) rather than one 1024-thread block */
    { _AK_RO_XENT | _AK_RO_XENT_RED, _AK_DT_F32, 32769, 65536, 1024, _AK_RMAX, 0, -1, _AK_RV_STREAM, 1024, 1024,
      "h100 red 2026-11-23 (force): cross_entropy 1024 x 50257 f32 85.1 us at 1024 B per thread (G 256) vs 110.7 "
      "at 256 B (G 1024: ak_xent_f32 holds 62 registers, so one 1024-thread block per SM), 4096 x 50257 285.1 vs "
      "393.0; x 32768 a tie (58.7-59.3, 184.5-189.6)" },
    /* reductions and cross-entropy (none, mean, sum): a group per row (segment) */
    { _AK_RO_REDUCE | _AK_RO_XENT | _AK_RO_XENT_RED, _AK_DT_ALL, 1, _AK_RMAX, 1, _AK_RMAX, 0, -1, _AK_RV_STREAM, 1024,
      256, "h100 bench_ops 2026-11-22: 65536 x 4096, about 256 bytes per thread measured best; mean / sum: "
      "per-row losses, partials, combine (89% of copy at 65536 x 4096); small inputs widened to 1024 threads per "
      "CU: h100 red 2026-11-23 (force, block 0 / 1024 / 2048): argmax 1024 x 127 f32 12.00 / 6.21 / 6.34 us, "
      "sum 1 x 1000 f32 7.07 / 4.67 / 4.70, cross_entropy 16 x 1000 bf16 9.41 / 5.25 / 5.25" },
};
/* Variants no row picks yet (candidates for the shapes the h100 sweep of
 * 2026-11-23 found slow; bench/sweep_variants.sh measures them with
 * bench_sweep --force, bench/NOTES.md "Shape sweep" lists what to run):
 * _AK_RV_WIDE for softmax (16384-131072 columns), _AK_RV_ROWS with a param
 * for odd and narrow widths. */

#if defined(AMDKIT_ROWOP_FORCE) || defined(AMDKIT_TESTS)
/* bench/bench_sweep.c --force (and the tests: tests/ti_rowop.c, ti_kargs.c): every row op takes this variant / block / param
 * where the variant applies to the op (variant < 0: the table). */
static struct { int variant; unsigned block, param; } _ak_rowop_force = { -1, 0, 0 };
static const char* const _ak_rv_names[_AK_RV_COUNT] = { "rows", "split", "twopass", "wide", "stream", "segments",
                                                         "small" };
/* the ops each variant can run */
static unsigned _ak_rv_ops(int v) {
    switch (v) {
    case _AK_RV_ROWS: case _AK_RV_WIDE: return _AK_RO_SOFTMAX | _AK_RO_NORM;
    case _AK_RV_SPLIT: case _AK_RV_TWOPASS: return _AK_RO_SOFTMAX;
    case _AK_RV_STREAM: return _AK_RO_REDUCE | _AK_RO_XENT | _AK_RO_XENT_RED;
    case _AK_RV_SEGMENTS: return _AK_RO_REDUCE;
    case _AK_RV_SMALL: return _AK_RO_XENT_RED;
    default: return 0;
    }
}
#endif

/* The table's rule for (op, dtype, rows, cols); never NULL (the last rows of
 * each op match every shape). */
static const _ak_rowop_rule* _ak_rowop_pick(const ak_context* ctx, unsigned op, ak_dtype t, size_t rows, size_t cols) {
    size_t i, cus = (size_t)_ak_op_cus(ctx);
    int odd = cols % 8 != 0;
#if defined(AMDKIT_ROWOP_FORCE) || defined(AMDKIT_TESTS)
    static _ak_rowop_rule forced;
    if (_ak_rowop_force.variant >= 0 && _ak_rowop_force.variant < _AK_RV_COUNT &&
        (_ak_rv_ops(_ak_rowop_force.variant) & op)) {
        memset(&forced, 0, sizeof forced);
        forced.ops = op;
        forced.variant = _ak_rowop_force.variant;
        forced.block = _ak_rowop_force.block;
        forced.param = _ak_rowop_force.param;
        forced.why = "bench_sweep --force";
        return &forced;
    }
#endif
    for (i = 0; i < sizeof _ak_rowop_table / sizeof _ak_rowop_table[0]; i++) {
        const _ak_rowop_rule* r = &_ak_rowop_table[i];
        size_t lo = r->per_cu ? r->rmin * cus : r->rmin, hi = r->per_cu ? r->rmax * cus - 1 : r->rmax;
        if (!(r->ops & op) || (r->dtypes && !(r->dtypes & (1u << t)))) continue;
        if (cols < r->cmin || cols > r->cmax || rows < lo || rows > hi) continue;
        if (r->odd >= 0 && r->odd != odd) continue;
        return r;
    }
    return &_ak_rowop_table[sizeof _ak_rowop_table / sizeof _ak_rowop_table[0] - 1]; /* not reached */
}

/* In-register row kernels (ak_softmax_<dt>, ak_norm_<dt>): E elements per
 * thread (16 for f32, 32 for f16 / bf16, as in the kernels), and the group
 * size G, a power of two with G * E >= cols (cols <= _AK_RD_ROW_MAX); per > 0
 * asks for about `per` elements per thread (a larger G, at most 1024 threads). */
static unsigned _ak_rd_row_e(ak_dtype t) { return t == AK_F32 ? 16u : 32u; }
static unsigned _ak_rd_row_group(size_t cols, ak_dtype t, unsigned per) {
    unsigned e = _ak_rd_row_e(t), g = _ak_rd_pow2((cols + e - 1) / e, _AK_RD_ROW_MAX / e);
    if (per > 0 && per < e) {
        unsigned g2 = _ak_rd_pow2((cols + per - 1) / per, _AK_RD_ROW_MAX / e); /* the kernels' launch bound */
        if (g2 > g) g = g2;
    }
    return g;
}

/* Group size of the streaming row kernels (reduce, cross-entropy): about
 * `per` bytes per thread, a power of two in [1, cap]. Small inputs (units
 * groups of G threads, units x G < CUs x `widen`) then get wider groups, down
 * to one 8-element vector per thread: a few threads walking a row's vectors
 * and scalar head / tail one DRAM round trip after another is what made the
 * small cells slow (h100 sweep 2026-11-23: argmax 1024 x 127 f32 12.0 us with
 * 2 threads per row, eager 6.5; 1 x 64 6.7 us with one thread, eager 4.9).
 * widen 0: no widening (the table's STREAM rows give it as their block). */
static unsigned _ak_rd_stream_group(const ak_context* ctx, size_t units, size_t len, ak_dtype t, unsigned per,
                                    unsigned cap, unsigned widen) {
    size_t n = per / ak_dtype_size(t), want = (size_t)_ak_op_cus(ctx) * widen;
    unsigned g;
    if (n < 1) n = 1;
    g = _ak_rd_pow2((len + n - 1) / n, cap);
    while (g < cap && (size_t)g * 8u < len && units * g * 2u <= want) g <<= 1;
    return g;
}

/* Rows per launch so that grid x block stays under _AK_RD_MAX_THREADS. */
static size_t _ak_rd_rows_per_launch(unsigned block, unsigned group, size_t segs_per_row) {
    size_t blocks = _AK_RD_MAX_THREADS / block;
    size_t r = blocks * (block / group) / (segs_per_row ? segs_per_row : 1);
    return r ? r : 1;
}

/* A device workspace from the pool (cpu: never called). */
static ak_result _ak_rd_ws(ak_context* ctx, size_t bytes, ak_stream* s, void** out) {
    ak_result r = ak_malloc(ctx, bytes, s, out);
    if (r != AK_OK) *out = NULL;
    return r;
}

/* The row-chunked launch every op of this section shares: rows in chunks of
 * at most rpl (grid x block stays in the launch limits), and for each chunk
 * [r0, r0 + nr) kernels k[0] then k[1] (when not NULL) on a 1-D grid of
 * ceil(nr * per_row / per_block) blocks of `block` threads. pack(op, i, r0,
 * nr, a) writes kernel i's arguments for the chunk with its generated packer
 * (and may queue work the launch needs first, e.g. a memset). No allocation,
 * one launch per kernel per chunk. */
typedef struct _ak_rd_rows {
    ak_kernel* k[2];
    size_t rows, rpl;       /* all rows; rows per launch */
    size_t per_row;         /* work units per row (segments, blocks) */
    size_t per_block;       /* work units per block (rows per block of the group kernels) */
    unsigned block;         /* threads per block */
    ak_result (*pack)(const void* op, int i, size_t r0, size_t nr, _ak_kargs* a);
    const void* op;         /* the op's state, for pack */
} _ak_rd_rows;

static ak_result _ak_rd_launch_rows(ak_context* ctx, const _ak_rd_rows* L, ak_stream* s) {
    ak_result r = AK_OK;
    size_t r0;
    _ak_kargs a;
    for (r0 = 0; r0 < L->rows && r == AK_OK; r0 += L->rpl) {
        size_t nr = L->rows - r0 < L->rpl ? L->rows - r0 : L->rpl;
        unsigned grid = (unsigned)((nr * L->per_row + L->per_block - 1) / L->per_block);
        int i;
        for (i = 0; i < 2 && L->k[i] && r == AK_OK; i++)
            if ((r = L->pack(L->op, i, r0, nr, &a)) == AK_OK) r = _ak_op_launch(ctx, L->k[i], grid, L->block, 0, s, &a);
    }
    return r;
}

/* ==========================================================================
 * CPU references (host pointers). Double accumulation.
 * ========================================================================== */

static int _ak_rd_isnan(double v) { return v != v; }

static void _ak_rd_cpu_reduce(ak_reduce_op op, ak_dtype t, const void* x, size_t rows, size_t cols, void* out) {
    size_t r, c;
    for (r = 0; r < rows; r++) {
        size_t base = r * cols;
        if (op == AK_REDUCE_SUM || op == AK_REDUCE_MEAN) {
            double s = 0.0;
            for (c = 0; c < cols; c++) s += (double)_ak_op_ld(x, t, base + c);
            if (op == AK_REDUCE_MEAN) s /= (double)cols;
            ((float*)out)[r] = (float)s;
        } else if (op == AK_REDUCE_MAX || op == AK_REDUCE_MIN) {
            double m = (double)_ak_op_ld(x, t, base);
            for (c = 1; c < cols && !_ak_rd_isnan(m); c++) {
                double v = (double)_ak_op_ld(x, t, base + c);
                if (_ak_rd_isnan(v) || (op == AK_REDUCE_MAX ? v > m : v < m)) m = v;
            }
            ((float*)out)[r] = (float)m;
        } else {
            double m = (double)_ak_op_ld(x, t, base);
            size_t best = 0;
            for (c = 1; c < cols && !_ak_rd_isnan(m); c++) {
                double v = (double)_ak_op_ld(x, t, base + c);
                if (_ak_rd_isnan(v) || (op == AK_REDUCE_ARGMAX ? v > m : v < m)) { m = v; best = c; }
            }
            ((int64_t*)out)[r] = (int64_t)best;
        }
    }
}

/* One row of the softmax and cross-entropy references: its max (NaN when the
 * row holds a NaN) and *sum = the sum of exp(v - max). */
static double _ak_rd_cpu_row_max_sumexp(ak_dtype t, const void* x, size_t base, size_t cols, double* sum) {
    double m = -HUGE_VAL, s = 0.0;
    size_t c;
    int nan = 0;
    for (c = 0; c < cols; c++) {
        double v = (double)_ak_op_ld(x, t, base + c);
        if (_ak_rd_isnan(v)) nan = 1;
        else if (v > m) m = v;
    }
    if (nan) m = NAN;
    for (c = 0; c < cols; c++) s += exp((double)_ak_op_ld(x, t, base + c) - m);
    *sum = s;
    return m;
}

static void _ak_rd_cpu_softmax(ak_dtype t, const void* x, void* y, size_t rows, size_t cols, int logsm) {
    size_t r, c;
    for (r = 0; r < rows; r++) {
        size_t base = r * cols;
        double s, m = _ak_rd_cpu_row_max_sumexp(t, x, base, cols, &s), ls = log(s);
        for (c = 0; c < cols; c++) {
            double d = (double)_ak_op_ld(x, t, base + c) - m;
            _ak_op_st(y, t, base + c, (float)(logsm ? d - ls : exp(d) / s));
        }
    }
}

static void _ak_rd_cpu_norm(ak_dtype t, const void* x, const void* w, const void* b, void* y, size_t rows, size_t cols,
                            double eps, int rms) {
    size_t r, c;
    for (r = 0; r < rows; r++) {
        size_t base = r * cols;
        double mean = 0.0, var = 0.0, rs;
        if (!rms) {
            for (c = 0; c < cols; c++) mean += (double)_ak_op_ld(x, t, base + c);
            mean /= (double)cols;
        }
        for (c = 0; c < cols; c++) {
            double d = (double)_ak_op_ld(x, t, base + c) - mean;
            var += d * d;
        }
        var /= (double)cols;
        rs = 1.0 / sqrt(var + eps);
        for (c = 0; c < cols; c++) {
            double v = ((double)_ak_op_ld(x, t, base + c) - mean) * rs;
            if (w) v *= (double)_ak_op_ld(w, t, c);
            if (b) v += (double)_ak_op_ld(b, t, c);
            _ak_op_st(y, t, base + c, (float)v);
        }
    }
}

/* Returns the first row with a bad target, or rows when all are fine. */
static size_t _ak_rd_cpu_xent(ak_dtype t, const void* x, const int64_t* tgt, size_t rows, size_t cols,
                              int64_t ignore_index, ak_loss_reduction red, float* loss) {
    size_t r, bad = rows;
    double sum = 0.0, n = 0.0;
    for (r = 0; r < rows; r++) {
        size_t base = r * cols;
        int64_t k = tgt[r];
        double l;
        if (k == ignore_index) l = 0.0;
        else if (k < 0 || (uint64_t)k >= (uint64_t)cols) {
            l = NAN;
            if (bad == rows) bad = r;
        } else {
            double s, m = _ak_rd_cpu_row_max_sumexp(t, x, base, cols, &s);
            l = m + log(s) - (double)_ak_op_ld(x, t, base + (size_t)k);
        }
        if (red == AK_LOSS_NONE) loss[r] = (float)l;
        else if (k != ignore_index) { sum += l; n += 1.0; }
    }
    if (red == AK_LOSS_MEAN) loss[0] = n > 0.0 ? (float)(sum / n) : NAN;
    else if (red == AK_LOSS_SUM) loss[0] = (float)sum;
    return bad;
}

/* ==========================================================================
 * ak_reduce
 * ========================================================================== */

typedef struct _ak_rd_reduce_op {
    const char* x;
    size_t cols, es, splits, chunk;
    unsigned G;
    float scale;
    int arg;
    float* pv;       /* split rows: per-segment partials (values, indices) */
    int64_t* pi;
    void* out;
} _ak_rd_reduce_op;
static ak_result _ak_rd_reduce_pack(const void* op, int i, size_t r0, size_t nr, _ak_kargs* a) {
    const _ak_rd_reduce_op* o = (const _ak_rd_reduce_op*)op;
    const char* x = o->x + r0 * o->cols * o->es;
    int64_t nseg = (int64_t)(nr * o->splits);
    (void)i;
    if (o->splits > 1)
        _ak_kargs_reduce1(a, x, (int64_t)o->cols, nseg, (int64_t)o->splits, (int64_t)o->chunk, (int32_t)o->G, 1.0f,
                          o->pv + r0 * o->splits, o->arg ? (void*)(o->pi + r0 * o->splits) : NULL);
    else
        _ak_kargs_reduce1(a, x, (int64_t)o->cols, nseg, (int64_t)o->splits, (int64_t)o->chunk, (int32_t)o->G, o->scale,
                          o->arg ? NULL : (void*)((float*)o->out + r0), o->arg ? (void*)((int64_t*)o->out + r0) : NULL);
    return AK_OK;
}

AKDEF ak_result ak_reduce(ak_context* ctx, ak_reduce_op op, ak_dtype dtype, const void* x, void* out, size_t rows,
                          size_t cols, ak_stream* stream) {
    static const char* kbase[] = { "ak_reduce_sum", "ak_reduce_sum", "ak_reduce_max", "ak_reduce_min",
                                   "ak_reduce_argmax", "ak_reduce_argmin" };
    static const char* k2name[] = { "ak_reduce2_sum", "ak_reduce2_sum", "ak_reduce2_max", "ak_reduce2_min",
                                    "ak_reduce2_argmax", "ak_reduce2_argmin" };
    const char* opn = "ak_reduce";
    ak_result r;
    int arg;
    ak_dtype odt;
    size_t es, target, splits, chunk, seglen;
    unsigned B = _AK_RD_BLOCK, G, G2;
    float scale;
    void* ws = NULL;
    float* pv = NULL;
    int64_t* pi = NULL;
    ak_kernel *k1 = NULL, *k2 = NULL;
    char kname[64];

    if ((int)op < 0 || (int)op >= (int)AK_REDUCE_OP_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: unknown reduction %d", opn, (int)op);
    if ((r = _ak_rd_check(ctx, dtype, x, "x", rows, cols, stream, opn)) != AK_OK) return r;
    arg = op == AK_REDUCE_ARGMAX || op == AK_REDUCE_ARGMIN;
    odt = arg ? AK_I64 : AK_F32;
    if ((r = _ak_op_check_ptr(out, odt, "ak_reduce: out")) != AK_OK) return r;
    es = ak_dtype_size(dtype);
    if (_ak_rd_overlap(x, rows * cols * es, out, rows * ak_dtype_size(odt)))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_reduce: out overlaps x");

    if (_ak_op_is_cpu(ctx)) {
        _ak_rd_cpu_reduce(op, dtype, x, rows, cols, out);
        return AK_OK;
    }
    /* argmax / argmin of 1-element rows: index 0 everywhere, one memset and no kernel */
    if (arg && cols == 1) return ak_memset(ctx, out, 0, rows * 8u, stream);

    /* the table (_ak_rowop_table): segments over CUs x param blocks for few wide
     * rows (x 4 at conservative), else a group per row of about param bytes per
     * thread; chunks are multiples of 8 elements and >= 4096 */
    {
        unsigned rop = arg ? _AK_RO_ARG : (op == AK_REDUCE_SUM || op == AK_REDUCE_MEAN) ? _AK_RO_SUM : _AK_RO_MINMAX;
        const _ak_rowop_rule* rule = _ak_rowop_pick(ctx, rop, dtype, rows, cols);
        unsigned per = rule->variant == _AK_RV_STREAM && rule->param ? rule->param : 256u;
        splits = 1;
        chunk = cols;
        if (rule->variant == _AK_RV_SEGMENTS) {
            target = (size_t)_ak_op_cus(ctx) * (_ak_op_opt(ctx) == AK_OPT_CONSERVATIVE ? 4u : rule->param ? rule->param : 8u);
            if (rows < target && cols > 8192) {
                size_t want = (target + rows - 1) / rows;
                chunk = (cols + want - 1) / want;
                chunk = (chunk + 7) / 8 * 8;
                if (chunk < 4096) chunk = 4096;
                splits = (cols + chunk - 1) / chunk;
                if (splits <= 1) { splits = 1; chunk = cols; }
            }
        }
        seglen = splits > 1 ? chunk : cols;
        /* one group per segment */
        G = _ak_rd_stream_group(ctx, rows * splits, seglen, dtype, per, B,
                                rule->variant == _AK_RV_STREAM ? rule->block : 1024u);
    }
    scale = op == AK_REDUCE_MEAN ? (float)(1.0 / (double)cols) : 1.0f;

    if ((r = _ak_op_kernel(ctx, _ak_src_reduce, _ak_op_name(kname, sizeof kname, kbase[op], dtype), &k1)) != AK_OK)
        return r;
    if (splits > 1) {
        /* workspace: values (nparts floats, padded to 16 bytes), then indices (arg ops) */
        size_t nparts = rows * splits, vbytes = (nparts * 4u + 15u) & ~(size_t)15u;
        if ((r = _ak_op_kernel(ctx, _ak_src_reduce, k2name[op], &k2)) != AK_OK) return r;
        if ((r = _ak_rd_ws(ctx, vbytes + (arg ? nparts * 8u : 0u), stream, &ws)) != AK_OK) return r;
        pv = (float*)ws;
        if (arg) pi = (int64_t*)((char*)ws + vbytes);
    }

    {
        _ak_rd_reduce_op o;
        _ak_rd_rows L;
        o.x = (const char*)x; o.cols = cols; o.es = es; o.splits = splits; o.chunk = chunk;
        o.G = G; o.scale = scale; o.arg = arg; o.pv = pv; o.pi = pi; o.out = out;
        L.k[0] = k1; L.k[1] = NULL;
        L.rows = rows; L.rpl = _ak_rd_rows_per_launch(B, G, splits);
        L.per_row = splits; L.per_block = B / G; L.block = B;
        L.pack = _ak_rd_reduce_pack; L.op = &o;
        r = _ak_rd_launch_rows(ctx, &L, stream);
    }
    if (r == AK_OK && splits > 1) {
        _ak_kargs a;
        G2 = _ak_rd_pow2(splits, B);
        _ak_kargs_reduce2(&a, pv, pi, (int64_t)rows, (int64_t)splits, (int32_t)G2, scale, arg ? NULL : out, arg ? out : NULL);
        /* rows < target here, so one launch */
        r = _ak_op_launch(ctx, k2, (unsigned)((rows + B / G2 - 1) / (B / G2)), B, 0, stream, &a);
    }
    if (ws) ak_free(ctx, ws); /* stream-ordered reuse: safe right after the launches */
    return r;
}

/* ==========================================================================
 * ak_softmax
 * ========================================================================== */

typedef struct _ak_rd_softmax_op {
    int path;              /* 1: rows in registers, 2: co-operating blocks, 3: stats + apply, 4: a block per row */
    const char* x;
    char* y;
    size_t cols, es, chunk, cnt_bytes;
    unsigned G, S;
    int vec, logsm;
    void* ws;              /* paths 2 and 3: counters / partials */
    ak_context* ctx;       /* path 2 clears its counters per chunk */
    ak_stream* stream;
} _ak_rd_softmax_op;
static ak_result _ak_rd_softmax_pack(const void* op, int i, size_t r0, size_t nr, _ak_kargs* a) {
    const _ak_rd_softmax_op* o = (const _ak_rd_softmax_op*)op;
    const char* x = o->x + r0 * o->cols * o->es;
    char* y = o->y + r0 * o->cols * o->es;
    ak_result r;
    if (o->path == 1) {
        _ak_kargs_softmax(a, x, y, (int64_t)nr, (int32_t)o->cols, (int32_t)o->G, o->vec, o->logsm);
    } else if (o->path == 4) {
        _ak_kargs_softmax_wide(a, x, y, (int64_t)o->cols, o->vec, o->logsm);
    } else if (o->path == 2) {
        if ((r = ak_memset(o->ctx, o->ws, 0, (nr + 1) * 4u, o->stream)) != AK_OK) return r;
        _ak_kargs_softmax_split(a, x, y, (int64_t)o->cols, (int32_t)o->S, o->ws, (char*)o->ws + o->cnt_bytes, o->vec,
                                o->logsm);
    } else if (i == 0) {
        _ak_kargs_softmax_stats(a, x, (int64_t)o->cols, (int32_t)o->S, (int64_t)o->chunk, o->ws, o->vec);
    } else {
        _ak_kargs_softmax_apply(a, x, y, (int64_t)o->cols, (int32_t)o->S, (int64_t)o->chunk, o->ws, o->vec, o->logsm);
    }
    return AK_OK;
}

AKDEF ak_result ak_softmax(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t rows, size_t cols,
                           int log_softmax, ak_stream* stream) {
    const char* opn = log_softmax ? "ak_softmax (log)" : "ak_softmax";
    ak_result r;
    size_t es, bytes;
    int vec, logsm = log_softmax ? 1 : 0, cus, variant;
    const _ak_rowop_rule* rule;
    ak_kernel* k = NULL;
    char kname[64];
    _ak_rd_softmax_op o;
    _ak_rd_rows L;

    if ((r = _ak_rd_check(ctx, dtype, x, "x", rows, cols, stream, opn)) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(y, dtype, "ak_softmax: y")) != AK_OK) return r;
    es = ak_dtype_size(dtype);
    bytes = rows * cols * es;
    if (_ak_rd_partial_overlap(x, bytes, y, bytes))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_softmax: y partially overlaps x (only y == x is allowed)");
    if (_ak_op_is_cpu(ctx)) {
        _ak_rd_cpu_softmax(dtype, x, y, rows, cols, logsm);
        return AK_OK;
    }
    vec = cols % 8 == 0 && _ak_rd_aligned16(x) && _ak_rd_aligned16(y);
    cus = _ak_op_cus(ctx);
    memset(&o, 0, sizeof o);
    o.x = (const char*)x; o.y = (char*)y; o.cols = cols; o.es = es; o.vec = vec; o.logsm = logsm;
    o.ctx = ctx; o.stream = stream;
    L.k[0] = L.k[1] = NULL;
    L.rows = rows; L.pack = _ak_rd_softmax_pack; L.op = &o;
    rule = _ak_rowop_pick(ctx, _AK_RO_SOFTMAX, dtype, rows, cols);
    variant = rule->variant;
    if (variant == _AK_RV_ROWS && cols > _AK_RD_ROW_MAX) variant = _AK_RV_SPLIT; /* the generic wide choice below */

    if (variant == _AK_RV_ROWS) {
        /* path 1: rows in registers, a group of G threads per row */
        unsigned G = _ak_rd_row_group(cols, dtype, rule->param), B = G > rule->block ? G : rule->block;
        if (B < 128u) B = 128u;
        if ((r = _ak_op_kernel(ctx, _ak_src_softmax, _ak_op_name(kname, sizeof kname, "ak_softmax", dtype), &k)) != AK_OK)
            return r;
        o.path = 1; o.G = G;
        L.k[0] = k; L.rpl = _ak_rd_rows_per_launch(B, G, 1);
        L.per_row = 1; L.per_block = B / G; L.block = B;
        return _ak_rd_launch_rows(ctx, &L, stream);
    }
    if (variant == _AK_RV_WIDE) {
        /* path 4: one block per row, two passes over the row (any width; x and y 16-byte aligned: vectors) */
        unsigned B = rule->block >= 64u && rule->block <= 1024u ? rule->block : 1024u;
        if ((r = _ak_op_kernel(ctx, _ak_src_softmax, _ak_op_name(kname, sizeof kname, "ak_softmax_wide", dtype), &k)) !=
            AK_OK)
            return r;
        o.path = 4; o.vec = _ak_rd_aligned16(x) && _ak_rd_aligned16(y);
        L.k[0] = k; L.rpl = 0x7FFFFFFF;
        L.per_row = 1; L.per_block = 1; L.block = B;
        return _ak_rd_launch_rows(ctx, &L, stream);
    }

    {
        /* path 2 with blocks of rule->block threads (128 = 4096 elements each:
         * measured faster on an H100 than 256) when S stays <= CUs, else 256 */
        unsigned SB = variant == _AK_RV_SPLIT && (rule->block == 128u || rule->block == 256u) ? rule->block : 128u;
        size_t S = (cols + SB * _AK_RD_SPLIT_E - 1) / (SB * _AK_RD_SPLIT_E);
        void* ws = NULL;
        if (S > (size_t)cus) {
            SB = 256u;
            S = (cols + SB * _AK_RD_SPLIT_E - 1) / (SB * _AK_RD_SPLIT_E);
        }
        /* f16 / bf16 rows past 131072: path 3 measured faster on an H100
         * (4096 x 393216: 1974 GB/s vs 1823; f32: 1811 vs 2173) */
        if (variant == _AK_RV_SPLIT && S <= (size_t)cus && _ak_op_opt(ctx) != AK_OPT_CONSERVATIVE &&
            (dtype == AK_F32 || cols <= 131072)) {
            /* path 2: S co-operating blocks per row (S <= CUs: all of a row's
             * blocks can be resident together). Per launch: counters
             * (1 + rows) then the (max, sum) partials. */
            size_t nr_max = (size_t)0x7FFFFFFF / S, cnt_bytes, ws_bytes;
            if (nr_max > rows) nr_max = rows;
            cnt_bytes = ((nr_max + 1) * 4u + 255u) & ~(size_t)255u;
            ws_bytes = cnt_bytes + nr_max * S * 8u;
            if ((r = _ak_op_kernel(ctx, _ak_src_softmax, _ak_op_name(kname, sizeof kname, "ak_softmax_split", dtype),
                                   &k)) != AK_OK)
                return r;
            if ((r = _ak_rd_ws(ctx, ws_bytes, stream, &ws)) != AK_OK) return r;
            o.path = 2; o.S = (unsigned)S; o.ws = ws; o.cnt_bytes = cnt_bytes;
            L.k[0] = k; L.rpl = nr_max;
            L.per_row = S; L.per_block = 1; L.block = SB;
            r = _ak_rd_launch_rows(ctx, &L, stream);
        } else {
            /* path 3: partial (max, sum) per chunk, then combine + write */
            ak_kernel* k2 = NULL;
            size_t target = (size_t)cus * 8u, chunk, nr_max;
            size_t want = rows >= target ? 1 : (target + rows - 1) / rows;
            /* chunks of 8192..65536 elements (65536: full bandwidth in both
             * passes on an H100), enough of them for CUs x 8 blocks */
            chunk = (cols + want - 1) / want;
            if (chunk < 8192) chunk = 8192;
            if (chunk > 65536) chunk = 65536;
            chunk = (chunk + 7) / 8 * 8;
            S = (cols + chunk - 1) / chunk;
            if (S > 0x7FFFFFFF) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %zu columns is too wide", opn, cols);
            nr_max = (size_t)0x7FFFFFFF / S;
            if (nr_max > rows) nr_max = rows;
            if ((r = _ak_op_kernel(ctx, _ak_src_softmax, _ak_op_name(kname, sizeof kname, "ak_softmax_stats", dtype),
                                   &k)) != AK_OK)
                return r;
            if ((r = _ak_op_kernel(ctx, _ak_src_softmax, _ak_op_name(kname, sizeof kname, "ak_softmax_apply", dtype),
                                   &k2)) != AK_OK)
                return r;
            if ((r = _ak_rd_ws(ctx, nr_max * S * 8u, stream, &ws)) != AK_OK) return r;
            o.path = 3; o.S = (unsigned)S; o.chunk = chunk; o.ws = ws;
            L.k[0] = k; L.k[1] = k2; L.rpl = nr_max;
            L.per_row = S; L.per_block = 1; L.block = _AK_RD_BLOCK;
            r = _ak_rd_launch_rows(ctx, &L, stream);
        }
        if (ws) ak_free(ctx, ws);
        return r;
    }
}

/* ==========================================================================
 * ak_layernorm / ak_rmsnorm
 * ========================================================================== */

/* The weight / bias pointers (may be NULL) and eps of a norm named opn. */
static ak_result _ak_rd_norm_check_wb(const char* opn, ak_dtype dtype, const void* w, const void* b, float eps) {
    char what[96];
    ak_result r;
    if (w) {
        snprintf(what, sizeof what, "%s: weight", opn);
        if ((r = _ak_op_check_ptr(w, dtype, what)) != AK_OK) return r;
    }
    if (b) {
        snprintf(what, sizeof what, "%s: bias", opn);
        if ((r = _ak_op_check_ptr(b, dtype, what)) != AK_OK) return r;
    }
    if (!(eps >= 0.0f) || eps > FLT_MAX)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: eps = %g, expected a finite value >= 0", opn, (double)eps);
    return AK_OK;
}

/* One norm launch, plain (r == NULL: y = norm(x)) or residual (h = x + r, y = norm(h); ak_add_layernorm /
 * ak_add_rmsnorm in >>impl:ops-llm): the row-op table's row for the shape picks the register-row kernel
 * (ak_norm_<dt> / ak_add_norm_<dt>) or the one-block-per-row one (ak_norm_wide_<dt> / ak_add_norm_wide_<dt>);
 * both forms move the same rows, so they share the row. */
typedef struct _ak_rd_norm_op {
    int wide;              /* the *_wide_<dt> kernel: one block per row */
    const char *x, *r;     /* r: NULL for the plain norm */
    const void *w, *b;
    char *h, *y;           /* h: NULL for the plain norm */
    size_t cols, es;
    unsigned G;
    int vec, wvec, rms;
    float eps;
} _ak_rd_norm_op;
static ak_result _ak_rd_norm_pack(const void* op, int i, size_t r0, size_t nr, _ak_kargs* a) {
    const _ak_rd_norm_op* o = (const _ak_rd_norm_op*)op;
    const size_t off = r0 * o->cols * o->es;
    (void)i;
    if (o->r && o->wide)
        _ak_kargs_add_norm_wide(a, o->x + off, o->r + off, o->w, o->b, o->h + off, o->y + off, (int64_t)o->cols, o->vec,
                                o->wvec, o->eps, o->rms);
    else if (o->r)
        _ak_kargs_add_norm(a, o->x + off, o->r + off, o->w, o->b, o->h + off, o->y + off, (int64_t)nr, (int32_t)o->cols,
                           (int32_t)o->G, o->vec, o->eps, o->rms);
    else if (o->wide)
        _ak_kargs_norm_wide(a, o->x + off, o->w, o->b, o->y + off, (int64_t)o->cols, o->vec, o->wvec, o->eps, o->rms);
    else
        _ak_kargs_norm(a, o->x + off, o->w, o->b, o->y + off, (int64_t)nr, (int32_t)o->cols, (int32_t)o->G, o->vec,
                       o->eps, o->rms);
    return AK_OK;
}
/* Plans and launches o (x, r, w, b, h, y, rms, eps set; the arguments checked) over rows x cols. */
static ak_result _ak_rd_norm_launch(ak_context* ctx, ak_dtype dtype, _ak_rd_norm_op* o, size_t rows, size_t cols,
                                    ak_stream* stream) {
    const int res = o->r != NULL;
    const int io16 = _ak_rd_aligned16(o->x) && _ak_rd_aligned16(o->y) &&
                     (!res || (_ak_rd_aligned16(o->r) && _ak_rd_aligned16(o->h)));
    const _ak_rowop_rule* rule = _ak_rowop_pick(ctx, _AK_RO_NORM, dtype, rows, cols);
    ak_kernel* k = NULL;
    char kname[64];
    _ak_rd_rows L;
    ak_result r;
    o->cols = cols; o->es = ak_dtype_size(dtype); o->wvec = 0;
    L.k[1] = NULL;
    L.rows = rows; L.per_row = 1; L.pack = _ak_rd_norm_pack; L.op = o;
    if (rule->variant == _AK_RV_ROWS && cols <= _AK_RD_ROW_MAX) {
        unsigned G = _ak_rd_row_group(cols, dtype, rule->param), B = G > rule->block ? G : rule->block;
        if (B < 128u) B = 128u;
        if ((r = _ak_op_kernel(ctx, _ak_src_norm, _ak_op_name(kname, sizeof kname, res ? "ak_add_norm" : "ak_norm", dtype),
                               &k)) != AK_OK)
            return r;
        o->wide = 0; o->G = G;
        o->vec = cols % 8 == 0 && io16 && _ak_rd_aligned16(o->w) && _ak_rd_aligned16(o->b);
        L.rpl = _ak_rd_rows_per_launch(B, G, 1); L.per_block = B / G; L.block = B;
    } else {
        /* wide rows (or the table's choice): one block of rule->block threads per row, two passes (the residual
         * form's first pass writes h, the second reads it back); x, y (r, h) 16-byte aligned: vectors at any width
         * (w, b aligned too: their vectors where a row's start allows) */
        if ((r = _ak_op_kernel(ctx, _ak_src_norm,
                               _ak_op_name(kname, sizeof kname, res ? "ak_add_norm_wide" : "ak_norm_wide", dtype), &k)) !=
            AK_OK)
            return r;
        o->wide = 1; o->G = 0;
        o->vec = io16;
        o->wvec = _ak_rd_aligned16(o->w) && _ak_rd_aligned16(o->b);
        L.rpl = 0x7FFFFFFF; L.per_block = 1;
        L.block = rule->variant == _AK_RV_WIDE && rule->block >= 64u && rule->block <= 1024u ? rule->block : 1024u;
    }
    L.k[0] = k;
    return _ak_rd_launch_rows(ctx, &L, stream);
}

static ak_result _ak_rd_norm(ak_context* ctx, ak_dtype dtype, const void* x, const void* w, const void* b, void* y,
                             size_t rows, size_t cols, float eps, int rms, ak_stream* stream) {
    const char* opn = rms ? "ak_rmsnorm" : "ak_layernorm";
    char what[96];
    ak_result r;
    size_t es, bytes;
    _ak_rd_norm_op o;

    if ((r = _ak_rd_check(ctx, dtype, x, "x", rows, cols, stream, opn)) != AK_OK) return r;
    snprintf(what, sizeof what, "%s: y", opn);
    if ((r = _ak_op_check_ptr(y, dtype, what)) != AK_OK) return r;
    if ((r = _ak_rd_norm_check_wb(opn, dtype, w, b, eps)) != AK_OK) return r;
    es = ak_dtype_size(dtype);
    bytes = rows * cols * es;
    if (_ak_rd_partial_overlap(x, bytes, y, bytes))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: y partially overlaps x (only y == x is allowed)", opn);
    if (_ak_rd_overlap(y, bytes, w, cols * es) || _ak_rd_overlap(y, bytes, b, cols * es))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: y overlaps weight or bias", opn);
    if (_ak_op_is_cpu(ctx)) {
        _ak_rd_cpu_norm(dtype, x, w, b, y, rows, cols, (double)eps, rms);
        return AK_OK;
    }
    memset(&o, 0, sizeof o);
    o.x = (const char*)x; o.w = w; o.b = b; o.y = (char*)y; o.rms = rms; o.eps = eps;
    return _ak_rd_norm_launch(ctx, dtype, &o, rows, cols, stream);
}

AKDEF ak_result ak_layernorm(ak_context* ctx, ak_dtype dtype, const void* x, const void* weight, const void* bias,
                             void* y, size_t rows, size_t cols, float eps, ak_stream* stream) {
    return _ak_rd_norm(ctx, dtype, x, weight, bias, y, rows, cols, eps, 0, stream);
}

AKDEF ak_result ak_rmsnorm(ak_context* ctx, ak_dtype dtype, const void* x, const void* weight, void* y, size_t rows,
                           size_t cols, float eps, ak_stream* stream) {
    return _ak_rd_norm(ctx, dtype, x, weight, NULL, y, rows, cols, eps, 1, stream);
}

/* ==========================================================================
 * ak_cross_entropy
 * ========================================================================== */

typedef struct _ak_rd_xent_op {
    const char* x;
    const int64_t* tgt;
    float* rowloss;
    size_t cols, es;
    unsigned G;
    int vec;
    int64_t ignore_index;
} _ak_rd_xent_op;
static ak_result _ak_rd_xent_pack(const void* op, int i, size_t r0, size_t nr, _ak_kargs* a) {
    const _ak_rd_xent_op* o = (const _ak_rd_xent_op*)op;
    (void)i;
    _ak_kargs_xent(a, o->x + r0 * o->cols * o->es, o->tgt + r0, (int64_t)nr, (int64_t)o->cols, (int32_t)o->G, o->vec,
                   o->ignore_index, o->rowloss + r0);
    return AK_OK;
}

AKDEF ak_result ak_cross_entropy(ak_context* ctx, ak_dtype dtype, const void* logits, const int64_t* targets,
                                 float* loss, size_t rows, size_t cols, int64_t ignore_index,
                                 ak_loss_reduction reduction, ak_stream* stream) {
    const char* opn = "ak_cross_entropy";
    ak_result r;
    size_t es, nloss;
    unsigned G, B;
    int vec;
    float* rowloss;
    void* ws = NULL;
    ak_kernel *k = NULL, *kp = NULL, *km = NULL;
    size_t per = 0, nparts = 0;
    float* part = NULL;
    const _ak_rowop_rule* rule;
    char kname[64];

    if ((r = _ak_rd_check(ctx, dtype, logits, "logits", rows, cols, stream, opn)) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(targets, AK_I64, "ak_cross_entropy: targets")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(loss, AK_F32, "ak_cross_entropy: loss")) != AK_OK) return r;
    if ((int)reduction < 0 || (int)reduction >= (int)AK_LOSS_REDUCTION_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: unknown reduction %d (expected AK_LOSS_NONE, _MEAN or _SUM)",
                       opn, (int)reduction);
    es = ak_dtype_size(dtype);
    nloss = reduction == AK_LOSS_NONE ? rows : 1;
    if (_ak_rd_overlap(loss, nloss * 4u, logits, rows * cols * es) ||
        _ak_rd_overlap(loss, nloss * 4u, targets, rows * 8u) ||
        _ak_rd_overlap(targets, rows * 8u, logits, rows * cols * es))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: loss, targets and logits must not overlap", opn);
    if (_ak_op_is_cpu(ctx)) {
        size_t bad = _ak_rd_cpu_xent(dtype, logits, targets, rows, cols, ignore_index, reduction, loss);
        if (bad < rows)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT,
                           "%s: targets[%zu] = %lld is outside [0, %zu) and not ignore_index (%lld); its loss is NaN",
                           opn, bad, (long long)targets[bad], cols, (long long)ignore_index);
        return AK_OK;
    }
    /* the logits' base 16-byte aligned: vectors at any width (each row: scalar head, vectors, scalar tail) */
    vec = _ak_rd_aligned16(logits);
    rule = _ak_rowop_pick(ctx, reduction == AK_LOSS_NONE ? _AK_RO_XENT : _AK_RO_XENT_RED, dtype, rows, cols);
    if (rule->variant == _AK_RV_SMALL && reduction != AK_LOSS_NONE) {
        /* one block: every row's loss and the mean / sum, one launch, no workspace; the rows
         * spread over the block's threads (wider groups while they fit and the row has more
         * than one 8-element vector per thread) */
        _ak_kargs a;
        if ((r = _ak_op_kernel(ctx, _ak_src_xent, _ak_op_name(kname, sizeof kname, "ak_xent_small", dtype), &k)) !=
            AK_OK)
            return r;
        B = rule->block >= 64u && rule->block <= 1024u ? _ak_rd_pow2(rule->block, 1024u) : 1024u;
        G = _ak_rd_stream_group(ctx, rows, cols, dtype, rule->param ? rule->param : 256u, B, 0u);
        while (G < B && (size_t)G * 8u < cols && rows * G * 2u <= B) G <<= 1;
        _ak_kargs_xent_small(&a, logits, targets, (int64_t)rows, (int64_t)cols, (int32_t)G, vec, ignore_index,
                             reduction == AK_LOSS_MEAN ? 1 : 0, loss);
        return _ak_op_launch(ctx, k, 1u, B, 0, stream, &a);
    }
    G = _ak_rd_stream_group(ctx, rows, cols, dtype, rule->param ? rule->param : 256u, 1024u,
                            rule->variant == _AK_RV_STREAM ? rule->block : 1024u);
    B = G > 256u ? G : 256u;
    if ((r = _ak_op_kernel(ctx, _ak_src_xent, _ak_op_name(kname, sizeof kname, "ak_xent", dtype), &k)) != AK_OK)
        return r;
    if (reduction != AK_LOSS_NONE) {
        /* per-row losses, then per-block partial (sum, count), then one combine; up to
         * _AK_RD_XENT_ONE rows one block adds them all and writes the result (2 launches) */
        size_t want = (size_t)_ak_op_cus(ctx) * 2u;
        per = (rows + want - 1) / want;
        if (per < 1024) per = 1024;
        if (rows <= _AK_RD_XENT_ONE) per = rows;
        nparts = (rows + per - 1) / per;
        if ((r = _ak_op_kernel(ctx, _ak_src_xent, "ak_xent_partial", &kp)) != AK_OK) return r;
        if (nparts > 1 && (r = _ak_op_kernel(ctx, _ak_src_xent, "ak_xent_mean", &km)) != AK_OK) return r;
        if ((r = _ak_rd_ws(ctx, ((rows * 4u + 15u) & ~(size_t)15u) + nparts * 8u, stream, &ws)) != AK_OK) return r;
        rowloss = (float*)ws;
        part = (float*)((char*)ws + ((rows * 4u + 15u) & ~(size_t)15u));
    } else {
        rowloss = loss;
    }
    {
        _ak_rd_xent_op o;
        _ak_rd_rows L;
        o.x = (const char*)logits; o.tgt = targets; o.rowloss = rowloss; o.cols = cols; o.es = es;
        o.G = G; o.vec = vec; o.ignore_index = ignore_index;
        L.k[0] = k; L.k[1] = NULL;
        L.rows = rows; L.rpl = _ak_rd_rows_per_launch(B, G, 1);
        L.per_row = 1; L.per_block = B / G; L.block = B;
        L.pack = _ak_rd_xent_pack; L.op = &o;
        r = _ak_rd_launch_rows(ctx, &L, stream);
    }
    if (r == AK_OK && reduction != AK_LOSS_NONE) {
        _ak_kargs a;
        const int fin = nparts > 1 ? 0 : reduction == AK_LOSS_MEAN ? 2 : 1;
        _ak_kargs_xent_partial(&a, rowloss, targets, (int64_t)rows, (int64_t)per, ignore_index, fin,
                               fin ? (void*)loss : (void*)part);
        r = _ak_op_launch(ctx, kp, (unsigned)nparts, fin ? 1024u : 256u, 0, stream, &a);
        if (r == AK_OK && !fin) {
            _ak_kargs_xent_mean(&a, part, (int32_t)nparts, reduction == AK_LOSS_MEAN ? 1 : 0, loss);
            r = _ak_op_launch(ctx, km, 1u, 256u, 0, stream, &a);
        }
    }
    if (ws) ak_free(ctx, ws);
    return r;
}
/* ==========================================================================
 * >>impl:ops-gemm  ak_gemm: argument checks, the tile table, planning (which
 * kernel of kernels/gemm.hip runs, and why), the launch, and the threaded C
 * reference of the cpu backend.
 * ========================================================================== */

/* The tile table: one row per (matrix ISA, shape class). The numbers must
 * match the AK_GEMM_MMA / AK_GEMM_SIMT lines of kernels/gemm.hip (a cpu test
 * parses them and compares). bk: k step for 16-bit inputs / for f32. */
typedef struct _ak_gemm_tile {
    ak_matrix_isa isa;    /* AK_MATRIX_NONE: the SIMT row */
    int small;            /* 1: the row for grids with fewer 128 x 128 tiles than compute units */
    const char* tag;      /* kernel name part: ak_gemm_<tag>_<dtype> */
    int bm, bn, bk16, bk32, threads;
    const char* reason;
} _ak_gemm_tile;

static const _ak_gemm_tile _ak_gemm_tiles[] = {
    { AK_MATRIX_MFMA, 0, "mma_l", 128, 128, 32, 16, 256,
      "CDNA: 4 wave64s, each 64x64 = 2x2 MFMA 32x32 blocks (64 fp32 accumulators a lane); 40 KiB of LDS "
      "double-buffers the A and B tiles, so 1-2 workgroups share a CU's 64 KiB" },
    { AK_MATRIX_MFMA, 1, "mma_s", 64, 64, 32, 16, 128,
      "CDNA, small grids: 4x the workgroups of the 128x128 tile so every CU gets work; 2 wave64s of 32x64" },
    { AK_MATRIX_WMMA, 0, "mma_l", 128, 128, 32, 16, 256,
      "RDNA3/4: 8 wave32s, each 64x32 = 4x2 WMMA 16x16 tiles (64 accumulators a lane); 40 KiB LDS" },
    { AK_MATRIX_WMMA, 1, "mma_s", 64, 64, 32, 16, 128,
      "RDNA3/4, small grids: 4 wave32s of 32x32 = 2x2 WMMA tiles, 4x the workgroups" },
    { AK_MATRIX_MMA, 0, "mma_l", 128, 128, 32, 16, 256,
      "NVIDIA sm_80+: 8 warps, each 64x32 = 4x4 mma.sync m16n8k16 (64 accumulators a thread), fragments "
      "through ldmatrix from 80-byte rows (conflict-free); 40 KiB static shared memory" },
    { AK_MATRIX_MMA, 1, "mma_s", 64, 64, 32, 16, 128,
      "NVIDIA, small grids (and M = 1..16 decode shapes): 4 warps of 32x32, 4x the blocks of the large tile" },
    { AK_MATRIX_WGMMA, 0, "wgmma_n256", 128, 256, 64, 32, 256,
      "Hopper (sm_90a): 2 consumer warpgroups, each m64n256k16 wgmma (128 accumulators a thread) from a 4-stage "
      "cp.async ring of 128-byte-swizzled 48 KiB stages (193 KiB of shared memory); A k-contiguous, B stored N x K; "
      "f16 / bf16 (k step 64) and f32 as TF32 (k step 32, same bytes)" },
    { AK_MATRIX_WGMMA, 1, "wgmma_n128", 128, 128, 64, 32, 256,
      "Hopper, grids with fewer 128x256 tiles than SMs: the same with m64n128k16 (twice the blocks, 129 KiB)" },
    { AK_MATRIX_NONE, 2, "skinny", 16, 16, 512, 512, 256,
      "decode shapes (m <= 16, B stored N x K): a read of B; 8 warps x 2 columns a block (N = 4096 gives 256 blocks), "
      "16-byte loads of B rows, A chunk (16 x 512) in shared memory as fp32; any architecture" },
    { AK_MATRIX_NONE, 0, "simt_l", 128, 128, 16, 16, 256,
      "no matrix instruction (gfx906, gfx1030, matrix_cores off, exact f32 on NVIDIA / RDNA): 16x16 threads, "
      "8x8 outputs each from 16-deep shared k slabs" },
};

/* Row for (isa, small); small 2 is the decode row. */
static const _ak_gemm_tile* _ak_gemm_tile_find(ak_matrix_isa isa, int small) {
    size_t i;
    if (small == 2) isa = AK_MATRIX_NONE;
    else if (isa == AK_MATRIX_NONE) small = 0;
    for (i = 0; i < sizeof _ak_gemm_tiles / sizeof _ak_gemm_tiles[0]; i++)
        if (_ak_gemm_tiles[i].isa == isa && _ak_gemm_tiles[i].small == small) return &_ak_gemm_tiles[i];
    return &_ak_gemm_tiles[sizeof _ak_gemm_tiles / sizeof _ak_gemm_tiles[0] - 1];
}

AKDEF ak_gemm_desc ak_gemm_desc_default(void) {
    ak_gemm_desc g;
    memset(&g, 0, sizeof g);
    g.dtype = AK_F32;
    g.out_dtype = AK_F32;
    g.alpha = 1.0f;
    g.beta = 0.0f;
    g.activation = -1;
    g.batch = 1;
    return g;
}

/* Resolved shape of one descriptor (leading dimensions filled in). */
typedef struct _ak_gemm_shape {
    size_t m, n, k, batch, lda, ldb, ldc, ldd, ldr;
    size_t esz, osz;
} _ak_gemm_shape;

/* Elements a batched matrix spans: (batch - 1) stride + (rows - 1) ld + cols; 0 on overflow. */
static size_t _ak_gemm_span(size_t rows, size_t cols, size_t ld, size_t batch, size_t stride) {
    size_t s;
    if (rows - 1 > (SIZE_MAX - cols) / (ld ? ld : 1)) return 0;
    s = (rows - 1) * ld + cols;
    if (batch > 1) {
        if (stride && batch - 1 > (SIZE_MAX - s) / stride) return 0;
        s += (batch - 1) * stride;
    }
    return s;
}

static ak_result _ak_gemm_check_mat(ak_context* ctx, const void* p, ak_dtype t, size_t rows, size_t cols, size_t* ld,
                                    size_t batch, size_t stride, const char* name, size_t* bytes) {
    ak_result r;
    size_t span;
    char what[64];
    snprintf(what, sizeof what, "ak_gemm: %s", name);
    if ((r = _ak_op_check_ptr(p, t, what)) != AK_OK) return r;
    if (*ld == 0) *ld = cols;
    if (*ld < cols)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: ld%s = %zu is less than the %zu columns %s has as stored", name, *ld,
                       cols, name);
    span = _ak_gemm_span(rows, cols, *ld, batch, stride);
    if (!span) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: %s (%zu x %zu, ld %zu, batch %zu, stride %zu) overflows", name, rows, cols, *ld, batch, stride);
    if ((r = _ak_op_check_bytes(ctx, span, t, what)) != AK_OK) return r;
    *bytes = span * ak_dtype_size(t);
    return AK_OK;
}

static ak_result _ak_gemm_check(ak_context* ctx, const ak_gemm_desc* g, _ak_gemm_shape* s) {
    ak_result r;
    size_t ba, bb, bc = 0, bd, br = 0, bbias = 0;
    unsigned allowed;
    if ((r = _ak_op_check_ctx(ctx, "ak_gemm")) != AK_OK) return r;
    if (!g) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: descriptor is NULL");
    if ((r = _ak_op_check_float(g->dtype, "ak_gemm dtype")) != AK_OK) return r;
    if (g->out_dtype != g->dtype && g->out_dtype != AK_F32)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: out_dtype %s (%d) not supported for dtype %s, expected %s or f32",
                       ak_dtype_name(g->out_dtype), (int)g->out_dtype, ak_dtype_name(g->dtype), ak_dtype_name(g->dtype));
    allowed = ctx->cfg.allowed_precisions ? ctx->cfg.allowed_precisions
                                          : (AK_DTYPE_BIT(AK_F32) | AK_DTYPE_BIT(AK_F16) | AK_DTYPE_BIT(AK_BF16));
    if (!(allowed & AK_DTYPE_BIT(g->dtype)))
        return _ak_err(AK_ERROR_CONFIG, "ak_gemm: dtype %s is not in config.allowed_precisions (0x%x)", ak_dtype_name(g->dtype), allowed);
    if (g->m == 0 || g->n == 0 || g->k == 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: m, n, k = %zu, %zu, %zu: each must be >= 1", g->m, g->n, g->k);
    if (g->m > 0x7FFFFFFFu || g->n > 0x7FFFFFFFu || g->k > 0x7FFFFFFFu || g->batch > 0x7FFFFFFFu)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: m, n, k, batch = %zu, %zu, %zu, %zu: each must be < 2^31", g->m, g->n, g->k, g->batch);
    if (g->batch == 0) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: batch is 0 (expected >= 1)");
    if ((g->trans_a != 0 && g->trans_a != 1) || (g->trans_b != 0 && g->trans_b != 1))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: trans_a = %d, trans_b = %d, expected 0 or 1", g->trans_a, g->trans_b);
    if (g->activation < -1 || g->activation >= (int)AK_UNARY_OP_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: activation %d, expected -1 (none) or an ak_unary_op (0..%d)", g->activation,
                       (int)AK_UNARY_OP_COUNT - 1);
    if (g->batch > 1 && g->stride_d == 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: stride_d is 0 with batch %zu (every problem would write the same D)", g->batch);
    s->m = g->m; s->n = g->n; s->k = g->k; s->batch = g->batch;
    s->lda = g->lda; s->ldb = g->ldb; s->ldc = g->ldc; s->ldd = g->ldd; s->ldr = g->ldr;
    s->esz = ak_dtype_size(g->dtype); s->osz = ak_dtype_size(g->out_dtype);
    if ((r = _ak_gemm_check_mat(ctx, g->a, g->dtype, g->trans_a ? g->k : g->m, g->trans_a ? g->m : g->k, &s->lda, g->batch,
                                g->stride_a, "a", &ba)) != AK_OK) return r;
    if ((r = _ak_gemm_check_mat(ctx, g->b, g->dtype, g->trans_b ? g->n : g->k, g->trans_b ? g->k : g->n, &s->ldb, g->batch,
                                g->stride_b, "b", &bb)) != AK_OK) return r;
    if ((r = _ak_gemm_check_mat(ctx, g->d, g->out_dtype, g->m, g->n, &s->ldd, g->batch, g->stride_d, "d", &bd)) != AK_OK) return r;
    if (g->beta != 0.0f &&
        (r = _ak_gemm_check_mat(ctx, g->c, g->out_dtype, g->m, g->n, &s->ldc, g->batch, g->stride_c, "c", &bc)) != AK_OK) return r;
    if (g->residual &&
        (r = _ak_gemm_check_mat(ctx, g->residual, g->out_dtype, g->m, g->n, &s->ldr, g->batch, g->stride_r, "residual", &br)) != AK_OK)
        return r;
    if (g->bias) {
        if ((r = _ak_op_check_ptr(g->bias, g->out_dtype, "ak_gemm: bias")) != AK_OK) return r;
        bbias = g->n * s->osz;
    }
    /* D may only be C / residual exactly (in place); never A, B or bias */
    if ((r = _ak_op_check_overlap(g->d, bd, g->a, ba, 0, "ak_gemm: d and a")) != AK_OK) return r;
    if ((r = _ak_op_check_overlap(g->d, bd, g->b, bb, 0, "ak_gemm: d and b")) != AK_OK) return r;
    if (g->bias && (r = _ak_op_check_overlap(g->d, bd, g->bias, bbias, 0, "ak_gemm: d and bias")) != AK_OK) return r;
    if (bc && !(g->c == g->d && s->ldc == s->ldd && g->stride_c == g->stride_d) &&
        (r = _ak_op_check_overlap(g->d, bd, g->c, bc, 0, "ak_gemm: d and c (only c == d with equal ld and stride is allowed)")) != AK_OK)
        return r;
    if (br && !(g->residual == g->d && s->ldr == s->ldd && g->stride_r == g->stride_d) &&
        (r = _ak_op_check_overlap(g->d, bd, g->residual, br, 0, "ak_gemm: d and residual (only residual == d with equal ld and stride is allowed)")) != AK_OK)
        return r;
    return AK_OK;
}

/* The architecture row plans are made for: config.arch when named, else the device's. */
static const ak_arch_info* _ak_gemm_arch(const ak_context* ctx) {
    const ak_arch_info* a = NULL;
    if (ctx->cfg.arch && *ctx->cfg.arch && !_ak_streq_ci(ctx->cfg.arch, "auto") && ak_arch_find(ctx->cfg.arch, &a) == AK_OK) return a;
    return ctx->dev.arch_info;
}

static int _ak_gemm_vec(const void* p, size_t ld, size_t stride, size_t esz);
static ak_result _ak_gemm_plan(ak_context* ctx, const ak_gemm_desc* g, const _ak_gemm_shape* s, ak_gemm_plan* p) {
    const ak_arch_info* arch = _ak_gemm_arch(ctx);
    ak_matrix_isa isa = arch ? arch->matrix : AK_MATRIX_NONE;
    const _ak_gemm_tile* t;
    int has = 0, fast32 = 0, xf32 = 0, mc, small = 0;
    const char* dt;
    memset(p, 0, sizeof *p);
    /* f32 as TF32 / xf32 only when the config accepts reduced precision */
    if (g->dtype == AK_F32 && ctx->cfg.mixed_precision == AK_ON && ctx->cfg.precision >= 0 && ctx->cfg.precision != AK_F32)
        fast32 = 1;
    if (arch && arch->vendor == AK_VENDOR_AMD && (!strcmp(arch->name, "gfx942") || !strcmp(arch->name, "gfx940") || !strcmp(arch->name, "gfx941")))
        xf32 = 1;
    switch (isa) {
    case AK_MATRIX_MFMA: has = 1; break; /* f16, bf16, exact f32 (and xf32 on gfx94x) */
    case AK_MATRIX_WMMA: has = g->dtype != AK_F32; break;
    case AK_MATRIX_MMA: case AK_MATRIX_WGMMA: has = g->dtype != AK_F32 || fast32; break;
    default: has = 0; break;
    }
    mc = ctx->cfg.matrix_cores == AK_ON && has;
    if (ctx->cfg.matrix_cores == AK_ON && !has && ctx->cfg.strict)
        return _ak_err(AK_ERROR_MATRIX_CORES,
                       "ak_gemm: config.matrix_cores is on (strict mode), but %s has no matrix instruction for %s%s GEMM%s",
                       arch ? arch->name : "this device", g->dtype == AK_F32 && !fast32 ? "exact " : "", ak_dtype_name(g->dtype),
                       g->dtype == AK_F32 && !fast32 && (isa == AK_MATRIX_MMA || isa == AK_MATRIX_WGMMA)
                           ? " (allow TF32 with config.precision below f32 and mixed_precision on, or set matrix_cores off)" : "");
    if (!mc) fast32 = 0;
    if (mc && isa == AK_MATRIX_MFMA && fast32 && !xf32) fast32 = 0; /* exact MFMA f32: better, same speed class */
    p->fast32 = fast32;
    if (mc) {
        const int cus = !_ak_op_is_cpu(ctx) && ctx->dev.compute_units > 0 ? ctx->dev.compute_units
                        : (arch && arch->compute_units > 0 ? arch->compute_units : 64);
        const size_t tiles = ((g->m + 127) / 128) * ((g->n + 127) / 128) * (g->batch ? g->batch : 1);
        small = tiles < (size_t)cus;
    }
    if (mc && isa == AK_MATRIX_WGMMA) {
        /* the Hopper kernel: 16-bit inputs, A k-contiguous, B stored N x K, 16-byte rows; else mma.sync */
        const int cus = !_ak_op_is_cpu(ctx) && ctx->dev.compute_units > 0 ? ctx->dev.compute_units : (arch->compute_units > 0 ? arch->compute_units : 132);
        const int ok = (g->dtype != AK_F32 || fast32) && !g->trans_a && g->trans_b && !strcmp(arch->name, "sm_90") &&
                       _ak_gemm_vec(g->a, s->lda, g->stride_a, s->esz) && _ak_gemm_vec(g->b, s->ldb, g->stride_b, s->esz) &&
                       g->m >= 64 && g->n >= 64;
        if (ok) small = ((g->m + 127) / 128) * ((g->n + 255) / 256) * g->batch < (size_t)cus;
        else isa = AK_MATRIX_MMA;
    }
    /* decode shapes: B stored N x K and 16-byte rows -> the skinny kernel (exact fp32 math, any arch) */
    if (g->m <= 16 && g->trans_b && _ak_gemm_vec(g->b, s->ldb, g->stride_b, s->esz)) {
        small = 2;
        fast32 = 0;
    }
    t = _ak_gemm_tile_find(mc ? isa : AK_MATRIX_NONE, small);
    p->bm = t->bm; p->bn = t->bn; p->bk = g->dtype == AK_F32 ? t->bk32 : t->bk16; p->threads = t->threads;
    p->reason = t->reason;
    p->path = small == 2 ? "skinny" : !mc ? "simt" : isa == AK_MATRIX_MFMA ? "mfma" : isa == AK_MATRIX_WMMA ? "wmma"
              : isa == AK_MATRIX_WGMMA ? "wgmma" : "mma.sync";
    if (small != 2 && isa == AK_MATRIX_WGMMA && mc) p->shared_bytes = (size_t)4 * (size_t)(t->bm + t->bn) * 128 + 1024;
    p->fast32 = fast32;
    dt = g->dtype == AK_F16 ? "f16" : g->dtype == AK_BF16 ? "bf16" : fast32 ? "x32" : "f32";
    snprintf(p->kernel, sizeof p->kernel, "ak_gemm_%s_%s", t->tag, dt);
    if (_ak_op_is_cpu(ctx) && !(ctx->cfg.arch && *ctx->cfg.arch && !_ak_streq_ci(ctx->cfg.arch, "auto"))) {
        p->path = "cpu";
        p->kernel[0] = 0;
    }
    return AK_OK;
}

AKDEF ak_result ak_gemm_plan_get(ak_context* ctx, const ak_gemm_desc* g, ak_gemm_plan* out) {
    _ak_gemm_shape s;
    ak_result r;
    if (!out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm_plan_get: out is NULL");
    memset(out, 0, sizeof *out);
    if ((r = _ak_gemm_check(ctx, g, &s)) != AK_OK) return r;
    return _ak_gemm_plan(ctx, g, &s, out);
}

/* ---- CPU reference: double accumulation, rows split over threads -------- */
static double _ak_gemm_tf32(double v) {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7F800000u) != 0x7F800000u) { u += 0x1000u; u &= 0xFFFFE000u; } /* nearest, ties away (cvt.rna.tf32) */
    memcpy(&f, &u, 4);
    return (double)f;
}

typedef struct _ak_gemm_ref_job {
    const ak_gemm_desc* g;
    const _ak_gemm_shape* s;
    const double *a, *bt;   /* op(A) m x k, op(B)^T n x k of the current problem */
    size_t batch_i, r0, r1;
} _ak_gemm_ref_job;

static void* _ak_gemm_ref_rows(void* arg) {
    const _ak_gemm_ref_job* j = (const _ak_gemm_ref_job*)arg;
    const ak_gemm_desc* g = j->g;
    const _ak_gemm_shape* s = j->s;
    const size_t b = j->batch_i, K = s->k;
    size_t i, jj, kk;
    for (i = j->r0; i < j->r1; i++)
        for (jj = 0; jj < s->n; jj++) {
            const double* ar = j->a + i * K;
            const double* br = j->bt + jj * K;
            double acc = 0.0, v;
            for (kk = 0; kk < K; kk++) acc += ar[kk] * br[kk];
            v = (double)g->alpha * acc;
            if (g->beta != 0.0f) v += (double)g->beta * _ak_op_ld(g->c, g->out_dtype, b * g->stride_c + i * s->ldc + jj);
            if (g->bias) v += _ak_op_ld(g->bias, g->out_dtype, jj);
            if (g->activation >= 0) v = _ak_ew_unary_ref((ak_unary_op)g->activation, v, (double)g->act_param);
            if (g->residual) v += _ak_op_ld(g->residual, g->out_dtype, b * g->stride_r + i * s->ldr + jj);
            _ak_op_st(g->d, g->out_dtype, b * g->stride_d + i * s->ldd + jj, (float)v);
        }
    return NULL;
}

static ak_result _ak_gemm_ref(const ak_gemm_desc* g, const _ak_gemm_shape* s, int tf32) {
    double* a = s->k > SIZE_MAX / 8 / s->m ? NULL : (double*)_ak_alloc(sizeof(double) * s->m * s->k);
    double* bt = s->k > SIZE_MAX / 8 / s->n ? NULL : (double*)_ak_alloc(sizeof(double) * s->n * s->k);
    size_t b, i, kk;
    if (!a || !bt) {
        _ak_dealloc(a);
        _ak_dealloc(bt);
        return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_gemm (cpu): out of host memory for the reference (%zu x %zu, %zu x %zu)", s->m, s->k, s->n, s->k);
    }
    for (b = 0; b < s->batch; b++) {
        enum { MAXT = 8 };
        pthread_t th[MAXT];
        _ak_gemm_ref_job jobs[MAXT];
        int started[MAXT], nt, t;
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        double work = (double)s->m * (double)s->n * (double)s->k;
        for (i = 0; i < s->m; i++)
            for (kk = 0; kk < s->k; kk++) {
                size_t idx = b * g->stride_a + (g->trans_a ? kk * s->lda + i : i * s->lda + kk);
                double v = _ak_op_ld(g->a, g->dtype, idx);
                a[i * s->k + kk] = tf32 ? _ak_gemm_tf32(v) : v;
            }
        for (i = 0; i < s->n; i++)
            for (kk = 0; kk < s->k; kk++) {
                size_t idx = b * g->stride_b + (g->trans_b ? i * s->ldb + kk : kk * s->ldb + i);
                double v = _ak_op_ld(g->b, g->dtype, idx);
                bt[i * s->k + kk] = tf32 ? _ak_gemm_tf32(v) : v;
            }
        nt = work < 4e6 ? 1 : (int)(ncpu < 1 ? 1L : ncpu > (long)MAXT ? (long)MAXT : ncpu);
        if ((size_t)nt > s->m) nt = (int)s->m;
        for (t = 0; t < nt; t++) {
            jobs[t].g = g; jobs[t].s = s; jobs[t].a = a; jobs[t].bt = bt; jobs[t].batch_i = b;
            jobs[t].r0 = s->m * (size_t)t / (size_t)nt;
            jobs[t].r1 = s->m * (size_t)(t + 1) / (size_t)nt;
            started[t] = t > 0 && pthread_create(&th[t], NULL, _ak_gemm_ref_rows, &jobs[t]) == 0;
        }
        _ak_gemm_ref_rows(&jobs[0]);
        for (t = 1; t < nt; t++) {
            if (started[t]) pthread_join(th[t], NULL);
            else _ak_gemm_ref_rows(&jobs[t]); /* thread creation failed: do it here */
        }
    }
    _ak_dealloc(a);
    _ak_dealloc(bt);
    return AK_OK;
}

static int _ak_gemm_vec(const void* p, size_t ld, size_t stride, size_t esz) {
    return ((uintptr_t)p % 16) == 0 && (ld * esz) % 16 == 0 && (stride * esz) % 16 == 0;
}

AKDEF ak_result ak_gemm(ak_context* ctx, const ak_gemm_desc* g, ak_stream* stream) {
    _ak_gemm_shape s;
    ak_gemm_plan p;
    ak_result r;
    ak_kernel* k = NULL;
    _ak_kargs a;
    ak_dim3 grid, block;
    int flags;
    if ((r = _ak_gemm_check(ctx, g, &s)) != AK_OK) return r;
    if ((r = _ak_op_check_stream(ctx, stream, "ak_gemm")) != AK_OK) return r;
    if ((r = _ak_gemm_plan(ctx, g, &s, &p)) != AK_OK) return r;
    if (_ak_op_is_cpu(ctx)) return _ak_gemm_ref(g, &s, p.fast32);
    /* the wgmma kernels need the arch-specific target (sm_90a) */
    if ((r = _ak_op_kernel_at(ctx, _ak_src_gemm, p.kernel, p.shared_bytes ? "sm_90a" : NULL, &k)) != AK_OK) return r;
    flags = (g->trans_a ? 1 : 0) | (g->trans_b ? 2 : 0) | (g->out_dtype == AK_F32 ? 4 : 0) | (g->beta != 0.0f ? 8 : 0) |
            (g->bias ? 16 : 0) | (g->residual ? 32 : 0) | (_ak_gemm_vec(g->a, s.lda, g->stride_a, s.esz) ? 64 : 0) |
            (_ak_gemm_vec(g->b, s.ldb, g->stride_b, s.esz) ? 128 : 0) | ((g->activation + 1) << 8);
    /* every kernel of kernels/gemm.hip has this one parameter list (AK_GEMM_PARAMS_T) */
    _ak_kargs_gemm_mma(&a, g->a, g->b, g->beta != 0.0f ? g->c : NULL, g->d, g->bias, g->residual, (int32_t)s.m,
                       (int32_t)s.n, (int32_t)s.k, (int64_t)s.lda, (int64_t)s.ldb, (int64_t)s.ldc, (int64_t)s.ldd,
                       (int64_t)s.ldr, (int64_t)g->stride_a, (int64_t)g->stride_b, (int64_t)g->stride_c,
                       (int64_t)g->stride_d, (int64_t)g->stride_r, (int32_t)s.batch, g->alpha, g->beta, flags,
                       g->act_param);
    grid.x = (unsigned)((s.n + (size_t)p.bn - 1) / (size_t)p.bn);
    grid.y = (unsigned)((s.m + (size_t)p.bm - 1) / (size_t)p.bm); /* skinny: bm = 16 >= m, one row of blocks */
    grid.z = (unsigned)(s.batch < 65535 ? s.batch : 65535);
    block.x = (unsigned)p.threads; block.y = 1; block.z = 1;
    if (grid.y > 65535)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_gemm: m = %zu needs %u row blocks of %d, the launch allows 65535", s.m, grid.y, p.bm);
    return _ak_op_launch3(ctx, k, grid, block, p.shared_bytes, stream, &a);
}

/* ==========================================================================
 * >>impl:ops-attention  ak_attention: argument checks, path choice (SIMT /
 * split + combine), launches, and the CPU reference. Kernels:
 * kernels/attention.hip (its top comment explains the layout of the work).
 * ========================================================================== */

#define _AK_AT_MAX_SPLITS 128   /* cap of num_splits (and of the automatic choice) */
#define _AK_AT_THREADS 256u     /* block of the SIMT kernel (AK_ATTN_THREADS) */
#define _AK_AT_MAX_GRIDZ 65535u /* grid.z limit (CUDA): batch x heads_kv per launch */

AKDEF const char* ak_attention_layout_name(ak_attention_layout layout) {
    static const char* n[] = { "bhsd", "bshd", "strided" };
    if ((int)layout < 0 || (int)layout >= (int)AK_ATTN_LAYOUT_COUNT) return "?";
    return n[layout];
}

/* Element strides (batch, head, seq) of one tensor of `heads` x `seq` rows. */
static void _ak_at_strides(const ak_attention_args* a, const int64_t* given, size_t heads, size_t seq,
                           int64_t st[3]) {
    int64_t d = (int64_t)a->head_dim, H = (int64_t)heads, S = (int64_t)seq;
    if (a->layout == AK_ATTN_BHSD) { st[0] = H * S * d; st[1] = S * d; st[2] = d; }
    else if (a->layout == AK_ATTN_BSHD) { st[0] = S * H * d; st[1] = d; st[2] = H * d; }
    else { st[0] = given[0]; st[1] = given[1]; st[2] = given[2]; }
}

/* Elements spanned by a tensor (largest offset + head_dim); 0 on overflow. */
static size_t _ak_at_extent(const int64_t st[3], size_t n0, size_t n1, size_t n2, size_t d) {
    size_t n[3], tot = d, i;
    n[0] = n0; n[1] = n1; n[2] = n2;
    for (i = 0; i < 3; i++) {
        size_t s = (size_t)st[i];
        if (n[i] > 1 && s > 0) {
            if (s > ((size_t)PTRDIFF_MAX - tot) / (n[i] - 1)) return 0;
            tot += s * (n[i] - 1);
        }
    }
    return tot;
}

/* Distinct (b, h, s) rows of o must not overlap: with the dimensions sorted by
 * stride, each stride must step over everything the smaller ones span. */
static int _ak_at_rows_disjoint(const int64_t st[3], size_t n0, size_t n1, size_t n2, size_t d) {
    size_t n[3], s[3], span = d;
    int i, j;
    n[0] = n0; n[1] = n1; n[2] = n2;
    for (i = 0; i < 3; i++) s[i] = (size_t)st[i];
    for (i = 0; i < 3; i++)
        for (j = i + 1; j < 3; j++)
            if (s[j] < s[i]) {
                size_t t = s[i]; s[i] = s[j]; s[j] = t;
                t = n[i]; n[i] = n[j]; n[j] = t;
            }
    for (i = 0; i < 3; i++) {
        if (n[i] <= 1) continue;
        if (s[i] < span) return 0;
        span = s[i] * (n[i] - 1) + span;
    }
    return 1;
}

/* Everything ak_attention checks, and what the launches need. */
typedef struct _ak_at_plan {
    int64_t qs[3], ks[3], vs[3], os[3];
    size_t qext, kext, vext, oext;   /* elements spanned */
    size_t group;                    /* heads_q / heads_kv */
    float scale;
    int dmax;                        /* padded head_dim of the kernel: 32, 64, 128, 256 (SIMT), 64, 128 (mma) */
    int R;                           /* rows per block */
    int nsplit, split_len;
    int vec;
    int mma;                         /* 1: kernels/attention_mma.hip (matrix units) */
    unsigned threads;                /* block size */
    size_t shmem;                    /* dynamic shared memory of the launch */
    char kname[48];                  /* kernel name without the dtype suffix */
} _ak_at_plan;

static ak_result _ak_at_check(ak_context* ctx, const ak_attention_args* a, ak_stream* s, _ak_at_plan* p) {
    const char* op = "ak_attention";
    ak_result r = _ak_op_check_ctx(ctx, op);
    size_t es;
    if (r != AK_OK) return r;
    if (!a) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: args is NULL");
    memset(p, 0, sizeof *p);
    if ((r = _ak_op_check_float(a->dtype, op)) != AK_OK) return r;
    if ((r = _ak_op_check_stream(ctx, s, op)) != AK_OK) return r;
    if (!a->batch || !a->heads_q || !a->heads_kv || !a->seq_q || !a->seq_kv || !a->head_dim)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT,
                       "ak_attention: a zero dimension (batch %zu, heads_q %zu, heads_kv %zu, seq_q %zu, seq_kv %zu, "
                       "head_dim %zu); all must be >= 1", a->batch, a->heads_q, a->heads_kv, a->seq_q, a->seq_kv,
                       a->head_dim);
    if (a->head_dim > 256)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: head_dim %zu is not supported (at most 256)",
                       a->head_dim);
    if (a->heads_q % a->heads_kv)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT,
                       "ak_attention: heads_q %zu is not a multiple of heads_kv %zu (GQA needs whole groups)",
                       a->heads_q, a->heads_kv);
    if (a->seq_kv > 0x7FFFFFFFu || a->heads_kv > _AK_AT_MAX_GRIDZ ||
        a->seq_q > 0x7FFFFFFFu / (a->heads_q / a->heads_kv) || a->heads_q > 0x7FFFFFFFu ||
        a->batch > 0x7FFFFFFFu)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT,
                       "ak_attention: shape too large (seq_kv and (heads_q / heads_kv) x seq_q must be < 2^31, "
                       "heads_kv <= %u)", _AK_AT_MAX_GRIDZ);
    if ((int)a->layout < 0 || (int)a->layout >= (int)AK_ATTN_LAYOUT_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: layout %d unknown (expected AK_ATTN_BHSD, "
                       "AK_ATTN_BSHD or AK_ATTN_STRIDED)", (int)a->layout);
    if (!(a->scale == a->scale) || a->scale > 3.0e38f || a->scale < -3.0e38f)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: scale %g is not finite", (double)a->scale);
    if (a->num_splits < 0 || a->num_splits > _AK_AT_MAX_SPLITS)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: num_splits %d out of range [0, %d]", a->num_splits,
                       _AK_AT_MAX_SPLITS);
    if ((r = _ak_op_check_ptr(a->q, a->dtype, "ak_attention: q")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(a->k, a->dtype, "ak_attention: k")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(a->v, a->dtype, "ak_attention: v")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(a->o, a->dtype, "ak_attention: o")) != AK_OK) return r;
    if (a->lse && ((uintptr_t)a->lse & 3u))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: lse = %p is not aligned to 4 bytes", (void*)a->lse);
    if (a->layout == AK_ATTN_STRIDED) {
        int i;
        for (i = 0; i < 3; i++)
            if (a->q_stride[i] < 0 || a->k_stride[i] < 0 || a->v_stride[i] < 0 || a->o_stride[i] < 0)
                return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: negative stride (q %lld %lld %lld, k %lld %lld "
                               "%lld, v %lld %lld %lld, o %lld %lld %lld)", (long long)a->q_stride[0],
                               (long long)a->q_stride[1], (long long)a->q_stride[2], (long long)a->k_stride[0],
                               (long long)a->k_stride[1], (long long)a->k_stride[2], (long long)a->v_stride[0],
                               (long long)a->v_stride[1], (long long)a->v_stride[2], (long long)a->o_stride[0],
                               (long long)a->o_stride[1], (long long)a->o_stride[2]);
    }
    if (a->batch > (size_t)INT64_MAX / a->heads_q / a->seq_q / a->head_dim ||
        a->batch > (size_t)INT64_MAX / a->heads_kv / a->seq_kv / a->head_dim)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: shape overflows");
    _ak_at_strides(a, a->q_stride, a->heads_q, a->seq_q, p->qs);
    _ak_at_strides(a, a->k_stride, a->heads_kv, a->seq_kv, p->ks);
    _ak_at_strides(a, a->v_stride, a->heads_kv, a->seq_kv, p->vs);
    _ak_at_strides(a, a->o_stride, a->heads_q, a->seq_q, p->os);
    p->qext = _ak_at_extent(p->qs, a->batch, a->heads_q, a->seq_q, a->head_dim);
    p->kext = _ak_at_extent(p->ks, a->batch, a->heads_kv, a->seq_kv, a->head_dim);
    p->vext = _ak_at_extent(p->vs, a->batch, a->heads_kv, a->seq_kv, a->head_dim);
    p->oext = _ak_at_extent(p->os, a->batch, a->heads_q, a->seq_q, a->head_dim);
    if (!p->qext || !p->kext || !p->vext || !p->oext)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: strides overflow the address space");
    if ((r = _ak_op_check_bytes(ctx, p->qext, a->dtype, "ak_attention: q")) != AK_OK) return r;
    if ((r = _ak_op_check_bytes(ctx, p->kext, a->dtype, "ak_attention: k")) != AK_OK) return r;
    if ((r = _ak_op_check_bytes(ctx, p->vext, a->dtype, "ak_attention: v")) != AK_OK) return r;
    if ((r = _ak_op_check_bytes(ctx, p->oext, a->dtype, "ak_attention: o")) != AK_OK) return r;
    if (!_ak_at_rows_disjoint(p->os, a->batch, a->heads_q, a->seq_q, a->head_dim))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_attention: o strides (%lld, %lld, %lld) make output rows "
                       "overlap", (long long)p->os[0], (long long)p->os[1], (long long)p->os[2]);
    es = ak_dtype_size(a->dtype);
    if ((r = _ak_op_check_overlap(a->o, p->oext * es, a->q, p->qext * es, 0, "ak_attention: o and q")) != AK_OK ||
        (r = _ak_op_check_overlap(a->o, p->oext * es, a->k, p->kext * es, 0, "ak_attention: o and k")) != AK_OK ||
        (r = _ak_op_check_overlap(a->o, p->oext * es, a->v, p->vext * es, 0, "ak_attention: o and v")) != AK_OK)
        return r;
    if (a->lse) {
        size_t lb = a->batch * a->heads_q * a->seq_q * 4u;
        if ((r = _ak_op_check_overlap(a->lse, lb, a->o, p->oext * es, 0, "ak_attention: lse and o")) != AK_OK ||
            (r = _ak_op_check_overlap(a->lse, lb, a->q, p->qext * es, 0, "ak_attention: lse and q")) != AK_OK ||
            (r = _ak_op_check_overlap(a->lse, lb, a->k, p->kext * es, 0, "ak_attention: lse and k")) != AK_OK ||
            (r = _ak_op_check_overlap(a->lse, lb, a->v, p->vext * es, 0, "ak_attention: lse and v")) != AK_OK)
            return r;
    }
    p->group = a->heads_q / a->heads_kv;
    p->scale = a->scale != 0.0f ? a->scale : (float)(1.0 / sqrt((double)a->head_dim));
    return AK_OK;
}

static int _ak_at_aligned(const void* ptr, const int64_t st[3], size_t es) {
    int i;
    if ((uintptr_t)ptr & 15u) return 0;
    for (i = 0; i < 3; i++)
        if (((size_t)st[i] * es) & 15u) return 0;
    return 1;
}

/* The kernel, its geometry and the split of seq_kv.
 * Kernel: the matrix-unit family (kernels/attention_mma.hip) when the device
 * has a matrix instruction (NVIDIA sm_80+ mma.sync: the flash-attention 2
 * kernel; AMD MFMA / WMMA: the generic fragment kernel), config matrix_cores
 * is on, dtype f16 / bf16, head_dim 64 or 128 and every row of q, k, v, o is
 * 16-byte aligned; its decode form (one row tile per block) when a (batch,
 * kv head) pair has few rows (GQA group x seq_q <= 16 on NVIDIA, <= one
 * wave's M on AMD). Else the SIMT family (kernels/attention.hip), every arch,
 * any head_dim <= 256, with all of a pair's rows in one block when few.
 * Split (flash-decoding): num_splits, or automatically when the grid is
 * under 4 waves of resident blocks: the fewest splits (whole key tiles, each
 * split >= 2 tiles) whose last wave is >= 90% full, else the fullest. */
static void _ak_at_plan_path(ak_context* ctx, const ak_attention_args* a, _ak_at_plan* p) {
    size_t d = a->head_dim, rows = p->group * a->seq_q, blocks, bk, tiles, es = ak_dtype_size(a->dtype);
    size_t slots = 2; /* resident blocks per compute unit */
    const ak_arch_info* arch = ctx->dev.arch_info;
    ak_matrix_isa isa = arch ? arch->matrix : AK_MATRIX_NONE;
    int mc = !_ak_op_is_cpu(ctx) && ctx->cfg.matrix_cores == AK_ON && isa != AK_MATRIX_NONE &&
             (a->dtype == AK_F16 || a->dtype == AK_BF16) && (d == 64 || d == 128) &&
             _ak_at_aligned(a->q, p->qs, es) && _ak_at_aligned(a->k, p->ks, es) && _ak_at_aligned(a->v, p->vs, es) &&
             _ak_at_aligned(a->o, p->os, es);
    if (mc) {
        int nv = isa == AK_MATRIX_MMA || isa == AK_MATRIX_WGMMA;
        size_t M = isa == AK_MATRIX_MFMA ? 32 : 16, lds = arch->lds_bytes > 0 ? (size_t)arch->lds_bytes : 65536;
        int dec = rows <= M;
        p->mma = 1;
        p->dmax = (int)d;
        if (nv) { /* 4 warps: 64 rows, 2 K/V stages; or 16 rows, the warps splitting each key tile, 3 stages */
            p->R = dec ? 16 : 64;
            p->threads = 128u;
            p->shmem = (size_t)(p->R + (dec ? 6 : 4) * 64) * (d + 8) * es;
            bk = 64;
            slots = lds / (p->shmem + 1024);
        } else { /* waves of M rows each, static shared memory (~33-48 KB) */
            unsigned wave = (unsigned)_ak_target_wave(ctx, ctx->dev.arch);
            p->R = (int)(M * (dec ? 1u : 4u));
            p->threads = wave * (dec ? 1u : 4u);
            p->shmem = 0;
            bk = 32;
            slots = 1;
        }
        if (slots < 1) slots = 1;
        if (slots > 4) slots = 4;
        snprintf(p->kname, sizeof p->kname, "%s%d", dec ? "ak_attn_mmadec" : "ak_attn_mma", (int)d);
    } else {
        int G, NG, R = 1;
        p->mma = 0;
        p->dmax = d <= 32 ? 32 : d <= 64 ? 64 : d <= 128 ? 128 : 256;
        G = p->dmax / 16;
        NG = (int)_AK_AT_THREADS / G;
        while ((size_t)R < rows && R < NG) R <<= 1;
        p->R = R;
        p->threads = _AK_AT_THREADS;
        p->shmem = 0;
        snprintf(p->kname, sizeof p->kname, "ak_attn_simt%d", p->dmax);
        bk = (size_t)(4096 / p->dmax);
        slots = 2;
    }
    blocks = (rows + (size_t)p->R - 1) / (size_t)p->R * a->batch * a->heads_kv;
    tiles = (a->seq_kv + bk - 1) / bk;
    p->nsplit = 1;
    if (a->num_splits > 1) p->nsplit = a->num_splits;
    else if (a->num_splits == 0) {
        double st = (double)_ak_op_cus(ctx) * (double)slots, best_eff = 0.0;
        size_t cap = tiles / 2, ns;
        if (cap > _AK_AT_MAX_SPLITS) cap = _AK_AT_MAX_SPLITS;
        if ((double)blocks < 4.0 * st)
            for (ns = 1; ns <= cap; ns++) {
                double w = (double)blocks * (double)ns / st, eff = w < 1.0 ? w : w / ceil(w);
                if (eff > best_eff + 1e-9) { best_eff = eff; p->nsplit = (int)ns; }
                if (eff >= 0.9) break;
            }
    }
    if ((size_t)p->nsplit > tiles) p->nsplit = (int)tiles;
    if (p->nsplit < 1) p->nsplit = 1;
    {   /* whole tiles per split; recount the splits that are not empty */
        size_t per = (tiles + (size_t)p->nsplit - 1) / (size_t)p->nsplit;
        p->split_len = (int)(per * bk);
        p->nsplit = (int)((tiles + per - 1) / per);
        if (p->nsplit == 1) p->split_len = (int)(tiles * bk);
    }
}

/* ---- CPU reference (host pointers; double accumulation) ---------------- */
/* Element e of key/value row j of a (batch, kv head) pair: from the fp32 copy
 * of the pair when there is one (kf: seq_kv x head_dim), else from memory. */
static double _ak_at_kv(const float* kf, const char* base, int64_t ss, ak_dtype t, size_t d, size_t j, size_t e) {
    if (kf) return (double)kf[j * d + e];
    return (double)_ak_op_ld(base + (size_t)ss * j * ak_dtype_size(t), t, e);
}

/* One row against keys [k0, k1) (causal limit applied): the max m of the
 * scaled scores, l = sum exp(s - m), and acc = sum exp(s - m) v (d values).
 * No visible key: m = -inf, l = 0, acc = 0. q: the row in double. */
static void _ak_at_cpu_part(const ak_attention_args* a, const _ak_at_plan* p, const double* q, const float* kf,
                            const float* vf, const char* kb, const char* vb, size_t i, size_t k0, size_t k1,
                            double* s, double* m, double* l, double* acc) {
    size_t j, e, d = a->head_dim, lim = k1;
    double mm = -HUGE_VAL, ll = 0.0;
    if (a->causal) { /* visible: j <= i + seq_kv - seq_q */
        if (i + a->seq_kv < a->seq_q) lim = 0;
        else if (i + a->seq_kv - a->seq_q + 1 < lim) lim = i + a->seq_kv - a->seq_q + 1;
    }
    for (e = 0; e < d; e++) acc[e] = 0.0;
    *m = -HUGE_VAL; *l = 0.0;
    if (lim <= k0) return;
    for (j = k0; j < lim; j++) {
        double x = 0.0, x1 = 0.0;
        if (kf) { /* two partial sums: half the dependency chain */
            const float* kr = kf + j * d;
            for (e = 0; e + 1 < d; e += 2) { x += q[e] * (double)kr[e]; x1 += q[e + 1] * (double)kr[e + 1]; }
            if (e < d) x += q[e] * (double)kr[e];
            x += x1;
        } else {
            for (e = 0; e < d; e++) x += q[e] * _ak_at_kv(kf, kb, p->ks[2], a->dtype, d, j, e);
        }
        s[j - k0] = x * (double)p->scale;
        if (s[j - k0] > mm) mm = s[j - k0];
    }
    for (j = k0; j < lim; j++) {
        double w = exp(s[j - k0] - mm);
        ll += w;
        if (vf) {
            const float* vr = vf + j * d;
            for (e = 0; e < d; e++) acc[e] += w * (double)vr[e];
        } else {
            for (e = 0; e < d; e++) acc[e] += w * _ak_at_kv(vf, vb, p->vs[2], a->dtype, d, j, e);
        }
    }
    *m = mm; *l = ll;
}

/* Plain softmax(scale q.k) v per row, two passes in double. The reference
 * follows the kernels' split: with nsplit > 1 each split's normalized
 * partial output and log-sum-exp are combined the way ak_attn_combine does,
 * so the combine rule is tested on every machine. K and V of a (batch, kv
 * head) pair are read into fp32 copies first when they take <= 64 MiB. */
static ak_result _ak_at_cpu(const ak_attention_args* a, const _ak_at_plan* p) {
    size_t es = ak_dtype_size(a->dtype), d = a->head_dim, b, hk, g, i, e, j;
    int sp, ns = p->nsplit;
    size_t slen = ns > 1 ? (size_t)p->split_len : a->seq_kv;
    double* s = (double*)_ak_alloc((slen + 1) * sizeof(double));
    double* qd = (double*)_ak_alloc(d * sizeof(double));
    double* acc = (double*)_ak_alloc(d * sizeof(double));
    double* out = (double*)_ak_alloc(d * sizeof(double));
    double* po = (double*)_ak_alloc((size_t)ns * d * sizeof(double));
    double* pl = (double*)_ak_alloc((size_t)ns * sizeof(double));
    float *kf = NULL, *vf = NULL;
    ak_result r = AK_OK;
    if (!s || !qd || !acc || !out || !po || !pl) {
        r = _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_attention (cpu): out of host memory");
        goto done;
    }
    if (a->seq_kv * d <= ((size_t)64 << 20) / 8u) {
        kf = (float*)_ak_alloc(a->seq_kv * d * sizeof(float));
        vf = (float*)_ak_alloc(a->seq_kv * d * sizeof(float));
        if (!kf || !vf) { _ak_dealloc(kf); _ak_dealloc(vf); kf = vf = NULL; }
    }
    for (b = 0; b < a->batch; b++)
        for (hk = 0; hk < a->heads_kv; hk++) {
            const char* kb = (const char*)a->k + ((size_t)p->ks[0] * b + (size_t)p->ks[1] * hk) * es;
            const char* vb = (const char*)a->v + ((size_t)p->vs[0] * b + (size_t)p->vs[1] * hk) * es;
            if (kf)
                for (j = 0; j < a->seq_kv; j++)
                    for (e = 0; e < d; e++) {
                        kf[j * d + e] = _ak_op_ld(kb + (size_t)p->ks[2] * j * es, a->dtype, e);
                        vf[j * d + e] = _ak_op_ld(vb + (size_t)p->vs[2] * j * es, a->dtype, e);
                    }
            for (g = 0; g < p->group; g++) {
                size_t h = hk * p->group + g;
                for (i = 0; i < a->seq_q; i++) {
                    const char* qrow = (const char*)a->q + ((size_t)p->qs[0] * b + (size_t)p->qs[1] * h + (size_t)p->qs[2] * i) * es;
                    char* orow = (char*)a->o + ((size_t)p->os[0] * b + (size_t)p->os[1] * h + (size_t)p->os[2] * i) * es;
                    double lse = -HUGE_VAL, M = -HUGE_VAL, W = 0.0;
                    for (e = 0; e < d; e++) qd[e] = (double)_ak_op_ld(qrow, a->dtype, e);
                    for (sp = 0; sp < ns; sp++) {
                        size_t k0 = (size_t)sp * slen, k1 = k0 + slen < a->seq_kv ? k0 + slen : a->seq_kv;
                        double m, l;
                        _ak_at_cpu_part(a, p, qd, kf, vf, kb, vb, i, k0, k1, s, &m, &l, acc);
                        pl[sp] = l > 0.0 ? m + log(l) : -HUGE_VAL;
                        for (e = 0; e < d; e++) po[(size_t)sp * d + e] = l > 0.0 ? acc[e] / l : 0.0;
                        if (pl[sp] > M) M = pl[sp];
                    }
                    for (e = 0; e < d; e++) out[e] = 0.0;
                    if (M > -HUGE_VAL) {
                        for (sp = 0; sp < ns; sp++) {
                            double w = exp(pl[sp] - M);
                            W += w;
                            for (e = 0; e < d; e++) out[e] += w * po[(size_t)sp * d + e];
                        }
                        for (e = 0; e < d; e++) out[e] /= W;
                        lse = M + log(W);
                    }
                    for (e = 0; e < d; e++) _ak_op_st(orow, a->dtype, e, (float)out[e]);
                    if (a->lse) a->lse[(b * a->heads_q + h) * a->seq_q + i] = (float)lse;
                }
            }
        }
done:
    _ak_dealloc(s); _ak_dealloc(qd); _ak_dealloc(acc); _ak_dealloc(out); _ak_dealloc(po); _ak_dealloc(pl);
    _ak_dealloc(kf); _ak_dealloc(vf);
    return r;
}

/* ---- GPU launches ----------------------------------------------------- */
static ak_result _ak_at_launch(ak_context* ctx, const ak_attention_args* a, _ak_at_plan* p, ak_stream* stream) {
    size_t es = ak_dtype_size(a->dtype), rows = p->group * a->seq_q, b0, nb_max;
    ak_kernel *k = NULL, *kc = NULL;
    ak_result r;
    char kname[64];
    void* ws = NULL;
    float* part = NULL;
    _ak_at_plan_path(ctx, a, p);
    p->vec = a->head_dim % 8 == 0 && _ak_at_aligned(a->k, p->ks, es) && _ak_at_aligned(a->v, p->vs, es);
    if ((r = _ak_op_kernel(ctx, p->mma ? _ak_src_attention_mma : _ak_src_attention,
                           _ak_op_name(kname, sizeof kname, p->kname, a->dtype), &k)) != AK_OK)
        return r;
    nb_max = _AK_AT_MAX_GRIDZ / a->heads_kv;
    if (p->nsplit > 1) {
        size_t nr = (nb_max < a->batch ? nb_max : a->batch) * a->heads_q * a->seq_q;
        size_t bytes = nr * (size_t)p->nsplit * ((size_t)p->dmax + 1u) * 4u;
        if ((r = _ak_op_kernel(ctx, _ak_src_attention, _ak_op_name(kname, sizeof kname, "ak_attn_combine", a->dtype),
                               &kc)) != AK_OK)
            return r;
        if ((r = ak_malloc(ctx, bytes, stream, &ws)) != AK_OK) return r;
        part = (float*)ws;
    }
    for (b0 = 0; b0 < a->batch && r == AK_OK; b0 += nb_max) {
        size_t nb = a->batch - b0 < nb_max ? a->batch - b0 : nb_max;
        _ak_kargs g;
        ak_dim3 grid, block;
        /* the SIMT and matrix-core kernels share one parameter list */
        _ak_kargs_attn_simt(&g, (const char*)a->q + (size_t)p->qs[0] * b0 * es, (const char*)a->k + (size_t)p->ks[0] * b0 * es,
                            (const char*)a->v + (size_t)p->vs[0] * b0 * es, (char*)a->o + (size_t)p->os[0] * b0 * es,
                            a->lse ? a->lse + b0 * a->heads_q * a->seq_q : NULL, (int32_t)a->heads_kv, (int32_t)p->group,
                            (int32_t)a->seq_q, (int32_t)a->seq_kv, (int32_t)a->head_dim, p->qs[0], p->qs[1], p->qs[2],
                            p->ks[0], p->ks[1], p->ks[2], p->vs[0], p->vs[1], p->vs[2], p->os[0], p->os[1], p->os[2],
                            p->scale * 1.4426950408889634f, a->causal ? 1 : 0, p->R, p->nsplit, p->split_len, part,
                            p->vec);
        grid.x = (unsigned)((rows + (size_t)p->R - 1) / (size_t)p->R);
        grid.y = (unsigned)p->nsplit;
        grid.z = (unsigned)(nb * a->heads_kv);
        block.x = p->threads; block.y = 1; block.z = 1;
        r = _ak_op_launch3(ctx, k, grid, block, p->shmem, stream, &g);
        if (r == AK_OK && p->nsplit > 1) {
            size_t nrows = nb * a->heads_q * a->seq_q;
            unsigned wpb = 256u / (unsigned)_ak_target_wave(ctx, ctx->dev.arch);
            _ak_kargs_attn_combine(&g, part, p->nsplit, p->dmax, (int64_t)nrows, (int32_t)a->heads_q, (int32_t)a->seq_q,
                                   (int32_t)a->head_dim, (char*)a->o + (size_t)p->os[0] * b0 * es, p->os[0], p->os[1],
                                   p->os[2], a->lse ? a->lse + b0 * a->heads_q * a->seq_q : NULL);
            r = _ak_op_launch(ctx, kc, (unsigned)((nrows + wpb - 1) / wpb), 256u, 0, stream, &g);
        }
    }
    if (ws) ak_free(ctx, ws);
    return r;
}

AKDEF ak_result ak_attention(ak_context* ctx, const ak_attention_args* args, ak_stream* stream) {
    _ak_at_plan p;
    ak_result r = _ak_at_check(ctx, args, stream, &p);
    if (r != AK_OK) return r;
    if (_ak_op_is_cpu(ctx)) {
        _ak_at_plan_path(ctx, args, &p);
        return _ak_at_cpu(args, &p);
    }
    return _ak_at_launch(ctx, args, &p, stream);
}

/* ==========================================================================
 * >>impl:ops-llm  LLM building blocks: residual add + layernorm / rmsnorm
 * (the RES = true instances of kernels/norm.hip), rotary position embedding
 * (kernels/llm.hip), embedding gather and strided N-d copy
 * (kernels/layout.hip), with their CPU references. The norm wrappers share
 * the row sizing of >>impl:ops-reduce (_ak_rd_*); the copy planning (drop
 * size-1 dimensions, order by destination stride, merge contiguous
 * dimensions, pick the widest unit) is _ak_nd_plan.
 * ========================================================================== */

/* The kernel `kname` of the embedded source `src`, launched on a 1-D grid
 * with the arguments of its generated packer. */
static ak_result _ak_llm_launch(ak_context* ctx, const char* src, const char* kname, unsigned grid, unsigned block,
                                ak_stream* stream, _ak_kargs* a) {
    ak_kernel* k = NULL;
    ak_result r;
    if ((r = _ak_op_kernel(ctx, src, kname, &k)) != AK_OK) return r;
    return _ak_op_launch(ctx, k, grid, block, 0, stream, a);
}

/* ---- residual add + norm -------------------------------------------------- */

/* CPU reference: h = x + r in fp32, rounded to t (what the kernels do), then
 * the norm reference of >>impl:ops-reduce on h. */
static void _ak_llm_cpu_add_norm(ak_dtype t, const void* x, const void* r, const void* w, const void* b, void* h,
                                 void* y, size_t rows, size_t cols, double eps, int rms) {
    size_t i, n = rows * cols;
    for (i = 0; i < n; i++) _ak_op_st(h, t, i, _ak_op_ld(x, t, i) + _ak_op_ld(r, t, i));
    _ak_rd_cpu_norm(t, h, w, b, y, rows, cols, eps, rms);
}

static ak_result _ak_llm_add_norm(ak_context* ctx, ak_dtype dtype, const void* x, const void* rs, const void* w,
                                  const void* b, void* h, void* y, size_t rows, size_t cols, float eps, int rms,
                                  ak_stream* stream) {
    const char* opn = rms ? "ak_add_rmsnorm" : "ak_add_layernorm";
    char what[96];
    ak_result r;
    size_t es, bytes;
    _ak_rd_norm_op o;
    const void* in[2];
    void* out[2];
    int i, j;

    if ((r = _ak_rd_check(ctx, dtype, x, "x", rows, cols, stream, opn)) != AK_OK) return r;
    snprintf(what, sizeof what, "%s: r", opn);
    if ((r = _ak_op_check_ptr(rs, dtype, what)) != AK_OK) return r;
    snprintf(what, sizeof what, "%s: h", opn);
    if ((r = _ak_op_check_ptr(h, dtype, what)) != AK_OK) return r;
    snprintf(what, sizeof what, "%s: y", opn);
    if ((r = _ak_op_check_ptr(y, dtype, what)) != AK_OK) return r;
    if ((r = _ak_rd_norm_check_wb(opn, dtype, w, b, eps)) != AK_OK) return r;
    es = ak_dtype_size(dtype);
    bytes = rows * cols * es;
    /* h and y: each the very same buffer as x or r, or apart from both; never overlapping each other */
    in[0] = x; in[1] = rs; out[0] = h; out[1] = y;
    if (_ak_rd_overlap(h, bytes, y, bytes))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: h and y overlap (they must be separate buffers)", opn);
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            if (_ak_rd_partial_overlap(in[j], bytes, out[i], bytes))
                return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %s partially overlaps %s (only the very same buffer is "
                               "allowed)", opn, i ? "y" : "h", j ? "r" : "x");
    for (i = 0; i < 2; i++)
        if (_ak_rd_overlap(out[i], bytes, w, cols * es) || _ak_rd_overlap(out[i], bytes, b, cols * es))
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %s overlaps weight or bias", opn, i ? "y" : "h");
    if (_ak_op_is_cpu(ctx)) {
        _ak_llm_cpu_add_norm(dtype, x, rs, w, b, h, y, rows, cols, (double)eps, rms);
        return AK_OK;
    }
    memset(&o, 0, sizeof o);
    o.x = (const char*)x; o.r = (const char*)rs; o.w = w; o.b = b; o.h = (char*)h; o.y = (char*)y;
    o.rms = rms; o.eps = eps;
    return _ak_rd_norm_launch(ctx, dtype, &o, rows, cols, stream);   /* >>impl:ops-reduce */
}

AKDEF ak_result ak_add_layernorm(ak_context* ctx, ak_dtype dtype, const void* x, const void* r, const void* weight,
                                 const void* bias, void* h, void* y, size_t rows, size_t cols, float eps,
                                 ak_stream* stream) {
    return _ak_llm_add_norm(ctx, dtype, x, r, weight, bias, h, y, rows, cols, eps, 0, stream);
}

AKDEF ak_result ak_add_rmsnorm(ak_context* ctx, ak_dtype dtype, const void* x, const void* r, const void* weight,
                               void* h, void* y, size_t rows, size_t cols, float eps, ak_stream* stream) {
    return _ak_llm_add_norm(ctx, dtype, x, r, weight, NULL, h, y, rows, cols, eps, 1, stream);
}

/* ---- rotary position embedding ---------------------------------------------- */

#define _AK_ROPE_MAX_ROT 1024u   /* rotary_dim limit: the kernel's cos / sin table holds 512 pairs */

/* Position t of a positions array (AK_I32 / AK_I64). */
static int64_t _ak_llm_pos(const void* p, ak_dtype t, size_t i) {
    return t == AK_I64 ? ((const int64_t*)p)[i] : (int64_t)((const int32_t*)p)[i];
}

/* fp32 inverse frequency of pair i, computed as the kernel does (double, then rounded). */
static float _ak_llm_inv_freq(size_t i, size_t rd, double l2theta) {
    return (float)exp2(-(double)(2 * i) / (double)rd * l2theta);
}

static void _ak_llm_cpu_rope(ak_rope_mode mode, ak_dtype t, ak_dtype pt, const void* x, const void* pos, void* y,
                             size_t tokens, size_t heads, size_t hd, size_t rd, double l2theta) {
    size_t tk, hh, i, half = rd / 2;
    for (tk = 0; tk < tokens; tk++) {
        float p = (float)_ak_llm_pos(pos, pt, tk);
        for (i = 0; i < half; i++) {
            volatile float a = p * _ak_llm_inv_freq(i, rd, l2theta);   /* the fp32 angle, no wider intermediate */
            double c = cos((double)a), s = sin((double)a);
            size_t i0 = mode == AK_ROPE_INTERLEAVED ? 2 * i : i, i1 = mode == AK_ROPE_INTERLEAVED ? 2 * i + 1 : i + half;
            for (hh = 0; hh < heads; hh++) {
                size_t base = (tk * heads + hh) * hd;
                double u = (double)_ak_op_ld(x, t, base + i0), v = (double)_ak_op_ld(x, t, base + i1);
                _ak_op_st(y, t, base + i0, (float)(u * c - v * s));
                _ak_op_st(y, t, base + i1, (float)(v * c + u * s));
            }
        }
        if (x != y)
            for (hh = 0; hh < heads; hh++)
                for (i = rd; i < hd; i++) {
                    size_t e = (tk * heads + hh) * hd + i;
                    _ak_op_st(y, t, e, _ak_op_ld(x, t, e));
                }
    }
}

AKDEF ak_result ak_rope(ak_context* ctx, ak_rope_mode mode, ak_dtype dtype, ak_dtype pos_dtype, const void* x,
                        const void* positions, void* y, size_t tokens, size_t heads, size_t head_dim,
                        size_t rotary_dim, float theta, ak_stream* stream) {
    const char* opn = "ak_rope";
    ak_result r;
    size_t es, bytes, row;
    double l2t;
    int vec, inplace, P, units;
    unsigned B;
    char kname[64];
    _ak_kargs a;

    if ((r = _ak_op_check_ctx(ctx, opn)) != AK_OK) return r;
    if ((int)mode < 0 || (int)mode >= (int)AK_ROPE_MODE_COUNT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: unknown mode %d (expected AK_ROPE_NEOX or AK_ROPE_INTERLEAVED)",
                       opn, (int)mode);
    if ((r = _ak_op_check_float(dtype, opn)) != AK_OK) return r;
    if (pos_dtype != AK_I32 && pos_dtype != AK_I64)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: pos_dtype %s (%d) not supported, expected i32 or i64", opn,
                       ak_dtype_name(pos_dtype), (int)pos_dtype);
    if (tokens == 0 || heads == 0 || head_dim == 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: shape %zu x %zu x %zu has a zero dimension", opn, tokens, heads,
                       head_dim);
    if (heads > 0x7FFFFFFFu / head_dim)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: heads * head_dim = %zu x %zu must be below 2^31", opn, heads,
                       head_dim);
    row = heads * head_dim;
    if ((r = _ak_op_check_shape2(ctx, tokens, row, dtype, opn)) != AK_OK) return r;
    if (rotary_dim < 2 || rotary_dim % 2 || rotary_dim > head_dim || rotary_dim > _AK_ROPE_MAX_ROT)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: rotary_dim = %zu, expected an even value in [2, min(head_dim = "
                       "%zu, %u)]", opn, rotary_dim, head_dim, _AK_ROPE_MAX_ROT);
    if (!(theta > 0.0f) || theta > FLT_MAX)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: theta = %g, expected a finite value > 0", opn, (double)theta);
    if ((r = _ak_op_check_stream(ctx, stream, opn)) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(x, dtype, "ak_rope: x")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(y, dtype, "ak_rope: y")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(positions, pos_dtype, "ak_rope: positions")) != AK_OK) return r;
    es = ak_dtype_size(dtype);
    bytes = tokens * row * es;
    if (_ak_rd_partial_overlap(x, bytes, y, bytes))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: y partially overlaps x (only y == x is allowed)", opn);
    if (_ak_rd_overlap(y, bytes, positions, tokens * ak_dtype_size(pos_dtype)))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: y overlaps positions", opn);
    l2t = log2((double)theta);
    if (_ak_op_is_cpu(ctx)) {
        _ak_llm_cpu_rope(mode, dtype, pos_dtype, x, positions, y, tokens, heads, head_dim, rotary_dim, l2t);
        return AK_OK;
    }
    vec = head_dim % 8 == 0 && rotary_dim % 8 == 0 && _ak_rd_aligned16(x) && _ak_rd_aligned16(y);
    inplace = x == y;
    /* work units per token, as the kernel counts them: the block size */
    P = vec ? (mode == AK_ROPE_INTERLEAVED ? 2 : 4) : 1;
    units = (int)(heads * (rotary_dim / 2 / (size_t)P) + (inplace ? 0 : heads * ((head_dim - rotary_dim) / (vec ? 4u : 1u))));
    B = _ak_rd_pow2((size_t)units, 256u);
    if (B < 64u) B = 64u;
    _ak_op_name(kname, sizeof kname, "ak_rope", dtype);
    _ak_kargs_rope(&a, x, positions, y, (int64_t)tokens, (int32_t)heads, (int32_t)head_dim, (int32_t)rotary_dim, l2t,
                   mode == AK_ROPE_INTERLEAVED, pos_dtype == AK_I64, vec, inplace);
    return _ak_llm_launch(ctx, _ak_src_llm, kname, tokens < 0x7FFFFFFFu ? (unsigned)tokens : 0x7FFFFFFFu, B, stream,
                          &a);
}

/* ---- shared by the copy and the gather: the widest unit ------------------------ */

/* Largest of 16, 8, 4, 2, 1 bytes dividing v (v = OR of the byte counts and addresses that must be multiples). */
static unsigned _ak_llm_unit(uint64_t v) {
    unsigned w = 16;
    while (w > 1 && (v & (w - 1))) w >>= 1;
    return w;
}
static const char* _ak_llm_unit_name(unsigned w) {
    return w == 16 ? "u128" : w == 8 ? "u64" : w == 4 ? "u32" : w == 2 ? "u16" : "u8";
}
/* Group size (threads per row, a power of two <= 256) and grid of a row walk. */
static unsigned _ak_llm_group(size_t units) { return _ak_rd_pow2(units, 256u); }
static unsigned _ak_llm_rows_grid(size_t rows, unsigned G) {
    size_t per = 256u / G, g = rows / per + (rows % per != 0);
    return g > 0x7FFFFFFFu ? 0x7FFFFFFFu : (unsigned)(g ? g : 1);
}

/* ---- embedding gather ---------------------------------------------------------- */

/* CPU reference: returns the first position with an index outside [0, vocab), or n. */
static size_t _ak_llm_cpu_embedding(size_t es, ak_dtype it, const void* table, const void* idx, void* out, size_t n,
                                    size_t vocab, size_t dim) {
    size_t i, bad = n, rb = dim * es;
    for (i = 0; i < n; i++) {
        int64_t k = _ak_llm_pos(idx, it, i);
        if (k < 0 || (uint64_t)k >= (uint64_t)vocab) {
            memset((char*)out + i * rb, 0, rb);
            if (bad == n) bad = i;
        } else {
            memcpy((char*)out + i * rb, (const char*)table + (size_t)k * rb, rb);
        }
    }
    return bad;
}

AKDEF ak_result ak_embedding(ak_context* ctx, ak_dtype dtype, ak_dtype idx_dtype, const void* table,
                             const void* indices, void* out, size_t num_indices, size_t vocab, size_t dim,
                             ak_stream* stream) {
    const char* opn = "ak_embedding";
    ak_result r;
    size_t es, rb, upr;
    unsigned W, G;
    char kname[64];
    _ak_kargs a;

    if ((r = _ak_op_check_ctx(ctx, opn)) != AK_OK) return r;
    es = ak_dtype_size(dtype);
    if (es == 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", opn, (int)dtype);
    if (idx_dtype != AK_I32 && idx_dtype != AK_I64)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: idx_dtype %s (%d) not supported, expected i32 or i64", opn,
                       ak_dtype_name(idx_dtype), (int)idx_dtype);
    if ((r = _ak_op_check_shape2(ctx, vocab, dim, dtype, "ak_embedding: table")) != AK_OK) return r;
    if ((r = _ak_op_check_shape2(ctx, num_indices, dim, dtype, "ak_embedding: out")) != AK_OK) return r;
    if ((r = _ak_op_check_bytes(ctx, num_indices, idx_dtype, "ak_embedding: indices")) != AK_OK) return r;
    if ((r = _ak_op_check_stream(ctx, stream, opn)) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(table, dtype, "ak_embedding: table")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(indices, idx_dtype, "ak_embedding: indices")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(out, dtype, "ak_embedding: out")) != AK_OK) return r;
    rb = dim * es;
    if (_ak_rd_overlap(out, num_indices * rb, table, vocab * rb) ||
        _ak_rd_overlap(out, num_indices * rb, indices, num_indices * ak_dtype_size(idx_dtype)))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: out overlaps the table or the indices", opn);
    if (_ak_op_is_cpu(ctx)) {
        size_t bad = _ak_llm_cpu_embedding(es, idx_dtype, table, indices, out, num_indices, vocab, dim);
        if (bad < num_indices)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: indices[%zu] = %lld is outside [0, %zu) (its row of out is "
                           "zero-filled, as on a GPU)", opn, bad, (long long)_ak_llm_pos(indices, idx_dtype, bad), vocab);
        return AK_OK;
    }
    W = _ak_llm_unit((uint64_t)rb | (uint64_t)(uintptr_t)table | (uint64_t)(uintptr_t)out);
    upr = rb / W;
    G = _ak_llm_group(upr);
    snprintf(kname, sizeof kname, "ak_embedding_%s", _ak_llm_unit_name(W));
    _ak_kargs_embedding(&a, table, indices, out, (int64_t)num_indices, (int64_t)vocab, (int64_t)upr, (int32_t)G,
                        idx_dtype == AK_I64);
    return _ak_llm_launch(ctx, _ak_src_layout, kname, _ak_llm_rows_grid(num_indices, G), 256u, stream, &a);
}

/* ---- strided N-d copy ------------------------------------------------------------ */

/* A copy problem after planning: dimensions outermost first, the last one innermost. */
typedef struct _ak_nd {
    int nd;
    int64_t sz[AK_COPY_MAX_DIMS], ss[AK_COPY_MAX_DIMS], ds[AK_COPY_MAX_DIMS];
} _ak_nd;

static int64_t _ak_nd_abs(int64_t v) { return v < 0 ? -v : v; }

/* Drop size-1 dimensions, order by decreasing |destination stride| (stable),
 * merge neighbours that are contiguous in both tensors. At least one
 * dimension comes out (a single element: size 1, strides 1). */
static void _ak_nd_plan(size_t ndim, const size_t* shape, const int64_t* ss, const int64_t* ds, _ak_nd* p) {
    _ak_nd t;
    size_t k;
    int i, j, n = 0;
    for (k = 0; k < ndim; k++)
        if (shape[k] > 1) {
            t.sz[n] = (int64_t)shape[k];
            t.ss[n] = ss[k];
            t.ds[n] = ds[k];
            n++;
        }
    for (i = 1; i < n; i++) /* insertion sort, stable */
        for (j = i; j > 0 && _ak_nd_abs(t.ds[j - 1]) < _ak_nd_abs(t.ds[j]); j--) {
            int64_t a = t.sz[j], b = t.ss[j], c = t.ds[j];
            t.sz[j] = t.sz[j - 1]; t.ss[j] = t.ss[j - 1]; t.ds[j] = t.ds[j - 1];
            t.sz[j - 1] = a; t.ss[j - 1] = b; t.ds[j - 1] = c;
        }
    p->nd = 0;
    for (i = 0; i < n; i++) {
        int m = p->nd - 1;
        if (m >= 0 && p->ss[m] == t.ss[i] * t.sz[i] && p->ds[m] == t.ds[i] * t.sz[i]) {
            p->sz[m] *= t.sz[i];
            p->ss[m] = t.ss[i];
            p->ds[m] = t.ds[i];
        } else {
            p->sz[p->nd] = t.sz[i];
            p->ss[p->nd] = t.ss[i];
            p->ds[p->nd] = t.ds[i];
            p->nd++;
        }
    }
    if (p->nd == 0) {
        p->nd = 1;
        p->sz[0] = 1;
        p->ss[0] = 1;
        p->ds[0] = 1;
    }
}

/* CPU reference: every index in order (odometer over the caller's dimensions). */
static void _ak_nd_cpu(ak_dtype st, ak_dtype dt, const void* src, void* dst, size_t ndim, const size_t* shape,
                       const int64_t* ss, const int64_t* ds) {
    size_t idx[AK_COPY_MAX_DIMS], k, es = ak_dtype_size(st), ed = ak_dtype_size(dt);
    int64_t so = 0, dof = 0;
    memset(idx, 0, sizeof idx);
    for (;;) {
        const char* ps = (const char*)src + so * (int64_t)es;
        char* pd = (char*)dst + dof * (int64_t)ed;
        if (st == dt) memcpy(pd, ps, es);
        else _ak_op_st(pd, dt, 0, _ak_op_ld(ps, st, 0));
        for (k = ndim; k-- > 0;) {
            if (++idx[k] < shape[k]) {
                so += ss[k];
                dof += ds[k];
                break;
            }
            so -= (int64_t)(shape[k] - 1) * ss[k];
            dof -= (int64_t)(shape[k] - 1) * ds[k];
            idx[k] = 0;
        }
        if (k == (size_t)-1) break;
    }
}

/* Byte extent [lo, hi) of a strided tensor around its pointer; 0 on overflow. */
static int _ak_nd_extent(size_t ndim, const size_t* shape, const int64_t* st, size_t es, int64_t* lo, int64_t* hi) {
    size_t k;
    int64_t mn = 0, mx = 0;
    for (k = 0; k < ndim; k++) {
        int64_t n1 = (int64_t)shape[k] - 1, a = _ak_nd_abs(st[k]);
        if (st[k] == INT64_MIN || (n1 > 0 && a > (INT64_MAX / 4) / n1)) return 0;
        if (st[k] < 0) mn -= a * n1;
        else mx += a * n1;
        if (mn < -(INT64_MAX / 4) || mx > INT64_MAX / 4) return 0;
    }
    if (mx + 1 > (int64_t)(PTRDIFF_MAX / (ptrdiff_t)es) || -mn > (int64_t)(PTRDIFF_MAX / (ptrdiff_t)es)) return 0;
    *lo = mn * (int64_t)es;
    *hi = (mx + 1) * (int64_t)es;
    return 1;
}

AKDEF ak_result ak_copy_strided(ak_context* ctx, ak_dtype src_dtype, ak_dtype dst_dtype, const void* src, void* dst,
                                size_t ndim, const size_t* shape, const int64_t* src_strides,
                                const int64_t* dst_strides, ak_stream* stream) {
    const char* opn = "ak_copy_strided";
    ak_result r;
    size_t k, n = 1, es, ed, order[AK_COPY_MAX_DIMS], m = 0, i, j;
    int64_t slo, shi, dlo, dhi, ext;
    _ak_nd p;
    char kname[64];
    _ak_kargs a;
    int64_t rows, inner, iss, ids, chunk, osz[5], oss[5], ods[5];
    unsigned G;
    int vec = 0, same = src_dtype == dst_dtype, o;

    if ((r = _ak_op_check_ctx(ctx, opn)) != AK_OK) return r;
    es = ak_dtype_size(src_dtype);
    ed = ak_dtype_size(dst_dtype);
    if (es == 0 || ed == 0)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", opn, es == 0 ? (int)src_dtype : (int)dst_dtype);
    if (!same && (_ak_op_check_float(src_dtype, "ak_copy_strided: src_dtype") != AK_OK ||
                  _ak_op_check_float(dst_dtype, "ak_copy_strided: dst_dtype") != AK_OK))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: cast %s -> %s not supported (casts are between f32, f16 and "
                       "bf16; the same dtype copies any dtype)", opn, ak_dtype_name(src_dtype), ak_dtype_name(dst_dtype));
    if (ndim < 1 || ndim > AK_COPY_MAX_DIMS)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: ndim = %zu, expected 1..%d", opn, ndim, AK_COPY_MAX_DIMS);
    if (!shape || !src_strides || !dst_strides)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", opn,
                       !shape ? "shape" : !src_strides ? "src_strides" : "dst_strides");
    for (k = 0; k < ndim; k++) {
        if (shape[k] == 0)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: shape[%zu] is 0 (expected >= 1)", opn, k);
        if (n > SIZE_MAX / shape[k])
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: the shape's element count overflows", opn);
        n *= shape[k];
    }
    if ((r = _ak_op_check_bytes(ctx, n, es > ed ? src_dtype : dst_dtype, opn)) != AK_OK) return r;
    if ((r = _ak_op_check_stream(ctx, stream, opn)) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(src, src_dtype, "ak_copy_strided: src")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(dst, dst_dtype, "ak_copy_strided: dst")) != AK_OK) return r;
    if (!_ak_nd_extent(ndim, shape, src_strides, es, &slo, &shi) ||
        !_ak_nd_extent(ndim, shape, dst_strides, ed, &dlo, &dhi))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: the strides overflow the address space", opn);
    if ((uintptr_t)src < (uintptr_t)(-slo) || (uintptr_t)dst < (uintptr_t)(-dlo))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: negative strides reach below address 0", opn);
    /* the destination must not write one element twice: sorted by |stride|,
     * each stride passes the extent of the smaller ones */
    for (k = 0; k < ndim; k++)
        if (shape[k] > 1) order[m++] = k;
    for (i = 1; i < m; i++)
        for (j = i; j > 0 && _ak_nd_abs(dst_strides[order[j - 1]]) > _ak_nd_abs(dst_strides[order[j]]); j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    ext = 0;
    for (i = 0; i < m; i++) {
        int64_t s = _ak_nd_abs(dst_strides[order[i]]);
        if (s <= ext)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: dst_strides[%zu] = %lld makes the destination overlap itself "
                           "(two indices would write one element)", opn, order[i], (long long)dst_strides[order[i]]);
        ext += s * ((int64_t)shape[order[i]] - 1);
    }
    /* the same buffer, dtype and layout: nothing to do; any other overlap is an error */
    if (src == (const void*)dst && same) {
        for (k = 0; k < ndim && (shape[k] == 1 || src_strides[k] == dst_strides[k]); k++) {}
        if (k == ndim) return AK_OK;
    }
    if ((intptr_t)src + slo < (intptr_t)dst + dhi && (intptr_t)dst + dlo < (intptr_t)src + shi)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: the source and destination extents overlap", opn);
    if (_ak_op_is_cpu(ctx)) {
        _ak_nd_cpu(src_dtype, dst_dtype, src, dst, ndim, shape, src_strides, dst_strides);
        return AK_OK;
    }

    _ak_nd_plan(ndim, shape, src_strides, dst_strides, &p);
    inner = p.sz[p.nd - 1];
    iss = p.ss[p.nd - 1];
    ids = p.ds[p.nd - 1];
    if (same) {
        unsigned W = (unsigned)es;
        if (iss == 1 && ids == 1) {
            uint64_t v = (uint64_t)inner * es | (uint64_t)(uintptr_t)src | (uint64_t)(uintptr_t)dst;
            for (o = 0; o < p.nd - 1; o++) v |= (uint64_t)p.ss[o] * es | (uint64_t)p.ds[o] * es;
            W = _ak_llm_unit(v);
            inner = inner * (int64_t)es / (int64_t)W;
            for (o = 0; o < p.nd - 1; o++) {
                p.ss[o] = p.ss[o] * (int64_t)es / (int64_t)W;
                p.ds[o] = p.ds[o] * (int64_t)es / (int64_t)W;
            }
        }
        snprintf(kname, sizeof kname, "ak_copy_nd_%s", _ak_llm_unit_name(W));
    } else {
        if (iss == 1 && ids == 1 && inner % 4 == 0 && (uintptr_t)src % (4 * es) == 0 && (uintptr_t)dst % (4 * ed) == 0) {
            vec = 1;
            for (o = 0; o < p.nd - 1; o++)
                if (p.ss[o] % 4 || p.ds[o] % 4) vec = 0;
        }
        if (vec) {
            inner /= 4;
            iss = 4;
            ids = 4;
        }
        snprintf(kname, sizeof kname, "ak_copy_cast_%s_%s", ak_dtype_name(src_dtype), ak_dtype_name(dst_dtype));
    }
    rows = 1;
    for (o = 0; o < 5; o++) {
        osz[o] = o < p.nd - 1 ? p.sz[o] : 1;
        oss[o] = o < p.nd - 1 ? p.ss[o] : 0;
        ods[o] = o < p.nd - 1 ? p.ds[o] : 0;
        rows *= osz[o];
    }
    /* rows longer than 4096 units go in chunks of 2048 (8 units per thread of a 256-thread group) */
    chunk = inner > 4096 ? 2048 : inner;
    G = _ak_llm_group((size_t)chunk);
    if (same)
        _ak_kargs_copy_nd(&a, src, dst, rows, inner, chunk, iss, ids, p.nd - 1, osz[0], osz[1], osz[2], osz[3], osz[4],
                          oss[0], oss[1], oss[2], oss[3], oss[4], ods[0], ods[1], ods[2], ods[3], ods[4], (int32_t)G);
    else
        _ak_kargs_copy_cast(&a, src, dst, rows, inner, chunk, iss, ids, p.nd - 1, osz[0], osz[1], osz[2], osz[3],
                            osz[4], oss[0], oss[1], oss[2], oss[3], oss[4], ods[0], ods[1], ods[2], ods[3], ods[4],
                            (int32_t)G, vec);
    return _ak_llm_launch(ctx, _ak_src_layout, kname,
                          _ak_llm_rows_grid((size_t)rows * (size_t)((inner + chunk - 1) / chunk), G), 256u, stream, &a);
}
/* ==========================================================================
 * >>impl:ops-random  ak_rand_uniform, ak_rand_normal, ak_dropout: Philox4x32-10
 * streams (layout: >>decl:ops "random numbers"), kernels/random.hip
 * (_ak_src_random). The C references below repeat the kernels' float
 * sequence operation for operation with fmaf() only (a product is
 * fmaf(a, b, -0), a sum fmaf(a, 1, b)), so no FP contraction of the host
 * compiler can change a rounding: cpu and GPU results are the same bits
 * (tests/t_gpu_random.c compares them bit for bit).
 * ========================================================================== */

static float _ak_rn_mul(float a, float b) { return fmaf(a, b, -0.0f); }
static float _ak_rn_add(float a, float b) { return fmaf(a, 1.0f, b); }
static float _ak_rn_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t _ak_rn_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* Philox4x32-10 on c[4] with key (k0, k1). */
static void _ak_philox(uint32_t c[4], uint32_t k0, uint32_t k1) {
    int r;
    for (r = 0; r < 10; r++) {
        const uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[1] = (uint32_t)p1;
        c[3] = (uint32_t)p0;
        c[0] = n0;
        c[2] = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}
static void _ak_philox_at(uint64_t seed, uint64_t offset, uint64_t j, uint32_t w[4]) {
    const uint64_t c = offset + j;
    w[0] = (uint32_t)c; w[1] = (uint32_t)(c >> 32); w[2] = 0u; w[3] = 0u;
    _ak_philox(w, (uint32_t)seed, (uint32_t)(seed >> 32));
}
static float _ak_philox_unit(uint32_t w) { return _ak_rn_mul((float)(w >> 8), 5.9604644775390625e-08f); }

/* ln(u), u normal and > 0 (kernels/random.hip: ak_xlog). */
static float _ak_rn_log(float u) {
    const uint32_t b = _ak_rn_f2u(u);
    int e = (int)(b >> 23) - 127, i;
    float m = _ak_rn_u2f((b & 0x7FFFFFu) | 0x3F800000u), f, d, y, s, z, p, s2, lm, fe;
    if (m > 1.41421356f) { m = _ak_rn_mul(m, 0.5f); e += 1; }
    f = _ak_rn_add(m, -1.0f);
    d = _ak_rn_add(f, 2.0f);
    y = _ak_rn_u2f(0x7EF311C3u - _ak_rn_f2u(d));
    for (i = 0; i < 4; i++) { const float er = fmaf(-d, y, 1.0f); y = fmaf(y, er, y); }
    s = _ak_rn_mul(f, y);
    z = _ak_rn_mul(s, s);
    p = 0.0769230769f;
    p = fmaf(p, z, 0.0909090909f);
    p = fmaf(p, z, 0.111111111f);
    p = fmaf(p, z, 0.142857143f);
    p = fmaf(p, z, 0.2f);
    p = fmaf(p, z, 0.333333333f);
    s2 = _ak_rn_mul(s, 2.0f);
    lm = fmaf(_ak_rn_mul(s2, z), p, s2);
    fe = (float)e;
    return fmaf(fe, 0.693145751953125f, fmaf(fe, 1.42860677e-06f, lm));
}
/* sqrt(v), v >= 0 (ak_xsqrt). */
static float _ak_rn_sqrt(float v) {
    float y, h, r;
    int i;
    if (v == 0.0f) return 0.0f;
    y = _ak_rn_u2f(0x5F3759DFu - (_ak_rn_f2u(v) >> 1));
    h = _ak_rn_mul(v, 0.5f);
    for (i = 0; i < 4; i++) y = _ak_rn_mul(y, fmaf(-h, _ak_rn_mul(y, y), 1.5f));
    r = _ak_rn_mul(v, y);
    return fmaf(fmaf(-r, r, v), _ak_rn_mul(y, 0.5f), r);
}
/* sin, cos of k * 2^-24 turns (ak_xsincos_turns). */
static void _ak_rn_sincos_turns(uint32_t k, float* s, float* c) {
    const uint32_t q = (k + (1u << 21)) >> 22;
    const int ri = (int)k - (int)(q << 22);
    const float x = _ak_rn_mul(_ak_rn_mul((float)ri, 2.38418579e-07f), 1.57079637f), x2 = _ak_rn_mul(x, x);
    float sp = -2.50521084e-08f, cp = 2.08767570e-09f, sn, cs;
    sp = fmaf(sp, x2, 2.75573192e-06f);
    sp = fmaf(sp, x2, -1.98412698e-04f);
    sp = fmaf(sp, x2, 8.33333333e-03f);
    sp = fmaf(sp, x2, -1.66666667e-01f);
    sn = fmaf(_ak_rn_mul(x, x2), sp, x);
    cp = fmaf(cp, x2, -2.75573192e-07f);
    cp = fmaf(cp, x2, 2.48015873e-05f);
    cp = fmaf(cp, x2, -1.38888889e-03f);
    cp = fmaf(cp, x2, 4.16666667e-02f);
    cp = fmaf(cp, x2, -0.5f);
    cs = fmaf(x2, cp, 1.0f);
    switch (q & 3u) {
    case 0: *s = sn; *c = cs; break;
    case 1: *s = cs; *c = -sn; break;
    case 2: *s = -sn; *c = -cs; break;
    default: *s = -cs; *c = sn; break;
    }
}
static void _ak_box_muller(uint32_t wa, uint32_t wb, float* z0, float* z1) {
    const float u1 = _ak_rn_mul((float)((wa >> 8) + 1u), 5.9604644775390625e-08f);
    const float r = _ak_rn_sqrt(_ak_rn_mul(_ak_rn_log(u1), -2.0f));
    float s, c;
    _ak_rn_sincos_turns(wb >> 8, &s, &c);
    *z0 = _ak_rn_mul(r, c);
    *z1 = _ak_rn_mul(r, s);
}

/* The CPU references. kind 0: uniform (a = lo, b = range, c = hi); 1: normal (a = mean, b = std). */
static void _ak_rn_cpu_gen(int kind, ak_dtype t, void* y, size_t n, uint64_t seed, uint64_t offset, float a, float b,
                           float c) {
    size_t j, groups = n / 4 + (n % 4 != 0);
    for (j = 0; j < groups; j++) {
        uint32_t w[4];
        float f[4];
        size_t q;
        _ak_philox_at(seed, offset, (uint64_t)j, w);
        if (kind == 0) {
            for (q = 0; q < 4; q++) f[q] = fmaf(_ak_philox_unit(w[q]), b, a);
        } else {
            _ak_box_muller(w[0], w[1], &f[0], &f[1]);
            _ak_box_muller(w[2], w[3], &f[2], &f[3]);
            for (q = 0; q < 4; q++) f[q] = fmaf(f[q], b, a);
        }
        for (q = 0; q < 4 && 4 * j + q < n; q++) {
            _ak_op_st(y, t, 4 * j + q, f[q]);
            if (kind == 0 && _ak_op_ld(y, t, 4 * j + q) >= c) _ak_op_st(y, t, 4 * j + q, a);
        }
    }
}

static ak_result _ak_rn_check_out(ak_context* ctx, ak_dtype t, const void* y, size_t n, ak_stream* s, const char* op) {
    ak_result r = _ak_op_check_ctx(ctx, op);
    char what[64];
    if (r == AK_OK) r = _ak_op_check_float(t, op);
    if (r == AK_OK) r = _ak_op_check_count(ctx, n, t, op);
    if (r == AK_OK) r = _ak_op_check_stream(ctx, s, op);
    if (r == AK_OK) {
        snprintf(what, sizeof what, "%s: y", op);
        r = _ak_op_check_ptr(y, t, what);
    }
    return r;
}

static int _ak_rn_finite(float v) { return v == v && v <= FLT_MAX && v >= -FLT_MAX; }

/* Launch one of the random-family kernels over ceil(n / 4) counters. */
static ak_result _ak_rn_launch(ak_context* ctx, const char* base, ak_dtype t, size_t n, ak_stream* stream,
                               _ak_kargs* a) {
    ak_kernel* k = NULL;
    char kname[64];
    ak_result r = _ak_op_kernel(ctx, _ak_src_random, _ak_op_name(kname, sizeof kname, base, t), &k);
    if (r != AK_OK) return r;
    return _ak_op_launch(ctx, k, _ak_op_grid(ctx, n / 4 + (n % 4 != 0), 256), 256, 0, stream, a);
}

AKDEF ak_result ak_rand_uniform(ak_context* ctx, ak_dtype dtype, void* y, size_t n, uint64_t seed, uint64_t offset,
                                float lo, float hi, ak_stream* stream) {
    const char* opn = "ak_rand_uniform";
    ak_result r = _ak_rn_check_out(ctx, dtype, y, n, stream, opn);
    float range;
    _ak_kargs a;
    if (r != AK_OK) return r;
    range = hi - lo;
    if (!_ak_rn_finite(lo) || !_ak_rn_finite(hi) || !(lo < hi) || !_ak_rn_finite(range))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: [lo, hi) = [%g, %g): expected finite lo < hi with a finite hi - lo",
                       opn, (double)lo, (double)hi);
    if (_ak_op_is_cpu(ctx)) {
        _ak_rn_cpu_gen(0, dtype, y, n, seed, offset, lo, range, hi);
        return AK_OK;
    }
    _ak_kargs_rand_uniform(&a, y, (int64_t)n, seed, offset, lo, range, hi);
    return _ak_rn_launch(ctx, "ak_rand_uniform", dtype, n, stream, &a);
}

AKDEF ak_result ak_rand_normal(ak_context* ctx, ak_dtype dtype, void* y, size_t n, uint64_t seed, uint64_t offset,
                               float mean, float std, ak_stream* stream) {
    const char* opn = "ak_rand_normal";
    ak_result r = _ak_rn_check_out(ctx, dtype, y, n, stream, opn);
    _ak_kargs a;
    if (r != AK_OK) return r;
    if (!_ak_rn_finite(mean) || !_ak_rn_finite(std) || std < 0.0f)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: mean = %g, std = %g: expected finite values and std >= 0", opn,
                       (double)mean, (double)std);
    if (_ak_op_is_cpu(ctx)) {
        _ak_rn_cpu_gen(1, dtype, y, n, seed, offset, mean, std, 0.0f);
        return AK_OK;
    }
    _ak_kargs_rand_normal(&a, y, (int64_t)n, seed, offset, mean, std);
    return _ak_rn_launch(ctx, "ak_rand_normal", dtype, n, stream, &a);
}

AKDEF ak_result ak_dropout(ak_context* ctx, ak_dtype dtype, const void* x, void* y, uint8_t* mask, size_t n,
                           float p, uint64_t seed, uint64_t offset, ak_stream* stream) {
    const char* opn = "ak_dropout";
    ak_result r = _ak_rn_check_out(ctx, dtype, y, n, stream, opn);
    float scale;
    size_t bytes;
    _ak_kargs a;
    if (r != AK_OK) return r;
    if (!x) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: x is NULL", opn);
    if ((r = _ak_op_check_ptr(x, dtype, "ak_dropout: x")) != AK_OK) return r;
    if (!(p >= 0.0f && p <= 1.0f))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: p = %g, expected a probability in [0, 1]", opn, (double)p);
    bytes = n * ak_dtype_size(dtype);
    if ((r = _ak_op_check_overlap(x, bytes, y, bytes, 1, "ak_dropout: x and y")) != AK_OK) return r;
    if (mask && ((r = _ak_op_check_overlap(mask, n, x, bytes, 0, "ak_dropout: mask and x")) != AK_OK ||
                 (r = _ak_op_check_overlap(mask, n, y, bytes, 0, "ak_dropout: mask and y")) != AK_OK))
        return r;
    scale = p < 1.0f ? (float)(1.0 / (1.0 - (double)p)) : 0.0f;
    if (_ak_op_is_cpu(ctx)) {
        size_t i;
        for (i = 0; i < n; i += 4) {
            uint32_t w[4];
            size_t q;
            _ak_philox_at(seed, offset, (uint64_t)(i / 4), w);
            for (q = 0; q < 4 && i + q < n; q++) {
                const int keep = _ak_philox_unit(w[q]) >= p;
                _ak_op_st(y, dtype, i + q, keep ? _ak_rn_mul(_ak_op_ld(x, dtype, i + q), scale) : 0.0f);
                if (mask) mask[i + q] = (uint8_t)keep;
            }
        }
        return AK_OK;
    }
    _ak_kargs_dropout(&a, x, y, mask, (int64_t)n, seed, offset, p, scale);
    return _ak_rn_launch(ctx, "ak_dropout", dtype, n, stream, &a);
}

/* ==========================================================================
 * >>impl:ops-scan  ak_cumsum (tile scan per row; reduce-then-scan for wide
 * rows with few rows) and ak_topk (radix select + bitonic sort per row),
 * kernels/scan.hip (_ak_src_scan), with their C references.
 * ========================================================================== */

#define _AK_SC_TILE 2048u   /* elements per tile of ak_cumsum_<dt> (AK_SCAN_TILE) */
#define _AK_SC_BLOCK 256u   /* AK_SCAN_B */
#define _AK_TOPK_KMAX 1024  /* AK_TOPK_KMAX */

static void _ak_sc_cpu_cumsum(ak_dtype t, const void* x, void* y, size_t rows, size_t cols, int exclusive) {
    size_t r, c;
    for (r = 0; r < rows; r++) {
        const size_t base = r * cols;
        if (t == AK_I32) {
            uint32_t s = 0;
            for (c = 0; c < cols; c++) {
                const uint32_t v = (uint32_t)((const int32_t*)x)[base + c];
                if (!exclusive) s += v;
                ((int32_t*)y)[base + c] = (int32_t)s;
                if (exclusive) s += v;
            }
        } else if (t == AK_I64) {
            uint64_t s = 0;
            for (c = 0; c < cols; c++) {
                const uint64_t v = (uint64_t)((const int64_t*)x)[base + c];
                if (!exclusive) s += v;
                ((int64_t*)y)[base + c] = (int64_t)s;
                if (exclusive) s += v;
            }
        } else {
            double s = 0.0;
            for (c = 0; c < cols; c++) {
                const double v = (double)_ak_op_ld(x, t, base + c);
                if (!exclusive) s += v;
                _ak_op_st(y, t, base + c, (float)s);
                if (exclusive) s += v;
            }
        }
    }
}

AKDEF ak_result ak_cumsum(ak_context* ctx, ak_dtype dtype, const void* x, void* y, size_t rows, size_t cols,
                          int exclusive, ak_stream* stream) {
    const char* opn = "ak_cumsum";
    ak_result r = _ak_op_check_ctx(ctx, opn);
    size_t es, bytes, chunk, nch = 1, r0, rpl, accs;
    ak_kernel* k = NULL;
    char kname[64];
    void* ws = NULL;
    if (r != AK_OK) return r;
    if (dtype != AK_F32 && dtype != AK_F16 && dtype != AK_BF16 && dtype != AK_I32 && dtype != AK_I64)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: dtype %s (%d) not supported, expected f32, f16, bf16, i32 or i64",
                       opn, ak_dtype_name(dtype), (int)dtype);
    if ((r = _ak_op_check_shape2(ctx, rows, cols, dtype, opn)) != AK_OK) return r;
    if ((r = _ak_op_check_stream(ctx, stream, opn)) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(x, dtype, "ak_cumsum: x")) != AK_OK) return r;
    if ((r = _ak_op_check_ptr(y, dtype, "ak_cumsum: y")) != AK_OK) return r;
    es = ak_dtype_size(dtype);
    bytes = rows * cols * es;
    if ((r = _ak_op_check_overlap(x, bytes, y, bytes, 1, "ak_cumsum: x and y")) != AK_OK) return r;
    exclusive = exclusive != 0;
    if (_ak_op_is_cpu(ctx)) {
        _ak_sc_cpu_cumsum(dtype, x, y, rows, cols, exclusive);
        return AK_OK;
    }
    accs = dtype == AK_I64 ? 8u : 4u;
    chunk = cols;
    {
        /* few rows, wide: split each row into chunks so that about 8 blocks per
         * compute unit run (a chunk at least 4 tiles) */
        const size_t target = (size_t)_ak_op_cus(ctx) * 8u;
        if (rows < target && cols >= 4u * _AK_SC_TILE) {
            size_t want = (target + rows - 1) / rows;
            chunk = (cols + want - 1) / want;
            if (chunk < 4u * _AK_SC_TILE) chunk = 4u * _AK_SC_TILE;
            chunk = (chunk + _AK_SC_TILE - 1) / _AK_SC_TILE * _AK_SC_TILE;
            nch = (cols + chunk - 1) / chunk;
            if (nch > 0x7FFFFFFFu) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: %zu columns is too wide", opn, cols);
        }
    }
    rpl = (size_t)0x7FFFFFFF / nch;
    if (nch > 1) {
        ak_kernel* kp = NULL;
        size_t nr_max = rows < rpl ? rows : rpl;
        if ((r = _ak_op_kernel(ctx, _ak_src_scan, _ak_op_name(kname, sizeof kname, "ak_cumsum_part", dtype), &kp)) !=
            AK_OK)
            return r;
        if ((r = _ak_op_kernel(ctx, _ak_src_scan, _ak_op_name(kname, sizeof kname, "ak_cumsum", dtype), &k)) != AK_OK)
            return r;
        if ((r = ak_malloc(ctx, nr_max * nch * accs, stream, &ws)) != AK_OK) return r;
        for (r0 = 0; r0 < rows && r == AK_OK; r0 += rpl) {
            const size_t nr = rows - r0 < rpl ? rows - r0 : rpl;
            _ak_kargs a;
            _ak_kargs_cumsum_part(&a, (const char*)x + r0 * cols * es, (int64_t)cols, (int64_t)chunk, (int32_t)nch, ws);
            r = _ak_op_launch(ctx, kp, (unsigned)(nr * nch), _AK_SC_BLOCK, 0, stream, &a);
            if (r != AK_OK) break;
            _ak_kargs_cumsum(&a, (const char*)x + r0 * cols * es, (char*)y + r0 * cols * es, (int64_t)cols,
                             (int64_t)chunk, (int32_t)nch, ws, exclusive);
            r = _ak_op_launch(ctx, k, (unsigned)(nr * nch), _AK_SC_BLOCK, 0, stream, &a);
        }
        ak_free(ctx, ws);
        return r;
    }
    if ((r = _ak_op_kernel(ctx, _ak_src_scan, _ak_op_name(kname, sizeof kname, "ak_cumsum", dtype), &k)) != AK_OK)
        return r;
    for (r0 = 0; r0 < rows && r == AK_OK; r0 += rpl) {
        const size_t nr = rows - r0 < rpl ? rows - r0 : rpl;
        _ak_kargs a;
        _ak_kargs_cumsum(&a, (const char*)x + r0 * cols * es, (char*)y + r0 * cols * es, (int64_t)cols, (int64_t)cols,
                         1, NULL, exclusive);
        r = _ak_op_launch(ctx, k, (unsigned)nr, _AK_SC_BLOCK, 0, stream, &a);
    }
    return r;
}

/* Order-preserving 32-bit key (kernels/scan.hip: ak_topk_key). */
static uint32_t _ak_topk_key(float f, int largest) {
    uint32_t u, k;
    memcpy(&u, &f, 4);
    if (f != f) k = 0xFFFFFFFFu;
    else {
        if (u == 0x80000000u) u = 0u;
        k = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    }
    return largest ? k : ~k;
}
static int _ak_topk_cmp_desc(const void* a, const void* b) {
    const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? 1 : x > y ? -1 : 0;
}
static ak_result _ak_topk_cpu(ak_dtype t, const void* x, void* vals, int64_t* idx, size_t rows, size_t cols, int k,
                              int largest) {
    uint64_t* keys = (uint64_t*)_ak_alloc(cols * sizeof *keys);
    size_t r, c;
    int j;
    if (!keys) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_topk: out of host memory (%zu keys)", cols);
    for (r = 0; r < rows; r++) {
        for (c = 0; c < cols; c++)
            keys[c] = ((uint64_t)_ak_topk_key(_ak_op_ld(x, t, r * cols + c), largest) << 32) |
                      (uint64_t)(0xFFFFFFFFu - (uint32_t)c);
        qsort(keys, cols, sizeof *keys, _ak_topk_cmp_desc);
        for (j = 0; j < k; j++) {
            const size_t e = (size_t)(0xFFFFFFFFu - (uint32_t)keys[j]), es = ak_dtype_size(t);
            memcpy((char*)vals + (r * (size_t)k + (size_t)j) * es, (const char*)x + (r * cols + e) * es, es);
            idx[r * (size_t)k + (size_t)j] = (int64_t)e;
        }
    }
    _ak_dealloc(keys);
    return AK_OK;
}

AKDEF ak_result ak_topk(ak_context* ctx, ak_dtype dtype, const void* x, void* values, int64_t* indices, size_t rows,
                        size_t cols, int k, int largest, ak_stream* stream) {
    const char* opn = "ak_topk";
    ak_result r = _ak_op_check_ctx(ctx, opn);
    size_t es, r0, rpl = 0x7FFFFFFF;
    unsigned block;
    ak_kernel* kern = NULL;
    char kname[64];
    if (r == AK_OK) r = _ak_op_check_float(dtype, opn);
    if (r == AK_OK) r = _ak_op_check_shape2(ctx, rows, cols, dtype, opn);
    if (r == AK_OK) r = _ak_op_check_stream(ctx, stream, opn);
    if (r == AK_OK) r = _ak_op_check_ptr(x, dtype, "ak_topk: x");
    if (r == AK_OK) r = _ak_op_check_ptr(values, dtype, "ak_topk: values");
    if (r == AK_OK) r = _ak_op_check_ptr(indices, AK_I64, "ak_topk: indices");
    if (r != AK_OK) return r;
    if (cols > 0x7FFFFFFFu)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: cols = %zu, expected < 2^31", opn, cols);
    if (k < 1 || k > _AK_TOPK_KMAX || (size_t)k > cols)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "%s: k = %d, expected 1 <= k <= min(cols = %zu, %d)", opn, k, cols,
                       _AK_TOPK_KMAX);
    if ((r = _ak_op_check_bytes(ctx, rows * (size_t)k, AK_I64, opn)) != AK_OK) return r;
    es = ak_dtype_size(dtype);
    if ((r = _ak_op_check_overlap(values, rows * (size_t)k * es, x, rows * cols * es, 0, "ak_topk: values and x")) !=
            AK_OK ||
        (r = _ak_op_check_overlap(indices, rows * (size_t)k * 8u, x, rows * cols * es, 0, "ak_topk: indices and x")) !=
            AK_OK ||
        (r = _ak_op_check_overlap(indices, rows * (size_t)k * 8u, values, rows * (size_t)k * es, 0,
                                  "ak_topk: indices and values")) != AK_OK)
        return r;
    largest = largest != 0;
    if (_ak_op_is_cpu(ctx)) return _ak_topk_cpu(dtype, x, values, indices, rows, cols, k, largest);
    if ((r = _ak_op_kernel(ctx, _ak_src_scan, _ak_op_name(kname, sizeof kname, "ak_topk", dtype), &kern)) != AK_OK)
        return r;
    /* one block per row; wide rows get more threads for the histogram passes */
    block = cols >= 16384u ? 1024u : cols >= 2048u ? 512u : 256u;
    for (r0 = 0; r0 < rows && r == AK_OK; r0 += rpl) {
        const size_t nr = rows - r0 < rpl ? rows - r0 : rpl;
        _ak_kargs a;
        _ak_kargs_topk(&a, (const char*)x + r0 * cols * es, (char*)values + r0 * (size_t)k * es, indices + r0 * (size_t)k,
                       (int64_t)cols, k, largest);
        r = _ak_op_launch(ctx, kern, (unsigned)nr, block, 0, stream, &a);
    }
    return r;
}
#endif /* AMDKIT_NO_OPS */

/* ==========================================================================
 * >>impl:autotune  ak_bench_kernel (events, L2 flush, buffers restored per
 * trial) and ak_autotune (variants compiled in threads through the compile
 * cache, checked with ak_check, timed with ak_bench_kernel; the choice is a
 * small text entry in the disk compile cache, under a key of its own)
 * ========================================================================== */

/* Device copies of the OUT/INOUT buffers of an ak_args, to restore them. */
typedef struct _ak_snap { ak_context* ctx; void* copy[AK_MAX_ARGS]; } _ak_snap;
static void _ak_snap_free(_ak_snap* s) {
    int i;
    for (i = 0; i < AK_MAX_ARGS; i++) if (s->copy[i]) { ak_free(s->ctx, s->copy[i]); s->copy[i] = NULL; }
}
static int _ak_arg_written(const ak_args* a, int i) {
    return (a->dir[i] == AK_ARG_OUT || a->dir[i] == AK_ARG_INOUT) && a->value[i].p && a->bytes[i];
}
static ak_result _ak_snap_take(ak_context* ctx, const ak_args* a, _ak_snap* s) {
    ak_result r = AK_OK;
    int i;
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    for (i = 0; i < a->count && r == AK_OK; i++) {
        if (!_ak_arg_written(a, i)) continue;
        r = ak_malloc(ctx, a->bytes[i], NULL, &s->copy[i]);
        if (r == AK_OK) r = ak_memcpy_async(ctx, s->copy[i], a->value[i].p, a->bytes[i], AK_D2D, NULL);
    }
    if (r != AK_OK) _ak_snap_free(s);
    return r;
}
static ak_result _ak_snap_restore(const _ak_snap* s, const ak_args* a) {
    ak_result r = AK_OK;
    int i;
    for (i = 0; i < a->count && r == AK_OK; i++)
        if (s->copy[i]) r = ak_memcpy_async(s->ctx, a->value[i].p, s->copy[i], a->bytes[i], AK_D2D, NULL);
    return r;
}

static int _ak_cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}
AKDEF ak_result ak_bench_stats_of(double* t, int n, ak_bench_stats* s) {
    double sum = 0, sq = 0;
    int i;
    if (!t || !s || n < 1) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_bench_stats_of: times or out is NULL, or n %d < 1", n);
    qsort(t, (size_t)n, sizeof *t, _ak_cmp_double);
    for (i = 0; i < n; i++) sum += t[i];
    s->mean = sum / n;
    for (i = 0; i < n; i++) sq += (t[i] - s->mean) * (t[i] - s->mean);
    s->std = sqrt(sq / n);
    s->min = t[0];
    s->max = t[n - 1];
    s->median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    s->num_trials = n;
    return AK_OK;
}

AKDEF ak_result ak_bench_kernel(ak_kernel* k, ak_dim3 grid, ak_dim3 block, size_t shmem, ak_args* args,
                                const ak_bench_options* o, double* times, ak_bench_stats* out) {
    ak_context* ctx;
    ak_event *e0 = NULL, *e1 = NULL;
    _ak_snap snap;
    void* scratch = NULL;
    size_t scratch_bytes = 0;
    double* t = NULL;
    void** params;
    int warmup = 3, trials = 20, i;
    ak_result r = AK_OK;
    if (!k || !args || !out) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_bench_kernel: kernel, args or out is NULL");
    if (args->error || !(params = ak_args_params(args)))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_bench_kernel: more than %d arguments were added", AK_MAX_ARGS);
    if (o && o->warmup) warmup = o->warmup < 0 ? 0 : o->warmup;
    if (o && o->trials) trials = o->trials;
    if (trials < 1 || trials > 1000000 || warmup > 1000000)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_bench_kernel: %d trials / %d warm-up launches (trials 1..1000000)", trials, warmup);
    ctx = k->ctx;
    memset(&snap, 0, sizeof snap);
    memset(out, 0, sizeof *out);
    t = (double*)_ak_alloc((size_t)trials * sizeof *t);
    if (!t) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_bench_kernel: no host memory for %d times", trials);
    if (!(o && o->no_restore)) r = _ak_snap_take(ctx, args, &snap);
    if (r == AK_OK && !(o && o->no_flush)) {
        size_t l2 = ctx->dev.l2_bytes;
        scratch_bytes = l2 ? 2 * l2 : ctx->bk->host_memory ? ((size_t)4 << 20) : ((size_t)64 << 20);
        r = ak_malloc(ctx, scratch_bytes, NULL, &scratch);
    }
    if (r == AK_OK) r = ak_event_create(ctx, &e0);
    if (r == AK_OK) r = ak_event_create(ctx, &e1);
    for (i = 0; i < warmup && r == AK_OK; i++) r = ak_launch(k, grid, block, shmem, NULL, params);
    for (i = 0; i < trials && r == AK_OK; i++) {
        float ms = 0;
        r = _ak_snap_restore(&snap, args);
        if (r == AK_OK && scratch) r = ak_memset(ctx, scratch, i & 0xFF, scratch_bytes, NULL);
        if (r == AK_OK) r = ak_event_record(e0, NULL);
        if (r == AK_OK) r = ak_launch(k, grid, block, shmem, NULL, params);
        if (r == AK_OK) r = ak_event_record(e1, NULL);
        if (r == AK_OK) r = ak_event_synchronize(e1);
        if (r == AK_OK) r = ak_event_elapsed_ms(e0, e1, &ms);
        t[i] = ms;
    }
    if (r == AK_OK) {
        if (times) memcpy(times, t, (size_t)trials * sizeof *t);
        r = ak_bench_stats_of(t, trials, out);
    }
    if (r == AK_OK) r = ak_stream_synchronize(ctx, NULL);
    ak_event_destroy(e0);
    ak_event_destroy(e1);
    if (scratch) ak_free(ctx, scratch);
    _ak_snap_free(&snap);
    _ak_dealloc(t);
    return r;
}

/* --- autotune ------------------------------------------------------------ */
enum { _AK_TV_NEW = 0, _AK_TV_COMPILED, _AK_TV_FAILED, _AK_TV_SKIPPED, _AK_TV_BUDGET };
typedef struct _ak_tune_var {
    ak_tune_point pt;
    char defs[AK_TUNE_MAX_PARAMS][144];   /* "-DNAME=VALUE" */
    ak_dim3 grid, block;
    size_t shmem;
    ak_kernel* k;
    int state;
    double ms;
    char msg[512];
} _ak_tune_var;
typedef struct _ak_tune_job {
    ak_context* ctx;
    const char* source;
    const char* name;
    const ak_tune_options* o;
    _ak_tune_var* vars;
    int n, next, compiled;
    _ak_mutex lock;
    uint64_t t0;
} _ak_tune_job;

static int _ak_tune_ident(const char* s) {
    size_t i;
    if (!s || !*s || strlen(s) > 64 || isdigit((unsigned char)s[0])) return 0;
    for (i = 0; s[i]; i++) if (!isalnum((unsigned char)s[i]) && s[i] != '_') return 0;
    return 1;
}
/* Validate the space; *total gets the number of variants. */
static ak_result _ak_tune_check_space(const ak_tune_space* sp, int* total) {
    long long n = 1;
    int p, v;
    if (sp->num_params < 0 || sp->num_params > AK_TUNE_MAX_PARAMS || (sp->num_params && !sp->params))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: %d parameters (0..%d, params not NULL)", sp->num_params, AK_TUNE_MAX_PARAMS);
    for (p = 0; p < sp->num_params; p++) {
        const ak_tune_param* q = &sp->params[p];
        if (!_ak_tune_ident(q->name))
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: parameter %d name '%s' is not a macro name (letters, digits, _; up to 64)",
                           p, q->name ? q->name : "(null)");
        if (q->count < 1 || !q->values)
            return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: parameter %s has no values", q->name);
        for (v = 0; v < q->count; v++) {
            const char* s = q->values[v];
            if (!s || !*s || strlen(s) > 64 || strpbrk(s, "\n\r"))
                return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: value %d of %s is NULL, empty, over 64 characters or has a newline", v, q->name);
        }
        n *= q->count;
        if (n > 100000) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: the space has over 100000 variants");
    }
    if (!sp->geometry && (!sp->grid.x || !sp->grid.y || !sp->grid.z || !sp->block.x || !sp->block.y || !sp->block.z))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: no geometry callback and grid (%u,%u,%u) / block (%u,%u,%u) has a zero",
                       sp->grid.x, sp->grid.y, sp->grid.z, sp->block.x, sp->block.y, sp->block.z);
    *total = (int)n;
    return AK_OK;
}
static void _ak_tune_point_at(const ak_tune_space* sp, int index, _ak_tune_var* v) {
    int p, idx = index;
    memset(&v->pt, 0, sizeof v->pt);
    v->pt.index = index;
    v->pt.num_params = sp->num_params;
    for (p = sp->num_params - 1; p >= 0; p--) {
        const ak_tune_param* q = &sp->params[p];
        const char* s = q->values[idx % q->count];
        char* end = NULL;
        long long iv;
        idx /= q->count;
        v->pt.names[p] = q->name;
        v->pt.values[p] = s;
        errno = 0;
        iv = strtoll(s, &end, 0);
        v->pt.ivalues[p] = (end && !*end && errno == 0) ? iv : 0;
        _ak_fmt(v->defs[p], sizeof v->defs[p], "-D%s=%s", q->name, s);
    }
}
static void _ak_tune_defines(const _ak_tune_var* v, char* out, size_t cap) {
    int p;
    out[0] = 0;
    for (p = 0; p < v->pt.num_params; p++) _ak_appendf(out, cap, "%s%s", p ? " " : "", v->defs[p]);
}
static double _ak_tune_elapsed(const _ak_tune_job* j) { return (double)(_ak_now_ns() - j->t0) / 1e6; }

/* Compile one variant (any thread). */
static void _ak_tune_compile(_ak_tune_job* j, _ak_tune_var* v) {
    const char* opts[48 + AK_TUNE_MAX_PARAMS];
    ak_compile_options co;
    int i, n = 0;
    for (i = 0; i < j->o->num_options; i++) opts[n++] = j->o->options[i];
    for (i = 0; i < v->pt.num_params; i++) opts[n++] = v->defs[i];
    memset(&co, 0, sizeof co);
    co.options = opts;
    co.num_options = n;
    co.source_name = j->o->source_name;
    co.opt_level = AK_OPT_AUTO;
    if (ak_kernel_get(j->ctx, j->source, j->name, &co, &v->k) == AK_OK) v->state = _AK_TV_COMPILED;
    else { v->state = _AK_TV_FAILED; _ak_copy(v->msg, sizeof v->msg, ak_last_error()); }
}
static void* _ak_tune_worker(void* user) {
    _ak_tune_job* j = (_ak_tune_job*)user;
    for (;;) {
        int i, over;
        _ak_mutex_lock(&j->lock);
        i = j->next;
        while (i < j->n && j->vars[i].state == _AK_TV_SKIPPED) i++;
        j->next = i + 1;
        over = j->o->max_ms > 0 && j->compiled > 0 && _ak_tune_elapsed(j) > j->o->max_ms;
        _ak_mutex_unlock(&j->lock);
        if (i >= j->n) break;
        if (over) { j->vars[i].state = _AK_TV_BUDGET; continue; }
        _ak_tune_compile(j, &j->vars[i]);
        if (j->vars[i].state == _AK_TV_COMPILED) { _ak_mutex_lock(&j->lock); j->compiled++; _ak_mutex_unlock(&j->lock); }
    }
    return NULL;
}

/* Disk key of a tuning problem (same digest scheme as code objects; the
 * kernel field "autotune NAME" cannot name a real kernel). */
static ak_result _ak_tune_digest(ak_context* ctx, const char* source, const char* name, const ak_tune_space* sp,
                                 const ak_tune_options* o, uint8_t digest[32]) {
    _ak_str kn = { NULL, 0, 0, 0 }, op = { NULL, 0, 0, 0 }, ar = { NULL, 0, 0, 0 };
    const char* f[_AK_KF_COUNT];
    size_t l[_AK_KF_COUNT];
    int p, v;
    ak_result r = AK_OK;
    _ak_str_addf(&kn, "autotune %s", name);
    _ak_str_addf(&op, "autotune-format 1\nopt_level %s\nmax_variants %d\n", ak_opt_level_name(ctx->cfg.opt_level), o->max_variants);
    for (p = 0; p < sp->num_params; p++) {
        _ak_str_addf(&op, "param %s %d\n", sp->params[p].name, sp->params[p].count);
        for (v = 0; v < sp->params[p].count; v++) _ak_str_addf(&op, "%lu %s\n", (unsigned long)strlen(sp->params[p].values[v]), sp->params[p].values[v]);
    }
    for (p = 0; p < o->num_options; p++) _ak_str_addf(&op, "option %lu %s\n", (unsigned long)strlen(o->options[p]), o->options[p]);
    if (sp->geometry) _ak_str_addf(&op, "geometry-rule %lu %s\n", (unsigned long)strlen(sp->geometry_key ? sp->geometry_key : ""),
                                   sp->geometry_key ? sp->geometry_key : "");
    else _ak_str_addf(&op, "geometry %u %u %u / %u %u %u / %lu\n", sp->grid.x, sp->grid.y, sp->grid.z, sp->block.x, sp->block.y,
                      sp->block.z, (unsigned long)sp->shared_bytes);
    _ak_str_addf(&op, "shape %lu %s\n", (unsigned long)strlen(o->shape_key ? o->shape_key : ""), o->shape_key ? o->shape_key : "");
    _ak_str_addf(&ar, "%s\ndevice %s", ctx->dev.arch, ctx->dev.name);
    if (kn.oom || op.oom || ar.oom || !kn.p || !op.p || !ar.p) r = _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_autotune: out of host memory");
    else {
        f[_AK_KF_SOURCE] = source; l[_AK_KF_SOURCE] = strlen(source);
        f[_AK_KF_NAME] = kn.p; l[_AK_KF_NAME] = kn.len;
        f[_AK_KF_OPTIONS] = op.p; l[_AK_KF_OPTIONS] = op.len;
        f[_AK_KF_ARCH] = ar.p; l[_AK_KF_ARCH] = ar.len;
        f[_AK_KF_BACKEND] = ak_backend_name(ctx->backend); l[_AK_KF_BACKEND] = strlen(f[_AK_KF_BACKEND]);
        f[_AK_KF_COMPILER] = ctx->dev.compiler_version; l[_AK_KF_COMPILER] = strlen(f[_AK_KF_COMPILER]);
        f[_AK_KF_DEVICE] = ""; l[_AK_KF_DEVICE] = 0;
        _ak_cache_disk_digest(f, l, digest);
    }
    _ak_str_free(&kn); _ak_str_free(&op); _ak_str_free(&ar);
    return r;
}

/* Stored choice: "amdkit-autotune 1\nindex N\ndefines D\nms T\n". 1 if read and consistent. */
static int _ak_tune_load(ak_context* ctx, const uint8_t digest[32], const char* name, const ak_tune_space* sp, int total,
                         _ak_tune_var* v, double* ms) {
    struct _ak_cache* c = ctx->cache;
    void* data = NULL;
    size_t size = 0;
    char buf[1024], defs[512], want[512];
    const char *p, *q;
    long idx;
    char* end;
    int ok = 0;
    if (!c || !c->enabled || !c->disk || _ak_cache_disk_read(c, digest, name, &data, &size) != 1) return 0;
    if (size < sizeof buf) {
        memcpy(buf, data, size);
        buf[size] = 0;
        p = buf;
        if (!strncmp(p, "amdkit-autotune 1\nindex ", 24)) {
            errno = 0;
            idx = strtol(p + 24, &end, 10);
            if (errno == 0 && end != p + 24 && *end == '\n' && idx >= 0 && idx < total && !strncmp(end + 1, "defines ", 8)) {
                p = end + 9;
                q = strchr(p, '\n');
                if (q && (size_t)(q - p) < sizeof defs) {
                    memcpy(defs, p, (size_t)(q - p));
                    defs[q - p] = 0;
                    _ak_tune_point_at(sp, (int)idx, v);
                    _ak_tune_defines(v, want, sizeof want);
                    if (!strcmp(defs, want) && !strncmp(q + 1, "ms ", 3)) {
                        *ms = strtod(q + 4, &end);
                        ok = end != q + 4 && *end == '\n' && *ms >= 0;
                    }
                }
            }
        }
    }
    _ak_dealloc(data);
    if (!ok) _ak_log(&ctx->log, AK_LOG_WARN, AK_LOGITEM_GENERIC, "autotune %s: the stored choice does not fit the space; tuning again", name);
    return ok;
}
static void _ak_tune_store(ak_context* ctx, const uint8_t digest[32], const char* name, const _ak_tune_var* v) {
    struct _ak_cache* c = ctx->cache;
    char buf[1024], defs[512];
    int n;
    if (!c || !c->enabled || !c->disk) {
        _ak_log(&ctx->log, AK_LOG_INFO, AK_LOGITEM_GENERIC, "autotune %s: no disk cache; the choice is not stored", name);
        return;
    }
    _ak_tune_defines(v, defs, sizeof defs);
    n = snprintf(buf, sizeof buf, "amdkit-autotune 1\nindex %d\ndefines %s\nms %.9g\n", v->pt.index, defs, v->ms);
    if (n > 0 && (size_t)n < sizeof buf) _ak_cache_disk_write(c, digest, name, buf, (size_t)n);
}

static ak_result _ak_tune_geometry(const ak_tune_space* sp, _ak_tune_var* v) {
    v->grid = sp->grid; v->block = sp->block; v->shmem = sp->shared_bytes;
    if (!sp->geometry) return AK_OK;
    return sp->geometry(sp->geometry_user, &v->pt, &v->grid, &v->block, &v->shmem);
}
static void _ak_tune_result(const ak_tune_space* sp, _ak_tune_var* v, int total, ak_tune_result* out) {
    out->kernel = v->k;
    v->k = NULL;
    out->point = v->pt;
    _ak_tune_defines(v, out->defines, sizeof out->defines);
    out->grid = v->grid; out->block = v->block; out->shared_bytes = v->shmem;
    out->ms = v->ms;
    out->total = total;
    (void)sp;
}

AKDEF ak_result ak_autotune(ak_context* ctx, const char* source, const char* name, const ak_tune_space* sp, ak_args* args,
                            const ak_tune_options* opts, ak_tune_result* out) {
    ak_tune_options o;
    _ak_tune_job j;
    _ak_snap snap;
    uint8_t digest[32];
    int total = 0, n, i, best = -1, have_digest = 0, first_bad = -1, threads;
    ak_result r;
    if (!ctx || !source || !name || !sp || !args || !out)
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: ctx, source, kernel name, space, args or out is NULL");
    memset(out, 0, sizeof *out);
    if (opts) o = *opts; else memset(&o, 0, sizeof o);
    if (args->error || !ak_args_params(args)) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: more than %d arguments", AK_MAX_ARGS);
    if (o.num_options < 0 || o.num_options > 48 || (o.num_options && !o.options))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: %d compile options (0..48)", o.num_options);
    for (i = 0; i < o.num_options; i++)
        if (!o.options[i]) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: compile option %d is NULL", i);
    if (o.max_variants < 0 || !(o.max_ms >= 0) || o.warmup < 0 || o.trials < 0 || o.threads < 0 || o.threads > 64 ||
        !(o.atol >= 0) || !(o.rtol >= 0))
        return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: negative budget, trials, threads (max 64) or tolerance");
    if (o.shape_key && strlen(o.shape_key) > 4096) return _ak_err(AK_ERROR_INVALID_ARGUMENT, "ak_autotune: shape key over 4096 characters");
    if ((r = _ak_tune_check_space(sp, &total)) != AK_OK) return r;
    n = o.max_variants && o.max_variants < total ? o.max_variants : total;
    out->total = total;
    if (!o.no_store && _ak_tune_digest(ctx, source, name, sp, &o, digest) == AK_OK) have_digest = 1;

    /* a stored choice: compile that variant only, time nothing */
    if (have_digest && !o.retune) {
        _ak_tune_var v;
        double ms = 0;
        memset(&v, 0, sizeof v);
        memset(&j, 0, sizeof j);
        if (_ak_tune_load(ctx, digest, name, sp, total, &v, &ms) && _ak_tune_geometry(sp, &v) == AK_OK) {
            j.ctx = ctx; j.source = source; j.name = name; j.o = &o;
            _ak_tune_compile(&j, &v);
            if (v.state == _AK_TV_COMPILED) {
                if (o.cpu) ak_kernel_set_cpu(v.k, o.cpu, o.cpu_user);
                v.ms = ms;
                _ak_tune_result(sp, &v, total, out);
                out->from_cache = 1;
                _ak_log(&ctx->log, AK_LOG_INFO, AK_LOGITEM_GENERIC, "autotune %s: stored choice %s (%.4f ms)", name, out->defines, ms);
                return AK_OK;
            }
            _ak_log(&ctx->log, AK_LOG_WARN, AK_LOGITEM_GENERIC, "autotune %s: the stored choice no longer compiles (%s); tuning again", name, v.msg);
        }
    }

    memset(&j, 0, sizeof j);
    j.ctx = ctx; j.source = source; j.name = name; j.o = &o; j.n = n;
    j.t0 = _ak_now_ns();
    j.vars = (_ak_tune_var*)_ak_calloc((size_t)n * sizeof *j.vars);
    if (!j.vars) return _ak_err(AK_ERROR_OUT_OF_MEMORY, "ak_autotune: no host memory for %d variants", n);
    for (i = 0; i < n; i++) {
        _ak_tune_point_at(sp, i, &j.vars[i]);
        ak_result g = _ak_tune_geometry(sp, &j.vars[i]);
        if (g != AK_OK) {
            j.vars[i].state = _AK_TV_SKIPPED;
            _ak_fmt(j.vars[i].msg, sizeof j.vars[i].msg, "left out by the geometry callback (%s)", ak_result_name(g));
        }
    }
    /* compile: hipRTC compiles one at a time per process, NVRTC in parallel */
    threads = o.threads ? o.threads : ctx->bk->compile_threads;
    if (threads > n) threads = n;
    _ak_mutex_init(&j.lock);
    {
        pthread_t th[64];
        int started = 0;
        for (i = 1; i < threads; i++) { if (pthread_create(&th[started], NULL, _ak_tune_worker, &j) == 0) started++; }
        _ak_tune_worker(&j);
        for (i = 0; i < started; i++) pthread_join(th[i], NULL);
    }
    _ak_mutex_destroy(&j.lock);

    /* check and time, one variant at a time, on the calling thread */
    r = _ak_snap_take(ctx, args, &snap);
    for (i = 0; i < n && r == AK_OK; i++) {
        _ak_tune_var* v = &j.vars[i];
        ak_tune_progress pr;
        ak_bench_options bo;
        ak_bench_stats st;
        ak_check_result cr;
        memset(&pr, 0, sizeof pr);
        if (v->state == _AK_TV_BUDGET) break;
        if (v->state != _AK_TV_SKIPPED) {
            if (out->timed > 0 && o.max_ms > 0 && _ak_tune_elapsed(&j) > o.max_ms) break;
            out->tried++;
        }
        if (v->state == _AK_TV_SKIPPED) pr.status = AK_TUNE_SKIPPED;
        else if (v->state == _AK_TV_FAILED) pr.status = AK_TUNE_FAILED;
        else {
            pr.status = AK_TUNE_TIMED;
            if (o.cpu) ak_kernel_set_cpu(v->k, o.cpu, o.cpu_user);
            if (o.cpu) {
                if ((r = _ak_snap_restore(&snap, args)) != AK_OK) break;
                if (ak_check(v->k, v->grid, v->block, v->shmem, args, o.atol, o.rtol, &cr) != AK_OK) {
                    pr.status = AK_TUNE_FAILED;
                    _ak_copy(v->msg, sizeof v->msg, ak_last_error());
                } else if (!cr.passed) {
                    pr.status = AK_TUNE_WRONG;
                    _ak_fmt(v->msg, sizeof v->msg, "%zu elements differ from the CPU reference; worst: argument %d element %zu, abs error %g",
                            cr.mismatches, cr.worst_arg, cr.worst_index, cr.max_abs_err);
                }
            }
            if (pr.status == AK_TUNE_TIMED) {
                if ((r = _ak_snap_restore(&snap, args)) != AK_OK) break;
                memset(&bo, 0, sizeof bo);
                bo.warmup = o.warmup ? o.warmup : 2;
                bo.trials = o.trials ? o.trials : 10;
                if (ak_bench_kernel(v->k, v->grid, v->block, v->shmem, args, &bo, NULL, &st) != AK_OK) {
                    pr.status = AK_TUNE_FAILED;
                    _ak_copy(v->msg, sizeof v->msg, ak_last_error());
                } else {
                    v->ms = st.median;
                    out->timed++;
                    if (best < 0 || v->ms < j.vars[best].ms) best = i;
                }
            }
        }
        if (pr.status == AK_TUNE_FAILED || pr.status == AK_TUNE_WRONG) {
            out->rejected++;
            if (first_bad < 0) first_bad = i;
        }
        if (o.progress) {
            pr.point = &v->pt;
            pr.ms = v->ms;
            pr.done = out->tried;
            pr.total = n;
            pr.best_index = best >= 0 ? best : -1;
            pr.best_ms = best >= 0 ? j.vars[best].ms : 0;
            pr.message = pr.status == AK_TUNE_TIMED ? "" : v->msg;
            o.progress(o.progress_user, &pr);
        }
    }
    if (r == AK_OK) r = _ak_snap_restore(&snap, args);
    if (r == AK_OK) r = ak_stream_synchronize(ctx, NULL);
    _ak_snap_free(&snap);
    if (r == AK_OK && best < 0) {
        char defs[512] = "";
        if (first_bad >= 0) _ak_tune_defines(&j.vars[first_bad], defs, sizeof defs);
        r = first_bad >= 0 ? _ak_err(AK_ERROR_OPTIMIZATION, "ak_autotune(%s): no variant compiled and passed; variant %d (%s): %s",
                                     name, first_bad, defs, j.vars[first_bad].msg)
                           : _ak_err(AK_ERROR_OPTIMIZATION, "ak_autotune(%s): no variant to try (%d left out by the geometry callback%s%s)",
                                     name, n, n ? ": " : "", n ? j.vars[0].msg : "");
    }
    if (r == AK_OK) {
        if (have_digest) _ak_tune_store(ctx, digest, name, &j.vars[best]);
        _ak_tune_result(sp, &j.vars[best], total, out);
    }
    for (i = 0; i < n; i++) ak_kernel_release(j.vars[i].k);
    _ak_dealloc(j.vars);
    return r;
}
#endif /* AK_TYPECHECK_ONLY */

#endif /* AMDKIT_IMPLEMENTATION_DONE */
#endif /* AMDKIT_IMPLEMENTATION */

/* --------------------------------------------------------------------------
 * LICENSE (the same text as the LICENSE file)
 *
 * MIT License
 *
 * Copyright (c) 2026 the amdkit authors
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to
 * deal in the Software without restriction, including without limitation the
 * rights to use, copy, modify, merge, publish, distribute, sublicense, and/or
 * sell copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in
 * all copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
 * FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
 * IN THE SOFTWARE.
 * ------------------------------------------------------------------------ */
