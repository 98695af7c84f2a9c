/* Suite gpu_conv (runs with --gpu, needs a GPU): ak_conv on the device
 * against its CPU reference (the same call on a cpu context) on fresh random
 * inputs, the output poisoned with 0xFF bytes and a guard after it: standard
 * and transposed, 1-D / 2-D / 3-D, odd extents and channel counts (partial
 * tiles in every direction, k past one tile), stride, padding, dilation,
 * groups, depthwise, output_padding, both layouts, bias and activation,
 * every dtype, exact f32 and f32 as TF32 (config.allow_tf32). Tolerance:
 * relative to the sum of |x w| terms (the dtype's rounding of the inputs
 * and of the output, TF32 rounding when allowed). */
#include "ak_test.h"
#include <stdlib.h>
#include <stdint.h>

static ak_context* g_gpu;
static ak_context* g_tf32;
static ak_context* g_cpu;
static unsigned long long g_rng;
#define GC_PAD 256

static int gc_setup(void) {
    if (!g_gpu) {
        ak_config cfg = ak_config_default();
        if (!(g_gpu = akt_gpu_context(NULL))) return 0;
        g_rng = akt_seed() ^ 0xC0417ull;
        cfg.allow_tf32 = 1;
        cfg.log_level = AK_LOG_NONE;
        if (!(g_tf32 = akt_gpu_context(&cfg))) return 0;
    }
    if (!g_cpu) g_cpu = akt_cpu_context("gpu_conv_ref");
    return g_cpu != NULL;
}

typedef struct {
    int ndim, tr, cl, act, bias;
    size_t n, ci, co, g, in[3], k[3], s[3], p[3], d[3], op[3];
} gc_case;

static void gc_run(const gc_case* c, ak_dtype t, int tf32) {
    ak_conv_desc a;
    ak_context* dev = tf32 ? g_tf32 : g_gpu;
    size_t out[3], ivol = 1, ovol = 1, nx, ny, nw, taps = 1, i, bad = 0, es = ak_dtype_size(t), G = c->g ? c->g : 1;
    void *hx = NULL, *hw = NULL, *hb = NULL, *gy = NULL, *cy = NULL, *dx = NULL, *dw = NULL, *db = NULL, *dy = NULL;
    double* mag = NULL;
    unsigned char guard[GC_PAD];
    int j;
    memset(&a, 0, sizeof a);
    a.dtype = t; a.ndim = c->ndim; a.layout = c->cl ? AK_CONV_CHANNELS_LAST : AK_CONV_CHANNELS_FIRST;
    a.batch = c->n; a.in_channels = c->ci; a.out_channels = c->co; a.groups = c->g; a.transposed = c->tr;
    for (j = 0; j < c->ndim; j++) {
        a.in[j] = c->in[j]; a.kernel[j] = c->k[j]; a.stride[j] = c->s[j]; a.padding[j] = c->p[j]; a.dilation[j] = c->d[j];
        a.output_padding[j] = c->op[j];
    }
    a.activation = c->act;
    a.act_param = 0.1f;
    AKT_OK(ak_conv_output_shape(&a, out));
    for (j = 0; j < c->ndim; j++) { ivol *= c->in[j]; ovol *= out[j]; taps *= c->k[j]; }
    nx = c->n * c->ci * ivol; ny = c->n * c->co * ovol;
    nw = (c->tr ? c->ci * (c->co / G) : c->co * (c->ci / G)) * taps;
    hx = malloc(nx * es); hw = malloc(nw * es); hb = malloc(c->co * es); gy = malloc(ny * es); cy = malloc(ny * es);
    mag = (double*)malloc(ny * sizeof(double));
    if (!hx || !hw || !hb || !gy || !cy || !mag) { akt_fail(__FILE__, __LINE__, "host OOM"); goto done; }
    for (i = 0; i < nx; i++) ak_elem_set(hx, t, i, akt_uniform(&g_rng, -1, 1));
    for (i = 0; i < nw; i++) ak_elem_set(hw, t, i, akt_uniform(&g_rng, -1, 1));
    for (i = 0; i < c->co; i++) ak_elem_set(hb, t, i, akt_uniform(&g_rng, -1, 1));
    if (ak_malloc(dev, nx * es, NULL, &dx) != AK_OK || ak_malloc(dev, nw * es, NULL, &dw) != AK_OK ||
        ak_malloc(dev, c->co * es, NULL, &db) != AK_OK || ak_malloc(dev, ny * es + GC_PAD, NULL, &dy) != AK_OK) {
        akt_fail(__FILE__, __LINE__, "device OOM: %s", ak_last_error());
        goto done;
    }
    AKT_OK(ak_memcpy(dev, dx, hx, nx * es, AK_H2D));
    AKT_OK(ak_memcpy(dev, dw, hw, nw * es, AK_H2D));
    AKT_OK(ak_memcpy(dev, db, hb, c->co * es, AK_H2D));
    AKT_OK(ak_memset(dev, dy, 0xFF, ny * es + GC_PAD, NULL));
    a.x = dx; a.w = dw; a.bias = c->bias ? db : NULL; a.y = dy;
    AKT_OK(ak_conv(dev, &a, NULL));
    AKT_OK(ak_device_synchronize(dev));
    AKT_OK(ak_memcpy(dev, gy, dy, ny * es, AK_D2H));
    AKT_OK(ak_memcpy(dev, guard, (char*)dy + ny * es, GC_PAD, AK_D2H));
    for (i = 0; i < GC_PAD; i++) if (guard[i] != 0xFF) { akt_fail(__FILE__, __LINE__, "conv wrote past y"); break; }
    a.x = hx; a.w = hw; a.bias = c->bias ? hb : NULL; a.y = cy;
    AKT_OK(ak_conv(g_cpu, &a, NULL));
    /* the magnitude of each output's sum: the same convolution of |x| and |w| (no bias, no activation) */
    {
        void *ax = malloc(nx * 4), *aw = malloc(nw * 4), *ay = malloc(ny * 4);
        if (ax && aw && ay) {
            ak_conv_desc m = a;
            for (i = 0; i < nx; i++) ((float*)ax)[i] = (float)fabs(ak_elem_get(hx, t, i));
            for (i = 0; i < nw; i++) ((float*)aw)[i] = (float)fabs(ak_elem_get(hw, t, i));
            m.dtype = AK_F32; m.x = ax; m.w = aw; m.y = ay; m.bias = NULL; m.activation = 0;
            AKT_OK(ak_conv(g_cpu, &m, NULL));
            for (i = 0; i < ny; i++) mag[i] = ((float*)ay)[i] + 1.0;
        } else {
            akt_fail(__FILE__, __LINE__, "host OOM");
        }
        free(ax); free(aw); free(ay);
    }
    for (i = 0; i < ny; i++) {
        const double g = ak_elem_get(gy, t, i), r = ak_elem_get(cy, t, i);
        const double eps = t == AK_F16 ? 2e-3 : t == AK_BF16 ? 1.6e-2 : tf32 ? 2e-3 : 2e-6;
        if (!(fabs(g - r) <= eps * mag[i]) && !bad++)
            akt_fail(__FILE__, __LINE__, "conv %dd%s%s %s%s: output %zu of %zu: %.9g vs %.9g", c->ndim, c->tr ? " transposed" : "",
                     c->cl ? " channels-last" : "", ak_dtype_name(t), tf32 ? " tf32" : "", i, ny, g, r);
    }
done:
    ak_free(dev, dx); ak_free(dev, dw); ak_free(dev, db); ak_free(dev, dy);
    free(hx); free(hw); free(hb); free(gy); free(cy); free(mag);
}

static void test_gpu_conv(void) {
    static const gc_case cases[] = {
        /* ndim tr cl act bias  n ci co g   in   k   s   p   d   op */
        { 2, 0, 0, 0, 1,          3, 3, 13, 1, { 23, 29 }, { 5, 5 }, { 2, 2 }, { 2, 2 }, { 1, 1 }, { 0 } },          /* 50-like */
        { 2, 0, 0, AK_OP_RELU, 0, 2, 37, 70, 1, { 13, 11 }, { 3, 4 }, { 1, 1 }, { 1, 2 }, { 1, 1 }, { 0 } },     /* k past tiles, co past 64 */
        { 2, 0, 1, 0, 1,          2, 12, 20, 1, { 9, 17 }, { 3, 3 }, { 1, 2 }, { 1, 1 }, { 2, 1 }, { 0 } },        /* channels-last */
        { 1, 0, 0, 0, 0,          3, 19, 33, 1, { 301 }, { 3 }, { 3 }, { 0 }, { 4 }, { 0 } },                      /* 76-like */
        { 3, 0, 0, 0, 1,          2, 3, 17, 1, { 9, 10, 11 }, { 3, 5, 7 }, { 1, 1, 1 }, { 1, 2, 3 }, { 1, 1, 1 }, { 0 } },
        { 3, 0, 1, AK_OP_LEAKY_RELU, 0, 1, 6, 9, 3, { 7, 6, 9 }, { 2, 3, 2 }, { 2, 1, 1 }, { 0, 1, 1 }, { 1, 1, 2 }, { 0 } },
        { 2, 0, 0, 0, 0,          2, 10, 14, 2, { 15, 13 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 } },        /* groups */
        { 2, 0, 0, 0, 1,          2, 7, 7, 7, { 33, 35 }, { 3, 5 }, { 1, 2 }, { 1, 2 }, { 2, 1 }, { 0 } },          /* depthwise */
        { 2, 0, 1, AK_OP_RELU, 0, 2, 5, 10, 5, { 12, 13 }, { 3, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0 } },      /* depthwise x2 */
        /* depthwise channels-first with the window of a 64 x 32 tile in shared memory: partial tiles, 3-D, 1-D */
        { 2, 0, 0, 0, 1,          2, 3, 6, 3, { 45, 70 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 } },
        { 3, 0, 0, AK_OP_RELU, 0, 1, 4, 4, 4, { 5, 37, 66 }, { 3, 3, 3 }, { 2, 2, 1 }, { 1, 1, 1 }, { 1, 1, 2 }, { 0 } },
        { 1, 0, 0, 0, 1,          3, 5, 5, 5, { 200 }, { 5 }, { 1 }, { 6 }, { 3 }, { 0 } },
        /* depthwise stride 1 (32-row tiles of 16-byte chunks): 2 output channels an input one, rows longer than a tile
         * and not a multiple of the vector, unaligned rows (element loads), padding past a vector, kernel widths 1, 2,
         * 3, 4, 7 (zero taps past the width), dilation in height, a plane smaller than a tile, 3-D, 1-D */
        { 2, 0, 0, AK_OP_LEAKY_RELU, 1, 2, 5, 10, 5, { 37, 300 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 } },
        { 2, 0, 0, 0, 0,          1, 3, 3, 3, { 70, 131 }, { 5, 7 }, { 1, 1 }, { 2, 9 }, { 3, 1 }, { 0 } },
        { 2, 0, 0, AK_OP_RELU, 1, 2, 4, 4, 4, { 9, 13 }, { 2, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0 } },
        { 3, 0, 0, 0, 1,          1, 2, 2, 2, { 4, 11, 21 }, { 3, 3, 4 }, { 2, 1, 1 }, { 1, 2, 1 }, { 2, 2, 1 }, { 0 } },
        { 1, 0, 0, 0, 0,          3, 6, 6, 6, { 517 }, { 3 }, { 1 }, { 1 }, { 1 }, { 0 } },
        { 2, 0, 0, 0, 1,          1, 2, 2, 2, { 66, 264 }, { 1, 2 }, { 1, 1 }, { 0, 5 }, { 1, 1 }, { 0 } },
        { 2, 0, 0, 0, 0,          2, 33, 65, 1, { 17, 19 }, { 1, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0 } },        /* pointwise */
        { 2, 0, 1, AK_OP_RELU, 1, 3, 19, 37, 1, { 7, 11 }, { 1, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0 } },    /* pointwise NHWC: ak_gemm */
        /* channel counts multiples of 8: the vector loader (16-bit dtypes on the matrix cores) */
        { 2, 0, 1, AK_OP_RELU, 1, 2, 24, 70, 1, { 13, 15 }, { 3, 3 }, { 2, 1 }, { 1, 2 }, { 1, 2 }, { 0 } },  /* NHWC, channel tail */
        { 2, 0, 0, 0, 1,          3, 48, 33, 1, { 11, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 } },          /* NCHW: copied NHWC */
        { 3, 1, 0, 0, 0,          2, 64, 24, 2, { 4, 5, 6 }, { 2, 3, 3 }, { 1, 1, 1 }, { 1, 1, 2 }, { 1, 2, 1 }, { 0 } },  /* transposed s1 */
        { 2, 1, 0, AK_OP_RELU, 1, 2, 32, 72, 1, { 9, 10 }, { 3, 5 }, { 1, 1 }, { 1, 2 }, { 1, 1 }, { 0 } },      /* transposed, co past 64 */
        { 1, 1, 1, AK_OP_LEAKY_RELU, 1, 3, 64, 20, 1, { 37 }, { 5 }, { 1 }, { 3 }, { 2 }, { 0 } },
        { 3, 0, 1, 0, 0,          1, 48, 16, 2, { 5, 6, 7 }, { 3, 3, 3 }, { 1, 2, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 0 } },   /* grouped NDHWC */
        { 1, 1, 0, AK_OP_LEAKY_RELU, 0, 3, 20, 9, 1, { 45 }, { 1 }, { 1 }, { 0 }, { 1 }, { 0 } },         /* transposed pointwise */
        { 3, 1, 1, 0, 1,          2, 13, 24, 1, { 3, 4, 5 }, { 1, 1, 1 }, { 1, 1, 1 }, { 0, 0, 0 }, { 1, 1, 1 }, { 0 } },
        { 1, 1, 0, 0, 1,          2, 21, 35, 1, { 97 }, { 3 }, { 2 }, { 1 }, { 2 }, { 1 } },                         /* 79-like */
        { 2, 1, 0, 0, 0,          2, 8, 18, 2, { 11, 13 }, { 3, 5 }, { 2, 3 }, { 1, 2 }, { 2, 1 }, { 1, 0 } },      /* 75-like */
        { 2, 1, 1, AK_OP_RELU, 1, 1, 9, 11, 1, { 10, 12 }, { 3, 7 }, { 1, 1 }, { 1, 3 }, { 1, 1 }, { 0, 0 } },
        { 3, 1, 0, 0, 0,          2, 8, 8, 4, { 5, 6, 7 }, { 3, 5, 7 }, { 2, 2, 2 }, { 1, 2, 3 }, { 1, 1, 1 }, { 1, 1, 1 } },  /* 72 */
        { 3, 1, 0, 0, 1,          1, 6, 10, 1, { 4, 5, 6 }, { 3, 3, 3 }, { 5, 2, 1 }, { 1, 1, 0 }, { 2, 2, 1 }, { 0, 1, 0 } },
        /* transposed, strides > 1: the sub-pixel phases (phases without taps: bias only; dilation sharing a factor
         * with the stride; channel counts multiples of 8: the vector loader over a phase's taps) */
        { 2, 1, 1, AK_OP_RELU, 1, 2, 11, 13, 1, { 9, 7 }, { 3, 3 }, { 5, 5 }, { 1, 1 }, { 2, 2 }, { 0, 3 } },   /* 81-like */
        { 2, 1, 0, 0, 1,          2, 6, 9, 3, { 8, 7 }, { 3, 4 }, { 3, 4 }, { 1, 0 }, { 3, 2 }, { 2, 1 } },      /* d = s, d | s */
        { 2, 1, 0, AK_OP_LEAKY_RELU, 1, 2, 32, 24, 1, { 9, 11 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, { 1, 0 } },  /* vector */
        { 3, 1, 1, 0, 0,          2, 64, 40, 2, { 4, 5, 6 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 2, 2, 2 }, { 0, 1, 1 } }, /* 77-like */
        { 1, 1, 0, 0, 0,          1, 40, 72, 1, { 29 }, { 7 }, { 3 }, { 2 }, { 1 }, { 2 } },                       /* vector, 1-D */
        /* Hopper's wgmma kernel (sm_90, 16-bit, channel counts multiples of 8): k chunks of 8 channels across the taps
         * (8, 16, 24 channels a group), row and column tiles past the edges, both tile widths, groups, padding, stride,
         * dilation, transposed with stride 1, one k tile and many, both output layouts */
        { 2, 0, 0, AK_OP_RELU, 1, 2, 8, 136, 1, { 21, 19 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 } },
        { 2, 0, 1, AK_OP_LEAKY_RELU, 1, 3, 48, 130, 2, { 17, 23 }, { 3, 2 }, { 2, 1 }, { 1, 0 }, { 1, 2 }, { 0 } },
        { 3, 1, 0, 0, 1,          2, 16, 40, 1, { 6, 7, 9 }, { 3, 3, 3 }, { 1, 1, 1 }, { 1, 0, 2 }, { 2, 1, 1 }, { 0 } },
        { 1, 0, 1, 0, 0,          2, 128, 72, 1, { 300 }, { 5 }, { 1 }, { 2 }, { 1 }, { 0 } },
        { 2, 0, 0, 0, 0,          1, 8, 32, 1, { 9, 9 }, { 1, 3 }, { 1, 1 }, { 0, 1 }, { 1, 1 }, { 0 } },
        { 2, 1, 1, AK_OP_RELU, 1, 2, 64, 200, 1, { 12, 35 }, { 3, 3 }, { 1, 1 }, { 2, 0 }, { 1, 3 }, { 0 } },
        /* ... and its sub-pixel phases: 8 channels a group (72 / 75-like), phases without taps (81-like), 130 columns */
        { 2, 1, 0, 0, 1,          2, 32, 64, 4, { 11, 13 }, { 3, 5 }, { 2, 3 }, { 1, 2 }, { 2, 1 }, { 1, 0 } },
        { 2, 1, 1, AK_OP_RELU, 1, 2, 16, 24, 1, { 9, 7 }, { 3, 3 }, { 5, 5 }, { 1, 1 }, { 2, 2 }, { 0, 3 } },
        { 1, 1, 1, 0, 1,          2, 24, 130, 1, { 37 }, { 4 }, { 2 }, { 1 }, { 1 }, { 1 } },
        { 3, 1, 0, AK_OP_LEAKY_RELU, 0, 1, 16, 40, 1, { 5, 6, 7 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, { 2, 1, 2 }, { 0, 1, 1 } },
    };
    static const ak_dtype types[3] = { AK_F32, AK_F16, AK_BF16 };
    size_t ci, ti;
    if (!gc_setup()) return;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        for (ti = 0; ti < 3; ti++) gc_run(&cases[ci], types[ti], 0);
        gc_run(&cases[ci], AK_F32, 1);
    }
}

static void test_gpu_conv_cleanup(void) {
    if (g_gpu) ak_context_destroy(g_gpu);
    if (g_tf32) ak_context_destroy(g_tf32);
    if (g_cpu) ak_context_destroy(g_cpu);
    g_gpu = g_tf32 = g_cpu = NULL;
}

void akt_suite_gpu_conv(void) {
    AKT_RUN(test_gpu_conv);
    AKT_RUN(test_gpu_conv_cleanup);
}
