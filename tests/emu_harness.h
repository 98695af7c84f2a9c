/* emu_harness.h - the host SIMT emulation shared by tests/emu_llm.cpp and
 * tests/emu_matrix.cpp: HIP kernel sources compiled as host C++20 with the
 * built-ins of the prelude's AMD path defined here, run on fibers (one per GPU
 * thread, switched cooperatively on one host thread), and a "device" context
 * whose launches go into the emulation.
 *
 * The including file defines AKEMU_NAME (a short name: messages, cache
 * directory) and, after this header, the kernels (inside a namespace), the
 * launch table (akemu_register, AKEMU_K) and akemu_grid_policy (the grid a
 * launch runs with: a test may run fewer blocks of a grid-stride kernel).
 *
 * Model: every thread of a block is a fiber (its own stack with a guard page;
 * switched by akemu_ctx_switch on x86-64, ucontext elsewhere), run until it
 * waits at a barrier, then the next one; __syncthreads a barrier over the
 * block, wave shuffles / ballots an exchange through a per-wave barrier
 * (whose completion step may run a wave-wide operation: the matrix
 * instructions of tests/emu_matrix.cpp). A barrier that can never
 * complete (some lanes wait at it, the others finished or wait elsewhere: a
 * barrier in divergent code) is reported and ends the program, where real
 * hardware would hang or misbehave. __shared__ variables function
 * statics (blocks run one after another, x fastest, then y, then z),
 * _Float16 a class rounding through ak_f32_to_f16, clang vector types (the
 * prelude's ext_vector_type typedefs, rewritten by the Makefile for the
 * matrix kernels) akemu_vec. It cannot see races between real waves,
 * memory-model effects or the behaviour of the real compilers. */
#ifndef AKEMU_NAME
#error "define AKEMU_NAME before including tests/emu_harness.h"
#endif
#define AMDKIT_IMPLEMENTATION
#define AMDKIT_TESTS
#define AKT_GPU_ON_CPU
#include "../amdkit.h"
#include <atomic>
#include <functional>
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
#include <ucontext.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- the HIP built-ins (AMD path of kernels/prelude.hip) ---------------------- */
struct akemu_dim3 { unsigned x, y, z; };
static akemu_dim3 threadIdx, blockIdx; /* the running fiber's (set by the scheduler before each switch) */
static akemu_dim3 blockDim, gridDim;
/* A wave-wide step: run once per phase of a wave's barrier by the last lane to arrive (every lane has
 * written its operands, none has read a result yet); NULL or a no-op for phases that are plain exchanges. */
static void (*akemu_wave_hook)(int wave);
/* Switching lanes. glibc's swapcontext saves the signal mask with a system call on every switch (most of the
 * emulation's time went there); on x86-64 a lane switch is six callee-saved registers and the stack pointer
 * (akemu_ctx_switch: push them, store rsp to *save, load rsp from `to`, pop, return into the other lane). The
 * kernels never change the floating-point control state, so it is not switched. Elsewhere, and under
 * AddressSanitizer (which must be told of stack switches), ucontext. */
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(AKEMU_UCONTEXT)
#define AKEMU_FAST_SWITCH 1
extern "C" void akemu_ctx_switch(void** save, void* to);
__asm__(".pushsection .text\n"
        ".globl akemu_ctx_switch\n"
        ".type akemu_ctx_switch, @function\n"
        "akemu_ctx_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size akemu_ctx_switch, .-akemu_ctx_switch\n"
        ".popsection\n");
#else
#define AKEMU_FAST_SWITCH 0
#endif
/* the fibers of the running block: lane t's context, whether it returned, and the barrier phase it waits for */
struct akemu_fiber {
#if AKEMU_FAST_SWITCH
    void* sp; /* the saved stack pointer (the callee-saved registers are on that stack) */
#else
    ucontext_t ctx;
#endif
    char* stack;
    int done;
    const unsigned long* wait_phase_of; /* the barrier's phase counter (NULL: runnable) */
    unsigned long wait_phase;           /* runnable again once that counter moves past this */
};
static std::vector<akemu_fiber> akemu_fibers;
static int akemu_cur;
enum { AKEMU_STACK = 1 << 20 }; /* per lane, committed as touched; a guard page below it */
#if AKEMU_FAST_SWITCH
static void* akemu_sched_sp;
static void akemu_switch_out(void) { akemu_ctx_switch(&akemu_fibers[akemu_cur].sp, akemu_sched_sp); }
#else
static ucontext_t akemu_sched_ctx;
static void akemu_switch_out(void) { swapcontext(&akemu_fibers[akemu_cur].ctx, &akemu_sched_ctx); }
#endif
/* a barrier over `count` lanes; wave >= 0: a wave's barrier, whose completion runs akemu_wave_hook(wave) */
struct akemu_bar {
    int count, wave, arrived;
    unsigned long phase;
    akemu_bar(int n, int w) : count(n), wave(w), arrived(0), phase(0) {}
    void arrive_and_wait() {
        if (++arrived == count) {   /* the last lane: complete the phase and go on */
            arrived = 0;
            if (wave >= 0 && akemu_wave_hook) akemu_wave_hook(wave);
            phase++;
            return;
        }
        akemu_fibers[akemu_cur].wait_phase_of = &phase;
        akemu_fibers[akemu_cur].wait_phase = phase;
        akemu_switch_out();
    }
};
typedef akemu_bar akemu_wave_barrier;
static akemu_bar* akemu_block_bar;
static std::vector<akemu_wave_barrier*> akemu_wave_bar;
static uint64_t akemu_xch[1024];
static long akemu_yields; /* lanes that gave way while spinning (s_sleep), counted per block */
static void akemu_yield(void) { akemu_yields++; akemu_switch_out(); }
#define __syncthreads() akemu_block_bar->arrive_and_wait()
#define __shared__ static
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__ __restrict
struct akemu_half {
    uint16_t bits;
    akemu_half() = default;
    akemu_half(float f) : bits(ak_f32_to_f16(f)) {}
    operator float() const { return ak_f16_to_f32(bits); }
};
#define _Float16 akemu_half
/* __bf16 (the gfx950 MFMA operands): bits only, read by the matrix built-ins */
struct akemu_bf16 { uint16_t bits; };
#define __bf16 akemu_bf16
/* clang's ext_vector_type(N) of T: N elements, subscript, copy (what the kernels use of it) */
template <class T, int N> struct akemu_vec {
    enum { SIZE = N };
    typedef T elem;
    T e[N];
    T& operator[](int i) { return e[i]; }
    const T& operator[](int i) const { return e[i]; }
};
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
static inline float4 make_float4(float x, float y, float z, float w) { return float4{ x, y, z, w }; }
struct uint4 { unsigned x, y, z, w; };
struct uint2 { unsigned x, y; };
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{ x, y, z, w }; }
static inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{ x, y }; }
static inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
/* co-operating blocks (prelude ak_coop_arrive_wait, the split norm / softmax kernels): blocks run one after another
 * here, so a wait for other blocks would never end; the row-op table never sends an emulated case there */
static inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned atomicMax(unsigned* p, unsigned v) {
    unsigned o = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (o < v && !__atomic_compare_exchange_n(p, &o, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return o;
}
#define __builtin_amdgcn_s_sleep(n) akemu_yield()
#define __builtin_amdgcn_sched_barrier(n) ((void)0) /* a scheduling fence of the compiler: nothing to run */
static inline float __fdividef(float a, float b) { return a / b; }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
#define __expf(x) std::exp((float)(x)) /* glibc declares __expf but libm does not export it */
/* value of lane src_lane of this thread's wave (every lane of the wave calls it) */
template <class T> static T akemu_exchange(T v, int src_lane) {
    const int t = akemu_cur, w = t / AK_WAVE;
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
template <class T> static T __shfl_xor(T v, int mask, int) { return akemu_exchange(v, (akemu_cur % AK_WAVE) ^ mask); }
template <class T> static T __shfl(T v, int src, int) { return akemu_exchange(v, src % AK_WAVE); }
template <class T> static T __shfl_down(T v, unsigned d, int) {
    const int l = akemu_cur % AK_WAVE;
    return akemu_exchange(v, l + (int)d < AK_WAVE ? l + (int)d : l);
}
static uint64_t __ballot(int pred) {
    const int t = akemu_cur, w = t / AK_WAVE;
    uint64_t m = 0;
    akemu_xch[t] = pred ? 1u : 0u;
    akemu_wave_bar[w]->arrive_and_wait();
    for (int i = 0; i < AK_WAVE; i++) m |= akemu_xch[w * AK_WAVE + i] << i;
    akemu_wave_bar[w]->arrive_and_wait();
    return m;
}

/* Run kernel f on a grid, one block after another (x fastest), bdim.x x bdim.y x bdim.z threads a block (x fastest
 * in the lane order that makes the waves; `unsigned block`: 1-D): each lane a
 * fiber, resumed in lane order whenever the barrier it waits at has completed, until every lane has returned. */
static std::function<void()> akemu_body;
static void akemu_lane_main(void) {
    akemu_body();
    akemu_fibers[akemu_cur].done = 1;
#if AKEMU_FAST_SWITCH
    akemu_switch_out(); /* never resumed: the scheduler skips a finished lane */
    abort();
#endif
    /* ucontext: uc_link returns to the scheduler */
}
static void akemu_run_block(unsigned block) {
    if (akemu_fibers.size() < block) {
        size_t old = akemu_fibers.size(), page = (size_t)sysconf(_SC_PAGESIZE);
        akemu_fibers.resize(block);
        for (size_t t = old; t < block; t++) {
            void* m = mmap(NULL, AKEMU_STACK + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (m == MAP_FAILED) { fprintf(stderr, AKEMU_NAME ": no memory for a lane's stack\n"); exit(2); }
            mprotect(m, page, PROT_NONE); /* a stack overflow faults instead of writing into the next lane's stack */
            akemu_fibers[t].stack = (char*)m + page;
        }
    }
    for (unsigned t = 0; t < block; t++) {
        akemu_fiber& f = akemu_fibers[t];
#if AKEMU_FAST_SWITCH
        /* the new lane's stack as akemu_ctx_switch leaves one: six zeroed registers, then the address it returns
         * to (akemu_lane_main), then a null return address for akemu_lane_main, which is entered with rsp % 16 == 8
         * as after a call */
        void** top = (void**)(f.stack + AKEMU_STACK);
        top[-1] = NULL;
        top[-2] = (void*)akemu_lane_main;
        for (int r = 3; r <= 8; r++) top[-r] = NULL;
        f.sp = top - 8;
#else
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack;
        f.ctx.uc_stack.ss_size = AKEMU_STACK;
        f.ctx.uc_link = &akemu_sched_ctx;
        makecontext(&f.ctx, akemu_lane_main, 0);
#endif
        f.done = 0;
        f.wait_phase_of = NULL;
    }
    unsigned left = block;
    akemu_yields = 0;
    while (left) {
        int ran = 0;
        for (unsigned t = 0; t < block; t++) {
            akemu_fiber& f = akemu_fibers[t];
            if (f.done || (f.wait_phase_of && *f.wait_phase_of == f.wait_phase)) continue;
            f.wait_phase_of = NULL;
            akemu_cur = (int)t;
            threadIdx = { t % blockDim.x, (t / blockDim.x) % blockDim.y, t / (blockDim.x * blockDim.y) };
#if AKEMU_FAST_SWITCH
            akemu_ctx_switch(&akemu_sched_sp, f.sp);
#else
            swapcontext(&akemu_sched_ctx, &f.ctx);
#endif
            ran = 1;
            if (f.done) left--;
        }
        if (!ran || akemu_yields > 100000000L) {
            fprintf(stderr, AKEMU_NAME ": block (%u, %u, %u): %u of %u lanes %s\n", blockIdx.x, blockIdx.y, blockIdx.z, left, block,
                    ran ? "spin forever (s_sleep)" : "wait at barriers that cannot complete (a barrier in divergent code?)");
            exit(3);
        }
    }
}
template <class... A, class... V> static void akemu_run(void (*f)(A...), akemu_dim3 grid, akemu_dim3 bdim, V... v) {
    const unsigned block = bdim.x * bdim.y * bdim.z;
    akemu_body = [=]() { f(v...); };
    blockDim = bdim;
    gridDim = grid;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                akemu_bar bar((int)block, -1);
                std::vector<akemu_wave_barrier*> wb;
                for (unsigned w = 0; w < (block + AK_WAVE - 1) / AK_WAVE; w++) {
                    const unsigned lanes = block - w * AK_WAVE < (unsigned)AK_WAVE ? block - w * AK_WAVE : (unsigned)AK_WAVE;
                    wb.push_back(new akemu_wave_barrier((int)lanes, (int)w));
                }
                akemu_block_bar = &bar;
                akemu_wave_bar = wb;
                blockIdx = { bx, by, bz };
                akemu_run_block(block);
                for (auto* p : wb) delete p;
            }
}
template <class... A, class... V> static void akemu_run(void (*f)(A...), akemu_dim3 grid, unsigned block, V... v) {
    akemu_run(f, grid, akemu_dim3{ block, 1, 1 }, v...);
}
/* f called with the argument values of an ak_args (params[i] points at argument i) */
template <class... A, std::size_t... I>
static void akemu_call_idx(void (*f)(A...), akemu_dim3 grid, akemu_dim3 block, void** p, std::index_sequence<I...>) {
    akemu_run(f, grid, block, *(std::remove_cv_t<std::remove_reference_t<A>>*)p[I]...);
}
template <class... A> static void akemu_call(void (*f)(A...), akemu_dim3 grid, akemu_dim3 block, void** p) {
    akemu_call_idx(f, grid, block, p, std::index_sequence_for<A...>{});
}

/* ---- the subset of tests/test_main.c that the included case files use ---------- */
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
/* A test binary's start: the seed (AKT_SEED, else from the clock), the banner (name, wave, extra) with it, the
 * launch table. */
static void akemu_register(void);
static void akemu_begin(const char* name, const char* extra) {
    const char* s = getenv("AKT_SEED");
    akemu_seed = s ? strtoull(s, NULL, 0) : (unsigned long long)time(NULL) * 2654435761ull;
    printf("%s (AK_WAVE %d)%s, seed %llu (replay with AKT_SEED=%llu)\n", name, AK_WAVE, extra, akemu_seed, akemu_seed);
    akemu_register();
}
extern "C" double akt_uniform(unsigned long long* s, double lo, double hi) {
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return lo + (hi - lo) * ((double)(z >> 11) / 9007199254740992.0);
}
extern "C" const char* akt_tmpdir(void) { return "build/tmp"; }
/* a cpu context: the reference, or (cfg given) the base of an emulating one */
static ak_context* akemu_cpu_context(const ak_config* base) {
    ak_config cfg = base ? *base : ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU;
    cfg.log_level = AK_LOG_NONE;
    cfg.cache_dir = "build/tmp/" AKEMU_NAME "_cache";
    if (ak_context_create(&cfg, &ctx) != AK_OK) return NULL;
    return ctx;
}
extern "C" ak_context* akt_cpu_context(const char* sub) {
    (void)sub;
    return akemu_cpu_context(NULL);
}

/* ---- the launch hook: kernel name -> emulated kernel ----------------------------- */
typedef void (*akemu_caller)(akemu_dim3, akemu_dim3, void**);
static std::map<std::string, akemu_caller> akemu_table;
static std::map<std::string, long> akemu_ran;   /* launches per kernel */
static long akemu_launches;
#define AKEMU_K(name) akemu_table[#name] = [](akemu_dim3 g, akemu_dim3 b, void** p) { akemu_call(emu::name, g, b, p); };
/* defined by the including file: the grid the emulation runs for a launch of `kernel` on grid g */
static akemu_dim3 akemu_grid_policy(const char* kernel, akemu_dim3 g);
/* The launch entry of the emulating backend table. */
static ak_result akemu_launch(ak_kernel* k, ak_dim3 g, ak_dim3 b, size_t shmem, ak_stream* st, void** params) {
    const char* kernel = k->name;
    auto it = akemu_table.find(kernel);
    (void)shmem;
    (void)st;
    if (it == akemu_table.end()) return _ak_err(AK_ERROR_LAUNCH, AKEMU_NAME ": no emulated kernel %s", kernel);
    if (b.x < 1 || b.y < 1 || b.z < 1 || (size_t)b.x * b.y * b.z > 1024)
        return _ak_err(AK_ERROR_LAUNCH, AKEMU_NAME ": %s: block %ux%ux%u (1..1024 threads only)", kernel, b.x, b.y, b.z);
    it->second(akemu_grid_policy(kernel, akemu_dim3{ g.x, g.y, g.z }), akemu_dim3{ b.x, b.y, b.z }, params);
    akemu_launches++;
    akemu_ran[kernel]++;
    return AK_OK;
}
/* The "device" context: a cpu context whose backend table says device memory
 * (so the ops plan and launch as on a GPU: _ak_op_kernel looks the kernel up,
 * nothing is compiled) and launches into the emulation (as tests/ti_kargs.c's
 * dry run, with real execution). cfg: its configuration (NULL: the defaults);
 * arch: the target the ops plan for (cfg.arch, and the device's arch and wave
 * size; NULL: none); cus: the device's compute units. */
static _ak_backend_ops akemu_backend;
static ak_context* akemu_context_for(const ak_config* cfg, const char* arch, int cus) {
    ak_config c = cfg ? *cfg : ak_config_default();
    ak_context* ctx;
    if (arch) c.arch = arch;
    ctx = akemu_cpu_context(&c);
    if (!ctx) return NULL;
    ctx->dev.compute_units = cus;
    if (arch) {
        snprintf(ctx->dev.arch, sizeof ctx->dev.arch, "%s", arch);
        snprintf(ctx->dev.arch_base, sizeof ctx->dev.arch_base, "%s", arch);
        ctx->dev.wave_size = AK_WAVE;
    }
    _ak_pool_destroy(ctx->pool);
    ctx->pool = NULL;
    akemu_backend = _ak_backend_cpu;
    akemu_backend.host_memory = 0;
    akemu_backend.launch = akemu_launch;
    ctx->bk = &akemu_backend;
    if (_ak_pool_create(ctx, &ctx->pool) != AK_OK) { ak_context_destroy(ctx); return NULL; }
    return ctx;
}
static ak_context* akemu_context(void) { return akemu_context_for(NULL, NULL, 132); }
/* The GPU suites' device context (the test runner's akt_gpu_context_ex) in an
 * emulation binary that includes a suite: the emulating context. A binary
 * that needs another (an arch, a CU count) defines AKEMU_OWN_GPU_CONTEXT
 * before including this header and writes its own. */
#if !defined(AKEMU_OWN_GPU_CONTEXT)
extern "C" ak_context* akt_gpu_context_ex(const ak_config* cfg, int allow_cpu) {
    (void)cfg;
    (void)allow_cpu;
    return akemu_context();
}
#endif
