/* amdkit - command-line tool over amdkit.h.
 *   amdkit info [--json]                 backend choice with reasons, device, architecture row
 *   amdkit arch [NAME] [--json]          the architecture table, or one row
 *   amdkit compile FILE.hip --kernel NAME --arch T1,T2,... [-D...] [--opt LEVEL] [--no-cache]
 *                                        compile offline for each target (exit 1 on any failure)
 *   amdkit cache stats|purge|path        the compile cache
 *   amdkit kernels [--dump DIR]          list the embedded kernel families; --dump writes each as
 *                                        DIR/<family>.hip with the prelude in front (for other compilers)
 *   amdkit demo                          run a few library kernels on this machine and check them
 */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void) {
    fprintf(stderr,
            "usage: amdkit info [--json]\n"
            "       amdkit arch [NAME] [--json]\n"
            "       amdkit compile FILE.hip --kernel NAME --arch gfx90a,gfx1030,sm_90[,...] [-DNAME=V ...] [--opt LEVEL] [--no-cache]\n"
            "       amdkit cache stats|purge|path\n"
            "       amdkit kernels [--dump DIR]\n"
            "       amdkit demo\n");
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
        if (!strcmp(argv[i], "--json")) json = 1;
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

static int cmd_info(int argc, char** argv) {
    int i, json = 0, n = 0;
    ak_context* ctx = NULL;
    ak_result r;
    const ak_device_info* d;
    const ak_backend_report* rep;
    const ak_config* cfg;
    char val[512];
    for (i = 0; i < argc; i++) if (!strcmp(argv[i], "--json")) json = 1;
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
        printf("},\"config\":{");
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
                   rep[i].selected ? "selected" : rep[i].tried ? "skipped" : "not tried", rep[i].reason);
        printf("device %d of %d: %s\n", d->device, d->device_count, d->name);
        printf("  arch            %s%s%s\n", d->arch, d->arch_info ? "  " : "", d->arch_info ? d->arch_info->family_name : "");
        printf("  compute units   %d\n", d->compute_units);
        printf("  wave size       %d\n", d->wave_size);
        printf("  shared/block    %zu bytes\n", d->shared_mem_per_block);
        printf("  L2              %.1f MiB\n", d->l2_bytes / 1048576.0);
        printf("  memory          %.2f GiB total, %.2f GiB free\n", d->mem_total / 1073741824.0, d->mem_free / 1073741824.0);
        if (d->clock_khz) printf("  clocks          %d MHz core, %d MHz memory, %d-bit bus\n", d->clock_khz / 1000, d->memory_clock_khz / 1000, d->memory_bus_width);
        if (d->backend != AK_BACKEND_CPU) {
            printf("  runtime         %d (driver %d) %s\n", d->runtime_version, d->driver_version, d->runtime_library);
            printf("  compiler        %s %s\n", d->compiler_version, d->compiler_library);
        }
        printf("  fp16 / bf16     %s / %s (probed)\n", d->fp16 > 0 ? "yes" : d->fp16 == 0 ? "no" : "?", d->bf16 > 0 ? "yes" : d->bf16 == 0 ? "no" : "?");
        if (d->visible_devices[0]) printf("  visible         %s\n", d->visible_devices);
        printf("config (field, value, environment variable):\n");
        for (i = 0; i < ak_config_field_count(); i++) {
            ak_config_field_value(cfg, i, val, sizeof val);
            printf("  %-20s %-16s %s\n", ak_config_field_at(i)->name, val, ak_config_field_at(i)->env);
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

static int cmd_compile(int argc, char** argv) {
    const char* file = NULL;
    const char* kernel = NULL;
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
        if (!strcmp(argv[i], "--kernel") && i + 1 < argc) kernel = argv[++i];
        else if (!strcmp(argv[i], "--arch") && i + 1 < argc) archs = argv[++i];
        else if (!strcmp(argv[i], "--opt") && i + 1 < argc) {
            if (ak_opt_level_parse(argv[++i], &co.opt_level) != AK_OK) { fprintf(stderr, "amdkit compile: %s\n", ak_last_error()); return 2; }
        } else if (!strcmp(argv[i], "--no-cache")) co.no_cache = 1;
        else if ((!strncmp(argv[i], "-D", 2) || !strncmp(argv[i], "-I", 2)) && nopts < 64) opts[nopts++] = argv[i];
        else if (argv[i][0] != '-' && !file) file = argv[i];
        else { fprintf(stderr, "amdkit compile: unknown argument '%s'\n", argv[i]); usage(); return 2; }
    }
    if (!file || !kernel || !archs) { usage(); return 2; }
    src = read_file(file);
    if (!src) { fprintf(stderr, "amdkit compile: cannot read %s\n", file); return 2; }
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
            ak_code_object_free(&co_out);
        } else {
            const ak_error_info* e = ak_last_error_info();
            failures++;
            printf("%-10s error  %s: %s\n", t, ak_result_name(r), e->message);
            if (e->log[0]) printf("%s\n", e->log);
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
    if (argc < 1) { usage(); return 2; }
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
        if (ak_cache_stats_get(ctx, &s) == AK_OK) {
            printf("dir          %s (%s)\n", s.dir, s.disk_enabled ? "enabled" : "memory-only");
            printf("capacity     %d memory entries\n", s.capacity);
            printf("this process %llu compilations, %llu memory hits, %llu disk hits, %llu misses, %llu evictions\n",
                   s.compilations, s.memory_hits, s.disk_hits, s.misses, s.evictions);
        } else { fprintf(stderr, "amdkit cache: %s\n", ak_last_error()); rc = 1; }
    } else if (!strcmp(argv[0], "purge")) {
        if (ak_cache_purge(ctx) != AK_OK) { fprintf(stderr, "amdkit cache: %s\n", ak_last_error()); rc = 1; }
        else printf("purged\n");
    } else { usage(); rc = 2; }
    ak_context_destroy(ctx);
    return rc;
}

static int cmd_kernels(int argc, char** argv) {
    const char* dir = NULL;
    int i;
    for (i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--dump") && i + 1 < argc) dir = argv[++i];
        else { usage(); return 2; }
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
            if (!f) { fprintf(stderr, "amdkit kernels: cannot write %s\n", path); return 1; }
            fprintf(f, "%s\n#line 1 \"%s.hip\"\n%s", ak_prelude_source(), family, source);
            fclose(f);
        }
    }
    return 0;
}

int amdkit_demo(int argc, char** argv);

int main(int argc, char** argv) {
    if (argc < 2) { usage(); return 2; }
    if (!strcmp(argv[1], "info")) return cmd_info(argc - 2, argv + 2);
    if (!strcmp(argv[1], "arch")) return cmd_arch(argc - 2, argv + 2);
    if (!strcmp(argv[1], "compile")) return cmd_compile(argc - 2, argv + 2);
    if (!strcmp(argv[1], "cache")) return cmd_cache(argc - 2, argv + 2);
    if (!strcmp(argv[1], "kernels")) return cmd_kernels(argc - 2, argv + 2);
    if (!strcmp(argv[1], "demo")) return amdkit_demo(argc - 2, argv + 2);
    usage();
    return 2;
}
