/* bench_gemm_sweep - ak_gemm over a sweep of shapes, layouts, batches, decode
 * and fused epilogues, each cell checked and timed; the PyTorch peer
 * (bench/peer_torch_gemm_sweep.py) times the same cells in the same run and
 * bench/gemm_sweep_report.py joins both into JSON + a markdown table.
 *
 *   build/bench_gemm_sweep [--quick | --portable | --cases CASES.tsv] [--filter SUB[,SUB..]] [--list CASES.tsv] [--force V] OUT.json
 *
 * --force V: the Hopper kernel's variant for every cell it runs (0 cooperative
 * 128x256, 1 cooperative 128x128, 2 ping-pong 128x128; the planner's otherwise);
 * 3: the portable mma.sync tile instead of the Hopper kernel (f16 / bf16: 4 warps of 64x64, mma_w); 4: the same
 * with the 8-warp 64x32 tile (mma_l); 5 / 6: exact f32 on the FFMA kernel's 128 x 128 / 256 x 128 tile;
 * 7: the cooperative 128 x 64 Hopper tile for f16 / bf16 (no split-K); 8: the same in 2-CTA clusters sharing A.
 * --portable: the cells of that tile's bench (every layout, 4096^3 f16 / bf16, bf16 rectangles, odd edges, a batch).
 * --list writes the case table (one line per cell: name dtype m n k batch ta
 * tb epi) and exits; the peer reads the same table. --cases reads such a
 * table instead of the built-in cells (a sweep of one's own shapes). Layouts: ta = 1 means A is
 * stored K x M (op(A) = A^T), tb = 1 means B is stored N x K (the nn.Linear
 * weight, A @ W^T); so "nn" (ta 0, tb 0) is plain A @ B. epi: none,
 * bias_gelu_tanh, bias_gelu, bias_silu, bias_relu (D = act(A op(B) + bias)).
 * dtype: f16, bf16, f32 (exact) or tf32 (f32 through config.allow_tf32); fp8
 * (the scaled GEMM, torch._scaled_mm): fp8 = e4m3 x e4m3 -> bf16, precise
 * accumulation (the default), fp8fast = the same with fast_accum = 1
 * (use_fast_accum=True); A W^T only (ta 0, tb 1), epi tensor_scale (one f32
 * scale per operand) or row_scale (one per row of A and of W), scales in
 * [0.5, 1.5). i8 (as torch._int_mm): int8 x int8 -> the raw int32 sums, A W^T
 * only, epi none; i8 with epi row_scale: the same sums times a scale per row
 * of A and of W -> bf16 (the dequantising epilogue).
 * Inputs random in [-1, 1) (ak_rand_uniform on the device, never zeros; fp8:
 * random codes of such values, written from the host).
 * Check: 256 sampled outputs against a double product of the host copies of
 * A and B (relative to sum |a b|: 1e-2 for 16-bit outputs, 1e-5 exact f32,
 * 3e-3 TF32; fp8: the codes decoded, times the scales). Timing: 3 warm-up calls (the first compiles), then trials (up
 * to 50, about 0.2 s) between two events, the L2 flushed before each (a
 * memset of 2x the L2, untimed); the median. TF/s = 2 m n k batch / median;
 * decode cells (m <= 16) also give the bytes of B read per second (n = 1: of A) over the
 * device-to-device copy bandwidth measured here (read + write). */
#define AMDKIT_IMPLEMENTATION
#define AMDKIT_GEMM_FORCE   /* --force: the Hopper kernel's variant (amdkit.h >>impl:ops-gemm) */
#include "../amdkit.h"
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef struct scase {
    char name[96];
    char dt[8];      /* f16 bf16 f32 tf32 fp8 fp8fast i8 */
    size_t m, n, k, batch;
    int ta, tb;
    char epi[24];
} scase;

static scase g_cs[512];
static int g_nc;

static void add(const char* group, const char* dt, size_t m, size_t n, size_t k, size_t batch, int ta, int tb, const char* epi) {
    scase* c;
    static const char* lay[4] = { "nn", "tn", "nt", "tt" }; /* op(A) = A^T when ta: "t" first */
    if (g_nc >= (int)(sizeof g_cs / sizeof g_cs[0])) return;
    c = &g_cs[g_nc++];
    snprintf(c->dt, sizeof c->dt, "%s", dt);
    c->m = m; c->n = n; c->k = k; c->batch = batch; c->ta = ta; c->tb = tb;
    snprintf(c->epi, sizeof c->epi, "%s", epi);
    if (batch > 1)
        snprintf(c->name, sizeof c->name, "%s_%s_b%zu_%zux%zux%zu_%s%s%s", group, lay[ta + 2 * tb], batch, m, n, k, dt,
                 strcmp(epi, "none") ? "_" : "", strcmp(epi, "none") ? epi : "");
    else
        snprintf(c->name, sizeof c->name, "%s_%s_%zux%zux%zu_%s%s%s", group, lay[ta + 2 * tb], m, n, k, dt, strcmp(epi, "none") ? "_" : "",
                 strcmp(epi, "none") ? epi : "");
}

static void make_cases(int quick) {
    static const char* d16[2] = { "f16", "bf16" };
    int t, d, i;
    if (quick == 2) {
        /* --portable: the cells of the portable tile's bench (with --force 3): every layout at 4096^3 in f16 and
         * bf16, then bf16 rectangles, odd edges and a batch in every layout */
        for (t = 0; t < 4; t++)
            for (d = 0; d < 2; d++) add("sq", d16[d], 4096, 4096, 4096, 1, t & 1, t >> 1, "none");
        for (t = 0; t < 4; t++) {
            add("rect", "bf16", 2048, 6144, 1536, 1, t & 1, t >> 1, "none");
            add("odd", "bf16", 1000, 3001, 777, 1, t & 1, t >> 1, "none");
            add("rect", "bf16", 8192, 1024, 4096, 1, t & 1, t >> 1, "none");
            add("bat", "bf16", 512, 512, 512, 16, t & 1, t >> 1, "none");
        }
        return;
    }
    if (quick) {
        for (t = 0; t < 4; t++) add("sq", "bf16", 4096, 4096, 4096, 1, t & 1, t >> 1, "none");
        add("sq", "f16", 8192, 8192, 8192, 1, 0, 1, "none");
        add("sq", "bf16", 8192, 8192, 8192, 1, 0, 0, "none");
        add("odd", "bf16", 1000, 1000, 1000, 1, 0, 0, "none");
        add("bat", "bf16", 1024, 1024, 128, 32, 0, 0, "none");
        add("epi", "bf16", 8192, 3072, 768, 1, 0, 1, "bias_gelu_tanh");
        add("dec", "bf16", 1, 8192, 8192, 1, 0, 0, "none");
        add("dec", "bf16", 8, 11008, 4096, 1, 0, 1, "none");
        add("f8", "fp8", 4096, 4096, 4096, 1, 0, 1, "row_scale");
        add("f8", "fp8fast", 4096, 4096, 4096, 1, 0, 1, "row_scale");
        add("i8", "i8", 4096, 4096, 4096, 1, 0, 1, "none");
        return;
    }
    /* every layout, square, f16 / bf16 */
    for (t = 0; t < 4; t++)
        for (d = 0; d < 2; d++)
            for (i = 0; i < 3; i++) add("sq", d16[d], (size_t)2048 << i, (size_t)2048 << i, (size_t)2048 << i, 1, t & 1, t >> 1, "none");
    add("sq", "bf16", 16384, 16384, 16384, 1, 0, 0, "none");
    add("sq", "bf16", 16384, 16384, 16384, 1, 0, 1, "none");
    /* rectangles (the and LLM projections) */
    for (t = 0; t < 4; t++) {
        add("rect", "bf16", 6144, 6144, 6144, 1, t & 1, t >> 1, "none");
        add("rect", "bf16", 2048, 2048, 16384, 1, t & 1, t >> 1, "none");
        add("rect", "f16", 4096, 11008, 4096, 1, t & 1, t >> 1, "none");
        add("rect", "bf16", 16384, 4096, 4096, 1, t & 1, t >> 1, "none");
        add("rect", "bf16", 4096, 14336, 4096, 1, t & 1, t >> 1, "none");
    }
    /* odd and medium (512 .. 2048, not tile multiples; rows multiples of 8 and odd rows) */
    for (t = 0; t < 4; t++) {
        add("odd", "bf16", 3000, 5000, 1000, 1, t & 1, t >> 1, "none");
        add("odd", "bf16", 1000, 1000, 1000, 1, t & 1, t >> 1, "none");
        add("odd", "f16", 1536, 1536, 1536, 1, t & 1, t >> 1, "none");
        add("odd", "bf16", 512, 512, 512, 1, t & 1, t >> 1, "none");
        add("odd", "bf16", 1999, 1001, 777, 1, t & 1, t >> 1, "none");
        add("odd", "f16", 2048, 1000, 1013, 1, t & 1, t >> 1, "none");
    }
    /* batched strided (torch.bmm) */
    for (t = 0; t < 4; t++) {
        add("bat", "bf16", 1024, 1024, 128, 32, t & 1, t >> 1, "none");
        add("bat", "f16", 512, 512, 64, 64, t & 1, t >> 1, "none");
        add("bat", "bf16", 2048, 2048, 2048, 8, t & 1, t >> 1, "none");
        add("bat", "bf16", 128, 128, 4096, 256, t & 1, t >> 1, "none");
    }
    /* decode, both B layouts */
    for (t = 0; t < 2; t++) {
        static const size_t ms[] = { 1, 2, 4, 8, 16 };
        for (i = 0; i < 5; i++) {
            add("dec", "bf16", ms[i], 4096, 4096, 1, 0, t, "none");
            add("dec", "bf16", ms[i], 11008, 4096, 1, 0, t, "none");
            add("dec", "bf16", ms[i], 4096, 14336, 1, 0, t, "none");
            add("dec", "bf16", ms[i], 14336, 4096, 1, 0, t, "none");
            add("dec", "bf16", ms[i], 4096, 11008, 1, 0, t, "none");
        }
        add("dec", "f16", 1, 8192, 8192, 1, 0, t, "none");
        add("dec", "bf16", 1, 128256, 4096, 1, 0, t, "none");
        add("dec", "bf16", 16, 128256, 4096, 1, 0, t, "none");
        add("dec", "bf16", 8, 1024, 8192, 1, 0, t, "none");
    }
    /* neighbours of the cells above at other sizes (short k, odd edges, batches, decode) */
    add("near", "bf16", 768, 768, 96, 16, 0, 0, "none");
    add("near", "f16", 384, 640, 192, 48, 1, 1, "none");
    add("near", "bf16", 2500, 3500, 700, 1, 0, 0, "none");
    add("near", "bf16", 1200, 1800, 1100, 1, 1, 0, "none");
    add("near", "f16", 6000, 2000, 512, 1, 0, 1, "none");
    add("near", "bf16", 1, 6144, 6144, 1, 0, 0, "none");
    add("near", "bf16", 1, 6144, 6144, 1, 0, 1, "none");
    add("near", "bf16", 8, 5120, 13824, 1, 0, 1, "none");
    add("near", "f16", 4, 13824, 5120, 1, 0, 0, "none");
    /* a matrix times a vector: A @ x (n = 1), x @ W^T (m = 1) */
    add("gemv", "f32", 8192, 1, 8192, 1, 0, 0, "none");
    add("gemv", "f32", 4096, 1, 65536, 1, 0, 0, "none");
    add("gemv", "f32", 1, 11008, 4096, 1, 0, 1, "none");
    add("gemv", "bf16", 16384, 1, 4096, 1, 0, 0, "none");
    add("gemv", "f16", 4096, 1, 11008, 1, 0, 1, "none");
    add("gemv", "f16", 8192, 1, 8192, 1, 0, 0, "none");
    add("gemv", "bf16", 14336, 1, 4096, 1, 1, 0, "none");
    add("gemv", "f32", 1, 14336, 4096, 1, 0, 1, "none");
    add("gemv", "f32", 3000, 1, 5000, 1, 0, 0, "none");
    /* n <= 16 < m: the transposed decode (a stream of A), every layout */
    add("tall", "bf16", 11008, 8, 4096, 1, 0, 0, "none");
    add("tall", "bf16", 11008, 8, 4096, 1, 0, 1, "none");
    add("tall", "f16", 4096, 16, 14336, 1, 1, 0, "none");
    add("tall", "bf16", 14336, 4, 4096, 1, 1, 1, "none");
    add("tall", "f16", 3000, 5, 1000, 1, 0, 1, "none");
    add("tall", "bf16", 65536, 16, 256, 1, 0, 1, "none");
    add("tall", "bf16", 100000, 3, 64, 1, 0, 0, "none");
    add("tall", "bf16", 4096, 1, 14336, 1, 1, 1, "none");
    add("tall", "f32", 11008, 8, 4096, 1, 0, 0, "none");
    add("tall", "f32", 8192, 16, 8192, 1, 1, 0, "none");
    add("tall", "f32", 4096, 1, 14336, 1, 1, 0, "none");
    add("tall", "f32", 20000, 2, 3000, 1, 0, 1, "none");
    /* exact f32 with at most 16 rows and B stored K x N (the gemvn kernel), direct and as the transposed product */
    add("fewrows", "f32", 8, 11008, 4096, 1, 0, 0, "none");
    add("fewrows", "f32", 16, 4096, 4096, 1, 0, 0, "none");
    add("fewrows", "f32", 1, 14336, 4096, 1, 0, 0, "none");
    add("fewrows", "f32", 5, 3000, 1000, 1, 0, 0, "none");
    add("fewrows", "f32", 16, 50257, 1024, 1, 0, 0, "none");
    add("fewrows", "f32", 4, 1024, 8192, 1, 0, 0, "none");
    add("fewrows", "f32", 2, 2048, 2048, 8, 0, 0, "none");
    add("fewrows", "f32", 8192, 8, 8192, 1, 1, 0, "none");
    /* few output tiles (or outputs) and a long k: split-K */
    add("splitk", "bf16", 256, 256, 65536, 1, 0, 0, "none");
    add("splitk", "f16", 256, 256, 524288, 1, 0, 0, "none");
    add("splitk", "bf16", 512, 384, 32768, 1, 1, 0, "none");
    add("splitk", "f16", 1024, 1024, 8192, 1, 0, 1, "none");
    add("splitk", "bf16", 128, 2048, 16384, 1, 1, 1, "none");
    add("splitk", "f16", 300, 700, 20000, 1, 0, 1, "bias_gelu");
    add("splitk", "f16", 256, 1, 131072, 1, 0, 0, "none");
    add("splitk", "f32", 256, 1, 131072, 1, 0, 0, "none");
    add("splitk", "f32", 1, 512, 100000, 1, 0, 1, "none");
    /* fused epilogues (A @ W^T + bias, activation) */
    add("epi", "bf16", 8192, 3072, 768, 1, 0, 1, "bias_gelu_tanh");
    add("epi", "bf16", 4096, 4096, 4096, 1, 0, 1, "bias_gelu");
    add("epi", "bf16", 4096, 14336, 4096, 1, 0, 1, "bias_silu");
    add("epi", "f16", 8192, 8192, 1024, 1, 0, 1, "bias_relu");
    add("epi", "bf16", 2048, 8192, 2048, 1, 0, 1, "bias_gelu_tanh");
    /* fp32: exact and TF32 */
    for (t = 0; t < 4; t++) add("f32", "f32", 4096, 4096, 4096, 1, t & 1, t >> 1, "none");
    add("f32", "f32", 2048, 2048, 2048, 1, 0, 1, "none");
    add("f32", "f32", 3001, 1999, 777, 1, 1, 0, "none");       /* odd edges */
    add("f32", "f32", 512, 1024, 2048, 16, 0, 0, "none");      /* batched strided (torch.bmm) */
    add("f32", "f32", 8192, 8192, 64, 1, 0, 0, "none");        /* short k: the epilogue weighs */
    add("f32", "f32", 256, 256, 131072, 1, 0, 0, "none");      /* few tiles, long k: split-K */
    add("f32", "f32", 8192, 8192, 8192, 1, 0, 1, "none");      /* large */
    add("f32", "f32", 5000, 3000, 2000, 1, 0, 0, "none");      /* odd, a little over 2 waves of 256x128 tiles */
    add("f32", "f32", 1024, 1024, 1024, 1, 0, 0, "none");      /* medium: fewer tiles than SMs */
    add("f32", "f32", 2304, 2304, 1000, 1, 1, 1, "bias_gelu"); /* an epilogue through shared memory */
    add("f32", "tf32", 4096, 4096, 4096, 1, 0, 1, "none");
    add("f32", "tf32", 4096, 4096, 4096, 1, 0, 0, "none");
    add("f32", "tf32", 4096, 4096, 4096, 1, 1, 1, "none");
    add("f32", "tf32", 2000, 3000, 1000, 1, 1, 0, "none");     /* A^T @ B: both copied */
    add("f32", "tf32", 512, 1024, 2048, 16, 0, 0, "none");     /* batched, B copied */
    /* fp8 (A W^T): precise and fast accumulation, per-tensor and rowwise scales; long k */
    for (d = 0; d < 2; d++) {
        static const char* f8[2] = { "fp8", "fp8fast" };
        for (i = 0; i < 4; i++) {
            add("f8", f8[d], (size_t)2048 * (i + 1), (size_t)2048 * (i + 1), (size_t)2048 * (i + 1), 1, 0, 1, "tensor_scale");
            add("f8", f8[d], (size_t)2048 * (i + 1), (size_t)2048 * (i + 1), (size_t)2048 * (i + 1), 1, 0, 1, "row_scale");
        }
        add("f8", f8[d], 2048, 4096, 14336, 1, 0, 1, "row_scale");
        add("f8", f8[d], 16384, 4096, 14336, 1, 0, 1, "row_scale");
        add("f8", f8[d], 16, 4096, 14336, 1, 0, 1, "row_scale");
    }
    /* int8 (A W^T, torch._int_mm: m > 16, k and n multiples of 8): int32 out; one dequantised to bf16 */
    for (i = 0; i < 4; i++) add("i8", "i8", (size_t)2048 * (i + 1), (size_t)2048 * (i + 1), (size_t)2048 * (i + 1), 1, 0, 1, "none");
    add("i8", "i8", 2048, 4096, 14336, 1, 0, 1, "none");
    add("i8", "i8", 16384, 4096, 14336, 1, 0, 1, "none");
    add("i8", "i8", 32, 4096, 14336, 1, 0, 1, "none");
    add("i8", "i8", 4096, 4096, 4096, 1, 0, 1, "row_scale");
}

/* --filter: comma-separated substrings, a cell runs when its name holds any */
static int selected(const char* name, const char* filter) {
    char buf[256];
    const char* p = filter;
    if (!filter) return 1;
    while (*p) {
        size_t l = strcspn(p, ",");
        if (l > 0 && l < sizeof buf) {
            memcpy(buf, p, l);
            buf[l] = 0;
            if (strstr(name, buf)) return 1;
        }
        p += l;
        if (*p == ',') p++;
    }
    return 0;
}

static int epi_act(const char* e) {
    if (!strcmp(e, "bias_gelu_tanh")) return AK_OP_GELU_TANH;
    if (!strcmp(e, "bias_gelu")) return AK_OP_GELU;
    if (!strcmp(e, "bias_silu")) return AK_OP_SILU;
    if (!strcmp(e, "bias_relu")) return AK_OP_RELU;
    return -1;
}
static double act_ref(int op, double x) {
    switch (op) {
    case AK_OP_RELU: return x < 0 ? 0 : x;
    case AK_OP_SILU: return x / (1 + exp(-x));
    case AK_OP_GELU: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    case AK_OP_GELU_TANH: return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    default: return x;
    }
}

/* fp8 cells: n e4m3 codes of values in [-1, 1) (none zero), or n f32 scales in
 * [0.5, 1.5) when scales == 1, or n random int8 when scales == 2, filled on the host and copied */
static void* dev_fill8(ak_context* ctx, size_t n, int scales, unsigned long long seed) {
    const size_t es = scales == 1 ? 4 : 1, chunk = (size_t)1 << 24;
    size_t i, j;
    unsigned long long x = seed * 0x9E3779B97F4A7C15ull + 88172645463325252ull;
    void *d = NULL, *h = malloc((n < chunk ? n : chunk) * es);
    static uint8_t codes[256];
    if (!codes[0])
        for (i = 0; i < 256; i++) codes[i] = ak_f32_to_fp8((float)((i + 0.5) / 128.0 - 1.0), AK_FP8_E4M3, 1);
    if (!h || ak_malloc(ctx, n * es, NULL, &d) != AK_OK) { free(h); return NULL; }
    for (i = 0; i < n; i += chunk) {
        const size_t c = n - i < chunk ? n - i : chunk;
        for (j = 0; j < c; j++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            if (scales == 1) ((float*)h)[j] = (float)(0.5 + (double)(x >> 11) / 9007199254740992.0);
            else ((uint8_t*)h)[j] = scales == 2 ? (uint8_t)(x >> 56) : codes[x >> 56];
        }
        if (ak_memcpy(ctx, (char*)d + i * es, h, c * es, AK_H2D) != AK_OK) { ak_free(ctx, d); d = NULL; break; }
    }
    free(h);
    return d;
}

static void* dev_rand(ak_context* ctx, ak_dtype t, size_t n, unsigned long long seed) {
    void* d = NULL;
    if (ak_malloc(ctx, n * ak_dtype_size(t), NULL, &d) != AK_OK) return NULL;
    if (ak_rand_uniform(ctx, t, d, n, seed, 0, -1.0f, 1.0f, NULL) != AK_OK) { ak_free(ctx, d); return NULL; }
    return d;
}

int main(int argc, char** argv) {
    const char *out = NULL, *filter = NULL, *list = NULL, *cases = NULL;
    int quick = 0, i, written = 0;
    ak_context *ctx = NULL, *ctx32 = NULL;
    const ak_device_info* di;
    ak_event *e0, *e1;
    void* scratch = NULL;
    size_t scratch_bytes;
    double copy_gbps = 0;
    FILE* f;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--portable")) quick = 2;
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else if (!strcmp(argv[i], "--list") && i + 1 < argc) list = argv[++i];
        else if (!strcmp(argv[i], "--force") && i + 1 < argc) _ak_gemm_force = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = argv[++i];
        else out = argv[i];
    }
    if (cases) {
        FILE* cf = fopen(cases, "r");
        char line[256];
        if (!cf) { perror(cases); return 1; }
        while (fgets(line, sizeof line, cf) && g_nc < (int)(sizeof g_cs / sizeof g_cs[0])) {
            scase* c = &g_cs[g_nc];
            if (line[0] == '#' || line[0] == '\n') continue;
            if (sscanf(line, "%95s %7s %zu %zu %zu %zu %d %d %23s", c->name, c->dt, &c->m, &c->n, &c->k, &c->batch, &c->ta, &c->tb,
                       c->epi) != 9 || !c->m || !c->n || !c->k || !c->batch) {
                fprintf(stderr, "%s: not a case line (name dtype m n k batch ta tb epi): %s", cases, line);
                fclose(cf);
                return 1;
            }
            g_nc++;
        }
        fclose(cf);
    } else
        make_cases(quick);
    if (list) {
        FILE* lf = fopen(list, "w");
        if (!lf) { perror(list); return 1; }
        for (i = 0; i < g_nc; i++)
            if (selected(g_cs[i].name, filter))
                fprintf(lf, "%s\t%s\t%zu\t%zu\t%zu\t%zu\t%d\t%d\t%s\n", g_cs[i].name, g_cs[i].dt, g_cs[i].m, g_cs[i].n, g_cs[i].k,
                        g_cs[i].batch, g_cs[i].ta, g_cs[i].tb, g_cs[i].epi);
        fclose(lf);
        if (!out) return 0;
    }
    {
        ak_config c = ak_config_default();
        ak_config_apply_env(&c);
        if (ak_context_create(&c, &ctx) != AK_OK) { fprintf(stderr, "%s\n", ak_last_error()); return 1; }
        c.allow_tf32 = 1;
        if (ak_context_create(&c, &ctx32) != AK_OK) { fprintf(stderr, "%s\n", ak_last_error()); return 1; }
    }
    di = ak_context_device(ctx);
    ak_event_create(ctx, &e0);
    ak_event_create(ctx, &e1);
    scratch_bytes = di->l2_bytes ? 2 * di->l2_bytes : ((size_t)64 << 20);
    if (ak_malloc(ctx, scratch_bytes, NULL, &scratch) != AK_OK) scratch = NULL;
    if (di->backend != AK_BACKEND_CPU) copy_gbps = bench_copy_gbps(ctx, (size_t)1 << 30);
    f = out ? fopen(out, "w") : stdout;
    if (!f) { perror(out); return 1; }
    fprintf(f, "{\"tool\": \"bench_gemm_sweep\", \"hardware\": \"%s\", \"device\": \"%s\", \"copy_gbps\": %.1f, \"results\": [\n", di->name,
            di->arch, copy_gbps);
    printf("%-44s %9s %8s %6s %s\n", "case", "median ms", "TF/s", "check", "kernel");
    for (i = 0; i < g_nc; i++) {
        scase* c = &g_cs[i];
        const int i8 = !strcmp(c->dt, "i8"), f8 = !strncmp(c->dt, "fp8", 3) || i8, rows = f8 && !strcmp(c->epi, "row_scale");
        const ak_dtype dt = i8 ? AK_I8 : f8 ? AK_FP8_E4M3 : !strcmp(c->dt, "f16") ? AK_F16 : !strcmp(c->dt, "bf16") ? AK_BF16 : AK_F32;
        const ak_dtype ot = i8 && !rows ? AK_I32 : f8 ? AK_BF16 : dt;
        ak_context* cx = !strcmp(c->dt, "tf32") ? ctx32 : ctx;
        const size_t es = ak_dtype_size(dt), os = ak_dtype_size(ot), na = c->m * c->k, nb = c->n * c->k, nd = c->m * c->n;
        const int act = epi_act(c->epi);
        ak_gemm_desc g = ak_gemm_desc_default();
        ak_gemm_plan p;
        void *A, *B, *D, *bias = NULL, *hA = NULL, *hB = NULL, *hD = NULL, *hbias = NULL;
        void *sA = NULL, *sB = NULL;
        float *hsA = NULL, *hsB = NULL;
        double t[50], tf, worst = 0, bw = 0;
        int trials = 0, k, w, bad = 0, s;
        ak_result r = AK_OK;
        if (!selected(c->name, filter)) continue;
        A = f8 ? dev_fill8(ctx, na * c->batch, 2 * i8, 1000 + (unsigned long long)i) : dev_rand(ctx, dt, na * c->batch, 1000 + (unsigned long long)i);
        B = f8 ? dev_fill8(ctx, nb * c->batch, 2 * i8, 2000 + (unsigned long long)i) : dev_rand(ctx, dt, nb * c->batch, 2000 + (unsigned long long)i);
        D = NULL;
        ak_malloc(ctx, nd * c->batch * os, NULL, &D);
        if (act >= 0) bias = dev_rand(ctx, dt, c->n, 3000 + (unsigned long long)i);
        if (f8 && !(i8 && !rows)) {
            sA = dev_fill8(ctx, rows ? c->m : 1, 1, 4000 + (unsigned long long)i);
            sB = dev_fill8(ctx, rows ? c->n : 1, 1, 5000 + (unsigned long long)i);
        }
        if (!A || !B || !D || (act >= 0 && !bias) || (f8 && !(i8 && !rows) && (!sA || !sB))) {
            fprintf(stderr, "%s: out of device memory\n", c->name);
            ak_free(ctx, A); ak_free(ctx, B); ak_free(ctx, D); ak_free(ctx, bias); ak_free(ctx, sA); ak_free(ctx, sB);
            continue;
        }
        if (f8) {
            g.dtype_b = dt; g.scale_a = (const float*)sA; g.scale_b = (const float*)sB;
            g.scale_a_per_row = rows; g.scale_b_per_col = rows; g.fast_accum = !strcmp(c->dt, "fp8fast");
        }
        g.dtype = dt; g.out_dtype = ot; g.m = c->m; g.n = c->n; g.k = c->k; g.a = A; g.b = B; g.d = D;
        g.trans_a = c->ta; g.trans_b = c->tb; g.batch = c->batch; g.stride_a = na; g.stride_b = nb; g.stride_d = nd;
        if (act >= 0) { g.bias = bias; g.activation = act; }
        ak_gemm_plan_get(cx, &g, &p);
        for (w = 0; w < 3 && r == AK_OK; w++) r = ak_gemm(cx, &g, NULL);
        if (r == AK_OK) r = ak_device_synchronize(cx);
        /* check: 256 sampled outputs of the last batch against a double product */
        if (r == AK_OK) {
            const size_t bl = c->batch - 1;
            hA = malloc(na * es); hB = malloc(nb * es); hD = malloc(nd * os); hbias = bias ? malloc(c->n * es) : NULL;
            hsA = (float*)malloc(c->m * 4); hsB = (float*)malloc(c->n * 4);
            if (!hA || !hB || !hD || (bias && !hbias) || !hsA || !hsB) { fprintf(stderr, "%s: out of host memory\n", c->name); r = AK_ERROR_OUT_OF_MEMORY; }
            if (r == AK_OK) r = ak_memcpy(ctx, hA, (char*)A + bl * na * es, na * es, AK_D2H);
            if (r == AK_OK) r = ak_memcpy(ctx, hB, (char*)B + bl * nb * es, nb * es, AK_D2H);
            if (r == AK_OK) r = ak_memcpy(ctx, hD, (char*)D + bl * nd * os, nd * os, AK_D2H);
            if (r == AK_OK && bias) r = ak_memcpy(ctx, hbias, bias, c->n * es, AK_D2H);
            if (r == AK_OK && sA) r = ak_memcpy(ctx, hsA, sA, (rows ? c->m : 1) * 4, AK_D2H);
            if (r == AK_OK && sB) r = ak_memcpy(ctx, hsB, sB, (rows ? c->n : 1) * 4, AK_D2H);
            for (s = 0; s < 256 && r == AK_OK; s++) {
                const size_t mi = (size_t)(((unsigned long long)s * 2654435761ull + 17) % c->m);
                const size_t nj = (size_t)(((unsigned long long)s * 40503ull * 40503ull + 5) % c->n);
                double acc = 0, mag = 0, ref, got, tol;
                size_t kk;
                for (kk = 0; kk < c->k; kk++) {
                    const double a = ak_elem_get(hA, dt, c->ta ? kk * c->m + mi : mi * c->k + kk);
                    const double b = ak_elem_get(hB, dt, c->tb ? nj * c->k + kk : kk * c->n + nj);
                    acc += a * b;
                    mag += fabs(a * b);
                }
                if (sA) {
                    const double sc = (double)hsA[rows ? mi : 0] * (double)hsB[rows ? nj : 0];
                    acc *= sc; mag *= sc;
                }
                if (bias) acc += ak_elem_get(hbias, dt, nj);
                ref = act_ref(act, acc);
                got = ak_elem_get(hD, ot, mi * c->n + nj);
                tol = ot == AK_I32 ? 0.0 : (dt == AK_F32 ? (!strcmp(c->dt, "tf32") ? 3e-3 : 1e-5) : 1e-2) * (mag + 1.0);
                if (!(fabs(got - ref) <= tol)) bad++;
                if (fabs(got - ref) / (mag + 1.0) > worst) worst = fabs(got - ref) / (mag + 1.0);
            }
        }
        if (r == AK_OK) {
            float ms = 0;
            ak_event_record(e0, NULL);
            r = ak_gemm(cx, &g, NULL);
            ak_event_record(e1, NULL);
            ak_event_synchronize(e1);
            ak_event_elapsed_ms(e0, e1, &ms);
            trials = ms > 0 ? (int)(200.0 / ms) : 50;
            if (trials < 5) trials = 5;
            if (trials > 50) trials = 50;
        }
        for (k = 0; k < trials && r == AK_OK; k++) {
            float ms = 0;
            if (scratch) ak_memset(ctx, scratch, k & 0xFF, scratch_bytes, NULL);
            ak_event_record(e0, NULL);
            r = ak_gemm(cx, &g, NULL);
            ak_event_record(e1, NULL);
            ak_event_synchronize(e1);
            ak_event_elapsed_ms(e0, e1, &ms);
            t[k] = ms;
        }
        if (r != AK_OK || trials == 0) {
            fprintf(stderr, "%s: %s\n", c->name, ak_last_error());
            fprintf(f, "%s  {\"name\": \"%s\", \"error\": \"run failed\"}", written++ ? ",\n" : "", c->name);
        } else {
            ak_bench_stats st;
            ak_bench_stats_of(t, trials, &st);
            tf = 2.0 * (double)c->m * (double)c->n * (double)c->k * (double)c->batch / (st.median * 1e-3) / 1e12;
            /* decode (m <= 16) streams B; n <= 16 < m (a matrix-vector product, the transposed decode) streams A */
            const int by_a = c->n <= 16 && c->n < c->m;
            if ((c->m <= 16 || by_a) && copy_gbps > 0)
                bw = (double)(by_a ? na : nb) * (double)c->batch * (double)es / (st.median * 1e-3) / 1e9;
            printf("%-44s %9.4f %8.1f %6s %s", c->name, st.median, tf, bad ? "FAIL" : "ok", p.kernel);
            if (bw > 0) printf("  %s at %.0f GB/s = %.0f%% of copy", by_a ? "A" : "B", bw, 100 * bw / copy_gbps);
            printf("\n");
            fflush(stdout);
            fprintf(f, "%s  {\"name\": \"%s\", \"impl\": \"amdkit\", \"dtype\": \"%s\", \"m\": %zu, \"n\": %zu, \"k\": %zu, \"batch\": %zu, "
                       "\"ta\": %d, \"tb\": %d, \"epilogue\": \"%s\", \"kernel\": \"%s\", \"path\": \"%s\", \"correct\": %s, "
                       "\"worst_rel_err\": %.3g, \"mean\": %.6f, \"std\": %.6f, \"min\": %.6f, \"max\": %.6f, \"median\": %.6f, "
                       "\"num_trials\": %d, \"hardware\": \"%s\", \"device\": \"%s\", \"tflops\": %.3f, \"b_gbps\": %.1f}",
                    written++ ? ",\n" : "", c->name, c->dt, c->m, c->n, c->k, c->batch, c->ta, c->tb, c->epi, p.kernel, p.path,
                    bad ? "false" : "true", worst, st.mean, st.std, st.min, st.max, st.median, trials, di->name, di->arch, tf, bw);
            fflush(f);
        }
        free(hA); free(hB); free(hD); free(hbias); free(hsA); free(hsB);
        ak_free(ctx, A); ak_free(ctx, B); ak_free(ctx, D); ak_free(ctx, bias); ak_free(ctx, sA); ak_free(ctx, sB);
    }
    fprintf(f, "\n]}\n");
    if (out) fclose(f);
    ak_event_destroy(e0);
    ak_event_destroy(e1);
    ak_free(ctx, scratch);
    ak_context_destroy(ctx32);
    ak_context_destroy(ctx);
    return 0;
}
