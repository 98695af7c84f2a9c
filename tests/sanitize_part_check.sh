#!/usr/bin/env bash
# The sanitize part of tests/gpu_check.sh classifies compute-sanitizer's reports
# (no GPU needed: a stand-in compute-sanitizer prints canned reports):
#   - an API error that a test in tests/sanitize_expected.txt provokes on purpose is not counted (clean);
#     another API's error in that same test is;
#   - NCCL's own cudaFuncGetAttributes probe (tests/sanitize_expected.txt) is not counted; its other API errors are;
#   - a memory error is (errors, the part fails);
#   - a sampled suite that made no GPU call is no-gpu-work, not a failure.
# Prints `N passed, N failed` last.
set -u
cd "$(dirname "$0")/.."
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat > "$T/cs" <<'EOS'
#!/bin/sh
[ "$1" = --version ] && { echo stand-in; exit 0; }
echo "========= COMPUTE-SANITIZER"
case "$FAKE_CS_MODE" in
expected) printf '%s\n' '========= Program hit CUDA_ERROR_NOT_FOUND (error 500) due to "named symbol not found" on CUDA API call to cuModuleGetFunction.' \
  '=========         Host Frame: test_gpu_kernel_not_found in t_gpu_runtime.c:539 [0xd2fa1] in amdkit_tests' '========= ' \
  '1 passed, 0 failed' '========= ERROR SUMMARY: 1 error'; exit 86 ;;
expectedother) printf '%s\n' '========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to "invalid argument" on CUDA API call to cuMemcpyDtoH.' \
  '=========         Host Frame: test_gpu_kernel_not_found in t_gpu_runtime.c:539 [0xd2fa1] in amdkit_tests' '========= ' \
  '1 passed, 0 failed' '========= ERROR SUMMARY: 1 error'; exit 86 ;;
other) printf '%s\n' '========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to "invalid argument" on CUDA API call to cuMemcpyDtoH.' \
  '=========         Host Frame: test_gpu_copy in t_gpu_runtime.c:100 [0x1] in amdkit_tests' '========= ' \
  '1 passed, 0 failed' '========= ERROR SUMMARY: 1 error'; exit 86 ;;
ncclprobe) printf '%s\n' '========= Program hit cudaErrorNoKernelImageForDevice (error 209) due to "no kernel image is available for execution on the device" on CUDA API call to cudaFuncGetAttributes.' \
  '=========     Saved host backtrace up to driver entry point at error' '=========         Host Frame:  [0x4cb045] in libcuda.so.1' \
  '=========         Host Frame:  [0x1babc0] in libnccl.so.2' '=========         Host Frame:  [0x61342] in amdkit_tests' '========= ' \
  '1 passed, 0 failed' '========= ERROR SUMMARY: 1 error'; exit 86 ;;
ncclother) printf '%s\n' '========= Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API call to cudaMemcpyAsync.' \
  '=========         Host Frame:  [0x4cb045] in libcuda.so.1' '=========         Host Frame:  [0x1babc0] in libnccl.so.2' '========= ' \
  '1 passed, 0 failed' '========= ERROR SUMMARY: 1 error'; exit 86 ;;
memory) printf '%s\n' '========= Invalid __global__ read of size 4 bytes' '=========     at ak_x+0x10' '========= ' \
  '1 passed, 0 failed' '========= ERROR SUMMARY: 1 error'; exit 86 ;;
nogpu) printf '%s\n' '1 passed, 0 failed' '========= Error: Target application terminated before first instrumented API call'; exit 0 ;;
esac
EOS
chmod +x "$T/cs"
pass=0; fail=0
one() { # mode expected-status expected-exit
  out=$(FAKE_CS_MODE=$1 COMPUTE_SANITIZER="$T/cs" GPU_CHECK_PART=sanitize GPU_CHECK_SANITIZE_SUITES=gpu_runtime \
        GPU_CHECK_SANITIZE_TOOLS=memcheck GPU_CHECK_SANITIZE_WARM=0 GPU_CHECK_SANITIZE_END=200 OUT= bash tests/gpu_check.sh 2>&1); rc=$?
  line=$(echo "$out" | grep -E '^  memcheck gpu_runtime ' | tail -n 1)
  got=0; [ $rc = 0 ] || got=1
  if echo "$line" | grep -q ": $2, " && [ $got = $3 ]; then
    echo "  ok   $1 -> $2"; pass=$((pass+1))
  else echo "  FAIL $1: expected $2 (exit $3), got '$line' (exit $rc)"; echo "$out" | tail -n 5; fail=$((fail+1)); fi
}
one expected clean 0
one expectedother errors 1
one other errors 1
one memory errors 1
one ncclprobe clean 0
one ncclother errors 1
one nogpu no-gpu-work 0
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
