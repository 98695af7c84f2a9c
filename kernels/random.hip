/* kernels/random.hip - counter-based random numbers (Philox4x32-10) and
 * dropout, for f32, f16 and bf16 storage. Host wrappers and the CPU
 * references: amdkit.h (>>impl:ops-random): ak_rand_uniform, ak_rand_normal,
 * ak_dropout.
 *
 * Stream layout (the same on every backend): element i of a call with
 * (seed, offset) takes word i % 4 of philox4x32_10(counter, key) with
 * counter = (lo32(offset + i / 4), hi32(offset + i / 4), 0, 0) and
 * key = (lo32(seed), hi32(seed)). Uniform: u = (word >> 8) * 2^-24 in [0, 1).
 * Normal: Box-Muller on the pairs (word 0, word 1) and (word 2, word 3) of a
 * counter: u1 = ((w_a >> 8) + 1) * 2^-24 in (0, 1], turns t = (w_b >> 8) *
 * 2^-24, r = sqrt(-2 ln u1), elements (r cos 2 pi t, r sin 2 pi t).
 *
 * BIT-IDENTICAL with the CPU reference: every float operation of the
 * transform is an explicit fused multiply-add (ak_xfma; a product is
 * fma(a, b, -0), a sum fma(a, 1, b)) and ln, sqrt, sin, cos are written here
 * from those (no libm, no __logf): NVIDIA through inline PTX fma.rn.f32
 * (immune to --use_fast_math's FTZ and contraction), AMD through
 * __builtin_fmaf with FP contraction off. The C side in amdkit.h repeats
 * the same sequence with fmaf(). Threads: one counter (4 elements) per step
 * of a grid-stride loop; 16-byte (f32) / 8-byte (halves) accesses when the
 * pointers allow. */

/* ---- exact float primitives ---------------------------------------------- */
#if defined(AK_NVIDIA)
AK_INLINE float ak_xfma(float a, float b, float c) {
    float d;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
    return d;
}
#else
AK_INLINE float ak_xfma(float a, float b, float c) {
#pragma clang fp contract(off)
    return __builtin_fmaf(a, b, c);
}
#endif
AK_INLINE float ak_xmul(float a, float b) { return ak_xfma(a, b, -0.0f); }  /* exact a * b, signed zeros included */
AK_INLINE float ak_xadd(float a, float b) { return ak_xfma(a, 1.0f, b); }

/* ---- Philox4x32-10 --------------------------------------------------------- */
AK_INLINE void ak_philox(ak_u32 c[4], ak_u32 k0, ak_u32 k1) {
#pragma unroll
    for (int r = 0; r < 10; r++) {
        const ak_u32 h0 = __umulhi(0xD2511F53u, c[0]), l0 = 0xD2511F53u * c[0];
        const ak_u32 h1 = __umulhi(0xCD9E8D57u, c[2]), l1 = 0xCD9E8D57u * c[2];
        const ak_u32 n0 = h1 ^ c[1] ^ k0, n2 = h0 ^ c[3] ^ k1;
        c[0] = n0; c[1] = l1; c[2] = n2; c[3] = l0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}
/* The same rounds with the key schedule precomputed (k0[r], k1[r]: the key of
 * round r): a thread that draws several counters adds the keys once. */
AK_INLINE void ak_philox_keys(ak_u64 seed, ak_u32 k0[10], ak_u32 k1[10]) {
    ak_u32 a = (ak_u32)seed, b = (ak_u32)(seed >> 32);
#pragma unroll
    for (int r = 0; r < 10; r++) { k0[r] = a; k1[r] = b; a += 0x9E3779B9u; b += 0xBB67AE85u; }
}
AK_INLINE void ak_philox_at_keyed(ak_u64 offset, ak_u64 j, const ak_u32 k0[10], const ak_u32 k1[10], ak_u32 c[4]) {
    const ak_u64 ctr = offset + j;
    c[0] = (ak_u32)ctr; c[1] = (ak_u32)(ctr >> 32); c[2] = 0u; c[3] = 0u;
#pragma unroll
    for (int r = 0; r < 10; r++) {
        const ak_u32 h0 = __umulhi(0xD2511F53u, c[0]), l0 = 0xD2511F53u * c[0];
        const ak_u32 h1 = __umulhi(0xCD9E8D57u, c[2]), l1 = 0xCD9E8D57u * c[2];
        const ak_u32 n0 = h1 ^ c[1] ^ k0[r], n2 = h0 ^ c[3] ^ k1[r];
        c[0] = n0; c[1] = l1; c[2] = n2; c[3] = l0;
    }
}
/* The 4 words of counter j of the stream (seed, offset). */
AK_INLINE void ak_philox_at(ak_u64 seed, ak_u64 offset, ak_u64 j, ak_u32 w[4]) {
    const ak_u64 c = offset + j;
    w[0] = (ak_u32)c; w[1] = (ak_u32)(c >> 32); w[2] = 0u; w[3] = 0u;
    ak_philox(w, (ak_u32)seed, (ak_u32)(seed >> 32));
}
/* [0, 1) with 24 random bits (exact). */
AK_INLINE float ak_philox_unit(ak_u32 w) { return ak_xmul((float)(w >> 8), 5.9604644775390625e-08f); }

/* ---- ln, sqrt, sincos from fma ------------------------------------------------ */
/* ln(u) for normal u > 0: u = m 2^e, m in [sqrt(1/2), sqrt(2)), f = m - 1,
 * s = f / (2 + f), ln m = 2s + 2s z P(z), z = s^2 <= 0.0295 (the atanh
 * series to z^4 / 9: the next term is below 2e-9 relative). 1 / (2 + f):
 * a quadratic minimax start on [1.707, 2.415] (relative error 1.3e-3), then
 * two Newton steps (about 1 ulp). */
AK_INLINE float ak_xlog(float u) {
    const ak_u32 b = __float_as_uint(u);
    int e = (int)(b >> 23) - 127;
    float m = __uint_as_float((b & 0x7FFFFFu) | 0x3F800000u);
    if (m > 1.41421356f) { m = ak_xmul(m, 0.5f); e += 1; }
    const float f = ak_xadd(m, -1.0f), d = ak_xadd(f, 2.0f);
    float y = ak_xfma(ak_xfma(0.116862893f, d, -0.722444117f), d, 1.47775590f);
#pragma unroll
    for (int i = 0; i < 2; i++) { const float er = ak_xfma(-d, y, 1.0f); y = ak_xfma(y, er, y); }
    const float s = ak_xmul(f, y), z = ak_xmul(s, s);
    float p = 0.111111111f;
    p = ak_xfma(p, z, 0.142857143f);
    p = ak_xfma(p, z, 0.2f);
    p = ak_xfma(p, z, 0.333333333f);
    const float s2 = ak_xmul(s, 2.0f), lm = ak_xfma(ak_xmul(s2, z), p, s2), fe = (float)e;
    return ak_xfma(fe, 0.693145751953125f, ak_xfma(fe, 1.42860677e-06f, lm));
}
/* sqrt(v), v >= 0 normal or 0: three Newton steps on 1/sqrt from the
 * magic-constant start (3.4e-2 -> 1.8e-3 -> 4.6e-6 -> 3e-11), then one
 * correction of v * y. */
AK_INLINE float ak_xsqrt(float v) {
    if (v == 0.0f) return 0.0f;
    float y = __uint_as_float(0x5F3759DFu - (__float_as_uint(v) >> 1));
    const float h = ak_xmul(v, 0.5f);
#pragma unroll
    for (int i = 0; i < 3; i++) y = ak_xmul(y, ak_xfma(-h, ak_xmul(y, y), 1.5f));
    const float r = ak_xmul(v, y);
    return ak_xfma(ak_xfma(-r, r, v), ak_xmul(y, 0.5f), r);
}
/* sin and cos of k * 2^-24 turns (k < 2^24): quarter-turn reduction in
 * integers (exact), then Taylor polynomials on |x| <= pi/4 (sin to x^9,
 * cos to x^10: the next terms are below 2e-9). */
AK_INLINE void ak_xsincos_turns(ak_u32 k, float* s, float* c) {
    const ak_u32 q = (k + (1u << 21)) >> 22;
    const int ri = (int)k - (int)(q << 22);
    /* ri 2^-22 (pi / 2) rounded once: ri 2^-22 is exact, so one product by (pi / 2) 2^-22 gives the same bits */
    const float x = ak_xmul((float)ri, 3.74507029e-07f), x2 = ak_xmul(x, x);
    float sp = 2.75573192e-06f;
    sp = ak_xfma(sp, x2, -1.98412698e-04f);
    sp = ak_xfma(sp, x2, 8.33333333e-03f);
    sp = ak_xfma(sp, x2, -1.66666667e-01f);
    const float sn = ak_xfma(ak_xmul(x, x2), sp, x);
    float cp = -2.75573192e-07f;
    cp = ak_xfma(cp, x2, 2.48015873e-05f);
    cp = ak_xfma(cp, x2, -1.38888889e-03f);
    cp = ak_xfma(cp, x2, 4.16666667e-02f);
    cp = ak_xfma(cp, x2, -0.5f);
    const float cs = ak_xfma(x2, cp, 1.0f);
    /* quadrant q: (sin, cos) = (sn, cs), (cs, -sn), (-sn, -cs), (-cs, sn); selects and sign flips, no
     * divergent branches (each lane has its own q) */
    const bool odd = (q & 1u) != 0u;
    const float s0 = odd ? cs : sn, c0 = odd ? sn : cs;
    *s = __uint_as_float(__float_as_uint(s0) ^ ((q & 2u) << 30));
    *c = __uint_as_float(__float_as_uint(c0) ^ (((q + 1u) & 2u) << 30));
}
/* Two standard normals from two words (Box-Muller). */
AK_INLINE void ak_box_muller(ak_u32 wa, ak_u32 wb, float* z0, float* z1) {
    const float u1 = ak_xmul((float)((wa >> 8) + 1u), 5.9604644775390625e-08f);
    const float r = ak_xsqrt(ak_xmul(ak_xlog(u1), -2.0f));
    float s, c;
    ak_xsincos_turns(wb >> 8, &s, &c);
    *z0 = ak_xmul(r, c);
    *z1 = ak_xmul(r, s);
}

/* ---- the counter loop ------------------------------------------------------ */
/* For every counter j < ceil(n / 4): gen(j, f[4]) fills 4 fp32 values, put
 * writes elements 4j .. 4j + 3 (< n). vec: y 4-element aligned (whole
 * groups as one access). */
template <class D, class G>
AK_INLINE void ak_rand_store(typename D::T* y, ak_i64 n, G gen) {
    const ak_i64 groups = (n + 3) / 4;
    const bool vec = (((ak_u64)y) & (4u * D::SIZE - 1u)) == 0;
    for (ak_i64 j = ak_gtid(); j < groups; j += ak_gstride()) {
        float f[4];
        gen(j, f);
        const ak_i64 e = 4 * j;
        if (vec && e + 4 <= n) D::st4(y + e, f);
        else
            for (int q = 0; q < 4 && e + q < n; q++) y[e + q] = D::from(f[q]);
    }
}

/* y = lo + u * range, rounded to the dtype; a value that rounds to >= hi is lo. */
template <class D>
AK_INLINE void ak_rand_uniform_impl(typename D::T* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float lo, float range,
                                    float hi) {
    ak_rand_store<D>(y, n, [&](ak_i64 j, float f[4]) {
        ak_u32 w[4];
        ak_philox_at(seed, offset, (ak_u64)j, w);
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const float v = D::to(D::from(ak_xfma(ak_philox_unit(w[q]), range, lo)));
            f[q] = v >= hi ? lo : v;
        }
    });
}
AK_KERNEL void ak_rand_uniform_f32(float* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float lo, float range, float hi) {
    ak_rand_uniform_impl<ak_f32_t>(y, n, seed, offset, lo, range, hi);
}
AK_KERNEL void ak_rand_uniform_f16(ak_half* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float lo, float range, float hi) {
    ak_rand_uniform_impl<ak_f16_t>(y, n, seed, offset, lo, range, hi);
}
AK_KERNEL void ak_rand_uniform_bf16(ak_bf16* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float lo, float range, float hi) {
    ak_rand_uniform_impl<ak_bf16_t>(y, n, seed, offset, lo, range, hi);
}

/* y = mean + std * z. The host launches a quarter of the threads (4 counters
 * each through the grid-stride loop), so the key schedule and the setup are
 * paid once per 4 counters: this kernel is bound by its instructions. */
template <class D>
AK_INLINE void ak_rand_normal_impl(typename D::T* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float mean, float sd) {
    ak_u32 k0[10], k1[10];
    ak_philox_keys(seed, k0, k1);
    ak_rand_store<D>(y, n, [&](ak_i64 j, float f[4]) {
        ak_u32 w[4];
        ak_philox_at_keyed(offset, (ak_u64)j, k0, k1, w);
        ak_box_muller(w[0], w[1], &f[0], &f[1]);
        ak_box_muller(w[2], w[3], &f[2], &f[3]);
#pragma unroll
        for (int q = 0; q < 4; q++) f[q] = ak_xfma(f[q], sd, mean);
    });
}
AK_KERNEL void ak_rand_normal_f32(float* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float mean, float sd) {
    ak_rand_normal_impl<ak_f32_t>(y, n, seed, offset, mean, sd);
}
AK_KERNEL void ak_rand_normal_f16(ak_half* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float mean, float sd) {
    ak_rand_normal_impl<ak_f16_t>(y, n, seed, offset, mean, sd);
}
AK_KERNEL void ak_rand_normal_bf16(ak_bf16* y, ak_i64 n, ak_u64 seed, ak_u64 offset, float mean, float sd) {
    ak_rand_normal_impl<ak_bf16_t>(y, n, seed, offset, mean, sd);
}

/* Dropout: keep element i when u_i >= p; y = keep ? x * scale : 0 (exactly 0,
 * also for inf / NaN inputs); mask (may be NULL) = keep as 0 / 1 bytes. */
template <class D>
AK_INLINE void ak_dropout_impl(const typename D::T* x, typename D::T* y, ak_u8* mask, ak_i64 n, ak_u64 seed,
                               ak_u64 offset, float p, float scale) {
    typedef typename D::T T;
    const ak_i64 groups = (n + 3) / 4;
    const ak_u64 al = 4u * D::SIZE - 1u;
    const bool vec = ((((ak_u64)x) | ((ak_u64)y)) & al) == 0 && (((ak_u64)mask) & 3u) == 0;
    for (ak_i64 j = ak_gtid(); j < groups; j += ak_gstride()) {
        ak_u32 w[4];
        ak_philox_at(seed, offset, (ak_u64)j, w);
        const ak_i64 e = 4 * j;
        bool keep[4];
#pragma unroll
        for (int q = 0; q < 4; q++) keep[q] = ak_philox_unit(w[q]) >= p;
        if (vec && e + 4 <= n) {
            float f[4];
            D::ld4(x + e, f);
#pragma unroll
            for (int q = 0; q < 4; q++) f[q] = keep[q] ? ak_xmul(f[q], scale) : 0.0f;
            D::st4(y + e, f);
            if (mask)
                *(ak_u32*)(mask + e) = (ak_u32)keep[0] | ((ak_u32)keep[1] << 8) | ((ak_u32)keep[2] << 16) |
                                       ((ak_u32)keep[3] << 24);
        } else {
            for (int q = 0; q < 4 && e + q < n; q++) {
                const T v = x[e + q];
                y[e + q] = D::from(keep[q] ? ak_xmul(D::to(v), scale) : 0.0f);
                if (mask) mask[e + q] = (ak_u8)keep[q];
            }
        }
    }
}
AK_KERNEL void ak_dropout_f32(const float* x, float* y, ak_u8* mask, ak_i64 n, ak_u64 seed, ak_u64 offset, float p,
                              float scale) {
    ak_dropout_impl<ak_f32_t>(x, y, mask, n, seed, offset, p, scale);
}
AK_KERNEL void ak_dropout_f16(const ak_half* x, ak_half* y, ak_u8* mask, ak_i64 n, ak_u64 seed, ak_u64 offset, float p,
                              float scale) {
    ak_dropout_impl<ak_f16_t>(x, y, mask, n, seed, offset, p, scale);
}
AK_KERNEL void ak_dropout_bf16(const ak_bf16* x, ak_bf16* y, ak_u8* mask, ak_i64 n, ak_u64 seed, ak_u64 offset,
                               float p, float scale) {
    ak_dropout_impl<ak_bf16_t>(x, y, mask, n, seed, offset, p, scale);
}
