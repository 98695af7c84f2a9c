/* kernels/scan.hip - prefix sums and products (cumsum, cumprod; exclusive,
 * reversed, masked) and top-k along the last dimension of a row-major rows x
 * cols tensor. Host wrappers and CPU references: amdkit.h (>>impl:ops-scan):
 * ak_scan, ak_cumsum, ak_topk. Reversed scans walk the row from its end
 * (element e of the scan is column cols - 1 - e), masked ones read 0 where the
 * byte mask holds 0.
 *
 * ak_cumsum_<dt>: one block per (row, chunk) segment; the segment is walked in
 * tiles of 8 x blockDim elements: a coalesced load into shared memory, a
 * sequential scan of 8 consecutive elements per thread, a block scan of the
 * per-thread totals, a coalesced store, and the running total carried to the
 * next tile. Narrow and medium rows: one segment per row (chunk = cols).
 * Wide rows with few rows (reduce-then-scan): ak_cumsum_part_<dt> writes each
 * chunk's total, and every block of ak_cumsum_<dt> first adds the totals of
 * the chunks before it (fixed order). f16 / bf16 accumulate in fp32; i32 /
 * i64 in unsigned integers of their width (wrap-around, no overflow trap).
 *
 * ak_topk_<dt>: one block per row. Radix select on an order-preserving 32-bit
 * key (NaN the largest, -0 == +0; largest == 0 flips the key): up to four
 * 8-bit histogram passes over the row find the key of the k-th element (a
 * pass stops early when the whole bin is taken, and then the collecting pass
 * needs no barriers; so does it when the keys above the k-th and all keys equal
 * to it fit AK_TOPK_SELMAX, sorted together; lanes of a wave that hit the
 * same bin add once, so skewed data does not serialize on one shared
 * address; 4 loads in flight per thread); one more pass collects the
 * keys above it (shared atomics) and the equal ones in index order (ballot
 * ranks), then a bitonic sort of (key, ~index) in shared memory gives values
 * descending (ascending when largest == 0) with ties by lower index. */

/* ---- cumsum ------------------------------------------------------------------ */
#define AK_SCAN_E 8
#define AK_SCAN_B 256
#define AK_SCAN_TILE (AK_SCAN_E * AK_SCAN_B)
/* shared index with one pad word per 32: the 8-consecutive-per-thread phase is conflict-free */
#define AK_SCAN_P(i) ((i) + ((i) >> 5))

struct ak_scan_f32 { typedef float S; typedef float A;
    static AK_INLINE A to(S v) { return v; } static AK_INLINE S from(A v) { return v; } };
struct ak_scan_f16 { typedef ak_half S; typedef float A;
    static AK_INLINE A to(S v) { return ak_h2f(v); } static AK_INLINE S from(A v) { return ak_f2h(v); } };
struct ak_scan_bf16 { typedef ak_bf16 S; typedef float A;
    static AK_INLINE A to(S v) { return ak_bf2f(v); } static AK_INLINE S from(A v) { return ak_f2bf(v); } };
struct ak_scan_i32 { typedef int S; typedef ak_u32 A;
    static AK_INLINE A to(S v) { return (A)v; } static AK_INLINE S from(A v) { return (S)v; } };
struct ak_scan_i64 { typedef ak_i64 S; typedef ak_u64 A;
    static AK_INLINE A to(S v) { return (A)v; } static AK_INLINE S from(A v) { return (S)v; } };

/* flags of the scan kernels (ak_scan of amdkit.h: AK_SCAN_EXCLUSIVE, AK_SCAN_REVERSE; the op in bit 2) */
#define AK_SCANF_EXCLUSIVE 1
#define AK_SCANF_REVERSE 2
#define AK_SCANF_PROD 4
template <class A>
AK_INLINE A ak_scan_op(bool prod, A a, A b) { return prod ? a * b : a + b; }

/* a (sum) or a * b (prod) of v over the block in a fixed order (shared tree); every thread gets it. */
template <class A>
AK_INLINE A ak_scan_block_sum(A v, A* sh, bool prod) {
    const int t = (int)threadIdx.x;
    __syncthreads();
    sh[t] = v;
    __syncthreads();
    for (int o = AK_SCAN_B / 2; o > 0; o >>= 1) {
        if (t < o) sh[t] = ak_scan_op(prod, sh[t], sh[t + o]);
        __syncthreads();
    }
    return sh[0];
}

/* Element e (in scan order) of a row: x at e (reverse: cols - 1 - e), 0 where mask holds 0. */
template <class D>
AK_INLINE typename D::A ak_scan_ld(const typename D::S* xr, const ak_u8* mr, ak_i64 cols, ak_i64 e, int flags) {
    const ak_i64 p = (flags & AK_SCANF_REVERSE) ? cols - 1 - e : e;
    if (mr && !mr[p]) return (typename D::A)0;
    return D::to(xr[p]);
}

/* Block (row, chunk) of nch chunks per row: total (sum or product) of elements c0 .. c1 in scan order. */
template <class D>
AK_INLINE void ak_cumsum_part_impl(const typename D::S* AK_RESTRICT x, const ak_u8* AK_RESTRICT mask, ak_i64 cols,
                                   ak_i64 chunk, int nch, typename D::A* AK_RESTRICT part, int flags) {
    typedef typename D::A A;
    __shared__ A sh[AK_SCAN_B];
    const bool prod = (flags & AK_SCANF_PROD) != 0;
    const ak_i64 row = (ak_i64)blockIdx.x / nch, ci = (ak_i64)blockIdx.x % nch;
    const ak_i64 c0 = ci * chunk, c1 = c0 + chunk < cols ? c0 + chunk : cols;
    const typename D::S* xr = x + row * cols;
    const ak_u8* mr = mask ? mask + row * cols : (const ak_u8*)0;
    A s = prod ? (A)1 : (A)0;
    for (ak_i64 c = c0 + threadIdx.x; c < c1; c += AK_SCAN_B) s = ak_scan_op(prod, s, ak_scan_ld<D>(xr, mr, cols, c, flags));
    s = ak_scan_block_sum<A>(s, sh, prod);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

template <class D>
AK_INLINE void ak_cumsum_impl(const typename D::S* AK_RESTRICT x, const ak_u8* AK_RESTRICT mask,
                              typename D::S* AK_RESTRICT y, ak_i64 cols, ak_i64 chunk, int nch,
                              const typename D::A* AK_RESTRICT part, int flags) {
    typedef typename D::A A;
    __shared__ A sh[AK_SCAN_P(AK_SCAN_TILE)];
    __shared__ A tot[AK_SCAN_B];
    const bool prod = (flags & AK_SCANF_PROD) != 0, exclusive = (flags & AK_SCANF_EXCLUSIVE) != 0;
    const bool rev = (flags & AK_SCANF_REVERSE) != 0;
    const A id = prod ? (A)1 : (A)0;
    const int t = (int)threadIdx.x;
    const ak_i64 row = (ak_i64)blockIdx.x / nch, ci = (ak_i64)blockIdx.x % nch;
    const ak_i64 c0 = ci * chunk, c1 = c0 + chunk < cols ? c0 + chunk : cols;
    const typename D::S* xr = x + row * cols;
    const ak_u8* mr = mask ? mask + row * cols : (const ak_u8*)0;
    typename D::S* yr = y + row * cols;
    A carry = id;
    if (part && ci > 0) {
        const A* pr = part + row * nch;
        for (ak_i64 j = t; j < ci; j += AK_SCAN_B) carry = ak_scan_op(prod, carry, pr[j]);
        carry = ak_scan_block_sum<A>(carry, tot, prod);
    }
    for (ak_i64 t0 = c0; t0 < c1; t0 += AK_SCAN_TILE) {
        const int len = c1 - t0 < AK_SCAN_TILE ? (int)(c1 - t0) : AK_SCAN_TILE;
        __syncthreads();  /* the previous tile's readers of sh / tot are done */
#pragma unroll
        for (int i = 0; i < AK_SCAN_E; i++) {
            const int e = i * AK_SCAN_B + t;
            sh[AK_SCAN_P(e)] = e < len ? ak_scan_ld<D>(xr, mr, cols, t0 + e, flags) : id;
        }
        __syncthreads();
        A v[AK_SCAN_E], run = id;
#pragma unroll
        for (int j = 0; j < AK_SCAN_E; j++) {
            const A a = sh[AK_SCAN_P(t * AK_SCAN_E + j)];
            if (exclusive) { v[j] = run; run = ak_scan_op(prod, run, a); }
            else { run = ak_scan_op(prod, run, a); v[j] = run; }
        }
        tot[t] = run;
        __syncthreads();
        for (int o = 1; o < AK_SCAN_B; o <<= 1) {   /* inclusive scan of the thread totals */
            const A u = t >= o ? tot[t - o] : id;
            __syncthreads();
            tot[t] = ak_scan_op(prod, tot[t], u);
            __syncthreads();
        }
        const A before = t > 0 ? tot[t - 1] : id;
#pragma unroll
        for (int j = 0; j < AK_SCAN_E; j++) sh[AK_SCAN_P(t * AK_SCAN_E + j)] = ak_scan_op(prod, carry, ak_scan_op(prod, before, v[j]));
        __syncthreads();
#pragma unroll
        for (int i = 0; i < AK_SCAN_E; i++) {
            const int e = i * AK_SCAN_B + t;
            if (e < len) yr[rev ? cols - 1 - (t0 + e) : t0 + e] = D::from(sh[AK_SCAN_P(e)]);
        }
        carry = ak_scan_op(prod, carry, tot[AK_SCAN_B - 1]);
    }
}

#define AK_SCAN_KERNELS(DT, D)                                                                                     \
    AK_KERNEL __launch_bounds__(AK_SCAN_B) void ak_cumsum_part_##DT(const D::S* x, const ak_u8* mask, ak_i64 cols, \
                                                                     ak_i64 chunk, int nch, D::A* part, int flags) { AK_KONLY(ak_cumsum_part_##DT) { \
        ak_cumsum_part_impl<D>(x, mask, cols, chunk, nch, part, flags);                                            \
    } }                                                                                                              \
    AK_KERNEL __launch_bounds__(AK_SCAN_B) void ak_cumsum_##DT(const D::S* x, const ak_u8* mask, D::S* y,          \
                                                                ak_i64 cols, ak_i64 chunk, int nch, const D::A* part, \
                                                                int flags) { AK_KONLY(ak_cumsum_##DT) { \
        ak_cumsum_impl<D>(x, mask, y, cols, chunk, nch, part, flags);                                              \
    } }
// kernels: ak_cumsum_part_f32 ak_cumsum_f32 ak_cumsum_part_f16 ak_cumsum_f16 ak_cumsum_part_bf16 ak_cumsum_bf16
// kernels: ak_cumsum_part_i32 ak_cumsum_i32 ak_cumsum_part_i64 ak_cumsum_i64
AK_SCAN_KERNELS(f32, ak_scan_f32)
AK_SCAN_KERNELS(f16, ak_scan_f16)
AK_SCAN_KERNELS(bf16, ak_scan_bf16)
AK_SCAN_KERNELS(i32, ak_scan_i32)
AK_SCAN_KERNELS(i64, ak_scan_i64)

/* ---- top-k ------------------------------------------------------------------- */
#define AK_TOPK_KMAX 1024
#define AK_TOPK_SELMAX 2048 /* candidates the one-block kernel sorts: the k-th key's ties collected unordered when they fit */

/* Order-preserving key of a float: larger value -> larger key; every NaN is
 * the largest key, -0 the same key as +0; largest == 0 flips the order. */
AK_INLINE ak_u32 ak_topk_key(float f, int largest) {
    ak_u32 u = __float_as_uint(f), k;
    if (f != f) k = 0xFFFFFFFFu;
    else {
        if (u == 0x80000000u) u = 0u;
        k = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    }
    return largest ? k : ~k;
}

/* hist[bin] += 1 for the lanes with act: up to two rounds of wave aggregation
 * (the lanes sharing the lowest active lane's bin add once, by popcount),
 * then plain shared atomics. Skewed data (a few bins take most keys) would
 * otherwise serialize 32 / 64 lanes on one address. All lanes of the wave
 * call it. */
/* A wave's lane mask in the wave's width (wave32 code keeps to 32-bit masks:
 * the ISA check wants no 64-bit exec / vcc pairs there). */
#if AK_WAVE == 32
typedef ak_u32 ak_wmask;
AK_INLINE int ak_wmask_ffs(ak_wmask m) { return __ffs((int)m); }
AK_INLINE ak_u32 ak_wmask_popc(ak_wmask m) { return (ak_u32)__popc(m); }
#else
typedef ak_u64 ak_wmask;
AK_INLINE int ak_wmask_ffs(ak_wmask m) { return __ffsll((long long)m); }
AK_INLINE ak_u32 ak_wmask_popc(ak_wmask m) { return (ak_u32)__popcll(m); }
#endif
AK_INLINE ak_u32 ak_topk_shfl(ak_u32 v, int src) {
#if defined(AK_AMD)
    return (ak_u32)__shfl((int)v, src, AK_WAVE);
#else
    return __shfl_sync(0xFFFFFFFFu, v, src);
#endif
}
AK_INLINE void ak_topk_hist_add(ak_u32* hist, ak_u32 bin, bool act) {
    ak_wmask pending = (ak_wmask)ak_ballot(act);
#pragma unroll
    for (int round = 0; round < 2; round++) {
        if (pending == 0u) break;
        const int leader = ak_wmask_ffs(pending) - 1;
        const ak_u32 lb = ak_topk_shfl(bin, leader);
        const bool mine = act && bin == lb;
        const ak_wmask same = (ak_wmask)ak_ballot(mine);
        if (ak_lane() == leader) atomicAdd(&hist[lb], ak_wmask_popc(same));
        if (mine) act = false;
        pending &= ~same;
    }
    if (act) atomicAdd(&hist[bin], 1u);
}

#define AK_TOPK_U 8   /* elements per thread per step (loads in flight) */
/* Lowest radix pass a dtype needs: a key made from an f16 value has its low 13
 * bits constant (all 0, or all 1 for negatives), from a bf16 value its low 16:
 * once the bits above are fixed, so are they (f16: the last pass, bf16: the
 * last two are skipped). */
template <class D> struct ak_topk_last { enum { SHIFT = 0 }; };
template <> struct ak_topk_last<ak_f16_t> { enum { SHIFT = 8 }; };
template <> struct ak_topk_last<ak_bf16_t> { enum { SHIFT = 16 }; };

/* The bin of hist (256 counts) that holds the kk-th largest key: info[0] =
 * base | bin << shift, info[1] = the rank of that key inside the bin
 * (1-based), info[2] = 1 when the whole bin is taken (no tie to break below
 * it), info[4] = the bin's count (info has 5 words). Wave 0 sums 256 /
 * AK_WAVE bins per lane from the top. All threads call it; barriers inside. */
AK_INLINE void ak_topk_pick(const ak_u32* hist, ak_u32 kk, ak_u32 base, int shift, ak_u32* lsum, ak_u32* info) {
    const int t = (int)threadIdx.x, lane = ak_lane();
    if (t < AK_WAVE) {
        const int per = 256 / AK_WAVE, top = 255 - lane * per;
        ak_u32 s = 0u;
        for (int q = 0; q < per; q++) s += hist[top - q];
        lsum[lane] = s;
    }
    __syncthreads();
    if (t < AK_WAVE) {
        const int per = 256 / AK_WAVE, top = 255 - lane * per;
        ak_u32 cum = 0u;
        for (int i = 0; i < lane; i++) cum += lsum[i];
        if (cum < kk && cum + lsum[lane] >= kk) {
            for (int q = 0; q < per; q++) {
                const ak_u32 h = hist[top - q];
                if (cum + h >= kk) {
                    info[0] = base | ((ak_u32)(top - q) << shift);
                    info[1] = kk - cum;
                    info[2] = h == kk - cum;
                    info[4] = h;
                    break;
                }
                cum += h;
            }
        }
    }
    __syncthreads();
}

/* The composite an element sorts by: its key above, ~index below (ties go to the lower index). */
AK_INLINE ak_u64 ak_topk_word(ak_u32 key, ak_i64 e) { return ((ak_u64)key << 32) | (ak_u64)(0xFFFFFFFFu - (ak_u32)e); }

/* A walk over the columns [LO, HI) of the row xr while GO holds: AK_TOPK_U
 * elements per thread per step, every load issued before any use. The
 * statements given run once per element slot, with e (its column; e >= HI
 * past the end) and key (its ak_topk_key) in scope. It uses the enclosing
 * function's t, B, step, xr, largest and D. A macro rather than a lambda: a
 * lambda cost ak_topk_mb_collect_f32 three registers (ptxas sm_90). */
#define AK_TOPK_WALK(LO, HI, GO, ...)                                     \
    for (ak_i64 t0 = (LO); (GO) && t0 < (HI); t0 += step) {               \
        float v[AK_TOPK_U];                                               \
        _Pragma("unroll") for (int u = 0; u < AK_TOPK_U; u++) {           \
            const ak_i64 e = t0 + (ak_i64)u * B + t;                      \
            v[u] = e < (HI) ? D::to(xr[e]) : 0.0f;                        \
        }                                                                 \
        _Pragma("unroll") for (int u = 0; u < AK_TOPK_U; u++) {           \
            const ak_i64 e = t0 + (ak_i64)u * B + t;                      \
            const ak_u32 key = ak_topk_key(v[u], largest);                \
            __VA_ARGS__                                                   \
        }                                                                 \
    }

/* Sorts sel[0 .. n) (composites key << 32 | ~index, distinct; n >= k)
 * descending with a bitonic network over P = pow2 >= n entries (padding 0
 * sorts last), then writes the first k: the row's values (read back from xr)
 * and indices. sel has room for P entries. All threads call it. */
template <class D>
AK_INLINE void ak_topk_sort_out(ak_u64* sel, int n, int k, const typename D::T* AK_RESTRICT xr,
                                typename D::T* AK_RESTRICT vals, ak_i64* AK_RESTRICT idx) {
    const int t = (int)threadIdx.x, B = (int)blockDim.x;
    int P = 1;
    while (P < n) P <<= 1;
    for (int i = n + t; i < P; i += B) sel[i] = 0ull;
    __syncthreads();
    for (int size = 2; size <= P; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = t; i < P / 2; i += B) {
                const int pos = 2 * i - (i & (stride - 1)), par = pos + stride;
                const ak_u64 a = sel[pos], b = sel[par];
                const bool desc = (pos & size) == 0 || size == P;
                if (desc ? a < b : a > b) { sel[pos] = b; sel[par] = a; }
            }
            __syncthreads();
        }
    }
    for (int j = t; j < k; j += B) {
        const ak_u32 e = 0xFFFFFFFFu - (ak_u32)sel[j];
        vals[j] = xr[e];
        idx[j] = (ak_i64)e;
    }
}

template <class D>
AK_INLINE void ak_topk_impl(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT vals,
                            ak_i64* AK_RESTRICT idx, ak_i64 cols, int k, int largest) {
    __shared__ ak_u32 hist[256];
    __shared__ ak_u64 sel[AK_TOPK_SELMAX];
    __shared__ ak_u32 info[5];
    __shared__ ak_u32 wsum[AK_MAX_WAVES];
    __shared__ ak_u32 lsum[64];
    const int t = (int)threadIdx.x, B = (int)blockDim.x, lane = ak_lane(), wid = ak_wave_id();
    const int nw = (B + AK_WAVE - 1) / AK_WAVE;
    const ak_i64 row = blockIdx.x, step = (ak_i64)B * AK_TOPK_U;
    const typename D::T* xr = x + row * cols;
    ak_u32 prefix = 0u, pmask = 0u, kk = (ak_u32)k;
    bool alltaken = false;   /* every key equal to prefix (on pmask) is taken: no tie to break */
    /* radix select: the (k - kk + 1)-th .. k-th largest keys share `prefix` on the bits of pmask */
    for (int shift = 24; shift >= (int)ak_topk_last<D>::SHIFT; shift -= 8) {
        for (int i = t; i < 256; i += B) hist[i] = 0u;
        __syncthreads();
        /* a block-uniform trip count (ak_topk_hist_add ballots) */
        AK_TOPK_WALK(0, cols, true, ak_topk_hist_add(hist, (key >> shift) & 255u, e < cols && (key & pmask) == prefix);)
        __syncthreads();
        ak_topk_pick(hist, kk, prefix, shift, lsum, info);
        prefix = info[0];
        kk = info[1];
        pmask |= 255u << shift;
        alltaken = info[2] != 0u;
        __syncthreads();
        if (alltaken) break;
    }
    /* collect: keys above prefix (on pmask) anywhere in sel[0 .. ngt), the first kk equal ones by index after them */
    const ak_u32 ngt = (ak_u32)k - kk;
    /* ties that fit: every key >= prefix (ngt above it, info[4] equal ones, the whole last bin) in any order; the
     * sort of the composites (key, ~index) puts the equal ones by index, and the first k are the answer */
    const ak_u32 nsel = alltaken ? (ak_u32)k : ngt + info[4];
    const bool fits = nsel <= (ak_u32)AK_TOPK_SELMAX;
    if (t == 0) info[3] = 0u;
    ak_u32 eqbase = 0u;
    __syncthreads();
    /* no tie to break: the k keys >= prefix, in any order (the sort orders them), no barriers */
    AK_TOPK_WALK(0, cols, fits, if (e < cols && (key & pmask) >= prefix) sel[atomicAdd(&info[3], 1u)] = ak_topk_word(key, e);)
    /* ties: the first kk equal keys by index (ballot ranks), the keys above anywhere */
    for (ak_i64 t0 = 0; !fits && t0 < cols; t0 += step) {
        float v[AK_TOPK_U];
#pragma unroll
        for (int u = 0; u < AK_TOPK_U; u++) {
            const ak_i64 e = t0 + (ak_i64)u * B + t;
            v[u] = e < cols ? D::to(xr[e]) : 0.0f;
        }
        bool finished = false;
        for (int u = 0; u < AK_TOPK_U; u++) {  /* index order: u, then thread */
            const ak_i64 e = t0 + (ak_i64)u * B + t;
            const bool valid = e < cols;
            const ak_u32 key = ak_topk_key(v[u], largest), mk = key & pmask;
            const bool gt = valid && mk > prefix, eq = valid && mk == prefix;
            const ak_u64 comp = ak_topk_word(key, e);
            if (gt) sel[atomicAdd(&info[3], 1u)] = comp;
            const ak_wmask bal = (ak_wmask)ak_ballot(eq);
            if (lane == 0) wsum[wid] = ak_wmask_popc(bal);
            __syncthreads();
            ak_u32 off = 0u, all = 0u;
            for (int w = 0; w < nw; w++) { const ak_u32 c = wsum[w]; if (w < wid) off += c; all += c; }
            const ak_u32 r = eqbase + off + ak_wmask_popc(bal & (((ak_wmask)1 << lane) - 1u));
            if (eq && r < kk) sel[ngt + r] = comp;
            eqbase += all;
            finished = eqbase >= kk && info[3] >= ngt;
            __syncthreads();
            if (finished) break;
        }
        if (finished) break;
    }
    ak_topk_sort_out<D>(sel, fits ? (int)nsel : k, k, xr, vals + row * k, idx + row * k);
}
/* ---- top-k, a row split over several blocks (few rows) ------------------------
 * Radix select on the 64-bit composite key << 32 | ~index (distinct per row, so
 * the selection always ends with the whole bin taken: no tie to break), one
 * launch per 8-bit digit: the key digits from the top (down to ak_topk_last),
 * then the index digits the row width needs. Block (chunk, row) adds the
 * histogram of its chunk to the row's global one; the last block of the row to
 * finish (atomic counter) picks the bin, updates the row's state and clears the
 * histogram for the next launch; once the row is resolved later launches return
 * at once. ak_topk_mb_collect_<dt> writes the k composites >= the threshold to
 * the row's candidate list, and its last block sorts them and writes the row.
 * Workspace per row (zeroed by the host): AK_TOPK_WS words (histogram, counter,
 * done, taken, count, prefix, mask), then rows x k candidates. */
#define AK_TOPK_WS 264
#define AK_TOPK_MB_B 256
enum { AK_TKW_CNT = 256, AK_TKW_DONE, AK_TKW_TAKEN, AK_TKW_NCOL, AK_TKW_PHI, AK_TKW_PLO, AK_TKW_MHI, AK_TKW_MLO };

/* The last block of a row to arrive (all its threads get the answer). */
AK_INLINE bool ak_topk_mb_last(ak_u32* cnt, int nch, ak_u32* flag) {
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) *flag = atomicAdd(cnt, 1u) == (ak_u32)nch - 1u;
    __syncthreads();
    const bool last = *flag != 0u;
    if (last) __threadfence();
    return last;
}

template <class D>
AK_INLINE void ak_topk_mb_pass_impl(const typename D::T* AK_RESTRICT x, ak_u32* ws, ak_i64 cols, ak_i64 chunk,
                                    int nch, int k, int shift, int largest) {
    __shared__ ak_u32 hist[256];
    __shared__ ak_u32 info[5];
    __shared__ ak_u32 lsum[64];
    const int t = (int)threadIdx.x, B = (int)blockDim.x;
    const ak_i64 row = blockIdx.y, c0 = (ak_i64)blockIdx.x * chunk;
    const ak_i64 c1 = c0 + chunk < cols ? c0 + chunk : cols, step = (ak_i64)B * AK_TOPK_U;
    ak_u32* st = ws + row * AK_TOPK_WS;
    if (((volatile ak_u32*)st)[AK_TKW_DONE]) return;   /* the row is resolved (same value for every thread) */
    const ak_u64 prefix = ((ak_u64)st[AK_TKW_PHI] << 32) | st[AK_TKW_PLO];
    const ak_u64 pmask = ((ak_u64)st[AK_TKW_MHI] << 32) | st[AK_TKW_MLO];
    const typename D::T* xr = x + row * cols;
    for (int i = t; i < 256; i += B) hist[i] = 0u;
    __syncthreads();
    AK_TOPK_WALK(c0, c1, true, const ak_u64 comp = ak_topk_word(key, e);
                 ak_topk_hist_add(hist, (ak_u32)(comp >> shift) & 255u, e < c1 && (comp & pmask) == prefix);)
    __syncthreads();
    for (int i = t; i < 256; i += B)
        if (hist[i]) atomicAdd(&st[i], hist[i]);
    if (!ak_topk_mb_last(&st[AK_TKW_CNT], nch, &info[3])) return;
    for (int i = t; i < 256; i += B) { hist[i] = ((volatile ak_u32*)st)[i]; st[i] = 0u; }
    __syncthreads();
    const ak_u32 taken = ((volatile ak_u32*)st)[AK_TKW_TAKEN];
    ak_topk_pick(hist, (ak_u32)k - taken, 0u, 0, lsum, info);
    if (t == 0) {
        const ak_u64 np = prefix | ((ak_u64)info[0] << shift), nm = pmask | ((ak_u64)255u << shift);
        st[AK_TKW_PHI] = (ak_u32)(np >> 32); st[AK_TKW_PLO] = (ak_u32)np;
        st[AK_TKW_MHI] = (ak_u32)(nm >> 32); st[AK_TKW_MLO] = (ak_u32)nm;
        st[AK_TKW_TAKEN] = (ak_u32)k - info[1];
        st[AK_TKW_DONE] = info[2];
        st[AK_TKW_CNT] = 0u;
    }
}

template <class D>
AK_INLINE void ak_topk_mb_collect_impl(const typename D::T* AK_RESTRICT x, typename D::T* AK_RESTRICT vals,
                                       ak_i64* AK_RESTRICT idx, ak_u32* ws, ak_i64 rows, ak_i64 cols, ak_i64 chunk,
                                       int nch, int k, int largest) {
    __shared__ ak_u64 sel[AK_TOPK_KMAX];
    __shared__ ak_u32 flag;
    const int t = (int)threadIdx.x, B = (int)blockDim.x;
    const ak_i64 row = blockIdx.y, c0 = (ak_i64)blockIdx.x * chunk;
    const ak_i64 c1 = c0 + chunk < cols ? c0 + chunk : cols, step = (ak_i64)B * AK_TOPK_U;
    ak_u32* st = ws + row * AK_TOPK_WS;
    ak_u64* cand = (ak_u64*)(ws + rows * AK_TOPK_WS) + row * k;
    const ak_u64 prefix = ((ak_u64)st[AK_TKW_PHI] << 32) | st[AK_TKW_PLO];
    const ak_u64 pmask = ((ak_u64)st[AK_TKW_MHI] << 32) | st[AK_TKW_MLO];
    const typename D::T* xr = x + row * cols;
    AK_TOPK_WALK(c0, c1, true, const ak_u64 comp = ak_topk_word(key, e); if (e < c1 && (comp & pmask) >= prefix) {
        const ak_u32 pos = atomicAdd(&st[AK_TKW_NCOL], 1u);
        if (pos < (ak_u32)k) cand[pos] = comp;   /* exactly k qualify; the bound keeps memory safe */
    })
    if (!ak_topk_mb_last(&st[AK_TKW_CNT], nch, &flag)) return;
    for (int j = t; j < k; j += B) sel[j] = ((volatile ak_u64*)cand)[j];
    ak_topk_sort_out<D>(sel, k, k, xr, vals + row * k, idx + row * k);
}

// kernels: ak_topk_f32 ak_topk_mb_pass_f32 ak_topk_mb_collect_f32 ak_topk_f16 ak_topk_mb_pass_f16
// kernels: ak_topk_mb_collect_f16 ak_topk_bf16 ak_topk_mb_pass_bf16 ak_topk_mb_collect_bf16
#define AK_TOPK(DT, D)                                                                                             \
    AK_KERNEL void ak_topk_##DT(const D::T* x, D::T* vals, ak_i64* idx, ak_i64 cols, int k, int largest) { AK_KONLY(ak_topk_##DT) { \
        ak_topk_impl<D>(x, vals, idx, cols, k, largest);                                                           \
    } }                                                                                                              \
    AK_KERNEL void ak_topk_mb_pass_##DT(const D::T* x, ak_u32* ws, ak_i64 cols, ak_i64 chunk, int nch, int k,      \
                                        int shift, int largest) { AK_KONLY(ak_topk_mb_pass_##DT) { \
        ak_topk_mb_pass_impl<D>(x, ws, cols, chunk, nch, k, shift, largest);                                       \
    } }                                                                                                              \
    AK_KERNEL void ak_topk_mb_collect_##DT(const D::T* x, D::T* vals, ak_i64* idx, ak_u32* ws, ak_i64 rows,        \
                                           ak_i64 cols, ak_i64 chunk, int nch, int k, int largest) { AK_KONLY(ak_topk_mb_collect_##DT) { \
        ak_topk_mb_collect_impl<D>(x, vals, idx, ws, rows, cols, chunk, nch, k, largest);                          \
    } }
AK_TOPK(f32, ak_f32_t)
AK_TOPK(f16, ak_f16_t)
AK_TOPK(bf16, ak_bf16_t)
