/* Fuzz target target_id: the target-ID parser (amdkit.h >>impl:arch,
 * ak_target_id_parse) that guards every compiler call, config.arch and
 * AMDKIT_ARCH, and the row lookup beside it (ak_arch_find). The input is the
 * target text (cut at the first NUL or 127 bytes). Checked on every input:
 * an accepted ID has a lower-case gfx/sm_ processor, features only from
 * {sramecc, xnack} in that order and only where its table row lists them,
 * and its canonical form parses again to itself; a rejected one has a
 * message. Included by fuzz_main.c (seeds: tests/fuzz/corpus/target_id). */
static void akf_target_id_check(int ok, const char* what) {
    if (!ok) { fprintf(stderr, "fuzz target_id: invariant broken: %s\n", what); abort(); }
}
static int akf_target_id(const uint8_t* data, size_t size) {
    char s[128];
    ak_target_id t, t2;
    const ak_arch_info* row = NULL;
    size_t n = size < sizeof s - 1 ? size : sizeof s - 1, i;
    memcpy(s, data, n);
    s[n] = 0;
    (void)ak_arch_find(s, &row);
    if (ak_target_id_parse(s, &t) != AK_OK) {
        akf_target_id_check(ak_last_error()[0] != 0, "rejected without a message");
        return 0;
    }
    akf_target_id_check(!strncmp(t.canonical, "gfx", 3) || !strncmp(t.canonical, "sm_", 3), "processor not gfx/sm_");
    for (i = 0; t.processor[i]; i++) akf_target_id_check(t.processor[i] == (char)tolower((unsigned char)t.processor[i]), "processor not lower case");
    akf_target_id_check(t.sramecc >= -1 && t.sramecc <= 1 && t.xnack >= -1 && t.xnack <= 1, "feature value out of range");
    if (t.sramecc != -1 || t.xnack != -1) {
        akf_target_id_check(t.info != NULL, "features on a processor outside the table");
        if (t.sramecc != -1) akf_target_id_check(strstr(t.info->features, "sramecc") != NULL, "sramecc where the row has none");
        if (t.xnack != -1) akf_target_id_check(strstr(t.info->features, "xnack") != NULL, "xnack where the row has none");
    }
    {
        char expect[64];
        snprintf(expect, sizeof expect, "%s%s%s%s", t.processor, t.sramecc == -1 ? "" : t.sramecc ? ":sramecc+" : ":sramecc-",
                 t.xnack == -1 ? "" : t.xnack ? ":xnack+" : ":xnack-", "");
        akf_target_id_check(!strcmp(expect, t.canonical), "canonical form is not processor + features in order");
    }
    akf_target_id_check(ak_target_id_parse(t.canonical, &t2) == AK_OK, "canonical form rejected");
    akf_target_id_check(!strcmp(t2.canonical, t.canonical) && t2.info == t.info, "canonical form parses differently");
    if (t.info) akf_target_id_check(ak_arch_find(s, &row) == AK_OK && row == t.info, "parser and ak_arch_find disagree on the row");
    return 0;
}
