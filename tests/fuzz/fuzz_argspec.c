/* Fuzz target: `amdkit run`'s argument specs and expressions (akr_parse_arg,
 * akr_eval in examples/amdkit_run.c) on arbitrary bytes. Neither may crash,
 * read out of bounds, overflow (UBSan) or loop; a failure must leave a
 * message; a parsed buffer must have numel = product of its dims and at most
 * 2^40 bytes; a parsed integer scalar must fit its type.
 *
 *   libFuzzer:   clang -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_argspec.c -o fz && ./fz
 *   standalone:  cc -DAKR_FUZZ_STANDALONE -fsanitize=address,undefined tests/fuzz/fuzz_argspec.c -o fz -ldl -lpthread -lm
 *                ./fz [ITERATIONS] [SEED]   (mutates a built-in corpus with a token dictionary; make test runs it)
 */
#define AMDKIT_IMPLEMENTATION
#include "../../amdkit.h"
#include "../../examples/amdkit_run.c"
#include <stdint.h>

static int fz_lookup(void* user, const char* name, const char* fn, akr_val* out) {
    (void)user;
    if (fn) {
        if (strcmp(name, "x")) return 0;
        *out = akr_int(!strcmp(fn, "bytes") ? 4000 : 1000);
        return 1;
    }
    if (!strcmp(name, "n")) { *out = akr_int(1000); return 1; }
    if (!strcmp(name, "big")) { *out = akr_int(LLONG_MAX); return 1; }
    if (!strcmp(name, "neg")) { *out = akr_int(LLONG_MIN); return 1; }
    if (!strcmp(name, "h")) { *out = akr_dbl(0.5); return 1; }
    return 0;
}

static void fz_require(int cond, const char* what, const char* input) {
    if (!cond) {
        fprintf(stderr, "fuzz_argspec: %s for input '%s'\n", what, input);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    char buf[1024], err[512];
    akr_arg a;
    akr_val v;
    int i;
    if (size >= sizeof buf) size = sizeof buf - 1;
    memcpy(buf, data, size);
    buf[size] = 0;
    err[0] = 0;
    if (akr_parse_arg(buf, &a, fz_lookup, NULL, err, sizeof err)) {
        if (a.kind == AKR_BUFFER) {
            unsigned long long n = 1;
            fz_require(a.ndim >= 1 && a.ndim <= AKR_MAX_DIMS, "dimension count", buf);
            for (i = 0; i < a.ndim; i++) { fz_require(a.dims[i] >= 1, "dimension < 1", buf); n *= a.dims[i]; }
            fz_require(n == a.numel && a.bytes == a.numel * ak_dtype_size(a.dtype) && a.bytes <= AKR_MAX_BYTES, "buffer size", buf);
        } else {
            fz_require(a.kind == AKR_SCALAR && a.dir == AK_ARG_VALUE, "scalar kind", buf);
            if (akr_types[a.type].is_int) {
                fz_require(a.value.is_int, "integer scalar holds a non-integer", buf);
                if (a.type == AKR_T_I32) fz_require(a.value.i >= INT32_MIN && a.value.i <= INT32_MAX, "i32 range", buf);
                if (a.type == AKR_T_U32) fz_require(a.value.i >= 0 && a.value.i <= (long long)UINT32_MAX, "u32 range", buf);
            }
        }
    } else {
        fz_require(err[0] != 0 && memchr(err, 0, sizeof err) != NULL, "failure without a message", buf);
    }
    err[0] = 0;
    if (!akr_eval(buf, fz_lookup, NULL, &v, err, sizeof err)) fz_require(err[0] != 0, "expression failure without a message", buf);
    else fz_require(v.is_int || v.d == v.d || 1, "value", buf);
    return 0;
}

#ifdef AKR_FUZZ_STANDALONE
static const char* fz_corpus[] = {
    "i32:1024", "f32:0.5", "u32:7", "i64:-3", "u64:9", "f64:1e-3", "n=i32:1048576", "a=f32:-2.5e3",
    "x=in:f32[n]:rand", "y=out:f16[4096x4096]:zeros", "w=inout:bf16[3,n,2]:ones", "i32[n*2]:range", "u8[64]:@in.bin",
    "f32[cdiv(n,3)x7]:rand", "i32:cdiv(n, 256) * 256 + min(3, max(1, 2)) % 5", "f64:bytes(x)/numel(x)", "i64:0x7fffffffffffffff",
    "f32[(n+1)/2,2]:@a b.npy", "i32:-(-(-(1)))", "f32:h*2", "i32:big", "i32:neg/ -1", "f32[0]:rand", "bf16:1",
};
static const char* fz_tokens[] = {
    "f32", "f16", "bf16", "i32", "u64", "[", "]", ":", "x", ",", "rand", "zeros", "@", "cdiv(", "min(", "bytes(x)", "numel(",
    "(", ")", "*", "/", "%", "-", "+", "9223372036854775807", "4294967296", "1e308", "0x", "n", "big", "neg", "h", "in:", "out:",
    "=", ".", "e", " ", "\t", "0", "1099511627776",
};
static unsigned long long fz_state;
static unsigned fz_rand(unsigned n) {
    fz_state ^= fz_state << 13; fz_state ^= fz_state >> 7; fz_state ^= fz_state << 17;
    return n ? (unsigned)(fz_state % n) : 0;
}
int main(int argc, char** argv) {
    long iters = argc > 1 ? atol(argv[1]) : 200000, it;
    char buf[1100];
    size_t ncorp = sizeof fz_corpus / sizeof fz_corpus[0], ntok = sizeof fz_tokens / sizeof fz_tokens[0];
    fz_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ull;
    if (!fz_state) fz_state = 1;
    for (it = 0; it < iters; it++) {
        size_t len, k, m = 1 + fz_rand(6);
        snprintf(buf, sizeof buf, "%s", fz_corpus[fz_rand((unsigned)ncorp)]);
        for (k = 0; k < m; k++) {
            int op = (int)fz_rand(5);
            len = strlen(buf);
            if (op == 0 && len) {                          /* replace a byte */
                buf[fz_rand((unsigned)len)] = (char)(1 + fz_rand(255));
            } else if (op == 1 && len) {                   /* truncate */
                buf[fz_rand((unsigned)len)] = 0;
            } else if (op == 2) {                          /* insert a token */
                size_t at = fz_rand((unsigned)len + 1);
                const char* t = fz_tokens[fz_rand((unsigned)ntok)];
                size_t tl = strlen(t);
                if (len + tl < 1000) {
                    memmove(buf + at + tl, buf + at, len - at + 1);
                    memcpy(buf + at, t, tl);
                }
            } else if (op == 3 && len) {                   /* delete a byte */
                size_t at = fz_rand((unsigned)len);
                memmove(buf + at, buf + at + 1, len - at);
            } else if (op == 4) {                          /* splice another corpus entry in */
                const char* o = fz_corpus[fz_rand((unsigned)ncorp)];
                size_t at = fz_rand((unsigned)len + 1);
                if (at + strlen(o) < 1000) strcpy(buf + at, o);
            }
        }
        LLVMFuzzerTestOneInput((const uint8_t*)buf, strlen(buf));
    }
    /* a few fixed nasty ones */
    {
        static const char* fixed[] = { "", "=", "x=", "f32[", "f32[]:rand", "f32[1x]:rand", "i32:(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1",
                                       "i32:--------------------------------------------------------------------------------1",
                                       "i32:big*big", "i32:neg%-1", "f32:1/0", "i64:cdiv(neg,1)", "f32[1099511627776x2]:rand" };
        size_t i;
        for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++) LLVMFuzzerTestOneInput((const uint8_t*)fixed[i], strlen(fixed[i]));
    }
    printf("fuzz_argspec: %ld mutated inputs + fixed cases, no failure\n", iters);
    return 0;
}
#endif
