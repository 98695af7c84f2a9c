/* Configuration through the public API: documented defaults, every field's
 * bad values (table-driven), every AMDKIT_* environment variable's malformed
 * and valid values, strict vs non-strict downgrades against architecture
 * rows, AUTO fields resolved from the row, the parse helpers and NULL
 * arguments. The environment is saved and restored around every test. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>
#include <unistd.h>

extern char** environ;

/* ---- environment save / restore ------------------------------------------ */

#define MAX_SAVED 64
static char* saved_env[MAX_SAVED];
static int n_saved;

/* Unset every AMDKIT_* variable, remembering them for env_restore. */
static void env_clear_amdkit(int remember) {
    for (;;) {
        char** e;
        char name[256];
        int found = 0;
        for (e = environ; e && *e; e++) {
            if (!strncmp(*e, "AMDKIT_", 7)) {
                size_t n = strcspn(*e, "=");
                if (n >= sizeof name) n = sizeof name - 1;
                memcpy(name, *e, n);
                name[n] = 0;
                if (remember && n_saved < MAX_SAVED) {
                    size_t len = strlen(*e);
                    saved_env[n_saved] = (char*)malloc(len + 1);
                    if (saved_env[n_saved]) memcpy(saved_env[n_saved++], *e, len + 1);
                }
                found = 1;
                break;
            }
        }
        if (!found) return;
        unsetenv(name);
    }
}
static void env_save(void) { n_saved = 0; env_clear_amdkit(1); }
static void env_restore(void) {
    int i;
    env_clear_amdkit(0);
    for (i = 0; i < n_saved; i++) {
        char* eq = strchr(saved_env[i], '=');
        if (eq) { *eq = 0; setenv(saved_env[i], eq + 1, 1); }
        free(saved_env[i]);
    }
    n_saved = 0;
}

/* A config with every field away from its default (to see "untouched"). */
static ak_config sentinel_config(void) {
    ak_config c = ak_config_default();
    c.backend = AK_BACKEND_HIP;
    c.arch = "gfx908";
    c.device = 2;
    c.opt_level = AK_OPT_CONSERVATIVE;
    c.matrix_cores = AK_OFF;
    c.mixed_precision = AK_ON;
    c.precision = AK_F16;
    c.allowed_precisions = AK_DTYPE_BIT(AK_F16) | AK_DTYPE_BIT(AK_F32);
    c.operator_fusion = 0;
    c.pool_enabled = 0;
    c.pool_size = 4ll << 20;
    c.max_memory_fraction = 0.25;
    c.oom_protection = 0;
    c.cache_enabled = 0;
    c.cache_capacity = 3;
    c.disk_cache = 0;
    c.cache_dir = "/nonexistent/sentinel";
    c.cache_max_bytes = 777;
    c.profiling = 1;
    c.strict = 1;
    c.log_level = AK_LOG_DEBUG;
    return c;
}

/* ---- defaults --------------------------------------------------------------- */

static void config_defaults(void) {
    ak_config c = ak_config_default(), fixed;
    AKT_EQ_INT(c.backend, AK_BACKEND_AUTO);
    AKT_CHECK(c.arch == NULL);
    AKT_EQ_INT(c.device, 0);
    AKT_EQ_INT(c.opt_level, AK_OPT_AUTO);
    AKT_EQ_INT(c.matrix_cores, AK_AUTO);
    AKT_EQ_INT(c.mixed_precision, AK_AUTO);
    AKT_EQ_INT(c.precision, -1);
    AKT_EQ_INT(c.allowed_precisions, 0);
    AKT_EQ_INT(c.operator_fusion, 1);
    AKT_EQ_INT(c.pool_enabled, 1);
    AKT_EQ_INT(c.pool_size, 0);
    AKT_NEAR(c.max_memory_fraction, 0.9, 0);
    AKT_EQ_INT(c.oom_protection, 1);
    AKT_EQ_INT(c.cache_enabled, 1);
    AKT_EQ_INT(c.cache_capacity, 100);
    AKT_EQ_INT(c.disk_cache, 1);
    AKT_CHECK(c.cache_dir == NULL);
    AKT_EQ_INT(c.cache_max_bytes, 256ll << 20);
    AKT_EQ_INT(c.profiling, 0);
    AKT_EQ_INT(c.strict, 0);
    AKT_EQ_INT(c.log_level, AK_LOG_WARN);
    AKT_CHECK(c.logger == NULL && c.logger_user_data == NULL);
    AKT_CHECK(c.allocator.alloc == NULL && c.allocator.free == NULL && c.allocator.user_data == NULL);
    /* the defaults are valid, with and without an architecture; without one, AUTO stays AUTO */
    AKT_OK(ak_config_validate(&c, NULL, NULL));
    AKT_OK(ak_config_validate(&c, NULL, &fixed));
    AKT_EQ_INT(fixed.opt_level, AK_OPT_AUTO);
    AKT_EQ_INT(fixed.precision, -1);
    /* the sentinel used by the env tests is valid too (so a failure there is the env's) */
    c = sentinel_config();
    AKT_OK(ak_config_validate(&c, NULL, NULL));
}

/* ---- every field's bad values --------------------------------------------- */

static int dummy_alloc_calls;
static void* dummy_alloc(size_t n, void* ud) { (void)ud; dummy_alloc_calls++; return malloc(n); }
static void dummy_free(void* p, void* ud) { (void)ud; free(p); }

static char long_dir[600];

typedef struct { const char* what; const char* field; const char* value; } bad_case;

static void apply_bad(int i, ak_config* c) {
    switch (i) {
    case 0: c->backend = (ak_backend)7; break;
    case 1: c->backend = (ak_backend)-1; break;
    case 2: c->device = -1; break;
    case 3: c->opt_level = (ak_opt_level)5; break;
    case 4: c->opt_level = (ak_opt_level)-2; break;
    case 5: c->matrix_cores = (ak_tristate)3; break;
    case 6: c->mixed_precision = (ak_tristate)-4; break;
    case 7: c->precision = 99; break;
    case 8: c->precision = AK_I32; break;
    case 9: c->precision = -2; break;
    case 10: c->allowed_precisions = AK_DTYPE_BIT(AK_F32) | AK_DTYPE_BIT(AK_I32); break;
    case 11: c->precision = AK_BF16; c->allowed_precisions = AK_DTYPE_BIT(AK_F32) | AK_DTYPE_BIT(AK_F16); break;
    case 12: c->precision = AK_FP8_E4M3; break; /* fp8 is not in the default allowed set */
    case 13: c->operator_fusion = 2; break;
    case 14: c->pool_enabled = 2; break;
    case 15: c->pool_size = -1; break;
    case 16: c->max_memory_fraction = 1.5; break;
    case 17: c->max_memory_fraction = 0; break;
    case 18: c->max_memory_fraction = -0.1; break;
    case 19: c->max_memory_fraction = NAN; break;
    case 20: c->oom_protection = 3; break;
    case 21: c->cache_enabled = 2; break;
    case 22: c->cache_capacity = 0; break;
    case 23: c->cache_capacity = -5; break;
    case 24: c->disk_cache = 2; break;
    case 25: c->cache_max_bytes = -1; break;
    case 26: c->cache_dir = long_dir; break;
    case 27: c->profiling = 2; break;
    case 28: c->strict = 2; break;
    case 29: c->log_level = (ak_log_level)9; break;
    case 30: c->log_level = (ak_log_level)-1; break;
    case 31: c->allocator.alloc = dummy_alloc; break;
    case 32: c->allocator.free = dummy_free; break;
    case 33: c->arch = "gfx9999"; break;
    case 34: c->arch = "sm_91x"; break;
    case 35: c->max_memory_fraction = INFINITY; break;
    case 36: c->pool_size = 3ll << 20; break;   /* not a multiple of the 2 MiB segment */
    case 37: c->pool_size = 100; break;
    default: break;
    }
}
static const bad_case bad_cases[] = {
    { "backend 7", "backend", "7" },
    { "backend -1", "backend", "-1" },
    { "device -1", "device", "-1" },
    { "opt_level 5", "opt_level", "5" },
    { "opt_level -2", "opt_level", "-2" },
    { "matrix_cores 3", "matrix_cores", "3" },
    { "mixed_precision -4", "mixed_precision", "-4" },
    { "precision 99", "precision", "99" },
    { "precision i32", "precision", "i32" },
    { "precision -2", "precision", "-2" },
    { "allowed_precisions with i32", "allowed_precisions", "0x11" },
    { "precision outside allowed", "allowed_precisions", "bf16" },
    { "fp8 outside default allowed", "allowed_precisions", "fp8_e4m3" },
    { "operator_fusion 2", "operator_fusion", "2" },
    { "pool_enabled 2", "pool_enabled", "2" },
    { "pool_size -1", "pool_size", "-1" },
    { "max_memory_fraction 1.5", "max_memory_fraction", "1.5" },
    { "max_memory_fraction 0", "max_memory_fraction", "0" },
    { "max_memory_fraction -0.1", "max_memory_fraction", "-0.1" },
    { "max_memory_fraction NaN", "max_memory_fraction", "nan" },
    { "oom_protection 3", "oom_protection", "3" },
    { "cache_enabled 2", "cache_enabled", "2" },
    { "cache_capacity 0", "cache_capacity", "0" },
    { "cache_capacity -5", "cache_capacity", "-5" },
    { "disk_cache 2", "disk_cache", "2" },
    { "cache_max_bytes -1", "cache_max_bytes", "-1" },
    { "cache_dir too long", "cache_dir", "500" },
    { "profiling 2", "profiling", "2" },
    { "strict 2", "strict", "2" },
    { "log_level 9", "log_level", "9" },
    { "log_level -1", "log_level", "-1" },
    { "allocator alloc only", "allocator", "" },
    { "allocator free only", "allocator", "" },
    { "arch gfx9999", "arch", "gfx9999" },
    { "arch sm_91x", "arch", "sm_91x" },
    { "max_memory_fraction inf", "max_memory_fraction", "inf" },
    { "pool_size 3 MiB", "pool_size", "2 MiB" },
    { "pool_size 100", "pool_size", "100" },
};

static void config_bad_fields(void) {
    int i, n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
    char dir[600];
    memset(long_dir, 'd', 500);
    long_dir[0] = '/';
    long_dir[500] = 0;
    snprintf(dir, sizeof dir, "%s/config_bad", akt_tmpdir());
    for (i = 0; i < n; i++) {
        ak_config c = ak_config_default(), fixed, fixed_before;
        ak_context* ctx = (ak_context*)&fixed; /* not NULL: must become NULL */
        ak_result r;
        c.backend = AK_BACKEND_CPU;
        c.cache_dir = dir;
        c.log_level = AK_LOG_NONE;
        AKT_OK(ak_config_validate(&c, NULL, NULL)); /* the base is fine */
        apply_bad(i, &c);
        memset(&fixed, 0x33, sizeof fixed);
        memcpy(&fixed_before, &fixed, sizeof fixed);
        ak_clear_error();
        r = ak_config_validate(&c, NULL, &fixed);
        AKT_CHECKF(r == AK_ERROR_CONFIG, "%s: validate -> %s (%s)", bad_cases[i].what, ak_result_name(r), ak_last_error());
        AKT_CHECKF(strstr(ak_last_error(), bad_cases[i].field) != NULL, "%s: message '%s' does not name the field '%s'",
                   bad_cases[i].what, ak_last_error(), bad_cases[i].field);
        AKT_CHECKF(strstr(ak_last_error(), bad_cases[i].value) != NULL, "%s: message '%s' does not name the value '%s'",
                   bad_cases[i].what, ak_last_error(), bad_cases[i].value);
        AKT_CHECKF(memcmp(&fixed, &fixed_before, sizeof fixed) == 0, "%s: *fixed written on error", bad_cases[i].what);
        /* the same config gives no context */
        r = ak_context_create(&c, &ctx);
        AKT_CHECKF(r == AK_ERROR_CONFIG, "%s: ak_context_create -> %s (%s)", bad_cases[i].what, ak_result_name(r), ak_last_error());
        AKT_CHECKF(ctx == NULL, "%s: *out not NULL after a failed create", bad_cases[i].what);
        AKT_CHECKF(strstr(ak_last_error(), bad_cases[i].field) != NULL, "%s: create message '%s'", bad_cases[i].what, ak_last_error());
        if (ctx && ctx != (ak_context*)&fixed) ak_context_destroy(ctx);
    }
    /* both allocator hooks: fine */
    {
        ak_config c = ak_config_default();
        c.allocator.alloc = dummy_alloc;
        c.allocator.free = dummy_free;
        AKT_OK(ak_config_validate(&c, NULL, NULL));
        c.max_memory_fraction = 1.0; /* the upper bound is included */
        AKT_OK(ak_config_validate(&c, NULL, NULL));
        c.cache_dir = long_dir + 101; /* 399 characters */
        AKT_OK(ak_config_validate(&c, NULL, NULL));
        c.arch = "gfx90a:sramecc+:xnack-";
        AKT_OK(ak_config_validate(&c, NULL, NULL));
        c.arch = "auto";
        AKT_OK(ak_config_validate(&c, NULL, NULL));
    }
}

/* ---- environment: malformed values ------------------------------------------ */

typedef struct { const char* var; const char* value; } env_case;
static const env_case env_bad[] = {
    { "AMDKIT_BACKEND", "gpu" }, { "AMDKIT_BACKEND", "rocm" },
    { "AMDKIT_DEVICE", "abc" }, { "AMDKIT_DEVICE", "1x" }, { "AMDKIT_DEVICE", "99999999999" }, { "AMDKIT_DEVICE", "" },
    { "AMDKIT_DEVICE", "1.0" },
    { "AMDKIT_OPT_LEVEL", "fast" }, { "AMDKIT_OPT_LEVEL", "3" }, { "AMDKIT_OPT_LEVEL", "O2" },
    { "AMDKIT_MATRIX_CORES", "maybe" }, { "AMDKIT_MATRIX_CORES", "2" },
    { "AMDKIT_MIXED_PRECISION", "sometimes" },
    { "AMDKIT_PRECISION", "fp7" }, { "AMDKIT_PRECISION", "f32,f16" },
    { "AMDKIT_ALLOWED_PRECISIONS", "f32,,f16" }, { "AMDKIT_ALLOWED_PRECISIONS", ",f32" },
    { "AMDKIT_ALLOWED_PRECISIONS", "f32," }, { "AMDKIT_ALLOWED_PRECISIONS", "f32,f99" },
    { "AMDKIT_ALLOWED_PRECISIONS", "f32 f16" },
    { "AMDKIT_FUSION", "2" }, { "AMDKIT_POOL", "enable" },
    { "AMDKIT_POOL_SIZE", "12q" }, { "AMDKIT_POOL_SIZE", "99999999999g" }, { "AMDKIT_POOL_SIZE", "1.5g" }, { "AMDKIT_POOL_SIZE", "-99999999999g" },
    { "AMDKIT_POOL_SIZE", "k" }, { "AMDKIT_POOL_SIZE", "" },
    { "AMDKIT_MAX_MEMORY_FRACTION", "half" }, { "AMDKIT_MAX_MEMORY_FRACTION", "0.5x" }, { "AMDKIT_MAX_MEMORY_FRACTION", "" },
    { "AMDKIT_OOM_PROTECTION", "perhaps" },
    { "AMDKIT_CACHE", "yesplease" },
    { "AMDKIT_CACHE_CAPACITY", "" }, { "AMDKIT_CACHE_CAPACITY", "10.5" }, { "AMDKIT_CACHE_CAPACITY", "3000000000" },
    { "AMDKIT_DISK_CACHE", "2" },
    { "AMDKIT_CACHE_MAX_BYTES", "lots" }, { "AMDKIT_CACHE_MAX_BYTES", "1t" },
    { "AMDKIT_PROFILE", "verbose" },
    { "AMDKIT_STRICT", "very" },
    { "AMDKIT_LOG", "loud" }, { "AMDKIT_LOG", "5" },
};

static void env_malformed_values(void) {
    int i, n = (int)(sizeof env_bad / sizeof env_bad[0]);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/config_env_bad", akt_tmpdir());
    env_save();
    for (i = 0; i < n; i++) {
        ak_config c = sentinel_config(), before;
        ak_context* ctx = (ak_context*)&before;
        ak_result r;
        memcpy(&before, &c, sizeof c);
        env_clear_amdkit(0);
        /* valid variables too: they must not be applied either (and keep a
         * context that should not exist on the cpu backend, in the scratch dir) */
        if (strcmp(env_bad[i].var, "AMDKIT_CACHE_CAPACITY")) setenv("AMDKIT_CACHE_CAPACITY", "42", 1);
        else setenv("AMDKIT_PROFILE", "off", 1);
        if (strcmp(env_bad[i].var, "AMDKIT_BACKEND")) setenv("AMDKIT_BACKEND", "cpu", 1);
        if (strcmp(env_bad[i].var, "AMDKIT_LOG")) setenv("AMDKIT_LOG", "none", 1);
        setenv("AMDKIT_CACHE_DIR", dir, 1);
        setenv(env_bad[i].var, env_bad[i].value, 1);
        ak_clear_error();
        r = ak_config_apply_env(&c);
        AKT_CHECKF(r == AK_ERROR_CONFIG, "%s='%s': apply_env -> %s", env_bad[i].var, env_bad[i].value, ak_result_name(r));
        AKT_CHECKF(strstr(ak_last_error(), env_bad[i].var) != NULL, "%s='%s': message '%s' does not name the variable",
                   env_bad[i].var, env_bad[i].value, ak_last_error());
        {
            char quoted[64];
            snprintf(quoted, sizeof quoted, "'%s'", env_bad[i].value);
            AKT_CHECKF(strstr(ak_last_error(), quoted) != NULL, "%s='%s': message '%s' does not name the value",
                       env_bad[i].var, env_bad[i].value, ak_last_error());
        }
        AKT_CHECKF(memcmp(&c, &before, sizeof c) == 0, "%s='%s': config changed", env_bad[i].var, env_bad[i].value);
        /* ak_context_create(NULL) applies the environment: same error, no context */
        r = ak_context_create(NULL, &ctx);
        AKT_CHECKF(r == AK_ERROR_CONFIG, "%s='%s': create(NULL) -> %s", env_bad[i].var, env_bad[i].value, ak_result_name(r));
        AKT_CHECK(ctx == NULL);
        if (ctx && ctx != (ak_context*)&before) ak_context_destroy(ctx);
    }
    env_restore();
}

/* Values that parse but are invalid: validation (and context creation) reject them. */
static void env_parsed_but_invalid(void) {
    static const env_case cases[] = {
        { "AMDKIT_ALLOWED_PRECISIONS", "f32,i32" },
        { "AMDKIT_ALLOWED_PRECISIONS", "u8" },
        { "AMDKIT_MAX_MEMORY_FRACTION", "1.5" },
        { "AMDKIT_MAX_MEMORY_FRACTION", "0" },
        { "AMDKIT_CACHE_CAPACITY", "0" },
        { "AMDKIT_DEVICE", "-1" },
        { "AMDKIT_POOL_SIZE", "-5k" },
        { "AMDKIT_ARCH", "gfx9999" },
        { "AMDKIT_PRECISION", "i64" },
        { "AMDKIT_POOL_SIZE", "3m" },      /* not a multiple of the pool's 2 MiB segment */
        { "AMDKIT_POOL_SIZE", "12345" },
        { "AMDKIT_ARCH", "gfx90a:foo" },
        { "AMDKIT_ARCH", "gfx90a:XNACK-" },
    };
    /* a value from the environment is named by its variable, not by the config field */
    static const char* fields[] = { "AMDKIT_ALLOWED_PRECISIONS='f32,i32'", "AMDKIT_ALLOWED_PRECISIONS='u8'",
                                    "AMDKIT_MAX_MEMORY_FRACTION='1.5'", "AMDKIT_MAX_MEMORY_FRACTION='0'",
                                    "AMDKIT_CACHE_CAPACITY='0'", "AMDKIT_DEVICE='-1'", "AMDKIT_POOL_SIZE='-5k'",
                                    "AMDKIT_ARCH='gfx9999' is neither a target", "AMDKIT_PRECISION='i64'", "AMDKIT_POOL_SIZE='3m'",
                                    "AMDKIT_POOL_SIZE='12345'", "AMDKIT_ARCH='gfx90a:foo': ", "AMDKIT_ARCH='gfx90a:XNACK-'" };
    int i;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/config_env", akt_tmpdir());
    env_save();
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        ak_config c = ak_config_default();
        ak_context* ctx = NULL;
        ak_result r;
        env_clear_amdkit(0);
        setenv("AMDKIT_BACKEND", "cpu", 1);
        setenv("AMDKIT_CACHE_DIR", dir, 1);
        setenv("AMDKIT_LOG", "none", 1);
        setenv(cases[i].var, cases[i].value, 1);
        r = ak_config_apply_env(&c);
        if (r == AK_OK) r = ak_config_validate(&c, NULL, NULL);
        AKT_CHECKF(r == AK_ERROR_CONFIG, "%s='%s': apply+validate -> %s", cases[i].var, cases[i].value, ak_result_name(r));
        AKT_CHECKF(strstr(ak_last_error(), fields[i]) != NULL, "%s='%s': message '%s'", cases[i].var, cases[i].value, ak_last_error());
        r = ak_context_create(NULL, &ctx);
        AKT_CHECKF(r == AK_ERROR_CONFIG, "%s='%s': create(NULL) -> %s", cases[i].var, cases[i].value, ak_result_name(r));
        AKT_CHECK(ctx == NULL);
        ak_context_destroy(ctx);
    }
    /* a cache directory too long for the context's buffer */
    {
        char longdir[520];
        ak_config c = ak_config_default();
        ak_context* ctx = NULL;
        memset(longdir, 'd', sizeof longdir - 1);
        longdir[0] = '/';
        longdir[sizeof longdir - 1] = 0;
        env_clear_amdkit(0);
        setenv("AMDKIT_BACKEND", "cpu", 1);
        setenv("AMDKIT_LOG", "none", 1);
        setenv("AMDKIT_CACHE_DIR", longdir, 1);
        AKT_ERR_ITEM(ak_config_apply_env(&c), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
        AKT_CONTAINS(ak_last_error(), "AMDKIT_CACHE_DIR");
        AKT_CONTAINS(ak_last_error(), "519 characters");
        AKT_ERR_ITEM(ak_context_create(NULL, &ctx), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
        AKT_CHECK(ctx == NULL);
    }
    env_restore();
}

/* ---- environment: valid values --------------------------------------------- */

static ak_config env_apply_one(const char* var, const char* value) {
    ak_config c = ak_config_default();
    env_clear_amdkit(0);
    setenv(var, value, 1);
    AKT_CHECKF(ak_config_apply_env(&c) == AK_OK, "%s='%s': %s", var, value, ak_last_error());
    return c;
}

/* Values at the edge of the range: the error's suggestion is computed without
 * overflow (UBSan), and the collectives' timeout parses. */
static void env_extreme_values(void) {
    ak_config c = ak_config_default();
    env_save();
    env_clear_amdkit(0);
    setenv("AMDKIT_POOL_SIZE", "9223372036854775807", 1);
    AKT_ERR(ak_config_apply_env(&c), AK_ERROR_CONFIG);
    AKT_CONTAINS(ak_last_error(), "AMDKIT_POOL_SIZE='9223372036854775807'");
    AKT_CONTAINS(ak_last_error(), "e.g. 9223372036852678656");       /* the multiple of 2 MiB below (none above) */
    AKT_CHECKF(!strstr(ak_last_error(), "e.g. -"), "%s", ak_last_error());
    setenv("AMDKIT_POOL_SIZE", "9223372036852678655", 1);
    AKT_ERR(ak_config_apply_env(&c), AK_ERROR_CONFIG);
    AKT_CONTAINS(ak_last_error(), "e.g. 9223372036852678656");       /* the next one up */
    env_clear_amdkit(0);
    AKT_EQ_INT(env_apply_one("AMDKIT_COMM_TIMEOUT_MS", "250").comm_timeout_ms, 250);
    setenv("AMDKIT_COMM_TIMEOUT_MS", "0", 1);
    AKT_ERR(ak_config_apply_env(&c), AK_ERROR_CONFIG);
    AKT_CONTAINS(ak_last_error(), "AMDKIT_COMM_TIMEOUT_MS='0'");
    c = ak_config_default();
    AKT_EQ_INT(c.comm_timeout_ms, 120000);
    c.comm_timeout_ms = -3;
    AKT_ERR(ak_config_validate(&c, NULL, NULL), AK_ERROR_CONFIG);
    AKT_CONTAINS(ak_last_error(), "config.comm_timeout_ms");
    env_restore();
}


static void env_valid_values(void) {
    ak_config c, d;
    env_save();
    /* nothing set: nothing changes */
    env_clear_amdkit(0);
    c = sentinel_config();
    memcpy(&d, &c, sizeof c);
    AKT_OK(ak_config_apply_env(&c));
    AKT_CHECK(memcmp(&c, &d, sizeof c) == 0);

    AKT_EQ_INT(env_apply_one("AMDKIT_BACKEND", "CPU").backend, AK_BACKEND_CPU);
    AKT_EQ_INT(env_apply_one("AMDKIT_BACKEND", "Hip").backend, AK_BACKEND_HIP);
    AKT_EQ_INT(env_apply_one("AMDKIT_BACKEND", "cuda").backend, AK_BACKEND_CUDA);
    AKT_EQ_INT(env_apply_one("AMDKIT_BACKEND", "auto").backend, AK_BACKEND_AUTO);
    c = env_apply_one("AMDKIT_ARCH", "gfx90a:xnack-");
    AKT_EQ_STR(c.arch, "gfx90a:xnack-");
    AKT_EQ_INT(env_apply_one("AMDKIT_DEVICE", "3").device, 3);
    AKT_EQ_INT(env_apply_one("AMDKIT_OPT_LEVEL", "Aggressive").opt_level, AK_OPT_AGGRESSIVE);
    AKT_EQ_INT(env_apply_one("AMDKIT_OPT_LEVEL", "conservative").opt_level, AK_OPT_CONSERVATIVE);
    AKT_EQ_INT(env_apply_one("AMDKIT_OPT_LEVEL", "balanced").opt_level, AK_OPT_BALANCED);
    AKT_EQ_INT(env_apply_one("AMDKIT_MATRIX_CORES", "ON").matrix_cores, AK_ON);
    AKT_EQ_INT(env_apply_one("AMDKIT_MATRIX_CORES", "off").matrix_cores, AK_OFF);
    AKT_EQ_INT(env_apply_one("AMDKIT_MATRIX_CORES", "Auto").matrix_cores, AK_AUTO);
    AKT_EQ_INT(env_apply_one("AMDKIT_MIXED_PRECISION", "true").mixed_precision, AK_ON);
    AKT_EQ_INT(env_apply_one("AMDKIT_MIXED_PRECISION", "0").mixed_precision, AK_OFF);
    AKT_EQ_INT(env_apply_one("AMDKIT_PRECISION", "BF16").precision, AK_BF16);
    AKT_EQ_INT(env_apply_one("AMDKIT_PRECISION", "half").precision, AK_F16);
    AKT_EQ_INT(env_apply_one("AMDKIT_PRECISION", "auto").precision, -1);
    AKT_EQ_INT(env_apply_one("AMDKIT_PRECISION", "fp8_e5m2").precision, AK_FP8_E5M2);
    AKT_EQ_INT(env_apply_one("AMDKIT_ALLOWED_PRECISIONS", "f32,F16").allowed_precisions, AK_DTYPE_BIT(AK_F32) | AK_DTYPE_BIT(AK_F16));
    AKT_EQ_INT(env_apply_one("AMDKIT_ALLOWED_PRECISIONS", "bfloat16").allowed_precisions, AK_DTYPE_BIT(AK_BF16));
    AKT_EQ_INT(env_apply_one("AMDKIT_FUSION", "off").operator_fusion, 0);
    AKT_EQ_INT(env_apply_one("AMDKIT_POOL", "no").pool_enabled, 0);
    AKT_EQ_INT(env_apply_one("AMDKIT_POOL_SIZE", "4194304").pool_size, 4ll << 20);
    AKT_EQ_INT(env_apply_one("AMDKIT_POOL_SIZE", "2048k").pool_size, 2ll << 20);
    AKT_EQ_INT(env_apply_one("AMDKIT_POOL_SIZE", "2M").pool_size, 2ll << 20);
    AKT_EQ_INT(env_apply_one("AMDKIT_POOL_SIZE", "3G").pool_size, 3ll << 30);
    AKT_EQ_INT(env_apply_one("AMDKIT_POOL_SIZE", "1gb").pool_size, 1ll << 30);
    AKT_EQ_INT(env_apply_one("AMDKIT_POOL_SIZE", "0").pool_size, 0);
    AKT_NEAR(env_apply_one("AMDKIT_MAX_MEMORY_FRACTION", "0.5").max_memory_fraction, 0.5, 0);
    AKT_NEAR(env_apply_one("AMDKIT_MAX_MEMORY_FRACTION", "1").max_memory_fraction, 1.0, 0);
    AKT_EQ_INT(env_apply_one("AMDKIT_OOM_PROTECTION", "0").oom_protection, 0);
    AKT_EQ_INT(env_apply_one("AMDKIT_CACHE", "False").cache_enabled, 0);
    AKT_EQ_INT(env_apply_one("AMDKIT_CACHE_CAPACITY", "7").cache_capacity, 7);
    AKT_EQ_INT(env_apply_one("AMDKIT_DISK_CACHE", "YES").disk_cache, 1);
    AKT_EQ_INT(env_apply_one("AMDKIT_DISK_CACHE", "off").disk_cache, 0);
    c = env_apply_one("AMDKIT_CACHE_DIR", "/some/where");
    AKT_EQ_STR(c.cache_dir, "/some/where");
    AKT_EQ_INT(env_apply_one("AMDKIT_CACHE_MAX_BYTES", "512m").cache_max_bytes, 512ll << 20);
    AKT_EQ_INT(env_apply_one("AMDKIT_PROFILE", "on").profiling, 1);
    AKT_EQ_INT(env_apply_one("AMDKIT_STRICT", "1").strict, 1);
    AKT_EQ_INT(env_apply_one("AMDKIT_LOG", "DEBUG").log_level, AK_LOG_DEBUG);
    AKT_EQ_INT(env_apply_one("AMDKIT_LOG", "none").log_level, AK_LOG_NONE);
    AKT_EQ_INT(env_apply_one("AMDKIT_LOG", "warning").log_level, AK_LOG_WARN);
    AKT_EQ_INT(env_apply_one("AMDKIT_LOG", "Error").log_level, AK_LOG_ERROR);
    /* several at once; the others keep their values */
    env_clear_amdkit(0);
    setenv("AMDKIT_BACKEND", "cpu", 1);
    setenv("AMDKIT_POOL_SIZE", "8m", 1);
    setenv("AMDKIT_LOG", "info", 1);
    c = sentinel_config();
    AKT_OK(ak_config_apply_env(&c));
    AKT_EQ_INT(c.backend, AK_BACKEND_CPU);
    AKT_EQ_INT(c.pool_size, 8ll << 20);
    AKT_EQ_INT(c.log_level, AK_LOG_INFO);
    AKT_EQ_INT(c.cache_capacity, 3);
    AKT_EQ_INT(c.device, 2);
    AKT_EQ_STR(c.arch, "gfx908");
    env_restore();
}

/* ---- strict vs non-strict against an architecture ------------------------- */

typedef struct { int warn, error, downgraded; char last[512]; } cap_log;
static void cap_fn(void* ud, ak_log_level level, ak_log_item item, const char* msg) {
    cap_log* c = (cap_log*)ud;
    if (level == AK_LOG_WARN) c->warn++;
    if (level == AK_LOG_ERROR) c->error++;
    if (item == AK_LOGITEM_CONFIG_DOWNGRADED) { c->downgraded++; snprintf(c->last, sizeof c->last, "%s", msg); }
}

static void strict_matrix_cores_rdna2(void) {
    const ak_arch_info* a = NULL;
    ak_config c = ak_config_default(), fixed;
    cap_log lg;
    AKT_OK(ak_arch_find("gfx1030", &a));
    if (!a) return;
    AKT_EQ_INT(a->matrix, AK_MATRIX_NONE); /* precondition of the test */
    memset(&lg, 0, sizeof lg);
    c.logger = cap_fn;
    c.logger_user_data = &lg;
    c.matrix_cores = AK_ON;
    c.strict = 1;
    AKT_ERR_ITEM(ak_config_validate(&c, a, &fixed), AK_ERROR_MATRIX_CORES, AK_ERRITEM_MATRIX_CORES);
    AKT_CONTAINS(ak_last_error(), "matrix_cores");
    AKT_CONTAINS(ak_last_error(), "gfx1030");
    AKT_EQ_INT(lg.downgraded, 0);
    /* named arch instead of a row: the same */
    c.arch = "gfx1030";
    AKT_ERR_ITEM(ak_config_validate(&c, NULL, NULL), AK_ERROR_MATRIX_CORES, AK_ERRITEM_MATRIX_CORES);
    AKT_CONTAINS(ak_last_error(), "matrix_cores");
    c.arch = NULL;
    /* non-strict: downgraded, one warning */
    c.strict = 0;
    AKT_OK(ak_config_validate(&c, a, &fixed));
    AKT_EQ_INT(fixed.matrix_cores, AK_OFF);
    AKT_EQ_INT(lg.downgraded, 1);
    AKT_EQ_INT(lg.warn, 1);
    AKT_CONTAINS(lg.last, "matrix");
    AKT_CONTAINS(lg.last, "gfx1030");
    /* the input is const: not modified */
    AKT_EQ_INT(c.matrix_cores, AK_ON);
    /* matrix cores off on RDNA2 is fine in strict mode, and on CDNA2 on is fine */
    c.strict = 1;
    c.matrix_cores = AK_OFF;
    AKT_OK(ak_config_validate(&c, a, &fixed));
    c.matrix_cores = AK_ON;
    AKT_OK(ak_arch_find("gfx90a", &a));
    AKT_OK(ak_config_validate(&c, a, &fixed));
    AKT_EQ_INT(fixed.matrix_cores, AK_ON);
}

static void strict_fp8_before_cdna3(void) {
    const ak_arch_info *a90 = NULL, *a942 = NULL;
    ak_config c = ak_config_default(), fixed;
    cap_log lg;
    AKT_OK(ak_arch_find("gfx90a", &a90));
    AKT_OK(ak_arch_find("gfx942", &a942));
    if (!a90 || !a942) return;
    AKT_EQ_INT(a90->fp8, 0);
    AKT_EQ_INT(a942->fp8, 1);
    memset(&lg, 0, sizeof lg);
    c.logger = cap_fn;
    c.logger_user_data = &lg;
    c.precision = AK_FP8_E4M3;
    c.allowed_precisions = AK_DTYPE_BIT(AK_F32) | AK_DTYPE_BIT(AK_F16) | AK_DTYPE_BIT(AK_FP8_E4M3);
    c.strict = 1;
    AKT_ERR_ITEM(ak_config_validate(&c, a90, &fixed), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    AKT_CONTAINS(ak_last_error(), "fp8");
    AKT_CONTAINS(ak_last_error(), "gfx90a");
    AKT_CONTAINS(ak_last_error(), "precision");
    /* gfx942 has fp8 in the FNUZ encoding: OCP e4m3 is an error in strict mode, its FNUZ twin is fine */
    AKT_ERR_ITEM(ak_config_validate(&c, a942, &fixed), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    AKT_CONTAINS(ak_last_error(), "fp8_e4m3_fnuz");
    c.precision = AK_FP8_E4M3_FNUZ;
    c.allowed_precisions |= AK_DTYPE_BIT(AK_FP8_E4M3_FNUZ);
    AKT_OK(ak_config_validate(&c, a942, &fixed));
    AKT_EQ_INT(fixed.precision, AK_FP8_E4M3_FNUZ);
    AKT_EQ_INT(lg.downgraded, 0);
    /* not strict: OCP e4m3 becomes the arch's FNUZ e4m3, with a warning */
    c.precision = AK_FP8_E4M3;
    c.strict = 0;
    AKT_OK(ak_config_validate(&c, a942, &fixed));
    AKT_EQ_INT(fixed.precision, AK_FP8_E4M3_FNUZ);
    AKT_EQ_INT(lg.downgraded, 1);
    lg.downgraded = 0;
    c.strict = 1;
    /* non-strict on gfx90a: downgraded to a precision the arch has, with a warning */
    c.strict = 0;
    AKT_OK(ak_config_validate(&c, a90, &fixed));
    AKT_CHECKF(fixed.precision == AK_F16 || fixed.precision == AK_F32, "downgraded to %d", fixed.precision);
    AKT_CHECK(fixed.allowed_precisions == 0 || (fixed.allowed_precisions & AK_DTYPE_BIT(fixed.precision)));
    AKT_EQ_INT(lg.downgraded, 1);
    AKT_CONTAINS(lg.last, "fp8");
    c.precision = AK_FP8_E5M2;
    c.allowed_precisions |= AK_DTYPE_BIT(AK_FP8_E5M2);
    c.strict = 1;
    AKT_ERR_ITEM(ak_config_validate(&c, a90, &fixed), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
}

/* Through ak_context_create on the cpu backend with a named arch. */
static void strict_through_context(void) {
    char dir[600];
    ak_config c = ak_config_default();
    ak_context* ctx = NULL;
    cap_log lg;
    snprintf(dir, sizeof dir, "%s/config_strict", akt_tmpdir());
    memset(&lg, 0, sizeof lg);
    c.backend = AK_BACKEND_CPU;
    c.cache_dir = dir;
    c.logger = cap_fn;
    c.logger_user_data = &lg;
    c.arch = "gfx1030";
    c.matrix_cores = AK_ON;
    c.strict = 1;
    AKT_ERR_ITEM(ak_context_create(&c, &ctx), AK_ERROR_MATRIX_CORES, AK_ERRITEM_MATRIX_CORES);
    AKT_CHECK(ctx == NULL);
    AKT_CONTAINS(ak_last_error(), "matrix_cores");
    c.strict = 0;
    AKT_OK(ak_context_create(&c, &ctx));
    AKT_CHECK(ctx != NULL);
    if (!ctx) return;
    AKT_EQ_INT(ak_context_config(ctx)->matrix_cores, AK_OFF);
    AKT_EQ_INT(ak_context_config(ctx)->precision, AK_F32);       /* gfx1030 recommendation */
    AKT_EQ_INT(ak_context_config(ctx)->opt_level, AK_OPT_CONSERVATIVE);
    AKT_EQ_INT(lg.downgraded, 1);                                  /* logged once, not per validation pass */
    AKT_EQ_INT(lg.error, 0);
    ak_context_destroy(ctx);
}

/* ---- AUTO fields from the architecture row --------------------------------- */

static void auto_fields_from_arch(void) {
    struct { const char* arch; int precision; ak_opt_level opt; int matrix; } rows[] = {
        { "gfx942", AK_BF16, AK_OPT_AGGRESSIVE, AK_ON },
        { "gfx940", AK_BF16, AK_OPT_AGGRESSIVE, AK_ON },
        { "gfx90a", AK_F16, AK_OPT_BALANCED, -2 },
        { "gfx1030", AK_F32, AK_OPT_CONSERVATIVE, AK_OFF },
    };
    int i;
    for (i = 0; i < 4; i++) {
        const ak_arch_info* a = NULL;
        ak_config c = ak_config_default(), fixed;
        AKT_OK(ak_arch_find(rows[i].arch, &a));
        if (!a) continue;
        c.log_level = AK_LOG_NONE;
        AKT_OK(ak_config_validate(&c, a, &fixed));
        AKT_CHECKF(fixed.precision == rows[i].precision, "%s: precision %s", rows[i].arch, ak_dtype_name((ak_dtype)fixed.precision));
        AKT_CHECKF(fixed.opt_level == rows[i].opt, "%s: opt %s", rows[i].arch, ak_opt_level_name(fixed.opt_level));
        if (rows[i].matrix != -2) AKT_CHECKF(fixed.matrix_cores == rows[i].matrix, "%s: matrix cores %d", rows[i].arch, fixed.matrix_cores);
        AKT_CHECK(fixed.matrix_cores != AK_AUTO);
        AKT_CHECK(fixed.mixed_precision == (fixed.precision != AK_F32 ? AK_ON : AK_OFF));
        /* explicit values win over the recommendation */
        c.opt_level = AK_OPT_CONSERVATIVE;
        c.precision = AK_F32;
        c.matrix_cores = AK_OFF;
        c.mixed_precision = AK_ON;
        AKT_OK(ak_config_validate(&c, a, &fixed));
        AKT_EQ_INT(fixed.opt_level, AK_OPT_CONSERVATIVE);
        AKT_EQ_INT(fixed.precision, AK_F32);
        AKT_EQ_INT(fixed.matrix_cores, AK_OFF);
        AKT_EQ_INT(fixed.mixed_precision, AK_ON);
    }
    /* recommended precision outside allowed_precisions: falls back to f32 */
    {
        const ak_arch_info* a = NULL;
        ak_config c = ak_config_default(), fixed;
        AKT_OK(ak_arch_find("gfx942", &a));
        if (!a) return;
        c.allowed_precisions = AK_DTYPE_BIT(AK_F32) | AK_DTYPE_BIT(AK_F16);
        AKT_OK(ak_config_validate(&c, a, &fixed));
        AKT_EQ_INT(fixed.precision, AK_F32);
    }
}

/* ---- parse helpers and NULL arguments --------------------------------------- */

static void parse_helpers(void) {
    static const struct { const char* s; ak_backend b; } good_b[] = {
        { "auto", AK_BACKEND_AUTO }, { "hip", AK_BACKEND_HIP }, { "cuda", AK_BACKEND_CUDA }, { "cpu", AK_BACKEND_CPU },
        { "HIP", AK_BACKEND_HIP }, { "Cuda", AK_BACKEND_CUDA }, { "AUTO", AK_BACKEND_AUTO },
    };
    static const char* bad_b[] = { "gpu", "", "rocm", "cpu ", " cpu", "hipp", "nvidia", "0" };
    static const struct { const char* s; ak_opt_level o; } good_o[] = {
        { "auto", AK_OPT_AUTO }, { "conservative", AK_OPT_CONSERVATIVE }, { "balanced", AK_OPT_BALANCED },
        { "aggressive", AK_OPT_AGGRESSIVE }, { "BALANCED", AK_OPT_BALANCED }, { "Conservative", AK_OPT_CONSERVATIVE },
    };
    static const char* bad_o[] = { "fast", "3", "0", "-1", "", "O3", "balance", "aggressive!" };
    int i;
    for (i = 0; i < (int)(sizeof good_b / sizeof good_b[0]); i++) {
        ak_backend b = (ak_backend)99;
        AKT_OK(ak_backend_parse(good_b[i].s, &b));
        AKT_EQ_INT(b, good_b[i].b);
    }
    for (i = 0; i < (int)(sizeof bad_b / sizeof bad_b[0]); i++) {
        ak_backend b = (ak_backend)99;
        AKT_ERR_ITEM(ak_backend_parse(bad_b[i], &b), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
        AKT_EQ_INT(b, 99);
        if (bad_b[i][0]) AKT_CONTAINS(ak_last_error(), bad_b[i]);
    }
    for (i = 0; i < (int)(sizeof good_o / sizeof good_o[0]); i++) {
        ak_opt_level o = (ak_opt_level)99;
        AKT_OK(ak_opt_level_parse(good_o[i].s, &o));
        AKT_EQ_INT(o, good_o[i].o);
    }
    for (i = 0; i < (int)(sizeof bad_o / sizeof bad_o[0]); i++) {
        ak_opt_level o = (ak_opt_level)99;
        AKT_ERR_ITEM(ak_opt_level_parse(bad_o[i], &o), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
        AKT_EQ_INT(o, 99);
        if (bad_o[i][0]) AKT_CONTAINS(ak_last_error(), bad_o[i]);
    }
    /* names round-trip */
    for (i = 0; i < (int)AK_BACKEND_COUNT; i++) {
        ak_backend b = (ak_backend)99;
        AKT_OK(ak_backend_parse(ak_backend_name((ak_backend)i), &b));
        AKT_EQ_INT(b, i);
    }
    for (i = 0; i <= 3; i++) {
        ak_opt_level o = (ak_opt_level)99;
        AKT_OK(ak_opt_level_parse(ak_opt_level_name((ak_opt_level)i), &o));
        AKT_EQ_INT(o, i);
    }
    AKT_EQ_STR(ak_backend_name((ak_backend)17), "?");
    AKT_EQ_STR(ak_opt_level_name((ak_opt_level)4), "?");
}

static void null_arguments(void) {
    ak_backend b;
    ak_opt_level o;
    ak_dtype t;
    ak_config c = ak_config_default();
    AKT_ERR(ak_backend_parse(NULL, &b), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_backend_parse("cpu", NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_opt_level_parse(NULL, &o), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_opt_level_parse("auto", NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_dtype_parse(NULL, &t), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_dtype_parse("f32", NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_config_apply_env(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_config_validate(NULL, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_config_validate(NULL, NULL, &c), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_context_create(&c, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    /* a NULL fixed is fine (validate only) */
    AKT_OK(ak_config_validate(&c, NULL, NULL));
}

/* ---- the field table: listing, values, compile options, relative dirs ---- */

static void field_table(void) {
    ak_config c = ak_config_default();
    char buf[128];
    int i, n = ak_config_field_count(), seen_pool = 0;
    AKT_CHECK(n >= 20);
    AKT_CHECK(ak_config_field_at(-1) == NULL);
    AKT_CHECK(ak_config_field_at(n) == NULL);
    for (i = 0; i < n; i++) {
        const ak_config_field* f = ak_config_field_at(i);
        AKT_CHECK(f && f->name && f->env && f->doc && f->doc[0]);
        AKT_CHECKF(f && !strncmp(f->env, "AMDKIT_", 7), "field %d env %s", i, f ? f->env : "?");
        AKT_OK(ak_config_field_value(&c, i, buf, sizeof buf));
        if (f && !strcmp(f->name, "pool_size")) { seen_pool = 1; AKT_EQ_STR(f->env, "AMDKIT_POOL_SIZE"); AKT_EQ_STR(buf, "0"); }
        if (f && !strcmp(f->name, "matrix_cores")) AKT_EQ_STR(buf, "auto");
        if (f && !strcmp(f->name, "backend")) AKT_EQ_STR(buf, "auto");
        if (f && !strcmp(f->name, "log_level")) AKT_EQ_STR(buf, "warn");
        if (f && !strcmp(f->name, "allowed_precisions")) AKT_EQ_STR(buf, "f32,f16,bf16");
        if (f && !strcmp(f->name, "cache_dir")) AKT_EQ_STR(buf, "(unset)");
    }
    AKT_CHECK(seen_pool);
    /* every field's value text is what its variable accepts: apply it back */
    env_save();
    env_clear_amdkit(0);
    c = sentinel_config();
    c.cache_dir = "/tmp/akt-field-table";
    for (i = 0; i < n; i++) {
        AKT_OK(ak_config_field_value(&c, i, buf, sizeof buf));
        setenv(ak_config_field_at(i)->env, buf, 1);
    }
    {
        ak_config d = ak_config_default();
        AKT_OK(ak_config_apply_env(&d));
        d.logger = c.logger; d.logger_user_data = c.logger_user_data; d.allocator = c.allocator;
        AKT_EQ_INT(d.backend, c.backend);
        AKT_EQ_STR(d.arch, c.arch);
        AKT_EQ_INT(d.opt_level, c.opt_level);
        AKT_EQ_INT(d.matrix_cores, c.matrix_cores);
        AKT_EQ_INT(d.precision, c.precision);
        AKT_EQ_INT(d.allowed_precisions, c.allowed_precisions);
        AKT_EQ_INT(d.pool_size, c.pool_size);
        AKT_NEAR(d.max_memory_fraction, c.max_memory_fraction, 0);
        AKT_EQ_INT(d.cache_capacity, c.cache_capacity);
        AKT_EQ_STR(d.cache_dir, c.cache_dir);
        AKT_EQ_INT(d.cache_max_bytes, c.cache_max_bytes);
        AKT_EQ_INT(d.strict, c.strict);
        AKT_EQ_INT(d.log_level, c.log_level);
    }
    env_restore();
    AKT_ERR_ITEM(ak_config_field_value(&c, n, buf, sizeof buf), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR(ak_config_field_value(NULL, 0, buf, sizeof buf), AK_ERROR_INVALID_ARGUMENT);
}

/* What each variable accepts (the README's table is generated from this). */
static void field_syntax(void) {
    int i, n = ak_config_field_count();
    char buf[256];
    for (i = 0; i < n; i++) {
        const char* name = ak_config_field_at(i)->name;
        AKT_OK(ak_config_field_syntax(i, buf, sizeof buf));
        AKT_CHECKF(buf[0] != 0, "field %s has no syntax text", name);
        if (!strcmp(name, "backend")) AKT_EQ_STR(buf, "auto, hip, cuda or cpu");
        if (!strcmp(name, "cache_capacity")) AKT_EQ_STR(buf, "integer >= 1");
        if (!strcmp(name, "log_level")) AKT_CONTAINS(buf, "debug");
        if (!strcmp(name, "pool_size")) AKT_CONTAINS(buf, "multiple of 2m");
        if (!strcmp(name, "cache_max_entry_bytes")) AKT_CONTAINS(buf, ">= 4096");
    }
    AKT_ERR_ITEM(ak_config_field_syntax(n, buf, sizeof buf), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR_ITEM(ak_config_field_syntax(-1, buf, sizeof buf), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    AKT_ERR(ak_config_field_syntax(0, NULL, 8), AK_ERROR_INVALID_ARGUMENT);
}

/* ak_compile_options.opt_level outside AUTO..AGGRESSIVE is an error on every
 * backend (it used to be accepted and compiled at the default level). */
static void compile_opt_level_range(void) {
    ak_context* ctx = akt_cpu_context("config_opt");
    ak_compile_options o;
    ak_kernel* k = NULL;
    ak_code_object co;
    if (!ctx) return;
    memset(&o, 0, sizeof o);
    o.opt_level = (ak_opt_level)42;
    AKT_ERR(ak_kernel_get(ctx, "extern \"C\" __global__ void f(float* x) { x[0] = 1; }", "f", &o, &k), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "opt_level is 42");
    AKT_CHECK(k == NULL);
    AKT_ERR(ak_compile_offline(ctx, "sm_80", "extern \"C\" __global__ void f(float* x) { x[0] = 1; }", "f", &o, &co),
            AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "opt_level is 42");
    o.opt_level = (ak_opt_level)-1;
    AKT_ERR(ak_kernel_get(ctx, "extern \"C\" __global__ void f(float* x) { x[0] = 1; }", "f", &o, &k), AK_ERROR_INVALID_ARGUMENT);
    o.opt_level = AK_OPT_AGGRESSIVE;
    AKT_OK(ak_kernel_get(ctx, "extern \"C\" __global__ void f(float* x) { x[0] = 1; }", "f", &o, &k));
    ak_kernel_release(k);
    ak_context_destroy(ctx);
}

/* A relative cache directory (config or AMDKIT_CACHE_DIR) is made absolute
 * against the current directory when the context is created. */
static void relative_cache_dir(void) {
    char cwd[1024], want[1200], buf[1200];
    ak_config c = ak_config_default();
    ak_context* ctx = NULL;
    ak_cache_stats st;
    AKT_CHECK(getcwd(cwd, sizeof cwd) != NULL);
    c.cache_dir = "build/tmp/akt-relative-cache/";
    snprintf(want, sizeof want, "%s/build/tmp/akt-relative-cache", cwd);
    AKT_OK(ak_cache_dir(&c, buf, sizeof buf));
    AKT_EQ_STR(buf, want);
    env_save();
    env_clear_amdkit(0);
    setenv("AMDKIT_CACHE_DIR", "build/tmp/akt-relative-env", 1);
    c = ak_config_default();
    snprintf(want, sizeof want, "%s/build/tmp/akt-relative-env", cwd);
    AKT_OK(ak_cache_dir(&c, buf, sizeof buf));
    AKT_EQ_STR(buf, want);
    AKT_OK(ak_config_apply_env(&c));
    c.backend = AK_BACKEND_CPU;
    c.log_level = AK_LOG_NONE;
    AKT_OK(ak_context_create(&c, &ctx));
    if (ctx) {
        AKT_OK(ak_cache_stats_get(ctx, &st));
        AKT_EQ_STR(st.dir, want);
        ak_context_destroy(ctx);
    }
    AKT_ERR(ak_cache_dir(&c, buf, 8), AK_ERROR_INVALID_ARGUMENT);
    env_restore();
}

void akt_suite_config(void) {
    AKT_RUN(field_table);
    AKT_RUN(compile_opt_level_range);
    AKT_RUN(relative_cache_dir);
    AKT_RUN(config_defaults);
    AKT_RUN(config_bad_fields);
    AKT_RUN(env_malformed_values);
    AKT_RUN(env_parsed_but_invalid);
    AKT_RUN(env_valid_values);
    AKT_RUN(env_extreme_values);
    AKT_RUN(strict_matrix_cores_rdna2);
    AKT_RUN(strict_fp8_before_cdna3);
    AKT_RUN(strict_through_context);
    AKT_RUN(auto_fields_from_arch);
    AKT_RUN(parse_helpers);
    AKT_RUN(field_syntax);
    AKT_RUN(null_arguments);
}
