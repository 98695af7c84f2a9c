// kernels/layout.hip - data movement: strided N-dimensional copy (with a
// dtype cast on the way) and embedding gather. Host wrappers: ak_copy_strided
// and ak_embedding in amdkit.h (>>impl:ops-llm), which also hold the CPU
// references and do the planning described here.
//
// Both kernels see their work as `rows` of `inner` units, a group of G
// threads per row (G a power of two <= the block), blockDim / G rows per
// block, grid-stride over rows; each thread moves units lane, lane + G, ...
// of its row.
//
// ak_copy_nd_<unit> (bit copy; unit u8 / u16 / u32 / u64 / u128 = 1..16
// bytes): the host has dropped size-1 dimensions, ordered the dimensions by
// decreasing destination stride, merged the ones that are contiguous in both
// tensors, and, when the innermost dimension is contiguous in both, re-cut it
// into the widest unit that the row bytes, the pointers and the outer strides
// allow (16 bytes for any aligned contiguous slice). A row is one index of
// the outer dimensions (at most 5: decomposed once per row, 32-bit division
// while the row count fits), optionally split into chunks of `chunk` units
// so a long contiguous row still spreads over many blocks. Strides are in
// units and may be negative or 0 (source only).
// ak_copy_cast_<src>_<dst> (cast between f32 / f16 / bf16, fp32 in between,
// round to nearest even): the same walk in elements; vec != 0 (innermost
// contiguous in both, its length and the outer strides multiples of 4, the
// pointers aligned to 4 elements) moves 4 elements per unit.
// ak_copy_cast_i32_i64 / ak_copy_cast_i64_i32: the same walk with integer
// conversions (sign extension; the low 32 bits, i.e. modulo 2^32).
//
// ak_embedding_<unit>: row i of the output is row idx[i] of the table (units
// of the widest size that divides the row bytes and the pointers; groups of
// about a quarter of a row's units, 4 loads in flight per thread); an index
// outside [0, vocab) zero-fills its output row (the documented GPU result;
// the cpu backend reports it as an error).
//
// kernels: ak_copy_nd_u8 ak_copy_nd_u16 ak_copy_nd_u32 ak_copy_nd_u64 ak_copy_nd_u128
// kernels: ak_copy_cast_f32_f16 ak_copy_cast_f32_bf16 ak_copy_cast_f16_f32 ak_copy_cast_bf16_f32
// kernels: ak_copy_cast_f16_bf16 ak_copy_cast_bf16_f16 ak_copy_cast_i32_i64 ak_copy_cast_i64_i32
// kernels: ak_embedding_u8 ak_embedding_u16 ak_embedding_u32 ak_embedding_u64 ak_embedding_u128

#define AK_ND_OUTER 5

AK_INLINE void ak_zero_unit(ak_u8& v) { v = 0; }
AK_INLINE void ak_zero_unit(ak_u16& v) { v = 0; }
AK_INLINE void ak_zero_unit(ak_u32& v) { v = 0; }
AK_INLINE void ak_zero_unit(ak_u64& v) { v = 0; }
AK_INLINE void ak_zero_unit(uint4& v) { v.x = 0; v.y = 0; v.z = 0; v.w = 0; }

// The outer dimensions of a copy (sizes and both strides, innermost last).
struct ak_nd_outer {
    ak_i64 sz[AK_ND_OUTER], ss[AK_ND_OUTER], ds[AK_ND_OUTER];
    int nd;
};

// Source and destination offsets of outer index q.
AK_INLINE void ak_nd_offsets(const ak_nd_outer& o, ak_i64 q, bool small, ak_i64& so, ak_i64& dof) {
    so = 0;
    dof = 0;
    if (small) {
        ak_u32 r = (ak_u32)q;
#pragma unroll
        for (int d = AK_ND_OUTER - 1; d >= 0; d--) {
            if (d < o.nd) {
                const ak_u32 n = (ak_u32)o.sz[d], c = r % n;
                r /= n;
                so += (ak_i64)c * o.ss[d];
                dof += (ak_i64)c * o.ds[d];
            }
        }
    } else {
#pragma unroll
        for (int d = AK_ND_OUTER - 1; d >= 0; d--) {
            if (d < o.nd) {
                const ak_i64 c = q % o.sz[d];
                q /= o.sz[d];
                so += c * o.ss[d];
                dof += c * o.ds[d];
            }
        }
    }
}

// The row walk shared by both copy kernels: calls f(src offset, dst offset,
// unit index in the row) for every unit of this thread (iss / ids: the
// innermost strides in the functor's pointer units).
template <class F>
AK_INLINE void ak_nd_walk(const ak_nd_outer& o, ak_i64 rows, ak_i64 inner, ak_i64 chunk, ak_i64 iss, ak_i64 ids,
                          int G, F f) {
    const ak_i64 nchunk = (inner + chunk - 1) / chunk, vrows = rows * nchunk;
    const int lane = (int)threadIdx.x & (G - 1);
    const ak_i64 per = (ak_i64)(blockDim.x / G);
    const bool small = rows <= 0xFFFFFFFFll;
    for (ak_i64 vr = (ak_i64)blockIdx.x * per + (ak_i64)(threadIdx.x / G); vr < vrows; vr += (ak_i64)gridDim.x * per) {
        const ak_i64 row = nchunk == 1 ? vr : vr / nchunk, c0 = (vr - row * nchunk) * chunk;
        const ak_i64 c1 = c0 + chunk < inner ? c0 + chunk : inner;
        ak_i64 so, dof;
        ak_nd_offsets(o, row, small, so, dof);
        for (ak_i64 u = c0 + lane; u < c1; u += G) f(so + u * iss, dof + u * ids, u);
    }
}

#define AK_ND_OUTER_INIT(o)                                                                                          \
    ak_nd_outer o;                                                                                                   \
    o.nd = nd;                                                                                                       \
    o.sz[0] = sz0; o.sz[1] = sz1; o.sz[2] = sz2; o.sz[3] = sz3; o.sz[4] = sz4;                                       \
    o.ss[0] = ss0; o.ss[1] = ss1; o.ss[2] = ss2; o.ss[3] = ss3; o.ss[4] = ss4;                                       \
    o.ds[0] = ds0; o.ds[1] = ds1; o.ds[2] = ds2; o.ds[3] = ds3; o.ds[4] = ds4

template <class U>
struct ak_nd_bits {
    const U* s;
    U* d;
    AK_INLINE void operator()(ak_i64 so, ak_i64 dof, ak_i64) const { d[dof] = s[so]; }
};

// vec: 4 consecutive elements per unit (the host passes inner strides of 4)
template <class S, class D>
struct ak_nd_cast {
    const typename S::T* s;
    typename D::T* d;
    bool vec;
    AK_INLINE void operator()(ak_i64 so, ak_i64 dof, ak_i64) const {
        if (vec) {
            float f[4];
            S::ld4(s + so, f);
            D::st4(d + dof, f);
        } else {
            d[dof] = D::from(S::to(s[so]));
        }
    }
};

// Integer casts i32 <-> i64 (sign-extend / keep the low 32 bits, as a C cast on
// two's complement); vec: 4 elements per unit (16-byte accesses: one for i32,
// two for i64).
AK_INLINE ak_i64 ak_icvt(int v, ak_i64) { return (ak_i64)v; }
AK_INLINE int ak_icvt(ak_i64 v, int) { return (int)(ak_u32)(ak_u64)v; }
AK_INLINE void ak_icvt4(const int* s, ak_i64* d) {
    const uint4 v = *(const uint4*)s;
    uint4 a, b;
    a.x = v.x; a.y = (ak_u32)((int)v.x >> 31); a.z = v.y; a.w = (ak_u32)((int)v.y >> 31);
    b.x = v.z; b.y = (ak_u32)((int)v.z >> 31); b.z = v.w; b.w = (ak_u32)((int)v.w >> 31);
    ((uint4*)d)[0] = a;
    ((uint4*)d)[1] = b;
}
AK_INLINE void ak_icvt4(const ak_i64* s, int* d) {
    const uint4 a = ((const uint4*)s)[0], b = ((const uint4*)s)[1];
    uint4 v;
    v.x = a.x; v.y = a.z; v.z = b.x; v.w = b.z;
    *(uint4*)d = v;
}
template <class ST, class DT>
struct ak_nd_icast {
    const ST* s;
    DT* d;
    bool vec;
    AK_INLINE void operator()(ak_i64 so, ak_i64 dof, ak_i64) const {
        if (vec) ak_icvt4(s + so, d + dof);
        else d[dof] = ak_icvt(s[so], DT());
    }
};

#define AK_COPY_ND_BITS(NAME, U)                                                                                     \
    AK_KERNEL __launch_bounds__(256) void ak_copy_nd_##NAME(                                                         \
        const U* src, U* dst, ak_i64 rows, ak_i64 inner, ak_i64 chunk, ak_i64 iss, ak_i64 ids,                       \
        int nd, ak_i64 sz0, ak_i64 sz1, ak_i64 sz2, ak_i64 sz3, ak_i64 sz4, ak_i64 ss0, ak_i64 ss1,                  \
        ak_i64 ss2, ak_i64 ss3, ak_i64 ss4, ak_i64 ds0, ak_i64 ds1, ak_i64 ds2, ak_i64 ds3, ak_i64 ds4, int G) {     \
        AK_ND_OUTER_INIT(o);                                                                                         \
        ak_nd_bits<U> f;                                                                                             \
        f.s = src;                                                                                                   \
        f.d = dst;                                                                                                   \
        ak_nd_walk(o, rows, inner, chunk, iss, ids, G, f);                                                           \
    }
AK_COPY_ND_BITS(u8, ak_u8)
AK_COPY_ND_BITS(u16, ak_u16)
AK_COPY_ND_BITS(u32, ak_u32)
AK_COPY_ND_BITS(u64, ak_u64)
AK_COPY_ND_BITS(u128, uint4)

// One strided cast kernel: source / destination element types ST / DT, the element functor FN<FA, FB>
// (ak_nd_cast over the float dtype structs, ak_nd_icast over the integer types).
#define AK_COPY_ND_CAST_K(SN, ST, DN, DT, FN, FA, FB)                                                                \
    AK_KERNEL __launch_bounds__(256) void ak_copy_cast_##SN##_##DN(                                                  \
        const ST* src, DT* dst, ak_i64 rows, ak_i64 inner, ak_i64 chunk, ak_i64 iss, ak_i64 ids,                     \
        int nd, ak_i64 sz0, ak_i64 sz1, ak_i64 sz2, ak_i64 sz3, ak_i64 sz4, ak_i64 ss0, ak_i64 ss1,                  \
        ak_i64 ss2, ak_i64 ss3, ak_i64 ss4, ak_i64 ds0, ak_i64 ds1, ak_i64 ds2, ak_i64 ds3, ak_i64 ds4, int G,       \
        int vec) {                                                                                                   \
        AK_ND_OUTER_INIT(o);                                                                                         \
        FN<FA, FB> f;                                                                                                \
        f.s = src;                                                                                                   \
        f.d = dst;                                                                                                   \
        f.vec = vec != 0;                                                                                            \
        ak_nd_walk(o, rows, inner, chunk, iss, ids, G, f);                                                           \
    }
#define AK_COPY_ND_CAST(SN, S, DN, D) AK_COPY_ND_CAST_K(SN, S::T, DN, D::T, ak_nd_cast, S, D)
AK_COPY_ND_CAST(f32, ak_f32_t, f16, ak_f16_t)
AK_COPY_ND_CAST(f32, ak_f32_t, bf16, ak_bf16_t)
AK_COPY_ND_CAST(f16, ak_f16_t, f32, ak_f32_t)
AK_COPY_ND_CAST(bf16, ak_bf16_t, f32, ak_f32_t)
AK_COPY_ND_CAST(f16, ak_f16_t, bf16, ak_bf16_t)
AK_COPY_ND_CAST(bf16, ak_bf16_t, f16, ak_f16_t)
#define AK_COPY_ND_ICAST(SN, ST, DN, DT) AK_COPY_ND_CAST_K(SN, ST, DN, DT, ak_nd_icast, ST, DT)
AK_COPY_ND_ICAST(i32, int, i64, ak_i64)
AK_COPY_ND_ICAST(i64, ak_i64, i32, int)

// out[i, :] = table[idx[i], :] in units of U (upr units per row); rows whose
// index is outside [0, vocab) are zero-filled.
#define AK_EMBEDDING(NAME, U)                                                                                        \
    AK_KERNEL __launch_bounds__(256) void ak_embedding_##NAME(const U* table, const void* idx, U* out, ak_i64 n,     \
                                                              ak_i64 vocab, ak_i64 upr, int G, int idx64) {          \
        const int lane = (int)threadIdx.x & (G - 1);                                                                 \
        const ak_i64 per = (ak_i64)(blockDim.x / G);                                                                 \
        for (ak_i64 i = (ak_i64)blockIdx.x * per + (ak_i64)(threadIdx.x / G); i < n; i += (ak_i64)gridDim.x * per) { \
            const ak_i64 k = idx64 ? ((const long long*)idx)[i] : (ak_i64)((const int*)idx)[i];                      \
            U* o = out + i * upr;                                                                                    \
            if (k >= 0 && k < vocab) {                                                                               \
                const U* s = table + k * upr;                                                                        \
                ak_i64 u = lane;                                                                                     \
                for (; u + 3 * G < upr; u += 4 * G) { /* 4 loads in flight, then the stores */                      \
                    const U a0 = s[u], a1 = s[u + G], a2 = s[u + 2 * G], a3 = s[u + 3 * G];                          \
                    o[u] = a0; o[u + G] = a1; o[u + 2 * G] = a2; o[u + 3 * G] = a3;                                  \
                }                                                                                                    \
                for (; u < upr; u += G) o[u] = s[u];                                                                 \
            } else {                                                                                                 \
                U z;                                                                                                 \
                ak_zero_unit(z);                                                                                     \
                for (ak_i64 u = lane; u < upr; u += G) o[u] = z;                                                     \
            }                                                                                                        \
        }                                                                                                            \
    }
AK_EMBEDDING(u8, ak_u8)
AK_EMBEDDING(u16, ak_u16)
AK_EMBEDDING(u32, ak_u32)
AK_EMBEDDING(u64, ak_u64)
AK_EMBEDDING(u128, uint4)
