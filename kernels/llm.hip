// kernels/llm.hip - rotary position embedding (RoPE) over a contiguous
// [tokens][heads][head_dim] tensor, fp32 math. Host wrapper: ak_rope in
// amdkit.h (>>impl:ops-llm), which also holds the CPU reference.
//
// Pair i (0 <= i < rotary_dim / 2) of every head of token t turns by the angle
//   a = (float)pos[t] * inv_freq[i],  inv_freq[i] = (float)2^(-(2i / rotary_dim) * log2(theta))
// (both products in fp32, as Hugging Face's rotary embedding computes them);
// cos a and sin a are evaluated in double on that fp32 angle and rounded to
// fp32 (the fast-math sinf / cosf are off by far more than a bf16 ulp at
// angles of 10^4..10^6 rad; the double work is once per (token, pair) and is
// shared by all heads of the token through shared memory).
//   rotate-half (GPT-NeoX, interleaved = 0): the pair is (i, i + rotary_dim / 2)
//   interleaved (GPT-J, interleaved = 1):    the pair is (2i, 2i + 1)
//   (u, v) -> (u cos a - v sin a, v cos a + u sin a)
// Elements rotary_dim..head_dim-1 of each head are copied (skipped in place).
//
// ak_rope_<dt>: one block per token (grid-stride over tokens); the block first
// computes the token's cos / sin table (rotary_dim / 2 <= 512 pairs), then its
// threads walk the token's work units: vec (x, y 16-byte aligned, head_dim and
// rotary_dim multiples of 8) moves 4 pairs per unit with 4-element accesses
// (rotate-half: at i and i + rotary_dim / 2; interleaved: 2 pairs per access)
// and the tail in 4-element pieces; else one pair (one tail element) per unit.
// ak_ropeg_<dt> (f16 / bf16, interleaved, multiples of 16): one block per group
// of tpb tokens (tpb x rotary_dim / 2 <= 512 pairs; all threads compute the
// group's table), 8-element (16-byte) units. y may be x.
//
// kernels: ak_rope_f32 ak_rope_f16 ak_rope_bf16 ak_ropeg_f16 ak_ropeg_bf16

#define AK_ROPE_MAX_PAIRS 512

template <class D>
AK_INLINE void ak_rope_pair(const typename D::T* x, typename D::T* y, int i0, int i1, float c, float s) {
    const float u = D::to(x[i0]), v = D::to(x[i1]);
    y[i0] = D::from(u * c - v * s);
    y[i1] = D::from(v * c + u * s);
}

template <class D, int V>
AK_INLINE void ak_rope_unit(const typename D::T* xh, typename D::T* yh, int j, int half, bool interleaved,
                            const float* cc, const float* ss) {
    float a[V], b[V], oa[V], ob[V];
    if (!interleaved) {   // pairs i .. i + V - 1: elements i.. and i + half..
        const int i = j * V;
        if (V == 8) { D::ld8(xh + i, a); D::ld8(xh + i + half, b); }
        else { D::ld4(xh + i, a); D::ld4(xh + i + half, b); }
#pragma unroll
        for (int q = 0; q < V; q++) {
            const float c = cc[i + q], s = ss[i + q];
            oa[q] = a[q] * c - b[q] * s;
            ob[q] = b[q] * c + a[q] * s;
        }
        if (V == 8) { D::st8(yh + i, oa); D::st8(yh + i + half, ob); }
        else { D::st4(yh + i, oa); D::st4(yh + i + half, ob); }
    } else {              // pairs i .. i + V / 2 - 1: elements 2i .. 2i + V - 1
        const int i = j * (V / 2);
        if (V == 8) D::ld8(xh + 2 * i, a); else D::ld4(xh + 2 * i, a);
#pragma unroll
        for (int q = 0; q < V / 2; q++) {
            const float c = cc[i + q], s = ss[i + q];
            oa[2 * q] = a[2 * q] * c - a[2 * q + 1] * s;
            oa[2 * q + 1] = a[2 * q + 1] * c + a[2 * q] * s;
        }
        if (V == 8) D::st8(yh + 2 * i, oa); else D::st4(yh + 2 * i, oa);
    }
}

// GRP = false (ak_rope_<dt>): one token per block, V = 4-element units when vec (else one pair per unit); tpb
// unused. GRP = true (ak_ropeg_<dt>, interleaved halves only): tpb tokens per block, V = 8 (16-byte) units. Two
// kernels, not one with a run-time switch: the grouped walk's extra index math cost the plain kernel 32 -> 46
// registers (f32) and 4-8% of its speed on the H100.
template <class D, int V, bool GRP>
AK_INLINE void ak_rope_token(const typename D::T* x, const void* pos, typename D::T* y, ak_i64 tokens, int heads,
                             int hd, int rd, double l2theta, bool interleaved, bool pos64, bool vec, bool inplace,
                             int tpb) {
    __shared__ float cs_c[AK_ROPE_MAX_PAIRS], cs_s[AK_ROPE_MAX_PAIRS];
    const int half = rd / 2, B = (int)blockDim.x, tid = (int)threadIdx.x;
    const int T = GRP ? tpb : 1;
    // pairs per unit, units per head (rotation), tail elements per unit and units per head
    const int P = vec ? (interleaved ? V / 2 : V) : 1;
    const int ppr = half / P;
    const int tail = inplace ? 0 : hd - rd;
    const int tp = vec ? V : 1;
    const int tpr = tail / tp;
    const int urot = heads * ppr, units = urot + heads * tpr;
    const ak_i64 groups = GRP ? (tokens + T - 1) / T : tokens;
    for (ak_i64 g = blockIdx.x; g < groups; g += gridDim.x) {
        const ak_i64 t0 = GRP ? g * T : g;
        const int nt = !GRP ? 1 : tokens - t0 < (ak_i64)T ? (int)(tokens - t0) : T;
        const float p0 = GRP ? 0.0f : pos64 ? (float)((const long long*)pos)[t0] : (float)((const int*)pos)[t0];
        __syncthreads();   // the previous group's readers are done with the table
        for (int q = tid; q < nt * half; q += B) {
            const int tt = GRP ? q / half : 0, i = q - tt * half;
            const float p = !GRP ? p0 : pos64 ? (float)((const long long*)pos)[t0 + tt] : (float)((const int*)pos)[t0 + tt];
            const float inv = (float)exp2(-(double)(2 * i) / (double)rd * l2theta);
            const float a = p * inv;
            cs_c[q] = (float)cos((double)a);
            cs_s[q] = (float)sin((double)a);
        }
        __syncthreads();
        for (int w = tid; w < nt * units; w += B) {
            const int tt = GRP ? w / units : 0, u = w - tt * units;
            const ak_i64 base = (t0 + tt) * (ak_i64)heads * (ak_i64)hd;
            const float *cc = cs_c + tt * half, *ss = cs_s + tt * half;
            if (u < urot) {
                const int h = u / ppr, j = u - h * ppr;
                const typename D::T* xh = x + base + (ak_i64)h * hd;
                typename D::T* yh = y + base + (ak_i64)h * hd;
                if (vec) ak_rope_unit<D, V>(xh, yh, j, half, interleaved, cc, ss);
                else if (interleaved) ak_rope_pair<D>(xh, yh, 2 * j, 2 * j + 1, cc[j], ss[j]);
                else ak_rope_pair<D>(xh, yh, j, j + half, cc[j], ss[j]);
            } else {
                const int v = u - urot, h = v / tpr, e = rd + (v - h * tpr) * tp;
                const ak_i64 o = base + (ak_i64)h * hd + e;
                if (vec) {
                    float a[V];
                    if (V == 8) { D::ld8(x + o, a); D::st8(y + o, a); }
                    else { D::ld4(x + o, a); D::st4(y + o, a); }
                } else {
                    y[o] = x[o];
                }
            }
        }
    }
}

#define AK_ROPE(NAME, DT, D, V, GRP)                                                                            \
    AK_KERNEL __launch_bounds__(256) void NAME##_##DT(const D::T* x, const void* pos, D::T* y, ak_i64 tokens,       \
                                                      int heads, int hd, int rd, double l2theta, int interleaved,  \
                                                      int pos64, int vec, int inplace, int tpb) {                  \
        ak_rope_token<D, V, GRP>(x, pos, y, tokens, heads, hd, rd, l2theta, interleaved != 0, pos64 != 0,          \
                                 vec != 0, inplace != 0, tpb);                                                     \
    }
AK_ROPE(ak_rope, f32, ak_f32_t, 4, false)
AK_ROPE(ak_rope, f16, ak_f16_t, 4, false)
AK_ROPE(ak_rope, bf16, ak_bf16_t, 4, false)
AK_ROPE(ak_ropeg, f16, ak_f16_t, 8, true)
AK_ROPE(ak_ropeg, bf16, ak_bf16_t, 8, true)
