/* kernels/cast.hip: dtype conversion between f32, f16 and bf16 (all six
 * directions, round to nearest even) and the bit-exact copy of each dtype.
 * 1-D grid-stride over tiles (ak_map8) with coalesced vector accesses when
 * both pointers are 16-byte aligned, scalar otherwise. The buffers must not
 * overlap. Host wrappers: ak_cast / ak_copy in amdkit.h (>>impl:ops-elementwise). */

template <class S, class D>
AK_INLINE void ak_cast_impl(const typename S::T* x, typename D::T* y, ak_i64 n) {
    const bool split = S::SIZE == 4 || D::SIZE == 4;  /* an f32 side: coalesce its 16-byte accesses */
    ak_map8<split>(n, ak_aligned16(x) && ak_aligned16(y),
        [&](ak_i64 i0, ak_i64 i1) {
            float f[8];
            ak_ld8<S, split>(x, i0, i1, f);
            ak_st8<D, split>(y, i0, i1, f);
        },
        [&](ak_i64 i) { y[i] = D::from(S::to(x[i])); });
}
AK_KERNEL void ak_cast_f32_f16(const float* x, ak_half* y, ak_i64 n) { ak_cast_impl<ak_f32_t, ak_f16_t>(x, y, n); }
AK_KERNEL void ak_cast_f32_bf16(const float* x, ak_bf16* y, ak_i64 n) { ak_cast_impl<ak_f32_t, ak_bf16_t>(x, y, n); }
AK_KERNEL void ak_cast_f16_f32(const ak_half* x, float* y, ak_i64 n) { ak_cast_impl<ak_f16_t, ak_f32_t>(x, y, n); }
AK_KERNEL void ak_cast_f16_bf16(const ak_half* x, ak_bf16* y, ak_i64 n) { ak_cast_impl<ak_f16_t, ak_bf16_t>(x, y, n); }
AK_KERNEL void ak_cast_bf16_f32(const ak_bf16* x, float* y, ak_i64 n) { ak_cast_impl<ak_bf16_t, ak_f32_t>(x, y, n); }
AK_KERNEL void ak_cast_bf16_f16(const ak_bf16* x, ak_half* y, ak_i64 n) { ak_cast_impl<ak_bf16_t, ak_f16_t>(x, y, n); }

/* Bit-exact copy (no conversion, NaN payloads kept): 16-byte units, two per
 * step, then the elements of the tail. */
template <class T>
AK_INLINE void ak_copy_impl(const T* x, T* y, ak_i64 n) {
    const int per = 16 / (int)sizeof(T);
    const ak_i64 tid = ak_gtid(), stride = ak_gstride();
    ak_i64 done = 0;
    if (ak_aligned16(x) && ak_aligned16(y)) {
        const ak_i64 nv = n / per;
        const uint4* xv = (const uint4*)x;
        uint4* yv = (uint4*)y;
        ak_i64 c = tid;
        for (; c + stride < nv; c += 2 * stride) {
            const uint4 a = xv[c], b = xv[c + stride];
            yv[c] = a;
            yv[c + stride] = b;
        }
        if (c < nv) yv[c] = xv[c];
        done = nv * per;
    }
    for (ak_i64 i = done + tid; i < n; i += stride) y[i] = x[i];
}
AK_KERNEL void ak_copy_f32(const float* x, float* y, ak_i64 n) { ak_copy_impl<float>(x, y, n); }
AK_KERNEL void ak_copy_f16(const ak_half* x, ak_half* y, ak_i64 n) { ak_copy_impl<ak_half>(x, y, n); }
AK_KERNEL void ak_copy_bf16(const ak_bf16* x, ak_bf16* y, ak_i64 n) { ak_copy_impl<ak_bf16>(x, y, n); }
