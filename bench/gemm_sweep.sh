#!/usr/bin/env bash
# One device run of the GEMM sweep: build, bench_gemm_sweep (amdkit, each cell
# checked), the PyTorch peer on the same cells, the joined report.
#   bash bench/gemm_sweep.sh [OUTDIR] [--quick] [--filter SUB[,SUB..]] [--no-compile | --compile-filter SUB[,SUB..]]
set -u
cd "$(dirname "$0")/.."
O=${1:-build/gemm-sweep}; shift || true
Q=; F=; NC=
while [ $# -gt 0 ]; do
  case $1 in --quick) Q=--quick ;; --filter) F="--filter $2"; shift ;; --no-compile) NC=--no-compile ;;
    --compile-filter) NC="--compile-filter $2"; shift ;; esac
  shift
done
mkdir -p "$O"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
make -s -j16 build/bench_gemm_sweep || exit 1
./build/bench_gemm_sweep $Q $F --list "$O/cases.tsv" "$O/amdkit_sweep.json" | tee "$O/amdkit_sweep.log"
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  PYTHONUNBUFFERED=1 python3 bench/peer_torch_gemm_sweep.py "$O/cases.tsv" "$O/torch_sweep.json" $NC > "$O/torch_sweep.log" 2>&1 || tail -n 20 "$O/torch_sweep.log"
  python3 bench/gemm_sweep_report.py "$O/amdkit_sweep.json" "$O/torch_sweep.json" --json "$O/gemm_sweep.json" --md "$O/gemm_sweep.md"
fi
