/* amdkit kernel prelude (kernels/prelude.hip): the portable layer every
 * embedded kernel source is compiled with. The host prepends it and passes
 * -DAK_WAVE=<32|64> and one of -DAK_AMD=1 / -DAK_NVIDIA=1 (both are guessed
 * from the compiler when missing). No #include: hipRTC and NVRTC provide the
 * built-ins used here (threadIdx, __syncthreads, __shfl_*, expf, erff, tanhf,
 * float4 / uint4, __float_as_uint); plain clang for AMD (gfx940 checks)
 * needs `-include hip/hip_runtime.h` (what hipRTC adds implicitly).
 *
 * Kernel naming convention (tools/akgen.c relies on it): every kernel is
 * defined on a line `AK_KERNEL void ak_<name>(` with its literal name, or
 * listed in a `// kernels: a b c` comment line when a macro generates it. */

/* AK_HOST_LAYOUT_TEST: tests/t_matrix.c includes this file as plain C to get
 * the matrix-fragment lane layouts (end of file) and nothing else. */
#ifndef AK_HOST_LAYOUT_TEST
/* ---- vendor and wave size ------------------------------------------------ */
#if !defined(AK_AMD) && !defined(AK_NVIDIA)
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__NVCC__)
#define AK_NVIDIA 1
#else
#define AK_AMD 1
#endif
#endif
#ifndef AK_WAVE
#if defined(AK_NVIDIA)
#define AK_WAVE 32
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define AK_WAVE __AMDGCN_WAVEFRONT_SIZE
#else
#define AK_WAVE 64
#endif
#endif
#if AK_WAVE != 32 && AK_WAVE != 64
#error "amdkit prelude: AK_WAVE must be 32 or 64"
#endif
/* AMD code objects carry the wave size they were built for as a symbol name,
 * ak_built_for_wave32 / ak_built_for_wave64, which the ISA check
 * (tests/isa_check.sh) compares with the code object's own wavefront size. */
#if defined(AK_AMD)
#define AK_CAT2_(a, b) a##b
#define AK_CAT_(a, b) AK_CAT2_(a, b)
extern "C" __device__ __attribute__((used)) const int AK_CAT_(ak_built_for_wave, AK_WAVE) = AK_WAVE;
#endif
/* Most waves a block of up to 1024 threads has (size of the block scratch). */
#define AK_MAX_WAVES (1024 / AK_WAVE)

#define AK_KERNEL extern "C" __global__
#define AK_INLINE __device__ __forceinline__
#define AK_RESTRICT __restrict__
/* One kernel a program: a body that starts with AK_KONLY(its kernel's name)
 * is kept only where the host passes -DAK_KSEL=<that name> (amdkit.h
 * _ak_op_kernel_ex, for a family using AK_KONLY), else traps; without
 * AK_KSEL (compile checks, emulation) every body is kept. */
#if defined(AK_KSEL)
#define AK_STR_(x) #x
#define AK_XSTR_(x) AK_STR_(x)
static constexpr __host__ __device__ bool ak_streq(const char* a, const char* b) { return *a == *b && (!*a || ak_streq(a + 1, b + 1)); }
#if defined(AK_NVIDIA)
#define AK_KONLY(NAME) if constexpr (!ak_streq(#NAME, AK_XSTR_(AK_KSEL))) __trap(); else
#else
#define AK_KONLY(NAME) if constexpr (!ak_streq(#NAME, AK_XSTR_(AK_KSEL))) __builtin_trap(); else
#endif
#else
#define AK_KONLY(NAME)
#endif

/* ---- integer types ------------------------------------------------------- */
typedef long long ak_i64;
typedef unsigned long long ak_u64;
typedef int ak_i32;
typedef unsigned int ak_u32;
typedef short ak_i16;
typedef unsigned short ak_u16;
typedef unsigned char ak_u8;

/* ---- float constants ----------------------------------------------------- */
#define AK_INF (__uint_as_float(0x7F800000u))
#define AK_NAN (__uint_as_float(0x7FC00000u))
#define AK_FLT_MAX 3.402823466e+38f

/* ---- thread indexing ----------------------------------------------------- */
/* Global 1-D thread index and grid-stride step, 64-bit. */
AK_INLINE ak_i64 ak_gtid(void) { return (ak_i64)blockIdx.x * (ak_i64)blockDim.x + (ak_i64)threadIdx.x; }
AK_INLINE ak_i64 ak_gstride(void) { return (ak_i64)gridDim.x * (ak_i64)blockDim.x; }
AK_INLINE int ak_lane(void) { return (int)(threadIdx.x % AK_WAVE); }
AK_INLINE int ak_wave_id(void) { return (int)(threadIdx.x / AK_WAVE); }
// One row per group of G threads (blockDim.x / G rows per block; G a power of two, or a multiple of AK_WAVE that
// divides blockDim.x): the thread's lane in its group and its row, clamped to row 0 past the last row so the
// group's loads stay in bounds; returns the row's length (0 past the end).
AK_INLINE int ak_group_row(ak_i64 rows, int cols, int G, int* lane, ak_i64* row) {
    *lane = (G & (G - 1)) == 0 ? (int)threadIdx.x & (G - 1) : (int)threadIdx.x % G;
    const ak_i64 r = (ak_i64)blockIdx.x * (ak_i64)(blockDim.x / G) + (ak_i64)(threadIdx.x / G);
    const int len = r < rows ? cols : 0;
    *row = r < rows ? r : 0;
    return len;
}

/* ---- bit casts ----------------------------------------------------------- */
AK_INLINE float ak_u2f(ak_u32 u) { return __uint_as_float(u); }
AK_INLINE ak_u32 ak_f2u(float f) { return __float_as_uint(f); }

/* ---- fp16 / bf16 storage (unsigned short) and conversions ----------------- */
typedef unsigned short ak_half;   /* IEEE binary16 bits */
typedef unsigned short ak_bf16;   /* bfloat16 bits */

#if defined(AK_AMD)
/* AMD: clang's _Float16; the conversions compile to v_cvt_f32_f16 / v_cvt_f16_f32 (RNE). */
AK_INLINE float ak_h2f(ak_half h) {
    _Float16 v;
    __builtin_memcpy(&v, &h, 2);
    return (float)v;
}
AK_INLINE ak_half ak_f2h(float f) {
    _Float16 v = (_Float16)f;
    ak_half h;
    __builtin_memcpy(&h, &v, 2);
    return h;
}
#else
/* NVIDIA: PTX conversions (no cuda_fp16.h). */
AK_INLINE float ak_h2f(ak_half h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
AK_INLINE ak_half ak_f2h(float f) {
    ak_half h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#endif

AK_INLINE float ak_bf2f(ak_bf16 b) { return ak_u2f((ak_u32)b << 16); }
#if defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
AK_INLINE ak_bf16 ak_f2bf(float f) {
    ak_bf16 b;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
    return b;
}
#else
/* Round to nearest even; NaN stays a (quiet) NaN. Same result as the host's ak_f32_to_bf16. */
AK_INLINE ak_bf16 ak_f2bf(float f) {
    ak_u32 u = ak_f2u(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (ak_bf16)((u >> 16) | 0x40u);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (ak_bf16)(u >> 16);
}
#endif

/* ---- dtype traits: storage type T, to/from fp32, and vector I/O ----------- */
/* ld8/st8 move 8 consecutive elements (f32: two 16-byte accesses, halves:
 * one), ld4/st4 move 4 (f32: 16 bytes, halves: 8 bytes); the pointer must be
 * aligned to the access (16 bytes is always enough: ak_aligned16).
 * Coalescing note, measured on H100: when consecutive threads each st8 f32 at
 * p + 8 * tid, every store instruction writes every other 16 bytes, each
 * 32-byte sector is written half by two instructions, and a pure f32 store
 * stream runs at ~50% of copy bandwidth. Let thread t of a warp access
 * p + 4 * t and p + 4 * (t + blockDim) instead (ak_map8 with SPLIT, below). */
AK_INLINE bool ak_aligned16(const void* p) { return (((ak_u64)p) & 15u) == 0; }

struct ak_f32_t {
    typedef float T;
    enum { SIZE = 4 };
    static AK_INLINE float to(float v) { return v; }
    static AK_INLINE float from(float v) { return v; }
    static AK_INLINE void ld8(const float* p, float f[8]) {
        float4 a = ((const float4*)p)[0], b = ((const float4*)p)[1];
        f[0] = a.x; f[1] = a.y; f[2] = a.z; f[3] = a.w;
        f[4] = b.x; f[5] = b.y; f[6] = b.z; f[7] = b.w;
    }
    static AK_INLINE void st8(float* p, const float f[8]) {
        float4 a, b;
        a.x = f[0]; a.y = f[1]; a.z = f[2]; a.w = f[3];
        b.x = f[4]; b.y = f[5]; b.z = f[6]; b.w = f[7];
        ((float4*)p)[0] = a;
        ((float4*)p)[1] = b;
    }
    static AK_INLINE void ld4(const float* p, float f[4]) {
        float4 a = *(const float4*)p;
        f[0] = a.x; f[1] = a.y; f[2] = a.z; f[3] = a.w;
    }
    static AK_INLINE void st4(float* p, const float f[4]) {
        float4 a;
        a.x = f[0]; a.y = f[1]; a.z = f[2]; a.w = f[3];
        *(float4*)p = a;
    }
};

/* 16 bytes of halves: eight 16-bit elements in four 32-bit words (low half first). */
typedef uint4 ak_u16x8;
AK_INLINE ak_u32 ak_u16x8_word(const ak_u16x8& v, int i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}
AK_INLINE ak_u32 ak_pack2(ak_u16 lo, ak_u16 hi) { return (ak_u32)lo | ((ak_u32)hi << 16); }

struct ak_f16_t {
    typedef ak_half T;
    enum { SIZE = 2 };
    static AK_INLINE float to(ak_half v) { return ak_h2f(v); }
    static AK_INLINE ak_half from(float v) { return ak_f2h(v); }
    static AK_INLINE void ld8(const ak_half* p, float f[8]) {
        ak_u16x8 v = *(const ak_u16x8*)p;
        for (int i = 0; i < 4; i++) {
            ak_u32 w = ak_u16x8_word(v, i);
            f[2 * i] = ak_h2f((ak_u16)(w & 0xFFFFu));
            f[2 * i + 1] = ak_h2f((ak_u16)(w >> 16));
        }
    }
    static AK_INLINE void st8(ak_half* p, const float f[8]) {
        ak_u16x8 v;
        v.x = ak_pack2(ak_f2h(f[0]), ak_f2h(f[1]));
        v.y = ak_pack2(ak_f2h(f[2]), ak_f2h(f[3]));
        v.z = ak_pack2(ak_f2h(f[4]), ak_f2h(f[5]));
        v.w = ak_pack2(ak_f2h(f[6]), ak_f2h(f[7]));
        *(ak_u16x8*)p = v;
    }
    static AK_INLINE void ld4(const ak_half* p, float f[4]) {
        uint2 v = *(const uint2*)p;
        f[0] = ak_h2f((ak_u16)(v.x & 0xFFFFu)); f[1] = ak_h2f((ak_u16)(v.x >> 16));
        f[2] = ak_h2f((ak_u16)(v.y & 0xFFFFu)); f[3] = ak_h2f((ak_u16)(v.y >> 16));
    }
    static AK_INLINE void st4(ak_half* p, const float f[4]) {
        uint2 v;
        v.x = ak_pack2(ak_f2h(f[0]), ak_f2h(f[1]));
        v.y = ak_pack2(ak_f2h(f[2]), ak_f2h(f[3]));
        *(uint2*)p = v;
    }
};

struct ak_bf16_t {
    typedef ak_bf16 T;
    enum { SIZE = 2 };
    static AK_INLINE float to(ak_bf16 v) { return ak_bf2f(v); }
    static AK_INLINE ak_bf16 from(float v) { return ak_f2bf(v); }
    static AK_INLINE void ld8(const ak_bf16* p, float f[8]) {
        ak_u16x8 v = *(const ak_u16x8*)p;
        for (int i = 0; i < 4; i++) {
            ak_u32 w = ak_u16x8_word(v, i);
            f[2 * i] = ak_u2f(w << 16);
            f[2 * i + 1] = ak_u2f(w & 0xFFFF0000u);
        }
    }
    static AK_INLINE void st8(ak_bf16* p, const float f[8]) {
        ak_u16x8 v;
        v.x = ak_pack2(ak_f2bf(f[0]), ak_f2bf(f[1]));
        v.y = ak_pack2(ak_f2bf(f[2]), ak_f2bf(f[3]));
        v.z = ak_pack2(ak_f2bf(f[4]), ak_f2bf(f[5]));
        v.w = ak_pack2(ak_f2bf(f[6]), ak_f2bf(f[7]));
        *(ak_u16x8*)p = v;
    }
    static AK_INLINE void ld4(const ak_bf16* p, float f[4]) {
        uint2 v = *(const uint2*)p;
        f[0] = ak_u2f(v.x << 16); f[1] = ak_u2f(v.x & 0xFFFF0000u);
        f[2] = ak_u2f(v.y << 16); f[3] = ak_u2f(v.y & 0xFFFF0000u);
    }
    static AK_INLINE void st4(ak_bf16* p, const float f[4]) {
        uint2 v;
        v.x = ak_pack2(ak_f2bf(f[0]), ak_f2bf(f[1]));
        v.y = ak_pack2(ak_f2bf(f[2]), ak_f2bf(f[3]));
        *(uint2*)p = v;
    }
};
/* ak_is_f16<DT>::value: 1 for ak_f16_t (the f16 / bf16 forms of one instruction or bit trick) */
template <class DT> struct ak_is_f16 { enum { value = 0 }; };
template <> struct ak_is_f16<ak_f16_t> { enum { value = 1 }; };

/* One 16-byte vector of D: AK_V16(D) elements (4 f32, 8 f16 / bf16) as fp32,
 * p 16-byte aligned. Consecutive threads on consecutive vectors keep every
 * access instruction of a warp contiguous (ld8 of f32 at p + 8t does not:
 * see the coalescing note above). */
#define AK_V16(D) (16 / (int)D::SIZE)
template <class D>
AK_INLINE void ak_ld16(const typename D::T* p, float* f) {
    if (D::SIZE == 4) D::ld4(p, f);
    else D::ld8(p, f);
}
template <class D>
AK_INLINE void ak_st16(typename D::T* p, const float* f) {
    if (D::SIZE == 4) D::st4(p, f);
    else D::st8(p, f);
}

/* W 32-bit words of D held raw (f32: one element a word, f16 / bf16: two, low half first), widened to fp32 when
 * used: 16-bit data keeps half the registers a widened copy would while its loads are in flight. */
template <class D, int W>
AK_INLINE void ak_widen_words(const ak_u32* u, float* f) {
#pragma unroll
    for (int i = 0; i < W; i++) {
        if (D::SIZE == 4) f[i] = ak_u2f(u[i]);
        else if (ak_is_f16<D>::value) { f[2 * i] = ak_h2f((ak_u16)(u[i] & 0xFFFFu)); f[2 * i + 1] = ak_h2f((ak_u16)(u[i] >> 16)); }
        else { f[2 * i] = ak_u2f(u[i] << 16); f[2 * i + 1] = ak_u2f(u[i] & 0xFFFF0000u); }
    }
}

/* The last read of 16 bytes at p (16-byte aligned) as four raw words, evict-first on NVIDIA (ld.global.cs): data
 * streamed once leaves L2 to what is read again (a vector, a tensor's unread tiles). AMD: a plain load. */
AK_INLINE void ak_ld16_last(const void* p, ak_u32* u) {
#if defined(AK_NVIDIA)
    asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(u[0]), "=r"(u[1]), "=r"(u[2]), "=r"(u[3]) : "l"(p));
#else
    const uint4 w = *(const uint4*)p;
    u[0] = w.x; u[1] = w.y; u[2] = w.z; u[3] = w.w;
#endif
}

/* ld8 (8 consecutive elements as fp32, p 16-byte aligned) as the data's last read: ak_ld16_last */
template <class D>
AK_INLINE void ak_ld8_last(const typename D::T* p, float f[8]) {
    ak_u32 u[8];
    ak_ld16_last(p, u);
    if (D::SIZE == 4) ak_ld16_last(p + 16 / D::SIZE, u + 4);
    ak_widen_words<D, 2 * D::SIZE>(u, f);   /* 8 words of f32, 4 of 16-bit */
}

/* A hint that the line holding p is read soon: NVIDIA fetches it into L2 (prefetch.global.L2) with no register
 * held, so that a stream keeps more bytes in flight than its registers do. AMD: nothing. */
AK_INLINE void ak_prefetch_l2(const void* p) {
#if defined(AK_NVIDIA)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
    (void)p;
#endif
}

/* Co-operating blocks (softmax and norm split kernels): thread 0 of a block
 * that has published its partials counts itself in *count and waits until
 * `need` blocks have; every partial written before any block's arrival is
 * visible after the wait. The caller follows with __syncthreads. Only safe
 * when the `need` blocks can be resident at once (the host keeps need <=
 * compute units and hands out work in block start order). */
AK_INLINE void ak_coop_arrive_wait(unsigned* count, unsigned need) {
    __threadfence();
    atomicAdd(count, 1u);
    while (*(volatile unsigned*)count < need) {
#if defined(AK_NVIDIA)
        __nanosleep(64);
#else
        __builtin_amdgcn_s_sleep(1);
#endif
    }
    __threadfence();
}

/* Grid-stride map over n elements in tiles of 8 * blockDim.x elements.
 * For each full tile, `chunk(i0, i1)` handles the 4 elements at i0 and the 4
 * at i1 (only when vec is true: every pointer 16-byte aligned). SPLIT (use it
 * when an f32 array takes part): i0 = tile + 4t, i1 = tile + 4 (blockDim + t),
 * so each 16-byte f32 access instruction of a warp is contiguous; otherwise
 * i0 = tile + 8t and i1 = i0 + 4 (one 16-byte access for halves). Then
 * `one(i)` handles the remaining elements (all of them when vec is false). */
template <bool SPLIT, class C, class O>
AK_INLINE void ak_map8(ak_i64 n, bool vec, C chunk, O one) {
    ak_i64 done = 0;
    if (vec) {
        const ak_i64 B = (ak_i64)blockDim.x, t = (ak_i64)threadIdx.x;
        const ak_i64 ntiles = n / (8 * B);
        /* indices written as (vector index) x (vector length): nvcc then keeps
         * the 16-byte stores whole (with tile + 8t it split them into 4-byte ones) */
        for (ak_i64 T = blockIdx.x; T < ntiles; T += gridDim.x) {
            if (SPLIT) chunk(4 * (2 * T * B + t), 4 * (2 * T * B + B + t));
            else chunk(8 * (T * B + t), 8 * (T * B + t) + 4);
        }
        done = ntiles * 8 * B;
    }
    for (ak_i64 i = done + ak_gtid(); i < n; i += ak_gstride()) one(i);
}
/* The 8 elements of a chunk(i0, i1) of ak_map8<SPLIT>, as fp32. */
template <class D, bool SPLIT>
AK_INLINE void ak_ld8(const typename D::T* p, ak_i64 i0, ak_i64 i1, float f[8]) {
    if (SPLIT) { D::ld4(p + i0, f); D::ld4(p + i1, f + 4); }
    else D::ld8(p + i0, f);
}
template <class D, bool SPLIT>
AK_INLINE void ak_st8(typename D::T* p, ak_i64 i0, ak_i64 i1, const float f[8]) {
    if (SPLIT) { D::st4(p + i0, f); D::st4(p + i1, f + 4); }
    else D::st8(p + i0, f);
}

/* ---- math ---------------------------------------------------------------- */
/* expf / erff / tanhf / logf / sqrtf / rsqrtf exist on both compilers without
 * headers. The fast forms trade a few ulp for speed (aggressive builds). */
AK_INLINE float ak_fast_exp(float x) { return __expf(x); }
AK_INLINE float ak_fast_tanh(float x) {
    /* 1 - 2 / (exp(2x) + 1): saturates correctly at +-inf */
    return 1.0f - 2.0f / (__expf(2.0f * x) + 1.0f);
}
AK_INLINE float ak_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* ---- wave (warp) primitives ------------------------------------------------ */
/* All lanes of the wave must take part (blocks are a multiple of AK_WAVE). */
#if defined(AK_AMD)
AK_INLINE float ak_shfl_xor(float v, int mask) { return __shfl_xor(v, mask, AK_WAVE); }
AK_INLINE float ak_shfl_down(float v, int delta) { return __shfl_down(v, (unsigned)delta, AK_WAVE); }
AK_INLINE float ak_shfl(float v, int src) { return __shfl(v, src, AK_WAVE); }
AK_INLINE int ak_shfl_xor_i(int v, int mask) { return __shfl_xor(v, mask, AK_WAVE); }
AK_INLINE ak_u64 ak_ballot(int pred) { return (ak_u64)__ballot(pred); }
#else
AK_INLINE float ak_shfl_xor(float v, int mask) { return __shfl_xor_sync(0xFFFFFFFFu, v, mask); }
AK_INLINE float ak_shfl_down(float v, int delta) { return __shfl_down_sync(0xFFFFFFFFu, v, (unsigned)delta); }
AK_INLINE float ak_shfl(float v, int src) { return __shfl_sync(0xFFFFFFFFu, v, src); }
AK_INLINE int ak_shfl_xor_i(int v, int mask) { return __shfl_xor_sync(0xFFFFFFFFu, v, mask); }
AK_INLINE ak_u64 ak_ballot(int pred) { return (ak_u64)__ballot_sync(0xFFFFFFFFu, pred); }
#endif

/* Butterfly reductions: every lane gets the result. */
AK_INLINE float ak_warp_sum(float v) {
    for (int o = AK_WAVE / 2; o > 0; o >>= 1) v += ak_shfl_xor(v, o);
    return v;
}
AK_INLINE float ak_warp_max(float v) {
    for (int o = AK_WAVE / 2; o > 0; o >>= 1) v = fmaxf(v, ak_shfl_xor(v, o));
    return v;
}
AK_INLINE float ak_warp_min(float v) {
    for (int o = AK_WAVE / 2; o > 0; o >>= 1) v = fminf(v, ak_shfl_xor(v, o));
    return v;
}

/* Block reductions over a 1-D block whose size is a multiple of AK_WAVE (at
 * most 1024). `scratch` is a __shared__ float[AK_MAX_WAVES] of the caller;
 * every thread gets the result; safe to call repeatedly with the same
 * scratch (the leading barrier protects the previous call's readers). */
AK_INLINE float ak_block_sum(float v, float* scratch) {
    const int nw = (int)((blockDim.x + AK_WAVE - 1) / AK_WAVE);
    v = ak_warp_sum(v);
    __syncthreads();
    if (ak_lane() == 0) scratch[ak_wave_id()] = v;
    __syncthreads();
    v = 0.0f;
    for (int w = 0; w < nw; w++) v += scratch[w];
    return v;
}
AK_INLINE float ak_block_max(float v, float* scratch) {
    const int nw = (int)((blockDim.x + AK_WAVE - 1) / AK_WAVE);
    v = ak_warp_max(v);
    __syncthreads();
    if (ak_lane() == 0) scratch[ak_wave_id()] = v;
    __syncthreads();
    v = -AK_INF;
    for (int w = 0; w < nw; w++) v = fmaxf(v, scratch[w]);
    return v;
}
AK_INLINE float ak_block_min(float v, float* scratch) {
    const int nw = (int)((blockDim.x + AK_WAVE - 1) / AK_WAVE);
    v = ak_warp_min(v);
    __syncthreads();
    if (ak_lane() == 0) scratch[ak_wave_id()] = v;
    __syncthreads();
    v = AK_INF;
    for (int w = 0; w < nw; w++) v = fminf(v, scratch[w]);
    return v;
}

/* ---- row and reduction helpers (reductions, softmax, norms, cross-entropy) ---- */
/* NaN test on the bits (still right under finite-math compiler flags). */
AK_INLINE bool ak_isnan(float v) { return (ak_f2u(v) & 0x7FFFFFFFu) > 0x7F800000u; }
/* sum, and max / min that propagate NaN (torch semantics), as functors. */
struct ak_op_add { AK_INLINE float operator()(float a, float b) const { return a + b; } };
struct ak_op_max { AK_INLINE float operator()(float a, float b) const { return (a > b || ak_isnan(a)) ? a : b; } };
struct ak_op_min { AK_INLINE float operator()(float a, float b) const { return (a < b || ak_isnan(a)) ? a : b; } };
#define AK_LOG2E 1.4426950408889634f
#define AK_LN2 0.6931471805599453f
/* 2^x through the hardware unit (relative error about 2^-22; results
 * below 2^-126 flush to 0; 2^-inf = 0). exp2f adds denormal fix-ups. */
#if defined(AK_NVIDIA)
AK_INLINE float ak_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
#elif defined(__has_builtin)
#if __has_builtin(__builtin_amdgcn_exp2f)
AK_INLINE float ak_exp2(float x) { return __builtin_amdgcn_exp2f(x); }
#else
AK_INLINE float ak_exp2(float x) { return exp2f(x); }
#endif
#else
AK_INLINE float ak_exp2(float x) { return exp2f(x); }
#endif

/* online softmax statistics: fold N values a[] into a running (max m, sum s
 * of exp(v - m)); ak_online_rescale(m, M) = exp(m - M), 1 when m == M (also
 * -inf == -inf). Used by softmax, cross-entropy. */
AK_INLINE float ak_online_rescale(float m, float M) { return m == M ? 1.0f : ak_exp2((m - M) * AK_LOG2E); }
template <int N>
AK_INLINE void ak_online_fold(float& m, float& s, const float* a) {
    float mn = m;
#pragma unroll
    for (int k = 0; k < N; k++) mn = ak_op_max()(mn, a[k]);
    if (mn != -AK_INF) {
        float t = 0.0f;
#pragma unroll
        for (int k = 0; k < N; k++) t += ak_exp2((a[k] - mn) * AK_LOG2E);
        s = s * ak_online_rescale(m, mn) + t;
        m = mn;
    }
}

/* ---- attention: one sequence's geometry (kernels/attention*.hip) ----------
 * Sequence b of a batch is plain (its q / o / k / v rows at b x the batch
 * stride), packed variable-length (cu_q / cu_k: batch + 1 row offsets into
 * packed rows; the batch stride is unused), shortened (used_k: its key count)
 * or paged (btab: the block table, bts entries a row; key j of the sequence
 * is row j & (2^pshift - 1) of page btab[b bts + (j >> pshift)], and the batch
 * strides of k and v are page strides). Key offsets: ak_attn_kv(s, head
 * offset, page stride, row stride, pshift, j). Mask of a query row i (key
 * position p = i + skv - sq, the bottom-right alignment): keys
 * lo = p - wl .. hi = p + wr (wl / wr < 0: unbounded), within 0 .. skv - 1. */
struct ak_attn_seq {
    int sq, skv;           // this sequence's query rows and key rows
    ak_i64 q0, o0, k0, v0; // element offsets of query row 0 in q and o, key row 0 in k and v (paged: 0)
    const int* pages;      // paged: the sequence's block-table row, else NULL
};
AK_INLINE ak_attn_seq ak_attn_seq_of(int b, int sq, int skv, const int* cu_q, const int* cu_k, const int* used_k,
                                     const int* btab, int bts, ak_i64 qsb, ak_i64 qss, ak_i64 ksb, ak_i64 kss,
                                     ak_i64 vsb, ak_i64 vss, ak_i64 osb, ak_i64 oss) {
    ak_attn_seq s;
    s.sq = sq;
    s.skv = skv;
    s.pages = btab ? btab + (ak_i64)b * bts : (const int*)0;
    if (cu_q) {
        const int a = cu_q[b];
        s.sq = cu_q[b + 1] - a;
        s.q0 = (ak_i64)a * qss;
        s.o0 = (ak_i64)a * oss;
    } else {
        s.q0 = (ak_i64)b * qsb;
        s.o0 = (ak_i64)b * osb;
    }
    if (cu_k) {
        const int a = cu_k[b];
        s.skv = cu_k[b + 1] - a;
        s.k0 = (ak_i64)a * kss;
        s.v0 = (ak_i64)a * vss;
    } else if (btab) {
        s.k0 = 0;
        s.v0 = 0;
    } else {
        s.k0 = (ak_i64)b * ksb;
        s.v0 = (ak_i64)b * vsb;
    }
    if (used_k) s.skv = used_k[b];
    if (s.sq < 0) s.sq = 0;
    if (s.skv < 0) s.skv = 0;
    return s;
}
/* Element offset of key (or value) row j: base = the sequence's row-0 offset
 * (s.k0 / s.v0) + the head's offset; sb the page stride, ss the row stride. */
AK_INLINE ak_i64 ak_attn_kv(const ak_attn_seq& s, ak_i64 base, ak_i64 sb, ak_i64 ss, int pshift, int j) {
    if (s.pages) return base + (ak_i64)s.pages[j >> pshift] * sb + (ak_i64)(j & ((1 << pshift) - 1)) * ss;
    return base + (ak_i64)j * ss;
}
/* Visible keys [lo, hi] of query i (hi < lo: none). */
AK_INLINE int ak_attn_lo(const ak_attn_seq& s, int wl, int i) {
    const int p = i + s.skv - s.sq - wl;
    return wl >= 0 && p > 0 ? p : 0;
}
AK_INLINE int ak_attn_hi(const ak_attn_seq& s, int wr, int i) {
    const int p = i + s.skv - s.sq + wr;
    return wr >= 0 && p < s.skv - 1 ? p : s.skv - 1;
}

/* reduce v over aligned groups of G consecutive threads (G a power of two
 * or, past AK_WAVE, any multiple of AK_WAVE; 1 <= G <= blockDim.x, blockDim.x
 * a multiple of G and of AK_WAVE). Every
 * thread of the block must call it (it uses __syncthreads when G > AK_WAVE);
 * each gets its group's result. scratch: __shared__ float[AK_MAX_WAVES]. The
 * combination order is fixed, so the result is deterministic. */
template <class Op>
AK_INLINE float ak_group_reduce(float v, int G, float* scratch, Op op) {
    const int w = G < AK_WAVE ? G : AK_WAVE;
    for (int o = w >> 1; o > 0; o >>= 1) v = op(v, ak_shfl_xor(v, o));
    if (G > AK_WAVE) {
        const int wpg = G / AK_WAVE, first = ((int)threadIdx.x / G) * wpg;
        __syncthreads();
        if (ak_lane() == 0) scratch[ak_wave_id()] = v;
        __syncthreads();
        v = scratch[first];
        for (int i = 1; i < wpg; i++) v = op(v, scratch[first + i]);
    }
    return v;
}

/* a row (or a slice of one) of len elements held in registers, MAXE per
 * thread, by a group of G threads; lane = index in the group. vec: 8-element
 * 16-byte accesses (p 16-byte aligned and len % 8 == 0), element
 * (k * G + lane) * 8 + q goes to v[k * 8 + q]; else element k * G + lane goes
 * to v[k]. Slots past len get `pad`; ak_row_store skips them. */
template <class D, int MAXE>
AK_INLINE void ak_row_load(float* v, const typename D::T* p, int len, int lane, int G, bool vec, float pad) {
    if (vec) {
#pragma unroll
        for (int k = 0; k < MAXE / 8; k++) {
            const int e = (k * G + lane) * 8;
            if (e < len) D::ld8(p + e, v + k * 8);
            else {
#pragma unroll
                for (int q = 0; q < 8; q++) v[k * 8 + q] = pad;
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < MAXE; k++) {
            const int e = k * G + lane;
            v[k] = e < len ? D::to(p[e]) : pad;
        }
    }
}
template <class D, int MAXE>
AK_INLINE void ak_row_store(const float* v, typename D::T* p, int len, int lane, int G, bool vec) {
    if (vec) {
#pragma unroll
        for (int k = 0; k < MAXE / 8; k++) {
            const int e = (k * G + lane) * 8;
            if (e < len) D::st8(p + e, v + k * 8);
        }
    } else {
#pragma unroll
        for (int k = 0; k < MAXE; k++) {
            const int e = k * G + lane;
            if (e < len) p[e] = D::from(v[k]);
        }
    }
}
/* ---- activations: the ak_unary_op codes of amdkit.h, fp32 math --------- */
/* (ak_unary and the GEMM epilogue; ak_uop_apply dispatches a run-time code;
 * the host reads these as _AK_UNARY_* and checks them against ak_unary_op) */
// >>host
#define AK_UNARY_NONE 0
#define AK_UNARY_RELU 1
#define AK_UNARY_LEAKY_RELU 2
#define AK_UNARY_SIGMOID 3
#define AK_UNARY_TANH 4
#define AK_UNARY_SILU 5
#define AK_UNARY_GELU 6
#define AK_UNARY_GELU_TANH 7
#define AK_UNARY_ELU 8
#define AK_UNARY_SELU 9
#define AK_UNARY_HARDSIGMOID 10
#define AK_UNARY_HARDTANH 11
#define AK_UNARY_SOFTPLUS 12
#define AK_UNARY_SOFTSIGN 13
#define AK_UNARY_HARDSWISH 14
#define AK_UNARY_MISH 15
#define AK_UNARY_ABS 16
#define AK_UNARY_SQUARE 17
// <<host

struct ak_uop_relu { static AK_INLINE float f(float x, float, float = 0.0f) { return x < 0.0f ? 0.0f : x; } };
struct ak_uop_leaky { static AK_INLINE float f(float x, float s, float = 0.0f) { return x < 0.0f ? x * s : x; } };
struct ak_uop_sigmoid { static AK_INLINE float f(float x, float, float = 0.0f) { return 1.0f / (1.0f + expf(-x)); } };
struct ak_uop_tanh { static AK_INLINE float f(float x, float, float = 0.0f) { return tanhf(x); } };
struct ak_uop_silu { static AK_INLINE float f(float x, float, float = 0.0f) { return x / (1.0f + expf(-x)); } };
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
    static AK_INLINE float f(float x, float, float = 0.0f) { return 0.5f * x * (1.0f + ak_erf_as(x * 0.70710678118654752f)); }
};
struct ak_uop_gelu_tanh {
    /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    static AK_INLINE float f(float x, float, float = 0.0f) {
        const float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
        return 0.5f * x * (1.0f + tanhf(u));
    }
};
/* Two-value activations take (p, q); a zero value means the op's default
 * (softplus: beta 1, threshold 20; hardtanh: p = q = 0 is [-1, 1]), the rule
 * of ak_unary2 in amdkit.h. One-value callers (the GEMM epilogue) pass q = 0. */
struct ak_uop_elu {   /* x > 0 ? x : alpha (e^x - 1), alpha = p */
    static AK_INLINE float f(float x, float p, float = 0.0f) { return x > 0.0f ? x : p * expm1f(x); }
};
struct ak_uop_selu {  /* scale (max(0, x) + min(0, alpha (e^x - 1))), the constants of Klambauer et al. */
    static AK_INLINE float f(float x, float, float = 0.0f) {
        return 1.0507009873554804934f * (x > 0.0f ? x : 1.6732632423543772848f * expm1f(x));
    }
};
struct ak_uop_hardsigmoid {  /* clamp(x / 6 + 1 / 2, 0, 1) */
    static AK_INLINE float f(float x, float, float = 0.0f) {
        const float v = x * (1.0f / 6.0f) + 0.5f;
        return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;   /* NaN stays NaN */
    }
};
struct ak_uop_hardtanh {  /* min(max(x, p), q) (torch.clamp: q wins when p > q); p = q = 0: [-1, 1]; NaN stays NaN */
    static AK_INLINE float f(float x, float p, float q = 0.0f) {
        const bool d = p == 0.0f && q == 0.0f;
        const float lo = d ? -1.0f : p, hi = d ? 1.0f : q;
        const float v = x < lo ? lo : x;
        return v > hi ? hi : v;
    }
};
struct ak_uop_softplus {  /* log(1 + e^(beta x)) / beta, x where beta x > threshold; beta = p (0: 1), threshold = q (0: 20) */
    static AK_INLINE float f(float x, float p, float q = 0.0f) {
        const float b = p == 0.0f ? 1.0f : p, t = q == 0.0f ? 20.0f : q, u = b * x;
        return u > t ? x : log1pf(expf(u)) / b;
    }
};
struct ak_uop_softsign {  /* x / (1 + |x|) */
    static AK_INLINE float f(float x, float, float = 0.0f) { return x / (1.0f + fabsf(x)); }
};
struct ak_uop_hardswish {  /* x relu6(x + 3) / 6 */
    static AK_INLINE float f(float x, float, float = 0.0f) {
        const float r = x + 3.0f;
        return x * (r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r) * (1.0f / 6.0f);   /* NaN stays NaN */
    }
};
struct ak_uop_mish {  /* x tanh(softplus(x)) (softplus with threshold 20) */
    static AK_INLINE float f(float x, float, float = 0.0f) { return x * tanhf(x > 20.0f ? x : log1pf(expf(x))); }
};
struct ak_uop_abs {
    static AK_INLINE float f(float x, float, float = 0.0f) { return fabsf(x); }
};
struct ak_uop_square {
    static AK_INLINE float f(float x, float, float = 0.0f) { return x * x; }
};
/* Every op as X(code, functor): the one list that ak_uop_apply, ak_unary and
 * the GEMM epilogues switch over (a new op added here reaches all of them). */
#define AK_UOP_LIST(X)                                                                                       \
    X(AK_UNARY_RELU, ak_uop_relu) X(AK_UNARY_LEAKY_RELU, ak_uop_leaky) X(AK_UNARY_SIGMOID, ak_uop_sigmoid)    \
    X(AK_UNARY_TANH, ak_uop_tanh) X(AK_UNARY_SILU, ak_uop_silu) X(AK_UNARY_GELU, ak_uop_gelu)                \
    X(AK_UNARY_GELU_TANH, ak_uop_gelu_tanh) X(AK_UNARY_ELU, ak_uop_elu) X(AK_UNARY_SELU, ak_uop_selu)        \
    X(AK_UNARY_HARDSIGMOID, ak_uop_hardsigmoid) X(AK_UNARY_HARDTANH, ak_uop_hardtanh)                        \
    X(AK_UNARY_SOFTPLUS, ak_uop_softplus) X(AK_UNARY_SOFTSIGN, ak_uop_softsign)                              \
    X(AK_UNARY_HARDSWISH, ak_uop_hardswish) X(AK_UNARY_MISH, ak_uop_mish) X(AK_UNARY_ABS, ak_uop_abs)        \
    X(AK_UNARY_SQUARE, ak_uop_square)
AK_INLINE float ak_uop_apply(int op, float x, float p, float q = 0.0f) {
    switch (op) {
#define AK_UOP_CASE(CODE, OP) \
    case CODE: return OP::f(x, p, q);
        AK_UOP_LIST(AK_UOP_CASE)
#undef AK_UOP_CASE
    default: return x;
    }
}
/* ak_uop_apply_lean4: ak_uop_apply on 4 values, the cheap ops inline and the
 * ones built on exp / log / tanh / erf through one out-of-line copy that
 * takes all 4 (one call per 4 values). For an epilogue site a kernel unrolls
 * many times (the depthwise tiles: rows x vector): the whole switch inlined at
 * each copy doubled the convolution family's compile time on every target.
 * Elsewhere the inline switch is faster (a call per element cost the
 * implicit-GEMM epilogues 15% with GELU on the H100). Call it from a kernel
 * body only, never from a __noinline__ function: a nested call needs a stack
 * (scratch) on AMD, which the launch-plan check refuses. */
__device__ __noinline__ float4 ak_uop_apply_any4(int op, float4 v, float p) {
    v.x = ak_uop_apply(op, v.x, p);
    v.y = ak_uop_apply(op, v.y, p);
    v.z = ak_uop_apply(op, v.z, p);
    v.w = ak_uop_apply(op, v.w, p);
    return v;
}
AK_INLINE void ak_uop_apply_lean4(int op, float* o, float p) {
    switch (op) {
    case AK_UNARY_NONE: return;
#define AK_UOP_CHEAP4(CODE, OP) \
    case CODE: for (int i = 0; i < 4; i++) o[i] = OP::f(o[i], p, 0.0f); return;
        AK_UOP_CHEAP4(AK_UNARY_RELU, ak_uop_relu) AK_UOP_CHEAP4(AK_UNARY_LEAKY_RELU, ak_uop_leaky)
        AK_UOP_CHEAP4(AK_UNARY_HARDTANH, ak_uop_hardtanh) AK_UOP_CHEAP4(AK_UNARY_HARDSIGMOID, ak_uop_hardsigmoid)
        AK_UOP_CHEAP4(AK_UNARY_ABS, ak_uop_abs) AK_UOP_CHEAP4(AK_UNARY_SQUARE, ak_uop_square)
#undef AK_UOP_CHEAP4
    default: {
        const float4 r = ak_uop_apply_any4(op, make_float4(o[0], o[1], o[2], o[3]), p);
        o[0] = r.x; o[1] = r.y; o[2] = r.z; o[3] = r.w;
    }
    }
}
#endif /* !AK_HOST_LAYOUT_TEST */

/* ==========================================================================
 * ---- matrix fragments: one warp/wave-level MMA layer for every arch ---------
 * (used by kernels/gemm.hip and kernels/attention.hip)
 *
 * A matrix instruction multiplies an M x K tile A by a K x N tile B into an
 * M x N fp32 tile C, the tiles spread over the lanes of one wave. Part 1
 * below is the LANE LAYOUT of each instruction, as pure integer functions
 * (valid C99 too: tests/t_matrix.c checks them on the host against the
 * instruction semantics, an independent inverse map, and an emulated MMA):
 *
 *   ak_lay_<I>_a(lane, e, &m, &k)  element e of `lane`'s A fragment is A[m][k]
 *   ak_lay_<I>_b(lane, e, &k, &n)  element e of `lane`'s B fragment is B[k][n]
 *   ak_lay_<I>_c(lane, e, &m, &n)  accumulator e of `lane` is C[m][n]
 *
 *   <I>          instruction (builtin / PTX)                      lanes  A/B elems  C elems
 *   mfma32x32x8  mfma_f32_32x32x8f16, _32x32x8bf16_1k (gfx90a+)   64     4          16
 *   mfma32x32x16 mfma_f32_32x32x16_f16 / _bf16 (gfx950)           64     8          16
 *   mfma32x32x4  mfma_f32_32x32x4bf16 (gfx908), _32x32x4_xf32     64     2          16
 *                (gfx942)
 *   mfma32x32x2  mfma_f32_32x32x2f32 (exact fp32, all CDNA)       64     1          16
 *   wmma11       wmma_f32_16x16x16_f16_w32 / _bf16_w32 (gfx11)    32     16         8
 *                (lanes 16..31 repeat lanes 0..15's A and B)
 *   wmma12       wmma_f32_16x16x16_{f16,bf16}_w32_gfx12 (gfx12)   32     8          8
 *   mma16816     mma.sync.m16n8k16 f16 / bf16 (sm_80+)            32     8 / 4      4
 *   mma1688      mma.sync.m16n8k8 tf32 (sm_80+)                   32     4 / 2      4
 *
 * Sources: AMD's CDNA3 ISA guide (section 7) and matrix instruction
 * calculator (MFMA), AMD GPUOpen's RDNA3 / RDNA4 WMMA articles, NVIDIA's PTX
 * ISA "Matrix fragments for mma.m16n8k16 / m16n8k8". The gfx12 A / B maps
 * below are the order ak_mma loads (lane group g: k 8g .. 8g + 7, one 16-byte
 * load), not the hardware's (lanes 0..15: k 0..3, 8..11); A and B are permuted
 * alike along k, so the product is the same (tests/emu_matrix.cpp runs the
 * kernels with the hardware's order).
 *
 * Part 2 (device) is ak_mma<D, FAST32>, D = ak_f16_t / ak_bf16_t / ak_f32_t,
 * FAST32 = f32 through tf32 (NVIDIA) / xf32 (gfx942) instead of exact fp32:
 *   ak_mma<D>::OK           1 when this target has a matrix instruction for
 *                           D (else every member still compiles; do not call)
 *   M, N, K                 tile of one instruction; NC accumulators per lane
 *   A, B, C                 fragment types; C has `v[e]` (float, e < NC)
 *   zero(C&)                C = 0
 *   load_a(A&, s, ld)       A tile from memory (shared or global), k-contiguous:
 *                           element (m, k) at s[m * ld + k]
 *   load_b(B&, s, ld)       B tile, k-contiguous: element (k, n) at s[n * ld + k]
 *                           (i.e. B^T row-major); both need s and ld aligned to
 *                           the access: ld % 8 == 0 and s 16-byte aligned is enough
 *   mma(C&, A, B)           C += A * B
 *   c_row(lane, e), c_col   where accumulator e of a lane sits in the M x N tile
 * Everything is wave-synchronous: all lanes of the wave call together.
 * ========================================================================== */
#ifdef AK_HOST_LAYOUT_TEST
#define AK_LAY static inline
#else
#define AK_LAY AK_INLINE
#endif

/* MFMA 32x32xKL, KL = k elements per lane (8 f16 on gfx908..942: 4; gfx950: 8). */
#define AK_LAY_MFMA32(NAME, KL)                                                                    \
    AK_LAY void ak_lay_##NAME##_a(int lane, int e, int* m, int* k) { *m = lane % 32; *k = (KL) * (lane / 32) + e; } \
    AK_LAY void ak_lay_##NAME##_b(int lane, int e, int* k, int* n) { *n = lane % 32; *k = (KL) * (lane / 32) + e; } \
    AK_LAY void ak_lay_##NAME##_c(int lane, int e, int* m, int* n) {                              \
        *n = lane % 32;                                                                            \
        *m = 8 * (e / 4) + 4 * (lane / 32) + e % 4;                                                \
    }
AK_LAY_MFMA32(mfma32x32x8, 4)
AK_LAY_MFMA32(mfma32x32x16, 8)
AK_LAY_MFMA32(mfma32x32x4, 2)
AK_LAY_MFMA32(mfma32x32x2, 1)

AK_LAY void ak_lay_wmma11_a(int lane, int e, int* m, int* k) { *m = lane % 16; *k = e; }
AK_LAY void ak_lay_wmma11_b(int lane, int e, int* k, int* n) { *n = lane % 16; *k = e; }
AK_LAY void ak_lay_wmma11_c(int lane, int e, int* m, int* n) { *n = lane % 16; *m = 2 * e + lane / 16; }

AK_LAY void ak_lay_wmma12_a(int lane, int e, int* m, int* k) { *m = lane % 16; *k = 8 * (lane / 16) + e; }
AK_LAY void ak_lay_wmma12_b(int lane, int e, int* k, int* n) { *n = lane % 16; *k = 8 * (lane / 16) + e; }
AK_LAY void ak_lay_wmma12_c(int lane, int e, int* m, int* n) { *n = lane % 16; *m = 8 * (lane / 16) + e; }

/* mma.sync m16n8k16 (f16/bf16): A a0..a7, B b0..b3, C c0..c3 in PTX order. */
AK_LAY void ak_lay_mma16816_a(int lane, int e, int* m, int* k) {
    *m = lane / 4 + 8 * ((e / 2) % 2);
    *k = 2 * (lane % 4) + e % 2 + 8 * (e / 4);
}
AK_LAY void ak_lay_mma16816_b(int lane, int e, int* k, int* n) { *n = lane / 4; *k = 2 * (lane % 4) + e % 2 + 8 * (e / 2); }
AK_LAY void ak_lay_mma16816_c(int lane, int e, int* m, int* n) { *m = lane / 4 + 8 * (e / 2); *n = 2 * (lane % 4) + e % 2; }
/* mma.sync m16n8k8 (tf32) */
AK_LAY void ak_lay_mma1688_a(int lane, int e, int* m, int* k) { *m = lane / 4 + 8 * (e % 2); *k = lane % 4 + 4 * (e / 2); }
AK_LAY void ak_lay_mma1688_b(int lane, int e, int* k, int* n) { *n = lane / 4; *k = lane % 4 + 4 * e; }
AK_LAY void ak_lay_mma1688_c(int lane, int e, int* m, int* n) { ak_lay_mma16816_c(lane, e, m, n); }

#ifndef AK_HOST_LAYOUT_TEST
/* ---- part 2: ak_mma<D, FAST32> per target -------------------------------- */
#if defined(AK_AMD) && (defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || \
                        defined(__gfx942__) || defined(__gfx950__))
#define AK_MMA_MFMA 1
#elif defined(AK_AMD) && (defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1103__) || \
                          defined(__gfx1150__) || defined(__gfx1151__) || defined(__gfx1152__) || defined(__gfx1153__))
#define AK_MMA_WMMA11 1
#elif defined(AK_AMD) && (defined(__gfx1200__) || defined(__gfx1201__))
#define AK_MMA_WMMA12 1
#elif defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define AK_MMA_SYNC 1
#endif

/* Reference form used where the target has no instruction for D: the
 * members exist so code compiles everywhere; OK = 0 says never call them. */
template <class D, bool FAST32 = false>
struct ak_mma {
    enum { OK = 0, M = 16, N = 16, K = 16, NC = 1 };
    struct A { float x; };
    struct B { float x; };
    struct C { float v[1]; };
    static AK_INLINE void zero(C& c) { c.v[0] = 0.0f; }
    static AK_INLINE void load_a(A& a, const typename D::T* s, int ld) { (void)ld; a.x = D::to(s[0]); }
    static AK_INLINE void load_b(B& b, const typename D::T* s, int ld) { (void)ld; b.x = D::to(s[0]); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v[0] += a.x * b.x; }
    static AK_INLINE int c_row(int lane, int e) { (void)e; return lane; }
    static AK_INLINE int c_col(int lane, int e) { (void)lane; return e; }
};

#if defined(AK_MMA_MFMA)
typedef float ak_f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 ak_f16x4 __attribute__((ext_vector_type(4)));
typedef short ak_i16x4 __attribute__((ext_vector_type(4)));
typedef short ak_i16x2 __attribute__((ext_vector_type(2)));
typedef float ak_f32x2 __attribute__((ext_vector_type(2)));
typedef int ak_i32x16 __attribute__((ext_vector_type(16))); /* int8 MFMA (kernels/gemm.hip) */
typedef int ak_i32x4 __attribute__((ext_vector_type(4)));
#if defined(__gfx950__)
typedef _Float16 ak_f16x8 __attribute__((ext_vector_type(8)));
typedef __bf16 ak_bf16x8 __attribute__((ext_vector_type(8)));
typedef int ak_i32x8 __attribute__((ext_vector_type(8))); /* fp8 MFMA f8f6f4 (kernels/gemm_fp8.hip) */
#endif
/* 32 x 32 output tile on 64 lanes; C accumulators per ak_lay_mfma32x32x*_c. */
struct ak_mfma32_c {
    struct C { ak_f32x16 v; };
    enum { M = 32, N = 32, NC = 16 };
    static AK_INLINE void zero(C& c) {
#pragma unroll
        for (int e = 0; e < 16; e++) c.v[e] = 0.0f;
    }
    static AK_INLINE int c_row(int lane, int e) { return 8 * (e / 4) + 4 * (lane / 32) + e % 4; }
    static AK_INLINE int c_col(int lane, int e) { (void)e; return lane % 32; }
};
#if defined(__gfx950__)
/* gfx950: 32x32x16, 8 halves per lane (ak_lay_mfma32x32x16) */
template <> struct ak_mma<ak_f16_t, false> : ak_mfma32_c {
    enum { OK = 1, K = 16 };
    struct A { ak_f16x8 x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const ak_half* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_f16x8*)(s + (l % 32) * ld + 8 * (l / 32));
    }
    static AK_INLINE void load_b(B& b, const ak_half* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x16_f16(a.x, b.x, c.v, 0, 0, 0); }
};
template <> struct ak_mma<ak_bf16_t, false> : ak_mfma32_c {
    enum { OK = 1, K = 16 };
    struct A { ak_bf16x8 x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const ak_bf16* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_bf16x8*)(s + (l % 32) * ld + 8 * (l / 32));
    }
    static AK_INLINE void load_b(B& b, const ak_bf16* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a.x, b.x, c.v, 0, 0, 0); }
};
#else
/* gfx908 / gfx90a / gfx94x: 32x32x8, 4 halves per lane (ak_lay_mfma32x32x8) */
template <> struct ak_mma<ak_f16_t, false> : ak_mfma32_c {
    enum { OK = 1, K = 8 };
    struct A { ak_f16x4 x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const ak_half* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_f16x4*)(s + (l % 32) * ld + 4 * (l / 32));
    }
    static AK_INLINE void load_b(B& b, const ak_half* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x8f16(a.x, b.x, c.v, 0, 0, 0); }
};
#if defined(__gfx908__)
/* gfx908 has no _1k bf16 forms: 32x32x4bf16, 2 per lane (ak_lay_mfma32x32x4) */
template <> struct ak_mma<ak_bf16_t, false> : ak_mfma32_c {
    enum { OK = 1, K = 4 };
    struct A { ak_i16x2 x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const ak_bf16* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_i16x2*)(s + (l % 32) * ld + 2 * (l / 32));
    }
    static AK_INLINE void load_b(B& b, const ak_bf16* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x4bf16(a.x, b.x, c.v, 0, 0, 0); }
};
#else
template <> struct ak_mma<ak_bf16_t, false> : ak_mfma32_c {
    enum { OK = 1, K = 8 };
    struct A { ak_i16x4 x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const ak_bf16* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_i16x4*)(s + (l % 32) * ld + 4 * (l / 32));
    }
    static AK_INLINE void load_b(B& b, const ak_bf16* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a.x, b.x, c.v, 0, 0, 0); }
};
#endif
#endif
/* exact fp32 on every CDNA: 32x32x2f32, 1 per lane (ak_lay_mfma32x32x2) */
template <> struct ak_mma<ak_f32_t, false> : ak_mfma32_c {
    enum { OK = 1, K = 2 };
    struct A { float x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const float* s, int ld) {
        const int l = ak_lane();
        a.x = s[(l % 32) * ld + (l / 32)];
    }
    static AK_INLINE void load_b(B& b, const float* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x2f32(a.x, b.x, c.v, 0, 0, 0); }
};
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
/* xf32 (gfx94x only; gfx950 dropped it): 32x32x4_xf32, 2 per lane (ak_lay_mfma32x32x4) */
template <> struct ak_mma<ak_f32_t, true> : ak_mfma32_c {
    enum { OK = 1, K = 4 };
    struct A { ak_f32x2 x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const float* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_f32x2*)(s + (l % 32) * ld + 2 * (l / 32));
    }
    static AK_INLINE void load_b(B& b, const float* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = __builtin_amdgcn_mfma_f32_32x32x4_xf32(a.x, b.x, c.v, 0, 0, 0); }
};
#else
template <> struct ak_mma<ak_f32_t, true> : ak_mma<ak_f32_t, false> {};
#endif
#endif /* AK_MMA_MFMA */

#if defined(AK_MMA_WMMA11) || defined(AK_MMA_WMMA12)
typedef float ak_f32x8 __attribute__((ext_vector_type(8)));
#if defined(AK_MMA_WMMA11)
#define AK_WMMA_KL 16
#define AK_WMMA_F16(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c)
#define AK_WMMA_BF16(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c)
#else
#define AK_WMMA_KL 8
#define AK_WMMA_F16(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c)
#define AK_WMMA_BF16(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c)
#endif
typedef _Float16 ak_wmma_h __attribute__((ext_vector_type(AK_WMMA_KL)));
typedef short ak_wmma_s __attribute__((ext_vector_type(AK_WMMA_KL)));
#define AK_WMMA_KW (AK_WMMA_KL / 4)
typedef int ak_wmma_i8 __attribute__((ext_vector_type(AK_WMMA_KW))); /* int8 WMMA: KL bytes (kernels/gemm.hip) */
typedef int ak_i32x8 __attribute__((ext_vector_type(8)));
struct ak_wmma_c {
    struct C { ak_f32x8 v; };
    enum { M = 16, N = 16, K = 16, NC = 8 };
    static AK_INLINE void zero(C& c) {
#pragma unroll
        for (int e = 0; e < 8; e++) c.v[e] = 0.0f;
    }
#if defined(AK_MMA_WMMA11)
    static AK_INLINE int c_row(int lane, int e) { return 2 * e + lane / 16; }
#else
    static AK_INLINE int c_row(int lane, int e) { return 8 * (lane / 16) + e; }
#endif
    static AK_INLINE int c_col(int lane, int e) { (void)e; return lane % 16; }
    /* lane's k run start: gfx11 0 (whole row, lanes 16..31 repeat), gfx12 8 * (lane / 16) */
    static AK_INLINE int k0(int lane) { return AK_WMMA_KL == 16 ? 0 : 8 * (lane / 16); }
};
template <> struct ak_mma<ak_f16_t, false> : ak_wmma_c {
    enum { OK = 1 };
    struct A { ak_wmma_h x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const ak_half* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_wmma_h*)(s + (l % 16) * ld + k0(l));
    }
    static AK_INLINE void load_b(B& b, const ak_half* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = AK_WMMA_F16(a.x, b.x, c.v); }
};
template <> struct ak_mma<ak_bf16_t, false> : ak_wmma_c {
    enum { OK = 1 };
    struct A { ak_wmma_s x; };
    typedef A B;
    static AK_INLINE void load_a(A& a, const ak_bf16* s, int ld) {
        const int l = ak_lane();
        a.x = *(const ak_wmma_s*)(s + (l % 16) * ld + k0(l));
    }
    static AK_INLINE void load_b(B& b, const ak_bf16* s, int ld) { load_a(b, s, ld); }
    static AK_INLINE void mma(C& c, const A& a, const B& b) { c.v = AK_WMMA_BF16(a.x, b.x, c.v); }
};
#endif /* WMMA */

#if defined(AK_MMA_SYNC)
/* 32-bit shared-memory address of a generic pointer into shared memory. */
AK_INLINE ak_u32 ak_smem_addr(const void* p) {
    ak_u32 a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}
struct ak_mma_sync_c {
    struct C { float v[4]; };
    enum { M = 16, N = 8, NC = 4 };
    static AK_INLINE void zero(C& c) { c.v[0] = c.v[1] = c.v[2] = c.v[3] = 0.0f; }
    static AK_INLINE int c_row(int lane, int e) { return lane / 4 + 8 * (e / 2); }
    static AK_INLINE int c_col(int lane, int e) { return 2 * (lane % 4) + e % 2; }
};
/* m16n8k16 for 16-bit types; A and B read 32 bits (two consecutive k) at a
 * time per ak_lay_mma16816. load_a_ldsm / load_b_ldsm: the same fragments
 * through ldmatrix (s must point to SHARED memory, rows 16-byte aligned). */
template <class D>
struct ak_mma_sync16 : ak_mma_sync_c {
    enum { OK = 1, K = 16 };
    struct A { ak_u32 r[4]; };
    struct B { ak_u32 r[2]; };
    static AK_INLINE void load_a(A& a, const typename D::T* s, int ld) {
        const int l = ak_lane(), g = l / 4, t = l % 4;
        a.r[0] = *(const ak_u32*)(s + g * ld + 2 * t);
        a.r[1] = *(const ak_u32*)(s + (g + 8) * ld + 2 * t);
        a.r[2] = *(const ak_u32*)(s + g * ld + 2 * t + 8);
        a.r[3] = *(const ak_u32*)(s + (g + 8) * ld + 2 * t + 8);
    }
    static AK_INLINE void load_b(B& b, const typename D::T* s, int ld) {
        const int l = ak_lane(), g = l / 4, t = l % 4;
        b.r[0] = *(const ak_u32*)(s + g * ld + 2 * t);
        b.r[1] = *(const ak_u32*)(s + g * ld + 2 * t + 8);
    }
    static AK_INLINE void load_a_ldsm(A& a, const typename D::T* s, int ld) {
        const int l = ak_lane();
        const ak_u32 p = ak_smem_addr(s + (l % 16) * ld + 8 * (l / 16));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a.r[0]), "=r"(a.r[1]), "=r"(a.r[2]), "=r"(a.r[3]) : "r"(p));
    }
    /* two B fragments at once: columns n 0..7 (b0) and 8..15 (b1) */
    static AK_INLINE void load_b2_ldsm(B& b0, B& b1, const typename D::T* s, int ld) {
        const int l = ak_lane();
        const ak_u32 p = ak_smem_addr(s + ((l % 8) + 8 * (l / 16)) * ld + 8 * ((l / 8) % 2));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(b0.r[0]), "=r"(b0.r[1]), "=r"(b1.r[0]), "=r"(b1.r[1]) : "r"(p));
    }
};
template <> struct ak_mma<ak_f16_t, false> : ak_mma_sync16<ak_f16_t> {
    static AK_INLINE void mma(C& c, const A& a, const B& b) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c.v[0]), "+f"(c.v[1]), "+f"(c.v[2]), "+f"(c.v[3])
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]));
    }
};
template <> struct ak_mma<ak_bf16_t, false> : ak_mma_sync16<ak_bf16_t> {
    static AK_INLINE void mma(C& c, const A& a, const B& b) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c.v[0]), "+f"(c.v[1]), "+f"(c.v[2]), "+f"(c.v[3])
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]));
    }
};
/* tf32: m16n8k8 per ak_lay_mma1688; inputs rounded to tf32 (cvt.rna) */
AK_INLINE ak_u32 ak_f2tf32(float f) {
    ak_u32 r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
    return r;
}
template <> struct ak_mma<ak_f32_t, true> : ak_mma_sync_c {
    enum { OK = 1, K = 8 };
    struct A { ak_u32 r[4]; };
    struct B { ak_u32 r[2]; };
    static AK_INLINE void load_a(A& a, const float* s, int ld) {
        const int l = ak_lane(), g = l / 4, t = l % 4;
        a.r[0] = ak_f2tf32(s[g * ld + t]);
        a.r[1] = ak_f2tf32(s[(g + 8) * ld + t]);
        a.r[2] = ak_f2tf32(s[g * ld + t + 4]);
        a.r[3] = ak_f2tf32(s[(g + 8) * ld + t + 4]);
    }
    static AK_INLINE void load_b(B& b, const float* s, int ld) {
        const int l = ak_lane(), g = l / 4, t = l % 4;
        b.r[0] = ak_f2tf32(s[g * ld + t]);
        b.r[1] = ak_f2tf32(s[g * ld + t + 4]);
    }
    static AK_INLINE void mma(C& c, const A& a, const B& b) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c.v[0]), "+f"(c.v[1]), "+f"(c.v[2]), "+f"(c.v[3])
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]));
    }
};
#endif /* AK_MMA_SYNC */

/* ---- Hopper (sm_90a) warpgroup MMA: wgmma + cp.async ----------------------
 * sm_90a only (__CUDA_ARCH_FEAT_SM90_ALL); AK_WGMMA says it is there.
 * Shared-memory operand layout (K-major, 128-byte swizzle): a tile of R rows
 * x 64 16-bit k values takes R x 128 bytes, 1024-byte aligned; the 16-byte
 * chunk c (k = 8c..8c+7) of row r sits at r * 128 + ((c ^ (r % 8)) * 16)
 * (ak_sw128). ak_wgmma_desc(p) describes such a tile starting at p  (a row
 * multiple of 8; add 32 bytes per k step within the 128-byte row).
 * ak_wgmma_<f16|bf16>_n<128|256>(d, da, db, acc): one warpgroup (4 warps,
 * 128 threads, starting at a warp index divisible by 4) does
 * D(64 x N) = A(64 x 16) B(16 x N) (+ D when acc != 0), A rows from da, B
 * (ak_wgmma_tf32_n*: k step 8 of fp32 data read as TF32, i.e. the low 13
 * mantissa bits ignored; a 128-byte row holds 32 of them)
 * "rows" (= columns n) from db, both K-major. Accumulator d[r] of thread t
 * (warp w = t / 32, lane l): row 16 w + l / 4 + 8 ((r / 2) % 2), column
 * 8 (r / 4) + 2 (l % 4) + r % 2 (ak_wgmma_row / ak_wgmma_col).
 * Order: ak_wgmma_fence() before the first wgmma of a batch, ak_wgmma_commit()
 * after, ak_wgmma_wait<N>() before touching d or overwriting the operands.
 * Shared memory filled by cp.async (ak_cp_async16: 16 bytes, the tail past
 * src_bytes zero-filled) needs ak_cp_async_wait<N>() + ak_fence_proxy_async()
 * in each writing thread, then a barrier, before wgmma reads it. */
#if defined(AK_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define AK_WGMMA 1
AK_INLINE int ak_sw128(int r, int c) { return r * 128 + ((c ^ (r & 7)) << 4); }
AK_INLINE ak_u64 ak_wgmma_desc(const void* p) {
    const ak_u32 a = ak_smem_addr(p);
    return (ak_u64)((a & 0x3FFFF) >> 4) | ((ak_u64)1 << 16) | ((ak_u64)(1024 >> 4) << 32) | ((ak_u64)1 << 62);
}
AK_INLINE int ak_wgmma_row(int t, int r) { return 16 * ((t % 128) / 32) + (t % 32) / 4 + 8 * ((r / 2) % 2); }
AK_INLINE int ak_wgmma_col(int t, int r) { return 8 * (r / 4) + 2 * (t % 4) + r % 2; }
AK_INLINE void ak_wgmma_fence(void) { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
AK_INLINE void ak_wgmma_commit(void) { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> AK_INLINE void ak_wgmma_wait(void) { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
AK_INLINE void ak_fence_proxy_async(void) { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
AK_INLINE void ak_cp_async16(void* smem, const void* src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(ak_smem_addr(smem)), "l"(src), "r"(src_bytes) : "memory");
}
AK_INLINE void ak_cp_async_commit(void) { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> AK_INLINE void ak_cp_async_wait(void) { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
/* The wgmma wrappers, one macro: AK_WGMMA_FN(N, NAME, INSTR, TAIL) defines
 * NAME(d, da, db, acc) as wgmma.mma_async.sync.aligned.<INSTR> with N (n128 or
 * n256) accumulators' operands, TAIL the immediates after the scale ones
 * (", 0, 0": no transpose, for f16/bf16; none for tf32). For each N:
 * AK_WGMMA_OUT_<N> the "+f"(d[i]) operands (64 or 128 of them, from
 * AK_WGMMA_D8(i): d[i] .. d[i + 7]), AK_WGMMA_REGS_<N> the instruction's
 * "%0, %1, ..." list naming them (AK_WGMMA_R10(t): %t0 .. %t9), then the two
 * descriptors and the acc predicate as the next operand numbers. */
#define AK_WGMMA_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define AK_WGMMA_D64(i) AK_WGMMA_D8(i), AK_WGMMA_D8(i + 8), AK_WGMMA_D8(i + 16), AK_WGMMA_D8(i + 24), \
    AK_WGMMA_D8(i + 32), AK_WGMMA_D8(i + 40), AK_WGMMA_D8(i + 48), AK_WGMMA_D8(i + 56)
#define AK_WGMMA_R10(t) "%" #t "0, %" #t "1, %" #t "2, %" #t "3, %" #t "4, %" #t "5, %" #t "6, %" #t "7, %" #t "8, %" #t "9"
#define AK_WGMMA_OUT_n128 AK_WGMMA_D64(0)
#define AK_WGMMA_OUT_n256 AK_WGMMA_D64(0), AK_WGMMA_D64(64)
#define AK_WGMMA_REGS_n128 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, " AK_WGMMA_R10(1) ", " AK_WGMMA_R10(2) ", " \
    AK_WGMMA_R10(3) ", " AK_WGMMA_R10(4) ", " AK_WGMMA_R10(5) ", %60, %61, %62, %63"
#define AK_WGMMA_REGS_n256 AK_WGMMA_REGS_n128 ", %64, %65, %66, %67, %68, %69, " AK_WGMMA_R10(7) ", " AK_WGMMA_R10(8) ", " \
    AK_WGMMA_R10(9) ", " AK_WGMMA_R10(10) ", " AK_WGMMA_R10(11) ", %120, %121, %122, %123, %124, %125, %126, %127"
#define AK_WGMMA_DESC_n128 "%64, %65"
#define AK_WGMMA_PRED_n128 "%66"
#define AK_WGMMA_DESC_n256 "%128, %129"
#define AK_WGMMA_PRED_n256 "%130"
#define AK_WGMMA_FN(N, NAME, INSTR, TAIL) \
    AK_INLINE void NAME(float* d, ak_u64 da, ak_u64 db, int acc) { \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " AK_WGMMA_PRED_##N ", 0;\nwgmma.mma_async.sync.aligned." INSTR \
                     " {" AK_WGMMA_REGS_##N "}, " AK_WGMMA_DESC_##N ", p, 1, 1" TAIL ";\n}\n" \
                     : AK_WGMMA_OUT_##N : "l"(da), "l"(db), "r"(acc) : "memory"); \
    }
AK_WGMMA_FN(n128, ak_wgmma_f16_n128, "m64n128k16.f32.f16.f16", ", 0, 0")
AK_WGMMA_FN(n128, ak_wgmma_bf16_n128, "m64n128k16.f32.bf16.bf16", ", 0, 0")
AK_WGMMA_FN(n256, ak_wgmma_f16_n256, "m64n256k16.f32.f16.f16", ", 0, 0")
AK_WGMMA_FN(n256, ak_wgmma_bf16_n256, "m64n256k16.f32.bf16.bf16", ", 0, 0")
AK_WGMMA_FN(n128, ak_wgmma_tf32_n128, "m64n128k8.f32.tf32.tf32", "")
AK_WGMMA_FN(n256, ak_wgmma_tf32_n256, "m64n256k8.f32.tf32.tf32", "")
/* More accumulator widths (n32 .. n192: the attention kernels' P V with N = head size),
 * and the register-A form: ak_wgmma_rs_<f16|bf16>_n<N>(d, a, db, acc) does
 * D(64 x N) (+)= A(64 x 16) B(16 x N) with A from registers (a[0..3]: the
 * mma.sync m16n8k16 A fragment of the thread's warp rows 16 w .. 16 w + 15,
 * i.e. the packed pairs of the accumulators d[8 kk .. 8 kk + 7] of a
 * previous wgmma, columns 16 kk ..) and B MN-major (transpose bit: B stored
 * [k][n], n contiguous, 128-byte swizzled rows of 64 n values, blocks of 64 n
 * LBO bytes apart, 8-row groups 1024 bytes apart: ak_wgmma_desc_mn). */
#define AK_WGMMA_OUT_n32 AK_WGMMA_D8(0), AK_WGMMA_D8(8)
#define AK_WGMMA_REGS_n32 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
#define AK_WGMMA_DESC_n32 "%16, %17"
#define AK_WGMMA_PRED_n32 "%18"
#define AK_WGMMA_OUT_n64 AK_WGMMA_D8(0), AK_WGMMA_D8(8), AK_WGMMA_D8(16), AK_WGMMA_D8(24)
#define AK_WGMMA_REGS_n64 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define AK_WGMMA_DESC_n64 "%32, %33"
#define AK_WGMMA_PRED_n64 "%34"
#define AK_WGMMA_OUT_n80 AK_WGMMA_D8(0), AK_WGMMA_D8(8), AK_WGMMA_D8(16), AK_WGMMA_D8(24), AK_WGMMA_D8(32)
#define AK_WGMMA_REGS_n80 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39"
#define AK_WGMMA_DESC_n80 "%40, %41"
#define AK_WGMMA_PRED_n80 "%42"
#define AK_WGMMA_OUT_n96 AK_WGMMA_D8(0), AK_WGMMA_D8(8), AK_WGMMA_D8(16), AK_WGMMA_D8(24), AK_WGMMA_D8(32), AK_WGMMA_D8(40)
#define AK_WGMMA_REGS_n96 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"
#define AK_WGMMA_DESC_n96 "%48, %49"
#define AK_WGMMA_PRED_n96 "%50"
#define AK_WGMMA_OUT_n192 AK_WGMMA_D8(0), AK_WGMMA_D8(8), AK_WGMMA_D8(16), AK_WGMMA_D8(24), AK_WGMMA_D8(32), AK_WGMMA_D8(40), AK_WGMMA_D8(48), AK_WGMMA_D8(56), AK_WGMMA_D8(64), AK_WGMMA_D8(72), AK_WGMMA_D8(80), AK_WGMMA_D8(88)
#define AK_WGMMA_REGS_n192 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define AK_WGMMA_DESC_n192 "%96, %97"
#define AK_WGMMA_PRED_n192 "%98"
#define AK_WGMMA_RSA_n32 "%16, %17, %18, %19"
#define AK_WGMMA_RSB_n32 "%20"
#define AK_WGMMA_RSP_n32 "%21"
#define AK_WGMMA_RSA_n64 "%32, %33, %34, %35"
#define AK_WGMMA_RSB_n64 "%36"
#define AK_WGMMA_RSP_n64 "%37"
#define AK_WGMMA_RSA_n80 "%40, %41, %42, %43"
#define AK_WGMMA_RSB_n80 "%44"
#define AK_WGMMA_RSP_n80 "%45"
#define AK_WGMMA_RSA_n96 "%48, %49, %50, %51"
#define AK_WGMMA_RSB_n96 "%52"
#define AK_WGMMA_RSP_n96 "%53"
#define AK_WGMMA_RSA_n192 "%96, %97, %98, %99"
#define AK_WGMMA_RSB_n192 "%100"
#define AK_WGMMA_RSP_n192 "%101"
#define AK_WGMMA_RSA_n128 "%64, %65, %66, %67"
#define AK_WGMMA_RSB_n128 "%68"
#define AK_WGMMA_RSP_n128 "%69"
#define AK_WGMMA_RSA_n256 "%128, %129, %130, %131"
#define AK_WGMMA_RSB_n256 "%132"
#define AK_WGMMA_RSP_n256 "%133"
#define AK_WGMMA_RS_FN(N, NAME, INSTR) \
    AK_INLINE void NAME(float* d, const ak_u32* a, ak_u64 db, int acc) { \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " AK_WGMMA_RSP_##N ", 0;\nwgmma.mma_async.sync.aligned." INSTR \
                     " {" AK_WGMMA_REGS_##N "}, {" AK_WGMMA_RSA_##N "}, " AK_WGMMA_RSB_##N ", p, 1, 1, 1;\n}\n" \
                     : AK_WGMMA_OUT_##N : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(acc) : "memory"); \
    }
AK_WGMMA_RS_FN(n32, ak_wgmma_rs_f16_n32, "m64n32k16.f32.f16.f16")
AK_WGMMA_RS_FN(n32, ak_wgmma_rs_bf16_n32, "m64n32k16.f32.bf16.bf16")
AK_WGMMA_RS_FN(n64, ak_wgmma_rs_f16_n64, "m64n64k16.f32.f16.f16")
AK_WGMMA_RS_FN(n64, ak_wgmma_rs_bf16_n64, "m64n64k16.f32.bf16.bf16")
AK_WGMMA_RS_FN(n80, ak_wgmma_rs_f16_n80, "m64n80k16.f32.f16.f16")
AK_WGMMA_RS_FN(n80, ak_wgmma_rs_bf16_n80, "m64n80k16.f32.bf16.bf16")
AK_WGMMA_RS_FN(n96, ak_wgmma_rs_f16_n96, "m64n96k16.f32.f16.f16")
AK_WGMMA_RS_FN(n96, ak_wgmma_rs_bf16_n96, "m64n96k16.f32.bf16.bf16")
AK_WGMMA_RS_FN(n128, ak_wgmma_rs_f16_n128, "m64n128k16.f32.f16.f16")
AK_WGMMA_RS_FN(n128, ak_wgmma_rs_bf16_n128, "m64n128k16.f32.bf16.bf16")
AK_WGMMA_RS_FN(n192, ak_wgmma_rs_f16_n192, "m64n192k16.f32.f16.f16")
AK_WGMMA_RS_FN(n192, ak_wgmma_rs_bf16_n192, "m64n192k16.f32.bf16.bf16")
AK_WGMMA_RS_FN(n256, ak_wgmma_rs_f16_n256, "m64n256k16.f32.f16.f16")
AK_WGMMA_RS_FN(n256, ak_wgmma_rs_bf16_n256, "m64n256k16.f32.bf16.bf16")
AK_WGMMA_FN(n64, ak_wgmma_f16_n64, "m64n64k16.f32.f16.f16", ", 0, 0")
AK_WGMMA_FN(n64, ak_wgmma_bf16_n64, "m64n64k16.f32.bf16.bf16", ", 0, 0")
AK_WGMMA_FN(n192, ak_wgmma_f16_n192, "m64n192k16.f32.f16.f16", ", 0, 0")
AK_WGMMA_FN(n192, ak_wgmma_bf16_n192, "m64n192k16.f32.bf16.bf16", ", 0, 0")
/* MN-major 128-byte-swizzle descriptor: LBO = bytes between blocks of 64 n (or m) values, SBO = 1024. */
AK_INLINE ak_u64 ak_wgmma_desc_mn(const void* p, ak_u32 lbo) {
    const ak_u32 a = ak_smem_addr(p);
    return (ak_u64)((a & 0x3FFFF) >> 4) | ((ak_u64)((lbo & 0x3FFFF) >> 4) << 16) | ((ak_u64)(1024 >> 4) << 32) | ((ak_u64)1 << 62);
}

#endif /* AK_WGMMA */
#endif /* !AK_HOST_LAYOUT_TEST */
