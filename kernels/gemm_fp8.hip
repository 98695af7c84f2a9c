/* kernels/gemm_fp8.hip: the scaled fp8 GEMM of the AMD targets with fp8 matrix
 * instructions,
 *   D = act(alpha sa[m] sb[n] (A B^T)[m][n] + beta C + bias) + R,
 * A m x k and B n x k (both k-contiguous) of 8-bit float codes, batched
 * (strided), f32 accumulators. Host wrapper, plan and CPU reference: ak_gemm
 * in amdkit.h (>>impl:ops-gemm); the NVIDIA fp8 GEMM is kernels/gemm_sm90.hip.
 *
 * The instruction per target (ak_mma_f8<TA, TB>, TA / TB: 0 e4m3, 1 e5m2):
 *   gfx94x (CDNA3): v_mfma_f32_32x32x16_{fp8,bf8}_{fp8,bf8}, the FNUZ
 *     encodings, 8 bytes a lane (the int8 32x32x16 layout);
 *   gfx950 (CDNA4): v_mfma_scale_f32_32x32x64_f8f6f4 with unit scales
 *     (E8M0 127 = 1.0; the format of A and B in its cbsz / blgp fields), the
 *     OCP encodings, 32 bytes a lane;
 *   gfx12 (RDNA4): v_wmma_f32_16x16x16_{fp8,bf8}_{fp8,bf8}, OCP, 8 bytes a
 *     lane (the int8 WMMA layout).
 * Each lane loads a run of consecutive k for A and B alike; where the
 * hardware's k order within a lane group differs (gfx950: k 16g..16g+15 and
 * 32+16g.., gfx12), A and B are permuted along k the same way and each
 * instruction's sum is unchanged. Every other target (and NVIDIA) compiles a
 * plain loop per output with an exact decode of the OCP codes: correct, slow,
 * never launched (the host refuses fp8 there).
 *
 * OCP codes on a FNUZ target (AK_GF8_XA / XB): an OCP code read as the FNUZ
 * code of the same bits is exactly half the value (e4m3: bias 7 -> 8, e5m2:
 * 15 -> 16; subnormals too), so the tile loader passes the bits through and
 * the epilogue doubles the sum once per converted operand: exact for every
 * finite code, with no range limit (OCP e4m3's 448 becomes FNUZ 224, within
 * its 240). Only the special codes change: -0 (0x80, FNUZ's NaN) becomes
 * +0, and NaN (e5m2: also +-infinity, which FNUZ lacks) becomes FNUZ's NaN.
 *
 * Tile: the int8 tile of kernels/gemm.hip (ak_gemm_i8): BM x BN with NT
 * threads (waves 2 x (NW / 2)), k steps of 64 codes as 16-byte chunks through
 * registers into 80-byte shared rows, double-buffered, one barrier per k
 * step; the accumulators staged one MM::M-row slab at a time through shared
 * memory for a coalesced epilogue (f32, f16 or bf16 out by flag). */

// >>host  the flag bits (the host builds them: amdkit.h _AK_GF8_*)
#define AK_GF8_OUT32 1
#define AK_GF8_BF16 2
#define AK_GF8_C 4
#define AK_GF8_BIAS 8
#define AK_GF8_RES 16
#define AK_GF8_VA 32
#define AK_GF8_VB 64
#define AK_GF8_SA_ROW 128
#define AK_GF8_SB_COL 256
#define AK_GF8_XA 512
#define AK_GF8_XB 1024
#define AK_GF8_ACT_SHIFT 16
// <<host

/* ---- the fp8 matrix instruction of the target -------------------------- */
#if defined(AK_MMA_MFMA) && (defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__))
struct ak_mma_f8_base : ak_mfma32_c {
#if defined(__gfx950__)
    enum { OK = 1, KL = 32 };
    struct A { ak_i32x8 x; };
#else
    enum { OK = 1, KL = 8 };
    struct A { long x; };
#endif
    enum { K = 2 * KL };
    typedef A B;
    static AK_INLINE void load_a(A& a, const unsigned char* s, int ld) {
        const int l = ak_lane();
        const unsigned char* p = s + (l % 32) * ld + KL * (l / 32);
#if defined(__gfx950__)
        const ak_i32x4 lo = *(const ak_i32x4*)p, hi = *(const ak_i32x4*)(p + 16);
#pragma unroll
        for (int i = 0; i < 4; i++) { a.x[i] = lo[i]; a.x[4 + i] = hi[i]; }
#else
        a.x = *(const long*)p;
#endif
    }
    static AK_INLINE void load_b(B& b, const unsigned char* s, int ld) { load_a(b, s, ld); }
};
template <int TA, int TB>
struct ak_mma_f8 : ak_mma_f8_base {
    static AK_INLINE void mma(C& c, const A& a, const B& b) {
#if defined(__gfx950__)
        c.v = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a.x, b.x, c.v, TA, TB, 0, 127, 0, 127);
#else
        if constexpr (TA == 0 && TB == 0) c.v = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a.x, b.x, c.v, 0, 0, 0);
        else if constexpr (TA == 0) c.v = __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8(a.x, b.x, c.v, 0, 0, 0);
        else if constexpr (TB == 0) c.v = __builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8(a.x, b.x, c.v, 0, 0, 0);
        else c.v = __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8(a.x, b.x, c.v, 0, 0, 0);
#endif
    }
};
#elif defined(AK_MMA_WMMA12)
template <int TA, int TB>
struct ak_mma_f8 : ak_wmma_c {
    enum { OK = 1 };
    struct A { ak_wmma_i8 x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const unsigned char* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_wmma_i8*)(s + (l % 16) * ld + k0(l));
    }
    static AK_INLINE void load_b(B& b, const unsigned char* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) {
        if constexpr (TA == 0 && TB == 0) c.v = __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(a.x, b.x, c.v);
        else if constexpr (TA == 0) c.v = __builtin_amdgcn_wmma_f32_16x16x16_fp8_bf8_w32_gfx12(a.x, b.x, c.v);
        else if constexpr (TB == 0) c.v = __builtin_amdgcn_wmma_f32_16x16x16_bf8_fp8_w32_gfx12(a.x, b.x, c.v);
        else c.v = __builtin_amdgcn_wmma_f32_16x16x16_bf8_bf8_w32_gfx12(a.x, b.x, c.v);
    }
};
#else
template <int TA, int TB>
struct ak_mma_f8 { /* never called (OK = 0): the members let the kernel compile */
    enum { OK = 0, M = 16, N = 16, K = 64, NC = 1 };
    struct A { int x; };
    typedef A B;
    struct C { float v[1]; };
    static AK_INLINE void zero(C& c) { c.v[0] = 0.0f; }
    static AK_INLINE void load_a(A& a, const unsigned char* s, int ld) { (void)ld; a.x = s[0]; }
    static AK_INLINE void load_b(B& b, const unsigned char* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v[0] += (float)(a.x * b.x); }
    static AK_INLINE int c_row(int lane, int e) { (void)e; return lane % 16; }
    static AK_INLINE int c_col(int lane, int e) { (void)lane; return e; }
};
#endif

/* An OCP code (T 0 e4m3, 1 e5m2) -> fp32, exact (the plain loop of targets without an fp8 instruction). */
template <int T>
AK_INLINE float ak_gemm_fp8_dec(ak_u32 c) {
    enum { MB = T ? 2 : 3, BIAS = T ? 15 : 7, EM = T ? 31 : 15 };
    const ak_u32 e = (c >> MB) & EM, m = c & ((1u << MB) - 1), s = (c & 0x80u) << 24;
    if (T ? e == 31 : (c & 0x7Fu) == 0x7Fu) return ak_u2f(s | (T && m == 0 ? 0x7F800000u : 0x7FC00000u));
    if (e) return ak_u2f(s | ((e + 127 - BIAS) << 23) | (m << (23 - MB)));
    const float v = (float)m * ak_u2f((ak_u32)(127 + 1 - BIAS - MB) << 23); /* subnormal: m 2^(1 - bias - mbits) */
    return s ? -v : v;
}

/* Four OCP codes (T 0 e4m3, 1 e5m2) -> the FNUZ codes of half their values: the same bits, except +-0 -> 0x00 and
 * NaN (e5m2: NaN and +-infinity) -> 0x80, byte-parallel (no carry crosses a byte). */
template <int T>
AK_INLINE ak_u32 ak_gemm_fp8_ocp2fnuz(ak_u32 x) {
    const ak_u32 lo = x & 0x7F7F7F7Fu;
    const ak_u32 nan = (lo + (T ? 0x04040404u : 0x01010101u)) & 0x80808080u; /* low 7 bits 0x7F (e5m2: >= 0x7C) */
    const ak_u32 zero = ~(lo + 0x7F7F7F7Fu) & 0x80808080u;                    /* low 7 bits 0 */
    return (x & ~(((nan | zero) >> 7) * 0xFFu)) | nan;
}

/* The epilogue of output (m, n) with the f32 sum acc. */
AK_INLINE float ak_gemm_fp8_ld(const void* p, ak_i64 i, int flags) {
    if (flags & AK_GF8_OUT32) return ((const float*)p)[i];
    return (flags & AK_GF8_BF16) ? ak_bf16_t::to(((const ak_bf16*)p)[i]) : ak_f16_t::to(((const ak_half*)p)[i]);
}
AK_INLINE void ak_gemm_fp8_out(int m, int n, float acc, void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias, const void* R,
                                ak_i64 ldr, const float* sa, const float* sb, float alpha, float beta, int flags, float ap) {
    const int act = flags >> AK_GF8_ACT_SHIFT;
    float v = acc * ((flags & AK_GF8_XA ? 2.0f : 1.0f) * (flags & AK_GF8_XB ? 2.0f : 1.0f));
    if (sa) v *= sa[(flags & AK_GF8_SA_ROW) ? m : 0];
    if (sb) v *= sb[(flags & AK_GF8_SB_COL) ? n : 0];
    v *= alpha;
    if (flags & AK_GF8_C) v += beta * ak_gemm_fp8_ld(C, (ak_i64)m * ldc + n, flags);
    if (flags & AK_GF8_BIAS) v += ak_gemm_fp8_ld(bias, n, flags);
    if (act != AK_UNARY_NONE) v = ak_uop_apply(act, v, ap);
    if (flags & AK_GF8_RES) v += ak_gemm_fp8_ld(R, (ak_i64)m * ldr + n, flags);
    const ak_i64 i = (ak_i64)m * ldd + n;
    if (flags & AK_GF8_OUT32) ((float*)D)[i] = v;
    else if (flags & AK_GF8_BF16) ((ak_bf16*)D)[i] = ak_bf16_t::from(v);
    else ((ak_half*)D)[i] = ak_f16_t::from(v);
}
/* A rows x cols chunk of sums staged in shared memory (st[r * ldst + c] is output (m0 + r, n0 + c)), threads tid,
 * tid + nthr, ... of the caller's group on consecutive columns. Not inlined (as kernels/gemm.hip's): one copy of
 * the activation code, outside the k loop's registers. */
__device__ __noinline__ void ak_gemm_fp8_epi(const float* st, int ldst, int rows, int cols, int m0, int n0, int tid, int nthr, int M,
                                             int N, void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias, const void* R,
                                             ak_i64 ldr, const float* sa, const float* sb, float alpha, float beta, int flags, float ap) {
#pragma unroll 1
    for (int r = 0; r < rows && m0 + r < M; r++)
#pragma unroll 1
        for (int c = tid; c < cols; c += nthr)
            if (n0 + c < N) ak_gemm_fp8_out(m0 + r, n0 + c, st[r * ldst + c], D, ldd, C, ldc, bias, R, ldr, sa, sb, alpha, beta, flags, ap);
}

/* A ROWS x 64 code tile at (r0, k0), 16 bytes a chunk (one load where vec and in bounds, else byte by byte with
 * zeros outside), OCP -> FNUZ where x, to and from 80-byte shared rows. */
template <int T, int ROWS, int NT>
struct ak_gemm_fp8_tile {
    enum { NV = ROWS * 4 / NT };
    uint4 v[NV];
    AK_INLINE void load(const unsigned char* X, ak_i64 ld, bool vec, bool x, int r0, int k0, int R, int K) {
#pragma unroll
        for (int i = 0; i < NV; i++) {
            const int q = (int)threadIdx.x + i * NT, gr = r0 + q / 4, gk = k0 + (q % 4) * 16;
            const unsigned char* p = X + (ak_i64)gr * ld + gk;
            if (vec && gr < R && gk + 16 <= K) v[i] = *(const uint4*)p;
            else {
                ak_u32 w[4] = { 0, 0, 0, 0 };
                if (gr < R)
                    for (int j = 0; j < 16 && gk + j < K; j++) w[j / 4] |= (ak_u32)p[j] << (8 * (j % 4));
                v[i].x = w[0]; v[i].y = w[1]; v[i].z = w[2]; v[i].w = w[3];
            }
            if (x) {
                v[i].x = ak_gemm_fp8_ocp2fnuz<T>(v[i].x); v[i].y = ak_gemm_fp8_ocp2fnuz<T>(v[i].y);
                v[i].z = ak_gemm_fp8_ocp2fnuz<T>(v[i].z); v[i].w = ak_gemm_fp8_ocp2fnuz<T>(v[i].w);
            }
        }
    }
    AK_INLINE void store(unsigned char* S) const {
#pragma unroll
        for (int i = 0; i < NV; i++) {
            const int q = (int)threadIdx.x + i * NT;
            *(uint4*)(S + (q / 4) * 80 + (q % 4) * 16) = v[i];
        }
    }
};

#define AK_GEMM_FP8_PARAMS(T)                                                                                              \
    const T *A, const T *B, const void *C, void *D, const void *bias, const void *R, const float *sa, \
        const float *sb, int M, int N, int K, ak_i64 lda, ak_i64 ldb, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sA,         \
        ak_i64 sB, ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta, int flags, float ap
#define AK_GEMM_FP8_ARGS A, B, C, D, bias, R, sa, sb, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, alpha, beta, flags, ap

AK_INLINE const void* ak_gemm_fp8_off(const void* p, ak_i64 s, int b, int flags) {
    return p ? (const void*)((const char*)p + (ak_i64)b * s * ((flags & AK_GF8_OUT32) ? 4 : 2)) : p;
}

template <int TA, int TB, int BM, int BN, int NT>
AK_INLINE void ak_gemm_fp8(AK_GEMM_FP8_PARAMS(unsigned char)) {
    typedef ak_mma_f8<TA, TB> MM;
    enum { BK = 64, LDS = 80, NW = NT / AK_WAVE, WM = NW >= 2 ? 2 : 1, WN = NW / WM, TM = BM / WM, TN = BN / WN,
           FM = TM / MM::M, FN = TN / MM::N, TILE_BYTES = 2 * (BM + BN) * LDS, STAGE_BYTES = NW * MM::M * TN * 4,
           SMEM = TILE_BYTES > STAGE_BYTES ? TILE_BYTES : STAGE_BYTES };
    __shared__ __attribute__((aligned(16))) unsigned char smem[SMEM];
    /* the block's tile: groups of 8 tile rows (all column tiles of 8 row tiles before the next 8), as kernels/gemm.hip */
    const int gx = (int)gridDim.x, gy = (int)gridDim.y, pid = (int)blockIdx.y * gx + (int)blockIdx.x;
    const int per = 8 * gx, first = (pid / per) * 8, rows = gy - first < 8 ? gy - first : 8;
    const int m0 = (first + (pid % per) % rows) * BM, n0 = ((pid % per) / rows) * BN;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const unsigned char* Ab = A + (ak_i64)b * sA;
        const unsigned char* Bb = B + (ak_i64)b * sB;
        void* Db = (void*)ak_gemm_fp8_off(D, sD, b, flags);
        const void* Cb = ak_gemm_fp8_off(C, sC, b, flags);
        const void* Rb = ak_gemm_fp8_off(R, sR, b, flags);
        if constexpr (!MM::OK) {
            for (int t = (int)threadIdx.x; t < BM * BN; t += NT) {
                const int m = m0 + t / BN, n = n0 + t % BN;
                float acc = 0.0f;
                if (m >= M || n >= N) continue;
                for (int k = 0; k < K; k++)
                    acc += ak_gemm_fp8_dec<TA>(Ab[(ak_i64)m * lda + k]) * ak_gemm_fp8_dec<TB>(Bb[(ak_i64)n * ldb + k]);
                ak_gemm_fp8_out(m, n, acc, Db, ldd, Cb, ldc, bias, Rb, ldr, sa, sb, alpha, beta, flags, ap);
            }
        } else {
            static_assert(FM >= 1 && FN >= 1 && TM % MM::M == 0 && TN % MM::N == 0 && BK % MM::K == 0, "gemm fp8: bad tile");
            unsigned char (*As)[BM * LDS] = (unsigned char (*)[BM * LDS])smem;
            unsigned char (*Bs)[BN * LDS] = (unsigned char (*)[BN * LDS])(smem + 2 * BM * LDS);
            const int lane = ak_lane(), w = ak_wave_id(), wm = w / WN, wn = w % WN;
            typename MM::C acc[FM][FN];
#pragma unroll
            for (int i = 0; i < FM; i++)
#pragma unroll
                for (int j = 0; j < FN; j++) MM::zero(acc[i][j]);
            ak_gemm_fp8_tile<TA, BM, NT> ta_;
            ak_gemm_fp8_tile<TB, BN, NT> tb_;
            const bool va = (flags & AK_GF8_VA) != 0, vb = (flags & AK_GF8_VB) != 0;
            const bool xa = (flags & AK_GF8_XA) != 0, xb = (flags & AK_GF8_XB) != 0;
            const int nk = (K + BK - 1) / BK;
            ta_.load(Ab, lda, va, xa, m0, 0, M, K);
            tb_.load(Bb, ldb, vb, xb, n0, 0, N, K);
            __syncthreads(); /* the previous batch's epilogue is done with the shared memory */
            ta_.store(As[0]);
            tb_.store(Bs[0]);
            __syncthreads();
            for (int kt = 0; kt < nk; kt++) {
                const int cur = kt & 1;
                if (kt + 1 < nk) {
                    ta_.load(Ab, lda, va, xa, m0, (kt + 1) * BK, M, K);
                    tb_.load(Bb, ldb, vb, xb, n0, (kt + 1) * BK, N, K);
                }
                const unsigned char* as = As[cur] + (wm * TM) * LDS;
                const unsigned char* bs = Bs[cur] + (wn * TN) * LDS;
#pragma unroll
                for (int kk = 0; kk < BK; kk += MM::K) {
                    typename MM::A fa[FM];
                    typename MM::B fb[FN];
#pragma unroll
                    for (int i = 0; i < FM; i++) MM::load_a(fa[i], as + i * MM::M * LDS + kk, LDS);
#pragma unroll
                    for (int j = 0; j < FN; j++) MM::load_b(fb[j], bs + j * MM::N * LDS + kk, LDS);
#pragma unroll
                    for (int i = 0; i < FM; i++)
#pragma unroll
                        for (int j = 0; j < FN; j++) MM::mma(acc[i][j], fa[i], fb[j]);
                }
                if (kt + 1 < nk) { /* the other stage's readers finished before the previous barrier */
                    ta_.store(As[cur ^ 1]);
                    tb_.store(Bs[cur ^ 1]);
                    __syncthreads();
                }
            }
            /* one MM::M-row slab of each wave's tile at a time through shared memory, then the epilogue */
            float* st = (float*)smem + w * (MM::M * TN);
#pragma unroll
            for (int i = 0; i < FM; i++) {
                __syncthreads();
#pragma unroll
                for (int j = 0; j < FN; j++)
#pragma unroll
                    for (int e = 0; e < MM::NC; e++) st[MM::c_row(lane, e) * TN + j * MM::N + MM::c_col(lane, e)] = acc[i][j].v[e];
                __syncthreads();
                ak_gemm_fp8_epi(st, TN, MM::M, TN, m0 + wm * TM + i * MM::M, n0 + wn * TN, lane, AK_WAVE, M, N, Db, ldd, Cb, ldc, bias,
                                Rb, ldr, sa, sb, alpha, beta, flags, ap);
            }
        }
    }
}
#define AK_GEMM_FP8(NAME, TA, TB, BM, BN, NT)                  \
    AK_KERNEL void __launch_bounds__(NT) NAME(AK_GEMM_FP8_PARAMS(unsigned char)) { \
        ak_gemm_fp8<TA, TB, BM, BN, NT>(AK_GEMM_FP8_ARGS);     \
    }

/* Kernels ak_gemm_fp8_<tile>_<A><B> (e4 = e4m3, e5 = e5m2; FNUZ or OCP by the target); the tiles are amdkit.h's
 * _ak_gemm_tiles rows fp8_l / fp8_s (a cpu test compares) */
// kernels: ak_gemm_fp8_l_e4e4 ak_gemm_fp8_l_e4e5 ak_gemm_fp8_l_e5e4 ak_gemm_fp8_l_e5e5
// kernels: ak_gemm_fp8_s_e4e4 ak_gemm_fp8_s_e4e5 ak_gemm_fp8_s_e5e4 ak_gemm_fp8_s_e5e5
AK_GEMM_FP8(ak_gemm_fp8_l_e4e4, 0, 0, 128, 128, 256)
AK_GEMM_FP8(ak_gemm_fp8_l_e4e5, 0, 1, 128, 128, 256)
AK_GEMM_FP8(ak_gemm_fp8_l_e5e4, 1, 0, 128, 128, 256)
AK_GEMM_FP8(ak_gemm_fp8_l_e5e5, 1, 1, 128, 128, 256)
AK_GEMM_FP8(ak_gemm_fp8_s_e4e4, 0, 0, 64, 64, 128)
AK_GEMM_FP8(ak_gemm_fp8_s_e4e5, 0, 1, 64, 64, 128)
AK_GEMM_FP8(ak_gemm_fp8_s_e5e4, 1, 0, 64, 64, 128)
AK_GEMM_FP8(ak_gemm_fp8_s_e5e5, 1, 1, 64, 64, 128)
