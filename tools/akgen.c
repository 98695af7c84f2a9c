/* akgen - embed the kernel sources (kernels/<family>.hip) into amdkit.h and
 * generate the kernels' interfaces (typed argument packers) from them.
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
 *     spaces;
 *   - the kernel interfaces: for each kernel definition site, its parameter
 *     list read from the source and normalised (any pointer -> `const void*`
 *     when its pointee is const, else `void*`; ak_i64 / int64_t / long long ->
 *     int64_t; int / int32_t -> int32_t; unsigned / uint32_t -> uint32_t;
 *     ak_u64 / uint64_t -> uint64_t; float; double; ak_tmap (a 128-byte tensor
 *     map by value, __grid_constant__) -> const _ak_tmap*, packed with
 *     ak_args_bytes; anything else is an error
 *     naming file:line). Each interface has a stem: for a plain definition the
 *     kernel's name without `ak_` and trailing dtype suffixes (_f32 _f16
 *     _bf16 _x32: ak_cast_f32_f16 -> cast); for a definition inside a macro the
 *     literal text before the first `##` (ak_norm_##DT -> norm), or the
 *     macro's name without AK_, in lower case, when the name is a macro
 *     parameter (AK_REDUCE1(NAME, ...) -> reduce1). Kernels of one stem must
 *     share one list (else an error). Emitted: `_ak_kargs` (an ak_args and
 *     the interface id), `_AK_KIF_<stem>` ids and `_ak_kernel_interface_names`, one packer
 *     `static inline void _ak_kargs_<stem>(_ak_kargs*, <typed parameters>)`
 *     per distinct list (a stem whose list another stem has already is a
 *     #define of that packer and id: no generated twins), and
 *     `_ak_kernel_ifaces[]`, every kernel's interface. The ops of amdkit.h
 *     pack with these only; _ak_op_launch3 refuses a kernel launched with
 *     another interface's packer (tests/ti_kargs.c walks every op).
 *
 * Kernel names come from lines of the form `AK_KERNEL void <name>(` (leading
 * blanks and attributes such as __launch_bounds__(...) before the name
 * allowed; lines of a macro body, ending in a backslash, are skipped), from
 * comment lines `// kernels: <name> <name> ...`, and from the definition
 * sites: `AK_KERNEL [attributes] void NAME(PARAMS)` at file level, or inside
 * the body of a function-like macro of the family file (NAME may paste macro
 * parameters: ak_softmax_##DT, NAME##HD##_##DT), named by the macro's
 * invocations at file level (`AK_NORM(f32, ak_f32_t)` -> ak_norm_f32), also
 * through another macro of the family that invokes it (AK_ATTN_SIMT_DTYPES(64)
 * -> AK_ATTN_SIMT(64, f32, ..) ...). PARAMS
 * may be a call of a function-like macro of the family file or the prelude
 * (NAME(AK_GEMM_PARAMS_T(DT))): it is expanded. Checks, each an error with
 * file and line: no `#include` in a kernel source; ASCII only; a family name
 * that is a C identifier; at least one kernel per family; no kernel name
 * defined twice; every listed kernel has an interface (a definition akgen can
 * read); a source of at most 65535 bytes (the longest string literal MSVC
 * accepts after concatenation). tests/akgen_check.sh tests the refusals.
 *
 * Adding a kernel: write it in kernels/<family>.hip as `AK_KERNEL void
 * ak_<name>_<dt>(...)` (or in a macro, listed in `// kernels:`), run `make
 * gen`, and launch it from its op with _ak_op_kernel + _ak_kargs_<stem> +
 * _ak_op_launch (or _ak_rowop_launch_rows for row-chunked ops); see amdkit.h
 * >>impl:ops.
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
#include <stdarg.h>

#define BEGIN_MARK "//>#akgen"   /* followed by " prelude" or " library" */
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
static void putf(buf* b, const char* fmt, ...) {
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    puts_(b, tmp);
}

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

/* ---- kernel interfaces: parameter lists from the kernel definitions ------
 * A definition site is `AK_KERNEL [attributes] void NAME(PARAMS)` at file
 * level (the name a plain identifier) or inside the body of a function-like
 * macro of a family file (the name may be pasted: ak_norm_##DT,
 * NAME##HD##_##DT); PARAMS may itself be a call of a function-like macro
 * defined in kernels/ (NAME(AK_GEMM_PARAMS_T(DT))). A macro's kernels get
 * their names from its invocations at file level (`AK_NORM(f32, ak_f32_t)`). */

typedef struct tok { int kind; size_t s, e; } tok; /* kind: 'i' identifier, 'n' number, '#' for ##, ':' for ::, else the char */

/* Next token of s[*i..n), skipping blanks; 0 at the end. */
static int next_tok(const char* s, size_t n, size_t* i, tok* t) {
    size_t p = *i;
    while (p < n && isspace((unsigned char)s[p])) p++;
    if (p >= n) { *i = p; return 0; }
    t->s = p;
    if (is_ident_start((unsigned char)s[p])) { while (p < n && is_ident((unsigned char)s[p])) p++; t->kind = 'i'; }
    else if (isdigit((unsigned char)s[p])) { while (p < n && (isalnum((unsigned char)s[p]) || s[p] == '.')) p++; t->kind = 'n'; }
    else if (p + 1 < n && s[p] == '#' && s[p + 1] == '#') { p += 2; t->kind = '#'; }
    else if (p + 1 < n && s[p] == ':' && s[p + 1] == ':') { p += 2; t->kind = ':'; }
    else { t->kind = (unsigned char)s[p]; p++; }
    t->e = p;
    *i = p;
    return 1;
}
static int tok_is(const char* s, const tok* t, const char* w) {
    size_t n = strlen(w);
    return t->kind == 'i' && t->e - t->s == n && !memcmp(s + t->s, w, n);
}
/* Index just past the parenthesis that closes the one at s[open]; 0 when unbalanced. */
static size_t match_paren(const char* s, size_t n, size_t open) {
    int depth = 0;
    size_t p;
    for (p = open; p < n; p++) {
        if (s[p] == '(') depth++;
        else if (s[p] == ')' && --depth == 0) return p + 1;
    }
    return 0;
}
static char* dup_n(const char* s, size_t n) {
    char* d = (char*)malloc(n + 1);
    if (!d) die("out of memory%s%s", NULL, NULL);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}
static void fail_at(const char* file, int line, const char* msg, const char* unused) {
    (void)unused;
    fprintf(stderr, "akgen: %s:%d: %s\n", file, line, msg);
    exit(1);
}

/* A function-like macro of kernels/. */
typedef struct macro {
    char* name;
    char* params[16];
    int nparams;
    char* body;        /* continuation backslashes blanked, newlines kept */
    const char* file;
    int line;          /* of the #define */
    int family;        /* defined in a family file (not the prelude) */
} macro;
static macro macros[512];
static int nmacros;

static const char* cur_file; /* the family file being read: its macros and the prelude's are visible */
static macro* find_macro(const char* s, size_t n) {
    int i;
    for (i = 0; i < nmacros; i++)
        if ((!macros[i].family || macros[i].file == cur_file) && strlen(macros[i].name) == n && !memcmp(macros[i].name, s, n))
            return &macros[i];
    return NULL;
}
static int macro_param(const macro* m, const char* s, size_t n) {
    int i;
    for (i = 0; m && i < m->nparams; i++)
        if (strlen(m->params[i]) == n && !memcmp(m->params[i], s, n)) return i;
    return -1;
}
/* m's body with its parameters replaced by args, identifier by identifier, appended to b. */
static void subst_params(const macro* m, char* const* args, buf* b) {
    const char* body = m->body;
    size_t bn = strlen(body), q = 0, prev = 0;
    tok w;
    while (next_tok(body, bn, &q, &w)) {
        int pi = w.kind == 'i' ? macro_param(m, body + w.s, w.e - w.s) : -1;
        put(b, body + prev, w.s - prev);
        if (pi >= 0) puts_(b, args[pi]);
        else put(b, body + w.s, w.e - w.s);
        prev = w.e;
    }
    put(b, body + prev, bn - prev);
}

/* One parameter, normalised. */
typedef struct param { char type[16]; char name[64]; } param;
/* One interface: a stem and its normalised parameter list. */
typedef struct iface {
    char stem[96];
    param p[48];
    int np;
    int canon;         /* index of the interface whose function this one uses (itself when first of its list) */
    int id;            /* enum value of the canonical ones (1..) */
    char kernel[160];  /* the kernel (or name pattern) that introduced it, for messages */
    const char* file;
    int line;
} iface;
static iface ifaces[256];
static int nifaces;

/* kernel name -> interface */
typedef struct kmap { char name[160]; int iface; const char* file; int line; } kmap;
static kmap kmaps[1024];
static int nkmaps;

static const char* dt_suffix[] = { "_f32", "_f16", "_bf16", "_x32" };

/* Stem of a plain kernel name: drop ak_ and trailing dtype suffixes. */
static void plain_stem(const char* name, char* out, size_t cap) {
    size_t n, k;
    int again = 1;
    if (!strncmp(name, "ak_", 3)) name += 3;
    snprintf(out, cap, "%s", name);
    n = strlen(out);
    while (again) {
        again = 0;
        for (k = 0; k < sizeof dt_suffix / sizeof dt_suffix[0]; k++) {
            size_t l = strlen(dt_suffix[k]);
            if (n > l && !strcmp(out + n - l, dt_suffix[k])) { n -= l; out[n] = 0; again = 1; }
        }
    }
}

/* Normalise one parameter s[0..n): the C type of its packer argument. */
static void norm_param(const char* s, size_t n, const char* file, int line, const char* kernel, param* out) {
    size_t i = 0;
    tok t, last = { 0, 0, 0 };
    int ptr = 0, cnst = 0, nwords = 0;
    char words[128] = "", msg[400];
    while (next_tok(s, n, &i, &t)) {
        if (t.kind == '*') { ptr = 1; continue; }
        if (t.kind == 'i') {
            if (last.kind == 'i') { /* the previous identifier was part of the type */
                size_t l = strlen(words);
                if (tok_is(s, &last, "const")) { if (!ptr) cnst = 1; }
                else if (!(tok_is(s, &last, "AK_RESTRICT") || tok_is(s, &last, "__restrict__") || tok_is(s, &last, "volatile") ||
                           tok_is(s, &last, "typename") || tok_is(s, &last, "__restrict") || tok_is(s, &last, "AK_GRID_CONST") ||
                           tok_is(s, &last, "__grid_constant__"))) {
                    if (l + (last.e - last.s) + 2 < sizeof words) {
                        if (l && !(l >= 2 && words[l - 1] == ':' && words[l - 2] == ':')) strcat(words, " ");
                        strncat(words, s + last.s, last.e - last.s);
                    }
                    nwords++;
                }
            }
            last = t;
            continue;
        }
        if (t.kind == ':' && last.kind == 'i') { /* D::T: a qualified type name */
            size_t l = strlen(words);
            if (l + (last.e - last.s) + 3 < sizeof words) {
                if (l) strcat(words, " ");
                strncat(words, s + last.s, last.e - last.s);
                strcat(words, "::");
            }
            nwords++;
            last.kind = 0;
            continue;
        }
        snprintf(msg, sizeof msg, "kernel %s: cannot read the parameter '%.*s'", kernel, (int)n, s);
        fail_at(file, line, msg, NULL);
    }
    if (last.kind != 'i' || (!ptr && nwords == 0) || (ptr && nwords == 0 && !cnst)) {
        snprintf(msg, sizeof msg, "kernel %s: parameter '%.*s' has no name or no type", kernel, (int)n, s);
        fail_at(file, line, msg, NULL);
    }
    if (last.e - last.s >= sizeof out->name) fail_at(file, line, "parameter name too long", NULL);
    memcpy(out->name, s + last.s, last.e - last.s);
    out->name[last.e - last.s] = 0;
    if (ptr) { snprintf(out->type, sizeof out->type, "%s", cnst ? "const void*" : "void*"); return; }
    if (!strcmp(words, "ak_i64") || !strcmp(words, "int64_t") || !strcmp(words, "long long") || !strcmp(words, "long long int"))
        strcpy(out->type, "int64_t");
    else if (!strcmp(words, "int") || !strcmp(words, "int32_t")) strcpy(out->type, "int32_t");
    else if (!strcmp(words, "unsigned") || !strcmp(words, "unsigned int") || !strcmp(words, "uint32_t")) strcpy(out->type, "uint32_t");
    else if (!strcmp(words, "ak_u64") || !strcmp(words, "uint64_t") || !strcmp(words, "unsigned long long")) strcpy(out->type, "uint64_t");
    else if (!strcmp(words, "float")) strcpy(out->type, "float");
    else if (!strcmp(words, "double")) strcpy(out->type, "double");
    else if (!strcmp(words, "ak_tmap")) strcpy(out->type, "const _ak_tmap*"); /* 128 bytes by value: ak_args_bytes */
    else {
        snprintf(msg, sizeof msg,
                 "kernel %s: parameter '%s' has the type '%s', which akgen cannot pack (pointers, ak_i64/int64_t, int/int32_t, "
                 "unsigned/uint32_t, uint64_t, float, double, ak_tmap)", kernel, out->name, words);
        fail_at(file, line, msg, NULL);
    }
}

/* Split the macro arguments between s[open] == '(' and s[close - 1] == ')' at
 * top-level commas into args (at most 16); returns their count. */
static int split_args(const char* s, size_t open, size_t close, char** args, const char* file, int line) {
    size_t p = open + 1, st = p;
    int depth = 0, na = 0;
    for (; p < close - 1; p++) {
        if (s[p] == '(') depth++;
        else if (s[p] == ')') depth--;
        else if (s[p] == ',' && depth == 0) {
            if (na >= 16) fail_at(file, line, "too many macro arguments", NULL);
            args[na++] = dup_n(s + st, p - st);
            st = p + 1;
        }
    }
    if (na >= 16) fail_at(file, line, "too many macro arguments", NULL);
    args[na++] = dup_n(s + st, close - 1 - st);
    return na;
}

/* Expand `M(args)` (a function-like macro of kernels/) when it is the whole
 * text; returns a new string (the caller frees it). */
static char* expand_params(const char* s, size_t n, const char* file, int line, int depth) {
    size_t i = 0, j, close;
    tok t, u;
    macro* m;
    char *args[16], *res;
    int na = 0, k;
    buf b = { NULL, 0, 0 };
    if (depth > 8) fail_at(file, line, "parameter-list macros nest too deep", NULL);
    if (!next_tok(s, n, &i, &t) || t.kind != 'i' || !(m = find_macro(s + t.s, t.e - t.s))) return dup_n(s, n);
    j = i;
    if (!next_tok(s, n, &j, &u) || u.kind != '(') return dup_n(s, n);
    close = match_paren(s, n, u.s);
    if (!close) fail_at(file, line, "unbalanced parentheses in a parameter list", NULL);
    {
        size_t rest = close;
        tok v;
        if (next_tok(s, n, &rest, &v)) return dup_n(s, n); /* more after the call: not a whole-list macro */
    }
    na = split_args(s, u.s, close, args, file, line);
    if (na == 1 && m->nparams == 0) {
        size_t p;
        int e = 1;
        for (p = 0; args[0][p]; p++) if (!isspace((unsigned char)args[0][p])) e = 0;
        if (e) { free(args[0]); na = 0; }
    }
    if (na != m->nparams) fail_at(file, line, "wrong number of arguments to a parameter-list macro", NULL);
    subst_params(m, args, &b);
    for (k = 0; k < na; k++) free(args[k]);
    res = expand_params(b.p ? b.p : "", b.len, file, line, depth + 1);
    free(b.p);
    return res;
}

/* Add (or match) the interface `stem` with the parameter list `params`. */
static int add_iface(const char* stem, const char* params, size_t pn, const char* file, int line, const char* kernel) {
    iface f;
    char* ex = expand_params(params, pn, file, line, 0);
    size_t n = strlen(ex), p = 0, st = 0;
    int depth = 0, i, k;
    char msg[900];
    memset(&f, 0, sizeof f);
    snprintf(f.stem, sizeof f.stem, "%s", stem);
    snprintf(f.kernel, sizeof f.kernel, "%s", kernel);
    f.file = file;
    f.line = line;
    for (p = 0; p <= n; p++) {
        if (p < n && (ex[p] == '(' || ex[p] == '<')) depth++;
        else if (p < n && (ex[p] == ')' || ex[p] == '>')) depth--;
        else if (p == n || (ex[p] == ',' && depth == 0)) {
            size_t a = st, e = p;
            while (a < e && isspace((unsigned char)ex[a])) a++;
            while (e > a && isspace((unsigned char)ex[e - 1])) e--;
            if (e == a) {
                if (p == n && f.np == 0) break; /* () */
                fail_at(file, line, "empty parameter in a kernel's parameter list", NULL);
            }
            if (e - a == 4 && !memcmp(ex + a, "void", 4) && f.np == 0 && p == n) break; /* (void) */
            if (f.np >= 48) fail_at(file, line, "a kernel with more than 48 parameters (AK_MAX_ARGS)", NULL);
            norm_param(ex + a, e - a, file, line, kernel, &f.p[f.np++]);
            st = p + 1;
        }
    }
    free(ex);
    for (i = 0; i < nifaces; i++) {
        int same = ifaces[i].np == f.np;
        for (k = 0; same && k < f.np; k++) same = !strcmp(ifaces[i].p[k].type, f.p[k].type);
        if (!strcmp(ifaces[i].stem, stem)) {
            if (same) return i;
            {
                buf a = { NULL, 0, 0 }, c = { NULL, 0, 0 };
                for (k = 0; k < ifaces[i].np; k++) { if (k) puts_(&a, ", "); puts_(&a, ifaces[i].p[k].type); }
                for (k = 0; k < f.np; k++) { if (k) puts_(&c, ", "); puts_(&c, f.p[k].type); }
                snprintf(msg, sizeof msg,
                         "kernel %s has the interface stem '%s' of %s (%s:%d) but another parameter list: (%s) vs (%s); "
                         "kernels of one stem share one list (rename one)",
                         kernel, stem, ifaces[i].kernel, ifaces[i].file, ifaces[i].line, c.p ? c.p : "", a.p ? a.p : "");
                fail_at(file, line, msg, NULL);
            }
        }
    }
    if (nifaces >= (int)(sizeof ifaces / sizeof ifaces[0])) fail_at(file, line, "too many interfaces", NULL);
    f.canon = nifaces;
    for (i = 0; i < nifaces; i++) {
        int same = ifaces[i].np == f.np && ifaces[i].canon == i;
        for (k = 0; same && k < f.np; k++) same = !strcmp(ifaces[i].p[k].type, f.p[k].type);
        if (same) { f.canon = i; break; }
    }
    ifaces[nifaces] = f;
    return nifaces++;
}

static void map_kernel(const char* name, int fi, const char* file, int line) {
    int i;
    char msg[600];
    for (i = 0; i < nkmaps; i++)
        if (!strcmp(kmaps[i].name, name)) {
            if (ifaces[kmaps[i].iface].canon != ifaces[fi].canon) {
                snprintf(msg, sizeof msg, "kernel %s is defined twice with different parameter lists (first at %s:%d)", name,
                         kmaps[i].file, kmaps[i].line);
                fail_at(file, line, msg, NULL);
            }
            return;
        }
    if (nkmaps >= (int)(sizeof kmaps / sizeof kmaps[0])) fail_at(file, line, "too many kernels", NULL);
    snprintf(kmaps[nkmaps].name, sizeof kmaps[nkmaps].name, "%s", name);
    kmaps[nkmaps].iface = fi;
    kmaps[nkmaps].file = file;
    kmaps[nkmaps].line = line;
    nkmaps++;
}

/* Copy of src with comments blanked (newlines kept) and each continuation
 * backslash blanked. */
static char* clean_source(const char* src, size_t len) {
    char* c = dup_n(src, len);
    size_t i = 0;
    while (i < len) {
        if (c[i] == '/' && i + 1 < len && c[i + 1] == '/') {
            while (i < len && c[i] != '\n') c[i++] = ' ';
        } else if (c[i] == '/' && i + 1 < len && c[i + 1] == '*') {
            c[i] = c[i + 1] = ' ';
            i += 2;
            while (i < len && !(c[i] == '*' && i + 1 < len && c[i + 1] == '/')) { if (c[i] != '\n') c[i] = ' '; i++; }
            if (i < len) { c[i] = c[i + 1] = ' '; i += 2; }
        } else if (c[i] == '"' || c[i] == '\'') {
            char q = c[i++];
            while (i < len && c[i] != q && c[i] != '\n') { if (c[i] == '\\') i++; i++; }
            i++;
        } else i++;
    }
    return c;
}
static int line_of(const char* s, size_t pos, int first) {
    size_t i;
    int l = first;
    for (i = 0; i < pos; i++) if (s[i] == '\n') l++;
    return l;
}

/* Pass 1: the function-like macros of one file. Directive lines (with their
 * continuations) are blanked in c afterwards, so pass 2 sees file-level code only. */
static void collect_macros(char* c, size_t len, const char* file, int family) {
    size_t i = 0;
    while (i < len) {
        size_t ls = i, le, a;
        int cont;
        do { /* one logical line: physical lines joined at trailing backslashes */
            size_t e;
            while (i < len && c[i] != '\n') i++;
            e = i;
            while (e > ls && (c[e - 1] == ' ' || c[e - 1] == '\t' || c[e - 1] == '\r')) e--;
            cont = e > ls && c[e - 1] == '\\';
            if (cont) c[e - 1] = ' ';
            if (i < len) i++;
        } while (cont && i < len);
        le = i;
        a = ls;
        while (a < le && (c[a] == ' ' || c[a] == '\t')) a++;
        if (a < le && c[a] == '#') {
            size_t p = a + 1;
            tok t, u;
            if (next_tok(c, le, &p, &t) && tok_is(c, &t, "define") && next_tok(c, le, &p, &t) && t.kind == 'i' && p < le && c[p] == '(') {
                macro* m;
                size_t close = match_paren(c, le, p), q;
                if (nmacros >= (int)(sizeof macros / sizeof macros[0])) fail_at(file, line_of(c, ls, 1), "too many macros", NULL);
                if (!close) fail_at(file, line_of(c, ls, 1), "unbalanced #define", NULL);
                m = &macros[nmacros];
                memset(m, 0, sizeof *m);
                m->name = dup_n(c + t.s, t.e - t.s);
                q = p + 1;
                while (next_tok(c, close - 1, &q, &u)) {
                    if (u.kind == 'i') {
                        if (m->nparams >= 16) fail_at(file, line_of(c, ls, 1), "a macro with more than 16 parameters", NULL);
                        m->params[m->nparams++] = dup_n(c + u.s, u.e - u.s);
                    }
                }
                m->body = dup_n(c + close, le - close);
                m->file = file;
                m->line = line_of(c, ls, 1);
                m->family = family;
                if (!find_macro(m->name, strlen(m->name)) || family) nmacros++; /* the first definition wins */
                else { free(m->name); free(m->body); }
            }
            for (p = ls; p < le; p++) if (c[p] != '\n') c[p] = ' ';
        }
    }
}

/* Definition sites in s[0..n) (file-level code, or a macro body when m is not
 * NULL). For file-level sites the kernel is mapped at once; for a macro the
 * site is recorded on it for its invocations. */
typedef struct msite { macro* m; size_t ns, ne, ps, pe; int line; int fi; } msite;
static msite msites[256];
static int nmsites;

static void scan_defs(const char* s, size_t n, macro* m, const char* file, int first_line) {
    size_t i = 0;
    tok t;
    char msg[600];
    while (next_tok(s, n, &i, &t)) {
        size_t ns, ne = 0, open, close, k;
        int line, named = 0;
        if (!tok_is(s, &t, "AK_KERNEL")) continue;
        line = line_of(s, t.s, first_line);
        /* attributes and the return type, then the name (pieces joined by ##) */
        for (;;) {
            size_t save = i;
            if (!next_tok(s, n, &i, &t)) fail_at(file, line, "AK_KERNEL without a kernel after it", NULL);
            if (t.kind != 'i') fail_at(file, line, "AK_KERNEL: cannot read the kernel's name", NULL);
            if (tok_is(s, &t, "__launch_bounds__") || tok_is(s, &t, "__attribute__")) {
                tok u;
                if (!next_tok(s, n, &i, &u) || u.kind != '(' || !(i = match_paren(s, n, u.s)))
                    fail_at(file, line, "AK_KERNEL: unbalanced attribute", NULL);
                continue;
            }
            if (tok_is(s, &t, "void") || tok_is(s, &t, "extern") || tok_is(s, &t, "static") || tok_is(s, &t, "inline")) {
                continue;
            }
            i = save;
            break;
        }
        ns = i;
        while (next_tok(s, n, &i, &t)) {
            if (t.kind == 'i') { named = 1; ne = t.e; }
            else if (t.kind == '#') continue;
            else break;
        }
        if (!named || t.kind != '(') fail_at(file, line, "AK_KERNEL: expected `void NAME(` after AK_KERNEL", NULL);
        while (ns < n && isspace((unsigned char)s[ns])) ns++;
        open = t.s;
        close = match_paren(s, n, open);
        if (!close) fail_at(file, line, "AK_KERNEL: unbalanced parameter list", NULL);
        i = close;
        (void)msg;
        if (!m) {
            char name[160], stem[96];
            int fi;
            for (k = ns; k < ne; k++) if (s[k] == '#') fail_at(file, line, "## in a kernel name outside a macro", NULL);
            if (ne - ns >= sizeof name) fail_at(file, line, "kernel name too long", NULL);
            memcpy(name, s + ns, ne - ns);
            name[ne - ns] = 0;
            plain_stem(name, stem, sizeof stem);
            fi = add_iface(stem, s + open + 1, close - 1 - (open + 1), file, line, name);
            map_kernel(name, fi, file, line);
        } else {
            /* stem: the literal text before the first ## (ak_ and a trailing _ dropped),
             * or the macro's name (AK_ dropped, lower case) when the name starts with a parameter */
            char stem[96], pattern[160];
            size_t p = ns, a;
            tok first;
            int fi;
            next_tok(s, n, &p, &first);
            if (macro_param(m, s + first.s, first.e - first.s) >= 0) {
                const char* mn = m->name;
                if (!strncmp(mn, "AK_", 3)) mn += 3;
                for (a = 0; mn[a] && a + 1 < sizeof stem; a++) stem[a] = (char)tolower((unsigned char)mn[a]);
                stem[a] = 0;
            } else {
                tok nx;
                size_t q = first.e;
                if (next_tok(s, n, &q, &nx) && nx.kind == '#') {
                    size_t l = first.e - first.s;
                    const char* b = s + first.s;
                    if (l > 3 && !memcmp(b, "ak_", 3)) { b += 3; l -= 3; }
                    while (l > 0 && b[l - 1] == '_') l--;
                    if (l == 0 || l >= sizeof stem) fail_at(file, line, "cannot derive an interface name from the kernel name", NULL);
                    memcpy(stem, b, l);
                    stem[l] = 0;
                } else {
                    char nm[160];
                    if (first.e - first.s >= sizeof nm) fail_at(file, line, "kernel name too long", NULL);
                    memcpy(nm, s + first.s, first.e - first.s);
                    nm[first.e - first.s] = 0;
                    plain_stem(nm, stem, sizeof stem);
                }
            }
            snprintf(pattern, sizeof pattern, "%.*s (macro %s)", (int)(ne - ns), s + ns, m->name);
            fi = add_iface(stem, s + open + 1, close - 1 - (open + 1), file, line, pattern);
            if (nmsites >= (int)(sizeof msites / sizeof msites[0])) fail_at(file, line, "too many kernel macros", NULL);
            msites[nmsites].m = m;
            msites[nmsites].ns = ns;
            msites[nmsites].ne = ne;
            msites[nmsites].line = line;
            msites[nmsites].fi = fi;
            nmsites++;
        }
    }
}

/* Invocations of kernel macros at file level: one kernel per definition site
 * of the macro, its name pasted from the arguments. An invocation of another
 * function-like macro of the family is followed into its body (the arguments
 * substituted), so a macro that invokes kernel macros names their kernels too
 * (AK_X_ALL(32) -> AK_X(32, f32, ...) AK_X(32, f16, ...)). at_line: the line
 * of the outermost invocation (errors), 0 at file level. */
static void scan_invocations_at(const char* s, size_t n, const char* file, names* ns, int depth, int at_line) {
    size_t i = 0;
    tok t;
    char msg[600];
    if (depth > 8) fail_at(file, at_line, "kernel macros invoked through macros nest too deep", NULL);
    while (next_tok(s, n, &i, &t)) {
        macro* m;
        size_t close, p;
        char* args[16];
        int na = 0, k, line;
        tok u;
        if (t.kind != 'i' || !(m = find_macro(s + t.s, t.e - t.s)) || !m->family) continue;
        for (k = 0; k < nmsites; k++) if (msites[k].m == m) break;
        line = at_line ? at_line : line_of(s, t.s, 1);
        p = i;
        if (!next_tok(s, n, &p, &u) || u.kind != '(') continue;
        close = match_paren(s, n, u.s);
        if (!close) fail_at(file, line, "unbalanced macro invocation", NULL);
        if (k == nmsites) { /* not a kernel macro: follow it into its body */
            buf b = { NULL, 0, 0 };
            na = split_args(s, u.s, close, args, file, line);
            if (na == m->nparams) {
                subst_params(m, args, &b);
                scan_invocations_at(b.p ? b.p : "", b.len, file, ns, depth + 1, line);
            }
            free(b.p);
            for (k = 0; k < na; k++) free(args[k]);
            i = close;
            continue;
        }
        na = split_args(s, u.s, close, args, file, line);
        if (na != m->nparams) {
            snprintf(msg, sizeof msg, "%s takes %d arguments, %d given", m->name, m->nparams, na);
            fail_at(file, line, msg, NULL);
        }
        for (k = 0; k < nmsites; k++) {
            char name[160];
            size_t q = msites[k].ns, l = 0;
            tok w;
            if (msites[k].m != m) continue;
            while (next_tok(m->body, msites[k].ne, &q, &w)) {
                const char* piece = m->body + w.s;
                size_t pl = w.e - w.s, a;
                int pi;
                if (w.kind == '#') continue;
                pi = macro_param(m, piece, pl);
                if (pi >= 0) {
                    piece = args[pi];
                    while (*piece && isspace((unsigned char)*piece)) piece++;
                    pl = strlen(piece);
                    while (pl && isspace((unsigned char)piece[pl - 1])) pl--;
                }
                for (a = 0; a < pl; a++)
                    if (!is_ident((unsigned char)piece[a])) fail_at(file, line, "a pasted kernel name is not an identifier", NULL);
                if (l + pl >= sizeof name) fail_at(file, line, "kernel name too long", NULL);
                memcpy(name + l, piece, pl);
                l += pl;
            }
            name[l] = 0;
            map_kernel(name, msites[k].fi, file, line);
            add_name(ns, name, l, file, line);
        }
        for (k = 0; k < na; k++) free(args[k]);
        i = close;
    }
}
static void scan_invocations(const char* s, size_t n, const char* file, names* ns) { scan_invocations_at(s, n, file, ns, 0, 0); }

/* Read one family file for interfaces: file-level definitions and invocations
 * (macros were collected before, from every file). */
static void scan_family(const char* src, size_t len, const char* file, names* ns) {
    char* c = clean_source(src, len);
    int i, before = nmacros, k;
    cur_file = file;
    collect_macros(c, len, file, 1);
    for (i = before; i < nmacros; i++) scan_defs(macros[i].body, strlen(macros[i].body), &macros[i], file, macros[i].line);
    /* file-level definitions (map at once; add to the list) */
    {
        int before_k = nkmaps;
        scan_defs(c, len, NULL, file, 1);
        for (k = before_k; k < nkmaps; k++) add_name(ns, kmaps[k].name, strlen(kmaps[k].name), file, kmaps[k].line);
    }
    scan_invocations(c, len, file, ns);
    free(c);
}

static int kmap_find(const char* name) {
    int i;
    for (i = 0; i < nkmaps; i++) if (!strcmp(kmaps[i].name, name)) return i;
    return -1;
}

/* The generated interfaces: the packer type, ids, names, one packer per
 * distinct list (aliases for the other stems) and the kernel -> interface table. */
static void emit_ifaces(buf* out) {
    int i, k, id = 0;
    puts_(out, "\n/* Kernel interfaces, generated from the kernels' parameter lists above: one typed\n"
               " * packer per distinct list (_ak_kargs_<stem>; stems of the same list are #defines of\n"
               " * the first), _AK_KIF_<stem> ids, and every kernel's interface (_ak_kernel_ifaces).\n"
               " * A packer starts a fresh argument list; the ops' launch checks that the kernel's\n"
               " * interface is the packer's (>>impl:ops, _ak_op_launch3). */\n");
    puts_(out, "typedef struct _ak_kargs { ak_args a; int iface; } _ak_kargs;\n");
    puts_(out, "enum {\n    _AK_KIF_NONE = 0");
    for (i = 0; i < nifaces; i++)
        if (ifaces[i].canon == i) {
            ifaces[i].id = ++id;
            putf(out, ",\n    _AK_KIF_%s = %d", ifaces[i].stem, id);
        }
    puts_(out, ",\n    _AK_KIF_COUNT\n};\n");
    puts_(out, "static const char* const _ak_kernel_interface_names[] = {\n    \"\"");
    {
        size_t col = 6;
        for (i = 0; i < nifaces; i++)
            if (ifaces[i].canon == i) {
                size_t w = strlen(ifaces[i].stem) + 4;
                if (col + w > 118) { puts_(out, ",\n    "); col = 4; }
                else { puts_(out, ", "); col += 2; }
                putf(out, "\"%s\"", ifaces[i].stem);
                col += w - 2;
            }
    }
    puts_(out, "\n};\n");
    puts_(out, "static inline ak_args* _ak_kargs_begin(_ak_kargs* k, int iface) {\n"
               "    k->iface = iface;\n    k->a.count = 0;\n    k->a.error = 0;\n    return &k->a;\n}\n");
    for (i = 0; i < nifaces; i++) {
        const iface* f = &ifaces[i];
        size_t col, indent;
        if (f->canon != i) continue;
        putf(out, "/* %s:%d %s */\n", f->file, f->line, f->kernel);
        putf(out, "static inline void _ak_kargs_%s(_ak_kargs* kargs_", f->stem);
        indent = strlen("static inline void _ak_kargs_(") + strlen(f->stem);
        col = indent + strlen("_ak_kargs* kargs_");
        for (k = 0; k < f->np; k++) { /* wrapped at 200 columns (few lines: no look-alike runs between packers) */
            size_t w = strlen(f->p[k].type) + 1 + strlen(f->p[k].name) + 2;
            if (col + w + 2 > 200) { putf(out, ",\n%*s", (int)indent, ""); col = indent; }
            else { puts_(out, ", "); col += 2; }
            putf(out, "%s %s", f->p[k].type, f->p[k].name);
            col += w - 2;
        }
        putf(out, ") {\n    ak_args* a_ = _ak_kargs_begin(kargs_, _AK_KIF_%s);\n", f->stem);
        col = 0;
        for (k = 0; k < f->np; k++) {
            const char* t = f->p[k].type;
            const int tmap = !strcmp(t, "const _ak_tmap*");
            const char* fn = tmap ? "bytes" : strstr(t, "*") ? "ptr" : !strcmp(t, "int64_t") ? "i64" : !strcmp(t, "int32_t") ? "i32"
                           : !strcmp(t, "uint32_t") ? "u32" : !strcmp(t, "uint64_t") ? "u64" : !strcmp(t, "float") ? "f32" : "f64";
            size_t w = strlen("ak_args_xxx(a_, );") + strlen(f->p[k].name) + (tmap ? 24 : 0);
            if (col == 0) { puts_(out, "    "); col = 4; }
            else if (col + 1 + w > 200) { puts_(out, "\n    "); col = 4; }
            else { puts_(out, " "); col++; }
            if (tmap) putf(out, "ak_args_bytes(a_, %s, sizeof(_ak_tmap));", f->p[k].name);
            else putf(out, "ak_args_%s(a_, %s);", fn, f->p[k].name);
            col += w;
        }
        puts_(out, col ? "\n}\n" : "}\n");
    }
    for (i = 0; i < nifaces; i++) {
        const iface* f = &ifaces[i];
        int dup = 0;
        if (f->canon == i) continue;
        for (k = 0; k < i; k++) if (!strcmp(ifaces[k].stem, f->stem)) dup = 1;
        if (dup) continue;
        putf(out, "#define _ak_kargs_%s _ak_kargs_%s   /* %s:%d %s: the same list */\n", f->stem,
                 ifaces[f->canon].stem, f->file, f->line, f->kernel);
        putf(out, "#define _AK_KIF_%s _AK_KIF_%s\n", f->stem, ifaces[f->canon].stem);
    }
    puts_(out, "static const struct { const char* kernel; int iface; } _ak_kernel_ifaces[] = {\n");
    for (i = 0; i < nkmaps; i++) {
        putf(out, "    { \"%s\", _AK_KIF_%s },\n", kmaps[i].name, ifaces[ifaces[kmaps[i].iface].canon].stem);
    }
    puts_(out, "};\n");
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

/* Constants the host and the kernels share: in kernels/<file>.hip, the lines
 * between `// >>host` and `// <<host` are object-like `#define AK_<NAME> <value>`
 * (a trailing comment allowed; blank and comment lines skipped). Each is
 * emitted for the host as `#define _AK_<NAME> <value>` (AK_<X> in the value
 * becomes _AK_<X>), so the two sides read one definition. Anything else in such a block is an error naming file:line. */
static void emit_host_constants(buf* out, const char* src, size_t len, const char* path) {
    size_t i = 0;
    int line = 1, in = 0, any = 0;
    while (i < len) {
        size_t e = i, a, b;
        char ln[1024];
        while (e < len && src[e] != '\n') e++;
        a = i; b = e;
        while (a < b && (src[a] == ' ' || src[a] == '\t')) a++;
        while (b > a && (src[b - 1] == ' ' || src[b - 1] == '\t' || src[b - 1] == '\r')) b--;
        snprintf(ln, sizeof ln, "%.*s", (int)(b - a), src + a);
        if (!strcmp(ln, "// >>host") || !strncmp(ln, "// >>host ", 10)) {
            if (in) fail_at(path, line, "`// >>host` inside a host-constant block", NULL);
            in = 1;
        } else if (!strcmp(ln, "// <<host")) {
            if (!in) fail_at(path, line, "`// <<host` without `// >>host`", NULL);
            in = 0;
        } else if (in && *ln && strncmp(ln, "//", 2) && strncmp(ln, "/*", 2)) {
            const char* q = ln + 7;
            const char* nm;
            size_t nl;
            if (strncmp(ln, "#define", 7) || (*q != ' ' && *q != '\t'))
                fail_at(path, line, "a host-constant block holds only `#define AK_<NAME> <value>` lines", NULL);
            while (*q == ' ' || *q == '\t') q++;
            nm = q;
            while (is_ident((unsigned char)*q)) q++;
            nl = (size_t)(q - nm);
            if (nl < 4 || strncmp(nm, "AK_", 3) || *q == '(' || (*q != ' ' && *q != '\t'))
                fail_at(path, line, "a host constant is an object-like macro named AK_<NAME> with a value", NULL);
            if (!any) {
                puts_(out, "/* host constants of ");
                puts_(out, path);
                puts_(out, " (its `// >>host` block) */\n");
                any = 1;
            }
            { /* the value may name other constants: AK_<NAME> -> _AK_<NAME> there too */
                const char* v = nm;
                const char* z = ln + (b - a);
                puts_(out, "#define ");
                while (v < z) {
                    if ((v == ln || !is_ident((unsigned char)v[-1])) && !strncmp(v, "AK_", 3)) puts_(out, "_");
                    put(out, v, 1);
                    v++;
                }
                puts_(out, "\n");
            }
        }
        i = e + 1;
        line++;
    }
    if (in) fail_at(path, line, "`// >>host` block not closed by `// <<host`", NULL);
}

/* The generated region named `name` of the header: [*begin, *end) lies between
 * the lines `//>#akgen <name>` and `//<#akgen <name>`, each present once. */
static void find_region(const char* header, char* text, const char* name, char** begin, char** end) {
    char b[64], e[64];
    snprintf(b, sizeof b, "\n%s %s\n", BEGIN_MARK, name);
    snprintf(e, sizeof e, "\n%s %s\n", END_MARK, name);
    *begin = strstr(text, b);
    *end = strstr(text, e);
    if (!*begin || !*end || *end < *begin) die("%s: marker lines missing or out of order: %s", header, b + 1);
    if (strstr(*begin + 1, b) || strstr(*end + 1, e)) die("%s: more than one region %s", header, b + 1);
    *begin += strlen(b);
    *end += 1;
}

static int cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

int main(int argc, char** argv) {
    const char *header, *dir;
    char *text, *pbegin, *pend, *lbegin, *lend, **files = NULL;
    size_t text_len, nfiles = 0, i;
    buf out = { NULL, 0, 0 }, pre = { NULL, 0, 0 }, table = { NULL, 0, 0 }, consts = { NULL, 0, 0 }, result = { NULL, 0, 0 };
    DIR* d;
    struct dirent* de;
    char path[4096];
    char** paths;

    if (argc != 3) {
        fprintf(stderr, "usage: akgen HEADER KERNELS_DIR\n");
        return 2;
    }
    header = argv[1];
    dir = argv[2];
    text = slurp(header, &text_len);
    find_region(header, text, "prelude", &pbegin, &pend);
    find_region(header, text, "library", &lbegin, &lend);
    if (lbegin < pend) die("%s: the prelude region must come before the library region%s", header, NULL);

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
    paths = (char**)calloc(nfiles + 1, sizeof *paths);
    if (!paths) die("out of memory%s%s", NULL, NULL);

#define GEN_NOTE "/* Generated by `make gen` (tools/akgen.c) from the files in kernels/ -- do not edit;\n" \
                 " * edit kernels/<file>.hip and run `make gen`. One string literal per source line. */\n" \
                 "#if defined(__GNUC__) || defined(__clang__)\n" \
                 "#pragma GCC diagnostic push\n" \
                 "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n" \
                 "#endif\n"
#define GEN_END "#if defined(__GNUC__) || defined(__clang__)\n#pragma GCC diagnostic pop\n#endif\n"
    puts_(&pre, GEN_NOTE);
    puts_(&out, GEN_NOTE);
    {
        size_t len;
        char* src;
        snprintf(path, sizeof path, "%s/prelude.hip", dir);
        src = slurp(path, &len);
        { /* the prelude's function-like macros (parameter-list macros may come from it) */
            char* c = clean_source(src, len);
            static char prelude_path[4096];
            snprintf(prelude_path, sizeof prelude_path, "%s", path);
            collect_macros(c, len, prelude_path, 0);
            free(c);
        }
        puts_(&pre, "\n/* kernels/prelude.hip: prepended to every kernel source by the compiler wrapper */\n");
        emit_source(&pre, "_ak_src_prelude", src, len, path, NULL);
        emit_host_constants(&pre, src, len, path);
        puts_(&pre, GEN_END);
        free(src);
    }
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
        paths[i] = dup_n(path, strlen(path));
        scan_family(src, len, paths[i], &ns);
        emit_host_constants(&consts, src, len, paths[i]);
        free(src);
        { /* every kernel of the family has an interface */
            const char* p = ns.list.p;
            while (p && *p) {
                const char* e = strchr(p, ' ');
                size_t l = e ? (size_t)(e - p) : strlen(p);
                char nm[256], msg[700];
                snprintf(nm, sizeof nm, "%.*s", (int)l, p);
                if (kmap_find(nm) < 0) {
                    snprintf(msg, sizeof msg,
                             "kernel %s has no interface: no `AK_KERNEL ... void %s(` definition and no invocation of a kernel "
                             "macro that makes it (akgen reads the parameter list from one of them)", nm, nm);
                    fail_at(paths[i], 1, msg, NULL);
                }
                if (!e) break;
                p = e + 1;
            }
        }
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
    if (consts.len) { puts_(&out, "\n"); put(&out, consts.p, consts.len); }
    emit_ifaces(&out);
    puts_(&out, GEN_END);

    put(&result, text, (size_t)(pbegin - text));
    put(&result, pre.p, pre.len);
    put(&result, pend, (size_t)(lbegin - pend));
    put(&result, out.p, out.len);
    put(&result, lend, text_len - (size_t)(lend - text));
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
    free(text); free(out.p); free(pre.p); free(consts.p); free(table.p); free(result.p); free(all_ns.list.p);
    return 0;
}
