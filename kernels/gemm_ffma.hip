/* kernels/gemm_ffma.hip: exact f32 GEMM on plain FFMAs for NVIDIA (the
 * matrix cores round f32 to TF32; this is the path without that opt-in):
 *   D = act(alpha op(A) op(B) + beta C + bias) + R, batched (strided), f32.
 * Host wrapper, plan and CPU reference: ak_gemm in amdkit.h
 * (>>impl:ops-gemm), which picks this family for f32 inputs on NVIDIA rows
 * of the architecture table unless config.allow_tf32 sends them to the
 * matrix cores; the split-K finish pass of kernels/gemm.hip
 * (ak_gemm_splitk_fin_f32) adds the k slices of few-tile problems.
 *
 * Block tile (64 MF) x 128 x 8, 256 threads (8 warps of 4 x 8 threads); MF
 * 2 (128 x 128) or 4 (256 x 128). Each thread owns (4 MF) x 8 outputs as
 * MF x 2 fragments of 4 x 4: rows 64 f + ty 4 + {0..3} (f < MF), columns
 * tx 4 + {0..3} and 64 + tx 4 + {0..3} (tx = 8 (w % 2) + lane % 8,
 * ty = 4 (w / 2) + lane / 8): per k a warp reads 4 distinct 16-byte pieces of
 * each A fragment and 8 consecutive B pieces, one shared-memory wavefront per
 * 16-byte load, for 32 MF FFMAs a thread. op(A) and op(B) sit
 * k-major in shared memory ([k][m], [k][n], rows 4 floats past the tile: the
 * transposing stores of a k-contiguous operand hit 32 distinct banks),
 * double-buffered with one barrier per k step; each k step's global loads
 * (a 16-byte load a thread per operand and 128 rows where the flags allow and
 * the piece is in bounds, else element loads with zeros outside) are issued
 * before the products of the previous step. The layouts of A (TA) and B (TB) are
 * template parameters (one kernel each: no layout branches in the loop).
 * Registers: MF 2 capped at 128 on NVIDIA (two blocks share an SM), MF 4 up
 * to 255 (one block an SM; half the shared loads per FFMA). Epilogue: D =
 * alpha acc straight from registers (16-byte stores) for whole tiles; edge
 * tiles and C / bias / activation / residual take the tile through shared
 * memory in 64-row pieces, then one thread an output column.
 *
 * flags (the host builds them as for kernels/gemm.hip: amdkit.h _AK_GF_*):
 * bit 0 A transposed, 1 B transposed, 3 read C (beta != 0), 4 bias, 5
 * residual, 6 A 16-byte vectors allowed, 7 same for B, bits 8.. the
 * activation's AK_UNARY_* code. Batch b reads A + b sA, B + b sB, ...
 * (blockIdx.z strides over batches). */

// >>host  the flag bits (the host builds them: amdkit.h _AK_GF_*; the same values as kernels/gemm.hip)
#define AK_GFF_C 8
#define AK_GFF_BIAS 16
#define AK_GFF_RES 32
#define AK_GFF_VA 64
#define AK_GFF_VB 128
#define AK_GFF_ACT_SHIFT 8
// <<host

#define AK_GFF_PARAMS(T)                                                                                        \
    const T *A, const T *B, const void *C, void *D, const void *bias, const void *R, int M, int N,             \
        int K, ak_i64 lda, ak_i64 ldb, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sA, ak_i64 sB, ak_i64 sC,    \
        ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta, int flags, float ap

/* One operand's share of k step k0: 4 elements a thread, at row r0 + t / 2, k0 + 4 (t % 2) .. + 3 of a
 * k-contiguous matrix (KC), else at k0 + t / 32, rows r0 + 4 (t % 32) .. + 3: one 16-byte load when fast (the
 * caller's count of such steps, ak_gff_nfast), else element loads with zeros outside. p: this thread's element
 * at k0 (the caller advances it a k step at a time); the slow path recomputes the rest from the kernel's
 * arguments (no registers held across the loop). */
template <bool KC>
AK_INLINE void ak_gff_ld(const float* p, bool fast, int r0, int k0, int R, int K, float* v) {
    if (fast) {
        const float4 q = *(const float4*)p;
        v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
    } else {
        const int t = (int)threadIdx.x;
        const int r = KC ? r0 + (t >> 1) : r0 + (t & 31) * 4, k = KC ? k0 + (t & 1) * 4 : k0 + (t >> 5);
#pragma unroll
        for (int j = 0; j < 4; j++) v[j] = (KC ? (r < R && k + j < K) : (k < K && r + j < R)) ? p[j] : 0.0f;
    }
}
/* The k steps 0 .. n - 1 whose piece of this thread is a whole 16-byte load (vec: the operand allows them). */
template <bool KC>
AK_INLINE int ak_gff_nfast(bool vec, int r0, int R, int K) {
    const int t = (int)threadIdx.x;
    if (KC) {
        const int r = r0 + (t >> 1), kq = (t & 1) * 4;
        return vec && r < R && K >= kq + 4 ? (K - kq - 4) / 8 + 1 : 0;
    }
    return vec && r0 + (t & 31) * 4 + 4 <= R ? (K - (t >> 5) + 7) / 8 : 0;
}
template <bool KC>
AK_INLINE const float* ak_gff_p0(const float* X, ak_i64 ld, int r0) {
    const int t = (int)threadIdx.x;
    return KC ? X + (ak_i64)(r0 + (t >> 1)) * ld + (t & 1) * 4 : X + (ak_i64)(t >> 5) * ld + r0 + (t & 31) * 4;
}
template <bool KC, int LDS>
AK_INLINE void ak_gff_st(float* S, const float* v) {
    const int t = (int)threadIdx.x;
    if (KC) {
        const int r = t >> 1, k = (t & 1) * 4;
#pragma unroll
        for (int j = 0; j < 4; j++) S[(k + j) * LDS + r] = v[j];
    } else {
        *(float4*)(S + (t >> 5) * LDS + (t & 31) * 4) = make_float4(v[0], v[1], v[2], v[3]);
    }
}
template <bool TA, bool TB, int MF>
AK_INLINE void ak_gff(AK_GFF_PARAMS(float)) {
    enum { BM = 64 * MF, BN = 128, BK = 8, LDA = BM + 4, LDB = BN + 4, SA = BK * LDA, SB = BK * LDB, HALF = 64 * BN,
           SMEM = 2 * (SA + SB) > HALF ? 2 * (SA + SB) : HALF };
    __shared__ __attribute__((aligned(16))) float smem[SMEM];
    float* const As = smem;          /* [stage][k][m] */
    float* const Bs = smem + 2 * SA; /* [stage][k][n] */
    /* block -> tile in groups of 8 tile rows (all column tiles of 8 row tiles before the next 8): concurrent blocks
     * share A rows and B columns in L2 */
    const int gx = (int)gridDim.x, gy = (int)gridDim.y, pid = (int)blockIdx.y * gx + (int)blockIdx.x;
    const int per = 8 * gx, first = (pid / per) * 8, rows = gy - first < 8 ? gy - first : 8;
    const int m0 = (first + (pid % per) % rows) * BM, n0 = ((pid % per) / rows) * BN;
    const int lane = (int)threadIdx.x & 31, w = (int)threadIdx.x >> 5;
    const int tx = 8 * (w & 1) + (lane & 7), ty = 4 * (w >> 1) + (lane >> 3);
    const bool va = (flags & AK_GFF_VA) != 0, vb = (flags & AK_GFF_VB) != 0;
    const int nk = (K + BK - 1) / BK;
    /* A's rows in pieces of 128 (MF / 2 of them): piece h starts at row m0 + 128 h, ha elements on in memory */
    const ak_i64 ha = TA ? 128 : 128 * lda;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        float acc[4 * MF][8];
#pragma unroll
        for (int i = 0; i < 4 * MF; i++)
#pragma unroll
            for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;
        float ra[MF / 2][4], rb[4];
        int fa_n[MF / 2];
        const float* pa = ak_gff_p0<!TA>(A + (ak_i64)b * sA, lda, m0);
        const float* pb = ak_gff_p0<TB>(B + (ak_i64)b * sB, ldb, n0);
#pragma unroll
        for (int h = 0; h < MF / 2; h++) {
            fa_n[h] = ak_gff_nfast<!TA>(va, m0 + 128 * h, M, K);
            ak_gff_ld<!TA>(pa + h * ha, 0 < fa_n[h], m0 + 128 * h, 0, M, K, ra[h]);
        }
        const int fb_n = ak_gff_nfast<TB>(vb, n0, N, K);
        ak_gff_ld<TB>(pb, 0 < fb_n, n0, 0, N, K, rb);
        __syncthreads(); /* the previous batch entry's epilogue is done with the shared memory */
#pragma unroll
        for (int h = 0; h < MF / 2; h++) ak_gff_st<!TA, LDA>(As + 128 * h, ra[h]);
        ak_gff_st<TB, LDB>(Bs, rb);
        __syncthreads();
        /* fragments double-buffered in registers: step kk's products run while step kk + 1's are read (the last
         * step of a tile reads the first of the next, after the barrier that publishes it) */
        float4 fa[2][MF], fb[2][2];
#pragma unroll
        for (int f = 0; f < MF; f++) fa[0][f] = *(const float4*)(As + ty * 4 + 64 * f);
        fb[0][0] = *(const float4*)(Bs + tx * 4);
        fb[0][1] = *(const float4*)(Bs + tx * 4 + 64);
        for (int kt = 0; kt < nk; kt++) {
            const int cur = kt & 1;
            const bool more = kt + 1 < nk;
            if (more) {
                pa += TA ? BK * lda : BK;
                pb += TB ? BK : BK * ldb;
#pragma unroll
                for (int h = 0; h < MF / 2; h++) ak_gff_ld<!TA>(pa + h * ha, kt + 1 < fa_n[h], m0 + 128 * h, (kt + 1) * BK, M, K, ra[h]);
                ak_gff_ld<TB>(pb, kt + 1 < fb_n, n0, (kt + 1) * BK, N, K, rb);
            }
#pragma unroll
            for (int kk = 0; kk < BK; kk++) {
                if (kk == BK - 1 && more) { /* the other stage's readers finished before the previous barrier */
#pragma unroll
                    for (int h = 0; h < MF / 2; h++) ak_gff_st<!TA, LDA>(As + (cur ^ 1) * SA + 128 * h, ra[h]);
                    ak_gff_st<TB, LDB>(Bs + (cur ^ 1) * SB, rb);
                    __syncthreads();
                }
                if (kk < BK - 1 || more) {
                    const int st = kk == BK - 1 ? cur ^ 1 : cur, nx = (kk + 1) % BK;
                    const float* as = As + st * SA + nx * LDA + ty * 4;
                    const float* bs = Bs + st * SB + nx * LDB + tx * 4;
#pragma unroll
                    for (int f = 0; f < MF; f++) fa[(kk + 1) & 1][f] = *(const float4*)(as + 64 * f);
                    fb[(kk + 1) & 1][0] = *(const float4*)bs;
                    fb[(kk + 1) & 1][1] = *(const float4*)(bs + 64);
                }
                float av[4 * MF];
#pragma unroll
                for (int f = 0; f < MF; f++) {
                    const float4 a = fa[kk & 1][f];
                    av[4 * f] = a.x; av[4 * f + 1] = a.y; av[4 * f + 2] = a.z; av[4 * f + 3] = a.w;
                }
                const float4 b0 = fb[kk & 1][0], b1 = fb[kk & 1][1];
                const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
                for (int i = 0; i < 4 * MF; i++)
#pragma unroll
                    for (int j = 0; j < 8; j++) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
            }
        }
        float* Db = (float*)D + (ak_i64)b * sD;
        if (!(flags & (AK_GFF_C | AK_GFF_BIAS | AK_GFF_RES)) && (flags >> AK_GFF_ACT_SHIFT) == AK_UNARY_NONE && (ldd & 3) == 0 &&
            ak_aligned16(Db) && m0 + BM <= M && n0 + BN <= N) {
            /* D = alpha acc of a whole tile straight from registers, 16-byte stores */
            float* d = Db + (ak_i64)(m0 + ty * 4) * ldd + n0 + tx * 4;
#pragma unroll
            for (int i = 0; i < 4 * MF; i++)
#pragma unroll
                for (int h = 0; h < 2; h++)
                    *(float4*)(d + (ak_i64)((i >> 2) * 64 + (i & 3)) * ldd + h * 64) =
                        make_float4(alpha * acc[i][4 * h], alpha * acc[i][4 * h + 1], alpha * acc[i][4 * h + 2], alpha * acc[i][4 * h + 3]);
            continue;
        }
        /* edge tiles and the other epilogues: the tile through shared memory in 64-row pieces, then thread c on
         * column c of each row (coalesced C / R / D) */
        const float* Cb = (const float*)C + (ak_i64)b * sC;
        const float* Rb = (const float*)R + (ak_i64)b * sR;
        const int act = flags >> AK_GFF_ACT_SHIFT;
#pragma unroll
        for (int h = 0; h < MF; h++) {
            if (m0 + h * 64 >= M) break;
            __syncthreads();
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) smem[(ty * 4 + i) * BN + (j >> 2) * 64 + tx * 4 + (j & 3)] = acc[4 * h + i][j];
            __syncthreads();
            const int c = (int)threadIdx.x & (BN - 1), n = n0 + c;
            if (n < N) {
#pragma unroll 1
                for (int r = (int)threadIdx.x >> 7; r < 64; r += 2) {
                    const int m = m0 + h * 64 + r;
                    if (m >= M) break;
                    float v = alpha * smem[r * BN + c];
                    if (flags & AK_GFF_C) v += beta * Cb[(ak_i64)m * ldc + n];
                    if (flags & AK_GFF_BIAS) v += ((const float*)bias)[n];
                    if (act != AK_UNARY_NONE) v = ak_uop_apply(act, v, ap);
                    if (flags & AK_GFF_RES) v += Rb[(ak_i64)m * ldr + n];
                    Db[(ak_i64)m * ldd + n] = v;
                }
            }
        }
    }
}

/* AMD targets never run this family (exact f32 there is MFMA or the SIMT tile of kernels/gemm.hip; the planner
 * picks it on NVIDIA rows only): the kernels compile there to a plain loop per output of the block's tile, correct
 * and slow, without the register-blocked body (its register budget is NVIDIA's). */
template <bool TA, bool TB, int MF>
AK_INLINE void ak_gff_each(AK_GFF_PARAMS(float)) {
    const int m0 = (int)blockIdx.y * 64 * MF, n0 = (int)blockIdx.x * 128;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const float* Ab = A + (ak_i64)b * sA;
        const float* Bb = B + (ak_i64)b * sB;
        float* Db = (float*)D + (ak_i64)b * sD;
        for (int e = (int)threadIdx.x; e < 64 * MF * 128; e += (int)blockDim.x) {
            const int m = m0 + e / 128, n = n0 + e % 128;
            if (m >= M || n >= N) continue;
            float acc = 0.0f;
            for (int k = 0; k < K; k++)
                acc = fmaf(Ab[TA ? (ak_i64)k * lda + m : (ak_i64)m * lda + k], Bb[TB ? (ak_i64)n * ldb + k : (ak_i64)k * ldb + n], acc);
            float v = alpha * acc;
            if (flags & AK_GFF_C) v += beta * ((const float*)C)[(ak_i64)b * sC + (ak_i64)m * ldc + n];
            if (flags & AK_GFF_BIAS) v += ((const float*)bias)[n];
            if ((flags >> AK_GFF_ACT_SHIFT) != AK_UNARY_NONE) v = ak_uop_apply(flags >> AK_GFF_ACT_SHIFT, v, ap);
            if (flags & AK_GFF_RES) v += ((const float*)R)[(ak_i64)b * sR + (ak_i64)m * ldr + n];
            Db[(ak_i64)m * ldd + n] = v;
        }
    }
}

/* NVIDIA: the 128 x 128 tile (MF 2) at 128 registers, two blocks an SM; the 256 x 128 tile (MF 4: 16 x 8 outputs a
 * thread, half the shared loads per FFMA) at up to 255 registers, one block an SM */
#if defined(AK_NVIDIA)
#define AK_GFF_MINB(MF) (MF == 2 ? 2 : 1)
#define AK_GFF_BODY ak_gff
#else
#define AK_GFF_MINB(MF) 1
#define AK_GFF_BODY ak_gff_each
#endif
#define AK_GEMM_FFMA(NAME, TA, TB, MF)                                                            \
    AK_KERNEL void __launch_bounds__(256, AK_GFF_MINB(MF)) NAME(AK_GFF_PARAMS(float)) { AK_KONLY(NAME) { \
        AK_GFF_BODY<TA, TB, MF>(A, B, C, D, bias, R, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, \
                       alpha, beta, flags, ap);                                                    \
    } }

/* Kernels: ak_gemm_ffma_<A><B>_f32 (tile 128 x 128 x 8) and ak_gemm_ffmaw_<A><B>_f32 (256 x 128 x 8), A k (stored
 * m x k) or m (stored k x m), B n (stored k x n) or k (stored n x k), as the Hopper kernels name them; 256 threads
 * (amdkit.h's _ak_gemm_tiles rows). */
// kernels: ak_gemm_ffma_kn_f32 ak_gemm_ffma_mn_f32 ak_gemm_ffma_kk_f32 ak_gemm_ffma_mk_f32
// kernels: ak_gemm_ffmaw_kn_f32 ak_gemm_ffmaw_mn_f32 ak_gemm_ffmaw_kk_f32 ak_gemm_ffmaw_mk_f32
AK_GEMM_FFMA(ak_gemm_ffma_kn_f32, false, false, 2)
AK_GEMM_FFMA(ak_gemm_ffma_mn_f32, true, false, 2)
AK_GEMM_FFMA(ak_gemm_ffma_kk_f32, false, true, 2)
AK_GEMM_FFMA(ak_gemm_ffma_mk_f32, true, true, 2)
AK_GEMM_FFMA(ak_gemm_ffmaw_kn_f32, false, false, 4)
AK_GEMM_FFMA(ak_gemm_ffmaw_mn_f32, true, false, 4)
AK_GEMM_FFMA(ak_gemm_ffmaw_kk_f32, false, true, 4)
AK_GEMM_FFMA(ak_gemm_ffmaw_mk_f32, true, true, 4)
