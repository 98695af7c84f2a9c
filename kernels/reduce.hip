// kernels/reduce.hip - reductions along the last dimension of a rows x cols
// tensor (a whole-tensor reduction is rows = 1): sum (mean = sum x scale),
// max, min (NaN propagates, like torch), argmax, argmin (int64 index of the
// first best element; a NaN counts as the best, like torch).
//
// Stage 1 (ak_reduce_<op>_<dtype>): every row is cut into `splits` chunks of
// `chunk` elements; segment s = row * splits + chunk index is reduced by a
// group of G threads (G a power of two dividing blockDim.x) into outv[s]
// (value x scale) and outi[s] (index, arg ops; outv may be NULL for them).
// With splits == 1 that is the answer. Otherwise stage 2 (ak_reduce2_<op>)
// combines the splits partials of each row in a fixed order: no atomics, so
// results are bitwise deterministic run to run.
// Loads: 8-element 16-byte-aligned vectors (4 in flight per thread) from the first 16-byte
// aligned element of each segment, scalar head and tail.
//
// kernels: ak_reduce_sum_f32 ak_reduce_sum_f16 ak_reduce_sum_bf16 ak_reduce_max_f32 ak_reduce_max_f16 ak_reduce_max_bf16 ak_reduce_min_f32 ak_reduce_min_f16 ak_reduce_min_bf16 ak_reduce_argmax_f32 ak_reduce_argmax_f16 ak_reduce_argmax_bf16 ak_reduce_argmin_f32 ak_reduce_argmin_f16 ak_reduce_argmin_bf16 ak_reduce2_sum ak_reduce2_max ak_reduce2_min ak_reduce2_argmax ak_reduce2_argmin

#define AK_RED_SUM 0
#define AK_RED_MAX 1
#define AK_RED_MIN 2
#define AK_RED_ARGMAX 3
#define AK_RED_ARGMIN 4
#define AK_RED_NOIDX 0x7fffffffffffffffLL

// Running state of one thread (and of a group after ak_red_state::group).
template <int OP>
struct ak_red_state {
    float v;
    ak_i64 i;
    AK_INLINE void init() {
        v = OP == AK_RED_SUM ? 0.0f : (OP == AK_RED_MAX || OP == AK_RED_ARGMAX) ? -AK_INF : AK_INF;
        i = AK_RED_NOIDX;
    }
    // does (a, ia) beat (b, ib)? NaN beats everything; ties go to the lower index
    static AK_INLINE bool better(float a, ak_i64 ia, float b, ak_i64 ib) {
        bool an = ak_isnan(a), bn = ak_isnan(b);
        if (an || bn) return an && (!bn || ia < ib);
        if (a == b) return ia < ib;
        return OP == AK_RED_ARGMAX ? a > b : a < b;
    }
    AK_INLINE void add(float x, ak_i64 ix) {
        if (OP == AK_RED_SUM) v += x;
        else if (OP == AK_RED_MAX) v = ak_op_max()(v, x);
        else if (OP == AK_RED_MIN) v = ak_op_min()(v, x);
        else if (better(x, ix, v, i)) { v = x; i = ix; }
    }
    // add n consecutive elements (indices ix, ix+1, ...)
    template <int N>
    AK_INLINE void addv(const float* x, ak_i64 ix) {
        if (OP == AK_RED_SUM) {
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < N; k++) s += x[k];
            v += s;
        } else if (OP == AK_RED_MAX || OP == AK_RED_MIN) {
#pragma unroll
            for (int k = 0; k < N; k++) add(x[k], 0);
        } else {
            // best of the N first (ties keep the lower index, the first NaN wins), then one 64-bit compare
            float bv = x[0];
            int bk = 0;
#pragma unroll
            for (int k = 1; k < N; k++) {
                const bool nb = ak_isnan(x[k]) && !ak_isnan(bv);
                if (nb || (OP == AK_RED_ARGMAX ? x[k] > bv : x[k] < bv)) { bv = x[k]; bk = k; }
            }
            add(bv, ix + bk);
        }
    }
    // combine over a group of G threads (all threads of the block call it)
    AK_INLINE void group(int G, float* redv, ak_i64* redi) {
        if (OP == AK_RED_SUM) { v = ak_group_reduce(v, G, redv, ak_op_add()); return; }
        if (OP == AK_RED_MAX) { v = ak_group_reduce(v, G, redv, ak_op_max()); return; }
        if (OP == AK_RED_MIN) { v = ak_group_reduce(v, G, redv, ak_op_min()); return; }
        int w = G < AK_WAVE ? G : AK_WAVE;
        for (int o = w >> 1; o > 0; o >>= 1) {
            float ov = ak_shfl_xor(v, o);
            unsigned lo = __float_as_uint(ak_shfl_xor(__uint_as_float((unsigned)(unsigned long long)i), o));
            unsigned hi = __float_as_uint(ak_shfl_xor(__uint_as_float((unsigned)((unsigned long long)i >> 32)), o));
            ak_i64 oi = (ak_i64)(((unsigned long long)hi << 32) | lo);
            if (better(ov, oi, v, i)) { v = ov; i = oi; }
        }
        if (G > AK_WAVE) {
            int warp = (int)threadIdx.x / AK_WAVE, wpg = G / AK_WAVE, first = ((int)threadIdx.x / G) * wpg;
            __syncthreads();
            if ((threadIdx.x & (AK_WAVE - 1)) == 0) { redv[warp] = v; redi[warp] = i; }
            __syncthreads();
            v = redv[first];
            i = redi[first];
            for (int k = 1; k < wpg; k++)
                if (better(redv[first + k], redi[first + k], v, i)) { v = redv[first + k]; i = redi[first + k]; }
        }
    }
};

// One level of the arg ops' trees: slots 2e and 2e + 1 into slot e, for e < W. The extremes m keep the
// left (lower) position q on ties; t are the sums.
template <int OP, int W>
AK_INLINE void ak_red_fold(float* m, int* q, float* t) {
#pragma unroll
    for (int e = 0; e < W; e++) {
        const bool r = OP == AK_RED_ARGMAX ? m[2 * e + 1] > m[2 * e] : m[2 * e + 1] < m[2 * e];
        m[e] = r ? m[2 * e + 1] : m[2 * e];
        q[e] = r ? q[2 * e + 1] : q[2 * e];
        t[e] = t[2 * e] + t[2 * e + 1];
    }
}

template <class D, int OP>
AK_INLINE void ak_reduce1(const typename D::T* AK_RESTRICT x, ak_i64 cols, ak_i64 nseg,
                                           ak_i64 splits, ak_i64 chunk, int G, float scale, float* AK_RESTRICT outv,
                                           ak_i64* AK_RESTRICT outi) {
    typedef typename D::T T;
    __shared__ float redv[256 / 32 + 1];
    __shared__ ak_i64 redi[256 / 32 + 1];
    const int lane = (int)threadIdx.x & (G - 1);
    const ak_i64 seg = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);
    const bool active = seg < nseg;
    ak_i64 row = 0, s0 = 0, len = 0;
    if (active) {
        row = seg / splits;
        s0 = (seg - row * splits) * chunk;
        len = cols - s0 < chunk ? cols - s0 : chunk;
    }
    const T* p = x + row * cols + s0;
    ak_i64 head = (ak_i64)(((16u - ((unsigned)(unsigned long long)p & 15u)) & 15u) / sizeof(T));
    if (head > len) head = len;
    ak_red_state<OP> st;
    st.init();
    for (ak_i64 k = lane; k < head; k += G) st.add(D::to(p[k]), s0 + k);
    const T* pv = p + head;
    const ak_i64 nv = (len - head) >> 3;
    const ak_i64 base = s0 + head;
    ak_i64 k = lane;
    if (OP == AK_RED_ARGMAX || OP == AK_RED_ARGMIN) {
        // Arg ops: each 32 elements (4 vectors) give their extreme and its first position, and their sum, as
        // trees of adjacent pairs, then one compare with the best. A NaN sum (a NaN, or both infinities: where the
        // trees' compares are not torch's order) sends the 32 through the exact scan, read again.
        for (; k + 3 * G < nv; k += 4 * G) {
            float a[32];
#pragma unroll
            for (int u = 0; u < 4; u++) D::ld8(pv + (k + u * G) * 8, a + 8 * u);
            // the first level by hand, into new arrays: folding a[] in place after filling 32 positions with 0..31
            // put those arrays in scratch on gfx90a (ROCm 5.2)
            float m[16], t[16];
            int q[16];
#pragma unroll
            for (int e = 0; e < 16; e++) {
                const bool r = OP == AK_RED_ARGMAX ? a[2 * e + 1] > a[2 * e] : a[2 * e + 1] < a[2 * e];
                m[e] = r ? a[2 * e + 1] : a[2 * e];
                q[e] = r ? 2 * e + 1 : 2 * e;
                t[e] = a[2 * e] + a[2 * e + 1];
            }
            ak_red_fold<OP, 8>(m, q, t);
            ak_red_fold<OP, 4>(m, q, t);
            ak_red_fold<OP, 2>(m, q, t);
            ak_red_fold<OP, 1>(m, q, t);
            if (t[0] != t[0]) {
#pragma unroll 1
                for (int u = 0; u < 4; u++) {
                    float b[8];
                    D::ld8(pv + (k + u * G) * 8, b);
                    st.template addv<8>(b, base + (k + u * G) * 8);
                }
            } else {
                const ak_i64 ix = base + (k + (ak_i64)(q[0] >> 3) * G) * 8 + (q[0] & 7);
                if (ak_red_state<OP>::better(m[0], ix, st.v, st.i)) { st.v = m[0]; st.i = ix; }
            }
        }
    } else {
        for (; k + 3 * G < nv; k += 4 * G) {
            float a[4][8];
#pragma unroll
            for (int u = 0; u < 4; u++) D::ld8(pv + (k + u * G) * 8, a[u]);
#pragma unroll
            for (int u = 0; u < 4; u++) st.template addv<8>(a[u], base + (k + u * G) * 8);
        }
    }
    for (; k < nv; k += G) {
        float a[8];
        D::ld8(pv + k * 8, a);
        st.template addv<8>(a, base + k * 8);
    }
    for (k = head + nv * 8 + lane; k < len; k += G) st.add(D::to(p[k]), s0 + k);
    st.group(G, redv, redi);
    if (active && lane == 0) {
        if (outv) outv[seg] = OP == AK_RED_SUM ? st.v * scale : st.v;
        if (outi) outi[seg] = st.i;
    }
}

// Stage 2: row r's partials pv[r * splits + j] (and pi, arg ops), j in order.
template <int OP>
AK_INLINE void ak_reduce2(const float* AK_RESTRICT pv, const ak_i64* AK_RESTRICT pi, ak_i64 rows,
                                           ak_i64 splits, int G, float scale, float* AK_RESTRICT outv,
                                           ak_i64* AK_RESTRICT outi) {
    __shared__ float redv[256 / 32 + 1];
    __shared__ ak_i64 redi[256 / 32 + 1];
    const int lane = (int)threadIdx.x & (G - 1);
    const ak_i64 row = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);
    const bool active = row < rows;
    ak_red_state<OP> st;
    st.init();
    if (active)
        for (ak_i64 j = lane; j < splits; j += G)
            st.add(pv[row * splits + j], (OP == AK_RED_ARGMAX || OP == AK_RED_ARGMIN) ? pi[row * splits + j] : 0);
    st.group(G, redv, redi);
    if (active && lane == 0) {
        if (outv) outv[row] = OP == AK_RED_SUM ? st.v * scale : st.v;
        if (outi) outi[row] = st.i;
    }
}

#define AK_REDUCE1(NAME, OP, D)                                                                                     \
    AK_KERNEL __launch_bounds__(256) void NAME(const D::T* x, ak_i64 cols, ak_i64 nseg, ak_i64 splits,      \
                                                ak_i64 chunk, int G, float scale, float* outv, ak_i64* outi) {        \
        ak_reduce1<D, OP>(x, cols, nseg, splits, chunk, G, scale, outv, outi);                                       \
    }
AK_REDUCE1(ak_reduce_sum_f32, AK_RED_SUM, ak_f32_t)
AK_REDUCE1(ak_reduce_sum_f16, AK_RED_SUM, ak_f16_t)
AK_REDUCE1(ak_reduce_sum_bf16, AK_RED_SUM, ak_bf16_t)
AK_REDUCE1(ak_reduce_max_f32, AK_RED_MAX, ak_f32_t)
AK_REDUCE1(ak_reduce_max_f16, AK_RED_MAX, ak_f16_t)
AK_REDUCE1(ak_reduce_max_bf16, AK_RED_MAX, ak_bf16_t)
AK_REDUCE1(ak_reduce_min_f32, AK_RED_MIN, ak_f32_t)
AK_REDUCE1(ak_reduce_min_f16, AK_RED_MIN, ak_f16_t)
AK_REDUCE1(ak_reduce_min_bf16, AK_RED_MIN, ak_bf16_t)
AK_REDUCE1(ak_reduce_argmax_f32, AK_RED_ARGMAX, ak_f32_t)
AK_REDUCE1(ak_reduce_argmax_f16, AK_RED_ARGMAX, ak_f16_t)
AK_REDUCE1(ak_reduce_argmax_bf16, AK_RED_ARGMAX, ak_bf16_t)
AK_REDUCE1(ak_reduce_argmin_f32, AK_RED_ARGMIN, ak_f32_t)
AK_REDUCE1(ak_reduce_argmin_f16, AK_RED_ARGMIN, ak_f16_t)
AK_REDUCE1(ak_reduce_argmin_bf16, AK_RED_ARGMIN, ak_bf16_t)

#define AK_REDUCE2(NAME, OP)                                                                                         \
    AK_KERNEL __launch_bounds__(256) void NAME(const float* pv, const ak_i64* pi, ak_i64 rows, ak_i64 splits, int G, \
                                                float scale, float* outv, ak_i64* outi) {                            \
        ak_reduce2<OP>(pv, pi, rows, splits, G, scale, outv, outi);                                                   \
    }
AK_REDUCE2(ak_reduce2_sum, AK_RED_SUM)
AK_REDUCE2(ak_reduce2_max, AK_RED_MAX)
AK_REDUCE2(ak_reduce2_min, AK_RED_MIN)
AK_REDUCE2(ak_reduce2_argmax, AK_RED_ARGMAX)
AK_REDUCE2(ak_reduce2_argmin, AK_RED_ARGMIN)
