#!/usr/bin/env bash
# One device run for the memory-bound kernels and fast_p: build bench_ops, run it
# (every entry timed until its median is known, and checked against the CPU
# reference in the same run), the PyTorch peer (eager for every entry, then
# torch.compile while the time budget lasts), and bench/report.py over the whole
# kernel set (these ops + the committed attention and GEMM results).
#   bash bench/ops_device.sh [OUTDIR] [BUDGET_S]     (default build/ops-run, 400 s in all)
#   OPS_QUICK=1: --quick shapes (a harness check, any backend)
# Writes OUTDIR/bench_ops.json, torch_eager.json, torch_compile.json, report.md,
# fastp.json and logs.tgz. The attention / GEMM entries count as correct
# (suite-checked) because their GPU suites passed on the H100 in the runs that
# produced bench/results/h100_attention.json and h100_gemm.json (see README).
set -u
cd "$(dirname "$0")/.."
O=${1:-build/ops-run}
BUDGET=${2:-400}
T0=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
mkdir -p "$O" build/ops-logs
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
export PYTHONUNBUFFERED=1
make -s -j8 build/bench_ops > build/ops-logs/build.log 2>&1 || { tail -n 30 build/ops-logs/build.log; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
Q=; [ "${OPS_QUICK:-0}" = 1 ] && Q=--quick
./build/bench_ops $Q --max-s 1.5 --budget-s $(( $(left) - 200 )) "$O/bench_ops.json" > build/ops-logs/bench_ops.log 2>&1
echo "bench_ops exit $? at $(( $(date +%s) - T0 )) s"; tail -n 3 build/ops-logs/bench_ops.log
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  timeout $(( $(left) - 45 )) python3 bench/peer_torch.py $Q --impl eager --max-s 1.5 --match "$O/bench_ops.json" "$O/torch_eager.json" > build/ops-logs/torch_eager.log 2>&1
  echo "eager exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 build/ops-logs/torch_eager.log
  timeout $(( $(left) - 15 )) python3 bench/peer_torch.py $Q --impl compile --max-s 1.5 --budget-s $(( $(left) - 40 )) --match "$O/bench_ops.json" "$O/torch_compile.json" > build/ops-logs/torch_compile.log 2>&1
  echo "compile exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 build/ops-logs/torch_compile.log
fi
TORCH=; for f in "$O/torch_eager.json" "$O/torch_compile.json"; do [ -s "$f" ] && TORCH="$TORCH $f"; done
python3 bench/report.py "$O/bench_ops.json" $TORCH --attention bench/results/h100_attention.json \
  --gemm bench/results/h100_gemm.json --suite-correct attention,gemm --out "$O/report.md" --json "$O/fastp.json" > /dev/null
sed -n '/^## fast_p/,/^## Entries/p' "$O/report.md"
tar czf "$O/logs.tgz" -C build ops-logs
