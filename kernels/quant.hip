/* kernels/quant.hip: scaled casts between 16/32-bit floats and the 8-bit
 * float encodings (ak_quantize / ak_dequantize in amdkit.h, >>impl:ops-quant,
 * which also holds the CPU reference).
 *
 * Quantize: q = fp8(x * (1 / s)), saturating to the format's largest finite
 * value, round to nearest even, NaN to the format's NaN (0x7F OCP, 0x80
 * FNUZ); s is the dequantisation scale (x ~ s q) of the element's group:
 *   mode AK_QUANT_TENSOR  one s for the tensor (scale[0])
 *   mode AK_QUANT_ROW     one s per row (scale[r])
 *   mode AK_QUANT_BLOCK   one s per 1 x 128 block of a row (scale[r nb + c / 128], nb = ceil(cols / 128))
 * compute = 1: s is computed from the group's amax (s = amax / fp8 max, 1 when
 * amax is 0) and written to scale (current scaling); for the tensor mode the
 * amax comes from the one-pass kernel (below) or from ak_quant_amax_* run
 * before (into amax_buf); compute = 0: s is read (delayed scaling).
 * amax != NULL: max |x| over the tensor is folded into *amax (an atomic max on
 * its bits; the host zeroes it first; the one-pass kernel writes it).
 * Dequantize: y = s q in fp32, rounded to y's dtype.
 *
 * Rows: one block per row, 64 to 512 threads (the fewest that hold it). A row of
 * up to 16384 f32 / 32768 16-bit elements is held raw in registers (16-byte vectors from its first
 * aligned element, the head and tail one element a thread) and read once; a
 * longer row is read twice when its scale is computed (the second time from L2).
 * 1 x 128 blocks: one 16-byte vector a lane (16 lanes a block for 16-bit, 32
 * for f32) when the columns are a multiple of it and x is aligned, else a
 * wave a block with 4 (wave32) or 2 (wave64) elements a lane. Tensor mode and
 * its amax pass: two 16-byte vectors a thread. Tensor mode with the scale
 * computed, x and q aligned: one pass (ak_quant_tensor_<x>_<fp8>): a block of
 * 1024 threads a compute unit holds the tensor's last part in registers
 * (AK_QUANT_ROW_BYTES a thread), reads the rest for its amax, waits for every
 * block (a grid barrier), writes the held part's codes, then reads the rest
 * again last tile first (the tiles read last are still in L2): a tensor that
 * the registers hold is read once. One kernel per mode
 * (ak_quant_[row_|block_|tensor_]<x>_<fp8>). The fp8 code of
 * a float is ak_fp8_enc (the integer rounding of amdkit.h's ak_f32_to_fp8 with
 * saturation); on NVIDIA sm_89+ the OCP formats use the hardware conversion
 * (cvt.rn.satfinite), which rounds and saturates the same way. */

// >>host  fp8 encodings and scale modes (amdkit.h reads them as _AK_*)
#define AK_FP8_FMT_E4M3 0
#define AK_FP8_FMT_E5M2 1
#define AK_FP8_FMT_E4M3_FNUZ 2
#define AK_FP8_FMT_E5M2_FNUZ 3
#define AK_QUANT_TENSOR 0
#define AK_QUANT_ROW 1
#define AK_QUANT_BLOCK 2
#define AK_QUANT_BLOCK_COLS 128
#define AK_QUANT_THREADS 256
#define AK_QUANT_ROW_THREADS 512   /* the row kernel's largest block */
#define AK_QUANT_ROW_BYTES 128     /* bytes of a row a thread holds in registers (32 f32, 64 f16 / bf16) */
#define AK_QUANT_BLOCK_STEPS 4     /* 1 x 128 blocks a sub-wave takes at once */
#define AK_QUANT_ONE_THREADS 1024  /* the one-pass tensor kernel's block (one a compute unit) */
// <<host

/* mantissa bits, bias, FNUZ, largest finite code and its value */
template <int F> struct ak_fp8_fmt;
template <> struct ak_fp8_fmt<AK_FP8_FMT_E4M3> { enum { M = 3, BIAS = 7, FNUZ = 0, MAXC = 0x7E }; static AK_INLINE float maxv() { return 448.0f; } };
template <> struct ak_fp8_fmt<AK_FP8_FMT_E5M2> { enum { M = 2, BIAS = 15, FNUZ = 0, MAXC = 0x7B }; static AK_INLINE float maxv() { return 57344.0f; } };
template <> struct ak_fp8_fmt<AK_FP8_FMT_E4M3_FNUZ> { enum { M = 3, BIAS = 8, FNUZ = 1, MAXC = 0x7F }; static AK_INLINE float maxv() { return 240.0f; } };
template <> struct ak_fp8_fmt<AK_FP8_FMT_E5M2_FNUZ> { enum { M = 2, BIAS = 16, FNUZ = 1, MAXC = 0x7F }; static AK_INLINE float maxv() { return 57344.0f; } };

/* Saturating round-to-nearest-even fp32 -> fp8 code (integer arithmetic). */
template <int F>
AK_INLINE ak_u32 ak_fp8_enc_sw(float x) {
    typedef ak_fp8_fmt<F> Fm;
    const ak_u32 u = ak_f2u(x), a = u & 0x7FFFFFFFu, sign = (u >> 24) & 0x80u;
    if (a > 0x7F800000u) return Fm::FNUZ ? 0x80u : 0x7Fu;
    const int e32 = (int)(a >> 23);
    ak_u32 code;
    if (e32 - 127 >= 1 - Fm::BIAS) {
        const int sh = 23 - Fm::M;
        const ak_u32 rem = a & ((1u << sh) - 1u), half = 1u << (sh - 1);
        ak_u32 keep = a >> sh;
        keep += (rem > half || (rem == half && (keep & 1u))) ? 1u : 0u;
        code = keep - ((ak_u32)(127 - Fm::BIAS) << Fm::M);
    } else {
        const ak_u32 sig = e32 ? (a & 0x7FFFFFu) | 0x800000u : (a & 0x7FFFFFu);
        const int sh = 150 - (e32 ? e32 : 1) + (1 - Fm::BIAS) - Fm::M;
        if (sh >= 32) code = 0;
        else {
            const ak_u32 rem = sig & ((1u << sh) - 1u), half = 1u << (sh - 1);
            code = sig >> sh;
            code += (rem > half || (rem == half && (code & 1u))) ? 1u : 0u;
        }
    }
    if (code > (ak_u32)Fm::MAXC) code = Fm::MAXC;   /* saturate (infinities too) */
    if (Fm::FNUZ && code == 0) return 0;
    return sign | code;
}

/* Four codes packed in a word (element 0 in the low byte). */
template <int F>
AK_INLINE ak_u32 ak_fp8_enc4(const float* v) {
#if defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    if (F == AK_FP8_FMT_E4M3 || F == AK_FP8_FMT_E5M2) {
        unsigned short lo, hi;
        if (F == AK_FP8_FMT_E4M3) {
            asm("cvt.rn.satfinite.e4m3x2.f32 %0, %2, %1;" : "=h"(lo) : "f"(v[0]), "f"(v[1]));
            asm("cvt.rn.satfinite.e4m3x2.f32 %0, %2, %1;" : "=h"(hi) : "f"(v[2]), "f"(v[3]));
        } else {
            asm("cvt.rn.satfinite.e5m2x2.f32 %0, %2, %1;" : "=h"(lo) : "f"(v[0]), "f"(v[1]));
            asm("cvt.rn.satfinite.e5m2x2.f32 %0, %2, %1;" : "=h"(hi) : "f"(v[2]), "f"(v[3]));
        }
        return (ak_u32)lo | ((ak_u32)hi << 16);
    }
#endif
    return ak_fp8_enc_sw<F>(v[0]) | (ak_fp8_enc_sw<F>(v[1]) << 8) | (ak_fp8_enc_sw<F>(v[2]) << 16) |
           (ak_fp8_enc_sw<F>(v[3]) << 24);
}
template <int F>
AK_INLINE ak_u8 ak_fp8_enc1(float v) {
    float w[4] = { v, 0.0f, 0.0f, 0.0f };
    return (ak_u8)(ak_fp8_enc4<F>(w) & 0xFFu);
}

/* fp8 code -> fp32 (exact). */
template <int F>
AK_INLINE float ak_fp8_dec(ak_u32 c) {
    typedef ak_fp8_fmt<F> Fm;
    const ak_u32 mag = c & 0x7Fu, s = (c & 0x80u) << 24;
    if (Fm::FNUZ ? c == 0x80u : (Fm::M == 3 ? mag == 0x7Fu : mag > 0x7Cu)) return ak_u2f(0x7FC00000u);
    if (!Fm::FNUZ && Fm::M == 2 && mag == 0x7Cu) return ak_u2f(s | 0x7F800000u);
    const ak_u32 e = mag >> Fm::M, m = mag & ((1u << Fm::M) - 1u);
    if (e == 0) /* subnormal: m 2^(1 - bias - M) */
        return ak_u2f(s | ak_f2u((float)m * ak_u2f((ak_u32)(127 + 1 - Fm::BIAS - Fm::M) << 23)));
    return ak_u2f(s | ((e + 127 - Fm::BIAS) << 23) | (m << (23 - Fm::M)));
}

/* correctly rounded division (fast-math builds would approximate a / b): the scales match the host's bit for bit */
AK_INLINE float ak_quant_div(float a, float b) {
#if defined(AK_NVIDIA)
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}
AK_INLINE float ak_quant_inv(float s) { return s != 0.0f ? ak_quant_div(1.0f, s) : 0.0f; }
template <int F>
AK_INLINE float ak_quant_scale_of(float amax) {
    return amax > 0.0f ? ak_quant_div(amax, ak_fp8_fmt<F>::maxv()) : amax == amax ? 1.0f : amax;
}
/* |x| as ordered bits (non-negative floats order as unsigned integers; NaN above all) */
AK_INLINE void ak_quant_amax_fold(float* amax, float m) {
    if (amax) atomicMax((unsigned*)amax, ak_f2u(m) & 0x7FFFFFFFu);
}
AK_INLINE float ak_absmax(float a, float b) {
    const ak_u32 x = ak_f2u(a) & 0x7FFFFFFFu, y = ak_f2u(b) & 0x7FFFFFFFu;
    return ak_u2f(x > y ? x : y);
}

/* Block-wide max of non-negative values (NaN wins), through `scratch` of blockDim.x / AK_WAVE floats. */
AK_INLINE float ak_quant_block_max(float v, float* scratch) {
    for (int o = AK_WAVE / 2; o > 0; o >>= 1) v = ak_absmax(v, ak_shfl_xor(v, o));
    __syncthreads();
    if (ak_lane() == 0) scratch[ak_wave_id()] = v;
    __syncthreads();
    v = 0.0f;
    for (int w = 0; w < (int)(blockDim.x / AK_WAVE); w++) v = ak_absmax(v, scratch[w]);
    return v;
}

/* codes stored for good, evict-first on NVIDIA (st .cs), beside ak_ld16_last's reads */
AK_INLINE void ak_quant_st_last(ak_u8* q, ak_u32 w) {
#if defined(AK_NVIDIA)
    asm volatile("st.global.cs.u32 [%0], %1;" :: "l"(q), "r"(w) : "memory");
#else
    *(ak_u32*)q = w;
#endif
}
AK_INLINE void ak_quant_st_last(ak_u8* q, uint2 w) {
#if defined(AK_NVIDIA)
    asm volatile("st.global.cs.v2.u32 [%0], {%1, %2};" :: "l"(q), "r"(w.x), "r"(w.y) : "memory");
#else
    *(uint2*)q = w;
#endif
}
/* The largest |x| of k words of D held raw (f32: one element a word; 16-bit: two), in D's own bits: without the
 * sign, non-negative floats of one format order as unsigned integers (NaN above infinity), so no widening. */
template <class D>
AK_INLINE ak_u32 ak_quant_bitsmax(const ak_u32* u, int k, ak_u32 m) {
    for (int i = 0; i < k; i++) {
        if (D::SIZE == 4) {
            const ak_u32 a = u[i] & 0x7FFFFFFFu;
            m = a > m ? a : m;
        } else {
            const ak_u32 lo = u[i] & 0x7FFFu, hi = (u[i] >> 16) & 0x7FFFu, a = lo > hi ? lo : hi;
            m = a > m ? a : m;
        }
    }
    return m;
}
/* E (4 or 8) codes of the scaled values f, packed (element 0 in the low byte), stored at q (aligned to E bytes);
 * LAST: evict-first stores (ak_quant_st_last) */
template <int F, int E, bool LAST = false>
AK_INLINE void ak_quant_st(ak_u8* q, float* f, float inv) {
#pragma unroll
    for (int k = 0; k < E; k++) f[k] *= inv;
    if (E == 4) {
        if (LAST) ak_quant_st_last(q, ak_fp8_enc4<F>(f));
        else *(ak_u32*)q = ak_fp8_enc4<F>(f);
    } else {
        uint2 w;
        w.x = ak_fp8_enc4<F>(f);
        w.y = ak_fp8_enc4<F>(f + 4);
        if (LAST) ak_quant_st_last(q, w);
        else *(uint2*)q = w;
    }
}
/* Two vectors of x at i0 and i1, read for the last time, scaled and stored as codes at q + i0, q + i1 */
template <class D, int F>
AK_INLINE void ak_quant_pair_last(const typename D::T* x, ak_u8* q, ak_i64 i0, ak_i64 i1, float inv) {
    enum { V = AK_V16(D) };
    ak_u32 u[2][4];
    float f[2 * V];
    ak_ld16_last(x + i0, u[0]);
    ak_ld16_last(x + i1, u[1]);
    ak_widen_words<D, 4>(u[0], f);
    ak_widen_words<D, 4>(u[1], f + V);
    ak_quant_st<F, V, true>(q + i0, f, inv);
    ak_quant_st<F, V, true>(q + i1, f + V, inv);
}

/* The elements of a group before x's first 16-byte boundary, h, when q + h is then aligned to the vector's codes
 * (true of every row of a 16-byte aligned tensor whatever its width); -1: none (x not element-aligned, or q
 * misaligned against it). */
template <class D>
AK_INLINE ak_i64 ak_quant_head(const typename D::T* x, const ak_u8* q, ak_i64 n) {
    const ak_u64 hb = (16u - (((ak_u64)x) & 15u)) & 15u;
    const ak_i64 h = (ak_i64)(hb / D::SIZE);
    return hb % D::SIZE == 0 && h <= n && (((ak_u64)(q + h)) & (ak_u64)(AK_V16(D) - 1)) == 0 ? h : -1;
}

/* A row of up to AK_QUANT_ROW_BYTES a thread held raw in registers (16384 f32 / 32768 16-bit elements with 512
 * threads; the host launches the fewest threads that hold the row, so narrow rows share an SM): 16-byte vectors
 * from the first aligned element, the head and tail (fewer than 2 vectors' worth) one element a thread. One read
 * of x (every load issued before the block's max), then the codes from the registers. false: the row does not
 * qualify (too long, or x / q misaligned; nothing done). Block-cooperative. */
template <class D, int F>
AK_INLINE bool ak_quant_row_regs(const typename D::T* x, ak_u8* q, ak_i64 n, float* sp, int compute, float* amax, float* scratch) {
    enum { E = AK_V16(D), U = AK_QUANT_ROW_BYTES / 16 };
    const ak_i64 h = ak_quant_head<D>(x, q, n);
    if (n > (ak_i64)(AK_QUANT_ROW_BYTES / D::SIZE) * blockDim.x || h < 0) return false;
    const int nv = (int)((n - h) / E), ns = (int)(n - (ak_i64)nv * E);   /* ns < 2 E <= blockDim.x */
    const int t = (int)threadIdx.x, ie = t < (int)h ? t : nv * E + t;   /* this thread's head / tail element */
    const typename D::T* xv = x + h;
    ak_u32 raw[U][4];
    float m = 0.0f, s, one = 0.0f;
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int j = t + u * (int)blockDim.x;
        if (j < nv) {
            const uint4 w = *(const uint4*)(xv + E * j);
            raw[u][0] = w.x; raw[u][1] = w.y; raw[u][2] = w.z; raw[u][3] = w.w;
        }
    }
    if (t < ns) one = D::to(x[ie]);
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int j = t + u * (int)blockDim.x;
        if (j < nv) {
            float f[E];
            ak_widen_words<D, 4>(raw[u], f);
            for (int k = 0; k < E; k++) m = ak_absmax(m, f[k]);
        }
    }
    m = ak_absmax(m, one);
    if (compute || amax) m = ak_quant_block_max(m, scratch);
    if (compute) {
        s = ak_quant_scale_of<F>(m);
        if (t == 0) *sp = s;
    } else {
        s = *sp;
    }
    if (t == 0) ak_quant_amax_fold(amax, m);
    const float inv = ak_quant_inv(s);
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int j = t + u * (int)blockDim.x;
        if (j < nv) {
            float f[E];
            ak_widen_words<D, 4>(raw[u], f);
            ak_quant_st<F, E>(q + h + E * j, f, inv);
        }
    }
    if (t < ns) q[ie] = ak_fp8_enc1<F>(one * inv);
    return true;
}

/* One group of n elements at x (scale s or computed), written to q: two reads of x (the second from L2). The
 * middle in 16-byte vectors: from the first element at a 16-byte boundary of x, when q is then aligned to the
 * vector's codes (true of a row of a 16-byte aligned tensor whatever its width); the head and tail element by
 * element. Block-cooperative. */
template <class D, int F>
AK_INLINE void ak_quant_span(const typename D::T* x, ak_u8* q, ak_i64 n, float* sp, int compute, float* amax, float* scratch) {
    const int V = AK_V16(D);
    ak_i64 h = ak_quant_head<D>(x, q, n), nv = 0;
    if (h >= 0) nv = (n - h) / V;
    else h = 0;
    const typename D::T* xv = x + h;
    ak_u8* qv = q + h;
    const ak_i64 ns = n - nv * V;   /* scalar elements: [0, h) and [h + nv V, n) */
    float m = 0.0f, s;
    if (compute) {
#pragma unroll 4
        for (ak_i64 j = threadIdx.x; j < nv; j += blockDim.x) {
            float f[AK_V16(D)];
            ak_ld16<D>(xv + V * j, f);
            for (int k = 0; k < V; k++) m = ak_absmax(m, f[k]);
        }
        for (ak_i64 e = threadIdx.x; e < ns; e += blockDim.x) m = ak_absmax(m, D::to(x[e < h ? e : e + nv * V]));
        m = ak_quant_block_max(m, scratch);
        s = ak_quant_scale_of<F>(m);
        if (threadIdx.x == 0) *sp = s;
        if (threadIdx.x == 0) ak_quant_amax_fold(amax, m);
    } else {
        s = *sp;
    }
    const float inv = ak_quant_inv(s);
    float lm = 0.0f;
    for (ak_i64 j = threadIdx.x; j < nv; j += blockDim.x) {
        float f[AK_V16(D)];
        ak_ld16<D>(xv + V * j, f);
        if (!compute && amax) for (int k = 0; k < V; k++) lm = ak_absmax(lm, f[k]);
        ak_quant_st<F, AK_V16(D)>(qv + V * j, f, inv);
    }
    for (ak_i64 e = threadIdx.x; e < ns; e += blockDim.x) {
        const ak_i64 i = e < h ? e : e + nv * V;
        const float v = D::to(x[i]);
        if (!compute && amax) lm = ak_absmax(lm, v);
        q[i] = ak_fp8_enc1<F>(v * inv);
    }
    if (!compute && amax) {
        lm = ak_quant_block_max(lm, scratch);
        if (threadIdx.x == 0) ak_quant_amax_fold(amax, lm);
    }
}

/* 1 x 128 blocks, one 16-byte vector a lane: L = 128 / AK_V16(D) lanes a block (32 for f32, 16 for 16-bit), so a
 * wave takes AK_WAVE / L blocks a step and AK_QUANT_BLOCK_STEPS steps at once (every load issued before the first
 * shuffle, the words held raw), every load 16 bytes and every store 4 or 8 bytes of codes. Needs cols a multiple of the vector, x
 * 16-byte aligned and q aligned to the vector's codes; false: nothing done. The wave's turns are uniform
 * (shuffles in a sub-wave); r = g / nb is a 32-bit division when the blocks number < 2^32. */
template <class D, int F>
AK_INLINE bool ak_quant_blocks_vec(const typename D::T* x, ak_u8* q, ak_i64 rows, ak_i64 cols, float* scale, int compute, float* amax) {
    enum { V = AK_V16(D), L = AK_QUANT_BLOCK_COLS / AK_V16(D), G = AK_WAVE / (AK_QUANT_BLOCK_COLS / AK_V16(D)),
           T = AK_QUANT_BLOCK_STEPS };
    if ((cols % V) || !ak_aligned16(x) || (((ak_u64)q) & (ak_u64)(V - 1))) return false;
    const ak_i64 nb = (cols + AK_QUANT_BLOCK_COLS - 1) / AK_QUANT_BLOCK_COLS, total = rows * nb;
    const ak_i64 waves = (ak_i64)gridDim.x * (blockDim.x / AK_WAVE);
    const int sub = ak_lane() / L, lane = ak_lane() % L;
    const bool narrow = total <= (ak_i64)0xFFFFFFFFu;
    float lm = 0.0f;
    for (ak_i64 gw = (ak_i64)blockIdx.x * (blockDim.x / AK_WAVE) + ak_wave_id(); gw * (G * T) < total; gw += waves) {
        ak_i64 g[T], off[T];
        bool in[T];
        ak_u32 raw[T][4];
        float m[T];
#pragma unroll
        for (int t = 0; t < T; t++) {
            g[t] = (gw * T + t) * G + sub;
            const ak_i64 r = g[t] >= total ? 0 : narrow ? (ak_i64)((unsigned)g[t] / (unsigned)nb) : g[t] / nb;
            const ak_i64 c = (g[t] - r * nb) * AK_QUANT_BLOCK_COLS + (ak_i64)lane * V;
            in[t] = g[t] < total && c < cols;
            off[t] = r * cols + c;
            m[t] = 0.0f;
            if (in[t]) {
                const uint4 w = *(const uint4*)(x + off[t]);
                raw[t][0] = w.x; raw[t][1] = w.y; raw[t][2] = w.z; raw[t][3] = w.w;
            }
        }
#pragma unroll
        for (int t = 0; t < T; t++) {
            if (in[t]) {
                float f[V];
                ak_widen_words<D, 4>(raw[t], f);
                for (int k = 0; k < V; k++) m[t] = ak_absmax(m[t], f[k]);
            }
            for (int o = L / 2; o > 0; o >>= 1) m[t] = ak_absmax(m[t], ak_shfl_xor(m[t], o));
        }
#pragma unroll
        for (int t = 0; t < T; t++) {
            const bool live = g[t] < total;
            float s = 1.0f;
            if (compute) {
                s = ak_quant_scale_of<F>(m[t]);
                if (live && lane == 0) scale[g[t]] = s;
            } else if (live) {
                s = scale[g[t]];
            }
            lm = ak_absmax(lm, m[t]);
            if (in[t]) {
                float f[V];
                ak_widen_words<D, 4>(raw[t], f);
                ak_quant_st<F, V>(q + off[t], f, ak_quant_inv(s));
            }
        }
    }
    if (amax) {
        for (int o = AK_WAVE / 2; o >= L; o >>= 1) lm = ak_absmax(lm, ak_shfl_xor(lm, o));
        if (ak_lane() == 0) ak_quant_amax_fold(amax, lm);
    }
    return true;
}

/* 1 x 128 blocks: a wave of lanes per block (AK_QUANT_BLOCK_COLS / AK_WAVE elements a lane). */
template <class D, int F>
AK_INLINE void ak_quant_blocks(const typename D::T* x, ak_u8* q, ak_i64 rows, ak_i64 cols, float* scale, int compute, float* amax) {
    const int PER = AK_QUANT_BLOCK_COLS / AK_WAVE;   /* 4 (wave32) or 2 (wave64) */
    const ak_i64 nb = (cols + AK_QUANT_BLOCK_COLS - 1) / AK_QUANT_BLOCK_COLS, total = rows * nb;
    const ak_i64 waves = (ak_i64)gridDim.x * (blockDim.x / AK_WAVE);
    const int lane = ak_lane();
    float lm = 0.0f;
    for (ak_i64 g = (ak_i64)blockIdx.x * (blockDim.x / AK_WAVE) + ak_wave_id(); g < total; g += waves) {
        const ak_i64 r = g / nb, c0 = (g - r * nb) * AK_QUANT_BLOCK_COLS + (ak_i64)lane * PER;
        const typename D::T* xr = x + r * cols;
        float v[4] = { 0.0f, 0.0f, 0.0f, 0.0f }, m = 0.0f;
        for (int k = 0; k < PER; k++)
            if (c0 + k < cols) { v[k] = D::to(xr[c0 + k]); m = ak_absmax(m, v[k]); }
        for (int o = AK_WAVE / 2; o > 0; o >>= 1) m = ak_absmax(m, ak_shfl_xor(m, o));
        float s;
        if (compute) {
            s = ak_quant_scale_of<F>(m);
            if (lane == 0) scale[g] = s;
        } else {
            s = scale[g];
        }
        lm = ak_absmax(lm, m);
        const float inv = ak_quant_inv(s);
        for (int k = 0; k < PER; k++) v[k] *= inv;
        const ak_u32 w = ak_fp8_enc4<F>(v);
        for (int k = 0; k < PER; k++)
            if (c0 + k < cols) q[r * cols + c0 + k] = (ak_u8)((w >> (8 * k)) & 0xFFu);
    }
    if (amax && lane == 0) ak_quant_amax_fold(amax, lm);
}

/* Grid-stride map over n elements in tiles of 2 V blockDim.x (two units of V elements a thread; V defaults to a
 * 16-byte vector of D: 8 f32, 16 f16 / bf16): chunk(i0, i1) takes the unit at i0 and the one at i1 = i0 + V
 * blockDim.x, so each access instruction of a wave is contiguous (vec: the units aligned); then one(i) takes the
 * rest (all of it when vec is false). Twice ak_map8's bytes a thread for 16-bit data. rev: the tiles last first
 * (blocks start in index order, so a second pass over a tensor that the first read in order finds the tiles read
 * last still in L2). */
template <class D, int V = AK_V16(D), class C, class O>
AK_INLINE void ak_quant_map(ak_i64 n, bool vec, C chunk, O one, bool rev = false) {
    ak_i64 done = 0;
    if (vec) {
        const ak_i64 B = (ak_i64)blockDim.x, t = (ak_i64)threadIdx.x, ntiles = n / (2 * V * B);
        for (ak_i64 T = blockIdx.x; T < ntiles; T += gridDim.x) {
            const ak_i64 tt = rev ? ntiles - 1 - T : T;
            chunk(V * (2 * tt * B + t), V * (2 * tt * B + B + t));
        }
        done = ntiles * 2 * V * B;
    }
    for (ak_i64 i = done + ak_gtid(); i < n; i += ak_gstride()) one(i);
}

/* MODE: one kernel per scale mode (the row and block forms hold more in registers; in one kernel with the tensor
 * form they cut its occupancy, and with it the tensor form's loads in flight) */
template <class D, int F, int MODE>
AK_INLINE void ak_quant_impl(const typename D::T* x, ak_u8* q, ak_i64 rows, ak_i64 cols, float* scale,
                             int compute, float* amax, const float* amax_in) {
    __shared__ float scratch[AK_QUANT_ROW_THREADS / 32];
    if (MODE == AK_QUANT_BLOCK) {
        if (!ak_quant_blocks_vec<D, F>(x, q, rows, cols, scale, compute, amax))
            ak_quant_blocks<D, F>(x, q, rows, cols, scale, compute, amax);
    } else if (MODE == AK_QUANT_ROW) {
        for (ak_i64 r = blockIdx.x; r < rows; r += gridDim.x)
            if (!ak_quant_row_regs<D, F>(x + r * cols, q + r * cols, cols, scale + r, compute, amax, scratch))
                ak_quant_span<D, F>(x + r * cols, q + r * cols, cols, scale + r, compute, amax, scratch);
    } else {
        /* the tensor as two 16-byte vectors a thread (ak_quant_map); the scale is read, or computed from amax_in
           (the tensor's amax, ak_quant_amax run before) and written by thread 0 */
        enum { V = AK_V16(D) };
        const float s = compute ? ak_quant_scale_of<F>(*amax_in) : scale[0];
        if (compute && blockIdx.x == 0 && threadIdx.x == 0) scale[0] = s;
        const float inv = ak_quant_inv(s);
        float lm = 0.0f;
        ak_quant_map<D>(rows * cols, ak_aligned16(x) && (((ak_u64)q) & (ak_u64)(V - 1)) == 0,
            [&](ak_i64 i0, ak_i64 i1) {
                if (compute) {   /* the second pass of two */
                    ak_quant_pair_last<D, F>(x, q, i0, i1, inv);
                    return;
                }
                float f[2 * V];
                ak_ld16<D>(x + i0, f);
                ak_ld16<D>(x + i1, f + V);
                if (amax) for (int k = 0; k < 2 * V; k++) lm = ak_absmax(lm, f[k]);
                ak_quant_st<F, V>(q + i0, f, inv);
                ak_quant_st<F, V>(q + i1, f + V, inv);
            },
            [&](ak_i64 i) {
                const float v = D::to(x[i]);
                if (amax && !compute) lm = ak_absmax(lm, v);
                q[i] = ak_fp8_enc1<F>(v * inv);
            },
            compute != 0);   /* the second pass: the amax pass's last tiles first */
        if (amax && !compute) {
            lm = ak_quant_block_max(lm, scratch);
            if (threadIdx.x == 0) ak_quant_amax_fold(amax, lm);
        }
    }
}

/* The tensor with its scale computed, in one pass where the registers hold it (x 16-byte aligned, q aligned to a
 * vector's codes; gridDim.x blocks, all resident at once: the host launches at most one a compute unit). Vectors
 * [head, nv) are held, U a thread (vector head + u G B + b B + t); [0, head) (a multiple of 2 B vectors, B =
 * blockDim.x) streams in tiles of two vectors a thread: read for the amax in order, then again for the codes last
 * tile first. The n - nv V trailing elements (< V): one a thread of block 0. ws[0]: the amax's bits (atomic max),
 * ws[1]: the arrival count; both zeroed by the host. Thread 0 of block 0 writes scale[0] and *amax (when given). */
template <class D, int F>
AK_INLINE void ak_quant_tensor_impl(const typename D::T* x, ak_u8* q, ak_i64 n, float* scale, float* amax, unsigned* ws) {
    enum { V = AK_V16(D), U = AK_QUANT_ROW_BYTES / 16 };
    __shared__ float scratch[AK_QUANT_ONE_THREADS / 32];
    const ak_i64 B = (ak_i64)blockDim.x, G = (ak_i64)gridDim.x, b = (ak_i64)blockIdx.x, t = (ak_i64)threadIdx.x;
    const ak_i64 nv = n / V, cap = G * B * U, ne = n - nv * V;
    const ak_i64 head = nv > cap ? (nv - cap + 2 * B - 1) / (2 * B) * (2 * B) : 0, nt = head / (2 * B);
    const ak_i64 j0 = head + b * B + t, step = V * G * B;   /* this thread's first held vector; elements between */
    const ak_i64 uv = j0 < nv ? (nv - j0 + G * B - 1) / (G * B) : 0;   /* held vectors of this thread */
    const int uc = uv < (ak_i64)U ? (int)uv : (int)U;
    const typename D::T* xh = x + V * j0;
    ak_u32 raw[U][4], mb = 0;   /* mb: the largest |x| in D's own bits (widened once, at the end) */
    float m, one = 0.0f;
#pragma unroll
    for (int u = 0; u < U; u++) {
        if (u < uc) {
            const uint4 w = *(const uint4*)(xh + u * step);
            raw[u][0] = w.x; raw[u][1] = w.y; raw[u][2] = w.z; raw[u][3] = w.w;
        }
    }
    if (b == 0 && t < ne) one = D::to(x[nv * V + t]);
    for (ak_i64 T = b; T < nt; T += G) {
        const uint4 w0 = *(const uint4*)(x + V * (2 * T * B + t)), w1 = *(const uint4*)(x + V * (2 * T * B + B + t));
        const ak_u32 w[8] = { w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w };
        mb = ak_quant_bitsmax<D>(w, 8, mb);
    }
#pragma unroll
    for (int u = 0; u < U; u++)
        if (u < uc) mb = ak_quant_bitsmax<D>(raw[u], 4, mb);
    m = D::SIZE == 4 ? ak_u2f(mb) : ak_is_f16<D>::value ? ak_h2f((ak_u16)mb) : ak_u2f(mb << 16);
    m = ak_quant_block_max(ak_absmax(m, one), scratch);
    if (t == 0) {
        atomicMax(ws, ak_f2u(m) & 0x7FFFFFFFu);
        ak_coop_arrive_wait(ws + 1, (unsigned)G);
    }
    __syncthreads();
    const float am = ak_u2f(*(volatile unsigned*)ws), s = ak_quant_scale_of<F>(am), inv = ak_quant_inv(s);
    if (b == 0 && t == 0) {
        scale[0] = s;
        if (amax) *amax = am;
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        if (u < uc) {
            float f[V];
            ak_widen_words<D, 4>(raw[u], f);
            ak_quant_st<F, V>(q + V * j0 + u * step, f, inv);
        }
    }
    if (b == 0 && t < ne) q[nv * V + t] = ak_fp8_enc1<F>(one * inv);
    for (ak_i64 T = b; T < nt; T += G) {
        const ak_i64 tt = nt - 1 - T, i0 = V * (2 * tt * B + t);
        ak_quant_pair_last<D, F>(x, q, i0, i0 + V * B, inv);
    }
}

/* max |x| over n elements, folded into *amax (zeroed by the host) */
template <class D>
AK_INLINE void ak_quant_amax_impl(const typename D::T* x, ak_i64 n, float* amax) {
    __shared__ float scratch[AK_QUANT_THREADS / 32];
    enum { V = AK_V16(D) };
    float lm = 0.0f;
    ak_quant_map<D>(n, ak_aligned16(x),
        [&](ak_i64 i0, ak_i64 i1) {
            float f[2 * V];
            ak_ld16<D>(x + i0, f);
            ak_ld16<D>(x + i1, f + V);
            for (int k = 0; k < 2 * V; k++) lm = ak_absmax(lm, f[k]);
        },
        [&](ak_i64 i) { lm = ak_absmax(lm, D::to(x[i])); });
    lm = ak_quant_block_max(lm, scratch);
    if (threadIdx.x == 0) ak_quant_amax_fold(amax, lm);
}

/* Four codes of a word (element 0 in the low byte) as fp32, exactly: NVIDIA sm_89+ converts the OCP formats with
 * the hardware (cvt.rn.f16x2.e4m3x2 / e5m2x2: a pair of codes to two f16, every code exact, NaN and infinity
 * included), the rest decode by integer arithmetic (ak_fp8_dec). */
template <int F>
AK_INLINE void ak_fp8_dec4(ak_u32 w, float* f) {
#if defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    if (F == AK_FP8_FMT_E4M3 || F == AK_FP8_FMT_E5M2) {
        ak_u32 lo, hi;
        if (F == AK_FP8_FMT_E4M3)
            asm("{.reg .b16 l, h;\n mov.b32 {l, h}, %2;\n cvt.rn.f16x2.e4m3x2 %0, l;\n cvt.rn.f16x2.e4m3x2 %1, h;\n}"
                : "=r"(lo), "=r"(hi) : "r"(w));
        else
            asm("{.reg .b16 l, h;\n mov.b32 {l, h}, %2;\n cvt.rn.f16x2.e5m2x2 %0, l;\n cvt.rn.f16x2.e5m2x2 %1, h;\n}"
                : "=r"(lo), "=r"(hi) : "r"(w));
        f[0] = ak_h2f((ak_u16)(lo & 0xFFFFu)); f[1] = ak_h2f((ak_u16)(lo >> 16));
        f[2] = ak_h2f((ak_u16)(hi & 0xFFFFu)); f[3] = ak_h2f((ak_u16)(hi >> 16));
        return;
    }
#endif
#pragma unroll
    for (int k = 0; k < 4; k++) f[k] = ak_fp8_dec<F>((w >> (8 * k)) & 0xFFu);
}

/* n / d for every n < 2^31 by a multiply and a shift: (n m) >> 32 >> s, with m and s from the host (amdkit.h
 * _ak_div31: l = ceil(log2 d), m = ceil(2^(31 + l) / d) < 2^32 and s = l - 1; then m d - 2^(31 + l) < d <= 2^l, so
 * floor(n m / 2^(31 + l)) = floor(n / d) (Granlund and Montgomery); s = -1: d = 1). */
struct ak_div31 {
    ak_u32 m;
    int s;
};
AK_INLINE ak_u32 ak_div31_div(ak_div31 v, ak_u32 n) { return v.s < 0 ? n : __umulhi(n, v.m) >> v.s; }

/* E codes of q at each of i0, i1 (ak_quant_map's pair) times scale_at(i), stored as E elements of y: 16 codes in
 * one 16-byte load and two 16-byte stores (16-bit y), 8 in an 8-byte load and a 16-byte store (16-bit), 4 in a
 * 4-byte load and one 16-byte (f32) or 8-byte (16-bit) store; q aligned to E bytes, y to the store */
template <int F, class D, int E, class S>
AK_INLINE void ak_dequant_pair(const ak_u8* q, typename D::T* y, ak_i64 i0, ak_i64 i1, S scale_at) {
    const ak_i64 ii[2] = { i0, i1 };
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const ak_i64 i = ii[h];
        float f[E];
        if constexpr (E == 16) {
            const uint4 w = *(const uint4*)(q + i);
            ak_fp8_dec4<F>(w.x, f);
            ak_fp8_dec4<F>(w.y, f + 4);
            ak_fp8_dec4<F>(w.z, f + 8);
            ak_fp8_dec4<F>(w.w, f + 12);
        } else if constexpr (E == 8) {
            const uint2 w = *(const uint2*)(q + i);
            ak_fp8_dec4<F>(w.x, f);
            ak_fp8_dec4<F>(w.y, f + 4);
        } else {
            ak_fp8_dec4<F>(*(const ak_u32*)(q + i), f);
        }
        const float s = scale_at(i);
#pragma unroll
        for (int k = 0; k < E; k++) f[k] = s * f[k];
        if constexpr (E == 16) {
            ak_st16<D>(y + i, f);
            ak_st16<D>(y + i + 8, f + 8);
        } else if constexpr (E == AK_V16(D)) ak_st16<D>(y + i, f);
        else D::st4(y + i, f);
    }
}

/* y = s q in the group's scale, in units of E codes, a pair of them a thread and tile (ak_quant_map), so a warp's
 * loads and stores each cover one contiguous run: 16-bit y with widths a multiple of 16, E = 16; else E = 16 bytes
 * of y (4 f32 / 8 f16 or bf16) where the width is a multiple of E; else for 16-bit y, E = 4 where the width is a
 * multiple of 4; q aligned to E bytes and y to the store; else element by element. One scale for the tensor: no
 * unit can straddle a scale group, so the largest unit whatever the width (ak_quant_map takes the tail). The
 * host's grid gives a block one tile of the largest unit (16 codes, 4 for f32), so the smaller units take two or
 * four turns. The group's scale is looked up once a unit, its row by a multiply (ak_div31: cm, cs) when the
 * tensor has under 2^31 elements. Measured on the H100 (bench/NOTES.md): 8 codes a unit was 2-3% slower per
 * row at 8192 wide than 16; the row by a 32-bit division, 8% slower for f32 rows than by the multiply. */
template <int F, class D>
AK_INLINE void ak_dequant_impl(const ak_u8* q, typename D::T* y, ak_i64 rows, ak_i64 cols, int mode, const float* scale,
                                ak_u32 cm, int cs) {
    enum { V = AK_V16(D) };
    const ak_i64 n = rows * cols, nb = (cols + AK_QUANT_BLOCK_COLS - 1) / AK_QUANT_BLOCK_COLS;
    const bool narrow = n <= 0x7FFFFFFF;
    ak_div31 dc;
    dc.m = cm;
    dc.s = cs;
    const float s0 = scale[0];
    auto scale_at = [&](ak_i64 i) -> float {
        if (mode == AK_QUANT_TENSOR) return s0;
        const ak_i64 r = narrow ? (ak_i64)ak_div31_div(dc, (ak_u32)i) : i / cols;
        return mode == AK_QUANT_ROW ? scale[r] : scale[r * nb + (i - r * cols) / AK_QUANT_BLOCK_COLS];
    };
    auto one = [&](ak_i64 i) { y[i] = D::from(scale_at(i) * ak_fp8_dec<F>(q[i])); };
    const ak_u64 qa = (ak_u64)q, ya = (ak_u64)y;
    const ak_i64 w = mode == AK_QUANT_TENSOR ? 16 : cols; /* what a unit must divide */
    if (D::SIZE == 2 && w % 16 == 0 && (qa & 15u) == 0 && (ya & 15u) == 0)
        ak_quant_map<D, 16>(n, true, [&](ak_i64 i0, ak_i64 i1) { ak_dequant_pair<F, D, 16>(q, y, i0, i1, scale_at); }, one);
    else if (w % V == 0 && (qa & (ak_u64)(V - 1)) == 0 && (ya & 15u) == 0)
        ak_quant_map<D, V>(n, true, [&](ak_i64 i0, ak_i64 i1) { ak_dequant_pair<F, D, V>(q, y, i0, i1, scale_at); }, one);
    else if (D::SIZE == 2 && w % 4 == 0 && (qa & 3u) == 0 && (ya & 7u) == 0)
        ak_quant_map<D, 4>(n, true, [&](ak_i64 i0, ak_i64 i1) { ak_dequant_pair<F, D, 4>(q, y, i0, i1, scale_at); }, one);
    else
        for (ak_i64 i = ak_gtid(); i < n; i += ak_gstride()) one(i);
}

/* K / V rows of an attention cache (ak_attention with fp8 K / V on the paths without an fp8 kernel):
 * y[bb][h][r][c] = s[h] q[bb s0 + h s1 + r s2 + c] (s NULL: 1), y contiguous [nb][heads][rows][cols] */
template <int F, class D>
AK_INLINE void ak_dequant_kv_impl(const ak_u8* q, typename D::T* y, ak_i64 nb, ak_i64 heads, ak_i64 rows, ak_i64 cols,
                                  ak_i64 s0, ak_i64 s1, ak_i64 s2, const float* scale) {
    const ak_i64 n = nb * heads * rows * cols;
    for (ak_i64 i = ak_gtid(); i < n; i += ak_gstride()) {
        ak_i64 t = i / cols;
        const ak_i64 c = i - t * cols, r = t % rows;
        t /= rows;
        const ak_i64 h = t % heads, bb = t / heads;
        y[i] = D::from((scale ? scale[h] : 1.0f) * ak_fp8_dec<F>(q[bb * s0 + h * s1 + r * s2 + c]));
    }
}

// NVIDIA: the row and 1 x 128 block kernels at most 64 registers (2048 threads' worth of blocks an SM: 64 bytes of
// loads in flight a thread); the AMD compilers keep their own choice
#if defined(AK_NVIDIA)
#define AK_QUANT_MINB 4
#define AK_QUANT_ROW_MINB 2
#else
#define AK_QUANT_MINB 1
#define AK_QUANT_ROW_MINB 1
#endif
#define AK_QUANT(DN, D, FN, F)                                                                                            \
    AK_KERNEL __launch_bounds__(AK_QUANT_THREADS) void ak_quant_##DN##_##FN(const D::T* x, ak_u8* q, ak_i64 rows, ak_i64 cols, int mode, float* scale, int compute, float* amax, const float* amax_in) { \
        (void)mode;                                                                                                      \
        AK_KONLY(ak_quant_##DN##_##FN) ak_quant_impl<D, F, AK_QUANT_TENSOR>(x, q, rows, cols, scale, compute, amax, amax_in);                           \
    }                                                                                                                    \
    AK_KERNEL __launch_bounds__(AK_QUANT_ROW_THREADS, AK_QUANT_ROW_MINB) void ak_quant_row_##DN##_##FN(const D::T* x, ak_u8* q, ak_i64 rows, ak_i64 cols, int mode, float* scale, int compute, float* amax, const float* amax_in) { \
        (void)mode;                                                                                                      \
        AK_KONLY(ak_quant_row_##DN##_##FN) ak_quant_impl<D, F, AK_QUANT_ROW>(x, q, rows, cols, scale, compute, amax, amax_in);                              \
    }                                                                                                                    \
    AK_KERNEL __launch_bounds__(AK_QUANT_THREADS, AK_QUANT_MINB) void ak_quant_block_##DN##_##FN(const D::T* x, ak_u8* q, ak_i64 rows, ak_i64 cols, int mode, float* scale, int compute, float* amax, const float* amax_in) { \
        (void)mode;                                                                                                      \
        AK_KONLY(ak_quant_block_##DN##_##FN) ak_quant_impl<D, F, AK_QUANT_BLOCK>(x, q, rows, cols, scale, compute, amax, amax_in);                            \
    }                                                                                                                    \
    AK_KERNEL __launch_bounds__(AK_QUANT_ONE_THREADS) void ak_quant_tensor_##DN##_##FN(const D::T* x, ak_u8* q, ak_i64 n, float* scale, float* amax, unsigned* ws) { \
        AK_KONLY(ak_quant_tensor_##DN##_##FN) ak_quant_tensor_impl<D, F>(x, q, n, scale, amax, ws);                                                            \
    }
#define AK_DEQUANT(DN, D, FN, F)                                                                                          \
    AK_KERNEL __launch_bounds__(AK_QUANT_THREADS) void ak_dequant_##FN##_##DN(const ak_u8* q, D::T* y, ak_i64 rows, ak_i64 cols, int mode, const float* scale, unsigned cm, int cs) { \
        AK_KONLY(ak_dequant_##FN##_##DN) ak_dequant_impl<F, D>(q, y, rows, cols, mode, scale, cm, cs);                                                            \
    }
#define AK_DEQUANT_KV(DN, D, FN, F)                                                                                       \
    AK_KERNEL __launch_bounds__(AK_QUANT_THREADS) void ak_dequant_kv_##FN##_##DN(const ak_u8* q, D::T* y, ak_i64 nb, ak_i64 heads, ak_i64 rows, ak_i64 cols, ak_i64 s0, ak_i64 s1, ak_i64 s2, const float* scale) { \
        AK_KONLY(ak_dequant_kv_##FN##_##DN) ak_dequant_kv_impl<F, D>(q, y, nb, heads, rows, cols, s0, s1, s2, scale);                                        \
    }
#define AK_QUANT_AMAX(DN, D)                                                                                              \
    AK_KERNEL __launch_bounds__(AK_QUANT_THREADS) void ak_quant_amax_##DN(const D::T* x, ak_i64 n, float* amax) {       \
        AK_KONLY(ak_quant_amax_##DN) ak_quant_amax_impl<D>(x, n, amax);                                                                               \
    }
#define AK_QUANT_FORMATS(DN, D)                                                                      \
    AK_QUANT(DN, D, e4m3, AK_FP8_FMT_E4M3) AK_QUANT(DN, D, e5m2, AK_FP8_FMT_E5M2)                   \
    AK_QUANT(DN, D, e4m3_fnuz, AK_FP8_FMT_E4M3_FNUZ) AK_QUANT(DN, D, e5m2_fnuz, AK_FP8_FMT_E5M2_FNUZ) \
    AK_DEQUANT(DN, D, e4m3, AK_FP8_FMT_E4M3) AK_DEQUANT(DN, D, e5m2, AK_FP8_FMT_E5M2)               \
    AK_DEQUANT(DN, D, e4m3_fnuz, AK_FP8_FMT_E4M3_FNUZ) AK_DEQUANT(DN, D, e5m2_fnuz, AK_FP8_FMT_E5M2_FNUZ) \
    AK_DEQUANT_KV(DN, D, e4m3, AK_FP8_FMT_E4M3) AK_DEQUANT_KV(DN, D, e5m2, AK_FP8_FMT_E5M2)       \
    AK_QUANT_AMAX(DN, D)
// kernels: ak_quant_f32_e4m3 ak_quant_f32_e5m2 ak_quant_f32_e4m3_fnuz ak_quant_f32_e5m2_fnuz
// kernels: ak_quant_f16_e4m3 ak_quant_f16_e5m2 ak_quant_f16_e4m3_fnuz ak_quant_f16_e5m2_fnuz
// kernels: ak_quant_bf16_e4m3 ak_quant_bf16_e5m2 ak_quant_bf16_e4m3_fnuz ak_quant_bf16_e5m2_fnuz
// kernels: ak_quant_row_f32_e4m3 ak_quant_row_f32_e5m2 ak_quant_row_f32_e4m3_fnuz ak_quant_row_f32_e5m2_fnuz
// kernels: ak_quant_row_f16_e4m3 ak_quant_row_f16_e5m2 ak_quant_row_f16_e4m3_fnuz ak_quant_row_f16_e5m2_fnuz
// kernels: ak_quant_row_bf16_e4m3 ak_quant_row_bf16_e5m2 ak_quant_row_bf16_e4m3_fnuz ak_quant_row_bf16_e5m2_fnuz
// kernels: ak_quant_block_f32_e4m3 ak_quant_block_f32_e5m2 ak_quant_block_f32_e4m3_fnuz ak_quant_block_f32_e5m2_fnuz
// kernels: ak_quant_block_f16_e4m3 ak_quant_block_f16_e5m2 ak_quant_block_f16_e4m3_fnuz ak_quant_block_f16_e5m2_fnuz
// kernels: ak_quant_block_bf16_e4m3 ak_quant_block_bf16_e5m2 ak_quant_block_bf16_e4m3_fnuz ak_quant_block_bf16_e5m2_fnuz
// kernels: ak_quant_tensor_f32_e4m3 ak_quant_tensor_f32_e5m2 ak_quant_tensor_f32_e4m3_fnuz ak_quant_tensor_f32_e5m2_fnuz
// kernels: ak_quant_tensor_f16_e4m3 ak_quant_tensor_f16_e5m2 ak_quant_tensor_f16_e4m3_fnuz ak_quant_tensor_f16_e5m2_fnuz
// kernels: ak_quant_tensor_bf16_e4m3 ak_quant_tensor_bf16_e5m2 ak_quant_tensor_bf16_e4m3_fnuz ak_quant_tensor_bf16_e5m2_fnuz
// kernels: ak_dequant_e4m3_f32 ak_dequant_e5m2_f32 ak_dequant_e4m3_fnuz_f32 ak_dequant_e5m2_fnuz_f32
// kernels: ak_dequant_e4m3_f16 ak_dequant_e5m2_f16 ak_dequant_e4m3_fnuz_f16 ak_dequant_e5m2_fnuz_f16
// kernels: ak_dequant_e4m3_bf16 ak_dequant_e5m2_bf16 ak_dequant_e4m3_fnuz_bf16 ak_dequant_e5m2_fnuz_bf16
// kernels: ak_dequant_kv_e4m3_f32 ak_dequant_kv_e5m2_f32 ak_dequant_kv_e4m3_f16 ak_dequant_kv_e5m2_f16
// kernels: ak_dequant_kv_e4m3_bf16 ak_dequant_kv_e5m2_bf16
// kernels: ak_quant_amax_f32 ak_quant_amax_f16 ak_quant_amax_bf16
AK_QUANT_FORMATS(f32, ak_f32_t)
AK_QUANT_FORMATS(f16, ak_f16_t)
AK_QUANT_FORMATS(bf16, ak_bf16_t)
