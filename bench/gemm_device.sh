#!/usr/bin/env bash
# One device run for GEMM: build, the gpu_gemm suite, bench_gemm, the PyTorch
# peer, and the joined report. Outputs into $1 (default build/gemm-run).
#   bash bench/gemm_device.sh [OUTDIR] [--quick]
set -u
cd "$(dirname "$0")/.."
O=${1:-build/gemm-run}; shift || true
Q=${1:-}
mkdir -p "$O"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
make -s -j8 build/amdkit_tests build/bench_gemm || exit 1
CORRECT=
if ./build/amdkit_tests gpu_gemm > "$O/gpu_gemm.log" 2>&1; then CORRECT=--correct; fi
tail -n 25 "$O/gpu_gemm.log"
./build/bench_gemm $Q "$O/bench_gemm.json" | tee "$O/bench_gemm.log"
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  PYTHONUNBUFFERED=1 python3 bench/peer_torch_gemm.py $Q "$O/torch_gemm.json" > "$O/torch_gemm.log" 2>&1 || tail -n 20 "$O/torch_gemm.log"
  python3 bench/gemm_report.py "$O/bench_gemm.json" "$O/torch_gemm.json" $CORRECT --json "$O/gemm_results.json" --md "$O/gemm_report.md"
fi
[ -n "$CORRECT" ]
