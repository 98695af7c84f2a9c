/* Suite prof: profiling regions on the cpu backend (statistics, nesting,
 * per-thread stacks, errors, summary, Chrome trace JSON, reset). Durations
 * are only checked through relations (min <= mean <= max, sums, nesting),
 * never against absolute times. */
#include "ak_test.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------------------
 * A small strict JSON parser (RFC 8259): objects, arrays, strings with every
 * escape (\uXXXX with surrogate pairs, decoded to UTF-8), numbers, true,
 * false, null; raw strings must be valid UTF-8 with no control characters;
 * nothing may follow the top value but whitespace.
 * ------------------------------------------------------------------------- */
typedef enum { PJ_NULL, PJ_BOOL, PJ_NUM, PJ_STR, PJ_ARR, PJ_OBJ } pj_type;
typedef struct pj {
    pj_type type;
    double num;
    int b;
    char* str;           /* PJ_STR: decoded bytes, NUL-terminated */
    size_t len;
    struct pj** items;   /* PJ_ARR, PJ_OBJ values */
    char** keys;         /* PJ_OBJ */
    size_t n;
} pj;
typedef struct { const char* s; size_t i, n; char err[160]; } pj_in;

static void pj_free(pj* v) {
    size_t i;
    if (!v) return;
    for (i = 0; i < v->n; i++) {
        pj_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}
static int pj_fail(pj_in* in, const char* what) {
    if (!in->err[0]) snprintf(in->err, sizeof in->err, "%s at byte %lu", what, (unsigned long)in->i);
    return 0;
}
static void pj_ws(pj_in* in) {
    while (in->i < in->n && (in->s[in->i] == ' ' || in->s[in->i] == '\t' || in->s[in->i] == '\n' || in->s[in->i] == '\r')) in->i++;
}
static pj* pj_new(pj_type t) { pj* v = (pj*)calloc(1, sizeof *v); if (v) v->type = t; return v; }
static int pj_push(pj* v, pj* item, char* key) {
    pj** ni = (pj**)realloc(v->items, (v->n + 1) * sizeof *ni);
    if (!ni) return 0;
    v->items = ni;
    if (v->type == PJ_OBJ) {
        char** nk = (char**)realloc(v->keys, (v->n + 1) * sizeof *nk);
        if (!nk) return 0;
        v->keys = nk;
        v->keys[v->n] = key;
    }
    v->items[v->n++] = item;
    return 1;
}
static void pj_put(char** buf, size_t* len, size_t* cap, unsigned c) {
    if (*len + 2 > *cap) { *cap = *cap ? *cap * 2 : 32; *buf = (char*)realloc(*buf, *cap); }
    if (*buf) (*buf)[(*len)++] = (char)c;
}
static void pj_put_utf8(char** b, size_t* l, size_t* c, unsigned cp) {
    if (cp < 0x80) pj_put(b, l, c, cp);
    else if (cp < 0x800) { pj_put(b, l, c, 0xC0 | (cp >> 6)); pj_put(b, l, c, 0x80 | (cp & 63)); }
    else if (cp < 0x10000) { pj_put(b, l, c, 0xE0 | (cp >> 12)); pj_put(b, l, c, 0x80 | ((cp >> 6) & 63)); pj_put(b, l, c, 0x80 | (cp & 63)); }
    else { pj_put(b, l, c, 0xF0 | (cp >> 18)); pj_put(b, l, c, 0x80 | ((cp >> 12) & 63)); pj_put(b, l, c, 0x80 | ((cp >> 6) & 63)); pj_put(b, l, c, 0x80 | (cp & 63)); }
}
static int pj_hex4(pj_in* in, unsigned* out) {
    unsigned v = 0;
    int k;
    if (in->i + 4 > in->n) return pj_fail(in, "short \\u escape");
    for (k = 0; k < 4; k++) {
        char c = in->s[in->i++];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return pj_fail(in, "bad hex digit in \\u escape");
    }
    *out = v;
    return 1;
}
/* Parses a string at in->i (which is at '"'); returns malloc'd bytes. */
static char* pj_string(pj_in* in, size_t* out_len) {
    char* b = NULL;
    size_t l = 0, c = 0;
    in->i++;
    pj_put(&b, &l, &c, 0); l = 0;
    for (;;) {
        unsigned char ch;
        if (in->i >= in->n) { pj_fail(in, "unterminated string"); free(b); return NULL; }
        ch = (unsigned char)in->s[in->i];
        if (ch == '"') { in->i++; break; }
        if (ch < 0x20) { pj_fail(in, "raw control character in string"); free(b); return NULL; }
        if (ch == '\\') {
            char e;
            in->i++;
            if (in->i >= in->n) { pj_fail(in, "bad escape"); free(b); return NULL; }
            e = in->s[in->i++];
            switch (e) {
            case '"': pj_put(&b, &l, &c, '"'); break;
            case '\\': pj_put(&b, &l, &c, '\\'); break;
            case '/': pj_put(&b, &l, &c, '/'); break;
            case 'b': pj_put(&b, &l, &c, '\b'); break;
            case 'f': pj_put(&b, &l, &c, '\f'); break;
            case 'n': pj_put(&b, &l, &c, '\n'); break;
            case 'r': pj_put(&b, &l, &c, '\r'); break;
            case 't': pj_put(&b, &l, &c, '\t'); break;
            case 'u': {
                unsigned cp, lo;
                if (!pj_hex4(in, &cp)) { free(b); return NULL; }
                if (cp >= 0xDC00 && cp <= 0xDFFF) { pj_fail(in, "lone low surrogate"); free(b); return NULL; }
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (in->i + 2 > in->n || in->s[in->i] != '\\' || in->s[in->i + 1] != 'u') { pj_fail(in, "lone high surrogate"); free(b); return NULL; }
                    in->i += 2;
                    if (!pj_hex4(in, &lo)) { free(b); return NULL; }
                    if (lo < 0xDC00 || lo > 0xDFFF) { pj_fail(in, "bad surrogate pair"); free(b); return NULL; }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                pj_put_utf8(&b, &l, &c, cp);
                break;
            }
            default: pj_fail(in, "unknown escape"); free(b); return NULL;
            }
            continue;
        }
        if (ch < 0x80) { pj_put(&b, &l, &c, ch); in->i++; continue; }
        { /* raw UTF-8 must be well formed */
            int need = ch >= 0xC2 && ch <= 0xDF ? 1 : ch >= 0xE0 && ch <= 0xEF ? 2 : ch >= 0xF0 && ch <= 0xF4 ? 3 : -1, k;
            const unsigned char* u = (const unsigned char*)in->s + in->i;
            if (need < 0 || in->i + (size_t)need >= in->n) { pj_fail(in, "invalid UTF-8"); free(b); return NULL; }
            for (k = 1; k <= need; k++) if ((u[k] & 0xC0) != 0x80) { pj_fail(in, "invalid UTF-8"); free(b); return NULL; }
            if ((ch == 0xE0 && u[1] < 0xA0) || (ch == 0xED && u[1] > 0x9F) || (ch == 0xF0 && u[1] < 0x90) || (ch == 0xF4 && u[1] > 0x8F)) {
                pj_fail(in, "invalid UTF-8"); free(b); return NULL;
            }
            for (k = 0; k <= need; k++) pj_put(&b, &l, &c, u[k]);
            in->i += (size_t)need + 1;
        }
    }
    if (!b) { pj_fail(in, "out of memory"); return NULL; }
    b[l] = 0;
    *out_len = l;
    return b;
}
static int pj_digit(pj_in* in) { return in->i < in->n && in->s[in->i] >= '0' && in->s[in->i] <= '9'; }
static pj* pj_value(pj_in* in, int depth);
static pj* pj_number(pj_in* in) {
    size_t st = in->i;
    char buf[64];
    pj* v;
    if (in->i < in->n && in->s[in->i] == '-') in->i++;
    if (!pj_digit(in)) { pj_fail(in, "bad number"); return NULL; }
    if (in->s[in->i] == '0') { in->i++; if (pj_digit(in)) { pj_fail(in, "leading zero"); return NULL; } }
    else while (pj_digit(in)) in->i++;
    if (in->i < in->n && in->s[in->i] == '.') {
        in->i++;
        if (!pj_digit(in)) { pj_fail(in, "bad fraction"); return NULL; }
        while (pj_digit(in)) in->i++;
    }
    if (in->i < in->n && (in->s[in->i] == 'e' || in->s[in->i] == 'E')) {
        in->i++;
        if (in->i < in->n && (in->s[in->i] == '+' || in->s[in->i] == '-')) in->i++;
        if (!pj_digit(in)) { pj_fail(in, "bad exponent"); return NULL; }
        while (pj_digit(in)) in->i++;
    }
    if (in->i - st >= sizeof buf) { pj_fail(in, "number too long"); return NULL; }
    memcpy(buf, in->s + st, in->i - st);
    buf[in->i - st] = 0;
    v = pj_new(PJ_NUM);
    if (v) v->num = strtod(buf, NULL);
    return v;
}
static pj* pj_value(pj_in* in, int depth) {
    pj* v;
    pj_ws(in);
    if (depth > 64) { pj_fail(in, "too deep"); return NULL; }
    if (in->i >= in->n) { pj_fail(in, "unexpected end"); return NULL; }
    switch (in->s[in->i]) {
    case '{': case '[': {
        int obj = in->s[in->i] == '{';
        char close = obj ? '}' : ']';
        v = pj_new(obj ? PJ_OBJ : PJ_ARR);
        if (!v) return NULL;
        in->i++;
        pj_ws(in);
        if (in->i < in->n && in->s[in->i] == close) { in->i++; return v; }
        for (;;) {
            char* key = NULL;
            size_t kl;
            pj* item;
            if (obj) {
                pj_ws(in);
                if (in->i >= in->n || in->s[in->i] != '"') { pj_fail(in, "expected a key"); pj_free(v); return NULL; }
                key = pj_string(in, &kl);
                if (!key) { pj_free(v); return NULL; }
                pj_ws(in);
                if (in->i >= in->n || in->s[in->i] != ':') { pj_fail(in, "expected ':'"); free(key); pj_free(v); return NULL; }
                in->i++;
            }
            item = pj_value(in, depth + 1);
            if (!item || !pj_push(v, item, key)) { pj_free(item); free(key); pj_free(v); return NULL; }
            pj_ws(in);
            if (in->i < in->n && in->s[in->i] == ',') { in->i++; continue; }
            if (in->i < in->n && in->s[in->i] == close) { in->i++; return v; }
            pj_fail(in, "expected ',' or a closing bracket");
            pj_free(v);
            return NULL;
        }
    }
    case '"':
        v = pj_new(PJ_STR);
        if (!v) return NULL;
        v->str = pj_string(in, &v->len);
        if (!v->str) { pj_free(v); return NULL; }
        return v;
    case 't': case 'f': case 'n': {
        const char* w = in->s[in->i] == 't' ? "true" : in->s[in->i] == 'f' ? "false" : "null";
        size_t wl = strlen(w);
        if (in->i + wl > in->n || memcmp(in->s + in->i, w, wl)) { pj_fail(in, "bad literal"); return NULL; }
        in->i += wl;
        v = pj_new(w[0] == 'n' ? PJ_NULL : PJ_BOOL);
        if (v) v->b = w[0] == 't';
        return v;
    }
    default:
        return pj_number(in);
    }
}
static pj* pj_parse(const char* s, size_t n, char* err, size_t errcap) {
    pj_in in;
    pj* v;
    memset(&in, 0, sizeof in);
    in.s = s; in.n = n;
    v = pj_value(&in, 0);
    if (v) {
        pj_ws(&in);
        if (in.i != in.n) { pj_fail(&in, "trailing characters"); pj_free(v); v = NULL; }
    }
    if (err) snprintf(err, errcap, "%s", in.err);
    return v;
}
static const pj* pj_get(const pj* o, const char* key) {
    size_t i;
    if (!o || o->type != PJ_OBJ) return NULL;
    for (i = 0; i < o->n; i++) if (!strcmp(o->keys[i], key)) return o->items[i];
    return NULL;
}
static char* read_file(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    char* b;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = (char*)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    if (b) b[n] = 0;
    fclose(f);
    if (len) *len = (size_t)n;
    return b;
}
/* Export ctx's trace to a file and parse it; NULL (and a failed check) if invalid. */
static pj* export_and_parse(ak_context* ctx, const char* file) {
    char path[700], err[200];
    size_t n;
    char* text;
    pj* v;
    snprintf(path, sizeof path, "%s/%s", akt_tmpdir(), file);
    if (ak_prof_export_chrome(ctx, path) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "export %s: %s", path, ak_last_error());
        return NULL;
    }
    text = read_file(path, &n);
    if (!text) { akt_fail(__FILE__, __LINE__, "cannot read %s", path); return NULL; }
    v = pj_parse(text, n, err, sizeof err);
    if (!v) akt_fail(__FILE__, __LINE__, "%s is not valid JSON: %s", path, err);
    free(text);
    return v;
}
/* The "X" events of a parsed trace (checks the top-level shape). */
static const pj* trace_events(const pj* t) {
    const pj* ev = pj_get(t, "traceEvents");
    const pj* unit = pj_get(t, "displayTimeUnit");
    AKT_CHECK(t && t->type == PJ_OBJ);
    AKT_CHECK(ev && ev->type == PJ_ARR);
    AKT_CHECK(unit && unit->type == PJ_STR && !strcmp(unit->str, "ms"));
    return ev && ev->type == PJ_ARR ? ev : NULL;
}
static int is_x(const pj* e) {
    const pj* ph = pj_get(e, "ph");
    return ph && ph->type == PJ_STR && !strcmp(ph->str, "X");
}
static int count_x(const pj* ev, const char* name) {
    size_t i;
    int c = 0;
    for (i = 0; ev && i < ev->n; i++) {
        const pj* nm = pj_get(ev->items[i], "name");
        if (is_x(ev->items[i]) && (!name || (nm && nm->type == PJ_STR && !strcmp(nm->str, name)))) c++;
    }
    return c;
}

/* ---------------------------------------------------------------------------
 * helpers
 * ------------------------------------------------------------------------- */
static ak_context* prof_ctx(const char* sub, ak_log_fn logger, void* ud) {
    static char dir[700];
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU;
    cfg.profiling = 1;
    snprintf(dir, sizeof dir, "%s/%s", akt_tmpdir(), sub);
    cfg.cache_dir = dir;
    cfg.log_level = logger ? AK_LOG_INFO : AK_LOG_NONE;
    cfg.logger = logger;
    cfg.logger_user_data = ud;
    if (ak_context_create(&cfg, &ctx) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "profiling cpu context: %s", ak_last_error());
        return NULL;
    }
    return ctx;
}
static volatile double sink;
static void work(int n) {
    double x = 0.0;
    int i;
    for (i = 0; i < n; i++) x += (double)i * 1e-9;
    sink = x;
}
static const ak_prof_stat* find_stat(const ak_prof_stat* s, int n, const char* name) {
    int i;
    for (i = 0; i < n; i++) if (s[i].name && !strcmp(s[i].name, name)) return &s[i];
    return NULL;
}
static void check_stat_relations(const ak_prof_stat* s) {
    AKT_CHECK(s->count > 0);
    AKT_CHECK(s->min_ms >= 0.0);
    AKT_CHECKF(s->min_ms <= s->mean_ms + 1e-12 && s->mean_ms <= s->max_ms + 1e-12,
               "%s: min %g mean %g max %g", s->name, s->min_ms, s->mean_ms, s->max_ms);
    AKT_NEAR(s->mean_ms * (double)s->count, s->total_ms, 1e-9 * (double)s->count + 1e-12);
    AKT_CHECK(s->total_ms >= s->max_ms - 1e-12);
    AKT_EQ_INT(s->gpu_timed, 0);
}

/* ---------------------------------------------------------------------------
 * tests
 * ------------------------------------------------------------------------- */
static void test_stats_consistent(void) {
    ak_context* ctx = prof_ctx("prof_stats", NULL, NULL);
    ak_prof_stat st[4];
    const ak_prof_stat *a, *b;
    const pj *ev, *tr;
    pj* t;
    double sum_a = 0.0, sum_b = 0.0;
    int i, n = -1;
    size_t k;
    if (!ctx) return;
    for (i = 0; i < 7; i++) { AKT_OK(ak_prof_begin(ctx, "alpha", NULL)); work(2000 * (i + 1)); AKT_OK(ak_prof_end(ctx)); }
    for (i = 0; i < 3; i++) { AKT_OK(ak_prof_begin(ctx, "beta", NULL)); work(50000); AKT_OK(ak_prof_end(ctx)); }
    AKT_OK(ak_prof_begin(ctx, "alpha", NULL)); AKT_OK(ak_prof_end(ctx));
    AKT_OK(ak_prof_stats(ctx, st, 4, &n));
    AKT_EQ_INT(n, 2);
    AKT_EQ_STR(st[0].name, "alpha");  /* first-seen order */
    AKT_EQ_STR(st[1].name, "beta");
    a = find_stat(st, n, "alpha");
    b = find_stat(st, n, "beta");
    AKT_CHECK(a && b);
    if (!a || !b) { ak_context_destroy(ctx); return; }
    AKT_EQ_INT(a->count, 8);
    AKT_EQ_INT(b->count, 3);
    check_stat_relations(a);
    check_stat_relations(b);
    /* count only, and max smaller than the number of regions */
    n = -1;
    AKT_OK(ak_prof_stats(ctx, NULL, 0, &n));
    AKT_EQ_INT(n, 2);
    memset(st, 0, sizeof st);
    AKT_OK(ak_prof_stats(ctx, st, 1, &n));
    AKT_EQ_INT(n, 2);
    AKT_EQ_STR(st[0].name, "alpha");
    AKT_CHECK(st[1].name == NULL);
    /* total = sum of the per-instance durations in the trace */
    AKT_OK(ak_prof_stats(ctx, st, 4, &n));
    t = export_and_parse(ctx, "stats.json");
    ev = trace_events(t);
    for (k = 0; ev && k < ev->n; k++) {
        const pj* e = ev->items[k];
        const pj* nm = pj_get(e, "name");
        const pj* ms = pj_get(pj_get(e, "args"), "ms");
        if (!is_x(e)) continue;
        AKT_CHECK(nm && nm->type == PJ_STR && ms && ms->type == PJ_NUM);
        if (!nm || !ms) continue;
        if (!strcmp(nm->str, "alpha")) sum_a += ms->num;
        if (!strcmp(nm->str, "beta")) sum_b += ms->num;
    }
    AKT_EQ_INT(count_x(ev, "alpha"), 8);
    AKT_EQ_INT(count_x(ev, "beta"), 3);
    AKT_NEAR(sum_a, st[0].total_ms, 1e-6);
    AKT_NEAR(sum_b, st[1].total_ms, 1e-6);
    tr = pj_get(pj_get(t, "otherData"), "instances_dropped");
    AKT_CHECK(tr && tr->type == PJ_NUM && tr->num == 0.0);
    pj_free(t);
    ak_context_destroy(ctx);
}

static void test_nesting(void) {
    ak_context* ctx = prof_ctx("prof_nest", NULL, NULL);
    ak_prof_stat st[4];
    const ak_prof_stat *o, *in;
    const pj* ev;
    const pj *eo = NULL, *ei = NULL;
    pj* t;
    size_t k;
    int n = 0;
    if (!ctx) return;
    AKT_OK(ak_prof_begin(ctx, "outer", NULL));
    work(10000);
    AKT_OK(ak_prof_begin(ctx, "inner", NULL));
    work(10000);
    AKT_OK(ak_prof_end(ctx));   /* closes inner */
    work(10000);
    AKT_OK(ak_prof_end(ctx));   /* closes outer */
    AKT_ERR(ak_prof_end(ctx), AK_ERROR_INVALID_ARGUMENT);
    AKT_OK(ak_prof_stats(ctx, st, 4, &n));
    AKT_EQ_INT(n, 2);
    o = find_stat(st, n, "outer");
    in = find_stat(st, n, "inner");
    AKT_CHECK(o && in);
    if (o && in) {
        AKT_EQ_INT(o->count, 1);
        AKT_EQ_INT(in->count, 1);
        AKT_CHECK(o->total_ms >= in->total_ms);   /* the outer region spans the inner one */
    }
    t = export_and_parse(ctx, "nest.json");
    ev = trace_events(t);
    for (k = 0; ev && k < ev->n; k++) {
        const pj* nm = pj_get(ev->items[k], "name");
        if (!is_x(ev->items[k]) || !nm) continue;
        if (!strcmp(nm->str, "outer")) eo = ev->items[k];
        if (!strcmp(nm->str, "inner")) ei = ev->items[k];
    }
    AKT_CHECK(eo && ei);
    if (eo && ei) {
        double ots = pj_get(eo, "ts")->num, odur = pj_get(eo, "dur")->num;
        double its = pj_get(ei, "ts")->num, idur = pj_get(ei, "dur")->num;
        AKT_CHECK(its >= ots);
        AKT_CHECK(its + idur <= ots + odur + 1e-9);
        AKT_CHECK(pj_get(eo, "tid")->num == pj_get(ei, "tid")->num);
    }
    pj_free(t);
    ak_context_destroy(ctx);
}

#define NTHREADS 4
#define NITER 200
typedef struct { ak_context* ctx; int id; int errors; } thr_arg;
static void* thr_main(void* p) {
    thr_arg* a = (thr_arg*)p;
    char name[32];
    int i;
    snprintf(name, sizeof name, "thread-%d", a->id);
    for (i = 0; i < NITER; i++) {
        if (ak_prof_begin(a->ctx, name, NULL) != AK_OK) a->errors++;
        work(200 + 50 * a->id);
        if (ak_prof_begin(a->ctx, "shared", NULL) != AK_OK) a->errors++;
        work(100);
        if (ak_prof_end(a->ctx) != AK_OK) a->errors++;
        if (ak_prof_end(a->ctx) != AK_OK) a->errors++;
    }
    if (ak_prof_end(a->ctx) != AK_ERROR_INVALID_ARGUMENT) a->errors++;  /* its own stack is empty */
    return NULL;
}
static void* thr_end_only(void* p) {
    thr_arg* a = (thr_arg*)p;
    if (ak_prof_end(a->ctx) != AK_ERROR_INVALID_ARGUMENT) a->errors++;
    return NULL;
}
static void test_threads(void) {
    ak_context* ctx = prof_ctx("prof_threads", NULL, NULL);
    pthread_t th[NTHREADS];
    thr_arg args[NTHREADS], lone;
    ak_prof_stat st[8];
    const pj* ev;
    pj* t;
    double tids[NTHREADS];
    int i, n = 0, j;
    if (!ctx) return;
    /* A region open on this thread is invisible to another thread. */
    AKT_OK(ak_prof_begin(ctx, "main-open", NULL));
    lone.ctx = ctx; lone.id = -1; lone.errors = 0;
    AKT_CHECK(pthread_create(&th[0], NULL, thr_end_only, &lone) == 0);
    pthread_join(th[0], NULL);
    AKT_EQ_INT(lone.errors, 0);
    for (i = 0; i < NTHREADS; i++) {
        args[i].ctx = ctx; args[i].id = i; args[i].errors = 0;
        AKT_CHECK(pthread_create(&th[i], NULL, thr_main, &args[i]) == 0);
    }
    for (i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    for (i = 0; i < NTHREADS; i++) AKT_EQ_INT(args[i].errors, 0);
    AKT_OK(ak_prof_end(ctx));   /* main-open is still this thread's */
    AKT_OK(ak_prof_stats(ctx, st, 8, &n));
    AKT_EQ_INT(n, NTHREADS + 2);
    for (i = 0; i < NTHREADS; i++) {
        char name[32];
        const ak_prof_stat* s;
        snprintf(name, sizeof name, "thread-%d", i);
        s = find_stat(st, n, name);
        AKT_CHECK(s != NULL);
        if (s) { AKT_EQ_INT(s->count, NITER); check_stat_relations(s); }
    }
    AKT_CHECK(find_stat(st, n, "shared") && find_stat(st, n, "shared")->count == NTHREADS * NITER);
    AKT_CHECK(find_stat(st, n, "main-open") && find_stat(st, n, "main-open")->count == 1);
    /* In the trace every thread's regions carry one tid, distinct per thread. */
    t = export_and_parse(ctx, "threads.json");
    ev = trace_events(t);
    for (i = 0; i < NTHREADS; i++) tids[i] = -1.0;
    for (j = 0; ev && j < (int)ev->n; j++) {
        const pj* nm = pj_get(ev->items[j], "name");
        const pj* tid = pj_get(ev->items[j], "tid");
        int id;
        if (!is_x(ev->items[j]) || !nm || !tid || sscanf(nm->str, "thread-%d", &id) != 1 || id < 0 || id >= NTHREADS) continue;
        if (tids[id] < 0) tids[id] = tid->num;
        AKT_CHECK(tids[id] == tid->num);
    }
    for (i = 0; i < NTHREADS; i++)
        for (j = i + 1; j < NTHREADS; j++) AKT_CHECK(tids[i] != tids[j]);
    AKT_EQ_INT(count_x(ev, NULL), 2 * NTHREADS * NITER + 1);
    pj_free(t);
    ak_context_destroy(ctx);
}

static void test_errors(void) {
    ak_context* ctx = prof_ctx("prof_err", NULL, NULL);
    ak_prof_stat st[2];
    int n = 0;
    if (!ctx) return;
    AKT_ERR(ak_prof_end(ctx), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "no open region");
    AKT_ERR_ITEM(ak_prof_begin(NULL, "x", NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_prof_begin(ctx, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_prof_end(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_prof_stats(NULL, st, 2, &n), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_prof_stats(ctx, NULL, 2, &n), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_prof_stats(ctx, st, -1, &n), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_prof_summary(ctx, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_prof_summary(NULL, stdout), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR(ak_prof_export_chrome(ctx, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_prof_export_chrome(ctx, ""), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR_ITEM(ak_prof_export_chrome(NULL, "x.json"), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ak_prof_reset(NULL);  /* no crash */
    /* the failed calls left nothing behind; a begin/end pair still works */
    AKT_OK(ak_prof_stats(ctx, st, 2, &n));
    AKT_EQ_INT(n, 0);
    AKT_OK(ak_prof_begin(ctx, "ok", NULL));
    AKT_OK(ak_prof_end(ctx));
    AKT_ERR(ak_prof_end(ctx), AK_ERROR_INVALID_ARGUMENT);
    AKT_OK(ak_prof_stats(ctx, st, 2, &n));
    AKT_EQ_INT(n, 1);
    AKT_EQ_INT(st[0].count, 1);
    ak_context_destroy(ctx);
}

static void test_profiling_off(void) {
    ak_context* ctx = akt_cpu_context("prof_off");   /* profiling off */
    ak_prof_stat st[2];
    int n = -1;
    pj* t;
    if (!ctx) return;
    AKT_EQ_INT(ak_context_config(ctx)->profiling, 0);
    AKT_OK(ak_prof_begin(ctx, "nothing", NULL));
    work(1000);
    AKT_OK(ak_prof_end(ctx));
    AKT_OK(ak_prof_end(ctx));   /* no-op too */
    AKT_OK(ak_prof_stats(ctx, st, 2, &n));
    AKT_EQ_INT(n, 0);
    t = export_and_parse(ctx, "off.json");
    AKT_EQ_INT(count_x(trace_events(t), NULL), 0);
    pj_free(t);
    ak_context_destroy(ctx);
}

static void test_scope_macro(void) {
    ak_context* ctx = prof_ctx("prof_scope", NULL, NULL);
    ak_prof_stat st[4];
    int n = 0, ran = 0;
    if (!ctx) return;
    AK_PROF_SCOPE(ctx, "scope") {
        work(1000);
        ran++;
        AK_PROF_SCOPE(ctx, "scope-inner") { ran++; }
    }
    AKT_EQ_INT(ran, 2);
    AKT_ERR(ak_prof_end(ctx), AK_ERROR_INVALID_ARGUMENT);   /* both closed */
    AKT_OK(ak_prof_stats(ctx, st, 4, &n));
    AKT_EQ_INT(n, 2);
    AKT_EQ_STR(st[0].name, "scope");
    AKT_EQ_INT(st[0].count, 1);
    AKT_EQ_STR(st[1].name, "scope-inner");
    AKT_EQ_INT(st[1].count, 1);
    ak_context_destroy(ctx);
}

static void test_summary(void) {
    ak_context* ctx = prof_ctx("prof_summary", NULL, NULL);
    FILE* f;
    char buf[8192];
    size_t len;
    int i;
    if (!ctx) return;
    for (i = 0; i < 3; i++) { AKT_OK(ak_prof_begin(ctx, "matmul_step", NULL)); work(1000); AKT_OK(ak_prof_end(ctx)); }
    AKT_OK(ak_prof_begin(ctx, "load\ndata", NULL));
    AKT_OK(ak_prof_end(ctx));
    f = tmpfile();
    AKT_CHECK(f != NULL);
    if (!f) { ak_context_destroy(ctx); return; }
    AKT_OK(ak_prof_summary(ctx, f));
    rewind(f);
    len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = 0;
    fclose(f);
    AKT_CONTAINS(buf, "matmul_step");
    AKT_CONTAINS(buf, "load?data");   /* control characters do not break the table */
    AKT_CONTAINS(buf, "count");
    AKT_CONTAINS(buf, "total ms");
    AKT_CONTAINS(buf, "mean ms");
    AKT_CONTAINS(buf, "host");
    /* each row has the name column padded to one width: "count" column aligned */
    {
        const char* h = strstr(buf, "\nname");
        const char* r = strstr(buf, "\nmatmul_step");
        const char* hc = h ? strstr(h, "count") : NULL;
        const char* r3 = r ? strstr(r, " 3 ") : NULL;
        AKT_CHECK(h && r && hc && r3);
        if (h && r && hc && r3) AKT_EQ_INT((hc + 5) - h, (r3 + 2) - r);
    }
    ak_context_destroy(ctx);
}

static void test_export_names(void) {
    static const char* names[] = {
        "plain", "with \"quotes\"", "back\\slash", "new\nline", "tab\tand\x01" "ctl", "micro \xC2\xB5s", "slash/ok",
        "all \"\\\n\r\b\f\x1f"
    };
    const int nn = (int)(sizeof names / sizeof names[0]);
    ak_context* ctx = prof_ctx("prof_export", NULL, NULL);
    ak_stream* side = NULL;
    const pj* ev;
    pj* t;
    int i, total, seen_side = 0;
    size_t k;
    if (!ctx) return;
    for (i = 0; i < nn; i++) {
        int r;
        for (r = 0; r <= i % 3; r++) { AKT_OK(ak_prof_begin(ctx, names[i], NULL)); AKT_OK(ak_prof_end(ctx)); }
    }
    AKT_OK(ak_stream_create(ctx, "side", 0, &side));
    AKT_OK(ak_prof_begin(ctx, "on-side", side));
    AKT_OK(ak_prof_end(ctx));
    AK_PROF_SCOPE_STREAM(ctx, "scope-on-side", side) { work(100); }
    t = export_and_parse(ctx, "names.json");
    ev = trace_events(t);
    for (i = 0; i < nn; i++) AKT_CHECKF(count_x(ev, names[i]) == i % 3 + 1, "name #%d round trip: %d events", i, count_x(ev, names[i]));
    for (i = 0, total = 2; i < nn; i++) total += i % 3 + 1;   /* + the two on-side regions */
    AKT_EQ_INT(count_x(ev, NULL), total);
    for (k = 0; ev && k < ev->n; k++) {
        const pj* e = ev->items[k];
        const pj *nm = pj_get(e, "name"), *st = pj_get(pj_get(e, "args"), "stream");
        if (!is_x(e)) continue;
        AKT_CHECK(pj_get(e, "ts") && pj_get(e, "ts")->type == PJ_NUM);
        AKT_CHECK(pj_get(e, "dur") && pj_get(e, "dur")->type == PJ_NUM && pj_get(e, "dur")->num >= 0.0);
        AKT_CHECK(pj_get(e, "pid") && pj_get(e, "pid")->type == PJ_NUM);
        AKT_CHECK(pj_get(e, "tid") && pj_get(e, "tid")->type == PJ_NUM);
        AKT_CHECK(st && st->type == PJ_STR);
        if (nm && st && !strcmp(nm->str, "on-side")) { AKT_EQ_STR(st->str, "side"); seen_side++; }
        else if (nm && st && !strcmp(nm->str, "scope-on-side")) { AKT_EQ_STR(st->str, "side"); seen_side++; }
        else if (st) AKT_EQ_STR(st->str, "default");
    }
    AKT_EQ_INT(seen_side, 2);
    pj_free(t);
    ak_stream_destroy(side);
    ak_context_destroy(ctx);
}

static void test_export_io_error(void) {
    ak_context* ctx = prof_ctx("prof_io", NULL, NULL);
    char file[700], bad[760];
    FILE* f;
    if (!ctx) return;
    snprintf(file, sizeof file, "%s/regular-file", akt_tmpdir());
    f = fopen(file, "w");
    AKT_CHECK(f != NULL);
    if (f) fclose(f);
    snprintf(bad, sizeof bad, "%s/trace.json", file);
    AKT_OK(ak_prof_begin(ctx, "x", NULL));
    AKT_OK(ak_prof_end(ctx));
    AKT_ERR_ITEM(ak_prof_export_chrome(ctx, bad), AK_ERROR_IO, AK_ERRITEM_IO);
    AKT_CONTAINS(ak_last_error(), bad);
    AKT_CONTAINS(ak_last_error(), "Not a directory");
    /* state intact: a good path still works and holds the instance */
    {
        pj* t = export_and_parse(ctx, "after_io.json");
        AKT_EQ_INT(count_x(trace_events(t), "x"), 1);
        pj_free(t);
    }
    ak_context_destroy(ctx);
}

static void test_reset(void) {
    ak_context* ctx = prof_ctx("prof_reset", NULL, NULL);
    ak_prof_stat st[4];
    int n = -1, i;
    pj* t;
    if (!ctx) return;
    for (i = 0; i < 5; i++) { AKT_OK(ak_prof_begin(ctx, "before", NULL)); AKT_OK(ak_prof_end(ctx)); }
    AKT_OK(ak_prof_begin(ctx, "left-open", NULL));
    ak_prof_reset(ctx);
    AKT_OK(ak_prof_stats(ctx, st, 4, &n));
    AKT_EQ_INT(n, 0);
    AKT_ERR(ak_prof_end(ctx), AK_ERROR_INVALID_ARGUMENT);   /* the open region was forgotten too */
    t = export_and_parse(ctx, "reset.json");
    AKT_EQ_INT(count_x(trace_events(t), NULL), 0);
    pj_free(t);
    AKT_OK(ak_prof_begin(ctx, "after", NULL));
    AKT_OK(ak_prof_end(ctx));
    AKT_OK(ak_prof_stats(ctx, st, 4, &n));
    AKT_EQ_INT(n, 1);
    AKT_EQ_STR(st[0].name, "after");
    AKT_EQ_INT(st[0].count, 1);
    ak_context_destroy(ctx);
}

typedef struct { int prof_tools; char msg[512]; } log_cap;
static void cap_logger(void* ud, ak_log_level level, ak_log_item item, const char* message) {
    log_cap* c = (log_cap*)ud;
    if (item == AK_LOGITEM_PROF_TOOLS && level == AK_LOG_INFO) {
        c->prof_tools++;
        snprintf(c->msg, sizeof c->msg, "%s", message);
    }
}
static void test_tools_log(void) {
    log_cap cap;
    ak_context* ctx;
    memset(&cap, 0, sizeof cap);
    ctx = prof_ctx("prof_log", cap_logger, &cap);
    if (!ctx) return;
    AKT_EQ_INT(cap.prof_tools, 1);
    AKT_CONTAINS(cap.msg, "no tracer library");   /* cpu backend: none used */
    ak_context_destroy(ctx);
}

void akt_suite_prof(void) {
    AKT_RUN(test_stats_consistent);
    AKT_RUN(test_nesting);
    AKT_RUN(test_threads);
    AKT_RUN(test_errors);
    AKT_RUN(test_profiling_off);
    AKT_RUN(test_scope_macro);
    AKT_RUN(test_summary);
    AKT_RUN(test_export_names);
    AKT_RUN(test_export_io_error);
    AKT_RUN(test_reset);
    AKT_RUN(test_tools_log);
}
