/* Fuzz target argspec: `amdkit run`'s argument specs and expressions
 * (akr_parse_arg, akr_eval in examples/amdkit_run.c) on arbitrary bytes.
 * Neither may crash, read out of bounds, overflow (UBSan) or loop; a failure
 * must leave a message; a parsed buffer must have numel = product of its dims
 * and at most 2^40 bytes; a parsed integer scalar must fit its type. Names
 * the expressions may use: n = 1000, big = LLONG_MAX, neg = LLONG_MIN,
 * h = 0.5, and bytes(x) / numel(x). Included by fuzz_main.c. */
#include "../../examples/amdkit_run.c"

static int akf_argspec_lookup(void* user, const char* name, const char* fn, akr_val* out) {
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

static void akf_argspec_require(int cond, const char* what, const char* input) {
    if (!cond) {
        fprintf(stderr, "fuzz argspec: %s for input '%s'\n", what, input);
        abort();
    }
}

static int akf_argspec(const uint8_t* data, size_t size) {
    char buf[1024], err[512];
    akr_arg a;
    akr_val v;
    int i;
    if (size >= sizeof buf) size = sizeof buf - 1;
    memcpy(buf, data, size);
    buf[size] = 0;
    err[0] = 0;
    if (akr_parse_arg(buf, &a, akf_argspec_lookup, NULL, err, sizeof err)) {
        if (a.kind == AKR_BUFFER) {
            unsigned long long n = 1;
            akf_argspec_require(a.ndim >= 1 && a.ndim <= AKR_MAX_DIMS, "dimension count", buf);
            for (i = 0; i < a.ndim; i++) { akf_argspec_require(a.dims[i] >= 1, "dimension < 1", buf); n *= a.dims[i]; }
            akf_argspec_require(n == a.numel && a.bytes == a.numel * ak_dtype_size(a.dtype) && a.bytes <= AKR_MAX_BYTES, "buffer size", buf);
        } else {
            akf_argspec_require(a.kind == AKR_SCALAR && a.dir == AK_ARG_VALUE, "scalar kind", buf);
            if (akr_types[a.type].is_int) {
                akf_argspec_require(a.value.is_int, "integer scalar holds a non-integer", buf);
                if (a.type == AKR_T_I32) akf_argspec_require(a.value.i >= INT32_MIN && a.value.i <= INT32_MAX, "i32 range", buf);
                if (a.type == AKR_T_U32) akf_argspec_require(a.value.i >= 0 && a.value.i <= (long long)UINT32_MAX, "u32 range", buf);
            }
        }
    } else {
        akf_argspec_require(err[0] != 0 && memchr(err, 0, sizeof err) != NULL, "failure without a message", buf);
    }
    err[0] = 0;
    if (!akr_eval(buf, akf_argspec_lookup, NULL, &v, err, sizeof err))
        akf_argspec_require(err[0] != 0, "expression failure without a message", buf);
    return 0;
}
