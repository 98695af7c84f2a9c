/* Type-check amdkit's hand-written HIP/hipRTC prototypes against the real
 * ROCm headers: every entry of the X-macro lists is assigned the real
 * function, with amdkit's handle/enum names mapped to the real types, so a
 * wrong parameter or return type fails to compile (-Werror). Enum values and
 * struct offsets amdkit hard-codes are checked with static assertions. */
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
#include <stddef.h>

#define AK_TYPECHECK_HIP 1
typedef hipError_t _akT_hipError_t;
typedef hipStream_t _akT_hipStream_t;
typedef hipEvent_t _akT_hipEvent_t;
typedef hipModule_t _akT_hipModule_t;
typedef hipFunction_t _akT_hipFunction_t;
typedef hipMemcpyKind _akT_hipMemcpyKind;
typedef hipDeviceAttribute_t _akT_hipDeviceAttribute_t;
typedef hiprtcResult _akT_hiprtcResult;
typedef hiprtcProgram _akT_hiprtcProgram;
typedef hipUUID _akT_hipUUID;
typedef hipGraph_t _akT_hipGraph_t;
typedef hipGraphExec_t _akT_hipGraphExec_t;
typedef hipGraphNode_t _akT_hipGraphNode_t;
typedef hipStreamCaptureMode _akT_hipStreamCaptureMode;
typedef hipGraphExecUpdateResult _akT_hipGraphExecUpdateResult;
#define AMDKIT_IMPLEMENTATION
#define AK_TYPECHECK_ONLY
/* not AMDKIT_STATIC: the generated kernel-argument packers (static inline) call
 * ak_args_*, which AK_TYPECHECK_ONLY leaves undefined; gcc rejects a static one. */
#include "../amdkit.h"

#define AK_STATIC_ASSERT(c, m) typedef char ak_static_assert_##m[(c) ? 1 : -1]

/* Assign each real function to amdkit's pointer type (checked ones only). */
#define AK_TC_1(pfn, fn) { pfn p = fn; (void)p; n++; }
#define AK_TC_0(pfn, fn) /* not checked: absent from these headers (version-specific) */
#define AK_TC_ENTRY(ret, name, params, sym, sym2, req, chk) AK_TC_##chk(_ak_pfn_##name, name)
int ak_typecheck_hip(void);
int ak_typecheck_hip(void) {
    int n = 0;
    _AK_HIP_API(AK_TC_ENTRY)
    _AK_HIPRTC_API(AK_TC_ENTRY)
    return n;
}

/* Attribute numbers and constants amdkit uses without the headers. */
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_WARP == (int)hipDeviceAttributeWarpSize, warp);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_MP_COUNT == (int)hipDeviceAttributeMultiprocessorCount, mp);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_SHMEM_PER_BLOCK == (int)hipDeviceAttributeMaxSharedMemoryPerBlock, shmem);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_L2 == (int)hipDeviceAttributeL2CacheSize, l2);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_TOTAL_MEM == (int)hipDeviceAttributeTotalGlobalMem, mem);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_CLOCK == (int)hipDeviceAttributeClockRate, clock);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_MEM_CLOCK == (int)hipDeviceAttributeMemoryClockRate, memclock);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_BUS_WIDTH == (int)hipDeviceAttributeMemoryBusWidth, bus);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_MAX_THREADS == (int)hipDeviceAttributeMaxThreadsPerBlock, maxthreads);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_MAX_BLOCK_X == (int)hipDeviceAttributeMaxBlockDimX &&
                 (int)_AK_HIP_ATTR_MAX_BLOCK_X + 1 == (int)hipDeviceAttributeMaxBlockDimY &&
                 (int)_AK_HIP_ATTR_MAX_BLOCK_X + 2 == (int)hipDeviceAttributeMaxBlockDimZ, maxblock);
AK_STATIC_ASSERT((int)_AK_HIP_ATTR_MAX_GRID_X == (int)hipDeviceAttributeMaxGridDimX &&
                 (int)_AK_HIP_ATTR_MAX_GRID_X + 1 == (int)hipDeviceAttributeMaxGridDimY &&
                 (int)_AK_HIP_ATTR_MAX_GRID_X + 2 == (int)hipDeviceAttributeMaxGridDimZ, maxgrid);
AK_STATIC_ASSERT((int)AK_H2D == (int)hipMemcpyHostToDevice && (int)AK_D2H == (int)hipMemcpyDeviceToHost &&
                 (int)AK_D2D == (int)hipMemcpyDeviceToDevice && (int)AK_H2H == (int)hipMemcpyHostToHost, copykind);
AK_STATIC_ASSERT(hipEventDisableTiming == 0x2, evflags);
AK_STATIC_ASSERT(hipErrorNotReady == 600, notready);
AK_STATIC_ASSERT(hipErrorOutOfMemory == 2, oom);
#if HIP_VERSION_MAJOR >= 6
/* ROCm 6+ headers: hipDeviceProp_t is the R0600 layout that amdkit reads through
 * hipGetDevicePropertiesR0600; the unversioned symbol fills the legacy R0000
 * layout (hip_deprecated.h). Both offsets amdkit hard-codes, and both entry
 * points' real signatures. (tests/check_rocm64.sh compiles this file against
 * ROCm 6.4's headers in `make check`; `make test` against the host's 5.2.) */
#include <hip/hip_deprecated.h>
AK_STATIC_ASSERT(offsetof(hipDeviceProp_tR0600, gcnArchName) == _AK_HIP_PROPS_R0600_ARCH_OFFSET, gcnarch_r0600);
AK_STATIC_ASSERT(offsetof(hipDeviceProp_tR0000, gcnArchName) == _AK_HIP_PROPS_R0000_ARCH_OFFSET, gcnarch_r0000);
AK_STATIC_ASSERT(sizeof(hipDeviceProp_tR0600) <= _AK_HIP_PROPS_BYTES, propsize_r0600);
AK_STATIC_ASSERT(sizeof(hipDeviceProp_tR0000) <= _AK_HIP_PROPS_BYTES, propsize_r0000);
hipError_t (*ak_tc_r0600)(hipDeviceProp_tR0600*, int);
hipError_t (*ak_tc_r0600)(hipDeviceProp_tR0600*, int) = hipGetDevicePropertiesR0600;
hipError_t (*ak_tc_r0000)(hipDeviceProp_tR0000*, int);
hipError_t (*ak_tc_r0000)(hipDeviceProp_tR0000*, int) = hipGetDevicePropertiesR0000;
#else
/* ROCm 5: hipDeviceProp_t is the legacy (R0000) layout hipGetDeviceProperties fills. */
AK_STATIC_ASSERT(offsetof(hipDeviceProp_t, gcnArchName) == _AK_HIP_PROPS_R0000_ARCH_OFFSET, gcnarch);
AK_STATIC_ASSERT(sizeof(hipDeviceProp_t) <= _AK_HIP_PROPS_BYTES, propsize);
#endif


/* Self-test of the method: with AK_TYPECHECK_EXPECT_FAIL a deliberately wrong
 * prototype is assigned, and the build must fail (the Makefile checks it). */
#ifdef AK_TYPECHECK_EXPECT_FAIL
typedef hipError_t (*ak_wrong_t)(void** p, int n);
ak_wrong_t ak_wrong = hipMalloc;
#endif
AK_STATIC_ASSERT((int)_AK_E_OUT_OF_MEMORY == (int)hipErrorOutOfMemory && (int)_AK_E_NOT_READY == (int)hipErrorNotReady &&
                 (int)_AK_E_PEER_ALREADY_ENABLED == (int)hipErrorPeerAccessAlreadyEnabled &&
                 (int)_AK_EVENT_DISABLE_TIMING == (int)hipEventDisableTiming, runtime_codes);
AK_STATIC_ASSERT((int)_AK_E_GRAPH_UPDATE_FAILURE == (int)hipErrorGraphExecUpdateFailure &&
                 (int)_AK_CAPTURE_MODE_RELAXED == (int)hipStreamCaptureModeRelaxed && (int)hipGraphExecUpdateSuccess == 0, graph_codes);
