// kernels/axis.hip - operations along one axis of an N-d tensor seen as
// [outer][R][inner] (the axis in the middle, every dimension before it merged
// into outer, every one after it into inner), read in place: no transpose.
// Host wrappers and CPU references: amdkit.h (>>impl:ops-axis): ak_reduce_axes,
// ak_normalize, ak_binary_broadcast, ak_triangular.
//
// ak_axred_<op>_<dt>: reduction over R with inner > 1 (inner == 1 is a row
// reduction: ak_reduce's kernels). A block is blockDim.x consecutive output
// columns c = o * inner + i (a thread each: consecutive threads read
// consecutive addresses) x blockDim.y = P pieces of R: piece k takes the rows
// k, k + P, k + 2P, ... of the block's chunk, sixteen loads in flight a thread
// (eight on AMD; all issued before their first use), so a block reads 16 P
// consecutive rows of its columns at a time; the pieces meet through shared memory in piece
// order (deterministic). argmax / argmin (f32 only): each piece keeps its
// first extreme (the first NaN wins), the merge takes the extreme of the
// lowest row among equals (the NaN of the lowest row).
// ak_axcol_argmax / argmin_<dt>: a thread per column (256-thread blocks), its
// rows in order, eight loads in flight; the host takes it for short R and for
// 2-byte elements.
// Both: blockIdx.y = s cuts R into `splits` chunks of rchunk rows when the
// columns alone cannot fill the GPU; the partials go to outv / outi at
// c * splits + s and reduce.hip's ak_reduce2_<op> combines them in a fixed
// order. The final value is sum x scale (mean: scale 1 / R).
//
// ak_axnorm_*: y = x / norm(x along R) (kind: 0 L1 = sum |x|, 1 L2 = sqrt of
// sum x^2, 2 mean |x|, 3 RMS = sqrt(mean x^2 + eps); kinds 0-2 divide by
// max(norm, eps), torch's F.normalize). cols: a thread per column, held in
// registers up to 64 elements (one read), else read twice (the second from L1 /
// L2). rows (inner == 1): a block per row, both passes in the block; the host
// keeps the rows in flight within the L2 so the second pass hits it. part + apply:
// few long rows cut into S segments of seg elements: part writes each
// segment's sum, ak_reduce adds a row's S sums (fixed order), apply scales
// each segment by the row's norm.
//
// ak_bcast_<dt>: z = x op y (add, sub, mul, div) with x and z of shape
// [d0][d1][d2] and y broadcast along any of the three (element strides ys0,
// ys1, ys2; 0 repeats). Units of four consecutive elements, one index division
// a unit; aligned tensors two units a thread with both loads in flight.
//
// ak_tri_<dt>: y = triu(x, diag) (upper = 1) or tril(x, diag) of `batch`
// rows x cols matrices; y may be x.
//
// kernels: ak_axred_sum_f32 ak_axred_sum_f16 ak_axred_sum_bf16 ak_axred_max_f32 ak_axred_max_f16 ak_axred_max_bf16
// kernels: ak_axred_min_f32 ak_axred_min_f16 ak_axred_min_bf16 ak_axred_argmax_f32 ak_axred_argmin_f32
// kernels: ak_axcol_argmax_f32 ak_axcol_argmax_f16 ak_axcol_argmax_bf16 ak_axcol_argmin_f32 ak_axcol_argmin_f16 ak_axcol_argmin_bf16
// kernels: ak_axnorm_cols_f32 ak_axnorm_cols_f16 ak_axnorm_cols_bf16 ak_axnorm_rows_f32 ak_axnorm_rows_f16 ak_axnorm_rows_bf16
// kernels: ak_axnorm_part_f32 ak_axnorm_part_f16 ak_axnorm_part_bf16 ak_axnorm_apply_f32 ak_axnorm_apply_f16 ak_axnorm_apply_bf16
// kernels: ak_bcast_f32 ak_bcast_f16 ak_bcast_bf16 ak_tri_f32 ak_tri_f16 ak_tri_bf16

#define AK_AX_SUM 0
#define AK_AX_MAX 1
#define AK_AX_MIN 2
#define AK_AX_ARGMAX 3
#define AK_AX_ARGMIN 4
// the most threads a block (columns x pieces of R)
#define AK_AXRED_THREADS 1024
// loads in flight a thread in ak_axred: 16 (measured on the H100); 8 on AMD (gfx906 has 64 VGPRs a thread at
// 1024 threads: sixteen 64-bit addresses spill there)
#if defined(AK_AMD)
#define AK_AXRED_DEEP 8
#else
#define AK_AXRED_DEEP 16
#endif

// ---- reduction over the middle axis ------------------------------------------
// argmax / argmin: x at a later row than the best v so far replaces it when strictly better, or when it is the
// first NaN (ties keep the first row, the first NaN wins and stays)
template <int OP>
AK_INLINE bool ak_ax_later(float x, float v) {
    return (OP == AK_AX_ARGMAX ? x > v : x < v) || (ak_isnan(x) && !ak_isnan(v));
}
// (w, row wi) against (v, row vi) in any row order: a NaN wins (the lowest row of the NaNs), else the extreme,
// the lower row of equals
template <int OP>
AK_INLINE bool ak_ax_better(float w, ak_i64 wi, float v, ak_i64 vi) {
    const bool vn = ak_isnan(v), wn = ak_isnan(w);
    if (vn || wn) return wn && (!vn || wi < vi);
    return (OP == AK_AX_ARGMAX ? w > v : w < v) || (w == v && wi < vi);
}

// U rows of a piece from p (row k at p[k * step]): every load issued before the first use
template <class D, int OP, int U>
AK_INLINE void ak_axred_rows(const typename D::T* p, ak_i64 step, ak_i64 j, float a[8], float& bv, ak_i64& bj) {
    float v[U];
#pragma unroll
    for (int k = 0; k < U; k++) v[k] = D::to(p[k * step]);
#pragma unroll
    for (int k = 0; k < U; k++) {
        if (OP == AK_AX_SUM) a[k % 8] += v[k];
        else if (OP == AK_AX_MAX) bv = ak_op_max()(bv, v[k]);
        else if (OP == AK_AX_MIN) bv = ak_op_min()(bv, v[k]);
        else if (ak_ax_later<OP>(v[k], bv)) { bv = v[k]; bj = j + k; }
    }
}

// a block: 256 columns x P interleaved pieces of R (the head of the file); AK_AXRED_DEEP loads in flight a thread
template <class D, int OP>
AK_INLINE void ak_axred(const typename D::T* AK_RESTRICT x, ak_i64 outer, ak_i64 R, ak_i64 inner, ak_i64 rchunk,
                        ak_i64 splits, float scale, float* AK_RESTRICT outv, ak_i64* AK_RESTRICT outi) {
    const bool arg = OP == AK_AX_ARGMAX || OP == AK_AX_ARGMIN;
    const ak_i64 NONE = 0x7fffffffffffffffLL;   // arg ops: a piece without rows
    __shared__ float sv[AK_AXRED_THREADS];
    __shared__ ak_i64 si[arg ? AK_AXRED_THREADS : 1];
    const ak_i64 ncols = outer * inner, bw = (ak_i64)blockDim.x, s = (ak_i64)blockIdx.y;
    const int P = (int)blockDim.y, piece = (int)threadIdx.y, tx = (int)threadIdx.x;
    const ak_i64 r0 = s * rchunk, r1 = r0 + rchunk < R ? r0 + rchunk : R;
    // piece k: rows first, first + P, ... of the chunk (the block reads DEEP x P consecutive rows at a time)
    const ak_i64 first = r0 + piece, cnt = first < r1 ? (r1 - first + P - 1) / P : 0, step = (ak_i64)P * inner;
    // every thread of the block runs each tile (the combine's barriers)
    for (ak_i64 cb = (ak_i64)blockIdx.x * bw; cb < ncols; cb += (ak_i64)gridDim.x * bw) {
        const ak_i64 c = cb + tx;
        float bv = OP == AK_AX_SUM ? 0.0f : OP == AK_AX_MAX ? -AK_INF : AK_INF;
        ak_i64 bi = NONE;
        if (c < ncols && cnt > 0) {
            const ak_i64 o = c / inner, in = c - o * inner;
            const typename D::T* p = x + (o * R + first) * inner + in;
            float a[8];
#pragma unroll
            for (int k = 0; k < 8; k++) a[k] = 0.0f;
            ak_i64 j = 0, bj = 0;   // the piece's own row count: row first + j P
            if (arg) bv = D::to(p[0]);   // row 0 again in the loop: no change
            for (; j + AK_AXRED_DEEP <= cnt; j += AK_AXRED_DEEP, p += AK_AXRED_DEEP * step)
                ak_axred_rows<D, OP, AK_AXRED_DEEP>(p, step, j, a, bv, bj);
            if (AK_AXRED_DEEP > 8 && j + 8 <= cnt) {
                ak_axred_rows<D, OP, 8>(p, step, j, a, bv, bj);
                j += 8;
                p += 8 * step;
            }
            for (; j < cnt; j++, p += step) ak_axred_rows<D, OP, 1>(p, step, j, a, bv, bj);
            if (OP == AK_AX_SUM) bv = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
            bi = first + bj * P;
        }
        if (P > 1) {
            // the pieces meet in piece order (fixed: deterministic)
            if (piece > 0) {
                sv[(piece - 1) * bw + tx] = bv;
                if (arg) si[(piece - 1) * bw + tx] = bi;
            }
            __syncthreads();
            if (piece == 0) {
                for (int q = 1; q < P; q++) {
                    const float w = sv[(q - 1) * bw + tx];
                    if (OP == AK_AX_SUM) bv += w;
                    else if (OP == AK_AX_MAX) bv = ak_op_max()(bv, w);
                    else if (OP == AK_AX_MIN) bv = ak_op_min()(bv, w);
                    else {
                        const ak_i64 wi = si[(q - 1) * bw + tx];
                        if (wi != NONE && (bi == NONE || ak_ax_better<OP>(w, wi, bv, bi))) { bv = w; bi = wi; }
                    }
                }
            }
            __syncthreads();
        }
        if (piece == 0 && c < ncols) {
            const ak_i64 at = splits == 1 ? c : c * splits + s;
            if (OP == AK_AX_SUM) outv[at] = splits == 1 ? bv * scale : bv;
            else {
                if (outv) outv[at] = bv;
                if (arg && outi) outi[at] = bi;
            }
        }
    }
}

// 2-byte elements (ak_axcol): four loads in flight, compared as they arrive (measured faster there than eight
// loads ahead of the compares: KernelBench 51 in f16 2.30 against 2.45 ms); the code of the thread-per-column
// kernel before the pieces
template <int OP>
struct ak_ax_state {
    float v;
    ak_i64 i;
    AK_INLINE void init() {
        v = OP == AK_AX_SUM ? 0.0f : (OP == AK_AX_MAX || OP == AK_AX_ARGMAX) ? -AK_INF : AK_INF;
        i = 0x7fffffffffffffffLL;
    }
    // elements arrive in increasing index order: ties keep the first, the first NaN wins and stays
    AK_INLINE void add(float x, ak_i64 ix) {
        if (OP == AK_AX_SUM) v += x;
        else if (OP == AK_AX_MAX) v = ak_op_max()(v, x);
        else if (OP == AK_AX_MIN) v = ak_op_min()(v, x);
        else {
            const bool vn = ak_isnan(v);
            if (!vn && (ak_isnan(x) || (OP == AK_AX_ARGMAX ? x > v : x < v) || i == 0x7fffffffffffffffLL)) { v = x; i = ix; }
        }
    }
};

template <class D, int OP>
AK_INLINE void ak_axcol4(const typename D::T* AK_RESTRICT x, ak_i64 outer, ak_i64 R, ak_i64 inner, ak_i64 rchunk,
                         ak_i64 splits, float* AK_RESTRICT outv, ak_i64* AK_RESTRICT outi) {
    const ak_i64 ncols = outer * inner;
    const ak_i64 s = (ak_i64)blockIdx.y;
    const ak_i64 r0 = s * rchunk, r1 = r0 + rchunk < R ? r0 + rchunk : R;
    for (ak_i64 c = ak_gtid(); c < ncols; c += ak_gstride()) {
        const ak_i64 o = c / inner, in = c - o * inner;
        const typename D::T* p = x + o * R * inner + in;
        ak_i64 r = r0;
        ak_ax_state<OP> st;
        st.init();
        for (; r + 3 < r1; r += 4) {
            const float v0 = D::to(p[r * inner]), v1 = D::to(p[(r + 1) * inner]);
            const float v2 = D::to(p[(r + 2) * inner]), v3 = D::to(p[(r + 3) * inner]);
            st.add(v0, r); st.add(v1, r + 1); st.add(v2, r + 2); st.add(v3, r + 3);
        }
        for (; r < r1; r++) st.add(D::to(p[r * inner]), r);
        const ak_i64 at = splits == 1 ? c : c * splits + s;
        if (outv) outv[at] = st.v;
        if (outi) outi[at] = st.i;
    }
}

// ak_axcol_argmax / argmin: a thread per column, its rows in order; f32: eight loads in flight (every load issued
// before the compare chain), 2-byte elements: ak_axcol4
template <class D, int OP>
AK_INLINE void ak_axcol(const typename D::T* AK_RESTRICT x, ak_i64 outer, ak_i64 R, ak_i64 inner, ak_i64 rchunk,
                        ak_i64 splits, float* AK_RESTRICT outv, ak_i64* AK_RESTRICT outi) {
    if (D::SIZE < 4) {
        ak_axcol4<D, OP>(x, outer, R, inner, rchunk, splits, outv, outi);
        return;
    }
    const ak_i64 ncols = outer * inner, s = (ak_i64)blockIdx.y;
    const ak_i64 r0 = s * rchunk, r1 = r0 + rchunk < R ? r0 + rchunk : R, cnt = r1 - r0;
    for (ak_i64 c = ak_gtid(); c < ncols; c += ak_gstride()) {
        const ak_i64 o = c / inner, in = c - o * inner;
        const typename D::T* p = x + (o * R + r0) * inner + in;
        float a[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };   // unused (sums only)
        float bv = D::to(p[0]);   // row 0 again in the loop: no change
        ak_i64 j = 0, bj = 0;
        for (; j + 8 <= cnt; j += 8, p += 8 * inner) ak_axred_rows<D, OP, 8>(p, inner, j, a, bv, bj);
        for (; j < cnt; j++, p += inner) ak_axred_rows<D, OP, 1>(p, inner, j, a, bv, bj);
        const ak_i64 at = splits == 1 ? c : c * splits + s;
        if (outv) outv[at] = bv;
        if (outi) outi[at] = r0 + bj;
    }
}

#define AK_AXRED(NAME, OP, D)                                                                                        \
    AK_KERNEL __launch_bounds__(AK_AXRED_THREADS) void NAME(const D::T* x, ak_i64 outer, ak_i64 R, ak_i64 inner,    \
                                                            ak_i64 rchunk, ak_i64 splits, float scale, float* outv,  \
                                                            ak_i64* outi) { AK_KONLY(NAME) { \
        ak_axred<D, OP>(x, outer, R, inner, rchunk, splits, scale, outv, outi);                                      \
    } }
#define AK_AXCOL(NAME, OP, D)                                                                                        \
    AK_KERNEL __launch_bounds__(256) void NAME(const D::T* x, ak_i64 outer, ak_i64 R, ak_i64 inner, ak_i64 rchunk,   \
                                               ak_i64 splits, float scale, float* outv, ak_i64* outi) { AK_KONLY(NAME) { \
        (void)scale;                                                                                                 \
        ak_axcol<D, OP>(x, outer, R, inner, rchunk, splits, outv, outi);                                             \
    } }
AK_AXRED(ak_axred_sum_f32, AK_AX_SUM, ak_f32_t)
AK_AXRED(ak_axred_sum_f16, AK_AX_SUM, ak_f16_t)
AK_AXRED(ak_axred_sum_bf16, AK_AX_SUM, ak_bf16_t)
AK_AXRED(ak_axred_max_f32, AK_AX_MAX, ak_f32_t)
AK_AXRED(ak_axred_max_f16, AK_AX_MAX, ak_f16_t)
AK_AXRED(ak_axred_max_bf16, AK_AX_MAX, ak_bf16_t)
AK_AXRED(ak_axred_min_f32, AK_AX_MIN, ak_f32_t)
AK_AXRED(ak_axred_min_f16, AK_AX_MIN, ak_f16_t)
AK_AXRED(ak_axred_min_bf16, AK_AX_MIN, ak_bf16_t)
AK_AXRED(ak_axred_argmax_f32, AK_AX_ARGMAX, ak_f32_t)
AK_AXRED(ak_axred_argmin_f32, AK_AX_ARGMIN, ak_f32_t)
AK_AXCOL(ak_axcol_argmax_f32, AK_AX_ARGMAX, ak_f32_t)
AK_AXCOL(ak_axcol_argmax_f16, AK_AX_ARGMAX, ak_f16_t)
AK_AXCOL(ak_axcol_argmax_bf16, AK_AX_ARGMAX, ak_bf16_t)
AK_AXCOL(ak_axcol_argmin_f32, AK_AX_ARGMIN, ak_f32_t)
AK_AXCOL(ak_axcol_argmin_f16, AK_AX_ARGMIN, ak_f16_t)
AK_AXCOL(ak_axcol_argmin_bf16, AK_AX_ARGMIN, ak_bf16_t)

// ---- normalisation by a vector norm along the axis -----------------------------
#define AK_NRM_L1 0
#define AK_NRM_L2 1
#define AK_NRM_MEANABS 2
#define AK_NRM_RMS 3
AK_INLINE float ak_nrm_term(int kind, float v) { return (kind == AK_NRM_L2 || kind == AK_NRM_RMS) ? v * v : fabsf(v); }
// 1 / the norm from the sum of terms over R elements
AK_INLINE float ak_nrm_inv(int kind, float s, ak_i64 R, float eps) {
    float n;
    if (kind == AK_NRM_L1) n = s;
    else if (kind == AK_NRM_L2) n = sqrtf(s);
    else if (kind == AK_NRM_MEANABS) n = s / (float)R;
    else return 1.0f / sqrtf(s / (float)R + eps);
    return 1.0f / (n > eps ? n : eps);
}

// columns of at most MAXR elements: the column stays in registers (one read of x)
template <class D, int MAXR>
AK_INLINE void ak_axnorm_cols_reg(const typename D::T* x, typename D::T* y, ak_i64 outer, ak_i64 R, ak_i64 inner, int kind,
                                  float eps) {
    const ak_i64 ncols = outer * inner;
    for (ak_i64 c = ak_gtid(); c < ncols; c += ak_gstride()) {
        const ak_i64 o = c / inner, in = c - o * inner, base = o * R * inner + in;
        float v[MAXR];
        float a0 = 0.0f, a1 = 0.0f;
#pragma unroll
        for (int r = 0; r < MAXR; r++) {
            v[r] = r < R ? D::to(x[base + r * inner]) : 0.0f;
            if (r % 2) a1 += ak_nrm_term(kind, v[r]); else a0 += ak_nrm_term(kind, v[r]);
        }
        const float inv = ak_nrm_inv(kind, a0 + a1, R, eps);
#pragma unroll
        for (int r = 0; r < MAXR; r++)
            if (r < R) y[base + r * inner] = D::from(v[r] * inv);
    }
}

template <class D>
AK_INLINE void ak_axnorm_cols(const typename D::T* x, typename D::T* y, ak_i64 outer, ak_i64 R, ak_i64 inner, int kind,
                              float eps) {
    if (R <= 16) { ak_axnorm_cols_reg<D, 16>(x, y, outer, R, inner, kind, eps); return; }
    if (R <= 64) { ak_axnorm_cols_reg<D, 64>(x, y, outer, R, inner, kind, eps); return; }
    const ak_i64 ncols = outer * inner;
    for (ak_i64 c = ak_gtid(); c < ncols; c += ak_gstride()) {
        const ak_i64 o = c / inner, in = c - o * inner, base = o * R * inner + in;
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        ak_i64 r = 0;
        for (; r + 3 < R; r += 4) {
            a0 += ak_nrm_term(kind, D::to(x[base + r * inner]));
            a1 += ak_nrm_term(kind, D::to(x[base + (r + 1) * inner]));
            a2 += ak_nrm_term(kind, D::to(x[base + (r + 2) * inner]));
            a3 += ak_nrm_term(kind, D::to(x[base + (r + 3) * inner]));
        }
        for (; r < R; r++) a0 += ak_nrm_term(kind, D::to(x[base + r * inner]));
        const float inv = ak_nrm_inv(kind, (a0 + a1) + (a2 + a3), R, eps);
        for (r = 0; r < R; r++) y[base + r * inner] = D::from(D::to(x[base + r * inner]) * inv);
    }
}

// Sum of the terms of p[0..len) over the block (every thread gets it): 16-byte
// vectors from the first aligned element, scalar head and tail.
template <class D>
AK_INLINE float ak_axnorm_block_sum(const typename D::T* p, ak_i64 len, int kind, float* red) {
    typedef typename D::T T;
    const int V = AK_V16(D);
    const ak_i64 t = (ak_i64)threadIdx.x, B = (ak_i64)blockDim.x;
    ak_i64 head = (ak_i64)(((16u - ((unsigned)(ak_u64)p & 15u)) & 15u) / sizeof(T));
    if (head > len) head = len;
    float a0 = 0.0f, a1 = 0.0f;
    for (ak_i64 k = t; k < head; k += B) a0 += ak_nrm_term(kind, D::to(p[k]));
    const T* pv = p + head;
    const ak_i64 nv = (len - head) / V;
    ak_i64 k = t;
    for (; k + B < nv; k += 2 * B) {
        float f[8], g[8];
        ak_ld16<D>(pv + k * V, f);
        ak_ld16<D>(pv + (k + B) * V, g);
#pragma unroll
        for (int q = 0; q < V; q++) { a0 += ak_nrm_term(kind, f[q]); a1 += ak_nrm_term(kind, g[q]); }
    }
    if (k < nv) {
        float f[8];
        ak_ld16<D>(pv + k * V, f);
#pragma unroll
        for (int q = 0; q < V; q++) a0 += ak_nrm_term(kind, f[q]);
    }
    for (ak_i64 e = head + nv * V + t; e < len; e += B) a1 += ak_nrm_term(kind, D::to(p[e]));
    return ak_group_reduce(a0 + a1, (int)blockDim.x, red, ak_op_add());
}

// y[0..len) = x[0..len) * inv over the block (same alignment of x and y: the vector path)
template <class D>
AK_INLINE void ak_axnorm_block_scale(const typename D::T* p, typename D::T* q, ak_i64 len, float inv) {
    typedef typename D::T T;
    const int V = AK_V16(D);
    const ak_i64 t = (ak_i64)threadIdx.x, B = (ak_i64)blockDim.x;
    if ((((ak_u64)p ^ (ak_u64)q) & 15u) != 0) {
        for (ak_i64 e = t; e < len; e += B) q[e] = D::from(D::to(p[e]) * inv);
        return;
    }
    ak_i64 head = (ak_i64)(((16u - ((unsigned)(ak_u64)p & 15u)) & 15u) / sizeof(T));
    if (head > len) head = len;
    for (ak_i64 k = t; k < head; k += B) q[k] = D::from(D::to(p[k]) * inv);
    const ak_i64 nv = (len - head) / V;
    for (ak_i64 k = t; k < nv; k += B) {
        float f[8];
        ak_ld16<D>(p + head + k * V, f);
#pragma unroll
        for (int u = 0; u < V; u++) f[u] *= inv;
        ak_st16<D>(q + head + k * V, f);
    }
    for (ak_i64 e = head + nv * V + t; e < len; e += B) q[e] = D::from(D::to(p[e]) * inv);
}

template <class D>
AK_INLINE void ak_axnorm_rows(const typename D::T* x, typename D::T* y, ak_i64 rows, ak_i64 R, int kind, float eps) {
    __shared__ float red[AK_MAX_WAVES];
    for (ak_i64 row = blockIdx.x; row < rows; row += gridDim.x) {
        const float s = ak_axnorm_block_sum<D>(x + row * R, R, kind, red);
        ak_axnorm_block_scale<D>(x + row * R, y + row * R, R, ak_nrm_inv(kind, s, R, eps));
        __syncthreads();   // red is reused by the next row
    }
}

template <class D>
AK_INLINE void ak_axnorm_part(const typename D::T* x, ak_i64 R, ak_i64 seg, ak_i64 S, int kind, float* part) {
    __shared__ float red[AK_MAX_WAVES];
    const ak_i64 b = blockIdx.x, row = b / S, s = b - row * S;
    const ak_i64 e0 = s * seg, len = R - e0 < seg ? R - e0 : seg;
    const float v = ak_axnorm_block_sum<D>(x + row * R + e0, len, kind, red);
    if (threadIdx.x == 0) part[b] = v;
}

template <class D>
AK_INLINE void ak_axnorm_apply(const typename D::T* x, typename D::T* y, ak_i64 R, ak_i64 seg, ak_i64 S, int kind,
                               float eps, const float* rowsum) {
    const ak_i64 b = blockIdx.x, row = b / S, s = b - row * S;
    const ak_i64 e0 = s * seg, len = R - e0 < seg ? R - e0 : seg;
    ak_axnorm_block_scale<D>(x + row * R + e0, y + row * R + e0, len, ak_nrm_inv(kind, rowsum[row], R, eps));
}

#define AK_AXNORM(DT, D)                                                                                             \
    AK_KERNEL __launch_bounds__(256) void ak_axnorm_cols_##DT(const D::T* x, D::T* y, ak_i64 outer, ak_i64 R,        \
                                                              ak_i64 inner, int kind, float eps) { AK_KONLY(ak_axnorm_cols_##DT) { \
        ak_axnorm_cols<D>(x, y, outer, R, inner, kind, eps);                                                         \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(1024) void ak_axnorm_rows_##DT(const D::T* x, D::T* y, ak_i64 rows, ak_i64 R,        \
                                                               int kind, float eps) { AK_KONLY(ak_axnorm_rows_##DT) { \
        ak_axnorm_rows<D>(x, y, rows, R, kind, eps);                                                                 \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(1024) void ak_axnorm_part_##DT(const D::T* x, ak_i64 R, ak_i64 seg, ak_i64 S,        \
                                                               int kind, float* part) { AK_KONLY(ak_axnorm_part_##DT) { \
        ak_axnorm_part<D>(x, R, seg, S, kind, part);                                                                 \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(1024) void ak_axnorm_apply_##DT(const D::T* x, D::T* y, ak_i64 R, ak_i64 seg,        \
                                                                ak_i64 S, int kind, float eps, const float* rowsum) { AK_KONLY(ak_axnorm_apply_##DT) {\
        ak_axnorm_apply<D>(x, y, R, seg, S, kind, eps, rowsum);                                                        \
    } }
AK_AXNORM(f32, ak_f32_t)
AK_AXNORM(f16, ak_f16_t)
AK_AXNORM(bf16, ak_bf16_t)

// ---- broadcasting binary ops ----------------------------------------------------
// op codes: ak_binary_op of amdkit.h (add 0, sub 1, mul 2, div 3)
AK_INLINE float ak_bc_op(int op, float a, float b) {
    return op == 0 ? a + b : op == 1 ? a - b : op == 2 ? a * b : a / b;
}
/* y's values for the elements e0 .. e0 + m - 1 (m <= 4) of x, combined into a[]: one division pair per 4
 * elements, 32-bit when the tensor allows (I = unsigned) */
template <class D, int OP, class I>
AK_INLINE void ak_bcast_four(const typename D::T* AK_RESTRICT y, ak_i64 e0, int m, I d1, I d2, ak_i64 ys0, ak_i64 ys1,
                             ak_i64 ys2, float a[4]) {
    const I r = (I)e0 / d2;
    I c = (I)e0 - r * d2, i1 = r % d1, i0 = r / d1;
    ak_i64 yb = (ak_i64)i0 * ys0 + (ak_i64)i1 * ys1;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        if (k < m) {
            a[k] = ak_bc_op(OP, a[k], D::to(y[yb + (ak_i64)c * ys2]));
            if (++c == d2) {
                c = 0;
                if (++i1 == d1) { i1 = 0; i0++; }
                yb = (ak_i64)i0 * ys0 + (ak_i64)i1 * ys1;
            }
        }
    }
}
/* 16-byte aligned x and z: tiles of 2 x blockDim units of 4 elements, a thread's two units blockDim units apart
 * (each warp's 16-byte accesses contiguous, as ak_map8's SPLIT) with both loads issued before either is combined;
 * then the rest, and everything when unaligned, one unit a thread at a time. The host sizes the grid for 8
 * elements a thread. */
template <class D, int OP, class I>
AK_INLINE void ak_bcast_body(const typename D::T* AK_RESTRICT x, const typename D::T* AK_RESTRICT y, typename D::T* z,
                             ak_i64 n, I d1, I d2, ak_i64 ys0, ak_i64 ys1, ak_i64 ys2, bool vec) {
    const ak_i64 units = (n + 3) / 4;
    ak_i64 u0 = 0;
    if (vec) {
        const ak_i64 B = (ak_i64)blockDim.x, t = (ak_i64)threadIdx.x, tiles = (n / 4) / (2 * B);
        for (ak_i64 T = blockIdx.x; T < tiles; T += gridDim.x) {
            const ak_i64 ea = 4 * (2 * T * B + t), eb = ea + 4 * B;
            float a[4], b[4];
            D::ld4(x + ea, a);
            D::ld4(x + eb, b);
            ak_bcast_four<D, OP, I>(y, ea, 4, d1, d2, ys0, ys1, ys2, a);
            ak_bcast_four<D, OP, I>(y, eb, 4, d1, d2, ys0, ys1, ys2, b);
            D::st4(z + ea, a);
            D::st4(z + eb, b);
        }
        u0 = tiles * 2 * B;
    }
    for (ak_i64 u = u0 + ak_gtid(); u < units; u += ak_gstride()) {
        const ak_i64 e0 = u * 4;
        const int m = n - e0 < 4 ? (int)(n - e0) : 4;
        float a[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        /* unrolled with guards, not `k < m` loops: a dynamic index put a[] in scratch under ROCm 5.2 */
        if (vec && m == 4) D::ld4(x + e0, a);
        else {
#pragma unroll
            for (int k = 0; k < 4; k++)
                if (k < m) a[k] = D::to(x[e0 + k]);
        }
        ak_bcast_four<D, OP, I>(y, e0, m, d1, d2, ys0, ys1, ys2, a);
        if (vec && m == 4) D::st4(z + e0, a);
        else {
#pragma unroll
            for (int k = 0; k < 4; k++)
                if (k < m) z[e0 + k] = D::from(a[k]);
        }
    }
}
template <class D, class I>
AK_INLINE void ak_bcast_ops(const typename D::T* x, const typename D::T* y, typename D::T* z, ak_i64 n, I d1, I d2,
                            ak_i64 ys0, ak_i64 ys1, ak_i64 ys2, int op, bool vec) {
    switch (op) {
    case 0: ak_bcast_body<D, 0, I>(x, y, z, n, d1, d2, ys0, ys1, ys2, vec); break;
    case 1: ak_bcast_body<D, 1, I>(x, y, z, n, d1, d2, ys0, ys1, ys2, vec); break;
    case 2: ak_bcast_body<D, 2, I>(x, y, z, n, d1, d2, ys0, ys1, ys2, vec); break;
    default: ak_bcast_body<D, 3, I>(x, y, z, n, d1, d2, ys0, ys1, ys2, vec); break;
    }
}
template <class D>
AK_INLINE void ak_bcast(const typename D::T* x, const typename D::T* y, typename D::T* z, ak_i64 n, ak_i64 d1, ak_i64 d2,
                        ak_i64 ys0, ak_i64 ys1, ak_i64 ys2, int op) {
    const bool vec = ak_aligned16(x) && ak_aligned16(z);
    if (n + 4 < 0xFFFFFFFFLL) ak_bcast_ops<D, ak_u32>(x, y, z, n, (ak_u32)d1, (ak_u32)d2, ys0, ys1, ys2, op, vec);
    else ak_bcast_ops<D, ak_u64>(x, y, z, n, (ak_u64)d1, (ak_u64)d2, ys0, ys1, ys2, op, vec);
}
#define AK_BCAST(DT, D)                                                                                              \
    AK_KERNEL __launch_bounds__(256) void ak_bcast_##DT(const D::T* x, const D::T* y, D::T* z, ak_i64 n, ak_i64 d1,  \
                                                        ak_i64 d2, ak_i64 ys0, ak_i64 ys1, ak_i64 ys2, int op) { AK_KONLY(ak_bcast_##DT) { \
        ak_bcast<D>(x, y, z, n, d1, d2, ys0, ys1, ys2, op);                                                          \
    } }
AK_BCAST(f32, ak_f32_t)
AK_BCAST(f16, ak_f16_t)
AK_BCAST(bf16, ak_bf16_t)

// ---- triangular mask ----------------------------------------------------------------
template <class D, class I>
AK_INLINE void ak_tri_body(const typename D::T* x, typename D::T* y, ak_i64 n, I rows, I cols, ak_i64 diag, int upper) {
    const ak_i64 units = (n + 3) / 4;
    const I mat = rows * cols;
    const bool vec = ak_aligned16(x) && ak_aligned16(y);
    for (ak_i64 u = ak_gtid(); u < units; u += ak_gstride()) {
        const ak_i64 e0 = u * 4;
        const int m = n - e0 < 4 ? (int)(n - e0) : 4;
        const I rc = (I)e0 % mat;
        I r = rc / cols, c = rc - r * cols;
        float a[4];
        if (vec && m == 4) D::ld4(x + e0, a);
        else for (int k = 0; k < m; k++) a[k] = D::to(x[e0 + k]);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const ak_i64 d = (ak_i64)c - (ak_i64)r;
            const bool keep = upper ? d >= diag : d <= diag;
            if (!keep) a[k] = 0.0f;
            if (++c == cols) { c = 0; if (++r == rows) r = 0; }
        }
        if (vec && m == 4) D::st4(y + e0, a);
        else for (int k = 0; k < m; k++) y[e0 + k] = D::from(a[k]);
    }
}
template <class D>
AK_INLINE void ak_tri(const typename D::T* x, typename D::T* y, ak_i64 n, ak_i64 rows, ak_i64 cols, ak_i64 diag,
                      int upper) {
    if (n + 4 < 0xFFFFFFFFLL) ak_tri_body<D, ak_u32>(x, y, n, (ak_u32)rows, (ak_u32)cols, diag, upper);
    else ak_tri_body<D, ak_u64>(x, y, n, (ak_u64)rows, (ak_u64)cols, diag, upper);
}
#define AK_TRI(DT, D)                                                                                                \
    AK_KERNEL __launch_bounds__(256) void ak_tri_##DT(const D::T* x, D::T* y, ak_i64 n, ak_i64 rows, ak_i64 cols,    \
                                                      ak_i64 diag, int upper) { AK_KONLY(ak_tri_##DT) { \
        ak_tri<D>(x, y, n, rows, cols, diag, upper);                                                                 \
    } }
AK_TRI(f32, ak_f32_t)
AK_TRI(f16, ak_f16_t)
AK_TRI(bf16, ak_bf16_t)
