/* Suite gpu_gemm (runs with --gpu, needs a GPU): ak_gemm on the device
 * against the cpu backend's reference (itself checked against a naive loop
 * in suite ops_gemm), fresh random inputs (never zeros), D poisoned with
 * 0xFF bytes first (NaN: an unwritten element fails; the gaps of padded
 * leading dimensions must keep the poison). Error bound per element, from K
 * and the dtypes: |gpu - ref| <= 2 (K 2^-24 + e_in) S |alpha| + 2 e_out |ref| + 1e-5,
 * S = |a_i| |b_j| (row norms, a bound of sum_k |a_ik b_kj|), e_in = 2^-10 for TF32 / xf32 (both
 * operands rounded to 10 mantissa bits), else 0 (f16 / bf16 products are
 * exact in fp32); e_out = the output dtype's half ulp. Covers every path the
 * device has (matrix cores for f16 / bf16 / TF32, SIMT for exact f32 and
 * with matrix_cores off; the test checks which one the plan names), odd
 * shapes (1, 7, 127, 129, 1000, K = 1, M = 1 and 16 decode rows), all four
 * transpose combinations, every epilogue, batched strides, unaligned
 * pointers and leading dimensions, and beta = 0 with NaN in C. */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static unsigned long long g_st;
static ak_context* g_ref;
static int g_act = 0;    /* > 0: the activation of the cases with an activation (else one from the shape) */
static const char* g_kpre = NULL; /* non-NULL: the plan's kernel name must start with it */
static int g_split = 0;           /* 1: the plan must cut k into slices (split-K) where a path is expected */
static int g_turned = 0;          /* 1: the plan must run the transposed product C^T = B^T A^T */

static ak_context* gg_ctx(int mc, int prec, int mixed, int tf32) {
    ak_config cfg = ak_config_default();
    if (ak_config_apply_env(&cfg) != AK_OK) return NULL;
    cfg.log_level = AK_LOG_ERROR;
    cfg.matrix_cores = (ak_tristate)mc;
    cfg.precision = prec;
    cfg.mixed_precision = (ak_tristate)mixed;
    cfg.allow_tf32 = tf32;
    return akt_gpu_context(&cfg);
}

static void fill(void* p, ak_dtype t, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = akt_uniform(&g_st, -1, 1);
        if (fabs(v) < 0.01) v = -0.41;
        ak_elem_set(p, t, i, v);
    }
}

/* device copy of a host buffer, `off` bytes into a fresh allocation */
static void* up(ak_context* ctx, const void* h, size_t bytes, size_t off, void** base) {
    void* d = NULL;
    if (ak_malloc(ctx, bytes + off + 16, NULL, &d) != AK_OK) { akt_fail(__FILE__, __LINE__, "%s", ak_last_error()); return NULL; }
    *base = d;
    d = (char*)d + off;
    if (ak_memcpy(ctx, d, h, bytes, AK_H2D) != AK_OK) akt_fail(__FILE__, __LINE__, "%s", ak_last_error());
    return d;
}

/* one case on ctx; `path` is the plan path expected ("" = don't check) */
static void gg_case(ak_context* ctx, const char* path, ak_dtype dt, ak_dtype ot, size_t m, size_t n, size_t k, int ta, int tb,
                    int epi, size_t batch, int pad, size_t off) {
    ak_gemm_desc g = ak_gemm_desc_default(), h;
    ak_gemm_plan p;
    size_t es = ak_dtype_size(dt), os = ak_dtype_size(ot);
    size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    /* pad >= 0: that many elements past each stored row; pad < 0: rows rounded up to 8 elements (TMA's 16 bytes) */
    size_t lda = pad < 0 ? (ac + 7) / 8 * 8 : ac + (size_t)pad, ldb = pad < 0 ? (bc + 7) / 8 * 8 : bc + (size_t)pad;
    size_t ldd = pad < 0 ? (n + 7) / 8 * 8 : n + (size_t)pad;
    size_t sa = ar * lda, sb = br * ldb, sd = m * ldd;
    size_t na = sa * batch, nb = sb * batch, nd = sd * batch, b, i, j, kk, bad = 0;
    void *A = malloc(na * es), *B = malloc(nb * es), *C = malloc(nd * os), *R = malloc(nd * os), *bias = malloc(n * os);
    void *D = malloc(nd * os), *Dref = malloc(nd * os);
    void *bA, *bB, *bC, *bR, *bbias, *bD;
    void *dA, *dB, *dC, *dR, *dbias, *dD;
    double e_in, e_out, *rn = NULL, *cn = NULL;
    fill(A, dt, na); fill(B, dt, nb); fill(C, ot, nd); fill(R, ot, nd); fill(bias, ot, n);
    if (epi & 16) for (i = 0; i < nd; i++) ak_elem_set(C, ot, i, NAN); /* beta = 0 must not read it */
    dA = up(ctx, A, na * es, off * es, &bA); dB = up(ctx, B, nb * es, off * es, &bB); dC = up(ctx, C, nd * os, 0, &bC);
    dR = up(ctx, R, nd * os, off * os, &bR); dbias = up(ctx, bias, n * os, 0, &bbias);
    memset(D, 0xFF, nd * os);
    dD = up(ctx, D, nd * os, off * os, &bD);
    if (!dA || !dB || !dC || !dR || !dbias || !dD) goto done;
    g.dtype = dt; g.out_dtype = ot; g.m = m; g.n = n; g.k = k; g.trans_a = ta; g.trans_b = tb;
    g.lda = lda; g.ldb = ldb; g.ldd = ldd; g.batch = batch; g.stride_a = sa; g.stride_b = sb; g.stride_d = sd;
    g.alpha = (epi & 15) ? 0.5f : 1.0f;
    if (epi & 1) { g.beta = 0.25f; g.ldc = ldd; g.stride_c = sd; }
    if (epi & 16) { g.beta = 0.0f; g.ldc = ldd; g.stride_c = sd; }
    if (epi & 2) g.bias = dbias;
    if (epi & 4) { g.activation = g_act > 0 ? g_act : 1 + (int)(m + n + k) % (AK_UNARY_OP_COUNT - 1); g.act_param = 0.2f; }
    if (epi & 8) { g.residual = dR; g.ldr = ldd; g.stride_r = sd; }
    g.a = dA; g.b = dB; g.c = (epi & 17) ? dC : NULL; g.d = dD;
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    if (path[0]) {
        /* a matrix times a vector runs the gemv kernel whatever the tile asked for (16-bit m = 1 on NVIDIA: the
         * decode kernel) */
        const int gemv = (n == 1 && !ta) || (m == 1 && tb);
        AKT_CHECKF(!strcmp(p.path, path) || (gemv && (!strcmp(p.path, "gemv") || (m == 1 && !strcmp(p.path, "decode")))),
                   "plan path %s, expected %s (kernel %s)", p.path, path, p.kernel);
    }
    if (g_split && path[0]) AKT_CHECKF(p.k_splits > 1, "plan %s: k_splits %d, split-K expected", p.kernel, p.k_splits);
    if (g_turned) AKT_CHECKF(p.transposed, "plan %s %s: the transposed product expected (%zu x %zu x %zu)", p.path, p.kernel, m, n, k);
    if (g_kpre) AKT_CHECKF(!strncmp(p.kernel, g_kpre, strlen(g_kpre)), "plan kernel %s, expected %s*", p.kernel, g_kpre);
    AKT_OK(ak_gemm(ctx, &g, NULL));
    AKT_OK(ak_device_synchronize(ctx));
    AKT_OK(ak_memcpy(ctx, D, dD, nd * os, AK_D2H));
    /* reference on the cpu backend, same descriptor on host buffers */
    h = g; h.a = A; h.b = B; h.c = (epi & 17) ? C : NULL; h.bias = (epi & 2) ? bias : NULL; h.residual = (epi & 8) ? R : NULL; h.d = Dref;
    memset(Dref, 0xFF, nd * os);
    AKT_OK(ak_gemm(g_ref, &h, NULL));
    e_in = p.fast32 ? ldexp(1.0, -10) : 0.0;
    /* S = sum_k |a_ik b_kj| <= |a_i| |b_j| (row norms of op(A) and op(B)^T): the bound of the tolerance */
    rn = (double*)calloc(m * batch, sizeof(double)); cn = (double*)calloc(n * batch, sizeof(double));
    if (!rn || !cn) { akt_fail(__FILE__, __LINE__, "out of memory"); goto done; }
    for (b = 0; b < batch; b++)
        for (kk = 0; kk < k; kk++) {
            for (i = 0; i < m; i++) {
                double v = ak_elem_get(A, dt, b * sa + (ta ? kk * lda + i : i * lda + kk));
                rn[b * m + i] += v * v;
            }
            for (j = 0; j < n; j++) {
                double v = ak_elem_get(B, dt, b * sb + (tb ? j * ldb + kk : kk * ldb + j));
                cn[b * n + j] += v * v;
            }
        }
    e_out = ot == AK_F32 ? ldexp(1.0, -24) : ot == AK_F16 ? ldexp(1.0, -11) : ldexp(1.0, -8);
    for (b = 0; b < batch; b++)
        for (i = 0; i < m; i++)
            for (j = 0; j < ldd; j++) {
                size_t at = b * sd + i * ldd + j;
                double got = ak_elem_get(D, ot, at), ref, S = 0, tol;
                if (j >= n) { /* padding gap: still poison */
                    if (got == got && bad++ < 3) akt_fail(__FILE__, __LINE__, "D[%zu][%zu][%zu] (padding) was written", b, i, j);
                    continue;
                }
                ref = ak_elem_get(Dref, ot, at);
                S = sqrt(rn[b * m + i] * cn[b * n + j]);
                tol = 2 * ((double)k * ldexp(1.0, -24) + e_in) * S * fabs(g.alpha) + 2 * e_out * fabs(ref) + 1e-5;
                if (!(fabs(got - ref) <= tol) && bad++ < 3)
                    akt_fail(__FILE__, __LINE__, "%s %s %s->%s %zux%zux%zu ta%d tb%d epi%d batch%zu pad%d off%zu: D[%zu][%zu][%zu] = %.7g, ref %.7g (tol %.3g)",
                             p.path, p.kernel, ak_dtype_name(dt), ak_dtype_name(ot), m, n, k, ta, tb, epi, batch, pad, off, b, i, j, got, ref, tol);
            }
done:
    free(rn); free(cn);
    ak_free(ctx, bA); ak_free(ctx, bB); ak_free(ctx, bC); ak_free(ctx, bR); ak_free(ctx, bbias); ak_free(ctx, bD);
    free(A); free(B); free(C); free(R); free(bias); free(D); free(Dref);
}

static const ak_dtype T3[3] = { AK_F32, AK_F16, AK_BF16 };

/* default config: f16 / bf16 on the matrix cores; f32 exact */
static void matrix_core_paths(void) {
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    static const size_t shapes[][3] = { { 1, 1, 1 }, { 7, 7, 7 }, { 127, 129, 65 }, { 129, 127, 1 }, { 1, 1000, 129 },
                                        { 16, 4096, 1024 }, { 1000, 1000, 1000 }, { 300, 513, 4096 } };
    size_t s;
    int d, t;
    if (!ctx) return;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (d = 0; d < 3; d++) gg_case(ctx, "", T3[d], T3[d], shapes[s][0], shapes[s][1], shapes[s][2], 0, (int)(s % 2), 0, 1, 0, 0);
    for (t = 0; t < 4; t++)
        for (d = 0; d < 3; d++) gg_case(ctx, "", T3[d], t % 2 ? AK_F32 : T3[d], 127, 129, 65, t & 1, t >> 1, 0, 1, 0, 0);
    ak_context_destroy(ctx);
}

int _ak_gemm_force_swap(int v); /* amdkit.h with AMDKIT_TESTS (tests/test_main.c) */
/* The Hopper TMA kernel (asserted as the path on sm_90): all four layouts x
 * f16 / bf16 x odd sizes (m, n, k tails: 1, 7, 17, 127, 1000, 3001) with rows
 * rounded to 8 elements, every epilogue (beta C, bias, each activation,
 * residual, f32 or 16-bit out, beta 0 with NaN in C), batched strided and
 * grids of more tiles than SMs (the persistent loop) in each variant
 * (cooperative 128x256 / 128x128, ping-pong 128x128); packed odd rows are
 * copied into 16-byte rows first (small problems fall to mma.sync; plans
 * checked). TF32 (allow_tf32) on the same kernel, every layout (operands
 * copied to K-major first where needed), and the cp.async TF32 kernel forced. */
static void hopper_tma_path(void) {
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    ak_context* t32 = gg_ctx(AK_AUTO, -1, AK_AUTO, 1);
    const char *w = "", *mma = "";
    int d, t, e, f;
    if (!ctx || !t32) goto done;
    if (!strcmp(ak_context_device(ctx)->arch_base, "sm_90")) { w = "wgmma"; mma = "mma.sync"; }
    for (t = 0; t < 4; t++) {
        const int ta = t & 1, tb = t >> 1;
        for (d = 1; d < 3; d++) {
            const ak_dtype dt = T3[d], o2 = (t + d) % 2 ? AK_F32 : dt;
            gg_case(ctx, w, dt, o2, 127, 1000, 129, ta, tb, (t * 5 + d) % 16, 1, -1, 0);
            gg_case(ctx, w, dt, dt, 3001, 24, 1001, ta, tb, 0, 1, -1, 0);
            gg_case(ctx, w, dt, o2, 17, 3001, 7, ta, tb, 2 | 4, 1, -1, 0);
            gg_case(ctx, w, dt, dt, 65, 130, 72, ta, tb, 15, 3, -1, 0);            /* batched strided, every epilogue */
            gg_case(ctx, w, dt, dt, 64, 64, 64, ta, tb, 16, 1, -1, 0);            /* beta 0, NaN in C */
            /* n = 1: the gemv kernel, or (A stored k x m) the transposed decode; then the TMA kernel's one-column
             * edge with its variant forced (which keeps the plan from turning the product around) */
            gg_case(ctx, ta && w[0] ? "decode" : w, dt, dt, 1000, 1, 1000, ta, tb, 8, 1, -1, 0);
            if (w[0]) {
                const int was = _ak_gemm_force_swap(d);
                gg_case(ctx, w, dt, dt, 1000, 1, 1000, ta, tb, 8, 1, -1, 0);
                _ak_gemm_force_swap(was);
            }
            gg_case(ctx, w, dt, dt, 127, 129, 65, ta, tb, 3, 1, 0, 0);            /* packed odd rows: copied to 16-byte rows */
            gg_case(ctx, w, dt, o2, 65, 130, 77, ta, tb, 2 | 4, 3, 0, 1);         /* the same, batched, 2-byte offsets */
            gg_case(ctx, mma, dt, dt, 31, 33, 65, ta, tb, 3, 1, 0, 0);            /* small: mma.sync */
        }
        gg_case(ctx, w, AK_BF16, AK_BF16, 512, 768, 640, ta, tb, 1 | 2, 1, -1, 0);
        gg_case(ctx, w, AK_F16, AK_F16, 256, 256, 64, ta, tb, 0, 80, -1, 0);     /* 320 tiles: persistent ping-pong */
        gg_case(ctx, w, AK_BF16, AK_F32, 2304, 2048, 1000, ta, tb, 2 | 8, 1, -1, 0); /* ping-pong, 16 k steps > 6 stages */
        gg_case(ctx, w, AK_F16, AK_F16, 1100, 4000, 1500, ta, tb, 1, 1, -1, 0);    /* 128x256 tiles, 2 per SM */
        if (t == 0) { /* rows not in whole 32-byte sectors (3000 and 1000 values): both copied into 128-byte rows first */
            gg_case(ctx, w, AK_BF16, AK_BF16, 3000, 3000, 1000, ta, tb, 0, 1, 0, 0);
            if (w[0]) {
                ak_gemm_desc q = ak_gemm_desc_default();
                ak_gemm_plan pq;
                q.dtype = AK_BF16; q.out_dtype = AK_BF16; q.m = 3000; q.n = 3000; q.k = 1000;
                q.a = (const void*)((uintptr_t)1 << 40); q.b = (const void*)((uintptr_t)2 << 40); q.d = (void*)((uintptr_t)3 << 40);
                AKT_OK(ak_gemm_plan_get(ctx, &q, &pq));
                AKT_CONTAINS(pq.reason, "copying A and B");
            }
        }
        /* split-K (few tiles, long k): slices past K read TMA's zeros; every epilogue in the second pass */
        g_split = 1;
        gg_case(ctx, w, ta ? AK_BF16 : AK_F16, tb ? AK_F32 : (ta ? AK_BF16 : AK_F16), 200, 130, 8000, ta, tb, 15, 1, -1, 0);
        gg_case(ctx, w, tb ? AK_BF16 : AK_F16, ta ? AK_F32 : (tb ? AK_BF16 : AK_F16), 129, 65, 3001, ta, tb, 2 | 4 | 16, 1, -1, 0);
        gg_case(ctx, w, AK_F16, AK_F16, 128, 64, 16384, ta, tb, 0, 1, -1, 0); /* 16 slices of 1024, no tail */
        /* an output of a block of 4-column threads an SM and more, n % 4 == 0: the finish's 4-column form
           (amdkit.h _ak_gemm_fin_w4), every epilogue */
        if (ta == tb) gg_case(ctx, w, AK_BF16, ta ? AK_F32 : AK_BF16, 389, 520, 6001, ta, tb, 15, 1, -1, 0);
        g_split = 0;
    }
    /* the cooperative 128 x 64 tile (forced 7, and 8 in clusters): every layout and type, the fp32-staged epilogue (C, bias, activation,
       residual, f32 out) and the 16-bit one (with and without bias) on 64-wide tiles with an N edge, batched, and more
       tiles than SMs (the persistent loop) */
    for (f = 7; f <= 8 && w[0]; f++) { /* 8: the same in 2-CTA clusters sharing A (n = 40: the pair's second tile empty) */
        const int was = _ak_gemm_force_swap(f);
        g_kpre = f == 7 ? "ak_gemm_sm90_n64_" : "ak_gemm_sm90_c64_";
        if (f == 8) gg_case(ctx, w, AK_BF16, AK_BF16, 1000, 40, 700, 0, 1, 2, 1, -1, 0);
        for (t = 0; t < 4; t++) {
            const int ta = t & 1, tb = t >> 1;
            for (d = 1; d < 3; d++) {
                const ak_dtype dt = T3[d], o2 = (t + d) % 2 ? AK_F32 : dt;
                gg_case(ctx, w, dt, o2, 127, 1000, 129, ta, tb, (t * 5 + d) % 16, 1, -1, 0);
                gg_case(ctx, w, dt, dt, 1000, 520, 1500, ta, tb, 0, 1, -1, 0);
                gg_case(ctx, w, dt, dt, 300, 200, 333, ta, tb, 2, 1, -1, 0);
                gg_case(ctx, w, dt, dt, 65, 130, 72, ta, tb, 15, 3, -1, 0);
            }
            gg_case(ctx, w, AK_F16, AK_F16, 256, 256, 64, ta, tb, 0, 80, -1, 0); /* 640 tiles */
        }
        g_kpre = NULL;
        _ak_gemm_force_swap(was);
    }
    for (e = 0; e < 7; e++) { /* every activation */
        g_act = e + 1;
        gg_case(ctx, w, e % 2 ? AK_BF16 : AK_F16, e % 3 ? AK_F32 : (e % 2 ? AK_BF16 : AK_F16), 200, 520, 96, e & 1, (e >> 1) & 1,
                2 | 4 | 8, 1, -1, 0);
    }
    g_act = 0;
    /* TF32 opt-in: the cp.async wgmma kernel for A @ B^T */
    gg_case(t32, w, AK_F32, AK_F32, 1000, 1000, 1000, 0, 1, 0, 1, 0, 0);
    gg_case(t32, w, AK_F32, AK_F32, 257, 260, 1001, 0, 1, 3, 1, 7, 0);
    gg_case(t32, "", AK_F32, AK_F32, 127, 129, 65, 1, 0, 0, 1, 0, 0);
    /* the other layouts (and rows it cannot read) from 2^30 multiply-adds: A / B copied into m x k / n x k rows first
     * (packed k-major operands transposed, the rest through the strided copy with k rounded up to 4), batched */
    for (t = 0; t < 4; t++) {
        const int ta = t & 1, tb = t >> 1;
        if (!ta && tb) continue;
        gg_case(t32, w, AK_F32, AK_F32, 1100, 1000, 1000, ta, tb, 0, 1, 0, 0);
        gg_case(t32, w, AK_F32, AK_F32, 520, 700, 3001, ta, tb, 3, 1, 0, 0);
        gg_case(t32, w, AK_F32, AK_F32, 300, 264, 1001, ta, tb, 2 | 4, 16, -1, 0);
    }
    gg_case(t32, w, AK_F32, AK_F32, 1100, 1001, 1001, 0, 1, 8, 1, 0, 1); /* A @ B^T, 4-byte offsets: both copied */
    if (w[0]) { /* the cp.async wgmma kernel (what runs when the driver refuses a tensor map), forced: as it is and after copies */
        const int was = _ak_gemm_force_swap(3);
        g_kpre = "ak_gemm_wgmma_";
        gg_case(t32, w, AK_F32, AK_F32, 1000, 1000, 1000, 0, 1, 0, 1, 0, 0);
        gg_case(t32, w, AK_F32, AK_F32, 1100, 1000, 1000, 1, 0, 3, 1, 0, 0);
        g_kpre = NULL;
        _ak_gemm_force_swap(was);
    }
done:
    ak_context_destroy(ctx);
    ak_context_destroy(t32);
}

/* The portable 128 x 128 matrix-core tiles where the planner would take the
 * Hopper kernel (forced, as bench_gemm_sweep --force 3 / 4; on other NVIDIA parts
 * it is the planner's choice for these grids): every layout x f16 / bf16,
 * m / n / k tails with 16-byte rows (the cp.async ring's tails) and with
 * packed odd rows or 2-byte offsets (plain loads), every epilogue, batched. */
static void portable_tile_path(void) {
#if !defined(AKT_GPU_ON_CPU) /* too large for the emulator */
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    int d, t, was, f;
    if (!ctx) return;
    was = _ak_gemm_force_swap(3);
    for (f = 3; f < 5; f++) { /* 3: 4 warps of 64x64 (mma_w; mma_l for packed odd rows), 4: 8 warps of 64x32 (mma_l) */
    _ak_gemm_force_swap(f);
    if (!strncmp(ak_context_device(ctx)->arch_base, "sm_", 3)) g_kpre = f == 3 ? "ak_gemm_mma_" : "ak_gemm_mma_l_";
    for (t = 0; t < 4; t++) {
        const int ta = t & 1, tb = t >> 1;
        for (d = 1; d < 3; d++) {
            const ak_dtype dt = T3[d], o2 = (t + d) % 2 ? AK_F32 : dt;
            gg_case(ctx, "", dt, dt, 1500, 1544, 1000, ta, tb, 0, 1, -1, 0);
            gg_case(ctx, "", dt, o2, 1537, 1543, 777, ta, tb, (t * 5 + d) % 16, 1, 0, 0);
            gg_case(ctx, "", dt, dt, 200, 1000, 72, ta, tb, 15, 12, -1, 0);
            gg_case(ctx, "", dt, o2, 1700, 1408, 96, ta, tb, 2 | 4, 1, -1, 1);
        }
    }
    }
    g_kpre = NULL;
    _ak_gemm_force_swap(was);
    ak_context_destroy(ctx);
#endif
}

static void epilogues_batches_unaligned(void) {
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    int e, d;
    if (!ctx) return;
    for (e = 1; e < 16; e++) gg_case(ctx, "", T3[e % 3], e & 1 ? AK_F32 : T3[e % 3], 129, 1000, 127, e & 1, (e >> 1) & 1, e, 1, 0, 0);
    for (d = 0; d < 3; d++) {
        gg_case(ctx, "", T3[d], T3[d], 65, 33, 47, 0, 1, 15, 3, 0, 0);          /* batched strided */
        gg_case(ctx, "", T3[d], T3[d], 200, 136, 72, d & 1, 0, 0, 2, 1, 1);     /* odd ld, 1-element offsets: scalar loads */
        gg_case(ctx, "", T3[d], T3[d], 64, 64, 64, 1, 1, 16, 1, 0, 0);          /* beta = 0, NaN in C */
    }
    ak_context_destroy(ctx);
}

/* config fields change what runs: matrix_cores off -> SIMT; f32 exact (SIMT on NVIDIA) even with a reduced
 * precision and mixed precision on; allow_tf32 -> TF32 on the matrix cores */
static void config_selects_path(void) {
    ak_context *off = gg_ctx(AK_OFF, -1, AK_AUTO, 0), *exact = gg_ctx(AK_AUTO, AK_BF16, AK_ON, 0), *on = gg_ctx(AK_ON, AK_BF16, AK_ON, 1);
    const ak_device_info* di;
    int t;
    if (!off || !exact || !on) goto done;
    di = ak_context_device(on);
    for (t = 0; t < 4; t++) {
        gg_case(off, "simt", AK_F16, AK_F16, 127, 129, 65, t & 1, t >> 1, 0, 1, 0, 0);
        gg_case(off, "simt", AK_BF16, AK_F32, 129, 65, 127, t & 1, t >> 1, 3, 1, 0, 0);
        gg_case(exact, di->backend == AK_BACKEND_CUDA ? "simt" : "", AK_F32, AK_F32, 127, 129, 65, t & 1, t >> 1, 0, 1, 0, 0);
        gg_case(on, di->backend == AK_BACKEND_CUDA ? "mma.sync" : "", AK_F32, AK_F32, 127, 129, 65, t & 1, t >> 1, 0, 1, 0, 0);
    }
    gg_case(exact, "", AK_F32, AK_F32, 1000, 1000, 1000, 0, 0, 0, 1, 0, 0);
    /* the SIMT tile's register epilogue (no C / bias / residual / activation): 4-element stores where ldd allows, edges
     * in m and n, batches; split-K (few tiles, long k: slices summed by the finish pass) on every layout, with and
     * without the epilogue, and a shorter last slice; 16-bit inputs on it with matrix cores off */
    for (t = 0; t < 4; t++) {
        gg_case(exact, di->backend == AK_BACKEND_CUDA ? "simt" : "", AK_F32, AK_F32, 127, 132, 65, t & 1, t >> 1, 0, 1, 0, 0);
        gg_case(off, "simt", AK_F32, AK_F32, 65, 36, 47, t & 1, t >> 1, 0, 3, 0, 0);
        gg_case(off, "simt", AK_F32, AK_F32, 130, 70, 20011, t & 1, t >> 1, t == 2 ? 15 : 0, 1, 0, 0);
    }
    gg_case(off, "simt", AK_F16, AK_F32, 100, 200, 9001, 0, 1, 3, 1, 0, 0);
    gg_case(off, "simt", AK_BF16, AK_BF16, 64, 64, 4099, 1, 0, 0, 1, 1, 1);
done:
    ak_context_destroy(off); ak_context_destroy(exact); ak_context_destroy(on);
}

/* exact f32 on NVIDIA: the FFMA kernel (kernels/gemm_ffma.hip), one per layout: whole tiles stored from
 * registers, edge tiles in m / n / k (odd sizes, k = 1, 7) and every epilogue through shared memory, batched
 * strides, odd leading dimensions and 1-element offsets (element loads), 16-byte rows, and split-K (few tiles, a
 * long k: the slices summed by the finish pass, with and without the epilogue, a shorter last slice). */
static void ffma_path(void) {
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    int t, f, was;
    if (!ctx) return;
    if (ak_context_device(ctx)->backend != AK_BACKEND_CUDA) { ak_context_destroy(ctx); return; }
    was = _ak_gemm_force_swap(5);
    for (f = 5; f < 7; f++) { /* 5: the 128 x 128 tile, 6: the 256 x 128 one, both forced on every case */
    _ak_gemm_force_swap(f);
    g_kpre = f == 5 ? "ak_gemm_ffma_" : "ak_gemm_ffmaw_";
    for (t = 0; t < 4; t++) {
        const int ta = t & 1, tb = t >> 1;
        gg_case(ctx, "simt", AK_F32, AK_F32, 256, 384, 264, ta, tb, 0, 1, 0, 0);          /* whole tiles, register stores */
        gg_case(ctx, "simt", AK_F32, AK_F32, 127, 129, 65, ta, tb, 0, 1, 0, 0);           /* edges in m, n, k */
        gg_case(ctx, "simt", AK_F32, AK_F32, 129, 131, 1, ta, tb, 0, 1, 0, 0);            /* k = 1 */
        gg_case(ctx, "simt", AK_F32, AK_F32, 300, 260, 7, ta, tb, 16, 1, 0, 0);           /* k = 7, beta 0 with NaN in C */
        gg_case(ctx, "simt", AK_F32, AK_F32, 257, 250, 1001, ta, tb, (t * 5 + 3) % 16, 1, 0, 0); /* an epilogue */
        gg_case(ctx, "simt", AK_F32, AK_F32, 65, 130, 72, ta, tb, 15, 3, 0, 0);           /* batched, every epilogue */
        gg_case(ctx, "simt", AK_F32, AK_F32, 200, 136, 72, ta, tb, 0, 2, 1, 1);           /* odd ld, offsets: element loads */
        gg_case(ctx, "simt", AK_F32, AK_F32, 384, 256, 128, ta, tb, 2 | 4, 1, -1, 0);      /* 16-byte rows, bias + activation */
        gg_case(ctx, "simt", AK_F32, AK_F32, 130, 70, 20011, ta, tb, t == 1 ? 15 : 0, 1, 0, 0); /* split-K, last slice shorter */
        gg_case(ctx, "simt", AK_F32, AK_F32, 256, 256, 40000, ta, tb, t == 2 ? 1 | 8 : 0, 1, -1, 0); /* split-K, 16-byte rows */
        gg_case(ctx, "simt", AK_F32, AK_F32, 520, 384, 136, ta, tb, 0, 2, 0, 0);          /* whole 256-row tiles and a short one */
    }
    }
    _ak_gemm_force_swap(was);
    /* the planner's own choice at a size that takes the 256-row tile (the plain store from k 1024) */
    g_kpre = "ak_gemm_ffmaw_";
    gg_case(ctx, "simt", AK_F32, AK_F32, 2100, 2000, 1024, 1, 0, 0, 1, 0, 0);
    g_kpre = NULL;
    ak_context_destroy(ctx);
}

/* decode shapes (m <= 16): f16 / bf16 on NVIDIA run the mma.sync decode
 * kernel for both B layouts and both A layouts (split-K with the finish
 * kernel, and one split with the epilogue in place; batches; a single row of
 * A stored K x 1; rows, bases and batch strides that are not 16-byte
 * aligned); exact f32 the FMA (skinny) kernel. */
static void decode_path(void) {
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    const char* dp = "";
    int d, tb;
    if (!ctx) return;
    if (!strncmp(ak_context_device(ctx)->arch_base, "sm_", 3)) dp = "decode";
    for (d = 1; d < 3; d++)
        for (tb = 0; tb < 2; tb++) {
            gg_case(ctx, dp, T3[d], T3[d], 1, 4096, 1024, 0, tb, 0, 1, 0, 0);
            gg_case(ctx, dp, T3[d], AK_F32, 16, 1000, 1001, d & 1, tb, 15, 1, -1, 0);
            gg_case(ctx, dp, T3[d], T3[d], 7, 33, 5000, 0, tb, 6, 3, -1, 0);
            gg_case(ctx, dp, T3[d], T3[d], 3, 64, 64, 1, tb, 16, 1, -1, 0);
            gg_case(ctx, dp, T3[d], T3[d], 1, 520, 704, 1, tb, 2 | 4 | 8, 1, 0, 0); /* A stored K x 1, lda 1 */
            gg_case(ctx, dp, T3[d], T3[d], 16, 8, 16384, d & 1, tb, 1, 2, -1, 0);  /* n < one block, many splits */
            /* no 16-byte rows: plain loads (words; an element, 3 words, an element at odd elements) */
            gg_case(ctx, dp, T3[d], T3[d], 2, 300, 700, 0, tb, 0, 1, 0, 0);
            gg_case(ctx, dp, T3[d], T3[d], 1, 1001, 333, 0, tb, 2 | 4, 1, 0, 1);     /* odd rows of B, bases 1 element in */
            gg_case(ctx, dp, T3[d], AK_F32, 5, 777, 3001, d & 1, tb, 15, 3, 1, 1);  /* odd lda / ldb / strides, batches */
            gg_case(ctx, dp, T3[d], T3[d], 16, 130, 20001, 1, tb, 1, 1, 2, 0);     /* A K x M of 18-element rows, splits */
        }
    gg_case(ctx, "skinny", AK_F32, AK_F32, 4, 1000, 1001, 0, 1, 0, 1, -1, 0);
    gg_case(ctx, "skinny", AK_F32, AK_F32, 16, 130, 77, 0, 1, 15, 1, 3, 0);
    ak_context_destroy(ctx);
}

/* matrix-vector shapes (n = 1 with A k-contiguous, m = 1 with B stored N x K):
 * the gemv kernel for every dtype, both vector layouts (a contiguous row or a
 * strided column), odd k (the element-wise tail), every epilogue, batches,
 * rows that are not 16-byte aligned (scalar loads); f16 / bf16 with m = 1 run
 * the decode kernel on NVIDIA instead. Exact f32 with m <= 16 and B stored
 * K x N runs it too (its n-contiguous branch). */
static void gemv_path(void) {
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    int d, nv;
    if (!ctx) return;
    nv = !strncmp(ak_context_device(ctx)->arch_base, "sm_", 3);
    for (d = 0; d < 3; d++) {
        const char* row1 = nv && d > 0 ? "decode" : "gemv";
        gg_case(ctx, "gemv", T3[d], T3[d], 1000, 1, 4099, 0, 0, 0, 1, 0, 0);    /* A x, x a column of B (stride ldb) */
        gg_case(ctx, "gemv", T3[d], AK_F32, 333, 1, 1000, 0, 1, 15, 2, 0, 0);   /* B stored 1 x K, every epilogue, 2 problems */
        gg_case(ctx, "gemv", T3[d], T3[d], 77, 1, 7, 0, 0, 7, 1, 1, 1);         /* odd lda, 1-element offsets: scalar loads */
        gg_case(ctx, "gemv", T3[d], T3[d], 64, 1, 300001, 0, 1, 2, 1, 0, 0);    /* a long k loop */
        gg_case(ctx, row1, T3[d], T3[d], 1, 3001, 2049, 0, 1, 6, 1, 0, 0);      /* x W^T */
        gg_case(ctx, row1, T3[d], T3[d], 1, 300, 1000, 1, 1, 8, 3, 0, 0);       /* A stored K x 1 (lda 1), batches */
        /* few outputs, long k: split-K (slices as a batch, a shorter last slice, the epilogue in the second pass) */
        g_split = 1;
        gg_case(ctx, "gemv", T3[d], d == 1 ? AK_F32 : T3[d], 256, 1, 65536 + 40, 0, 1, 15, 1, 0, 0);
        gg_case(ctx, "gemv", T3[d], T3[d], 100, 1, 40000, 0, 0, 2 | 4, 1, 8, 0); /* the vector a column of B, padded rows */
        g_split = 0;
    }
    g_split = 1;
    gg_case(ctx, "gemv", AK_F32, AK_F32, 1, 200, 50000, 0, 1, 1 | 8, 1, 0, 0); /* x W^T, 200 outputs */
    g_split = 0;
    /* exact f32, m <= 16 rows times B stored K x N (ak_gemm_gemvn): 16-byte rows, a column tail, scalar loads */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 1, 512, 512, 0, 0, 0, 1, 0, 0);        /* x @ W of a decode step */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 16, 1001, 1003, 1, 0, 15, 2, -1, 0);   /* A stored K x M, every epilogue, batches */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 5, 37, 20000, 0, 0, 2 | 4, 1, 1, 1);   /* odd ldb, offsets: scalar loads; long k */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 3, 4099, 7, 0, 0, 8, 3, 0, 0);         /* short k, 4099 columns */
    g_split = 1; /* split-K: slices of k as rows of blocks, a batch's slices summed in the finishing pass */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 8, 300, 4000, 0, 0, 15, 3, -1, 0);     /* every epilogue, 3 batches */
    gg_case(ctx, "gemv", AK_F32, AK_F32, 1, 1000, 30000, 1, 0, 2 | 4, 1, 1, 1); /* one row, scalar loads */
    g_split = 0;
    /* at most 4 rows in 512-thread blocks (ak_gemm_gemvn4): A's rows in 16-byte loads (stored M x K; K x M with 4
     * rows), a column tail, a ragged k; one row at an odd offset (element loads) */
    g_kpre = "ak_gemm_gemvn4_f32";
    gg_case(ctx, "gemv", AK_F32, AK_F32, 2, 1001, 1037, 0, 0, 15, 2, -1, 0);
    gg_case(ctx, "gemv", AK_F32, AK_F32, 4, 300, 2000, 1, 0, 2 | 4, 1, -1, 0);
    gg_case(ctx, "gemv", AK_F32, AK_F32, 1, 777, 3001, 0, 0, 8 | 16, 3, 0, 1);
    /* the same at 256 threads, 2 blocks an SM (ak_gemm_gemvn4h, NVIDIA: many column blocks, or few with a long k
     * split): a column tail, every epilogue; one row at an odd offset (element loads), batches; A stored K x M with
     * 4 rows; split-K */
    if (!strncmp(ak_context_device(ctx)->arch_base, "sm_", 3)) {
        g_kpre = "ak_gemm_gemvn4h_f32";
        gg_case(ctx, "gemv", AK_F32, AK_F32, 1, 20000, 3001, 0, 0, 15, 1, -1, 0);
        gg_case(ctx, "gemv", AK_F32, AK_F32, 1, 9001, 2000, 0, 0, 2 | 4, 2, 1, 1);
        gg_case(ctx, "gemv", AK_F32, AK_F32, 4, 5000, 600, 1, 0, 8, 1, -1, 0);
        g_split = 1;
        gg_case(ctx, "gemv", AK_F32, AK_F32, 3, 1000, 9001, 0, 0, 15, 1, -1, 0);
        g_split = 0;
    }
    g_kpre = NULL;
    ak_context_destroy(ctx);
}

/* n <= 16 < m: the transposed product C^T = B^T A^T, D, C and the residual
 * addressed transposed and the bias per row of the product run. 16-bit on
 * NVIDIA: the decode kernel, every layout (one split and several: its finish
 * pass); A stored m x k elsewhere: the skinny kernel (16-byte rows of A);
 * exact f32 with A stored k x m: the gemvn kernel. Every epilogue, batches,
 * beta = 0 with NaN in C; rows that are not 16-byte: whatever runs, right. */
static const char* turned_expect(int nv, ak_dtype dt, int ta) {
    if (dt != AK_F32 && nv) return "decode";
    if (!ta) return "skinny";
    return dt == AK_F32 ? "gemv" : NULL;
}
void gg_turned_cases(ak_context* ctx, int nv, int quick);
void gg_turned_cases(ak_context* ctx, int nv, int quick) {
    int d, t;
    for (d = 0; d < 3; d++)
        for (t = 0; t < 4; t++) {
            const int ta = t & 1, tb = t >> 1;
            const char* e = turned_expect(nv, T3[d], ta);
            g_turned = e != NULL;
            gg_case(ctx, e ? e : "", T3[d], T3[d], 300, 7, 1000, ta, tb, 15, 2, -1, 0);
            gg_case(ctx, e ? e : "", T3[d], AK_F32, 77, 3, 600, ta, tb, 16, 1, -1, 0);
            if (!quick) {
                gg_case(ctx, e ? e : "", T3[d], T3[d], 1000, 16, 3001, ta, tb, 2 | 4, 1, -1, 0);
                if (ta) gg_case(ctx, e ? e : "", T3[d], T3[d], 4099, 1, 2048, ta, tb, 8, 1, -1, 0);
                if (e && !strcmp(e, "decode")) gg_case(ctx, e, T3[d], T3[d], 64, 8, 16384, ta, tb, 1 | 2 | 4, 2, -1, 0); /* splits */
            }
            g_turned = 0;
            if (!quick) gg_case(ctx, "", T3[d], T3[d], 50, 5, 77, ta, tb, 1 | 2, 1, 1, 1); /* odd rows, offsets */
        }
}
static void turned_path(void) {
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    if (!ctx) return;
    gg_turned_cases(ctx, !strncmp(ak_context_device(ctx)->arch_base, "sm_", 3), 0);
    ak_context_destroy(ctx);
}

/* fp8 (scaled GEMM): A (batch x m x k) and B (batch x n x k) drawn in f32,
 * quantised on the device with ak_quantize (scales computed: per tensor, or
 * per row = per row of A / per column of D), ak_gemm with those scales
 * against the cpu reference on the same codes and scales (copied back).
 * Bound per element, from the accumulator's arithmetic: a product of two fp8
 * codes is exact (at most 8 significant bits), and Hopper's fp8 wgmma keeps
 * about 14 bits (DeepSeek-V3 report, section 3.3.2; truncated) of its sums:
 * per k32 step j (running sum P_j, exact) the sum is cut to 2^-13 |P_j|,
 * and the step's 32 products are aligned to the largest of them before they
 * are added, which costs at most 2^-13 of the largest one each. With a
 * large product among small ones that is several times 2^-13 of the step's
 * sum |a b|: the cases below draw A with a 30x outlier every 7th value, and
 * the worst element measured on an H200 (k 400, both modes) needed
 * 1.2 x 2^-13 (S + T); the bound takes 4 S for the products (3x margin):
 *   |gpu - ref| <= 2^-13 (T + 4 S) + (k / 128 + 2) 2^-24 S + 2 e_out |ref| + 1e-5,
 * T = sum_j |P_j| over the k32 steps of one accumulation, everything times
 * |alpha sa sb|, S = sum_k |a_ik b_jk| computed exactly (a wrong answer is
 * off by about S / sqrt(k)).
 * fast_accum 1: one accumulation over all of k, so T sums the k / 32 prefix
 * sums of the whole row and grows with k (the error the mode trades for
 * speed: measured 2^-9.9 S at k = 4096). Precise (fast_accum 0): one
 * accumulation per k step of 128 values (P_j restarting at 0 in each), each
 * added into f32 (2^-24, k / 128 times): T <= 4 S whatever k, so the bound
 * stays near 2^-10.7 S (measured 2^-14.3 S at k = 4096, 2^-15.3 S at k =
 * 14336), which the fast mode's k = 4096 error exceeds. AKT_FP8_STATS=1
 * prints the largest error / (S + T) and error / S of each case. */
static int g_fp8_stats = -1;
static void gg8_case(ak_context* ctx, const char* path, ak_dtype ta8, ak_dtype tb8, ak_dtype ot, size_t m, size_t n, size_t k,
                     int rowwise, int epi, size_t batch, int fast) {
    ak_gemm_desc g = ak_gemm_desc_default(), h;
    ak_gemm_plan p;
    ak_quant_args q;
    const size_t os = ak_dtype_size(ot), na = batch * m * k, nb = batch * n * k, nd = batch * m * n;
    const size_t nsa = rowwise ? batch * m : 1, nsb = rowwise ? batch * n : 1;
    float *xa = (float*)malloc(na * 4), *xb = (float*)malloc(nb * 4), *sa = (float*)malloc(nsa * 4), *sb = (float*)malloc(nsb * 4);
    uint8_t *qa = (uint8_t*)malloc(na), *qb = (uint8_t*)malloc(nb);
    void *C = malloc(nd * os), *R = malloc(nd * os), *bias = malloc(n * os), *D = malloc(nd * os), *Dref = malloc(nd * os);
    void *dxa = NULL, *dxb = NULL, *dqa = NULL, *dqb = NULL, *dsa = NULL, *dsb = NULL, *dC = NULL, *dR = NULL, *dbias = NULL, *dD = NULL;
    void *b0, *b1, *b2, *b3, *b4;
    size_t i, j, kk, b, bad = 0;
    double worst = 0, worst_s = 0;
    double *fa = (double*)malloc(na * sizeof(double)), *fb = (double*)malloc(nb * sizeof(double));
    double e_out = ot == AK_F32 ? ldexp(1.0, -24) : ot == AK_F16 ? ldexp(1.0, -11) : ldexp(1.0, -8);
    for (i = 0; i < na; i++) xa[i] = (float)(akt_uniform(&g_st, -1, 1) * (i % 7 == 3 ? 30.0 : 1.0));
    for (i = 0; i < nb; i++) xb[i] = (float)akt_uniform(&g_st, -2, 2);
    fill(C, ot, nd); fill(R, ot, nd); fill(bias, ot, n);
    dxa = up(ctx, xa, na * 4, 0, &b0); dxb = up(ctx, xb, nb * 4, 0, &b1);
    dC = up(ctx, C, nd * os, 0, &b2); dR = up(ctx, R, nd * os, 0, &b3); dbias = up(ctx, bias, n * os, 0, &b4);
    memset(D, 0xFF, nd * os);
    dD = up(ctx, D, nd * os, 0, &dD);
    if (!dxa || !dxb || !dC || !dR || !dbias || !dD || ak_malloc(ctx, na, NULL, &dqa) != AK_OK || ak_malloc(ctx, nb, NULL, &dqb) != AK_OK ||
        ak_malloc(ctx, nsa * 4, NULL, &dsa) != AK_OK || ak_malloc(ctx, nsb * 4, NULL, &dsb) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "setup: %s", ak_last_error());
        goto done;
    }
    memset(&q, 0, sizeof q);
    q.x_dtype = AK_F32; q.x = dxa; q.q_dtype = ta8; q.q = dqa; q.rows = batch * m; q.cols = k;
    q.mode = rowwise ? AK_QUANT_ROW : AK_QUANT_TENSOR; q.scale = (float*)dsa; q.compute_scale = 1;
    AKT_OK(ak_quantize(ctx, &q, NULL));
    q.x = dxb; q.q_dtype = tb8; q.q = dqb; q.rows = batch * n; q.scale = (float*)dsb;
    AKT_OK(ak_quantize(ctx, &q, NULL));
    g.dtype = ta8; g.dtype_b = tb8; g.out_dtype = ot; g.m = m; g.n = n; g.k = k; g.trans_b = 1;
    g.a = dqa; g.b = dqb; g.d = dD; g.batch = batch; g.stride_a = m * k; g.stride_b = n * k; g.stride_d = m * n;
    g.scale_a = (const float*)dsa; g.scale_b = (const float*)dsb; g.scale_a_per_row = rowwise; g.scale_b_per_col = rowwise;
    g.fast_accum = fast;
    g.alpha = (epi & 15) ? 0.5f : 1.0f;
    if (epi & 1) { g.beta = 0.25f; g.c = dC; g.stride_c = m * n; }
    if (epi & 2) g.bias = dbias;
    if (epi & 4) { g.activation = 1 + (int)(m + n + k) % (AK_UNARY_OP_COUNT - 1); g.act_param = 0.2f; }
    if (epi & 8) { g.residual = dR; g.stride_r = m * n; }
    AKT_OK(ak_gemm_plan_get(ctx, &g, &p));
    AKT_CHECKF(!path[0] || (p.path && !strcmp(p.path, path)), "fp8 plan path %s, expected %s (kernel %s)", p.path ? p.path : "(none)", path,
               p.kernel);
    AKT_OK(ak_gemm(ctx, &g, NULL));
    AKT_OK(ak_device_synchronize(ctx));
    AKT_OK(ak_memcpy(ctx, D, dD, nd * os, AK_D2H));
    AKT_OK(ak_memcpy(ctx, qa, dqa, na, AK_D2H)); AKT_OK(ak_memcpy(ctx, qb, dqb, nb, AK_D2H));
    AKT_OK(ak_memcpy(ctx, sa, dsa, nsa * 4, AK_D2H)); AKT_OK(ak_memcpy(ctx, sb, dsb, nsb * 4, AK_D2H));
    h = g; h.a = qa; h.b = qb; h.scale_a = sa; h.scale_b = sb; h.c = (epi & 1) ? C : NULL; h.bias = (epi & 2) ? bias : NULL;
    h.residual = (epi & 8) ? R : NULL; h.d = Dref;
    memset(Dref, 0xFF, nd * os);
    AKT_OK(ak_gemm(g_ref, &h, NULL));
    if (!fa || !fb) { akt_fail(__FILE__, __LINE__, "out of memory"); goto done; }
    for (i = 0; i < na; i++) fa[i] = ak_elem_get(qa, ta8, i);
    for (i = 0; i < nb; i++) fb[i] = ak_elem_get(qb, tb8, i);
    if (g_fp8_stats < 0) g_fp8_stats = getenv("AKT_FP8_STATS") && atoi(getenv("AKT_FP8_STATS")) > 0;
    for (b = 0; b < batch; b++)
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                const size_t at = b * m * n + i * n + j;
                const double *ra = fa + b * m * k + i * k, *rb = fb + b * n * k + j * k;
                double S = 0, T = 0, P = 0, sc, got = ak_elem_get(D, ot, at), ref = ak_elem_get(Dref, ot, at), tol, err;
                for (kk = 0; kk < k; kk++) {
                    const double pr = ra[kk] * rb[kk];
                    if (!fast && kk % 128 == 0) P = 0; /* precise: a fresh wgmma accumulation per k step */
                    S += fabs(pr);
                    P += pr;
                    if (kk % 32 == 31 || kk == k - 1) T += fabs(P);
                }
                sc = fabs(g.alpha * sa[rowwise ? i : 0] * sb[rowwise ? j : 0]);
                S *= sc; T *= sc;
                err = fabs(got - ref);
                tol = ldexp(1.0, -13) * (T + 4 * S) + (double)(k / 128 + 2) * ldexp(1.0, -24) * S + 2 * e_out * fabs(ref) + 1e-5;
                if (S > 0 && err / (S + T) > worst) worst = err / (S + T);
                if (S > 0 && err / S > worst_s) worst_s = err / S;
                if (!(err <= tol) && bad++ < 3)
                    akt_fail(__FILE__, __LINE__, "%s %s fast_accum %d %s x %s -> %s %zux%zux%zu rowwise %d epi %d batch %zu: D[%zu][%zu][%zu] = %.7g, ref %.7g (tol %.3g)",
                             p.path, p.kernel, fast, ak_dtype_name(ta8), ak_dtype_name(tb8), ak_dtype_name(ot), m, n, k, rowwise, epi, batch, b, i,
                             j, got, ref, tol);
            }
    if (g_fp8_stats)
        printf("fp8 stats: %s fast_accum %d %zux%zux%zu %s: max err/(S+T) = 2^%.2f, max err/S = 2^%.2f\n", p.kernel, fast, m, n, k,
               ak_dtype_name(ot), worst > 0 ? log2(worst) : -99.0, worst_s > 0 ? log2(worst_s) : -99.0);
done:
    ak_free(ctx, b0); ak_free(ctx, b1); ak_free(ctx, b2); ak_free(ctx, b3); ak_free(ctx, b4); ak_free(ctx, dD);
    ak_free(ctx, dqa); ak_free(ctx, dqb); ak_free(ctx, dsa); ak_free(ctx, dsb);
    free(fa); free(fb);
    free(xa); free(xb); free(sa); free(sb); free(qa); free(qb); free(C); free(R); free(bias); free(D); free(Dref);
}

/* The device side of the 8-bit cases (gg8_amd_case, gg_i8_case): uploads A (m x k rows of lda bytes), B (n x k, ldb),
 * the scales, C, R, bias and a poisoned D; describes them in *g (the caller set dtype / dtype_b / out_dtype / m / n /
 * k), with the scales of sm and the epilogue of epi unless scaled is 0 (raw i32 out); checks that the plan's path is
 * path (when given); runs the GEMM and reads D back; sets *h to the same description of the host copies, with D ->
 * Dref (poisoned), for the cpu reference. bufs[8] gets the allocations (ak_free them). 0 after a setup failure. */
static int gq_run(ak_context* ctx, const char* what, const char* path, ak_gemm_desc* g, ak_gemm_desc* h, ak_gemm_plan* p,
                  const void* A, const void* B, const float* sA, const float* sB, const void* C, const void* R, const void* bias,
                  void* D, void* Dref, size_t lda, size_t ldb, size_t batch, int sm, int epi, int scaled, void* bufs[8]) {
    const size_t m = g->m, n = g->n, k = g->k, os = ak_dtype_size(g->out_dtype), sa_ = m * lda, sb_ = n * ldb, nd = batch * m * n;
    void *dA, *dB, *dsa, *dsb, *dC, *dR, *dbias, *dD;
    (void)k;
    dA = up(ctx, A, batch * sa_, 0, &bufs[0]); dB = up(ctx, B, batch * sb_, 0, &bufs[1]);
    dsa = up(ctx, sA, m * 4, 0, &bufs[2]); dsb = up(ctx, sB, n * 4, 0, &bufs[3]);
    dC = up(ctx, C, nd * os, 0, &bufs[4]); dR = up(ctx, R, nd * os, 0, &bufs[5]); dbias = up(ctx, bias, n * os, 0, &bufs[6]);
    memset(D, 0xFF, nd * os);
    dD = up(ctx, D, nd * os, 0, &bufs[7]);
    if (!dA || !dB || !dsa || !dsb || !dC || !dR || !dbias || !dD) { akt_fail(__FILE__, __LINE__, "setup: %s", ak_last_error()); return 0; }
    g->trans_b = 1; g->lda = lda; g->ldb = ldb;
    g->a = dA; g->b = dB; g->d = dD; g->batch = batch; g->stride_a = sa_; g->stride_b = sb_; g->stride_d = m * n;
    if (scaled) {
        if (sm & 1) g->scale_a = (const float*)dsa;
        if (sm & 2) g->scale_b = (const float*)dsb;
        g->scale_a_per_row = (sm & 1) && (sm & 4); g->scale_b_per_col = (sm & 2) && (sm & 8);
        g->alpha = (epi & 15) ? 0.5f : 1.0f;
        if (epi & 1) { g->beta = 0.25f; g->c = dC; g->stride_c = m * n; }
        if (epi & 2) g->bias = dbias;
        if (epi & 4) g->activation = AK_OP_GELU;
        if (epi & 8) { g->residual = dR; g->stride_r = m * n; }
    }
    AKT_OK(ak_gemm_plan_get(ctx, g, p));
    AKT_CHECKF(!path[0] || (p->path && !strcmp(p->path, path)), "%s plan path %s, expected %s (kernel %s)", what,
               p->path ? p->path : "(none)", path, p->kernel);
    AKT_OK(ak_gemm(ctx, g, NULL));
    AKT_OK(ak_device_synchronize(ctx));
    AKT_OK(ak_memcpy(ctx, D, dD, nd * os, AK_D2H));
    *h = *g; h->a = A; h->b = B; h->scale_a = g->scale_a ? sA : NULL; h->scale_b = g->scale_b ? sB : NULL; h->c = g->c ? C : NULL;
    h->bias = g->bias ? bias : NULL; h->residual = g->residual ? R : NULL; h->d = Dref;
    memset(Dref, 0xFF, nd * os);
    return 1;
}

/* fp8 on the AMD matrix-core kernel (kernels/gemm_fp8.hip): A m x k and B n x
 * k of random codes of every finite value (OCP: -0 included; FNUZ: no 0x80),
 * padded rows (pad codes past each row: odd ones take the byte loads), random
 * scales by sm (1 scale_a, 2 scale_b, 4 per row, 8 per column), the
 * epilogues of epi (1 C, 2 bias, 4 activation, 8 residual), against the cpu
 * reference (exact decode, double sums). The accumulators are f32 (every
 * product of two codes is exact in f32): |gpu - ref| <= (k + 4) 2^-23 S + 2
 * e_out |ref| + 2^-15 (the epilogue terms' magnitudes) + 1e-5, S = |alpha sa
 * sb| sum |a b| (a wrong code, row or k step is off by about one product).
 * all_codes: m = n = 256, k = 1, A's row i the code i, B's row j the code j,
 * f32 out, no scales: D[i][j] = a_i b_j exactly for every pair of codes, NaN
 * where the reference has NaN (and where it has an infinity on a FNUZ target
 * fed OCP codes: FNUZ has no infinity; the kernel's NaN is documented). */
static void gg8_amd_case(ak_context* ctx, const char* path, ak_dtype ta8, ak_dtype tb8, ak_dtype ot, size_t m, size_t n, size_t k, int sm,
                         int epi, size_t batch, size_t pad, int all_codes, int fnuz_target) {
    ak_gemm_desc g = ak_gemm_desc_default(), h;
    ak_gemm_plan p;
    const size_t os = ak_dtype_size(ot), lda = k + pad, ldb = k + pad, sa_ = m * lda, sb_ = n * ldb, nd = batch * m * n;
    uint8_t *A = (uint8_t*)malloc(batch * sa_ + 1), *B = (uint8_t*)malloc(batch * sb_ + 1);
    float *sA = (float*)malloc(m * 4), *sB = (float*)malloc(n * 4);
    void *C = malloc(nd * os), *R = malloc(nd * os), *bias = malloc(n * os), *D = malloc(nd * os), *Dref = malloc(nd * os);
    void* bufs[8] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    size_t i, j, b, kk, bad = 0;
    const double e_out = ot == AK_F32 ? ldexp(1.0, -24) : ot == AK_F16 ? ldexp(1.0, -11) : ldexp(1.0, -8);
    for (i = 0; i < batch * sa_ + 1; i++) {
        uint8_t c;
        do c = (uint8_t)(int)akt_uniform(&g_st, 0, 256); while (ak_fp8_to_f32(c, ta8) != ak_fp8_to_f32(c, ta8) || isinf(ak_fp8_to_f32(c, ta8)));
        A[i] = all_codes ? (uint8_t)(i / lda) : c;
    }
    for (i = 0; i < batch * sb_ + 1; i++) {
        uint8_t c;
        do c = (uint8_t)(int)akt_uniform(&g_st, 0, 256); while (ak_fp8_to_f32(c, tb8) != ak_fp8_to_f32(c, tb8) || isinf(ak_fp8_to_f32(c, tb8)));
        B[i] = all_codes ? (uint8_t)(i / ldb) : c;
    }
    for (i = 0; i < m; i++) sA[i] = (float)akt_uniform(&g_st, 1e-4, 1e-2);
    for (j = 0; j < n; j++) sB[j] = (float)akt_uniform(&g_st, 1e-4, 1e-2);
    fill(C, ot, nd); fill(R, ot, nd); fill(bias, ot, n);
    g.dtype = ta8; g.dtype_b = tb8; g.out_dtype = ot; g.m = m; g.n = n; g.k = k;
    if (!gq_run(ctx, "fp8", path, &g, &h, &p, A, B, sA, sB, C, R, bias, D, Dref, lda, ldb, batch, sm, epi, 1, bufs)) goto done;
    AKT_OK(ak_gemm(g_ref, &h, NULL));
    for (b = 0; b < batch; b++)
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                const size_t at = b * m * n + i * n + j;
                const double got = ak_elem_get(D, ot, at), ref = ak_elem_get(Dref, ot, at);
                double S = 0, tol, mag;
                int ok;
                for (kk = 0; kk < k; kk++)
                    S += fabs((double)ak_fp8_to_f32(A[b * sa_ + i * lda + kk], ta8) * ak_fp8_to_f32(B[b * sb_ + j * ldb + kk], tb8));
                S *= fabs(g.alpha * (g.scale_a ? sA[g.scale_a_per_row ? i : 0] : 1.0f) * (g.scale_b ? sB[g.scale_b_per_col ? j : 0] : 1.0f));
                mag = fabs(ref) + ((epi & 1) ? 0.25 * fabs(ak_elem_get(C, ot, at)) : 0) + (g.bias ? fabs(ak_elem_get(bias, ot, j)) : 0) +
                      (g.residual ? fabs(ak_elem_get(R, ot, at)) : 0) + 1.0;
                tol = (double)(k + 4) * ldexp(1.0, -23) * S + 2 * e_out * fabs(ref) + ldexp(1.0, -15) * mag + 1e-5;
                if (all_codes) ok = (isnan(ref) || (isinf(ref) && fnuz_target && (ta8 == AK_FP8_E4M3 || ta8 == AK_FP8_E5M2))) ? isnan(got) : got == ref;
                else ok = got == ref || fabs(got - ref) <= tol; /* (an f16 overflow: the same infinity) */
                if (!ok && bad++ < 3)
                    akt_fail(__FILE__, __LINE__, "%s %s %s x %s -> %s %zux%zux%zu scales %d epi %d batch %zu pad %zu: D[%zu][%zu][%zu] = %.9g, "
                             "ref %.9g (tol %.3g)", p.path, p.kernel, ak_dtype_name(ta8), ak_dtype_name(tb8), ak_dtype_name(ot), m, n, k, sm,
                             epi, batch, pad, b, i, j, got, ref, all_codes ? 0.0 : tol);
            }
done:
    for (i = 0; i < 8; i++) ak_free(ctx, bufs[i]);
    free(A); free(B); free(sA); free(sB); free(C); free(R); free(bias); free(D); free(Dref);
}

/* The AMD fp8 cases: every pair of formats (the target's encoding; a FNUZ
 * target also takes OCP codes, converted exactly), both tiles (few tiles:
 * the small one), odd m / n / k (k tails inside the 64-code step), padded
 * rows (byte loads), every scale granularity, output dtype and epilogue,
 * batches, and every pair of codes exactly. fnuz: the target is gfx94x. */
static void fp8_amd_cases(ak_context* ctx, const char* path, int fnuz, int quick) {
    static const ak_dtype ocp[2] = { AK_FP8_E4M3, AK_FP8_E5M2 }, fz[2] = { AK_FP8_E4M3_FNUZ, AK_FP8_E5M2_FNUZ };
    int f, e;
    for (e = 0; e < (fnuz ? 2 : 1); e++) {
        const ak_dtype* t = e ? fz : ocp;
        for (f = 0; f < 4; f++) {
            const ak_dtype ta = t[f & 1], tb = t[f >> 1];
            gg8_amd_case(ctx, path, ta, tb, AK_F32, 256, 256, 1, 0, 0, 1, 0, 1, fnuz);   /* every pair of codes */
            gg8_amd_case(ctx, path, ta, tb, AK_BF16, 131, 133, 77, 15, 0, 1, 0, 0, fnuz);
            if (quick) continue;
            gg8_amd_case(ctx, path, ta, tb, AK_F16, 37, 70, 200, 3, 15, 2, 3, 0, fnuz);
            gg8_amd_case(ctx, path, ta, tb, AK_F32, 65, 33, 7, 1 | 2 | 8, 2 | 4, 1, 16, 0, fnuz);
            gg8_amd_case(ctx, path, ta, tb, AK_BF16, 1, 9, 130, 2, 1 | 8, 1, 1, 0, fnuz);
        }
    }
    gg8_amd_case(ctx, path, ocp[0], ocp[0], AK_F16, 257, 129, 320, 1 | 4, 0, 1, 0, 0, fnuz);   /* several k steps, 16-byte rows */
}

/* fp8 GEMM on the Hopper TMA kernel: odd m / n, k tails inside the 128-wide
 * k step, each tile variant, both scale granularities, every OCP pair and
 * output dtype, epilogues and batches; layouts it cannot take are refused.
 * Devices without an fp8 GEMM path must refuse it (AK_ERROR_MATRIX_CORES). */
static void fp8_path(void) {
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    ak_gemm_desc g = ak_gemm_desc_default();
    ak_gemm_plan p;
    static const ak_dtype o3[3] = { AK_BF16, AK_F16, AK_F32 };
    int f;
    if (!ctx) return;
    g.dtype = AK_FP8_E4M3; g.out_dtype = AK_BF16; g.m = 256; g.n = 256; g.k = 256; g.trans_b = 1;
    g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
    {
        /* AMD: the matrix-core kernel of the targets with fp8 instructions (gfx94x FNUZ, gfx950 / gfx12 OCP) */
        const char* ab = ak_context_device(ctx)->arch_base;
        const int fnuz = !strncmp(ab, "gfx94", 5), ocp = !strcmp(ab, "gfx950") || !strncmp(ab, "gfx120", 6);
        if (fnuz || ocp) {
            fp8_amd_cases(ctx, !strncmp(ab, "gfx9", 4) ? "mfma" : "wmma", fnuz, 0);
            ak_context_destroy(ctx);
            return;
        }
    }
    if (strcmp(ak_context_device(ctx)->arch_base, "sm_90")) {
        AKT_ERR(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_MATRIX_CORES);
        ak_context_destroy(ctx);
        return;
    }
    g.trans_b = 0; AKT_ERR(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_INVALID_ARGUMENT);
    g.trans_b = 1; g.k = 200; AKT_ERR(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_INVALID_ARGUMENT); /* k % 16: TMA rows */
    g.k = 256; g.fast_accum = 2; AKT_ERR(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_INVALID_ARGUMENT);
    /* precise (the default) runs the 128x128 tile whatever the shape; fast_accum the tile heuristic's */
    g.fast_accum = 0; AKT_OK(ak_gemm_plan_get(ctx, &g, &p)); AKT_EQ_INT(p.bn, 128);
    for (f = 0; f < 2; f++) {
        gg8_case(ctx, "wgmma", AK_FP8_E4M3, AK_FP8_E4M3, AK_BF16, 128, 256, 512, 0, 0, 1, f);
        gg8_case(ctx, "wgmma", AK_FP8_E4M3, AK_FP8_E4M3, AK_BF16, 1, 1, 16, 1, 0, 1, f);
        gg8_case(ctx, "wgmma", AK_FP8_E4M3, AK_FP8_E4M3, AK_F32, 7, 9, 32, 1, 2, 1, f);
        gg8_case(ctx, "wgmma", AK_FP8_E4M3, AK_FP8_E5M2, AK_F16, 129, 127, 1040, 0, 3, 1, f);
        gg8_case(ctx, "wgmma", AK_FP8_E5M2, AK_FP8_E4M3, AK_BF16, 300, 520, 64, 1, 4 | 8, 1, f);
        gg8_case(ctx, "wgmma", AK_FP8_E5M2, AK_FP8_E5M2, AK_F32, 1000, 33, 2048, 1, 1, 1, f);
        gg8_case(ctx, "wgmma", AK_FP8_E4M3, AK_FP8_E4M3, AK_BF16, 65, 130, 96, 0, 15, 3, f);   /* batched, every epilogue */
        gg8_case(ctx, "wgmma", AK_FP8_E4M3, AK_FP8_E4M3, AK_BF16, 2304, 2048, 400, 1, 2, 1, f); /* fast: ping-pong, many tiles */
        gg8_case(ctx, "wgmma", AK_FP8_E4M3, AK_FP8_E4M3, o3[1], 640, 1000, 2208, 1, 0, 1, f);   /* k steps > stages */
        gg8_case(ctx, "wgmma", AK_FP8_E4M3, AK_FP8_E4M3, o3[2], 16, 4096, 4096, 1, 2, 1, f);    /* decode rows, k = 4096 */
        gg8_case(ctx, "wgmma", AK_FP8_E4M3, AK_FP8_E4M3, AK_F32, 128, 384, 14336, 0, 0, 1, f);  /* long k */
        gg8_case(ctx, "wgmma", AK_FP8_E5M2, AK_FP8_E4M3, AK_F32, 256, 520, 4096, 1, 1, 1, f);
    }
    ak_context_destroy(ctx);
}

/* int8: A m x k and B n x k of random int8 (-128 included), padded rows (pad
 * bytes past each row: 0 takes the 16-byte loads, odd ones the byte loads),
 * against the cpu reference: i32 out bit-exact; f32 / f16 / bf16 out within
 * 2 e_out |ref| plus 2^-21 of the sum of the epilogue terms' magnitudes
 * (f32 arithmetic on an exact int32 sum; a wrong sum is off by about
 * |sa sb| 128^2 sqrt(k)). */
static int g_i8_fill; /* nonzero: A and B all this value (int32 wrap cases), else random */
static void gg_i8_case(ak_context* ctx, const char* path, ak_dtype ot, size_t m, size_t n, size_t k, int sm, int epi, size_t batch,
                       size_t pad) {
    ak_gemm_desc g = ak_gemm_desc_default(), h;
    ak_gemm_plan p;
    const size_t os = ak_dtype_size(ot), lda = k + pad, ldb = k + pad, sa_ = m * lda, sb_ = n * ldb, nd = batch * m * n;
    int8_t *A = (int8_t*)malloc(batch * sa_ + 1), *B = (int8_t*)malloc(batch * sb_ + 1);
    float *sA = (float*)malloc(m * 4), *sB = (float*)malloc(n * 4);
    void *C = malloc(nd * os), *R = malloc(nd * os), *bias = malloc(n * os), *D = malloc(nd * os), *Dref = malloc(nd * os);
    void* bufs[8] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    size_t i, j, b, bad = 0;
    const double e_out = ot == AK_F32 ? ldexp(1.0, -24) : ot == AK_F16 ? ldexp(1.0, -11) : ldexp(1.0, -8);
    for (i = 0; i < batch * sa_ + 1; i++) A[i] = (int8_t)(int)akt_uniform(&g_st, -128, 128);
    for (i = 0; i < batch * sb_ + 1; i++) B[i] = (int8_t)(int)akt_uniform(&g_st, -128, 128);
    A[0] = -128; B[0] = -128;
    if (g_i8_fill) {
        memset(A, g_i8_fill, batch * sa_ + 1);
        memset(B, g_i8_fill, batch * sb_ + 1);
    }
    for (i = 0; i < m; i++) sA[i] = (float)akt_uniform(&g_st, 1e-4, 1e-2);
    for (j = 0; j < n; j++) sB[j] = (float)akt_uniform(&g_st, 1e-4, 1e-2);
    fill(C, ot == AK_I32 ? AK_F32 : ot, nd); fill(R, ot == AK_I32 ? AK_F32 : ot, nd); fill(bias, ot == AK_I32 ? AK_F32 : ot, n);
    g.dtype = AK_I8; g.out_dtype = ot; g.m = m; g.n = n; g.k = k;
    if (!gq_run(ctx, "i8", path, &g, &h, &p, A, B, sA, sB, C, R, bias, D, Dref, lda, ldb, batch, sm, epi, ot != AK_I32, bufs)) goto done;
    AKT_OK(ak_gemm(g_ref, &h, NULL));
    for (b = 0; b < batch; b++)
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                const size_t at = b * m * n + i * n + j;
                if (ot == AK_I32) {
                    const int32_t got = ((const int32_t*)D)[at], ref = ((const int32_t*)Dref)[at];
                    if (got != ref && bad++ < 3)
                        akt_fail(__FILE__, __LINE__, "%s %s i8 -> i32 %zux%zux%zu batch %zu pad %zu: D[%zu][%zu][%zu] = %d, ref %d", p.path,
                                 p.kernel, m, n, k, batch, pad, b, i, j, (int)got, (int)ref);
                } else {
                    const double got = ak_elem_get(D, ot, at), ref = ak_elem_get(Dref, ot, at);
                    const double mag = fabs(ref) + ((epi & 1) ? 0.25 * fabs(ak_elem_get(C, ot, at)) : 0) + (g.bias ? fabs(ak_elem_get(bias, ot, j)) : 0) +
                                       (g.residual ? fabs(ak_elem_get(R, ot, at)) : 0) + 1.0;
                    const double tol = 2 * e_out * fabs(ref) + ldexp(1.0, -21) * mag * 64 + 1e-5;
                    if (!(fabs(got - ref) <= tol) && bad++ < 3)
                        akt_fail(__FILE__, __LINE__, "%s %s i8 -> %s %zux%zux%zu scales %d epi %d batch %zu pad %zu: D[%zu][%zu][%zu] = %.7g, ref %.7g",
                                 p.path, p.kernel, ak_dtype_name(ot), m, n, k, sm, epi, batch, pad, b, i, j, got, ref);
                }
            }
done:
    for (i = 0; i < 8; i++) ak_free(ctx, bufs[i]);
    free(A); free(B); free(sA); free(sB); free(C); free(R); free(bias); free(D); free(Dref);
}

/* int8 GEMM on the portable matrix-core kernel: both tiles, odd m / n / k (k
 * tails inside the 64-byte k step, byte loads of unaligned rows), every
 * output dtype, scale granularity and epilogue, batches; devices without
 * int8 matrix instructions must refuse it (AK_ERROR_MATRIX_CORES). */
static void i8_path_cases(ak_context* ctx, const char* path, int quick) {
    static const ak_dtype o4[4] = { AK_I32, AK_BF16, AK_F16, AK_F32 };
    gg_i8_case(ctx, path, AK_I32, 131, 133, 77, 0, 0, 1, 0);
    gg_i8_case(ctx, path, AK_BF16, 37, 70, 200, 15, 15, 2, 3);
    if (quick) return;
    gg_i8_case(ctx, path, AK_I32, 1, 1, 1, 0, 0, 1, 0);
    gg_i8_case(ctx, path, AK_F16, 7, 9, 32, 3, 2, 1, 16);
    gg_i8_case(ctx, path, AK_F32, 127, 1, 129, 7, 4, 1, 1);
    gg_i8_case(ctx, path, o4[1], 300, 520, 64, 11, 8 | 4, 1, 0);
    gg_i8_case(ctx, path, o4[2], 129, 127, 1040, 15, 1, 1, 0);
    gg_i8_case(ctx, path, o4[3], 1000, 33, 2048, 12, 3, 1, 0);
    gg_i8_case(ctx, path, AK_I32, 1000, 1024, 1000, 0, 0, 1, 0);
    gg_i8_case(ctx, path, AK_BF16, 16, 4096, 4096, 15, 2, 1, 0);
    gg_i8_case(ctx, path, AK_I32, 256, 384, 14336, 0, 0, 1, 0);
    gg_i8_case(ctx, path, AK_F16, 2304, 2048, 400, 15, 15, 1, 0);
}

/* Hopper: the TMA kernel (s8 wgmma) whenever A and B rows are a multiple of
 * 16 bytes (pad rounds lda = ldb up to one), at odd m / n / k, each variant
 * (128x256, 128x128, ping-pong), every out and epilogue, int32 wrap-around;
 * rows that are not run the mma.sync kernel. */
static size_t pad16(size_t k) { return (16 - k % 16) % 16; }
static void i8_hopper_cases(ak_context* ctx) {
    gg_i8_case(ctx, "wgmma", AK_I32, 131, 133, 77, 0, 0, 1, pad16(77));
    gg_i8_case(ctx, "wgmma", AK_I32, 1, 1, 1, 0, 0, 1, pad16(1));
    gg_i8_case(ctx, "wgmma", AK_BF16, 37, 70, 200, 15, 15, 2, pad16(200));
    gg_i8_case(ctx, "wgmma", AK_F16, 7, 9, 32, 3, 2, 1, 0);
    gg_i8_case(ctx, "wgmma", AK_F32, 127, 1, 129, 7, 4, 1, pad16(129));
    gg_i8_case(ctx, "wgmma", AK_BF16, 300, 520, 64, 11, 8 | 4, 1, 0);
    gg_i8_case(ctx, "wgmma", AK_F16, 129, 127, 1040, 15, 1, 1, 0);
    gg_i8_case(ctx, "wgmma", AK_F32, 1000, 33, 2048, 12, 3, 1, 0);
    gg_i8_case(ctx, "wgmma", AK_I32, 1000, 1024, 1000, 0, 0, 1, pad16(1000));
    gg_i8_case(ctx, "wgmma", AK_BF16, 16, 4096, 4096, 15, 2, 1, 0);
    gg_i8_case(ctx, "wgmma", AK_I32, 256, 384, 14336, 0, 0, 1, 0);   /* long k */
    gg_i8_case(ctx, "wgmma", AK_F16, 2304, 2048, 400, 15, 15, 1, 0); /* ping-pong */
    gg_i8_case(ctx, "wgmma", AK_I32, 2304, 2047, 401, 0, 0, 1, pad16(401));
    gg_i8_case(ctx, "wgmma", AK_BF16, 1500, 3001, 4099, 3, 0, 1, pad16(4099)); /* 128x256, the 16-bit epilogue */
    gg_i8_case(ctx, "wgmma", AK_I32, 130, 260, 64, 0, 0, 5, 0);      /* batched */
    gg_i8_case(ctx, "mma.sync", AK_I32, 131, 133, 77, 0, 0, 1, 1);   /* rows TMA cannot take */
    /* |sum| past 2^31: int32 wraps as the reference does (-128 x -128 x 139264 = 2^31 + 2^28) */
    g_i8_fill = -128;
    gg_i8_case(ctx, "wgmma", AK_I32, 64, 72, 139264, 0, 0, 1, 0);
    gg_i8_case(ctx, "mma.sync", AK_I32, 64, 72, 139264, 0, 0, 1, 1);
    g_i8_fill = 0;
}

static void i8_path(void) {
    ak_context* ctx = gg_ctx(AK_AUTO, -1, AK_AUTO, 0);
    ak_gemm_desc g = ak_gemm_desc_default();
    ak_gemm_plan p;
    const ak_arch_info* ai;
    if (!ctx) return;
    ai = ak_context_device(ctx)->arch_info;
    g.dtype = AK_I8; g.out_dtype = AK_I32; g.m = 256; g.n = 256; g.k = 256; g.trans_b = 1;
    g.a = (const void*)(uintptr_t)((uintptr_t)1 << 40); g.b = (const void*)(uintptr_t)((uintptr_t)2 << 40); g.d = (void*)(uintptr_t)((uintptr_t)3 << 40);
    if (!ai || ai->matrix == AK_MATRIX_NONE) {
        AKT_ERR(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_MATRIX_CORES);
        ak_context_destroy(ctx);
        return;
    }
    g.trans_b = 0; AKT_ERR(ak_gemm_plan_get(ctx, &g, &p), AK_ERROR_INVALID_ARGUMENT);
    /* Hopper: wgmma or mma.sync by the rows' alignment (i8_hopper_cases checks which) */
    i8_path_cases(ctx, ai->matrix == AK_MATRIX_MFMA ? "mfma" : ai->matrix == AK_MATRIX_WMMA ? "wmma" : ai->matrix == AK_MATRIX_WGMMA ? "" : "mma.sync", 0);
    if (ai->matrix == AK_MATRIX_WGMMA && ai->tma) i8_hopper_cases(ctx);
    ak_context_destroy(ctx);
}

void akt_suite_gpu_gemm(void) {
    g_st = akt_seed() ^ 0x47454d4dull;
    g_ref = akt_cpu_context("gpu_gemm_ref");
    if (!g_ref) return;
    AKT_RUN(matrix_core_paths);
    AKT_RUN(hopper_tma_path);
    AKT_RUN(decode_path);
    AKT_RUN(gemv_path);
    AKT_RUN(turned_path);
    AKT_RUN(epilogues_batches_unaligned);
    AKT_RUN(portable_tile_path);
    AKT_RUN(config_selects_path);
    AKT_RUN(ffma_path);
    ak_context_destroy(g_ref);
    g_ref = NULL;
}

/* Suite gpu_gemm_fp8: the fp8 GEMM (its own suite: one compile of the fp8
 * kernels, no 16-bit families). */
void akt_suite_gpu_gemm_fp8(void) {
    g_st = akt_seed() ^ 0x46503847ull;
    g_ref = akt_cpu_context("gpu_gemm_ref");
    if (!g_ref) return;
    AKT_RUN(fp8_path);
    ak_context_destroy(g_ref);
    g_ref = NULL;
}

/* Suite gpu_gemm_i8: the int8 GEMM (its own suite). */
void akt_suite_gpu_gemm_i8(void) {
    g_st = akt_seed() ^ 0x49384d4dull;
    g_ref = akt_cpu_context("gpu_gemm_ref");
    if (!g_ref) return;
    AKT_RUN(i8_path);
    ak_context_destroy(g_ref);
    g_ref = NULL;
}
