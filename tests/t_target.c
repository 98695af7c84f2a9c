/* t_target.c - issue 8 / issue 10: target IDs and the compiler's target guard.
 * A malformed target ID (gfx90a:foo) never reaches hipRTC/comgr (they abort
 * on it); config.arch / AMDKIT_ARCH take target IDs and family names; the
 * guard tells an unknown target from one that needs a newer ROCm; a kernel
 * name that is not in the code object is an error. Uses the real compilers. */
#define _GNU_SOURCE 1 /* setenv, dladdr */
#include "ak_test.h"
#include <stdlib.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

static const char* const tgt_src =
    "extern \"C\" __global__ void ak_t_one(float* x) { x[threadIdx.x] = 1.0f; }\n"
    "extern \"C\" __global__ void ak_t_two(float* x) { x[threadIdx.x] = 2.0f; }\n";

/* hipRTC/comgr abort on these: every one must come back as an error */
static void malformed_target_ids_never_reach_the_compiler(void) {
    static const char* const bad[] = {
        "gfx90a:foo", "gfx90a:xnack", "gfx90a:xnack-:sramecc+", "gfx90a:xnack+:xnack+", "gfx1100:xnack+",
        "gfx1201:sramecc+", "gfx90a:", "gfx90a::xnack-", "gfx942:sramecc+:xnack-:foo", "sm_90:xnack-", "gfx90a:Xnack-"
    };
    ak_context* ctx = akt_cpu_context("target_bad");
    ak_code_object co;
    int i;
    if (!ctx) return;
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        memset(&co, 0x5A, sizeof co);
        AKT_ERR_ITEM(ak_compile_offline(ctx, bad[i], tgt_src, "ak_t_one", NULL, &co), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_TARGET_FEATURE);
        AKT_CHECK(co.data == NULL && co.size == 0);
        AKT_ERR_ITEM(ak_compile_target_check(ctx, bad[i]), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_TARGET_FEATURE);
    }
    AKT_ERR_ITEM(ak_compile_target_check(ctx, "gfx90a:foo"), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_TARGET_FEATURE);
    AKT_CONTAINS(ak_last_error(), "foo");
    AKT_ERR_ITEM(ak_compile_target_check(ctx, "GFX90A:xnack-"), AK_ERROR_UNSUPPORTED_TARGET, AK_ERRITEM_UNKNOWN_TARGET); /* not gfx/sm_: neither compiler */
    AKT_ERR_ITEM(ak_compile_target_check(NULL, "gfx90a"), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    /* a legal target ID with features compiles (ROCm 5.2 knows gfx90a) */
    AKT_OK(ak_compile_offline(ctx, "gfx90a:sramecc+:xnack-", tgt_src, "ak_t_two", NULL, &co));
    AKT_CHECK(co.size > 0 && !strcmp(co.target, "gfx90a:sramecc+:xnack-"));
    ak_code_object_free(&co);
    ak_context_destroy(ctx);
}

/* the guard comes from the loaded comgr: unknown vs needs-a-newer-ROCm */
static void guard_from_comgr(void) {
    ak_context* ctx = akt_cpu_context("target_guard");
    ak_result r;
    if (!ctx) return;
    AKT_OK(ak_compile_target_check(ctx, "gfx90a"));
    AKT_OK(ak_compile_target_check(ctx, "gfx1030"));
    AKT_OK(ak_compile_target_check(ctx, "gfx1031")); /* a consumer row this comgr lists */
    AKT_ERR_ITEM(ak_compile_target_check(ctx, "gfx9999"), AK_ERROR_UNSUPPORTED_TARGET, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_CONTAINS(ak_last_error(), "unknown AMD target 'gfx9999'");
    AKT_CHECKF(strstr(ak_last_error(), "newer ROCm") == NULL, "gfx9999 reported as needing a newer ROCm: %s", ak_last_error());
    AKT_CONTAINS(ak_last_error(), "gfx90a"); /* what this compiler builds */
    r = ak_compile_target_check(ctx, "gfx1100");
    if (r == AK_OK) {
        akt_skip("this hipRTC builds gfx1100 (ROCm 6+): the newer-ROCm message is checked in the ROCm 6.4 chroot only for gfx9999");
    } else {
        AKT_EQ_INT(r, AK_ERROR_UNSUPPORTED_TARGET);
        AKT_CONTAINS(ak_last_error(), "newer ROCm");
        AKT_CONTAINS(ak_last_error(), "RDNA3");
    }
    /* the version is the library's, not hiprtcVersion's 9.0 */
    AKT_ERR_ITEM(ak_compile_target_check(ctx, "gfx9999"), AK_ERROR_UNSUPPORTED_TARGET, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_CHECKF(strstr(ak_last_error(), "hipRTC 9.0") == NULL, "hipRTC version misreported: %s", ak_last_error());
    AKT_CHECK(strstr(ak_last_error(), "hipRTC 5.") || strstr(ak_last_error(), "hipRTC 6.") || strstr(ak_last_error(), "hipRTC 7."));
    ak_context_destroy(ctx);
}

/* a kernel name that is not in the code object: an error on both compilers */
static void kernel_name_must_be_in_code_object(void) {
    static const char* const targets[] = { "gfx90a", "sm_80" };
    ak_context* ctx = akt_cpu_context("target_kname");
    ak_code_object co;
    int i;
    if (!ctx) return;
    for (i = 0; i < 2; i++) {
        AKT_ERR_ITEM(ak_compile_offline(ctx, targets[i], tgt_src, "ak_t_three", NULL, &co), AK_ERROR_NOT_FOUND, AK_ERRITEM_KERNEL_NOT_FOUND);
        AKT_CONTAINS(ak_last_error(), "ak_t_three");
        AKT_CONTAINS(ak_last_error(), "ak_t_one"); /* lists what is there */
        AKT_CHECK(co.data == NULL);
        /* a C++-mangled kernel is not found by its plain name either */
        AKT_ERR(ak_compile_offline(ctx, targets[i], "__global__ void ak_t_mangled(float* x) { x[0] = 0; }\n", "ak_t_mangled", NULL, &co),
                AK_ERROR_NOT_FOUND);
        AKT_OK(ak_compile_offline(ctx, targets[i], tgt_src, "ak_t_two", NULL, &co)); /* the same code object, a real name */
        ak_code_object_free(&co);
    }
    ak_context_destroy(ctx);
}

/* config.arch and AMDKIT_ARCH: target IDs validated, family names mapped */
static void config_arch_target_ids_and_families(void) {
    ak_config c = ak_config_default(), fixed;
    static const char* const bad[] = { "gfx90a:foo", "gfx90a:xnack-:sramecc+", "gfx1100:xnack-", "RDNA9", "gfx9999", "GFX90A:xnack-" };
    static const char* const fam[][2] = { { "CDNA3", "gfx942" }, { "rdna4", "gfx1200" }, { "RDNA3", "gfx1100" }, { "GFX90A", "gfx90a" } };
    int i;
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        c.arch = bad[i];
        AKT_ERR_ITEM(ak_config_validate(&c, NULL, &fixed), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    }
    c.arch = "gfx90a:foo";
    AKT_ERR_ITEM(ak_config_validate(&c, NULL, &fixed), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    AKT_CONTAINS(ak_last_error(), "foo");
    for (i = 0; i < 4; i++) {
        c.arch = fam[i][0];
        AKT_OK(ak_config_validate(&c, NULL, &fixed));
        AKT_EQ_STR(fixed.arch, fam[i][1]);
    }
    c.arch = "gfx90a:sramecc+:xnack-";
    AKT_OK(ak_config_validate(&c, NULL, &fixed));
    AKT_EQ_STR(fixed.arch, "gfx90a:sramecc+:xnack-");
    /* through the environment and a context: the bad one is a config error, no abort */
    {
        ak_context* ctx = NULL;
        ak_config e = ak_config_default();
        setenv("AMDKIT_ARCH", "gfx90a:foo", 1);
        e.backend = AK_BACKEND_CPU;
        AKT_OK(ak_config_apply_env(&e));
        AKT_ERR_ITEM(ak_context_create(&e, &ctx), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
        AKT_CHECK(ctx == NULL);
        setenv("AMDKIT_ARCH", "CDNA2", 1);
        e = ak_config_default();
        e.backend = AK_BACKEND_CPU;
        AKT_OK(ak_config_apply_env(&e));
        if (ak_context_create(&e, &ctx) == AK_OK) {
            AKT_EQ_STR(ak_context_config(ctx)->arch, "gfx90a");
            ak_context_destroy(ctx);
        } else AKT_CHECKF(0, "AMDKIT_ARCH=CDNA2: %s", ak_last_error());
        unsetenv("AMDKIT_ARCH");
    }
}

/* the ROCm search order: ROCM_PATH, HIP_PATH, /opt/rocm, /opt/rocm-*, loader path; the report says which */
static const char* hip_reason(void) {
    static ak_backend_report r[3];
    ak_probe_backends(r);
    return r[0].reason;
}
static void rocm_search_order(void) {
    char a[600], b[600], lib[700], real[700];
    const char* rp;
    const char* const names[] = { "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", NULL };
    int i;
    void* h = NULL;
    for (i = 0; names[i] && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) { akt_skip("no HIP runtime on the loader path to plant in fake ROCm trees"); return; }
    {
        Dl_info info;
        void* sym = dlsym(h, "hipInit");
        if (!sym || !dladdr(sym, &info) || !info.dli_fname) { akt_skip("cannot locate the HIP runtime file"); return; }
        snprintf(real, sizeof real, "%s", info.dli_fname);
    }
    rp = strrchr(real, '/');
    snprintf(a, sizeof a, "%s/rocm_a", akt_tmpdir());
    snprintf(b, sizeof b, "%s/rocm_b", akt_tmpdir());
    snprintf(lib, sizeof lib, "%s/lib", a); mkdir(a, 0755); mkdir(lib, 0755);
    snprintf(lib, sizeof lib, "%s/lib%s", a, rp); unlink(lib); AKT_CHECK(symlink(real, lib) == 0);
    snprintf(lib, sizeof lib, "%s/lib", b); mkdir(b, 0755); mkdir(lib, 0755);
    snprintf(lib, sizeof lib, "%s/lib%s", b, rp); unlink(lib); AKT_CHECK(symlink(real, lib) == 0);
    setenv("ROCM_PATH", a, 1);
    setenv("HIP_PATH", b, 1);
    AKT_CONTAINS(hip_reason(), "found via ROCM_PATH=");
    AKT_CONTAINS(hip_reason(), "rocm_a");
    unsetenv("ROCM_PATH");
    AKT_CONTAINS(hip_reason(), "found via HIP_PATH=");
    AKT_CONTAINS(hip_reason(), "rocm_b");
    setenv("ROCM_PATH", akt_tmpdir(), 1); /* no lib/ with the runtime there: on to HIP_PATH */
    AKT_CONTAINS(hip_reason(), "found via HIP_PATH=");
    unsetenv("HIP_PATH");
    unsetenv("ROCM_PATH");
    AKT_CONTAINS(hip_reason(), "found via");
}

void akt_suite_target(void) {
    AKT_RUN(rocm_search_order);
    AKT_RUN(malformed_target_ids_never_reach_the_compiler);
    AKT_RUN(guard_from_comgr);
    AKT_RUN(kernel_name_must_be_in_code_object);
    AKT_RUN(config_arch_target_ids_and_families);
}
