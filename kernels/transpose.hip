/* kernels/transpose.hip: y = transpose(x) for a row-major rows x cols matrix
 * x (y is cols x rows), f32, f16 and bf16 (16-bit types share one body: a
 * transpose moves bits). Tiled through shared memory: a block of
 * AK_TT x AK_TR threads (32 x 8) moves one 32 x 32 tile at a time, reading
 * rows of x and writing rows of y (both coalesced); the tile row is padded by
 * one element so the column reads do not hit one bank. Any shape: edge tiles
 * are masked; the 1-D grid strides over all tiles (no grid-dimension limit).
 * Host wrapper: ak_transpose in parts/ops_elementwise.inc. */

#define AK_TT 32
#define AK_TR 8

template <class T>
AK_INLINE void ak_transpose_impl(const T* AK_RESTRICT x, T* AK_RESTRICT y, ak_i64 rows, ak_i64 cols,
                                 T (*tile)[AK_TT + 1]) {
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const ak_i64 tiles_c = (cols + AK_TT - 1) / AK_TT;
    const ak_i64 tiles = tiles_c * ((rows + AK_TT - 1) / AK_TT);
    for (ak_i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const ak_i64 r0 = (t / tiles_c) * AK_TT, c0 = (t % tiles_c) * AK_TT;
        {
            const ak_i64 c = c0 + tx;
            if (c < cols) {
                for (int k = 0; k < AK_TT; k += AK_TR) {
                    const ak_i64 r = r0 + ty + k;
                    if (r < rows) tile[ty + k][tx] = x[r * cols + c];
                }
            }
        }
        __syncthreads();
        {
            const ak_i64 r = r0 + tx;
            if (r < rows) {
                for (int k = 0; k < AK_TT; k += AK_TR) {
                    const ak_i64 c = c0 + ty + k;
                    if (c < cols) y[c * rows + r] = tile[tx][ty + k];
                }
            }
        }
        __syncthreads();
    }
}

AK_KERNEL void ak_transpose_f32(const float* x, float* y, ak_i64 rows, ak_i64 cols) {
    __shared__ float tile[AK_TT][AK_TT + 1];
    ak_transpose_impl<float>(x, y, rows, cols, tile);
}
AK_KERNEL void ak_transpose_f16(const ak_half* x, ak_half* y, ak_i64 rows, ak_i64 cols) {
    __shared__ ak_u16 tile[AK_TT][AK_TT + 1];
    ak_transpose_impl<ak_u16>(x, y, rows, cols, tile);
}
AK_KERNEL void ak_transpose_bf16(const ak_bf16* x, ak_bf16* y, ak_i64 rows, ak_i64 cols) {
    __shared__ ak_u16 tile[AK_TT][AK_TT + 1];
    ak_transpose_impl<ak_u16>(x, y, rows, cols, tile);
}
