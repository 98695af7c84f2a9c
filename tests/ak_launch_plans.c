/* ak_launch_plans - every launch the kernel library would make on a named
 * architecture, from the real planners, without a GPU.
 *
 *   ak_launch_plans [--arch amd|T1,T2,...] [--coverage]
 *
 * For each target: a cpu-backend context whose device is described by the
 * target's row of the architecture table (compute units, wave size, LDS,
 * launch limits) and whose backend table is the cpu one with two changes:
 * buffers are not host memory (so every op takes its device path: the
 * planners, the kernel choice, the geometry), and launches are recorded
 * instead of run. Every public op of the kernel library is then called over
 * a sweep of shapes, dtypes, layouts, alignments and the configurations a
 * user can set (matrix_cores on / off, allow_tf32); buffers live in one
 * large reservation that is never touched by the kernels (nothing runs).
 *
 * Prints one line per distinct launch:
 *   <target> <wave> <lds_bytes> <family> <kernel> <block threads> <dynamic LDS bytes>
 * where wave is the AK_WAVE the host injects when it compiles for the target
 * (the same function ak_kernel_get uses) and lds_bytes the table's LDS per
 * workgroup. tests/launch_plan_check.sh compares these lines with the code
 * objects' metadata (.max_flat_workgroup_size, .group_segment_fixed_size,
 * .wavefront_size, scratch). --coverage adds, on stderr, the kernels of the
 * embedded families that no plan of any listed target launches; the exit
 * status is 1 when a kernel is missing that is not expected to be
 * (not_planned() names those, with the reason), so a new kernel cannot
 * escape the check by never being planned here. */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include "ak_archdev.h"
#include "at_walk_pool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MAXP 8192
typedef struct plan { char kernel[96]; unsigned block; size_t shmem; } plan;
static plan plans[MAXP];
static int nplans, overflow;
static long calls, errors;
static int host_wave;   /* the AK_WAVE the host injects when it compiles for the target */

static ak_result rec_launch(ak_kernel* k, ak_dim3 g, ak_dim3 b, size_t sh, ak_stream* st, void** args) {
    unsigned threads = b.x * b.y * b.z;
    int i;
    (void)g; (void)st; (void)args;
    for (i = 0; i < nplans; i++)
        if (plans[i].block == threads && plans[i].shmem == sh && !strcmp(plans[i].kernel, k->name)) return AK_OK;
    if (nplans == MAXP) { overflow = 1; return AK_OK; }
    _ak_copy(plans[nplans].kernel, sizeof plans[nplans].kernel, k->name);
    plans[nplans].block = threads;
    plans[nplans].shmem = sh;
    nplans++;
    return AK_OK;
}

static _ak_backend_ops rec_backend;

/* A context planning for `a` as if it were the device (tests/ak_archdev.h), launches recorded. */
static ak_context* plan_context(const ak_arch_info* a, int mc, int tf32) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU;
    cfg.log_level = AK_LOG_NONE;
    cfg.arch = a->name;
    cfg.matrix_cores = mc ? AK_ON : AK_OFF;
    cfg.allow_tf32 = tf32;
    cfg.disk_cache = 0;
    if (ak_context_create(&cfg, &ctx) != AK_OK) {
        fprintf(stderr, "ak_launch_plans: context for %s: %s\n", a->name, ak_last_error());
        return NULL;
    }
    akt_archdev(ctx, a, &rec_backend, rec_launch);
    host_wave = _ak_target_wave(ctx, a->name);
    return ctx;
}

/* One reservation for every buffer: pages are only touched by host-side
 * copies of small workspaces (kernels do not run). */
static char* arena;
static size_t arena_bytes;
#define BUF(i) ((void*)(arena + (size_t)(i) * (arena_bytes / 8)))   /* 8 disjoint regions */

static int verbose;
static void call(ak_result r) {
    calls++;
    if (r != AK_OK) {
        errors++;
        if (verbose) fprintf(stderr, "  refused: %s\n", ak_last_error());
    }
}

static const ak_dtype fdt[3] = { AK_F32, AK_F16, AK_BF16 };

static void sweep_elementwise(ak_context* c) {
    static const size_t ns[] = { 1, 7, 1000, 65537, (size_t)1 << 22 };
    static const size_t rc[][2] = { { 1, 1 }, { 3, 1000 }, { 257, 129 }, { 4096, 4096 }, { 1, 1 << 20 } };
    size_t i, t, u, o;
    for (t = 0; t < 3; t++)
        for (i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            size_t n = ns[i];
            call(ak_fill(c, fdt[t], BUF(0), n, 1.0f, NULL));
            call(ak_copy(c, fdt[t], BUF(1), BUF(0), n, NULL));
            for (u = 0; u < 3; u++) if (u != t) call(ak_cast(c, fdt[t], BUF(1), fdt[u], BUF(0), n, NULL));
            call(ak_axpy(c, fdt[t], BUF(1), BUF(0), n, 2.0f, NULL));
            call(ak_scale(c, fdt[t], BUF(1), BUF(0), n, 2.0f, NULL));
            for (o = 0; o < (size_t)AK_BINARY_OP_COUNT; o++) call(ak_binary(c, (ak_binary_op)o, fdt[t], BUF(1), BUF(2), BUF(0), n, NULL));
            for (o = 0; o < (size_t)AK_UNARY_OP_COUNT; o++) call(ak_unary(c, (ak_unary_op)o, fdt[t], BUF(1), BUF(0), n, 0.1f, NULL));
            call(ak_rand_uniform(c, fdt[t], BUF(0), n, 1, 0, 0.0f, 1.0f, NULL));
            call(ak_rand_normal(c, fdt[t], BUF(0), n, 1, 0, 0.0f, 1.0f, NULL));
            call(ak_dropout(c, fdt[t], BUF(1), BUF(0), (uint8_t*)BUF(2), n, 0.5f, 1, 0, NULL));
            call(ak_dropout(c, fdt[t], BUF(1), BUF(0), NULL, n, 0.5f, 1, 0, NULL));
        }
    for (t = 0; t < 3; t++)
        for (i = 0; i < sizeof rc / sizeof rc[0]; i++) call(ak_transpose(c, fdt[t], BUF(1), BUF(0), rc[i][0], rc[i][1], NULL));
}

static void sweep_rows(ak_context* c) {
    static const size_t rows[] = { 1, 7, 1024, 65536 };
    static const size_t cols[] = { 1, 33, 256, 1000, 2048, 4096, 8192, 16384, 32768, 131072, (size_t)1 << 20, (size_t)1 << 22 };
    static const int ks[] = { 1, 5, 64, 256 };
    size_t i, j, t, o;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (j = 0; j < sizeof cols / sizeof cols[0]; j++) {
            size_t R = rows[i], C = cols[j];
            if (R * C > ((size_t)1 << 29)) continue;
            for (t = 0; t < 3; t++) {
                ak_dtype d = fdt[t];
                for (o = 0; o <= (size_t)AK_REDUCE_ARGMIN; o++) call(ak_reduce(c, (ak_reduce_op)o, d, BUF(1), BUF(0), R, C, NULL));
                call(ak_softmax(c, d, BUF(1), BUF(0), R, C, 0, NULL));
                call(ak_softmax(c, d, BUF(1), BUF(0), R, C, 1, NULL));
                call(ak_layernorm(c, d, BUF(1), BUF(2), BUF(3), BUF(0), R, C, 1e-5f, NULL));
                call(ak_layernorm(c, d, BUF(1), NULL, NULL, BUF(0), R, C, 1e-5f, NULL));
                call(ak_rmsnorm(c, d, BUF(1), BUF(2), BUF(0), R, C, 1e-5f, NULL));
                call(ak_add_layernorm(c, d, BUF(1), BUF(2), BUF(3), BUF(4), BUF(5), BUF(0), R, C, 1e-5f, NULL));
                call(ak_add_rmsnorm(c, d, BUF(1), BUF(2), BUF(3), BUF(5), BUF(0), R, C, 1e-5f, NULL));
                for (o = 0; o < (size_t)AK_LOSS_REDUCTION_COUNT; o++)
                    call(ak_cross_entropy(c, d, BUF(1), (const int64_t*)BUF(2), (float*)BUF(0), R, C, -100, (ak_loss_reduction)o, NULL));
                call(ak_cumsum(c, d, BUF(1), BUF(0), R, C, 0, NULL));
                call(ak_cumsum(c, d, BUF(1), BUF(0), R, C, 1, NULL));
                for (o = 0; o < sizeof ks / sizeof ks[0]; o++)
                    if ((size_t)ks[o] <= C) {
                        call(ak_topk(c, d, BUF(1), BUF(0), (int64_t*)BUF(2), R, C, ks[o], 1, NULL));
                        call(ak_topk(c, d, BUF(1), BUF(0), (int64_t*)BUF(2), R, C, ks[o], 0, NULL));
                    }
            }
            call(ak_cumsum(c, AK_I32, BUF(1), BUF(0), R, C, 0, NULL));
            call(ak_cumsum(c, AK_I64, BUF(1), BUF(0), R, C, 1, NULL));
        }
}

static void sweep_llm(ak_context* c) {
    static const size_t hd[] = { 2, 32, 64, 80, 128, 256, 1024 };
    static const size_t tok[] = { 1, 17, 4096 };
    static const size_t dims[] = { 1, 3, 8, 64, 100, 4096 };
    static const ak_dtype idt[2] = { AK_I32, AK_I64 };
    static const ak_dtype any[] = { AK_F32, AK_F16, AK_BF16, AK_I32, AK_I64, AK_U8 };
    size_t i, j, t, m, p, e;
    for (t = 0; t < 3; t++)
        for (m = 0; m < (size_t)AK_ROPE_MODE_COUNT; m++)
            for (p = 0; p < 2; p++)
                for (i = 0; i < sizeof hd / sizeof hd[0]; i++)
                    for (j = 0; j < sizeof tok / sizeof tok[0]; j++) {
                        call(ak_rope(c, (ak_rope_mode)m, fdt[t], idt[p], BUF(1), BUF(2), BUF(0), tok[j], 8, hd[i], hd[i], 10000.0f, NULL));
                        if (hd[i] >= 4)
                            call(ak_rope(c, (ak_rope_mode)m, fdt[t], idt[p], BUF(1), BUF(2), BUF(0), tok[j], 8, hd[i], hd[i] / 2, 10000.0f, NULL));
                    }
    for (e = 0; e < sizeof any / sizeof any[0]; e++)
        for (p = 0; p < 2; p++)
            for (i = 0; i < sizeof dims / sizeof dims[0]; i++) {
                call(ak_embedding(c, any[e], idt[p], BUF(1), BUF(2), BUF(0), 1000, 50000, dims[i], NULL));
                call(ak_embedding(c, any[e], idt[p], (char*)BUF(1) + ak_dtype_size(any[e]), BUF(2), BUF(0), 7, 50000, dims[i], NULL));
            }
    {   /* strided copies: every element size, casts, contiguous and transposed */
        size_t shape[3] = { 64, 33, 8 };
        int64_t cs[3] = { 33 * 8, 8, 1 }, ts[3] = { 1, 64, 64 * 33 }, vs[3] = { 33 * 16, 16, 2 };
        size_t s, dd;
        for (s = 0; s < sizeof any / sizeof any[0]; s++)
            for (dd = 0; dd < sizeof any / sizeof any[0]; dd++) {
                int fs = s < 3, fd = dd < 3, is = s == 3 || s == 4, id = dd == 3 || dd == 4;
                if (s != dd && !(fs && fd) && !(is && id)) continue;   /* casts: among f32/f16/bf16, i32/i64 */
                call(ak_copy_strided(c, any[s], any[dd], BUF(1), BUF(0), 3, shape, cs, cs, NULL));
                call(ak_copy_strided(c, any[s], any[dd], BUF(1), BUF(0), 3, shape, cs, ts, NULL));
                call(ak_copy_strided(c, any[s], any[dd], BUF(1), BUF(0), 3, shape, vs, cs, NULL));
                call(ak_copy_strided(c, any[s], any[dd], BUF(1), BUF(0), 1, shape, cs + 2, cs + 2, NULL));
            }
    }
}

static void sweep_gemm(ak_context* c) {
    static const size_t ms[] = { 1, 16, 17, 100, 1024, 8192 };
    static const size_t nks[][2] = { { 64, 64 }, { 4096, 64 }, { 100, 33 }, { 8192, 8192 }, { 64, 8192 } }; /* the last: split-K */
    size_t t, i, j, ta, tb, off, out;
    for (t = 0; t < 3; t++)
        for (out = 0; out < 2; out++)
            for (i = 0; i < sizeof ms / sizeof ms[0]; i++)
                for (j = 0; j < sizeof nks / sizeof nks[0]; j++)
                    for (ta = 0; ta < 2; ta++)
                        for (tb = 0; tb < 2; tb++)
                            for (off = 0; off < 2; off++) {
                                ak_gemm_desc g = ak_gemm_desc_default();
                                size_t es = ak_dtype_size(fdt[t]);
                                g.dtype = fdt[t];
                                g.out_dtype = out ? AK_F32 : fdt[t];
                                g.m = ms[i]; g.n = nks[j][0]; g.k = nks[j][1];
                                g.trans_a = (int)ta; g.trans_b = (int)tb;
                                g.a = (char*)BUF(1) + off * es;   /* off: not 16-byte aligned (the scalar-load forms) */
                                g.b = (char*)BUF(2) + off * es;
                                g.d = BUF(0);
                                g.bias = off ? BUF(3) : NULL;
                                g.batch = off ? 3 : 1;
                                g.stride_a = g.m * g.k + 8; g.stride_b = g.n * g.k + 8; g.stride_d = g.m * g.n;
                                call(ak_gemm(c, &g, NULL));
                            }
    /* int8 (A m x k, B n x k; refused where the target has no int8 matrix instruction): both tiles, every output */
    for (out = 0; out < 4; out++)
        for (i = 0; i < sizeof ms / sizeof ms[0]; i++)
            for (off = 0; off < 2; off++) {
                static const ak_dtype o4[4] = { AK_I32, AK_F32, AK_F16, AK_BF16 };
                ak_gemm_desc g = ak_gemm_desc_default();
                g.dtype = AK_I8; g.out_dtype = o4[out]; g.m = ms[i]; g.n = off ? 100 : 4096; g.k = off ? 33 : 4096; g.trans_b = 1;
                g.a = (char*)BUF(1) + off; g.b = (char*)BUF(2) + off; g.d = BUF(0);
                g.bias = off && out ? BUF(3) : NULL;
                g.batch = off ? 3 : 1;
                g.stride_a = g.m * g.k + 8; g.stride_b = g.n * g.k + 8; g.stride_d = g.m * g.n;
                call(ak_gemm(c, &g, NULL));
            }
    /* fp8 (A m x k, B n x k; refused where the target has no fp8 matrix instruction, FNUZ refused on OCP targets):
     * both tiles, every pair of formats, both encodings */
    for (out = 0; out < 8; out++)
        for (i = 0; i < sizeof ms / sizeof ms[0]; i++)
            for (off = 0; off < 2; off++) {
                static const ak_dtype f8[2][2] = { { AK_FP8_E4M3, AK_FP8_E5M2 }, { AK_FP8_E4M3_FNUZ, AK_FP8_E5M2_FNUZ } };
                ak_gemm_desc g = ak_gemm_desc_default();
                g.dtype = f8[out / 4][out & 1]; g.dtype_b = f8[out / 4][(out >> 1) & 1];
                g.out_dtype = fdt[(out + i) % 3]; g.m = ms[i]; g.n = off ? 100 : 4096; g.k = off ? 33 : 4096; g.trans_b = 1;
                g.a = (char*)BUF(1) + off; g.b = (char*)BUF(2) + off; g.d = BUF(0);
                g.bias = off ? BUF(3) : NULL;
                g.batch = off ? 3 : 1;
                g.stride_a = g.m * g.k + 8; g.stride_b = g.n * g.k + 8; g.stride_d = g.m * g.n;
                call(ak_gemm(c, &g, NULL));
            }
}

static void sweep_attention(ak_context* c) {
    static const size_t hds[] = { 16, 32, 48, 64, 80, 96, 128, 160, 192, 256 };
    static const size_t sq[][4] = { /* heads_q, heads_kv, seq_q, seq_kv */
        { 8, 8, 1, 4096 }, { 8, 1, 1, 4096 }, { 32, 8, 4, 1000 }, { 4, 4, 7, 33 },
        { 16, 16, 1024, 1024 }, { 8, 2, 333, 4097 }, { 2, 2, 4096, 4096 } };
    size_t t, h, s, causal, ns, al;
    static const int splits[] = { 0, 1, 3 };
    for (t = 0; t < 3; t++)
        for (h = 0; h < sizeof hds / sizeof hds[0]; h++)
            for (s = 0; s < sizeof sq / sizeof sq[0]; s++)
                for (causal = 0; causal < 2; causal++)
                    for (ns = 0; ns < sizeof splits / sizeof splits[0]; ns++)
                        for (al = 0; al < 2; al++) {
                            ak_attention_args a;
                            size_t es = ak_dtype_size(fdt[t]);
                            memset(&a, 0, sizeof a);
                            a.dtype = fdt[t];
                            a.batch = 2; a.heads_q = sq[s][0]; a.heads_kv = sq[s][1]; a.seq_q = sq[s][2]; a.seq_kv = sq[s][3];
                            a.head_dim = hds[h];
                            a.q = (char*)BUF(1) + al * es; a.k = (char*)BUF(2) + al * es; a.v = (char*)BUF(3) + al * es;
                            a.o = BUF(0);
                            a.lse = al ? (float*)BUF(4) : NULL;
                            a.layout = al ? AK_ATTN_BSHD : AK_ATTN_BHSD;
                            a.causal = (int)causal;
                            a.num_splits = splits[ns];
                            call(ak_attention(c, &a, NULL));
                        }
    /* 8-bit K / V: AMD runs them dequantised (ak_dequant_kv_*), then the 16-bit paths */
    for (t = 0; t < 3; t++)
        for (s = 0; s < 4; s++) {
            ak_attention_args a;
            memset(&a, 0, sizeof a);
            a.dtype = fdt[t];
            a.kv_dtype = s % 2 ? AK_FP8_E5M2 : AK_FP8_E4M3;
            a.batch = 2; a.heads_q = 8; a.heads_kv = 2; a.seq_q = s < 2 ? 1 : 300; a.seq_kv = 1000; a.head_dim = 128;
            a.q = BUF(1); a.k = BUF(2); a.v = BUF(3); a.o = BUF(0);
            a.k_scale = (const float*)BUF(4); a.v_scale = (const float*)BUF(5);
            a.causal = (int)(s / 2);
            call(ak_attention(c, &a, NULL));
        }
}

/* ops along any axis, pooling, channel norms, scans, losses, quantisation: the shapes that take each path */
static void sweep_more(ak_context* c) {
    static const ak_dtype q8[4] = { AK_FP8_E4M3, AK_FP8_E5M2, AK_FP8_E4M3_FNUZ, AK_FP8_E5M2_FNUZ };
    size_t t, f, m;
    for (t = 0; t < 3; t++) {
        const ak_dtype d = fdt[t];
        size_t s1[3] = { 7, 33, 5 }, s2[3] = { 3, 5000, 7 }, s4[2] = { 5, 7 }, y4[2] = { 5, 1 };
        int op;
        for (op = 0; op < (int)AK_REDUCE_OP_COUNT; op++) {
            call(ak_reduce_axes(c, (ak_reduce_op)op, d, BUF(1), BUF(0), 3, s1, 2u, NULL));
            call(ak_reduce_axes(c, (ak_reduce_op)op, d, BUF(1), BUF(0), 3, s2, 2u, NULL));
        }
        call(ak_normalize(c, AK_NORM_L2, d, BUF(1), BUF(0), 3, 64, 100, 0.0f, NULL));
        call(ak_normalize(c, AK_NORM_L2, d, BUF(1), BUF(0), 300, 1000, 1, 0.0f, NULL));
        call(ak_normalize(c, AK_NORM_L2, d, BUF(1), BUF(0), 1, 300000, 1, 0.0f, NULL));
        call(ak_binary_broadcast(c, AK_OP_MUL, d, BUF(1), BUF(2), BUF(0), 2, s4, y4, NULL));
        call(ak_triangular(c, d, BUF(1), BUF(0), 2, 30, 40, 0, 1, NULL));
        akw_pool_calls(c, d, BUF(1), BUF(0), (int64_t*)BUF(2), call);
        call(ak_batch_norm(c, d, BUF(1), BUF(0), 2, 8, 1000, BUF(2), BUF(3), (float*)BUF(4), (float*)BUF(5), 1, 0.1f, 1e-5f, NULL));
        call(ak_group_norm(c, d, BUF(1), BUF(0), 2, 8, 1000, 4, BUF(2), BUF(3), 1e-5f, NULL));
        call(ak_scan(c, AK_SCAN_PROD, d, BUF(1), (const uint8_t*)BUF(2), BUF(0), 50, 1000, AK_SCAN_REVERSE, NULL));
        call(ak_loss(c, AK_LOSS_MSE, d, BUF(1), BUF(2), AK_TARGET_ROW, (float*)BUF(0), 4, 16, 0.0f, 0, AK_LOSS_MEAN, NULL));
        call(ak_triplet_margin_loss(c, d, BUF(1), BUF(2), BUF(3), (float*)BUF(0), 4, 16, 1.0f, 2.0f, 1e-6f, 0, AK_LOSS_MEAN, NULL));
        for (f = 0; f < 4; f++)
            for (m = 0; m < 3; m++) {
                ak_quant_args qa;
                memset(&qa, 0, sizeof qa);
                qa.x_dtype = d; qa.x = BUF(1); qa.q_dtype = q8[f]; qa.q = BUF(0); qa.rows = 300; qa.cols = 1000;
                qa.mode = (ak_quant_mode)m; qa.scale = (float*)BUF(2); qa.compute_scale = 1; qa.amax = (float*)BUF(3);
                call(ak_quantize(c, &qa, NULL));
                call(ak_dequantize(c, q8[f], BUF(0), d, BUF(1), 300, 1000, (ak_quant_mode)m, (const float*)BUF(2), NULL));
                /* the tensor past twice what the one-pass kernel's registers hold on any target (2 x 65536 16-bit
                   elements x 304 units < 4096 x 16384): the two kernels */
                qa.rows = 4096; qa.cols = 16384;
                if (m == AK_QUANT_TENSOR) call(ak_quantize(c, &qa, NULL));
            }
    }
}

/* convolutions: standard (the implicit GEMM's matrix-core / FMA variants: matrix_cores, allow_tf32), transposed,
 * grouped, depthwise (stride 1 and strided), channels-last, every dtype */
static void sweep_conv(ak_context* c) {
    size_t t;
    for (t = 0; t < 3; t++) {
        ak_conv_desc a;
        memset(&a, 0, sizeof a);
        a.dtype = fdt[t]; a.ndim = 2; a.batch = 3; a.in_channels = 12; a.out_channels = 70;
        a.in[0] = 33; a.in[1] = 35; a.kernel[0] = 3; a.kernel[1] = 5; a.padding[0] = 1;
        a.x = BUF(1); a.w = BUF(2); a.bias = BUF(3); a.y = BUF(0);
        call(ak_conv(c, &a, NULL));
        a.layout = AK_CONV_CHANNELS_LAST; a.groups = 2; a.out_channels = 10;
        call(ak_conv(c, &a, NULL));
        a.layout = AK_CONV_CHANNELS_FIRST; a.transposed = 1; a.stride[0] = 2; a.output_padding[0] = 1;
        call(ak_conv(c, &a, NULL));
        a.transposed = 0; a.stride[0] = 0; a.output_padding[0] = 0; a.groups = 12; a.out_channels = 24;
        call(ak_conv(c, &a, NULL));   /* depthwise, stride 1: the 16-byte-chunk tiles */
        a.stride[1] = 2;
        call(ak_conv(c, &a, NULL));   /* depthwise, strided: the general kernel */
        a.stride[1] = 0;
        a.ndim = 3; a.in[2] = 7; a.kernel[2] = 3; a.groups = 1; a.out_channels = 5;
        call(ak_conv(c, &a, NULL));
    }
}

/* Kernels of the embedded families that no op launches on an AMD target, and why. */
static int not_planned(const char* k) {
    int hd = 0;
    /* the attention kernel's head size 80 is NVIDIA's (AMD: empty bodies; head_dim 80 runs on the 96 kernels) */
    if (sscanf(k, "ak_attn_mmadec%d_", &hd) == 1 || sscanf(k, "ak_attn_mma%d_", &hd) == 1)
        if (hd == 80) return 1;
    /* the 8-bit K / V decode kernels are NVIDIA's (AMD: empty bodies; K / V dequantised, then the 16-bit paths) */
    if (!strncmp(k, "ak_attn_mmadec", 14) && (strstr(k, "_e4m3_") || strstr(k, "_e5m2_"))) return 1;
    return !strncmp(k, "ak_gemm_wgmma_", 14) ||       /* Hopper (wgmma + TMA): planned on sm_90 only */
           !strncmp(k, "ak_gemm_sm90_", 13) ||        /* Hopper TMA GEMM (NVIDIA sm_90) */
           !strncmp(k, "ak_attn_sm90_", 13) ||        /* Hopper attention (NVIDIA sm_90) */
           !strncmp(k, "ak_gemm_decode_", 15) ||      /* the mma.sync decode GEMM and its finish (NVIDIA sm_80+) */
           !strncmp(k, "ak_gemm_mma_w_", 14) ||       /* the 4-warp 64x64 mma.sync tile of f16 / bf16 (NVIDIA sm_80+) */
           !strncmp(k, "ak_gemm_ffma", 12) ||         /* exact f32 GEMM on FFMAs: planned on NVIDIA only (AMD runs MFMA / the SIMT tile) */
           !strcmp(k, "ak_gemm_gemvn4h_f32") ||      /* the few-rows kernel at 2 blocks an SM: planned on NVIDIA only (measured there) */
           !strcmp(k, "ak_conv_igemm_mma_x32") ||     /* convolution with f32 as TF32 (NVIDIA mma.sync; CDNA runs exact MFMA f32) */
           !strncmp(k, "ak_conv_igemm_vec_", 18) ||   /* convolution's cp.async vector loader (NVIDIA mma.sync; AMD runs the mma kernels) */
           !strncmp(k, "ak_conv_igemm_wg", 16) ||     /* convolution on Hopper's wgmma (NVIDIA sm_90; AMD: empty bodies) */
           !strncmp(k, "ak_attn_mmagen", 14) ||       /* the generic matrix attention under its own name: what AMD
                                                         targets run as ak_attn_mma*, launched on NVIDIA by the GPU suite */
           !strcmp(k, "ak_softmax_slab_f32");         /* the row-op table keeps f32 softmax on the rows kernel */
}

typedef struct seen { char kernel[96]; } seen;
static seen launched[4096];
static int nlaunched;
static void mark(const char* k) {
    int i;
    for (i = 0; i < nlaunched; i++) if (!strcmp(launched[i].kernel, k)) return;
    if (nlaunched < 4096) _ak_copy(launched[nlaunched++].kernel, sizeof launched[0].kernel, k);
}

/* family of a kernel (its embedded source's list), or "?" */
static const char* family_of(const char* k) {
    int i;
    size_t n = strlen(k);
    for (i = 0; i < ak_embedded_count(); i++) {
        const char *fam, *src, *names, *p;
        ak_embedded_at(i, &fam, &src, &names);
        for (p = names; (p = strstr(p, k)) != NULL; p += n)
            if ((p == names || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) return fam;
    }
    return "?";
}

int main(int argc, char** argv) {
    const char* archs = "amd";
    int coverage = 0, i, nt = 0, bad = 0;
    const ak_arch_info* tg[64];
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--arch") && i + 1 < argc) archs = argv[++i];
        else if (!strcmp(argv[i], "--coverage")) coverage = 1;
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else { fprintf(stderr, "usage: ak_launch_plans [--arch amd|T1,T2,...] [--coverage]\n"); return 2; }
    }
    if (!strcmp(archs, "amd")) {
        for (i = 0; i < ak_arch_count() && nt < 64; i++)
            if (ak_arch_at(i)->vendor == AK_VENDOR_AMD) tg[nt++] = ak_arch_at(i);
    } else {
        const char* p = archs;
        while (*p && nt < 64) {
            char name[64];
            size_t len = strcspn(p, ",");
            const ak_arch_info* a = NULL;
            snprintf(name, sizeof name, "%.*s", (int)len, p);
            if (ak_arch_find(name, &a) != AK_OK || !a) { fprintf(stderr, "ak_launch_plans: unknown target %s\n", name); return 2; }
            tg[nt++] = a;
            p += len + (p[len] == ',');
        }
    }
    for (arena_bytes = (size_t)64 << 30; arena_bytes >= ((size_t)1 << 30); arena_bytes /= 2) {
        void* m = mmap(NULL, arena_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m != MAP_FAILED) { arena = (char*)m; break; }
    }
    if (!arena) { fprintf(stderr, "ak_launch_plans: cannot reserve address space\n"); return 1; }
    for (i = 0; i < nt; i++) {
        int mc, tf32, j;
        nplans = 0;
        for (mc = 0; mc < 2; mc++)
            for (tf32 = 0; tf32 < 2; tf32++) {
                ak_context* c = plan_context(tg[i], mc, tf32);
                if (!c) return 1;
                if (!tf32) {
                    sweep_elementwise(c);
                    sweep_rows(c);
                    sweep_llm(c);
                    sweep_attention(c);
                    sweep_more(c);
                }
                sweep_gemm(c);
                sweep_conv(c);
                ak_context_destroy(c);
            }
        if (overflow) { fprintf(stderr, "ak_launch_plans: more than %d distinct launches\n", MAXP); return 1; }
        for (j = 0; j < nplans; j++) {
            printf("%s %d %d %s %s %u %zu\n", tg[i]->name, host_wave, tg[i]->lds_bytes,
                   family_of(plans[j].kernel), plans[j].kernel, plans[j].block, plans[j].shmem);
            mark(plans[j].kernel);
        }
    }
    fprintf(stderr, "ak_launch_plans: %d targets, %ld op calls (%ld refused by argument checks)\n", nt, calls, errors);
    if (coverage) {
        for (i = 0; i < ak_embedded_count(); i++) {
            const char *fam, *src, *names, *p;
            ak_embedded_at(i, &fam, &src, &names);
            for (p = names; *p;) {
                char k[96];
                size_t len = strcspn(p, " ");
                int j, found = 0;
                snprintf(k, sizeof k, "%.*s", (int)len, p);
                for (j = 0; j < nlaunched; j++) if (!strcmp(launched[j].kernel, k)) found = 1;
                if (!found && !not_planned(k)) {
                    fprintf(stderr, "ak_launch_plans: %s (%s) is launched by no plan\n", k, fam);
                    bad = 1;
                }
                p += len;
                while (*p == ' ') p++;
            }
        }
    }
    return bad;
}
