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
// vec: the logits' base 16-byte aligned (any width: each row runs a scalar
// head to its first 16-byte boundary, vectors, a scalar tail).
// ak_xent_small_<dt>: the mean / sum of small batches in one launch (one
// block does every row; see ak_xent_small).
// ak_xent_partial + ak_xent_mean: sum (mean = 0) or mean (mean = 1) of the
// losses over the rows whose target is not ignore_index: per-block partial
// sums and counts, then one block combines them in a fixed order
// (deterministic); the mean is NaN when every row is ignored. A single
// partial block (fin != 0) writes the sum / mean itself: no ak_xent_mean.
//
// kernels: ak_xent_f32 ak_xent_f16 ak_xent_bf16 ak_xent_small_f32 ak_xent_small_f16 ak_xent_small_bf16 ak_xent_partial ak_xent_mean

// loss of one row (x = the row, len elements; len 0 for an idle group) by a
// group of G threads; every thread of the block must call it (group reduce).
// vec: x's base is 16-byte aligned; the row runs a scalar head up to its
// first 16-byte boundary, 8-element vectors (4 in flight), a scalar tail.
template <class D>
AK_INLINE float ak_xent_row(const typename D::T* AK_RESTRICT p, ak_i64 len, int lane, int G, bool vec, ak_i64 t,
                            ak_i64 ignore_index, float* scratch) {
    float m = -AK_INF, s = 0.0f;
    ak_i64 head = 0, nv = 0;
    if (vec) {
        head = (ak_i64)(((16u - ((unsigned)(unsigned long long)p & 15u)) & 15u) / sizeof(typename D::T));
        if (head > len) head = len;
        nv = (len - head) >> 3;
    }
    if (!vec) {
        ak_i64 e = lane;
        for (; e + 3 * G < len; e += 4 * G) {
            float a[4];
#pragma unroll
            for (int u = 0; u < 4; u++) a[u] = D::to(p[e + u * G]);
            ak_online_fold<4>(m, s, a);
        }
        for (; e < len; e += G) {
            const float a = D::to(p[e]);
            ak_online_fold<1>(m, s, &a);
        }
    } else {
        for (ak_i64 e = lane; e < head; e += G) {
            const float a = D::to(p[e]);
            ak_online_fold<1>(m, s, &a);
        }
        const typename D::T* pv = p + head;
        ak_i64 k = lane;
        for (; k + 3 * G < nv; k += 4 * G) {
            float a[32];
#pragma unroll
            for (int u = 0; u < 4; u++) D::ld8(pv + (k + u * G) * 8, a + 8 * u);
            ak_online_fold<32>(m, s, a);
        }
        for (; k < nv; k += G) {
            float a[8];
            D::ld8(pv + k * 8, a);
            ak_online_fold<8>(m, s, a);
        }
        for (ak_i64 e = head + nv * 8 + lane; e < len; e += G) {
            const float a = D::to(p[e]);
            ak_online_fold<1>(m, s, &a);
        }
    }
    const float M = ak_group_reduce(m, G, scratch, ak_op_max());
    const float S = ak_group_reduce(s * ak_online_rescale(m, M), G, scratch, ak_op_add());
    if (t == ignore_index) return 0.0f;
    if (t < 0 || t >= len) return AK_NAN;
    return (M + logf(S)) - D::to(p[t]);
}

template <class D>
AK_INLINE void ak_xent_rows(const typename D::T* AK_RESTRICT x, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,
                            ak_i64 cols, int G, bool vec, ak_i64 ignore_index, float* AK_RESTRICT loss) {
    __shared__ float scratch[AK_MAX_WAVES];
    const int lane = (int)threadIdx.x & (G - 1);
    ak_i64 row = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);
    const bool active = row < rows;
    if (!active) row = 0;
    const ak_i64 t = active ? tgt[row] : ignore_index;
    const float l = ak_xent_row<D>(x + row * cols, active ? cols : 0, lane, G, vec, t, ignore_index, scratch);
    if (active && lane == 0) loss[row] = l;
}

// One block for the whole batch (small inputs): groups of G threads take rows
// blockDim.x / G at a time; each group's lane 0 adds its rows' losses and
// counts (rows in a fixed assignment, so a fixed order); then the block
// combines them: the sum (mean = 0) or the mean (mean = 1; NaN when every row
// is ignored) in out[0]. One launch, no workspace.
template <class D>
AK_INLINE void ak_xent_small(const typename D::T* AK_RESTRICT x, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,
                             ak_i64 cols, int G, bool vec, ak_i64 ignore_index, bool mean, float* AK_RESTRICT out) {
    __shared__ float scratch[AK_MAX_WAVES];
    const int lane = (int)threadIdx.x & (G - 1), per = (int)blockDim.x / G;
    float sum = 0.0f, n = 0.0f;
    for (ak_i64 r0 = 0; r0 < rows; r0 += per) {
        ak_i64 row = r0 + (ak_i64)(threadIdx.x / G);
        const bool active = row < rows;
        if (!active) row = 0;
        const ak_i64 t = active ? tgt[row] : ignore_index;
        const float l = ak_xent_row<D>(x + row * cols, active ? cols : 0, lane, G, vec, t, ignore_index, scratch);
        if (active && lane == 0 && t != ignore_index) { sum += l; n += 1.0f; }
    }
    sum = ak_group_reduce(sum, (int)blockDim.x, scratch, ak_op_add());
    n = ak_group_reduce(n, (int)blockDim.x, scratch, ak_op_add());
    if (threadIdx.x == 0) *out = !mean ? sum : n > 0.0f ? sum / n : AK_NAN;
}

// Stage 1 of the mean / sum: block b adds the losses and counts the rows
// r in [b * per, (b + 1) * per) whose target is not ignore_index (ignored
// rows hold loss 0): part[2b] = sum, part[2b + 1] = count. fin 1 / 2 (one
// block for every row): part[0] = the sum / the mean (NaN: every row ignored).
AK_INLINE void ak_xent_partial_body(const float* AK_RESTRICT loss, const ak_i64* AK_RESTRICT tgt, ak_i64 rows,
                                    ak_i64 per, ak_i64 ignore_index, int fin, float* AK_RESTRICT part) {
    __shared__ float scratch[AK_MAX_WAVES];
    const ak_i64 r0 = (ak_i64)blockIdx.x * per, r1 = rows - r0 < per ? rows : r0 + per;
    float s = 0.0f, n = 0.0f;
    for (ak_i64 r = r0 + threadIdx.x; r < r1; r += blockDim.x)
        if (tgt[r] != ignore_index) { s += loss[r]; n += 1.0f; }
    s = ak_group_reduce(s, (int)blockDim.x, scratch, ak_op_add());
    n = ak_group_reduce(n, (int)blockDim.x, scratch, ak_op_add());
    if (threadIdx.x != 0) return;
    if (fin) part[0] = fin == 1 ? s : n > 0.0f ? s / n : AK_NAN;
    else { part[2 * blockIdx.x] = s; part[2 * blockIdx.x + 1] = n; }
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
    }                                                                                                                \
    AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_small_##DT(const D::T* x, const ak_i64* tgt, ak_i64 rows,       \
                                                                 ak_i64 cols, int G, int vec, ak_i64 ignore_index,   \
                                                                 int mean, float* out) {                             \
        ak_xent_small<D>(x, tgt, rows, cols, G, vec != 0, ignore_index, mean != 0, out);                             \
    }
AK_XENT(f32, ak_f32_t)
AK_XENT(f16, ak_f16_t)
AK_XENT(bf16, ak_bf16_t)
AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_partial(const float* loss, const ak_i64* tgt, ak_i64 rows,
                                                          ak_i64 per, ak_i64 ignore_index, int fin, float* part) {
    ak_xent_partial_body(loss, tgt, rows, per, ignore_index, fin, part);
}
AK_KERNEL __launch_bounds__(1024, 1) void ak_xent_mean(const float* part, int nparts, int mean, float* out) {
    ak_xent_mean_body(part, nparts, mean != 0, out);
}
