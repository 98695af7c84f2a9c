/* kernels/transpose.hip: y = transpose(x) for a row-major rows x cols matrix
 * x (y is cols x rows), or for each of a batch of them (contiguous, one
 * launch: the tiles of every matrix in one 1-D walk), f32, f16 and bf16 (the 16-bit types share one body: a
 * transpose moves bits). Tiled through shared memory by blocks of 32 x 8
 * threads (blockDim = (32, 8)); both the reads of x and the writes of y are
 * coalesced, and the tile rows are padded so the column reads of the tile hit
 * distinct banks. Any shape: edge tiles are masked; the 1-D grid strides over
 * all tiles (no grid-dimension limit). Host wrappers: ak_transpose,
 * ak_transpose_batched in amdkit.h (>>impl:ops-elementwise).
 *
 * Both: 64 x 64 tiles moved two elements per access (f32: float2, 16-bit:
 * one 32-bit word) on both sides when the tile is whole, the row lengths
 * even and the pointers aligned to the pair; element by element otherwise
 * (predicated loads, all in flight before the tile is written). The host
 * copies rows == 1 or cols == 1 (the same bytes) instead.
 * Each thread moves 16 elements per tile. Measured on H100 (16384^2 f32):
 * 64 x 64 pairs 2873 GB/s vs 32 x 32 scalar 2753 GB/s and memcpy 3016 GB/s,
 * with one block per tile (the host launches a block for every tile). */

#define AK_TX 32   /* blockDim.x */
#define AK_TY 8    /* blockDim.y */

/* T: element bits, P: two of them */
struct ak_tp32 {
    typedef float T;
    typedef float2 P;
    static AK_INLINE void split(P v, T& a, T& b) { a = v.x; b = v.y; }
    static AK_INLINE P join(T a, T b) { P v; v.x = a; v.y = b; return v; }
};
struct ak_tp16 {
    typedef ak_u16 T;
    typedef ak_u32 P;
    static AK_INLINE void split(P v, T& a, T& b) { a = (T)(v & 0xFFFFu); b = (T)(v >> 16); }
    static AK_INLINE P join(T a, T b) { return ak_pack2(a, b); }
};

/* tile: __shared__ T[64][65] of the kernel; 65, an odd row length, keeps the
 * column reads tile[2t][c], tile[2t + 1][c] (t = 0..31) off shared banks
 * (conflict-free for 16-bit, 2-way for f32) */
template <class S>
AK_INLINE void ak_transpose_tiles(const typename S::T* AK_RESTRICT xb, typename S::T* AK_RESTRICT yb, ak_i64 rows,
                                  ak_i64 cols, ak_i64 batch, typename S::T (*tile)[65]) {
    typedef typename S::P P;
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const ak_i64 tiles_c = (cols + 63) / 64;
    const ak_i64 tiles = tiles_c * ((rows + 63) / 64);
    /* even rows and cols keep every matrix of the batch on the pair alignment of the first */
    const bool pairs = ((rows | cols) & 1) == 0 && ((((ak_u64)xb) | ((ak_u64)yb)) % sizeof(P)) == 0;
    for (ak_i64 tb = blockIdx.x; tb < tiles * batch; tb += gridDim.x) {
        const ak_i64 b = tb / tiles, t = tb - b * tiles;
        const typename S::T* AK_RESTRICT x = xb + b * rows * cols;
        typename S::T* AK_RESTRICT y = yb + b * rows * cols;
        const ak_i64 r0 = (t / tiles_c) * 64, c0 = (t % tiles_c) * 64;
        const bool whole = pairs && r0 + 64 <= rows && c0 + 64 <= cols;
        if (whole) {
#pragma unroll
            for (int k = 0; k < 64; k += AK_TY) {
                const P v = *(const P*)(x + (r0 + ty + k) * cols + c0 + 2 * tx);
                S::split(v, tile[ty + k][2 * tx], tile[ty + k][2 * tx + 1]);
            }
        } else {
            /* edge tiles: all 16 predicated loads first, then the tile stores, so the loads
             * are in flight together (a loop of load-store pairs waited for each load in
             * turn: 256 x 32 f32 took 7.3 us against 4.5 for 256 x 64) */
            typename S::T v[2 * (64 / AK_TY)];
            const ak_i64 ca = c0 + 2 * tx, cb = ca + 1;
#pragma unroll
            for (int k = 0; k < 64 / AK_TY; k++) {
                const ak_i64 r = r0 + ty + k * AK_TY;
                v[2 * k] = r < rows && ca < cols ? x[r * cols + ca] : (typename S::T)0;
                v[2 * k + 1] = r < rows && cb < cols ? x[r * cols + cb] : (typename S::T)0;
            }
#pragma unroll
            for (int k = 0; k < 64 / AK_TY; k++) {
                tile[ty + k * AK_TY][2 * tx] = v[2 * k];
                tile[ty + k * AK_TY][2 * tx + 1] = v[2 * k + 1];
            }
        }
        __syncthreads();
        if (whole) {
#pragma unroll
            for (int k = 0; k < 64; k += AK_TY) {
                const int c = ty + k;
                *(P*)(y + (c0 + c) * rows + r0 + 2 * tx) = S::join(tile[2 * tx][c], tile[2 * tx + 1][c]);
            }
        } else {
            for (int k = 0; k < 64; k += AK_TY) {
                const ak_i64 c = c0 + ty + k, ra = r0 + 2 * tx, rb = ra + 1;
                if (c < cols) {
                    if (ra < rows) y[c * rows + ra] = tile[2 * tx][ty + k];
                    if (rb < rows) y[c * rows + rb] = tile[2 * tx + 1][ty + k];
                }
            }
        }
        __syncthreads();
    }
}

AK_KERNEL void ak_transpose_f32(const float* x, float* y, ak_i64 rows, ak_i64 cols, ak_i64 batch) {
    __shared__ float tile[64][65];
    ak_transpose_tiles<ak_tp32>(x, y, rows, cols, batch, tile);
}
AK_KERNEL void ak_transpose_f16(const ak_half* x, ak_half* y, ak_i64 rows, ak_i64 cols, ak_i64 batch) {
    __shared__ ak_u16 tile[64][65];
    ak_transpose_tiles<ak_tp16>(x, y, rows, cols, batch, tile);
}
AK_KERNEL void ak_transpose_bf16(const ak_bf16* x, ak_bf16* y, ak_i64 rows, ak_i64 cols, ak_i64 batch) {
    __shared__ ak_u16 tile[64][65];
    ak_transpose_tiles<ak_tp16>(x, y, rows, cols, batch, tile);
}
