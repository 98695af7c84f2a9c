// kernels/loss.hip - element-wise losses (MSE, L1, Huber, smooth L1, KL
// divergence, hinge) reduced to one value or written per element, and the
// triplet margin loss (per-row distances). Host wrappers and CPU references:
// amdkit.h (>>impl:ops-loss): ak_loss, ak_triplet_margin_loss.
//
// ak_loss_<dt>: input [rows][cols] against target (the same shape, one row of
// cols values broadcast over the rows (tb 1), or one value per row (tb 2)).
// Block b takes elements [b chunk, (b + 1) chunk) (chunk a multiple of 4) in
// units of 4 per thread, two units in flight (16-byte-aligned pointers: vector loads of input and
// of a full target, of a row target too when cols % 4 == 0; the op is a
// template parameter, every array index a constant: registers, no local
// memory); with `elem` set it writes every element's loss (fp32), else its
// block sum to part[b]: the loss and its reduction in one pass over the
// inputs. ak_loss_finish adds part[0..nparts) in a fixed order in double and
// writes sum x scale (mean: 1 / n, batchmean: 1 / rows): deterministic.
//
// ak_triplet_<dt>: a block per row: d(a, p) and d(a, n) as torch's
// pairwise_distance (||a - b + eps||_norm), loss = max(d(a, p) - d(a, n) +
// margin, 0) (swap: d(a, n) replaced by min(d(a, n), d(p, n))), to
// rowloss[row] (reduction none) or to the partials the finish kernel adds.
//
// kernels: ak_loss_f32 ak_loss_f16 ak_loss_bf16 ak_loss_finish ak_triplet_f32 ak_triplet_f16 ak_triplet_bf16

// op codes: ak_loss_op of amdkit.h
#define AK_LS_MSE 0
#define AK_LS_L1 1
#define AK_LS_HUBER 2
#define AK_LS_SMOOTH_L1 3
#define AK_LS_KL 4
#define AK_LS_HINGE 5
#define AK_LSF_LOG_TARGET 1
#define AK_LSF_PROB_INPUT 2

AK_INLINE float ak_loss_term(int op, float x, float t, float p, int flags) {
    switch (op) {
    case AK_LS_MSE: { const float d = x - t; return d * d; }
    case AK_LS_L1: return fabsf(x - t);
    case AK_LS_HUBER: { const float d = fabsf(x - t); return d < p ? 0.5f * d * d : p * (d - 0.5f * p); }
    case AK_LS_SMOOTH_L1: { const float d = fabsf(x - t); return d < p ? 0.5f * d * d / p : d - 0.5f * p; }
    case AK_LS_KL: {
        const float lx = (flags & AK_LSF_PROB_INPUT) ? logf(x) : x;
        if (flags & AK_LSF_LOG_TARGET) return expf(t) * (t - lx);
        return t > 0.0f ? t * (logf(t) - lx) : 0.0f;   // torch's xlogy: 0 where the target is 0
    }
    default: { const float v = p - x * t; return v > 0.0f ? v : 0.0f; }   // hinge: max(0, margin - x t)
    }
}

// one unit: the 4 elements from u (u % 4 == 0, all below n) and their targets
template <class D, class I>
AK_INLINE void ak_loss_unit(const typename D::T* AK_RESTRICT x, const typename D::T* AK_RESTRICT tg, ak_i64 u, I cols,
                            int tb, bool vx, bool vt, float a[4], float t[4]) {
    if (vx) D::ld4(x + u, a);
    else {
#pragma unroll
        for (int k = 0; k < 4; k++) a[k] = D::to(x[u + k]);
    }
    if (tb == 0) {
        if (vt) D::ld4(tg + u, t);
        else {
#pragma unroll
            for (int k = 0; k < 4; k++) t[k] = D::to(tg[u + k]);
        }
        return;
    }
    I r = (I)u / cols, c = (I)u - r * cols;
    if (vt) {   // a row target with cols % 4 == 0: the 4 elements share a row
        if (tb == 1) D::ld4(tg + c, t);
        else {
            const float v = D::to(tg[r]);
#pragma unroll
            for (int k = 0; k < 4; k++) t[k] = v;
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
        t[k] = D::to(tg[tb == 1 ? c : r]);
        if (++c == cols) { c = 0; r++; }
    }
}

template <int OP, class D, class I>
AK_INLINE float ak_loss_body(const typename D::T* AK_RESTRICT x, const typename D::T* AK_RESTRICT tg, ak_i64 n, I cols,
                             int tb, float p, int flags, ak_i64 chunk, float* AK_RESTRICT elem) {
    const ak_i64 e0 = (ak_i64)blockIdx.x * chunk, e1 = e0 + chunk < n ? e0 + chunk : n;
    const ak_i64 full = e0 + ((e1 - e0) & ~(ak_i64)3), B4 = 4 * (ak_i64)blockDim.x;
    // 16-byte accesses: x and a full target from aligned pointers (e0 is a multiple of 4); a row / column target
    // when cols % 4 == 0 (one row per unit)
    const bool vx = ak_aligned16(x);
    const bool vt = tb == 0 ? ak_aligned16(tg) : (cols % 4 == 0 && (tb == 2 || ak_aligned16(tg)));
    const bool ve = elem && ak_aligned16(elem);
    float s = 0.0f;
    ak_i64 u = e0 + 4 * (ak_i64)threadIdx.x;
    // two units in flight per thread
    for (; u + B4 < full; u += 2 * B4) {
        float a[4], t[4], a2[4], t2[4], v[4], v2[4];
        ak_loss_unit<D, I>(x, tg, u, cols, tb, vx, vt, a, t);
        ak_loss_unit<D, I>(x, tg, u + B4, cols, tb, vx, vt, a2, t2);
#pragma unroll
        for (int k = 0; k < 4; k++) { v[k] = ak_loss_term(OP, a[k], t[k], p, flags); v2[k] = ak_loss_term(OP, a2[k], t2[k], p, flags); }
        if (elem) {
            if (ve) { ak_f32_t::st4(elem + u, v); ak_f32_t::st4(elem + u + B4, v2); }
            else {
#pragma unroll
                for (int k = 0; k < 4; k++) { elem[u + k] = v[k]; elem[u + B4 + k] = v2[k]; }
            }
        }
        s += ((v[0] + v[1]) + (v[2] + v[3])) + ((v2[0] + v2[1]) + (v2[2] + v2[3]));
    }
    if (u < full) {
        float a[4], t[4], v[4];
        ak_loss_unit<D, I>(x, tg, u, cols, tb, vx, vt, a, t);
#pragma unroll
        for (int k = 0; k < 4; k++) v[k] = ak_loss_term(OP, a[k], t[k], p, flags);
        if (elem) {
            if (ve) ak_f32_t::st4(elem + u, v);
            else {
#pragma unroll
                for (int k = 0; k < 4; k++) elem[u + k] = v[k];
            }
        }
        s += (v[0] + v[1]) + (v[2] + v[3]);
    }
    // the last 1-3 elements of the tensor (only the last block has them)
    const ak_i64 e = full + (ak_i64)threadIdx.x;
    if (e < e1) {
        const I ei = (I)e, r = ei / cols, c = ei - r * cols;
        const float v = ak_loss_term(OP, D::to(x[e]), D::to(tg[tb == 0 ? (ak_i64)e : tb == 1 ? (ak_i64)c : (ak_i64)r]), p, flags);
        if (elem) elem[e] = v;
        s += v;
    }
    return s;
}
template <class D, class I>
AK_INLINE float ak_loss_ops(const typename D::T* x, const typename D::T* tg, ak_i64 n, I cols, int tb, int op, float p,
                            int flags, ak_i64 chunk, float* elem) {
    switch (op) {
    case AK_LS_MSE: return ak_loss_body<AK_LS_MSE, D, I>(x, tg, n, cols, tb, p, flags, chunk, elem);
    case AK_LS_L1: return ak_loss_body<AK_LS_L1, D, I>(x, tg, n, cols, tb, p, flags, chunk, elem);
    case AK_LS_HUBER: return ak_loss_body<AK_LS_HUBER, D, I>(x, tg, n, cols, tb, p, flags, chunk, elem);
    case AK_LS_SMOOTH_L1: return ak_loss_body<AK_LS_SMOOTH_L1, D, I>(x, tg, n, cols, tb, p, flags, chunk, elem);
    case AK_LS_KL: return ak_loss_body<AK_LS_KL, D, I>(x, tg, n, cols, tb, p, flags, chunk, elem);
    default: return ak_loss_body<AK_LS_HINGE, D, I>(x, tg, n, cols, tb, p, flags, chunk, elem);
    }
}
template <class D>
AK_INLINE void ak_loss(const typename D::T* x, const typename D::T* tg, ak_i64 n, ak_i64 cols, int tb, int op, float p,
                       int flags, ak_i64 chunk, float* part, float* elem) {
    __shared__ float red[AK_MAX_WAVES];
    float s;
    if (n + 4 < 0xFFFFFFFFLL) s = ak_loss_ops<D, ak_u32>(x, tg, n, (ak_u32)cols, tb, op, p, flags, chunk, elem);
    else s = ak_loss_ops<D, ak_u64>(x, tg, n, (ak_u64)cols, tb, op, p, flags, chunk, elem);
    if (!elem) {
        s = ak_group_reduce(s, (int)blockDim.x, red, ak_op_add());
        if (threadIdx.x == 0) part[blockIdx.x] = s;
    }
}
#define AK_LOSS(DT, D)                                                                                               \
    AK_KERNEL __launch_bounds__(256) void ak_loss_##DT(const D::T* x, const D::T* tg, ak_i64 n, ak_i64 cols, int tb, \
                                                       int op, float p, int flags, ak_i64 chunk, float* part,        \
                                                       float* elem) { AK_KONLY(ak_loss_##DT) { \
        ak_loss<D>(x, tg, n, cols, tb, op, p, flags, chunk, part, elem);                                             \
    } }
AK_LOSS(f32, ak_f32_t)
AK_LOSS(f16, ak_f16_t)
AK_LOSS(bf16, ak_bf16_t)

// one block of 256 threads: out[0] = (sum of part[0..nparts) in double, fixed order) x scale
AK_KERNEL __launch_bounds__(256) void ak_loss_finish(const float* part, ak_i64 nparts, double scale, float* out) { AK_KONLY(ak_loss_finish) {
    __shared__ double sh[256];
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    const ak_i64 B = blockDim.x;
    ak_i64 i = threadIdx.x;
    for (; i + 3 * B < nparts; i += 4 * B) {   // four loads in flight
        s0 += (double)part[i]; s1 += (double)part[i + B]; s2 += (double)part[i + 2 * B]; s3 += (double)part[i + 3 * B];
    }
    for (; i < nparts; i += B) s0 += (double)part[i];
    sh[threadIdx.x] = (s0 + s1) + (s2 + s3);
    __syncthreads();
    for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
        if (threadIdx.x < o) sh[threadIdx.x] += sh[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = (float)(sh[0] * scale);
} }

// ---- triplet margin loss -------------------------------------------------------------------
AK_INLINE float ak_trip_pow(float d, float norm) {
    const float a = fabsf(d);
    return norm == 2.0f ? a * a : norm == 1.0f ? a : powf(a, norm);
}
AK_INLINE float ak_trip_root(float s, float norm) {
    return norm == 2.0f ? sqrtf(s) : norm == 1.0f ? s : powf(s, 1.0f / norm);
}
template <class D>
AK_INLINE void ak_triplet(const typename D::T* a, const typename D::T* pz, const typename D::T* ng, ak_i64 rows, ak_i64 cols,
                          float margin, float norm, float eps, int swap, float* rowloss) {
    __shared__ float red[AK_MAX_WAVES];
    const int V = AK_V16(D);
    for (ak_i64 row = blockIdx.x; row < rows; row += gridDim.x) {
        const typename D::T *ar = a + row * cols, *pr = pz + row * cols, *nr = ng + row * cols;
        float sp = 0.0f, sn = 0.0f, sw = 0.0f;
        const bool vec = ak_aligned16(ar) && ak_aligned16(pr) && ak_aligned16(nr);
        const ak_i64 nv = vec ? cols / V : 0;
        for (ak_i64 k = threadIdx.x; k < nv; k += blockDim.x) {
            float fa[8], fp[8], fn[8];
            ak_ld16<D>(ar + k * V, fa);
            ak_ld16<D>(pr + k * V, fp);
            ak_ld16<D>(nr + k * V, fn);
#pragma unroll
            for (int q = 0; q < V; q++) {
                sp += ak_trip_pow(fa[q] - fp[q] + eps, norm);
                sn += ak_trip_pow(fa[q] - fn[q] + eps, norm);
                if (swap) sw += ak_trip_pow(fp[q] - fn[q] + eps, norm);
            }
        }
        for (ak_i64 e = nv * V + threadIdx.x; e < cols; e += blockDim.x) {
            const float va = D::to(ar[e]), vp = D::to(pr[e]), vn = D::to(nr[e]);
            sp += ak_trip_pow(va - vp + eps, norm);
            sn += ak_trip_pow(va - vn + eps, norm);
            if (swap) sw += ak_trip_pow(vp - vn + eps, norm);
        }
        sp = ak_group_reduce(sp, (int)blockDim.x, red, ak_op_add());
        sn = ak_group_reduce(sn, (int)blockDim.x, red, ak_op_add());
        if (swap) sw = ak_group_reduce(sw, (int)blockDim.x, red, ak_op_add());
        if (threadIdx.x == 0) {
            float dn = ak_trip_root(sn, norm);
            if (swap) { const float dw = ak_trip_root(sw, norm); dn = dw < dn ? dw : dn; }
            const float l = ak_trip_root(sp, norm) - dn + margin;
            rowloss[row] = l > 0.0f ? l : 0.0f;
        }
        __syncthreads();
    }
}
#define AK_TRIPLET(DT, D)                                                                                            \
    AK_KERNEL __launch_bounds__(256) void ak_triplet_##DT(const D::T* a, const D::T* p, const D::T* n, ak_i64 rows,  \
                                                          ak_i64 cols, float margin, float norm, float eps, int swap, \
                                                          float* rowloss) { AK_KONLY(ak_triplet_##DT) { \
        ak_triplet<D>(a, p, n, rows, cols, margin, norm, eps, swap, rowloss);                                        \
    } }
AK_TRIPLET(f32, ak_f32_t)
AK_TRIPLET(f16, ak_f16_t)
AK_TRIPLET(bf16, ak_bf16_t)
