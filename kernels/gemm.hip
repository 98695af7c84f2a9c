/* kernels/gemm.hip: D = act(alpha op(A) op(B) + beta C + bias) + R, batched
 * (strided), row-major, on the matrix cores (ak_mma: MFMA / WMMA / mma.sync;
 * NVIDIA 16-bit: the cp.async ring ak_gemm_ring) or on FMAs (SIMT). Host
 * wrapper, tile table (with reasons), CPU reference: ak_gemm in amdkit.h.
 * flags: bit 0 A transposed, 1 B transposed, 2 D/C/bias/R f32 (else the
 * input dtype), 3 read C, 4 bias, 5 residual, 6 / 7 A / B 16-byte vectors
 * allowed, bits 8..19 the AK_UNARY_* activation, 20-22 int8 scales / raw
 * sums, 23 D / C / R addressed transposed (a product run as C^T = B^T A^T:
 * ak_gemm_out). Batch b: A + b sA, ... */

// >>host  the flag bits (the host builds them: amdkit.h _AK_GF_*)
#define AK_GF_TA 1
#define AK_GF_TB 2
#define AK_GF_OUT32 4
#define AK_GF_C 8
#define AK_GF_BIAS 16
#define AK_GF_RES 32
#define AK_GF_VA 64
#define AK_GF_VB 128
#define AK_GF_ACT_SHIFT 8
#define AK_GF_SA_ROW (1 << 20) /* int8: scale_a per row (else one value, or none: NULL) */
#define AK_GF_SB_COL (1 << 21) /* int8: scale_b per column */
#define AK_GF_I32 (1 << 22)    /* int8: D is the raw int32 sum */
#define AK_GF_CT (1 << 23)     /* D / C / R stored transposed, the bias per m (a product run as C^T = B^T A^T) */
// <<host

/* Load a ROWS x BK tile of op(X) (rows = m for A, n for B) starting at
 * (r0, k0) into registers. kc: X is k-contiguous (element (r, k) at
 * X[r ld + k]), else r-contiguous (X[k ld + r]). */
template <class DT, int ROWS, int BK, int NT>
struct ak_gemm_tile {
    typedef typename DT::T T;
    enum { VPR = 8, NV = ROWS * BK / 8 / NT };
    T v[NV][8];
    /* 16 bytes <-> 8 halves or 4 floats */
    static AK_INLINE void unpack(const uint4 x, T* d) {
        const ak_u32 w[4] = { x.x, x.y, x.z, x.w };
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if constexpr (DT::SIZE == 2) { d[2 * i] = (T)(w[i] & 0xFFFFu); d[2 * i + 1] = (T)(w[i] >> 16); }
            else d[i] = ak_u2f(w[i]);
        }
    }
    static AK_INLINE uint4 pack(const T* s) {
        ak_u32 w[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if constexpr (DT::SIZE == 2) w[i] = ak_pack2(s[2 * i], s[2 * i + 1]);
            else w[i] = ak_f2u(s[i]);
        }
        uint4 r;
        r.x = w[0]; r.y = w[1]; r.z = w[2]; r.w = w[3];
        return r;
    }
    /* The 8 elements of chunk i of this thread: row r, k .. k + 7 (kc), else
     * rows r .. r + 7 at k. */
    static AK_INLINE void at(int i, bool kc, int& r, int& k) {
        const int q = (int)threadIdx.x + i * NT;
        if (kc) { r = q / (BK / 8); k = (q % (BK / 8)) * 8; }
        else { k = q / (ROWS / 8); r = (q % (ROWS / 8)) * 8; }
    }
    AK_INLINE void load(const T* X, ak_i64 ld, bool kc, bool vec, int r0, int k0, int R, int K) {
#pragma unroll
        for (int i = 0; i < NV; i++) {
            int r, k;
            at(i, kc, r, k);
            const int gr = r0 + r, gk = k0 + k;
            if (kc) {
                const T* p = X + (ak_i64)gr * ld + gk;
                if (vec && gr < R && gk + 8 <= K) {
                    unpack(*(const uint4*)p, &v[i][0]);
                    if (DT::SIZE == 4) unpack(*(const uint4*)(p + 4), &v[i][4]);
                } else {
#pragma unroll
                    for (int j = 0; j < 8; j++) v[i][j] = (gr < R && gk + j < K) ? p[j] : (T)0;
                }
            } else {
                const T* p = X + (ak_i64)gk * ld + gr;
                if (vec && gk < K && gr + 8 <= R) {
                    unpack(*(const uint4*)p, &v[i][0]);
                    if (DT::SIZE == 4) unpack(*(const uint4*)(p + 4), &v[i][4]);
                } else {
#pragma unroll
                    for (int j = 0; j < 8; j++) v[i][j] = (gk < K && gr + j < R) ? p[j] : (T)0;
                }
            }
        }
    }
    /* Store into shared: KMAJOR: S[r * LD + k], else S[k * LD + r]. */
    template <bool KMAJOR, int LD>
    AK_INLINE void store(T* S, bool kc) const {
#pragma unroll
        for (int i = 0; i < NV; i++) {
            int r, k;
            at(i, kc, r, k);
            if (kc == KMAJOR) {
                T* p = KMAJOR ? S + r * LD + k : S + k * LD + r;
                *(uint4*)p = pack(&v[i][0]);
                if (DT::SIZE == 4) *(uint4*)(p + 4) = pack(&v[i][4]);
            } else {
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    if (KMAJOR) S[(r + j) * LD + k] = v[i][j];
                    else S[(k + j) * LD + r] = v[i][j];
                }
            }
        }
    }
};

/* The epilogue of one output element (m, n) with accumulator value acc:
 * element (m, n) of D / C / R at m ld + n, or at n ld + m with AK_GF_CT (then
 * the bias is per m). */
template <class DT>
AK_INLINE void ak_gemm_out(int m, int n, float acc, void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias,
                           const void* R, ak_i64 ldr, float alpha, float beta, int flags, float ap) {
    typedef typename DT::T T;
    const bool o32 = (flags & AK_GF_OUT32) != 0, ct = (flags & AK_GF_CT) != 0;
    const ak_i64 r = ct ? n : m, c = ct ? m : n;
    float v = alpha * acc;
    if (flags & AK_GF_C) v += beta * (o32 ? ((const float*)C)[r * ldc + c] : DT::to(((const T*)C)[r * ldc + c]));
    if (flags & AK_GF_BIAS) v += o32 ? ((const float*)bias)[c] : DT::to(((const T*)bias)[c]);
    const int act = (flags >> AK_GF_ACT_SHIFT) & 0xFFF;
    if (act != AK_UNARY_NONE) v = ak_uop_apply(act, v, ap);
    if (flags & AK_GF_RES) v += o32 ? ((const float*)R)[r * ldr + c] : DT::to(((const T*)R)[r * ldr + c]);
    if (o32) ((float*)D)[r * ldd + c] = v;
    else ((T*)D)[r * ldd + c] = DT::from(v);
}

#define AK_GEMM_PARAMS_T(DT)                                                                                      \
    const typename DT::T *A, const typename DT::T *B, const void *C, void *D, const void *bias, const void *R, \
        int M, int N, int K, ak_i64 lda, ak_i64 ldb, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sA, ak_i64 sB,  \
        ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta, int flags, float ap
#define AK_GEMM_ARGS A, B, C, D, bias, R, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, alpha, beta, flags, ap

/* Per-batch pointer offset (output dtype for C/D/R). */
AK_INLINE const void* ak_gemm_off(const void* p, ak_i64 s, int b, int o32, int esz) {
    return p ? (const void*)((const char*)p + (ak_i64)b * s * (o32 ? 4 : esz)) : p;
}

/* Epilogue of a rows x cols chunk of accumulators staged in shared memory
 * (st[r * ldst + c] is output (m0 + r, n0 + c)), threads tid, tid + nthr, ...
 * of the caller's group; consecutive threads take consecutive columns
 * (coalesced C / R / D). Not inlined: one copy of the epilogue code per
 * kernel instead of one per accumulator register (compile time, code size). */
template <class DT>
__device__ __noinline__ void ak_gemm_epi(const float* st, int ldst, int rows, int cols, int m0, int n0, int tid, int nthr,
                                         int M, int N, void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias,
                                         const void* R, ak_i64 ldr, float alpha, float beta, int flags, float ap) {
#pragma unroll 1
    for (int r = 0; r < rows; r++) {
        const int m = m0 + r;
        if (m >= M) break;
#pragma unroll 1
        for (int c = tid; c < cols; c += nthr) {
            const int n = n0 + c;
            if (n < N) ak_gemm_out<DT>(m, n, st[r * ldst + c], D, ldd, C, ldc, bias, R, ldr, alpha, beta, flags, ap);
        }
    }
}

/* The k loop of the register-staged paths (matrix-core, SIMT) over one batch
 * entry: tile 0 of A (BM rows) and B (BN rows) into stage 0 of As / Bs, then
 * for each k tile kt: tile kt + 1 loaded into registers, step(kt & 1) on the
 * stage holding tile kt, tile kt + 1 stored into the other stage. KMAJOR /
 * LDA / LDB: the shared layout (ak_gemm_tile::store). */
template <bool KMAJOR, int LDA, int LDB, class DT, int BM, int BN, int BK, int NT, class SA, class SB, class STEP>
AK_INLINE void ak_gemm_kloop(const typename DT::T* Ab, const typename DT::T* Bb, ak_i64 lda, ak_i64 ldb, int flags, int m0,
                             int n0, int M, int N, int K, SA As, SB Bs, STEP&& step) {
    const bool kca = !(flags & AK_GF_TA), kcb = (flags & AK_GF_TB) != 0; /* k-contiguous in global memory */
    ak_gemm_tile<DT, BM, BK, NT> ta_;
    ak_gemm_tile<DT, BN, BK, NT> tb_;
    const int nk = (K + BK - 1) / BK;
    ta_.load(Ab, lda, kca, (flags & AK_GF_VA) != 0, m0, 0, M, K);
    tb_.load(Bb, ldb, kcb, (flags & AK_GF_VB) != 0, n0, 0, N, K);
    __syncthreads(); /* the previous batch's readers are done */
    ta_.template store<KMAJOR, LDA>(As[0], kca);
    tb_.template store<KMAJOR, LDB>(Bs[0], kcb);
    __syncthreads();
    for (int kt = 0; kt < nk; kt++) {
        const int cur = kt & 1;
        if (kt + 1 < nk) {
            ta_.load(Ab, lda, kca, (flags & AK_GF_VA) != 0, m0, (kt + 1) * BK, M, K);
            tb_.load(Bb, ldb, kcb, (flags & AK_GF_VB) != 0, n0, (kt + 1) * BK, N, K);
        }
        step(cur);
        if (kt + 1 < nk) {
            /* the other stage was last read by step(kt - 1), which every thread finished before the barrier
             * that ended iteration kt - 1: one barrier per k step */
            ta_.template store<KMAJOR, LDA>(As[cur ^ 1], kca);
            tb_.template store<KMAJOR, LDB>(Bs[cur ^ 1], kcb);
            __syncthreads();
        }
    }
}

/* ---- matrix-core path: NT threads, waves laid out WM x WN ---------------- */
template <class DT, bool FAST32, int BM, int BN, int BK, int NT>
AK_INLINE void ak_gemm_mma(AK_GEMM_PARAMS_T(DT), const int m0, const int n0) {
    typedef ak_mma<DT, FAST32> MM;
    typedef typename DT::T T;
    enum { NW = NT / AK_WAVE, WM = NW >= 2 ? 2 : 1, WN = NW / WM,
           TM = BM / WM, TN = BN / WN, FM = TM / MM::M, FN = TN / MM::N,
           PAD = DT::SIZE == 4 ? 4 : 8, LDS = BK + PAD };
    static_assert(FM >= 1 && FN >= 1 && TM % MM::M == 0 && TN % MM::N == 0, "gemm: tile too small for the instruction");
    static_assert(BK % MM::K == 0, "gemm: BK must be a multiple of the instruction's K");
    enum { TILE_BYTES = 2 * (BM + BN) * LDS * DT::SIZE, STAGE_BYTES = NW * MM::M * TN * 4,
           SMEM = TILE_BYTES > STAGE_BYTES ? TILE_BYTES : STAGE_BYTES };
    __shared__ __attribute__((aligned(16))) unsigned char smem[SMEM];
    T (*As)[BM * LDS] = (T (*)[BM * LDS])smem;
    T (*Bs)[BN * LDS] = (T (*)[BN * LDS])(smem + 2 * BM * LDS * DT::SIZE);
    const int lane = ak_lane(), w = ak_wave_id(), wm = w / WN, wn = w % WN;
    const int o32 = (flags & AK_GF_OUT32) ? 1 : 0;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        typename MM::C acc[FM][FN];
#pragma unroll
        for (int i = 0; i < FM; i++)
#pragma unroll
            for (int j = 0; j < FN; j++) MM::zero(acc[i][j]);
        ak_gemm_kloop<true, LDS, LDS, DT, BM, BN, BK, NT>(A + (ak_i64)b * sA, B + (ak_i64)b * sB, lda, ldb, flags, m0, n0, M, N, K,
                                                        As, Bs, [&](int cur) {
            const T* as = As[cur] + (wm * TM) * LDS;
            const T* bs = Bs[cur] + (wn * TN) * LDS;
#pragma unroll
            for (int kk = 0; kk < BK; kk += MM::K) {
                typename MM::A fa[FM];
                typename MM::B fb[FN];
#if defined(AK_MMA_SYNC)
                if constexpr (DT::SIZE == 2 && FN % 2 == 0) {
#pragma unroll
                    for (int i = 0; i < FM; i++) MM::load_a_ldsm(fa[i], as + i * MM::M * LDS + kk, LDS);
#pragma unroll
                    for (int j = 0; j < FN; j += 2) MM::load_b2_ldsm(fb[j], fb[j + 1], bs + j * MM::N * LDS + kk, LDS);
                } else
#endif
                {
#pragma unroll
                    for (int i = 0; i < FM; i++) MM::load_a(fa[i], as + i * MM::M * LDS + kk, LDS);
#pragma unroll
                    for (int j = 0; j < FN; j++) MM::load_b(fb[j], bs + j * MM::N * LDS + kk, LDS);
                }
#pragma unroll
                for (int i = 0; i < FM; i++)
#pragma unroll
                    for (int j = 0; j < FN; j++) MM::mma(acc[i][j], fa[i], fb[j]);
            }
        });
        void* Db = (void*)ak_gemm_off(D, sD, b, o32, DT::SIZE);
        const void* Cb = ak_gemm_off(C, sC, b, o32, DT::SIZE);
        const void* Rb = ak_gemm_off(R, sR, b, o32, DT::SIZE);
        /* stage one MM::M-row slab of each wave's tile at a time, then the epilogue */
        float* st = (float*)smem + w * (MM::M * TN);
#pragma unroll
        for (int i = 0; i < FM; i++) {
            __syncthreads();
#pragma unroll
            for (int j = 0; j < FN; j++)
#pragma unroll
                for (int e = 0; e < MM::NC; e++)
                    st[MM::c_row(lane, e) * TN + j * MM::N + MM::c_col(lane, e)] = acc[i][j].v[e];
            __syncthreads();
            ak_gemm_epi<DT>(st, TN, MM::M, TN, m0 + wm * TM + i * MM::M, n0 + wn * TN, lane, AK_WAVE, M, N, Db, ldd, Cb, ldc,
                            bias, Rb, ldr, alpha, beta, flags, ap);
        }
    }
}

/* ---- SIMT path: NT threads, each 8 x 8 outputs as 2 x 2 fragments of 4 x 4 -
 * Thread (tx, ty) owns rows ty 4 + {0..3}, TY 4 + ty 4 + {0..3} and columns
 * tx 4 + {0..3}, BN / 2 + tx 4 + {0..3}: per k 4 four-element vector reads
 * of the m- / n-contiguous slabs (no bank conflict) for 64 FMAs. Plain
 * D = alpha A B stored from registers; other epilogues via ak_gemm_epi. */
template <class DT>
AK_INLINE void ak_gemm_ld4s(const typename DT::T* p, float* d) {
    if constexpr (DT::SIZE == 4) {
        const float4 v = *(const float4*)p;
        d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w;
    } else {
        const uint2 v = *(const uint2*)p;
        const ak_u32 w[2] = { v.x, v.y };
#pragma unroll
        for (int i = 0; i < 2; i++) {
            d[2 * i] = DT::to((typename DT::T)(w[i] & 0xFFFFu));
            d[2 * i + 1] = DT::to((typename DT::T)(w[i] >> 16));
        }
    }
}
template <class DT, int BM, int BN, int BK, int NT>
AK_INLINE void ak_gemm_simt(AK_GEMM_PARAMS_T(DT), const int m0, const int n0) {
    typedef typename DT::T T;
    /* RM rows a thread: RM / 4 fragments HM apart (8 for 128 x 128 with 256 threads, 4 for 64 x 64 with 128) */
    enum { TX = BN / 8, TY = NT / TX, RM = BM / TY, FA = RM / 4, PADS = DT::SIZE == 2 ? 8 : 4, LDA_ = BM + PADS, LDB_ = BN + PADS,
           HM = TY * 4, HN = BN / 2 };
    static_assert(TX * TY == NT && RM * TY == BM && FA * 4 == RM && FA >= 1 && FA <= 2, "gemm simt: bad tile");
    enum { TILE_BYTES = 2 * BK * (LDA_ + LDB_) * DT::SIZE, STAGE_BYTES = TY * BN * 4,
           SMEM = TILE_BYTES > STAGE_BYTES ? TILE_BYTES : STAGE_BYTES };
    __shared__ __attribute__((aligned(16))) unsigned char smem[SMEM];
    T (*As)[BK * LDA_] = (T (*)[BK * LDA_])smem;
    T (*Bs)[BK * LDB_] = (T (*)[BK * LDB_])(smem + 2 * BK * LDA_ * DT::SIZE);
    const int tx = (int)threadIdx.x % TX, ty = (int)threadIdx.x / TX;
    const int o32 = (flags & AK_GF_OUT32) ? 1 : 0;
    const bool plain = !(flags & (AK_GF_C | AK_GF_BIAS | AK_GF_RES)) && (flags >> AK_GF_ACT_SHIFT) == AK_UNARY_NONE;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        float acc[RM][8];
#pragma unroll
        for (int i = 0; i < RM; i++)
#pragma unroll
            for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;
        ak_gemm_kloop<false, LDA_, LDB_, DT, BM, BN, BK, NT>(A + (ak_i64)b * sA, B + (ak_i64)b * sB, lda, ldb, flags, m0, n0, M, N,
                                                           K, As, Bs, [&](int cur) {
            const T* as = As[cur] + ty * 4;
            const T* bs = Bs[cur] + tx * 4;
#pragma unroll
            for (int kk = 0; kk < BK; kk++) {
                float a[RM], bv[8];
#pragma unroll
                for (int f = 0; f < FA; f++) ak_gemm_ld4s<DT>(as + kk * LDA_ + f * HM, a + 4 * f);
                ak_gemm_ld4s<DT>(bs + kk * LDB_, bv);
                ak_gemm_ld4s<DT>(bs + kk * LDB_ + HN, bv + 4);
#pragma unroll
                for (int i = 0; i < RM; i++)
#pragma unroll
                    for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
            }
        });
        void* Db = (void*)ak_gemm_off(D, sD, b, o32, DT::SIZE);
        const void* Cb = ak_gemm_off(C, sC, b, o32, DT::SIZE);
        const void* Rb = ak_gemm_off(R, sR, b, o32, DT::SIZE);
        if (plain) {
            /* D = alpha acc, from registers */
            const bool v4 = o32 && (ldd & 3) == 0 && ak_aligned16(Db);
#pragma unroll
            for (int i = 0; i < RM; i++) {
                const int m = m0 + (i >> 2) * HM + ty * 4 + (i & 3);
                if (m >= M) continue;
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int n = n0 + h * HN + tx * 4;
                    if (o32) {
                        float* d = (float*)Db + (ak_i64)m * ldd + n;
                        if (v4 && n + 4 <= N) {
                            *(float4*)d = make_float4(alpha * acc[i][4 * h], alpha * acc[i][4 * h + 1], alpha * acc[i][4 * h + 2],
                                                      alpha * acc[i][4 * h + 3]);
                        } else {
#pragma unroll
                            for (int j = 0; j < 4; j++)
                                if (n + j < N) d[j] = alpha * acc[i][4 * h + j];
                        }
                    } else {
                        T* d = (T*)Db + (ak_i64)m * ldd + n;
#pragma unroll
                        for (int j = 0; j < 4; j++)
                            if (n + j < N) d[j] = DT::from(alpha * acc[i][4 * h + j]);
                    }
                }
            }
            continue;
        }
        /* output rows one slot i at a time (row (i / 4) HM + ty 4 + i % 4 of every thread row ty): a TY x BN chunk
         * through shared memory, then the epilogue row by row */
        float* st = (float*)smem;
#pragma unroll
        for (int i = 0; i < RM; i++) {
            __syncthreads();
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int j = 0; j < 4; j++) st[ty * BN + h * HN + tx * 4 + j] = acc[i][4 * h + j];
            __syncthreads();
            for (int r = 0; r < TY; r++)
                ak_gemm_epi<DT>(st + r * BN, BN, 1, BN, m0 + (i >> 2) * HM + r * 4 + (i & 3), n0, (int)threadIdx.x, NT, M, N, Db, ldd,
                                Cb, ldc, bias, Rb, ldr, alpha, beta, flags, ap);
        }
    }
}

#if defined(AK_MMA_SYNC)
/* ---- NVIDIA sm_80+, f16 / bf16, 128 x 128: a 3-stage cp.async ring ---------
 * (amdkit.h's tile table). Tiles keep their global layout, 16-byte chunks
 * XOR-swizzled (ak_gr_sw): no bank conflict for copies or ldmatrix. Chunks
 * past the matrix or without 16-byte rows: plain loads. */
#define AK_GR_LDSM(X) asm volatile("ldmatrix.sync.aligned.m8n8.x4" X ".shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a))
template <bool TR>
AK_INLINE void ak_gr_ldsm(ak_u32 a, ak_u32* r) {
    if (TR) AK_GR_LDSM(".trans");
    else AK_GR_LDSM("");
}
/* chunk c of row r: KC 128 rows of 64 bytes, else 32 of 256 */
AK_INLINE void ak_gr_cp(ak_u32 d, const void* p) { asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(p) : "memory"); }
template <bool KC> AK_INLINE int ak_gr_sw(int r, int c) { return KC ? r * 64 + ((c ^ ((r >> 1) & 3)) << 4) : r * 256 + ((c ^ (r & 7)) << 4); }
/* a whole tile: chunks at d + i NT 16 from p + i RS ld */
template <class T, bool KC, int NT>
AK_INLINE void ak_gr_copy(ak_u32 d, const T* p, ak_i64 ld) {
#pragma unroll
    for (int i = 0; i < 512 / NT; i++) ak_gr_cp(d + i * NT * 16, p + i * (KC ? NT / 4 : NT / 16) * ld);
}
/* op(X)'s 128 x 32 tile at (r0, k0) into stage s (NT threads); KC: X[r ld + k]. A thread's
 * chunks are NT / 4 (KC) or NT / 16 rows apart: one pointer, swizzle unchanged */
template <class T, bool KC, int NT>
AK_INLINE void ak_gr_load(ak_u32 s, const T* X, ak_i64 ld, bool vec, int r0, int k0, int R, int K) {
    enum { RS = KC ? NT / 4 : NT / 16 };
    const int t = (int)threadIdx.x, r = KC ? t >> 2 : t >> 4, c = KC ? t & 3 : t & 15;
    const T* p = X + (KC ? (ak_i64)(r0 + r) * ld + k0 + 8 * c : (ak_i64)(k0 + r) * ld + r0 + 8 * c);
    const ak_u32 d = s + ak_gr_sw<KC>(r, c);
    if (vec && r0 + 128 <= R && k0 + 32 <= K) return ak_gr_copy<T, KC, NT>(d, p, ld);
#pragma unroll
    for (int i = 0; i < 512 / NT; i++) {
        const int gr = r0 + (KC ? r + i * RS : 8 * c), gk = k0 + (KC ? 8 * c : r + i * RS), n = KC ? (gr < R ? K - gk : 0) : (gk < K ? R - gr : 0);
        const T* q = p + i * RS * ld;
        if (vec && n >= 8) ak_gr_cp(d + i * NT * 16, q);
        else {
            ak_u32 v[4] = { 0u, 0u, 0u, 0u };
#pragma unroll
            for (int j = 0; j < 8; j++)
                if (j < n) v[j / 2] |= (ak_u32)((const ak_u16*)q)[j] << (16 * (j % 2));
            asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(d + i * NT * 16), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
        }
    }
}
/* k half h of a stage: A (4 x 16 rows) and B (NF x 8 columns) fragments by ldmatrix */
template <bool KCA, bool KCB, int NF, class MM>
AK_INLINE void ak_gr_frag(ak_u32 sa, ak_u32 sb, int h, typename MM::A* fa, typename MM::B* fb) {
#pragma unroll
    for (int i = 0; i < 4; i++) ak_gr_ldsm<!KCA>(KCA ? (sa ^ (h << 5)) + i * 1024 : (sa ^ (i << 5)) + h * 4096, fa[i].r);
#pragma unroll
    for (int j = 0; j < NF / 2; j++) {
        ak_u32 r[4];
        ak_gr_ldsm<!KCB>(KCB ? (sb ^ (h << 5)) + j * 1024 : (sb ^ (j << 5)) + h * 4096, r);
        fb[2 * j].r[0] = r[0]; fb[2 * j].r[1] = r[1]; fb[2 * j + 1].r[0] = r[2]; fb[2 * j + 1].r[1] = r[3];
    }
}
/* NT / 32 warps of 64 x TN; ldmatrix at a lane's base ^ / + constants */
template <class DT, bool KCA, bool KCB, int NT>
AK_INLINE void ak_gemm_ring(AK_GEMM_PARAMS_T(DT), const int m0, const int n0, unsigned char* smem) {
    typedef ak_mma<DT, false> MM;
    typedef typename DT::T T;
    enum { S = 3, TILE = 8192, TN = NT == 128 ? 64 : 32, NF = TN / 8, WN = 128 / TN, PIPE = NT == 128 };
    const int l = ak_lane(), w = ak_wave_id(), wm = w / WN, wn = w % WN, o32 = (flags & AK_GF_OUT32) ? 1 : 0;
    const ak_u32 sa0 = ak_smem_addr(smem), sb0 = sa0 + S * TILE;
    const ak_u32 ao = KCA ? ak_gr_sw<true>(wm * 64 + l % 16, l / 16) : ak_gr_sw<false>(l % 8 + 8 * (l / 16), wm * 8 + (l / 8) % 2);
    const ak_u32 bo = KCB ? ak_gr_sw<true>(wn * TN + l % 8 + 8 * (l / 16), (l / 8) % 2) : ak_gr_sw<false>(l % 8 + 8 * ((l / 8) % 2), wn * NF + l / 16);
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const T *Ab = A + (ak_i64)b * sA, *Bb = B + (ak_i64)b * sB;
        typename MM::C acc[4][NF];
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < NF; j++) MM::zero(acc[i][j]);
        const int nk = (K + 31) / 32;
        __syncthreads(); /* the last batch's epilogue is done */
        /* whole tiles (ak_gr_load's test): pointers kept */
        const int t = (int)threadIdx.x, ra = KCA ? t >> 2 : t >> 4, ca = KCA ? t & 3 : t & 15, rb = KCB ? t >> 2 : t >> 4,
                  cb = KCB ? t & 3 : t & 15;
        const T *pa = Ab + (KCA ? (ak_i64)(m0 + ra) * lda + 8 * ca : (ak_i64)ra * lda + m0 + 8 * ca),
                *pb = Bb + (KCB ? (ak_i64)(n0 + rb) * ldb + 8 * cb : (ak_i64)rb * ldb + n0 + 8 * cb);
        const ak_u32 da = sa0 + ak_gr_sw<KCA>(ra, ca), db = sb0 + ak_gr_sw<KCB>(rb, cb);
        const bool wa = (flags & AK_GF_VA) && m0 + 128 <= M, wb = (flags & AK_GF_VB) && n0 + 128 <= N;
        const int kw = K / 32; /* k tiles inside K */
        auto load = [&](int kk, int st) { /* mma_l: none kept */
            if (PIPE && wa && kk < kw) ak_gr_copy<T, KCA, NT>(da + st * TILE, pa + (ak_i64)kk * (KCA ? 32 : 32 * lda), lda);
            else ak_gr_load<T, KCA, NT>(sa0 + st * TILE, Ab, lda, (flags & AK_GF_VA) != 0, m0, kk * 32, M, K);
            if (PIPE && wb && kk < kw) ak_gr_copy<T, KCB, NT>(db + st * TILE, pb + (ak_i64)kk * (KCB ? 32 : 32 * ldb), ldb);
            else ak_gr_load<T, KCB, NT>(sb0 + st * TILE, Bb, ldb, (flags & AK_GF_VB) != 0, n0, kk * 32, N, K);
        };
#pragma unroll
        for (int p = 0; p < S - 1; p++) {
            if (p < nk) load(p, p);
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
        typename MM::A fa[2][4];
        typename MM::B fb[2][NF];
        asm volatile("cp.async.wait_group %0;" ::"n"(S - 2) : "memory");
        __syncthreads();
        ak_gr_frag<KCA, KCB, NF, MM>(sa0 + ao, sb0 + bo, 0, fa[0], fb[0]);
        /* PIPE: half 1 of tile kt read, tile kt + S - 1 requested, half 0's mma; the barrier (tile kt + 1 in,
         * stage kt read by all) between the mma halves keeps half 0 queued while warps wait there */
        for (int kt = 0, rd = 0, wr = S - 1; kt < nk; kt++) {
            const ak_u32 sa = sa0 + rd * TILE + ao, sb = sb0 + rd * TILE + bo;
            if constexpr (!PIPE) { /* mma_l (128 registers) */
                asm volatile("cp.async.wait_group %0;" ::"n"(S - 2) : "memory");
                __syncthreads();
                if (kt + S - 1 < nk) load(kt + S - 1, wr);
                ak_gr_frag<KCA, KCB, NF, MM>(sa, sb, 0, fa[0], fb[0]);
            }
            ak_gr_frag<KCA, KCB, NF, MM>(sa, sb, 1, fa[1], fb[1]);
            if (PIPE && kt + S - 1 < nk) load(kt + S - 1, wr);
            asm volatile("cp.async.commit_group;" ::: "memory");
            wr = wr == S - 1 ? 0 : wr + 1;
            rd = rd == S - 1 ? 0 : rd + 1;
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < NF; j++) MM::mma(acc[i][j], fa[0][i], fb[0][j]);
            if constexpr (PIPE) {
                asm volatile("cp.async.wait_group %0;" ::"n"(S - 2) : "memory");
                __syncthreads();
                ak_gr_frag<KCA, KCB, NF, MM>(sa0 + rd * TILE + ao, sb0 + rd * TILE + bo, 0, fa[0], fb[0]);
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < NF; j++) MM::mma(acc[i][j], fa[1][i], fb[1][j]);
        }
        asm volatile("cp.async.wait_group 0;" ::: "memory");
        void* Db = (void*)ak_gemm_off(D, sD, b, o32, DT::SIZE);
        const void *Cb = ak_gemm_off(C, sC, b, o32, DT::SIZE), *Rb = ak_gemm_off(R, sR, b, o32, DT::SIZE);
        if (!(flags & (AK_GF_C | AK_GF_BIAS | AK_GF_RES)) && (flags >> AK_GF_ACT_SHIFT) == AK_UNARY_NONE) {
            const bool pair = (ldd & 1) == 0 && (((ak_u64)Db) & (o32 ? 7u : 3u)) == 0;
#pragma unroll
            for (int e = 0; e < 8; e++) { /* fragments e / 2, half e % 2 */
                const int m = m0 + wm * 64 + e / 2 * 16 + l / 4 + 8 * (e % 2), n0w = n0 + wn * TN + 2 * (l % 4);
                if (m >= M) continue;
                float* df = (float*)Db + (ak_i64)m * ldd + n0w;
                T* dt = (T*)Db + (ak_i64)m * ldd + n0w;
#pragma unroll
                for (int j = 0; j < NF; j++) {
                    const int n = n0w + j * 8;
                    const float v0 = alpha * acc[e / 2][j].v[e % 2 * 2], v1 = alpha * acc[e / 2][j].v[e % 2 * 2 + 1];
                    if (o32 && pair && n + 1 < N) *(float2*)(df + j * 8) = make_float2(v0, v1);
                    else if (!o32 && pair && n + 1 < N) *(ak_u32*)(dt + j * 8) = ak_pack2(DT::from(v0), DT::from(v1));
                    else
                        for (int c = 0; c < 2 && n + c < N; c++) {
                            if (o32) df[j * 8 + c] = c ? v1 : v0;
                            else dt[j * 8 + c] = DT::from(c ? v1 : v0);
                        }
                }
            }
            continue;
        }
        float* st = (float*)smem + w * (16 * TN);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            __syncthreads();
#pragma unroll
            for (int j = 0; j < NF; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) st[MM::c_row(l, e) * TN + j * 8 + MM::c_col(l, e)] = acc[i][j].v[e];
            __syncthreads();
            ak_gemm_epi<DT>(st, TN, 16, TN, m0 + wm * 64 + i * 16, n0 + wn * TN, l, AK_WAVE, M, N, Db, ldd, Cb, ldc, bias, Rb, ldr, alpha,
                            beta, flags, ap);
        }
    }
}
template <class DT, int NT>
AK_INLINE void ak_gemm_ring_any(AK_GEMM_PARAMS_T(DT), const int m0, const int n0) {
    __shared__ __attribute__((aligned(128))) unsigned char smem[6 * 8192];
    if (!(flags & AK_GF_TA)) {
        if (flags & AK_GF_TB) ak_gemm_ring<DT, true, true, NT>(AK_GEMM_ARGS, m0, n0, smem);
        else ak_gemm_ring<DT, true, false, NT>(AK_GEMM_ARGS, m0, n0, smem);
    } else if (flags & AK_GF_TB) ak_gemm_ring<DT, false, true, NT>(AK_GEMM_ARGS, m0, n0, smem);
    else ak_gemm_ring<DT, false, false, NT>(AK_GEMM_ARGS, m0, n0, smem);
}
#endif /* AK_MMA_SYNC */

/* One BM x BN tile at (m0, n0) on the matrix cores where the target has the
 * instruction for DT, else on FMAs (mma_w: no FMA tile). */
template <class DT, bool FAST32, int BM, int BN, int BK, int NT>
AK_INLINE void ak_gemm_mma_or_simt(AK_GEMM_PARAMS_T(DT), int m0, int n0) {
#if defined(AK_MMA_SYNC)
    if constexpr (DT::SIZE == 2 && BM == 128 && BN == 128) ak_gemm_ring_any<DT, NT>(AK_GEMM_ARGS, m0, n0);
    else
#endif
    if constexpr (ak_mma<DT, FAST32>::OK) ak_gemm_mma<DT, FAST32, BM, BN, BK, NT>(AK_GEMM_ARGS, m0, n0);
    else if constexpr (BM * BN <= 64 * NT) ak_gemm_simt<DT, BM, BN, 16, NT>(AK_GEMM_ARGS, m0, n0);
}
/* Block -> tile (rows tm, columns tn) in groups of 8 tile rows (all column
 * tiles of 8 row tiles before the next 8): concurrent blocks share A rows and
 * B columns in L2 instead of sweeping all of B for every row of tiles. */
AK_INLINE void ak_gemm_tile_of_block(int& tm, int& tn) {
    const int gx = (int)gridDim.x, gy = (int)gridDim.y, pid = (int)blockIdx.y * gx + (int)blockIdx.x;
    const int per = 8 * gx, first = (pid / per) * 8, rows = gy - first < 8 ? gy - first : 8;
    tm = first + (pid % per) % rows;
    tn = (pid % per) / rows;
}
AK_INLINE int ak_gemm_tm(void) { int tm, tn; ak_gemm_tile_of_block(tm, tn); return tm; }
AK_INLINE int ak_gemm_tn(void) { int tm, tn; ak_gemm_tile_of_block(tm, tn); return tn; }
#define AK_GEMM_ORIGIN(BM, BN) ak_gemm_tm() * (BM), ak_gemm_tn() * (BN)

/* ---- Hopper TF32 (sm_90a; f16 / bf16: kernels/gemm_sm90.hip): wgmma from a
 * 4-stage cp.async ring, 128 x BN tile, k step 32, two consumer warpgroups
 * that also copy. A k-contiguous, B stored N x K, 16-byte bases / rows /
 * strides (host checks; cp.async zero-fills past edges). ak_sw128 tiles.
 * Prefetch 2 tiles ahead, one wgmma group in flight: the copy of kt + 2
 * reuses kt - 2's stage after wait<1> at kt - 1 and the barrier. Epilogue
 * via shared memory (stride BN + 4), ak_gemm_epi. Dynamic shared memory:
 * 4 (128 + BN) 128 + 1024 bytes. */
#if defined(AK_WGMMA)
template <class DT, int BN>
AK_INLINE void ak_gemm_wgmma_tile(AK_GEMM_PARAMS_T(DT)) {
    typedef typename DT::T T;
    /* EPC elements per 16-byte chunk; a tile row is 128 bytes = BK elements; KS k per wgmma */
    enum { EPC = 16 / DT::SIZE, BM = 128, BK = 8 * EPC, KS = DT::SIZE == 4 ? 8 : 16, S = 4, A_BYTES = BM * 128, B_BYTES = BN * 128,
           STAGE = A_BYTES + B_BYTES, NT = 256, LDST = BN + 4 };
    extern __shared__ unsigned char ak_gemm_dyn_smem[];
    unsigned char* sm = ak_gemm_dyn_smem + ((1024 - (ak_smem_addr(ak_gemm_dyn_smem) & 1023)) & 1023);
    const int tid = (int)threadIdx.x, wg = tid / 128;
    const int m0 = ak_gemm_tm() * BM, n0 = ak_gemm_tn() * BN;
    const int o32 = (flags & AK_GF_OUT32) ? 1 : 0;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const T* Ab = A + (ak_i64)b * sA;
        const T* Bb = B + (ak_i64)b * sB;
        float d[BN / 2];
#pragma unroll
        for (int r = 0; r < BN / 2; r++) d[r] = 0.0f;
        const int nk = (K + BK - 1) / BK;
        auto load = [&](int kt) {
            unsigned char* sa = sm + (kt % S) * STAGE;
            unsigned char* sb = sa + A_BYTES;
            const int k0 = kt * BK;
#pragma unroll
            for (int i = 0; i < BM * 8 / NT; i++) {
                const int q = tid + i * NT, r = q >> 3, c = q & 7, gr = m0 + r, gk = k0 + c * EPC;
                const int left = (K - gk) * DT::SIZE;
                const int bytes = (gr < M && gk < K) ? (left < 16 ? left : 16) : 0;
                ak_cp_async16(sa + ak_sw128(r, c), bytes ? (const void*)(Ab + (ak_i64)gr * lda + gk) : (const void*)Ab, bytes);
            }
#pragma unroll
            for (int i = 0; i < BN * 8 / NT; i++) {
                const int q = tid + i * NT, r = q >> 3, c = q & 7, gr = n0 + r, gk = k0 + c * EPC;
                const int left = (K - gk) * DT::SIZE;
                const int bytes = (gr < N && gk < K) ? (left < 16 ? left : 16) : 0;
                ak_cp_async16(sb + ak_sw128(r, c), bytes ? (const void*)(Bb + (ak_i64)gr * ldb + gk) : (const void*)Bb, bytes);
            }
        };
        __syncthreads(); /* the previous batch's epilogue is done with the shared memory */
        load(0);
        ak_cp_async_commit();
        if (nk > 1) load(1);
        ak_cp_async_commit();
        for (int kt = 0; kt < nk; kt++) {
            ak_cp_async_wait<1>();
            ak_fence_proxy_async();
            __syncthreads();
            if (kt + 2 < nk) load(kt + 2);
            ak_cp_async_commit();
            const unsigned char* sa = sm + (kt % S) * STAGE + wg * 64 * 128;
            const unsigned char* sb = sm + (kt % S) * STAGE + A_BYTES;
            ak_wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / KS; kk++) {
                const ak_u64 da = ak_wgmma_desc(sa + kk * 32), db = ak_wgmma_desc(sb + kk * 32);
                if constexpr (BN == 128) {
                    if constexpr (DT::SIZE == 4) ak_wgmma_tf32_n128(d, da, db, 1);
                    else if constexpr (ak_is_f16<DT>::value) ak_wgmma_f16_n128(d, da, db, 1);
                    else ak_wgmma_bf16_n128(d, da, db, 1);
                } else {
                    if constexpr (DT::SIZE == 4) ak_wgmma_tf32_n256(d, da, db, 1);
                    else if constexpr (ak_is_f16<DT>::value) ak_wgmma_f16_n256(d, da, db, 1);
                    else ak_wgmma_bf16_n256(d, da, db, 1);
                }
            }
            ak_wgmma_commit();
            ak_wgmma_wait<1>();
        }
        ak_wgmma_wait<0>();
        ak_cp_async_wait<0>();
        __syncthreads(); /* both warpgroups are done reading the stages */
        float* st = (float*)sm + wg * 64 * LDST;
#pragma unroll
        for (int r = 0; r < BN / 2; r++) st[ak_wgmma_row(tid, r) * LDST + ak_wgmma_col(tid, r)] = d[r];
        __syncthreads();
        ak_gemm_epi<DT>(st, LDST, 64, BN, m0 + 64 * wg, n0, tid % 128, 128, M, N, (void*)ak_gemm_off(D, sD, b, o32, DT::SIZE), ldd,
                        ak_gemm_off(C, sC, b, o32, DT::SIZE), ldc, bias, ak_gemm_off(R, sR, b, o32, DT::SIZE), ldr, alpha, beta,
                        flags, ap);
    }
}
#endif
/* The wgmma kernels; on every other target the same tile is computed by the
 * generic path, 128 columns at a time (the host only picks them on sm_90a). */
template <class DT, int BN>
AK_INLINE void ak_gemm_wgmma_or_generic(AK_GEMM_PARAMS_T(DT)) {
#if defined(AK_WGMMA)
    ak_gemm_wgmma_tile<DT, BN>(AK_GEMM_ARGS);
#else
    for (int h = 0; h < BN / 128; h++)
        ak_gemm_mma_or_simt<DT, DT::SIZE == 4, 128, 128, DT::SIZE == 4 ? 16 : 32, 256>(AK_GEMM_ARGS, ak_gemm_tm() * 128, ak_gemm_tn() * BN + h * 128);
#endif
}
#define AK_GEMM_WGMMA(NAME, DT, BN)                                       \
    AK_KERNEL void __launch_bounds__(256, 1) NAME(AK_GEMM_PARAMS_T(DT)) { \
        AK_KONLY(NAME) ak_gemm_wgmma_or_generic<DT, BN>(AK_GEMM_ARGS);                     \
    }

/* ---- decode shapes: M <= 16 rows, B stored N x K (k-contiguous) ---------
 * A read of B: each wave streams CW columns' rows of B with 16-byte loads
 * (512 / (8 AK_WAVE) in flight a lane per 512-wide k chunk) against the A
 * chunk staged as fp32 in shared memory, then a butterfly sum and the
 * epilogue. 256 threads = 16 columns a block whatever the wave size (8 waves
 * of 32 x 2 columns, 4 of 64 x 4). B 16-byte aligned, ldb and batch stride
 * multiples of 8 (host checks); K tail element-wise. */
template <class DT>
AK_INLINE void ak_gemm_skinny(AK_GEMM_PARAMS_T(DT)) {
    typedef typename DT::T T;
    enum { MM = 16, NW = 256 / AK_WAVE, CW = 16 / NW, KC = 512 };
    __shared__ __attribute__((aligned(16))) float As[MM * KC];
    const int lane = ak_lane(), w = ak_wave_id();
    const int n_base = (int)blockIdx.x * (NW * CW) + w * CW;
    const bool ta = flags & AK_GF_TA;
    const int o32 = (flags & AK_GF_OUT32) ? 1 : 0;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const T* Ab = A + (ak_i64)b * sA;
        const T* Bb = B + (ak_i64)b * sB;
        float acc[MM][CW];
#pragma unroll
        for (int m = 0; m < MM; m++)
#pragma unroll
            for (int c = 0; c < CW; c++) acc[m][c] = 0.0f;
        for (int k0 = 0; k0 < K; k0 += KC) {
            __syncthreads();
            for (int i = (int)threadIdx.x; i < M * KC; i += NW * AK_WAVE) {
                const int m = i / KC, k = k0 + i % KC;
                As[i] = k < K ? DT::to(ta ? Ab[(ak_i64)k * lda + m] : Ab[(ak_i64)m * lda + k]) : 0.0f;
            }
            __syncthreads();
#pragma unroll
            for (int c = 0; c < CW; c++) {
                const int n = n_base + c;
                if (n >= N) continue;
                const T* bp = Bb + (ak_i64)n * ldb;
#pragma unroll
                for (int q = 0; q < KC / (8 * AK_WAVE); q++) {
                    const int kk = (q * AK_WAVE + lane) * 8, gk = k0 + kk;
                    float bv[8];
                    if (gk + 8 <= K) DT::ld8(bp + gk, bv);
                    else {
#pragma unroll
                        for (int j = 0; j < 8; j++) bv[j] = gk + j < K ? DT::to(bp[gk + j]) : 0.0f;
                    }
#pragma unroll
                    for (int m = 0; m < MM; m++) {
                        if (m < M) {
                            const float4 a0 = *(const float4*)&As[m * KC + kk], a1 = *(const float4*)&As[m * KC + kk + 4];
                            acc[m][c] += a0.x * bv[0] + a0.y * bv[1] + a0.z * bv[2] + a0.w * bv[3] + a1.x * bv[4] + a1.y * bv[5] +
                                         a1.z * bv[6] + a1.w * bv[7];
                        }
                    }
                }
            }
        }
        /* sums over the lanes, staged, then the epilogue */
#pragma unroll
        for (int m = 0; m < MM; m++)
#pragma unroll
            for (int c = 0; c < CW; c++) acc[m][c] = ak_warp_sum(acc[m][c]);
        __syncthreads(); /* every warp is done with the A chunk: stage the sums there */
        float* st = As + w * (MM * CW);
        if (lane == 0) {
#pragma unroll
            for (int m = 0; m < MM; m++)
#pragma unroll
                for (int c = 0; c < CW; c++) st[m * CW + c] = acc[m][c];
        }
        __syncthreads();
        ak_gemm_epi<DT>(st, CW, M < MM ? M : MM, CW, 0, n_base, lane, AK_WAVE, M, N, (void*)ak_gemm_off(D, sD, b, o32, DT::SIZE), ldd,
                        ak_gemm_off(C, sC, b, o32, DT::SIZE), ldc, bias, ak_gemm_off(R, sR, b, o32, DT::SIZE), ldr, alpha, beta,
                        flags, ap);
    }
}
#define AK_GEMM_SKINNY(NAME, DT)                                       \
    AK_KERNEL void __launch_bounds__(256) NAME(AK_GEMM_PARAMS_T(DT)) { \
        AK_KONLY(NAME) ak_gemm_skinny<DT>(AK_GEMM_ARGS);                                \
    }

/* ---- split-K finish: D = epilogue(sum over the k slices of W) -----------
 * The SIMT tile with few output tiles and a long k runs as `splits` problems
 * over consecutive k slices, each writing its fp32 partial tile to slice s
 * of the workspace W (M x N each, packed); this pass adds the slices in
 * order 0, 1, ... from zero (the same sum on every run) and runs the
 * epilogue: rows over blockIdx.y, a column a thread over x (grid-strided
 * both ways), no division per element. */
template <class DT>
AK_INLINE void ak_gemm_splitk_fin(const float* W, int splits, const void* C, void* D, const void* bias, const void* R, int M, int N,
                                  ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, float alpha, float beta, int flags, float ap) {
    const ak_i64 per = (ak_i64)M * N;
    for (int m = (int)blockIdx.y; m < M; m += (int)gridDim.y) {
        const float* w = W + (ak_i64)m * N;
        for (int n = (int)(blockIdx.x * blockDim.x + threadIdx.x); n < N; n += (int)(gridDim.x * blockDim.x)) {
            float acc = 0.0f;
            for (int s = 0; s < splits; s++) acc += w[(ak_i64)s * per + n];
            ak_gemm_out<DT>(m, n, acc, D, ldd, C, ldc, bias, R, ldr, alpha, beta, flags, ap);
        }
    }
}
#define AK_GEMM_SPLITK_FIN(NAME, DT)                                                                                          \
    AK_KERNEL void __launch_bounds__(256) NAME(const float* W, int splits, const void* C, void* D, const void* bias,         \
                                               const void* R, int M, int N, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, float alpha, \
                                               float beta, int flags, float ap) {                                           \
        AK_KONLY(NAME) ak_gemm_splitk_fin<DT>(W, splits, C, D, bias, R, M, N, ldc, ldd, ldr, alpha, beta, flags, ap);                      \
    }

/* ---- int8: D = epilogue(sa sb (A B^T)) or the int32 sums, A m x k, B n x k -
 * ak_mma_i8: ak_mma for int8 fragments, int32 accumulators. Byte layouts are
 * the 16-bit ones with k doubled, so the 16-bit tile's 80-byte shared rows
 * serve unchanged: mma.sync m16n8k32 s8 (sm_80+); MFMA i32 32x32x8 / x16 /
 * x32 i8 (gfx908-90a / gfx94x / gfx950; ak_lay_mfma32x32x* with KL bytes);
 * WMMA i32 16x16x16 iu8 (gfx11: 16 bytes a lane, halves repeat; gfx12: 8,
 * lane group g k 8g..8g+7), signed, no clamp. Without any (OK = 0; the host
 * refuses int8) a plain loop per output. */
#if defined(AK_MMA_MFMA)
struct ak_mma_i8 : ak_mfma32_c {
#if defined(__gfx950__)
    enum { OK = 1, KL = 16 };
    struct A { ak_i32x4 x; };
#elif defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
    enum { OK = 1, KL = 8 };
    struct A { long x; };
#else
    enum { OK = 1, KL = 4 };
    struct A { int x; };
#endif
    enum { K = 2 * KL };
    struct C { ak_i32x16 v; };
    typedef A B;
    static AK_INLINE void zero(C& c) {
#pragma unroll
        for (int e = 0; e < 16; e++) c.v[e] = 0;
    }
    static AK_INLINE void load_a(A& a, const signed char* s, int ld) {
        const int l = ak_lane();
        a.x = *(const decltype(a.x)*)(s + (l % 32) * ld + KL * (l / 32));
    }
    static AK_INLINE void load_b(B& b, const signed char* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) {
#if defined(__gfx950__)
        c.v = __builtin_amdgcn_mfma_i32_32x32x32_i8(a.x, b.x, c.v, 0, 0, 0);
#elif defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
        c.v = __builtin_amdgcn_mfma_i32_32x32x16_i8(a.x, b.x, c.v, 0, 0, 0);
#else
        c.v = __builtin_amdgcn_mfma_i32_32x32x8i8(a.x, b.x, c.v, 0, 0, 0);
#endif
    }
};
#elif defined(AK_MMA_WMMA11) || defined(AK_MMA_WMMA12)
struct ak_mma_i8 : ak_wmma_c {
    enum { OK = 1 };
    struct A { ak_wmma_i8 x; };
    typedef A B;
    struct C { ak_i32x8 v; };
    static AK_INLINE void zero(C& c) {
#pragma unroll
        for (int e = 0; e < 8; e++) c.v[e] = 0;
    }
    static AK_INLINE void load_a(A& a, const signed char* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_wmma_i8*)(s + (l % 16) * ld + k0(l));
    }
    static AK_INLINE void load_b(B& b, const signed char* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) {
#if defined(AK_MMA_WMMA11)
        c.v = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, a.x, true, b.x, c.v, false);
#else
        c.v = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a.x, true, b.x, c.v, false);
#endif
    }
};
#elif defined(AK_MMA_SYNC)
struct ak_mma_i8 : ak_mma_sync_c {
    enum { OK = 1, K = 32 };
    struct A { ak_u32 r[4]; };
    struct B { ak_u32 r[2]; };
    struct C { int v[4]; };
    static AK_INLINE void zero(C& c) { c.v[0] = c.v[1] = c.v[2] = c.v[3] = 0; }
    static AK_INLINE void load_a(A& a, const signed char* s, int ld) {
        const int l = ak_lane();
        const ak_u32 p = ak_smem_addr(s + (l % 16) * ld + 16 * (l / 16));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a.r[0]), "=r"(a.r[1]), "=r"(a.r[2]), "=r"(a.r[3]) : "r"(p));
    }
    /* two B fragments at once: columns n 0..7 (b0) and 8..15 (b1) */
    static AK_INLINE void load_b2(B& b0, B& b1, const signed char* s, int ld) {
        const int l = ak_lane();
        const ak_u32 p = ak_smem_addr(s + ((l % 8) + 8 * (l / 16)) * ld + 16 * ((l / 8) % 2));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(b0.r[0]), "=r"(b0.r[1]), "=r"(b1.r[0]), "=r"(b1.r[1]) : "r"(p));
    }
    static AK_INLINE void mma(C& c, const A& a, const B& b) {
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+r"(c.v[0]), "+r"(c.v[1]), "+r"(c.v[2]), "+r"(c.v[3])
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]));
    }
};
#else
struct ak_mma_i8 { /* never called (OK = 0): the members let the kernel compile */
    enum { OK = 0, M = 16, N = 16, K = 32, NC = 1 };
    struct A { int x; };
    typedef A B;
    struct C { int v[1]; };
    static AK_INLINE void zero(C& c) { c.v[0] = 0; }
    static AK_INLINE void load_a(A& a, const signed char* s, int ld) { (void)ld; a.x = s[0]; }
    static AK_INLINE void load_b(B& b, const signed char* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v[0] += a.x * b.x; }
    static AK_INLINE int c_row(int lane, int e) { (void)e; return lane % 16; }
    static AK_INLINE int c_col(int lane, int e) { (void)lane; return e; }
};
#endif

#define AK_GEMM_PARAMS_I8(T)                                                                                        \
    const T *A, const T *B, const void *C, void *D, const void *bias, const void *R,          \
        const float *sa, const float *sb, int M, int N, int K, ak_i64 lda, ak_i64 ldb, ak_i64 ldc, ak_i64 ldd,   \
        ak_i64 ldr, ak_i64 sA, ak_i64 sB, ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta,    \
        int flags, float ap
#define AK_GEMM_ARGS_I8 A, B, C, D, bias, R, sa, sb, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, alpha, beta, flags, ap

/* Output (m, n) of the int32 sum acc: D = acc (AK_GF_I32), else the scales, then ak_gemm_out's epilogue
 * (OT: the 16-bit output type; f32 by AK_GF_OUT32). */
template <class OT>
AK_INLINE void ak_gemm_i8_out(int m, int n, int acc, void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias, const void* R,
                              ak_i64 ldr, const float* sa, const float* sb, float alpha, float beta, int flags, float ap) {
    if (flags & AK_GF_I32) {
        ((int*)D)[(ak_i64)m * ldd + n] = acc;
        return;
    }
    float v = (float)acc;
    if (sa) v *= sa[(flags & AK_GF_SA_ROW) ? m : 0];
    if (sb) v *= sb[(flags & AK_GF_SB_COL) ? n : 0];
    ak_gemm_out<OT>(m, n, v, D, ldd, C, ldc, bias, R, ldr, alpha, beta, flags & ((1 << 20) - 1), ap);
}

/* Epilogue of a rows x cols chunk of int32 sums staged in shared memory (st[r * ldst + c] is output (m0 + r,
 * n0 + c)), threads tid, tid + nthr, ... of the caller's group, consecutive threads on consecutive columns. Not
 * inlined (as ak_gemm_epi): the activation code once, outside the k loop's registers. */
template <class OT>
__device__ __noinline__ void ak_gemm_i8_epi(const int* st, int ldst, int rows, int cols, int m0, int n0, int tid, int nthr, int M, int N,
                                            void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias, const void* R, ak_i64 ldr,
                                            const float* sa, const float* sb, float alpha, float beta, int flags, float ap) {
#pragma unroll 1
    for (int r = 0; r < rows && m0 + r < M; r++)
#pragma unroll 1
        for (int c = tid; c < cols; c += nthr)
            if (n0 + c < N) ak_gemm_i8_out<OT>(m0 + r, n0 + c, st[r * ldst + c], D, ldd, C, ldc, bias, R, ldr, sa, sb, alpha, beta, flags, ap);
}

/* A ROWS x 64 byte tile at (r0, k0) of a k-contiguous matrix, 16 bytes a chunk (one load where vec and in
 * bounds, else byte by byte with zeros outside), to and from 80-byte shared rows. */
template <int ROWS, int NT>
struct ak_gemm_tile8 {
    enum { NV = ROWS * 4 / NT };
    uint4 v[NV];
    AK_INLINE void load(const signed char* X, ak_i64 ld, bool vec, int r0, int k0, int R, int K) {
#pragma unroll
        for (int i = 0; i < NV; i++) {
            const int q = (int)threadIdx.x + i * NT, gr = r0 + q / 4, gk = k0 + (q % 4) * 16;
            const signed char* p = X + (ak_i64)gr * ld + gk;
            if (vec && gr < R && gk + 16 <= K) v[i] = *(const uint4*)p;
            else {
                ak_u32 w[4] = { 0, 0, 0, 0 };
                if (gr < R)
                    for (int j = 0; j < 16 && gk + j < K; j++) w[j / 4] |= (ak_u32)(unsigned char)p[j] << (8 * (j % 4));
                v[i].x = w[0]; v[i].y = w[1]; v[i].z = w[2]; v[i].w = w[3];
            }
        }
    }
    AK_INLINE void store(signed char* S) const {
#pragma unroll
        for (int i = 0; i < NV; i++) {
            const int q = (int)threadIdx.x + i * NT;
            *(uint4*)(S + (q / 4) * 80 + (q % 4) * 16) = v[i];
        }
    }
};

template <class OT, int BM, int BN, int NT>
AK_INLINE void ak_gemm_i8(AK_GEMM_PARAMS_I8(signed char), const int m0, const int n0) {
    typedef ak_mma_i8 MM;
    enum { BK = 64, LDS = 80, NW = NT / AK_WAVE, WM = NW >= 2 ? 2 : 1, WN = NW / WM, TM = BM / WM, TN = BN / WN,
           FM = TM / MM::M, FN = TN / MM::N, TILE_BYTES = 2 * (BM + BN) * LDS, STAGE_BYTES = NW * MM::M * TN * 4,
           SMEM = TILE_BYTES > STAGE_BYTES ? TILE_BYTES : STAGE_BYTES };
    __shared__ __attribute__((aligned(16))) unsigned char smem[SMEM];
    const int o32 = (flags & (AK_GF_OUT32 | AK_GF_I32)) ? 1 : 0;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const signed char* Ab = A + (ak_i64)b * sA;
        const signed char* Bb = B + (ak_i64)b * sB;
        void* Db = (void*)ak_gemm_off(D, sD, b, o32, OT::SIZE);
        const void* Cb = ak_gemm_off(C, sC, b, o32, OT::SIZE);
        const void* Rb = ak_gemm_off(R, sR, b, o32, OT::SIZE);
        if constexpr (!MM::OK) {
            for (int t = (int)threadIdx.x; t < BM * BN; t += NT) {
                const int m = m0 + t / BN, n = n0 + t % BN;
                int acc = 0;
                if (m >= M || n >= N) continue;
                for (int k = 0; k < K; k++) acc += (int)Ab[(ak_i64)m * lda + k] * (int)Bb[(ak_i64)n * ldb + k];
                ak_gemm_i8_out<OT>(m, n, acc, Db, ldd, Cb, ldc, bias, Rb, ldr, sa, sb, alpha, beta, flags, ap);
            }
        } else {
            static_assert(FM >= 1 && FN >= 1 && TM % MM::M == 0 && TN % MM::N == 0 && BK % MM::K == 0, "gemm i8: bad tile");
            signed char (*As)[BM * LDS] = (signed char (*)[BM * LDS])smem;
            signed char (*Bs)[BN * LDS] = (signed char (*)[BN * LDS])(smem + 2 * BM * LDS);
            const int lane = ak_lane(), w = ak_wave_id(), wm = w / WN, wn = w % WN;
            typename MM::C acc[FM][FN];
#pragma unroll
            for (int i = 0; i < FM; i++)
#pragma unroll
                for (int j = 0; j < FN; j++) MM::zero(acc[i][j]);
            ak_gemm_tile8<BM, NT> ta_;
            ak_gemm_tile8<BN, NT> tb_;
            const bool va = (flags & AK_GF_VA) != 0, vb = (flags & AK_GF_VB) != 0;
            const int nk = (K + BK - 1) / BK;
            ta_.load(Ab, lda, va, m0, 0, M, K);
            tb_.load(Bb, ldb, vb, n0, 0, N, K);
            __syncthreads(); /* the previous batch's epilogue is done with the shared memory */
            ta_.store(As[0]);
            tb_.store(Bs[0]);
            __syncthreads();
            for (int kt = 0; kt < nk; kt++) {
                const int cur = kt & 1;
                if (kt + 1 < nk) {
                    ta_.load(Ab, lda, va, m0, (kt + 1) * BK, M, K);
                    tb_.load(Bb, ldb, vb, n0, (kt + 1) * BK, N, K);
                }
                const signed char* as = As[cur] + (wm * TM) * LDS;
                const signed char* bs = Bs[cur] + (wn * TN) * LDS;
#pragma unroll
                for (int kk = 0; kk < BK; kk += MM::K) {
                    typename MM::A fa[FM];
                    typename MM::B fb[FN];
#pragma unroll
                    for (int i = 0; i < FM; i++) MM::load_a(fa[i], as + i * MM::M * LDS + kk, LDS);
#if defined(AK_MMA_SYNC)
#pragma unroll
                    for (int j = 0; j < FN; j += 2) MM::load_b2(fb[j], fb[j + 1], bs + j * MM::N * LDS + kk, LDS);
#else
#pragma unroll
                    for (int j = 0; j < FN; j++) MM::load_b(fb[j], bs + j * MM::N * LDS + kk, LDS);
#endif
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
            int* st = (int*)smem + w * (MM::M * TN);
#pragma unroll
            for (int i = 0; i < FM; i++) {
                __syncthreads();
#pragma unroll
                for (int j = 0; j < FN; j++)
#pragma unroll
                    for (int e = 0; e < MM::NC; e++) st[MM::c_row(lane, e) * TN + j * MM::N + MM::c_col(lane, e)] = acc[i][j].v[e];
                __syncthreads();
                ak_gemm_i8_epi<OT>(st, TN, MM::M, TN, m0 + wm * TM + i * MM::M, n0 + wn * TN, lane, AK_WAVE, M, N, Db, ldd, Cb, ldc, bias, Rb,
                                   ldr, sa, sb, alpha, beta, flags, ap);
            }
        }
    }
}
#define AK_GEMM_I8(NAME, OT, BM, BN, BK, NT)                         \
    AK_KERNEL void __launch_bounds__(NT) NAME(AK_GEMM_PARAMS_I8(signed char)) {     \
        AK_KONLY(NAME) ak_gemm_i8<OT, BM, BN, NT>(AK_GEMM_ARGS_I8, AK_GEMM_ORIGIN(BM, BN)); \
    }

/* Kernels: ak_gemm_<path>_<tile>_<in>. The tile of each name is in
 * amdkit.h's _ak_gemm_tiles table (with the reason); a cpu test checks that
 * the numbers here and there agree. A matrix-core kernel on a target without
 * the instruction for its dtype runs the SIMT body (the host never picks it
 * there; it stays correct). */
#if defined(AK_MMA_SYNC) /* ak_gemm_ring: 128 registers, two blocks an SM */
#define AK_GEMM_MINB(DT, BM) , ((DT::SIZE == 2 && BM == 128) ? 2 : 1)
#else
#define AK_GEMM_MINB(DT, BM)
#endif
#define AK_GEMM_MMA(NAME, DT, FAST32, BM, BN, BK, NT)                 \
    AK_KERNEL void __launch_bounds__(NT AK_GEMM_MINB(DT, BM)) NAME(AK_GEMM_PARAMS_T(DT)) { \
        AK_KONLY(NAME) ak_gemm_mma_or_simt<DT, FAST32, BM, BN, BK, NT>(AK_GEMM_ARGS, AK_GEMM_ORIGIN(BM, BN)); \
    }
#define AK_GEMM_SIMT(NAME, DT, BM, BN, BK, NT)                        \
    AK_KERNEL void __launch_bounds__(NT) NAME(AK_GEMM_PARAMS_T(DT)) { \
        AK_KONLY(NAME) ak_gemm_simt<DT, BM, BN, BK, NT>(AK_GEMM_ARGS, AK_GEMM_ORIGIN(BM, BN)); \
    }

// kernels: ak_gemm_mma_l_f16 ak_gemm_mma_l_bf16 ak_gemm_mma_l_f32 ak_gemm_mma_l_x32
// kernels: ak_gemm_mma_w_f16 ak_gemm_mma_w_bf16 ak_gemm_mma_s_f16 ak_gemm_mma_s_bf16 ak_gemm_mma_s_f32 ak_gemm_mma_s_x32
// kernels: ak_gemm_simt_l_f32 ak_gemm_simt_l_f16 ak_gemm_simt_l_bf16
// kernels: ak_gemm_wgmma_n128_x32 ak_gemm_wgmma_n256_x32
// kernels: ak_gemm_skinny_f32 ak_gemm_skinny_f16 ak_gemm_skinny_bf16
// kernels: ak_gemm_splitk_fin_f32 ak_gemm_splitk_fin_f16 ak_gemm_splitk_fin_bf16
// kernels: ak_gemm_i8_l_f16 ak_gemm_i8_l_bf16 ak_gemm_i8_s_f16 ak_gemm_i8_s_bf16
AK_GEMM_MMA(ak_gemm_mma_l_f16, ak_f16_t, false, 128, 128, 32, 256)
AK_GEMM_MMA(ak_gemm_mma_l_bf16, ak_bf16_t, false, 128, 128, 32, 256)
AK_GEMM_MMA(ak_gemm_mma_l_f32, ak_f32_t, false, 128, 128, 16, 256)
AK_GEMM_MMA(ak_gemm_mma_l_x32, ak_f32_t, true, 128, 128, 16, 256)
AK_GEMM_MMA(ak_gemm_mma_w_f16, ak_f16_t, false, 128, 128, 32, 128)
AK_GEMM_MMA(ak_gemm_mma_w_bf16, ak_bf16_t, false, 128, 128, 32, 128)
AK_GEMM_MMA(ak_gemm_mma_s_f16, ak_f16_t, false, 64, 64, 32, 128)
AK_GEMM_MMA(ak_gemm_mma_s_bf16, ak_bf16_t, false, 64, 64, 32, 128)
AK_GEMM_MMA(ak_gemm_mma_s_f32, ak_f32_t, false, 64, 64, 16, 128)
AK_GEMM_MMA(ak_gemm_mma_s_x32, ak_f32_t, true, 64, 64, 16, 128)
AK_GEMM_SIMT(ak_gemm_simt_l_f32, ak_f32_t, 128, 128, 16, 256)
AK_GEMM_SIMT(ak_gemm_simt_l_f16, ak_f16_t, 128, 128, 16, 256)
AK_GEMM_SIMT(ak_gemm_simt_l_bf16, ak_bf16_t, 128, 128, 16, 256)
AK_GEMM_WGMMA(ak_gemm_wgmma_n128_x32, ak_f32_t, 128)
AK_GEMM_WGMMA(ak_gemm_wgmma_n256_x32, ak_f32_t, 256)
AK_GEMM_SKINNY(ak_gemm_skinny_f32, ak_f32_t)
AK_GEMM_SKINNY(ak_gemm_skinny_f16, ak_f16_t)
AK_GEMM_SKINNY(ak_gemm_skinny_bf16, ak_bf16_t)
AK_GEMM_SPLITK_FIN(ak_gemm_splitk_fin_f32, ak_f32_t)
AK_GEMM_SPLITK_FIN(ak_gemm_splitk_fin_f16, ak_f16_t)
AK_GEMM_SPLITK_FIN(ak_gemm_splitk_fin_bf16, ak_bf16_t)
/* int8 (k-contiguous A and B); the suffix is the 16-bit output type, f32 and i32 out take the f16 kernel */
AK_GEMM_I8(ak_gemm_i8_l_f16, ak_f16_t, 128, 128, 64, 256)
AK_GEMM_I8(ak_gemm_i8_l_bf16, ak_bf16_t, 128, 128, 64, 256)
AK_GEMM_I8(ak_gemm_i8_s_f16, ak_f16_t, 64, 64, 64, 128)
AK_GEMM_I8(ak_gemm_i8_s_bf16, ak_bf16_t, 64, 64, 64, 128)
