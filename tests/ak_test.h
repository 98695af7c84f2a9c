/* ak_test.h - the tiny test harness of amdkit's suites.
 * A suite is `void akt_suite_NAME(void)` calling AKT_RUN(test_fn) for each
 * test; tests use the AKT_* checks. A test fails if any check in it fails.
 * The runner prints one line per test and `N passed, N failed` last. */
#ifndef AK_TEST_H
#define AK_TEST_H
#include <stdio.h>
#include <string.h>
#include <math.h>
#include "../amdkit.h"

#ifdef __cplusplus
extern "C" {
#endif
void akt_fail(const char* file, int line, const char* fmt, ...);
void akt_run(const char* name, void (*fn)(void));
void akt_skip(const char* why);  /* mark the running test skipped (only for tests that need a GPU) */
/* A fresh random seed per run (printed, so a failure can be replayed with AKT_SEED=). */
unsigned long long akt_seed(void);
/* Deterministic PRNG on a caller's state: uniform in [lo, hi). */
double akt_uniform(unsigned long long* state, double lo, double hi);
/* 1 if `name` is one of the comma-separated items of `list` (an environment list of families / targets). */
int akt_list_has(const char* list, const char* name);
/* Scratch directory for this run (made on first use, under build/). */
const char* akt_tmpdir(void);
/* A context on the cpu backend with the cache in akt_tmpdir()/name, its user kernels not compiled
 * (cpu_compile_check off: the suites' cpu kernels are stand-ins). */
ak_context* akt_cpu_context(const char* cache_subdir);
/* A GPU context for a gpu_* suite (cfg NULL: defaults + environment), or NULL
 * after a failure that says why; a context that fell back to the cpu backend
 * is refused (the backend reports named) unless allow_cpu. Use the macro: a
 * suite file that defines AKT_GPU_ON_CPU dry-runs its harness on the cpu. */
ak_context* akt_gpu_context_ex(const ak_config* cfg, int allow_cpu);
#ifdef AKT_GPU_ON_CPU
#define akt_gpu_context(cfg) akt_gpu_context_ex(cfg, 1)
#else
#define akt_gpu_context(cfg) akt_gpu_context_ex(cfg, 0)
#endif
/* Test hook: 1: the cpu backend stores and reads autotune choices as a GPU backend does (ak_autotune stores
 * none there: every variant runs the same C function), so the stored-choice path is tested without a GPU. */
void akt_tune_store_on_host(int on);
/* Launch the generic matrix attention kernel ak_attn_mmagen<hd>_<dtype>, which
 * no op launches (tests/t_gpu_attention.c runs it on the device): the kernel
 * from the library's memo, the arguments from its generated packer, checked
 * against each other (tests/ti_kargs.c). K and V share the strides ks, O has
 * Q's (qs); no split, one block per R rows. */
ak_result akt_attn_mmagen_launch(ak_context* ctx, ak_dtype t, size_t hd, ak_dim3 grid, ak_dim3 block, const void* q,
                                 const void* k, const void* v, void* o, float* lse, int hkv, int group, int sq, int skv,
                                 const int64_t qs[3], const int64_t ks[3], float scale_log2, int causal, int rows_per_block);
/* 1: ak_attention keeps off the Hopper kernel (the mma.sync kernel runs on sm_90 too); 0: its own choice. */
void akt_attn_force_mma(int on);
void akt_attn_sm90_nc(int n);
#ifdef __cplusplus
}
#endif

#define AKT_RUN(fn) akt_run(#fn, fn)
#define AKT_CHECK(c) do { if (!(c)) akt_fail(__FILE__, __LINE__, "check failed: %s", #c); } while (0)
#define AKT_CHECKF(c, ...) do { if (!(c)) akt_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define AKT_OK(e) do { ak_result akt_r_ = (e); \
    if (akt_r_ != AK_OK) akt_fail(__FILE__, __LINE__, "%s -> %s: %s", #e, ak_result_name(akt_r_), ak_last_error()); } while (0)
/* Expect error code `code` and a non-empty message. */
#define AKT_ERR(e, code) do { ak_result akt_r_ = (e); \
    if (akt_r_ != (code)) akt_fail(__FILE__, __LINE__, "%s -> %s, expected %s (%s)", #e, ak_result_name(akt_r_), ak_result_name(code), ak_last_error()); \
    else if (!ak_last_error()[0]) akt_fail(__FILE__, __LINE__, "%s: empty error message", #e); } while (0)
/* The last failure's item id (what tests match on; the message text is for people). */
#define AKT_ITEM(it) do { ak_error_item akt_i_ = ak_last_error_info()->item; \
    if (akt_i_ != (it)) akt_fail(__FILE__, __LINE__, "error item %s, expected %s (%s)", ak_error_item_name(akt_i_), ak_error_item_name(it), ak_last_error()); } while (0)
/* Expect error code `code` with item `item`. */
#define AKT_ERR_ITEM(e, code, it) do { AKT_ERR(e, code); AKT_ITEM(it); } while (0)
#define AKT_EQ_INT(a, b) do { long long akt_a_ = (long long)(a), akt_b_ = (long long)(b); \
    if (akt_a_ != akt_b_) akt_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, akt_a_, akt_b_); } while (0)
#define AKT_EQ_STR(a, b) do { const char* akt_a_ = (a); const char* akt_b_ = (b); \
    if (!akt_a_ || !akt_b_ || strcmp(akt_a_, akt_b_)) akt_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, akt_a_ ? akt_a_ : "(null)", akt_b_ ? akt_b_ : "(null)"); } while (0)
#define AKT_NEAR(a, b, tol) do { double akt_a_ = (double)(a), akt_b_ = (double)(b); \
    if (!(fabs(akt_a_ - akt_b_) <= (tol))) akt_fail(__FILE__, __LINE__, "%s ~ %s: %.9g vs %.9g (tol %g)", #a, #b, akt_a_, akt_b_, (double)(tol)); } while (0)
#define AKT_CONTAINS(hay, needle) do { const char* akt_h_ = (hay); \
    if (!akt_h_ || !strstr(akt_h_, (needle))) akt_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", akt_h_ ? akt_h_ : "(null)", (needle)); } while (0)
#endif
