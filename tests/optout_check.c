/* The compile-time opt-outs (`make test` header-build steps): built with
 * -DAMDKIT_NO_HIP -DAMDKIT_NO_CUDA -DAMDKIT_NO_OPS it must still compile and
 * run user kernels on the cpu backend, report the GPU backends as compiled
 * out, and refuse offline compiles for their targets; without the flags
 * (control build) the embedded kernel library is there. */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <string.h>

static int failed;
#define CHECK(c) do { if (!(c)) { printf("FAIL %s:%d: %s (%s)\n", __FILE__, __LINE__, #c, ak_last_error()); failed++; } } while (0)

static void scale_cpu(const ak_launch_info* info, void** args) {
    float* x = *(float**)args[0];
    (void)info;
    x[0] *= 2.0f;
}

int main(void) {
    ak_backend_report rep[3];
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    ak_kernel* k = NULL;
    ak_code_object co;
    void* d = NULL;
    float h = 1.5f;
    ak_args a;
    ak_dim3 one = { 1, 1, 1 };
    const char* src = "AK_KERNEL void twice(float* x) { x[0] *= 2.0f; }\n";
    ak_probe_backends(rep);
    cfg.backend = AK_BACKEND_AUTO;
    cfg.disk_cache = 0;
    cfg.log_level = AK_LOG_NONE;
#if defined(AMDKIT_NO_HIP) && defined(AMDKIT_NO_CUDA)
    CHECK(strstr(rep[0].reason, "compiled out (AMDKIT_NO_HIP)") != NULL);
    CHECK(strstr(rep[1].reason, "compiled out (AMDKIT_NO_CUDA)") != NULL);
#else
    cfg.backend = AK_BACKEND_CPU;
#endif
    CHECK(ak_context_create(&cfg, &ctx) == AK_OK);
    if (!ctx) return 1;
    CHECK(ak_context_device(ctx)->backend == AK_BACKEND_CPU);
    CHECK(ak_prelude_source()[0] != 0);
    CHECK(ak_kernel_get(ctx, src, "twice", NULL, &k) == AK_OK);
    if (k) {
        ak_kernel_set_cpu(k, scale_cpu, NULL);
        memset(&a, 0, sizeof a);
        CHECK(ak_malloc(ctx, sizeof h, NULL, &d) == AK_OK);
        CHECK(ak_memcpy(ctx, d, &h, sizeof h, AK_H2D) == AK_OK);
        ak_args_ptr(&a, d);
        CHECK(ak_launch(k, one, one, 0, NULL, ak_args_params(&a)) == AK_OK);
        CHECK(ak_memcpy(ctx, &h, d, sizeof h, AK_D2H) == AK_OK);
        CHECK(h == 3.0f);
        ak_free(ctx, d);
        ak_kernel_release(k);
    }
#ifdef AMDKIT_NO_HIP
    CHECK(ak_compile_offline(ctx, "gfx90a", src, "twice", NULL, &co) == AK_ERROR_BACKEND_UNAVAILABLE);
    CHECK(strstr(ak_last_error(), "AMDKIT_NO_HIP") != NULL);
#endif
#ifdef AMDKIT_NO_CUDA
    CHECK(ak_compile_offline(ctx, "sm_80", src, "twice", NULL, &co) == AK_ERROR_BACKEND_UNAVAILABLE);
    CHECK(strstr(ak_last_error(), "AMDKIT_NO_CUDA") != NULL);
#endif
#ifndef AMDKIT_NO_OPS
    CHECK(ak_embedded_count() > 0);
    CHECK(ak_fill(ctx, AK_F32, &h, 1, 4.0f, NULL) == AK_OK && h == 4.0f);
#endif
    (void)co;
    ak_context_destroy(ctx);
    printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
    return failed ? 1 : 0;
}
