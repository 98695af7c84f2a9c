// kernels/xent.hip - cross-entropy loss over logits (rows x classes, f32 /
// f16 / bf16) and int64 targets, fp32 math:
//   loss[r] = logsumexp(x[r, :]) - x[r, t[r]]
// t[r] == ignore_index: loss 0, left out of the mean. t[r] outside [0, cols)
// (and not ignore_index): loss NaN (so the mean is NaN too): the device
// cannot report an error cheaply, the NaN marks the bad row.
//
// ak_xent_<dt>: a group of G threads per row (G a power of two), one pass:
// each thread keeps an online (max, sum of exp) over its elements, 4 x 8
// elements in flight; the group combines them. One read of the logits.
// ak_xent_partial + ak_xent_mean: sum (mean = 0) or mean (mean = 1) of the
// losses over the rows whose target is not ignore_index: per-block partial
// sums and counts, then one block combines them in a fixed order
// (deterministic); the mean is NaN when every row is ignored.
//
// kernels: ak_xent_f32 ak_xent_f16 ak_xent_bf16 ak_xent_partial ak_xent_mean

AK_INLINE float ak_xent_rescale(float m, float M) { return m == M ? 1.0f : ak_exp2((m - M) * AK_LOG2E); }

// fold n values into the running (m, s)
template <int N>
AK_INLINE void ak_xent_fold(float& m, float& s, const float* a) {
    float mn = m;
#pragma unroll
    for (int q = 0; q < N; q++) mn = ak_op_max()(mn, a[q]);
    if (mn != -AK_INF) {
        float t = 0.0f;
#pragma unroll
        for (int q = 0; q < N; q++) t += ak_exp2((a[q] - mn) * AK_LOG2E);
        s = s * ak_xent_rescale(m, mn) + t;
        m = mn;
    }
}

template <class D>
AK_INLINE void ak_xent_rows(const typename D::T* AK_RESTRICT x, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,
                            ak_i64 cols, int G, bool vec, ak_i64 ignore_index, float* AK_RESTRICT loss) {
    __shared__ float scratch[AK_MAX_WAVES];
    const int lane = (int)threadIdx.x & (G - 1);
    ak_i64 row = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);
    const bool active = row < rows;
    const ak_i64 len = active ? cols : 0;
    if (!active) row = 0;
    const typename D::T* p = x + row * cols;
    float m = -AK_INF, s = 0.0f;
    if (vec) {
        const ak_i64 nv = len >> 3;
        ak_i64 k = lane;
        for (; k + 3 * G < nv; k += 4 * G) {
            float a[32];
#pragma unroll
            for (int u = 0; u < 4; u++) D::ld8(p + (k + u * G) * 8, a + 8 * u);
            ak_xent_fold<32>(m, s, a);
        }
        for (; k < nv; k += G) {
            float a[8];
            D::ld8(p + k * 8, a);
            ak_xent_fold<8>(m, s, a);
        }
    } else {
        ak_i64 e = lane;
        for (; e + 3 * G < len; e += 4 * G) {
            float a[4];
#pragma unroll
            for (int u = 0; u < 4; u++) a[u] = D::to(p[e + u * G]);
            ak_xent_fold<4>(m, s, a);
        }
        for (; e < len; e += G) {
            float a = D::to(p[e]);
            ak_xent_fold<1>(m, s, &a);
        }
    }
    const float M = ak_group_reduce(m, G, scratch, ak_op_max());
    const float S = ak_group_reduce(s * ak_xent_rescale(m, M), G, scratch, ak_op_add());
    if (active && lane == 0) {
        const ak_i64 t = tgt[row];
        float l;
        if (t == ignore_index) l = 0.0f;
        else if (t < 0 || t >= cols) l = AK_NAN;
        else l = (M + logf(S)) - D::to(p[t]);
        loss[row] = l;
    }
}

// Stage 1 of the mean / sum: block b adds the losses and counts the rows
// r in [b * per, (b + 1) * per) whose target is not ignore_index (ignored
// rows hold loss 0): part[2b] = sum, part[2b + 1] = count.
AK_INLINE void ak_xent_partial_body(const float* AK_RESTRICT loss, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,
                                    ak_i64 per, ak_i64 ignore_index, float* AK_RESTRICT part) {
    __shared__ float scratch[AK_MAX_WAVES];
    const ak_i64 r0 = (ak_i64)blockIdx.x * per, r1 = rows - r0 < per ? rows : r0 + per;
    float s = 0.0f, n = 0.0f;
    for (ak_i64 r = r0 + threadIdx.x; r < r1; r += blockDim.x)
        if (tgt[r] != ignore_index) { s += loss[r]; n += 1.0f; }
    s = ak_group_reduce(s, (int)blockDim.x, scratch, ak_op_add());
    n = ak_group_reduce(n, (int)blockDim.x, scratch, ak_op_add());
    if (threadIdx.x == 0) { part[2 * blockIdx.x] = s; part[2 * blockIdx.x + 1] = n; }
}

// Stage 2: one block combines the nparts partials in order: the sum, or the
// mean (NaN when every row is ignored).
AK_INLINE void ak_xent_mean_body(const float* AK_RESTRICT part, int nparts, bool mean, float* AK_RESTRICT out) {
    __shared__ float scratch[AK_MAX_WAVES];
    float s = 0.0f, n = 0.0f;
    for (int j = (int)threadIdx.x; j < nparts; j += (int)blockDim.x) { s += part[2 * j]; n += part[2 * j + 1]; }
    s = ak_group_reduce(s, (int)blockDim.x, scratch, ak_op_add());
    n = ak_group_reduce(n, (int)blockDim.x, scratch, ak_op_add());
    if (threadIdx.x == 0) *out = !mean ? s : n > 0.0f ? s / n : AK_NAN;
}

#define AK_XENT(DT, D)                                                                                               \
    AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_##DT(const D::T* x, const ak_i64* tgt, ak_i64 rows,             \
                                                           ak_i64 cols, int G, int vec, ak_i64 ignore_index,         \
                                                           float* loss) {                                            \
        ak_xent_rows<D>(x, tgt, rows, cols, G, vec != 0, ignore_index, loss);                                        \
    }
AK_XENT(f32, ak_f32_t)
AK_XENT(f16, ak_f16_t)
AK_XENT(bf16, ak_bf16_t)
AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_partial(const float* loss, const ak_i64* tgt, ak_i64 rows,
                                                          ak_i64 per, ak_i64 ignore_index, float* part) {
    ak_xent_partial_body(loss, tgt, rows, per, ignore_index, part);
}
AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_mean(const float* part, int nparts, int mean, float* out) {
    ak_xent_mean_body(part, nparts, mean != 0, out);
}
