// kernels/conv.hip - convolution forward over 1, 2 or 3 spatial dimensions
// (1-D and 2-D are 3-D with leading extents of 1, kernel 1, stride 1, no
// padding), standard or transposed, grouped, channels-first ([N][C][D][H][W])
// or channels-last ([N][D][H][W][C]), fused bias and activation. Host
// wrapper, plan and CPU reference: amdkit.h (>>impl:ops-conv): ak_conv.
//
// Implicit GEMM (ak_conv_igemm_*): per group g, rows m = (n, output
// position) (M = N x OD x OH x OW), columns = the group's output channels
// (Cog), k = (input channel of the group, kernel tap) (K = Cig x kD kH kW),
// the weight's own order. Nothing is materialised: the tile loader computes
// the im2col address of each A element (zero outside the input: padding),
// B is read from the weight as it is stored ([Cout][Cig][taps] standard,
// [Cin][Cog][taps] transposed). Transposed convolution is the same GEMM as an
// output-stationary gather: output o takes input i = (o + pad - tap dil) /
// stride from tap t when that division is exact and i is inside the input.
// With a stride > 1 (flag PHASE) the host launches one GEMM per sub-pixel
// phase (o mod stride in each dimension; blockIdx.z = group x phases +
// phase): a phase's outputs take only the taps with (o + pad - tap dil) a
// multiple of the stride, a fixed subset (ak_conv_phase), so each phase is
// a stride-1 transposed convolution over its own taps and nothing is
// computed to be thrown away.
// A k tile's decomposition (channel offset, tap offsets, weight offset) is
// computed once per tile into shared memory (a double-buffered table), each
// thread's row m is decomposed once per block.
//
// Block tile BM x BN x BK, NT = 256 threads: the thread of row m = tid % BM
// loads its BK / 2 elements of A (consecutive threads take consecutive
// output positions: coalesced in channels-first), B's BN x BK elements go
// k-fastest (coalesced along the standard weight's rows). Register-staged
// double buffer as the GEMM's. The product: ak_mma (MFMA / WMMA / mma.sync,
// f16 / bf16, tf32 where FAST32, exact f32 on CDNA MFMA) where the target
// has the instruction, else the SIMT FMA micro-tile. The accumulators go
// through shared memory so that the epilogue (bias, activation, store)
// walks output positions with consecutive threads.
//
// Depthwise (ak_conv_dw_*): groups == Cin, Cout a multiple of Cin (output
// channel c reads input channel c / (Cout / Cin)), standard only. Channels-
// first with stride 1 (ak_conv_dwv_*, below): 32-row tiles of 16-byte
// chunks, each thread 4 rows x 16 bytes of outputs. Other channels-first
// shapes where the window of a 64 x 32 output tile fits shared memory (flag
// DWT): the window staged once per kernel depth (fp32), each thread sums a
// strip of 8 outputs of a column. Otherwise one thread per output element,
// the taps in a loop (fp32 sums), neighbours share inputs through the caches.
//
// Index math: 32-bit inside one sample (the host keeps a sample of x and of
// y below 2^31 elements and M below 2^31), 64-bit for the sample offset.
//
// Vector loader (flag VEC; 16-bit dtypes on the matrix cores): x is
// channels-last (the caller's, or a channels-last copy the host made of a
// channels-first x), Cig and Cin multiples of 8, x 16-byte aligned, a gather
// without a stride test (standard, or transposed with stride 1). Then k is
// ordered (tap, channel): a k tile is one tap and BK consecutive channels
// (channels past Cig are zeros), so each thread moves 8 consecutive channels
// of one row with one 16-byte load, checks its row's bounds once per tile,
// and B's 8 values (one output channel, 8 input channels of the tap) go to
// shared memory as one 16-byte store. With flag WT the host passes the
// weight with the taps outermost: standard [taps][Cout][Cig] (B's 8 values
// are one 16-byte load), transposed [taps][Cin][Cog] (8 loads, each
// coalesced along the output channels).
//
// flags: bit 0 transposed, 1 channels-last (y; x too unless VEC), 2 bias,
// 3 VEC (x channels-last, vector loader), 4 WT (with VEC: the weight taps
// outermost), 5 PHASE (transposed, sub-pixel phases), 6 DWT (depthwise,
// channels-first: the tiled path), bits 8.. the activation's
// AK_UNARY_* code.
//
// kernels: ak_conv_igemm_mma_f16 ak_conv_igemm_mma_bf16 ak_conv_igemm_vec_f16 ak_conv_igemm_vec_bf16 ak_conv_igemm_mma_f32 ak_conv_igemm_mma_x32 ak_conv_igemm_simt_f32 ak_conv_igemm_simt_f16 ak_conv_igemm_simt_bf16 ak_conv_dw_f32 ak_conv_dw_f16 ak_conv_dw_bf16
// kernels: ak_conv_dwv_f32 ak_conv_dwv_f16 ak_conv_dwv_bf16
// kernels: ak_conv_igemm_wg128_f16 ak_conv_igemm_wg128_bf16 ak_conv_igemm_wg64_f16 ak_conv_igemm_wg64_bf16

// >>host  the flag bits (the host builds them: amdkit.h _AK_CVF_*)
#define AK_CVF_TRANS 1
#define AK_CVF_NHWC 2
#define AK_CVF_BIAS 4
#define AK_CVF_VEC 8
#define AK_CVF_WT 16
#define AK_CVF_PHASE 32
#define AK_CVF_DWT 64
#define AK_CONV_DW_TW 64   /* the tiled depthwise path: output tile columns (one a thread) */
#define AK_CONV_DW_R 8     /* output rows a thread (4 row groups: 32 rows a tile) */
#define AK_CONV_DW_XS 6144 /* input tile elements (fp32) in shared memory: the host's limit */
#define AK_CONV_DW_WS 256  /* taps in shared memory: the host's limit */
#define AK_CONV_DWV_R 4    /* stride-1 depthwise (ak_conv_dwv_*): output rows a thread (8 warps: 32-row tiles) */
#define AK_CONV_DWV_XR 48  /* its window rows in shared memory: the host's limit (32 + (kH - 1) dH) */
#define AK_CONV_DWV_KW 7   /* its widest kernel row (stride 1, dilation 1 across) */
#define AK_CVF_ACT_SHIFT 8
// <<host

#define AK_CONV_PARAMS                                                                                                \
    int flags, float ap, int Nb, int Cin, int Cout, int Cig, int Cog, int ID, int IH, int IW, int OD, int OH, int OW, \
        int kD, int kH, int kW, int sD, int sH, int sW, int pD, int pH, int pW, int dD, int dH, int dW
#define AK_CONV_ARGS \
    flags, ap, Nb, Cin, Cout, Cig, Cog, ID, IH, IW, OD, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW

/* One spatial dimension of a transposed convolution's sub-pixel phase r
 * (outputs o = r + s j, j < o_n): the taps t with (r + p - t d) a multiple
 * of s are t = t0 + q ts (q < k_n, ts = s / gcd(s, d)), and output j reads
 * input j + p_n - q d_n (d_n = d / gcd): a stride-1 transposed convolution
 * with padding p_n, dilation d_n and k_n taps. k_n = 0: no tap reaches the
 * phase (its outputs are the bias). */
struct ak_conv_phase {
    int o_n, k_n, p_n, d_n, t0, ts;
};
AK_INLINE ak_conv_phase ak_conv_phase_of(int r, int O, int k, int s, int p, int d) {
    ak_conv_phase f;
    int a = d, b = s;
    while (b) { const int t = a % b; a = b; b = t; }
    f.ts = s / a; f.d_n = d / a;
    f.o_n = r < O ? (O - r + s - 1) / s : 0;
    f.t0 = 0; f.k_n = 0; f.p_n = 0;
    for (int t = 0; t < f.ts && t < k; t++)
        if ((r + p - t * d) % s == 0) {
            f.t0 = t; f.k_n = (k - t + f.ts - 1) / f.ts; f.p_n = (r + p - t * d) / s;
            break;
        }
    return f;
}

/* One entry of the k table: x offset of the channel, tap offsets (times the
 * dilation), the weight offset of (channel, tap); td = -2^30: k past K. */
struct ak_conv_kent {
    int xoff, td, th, tw, woff;
};

/* The implicit-GEMM tile at (m0, co0) of group g. KMAJOR: shared tiles
 * k-contiguous (As[m * LDA + k], Bs[n * LDB + k], the matrix-core path),
 * else m / n-contiguous (As[k * LDA + m], the SIMT path). */
/* The block tile and its shared memory (the kernel declares it: one copy for both instantiations of
 * ak_conv_igemm behind a kernel name). */
/* NSTG: the shared tile stages; 3 in the cp.async kernels (CPA: ak_conv_igemm_vec_*, NVIDIA's matrix cores, 16-bit
 * dtypes: two tiles in flight while one is multiplied), else 2 (register-staged double buffer) */
#if defined(AK_MMA_SYNC)
#define AK_CONV_CPASYNC 1
#if !defined(AK_WGMMA)  // sm_90a: the prelude's (the same instructions)
AK_INLINE void ak_cp_async16(void* smem, const void* gmem, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(ak_smem_addr(smem)), "l"(gmem), "r"(src_bytes) : "memory");
}
AK_INLINE void ak_cp_async_commit(void) { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
AK_INLINE void ak_cp_async_wait(void) { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
#endif
#endif
template <class DT, bool MMA, bool CPA = false>
struct ak_conv_tile {
    enum { NT = 256, BM = 128, BN = 64, BK = DT::SIZE == 4 ? 16 : 32, PAD = DT::SIZE == 4 ? 4 : 8,
           LDA = MMA ? BK + PAD : BM + PAD, LDB = MMA ? BK + PAD : BN + PAD,
           ASZ = MMA ? BM * LDA : BK * LDA, BSZ = MMA ? BN * LDB : BK * LDB,
           NA = BM * BK / NT, NB = BN * BK / NT, LDST = BM + 1,
#if defined(AK_CONV_CPASYNC)
           NSTG = CPA && MMA && DT::SIZE == 2 ? 3 : 2,
#else
           NSTG = 2,
#endif
           TILE_BYTES = NSTG * (ASZ + BSZ) * DT::SIZE, STAGE_BYTES = BN * LDST * 4,
           SMEM = TILE_BYTES > STAGE_BYTES ? TILE_BYTES : STAGE_BYTES };
};

/* PH: the sub-pixel phase form (flag PHASE), a separate instantiation so that the other path reads the shape
 * parameters unmodified (constant operands, as before the phases existed). */
template <class DT, bool FAST32, bool MMA, bool PH, bool CPA>
AK_INLINE void ak_conv_igemm(unsigned char* smem, ak_conv_kent (*tab)[ak_conv_tile<DT, MMA>::BK], const typename DT::T* AK_RESTRICT x,
                             const typename DT::T* AK_RESTRICT w, const typename DT::T* AK_RESTRICT bias,
                             typename DT::T* AK_RESTRICT y, AK_CONV_PARAMS) {
    typedef typename DT::T T;
    typedef ak_mma<DT, FAST32> MM;
    typedef ak_conv_tile<DT, MMA, CPA> TL;
    enum { NT = TL::NT, BM = TL::BM, BN = TL::BN, BK = TL::BK, LDA = TL::LDA, LDB = TL::LDB, ASZ = TL::ASZ, BSZ = TL::BSZ,
           NA = TL::NA, NB = TL::NB, LDST = TL::LDST };
    static_assert(NT % BM == 0 && NT % BK == 0 && NA * NT == BM * BK && NB * NT == BN * BK, "conv: bad tile");
    T (*As)[ASZ] = (T (*)[ASZ])smem;
    T (*Bs)[BSZ] = (T (*)[BSZ])(smem + TL::NSTG * ASZ * DT::SIZE);
    const bool trans = (flags & AK_CVF_TRANS) != 0, cl = (flags & AK_CVF_NHWC) != 0;
    const int tid = (int)threadIdx.x;
    /* flag PHASE (transposed, a stride > 1): blockIdx.z = group x phases + phase; the block computes the
     * phase's outputs as a stride-1 transposed convolution over the phase's taps only (ak_conv_phase) */
    const int nph = PH ? sD * sH * sW : 1;
    const int g = (int)blockIdx.z / nph, ph = (int)blockIdx.z % nph, co0 = (int)blockIdx.y * BN;
    const int m0 = (int)blockIdx.x * BM;
    /* the full output and kernel (y and weight addressing), before the phase's extents replace them */
    const int fOH = OH, fOW = OW, fOP = OD * OH * OW, fkH = kH, fkW = kW, taps = kD * kH * kW;
    const int rD = ph / (sH * sW), rH = (ph / sW) % sH, rW = ph % sW, fsD = sD, fsH = sH, fsW = sW;
    int t0D = 0, t0H = 0, t0W = 0, tsD = 1, tsH = 1, tsW = 1;
    if constexpr (PH) {
        const ak_conv_phase fd = ak_conv_phase_of(rD, OD, kD, sD, pD, dD), fh = ak_conv_phase_of(rH, OH, kH, sH, pH, dH),
                            fw = ak_conv_phase_of(rW, OW, kW, sW, pW, dW);
        OD = fd.o_n; OH = fh.o_n; OW = fw.o_n;
        kD = fd.k_n; kH = fh.k_n; kW = fw.k_n;
        pD = fd.p_n; pH = fh.p_n; pW = fw.p_n;
        dD = fd.d_n; dH = fh.d_n; dW = fw.d_n;
        t0D = fd.t0; t0H = fh.t0; t0W = fw.t0; tsD = fd.ts; tsH = fh.ts; tsW = fw.ts;
        sD = sH = sW = 1;
    }
    /* the weight's tap of the phase's tap t (t ordered as the phase's kD x kH x kW) */
    auto wtap = [&](int t) {
        if constexpr (!PH) return t;
        const int qw = t % kW, qh = (t / kW) % kH, qd = t / (kW * kH);
        return ((t0D + qd * tsD) * fkH + t0H + qh * tsH) * fkW + t0W + qw * tsW;
    };
    /* y offset in a sample (in positions) of the phase's output position o */
    auto ypos = [&](int o) {
        if constexpr (!PH) return o;
        const int jw = o % OW, jh = (o / OW) % OH, jd = o / (OW * OH);
        return ((rD + fsD * jd) * fOH + rH + fsH * jh) * fOW + rW + fsW * jw;
    };
    const int OP = OD * OH * OW, M = Nb * OP;
    const int ptaps = kD * kH * kW, K = Cig * ptaps;
    const int xcs = cl ? 1 : ID * IH * IW, xps = cl ? Cin : 1; /* x strides of a channel, of a position */
    /* weight: group base, stride of an output channel, of an input channel (taps are contiguous) */
    const ak_i64 wg = (ak_i64)g * Cig * Cog * taps;
    const int wco = trans ? taps : Cig * taps, wci = trans ? Cog * taps : taps;
    /* this thread's row of A (fixed for the whole k loop) */
    const int am = m0 + tid % BM, ak0 = tid / BM;
    /* row base: forward o s - p, transposed o + p (taps then subtract); rows past M get a base no tap reaches */
    int bd = -(1 << 30), bh = 0, bw = 0, rowoff = 0;
    const T* xn = x;
    if (am < M) {
        const int n = am / OP, o = am % OP, ow = o % OW, oh = (o / OW) % OH, od = o / (OW * OH);
        xn = x + (ak_i64)n * Cin * ID * IH * IW + (ak_i64)g * Cig * xcs;
        if (trans) { bd = od + pD; bh = oh + pH; bw = ow + pW; }
        else { bd = od * sD - pD; bh = oh * sH - pH; bw = ow * sW - pW; }
        rowoff = ((bd * IH + bh) * IW + bw) * xps;
    }
    /* stride-1 transposed convolutions gather like standard ones (input o + p - tap dil) */
    const bool unit = !trans || (sD == 1 && sH == 1 && sW == 1);
    auto fill_tab = [&](int buf, int k0) {
        if (tid < BK) {
            const int k = k0 + tid;
            ak_conv_kent e;
            if (k < K) {
                const int ci = k / ptaps, t = k % ptaps, kw = t % kW, kh = (t / kW) % kH, kd = t / (kW * kH);
                const int sg = trans ? -1 : 1;
                e.td = sg * kd * dD; e.th = sg * kh * dH; e.tw = sg * kw * dW; e.woff = ci * wci + wtap(t);
                e.xoff = ci * xcs + ((e.td * IH + e.th) * IW + e.tw) * xps;   /* the tap's offset from the row base */
            } else {
                e.xoff = 0; e.td = -(1 << 30); e.th = 0; e.tw = 0; e.woff = 0;
            }
            tab[buf][tid] = e;
        }
    };
    T va[NA], vb[NB];
    auto load = [&](int buf, int k0) {
#pragma unroll
        for (int i = 0; i < NA; i++) {
            const ak_conv_kent e = tab[buf][ak0 + i * (NT / BM)];
            T v = (T)0;
            if (unit) {
                const int id = bd + e.td, ih = bh + e.th, iw = bw + e.tw;
                if ((unsigned)id < (unsigned)ID && (unsigned)ih < (unsigned)IH && (unsigned)iw < (unsigned)IW) v = xn[rowoff + e.xoff];
            } else if (e.td > -(1 << 29) && bd > -(1 << 29)) {
                const int td = bd + e.td, th = bh + e.th, tw = bw + e.tw;
                const int id = td / sD, ih = th / sH, iw = tw / sW;
                if (td >= 0 && th >= 0 && tw >= 0 && id * sD == td && ih * sH == th && iw * sW == tw && id < ID && ih < IH && iw < IW)
                    v = xn[e.xoff - ((e.td * IH + e.th) * IW + e.tw) * xps + ((id * IH + ih) * IW + iw) * xps];
            }
            va[i] = v;
        }
#pragma unroll
        for (int i = 0; i < NB; i++) {
            const int kk = tid % BK, n = tid / BK + i * (NT / BK), co = co0 + n;
            const ak_conv_kent e = tab[buf][kk];
            vb[i] = (co < Cog && e.td > -(1 << 29)) ? w[wg + (ak_i64)co * wco + e.woff] : (T)0;
        }
        (void)k0;
    };
    auto store = [&](int st) {
#pragma unroll
        for (int i = 0; i < NA; i++) {
            const int r = tid % BM, kk = ak0 + i * (NT / BM);
            if (MMA) As[st][r * LDA + kk] = va[i];
            else As[st][kk * LDA + r] = va[i];
        }
#pragma unroll
        for (int i = 0; i < NB; i++) {
            const int kk = tid % BK, n = tid / BK + i * (NT / BK);
            if (MMA) Bs[st][n * LDB + kk] = vb[i];
            else Bs[st][kk * LDB + n] = vb[i];
        }
    };
    /* accumulators: the matrix-core fragments or the SIMT micro-tile */
    enum { NW = NT / AK_WAVE, WM = NW >= 2 ? 2 : 1, WN = NW / WM, TMW = BM / WM, TNW = BN / WN,
           FM = MMA ? TMW / MM::M : 1, FN = MMA ? TNW / MM::N : 1 };
    enum { TX = BN / 8, TY = NT / TX, STM = BM / TY, STN = 8 };
    typename MM::C acc[FM][FN];
    float sacc[MMA ? 1 : STM][MMA ? 1 : STN];
    if constexpr (MMA) {
        static_assert(FM >= 1 && FN >= 1 && TMW % MM::M == 0 && TNW % MM::N == 0 && BK % MM::K == 0, "conv: tile too small");
#pragma unroll
        for (int i = 0; i < FM; i++)
#pragma unroll
            for (int j = 0; j < FN; j++) MM::zero(acc[i][j]);
    } else {
#pragma unroll
        for (int i = 0; i < STM; i++)
#pragma unroll
            for (int j = 0; j < STN; j++) sacc[i][j] = 0.0f;
    }
    const int lane = ak_lane(), wv = ak_wave_id(), wm = wv / WN, wn = wv % WN;
    const int tx = tid % TX, ty = tid / TX;
    auto step = [&](int cur) {
        if constexpr (MMA) {
            const T* as = As[cur] + (wm * TMW) * LDA;
            const T* bs = Bs[cur] + (wn * TNW) * LDB;
#pragma unroll
            for (int kk = 0; kk < BK; kk += MM::K) {
                typename MM::A fa[FM];
                typename MM::B fb[FN];
#if defined(AK_MMA_SYNC)
                if constexpr (DT::SIZE == 2 && FN % 2 == 0) {
#pragma unroll
                    for (int i = 0; i < FM; i++) MM::load_a_ldsm(fa[i], as + i * MM::M * LDA + kk, LDA);
#pragma unroll
                    for (int j = 0; j < FN; j += 2) MM::load_b2_ldsm(fb[j], fb[j + 1], bs + j * MM::N * LDB + kk, LDB);
                } else
#endif
                {
#pragma unroll
                    for (int i = 0; i < FM; i++) MM::load_a(fa[i], as + i * MM::M * LDA + kk, LDA);
#pragma unroll
                    for (int j = 0; j < FN; j++) MM::load_b(fb[j], bs + j * MM::N * LDB + kk, LDB);
                }
#pragma unroll
                for (int i = 0; i < FM; i++)
#pragma unroll
                    for (int j = 0; j < FN; j++) MM::mma(acc[i][j], fa[i], fb[j]);
            }
        } else {
            /* unrolled by 2 only: a full unroll lets the compiler hoist every shared load of the k tile (spills) */
#pragma unroll 2
            for (int kk = 0; kk < BK; kk++) {
                float a[STM], b[STN];
#pragma unroll
                for (int i = 0; i < STM; i++) a[i] = DT::to(As[cur][kk * LDA + ty + i * TY]);
#pragma unroll
                for (int j = 0; j < STN; j++) b[j] = DT::to(Bs[cur][kk * LDB + tx + j * TX]);
#pragma unroll
                for (int i = 0; i < STM; i++)
#pragma unroll
                    for (int j = 0; j < STN; j++) sacc[i][j] = fmaf(a[i], b[j], sacc[i][j]);
            }
        }
    };
    bool vec_done = false;
    if constexpr (MMA && DT::SIZE == 2) {
        if (flags & AK_CVF_VEC) {
#if defined(AK_CONV_CPASYNC)
          if constexpr (CPA) {
            /* the vector loader, NVIDIA (the ak_conv_igemm_vec_* kernels): k = (tap, channel), chunks of 8 channels copied by cp.async (zero-filled
             * outside the input and past Cig) into NSTG stages, one barrier a k tile; the (tap, channel chunk)
             * cursor of the next tile to copy advances by increments (no divisions in the loop); a row's x
             * address is its base + the tap's offset (linear in the position) */
            enum { CPR = BK / 8, NCA = BM * CPR / NT, RSTEP = NT / CPR, NS = TL::NSTG };
            static_assert(NCA * NT == BM * CPR && BN * CPR == NT && NS >= 3, "conv: bad vector tile");
            const int cc = (tid % CPR) * 8, r0 = tid / CPR;
            const T* xr[NCA];
            int rd[NCA], rh[NCA], rw[NCA], ro[NCA];
#pragma unroll
            for (int i = 0; i < NCA; i++) {
                const int m = m0 + r0 + i * RSTEP;
                rd[i] = -(1 << 30); rh[i] = 0; rw[i] = 0; ro[i] = 0; xr[i] = x;
                if (m < M) {
                    const int n = m / OP, o = m % OP, ow = o % OW, oh = (o / OW) % OH, od = o / (OW * OH);
                    xr[i] = x + (ak_i64)n * Cin * ID * IH * IW + g * Cig + cc;
                    if (trans) { rd[i] = od + pD; rh[i] = oh + pH; rw[i] = ow + pW; }
                    else { rd[i] = od * sD - pD; rh[i] = oh * sH - pH; rw[i] = ow * sW - pW; }
                    ro[i] = ((rd[i] * IH + rh[i]) * IW + rw[i]) * Cin;
                }
            }
            const int nct = (Cig + BK - 1) / BK, nkv = ptaps * nct, sg = trans ? -1 : 1;
            const int co = co0 + r0;
            const T* wrow = w + wg + (ak_i64)(co < Cog ? co : 0) * wco;
            /* B: copied (standard weight taps-outermost: 8 channels of a row are 16 contiguous bytes) or staged
             * in registers (transposed with WT: row tid % BN, channels (tid / BN) 8, each load coalesced along
             * the output channels; or a weight as the caller stores it) and stored after the tile's product */
            const bool wtt = trans && (flags & AK_CVF_WT) != 0, bcp = !trans && (flags & AK_CVF_WT) != 0;
            const int bn = wtt ? tid % BN : r0, bkc = wtt ? (tid / BN) * 8 : cc, bco = co0 + bn;
            uint4 rb;
            int qc = 0, qt = 0, qw = 0, qh = 0, qd = 0; /* the cursor: channel chunk, tap (kw fastest) */
            auto issue = [&](int st) {
                const int td = sg * qd * dD, th = sg * qh * dH, tw = sg * qw * dW, wt = wtap(qt);
                const int xo = ((td * IH + th) * IW + tw) * Cin + qc;
                const bool cok = qc + cc < Cig;
#pragma unroll
                for (int i = 0; i < NCA; i++) {
                    const int id = rd[i] + td, ih = rh[i] + th, iw = rw[i] + tw;
                    const bool ok = cok && (unsigned)id < (unsigned)ID && (unsigned)ih < (unsigned)IH && (unsigned)iw < (unsigned)IW;
                    ak_cp_async16(&As[st][(r0 + i * RSTEP) * LDA + cc], ok ? (const void*)(xr[i] + (ro[i] + xo)) : (const void*)x, ok ? 16 : 0);
                }
                if (bcp) {
                    const bool ok = cok && co < Cog;
                    ak_cp_async16(&Bs[st][bn * LDB + bkc], ok ? (const void*)(w + ((ak_i64)wt * Cout + g * Cog + co) * Cig + qc + cc) : (const void*)w,
                                  ok ? 16 : 0);
                } else {
                    rb.x = rb.y = rb.z = rb.w = 0u;
                    if (wtt) {
                        if (qc + bkc < Cig && bco < Cog) {
                            const T* wp = w + ((ak_i64)wt * Cin + g * Cig + qc + bkc) * Cog + bco;
                            ak_u32 u[4];
#pragma unroll
                            for (int j = 0; j < 4; j++) u[j] = ak_pack2(wp[(2 * j) * Cog], wp[(2 * j + 1) * Cog]);
                            rb.x = u[0]; rb.y = u[1]; rb.z = u[2]; rb.w = u[3];
                        }
                    } else if (cok && co < Cog) {
                        const T* wp = wrow + (qc + cc) * wci + wt;
                        ak_u32 u[4];
#pragma unroll
                        for (int j = 0; j < 4; j++) u[j] = ak_pack2(wp[(2 * j) * wci], wp[(2 * j + 1) * wci]);
                        rb.x = u[0]; rb.y = u[1]; rb.z = u[2]; rb.w = u[3];
                    }
                }
                qc += BK;
                if (qc >= Cig) {
                    qc = 0; qt++;
                    if (++qw == kW) { qw = 0; if (++qh == kH) { qh = 0; qd++; } }
                }
            };
#pragma unroll
            for (int s = 0; s < NS - 1; s++) {
                if (s < nkv) {
                    issue(s);
                    if (!bcp) *(uint4*)&Bs[s][bn * LDB + bkc] = rb;
                }
                ak_cp_async_commit();
            }
            for (int kt = 0; kt < nkv; kt++) {
                ak_cp_async_wait<NS - 2>(); /* this thread's copies of tile kt landed */
                __syncthreads();            /* everyone's; and stage (kt - 1) % NS is free */
                const int nx = kt + NS - 1, sn = nx % NS;
                if (nx < nkv) issue(sn);
                ak_cp_async_commit();
                step(kt % NS);
                if (nx < nkv && !bcp) *(uint4*)&Bs[sn][bn * LDB + bkc] = rb;
            }
            ak_cp_async_wait<0>();
            vec_done = true;
          } else
#endif
          {
            /* the vector loader: k = (tap, channel), chunks of 8 channels */
            enum { CPR = BK / 8, NCA = BM * CPR / NT, RSTEP = NT / CPR };
            static_assert(NCA * NT == BM * CPR && BN * CPR == NT, "conv: bad vector tile");
            const int cc = (tid % CPR) * 8, r0 = tid / CPR;
            const T* xr[NCA];
            int rd[NCA], rh[NCA], rw[NCA];
#pragma unroll
            for (int i = 0; i < NCA; i++) {
                const int m = m0 + r0 + i * RSTEP;
                rd[i] = -(1 << 30); rh[i] = 0; rw[i] = 0; xr[i] = x;
                if (m < M) {
                    const int n = m / OP, o = m % OP, ow = o % OW, oh = (o / OW) % OH, od = o / (OW * OH);
                    xr[i] = x + (ak_i64)n * Cin * ID * IH * IW + g * Cig + cc;
                    if (trans) { rd[i] = od + pD; rh[i] = oh + pH; rw[i] = ow + pW; }
                    else { rd[i] = od * sD - pD; rh[i] = oh * sH - pH; rw[i] = ow * sW - pW; }
                }
            }
            const int nct = (Cig + BK - 1) / BK, nkv = ptaps * nct, sg = trans ? -1 : 1;
            const int co = co0 + r0;
            const T* wrow = w + wg + (ak_i64)(co < Cog ? co : 0) * wco;
            /* B's thread mapping: row r0, channels cc; transposed with WT: row tid % BN, channels (tid / BN) 8 */
            const bool wtt = trans && (flags & AK_CVF_WT) != 0;
            const int bn = wtt ? tid % BN : r0, bkc = wtt ? (tid / BN) * 8 : cc, bco = co0 + bn;
            uint4 ra[NCA], rb;
            auto vload = [&](int kt) {
                const int t = kt / nct, c0 = (kt - t * nct) * BK;
                const int kw = t % kW, kh = (t / kW) % kH, kd = t / (kW * kH);
                const int td = sg * kd * dD, th = sg * kh * dH, tw = sg * kw * dW, wt = wtap(t);
                const bool cok = c0 + cc < Cig;
#pragma unroll
                for (int i = 0; i < NCA; i++) {
                    const int id = rd[i] + td, ih = rh[i] + th, iw = rw[i] + tw;
                    ra[i].x = ra[i].y = ra[i].z = ra[i].w = 0u;
                    if (cok && (unsigned)id < (unsigned)ID && (unsigned)ih < (unsigned)IH && (unsigned)iw < (unsigned)IW)
                        ra[i] = *(const uint4*)(xr[i] + ((id * IH + ih) * IW + iw) * Cin + c0);
                }
                rb.x = rb.y = rb.z = rb.w = 0u;
                if (wtt) {
                    /* [taps][Cin][Cog]: 8 input channels of output channel bco, each load coalesced along bco */
                    if (c0 + bkc < Cig && bco < Cog) {
                        const T* wp = w + ((ak_i64)wt * Cin + g * Cig + c0 + bkc) * Cog + bco;
                        ak_u32 u[4];
#pragma unroll
                        for (int j = 0; j < 4; j++) u[j] = ak_pack2(wp[(2 * j) * Cog], wp[(2 * j + 1) * Cog]);
                        rb.x = u[0]; rb.y = u[1]; rb.z = u[2]; rb.w = u[3];
                    }
                } else if (cok && co < Cog && (flags & AK_CVF_WT))
                    rb = *(const uint4*)(w + ((ak_i64)wt * Cout + g * Cog + co) * Cig + c0 + cc);
                else if (cok && co < Cog) {
                    const T* wp = wrow + (c0 + cc) * wci + wt;
                    ak_u32 u[4];
#pragma unroll
                    for (int j = 0; j < 4; j++) u[j] = ak_pack2(wp[(2 * j) * wci], wp[(2 * j + 1) * wci]);
                    rb.x = u[0]; rb.y = u[1]; rb.z = u[2]; rb.w = u[3];
                }
            };
            auto vstore = [&](int st) {
#pragma unroll
                for (int i = 0; i < NCA; i++) *(uint4*)&As[st][(r0 + i * RSTEP) * LDA + cc] = ra[i];
                *(uint4*)&Bs[st][bn * LDB + bkc] = rb;
            };
            if (nkv > 0) {
                vload(0);
                vstore(0);
                __syncthreads();
            }
            for (int kt = 0; kt < nkv; kt++) {
                const int cur = kt & 1;
                if (kt + 1 < nkv) vload(kt + 1);
                step(cur);
                if (kt + 1 < nkv) {
                    __syncthreads();
                    vstore(cur ^ 1);
                    __syncthreads();
                }
            }
            vec_done = true;
          }
        }
    }
    /* the k loop: tables one tile ahead of the loads, loads one tile ahead of the product */
    const int nk = vec_done ? 0 : (K + BK - 1) / BK;
    if (nk > 0) {
        fill_tab(0, 0);
        __syncthreads();
        load(0, 0);
        if (nk > 1) fill_tab(1, BK);
        store(0);
        __syncthreads();
        for (int kt = 0; kt < nk; kt++) {
            const int cur = kt & 1;
            if (kt + 1 < nk) load(cur ^ 1, (kt + 1) * BK);
            step(cur);
            if (kt + 1 < nk) {
                __syncthreads();
                store(cur ^ 1);
                if (kt + 2 < nk) fill_tab(cur, (kt + 2) * BK);
                __syncthreads();
            }
        }
    }
    /* accumulators -> shared (column-major: st[n * LDST + m]) -> epilogue */
    __syncthreads();
    float* st = (float*)smem;
    if constexpr (MMA) {
#pragma unroll
        for (int i = 0; i < FM; i++)
#pragma unroll
            for (int j = 0; j < FN; j++)
#pragma unroll
                for (int e = 0; e < MM::NC; e++)
                    st[(wn * TNW + j * MM::N + MM::c_col(lane, e)) * LDST + wm * TMW + i * MM::M + MM::c_row(lane, e)] =
                        acc[i][j].v[e];
    } else {
#pragma unroll
        for (int i = 0; i < STM; i++)
#pragma unroll
            for (int j = 0; j < STN; j++) st[(tx + j * TX) * LDST + ty + i * TY] = sacc[i][j];
    }
    __syncthreads();
    const int act = flags >> AK_CVF_ACT_SHIFT;
    const int ycs = cl ? 1 : fOP, yps = cl ? Cout : 1;
    if (am < M) {
        const int n = am / OP, o = ypos(am % OP);
        T* yn = y + (ak_i64)n * Cout * fOP + (ak_i64)o * yps;
#pragma unroll 1
        for (int c = ak0; c < BN; c += NT / BM) {
            const int co = co0 + c;
            if (co >= Cog) break;
            const int oc = g * Cog + co;
            float v = st[c * LDST + tid % BM];
            if (flags & AK_CVF_BIAS) v += DT::to(bias[oc]);
            if (act != AK_UNARY_NONE) v = ak_uop_apply(act, v, ap);
            yn[(ak_i64)oc * ycs] = DT::from(v);
        }
    }
}

/* two blocks of 256 threads per SM on NVIDIA: at most 128 registers a thread
 * (AMD: no occupancy constraint beyond the block size) */
#if defined(AK_NVIDIA)
#define AK_CONV_MINB 2
#else
#define AK_CONV_MINB 1
#endif
#define AK_CONV_IGEMM(NAME, D, FAST32, MMA, CPA)                                                                         \
    AK_KERNEL __launch_bounds__(256, AK_CONV_MINB) void NAME(const D::T* x, const D::T* w, const D::T* bias, D::T* y, int flags, float ap,  \
                                               int Nb, int Cin, int Cout, int Cig, int Cog, int ID, int IH, int IW, int OD, \
                                               int OH, int OW, int kD, int kH, int kW, int sD, int sH, int sW, int pD, int pH, \
                                               int pW, int dD, int dH, int dW) {                                              \
        AK_KONLY(NAME) {                                                                                              \
        constexpr bool MC = MMA && ak_mma<D, FAST32>::OK;                                                             \
        __shared__ __attribute__((aligned(16))) unsigned char smem[ak_conv_tile<D, MC, CPA>::SMEM];                       \
        __shared__ ak_conv_kent tab[2][ak_conv_tile<D, MC>::BK];                                                      \
        if (flags & AK_CVF_PHASE) ak_conv_igemm<D, FAST32, MC, true, CPA>(smem, tab, x, w, bias, y, AK_CONV_ARGS);      \
        else ak_conv_igemm<D, FAST32, MC, false, CPA>(smem, tab, x, w, bias, y, AK_CONV_ARGS);                          \
        }                                                                                                             \
    }
AK_CONV_IGEMM(ak_conv_igemm_mma_f16, ak_f16_t, false, true, false)
AK_CONV_IGEMM(ak_conv_igemm_mma_bf16, ak_bf16_t, false, true, false)
AK_CONV_IGEMM(ak_conv_igemm_mma_f32, ak_f32_t, false, true, false)
AK_CONV_IGEMM(ak_conv_igemm_mma_x32, ak_f32_t, true, true, false)
AK_CONV_IGEMM(ak_conv_igemm_simt_f32, ak_f32_t, false, false, false)
AK_CONV_IGEMM(ak_conv_igemm_simt_f16, ak_f16_t, false, false, false)
AK_CONV_IGEMM(ak_conv_igemm_simt_bf16, ak_bf16_t, false, false, false)
/* the cp.async vector loader (NVIDIA; planned there for the vector path with more than 2 k tiles a block and no
 * phases): its own kernels, so that the element loader and the short-k phase blocks keep the register count and
 * shared memory of the 2-stage kernels; AMD compiles the register-staged loader here (never planned) */
AK_CONV_IGEMM(ak_conv_igemm_vec_f16, ak_f16_t, false, true, true)
AK_CONV_IGEMM(ak_conv_igemm_vec_bf16, ak_bf16_t, false, true, true)

/* ---- Hopper (sm_90a): the implicit GEMM on wgmma (ak_conv_igemm_wg<BN>_*) ---
 * The vector loader's problems (x channels-last, Cig and Cin multiples of 8,
 * standard, transposed with stride 1, or transposed split into sub-pixel
 * phases: PH, as the mma kernels), planned on sm_90a for 16-bit dtypes. Tile 128 x BN (BN 128, or 64 for Cog <= 64), two
 * consumer warpgroups (64 rows each, m64nBNk16 wgmma from K-major 128-byte
 * swizzled tiles, ak_sw128) that also copy. k is walked in chunks of 8
 * channels ordered (tap, channel) across the taps: a k tile is 8 chunks
 * (64 values, one 128-byte row per tile row) whatever Cig is, so channel
 * counts below 64 waste only the last tile's tail. A thread's chunk of a
 * tile is the same for its 4 A rows and NB B rows, a (tap, channel) cursor
 * advanced by 8 chunks a tile; the taps' offsets come from a shared table.
 * Weight (host-made): standard [taps][Cout][Cig] (flag WT's layout),
 * transposed [Cog x taps][Cin] (chunk (co, tap, c) at (co taps + tap) Cin +
 * g Cig + c). 4-stage cp.async ring (zero-fill outside the input, past k and
 * past Cog), one wgmma group in flight: the copy of tile kt + 2 goes to kt -
 * 2's stage after every thread's wait<1> at kt - 1 and the barrier at kt.
 * Epilogue: accumulators to shared (column-major, stride BM + 1), then
 * channels-first: a thread per output position (one division), channels
 * along the thread's loop; channels-last: consecutive threads along the
 * channels. Dynamic shared memory: 1024 + the stages + 128 x 24 (row table)
 * + 20 taps bytes (host: _ak_conv_run_wg). Other targets: an empty body (never planned there). */
struct ak_conv_tap {
    int td, th, tw, xo, wt;   /* wt: the weight's tap (the phase's tap t maps to another under PHASE) */
};
/* a tile row (output position m): the input base (rd, rh, rw) and its offset ro in the sample, the sample n
 * (-1: past M) and the position o in it */
struct ak_conv_row {
    int rd, rh, rw, ro, n, o;
};
#if defined(AK_WGMMA)
template <class DT, int BN, int S, bool PH>
AK_INLINE void ak_conv_wg(const typename DT::T* AK_RESTRICT x, const typename DT::T* AK_RESTRICT w,
                          const typename DT::T* AK_RESTRICT bias, typename DT::T* AK_RESTRICT y, AK_CONV_PARAMS) {
    typedef typename DT::T T;
    enum { BM = 128, NT = 256, W = S - 3, A_BYTES = BM * 128, B_BYTES = BN * 128, STAGE = A_BYTES + B_BYTES, NA = BM * 8 / NT,
           NB = BN * 8 / NT };
    extern __shared__ unsigned char ak_conv_dyn_smem[];
    unsigned char* sm = ak_conv_dyn_smem + ((1024 - (ak_smem_addr(ak_conv_dyn_smem) & 1023)) & 1023);
    ak_conv_row* rtab = (ak_conv_row*)(sm + S * STAGE);
    ak_conv_tap* ttab = (ak_conv_tap*)(rtab + BM);
    const int tid = (int)threadIdx.x, wg = tid / 128;
    const bool trans = (flags & AK_CVF_TRANS) != 0, cl = (flags & AK_CVF_NHWC) != 0;
    /* PH (flag PHASE): blockIdx.z = group x phases + phase, the phase's outputs as a stride-1 transposed
     * convolution over its taps (ak_conv_phase), as the mma kernels do */
    const int nph = PH ? sD * sH * sW : 1;
    const int g = (int)blockIdx.z / nph, ph = (int)blockIdx.z % nph, m0 = (int)blockIdx.x * BM, co0 = (int)blockIdx.y * BN;
    const int fOH = OH, fOW = OW, fOP = OD * OH * OW, fkH = kH, fkW = kW, ftaps = kD * kH * kW;
    const int rD = ph / (sH * sW), rH = (ph / sW) % sH, rW = ph % sW, fsD = sD, fsH = sH, fsW = sW;
    int t0D = 0, t0H = 0, t0W = 0, tsD = 1, tsH = 1, tsW = 1;
    if constexpr (PH) {
        const ak_conv_phase fd = ak_conv_phase_of(rD, OD, kD, sD, pD, dD), fh = ak_conv_phase_of(rH, OH, kH, sH, pH, dH),
                            fw = ak_conv_phase_of(rW, OW, kW, sW, pW, dW);
        OD = fd.o_n; OH = fh.o_n; OW = fw.o_n;
        kD = fd.k_n; kH = fh.k_n; kW = fw.k_n;
        pD = fd.p_n; pH = fh.p_n; pW = fw.p_n;
        dD = fd.d_n; dH = fh.d_n; dW = fw.d_n;
        t0D = fd.t0; t0H = fh.t0; t0W = fw.t0; tsD = fd.ts; tsH = fh.ts; tsW = fw.ts;
        sD = sH = sW = 1;
    }
    const int OP = OD * OH * OW, M = Nb * OP, taps = kD * kH * kW, cpt = Cig / 8, nk = (taps * cpt + 7) / 8, sg = trans ? -1 : 1;
    if (m0 >= M) return; /* a smaller phase's share of the grid (uniform: before any barrier) */
    /* the tables: each tap's offsets, each tile row's decomposition (the divisions once a row, not once a row per
     * thread that copies it) */
    for (int t = tid; t < taps; t += NT) {
        const int kw = t % kW, kh = (t / kW) % kH, kd = t / (kW * kH);
        ak_conv_tap e;
        e.td = sg * kd * dD; e.th = sg * kh * dH; e.tw = sg * kw * dW;
        e.xo = ((e.td * IH + e.th) * IW + e.tw) * Cin;
        e.wt = PH ? ((t0D + kd * tsD) * fkH + t0H + kh * tsH) * fkW + t0W + kw * tsW : t;
        ttab[t] = e;
    }
    if (tid < BM) {
        const int m = m0 + tid;
        ak_conv_row e;
        e.rd = -(1 << 30); e.rh = 0; e.rw = 0; e.ro = 0; e.n = -1; e.o = 0;
        if (m < M) {
            const int n = m / OP, o = m - n * OP, ow = o % OW, oh = (o / OW) % OH, od = o / (OW * OH);
            e.n = n; e.o = PH ? ((rD + fsD * od) * fOH + rH + fsH * oh) * fOW + rW + fsW * ow : o;
            if (trans) { e.rd = od + pD; e.rh = oh + pH; e.rw = ow + pW; }
            else { e.rd = od * sD - pD; e.rh = oh * sH - pH; e.rw = ow * sW - pW; }
            e.ro = ((e.rd * IH + e.rh) * IW + e.rw) * Cin;
        }
        rtab[tid] = e;
    }
    __syncthreads(); /* the tables */
    /* this thread's chunk j of every tile row r0 + 32 i (A) and r0 + 32 i (B) */
    const int j = tid & 7, r0 = tid >> 3;
    const T* xr[NA];
    int rd[NA], rh[NA], rw[NA], ro[NA];
#pragma unroll
    for (int i = 0; i < NA; i++) {
        const ak_conv_row e = rtab[r0 + 32 * i];
        rd[i] = e.rd; rh[i] = e.rh; rw[i] = e.rw; ro[i] = e.ro;
        xr[i] = x + (ak_i64)(e.n < 0 ? 0 : e.n) * Cin * ID * IH * IW + g * Cig;
    }
    const T* wr[NB];
    bool bok[NB];
    const ak_i64 wtap = trans ? (ak_i64)Cin : (ak_i64)Cout * Cig;
#pragma unroll
    for (int i = 0; i < NB; i++) {
        const int co = co0 + r0 + 32 * i;
        bok[i] = co < Cog;
        wr[i] = w + (trans ? (ak_i64)(bok[i] ? co : 0) * ftaps * Cin + (ak_i64)g * Cig : (ak_i64)(g * Cog + (bok[i] ? co : 0)) * Cig);
    }
    /* the cursor: chunk kt 8 + j is (tap qt, channel chunk qc) */
    int qt = j / cpt, qc = j % cpt;
    const int dt8 = 8 / cpt, dc8 = 8 % cpt;
    auto load = [&](int kt) {
        unsigned char* sa = sm + (kt % S) * STAGE;
        unsigned char* sb = sa + A_BYTES;
        const bool kok = qt < taps;
        const ak_conv_tap e = ttab[kok ? qt : 0];
        const int xo = e.xo + qc * 8;
#pragma unroll
        for (int i = 0; i < NA; i++) {
            const int id = rd[i] + e.td, ih = rh[i] + e.th, iw = rw[i] + e.tw;
            const bool ok = kok && (unsigned)id < (unsigned)ID && (unsigned)ih < (unsigned)IH && (unsigned)iw < (unsigned)IW;
            ak_cp_async16(sa + ak_sw128(r0 + 32 * i, j), ok ? (const void*)(xr[i] + (ro[i] + xo)) : (const void*)x, ok ? 16 : 0);
        }
        const ak_i64 wo = (ak_i64)e.wt * wtap + qc * 8;
#pragma unroll
        for (int i = 0; i < NB; i++) {
            const bool ok = kok && bok[i];
            ak_cp_async16(sb + ak_sw128(r0 + 32 * i, j), ok ? (const void*)(wr[i] + wo) : (const void*)w, ok ? 16 : 0);
        }
        qc += dc8; qt += dt8;
        if (qc >= cpt) { qc -= cpt; qt++; }
    };
    float d[BN / 2];
#pragma unroll
    for (int r = 0; r < BN / 2; r++) d[r] = 0.0f;
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
        for (int kk = 0; kk < 4; kk++) {
            const ak_u64 da = ak_wgmma_desc(sa + kk * 32), db = ak_wgmma_desc(sb + kk * 32);
            if constexpr (BN == 128) {
                if constexpr (ak_is_f16<DT>::value) ak_wgmma_f16_n128(d, da, db, 1);
                else ak_wgmma_bf16_n128(d, da, db, 1);
            } else {
                if constexpr (ak_is_f16<DT>::value) ak_wgmma_f16_n64(d, da, db, 1);
                else ak_wgmma_bf16_n64(d, da, db, 1);
            }
        }
        ak_wgmma_commit();
        ak_wgmma_wait<W>();
    }
    ak_wgmma_wait<0>();
    ak_cp_async_wait<0>();
    __syncthreads(); /* both warpgroups are done reading the stages */
    /* the accumulators, column-major: st[c * ldst + row]; stride 132 (channels-first: pairs of rows as 8-byte
     * reads, the wgmma layout's writes conflict-free) or 129 (channels-last: reads along the columns) */
    float* st = (float*)sm;
    const int ldst = cl ? BM + 1 : BM + 4;
#pragma unroll
    for (int r = 0; r < BN / 2; r++) st[ak_wgmma_col(tid, r) * ldst + wg * 64 + ak_wgmma_row(tid, r)] = d[r];
    __syncthreads();
    const int act = flags >> AK_CVF_ACT_SHIFT;
    const bool hb = (flags & AK_CVF_BIAS) != 0;
    if (cl) {
        /* y[m][Cout]: consecutive threads along the channels */
#pragma unroll 4
        for (int e = tid; e < BM * BN; e += NT) {
            const int c = e % BN, ml = e / BN, m = m0 + ml, co = co0 + c;
            if (m >= M || co >= Cog) continue;
            const int oc = g * Cog + co;
            float v = st[c * ldst + ml];
            if (hb) v += DT::to(bias[oc]);
            if (act != AK_UNARY_NONE) v = ak_uop_apply(act, v, ap);
            if constexpr (PH) {
                const ak_conv_row r = rtab[ml];
                y[((ak_i64)r.n * fOP + r.o) * Cout + oc] = DT::from(v);
            } else {
                y[(ak_i64)m * Cout + oc] = DT::from(v);
            }
        }
    } else if (!PH && OP % 2 == 0 && ((ak_u64)y & 3) == 0) {
        /* y[n][Cout][OP], OP even: a thread stores 2 positions of one sample (rows 2 p, 2 p + 1) as one 4-byte word */
        const int ml = 2 * (tid % (BM / 2));
        const ak_conv_row e = rtab[ml];
        if (e.n >= 0) {
            const bool two = m0 + ml + 1 < M;
            T* yn = y + (ak_i64)e.n * Cout * OP + e.o;
#pragma unroll 4
            for (int c = tid / (BM / 2); c < BN; c += NT / (BM / 2)) {
                const int co = co0 + c;
                if (co >= Cog) break;
                const int oc = g * Cog + co;
                const float2 v2 = *(const float2*)&st[c * ldst + ml];
                float v0 = v2.x, v1 = v2.y;
                if (hb) { const float b = DT::to(bias[oc]); v0 += b; v1 += b; }
                if (act != AK_UNARY_NONE) { v0 = ak_uop_apply(act, v0, ap); v1 = ak_uop_apply(act, v1, ap); }
                T* yp = yn + (ak_i64)oc * OP;
                if (two) *(ak_u32*)yp = ak_pack2(DT::from(v0), DT::from(v1));
                else yp[0] = DT::from(v0);
            }
        }
    } else {
        const int ml = tid % BM;
        const ak_conv_row e = rtab[ml];
        if (e.n >= 0) {
            T* yn = y + (ak_i64)e.n * Cout * fOP + e.o;
#pragma unroll 4
            for (int c = tid / BM; c < BN; c += NT / BM) {
                const int co = co0 + c;
                if (co >= Cog) break;
                const int oc = g * Cog + co;
                float v = st[c * ldst + ml];
                if (hb) v += DT::to(bias[oc]);
                if (act != AK_UNARY_NONE) v = ak_uop_apply(act, v, ap);
                yn[(ak_i64)oc * fOP] = DT::from(v);
            }
        }
    }
}
#endif
#if defined(AK_WGMMA)
#define AK_CONV_WG_BODY(D, BN, S)                                                  \
    if (flags & AK_CVF_PHASE) ak_conv_wg<D, BN, S, true>(x, w, bias, y, AK_CONV_ARGS); \
    else ak_conv_wg<D, BN, S, false>(x, w, bias, y, AK_CONV_ARGS);
#else
#define AK_CONV_WG_BODY(D, BN, S) (void)x; (void)w; (void)bias; (void)y;
#endif
/* 128 x 128 tiles: one block an SM (128 KiB of stages); 128 x 64: two */
#define AK_CONV_WG(NAME, D, BN, S, MINB)                                                                                 \
    AK_KERNEL __launch_bounds__(256, MINB) void NAME(const D::T* x, const D::T* w, const D::T* bias, D::T* y, int flags, \
                                               float ap, int Nb, int Cin, int Cout, int Cig, int Cog, int ID, int IH, int IW, \
                                               int OD, int OH, int OW, int kD, int kH, int kW, int sD, int sH, int sW, int pD, \
                                               int pH, int pW, int dD, int dH, int dW) {                                       \
        AK_KONLY(NAME) { AK_CONV_WG_BODY(D, BN, S) }                                                                     \
    }
AK_CONV_WG(ak_conv_igemm_wg128_f16, ak_f16_t, 128, 3, 2)
AK_CONV_WG(ak_conv_igemm_wg128_bf16, ak_bf16_t, 128, 3, 2)
AK_CONV_WG(ak_conv_igemm_wg64_f16, ak_f16_t, 64, 4, 2)
AK_CONV_WG(ak_conv_igemm_wg64_bf16, ak_bf16_t, 64, 4, 2)

/* Depthwise: one thread per output element. Channels-first: blockIdx.y walks
 * the (sample, channel) planes, x the positions of a plane (the channel's
 * input plane and taps are the block's); channels-last: y walks the samples,
 * x the (position, channel) elements. */
template <class DT>
AK_INLINE float ak_conv_dw_one(const typename DT::T* AK_RESTRICT xc, const typename DT::T* AK_RESTRICT wc, int xps, int o,
                               int ID, int IH, int IW, int OH, int OW, int kD, int kH, int kW, int sD, int sH, int sW, int pD,
                               int pH, int pW, int dD, int dH, int dW) {
    const int ow = o % OW, t = o / OW, oh = t % OH, od = t / OH;
    const int d0 = od * sD - pD, h0 = oh * sH - pH, w0 = ow * sW - pW;
    float s = 0.0f;
    for (int kd = 0; kd < kD; kd++) {
        const int id = d0 + kd * dD;
        if ((unsigned)id >= (unsigned)ID) continue;
        for (int kh = 0; kh < kH; kh++) {
            const int ih = h0 + kh * dH;
            if ((unsigned)ih >= (unsigned)IH) continue;
            const int row = (id * IH + ih) * IW;
            const typename DT::T* wr = wc + (kd * kH + kh) * kW;
            for (int kw = 0; kw < kW; kw++) {
                const int iw = w0 + kw * dW;
                if ((unsigned)iw >= (unsigned)IW) continue;
                s = fmaf(DT::to(xc[(row + iw) * xps]), DT::to(wr[kw]), s);
            }
        }
    }
    return s;
}

template <class DT>
AK_INLINE void ak_conv_dw(const typename DT::T* AK_RESTRICT x, const typename DT::T* AK_RESTRICT w,
                          const typename DT::T* AK_RESTRICT bias, typename DT::T* AK_RESTRICT y, AK_CONV_PARAMS) {
    const bool cl = (flags & AK_CVF_NHWC) != 0;
    const int OP = OD * OH * OW, taps = kD * kH * kW, IP = ID * IH * IW;
    const int act = flags >> AK_CVF_ACT_SHIFT;
    (void)Cig;
    if (flags & AK_CVF_DWT) {
        /* Tiled (channels-first, flag DWT): a block computes a 64 x 32 tile of one output plane (one depth); per
         * kernel depth it stages the input window of the tile in shared memory (fp32, coalesced row loads, zeros
         * outside the input), the taps in shared memory; each thread sums a column strip of 8 outputs. blockIdx.x:
         * the tile, y: (sample, channel, output depth), striding by gridDim.y. */
        enum { TW = AK_CONV_DW_TW, R = AK_CONV_DW_R, TY = 256 / TW, TH = TY * R };
        __shared__ float xs[AK_CONV_DW_XS];
        __shared__ float wsm[AK_CONV_DW_WS];
        const int tid = (int)threadIdx.x, tx = tid % TW, ty = tid / TW;
        const int twn = (OW + TW - 1) / TW, ow0 = ((int)blockIdx.x % twn) * TW, oh0 = ((int)blockIdx.x / twn) * TH;
        const int XW = (TW - 1) * sW + (kW - 1) * dW + 1, XH = (TH - 1) * sH + (kH - 1) * dH + 1, XN = XW * XH;
        const int iw0 = ow0 * sW - pW, ih0 = oh0 * sH - pH;
        const ak_i64 units = (ak_i64)Nb * Cout * OD;
        for (ak_i64 u = blockIdx.y; u < units; u += gridDim.y) {
            const int od = (int)(u % OD), c = (int)((u / OD) % Cout), n = (int)(u / ((ak_i64)OD * Cout));
            const typename DT::T* xc = x + ((ak_i64)n * Cin + c / Cog) * IP;
            float acc[R];
#pragma unroll
            for (int r = 0; r < R; r++) acc[r] = 0.0f;
            __syncthreads(); /* the previous unit's readers are done */
            for (int t = tid; t < taps; t += 256) wsm[t] = DT::to(w[(ak_i64)c * taps + t]);
            for (int kd = 0; kd < kD; kd++) {
                const int id = od * sD - pD + kd * dD;
                if ((unsigned)id >= (unsigned)ID) continue; /* uniform over the block */
                const typename DT::T* xp = xc + (ak_i64)id * IH * IW;
                __syncthreads();
                for (int e = tid; e < XN; e += 256) {
                    const int rr = e / XW, q = e - rr * XW, ih = ih0 + rr, iw = iw0 + q;
                    xs[e] = ((unsigned)ih < (unsigned)IH && (unsigned)iw < (unsigned)IW) ? DT::to(xp[ih * IW + iw]) : 0.0f;
                }
                __syncthreads();
                const float* xr = xs + (ty * R) * sH * XW + tx * sW;
                const float* wr = wsm + kd * kH * kW;
                for (int kh = 0; kh < kH; kh++)
                    for (int kw = 0; kw < kW; kw++) {
                        const float wv = wr[kh * kW + kw];
                        const float* xq = xr + kh * dH * XW + kw * dW;
#pragma unroll
                        for (int r = 0; r < R; r++) acc[r] = fmaf(xq[r * sH * XW], wv, acc[r]);
                    }
            }
            const float b = (flags & AK_CVF_BIAS) ? DT::to(bias[c]) : 0.0f;
            typename DT::T* yp = y + ((ak_i64)n * Cout + c) * OP + (ak_i64)od * OH * OW;
            const int ow = ow0 + tx;
            if (ow < OW) {
#pragma unroll
                for (int r = 0; r < R; r++) {
                    const int oh = oh0 + ty * R + r;
                    if (oh < OH) {
                        float v = acc[r] + b;
                        if (act != AK_UNARY_NONE) v = ak_uop_apply(act, v, ap);
                        yp[oh * OW + ow] = DT::from(v);
                    }
                }
            }
        }
        return;
    }
    if (!cl) {
        const ak_i64 planes = (ak_i64)Nb * Cout;
        for (ak_i64 pl = blockIdx.y; pl < planes; pl += gridDim.y) {
            const int n = (int)(pl / Cout), c = (int)(pl % Cout);
            const typename DT::T* xc = x + ((ak_i64)n * Cin + c / Cog) * IP;
            const typename DT::T* wc = w + c * taps;
            const float b = (flags & AK_CVF_BIAS) ? DT::to(bias[c]) : 0.0f;
            typename DT::T* yc = y + pl * OP;
            for (int o = (int)(blockIdx.x * blockDim.x + threadIdx.x); o < OP; o += (int)(gridDim.x * blockDim.x)) {
                float s = ak_conv_dw_one<DT>(xc, wc, 1, o, ID, IH, IW, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW) + b;
                if (act != AK_UNARY_NONE) s = ak_uop_apply(act, s, ap);
                yc[o] = DT::from(s);
            }
        }
        return;
    }
    const int per = Cout * OP;
    for (int n = (int)blockIdx.y; n < Nb; n += (int)gridDim.y) {
        const typename DT::T* xn = x + (ak_i64)n * Cin * IP;
        typename DT::T* yn = y + (ak_i64)n * per;
        for (int q = (int)(blockIdx.x * blockDim.x + threadIdx.x); q < per; q += (int)(gridDim.x * blockDim.x)) {
            const int c = q % Cout, o = q / Cout;
            float s = ak_conv_dw_one<DT>(xn + c / Cog, w + c * taps, Cin, o, ID, IH, IW, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW,
                                         dD, dH, dW);
            if (flags & AK_CVF_BIAS) s += DT::to(bias[c]);
            if (act != AK_UNARY_NONE) s = ak_uop_apply(act, s, ap);
            yn[q] = DT::from(s);
        }
    }
}

/* Depthwise, stride 1 across (flag-free: its own kernels ak_conv_dwv_*): channels-first, stride 1 in height
 * and width, dilation 1 in width, kernel width <= AK_CONV_DWV_KW, the window of a 32-row tile within
 * AK_CONV_DWV_XR rows. A block computes 32 rows x 32 V output columns of one plane (one output depth), V =
 * AK_V16 (8 halves, 4 f32: 16 bytes). The window goes to shared memory per kernel depth in its own dtype, in
 * 16-byte chunks that start at input columns a multiple of V from the tile's first (a0: V-aligned below -pW), each
 * chunk one 16-byte load where it lies inside the row and is aligned (else element loads, zeros outside the
 * input); U chunks a thread are loaded before any is stored, so a thread has U x 16 bytes in flight. Thread (lane
 * tx, warp ty) computes the V adjacent outputs whose leftmost input is column a0 + V tx, for R rows: per kernel
 * row and output row it reads its chunk and the next (NX chunks of 16 bytes, conflict-free: a warp reads one
 * contiguous row), KW x V fmas with the taps in registers (KW: the kernel width rounded up to 1, 3 or 7, zero
 * taps past kW). Outputs go out as 16 bytes where aligned, else 8, 4 or element stores. */
template <class DT, int KW>
AK_INLINE void ak_conv_dwv(const typename DT::T* AK_RESTRICT x, const typename DT::T* AK_RESTRICT w,
                           const typename DT::T* AK_RESTRICT bias, typename DT::T* AK_RESTRICT y, uint4* xs, float* wsm,
                           AK_CONV_PARAMS) {
    typedef typename DT::T T;
    enum { V = AK_V16(DT), R = AK_CONV_DWV_R, TH = 8 * R, TW = 32 * V, NX = 1 + (KW - 1 + V - 1) / V, NCH = 31 + NX, U = 4 };
    const int OP = OD * OH * OW, taps = kD * kH * kW, IP = ID * IH * IW, act = flags >> AK_CVF_ACT_SHIFT;
    const int tid = (int)threadIdx.x, tx = tid & 31, ty = tid >> 5;
    const int pw0 = (pW + V - 1) / V * V; /* a0 of the first tile: -pw0 */
    const int twn = (OW + pw0 - pW + TW - 1) / TW;
    const int a0 = ((int)blockIdx.x % twn) * TW - pw0, ow0 = a0 + pW, oh0 = ((int)blockIdx.x / twn) * TH, ih0 = oh0 - pH;
    const int XN = (TH + (kH - 1) * dH) * NCH;
    const ak_i64 units = (ak_i64)Nb * Cout * OD;
    (void)Cig; (void)sH; (void)sW; (void)dW;
    for (ak_i64 u = blockIdx.y; u < units; u += gridDim.y) {
        const int od = (int)(u % OD), c = (int)((u / OD) % Cout), n = (int)(u / ((ak_i64)OD * Cout));
        const T* xc = x + ((ak_i64)n * Cin + c / Cog) * IP;
        float acc[R][V];
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int i = 0; i < V; i++) acc[r][i] = 0.0f;
        __syncthreads(); /* the previous unit's readers are done */
        for (int t = tid; t < taps; t += 256) wsm[t] = DT::to(w[(ak_i64)c * taps + t]);
        for (int kd = 0; kd < kD; kd++) {
            const int id = od * sD - pD + kd * dD;
            if ((unsigned)id >= (unsigned)ID) continue; /* uniform over the block */
            const T* xp = xc + (ak_i64)id * IH * IW;
            __syncthreads();
            for (int e0 = 0; e0 < XN; e0 += 256 * U) {
                uint4 buf[U];
                bool st[U];
#pragma unroll
                for (int k = 0; k < U; k++) {
                    const int e = e0 + k * 256 + tid, rr = e / NCH, ih = ih0 + rr, g0 = a0 + (e - rr * NCH) * V;
                    ak_u32 wd[4] = { 0u, 0u, 0u, 0u };   /* the chunk as words (no union: no scratch on older AMD compilers) */
                    st[k] = e < XN;
                    if (st[k] && (unsigned)ih < (unsigned)IH) {
                        const int ro = ih * IW;
                        if (g0 >= 0 && g0 + V <= IW && ak_aligned16(xp + ro + g0)) {
#if defined(AK_CONV_CPASYNC)
                            ak_cp_async16(xs + e, xp + ro + g0, 16); /* NVIDIA: in flight without registers */
                            st[k] = false;
#else
                            const uint4 c4 = *(const uint4*)(xp + ro + g0);
                            wd[0] = c4.x; wd[1] = c4.y; wd[2] = c4.z; wd[3] = c4.w;
#endif
                        } else {
#pragma unroll
                            for (int i = 0; i < V; i++)
                                if ((unsigned)(g0 + i) < (unsigned)IW) {
                                    const T v = xp[ro + g0 + i];
                                    wd[i * DT::SIZE / 4] |= DT::SIZE == 4 ? ak_f2u((float)v) : (ak_u32)(ak_u16)v << (16 * (i & 1));
                                }
                        }
                    }
                    buf[k] = make_uint4(wd[0], wd[1], wd[2], wd[3]);
                }
#pragma unroll
                for (int k = 0; k < U; k++)
                    if (st[k]) xs[e0 + k * 256 + tid] = buf[k];
            }
#if defined(AK_CONV_CPASYNC)
            ak_cp_async_commit();
            ak_cp_async_wait<0>();
#endif
            __syncthreads();
            for (int kh = 0; kh < kH; kh++) {
                float wv[KW];
#pragma unroll
                for (int kw = 0; kw < KW; kw++) wv[kw] = kw < kW ? wsm[(kd * kH + kh) * kW + kw] : 0.0f;
                const uint4* xr = xs + (ty * R + kh * dH) * NCH + tx;
#pragma unroll
                for (int r = 0; r < R; r++) {
                    float v[NX * V];
#pragma unroll
                    for (int j = 0; j < NX; j++) ak_ld16<DT>((const T*)(xr + r * NCH + j), v + j * V);
#pragma unroll
                    for (int i = 0; i < V; i++)
#pragma unroll
                        for (int kw = 0; kw < KW; kw++) acc[r][i] = fmaf(v[i + kw], wv[kw], acc[r][i]);
                }
            }
        }
        const float b = (flags & AK_CVF_BIAS) ? DT::to(bias[c]) : 0.0f;
        T* yp = y + ((ak_i64)n * Cout + c) * OP + (ak_i64)od * OH * OW;
        const int oc = ow0 + tx * V;
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int oh = oh0 + ty * R + r;
            if (oh >= OH) break;
            float o[V];
#pragma unroll
            for (int i = 0; i < V; i++) o[i] = acc[r][i] + b;
            if (act != AK_UNARY_NONE) {
#pragma unroll
                for (int i = 0; i < V; i += 4) ak_uop_apply_lean4(act, o + i, ap);
            }
            T* q = yp + (oh * OW + oc);
            if (oc >= 0 && oc + V <= OW) {
                const ak_u64 al = (ak_u64)q;
                if ((al & 15u) == 0) {
                    ak_st16<DT>(q, o);
                } else {
                    ak_u32 wd[4];
#pragma unroll
                    for (int i = 0; i < 4; i++)
                        wd[i] = DT::SIZE == 4 ? ak_f2u(o[i]) : ak_pack2((ak_u16)DT::from(o[(2 * i) % V]), (ak_u16)DT::from(o[(2 * i + 1) % V]));
                    if ((al & 7u) == 0) {
                        ((uint2*)q)[0] = make_uint2(wd[0], wd[1]);
                        ((uint2*)q)[1] = make_uint2(wd[2], wd[3]);
                    } else if ((al & 3u) == 0) {
#pragma unroll
                        for (int i = 0; i < 4; i++) ((ak_u32*)q)[i] = wd[i];
                    } else {
#pragma unroll
                        for (int i = 0; i < V; i++) q[i] = DT::from(o[i]);
                    }
                }
            } else {
#pragma unroll
                for (int i = 0; i < V; i++)
                    if ((unsigned)(oc + i) < (unsigned)OW) q[i] = DT::from(o[i]);
            }
        }
    }
}

/* three blocks of 256 threads per SM on NVIDIA: at most 80 registers a thread (measured on the H100: 120 registers
 * and two blocks were 9-21% slower); AMD: no constraint beyond the block size */
#if defined(AK_NVIDIA)
#define AK_CONV_DWV_MINB 3
#else
#define AK_CONV_DWV_MINB 1
#endif
#define AK_CONV_DWV(NAME, D)                                                                                          \
    AK_KERNEL __launch_bounds__(256, AK_CONV_DWV_MINB) void NAME(const D::T* x, const D::T* w, const D::T* bias, D::T* y, int flags, float ap,  \
                                               int Nb, int Cin, int Cout, int Cig, int Cog, int ID, int IH, int IW, int OD, \
                                               int OH, int OW, int kD, int kH, int kW, int sD, int sH, int sW, int pD, int pH, \
                                               int pW, int dD, int dH, int dW) {                                              \
        AK_KONLY(NAME) {                                                                                              \
        __shared__ uint4 xs[AK_CONV_DWV_XR * (32 + (AK_CONV_DWV_KW + AK_V16(D) - 2) / AK_V16(D))];                                       \
        __shared__ float wsm[AK_CONV_DW_WS];                                                                          \
        if (kW == 1) ak_conv_dwv<D, 1>(x, w, bias, y, xs, wsm, AK_CONV_ARGS);                                           \
        else if (kW <= 3) ak_conv_dwv<D, 3>(x, w, bias, y, xs, wsm, AK_CONV_ARGS);                                      \
        else ak_conv_dwv<D, 7>(x, w, bias, y, xs, wsm, AK_CONV_ARGS);                                                   \
        }                                                                                                             \
    }
AK_CONV_DWV(ak_conv_dwv_f32, ak_f32_t)
AK_CONV_DWV(ak_conv_dwv_f16, ak_f16_t)
AK_CONV_DWV(ak_conv_dwv_bf16, ak_bf16_t)

#define AK_CONV_DW(NAME, D)                                                                                           \
    AK_KERNEL __launch_bounds__(256) void NAME(const D::T* x, const D::T* w, const D::T* bias, D::T* y, int flags, float ap,  \
                                               int Nb, int Cin, int Cout, int Cig, int Cog, int ID, int IH, int IW, int OD, \
                                               int OH, int OW, int kD, int kH, int kW, int sD, int sH, int sW, int pD, int pH, \
                                               int pW, int dD, int dH, int dW) {                                              \
        AK_KONLY(NAME) ak_conv_dw<D>(x, w, bias, y, AK_CONV_ARGS);                                                              \
    }
AK_CONV_DW(ak_conv_dw_f32, ak_f32_t)
AK_CONV_DW(ak_conv_dw_f16, ak_f16_t)
AK_CONV_DW(ak_conv_dw_bf16, ak_bf16_t)
