/* t_arch.c - the architecture tables (issue 2): lookup rules, row
 * invariants and the facts the issue states. Public API only. */
#include "ak_test.h"

/* Every target issue 2 asks for. */
static const char* const akt_arch_required[] = {
    "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1102",
    "gfx1200", "gfx1201", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
    /* issue 8: the consumer RDNA2/3 variants people own */
    "gfx1031", "gfx1032", "gfx1034", "gfx1035", "gfx1036", "gfx1103", "gfx1150", "gfx1151", "gfx1152"
};
#define AKT_NREQ ((int)(sizeof akt_arch_required / sizeof akt_arch_required[0]))

static const ak_arch_info* akt_arch(const char* name) {
    const ak_arch_info* row = NULL;
    ak_result r = ak_arch_find(name, &row);
    if (r != AK_OK || !row) {
        akt_fail(__FILE__, __LINE__, "ak_arch_find(\"%s\") -> %s: %s", name, ak_result_name(r), ak_last_error());
        return NULL;
    }
    return row;
}

/* Expect `name` to resolve to the row called `canonical`. */
#define AKT_MAPS(query, canonical) do { const ak_arch_info* akt_row_ = akt_arch(query); \
    if (akt_row_) AKT_EQ_STR(akt_row_->name, canonical); } while (0)

static int akt_is_amd_family(ak_family f) { return f >= AK_FAMILY_GCN5 && f <= AK_FAMILY_RDNA4; }
static int akt_is_cdna(ak_family f) { return f >= AK_FAMILY_CDNA1 && f <= AK_FAMILY_CDNA4; }
static int akt_is_rdna34(ak_family f) { return f == AK_FAMILY_RDNA3 || f == AK_FAMILY_RDNA4; }

static void test_arch_every_row_by_name_and_index(void) {
    int n = ak_arch_count(), i, j;
    AKT_EQ_INT(n, AKT_NREQ);
    for (i = 0; i < n; i++) {
        const ak_arch_info* row = ak_arch_at(i);
        const ak_arch_info* found = NULL;
        AKT_CHECKF(row != NULL, "ak_arch_at(%d) is NULL", i);
        if (!row) continue;
        AKT_OK(ak_arch_find(row->name, &found));
        AKT_CHECKF(found == row, "ak_arch_find(\"%s\") gave another row", row->name);
        for (j = 0; j < i; j++) AKT_CHECKF(strcmp(ak_arch_at(j)->name, row->name) != 0, "duplicate row %s", row->name);
    }
    for (i = 0; i < AKT_NREQ; i++) AKT_MAPS(akt_arch_required[i], akt_arch_required[i]);
    AKT_CHECK(ak_arch_at(-1) == NULL);
    AKT_CHECK(ak_arch_at(n) == NULL);
    AKT_CHECK(ak_arch_at(n + 1000) == NULL);
    AKT_CHECK(ak_arch_at(-2147483647 - 1) == NULL);
    AKT_CHECK(ak_arch_at(2147483647) == NULL);
}

static void test_arch_feature_suffixes(void) {
    AKT_MAPS("gfx90a:sramecc+:xnack-", "gfx90a");
    AKT_MAPS("gfx90a:xnack+", "gfx90a");
    AKT_MAPS("gfx942:sramecc+:xnack-", "gfx942");
    AKT_MAPS("gfx906:sramecc-:xnack-", "gfx906");
    AKT_MAPS("gfx1100:xnack-", "gfx1100");
    AKT_MAPS("gfx908:", "gfx908");
    AKT_MAPS("gfx950:sramecc+:xnack-:extra:colons", "gfx950");
    /* comgr's full ISA name */
    AKT_MAPS("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "gfx90a");
    AKT_MAPS("amdgcn-amd-amdhsa--gfx1201", "gfx1201");
}

static void test_arch_aliases(void) {
    int i, n = ak_arch_count();
    AKT_MAPS("gfx940", "gfx942");
    AKT_MAPS("gfx941", "gfx942");
    AKT_MAPS("gfx941:sramecc+:xnack-", "gfx942");
    AKT_MAPS("sm_90a", "sm_90");
    AKT_MAPS("sm_100a", "sm_100");
    AKT_MAPS("sm_120a", "sm_120");
    /* every alias a row lists resolves to that row, and to no other */
    for (i = 0; i < n; i++) {
        const ak_arch_info* row = ak_arch_at(i);
        const char* p = row->aliases;
        AKT_CHECKF(row->aliases != NULL, "%s: aliases is NULL", row->name);
        while (p && *p) {
            char one[64];
            const char* comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            const ak_arch_info* found = NULL;
            AKT_CHECKF(len > 0 && len < sizeof one, "%s: bad alias list \"%s\"", row->name, row->aliases);
            if (len == 0 || len >= sizeof one) break;
            memcpy(one, p, len);
            one[len] = 0;
            AKT_OK(ak_arch_find(one, &found));
            AKT_CHECKF(found == row, "alias %s does not map to %s", one, row->name);
            p = comma ? comma + 1 : NULL;
        }
    }
}

static void test_arch_case_insensitive(void) {
    AKT_MAPS("GFX90A", "gfx90a");
    AKT_MAPS("Gfx942:SRAMECC+:XNACK-", "gfx942");
    AKT_MAPS("GFX940", "gfx942");
    AKT_MAPS("SM_90A", "sm_90");
    AKT_MAPS("Sm_86", "sm_86");
    AKT_MAPS("gFx1201", "gfx1201");
    AKT_MAPS(" gfx1030 ", "gfx1030");
}

static void test_arch_bad_names(void) {
    const ak_arch_info* row = ak_arch_at(0);
    char buf[300];
    /* NULL arguments */
    AKT_ERR_ITEM(ak_arch_find(NULL, &row), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CHECK(row == NULL); /* out is cleared on failure */
    AKT_ERR_ITEM(ak_arch_find("gfx90a", NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_arch_find(NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    /* empty: not found, and the message lists what is known */
    row = ak_arch_at(0);
    AKT_ERR_ITEM(ak_arch_find("", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_CHECK(row == NULL);
    AKT_CONTAINS(ak_last_error(), "gfx906");
    AKT_CONTAINS(ak_last_error(), "sm_120");
    AKT_ERR_ITEM(ak_arch_find(":sramecc+:xnack-", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("   ", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    /* unknown: the message names the value and the known names */
    AKT_ERR_ITEM(ak_arch_find("gfx9999:xnack-", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_CONTAINS(ak_last_error(), "gfx9999");
    AKT_CONTAINS(ak_last_error(), "gfx90a");
    AKT_CONTAINS(ak_last_error(), "sm_90");
    AKT_CONTAINS(ak_last_error(), "gfx940");
    /* near misses are not prefix matches */
    AKT_ERR_ITEM(ak_arch_find("gfx90", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("gfx90ab", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("gfx9", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("gfx94", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("gfx9400", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("sm_9", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("sm_90b", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("sm_", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("gfx940,gfx941", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find(",", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("gfx 90a", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("amdgcn-amd-amdhsa--", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_ERR_ITEM(ak_arch_find("cuda", &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    AKT_CHECK(row == NULL);
    /* length: 127 characters is looked up, 128 is an invalid argument */
    memset(buf, 'x', sizeof buf);
    memcpy(buf, "gfx90a:", 7);
    buf[127] = 0;
    AKT_MAPS(buf, "gfx90a");
    buf[127] = 'x';
    buf[128] = 0;
    AKT_ERR(ak_arch_find(buf, &row), AK_ERROR_INVALID_ARGUMENT);
    buf[128] = 'x';
    buf[sizeof buf - 1] = 0; /* 299 characters */
    AKT_ERR(ak_arch_find(buf, &row), AK_ERROR_INVALID_ARGUMENT);
    memset(buf, 'q', 127);
    buf[127] = 0;
    AKT_ERR_ITEM(ak_arch_find(buf, &row), AK_ERROR_NOT_FOUND, AK_ERRITEM_UNKNOWN_TARGET);
    /* a failed lookup leaves later lookups working */
    AKT_MAPS("gfx90a", "gfx90a");
}

static void test_arch_row_invariants(void) {
    int i, n = ak_arch_count();
    for (i = 0; i < n; i++) {
        const ak_arch_info* a = ak_arch_at(i);
        const char* nm;
        if (!a) { akt_fail(__FILE__, __LINE__, "row %d missing", i); continue; }
        nm = a->name ? a->name : "(null)";
        AKT_CHECKF(a->name && a->name[0], "row %d: empty name", i);
        AKT_CHECKF(a->products && a->products[0], "%s: empty products", nm);
        AKT_CHECKF(a->source && strlen(a->source) > 20, "%s: source missing", nm);
        AKT_CHECKF(a->memory_type && a->memory_type[0], "%s: empty memory_type", nm);
        AKT_CHECKF(a->family_name && !strcmp(a->family_name, ak_family_name(a->family)),
                   "%s: family_name %s vs %s", nm, a->family_name ? a->family_name : "(null)", ak_family_name(a->family));
        AKT_CHECKF((int)a->family >= 0 && (int)a->family < (int)AK_FAMILY_COUNT, "%s: family out of range", nm);
        /* vendor agrees with the name and family */
        if (a->vendor == AK_VENDOR_AMD) {
            AKT_CHECKF(!strncmp(nm, "gfx", 3), "%s: AMD row not named gfx*", nm);
            AKT_CHECKF(akt_is_amd_family(a->family), "%s: AMD row with family %s", nm, ak_family_name(a->family));
        } else {
            AKT_CHECKF(a->vendor == AK_VENDOR_NVIDIA, "%s: bad vendor", nm);
            AKT_CHECKF(!strncmp(nm, "sm_", 3), "%s: NVIDIA row not named sm_*", nm);
            AKT_CHECKF(!akt_is_amd_family(a->family), "%s: NVIDIA row with family %s", nm, ak_family_name(a->family));
        }
        /* wave sizes */
        AKT_CHECKF(a->wave_size == 32 || a->wave_size == 64, "%s: wave %d", nm, a->wave_size);
        AKT_CHECKF(a->wave_size_alt == 0 || (a->wave_size_alt != a->wave_size &&
                   (a->wave_size_alt == 32 || a->wave_size_alt == 64)), "%s: wave_alt %d", nm, a->wave_size_alt);
        if (a->family == AK_FAMILY_GCN5 || akt_is_cdna(a->family)) {
            AKT_EQ_INT(a->wave_size, 64);
            AKT_EQ_INT(a->wave_size_alt, 0);
        } else if (akt_is_amd_family(a->family)) { /* RDNA */
            AKT_EQ_INT(a->wave_size, 32);
            AKT_EQ_INT(a->wave_size_alt, 64);
        } else {
            AKT_EQ_INT(a->wave_size, 32);
            AKT_EQ_INT(a->wave_size_alt, 0);
        }
        /* sizes and rates */
        AKT_CHECKF(a->compute_units > 0, "%s: CUs %d", nm, a->compute_units);
        AKT_CHECKF(a->lds_bytes >= 65536 && a->lds_bytes % 1024 == 0, "%s: lds %d", nm, a->lds_bytes);
        /* (the smallest row is gfx1036, a 2-CU integrated GPU on DDR5) */
        AKT_CHECKF(a->l2_bytes >= 256 * 1024, "%s: l2 %d", nm, a->l2_bytes);
        AKT_CHECKF(a->memory_bw_gbs > 50.0 && a->memory_bw_gbs < 100000.0, "%s: bandwidth %g", nm, a->memory_bw_gbs);
        AKT_CHECKF(a->fp32_tflops > 0.5 && a->fp32_tflops < 1000.0, "%s: fp32 %g", nm, a->fp32_tflops);
        AKT_CHECKF(a->fp16_matrix_tflops >= 0.0 && a->bf16_matrix_tflops >= 0.0, "%s: negative matrix rate", nm);
        /* matrix ISA consistent with the family */
        AKT_CHECKF(strcmp(ak_matrix_isa_name(a->matrix), "?") != 0, "%s: matrix out of range", nm);
        if (akt_is_cdna(a->family)) AKT_CHECKF(a->matrix == AK_MATRIX_MFMA, "%s: CDNA without MFMA", nm);
        else AKT_CHECKF(a->matrix != AK_MATRIX_MFMA, "%s: MFMA outside CDNA", nm);
        if (akt_is_rdna34(a->family)) AKT_CHECKF(a->matrix == AK_MATRIX_WMMA, "%s: RDNA3/4 without WMMA", nm);
        else AKT_CHECKF(a->matrix != AK_MATRIX_WMMA, "%s: WMMA outside RDNA3/4", nm);
        if (a->family == AK_FAMILY_GCN5 || a->family == AK_FAMILY_RDNA2)
            AKT_CHECKF(a->matrix == AK_MATRIX_NONE, "%s: GCN5/RDNA2 with a matrix ISA", nm);
        if (a->vendor == AK_VENDOR_NVIDIA)
            AKT_CHECKF(a->matrix == AK_MATRIX_MMA || a->matrix == AK_MATRIX_WGMMA, "%s: NVIDIA without MMA", nm);
        if (a->matrix == AK_MATRIX_NONE) {
            AKT_CHECKF(a->fp16_matrix_tflops == 0.0 && a->bf16_matrix_tflops == 0.0, "%s: matrix rates without a matrix unit", nm);
            AKT_EQ_INT(a->rec_matrix_cores, 0);
        } else {
            /* a matrix unit beats the vector FP32 rate */
            AKT_CHECKF(a->fp16_matrix_tflops > a->fp32_tflops, "%s: fp16 matrix %g <= fp32 %g", nm, a->fp16_matrix_tflops, a->fp32_tflops);
            AKT_CHECKF(a->bf16_matrix_tflops > a->fp32_tflops, "%s: bf16 matrix %g <= fp32 %g", nm, a->bf16_matrix_tflops, a->fp32_tflops);
        }
        /* fp8 */
        AKT_CHECKF(a->fp8 == 0 || a->fp8 == 1, "%s: fp8 %d", nm, a->fp8);
        AKT_CHECKF(a->fp8_encoding != NULL, "%s: fp8_encoding NULL", nm);
        if (a->fp8_encoding) {
            AKT_CHECKF((a->fp8 != 0) == (a->fp8_encoding[0] != 0), "%s: fp8 %d with encoding \"%s\"", nm, a->fp8, a->fp8_encoding);
            if (a->fp8)
                AKT_CHECKF(!strcmp(a->fp8_encoding, "OCP E4M3/E5M2") || !strcmp(a->fp8_encoding, "FNUZ E4M3/E5M2"),
                           "%s: fp8 encoding \"%s\"", nm, a->fp8_encoding);
        }
        if (a->fp8) AKT_CHECKF(a->matrix != AK_MATRIX_NONE, "%s: fp8 without a matrix unit", nm);
        /* recommendations */
        AKT_CHECKF(a->rec_precision == AK_F32 || a->rec_precision == AK_F16 || a->rec_precision == AK_BF16,
                   "%s: rec_precision %s", nm, ak_dtype_name(a->rec_precision));
        AKT_CHECKF(a->rec_opt_level == AK_OPT_CONSERVATIVE || a->rec_opt_level == AK_OPT_BALANCED ||
                   a->rec_opt_level == AK_OPT_AGGRESSIVE, "%s: rec_opt_level %d", nm, (int)a->rec_opt_level);
        AKT_CHECKF(a->rec_matrix_cores == 0 || a->rec_matrix_cores == 1, "%s: rec_matrix_cores %d", nm, a->rec_matrix_cores);
        if (a->rec_precision == AK_BF16 && a->rec_matrix_cores) AKT_CHECK(a->bf16_matrix_tflops > 0.0);
        if (a->rec_precision == AK_F16 && a->rec_matrix_cores) AKT_CHECK(a->fp16_matrix_tflops > 0.0);
    }
}

/* No name or alias appears twice across the table. */
static void test_arch_names_unique(void) {
    int i, j, n = ak_arch_count();
    for (i = 0; i < n; i++) {
        const ak_arch_info* a = ak_arch_at(i);
        for (j = 0; j < n; j++) {
            const ak_arch_info* b = ak_arch_at(j);
            const char* p = b->aliases;
            size_t len = strlen(a->name);
            while (p && *p) {
                const char* comma = strchr(p, ',');
                size_t l = comma ? (size_t)(comma - p) : strlen(p);
                AKT_CHECKF(!(l == len && !strncmp(p, a->name, len)), "%s is also an alias of %s", a->name, b->name);
                p = comma ? comma + 1 : NULL;
            }
        }
    }
}

static void test_arch_issue_facts(void) {
    static const char* const rdna34[] = { "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201" };
    const ak_arch_info* a;
    int i;
    /* CDNA3: bf16, aggressive, matrix cores; FNUZ fp8 */
    if ((a = akt_arch("gfx942")) != NULL) {
        AKT_EQ_INT(a->family, AK_FAMILY_CDNA3);
        AKT_EQ_INT(a->rec_precision, AK_BF16);
        AKT_EQ_INT(a->rec_opt_level, AK_OPT_AGGRESSIVE);
        AKT_EQ_INT(a->rec_matrix_cores, 1);
        AKT_EQ_INT(a->fp8, 1);
        AKT_EQ_STR(a->fp8_encoding, "FNUZ E4M3/E5M2");
        AKT_EQ_INT(a->matrix, AK_MATRIX_MFMA);
        AKT_EQ_INT(a->wave_size, 64);
        AKT_EQ_INT(a->lds_bytes, 65536);
        AKT_CONTAINS(a->aliases, "gfx940");
        AKT_CONTAINS(a->aliases, "gfx941");
    }
    if ((a = akt_arch("gfx950")) != NULL) {
        AKT_EQ_INT(a->family, AK_FAMILY_CDNA4);
        AKT_EQ_INT(a->rec_precision, AK_BF16);
        AKT_EQ_INT(a->rec_opt_level, AK_OPT_AGGRESSIVE);
        AKT_EQ_INT(a->rec_matrix_cores, 1);
        AKT_EQ_STR(a->fp8_encoding, "OCP E4M3/E5M2");
        AKT_EQ_INT(a->lds_bytes, 163840);
    }
    /* CDNA2: fp16, balanced; no fp8 before CDNA3 */
    if ((a = akt_arch("gfx90a")) != NULL) {
        AKT_EQ_INT(a->family, AK_FAMILY_CDNA2);
        AKT_EQ_INT(a->rec_precision, AK_F16);
        AKT_EQ_INT(a->rec_opt_level, AK_OPT_BALANCED);
        AKT_EQ_INT(a->rec_matrix_cores, 1);
        AKT_EQ_INT(a->fp8, 0);
        AKT_EQ_STR(a->family_name, "CDNA2");
    }
    if ((a = akt_arch("gfx908")) != NULL) {
        AKT_EQ_INT(a->family, AK_FAMILY_CDNA1);
        AKT_EQ_INT(a->rec_precision, AK_F16);
        AKT_EQ_INT(a->rec_opt_level, AK_OPT_BALANCED);
        AKT_EQ_INT(a->fp8, 0);
        AKT_EQ_INT(a->compute_units, 120);
    }
    /* GCN5 and RDNA2: no matrix unit at all */
    if ((a = akt_arch("gfx906")) != NULL) {
        AKT_EQ_INT(a->family, AK_FAMILY_GCN5);
        AKT_EQ_INT(a->matrix, AK_MATRIX_NONE);
        AKT_EQ_INT(a->rec_precision, AK_F32);
        AKT_EQ_INT(a->rec_opt_level, AK_OPT_CONSERVATIVE);
        AKT_EQ_INT(a->rec_matrix_cores, 0);
        AKT_CHECK(a->fp16_matrix_tflops == 0.0);
    }
    if ((a = akt_arch("gfx1030")) != NULL) {
        AKT_EQ_INT(a->family, AK_FAMILY_RDNA2);
        AKT_EQ_INT(a->matrix, AK_MATRIX_NONE);
        AKT_EQ_INT(a->rec_precision, AK_F32);
        AKT_EQ_INT(a->rec_opt_level, AK_OPT_CONSERVATIVE);
        AKT_EQ_INT(a->rec_matrix_cores, 0);
        AKT_EQ_INT(a->wave_size, 32);
        AKT_EQ_INT(a->wave_size_alt, 64);
    }
    /* RDNA3/4: fp32, conservative, no matrix cores, though WMMA exists */
    for (i = 0; i < 5; i++) {
        if ((a = akt_arch(rdna34[i])) == NULL) continue;
        AKT_CHECKF(akt_is_rdna34(a->family), "%s: family %s", rdna34[i], ak_family_name(a->family));
        AKT_EQ_INT(a->rec_precision, AK_F32);
        AKT_EQ_INT(a->rec_opt_level, AK_OPT_CONSERVATIVE);
        AKT_EQ_INT(a->rec_matrix_cores, 0);
        AKT_EQ_INT(a->matrix, AK_MATRIX_WMMA);
        AKT_EQ_INT(a->wave_size, 32);
        AKT_EQ_INT(a->wave_size_alt, 64);
        AKT_EQ_INT(a->fp8, a->family == AK_FAMILY_RDNA4);
    }
    /* NVIDIA */
    if ((a = akt_arch("sm_90")) != NULL) {
        AKT_EQ_INT(a->vendor, AK_VENDOR_NVIDIA);
        AKT_EQ_INT(a->family, AK_FAMILY_HOPPER);
        AKT_EQ_INT(a->compute_units, 132);
        AKT_EQ_INT(a->wave_size, 32);
        AKT_EQ_INT(a->matrix, AK_MATRIX_WGMMA);
        AKT_EQ_INT(a->lds_bytes, 232448);
        AKT_EQ_INT(a->l2_bytes, 50 * 1024 * 1024);
        AKT_NEAR(a->memory_bw_gbs, 3350.0, 1.0);
        AKT_NEAR(a->fp32_tflops, 67.0, 0.5);
        AKT_NEAR(a->fp16_matrix_tflops, 989.0, 1.0);
        AKT_NEAR(a->bf16_matrix_tflops, 989.0, 1.0);
        AKT_EQ_STR(a->fp8_encoding, "OCP E4M3/E5M2");
        AKT_EQ_STR(a->memory_type, "HBM3");
    }
    if ((a = akt_arch("sm_80")) != NULL) {
        AKT_EQ_INT(a->family, AK_FAMILY_AMPERE);
        AKT_EQ_INT(a->fp8, 0);
        AKT_EQ_INT(a->matrix, AK_MATRIX_MMA);
        AKT_EQ_INT(a->lds_bytes, 166912);
        AKT_EQ_INT(a->rec_precision, AK_BF16);
        AKT_EQ_INT(a->rec_matrix_cores, 1);
    }
    if ((a = akt_arch("sm_86")) != NULL) { AKT_EQ_INT(a->lds_bytes, 101376); AKT_EQ_INT(a->fp8, 0); }
    if ((a = akt_arch("sm_89")) != NULL) { AKT_EQ_INT(a->family, AK_FAMILY_ADA); AKT_EQ_INT(a->fp8, 1); AKT_EQ_INT(a->lds_bytes, 101376); }
    if ((a = akt_arch("sm_100")) != NULL) { AKT_EQ_INT(a->family, AK_FAMILY_BLACKWELL); AKT_EQ_INT(a->lds_bytes, 232448); AKT_EQ_INT(a->matrix, AK_MATRIX_MMA); }
    if ((a = akt_arch("sm_120")) != NULL) { AKT_EQ_INT(a->family, AK_FAMILY_BLACKWELL); AKT_EQ_INT(a->lds_bytes, 101376); AKT_EQ_INT(a->fp8, 1); }
}

static void test_arch_family_and_isa_names(void) {
    static const char* const fam[] = { "GCN5", "CDNA1", "CDNA2", "CDNA3", "CDNA4", "RDNA2", "RDNA3", "RDNA4",
                                       "Ampere", "Ada", "Hopper", "Blackwell" };
    int i;
    AKT_EQ_INT((int)(sizeof fam / sizeof fam[0]), AK_FAMILY_COUNT);
    for (i = 0; i < (int)AK_FAMILY_COUNT; i++) AKT_EQ_STR(ak_family_name((ak_family)i), fam[i]);
    AKT_EQ_STR(ak_family_name(AK_FAMILY_COUNT), "?");
    AKT_EQ_STR(ak_family_name((ak_family)-1), "?");
    AKT_EQ_STR(ak_family_name((ak_family)1000), "?");
    AKT_EQ_STR(ak_matrix_isa_name(AK_MATRIX_NONE), "none");
    AKT_EQ_STR(ak_matrix_isa_name(AK_MATRIX_MFMA), "MFMA");
    AKT_EQ_STR(ak_matrix_isa_name(AK_MATRIX_WMMA), "WMMA");
    AKT_EQ_STR(ak_matrix_isa_name(AK_MATRIX_MMA), "MMA");
    AKT_EQ_STR(ak_matrix_isa_name(AK_MATRIX_WGMMA), "WGMMA");
    AKT_EQ_STR(ak_matrix_isa_name((ak_matrix_isa)5), "?");
    AKT_EQ_STR(ak_matrix_isa_name((ak_matrix_isa)-1), "?");
}

/* issue 10 / 8: target IDs are parsed and validated before any compiler sees them */
static void test_target_id_parse(void) {
    static const char* const good[][2] = {
        { "gfx90a", "gfx90a" }, { "gfx90a:xnack-", "gfx90a:xnack-" }, { "gfx90a:sramecc+", "gfx90a:sramecc+" },
        { "gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack-" }, { "GFX942:sramecc-:xnack+", "gfx942:sramecc-:xnack+" },
        { "gfx906:xnack+", "gfx906:xnack+" }, { "gfx950:sramecc+", "gfx950:sramecc+" }, { "gfx1100", "gfx1100" },
        { "gfx1151", "gfx1151" }, { "sm_90a", "sm_90a" }, { "gfx900", "gfx900" } /* not in the table: no features */
    };
    static const char* const bad[] = {
        "gfx90a:foo", "gfx90a:", "gfx90a::", "gfx90a:xnack", "gfx90a:xnack*", "gfx90a:xnack-:sramecc+",
        "gfx90a:xnack+:xnack-", "gfx90a:sramecc+:sramecc+", "gfx1100:xnack+", "gfx1201:sramecc-", "sm_90:xnack-",
        "gfx900:xnack-", ":xnack-", "", "gfx90a xnack-", "gfx90a:sramecc+:xnack-:", "cdna3", "gfx\xff",
        "gfx90a:XNACK-", "gfx90a:xnack-x", "gfx0123456789012345678901234567890"
    };
    ak_target_id t;
    int i;
    for (i = 0; i < (int)(sizeof good / sizeof good[0]); i++) {
        AKT_OK(ak_target_id_parse(good[i][0], &t));
        AKT_EQ_STR(t.canonical, good[i][1]);
    }
    AKT_OK(ak_target_id_parse("gfx90a:sramecc+:xnack-", &t));
    AKT_EQ_STR(t.processor, "gfx90a");
    AKT_CHECK(t.sramecc == 1 && t.xnack == 0 && t.info && !strcmp(t.info->name, "gfx90a"));
    AKT_OK(ak_target_id_parse("gfx940", &t)); /* an alias row */
    AKT_CHECK(t.info && !strcmp(t.info->name, "gfx942") && t.sramecc == -1 && t.xnack == -1);
    AKT_OK(ak_target_id_parse("gfx900", &t));
    AKT_CHECK(t.info == NULL);
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        memset(&t, 0x5A, sizeof t);
        AKT_ERR(ak_target_id_parse(bad[i], &t), AK_ERROR_INVALID_ARGUMENT);
        AKT_CHECKF(ak_last_error()[0] != 0, "no message for '%s'", bad[i]);
    }
    AKT_ERR_ITEM(ak_target_id_parse("gfx90a:foo", &t), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_TARGET_FEATURE);
    AKT_CONTAINS(ak_last_error(), "'foo' is not a target feature");
    AKT_ERR_ITEM(ak_target_id_parse("gfx90a:xnack-:sramecc+", &t), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_TARGET_FEATURE);
    AKT_CONTAINS(ak_last_error(), "out of order");
    AKT_ERR_ITEM(ak_target_id_parse("gfx1100:xnack+", &t), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_TARGET_FEATURE);
    AKT_CONTAINS(ak_last_error(), "no xnack feature");
    AKT_ERR_ITEM(ak_target_id_parse(NULL, &t), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_target_id_parse("gfx90a", NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    /* every table row parses as itself; features only where the row lists them */
    for (i = 0; i < ak_arch_count(); i++) {
        const ak_arch_info* a = ak_arch_at(i);
        char id[96];
        AKT_OK(ak_target_id_parse(a->name, &t));
        AKT_CHECK(t.info == a);
        snprintf(id, sizeof id, "%s:xnack-", a->name);
        if (strstr(a->features, "xnack")) AKT_OK(ak_target_id_parse(id, &t));
        else AKT_ERR_ITEM(ak_target_id_parse(id, &t), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_TARGET_FEATURE);
        AKT_CHECKF(a->vendor == AK_VENDOR_AMD || a->features[0] == 0, "%s: NVIDIA row with features", a->name);
    }
}

/* family names map to the family's first row; consumer rows have the right wave and matrix ISA */
static void test_arch_family_names_and_consumer_rows(void) {
    static const char* const fam[][2] = {
        { "CDNA2", "gfx90a" }, { "cdna3", "gfx942" }, { "CDNA4", "gfx950" }, { "CDNA1", "gfx908" }, { "GCN5", "gfx906" },
        { "RDNA2", "gfx1030" }, { "RDNA3", "gfx1100" }, { "rdna4", "gfx1200" }, { "Hopper", "sm_90" }, { "Ampere", "sm_80" }
    };
    static const char* const rdna2[] = { "gfx1031", "gfx1032", "gfx1034", "gfx1035", "gfx1036" };
    static const char* const rdna3[] = { "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152" };
    int i;
    for (i = 0; i < (int)(sizeof fam / sizeof fam[0]); i++) AKT_MAPS(fam[i][0], fam[i][1]);
    for (i = 0; i < 5; i++) {
        const ak_arch_info* a = akt_arch(rdna2[i]);
        if (a) AKT_CHECKF(a->wave_size == 32 && a->matrix == AK_MATRIX_NONE && a->family == AK_FAMILY_RDNA2, "%s", rdna2[i]);
        a = akt_arch(rdna3[i]);
        if (a) AKT_CHECKF(a->wave_size == 32 && a->matrix == AK_MATRIX_WMMA && a->family == AK_FAMILY_RDNA3, "%s", rdna3[i]);
    }
}

void akt_suite_arch(void) {
    AKT_RUN(test_target_id_parse);
    AKT_RUN(test_arch_family_names_and_consumer_rows);
    AKT_RUN(test_arch_every_row_by_name_and_index);
    AKT_RUN(test_arch_feature_suffixes);
    AKT_RUN(test_arch_aliases);
    AKT_RUN(test_arch_case_insensitive);
    AKT_RUN(test_arch_bad_names);
    AKT_RUN(test_arch_row_invariants);
    AKT_RUN(test_arch_names_unique);
    AKT_RUN(test_arch_issue_facts);
    AKT_RUN(test_arch_family_and_isa_names);
}
