/* amdkit_run.c - `amdkit run`, `amdkit bench` and `amdkit tune`: prototype a
 * kernel from the command line (linked into build/amdkit; the dispatcher in
 * amdkit.c calls amdkit_run_main).
 *
 *   amdkit run   FILE.hip --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--shared BYTES]
 *                --arg SPEC ... [-DNAME=V ...] [--cpu LIB.so:FUNC] [--out ARG=FILE.bin|.npy ...]
 *   amdkit bench (the same) [--trials N] [--warmup N] [--bytes EXPR] [--flops EXPR]
 *                [--json FILE] [--compare OTHER.json] [--name LABEL]
 *   amdkit tune  (the same) --tune NAME=V1,V2,... ... [--max-variants N] [--max-ms T]
 *                [--shape-key KEY] [--retune] [--trials N] [--warmup N]
 *
 * Argument SPEC, one per kernel parameter in order:  [NAME=][in:|out:|inout:]TYPE...
 *   scalar  i32:1024  u32:7  i64:-3  u64:9  f32:0.5  f64:1e-3   (the value may be an expression)
 *   buffer  f32[4096]:rand   f16[4096x4096]:zeros   bf16[m,n]:ones   i32[n]:range   u8[64]:@in.bin
 *           dtypes f32 f16 bf16 f64 i32 i64 u8; dims separated by 'x' or ','; rand is uniform in
 *           [-1, 1) (ints: [-100, 100], u8: [0, 255]) from --seed; @FILE reads raw bytes (exact size)
 *           or a .npy of the same element count. Buffers are inout unless marked: every in/inout/out
 *           buffer is compared with the CPU implementation (inputs compare equal to themselves).
 * Expressions (scalar values, dims, --grid/--block/--shared, --bytes/--flops): integers and
 * decimals, + - * / % ( ), cdiv(a,b), min(a,b), max(a,b), bytes(BUF), numel(BUF); names are
 * named scalar arguments, numeric -D values and --tune parameters. Integer / integer truncates,
 * as in C.
 *
 * The arg-spec parser and the expression evaluator are pure functions (akr_parse_arg,
 * akr_eval) so tests/fuzz can drive them without a device.
 */
#include "../amdkit.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <errno.h>
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>

/* ---- expressions ----------------------------------------------------------- */

typedef struct akr_val { int is_int; long long i; double d; } akr_val;
/* Resolve a name (fn == NULL) or a call fn(name) with fn "bytes" / "numel". 1 found, 0 not. */
typedef int (*akr_lookup_fn)(void* user, const char* name, const char* fn, akr_val* out);

typedef struct akr_parser {
    const char* p;
    akr_lookup_fn lookup;
    void* user;
    char* err;
    size_t errcap;
    int depth;
    int failed;
} akr_parser;

#if defined(__GNUC__) || defined(__clang__)
#define AKR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define AKR_PRINTF(a, b)
#endif
static int akr_fail(akr_parser* P, const char* fmt, ...) AKR_PRINTF(2, 3);
static int akr_fail(akr_parser* P, const char* fmt, ...) {
    va_list ap;
    if (!P->failed) { va_start(ap, fmt); vsnprintf(P->err, P->errcap, fmt, ap); va_end(ap); }
    P->failed = 1;
    return 0;
}
static double akr_num(akr_val v) { return v.is_int ? (double)v.i : v.d; }
static akr_val akr_int(long long i) { akr_val v; v.is_int = 1; v.i = i; v.d = (double)i; return v; }
static akr_val akr_dbl(double d) { akr_val v; v.is_int = 0; v.i = 0; v.d = d; return v; }
static void akr_ws(akr_parser* P) { while (*P->p == ' ' || *P->p == '\t') P->p++; }

static int akr_expr(akr_parser* P, akr_val* out);

/* op on two values, integer-preserving; 0 on error */
static int akr_binop(akr_parser* P, char op, akr_val a, akr_val b, akr_val* out) {
    if (a.is_int && b.is_int) {
        long long x = a.i, y = b.i;
        double approx;
        switch (op) {
        case '+': approx = (double)x + (double)y; break;
        case '-': approx = (double)x - (double)y; break;
        case '*': approx = (double)x * (double)y; break;
        default: approx = 0; break;
        }
        if (fabs(approx) > 9.0e18) return akr_fail(P, "integer overflow in expression%s", "");
        if ((op == '/' || op == '%') && y == 0) return akr_fail(P, "division by zero%s", "");
        if ((op == '/' || op == '%') && x == LLONG_MIN && y == -1) return akr_fail(P, "integer overflow in expression%s", "");
        *out = akr_int(op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : op == '/' ? x / y : x % y);
        return 1;
    }
    if (op == '%') return akr_fail(P, "%% needs integers%s", "");
    {
        double x = akr_num(a), y = akr_num(b);
        if (op == '/' && y == 0) return akr_fail(P, "division by zero%s", "");
        *out = akr_dbl(op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y);
    }
    return 1;
}

static int akr_ident(const char** p, char* buf, size_t cap) {
    size_t n = 0;
    if (!isalpha((unsigned char)**p) && **p != '_') return 0;
    while (isalnum((unsigned char)**p) || **p == '_') {
        if (n + 1 >= cap) return 0;
        buf[n++] = *(*p)++;
    }
    buf[n] = 0;
    return 1;
}

static int akr_primary(akr_parser* P, akr_val* out) {
    char name[72];
    akr_ws(P);
    if (*P->p == '(') {
        P->p++;
        if (!akr_expr(P, out)) return 0;
        akr_ws(P);
        if (*P->p != ')') return akr_fail(P, "missing ')'%s", "");
        P->p++;
        return 1;
    }
    if (isdigit((unsigned char)*P->p) || (*P->p == '.' && isdigit((unsigned char)P->p[1]))) {
        const char* s = P->p;
        char* end;
        int fl = 0;
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
            unsigned long long u;
            errno = 0;
            u = strtoull(s, &end, 16);
            if (errno || end == s + 2 || u > (unsigned long long)LLONG_MAX) return akr_fail(P, "bad hexadecimal number%s", "");
            P->p = end;
            *out = akr_int((long long)u);
            return 1;
        }
        while (isdigit((unsigned char)*s)) s++;
        if (*s == '.' || *s == 'e' || *s == 'E') fl = 1;
        if (fl) {
            double d;
            errno = 0;
            d = strtod(P->p, &end);
            if (end == P->p || errno == ERANGE || !isfinite(d)) return akr_fail(P, "bad number%s", "");
            P->p = end;
            *out = akr_dbl(d);
        } else {
            long long v;
            errno = 0;
            v = strtoll(P->p, &end, 10);
            if (errno == ERANGE) return akr_fail(P, "integer out of range%s", "");
            P->p = end;
            *out = akr_int(v);
        }
        if (isalpha((unsigned char)*P->p) || *P->p == '_') return akr_fail(P, "bad number (letters after digits: '%.16s')", P->p);
        return 1;
    }
    if (akr_ident(&P->p, name, sizeof name)) {
        akr_ws(P);
        if (*P->p == '(') {
            akr_val a, b;
            P->p++;
            akr_ws(P);
            if (!strcmp(name, "bytes") || !strcmp(name, "numel")) {
                char arg[72];
                if (!akr_ident(&P->p, arg, sizeof arg)) return akr_fail(P, "%s() takes a buffer argument's name", name);
                akr_ws(P);
                if (*P->p != ')') return akr_fail(P, "missing ')' after %s(NAME", name);
                P->p++;
                if (!P->lookup || !P->lookup(P->user, arg, name, out)) return akr_fail(P, "no buffer argument named '%s'", arg);
                return 1;
            }
            if (strcmp(name, "cdiv") && strcmp(name, "min") && strcmp(name, "max"))
                return akr_fail(P, "unknown function '%s' (cdiv, min, max, bytes, numel)", name);
            if (!akr_expr(P, &a)) return 0;
            akr_ws(P);
            if (*P->p != ',') return akr_fail(P, "%s() takes two arguments", name);
            P->p++;
            if (!akr_expr(P, &b)) return 0;
            akr_ws(P);
            if (*P->p != ')') return akr_fail(P, "missing ')' after the arguments of %s", name);
            P->p++;
            if (!strcmp(name, "cdiv")) {
                if (!a.is_int || !b.is_int || b.i <= 0 || a.i < 0) return akr_fail(P, "cdiv(a, b) needs integers a >= 0, b > 0%s", "");
                *out = akr_int(a.i / b.i + (a.i % b.i != 0));
            } else {
                int less = akr_num(a) < akr_num(b);
                *out = (!strcmp(name, "min")) == less ? a : b;
            }
            return 1;
        }
        if (!P->lookup || !P->lookup(P->user, name, NULL, out))
            return akr_fail(P, "unknown name '%s' (a named scalar argument, a numeric -D value or a --tune parameter)", name);
        return 1;
    }
    if (!*P->p) return akr_fail(P, "expression ends too early%s", "");
    return akr_fail(P, "unexpected '%.8s' in expression", P->p);
}
static int akr_unary(akr_parser* P, akr_val* out) {
    akr_ws(P);
    if (*P->p == '-' || *P->p == '+') {
        char op = *P->p++;
        if (++P->depth > 64) return akr_fail(P, "expression nested too deeply%s", "");
        if (!akr_unary(P, out)) return 0;
        P->depth--;
        if (op == '-') {
            if (out->is_int) { if (out->i == LLONG_MIN) return akr_fail(P, "integer overflow%s", ""); out->i = -out->i; out->d = (double)out->i; }
            else out->d = -out->d;
        }
        return 1;
    }
    return akr_primary(P, out);
}
static int akr_term(akr_parser* P, akr_val* out) {
    if (!akr_unary(P, out)) return 0;
    for (;;) {
        akr_val b;
        char op;
        akr_ws(P);
        op = *P->p;
        if (op != '*' && op != '/' && op != '%') return 1;
        P->p++;
        if (!akr_unary(P, &b) || !akr_binop(P, op, *out, b, out)) return 0;
    }
}
static int akr_expr(akr_parser* P, akr_val* out) {
    if (++P->depth > 64) return akr_fail(P, "expression nested too deeply%s", "");
    if (!akr_term(P, out)) return 0;
    for (;;) {
        akr_val b;
        char op;
        akr_ws(P);
        op = *P->p;
        if (op != '+' && op != '-') { P->depth--; return 1; }
        P->p++;
        if (!akr_term(P, &b) || !akr_binop(P, op, *out, b, out)) return 0;
    }
}
/* Evaluate the whole of s. 1 ok, 0 error (message in err). */
int akr_eval(const char* s, akr_lookup_fn lookup, void* user, akr_val* out, char* err, size_t errcap) {
    akr_parser P;
    P.p = s; P.lookup = lookup; P.user = user; P.err = err; P.errcap = errcap; P.depth = 0; P.failed = 0;
    if (!akr_expr(&P, out)) return 0;
    akr_ws(&P);
    if (*P.p) { akr_fail(&P, "unexpected '%.8s' after the expression", P.p); return 0; }
    return 1;
}

/* ---- argument specs --------------------------------------------------------- */

enum { AKR_SCALAR = 0, AKR_BUFFER = 1 };
enum { AKR_RAND = 0, AKR_ZEROS, AKR_ONES, AKR_RANGE, AKR_FILE };
#define AKR_MAX_DIMS 8
#define AKR_MAX_BYTES ((unsigned long long)1 << 40)

typedef struct akr_arg {
    char name[64];                  /* "" if unnamed */
    int kind;
    int type;                       /* index in akr_types */
    ak_dtype dtype;                 /* buffer element type */
    ak_arg_dir dir;
    akr_val value;                  /* scalar */
    int ndim;
    size_t dims[AKR_MAX_DIMS];
    size_t numel, bytes;
    int init;
    char file[512];
    void* host;                     /* buffer: initial contents */
    void* dev;
} akr_arg;


enum { AKR_T_F32, AKR_T_F64, AKR_T_F16, AKR_T_BF16, AKR_T_I32, AKR_T_I64, AKR_T_U8, AKR_T_U32, AKR_T_U64, AKR_T_COUNT };
static const struct { const char* name; ak_dtype dtype; int scalar_ok, buffer_ok, is_int; const char* npy; } akr_types[AKR_T_COUNT] = {
    { "f32", AK_F32, 1, 1, 0, "<f4" }, { "f64", AK_F64, 1, 1, 0, "<f8" }, { "f16", AK_F16, 0, 1, 0, "<f2" },
    { "bf16", AK_BF16, 0, 1, 0, "<f4" /* written widened to f32 */ }, { "i32", AK_I32, 1, 1, 1, "<i4" },
    { "i64", AK_I64, 1, 1, 1, "<i8" }, { "u8", AK_U8, 0, 1, 1, "|u1" }, { "u32", AK_U8, 1, 0, 1, "" }, { "u64", AK_U8, 1, 0, 1, "" },
};

static int akr_err(char* err, size_t cap, const char* fmt, ...) AKR_PRINTF(3, 4);
static int akr_err(char* err, size_t cap, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return 0;
}

/* Parse one --arg SPEC into *a (no allocation). lookup resolves names in
 * expressions (earlier named scalars). 1 ok, 0 error (message in err). */
int akr_parse_arg(const char* spec, akr_arg* a, akr_lookup_fn lookup, void* user, char* err, size_t cap) {
    const char* p = spec;
    const char* q;
    char tname[16], sub[300], msg[200];
    size_t n;
    int t;
    memset(a, 0, sizeof *a);
    a->dir = AK_ARG_INOUT;
    if (!spec) return akr_err(err, cap, "empty argument spec%s%s", "", "");
    /* NAME= */
    q = p;
    if (isalpha((unsigned char)*q) || *q == '_') {
        while (isalnum((unsigned char)*q) || *q == '_') q++;
        if (*q == '=') {
            if ((size_t)(q - p) >= sizeof a->name) return akr_err(err, cap, "argument name too long in '%.80s'%s", spec, "");
            memcpy(a->name, p, (size_t)(q - p));
            a->name[q - p] = 0;
            p = q + 1;
        }
    }
    if (!strncmp(p, "in:", 3)) { a->dir = AK_ARG_IN; p += 3; }
    else if (!strncmp(p, "out:", 4)) { a->dir = AK_ARG_OUT; p += 4; }
    else if (!strncmp(p, "inout:", 6)) { a->dir = AK_ARG_INOUT; p += 6; }
    n = strcspn(p, "[:");
    if (n == 0 || n >= sizeof tname || !p[n])
        return akr_err(err, cap, "'%.80s': expected TYPE:VALUE (i32:1024) or TYPE[DIMS]:INIT (f32[1024]:rand)%s", spec, "");
    memcpy(tname, p, n);
    tname[n] = 0;
    for (t = 0; t < AKR_T_COUNT; t++) if (!strcmp(tname, akr_types[t].name)) break;
    if (t == AKR_T_COUNT)
        return akr_err(err, cap, "'%.80s': unknown type '%s' (f32 f64 f16 bf16 i32 i64 u8; scalars also u32 u64)", spec, tname);
    a->type = t;
    a->dtype = akr_types[t].dtype;
    p += n;
    if (*p == ':') {                                      /* scalar */
        if (!akr_types[t].scalar_ok) return akr_err(err, cap, "'%.80s': %s is a buffer type, not a scalar (write TYPE[N]:INIT)", spec, tname);
        a->kind = AKR_SCALAR;
        a->dir = AK_ARG_VALUE;
        if (!akr_eval(p + 1, lookup, user, &a->value, msg, sizeof msg)) return akr_err(err, cap, "'%.80s': %s", spec, msg);
        if (akr_types[t].is_int) {
            long long v = a->value.i;
            if (!a->value.is_int) return akr_err(err, cap, "'%.80s': %s needs an integer value", spec, tname);
            if ((t == AKR_T_I32 && (v < INT32_MIN || v > INT32_MAX)) || (t == AKR_T_U32 && (v < 0 || v > (long long)UINT32_MAX)) ||
                (t == AKR_T_U64 && v < 0))
                return akr_err(err, cap, "'%.80s': value out of range for %s", spec, tname);
        }
        return 1;
    }
    /* buffer: [dims]:init */
    if (!akr_types[t].buffer_ok) return akr_err(err, cap, "'%.80s': %s is a scalar type only", spec, tname);
    a->kind = AKR_BUFFER;
    q = strchr(p, ']');
    if (!q || (size_t)(q - p - 1) >= sizeof sub || q == p + 1) return akr_err(err, cap, "'%.80s': expected [DIMS] after %s", spec, tname);
    memcpy(sub, p + 1, (size_t)(q - p - 1));
    sub[q - p - 1] = 0;
    {
        char sep = strchr(sub, ',') ? ',' : 'x';
        char* s = sub;
        unsigned long long total = 1;
        for (;;) {
            char* e = strchr(s, sep);
            akr_val v;
            if (e) *e = 0;
            if (a->ndim == AKR_MAX_DIMS) return akr_err(err, cap, "'%.80s': more than 8 dimensions%s", spec, "");
            if (!akr_eval(s, lookup, user, &v, msg, sizeof msg)) return akr_err(err, cap, "'%.80s': dimension: %s", spec, msg);
            if (!v.is_int || v.i < 1) return akr_err(err, cap, "'%.80s': dimensions must be integers >= 1%s", spec, "");
            if ((unsigned long long)v.i > AKR_MAX_BYTES || total * (unsigned long long)v.i > AKR_MAX_BYTES)
                return akr_err(err, cap, "'%.80s': over 2^40 elements%s", spec, "");
            total *= (unsigned long long)v.i;
            a->dims[a->ndim++] = (size_t)v.i;
            if (!e) break;
            s = e + 1;
        }
        if (total * ak_dtype_size(a->dtype) > AKR_MAX_BYTES) return akr_err(err, cap, "'%.80s': over 1 TiB%s", spec, "");
        a->numel = (size_t)total;
        a->bytes = a->numel * ak_dtype_size(a->dtype);
    }
    p = q + 1;
    if (*p != ':') return akr_err(err, cap, "'%.80s': expected :rand, :zeros, :ones, :range or :@FILE after the dimensions%s", spec, "");
    p++;
    if (!strcmp(p, "rand")) a->init = AKR_RAND;
    else if (!strcmp(p, "zeros")) a->init = AKR_ZEROS;
    else if (!strcmp(p, "ones")) a->init = AKR_ONES;
    else if (!strcmp(p, "range")) a->init = AKR_RANGE;
    else if (p[0] == '@' && p[1] && strlen(p + 1) < sizeof a->file) { a->init = AKR_FILE; strcpy(a->file, p + 1); }
    else return akr_err(err, cap, "'%.80s': unknown initial value '%.40s' (rand, zeros, ones, range, @FILE)", spec, p);
    return 1;
}

/* ---- the command ------------------------------------------------------------ */

#define AKR_MAX_DEFS 40
#define AKR_MAX_TUNE AK_TUNE_MAX_PARAMS
typedef struct akr_cmd {
    const char* mode;
    const char *file, *kernel, *grid_s, *block_s, *shared_s, *cpu;
    const char* specs[AK_MAX_ARGS];
    akr_arg args[AK_MAX_ARGS];
    int nargs;
    const char* outs[AK_MAX_ARGS];
    int nouts;
    const char* defs[AKR_MAX_DEFS];
    int ndefs;
    double atol, rtol;
    int have_tol;
    int trials, warmup;
    const char *bytes_s, *flops_s, *json, *compare, *label;
    /* tune */
    ak_tune_param tp[AKR_MAX_TUNE];
    char* tvals_buf[AKR_MAX_TUNE];
    const char** tvals[AKR_MAX_TUNE];
    int ntune;
    const char* shape_key;
    int max_variants, retune;
    double max_ms;
    unsigned long long seed;
    const ak_tune_point* point;     /* while evaluating a variant's geometry */
} akr_cmd;

/* names: named scalars, numeric -D values, tune parameters of the current point, bytes()/numel() of buffers */
static int akr_lookup(void* user, const char* name, const char* fn, akr_val* out) {
    akr_cmd* c = (akr_cmd*)user;
    int i;
    if (fn) {
        for (i = 0; i < c->nargs; i++)
            if (c->args[i].kind == AKR_BUFFER && c->args[i].name[0] && !strcmp(c->args[i].name, name)) {
                *out = akr_int((long long)(!strcmp(fn, "bytes") ? c->args[i].bytes : c->args[i].numel));
                return 1;
            }
        return 0;
    }
    if (c->point)
        for (i = 0; i < c->point->num_params; i++)
            if (!strcmp(c->point->names[i], name)) {
                char m[8];
                return akr_eval(c->point->values[i], NULL, NULL, out, m, sizeof m);
            }
    for (i = 0; i < c->nargs; i++)
        if (c->args[i].kind == AKR_SCALAR && c->args[i].name[0] && !strcmp(c->args[i].name, name)) { *out = c->args[i].value; return 1; }
    for (i = c->ndefs - 1; i >= 0; i--) {
        const char* d = c->defs[i] + 2;
        size_t n = strlen(name);
        if (!strncmp(d, name, n) && d[n] == '=') {
            char m[8];
            return akr_eval(d + n + 1, NULL, NULL, out, m, sizeof m);
        }
    }
    return 0;
}

/* "X[,Y,Z]" of expressions into a dim3 */
static int akr_dim3(akr_cmd* c, const char* what, const char* s, ak_dim3* d, char* err, size_t cap) {
    char buf[512], msg[200];
    char* part[3];
    unsigned v[3] = { 1, 1, 1 };
    int n = 0, depth = 0, i;
    char* p;
    if (!s || strlen(s) >= sizeof buf) { snprintf(err, cap, "--%s is missing or too long", what); return 0; }
    strcpy(buf, s);
    part[n++] = buf;
    for (p = buf; *p; p++) {              /* split on top-level commas */
        if (*p == '(') depth++;
        else if (*p == ')') depth--;
        else if (*p == ',' && depth == 0) {
            if (n == 3) { snprintf(err, cap, "--%s '%s': at most 3 values (X,Y,Z)", what, s); return 0; }
            *p = 0;
            part[n++] = p + 1;
        }
    }
    for (i = 0; i < n; i++) {
        akr_val x;
        if (!akr_eval(part[i], akr_lookup, c, &x, msg, sizeof msg)) { snprintf(err, cap, "--%s '%s': %s", what, s, msg); return 0; }
        if (!x.is_int || x.i < 1 || x.i > 0x7fffffffLL) { snprintf(err, cap, "--%s '%s': each value must be an integer in 1..2^31-1", what, s); return 0; }
        v[i] = (unsigned)x.i;
    }
    d->x = v[0]; d->y = v[1]; d->z = v[2];
    return 1;
}
static int akr_shared(akr_cmd* c, size_t* out, char* err, size_t cap) {
    akr_val x;
    char msg[200];
    *out = 0;
    if (!c->shared_s) return 1;
    if (!akr_eval(c->shared_s, akr_lookup, c, &x, msg, sizeof msg)) { snprintf(err, cap, "--shared '%s': %s", c->shared_s, msg); return 0; }
    if (!x.is_int || x.i < 0 || x.i > (1LL << 31)) { snprintf(err, cap, "--shared '%s': bytes must be an integer in 0..2^31", c->shared_s); return 0; }
    *out = (size_t)x.i;
    return 1;
}

/* ---- buffers: initial values, files ------------------------------------------ */

static double akr_rand(unsigned long long* s) {
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* .npy header: descr and element count; *data_off where the data starts. 1 ok. */
static int akr_npy_header(const unsigned char* b, size_t n, char* descr, size_t dcap, size_t* numel, size_t* data_off) {
    size_t hl, i;
    const char *h, *p, *e;
    char hdr[4096];
    if (n < 10 || memcmp(b, "\x93NUMPY", 6)) return 0;
    if (b[6] == 1) { hl = (size_t)b[8] | ((size_t)b[9] << 8); *data_off = 10 + hl; }
    else if ((b[6] == 2 || b[6] == 3) && n >= 12) { hl = (size_t)b[8] | ((size_t)b[9] << 8) | ((size_t)b[10] << 16) | ((size_t)b[11] << 24); *data_off = 12 + hl; }
    else return 0;
    if (hl >= sizeof hdr || *data_off > n) return 0;
    memcpy(hdr, b + *data_off - hl, hl);
    hdr[hl] = 0;
    h = hdr;
    if (strstr(h, "'fortran_order': True")) return 0;
    p = strstr(h, "'descr':");
    if (!p) return 0;
    p = strchr(p + 8, '\'');
    if (!p) return 0;
    e = strchr(p + 1, '\'');
    if (!e || (size_t)(e - p - 1) >= dcap) return 0;
    memcpy(descr, p + 1, (size_t)(e - p - 1));
    descr[e - p - 1] = 0;
    p = strstr(h, "'shape':");
    if (!p || !(p = strchr(p, '('))) return 0;
    *numel = 1;
    for (i = 0, p++; *p && *p != ')';) {
        char* end;
        unsigned long long v;
        while (*p == ' ' || *p == ',') p++;
        if (*p == ')') break;
        errno = 0;
        v = strtoull(p, &end, 10);
        if (end == p || errno || (v && *numel > AKR_MAX_BYTES / v)) return 0;
        *numel *= (size_t)v;
        p = end;
        i++;
    }
    return *p == ')';
}

static void* akr_read_all(const char* path, size_t* n) {
    FILE* f = fopen(path, "rb");
    long len;
    void* b;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) { fclose(f); return NULL; }
    b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) { free(b); b = NULL; }
    fclose(f);
    if (b) { ((char*)b)[len] = 0; *n = (size_t)len; }
    return b;
}

static int akr_fill(akr_arg* a, unsigned long long* rng, char* err, size_t cap) {
    size_t i;
    a->host = malloc(a->bytes ? a->bytes : 1);
    if (!a->host) { snprintf(err, cap, "no host memory for %zu bytes", a->bytes); return 0; }
    if (a->init == AKR_FILE) {
        size_t n = 0, off = 0, numel = 0;
        char descr[16];
        unsigned char* b = (unsigned char*)akr_read_all(a->file, &n);
        if (!b) { snprintf(err, cap, "cannot read %s: %s", a->file, strerror(errno)); return 0; }
        if (akr_npy_header(b, n, descr, sizeof descr, &numel, &off)) {
            const char* want = akr_types[a->type].npy;
            if (a->dtype == AK_BF16) want = "<u2";
            if (strcmp(descr, want) || numel != a->numel || n - off != a->bytes) {
                snprintf(err, cap, "%s holds %zu elements of '%s'; the argument wants %zu of '%s'", a->file, numel, descr, a->numel, want);
                free(b);
                return 0;
            }
            memcpy(a->host, b + off, a->bytes);
        } else {
            if (n != a->bytes) {
                snprintf(err, cap, "%s has %zu bytes; %s[%zu elements] needs exactly %zu", a->file, n, akr_types[a->type].name, a->numel, a->bytes);
                free(b);
                return 0;
            }
            memcpy(a->host, b, a->bytes);
        }
        free(b);
        return 1;
    }
    if (a->init == AKR_ZEROS) { memset(a->host, 0, a->bytes); return 1; }
    for (i = 0; i < a->numel; i++) {
        double v;
        if (a->init == AKR_ONES) v = 1;
        else if (a->init == AKR_RANGE) v = (double)i;
        else if (a->dtype == AK_U8) v = floor(akr_rand(rng) * 256);
        else if (akr_types[a->type].is_int) v = floor(akr_rand(rng) * 201) - 100;
        else v = akr_rand(rng) * 2 - 1;
        ak_elem_set(a->host, a->dtype, i, v);
    }
    return 1;
}

/* Write a buffer (host copy) as .npy (bf16 widened to f32) or raw bytes. */
static int akr_write_out(const akr_arg* a, const void* data, const char* path, char* err, size_t cap) {
    FILE* f = fopen(path, "wb");
    size_t n = strlen(path), i;
    int ok = 1;
    if (!f) { snprintf(err, cap, "cannot write %s: %s", path, strerror(errno)); return 0; }
    if (n > 4 && !strcmp(path + n - 4, ".npy")) {
        char hdr[512], shape[256] = "";
        int h, pad, d;
        for (d = 0; d < a->ndim; d++) {
            size_t l = strlen(shape);
            snprintf(shape + l, sizeof shape - l, "%zu,%s", a->dims[d], d + 1 < a->ndim ? " " : "");
        }
        if (a->ndim > 1) shape[strlen(shape) - 1] = 0;   /* (4, 5) ; (7,) */
        h = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", akr_types[a->type].npy, shape);
        pad = 64 - (10 + h + 1) % 64;
        if (pad == 64) pad = 0;
        memset(hdr + h, ' ', (size_t)pad);
        hdr[h + pad] = '\n';
        h += pad + 1;
        ok = fwrite("\x93NUMPY\x01\x00", 1, 8, f) == 8 && fputc(h & 0xff, f) != EOF && fputc(h >> 8, f) != EOF &&
             fwrite(hdr, 1, (size_t)h, f) == (size_t)h;
        if (ok && a->dtype == AK_BF16) {
            for (i = 0; i < a->numel && ok; i++) {
                float v = (float)ak_elem_get(data, AK_BF16, i);
                ok = fwrite(&v, 4, 1, f) == 1;
            }
        } else if (ok) ok = fwrite(data, 1, a->bytes, f) == a->bytes;
    } else {
        ok = fwrite(data, 1, a->bytes, f) == a->bytes;
    }
    if (fclose(f) != 0) ok = 0;
    if (!ok) snprintf(err, cap, "writing %s failed", path);
    return ok;
}

/* element index -> "[i, j]" */
static void akr_coords(const akr_arg* a, size_t idx, char* out, size_t cap) {
    size_t c[AKR_MAX_DIMS];
    int d;
    for (d = a->ndim - 1; d >= 0; d--) { c[d] = idx % a->dims[d]; idx /= a->dims[d]; }
    snprintf(out, cap, "[");
    for (d = 0; d < a->ndim; d++) {
        size_t l = strlen(out);
        snprintf(out + l, cap - l, "%zu%s", c[d], d + 1 < a->ndim ? ", " : "]");
    }
}
static const char* akr_argname(const akr_cmd* c, int i, char* buf, size_t cap) {
    if (c->args[i].name[0]) return c->args[i].name;
    snprintf(buf, cap, "arg%d", i);
    return buf;
}

/* ---- command line ------------------------------------------------------------ */

static void akr_usage(FILE* f, const char* mode) {
    int run = !strcmp(mode, "run"), bench = !strcmp(mode, "bench");
    fprintf(f,
            "usage: amdkit %s FILE.hip --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--shared BYTES]\n"
            "         --arg SPEC [--arg SPEC ...] [-DNAME=V ...] [-IDIR ...] [--cpu LIB.so:FUNC] [--atol A] [--rtol R] [--seed N]\n",
            mode);
    if (run) fprintf(f, "         [--out ARG=FILE.bin|FILE.npy ...]\n");
    else if (bench)
        fprintf(f, "         [--trials N] [--warmup N] [--bytes EXPR] [--flops EXPR] [--json FILE] [--compare OTHER.json] [--name LABEL]\n");
    else
        fprintf(f, "         --tune NAME=V1,V2,... [--tune ...] [--max-variants N] [--max-ms T] [--shape-key KEY] [--retune]\n"
                   "         [--trials N] [--warmup N]\n");
    fprintf(f,
            "  SPEC: [NAME=][in:|out:|inout:]TYPE:VALUE (i32:1024, f32:0.5) or TYPE[DIMS]:INIT (f16[4096x4096]:rand|zeros|ones|range|@FILE)\n"
            "  --grid/--block/--shared/--bytes/--flops/VALUE/DIMS are expressions over named scalars, -D values and --tune\n"
            "  parameters: + - * / %% ( ) cdiv(a,b) min max bytes(BUF) numel(BUF)\n");
}

static int akr_need(int i, int argc, char** argv) {
    if (i + 1 < argc) return 1;
    fprintf(stderr, "amdkit: %s needs a value\n", argv[i]);
    return 0;
}
static int akr_int_opt(const char* opt, const char* s, long long lo, long long hi, long long* out) {
    char* end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "amdkit: %s '%s': expected an integer in %lld..%lld\n", opt, s, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}
static int akr_dbl_opt(const char* opt, const char* s, double* out) {
    char* end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0) || !isfinite(v)) {
        fprintf(stderr, "amdkit: %s '%s': expected a number >= 0\n", opt, s);
        return 0;
    }
    *out = v;
    return 1;
}

static int akr_parse_cmdline(akr_cmd* c, int argc, char** argv) {
    int i;
    long long v;
    for (i = 0; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--kernel")) { if (!akr_need(i, argc, argv)) return 0; c->kernel = argv[++i]; }
        else if (!strcmp(a, "--grid")) { if (!akr_need(i, argc, argv)) return 0; c->grid_s = argv[++i]; }
        else if (!strcmp(a, "--block")) { if (!akr_need(i, argc, argv)) return 0; c->block_s = argv[++i]; }
        else if (!strcmp(a, "--shared")) { if (!akr_need(i, argc, argv)) return 0; c->shared_s = argv[++i]; }
        else if (!strcmp(a, "--arg")) {
            if (!akr_need(i, argc, argv)) return 0;
            if (c->nargs == AK_MAX_ARGS) { fprintf(stderr, "amdkit: more than %d --arg\n", AK_MAX_ARGS); return 0; }
            c->specs[c->nargs++] = argv[++i];
        } else if (!strcmp(a, "--out") && !strcmp(c->mode, "run")) {
            if (!akr_need(i, argc, argv)) return 0;
            if (c->nouts == AK_MAX_ARGS) { fprintf(stderr, "amdkit: too many --out\n"); return 0; }
            c->outs[c->nouts++] = argv[++i];
        } else if (!strncmp(a, "-D", 2) || !strncmp(a, "-I", 2)) {
            if (strlen(a) < 3) { fprintf(stderr, "amdkit: '%s': write -DNAME=VALUE / -IDIR without a space\n", a); return 0; }
            if (c->ndefs == AKR_MAX_DEFS) { fprintf(stderr, "amdkit: more than %d -D/-I options\n", AKR_MAX_DEFS); return 0; }
            c->defs[c->ndefs++] = a;
        } else if (!strcmp(a, "--cpu")) { if (!akr_need(i, argc, argv)) return 0; c->cpu = argv[++i]; }
        else if (!strcmp(a, "--atol")) { if (!akr_need(i, argc, argv) || !akr_dbl_opt(a, argv[++i], &c->atol)) return 0; c->have_tol |= 1; }
        else if (!strcmp(a, "--rtol")) { if (!akr_need(i, argc, argv) || !akr_dbl_opt(a, argv[++i], &c->rtol)) return 0; c->have_tol |= 2; }
        else if (!strcmp(a, "--seed")) { if (!akr_need(i, argc, argv) || !akr_int_opt(a, argv[++i], 0, LLONG_MAX, &v)) return 0; c->seed = (unsigned long long)v; }
        else if (!strcmp(a, "--trials") && strcmp(c->mode, "run")) { if (!akr_need(i, argc, argv) || !akr_int_opt(a, argv[++i], 1, 1000000, &v)) return 0; c->trials = (int)v; }
        else if (!strcmp(a, "--warmup") && strcmp(c->mode, "run")) { if (!akr_need(i, argc, argv) || !akr_int_opt(a, argv[++i], 0, 1000000, &v)) return 0; c->warmup = v ? (int)v : -1; }
        else if (!strcmp(a, "--bytes") && !strcmp(c->mode, "bench")) { if (!akr_need(i, argc, argv)) return 0; c->bytes_s = argv[++i]; }
        else if (!strcmp(a, "--flops") && !strcmp(c->mode, "bench")) { if (!akr_need(i, argc, argv)) return 0; c->flops_s = argv[++i]; }
        else if (!strcmp(a, "--json") && !strcmp(c->mode, "bench")) { if (!akr_need(i, argc, argv)) return 0; c->json = argv[++i]; }
        else if (!strcmp(a, "--compare") && !strcmp(c->mode, "bench")) { if (!akr_need(i, argc, argv)) return 0; c->compare = argv[++i]; }
        else if (!strcmp(a, "--name") && !strcmp(c->mode, "bench")) { if (!akr_need(i, argc, argv)) return 0; c->label = argv[++i]; }
        else if (!strcmp(a, "--tune") && !strcmp(c->mode, "tune")) {
            const char *s, *eq;
            char* p;
            int n = 1, k;
            if (!akr_need(i, argc, argv)) return 0;
            s = argv[++i];
            eq = strchr(s, '=');
            if (c->ntune == AKR_MAX_TUNE) { fprintf(stderr, "amdkit tune: more than %d --tune parameters\n", AKR_MAX_TUNE); return 0; }
            if (!eq || eq == s || !eq[1] || (size_t)(eq - s) > 64) { fprintf(stderr, "amdkit tune: --tune '%s': expected NAME=V1,V2,...\n", s); return 0; }
            c->tvals_buf[c->ntune] = p = (char*)malloc(strlen(s) + 1);
            if (!p) return 0;
            strcpy(p, s);
            p[eq - s] = 0;
            for (k = 0; eq[1 + k]; k++) n += eq[1 + k] == ',';
            c->tvals[c->ntune] = (const char**)calloc((size_t)n, sizeof(char*));
            if (!c->tvals[c->ntune]) return 0;
            c->tp[c->ntune].name = p;
            c->tp[c->ntune].values = c->tvals[c->ntune];
            c->tp[c->ntune].count = n;
            p += eq - s + 1;
            for (k = 0; k < n; k++) {
                char* comma = strchr(p, ',');
                if (comma) *comma = 0;
                c->tvals[c->ntune][k] = p;
                p = comma ? comma + 1 : p + strlen(p);
            }
            c->ntune++;
        } else if (!strcmp(a, "--shape-key") && !strcmp(c->mode, "tune")) { if (!akr_need(i, argc, argv)) return 0; c->shape_key = argv[++i]; }
        else if (!strcmp(a, "--max-variants") && !strcmp(c->mode, "tune")) { if (!akr_need(i, argc, argv) || !akr_int_opt(a, argv[++i], 1, 100000, &v)) return 0; c->max_variants = (int)v; }
        else if (!strcmp(a, "--max-ms") && !strcmp(c->mode, "tune")) { if (!akr_need(i, argc, argv) || !akr_dbl_opt(a, argv[++i], &c->max_ms)) return 0; }
        else if (!strcmp(a, "--retune") && !strcmp(c->mode, "tune")) c->retune = 1;
        else if (a[0] != '-' && !c->file) c->file = a;
        else { fprintf(stderr, "amdkit %s: unknown or misplaced argument '%s'\n", c->mode, a); return 0; }
    }
    if (!c->file || !c->kernel || !c->grid_s || !c->block_s) {
        fprintf(stderr, "amdkit %s: FILE.hip, --kernel, --grid and --block are required\n", c->mode);
        return 0;
    }
    if (!strcmp(c->mode, "tune") && !c->ntune) { fprintf(stderr, "amdkit tune: give at least one --tune NAME=V1,V2,...\n"); return 0; }
    return 1;
}

/* ak_check tolerance: the loosest of the compared buffers' dtypes, unless given */
static void akr_tolerance(akr_cmd* c) {
    double at = 0, rt = 0;
    int i;
    for (i = 0; i < c->nargs; i++) {
        double a = 0, r = 0;
        if (c->args[i].kind != AKR_BUFFER || c->args[i].dir == AK_ARG_IN) continue;
        switch (c->args[i].dtype) {
        case AK_F64: a = 1e-9; r = 1e-9; break;
        case AK_F32: a = 1e-5; r = 1e-4; break;
        case AK_F16: a = 1e-3; r = 1e-2; break;
        case AK_BF16: a = 1e-2; r = 3e-2; break;
        default: break;
        }
        if (a > at) at = a;
        if (r > rt) rt = r;
    }
    if (!(c->have_tol & 1)) c->atol = at;
    if (!(c->have_tol & 2)) c->rtol = rt;
}

static ak_cpu_kernel_fn akr_load_cpu(const char* spec, void** handle) {
    char path[1024];
    const char* colon = strrchr(spec, ':');
    void* sym;
    ak_cpu_kernel_fn fn;
    *handle = NULL;
    if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) + 3 > sizeof path) {
        fprintf(stderr, "amdkit: --cpu '%s': expected LIB.so:FUNCTION\n", spec);
        return NULL;
    }
    /* a bare file name means the file here, not a library search */
    snprintf(path, sizeof path, "%s%.*s", memchr(spec, '/', (size_t)(colon - spec)) ? "" : "./", (int)(colon - spec), spec);
    *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*handle) { fprintf(stderr, "amdkit: --cpu: cannot load %s: %s\n", path, dlerror()); return NULL; }
    sym = dlsym(*handle, colon + 1);
    if (!sym) { fprintf(stderr, "amdkit: --cpu: %s has no function '%s'\n", path, colon + 1); return NULL; }
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

static void akr_json_str(FILE* f, const char* s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/* the first top-level-looking "key": number in a JSON text */
static int akr_json_number(const char* text, const char* key, double* out) {
    char pat[64];
    const char* p;
    char* end;
    snprintf(pat, sizeof pat, "\"%s\"", key);
    p = strstr(text, pat);
    if (!p) return 0;
    p += strlen(pat);
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p != ':') return 0;
    p++;
    *out = strtod(p, &end);
    return end != p && isfinite(*out);
}

/* The numbers of a JSON array under "key" (up to cap of them); the count, 0 if there is none. */
static int akr_json_numbers(const char* text, const char* key, double* out, int cap) {
    char pat[64];
    const char* p;
    char* end;
    int n = 0;
    snprintf(pat, sizeof pat, "\"%s\"", key);
    p = strstr(text, pat);
    if (!p) return 0;
    p += strlen(pat);
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p++ != ':') return 0;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p++ != '[') return 0;
    while (n < cap) {
        double v = strtod(p, &end);
        if (end == p || !isfinite(v)) break;
        out[n++] = v;
        p = end;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (*p != ',') break;
        p++;
    }
    return n;
}

static int akr_cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}
/* Median of t[0..n) (sorted here) and its distribution-free interval from order statistics: with z the normal
 * quantile of the confidence, ranks n/2 -+ z sqrt(n)/2 (bench/report.py's median_ci). */
static void akr_median_ci(double* t, int n, double z, double* med, double* lo, double* hi) {
    double half = z * sqrt((double)n) / 2.0;
    int j = (int)floor(n / 2.0 - half), k = (int)ceil(n / 2.0 + half) + 1;
    qsort(t, (size_t)n, sizeof *t, akr_cmp_double);
    *med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    *lo = t[(j < 1 ? 1 : j) - 1];
    *hi = t[(k > n ? n : k) - 1];
}

static void akr_progress(void* user, const ak_tune_progress* p) {
    char defs[512] = "";
    int i;
    (void)user;
    for (i = 0; i < p->point->num_params; i++) {
        size_t l = strlen(defs);
        snprintf(defs + l, sizeof defs - l, "%s%s=%s", i ? " " : "", p->point->names[i], p->point->values[i]);
    }
    if (p->status == AK_TUNE_SKIPPED) return; /* printed by akr_geometry */
    if (p->status == AK_TUNE_TIMED)
        printf("  [%d/%d] variant %-3d %-40s %10.4f ms%s\n", p->done, p->total, p->point->index, defs, p->ms,
               p->best_index == p->point->index ? "  (best so far)" : "");
    else
        printf("  [%d/%d] variant %-3d %-40s %s: %s\n", p->done, p->total, p->point->index, defs,
               p->status == AK_TUNE_WRONG ? "WRONG" : "failed", p->message);
    fflush(stdout);
}

static ak_result akr_geometry(void* user, const ak_tune_point* p, ak_dim3* grid, ak_dim3* block, size_t* shmem) {
    akr_cmd* c = (akr_cmd*)user;
    char err[400];
    int ok;
    c->point = p;
    ok = akr_dim3(c, "grid", c->grid_s, grid, err, sizeof err) && akr_dim3(c, "block", c->block_s, block, err, sizeof err) &&
         akr_shared(c, shmem, err, sizeof err);
    if (ok && (unsigned long long)block->x * block->y * block->z > 1024ull) {
        snprintf(err, sizeof err, "block (%u,%u,%u) has over 1024 threads", block->x, block->y, block->z);
        ok = 0;
    }
    c->point = NULL;
    if (!ok) {
        printf("  variant %-3d left out: %s\n", p->index, err);
        return AK_ERROR_INVALID_ARGUMENT;
    }
    return AK_OK;
}

static char* akr_source(const char* path) {
    size_t n;
    return (char*)akr_read_all(path, &n);
}

static int akr_main(akr_cmd* c) {
    ak_context* ctx = NULL;
    ak_kernel* k = NULL;
    ak_args args;
    ak_dim3 grid = { 1, 1, 1 }, block = { 1, 1, 1 };
    size_t shmem = 0;
    ak_cpu_kernel_fn cpu = NULL;
    void* cpu_lib = NULL;
    char* src = NULL;
    double* times = NULL;   /* bench: each trial's ms */
    char err[1024], nb[32];
    const ak_device_info* dev;
    unsigned long long rng = c->seed;
    int rc = 1, i, tuning = !strcmp(c->mode, "tune");
    ak_result r;

    memset(&args, 0, sizeof args);
    /* arguments: scalars first (buffers' dims may name them), then buffers */
    {
        int total = c->nargs;
        for (i = 0; i < total; i++) {
            akr_arg tmp;
            c->nargs = i;  /* the names visible to this spec: the arguments before it */
            if (!akr_parse_arg(c->specs[i], &tmp, akr_lookup, c, err, sizeof err)) {
                c->nargs = 0;
                fprintf(stderr, "amdkit %s: --arg %s\n", c->mode, err);
                return 2;
            }
            c->args[i] = tmp;
        }
    }
    c->nargs = i;
    for (i = 0; i < c->nargs; i++) {
        int j;
        if (!c->args[i].name[0]) continue;
        for (j = 0; j < i; j++)
            if (!strcmp(c->args[i].name, c->args[j].name)) {
                fprintf(stderr, "amdkit %s: two arguments are named '%s'\n", c->mode, c->args[i].name);
                return 2;
            }
    }
    if (!tuning && (!akr_dim3(c, "grid", c->grid_s, &grid, err, sizeof err) || !akr_dim3(c, "block", c->block_s, &block, err, sizeof err) ||
                    !akr_shared(c, &shmem, err, sizeof err))) {
        fprintf(stderr, "amdkit %s: %s\n", c->mode, err);
        return 2;
    }
    for (i = 0; i < c->nouts; i++) {
        const char* eq = strchr(c->outs[i], '=');
        int j, found = -1;
        if (!eq || eq == c->outs[i] || !eq[1]) { fprintf(stderr, "amdkit run: --out '%s': expected ARG=FILE (ARG: a name or an index)\n", c->outs[i]); return 2; }
        for (j = 0; j < c->nargs; j++) {
            char idx[16];
            snprintf(idx, sizeof idx, "%d", j);
            if ((!strncmp(c->outs[i], c->args[j].name, (size_t)(eq - c->outs[i])) && c->args[j].name[eq - c->outs[i]] == 0) ||
                ((size_t)(eq - c->outs[i]) == strlen(idx) && !strncmp(c->outs[i], idx, strlen(idx))))
                found = j;
        }
        if (found < 0 || c->args[found].kind != AKR_BUFFER) {
            fprintf(stderr, "amdkit run: --out '%s': no buffer argument by that name or index\n", c->outs[i]);
            return 2;
        }
    }
    akr_tolerance(c);
    if (c->cpu && !(cpu = akr_load_cpu(c->cpu, &cpu_lib))) goto done;
    if (!(src = akr_source(c->file))) { fprintf(stderr, "amdkit %s: cannot read %s: %s\n", c->mode, c->file, strerror(errno)); rc = 2; goto done; }
    if ((r = ak_context_create(NULL, &ctx)) != AK_OK) { fprintf(stderr, "amdkit %s: %s: %s\n", c->mode, ak_result_name(r), ak_last_error()); goto done; }
    dev = ak_context_device(ctx);
    /* buffers on the device, with their initial values */
    for (i = 0; i < c->nargs; i++) {
        akr_arg* a = &c->args[i];
        if (a->kind == AKR_SCALAR) {
            switch (a->type) {
            case AKR_T_F32: ak_args_f32(&args, (float)akr_num(a->value)); break;
            case AKR_T_F64: ak_args_f64(&args, akr_num(a->value)); break;
            case AKR_T_I32: ak_args_i32(&args, (int32_t)a->value.i); break;
            case AKR_T_U32: ak_args_u32(&args, (uint32_t)a->value.i); break;
            case AKR_T_I64: ak_args_i64(&args, (int64_t)a->value.i); break;
            default: ak_args_u64(&args, (uint64_t)a->value.i); break;
            }
            continue;
        }
        if (!akr_fill(a, &rng, err, sizeof err)) { fprintf(stderr, "amdkit %s: argument %s: %s\n", c->mode, akr_argname(c, i, nb, sizeof nb), err); goto done; }
        if ((r = ak_malloc(ctx, a->bytes, NULL, &a->dev)) != AK_OK || (r = ak_memcpy(ctx, a->dev, a->host, a->bytes, AK_H2D)) != AK_OK) {
            fprintf(stderr, "amdkit %s: argument %s (%zu bytes): %s\n", c->mode, akr_argname(c, i, nb, sizeof nb), a->bytes, ak_last_error());
            goto done;
        }
        ak_args_buffer(&args, a->dev, a->bytes, a->dtype, a->dir);
    }
    if (dev->backend == AK_BACKEND_CPU && !cpu) {
        fprintf(stderr, "amdkit %s: the cpu backend runs the kernel's C implementation: pass --cpu LIB.so:FUNCTION "
                        "(or run where a GPU is)\n", c->mode);
        goto done;
    }

    if (tuning) {
        ak_tune_space sp;
        ak_tune_options o;
        ak_tune_result res;
        char key[2048] = "", gkey[1024];
        memset(&sp, 0, sizeof sp);
        memset(&o, 0, sizeof o);
        sp.params = c->tp;
        sp.num_params = c->ntune;
        sp.geometry = akr_geometry;
        sp.geometry_user = c;
        snprintf(gkey, sizeof gkey, "grid=%s block=%s shared=%s", c->grid_s, c->block_s, c->shared_s ? c->shared_s : "0");
        sp.geometry_key = gkey;
        if (!c->shape_key) {
            for (i = 0; i < c->nargs; i++) {
                size_t l = strlen(key);
                snprintf(key + l, sizeof key - l, "%s%s", i ? " " : "", c->specs[i]);
            }
        }
        o.shape_key = c->shape_key ? c->shape_key : key;
        o.options = c->defs;
        o.num_options = c->ndefs;
        o.source_name = c->file;
        o.max_variants = c->max_variants;
        o.max_ms = c->max_ms;
        o.trials = c->trials;
        o.warmup = c->warmup < 0 ? 0 : c->warmup;
        o.cpu = cpu;
        o.atol = c->atol;
        o.rtol = c->rtol;
        o.retune = c->retune;
        o.progress = akr_progress;
        printf("tune %s (%s) on %s [%s, %s]\n", c->kernel, c->file, dev->name, ak_backend_name(dev->backend), dev->arch);
        if (dev->backend == AK_BACKEND_CPU)
            printf("note: on the cpu backend every variant runs the same C implementation (--cpu): the timings are of that\n"
                   "      function on the host and cannot choose a variant; the choice shown is not stored\n");
        fflush(stdout);
        r = ak_autotune(ctx, src, c->kernel, &sp, &args, &o, &res);
        if (r != AK_OK) { fprintf(stderr, "amdkit tune: %s: %s\n", ak_result_name(r), ak_last_error()); goto done; }
        printf("chosen: %s  grid (%u,%u,%u) block (%u,%u,%u) shared %zu  %.4f ms\n", res.defines, res.grid.x, res.grid.y, res.grid.z,
               res.block.x, res.block.y, res.block.z, res.shared_bytes, res.ms);
        if (res.from_cache) printf("from the stored choice: 0 variants timed (%d in the space)\n", res.total);
        else printf("tuned: %d variants timed, %d rejected, of %d in the space; %s\n", res.timed, res.rejected, res.total,
                    res.stored ? "choice stored"
                               : dev->backend == AK_BACKEND_CPU ? "not stored (cpu backend)" : "not stored (no disk cache)");
        ak_kernel_release(res.kernel);
        rc = 0;
        goto done;
    }

    {
        ak_compile_options co;
        memset(&co, 0, sizeof co);
        co.options = c->defs;
        co.num_options = c->ndefs;
        co.source_name = c->file;
        if ((r = ak_kernel_get(ctx, src, c->kernel, &co, &k)) != AK_OK) {
            const ak_error_info* e = ak_last_error_info();
            fprintf(stderr, "amdkit %s: %s: %s\n", c->mode, ak_result_name(r), e->message);
            if (e->log && e->log[0]) fprintf(stderr, "%s\n", e->log);
            goto done;
        }
        if (cpu) ak_kernel_set_cpu(k, cpu, NULL);
    }
    printf("%s %s (%s) on %s [%s, %s]: grid (%u,%u,%u) block (%u,%u,%u) shared %zu\n", c->mode, c->kernel, c->file, dev->name,
           ak_backend_name(dev->backend), dev->arch, grid.x, grid.y, grid.z, block.x, block.y, block.z, shmem);
    if (cpu) {
        ak_check_result cr;
        if ((r = ak_check(k, grid, block, shmem, &args, c->atol, c->rtol, &cr)) != AK_OK) {
            fprintf(stderr, "amdkit %s: check: %s: %s\n", c->mode, ak_result_name(r), ak_last_error());
            goto done;
        }
        if (dev->backend == AK_BACKEND_CPU) printf("check: cpu backend, the C implementation ran (nothing to compare against)\n");
        else {
            const akr_arg* wa = &c->args[cr.worst_arg];
            char coords[256];
            double got = 0;
            akr_coords(wa, cr.worst_index, coords, sizeof coords);
            {   /* the device's value at the worst element */
                size_t es = ak_dtype_size(wa->dtype);
                unsigned char cell[8];
                if (es && es <= 8 && ak_memcpy(ctx, cell, (const char*)wa->dev + cr.worst_index * es, es, AK_D2H) == AK_OK)
                    got = ak_elem_get(cell, wa->dtype, 0);
            }
            printf("check vs %s: %s  max abs error %.6g, max rel error %.6g; worst at %s%s (element %zu) = %.9g; %zu of the elements "
                   "over atol %g + rtol %g\n", c->cpu, cr.passed ? "PASSED" : "FAILED", cr.max_abs_err, cr.max_rel_err,
                   akr_argname(c, cr.worst_arg, nb, sizeof nb), coords, cr.worst_index, got, cr.mismatches, c->atol, c->rtol);
        }
        if (!cr.passed) goto done;
        if (strcmp(c->mode, "run")) {  /* bench: the trials start again from the initial values */
            for (i = 0; i < c->nargs; i++)
                if (c->args[i].kind == AKR_BUFFER && (r = ak_memcpy(ctx, c->args[i].dev, c->args[i].host, c->args[i].bytes, AK_H2D)) != AK_OK) {
                    fprintf(stderr, "amdkit %s: %s\n", c->mode, ak_last_error());
                    goto done;
                }
        }
    } else if (!strcmp(c->mode, "run")) {
        if ((r = ak_launch(k, grid, block, shmem, NULL, ak_args_params(&args))) != AK_OK || (r = ak_stream_synchronize(ctx, NULL)) != AK_OK) {
            fprintf(stderr, "amdkit run: %s: %s\n", ak_result_name(r), ak_last_error());
            goto done;
        }
        printf("ran (no --cpu: not checked)\n");
    }

    if (!strcmp(c->mode, "run")) {
        for (i = 0; i < c->nouts; i++) {
            const char* eq = strchr(c->outs[i], '=');
            int j;
            for (j = 0; j < c->nargs; j++) {
                char idx[16];
                void* h;
                snprintf(idx, sizeof idx, "%d", j);
                if (!((!strncmp(c->outs[i], c->args[j].name, (size_t)(eq - c->outs[i])) && c->args[j].name[eq - c->outs[i]] == 0) ||
                      ((size_t)(eq - c->outs[i]) == strlen(idx) && !strncmp(c->outs[i], idx, strlen(idx)))))
                    continue;
                h = malloc(c->args[j].bytes);
                if (!h || ak_memcpy(ctx, h, c->args[j].dev, c->args[j].bytes, AK_D2H) != AK_OK ||
                    !akr_write_out(&c->args[j], h, eq + 1, err, sizeof err)) {
                    fprintf(stderr, "amdkit run: --out %s: %s\n", c->outs[i], h ? (err[0] ? err : ak_last_error()) : "no host memory");
                    free(h);
                    goto done;
                }
                printf("wrote %s (%s, %zu bytes)\n", eq + 1, akr_argname(c, j, nb, sizeof nb), c->args[j].bytes);
                free(h);
                break;
            }
        }
        rc = 0;
        goto done;
    }

    /* bench */
    {
        ak_bench_options bo;
        ak_bench_stats st;
        double bytes = 0, flops = 0;
        char device_str[64];
        akr_val v;
        memset(&bo, 0, sizeof bo);
        bo.trials = c->trials ? c->trials : 100;
        bo.warmup = c->warmup ? c->warmup : 10;
        if (c->bytes_s) {
            if (!akr_eval(c->bytes_s, akr_lookup, c, &v, err, sizeof err)) { fprintf(stderr, "amdkit bench: --bytes '%s': %s\n", c->bytes_s, err); rc = 2; goto done; }
            bytes = akr_num(v);
        }
        if (c->flops_s) {
            if (!akr_eval(c->flops_s, akr_lookup, c, &v, err, sizeof err)) { fprintf(stderr, "amdkit bench: --flops '%s': %s\n", c->flops_s, err); rc = 2; goto done; }
            flops = akr_num(v);
        }
        times = (double*)malloc((size_t)bo.trials * sizeof *times);
        if (!times) { fprintf(stderr, "amdkit bench: no host memory for %d trial times\n", bo.trials); goto done; }
        if ((r = ak_bench_kernel(k, grid, block, shmem, &args, &bo, times, &st)) != AK_OK) {
            fprintf(stderr, "amdkit bench: %s: %s\n", ak_result_name(r), ak_last_error());
            goto done;
        }
        snprintf(device_str, sizeof device_str, "%s:%d", ak_backend_name(dev->backend), dev->device);
        printf("  %d trials (%d warm-up, L2 flushed, inputs restored before each): median %.4f ms  mean %.4f  std %.4f  min %.4f  max %.4f\n",
               st.num_trials, bo.warmup < 0 ? 0 : bo.warmup, st.median, st.mean, st.std, st.min, st.max);
        if (dev->backend == AK_BACKEND_CPU)
            printf("  (cpu backend: these are timings of the C implementation --cpu on the host, not of the kernel)\n");
        if (c->bytes_s) printf("  %.1f GB/s  (%.0f bytes / median)\n", bytes / (st.median * 1e-3) / 1e9, bytes);
        if (c->flops_s) printf("  %.3f TFLOP/s  (%.0f flops / median)\n", flops / (st.median * 1e-3) / 1e12, flops);
        if (c->json) {
            FILE* f = fopen(c->json, "w");
            if (!f) { fprintf(stderr, "amdkit bench: cannot write %s: %s\n", c->json, strerror(errno)); goto done; }
            fprintf(f, "{\n  \"name\": ");
            akr_json_str(f, c->label ? c->label : c->kernel);
            fprintf(f, ",\n  \"kernel\": ");
            akr_json_str(f, c->kernel);
            fprintf(f, ",\n  \"file\": ");
            akr_json_str(f, c->file);
            fprintf(f, ",\n  \"defines\": [");
            for (i = 0; i < c->ndefs; i++) { fprintf(f, "%s", i ? ", " : ""); akr_json_str(f, c->defs[i]); }
            fprintf(f, "],\n  \"args\": [");
            for (i = 0; i < c->nargs; i++) { fprintf(f, "%s", i ? ", " : ""); akr_json_str(f, c->specs[i]); }
            fprintf(f, "],\n  \"grid\": [%u, %u, %u],\n  \"block\": [%u, %u, %u],\n  \"shared_bytes\": %zu,\n", grid.x, grid.y, grid.z,
                    block.x, block.y, block.z, shmem);
            fprintf(f, "  \"mean\": %.6f,\n  \"std\": %.6f,\n  \"min\": %.6f,\n  \"max\": %.6f,\n  \"median\": %.6f,\n  \"num_trials\": %d,\n",
                    st.mean, st.std, st.min, st.max, st.median, st.num_trials);
            fprintf(f, "  \"hardware\": ");
            akr_json_str(f, dev->name);
            fprintf(f, ",\n  \"device\": ");
            akr_json_str(f, device_str);
            fprintf(f, ",\n  \"backend\": \"%s\",\n  \"arch\": ", ak_backend_name(dev->backend));
            akr_json_str(f, dev->arch);
            if (c->bytes_s) fprintf(f, ",\n  \"bytes\": %.0f,\n  \"gbps\": %.3f", bytes, bytes / (st.median * 1e-3) / 1e9);
            if (c->flops_s) fprintf(f, ",\n  \"flops\": %.0f,\n  \"tflops\": %.4f", flops, flops / (st.median * 1e-3) / 1e12);
            fprintf(f, ",\n  \"times\": [");
            for (i = 0; i < st.num_trials; i++) fprintf(f, "%s%.6f", i ? ", " : "", times[i]);
            fprintf(f, "]\n}\n");
            if (fclose(f) != 0) { fprintf(stderr, "amdkit bench: writing %s failed\n", c->json); goto done; }
            printf("  wrote %s\n", c->json);
        }
        if (c->compare) {   /* speedup of the medians, with a 95% interval from both sides' trials */
            size_t n;
            char* text = (char*)akr_read_all(c->compare, &n);
            double other = 0, *ot = NULL, med, lo, hi, olo = 0, ohi = 0, z = 2.2365; /* z of sqrt(0.95) per side */
            int on = 0;
            if (!text) { fprintf(stderr, "amdkit bench: --compare: cannot read %s: %s\n", c->compare, strerror(errno)); goto done; }
            if (!akr_json_number(text, "median", &other) || !(other > 0)) {
                fprintf(stderr, "amdkit bench: --compare: %s has no positive \"median\" (ms; written by amdkit bench --json)\n",
                        c->compare);
                free(text);
                goto done;
            }
            if ((ot = (double*)malloc(100000 * sizeof *ot)) != NULL) on = akr_json_numbers(text, "times", ot, 100000);
            free(text);
            akr_median_ci(times, st.num_trials, z, &med, &lo, &hi);
            if (on >= 5) akr_median_ci(ot, on, z, &other, &olo, &ohi);
            free(ot);
            printf("  speedup vs %s: %.3fx (its median %.4f ms / this median %.4f ms)", c->compare, other / st.median, other,
                   st.median);
            if (on >= 5 && st.num_trials >= 5 && lo > 0) {
                double slo = olo / hi, shi = ohi / lo;
                printf(", 95%% interval [%.3f, %.3f]: %s\n", slo, shi,
                       slo > 1 ? "faster" : shi < 1 ? "slower" : "no difference these trials can show");
            } else
                printf("; no interval (%s): give both runs 5+ trials, written by amdkit bench --json\n",
                       on >= 5 ? "this run has under 5 trials" : "the other record has under 5 trial times");
            if (dev->backend == AK_BACKEND_CPU) printf("  (cpu backend: a comparison of C implementations on the host)\n");
        }
        rc = 0;
    }
done:
    free(times);
    ak_kernel_release(k);
    for (i = 0; i < c->nargs; i++) {
        if (c->args[i].dev) ak_free(ctx, c->args[i].dev);
        free(c->args[i].host);
    }
    ak_context_destroy(ctx);
    free(src);
    if (cpu_lib) dlclose(cpu_lib);
    return rc;
}

/* `amdkit run|bench|tune ...` (argv after the mode). Exit status: 0 ok, 1 failure or failed check, 2 usage. */
int amdkit_run_main(const char* mode, int argc, char** argv) {
    akr_cmd* c = (akr_cmd*)calloc(1, sizeof *c);
    int rc, i;
    if (!c) return 1;
    c->mode = mode;
    c->seed = 0x5eedull;
    for (i = 0; i < argc; i++)   /* --help anywhere: the usage, asked for: stdout, exit 0 */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { akr_usage(stdout, mode); free(c); return 0; }
    if (argc == 0) { akr_usage(stderr, mode); free(c); return 2; }   /* nothing given: stderr, exit 2 */
    rc = akr_parse_cmdline(c, argc, argv) ? akr_main(c) : (akr_usage(stderr, mode), 2);
    for (i = 0; i < c->ntune; i++) { free(c->tvals_buf[i]); free(c->tvals[i]); }
    free(c);
    return rc;
}
