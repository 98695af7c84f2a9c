/* tests/at_walk_pool.h: the ak_pool calls that reach every pooling kernel and
 * launch form (max at 4 outputs a thread, average, a larger window, max with
 * indices at 1 a thread, 1-D, 3-D with strides and dilation). The kargs walk
 * (tests/ti_kargs.c) and the launch-plan sweep (tests/ak_launch_plans.c) make
 * the same calls; `check` gets each call's result. x: 20 x 30 planes of 2 x 3
 * (and the 1-D / 3-D extents below) of dtype d; y and idx as large. */
#ifndef AK_AT_WALK_POOL_H
#define AK_AT_WALK_POOL_H
static void akw_pool_calls(ak_context* c, ak_dtype d, const void* x, void* y, int64_t* idx, void (*check)(ak_result)) {
    ak_pool_args pa;
    memset(&pa, 0, sizeof pa);
    pa.dtype = d; pa.ndim = 2; pa.batch = 2; pa.channels = 3; pa.in[0] = 20; pa.in[1] = 30; pa.kernel[0] = 3; pa.kernel[1] = 3;
    pa.x = x; pa.y = y;
    pa.kind = AK_POOL_MAX;
    check(ak_pool(c, &pa, NULL));                    /* max: 4 outputs a thread */
    pa.kind = AK_POOL_AVG;
    check(ak_pool(c, &pa, NULL));                    /* average */
    pa.kernel[0] = pa.kernel[1] = 11;
    check(ak_pool(c, &pa, NULL));                    /* a larger window */
    pa.kind = AK_POOL_MAX;
    pa.indices = idx;
    pa.kernel[0] = pa.kernel[1] = 3;
    check(ak_pool(c, &pa, NULL));                    /* max with indices: 1 a thread */
    pa.indices = NULL;
    pa.ndim = 1; pa.in[0] = 5000; pa.kernel[0] = 8; pa.dilation[0] = 3;
    check(ak_pool(c, &pa, NULL));                    /* 1-D, groups of 8 */
    pa.ndim = 3; pa.in[0] = 9; pa.in[1] = 40; pa.in[2] = 70; pa.kernel[0] = pa.kernel[1] = pa.kernel[2] = 3;
    pa.stride[0] = pa.stride[1] = pa.stride[2] = 2; pa.dilation[0] = pa.dilation[1] = pa.dilation[2] = 3;
    check(ak_pool(c, &pa, NULL));                    /* 3-D, strides, dilation */
}
#endif
