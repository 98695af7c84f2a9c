/* at_common.h - shared by the attention suites (ops_attention on the cpu
 * backend, gpu_attention on a device): test cases, host buffers in every
 * layout (strides computed here, independently of amdkit.h), random inputs,
 * a naive reference (full score row, two-pass softmax in long double) and
 * the comparison. Static functions only: each suite file includes it. */
#ifndef AT_COMMON_H
#define AT_COMMON_H
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

#if defined(__GNUC__)
#define AT_FN static __attribute__((unused))
#else
#define AT_FN static
#endif

typedef struct at_case {
    ak_dtype t;
    size_t b, hq, hkv, sq, skv, d;
    ak_attention_layout layout;
    int causal;
    float scale;      /* 0: default */
    int splits;       /* num_splits */
    int lse;          /* ask for lse */
    double amp;       /* inputs uniform in [-amp, amp) (|v| >= amp / 16) */
} at_case;

/* Host copies of one case: q, k, v, o in the case's layout (STRIDED: q / o
 * rows padded to d + 8, k and v interleaved in one packed buffer
 * [b][s][2][hkv][d], as a KV cache often is). */
typedef struct at_host {
    ak_attention_args a;   /* pointers into the host buffers below */
    void *q, *kv, *o;      /* kv holds k and v (separate halves unless STRIDED) */
    size_t qn, kvn, on;    /* elements of each buffer */
    size_t kofs, vofs;     /* element offsets of k and v in kv */
    float* lse;
} at_host;

AT_FN void at_free(at_host* h) {
    free(h->q); free(h->kv); free(h->o); free(h->lse);
    memset(h, 0, sizeof *h);
}

AT_FN void at_strides(const at_case* c, size_t heads, size_t seq, int is_q, int64_t st[3]) {
    int64_t d = (int64_t)c->d, H = (int64_t)heads, S = (int64_t)seq;
    switch (c->layout) {
    case AK_ATTN_BHSD: st[0] = H * S * d; st[1] = S * d; st[2] = d; break;
    case AK_ATTN_BSHD: st[0] = S * H * d; st[1] = d; st[2] = H * d; break;
    default:
        if (is_q) { st[0] = S * H * (d + 8); st[1] = d + 8; st[2] = H * (d + 8); }
        else { st[0] = S * 2 * H * d; st[1] = d; st[2] = 2 * H * d; }
        break;
    }
}

AT_FN size_t at_span(const int64_t st[3], size_t n0, size_t n1, size_t n2, size_t d) {
    return (size_t)st[0] * (n0 - 1) + (size_t)st[1] * (n1 - 1) + (size_t)st[2] * (n2 - 1) + d;
}

AT_FN double at_rand(unsigned long long* rng, double amp) {
    double v = akt_uniform(rng, -amp, amp);
    if (fabs(v) < amp / 16) v = v < 0 ? -amp / 16 - fabs(v) : amp / 16 + v;
    return v;
}

/* Allocate and fill host buffers (fresh random values everywhere, padding
 * included; o poisoned with NaN). 0 on allocation failure. */
AT_FN int at_make(const at_case* c, unsigned long long* rng, at_host* h) {
    size_t es = ak_dtype_size(c->t), i;
    int64_t qs[3], ks[3];
    memset(h, 0, sizeof *h);
    at_strides(c, c->hq, c->sq, 1, qs);
    at_strides(c, c->hkv, c->skv, 0, ks);
    h->qn = at_span(qs, c->b, c->hq, c->sq, c->d);
    h->on = h->qn;
    if (c->layout == AK_ATTN_STRIDED) {
        h->kvn = at_span(ks, c->b, c->hkv, c->skv, c->d) + c->hkv * c->d;
        h->kofs = 0;
        h->vofs = c->hkv * c->d;
    } else {
        size_t n = at_span(ks, c->b, c->hkv, c->skv, c->d);
        n = (n + 7) / 8 * 8; /* keep v 16-byte aligned */
        h->kvn = 2 * n;
        h->kofs = 0;
        h->vofs = n;
    }
    h->q = malloc(h->qn * es);
    h->kv = malloc(h->kvn * es);
    h->o = malloc(h->on * es);
    h->lse = (float*)malloc(c->b * c->hq * c->sq * sizeof(float));
    if (!h->q || !h->kv || !h->o || !h->lse) { at_free(h); return 0; }
    for (i = 0; i < h->qn; i++) ak_elem_set(h->q, c->t, i, at_rand(rng, c->amp));
    for (i = 0; i < h->kvn; i++) ak_elem_set(h->kv, c->t, i, at_rand(rng, c->amp));
    for (i = 0; i < h->on; i++) ak_elem_set(h->o, c->t, i, NAN);
    for (i = 0; i < c->b * c->hq * c->sq; i++) h->lse[i] = NAN;
    memset(&h->a, 0, sizeof h->a);
    h->a.dtype = c->t;
    h->a.batch = c->b; h->a.heads_q = c->hq; h->a.heads_kv = c->hkv;
    h->a.seq_q = c->sq; h->a.seq_kv = c->skv; h->a.head_dim = c->d;
    h->a.q = h->q;
    h->a.k = (char*)h->kv + h->kofs * es;
    h->a.v = (char*)h->kv + h->vofs * es;
    h->a.o = h->o;
    h->a.lse = c->lse ? h->lse : NULL;
    h->a.layout = c->layout;
    if (c->layout == AK_ATTN_STRIDED) {
        memcpy(h->a.q_stride, qs, sizeof qs);
        memcpy(h->a.o_stride, qs, sizeof qs);
        memcpy(h->a.k_stride, ks, sizeof ks);
        memcpy(h->a.v_stride, ks, sizeof ks);
    }
    h->a.scale = c->scale;
    h->a.causal = c->causal;
    h->a.num_splits = c->splits;
    (void)es;
    return 1;
}

/* Naive reference of one case from the host inputs: out (b*hq*sq*d, BHSD
 * order) and lse (b*hq*sq). Masking written as j - i > seq_kv - seq_q. */
AT_FN int at_naive(const at_case* c, const at_host* h, double* out, double* lse) {
    int64_t qs[3], ks[3];
    size_t b, hh, i, j, e;
    long double* s = (long double*)malloc(c->skv * sizeof(long double));
    const double scale = c->scale != 0.0f ? (double)c->scale : 1.0 / sqrt((double)c->d);
    if (!s) return 0;
    at_strides(c, c->hq, c->sq, 1, qs);
    at_strides(c, c->hkv, c->skv, 0, ks);
    for (b = 0; b < c->b; b++)
        for (hh = 0; hh < c->hq; hh++) {
            size_t hk = hh / (c->hq / c->hkv);
            for (i = 0; i < c->sq; i++) {
                size_t row = (b * c->hq + hh) * c->sq + i;
                size_t qo = (size_t)qs[0] * b + (size_t)qs[1] * hh + (size_t)qs[2] * i;
                long double m = -HUGE_VALL, sum = 0.0L;
                int any = 0;
                for (j = 0; j < c->skv; j++) {
                    size_t ko = (size_t)ks[0] * b + (size_t)ks[1] * hk + (size_t)ks[2] * j + h->kofs;
                    long double x = 0.0L;
                    if (c->causal && (long long)j - (long long)i > (long long)c->skv - (long long)c->sq) {
                        s[j] = -HUGE_VALL;
                        continue;
                    }
                    for (e = 0; e < c->d; e++)
                        x += (long double)ak_elem_get(h->q, c->t, qo + e) * (long double)ak_elem_get(h->kv, c->t, ko + e);
                    s[j] = x * scale;
                    if (s[j] > m) m = s[j];
                    any = 1;
                }
                for (e = 0; e < c->d; e++) out[row * c->d + e] = 0.0;
                if (!any) { lse[row] = -HUGE_VAL; continue; }
                for (j = 0; j < c->skv; j++) {
                    if (s[j] == -HUGE_VALL) continue;
                    sum += expl(s[j] - m);
                }
                for (j = 0; j < c->skv; j++) {
                    size_t vo = (size_t)ks[0] * b + (size_t)ks[1] * hk + (size_t)ks[2] * j + h->vofs;
                    long double w;
                    if (s[j] == -HUGE_VALL) continue;
                    w = expl(s[j] - m) / sum;
                    for (e = 0; e < c->d; e++) out[row * c->d + e] += (double)(w * (long double)ak_elem_get(h->kv, c->t, vo + e));
                }
                lse[row] = (double)(m + logl(sum));
            }
        }
    free(s);
    return 1;
}

/* Output and lse of a run as doubles in BHSD row order (one row of d per
 * (batch, head, query)), whatever the case's layout. */
AT_FN void at_collect(const at_case* c, const at_host* h, double* o, double* lse) {
    int64_t qs[3];
    size_t b, hh, i, e;
    at_strides(c, c->hq, c->sq, 1, qs);
    for (b = 0; b < c->b; b++)
        for (hh = 0; hh < c->hq; hh++)
            for (i = 0; i < c->sq; i++) {
                size_t row = (b * c->hq + hh) * c->sq + i;
                size_t oo = (size_t)qs[0] * b + (size_t)qs[1] * hh + (size_t)qs[2] * i;
                for (e = 0; e < c->d; e++) o[row * c->d + e] = ak_elem_get(h->o, c->t, oo + e);
                lse[row] = c->lse ? h->lse[row] : 0.0;
            }
}

/* Compare the output (in the case's layout) and lse with reference values.
 * Error bound per element: tol * (max |v| of the inputs) (outputs are convex
 * combinations of v rows); lse: ltol * (1 + |ref|). Also: every output element
 * written (no NaN left from the poison), rows beyond the output untouched
 * (STRIDED padding keeps its random values: checked by the caller). Reports
 * the first failures with `tag`. Returns 1 when all match. */
AT_FN int at_compare(const at_case* c, const at_host* h, const double* ref, const double* rlse, double tol,
                      double ltol, const char* tag) {
    size_t rows = c->b * c->hq * c->sq, row, e, bad = 0;
    double worst = 0.0;
    double* got = (double*)malloc((rows * c->d + 1) * sizeof *got);
    double* glse = (double*)malloc((rows + 1) * sizeof *glse);
    if (!got || !glse) {
        free(got); free(glse);
        akt_fail(__FILE__, __LINE__, "%s: out of host memory comparing", tag);
        return 0;
    }
    at_collect(c, h, got, glse);
    for (row = 0; row < rows; row++) {
        size_t i = row % c->sq, hh = (row / c->sq) % c->hq, b = row / (c->sq * c->hq);
        for (e = 0; e < c->d; e++) {
            double g = got[row * c->d + e], r = ref[row * c->d + e];
            double err = fabs(g - r);
            if (!(err <= tol * c->amp)) {
                if (bad < 3)
                    akt_fail(__FILE__, __LINE__, "%s: o[b%zu h%zu i%zu d%zu] = %.7g, expected %.7g (tol %.3g)",
                             tag, b, hh, i, e, g, r, tol * c->amp);
                bad++;
            }
            if (err > worst || err != err) worst = err;
        }
        if (c->lse) {
            double g = glse[row], r = rlse[row];
            int ok = (r == -HUGE_VAL) ? (g == -HUGE_VAL) : fabs(g - r) <= ltol * (1.0 + fabs(r));
            if (!ok) {
                if (bad < 3)
                    akt_fail(__FILE__, __LINE__, "%s: lse[b%zu h%zu i%zu] = %.9g, expected %.9g", tag, b, hh, i, g, r);
                bad++;
            }
        }
    }
    free(got); free(glse);
    if (bad) akt_fail(__FILE__, __LINE__, "%s: %zu mismatches (worst |err| %.3g)", tag, bad, worst);
    return bad == 0;
}

/* A case with lse, amplitude 1, no splits. */
AT_FN at_case at_mk(ak_dtype t, size_t b, size_t hq, size_t hkv, size_t sq, size_t skv, size_t d,
                    ak_attention_layout layout, int causal) {
    at_case c;
    memset(&c, 0, sizeof c);
    c.t = t; c.b = b; c.hq = hq; c.hkv = hkv; c.sq = sq; c.skv = skv; c.d = d;
    c.layout = layout; c.causal = causal; c.lse = 1; c.amp = 1.0;
    return c;
}

AT_FN void at_tag(const at_case* c, char* buf, size_t cap) {
    snprintf(buf, cap, "%s b%zu hq%zu hkv%zu sq%zu skv%zu d%zu %s%s splits%d%s", ak_dtype_name(c->t), c->b, c->hq,
             c->hkv, c->sq, c->skv, c->d, ak_attention_layout_name(c->layout), c->causal ? " causal" : "", c->splits,
             c->amp > 4 ? " large-logits" : "");
}
#endif
