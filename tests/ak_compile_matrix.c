/* ak_compile_matrix - compile every embedded kernel family for a list of
 * targets through amdkit's own ak_compile_offline (hipRTC / NVRTC, whatever
 * the loader finds), write each code object to DIR/<family>.<target>.co and
 * print a family x target table (ok / size / compile time).
 *
 *   ak_compile_matrix --out DIR [--arch amd|T1,T2,...] [--family F1,F2,...]
 *                     [--require T1,T2,...] [--jobs N] [-DNAME=V ...]
 *
 * --arch amd (the default): every AMD row of the architecture table; a row
 *   the loaded compiler cannot build (ak_compile_target_check) is shown as
 *   "n/a" with the reason, and is a failure only when it is in --require.
 * --jobs N: N worker processes (hipRTC serializes compiles inside one
 *   process), cells dealt round-robin.
 * Also writes DIR/targets.txt ("<target> <wave size>" per built target) and
 * DIR/families.txt ("<family> <kernel names...>"), what tests/isa_check.sh
 * reads. Exit 0 when every required cell (and every non-n/a cell) is ok.
 * Used by tests/check_rocm64.sh inside the ROCm 6.4 chroot. */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXT 64
#define MAXF 64

static int in_list(const char* list, const char* name) {
    size_t n = strlen(name);
    const char* p = list;
    while (p && *p) {
        const char* c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

static const char* fn_name(int i) {
    const char *fn = "?", *src, *names;
    ak_embedded_at(i, &fn, &src, &names);
    return fn;
}

typedef struct cell { char status[8]; size_t size; double ms; char msg[3000]; } cell;

int main(int argc, char** argv) {
    const char* out = NULL;
    const char* archs = "amd";
    const char* families = NULL;
    const char* require = "";
    const char* defs[32];
    int ndefs = 0, jobs = 1, i, j, k;
    const char* tgt[MAXT];
    char tgtbuf[MAXT][64];
    int nt = 0, fam[MAXF], nf = 0, failures = 0;
    cell* cells;
    char path[1024];
    FILE* f;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--arch") && i + 1 < argc) archs = argv[++i];
        else if (!strcmp(argv[i], "--family") && i + 1 < argc) families = argv[++i];
        else if (!strcmp(argv[i], "--require") && i + 1 < argc) require = argv[++i];
        else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) jobs = atoi(argv[++i]);
        else if (!strncmp(argv[i], "-D", 2) || !strncmp(argv[i], "-U", 2)) { if (ndefs < 32) defs[ndefs++] = argv[i]; }
        else { fprintf(stderr, "ak_compile_matrix: unknown argument '%s'\n", argv[i]); return 2; }
    }
    if (!out || jobs < 1 || jobs > 64) { fprintf(stderr, "usage: ak_compile_matrix --out DIR [--arch amd|LIST] [--family LIST] [--require LIST] [--jobs N] [-D...]\n"); return 2; }
    if (!strcmp(archs, "amd")) {
        for (i = 0; i < ak_arch_count() && nt < MAXT; i++)
            if (ak_arch_at(i)->vendor == AK_VENDOR_AMD) tgt[nt++] = ak_arch_at(i)->name;
    } else {
        const char* p = archs;
        while (*p && nt < MAXT) {
            size_t len = strcspn(p, ",");
            if (len > 0 && len < sizeof tgtbuf[0]) { memcpy(tgtbuf[nt], p, len); tgtbuf[nt][len] = 0; tgt[nt] = tgtbuf[nt]; nt++; }
            p += len;
            if (*p == ',') p++;
        }
    }
    for (i = 0; i < ak_embedded_count() && nf < MAXF; i++) {
        const char *fn = "?", *src = "", *names = "";
        if (ak_embedded_at(i, &fn, &src, &names) == AK_OK && (!families || in_list(families, fn))) fam[nf++] = i;
    }
    if (!nt || !nf) { fprintf(stderr, "ak_compile_matrix: no targets or no families selected\n"); return 2; }
    mkdir(out, 0755); /* may exist */
    cells = (cell*)calloc((size_t)(nt * nf), sizeof *cells);
    if (!cells) return 2;

    /* Workers: cell c = fi * nt + ti goes to worker c % jobs; each writes one
     * line per cell to DIR/.cells.<worker>. Fork before any GPU library is
     * loaded (the parent never loads one). */
    for (k = 0; k < jobs; k++) {
        pid_t pid = jobs == 1 ? 0 : fork();
        if (pid < 0) { perror("fork"); return 2; }
        if (pid == 0) {
            ak_config cfg = ak_config_default();
            ak_context* ctx = NULL;
            ak_compile_options co;
            FILE* cf;
            int c;
            snprintf(path, sizeof path, "%s/.cells.%d", out, k);
            cf = fopen(path, "w");
            if (!cf) { fprintf(stderr, "ak_compile_matrix: cannot write %s\n", path); _exit(2); }
            cfg.backend = AK_BACKEND_CPU; /* offline: no device */
            cfg.log_level = AK_LOG_NONE;
            if (ak_context_create(&cfg, &ctx) != AK_OK) { fprintf(stderr, "ak_compile_matrix: %s\n", ak_last_error()); _exit(2); }
            memset(&co, 0, sizeof co);
            co.opt_level = AK_OPT_AUTO;
            co.no_cache = 1; /* measure real compiles */
            co.options = defs;
            co.num_options = ndefs;
            for (c = k; c < nt * nf; c += jobs) {
                const char *fn = "?", *src = "", *names = "";
                char kname[256], status[8] = "ok", msg[3000] = "";
                size_t size = 0;
                double ms = 0;
                ak_code_object obj;
                ak_result r;
                int fi = c / nt, ti = c % nt;
                ak_embedded_at(fam[fi], &fn, &src, &names);
                snprintf(kname, sizeof kname, "%.*s", (int)strcspn(names, " "), names);
                co.source_name = fn;
                r = ak_compile_target_check(ctx, tgt[ti]);
                if (r == AK_ERROR_UNSUPPORTED_TARGET) {
                    snprintf(status, sizeof status, "n/a");
                    snprintf(msg, sizeof msg, "%s", ak_last_error());
                } else if (r != AK_OK) {
                    snprintf(status, sizeof status, "FAIL");
                    snprintf(msg, sizeof msg, "%s: %s", ak_result_name(r), ak_last_error());
                } else if ((r = ak_compile_offline(ctx, tgt[ti], src, kname, &co, &obj)) != AK_OK) {
                    snprintf(status, sizeof status, "FAIL");
                    snprintf(msg, sizeof msg, "%s: %s", ak_result_name(r), ak_last_error());
                } else {
                    FILE* of;
                    size = obj.size;
                    ms = obj.compile_ms;
                    snprintf(path, sizeof path, "%s/%s.%s.co", out, fn, tgt[ti]);
                    of = fopen(path, "wb");
                    if (!of || fwrite(obj.data, 1, obj.size, of) != obj.size) {
                        snprintf(status, sizeof status, "FAIL");
                        snprintf(msg, sizeof msg, "cannot write %s", path);
                    }
                    if (of) fclose(of);
                    ak_code_object_free(&obj);
                }
                for (j = 0; msg[j]; j++) if (msg[j] == '\n' || msg[j] == '\t') msg[j] = ' ';
                fprintf(cf, "%d\t%s\t%zu\t%.1f\t%s\n", c, status, size, ms, msg);
                fflush(cf);
            }
            fclose(cf);
            ak_context_destroy(ctx);
            if (jobs == 1) break;
            _exit(0);
        }
    }
    if (jobs > 1) {
        int st;
        while (wait(&st) > 0) {}
    }
    for (k = 0; k < jobs; k++) {
        char line[4096];
        snprintf(path, sizeof path, "%s/.cells.%d", out, k);
        f = fopen(path, "r");
        if (!f) continue;
        while (fgets(line, sizeof line, f)) {
            int c = atoi(line);
            char* p = strchr(line, '\t');
            cell* x;
            if (c < 0 || c >= nt * nf || !p) continue;
            x = &cells[c];
            if (sscanf(p + 1, "%7s\t%zu\t%lf", x->status, &x->size, &x->ms) != 3) continue;
            p = strchr(p + 1, '\t'); p = p ? strchr(p + 1, '\t') : NULL; p = p ? strchr(p + 1, '\t') : NULL;
            if (p) { snprintf(x->msg, sizeof x->msg, "%s", p + 1); x->msg[strcspn(x->msg, "\n")] = 0; }
        }
        fclose(f);
        remove(path);
    }
    /* the table: rows = families, columns = targets; cell "ok 118K 1.4s" */
    printf("%-12s", "family");
    for (i = 0; i < nt; i++) printf(" %-13s", tgt[i]);
    printf("\n");
    for (j = 0; j < nf; j++) {
        const char *fn = "?", *src = "", *names = "";
        ak_embedded_at(fam[j], &fn, &src, &names);
        printf("%-12s", fn);
        for (i = 0; i < nt; i++) {
            cell* x = &cells[j * nt + i];
            char b[32];
            if (!x->status[0]) snprintf(b, sizeof b, "LOST");
            else if (!strcmp(x->status, "ok")) snprintf(b, sizeof b, "ok %zuK %.1fs", (x->size + 512) / 1024, x->ms / 1000.0);
            else snprintf(b, sizeof b, "%s", x->status);
            printf(" %-13s", b);
        }
        printf("\n");
    }
    /* failures and n/a reasons (one per target) */
    snprintf(path, sizeof path, "%s/targets.txt", out);
    f = fopen(path, "w");
    for (i = 0; i < nt; i++) {
        int built = 0;
        const ak_arch_info* a = NULL;
        for (j = 0; j < nf; j++) {
            cell* x = &cells[j * nt + i];
            int required = in_list(require, tgt[i]);
            if (!strcmp(x->status, "ok")) { built = 1; continue; }
            if (!strcmp(x->status, "n/a") && !required) { if (j == 0) printf("n/a %s: %s\n", tgt[i], x->msg); continue; }
            failures++;
            printf("FAIL %s %s: %s\n", tgt[i], fn_name(fam[j]), x->status[0] ? x->msg : "worker lost");
        }
        if (built && f && ak_arch_find(tgt[i], &a) == AK_OK) fprintf(f, "%s %d\n", tgt[i], a->wave_size);
    }
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/families.txt", out);
    f = fopen(path, "w");
    for (j = 0; f && j < nf; j++) {
        const char *fn = "?", *src = "", *names = "";
        ak_embedded_at(fam[j], &fn, &src, &names);
        fprintf(f, "%s %s\n", fn, names);
    }
    if (f) fclose(f);
    free(cells);
    printf("%d cells, %d failed\n", nt * nf, failures);
    return failures ? 1 : 0;
}
