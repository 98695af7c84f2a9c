
// ===================== exploration variants =====================
// sum, landed form but U loads in flight and optional __ldg / pointer bump
template <int U, int NACC>
AK_INLINE void x_sum(const float* AK_RESTRICT x, ak_i64 outer, ak_i64 R, ak_i64 inner, ak_i64 rchunk,
                     ak_i64 splits, float scale, float* AK_RESTRICT outv) {
    __shared__ float sv[AK_AXRED_THREADS];
    const ak_i64 ncols = outer * inner, bw = (ak_i64)blockDim.x, s = (ak_i64)blockIdx.y;
    const int P = (int)blockDim.y, piece = (int)threadIdx.y, tx = (int)threadIdx.x;
    const ak_i64 r0 = s * rchunk, r1 = r0 + rchunk < R ? r0 + rchunk : R;
    const ak_i64 first = r0 + piece, cnt = first < r1 ? (r1 - first + P - 1) / P : 0, step = (ak_i64)P * inner;
    for (ak_i64 cb = (ak_i64)blockIdx.x * bw; cb < ncols; cb += (ak_i64)gridDim.x * bw) {
        const ak_i64 c = cb + tx;
        float tot = 0.0f;
        if (c < ncols) {
            const ak_i64 o = c / inner, in = c - o * inner;
            const float* p = x + (o * R + first) * inner + in;
            ak_i64 j = 0;
            float a[NACC];
#pragma unroll
            for (int k = 0; k < NACC; k++) a[k] = 0.0f;
            for (; j + U <= cnt; j += U, p += U * step) {
                float v[U];
#pragma unroll
                for (int k = 0; k < U; k++) v[k] = p[k * step];
#pragma unroll
                for (int k = 0; k < U; k++) a[k % NACC] += v[k];
            }
            for (; j < cnt; j++, p += step) a[0] += p[0];
#pragma unroll
            for (int k = 1; k < NACC; k++) a[0] += a[k];
            tot = a[0];
        }
        if (P > 1) {
            if (piece > 0) sv[(piece - 1) * bw + tx] = tot;
            __syncthreads();
            if (piece == 0) for (int q = 1; q < P; q++) tot += sv[(q - 1) * bw + tx];
            __syncthreads();
        }
        if (piece == 0 && c < ncols) {
            if (splits == 1) outv[c] = tot * scale;
            else outv[c * splits + s] = tot;
        }
    }
}

// argmax / argmin in pieces: U loads first, then the compare chain (local row count j), merge by (value, row)
template <int OP, int U>
AK_INLINE void x_arg(const float* AK_RESTRICT x, ak_i64 outer, ak_i64 R, ak_i64 inner, ak_i64 rchunk,
                     ak_i64 splits, float* AK_RESTRICT outv, ak_i64* AK_RESTRICT outi) {
    __shared__ float sv[AK_AXRED_THREADS];
    __shared__ ak_i64 si[AK_AXRED_THREADS];
    const ak_i64 ncols = outer * inner, bw = (ak_i64)blockDim.x, s = (ak_i64)blockIdx.y;
    const int P = (int)blockDim.y, piece = (int)threadIdx.y, tx = (int)threadIdx.x;
    const ak_i64 r0 = s * rchunk, r1 = r0 + rchunk < R ? r0 + rchunk : R;
    const ak_i64 first = r0 + piece, cnt = first < r1 ? (r1 - first + P - 1) / P : 0, step = (ak_i64)P * inner;
    const ak_i64 NONE = 0x7fffffffffffffffLL;
    for (ak_i64 cb = (ak_i64)blockIdx.x * bw; cb < ncols; cb += (ak_i64)gridDim.x * bw) {
        const ak_i64 c = cb + tx;
        float bv = 0.0f;
        ak_i64 bi = NONE;
        if (c < ncols && cnt > 0) {
            const ak_i64 o = c / inner, in = c - o * inner;
            const float* p = x + (o * R + first) * inner + in;
            bv = p[0];
            ak_i64 j = 1, bj = 0;
            p += step;
            for (; j + U <= cnt; j += U, p += U * step) {
                float v[U];
#pragma unroll
                for (int k = 0; k < U; k++) v[k] = p[k * step];
#pragma unroll
                for (int k = 0; k < U; k++) {
                    // take the later element only when strictly better, or when it is the first NaN
                    const bool t = (OP == AK_AX_ARGMAX ? v[k] > bv : v[k] < bv) || (v[k] != v[k] && bv == bv);
                    if (t) { bv = v[k]; bj = j + k; }
                }
            }
            for (; j < cnt; j++, p += step) {
                const float w = p[0];
                if ((OP == AK_AX_ARGMAX ? w > bv : w < bv) || (w != w && bv == bv)) { bv = w; bj = j; }
            }
            bi = first + bj * P;
        }
        if (P > 1) {
            if (piece > 0) { sv[(piece - 1) * bw + tx] = bv; si[(piece - 1) * bw + tx] = bi; }
            __syncthreads();
            if (piece == 0) {
                for (int q = 1; q < P; q++) {
                    const float w = sv[(q - 1) * bw + tx];
                    const ak_i64 wi = si[(q - 1) * bw + tx];
                    if (wi == NONE) continue;
                    bool t;
                    if (bi == NONE) t = true;
                    else {
                        const bool an = bv != bv, bn = w != w;
                        t = an ? (bn && wi < bi)
                               : bn ? true : (OP == AK_AX_ARGMAX ? w > bv : w < bv) || (w == bv && wi < bi);
                    }
                    if (t) { bv = w; bi = wi; }
                }
            }
            __syncthreads();
        }
        if (piece == 0 && c < ncols) {
            const ak_i64 at = splits == 1 ? c : c * splits + s;
            if (outv) outv[at] = bv;
            if (outi) outi[at] = bi;
        }
    }
}

// thread per column, U loads first (main's shape, deeper)
template <int OP, int U>
AK_INLINE void x_argseq(const float* AK_RESTRICT x, ak_i64 outer, ak_i64 R, ak_i64 inner, ak_i64 rchunk,
                        ak_i64 splits, float* AK_RESTRICT outv, ak_i64* AK_RESTRICT outi) {
    const ak_i64 ncols = outer * inner, s = (ak_i64)blockIdx.y;
    const ak_i64 r0 = s * rchunk, r1 = r0 + rchunk < R ? r0 + rchunk : R;
    for (ak_i64 c = ak_gtid(); c < ncols; c += ak_gstride()) {
        const ak_i64 o = c / inner, in = c - o * inner;
        const float* p = x + (o * R + r0) * inner + in;
        float bv = p[0];
        ak_i64 bj = 0, j = 1, cnt = r1 - r0;
        p += inner;
        for (; j + U <= cnt; j += U, p += U * inner) {
            float v[U];
#pragma unroll
            for (int k = 0; k < U; k++) v[k] = p[k * inner];
#pragma unroll
            for (int k = 0; k < U; k++) {
                const bool t = (OP == AK_AX_ARGMAX ? v[k] > bv : v[k] < bv) || (v[k] != v[k] && bv == bv);
                if (t) { bv = v[k]; bj = j + k; }
            }
        }
        for (; j < cnt; j++, p += inner) {
            const float w = p[0];
            if ((OP == AK_AX_ARGMAX ? w > bv : w < bv) || (w != w && bv == bv)) { bv = w; bj = j; }
        }
        const ak_i64 at = splits == 1 ? c : c * splits + s;
        if (outv) outv[at] = bv;
        if (outi) outi[at] = r0 + bj;
    }
}

#define XK(NAME, LB, CALL) \
    AK_KERNEL __launch_bounds__(LB) void NAME(const float* x, ak_i64 outer, ak_i64 R, ak_i64 inner, ak_i64 rchunk, \
                                              ak_i64 splits, float scale, float* outv, ak_i64* outi) { CALL; }
XK(x_sum_u8, 1024, (x_sum<8, 8>(x, outer, R, inner, rchunk, splits, scale, outv)))
XK(x_sum_u16, 1024, (x_sum<16, 8>(x, outer, R, inner, rchunk, splits, scale, outv)))
XK(x_sum_u16a4, 1024, (x_sum<16, 4>(x, outer, R, inner, rchunk, splits, scale, outv)))
XK(x_argmax_u8, 1024, (x_arg<AK_AX_ARGMAX, 8>(x, outer, R, inner, rchunk, splits, outv, outi)))
XK(x_argmax_u16, 1024, (x_arg<AK_AX_ARGMAX, 16>(x, outer, R, inner, rchunk, splits, outv, outi)))
XK(x_argmin_u8, 1024, (x_arg<AK_AX_ARGMIN, 8>(x, outer, R, inner, rchunk, splits, outv, outi)))
XK(x_argmaxseq_u8, 256, (x_argseq<AK_AX_ARGMAX, 8>(x, outer, R, inner, rchunk, splits, outv, outi)))
