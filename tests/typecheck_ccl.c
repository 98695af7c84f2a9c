/* Type-check amdkit's hand-written NCCL / RCCL prototypes (_AK_COMM_CCL_API)
 * against the real headers: nccl.h (CUDA toolkit, NCCL's packages or
 * PyTorch's nvidia-nccl wheel) by default, rccl/rccl.h with -DAK_TC_RCCL
 * (Debian's librccl-dev). See typecheck_hip.c for the method. */
#ifdef AK_TC_RCCL
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <rccl/rccl.h>
typedef hipStream_t _akT_cclStream_t;
#else
#include <nccl.h>
typedef cudaStream_t _akT_cclStream_t;
#endif
#include <stddef.h>

#define AK_TYPECHECK_CCL 1
typedef ncclResult_t _akT_ncclResult_t;
typedef ncclComm_t _akT_ncclComm_t;
typedef ncclUniqueId _akT_ncclUniqueId;
typedef ncclDataType_t _akT_ncclDataType_t;
typedef ncclRedOp_t _akT_ncclRedOp_t;
#define AMDKIT_IMPLEMENTATION
#define AK_TYPECHECK_ONLY
/* not AMDKIT_STATIC: the generated kernel-argument packers (static inline) call
 * ak_args_*, which AK_TYPECHECK_ONLY leaves undefined; gcc rejects a static one. */
#include "../amdkit.h"

#define AK_STATIC_ASSERT(c, m) typedef char ak_static_assert_##m[(c) ? 1 : -1]
#define AK_TC_1(pfn, fn) { pfn p = fn; (void)p; n++; }
#define AK_TC_0(pfn, fn)
#define AK_TC_ENTRY(ret, name, params, sym, sym2, req, chk) AK_TC_##chk(_ak_pfn_##name, name)
int ak_typecheck_ccl(void);
int ak_typecheck_ccl(void) {
    int n = 0;
    _AK_COMM_CCL_API(AK_TC_ENTRY)
    return n;
}
AK_STATIC_ASSERT(NCCL_UNIQUE_ID_BYTES == _AK_NCCL_ID_BYTES, idbytes);
AK_STATIC_ASSERT(sizeof(ncclUniqueId) == sizeof(ak_comm_id), idsize);
AK_STATIC_ASSERT((int)ncclInt32 == _AK_NCCL_I32, i32);
AK_STATIC_ASSERT((int)ncclFloat16 == _AK_NCCL_F16, f16);
AK_STATIC_ASSERT((int)ncclFloat32 == _AK_NCCL_F32, f32);
AK_STATIC_ASSERT((int)ncclBfloat16 == _AK_NCCL_BF16, bf16);
AK_STATIC_ASSERT((int)ncclSum == _AK_NCCL_SUM, sum);
AK_STATIC_ASSERT((int)ncclMax == _AK_NCCL_MAX, max);
AK_STATIC_ASSERT((int)ncclMin == _AK_NCCL_MIN, min);
AK_STATIC_ASSERT((int)ncclAvg == _AK_NCCL_AVG, avg);
AK_STATIC_ASSERT((int)ncclInvalidArgument == _AK_NCCL_INVALID_ARGUMENT, einval);
AK_STATIC_ASSERT((int)ncclInvalidUsage == _AK_NCCL_INVALID_USAGE, eusage);

#ifdef AK_TYPECHECK_EXPECT_FAIL
typedef ncclResult_t (*ak_wrong_t)(const void* s, void* r, int n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, _akT_cclStream_t st);
ak_wrong_t ak_wrong = ncclAllReduce;
#endif
