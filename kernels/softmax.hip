// kernels/softmax.hip - softmax and log_softmax along the last dimension of a
// rows x cols tensor, numerically stable (max subtracted), fp32 math.
// Every kernel takes `logsm`: 0 softmax, 1 log_softmax (x - max - log(sum)).
// vec != 0: 16-byte accesses (x and y 16-byte aligned and cols % 8 == 0).
//
// Three paths (the host picks one):
// 1. ak_softmax_<dt>: the row lives in registers (E = 16 per thread for f32,
//    32 for f16 / bf16) of a group of G threads (G a power of two, or a
//    multiple of the wave; G * E >= cols, G * E <= 16384, blockDim.x / G rows per block): one read and one
//    write of the row.
// 2. ak_softmax_split_<dt>: rows wider than one group: S blocks per row, each
//    holding a chunk of blockDim.x * 32 elements in registers. A block takes a
//    ticket (atomic counter) that names its (row, chunk), publishes the
//    chunk's (max, sum of exp) and waits until the S blocks of its row have
//    published, then combines the S partials (same order in every block) and
//    writes its chunk: still one read and one write. (blockDim.x <= 256) Tickets are handed out in
//    start order, so every row but the last started one has all its blocks
//    running: no deadlock as long as S blocks fit on the device at once (the
//    host keeps S <= compute units). cnt[0] is the ticket counter, cnt[1 + row]
//    the row's count; cnt must be zeroed before the launch.
// 3. ak_softmax_stats_<dt> + ak_softmax_apply_<dt>: any width, no co-residency
//    assumption: per (row, chunk) block the online (max, sum) partial, then a
//    second pass that combines the row's partials and writes: two reads, one
//    write (the host uses it past S > compute units, for f16 / bf16 rows past
//    131072, where it measured faster, and at the conservative opt level).
// 4. ak_softmax_wide_<dt>: one block per row, any width: an online (max, sum)
//    pass, then a pass that re-reads the row (from L2 while the rows in flight
//    fit in it) and writes. vec != 0 here only needs x and y 16-byte aligned:
//    each row runs a scalar head up to the first 16-byte boundary, 8-element
//    vectors, a scalar tail (odd widths such as 50257 stay vectorized). (Its
//    f32 vectors stay ld8 / st8 at p + 8t: the contiguous 16-byte layout of
//    ak_ld16 measured 2-7% slower here on the H100, 2026-11-23.)
//
// 5. ak_softmax_slab_<dt>: narrow rows whose width is not a multiple of 8
//    (path 1 reads those element by element): a block takes R consecutive
//    rows, one contiguous run of R * cols elements (at most 16 KiB of
//    dynamic shared memory), copies it into shared memory with 16-byte accesses
//    (ak_slab_copy: a scalar head and tail only at the run's ends), groups of
//    G <= AK_WAVE threads compute their rows there in place, and the run goes
//    out the same way. x and y must have the same address modulo 16.
//
// kernels: ak_softmax_f32 ak_softmax_f16 ak_softmax_bf16 ak_softmax_wide_f32 ak_softmax_wide_f16 ak_softmax_wide_bf16 ak_softmax_split_f32 ak_softmax_split_f16 ak_softmax_split_bf16 ak_softmax_stats_f32 ak_softmax_stats_f16 ak_softmax_stats_bf16 ak_softmax_apply_f32 ak_softmax_apply_f16 ak_softmax_apply_bf16 ak_softmax_slab_f32 ak_softmax_slab_f16 ak_softmax_slab_bf16 ak_softmax_narrow_f32 ak_softmax_narrow_f16 ak_softmax_narrow_bf16

// elements per thread of path 1: 16 (f32), 32 (f16 / bf16: the same 64 bytes)
#define AK_SM_ROW_E(D) (D::SIZE == 4 ? 16 : 32)
#define AK_SM_SPLIT_E 32
// elements per thread of the narrow form of path 1 (rows of <= 256 elements in small inputs: a warp's serial
// path sets the time there, not bandwidth, so a thread holds one 8-element vector instead of 16 / 32 slots)
#define AK_SM_NARROW_E 8



// In-register softmax of n slots already loaded in v (pads are -inf), whose
// group max is M and sum of exp(v - M) is S: v becomes the output.
template <int E>
AK_INLINE void ak_sm_finish(float* v, float M, float S, bool logsm) {
    if (logsm) {
        const float ls = logf(S);
#pragma unroll
        for (int k = 0; k < E; k++) v[k] = (v[k] - M) - ls;
    } else {
        const float r = 1.0f / S;
#pragma unroll
        for (int k = 0; k < E; k++) v[k] *= r;
    }
}

// Path 1: one group of G threads per row, E elements per thread.
template <class D, int E>
AK_INLINE void ak_softmax_rows(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 rows, int cols,
                               int G, bool vec, bool logsm) {
    __shared__ float scratch[AK_MAX_WAVES];
    int lane;
    ak_i64 row;
    const int len = ak_group_row(rows, cols, G, &lane, &row);
    float v[E];
    ak_row_load<D, E>(v, x + row * cols, len, lane, G, vec, -AK_INF);
    float m = -AK_INF;
#pragma unroll
    for (int k = 0; k < E; k++) m = ak_op_max()(m, v[k]);
    m = ak_group_reduce(m, G, scratch, ak_op_max());
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < E; k++) {
        const float e = ak_exp2((v[k] - m) * AK_LOG2E);
        s += e;
        if (!logsm) v[k] = e;
    }
    s = ak_group_reduce(s, G, scratch, ak_op_add());
    ak_sm_finish<E>(v, m, s, logsm);
    ak_row_store<D, E>(v, y + row * cols, len, lane, G, vec);
}

// The slab kernel's launch bounds: on NVIDIA 6 blocks of 256 a multiprocessor (40 registers, no spill, as
// measured); HIP reads the second number as waves per SIMD, which would cap gfx906's bf16 kernel at 42 VGPRs
// and make it spill, so AMD targets ask for 1 (as the other kernels here).
#if defined(AK_NVIDIA)
#define AK_SM_SLAB_MINB 6
#else
#define AK_SM_SLAB_MINB 1
#endif

/* A contiguous run of n elements of global memory (g: any element-aligned
 * address) copied into / out of a shared buffer sb of at least n * sizeof(T)
 * + 16 bytes, with 16-byte accesses wherever the run allows them: element i
 * of the run sits at s[i], where s = ak_slab_at<D>(sb, g) has the same
 * address modulo 16 as g, so the scalar head (up to g's first 16-byte
 * boundary) and tail are the only element-wise accesses. Rows whose width is
 * not a multiple of 8 are read and written this way as one run of several
 * rows (ak_softmax_slab). Every thread of the block calls them; the caller
 * puts __syncthreads() between the copy and the use. */
template <class D>
AK_INLINE typename D::T* ak_slab_at(ak_u16x8* sb, const typename D::T* g) {
    return (typename D::T*)sb + (int)(((ak_u64)g & 15u) / sizeof(typename D::T));
}
template <class D, bool IN>   /* IN: g -> s, else s -> g */
AK_INLINE void ak_slab_copy(typename D::T* s, typename D::T* g, int n) {
    typedef typename D::T T;
    const int V = 16 / (int)sizeof(T), t = (int)threadIdx.x, B = (int)blockDim.x;
    const T* src = IN ? g : s;
    T* dst = IN ? s : g;
    int head = (int)(((16u - ((unsigned)(ak_u64)g & 15u)) & 15u) / sizeof(T));
    if (head > n) head = n;
    const int nv = (n - head) / V;
    const ak_u16x8* sv = (const ak_u16x8*)(src + head);
    ak_u16x8* dv = (ak_u16x8*)(dst + head);
    if (t < head) dst[t] = src[t];
    int k = t;
    for (; k + B < nv; k += 2 * B) {   /* two 16-byte loads in flight before the stores */
        const ak_u16x8 a0 = sv[k], a1 = sv[k + B];
        dv[k] = a0;
        dv[k + B] = a1;
    }
    if (k < nv) dv[k] = sv[k];
    for (int e = head + nv * V + t; e < n; e += B) dst[e] = src[e];
}

// Path 5: R rows a block through shared memory (see the top of the file);
// dynamic shared memory of R * cols * sizeof(T) + 16 bytes. A row of up to
// 8 G elements is held in registers (8 per lane: one read of shared memory,
// one exp per element); wider rows are walked three times in shared memory.
template <class D>
AK_INLINE void ak_softmax_slab(const typename D::T* x, typename D::T* y, ak_i64 rows, int cols, int R, int G,
                               bool logsm) {
    typedef typename D::T T;
    extern __shared__ ak_u16x8 ak_slab_smem[];
    const ak_i64 r0 = (ak_i64)blockIdx.x * R;
    const int nr = rows - r0 < (ak_i64)R ? (int)(rows - r0) : R, n = nr * cols;
    T* s = ak_slab_at<D>(ak_slab_smem, x + r0 * cols);
    ak_slab_copy<D, true>(s, (T*)(x + r0 * cols), n);
    __syncthreads();
    const int lane = (int)threadIdx.x & (G - 1), per = (int)blockDim.x / G;
    for (int q0 = 0; q0 < nr; q0 += per) {   /* a block-uniform trip count: every lane reaches the shuffles */
        const int q = q0 + (int)threadIdx.x / G, len = q < nr ? cols : 0;
        T* p = s + (q < nr ? q : 0) * cols;
        float m = -AK_INF, sum = 0.0f;
        if (cols <= 8 * G) {
            float v[8];
#pragma unroll
            for (int k = 0; k < 8; k++) {
                const int e = k * G + lane;
                v[k] = e < len ? D::to(p[e]) : -AK_INF;
                m = ak_op_max()(m, v[k]);
            }
            m = ak_group_reduce(m, G, (float*)0, ak_op_max());
#pragma unroll
            for (int k = 0; k < 8; k++) {
                const float e = ak_exp2((v[k] - m) * AK_LOG2E);
                sum += e;
                if (!logsm) v[k] = e;
            }
            sum = ak_group_reduce(sum, G, (float*)0, ak_op_add());
            ak_sm_finish<8>(v, m, sum, logsm);
#pragma unroll
            for (int k = 0; k < 8; k++)
                if (k * G + lane < len) p[k * G + lane] = D::from(v[k]);
        } else {
            for (int e = lane; e < len; e += G) m = ak_op_max()(m, D::to(p[e]));
            m = ak_group_reduce(m, G, (float*)0, ak_op_max());
            for (int e = lane; e < len; e += G) sum += ak_exp2((D::to(p[e]) - m) * AK_LOG2E);
            sum = ak_group_reduce(sum, G, (float*)0, ak_op_add());
            const float r = 1.0f / sum, ls = logf(sum);
            for (int e = lane; e < len; e += G) {
                const float a = D::to(p[e]);
                p[e] = D::from(logsm ? (a - m) - ls : ak_exp2((a - m) * AK_LOG2E) * r);
            }
        }
    }
    __syncthreads();
    ak_slab_copy<D, false>(s, y + r0 * cols, n);
}

// Path 4: one block per row; pass 1 online (max, sum of exp), pass 2 writes.
template <class D>
AK_INLINE void ak_softmax_wide(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 cols, bool vec,
                               bool logsm) {
    __shared__ float scratch[AK_MAX_WAVES];
    const ak_i64 row = blockIdx.x;
    const typename D::T* p = x + row * cols;
    typename D::T* q = y + row * cols;
    const int B = (int)blockDim.x, t = (int)threadIdx.x;
    ak_i64 head = 0, nv = 0;
    if (vec) {
        head = (ak_i64)(((16u - ((unsigned)(unsigned long long)p & 15u)) & 15u) / sizeof(typename D::T));
        if (head > cols) head = cols;
        nv = (cols - head) >> 3;
    }
    const ak_i64 tail0 = head + nv * 8;
    float m = -AK_INF, s = 0.0f;
    for (ak_i64 e = t; e < head; e += B) {
        const float a = D::to(p[e]);
        ak_online_fold<1>(m, s, &a);
    }
    {
        const typename D::T* pv = p + head;
        ak_i64 k = t;
        for (; k + B < nv; k += 2 * B) {
            float a[16];
            D::ld8(pv + k * 8, a);
            D::ld8(pv + (k + B) * 8, a + 8);
            ak_online_fold<16>(m, s, a);
        }
        for (; k < nv; k += B) {
            float a[8];
            D::ld8(pv + k * 8, a);
            ak_online_fold<8>(m, s, a);
        }
    }
    for (ak_i64 e = tail0 + t; e < cols; e += B) {
        const float a = D::to(p[e]);
        ak_online_fold<1>(m, s, &a);
    }
    const float M = ak_group_reduce(m, B, scratch, ak_op_max());
    const float S = ak_group_reduce(s * ak_online_rescale(m, M), B, scratch, ak_op_add());
    const float r = 1.0f / S, ls = logf(S);
    for (ak_i64 e = t; e < head; e += B) {
        const float a = D::to(p[e]);
        q[e] = D::from(logsm ? (a - M) - ls : ak_exp2((a - M) * AK_LOG2E) * r);
    }
    {
        const typename D::T* pv = p + head;
        typename D::T* qv = q + head;
        for (ak_i64 k = t; k < nv; k += B) {
            float a[8];
            D::ld8(pv + k * 8, a);
#pragma unroll
            for (int u = 0; u < 8; u++) a[u] = logsm ? (a[u] - M) - ls : ak_exp2((a[u] - M) * AK_LOG2E) * r;
            D::st8(qv + k * 8, a);
        }
    }
    for (ak_i64 e = tail0 + t; e < cols; e += B) {
        const float a = D::to(p[e]);
        q[e] = D::from(logsm ? (a - M) - ls : ak_exp2((a - M) * AK_LOG2E) * r);
    }
}

// Combine the S partials (max, sum) of one row, read with volatile loads
// (they may come from blocks running now). Wave 0 does it, in a fixed order;
// the result goes to stat[0] (max) and stat[1] (sum). Ends with __syncthreads.
AK_INLINE void ak_sm_combine(const float* part, int S, float* stat) {
    if (threadIdx.x < AK_WAVE) {
        const volatile float* p = (const volatile float*)part;
        float m = -AK_INF;
        for (int j = (int)threadIdx.x; j < S; j += AK_WAVE) m = ak_op_max()(m, p[2 * j]);
        for (int o = AK_WAVE / 2; o > 0; o >>= 1) m = ak_op_max()(m, ak_shfl_xor(m, o));
        float s = 0.0f;
        for (int j = (int)threadIdx.x; j < S; j += AK_WAVE) s += p[2 * j + 1] * ak_online_rescale(p[2 * j], m);
        for (int o = AK_WAVE / 2; o > 0; o >>= 1) s += ak_shfl_xor(s, o);
        if (threadIdx.x == 0) { stat[0] = m; stat[1] = s; }
    }
    __syncthreads();
}

// Path 2: S co-operating blocks per row, chunk = blockDim.x * 32 elements each.
template <class D>
AK_INLINE void ak_softmax_split(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 cols, int S,
                                unsigned* cnt, float* part, bool vec, bool logsm) {
    __shared__ float scratch[AK_MAX_WAVES];
    __shared__ float stat[2];
    __shared__ unsigned ticket;
    if (threadIdx.x == 0) ticket = atomicAdd(cnt, 1u);
    __syncthreads();
    const ak_i64 t = (ak_i64)ticket;
    const ak_i64 row = t / S;
    const int c = (int)(t - row * S);
    const int G = (int)blockDim.x, chunk = G * AK_SM_SPLIT_E;
    const ak_i64 s0 = (ak_i64)c * chunk;
    const int len = cols - s0 < chunk ? (int)(cols - s0) : chunk;
    float v[AK_SM_SPLIT_E];
    ak_row_load<D, AK_SM_SPLIT_E>(v, x + row * cols + s0, len, (int)threadIdx.x, G, vec, -AK_INF);
    float m = -AK_INF;
#pragma unroll
    for (int k = 0; k < AK_SM_SPLIT_E; k++) m = ak_op_max()(m, v[k]);
    m = ak_group_reduce(m, G, scratch, ak_op_max());
    float s = 0.0f;
    if (m != -AK_INF) {
#pragma unroll
        for (int k = 0; k < AK_SM_SPLIT_E; k++) s += ak_exp2((v[k] - m) * AK_LOG2E);
    }
    s = ak_group_reduce(s, G, scratch, ak_op_add());
    if (threadIdx.x == 0) {
        part[2 * t] = m;
        part[2 * t + 1] = s;
        ak_coop_arrive_wait(cnt + 1 + row, (unsigned)S);
    }
    __syncthreads();
    ak_sm_combine(part + 2 * row * S, S, stat);
    const float M = stat[0], Sum = stat[1];
    if (!logsm) {
#pragma unroll
        for (int k = 0; k < AK_SM_SPLIT_E; k++) v[k] = ak_exp2((v[k] - M) * AK_LOG2E);
    }
    ak_sm_finish<AK_SM_SPLIT_E>(v, M, Sum, logsm);
    ak_row_store<D, AK_SM_SPLIT_E>(v, y + row * cols + s0, len, (int)threadIdx.x, G, vec);
}

// Path 3a: block `seg` = row * S + chunk: online (max, sum) of `chunk` elements.
template <class D>
AK_INLINE void ak_softmax_stats(const typename D::T* AK_RESTRICT x, ak_i64 cols, int S, ak_i64 chunk, float* part,
                                bool vec) {
    __shared__ float scratch[AK_MAX_WAVES];
    const ak_i64 seg = blockIdx.x, row = seg / S, s0 = (seg - row * S) * chunk;
    const ak_i64 len = cols - s0 < chunk ? cols - s0 : chunk;
    const typename D::T* p = x + row * cols + s0;
    float m = -AK_INF, s = 0.0f;
    if (vec) {
        for (ak_i64 e = (ak_i64)threadIdx.x * 8; e < len; e += (ak_i64)blockDim.x * 8) {
            float a[8];
            D::ld8(p + e, a);
            float mn = m;
#pragma unroll
            for (int q = 0; q < 8; q++) mn = ak_op_max()(mn, a[q]);
            if (mn != -AK_INF) {
                float t = 0.0f;
#pragma unroll
                for (int q = 0; q < 8; q++) t += ak_exp2((a[q] - mn) * AK_LOG2E);
                s = s * ak_online_rescale(m, mn) + t;
                m = mn;
            }
        }
    } else {
        for (ak_i64 e = threadIdx.x; e < len; e += blockDim.x) {
            const float a = D::to(p[e]);
            const float mn = ak_op_max()(m, a);
            if (mn != -AK_INF) {
                s = s * ak_online_rescale(m, mn) + ak_exp2((a - mn) * AK_LOG2E);
                m = mn;
            }
        }
    }
    const float M = ak_group_reduce(m, (int)blockDim.x, scratch, ak_op_max());
    s = ak_group_reduce(s * ak_online_rescale(m, M), (int)blockDim.x, scratch, ak_op_add());
    if (threadIdx.x == 0) {
        part[2 * seg] = M;
        part[2 * seg + 1] = s;
    }
}

// Path 3b: block `seg` combines its row's S partials and writes its chunk.
template <class D>
AK_INLINE void ak_softmax_apply(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT y, ak_i64 cols, int S,
                                ak_i64 chunk, const float* part, bool vec, bool logsm) {
    __shared__ float stat[2];
    const ak_i64 seg = blockIdx.x, row = seg / S, s0 = (seg - row * S) * chunk;
    const ak_i64 len = cols - s0 < chunk ? cols - s0 : chunk;
    ak_sm_combine(part + 2 * row * S, S, stat);
    const float M = stat[0], Sum = stat[1], r = 1.0f / Sum, ls = logf(Sum);
    const typename D::T* p = x + row * cols + s0;
    typename D::T* q = y + row * cols + s0;
    if (vec) {
        for (ak_i64 e = (ak_i64)threadIdx.x * 8; e < len; e += (ak_i64)blockDim.x * 8) {
            float a[8];
            D::ld8(p + e, a);
#pragma unroll
            for (int k = 0; k < 8; k++) a[k] = logsm ? (a[k] - M) - ls : ak_exp2((a[k] - M) * AK_LOG2E) * r;
            D::st8(q + e, a);
        }
    } else {
        for (ak_i64 e = threadIdx.x; e < len; e += blockDim.x) {
            const float a = D::to(p[e]);
            q[e] = D::from(logsm ? (a - M) - ls : ak_exp2((a - M) * AK_LOG2E) * r);
        }
    }
}

#define AK_SOFTMAX(DT, D)                                                                                            \
    AK_KERNEL __launch_bounds__(16384 / AK_SM_ROW_E(D), 1) void ak_softmax_##DT(const D::T* x, D::T* y, ak_i64 rows, \
                                                                                int cols, int G, int vec, int logsm) { AK_KONLY(ak_softmax_##DT) { \
        ak_softmax_rows<D, AK_SM_ROW_E(D)>(x, y, rows, cols, G, vec != 0, logsm != 0);                               \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(256, 1) void ak_softmax_narrow_##DT(const D::T* x, D::T* y, ak_i64 rows, int cols,   \
                                                                   int G, int vec, int logsm) { AK_KONLY(ak_softmax_narrow_##DT) { \
        ak_softmax_rows<D, AK_SM_NARROW_E>(x, y, rows, cols, G, vec != 0, logsm != 0);                               \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(256, AK_SM_SLAB_MINB) void ak_softmax_slab_##DT(const D::T* x, D::T* y, ak_i64 rows,  \
                                                                                int cols, int R, int G, int logsm) { AK_KONLY(ak_softmax_slab_##DT) { \
        ak_softmax_slab<D>(x, y, rows, cols, R, G, logsm != 0);                                                      \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(1024, 1) void ak_softmax_wide_##DT(const D::T* x, D::T* y, ak_i64 cols, int vec,        \
                                                                 int logsm) { AK_KONLY(ak_softmax_wide_##DT) { \
        ak_softmax_wide<D>(x, y, cols, vec != 0, logsm != 0);                                                        \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(256, 1) void ak_softmax_split_##DT(const D::T* x, D::T* y, ak_i64 cols, int S,          \
                                                                 unsigned* cnt, float* part, int vec, int logsm) { AK_KONLY(ak_softmax_split_##DT) { \
        ak_softmax_split<D>(x, y, cols, S, cnt, part, vec != 0, logsm != 0);                                         \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(256, 1) void ak_softmax_stats_##DT(const D::T* x, ak_i64 cols, int S, ak_i64 chunk,     \
                                                                 float* part, int vec) { AK_KONLY(ak_softmax_stats_##DT) { \
        ak_softmax_stats<D>(x, cols, S, chunk, part, vec != 0);                                                      \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(256, 1) void ak_softmax_apply_##DT(const D::T* x, D::T* y, ak_i64 cols, int S,          \
                                                                 ak_i64 chunk, const float* part, int vec,           \
                                                                 int logsm) { AK_KONLY(ak_softmax_apply_##DT) { \
        ak_softmax_apply<D>(x, y, cols, S, chunk, part, vec != 0, logsm != 0);                                       \
    } }
AK_SOFTMAX(f32, ak_f32_t)
AK_SOFTMAX(f16, ak_f16_t)
AK_SOFTMAX(bf16, ak_bf16_t)
