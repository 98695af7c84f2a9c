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
 * The --arg list is checked against the kernel's parameters as its source declares them
 * (count, pointer or scalar, scalar type, pointee size) before anything runs.
 *
 * The arg-spec parser, the expression evaluator, the kernel-signature reader and the .npy
 * header parser are pure functions (akr_parse_arg, akr_eval, akr_kernel_params /
 * akr_check_params, akr_npy_header) so tests/fuzz can drive them without a device.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* open, fstat */
#endif
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
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- the kernel's parameters, as its source declares them -------------------- */

enum { AKR_P_PTR = 0, AKR_P_F32, AKR_P_F64, AKR_P_INT4, AKR_P_INT8, AKR_P_SMALL, AKR_P_UNKNOWN };
typedef struct akr_param {
    int cls;                        /* AKR_P_* */
    size_t elem;                    /* pointers: bytes of the pointee, 0 when not known (void, char, a struct) */
    char text[96];                  /* the declaration as written (shortened) */
} akr_param;

/* The type words of a declaration (qualifiers and the parameter name dropped)
 * to a class; a -DNAME=VALUE of the compile options is followed once. */
static int akr_type_class(const char* words, const char* const* defs, int ndefs, size_t* size, int depth) {
    static const struct { const char* w; int cls; size_t size; } tab[] = {
        { "float", AKR_P_F32, 4 }, { "double", AKR_P_F64, 8 },
        { "int", AKR_P_INT4, 4 }, { "signed", AKR_P_INT4, 4 }, { "signed int", AKR_P_INT4, 4 }, { "int32_t", AKR_P_INT4, 4 },
        { "unsigned", AKR_P_INT4, 4 }, { "unsigned int", AKR_P_INT4, 4 }, { "uint32_t", AKR_P_INT4, 4 }, { "uint", AKR_P_INT4, 4 },
        { "long", AKR_P_INT8, 8 }, { "long int", AKR_P_INT8, 8 }, { "long long", AKR_P_INT8, 8 }, { "long long int", AKR_P_INT8, 8 },
        { "unsigned long", AKR_P_INT8, 8 }, { "unsigned long long", AKR_P_INT8, 8 }, { "unsigned long int", AKR_P_INT8, 8 },
        { "unsigned long long int", AKR_P_INT8, 8 }, { "signed long", AKR_P_INT8, 8 }, { "signed long long", AKR_P_INT8, 8 },
        { "int64_t", AKR_P_INT8, 8 }, { "uint64_t", AKR_P_INT8, 8 }, { "size_t", AKR_P_INT8, 8 }, { "ptrdiff_t", AKR_P_INT8, 8 },
        { "ssize_t", AKR_P_INT8, 8 }, { "intptr_t", AKR_P_INT8, 8 }, { "uintptr_t", AKR_P_INT8, 8 },
        { "short", AKR_P_SMALL, 2 }, { "short int", AKR_P_SMALL, 2 }, { "unsigned short", AKR_P_SMALL, 2 }, { "unsigned short int", AKR_P_SMALL, 2 },
        { "int16_t", AKR_P_SMALL, 2 }, { "uint16_t", AKR_P_SMALL, 2 }, { "half", AKR_P_SMALL, 2 }, { "__half", AKR_P_SMALL, 2 },
        { "_Float16", AKR_P_SMALL, 2 }, { "__fp16", AKR_P_SMALL, 2 }, { "__hip_bfloat16", AKR_P_SMALL, 2 }, { "hip_bfloat16", AKR_P_SMALL, 2 },
        { "__nv_bfloat16", AKR_P_SMALL, 2 }, { "__bf16", AKR_P_SMALL, 2 }, { "bfloat16", AKR_P_SMALL, 2 },
        { "char", AKR_P_SMALL, 1 }, { "signed char", AKR_P_SMALL, 1 }, { "unsigned char", AKR_P_SMALL, 1 }, { "int8_t", AKR_P_SMALL, 1 },
        { "uint8_t", AKR_P_SMALL, 1 }, { "bool", AKR_P_SMALL, 1 }, { "_Bool", AKR_P_SMALL, 1 },
    };
    size_t i, n = strlen(words);
    int d;
    for (i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (!strcmp(words, tab[i].w)) { *size = tab[i].size; return tab[i].cls; }
    /* a single identifier defined by -DNAME=TYPE */
    for (d = ndefs - 1; depth < 2 && d >= 0 && n && !strchr(words, ' '); d--) {
        const char* x = defs[d];
        if (!strncmp(x, "-D", 2) && !strncmp(x + 2, words, n) && x[2 + n] == '=') {
            char w[64];
            size_t k = 0;
            const char* v = x + 3 + n;
            while (*v && k + 1 < sizeof w) { if (!(*v == ' ' && (k == 0 || w[k - 1] == ' '))) w[k++] = *v; v++; }
            while (k && w[k - 1] == ' ') k--;
            w[k] = 0;
            return akr_type_class(w, defs, ndefs, size, depth + 1);
        }
    }
    *size = 0;
    return AKR_P_UNKNOWN;
}

/* One parameter declaration s[0..n) into *p. */
static void akr_param_of(const char* s, size_t n, const char* const* defs, int ndefs, akr_param* p) {
    static const char* const quals[] = { "const", "volatile", "__restrict__", "__restrict", "restrict", "register",
                                         "__grid_constant__", "struct", NULL };
    char words[128], last[64] = "";
    const char* star = NULL;
    size_t i, wl = 0, k;
    int nwords = 0;
    memset(p, 0, sizeof *p);
    while (n && isspace((unsigned char)*s)) { s++; n--; }
    while (n && isspace((unsigned char)s[n - 1])) n--;
    snprintf(p->text, sizeof p->text, "%.*s", (int)(n < 90 ? n : 90), s);
    for (i = 0; i < n; i++) if (s[i] == '*' || s[i] == '[') { star = s + i; break; }
    /* the type words before the '*' (a pointer) or all but the last identifier (a scalar) */
    words[0] = 0;
    for (i = 0; i < (star ? (size_t)(star - s) : n);) {
        size_t j = i;
        if (!(isalpha((unsigned char)s[i]) || s[i] == '_')) {
            if (s[i] == '(') {                                 /* __attribute__((...)) and the like: skip the group */
                int depth = 0;
                for (; i < n; i++) { if (s[i] == '(') depth++; else if (s[i] == ')' && --depth == 0) { i++; break; } }
            } else i++;
            continue;
        }
        while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_')) j++;
        {
            int q = 0;
            char w[64];
            snprintf(w, sizeof w, "%.*s", (int)(j - i), s + i);
            for (k = 0; quals[k]; k++) if (!strcmp(w, quals[k])) q = 1;
            if (!strncmp(w, "__attribute__", 13)) q = 1;
            if (!q) {
                if (last[0] && wl + strlen(last) + 2 < sizeof words) { wl += (size_t)snprintf(words + wl, sizeof words - wl, "%s%s", wl ? " " : "", last); }
                snprintf(last, sizeof last, "%s", w);
                nwords++;
            }
        }
        i = j;
    }
    if (star) {                                               /* every word before '*' is the pointee type */
        if (last[0] && wl + strlen(last) + 2 < sizeof words) snprintf(words + wl, sizeof words - wl, "%s%s", wl ? " " : "", last);
        p->cls = AKR_P_PTR;
        akr_type_class(words, defs, ndefs, &p->elem, 0);
        if (p->elem == 1) p->elem = 0;                        /* char* reads any buffer as bytes */
        return;
    }
    if (nwords == 1) snprintf(words, sizeof words, "%s", last);   /* no name: the one word is the type */
    p->cls = akr_type_class(words, defs, ndefs, &p->elem, 0);
    p->elem = 0;
}

/* Replace comments and string / character literals of src by spaces. */
static char* akr_strip(const char* src) {
    size_t n = strlen(src), i;
    char* o = (char*)malloc(n + 1);
    if (!o) return NULL;
    memcpy(o, src, n + 1);
    for (i = 0; i < n;) {
        if (o[i] == '/' && o[i + 1] == '/') { while (i < n && o[i] != '\n') o[i++] = ' '; }
        else if (o[i] == '/' && o[i + 1] == '*') {
            o[i++] = ' '; o[i++] = ' ';
            while (i < n && !(o[i] == '*' && o[i + 1] == '/')) { if (o[i] != '\n') o[i] = ' '; i++; }
            if (i < n) { o[i++] = ' '; o[i++] = ' '; }
        } else if (o[i] == '"' || o[i] == '\'') {
            char q = o[i];
            o[i++] = ' ';
            while (i < n && o[i] != q && o[i] != '\n') { if (o[i] == '\\' && i + 1 < n) o[i++] = ' '; o[i++] = ' '; }
            if (i < n && o[i] == q) o[i++] = ' ';
        } else i++;
    }
    return o;
}

/* Parameters of the kernel `name` as src declares it: a `__global__` declaration or
 * definition `... name(params)`. 1 found (*np parameters into p[0..cap)), 0 not found
 * or declared twice with different parameter counts (then nothing can be checked), -1 a
 * declaration amdkit cannot read (the reason in err). defs: -D options (types may be macros). */
static int akr_kernel_params(const char* src, const char* name, const char* const* defs, int ndefs, akr_param* p, int cap, int* np,
                             char* err, size_t errcap) {
    char* t;
    size_t ln = name ? strlen(name) : 0, i;
    int found = 0;
    *np = 0;
    if (!src || !ln || ln > 200) return 0;
    if (!(t = akr_strip(src))) return 0;
    for (i = 0; t[i]; i++) {
        size_t b, e, a;
        int depth, cnt = 0, global = 0;
        akr_param tmp[AK_MAX_ARGS], sc;
        if (strncmp(t + i, name, ln) || (i && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_')) ||
            isalnum((unsigned char)t[i + ln]) || t[i + ln] == '_')
            continue;
        for (e = i + ln; t[e] == ' ' || t[e] == '\t' || t[e] == '\n' || t[e] == '\r'; e++) {}
        if (t[e] != '(') continue;
        /* the declaration's start: back to ; { } or a preprocessor line */
        for (b = i; b > 0 && t[b - 1] != ';' && t[b - 1] != '{' && t[b - 1] != '}' && t[b - 1] != '#'; b--) {}
        if (b > 0 && t[b - 1] == '#') continue;                   /* a macro line */
        for (a = b; a + 10 <= i; a++)
            if (!strncmp(t + a, "__global__", 10) && (a == 0 || !(isalnum((unsigned char)t[a - 1]) || t[a - 1] == '_')) &&
                !(isalnum((unsigned char)t[a + 10]) || t[a + 10] == '_')) { global = 1; break; }
        if (!global) continue;
        /* the parameter list */
        a = e + 1;
        depth = 1;
        for (e = a; t[e] && depth; e++) { if (t[e] == '(') depth++; else if (t[e] == ')') depth--; }
        if (depth) { free(t); return akr_err(err, errcap, "the declaration of %s has no closing ')'%s", name, ""), -1; }
        e--;                                                       /* t[e] == ')' */
        {
            size_t q = a, r;
            int d2 = 0, only_ws = 1;
            for (r = a; r < e; r++) if (!isspace((unsigned char)t[r])) only_ws = 0;
            if (!only_ws) {
                for (r = a; r <= e; r++) {
                    if (t[r] == '(' || t[r] == '<' || t[r] == '[') d2++;
                    else if ((t[r] == ')' || t[r] == '>' || t[r] == ']') && r < e) d2--;
                    if (r == e || (t[r] == ',' && d2 == 0)) {
                        if (cnt == AK_MAX_ARGS) { free(t); return akr_err(err, errcap, "kernel %s has more than %d parameters", name, AK_MAX_ARGS), -1; }
                        akr_param_of(t + q, r - q, defs, ndefs, &sc);            /* the class from the stripped text */
                        akr_param_of(src + q, r - q, defs, ndefs, &tmp[cnt]);    /* the words as written, for messages */
                        tmp[cnt].cls = sc.cls;
                        tmp[cnt].elem = sc.elem;
                        if (!strcmp(sc.text, "void")) snprintf(tmp[cnt].text, sizeof tmp[cnt].text, "void");
                        cnt++;
                        q = r + 1;
                    }
                }
                if (cnt == 1 && !strcmp(tmp[0].text, "void")) cnt = 0;
            }
        }
        if (cnt > cap) { free(t); return akr_err(err, errcap, "kernel %s has more than %d parameters", name, cap), -1; }
        if (found && cnt != *np) { free(t); *np = 0; return 0; }   /* two declarations disagree (#if branches): not checked */
        if (!found) { memcpy(p, tmp, sizeof *p * (size_t)cnt); *np = cnt; }
        found = 1;
        i = e;
    }
    free(t);
    return found;
}

/* The parsed --arg list against the kernel's parameters: 1 fits, 0 a mismatch named in err. */
static int akr_check_params(const char* kernel, const akr_arg* a, int na, const akr_param* p, int np, char* err, size_t cap) {
    int i;
    char list[600] = "";
    for (i = 0; i < np; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", p[i].text);
    }
    if (na != np) {
        if (na < np)
            return akr_err(err, cap, "kernel %s takes %d parameters (%s); %d --arg given: parameter %d '%s' has no --arg", kernel, np,
                           list, na, na + 1, p[na].text);
        return akr_err(err, cap, "kernel %s takes %d parameters (%s); %d --arg given (one per parameter, in order)", kernel, np, list, na);
    }
    for (i = 0; i < np; i++) {
        const char* tn = akr_types[a[i].type].name;
        char an[80];
        if (a[i].name[0]) snprintf(an, sizeof an, "--arg %d (%s)", i + 1, a[i].name);
        else snprintf(an, sizeof an, "--arg %d", i + 1);
        if (p[i].cls == AKR_P_PTR) {
            if (a[i].kind != AKR_BUFFER)
                return akr_err(err, cap, "kernel %s: parameter %d '%s' is a pointer; %s is a %s scalar (write TYPE[DIMS]:INIT)", kernel, i + 1,
                               p[i].text, an, tn);
            if (p[i].elem && p[i].elem != ak_dtype_size(a[i].dtype))
                return akr_err(err, cap, "kernel %s: parameter %d '%s' points to %zu-byte elements; %s is a %s buffer (%zu bytes each)",
                               kernel, i + 1, p[i].text, p[i].elem, an, tn, ak_dtype_size(a[i].dtype));
            continue;
        }
        if (a[i].kind == AKR_BUFFER)
            return akr_err(err, cap, "kernel %s: parameter %d '%s' is a scalar; %s is a %s buffer", kernel, i + 1, p[i].text, an, tn);
        switch (p[i].cls) {
        case AKR_P_F32: if (a[i].type != AKR_T_F32) goto mismatch; break;
        case AKR_P_F64: if (a[i].type != AKR_T_F64) goto mismatch; break;
        case AKR_P_INT4: if (a[i].type != AKR_T_I32 && a[i].type != AKR_T_U32) goto mismatch; break;
        case AKR_P_INT8: if (a[i].type != AKR_T_I64 && a[i].type != AKR_T_U64) goto mismatch; break;
        case AKR_P_SMALL:
            return akr_err(err, cap, "kernel %s: parameter %d '%s' is a scalar the command line cannot pass (it passes i32, u32, i64, "
                           "u64, f32, f64)", kernel, i + 1, p[i].text);
        default: break;                                       /* a struct or a typedef: not checked */
        }
        continue;
    mismatch:
        return akr_err(err, cap, "kernel %s: parameter %d '%s' needs %s; %s is %s", kernel, i + 1, p[i].text,
                       p[i].cls == AKR_P_F32 ? "f32" : p[i].cls == AKR_P_F64 ? "f64" : p[i].cls == AKR_P_INT4 ? "i32 or u32" : "i64 or u64",
                       an, tn);
    }
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

/* .npy header (format 1.0, 2.0, 3.0): the header dict parsed as numpy writes and reads it
 * (a Python literal: quoted keys, any spacing, last key wins, exactly the keys descr,
 * fortran_order and shape). 1: a .npy, descr / element count / *data_off where the data
 * starts; 0: not a .npy (no magic: raw bytes); -1: a .npy that is malformed or not
 * supported (Fortran order of a 2-D or higher array), the reason in why. */
static const char* akr_npy_ws(const char* p) { while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++; return p; }
/* a quoted Python string (no escapes) into out; the char after it, NULL on error */
static const char* akr_npy_str(const char* p, char* out, size_t cap) {
    char q = *p;
    const char* e;
    if (q != '\'' && q != '"') return NULL;
    if (!(e = strchr(p + 1, q)) || (size_t)(e - p - 1) >= cap || memchr(p + 1, '\\', (size_t)(e - p - 1))) return NULL;
    memcpy(out, p + 1, (size_t)(e - p - 1));
    out[e - p - 1] = 0;
    return e + 1;
}
static int akr_npy_header(const unsigned char* b, size_t n, char* descr, size_t dcap, size_t* numel, size_t* data_off,
                          char* why, size_t wcap) {
    size_t hl, k;
    const char* p;
    char hdr[4096], key[32];
    int have_descr = 0, have_fo = 0, have_shape = 0, fortran = 0, big_dims = 0;
    size_t count = 1;
    if (n < 8 || memcmp(b, "\x93NUMPY", 6)) return 0;
    if (b[6] == 1 && n >= 10) { hl = (size_t)b[8] | ((size_t)b[9] << 8); *data_off = 10 + hl; }
    else if ((b[6] == 2 || b[6] == 3) && n >= 12) { hl = (size_t)b[8] | ((size_t)b[9] << 8) | ((size_t)b[10] << 16) | ((size_t)b[11] << 24); *data_off = 12 + hl; }
    else return akr_err(why, wcap, "a .npy of format version %d (1, 2 or 3) or cut short%s", b[6], ""), -1;
    if (hl >= sizeof hdr || *data_off > n) return akr_err(why, wcap, "the .npy header is over 4 KiB or past the end of the file%s", ""), -1;
    memcpy(hdr, b + *data_off - hl, hl);
    hdr[hl] = 0;
    if (strlen(hdr) != hl) return akr_err(why, wcap, "the .npy header holds a NUL byte%s", ""), -1;
    p = akr_npy_ws(hdr);
    if (*p++ != '{') return akr_err(why, wcap, "the .npy header is not a dict%s", ""), -1;
    for (;;) {
        p = akr_npy_ws(p);
        if (*p == '}') break;
        if (!(p = akr_npy_str(p, key, sizeof key))) return akr_err(why, wcap, "the .npy header has a malformed key%s", ""), -1;
        p = akr_npy_ws(p);
        if (*p++ != ':') return akr_err(why, wcap, "the .npy header has no ':' after '%s'", key), -1;
        p = akr_npy_ws(p);
        if (!strcmp(key, "descr")) {
            if (!(p = akr_npy_str(p, descr, dcap))) return akr_err(why, wcap, "the .npy descr is not a plain type string (structured dtypes are not supported)%s", ""), -1;
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (!strncmp(p, "True", 4)) { fortran = 1; p += 4; }
            else if (!strncmp(p, "False", 5)) { fortran = 0; p += 5; }
            else return akr_err(why, wcap, "the .npy fortran_order is neither True nor False%s", ""), -1;
            have_fo = 1;
        } else if (!strcmp(key, "shape")) {
            if (*p++ != '(') return akr_err(why, wcap, "the .npy shape is not a tuple%s", ""), -1;
            count = 1;
            big_dims = 0;
            for (k = 0;; k++) {
                char* end;
                unsigned long long v;
                p = akr_npy_ws(p);
                if (*p == ')') { p++; break; }
                if (!isdigit((unsigned char)*p)) return akr_err(why, wcap, "the .npy shape holds something other than integers%s", ""), -1;
                errno = 0;
                v = strtoull(p, &end, 10);
                if (errno || (v && count > AKR_MAX_BYTES / v)) return akr_err(why, wcap, "the .npy shape is over 2^40 elements%s", ""), -1;
                count *= (size_t)v;
                big_dims += v > 1;
                p = akr_npy_ws(end);
                if (*p == ',') p++;
                else if (*p != ')') return akr_err(why, wcap, "the .npy shape is malformed%s", ""), -1;
                if (k > 64) return akr_err(why, wcap, "the .npy shape has over 64 dimensions%s", ""), -1;
            }
            have_shape = 1;
        } else {
            return akr_err(why, wcap, "the .npy header has the key '%s' (numpy writes descr, fortran_order and shape only)", key), -1;
        }
        p = akr_npy_ws(p);
        if (*p == ',') { p++; continue; }
        if (*p == '}') break;
        return akr_err(why, wcap, "the .npy header has no ',' or '}' after '%s'", key), -1;
    }
    if (!have_descr || !have_fo || !have_shape)
        return akr_err(why, wcap, "the .npy header lacks '%s'", !have_descr ? "descr" : !have_fo ? "fortran_order" : "shape"), -1;
    if (fortran && big_dims > 1)
        return akr_err(why, wcap, "a Fortran-order (column-major) .npy of 2 or more dimensions is not supported; save it "
                       "with np.save(f, np.ascontiguousarray(a))%s", ""), -1;
    *numel = count;
    return 1;
}

/* The whole of a regular file (a FIFO, device or directory is refused before
 * anything blocks on it); NULL with *why set on failure. The command's one
 * file reader: amdkit.c reads `compile`'s source with it too. */
void* akr_read_all(const char* path, size_t* n, const char** why);
void* akr_read_all(const char* path, size_t* n, const char** why) {
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    struct stat st;
    char* b;
    size_t got = 0;
    *why = "";
    if (fd < 0) { *why = strerror(errno); return NULL; }
    if (fstat(fd, &st) != 0) { *why = strerror(errno); close(fd); return NULL; }
    if (!S_ISREG(st.st_mode)) { *why = "not a regular file"; close(fd); return NULL; }
    if ((unsigned long long)st.st_size > AKR_MAX_BYTES) { *why = "over 1 TiB"; close(fd); return NULL; }
    if (!(b = (char*)malloc((size_t)st.st_size + 1))) { *why = "out of host memory"; close(fd); return NULL; }
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, b + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (got != (size_t)st.st_size) { *why = "short read (the file changed while read)"; free(b); return NULL; }
    b[got] = 0;
    *n = got;
    return b;
}

static int akr_fill(akr_arg* a, unsigned long long* rng, char* err, size_t cap) {
    size_t i;
    a->host = malloc(a->bytes ? a->bytes : 1);
    if (!a->host) { snprintf(err, cap, "no host memory for %zu bytes", a->bytes); return 0; }
    if (a->init == AKR_FILE) {
        size_t n = 0, off = 0, numel = 0;
        char descr[16], why[300];
        const char* rwhy;
        int npy;
        unsigned char* b = (unsigned char*)akr_read_all(a->file, &n, &rwhy);
        if (!b) { snprintf(err, cap, "cannot read %s: %s", a->file, rwhy); return 0; }
        if ((npy = akr_npy_header(b, n, descr, sizeof descr, &numel, &off, why, sizeof why)) < 0) {
            snprintf(err, cap, "%s: %s", a->file, why);
            free(b);
            return 0;
        }
        if (npy) {
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
            for (k = 0; k < c->ntune; k++)
                if (strlen(c->tp[k].name) == (size_t)(eq - s) && !strncmp(c->tp[k].name, s, (size_t)(eq - s))) {
                    fprintf(stderr, "amdkit tune: --tune %.*s is given twice (list every value in one --tune %.*s=V1,V2,...)\n",
                            (int)(eq - s), s, (int)(eq - s), s);
                    return 0;
                }
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

static char* akr_source(const char* path, const char** why) {
    size_t n;
    return (char*)akr_read_all(path, &n, why);
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
    const char* why;
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
    if (!(src = akr_source(c->file, &why))) { fprintf(stderr, "amdkit %s: cannot read %s: %s\n", c->mode, c->file, why); rc = 2; goto done; }
    {   /* the --arg list against the kernel's parameters, before anything runs */
        akr_param prm[AK_MAX_ARGS];
        int np = 0, found = akr_kernel_params(src, c->kernel, c->defs, c->ndefs, prm, AK_MAX_ARGS, &np, err, sizeof err);
        if (found < 0) { fprintf(stderr, "amdkit %s: %s: %s\n", c->mode, c->file, err); rc = 2; goto done; }
        if (!found)
            fprintf(stderr, "amdkit %s: note: %s declares no __global__ %s(...) that amdkit can read (made by a macro?); the --arg "
                            "list is not checked against its parameters\n", c->mode, c->file, c->kernel);
        else if (!akr_check_params(c->kernel, c->args, c->nargs, prm, np, err, sizeof err)) {
            fprintf(stderr, "amdkit %s: %s\n", c->mode, err);
            rc = 2;
            goto done;
        }
    }
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
            char* text = (char*)akr_read_all(c->compare, &n, &why);
            double other = 0, *ot = NULL, med, lo, hi, olo = 0, ohi = 0, z = 2.2365; /* z of sqrt(0.95) per side */
            int on = 0;
            if (!text) { fprintf(stderr, "amdkit bench: --compare: cannot read %s: %s\n", c->compare, why); goto done; }
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

/* 1 for the options of run / bench / tune that take the next argument as their value. */
static int akr_takes_value(const char* a) {
    static const char* const with_value[] = { "--kernel", "--grid", "--block", "--shared", "--arg", "--out", "--cpu",
                                              "--atol", "--rtol", "--seed", "--trials", "--warmup", "--bytes", "--flops",
                                              "--json", "--compare", "--name", "--tune", "--shape-key", "--max-variants",
                                              "--max-ms", NULL };
    int i;
    for (i = 0; with_value[i]; i++)
        if (!strcmp(a, with_value[i])) return 1;
    return 0;
}

/* `amdkit run|bench|tune ...` (argv after the mode). Exit status: 0 ok, 1 failure or failed check, 2 usage. */
int amdkit_run_main(const char* mode, int argc, char** argv) {
    akr_cmd* c = (akr_cmd*)calloc(1, sizeof *c);
    int rc, i;
    if (!c) return 1;
    c->mode = mode;
    c->seed = 0x5eedull;
    for (i = 0; i < argc; i++) {   /* --help in an option's place: the usage, asked for: stdout, exit 0 */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { akr_usage(stdout, mode); free(c); return 0; }
        if (akr_takes_value(argv[i])) i++;   /* its value is not an option */
    }
    if (argc == 0) { akr_usage(stderr, mode); free(c); return 2; }   /* nothing given: stderr, exit 2 */
    rc = akr_parse_cmdline(c, argc, argv) ? akr_main(c) : (akr_usage(stderr, mode), 2);
    for (i = 0; i < c->ntune; i++) { free(c->tvals_buf[i]); free(c->tvals[i]); }
    free(c);
    return rc;
}
