// kernels/attention_mma.hip - fused attention forward on the matrix units
// (flash-attention 2 structure), f16 / bf16 inputs, fp32 accumulation and
// softmax. Host wrapper: ak_attention in amdkit.h (>>impl:ops-attention),
// which picks this family where the arch has matrix instructions and
// matrix_cores is not off, and the SIMT family of kernels/attention.hip
// otherwise. Head sizes: 32, 64, 96, 128, 160, 192 and 256 on every matrix
// target, 80 on NVIDIA (mma.sync) only; any head_dim <= 256 runs on the next
// of these sizes (zero columns past head_dim). The host compiles one
// head size at a time (-DAK_AMMA_ONLY=N); without it the whole family.
//
// Work layout (the same as the SIMT kernels, so the host code and the
// split-combine kernel are shared): the rows of one (batch, kv head) pair
// are its GQA group's query heads one after another (row r = g * seq_q + i),
// blockIdx.x picks 16 * WM consecutive rows, blockIdx.y the split of seq_kv
// (flash-decoding; part / lse partials as in attention.hip), blockIdx.z the
// pair. Packing a GQA group into the rows lets one 16-row tile hold all
// query heads of a decode step, so K and V are read once per group.
// Sequences: plain, packed variable-length, paged K / V, per-sequence key
// counts, sliding windows and the soft-cap (the prelude's ak_attn_seq; the
// NVIDIA kernel takes all of them, the AMD generic path plain sequences with
// the causal mask: the host sends the rest to the SIMT family there).
//
// Block: WM x WN warps. Warp (wm, wn) owns rows 16 wm .. 16 wm + 15 of the
// block and keys wn * BK / WN .. of every K / V tile (WN > 1 for decode,
// where a block has one row tile: the warps split each tile's keys and are
// merged through shared memory at the end). K / V tiles of BK = 64 keys (32
// past head size 128) go through shared memory (rows padded by 16 bytes
// against bank conflicts) in ST stages: 2 for prefill, 3 for the decode form
// (more bytes in flight).
//
// NVIDIA (sm_80+, mma.sync m16n8k16 via the prelude's ak_mma layer): tiles
// are copied with cp.async (zero-filled past the end; element copies where
// rows are not 16-byte aligned), Q fragments stay in registers up to head
// size 192 (ldmatrix), S = Q K^T on the tensor cores, the online softmax on
// the S accumulators, P is converted in registers to the A fragments of
// O += P V (the m16n8 C layout of two n-tiles is the m16k16 A layout), V
// fragments through ldmatrix.trans.
//
// 8-bit K / V (ak_attn_mmadec<HD>_<e4m3|e5m2>_<dt>, NVIDIA sm_89+): ak_attn_mma_f8
// below. Other calls run on K / V dequantised by quant.hip's ak_dequant_kv_*.
// The NVIDIA decode forms merge their own splits (ak_attn_fold).
//
// kernels: ak_attn_mma64_f16 ak_attn_mma64_bf16 ak_attn_mma128_f16 ak_attn_mma128_bf16 ak_attn_mmadec64_f16 ak_attn_mmadec64_bf16 ak_attn_mmadec128_f16 ak_attn_mmadec128_bf16 ak_attn_mma32_f16 ak_attn_mma32_bf16 ak_attn_mmadec32_f16 ak_attn_mmadec32_bf16 ak_attn_mma80_f16 ak_attn_mma80_bf16 ak_attn_mmadec80_f16 ak_attn_mmadec80_bf16 ak_attn_mma96_f16 ak_attn_mma96_bf16 ak_attn_mmadec96_f16 ak_attn_mmadec96_bf16 ak_attn_mma160_f16 ak_attn_mma160_bf16 ak_attn_mmadec160_f16 ak_attn_mmadec160_bf16 ak_attn_mma192_f16 ak_attn_mma192_bf16 ak_attn_mmadec192_f16 ak_attn_mmadec192_bf16 ak_attn_mma256_f16 ak_attn_mma256_bf16 ak_attn_mmadec256_f16 ak_attn_mmadec256_bf16 ak_attn_mmagen64_f16 ak_attn_mmagen64_bf16 ak_attn_mmagen128_f16 ak_attn_mmagen128_bf16
// kernels: ak_attn_mmadec32_e4m3_f16 ak_attn_mmadec32_e4m3_bf16 ak_attn_mmadec32_e5m2_f16 ak_attn_mmadec32_e5m2_bf16 ak_attn_mmadec64_e4m3_f16 ak_attn_mmadec64_e4m3_bf16 ak_attn_mmadec64_e5m2_f16 ak_attn_mmadec64_e5m2_bf16 ak_attn_mmadec80_e4m3_f16 ak_attn_mmadec80_e4m3_bf16 ak_attn_mmadec80_e5m2_f16 ak_attn_mmadec80_e5m2_bf16 ak_attn_mmadec96_e4m3_f16 ak_attn_mmadec96_e4m3_bf16 ak_attn_mmadec96_e5m2_f16 ak_attn_mmadec96_e5m2_bf16 ak_attn_mmadec128_e4m3_f16 ak_attn_mmadec128_e4m3_bf16 ak_attn_mmadec128_e5m2_f16 ak_attn_mmadec128_e5m2_bf16 ak_attn_mmadec160_e4m3_f16 ak_attn_mmadec160_e4m3_bf16 ak_attn_mmadec160_e5m2_f16 ak_attn_mmadec160_e5m2_bf16 ak_attn_mmadec192_e4m3_f16 ak_attn_mmadec192_e4m3_bf16 ak_attn_mmadec192_e5m2_f16 ak_attn_mmadec192_e5m2_bf16 ak_attn_mmadec256_e4m3_f16 ak_attn_mmadec256_e4m3_bf16 ak_attn_mmadec256_e5m2_f16 ak_attn_mmadec256_e5m2_bf16

#define AK_AMMA_BK 64
#define AK_AMMA_F8_ST 3  // cp.async stages of codes a warp in the 8-bit K / V decode (the host's shared memory)

// One argument list for every kernel of the family (the SIMT kernels' list of
// kernels/attention.hip: d, R and vec unused here), and the list the kernels
// pass to the two device functions (ak_attn_mma_gen, ak_attn_mma), with the
// names it uses.
#define AK_AMMA_KPARAMS(D) \
    const D::T* q, const D::T* k, const D::T* v, D::T* o, float* lse, int hkv, int group, int sq, int skv, int d, \
        ak_i64 qsb, ak_i64 qsh, ak_i64 qss, ak_i64 ksb, ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh, ak_i64 vss, \
        ak_i64 osb, ak_i64 osh, ak_i64 oss, float scale_log2, int causal, int R, int nsplit, int split_len, \
        float* part, int vec, const int* cu_q, const int* cu_k, const int* used_k, const int* btab, int bts, \
        int pshift, int wl, int wr, float softcap
#define AK_AMMA_PARAMS(D) AK_AMMA_PARAMS_KV(D, typename D::T)
#define AK_AMMA_PARAMS_KV(D, KT) \
    const typename D::T* AK_RESTRICT q, const KT* AK_RESTRICT k, const KT* AK_RESTRICT v, \
        typename D::T* AK_RESTRICT o, float* AK_RESTRICT lse, int hkv, int group, int sq, int skv, ak_i64 qsb, \
        ak_i64 qsh, ak_i64 qss, ak_i64 ksb, ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh, ak_i64 vss, \
        ak_i64 osb, ak_i64 osh, ak_i64 oss, float scale_log2, int causal, int nsplit, int split_len, \
        float* AK_RESTRICT part, int d, int vec, const int* cu_q, const int* cu_k, const int* used_k, \
        const int* btab, int bts, int pshift, int wl, int wr, float softcap
#define AK_AMMA_ARGS \
    q, k, v, o, lse, hkv, group, sq, skv, qsb, qsh, qss, ksb, ksh, kss, vsb, vsh, vss, osb, osh, oss, scale_log2, \
        causal, nsplit, split_len, part, d, vec, cu_q, cu_k, used_k, btab, bts, pshift, wl, wr, softcap

#if defined(AK_MMA_MFMA) || defined(AK_MMA_WMMA11) || defined(AK_MMA_WMMA12) || defined(AK_MMA_SYNC)
// Generic matrix path: the kernels of AMD targets (MFMA on CDNA, WMMA on
// RDNA3 / RDNA4), and ak_attn_mmagen* on every matrix target (NVIDIA too,
// where the GPU suite runs it against the CPU reference, so the algorithm is
// checked on silicon; the per-instruction lane layouts are checked on the
// host by tests/t_matrix.c). Written on the generic fragment
// operations of the prelude's ak_mma<D> (load_a / load_b / mma / c_row /
// c_col), whose lane layouts differ per instruction: the scores leave the
// accumulators through shared memory. Per wave: M query rows (32 MFMA, 16
// WMMA); K / V tiles of AK_AMMA_BK_AMD keys, V stored transposed (Vt[d][key],
// so P V reads it k-contiguous); S = Q K^T (Q fragments from global memory)
// -> S in shared memory -> online softmax by AK_WAVE / M lanes per row ->
// P (input type) and the row rescale factors in shared memory -> O += P Vt
// on the accumulators. W waves, each on its own rows; no cross-wave merge.
// Head sizes (HD): multiples of 32 up to 256; a head_dim d < HD runs with
// zeros past column d (Q, K and V columns d .. HD - 1 read as 0, outputs
// stored up to d; split partials keep HD columns, the combine's stride).
// WMMA (wave32: 256 VGPRs a wave) past head size 128: the Q fragments and
// the accumulators would not fit beside the loop's operands (gfx11 holds a
// whole 16-wide k row in every lane, halves duplicated; gfx12 spilled at
// 256), so Q stays in shared memory (fragments read per key tile) and key
// tiles are 16 wide (the shared memory of 64 Q rows of 256).
#define AK_AMMA_BK_AMD 32
#if defined(AK_MMA_WMMA11) || defined(AK_MMA_WMMA12)
#define AK_AMMA_GEN_QL(HD) ((HD) > 128)
#else
#define AK_AMMA_GEN_QL(HD) 0
#endif
template <class D, int HD, int W>
AK_INLINE void ak_attn_mma_gen(AK_AMMA_PARAMS(D)) {
    typedef typename D::T T;
    typedef ak_mma<D> MM;
    enum {
        M = MM::M, N = MM::N, KS = MM::K, QL = AK_AMMA_GEN_QL(HD), BK = QL ? 16 : AK_AMMA_BK_AMD, BQ = M * W,
        NT = AK_WAVE * W, LDK = HD + 8, LDV = BK + 8, LDP = BK + 8,
        LDS_ = HD > 128 ? BK + 1 : BK + 4,  // past 128: odd rows (64 KiB holds 4 MFMA waves' scores at head size 256)
        LPR = AK_WAVE / M,   // lanes per row in the softmax
        CPL = BK / LPR,      // columns per lane
        NTO = HD / N,        // O tiles per wave
        QS = 32,             // Q columns staged at a time into registers (QL 0)
        NQF = QL ? 1 : HD / KS
    };
    static_assert(HD % 32 == 0 && HD <= 256 && BK % N == 0 && BK % KS == 0, "generic attention: head size / key tile");
    // gfx908 bf16 (32x32x4, 2 values a lane: 64 Q fragments at 256) spills at head size 256: an empty kernel
    // there, which the host never launches (_ak_attn_plan_path runs the SIMT family)
    if (KS < 8 && HD > 192) return;
    __shared__ __align__(16) T ks[BK * LDK];
    __shared__ __align__(16) T vt[HD * LDV];
    __shared__ __align__(16) T ps[W * M * LDP];
    __shared__ __align__(16) T qs[QL ? BQ * LDK : 1];
    __shared__ float ss[W * M * LDS_];
    __shared__ float alpha_s[W * M];

    const int tid = (int)threadIdx.x, lane = ak_lane(), wave = ak_wave_id();
    const int pair = (int)blockIdx.z, b = pair / hkv, h = pair % hkv;
    const int rows = group * sq;
    const int bx = causal ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x;
    const int r0 = bx * BQ;
    const int diag = skv - sq;
    int kend = skv;
    if (causal) {
        const int rl = (r0 + BQ < rows ? r0 + BQ : rows) - 1;
        const int imax = (r0 / sq != rl / sq) ? sq - 1 : rl % sq;
        if (imax + diag + 1 < kend) kend = imax + diag + 1;
    }
    const int kbeg = (int)blockIdx.y * split_len;
    if (kbeg + split_len < kend) kend = kbeg + split_len;
    const T* kp = k + (ak_i64)b * ksb + (ak_i64)h * ksh;
    const T* vp = v + (ak_i64)b * vsb + (ak_i64)h * vsh;

    // this lane's softmax row (LPR lanes per row, CPL columns each)
    const int srow = lane / LPR, scol = (lane % LPR) * CPL;
    const int gr = r0 + wave * M + srow;  // its block row
    const int slim = gr < rows ? (causal ? (gr % sq) + diag : skv - 1) : -1;
    float m = -AK_INF, l = 0.0f;

    // Q: the wave's M rows (rows past the end and columns past d read 0, never stored); per-row pointers
    // differ (GQA rows span heads), so the rows go through shared memory: all HD columns into qs (QL), else
    // QS-column slices through the P area into fragments kept in registers
    typename MM::A qf[NQF];
    {
        const int qr = r0 + wave * M;  // the wave's first row; load_a reads rows qr .. qr + M - 1
        T* qt = QL ? qs + wave * M * LDK : ps + wave * M * LDP;
        const int ldq = QL ? LDK : LDP;
#pragma unroll
        for (int sl = 0; sl < (QL ? 1 : HD / QS); sl++) {
            const int cols = QL ? HD : QS;
            for (int e = lane; e < M * cols; e += AK_WAVE) {
                const int rr = e / cols, cc = e % cols, r = qr + rr, col = sl * QS + cc;
                const bool ok = r < rows && col < d;
                const int g = ok ? r / sq : 0, i = ok ? r % sq : 0;
                qt[rr * ldq + cc] = ok ? q[(ak_i64)b * qsb + (ak_i64)(h * group + g) * qsh + (ak_i64)i * qss + col]
                                       : D::from(0.0f);
            }
            __syncthreads();
            if (!QL) {
#pragma unroll
                for (int kk = 0; kk < QS / KS; kk++) MM::load_a(qf[(sl * (QS / KS) + kk) % NQF], qt + kk * KS, LDP);
                __syncthreads();
            }
        }
    }
    typename MM::C acc[NTO];
#pragma unroll
    for (int n = 0; n < NTO; n++) MM::zero(acc[n]);

    for (int k0 = kbeg; k0 < kend; k0 += BK) {
        __syncthreads();
        for (int e = tid; e < BK * HD; e += NT) {  // K row-major, V transposed; zeros past kend and past d
            const int j = e / HD, dd = e % HD;
            const bool ok = k0 + j < kend && dd < d;
            ks[j * LDK + dd] = ok ? kp[(ak_i64)(k0 + j) * kss + dd] : D::from(0.0f);
            vt[dd * LDV + j] = ok ? vp[(ak_i64)(k0 + j) * vss + dd] : D::from(0.0f);
        }
        __syncthreads();
        // S = Q K^T (M x BK per wave) -> shared
#pragma unroll
        for (int n = 0; n < BK / N; n++) {
            typename MM::C sc;
            MM::zero(sc);
#pragma unroll
            for (int kk = 0; kk < HD / KS; kk++) {
                typename MM::B kb;
                MM::load_b(kb, ks + (n * N) * LDK + kk * KS, LDK);
                if (QL) {
                    typename MM::A qa;
                    MM::load_a(qa, qs + wave * M * LDK + kk * KS, LDK);
                    MM::mma(sc, qa, kb);
                } else {
                    MM::mma(sc, qf[kk % NQF], kb);
                }
            }
#pragma unroll
            for (int e = 0; e < MM::NC; e++)
                ss[(wave * M + MM::c_row(lane, e)) * LDS_ + n * N + MM::c_col(lane, e)] = sc.v[e];
        }
        __syncthreads();
        // online softmax of the lane's row slice
        {
            float x[CPL];
            float mx = -AK_INF;
#pragma unroll
            for (int c = 0; c < CPL; c++) {
                const int j = k0 + scol + c;
                float t = ss[(wave * M + srow) * LDS_ + scol + c] * scale_log2;
                if (j > slim || j >= kend) t = -AK_INF;
                x[c] = t;
                mx = fmaxf(mx, t);
            }
#pragma unroll
            for (int off = LPR / 2; off > 0; off >>= 1) mx = fmaxf(mx, ak_shfl_xor(mx, off));
            const float mn = fmaxf(m, mx), base = mn == -AK_INF ? 0.0f : mn;
            const float al = ak_exp2(m - base);
            float ps_ = 0.0f;
#pragma unroll
            for (int c = 0; c < CPL; c++) {
                const float pv = ak_exp2(x[c] - base);
                ps_ += pv;
                ps[(wave * M + srow) * LDP + scol + c] = D::from(pv);
            }
#pragma unroll
            for (int off = LPR / 2; off > 0; off >>= 1) ps_ += ak_shfl_xor(ps_, off);
            l = l * al + ps_;
            m = mn;
            if (lane % LPR == 0) alpha_s[wave * M + srow] = al;
        }
        __syncthreads();
        // O = alpha O + P Vt
#pragma unroll
        for (int n = 0; n < NTO; n++) {
#pragma unroll
            for (int e = 0; e < MM::NC; e++) acc[n].v[e] *= alpha_s[wave * M + MM::c_row(lane, e)];
#pragma unroll
            for (int kk = 0; kk < BK / KS; kk++) {
                typename MM::A pa;
                typename MM::B vb;
                MM::load_a(pa, ps + (wave * M) * LDP + kk * KS, LDP);
                MM::load_b(vb, vt + (n * N) * LDV + kk * KS, LDV);
                MM::mma(acc[n], pa, vb);
            }
        }
    }
    // per-row 1 / l and lse through shared memory (rows of the accumulators differ per lane)
    __syncthreads();
    if (lane % LPR == 0) {
        ss[(wave * M + srow) * LDS_] = l > 0.0f ? 1.0f / l : 0.0f;
        ss[(wave * M + srow) * LDS_ + 1] = l > 0.0f ? m + log2f(l) : -AK_INF;
    }
    __syncthreads();
    const ak_i64 rows_all = (ak_i64)gridDim.z * rows;
#pragma unroll
    for (int n = 0; n < NTO; n++) {
#pragma unroll
        for (int e = 0; e < MM::NC; e++) {
            const int rr = MM::c_row(lane, e), cc = n * N + MM::c_col(lane, e), r = r0 + wave * M + rr;
            if (r >= rows) continue;
            const int g = r / sq, i = r % sq, hq_idx = h * group + g;
            const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;
            const float val = acc[n].v[e] * ss[(wave * M + rr) * LDS_];
            if (nsplit > 1) part[(grow * nsplit + blockIdx.y) * HD + cc] = val;
            else if (cc < d) o[(ak_i64)b * osb + (ak_i64)hq_idx * osh + (ak_i64)i * oss + cc] = D::from(val);
        }
    }
    if (lane % LPR == 0 && gr < rows) {
        const int g = gr / sq, i = gr % sq, hq_idx = h * group + g;
        const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;
        const float ls = ss[(wave * M + srow) * LDS_ + 1];
        if (nsplit > 1) part[rows_all * nsplit * HD + grow * nsplit + blockIdx.y] = ls;
        else if (lse) lse[grow] = ls * AK_LN2;
    }
}
#define AK_AMMA_GEN_BODY(D, HD, W) \
    ak_attn_mma_gen<D, HD, W>(AK_AMMA_ARGS)
#else
#define AK_AMMA_GEN_BODY(D, HD, W) \
    do { \
    } while (0)
#endif

#if defined(AK_MMA_SYNC)
#if !defined(AK_WGMMA)  // sm_90a: the prelude's (the same instructions, with a memory clobber)
AK_INLINE void ak_cp_async16(void* smem, const void* gmem, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(ak_smem_addr(smem)), "l"(gmem), "r"(src_bytes));
}
AK_INLINE void ak_cp_async_commit(void) { asm volatile("cp.async.commit_group;"); }
template <int N>
AK_INLINE void ak_cp_async_wait(void) { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }
#endif

// two fp32 -> one 32-bit register of two 16-bit values (lo in the low half)
template <class D> AK_INLINE ak_u32 ak_pack2f(float lo, float hi);
template <> AK_INLINE ak_u32 ak_pack2f<ak_f16_t>(float lo, float hi) {
    ak_u32 r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
template <> AK_INLINE ak_u32 ak_pack2f<ak_bf16_t>(float lo, float hi) {
    ak_u32 r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

template <int S>
AK_INLINE ak_u32 ak_prmt(ak_u32 a, ak_u32 b) {
    ak_u32 r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "n"(S));
    return r;
}
// Two 8-bit float codes (the 16-bit half HI of x, code 0 in its low byte) ->
// a f16 pair (code 0 in the low half), exactly for every code (every e4m3 /
// e5m2 value is a f16 value): the sm_89+ conversion, one instruction a pair.
// F: 1 e4m3 (OCP E4M3FN), 2 e5m2.
#if defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define AK_CVT_F8 1
#else
#define AK_CVT_F8 0
#endif
template <int F, int HI>
AK_INLINE ak_u32 ak_f8x2_h2(ak_u32 x) {
    ak_u32 r;
    if (F == 1 && HI) asm("{.reg .b16 l, h;\n mov.b32 {l, h}, %1;\n cvt.rn.f16x2.e4m3x2 %0, h;\n}" : "=r"(r) : "r"(x));
    else if (F == 1) asm("{.reg .b16 l, h;\n mov.b32 {l, h}, %1;\n cvt.rn.f16x2.e4m3x2 %0, l;\n}" : "=r"(r) : "r"(x));
    else if (HI) asm("{.reg .b16 l, h;\n mov.b32 {l, h}, %1;\n cvt.rn.f16x2.e5m2x2 %0, h;\n}" : "=r"(r) : "r"(x));
    else asm("{.reg .b16 l, h;\n mov.b32 {l, h}, %1;\n cvt.rn.f16x2.e5m2x2 %0, l;\n}" : "=r"(r) : "r"(x));
    return r;
}

// B fragments of two n8 column blocks (n0..n0+7, n0+8..n0+15) for k = k0..k0+15
// from a row-major [k][n] shared tile (V stored [key][d]): ldmatrix.trans.
template <class D>
AK_INLINE void ak_ldsm_b2_trans(typename ak_mma<D>::B& b0, typename ak_mma<D>::B& b1, const typename D::T* s, int ld) {
    const int l = ak_lane();
    const ak_u32 p = ak_smem_addr(s + ((l % 8) + 8 * ((l / 8) % 2)) * ld + 8 * (l / 16));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(b0.r[0]), "=r"(b0.r[1]), "=r"(b1.r[0]), "=r"(b1.r[1])
                 : "r"(p));
}

// One 16-byte chunk (8 elements from column c) of a row into shared memory:
// cp.async when vec (rows 16-byte aligned, d % 8 == 0; zeros when !ok or the
// chunk is past d), else element by element (zeros past d).
template <class D>
AK_INLINE void ak_attn_chunk(typename D::T* dst, const typename D::T* src, bool ok, int c, int d, bool vec) {
    if (vec) {
        ak_cp_async16(dst, ok && c < d ? src + c : src, ok && c < d ? 16 : 0);
    } else {
        ak_u16 t[8];
#pragma unroll
        for (int e = 0; e < 8; e++) t[e] = ok && c + e < d ? *(const ak_u16*)(const void*)(src + c + e) : (ak_u16)0;
        ak_u16x8 w;
        w.x = ak_pack2(t[0], t[1]); w.y = ak_pack2(t[2], t[3]); w.z = ak_pack2(t[4], t[5]); w.w = ak_pack2(t[6], t[7]);
        *(ak_u16x8*)(void*)dst = w;
    }
}

// The flash-attention 2 kernel on mma.sync. HD: the padded head size (a
// multiple of 16; columns d .. HD - 1 are zeros), BQ = 16 WM rows per block,
// WN warps splitting each key tile (decode), BK keys per tile, ST stages,
// QREG: Q fragments kept in registers (else read from shared memory at
// every tile: head sizes whose accumulators leave no room).
// The split combine folded into the decode forms (ak_attn_mma with WN > 1, ak_attn_mma_f8): each block of
// a row tile writes its split's partials (ak_attn_combine's layout, attention.hip), then takes a ticket on
// the tile's counter (gridDim.x x gridDim.z words just before part, zeroed by the host, reset by the last
// block); the last block merges the tile's rows as ak_attn_combine does and writes O and lse. Partials of
// other blocks are read through L2 (ld.global.cg). sm: shared scratch, 16 (nsplit + 1) floats.
AK_INLINE float ak_ld_cg(const float* p) {
    float r;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(r) : "l"(p));
    return r;
}
AK_INLINE float4 ak_ld_cg4(const float* p) {
    float4 r;
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p));
    return r;
}
template <class D, int HD, int NT>
__device__ __noinline__ void ak_attn_fold(float* part, int nsplit, float* sm, int r0, int rows, int ssq, int b, int h, int hkv,
                            int group, int sq, typename D::T* ob, ak_i64 osh, ak_i64 oss, float* lse, int d, bool vv) {
    typedef typename D::T T;
    __shared__ int last;
    const int tid = (int)threadIdx.x;
    ak_u32* cnt = (ak_u32*)(void*)part - (ak_i64)gridDim.x * gridDim.z + (ak_i64)blockIdx.z * gridDim.x + blockIdx.x;
    __threadfence();  // this block's partials, before its ticket
    __syncthreads();
    if (tid == 0) {
        last = atomicAdd(cnt, 1u) == (ak_u32)nsplit - 1u;
        if (last) *cnt = 0u;  // every split has arrived: ready for the next launch on this workspace
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const int nr = rows - r0 < 16 ? rows - r0 : 16;
    const ak_i64 rows_all = (ak_i64)gridDim.z * group * sq, row0 = (ak_i64)b * hkv * group + (ak_i64)h * group;
    float* sw = sm;                  // [16][nsplit] lse, then weights
    float* sinv = sm + 16 * nsplit;  // [16]
    const float* pl = part + rows_all * nsplit * HD;
    for (int it = tid; it < nr * nsplit; it += NT) {
        const int rr = it / nsplit, s = it - rr * nsplit, r = r0 + rr;
        sw[it] = ak_ld_cg(pl + ((row0 + r / ssq) * sq + r % ssq) * nsplit + s);
    }
    __syncthreads();
    if (tid < nr) {
        float* w = sw + tid * nsplit;
        float M = -AK_INF, W = 0.0f;
        for (int s = 0; s < nsplit; s++) M = fmaxf(M, w[s]);
        for (int s = 0; s < nsplit; s++) {
            const float e = M == -AK_INF ? 0.0f : ak_exp2(w[s] - M);
            w[s] = e;
            W += e;
        }
        sinv[tid] = W > 0.0f ? 1.0f / W : 0.0f;
        const int r = r0 + tid;
        if (lse) lse[(row0 + r / ssq) * sq + r % ssq] = W > 0.0f ? (M + log2f(W)) * AK_LN2 : -AK_INF;
    }
    __syncthreads();
    enum { C4 = HD / 4 };
    for (int it = tid; it < nr * C4; it += NT) {
        const int rr = it / C4, c = (it - rr * C4) * 4, r = r0 + rr, gg = r / ssq, i = r % ssq;
        const float* po = part + ((row0 + gg) * sq + i) * nsplit * HD + c;
        const float* w = sw + rr * nsplit;
        float x0 = 0.0f, x1 = 0.0f, x2 = 0.0f, x3 = 0.0f;
        int s = 0;
        for (; s + 4 <= nsplit; s += 4) {  // four splits' loads in flight, summed in split order
            float4 p[4];
#pragma unroll
            for (int u = 0; u < 4; u++) p[u] = ak_ld_cg4(po + (ak_i64)(s + u) * HD);
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const float wu = w[s + u];
                if (wu != 0.0f) { x0 += wu * p[u].x; x1 += wu * p[u].y; x2 += wu * p[u].z; x3 += wu * p[u].w; }
            }
        }
        for (; s < nsplit; s++) {
            const float4 p = ak_ld_cg4(po + (ak_i64)s * HD);
            const float wu = w[s];
            if (wu != 0.0f) { x0 += wu * p.x; x1 += wu * p.y; x2 += wu * p.z; x3 += wu * p.w; }
        }
        const float inv = sinv[rr];
        T* op = ob + (ak_i64)(h * group + gg) * osh + (ak_i64)i * oss;
        if (vv && c + 4 <= d) {
            *(uint2*)(void*)(op + c) = make_uint2(ak_pack2f<D>(x0 * inv, x1 * inv), ak_pack2f<D>(x2 * inv, x3 * inv));
        } else {
            if (c < d) op[c] = D::from(x0 * inv);
            if (c + 1 < d) op[c + 1] = D::from(x1 * inv);
            if (c + 2 < d) op[c + 2] = D::from(x2 * inv);
            if (c + 3 < d) op[c + 3] = D::from(x3 * inv);
        }
    }
}
template <class D, int HD, int WM, int WN, int ST, int BK, bool QREG>
AK_INLINE void ak_attn_mma(AK_AMMA_PARAMS(D)) {
    typedef typename D::T T;
    typedef ak_mma<D> MM;
    enum {
        LD = HD + 8, BQ = 16 * WM, NT = 32 * WM * WN, KW = BK / WN,  // keys per warp per tile
        NTS = KW / 8,                                                // S n-tiles per warp
        NTO = HD / 8,                                                // O n-tiles
        KQ = HD / 16,                                                // k-steps of Q K^T
        CH = HD / 8                                                  // 16-byte chunks per row
    };
    static_assert(HD % 16 == 0 && KW % 16 == 0, "tile shape");
    static_assert(WN == 1 || (WN * 16 * (HD + 4) + WN * 32) * 4 <= 2 * ST * BK * LD * (int)sizeof(T), "merge space");
    extern __shared__ __align__(16) unsigned char ak_smem_raw[];
    T* qs = (T*)ak_smem_raw;           // [BQ][LD]
    T* ks = qs + BQ * LD;              // [ST][BK][LD]
    T* vs = ks + ST * BK * LD;         // [ST][BK][LD]

    const int tid = (int)threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = warp % WM, wn = warp / WM;
    const int pair = (int)blockIdx.z, b = pair / hkv, h = pair % hkv;
    (void)causal;  // folded into wr by the host
    const ak_attn_seq sg = ak_attn_seq_of(b, sq, skv, cu_q, cu_k, used_k, btab, bts, qsb, qss, ksb, kss, vsb, vss,
                                          osb, oss);
    const int rows = group * sg.sq;
    // with a right window (causal): the row tiles with the most keys first (less tail at the end of the grid)
    const int r0 = (wr >= 0 ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x) * BQ;
    if (r0 >= rows) return;  // a shorter sequence of a packed batch

    // key range of this block [kbeg, kend) (its rows' windows, the split) and the
    // tiles inside every row's window [kfull0, kfull1) (no per-element mask)
    int kbeg, kend, kfull0, kfull1;
    {
        const int rl = (r0 + BQ < rows ? r0 + BQ : rows) - 1;
        const bool span = r0 / sg.sq != rl / sg.sq;
        const int imax = span ? sg.sq - 1 : rl % sg.sq, imin = span ? 0 : r0 % sg.sq;
        kbeg = ak_attn_lo(sg, wl, imin);
        kend = ak_attn_hi(sg, wr, imax) + 1;
        kfull0 = ak_attn_lo(sg, wl, imax);
        kfull1 = ak_attn_hi(sg, wr, imin) + 1;
        const int s0 = (int)blockIdx.y * split_len;
        if (s0 > kbeg) kbeg = s0;
        if (s0 + split_len < kend) kend = s0 + split_len;
        if (kend < kfull1) kfull1 = kend;
    }
    const ak_i64 kb = sg.k0 + (ak_i64)h * ksh, vb = sg.v0 + (ak_i64)h * vsh;
    const bool vv = vec != 0;

    // Q tile -> shared (zero rows past the end)
    for (int c = tid; c < BQ * CH; c += NT) {
        const int rr = c / CH, cc = c % CH, r = r0 + rr;
        const bool ok = r < rows;
        const int g = ok ? r / sg.sq : 0, i = ok ? r % sg.sq : 0;
        ak_attn_chunk<D>(qs + rr * LD + cc * 8, q + sg.q0 + (ak_i64)(h * group + g) * qsh + (ak_i64)i * qss, ok, cc * 8, d, vv);
    }
    auto load_kv = [&](int stage, int k0) {
        T* kd = ks + stage * BK * LD;
        T* vd = vs + stage * BK * LD;
        for (int c = tid; c < BK * CH; c += NT) {
            const int rr = c / CH, cc = c % CH, j = k0 + rr;
            const bool ok = j < kend;
            const int jj = ok ? j : kbeg;
            ak_attn_chunk<D>(kd + rr * LD + cc * 8, k + ak_attn_kv(sg, kb, ksb, kss, pshift, jj), ok, cc * 8, d, vv);
            ak_attn_chunk<D>(vd + rr * LD + cc * 8, v + ak_attn_kv(sg, vb, vsb, vss, pshift, jj), ok, cc * 8, d, vv);
        }
    };
    const int ntiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
#pragma unroll
    for (int s0 = 0; s0 < ST - 1; s0++) {  // groups 0 .. ST - 2 (group 0 also holds Q)
        if (s0 < ntiles) load_kv(s0, kbeg + s0 * BK);
        ak_cp_async_commit();
    }

    // per-lane state: rows g = lane / 4 (e = 0, 1) and g + 8 (e = 2, 3) of the warp's 16
    const int lr0 = r0 + wm * 16 + lane / 4, lr1 = lr0 + 8;
    int lo0 = 1, hi0 = 0, lo1 = 1, hi1 = 0;  // visible keys of each row (none for rows past the end)
    if (lr0 < rows) { lo0 = ak_attn_lo(sg, wl, lr0 % sg.sq); hi0 = ak_attn_hi(sg, wr, lr0 % sg.sq); }
    if (lr1 < rows) { lo1 = ak_attn_lo(sg, wl, lr1 % sg.sq); hi1 = ak_attn_hi(sg, wr, lr1 % sg.sq); }
    float m0 = -AK_INF, m1 = -AK_INF, l0 = 0.0f, l1 = 0.0f;
    typename MM::C acc[NTO];
#pragma unroll
    for (int n = 0; n < NTO; n++) MM::zero(acc[n]);
    typename MM::A qf[QREG ? KQ : 1];

    for (int t = 0; t < ntiles; t++) {
        const int k0 = kbeg + t * BK, st = t % ST;
        if (t + ST - 1 < ntiles) load_kv((t + ST - 1) % ST, k0 + (ST - 1) * BK);
        ak_cp_async_commit();
        ak_cp_async_wait<ST - 1>();  // tile t (and Q) landed
        __syncthreads();
        if (QREG && t == 0) {
#pragma unroll
            for (int kk = 0; kk < (QREG ? KQ : 0); kk++) MM::load_a_ldsm(qf[kk], qs + (wm * 16) * LD + kk * 16, LD);
        }
        const T* kt = ks + st * BK * LD + (wn * KW) * LD;
        const T* vt = vs + st * BK * LD + (wn * KW) * LD;
        // S = Q K^T for this warp's KW keys
        typename MM::C s[NTS];
#pragma unroll
        for (int n = 0; n < NTS; n++) MM::zero(s[n]);
#pragma unroll
        for (int kk = 0; kk < KQ; kk++) {
            typename MM::A qa;
            if (QREG) qa = qf[QREG ? kk : 0];
            else MM::load_a_ldsm(qa, qs + (wm * 16) * LD + kk * 16, LD);
#pragma unroll
            for (int n = 0; n < NTS; n += 2) {
                typename MM::B b0, b1;
                MM::load_b2_ldsm(b0, b1, kt + (n * 8) * LD + kk * 16, LD);
                MM::mma(s[n], qa, b0);
                MM::mma(s[n + 1], qa, b1);
            }
        }
        // scale (soft-cap), mask, online softmax (rows lr0: v[0..1], lr1: v[2..3])
        const int kw0 = k0 + wn * KW;
        const bool need_mask = k0 < kfull0 || k0 + BK > kfull1;
        float mx0 = -AK_INF, mx1 = -AK_INF;
#pragma unroll
        for (int n = 0; n < NTS; n++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float x = s[n].v[e] * scale_log2;
                if (softcap > 0.0f) x = softcap * ak_fast_tanh(x);
                if (need_mask) {
                    const int j = kw0 + n * 8 + 2 * (lane % 4) + (e & 1);
                    const int lo = e < 2 ? lo0 : lo1, hi = e < 2 ? hi0 : hi1;
                    if (j < lo || j > hi || j >= kend) x = -AK_INF;
                }
                s[n].v[e] = x;
            }
            mx0 = fmaxf(mx0, fmaxf(s[n].v[0], s[n].v[1]));
            mx1 = fmaxf(mx1, fmaxf(s[n].v[2], s[n].v[3]));
        }
        mx0 = fmaxf(mx0, ak_shfl_xor(mx0, 1));
        mx0 = fmaxf(mx0, ak_shfl_xor(mx0, 2));
        mx1 = fmaxf(mx1, ak_shfl_xor(mx1, 1));
        mx1 = fmaxf(mx1, ak_shfl_xor(mx1, 2));
        const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);
        const float base0 = mn0 == -AK_INF ? 0.0f : mn0, base1 = mn1 == -AK_INF ? 0.0f : mn1;
        const float al0 = ak_exp2(m0 - base0), al1 = ak_exp2(m1 - base1);
        m0 = mn0;
        m1 = mn1;
        float ps0 = 0.0f, ps1 = 0.0f;
#pragma unroll
        for (int n = 0; n < NTS; n++) {
            s[n].v[0] = ak_exp2(s[n].v[0] - base0);
            s[n].v[1] = ak_exp2(s[n].v[1] - base0);
            s[n].v[2] = ak_exp2(s[n].v[2] - base1);
            s[n].v[3] = ak_exp2(s[n].v[3] - base1);
            ps0 += s[n].v[0] + s[n].v[1];
            ps1 += s[n].v[2] + s[n].v[3];
        }
        l0 = l0 * al0 + ps0;  // lane-partial sums, reduced over the 4 lanes of a row at the end
        l1 = l1 * al1 + ps1;
#pragma unroll
        for (int n = 0; n < NTO; n++) {
            acc[n].v[0] *= al0; acc[n].v[1] *= al0;
            acc[n].v[2] *= al1; acc[n].v[3] *= al1;
        }
        // O += P V: P (16 x KW) from the S accumulators, 16 keys per k-step
#pragma unroll
        for (int kk = 0; kk < KW / 16; kk++) {
            typename MM::A pa;
            pa.r[0] = ak_pack2f<D>(s[2 * kk].v[0], s[2 * kk].v[1]);
            pa.r[1] = ak_pack2f<D>(s[2 * kk].v[2], s[2 * kk].v[3]);
            pa.r[2] = ak_pack2f<D>(s[2 * kk + 1].v[0], s[2 * kk + 1].v[1]);
            pa.r[3] = ak_pack2f<D>(s[2 * kk + 1].v[2], s[2 * kk + 1].v[3]);
#pragma unroll
            for (int n = 0; n < NTO; n += 2) {
                typename MM::B b0, b1;
                ak_ldsm_b2_trans<D>(b0, b1, vt + (kk * 16) * LD + n * 8, LD);
                MM::mma(acc[n], pa, b0);
                MM::mma(acc[n + 1], pa, b1);
            }
        }
        __syncthreads();  // this stage is overwritten by the next iteration's copy
    }
    ak_cp_async_wait<0>();
    l0 += ak_shfl_xor(l0, 1);
    l0 += ak_shfl_xor(l0, 2);
    l1 += ak_shfl_xor(l1, 1);
    l1 += ak_shfl_xor(l1, 2);

    bool writer = true;
    if (WN > 1) {  // merge the key slots of each row tile through shared memory (tiles are free now)
        float* so = (float*)(void*)ks;         // [WN][16][HD + 4] outputs
        float* sml = so + WN * 16 * (HD + 4);  // [WN][16][2] (m, l)
        __syncthreads();
        const int g = lane / 4, c0 = 2 * (lane % 4);
#pragma unroll
        for (int n = 0; n < NTO; n++) {
            float* p0 = so + (wn * 16 + g) * (HD + 4) + n * 8 + c0;
            float* p1 = p0 + 8 * (HD + 4);
            p0[0] = acc[n].v[0]; p0[1] = acc[n].v[1];
            p1[0] = acc[n].v[2]; p1[1] = acc[n].v[3];
        }
        if (lane % 4 == 0) {
            sml[(wn * 16 + g) * 2] = m0; sml[(wn * 16 + g) * 2 + 1] = l0;
            sml[(wn * 16 + g + 8) * 2] = m1; sml[(wn * 16 + g + 8) * 2 + 1] = l1;
        }
        __syncthreads();
        writer = wn == 0;  // warp 0 merges and writes (every warp stays for the split ticket)
        if (writer) {
            float M0 = -AK_INF, M1 = -AK_INF;
            for (int w = 0; w < WN; w++) {
                M0 = fmaxf(M0, sml[(w * 16 + g) * 2]);
                M1 = fmaxf(M1, sml[(w * 16 + g + 8) * 2]);
            }
            const float B0 = M0 == -AK_INF ? 0.0f : M0, B1 = M1 == -AK_INF ? 0.0f : M1;
            float L0 = 0.0f, L1 = 0.0f;
#pragma unroll
            for (int n = 0; n < NTO; n++) MM::zero(acc[n]);
            for (int w = 0; w < WN; w++) {
                const float w0 = ak_exp2(sml[(w * 16 + g) * 2] - B0), w1 = ak_exp2(sml[(w * 16 + g + 8) * 2] - B1);
                L0 += w0 * sml[(w * 16 + g) * 2 + 1];
                L1 += w1 * sml[(w * 16 + g + 8) * 2 + 1];
#pragma unroll
                for (int n = 0; n < NTO; n++) {
                    const float* p0 = so + (w * 16 + g) * (HD + 4) + n * 8 + c0;
                    const float* p1 = p0 + 8 * (HD + 4);
                    acc[n].v[0] += w0 * p0[0]; acc[n].v[1] += w0 * p0[1];
                    acc[n].v[2] += w1 * p1[0]; acc[n].v[3] += w1 * p1[1];
                }
            }
            m0 = M0; m1 = M1; l0 = L0; l1 = L1;
        }
    }

    // write: rows lr0 / lr1, columns n * 8 + 2 (lane % 4) + {0, 1} (below d)
    const float inv0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, inv1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;
    const float lse0 = l0 > 0.0f ? m0 + log2f(l0) : -AK_INF, lse1 = l1 > 0.0f ? m1 + log2f(l1) : -AK_INF;
    const ak_i64 rows_all = (ak_i64)gridDim.z * group * sq;  // batch * hq * sq (sq: the longest sequence)
#pragma unroll
    for (int half = 0; half < 2; half++) {
        const int r = half ? lr1 : lr0;
        if (r >= rows || !writer) continue;
        const int g = r / sg.sq, i = r % sg.sq, hq_idx = h * group + g;
        const float inv = half ? inv1 : inv0, ls = half ? lse1 : lse0;
        const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;
        const int c0 = 2 * (lane % 4);
        if (nsplit > 1) {
            float* po = part + (grow * nsplit + blockIdx.y) * HD;
#pragma unroll
            for (int n = 0; n < NTO; n++) {
                po[n * 8 + c0] = acc[n].v[2 * half] * inv;
                po[n * 8 + c0 + 1] = acc[n].v[2 * half + 1] * inv;
            }
            if (lane % 4 == 0) part[rows_all * nsplit * HD + grow * nsplit + blockIdx.y] = ls;
        } else {
            T* op = o + sg.o0 + (ak_i64)hq_idx * osh + (ak_i64)i * oss;
#pragma unroll
            for (int n = 0; n < NTO; n++) {
                const int c = n * 8 + c0;
                const float x0 = acc[n].v[2 * half] * inv, x1 = acc[n].v[2 * half + 1] * inv;
                if (vv) {
                    if (c < d) *(ak_u32*)(op + c) = ak_pack2f<D>(x0, x1);
                } else {
                    if (c < d) op[c] = D::from(x0);
                    if (c + 1 < d) op[c + 1] = D::from(x1);
                }
            }
            if (lse && lane % 4 == 0) lse[grow] = ls * AK_LN2;
        }
    }
    if (WN > 1 && nsplit > 1)
        ak_attn_fold<D, HD, NT>(part, nsplit, (float*)(void*)ks, r0, rows, sg.sq, b, h, hkv, group, sq, o + sg.o0, osh,
                                oss, lse, d, vv);
}
// 8-bit K / V decode (ak_attn_mmadec<HD>_<e4m3|e5m2>_<dt>): one 16-row tile
// (a GQA group's heads), WN warps, each on its own 16 keys of every BK =
// 16 WN key tile, with its own ST cp.async stages of codes (no barrier of
// the block inside the key loop: the warps meet only to merge at the end).
// The mma runs on f16 operands whatever the output type (every code is a f16
// value; bf16 Q is copied to f16 in shared memory with a power-of-two row
// scale, undone on the scores). Codes are converted in registers, exactly,
// into the mma fragments (no 16-bit tiles; the sm_89+ conversion, one
// instruction a pair of codes): the head dimension of Q K^T is summed in another order
// (lane t of a k-step takes the four codes 4t .. 4t + 3: one 32-bit load,
// its two halves the B fragment's two registers; Q's A fragment is loaded
// in the same order), and V's fragments come from four 32-bit loads (rows
// 2t, 2t + 1, 2t + 8, 2t + 9 at the lane's 4 columns; GV = 4 n-tiles per
// word, 2 at head size 80) and byte permutes, so the output columns of n-tile
// n are the ones ak_attn_f8_col names. Code rows are SB bytes apart (16 mod
// 32: both loads conflict-free). K's scale (ksc[h],
// NULL: 1) is folded into the score scale, V's into the output scale.
template <int HD>
struct ak_attn_f8_shape {
    enum {
        SB = HD % 32 == 16 ? HD : HD + 16,  // bytes between code rows in shared memory
        GV = HD % 32 == 0 ? 4 : 2           // V: n-tiles of one 32- (16-) bit word of codes
    };
};
// the output column of n-tile n's column c (0..7)
template <int GV>
AK_INLINE int ak_attn_f8_col(int n, int c) {
    return (n / GV) * (8 * GV) + GV * c + n % GV;
}
template <class D, int HD, int WN, int ST, int F8>
AK_INLINE void ak_attn_mma_f8(AK_AMMA_PARAMS_KV(D, ak_u8), const float* AK_RESTRICT ksc,
                              const float* AK_RESTRICT vsc) {
    typedef typename D::T T;
    typedef ak_mma<ak_f16_t> MM;  // f16 operands for either D: every code is a f16 value, and so is P
    enum {
        LD = HD + 8, KW = 16, BK = KW * WN, NTO = HD / 8, KQ = HD / 16, CH8 = HD / 16,
        SB = ak_attn_f8_shape<HD>::SB, GV = ak_attn_f8_shape<HD>::GV,
        WS = 2 * KW * SB,   // one stage of one warp: K rows, then V rows
        QREG = HD <= 192    // Q fragments in registers
    };
    static_assert(HD % 16 == 0 && NTO % GV == 0, "tile shape");
    static_assert(WN == 1 || (WN * 16 * (HD + 4) + WN * 32) * 4 <= WN * ST * WS, "merge space");
    extern __shared__ __align__(16) unsigned char ak_smem_raw[];
    T* qs = (T*)ak_smem_raw;                            // [16][LD]
    ak_u8* cs = ak_smem_raw + 16 * LD * (int)sizeof(T);  // [WN][ST][2][KW][SB] codes

    const int tid = (int)threadIdx.x, lane = tid % 32, wn = tid / 32, g = lane / 4, t4 = lane % 4;
    ak_u8* wst = cs + wn * ST * WS;  // this warp's stages
    const int pair = (int)blockIdx.z, b = pair / hkv, h = pair % hkv;
    (void)causal;  // folded into wr by the host
    const ak_attn_seq sg = ak_attn_seq_of(b, sq, skv, cu_q, cu_k, used_k, btab, bts, qsb, qss, ksb, kss, vsb, vss,
                                          osb, oss);
    const int rows = group * sg.sq;
    const int r0 = (wr >= 0 ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x) * 16;
    if (r0 >= rows) return;

    int kbeg, kend, kfull0, kfull1;  // as in ak_attn_mma
    {
        const int rl = (r0 + 16 < rows ? r0 + 16 : rows) - 1;
        const bool span = r0 / sg.sq != rl / sg.sq;
        const int imax = span ? sg.sq - 1 : rl % sg.sq, imin = span ? 0 : r0 % sg.sq;
        kbeg = ak_attn_lo(sg, wl, imin);
        kend = ak_attn_hi(sg, wr, imax) + 1;
        kfull0 = ak_attn_lo(sg, wl, imax);
        kfull1 = ak_attn_hi(sg, wr, imin) + 1;
        const int s0 = (int)blockIdx.y * split_len;
        if (s0 > kbeg) kbeg = s0;
        if (s0 + split_len < kend) kend = s0 + split_len;
        if (kend < kfull1) kfull1 = kend;
    }
    const ak_i64 kb = sg.k0 + (ak_i64)h * ksh, vb = sg.v0 + (ak_i64)h * vsh;
    const bool vv = vec != 0;
    const float sl2 = ksc ? scale_log2 * ksc[h] : scale_log2;  // K's scale folded into the scores'
    const float vmul = vsc ? vsc[h] : 1.0f;                    // V's into the output's

    // Q tile -> shared (zero rows past the end)
    for (int c = tid; c < 16 * (HD / 8); c += 32 * WN) {
        const int rr = c / (HD / 8), cc = c % (HD / 8), r = r0 + rr;
        const bool ok = r < rows;
        const int gg = ok ? r / sg.sq : 0, i = ok ? r % sg.sq : 0;
        ak_attn_chunk<D>(qs + rr * LD + cc * 8, q + sg.q0 + (ak_i64)(h * group + gg) * qsh + (ak_i64)i * qss, ok, cc * 8,
                         d, vv);
    }
    // a warp's copy of its KW keys of the tile at k0: consecutive lanes on consecutive 16-byte chunks of a
    // row, so one copy instruction asks for whole rows (whole 128-byte lines at head size 128: a quarter of
    // the L2 requests that one sector a row per instruction costs); a lane looks up each of its rows once
    // for K and V
    // paged: lane l reads the table entry of row l % KW a tile ahead (pages); copies shuffle it
    enum { NIT = (KW * CH8 + 31) / 32 };
    int pgv = 0;
    auto pages = [&](int k0) {
        const int j = k0 + wn * KW + lane % KW;
        if (sg.pages) pgv = sg.pages[(j < kend ? j : kbeg) >> pshift];
    };
    // a whole tile of plain rows: lane l copies chunk l % CH8 of rows l / CH8 + RPI it (RPI rows a copy
    // instruction); the row addresses step by RPI rows from the lane's first (no per-row index arithmetic)
    enum { RPI = 32 / CH8, NITF = (KW + RPI - 1) / RPI };
    const int lr = lane / CH8, lc = lane % CH8, lb = lc * 16 < d ? 16 : 0;
    const ak_u8* kl = k + kb + (ak_i64)(wn * KW + lr) * kss + (lb ? lc * 16 : 0);
    const ak_u8* vl = v + vb + (ak_i64)(wn * KW + lr) * vss + (lb ? lc * 16 : 0);
    auto load = [&](int stage, int k0) {
        ak_u8* kd = wst + stage * WS;
        ak_u8* vd = kd + KW * SB;
        if (!sg.pages && k0 + BK <= kend) {
            const ak_u8* kp = kl + (ak_i64)k0 * kss;
            const ak_u8* vp = vl + (ak_i64)k0 * vss;
#pragma unroll
            for (int it = 0; it < NITF; it++) {
                const int r = it * RPI + lr;
                if (lane < RPI * CH8 && (KW % RPI == 0 || r < KW)) {
                    ak_cp_async16(kd + r * SB + lc * 16, kp, lb);
                    ak_cp_async16(vd + r * SB + lc * 16, vp, lb);
                }
                kp += RPI * kss;
                vp += RPI * vss;
            }
            return;
        }
#pragma unroll
        for (int it = 0; it < NIT; it++) {
            const int qc = it * 32 + lane, r = qc / CH8, c = qc % CH8;
            const ak_i64 pr = sg.pages ? (ak_i64)__shfl_sync(0xFFFFFFFFu, pgv, r % KW) : 0;  // whole warp
            if ((KW * CH8) % 32 != 0 && qc >= KW * CH8) break;
            const int j = k0 + wn * KW + r;
            const bool ok = j < kend, in = ok && c * 16 < d;
            const int jj = ok ? j : kbeg;
            const ak_i64 jr = sg.pages ? (ak_i64)(jj & ((1 << pshift) - 1)) : (ak_i64)jj;  // row within the page
            const ak_u8* kr = k + kb + pr * ksb + jr * kss;
            const ak_u8* vr = v + vb + pr * vsb + jr * vss;
            ak_cp_async16(kd + r * SB + c * 16, in ? kr + c * 16 : kr, in ? 16 : 0);
            ak_cp_async16(vd + r * SB + c * 16, in ? vr + c * 16 : vr, in ? 16 : 0);
        }
    };
    const int ntiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
#pragma unroll
    for (int s0 = 0; s0 < ST - 1; s0++) {  // groups 0 .. ST - 2 (group 0 also holds Q)
        if (s0 < ntiles) {
            pages(kbeg + s0 * BK);
            load(s0, kbeg + s0 * BK);
        }
        ak_cp_async_commit();
    }
    if (ST - 1 < ntiles) pages(kbeg + (ST - 1) * BK);
    // Q's A fragment of k-step kk in the codes' order: columns 16 kk + 4 t4 + {0, 1} (registers 0 / 1: rows g,
    // g + 8) and + {2, 3} (registers 2 / 3)
    auto load_q = [&](typename MM::A& a, int kk) {
        const T* p = qs + g * LD + kk * 16 + 4 * t4;
        const uint2 x0 = *(const uint2*)(const void*)p, x1 = *(const uint2*)(const void*)(p + 8 * LD);
        a.r[0] = x0.x; a.r[1] = x1.x; a.r[2] = x0.y; a.r[3] = x1.y;
    };
    typename MM::A qf[QREG ? KQ : 1];
    ak_cp_async_wait<ST - 2>();  // group 0: Q (and stage 0)
    __syncthreads();
    // bf16 Q -> f16 in place, each row times the power of two 2^e that takes its largest magnitude into
    // [2^14, 2^15) (exact but for elements 2^29 below it); the scores of the row are scaled back by 2^-e
    __shared__ float qfac[16];
    if (!ak_is_f16<D>::value) {
        enum { TPR = 2 * WN };  // threads a row, lanes of one warp
        const int row = tid / TPR, sub = tid % TPR;
        ak_u32* qw = (ak_u32*)(void*)(qs + row * LD);
        float mx = 0.0f;
        for (int c = sub; c < HD / 2; c += TPR) {
            const ak_u32 w = qw[c];
            mx = fmaxf(mx, fmaxf(fabsf(__uint_as_float(w << 16)), fabsf(__uint_as_float(w & 0xFFFF0000u))));
        }
#pragma unroll
        for (int o = 1; o < TPR; o *= 2) mx = fmaxf(mx, ak_shfl_xor(mx, o));
        int e = mx > 0.0f ? 141 - (int)((__float_as_uint(mx) >> 23) & 0xFFu) : 0;  // 14 - unbiased exponent
        e = e < -126 ? -126 : e > 126 ? 126 : e;
        const float f = __uint_as_float((ak_u32)(127 + e) << 23);
        for (int c = sub; c < HD / 2; c += TPR) {
            const ak_u32 w = qw[c];
            qw[c] = ak_pack2f<ak_f16_t>(__uint_as_float(w << 16) * f, __uint_as_float(w & 0xFFFF0000u) * f);
        }
        if (sub == 0) qfac[row] = __uint_as_float((ak_u32)(127 - e) << 23);
        __syncthreads();
    }
    if (QREG) {
#pragma unroll
        for (int kk = 0; kk < (QREG ? KQ : 0); kk++) load_q(qf[kk], kk);
    }

    const float sl0 = ak_is_f16<D>::value ? sl2 : sl2 * qfac[g];  // rows g / g + 8: score scales
    const float sl1 = ak_is_f16<D>::value ? sl2 : sl2 * qfac[g + 8];
    const int lr0 = r0 + g, lr1 = lr0 + 8;
    int lo0 = 1, hi0 = 0, lo1 = 1, hi1 = 0;
    if (lr0 < rows) { lo0 = ak_attn_lo(sg, wl, lr0 % sg.sq); hi0 = ak_attn_hi(sg, wr, lr0 % sg.sq); }
    if (lr1 < rows) { lo1 = ak_attn_lo(sg, wl, lr1 % sg.sq); hi1 = ak_attn_hi(sg, wr, lr1 % sg.sq); }
    float m0 = -AK_INF, m1 = -AK_INF, l0 = 0.0f, l1 = 0.0f;
    typename MM::C acc[NTO];
#pragma unroll
    for (int n = 0; n < NTO; n++) MM::zero(acc[n]);

    for (int t = 0; t < ntiles; t++) {
        const int k0 = kbeg + t * BK;
        if (t + ST - 1 < ntiles) load((t + ST - 1) % ST, k0 + (ST - 1) * BK);
        if (t + ST < ntiles) pages(k0 + ST * BK);  // for the next copy
        ak_cp_async_commit();
        ak_cp_async_wait<ST - 1>();  // tile t landed (this lane's copies)
        __syncwarp();                // and the warp's
        const ak_u8* kc = wst + (t % ST) * WS;
        const ak_u8* vc = kc + KW * SB;
        // S = Q K^T for the warp's 16 keys (n-tile n: keys 8 n + g of the B fragment)
        typename MM::C s[2];
        MM::zero(s[0]);
        MM::zero(s[1]);
#pragma unroll
        for (int kk = 0; kk < KQ; kk++) {
            typename MM::A qa;
            if (QREG) qa = qf[QREG ? kk : 0];
            else load_q(qa, kk);
#pragma unroll
            for (int n = 0; n < 2; n++) {
                const ak_u32 w = *(const ak_u32*)(const void*)(kc + (n * 8 + g) * SB + kk * 16 + 4 * t4);
                typename MM::B kf;
                kf.r[0] = ak_f8x2_h2<F8, 0>(w);
                kf.r[1] = ak_f8x2_h2<F8, 1>(w);
                MM::mma(s[n], qa, kf);
            }
        }
        // scale (soft-cap), mask, online softmax (rows lr0: v[0..1], lr1: v[2..3])
        const int kw0 = k0 + wn * KW;
        const bool need_mask = k0 < kfull0 || k0 + BK > kfull1;
        float mx0 = -AK_INF, mx1 = -AK_INF;
#pragma unroll
        for (int n = 0; n < 2; n++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float x = s[n].v[e] * (e < 2 ? sl0 : sl1);
                if (softcap > 0.0f) x = softcap * ak_fast_tanh(x);
                if (need_mask) {
                    const int j = kw0 + n * 8 + 2 * t4 + (e & 1);
                    const int lo = e < 2 ? lo0 : lo1, hi = e < 2 ? hi0 : hi1;
                    if (j < lo || j > hi || j >= kend) x = -AK_INF;
                }
                s[n].v[e] = x;
            }
            mx0 = fmaxf(mx0, fmaxf(s[n].v[0], s[n].v[1]));
            mx1 = fmaxf(mx1, fmaxf(s[n].v[2], s[n].v[3]));
        }
        mx0 = fmaxf(mx0, ak_shfl_xor(mx0, 1));
        mx0 = fmaxf(mx0, ak_shfl_xor(mx0, 2));
        mx1 = fmaxf(mx1, ak_shfl_xor(mx1, 1));
        mx1 = fmaxf(mx1, ak_shfl_xor(mx1, 2));
        const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);
        const float base0 = mn0 == -AK_INF ? 0.0f : mn0, base1 = mn1 == -AK_INF ? 0.0f : mn1;
        const float al0 = ak_exp2(m0 - base0), al1 = ak_exp2(m1 - base1);
        const bool grew = mn0 != m0 || mn1 != m1;  // else al0 = al1 = 1 (or both maxima still -inf)
        m0 = mn0;
        m1 = mn1;
        float ps0 = 0.0f, ps1 = 0.0f;
#pragma unroll
        for (int n = 0; n < 2; n++) {
            s[n].v[0] = ak_exp2(s[n].v[0] - base0);
            s[n].v[1] = ak_exp2(s[n].v[1] - base0);
            s[n].v[2] = ak_exp2(s[n].v[2] - base1);
            s[n].v[3] = ak_exp2(s[n].v[3] - base1);
            ps0 += s[n].v[0] + s[n].v[1];
            ps1 += s[n].v[2] + s[n].v[3];
        }
        l0 = l0 * al0 + ps0;  // lane-partial sums, reduced over the 4 lanes of a row at the end
        l1 = l1 * al1 + ps1;
        if (__any_sync(0xFFFFFFFFu, grew)) {
#pragma unroll
            for (int n = 0; n < NTO; n++) {
                acc[n].v[0] *= al0; acc[n].v[1] *= al0;
                acc[n].v[2] *= al1; acc[n].v[3] *= al1;
            }
        }
        // O += P V: P (16 x 16) from the S accumulators; V's B fragments (keys 2 t4, 2 t4 + 1 | + 8, + 9;
        // column ak_attn_f8_col(n, g)) from the codes of rows 2 t4, 2 t4 + 1, 2 t4 + 8, 2 t4 + 9
        typename MM::A pa;
        pa.r[0] = ak_pack2f<ak_f16_t>(s[0].v[0], s[0].v[1]);
        pa.r[1] = ak_pack2f<ak_f16_t>(s[0].v[2], s[0].v[3]);
        pa.r[2] = ak_pack2f<ak_f16_t>(s[1].v[0], s[1].v[1]);
        pa.r[3] = ak_pack2f<ak_f16_t>(s[1].v[2], s[1].v[3]);
        {
            const ak_u8* vr = vc + (2 * t4) * SB + GV * g;
#pragma unroll
            for (int G = 0; G < NTO / GV; G++) {
                ak_u32 w0, w1, w2, w3;  // rows 2 t4, 2 t4 + 1, 2 t4 + 8, 2 t4 + 9
                if (GV == 4) {
                    w0 = *(const ak_u32*)(const void*)(vr + G * 32);
                    w1 = *(const ak_u32*)(const void*)(vr + SB + G * 32);
                    w2 = *(const ak_u32*)(const void*)(vr + 8 * SB + G * 32);
                    w3 = *(const ak_u32*)(const void*)(vr + 9 * SB + G * 32);
                } else {
                    w0 = *(const ak_u16*)(const void*)(vr + G * 16);
                    w1 = *(const ak_u16*)(const void*)(vr + SB + G * 16);
                    w2 = *(const ak_u16*)(const void*)(vr + 8 * SB + G * 16);
                    w3 = *(const ak_u16*)(const void*)(vr + 9 * SB + G * 16);
                }
                // code pairs (first row's code in the low byte) of codes 0 / 1 (x01, y01) and 2 / 3 (x23, y23)
                const ak_u32 x01 = ak_prmt<0x5140>(w0, w1), y01 = ak_prmt<0x5140>(w2, w3);
                const ak_u32 x23 = GV == 4 ? ak_prmt<0x7362>(w0, w1) : 0u, y23 = GV == 4 ? ak_prmt<0x7362>(w2, w3) : 0u;
#pragma unroll
                for (int i = 0; i < GV; i++) {
                    typename MM::B vf;
                    if (i == 0) { vf.r[0] = ak_f8x2_h2<F8, 0>(x01); vf.r[1] = ak_f8x2_h2<F8, 0>(y01); }
                    else if (i == 1) { vf.r[0] = ak_f8x2_h2<F8, 1>(x01); vf.r[1] = ak_f8x2_h2<F8, 1>(y01); }
                    else if (i == 2) { vf.r[0] = ak_f8x2_h2<F8, 0>(x23); vf.r[1] = ak_f8x2_h2<F8, 0>(y23); }
                    else { vf.r[0] = ak_f8x2_h2<F8, 1>(x23); vf.r[1] = ak_f8x2_h2<F8, 1>(y23); }
                    MM::mma(acc[G * GV + i], pa, vf);
                }
            }
        }
        __syncwarp();  // this stage is overwritten by the next iteration's copy
    }
    ak_cp_async_wait<0>();
    l0 += ak_shfl_xor(l0, 1);
    l0 += ak_shfl_xor(l0, 2);
    l1 += ak_shfl_xor(l1, 1);
    l1 += ak_shfl_xor(l1, 2);

    bool writer = true;
    if (WN > 1) {  // merge the warps' key slots through shared memory (the stages are free now)
        float* so = (float*)(void*)cs;         // [WN][16][HD + 4] outputs
        float* sml = so + WN * 16 * (HD + 4);  // [WN][16][2] (m, l)
        __syncthreads();
        const int c0 = 2 * t4;
#pragma unroll
        for (int n = 0; n < NTO; n++) {
            float* p0 = so + (wn * 16 + g) * (HD + 4) + n * 8 + c0;
            float* p1 = p0 + 8 * (HD + 4);
            p0[0] = acc[n].v[0]; p0[1] = acc[n].v[1];
            p1[0] = acc[n].v[2]; p1[1] = acc[n].v[3];
        }
        if (t4 == 0) {
            sml[(wn * 16 + g) * 2] = m0; sml[(wn * 16 + g) * 2 + 1] = l0;
            sml[(wn * 16 + g + 8) * 2] = m1; sml[(wn * 16 + g + 8) * 2 + 1] = l1;
        }
        __syncthreads();
        writer = wn == 0;  // warp 0 merges and writes (every warp stays for the split ticket)
        if (writer) {
            float M0 = -AK_INF, M1 = -AK_INF;
            for (int w = 0; w < WN; w++) {
                M0 = fmaxf(M0, sml[(w * 16 + g) * 2]);
                M1 = fmaxf(M1, sml[(w * 16 + g + 8) * 2]);
            }
            const float B0 = M0 == -AK_INF ? 0.0f : M0, B1 = M1 == -AK_INF ? 0.0f : M1;
            float L0 = 0.0f, L1 = 0.0f;
#pragma unroll
            for (int n = 0; n < NTO; n++) MM::zero(acc[n]);
            for (int w = 0; w < WN; w++) {
                const float w0 = ak_exp2(sml[(w * 16 + g) * 2] - B0), w1 = ak_exp2(sml[(w * 16 + g + 8) * 2] - B1);
                L0 += w0 * sml[(w * 16 + g) * 2 + 1];
                L1 += w1 * sml[(w * 16 + g + 8) * 2 + 1];
#pragma unroll
                for (int n = 0; n < NTO; n++) {
                    const float* p0 = so + (w * 16 + g) * (HD + 4) + n * 8 + c0;
                    const float* p1 = p0 + 8 * (HD + 4);
                    acc[n].v[0] += w0 * p0[0]; acc[n].v[1] += w0 * p0[1];
                    acc[n].v[2] += w1 * p1[0]; acc[n].v[3] += w1 * p1[1];
                }
            }
            m0 = M0; m1 = M1; l0 = L0; l1 = L1;
        }
    }

    // write: rows lr0 / lr1; per group of GV n-tiles the lane holds 2 GV consecutive columns
    // (ak_attn_f8_col(n, 2 t4 + e) = G 8 GV + 2 t4 GV + e GV + n % GV)
    const float inv0 = l0 > 0.0f ? vmul / l0 : 0.0f, inv1 = l1 > 0.0f ? vmul / l1 : 0.0f;
    const float lse0 = l0 > 0.0f ? m0 + log2f(l0) : -AK_INF, lse1 = l1 > 0.0f ? m1 + log2f(l1) : -AK_INF;
    const ak_i64 rows_all = (ak_i64)gridDim.z * group * sq;  // batch * hq * sq (sq: the longest sequence)
#pragma unroll
    for (int half = 0; half < 2; half++) {
        const int r = half ? lr1 : lr0;
        if (r >= rows || !writer) continue;
        const int gg = r / sg.sq, i = r % sg.sq, hq_idx = h * group + gg;
        const float inv = half ? inv1 : inv0, ls = half ? lse1 : lse0;
        const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;
        float* po = nsplit > 1 ? part + (grow * nsplit + blockIdx.y) * HD : (float*)0;
        T* op = o + sg.o0 + (ak_i64)hq_idx * osh + (ak_i64)i * oss;
#pragma unroll
        for (int G = 0; G < NTO / GV; G++) {
            const int c = ak_attn_f8_col<GV>(G * GV, 2 * t4);  // the first of 2 GV columns
            float x[2 * GV];
#pragma unroll
            for (int e = 0; e < 2; e++) {
#pragma unroll
                for (int n = 0; n < GV; n++) x[e * GV + n] = acc[G * GV + n].v[2 * half + e] * inv;
            }
            if (po) {
#pragma unroll
                for (int e = 0; e < 2 * GV; e++) po[c + e] = x[e];
            } else if (vv && c + 2 * GV <= d) {
                ak_u32 pk[GV];
#pragma unroll
                for (int e = 0; e < GV; e++) pk[e] = ak_pack2f<D>(x[2 * e], x[2 * e + 1]);
                if (GV == 4) *(uint4*)(void*)(op + c) = make_uint4(pk[0], pk[1 % GV], pk[2 % GV], pk[3 % GV]);
                else *(uint2*)(void*)(op + c) = make_uint2(pk[0], pk[1 % GV]);
            } else {
#pragma unroll
                for (int e = 0; e < 2 * GV; e++)
                    if (c + e < d) op[c + e] = D::from(x[e]);
            }
        }
        if (lane % 4 == 0) {
            if (nsplit > 1) part[rows_all * nsplit * HD + grow * nsplit + blockIdx.y] = ls;
            else if (lse) lse[grow] = ls * AK_LN2;
        }
    }    if (nsplit > 1)
        ak_attn_fold<D, HD, 32 * WN>(part, nsplit, (float*)(void*)cs, r0, rows, sg.sq, b, h, hkv, group, sq, o + sg.o0,
                                     osh, oss, lse, d, vv);
}
// prefill: 4 warps x 16 rows, 2 stages of 64 keys (32 past head size 128: shared memory, registers);
// decode: one 16-row tile, 4 warps splitting 64-key tiles in 3 stages (head sizes past 128: 2 warps, 32 keys, 2 stages)
#define AK_AMMA_BODY(D, HD, WM, WN) \
    ak_attn_mma<D, HD, WM, (HD > 128 && WN > 1 ? 2 : WN), (WN > 1 && HD <= 128 ? 3 : 2), (HD > 128 ? 32 : 64), \
                (HD <= 192)>(AK_AMMA_ARGS)
#define AK_AMMA_NV_BODY(D, HD, WM, WN) AK_AMMA_BODY(D, HD, WM, WN)
// 8-bit K / V decode: the decode form's warps (4; 2 past head size 128), 3 stages of codes a warp
#if AK_CVT_F8
#define AK_AMMA_F8_BODY(D, HD, F8) \
    ak_attn_mma_f8<D, HD, (HD > 128 ? 2 : 4), AK_AMMA_F8_ST, F8>(AK_AMMA_ARGS, ksc, vsc)
#else  // before sm_89 (no 8-bit conversion): never launched, the host dequantises
#define AK_AMMA_F8_BODY(D, HD, F8) \
    do { \
    } while (0)
#endif
#else
// AMD: the generic path (WM waves; the decode form is one wave). Targets
// without a matrix instruction get empty kernels (one source for every
// target); the host never launches them there (it runs the SIMT family).
#define AK_AMMA_BODY(D, HD, WM, WN) AK_AMMA_GEN_BODY(D, HD, WM)
#define AK_AMMA_NV_BODY(D, HD, WM, WN) \
    do { \
    } while (0)
#define AK_AMMA_F8_BODY(D, HD, F8) \
    do { \
    } while (0)
#endif

// Threads of a block, the kernel's launch bound: NVIDIA runs WM x WN warps of 32 (the decode forms past head
// size 128: WM x 2); AMD runs the generic path with WM waves of AK_WAVE (the decode form: one wave). The host
// launches exactly this many (_ak_attn_plan_path in amdkit.h); tests/launch_plan_check.sh holds the code
// objects to it.
// The 8-bit K / V decode kernels ask for registers that let 3 blocks share an SM (their shared memory does).
#if defined(AK_MMA_SYNC)
#define AK_AMMA_THREADS(HD, WM, WN) (32 * (WM) * ((HD) > 128 && (WN) > 1 ? 2 : (WN)))
#define AK_AMMA_F8_BLOCKS(HD) ((HD) <= 128 ? 3 : 1)
#else
#define AK_AMMA_THREADS(HD, WM, WN) (AK_WAVE * (WM))
#define AK_AMMA_F8_BLOCKS(HD) 1
#endif

// Same argument list as the SIMT kernels (R unused: rows per block fixed).
#define AK_AMMA(NAME, HD, WM, WN, DT, D) \
    AK_KERNEL void __launch_bounds__(AK_AMMA_THREADS(HD, WM, WN)) NAME##HD##_##DT(AK_AMMA_KPARAMS(D)) { \
        (void)R; \
        AK_KONLY(NAME##HD##_##DT) { AK_AMMA_BODY(D, HD, WM, WN); } \
    }
// head sizes of the NVIDIA kernel only (AMD: empty bodies, never launched; head_dim 80 runs on 96 there)
#define AK_AMMA_NV(NAME, HD, WM, WN, DT, D) \
    AK_KERNEL void __launch_bounds__(AK_AMMA_THREADS(HD, WM, WN)) NAME##HD##_##DT(AK_AMMA_KPARAMS(D)) { \
        (void)R; \
        AK_KONLY(NAME##HD##_##DT) { AK_AMMA_NV_BODY(D, HD, WM, WN); } \
    }
// the 8-bit K / V decode kernels (NVIDIA only: AMD bodies are empty, never launched): K and V fp8 codes,
// per-kv-head scales ksc / vsc (NULL: 1)
#define AK_AMMA_F8(HD, FN, F8, DT, D) \
    AK_KERNEL void __launch_bounds__(AK_AMMA_THREADS(HD, 1, 4), AK_AMMA_F8_BLOCKS(HD)) ak_attn_mmadec##HD##_##FN##_##DT( \
        const D::T* q, const ak_u8* k, const ak_u8* v, D::T* o, float* lse, int hkv, int group, int sq, int skv, \
        int d, ak_i64 qsb, ak_i64 qsh, ak_i64 qss, ak_i64 ksb, ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh, \
        ak_i64 vss, ak_i64 osb, ak_i64 osh, ak_i64 oss, float scale_log2, int causal, int R, int nsplit, \
        int split_len, float* part, int vec, const int* cu_q, const int* cu_k, const int* used_k, const int* btab, \
        int bts, int pshift, int wl, int wr, float softcap, const float* ksc, const float* vsc) { \
        (void)R; \
        AK_KONLY(ak_attn_mmadec##HD##_##FN##_##DT) { AK_AMMA_F8_BODY(D, HD, F8); } \
    }
#define AK_AMMA_F8X4(HD) \
    AK_AMMA_F8(HD, e4m3, 1, f16, ak_f16_t) \
    AK_AMMA_F8(HD, e4m3, 1, bf16, ak_bf16_t) \
    AK_AMMA_F8(HD, e5m2, 2, f16, ak_f16_t) \
    AK_AMMA_F8(HD, e5m2, 2, bf16, ak_bf16_t)
#define AK_AMMA_NV4(HD) \
    AK_AMMA_NV(ak_attn_mma, HD, 4, 1, f16, ak_f16_t) \
    AK_AMMA_NV(ak_attn_mma, HD, 4, 1, bf16, ak_bf16_t) \
    AK_AMMA_NV(ak_attn_mmadec, HD, 1, 4, f16, ak_f16_t) \
    AK_AMMA_NV(ak_attn_mmadec, HD, 1, 4, bf16, ak_bf16_t)
// head sizes of every matrix target (AMD: the generic path)
#define AK_AMMA4(HD) \
    AK_AMMA(ak_attn_mma, HD, 4, 1, f16, ak_f16_t) \
    AK_AMMA(ak_attn_mma, HD, 4, 1, bf16, ak_bf16_t) \
    AK_AMMA(ak_attn_mmadec, HD, 1, 4, f16, ak_f16_t) \
    AK_AMMA(ak_attn_mmadec, HD, 1, 4, bf16, ak_bf16_t)

// AK_AMMA_ONLY=N (the host passes it): only head size N's kernels, a
// smaller program; without it, the whole family.
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 64
AK_AMMA(ak_attn_mma, 64, 4, 1, f16, ak_f16_t)
AK_AMMA(ak_attn_mma, 64, 4, 1, bf16, ak_bf16_t)
AK_AMMA(ak_attn_mmadec, 64, 1, 4, f16, ak_f16_t)
AK_AMMA(ak_attn_mmadec, 64, 1, 4, bf16, ak_bf16_t)
AK_AMMA_F8X4(64)
#endif
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 128
AK_AMMA(ak_attn_mma, 128, 4, 1, f16, ak_f16_t)
AK_AMMA(ak_attn_mma, 128, 4, 1, bf16, ak_bf16_t)
AK_AMMA(ak_attn_mmadec, 128, 1, 4, f16, ak_f16_t)
AK_AMMA(ak_attn_mmadec, 128, 1, 4, bf16, ak_bf16_t)
AK_AMMA_F8X4(128)
#endif
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 32
AK_AMMA4(32)
AK_AMMA_F8X4(32)
#endif
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 80
AK_AMMA_NV4(80)
AK_AMMA_F8X4(80)
#endif
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 96
AK_AMMA4(96)
AK_AMMA_F8X4(96)
#endif
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 160
AK_AMMA4(160)
AK_AMMA_F8X4(160)
#endif
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 192
AK_AMMA4(192)
AK_AMMA_F8X4(192)
#endif
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 256
AK_AMMA4(256)
AK_AMMA_F8X4(256)
#endif

// the generic path under its own name on every target (4 waves)
#define AK_AMMA_GEN(HD, DT, D) \
    AK_KERNEL void __launch_bounds__(4 * AK_WAVE) ak_attn_mmagen##HD##_##DT(AK_AMMA_KPARAMS(D)) { \
        (void)R; \
        AK_KONLY(ak_attn_mmagen##HD##_##DT) { AK_AMMA_GEN_BODY(D, HD, 4); } \
    }
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 64
AK_AMMA_GEN(64, f16, ak_f16_t)
AK_AMMA_GEN(64, bf16, ak_bf16_t)
#endif
#if !defined(AK_AMMA_ONLY) || AK_AMMA_ONLY == 128
AK_AMMA_GEN(128, f16, ak_f16_t)
AK_AMMA_GEN(128, bf16, ak_bf16_t)
#endif
