/* Suite gpu_llm (runs with --gpu, needs a GPU): the LLM building blocks on
 * the device against their CPU references (the same call on a cpu context),
 * fresh random inputs (never zeros), outputs poisoned with 0xFF before the
 * run and the bytes around them checked, odd shapes, 16-byte-aligned (vector
 * paths) and element-offset (scalar paths) pointers, every dtype:
 *   residual add + layernorm / rmsnorm: h bit-exact (one fp32 add, one
 *     rounding), y within the KernelBench tolerances (1e-4 f32, 1e-2 f16 /
 *     bf16, relative to 1 + |y|); in-place forms (h = r, y = x); rows in
 *     registers and the wide two-pass path;
 *   RoPE: both conventions, i32 / i64 positions up to 10^5 (and negative),
 *     partial rotary_dim, in place; f32 within 1e-5 (1 + |y|);
 *   embedding: every unit width, i32 / i64 indices, out-of-range indices
 *     (GPU: AK_OK and a zero row; compared byte for byte with the reference);
 *   strided copy: permutes, slices, reversed and broadcast strides, 6-d,
 *     long contiguous rows (chunked), every cast pair; byte for byte. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* gl_gpu;
static ak_context* gl_cpu;
static unsigned long long gl_rng;
static const ak_dtype gl_types[3] = { AK_F32, AK_F16, AK_BF16 };
#define GL_PAD 256

static int gl_setup(void) {
    if (!gl_gpu) {
        ak_result r = ak_context_create(NULL, &gl_gpu);
        if (r != AK_OK) {
            akt_fail(__FILE__, __LINE__, "no GPU context: %s", ak_last_error());
            gl_gpu = NULL;
            return 0;
        }
        gl_rng = akt_seed() ^ 0x5EED11ull;
    }
#ifndef AKT_GPU_ON_CPU
    if (ak_context_device(gl_gpu)->backend == AK_BACKEND_CPU) {
        akt_fail(__FILE__, __LINE__, "no GPU: the context fell back to the cpu backend (gpu_* suites need a GPU)");
        return 0;
    }
#endif
    if (!gl_cpu) gl_cpu = akt_cpu_context("gpu_llm_ref");
    return gl_cpu != NULL;
}
static int gl_isnan(double v) { return v != v; }
static void gl_random(void* p, ak_dtype t, size_t n, double lo, double hi) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(&gl_rng, lo, hi);
        if (fabs(v) < 0.01) v = 0.5;
        ak_elem_set(p, t, i, v);
    }
}
static void gl_bytes(void* p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) ((unsigned char*)p)[i] = (unsigned char)akt_uniform(&gl_rng, 0, 256);
}
/* A device copy of host bytes (NULL on failure, reported). */
static void* gl_up(const void* h, size_t bytes) {
    void* d = NULL;
    if (ak_malloc(gl_gpu, bytes ? bytes : 1, NULL, &d) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "device alloc of %zu bytes: %s", bytes, ak_last_error());
        return NULL;
    }
    if (h && ak_memcpy(gl_gpu, d, h, bytes, AK_H2D) != AK_OK) akt_fail(__FILE__, __LINE__, "H2D: %s", ak_last_error());
    return d;
}
static void gl_down(void* h, const void* d, size_t bytes) {
    AKT_OK(ak_device_synchronize(gl_gpu));
    AKT_OK(ak_memcpy(gl_gpu, h, d, bytes, AK_D2H));
}
/* Compare n values of dtype t at element off; tol(v) = rel * (1 + |v|); rel 0: bit-exact. */
static size_t gl_compare(const char* what, const char* name, const void* g, const void* c, ak_dtype t, size_t off,
                         size_t n, double rel) {
    size_t i, bad = 0;
    for (i = 0; i < n; i++) {
        double gv = ak_elem_get(g, t, off + i), cv = ak_elem_get(c, t, off + i);
        int ok = rel == 0.0 ? !memcmp((const char*)g + (off + i) * ak_dtype_size(t),
                                      (const char*)c + (off + i) * ak_dtype_size(t), ak_dtype_size(t))
                            : gl_isnan(cv) ? gl_isnan(gv) : (!gl_isnan(gv) && fabs(gv - cv) <= rel * (1.0 + fabs(cv)));
        if (!ok && bad++ < 3) akt_fail(__FILE__, __LINE__, "%s: %s[%zu] = %.9g, reference %.9g", what, name, i, gv, cv);
    }
    if (bad > 3) akt_fail(__FILE__, __LINE__, "%s: %zu of %zu values of %s wrong", what, bad, n, name);
    return bad;
}
/* The poison before element off and after off + n of a buffer must be intact. */
static void gl_poison_ok(const char* what, const unsigned char* b, size_t before, size_t total) {
    size_t i;
    for (i = 0; i < before; i++)
        if (b[i] != 0xFF) { akt_fail(__FILE__, __LINE__, "%s: wrote before the output", what); return; }
    for (i = 0; i < GL_PAD; i++)
        if (b[total + i] != 0xFF) { akt_fail(__FILE__, __LINE__, "%s: wrote past the output", what); return; }
}

/* ---- residual add + norm ------------------------------------------------------ */

/* form 0: separate h, y; 1: h = r, y separate; 2: h separate, y = x */
static void gl_add_norm(ak_dtype t, size_t rows, size_t cols, size_t off, int rms, int wb, int form) {
    size_t es = ak_dtype_size(t), n = rows * cols, xb = (n + off) * es, wbytes = (cols + off) * es;
    unsigned char *hx = (unsigned char*)malloc(xb), *hr = (unsigned char*)malloc(xb), *hw = (unsigned char*)malloc(wbytes),
                  *hb = (unsigned char*)malloc(wbytes), *ch = (unsigned char*)malloc(xb + GL_PAD),
                  *cy = (unsigned char*)malloc(xb + GL_PAD), *gh = (unsigned char*)malloc(xb + GL_PAD),
                  *gy = (unsigned char*)malloc(xb + GL_PAD);
    void *dx = NULL, *dr = NULL, *dw = NULL, *db = NULL, *dh = NULL, *dy = NULL;
    char what[160];
    float eps = rms ? 1e-6f : 1e-5f;
    ak_result rg, rc;
    const void *cw, *cb, *gw, *gb;
    void *ghp, *gyp, *chp, *cyp;
    snprintf(what, sizeof what, "add_%s %s %zux%zu off=%zu w=%d b=%d form=%d", rms ? "rmsnorm" : "layernorm",
             ak_dtype_name(t), rows, cols, off, wb & 1, (wb >> 1) & 1, form);
    if (!hx || !hr || !hw || !hb || !ch || !cy || !gh || !gy) { akt_fail(__FILE__, __LINE__, "host oom"); goto done; }
    gl_random(hx, t, n + off, -4.0, 4.0);
    gl_random(hr, t, n + off, -3.0, 3.0);
    gl_random(hw, t, cols + off, 0.5, 2.0);
    gl_random(hb, t, cols + off, -1.0, 1.0);
    memset(ch, 0xFF, xb + GL_PAD);
    memset(cy, 0xFF, xb + GL_PAD);
    if (!(dx = gl_up(hx, xb)) || !(dr = gl_up(hr, xb)) || !(dw = gl_up(hw, wbytes)) || !(db = gl_up(hb, wbytes)) ||
        !(dh = gl_up(ch, xb + GL_PAD)) || !(dy = gl_up(cy, xb + GL_PAD)))
        goto done;
    /* the cpu side works on copies laid out like the device buffers */
    if (form == 1) memcpy(ch, hr, xb);
    if (form == 2) memcpy(cy, hx, xb);
    if (form == 1) AKT_OK(ak_memcpy(gl_gpu, dh, hr, xb, AK_H2D));
    if (form == 2) AKT_OK(ak_memcpy(gl_gpu, dy, hx, xb, AK_H2D));
    cw = (wb & 1) ? (const void*)(hw + off * es) : NULL;
    cb = (wb & 2) ? (const void*)(hb + off * es) : NULL;
    gw = (wb & 1) ? (const void*)((char*)dw + off * es) : NULL;
    gb = (wb & 2) ? (const void*)((char*)db + off * es) : NULL;
    ghp = (char*)dh + off * es; gyp = (char*)dy + off * es;
    chp = ch + off * es; cyp = cy + off * es;
    {
        const void* gx = form == 2 ? (const void*)gyp : (const void*)((char*)dx + off * es);
        const void* gr = form == 1 ? (const void*)ghp : (const void*)((char*)dr + off * es);
        const void* cx = form == 2 ? (const void*)cyp : (const void*)(hx + off * es);
        const void* cr = form == 1 ? (const void*)chp : (const void*)(hr + off * es);
        if (rms) {
            rg = ak_add_rmsnorm(gl_gpu, t, gx, gr, gw, ghp, gyp, rows, cols, eps, NULL);
            rc = ak_add_rmsnorm(gl_cpu, t, cx, cr, cw, chp, cyp, rows, cols, eps, NULL);
        } else {
            rg = ak_add_layernorm(gl_gpu, t, gx, gr, gw, gb, ghp, gyp, rows, cols, eps, NULL);
            rc = ak_add_layernorm(gl_cpu, t, cx, cr, cw, cb, chp, cyp, rows, cols, eps, NULL);
        }
    }
    AKT_CHECKF(rg == AK_OK, "%s: gpu -> %s: %s", what, ak_result_name(rg), ak_last_error());
    AKT_CHECKF(rc == AK_OK, "%s: cpu -> %s: %s", what, ak_result_name(rc), ak_last_error());
    if (rg != AK_OK || rc != AK_OK) goto done;
    gl_down(gh, dh, xb + GL_PAD);
    gl_down(gy, dy, xb + GL_PAD);
    gl_compare(what, "h", gh, ch, t, off, n, 0.0);
    gl_compare(what, "y", gy, cy, t, off, n, t == AK_F32 ? 1e-4 : 1e-2);
    if (form != 1) gl_poison_ok(what, gh, off * es, xb);
    if (form != 2) gl_poison_ok(what, gy, off * es, xb);
done:
    free(hx); free(hr); free(hw); free(hb); free(ch); free(cy); free(gh); free(gy);
    if (gl_gpu) { ak_free(gl_gpu, dx); ak_free(gl_gpu, dr); ak_free(gl_gpu, dw); ak_free(gl_gpu, db); ak_free(gl_gpu, dh); ak_free(gl_gpu, dy); }
}

static void test_gpu_add_norm(void) {
    static const size_t shapes[][3] = { { 1, 1, 0 }, { 7, 7, 0 }, { 5, 4097, 0 }, { 64, 4096, 0 }, { 64, 4096, 1 },
                                        { 3, 16384, 0 }, { 1000, 100, 0 }, { 3, 20000, 0 }, { 2, 20001, 1 },
                                        { 129, 768, 0 }, { 3, 131072, 0 }, { 2, 140001, 1 } };
    size_t ti, si;
    if (!gl_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            size_t r = shapes[si][0], c = shapes[si][1], o = shapes[si][2];
            gl_add_norm(gl_types[ti], r, c, o, 0, 3, 0);
            gl_add_norm(gl_types[ti], r, c, o, 0, 0, 1);
            gl_add_norm(gl_types[ti], r, c, o, 0, 2, 2);
            gl_add_norm(gl_types[ti], r, c, o, 1, 1, 1);
            gl_add_norm(gl_types[ti], r, c, o, 1, 0, 0);
        }
}

/* ---- RoPE --------------------------------------------------------------------- */

static void gl_rope(ak_rope_mode mode, ak_dtype t, ak_dtype pt, size_t tokens, size_t heads, size_t hd, size_t rd,
                    size_t off, int inplace, float theta) {
    size_t es = ak_dtype_size(t), n = tokens * heads * hd, xb = (n + off) * es, pb = tokens * ak_dtype_size(pt), i;
    unsigned char *hx = (unsigned char*)malloc(xb + GL_PAD), *cy = (unsigned char*)malloc(xb + GL_PAD),
                  *gy = (unsigned char*)malloc(xb + GL_PAD), *hp = (unsigned char*)malloc(pb);
    void *dx = NULL, *dy = NULL, *dp = NULL;
    char what[160];
    ak_result rg, rc;
    snprintf(what, sizeof what, "rope %s %s pos %s %zux%zux%zu rd %zu off=%zu%s", mode ? "interleaved" : "neox",
             ak_dtype_name(t), ak_dtype_name(pt), tokens, heads, hd, rd, off, inplace ? " in place" : "");
    if (!hx || !cy || !gy || !hp) { akt_fail(__FILE__, __LINE__, "host oom"); goto done; }
    gl_random(hx, t, n + off, -3.0, 3.0);
    memset(hx + xb, 0xFF, GL_PAD);
    for (i = 0; i < tokens; i++) {
        int64_t p = (int64_t)akt_uniform(&gl_rng, -1000.0, 100000.0);
        if (i == 0) p = 0;
        if (pt == AK_I64) ((int64_t*)hp)[i] = p;
        else ((int32_t*)hp)[i] = (int32_t)p;
    }
    memset(cy, 0xFF, xb + GL_PAD);
    if (inplace) memcpy(cy, hx, xb + GL_PAD);
    if (!(dx = gl_up(hx, xb + GL_PAD)) || !(dp = gl_up(hp, pb))) goto done;
    if (inplace) dy = dx;
    else if (!(dy = gl_up(cy, xb + GL_PAD))) goto done;
    rg = ak_rope(gl_gpu, mode, t, pt, (char*)dx + off * es, dp, (char*)dy + off * es, tokens, heads, hd, rd, theta, NULL);
    rc = ak_rope(gl_cpu, mode, t, pt, inplace ? cy + off * es : hx + off * es, hp, cy + off * es, tokens, heads, hd, rd,
                 theta, NULL);
    AKT_CHECKF(rg == AK_OK, "%s: gpu -> %s: %s", what, ak_result_name(rg), ak_last_error());
    AKT_CHECKF(rc == AK_OK, "%s: cpu -> %s: %s", what, ak_result_name(rc), ak_last_error());
    if (rg != AK_OK || rc != AK_OK) goto done;
    gl_down(gy, dy, xb + GL_PAD);
    gl_compare(what, "y", gy, cy, t, off, n, t == AK_F32 ? 1e-5 : 1e-2);
    if (!inplace) gl_poison_ok(what, gy, off * es, xb);
done:
    free(hx); free(cy); free(gy); free(hp);
    if (gl_gpu) { ak_free(gl_gpu, dx); if (!inplace) ak_free(gl_gpu, dy); ak_free(gl_gpu, dp); }
}

static void test_gpu_rope(void) {
    static const size_t shapes[][4] = { { 1, 1, 2, 2 }, { 7, 3, 64, 64 }, { 33, 5, 128, 128 }, { 17, 4, 128, 64 },
                                        { 9, 2, 80, 40 }, { 5, 3, 6, 4 }, { 3, 2, 96, 32 }, { 257, 32, 128, 128 },
                                        { 2, 1, 1024, 1024 }, { 1201, 8, 128, 64 }, { 4099, 4, 64, 64 } };
    size_t ti, si;
    int m;
    if (!gl_setup()) return;
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (m = 0; m < 2; m++) {
                const size_t* s = shapes[si];
                gl_rope((ak_rope_mode)m, gl_types[ti], AK_I64, s[0], s[1], s[2], s[3], 0, 0, 10000.0f);
                gl_rope((ak_rope_mode)m, gl_types[ti], AK_I32, s[0], s[1], s[2], s[3], 1, 0, 500000.0f);
                gl_rope((ak_rope_mode)m, gl_types[ti], AK_I32, s[0], s[1], s[2], s[3], 0, 1, 10000.0f);
            }
}

/* ---- embedding ------------------------------------------------------------------- */

static void gl_embedding(ak_dtype t, ak_dtype it, size_t vocab, size_t dim, size_t n, size_t off, int bad) {
    size_t es = ak_dtype_size(t), ie = ak_dtype_size(it), tb = (vocab * dim + off) * es, ob = (n * dim + off) * es, i;
    unsigned char *htab = (unsigned char*)malloc(tb), *hidx = (unsigned char*)malloc(n * ie),
                  *cy = (unsigned char*)malloc(ob + GL_PAD), *gy = (unsigned char*)malloc(ob + GL_PAD);
    void *dt = NULL, *di = NULL, *dy = NULL;
    char what[160];
    ak_result rg, rc;
    snprintf(what, sizeof what, "embedding %s idx %s vocab %zu dim %zu n %zu off=%zu%s", ak_dtype_name(t),
             ak_dtype_name(it), vocab, dim, n, off, bad ? " (bad indices)" : "");
    if (!htab || !hidx || !cy || !gy) { akt_fail(__FILE__, __LINE__, "host oom"); goto done; }
    gl_bytes(htab, tb);
    for (i = 0; i < n; i++) {
        int64_t k = (int64_t)akt_uniform(&gl_rng, 0.0, (double)vocab);
        if (bad && i % 7 == 3) k = i % 2 ? -1 - (int64_t)i : (int64_t)vocab + (int64_t)i;
        if (it == AK_I64) ((int64_t*)hidx)[i] = k;
        else ((int32_t*)hidx)[i] = (int32_t)k;
    }
    memset(cy, 0xFF, ob + GL_PAD);
    if (!(dt = gl_up(htab, tb)) || !(di = gl_up(hidx, n * ie)) || !(dy = gl_up(cy, ob + GL_PAD))) goto done;
    rg = ak_embedding(gl_gpu, t, it, (char*)dt + off * es, di, (char*)dy + off * es, n, vocab, dim, NULL);
    rc = ak_embedding(gl_cpu, t, it, htab + off * es, hidx, cy + off * es, n, vocab, dim, NULL);
    /* a GPU cannot report a bad index: AK_OK and a zero row (a dry run on the
     * cpu backend returns the reference's AK_ERROR_INVALID_ARGUMENT, same rows) */
    if (bad && rg == AK_ERROR_INVALID_ARGUMENT && ak_context_device(gl_gpu)->backend == AK_BACKEND_CPU) rg = AK_OK;
    AKT_CHECKF(rg == AK_OK, "%s: gpu -> %s: %s", what, ak_result_name(rg), ak_last_error());
    AKT_CHECKF(rc == (bad ? AK_ERROR_INVALID_ARGUMENT : AK_OK), "%s: cpu -> %s", what, ak_result_name(rc));
    if (rg != AK_OK) goto done;
    gl_down(gy, dy, ob + GL_PAD);
    AKT_CHECKF(!memcmp(gy, cy, ob + GL_PAD), "%s: device output differs from the reference", what);
done:
    free(htab); free(hidx); free(cy); free(gy);
    if (gl_gpu) { ak_free(gl_gpu, dt); ak_free(gl_gpu, di); ak_free(gl_gpu, dy); }
}

static void test_gpu_embedding(void) {
    static const ak_dtype types[] = { AK_F32, AK_F16, AK_BF16, AK_I64, AK_U8 };
    static const size_t dims[] = { 1, 3, 8, 64, 4097, 4096 };
    size_t ti, di;
    if (!gl_setup()) return;
    for (ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (di = 0; di < sizeof dims / sizeof dims[0]; di++) {
            gl_embedding(types[ti], AK_I32, 1000, dims[di], 333, 0, 0);
            gl_embedding(types[ti], AK_I64, 1000, dims[di], 77, 1, 0);
            gl_embedding(types[ti], AK_I64, 517, dims[di], 50, 0, 1);
            gl_embedding(types[ti], AK_I32, 517, dims[di], 29, 0, 1);
        }
}

/* ---- strided copy ---------------------------------------------------------------- */

static void gl_copy(ak_dtype st, ak_dtype dt, size_t nd, const size_t* shape, const int64_t* ss, size_t s0, size_t sn,
                    const int64_t* ds, size_t d0, size_t dn, const char* name) {
    size_t es = ak_dtype_size(st), ed = ak_dtype_size(dt), sb = sn * es, db = dn * ed;
    unsigned char *hs = (unsigned char*)malloc(sb), *cy = (unsigned char*)malloc(db + GL_PAD),
                  *gy = (unsigned char*)malloc(db + GL_PAD);
    void *ds_ = NULL, *dd = NULL;
    char what[160];
    ak_result rg, rc;
    snprintf(what, sizeof what, "copy_strided %s %s -> %s", name, ak_dtype_name(st), ak_dtype_name(dt));
    if (!hs || !cy || !gy) { akt_fail(__FILE__, __LINE__, "host oom"); goto done; }
    if (st == AK_F32 || st == AK_F16 || st == AK_BF16) gl_random(hs, st, sn, -300.0, 300.0);
    else gl_bytes(hs, sb);
    memset(cy, 0xFF, db + GL_PAD);
    if (!(ds_ = gl_up(hs, sb)) || !(dd = gl_up(cy, db + GL_PAD))) goto done;
    rg = ak_copy_strided(gl_gpu, st, dt, (char*)ds_ + s0 * es, (char*)dd + d0 * ed, nd, shape, ss, ds, NULL);
    rc = ak_copy_strided(gl_cpu, st, dt, hs + s0 * es, cy + d0 * ed, nd, shape, ss, ds, NULL);
    AKT_CHECKF(rg == AK_OK, "%s: gpu -> %s: %s", what, ak_result_name(rg), ak_last_error());
    AKT_CHECKF(rc == AK_OK, "%s: cpu -> %s: %s", what, ak_result_name(rc), ak_last_error());
    if (rg != AK_OK || rc != AK_OK) goto done;
    gl_down(gy, dd, db + GL_PAD);
    AKT_CHECKF(!memcmp(gy, cy, db + GL_PAD), "%s: device output differs from the reference", what);
done:
    free(hs); free(cy); free(gy);
    if (gl_gpu) { ak_free(gl_gpu, ds_); ak_free(gl_gpu, dd); }
}

static void test_gpu_copy_strided(void) {
    static const ak_dtype pairs[][2] = { { AK_F32, AK_F32 }, { AK_F16, AK_F16 }, { AK_BF16, AK_BF16 },
                                         { AK_I64, AK_I64 }, { AK_U8, AK_U8 }, { AK_I32, AK_I32 },
                                         { AK_F32, AK_F16 }, { AK_F32, AK_BF16 }, { AK_F16, AK_F32 },
                                         { AK_BF16, AK_F32 }, { AK_F16, AK_BF16 }, { AK_BF16, AK_F16 },
                                         { AK_I32, AK_I64 }, { AK_I64, AK_I32 } };
    size_t pi;
    if (!gl_setup()) return;
    for (pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        ak_dtype st = pairs[pi][0], dt = pairs[pi][1];
        {   /* attention-style permute [b][s][h][d] -> [b][h][s][d] */
            size_t sh[4] = { 2, 12, 37, 64 };
            int64_t ss[4] = { 37 * 12 * 64, 64, 12 * 64, 1 }, ds[4] = { 12 * 37 * 64, 37 * 64, 64, 1 };
            gl_copy(st, dt, 4, sh, ss, 0, 2 * 12 * 37 * 64, ds, 0, 2 * 12 * 37 * 64, "permute 0213");
            gl_copy(st, dt, 4, sh, ss, 1, 2 * 12 * 37 * 64 + 1, ds, 3, 2 * 12 * 37 * 64 + 3, "permute 0213 odd");
        }
        {   /* the innermost dimension moves */
            size_t sh[3] = { 33, 17, 65 };
            int64_t ss[3] = { 1, 33, 33 * 17 }, ds[3] = { 17 * 65, 65, 1 };
            gl_copy(st, dt, 3, sh, ss, 0, 33 * 17 * 65, ds, 0, 33 * 17 * 65, "permute 210");
        }
        {   /* slice of a 300 x 1000 matrix: rows 10..260, columns 8..808 */
            size_t sh[2] = { 250, 800 };
            int64_t ss[2] = { 1000, 1 }, ds[2] = { 800, 1 };
            gl_copy(st, dt, 2, sh, ss, 10 * 1000 + 8, 300 * 1000, ds, 0, 250 * 800, "slice");
        }
        {   /* concat half: into columns 512..1024 of a 100 x 1024 output */
            size_t sh[2] = { 100, 512 };
            int64_t ss[2] = { 512, 1 }, ds[2] = { 1024, 1 };
            gl_copy(st, dt, 2, sh, ss, 0, 100 * 512, ds, 512, 100 * 1024, "concat");
        }
        {   /* reversed and broadcast */
            size_t sh[3] = { 3, 40, 31 };
            int64_t ss[3] = { 0, -31, -1 }, ds[3] = { 40 * 31, 31, 1 };
            gl_copy(st, dt, 3, sh, ss, 40 * 31 - 1, 40 * 31, ds, 0, 3 * 40 * 31, "reverse + broadcast");
        }
        {   /* 6 dimensions */
            size_t sh[6] = { 3, 2, 5, 2, 3, 8 };
            int64_t ss[6] = { 1440, 720, 144, 72, 24, 1 }, ds[6] = { 1, 3, 6, 30, 60, 180 };
            gl_copy(st, dt, 6, sh, ss, 0, 4320, ds, 0, 1440, "6-d");
        }
        {   /* long contiguous rows (chunked) and one element */
            size_t sh[1] = { 3000001 }, one[1] = { 1 };
            int64_t s1[1] = { 1 };
            gl_copy(st, dt, 1, sh, s1, 0, 3000001, s1, 0, 3000001, "1-d long");
            gl_copy(st, dt, 1, sh, s1, 1, 3000002, s1, 0, 3000001, "1-d long misaligned");
            gl_copy(st, dt, 1, one, s1, 0, 1, s1, 0, 1, "one element");
        }
    }
}

static void test_gpu_llm_cleanup(void) {
    ak_context_destroy(gl_gpu);
    ak_context_destroy(gl_cpu);
    gl_gpu = NULL;
    gl_cpu = NULL;
}

void akt_suite_gpu_llm(void) {
    AKT_RUN(test_gpu_add_norm);
    AKT_RUN(test_gpu_rope);
    AKT_RUN(test_gpu_embedding);
    AKT_RUN(test_gpu_copy_strided);
    AKT_RUN(test_gpu_llm_cleanup);
}
