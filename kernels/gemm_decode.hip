/* kernels/gemm_decode.hip: decode-shaped GEMM (m = 1..16 rows) for f16 /
 * bf16 inputs on NVIDIA sm_80+ (mma.sync), either layout of A and B:
 *   D = act(alpha op(A) op(B) + beta C + bias) + R, batched (strided).
 * Host wrapper, plan and CPU reference: ak_gemm in amdkit.h (>>impl:ops-gemm),
 * which picks this family for m <= 16 on rows of the architecture table with
 * mma.sync (any element-aligned A and B).
 *
 * A GEMM with at most 16 rows is a stream of B: the work is to read B once
 * at the copy bandwidth. Block: 4 warps, 64 columns of D (each warp 16) and a
 * slice of k (split-K over gridDim.y, so that every SM has several blocks
 * whatever n is). B moves in 64 (k) x 64 (n) tiles (8 KiB), A in 16 x 64
 * tiles, through a 4-stage cp.async ring (16-byte copies, the tails past
 * M / N / K zero-filled), 128-byte rows XOR-swizzled by 16-byte chunk
 * (conflict-free ldmatrix). B without 16-byte rows (e.g. an odd number of
 * columns) moves by 16-byte cp.async too: each row's 9 aligned 16-byte
 * pieces around its 64 elements into a 3-stage ring of 144-byte rows; after
 * each stage lands, the block shifts every row down by its first element's
 * offset in its piece (0-14 bytes: two selects by word and a byte permute)
 * into one swizzled tile for ldmatrix (a second barrier a stage). A without
 * 16-byte rows, and tiles at the operands' edges, by plain loads of 4 words,
 * or at an odd element of an element, 3 words and an element, every load of
 * a stage issued before its stores to shared memory. Fragments come from
 * ldmatrix (.trans for the
 * m- / n-contiguous layouts), the products from mma.sync m16n8k16 with fp32
 * accumulators: the tensor cores make m = 16 cost what m = 1 costs (FMAs
 * would need 16 per element of B, more than the SM has at the copy rate).
 * One split (gridDim.y == 1): the epilogue is applied here. Several: each
 * block writes alpha-less partial sums to W[b][split][m][n] (fp32) and
 * ak_gemm_decode_fin_* sums the splits in order (deterministic) and applies
 * the epilogue.
 *
 * The matrix-vector kernels (ak_gemm_gemv_*: n = 1 with A k-contiguous, or
 * m = 1 with B stored N x K; ak_gemm_gemvn_f32 / gemvn32_f32: exact f32 with
 * m <= 16 and B stored K x N; ak_gemm_gemvn4_f32: the same with m <= 4) live
 * here too, for every architecture: FMAs, no matrix
 * instruction, the parameter list of kernels/gemm.hip's kernels.
 *
 * flags (as kernels/gemm.hip): bit 0 A transposed, 1 B transposed, 2 D / C /
 * bias / R are f32, 3 read C, 4 bias, 5 residual, 6 / 7 A / B 16-byte
 * vectors allowed (16-byte aligned base, rows and batch stride), bits 8..19 the activation's AK_UNARY_* code, bit 23 D / C / R
 * stored transposed and the bias indexed by row: the host runs a product
 * with n <= 16 as C^T = B^T A^T, whose short side is m here. */

// >>host  the flag bits (the host builds them: amdkit.h _AK_GD_*; the same values as kernels/gemm.hip's)
#define AK_GD_TA 1
#define AK_GD_TB 2
#define AK_GD_OUT32 4
#define AK_GD_C 8
#define AK_GD_BIAS 16
#define AK_GD_RES 32
#define AK_GD_VA 64
#define AK_GD_VB 128
#define AK_GD_ACT_SHIFT 8
#define AK_GD_CT (1 << 23)
#define AK_GD_W4 (1 << 24) /* the split-K finish: 4 columns a thread, a 16-byte load a slice (N % 4 == 0) */
// <<host

/* One output element's epilogue (value before alpha in acc): element (m, n)
 * of D / C / R at m ld + n, or at n ld + m with AK_GD_CT (then the bias is
 * per m). */
template <class DT>
AK_INLINE void ak_gd_out(int m, int n, float acc, void* D, ak_i64 ldd, const void* C, ak_i64 ldc, const void* bias, const void* R,
                         ak_i64 ldr, float alpha, float beta, int flags, float ap) {
    typedef typename DT::T T;
    const bool o32 = (flags & AK_GD_OUT32) != 0, ct = (flags & AK_GD_CT) != 0;
    const ak_i64 r = ct ? n : m, c = ct ? m : n;
    const int act = (flags >> AK_GD_ACT_SHIFT) & 0xFFF;
    float v = alpha * acc;
    if (flags & AK_GD_C) v += beta * (o32 ? ((const float*)C)[r * ldc + c] : DT::to(((const T*)C)[r * ldc + c]));
    if (flags & AK_GD_BIAS) v += o32 ? ((const float*)bias)[c] : DT::to(((const T*)bias)[c]);
    if (act) v = ak_uop_apply(act, v, ap);
    if (flags & AK_GD_RES) v += o32 ? ((const float*)R)[r * ldr + c] : DT::to(((const T*)R)[r * ldr + c]);
    if (o32) ((float*)D)[r * ldd + c] = v;
    else ((T*)D)[r * ldd + c] = DT::from(v);
}

template <class DT> struct ak_gemm_decode_is_f16 { enum { V = 0 }; };
template <> struct ak_gemm_decode_is_f16<ak_f16_t> { enum { V = 1 }; };

#if defined(AK_MMA_SYNC)
/* Up to 8 2-byte elements at src (src_bytes / 2 of them, 0..8) as 16 bytes, zeros after them, by plain loads in
 * two steps, so that a stage issues every load before it waits on one: ak_gd_ld8 issues them into r[5] (a whole
 * chunk: at a 4-byte aligned address 4 words, at an odd element an element, 3 words and an element, predicated, no
 * branch; a partial chunk, only at the operand's edges: element by element, packed at once), ak_gd_pack puts the 16
 * bytes together. Nothing past the operand is read (a partial cp.async reads only src_bytes, but
 * compute-sanitizer's initcheck counts all 16). */
AK_INLINE void ak_gd_ld8(const void* src, int src_bytes, ak_u32* r) {
    const unsigned short* e = (const unsigned short*)src;
    if (src_bytes == 16) {
        const int odd = ((size_t)src & 2) ? 1 : 0;
        const ak_u32* w = (const ak_u32*)(e + odd);
        r[1] = w[0];
        r[2] = w[1];
        r[3] = w[2];
        r[0] = odd ? (ak_u32)e[0] : w[3];
        r[4] = odd ? (ak_u32)e[7] | 0x10000u : 0u; /* bit 16: the odd form (an element is below 2^16) */
        return;
    }
    ak_u32 v[4] = { 0u, 0u, 0u, 0u };
#pragma unroll
    for (int i = 0; i < 8; i++)
        if (2 * i < src_bytes) v[i / 2] |= (ak_u32)e[i] << (16 * (i % 2));
    r[1] = v[0]; r[2] = v[1]; r[3] = v[2]; r[0] = v[3]; r[4] = 0u;
}
AK_INLINE void ak_gd_pack(const ak_u32* r, ak_u32* v) {
    if (r[4] & 0x10000u) {
        v[0] = r[0] | (r[1] << 16);
        v[1] = (r[1] >> 16) | (r[2] << 16);
        v[2] = (r[2] >> 16) | (r[3] << 16);
        v[3] = (r[3] >> 16) | (r[4] << 16);
    } else {
        v[0] = r[1]; v[1] = r[2]; v[2] = r[3]; v[3] = r[0];
    }
}
AK_INLINE void ak_gd_st16(void* smem, const ak_u32* r) { /* r: ak_gd_ld8's */
    ak_u32 v[4];
    ak_gd_pack(r, v);
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(ak_smem_addr(smem)), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
}
/* Plain stores into the stages are ordered with the cp.async data by the same wait + __syncthreads. Groups, waits. */
AK_INLINE void ak_gd_commit(void) { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> AK_INLINE void ak_gd_wait(void) { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
AK_INLINE void ak_gd_ldsm4(ak_u32 addr, ak_u32* r) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
AK_INLINE void ak_gd_ldsm4t(ak_u32 addr, ak_u32* r) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
template <bool F16>
AK_INLINE void ak_gd_mma(float* c, const ak_u32* a, ak_u32 b0, ak_u32 b1) {
    if (F16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
/* the stages' bytes: the shifted ring of 3 x 64 rows of 144 bytes, a 64 x 64 tile, A's 3 16 x 64 stages, each
 * stage's 64 row offsets (the other forms' 4 stages of 10 KiB fit) */
#define AK_GD_SMEM (3 * 64 * 144 + 64 * 64 * 2 + 3 * 16 * 64 * 2 + 3 * 64)
/* 128-byte rows, 16-byte chunk c of row r at r * 128 + (c ^ (r % 8)) * 16 */
AK_INLINE int ak_gd_sw(int r, int c) { return r * 128 + ((c ^ (r & 7)) << 4); }

/* TA: 0 A k-contiguous (stored M x K), 1 m-contiguous (K x M); TB: 1 B k-contiguous (N x K), 0 n-contiguous (K x N);
 * F: the form. 0: A and B both 16-byte (the flags' AK_GD_VA / AK_GD_VB known set: the plain-load branches compiled
 * out, the cp.async ring as tight as without them); 1: B 16-byte, A not; 2: B not 16-byte (the shifted ring: 3
 * stages of 64 rows of 144 bytes at 0, the swizzled B tile after them, A's 3 stages, the rows' offsets in their
 * first pieces). sm: the kernel's stages (one array for every form: AK_GD_SMEM bytes). */
template <class DT, int TA, int TB, int F>
AK_INLINE void ak_gd_gemm(unsigned char* sm, const typename DT::T* A, const typename DT::T* B, const void* C, void* D, const void* bias, const void* R,
                          float* W, int M, int N, int K, ak_i64 lda, ak_i64 ldb, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sA,
                          ak_i64 sB, ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, int kper, float alpha, float beta, int flags,
                          float ap) {
    typedef typename DT::T T;
    enum { NB = 64, KC = 64, S = F == 2 ? 3 : 4, B_BYTES = KC * NB * 2, A_BYTES = 16 * KC * 2, STAGE = B_BYTES + A_BYTES };
    enum { ROW = 144, STG = 64 * ROW, BSW = 3 * STG, AR = BSW + B_BYTES, SHF = AR + 3 * A_BYTES }; /* the shifted ring (F == 2) */
    const bool V = F == 0;
    static_assert(SHF + 3 * 64 <= AK_GD_SMEM && 4 * STAGE <= AK_GD_SMEM, "the forms' stages fit the kernel's array");
    const int tid = (int)threadIdx.x, w = tid / 32, l = tid % 32;
    const int n0 = (int)blockIdx.x * NB, ks = (int)blockIdx.y * kper, ke = ks + kper < K ? ks + kper : K;
    const int nkc = ke > ks ? (ke - ks + KC - 1) / KC : 0;
    const ak_u32 s0 = ak_smem_addr(sm);
    const int o32 = (flags & AK_GD_OUT32) ? 1 : 0, osz = o32 ? 4 : DT::SIZE;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const T* Ab = A + (ak_i64)b * sA;
        const T* Bb = B + (ak_i64)b * sB;
        /* copy k chunk c of this block's slice into stage st: a chunk wholly inside the slice and the 64 columns
           by one cp.async per 16 bytes from pointers set up once (B: rows tid / 8 + 16 i, 16-byte chunk tid % 8;
           A, k-contiguous: row tid / 8; m-contiguous: k row tid / 2, 16-byte half tid % 2); else (tails) each
           copy checked against M, N and the slice's end */
        const bool vb = V || (flags & AK_GD_VB) != 0, va = V || (flags & AK_GD_VA) != 0;
        const bool bfull = n0 + NB <= N, afull = TA == 0 ? tid / 8 < M : (tid % 2) * 8 + 8 <= M;
        const T* bsrc = TB == 1 ? Bb + (ak_i64)(n0 + tid / 8) * ldb + ks + (tid % 8) * 8 : Bb + (ak_i64)(ks + tid / 8) * ldb + n0 + (tid % 8) * 8;
        const T* asrc = TA == 0 ? Ab + (ak_i64)(tid / 8) * lda + ks + (tid % 8) * 8 : Ab + (ak_i64)(ks + tid / 2) * lda + (tid % 2) * 8;
        const ak_i64 bstep = 16 * ldb, bchunk = TB == 1 ? KC : (ak_i64)KC * ldb;
        const ak_i64 achunk = TA == 0 ? KC : (ak_i64)KC * lda;
        /* F == 2: chunk k0 goes by aligned 16-byte pieces when it is whole and every row has 7 elements before and 8
           after the tile (so the pieces around it are the operand's); B's row r of the tile */
        auto pieces = [&](int k0) -> bool {
            return F == 2 && k0 + KC <= ke && (TB == 1 ? bfull && k0 > 0 && k0 + KC + 8 <= K : n0 > 0 && n0 + NB + 8 <= N);
        };
        auto brow = [&](int k0, int r) -> const T* {
            return TB == 1 ? Bb + (ak_i64)(n0 + r) * ldb + k0 : Bb + (ak_i64)(k0 + r) * ldb + n0;
        };
        auto load = [&](int c, int st) {
            const int k0 = ks + c * KC;
            unsigned char* sb = F == 2 ? sm + st * STG : sm + st * STAGE;
            unsigned char* sa = F == 2 ? sm + AR + st * A_BYTES : sb + B_BYTES;
            if (F == 2 && pieces(k0)) { /* 64 rows x 9 pieces */
                if (TB == 1) { /* row tid / 2, pieces tid % 2, + 2, ..: one row address a thread (the rows' products
                                  with ldb do not change with k: held across stages, they spilled) */
                    const int r = tid >> 1, h = tid & 1;
                    const char* p = (const char*)brow(k0, r);
                    const int off = (int)((size_t)p & 15);
                    const ak_u32 d = ak_smem_addr(sb + r * ROW);
#pragma unroll
                    for (int j = 0; j < 5; j++)
                        if (h + 2 * j < 9)
                            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d + (h + 2 * j) * 16),
                                         "l"(p - off + (h + 2 * j) * 16) : "memory");
                    if (h == 0) sm[SHF + st * 64 + r] = (unsigned char)off; /* for the shift */
                } else { /* piece q % 9 of row q / 9: a warp's copies on 4 rows (k rows lie ldb apart); the shift
                            finds the offsets from the rows' addresses */
#pragma unroll
                    for (int i = 0; i < 5; i++) {
                        const int q = tid + 128 * i, r = q / 9, pc = q % 9;
                        if (i < 4 || q < 64 * 9) {
                            const char* p = (const char*)brow(k0, r);
                            const int off = (int)((size_t)p & 15);
                            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(ak_smem_addr(sb + r * ROW + pc * 16)),
                                         "l"(p - off + pc * 16) : "memory");
                        }
                    }
                }
            }
            if (F != 2 && k0 + KC <= ke && bfull && vb) {
                const T* q = bsrc + c * bchunk;
#pragma unroll
                for (int i = 0; i < 4; i++)
                    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(ak_smem_addr(sb + ak_gd_sw(tid / 8 + 16 * i, tid % 8))),
                                 "l"(q + i * bstep) : "memory");
                if (afull && va) {
                    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(ak_smem_addr(
                                     sa + (TA == 0 ? ak_gd_sw(tid / 8, tid % 8) : (tid / 2) * 32 + (tid % 2) * 16))),
                                 "l"(asrc + c * achunk) : "memory");
                    return;
                }
            }
            ak_u32 av[5];
            int aoff;
            bool acp;
            { /* A: 16 rows (m) x 8 chunks (k), or 64 rows (k) x 2 chunks (m) of 32 bytes; stored after B's loads */
                const T* src;
                int bytes;
                if (TA == 0) {
                    const int r = tid / 8, ch = tid % 8, k = k0 + ch * 8, left = (ke - k) * 2;
                    bytes = r < M && k < ke ? (left < 16 ? left : 16) : 0;
                    src = Ab + (ak_i64)r * lda + k;
                    aoff = ak_gd_sw(r, ch);
                } else {
                    const int r = tid / 2, ch = tid % 2, k = k0 + r, left = (M - ch * 8) * 2;
                    bytes = k < ke && ch * 8 < M ? (left < 16 ? left : 16) : 0;
                    src = Ab + (ak_i64)k * lda + ch * 8;
                    aoff = r * 32 + ch * 16;
                }
                acp = bytes == 16 && va;
                if (acp) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(ak_smem_addr(sa + aoff)), "l"(src) : "memory");
                else ak_gd_ld8(bytes ? (const void*)src : (const void*)Ab, bytes, av);
            }
            if (F == 2 ? !pieces(k0) : !(k0 + KC <= ke && bfull && vb)) { /* B: 64 rows x 8 chunks; all loads issued before the stores */
                ak_u32 v[4][5];
                bool cp[4];
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    const int q = tid + 128 * i, r = q / 8, ch = q % 8;
                    const T* src;
                    int bytes;
                    if (TB == 1) { /* row r = column n0 + r, chunk = k */
                        const int n = n0 + r, k = k0 + ch * 8, left = (ke - k) * 2;
                        bytes = n < N && k < ke ? (left < 16 ? left : 16) : 0;
                        src = Bb + (ak_i64)n * ldb + k;
                    } else { /* row r = k0 + r, chunk = columns */
                        const int k = k0 + r, n = n0 + ch * 8, left = (N - n) * 2;
                        bytes = k < ke && n < N ? (left < 16 ? left : 16) : 0;
                        src = Bb + (ak_i64)k * ldb + n;
                    }
                    cp[i] = bytes == 16 && vb;
                    if (cp[i])
                        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(ak_smem_addr(sb + ak_gd_sw(r, ch))), "l"(src) : "memory");
                    else
                        ak_gd_ld8(bytes ? (const void*)src : (const void*)Bb, bytes, v[i]);
                }
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    const int q = tid + 128 * i;
                    if (F == 2) ak_gd_st16(sb + (q / 8) * ROW + (q % 8) * 16, v[i]); /* at the row's start: no shift */
                    else if (!cp[i]) ak_gd_st16(sb + ak_gd_sw(q / 8, q % 8), v[i]);
                }
            }
            if (!acp) ak_gd_st16(sa + aoff, av);
        };
        float acc[2][4];
#pragma unroll
        for (int g = 0; g < 2; g++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[g][e] = 0.0f;
        __syncthreads(); /* the previous batch's readers are done with the stages */
#pragma unroll
        for (int s = 0; s < S - 1; s++) {
            if (s < nkc) load(s, s);
            ak_gd_commit();
        }
        for (int c = 0; c < nkc; c++) {
            ak_gd_wait<S - 2>();
            __syncthreads();
            if (F == 2) { /* stage c into the swizzled tile, each row shifted down by its offset in its first piece */
                const int k0 = ks + c * KC;
                const bool wd = pieces(k0);
                const unsigned char* src = sm + (c % S) * STG;
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    const int q = tid + 128 * i, r = q / 8, ch = q % 8;
                    const int sh = !wd ? 0 : TB == 1 ? (int)sm[SHF + (c % S) * 64 + r] : (int)((size_t)brow(k0, r) & 15); /* bytes */
                    ak_u32 x[8], t[6], u[5], v[4];
                    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                                 : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]) : "r"(ak_smem_addr(src + r * ROW + ch * 16)));
                    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                                 : "=r"(x[4]), "=r"(x[5]), "=r"(x[6]), "=r"(x[7]) : "r"(ak_smem_addr(src + r * ROW + ch * 16 + 16)));
#pragma unroll
                    for (int j = 0; j < 6; j++) t[j] = (sh & 8) ? x[j + 2] : x[j];
#pragma unroll
                    for (int j = 0; j < 5; j++) u[j] = (sh & 4) ? t[j + 1] : t[j];
                    const ak_u32 sel = (sh & 2) ? 0x5432u : 0x3210u;
#pragma unroll
                    for (int j = 0; j < 4; j++) asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(v[j]) : "r"(u[j]), "r"(u[j + 1]), "r"(sel));
                    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(ak_smem_addr(sm + BSW + ak_gd_sw(r, ch))), "r"(v[0]),
                                 "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
                }
                __syncthreads();
            }
            if (c + S - 1 < nkc) load(c + S - 1, (c + S - 1) % S);
            ak_gd_commit();
            const ak_u32 sb = F == 2 ? s0 + BSW : s0 + (c % S) * STAGE, sa = F == 2 ? s0 + AR + (c % S) * A_BYTES : sb + B_BYTES;
#pragma unroll
            for (int kk = 0; kk < KC / 16; kk++) {
                ak_u32 a[4], bq[4];
                if (TA == 0) ak_gd_ldsm4(sa + ak_gd_sw(l % 16, kk * 2 + l / 16), a);
                else { /* [k][m] rows of 32 bytes: matrices (k 0-7, m 0-7), (k 0-7, m 8-15), (k 8-15, m 0-7), (k 8-15, m 8-15) */
                    const int kr = kk * 16 + (l % 8) + 8 * (l / 16), mc = (l / 8) % 2;
                    ak_gd_ldsm4t(sa + kr * 32 + mc * 16, a);
                }
                if (TB == 1) { /* [n][k]: matrices (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15) */
                    const int nr = 16 * w + (l % 8) + 8 * (l / 16), kc = kk * 2 + (l / 8) % 2;
                    ak_gd_ldsm4(sb + ak_gd_sw(nr, kc), bq);
                } else { /* [k][n]: matrices (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15) */
                    const int kr = kk * 16 + (l % 8) + 8 * ((l / 8) % 2), nc = 2 * w + l / 16;
                    ak_gd_ldsm4t(sb + ak_gd_sw(kr, nc), bq);
                }
                ak_gd_mma<ak_gemm_decode_is_f16<DT>::V>(acc[0], a, bq[0], bq[1]);
                ak_gd_mma<ak_gemm_decode_is_f16<DT>::V>(acc[1], a, bq[2], bq[3]);
            }
        }
        ak_gd_wait<0>();
        __syncthreads(); /* every warp is done with the stages: stage the 16 x 64 sums there */
        float* st = (float*)sm;
#pragma unroll
        for (int g = 0; g < 2; g++)
#pragma unroll
            for (int e = 0; e < 4; e++) st[(l / 4 + 8 * (e / 2)) * NB + 16 * w + 8 * g + 2 * (l % 4) + e % 2] = acc[g][e];
        __syncthreads();
        void* Db = (char*)D + (ak_i64)b * sD * osz;
        const void* Cb = C ? (const char*)C + (ak_i64)b * sC * osz : C;
        const void* Rb = R ? (const char*)R + (ak_i64)b * sR * osz : R;
#pragma unroll 1
        for (int i = tid; i < 16 * NB; i += 128) {
            const int m = i / NB, n = n0 + i % NB;
            if (m >= M || n >= N) continue;
            if (gridDim.y == 1) ak_gd_out<DT>(m, n, st[i], Db, ldd, Cb, ldc, bias, Rb, ldr, alpha, beta, flags, ap);
            else W[(((ak_i64)b * gridDim.y + blockIdx.y) * M + m) * N + n] = st[i];
        }
    }
}
#endif /* AK_MMA_SYNC */

/* Kernels: ak_gemm_decode_<a><b>_<dtype> (a / b: k when the operand is
 * k-contiguous, m / n when not), 128 threads; the host picks them only where
 * the architecture has mma.sync (the body is empty elsewhere). */
#define AK_GEMM_DECODE_PARAMS_T(DT)                                                                                       \
    const typename DT::T *A, const typename DT::T *B, const void *C, void *D, const void *bias, const void *R, float *W, \
        int M, int N, int K, ak_i64 lda, ak_i64 ldb, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sA, ak_i64 sB, ak_i64 sC,  \
        ak_i64 sD, ak_i64 sR, int batch, int kper, float alpha, float beta, int flags, float ap
#if defined(AK_MMA_SYNC)
/* the forms with plain loads or the shifted ring out of line, so that the 16-byte form inlined in the kernel
 * compiles as tight as alone */
template <class DT, int TA, int TB, int F>
__device__ __noinline__ void ak_gd_gemm_plain(unsigned char* sm, AK_GEMM_DECODE_PARAMS_T(DT)) {
    ak_gd_gemm<DT, TA, TB, F>(sm, A, B, C, D, bias, R, W, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, kper,
                                  alpha, beta, flags, ap);
}
#define AK_GD_BODY(DT, TA, TB)                                                                                              \
    __shared__ __attribute__((aligned(128))) unsigned char sm[AK_GD_SMEM]; /* ak_gd_gemm's stages */                  \
    if ((flags & (AK_GD_VA | AK_GD_VB)) == (AK_GD_VA | AK_GD_VB))                                                           \
        ak_gd_gemm<DT, TA, TB, 0>(sm, A, B, C, D, bias, R, W, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, kper, \
                                  alpha, beta, flags, ap);                                                                    \
    else if (flags & AK_GD_VB)                                                                                                \
        ak_gd_gemm_plain<DT, TA, TB, 1>(sm, A, B, C, D, bias, R, W, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, \
                                        kper, alpha, beta, flags, ap);                                                        \
    else                                                                                                                      \
        ak_gd_gemm_plain<DT, TA, TB, 2>(sm, A, B, C, D, bias, R, W, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, \
                                        kper, alpha, beta, flags, ap);
#else
#define AK_GD_BODY(DT, TA, TB)
#endif
#define AK_GEMM_DECODE(NAME, DT, TA, TB)                                       \
    AK_KERNEL void __launch_bounds__(128, 5) NAME(AK_GEMM_DECODE_PARAMS_T(DT)) { \
        AK_KONLY(NAME) { AK_GD_BODY(DT, TA, TB) }                                         \
    }
// kernels: ak_gemm_decode_kk_f16 ak_gemm_decode_kn_f16 ak_gemm_decode_mk_f16 ak_gemm_decode_mn_f16
// kernels: ak_gemm_decode_kk_bf16 ak_gemm_decode_kn_bf16 ak_gemm_decode_mk_bf16 ak_gemm_decode_mn_bf16
AK_GEMM_DECODE(ak_gemm_decode_kk_f16, ak_f16_t, 0, 1)
AK_GEMM_DECODE(ak_gemm_decode_kn_f16, ak_f16_t, 0, 0)
AK_GEMM_DECODE(ak_gemm_decode_mk_f16, ak_f16_t, 1, 1)
AK_GEMM_DECODE(ak_gemm_decode_mn_f16, ak_f16_t, 1, 0)
AK_GEMM_DECODE(ak_gemm_decode_kk_bf16, ak_bf16_t, 0, 1)
AK_GEMM_DECODE(ak_gemm_decode_kn_bf16, ak_bf16_t, 0, 0)
AK_GEMM_DECODE(ak_gemm_decode_mk_bf16, ak_bf16_t, 1, 1)
AK_GEMM_DECODE(ak_gemm_decode_mn_bf16, ak_bf16_t, 1, 0)

/* The split-K finish: D[b][m][n] = epilogue(sum over the splits of W[b][s][m][n]), the splits added in order from
 * zero (the same sum on every run). Batch entries go over blockIdx.z, rows over y, a column a thread over x
 * (grid-strided every way: any grid is correct): no division. With AK_GD_W4 (N % 4 == 0: W's rows are 16-byte
 * aligned) 4 columns a thread, one 16-byte load a slice: the host sets it where that still gives every SM a block. */
template <class DT, int V>
AK_INLINE void ak_gd_fin_cols(const float* W, const void* C, void* D, const void* bias, const void* R, int M, int N, int splits,
                              ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta,
                              int flags, float ap) {
    const ak_i64 per = (ak_i64)M * N;
    const int osz = (flags & AK_GD_OUT32) ? 4 : DT::SIZE;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const float* wb = W + (ak_i64)b * splits * per;
        char* Db = (char*)D + (ak_i64)b * sD * osz;
        const void* Cb = C ? (const char*)C + (ak_i64)b * sC * osz : C;
        const void* Rb = R ? (const char*)R + (ak_i64)b * sR * osz : R;
        for (int m = (int)blockIdx.y; m < M; m += (int)gridDim.y) {
            const float* w = wb + (ak_i64)m * N;
            for (int n = V * (int)(blockIdx.x * blockDim.x + threadIdx.x); n < N; n += V * (int)(gridDim.x * blockDim.x)) {
                float acc[V];
#pragma unroll
                for (int j = 0; j < V; j++) acc[j] = 0.0f;
                for (int s = 0; s < splits; s++) {
                    if constexpr (V == 4) {
                        const float4 v = *(const float4*)(w + (ak_i64)s * per + n);
                        acc[0] += v.x; acc[1] += v.y; acc[2] += v.z; acc[3] += v.w;
                    } else {
                        acc[0] += w[(ak_i64)s * per + n];
                    }
                }
#pragma unroll 1
                for (int j = 0; j < V; j++) ak_gd_out<DT>(m, n + j, acc[j], Db, ldd, Cb, ldc, bias, Rb, ldr, alpha, beta, flags, ap);
            }
        }
    }
}
template <class DT>
AK_INLINE void ak_gd_fin(const float* W, const void* C, void* D, const void* bias, const void* R, int M, int N, int splits, ak_i64 ldc,
                         ak_i64 ldd, ak_i64 ldr, ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta, int flags,
                         float ap) {
    if (flags & AK_GD_W4) ak_gd_fin_cols<DT, 4>(W, C, D, bias, R, M, N, splits, ldc, ldd, ldr, sC, sD, sR, batch, alpha, beta, flags, ap);
    else ak_gd_fin_cols<DT, 1>(W, C, D, bias, R, M, N, splits, ldc, ldd, ldr, sC, sD, sR, batch, alpha, beta, flags, ap);
}
#define AK_GEMM_DECODE_FIN(NAME, DT)                                                                                     \
    AK_KERNEL void __launch_bounds__(256) NAME(const float* W, const void* C, void* D, const void* bias, const void* R, \
                                               int M, int N, int splits, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sC,   \
                                               ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta, int flags,     \
                                               float ap) {                                                              \
        AK_KONLY(NAME) ak_gd_fin<DT>(W, C, D, bias, R, M, N, splits, ldc, ldd, ldr, sC, sD, sR, batch, alpha, beta, flags, ap);       \
    }
// kernels: ak_gemm_decode_fin_f16 ak_gemm_decode_fin_bf16 ak_gemm_decode_fin_f32
AK_GEMM_DECODE_FIN(ak_gemm_decode_fin_f16, ak_f16_t)
AK_GEMM_DECODE_FIN(ak_gemm_decode_fin_bf16, ak_bf16_t)
AK_GEMM_DECODE_FIN(ak_gemm_decode_fin_f32, ak_f32_t) /* the gemvn kernel's split-K (every architecture) */

/* ---- matrix-vector kernels (every architecture) ------------------------
 * The parameter list of kernels/gemm.hip's kernels (AK_GEMM_PARAMS_T): the
 * host launches these with the same arguments and flags. */
#define AK_GD_PARAMS_T(DT)                                                                                        \
    const typename DT::T *A, const typename DT::T *B, const void *C, void *D, const void *bias, const void *R, \
        int M, int N, int K, ak_i64 lda, ak_i64 ldb, ak_i64 ldc, ak_i64 ldd, ak_i64 ldr, ak_i64 sA, ak_i64 sB,  \
        ak_i64 sC, ak_i64 sD, ak_i64 sR, int batch, float alpha, float beta, int flags, float ap
#define AK_GD_ARGS A, B, C, D, bias, R, M, N, K, lda, ldb, ldc, ldd, ldr, sA, sB, sC, sD, sR, batch, alpha, beta, flags, ap

/* Per-batch pointer offset (output dtype for C / D / R). */
AK_INLINE const void* ak_gd_off(const void* p, ak_i64 s, int b, int o32, int esz) {
    return p ? (const void*)((const char*)p + (ak_i64)b * s * (o32 ? 4 : esz)) : p;
}

/* ---- a few rows times W stored K x N (n-contiguous): M <= 16 ----------
 * A stream of B, each element of which takes M FMAs (16 at most: 4 an SM
 * lane a clock at the copy rate, under half what the SM issues). A block
 * owns 128 columns (32 column threads of 4: a warp reads 512 bytes of a
 * row of B), or 32 (8 column threads, ak_gemm_gemvn32_f32: 4x the blocks,
 * for problems with few columns), and runs its k range in chunks of KPT
 * rows a k group (KPT 8, 4 at wave 64 and with 32 columns; blockDim /
 * column threads groups): the chunk's 16 x KS slice of A is staged once in
 * shared memory as KS rows of 16 (rows past M and K zero; each thread
 * stages EPT consecutive elements along A's rows, read for the next chunk
 * while this one is computed), so that A costs the block M K reads from L2
 * (1/8 of its bytes of B at M = 16 with 128 columns), not one per column.
 * A thread holds its KPT rows of 4 columns of the next chunk in registers
 * while it computes this one (16-byte loads in flight across the chunk's
 * barrier; every load unconditional: rows past the slice read its last
 * row, columns past N the row's last column, zeroed where the chunk is
 * used) and asks for the chunk after that with an L2 prefetch (NVIDIA):
 * per row of B, one 16-byte load, 16-byte broadcast reads of A and 4 FMAs
 * a row of A (4, 8 or 16 rows: the fewest that hold M) into 16 x 4 fp32
 * sums. The k groups' sums are added in shared memory in group order, 4
 * rows at a time (the same sum every run).
 * Split-K (gridDim.y > 1): block y runs the y-th slice of k (a multiple
 * of the chunk) and writes its alpha-less fp32 sums to D + (b gridDim.y +
 * y) M N (the host passes its workspace, ldd = N, no C / bias / residual);
 * ak_gemm_decode_fin_f32 adds the slices in order and runs the epilogue. */
/* acc[m][q] += A^T[row][m] B[row][q] over the KPT rows of a k group in a staged chunk (sa: its first row; rows KG
 * apart), the first MR rows of A; each row's 16-byte reads of A issued before the previous row's FMAs. */
template <int MR, int KPT, int KG, int CW>
AK_INLINE void ak_gn_fma(float (&acc)[16][CW], const float* sa, const float (&bc)[KPT][CW]) {
    float4 a[2][MR / 4];
#pragma unroll
    for (int m4 = 0; m4 < MR / 4; m4++) a[0][m4] = ((const float4*)sa)[m4];
#pragma unroll
    for (int i = 0; i < KPT; i++) {
        if (i + 1 < KPT) {
#pragma unroll
            for (int m4 = 0; m4 < MR / 4; m4++) a[(i + 1) & 1][m4] = ((const float4*)(sa + (i + 1) * KG * 16))[m4];
        }
#pragma unroll
        for (int m4 = 0; m4 < MR / 4; m4++) {
            const float av[4] = { a[i & 1][m4].x, a[i & 1][m4].y, a[i & 1][m4].z, a[i & 1][m4].w };
#pragma unroll
            for (int j = 0; j < 4; j++)
#pragma unroll
                for (int q = 0; q < CW; q++) acc[m4 * 4 + j][q] += av[j] * bc[i][q];
        }
    }
}
/* VEC: every column of the block is in B and its rows allow 16-byte loads (block-uniform: the two forms are
 * separate code; as branches beside each other a compiler merged them into 12- and 4-byte loads on AMD).
 * CT: column threads (32: 128 columns a block; 8: 32 columns). */
#define AK_GN_SM (64 * AK_WAVE) /* floats of ak_gemm_gemvn's shared memory: both forms' A chunks and sums fit */
template <class DT, bool VEC, int CT>
AK_INLINE void ak_gemvn_run(float* sm, AK_GD_PARAMS_T(DT)) {
    typedef typename DT::T T;
    /* KG k groups of CT column threads: the block is 4 waves (the host launches 4 AK_WAVE threads) */
    /* KPT rows of B a thread a chunk: 8, 4 at wave 64 (8 took over 256 VGPRs on CDNA) and with 32 columns (8 took
     * 254 registers on sm_90 and ran slower); EPT elements of A a thread */
    enum { MM = 16, CW = 4, NT = 4 * AK_WAVE, NC = CT * CW, KPT = AK_WAVE == 64 || CT < 32 ? 4 : 8, KG = NT / CT, KS = KPT * KG,
           RM = 4, EPT = KS * MM / NT };
    static_assert(KS * MM == EPT * NT && EPT >= 1 && MM % EPT == 0 && KS % EPT == 0, "a chunk of A is EPT elements a thread");
    static_assert(KG * RM * NC <= AK_GN_SM && 2 * KS * MM <= AK_GN_SM, "sm of ak_gemm_gemvn holds both");
    /* sm: the double-buffered A chunks (2 x KS x 16) and then the k groups' sums (KG x RM x NC) */
    const int t = (int)threadIdx.x;
    const int c = t % CT, g = t / CT;
    const int nb = (int)blockIdx.x * NC, n0 = nb + c * CW;
    const bool ta = flags & AK_GD_TA;
    const int o32 = (flags & AK_GD_OUT32) ? 1 : 0;
    /* this block's slice of k: [kb, ke) */
    const int ns = (int)gridDim.y, slice = ns > 1 ? ((K + ns - 1) / ns + KS - 1) / KS * KS : K;
    const int kb = (int)blockIdx.y * slice, ke = K - kb < slice ? K : kb + slice;
    const int nck = ke > kb ? (ke - kb + KS - 1) / KS : 0;
    /* this thread's EPT consecutive elements of A in a chunk (KS x 16 of A^T, stored KS rows of 16 in shared
     * memory), a wave's reads along A's rows: A stored K x M, row kk's columns am..; A stored M x K, row am's
     * columns kk.. */
    const int kk = ta ? t / (MM / EPT) : t % (KS / EPT) * EPT, am = ta ? t % (MM / EPT) * EPT : t / (KS / EPT);
    const int soff = kk * MM + am, sst = ta ? 1 : MM;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const T* aq = A + (ak_i64)b * sA + (ta ? (ak_i64)(kb + kk) * lda + am : (ak_i64)am * lda + kb + kk);
        const ak_i64 astep = ta ? (ak_i64)KS * lda : (ak_i64)KS;
        const T* bp = B + (ak_i64)b * sB + n0 + (ak_i64)(kb + g) * ldb;
        const ak_i64 bstep = (ak_i64)KG * ldb;
        const T* blast = B + (ak_i64)b * sB + n0 + (ak_i64)(ke - 1) * ldb; /* read only when the slice has rows */
        const int lastc = N - 1 - n0; /* the last column of B from n0 (negative past N) */
        int kr = kb + g, ka = kb + kk;
        float acc[MM][CW];
#pragma unroll
        for (int m = 0; m < MM; m++)
#pragma unroll
            for (int q = 0; q < CW; q++) acc[m][q] = 0.0f;
        float an[EPT], bn[KPT][CW];
        int okm; /* bit i: row i of bn is in the slice */
        /* the next chunk's loads into an (zeros past M and the slice) and bn (zeroed where used) */
#define AK_GN_LOAD()                                                                                            \
    do {                                                                                                        \
        _Pragma("unroll") for (int j = 0; j < EPT; j++) {                                                      \
            const bool ok_ = ta ? ka < ke && am + j < M : ka + j < ke && am < M;                               \
            an[j] = ok_ ? DT::to(aq[j]) : 0.0f;                                                                 \
        }                                                                                                       \
        const T* q_ = bp;                                                                                       \
        okm = 0;                                                                                                \
        _Pragma("unroll") for (int i = 0; i < KPT; i++) okm |= kr + i * KG < ke ? 1 << i : 0;                  \
        /* every load unconditional, zeros applied where the chunk is used (okm, lastc): a row past the slice   \
         * reads the slice's last row; a column past N (element loads) the row's last column */                \
        _Pragma("unroll") for (int i = 0; i < KPT; i++) {                                                      \
            const T* r_ = (okm >> i) & 1 ? q_ : blast;                                                          \
            if (VEC) DT::ld4(r_, bn[i]);                                                                        \
            else {                                                                                              \
                _Pragma("unroll") for (int q = 0; q < CW; q++) bn[i][q] = DT::to(r_[q < lastc ? q : lastc]);   \
            }                                                                                                   \
            q_ += bstep;                                                                                        \
        }                                                                                                       \
        /* and the chunk after it into L2 */                                                                  \
        _Pragma("unroll") for (int i = 0; i < KPT; i++) {                                                      \
            if (kr + KS + i * KG < ke) ak_prefetch_l2(q_ + i * bstep);                                          \
        }                                                                                                       \
        bp = q_; kr += KS; aq += astep; ka += KS;                                                               \
    } while (0)
        if (nck > 0) AK_GN_LOAD();
        for (int ck = 0; ck < nck; ck++) {
            float* sa = sm + (ck & 1) * (KS * MM);
            /* a chunk's buffer is rewritten two chunks after it was read: every thread passed the barrier between */
#pragma unroll
            for (int j = 0; j < EPT; j++) sa[soff + j * sst] = an[j];
            __syncthreads();
            /* zeros for rows past the slice here, where the loads are waited for anyway (a select beside the load
             * waited for it there: H200, 2x slower with few blocks) */
            float bc[KPT][CW];
#pragma unroll
            for (int i = 0; i < KPT; i++)
#pragma unroll
                for (int q = 0; q < CW; q++) bc[i][q] = (okm >> i) & 1 && (VEC || q <= lastc) ? bn[i][q] : 0.0f;
            if (ck + 1 < nck) AK_GN_LOAD();
            if (M > 8) ak_gn_fma<16, KPT, KG, CW>(acc, sa + g * MM, bc);
            else if (M > 4) ak_gn_fma<8, KPT, KG, CW>(acc, sa + g * MM, bc);
            else ak_gn_fma<4, KPT, KG, CW>(acc, sa + g * MM, bc);
        }
#undef AK_GN_LOAD
        /* the k groups' sums, RM rows at a time, added in group order; a slice's sums to D + (b ns + y) M N */
        void* Db = ns > 1 ? (void*)((float*)D + ((ak_i64)b * ns + blockIdx.y) * M * N) : (void*)ak_gd_off(D, sD, b, o32, DT::SIZE);
        const void* Cb = ak_gd_off(C, sC, b, o32, DT::SIZE);
        const void* Rb = ak_gd_off(R, sR, b, o32, DT::SIZE);
#pragma unroll
        for (int r0 = 0; r0 < MM; r0 += RM) {
            if (r0 < M) {
                __syncthreads(); /* the last chunk's A, or the previous rows' sums, are read */
#pragma unroll
                for (int j = 0; j < RM; j++)
                    *(float4*)(sm + (g * RM + j) * NC + c * CW) = make_float4(acc[r0 + j][0], acc[r0 + j][1], acc[r0 + j][2], acc[r0 + j][3]);
                __syncthreads();
                for (int i = t; i < RM * NC; i += (int)blockDim.x) {
                    const int j = i / NC, col = i % NC;
                    if (r0 + j < M && nb + col < N) {
                        float sum = 0.0f;
#pragma unroll
                        for (int q = 0; q < KG; q++) sum += sm[(q * RM + j) * NC + col];
                        ak_gd_out<DT>(r0 + j, nb + col, sum, Db, ldd, Cb, ldc, bias, Rb, ldr, alpha, beta, flags, ap);
                    }
                }
            }
        }
        __syncthreads(); /* the sums are read before the next problem's A chunk is staged */
    }
}

/* the two forms are two kernels: one form's code and registers do not weigh on the other (as one kernel, the
 * 128-column form ran 1-27% slower on problems under 10 MB, H200) */
template <class DT, int CT>
AK_INLINE void ak_gemm_gemvn(AK_GD_PARAMS_T(DT)) {
    __shared__ __align__(16) float sm[AK_GN_SM];
    if ((flags & AK_GD_VB) && ((int)blockIdx.x + 1) * CT * 4 <= N) ak_gemvn_run<DT, true, CT>(sm, AK_GD_ARGS);
    else ak_gemvn_run<DT, false, CT>(sm, AK_GD_ARGS);
}

/* ---- one to four rows times W stored K x N: 512 threads, 32 columns ----
 * ak_gemm_gemvn4_f32: what the two forms above do for m <= 4, in blocks of
 * 512 threads (16 warps; AMD: 256 threads) over 32 columns, so that one row
 * of 4096 columns fills an H200 from 128 blocks without a split of k (the
 * forms above split it and add a finishing pass). 8 column threads of 4
 * columns and blockDim / 8 k groups, a thread's KPT consecutive rows of a
 * chunk (8 on NVIDIA, 4 on AMD; a warp's load instruction reads 4 128-byte
 * rows): its KPT 16-byte loads of B (evict-first) in flight at once, no
 * L2 prefetch (with it the long rows ran 4-8% slower on the H200: L2 was the
 * busier unit, at 89% against DRAM's 75%); A read directly, 16 bytes a
 * load where its rows are 16-byte (an element a load else: the host takes
 * this form for m > 1 only with 16-byte loads of A, as element loads ran
 * 0.78-0.86x the forms above on 50-190 MB problems of 3 rows, H200; a block
 * reads A once for its 8 column threads, m / 32 of its bytes of B), no
 * barrier in the loop. The k groups' sums are added over each wave's lanes
 * of a column (exchanges in a fixed order), then over the waves in shared
 * memory in wave order. Split-K as above (gridDim.y slices, a multiple of
 * the chunk, fp32 partials, ak_gemm_decode_fin_f32).
 * ak_gemm_gemvn4h_f32: the same with half the threads (256 on NVIDIA, two
 * blocks an SM at 128 registers; 128 on AMD), so that many column blocks
 * fill the last wave in halves: one row of 14336 columns ran 448 blocks in
 * 3.4 waves of one an SM, 1.7 of two (H200). */
/* the host launches AK_GN4_NT threads (gemvn4h: half) and models chunks of AK_GN4_KPT x threads / 8 rows (amdkit.h
 * _ak_gemm_plan_one, _ak_gemm_gemvn_split): the same numbers there */
#if defined(AK_NVIDIA)
#define AK_GN4_NT 512
#define AK_GN4_KPT 8
#else
#define AK_GN4_NT 256 /* at 512 threads (4 rows a thread) gfx906 and gfx1030 spilled at their 128 VGPRs */
#define AK_GN4_KPT 4
#endif
template <class DT, bool VEC, int MR, int NT>
AK_INLINE void ak_gemvn4_run(float* sm, AK_GD_PARAMS_T(DT)) {
    typedef typename DT::T T;
    /* KPT: 8 rows a thread a chunk on NVIDIA (128 registers, a block an SM); 4 on AMD */
    enum { CT = 8, CW = 4, NC = CT * CW, KG = NT / CT, KPT = AK_GN4_KPT, KS = KPT * KG, NW = NT / AK_WAVE };
    const int t = (int)threadIdx.x;
    const int c = t % CT, g = t / CT, w = t / AK_WAVE, lane = t % AK_WAVE;
    const int nb = (int)blockIdx.x * NC, n0 = nb + c * CW;
    const bool ta = flags & AK_GD_TA;
    const int o32 = (flags & AK_GD_OUT32) ? 1 : 0;
    const int ns = (int)gridDim.y, slice = ns > 1 ? ((K + ns - 1) / ns + KS - 1) / KS * KS : K;
    const int kb = (int)blockIdx.y * slice, ke = K - kb < slice ? K : kb + slice;
    const int lastc = N - 1 - n0;
    const ak_i64 ams = ta ? 1 : lda, aks = ta ? lda : 1; /* A's element (m, k) at m ams + k aks */
    /* A's rows 16-byte aligned (every batch entry): A stored M x K, 16-byte loads along k; A stored K x M with M = 4,
     * a row of k a 16-byte load */
    const bool avr = lda % 4 == 0 && sA % 4 == 0 && ak_aligned16(A), av4 = !ta && avr, avt = ta && avr && MR == 4 && M == 4;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const T* ab = A + (ak_i64)b * sA;
        const T* bb = B + (ak_i64)b * sB + n0;
        const T* blast = bb + (ak_i64)(ke - 1) * ldb; /* read only when the slice has rows */
        float acc[MR][CW];
#pragma unroll
        for (int m = 0; m < MR; m++)
#pragma unroll
            for (int q = 0; q < CW; q++) acc[m][q] = 0.0f;
        for (int k0 = kb + g * KPT; k0 < ke; k0 += KS) {
            float bn[KPT][CW], av[KPT][MR];
            /* every load of B unconditional: a row past the slice reads its last row, a column past N (element
             * loads) the row's last column; zeros where used */
#pragma unroll
            for (int i = 0; i < KPT; i++) {
                const T* r_ = k0 + i < ke ? bb + (ak_i64)(k0 + i) * ldb : blast;
                if (VEC) {
                    ak_u32 u[4];
                    ak_ld16_last(r_, u);
                    ak_widen_words<DT, 4>(u, bn[i]);
                } else {
#pragma unroll
                    for (int q = 0; q < CW; q++) bn[i][q] = DT::to(r_[q < lastc ? q : lastc]);
                }
            }
            /* A: 16-byte loads where its rows allow (stored M x K: the thread's KPT rows of k in the slice; stored
             * K x M, M = 4: a row of k a load), else an element a load */
            if (av4 && k0 + KPT <= ke) {
#pragma unroll
                for (int m = 0; m < MR; m++) {
                    float f[KPT];
#pragma unroll
                    for (int i = 0; i < KPT; i += 4) DT::ld4(ab + (ak_i64)(m < M ? m : 0) * lda + k0 + i, f + i);
#pragma unroll
                    for (int i = 0; i < KPT; i++) av[i][m] = m < M ? f[i] : 0.0f;
                }
            } else if (avt) {
#pragma unroll
                for (int i = 0; i < KPT; i++) {
                    float f[4];
                    DT::ld4(ab + (ak_i64)(k0 + i < ke ? k0 + i : ke - 1) * lda, f);
#pragma unroll
                    for (int m = 0; m < MR; m++) av[i][m] = k0 + i < ke ? f[m & 3] : 0.0f;
                }
            } else {
#pragma unroll
                for (int i = 0; i < KPT; i++)
#pragma unroll
                    for (int m = 0; m < MR; m++)
                        av[i][m] = k0 + i < ke && m < M ? DT::to(ab[(ak_i64)m * ams + (ak_i64)(k0 + i) * aks]) : 0.0f;
            }
#pragma unroll
            for (int i = 0; i < KPT; i++)
#pragma unroll
                for (int q = 0; q < CW; q++) {
                    const float bv = VEC || q <= lastc ? bn[i][q] : 0.0f;
#pragma unroll
                    for (int m = 0; m < MR; m++) acc[m][q] += av[i][m] * bv;
                }
        }
        /* a wave's k groups of a column (lanes CT apart), then the waves in order */
#pragma unroll
        for (int m = 0; m < MR; m++)
#pragma unroll
            for (int q = 0; q < CW; q++)
#pragma unroll
                for (int o = CT; o < AK_WAVE; o <<= 1) acc[m][q] += ak_shfl_xor(acc[m][q], o);
        if (lane < CT) {
#pragma unroll
            for (int m = 0; m < MR; m++) *(float4*)(sm + (w * MR + m) * NC + c * CW) = make_float4(acc[m][0], acc[m][1], acc[m][2], acc[m][3]);
        }
        __syncthreads();
        void* Db = ns > 1 ? (void*)((float*)D + ((ak_i64)b * ns + blockIdx.y) * M * N) : (void*)ak_gd_off(D, sD, b, o32, DT::SIZE);
        const void* Cb = ak_gd_off(C, sC, b, o32, DT::SIZE);
        const void* Rb = ak_gd_off(R, sR, b, o32, DT::SIZE);
        if (t < MR * NC) {
            const int j = t / NC, col = t % NC;
            if (j < M && nb + col < N) {
                float sum = 0.0f;
#pragma unroll
                for (int q = 0; q < NW; q++) sum += sm[(q * MR + j) * NC + col];
                ak_gd_out<DT>(j, nb + col, sum, Db, ldd, Cb, ldc, bias, Rb, ldr, alpha, beta, flags, ap);
            }
        }
        __syncthreads(); /* the sums are read before the next problem's */
    }
}
template <class DT, int NT>
AK_INLINE void ak_gemm_gemvn4(AK_GD_PARAMS_T(DT)) {
    static_assert(NT >= 4 * 32, "the epilogue's threads: a column of a row each");
    __shared__ __align__(16) float sm[NT / AK_WAVE * 4 * 32]; /* a wave's sums of 4 rows x 32 columns, each wave */
    const bool vec = (flags & AK_GD_VB) && ((int)blockIdx.x + 1) * 32 <= N;
    if (M > 2) {
        if (vec) ak_gemvn4_run<DT, true, 4, NT>(sm, AK_GD_ARGS);
        else ak_gemvn4_run<DT, false, 4, NT>(sm, AK_GD_ARGS);
    } else if (M > 1) {
        if (vec) ak_gemvn4_run<DT, true, 2, NT>(sm, AK_GD_ARGS);
        else ak_gemvn4_run<DT, false, 2, NT>(sm, AK_GD_ARGS);
    } else {
        if (vec) ak_gemvn4_run<DT, true, 1, NT>(sm, AK_GD_ARGS);
        else ak_gemvn4_run<DT, false, 1, NT>(sm, AK_GD_ARGS);
    }
}

/* ---- matrix-vector: N = 1 with A k-contiguous, or M = 1 with B stored N x K -
 * One wave per output (a k-contiguous row with the vector, any element
 * stride), 4 waves a block; a lane reads 8 consecutive elements a step
 * (16-byte where aligned), 8 fp32 partials added pairwise, then over the
 * wave. Matrix read once, evict-first (ak_ld8_last); vector from L2. Rows
 * along grid x (then y). */
template <class DT>
AK_INLINE void ak_gemm_gemv(AK_GD_PARAMS_T(DT)) {
    typedef typename DT::T T;
    const int lane = ak_lane(), w = ak_wave_id(), nw = (int)blockDim.x / AK_WAVE;
    const bool colv = N == 1 && !(flags & AK_GD_TA); /* D[m][0] = A[m][:] . B[:][0] */
    const ak_i64 rows = colv ? M : N;
    const ak_i64 row = ((ak_i64)blockIdx.y * gridDim.x + blockIdx.x) * nw + w;
    const int o32 = (flags & AK_GD_OUT32) ? 1 : 0;
    if (row >= rows) return;
    const ak_i64 vs = colv ? ((flags & AK_GD_TB) ? 1 : ldb) : ((flags & AK_GD_TA) ? lda : 1);
    const int K8 = K & ~7;
    for (int b = (int)blockIdx.z; b < batch; b += (int)gridDim.z) {
        const T* mat = colv ? A + (ak_i64)b * sA + row * lda : B + (ak_i64)b * sB + row * ldb;
        const T* vec = colv ? B + (ak_i64)b * sB : A + (ak_i64)b * sA;
        const bool vv = vs == 1 && ak_aligned16(vec);
        float acc[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
        int k0 = 0;
        if (ak_aligned16(mat)) {
            /* two steps' loads of the row issued before their products (four spilled on ROCm 5.2 gfx906 / gfx1030) */
            enum { U = 2 };
            int k = lane * 8;
            for (; k + (U - 1) * AK_WAVE * 8 < K8; k += U * AK_WAVE * 8) {
                float mv[U][8];
#pragma unroll
                for (int u = 0; u < U; u++) ak_ld8_last<DT>(mat + k + u * AK_WAVE * 8, mv[u]);
                /* the vector (from L2) one step at a time: 8 more registers, not 8 U */
#pragma unroll
                for (int u = 0; u < U; u++) {
                    float xv[8];
                    if (vv) DT::ld8(vec + k + u * AK_WAVE * 8, xv);
                    else {
#pragma unroll
                        for (int j = 0; j < 8; j++) xv[j] = DT::to(vec[(ak_i64)(k + u * AK_WAVE * 8 + j) * vs]);
                    }
#pragma unroll
                    for (int j = 0; j < 8; j++) acc[j] += mv[u][j] * xv[j];
                }
            }
            for (; k < K8; k += AK_WAVE * 8) {
                float mv[8], xv[8];
                ak_ld8_last<DT>(mat + k, mv);
                if (vv) DT::ld8(vec + k, xv);
                else {
#pragma unroll
                    for (int j = 0; j < 8; j++) xv[j] = DT::to(vec[(ak_i64)(k + j) * vs]);
                }
#pragma unroll
                for (int j = 0; j < 8; j++) acc[j] += mv[j] * xv[j];
            }
            k0 = K8;
        }
        float tail = 0.0f; /* a separate sum: indexing acc by k would put it in scratch memory */
        for (int k = k0 + lane; k < K; k += AK_WAVE) tail += DT::to(mat[k]) * DT::to(vec[(ak_i64)k * vs]);
        float sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail;
        sum = ak_warp_sum(sum);
        if (lane == 0) {
            void* Db = (void*)ak_gd_off(D, sD, b, o32, DT::SIZE);
            const void* Cb = ak_gd_off(C, sC, b, o32, DT::SIZE);
            const void* Rb = ak_gd_off(R, sR, b, o32, DT::SIZE);
            /* never a transposed product (the host turns none onto this kernel): AK_GD_CT masked, so the
             * epilogue's addressing folds to the plain form (the transposed one costs this loop 16-36 registers) */
            const int fl = flags & ~AK_GD_CT;
            if (colv) ak_gd_out<DT>((int)row, 0, sum, Db, ldd, Cb, ldc, bias, Rb, ldr, alpha, beta, fl, ap);
            else ak_gd_out<DT>(0, (int)row, sum, Db, ldd, Cb, ldc, bias, Rb, ldr, alpha, beta, fl, ap);
        }
    }
}
#define AK_GEMM_GEMV(NAME, DT)                                         \
    AK_KERNEL void __launch_bounds__(256) NAME(AK_GD_PARAMS_T(DT)) { \
        AK_KONLY(NAME) ak_gemm_gemv<DT>(AK_GD_ARGS);                                  \
    }
/* gemvn: 4 waves; 2 blocks an SM on NVIDIA (H200: 3, at 168 registers with spills, was 2-15% slower) */
#if defined(AK_NVIDIA)
#define AK_GN_BOUNDS 128, 2
#else
#define AK_GN_BOUNDS 256
#endif
#define AK_GEMM_GEMVN(NAME, DT, CT)                                    \
    AK_KERNEL void __launch_bounds__(AK_GN_BOUNDS) NAME(AK_GD_PARAMS_T(DT)) { \
        AK_KONLY(NAME) ak_gemm_gemvn<DT, CT>(AK_GD_ARGS);                             \
    }
/* gemvn4: 512 threads, one block an SM on NVIDIA (128 registers); 256 on AMD. gemvn4h: half the threads, two blocks
 * an SM on NVIDIA (128 registers) */
#if defined(AK_NVIDIA)
#define AK_GN4H_BOUNDS AK_GN4_NT / 2, 2
#else
#define AK_GN4H_BOUNDS AK_GN4_NT / 2
#endif
#define AK_GEMM_GEMVN4(NAME, DT, NT, BOUNDS)                          \
    AK_KERNEL void __launch_bounds__(BOUNDS) NAME(AK_GD_PARAMS_T(DT)) { \
        AK_KONLY(NAME) ak_gemm_gemvn4<DT, NT>(AK_GD_ARGS);                           \
    }

// kernels: ak_gemm_gemv_f32 ak_gemm_gemv_f16 ak_gemm_gemv_bf16 ak_gemm_gemvn_f32 ak_gemm_gemvn32_f32 ak_gemm_gemvn4_f32 ak_gemm_gemvn4h_f32
AK_GEMM_GEMV(ak_gemm_gemv_f32, ak_f32_t)
AK_GEMM_GEMV(ak_gemm_gemv_f16, ak_f16_t)
AK_GEMM_GEMV(ak_gemm_gemv_bf16, ak_bf16_t)
AK_GEMM_GEMVN(ak_gemm_gemvn_f32, ak_f32_t, 32)   /* 128 columns a block */
AK_GEMM_GEMVN(ak_gemm_gemvn32_f32, ak_f32_t, 8) /* 32 */
AK_GEMM_GEMVN4(ak_gemm_gemvn4_f32, ak_f32_t, AK_GN4_NT, AK_GN4_NT)          /* 32, m <= 4 */
AK_GEMM_GEMVN4(ak_gemm_gemvn4h_f32, ak_f32_t, AK_GN4_NT / 2, AK_GN4H_BOUNDS) /* the same, half the threads */
