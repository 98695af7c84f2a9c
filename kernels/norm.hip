// kernels/norm.hip - layernorm and rmsnorm along the last dimension of a
// rows x cols tensor, fp32 statistics:
//   layernorm: y = (x - mean) / sqrt(var + eps) * w + b   (biased variance)
//   rmsnorm:   y = x / sqrt(mean(x^2) + eps) * w
// w and b (same dtype as x, cols elements) may be NULL (1 and 0). `rms` picks
// rmsnorm. vec != 0: 16-byte accesses (x, y, w, b 16-byte aligned, cols % 8 == 0).
//
// ak_norm_<dt>: the row lives in registers (E = 16 per thread for f32, 32 for
// f16 / bf16) of a group of G threads (G a power of two, or a multiple of the
// wave that fills the row's registers exactly; G * E >= cols, G * E <= 16384): one read, one write; the
// variance is the mean of (x - mean)^2 over the registers (two passes, no
// cancellation).
// ak_norm_wide_<dt>: any width, one block per row or (S > 1) per segment of
// a row (S co-operating blocks): a pass for sum(x - K) and sum((x - K)^2)
// with K = the segment's first element (shifted data keep the one-pass
// variance accurate), then a pass that writes (re-reading the segment, from
// L2 while the segments in flight fit in it). Its flags: see ak_norm_wide
// (odd widths stay vectorized).
//
// ak_add_norm_<dt> / ak_add_norm_wide_<dt> (ak_add_layernorm / ak_add_rmsnorm,
// the residual form): the same kernels with RES = true: h = x + r is rounded
// to the dtype, written to h and normalized (y = norm(h)); x and r are read
// once where the row kernel normalizes from registers, the wide kernel's
// second pass reads h back. h may be x or r: each thread reads its elements
// once, before it writes them (r and h carry no __restrict__; x keeps the
// one it has for ak_norm, where y may be x under the same rule).
//
// kernels: ak_norm_f32 ak_norm_f16 ak_norm_bf16 ak_norm_wide_f32 ak_norm_wide_f16 ak_norm_wide_bf16
// kernels: ak_add_norm_f32 ak_add_norm_f16 ak_add_norm_bf16
// kernels: ak_add_norm_wide_f32 ak_add_norm_wide_f16 ak_add_norm_wide_bf16
// kernels: ak_norm_narrow_f32 ak_norm_narrow_f16 ak_norm_narrow_bf16

// elements per thread of ak_norm: 16 (f32), 32 (f16 / bf16: the same 64 bytes)
#define AK_NORM_E(D) (D::SIZE == 4 ? 16 : 32)
// elements per thread of the narrow rows kernel (rows of <= 256 elements in small inputs: one 8-element vector)
#define AK_NORM_NARROW_E 8

// y[e..e+n) from the normalized values a: a * w + b
template <class D, int N>
AK_INLINE void ak_norm_affine(float* a, const typename D::T* w, const typename D::T* b, ak_i64 e, bool vec) {
    if (vec && N == 8) {
        float t[8];
        if (w) {
            D::ld8(w + e, t);
#pragma unroll
            for (int q = 0; q < 8; q++) a[q] *= t[q];
        }
        if (b) {
            D::ld8(b + e, t);
#pragma unroll
            for (int q = 0; q < 8; q++) a[q] += t[q];
        }
    } else {
#pragma unroll
        for (int q = 0; q < N; q++) {
            if (w) a[q] *= D::to(w[e + q]);
            if (b) a[q] += D::to(b[e + q]);
        }
    }
}

// RES: v = h = round(x + r) (the residual sum in the storage dtype), h
// written as it is formed; else v = x.
template <class D, int E, bool RES>
AK_INLINE void ak_norm_load(float* v, const typename D::T* x, const typename D::T* r, typename D::T* h, int len,
                            int lane, int G, bool vec) {
    if (!RES) {
        ak_row_load<D, E>(v, x, len, lane, G, vec, 0.0f);
    } else if (!vec) {
#pragma unroll
        for (int k = 0; k < E; k++) {
            const int e = k * G + lane;
            v[k] = 0.0f;
            if (e < len) {
                const typename D::T s = D::from(D::to(x[e]) + D::to(r[e]));
                h[e] = s;
                v[k] = D::to(s);
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < E / 8; k++) {
            const int e = (k * G + lane) * 8;
            float* a = v + k * 8;
            if (e < len) {
                float t[8];
                D::ld8(x + e, a);
                D::ld8(r + e, t);
#pragma unroll
                for (int q = 0; q < 8; q++) a[q] = D::to(D::from(a[q] + t[q]));
                D::st8(h + e, a);
            } else {
#pragma unroll
                for (int q = 0; q < 8; q++) a[q] = 0.0f;
            }
        }
    }
}

// The len elements held in v (as ak_row_load places them: lane of a group of
// G) normalized and written: y = (v - mean) * r * w + b, w / b indexed like y.
template <class D, int E>
AK_INLINE void ak_norm_store(float* v, float mean, float r, const typename D::T* AK_RESTRICT w,
                             const typename D::T* AK_RESTRICT b, typename D::T* AK_RESTRICT yr, int len, int lane, int G,
                             bool vec) {
    if (vec) {
#pragma unroll
        for (int k = 0; k < E / 8; k++) {
            const int e = (k * G + lane) * 8;
            if (e < len) {
                float* a = v + k * 8;
#pragma unroll
                for (int q = 0; q < 8; q++) a[q] = (a[q] - mean) * r;
                ak_norm_affine<D, 8>(a, w, b, e, true);
                D::st8(yr + e, a);
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < E; k++) {
            const int e = k * G + lane;
            if (e < len) {
                float a = (v[k] - mean) * r;
                ak_norm_affine<D, 1>(&a, w, b, e, false);
                yr[e] = D::from(a);
            }
        }
    }
}

template <class D, int E, bool RES>
AK_INLINE void ak_norm_rows(const typename D::T* AK_RESTRICT x, const typename D::T* res, const typename D::T* AK_RESTRICT w,
                            const typename D::T* AK_RESTRICT b, typename D::T* h, typename D::T* AK_RESTRICT y,
                            ak_i64 rows, int cols, int G, bool vec, float eps, bool rms) {
    __shared__ float scratch[AK_MAX_WAVES];
    int lane;
    ak_i64 row;
    const int len = ak_group_row(rows, cols, G, &lane, &row);
    float v[E];
    ak_norm_load<D, E, RES>(v, x + row * cols, RES ? res + row * cols : res, RES ? h + row * cols : h, len, lane, G, vec);
    const float inv_n = 1.0f / (float)cols;
    float mean = 0.0f, s = 0.0f;
    if (!rms) {
#pragma unroll
        for (int k = 0; k < E; k++) s += v[k];
        mean = ak_group_reduce(s, G, scratch, ak_op_add()) * inv_n;
        s = 0.0f;
#pragma unroll
        for (int k = 0; k < E; k++) {
            const int e = vec ? ((k >> 3) * G + lane) * 8 : k * G + lane;
            const float d = v[k] - mean;
            if (e < len) s += d * d;
        }
    } else {
#pragma unroll
        for (int k = 0; k < E; k++) s += v[k] * v[k];
    }
    const float r = rsqrtf(ak_group_reduce(s, G, scratch, ak_op_add()) * inv_n + eps);
    ak_norm_store<D, E>(v, mean, r, w, b, y + row * cols, len, lane, G, vec);
}

// Element e of the row as the first wide pass sees it: x[e], or (RES) h[e] =
// round(x[e] + r[e]), written as it is formed.
template <class D, bool RES>
AK_INLINE float ak_norm_res1(const typename D::T* x, const typename D::T* r, typename D::T* h, ak_i64 e) {
    if (!RES) return D::to(x[e]);
    const typename D::T s = D::from(D::to(x[e]) + D::to(r[e]));
    h[e] = s;
    return D::to(s);
}

// y[e..e+V) of the wide kernel's vector loop from the normalized a (V =
// AK_V16(D)): WV, w and b 16-byte aligned at e: vector loads; else scalar.
template <class D, bool WV>
AK_INLINE void ak_norm_affine16(float* a, const typename D::T* w, const typename D::T* b, ak_i64 e) {
    const int V = AK_V16(D);
    if (WV) {
        float t[8];
        if (w) {
            ak_ld16<D>(w + e, t);
#pragma unroll
            for (int u = 0; u < V; u++) a[u] *= t[u];
        }
        if (b) {
            ak_ld16<D>(b + e, t);
#pragma unroll
            for (int u = 0; u < V; u++) a[u] += t[u];
        }
    } else {
#pragma unroll
        for (int u = 0; u < V; u++) {
            if (w) a[u] *= D::to(w[e + u]);
            if (b) a[u] += D::to(b[e + u]);
        }
    }
}

// Pass 2 of ak_norm_wide over the row's nv 16-byte vectors (p, q at the
// row's first 16-byte boundary, column e0): y = (x - mean) * r * w + b.
// WV (w and b 16-byte aligned at e0) is a template flag, not a run-time one:
// both affine forms in one loop spilled under the 32-register cap of two
// 1024-thread blocks per SM (ptxas, sm_90).
template <class D, bool WV>
AK_INLINE void ak_norm_wide_vec(const typename D::T* p, typename D::T* q, const typename D::T* AK_RESTRICT w,
                                const typename D::T* AK_RESTRICT b, ak_i64 e0, ak_i64 nv, float mean, float r) {
    const int B = (int)blockDim.x, V = AK_V16(D);
    for (ak_i64 k = threadIdx.x; k < nv; k += B) {
        float a[8];
        ak_ld16<D>(p + k * V, a);
#pragma unroll
        for (int u = 0; u < V; u++) a[u] = (a[u] - mean) * r;
        ak_norm_affine16<D, WV>(a, w, b, e0 + k * V);
        ak_st16<D>(q + k * V, a);
    }
}

// One block per row - or per segment of seg elements of a row (S > 1) - any
// width. vec: x and y 16-byte aligned (any width: each segment runs a scalar
// head to its first 16-byte boundary, 16-byte vectors (4 f32 / 8 halves,
// thread t on vector t, t + B, ...: each warp access contiguous), a scalar
// tail); wvec: w and b 16-byte aligned too (their vector loads are used
// where the vectors start on a 16-byte boundary of w). Pass 1 sums (x - K)
// and (x - K)^2 with K = the segment's first element (shifted data keep the
// one-pass variance accurate), pass 2 re-reads the segment (from L2 while the
// segments in flight fit in it) and writes. S > 1 (rows too wide for L2 to
// hold every row in flight): the block takes a ticket (cnt[0], start order)
// naming its (row, segment), publishes its segment's (mean, M2) - rms: (0,
// sum of squares) - in part, waits for the row's S blocks
// (ak_coop_arrive_wait on cnt[1 + row]; cnt zeroed before the launch, S <=
// compute units) and combines the S partials in a fixed order (Chan's
// formula). RES (residual form): pass 1 forms h = round(x + r) and writes it
// (r and h aligned like x), pass 2 reads h back (each thread reads what it
// wrote). The plain f32 form's pass 1 loads two vectors per iteration.
template <class D, bool RES>
AK_INLINE void ak_norm_wide(const typename D::T* AK_RESTRICT x, const typename D::T* res,
                            const typename D::T* AK_RESTRICT w, const typename D::T* AK_RESTRICT b, typename D::T* h,
                            typename D::T* AK_RESTRICT y, ak_i64 cols, ak_i64 seg, int S, unsigned* cnt, float* part,
                            bool vec, bool wvec, float eps, bool rms) {
    __shared__ float scratch[AK_MAX_WAVES];
    __shared__ float stat[2];
    __shared__ unsigned ticket;
    const int V = AK_V16(D);
    ak_i64 row = blockIdx.x, tk = 0, c0 = 0;
    if (S > 1) {
        if (threadIdx.x == 0) ticket = atomicAdd(cnt, 1u);
        __syncthreads();
        tk = (ak_i64)ticket;
        row = tk / S;
        c0 = (tk - row * S) * seg;
    }
    const ak_i64 n = cols - c0 < seg ? cols - c0 : seg;
    const ak_i64 base = row * cols + c0;
    const typename D::T* p = x + base;
    const typename D::T* pr = RES ? res + base : res;
    typename D::T* ph = RES ? h + base : h;
    typename D::T* q = y + base;
    if (w) w += c0;
    if (b) b += c0;
    const int B = (int)blockDim.x, t = (int)threadIdx.x;
    ak_i64 head = n, nv = 0;
    if (vec) {
        head = (ak_i64)(((16u - ((unsigned)(unsigned long long)p & 15u)) & 15u) / sizeof(typename D::T));
        if (head > n) head = n;
        nv = (n - head) / V;
    }
    const ak_i64 tail0 = head + nv * V;
    const float K = rms ? 0.0f : RES ? D::to(D::from(D::to(p[0]) + D::to(pr[0]))) : D::to(p[0]);
    if (RES && !rms) __syncthreads();   // every thread has K before thread 0 may overwrite x[0] (h == x)
    float s1 = 0.0f, s2 = 0.0f;
    for (ak_i64 e = t; e < head; e += B) { const float d = ak_norm_res1<D, RES>(p, pr, ph, e) - K; s1 += d; s2 += d * d; }
    {
        const typename D::T* pv = p + head;
        ak_i64 k = t;
        if (!RES && D::SIZE == 4) {   // f32 (f16: two vectors spilled)
            for (; k + B < nv; k += 2 * B) {
                float a[8], c[8];
                ak_ld16<D>(pv + k * V, a);
                ak_ld16<D>(pv + (k + B) * V, c);
#pragma unroll
                for (int u = 0; u < V; u++) {
                    const float d = a[u] - K, f = c[u] - K;
                    s1 += d + f;
                    s2 += d * d + f * f;
                }
            }
        }
        for (; k < nv; k += B) {
            const ak_i64 e = head + k * V;
            float a[8];
            ak_ld16<D>(p + e, a);
            if (RES) {
                float u8[8];
                ak_ld16<D>(pr + e, u8);
#pragma unroll
                for (int u = 0; u < V; u++) a[u] = D::to(D::from(a[u] + u8[u]));
                ak_st16<D>(ph + e, a);
            }
#pragma unroll
            for (int u = 0; u < V; u++) { const float d = a[u] - K; s1 += d; s2 += d * d; }
        }
    }
    for (ak_i64 e = tail0 + t; e < n; e += B) { const float d = ak_norm_res1<D, RES>(p, pr, ph, e) - K; s1 += d; s2 += d * d; }
    if (RES) p = ph;   // the second pass normalizes h
    float mean = 0.0f, r;
    if (S == 1) {
        const float inv_n = (float)(1.0 / (double)cols);
        float var;
        if (rms) {
            var = ak_group_reduce(s2, B, scratch, ak_op_add()) * inv_n;
        } else {
            const float m1 = ak_group_reduce(s1, B, scratch, ak_op_add()) * inv_n;
            const float m2 = ak_group_reduce(s2, B, scratch, ak_op_add()) * inv_n;
            mean = K + m1;
            var = m2 - m1 * m1;
            if (var < 0.0f) var = 0.0f;
        }
        r = rsqrtf(var + eps);
    } else {
        if (!rms) s1 = ak_group_reduce(s1, B, scratch, ak_op_add());
        s2 = ak_group_reduce(s2, B, scratch, ak_op_add());
        if (threadIdx.x == 0) {
            const float fn = (float)n;
            part[2 * tk] = rms ? 0.0f : K + s1 / fn;
            part[2 * tk + 1] = rms ? s2 : fmaxf(s2 - s1 * (s1 / fn), 0.0f);
            ak_coop_arrive_wait(cnt + 1 + row, (unsigned)S);
        }
        __syncthreads();
        if (threadIdx.x < AK_WAVE) {
            // wave 0 combines the row's S partials (volatile: written by other blocks)
            const volatile float* pp = (const volatile float*)(part + 2 * row * S);
            const float inv_n = (float)(1.0 / (double)cols);
            float a1 = 0.0f, a2 = 0.0f;
            for (int j = (int)threadIdx.x; j < S; j += AK_WAVE) {
                const ak_i64 nj = cols - (ak_i64)j * seg < seg ? cols - (ak_i64)j * seg : seg;
                a1 += (float)nj * pp[2 * j];
            }
            for (int o = AK_WAVE / 2; o > 0; o >>= 1) a1 += ak_shfl_xor(a1, o);
            const float mu = a1 * inv_n;
            for (int j = (int)threadIdx.x; j < S; j += AK_WAVE) {
                const ak_i64 nj = cols - (ak_i64)j * seg < seg ? cols - (ak_i64)j * seg : seg;
                const float dm = pp[2 * j] - mu;
                a2 += pp[2 * j + 1] + (rms ? 0.0f : (float)nj * dm * dm);
            }
            for (int o = AK_WAVE / 2; o > 0; o >>= 1) a2 += ak_shfl_xor(a2, o);
            if (threadIdx.x == 0) {
                stat[0] = rms ? 0.0f : mu;
                stat[1] = rsqrtf(a2 * inv_n + eps);
            }
        }
        __syncthreads();
        mean = stat[0];
        r = stat[1];
    }
    for (ak_i64 e = t; e < head; e += B) {
        float a = (D::to(p[e]) - mean) * r;
        ak_norm_affine<D, 1>(&a, w, b, e, false);
        q[e] = D::from(a);
    }
    if (wvec && head == 0)
        ak_norm_wide_vec<D, true>(p, q, w, b, 0, nv, mean, r);
    else
        ak_norm_wide_vec<D, false>(p + head, q + head, w, b, head, nv, mean, r);
    for (ak_i64 e = tail0 + t; e < n; e += B) {
        float a = (D::to(p[e]) - mean) * r;
        ak_norm_affine<D, 1>(&a, w, b, e, false);
        q[e] = D::from(a);
    }
}

// ak_norm_wide on NVIDIA: two blocks of 1024 threads per SM (<= 32 registers).
// The head / vector / tail + residual form took it to 48-56 registers (ptxas,
// sm_90), one block per SM, and the H100 sweep of 2026-11-23 measured f16/bf16
// rows of 32768-400000 at 0.61-0.75x their earlier time (88% -> 54% of copy
// at 16384 x 32768 bf16). AMD keeps the default (its second argument means
// something else there; the ROCm ISA checks cover it).
#if defined(AK_NVIDIA)
#define AK_NORM_WIDE_MINB 2
#else
#define AK_NORM_WIDE_MINB 1
#endif

#define AK_NORM(DT, D)                                                                                               \
    AK_KERNEL __launch_bounds__(16384 / AK_NORM_E(D), 1) void ak_norm_##DT(const D::T* x, const D::T* w,              \
                                                                           const D::T* b, D::T* y, ak_i64 rows,      \
                                                                           int cols, int G, int vec, float eps,      \
                                                                           int rms) { AK_KONLY(ak_norm_##DT) { \
        ak_norm_rows<D, AK_NORM_E(D), false>(x, x, w, b, (D::T*)0, y, rows, cols, G, vec != 0, eps, rms != 0);       \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(256, 1) void ak_norm_narrow_##DT(const D::T* x, const D::T* w, const D::T* b,         \
                                                                 D::T* y, ak_i64 rows, int cols, int G, int vec,     \
                                                                 float eps, int rms) { AK_KONLY(ak_norm_narrow_##DT) { \
        ak_norm_rows<D, AK_NORM_NARROW_E, false>(x, x, w, b, (D::T*)0, y, rows, cols, G, vec != 0, eps, rms != 0);   \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(1024, AK_NORM_WIDE_MINB) void ak_norm_wide_##DT(                                     \
        const D::T* x, const D::T* w, const D::T* b, D::T* y, ak_i64 cols, ak_i64 seg, int S, unsigned* cnt,          \
        float* part, int vec, int wvec, float eps, int rms) { AK_KONLY(ak_norm_wide_##DT) { \
        ak_norm_wide<D, false>(x, x, w, b, (D::T*)0, y, cols, seg, S, cnt, part, vec != 0, wvec != 0, eps, rms != 0); \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(16384 / AK_NORM_E(D), 1) void ak_add_norm_##DT(                                      \
        const D::T* x, const D::T* r, const D::T* w, const D::T* b, D::T* h, D::T* y, ak_i64 rows, int cols, int G,  \
        int vec, float eps, int rms) { AK_KONLY(ak_add_norm_##DT) { \
        ak_norm_rows<D, AK_NORM_E(D), true>(x, r, w, b, h, y, rows, cols, G, vec != 0, eps, rms != 0);               \
    } }                                                                                                                \
    AK_KERNEL __launch_bounds__(1024, AK_NORM_WIDE_MINB) void ak_add_norm_wide_##DT(                                 \
        const D::T* x, const D::T* r, const D::T* w, const D::T* b, D::T* h, D::T* y, ak_i64 cols, ak_i64 seg, int S, \
        unsigned* cnt, float* part, int vec, int wvec, float eps, int rms) { AK_KONLY(ak_add_norm_wide_##DT) { \
        ak_norm_wide<D, true>(x, r, w, b, h, y, cols, seg, S, cnt, part, vec != 0, wvec != 0, eps, rms != 0);       \
    } }
AK_NORM(f32, ak_f32_t)
AK_NORM(f16, ak_f16_t)
AK_NORM(bf16, ak_bf16_t)
