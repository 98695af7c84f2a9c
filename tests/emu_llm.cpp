/* emu_llm - the GPU kernels of kernels/norm.hip (residual form), llm.hip and
 * layout.hip executed on the CPU in a host SIMT emulation, compared with the
 * cpu backend's references by the case functions of tests/t_gpu_llm.c.
 *
 *   make build/emu_llm_w64 build/emu_llm_w32 && ./build/emu_llm_w64 && ./build/emu_llm_w32
 *
 * Why: the kernels' index math (vector and scalar paths, grid-stride loops,
 * chunked rows, unit widening, wave-level reductions for AK_WAVE 32 and 64)
 * is checked on every `make test`, without a GPU. It is not a GPU test: the
 * gpu_llm suite (--gpu) runs the same cases on a device; this emulation
 * cannot see races between real waves, memory-model effects or compiler
 * behaviour of hipRTC / NVRTC.
 *
 * How: the kernel sources are compiled as host C++20 inside a namespace with
 * the HIP built-ins of the prelude's AMD path defined here: every thread of a
 * block is a std::thread, __syncthreads a std::barrier over the block, wave
 * shuffles / ballots an exchange through a per-wave barrier, __shared__
 * variables function statics (blocks run one after another), _Float16 a
 * class rounding through ak_f32_to_f16. The "device" is a cpu context on a
 * copy of the cpu backend table that claims device memory and launches into
 * the emulation, so the ops' real planning (kernel name, grid, block, the
 * generated packers' argument values) drives it. */
#define AMDKIT_IMPLEMENTATION
#define AMDKIT_TESTS
#define AKT_GPU_ON_CPU
#include "../amdkit.h"
#include <barrier>
#include <thread>
#include <vector>
#include <map>
#include <string>
#include <utility>
#include <type_traits>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>

/* ---- the HIP built-ins (AMD path of kernels/prelude.hip) ---------------------- */
struct akemu_dim3 { unsigned x, y, z; };
static thread_local akemu_dim3 threadIdx, blockIdx;
static akemu_dim3 blockDim, gridDim;
static std::barrier<>* akemu_block_bar;
static std::vector<std::barrier<>*> akemu_wave_bar;
static uint64_t akemu_xch[1024];
#define __syncthreads() akemu_block_bar->arrive_and_wait()
#define __shared__ static
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
struct akemu_half {
    uint16_t bits;
    akemu_half() = default;
    akemu_half(float f) : bits(ak_f32_to_f16(f)) {}
    operator float() const { return ak_f16_to_f32(bits); }
};
#define _Float16 akemu_half
struct float4 { float x, y, z, w; };
struct uint4 { unsigned x, y, z, w; };
struct uint2 { unsigned x, y; };
static inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
/* co-operating blocks (prelude ak_coop_arrive_wait, the split norm / softmax kernels): blocks run one after another
 * here, so a wait for other blocks would never end; the row-op table never sends an emulated case there */
static inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
#define __builtin_amdgcn_s_sleep(n) std::this_thread::yield()
static inline float __fdividef(float a, float b) { return a / b; }
/* value of lane src_lane of this thread's wave (every lane of the wave calls it) */
template <class T> static T akemu_exchange(T v, int src_lane) {
    const int t = (int)threadIdx.x, w = t / AK_WAVE;
    uint64_t b = 0, r;
    T out;
    std::memcpy(&b, &v, sizeof v);
    akemu_xch[t] = b;
    akemu_wave_bar[w]->arrive_and_wait();
    r = akemu_xch[w * AK_WAVE + src_lane];
    akemu_wave_bar[w]->arrive_and_wait();
    std::memcpy(&out, &r, sizeof out);
    return out;
}
template <class T> static T __shfl_xor(T v, int mask, int) { return akemu_exchange(v, ((int)threadIdx.x % AK_WAVE) ^ mask); }
template <class T> static T __shfl(T v, int src, int) { return akemu_exchange(v, src % AK_WAVE); }
template <class T> static T __shfl_down(T v, unsigned d, int) {
    const int l = (int)threadIdx.x % AK_WAVE;
    return akemu_exchange(v, l + (int)d < AK_WAVE ? l + (int)d : l);
}
static uint64_t __ballot(int pred) {
    const int t = (int)threadIdx.x, w = t / AK_WAVE;
    uint64_t m = 0;
    akemu_xch[t] = pred ? 1u : 0u;
    akemu_wave_bar[w]->arrive_and_wait();
    for (int i = 0; i < AK_WAVE; i++) m |= akemu_xch[w * AK_WAVE + i] << i;
    akemu_wave_bar[w]->arrive_and_wait();
    return m;
}

namespace emu {
using std::exp2;
using std::cos;
using std::sin;
#include "../kernels/prelude.hip"
#include "../kernels/norm.hip"
#include "../kernels/llm.hip"
#include "../kernels/layout.hip"
}

/* Run kernel f on a 1-D grid, one block after another. */
template <class... A, class... V> static void akemu_run(void (*f)(A...), unsigned grid, unsigned block, V... v) {
    blockDim = { block, 1, 1 };
    gridDim = { grid, 1, 1 };
    for (unsigned b = 0; b < grid; b++) {
        std::barrier<> bar((std::ptrdiff_t)block);
        std::vector<std::barrier<>*> wb;
        std::vector<std::thread> th;
        for (unsigned w = 0; w < (block + AK_WAVE - 1) / AK_WAVE; w++) wb.push_back(new std::barrier<>(AK_WAVE));
        akemu_block_bar = &bar;
        akemu_wave_bar = wb;
        for (unsigned t = 0; t < block; t++)
            th.emplace_back([=]() {
                threadIdx = { t, 0, 0 };
                blockIdx = { b, 0, 0 };
                f(v...);
            });
        for (auto& x : th) x.join();
        for (auto* p : wb) delete p;
    }
}
/* f called with the argument values of an ak_args (params[i] points at argument i) */
template <class... A, std::size_t... I>
static void akemu_call_idx(void (*f)(A...), unsigned grid, unsigned block, void** p, std::index_sequence<I...>) {
    akemu_run(f, grid, block, *(std::remove_cv_t<std::remove_reference_t<A>>*)p[I]...);
}
template <class... A> static void akemu_call(void (*f)(A...), unsigned grid, unsigned block, void** p) {
    akemu_call_idx(f, grid, block, p, std::index_sequence_for<A...>{});
}

/* ---- the subset of tests/test_main.c that tests/t_gpu_llm.c uses --------------- */
static int akemu_failed_now, akemu_passed, akemu_failed;
static unsigned long long akemu_seed;
extern "C" void akt_fail(const char* file, int line, const char* fmt, ...) {
    va_list ap;
    printf("    FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    akemu_failed_now++;
}
extern "C" void akt_run(const char* name, void (*fn)(void)) {
    akemu_failed_now = 0;
    fn();
    if (akemu_failed_now) { akemu_failed++; printf("  FAIL %s\n", name); }
    else { akemu_passed++; printf("  ok   %s\n", name); }
    fflush(stdout);
}
extern "C" void akt_skip(const char* why) { printf("    skip: %s\n", why); }
extern "C" unsigned long long akt_seed(void) { return akemu_seed; }
extern "C" double akt_uniform(unsigned long long* s, double lo, double hi) {
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return lo + (hi - lo) * ((double)(z >> 11) / 9007199254740992.0);
}
extern "C" const char* akt_tmpdir(void) { return "build/tmp"; }
extern "C" ak_context* akt_cpu_context(const char* sub) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    (void)sub;
    cfg.backend = AK_BACKEND_CPU;
    cfg.log_level = AK_LOG_NONE;
    cfg.cache_dir = "build/tmp/emu_llm_cache";
    if (ak_context_create(&cfg, &ctx) != AK_OK) return NULL;
    return ctx;
}
#include "t_gpu_llm.c"

/* ---- the launch hook: kernel name -> emulated kernel ----------------------------- */
typedef void (*akemu_caller)(unsigned, unsigned, void**);
static std::map<std::string, akemu_caller> akemu_table;
static long akemu_launches;
#define AKEMU_K(name) akemu_table[#name] = [](unsigned g, unsigned b, void** p) { akemu_call(emu::name, g, b, p); };
static void akemu_register(void) {
    AKEMU_K(ak_add_norm_f32) AKEMU_K(ak_add_norm_f16) AKEMU_K(ak_add_norm_bf16)
    AKEMU_K(ak_add_norm_wide_f32) AKEMU_K(ak_add_norm_wide_f16) AKEMU_K(ak_add_norm_wide_bf16)
    AKEMU_K(ak_rope_f32) AKEMU_K(ak_rope_f16) AKEMU_K(ak_rope_bf16) AKEMU_K(ak_ropeg_f16) AKEMU_K(ak_ropeg_bf16)
    AKEMU_K(ak_copy_nd_u8) AKEMU_K(ak_copy_nd_u16) AKEMU_K(ak_copy_nd_u32) AKEMU_K(ak_copy_nd_u64)
    AKEMU_K(ak_copy_nd_u128) AKEMU_K(ak_copy_cast_f32_f16) AKEMU_K(ak_copy_cast_f32_bf16)
    AKEMU_K(ak_copy_cast_f16_f32) AKEMU_K(ak_copy_cast_bf16_f32) AKEMU_K(ak_copy_cast_f16_bf16)
    AKEMU_K(ak_copy_cast_bf16_f16) AKEMU_K(ak_copy_cast_i32_i64) AKEMU_K(ak_copy_cast_i64_i32)
    AKEMU_K(ak_embedding_u8) AKEMU_K(ak_embedding_u16) AKEMU_K(ak_embedding_u32) AKEMU_K(ak_embedding_u64)
    AKEMU_K(ak_embedding_u128)
}
/* The launch entry of the emulating backend table. */
static ak_result akemu_launch(ak_kernel* k, ak_dim3 g, ak_dim3 b, size_t shmem, ak_stream* st, void** params) {
    const char* kernel = k->name;
    unsigned grid = g.x;
    auto it = akemu_table.find(kernel);
    (void)shmem;
    (void)st;
    if (it == akemu_table.end()) return _ak_err(AK_ERROR_LAUNCH, "emu_llm: no emulated kernel %s", kernel);
    if (g.y != 1 || g.z != 1 || b.y != 1 || b.z != 1) return _ak_err(AK_ERROR_LAUNCH, "emu_llm: %s: 1-D launches only", kernel);
    /* the grid-stride kernels get at most 5 blocks, so their loops take several turns; the norm
     * kernels map one row per group / block and get what the wrapper asked for */
    it->second(grid > 5 && strncmp(kernel, "ak_add_norm", 11) ? 5 : grid, b.x, params);
    akemu_launches++;
    return AK_OK;
}
/* The "device" context: a cpu context whose backend table says device memory
 * (so the ops plan and launch as on a GPU: _ak_op_kernel looks the kernel up,
 * nothing is compiled) and launches into the emulation (as tests/ti_kargs.c's
 * dry run, with real execution). */
static _ak_backend_ops akemu_backend;
static ak_context* akemu_context(void) {
    ak_context* ctx = akt_cpu_context("emu");
    if (!ctx) return NULL;
    ctx->dev.compute_units = 132;
    _ak_pool_destroy(ctx->pool);
    ctx->pool = NULL;
    akemu_backend = _ak_backend_cpu;
    akemu_backend.host_memory = 0;
    akemu_backend.launch = akemu_launch;
    ctx->bk = &akemu_backend;
    if (_ak_pool_create(ctx, &ctx->pool) != AK_OK) { ak_context_destroy(ctx); return NULL; }
    return ctx;
}

/* ---- the cases: every kernel and path at small sizes ------------------------------- */
static void emu_add_norm(void) {
    static const size_t shapes[][3] = { { 3, 7, 0 }, { 5, 64, 0 }, { 2, 4096, 1 }, { 9, 24, 0 }, { 2, 16392, 0 },
                                        { 1, 20001, 1 } };
    for (size_t ti = 0; ti < 3; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            size_t r = shapes[si][0], c = shapes[si][1], o = shapes[si][2];
            gl_add_norm(gl_types[ti], r, c, o, 0, 3, (int)(si % 3));
            gl_add_norm(gl_types[ti], r, c, o, 1, 1, (int)((si + 1) % 3));
        }
}
static void emu_rope(void) {
    static const size_t shapes[][4] = { { 3, 2, 16, 16 }, { 2, 3, 6, 4 }, { 2, 2, 40, 16 }, { 7, 1, 8, 8 },
                                        { 1057, 2, 48, 32 } };   /* 2 tokens per block (interleaved halves), odd tail */
    for (size_t ti = 0; ti < 3; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int m = 0; m < 2; m++) {
                const size_t* s = shapes[si];
                gl_rope((ak_rope_mode)m, gl_types[ti], AK_I64, s[0], s[1], s[2], s[3], 0, 0, 10000.0f);
                gl_rope((ak_rope_mode)m, gl_types[ti], AK_I32, s[0], s[1], s[2], s[3], 1, 0, 500000.0f);
                gl_rope((ak_rope_mode)m, gl_types[ti], AK_I32, s[0], s[1], s[2], s[3], 0, 1, 10000.0f);
            }
}
static void emu_embedding(void) {
    static const ak_dtype types[] = { AK_F32, AK_F16, AK_I64, AK_U8 };
    static const size_t dims[] = { 1, 3, 8, 65 };
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
            gl_embedding(types[ti], AK_I32, 50, dims[di], 13, 0, 0);
            gl_embedding(types[ti], AK_I64, 37, dims[di], 11, 1, 1);
        }
}
static void emu_copy(void) {
    static const ak_dtype pairs[][2] = { { AK_F32, AK_F32 }, { AK_F16, AK_F16 }, { AK_I64, AK_I64 }, { AK_U8, AK_U8 },
                                         { AK_F32, AK_F16 }, { AK_F32, AK_BF16 }, { AK_F16, AK_F32 },
                                         { AK_BF16, AK_F32 }, { AK_F16, AK_BF16 }, { AK_BF16, AK_F16 },
                                         { AK_I32, AK_I64 }, { AK_I64, AK_I32 } };
    for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        ak_dtype st = pairs[pi][0], dt = pairs[pi][1];
        size_t p4[4] = { 2, 3, 5, 8 }, p3[3] = { 5, 3, 9 }, sl[2] = { 4, 24 }, rv[3] = { 2, 5, 7 };
        size_t s6[6] = { 2, 2, 3, 2, 2, 4 }, l1[1] = { 20011 }, one[1] = { 1 };
        int64_t p4s[4] = { 120, 8, 24, 1 }, p4d[4] = { 120, 40, 8, 1 };   /* [2][5][3][8] read as [2][3][5][8] */
        int64_t p3s[3] = { 1, 5, 15 }, p3d[3] = { 27, 9, 1 };
        int64_t sls[2] = { 32, 1 }, sld[2] = { 48, 1 };
        int64_t rvs[3] = { 0, -7, -1 }, rvd[3] = { 35, 7, 1 };
        int64_t s6s[6] = { 96, 48, 16, 8, 4, 1 }, s6d[6] = { 1, 2, 4, 12, 24, 48 }, u1[1] = { 1 };
        gl_copy(st, dt, 4, p4, p4s, 0, 240, p4d, 0, 240, "permute 0213");
        gl_copy(st, dt, 4, p4, p4s, 1, 241, p4d, 3, 243, "permute 0213 odd");
        gl_copy(st, dt, 3, p3, p3s, 0, 135, p3d, 0, 135, "permute 210");
        gl_copy(st, dt, 2, sl, sls, 36, 160, sld, 24, 200, "slice / concat");
        gl_copy(st, dt, 3, rv, rvs, 34, 35, rvd, 0, 70, "reverse + broadcast");
        gl_copy(st, dt, 6, s6, s6s, 0, 192, s6d, 0, 192, "6-d");
        gl_copy(st, dt, 1, l1, u1, 0, 20011, u1, 0, 20011, "1-d long (chunked)");
        gl_copy(st, dt, 1, l1, u1, 1, 20012, u1, 0, 20011, "1-d long misaligned");
        gl_copy(st, dt, 1, one, u1, 0, 1, u1, 0, 1, "one element");
    }
}

int main(void) {
    const char* s = getenv("AKT_SEED");
    akemu_seed = s ? strtoull(s, NULL, 0) : (unsigned long long)time(NULL) * 2654435761ull;
    printf("emu_llm (AK_WAVE %d), seed %llu (replay with AKT_SEED=%llu)\n", AK_WAVE, akemu_seed, akemu_seed);
    akemu_register();
    gl_gpu = akemu_context();   /* gl_setup keeps it and adds the reference context */
    gl_rng = akemu_seed ^ 0x5EED11ull;
    if (!gl_gpu || !gl_setup()) { printf("0 passed, 1 failed\n"); return 1; }
    AKT_RUN(emu_add_norm);
    AKT_RUN(emu_rope);
    AKT_RUN(emu_embedding);
    AKT_RUN(emu_copy);
    AKT_RUN(test_gpu_llm_cleanup);
    printf("%ld emulated launches\n%d passed, %d failed\n", akemu_launches, akemu_passed, akemu_failed);
    return akemu_failed != 0;
}
