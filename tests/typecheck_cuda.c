/* Type-check amdkit's hand-written CUDA driver / NVRTC prototypes against
 * the CUDA toolkit's cuda.h and nvrtc.h (see typecheck_hip.c). */
#include <cuda.h>
#include <nvrtc.h>
#include <stddef.h>

#define AK_TYPECHECK_CUDA 1
typedef CUresult _akT_CUresult;
typedef CUdevice _akT_CUdevice;
typedef CUcontext _akT_CUcontext;
typedef CUstream _akT_CUstream;
typedef CUevent _akT_CUevent;
typedef CUmodule _akT_CUmodule;
typedef CUfunction _akT_CUfunction;
typedef CUdeviceptr _akT_CUdeviceptr;
typedef CUdevice_attribute _akT_CUdevice_attribute;
typedef CUfunction_attribute _akT_CUfunction_attribute;
typedef nvrtcResult _akT_nvrtcResult;
typedef nvrtcProgram _akT_nvrtcProgram;
typedef CUuuid _akT_CUuuid;
typedef CUtensorMap _akT_CUtensorMap;
typedef CUtensorMapDataType _akT_CUtensorMapDataType;
typedef CUtensorMapInterleave _akT_CUtensorMapInterleave;
typedef CUtensorMapSwizzle _akT_CUtensorMapSwizzle;
typedef CUtensorMapL2promotion _akT_CUtensorMapL2promotion;
typedef CUtensorMapFloatOOBfill _akT_CUtensorMapFloatOOBfill;
typedef CUgraph _akT_CUgraph;
typedef CUgraphExec _akT_CUgraphExec;
typedef CUstreamCaptureMode _akT_CUstreamCaptureMode;
typedef CUgraphExecUpdateResultInfo _akT_CUgraphExecUpdateResultInfo;
#define AMDKIT_IMPLEMENTATION
#define AK_TYPECHECK_ONLY
/* not AMDKIT_STATIC: the generated kernel-argument packers (static inline) call
 * ak_args_*, which AK_TYPECHECK_ONLY leaves undefined; gcc rejects a static one. */
#include "../amdkit.h"

#define AK_STATIC_ASSERT(c, m) typedef char ak_static_assert_##m[(c) ? 1 : -1]

/* The header maps cuMemAlloc to cuMemAlloc_v2 and so on: assigning `name`
 * checks the prototype of the versioned symbol amdkit loads. */
#define AK_TC_1(pfn, fn) { pfn p = fn; (void)p; n++; }
#define AK_TC_0(pfn, fn) /* not checked: absent from these headers (version-specific) */
#define AK_TC_ENTRY(ret, name, params, sym, sym2, req, chk) AK_TC_##chk(_ak_pfn_##name, name)
int ak_typecheck_cuda(void);
int ak_typecheck_cuda(void) {
    int n = 0;
    _AK_CUDA_API(AK_TC_ENTRY)
    _AK_NVRTC_API(AK_TC_ENTRY)
    return n;
}

AK_STATIC_ASSERT((int)_AK_CU_ATTR_WARP == (int)CU_DEVICE_ATTRIBUTE_WARP_SIZE, warp);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_MP_COUNT == (int)CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, mp);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_SHMEM_OPTIN == (int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, shmem);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_SHMEM_PER_BLOCK == (int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, shmem2);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_L2 == (int)CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, l2);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_CLOCK == (int)CU_DEVICE_ATTRIBUTE_CLOCK_RATE, clock);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_MEM_CLOCK == (int)CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, memclock);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_BUS_WIDTH == (int)CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, bus);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_MAX_THREADS == (int)CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, maxthreads);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_MAX_BLOCK_X == (int)CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X &&
                 (int)_AK_CU_ATTR_MAX_BLOCK_X + 1 == (int)CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y &&
                 (int)_AK_CU_ATTR_MAX_BLOCK_X + 2 == (int)CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, maxblock);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_MAX_GRID_X == (int)CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X &&
                 (int)_AK_CU_ATTR_MAX_GRID_X + 1 == (int)CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y &&
                 (int)_AK_CU_ATTR_MAX_GRID_X + 2 == (int)CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, maxgrid);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_CC_MAJOR == (int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ccmaj);
AK_STATIC_ASSERT((int)_AK_CU_ATTR_CC_MINOR == (int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ccmin);
AK_STATIC_ASSERT((int)_AK_CU_FUNC_MAX_DYN_SHMEM == (int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynshm);
AK_STATIC_ASSERT(CU_EVENT_DISABLE_TIMING == 0x2, evflags);
AK_STATIC_ASSERT(CUDA_ERROR_NOT_READY == 600, notready);
AK_STATIC_ASSERT(CUDA_ERROR_OUT_OF_MEMORY == 2, oom);
AK_STATIC_ASSERT(sizeof(CUdeviceptr) == sizeof(unsigned long long), devptr);
AK_STATIC_ASSERT(sizeof(CUtensorMap) == 128 && sizeof(_akT_CUtensorMap) == 128, tmap);  /* _ak_tmap mirrors it */
AK_STATIC_ASSERT(CU_TENSOR_MAP_DATA_TYPE_FLOAT16 == _AK_TMAP_F16 && CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 == _AK_TMAP_BF16 &&
                 CU_TENSOR_MAP_DATA_TYPE_FLOAT32 == _AK_TMAP_F32, tmap_dtype);
AK_STATIC_ASSERT(CU_TENSOR_MAP_SWIZZLE_128B == _AK_TMAP_SWIZZLE_128B && CU_TENSOR_MAP_L2_PROMOTION_L2_256B == _AK_TMAP_L2_256B &&
                 CU_TENSOR_MAP_INTERLEAVE_NONE == 0 && CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE == 0, tmap_enums);


/* Self-test of the method: with AK_TYPECHECK_EXPECT_FAIL a deliberately wrong
 * prototype is assigned, and the build must fail (the Makefile checks it). */
#ifdef AK_TYPECHECK_EXPECT_FAIL
typedef CUresult (*ak_wrong_t)(CUdeviceptr* p, int n);
ak_wrong_t ak_wrong = cuMemAlloc;
#endif
AK_STATIC_ASSERT((int)_AK_E_OUT_OF_MEMORY == (int)CUDA_ERROR_OUT_OF_MEMORY && (int)_AK_E_NOT_READY == (int)CUDA_ERROR_NOT_READY &&
                 (int)_AK_E_PEER_ALREADY_ENABLED == (int)CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED &&
                 (int)_AK_EVENT_DISABLE_TIMING == (int)CU_EVENT_DISABLE_TIMING, runtime_codes);
AK_STATIC_ASSERT((int)_AK_E_GRAPH_UPDATE_FAILURE == (int)CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE &&
                 (int)_AK_CAPTURE_MODE_RELAXED == (int)CU_STREAM_CAPTURE_MODE_RELAXED, graph_codes);
/* amdkit passes its own mirror of the update result (a result code, two node handles) */
AK_STATIC_ASSERT(sizeof(CUgraphExecUpdateResultInfo) == 3 * sizeof(void*) && offsetof(CUgraphExecUpdateResultInfo, result) == 0, graph_info);
