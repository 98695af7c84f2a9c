/* ti_rocm.c - issue 8, with the context's internals: what the device probe
 * learned is used (an op on a dtype whose probe failed is an error, not a
 * launch), and the kernel getters. Included by test_main.c. */

static void probe_failure_blocks_ops(void) {
    ak_context* ctx = akt_cpu_context("rocm_probe");
    void* buf = NULL;
    if (!ctx) return;
    AKT_OK(ak_malloc(ctx, 64 * 4, NULL, &buf));
    AKT_OK(ak_fill(ctx, AK_F16, buf, 64, 1.0f, NULL));
    ctx->dev.fp16 = 0; /* as ak_context_probe leaves it when the fp16 kernel fails on a device */
    AKT_ERR_ITEM(ak_fill(ctx, AK_F16, buf, 64, 1.0f, NULL), AK_ERROR_DEVICE, AK_ERRITEM_RUNTIME_CALL);
    AKT_CONTAINS(ak_last_error(), "f16");
    AKT_CONTAINS(ak_last_error(), "probe");
    AKT_OK(ak_fill(ctx, AK_BF16, buf, 64, 1.0f, NULL)); /* the others still work */
    AKT_OK(ak_fill(ctx, AK_F32, buf, 64, 1.0f, NULL));
    ctx->dev.bf16 = 0;
    AKT_ERR_ITEM(ak_scale(ctx, AK_BF16, buf, buf, 64, 2.0f, NULL), AK_ERROR_DEVICE, AK_ERRITEM_RUNTIME_CALL);
    ctx->dev.fp16 = -1; /* not probed: allowed */
    ctx->dev.bf16 = 1;
    AKT_OK(ak_fill(ctx, AK_F16, buf, 64, 1.0f, NULL));
    AKT_OK(ak_free(ctx, buf));
    ak_context_destroy(ctx);
}

static void kernel_getters(void) {
    ak_context* ctx = akt_cpu_context("rocm_getters");
    ak_kernel* k = NULL;
    if (!ctx) return;
    AKT_OK(ak_kernel_get(ctx, "extern \"C\" __global__ void ak_g(float* x) { x[0] = 1; }", "ak_g", NULL, &k));
    AKT_EQ_STR(ak_kernel_name(k), "ak_g");
    AKT_EQ_STR(ak_kernel_target(k), "cpu");        /* no device code on the cpu backend */
    AKT_CHECK(ak_kernel_code_size(k) == 0);
    ak_kernel_release(k);
    AKT_EQ_STR(ak_kernel_name(NULL), "");
    AKT_EQ_STR(ak_kernel_target(NULL), "");
    AKT_CHECK(ak_kernel_code_size(NULL) == 0);
    ak_context_destroy(ctx);
}

void akt_suite_rocm_internals(void) {
    AKT_RUN(probe_failure_blocks_ops);
    AKT_RUN(kernel_getters);
}
