/* `amdkit demo`: run a few library kernels on whatever backend this machine
 * has (a GPU through hip or cuda, else the cpu backend) and check each
 * against its CPU reference (the same call on a cpu-backend context).
 * Exit 0 only if every check passes. */
#include "../amdkit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct demo_env {
    ak_context* dev;     /* the machine's backend */
    ak_context* ref;     /* cpu backend: the reference */
    unsigned long long seed;
    int failures;
} demo_env;

static double rnd(unsigned long long* s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0 * 4.0 - 2.0; /* [-2, 2) */
}

/* A buffer on both contexts with the same random contents. */
typedef struct twin { void* d; void* h; size_t bytes; } twin;
static int twin_make(demo_env* e, twin* t, ak_dtype dt, size_t n, int random) {
    size_t i;
    t->bytes = n * ak_dtype_size(dt);
    t->d = NULL;
    t->h = NULL;
    if (ak_malloc(e->dev, t->bytes, NULL, &t->d) != AK_OK || ak_malloc(e->ref, t->bytes, NULL, &t->h) != AK_OK) return 0;
    for (i = 0; i < n; i++) ak_elem_set(t->h, dt, i, random ? rnd(&e->seed) : 0.0);
    return ak_memcpy(e->dev, t->d, t->h, t->bytes, e->dev == e->ref ? AK_H2H : AK_H2D) == AK_OK;
}
static void twin_free(demo_env* e, twin* t) { ak_free(e->dev, t->d); ak_free(e->ref, t->h); }

/* Compare the device result with the reference result: n elements of dtype dt (the result's), shown under the
 * dtype of the group (`shown`: the inputs'). */
static void compare(demo_env* e, const char* what, ak_dtype shown, ak_dtype dt, twin* t, size_t n, double tol) {
    void* got = malloc(t->bytes);
    size_t i, bad = 0;
    double worst = 0;
    if (!got || ak_memcpy(e->dev, got, t->d, t->bytes, ak_context_device(e->dev)->backend == AK_BACKEND_CPU ? AK_H2H : AK_D2H) != AK_OK) {
        printf("  %-34s %-5s copy back failed: %s\n", what, ak_dtype_name(shown), ak_last_error());
        e->failures++;
        free(got);
        return;
    }
    for (i = 0; i < n; i++) {
        double a = ak_elem_get(got, dt, i), b = ak_elem_get(t->h, dt, i);
        double err = fabs(a - b) / (1.0 + fabs(b));
        if (!(err <= tol)) bad++;
        if (err > worst || err != err) worst = err;
    }
    printf("  %-34s %-5s n=%-9zu max rel err %.2e  %s\n", what, ak_dtype_name(shown), n, worst, bad ? "FAIL" : "ok");
    if (bad) e->failures++;
    free(got);
}

static int ok(demo_env* e, ak_result r, const char* what) {
    if (r == AK_OK) return 1;
    printf("  %-34s error %s: %s\n", what, ak_result_name(r), ak_last_error());
    e->failures++;
    return 0;
}

int amdkit_demo(int argc, char** argv);
int amdkit_demo(int argc, char** argv) {
    demo_env e;
    ak_config rc = ak_config_default();
    const ak_device_info* d;
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16 };
    const size_t n = 1000003;  /* odd on purpose */
    int i;
    (void)argc; (void)argv;
    memset(&e, 0, sizeof e);
    e.seed = 0x5DEECE66Dull ^ (unsigned long long)time(NULL);
    if (ak_context_create(NULL, &e.dev) != AK_OK) { printf("demo: %s\n", ak_last_error()); return 1; }
    rc.backend = AK_BACKEND_CPU;
    rc.log_level = AK_LOG_ERROR;
    if (ak_context_create(&rc, &e.ref) != AK_OK) { printf("demo: %s\n", ak_last_error()); return 1; }
    d = ak_context_device(e.dev);
    printf("amdkit demo on %s (%s, backend %s): each kernel against its CPU reference\n", d->name, d->arch, ak_backend_name(d->backend));
    if (d->backend == AK_BACKEND_CPU)
        printf("note: no GPU backend is in use, so both sides run the cpu backend's C reference: this checks the\n"
               "      library's host path and the comparison, not a GPU kernel (run it where hip or cuda is selected)\n");
    for (i = 0; i < 3; i++) {
        ak_dtype dt = dts[i];
        double tol = dt == AK_F32 ? 1e-5 : 1e-2;
        twin x, y;
        if (!twin_make(&e, &x, dt, n, 1) || !twin_make(&e, &y, dt, n, 1)) { ok(&e, AK_ERROR_OUT_OF_MEMORY, "alloc"); break; }
        if (ok(&e, ak_axpy(e.dev, dt, x.d, y.d, n, 0.75f, NULL), "axpy") && ok(&e, ak_axpy(e.ref, dt, x.h, y.h, n, 0.75f, NULL), "axpy ref"))
            compare(&e, "axpy y = 0.75 x + y", dt, dt, &y, n, tol);
        if (ok(&e, ak_unary(e.dev, AK_OP_GELU, dt, x.d, y.d, n, 0.f, NULL), "gelu") &&
            ok(&e, ak_unary(e.ref, AK_OP_GELU, dt, x.h, y.h, n, 0.f, NULL), "gelu ref"))
            compare(&e, "gelu (erf)", dt, dt, &y, n, tol);
        if (ok(&e, ak_transpose(e.dev, dt, x.d, y.d, 1000, 1000, NULL), "transpose") &&
            ok(&e, ak_transpose(e.ref, dt, x.h, y.h, 1000, 1000, NULL), "transpose ref"))
            compare(&e, "transpose 1000x1000", dt, dt, &y, 1000 * 1000, 0.0);
        {   /* row ops on 997 rows of 1003 (odd; fits in the n-element buffers) */
            const size_t R = 997, C = 1003;
            twin w, b, s;
            if (twin_make(&e, &w, dt, C, 1) && twin_make(&e, &b, dt, C, 1) && twin_make(&e, &s, AK_F32, R, 0)) {
                if (ok(&e, ak_softmax(e.dev, dt, x.d, y.d, R, C, 0, NULL), "softmax") &&
                    ok(&e, ak_softmax(e.ref, dt, x.h, y.h, R, C, 0, NULL), "softmax ref"))
                    compare(&e, "softmax 997x1003", dt, dt, &y, R * C, tol);
                if (ok(&e, ak_layernorm(e.dev, dt, x.d, w.d, b.d, y.d, R, C, 1e-5f, NULL), "layernorm") &&
                    ok(&e, ak_layernorm(e.ref, dt, x.h, w.h, b.h, y.h, R, C, 1e-5f, NULL), "layernorm ref"))
                    compare(&e, "layernorm 997x1003", dt, dt, &y, R * C, tol);
                if (ok(&e, ak_reduce(e.dev, AK_REDUCE_SUM, dt, x.d, s.d, R, C, NULL), "row sum") &&
                    ok(&e, ak_reduce(e.ref, AK_REDUCE_SUM, dt, x.h, s.h, R, C, NULL), "row sum ref"))
                    compare(&e, "sum along rows 997x1003 (f32 out)", dt, AK_F32, &s, R, 1e-4);
            }
            twin_free(&e, &w);
            twin_free(&e, &b);
            twin_free(&e, &s);
        }
        twin_free(&e, &x);
        twin_free(&e, &y);
    }
    ak_stream_synchronize(e.dev, NULL);
    {
        ak_cache_stats s;
        if (ak_cache_stats_get(e.dev, &s) == AK_OK)
            printf("cache: compilations %llu memory_hits %llu disk_hits %llu misses %llu (%s)\n", s.compilations, s.memory_hits,
                   s.disk_hits, s.misses, s.dir);
    }
    printf("demo: %s\n", e.failures ? "FAILED"
                            : d->backend == AK_BACKEND_CPU ? "the cpu backend's results match a second cpu context (no GPU compared)"
                                                           : "all kernels match their CPU references");
    ak_context_destroy(e.ref);
    ak_context_destroy(e.dev);
    return e.failures ? 1 : 0;
}
