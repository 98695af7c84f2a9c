#!/usr/bin/env bash
# One device run for the fp8 GEMM: the gpu_gemm_fp8 suite, bench_gemm_fp8, the
# PyTorch peer (torch._scaled_mm) and the joined report, into $1 (default
# build/gemm-fp8-run). Builds the two binaries unless they are there.
#   bash bench/gemm_fp8_device.sh [OUTDIR] [--quick]
set -u
cd "$(dirname "$0")/.."
O=${1:-build/gemm-fp8-run}; shift || true
Q=${1:-}
mkdir -p "$O"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
[ -x build/amdkit_tests ] && [ -x build/bench_gemm_fp8 ] || make -s -j16 build/amdkit_tests build/bench_gemm_fp8 || exit 1
CORRECT=
if ./build/amdkit_tests gpu_gemm_fp8 > "$O/gpu_gemm_fp8.log" 2>&1; then CORRECT=--correct; fi
tail -n 12 "$O/gpu_gemm_fp8.log"
./build/bench_gemm_fp8 $Q "$O/bench_gemm_fp8.json" > "$O/bench_gemm_fp8.log" 2>&1
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  PYTHONUNBUFFERED=1 python3 bench/peer_torch_gemm_fp8.py $Q "$O/torch_gemm_fp8.json" > "$O/torch_gemm_fp8.log" 2>&1 || tail -n 20 "$O/torch_gemm_fp8.log"
  python3 bench/gemm_fp8_report.py "$O/bench_gemm_fp8.json" "$O/torch_gemm_fp8.json" $CORRECT --json "$O/h100_fp8_gemm.json" --md "$O/h100_fp8_gemm.md"
fi
[ -n "$CORRECT" ]
