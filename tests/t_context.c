/* Context, backends, device info, streams, events, copies, CPU kernels and
 * the check helper, on the cpu backend, through the public API only. Also
 * every public function of the context / launch / memory (except the pool's
 * ak_malloc / ak_free / stats / trim) / stream sections with NULL and bad
 * arguments. Expectations about hip/cuda being unusable hold on a machine
 * without a GPU (CI); where the probe finds a device they are skipped. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

/* ---- helpers ----------------------------------------------------------------- */

static ak_config cpu_config(const char* sub, char* dir, size_t cap) {
    ak_config cfg = ak_config_default();
    snprintf(dir, cap, "%s/%s", akt_tmpdir(), sub);
    cfg.backend = AK_BACKEND_CPU;
    cfg.cache_dir = dir;
    cfg.log_level = AK_LOG_NONE;
    return cfg;
}

/* Save / restore a few environment variables. */
static const char* const env_names[] = { "AMDKIT_BACKEND", "AMDKIT_CACHE_DIR", "AMDKIT_LOG", "AMDKIT_DEVICE" };
#define N_ENV ((int)(sizeof env_names / sizeof env_names[0]))
static char* env_saved[N_ENV];
static void env_save(void) {
    int i;
    for (i = 0; i < N_ENV; i++) {
        const char* v = getenv(env_names[i]);
        env_saved[i] = NULL;
        if (v) { env_saved[i] = (char*)malloc(strlen(v) + 1); if (env_saved[i]) strcpy(env_saved[i], v); }
        unsetenv(env_names[i]);
    }
}
static void env_restore(void) {
    int i;
    for (i = 0; i < N_ENV; i++) {
        if (env_saved[i]) { setenv(env_names[i], env_saved[i], 1); free(env_saved[i]); env_saved[i] = NULL; }
        else unsetenv(env_names[i]);
    }
}

static int probe_usable(ak_backend b) {
    ak_backend_report r[3];
    ak_probe_backends(r);
    return r[b - AK_BACKEND_HIP].status == AK_OK;
}

/* ---- context creation and backends ------------------------------------------ */

static void cpu_context_from_env(void) {
    char dir[600];
    ak_context* ctx = NULL;
    snprintf(dir, sizeof dir, "%s/context_env", akt_tmpdir());
    env_save();
    setenv("AMDKIT_BACKEND", "cpu", 1);
    setenv("AMDKIT_CACHE_DIR", dir, 1);
    setenv("AMDKIT_LOG", "none", 1);
    AKT_OK(ak_context_create(NULL, &ctx));
    AKT_CHECK(ctx != NULL);
    if (ctx) {
        const ak_device_info* d = ak_context_device(ctx);
        const ak_config* c = ak_context_config(ctx);
        AKT_EQ_INT(d->backend, AK_BACKEND_CPU);
        AKT_EQ_INT(c->backend, AK_BACKEND_CPU);
        AKT_EQ_INT(c->log_level, AK_LOG_NONE);
        AKT_EQ_STR(c->cache_dir, dir);
        ak_context_destroy(ctx);
    }
    /* an explicit config does NOT read the environment */
    setenv("AMDKIT_BACKEND", "gpu", 1);
    setenv("AMDKIT_LOG", "loud", 1);
    {
        ak_config cfg = cpu_config("context_env", dir, sizeof dir);
        ctx = NULL;
        AKT_OK(ak_context_create(&cfg, &ctx));
        if (ctx) AKT_EQ_INT(ak_context_device(ctx)->backend, AK_BACKEND_CPU);
        ak_context_destroy(ctx);
        /* ... but NULL does, and the malformed value is an error */
        ctx = NULL;
        AKT_ERR_ITEM(ak_context_create(NULL, &ctx), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
        AKT_CONTAINS(ak_last_error(), "AMDKIT_BACKEND");
        AKT_CHECK(ctx == NULL);
    }
    env_restore();
}

static void config_strings_are_copied(void) {
    char dir[600], arch[32];
    ak_config cfg = cpu_config("context_copy", dir, sizeof dir);
    ak_context* ctx = NULL;
    strcpy(arch, "gfx90a");
    cfg.arch = arch;
    AKT_OK(ak_context_create(&cfg, &ctx));
    if (!ctx) return;
    memset(dir, 'x', 20);
    strcpy(arch, "zzz");
    AKT_CHECK(strncmp(ak_context_config(ctx)->cache_dir, "xxxxxxxxxx", 10) != 0);
    AKT_CONTAINS(ak_context_config(ctx)->cache_dir, "context_copy");
    AKT_EQ_STR(ak_context_config(ctx)->arch, "gfx90a");
    /* the named arch resolved the AUTO fields (gfx90a: fp16, balanced) */
    AKT_EQ_INT(ak_context_config(ctx)->precision, AK_F16);
    AKT_EQ_INT(ak_context_config(ctx)->opt_level, AK_OPT_BALANCED);
    ak_context_destroy(ctx);
}

static void forced_hip_fails_without_device(void) {
    char dir[600];
    ak_config cfg = cpu_config("context_hip", dir, sizeof dir);
    ak_context* ctx = (ak_context*)&cfg;
    ak_result r;
    if (probe_usable(AK_BACKEND_HIP)) { akt_skip("a HIP device is present"); return; }
    cfg.backend = AK_BACKEND_HIP;
    r = ak_context_create(&cfg, &ctx);
    AKT_CHECKF(r == AK_ERROR_NO_DEVICE || r == AK_ERROR_BACKEND_UNAVAILABLE, "forced hip -> %s", ak_result_name(r));
    AKT_CHECK(ctx == NULL);
    AKT_CONTAINS(ak_last_error(), "libamdhip64");
    AKT_CONTAINS(ak_last_error(), "hip");
    AKT_CHECK(strstr(ak_last_error(), "cuda:") == NULL); /* only the forced backend was tried */
}

static void forced_cuda_fails_without_device(void) {
    char dir[600];
    ak_config cfg = cpu_config("context_cuda", dir, sizeof dir);
    ak_context* ctx = (ak_context*)&cfg;
    ak_result r;
    if (probe_usable(AK_BACKEND_CUDA)) { akt_skip("a CUDA device is present"); return; }
    cfg.backend = AK_BACKEND_CUDA;
    r = ak_context_create(&cfg, &ctx);
    AKT_CHECKF(r == AK_ERROR_NO_DEVICE || r == AK_ERROR_BACKEND_UNAVAILABLE, "forced cuda -> %s", ak_result_name(r));
    AKT_CHECK(ctx == NULL);
    AKT_CONTAINS(ak_last_error(), "libcuda");
    AKT_CHECK(strstr(ak_last_error(), "libamdhip64") == NULL);
}

static void auto_backend_reports(void) {
    char dir[600];
    ak_config cfg = cpu_config("context_auto", dir, sizeof dir);
    ak_context* ctx = NULL;
    const ak_backend_report* rep;
    ak_backend_report probe[3];
    int n = -1, i, selected = 0;
    cfg.backend = AK_BACKEND_AUTO;
    AKT_OK(ak_context_create(&cfg, &ctx));
    if (!ctx) return;
    rep = ak_context_backend_reports(ctx, &n);
    AKT_EQ_INT(n, 3);
    AKT_CHECK(rep != NULL);
    if (!rep) { ak_context_destroy(ctx); return; }
    AKT_EQ_INT(rep[0].backend, AK_BACKEND_HIP);
    AKT_EQ_INT(rep[1].backend, AK_BACKEND_CUDA);
    AKT_EQ_INT(rep[2].backend, AK_BACKEND_CPU);
    for (i = 0; i < 3; i++) {
        selected += rep[i].selected;
        if (rep[i].selected) {
            AKT_EQ_INT(rep[i].status, AK_OK);
            AKT_EQ_INT(ak_context_device(ctx)->backend, rep[i].backend);
        }
    }
    AKT_EQ_INT(selected, 1);
    /* hip is always tried first, with a reason */
    AKT_EQ_INT(rep[0].tried, 1);
    AKT_CHECK(rep[0].reason[0] != 0);
    if (rep[2].selected) {
        /* cpu chosen: hip and cuda were tried and say why not */
        for (i = 0; i < 2; i++) {
            AKT_EQ_INT(rep[i].tried, 1);
            AKT_CHECK(rep[i].status != AK_OK);
            AKT_CHECK(rep[i].reason[0] != 0);
            AKT_EQ_INT(rep[i].selected, 0);
        }
        AKT_CONTAINS(rep[0].reason, "libamdhip64");
        AKT_CONTAINS(rep[1].reason, "libcuda");
        AKT_CHECK(rep[2].reason[0] != 0);
    }
    /* the probe sees the same */
    ak_probe_backends(probe);
    for (i = 0; i < 3; i++) {
        AKT_EQ_INT(probe[i].backend, AK_BACKEND_HIP + i);
        AKT_EQ_INT(probe[i].tried, 1);
        AKT_EQ_INT(probe[i].selected, 0);
        AKT_CHECK(probe[i].reason[0] != 0);
        if (rep[i].tried) AKT_EQ_INT(probe[i].status, rep[i].status);
    }
    AKT_EQ_INT(probe[2].status, AK_OK);
    ak_probe_backends(NULL); /* no crash */
    ak_context_destroy(ctx);
    /* forced cpu: only cpu tried */
    cfg.backend = AK_BACKEND_CPU;
    AKT_OK(ak_context_create(&cfg, &ctx));
    if (!ctx) return;
    rep = ak_context_backend_reports(ctx, &n);
    AKT_EQ_INT(rep[0].tried, 0);
    AKT_EQ_INT(rep[1].tried, 0);
    AKT_EQ_INT(rep[2].tried, 1);
    AKT_EQ_INT(rep[2].selected, 1);
    AKT_CHECK(ak_context_backend_reports(ctx, NULL) == rep);
    ak_context_destroy(ctx);
}

static void cpu_device_info(void) {
    ak_context* ctx = akt_cpu_context("context_dev");
    const ak_device_info* d;
    if (!ctx) return;
    d = ak_context_device(ctx);
    AKT_CHECK(d != NULL);
    if (!d) { ak_context_destroy(ctx); return; }
    AKT_EQ_INT(d->backend, AK_BACKEND_CPU);
    AKT_EQ_INT(d->device, 0);
    AKT_EQ_INT(d->device_count, 1);
    AKT_CHECK(d->name[0] != 0);
    AKT_EQ_STR(d->arch, "cpu");
    AKT_CHECK(d->mem_total > 0);
    AKT_CHECK(d->mem_free <= d->mem_total);
    AKT_CHECK(d->wave_size >= 1);
    AKT_CHECK(d->compute_units >= 1);
    AKT_CHECK(d->shared_mem_per_block > 0);
    AKT_CHECK(d->arch_info == NULL);
    AKT_OK(ak_context_probe(ctx));
    AKT_EQ_INT(d->fp16, 1);
    AKT_EQ_INT(d->bf16, 1);
    AKT_OK(ak_context_refresh_memory(ctx));
    AKT_CHECK(d->mem_total > 0);
    AKT_OK(ak_device_synchronize(ctx));
    ak_context_destroy(ctx);
}

static void invalid_config_no_context(void) {
    char dir[600];
    ak_config cfg = cpu_config("context_bad", dir, sizeof dir);
    ak_context* ctx = (ak_context*)&cfg; /* must be reset to NULL */
    cfg.cache_capacity = -1;
    AKT_ERR_ITEM(ak_context_create(&cfg, &ctx), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    AKT_CHECK(ctx == NULL);
    AKT_CONTAINS(ak_last_error(), "cache_capacity");
}

/* Run-time allocator: used for the context's own objects, balanced on destroy. */
typedef struct { int magic; long allocs, frees; } alloc_counter;
static void* count_alloc(size_t n, void* ud) { alloc_counter* c = (alloc_counter*)ud; if (c->magic == 0xA110C) c->allocs++; return malloc(n); }
static void count_free(void* p, void* ud) { alloc_counter* c = (alloc_counter*)ud; if (c->magic == 0xA110C) c->frees++; free(p); }
static void runtime_allocator_used(void) {
    char dir[600];
    ak_config cfg = cpu_config("context_alloc", dir, sizeof dir);
    alloc_counter cnt;
    ak_context* ctx = NULL;
    ak_stream* s = NULL;
    ak_event* e = NULL;
    ak_kernel* k = NULL;
    cnt.magic = 0xA110C; cnt.allocs = 0; cnt.frees = 0;
    cfg.allocator.alloc = count_alloc;
    cfg.allocator.free = count_free;
    cfg.allocator.user_data = &cnt;
    AKT_OK(ak_context_create(&cfg, &ctx));
    if (!ctx) return;
    AKT_OK(ak_stream_create(ctx, "s", 0, &s));
    AKT_OK(ak_event_create(ctx, &e));
    AKT_OK(ak_kernel_get(ctx, "/* cpu */", "k", NULL, &k));
    AKT_CHECK(cnt.allocs >= 1);
    ak_kernel_release(k);
    ak_event_destroy(e);
    ak_stream_destroy(s);
    ak_context_destroy(ctx);
    AKT_CHECK(cnt.allocs >= 1);
    AKT_EQ_INT(cnt.allocs, cnt.frees);
}

/* ---- NULL and bad arguments everywhere -------------------------------------- */

static void cpu_noop(const ak_launch_info* info, void** args) { (void)info; (void)args; }

static void null_arguments_everywhere(void) {
    ak_context* ctx = akt_cpu_context("context_null");
    ak_context* out = (ak_context*)&out;
    ak_stream* s = NULL;
    ak_event *e1 = NULL, *e2 = NULL;
    ak_kernel* k = NULL;
    ak_dim3 one = { 1, 1, 1 };
    ak_args a;
    ak_check_result cr;
    float ms = -1;
    int n = -1, buf[16];
    void* p = (void*)&p;
    char longname[260];
    if (!ctx) return;
    memset(&a, 0, sizeof a);
    memset(longname, 'k', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    /* >>decl:context */
    AKT_ERR_ITEM(ak_context_create(NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ak_context_destroy(NULL);
    AKT_CHECK(ak_context_device(NULL) == NULL);
    AKT_CHECK(ak_context_config(NULL) == NULL);
    AKT_CHECK(ak_context_backend_reports(NULL, &n) == NULL);
    AKT_EQ_INT(n, 0);
    AKT_CHECK(ak_context_backend_reports(NULL, NULL) == NULL);
    ak_probe_backends(NULL);
    AKT_ERR_ITEM(ak_context_probe(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_context_refresh_memory(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_device_synchronize(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    (void)out;
    /* >>decl:launch */
    k = (ak_kernel*)&k;
    AKT_ERR_ITEM(ak_kernel_get(NULL, "src", "k", NULL, &k), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CHECK(k == (ak_kernel*)&k || k == NULL); /* with no ctx, out is left alone or NULL */
    k = (ak_kernel*)&k;
    AKT_ERR_ITEM(ak_kernel_get(ctx, NULL, "k", NULL, &k), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CHECK(k == NULL);
    AKT_ERR_ITEM(ak_kernel_get(ctx, "src", NULL, NULL, &k), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_kernel_get(ctx, "src", "", NULL, &k), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_kernel_get(ctx, "src", longname, NULL, &k), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CHECK(k == NULL);
    AKT_ERR_ITEM(ak_kernel_get(ctx, "src", "k", NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ak_kernel_release(NULL);
    ak_kernel_set_cpu(NULL, cpu_noop, NULL);
    AKT_EQ_INT(ak_kernel_cache_source(NULL), AK_CACHE_MISS);
    AKT_ERR_ITEM(ak_launch(NULL, one, one, 0, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CHECK(ak_args_params(NULL) == NULL);
    ak_args_ptr(NULL, NULL);
    ak_args_i32(NULL, 0); ak_args_u32(NULL, 0); ak_args_i64(NULL, 0); ak_args_u64(NULL, 0);
    ak_args_f32(NULL, 0); ak_args_f64(NULL, 0);
    ak_args_buffer(NULL, NULL, 0, AK_F32, AK_ARG_IN);
    AKT_ERR_ITEM(ak_check(NULL, one, one, 0, &a, 0, 0, &cr), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_OK(ak_kernel_get(ctx, "src", "k", NULL, &k));
    if (k) {
        AKT_ERR_ITEM(ak_check(k, one, one, 0, NULL, 0, 0, &cr), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
        AKT_ERR_ITEM(ak_check(k, one, one, 0, &a, 0, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
        AKT_ERR_ITEM(ak_check(k, one, one, 0, &a, 0, 0, &cr), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NO_CPU_IMPLEMENTATION); /* no CPU implementation */
        AKT_ITEM(AK_ERRITEM_NO_CPU_IMPLEMENTATION);
        ak_kernel_set_cpu(k, cpu_noop, NULL);
        AKT_ERR(ak_check(k, one, one, 0, &a, -1.0, 0, &cr), AK_ERROR_INVALID_ARGUMENT);
        AKT_ERR(ak_check(k, one, one, 0, &a, 0, NAN, &cr), AK_ERROR_INVALID_ARGUMENT);
        ak_args_buffer(&a, NULL, 64, AK_F32, AK_ARG_OUT);
        AKT_ERR_ITEM(ak_check(k, one, one, 0, &a, 0, 0, &cr), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT); /* NULL buffer */
        memset(&a, 0, sizeof a);
        ak_args_buffer(&a, buf, sizeof buf, (ak_dtype)42, AK_ARG_OUT);
        AKT_ERR_ITEM(ak_check(k, one, one, 0, &a, 0, 0, &cr), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE); /* unknown dtype */
        memset(&a, 0, sizeof a);
        a.error = 1;
        AKT_ERR(ak_check(k, one, one, 0, &a, 0, 0, &cr), AK_ERROR_INVALID_ARGUMENT); /* overflowed builder */
        ak_kernel_release(k);
    }
    /* >>decl:memory */
    AKT_ERR_ITEM(ak_memcpy(NULL, buf, buf + 8, 16, AK_H2H), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_memcpy(ctx, NULL, buf, 16, AK_H2D), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_memcpy(ctx, buf, NULL, 16, AK_D2H), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_memcpy(ctx, buf, buf + 8, 16, (ak_copy_kind)7), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_memcpy(ctx, buf, buf + 8, SIZE_MAX, AK_H2H), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_memcpy_async(NULL, buf, buf + 8, 16, AK_H2H, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_memcpy_async(ctx, NULL, buf, 16, AK_H2D, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_memcpy_async(ctx, buf, NULL, 16, AK_D2D, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_memcpy_async(ctx, buf, buf + 8, 16, (ak_copy_kind)-3, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_memset(NULL, buf, 0, 16, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_memset(ctx, NULL, 0, 16, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_memset(ctx, buf, 0, SIZE_MAX, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_host_alloc(NULL, 16, &p), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_host_alloc(ctx, 16, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    p = (void*)&p;
    AKT_ERR(ak_host_alloc(ctx, 0, &p), AK_ERROR_INVALID_ARGUMENT);
    AKT_CHECK(p == NULL);
    AKT_ERR(ak_host_alloc(ctx, SIZE_MAX, &p), AK_ERROR_INVALID_ARGUMENT);
    AKT_CHECK(p == NULL);
    AKT_ERR_ITEM(ak_host_free(NULL, buf), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_OK(ak_host_free(ctx, NULL));
    /* >>decl:stream */
    s = (ak_stream*)&s;
    AKT_ERR_ITEM(ak_stream_create(NULL, "s", 0, &s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_stream_create(ctx, "s", 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ak_stream_destroy(NULL);
    AKT_ERR_ITEM(ak_stream_synchronize(NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_OK(ak_stream_synchronize(ctx, NULL));
    AKT_EQ_STR(ak_stream_name(NULL), "default");
    AKT_ERR_ITEM(ak_event_create(NULL, &e1), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_event_create(ctx, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ak_event_destroy(NULL);
    AKT_ERR_ITEM(ak_event_record(NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_event_synchronize(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_OK(ak_event_create(ctx, &e1));
    AKT_OK(ak_event_create(ctx, &e2));
    AKT_ERR(ak_event_elapsed_ms(NULL, e2, &ms), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_event_elapsed_ms(e1, NULL, &ms), AK_ERROR_INVALID_ARGUMENT);
    AKT_OK(ak_event_record(e1, NULL));
    AKT_OK(ak_event_record(e2, NULL));
    AKT_ERR(ak_event_elapsed_ms(e1, e2, NULL), AK_ERROR_INVALID_ARGUMENT);
    ak_event_destroy(e1);
    ak_event_destroy(e2);
    ak_context_destroy(ctx);
}

/* ---- streams and events ------------------------------------------------------ */

static void streams_named(void) {
    ak_context* ctx = akt_cpu_context("context_streams");
    ak_stream *s1 = NULL, *s2 = NULL, *s3 = NULL;
    char longname[200];
    if (!ctx) return;
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    AKT_OK(ak_stream_create(ctx, "copy-stream", 0, &s1));
    AKT_OK(ak_stream_create(ctx, "high-priority", -1, &s2));
    AKT_OK(ak_stream_create(ctx, longname, 5, &s3));
    if (s1) AKT_EQ_STR(ak_stream_name(s1), "copy-stream");
    if (s2) AKT_EQ_STR(ak_stream_name(s2), "high-priority");
    if (s3) {
        size_t len = strlen(ak_stream_name(s3));
        AKT_CHECK(len > 0 && len < sizeof longname);
        AKT_CHECK(strncmp(ak_stream_name(s3), longname, len) == 0);
    }
    AKT_CHECK(s1 != s2);
    AKT_OK(ak_stream_synchronize(ctx, s1));
    AKT_OK(ak_stream_synchronize(ctx, s2));
    ak_stream_destroy(s1);
    ak_stream_destroy(s2);
    ak_stream_destroy(s3);
    ak_context_destroy(ctx);
}

static void events_elapsed(void) {
    ak_context* ctx = akt_cpu_context("context_events");
    ak_event *a = NULL, *b = NULL;
    ak_stream* s = NULL;
    float ms = -1;
    volatile double sink = 0;
    int i;
    if (!ctx) return;
    AKT_OK(ak_event_create(ctx, &a));
    AKT_OK(ak_event_create(ctx, &b));
    AKT_OK(ak_stream_create(ctx, "timed", 0, &s));
    if (!a || !b) { ak_context_destroy(ctx); return; }
    /* before any record: errors, ms untouched */
    AKT_ERR(ak_event_elapsed_ms(a, b, &ms), AK_ERROR_INVALID_ARGUMENT);
    AKT_CHECK(ms == -1);
    AKT_ERR(ak_event_synchronize(a), AK_ERROR_INVALID_ARGUMENT);
    AKT_OK(ak_event_record(a, NULL));
    AKT_ERR(ak_event_elapsed_ms(a, b, &ms), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_event_elapsed_ms(b, a, &ms), AK_ERROR_INVALID_ARGUMENT);
    for (i = 0; i < 200000; i++) sink += i * 0.5;
    AKT_OK(ak_event_record(b, s));
    AKT_OK(ak_event_synchronize(a));
    AKT_OK(ak_event_synchronize(b));
    AKT_OK(ak_event_elapsed_ms(a, b, &ms));
    AKT_CHECKF(ms >= 0 && ms < 60000, "elapsed %g ms", (double)ms);
    AKT_OK(ak_event_elapsed_ms(a, a, &ms));
    AKT_CHECK(ms == 0);
    (void)sink;
    ak_event_destroy(a);
    ak_event_destroy(b);
    ak_stream_destroy(s);
    ak_context_destroy(ctx);
}

/* Objects of another context are refused everywhere. */
static void foreign_stream_refused(void) {
    ak_context* c1 = akt_cpu_context("context_foreign1");
    ak_context* c2 = akt_cpu_context("context_foreign2");
    ak_stream* s2 = NULL;
    ak_event *e1 = NULL, *e2 = NULL;
    ak_kernel* k = NULL;
    ak_dim3 one = { 1, 1, 1 };
    float ms;
    char src[32] = "abc", dst[32];
    if (!c1 || !c2) { ak_context_destroy(c1); ak_context_destroy(c2); return; }
    AKT_OK(ak_stream_create(c2, "other", 0, &s2));
    AKT_OK(ak_event_create(c1, &e1));
    AKT_OK(ak_event_create(c2, &e2));
    AKT_OK(ak_kernel_get(c1, "src", "k", NULL, &k));
    if (k) {
        ak_kernel_set_cpu(k, cpu_noop, NULL);
        AKT_ERR_ITEM(ak_launch(k, one, one, 0, s2, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);
        AKT_CONTAINS(ak_last_error(), "other");
        AKT_OK(ak_launch(k, one, one, 0, NULL, NULL));
    }
    AKT_ERR_ITEM(ak_memcpy_async(c1, dst, src, 4, AK_H2H, s2), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);
    AKT_ERR_ITEM(ak_memset(c1, dst, 0, 4, s2), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);
    AKT_ERR_ITEM(ak_stream_synchronize(c1, s2), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_WRONG_CONTEXT);
    AKT_ERR(ak_event_record(e1, s2), AK_ERROR_INVALID_ARGUMENT);
    AKT_OK(ak_event_record(e1, NULL));
    AKT_OK(ak_event_record(e2, s2));
    AKT_ERR(ak_event_elapsed_ms(e1, e2, &ms), AK_ERROR_INVALID_ARGUMENT);
    ak_kernel_release(k);
    ak_event_destroy(e1);
    ak_event_destroy(e2);
    ak_stream_destroy(s2);
    ak_context_destroy(c1);
    ak_context_destroy(c2);
}

/* ---- copies --------------------------------------------------------------------- */

static void memcpy_kinds_cpu(void) {
    ak_context* ctx = akt_cpu_context("context_copy_kinds");
    enum { N = 1000 };
    unsigned char host[N], host2[N], host3[N];
    void *d1 = NULL, *d2 = NULL, *pin = NULL;
    ak_stream* s = NULL;
    int i;
    if (!ctx) return;
    for (i = 0; i < N; i++) host[i] = (unsigned char)(i * 7 + 3);
    memset(host2, 0, N);
    AKT_OK(ak_malloc(ctx, N, NULL, &d1));
    AKT_OK(ak_malloc(ctx, N, NULL, &d2));
    if (!d1 || !d2) { ak_context_destroy(ctx); return; }
    AKT_OK(ak_memcpy(ctx, d1, host, N, AK_H2D));
    AKT_OK(ak_memcpy(ctx, d2, d1, N, AK_D2D));
    AKT_OK(ak_memcpy(ctx, host2, d2, N, AK_D2H));
    AKT_CHECK(memcmp(host, host2, N) == 0);
    AKT_OK(ak_memcpy(ctx, host3, host2, N, AK_H2H));
    AKT_CHECK(memcmp(host, host3, N) == 0);
    AKT_OK(ak_memcpy(ctx, host3, host2, 0, AK_H2H)); /* zero bytes: nothing to do */
    /* async on a named stream and on the default stream */
    AKT_OK(ak_stream_create(ctx, "copies", 0, &s));
    AKT_OK(ak_memset(ctx, d2, 0xAB, N, s));
    AKT_OK(ak_memcpy_async(ctx, host2, d2, N, AK_D2H, s));
    AKT_OK(ak_stream_synchronize(ctx, s));
    for (i = 0; i < N; i++) if (host2[i] != 0xAB) break;
    AKT_EQ_INT(i, N);
    AKT_OK(ak_memset(ctx, d2, 0, N / 2, NULL));
    AKT_OK(ak_memcpy_async(ctx, host2, d2, N, AK_D2H, NULL));
    AKT_OK(ak_stream_synchronize(ctx, NULL));
    AKT_EQ_INT(host2[0], 0);
    AKT_EQ_INT(host2[N / 2 - 1], 0);
    AKT_EQ_INT(host2[N / 2], 0xAB);
    AKT_OK(ak_memcpy_async(ctx, d1, host, N, AK_H2D, s));
    AKT_OK(ak_memcpy_async(ctx, d2, d1, N, AK_D2D, s));
    AKT_OK(ak_memcpy_async(ctx, host3, d2, N, AK_D2H, s));
    AKT_OK(ak_stream_synchronize(ctx, s));
    AKT_CHECK(memcmp(host, host3, N) == 0);
    /* pinned host buffers */
    AKT_OK(ak_host_alloc(ctx, N, &pin));
    AKT_CHECK(pin != NULL);
    if (pin) {
        AKT_OK(ak_memcpy_async(ctx, pin, d1, N, AK_D2H, s));
        AKT_OK(ak_stream_synchronize(ctx, s));
        AKT_CHECK(memcmp(pin, host, N) == 0);
        memset(pin, 0x11, N);
        AKT_OK(ak_memcpy(ctx, d1, pin, N, AK_H2D));
        AKT_OK(ak_memcpy(ctx, host2, d1, N, AK_D2H));
        AKT_EQ_INT(host2[N - 1], 0x11);
        AKT_OK(ak_host_free(ctx, pin));
    }
    ak_stream_destroy(s);
    AKT_OK(ak_free(ctx, d1));
    AKT_OK(ak_free(ctx, d2));
    ak_context_destroy(ctx);
}

/* ---- kernels on the cpu backend ------------------------------------------------ */

typedef struct { int calls; ak_launch_info last; } launch_probe;

/* y[i] = alpha * x[i] + y[i] over grid.x * block.x "threads", i < n */
static void cpu_saxpy(const ak_launch_info* info, void** args) {
    const float* x = *(const float* const*)args[0];
    float* y = *(float* const*)args[1];
    int n = *(const int*)args[2];
    float alpha = *(const float*)args[3];
    unsigned long long t, threads = (unsigned long long)info->grid.x * info->block.x;
    launch_probe* pr = (launch_probe*)info->user_data;
    if (pr) { pr->calls++; pr->last = *info; }
    for (t = 0; t < threads; t++) {
        unsigned long long i;
        for (i = t; i < (unsigned long long)n; i += threads) y[i] = alpha * x[i] + y[i];
    }
}

static const char saxpy_src[] =
    "extern \"C\" __global__ void saxpy(const float* x, float* y, int n, float a) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

static void cpu_kernel_launch(void) {
    ak_context* ctx = akt_cpu_context("context_launch");
    ak_kernel* k = NULL;
    enum { N = 300 };
    float *x = NULL, *y = NULL, hy[N];
    ak_args a;
    ak_dim3 grid = { 2, 1, 1 }, block = { 64, 1, 1 };
    launch_probe pr;
    int i, n = N;
    if (!ctx) return;
    memset(&pr, 0, sizeof pr);
    AKT_OK(ak_kernel_get(ctx, saxpy_src, "saxpy", NULL, &k));
    if (!k) { ak_context_destroy(ctx); return; }
    AKT_OK(ak_malloc(ctx, N * sizeof(float), NULL, (void**)&x));
    AKT_OK(ak_malloc(ctx, N * sizeof(float), NULL, (void**)&y));
    for (i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }
    memset(&a, 0, sizeof a);
    ak_args_ptr(&a, x);
    ak_args_ptr(&a, y);
    ak_args_i32(&a, n);
    ak_args_f32(&a, 2.0f);
    /* no CPU implementation yet: a launch error naming the fix */
    AKT_ERR_ITEM(ak_launch(k, grid, block, 0, NULL, ak_args_params(&a)), AK_ERROR_LAUNCH, AK_ERRITEM_NO_CPU_IMPLEMENTATION);
    AKT_CONTAINS(ak_last_error(), "saxpy");
    AKT_CONTAINS(ak_last_error(), "ak_kernel_set_cpu");
    AKT_CHECK(y[5] == 1.0f);
    ak_kernel_set_cpu(k, cpu_saxpy, &pr);
    AKT_OK(ak_launch(k, grid, block, 128, NULL, ak_args_params(&a)));
    AKT_OK(ak_stream_synchronize(ctx, NULL));
    AKT_OK(ak_memcpy(ctx, hy, y, sizeof hy, AK_D2H));
    for (i = 0; i < N; i++) if (hy[i] != 2.0f * (float)i + 1.0f) break;
    AKT_EQ_INT(i, N);
    AKT_EQ_INT(pr.calls, 1);
    AKT_EQ_INT(pr.last.grid.x, 2);
    AKT_EQ_INT(pr.last.block.x, 64);
    AKT_EQ_INT(pr.last.grid.y, 1);
    AKT_EQ_INT(pr.last.shared_bytes, 128);
    AKT_CHECK(pr.last.user_data == &pr);
    /* grid / block limits: nothing runs */
    {
        ak_dim3 zero_x = { 0, 1, 1 }, zero_z = { 1, 1, 0 }, big = { 1025, 1, 1 }, big3 = { 32, 32, 2 };
        ak_dim3 max1 = { 1024, 1, 1 }, max3 = { 8, 8, 16 };
        AKT_ERR_ITEM(ak_launch(k, zero_x, block, 0, NULL, ak_args_params(&a)), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
        AKT_ERR_ITEM(ak_launch(k, zero_z, block, 0, NULL, ak_args_params(&a)), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
        AKT_ERR_ITEM(ak_launch(k, grid, zero_x, 0, NULL, ak_args_params(&a)), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
        AKT_ERR_ITEM(ak_launch(k, grid, zero_z, 0, NULL, ak_args_params(&a)), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
        AKT_ERR_ITEM(ak_launch(k, grid, big, 0, NULL, ak_args_params(&a)), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
        AKT_CONTAINS(ak_last_error(), "1024");
        AKT_ERR(ak_launch(k, grid, big3, 0, NULL, ak_args_params(&a)), AK_ERROR_INVALID_ARGUMENT);
        AKT_EQ_INT(pr.calls, 1);
        AKT_OK(ak_launch(k, grid, max1, 0, NULL, ak_args_params(&a)));
        AKT_OK(ak_launch(k, grid, max3, 0, NULL, ak_args_params(&a)));
        AKT_EQ_INT(pr.calls, 3);
    }
    ak_kernel_release(k);
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_free(ctx, y));
    ak_context_destroy(ctx);
}

/* ---- ak_check ------------------------------------------------------------------ */

/* y = alpha * x; on the first call of a check (the "device" run) errors can
 * be injected, so the comparison logic is exercised on the cpu backend. */
static int scale_calls;
static int scale_inject;   /* 0 none, 1 two clear mismatches, 2 within-rtol big + small bad, 3 NaN */
static void cpu_scale(const ak_launch_info* info, void** args) {
    const float* x = *(const float* const*)args[0];
    float* y = *(float* const*)args[1];
    int n = *(const int*)args[2], i;
    float alpha = *(const float*)args[3];
    int device_run = scale_calls++ == 0;
    (void)info;
    for (i = 0; i < n; i++) y[i] = alpha * x[i];
    if (device_run && scale_inject == 1) { y[5] += 0.5f; y[77] += 3.0f; y[100] += 1e-7f; }
    if (device_run && scale_inject == 2) { y[3] += 0.5f; y[10] += 0.1f; }
    if (device_run && scale_inject == 3) { y[9] = NAN; }
    if (scale_inject == 4) { y[2] = INFINITY; y[6] = -INFINITY; y[8] = NAN; } /* the same on both runs */
    if (scale_inject == 5) y[2] = device_run ? INFINITY : -INFINITY;
    if (scale_inject == 6) y[4] = device_run ? 1.0f : INFINITY; /* an infinite reference has no tolerance */
}

static void check_setup(ak_context* ctx, ak_args* a, float** x, float** y, int n) {
    int i;
    AKT_OK(ak_malloc(ctx, (size_t)n * sizeof(float), NULL, (void**)x));
    AKT_OK(ak_malloc(ctx, (size_t)n * sizeof(float), NULL, (void**)y));
    for (i = 0; i < n; i++) { (*x)[i] = (float)(i % 17) - 8.0f; (*y)[i] = -999.0f; }
    memset(a, 0, sizeof *a);
    ak_args_buffer(a, *x, (size_t)n * sizeof(float), AK_F32, AK_ARG_IN);
    ak_args_buffer(a, *y, (size_t)n * sizeof(float), AK_F32, AK_ARG_OUT);
    ak_args_i32(a, n);
    ak_args_f32(a, 1.5f);
}

static void check_helper(void) {
    ak_context* ctx = akt_cpu_context("context_check");
    ak_kernel* k = NULL;
    ak_args a;
    ak_check_result cr;
    ak_dim3 one = { 1, 1, 1 };
    float *x = NULL, *y = NULL;
    enum { N = 256 };
    if (!ctx) return;
    AKT_OK(ak_kernel_get(ctx, "src", "scale", NULL, &k));
    if (!k) { ak_context_destroy(ctx); return; }
    ak_kernel_set_cpu(k, cpu_scale, NULL);
    check_setup(ctx, &a, &x, &y, N);
    if (!x || !y) { ak_context_destroy(ctx); return; }

    /* matching implementation: passed */
    scale_calls = 0; scale_inject = 0;
    AKT_OK(ak_check(k, one, one, 0, &a, 1e-6, 1e-6, &cr));
    AKT_EQ_INT(scale_calls, 2);          /* device run + CPU run */
    AKT_EQ_INT(cr.passed, 1);
    AKT_EQ_INT(cr.mismatches, 0);
    AKT_NEAR(cr.max_abs_err, 0, 0);
    AKT_CHECK(y[4] == 1.5f * x[4]);      /* the device buffer holds the device run's result */

    /* two mismatches: counted, the worst one located */
    scale_calls = 0; scale_inject = 1;
    AKT_OK(ak_check(k, one, one, 0, &a, 1e-5, 0, &cr));
    AKT_EQ_INT(cr.passed, 0);
    AKT_EQ_INT(cr.mismatches, 2);
    AKT_EQ_INT(cr.worst_index, 77);
    AKT_EQ_INT(cr.worst_arg, 1);
    AKT_NEAR(cr.max_abs_err, 3.0, 1e-5);
    AKT_NEAR(cr.max_rel_err, 3.0 / fabs(1.5 * (double)x[77]), 1e-4);
    /* a loose tolerance passes the same outputs */
    scale_calls = 0;
    AKT_OK(ak_check(k, one, one, 0, &a, 4.0, 0, &cr));
    AKT_EQ_INT(cr.passed, 1);
    AKT_EQ_INT(cr.mismatches, 0);
    AKT_NEAR(cr.max_abs_err, 3.0, 1e-5);
    AKT_EQ_INT(cr.worst_index, 77);

    /* a large error within rtol and a small one outside atol: the true max
     * abs error is reported, and the worst index is the mismatch */
    x[3] = 1000.0f / 1.5f;
    x[10] = 0.0f;
    scale_calls = 0; scale_inject = 2;
    AKT_OK(ak_check(k, one, one, 0, &a, 1e-3, 1e-3, &cr));
    AKT_EQ_INT(cr.mismatches, 1);
    AKT_EQ_INT(cr.passed, 0);
    AKT_EQ_INT(cr.worst_index, 10);
    AKT_NEAR(cr.max_abs_err, 0.5, 1e-3);

    /* NaN on one side only: a mismatch */
    scale_calls = 0; scale_inject = 3;
    AKT_OK(ak_check(k, one, one, 0, &a, 1e-3, 1e-3, &cr));
    AKT_EQ_INT(cr.mismatches, 1);
    AKT_EQ_INT(cr.worst_index, 9);
    AKT_EQ_INT(cr.passed, 0);
    /* equal infinities and NaN on both sides match; opposite infinities do not */
    scale_calls = 0; scale_inject = 4;
    AKT_OK(ak_check(k, one, one, 0, &a, 1e-3, 1e-3, &cr));
    AKT_EQ_INT(cr.mismatches, 0);
    AKT_EQ_INT(cr.passed, 1);
    scale_calls = 0; scale_inject = 5;
    AKT_OK(ak_check(k, one, one, 0, &a, 1e-3, 1e-3, &cr));
    AKT_EQ_INT(cr.mismatches, 1);
    AKT_EQ_INT(cr.worst_index, 2);
    scale_calls = 0; scale_inject = 6;
    AKT_OK(ak_check(k, one, one, 0, &a, 1e-3, 1e-3, &cr));
    AKT_EQ_INT(cr.mismatches, 1);
    AKT_EQ_INT(cr.worst_index, 4);
    scale_inject = 0;

    ak_kernel_release(k);
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_free(ctx, y));
    ak_context_destroy(ctx);
}

/* INOUT: the CPU run must see the inputs as they were before the device run. */
static void cpu_accumulate(const ak_launch_info* info, void** args) {
    const float* x = *(const float* const*)args[0];
    float* y = *(float* const*)args[1];
    int n = *(const int*)args[2], i;
    (void)info;
    for (i = 0; i < n; i++) y[i] += x[i];
}
static void check_inout_snapshot(void) {
    ak_context* ctx = akt_cpu_context("context_check_inout");
    ak_kernel* k = NULL;
    ak_args a;
    ak_check_result cr;
    ak_dim3 one = { 1, 1, 1 };
    float *x = NULL, *y = NULL;
    int i, n = 64;
    if (!ctx) return;
    AKT_OK(ak_kernel_get(ctx, "src", "acc", NULL, &k));
    AKT_OK(ak_malloc(ctx, 64 * sizeof(float), NULL, (void**)&x));
    AKT_OK(ak_malloc(ctx, 64 * sizeof(float), NULL, (void**)&y));
    if (!k || !x || !y) { ak_context_destroy(ctx); return; }
    ak_kernel_set_cpu(k, cpu_accumulate, NULL);
    for (i = 0; i < n; i++) { x[i] = (float)i; y[i] = 100.0f; }
    memset(&a, 0, sizeof a);
    ak_args_buffer(&a, x, 64 * sizeof(float), AK_F32, AK_ARG_IN);
    ak_args_buffer(&a, y, 64 * sizeof(float), AK_F32, AK_ARG_INOUT);
    ak_args_i32(&a, n);
    AKT_OK(ak_check(k, one, one, 0, &a, 0, 0, &cr));
    AKT_EQ_INT(cr.passed, 1);
    AKT_EQ_INT(cr.mismatches, 0);
    AKT_CHECK(y[10] == 110.0f); /* applied once on the device buffer */
    /* the inputs are unchanged */
    AKT_CHECK(x[10] == 10.0f);
    ak_kernel_release(k);
    AKT_OK(ak_free(ctx, x));
    AKT_OK(ak_free(ctx, y));
    ak_context_destroy(ctx);
}

void akt_suite_context(void) {
    AKT_RUN(cpu_context_from_env);
    AKT_RUN(config_strings_are_copied);
    AKT_RUN(forced_hip_fails_without_device);
    AKT_RUN(forced_cuda_fails_without_device);
    AKT_RUN(auto_backend_reports);
    AKT_RUN(cpu_device_info);
    AKT_RUN(invalid_config_no_context);
    AKT_RUN(runtime_allocator_used);
    AKT_RUN(null_arguments_everywhere);
    AKT_RUN(streams_named);
    AKT_RUN(events_elapsed);
    AKT_RUN(foreign_stream_refused);
    AKT_RUN(memcpy_kinds_cpu);
    AKT_RUN(cpu_kernel_launch);
    AKT_RUN(check_helper);
    AKT_RUN(check_inout_snapshot);
}
