#!/usr/bin/env bash
# Several GPUs of one host (the device tool's nvidia-h200-x2 kind, or any
# machine with 2+ GPUs): build; `amdkit info` (every device); the gpu_multi
# suite (two-device collectives, peer copies); the tensor-parallel example over
# 2 GPUs and over 1, each checked against one device; then the collectives
# benchmark beside torch.distributed (NCCL) in the same run. Results (JSON,
# report, logs) go to $OUT (or build/multi-gpu). Prints `N passed, N failed` last.
#   RANKS=2 QUICK=1 bash tests/multi_gpu.sh
set -u
cd "$(dirname "$0")/.."
# NVLink multicast stays off (a program that uses it can take a shared host's GPUs out of service)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DEST=${OUT:-}
L=build/multi-gpu
rm -rf "$L"; mkdir -p "$L"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
RANKS=${RANKS:-2}
if [ "${QUICK:-0}" = "1" ]; then BQ=--quick; else BQ=; fi
passed=0; failed=0; failures=""
run() { # name, command...
  local name=$1; shift
  local t0=$(date +%s)
  if "$@" > "$L/$name.log" 2>&1; then passed=$((passed+1)); echo "  ok   $name ($(( $(date +%s)-t0 )) s)"
  else failed=$((failed+1)); failures="$failures $name"; echo "  FAIL $name ($(( $(date +%s)-t0 )) s)"; tail -n 25 "$L/$name.log" | sed 's/^/       /'; fi
}
{ nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version --format=csv; nvidia-smi topo -m; } > "$L/topo.txt" 2>&1 || true
cat "$L/topo.txt" | head -20
run build make -s -j16 build/amdkit build/amdkit_tests build/tp_linear build/bench_comm
run info ./build/amdkit info
grep -A4 "^devices" "$L/info.log"
# where NCCL comes from: amdkit's own search (loader path, CUDA, Python environments on PATH)
run nccl-found timeout 120 ./build/tp_linear --ranks 1
if ! grep -q "libnccl\|librccl" "$L/nccl-found.log"; then
  d=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
  [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" && echo "  (NCCL not found by the search; continuing with LD_LIBRARY_PATH=$d)"
fi
grep "collectives:" "$L/nccl-found.log"
run gpu-multi timeout 240 ./build/amdkit_tests gpu_multi
grep -E "device [0-9]:|peer access|libnccl|librccl|passed|FAIL" "$L/gpu-multi.log" | head -20
run tp-linear-${RANKS}gpu timeout 120 ./build/tp_linear --ranks $RANKS
run tp-linear-${RANKS}gpu-large timeout 120 ./build/tp_linear --ranks $RANKS --batch 257 --in 1031 --hidden 2053 --out 517
run tp-linear-1gpu timeout 120 ./build/tp_linear --ranks 1 --batch 257 --in 1031 --hidden 2053 --out 517
tail -n 4 "$L/tp-linear-${RANKS}gpu-large.log"
# The benchmark compares like with like: where PyTorch's wheel carries its own NCCL, amdkit loads that same
# file for the benchmark (the tests above used whatever amdkit's search found first).
WHEEL_NCCL=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
if [ -n "$WHEEL_NCCL" ] && [ -f "$WHEEL_NCCL/libnccl.so.2" ]; then BENV="LD_LIBRARY_PATH=$WHEEL_NCCL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; else BENV=; fi
run bench-comm timeout 240 env $BENV ./build/bench_comm --ranks $RANKS $BQ "$L/comm_amdkit.json"
grep -m1 "ranks," "$L/bench-comm.log"
if python3 -c "import torch; assert torch.cuda.device_count() >= $RANKS" 2>/dev/null; then
  run bench-comm-torch timeout 300 env PYTHONUNBUFFERED=1 python3 bench/comm_torch.py --ranks $RANKS $BQ "$L/comm_torch.json"
fi
if [ -f "$L/comm_amdkit.json" ]; then
  run comm-report python3 bench/comm_report.py "$L/comm_amdkit.json" "$( [ -f $L/comm_torch.json ] && echo $L/comm_torch.json || echo '')" \
      --json "$L/comm.json" --md "$L/comm_report.md"
  cat "$L/comm_report.md" 2>/dev/null
fi
[ -n "$failures" ] && echo "failed:$failures"
if [ -n "$DEST" ]; then
  mkdir -p "$DEST"
  for f in comm.json comm_report.md comm_amdkit.json comm_torch.json; do [ -f "$L/$f" ] && cp "$L/$f" "$DEST/"; done
  tar czf "$DEST/multi-gpu-logs.tgz" -C build multi-gpu
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
