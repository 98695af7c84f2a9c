/* Suites ops_quant (cpu backend: ak_quantize / ak_dequantize against a naive
 * reference written from the definitions, errors) and gpu_quant (--gpu: the
 * device against the cpu backend, bit for bit: codes, scales and amax).
 * Inputs are fresh random numbers over several magnitudes (never all zero),
 * odd shapes, outputs poisoned before each run. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static const ak_dtype q_fp8[4] = { AK_FP8_E4M3, AK_FP8_E5M2, AK_FP8_E4M3_FNUZ, AK_FP8_E5M2_FNUZ };
static const ak_dtype q_src[3] = { AK_F32, AK_F16, AK_BF16 };
/* odd shapes (index odd) also run from an unaligned start; 1004: 16-bit rows in 8-byte vectors, 1000: a partial
 * 1 x 128 block in 16-byte vectors; rows past 16384 f32 / 32768 16-bit elements are read twice (1004, 20004, 40004:
 * every other 16-bit row starts 8 bytes off a 16-byte boundary) */
static const size_t q_shapes[][2] = { { 1, 1 }, { 3, 129 }, { 7, 300 }, { 64, 4096 }, { 5, 128 }, { 1, 100003 }, { 4, 8192 },
                                      { 2, 8196 }, { 33, 384 }, { 2, 1004 }, { 5, 1000 }, { 2, 999 }, { 3, 1004 },
                                      { 3, 16900 }, { 3, 20004 }, { 2, 33000 }, { 2, 40004 } };
static unsigned long long q_rng;

/* values over several orders of magnitude, both signs, a few exact zeros */
static void q_fill(void* x, ak_dtype t, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(&q_rng, -1, 1) * pow(10.0, (double)(int)akt_uniform(&q_rng, -3, 3));
        if (i % 97 == 13) v = 0;
        ak_elem_set(x, t, i, v);
    }
}

/* the naive reference: group g's scale and every code, from the definitions */
static void q_naive(ak_dtype xt, const void* x, ak_dtype qt, uint8_t* q, size_t rows, size_t cols, ak_quant_mode mode,
                    float* scale, int compute, float* amax) {
    const size_t nb = (cols + 127) / 128;
    size_t r, c;
    float tmax = 0;
    for (r = 0; r < rows * cols; r++) {
        float v = (float)fabs(ak_elem_get(x, xt, r));
        if (v > tmax) tmax = v;
    }
    if (amax) *amax = tmax;
    if (compute) {
        /* every group's amax in one pass, then its scale */
        const size_t ng = mode == AK_QUANT_TENSOR ? 1 : mode == AK_QUANT_ROW ? rows : rows * nb;
        float* gm = (float*)calloc(ng ? ng : 1, sizeof(float));
        if (!gm) return;
        for (r = 0; r < rows; r++)
            for (c = 0; c < cols; c++) {
                size_t g = mode == AK_QUANT_TENSOR ? 0 : mode == AK_QUANT_ROW ? r : r * nb + c / 128;
                float a = (float)fabs(ak_elem_get(x, xt, r * cols + c));
                if (a > gm[g]) gm[g] = a;
            }
        for (r = 0; r < ng; r++) scale[r] = gm[r] > 0 ? gm[r] / ak_fp8_max(qt) : 1.0f;
        free(gm);
    }
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++) {
            size_t g = mode == AK_QUANT_TENSOR ? 0 : mode == AK_QUANT_ROW ? r : r * nb + c / 128;
            float s = scale[g], v;
            v = (float)ak_elem_get(x, xt, r * cols + c) * (s != 0 ? 1.0f / s : 0.0f);
            q[r * cols + c] = ak_f32_to_fp8(v, qt, 1);
        }
}

static void quantize_matches_naive(void) {
    ak_context* ctx = akt_cpu_context("ops_quant");
    int ti, fi, mode, compute;
    size_t si;
    if (!ctx) return;
    q_rng = akt_seed() ^ 0x9A17ull;
    for (ti = 0; ti < 3; ti++)
        for (fi = 0; fi < 4; fi++)
            for (si = 0; si < sizeof q_shapes / sizeof q_shapes[0]; si++)
                for (mode = 0; mode < 3; mode++)
                    for (compute = 0; compute < 2; compute++) {
                        const size_t rows = q_shapes[si][0], cols = q_shapes[si][1], n = rows * cols;
                        const size_t ns = mode == AK_QUANT_TENSOR ? 1 : mode == AK_QUANT_ROW ? rows : rows * ((cols + 127) / 128);
                        void* x = malloc(n * ak_dtype_size(q_src[ti]));
                        uint8_t *q = (uint8_t*)malloc(n), *qn = (uint8_t*)malloc(n);
                        float *s = (float*)malloc(ns * 4), *sn = (float*)malloc(ns * 4), amax = -1, amaxn = -1;
                        ak_quant_args a;
                        size_t i, bad = 0;
                        if (!x || !q || !qn || !s || !sn) { akt_fail(__FILE__, __LINE__, "host OOM"); return; }
                        q_fill(x, q_src[ti], n);
                        for (i = 0; i < ns; i++) s[i] = sn[i] = compute ? -7.0f : (float)akt_uniform(&q_rng, 0.001, 0.05);
                        memset(q, 0xA5, n);
                        memset(&a, 0, sizeof a);
                        a.x_dtype = q_src[ti]; a.x = x; a.q_dtype = q_fp8[fi]; a.q = q; a.rows = rows; a.cols = cols;
                        a.mode = (ak_quant_mode)mode; a.scale = s; a.compute_scale = compute; a.amax = &amax;
                        amax = 0;
                        AKT_OK(ak_quantize(ctx, &a, NULL));
                        q_naive(q_src[ti], x, q_fp8[fi], qn, rows, cols, (ak_quant_mode)mode, sn, compute, &amaxn);
                        for (i = 0; i < n; i++) bad += q[i] != qn[i];
                        for (i = 0; i < ns; i++) bad += s[i] != sn[i];
                        AKT_CHECKF(bad == 0 && amax == amaxn, "%s -> %s %zux%zu mode %d compute %d: %zu wrong, amax %g vs %g",
                                   ak_dtype_name(q_src[ti]), ak_dtype_name(q_fp8[fi]), rows, cols, mode, compute, bad, amax, amaxn);
                        /* dequantize: s q in fp32, rounded once to x's dtype */
                        {
                            void* y = malloc(n * ak_dtype_size(q_src[ti]));
                            double one[1];
                            size_t nbk = (cols + 127) / 128, wrong = 0;
                            AKT_OK(ak_dequantize(ctx, q_fp8[fi], q, q_src[ti], y, rows, cols, (ak_quant_mode)mode, s, NULL));
                            for (i = 0; i < n; i++) {
                                size_t r = i / cols, c = i % cols;
                                float sc = mode == AK_QUANT_TENSOR ? s[0] : mode == AK_QUANT_ROW ? s[r] : s[r * nbk + c / 128];
                                ak_elem_set(one, q_src[ti], 0, (double)(sc * ak_fp8_to_f32(q[i], q_fp8[fi])));
                                wrong += ak_elem_get(y, q_src[ti], i) != ak_elem_get(one, q_src[ti], 0);
                            }
                            AKT_EQ_INT(wrong, 0);
                            free(y);
                        }
                        free(x); free(q); free(qn); free(s); free(sn);
                    }
    ak_context_destroy(ctx);
}

static void quantize_saturates_and_handles_specials(void) {
    ak_context* ctx = akt_cpu_context("ops_quant");
    float x[6] = { 1e30f, -1e30f, NAN, 0.0f, -0.0f, 3.0f }, s = 1.0f;
    uint8_t q[6];
    ak_quant_args a;
    if (!ctx) return;
    memset(&a, 0, sizeof a);   /* zero-filled: tensor-wise, scale read, no amax */
    a.x_dtype = AK_F32; a.x = x; a.q_dtype = AK_FP8_E4M3; a.q = q; a.rows = 1; a.cols = 6; a.scale = &s;
    AKT_OK(ak_quantize(ctx, &a, NULL));
    AKT_EQ_INT(q[0], 0x7E); AKT_EQ_INT(q[1], 0xFE); AKT_EQ_INT(q[2], 0x7F); AKT_EQ_INT(q[3], 0x00); AKT_EQ_INT(q[4], 0x80);
    AKT_EQ_INT(q[5], ak_f32_to_fp8(3.0f, AK_FP8_E4M3, 0));
    a.q_dtype = AK_FP8_E4M3_FNUZ;
    AKT_OK(ak_quantize(ctx, &a, NULL));
    AKT_EQ_INT(q[0], 0x7F); AKT_EQ_INT(q[1], 0xFF); AKT_EQ_INT(q[2], 0x80); AKT_EQ_INT(q[3], 0x00); AKT_EQ_INT(q[4], 0x00);
    s = 0.0f;   /* a zero scale quantises to zero */
    AKT_OK(ak_quantize(ctx, &a, NULL));
    AKT_EQ_INT(q[5], 0x00);
    ak_context_destroy(ctx);
}

static void quantize_bad_arguments(void) {
    ak_context* ctx = akt_cpu_context("ops_quant");
    float x[256], s[4] = { 1, 1, 1, 1 }, amax;
    uint8_t q[256];
    ak_quant_args a, b;
    if (!ctx) return;
    memset(x, 0, sizeof x);
    memset(&a, 0, sizeof a);
    a.x_dtype = AK_F32; a.x = x; a.q_dtype = AK_FP8_E5M2; a.q = q; a.rows = 2; a.cols = 128; a.scale = s;
    AKT_OK(ak_quantize(ctx, &a, NULL));
    AKT_ERR_ITEM(ak_quantize(NULL, &a, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_quantize(ctx, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    b = a; b.q_dtype = AK_F16; AKT_ERR_ITEM(ak_quantize(ctx, &b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    b = a; b.x_dtype = AK_I32; AKT_ERR_ITEM(ak_quantize(ctx, &b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    b = a; b.mode = (ak_quant_mode)3; AKT_ERR_ITEM(ak_quantize(ctx, &b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OUT_OF_RANGE);
    b = a; b.rows = 0; AKT_ERR_ITEM(ak_quantize(ctx, &b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_SHAPE);
    b = a; b.scale = NULL; AKT_ERR_ITEM(ak_quantize(ctx, &b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    b = a; b.q = (uint8_t*)x + 4; AKT_ERR_ITEM(ak_quantize(ctx, &b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    b = a; b.scale = (float*)(void*)(q + 16); AKT_ERR_ITEM(ak_quantize(ctx, &b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    b = a; b.x = (const char*)x + 2; AKT_ERR_ITEM(ak_quantize(ctx, &b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_MISALIGNED);
    b = a; b.amax = (float*)(void*)(q + 8); AKT_ERR_ITEM(ak_quantize(ctx, &b, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_OVERLAP);
    b = a; b.amax = &amax; AKT_OK(ak_quantize(ctx, &b, NULL));
    AKT_ERR_ITEM(ak_dequantize(ctx, AK_BF16, q, AK_F32, x, 2, 128, AK_QUANT_ROW, s, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_BAD_DTYPE);
    AKT_ERR_ITEM(ak_dequantize(ctx, AK_FP8_E4M3, q, AK_F32, x, 2, 128, AK_QUANT_BLOCK, NULL, NULL), AK_ERROR_INVALID_ARGUMENT,
                 AK_ERRITEM_NULL_ARGUMENT);
    AKT_OK(ak_dequantize(ctx, AK_FP8_E4M3, q, AK_F32, x, 2, 128, AK_QUANT_BLOCK, s, NULL));
    ak_context_destroy(ctx);
}

void akt_suite_ops_quant(void) {
    AKT_RUN(quantize_matches_naive);
    AKT_RUN(quantize_saturates_and_handles_specials);
    AKT_RUN(quantize_bad_arguments);
}

/* ---- the device against the cpu backend -------------------------------------- */

/* One cast on the device (x off elements and q qoff bytes past an aligned start; offsets that keep x and q in
 * step take the vector paths after a head, others the element paths), its codes, scales, amax and
 * dequantised values compared bit for bit with the cpu backend's. */
static void gq_case(ak_context* gpu, ak_context* cpu, int ti, int fi, size_t rows, size_t cols, size_t off, size_t qoff, int mode, int compute) {
    const size_t n = rows * cols, es = ak_dtype_size(q_src[ti]);
    const size_t ns = mode == AK_QUANT_TENSOR ? 1 : mode == AK_QUANT_ROW ? rows : rows * ((cols + 127) / 128);
    void *x = malloc((n + off) * es), *y = malloc(n * es), *yr = malloc(n * es);
    uint8_t *q = (uint8_t*)malloc(n + qoff), *qr = (uint8_t*)malloc(n + qoff);
    float *s = (float*)malloc(ns * 4), *sr = (float*)malloc(ns * 4), amax = 0, amaxr = 0;
    void *dx = NULL, *dq = NULL, *ds = NULL, *da = NULL, *dy = NULL;
    ak_quant_args a;
    size_t i, bad = 0;
    if (!x || !q || !qr || !s || !sr || !y || !yr) { akt_fail(__FILE__, __LINE__, "host OOM"); goto out; }
    q_fill(x, q_src[ti], n + off);
    for (i = 0; i < ns; i++) s[i] = sr[i] = (float)akt_uniform(&q_rng, 0.001, 0.05);
    AKT_OK(ak_malloc(gpu, (n + off) * es, NULL, &dx));
    AKT_OK(ak_malloc(gpu, n + qoff, NULL, &dq));
    AKT_OK(ak_malloc(gpu, ns * 4, NULL, &ds));
    AKT_OK(ak_malloc(gpu, 4, NULL, &da));
    AKT_OK(ak_malloc(gpu, n * es, NULL, &dy));
    if (!dx || !dq || !ds || !da || !dy) goto out;
    AKT_OK(ak_memcpy(gpu, dx, x, (n + off) * es, AK_H2D));
    AKT_OK(ak_memcpy(gpu, ds, s, ns * 4, AK_H2D));
    AKT_OK(ak_memset(gpu, dq, 0xA5, n + qoff, NULL));
    AKT_OK(ak_memset(gpu, da, 0xFF, 4, NULL));
    memset(&a, 0, sizeof a);
    a.x_dtype = q_src[ti]; a.x = (char*)dx + off * es; a.q_dtype = q_fp8[fi]; a.q = (uint8_t*)dq + qoff;
    a.rows = rows; a.cols = cols; a.mode = (ak_quant_mode)mode; a.scale = (float*)ds; a.compute_scale = compute;
    a.amax = (float*)da;
    AKT_OK(ak_quantize(gpu, &a, NULL));
    AKT_OK(ak_dequantize(gpu, q_fp8[fi], (uint8_t*)dq + qoff, q_src[ti], dy, rows, cols, (ak_quant_mode)mode,
                         (const float*)ds, NULL));
    AKT_OK(ak_device_synchronize(gpu));
    AKT_OK(ak_memcpy(gpu, q, dq, n + qoff, AK_D2H));
    AKT_OK(ak_memcpy(gpu, s, ds, ns * 4, AK_D2H));
    AKT_OK(ak_memcpy(gpu, &amax, da, 4, AK_D2H));
    AKT_OK(ak_memcpy(gpu, y, dy, n * es, AK_D2H));
    a.x = (char*)x + off * es; a.q = qr + qoff; a.scale = sr; a.amax = &amaxr;
    AKT_OK(ak_quantize(cpu, &a, NULL));
    AKT_OK(ak_dequantize(cpu, q_fp8[fi], qr + qoff, q_src[ti], yr, rows, cols, (ak_quant_mode)mode, sr, NULL));
    for (i = 0; i < n; i++) bad += q[qoff + i] != qr[qoff + i];
    for (i = 0; i < ns; i++) bad += s[i] != sr[i];
    bad += memcmp(y, yr, n * es) != 0;
    AKT_CHECKF(bad == 0 && amax == amaxr && (!qoff || q[0] == 0xA5),
               "%s -> %s %zux%zu off %zu / %zu mode %d compute %d: %zu wrong, amax %g vs %g",
               ak_dtype_name(q_src[ti]), ak_dtype_name(q_fp8[fi]), rows, cols, off, qoff, mode, compute, bad, amax, amaxr);
out:
    ak_free(gpu, dx); ak_free(gpu, dq); ak_free(gpu, ds); ak_free(gpu, da); ak_free(gpu, dy);
    free(x); free(q); free(qr); free(s); free(sr); free(y); free(yr);
}

/* The tensor with its scale computed at 1.5 and 3 times what the registers of the one-pass kernel hold (a block a
 * compute unit, 32768 f32 / 65536 16-bit elements each): the one-pass kernel with a part streamed twice (every
 * block waits for the others), then the two kernels, the second pass last tile first; two formats, every dtype. */
static void gq_tensor_paths(ak_context* gpu, ak_context* cpu) {
    const ak_device_info* di = ak_context_device(gpu);
    const size_t cus = di && di->compute_units > 0 ? (size_t)di->compute_units : 64;
    int ti, fi, k;
    for (ti = 0; ti < 3; ti++)
        for (fi = 0; fi < 4; fi += 3)
            for (k = 3; k <= 6; k += 3) {
                const size_t held = 8192 * (16 / ak_dtype_size(q_src[ti])) * cus, cols = k * held / 2 / 7 + 13;
                gq_case(gpu, cpu, ti, fi, 7, cols, 0, 0, AK_QUANT_TENSOR, 1);
            }
}

static void gpu_quantize_bit_exact(void) {
    ak_context *gpu = akt_gpu_context(NULL), *cpu = akt_cpu_context("gpu_quant_ref");
    int ti, fi, mode, compute;
    size_t si;
    if (!gpu || !cpu) { ak_context_destroy(gpu); ak_context_destroy(cpu); return; }
    q_rng = akt_seed() ^ 0x6A7ull;
    for (ti = 0; ti < 3; ti++)
        for (fi = 0; fi < 4; fi++)
            for (si = 0; si < sizeof q_shapes / sizeof q_shapes[0]; si++)
                for (mode = 0; mode < 3; mode++)
                    for (compute = 0; compute < 2; compute++)
                        gq_case(gpu, cpu, ti, fi, q_shapes[si][0], q_shapes[si][1], si & 1, si & 1, mode, compute);
    gq_tensor_paths(gpu, cpu);
    ak_context_destroy(gpu);
    ak_context_destroy(cpu);
}

void akt_suite_gpu_quant(void) { AKT_RUN(gpu_quantize_bit_exact); }
