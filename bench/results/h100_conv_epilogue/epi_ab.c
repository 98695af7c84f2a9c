/* A/B of the convolution activation epilogue (act NONE / GELU / RELU), median ms of 15 launches between events.
 * Build against a tree: cc -std=c99 -O2 -D_GNU_SOURCE -I TREE epi_ab.c -o epi_ab -ldl -lpthread -lm
 * (the call_per_element_* files came from an earlier list that also timed two GEMMs and act SILU) */
#define AMDKIT_IMPLEMENTATION
#include "amdkit.h"
#include <stdio.h>
#include <stdlib.h>

static ak_context* ctx;
static ak_event *e0, *e1;

static double med(double* t, int n) {
    int i, j;
    for (i = 1; i < n; i++) for (j = i; j > 0 && t[j] < t[j - 1]; j--) { double x = t[j]; t[j] = t[j - 1]; t[j - 1] = x; }
    return t[n / 2];
}
static void* dev(size_t bytes) {
    void* p = NULL;
    if (ak_malloc(ctx, bytes, NULL, &p) != AK_OK) { printf("malloc: %s\n", ak_last_error()); exit(1); }
    ak_memset(ctx, p, 0x31, bytes, NULL);
    return p;
}
static size_t esz(ak_dtype t) { return t == AK_F32 ? 4 : 2; }

static void conv(const char* name, ak_dtype dt, ak_conv_layout lay, size_t n, size_t c, size_t k, size_t h, size_t ks, size_t groups, int act) {
    ak_conv_desc d;
    size_t out[3];
    double t[15];
    int i;
    ak_conv_plan pl;
    memset(&d, 0, sizeof d);
    d.dtype = dt; d.ndim = 2; d.layout = lay; d.batch = n; d.in_channels = c; d.out_channels = k; d.groups = groups;
    d.in[0] = d.in[1] = h; d.kernel[0] = d.kernel[1] = ks; d.padding[0] = d.padding[1] = ks / 2; d.activation = act;
    d.act_param = 0.01f;
    ak_conv_output_shape(&d, out);
    d.x = dev(n * c * h * h * esz(dt));
    d.w = dev(k * (c / (groups ? groups : 1)) * ks * ks * esz(dt));
    d.bias = dev(k * esz(dt));
    d.y = dev(n * k * out[0] * out[1] * esz(dt));
    ak_conv_plan_get(ctx, &d, &pl);
    for (i = 0; i < 18; i++) {
        float ms = 0;
        ak_event_record(e0, NULL);
        if (ak_conv(ctx, &d, NULL) != AK_OK) { printf("%s: %s\n", name, ak_last_error()); return; }
        ak_event_record(e1, NULL);
        ak_event_synchronize(e1);
        ak_event_elapsed_ms(e0, e1, &ms);
        if (i >= 3) t[i - 3] = ms;
    }
    printf("conv %-14s act %d  %-10s %-28s %.4f ms\n", name, act, pl.path, pl.kernel, med(t, 15));
    ak_free(ctx, (void*)d.x); ak_free(ctx, (void*)d.w); ak_free(ctx, (void*)d.bias); ak_free(ctx, d.y);
}

int main(void) {
    static const int acts[] = { AK_OP_NONE, AK_OP_GELU, AK_OP_RELU };
    int a;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (ak_context_create(NULL, &ctx) != AK_OK) { printf("ctx: %s\n", ak_last_error()); return 1; }
    ak_event_create(ctx, &e0); ak_event_create(ctx, &e1);
    for (a = 0; a < 3; a++) {
        conv("dwv-f16", AK_F16, AK_CONV_CHANNELS_FIRST, 16, 64, 64, 112, 3, 64, acts[a]);
        conv("dwv-f32", AK_F32, AK_CONV_CHANNELS_FIRST, 16, 64, 64, 112, 3, 64, acts[a]);
        conv("dwv-bf16-k7", AK_BF16, AK_CONV_CHANNELS_FIRST, 8, 96, 96, 160, 7, 96, acts[a]);
        conv("dw-f32-nhwc", AK_F32, AK_CONV_CHANNELS_LAST, 16, 64, 64, 112, 3, 64, acts[a]);
        conv("f16-nchw-c3", AK_F16, AK_CONV_CHANNELS_FIRST, 16, 3, 64, 224, 7, 1, acts[a]);
    }
    ak_context_destroy(ctx);
    return 0;
}
