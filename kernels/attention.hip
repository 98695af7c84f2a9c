// kernels/attention.hip - fused attention forward, SIMT path (every arch; the
// path of matrix_cores = off, gfx906, gfx1030, f32 inputs and head sizes the
// matrix-core kernels do not take), and the combine step of the split
// (flash-decoding) path. Host wrapper: ak_attention in amdkit.h
// (>>impl:ops-attention), which also holds the CPU reference.
//
// O = softmax(scale * Q K^T [+ causal mask]) V, one pass over K / V with an
// online softmax in fp32 (scores never stored). Rows: a kernel block works on
// the rows of one (batch, kv head) pair: row r = g * seq_q + i, g the query
// head inside the GQA group (hq = hkv * group + g), i the query index; so the
// rows of a pair are its group's query heads one after another, and a row's
// global index (b * hq + hq_idx) * seq_q + i is also its lse index.
// Causal mask, bottom-right aligned (FlashAttention 2): query i sees keys
// j <= i + seq_kv - seq_q; a row that sees no key gets O = 0, lse = -inf.
//
// Block: 256 threads in groups of G = DMAX / 16 lanes; each group owns one
// row (16 of its q and o elements per lane: lane l holds dims l + G * e) and
// a `slot`: with R rows per block there are 256 / G / R slots, and slot s
// takes the keys c of each tile with c % slots == s (R < 256 / G when a pair
// has few rows: decode). Slots are merged through shared memory at the end.
// K / V tiles of BK = 4096 / DMAX keys live in shared memory as fp32 rows of
// DMAX + G floats (the pad keeps the groups of a wave on distinct banks); the
// next tile is loaded into registers while the current one is used.
// Scores are kept in base 2: q is pre-multiplied by scale * log2(e).
//
// Split (flash-decoding): blockIdx.y = split s takes keys
// [s * split_len, (s + 1) * split_len); with nsplit > 1 a block writes its
// normalized partial output (part, fp32, [row][split][DMAX]) and its base-2
// log-sum-exp (after the partial outputs: [row][split]) instead of O, and
// ak_attn_combine merges the splits of each row.
//
// kernels: ak_attn_combine_f32 ak_attn_combine_f16 ak_attn_combine_bf16 ak_attn_simt32_f32 ak_attn_simt32_f16 ak_attn_simt32_bf16 ak_attn_simt64_f32 ak_attn_simt64_f16 ak_attn_simt64_bf16 ak_attn_simt128_f32 ak_attn_simt128_f16 ak_attn_simt128_bf16 ak_attn_simt256_f32 ak_attn_simt256_f16 ak_attn_simt256_bf16

#define AK_ATTN_THREADS 256
#define AK_ATTN_CH 4   // keys per online-softmax update of a group

// Load a tile's 8-element chunk `ci` (of BK * DMAX / 8) of key rows
// [k0, k0 + BK) of one (sequence, head) (rows >= klim and dims >= d read as 0)
// into f[8] (fp32); base / sb / ss / pshift as ak_attn_kv.
template <class D, int DMAX>
AK_INLINE void ak_attn_ld_chunk(const typename D::T* p, const ak_attn_seq& s, ak_i64 base, ak_i64 sb, ak_i64 ss,
                                int pshift, int k0, int klim, int d, int ci, bool vec, float f[8]) {
    const int c = ci / (DMAX / 8), dd = (ci % (DMAX / 8)) * 8;
    const int row = k0 + c;
    if (row >= klim) {
#pragma unroll
        for (int e = 0; e < 8; e++) f[e] = 0.0f;
        return;
    }
    const typename D::T* rp = p + ak_attn_kv(s, base, sb, ss, pshift, row);
    if (vec && dd < d) {
        D::ld8(rp + dd, f);
    } else {
#pragma unroll
        for (int e = 0; e < 8; e++) f[e] = dd + e < d ? D::to(rp[dd + e]) : 0.0f;
    }
}

template <class D, int DMAX>
AK_INLINE void ak_attn_simt(const typename D::T* AK_RESTRICT q, const typename D::T* AK_RESTRICT k,
                            const typename D::T* AK_RESTRICT v, typename D::T* AK_RESTRICT o, float* AK_RESTRICT lse,
                            int hkv, int group, int sq, int skv, int d, ak_i64 qsb, ak_i64 qsh, ak_i64 qss, ak_i64 ksb,
                            ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh, ak_i64 vss, ak_i64 osb, ak_i64 osh,
                            ak_i64 oss, float scale_log2, int causal, int R, int nsplit, int split_len,
                            float* AK_RESTRICT part, int vec, const int* cu_q, const int* cu_k, const int* used_k,
                            const int* btab, int bts, int pshift, int wl, int wr, float softcap) {
    typedef typename D::T T;
    enum { G = DMAX / 16, E = 16, NG = AK_ATTN_THREADS / G, BK = 4096 / DMAX, LD = DMAX + G,
           CHUNKS = BK * DMAX / 8 / AK_ATTN_THREADS };
    __shared__ float ks[BK * LD];
    __shared__ float vs[BK * LD];
    __shared__ float ml[2 * NG];

    const int tid = (int)threadIdx.x, lane = tid % G, gi = tid / G;
    const int row = gi % R, slots = NG / R, slot = gi / R;
    const int pair = (int)blockIdx.z, b = pair / hkv, h = pair % hkv;
    (void)causal;  // folded into wr by the host
    const ak_attn_seq sg = ak_attn_seq_of(b, sq, skv, cu_q, cu_k, used_k, btab, bts, qsb, qss, ksb, kss, vsb, vss,
                                          osb, oss);
    const int rows = group * sg.sq;
    const int r0 = (int)blockIdx.x * R;
    if (r0 >= rows) return;  // a shorter sequence of a packed batch
    const int r = r0 + row;
    const bool valid = r < rows;
    const int g = valid ? r / sg.sq : 0, i = valid ? r % sg.sq : 0;
    const int hq_idx = h * group + g;

    // keys this block needs: [kbeg, kend) (the union of its rows' windows, within the split)
    int kbeg, kend;
    {
        const int rl = (r0 + R < rows ? r0 + R : rows) - 1;
        const bool span = r0 / sg.sq != rl / sg.sq;
        const int imax = span ? sg.sq - 1 : rl % sg.sq, imin = span ? 0 : r0 % sg.sq;
        kend = ak_attn_hi(sg, wr, imax) + 1;
        kbeg = ak_attn_lo(sg, wl, imin);
        const int s0 = (int)blockIdx.y * split_len, se = s0 + split_len;
        if (se < kend) kend = se;
        if (s0 > kbeg) kbeg = s0;
    }
    // this row's keys, within the block's range (a window's tiles start off the split's grid, so a tile can
    // reach past kend: its zero-filled rows must not count)
    const int mylo = ak_attn_lo(sg, wl, i), myhi = min(ak_attn_hi(sg, wr, i), kend - 1);

    const ak_i64 kb = sg.k0 + (ak_i64)h * ksh, vb = sg.v0 + (ak_i64)h * vsh;

    float qr[E], acc[E];
    {
        const T* qp = q + sg.q0 + (ak_i64)hq_idx * qsh + (ak_i64)i * qss;
#pragma unroll
        for (int e = 0; e < E; e++) {
            const int dd = lane + G * e;
            qr[e] = (valid && dd < d) ? D::to(qp[dd]) * scale_log2 : 0.0f;
            acc[e] = 0.0f;
        }
    }
    float m = -AK_INF, l = 0.0f;

    float pk[CHUNKS][8], pv[CHUNKS][8];
    if (kbeg < kend) {
#pragma unroll
        for (int c = 0; c < CHUNKS; c++) {
            ak_attn_ld_chunk<D, DMAX>(k, sg, kb, ksb, kss, pshift, kbeg, kend, d, tid + c * AK_ATTN_THREADS, vec != 0, pk[c]);
            ak_attn_ld_chunk<D, DMAX>(v, sg, vb, vsb, vss, pshift, kbeg, kend, d, tid + c * AK_ATTN_THREADS, vec != 0, pv[c]);
        }
    }
    for (int k0 = kbeg; k0 < kend; k0 += BK) {
        __syncthreads();  // previous tile fully used
#pragma unroll
        for (int c = 0; c < CHUNKS; c++) {
            const int ci = tid + c * AK_ATTN_THREADS;
            const int cc = ci / (DMAX / 8), dd = (ci % (DMAX / 8)) * 8;
#pragma unroll
            for (int e = 0; e < 8; e++) {
                ks[cc * LD + dd + e] = pk[c][e];
                vs[cc * LD + dd + e] = pv[c][e];
            }
        }
        __syncthreads();
        if (k0 + BK < kend) {  // prefetch the next tile while this one is used
#pragma unroll
            for (int c = 0; c < CHUNKS; c++) {
                ak_attn_ld_chunk<D, DMAX>(k, sg, kb, ksb, kss, pshift, k0 + BK, kend, d, tid + c * AK_ATTN_THREADS, vec != 0, pk[c]);
                ak_attn_ld_chunk<D, DMAX>(v, sg, vb, vsb, vss, pshift, k0 + BK, kend, d, tid + c * AK_ATTN_THREADS, vec != 0, pv[c]);
            }
        }
        // the group's keys of this tile: c = slot + (t * CH + j) * slots (uniform trip count in a wave)
        const int per = (BK + slots - 1) / slots;
        for (int t = 0; t * AK_ATTN_CH < per; t++) {
            float s[AK_ATTN_CH];
            float mc = -AK_INF;
#pragma unroll
            for (int j = 0; j < AK_ATTN_CH; j++) {
                const int c = slot + (t * AK_ATTN_CH + j) * slots;
                const int cs = c < BK ? c : BK - 1;
                float x = 0.0f;
#pragma unroll
                for (int e = 0; e < E; e++) x += qr[e] * ks[cs * LD + lane + G * e];
#pragma unroll
                for (int off = G / 2; off > 0; off >>= 1) x += ak_shfl_xor(x, off);
                if (softcap > 0.0f) x = softcap * ak_fast_tanh(x);
                const bool ok = valid && c < BK && k0 + c >= mylo && k0 + c <= myhi;
                s[j] = ok ? x : -AK_INF;
                mc = fmaxf(mc, s[j]);
            }
            const float mn = fmaxf(m, mc);
            if (mn != -AK_INF) {  // else nothing visible yet
                const float alpha = ak_exp2(m - mn);  // m = -inf: 0
                l *= alpha;
#pragma unroll
                for (int e = 0; e < E; e++) acc[e] *= alpha;
#pragma unroll
                for (int j = 0; j < AK_ATTN_CH; j++) {
                    const float p = ak_exp2(s[j] - mn);  // -inf: 0
                    if (p != 0.0f) {
                        const int c = slot + (t * AK_ATTN_CH + j) * slots;
                        l += p;
#pragma unroll
                        for (int e = 0; e < E; e++) acc[e] += p * vs[c * LD + lane + G * e];
                    }
                }
                m = mn;
            }
        }
    }

    if (slots > 1) {  // merge the slots of each row (shared memory of the tiles is free now)
        float* so = ks;  // [NG][DMAX] partial outputs
        __syncthreads();
#pragma unroll
        for (int e = 0; e < E; e++) so[gi * DMAX + lane + G * e] = acc[e];
        if (lane == 0) { ml[2 * gi] = m; ml[2 * gi + 1] = l; }
        __syncthreads();
        if (slot == 0) {
            float M = -AK_INF;
            for (int sl = 0; sl < slots; sl++) M = fmaxf(M, ml[2 * (row + sl * R)]);
            float L = 0.0f;
#pragma unroll
            for (int e = 0; e < E; e++) acc[e] = 0.0f;
            if (M != -AK_INF) {
                for (int sl = 0; sl < slots; sl++) {
                    const int gs = row + sl * R;
                    const float w = ak_exp2(ml[2 * gs] - M);
                    L += w * ml[2 * gs + 1];
#pragma unroll
                    for (int e = 0; e < E; e++) acc[e] += w * so[gs * DMAX + lane + G * e];
                }
            }
            m = M;
            l = L;
        }
    }
    if (slot != 0 || !valid) return;

    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    const float lse2 = l > 0.0f ? m + log2f(l) : -AK_INF;  // base 2
    const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;  // (b * hq + hq_idx) * sq + i
    if (nsplit > 1) {
        float* po = part + (grow * nsplit + blockIdx.y) * DMAX;
#pragma unroll
        for (int e = 0; e < E; e++) po[lane + G * e] = acc[e] * inv;
        if (lane == 0) {
            const ak_i64 rows_all = (ak_i64)gridDim.z * group * sq;  // batch * hq * sq
            part[rows_all * nsplit * DMAX + grow * nsplit + blockIdx.y] = lse2;
        }
        return;
    }
    T* op = o + sg.o0 + (ak_i64)hq_idx * osh + (ak_i64)i * oss;
#pragma unroll
    for (int e = 0; e < E; e++) {
        const int dd = lane + G * e;
        if (dd < d) op[dd] = D::from(acc[e] * inv);
    }
    if (lse && lane == 0) lse[grow] = lse2 * AK_LN2;
}

#define AK_ATTN_SIMT(DMAX, DT, D)                                                                                    \
    AK_KERNEL void __launch_bounds__(AK_ATTN_THREADS) ak_attn_simt##DMAX##_##DT(                                    \
        const D::T* q, const D::T* k, const D::T* v, D::T* o, float* lse, int hkv, int group, int sq, int skv,     \
        int d, ak_i64 qsb, ak_i64 qsh, ak_i64 qss, ak_i64 ksb, ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh,      \
        ak_i64 vss, ak_i64 osb, ak_i64 osh, ak_i64 oss, float scale_log2, int causal, int R, int nsplit,           \
        int split_len, float* part, int vec, const int* cu_q, const int* cu_k, const int* used_k, const int* btab,  \
        int bts, int pshift, int wl, int wr, float softcap) { AK_KONLY(ak_attn_simt##DMAX##_##DT) { \
        ak_attn_simt<D, DMAX>(q, k, v, o, lse, hkv, group, sq, skv, d, qsb, qsh, qss, ksb, ksh, kss, vsb, vsh, vss, \
                              osb, osh, oss, scale_log2, causal, R, nsplit, split_len, part, vec, cu_q, cu_k,       \
                              used_k, btab, bts, pshift, wl, wr, softcap);                                          \
    } }
// the three dtypes of one head_dim bound
#define AK_ATTN_SIMT_DTYPES(DMAX) AK_ATTN_SIMT(DMAX, f32, ak_f32_t) AK_ATTN_SIMT(DMAX, f16, ak_f16_t) AK_ATTN_SIMT(DMAX, bf16, ak_bf16_t)
AK_ATTN_SIMT_DTYPES(32)
AK_ATTN_SIMT_DTYPES(64)
AK_ATTN_SIMT_DTYPES(128)
AK_ATTN_SIMT_DTYPES(256)

// Merge the nsplit partial results of each row (one wave per row): weights
// w_s = 2^(lse_s - max), O = sum w_s o_s / sum w_s, lse = log(sum 2^lse_s).
// part: [rows][nsplit][dmax] outputs, then [rows][nsplit] base-2 lse; rows =
// batch * hq * sq, row = (b * hq + h) * sq + i. A row whose splits are all
// empty (-inf) gets O = 0 and lse = -inf.
template <class D>
AK_INLINE void ak_attn_combine(const float* AK_RESTRICT part, int nsplit, int dmax, ak_i64 rows, int hq, int sq,
                               int d, typename D::T* AK_RESTRICT o, ak_i64 osb, ak_i64 osh, ak_i64 oss,
                               float* AK_RESTRICT lse, const int* AK_RESTRICT cu_q) {
    const ak_i64 row = (ak_i64)blockIdx.x * (blockDim.x / AK_WAVE) + ak_wave_id();
    if (row >= rows) return;  // whole waves leave together (and each wave has one row: uniform exits)
    const int lane = ak_lane();
    const int i = (int)(row % sq);
    const ak_i64 bh = row / sq;
    const int b = (int)(bh / hq), h = (int)(bh % hq);
    // past a packed sequence's end: no such row, and no split wrote its partials (leave before reading them)
    if (cu_q && i >= cu_q[b + 1] - cu_q[b]) return;
    const float* pl = part + rows * nsplit * dmax + row * nsplit;
    float M = -AK_INF;
    for (int s = lane; s < nsplit; s += AK_WAVE) M = fmaxf(M, pl[s]);
    M = ak_warp_max(M);
    float W = 0.0f;
    if (M != -AK_INF)
        for (int s = lane; s < nsplit; s += AK_WAVE) W += ak_exp2(pl[s] - M);
    W = ak_warp_sum(W);
    const float inv = W > 0.0f ? 1.0f / W : 0.0f;
    typename D::T* op = o + (cu_q ? (ak_i64)cu_q[b] * oss : (ak_i64)b * osb) + (ak_i64)h * osh + (ak_i64)i * oss;
    const float* po = part + row * nsplit * dmax;
    // each lane holds DV columns and the weight of one split of every AK_WAVE; the loads of a split's
    // columns are independent (no exp2 or branch between them), so many splits are in flight at once
    enum { DV = (256 + AK_WAVE - 1) / AK_WAVE };
    for (int d0 = 0; d0 < d; d0 += DV * AK_WAVE) {
        float x[DV];
#pragma unroll
        for (int j = 0; j < DV; j++) x[j] = 0.0f;
        for (int s0 = 0; s0 < nsplit && M != -AK_INF; s0 += AK_WAVE) {
            const float wl = s0 + lane < nsplit ? ak_exp2(pl[s0 + lane] - M) : 0.0f;
            const int ns = nsplit - s0 < AK_WAVE ? nsplit - s0 : AK_WAVE;
#pragma unroll 2
            for (int s = 0; s < ns; s++) {
                const float w = ak_shfl(wl, s);
                const float* ps = po + (ak_i64)(s0 + s) * dmax + d0 + lane;
#pragma unroll
                for (int j = 0; j < DV; j++) {
                    const int dd = d0 + lane + j * AK_WAVE;
                    // a split whose weight is 0 (no key) may have left its partials unwritten
                    const float pv = dd < d ? ps[j * AK_WAVE] : 0.0f;
                    x[j] += w != 0.0f ? w * pv : 0.0f;
                }
            }
        }
#pragma unroll
        for (int j = 0; j < DV; j++) {
            const int dd = d0 + lane + j * AK_WAVE;
            if (dd < d) op[dd] = D::from(x[j] * inv);
        }
    }
    if (lse && lane == 0) lse[row] = W > 0.0f ? (M + log2f(W)) * AK_LN2 : -AK_INF;
}

#define AK_ATTN_COMBINE(DT, D)                                                                                      \
    AK_KERNEL void ak_attn_combine_##DT(const float* part, int nsplit, int dmax, ak_i64 rows, int hq, int sq, int d, \
                                        D::T* o, ak_i64 osb, ak_i64 osh, ak_i64 oss, float* lse, const int* cu_q) { AK_KONLY(ak_attn_combine_##DT) { \
        ak_attn_combine<D>(part, nsplit, dmax, rows, hq, sq, d, o, osb, osh, oss, lse, cu_q);                      \
    } }
AK_ATTN_COMBINE(f32, ak_f32_t)
AK_ATTN_COMBINE(f16, ak_f16_t)
AK_ATTN_COMBINE(bf16, ak_bf16_t)
