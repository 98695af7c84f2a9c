/* kb_shim.c - amdkit as a shared library for bench/kernelbench/run.py (ctypes),
 * plus flat wrappers for the ops that take a struct (GEMM, pooling), so the
 * Python side never mirrors a struct layout (GEMM, pooling, convolution):
 *   cc -O2 -shared -fPIC bench/kernelbench/kb_shim.c -o build/libamdkit_kb.so -ldl -lpthread -lm
 * Every function: thread safety as the op it wraps. */
#define AMDKIT_IMPLEMENTATION
#include "../../amdkit.h"

/* D = op(A) op(B) (row-major, packed, batch problems at the given element strides). */
ak_result kb_gemm(ak_context* ctx, int dtype, const void* a, const void* b, void* d, size_t m, size_t n, size_t k,
                  int trans_a, int trans_b, size_t batch, size_t stride_a, size_t stride_b, size_t stride_d,
                  float alpha, ak_stream* stream);
ak_result kb_gemm(ak_context* ctx, int dtype, const void* a, const void* b, void* d, size_t m, size_t n, size_t k,
                  int trans_a, int trans_b, size_t batch, size_t stride_a, size_t stride_b, size_t stride_d,
                  float alpha, ak_stream* stream) {
    ak_gemm_desc g = ak_gemm_desc_default();
    g.dtype = (ak_dtype)dtype;
    g.out_dtype = (ak_dtype)dtype;
    g.a = a; g.b = b; g.d = d;
    g.m = m; g.n = n; g.k = k;
    g.trans_a = trans_a; g.trans_b = trans_b;
    g.alpha = alpha;
    g.batch = batch;
    g.stride_a = stride_a; g.stride_b = stride_b; g.stride_d = stride_d;
    return ak_gemm(ctx, &g, stream);
}

/* Pooling over ndim spatial dimensions with the same kernel / stride / padding / dilation in each (KernelBench's
 * modules take one int for all). */
ak_result kb_pool(ak_context* ctx, int kind, int dtype, int ndim, size_t batch, size_t channels, const size_t* in,
                  size_t kernel, size_t stride, size_t padding, size_t dilation, int ceil_mode, int count_include_pad,
                  const void* x, void* y, int64_t* indices, ak_stream* stream);
ak_result kb_pool(ak_context* ctx, int kind, int dtype, int ndim, size_t batch, size_t channels, const size_t* in,
                  size_t kernel, size_t stride, size_t padding, size_t dilation, int ceil_mode, int count_include_pad,
                  const void* x, void* y, int64_t* indices, ak_stream* stream) {
    ak_pool_args p;
    int i;
    memset(&p, 0, sizeof p);
    p.kind = (ak_pool_kind)kind;
    p.dtype = (ak_dtype)dtype;
    p.ndim = ndim;
    p.batch = batch;
    p.channels = channels;
    for (i = 0; i < ndim && i < 3; i++) {
        p.in[i] = in[i];
        p.kernel[i] = kernel;
        p.stride[i] = stride;
        p.padding[i] = padding;
        p.dilation[i] = dilation;
    }
    p.ceil_mode = ceil_mode;
    p.count_include_pad = count_include_pad;
    p.x = x;
    p.y = y;
    p.indices = indices;
    return ak_pool(ctx, &p, stream);
}

/* Convolution (ak_conv, channels-first) over ndim spatial dimensions, each spatial parameter an array of ndim
 * values (torch's module attributes); bias NULL for none. */
ak_result kb_conv(ak_context* ctx, int dtype, int ndim, int transposed, size_t batch, size_t in_channels,
                  size_t out_channels, size_t groups, const size_t* in, const size_t* kernel, const size_t* stride,
                  const size_t* padding, const size_t* dilation, const size_t* output_padding, const void* x,
                  const void* w, const void* bias, void* y, ak_stream* stream);
ak_result kb_conv(ak_context* ctx, int dtype, int ndim, int transposed, size_t batch, size_t in_channels,
                  size_t out_channels, size_t groups, const size_t* in, const size_t* kernel, const size_t* stride,
                  const size_t* padding, const size_t* dilation, const size_t* output_padding, const void* x,
                  const void* w, const void* bias, void* y, ak_stream* stream) {
    ak_conv_desc d;
    int i;
    memset(&d, 0, sizeof d);
    d.dtype = (ak_dtype)dtype;
    d.ndim = ndim;
    d.layout = AK_CONV_CHANNELS_FIRST;
    d.batch = batch;
    d.in_channels = in_channels;
    d.out_channels = out_channels;
    d.groups = groups;
    d.transposed = transposed;
    for (i = 0; i < ndim && i < 3; i++) {
        d.in[i] = in[i];
        d.kernel[i] = kernel[i];
        d.stride[i] = stride[i];
        d.padding[i] = padding[i];
        d.dilation[i] = dilation[i];
        d.output_padding[i] = output_padding[i];
    }
    d.x = x;
    d.w = w;
    d.bias = bias;
    d.y = y;
    return ak_conv(ctx, &d, stream);
}
