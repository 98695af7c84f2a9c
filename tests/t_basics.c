/* Foundation basics through the public API: result codes, the thread-local
 * last error, dtypes and the host fp16/bf16 conversions (exhaustive over all
 * 65536 bit patterns plus large random samples against an independent
 * reference), element access, the argument builder, log items and a custom
 * logger. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>
#include <float.h>
#include <pthread.h>

/* ---- helpers ----------------------------------------------------------- */

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static int half_is_nan(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }
static int bf16_is_nan(uint16_t b) { return (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0; }

/* Value of a half from its fields (independent of the library). */
static double half_value(uint16_t h) {
    int e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v;
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp((double)m, -24);
    else v = ldexp((double)(1024 + m), e - 25);
    return (h & 0x8000u) ? -v : v;
}

static unsigned long long rng_state;
static uint32_t rnd32(void) {
    unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 16);
}

/* ---- result codes ---------------------------------------------------------- */

static void result_strings_and_names(void) {
    int i, j;
    struct { ak_result r; const char* name; } all[] = {
#define X_(name, value, text) { name, #name },
        AK_RESULT_LIST(X_)
#undef X_
    };
    int n = (int)(sizeof all / sizeof all[0]);
    AKT_EQ_INT(n, AK_RESULT_COUNT);
    AKT_EQ_INT(AK_OK, 0);
    for (i = 0; i < n; i++) {
        const char* s = ak_result_string(all[i].r);
        AKT_EQ_INT(all[i].r, i); /* dense, in order */
        AKT_EQ_STR(ak_result_name(all[i].r), all[i].name);
        AKT_CHECKF(s && s[0] && strcmp(s, ak_result_string((ak_result)999)) != 0, "%s has no proper string", all[i].name);
        for (j = 0; j < i; j++) {
            AKT_CHECKF(strcmp(ak_result_string(all[i].r), ak_result_string(all[j].r)) != 0, "%s and %s share a string",
                       all[i].name, all[j].name);
            AKT_CHECK(strcmp(ak_result_name(all[i].r), ak_result_name(all[j].r)) != 0);
        }
    }
    AKT_EQ_STR(ak_result_string(AK_OK), "ok");
    AKT_CONTAINS(ak_result_string(AK_ERROR_CONFIG), "configuration");
    AKT_CONTAINS(ak_result_string(AK_ERROR_OUT_OF_MEMORY), "memory");
    /* out of range: a fixed fallback, never NULL, never another code's text */
    {
        ak_result bad[] = { AK_RESULT_COUNT, (ak_result)999, (ak_result)-1 };
        for (i = 0; i < 3; i++) {
            const char* s = ak_result_string(bad[i]);
            const char* nm = ak_result_name(bad[i]);
            AKT_CHECK(s != NULL && nm != NULL);
            if (!s || !nm) continue;
            AKT_CONTAINS(s, "unknown");
            AKT_CONTAINS(nm, "UNKNOWN");
            for (j = 0; j < n; j++) AKT_CHECK(strcmp(nm, all[j].name) != 0);
        }
    }
}

/* ---- last error: thread-local --------------------------------------------- */

typedef struct { char seen_before[64]; ak_result result_before; char msg[512]; ak_result result; int ok; } thread_out;

static void* failing_thread(void* p) {
    thread_out* o = (thread_out*)p;
    ak_dtype t;
    ak_result r;
    snprintf(o->seen_before, sizeof o->seen_before, "%s", ak_last_error());
    o->result_before = ak_last_error_info()->result;
    r = ak_dtype_parse("zzfloat", &t);
    o->ok = r == AK_ERROR_CONFIG;
    snprintf(o->msg, sizeof o->msg, "%s", ak_last_error());
    o->result = ak_last_error_info()->result;
    return NULL;
}

static void last_error_is_thread_local(void) {
    ak_backend b;
    pthread_t th;
    thread_out o;
    const ak_error_info* info;
    memset(&o, 0, sizeof o);
    AKT_ERR_ITEM(ak_backend_parse("gpu-backend-x", &b), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    AKT_CONTAINS(ak_last_error(), "gpu-backend-x");
    info = ak_last_error_info();
    AKT_EQ_INT(info->result, AK_ERROR_CONFIG);
    AKT_EQ_STR(info->message, ak_last_error());
    AKT_EQ_STR(info->log, "");
    AKT_EQ_STR(info->options, "");
    AKT_EQ_STR(info->source_name, "");
    AKT_CHECK(pthread_create(&th, NULL, failing_thread, &o) == 0);
    pthread_join(th, NULL);
    /* the other thread started clean and saw its own failure */
    AKT_EQ_STR(o.seen_before, "");
    AKT_EQ_INT(o.result_before, AK_OK);
    AKT_CHECK(o.ok);
    AKT_CONTAINS(o.msg, "zzfloat");
    AKT_EQ_INT(o.result, AK_ERROR_CONFIG);
    /* ... and did not touch this thread's */
    AKT_CONTAINS(ak_last_error(), "gpu-backend-x");
    AKT_CHECK(strstr(ak_last_error(), "zzfloat") == NULL);
    AKT_EQ_INT(ak_last_error_info()->result, AK_ERROR_CONFIG);
    /* a success does not clear it; ak_clear_error does */
    AKT_OK(ak_backend_parse("cpu", &b));
    AKT_CONTAINS(ak_last_error(), "gpu-backend-x");
    ak_clear_error();
    AKT_EQ_STR(ak_last_error(), "");
    AKT_EQ_INT(ak_last_error_info()->result, AK_OK);
    AKT_EQ_STR(ak_last_error_info()->message, "");
    /* a NULL argument names the function */
    AKT_ERR(ak_backend_parse(NULL, &b), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "ak_backend_parse");
    AKT_EQ_INT(ak_last_error_info()->result, AK_ERROR_INVALID_ARGUMENT);
}

/* Many threads failing at once each keep their own message. */
typedef struct { int id; int bad; } mt_arg;
static void* mt_thread(void* p) {
    mt_arg* a = (mt_arg*)p;
    char want[64];
    int k;
    snprintf(want, sizeof want, "prec%dz", a->id);
    for (k = 0; k < 2000; k++) {
        ak_dtype t;
        if (ak_dtype_parse(want, &t) != AK_ERROR_CONFIG || !strstr(ak_last_error(), want)) a->bad++;
        if (k % 7 == 0) { ak_clear_error(); if (ak_last_error()[0]) a->bad++; }
    }
    return NULL;
}
static void last_error_many_threads(void) {
    pthread_t th[8];
    mt_arg a[8];
    int i;
    for (i = 0; i < 8; i++) { a[i].id = i; a[i].bad = 0; AKT_CHECK(pthread_create(&th[i], NULL, mt_thread, &a[i]) == 0); }
    for (i = 0; i < 8; i++) pthread_join(th[i], NULL);
    for (i = 0; i < 8; i++) AKT_EQ_INT(a[i].bad, 0);
}

/* ---- dtypes ----------------------------------------------------------------- */

/* 8-bit floats, from the definitions (written apart from the library): every
 * code's value by its fields; every float's rounding as the nearest code value
 * on the grid of all codes, ties to the even code, with the formats' overflow
 * rules. */
typedef struct { ak_dtype t; int ebits, mbits, bias, fnuz; double max; } fp8_spec;
static const fp8_spec fp8_specs[4] = {
    { AK_FP8_E4M3, 4, 3, 7, 0, 448.0 }, { AK_FP8_E5M2, 5, 2, 15, 0, 57344.0 },
    { AK_FP8_E4M3_FNUZ, 4, 3, 8, 1, 240.0 }, { AK_FP8_E5M2_FNUZ, 5, 2, 16, 1, 57344.0 } };
/* value of code c (NaN as NAN, infinities as HUGE_VAL) */
static double fp8_value(const fp8_spec* f, int c) {
    int s = c >> 7, e = (c >> f->mbits) & ((1 << f->ebits) - 1), m = c & ((1 << f->mbits) - 1);
    double v;
    if (f->fnuz && c == 0x80) return NAN;
    if (!f->fnuz && f->ebits == 4 && e == 15 && m == 7) return NAN;
    if (!f->fnuz && f->ebits == 5 && e == 31) return m ? NAN : (s ? -HUGE_VAL : HUGE_VAL);
    v = e ? ldexp(1.0 + m / (double)(1 << f->mbits), e - f->bias) : ldexp(m / (double)(1 << f->mbits), 1 - f->bias);
    return s ? -v : v;
}
/* the code x rounds to, by searching the finite non-negative codes */
static int fp8_round(const fp8_spec* f, double x, int saturate) {
    int best = 0, c, neg = signbit(x) != 0;
    double ax = fabs(x), bd = HUGE_VAL, top = f->max;
    const int nan = f->fnuz ? 0x80 : 0x7F | (neg ? 0x80 : 0);
    if (isnan(x)) return nan;
    if (ax > top) {
        /* past the largest finite value: round half to even against the next step (2^(emax - mbits)) */
        double step = ldexp(1.0, (int)floor(log2(top)) - f->mbits);
        int max_code = 0;
        for (c = 0; c < 0x80; c++) if (fp8_value(f, c) == top) max_code = c;
        if (!saturate && (isinf(x) || ax > top + step / 2 || (ax == top + step / 2 && (max_code & 1))))
            return !f->fnuz && f->ebits == 5 ? 0x7C | (neg ? 0x80 : 0) : nan;
        return max_code | (neg ? 0x80 : 0);
    }
    for (c = 0; c < 0x80; c++) {
        double v = fp8_value(f, c), d;
        if (isnan(v) || isinf(v)) continue;
        d = fabs(v - ax);
        if (d < bd || (d == bd && !(c & 1))) { bd = d; best = c; }
    }
    if (f->fnuz && best == 0) return 0;
    return best | (neg ? 0x80 : 0);
}

static void fp8_conversions_match_definitions(void) {
    int fi, c, i;
    unsigned long long st = 0x9E3779B97F4A7C15ull;
    for (fi = 0; fi < 4; fi++) {
        const fp8_spec* f = &fp8_specs[fi];
        int mism = 0;
        AKT_NEAR(ak_fp8_max(f->t), f->max, 0);
        /* every code decodes to its value, and encodes back to itself (NaNs to the format's NaN) */
        for (c = 0; c < 256; c++) {
            double v = fp8_value(f, c);
            float g = ak_fp8_to_f32((uint8_t)c, f->t);
            if (isnan(v)) { AKT_CHECKF(isnan(g), "%s code 0x%02x: %g, expected NaN", ak_dtype_name(f->t), c, g); continue; }
            AKT_CHECKF(g == (float)v && !signbit(g) == !signbit(v), "%s code 0x%02x: %g, expected %g", ak_dtype_name(f->t), c, g, v);
            if (f->fnuz && c == 0x80) continue;
            AKT_CHECKF(ak_f32_to_fp8(g, f->t, 0) == c || (f->fnuz && c == 0 && g == 0),
                       "%s code 0x%02x (%g) re-encodes to 0x%02x", ak_dtype_name(f->t), c, g, ak_f32_to_fp8(g, f->t, 0));
        }
        /* midpoints between neighbouring codes (ties), just off them, overflow, subnormals, random floats */
        for (c = 0; c < 0x7F; c++) {
            double a = fp8_value(f, c), b = fp8_value(f, c + 1);
            double xs[5];
            int k, sgn;
            if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) continue;
            xs[0] = (a + b) / 2; xs[1] = nextafter((a + b) / 2, 0); xs[2] = nextafter((a + b) / 2, 1e9);
            xs[3] = a + (b - a) / 4; xs[4] = b - (b - a) / 4;
            for (k = 0; k < 5; k++)
                for (sgn = 0; sgn < 2; sgn++) {
                    float x = (float)(sgn ? -xs[k] : xs[k]);
                    int want, sat;
                    for (sat = 0; sat < 2; sat++) {
                        want = fp8_round(f, x, sat);
                        if (ak_f32_to_fp8(x, f->t, sat) != want && mism++ < 5)
                            akt_fail(__FILE__, __LINE__, "%s(%.9g, saturate %d) = 0x%02x, expected 0x%02x", ak_dtype_name(f->t),
                                     x, sat, ak_f32_to_fp8(x, f->t, sat), want);
                    }
                }
        }
        for (i = 0; i < 200000; i++) {
            float x;
            uint32_t u;
            int sat = i & 1, want;
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            u = (uint32_t)(st >> 32);
            /* exponents around the format's range, half of them any float */
            if (i & 2) u = (u & 0x807FFFFFu) | ((uint32_t)(127 - f->bias - f->mbits - 3 + (int)((st >> 20) % (unsigned)(2 * f->bias + f->mbits + 8))) << 23);
            memcpy(&x, &u, 4);
            want = fp8_round(f, x, sat);
            if (ak_f32_to_fp8(x, f->t, sat) != want && mism++ < 5)
                akt_fail(__FILE__, __LINE__, "%s(%.9g = 0x%08x, saturate %d) = 0x%02x, expected 0x%02x", ak_dtype_name(f->t), x,
                         (unsigned)u, sat, ak_f32_to_fp8(x, f->t, sat), want);
        }
        AKT_EQ_INT(mism, 0);
        /* the special values */
        AKT_EQ_INT(ak_f32_to_fp8(HUGE_VALF, f->t, 0), !f->fnuz && f->ebits == 5 ? 0x7C : f->fnuz ? 0x80 : 0x7F);
        AKT_EQ_INT(ak_f32_to_fp8(-HUGE_VALF, f->t, 1), fp8_round(f, -f->max, 0));
        AKT_EQ_INT(ak_f32_to_fp8(-0.0f, f->t, 0), f->fnuz ? 0x00 : 0x80);
        AKT_CHECK(isnan(ak_fp8_to_f32(ak_f32_to_fp8(NAN, f->t, 1), f->t)));
        AKT_NEAR(ak_elem_get((const uint8_t[]){ (uint8_t)fp8_round(f, 1.5, 0) }, f->t, 0), 1.5, 0);
    }
    AKT_EQ_INT(ak_f32_to_fp8(470.0f, AK_FP8_E4M3, 0), 0x7F);   /* past 464 (half a step over 448): NaN, as PyTorch */
    AKT_EQ_INT(ak_f32_to_fp8(470.0f, AK_FP8_E4M3, 1), 0x7E);   /* saturating: 448 */
    AKT_EQ_INT(ak_f32_to_fp8(464.0f, AK_FP8_E4M3, 0), 0x7E);   /* the tie rounds to 448's even code */
    AKT_EQ_INT(ak_f32_to_fp8(1e6f, AK_FP8_E5M2, 0), 0x7C);     /* infinity */
    AKT_EQ_INT(ak_f32_to_fp8(250.0f, AK_FP8_E4M3_FNUZ, 0), 0x80);
    AKT_EQ_INT(ak_f32_to_fp8(1.0f, AK_F32, 0), 0);              /* not an fp8 dtype */
    AKT_CHECK(isnan(ak_fp8_to_f32(0, AK_F16)));
    AKT_NEAR(ak_fp8_max(AK_BF16), 0, 0);
}

static void dtype_names_sizes_parse(void) {
    static const char* names[] = { "f32", "f16", "bf16", "f64", "i32", "i64", "u8", "fp8_e4m3", "fp8_e5m2",
                                   "fp8_e4m3_fnuz", "fp8_e5m2_fnuz", "i8" };
    static const size_t sizes[] = { 4, 2, 2, 8, 4, 8, 1, 1, 1, 1, 1, 1 };
    int i;
    AKT_EQ_INT(AK_DTYPE_COUNT, 12);
    for (i = 0; i < (int)AK_DTYPE_COUNT; i++) {
        ak_dtype t = (ak_dtype)-7;
        AKT_EQ_STR(ak_dtype_name((ak_dtype)i), names[i]);
        AKT_EQ_INT(ak_dtype_size((ak_dtype)i), sizes[i]);
        AKT_OK(ak_dtype_parse(names[i], &t));
        AKT_EQ_INT(t, i);
    }
    AKT_EQ_STR(ak_dtype_name(AK_DTYPE_COUNT), "?");
    AKT_EQ_STR(ak_dtype_name((ak_dtype)-1), "?");
    AKT_EQ_INT(ak_dtype_size(AK_DTYPE_COUNT), 0);
    AKT_EQ_INT(ak_dtype_size((ak_dtype)-1), 0);
    AKT_EQ_INT(AK_DTYPE_BIT(AK_F16), 2);
    {
        struct { const char* s; ak_dtype t; } alias[] = {
            { "fp32", AK_F32 }, { "FP32", AK_F32 }, { "float32", AK_F32 }, { "float", AK_F32 },
            { "half", AK_F16 }, { "fp16", AK_F16 }, { "float16", AK_F16 }, { "F16", AK_F16 },
            { "bfloat16", AK_BF16 }, { "BF16", AK_BF16 }, { "BFloat16", AK_BF16 },
            { "fp8", AK_FP8_E4M3 }, { "FP8_E5M2", AK_FP8_E5M2 }, { "I32", AK_I32 },
        };
        for (i = 0; i < (int)(sizeof alias / sizeof alias[0]); i++) {
            ak_dtype t = (ak_dtype)-7;
            AKT_OK(ak_dtype_parse(alias[i].s, &t));
            AKT_CHECKF(t == alias[i].t, "'%s' parsed as %s, expected %s", alias[i].s, ak_dtype_name(t), ak_dtype_name(alias[i].t));
        }
    }
    {
        static const char* bad[] = { "", "f128", "fp7", "f 32", "f32 ", "bf", "halff", "fp8_e4m4", "float64x" };
        for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
            ak_dtype t = AK_I64;
            AKT_ERR_ITEM(ak_dtype_parse(bad[i], &t), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
            AKT_EQ_INT(t, AK_I64); /* untouched */
            if (bad[i][0]) AKT_CONTAINS(ak_last_error(), bad[i]);
        }
    }
    {
        ak_dtype t;
        AKT_ERR(ak_dtype_parse(NULL, &t), AK_ERROR_INVALID_ARGUMENT);
        AKT_ERR(ak_dtype_parse("f32", NULL), AK_ERROR_INVALID_ARGUMENT);
    }
}

/* ---- fp16 ------------------------------------------------------------------ */

/* Every half: f16 -> f32 gives the exact value; f32 -> f16 gives the half back. */
static void f16_all_halves_round_trip(void) {
    unsigned h;
    int bad_value = 0, bad_trip = 0, bad_nan = 0;
    for (h = 0; h < 65536u; h++) {
        float f = ak_f16_to_f32((uint16_t)h);
        if (half_is_nan((uint16_t)h)) {
            uint16_t back = ak_f32_to_f16(f);
            if (f == f) bad_nan++;                      /* must be a NaN float */
            if (!half_is_nan(back)) bad_nan++;           /* and stay a NaN half */
            if ((back & 0x8000u) != (h & 0x8000u)) bad_nan++; /* sign kept */
            continue;
        }
        if ((double)f != half_value((uint16_t)h)) {
            if (bad_value++ < 5) akt_fail(__FILE__, __LINE__, "f16_to_f32(0x%04x) = %.9g, expected %.9g", h, (double)f, half_value((uint16_t)h));
        }
        if (ak_f32_to_f16(f) != (uint16_t)h) {
            if (bad_trip++ < 5) akt_fail(__FILE__, __LINE__, "f32_to_f16(f16_to_f32(0x%04x)) = 0x%04x", h, ak_f32_to_f16(f));
        }
    }
    AKT_EQ_INT(bad_value, 0);
    AKT_EQ_INT(bad_trip, 0);
    AKT_EQ_INT(bad_nan, 0);
    /* signed zeros and infinities */
    AKT_EQ_INT(ak_f32_to_f16(0.0f), 0x0000);
    AKT_EQ_INT(ak_f32_to_f16(-0.0f), 0x8000);
    AKT_EQ_INT(ak_f32_to_f16(INFINITY), 0x7C00);
    AKT_EQ_INT(ak_f32_to_f16(-INFINITY), 0xFC00);
    AKT_CHECK(half_is_nan(ak_f32_to_f16(NAN)));
    AKT_CHECK(half_is_nan(ak_f32_to_f16(u2f(0x7F800001u)))); /* payload only in the low bits */
    AKT_CHECK(half_is_nan(ak_f32_to_f16(u2f(0xFFC00000u))));
    AKT_EQ_INT(ak_f32_to_f16(1.0f), 0x3C00);
    AKT_EQ_INT(ak_f32_to_f16(-2.0f), 0xC000);
    AKT_EQ_INT(ak_f32_to_f16(65504.0f), 0x7BFF);
}

/* Round to nearest even at every midpoint between neighbouring halves, and
 * just above / below each midpoint. */
static void f16_ties_and_neighbours(void) {
    unsigned h;
    int bad = 0;
    for (h = 0; h < 0x7BFFu; h++) { /* 0x7BFF's neighbour is inf: named cases below */
        unsigned s;
        for (s = 0; s < 2; s++) {
            uint16_t lo = (uint16_t)(h | (s << 15)), hi = (uint16_t)((h + 1) | (s << 15));
            double mid = (half_value(lo) + half_value(hi)) / 2; /* exact in float: 12 significant bits */
            float m = (float)mid;
            uint16_t even = (h & 1u) ? hi : lo;
            uint16_t got = ak_f32_to_f16(m);
            float above = nextafterf(m, s ? -INFINITY : INFINITY), below = nextafterf(m, s ? INFINITY : -INFINITY);
            if ((double)m != mid) bad++;
            if (got != even) { if (bad++ < 5) akt_fail(__FILE__, __LINE__, "tie %.9g -> 0x%04x, expected 0x%04x", mid, got, even); }
            if (ak_f32_to_f16(above) != hi) { if (bad++ < 5) akt_fail(__FILE__, __LINE__, "%.9g -> 0x%04x, expected 0x%04x", (double)above, ak_f32_to_f16(above), hi); }
            if (ak_f32_to_f16(below) != lo) { if (bad++ < 5) akt_fail(__FILE__, __LINE__, "%.9g -> 0x%04x, expected 0x%04x", (double)below, ak_f32_to_f16(below), lo); }
        }
    }
    AKT_EQ_INT(bad, 0);
    /* named cases */
    AKT_EQ_INT(ak_f32_to_f16(1.0f + 1.0f / 2048), 0x3C00);                 /* tie, down to even */
    AKT_EQ_INT(ak_f32_to_f16(1.0f + 3.0f / 2048), 0x3C02);                 /* tie, up to even */
    AKT_EQ_INT(ak_f32_to_f16(ldexpf(1.0f, -25)), 0x0000);                  /* half the smallest subnormal: to 0 */
    AKT_EQ_INT(ak_f32_to_f16(ldexpf(3.0f, -25)), 0x0002);                  /* 1.5 ulp: to 2 */
    AKT_EQ_INT(ak_f32_to_f16(nextafterf(ldexpf(1.0f, -25), 1.0f)), 0x0001);
    AKT_EQ_INT(ak_f32_to_f16(ldexpf(1.0f, -24)), 0x0001);                  /* smallest subnormal */
    AKT_EQ_INT(ak_f32_to_f16(ldexpf(1023.0f, -24)), 0x03FF);               /* largest subnormal */
    AKT_EQ_INT(ak_f32_to_f16(ldexpf(1.0f, -14)), 0x0400);                  /* smallest normal */
    AKT_EQ_INT(ak_f32_to_f16(-ldexpf(1.0f, -30)), 0x8000);                 /* underflow keeps the sign */
    AKT_EQ_INT(ak_f32_to_f16(FLT_MIN), 0x0000);
    AKT_EQ_INT(ak_f32_to_f16(u2f(1)), 0x0000);                             /* float subnormal */
    /* overflow */
    AKT_EQ_INT(ak_f32_to_f16(65519.99f), 0x7BFF);
    AKT_EQ_INT(ak_f32_to_f16(65520.0f), 0x7C00);                           /* tie between 65504 and "65536": to inf */
    AKT_EQ_INT(ak_f32_to_f16(1e10f), 0x7C00);
    AKT_EQ_INT(ak_f32_to_f16(FLT_MAX), 0x7C00);
    AKT_EQ_INT(ak_f32_to_f16(-1e10f), 0xFC00);
}

/* Nearest half of a finite float by the table of half values (reference). */
static uint16_t ref_f32_to_f16(float x) {
    double ax = fabs((double)x);
    unsigned lo = 0, hi = 0x7C00u, res;
    uint16_t sign = (f2u(x) & 0x80000000u) ? 0x8000u : 0;
    if (ax >= 65520.0) return (uint16_t)(sign | 0x7C00u);
    /* largest positive half <= ax */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (half_value((uint16_t)mid) <= ax) lo = mid; else hi = mid;
    }
    if (half_value((uint16_t)lo) == ax) res = lo;
    else {
        double m = (half_value((uint16_t)lo) + half_value((uint16_t)(lo + 1))) / 2;
        if (ax < m) res = lo;
        else if (ax > m) res = lo + 1;
        else res = (lo & 1u) ? lo + 1 : lo;
    }
    return (uint16_t)(sign | res);
}

static void f16_random_against_reference(void) {
    int i, bad = 0;
    rng_state = akt_seed() ^ 0x1234;
    for (i = 0; i < 600000; i++) {
        float x;
        uint32_t r = rnd32();
        switch (i % 3) {
        case 0: x = u2f(r); break;                                             /* any bit pattern */
        case 1: x = u2f((r & 0x80FFFFFFu) | ((uint32_t)(100 + (r >> 24) % 46) << 23)); break; /* half's exponent range */
        default: x = u2f((r & 0x807FFFFFu) | ((uint32_t)(96 + (r >> 23) % 18) << 23)); break; /* half subnormals */
        }
        if (x != x) { if (!half_is_nan(ak_f32_to_f16(x))) bad++; continue; }
        if (ak_f32_to_f16(x) != ref_f32_to_f16(x)) {
            if (bad++ < 5) akt_fail(__FILE__, __LINE__, "f32_to_f16(%.9g = 0x%08x) = 0x%04x, reference 0x%04x", (double)x, f2u(x),
                                    ak_f32_to_f16(x), ref_f32_to_f16(x));
        }
    }
    AKT_EQ_INT(bad, 0);
}

/* ---- bf16 ------------------------------------------------------------------ */

static void bf16_exhaustive_and_random(void) {
    unsigned b;
    int i, bad = 0;
    for (b = 0; b < 65536u; b++) {
        float f = ak_bf16_to_f32((uint16_t)b);
        if (f2u(f) != (uint32_t)b << 16) { if (bad++ < 5) akt_fail(__FILE__, __LINE__, "bf16_to_f32(0x%04x) bits 0x%08x", b, f2u(f)); }
        if (bf16_is_nan((uint16_t)b)) { if (!bf16_is_nan(ak_f32_to_bf16(f))) bad++; continue; }
        if (ak_f32_to_bf16(f) != (uint16_t)b) { if (bad++ < 5) akt_fail(__FILE__, __LINE__, "bf16 round trip 0x%04x -> 0x%04x", b, ak_f32_to_bf16(f)); }
    }
    AKT_EQ_INT(bad, 0);
    /* random floats: the result is the nearer neighbour by distance, ties to even */
    rng_state = akt_seed() ^ 0xBF16;
    for (i = 0; i < 1000000; i++) {
        float x = u2f(rnd32());
        uint16_t got = ak_f32_to_bf16(x), lo, hi, want;
        double dlo, dhi;
        if (x != x) { if (!bf16_is_nan(got)) bad++; continue; }
        lo = (uint16_t)(f2u(x) >> 16);            /* truncation: towards zero */
        hi = (uint16_t)(lo + 1);                  /* next away from zero (may be inf) */
        if (f2u(x) << 16 == 0) want = lo;
        else {
            dlo = fabs((double)x - (double)u2f((uint32_t)lo << 16));
            dhi = fabs((double)u2f((uint32_t)hi << 16) - (double)x);
            if ((hi & 0x7FFFu) == 0x7F80u) /* next is inf: compare with the would-be next finite power */
                dhi = fabs(ldexp(1.0, 128) - fabs((double)x));
            want = dlo < dhi ? lo : dhi < dlo ? hi : ((lo & 1u) ? hi : lo);
        }
        if (got != want) { if (bad++ < 5) akt_fail(__FILE__, __LINE__, "f32_to_bf16(0x%08x) = 0x%04x, expected 0x%04x", f2u(x), got, want); }
    }
    AKT_EQ_INT(bad, 0);
    AKT_EQ_INT(ak_f32_to_bf16(1.0f), 0x3F80);
    AKT_EQ_INT(ak_f32_to_bf16(u2f(0x3F808000u)), 0x3F80);  /* tie, even stays */
    AKT_EQ_INT(ak_f32_to_bf16(u2f(0x3F818000u)), 0x3F82);  /* tie, up to even */
    AKT_EQ_INT(ak_f32_to_bf16(u2f(0x3F808001u)), 0x3F81);
    AKT_EQ_INT(ak_f32_to_bf16(FLT_MAX), 0x7F80);           /* overflow to inf */
    AKT_EQ_INT(ak_f32_to_bf16(-INFINITY), 0xFF80);
    AKT_EQ_INT(ak_f32_to_bf16(u2f(1)), 0x0000);            /* tiny subnormal to zero */
    AKT_EQ_INT(ak_f32_to_bf16(u2f(0x00018000u)), 0x0002);  /* subnormal tie to even */
    AKT_CHECK(bf16_is_nan(ak_f32_to_bf16(u2f(0x7F800001u))));
    AKT_CHECK(bf16_is_nan(ak_f32_to_bf16(u2f(0xFF800001u))));
    AKT_CHECK(bf16_is_nan(ak_f32_to_bf16(NAN)));
}

/* ---- element access ------------------------------------------------------- */

static void elem_get_set(void) {
    union { double d[4]; float f[8]; uint16_t h[16]; int32_t i32[8]; int64_t i64[4]; uint8_t u8[32]; } buf;
    int t;
    for (t = 0; t < (int)AK_DTYPE_COUNT; t++) {
        size_t es = ak_dtype_size((ak_dtype)t), k;
        memset(&buf, 0x5A, sizeof buf);
        if (ak_fp8_max((ak_dtype)t) > 0) { /* 8-bit floats: one byte each, the conversions above */
            ak_elem_set(&buf, (ak_dtype)t, 2, 3.0);
            ak_elem_set(&buf, (ak_dtype)t, 3, -0.75);
            AKT_NEAR(ak_elem_get(&buf, (ak_dtype)t, 2), 3.0, 0);
            AKT_NEAR(ak_elem_get(&buf, (ak_dtype)t, 3), -0.75, 0);
            AKT_EQ_INT(buf.u8[1], 0x5A); AKT_EQ_INT(buf.u8[4], 0x5A);   /* neighbours untouched */
            continue;
        }
        ak_elem_set(&buf, (ak_dtype)t, 2, 3.0);
        AKT_CHECKF(ak_elem_get(&buf, (ak_dtype)t, 2) == 3.0, "%s: got %g", ak_dtype_name((ak_dtype)t), ak_elem_get(&buf, (ak_dtype)t, 2));
        /* only element 2 changed */
        for (k = 0; k < sizeof buf; k++)
            if (k < 2 * es || k >= 3 * es) AKT_CHECKF(((unsigned char*)&buf)[k] == 0x5A, "%s: byte %zu changed", ak_dtype_name((ak_dtype)t), k);
    }
    ak_elem_set(&buf, AK_F32, 1, 0.1);
    AKT_CHECK(buf.f[1] == 0.1f);
    ak_elem_set(&buf, AK_F64, 1, 0.1);
    AKT_CHECK(ak_elem_get(&buf, AK_F64, 1) == 0.1);
    ak_elem_set(&buf, AK_F16, 3, 1.0 / 3.0);
    AKT_EQ_INT(buf.h[3], ak_f32_to_f16(1.0f / 3.0f));
    AKT_CHECK(ak_elem_get(&buf, AK_F16, 3) == (double)ak_f16_to_f32(ak_f32_to_f16(1.0f / 3.0f)));
    ak_elem_set(&buf, AK_BF16, 5, -2.5);
    AKT_EQ_INT(buf.h[5], 0xC020);
    AKT_CHECK(ak_elem_get(&buf, AK_BF16, 5) == -2.5);
    ak_elem_set(&buf, AK_I32, 0, -7);
    AKT_EQ_INT(buf.i32[0], -7);
    ak_elem_set(&buf, AK_I64, 1, 1099511627776.0);
    AKT_EQ_INT(buf.i64[1], 1099511627776ll);
    AKT_CHECK(ak_elem_get(&buf, AK_I64, 1) == 1099511627776.0);
    ak_elem_set(&buf, AK_U8, 9, 200);
    AKT_EQ_INT(buf.u8[9], 200);
    AKT_CHECK(ak_elem_get(&buf, AK_U8, 9) == 200.0);
}

/* ---- argument builder ------------------------------------------------------ */

static void args_builder(void) {
    ak_args a;
    void** p;
    int x = 5, i;
    memset(&a, 0, sizeof a);
    ak_args_ptr(&a, &x);
    ak_args_i32(&a, -3);
    ak_args_u32(&a, 4000000000u);
    ak_args_i64(&a, -5000000000ll);
    ak_args_u64(&a, 18000000000000000000ull);
    ak_args_f32(&a, 1.25f);
    ak_args_f64(&a, -0.1);
    ak_args_buffer(&a, &x, sizeof x, AK_I32, AK_ARG_INOUT);
    AKT_EQ_INT(a.count, 8);
    AKT_EQ_INT(a.error, 0);
    p = ak_args_params(&a);
    AKT_CHECK(p != NULL);
    if (!p) return;
    for (i = 0; i < a.count; i++) AKT_CHECK(p[i] == (void*)&a.value[i]);
    AKT_CHECK(*(int**)p[0] == &x);
    AKT_EQ_INT(*(int32_t*)p[1], -3);
    AKT_CHECK(*(uint32_t*)p[2] == 4000000000u);
    AKT_CHECK(*(int64_t*)p[3] == -5000000000ll);
    AKT_CHECK(*(uint64_t*)p[4] == 18000000000000000000ull);
    AKT_CHECK(*(float*)p[5] == 1.25f);
    AKT_CHECK(*(double*)p[6] == -0.1);
    AKT_CHECK(*(int**)p[7] == &x);
    AKT_EQ_INT(a.bytes[7], sizeof x);
    AKT_EQ_INT(a.dtype[7], AK_I32);
    AKT_EQ_INT(a.dir[7], AK_ARG_INOUT);
    AKT_EQ_INT(a.dir[1], AK_ARG_VALUE);
    AKT_EQ_INT(a.bytes[0], 0);

    /* fill to the limit, then one more */
    memset(&a, 0, sizeof a);
    for (i = 0; i < AK_MAX_ARGS; i++) ak_args_i32(&a, i);
    AKT_EQ_INT(a.count, AK_MAX_ARGS);
    AKT_EQ_INT(a.error, 0);
    p = ak_args_params(&a);
    AKT_CHECK(p != NULL);
    if (p) AKT_EQ_INT(*(int32_t*)p[AK_MAX_ARGS - 1], AK_MAX_ARGS - 1);
    ak_args_f32(&a, 9.0f);
    AKT_EQ_INT(a.count, AK_MAX_ARGS);  /* nothing written past the end */
    AKT_CHECK(a.error != 0);
    AKT_CHECK(ak_args_params(&a) == NULL);
    ak_args_buffer(&a, &x, 4, AK_F32, AK_ARG_IN);
    AKT_EQ_INT(a.count, AK_MAX_ARGS);
    AKT_CHECK(ak_args_params(&a) == NULL);
    /* NULL builder: no crash */
    ak_args_i32(NULL, 1);
    ak_args_ptr(NULL, &x);
    ak_args_buffer(NULL, &x, 4, AK_F32, AK_ARG_IN);
    AKT_CHECK(ak_args_params(NULL) == NULL);
}

/* ---- error items: every failure has a stable id besides its code ----------- */

static void error_item_names_and_ids(void) {
    static const char* names[] = {
#define X_(name, text) #name,
        AK_ERROR_ITEM_LIST(X_)
#undef X_
    };
    int i, j, n = (int)(sizeof names / sizeof names[0]);
    float x[4] = { 0 };
    ak_context* ctx;
    AKT_EQ_INT(n, AK_ERRITEM_COUNT);
    for (i = 0; i < n; i++) {
        AKT_EQ_STR(ak_error_item_name((ak_error_item)i), names[i]);
        for (j = 0; j < i; j++) AKT_CHECK(strcmp(names[i], names[j]) != 0);
    }
    AKT_EQ_STR(ak_error_item_name(AK_ERRITEM_COUNT), "UNKNOWN");
    AKT_EQ_STR(ak_error_item_name((ak_error_item)-1), "UNKNOWN");
    ak_clear_error();
    AKT_EQ_INT(ak_last_error_info()->item, AK_ERRITEM_NONE);
    /* a specific item where the call site names one, the result family's item elsewhere */
    ctx = akt_cpu_context("basics");
    if (!ctx) return;
    AKT_ERR_ITEM(ak_copy(ctx, AK_F32, x, x + 1, 2, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    AKT_ERR_ITEM(ak_copy(ctx, AK_F32, NULL, x, 2, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_copy(ctx, AK_F32, (const char*)x + 1, x + 2, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    AKT_ERR_ITEM(ak_copy(ctx, AK_F32, x, x + 2, 0, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    AKT_ERR_ITEM(ak_copy(ctx, AK_I32, x, x + 2, 1, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_free(ctx, x), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);
    {
        ak_config cfg = ak_config_default();
        cfg.cache_capacity = 0;
        AKT_ERR_ITEM(ak_config_validate(&cfg, NULL, NULL), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    }
    AKT_EQ_INT(ak_last_error_info()->result, AK_ERROR_CONFIG);
    ak_clear_error();
    AKT_EQ_INT(ak_last_error_info()->item, AK_ERRITEM_NONE);
    AKT_EQ_INT(ak_last_error_info()->result, AK_OK);
    ak_context_destroy(ctx);
}

/* ---- log items and a custom logger --------------------------------------- */

static void log_item_names(void) {
    static const char* names[] = {
#define X_(name, text) #name,
        AK_LOG_ITEM_LIST(X_)
#undef X_
    };
    int i, j, n = (int)(sizeof names / sizeof names[0]);
    AKT_EQ_INT(n, AK_LOGITEM_COUNT);
    for (i = 0; i < n; i++) {
        AKT_EQ_STR(ak_log_item_name((ak_log_item)i), names[i]);
        for (j = 0; j < i; j++) AKT_CHECK(strcmp(names[i], names[j]) != 0);
    }
    AKT_EQ_STR(ak_log_item_name(AK_LOGITEM_CACHE_MISS), "CACHE_MISS");
    AKT_EQ_STR(ak_log_item_name(AK_LOGITEM_CONFIG_DOWNGRADED), "CONFIG_DOWNGRADED");
    AKT_EQ_STR(ak_log_item_name(AK_LOGITEM_COUNT), "UNKNOWN");
    AKT_EQ_STR(ak_log_item_name((ak_log_item)-1), "UNKNOWN");
    AKT_EQ_STR(ak_log_item_name((ak_log_item)100000), "UNKNOWN");
}

typedef struct { int magic; int count[5]; int items[AK_LOGITEM_COUNT]; int bad_user; int empty; char last[512]; } log_sink;
static void sink_fn(void* ud, ak_log_level level, ak_log_item item, const char* msg) {
    log_sink* s = (log_sink*)ud;
    if (!s || s->magic != 0x10C) return;
    if ((int)level >= 0 && (int)level < 5) s->count[level]++;
    if ((int)item >= 0 && (int)item < (int)AK_LOGITEM_COUNT) s->items[item]++;
    if (!msg || !msg[0]) s->empty++;
    snprintf(s->last, sizeof s->last, "%s", msg ? msg : "");
}

static ak_context* logged_ctx(ak_log_level level, log_sink* s) {
    static char dir[600];
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU;
    snprintf(dir, sizeof dir, "%s/basics_log", akt_tmpdir());
    cfg.cache_dir = dir;
    cfg.log_level = level;
    cfg.logger = sink_fn;
    cfg.logger_user_data = s;
    AKT_OK(ak_context_create(&cfg, &ctx));
    return ctx;
}

static void custom_logger_levels(void) {
    log_sink s;
    ak_context* ctx;
    ak_config cfg, fixed;
    const ak_arch_info* rdna2 = NULL;
    /* INFO: context creation reports the selected backend at INFO */
    memset(&s, 0, sizeof s);
    s.magic = 0x10C;
    ctx = logged_ctx(AK_LOG_INFO, &s);
    ak_context_destroy(ctx);
    AKT_CHECKF(s.items[AK_LOGITEM_BACKEND_SELECTED] >= 1, "BACKEND_SELECTED not logged at INFO");
    AKT_CHECK(s.count[AK_LOG_INFO] >= 1);
    AKT_EQ_INT(s.count[AK_LOG_DEBUG], 0);  /* nothing above the configured level */
    AKT_EQ_INT(s.empty, 0);
    /* WARN: the INFO message is filtered out */
    memset(&s, 0, sizeof s);
    s.magic = 0x10C;
    ctx = logged_ctx(AK_LOG_WARN, &s);
    ak_context_destroy(ctx);
    AKT_EQ_INT(s.items[AK_LOGITEM_BACKEND_SELECTED], 0);
    AKT_EQ_INT(s.count[AK_LOG_INFO], 0);
    /* NONE: nothing at all */
    memset(&s, 0, sizeof s);
    s.magic = 0x10C;
    ctx = logged_ctx(AK_LOG_NONE, &s);
    ak_context_destroy(ctx);
    AKT_EQ_INT(s.count[0] + s.count[1] + s.count[2] + s.count[3] + s.count[4], 0);

    /* a WARN message (non-strict downgrade) reaches a WARN logger, not an ERROR one */
    AKT_OK(ak_arch_find("gfx1030", &rdna2));
    if (!rdna2) return;
    cfg = ak_config_default();
    cfg.matrix_cores = AK_ON;
    cfg.logger = sink_fn;
    cfg.logger_user_data = &s;
    memset(&s, 0, sizeof s);
    s.magic = 0x10C;
    cfg.log_level = AK_LOG_WARN;
    AKT_OK(ak_config_validate(&cfg, rdna2, &fixed));
    AKT_EQ_INT(s.count[AK_LOG_WARN], 1);
    AKT_EQ_INT(s.items[AK_LOGITEM_CONFIG_DOWNGRADED], 1);
    AKT_CONTAINS(s.last, "gfx1030");
    memset(&s, 0, sizeof s);
    s.magic = 0x10C;
    cfg.log_level = AK_LOG_ERROR;
    AKT_OK(ak_config_validate(&cfg, rdna2, &fixed));
    AKT_EQ_INT(s.count[AK_LOG_WARN], 0);
    AKT_EQ_INT(fixed.matrix_cores, AK_OFF); /* downgraded all the same */
}

void akt_suite_basics(void) {
    AKT_RUN(result_strings_and_names);
    AKT_RUN(error_item_names_and_ids);
    AKT_RUN(last_error_is_thread_local);
    AKT_RUN(last_error_many_threads);
    AKT_RUN(dtype_names_sizes_parse);
    AKT_RUN(fp8_conversions_match_definitions);
    AKT_RUN(f16_all_halves_round_trip);
    AKT_RUN(f16_ties_and_neighbours);
    AKT_RUN(f16_random_against_reference);
    AKT_RUN(bf16_exhaustive_and_random);
    AKT_RUN(elem_get_set);
    AKT_RUN(args_builder);
    AKT_RUN(log_item_names);
    AKT_RUN(custom_logger_levels);
}
