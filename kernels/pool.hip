// kernels/pool.hip - max and average pooling over 1, 2 or 3 spatial
// dimensions of a contiguous [planes][ID][IH][IW] tensor (planes = batch x
// channels; 1-D and 2-D pooling are ID = IH = 1 / ID = 1 with kernel 1,
// stride 1, padding 0 there). Host wrapper and CPU reference: amdkit.h
// (>>impl:ops-pool): ak_pool.
//
// One thread per output element: blockIdx.y walks the planes (a loop when
// they pass the grid's y limit), x the outputs of a plane in row-major order,
// so neighbouring threads read neighbouring inputs (the overlap of windows
// comes from L1 / L2). In-plane index arithmetic is 32-bit (the host keeps a
// plane below 2^31 elements). Max reads each window row in groups of 4 or 8
// columns whose loads are all issued before the group's compares (a row of
// the window is one group up to 8 wide): several loads in flight a thread
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
// Tiles (ak_pool_tmax_*, ak_pool_tavg_*: max without indices and average,
// where the input window of a tile fits shared memory): a block computes a
// tile of one output plane slice and stages its input window once per kernel
// depth, so overlapping windows (stride below the window) read each input
// element from DRAM about once and from shared memory per tap (the
// one-thread-an-output kernel keeps one row's worth of new bytes in flight a
// warp and is latency bound there).
//
// kernels: ak_pool_max_f32 ak_pool_max_f16 ak_pool_max_bf16 ak_pool_avg_f32 ak_pool_avg_f16 ak_pool_avg_bf16 ak_pool_tmax_f32 ak_pool_tmax_f16 ak_pool_tmax_bf16 ak_pool_tavg_f32 ak_pool_tavg_f16 ak_pool_tavg_bf16

// One window row of max pooling: the columns w0 + kw dW (kw < kW) of row xr
// (in-plane offset rowi) in groups of CH, each group's loads issued before its
// compares (CH loads in flight a thread); `inside`: every column is in [0, IW).
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

// IDX false (no indices): positions outside read as -inf, which never changes
// the max (-inf at the start), and a NaN makes the result NaN, so the compare
// needs no validity or index.
template <class D, int CH, bool IDX>
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
        for (int j = 0; j < CH; j++) {
            if (!IDX) best = ak_pool_max_nan(best, v[j]);
            else if (ok[j] && (bi < 0 || (!ak_isnan(best) && (v[j] > best || ak_isnan(v[j]))))) {
                best = v[j];
                bi = rowi + w0 + (kw0 + j) * dW;
            }
        }
    }
}
template <class D, bool IDX>
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
            if (kW > 4) ak_pool_max_row<D, 8, IDX>(xp + rowi, rowi, w0, kW, dW, IW, win, best, bi);
            else ak_pool_max_row<D, 4, IDX>(xp + rowi, rowi, w0, kW, dW, IW, win, best, bi);
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
// The divisor of an average over (padded, inside) positions: divisor_override, else the padded window
// (count_include_pad) or the positions inside the input.
AK_INLINE float ak_pool_avg_div(int padded, int inside, int cip, int divisor) {
    return (float)(divisor > 0 ? divisor : cip ? padded : inside);
}

/* Outputs a thread (max without indices, average): the host sizes the grid by it (_AK_POOL_U in amdkit.h). */
#define AK_POOL_U 4

/* Max with indices: one thread per output. */
template <class D>
AK_INLINE void ak_pool_idx(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64* AK_RESTRICT idx,
                           ak_i64 planes, int ID, int IH, int IW, int OD, int OH, int OW, int kD, int kH, int kW, int sD,
                           int sH, int sW, int pD, int pH, int pW, int dD, int dH, int dW) {
    const ak_u32 per = (ak_u32)OD * (ak_u32)OH * (ak_u32)OW;
    const ak_i64 iplane = (ak_i64)ID * IH * IW;
    for (ak_i64 pl = blockIdx.y; pl < planes; pl += gridDim.y) {
        const typename D::T* xp = x + pl * iplane;
        for (ak_u32 o = blockIdx.x * blockDim.x + threadIdx.x; o < per; o += gridDim.x * blockDim.x) {
            // 1-D and 2-D pooling skip the divisions their extents of 1 make trivial (division is the costly part
            // of the index arithmetic a thread does per output)
            ak_u32 ow = o, oh = 0, od = 0;
            if (OH > 1 || OD > 1) {
                const ak_u32 t = o / (ak_u32)OW;
                ow = o - t * (ak_u32)OW;
                if (OD > 1) { od = t / (ak_u32)OH; oh = t - od * (ak_u32)OH; }
                else oh = t;
            }
            const ak_i64 out = pl * (ak_i64)per + o;
            float best = -AK_INF;
            int bi = -1;
            ak_pool_max_win<D, true>(xp, ID, IH, IW, kD, kH, kW, dD, dH, dW, (int)od * sD - pD, (int)oh * sH - pH, (int)ow * sW - pW,
                                     best, bi);
            idx[out] = bi;
            y[out] = D::from(best);
        }
    }
}

/* Max without indices and average: a thread computes U outputs of a plane at a
 * stride of the block (a block: 256 U consecutive outputs), and issues the
 * loads of a window row for all U (CH columns each) before their compares /
 * sums: U rows of new bytes in flight a warp, not one. Positions outside the
 * input read as -inf (max: never the maximum; a NaN wins) or 0 (average). */
template <class D, bool MAX, int U, int CH>
AK_INLINE void ak_pool_multi(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 planes, int ID,
                             int IH, int IW, int OD, int OH, int OW, int kD, int kH, int kW, int sD, int sH, int sW, int pD,
                             int pH, int pW, int dD, int dH, int dW, int cip, int divisor) {
    const ak_u32 per = (ak_u32)OD * (ak_u32)OH * (ak_u32)OW, chunk = 256u * U;
    const ak_i64 iplane = (ak_i64)ID * IH * IW;
    const float fill = MAX ? -AK_INF : 0.0f;
    for (ak_i64 pl = blockIdx.y; pl < planes; pl += gridDim.y) {
        const typename D::T* xp = x + pl * iplane;
        for (ak_u32 ob = blockIdx.x * chunk; ob < per; ob += gridDim.x * chunk) {
            int d0[U], h0[U], w0[U];
            bool live[U];
            float acc[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const ak_u32 o = ob + threadIdx.x + (ak_u32)u * 256u;
                ak_u32 ow = o, oh = 0, od = 0;
                if (OH > 1 || OD > 1) {
                    const ak_u32 t = o / (ak_u32)OW;
                    ow = o - t * (ak_u32)OW;
                    if (OD > 1) { od = t / (ak_u32)OH; oh = t - od * (ak_u32)OH; }
                    else oh = t;
                }
                live[u] = o < per;
                d0[u] = (int)od * sD - pD; h0[u] = (int)oh * sH - pH; w0[u] = (int)ow * sW - pW;
                acc[u] = fill;
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
                                v[u][j] = rok[u] && kw0 + j < kW && (unsigned)w < (unsigned)IW ? D::to(xp[rowi[u] + w]) : fill;
                            }
#pragma unroll
                        for (int u = 0; u < U; u++)
#pragma unroll
                            for (int j = 0; j < CH; j++) acc[u] = MAX ? ak_pool_max_nan(acc[u], v[u][j]) : acc[u] + v[u][j];
                    }
                }
#pragma unroll
            for (int u = 0; u < U; u++)
                if (live[u]) {
                    float r = acc[u];
                    if (!MAX) {
                        int da, db, ha, hb, wa, wb;
                        const int padded = ak_pool_avg_dim(d0[u], kD, ID, pD, da, db) * ak_pool_avg_dim(h0[u], kH, IH, pH, ha, hb) *
                                           ak_pool_avg_dim(w0[u], kW, IW, pW, wa, wb);
                        const int inside = (db > da ? db - da : 0) * (hb > ha ? hb - ha : 0) * (wb > wa ? wb - wa : 0);
                        r /= ak_pool_avg_div(padded, inside, cip, divisor);
                    }
                    y[pl * (ak_i64)per + ob + threadIdx.x + (ak_u32)u * 256u] = D::from(r);
                }
        }
    }
}

template <class D, bool MAX>
AK_INLINE void ak_pool(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64* AK_RESTRICT idx,
                       ak_i64 planes, int ID, int IH, int IW, int OD, int OH, int OW, int kD, int kH, int kW, int sD,
                       int sH, int sW, int pD, int pH, int pW, int dD, int dH, int dW, int cip, int divisor) {
    if (MAX && idx) ak_pool_idx<D>(x, y, idx, planes, ID, IH, IW, OD, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW);
    else if (kW > 4)
        ak_pool_multi<D, MAX, AK_POOL_U, 8>(x, y, planes, ID, IH, IW, OD, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW, cip,
                                            divisor);
    else
        ak_pool_multi<D, MAX, AK_POOL_U, 4>(x, y, planes, ID, IH, IW, OD, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW, cip,
                                            divisor);
}

// NVIDIA: at most 64 registers (4 blocks of 256 an SM: U x CH loads in flight a thread)
#if defined(AK_NVIDIA)
#define AK_POOL_MINB 4
#else
#define AK_POOL_MINB 1
#endif
#define AK_POOL(NAME, MAX, D)                                                                                        \
    AK_KERNEL __launch_bounds__(256, AK_POOL_MINB) void NAME(const D::T* x, D::T* y, ak_i64* idx, ak_i64 planes, int ID, int IH,   \
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

/* The tiles: a block of 256 threads computes outputs (oh0 + ty R + i, ow0 + tx)
 * (tall: tw = 64 columns x 4 row groups, rn <= R rows a thread) or (oh0,
 * ow0 + tx + i tw) (wide, for 1-D: tw = 256, rn <= R columns a thread at a
 * stride of tw) of one output depth od of one plane; blockIdx.x: the tile,
 * y: (plane, od), striding by gridDim.y. Per kernel depth the input window of
 * the tile (XH rows x XW columns) is staged in shared memory (dynamic, fp32,
 * XH XW floats: the host's size), -inf (max) or 0 (average) outside the input,
 * eight loads in flight a thread and no division per element (the position
 * steps by 256); each output then reads its kH x kW taps there. */
template <class D, bool MAX>
AK_INLINE void ak_pool_tile(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 planes, int ID, int IH,
                            int IW, int OD, int OH, int OW, int kD, int kH, int kW, int sD, int sH, int sW, int pD, int pH,
                            int pW, int dD, int dH, int dW, int cip, int divisor, int wide, int tw, int rn) {
    enum { R = 8, L = 8 }; /* outputs a thread at most, loads in flight a thread when staging */
    AK_DYNAMIC_SHARED(float, ak_pool_xs);
    const int tid = (int)threadIdx.x, tx = tid % tw, ty = tid / tw;
    const int tcols = wide ? tw * rn : tw, trows = wide ? 1 : (256 / tw) * rn;
    const int twn = (OW + tcols - 1) / tcols, ow0 = ((int)blockIdx.x % twn) * tcols, oh0 = ((int)blockIdx.x / twn) * trows;
    const int XW = (tcols - 1) * sW + (kW - 1) * dW + 1, XH = (trows - 1) * sH + (kH - 1) * dH + 1, XN = XW * XH;
    const int iw0 = ow0 * sW - pW, ih0 = oh0 * sH - pH;
    const int stq = 256 % XW, str = 256 / XW, q0 = tid % XW, r0 = tid / XW;
    /* a thread's first output in the tile and the step to its next (shared memory offsets; output row / column) */
    const int orow = wide ? 0 : ty * rn, ocol = tx;
    const int xstep = wide ? tw * sW : sH * XW, base = orow * sH * XW + ocol * sW;
    const float fill = MAX ? -AK_INF : 0.0f;
    const ak_i64 units = planes * OD, iplane = (ak_i64)ID * IH * IW, oplane = (ak_i64)OD * OH * OW;
    for (ak_i64 u = blockIdx.y; u < units; u += gridDim.y) {
        const int od = (int)(u % OD);
        const ak_i64 pl = u / OD;
        const typename D::T* xp = x + pl * iplane;
        float acc[R];
#pragma unroll
        for (int i = 0; i < R; i++) acc[i] = fill;
        for (int kd = 0; kd < kD; kd++) {
            const int id = od * sD - pD + kd * dD;
            if ((unsigned)id >= (unsigned)ID) continue; /* uniform over the block */
            const typename D::T* xd = xp + (ak_i64)id * IH * IW;
            __syncthreads(); /* the previous window's readers are done */
            int q = q0, rr = r0;
            for (int e = tid; e < XN; e += L * 256) {
                float v[L];
#pragma unroll
                for (int j = 0; j < L; j++) {
                    const int ih = ih0 + rr, iw = iw0 + q;
                    v[j] = e + j * 256 < XN && (unsigned)ih < (unsigned)IH && (unsigned)iw < (unsigned)IW ? D::to(xd[ih * IW + iw]) : fill;
                    q += stq;
                    rr += str;
                    if (q >= XW) { q -= XW; rr++; }
                }
#pragma unroll
                for (int j = 0; j < L; j++)
                    if (e + j * 256 < XN) ak_pool_xs[e + j * 256] = v[j];
            }
            __syncthreads();
            for (int kh = 0; kh < kH; kh++)
                for (int kw = 0; kw < kW; kw++) {
                    const float* xq = ak_pool_xs + base + kh * dH * XW + kw * dW;
#pragma unroll
                    for (int i = 0; i < R; i++)
                        if (i < rn) acc[i] = MAX ? ak_pool_max_nan(acc[i], xq[i * xstep]) : acc[i] + xq[i * xstep];
                }
        }
        typename D::T* yp = y + pl * oplane + (ak_i64)od * OH * OW;
        /* average: the window's padded / inside extents per dimension (depth: the unit's; the thread's column (tall) or
         * row (wide) once, the other per output) */
        int lo, hi, pd0 = 1, id0 = 1, pf = 1, inf = 1;
        if (!MAX) {
            pd0 = ak_pool_avg_dim(od * sD - pD, kD, ID, pD, lo, hi);
            id0 = hi > lo ? hi - lo : 0;
            pf = wide ? ak_pool_avg_dim(oh0 * sH - pH, kH, IH, pH, lo, hi) : ak_pool_avg_dim((ow0 + ocol) * sW - pW, kW, IW, pW, lo, hi);
            inf = hi > lo ? hi - lo : 0;
        }
#pragma unroll
        for (int i = 0; i < R; i++) {
            const int oh = oh0 + orow + (wide ? 0 : i), ow = ow0 + ocol + (wide ? i * tw : 0);
            if (i < rn && oh < OH && ow < OW) {
                float v = acc[i];
                if (!MAX) {
                    const int pv = wide ? ak_pool_avg_dim(ow * sW - pW, kW, IW, pW, lo, hi) : ak_pool_avg_dim(oh * sH - pH, kH, IH, pH, lo, hi);
                    v /= ak_pool_avg_div(pd0 * pf * pv, id0 * inf * (hi > lo ? hi - lo : 0), cip, divisor);
                }
                yp[oh * OW + ow] = D::from(v);
            }
        }
    }
}
// NVIDIA: at most 64 registers (4 blocks of 256 an SM)
#if defined(AK_NVIDIA)
#define AK_POOL_TILE_MINB 4
#else
#define AK_POOL_TILE_MINB 1
#endif
#define AK_POOL_TILE(NAME, MAX, D)                                                                                   \
    AK_KERNEL __launch_bounds__(256, AK_POOL_TILE_MINB) void NAME(const D::T* x, D::T* y, ak_i64 planes, int ID, int IH, \
                                               int IW, int OD, int OH, int OW, int kD, int kH, int kW, int sD, int sH,  \
                                               int sW, int pD, int pH, int pW, int dD, int dH, int dW, int cip,         \
                                               int divisor, int wide, int tw, int rn) {                                 \
        ak_pool_tile<D, MAX>(x, y, planes, ID, IH, IW, OD, OH, OW, kD, kH, kW, sD, sH, sW, pD, pH, pW, dD, dH, dW, cip, \
                             divisor, wide, tw, rn);                                                                     \
    }
AK_POOL_TILE(ak_pool_tmax_f32, true, ak_f32_t)
AK_POOL_TILE(ak_pool_tmax_f16, true, ak_f16_t)
AK_POOL_TILE(ak_pool_tmax_bf16, true, ak_bf16_t)
AK_POOL_TILE(ak_pool_tavg_f32, false, ak_f32_t)
AK_POOL_TILE(ak_pool_tavg_f16, false, ak_f16_t)
AK_POOL_TILE(ak_pool_tavg_bf16, false, ak_bf16_t)
