// kernels/chnorm.hip - batch and group normalisation of a contiguous
// [batch][channels][spatial] tensor (NCHW and its 1-D / 3-D kin; a plane is
// one (n, c) slice of `S` elements). Host wrappers and CPU references:
// amdkit.h (>>impl:ops-chnorm): ak_batch_norm, ak_group_norm (instance norm is
// a group per channel).
//
// Statistics: batch norm (G == 0) has one per channel over every n and
// spatial position; group norm one per (n, group) over its C / G planes.
// ak_chstat_part_<dt>: a block per (plane, chunk of `chunk` elements) writes
// the sums of (x - K) and (x - K)^2 of its chunk, K = the first element of its
// statistic (a shift every part of the statistic shares, so the variance
// does not cancel against a large mean). ak_chstat_final_<dt>: a block per
// statistic adds its parts in a fixed order in double and writes the mean and
// 1 / sqrt(var + eps) (biased variance), and for batch norm in training
// updates the running statistics (unbiased variance, momentum).
// ak_chnorm_apply_<dt>: y = x * scale + shift per plane (scale = rstd x
// weight[c], shift = bias[c] - mean x scale); blockIdx.y walks the planes,
// x the plane's elements in 16-byte vectors. With `running` set, mean / var
// are the running statistics (inference) and rstd comes from var + eps.
//
// kernels: ak_chstat_part_f32 ak_chstat_part_f16 ak_chstat_part_bf16 ak_chstat_final_f32 ak_chstat_final_f16
// kernels: ak_chstat_final_bf16 ak_chnorm_apply_f32 ak_chnorm_apply_f16 ak_chnorm_apply_bf16

// offset of the first element of the statistic of plane p
AK_INLINE ak_i64 ak_chn_stat_first(ak_i64 p, ak_i64 C, ak_i64 S, int G) {
    const ak_i64 c = p % C, n = p / C;
    if (G == 0) return c * S;
    const ak_i64 cpg = C / G;
    return (n * C + (c / cpg) * cpg) * S;
}

template <class D>
AK_INLINE void ak_chstat_part(const typename D::T* x, ak_i64 C, ak_i64 S, ak_i64 cpp, ak_i64 chunk, int G, float* part) {
    typedef typename D::T T;
    __shared__ float red[AK_MAX_WAVES];
    const ak_i64 b = blockIdx.x, p = b / cpp, q = b - p * cpp;
    const float K = D::to(x[ak_chn_stat_first(p, C, S, G)]);
    const ak_i64 e0 = q * chunk, len = S - e0 < chunk ? S - e0 : chunk;
    const T* s = x + p * S + e0;
    const int V = AK_V16(D);
    const ak_i64 t = threadIdx.x, B = blockDim.x;
    ak_i64 head = (ak_i64)(((16u - ((unsigned)(ak_u64)s & 15u)) & 15u) / sizeof(T));
    if (head > len) head = len;
    float s1 = 0.0f, s2 = 0.0f;
    for (ak_i64 k = t; k < head; k += B) { const float v = D::to(s[k]) - K; s1 += v; s2 += v * v; }
    const ak_i64 nv = (len - head) / V;
    for (ak_i64 k = t; k < nv; k += B) {
        float f[8];
        ak_ld16<D>(s + head + k * V, f);
#pragma unroll
        for (int u = 0; u < V; u++) { const float v = f[u] - K; s1 += v; s2 += v * v; }
    }
    for (ak_i64 e = head + nv * V + t; e < len; e += B) { const float v = D::to(s[e]) - K; s1 += v; s2 += v * v; }
    s1 = ak_group_reduce(s1, (int)blockDim.x, red, ak_op_add());
    s2 = ak_group_reduce(s2, (int)blockDim.x, red, ak_op_add());
    if (threadIdx.x == 0) { part[2 * b] = s1; part[2 * b + 1] = s2; }
}

// a block per statistic k
template <class D>
AK_INLINE void ak_chstat_final(const typename D::T* x, const float* part, ak_i64 N, ak_i64 C, ak_i64 S, ak_i64 cpp, int G,
                               float eps, float momentum, float* mean, float* rstd, float* rmean, float* rvar) {
    __shared__ double r1[256], r2[256];
    const ak_i64 k = blockIdx.x;
    // the planes of statistic k: batch norm: n * C + k for every n; group norm: n * C + g * cpg + j, j < cpg
    const ak_i64 np = G == 0 ? N : C / G;
    const ak_i64 nparts = np * cpp;
    double s1 = 0.0, s2 = 0.0;
    for (ak_i64 i = threadIdx.x; i < nparts; i += blockDim.x) {
        const ak_i64 j = i / cpp, q = i - j * cpp;
        const ak_i64 plane = G == 0 ? j * C + k : (k / G) * C + (k % G) * (C / G) + j;
        s1 += (double)part[2 * (plane * cpp + q)];
        s2 += (double)part[2 * (plane * cpp + q) + 1];
    }
    r1[threadIdx.x] = s1;
    r2[threadIdx.x] = s2;
    __syncthreads();
    for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
        if (threadIdx.x < o) { r1[threadIdx.x] += r1[threadIdx.x + o]; r2[threadIdx.x] += r2[threadIdx.x + o]; }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const ak_i64 first = G == 0 ? k * S : ((k / G) * C + (k % G) * (C / G)) * S;
        const double K = (double)D::to(x[first]);
        const double cnt = (double)(np * S), m1 = r1[0] / cnt;
        double var = r2[0] / cnt - m1 * m1;
        if (var < 0.0) var = 0.0;
        mean[k] = (float)(K + m1);
        rstd[k] = (float)(1.0 / sqrt(var + (double)eps));
        if (rmean) {
            rmean[k] = (float)((1.0 - (double)momentum) * (double)rmean[k] + (double)momentum * (K + m1));
            rvar[k] = (float)((1.0 - (double)momentum) * (double)rvar[k] + (double)momentum * (cnt > 1.0 ? var * cnt / (cnt - 1.0) : var));
        }
    }
}

template <class D>
AK_INLINE void ak_chnorm_apply(const typename D::T* x, typename D::T* y, const typename D::T* w, const typename D::T* bias,
                               const float* mean, const float* rs, ak_i64 planes, ak_i64 C, ak_i64 S, int G, int running,
                               float eps) {
    typedef typename D::T T;
    const int V = AK_V16(D);
    for (ak_i64 p = blockIdx.y; p < planes; p += gridDim.y) {
        const ak_i64 c = p % C, k = G == 0 ? c : (p / C) * G + c / (C / G);
        const float r = running ? 1.0f / sqrtf(rs[k] + eps) : rs[k];
        const float scale = r * (w ? D::to(w[c]) : 1.0f);
        const float shift = (bias ? D::to(bias[c]) : 0.0f) - mean[k] * scale;
        const T* xs = x + p * S;
        T* ys = y + p * S;
        const ak_i64 t = (ak_i64)blockIdx.x * blockDim.x + threadIdx.x, B = (ak_i64)gridDim.x * blockDim.x;
        if ((((ak_u64)xs ^ (ak_u64)ys) & 15u) != 0) {
            for (ak_i64 e = t; e < S; e += B) ys[e] = D::from(D::to(xs[e]) * scale + shift);
            continue;
        }
        ak_i64 head = (ak_i64)(((16u - ((unsigned)(ak_u64)xs & 15u)) & 15u) / sizeof(T));
        if (head > S) head = S;
        for (ak_i64 e = t; e < head; e += B) ys[e] = D::from(D::to(xs[e]) * scale + shift);
        const ak_i64 nv = (S - head) / V;
        for (ak_i64 e = t; e < nv; e += B) {
            float f[8];
            ak_ld16<D>(xs + head + e * V, f);
#pragma unroll
            for (int u = 0; u < V; u++) f[u] = f[u] * scale + shift;
            ak_st16<D>(ys + head + e * V, f);
        }
        for (ak_i64 e = head + nv * V + t; e < S; e += B) ys[e] = D::from(D::to(xs[e]) * scale + shift);
    }
}

#define AK_CHNORM(DT, D)                                                                                             \
    AK_KERNEL __launch_bounds__(256) void ak_chstat_part_##DT(const D::T* x, ak_i64 C, ak_i64 S, ak_i64 cpp,         \
                                                              ak_i64 chunk, int G, float* part) {                    \
        ak_chstat_part<D>(x, C, S, cpp, chunk, G, part);                                                             \
    }                                                                                                                \
    AK_KERNEL __launch_bounds__(256) void ak_chstat_final_##DT(const D::T* x, const float* part, ak_i64 N, ak_i64 C,  \
                                                               ak_i64 S, ak_i64 cpp, int G, float eps,               \
                                                               float momentum, float* mean, float* rstd,             \
                                                               float* rmean, float* rvar) {                          \
        ak_chstat_final<D>(x, part, N, C, S, cpp, G, eps, momentum, mean, rstd, rmean, rvar);                       \
    }                                                                                                                \
    AK_KERNEL __launch_bounds__(256) void ak_chnorm_apply_##DT(const D::T* x, D::T* y, const D::T* w,                \
                                                               const D::T* bias, const float* mean, const float* rs, \
                                                               ak_i64 planes, ak_i64 C, ak_i64 S, int G,             \
                                                               int running, float eps) {                             \
        ak_chnorm_apply<D>(x, y, w, bias, mean, rs, planes, C, S, G, running, eps);                                  \
    }
AK_CHNORM(f32, ak_f32_t)
AK_CHNORM(f16, ak_f16_t)
AK_CHNORM(bf16, ak_bf16_t)
