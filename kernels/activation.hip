/* kernels/activation.hip: unary activations y = f(x) for f32, f16 and bf16
 * storage, fp32 math: every ak_unary_op of amdkit.h (relu, leaky_relu, sigmoid,
 * tanh, silu, gelu in both forms, elu, selu, hardsigmoid, hardtanh, softplus,
 * softsign, hardswish, mish, abs, square) with its one or two parameters. One kernel per dtype; the op code
 * (ak_unary_op of amdkit.h) picks the loop once, outside it. NaN inputs give
 * NaN outputs (relu and leaky_relu too). In-place (y == x) is fine.
 * Host wrapper: ak_unary in amdkit.h (>>impl:ops-elementwise). */

/* the ops (AK_UNARY_* codes and ak_uop_* functors) are in the prelude: GEMM
 * epilogues use them too */

template <class D, class OP>
AK_INLINE void ak_unary_body(const typename D::T* x, typename D::T* y, ak_i64 n, float p, float q) {
    ak_map8<D::SIZE == 4>(n, ak_aligned16(x) && ak_aligned16(y),
        [&](ak_i64 i0, ak_i64 i1) {
            float a[8];
            ak_ld8<D, D::SIZE == 4>(x, i0, i1, a);
            for (int k = 0; k < 8; k++) a[k] = OP::f(a[k], p, q);
            ak_st8<D, D::SIZE == 4>(y, i0, i1, a);
        },
        [&](ak_i64 i) { y[i] = D::from(OP::f(D::to(x[i]), p, q)); });
}
template <class D>
AK_INLINE void ak_unary_impl(const typename D::T* x, typename D::T* y, ak_i64 n, int op, float p, float q) {
    switch (op) {
#define AK_UNARY_CASE(CODE, OP) \
    case CODE: ak_unary_body<D, OP>(x, y, n, p, q); break;
        AK_UOP_LIST(AK_UNARY_CASE)
#undef AK_UNARY_CASE
    default: break; /* AK_UNARY_NONE is a copy: the host sends it to ak_copy */
    }
}
AK_KERNEL void ak_unary_f32(const float* x, float* y, ak_i64 n, int op, float param, float param2) {
    ak_unary_impl<ak_f32_t>(x, y, n, op, param, param2);
}
AK_KERNEL void ak_unary_f16(const ak_half* x, ak_half* y, ak_i64 n, int op, float param, float param2) {
    ak_unary_impl<ak_f16_t>(x, y, n, op, param, param2);
}
AK_KERNEL void ak_unary_bf16(const ak_bf16* x, ak_bf16* y, ak_i64 n, int op, float param, float param2) {
    ak_unary_impl<ak_bf16_t>(x, y, n, op, param, param2);
}
