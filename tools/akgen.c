/* akgen - embed the kernel sources (kernels/<family>.hip) into amdkit.h.
 *
 *   akgen HEADER KERNELS_DIR      rewrite the block between the marker lines
 *                                 `//>#akgen` and `//<#akgen` of HEADER
 *   (make gen runs it on amdkit.h; make gen-check runs it on a copy and
 *    fails when the copy differs from amdkit.h)
 *
 * What it writes, between the markers:
 *   - `static const char _ak_src_<family>[] =` with one string literal per
 *     source line (the readable source right there), for kernels/prelude.hip
 *     (`_ak_src_prelude`, not a family) and every other kernels/<name>.hip in
 *     name order;
 *   - `static const struct { const char* family; const char* source;
 *     const char* kernels; } _ak_embedded[]`, one row per family, where
 *     `kernels` lists the extern "C" kernel names of that file, separated by
 *     spaces.
 *
 * Kernel names come from lines of the form `AK_KERNEL void <name>(` (leading
 * blanks and attributes such as __launch_bounds__(...) before the name
 * allowed; lines of a macro body, ending in a backslash, are skipped) and
 * from comment lines `// kernels: <name> <name> ...` (for kernels a macro
 * instantiates). Checks, each an error with file and line: no `#include` in
 * a kernel source; ASCII only; a family name that is a C identifier; at least
 * one kernel per family; no kernel name defined twice; a source of at most
 * 65535 bytes (the longest string literal MSVC accepts after concatenation).
 *
 * Plain C99, no dependencies: cc -O2 tools/akgen.c -o build/akgen */
#if !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <dirent.h>

#define BEGIN_MARK "//>#akgen"
#define END_MARK "//<#akgen"
#define MAX_SOURCE 65535

typedef struct buf { char* p; size_t len, cap; } buf;

static void die(const char* fmt, const char* a, const char* b) {
    fprintf(stderr, "akgen: ");
    fprintf(stderr, fmt, a ? a : "", b ? b : "");
    fprintf(stderr, "\n");
    exit(1);
}

static void put(buf* b, const char* s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->len + n + 1) nc *= 2;
        b->p = (char*)realloc(b->p, nc);
        if (!b->p) die("out of memory%s%s", NULL, NULL);
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}
static void puts_(buf* b, const char* s) { put(b, s, strlen(s)); }

static char* slurp(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    buf b = { NULL, 0, 0 };
    char tmp[65536];
    size_t n;
    if (!f) die("cannot open %s%s", path, NULL);
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) put(&b, tmp, n);
    fclose(f);
    if (!b.p) put(&b, "", 0);
    *len = b.len;
    return b.p;
}

static int is_ident_start(int c) { return isalpha(c) || c == '_'; }
static int is_ident(int c) { return isalnum(c) || c == '_'; }

/* kernel names of one file, space separated */
typedef struct names { buf list; int count; } names;

static int names_has(const names* ns, const char* name) {
    const char* p = ns->list.p;
    size_t n = strlen(name);
    while (p && *p) {
        const char* e = strchr(p, ' ');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !memcmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static names all_ns; /* every kernel name seen so far, for duplicates */

static void add_name(names* ns, const char* name, size_t n, const char* file, int line) {
    char tmp[256], where[600];
    if (n == 0 || n >= sizeof tmp) return;
    memcpy(tmp, name, n);
    tmp[n] = 0;
    if (names_has(ns, tmp)) return; /* listed twice in one file: once is enough */
    if (names_has(&all_ns, tmp)) {
        snprintf(where, sizeof where, "%s:%d", file, line);
        die("%s: kernel %s is defined in another file too", where, tmp);
    }
    if (ns->list.len) puts_(&ns->list, " ");
    puts_(&ns->list, tmp);
    ns->count++;
    if (all_ns.list.len) puts_(&all_ns.list, " ");
    puts_(&all_ns.list, tmp);
    all_ns.count++;
}

/* Scan one line for `AK_KERNEL void name(` or `// kernels: a b c`. */
static void scan_line(const char* s, size_t n, names* ns, const char* file, int line) {
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (n - i >= 11 && !memcmp(s + i, "// kernels:", 11)) {
        i += 11;
        while (i < n) {
            size_t st;
            while (i < n && !is_ident_start((unsigned char)s[i])) i++;
            st = i;
            while (i < n && is_ident((unsigned char)s[i])) i++;
            if (i > st) add_name(ns, s + st, i - st, file, line);
        }
        return;
    }
    if (n - i >= 9 && !memcmp(s + i, "AK_KERNEL", 9) && (n - i == 9 || !is_ident((unsigned char)s[i + 9]))) {
        size_t st, e = n;
        while (e > i && isspace((unsigned char)s[e - 1])) e--;
        if (e > i && s[e - 1] == '\\') return; /* inside a macro body: list it in `// kernels:` */
        i += 9;
        while (i < n && isspace((unsigned char)s[i])) i++;
        if (n - i < 4 || memcmp(s + i, "void", 4) || (n - i > 4 && is_ident((unsigned char)s[i + 4]))) return;
        i += 4;
        for (;;) {
            while (i < n && isspace((unsigned char)s[i])) i++;
            st = i;
            while (i < n && is_ident((unsigned char)s[i])) i++;
            if (i == st) return;
            /* skip attributes such as __launch_bounds__(256, 1) */
            if ((i - st == 17 && !memcmp(s + st, "__launch_bounds__", 17)) ||
                (i - st == 13 && !memcmp(s + st, "__attribute__", 13))) {
                int depth = 0;
                while (i < n && isspace((unsigned char)s[i])) i++;
                if (i >= n || s[i] != '(') return;
                for (; i < n; i++) {
                    if (s[i] == '(') depth++;
                    else if (s[i] == ')' && --depth == 0) { i++; break; }
                }
                continue;
            }
            break;
        }
        {
            size_t j = i;
            while (j < n && isspace((unsigned char)s[j])) j++;
            if (j < n && s[j] == '(') add_name(ns, s + st, i - st, file, line);
        }
    }
}

/* Append one source as `static const char NAME[] =` + a literal per line. */
static void emit_source(buf* out, const char* var, const char* src, size_t len, const char* file, names* ns) {
    size_t i = 0;
    int line = 1;
    char where[600];
    if (len > MAX_SOURCE) die("%s is larger than 65535 bytes%s: split the family", file, NULL);
    puts_(out, "static const char ");
    puts_(out, var);
    puts_(out, "[] =\n");
    if (len == 0) puts_(out, "    \"\"\n");
    while (i < len) {
        size_t st = i, e, k;
        while (i < len && src[i] != '\n') i++;
        e = i;
        if (i < len) i++; /* the newline */
        if (e > st && src[e - 1] == '\r') die("%s has CR line endings%s", file, NULL);
        {
            size_t a = st;
            while (a < e && (src[a] == ' ' || src[a] == '\t')) a++;
            if (e - a >= 8 && src[a] == '#') {
                size_t b = a + 1;
                while (b < e && (src[b] == ' ' || src[b] == '\t')) b++;
                if (e - b >= 7 && !memcmp(src + b, "include", 7)) {
                    snprintf(where, sizeof where, "%s:%d", file, line);
                    die("%s: #include is not allowed in kernel sources%s (the prelude provides everything)", where, NULL);
                }
            }
        }
        if (ns) scan_line(src + st, e - st, ns, file, line);
        puts_(out, "    \"");
        for (k = st; k < e; k++) {
            unsigned char c = (unsigned char)src[k];
            if (c == '\\') puts_(out, "\\\\");
            else if (c == '"') puts_(out, "\\\"");
            else if (c == '\t') puts_(out, "\\t");
            else if (c == '?' && k + 1 < e && src[k + 1] == '?') puts_(out, "?\\"); /* no trigraphs */
            else if (c < 32 || c > 126) {
                snprintf(where, sizeof where, "%s:%d", file, line);
                die("%s: non-ASCII or control byte%s", where, NULL);
            } else put(out, (const char*)&c, 1);
        }
        puts_(out, "\\n\"\n");
        line++;
    }
    puts_(out, "    ;\n");
}

static int cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

int main(int argc, char** argv) {
    const char *header, *dir;
    char *text, *begin, *end, **files = NULL;
    size_t text_len, nfiles = 0, i;
    buf out = { NULL, 0, 0 }, table = { NULL, 0, 0 }, result = { NULL, 0, 0 };
    DIR* d;
    struct dirent* de;
    char path[4096];

    if (argc != 3) {
        fprintf(stderr, "usage: akgen HEADER KERNELS_DIR\n");
        return 2;
    }
    header = argv[1];
    dir = argv[2];
    text = slurp(header, &text_len);
    begin = strstr(text, "\n" BEGIN_MARK "\n");
    end = strstr(text, "\n" END_MARK "\n");
    if (!begin || !end || end < begin) die("%s: marker lines %s missing or out of order", header, BEGIN_MARK " / " END_MARK);
    begin += 1 + strlen(BEGIN_MARK) + 1; /* first byte after the begin marker line */
    end += 1;                            /* start of the end marker line */
    if (strstr(end + strlen(END_MARK), "\n" BEGIN_MARK "\n")) die("%s: more than one %s block", header, BEGIN_MARK);

    d = opendir(dir);
    if (!d) die("cannot open directory %s%s", dir, NULL);
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n > 4 && !strcmp(de->d_name + n - 4, ".hip") && strcmp(de->d_name, "prelude.hip")) {
            files = (char**)realloc(files, (nfiles + 1) * sizeof *files);
            if (!files) die("out of memory%s%s", NULL, NULL);
            files[nfiles] = (char*)malloc(n + 1);
            if (!files[nfiles]) die("out of memory%s%s", NULL, NULL);
            memcpy(files[nfiles], de->d_name, n + 1);
            nfiles++;
        }
    }
    closedir(d);
    if (nfiles) qsort(files, nfiles, sizeof *files, cmp_str);

    puts_(&out, "/* Generated by `make gen` (tools/akgen.c) from the files in kernels/ -- do not edit;\n"
                " * edit kernels/<family>.hip and run `make gen`. One string literal per source line. */\n"
                "#if defined(__GNUC__) || defined(__clang__)\n"
                "#pragma GCC diagnostic push\n"
                "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
                "#endif\n");
    {
        size_t len;
        char* src;
        snprintf(path, sizeof path, "%s/prelude.hip", dir);
        src = slurp(path, &len);
        puts_(&out, "\n/* kernels/prelude.hip: prepended to every kernel source by the compiler wrapper */\n");
        emit_source(&out, "_ak_src_prelude", src, len, path, NULL);
        free(src);
    }
    puts_(&out, "\n#ifndef AMDKIT_NO_OPS   /* the kernel library's sources */\n");
    puts_(&table, "\nstatic const struct { const char* family; const char* source; const char* kernels; } _ak_embedded[] = {\n");
    for (i = 0; i < nfiles; i++) {
        size_t len, fl = strlen(files[i]) - 4, k;
        char fam[256], var[300];
        char* src;
        names ns;
        memset(&ns, 0, sizeof ns);
        if (fl == 0 || fl >= sizeof fam) die("bad file name %s%s", files[i], NULL);
        memcpy(fam, files[i], fl);
        fam[fl] = 0;
        for (k = 0; k < fl; k++)
            if (!(k == 0 ? is_ident_start((unsigned char)fam[k]) : is_ident((unsigned char)fam[k])))
                die("kernels/%s: the family name must be a C identifier%s", files[i], NULL);
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        snprintf(var, sizeof var, "_ak_src_%s", fam);
        src = slurp(path, &len);
        puts_(&out, "\n/* kernels/");
        puts_(&out, files[i]);
        puts_(&out, " */\n");
        emit_source(&out, var, src, len, path, &ns);
        free(src);
        if (ns.count == 0)
            die("%s: no kernel found (define kernels as `AK_KERNEL void ak_name(` or list them in `// kernels: ...`)%s",
                path, NULL);
        puts_(&table, "    { \"");
        puts_(&table, fam);
        puts_(&table, "\", ");
        puts_(&table, var);
        puts_(&table, ",\n      \"");
        puts_(&table, ns.list.p);
        puts_(&table, "\" },\n");
        free(ns.list.p);
    }
    if (nfiles == 0) die("no kernel family in %s%s", dir, NULL);
    puts_(&table, "};\n");
    put(&out, table.p, table.len);
    puts_(&out, "#endif /* AMDKIT_NO_OPS */\n");
    puts_(&out, "#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC diagnostic pop\n#endif\n");

    put(&result, text, (size_t)(begin - text));
    put(&result, out.p, out.len);
    put(&result, end, text_len - (size_t)(end - text));
    if (result.len != text_len || memcmp(result.p, text, text_len)) {
        FILE* f;
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.akgen.tmp", header);
        f = fopen(tmp, "wb");
        if (!f) die("cannot write %s%s", tmp, NULL);
        if (fwrite(result.p, 1, result.len, f) != result.len || fclose(f) != 0) die("cannot write %s%s", tmp, NULL);
        if (rename(tmp, header) != 0) die("cannot replace %s%s", header, NULL);
        printf("akgen: %s updated (%d kernels in %d families)\n", header, all_ns.count, (int)nfiles);
    } else {
        printf("akgen: %s up to date (%d kernels in %d families)\n", header, all_ns.count, (int)nfiles);
    }
    for (i = 0; i < nfiles; i++) free(files[i]);
    free(files);
    free(text); free(out.p); free(table.p); free(result.p); free(all_ns.list.p);
    return 0;
}
