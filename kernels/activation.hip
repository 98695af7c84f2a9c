/* kernels/activation.hip: unary activations y = f(x) for f32, f16 and bf16
 * storage, fp32 math: relu, leaky_relu (slope = param), sigmoid, tanh, silu,
 * gelu (erf form) and gelu (tanh form). One kernel per dtype; the op code
 * (ak_unary_op of amdkit.h) picks the loop once, outside it. NaN inputs give
 * NaN outputs (relu and leaky_relu too). In-place (y == x) is fine.
 * Host wrapper: ak_unary in amdkit.h (>>impl:ops-elementwise). */

#define AK_UNARY_RELU 0
#define AK_UNARY_LEAKY_RELU 1
#define AK_UNARY_SIGMOID 2
#define AK_UNARY_TANH 3
#define AK_UNARY_SILU 4
#define AK_UNARY_GELU 5
#define AK_UNARY_GELU_TANH 6

struct ak_uop_relu { static AK_INLINE float f(float x, float) { return x < 0.0f ? 0.0f : x; } };
struct ak_uop_leaky { static AK_INLINE float f(float x, float s) { return x < 0.0f ? x * s : x; } };
struct ak_uop_sigmoid { static AK_INLINE float f(float x, float) { return 1.0f / (1.0f + expf(-x)); } };
struct ak_uop_tanh { static AK_INLINE float f(float x, float) { return tanhf(x); } };
struct ak_uop_silu { static AK_INLINE float f(float x, float) { return x / (1.0f + expf(-x)); } };
/* erf for gelu: Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7), one fast exp
 * and one fast reciprocal; erff cost 5% of bandwidth on H100 for f16/bf16 */
AK_INLINE float ak_erf_as(float x) {
    const float a = fabsf(x);
    const float t = __fdividef(1.0f, 1.0f + 0.3275911f * a);
    const float p = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t + 0.254829592f) * t;
    const float r = 1.0f - p * __expf(-a * a);
    return x < 0.0f ? -r : r;
}
struct ak_uop_gelu {
    /* 0.5 x (1 + erf(x / sqrt(2))) */
    static AK_INLINE float f(float x, float) { return 0.5f * x * (1.0f + ak_erf_as(x * 0.70710678118654752f)); }
};
struct ak_uop_gelu_tanh {
    /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    static AK_INLINE float f(float x, float) {
        const float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
        return 0.5f * x * (1.0f + tanhf(u));
    }
};

template <class D, class OP>
AK_INLINE void ak_unary_body(const typename D::T* x, typename D::T* y, ak_i64 n, float p) {
    ak_map8<D::SIZE == 4>(n, ak_aligned16(x) && ak_aligned16(y),
        [&](ak_i64 i0, ak_i64 i1) {
            float a[8];
            ak_ld8<D, D::SIZE == 4>(x, i0, i1, a);
            for (int k = 0; k < 8; k++) a[k] = OP::f(a[k], p);
            ak_st8<D, D::SIZE == 4>(y, i0, i1, a);
        },
        [&](ak_i64 i) { y[i] = D::from(OP::f(D::to(x[i]), p)); });
}
template <class D>
AK_INLINE void ak_unary_impl(const typename D::T* x, typename D::T* y, ak_i64 n, int op, float p) {
    switch (op) {
    case AK_UNARY_RELU: ak_unary_body<D, ak_uop_relu>(x, y, n, p); break;
    case AK_UNARY_LEAKY_RELU: ak_unary_body<D, ak_uop_leaky>(x, y, n, p); break;
    case AK_UNARY_SIGMOID: ak_unary_body<D, ak_uop_sigmoid>(x, y, n, p); break;
    case AK_UNARY_TANH: ak_unary_body<D, ak_uop_tanh>(x, y, n, p); break;
    case AK_UNARY_SILU: ak_unary_body<D, ak_uop_silu>(x, y, n, p); break;
    case AK_UNARY_GELU: ak_unary_body<D, ak_uop_gelu>(x, y, n, p); break;
    default: ak_unary_body<D, ak_uop_gelu_tanh>(x, y, n, p); break;
    }
}
AK_KERNEL void ak_unary_f32(const float* x, float* y, ak_i64 n, int op, float param) {
    ak_unary_impl<ak_f32_t>(x, y, n, op, param);
}
AK_KERNEL void ak_unary_f16(const ak_half* x, ak_half* y, ak_i64 n, int op, float param) {
    ak_unary_impl<ak_f16_t>(x, y, n, op, param);
}
AK_KERNEL void ak_unary_bf16(const ak_bf16* x, ak_bf16* y, ak_i64 n, int op, float param) {
    ak_unary_impl<ak_bf16_t>(x, y, n, op, param);
}
