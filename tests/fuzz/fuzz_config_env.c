/* Fuzz target config_env: the environment overrides and the config checks
 * (amdkit.h >>impl:config: ak_config_apply_env, ak_config_validate, the
 * name parsers). The input is up to 8 lines; the first byte of a line picks a
 * config field (its AMDKIT_* variable), the rest is the value. Every
 * variable is set, applied, validated, printed back field by field, then
 * unset. Included by fuzz_main.c. */
static int akf_config_env(const uint8_t* data, size_t size) {
    char buf[512], val[256];
    const char* names[8];
    int nvars = 0, i, n = ak_config_field_count();
    size_t pos = 0;
    ak_config cfg = ak_config_default(), fixed;
    const ak_arch_info* arch = NULL;
    while (pos < size && nvars < 8) {
        size_t end = pos, len;
        const ak_config_field* f;
        while (end < size && data[end] != '\n') end++;
        f = NULL;
        len = 0;
        for (i = 0; i < n && end > pos; i++) {
            const ak_config_field* g = ak_config_field_at(i);
            size_t nl = g && g->env ? strlen(g->env) - 7 : 0;
            if (g && g->env && end - pos > nl && !memcmp(data + pos, g->env + 7, nl) && data[pos + nl] == '=') { f = g; len = nl + 1; break; }
        }
        if (!f && end > pos && n > 0) { f = ak_config_field_at(data[pos] % n); len = 1; }
        if (f && f->env) {
            size_t off = pos + len;
            len = end - off;
            if (len >= sizeof buf) len = sizeof buf - 1;
            memcpy(buf, data + off, len);
            buf[len] = 0;
            if (strlen(buf) == len) { /* no NUL inside: a real environment cannot hold one */
                setenv(f->env, buf, 1);
                names[nvars++] = f->env;
            }
            /* the parsers on the same text */
            { ak_backend b; ak_dtype t; ak_opt_level o; (void)ak_backend_parse(buf, &b); (void)ak_dtype_parse(buf, &t);
              (void)ak_opt_level_parse(buf, &o); (void)ak_arch_find(buf, &arch); }
        }
        pos = end + 1;
    }
    if (ak_config_apply_env(&cfg) == AK_OK) {
        if (ak_config_validate(&cfg, NULL, &fixed) == AK_OK && ak_arch_find("gfx90a", &arch) == AK_OK)
            (void)ak_config_validate(&cfg, arch, &fixed);
        for (i = 0; i < n; i++) (void)ak_config_field_value(&cfg, i, val, sizeof val);
    } else if (!ak_last_error()[0]) {
        abort(); /* an error always has a message */
    }
    for (i = 0; i < nvars; i++) unsetenv(names[i]);
    return 0;
}
