/* ak_symbols - print every entry point amdkit resolves with dlsym, one per
 * line: "<library> <symbol> <required|optional>", from the same X-macro lists
 * the loader expands (library: hip, hiprtc, comgr, cuda, nvrtc). Used by
 * tests/check_rocm64.sh to prove with `nm -D` that the real ROCm 6.4
 * libraries export them. */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include <stdio.h>

#define P(lib) \
    static void print_##lib(const char* sym, const char* sym2, int req) { \
        printf("%s %s %s\n", #lib, sym, req ? "required" : "optional"); \
        if (sym2) printf("%s %s %s\n", #lib, sym2, "fallback"); \
    }
P(hip) P(hiprtc) P(comgr) P(cuda) P(nvrtc)
#define X_HIP(ret, name, params, sym, sym2, req, chk) print_hip(sym, sym2, req);
#define X_HIPRTC(ret, name, params, sym, sym2, req, chk) print_hiprtc(sym, sym2, req);
#define X_COMGR(ret, name, params, sym, sym2, req, chk) print_comgr(sym, sym2, req);
#define X_CUDA(ret, name, params, sym, sym2, req, chk) print_cuda(sym, sym2, req);
#define X_NVRTC(ret, name, params, sym, sym2, req, chk) print_nvrtc(sym, sym2, req);
int main(void) {
    _AK_HIP_API(X_HIP)
    _AK_HIPRTC_API(X_HIPRTC)
    _AK_COMGR_API(X_COMGR)
    _AK_CUDA_API(X_CUDA)
    _AK_NVRTC_API(X_NVRTC)
    return 0;
}
