// kernels/loss.hip - element-wise losses (MSE, L1, Huber, smooth L1, KL
// divergence, hinge) reduced to one value or written per element, and the
// triplet margin loss (per-row distances). Host wrappers and CPU references:
// amdkit.h (>>impl:ops-loss): ak_loss, ak_triplet_margin_loss.
//
// ak_loss_<dt>: input [rows][cols] against target (the same shape, one row of
// cols values broadcast over the rows (tb 1), or one value per row (tb 2)).
// Block b takes elements [b chunk, (b + 1) chunk) in steps of 4 per thread
// (16-byte loads of input, and of target when it has the same shape); with
// `elem` set it writes every element's loss (fp32), else its block sum to
// part[b]. ak_loss_finish adds part[0..nparts) in a fixed order in double
// and writes sum x scale (mean: 1 / n, batchmean: 1 / rows): deterministic.
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

template <class D, class I>
AK_INLINE void ak_loss_body(const typename D::T* x, const typename D::T* tg, ak_i64 n, I cols, int tb, int op, float p,
                            int flags, ak_i64 chunk, float* part, float* elem, float* red) {
    const ak_i64 b = blockIdx.x, e0 = b * chunk, e1 = e0 + chunk < n ? e0 + chunk : n;
    const bool vx = ak_aligned16(x) && (e0 % 4 == 0), vt = tb == 0 && ak_aligned16(tg);
    float s = 0.0f;
    for (ak_i64 u = e0 + 4 * (ak_i64)threadIdx.x; u < e1; u += 4 * (ak_i64)blockDim.x) {
        const int m = e1 - u < 4 ? (int)(e1 - u) : 4;
        float a[4], t[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        if (vx && m == 4) D::ld4(x + u, a);
        else for (int k = 0; k < m; k++) a[k] = D::to(x[u + k]);
        if (tb == 0) {
            if (vt && m == 4) D::ld4(tg + u, t);
            else for (int k = 0; k < m; k++) t[k] = D::to(tg[u + k]);
        } else {
            I r = (I)u / cols, c = (I)u - r * cols;
            for (int k = 0; k < m; k++) {
                t[k] = D::to(tg[tb == 1 ? c : r]);
                if (++c == cols) { c = 0; r++; }
            }
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (k < m) {
                const float v = ak_loss_term(op, a[k], t[k], p, flags);
                if (elem) elem[u + k] = v;
                s += v;
            }
        }
    }
    if (!elem) {
        s = ak_group_reduce(s, (int)blockDim.x, red, ak_op_add());
        if (threadIdx.x == 0) part[b] = s;
    }
}
template <class D>
AK_INLINE void ak_loss(const typename D::T* x, const typename D::T* tg, ak_i64 n, ak_i64 cols, int tb, int op, float p,
                       int flags, ak_i64 chunk, float* part, float* elem) {
    __shared__ float red[AK_MAX_WAVES];
    if (n + 4 < 0xFFFFFFFFLL) ak_loss_body<D, ak_u32>(x, tg, n, (ak_u32)cols, tb, op, p, flags, chunk, part, elem, red);
    else ak_loss_body<D, ak_u64>(x, tg, n, (ak_u64)cols, tb, op, p, flags, chunk, part, elem, red);
}
#define AK_LOSS(DT, D)                                                                                               \
    AK_KERNEL __launch_bounds__(256) void ak_loss_##DT(const D::T* x, const D::T* tg, ak_i64 n, ak_i64 cols, int tb, \
                                                       int op, float p, int flags, ak_i64 chunk, float* part,        \
                                                       float* elem) {                                                \
        ak_loss<D>(x, tg, n, cols, tb, op, p, flags, chunk, part, elem);                                             \
    }
AK_LOSS(f32, ak_f32_t)
AK_LOSS(f16, ak_f16_t)
AK_LOSS(bf16, ak_bf16_t)

// one block of 256 threads: out[0] = (sum of part[0..nparts) in double, fixed order) x scale
AK_KERNEL __launch_bounds__(256) void ak_loss_finish(const float* part, ak_i64 nparts, double scale, float* out) {
    __shared__ double sh[256];
    double s = 0.0;
    for (ak_i64 i = threadIdx.x; i < nparts; i += blockDim.x) s += (double)part[i];
    sh[threadIdx.x] = s;
    __syncthreads();
    for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
        if (threadIdx.x < o) sh[threadIdx.x] += sh[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = (float)(sh[0] * scale);
}

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
                                                          float* rowloss) {                                          \
        ak_triplet<D>(a, p, n, rows, cols, margin, norm, eps, swap, rowloss);                                        \
    }
AK_TRIPLET(f32, ak_f32_t)
AK_TRIPLET(f16, ak_f16_t)
AK_TRIPLET(bf16, ak_bf16_t)
