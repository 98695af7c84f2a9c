/* hello.c: a kernel compiled at run time (on the cpu backend: its C version) runs on pooled device memory.
 * Build: cc -std=c99 hello.c -ldl -lpthread -lm   (amdkit.h beside it; `make` builds it as build/hello) */
#define AMDKIT_IMPLEMENTATION      /* in exactly one .c file */
#include "amdkit.h"

static const char* src =
    "AK_KERNEL void scale(float* x, float a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] *= a;\n"
    "}\n";

/* The same kernel in C: what the cpu backend runs, and what ak_check compares against. */
static void scale_cpu(const ak_launch_info* info, void** args) {
    float* x = *(float**)args[0]; float a = *(float*)args[1]; int n = *(int*)args[2], i;
    (void)info;
    for (i = 0; i < n; i++) x[i] *= a;
}

int main(void) {
    ak_context* ctx;
    ak_kernel* k;
    void* d;
    float first[4];
    ak_args a = {0};
    int n = 1 << 20;
    if (ak_context_create(NULL, &ctx) != AK_OK) { puts(ak_last_error()); return 1; }
    if (ak_malloc(ctx, n * sizeof(float), NULL, &d) != AK_OK)   /* pooled device memory */
        { puts(ak_last_error()); ak_context_destroy(ctx); return 1; }
    ak_fill(ctx, AK_F32, d, n, 1.0f, NULL);                      /* a library kernel */
    if (ak_kernel_get(ctx, src, "scale", NULL, &k) != AK_OK)     /* compiled once, then cached */
        { puts(ak_last_error()); puts(ak_last_error_info()->log); return 1; }
    ak_kernel_set_cpu(k, scale_cpu, NULL);
    ak_args_ptr(&a, d); ak_args_f32(&a, 3.0f); ak_args_i32(&a, n);
    if (ak_launch(k, (ak_dim3){(n + 255) / 256, 1, 1}, (ak_dim3){256, 1, 1}, 0, NULL, ak_args_params(&a)) != AK_OK)
        { puts(ak_last_error()); return 1; }
    if (ak_memcpy(ctx, first, d, sizeof first, AK_D2H) != AK_OK)  /* waits for the kernel */
        { puts(ak_last_error()); return 1; }
    printf("%s (%s backend): x[0..3] = %g %g %g %g (expected 3)\n", ak_context_device(ctx)->name,
           ak_backend_name(ak_context_device(ctx)->backend), first[0], first[1], first[2], first[3]);
    ak_kernel_release(k); ak_free(ctx, d); ak_context_destroy(ctx);
    return first[0] == 3.0f ? 0 : 1;
}
