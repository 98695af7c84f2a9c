/* amdkit - command-line tool over amdkit.h: `amdkit --help` lists the commands (the table `commands` below),
 * `amdkit COMMAND --help` prints one; run / bench / tune live in examples/amdkit_run.c, demo in demo.c.
 * Exit status: 0 ok, 1 the work failed (a compile error, a failed check), 2 a usage error (an unknown option, a
 * missing value, an input file that cannot be read). */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Every command: its synopsis and what it does. `amdkit --help` prints them all, `amdkit CMD --help` its own
 * (run, bench and tune print theirs from examples/amdkit_run.c). Conventions of every command: --help / -h
 * prints usage on stdout with exit 0; errors go to stderr; an unknown option or a missing value is exit 2;
 * a failure of the work itself is exit 1 (tests/cli_check.sh checks each). */
static const struct { const char* name; const char* synopsis; const char* what; } commands[] = {
    { "info", "info [--json | --config-markdown]",
      "backend chosen (and why the others were not), devices, configuration;\n"
      "--config-markdown: the configuration table of README.md (no context)" },
    { "arch", "arch [NAME] [--json]", "the architecture table, or one row (NAME: gfx90a, sm_90, CDNA3, ...)" },
    { "compile", "compile FILE.hip --kernel NAME --arch T1[,T2,...] [-DNAME=V ...] [-IDIR ...] [--opt LEVEL]\n"
                 "        [--no-cache] [-o FILE]",
      "compile offline for each target with the real compiler (hipRTC for gfx*, NVRTC for sm_*); -o writes the\n"
      "code object (with several targets FILE must contain %t, the target: out_%t.co); exit 1 if a target fails" },
    { "cache", "cache stats|purge|path", "the compile cache: entries and bytes on disk, remove every entry, its directory" },
    { "kernels", "kernels [--dump DIR]", "the embedded kernel families; --dump writes DIR/<family>.hip with the prelude in front" },
    { "demo", "demo", "a few library kernels run on this machine and checked against their CPU references" },
    { "run", "run FILE.hip --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] --arg SPEC ...",
      "run a kernel and check it against a C version (amdkit run --help)" },
    { "bench", "bench FILE.hip ... [--json FILE] [--compare OTHER.json]", "time a kernel (amdkit bench --help)" },
    { "tune", "tune FILE.hip ... --tune NAME=V1,V2,...", "choose the fastest correct variant (amdkit tune --help)" },
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

/* One command's usage block, its description lines indented. */
static void command_usage(FILE* f, int c) {
    const char* w = commands[c].what;
    fprintf(f, "  amdkit %s\n", commands[c].synopsis);
    while (*w) {
        size_t n = strcspn(w, "\n");
        fprintf(f, "      %.*s\n", (int)n, w);
        w += n + (w[n] == '\n');
    }
}

static void usage(FILE* f) {
    int c;
    fprintf(f, "amdkit %s - HIP kernels compiled at run time for AMD GPUs (and NVIDIA through HIP), with a cpu backend\n"
               "usage: amdkit COMMAND [OPTIONS]   (amdkit COMMAND --help: that command's usage)\n",
            AK_VERSION_STRING);
    for (c = 0; c < NCOMMANDS; c++) command_usage(f, c);
    fprintf(f, "  amdkit --help | -h      this text\n"
               "  amdkit --version | -V   the version\n"
               "environment: AMDKIT_BACKEND, AMDKIT_DEVICE, AMDKIT_CACHE_DIR, ... (`amdkit info` lists them all)\n");
}

/* `amdkit CMD --help`: that command's usage on stdout. */
static int command_help(const char* name) {
    int c;
    for (c = 0; c < NCOMMANDS; c++)
        if (!strcmp(commands[c].name, name)) {
            printf("usage:\n");
            command_usage(stdout, c);
            return 0;
        }
    return 2;
}
static int is_help(const char* a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }
/* An option the command does not know: exit 2, named on stderr. */
static int unknown_option(const char* cmd, const char* a) {
    fprintf(stderr, "amdkit %s: unknown option '%s' (see amdkit %s --help)\n", cmd, a, cmd);
    return 2;
}

/* JSON string with escapes. */
static void jstr(FILE* f, const char* s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void print_arch_row(const ak_arch_info* a) {
    printf("  %-8s %-9s %-6s CUs %-4d wave %d%s  LDS %6d B  L2 %5.1f MiB  %-6s %6.0f GB/s  FP32 %6.1f  FP16 %7.1f  BF16 %7.1f TFLOP/s"
           "  fp8 %-3s %-14s matrix %-5s rec %s/%s/%s\n",
           a->name, a->family_name, a->vendor == AK_VENDOR_AMD ? "AMD" : "NVIDIA", a->compute_units, a->wave_size,
           a->wave_size_alt ? (a->wave_size_alt == 64 ? "/64" : "/32") : "   ", a->lds_bytes, a->l2_bytes / 1048576.0,
           a->memory_type, a->memory_bw_gbs, a->fp32_tflops, a->fp16_matrix_tflops, a->bf16_matrix_tflops,
           a->fp8 ? "yes" : "no", a->fp8 ? a->fp8_encoding : "", ak_matrix_isa_name(a->matrix),
           ak_dtype_name(a->rec_precision), ak_opt_level_name(a->rec_opt_level), a->rec_matrix_cores ? "mc" : "no-mc");
    printf("           %s\n           source: %s\n", a->products, a->source);
}

static void json_arch(FILE* f, const ak_arch_info* a) {
    fprintf(f, "{\"name\":"); jstr(f, a->name);
    fprintf(f, ",\"aliases\":"); jstr(f, a->aliases ? a->aliases : "");
    fprintf(f, ",\"vendor\":\"%s\",\"family\":", a->vendor == AK_VENDOR_AMD ? "AMD" : "NVIDIA"); jstr(f, a->family_name);
    fprintf(f, ",\"products\":"); jstr(f, a->products);
    fprintf(f, ",\"compute_units\":%d,\"wave_size\":%d,\"wave_size_alt\":%d,\"lds_bytes\":%d,\"l2_bytes\":%d,\"memory_type\":",
            a->compute_units, a->wave_size, a->wave_size_alt, a->lds_bytes, a->l2_bytes);
    jstr(f, a->memory_type);
    fprintf(f, ",\"memory_bw_gbs\":%g,\"fp32_tflops\":%g,\"fp16_matrix_tflops\":%g,\"bf16_matrix_tflops\":%g,\"fp8\":%s,\"fp8_encoding\":",
            a->memory_bw_gbs, a->fp32_tflops, a->fp16_matrix_tflops, a->bf16_matrix_tflops, a->fp8 ? "true" : "false");
    jstr(f, a->fp8_encoding ? a->fp8_encoding : "");
    fprintf(f, ",\"matrix\":\"%s\",\"rec_precision\":\"%s\",\"rec_opt_level\":\"%s\",\"rec_matrix_cores\":%s,\"source\":",
            ak_matrix_isa_name(a->matrix), ak_dtype_name(a->rec_precision), ak_opt_level_name(a->rec_opt_level),
            a->rec_matrix_cores ? "true" : "false");
    jstr(f, a->source);
    fputc('}', f);
}

static int cmd_arch(int argc, char** argv) {
    int i, json = 0;
    const char* name = NULL;
    for (i = 0; i < argc; i++) {
        if (is_help(argv[i])) return command_help("arch");
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (argv[i][0] == '-') return unknown_option("arch", argv[i]);
        else if (name) { fprintf(stderr, "amdkit arch: one NAME at most ('%s', then '%s')\n", name, argv[i]); return 2; }
        else name = argv[i];
    }
    if (name) {
        const ak_arch_info* a;
        if (ak_arch_find(name, &a) != AK_OK) { fprintf(stderr, "amdkit arch: %s\n", ak_last_error()); return 1; }
        if (json) { json_arch(stdout, a); printf("\n"); }
        else print_arch_row(a);
        return 0;
    }
    if (json) printf("[");
    for (i = 0; i < ak_arch_count(); i++) {
        if (json) { if (i) printf(","); json_arch(stdout, ak_arch_at(i)); }
        else print_arch_row(ak_arch_at(i));
    }
    if (json) printf("]\n");
    return 0;
}

/* A markdown table cell: '|' escaped. */
static void md_cell(const char* s) {
    for (; *s; s++) {
        if (*s == '|') putchar('\\');
        putchar(*s);
    }
}
/* `amdkit info --config-markdown`: the configuration table of README.md,
 * from the config X-macro table (defaults, variables, syntax, docs); no
 * context is created. tests/readme_config_check.sh compares the two. */
static int config_markdown(void) {
    ak_config def = ak_config_default();
    char val[512], syn[256];
    int i;
    printf("| field | default | environment variable: accepted values | what it does |\n|---|---|---|---|\n");
    for (i = 0; i < ak_config_field_count(); i++) {
        const ak_config_field* f = ak_config_field_at(i);
        ak_config_field_value(&def, i, val, sizeof val);
        ak_config_field_syntax(i, syn, sizeof syn);
        printf("| `%s` | ", f->name);
        md_cell(val);
        printf(" | `%s`: ", f->env);
        md_cell(syn);
        printf(" | ");
        md_cell(f->doc);
        printf(" |\n");
    }
    return 0;
}

static int cmd_info(int argc, char** argv) {
    int i, json = 0, markdown = 0, n = 0;
    ak_context* ctx = NULL;
    ak_result r;
    const ak_device_info* d;
    const ak_backend_report* rep;
    const ak_config* cfg;
    char val[512];
    for (i = 0; i < argc; i++) {
        if (is_help(argv[i])) return command_help("info");
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--config-markdown")) markdown = 1;
        else return unknown_option("info", argv[i]);
    }
    if (markdown) return config_markdown();
    r = ak_context_create(NULL, &ctx);
    if (r != AK_OK) {
        ak_backend_report probe[3];
        fprintf(stderr, "amdkit info: %s: %s\n", ak_result_name(r), ak_last_error());
        ak_probe_backends(probe);
        for (i = 0; i < 3; i++) fprintf(stderr, "  %-5s %s\n", ak_backend_name(probe[i].backend), probe[i].reason);
        return 1;
    }
    ak_context_probe(ctx);
    d = ak_context_device(ctx);
    rep = ak_context_backend_reports(ctx, &n);
    cfg = ak_context_config(ctx);
    if (json) {
        printf("{\"amdkit\":\"%s\",\"backend\":\"%s\",\"backends\":[", AK_VERSION_STRING, ak_backend_name(d->backend));
        for (i = 0; i < n; i++) {
            printf("%s{\"backend\":\"%s\",\"tried\":%s,\"selected\":%s,\"status\":\"%s\",\"reason\":", i ? "," : "",
                   ak_backend_name(rep[i].backend), rep[i].tried ? "true" : "false", rep[i].selected ? "true" : "false",
                   ak_result_name(rep[i].status));
            jstr(stdout, rep[i].reason);
            printf("}");
        }
        printf("],\"device\":{\"name\":"); jstr(stdout, d->name);
        printf(",\"arch\":"); jstr(stdout, d->arch);
        printf(",\"family\":"); jstr(stdout, d->arch_info ? d->arch_info->family_name : "");
        printf(",\"ordinal\":%d,\"device_count\":%d,\"compute_units\":%d,\"wave_size\":%d,\"shared_mem_per_block\":%zu,"
               "\"l2_bytes\":%zu,\"mem_total\":%zu,\"mem_free\":%zu,\"clock_khz\":%d,\"memory_clock_khz\":%d,\"memory_bus_width\":%d,"
               "\"runtime_version\":%d,\"driver_version\":%d,\"fp16\":%d,\"bf16\":%d,\"compiler\":",
               d->device, d->device_count, d->compute_units, d->wave_size, d->shared_mem_per_block, d->l2_bytes, d->mem_total,
               d->mem_free, d->clock_khz, d->memory_clock_khz, d->memory_bus_width, d->runtime_version, d->driver_version,
               d->fp16, d->bf16);
        jstr(stdout, d->compiler_version);
        printf(",\"runtime_library\":"); jstr(stdout, d->runtime_library);
        printf(",\"compiler_library\":"); jstr(stdout, d->compiler_library);
        printf(",\"visible_devices\":"); jstr(stdout, d->visible_devices);
        printf(",\"pci_bus_id\":"); jstr(stdout, d->pci_bus_id);
        printf(",\"uuid\":"); jstr(stdout, d->uuid);
        printf(",\"library_search\":"); jstr(stdout, d->library_search);
        printf("},\"devices\":[");
        for (i = 0; i < d->device_count; i++) {
            ak_device_info e;
            if (ak_device_get_info(d->backend, i, &e) != AK_OK) continue;
            printf("%s{\"ordinal\":%d,\"name\":", i ? "," : "", i); jstr(stdout, e.name);
            printf(",\"arch\":"); jstr(stdout, e.arch);
            printf(",\"mem_total\":%zu,\"compute_units\":%d,\"pci_bus_id\":", e.mem_total, e.compute_units); jstr(stdout, e.pci_bus_id);
            printf(",\"uuid\":"); jstr(stdout, e.uuid);
            printf("}");
        }
        printf("]");
        printf(",\"config\":{");
        for (i = 0; i < ak_config_field_count(); i++) {
            ak_config_field_value(cfg, i, val, sizeof val);
            printf("%s\"%s\":", i ? "," : "", ak_config_field_at(i)->name);
            jstr(stdout, val);
        }
        printf("}");
        printf(",\"arch_row\":");
        if (d->arch_info) json_arch(stdout, d->arch_info); else printf("null");
        printf("}\n");
    } else {
        printf("amdkit %s\n", AK_VERSION_STRING);
        printf("backend: %s\n", ak_backend_name(d->backend));
        for (i = 0; i < n; i++)
            printf("  %-5s %-9s %s\n", ak_backend_name(rep[i].backend),
                   rep[i].selected ? "selected" : rep[i].tried ? "skipped" : "not tried",
                   rep[i].reason[0] || rep[i].selected || rep[i].tried ? rep[i].reason
                   : cfg->backend == AK_BACKEND_AUTO ? "(an earlier backend was selected)"
                                                     : "(another backend was asked for: config.backend / AMDKIT_BACKEND)");
        printf("device %d of %d: %s\n", d->device, d->device_count, d->name);
        printf("  arch            %s%s%s\n", d->arch, d->arch_info ? "  " : "", d->arch_info ? d->arch_info->family_name : "");
        printf("  compute units   %d\n", d->compute_units);
        printf("  wave size       %d\n", d->wave_size);
        printf("  shared/block    %zu bytes\n", d->shared_mem_per_block);
        printf("  L2              %.1f MiB\n", d->l2_bytes / 1048576.0);
        printf("  memory          %.2f GiB total, %.2f GiB free\n", d->mem_total / 1073741824.0, d->mem_free / 1073741824.0);
        if (d->clock_khz) printf("  clocks          %d MHz core, %d MHz memory, %d-bit bus\n", d->clock_khz / 1000, d->memory_clock_khz / 1000, d->memory_bus_width);
        if (d->backend != AK_BACKEND_CPU)
            printf("  runtime         %d (driver %d) %s\n", d->runtime_version, d->driver_version, d->runtime_library);
        printf("  compiler        %s %s\n", d->compiler_version, d->compiler_library);
        printf("  fp16 / bf16     %s / %s (probed)\n", d->fp16 > 0 ? "yes" : d->fp16 == 0 ? "no" : "?", d->bf16 > 0 ? "yes" : d->bf16 == 0 ? "no" : "?");
        if (d->library_search[0]) printf("  found via       %s\n", d->library_search);
        if (d->pci_bus_id[0]) printf("  PCI bus id      %s\n", d->pci_bus_id);
        if (d->uuid[0]) printf("  UUID            %s\n", d->uuid);
        printf("devices (%s, %d; visible devices: %s):\n", ak_backend_name(d->backend), d->device_count,
               d->visible_devices[0] ? d->visible_devices : "all, no *_VISIBLE_DEVICES set");
        for (i = 0; i < d->device_count; i++) {
            ak_device_info e;
            if (ak_device_get_info(d->backend, i, &e) != AK_OK) { printf("  %d: %s\n", i, ak_last_error()); continue; }
            printf("  %d%s %-28s %-22s %7.1f GiB %3d CUs  %s  %s\n", i, i == d->device ? "*" : ":", e.name, e.arch,
                   e.mem_total / 1073741824.0, e.compute_units, e.pci_bus_id[0] ? e.pci_bus_id : "-", e.uuid[0] ? e.uuid : "-");
        }
        {   /* columns as wide as their widest entry */
            int wn = 5, wv = 5;
            for (i = 0; i < ak_config_field_count(); i++) {
                int l = (int)strlen(ak_config_field_at(i)->name);
                if (l > wn) wn = l;
                ak_config_field_value(cfg, i, val, sizeof val);
                l = (int)strlen(val);
                if (l > wv && l <= 40) wv = l;
            }
            printf("config (field, value, environment variable):\n");
            for (i = 0; i < ak_config_field_count(); i++) {
                ak_config_field_value(cfg, i, val, sizeof val);
                printf("  %-*s  %-*s  %s\n", wn, ak_config_field_at(i)->name, wv, val, ak_config_field_at(i)->env);
            }
        }
        if (d->arch_info) { printf("architecture row:\n"); print_arch_row(d->arch_info); }
    }
    ak_context_destroy(ctx);
    return 0;
}

static char* read_file(const char* path) {
    FILE* f = fopen(path, "rb");
    long n;
    char* s;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0 || !(s = (char*)malloc((size_t)n + 1))) { fclose(f); return NULL; }
    if (fread(s, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(s); return NULL; }
    s[n] = 0;
    fclose(f);
    return s;
}

/* Write a code object to `pattern` with %t replaced by the target (':' -> '_'). */
static int write_code_object(const char* pattern, const char* target, const ak_code_object* co) {
    char path[1024];
    size_t n = 0;
    const char* p;
    FILE* f;
    for (p = pattern; *p && n + 1 < sizeof path; p++) {
        if (p[0] == '%' && p[1] == 't') {
            const char* q;
            for (q = target; *q && n + 1 < sizeof path; q++) path[n++] = *q == ':' ? '_' : *q;
            p++;
        } else path[n++] = *p;
    }
    path[n] = 0;
    f = fopen(path, "wb");
    if (!f || fwrite(co->data, 1, co->size, f) != co->size || fclose(f) != 0) {
        fprintf(stderr, "amdkit compile: cannot write %s: %s\n", path, strerror(errno));
        if (f) fclose(f);
        return 1;
    }
    printf("%-10s wrote  %s\n", target, path);
    return 0;
}

static int cmd_compile(int argc, char** argv) {
    const char* file = NULL;
    const char* kernel = NULL;
    const char* outfile = NULL;
    char* archs = NULL;
    const char* opts[64];
    int nopts = 0, i, failures = 0;
    ak_compile_options co;
    ak_config cfg;
    ak_context* ctx = NULL;
    char* src;
    char* t;
    memset(&co, 0, sizeof co);
    co.opt_level = AK_OPT_AUTO;
    for (i = 0; i < argc; i++) {
        int has_value = i + 1 < argc;
        if (is_help(argv[i])) return command_help("compile");
        if ((!strcmp(argv[i], "--kernel") || !strcmp(argv[i], "--arch") || !strcmp(argv[i], "--opt") || !strcmp(argv[i], "-o")) && !has_value) {
            fprintf(stderr, "amdkit compile: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--kernel")) kernel = argv[++i];
        else if (!strcmp(argv[i], "--arch")) archs = argv[++i];
        else if (!strcmp(argv[i], "-o")) outfile = argv[++i];
        else if (!strcmp(argv[i], "--opt")) {
            if (ak_opt_level_parse(argv[++i], &co.opt_level) != AK_OK) { fprintf(stderr, "amdkit compile: %s\n", ak_last_error()); return 2; }
        } else if (!strcmp(argv[i], "--no-cache")) co.no_cache = 1;
        else if (!strncmp(argv[i], "-D", 2) || !strncmp(argv[i], "-I", 2)) {
            if (nopts == 64) { fprintf(stderr, "amdkit compile: more than 64 -D/-I options\n"); return 2; }
            opts[nopts++] = argv[i];
        } else if (argv[i][0] != '-' && !file) file = argv[i];
        else if (argv[i][0] == '-') return unknown_option("compile", argv[i]);
        else { fprintf(stderr, "amdkit compile: one FILE.hip at most ('%s', then '%s')\n", file, argv[i]); return 2; }
    }
    if (!file || !kernel || !archs) {
        fprintf(stderr, "amdkit compile: missing%s%s%s (see amdkit compile --help)\n",
                file ? "" : " FILE.hip", kernel ? "" : " --kernel NAME", archs ? "" : " --arch TARGET[,...]");
        return 2;
    }
    if (outfile && strchr(archs, ',') && !strstr(outfile, "%t")) {
        fprintf(stderr, "amdkit compile: -o %s with several targets: put %%t in the name (it becomes the target)\n", outfile);
        return 2;
    }
    src = read_file(file);
    if (!src) { fprintf(stderr, "amdkit compile: cannot read %s: %s\n", file, strerror(errno)); return 2; }
    co.options = opts;
    co.num_options = nopts;
    co.source_name = file;
    cfg = ak_config_default();
    if (ak_config_apply_env(&cfg) != AK_OK) { fprintf(stderr, "amdkit compile: %s\n", ak_last_error()); free(src); return 2; }
    cfg.backend = AK_BACKEND_CPU; /* offline: no device needed */
    if (ak_context_create(&cfg, &ctx) != AK_OK) { fprintf(stderr, "amdkit compile: %s\n", ak_last_error()); free(src); return 2; }
    for (t = strtok(archs, ","); t; t = strtok(NULL, ",")) {
        ak_code_object co_out;
        ak_result r = ak_compile_offline(ctx, t, src, kernel, &co, &co_out);
        if (r == AK_OK) {
            printf("%-10s ok     %8zu bytes  %s", t, co_out.size,
                   co_out.source == AK_CACHE_MISS ? "cache miss" : co_out.source == AK_CACHE_MEMORY ? "cache hit (memory)" : "cache hit (disk)");
            if (co_out.source == AK_CACHE_MISS) printf("  %.0f ms", co_out.compile_ms);
            printf("\n");
            if (outfile && write_code_object(outfile, t, &co_out) != 0) failures++;
            ak_code_object_free(&co_out);
        } else {
            const ak_error_info* e = ak_last_error_info();
            failures++;
            fprintf(stderr, "%-10s error  %s: %s\n", t, ak_result_name(r), e->message);
            if (e->log[0]) fprintf(stderr, "%s\n", e->log);
        }
    }
    ak_context_destroy(ctx);
    free(src);
    return failures ? 1 : 0;
}

static int cmd_cache(int argc, char** argv) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    int rc = 0;
    int i;
    for (i = 0; i < argc; i++) if (is_help(argv[i])) return command_help("cache");
    if (argc < 1) { fprintf(stderr, "amdkit cache: missing what: stats, purge or path (see amdkit cache --help)\n"); return 2; }
    if (strcmp(argv[0], "stats") && strcmp(argv[0], "purge") && strcmp(argv[0], "path")) {
        if (argv[0][0] == '-') return unknown_option("cache", argv[0]);
        fprintf(stderr, "amdkit cache: unknown '%s' (expected stats, purge or path)\n", argv[0]);
        return 2;
    }
    if (argc > 1) {
        if (argv[1][0] == '-') return unknown_option("cache", argv[1]);
        fprintf(stderr, "amdkit cache %s: unexpected argument '%s'\n", argv[0], argv[1]);
        return 2;
    }
    if (ak_config_apply_env(&cfg) != AK_OK) { fprintf(stderr, "amdkit cache: %s\n", ak_last_error()); return 2; }
    if (!strcmp(argv[0], "path")) {
        char dir[512];
        if (ak_cache_dir(&cfg, dir, sizeof dir) != AK_OK) { fprintf(stderr, "amdkit cache: %s\n", ak_last_error()); return 1; }
        printf("%s\n", dir);
        return 0;
    }
    cfg.backend = AK_BACKEND_CPU;
    if (ak_context_create(&cfg, &ctx) != AK_OK) { fprintf(stderr, "amdkit cache: %s\n", ak_last_error()); return 1; }
    if (!strcmp(argv[0], "stats")) {
        ak_cache_stats s;
        ak_cache_disk_usage u;
        if (ak_cache_stats_get(ctx, &s) == AK_OK && ak_cache_disk_usage_get(ctx, &u) == AK_OK) {
            char t0[32], t1[32];
            time_t a = (time_t)u.oldest, b = (time_t)u.newest;
            printf("dir          %s (%s)\n", s.dir, s.disk_enabled ? "enabled" : "memory-only");
            printf("on disk      %llu entries, %llu bytes (%.1f MiB)", u.entries, u.bytes, (double)u.bytes / 1048576.0);
            if (u.max_bytes > 0) printf(" of a %lld-byte cap", u.max_bytes);
            printf("\n");
            if (u.entries) {
                strftime(t0, sizeof t0, "%Y-%m-%d %H:%M:%S", localtime(&a));
                strftime(t1, sizeof t1, "%Y-%m-%d %H:%M:%S", localtime(&b));
                printf("oldest       %s\nnewest       %s\n", t0, t1);
            }
            printf("capacity     %d memory entries per process\n", s.capacity);
        } else { fprintf(stderr, "amdkit cache: %s\n", ak_last_error()); rc = 1; }
    } else if (!strcmp(argv[0], "purge")) {
        ak_cache_disk_usage before, after;
        ak_cache_stats s;
        memset(&before, 0, sizeof before);
        memset(&after, 0, sizeof after);
        ak_cache_disk_usage_get(ctx, &before);
        if (ak_cache_purge(ctx) != AK_OK) { fprintf(stderr, "amdkit cache: %s\n", ak_last_error()); rc = 1; }
        else {
            ak_cache_disk_usage_get(ctx, &after);
            printf("removed %llu entries, %llu bytes (%.1f MiB) from %s", before.entries - after.entries,
                   before.bytes - after.bytes, (double)(before.bytes - after.bytes) / 1048576.0,
                   ak_cache_stats_get(ctx, &s) == AK_OK ? s.dir : "the cache directory");
            if (after.entries) printf("; %llu entries could not be removed", after.entries);
            printf("\n");
        }
    }
    ak_context_destroy(ctx);
    return rc;
}

/* mkdir -p; 0 when dir exists (as a directory) afterwards, else errno is set. */
static int make_dirs(const char* dir) {
    char p[1024];
    size_t i, n = strlen(dir);
    struct stat st;
    if (n == 0 || n >= sizeof p) { errno = ENAMETOOLONG; return -1; }
    memcpy(p, dir, n + 1);
    for (i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != 0) continue;
        p[i] = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
        p[i] = i < n ? '/' : 0;
    }
    if (stat(dir, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) { errno = ENOTDIR; return -1; }
    return 0;
}

static int cmd_kernels(int argc, char** argv) {
    const char* dir = NULL;
    int i;
    for (i = 0; i < argc; i++) {
        if (is_help(argv[i])) return command_help("kernels");
        if (!strcmp(argv[i], "--dump") && i + 1 < argc) dir = argv[++i];
        else if (!strcmp(argv[i], "--dump")) { fprintf(stderr, "amdkit kernels: --dump needs a directory\n"); return 2; }
        else if (argv[i][0] == '-') return unknown_option("kernels", argv[i]);
        else { fprintf(stderr, "amdkit kernels: unexpected argument '%s' (see amdkit kernels --help)\n", argv[i]); return 2; }
    }
    if (dir && make_dirs(dir) != 0) {
        fprintf(stderr, "amdkit kernels: cannot create directory %s: %s\n", dir, strerror(errno));
        return 1;
    }
    for (i = 0; i < ak_embedded_count(); i++) {
        const char *family, *source, *names;
        if (ak_embedded_at(i, &family, &source, &names) != AK_OK) return 1;
        printf("%-12s %s\n", family, names);
        if (dir) {
            char path[1024];
            FILE* f;
            snprintf(path, sizeof path, "%s/%s.hip", dir, family);
            f = fopen(path, "w");
            if (!f) { fprintf(stderr, "amdkit kernels: cannot write %s: %s\n", path, strerror(errno)); return 1; }
            fprintf(f, "%s\n#line 1 \"%s.hip\"\n%s", ak_prelude_source(), family, source);
            fclose(f);
        }
    }
    return 0;
}

int amdkit_demo(int argc, char** argv);
int amdkit_run_main(const char* mode, int argc, char** argv); /* amdkit_run.c */

int main(int argc, char** argv) {
    if (argc < 2) { usage(stderr); return 2; }
    if (is_help(argv[1]) || !strcmp(argv[1], "help")) { usage(stdout); return 0; }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
        printf("amdkit %s\n", AK_VERSION_STRING);
        return 0;
    }
    if (!strcmp(argv[1], "info")) return cmd_info(argc - 2, argv + 2);
    if (!strcmp(argv[1], "arch")) return cmd_arch(argc - 2, argv + 2);
    if (!strcmp(argv[1], "compile")) return cmd_compile(argc - 2, argv + 2);
    if (!strcmp(argv[1], "cache")) return cmd_cache(argc - 2, argv + 2);
    if (!strcmp(argv[1], "kernels")) return cmd_kernels(argc - 2, argv + 2);
    if (!strcmp(argv[1], "demo")) {
        if (argc > 2) return is_help(argv[2]) ? command_help("demo") : unknown_option("demo", argv[2]);
        return amdkit_demo(argc - 2, argv + 2);
    }
    if (!strcmp(argv[1], "run") || !strcmp(argv[1], "bench") || !strcmp(argv[1], "tune"))
        return amdkit_run_main(argv[1], argc - 2, argv + 2);
    fprintf(stderr, "amdkit: unknown command '%s' (commands: info, arch, compile, cache, kernels, demo, run, bench, tune; "
                    "see amdkit --help)\n", argv[1]);
    return 2;
}
