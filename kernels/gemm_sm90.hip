/* kernels/gemm_sm90.hip: the Hopper (sm_90a) GEMM for f16 / bf16 inputs,
 *   D = act(alpha op(A) op(B) + beta C + bias) + R, batched (strided),
 * every layout of A and B (k-contiguous or m / n-contiguous) without a
 * transpose pass; and for 8-bit float inputs (OCP e4m3 / e5m2, either one
 * for each operand), both operands k-contiguous (wgmma takes fp8 K-major
 * only: A stored M x K, B stored N x K), with f32 scales in the epilogue,
 *   D = act(alpha sA[m] sB[n] A B^T + beta C + bias) + R,
 * sA one value or one per row of A, sB one value or one per row of B
 * (column of D), as torch._scaled_mm; and for int8 x int8 (K-major too),
 * s8 wgmma into int32 accumulators (exact, wrapping mod 2^32, one sum over
 * all of k), D the raw int32 sums (torch._int_mm) or the fp8 kernels'
 * scaled f32 / f16 / bf16 epilogue on the sums converted to f32; and for
 * f32 inputs read as TF32 (config.allow_tf32), K-major too, k steps of 32
 * values (m64nBNk8 tf32 wgmma, 128 bytes a row as for the other types), D f32.
 * Host wrapper, plan and CPU reference: ak_gemm in amdkit.h
 * (>>impl:ops-gemm), which picks this family on rows of the architecture
 * table with wgmma and TMA and encodes the two tensor maps.
 *
 * Block: 3 warpgroups (384 threads), one 128 x BN output tile at a time
 * (BN 256, 128, or 64 for the 16-bit types: twice the tiles of 128 x 128 for
 * grids that fill the SMs once at most, 8 stages of 24 KiB).
 *   - warpgroup 0 is the producer: it gives up registers (setmaxnreg 40) and
 *     one thread issues the TMA copies of the A (128 x 64) and B (BN x 64)
 *     tiles of each k step into a ring of S shared-memory stages, each stage
 *     guarded by two mbarriers (full: the copies landed, counted in bytes;
 *     empty: both consumers are done reading it), waited with parity.
 *   - warpgroups 1 and 2 are the consumers (setmaxnreg 232): rows 0..63 and
 *     64..127 of the tile, m64nBNk16 wgmma from the stage (4 per k step;
 *     fp8: m64nBNk32 over k steps of 128 values, the same bytes per stage),
 *     one wgmma group kept in flight (the stage before is released when the
 *     current one is issued), fp32 accumulators in registers (BN / 2 each).
 * Operands in shared memory are 128-byte swizzled as TMA writes them: a
 * k-contiguous operand as rows of 64 k values (wgmma K-major), an m / n-
 * contiguous one as k rows of 64 m / n values, one 8 KiB block per 64 of m / n
 * (wgmma MN-major with the transpose bit; 16-bit types only). TMA fills
 * everything outside the matrix with zeros, so tails in m, n and k need no
 * code: rows past M / N are computed and never stored, k past K adds zeros.
 * Persistent grid: one block per SM walks the tiles t = blockIdx.x,
 * blockIdx.x + gridDim.x, ...; tile t is batch t / (tm tn), and within a
 * batch the tiles go in groups of 8 tile rows, column by column (concurrent
 * blocks share A rows and B columns in L2). The producer runs ahead into the
 * next tile while the consumers finish the epilogue of this one.
 * Epilogue: a 16-bit D without C, residual or activation (alpha, scales,
 * bias) goes through each consumer's 16 KiB shared buffer as converted
 * 16-bit values, 64 x 128 at a time, and out in whole 16-byte row pieces
 * (ak_g9_epi_16). Otherwise each consumer stages 32 columns of its 64 rows at
 * a time (fp32, row stride 40: conflict-free), then every thread
 * takes 4 consecutive columns of a row: alpha, beta C, bias, activation,
 * residual, one 8- or 16-byte store (element-wise where the host says the
 * vectors are unaligned, and at the N edge).
 *
 * Parameters: tensor maps tA (A: dims {K, M, batch} when k-contiguous, box
 * {64, 128}; {M, K, batch} when m-contiguous, box {64, 64}) and tB (B stored
 * N x K: {K, N, batch}, box {64, BN}; stored K x N: {N, K, batch}, box
 * {64, 64}), passed by value (__grid_constant__: TMA reads them from the
 * parameter space); bA / bB: 1 when the operand has a batch stride, 0 when
 * one matrix serves every batch. ks: 0, or split-K: the `batch` entries are
 * consecutive k slices of ks values (a multiple of the k step) of one problem
 * (bA = bB = 0), entry b reading k from b ks (TMA's zeros past K) and writing
 * its partial sums to D + b sD (f32; the host adds them up and runs the
 * epilogue). flags: bit 2 D / C / bias / R are f32, 3
 * read C, 4 bias, 5 residual, 6 the epilogue may use 4-element vectors,
 * bits 8..23 the activation's AK_UNARY_* code (kernels/gemm.hip's bits where
 * they agree); 8-bit kernels: bit 0 sA has M values, 1 sB has N values, 7 the
 * 16-bit output type is bf16 (else f16), 25 (int8) D is int32, the raw sums
 * (with bit 2; no scales or epilogue). sA / sB: NULL (no scale) or f32.
 * AK_G9_ONLY=16 / 8 / 1 / 32 (the host passes it) keeps only the 16-bit / the
 * fp8 / the int8 / the TF32 kernels: a smaller program; without it, the whole
 * family. Each kernel's body is under AK_KONLY (prelude): a launch's program
 * keeps the body of its one kernel, so a first call compiles one k loop. */

// >>host  the flag bits (the host builds them: amdkit.h _AK_G9_*)
#define AK_G9_OUT32 4
#define AK_G9_C 8
#define AK_G9_BIAS 16
#define AK_G9_RES 32
#define AK_G9_VEC 64
#define AK_G9_ACT_SHIFT 8
#define AK_G9_SA_ROW 1
#define AK_G9_SB_COL 2
#define AK_G9_OBF16 128
#define AK_G9_I32 (1 << 25)
// <<host

/* The tensor map: an opaque 128-byte, 64-byte-aligned CUtensorMap. */
struct alignas(64) ak_tmap {
    ak_u64 opaque[16];
};
#if defined(AK_NVIDIA)
#define AK_GRID_CONST __grid_constant__
#else
#define AK_GRID_CONST
#endif

#define AK_G9_REST                                                                                                \
    const void *C, void *D, const void *bias, const void *R, int M, int N, int K, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, \
        ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, int bA, int bB, int ks, float alpha, float beta, int flags, float ap, \
        const float *sA, const float *sB
#define AK_G9_PARAMS()                                                                                            \
    const AK_GRID_CONST ak_tmap tA, const AK_GRID_CONST ak_tmap tB, const void *C, void *D, const void *bias,     \
        const void *R, int M, int N, int K, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sC, ak_i64 sD, ak_i64 sR,   \
        int batch, int bA, int bB, int ks, float alpha, float beta, int flags, float ap, const float *sA, const float *sB
#define AK_G9_ARGS &tA, &tB, C, D, bias, R, M, N, K, ldc, ldd, ldr, sC, sD, sR, batch, bA, bB, ks, alpha, beta, flags, ap, sA, sB

template <class DT> struct ak_gemm_sm90_is_f16 { enum { V = 0 }; };
template <> struct ak_gemm_sm90_is_f16<ak_f16_t> { enum { V = 1 }; };

#if defined(AK_WGMMA)
/* ---- mbarrier, TMA, register reallocation -------------------------------- */
AK_INLINE void ak_mbar_init(ak_u32 bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
AK_INLINE void ak_mbar_expect_tx(ak_u32 bar, int bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
AK_INLINE void ak_mbar_arrive(ak_u32 bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
/* Wait until the phase of parity `ph` has completed. */
AK_INLINE void ak_mbar_wait(ak_u32 bar, int ph) {
    ak_u32 ok;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(ok) : "r"(bar), "r"(ph) : "memory");
    } while (!ok);
}
/* 3-D tile copy global -> shared, completing on mbarrier bar (bytes counted). */
AK_INLINE void ak_tma_load3(ak_u32 dst, const ak_tmap* map, int c0, int c1, int c2, ak_u32 bar) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n"
                 ::"r"(dst), "l"((ak_u64)map), "r"(c0), "r"(c1), "r"(c2), "r"(bar) : "memory");
}
/* The same copy multicast into the CTAs of the cluster in `mask` (same shared offsets, each CTA's barrier at bar). */
AK_INLINE void ak_tma_load3_mc(ak_u32 dst, const ak_tmap* map, int c0, int c1, int c2, ak_u32 bar, unsigned short mask) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3, %4}], [%5], %6;\n"
                 ::"r"(dst), "l"((ak_u64)map), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(mask) : "memory");
}
/* Arrive on the barrier at shared offset bar of cluster CTA `rank` (the default semantics, release at CTA scope: what
 * it orders are the reads of wgmmas already waited for, and the peer's TMA writes after it are the async proxy's). */
AK_INLINE void ak_mbar_arrive_peer(ak_u32 bar, ak_u32 rank) {
    asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\nmbarrier.arrive.shared::cluster.b64 _, [ra];\n}\n"
                 ::"r"(bar), "r"(rank) : "memory");
}
AK_INLINE ak_u32 ak_cluster_rank(void) {
    ak_u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
/* Every thread of every CTA of the cluster (a thread-block barrier too). */
AK_INLINE void ak_cluster_sync(void) {
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
AK_INLINE void ak_tma_prefetch_map(const ak_tmap* map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((ak_u64)map) : "memory");
}
template <int R> AK_INLINE void ak_setmaxnreg_inc(void) { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R)); }
template <int R> AK_INLINE void ak_setmaxnreg_dec(void) { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R)); }
AK_INLINE void ak_named_bar(int id, int threads) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory"); }
AK_INLINE void ak_named_arrive(int id, int threads) { asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory"); }

/* Shared-memory matrix descriptor, 128-byte swizzle: lbo / sbo in bytes. */
AK_INLINE ak_u64 ak_g9_desc(ak_u32 addr, ak_u32 lbo, ak_u32 sbo) {
    return (ak_u64)((addr & 0x3FFFF) >> 4) | ((ak_u64)((lbo & 0x3FFFF) >> 4) << 16) | ((ak_u64)((sbo & 0x3FFFF) >> 4) << 32) |
           ((ak_u64)1 << 62);
}

/* wgmma m64nBNk16 with the transpose immediates (1: the operand is M / N-major). */
#define AK_G9_WG4(N, DT)                                                                           \
    AK_WGMMA_FN(N, ak_g9_##DT##_##N##_00, "m64" #N "k16.f32." #DT "." #DT, ", 0, 0")            \
    AK_WGMMA_FN(N, ak_g9_##DT##_##N##_01, "m64" #N "k16.f32." #DT "." #DT, ", 0, 1")            \
    AK_WGMMA_FN(N, ak_g9_##DT##_##N##_10, "m64" #N "k16.f32." #DT "." #DT, ", 1, 0")            \
    AK_WGMMA_FN(N, ak_g9_##DT##_##N##_11, "m64" #N "k16.f32." #DT "." #DT, ", 1, 1")
AK_G9_WG4(n64, f16)
AK_G9_WG4(n64, bf16)
AK_G9_WG4(n128, f16)
AK_G9_WG4(n128, bf16)
AK_G9_WG4(n256, f16)
AK_G9_WG4(n256, bf16)
/* fp8 (K-major operands only: no transpose immediates), A type x B type */
#define AK_G9_WG8(N, TA, TB) AK_WGMMA_FN(N, ak_g9_##TA##TB##_##N, "m64" #N "k32.f32." #TA "." #TB, "")
AK_G9_WG8(n128, e4m3, e4m3)
AK_G9_WG8(n128, e4m3, e5m2)
AK_G9_WG8(n128, e5m2, e4m3)
AK_G9_WG8(n128, e5m2, e5m2)
AK_G9_WG8(n256, e4m3, e4m3)
AK_G9_WG8(n256, e4m3, e5m2)
AK_G9_WG8(n256, e5m2, e4m3)
AK_G9_WG8(n256, e5m2, e5m2)
/* int8: m64nBNk32.s32.s8.s8 (K-major operands, no scale or transpose
 * immediates), int32 accumulators bound as "+r" (f32-typed ones are refused
 * by ptxas for an s32 wgmma), sums wrapping mod 2^32 (no .satfinite). */
#define AK_G9_RI8(i) "+r"(d[i]), "+r"(d[i + 1]), "+r"(d[i + 2]), "+r"(d[i + 3]), "+r"(d[i + 4]), "+r"(d[i + 5]), "+r"(d[i + 6]), "+r"(d[i + 7])
#define AK_G9_RI64(i) AK_G9_RI8(i), AK_G9_RI8(i + 8), AK_G9_RI8(i + 16), AK_G9_RI8(i + 24), \
    AK_G9_RI8(i + 32), AK_G9_RI8(i + 40), AK_G9_RI8(i + 48), AK_G9_RI8(i + 56)
#define AK_G9_IOUT_n128 AK_G9_RI64(0)
#define AK_G9_IOUT_n256 AK_G9_RI64(0), AK_G9_RI64(64)
#define AK_G9_WGI(N)                                                                                                    \
    AK_INLINE void ak_g9_s8_##N(int* d, ak_u64 da, ak_u64 db, int acc) {                                             \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " AK_WGMMA_PRED_##N ", 0;\nwgmma.mma_async.sync.aligned.m64" #N \
                     "k32.s32.s8.s8 {" AK_WGMMA_REGS_##N "}, " AK_WGMMA_DESC_##N ", p;\n}\n"                          \
                     : AK_G9_IOUT_##N : "l"(da), "l"(db), "r"(acc) : "memory");                                     \
    }
AK_G9_WGI(n128)
AK_G9_WGI(n256)
/* The accumulator type: int32 for int8 (IN 5), else f32. */
template <int IN> struct ak_g9_acc { typedef float T; };
template <> struct ak_g9_acc<5> { typedef int T; };
/* An accumulator as the epilogue stages it: f32, or int32 bits (converted
 * when read back: converting in the staging loop spills the 128 x 128 tile). */
AK_INLINE float ak_g9_bits(float x) { return x; }
AK_INLINE float ak_g9_bits(int x) { return __int_as_float(x); }
/* IN: fp8 1 e4m3 x e4m3, 2 e4m3 x e5m2, 3 e5m2 x e4m3, 4 e5m2 x e5m2; 5 int8 x int8 (AT int); 6 f32 read as TF32
 * (m64nBNk8, the prelude's wrappers: the low 13 bits of each value ignored) */
template <int IN, int BN, class AT> AK_INLINE void ak_g9_mma8(AT* d, ak_u64 da, ak_u64 db, int acc) {
#define AK_G9_PICK8(N)                                              \
    if constexpr (IN == 1) ak_g9_e4m3e4m3_##N(d, da, db, acc);      \
    else if constexpr (IN == 2) ak_g9_e4m3e5m2_##N(d, da, db, acc); \
    else if constexpr (IN == 3) ak_g9_e5m2e4m3_##N(d, da, db, acc); \
    else ak_g9_e5m2e5m2_##N(d, da, db, acc);
    if constexpr (IN == 5) {
        if constexpr (BN == 128) ak_g9_s8_n128(d, da, db, acc);
        else ak_g9_s8_n256(d, da, db, acc);
    } else if constexpr (IN == 6) {
        if constexpr (BN == 128) ak_wgmma_tf32_n128(d, da, db, acc);
        else ak_wgmma_tf32_n256(d, da, db, acc);
    } else if constexpr (BN == 128) { AK_G9_PICK8(n128) }
    else { AK_G9_PICK8(n256) }
#undef AK_G9_PICK8
}
template <bool F16, int BN, int TA, int TB>
AK_INLINE void ak_g9_mma(float* d, ak_u64 da, ak_u64 db, int acc) {
#define AK_G9_PICK(N)                                                        \
    if constexpr (F16) {                                                     \
        if constexpr (TA == 0 && TB == 0) ak_g9_f16_##N##_00(d, da, db, acc);  \
        else if constexpr (TA == 0) ak_g9_f16_##N##_01(d, da, db, acc);        \
        else if constexpr (TB == 0) ak_g9_f16_##N##_10(d, da, db, acc);        \
        else ak_g9_f16_##N##_11(d, da, db, acc);                             \
    } else {                                                                 \
        if constexpr (TA == 0 && TB == 0) ak_g9_bf16_##N##_00(d, da, db, acc); \
        else if constexpr (TA == 0) ak_g9_bf16_##N##_01(d, da, db, acc);       \
        else if constexpr (TB == 0) ak_g9_bf16_##N##_10(d, da, db, acc);       \
        else ak_g9_bf16_##N##_11(d, da, db, acc);                            \
    }
    if constexpr (BN == 64) { AK_G9_PICK(n64) }
    else if constexpr (BN == 128) { AK_G9_PICK(n128) }
    else { AK_G9_PICK(n256) }
#undef AK_G9_PICK
}

/* Activation over n values, one switch for all of them. */
template <class OP, int NV> AK_INLINE void ak_g9_act_n(float* v, float ap) {
#pragma unroll
    for (int i = 0; i < NV; i++) v[i] = OP::f(v[i], ap);
}
template <int NV> AK_INLINE void ak_g9_act(int act, float* v, float ap) {
    switch (act) {
#define AK_G9_ACT_CASE(CODE, OP) \
    case CODE: ak_g9_act_n<OP, NV>(v, ap); break;
        AK_UOP_LIST(AK_G9_ACT_CASE)
#undef AK_G9_ACT_CASE
    default: break;
    }
}
/* 4 consecutive values of an output-side matrix (f32 or the input dtype) at
 * (m, n): one vector load when `full`, else element by element up to N. */
template <class DT>
AK_INLINE void ak_g9_ld4(const void* X, ak_i64 off, bool o32, bool full, int left, float* v) {
    if (full) {
        if (o32) ak_f32_t::ld4((const float*)X + off, v);
        else DT::ld4((const typename DT::T*)X + off, v);
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = j < left ? (o32 ? ((const float*)X)[off + j] : DT::to(((const typename DT::T*)X)[off + j])) : 0.0f;
    }
}

/* Epilogue of one staged chunk: 64 rows x EC columns of fp32 accumulators at
 * st (row stride EP), output rows mr.., columns nc..; thread ct of the
 * warpgroup takes 4 consecutive columns of rows ct / (EC / 4) + 16 p,
 * p = 0..3: the bias once, then per row C, the activation (one switch for
 * the 4 values), the residual, one 8- or 16-byte store. INT: st holds int32
 * sums (int8), converted to f32 here or stored as they are (AK_G9_I32). */
template <class DT, int EC, int EP, bool INT = false>
AK_INLINE void ak_g9_epi_chunk(const float* st, int ct, int mr, int nc, int M, int N, void* D, ak_i64 ldd, const void* C, ak_i64 ldc,
                               const void* bias, const void* R, ak_i64 ldr, float alpha, float beta, int flags, float ap,
                               const float* sA, const float* sB) {
    enum { TPR = EC / 4, RPP = 128 / TPR, NP = 64 / RPP };
    const int row0 = ct / TPR, col = (ct % TPR) * 4, n = nc + col;
    const bool o32 = (flags & AK_G9_OUT32) != 0;
    if (n >= N) return;
    const bool full = (flags & AK_G9_VEC) && n + 4 <= N;
    const int left = N - n, act = (flags >> AK_G9_ACT_SHIFT) & 0xFFFF;
    float bb[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    float sc[4] = { alpha, alpha, alpha, alpha };  /* alpha sB[n + j] */
    if (flags & AK_G9_BIAS) ak_g9_ld4<DT>(bias, n, o32, full, left, bb);
    if (sB) {
#pragma unroll
        for (int j = 0; j < 4; j++) sc[j] *= sB[(flags & AK_G9_SB_COL) ? (j < left ? n + j : n) : 0];
    }
#pragma unroll 1
    for (int p = 0; p < NP; p++) {
        const int r = p * RPP + row0, m = mr + r;
        if (m >= M) break;
        const ak_i64 off = (ak_i64)m * ldd + n;
        float4 q;
        if constexpr (INT) {
            const int4 qi = *(const int4*)&st[r * EP + col];
            if (flags & AK_G9_I32) { /* int32 out: the sums as they are */
                if (full) *(int4*)((int*)D + off) = qi;
                else {
                    const int e[4] = { qi.x, qi.y, qi.z, qi.w };
#pragma unroll
                    for (int j = 0; j < 4; j++)
                        if (j < left) ((int*)D)[off + j] = e[j];
                }
                continue;
            }
            q = make_float4((float)qi.x, (float)qi.y, (float)qi.z, (float)qi.w);
        } else {
            q = *(const float4*)&st[r * EP + col];
        }
        const float sa = sA ? sA[(flags & AK_G9_SA_ROW) ? m : 0] : 1.0f;
        float v[4] = { sa * sc[0] * q.x + bb[0], sa * sc[1] * q.y + bb[1], sa * sc[2] * q.z + bb[2], sa * sc[3] * q.w + bb[3] };
        if (flags & AK_G9_C) {
            float c[4];
            ak_g9_ld4<DT>(C, (ak_i64)m * ldc + n, o32, full, left, c);
#pragma unroll
            for (int j = 0; j < 4; j++) v[j] += beta * c[j];
        }
        if (act != AK_UNARY_NONE) ak_g9_act<4>(act, v, ap);
        if (flags & AK_G9_RES) {
            float rr[4];
            ak_g9_ld4<DT>(R, (ak_i64)m * ldr + n, o32, full, left, rr);
#pragma unroll
            for (int j = 0; j < 4; j++) v[j] += rr[j];
        }
        if (full) {
            if (o32) ak_f32_t::st4((float*)D + off, v);
            else DT::st4((typename DT::T*)D + off, v);
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++) {
                if (j >= left) break;
                if (o32) ((float*)D)[off + j] = v[j];
                else ((typename DT::T*)D)[off + j] = DT::from(v[j]);
            }
        }
    }
}

/* Epilogue of a 16-bit D = alpha sA sB op(A) op(B) (+ bias), no C, residual
 * or activation: per block of 64 rows x CW columns (128; 64 on the 64-wide
 * tile) the consumer writes its values, converted, as 4-byte pairs into its
 * 16 KiB buffer sbuf (rows of 2 CW bytes, 16-byte chunk c of row r at
 * c ^ (r % 8): conflict-free both ways), then each thread copies 16-byte
 * chunks of rows ct / CH + (128 / CH) i to D (CH = CW / 8 chunks a row; 16-,
 * 8- or 4-byte stores as the address allows; element by element at the N
 * edge).
 * Two named barriers per block (the earlier fp32 staging takes eight). The
 * NH x ND values of a consumer thread: rows mb + 64 h + r0 (+ 8), column
 * pairs n0 + 8 g + c0 (ak_wgmma_row / ak_wgmma_col). */
template <class DT, int NH, int ND, class AT>
AK_INLINE void ak_g9_epi_16(const AT* d, int ct, int cw, unsigned char* sbuf, int mb, int n0, int M, int N, void* D, ak_i64 ldd,
                            const void* bias, float alpha, int flags, const float* sA, const float* sB) {
    typedef typename DT::T T;
    enum { CW = ND >= 64 ? 128 : 64, CH = CW / 8, RB = 2 * CW };
    const int r0 = ak_wgmma_row(ct, 0), c0 = ak_wgmma_col(ct, 0);
#pragma unroll
    for (int h = 0; h < NH; h++) {
        const int mrow = mb + 64 * h;
        if (mrow >= M) break;
        float sa[2];
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const int m = mrow + r0 + 8 * e;
            sa[e] = alpha * (sA ? sA[(flags & AK_G9_SA_ROW) ? (m < M ? m : M - 1) : 0] : 1.0f);
        }
#pragma unroll
        for (int q = 0; q < 2 * ND / CW; q++) {
            if (n0 + CW * q >= N) break;
            ak_named_bar(1 + cw, 128); /* the previous block's readers are done with sbuf */
#pragma unroll
            for (int gg = 0; gg < CH; gg++) {
                const int g = CH * q + gg, n = n0 + 8 * g + c0;
                float bx = 0.0f, by = 0.0f, sx = 1.0f, sy = 1.0f;
                if (flags & AK_G9_BIAS) {
                    if (n < N) bx = DT::to(((const T*)bias)[n]);
                    if (n + 1 < N) by = DT::to(((const T*)bias)[n + 1]);
                }
                if (sB) {
                    sx = sB[(flags & AK_G9_SB_COL) ? (n < N ? n : N - 1) : 0];
                    sy = sB[(flags & AK_G9_SB_COL) ? (n + 1 < N ? n + 1 : N - 1) : 0];
                }
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int r = r0 + 8 * e;
                    const float x = sa[e] * sx * (float)d[h * ND + 4 * g + 2 * e] + bx, y = sa[e] * sy * (float)d[h * ND + 4 * g + 2 * e + 1] + by;
                    *(ak_u32*)(sbuf + r * RB + ((gg ^ (r & 7)) << 4) + c0 * 2) = ak_pack2(DT::from(x), DT::from(y));
                }
            }
            ak_named_bar(1 + cw, 128);
#pragma unroll
            for (int i = 0; i < CH / 2; i++) {
                const int r = ct / CH + (128 / CH) * i, ch = ct % CH, m = mrow + r, n = n0 + CW * q + 8 * ch;
                if (m >= M || n >= N) continue;
                const uint4 v = *(const uint4*)(sbuf + r * RB + ((ch ^ (r & 7)) << 4));
                T* p = (T*)D + (ak_i64)m * ldd + n;
                const unsigned al = (unsigned)(size_t)p & 15u; /* rows of a multiple of 4 / 2 elements: 8- / 4-byte stores */
                if (n + 8 <= N && al == 0) *(uint4*)p = v;
                else if (n + 8 <= N && (al & 7u) == 0) {
                    ((uint2*)p)[0] = make_uint2(v.x, v.y);
                    ((uint2*)p)[1] = make_uint2(v.z, v.w);
                } else if (n + 8 <= N && (al & 3u) == 0) {
                    ((ak_u32*)p)[0] = v.x; ((ak_u32*)p)[1] = v.y; ((ak_u32*)p)[2] = v.z; ((ak_u32*)p)[3] = v.w;
                } else {
                    const T* e = (const T*)&v;
#pragma unroll
                    for (int j = 0; j < 8; j++)
                        if (n + j < N) p[j] = e[j];
                }
            }
        }
    }
}

/* A consumer warpgroup is done with the stage of empty barrier bar: CL 1, lane 0 of each warp arrives; CL 2, thread 0
 * arrives here and thread 32 on the peer CTA's barrier. */
template <int CL> AK_INLINE void ak_g9_release(ak_u32 bar, int ct, ak_u32 crank) {
    if constexpr (CL == 2) {
        if (ct == 0) ak_mbar_arrive(bar);
        else if (ct == 32) ak_mbar_arrive_peer(bar, crank ^ 1);
    } else if ((ct & 31) == 0) ak_mbar_arrive(bar);
}

/* PP 0: cooperative, both consumers on one 128 x BN tile (rows 0..63 and
 * 64..127); PP 1: ping-pong, each consumer on its own 128 x BN tiles (the
 * CTA's tiles alternate between them, two m64 wgmmas per k16), so one
 * consumer's epilogue overlaps the other's k loop (the k loops take turns,
 * ordered by named barriers 3 and 4). */
template <class DT, int BN, int TA, int TB, int PP, int IN, int PR, int CL = 1>
AK_INLINE void ak_g9_gemm(const ak_tmap* tA, const ak_tmap* tB, AK_G9_REST) {
    static_assert(CL == 1 || (CL == 2 && !PP && !PR), "2-CTA clusters are for the cooperative kernels");
    static_assert(!PR || (IN >= 1 && IN <= 4 && BN == 128 && !PP), "the precise loop is for fp8 on the 128 x 128 cooperative tile");
    static_assert(BN != 64 || (!IN && !PP), "the 128 x 64 tile is for the 16-bit types, cooperative");
    enum {
        ES = IN == 6 ? 4 : IN ? 1 : 2, BM = 128, BK = 128 / ES, A_BYTES = BM * BK * ES, B_BYTES = BN * BK * ES, STAGE = A_BYTES + B_BYTES,
        S = BN == 256 ? 4 : BN == 64 ? 8 : 6, /* 192 KiB of stages */
        EC = 32, EP = EC + 8,               /* epilogue chunk: 32 columns, row stride 40 floats */
        EPI_BYTES = 64 * 128 * 2, /* >= 64 * EP * 4 */ GROUP = 8, ND = BN / 2, NH = PP ? 2 : 1
    };
    extern __shared__ unsigned char ak_g9_smem[];
    unsigned char* sm = ak_g9_smem + ((1024 - (ak_smem_addr(ak_g9_smem) & 1023)) & 1023);
    const ak_u32 s0 = ak_smem_addr(sm);
    const ak_u32 bar0 = s0 + S * STAGE + 2 * EPI_BYTES; /* full[S], then empty[S] */
    const int tid = (int)threadIdx.x, wg = tid / 128;
    /* CL 2: the two CTAs of a cluster take tiles side by side in n (rank r the tile n0 + r BN) and share the A tile:
       each loads its half (64 rows) into both CTAs (TMA multicast); a stage is refilled once both CTAs' consumers
       released it (each empty barrier counts the consumer warps of both). The tile walk counts pairs of tiles. */
    const ak_u32 crank = CL == 2 ? ak_cluster_rank() : 0;
    const int tm = (M + BM - 1) / BM, tn = ((N + BN - 1) / BN + CL - 1) / CL, per_batch = tm * tn, tiles = per_batch * batch;
    const int b0 = (int)blockIdx.x / CL, gsz = (int)gridDim.x / CL;
    const int nk = ks ? ks / BK : (K + BK - 1) / BK; /* split-K: every entry's slice has ks values (zeros past K) */
    if (tid == 0) {
        for (int s = 0; s < S; s++) {
            ak_mbar_init(bar0 + 8 * s, 1);                 /* full: the producer's arrive + the bytes */
            /* empty: one arrive per consumer warp; CL 2: one per consumer warpgroup of each CTA (a wgmma is the
               warpgroup's: once one thread has waited for it, all of the warpgroup's reads are done) */
            ak_mbar_init(bar0 + 8 * (S + s), CL == 2 ? 4 : PP ? 4 : 8);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        ak_fence_proxy_async();
    }
    if constexpr (CL == 2) ak_cluster_sync(); /* the peer's barriers are initialised before any copy or arrive */
    else __syncthreads();
    if (wg == 0) {
        /* ---- producer ---- */
        ak_setmaxnreg_dec<40>();
        if (tid == 0) {
            ak_tma_prefetch_map(tA);
            ak_tma_prefetch_map(tB);
            int it = 0;
            for (int t = b0; t < tiles; t += gsz) {
                const int b = t / per_batch, r = t % per_batch, gsz0 = GROUP * tn, g = r / gsz0;
                const int first = g * GROUP, rows = tm - first < GROUP ? tm - first : GROUP;
                const int m0 = (first + (r % gsz0) % rows) * BM, n0 = (((r % gsz0) / rows) * CL + (int)crank) * BN;
                for (int kb = 0; kb < nk; kb++, it++) {
                    const int s = it % S, ph = (it / S) & 1;
                    const ak_u32 full = bar0 + 8 * s, sa = s0 + s * STAGE, sb = sa + A_BYTES;
                    ak_mbar_wait(bar0 + 8 * (S + s), ph ^ 1);
                    ak_mbar_expect_tx(full, STAGE);
                    const int k0 = kb * BK + (ks ? b * ks : 0);
                    if constexpr (CL == 2) { /* this CTA's half of A, into both CTAs (A's map box: 64 rows of m) */
                        if (TA == 0) ak_tma_load3_mc(sa + 8192 * crank, tA, k0, m0 + 64 * (int)crank, b * bA, full, 3);
                        else ak_tma_load3_mc(sa + 8192 * crank, tA, m0 + 64 * (int)crank, k0, b * bA, full, 3);
                    } else if (TA == 0) ak_tma_load3(sa, tA, k0, m0, b * bA, full);
                    else {
                        ak_tma_load3(sa, tA, m0, k0, b * bA, full);
                        ak_tma_load3(sa + 8192, tA, m0 + 64, k0, b * bA, full);
                    }
                    if (TB == 1) ak_tma_load3(sb, tB, k0, n0, b * bB, full);
                    else {
#pragma unroll
                        for (int j = 0; j < BN / 64; j++) ak_tma_load3(sb + 8192 * j, tB, n0 + 64 * j, k0, b * bB, full);
                    }
                }
            }
        }
    } else {
        /* ---- consumers ---- */
        ak_setmaxnreg_inc<232>();
        const int cw = wg - 1, ct = tid - 128 * wg; /* consumer 0 / 1, thread in its warpgroup */
        float* st = (float*)(sm + S * STAGE + cw * EPI_BYTES);
        const int o32 = (flags & AK_G9_OUT32) ? 1 : 0, osz = o32 ? 4 : DT::SIZE;
        typename ak_g9_acc<IN>::T d[NH * ND]; /* int8: int32, one accumulator over all of k (exact) */
        /* cooperative: every tile of the CTA; ping-pong: every other one (local tile j, its k steps j nk ..) */
        for (int j = PP ? cw : 0;; j += PP ? 2 : 1) {
            const int t = b0 + j * gsz;
            if (t >= tiles) break;
            const int b = t / per_batch, r = t % per_batch, gsz0 = GROUP * tn, g = r / gsz0;
            const int first = g * GROUP, rows = tm - first < GROUP ? tm - first : GROUP;
            const int m0 = (first + (r % gsz0) % rows) * BM, n0 = (((r % gsz0) / rows) * CL + (int)crank) * BN;
            int it = j * nk;
            /* ping-pong: tile j's k loop starts once the other consumer's k loop of tile j - 1 is done (named
               barrier 3 + (j - 1) % 2), so each consumer waits on stage uses at most one phase ahead of the
               barriers (parity waits) and the two k loops take turns on the tensor cores */
            if (PP && j > 0) ak_named_bar(3 + ((j - 1) & 1), 256);
            if constexpr (PR) {
                /* fp8, precise (PR): each k step of 128 values goes into its own wgmma accumulator acc8 (scale-d 0 at
                   the step's first k32), waited for and added into the f32 sums d: the tensor core's fp8 accumulation
                   keeps about 14 bits, so it never sums more than 128 products. While one consumer adds, the other
                   one's wgmmas run. Its own kernel: with the one-accumulator loop in the same function, ptxas saw
                   d as a wgmma accumulator written by the adds and serialized every wgmma (C7515). */
                float acc8[ND];
#pragma unroll
                for (int i = 0; i < ND; i++) d[i] = 0.0f;
#pragma unroll 1
                for (int kb = 0; kb < nk; kb++) {
                    const int iq = it + kb, s = iq % S, ph = (iq / S) & 1;
                    const ak_u32 sa = s0 + s * STAGE + cw * 8192, sb = s0 + s * STAGE + A_BYTES;
                    ak_mbar_wait(bar0 + 8 * s, ph);
                    ak_wgmma_fence();
#pragma unroll
                    for (int kk = 0; kk < 4; kk++)
                        ak_g9_mma8<IN, BN>(acc8, ak_g9_desc(sa + 32 * kk, 16, 1024), ak_g9_desc(sb + 32 * kk, 16, 1024), kk > 0 ? 1 : 0);
                    ak_wgmma_commit();
                    ak_wgmma_wait<0>();
                    if ((ct & 31) == 0) ak_mbar_arrive(bar0 + 8 * (S + s));
#pragma unroll
                    for (int i = 0; i < ND; i++) d[i] += acc8[i];
                }
            } else {
                for (int kb = 0; kb < nk; kb++, it++) {
                    const int s = it % S, ph = (it / S) & 1;
                    const ak_u32 sa = s0 + s * STAGE + (PP ? 0 : cw * 8192), sb = s0 + s * STAGE + A_BYTES;
                    ak_mbar_wait(bar0 + 8 * s, ph);
                    ak_wgmma_fence();
#pragma unroll
                    for (int kk = 0; kk < 4; kk++) {
                        /* K-major: +32 bytes per k16 (fp8: k32, TF32: k8) inside the swizzled 128-byte rows; MN-major: +16
                           rows of 128 bytes */
                        const ak_u64 db = TB == 1 ? ak_g9_desc(sb + 32 * kk, 16, 1024) : ak_g9_desc(sb + 2048 * kk, 8192, 1024);
#pragma unroll
                        for (int h = 0; h < NH; h++) { /* rows 64 h.. of the A tile (8 KiB per 64 rows in both layouts) */
                            const ak_u32 ah = sa + 8192 * h;
                            const ak_u64 da = TA == 0 ? ak_g9_desc(ah + 32 * kk, 16, 1024) : ak_g9_desc(ah + 2048 * kk, 8192, 1024);
                            if constexpr (IN) ak_g9_mma8<IN, BN>(d + h * ND, da, db, (kb > 0 || kk > 0) ? 1 : 0);
                            else ak_g9_mma<ak_gemm_sm90_is_f16<DT>::V, BN, TA, TB ^ 1>(d + h * ND, da, db, (kb > 0 || kk > 0) ? 1 : 0);
                        }
                    }
                    ak_wgmma_commit();
                    ak_wgmma_wait<1>();
                    if (kb > 0) ak_g9_release<CL>(bar0 + 8 * (S + (it + S - 1) % S), ct, crank);
                }
                ak_wgmma_wait<0>();
                ak_g9_release<CL>(bar0 + 8 * (S + (it + S - 1) % S), ct, crank);
            }
            if (PP && b0 + (j + 1) * gsz < tiles) ak_named_arrive(3 + (j & 1), 256);
            void* Db = (char*)D + (ak_i64)b * sD * osz;
            const void* Cb = C ? (const char*)C + (ak_i64)b * sC * osz : C;
            const void* Rb = R ? (const char*)R + (ak_i64)b * sR * osz : R;
            if ((flags & (AK_G9_OUT32 | AK_G9_C | AK_G9_RES | (0xFFFF << AK_G9_ACT_SHIFT))) == 0) {
                /* ---- 16-bit D, no C, residual or activation: 64 x 128 blocks through st as 16-bit values ---- */
                if (IN && !(flags & AK_G9_OBF16))
                    ak_g9_epi_16<ak_f16_t, NH, ND>(d, ct, cw, (unsigned char*)st, m0 + (PP ? 0 : 64 * cw), n0, M, N, Db, ldd, bias, alpha,
                                                   flags, sA, sB);
                else
                    ak_g9_epi_16<DT, NH, ND>(d, ct, cw, (unsigned char*)st, m0 + (PP ? 0 : 64 * cw), n0, M, N, Db, ldd, bias, alpha, flags,
                                             sA, sB);
                continue;
            }
            /* ---- epilogue: 64 rows x 32 columns at a time through st ---- */
#pragma unroll
            for (int h = 0; h < NH; h++) {
                const int mr = m0 + 64 * (PP ? h : cw);
                if (mr >= M) break;
#pragma unroll 1
                for (int c = 0; c < BN / EC; c++) {
                    if (n0 + c * EC >= N) break;
                    ak_named_bar(1 + cw, 128); /* the previous chunk's readers are done */
#pragma unroll
                    for (int cc = 0; cc < BN / EC; cc++)
                        if (cc == c) {
#pragma unroll
                            for (int q = 0; q < EC / 2; q += 2) {
                                const int rr = cc * (EC / 2) + q;
                                float2 v;
                                v.x = ak_g9_bits(d[h * ND + rr]);
                                v.y = ak_g9_bits(d[h * ND + rr + 1]);
                                *(float2*)&st[ak_wgmma_row(ct, rr) * EP + ak_wgmma_col(ct, rr) - cc * EC] = v;
                            }
                        }
                    ak_named_bar(1 + cw, 128);
                    if (IN && !(flags & AK_G9_OBF16))
                        ak_g9_epi_chunk<ak_f16_t, EC, EP, IN == 5>(st, ct, mr, n0 + c * EC, M, N, Db, ldd, Cb, ldc, bias, Rb, ldr, alpha, beta,
                                                          flags, ap, sA, sB);
                    else
                        ak_g9_epi_chunk<DT, EC, EP, IN == 5>(st, ct, mr, n0 + c * EC, M, N, Db, ldd, Cb, ldc, bias, Rb, ldr, alpha, beta, flags,
                                                    ap, sA, sB);
                }
            }
        }
    }
    if constexpr (CL == 2) ak_cluster_sync(); /* no CTA leaves while its peer may still arrive on its barriers */
}
#endif /* AK_WGMMA */

/* Kernels: ak_gemm_sm90_n<BN>_<a><b>_<dtype>, a / b: k when the operand is
 * k-contiguous (A stored M x K, B stored N x K), m / n when not. The host
 * launches them only where the architecture row has wgmma and TMA (sm_90a
 * target); everywhere else the body is empty so every target still compiles
 * the family. Shared memory: 192 KiB of stages + 32 KiB of epilogue buffers +
 * the barriers + 1 KiB of alignment (the host passes it). */
#if defined(AK_WGMMA)
#define AK_G9_BODY(NAME, DT, BN, TA, TB, PP, IN, PR) AK_KONLY(NAME) ak_g9_gemm<DT, BN, TA, TB, PP, IN, PR>(AK_G9_ARGS);
#define AK_G9_BODY2(NAME, DT, BN, TA, TB) AK_KONLY(NAME) ak_g9_gemm<DT, BN, TA, TB, 0, 0, 0, 2>(AK_G9_ARGS);
#define AK_G9_CLUSTER2 cluster_dims(2, 1, 1)
#else
#define AK_G9_BODY(NAME, DT, BN, TA, TB, PP, IN, PR)
#define AK_G9_BODY2(NAME, DT, BN, TA, TB)
#define AK_G9_CLUSTER2
#endif
#define AK_GEMM_SM90(NAME, DT, BN, TA, TB, PP, IN, PR)              \
    AK_KERNEL void __launch_bounds__(384, 1) NAME(AK_G9_PARAMS()) { \
        AK_G9_BODY(NAME, DT, BN, TA, TB, PP, IN, PR)                \
    }
/* cooperative, in 2-CTA clusters (grid.x even) that share the A tile */
#define AK_GEMM_SM90C(NAME, DT, BN, TA, TB)                                        \
    AK_KERNEL void __launch_bounds__(384, 1) __attribute__((AK_G9_CLUSTER2)) NAME(AK_G9_PARAMS()) { \
        AK_G9_BODY2(NAME, DT, BN, TA, TB)                                          \
    }
/* TA: 0 A k-contiguous, 1 m-contiguous; TB: 1 B k-contiguous (stored N x K), 0 n-contiguous */
#if !defined(AK_G9_ONLY) || AK_G9_ONLY == 16
// kernels: ak_gemm_sm90_n256_kk_f16 ak_gemm_sm90_n256_kn_f16 ak_gemm_sm90_n256_mk_f16 ak_gemm_sm90_n256_mn_f16
// kernels: ak_gemm_sm90_n256_kk_bf16 ak_gemm_sm90_n256_kn_bf16 ak_gemm_sm90_n256_mk_bf16 ak_gemm_sm90_n256_mn_bf16
// kernels: ak_gemm_sm90_n128_kk_f16 ak_gemm_sm90_n128_kn_f16 ak_gemm_sm90_n128_mk_f16 ak_gemm_sm90_n128_mn_f16
// kernels: ak_gemm_sm90_n128_kk_bf16 ak_gemm_sm90_n128_kn_bf16 ak_gemm_sm90_n128_mk_bf16 ak_gemm_sm90_n128_mn_bf16
// kernels: ak_gemm_sm90_n64_kk_f16 ak_gemm_sm90_n64_kn_f16 ak_gemm_sm90_n64_mk_f16 ak_gemm_sm90_n64_mn_f16
// kernels: ak_gemm_sm90_n64_kk_bf16 ak_gemm_sm90_n64_kn_bf16 ak_gemm_sm90_n64_mk_bf16 ak_gemm_sm90_n64_mn_bf16
// kernels: ak_gemm_sm90_c64_kk_f16 ak_gemm_sm90_c64_kn_f16 ak_gemm_sm90_c64_mk_f16 ak_gemm_sm90_c64_mn_f16
// kernels: ak_gemm_sm90_c64_kk_bf16 ak_gemm_sm90_c64_kn_bf16 ak_gemm_sm90_c64_mk_bf16 ak_gemm_sm90_c64_mn_bf16
// kernels: ak_gemm_sm90_p128_kk_f16 ak_gemm_sm90_p128_kn_f16 ak_gemm_sm90_p128_mk_f16 ak_gemm_sm90_p128_mn_f16
// kernels: ak_gemm_sm90_p128_kk_bf16 ak_gemm_sm90_p128_kn_bf16 ak_gemm_sm90_p128_mk_bf16 ak_gemm_sm90_p128_mn_bf16
AK_GEMM_SM90(ak_gemm_sm90_n256_kk_f16, ak_f16_t, 256, 0, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_kn_f16, ak_f16_t, 256, 0, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_mk_f16, ak_f16_t, 256, 1, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_mn_f16, ak_f16_t, 256, 1, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_kk_bf16, ak_bf16_t, 256, 0, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_kn_bf16, ak_bf16_t, 256, 0, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_mk_bf16, ak_bf16_t, 256, 1, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_mn_bf16, ak_bf16_t, 256, 1, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kk_f16, ak_f16_t, 128, 0, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kn_f16, ak_f16_t, 128, 0, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_mk_f16, ak_f16_t, 128, 1, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_mn_f16, ak_f16_t, 128, 1, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kk_bf16, ak_bf16_t, 128, 0, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kn_bf16, ak_bf16_t, 128, 0, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_mk_bf16, ak_bf16_t, 128, 1, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_mn_bf16, ak_bf16_t, 128, 1, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n64_kk_f16, ak_f16_t, 64, 0, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n64_kn_f16, ak_f16_t, 64, 0, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n64_mk_f16, ak_f16_t, 64, 1, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n64_mn_f16, ak_f16_t, 64, 1, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n64_kk_bf16, ak_bf16_t, 64, 0, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n64_kn_bf16, ak_bf16_t, 64, 0, 0, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n64_mk_bf16, ak_bf16_t, 64, 1, 1, 0, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_n64_mn_bf16, ak_bf16_t, 64, 1, 0, 0, 0, 0)
AK_GEMM_SM90C(ak_gemm_sm90_c64_kk_f16, ak_f16_t, 64, 0, 1)
AK_GEMM_SM90C(ak_gemm_sm90_c64_kn_f16, ak_f16_t, 64, 0, 0)
AK_GEMM_SM90C(ak_gemm_sm90_c64_mk_f16, ak_f16_t, 64, 1, 1)
AK_GEMM_SM90C(ak_gemm_sm90_c64_mn_f16, ak_f16_t, 64, 1, 0)
AK_GEMM_SM90C(ak_gemm_sm90_c64_kk_bf16, ak_bf16_t, 64, 0, 1)
AK_GEMM_SM90C(ak_gemm_sm90_c64_kn_bf16, ak_bf16_t, 64, 0, 0)
AK_GEMM_SM90C(ak_gemm_sm90_c64_mk_bf16, ak_bf16_t, 64, 1, 1)
AK_GEMM_SM90C(ak_gemm_sm90_c64_mn_bf16, ak_bf16_t, 64, 1, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kk_f16, ak_f16_t, 128, 0, 1, 1, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kn_f16, ak_f16_t, 128, 0, 0, 1, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_mk_f16, ak_f16_t, 128, 1, 1, 1, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_mn_f16, ak_f16_t, 128, 1, 0, 1, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kk_bf16, ak_bf16_t, 128, 0, 1, 1, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kn_bf16, ak_bf16_t, 128, 0, 0, 1, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_mk_bf16, ak_bf16_t, 128, 1, 1, 1, 0, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_mn_bf16, ak_bf16_t, 128, 1, 0, 1, 0, 0)
#endif
/* fp8: ak_gemm_sm90_<n256|n128|p128>_kk_<A type><B type> (e4 = e4m3, e5 = e5m2), one accumulation over all of k
 * (fast_accum 1); q128: the 128 x 128 cooperative kernel with the precise k loop (fast_accum 0, PR). D f32, f16 or
 * bf16 (flags) */
#if !defined(AK_G9_ONLY) || AK_G9_ONLY == 8
// kernels: ak_gemm_sm90_n256_kk_e4e4 ak_gemm_sm90_n256_kk_e4e5 ak_gemm_sm90_n256_kk_e5e4 ak_gemm_sm90_n256_kk_e5e5
// kernels: ak_gemm_sm90_n128_kk_e4e4 ak_gemm_sm90_n128_kk_e4e5 ak_gemm_sm90_n128_kk_e5e4 ak_gemm_sm90_n128_kk_e5e5
// kernels: ak_gemm_sm90_p128_kk_e4e4 ak_gemm_sm90_p128_kk_e4e5 ak_gemm_sm90_p128_kk_e5e4 ak_gemm_sm90_p128_kk_e5e5
AK_GEMM_SM90(ak_gemm_sm90_n256_kk_e4e4, ak_bf16_t, 256, 0, 1, 0, 1, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_kk_e4e5, ak_bf16_t, 256, 0, 1, 0, 2, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_kk_e5e4, ak_bf16_t, 256, 0, 1, 0, 3, 0)
AK_GEMM_SM90(ak_gemm_sm90_n256_kk_e5e5, ak_bf16_t, 256, 0, 1, 0, 4, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kk_e4e4, ak_bf16_t, 128, 0, 1, 0, 1, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kk_e4e5, ak_bf16_t, 128, 0, 1, 0, 2, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kk_e5e4, ak_bf16_t, 128, 0, 1, 0, 3, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kk_e5e5, ak_bf16_t, 128, 0, 1, 0, 4, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kk_e4e4, ak_bf16_t, 128, 0, 1, 1, 1, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kk_e4e5, ak_bf16_t, 128, 0, 1, 1, 2, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kk_e5e4, ak_bf16_t, 128, 0, 1, 1, 3, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kk_e5e5, ak_bf16_t, 128, 0, 1, 1, 4, 0)
// kernels: ak_gemm_sm90_q128_kk_e4e4 ak_gemm_sm90_q128_kk_e4e5 ak_gemm_sm90_q128_kk_e5e4 ak_gemm_sm90_q128_kk_e5e5
AK_GEMM_SM90(ak_gemm_sm90_q128_kk_e4e4, ak_bf16_t, 128, 0, 1, 0, 1, 1)
AK_GEMM_SM90(ak_gemm_sm90_q128_kk_e4e5, ak_bf16_t, 128, 0, 1, 0, 2, 1)
AK_GEMM_SM90(ak_gemm_sm90_q128_kk_e5e4, ak_bf16_t, 128, 0, 1, 0, 3, 1)
AK_GEMM_SM90(ak_gemm_sm90_q128_kk_e5e5, ak_bf16_t, 128, 0, 1, 0, 4, 1)
#endif
/* TF32: ak_gemm_sm90_<n256|n128|p128>_kk_x32 (f32 inputs, K-major: A stored M x K, B stored N x K; the host copies
 * other layouts into that form first); D f32 */
#if !defined(AK_G9_ONLY) || AK_G9_ONLY == 32
// kernels: ak_gemm_sm90_n256_kk_x32 ak_gemm_sm90_n128_kk_x32 ak_gemm_sm90_p128_kk_x32
AK_GEMM_SM90(ak_gemm_sm90_n256_kk_x32, ak_bf16_t, 256, 0, 1, 0, 6, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kk_x32, ak_bf16_t, 128, 0, 1, 0, 6, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kk_x32, ak_bf16_t, 128, 0, 1, 1, 6, 0)
#endif
/* int8: ak_gemm_sm90_<n256|n128|p128>_kk_i8; D int32 (raw sums), f32, f16 or bf16 (flags) */
#if !defined(AK_G9_ONLY) || AK_G9_ONLY == 1
// kernels: ak_gemm_sm90_n256_kk_i8 ak_gemm_sm90_n128_kk_i8 ak_gemm_sm90_p128_kk_i8
AK_GEMM_SM90(ak_gemm_sm90_n256_kk_i8, ak_bf16_t, 256, 0, 1, 0, 5, 0)
AK_GEMM_SM90(ak_gemm_sm90_n128_kk_i8, ak_bf16_t, 128, 0, 1, 0, 5, 0)
AK_GEMM_SM90(ak_gemm_sm90_p128_kk_i8, ak_bf16_t, 128, 0, 1, 1, 5, 0)
#endif
