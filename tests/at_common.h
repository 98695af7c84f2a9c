/* at_common.h - shared by the attention suites (ops_attention on the cpu
 * backend, gpu_attention on a device): test cases, host buffers in every
 * layout and sequence form (strides, packing and pages computed here,
 * independently of amdkit.h), random inputs, a naive reference (full score
 * row, two-pass softmax in long double, from the logical q / k / v) and the
 * comparison. Static functions only: each suite file includes it.
 *
 * A case's inputs are drawn as logical tensors q[b][hq][i][e] and
 * k, v[b][hkv][j][e] (i < the sequence's query count, j < its key count),
 * then scattered into the physical buffers: plain (the layout's strides),
 * packed (varlen: one row range per sequence, cu_seqlens_*) or paged (k / v
 * in pages dealt out in a shuffled order through a block table). 8-bit K / V
 * (kvt): the codes of value / scale[kv head] are stored, and the logical
 * values are code x scale (what dequantising gives). */
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
    size_t b, hq, hkv, sq, skv, d;   /* sq / skv: the longest sequence */
    ak_attention_layout layout;
    int causal;
    float scale;      /* 0: default */
    int splits;       /* num_splits */
    int lse;          /* ask for lse */
    double amp;       /* inputs uniform in [-amp, amp) (|v| >= amp / 16) */
    int wl, wr;       /* window_left / window_right (0: unbounded) */
    float softcap;    /* 0: off */
    int varlen;       /* bit 0: q / o packed (cu_seqlens_q), bit 1: k / v packed (cu_seqlens_kv) */
    int used;         /* 1: seqused_kv (random key counts per sequence) */
    size_t page;      /* > 0: paged k / v of this many rows a page */
    ak_dtype kvt;     /* 0: k / v are t; AK_FP8_E4M3 / AK_FP8_E5M2: 8-bit codes */
    int kvscale;      /* 8-bit k / v: 1 per-kv-head scales (k_scale, v_scale), 0 none (1) */
} at_case;

/* Host copies of one case. STRIDED: q / o rows padded to d + 8, k and v
 * interleaved in one buffer ([.][row][2][hkv][d], as a KV cache often is). */
typedef struct at_host {
    ak_attention_args a;   /* pointers into the host buffers below */
    void *q, *kv, *o;      /* kv holds k and v (separate halves unless STRIDED) */
    size_t qn, kvn, on;    /* elements of each buffer */
    size_t kofs, vofs;     /* element offsets of k and v in kv */
    float* lse;
    float *lq, *lk, *lv;   /* logical inputs (values as stored) */
    size_t *nq, *nkv;      /* per sequence: query rows, visible keys */
    int32_t *cuq, *cukv, *used, *btab;   /* the arrays the args point to (NULL when not used) */
    size_t nbt;            /* block-table entries */
    int64_t qs[3], ks[3];  /* physical strides (batch or page, head, row) of q / o and k / v */
    float *ksc, *vsc;      /* 8-bit k / v: per-kv-head scales (NULL: none) */
} at_host;

/* Element type of k / v, and the scales of kv head hk (1 without). */
AT_FN ak_dtype at_kvt(const at_case* c) { return c->kvt ? c->kvt : c->t; }
AT_FN double at_ksc(const at_case* c, size_t hk) { return c->kvscale ? c->amp * (1.0 + 0.5 * (double)hk) / 64.0 : 1.0; }
AT_FN double at_vsc(const at_case* c, size_t hk) { return c->kvscale ? c->amp * (2.0 - 0.25 * (double)(hk % 5)) / 64.0 : 1.0; }

AT_FN void at_free(at_host* h) {
    free(h->q); free(h->kv); free(h->o); free(h->lse);
    free(h->lq); free(h->lk); free(h->lv); free(h->nq); free(h->nkv);
    free(h->cuq); free(h->cukv); free(h->used); free(h->btab);
    free(h->ksc); free(h->vsc);
    memset(h, 0, sizeof *h);
}

/* Strides of `heads` x `rows` rows per batch entry in the case's layout. */
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

AT_FN size_t at_randn(unsigned long long* rng, size_t lo, size_t hi) {  /* uniform in [lo, hi] */
    size_t v = lo + (size_t)akt_uniform(rng, 0.0, (double)(hi - lo + 1));
    return v > hi ? hi : v;
}

/* Element offsets of logical rows (q / o; k; v adds vofs - kofs). */
AT_FN size_t at_qoff(const at_case* c, const at_host* h, size_t b, size_t hh, size_t i) {
    if (c->varlen & 1) return (size_t)h->qs[1] * hh + (size_t)h->qs[2] * ((size_t)h->cuq[b] + i);
    return (size_t)h->qs[0] * b + (size_t)h->qs[1] * hh + (size_t)h->qs[2] * i;
}
AT_FN size_t at_koff(const at_case* c, const at_host* h, size_t b, size_t hk, size_t j) {
    size_t o;
    if (c->page) {
        size_t per = (c->skv + c->page - 1) / c->page;
        o = (size_t)h->ks[0] * (size_t)h->btab[b * per + j / c->page] + (size_t)h->ks[2] * (j % c->page);
    } else if (c->varlen & 2) {
        o = (size_t)h->ks[2] * ((size_t)h->cukv[b] + j);
    } else {
        o = (size_t)h->ks[0] * b + (size_t)h->ks[2] * j;
    }
    return o + (size_t)h->ks[1] * hk + h->kofs;
}

/* Allocate and fill host buffers (fresh random values everywhere, padding and
 * spare pages included; o and lse poisoned with NaN). 0 on allocation failure. */
AT_FN int at_make(const at_case* c, unsigned long long* rng, at_host* h) {
    size_t es = ak_dtype_size(c->t), kes = ak_dtype_size(at_kvt(c)), i, b, hh, j, e, tq = 0, tkv = 0, npages = 0, per = 0;
    const ak_dtype kt = at_kvt(c);
    size_t* store = NULL;   /* stored key rows per sequence */
    memset(h, 0, sizeof *h);
    h->nq = (size_t*)malloc(c->b * sizeof(size_t));
    h->nkv = (size_t*)malloc(c->b * sizeof(size_t));
    store = (size_t*)malloc(c->b * sizeof(size_t));
    if (!h->nq || !h->nkv || !store) { free(store); at_free(h); return 0; }
    /* sequence lengths: sequence 0 is the longest */
    for (b = 0; b < c->b; b++) {
        h->nq[b] = (c->varlen & 1) && b > 0 ? at_randn(rng, 0, c->sq) : c->sq;
        store[b] = (c->varlen & 2) && b > 0 ? at_randn(rng, 1, c->skv) : c->skv;
        h->nkv[b] = c->used && b > 0 ? at_randn(rng, 0, store[b]) : store[b];
        tq += h->nq[b];
        tkv += store[b];
    }
    if (c->varlen & 1) {
        h->cuq = (int32_t*)malloc((c->b + 1) * sizeof(int32_t));
        if (!h->cuq) { free(store); at_free(h); return 0; }
        h->cuq[0] = 0;
        for (b = 0; b < c->b; b++) h->cuq[b + 1] = h->cuq[b] + (int32_t)h->nq[b];
    }
    if (c->varlen & 2) {
        h->cukv = (int32_t*)malloc((c->b + 1) * sizeof(int32_t));
        if (!h->cukv) { free(store); at_free(h); return 0; }
        h->cukv[0] = 0;
        for (b = 0; b < c->b; b++) h->cukv[b + 1] = h->cukv[b] + (int32_t)store[b];
    }
    if (c->used) {
        h->used = (int32_t*)malloc(c->b * sizeof(int32_t));
        if (!h->used) { free(store); at_free(h); return 0; }
        for (b = 0; b < c->b; b++) h->used[b] = (int32_t)h->nkv[b];
    }
    if (c->page) {   /* every sequence owns ceil(skv / page) pages of a shuffled pool with 3 spares */
        per = (c->skv + c->page - 1) / c->page;
        npages = c->b * per + 3;
        h->nbt = c->b * per;
        h->btab = (int32_t*)malloc(h->nbt * sizeof(int32_t));
        if (!h->btab) { free(store); at_free(h); return 0; }
        {
            int32_t* perm = (int32_t*)malloc(npages * sizeof(int32_t));
            if (!perm) { free(store); at_free(h); return 0; }
            for (i = 0; i < npages; i++) perm[i] = (int32_t)i;
            for (i = npages - 1; i > 0; i--) {
                size_t k = at_randn(rng, 0, i);
                int32_t t = perm[i]; perm[i] = perm[k]; perm[k] = t;
            }
            for (i = 0; i < h->nbt; i++) h->btab[i] = perm[i];
            free(perm);
        }
    }
    /* physical strides and sizes */
    at_strides(c, c->hq, (c->varlen & 1) ? tq : c->sq, 1, h->qs);
    if (c->varlen & 1) { h->qs[0] = 0; h->qn = tq ? at_span(h->qs, 1, c->hq, tq, c->d) : 1; }
    else h->qn = at_span(h->qs, c->b, c->hq, c->sq, c->d);
    {
        size_t nb = c->page ? npages : (c->varlen & 2) ? 1 : c->b;
        size_t rows = c->page ? c->page : (c->varlen & 2) ? tkv : c->skv;
        size_t n;
        at_strides(c, c->hkv, rows, 0, h->ks);
        if (c->varlen & 2) h->ks[0] = 0;
        n = at_span(h->ks, nb, c->hkv, rows, c->d);
        if (c->layout == AK_ATTN_STRIDED) {
            h->kvn = n + c->hkv * c->d;
            h->kofs = 0;
            h->vofs = c->hkv * c->d;
        } else {
            n = (n + 15) / 16 * 16; /* keep v 16-byte aligned */
            h->kvn = 2 * n;
            h->kofs = 0;
            h->vofs = n;
        }
    }
    h->on = h->qn;
    h->q = malloc(h->qn * es);
    h->kv = malloc(h->kvn * kes);
    h->o = malloc(h->on * es);
    h->lse = (float*)malloc(c->b * c->hq * c->sq * sizeof(float));
    h->lq = (float*)malloc(c->b * c->hq * c->sq * c->d * sizeof(float));
    h->lk = (float*)malloc(c->b * c->hkv * c->skv * c->d * sizeof(float));
    h->lv = (float*)malloc(c->b * c->hkv * c->skv * c->d * sizeof(float));
    if (!h->q || !h->kv || !h->o || !h->lse || !h->lq || !h->lk || !h->lv) { free(store); at_free(h); return 0; }
    if (c->kvt && c->kvscale) {
        h->ksc = (float*)malloc(c->hkv * sizeof(float));
        h->vsc = (float*)malloc(c->hkv * sizeof(float));
        if (!h->ksc || !h->vsc) { free(store); at_free(h); return 0; }
        for (hh = 0; hh < c->hkv; hh++) { h->ksc[hh] = (float)at_ksc(c, hh); h->vsc[hh] = (float)at_vsc(c, hh); }
    }
    for (i = 0; i < h->qn; i++) ak_elem_set(h->q, c->t, i, at_rand(rng, c->amp));
    for (i = 0; i < h->kvn; i++) ak_elem_set(h->kv, kt, i, at_rand(rng, c->amp) / at_ksc(c, 0));
    for (i = 0; i < h->on; i++) ak_elem_set(h->o, c->t, i, NAN);
    for (i = 0; i < c->b * c->hq * c->sq; i++) h->lse[i] = NAN;
    /* logical values: drawn, written to their physical place, read back as stored */
    for (b = 0; b < c->b; b++) {
        for (hh = 0; hh < c->hq; hh++)
            for (i = 0; i < h->nq[b]; i++) {
                size_t off = at_qoff(c, h, b, hh, i);
                for (e = 0; e < c->d; e++) {
                    ak_elem_set(h->q, c->t, off + e, at_rand(rng, c->amp));
                    h->lq[((b * c->hq + hh) * c->sq + i) * c->d + e] = (float)ak_elem_get(h->q, c->t, off + e);
                }
            }
        for (hh = 0; hh < c->hkv; hh++)
            for (j = 0; j < h->nkv[b]; j++) {
                size_t off = at_koff(c, h, b, hh, j), vo = off - h->kofs + h->vofs;
                for (e = 0; e < c->d; e++) {
                    size_t li = ((b * c->hkv + hh) * c->skv + j) * c->d + e;
                    ak_elem_set(h->kv, kt, off + e, at_rand(rng, c->amp) / at_ksc(c, hh));
                    ak_elem_set(h->kv, kt, vo + e, at_rand(rng, c->amp) / at_vsc(c, hh));
                    h->lk[li] = (float)(ak_elem_get(h->kv, kt, off + e) * (h->ksc ? (double)h->ksc[hh] : 1.0));
                    h->lv[li] = (float)(ak_elem_get(h->kv, kt, vo + e) * (h->vsc ? (double)h->vsc[hh] : 1.0));
                }
            }
    }
    free(store);
    memset(&h->a, 0, sizeof h->a);
    h->a.dtype = c->t;
    h->a.batch = c->b; h->a.heads_q = c->hq; h->a.heads_kv = c->hkv;
    h->a.seq_q = c->sq; h->a.seq_kv = c->skv; h->a.head_dim = c->d;
    h->a.q = h->q;
    h->a.k = (char*)h->kv + h->kofs * kes;
    h->a.v = (char*)h->kv + h->vofs * kes;
    h->a.kv_dtype = c->kvt;
    h->a.k_scale = h->ksc;
    h->a.v_scale = h->vsc;
    h->a.o = h->o;
    h->a.lse = c->lse ? h->lse : NULL;
    h->a.layout = c->layout;
    if (c->layout == AK_ATTN_STRIDED) {
        memcpy(h->a.q_stride, h->qs, sizeof h->qs);
        memcpy(h->a.o_stride, h->qs, sizeof h->qs);
        memcpy(h->a.k_stride, h->ks, sizeof h->ks);
        memcpy(h->a.v_stride, h->ks, sizeof h->ks);
    }
    h->a.scale = c->scale;
    h->a.causal = c->causal;
    h->a.num_splits = c->splits;
    h->a.window_left = c->wl;
    h->a.window_right = c->wr;
    h->a.softcap = c->softcap;
    h->a.cu_seqlens_q = h->cuq;
    h->a.cu_seqlens_kv = h->cukv;
    h->a.total_q = (c->varlen & 1) ? (tq ? tq : 1) : 0;
    h->a.total_kv = (c->varlen & 2) ? tkv : 0;
    h->a.seqused_kv = h->used;
    h->a.block_table = h->btab;
    h->a.page_size = c->page;
    h->a.num_pages = npages;
    h->a.block_table_stride = 0;
    (void)per;
    return 1;
}

/* Naive reference from the logical inputs: out (b*hq*sq*d, BHSD order; rows
 * past a sequence's query count 0) and lse (b*hq*sq; those rows NaN). Masks
 * written as inequalities on (i, j) with p = i + keys - queries. */
AT_FN int at_naive(const at_case* c, const at_host* h, double* out, double* lse) {
    size_t b, hh, i, j, e;
    long double* s = (long double*)malloc((c->skv + 1) * sizeof(long double));
    const double scale = c->scale != 0.0f ? (double)c->scale : 1.0 / sqrt((double)c->d);
    if (!s) return 0;
    for (b = 0; b < c->b; b++)
        for (hh = 0; hh < c->hq; hh++) {
            size_t hk = hh / (c->hq / c->hkv);
            for (i = 0; i < c->sq; i++) {
                size_t row = (b * c->hq + hh) * c->sq + i;
                long long p = (long long)i + (long long)h->nkv[b] - (long long)h->nq[b];
                long double m = -HUGE_VALL, sum = 0.0L;
                int any = 0;
                for (e = 0; e < c->d; e++) out[row * c->d + e] = 0.0;
                if (i >= h->nq[b]) { lse[row] = NAN; continue; }
                for (j = 0; j < h->nkv[b]; j++) {
                    const float* kr = h->lk + ((b * c->hkv + hk) * c->skv + j) * c->d;
                    const float* qr = h->lq + row * c->d;
                    long double x = 0.0L;
                    long long jj = (long long)j;
                    if ((c->causal && jj > p) || (c->wl > 0 && jj < p - c->wl) || (c->wr > 0 && jj > p + c->wr)) {
                        s[j] = -HUGE_VALL;
                        continue;
                    }
                    for (e = 0; e < c->d; e++) x += (long double)qr[e] * (long double)kr[e];
                    x *= scale;
                    if (c->softcap > 0.0f) x = (long double)c->softcap * tanhl(x / (long double)c->softcap);
                    s[j] = x;
                    if (s[j] > m) m = s[j];
                    any = 1;
                }
                if (!any) { lse[row] = -HUGE_VAL; continue; }
                for (j = 0; j < h->nkv[b]; j++)
                    if (s[j] != -HUGE_VALL) sum += expl(s[j] - m);
                for (j = 0; j < h->nkv[b]; j++) {
                    const float* vr = h->lv + ((b * c->hkv + hk) * c->skv + j) * c->d;
                    long double w;
                    if (s[j] == -HUGE_VALL) continue;
                    w = expl(s[j] - m) / sum;
                    for (e = 0; e < c->d; e++) out[row * c->d + e] += (double)(w * (long double)vr[e]);
                }
                lse[row] = (double)(m + logl(sum));
            }
        }
    free(s);
    return 1;
}

/* Output and lse of a run as doubles in BHSD row order (one row of d per
 * (batch, head, query); rows past a sequence's query count: o 0, lse as
 * stored, which must still be the NaN poison). */
AT_FN void at_collect(const at_case* c, const at_host* h, double* o, double* lse) {
    size_t b, hh, i, e;
    for (b = 0; b < c->b; b++)
        for (hh = 0; hh < c->hq; hh++)
            for (i = 0; i < c->sq; i++) {
                size_t row = (b * c->hq + hh) * c->sq + i;
                if (i < h->nq[b]) {
                    size_t oo = at_qoff(c, h, b, hh, i);
                    for (e = 0; e < c->d; e++) o[row * c->d + e] = ak_elem_get(h->o, c->t, oo + e);
                } else {
                    for (e = 0; e < c->d; e++) o[row * c->d + e] = 0.0;
                }
                lse[row] = c->lse ? h->lse[row] : 0.0;
            }
}

/* Compare the output (in the case's layout) and lse with reference values.
 * Error bound per element: tol * amp (outputs are convex combinations of v
 * rows); lse: ltol * (1 + |ref|); rows past a sequence's end must keep the
 * lse poison (NaN: not written). Also: every output element written (no NaN
 * left from the poison). Reports the first failures with `tag`. Returns 1
 * when all match. */
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
            int ok = (r != r) ? (g != g) : (r == -HUGE_VAL) ? (g == -HUGE_VAL) : fabs(g - r) <= ltol * (1.0 + fabs(r));
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
    char extra[128];
    int n = 0;
    extra[0] = 0;
    if (c->wl || c->wr) n += snprintf(extra + n, sizeof extra - (size_t)n, " window(%d,%d)", c->wl, c->wr);
    if (c->softcap > 0.0f) n += snprintf(extra + n, sizeof extra - (size_t)n, " softcap%g", (double)c->softcap);
    if (c->varlen) n += snprintf(extra + n, sizeof extra - (size_t)n, " varlen%d", c->varlen);
    if (c->used) n += snprintf(extra + n, sizeof extra - (size_t)n, " seqused");
    if (c->page) n += snprintf(extra + n, sizeof extra - (size_t)n, " page%zu", c->page);
    if (c->kvt) n += snprintf(extra + n, sizeof extra - (size_t)n, " kv %s%s", ak_dtype_name(c->kvt), c->kvscale ? " scaled" : "");
    snprintf(buf, cap, "%s b%zu hq%zu hkv%zu sq%zu skv%zu d%zu %s%s splits%d%s%s", ak_dtype_name(c->t), c->b, c->hq,
             c->hkv, c->sq, c->skv, c->d, ak_attention_layout_name(c->layout), c->causal ? " causal" : "", c->splits,
             c->amp > 4 ? " large-logits" : "", extra);
}
#endif
