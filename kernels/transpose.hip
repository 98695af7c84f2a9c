/* kernels/transpose.hip: y = transpose(x) for a row-major rows x cols matrix
 * x (y is cols x rows), f32, f16 and bf16 (the 16-bit types share one body: a
 * transpose moves bits). Tiled through shared memory by blocks of 32 x 8
 * threads (blockDim = (32, 8)); both the reads of x and the writes of y are
 * coalesced, and the tile rows are padded so the column reads of the tile hit
 * distinct banks. Any shape: edge tiles are masked; the 1-D grid strides over
 * all tiles (no grid-dimension limit). Host wrapper: ak_transpose in
 * parts/ops_elementwise.inc.
 *
 * f32: 64 x 32 tiles (rows x cols): each thread reads 8 elements of x (two
 * warps' worth of 128-byte rows in flight per thread) and writes 8 of y.
 * 16-bit: 64 x 64 tiles moved as 32-bit words (two elements) on both sides
 * when the tile is whole, the row lengths even and the pointers 4-byte
 * aligned; element by element otherwise. */

#define AK_TX 32   /* blockDim.x */
#define AK_TY 8    /* blockDim.y */

AK_KERNEL void ak_transpose_f32(const float* AK_RESTRICT x, float* AK_RESTRICT y, ak_i64 rows, ak_i64 cols) {
    __shared__ float tile[64][AK_TX + 1];
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const ak_i64 tiles_c = (cols + 31) / 32;
    const ak_i64 tiles = tiles_c * ((rows + 63) / 64);
    for (ak_i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const ak_i64 r0 = (t / tiles_c) * 64, c0 = (t % tiles_c) * 32;
        {
            const ak_i64 c = c0 + tx;
            if (c < cols) {
#pragma unroll
                for (int k = 0; k < 64; k += AK_TY) {
                    const ak_i64 r = r0 + ty + k;
                    if (r < rows) tile[ty + k][tx] = x[r * cols + c];
                }
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; k += AK_TY) {
            const ak_i64 c = c0 + ty + k;
            if (c < cols) {
                const ak_i64 ra = r0 + tx, rb = r0 + 32 + tx;
                if (ra < rows) y[c * rows + ra] = tile[tx][ty + k];
                if (rb < rows) y[c * rows + rb] = tile[32 + tx][ty + k];
            }
        }
        __syncthreads();
    }
}

AK_INLINE void ak_transpose16(const ak_u16* AK_RESTRICT x, ak_u16* AK_RESTRICT y, ak_i64 rows, ak_i64 cols) {
    /* 65: an odd row length, so tile[2t][c] and tile[2t + 1][c] over t = 0..31 fall in 32 distinct banks */
    __shared__ ak_u16 tile[64][65];
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const ak_i64 tiles_c = (cols + 63) / 64;
    const ak_i64 tiles = tiles_c * ((rows + 63) / 64);
    const bool words = ((rows | cols) & 1) == 0 && ((((ak_u64)x) | ((ak_u64)y)) & 3) == 0;
    for (ak_i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const ak_i64 r0 = (t / tiles_c) * 64, c0 = (t % tiles_c) * 64;
        const bool whole = words && r0 + 64 <= rows && c0 + 64 <= cols;
        if (whole) {
#pragma unroll
            for (int k = 0; k < 64; k += AK_TY) {
                const ak_u32 w = *(const ak_u32*)(x + (r0 + ty + k) * cols + c0 + 2 * tx);
                tile[ty + k][2 * tx] = (ak_u16)(w & 0xFFFFu);
                tile[ty + k][2 * tx + 1] = (ak_u16)(w >> 16);
            }
        } else {
            for (int k = 0; k < 64; k += AK_TY) {
                const ak_i64 r = r0 + ty + k;
                if (r < rows) {
                    const ak_i64 ca = c0 + 2 * tx, cb = ca + 1;
                    if (ca < cols) tile[ty + k][2 * tx] = x[r * cols + ca];
                    if (cb < cols) tile[ty + k][2 * tx + 1] = x[r * cols + cb];
                }
            }
        }
        __syncthreads();
        if (whole) {
#pragma unroll
            for (int k = 0; k < 64; k += AK_TY) {
                const int c = ty + k;
                *(ak_u32*)(y + (c0 + c) * rows + r0 + 2 * tx) = ak_pack2(tile[2 * tx][c], tile[2 * tx + 1][c]);
            }
        } else {
            for (int k = 0; k < 64; k += AK_TY) {
                const ak_i64 c = c0 + ty + k;
                if (c < cols) {
                    const ak_i64 ra = r0 + 2 * tx, rb = ra + 1;
                    if (ra < rows) y[c * rows + ra] = tile[2 * tx][ty + k];
                    if (rb < rows) y[c * rows + rb] = tile[2 * tx + 1][ty + k];
                }
            }
        }
        __syncthreads();
    }
}
AK_KERNEL void ak_transpose_f16(const ak_half* x, ak_half* y, ak_i64 rows, ak_i64 cols) { ak_transpose16(x, y, rows, cols); }
AK_KERNEL void ak_transpose_bf16(const ak_bf16* x, ak_bf16* y, ak_i64 rows, ak_i64 cols) { ak_transpose16(x, y, rows, cols); }
