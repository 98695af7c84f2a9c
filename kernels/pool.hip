// kernels/pool.hip - max and average pooling over 1, 2 or 3 spatial
// dimensions of a contiguous [planes][ID][IH][IW] tensor (planes = batch x
// channels; 1-D and 2-D pooling are ID = IH = 1 / ID = 1 with kernel 1,
// stride 1, padding 0 there). Host wrapper and CPU reference: amdkit.h
// (>>impl:ops-pool): ak_pool.
//
// blockIdx.y walks the planes (a loop when they pass the grid's y limit), x
// the outputs of a plane in row-major order, so neighbouring threads read
// neighbouring inputs (the overlap of windows comes from L1 / L2). In-plane
// index arithmetic is 32-bit (the host keeps a plane below 2^31 elements).
// Average and max with indices: one thread per output; max without indices:
// AK_POOL_U outputs a thread at a stride of the block. Max reads each window
// row in groups of 4 or 8 columns whose loads (for all of a thread's outputs)
// are issued before the group's compares: many loads in flight a thread
// rather than one load, one compare, one branch at a time.
//
// Max (torch.nn.MaxPoolNd): positions outside the input are skipped, the
// first maximum in window order wins, a NaN wins and stays; idx (optional)
// gets the flat in-plane input index (d * IH * IW + h * IW + w), as torch's
// return_indices. A window that holds no input position gives -inf and index
// -1 (torch refuses such shapes; the host does too). Average
// (torch.nn.AvgPoolNd, no dilation): the sum over the in-input positions,
// divided by divisor when divisor > 0 (divisor_override), else by the window
// clipped to the padded input (count_include_pad = 1) or to the input itself.
//
// kernels: ak_pool_max_f32 ak_pool_max_f16 ak_pool_max_bf16 ak_pool_avg_f32 ak_pool_avg_f16 ak_pool_avg_bf16

// max(a, b) that returns NaN when either is NaN (the value max pooling keeps
// once a NaN is in the window): one instruction on sm_80+ (max.NaN).
AK_INLINE float ak_pool_max_nan(float a, float b) {
#if defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return (b > a || ak_isnan(b)) ? b : a;
#endif
}

// Max with indices, one window row: the columns w0 + kw dW (kw < kW) of row xr
// (in-plane offset rowi) in groups of CH, each group's loads issued before its
// compares (CH loads in flight a thread); `inside`: every column is in [0, IW).
template <class D, int CH>
AK_INLINE void ak_pool_max_row(const typename D::T* AK_RESTRICT xr, int rowi, int w0, int kW, int dW, int IW, bool inside,
                               float& best, int& bi) {
    for (int kw0 = 0; kw0 < kW; kw0 += CH) {
        float v[CH];
        bool ok[CH];
#pragma unroll
        for (int j = 0; j < CH; j++) {
            const int w = w0 + (kw0 + j) * dW;
            ok[j] = kw0 + j < kW && (inside || (w >= 0 && w < IW));
            v[j] = ok[j] ? D::to(xr[w]) : -AK_INF;
        }
#pragma unroll
        for (int j = 0; j < CH; j++)
            if (ok[j] && (bi < 0 || (!ak_isnan(best) && (v[j] > best || ak_isnan(v[j]))))) {
                best = v[j];
                bi = rowi + w0 + (kw0 + j) * dW;
            }
    }
}
template <class D>
AK_INLINE void ak_pool_max_win(const typename D::T* AK_RESTRICT xp, int ID, int IH, int IW, int kD, int kH, int kW,
                               int dD, int dH, int dW, int d0, int h0, int w0, float& best, int& bi) {
    const bool win = w0 >= 0 && w0 + (kW - 1) * dW < IW;   // the window's columns all inside
    for (int kd = 0; kd < kD; kd++) {
        const int d = d0 + kd * dD;
        if (d < 0 || d >= ID) continue;
        for (int kh = 0; kh < kH; kh++) {
            const int h = h0 + kh * dH;
            if (h < 0 || h >= IH) continue;
            const int rowi = (d * IH + h) * IW;
            if (kW > 4) ak_pool_max_row<D, 8>(xp + rowi, rowi, w0, kW, dW, IW, win, best, bi);
            else ak_pool_max_row<D, 4>(xp + rowi, rowi, w0, kW, dW, IW, win, best, bi);
        }
    }
}

// Average pooling along one dimension for a window starting at o0 (kernel k,
// input I, padding p): the window clipped to the padded input (its size, the
// count_include_pad factor, is returned), then to the input: [lo, hi).
AK_INLINE int ak_pool_avg_dim(int o0, int k, int I, int p, int& lo, int& hi) {
    const int e = o0 + k < I + p ? o0 + k : I + p;
    lo = o0 > 0 ? o0 : 0;
    hi = e < I ? e : I;
    return e - o0;
}

/* Outputs a thread of max pooling without indices: the host sizes the grid by it (_AK_POOL_U in amdkit.h). */
#define AK_POOL_U 4

/* One output's (od, oh, ow) from its in-plane index o (1-D and 2-D pooling skip the divisions their extents of 1
 * make trivial: division is the costly part of the index arithmetic a thread does per output). */
AK_INLINE void ak_pool_pos(ak_u32 o, int OD, int OH, int OW, ak_u32& od, ak_u32& oh, ak_u32& ow) {
    ow = o; oh = 0; od = 0;
    if (OH > 1 || OD > 1) {
        const ak_u32 t = o / (ak_u32)OW;
        ow = o - t * (ak_u32)OW;
        if (OD > 1) { od = t / (ak_u32)OH; oh = t - od * (ak_u32)OH; }
        else oh = t;
    }
}

/* Max without indices: a thread computes U outputs of a plane at a stride of
 * the block (a block: 256 U consecutive outputs) and issues the loads of a
 * window row for all U (CH columns each) before their compares: U rows of new
 * bytes in flight a warp, not one (one output a thread is latency bound where
 * windows overlap: its neighbours' loads hit the same lines). Positions
 * outside the input read as -inf (never the maximum; a NaN wins). */
template <class D, int U, int CH>
AK_INLINE void ak_pool_max_multi(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 planes, int ID,
                                 int IH, int IW, int OD, int OH, int OW, int kD, int kH, int kW, int sD, int sH, int sW, int pD,
                                 int pH, int pW, int dD, int dH, int dW) {
    const ak_u32 per = (ak_u32)OD * (ak_u32)OH * (ak_u32)OW, chunk = 256u * U;
    const ak_i64 iplane = (ak_i64)ID * IH * IW;
    for (ak_i64 pl = blockIdx.y; pl < planes; pl += gridDim.y) {
        const typename D::T* xp = x + pl * iplane;
        for (ak_u32 ob = blockIdx.x * chunk; ob < per; ob += gridDim.x * chunk) {
            int d0[U], h0[U], w0[U];
            bool live[U];
            float best[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const ak_u32 o = ob + threadIdx.x + (ak_u32)u * 256u;
                ak_u32 od, oh, ow;
                ak_pool_pos(o, OD, OH, OW, od, oh, ow);
                live[u] = o < per;
                d0[u] = (int)od * sD - pD; h0[u] = (int)oh * sH - pH; w0[u] = (int)ow * sW - pW;
                best[u] = -AK_INF;
            }
            for (int kd = 0; kd < kD; kd++)
                for (int kh = 0; kh < kH; kh++) {
                    int rowi[U];
                    bool rok[U];
#pragma unroll
                    for (int u = 0; u < U; u++) {
                        const int d = d0[u] + kd * dD, h = h0[u] + kh * dH;
                        rok[u] = live[u] && (unsigned)d < (unsigned)ID && (unsigned)h < (unsigned)IH;
                        rowi[u] = (d * IH + h) * IW;
                    }
                    for (int kw0 = 0; kw0 < kW; kw0 += CH) {
                        float v[U][CH];
#pragma unroll
                        for (int u = 0; u < U; u++)
#pragma unroll
                            for (int j = 0; j < CH; j++) {
                                const int w = w0[u] + (kw0 + j) * dW;
                                v[u][j] = rok[u] && kw0 + j < kW && (unsigned)w < (unsigned)IW ? D::to(xp[rowi[u] + w]) : -AK_INF;
                            }
#pragma unroll
                        for (int u = 0; u < U; u++)
#pragma unroll
                            for (int j = 0; j < CH; j++) best[u] = ak_pool_max_nan(best[u], v[u][j]);
                    }
                }
#pragma unroll
            for (int u = 0; u < U; u++)
                if (live[u]) y[pl * (ak_i64)per + ob + threadIdx.x + (ak_u32)u * 256u] = D::from(best[u]);
        }
    }
}

/* Max with indices and average: one thread per output. */
template <class D, bool MAX>
AK_INLINE void ak_pool_one(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64* AK_RESTRICT idx,
                           ak_i64 planes, int ID, int IH, int IW, int OD, int OH, int OW, int kD, int kH, int kW, int sD,
                           int sH, int sW, int pD, int pH, int pW, int dD, int dH, int dW, int cip, int divisor) {
    const ak_u32 per = (ak_u32)OD * (ak_u32)OH * (ak_u32)OW;
    const ak_i64 iplane = (ak_i64)ID * IH * IW;
    for (ak_i64 pl = blockIdx.y; pl < planes; pl += gridDim.y) {
        const typename D::T* xp = x + pl * iplane;
        for (ak_u32 o = blockIdx.x * blockDim.x + threadIdx.x; o < per; o += gridDim.x * blockDim.x) {
            ak_u32 od, oh, ow;
            ak_pool_pos(o, OD, OH, OW, od, oh, ow);
            const int d0 = (int)od * sD - pD, h0 = (int)oh * sH - pH, w0 = (int)ow * sW - pW;
            const ak_i64 out = pl * (ak_i64)per + o;
            if (MAX) {
                float best = -AK_INF;
                int bi = -1;
                ak_pool_max_win<D>(xp, ID, IH, IW, kD, kH, kW, dD, dH, dW, d0, h0, w0, best, bi);
                idx[out] = bi;
                y[out] = D::from(best);
            } else {
                int da, db, ha, hb, wa, wb;
                const int padded = ak_pool_avg_dim(d0, kD, ID, pD, da, db) * ak_pool_avg_dim(h0, kH, IH, pH, ha, hb) *
                                   ak_pool_avg_dim(w0, kW, IW, pW, wa, wb);
                const int inside = (db > da ? db - da : 0) * (hb > ha ? hb - ha : 0) * (wb > wa ? wb - wa : 0);
                float s = 0.0f;
                for (int d = da; d < db; d++)
                    for (int h = ha; h < hb; h++) {
                        const typename D::T* row = xp + (d * IH + h) * IW;
                        for (int w = wa; w < wb; w++) s += D::to(row[w]);
                    }
                y[out] = D::from(s / (float)(divisor > 0 ? divisor : cip ? padded : inside));
            }
        }
    }
}

template <class D, bool MAX>
AK_INLINE void ak_pool(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64* AK_RESTRICT idx,
                       ak_i64 planes, int ID, int IH, int IW, int OD, int OH, int OW, int kD, int kH, int kW, int sD,
                       int sH, int sW, int pD, int pH, int pW, int dD, int dH, int dW, int cip, int divisor) {
    if (!MAX || idx)
        ak_pool_one<D, MAX>(x, y, idx, planes, ID, IH, IW, OD, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW, cip, divisor);
    else if (kW > 4)
        ak_pool_max_multi<D, AK_POOL_U, 8>(x, y, planes, ID, IH, IW, OD, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW);
    else
        ak_pool_max_multi<D, AK_POOL_U, 4>(x, y, planes, ID, IH, IW, OD, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW);
}

// NVIDIA: max at most 64 registers (4 blocks of 256 an SM: U x CH loads in flight a thread), average at most 40 (6
// blocks; no spills)
#if defined(AK_NVIDIA)
#define AK_POOL_MINB(MAX) ((MAX) ? 4 : 6)
#else
#define AK_POOL_MINB(MAX) 1
#endif
#define AK_POOL(NAME, MAX, D)                                                                                        \
    AK_KERNEL __launch_bounds__(256, AK_POOL_MINB(MAX)) void NAME(const D::T* x, D::T* y, ak_i64* idx, ak_i64 planes, int ID, int IH,   \
                                               int IW, int OD, int OH, int OW, int kD, int kH, int kW, int sD, int sH, \
                                               int sW, int pD, int pH, int pW, int dD, int dH, int dW, int cip,        \
                                               int divisor) {                                                         \
        ak_pool<D, MAX>(x, y, idx, planes, ID, IH, IW, OD, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW,  \
                        cip, divisor);                                                                               \
    }
AK_POOL(ak_pool_max_f32, true, ak_f32_t)
AK_POOL(ak_pool_max_f16, true, ak_f16_t)
AK_POOL(ak_pool_max_bf16, true, ak_bf16_t)
AK_POOL(ak_pool_avg_f32, false, ak_f32_t)
AK_POOL(ak_pool_avg_f16, false, ak_f16_t)
AK_POOL(ak_pool_avg_bf16, false, ak_bf16_t)

