/* t_cache_api.c - the public compile-cache API (ak_cache_stats_get,
 * ak_cache_purge, ak_cache_dir) on cpu-backend contexts. The cache's
 * internals are tested in ti_cache.c. */
#include "ak_test.h"

static void test_cache_api_stats(void) {
    ak_context* ctx = akt_cpu_context("cache_api");
    ak_cache_stats s;
    char dir[512];
    if (!ctx) return;
    memset(&s, 0x5a, sizeof s);
    AKT_OK(ak_cache_stats_get(ctx, &s));
    AKT_EQ_INT(s.capacity, ak_context_config(ctx)->cache_capacity);
    AKT_EQ_INT(s.compilations, 0);
    AKT_EQ_INT(s.memory_hits + s.disk_hits + s.misses, 0);
    AKT_EQ_INT(s.memory_entries, 0);
    AKT_NEAR(s.hit_rate, 0.0, 0.0);
    AKT_EQ_INT(s.disk_enabled, 1);
    AKT_CONTAINS(s.dir, "cache_api");
    AKT_OK(ak_cache_dir(ak_context_config(ctx), dir, sizeof dir));
    AKT_EQ_STR(dir, s.dir);
    AKT_OK(ak_cache_purge(ctx));
    AKT_OK(ak_cache_purge(ctx)); /* twice is fine */
    ak_context_destroy(ctx);
}

static void test_cache_api_bad_input(void) {
    ak_context* ctx = akt_cpu_context("cache_api_bad");
    ak_cache_stats s;
    char buf[8];
    ak_config cfg = ak_config_default();
    AKT_ERR_ITEM(ak_cache_stats_get(NULL, &s), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cache_stats_get(ctx, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cache_purge(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_cache_dir(&cfg, NULL, 100), AK_ERROR_INVALID_ARGUMENT);
    cfg.cache_dir = "/a/path/much/longer/than/eight/bytes";
    AKT_ERR(ak_cache_dir(&cfg, buf, sizeof buf), AK_ERROR_INVALID_ARGUMENT);
    AKT_EQ_STR(buf, "");
    if (ctx) ak_context_destroy(ctx);
}

static void test_cache_api_disabled(void) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    ak_cache_stats s;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/cache_api_off", akt_tmpdir());
    cfg.backend = AK_BACKEND_CPU;
    cfg.log_level = AK_LOG_NONE;
    cfg.cache_enabled = 0;
    cfg.cache_dir = dir;
    AKT_OK(ak_context_create(&cfg, &ctx));
    if (!ctx) return;
    AKT_OK(ak_cache_stats_get(ctx, &s));
    AKT_EQ_INT(s.disk_enabled, 0);
    AKT_EQ_INT(s.memory_entries, 0);
    ak_context_destroy(ctx);
}

static int akt_cache_dir_warnings;
static void akt_cache_api_log(void* user, ak_log_level level, ak_log_item item, const char* msg) {
    (void)user; (void)msg;
    if (item == AK_LOGITEM_CACHE_DIR_UNUSABLE && level == AK_LOG_WARN) akt_cache_dir_warnings++;
}

/* A cache directory that cannot be made (its path is a regular file): the
 * context still works, memory-only, with one warning through the logger. */
static void test_cache_api_unusable_dir(void) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    ak_cache_stats s;
    char file[600];
    FILE* fp;
    snprintf(file, sizeof file, "%s/cache_api_file", akt_tmpdir());
    fp = fopen(file, "w");
    AKT_CHECK(fp != NULL);
    if (fp) { fputs("not a folder", fp); fclose(fp); }
    cfg.backend = AK_BACKEND_CPU;
    cfg.log_level = AK_LOG_WARN;
    cfg.logger = akt_cache_api_log;
    cfg.cache_dir = file;
    akt_cache_dir_warnings = 0;
    AKT_OK(ak_context_create(&cfg, &ctx));
    if (!ctx) return;
    AKT_EQ_INT(akt_cache_dir_warnings, 1);
    AKT_OK(ak_cache_stats_get(ctx, &s));
    AKT_EQ_INT(s.disk_enabled, 0);
    AKT_EQ_STR(s.dir, file);
    AKT_OK(ak_cache_purge(ctx)); /* nothing to purge, no error */
    ak_context_destroy(ctx);
}

void akt_suite_cache_api(void) {
    AKT_RUN(test_cache_api_stats);
    AKT_RUN(test_cache_api_bad_input);
    AKT_RUN(test_cache_api_disabled);
    AKT_RUN(test_cache_api_unusable_dir);
}
