// kernels/attention_sm90.hip - fused attention forward for Hopper (sm_90a):
// the FlashAttention-3 structure on wgmma. f16 / bf16 inputs, fp32
// accumulation and softmax; head sizes 32, 64, 80, 96, 128, 192 and 256 (a
// head_dim runs on the next of them, zero columns past it). Host wrapper:
// ak_attention in amdkit.h (>>impl:ops-attention), which picks this family
// on rows of the architecture table with wgmma (arch_target sm_90a) for
// prefill shapes with 16-byte aligned rows, and compiles one head size at a
// time (-DAK_A9_ONLY=N). Other targets get empty kernels (never launched).
//
// Work layout: as kernels/attention_mma.hip (rows of a (batch, kv head) pair
// are its GQA group's query heads one after another; blockIdx.x the row
// tile, blockIdx.y the split, blockIdx.z the pair; sequences plain, packed,
// paged, windows and the soft-cap through the prelude's ak_attn_seq), with
// 128 rows per block.
//
// Block: 3 warpgroups (384 threads); at head sizes <= 64 also 4 (512 threads:
// 3 consumers, 192 rows; the host picks it on long or many sequences).
//   - warpgroup 0, the producer (setmaxnreg 56, 32 with 3 consumers): its 128 threads copy the K
//     and V tiles (BN keys x head size) into shared memory with cp.async (any
//     row address: packed and paged sequences need no tensor map), ST stages
//     each of K and V, in the order K0 K1 V0 K2 V1 .. (K runs a tile ahead:
//     the consumers need K_t before V_{t-1}), up to 3 copy groups in flight.
//     Rows in place (plain or packed sequences) take a short address path:
//     each thread copies one 16-byte column of rows RS = 128 / chunks-per-row
//     apart (RS x chunks threads: all 128, or 120 at head sizes 80 / 96 /
//     192), one 64-bit add per copy (the generic path, per-chunk division and
//     the block-table lookup, stays for paged K / V); its instructions were
//     half of the kernel's issue slots.
//     A group is published when it has landed: cp.async.wait_group,
//     fence.proxy.async (the tensor cores read through the async proxy), then
//     an arrive on the stage's "full" mbarrier (128 arrivals). Only when an
//     "empty" barrier is not free yet (test_wait) does the producer publish
//     everything it holds and block, so a consumer never waits on it.
//   - warpgroups 1 and 2 (and 3), the consumers (setmaxnreg 224, 160 with 3): 64 query rows each.
//     Per key tile t: S_t = Q K_t^T (wgmma m64nBNk16, Q and K from shared
//     memory, K-major), then O += P_{t-1} V_{t-1} (wgmma m64nHDk16, P from
//     registers, V MN-major) is issued behind it, so the softmax of tile t
//     (scale, soft-cap, mask, running max, exp2, row sums) runs while the
//     tensor cores do P_{t-1} V_{t-1}; then O is rescaled and S_t packed into
//     P_t (the accumulator layout of two n8 column blocks is the k16 A
//     fragment). K_t is released (an arrive on "empty", one per warp) when
//     S_t is done, V_{t-1} when its P V is. The softmax is branch-free on
//     tiles inside every row's visible range (the mask runs only on edge
//     tiles) and folds the scale into the exponent's FFMA (positive scale,
//     no soft-cap). Optional ping-pong (kernel argument vec & 2): the
//     consumers take turns issuing their wgmma batches (named barriers).
// Shared memory operands are 128-byte swizzled rows of 64 elements (ak_sw128),
// a tile of R rows as ceil(HD / 64) blocks of R x 128 bytes: Q and K are
// read K-major (32 bytes per k16 step inside a row, then the next block), V
// MN-major (2048 bytes per k16 step of 16 keys, blocks of 64 columns LBO =
// BN x 128 bytes apart).
//
// kernels: ak_attn_sm90_32_f16 ak_attn_sm90_32_bf16 ak_attn_sm90_64_f16 ak_attn_sm90_64_bf16 ak_attn_sm90_32w3_f16 ak_attn_sm90_32w3_bf16 ak_attn_sm90_64w3_f16 ak_attn_sm90_64w3_bf16 ak_attn_sm90_80_f16 ak_attn_sm90_80_bf16 ak_attn_sm90_96_f16 ak_attn_sm90_96_bf16 ak_attn_sm90_128_f16 ak_attn_sm90_128_bf16 ak_attn_sm90_192_f16 ak_attn_sm90_192_bf16 ak_attn_sm90_256_f16 ak_attn_sm90_256_bf16

// The argument list of the attention families (kernels/attention.hip's).
#define AK_A9_KPARAMS(D)                                                                                         \
    const D::T* q, const D::T* k, const D::T* v, D::T* o, float* lse, int hkv, int group, int sq, int skv, int d, \
        ak_i64 qsb, ak_i64 qsh, ak_i64 qss, ak_i64 ksb, ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh, ak_i64 vss,  \
        ak_i64 osb, ak_i64 osh, ak_i64 oss, float scale_log2, int causal, int R, int nsplit, int split_len,         \
        float* part, int vec, const int* cu_q, const int* cu_k, const int* used_k, const int* btab, int bts,       \
        int pshift, int wl, int wr, float softcap

#if defined(AK_WGMMA)
#ifndef AK_A9_PREG  /* registers per thread: producer, consumers (128 P + 256 C <= 65536) */
#define AK_A9_PREG 56
#endif
#ifndef AK_A9_CREG
#define AK_A9_CREG 224
#endif
#ifndef AK_A9_PREG3  /* the same with 3 consumers (512 threads) */
#define AK_A9_PREG3 32
#endif
#ifndef AK_A9_CREG3
#define AK_A9_CREG3 160
#endif
/* ---- mbarrier, register reallocation, named barriers (the Hopper GEMM's forms) ---- */
AK_INLINE void ak_mbar_init(ak_u32 bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
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
/* 1 when the phase of parity `ph` has completed; never waits. */
AK_INLINE bool ak_mbar_test(ak_u32 bar, int ph) {
    ak_u32 ok;
    asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(ok) : "r"(bar), "r"(ph) : "memory");
    return ok != 0;
}
template <int R> AK_INLINE void ak_setmaxnreg_inc(void) { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R)); }
template <int R> AK_INLINE void ak_setmaxnreg_dec(void) { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R)); }
AK_INLINE void ak_named_bar(int id, int threads) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory"); }
AK_INLINE void ak_named_arrive(int id, int threads) { asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory"); }

/* Keep the compiler from moving a register across an asynchronous wgmma. */
AK_INLINE void ak_a9_pin(float& x) { asm volatile("" : "+f"(x)::"memory"); }
AK_INLINE void ak_a9_pin(ak_u32& x) { asm volatile("" : "+r"(x)::"memory"); }

template <class D> AK_INLINE ak_u32 ak_a9_pack(float lo, float hi);
template <> AK_INLINE ak_u32 ak_a9_pack<ak_f16_t>(float lo, float hi) {
    ak_u32 r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
template <> AK_INLINE ak_u32 ak_a9_pack<ak_bf16_t>(float lo, float hi) {
    ak_u32 r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/* S (64 x BN) = Q K^T: HD / 16 k-steps. */
template <class D, int BN> AK_INLINE void ak_a9_qk(float* s, ak_u64 dq, ak_u64 dk, int acc);
#define AK_A9_QK(DT, T, N)                                                                 \
    template <> AK_INLINE void ak_a9_qk<T, N>(float* s, ak_u64 dq, ak_u64 dk, int acc) {   \
        ak_wgmma_##DT##_n##N(s, dq, dk, acc);                                              \
    }
AK_A9_QK(f16, ak_f16_t, 64)
AK_A9_QK(bf16, ak_bf16_t, 64)
AK_A9_QK(f16, ak_f16_t, 128)
AK_A9_QK(bf16, ak_bf16_t, 128)
AK_A9_QK(f16, ak_f16_t, 192)
AK_A9_QK(bf16, ak_bf16_t, 192)
/* O (64 x HD) += P V. */
template <class D, int HD> AK_INLINE void ak_a9_pv(float* o, const ak_u32* p, ak_u64 dv);
#define AK_A9_PV(DT, T, N)                                                                 \
    template <> AK_INLINE void ak_a9_pv<T, N>(float* o, const ak_u32* p, ak_u64 dv) {      \
        ak_wgmma_rs_##DT##_n##N(o, p, dv, 1);                                              \
    }
#define AK_A9_PV2(N) AK_A9_PV(f16, ak_f16_t, N) AK_A9_PV(bf16, ak_bf16_t, N)
AK_A9_PV2(32)
AK_A9_PV2(64)
AK_A9_PV2(80)
AK_A9_PV2(96)
AK_A9_PV2(128)
AK_A9_PV2(192)
AK_A9_PV2(256)

/* One 16-byte chunk ch (8 columns) of row `row` of a swizzled tile of R rows. */
template <int R> AK_INLINE ak_u32 ak_a9_sw(int row, int ch) {
    return (ak_u32)((ch >> 3) * R * 128 + row * 128 + (((ch & 7) ^ (row & 7)) << 4));
}

template <class D, int HD, int BN, int ST, int NC>
AK_INLINE void ak_attn_sm90(const typename D::T* AK_RESTRICT q, const typename D::T* AK_RESTRICT k,
                            const typename D::T* AK_RESTRICT v, typename D::T* AK_RESTRICT o, float* AK_RESTRICT lse,
                            int hkv, int group, int sq, int skv, int d, ak_i64 qsb, ak_i64 qsh, ak_i64 qss, ak_i64 ksb,
                            ak_i64 ksh, ak_i64 kss, ak_i64 vsb, ak_i64 vsh, ak_i64 vss, ak_i64 osb, ak_i64 osh,
                            ak_i64 oss, float scale_log2, int nsplit, int split_len, float* AK_RESTRICT part,
                            const int* cu_q, const int* cu_k, const int* used_k, const int* btab, int bts, int pshift,
                            int wl, int wr, float softcap, int vec) {
    typedef typename D::T T;
    enum {
        BQ = 64 * NC, NB = (HD + 63) / 64, CH = HD / 8,  // rows (64 per consumer), column blocks of 64, 16-byte chunks
        PREG = NC == 3 ? AK_A9_PREG3 : AK_A9_PREG, CREG = NC == 3 ? AK_A9_CREG3 : AK_A9_CREG,
        QBYTES = NB * BQ * 128, KVBYTES = NB * BN * 128,
        NS = BN / 2, NO = HD / 2,                    // accumulators per thread: S, O
        KQ = HD / 16, KP = BN / 16                   // k-steps of Q K^T and P V
    };
    extern __shared__ __align__(1024) unsigned char ak_smem_raw[];
    // 1024-byte aligned base (the swizzle pattern repeats every 1024 bytes); Q, K stages, V stages, barriers.
    // Worked out in each warpgroup after its register reallocation, as AK_A9_GEOMETRY below.
#define AK_A9_SMEM                                                                                      \
    const ak_u32 s0 = (ak_smem_addr(ak_smem_raw) + 1023u) & ~1023u;                                     \
    unsigned char* const sbase = ak_smem_raw + (s0 - ak_smem_addr(ak_smem_raw));                        \
    const ak_u32 sq_ = s0, sk_ = s0 + QBYTES, sv_ = sk_ + ST * KVBYTES, bars = sv_ + ST * KVBYTES;      \
    (void)sbase; (void)sq_; (void)sk_; (void)sv_;
    // barriers: kfull[ST], vfull[ST], kempty[ST], vempty[ST]
#define AK_A9_KFULL(s) (bars + 8u * (unsigned)(s))
#define AK_A9_VFULL(s) (bars + 8u * (unsigned)(ST + (s)))
#define AK_A9_KEMPTY(s) (bars + 8u * (unsigned)(2 * ST + (s)))
#define AK_A9_VEMPTY(s) (bars + 8u * (unsigned)(3 * ST + (s)))

    const int tid = (int)threadIdx.x, wg = tid / 128, wt = tid % 128;

    // The block's sequence, rows and key range, worked out after each warpgroup's register reallocation
    // (values computed before it would be live across it: the producer's 32-56 registers would spill)
#define AK_A9_GEOMETRY \
    const int pair = (int)blockIdx.z, b = pair / hkv, h = pair % hkv; \
    const ak_attn_seq sg = ak_attn_seq_of(b, sq, skv, cu_q, cu_k, used_k, btab, bts, qsb, qss, ksb, kss, vsb, vss, \
                                          osb, oss); \
    const int rows = group * sg.sq; \
    const int r0 = (wr >= 0 ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x) * BQ; \
    if (r0 >= rows) return; /* a shorter sequence of a packed batch (the whole block) */ \
    int kbeg, kend, kfull0, kfull1; \
    { \
        const int rl = (r0 + BQ < rows ? r0 + BQ : rows) - 1; \
        const bool span = r0 / sg.sq != rl / sg.sq; \
        const int imax = span ? sg.sq - 1 : rl % sg.sq, imin = span ? 0 : r0 % sg.sq; \
        kbeg = ak_attn_lo(sg, wl, imin); \
        kend = ak_attn_hi(sg, wr, imax) + 1; \
        kfull0 = ak_attn_lo(sg, wl, imax); \
        kfull1 = ak_attn_hi(sg, wr, imin) + 1; \
        const int s0k = (int)blockIdx.y * split_len; \
        if (s0k > kbeg) kbeg = s0k; \
        if (s0k + split_len < kend) kend = s0k + split_len; \
        if (kend < kfull1) kfull1 = kend; \
    } \
    const int ntiles = kend > kbeg ? (kend - kbeg + BN - 1) / BN : 0;

    if (tid == 0) {
        AK_A9_SMEM
        for (int s = 0; s < ST; s++) {
            ak_mbar_init(AK_A9_KFULL(s), 128);
            ak_mbar_init(AK_A9_VFULL(s), 128);
            ak_mbar_init(AK_A9_KEMPTY(s), 4 * NC);
            ak_mbar_init(AK_A9_VEMPTY(s), 4 * NC);
        }
    }
    __syncthreads();

    if (wg == 0) {
        // ---------------- producer ----------------
        ak_setmaxnreg_dec<PREG>();
        AK_A9_GEOMETRY
        AK_A9_SMEM
        // The copy loop, shared by the two address paths: copy(isk, t, dst) issues tile t of K (isk) or V into
        // the stage at shared address dst. Each path is its own instance of the loop, so only its own values
        // stay live (the producer runs on few registers).
        auto produce = [&](auto copy) {
            // full barriers of the copy groups issued and not yet published, oldest first (at most 2: with the
            // group being issued, 3 groups in flight)
            ak_u32 pq0 = 0, pq1 = 0;
            for (int n = 0; n <= 2 * ntiles - 1; n++) {
                // groups K0 K1 V0 K2 V1 .. K_{n-1} V_{n-2} V_{n-1}: n = 0 K0; odd n K_{(n+1)/2} (the last:
                // V_{ntiles-1}); even n > 0 V_{n/2-1}
                bool isk;
                int t;
                if (n == 0) { isk = true; t = 0; }
                else if (n % 2 == 1) { isk = (n + 1) / 2 < ntiles; t = isk ? (n + 1) / 2 : ntiles - 1; }
                else { isk = false; t = n / 2 - 1; }
                const int st = t % ST, use = t / ST;
                if (use > 0) {
                    const ak_u32 eb = isk ? AK_A9_KEMPTY(st) : AK_A9_VEMPTY(st);
                    const int par = (use - 1) & 1;
                    if (!ak_mbar_test(eb, par)) {  // about to block: publish everything first (no consumer waits)
                        if (pq0) {
                            ak_cp_async_wait<0>();
                            ak_fence_proxy_async();
                            ak_mbar_arrive(pq0);
                            if (pq1) ak_mbar_arrive(pq1);
                            pq0 = pq1 = 0;
                        }
                        ak_mbar_wait(eb, par);
                    }
                }
                copy(isk, t, (isk ? sk_ : sv_) + (ak_u32)(st * KVBYTES));
                ak_cp_async_commit();
                const ak_u32 full = isk ? AK_A9_KFULL(st) : AK_A9_VFULL(st);
                if (pq1) {  // 3 groups out: publish the oldest once it has landed
                    ak_cp_async_wait<2>();
                    ak_fence_proxy_async();
                    ak_mbar_arrive(pq0);
                    pq0 = pq1;
                    pq1 = full;
                } else if (pq0) {
                    pq1 = full;
                } else {
                    pq0 = full;
                }
            }
            if (pq0) {
                ak_cp_async_wait<0>();
                ak_fence_proxy_async();
                ak_mbar_arrive(pq0);
                if (pq1) ak_mbar_arrive(pq1);
            }
        };
        if (!sg.pages) {
            // rows in place (plain or packed): each thread keeps one 16-byte column of rows RS = 128 / CH apart
            // (RS x CH threads: 120 of 128 at head sizes 80 / 96 / 192), one 64-bit add per chunk; the swizzled
            // slot of row r0t + i RS repeats every PER rows of the loop (RS % 8 == 0: every row)
            enum {
                RS = 128 / CH, NCP = (BN + RS - 1) / RS,
                PER = RS % 8 == 0 ? 1 : RS % 4 == 0 ? 2 : RS % 2 == 0 ? 4 : 8
            };
            const int r0t = wt / CH, ch = wt % CH;
            if (r0t < RS) {
                const int left0 = ch * 8 < d ? kend - kbeg - r0t : 0;  // rows of this thread's column to copy
                const T* const kp = k + sg.k0 + (ak_i64)h * ksh + (ak_i64)(kbeg + r0t) * kss + ch * 8;
                const T* const vp = v + sg.v0 + (ak_i64)h * vsh + (ak_i64)(kbeg + r0t) * vss + ch * 8;
                ak_u32 sw[PER];  // the slots of rows r0t + j RS, j < PER
#pragma unroll
                for (int j = 0; j < PER; j++) sw[j] = ak_a9_sw<BN>(r0t + j * RS, ch);
                produce([&](bool isk, int t, ak_u32 dst) {
                    const ak_i64 ss = isk ? kss : vss;
                    const T* p = (isk ? kp : vp) + (ak_i64)(t * BN) * ss;
                    const T* const src = isk ? k : v;
                    const ak_i64 step = (ak_i64)RS * ss;
                    const int left = left0 - t * BN;
#pragma unroll
                    for (int i = 0; i < NCP; i++) {
                        if (BN % RS == 0 || i < NCP - 1 || r0t + i * RS < BN) {  // rows past the tile: no copy
                            const bool ok = i * RS < left;
                            // row r0t + i RS: the slot of row r0t + (i % PER) RS, (i / PER) PER RS rows down
                            const ak_u32 da = dst + sw[i % PER] + (ak_u32)((i / PER) * PER * RS * 128);
                            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(da),
                                         "l"(ok ? p : src), "r"(ok ? 16 : 0) : "memory");
                        }
                        p += step;
                        asm volatile("" : "+l"(p));  // one live address
                    }
                });
            } else {
                produce([&](bool, int, ak_u32) {});  // idle threads: the same barrier arrivals, no copies
            }
        } else {
            const ak_i64 kb = sg.k0 + (ak_i64)h * ksh, vb = sg.v0 + (ak_i64)h * vsh;
            produce([&](bool isk, int t, ak_u32 dst) {
                const int k0 = kbeg + t * BN;
                const T* src = isk ? k : v;
                const ak_i64 base = isk ? kb : vb, sb = isk ? ksb : vsb, ss = isk ? kss : vss;
#pragma unroll 1
                for (int c = wt; c < BN * CH; c += 128) {
                    const int row = c / CH, ch = c % CH, j = k0 + row;
                    const bool ok = j < kend && ch * 8 < d;
                    const T* p = src + ak_attn_kv(sg, base, sb, ss, pshift, ok ? j : kbeg) + (ok ? ch * 8 : 0);
                    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst + ak_a9_sw<BN>(row, ch)),
                                 "l"(p), "r"(ok ? 16 : 0) : "memory");
                }
            });
        }
        return;
    }

    // ---------------- consumers ----------------
    ak_setmaxnreg_inc<CREG>();
    AK_A9_GEOMETRY
    AK_A9_SMEM
    const int c = wg - 1, warp = wt / 32, lane = wt % 32;
    const int rc0 = r0 + 64 * c;  // this consumer's first row
    // Q rows rc0 .. rc0 + 63 (zeros past the end) into this consumer's slice of the Q tile
    for (int e = wt; e < 64 * CH; e += 128) {
        const int rr = e / CH, ch = e % CH, r = rc0 + rr;
        const bool ok = r < rows && ch * 8 < d;
        const int g = r < rows ? r / sg.sq : 0, i = r < rows ? r % sg.sq : 0;
        const T* p = q + sg.q0 + (ak_i64)(h * group + g) * qsh + (ak_i64)i * qss + (ok ? ch * 8 : 0);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sq_ + ak_a9_sw<BQ>(64 * c + rr, ch)),
                     "l"(p), "r"(ok ? 16 : 0) : "memory");
    }
    ak_cp_async_commit();
    ak_cp_async_wait<0>();
    ak_fence_proxy_async();
    ak_named_bar(1 + c, 128);

    // rows of this thread: lr0 (accumulators with (r / 2) % 2 == 0) and lr1 = lr0 + 8
    const int lr0 = rc0 + 16 * warp + lane / 4, lr1 = lr0 + 8;
    int lo0 = 1, hi0 = 0, lo1 = 1, hi1 = 0;
    if (lr0 < rows) { lo0 = ak_attn_lo(sg, wl, lr0 % sg.sq); hi0 = ak_attn_hi(sg, wr, lr0 % sg.sq); }
    if (lr1 < rows) { lo1 = ak_attn_lo(sg, wl, lr1 % sg.sq); hi1 = ak_attn_hi(sg, wr, lr1 % sg.sq); }
    float m0 = -AK_INF, m1 = -AK_INF, l0 = 0.0f, l1 = 0.0f;
    float oa[NO], s[NS];
    ak_u32 pf[BN / 4];
#pragma unroll
    for (int i = 0; i < NO; i++) oa[i] = 0.0f;
#pragma unroll
    for (int i = 0; i < BN / 4; i++) pf[i] = 0u;
    const ak_u32 qc = sq_ + 64 * c * 128;  // this consumer's rows in each 64-column block of Q

    // descriptors of Q, K stage 0 and V stage 0; a byte offset b moves a descriptor by b >> 4 (the start
    // address field: shared addresses stay below 256 KB, so the add never carries out of it)
    const ak_u64 dq0 = ak_wgmma_desc(sbase + (qc - s0)), dk0 = ak_wgmma_desc(sbase + (sk_ - s0)),
                 dv0 = ak_wgmma_desc_mn(sbase + (sv_ - s0), BN * 128);
    // S_t = Q K_t^T (issued, not waited)
    auto issue_s = [&](int t) {
        const ak_u64 dk = dk0 + (ak_u64)(((t % ST) * KVBYTES) >> 4);
        ak_mbar_wait(AK_A9_KFULL(t % ST), (t / ST) & 1);
#pragma unroll
        for (int i = 0; i < NS; i++) ak_a9_pin(s[i]);
        ak_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < KQ; kk++)
            ak_a9_qk<D, BN>(s, dq0 + (ak_u64)(((kk / 4) * (BQ * 128) + (kk % 4) * 32) >> 4),
                            dk + (ak_u64)(((kk / 4) * (BN * 128) + (kk % 4) * 32) >> 4), kk > 0);
        ak_wgmma_commit();
    };
    // O += P_t V_t (issued, not waited)
    auto issue_pv = [&](int t) {
        const ak_u64 dv = dv0 + (ak_u64)(((t % ST) * KVBYTES) >> 4);
        ak_mbar_wait(AK_A9_VFULL(t % ST), (t / ST) & 1);
#pragma unroll
        for (int i = 0; i < NO; i++) ak_a9_pin(oa[i]);
#pragma unroll
        for (int i = 0; i < BN / 4; i++) ak_a9_pin(pf[i]);
        ak_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < KP; kk++) ak_a9_pv<D, HD>(oa, pf + 4 * kk, dv + (ak_u64)((kk * 2048) >> 4));
        ak_wgmma_commit();
    };
    // softmax of S_t in place (scale, soft-cap, mask, running max and sums); returns the rescale factors
    // Scores become base-2 logits x = cm * s: with a positive scale and no soft-cap the multiply folds into the
    // exponent's FFMA (exp2(s cm - max)); otherwise s is turned into x first and cm = 1.
    const bool fold = !(softcap > 0.0f) && scale_log2 > 0.0f;
    const float cm = fold ? scale_log2 : 1.0f;
    auto softmax = [&](int t, float& al0, float& al1) {
        const int k0 = kbeg + t * BN;
        if (!fold) {
#pragma unroll
            for (int r = 0; r < NS; r++) {
                float x = s[r] * scale_log2;
                if (softcap > 0.0f) x = softcap * ak_fast_tanh(x);
                s[r] = x;
            }
        }
        if (k0 < kfull0 || k0 + BN > kfull1) {  // a tile on a causal / window / length edge
#pragma unroll
            for (int r = 0; r < NS; r++) {
                const bool up = ((r / 2) % 2) == 0;
                const int j = k0 + 8 * (r / 4) + 2 * (lane % 4) + (r % 2);
                const int lo = up ? lo0 : lo1, hi = up ? hi0 : hi1;
                if (j < lo || j > hi || j >= kend) s[r] = -AK_INF;
            }
        }
        // row maxima and sums over NP independent partials per row (short dependency chains; 2 above head
        // size 128, where registers are short)
        enum { NP = HD > 128 || NC > 2 ? 2 : 4 };
        auto part = [](int r) { return ((r / 2) % 2) * NP + (r % 2) + 2 * ((r / 4) % (NP / 2)); };
        float mp[2 * NP], sp[2 * NP];
#pragma unroll
        for (int i = 0; i < 2 * NP; i++) mp[i] = -AK_INF;
#pragma unroll
        for (int r = 0; r < NS; r++) mp[part(r)] = fmaxf(mp[part(r)], s[r]);
        float mx0 = mp[0], mx1 = mp[NP];
#pragma unroll
        for (int i = 1; i < NP; i++) {
            mx0 = fmaxf(mx0, mp[i]);
            mx1 = fmaxf(mx1, mp[NP + i]);
        }
        mx0 = fmaxf(mx0, ak_shfl_xor(mx0, 1));
        mx0 = fmaxf(mx0, ak_shfl_xor(mx0, 2));
        mx1 = fmaxf(mx1, ak_shfl_xor(mx1, 1));
        mx1 = fmaxf(mx1, ak_shfl_xor(mx1, 2));
        const float mn0 = fmaxf(m0, mx0 * cm), mn1 = fmaxf(m1, mx1 * cm);
        const float base0 = mn0 == -AK_INF ? 0.0f : mn0, base1 = mn1 == -AK_INF ? 0.0f : mn1;
        al0 = ak_exp2(m0 - base0);
        al1 = ak_exp2(m1 - base1);
        m0 = mn0;
        m1 = mn1;
#pragma unroll
        for (int i = 0; i < 2 * NP; i++) sp[i] = 0.0f;
#pragma unroll
        for (int r = 0; r < NS; r++) {
            const bool up = ((r / 2) % 2) == 0;
            const float p = ak_exp2(fmaf(s[r], cm, -(up ? base0 : base1)));
            s[r] = p;
            sp[part(r)] += p;
        }
        float ps0 = sp[0], ps1 = sp[NP];
#pragma unroll
        for (int i = 1; i < NP; i++) {
            ps0 += sp[i];
            ps1 += sp[NP + i];
        }
        l0 = l0 * al0 + ps0;
        l1 = l1 * al1 + ps1;
    };
    auto rescale = [&](float al0, float al1) {
#pragma unroll
        for (int r = 0; r < NO; r++) oa[r] *= ((r / 2) % 2) == 0 ? al0 : al1;
    };
    auto pack = [&]() {
#pragma unroll
        for (int i = 0; i < BN / 4; i++) pf[i] = ak_a9_pack<D>(s[2 * i], s[2 * i + 1]);
    };
    // Ping-pong (pp): the consumers take turns in a ring issuing their wgmma batches (named barriers
    // 1 + NC + c, 256 threads: the waiting consumer's bar.sync and the previous one's bar.arrive), so the
    // tensor cores run one consumer's S_t and P_{t-1} V_{t-1} while the others run their softmax, instead of
    // interleaving all. The last consumer opens consumer 0's first turn; consumer 0 takes one extra turn at
    // the end (every arrive has its sync). A consumer cannot pass twice before the next one takes: its own
    // next turn waits for the whole ring.
    const bool pp = (vec & 2) != 0;
    auto turn_take = [&]() { if (pp) ak_named_bar(1 + NC + c, 256); };
    auto turn_pass = [&]() { if (pp) ak_named_arrive(1 + NC + (c + 1) % NC, 256); };
    // Order per tile t (as FlashAttention-3): issue S_t; rescale O by the factor of tile t-1's softmax (on
    // the CUDA cores while S_t runs); issue O += P_{t-1} V_{t-1}; softmax of S_t under that P V; pack P_t.
    // Between the end of a P V and the next wgmma only the packing of P (and the K wait) remains.
    if (ntiles > 0) {
        float al0 = 0.0f, al1 = 0.0f;
        if (c == NC - 1) turn_pass();
        turn_take();
        issue_s(0);
        turn_pass();
        ak_wgmma_wait<0>();
#pragma unroll
        for (int i = 0; i < NS; i++) ak_a9_pin(s[i]);
        if (lane == 0) ak_mbar_arrive(AK_A9_KEMPTY(0));
        softmax(0, al0, al1);  // al of tile 0 multiplies O = 0
        pack();
        for (int t = 1; t < ntiles; t++) {
            turn_take();
            issue_s(t);  // S_t
            rescale(al0, al1);
            issue_pv(t - 1);  // O += P_{t-1} V_{t-1}, under the softmax of S_t
            turn_pass();
            ak_wgmma_wait<1>();
#pragma unroll
            for (int i = 0; i < NS; i++) ak_a9_pin(s[i]);
            if (lane == 0) ak_mbar_arrive(AK_A9_KEMPTY(t % ST));  // K_t read
            softmax(t, al0, al1);
            ak_wgmma_wait<0>();
#pragma unroll
            for (int i = 0; i < NO; i++) ak_a9_pin(oa[i]);
            if (lane == 0) ak_mbar_arrive(AK_A9_VEMPTY((t - 1) % ST));  // V_{t-1} read
            pack();
        }
        turn_take();
        rescale(al0, al1);
        issue_pv(ntiles - 1);
        turn_pass();
        if (c == 0) turn_take();
        ak_wgmma_wait<0>();
#pragma unroll
        for (int i = 0; i < NO; i++) ak_a9_pin(oa[i]);
        if (lane == 0) ak_mbar_arrive(AK_A9_VEMPTY((ntiles - 1) % ST));
    }
    l0 += ak_shfl_xor(l0, 1);
    l0 += ak_shfl_xor(l0, 2);
    l1 += ak_shfl_xor(l1, 1);
    l1 += ak_shfl_xor(l1, 2);
    {
        // the block's sequence and rows again: recomputing them costs a few loads, keeping them live through the
        // key loop costs registers (spills at 160 a thread with 3 consumers)
        const int pair = (int)blockIdx.z, b = pair / hkv, h = pair % hkv;
        const ak_attn_seq sg = ak_attn_seq_of(b, sq, skv, cu_q, cu_k, used_k, btab, bts, qsb, qss, ksb, kss, vsb, vss,
                                              osb, oss);
        const int rows = group * sg.sq;
        const int lr0 = (wr >= 0 ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x) * BQ + 64 * c + 16 * warp +
                        lane / 4, lr1 = lr0 + 8;
        // write rows lr0 / lr1: column 8 (r / 4) + 2 (lane % 4) + r % 2 of accumulator r
        const float inv0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, inv1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;
        const float lse0 = l0 > 0.0f ? m0 + log2f(l0) : -AK_INF, lse1 = l1 > 0.0f ? m1 + log2f(l1) : -AK_INF;
        const ak_i64 rows_all = (ak_i64)gridDim.z * group * sq;
    #pragma unroll
        for (int half = 0; half < 2; half++) {
            const int r = half ? lr1 : lr0;
            if (r >= rows) continue;
            const int g = r / sg.sq, i = r % sg.sq, hq_idx = h * group + g;
            const float inv = half ? inv1 : inv0, ls = half ? lse1 : lse0;
            const ak_i64 grow = ((ak_i64)b * hkv * group + hq_idx) * sq + i;
            if (nsplit > 1) {
                float* po = part + (grow * nsplit + blockIdx.y) * HD;
    #pragma unroll
                for (int a = 0; a < NO; a += 4) {
                    const int col = 8 * (a / 4) + 2 * (lane % 4);
                    po[col] = oa[a + 2 * half] * inv;
                    po[col + 1] = oa[a + 2 * half + 1] * inv;
                }
                if (lane % 4 == 0) part[rows_all * nsplit * HD + grow * nsplit + blockIdx.y] = ls;
            } else {
                T* op = o + sg.o0 + (ak_i64)hq_idx * osh + (ak_i64)i * oss;
    #pragma unroll
                for (int a = 0; a < NO; a += 4) {
                    const int col = 8 * (a / 4) + 2 * (lane % 4);
                    if (col < d) *(ak_u32*)(op + col) = ak_a9_pack<D>(oa[a + 2 * half] * inv, oa[a + 2 * half + 1] * inv);
                }
                if (lse && lane % 4 == 0) lse[grow] = ls * AK_LN2;
            }
        }
    }
#undef AK_A9_KFULL
#undef AK_A9_VFULL
#undef AK_A9_KEMPTY
#undef AK_A9_VEMPTY
#undef AK_A9_GEOMETRY
#undef AK_A9_SMEM
}
// tiles per head size: 128 keys up to head size 128 (3 stages below 128: room), 64 keys above (registers);
// 192 keys at head size 64 (as FlashAttention-3) measured 1% faster on 2048 keys, 3% slower causal and 9% slower
// on 1024 keys (H100)
#if defined(AK_A9_BNX)  /* the key tile chosen by the host (a measurement knob) */
#define AK_A9_BN(HD) (AK_A9_BNX)
#else
#define AK_A9_BN(HD) ((HD) > 128 ? 64 : 128)
#endif
#define AK_A9_ST(HD) ((HD) < 128 ? 3 : 2)
#define AK_A9_BODY(D, HD, NC)                                                                                      \
    ak_attn_sm90<D, HD, AK_A9_BN(HD), AK_A9_ST(HD), NC>(q, k, v, o, lse, hkv, group, sq, skv, d, qsb, qsh, qss, ksb,   \
                                                    ksh, kss, vsb, vsh, vss, osb, osh, oss, scale_log2, nsplit,     \
                                                    split_len, part, cu_q, cu_k, used_k, btab, bts, pshift, wl, wr, \
                                                    softcap, vec)
#else
#define AK_A9_BODY(D, HD, NC) \
    do {                      \
    } while (0)
#endif

// consumer warpgroups (64 query rows each): 2 (ak_attn_sm90_N_*), or 3 at head sizes <= 64
// (ak_attn_sm90_Nw3_*: 192 rows, 512 threads)
#define AK_A9(HD, NC, SFX, DT, D)                                                                                 \
    AK_KERNEL void __launch_bounds__(128 * (NC + 1), 1) ak_attn_sm90_##HD##SFX##_##DT(AK_A9_KPARAMS(D)) {        \
        (void)causal; (void)R; (void)vec;                                                                         \
        AK_KONLY(ak_attn_sm90_##HD##SFX##_##DT) { AK_A9_BODY(D, HD, NC); }                                       \
    }
// AK_A9_NCO=N (the host passes it): only the kernels with N consumers
#if !defined(AK_A9_NCO) || AK_A9_NCO == 2
#define AK_A9_2(HD) AK_A9(HD, 2, , f16, ak_f16_t) AK_A9(HD, 2, , bf16, ak_bf16_t)
#else
#define AK_A9_2(HD)
#endif
#if !defined(AK_A9_NCO) || AK_A9_NCO == 3
#define AK_A9_3(HD) AK_A9(HD, 3, w3, f16, ak_f16_t) AK_A9(HD, 3, w3, bf16, ak_bf16_t)
#else
#define AK_A9_3(HD)
#endif
// AK_A9_ONLY=N (the host passes it): only head size N's kernels
#if !defined(AK_A9_ONLY) || AK_A9_ONLY == 32
AK_A9_2(32)
AK_A9_3(32)
#endif
#if !defined(AK_A9_ONLY) || AK_A9_ONLY == 64
AK_A9_2(64)
AK_A9_3(64)
#endif
#if !defined(AK_A9_ONLY) || AK_A9_ONLY == 80
AK_A9_2(80)
#endif
#if !defined(AK_A9_ONLY) || AK_A9_ONLY == 96
AK_A9_2(96)
#endif
#if !defined(AK_A9_ONLY) || AK_A9_ONLY == 128
AK_A9_2(128)
#endif
#if !defined(AK_A9_ONLY) || AK_A9_ONLY == 192
AK_A9_2(192)
#endif
#if !defined(AK_A9_ONLY) || AK_A9_ONLY == 256
AK_A9_2(256)
#endif
