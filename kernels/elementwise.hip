/* kernels/elementwise.hip: fill, axpy, scale and the binary ops (add, sub,
 * mul, div) for f32, f16 and bf16 storage, fp32 math.
 *
 * All kernels: 1-D grid-stride over tiles of 8 x blockDim elements with
 * 16-byte (f32) / 8- or 16-byte (halves) coalesced accesses when every pointer
 * is 16-byte aligned (ak_map8; scalar loop otherwise and for the tail).
 * In-place use (an output equal to an input) is fine: each element is read
 * and written by one thread. Host wrappers:
 * amdkit.h (>>impl:ops-elementwise) (ak_fill, ak_axpy, ak_scale, ak_binary). */

/* y[i] = value (rounded once to the storage type) */
template <class D>
AK_INLINE void ak_fill_impl(typename D::T* y, ak_i64 n, float value) {
    typedef typename D::T T;
    const T v = D::from(value);
    const float fv = D::to(v);
    ak_map8<D::SIZE == 4>(n, ak_aligned16(y),
        [&](ak_i64 i0, ak_i64 i1) {
            float f[8];
            for (int k = 0; k < 8; k++) f[k] = fv;
            ak_st8<D, D::SIZE == 4>(y, i0, i1, f);
        },
        [&](ak_i64 i) { y[i] = v; });
}
AK_KERNEL void ak_fill_f32(float* y, ak_i64 n, float value) { ak_fill_impl<ak_f32_t>(y, n, value); }
AK_KERNEL void ak_fill_f16(ak_half* y, ak_i64 n, float value) { ak_fill_impl<ak_f16_t>(y, n, value); }
AK_KERNEL void ak_fill_bf16(ak_bf16* y, ak_i64 n, float value) { ak_fill_impl<ak_bf16_t>(y, n, value); }

/* y[i] = alpha * x[i] + y[i] */
template <class D>
AK_INLINE void ak_axpy_impl(ak_i64 n, float alpha, const typename D::T* x, typename D::T* y) {
    ak_map8<D::SIZE == 4>(n, ak_aligned16(x) && ak_aligned16(y),
        [&](ak_i64 i0, ak_i64 i1) {
            float a[8], b[8];
            ak_ld8<D, D::SIZE == 4>(x, i0, i1, a);
            ak_ld8<D, D::SIZE == 4>(y, i0, i1, b);
            for (int k = 0; k < 8; k++) b[k] = alpha * a[k] + b[k];
            ak_st8<D, D::SIZE == 4>(y, i0, i1, b);
        },
        [&](ak_i64 i) { y[i] = D::from(alpha * D::to(x[i]) + D::to(y[i])); });
}
AK_KERNEL void ak_axpy_f32(ak_i64 n, float alpha, const float* x, float* y) { ak_axpy_impl<ak_f32_t>(n, alpha, x, y); }
AK_KERNEL void ak_axpy_f16(ak_i64 n, float alpha, const ak_half* x, ak_half* y) { ak_axpy_impl<ak_f16_t>(n, alpha, x, y); }
AK_KERNEL void ak_axpy_bf16(ak_i64 n, float alpha, const ak_bf16* x, ak_bf16* y) { ak_axpy_impl<ak_bf16_t>(n, alpha, x, y); }

/* y[i] = alpha * x[i] */
template <class D>
AK_INLINE void ak_scale_impl(ak_i64 n, float alpha, const typename D::T* x, typename D::T* y) {
    ak_map8<D::SIZE == 4>(n, ak_aligned16(x) && ak_aligned16(y),
        [&](ak_i64 i0, ak_i64 i1) {
            float a[8];
            ak_ld8<D, D::SIZE == 4>(x, i0, i1, a);
            for (int k = 0; k < 8; k++) a[k] = alpha * a[k];
            ak_st8<D, D::SIZE == 4>(y, i0, i1, a);
        },
        [&](ak_i64 i) { y[i] = D::from(alpha * D::to(x[i])); });
}
AK_KERNEL void ak_scale_f32(ak_i64 n, float alpha, const float* x, float* y) { ak_scale_impl<ak_f32_t>(n, alpha, x, y); }
AK_KERNEL void ak_scale_f16(ak_i64 n, float alpha, const ak_half* x, ak_half* y) { ak_scale_impl<ak_f16_t>(n, alpha, x, y); }
AK_KERNEL void ak_scale_bf16(ak_i64 n, float alpha, const ak_bf16* x, ak_bf16* y) { ak_scale_impl<ak_bf16_t>(n, alpha, x, y); }

/* z[i] = x[i] op y[i]; op codes are ak_binary_op of amdkit.h */
#define AK_BINARY_ADD 0
#define AK_BINARY_SUB 1
#define AK_BINARY_MUL 2
#define AK_BINARY_DIV 3
struct ak_bop_add { static AK_INLINE float f(float a, float b) { return a + b; } };
struct ak_bop_sub { static AK_INLINE float f(float a, float b) { return a - b; } };
struct ak_bop_mul { static AK_INLINE float f(float a, float b) { return a * b; } };
struct ak_bop_div { static AK_INLINE float f(float a, float b) { return a / b; } };

template <class D, class OP>
AK_INLINE void ak_binary_body(const typename D::T* x, const typename D::T* y, typename D::T* z, ak_i64 n) {
    ak_map8<D::SIZE == 4>(n, ak_aligned16(x) && ak_aligned16(y) && ak_aligned16(z),
        [&](ak_i64 i0, ak_i64 i1) {
            float a[8], b[8];
            ak_ld8<D, D::SIZE == 4>(x, i0, i1, a);
            ak_ld8<D, D::SIZE == 4>(y, i0, i1, b);
            for (int k = 0; k < 8; k++) a[k] = OP::f(a[k], b[k]);
            ak_st8<D, D::SIZE == 4>(z, i0, i1, a);
        },
        [&](ak_i64 i) { z[i] = D::from(OP::f(D::to(x[i]), D::to(y[i]))); });
}
template <class D>
AK_INLINE void ak_binary_impl(const typename D::T* x, const typename D::T* y, typename D::T* z, ak_i64 n, int op) {
    switch (op) {
    case AK_BINARY_ADD: ak_binary_body<D, ak_bop_add>(x, y, z, n); break;
    case AK_BINARY_SUB: ak_binary_body<D, ak_bop_sub>(x, y, z, n); break;
    case AK_BINARY_MUL: ak_binary_body<D, ak_bop_mul>(x, y, z, n); break;
    default: ak_binary_body<D, ak_bop_div>(x, y, z, n); break;
    }
}
AK_KERNEL void ak_binary_f32(const float* x, const float* y, float* z, ak_i64 n, int op) {
    ak_binary_impl<ak_f32_t>(x, y, z, n, op);
}
AK_KERNEL void ak_binary_f16(const ak_half* x, const ak_half* y, ak_half* z, ak_i64 n, int op) {
    ak_binary_impl<ak_f16_t>(x, y, z, n, op);
}
AK_KERNEL void ak_binary_bf16(const ak_bf16* x, const ak_bf16* y, ak_bf16* z, ak_i64 n, int op) {
    ak_binary_impl<ak_bf16_t>(x, y, z, n, op);
}
