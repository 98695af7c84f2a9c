/* kernels/gemm_cdna.hip: the large-tile GEMM of CDNA3 / CDNA4 (gfx94x,
 * gfx950) for f16 / bf16 inputs, every layout of A and B as its own kernel:
 *   D = act(alpha op(A) op(B) + beta C + bias) + R, batched (strided).
 * Host wrapper, plan and CPU reference: ak_gemm in amdkit.h (>>impl:ops-gemm),
 * which picks this family on gfx942 / gfx950 for grids of at least one
 * 256 x 128 tile per compute unit when A and B have 16-byte aligned rows and
 * each operand's contiguous extent (k for a k-contiguous operand, m or n for
 * the other) is a multiple of 8; the other shapes run kernels/gemm.hip.
 *
 * Block tile 256 x 128, k step BK = 32 (gfx94x: two LDS stages of 24 KiB in
 * its 64 KiB) or 64 (gfx950: 2 x 48 KiB of its 160 KiB); 256 threads = 4
 * waves in 2 x 2, each 128 x 64 = 4 x 2 MFMA 32x32 blocks (128 fp32
 * accumulators a lane; gfx94x 32x32x8, gfx950 32x32x16). One wave per SIMD:
 * the LDS of one block and the 128 accumulators fill the CU.
 *
 * Main loop, one barrier per k tile: the 16-byte global loads of tile k + 1
 * go to registers first, then the MFMAs of tile k run from one LDS stage
 * (the loads still in flight), then tile k + 1 is written to the other stage
 * and the barrier ends the step. The loop body has no branch: full tiles
 * only, rows past M / N clamped to the last valid row or 8-group (their
 * results are never stored); a partial last k tile is peeled after the loop
 * with masked loads (chunks at k >= K read as zeros; K is a multiple of 8).
 *
 * LDS layout: every operand k-contiguous, rows of BK elements in 16-byte
 * chunks, chunk j of row r stored at j ^ ((r / (8 / CPR)) % CPR) (CPR chunks
 * a row): the 8 lanes of a ds_read_b128 phase (rows r .. r + 7, one chunk)
 * hit 8 different 16-byte bank groups. Fragment reads are ds_read_b128: lane
 * l reads 8 consecutive k of row l % 32, k chunk 2c + l / 32; on gfx950 that
 * is the 32x32x16 operand, on gfx94x two 32x32x8 operands (halves 0..3 and
 * 4..7). A and B use the same k order, so each k step's sum is the product.
 * A k-contiguous operand is written with ds_write_b128; an m- / n-contiguous
 * one is loaded as KQ rows of 8 elements per thread and transposed in
 * registers into 8 rows of KQ k (ds_write_b32 / b64 / b128 for KQ 2 / 4 / 8).
 *
 * Workgroup order: MI300X / MI355X deal workgroups round-robin over 8 XCDs
 * (each with its own L2); the tile index is remapped so that each XCD gets a
 * contiguous range of tiles, then tiles go in groups of 8 tile rows (all
 * column tiles of 8 row tiles before the next 8), so concurrent blocks on one
 * XCD share A rows and B columns in its L2.
 *
 * flags (as kernels/gemm.hip): bit 2 D / C / bias / R are f32, 3 read C,
 * 4 bias, 5 residual, bits 8.. the activation's AK_UNARY_* code. */

// >>host  the flag bits (the host builds them: amdkit.h _AK_GC_*)
#define AK_GC_OUT32 4
#define AK_GC_C 8
#define AK_GC_BIAS 16
#define AK_GC_RES 32
#define AK_GC_ACT_SHIFT 8
// <<host

#if defined(AK_AMD) && (defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__))
#define AK_GC_ON 1
#endif
#if defined(__gfx950__)
#define AK_GC_BK 64
#else
#define AK_GC_BK 32
#endif

/* One output element's epilogue (accumulator acc, before alpha). */
template <class DT>
AK_INLINE void ak_gc_out(int m, int n, float acc, void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias, const void* R,
                         ak_i64 ldr, float alpha, float beta, int flags, float ap) {
    typedef typename DT::T T;
    const bool o32 = (flags & AK_GC_OUT32) != 0;
    float v = alpha * acc;
    if (flags & AK_GC_C) v += beta * (o32 ? ((const float*)C)[(ak_i64)m * ldc + n] : DT::to(((const T*)C)[(ak_i64)m * ldc + n]));
    if (flags & AK_GC_BIAS) v += o32 ? ((const float*)bias)[n] : DT::to(((const T*)bias)[n]);
    const int act = flags >> AK_GC_ACT_SHIFT;
    if (act != AK_UNARY_NONE) v = ak_uop_apply(act, v, ap);
    if (flags & AK_GC_RES) v += o32 ? ((const float*)R)[(ak_i64)m * ldr + n] : DT::to(((const T*)R)[(ak_i64)m * ldr + n]);
    if (o32) ((float*)D)[(ak_i64)m * ldd + n] = v;
    else ((T*)D)[(ak_i64)m * ldd + n] = DT::from(v);
}
/* Element offset of 16-byte chunk j of row r in a stage of k-contiguous rows of BK elements (XOR-swizzled). */
template <int BK>
AK_INLINE int ak_gc_sw(int r, int j) {
    enum { CPR = BK / 8, RPL = 8 / CPR }; /* chunks a row, rows a 128-byte bank line */
    return r * BK + ((j ^ ((r / RPL) % CPR)) << 3);
}

/* One operand's tile (ROWS rows of m or n, BK of k) on its way from global
 * memory to LDS, 256 threads. KC: k-contiguous in memory (element (r, k) at
 * X[r ld + k]), else r-contiguous (X[k ld + r]). */
template <int ROWS, bool KC, int BK>
struct ak_gc_op {
    enum { NT = 256, CPR = BK / 8, NV = ROWS * BK / 8 / NT, GR = ROWS / 8 };
    static_assert(NV >= 1 && (KC || NV == 2 || NV == 4 || NV == 8), "gemm_cdna: tile / thread count mismatch");
    uint4 g[NV];
    /* MASK: chunks at k >= K read as zeros (the peeled last tile); rows past R clamped (never stored). R >= 8. */
    template <bool MASK, class T>
    AK_INLINE void load(const T* X, ak_i64 ld, int r0, int k0, int R, int K) {
        const int tid = (int)threadIdx.x;
#pragma unroll
        for (int i = 0; i < NV; i++) {
            int r, k;
            if (KC) {
                const int q = tid + i * NT;
                r = r0 + q / CPR; k = k0 + (q % CPR) * 8;
                r = r < R ? r : R - 1;
            } else {
                r = r0 + 8 * (tid % GR); k = k0 + NV * (tid / GR) + i;
                r = r + 8 <= R ? r : R - 8;
            }
            const bool ok = !MASK || k < K;
            const T* p = KC ? X + (ak_i64)r * ld + (ok ? k : 0) : X + (ak_i64)(ok ? k : 0) * ld + r;
            uint4 v = *(const uint4*)p;
            if (MASK && !ok) v = make_uint4(0u, 0u, 0u, 0u);
            g[i] = v;
        }
    }
    template <class T>
    AK_INLINE void store(T* S) const {
        const int tid = (int)threadIdx.x;
        if constexpr (KC) {
#pragma unroll
            for (int i = 0; i < NV; i++) {
                const int q = tid + i * NT;
                *(uint4*)(S + ak_gc_sw<BK>(q / CPR, q % CPR)) = g[i];
            }
        } else {
            /* g[i] = 8 rows at k NV (tid / GR) + i: write each row's NV consecutive k */
            const int r0 = 8 * (tid % GR), kq = NV * (tid / GR);
#pragma unroll
            for (int e = 0; e < 8; e++) {
                ak_u32 w[NV / 2];
#pragma unroll
                for (int h = 0; h < NV / 2; h++) {
                    const ak_u32 lo = ak_u16x8_word(g[2 * h], e >> 1), hi = ak_u16x8_word(g[2 * h + 1], e >> 1);
                    w[h] = (e & 1) ? ((lo >> 16) | (hi & 0xFFFF0000u)) : ((lo & 0xFFFFu) | (hi << 16));
                }
                T* p = S + ak_gc_sw<BK>(r0 + e, kq >> 3) + (kq & 7);
                if constexpr (NV == 2) *(ak_u32*)p = w[0];
                else if constexpr (NV == 4) *(uint2*)p = make_uint2(w[0], w[1]);
                else *(uint4*)p = make_uint4(w[0], w[1], w[2], w[3]);
            }
        }
    }
};

#if defined(AK_GC_ON)
/* 8 halves of a 16-byte LDS read as MFMA operands: gfx950 one 32x32x16
 * operand, gfx94x two 32x32x8 operands (h = 0: halves 0..3). */
template <class MM>
AK_INLINE void ak_gc_frag(typename MM::A& a, const uint4& v, int h) {
    if constexpr (MM::K == 16) { (void)h; __builtin_memcpy(&a.x, &v, 16); }
    else {
        const uint2 u = h ? make_uint2(v.z, v.w) : make_uint2(v.x, v.y);
        __builtin_memcpy(&a.x, &u, 8);
    }
}
#endif

template <class DT, bool TA, bool TB>
AK_INLINE void ak_gemm_cdna(const typename DT::T* A, const typename DT::T* B, const void* C, void* D, const void* bias,
                            const void* R, int M, int N, int K, ak_i64 lda, ak_i64 ldb, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr,
                            ak_i64 sA, ak_i64 sB, ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta, int flags,
                            float ap) {
#if defined(AK_GC_ON)
    typedef ak_mma<DT, false> MM;
    typedef typename DT::T T;
    enum { BM = 256, BN = 128, BK = AK_GC_BK, WTM = 128, WTN = 64, FM = WTM / 32, FN = WTN / 32, KPB = BK / 16,
           A_EL = BM * BK, B_EL = BN * BK, SMEM = 2 * (A_EL + B_EL) * 2 };
    static_assert(MM::M == 32 && MM::N == 32 && (MM::K == 8 || MM::K == 16), "gemm_cdna: MFMA 32x32x8 / 32x32x16 expected");
    static_assert(SMEM >= 4 * 32 * WTN * 4, "gemm_cdna: the epilogue slabs must fit the stages");
    __shared__ __attribute__((aligned(16))) unsigned char smem[SMEM];
    T* As = (T*)smem;               /* 2 stages of A_EL */
    T* Bs = (T*)smem + 2 * A_EL;    /* 2 stages of B_EL */
    const int lane = ak_lane(), w = ak_wave_id(), wm = w >> 1, wn = w & 1;
    /* tile of this block: XCD-contiguous ranges, then groups of 8 tile rows */
    const int gx = (int)gridDim.x, gy = (int)gridDim.y, nwg = gx * gy;
    int pid = (int)blockIdx.y * gx + (int)blockIdx.x;
    {
        const int per = nwg >> 3;
        if (pid < per * 8) pid = (pid & 7) * per + (pid >> 3);
    }
    const int grp = 8 * gx, first = (pid / grp) * 8, rows = gy - first < 8 ? gy - first : 8;
    const int m0 = (first + (pid % grp) % rows) * BM, n0 = ((pid % grp) / rows) * BN;
    const int o32 = (flags & AK_GC_OUT32) ? 1 : 0;
    const int nfull = K / BK, nt = (K + BK - 1) / BK;
    /* one batch entry a block (grid z = batch; the host keeps batch <= 65535): no outer loop out of which the
     * compiler would hoist the tail's masks and the epilogue's addresses into SGPRs live across the k loop */
    {
        const int b = (int)blockIdx.z;
        if (b >= batch) return;
        const T* Ab = A + (ak_i64)b * sA;
        const T* Bb = B + (ak_i64)b * sB;
        typename MM::C acc[FM][FN];
#pragma unroll
        for (int i = 0; i < FM; i++)
#pragma unroll
            for (int j = 0; j < FN; j++) MM::zero(acc[i][j]);
        ak_gc_op<BM, !TA, BK> ta;
        ak_gc_op<BN, TB, BK> tb;
        /* the MFMAs of the stage holding one k tile */
        auto step = [&](int cur) {
            const T* as = As + cur * A_EL;
            const T* bs = Bs + cur * B_EL;
#pragma unroll
            for (int c = 0; c < KPB; c++) {
                uint4 fa[FM], fb[FN];
#pragma unroll
                for (int i = 0; i < FM; i++) fa[i] = *(const uint4*)(as + ak_gc_sw<BK>(wm * WTM + i * 32 + lane % 32, 2 * c + lane / 32));
#pragma unroll
                for (int j = 0; j < FN; j++) fb[j] = *(const uint4*)(bs + ak_gc_sw<BK>(wn * WTN + j * 32 + lane % 32, 2 * c + lane / 32));
#pragma unroll
                for (int h = 0; h < 16 / MM::K; h++)
#pragma unroll
                    for (int i = 0; i < FM; i++)
#pragma unroll
                        for (int j = 0; j < FN; j++) {
                            typename MM::A xa;
                            typename MM::B xb;
                            ak_gc_frag<MM>(xa, fa[i], h);
                            ak_gc_frag<MM>(xb, fb[j], h);
                            MM::mma(acc[i][j], xa, xb);
                        }
            }
        };
        __syncthreads(); /* the previous batch entry's epilogue is done with the LDS */
        if (nfull > 0) { ta.template load<false>(Ab, lda, m0, 0, M, K); tb.template load<false>(Bb, ldb, n0, 0, N, K); }
        else { ta.template load<true>(Ab, lda, m0, 0, M, K); tb.template load<true>(Bb, ldb, n0, 0, N, K); }
        ta.store(As);
        tb.store(Bs);
        __syncthreads();
        int cur = 0;
        /* main loop: full tiles kt + 1 < nfull, no branch in the body */
        for (int kt = 0; kt + 1 < nfull; kt++) {
            ta.template load<false>(Ab, lda, m0, (kt + 1) * BK, M, K);
            tb.template load<false>(Bb, ldb, n0, (kt + 1) * BK, N, K);
            /* keep the loads above the MFMAs (the scheduler would sink them next to their LDS stores) */
            __builtin_amdgcn_sched_barrier(0);
            step(cur);
            /* and the register transposes of the m- / n-contiguous operands below them (their waits would stall the MFMAs) */
            __builtin_amdgcn_sched_barrier(0);
            /* the other stage was last read by step(kt - 1), finished before the previous barrier */
            ta.store(As + (cur ^ 1) * A_EL);
            tb.store(Bs + (cur ^ 1) * B_EL);
            __syncthreads();
            cur ^= 1;
        }
        if (nt > nfull && nfull > 0) { /* the partial last tile, masked */
            ta.template load<true>(Ab, lda, m0, nfull * BK, M, K);
            tb.template load<true>(Bb, ldb, n0, nfull * BK, N, K);
            step(cur);
            ta.store(As + (cur ^ 1) * A_EL);
            tb.store(Bs + (cur ^ 1) * B_EL);
            __syncthreads();
            cur ^= 1;
        }
        step(cur);
        /* epilogue: each wave stages one 32-row slab of its 128 x 64 tile at a time */
        void* Db = (void*)((char*)D + (ak_i64)b * sD * (o32 ? 4 : DT::SIZE));
        const void* Cb = C ? (const void*)((const char*)C + (ak_i64)b * sC * (o32 ? 4 : DT::SIZE)) : C;
        const void* Rb = R ? (const void*)((const char*)R + (ak_i64)b * sR * (o32 ? 4 : DT::SIZE)) : R;
        /* (one copy of the epilogue code, inlined: a call would cost SGPR spills and a stack frame) */
        float* st = (float*)smem + w * (32 * WTN);
#pragma unroll 1
        for (int i = 0; i < FM; i++) {
            __syncthreads();
#pragma unroll
            for (int ii = 0; ii < FM; ii++)
                if (ii == i) {
#pragma unroll
                    for (int j = 0; j < FN; j++)
#pragma unroll
                        for (int e = 0; e < 16; e++) st[MM::c_row(lane, e) * WTN + j * 32 + MM::c_col(lane, e)] = acc[ii][j].v[e];
                }
            __syncthreads();
            const int mb = m0 + wm * WTM + i * 32;
#pragma unroll 1
            for (int r = 0; r < 32 && mb + r < M; r++)
#pragma unroll 1
                for (int c = lane; c < WTN; c += 64) {
                    const int n = n0 + wn * WTN + c;
                    if (n < N) ak_gc_out<DT>(mb + r, n, st[r * WTN + c], Db, ldd, Cb, ldc, bias, Rb, ldr, alpha, beta, flags, ap);
                }
        }
    }
#else
    (void)A; (void)B; (void)C; (void)D; (void)bias; (void)R; (void)M; (void)N; (void)K; (void)lda; (void)ldb; (void)ldc;
    (void)ldd; (void)ldr; (void)sA; (void)sB; (void)sC; (void)sD; (void)sR; (void)batch; (void)alpha; (void)beta; (void)flags;
    (void)ap;
#endif
}

/* Kernels: ak_gemm_cdna_<a><b>_<dtype> (a: k when A is k-contiguous (stored
 * M x K), m when stored K x M; b: k when B is stored N x K, n when K x N).
 * Empty on every target but gfx94x / gfx950 (the host picks them there only). */
#define AK_GEMM_CDNA(NAME, DT, TA, TB)                                                                                    \
    AK_KERNEL void __launch_bounds__(256) NAME(const typename DT::T* A, const typename DT::T* B, const void* C, void* D,  \
                                               const void* bias, const void* R, int M, int N, int K, ak_i64 lda,          \
                                               ak_i64 ldb, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sA, ak_i64 sB,      \
                                               ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta,       \
                                               int flags, float ap) {                                                     \
        ak_gemm_cdna<DT, TA, TB>(A, B, C, D, bias, R, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, alpha, \
                                 beta, flags, ap);                                                                        \
    }

// kernels: ak_gemm_cdna_kk_f16 ak_gemm_cdna_kn_f16 ak_gemm_cdna_mk_f16 ak_gemm_cdna_mn_f16
// kernels: ak_gemm_cdna_kk_bf16 ak_gemm_cdna_kn_bf16 ak_gemm_cdna_mk_bf16 ak_gemm_cdna_mn_bf16
AK_GEMM_CDNA(ak_gemm_cdna_kk_f16, ak_f16_t, false, true)
AK_GEMM_CDNA(ak_gemm_cdna_kn_f16, ak_f16_t, false, false)
AK_GEMM_CDNA(ak_gemm_cdna_mk_f16, ak_f16_t, true, true)
AK_GEMM_CDNA(ak_gemm_cdna_mn_f16, ak_f16_t, true, false)
AK_GEMM_CDNA(ak_gemm_cdna_kk_bf16, ak_bf16_t, false, true)
AK_GEMM_CDNA(ak_gemm_cdna_kn_bf16, ak_bf16_t, false, false)
AK_GEMM_CDNA(ak_gemm_cdna_mk_bf16, ak_bf16_t, true, true)
AK_GEMM_CDNA(ak_gemm_cdna_mn_bf16, ak_bf16_t, true, false)
