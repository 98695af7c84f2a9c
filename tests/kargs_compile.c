/* The generated packers (amdkit.h, _ak_kargs_<stem>, from tools/akgen.c) are
 * typed C functions: a call with the wrong number or kind of arguments must
 * not compile. tests/run_all.sh (step kargs-typed) builds this file as is
 * (it must compile and run) and with each AKT_KARGS_* macro (each must fail
 * to compile under -Werror). */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"

int main(void) {
    _ak_kargs a;
    float x[16] = { 0 };
#if defined(AKT_KARGS_TOO_FEW)
    _ak_kargs_norm(&a, x, NULL, NULL, x, 1, 16, 1, 0, 1e-5f);         /* rms missing */
#elif defined(AKT_KARGS_TOO_MANY)
    _ak_kargs_norm(&a, x, NULL, NULL, x, 1, 16, 1, 0, 1e-5f, 0, 0);   /* one too many */
#elif defined(AKT_KARGS_POINTER_FOR_INT)
    _ak_kargs_norm(&a, x, NULL, NULL, x, x, 16, 1, 0, 1e-5f, 0);      /* rows given a pointer */
#elif defined(AKT_KARGS_INT_FOR_POINTER)
    _ak_kargs_fill(&a, 5, 16, 1.0f);                                  /* y given an integer */
#elif defined(AKT_KARGS_CONST_FOR_OUTPUT)
    const float* cx = x;
    _ak_kargs_fill(&a, cx, 16, 1.0f);                                 /* a read-only pointer as the output */
#else
    _ak_kargs_norm(&a, x, NULL, NULL, x, 1, 16, 1, 0, 1e-5f, 0);
#endif
    return a.a.count == 10 && a.a.error == 0 && a.iface == _AK_KIF_norm ? 0 : 1;
}
