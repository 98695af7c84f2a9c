/* Every embedded kernel family compiled with the REAL compilers for the
 * targets amdkit checks without hardware: hipRTC (Debian's ROCm) for gfx906,
 * gfx908, gfx90a, gfx1030 and NVRTC (CUDA toolkit) for sm_80, sm_90, and sm_90a
 * for the families with matrix-core code (AK_MMA_SYNC / AK_WGMMA: the prelude's
 * wgmma helpers are only there on sm_90a, which the GEMM ops ask for; in full,
 * sm_90a only for the families with kernels behind #if defined(AK_WGMMA)). Each
 * code object must be an ELF that names every kernel of the family. gfx940
 * goes through clang-15 in tests/check_gfx940.sh (ROCm 5.2's hipRTC would
 * crash on it; this suite also checks amdkit refuses it cleanly).
 * `make test` compiles a representative matrix (each family once, the targets
 * taken in turn so that every target and both compilers are used, the
 * matrix-core families for an MFMA and a wgmma target: about a minute);
 * AKT_FULL=1 (`make check`) compiles every family for every target.
 * AKT_COMPILE_COVERED=T1,T2 leaves the cells of those targets to the steps
 * that compile every family for them with the ops' own options and check the
 * code objects (make test: gfx90a, the ROCm 5.2 launch-plan step; make check:
 * gfx90a and gfx1030 there, gfx906 and gfx908 in the ROCm 6.4 step).
 * AKT_COMPILE_FAMILIES=F1,F2 compiles only those families, each for every
 * target (the sanitizer run: the compilers are not what it checks, and under
 * ASan's allocator the large families take minutes each). */
#include "ak_test.h"
#include <stdlib.h>
#include <string.h>

static const char* const targets[] = { "gfx906", "gfx908", "gfx90a", "gfx1030", "sm_80", "sm_90", "sm_90a" };
#define SM90A_ONLY_MMA 6   /* targets[6] only for sources that use the matrix-core macros */

/* 1 if `name` occurs as a NUL-terminated string in the blob (symbol table). */
static int blob_has_symbol(const unsigned char* b, size_t n, const char* name) {
    size_t k = strlen(name), i;
    for (i = 0; i + k < n; i++)
        if (b[i + k] == 0 && !memcmp(b + i, name, k) && (i == 0 || b[i - 1] == 0 || b[i - 1] == '.' || b[i - 1] == '_' || b[i - 1] == ' '))
            return 1;
    return 0;
}

static void every_family_every_target(void) {
    ak_context* ctx = akt_cpu_context("compile_kernels");
    int i, t, families = ak_embedded_count(), compiled = 0;
    int plain_seen = 0, mma_seen = 0, wg_any = 0;
    unsigned targets_used = 0;
    const char* full_env = getenv("AKT_FULL");
    const char* covered = getenv("AKT_COMPILE_COVERED");
    const char* only = getenv("AKT_COMPILE_FAMILIES");
    int full = (full_env && full_env[0] == '1') || (only && *only), left = 0, skipped = 0;
    AKT_CHECK(ctx != NULL);
    AKT_CHECK(families >= 4);
    if (!ctx) return;
    for (i = 0; i < families; i++) {
        const char *family = NULL, *source = NULL, *names = NULL;
        char first[256];
        int mma, wg, pick;
        AKT_OK(ak_embedded_at(i, &family, &source, &names));
        if (!family || !source || !names) continue;
        if (only && *only && !akt_list_has(only, family)) { skipped++; continue; }
        sscanf(names, "%255s", first);
        mma = strstr(source, "AK_MMA_SYNC") || strstr(source, "AK_WGMMA");
        /* sm_90a adds code only where a family has kernels behind #if defined(AK_WGMMA); for the others (a helper
         * that is the prelude's on sm_90a, mma.sync alone) it would compile what sm_90 compiles */
        wg = strstr(source, "#if defined(AK_WGMMA)") != NULL;
        wg_any |= wg;
        /* the representative matrix: plain families take the targets in turn, the matrix-core ones gfx90a (MFMA)
         * and sm_90a (wgmma) in turn */
        pick = mma ? (mma_seen++ % 2 ? SM90A_ONLY_MMA : 2) : plain_seen++ % SM90A_ONLY_MMA;
        for (t = 0; t < (int)(sizeof targets / sizeof targets[0]); t++) {
            ak_compile_options o;
            ak_code_object co;
            ak_result r;
            const char* p;
            if (t == SM90A_ONLY_MMA && !mma) continue;
            if (!full && t != pick) continue;
            if (full && t == SM90A_ONLY_MMA && !wg) continue;
            targets_used |= 1u << t;
            if (covered && akt_list_has(covered, targets[t])) {
                printf("    %-12s %-8s (compiled by another step: AKT_COMPILE_COVERED)\n", family, targets[t]);
                left++;
                continue;
            }
            compiled++;
            memset(&o, 0, sizeof o);
            o.opt_level = AK_OPT_AGGRESSIVE;
            o.source_name = family;
            o.no_cache = 1;
            r = ak_compile_offline(ctx, targets[t], source, first, &o, &co);
            AKT_CHECKF(r == AK_OK, "%s for %s: %s: %s\n%s", family, targets[t], ak_result_name(r), ak_last_error(), ak_last_error_info()->log);
            if (r != AK_OK) continue;
            AKT_CHECKF(co.size > 64 && !memcmp(co.data, "\177ELF", 4), "%s for %s: not an ELF code object", family, targets[t]);
            for (p = names; *p;) {
                char tok[256];
                size_t n = strcspn(p, " ");
                if (n && n < sizeof tok) {
                    memcpy(tok, p, n);
                    tok[n] = 0;
                    AKT_CHECKF(blob_has_symbol((const unsigned char*)co.data, co.size, tok),
                               "%s for %s: kernel %s missing from the code object", family, targets[t], tok);
                }
                p += n;
                while (*p == ' ') p++;
            }
            printf("    %-12s %-8s %7zu bytes %6.0f ms\n", family, targets[t], co.size, co.compile_ms);
            ak_code_object_free(&co);
        }
    }
    printf("    %d compiles (%s), %d left to other steps (AKT_COMPILE_COVERED)%s\n", compiled, full ? "every family x every target" : "each family once; AKT_FULL=1: every target", left,
           skipped ? " (AKT_COMPILE_FAMILIES: the other families skipped)" : "");
    if (only && *only) {   /* every family named must exist: a misspelt name would otherwise compile nothing */
        int named = 1;
        const char* c;
        for (c = only; *c; c++) named += *c == ',';
        AKT_CHECKF(families - skipped == named, "AKT_COMPILE_FAMILIES=%s: %d of its %d names are embedded families", only,
                   families - skipped, named);
    }
    AKT_CHECK(compiled + left >= families - skipped && compiled >= (families - skipped) / 2);
    /* every target used; sm_90a in full only where a family compiled has wgmma kernels */
    AKT_CHECKF(targets_used == ((1u << (sizeof targets / sizeof targets[0])) - 1) || (full && !wg_any && targets_used == (1u << SM90A_ONLY_MMA) - 1),
               "targets used: mask %#x", targets_used);
    ak_context_destroy(ctx);
}

static void crashing_targets_refused(void) {
    ak_context* ctx = akt_cpu_context("compile_kernels_refused");
    const char *family = NULL, *source = NULL, *names = NULL;
    static const char* const bad[] = { "gfx940", "gfx942", "gfx1100" };
    int t;
    if (!ctx) return;
    AKT_OK(ak_embedded_at(0, &family, &source, &names));
    for (t = 0; t < 3; t++) {
        ak_code_object co;
        AKT_ERR_ITEM(ak_compile_offline(ctx, bad[t], source, "x", NULL, &co), AK_ERROR_UNSUPPORTED_TARGET, AK_ERRITEM_UNKNOWN_TARGET);
        AKT_CONTAINS(ak_last_error(), bad[t]);
    }
    ak_context_destroy(ctx);
}

/* A family whose kernels start with AK_KONLY (prelude) compiles one kernel's body with -DAK_KSEL=<kernel>, as the
 * library asks for it (amdkit.h _ak_op_kernel_ex): the program still holds every kernel symbol of the family, one
 * with a body. The Hopper GEMM's 16-bit part for sm_90a: about 2 MB whole, one kernel about 140 KB; the mma.sync /
 * MFMA GEMM family for gfx90a (hipRTC, where this machine has it): about 430 KB whole, one kernel about 70 KB. */
static const char* embedded_source(const char* name) {
    const char *family = NULL, *source = NULL, *names = NULL;
    int i;
    for (i = 0; i < ak_embedded_count(); i++) {
        if (ak_embedded_at(i, &family, &source, &names) == AK_OK && !strcmp(family, name)) return source;
    }
    return NULL;
}
static void one_kernel_program(ak_context* ctx, const char* family, const char* target, const char* only, const char* kname,
                               const char* other, size_t most) {
    const char* src = embedded_source(family);
    const char* opts[2];
    char ksel[96];
    ak_compile_options o;
    ak_code_object co;
    ak_result r;
    int n = 0;
    AKT_CHECKF(src && strstr(src, "AK_KONLY(") != NULL, "family %s keeps its kernels under AK_KONLY", family);
    if (!src) return;
    if (only) opts[n++] = only;
    snprintf(ksel, sizeof ksel, "-DAK_KSEL=%s", kname);
    opts[n++] = ksel;
    memset(&o, 0, sizeof o);
    o.options = opts;
    o.num_options = n;
    o.source_name = family;
    o.no_cache = 1;
    r = ak_compile_offline(ctx, target, src, kname, &o, &co);
    AKT_CHECKF(r == AK_OK, "%s for %s with %s: %s: %s", family, target, ksel, ak_result_name(r), ak_last_error());
    if (r != AK_OK) return;
    AKT_CHECK(blob_has_symbol((const unsigned char*)co.data, co.size, kname));
    AKT_CHECK(blob_has_symbol((const unsigned char*)co.data, co.size, other));
    AKT_CHECKF(co.size > 16 * 1024 && co.size < most, "%s %s, one kernel's code object: %zu bytes", family, target, co.size);
    printf("    %s %s, one kernel's body: %zu bytes %.0f ms\n", family, target, co.size, co.compile_ms);
    ak_code_object_free(&co);
}
static void one_kernel_programs(void) {
    ak_context* ctx = akt_cpu_context("compile_kernels_one");
    if (!ctx) return;
    one_kernel_program(ctx, "gemm_sm90", "sm_90a", "-DAK_G9_ONLY=16", "ak_gemm_sm90_n256_kk_f16", "ak_gemm_sm90_p128_mn_bf16",
                       512 * 1024);
    if (ak_compile_target_check(ctx, "gfx90a") == AK_OK)
        one_kernel_program(ctx, "gemm", "gfx90a", NULL, "ak_gemm_mma_l_bf16", "ak_gemm_skinny_f32", 200 * 1024);
    else
        printf("    gemm gfx90a: no compiler for it here (%s)\n", ak_last_error());
    ak_context_destroy(ctx);
}

void akt_suite_compile_kernels(void) {
    AKT_RUN(every_family_every_target);
    AKT_RUN(crashing_targets_refused);
    AKT_RUN(one_kernel_programs);
}
