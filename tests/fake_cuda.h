/* fake_cuda.h - a cpu context switched to the cuda backend's table on a fake driver (sokol-dummy style), so
 * that every line of ak_kernel_get / ak_kernel_release / ak_launch that runs on an NVIDIA GPU runs here, the
 * driver calls excepted. Include after the implementation of amdkit.h (it reaches into the context):
 * tests/ti_cache.c (the warm-hit races), tests/ti_graph.c (graph capture's driver calls) and bench/bench_hotpath.c
 * (the hot paths' timings).
 *
 *   akf_cuda_attach(ctx, &driver, "sm_90")   the context's function table gets the driver's entry points (a
 *                                            NULL one keeps the real one: NVRTC stays real unless replaced),
 *                                            the context runs the cuda table with that arch and wave 32
 *   akf_cuda_detach(ctx)                     the compile cache destroyed (its modules unloaded through the
 *                                            fake driver), back to the cpu table; then ak_context_destroy
 */
#ifndef AK_FAKE_CUDA_H
#define AK_FAKE_CUDA_H

typedef struct akf_driver {
    /* CUDA driver: context, modules, launch */
    _akT_CUresult (*set_current)(_akT_CUcontext c);
    _akT_CUresult (*synchronize)(void);
    _akT_CUresult (*module_load)(_akT_CUmodule* m, const void* image);
    _akT_CUresult (*module_unload)(_akT_CUmodule m);
    _akT_CUresult (*module_function)(_akT_CUfunction* f, _akT_CUmodule m, const char* name);
    _akT_CUresult (*launch)(_akT_CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, _akT_CUstream s, void** args, void** extra);
    /* NVRTC (all or none; none: the real NVRTC compiles) */
    _akT_nvrtcResult (*create)(_akT_nvrtcProgram* p, const char* src, const char* name, int nh, const char* const* h,
                               const char* const* in);
    _akT_nvrtcResult (*compile)(_akT_nvrtcProgram p, int n, const char* const* o);
    _akT_nvrtcResult (*log_size)(_akT_nvrtcProgram p, size_t* n);
    _akT_nvrtcResult (*log)(_akT_nvrtcProgram p, char* log);
    _akT_nvrtcResult (*code_size)(_akT_nvrtcProgram p, size_t* n);
    _akT_nvrtcResult (*code)(_akT_nvrtcProgram p, char* code);
    _akT_nvrtcResult (*destroy)(_akT_nvrtcProgram* p);
    const char* (*error_string)(_akT_nvrtcResult r);
    /* graphs (tests/ti_graph.c) and the memset a capture records */
    _akT_CUresult (*capture_begin)(_akT_CUstream s, _akT_CUstreamCaptureMode mode);
    _akT_CUresult (*capture_end)(_akT_CUstream s, _akT_CUgraph* g);
    _akT_CUresult (*graph_instantiate)(_akT_CUgraphExec* x, _akT_CUgraph g, unsigned long long flags);
    _akT_CUresult (*graph_launch)(_akT_CUgraphExec x, _akT_CUstream s);
    _akT_CUresult (*graph_update)(_akT_CUgraphExec x, _akT_CUgraph g, _akT_CUgraphExecUpdateResultInfo* info);
    _akT_CUresult (*graph_exec_destroy)(_akT_CUgraphExec x);
    _akT_CUresult (*graph_destroy)(_akT_CUgraph g);
    _akT_CUresult (*memset8)(_akT_CUdeviceptr dst, unsigned char v, size_t n, _akT_CUstream s);
} akf_driver;

static void akf_cuda_attach(ak_context* ctx, const akf_driver* d, const char* arch) {
    _ak_api* api = ctx->api;
#define AKF_SET(field, fn) do { if (d->fn) api->field = d->fn; } while (0)
    AKF_SET(cuCtxSetCurrent, set_current);
    AKF_SET(cuCtxSynchronize, synchronize);
    AKF_SET(cuModuleLoadData, module_load);
    AKF_SET(cuModuleUnload, module_unload);
    AKF_SET(cuModuleGetFunction, module_function);
    AKF_SET(cuLaunchKernel, launch);
    AKF_SET(cuStreamBeginCapture, capture_begin);
    AKF_SET(cuStreamEndCapture, capture_end);
    AKF_SET(cuGraphInstantiateWithFlags, graph_instantiate);
    AKF_SET(cuGraphLaunch, graph_launch);
    AKF_SET(cuGraphExecUpdate, graph_update);
    AKF_SET(cuGraphExecDestroy, graph_exec_destroy);
    AKF_SET(cuGraphDestroy, graph_destroy);
    AKF_SET(cuMemsetD8Async, memset8);
    if (d->create) {
        void* self = dlopen(NULL, RTLD_NOW);   /* "NVRTC is loaded": a handle that is not the real library */
        if (!api->lib_nvrtc) api->lib_nvrtc = self;
        else if (self) dlclose(self);
        AKF_SET(nvrtcCreateProgram, create);
        AKF_SET(nvrtcCompileProgram, compile);
        AKF_SET(nvrtcGetProgramLogSize, log_size);
        AKF_SET(nvrtcGetProgramLog, log);
        AKF_SET(nvrtcGetCUBINSize, code_size);
        AKF_SET(nvrtcGetCUBIN, code);
        AKF_SET(nvrtcDestroyProgram, destroy);
        AKF_SET(nvrtcGetErrorString, error_string);
        api->nvrtcGetNumSupportedArchs = NULL;   /* the arch check trusts the known-targets table */
    }
#undef AKF_SET
    ctx->bk = &_ak_backend_cuda;
    ctx->backend = AK_BACKEND_CUDA;
    _ak_copy(ctx->dev.arch, sizeof ctx->dev.arch, arch);
    ctx->dev.wave_size = 32;
}

static void akf_cuda_detach(ak_context* ctx) {
    if (!ctx) return;
    _ak_cache_destroy(ctx->cache);   /* unloads through the fake driver */
    ctx->cache = NULL;
    ctx->bk = &_ak_backend_cpu;      /* the pool's memory is host memory */
    ctx->backend = AK_BACKEND_CPU;
}
#endif
