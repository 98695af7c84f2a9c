#!/usr/bin/env bash
# One device run of the shape sweep (bench/NOTES.md "Shape sweep"): build bench_sweep, fill the
# torch.compile caches in the background (sweep_torch.py --warm, 4 processes) while bench_sweep
# times and checks amdkit, then PyTorch eager + torch.compile on the same cells, then the heat maps.
#   bash bench/sweep_device.sh [OUTDIR] [bench_sweep options...]     (make sweep: OUTDIR = build/sweep)
# Env: SWEEP_BUDGET_S (amdkit part, default 170), SWEEP_TORCH_BUDGET_S (torch part, default 190),
# SWEEP_VARIANTS=1: then bench/sweep_variants.sh (the table's evidence, ~60 s) and its summary variants.md.
# The held-out ring (SWEEP_RING=0 skips it): widths and row counts the grid does not contain and the row-op
# model was never fit on (SWEEP_RING_COLS, default 640,3000,5120,12288,24576,100000; SWEEP_RING_ROWS, default
# 8,512,2048,8192,32768), every op x dtype, into sweep_ring_amdkit.json / sweep_ring.* beside the grid's files
# (about 60 s for amdkit and 70 s for PyTorch, SWEEP_RING_BUDGET_S).
set -u
cd "$(dirname "$0")/.."
O=${1:-build/sweep}; shift || true
mkdir -p "$O"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
export PYTHONUNBUFFERED=1
make -s build/bench_sweep || exit 1
HAVE_TORCH=0
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then HAVE_TORCH=1; fi
pids=
if [ $HAVE_TORCH = 1 ]; then
  for i in 0 1 2 3; do
    python3 bench/sweep_torch.py --warm --shard $i/4 > "$O/warm_$i.log" 2>&1 & pids="$pids $!"
  done
fi
./build/bench_sweep --budget-s "${SWEEP_BUDGET_S:-170}" "$@" "$O/sweep_amdkit.json" > "$O/sweep_amdkit.log" 2>&1
rc=$?
tail -n 40 "$O/sweep_amdkit.log"
for p in $pids; do wait $p; done
if [ $HAVE_TORCH = 1 ]; then
  cat "$O"/warm_*.log | tail -n 8
  python3 bench/sweep_torch.py --match "$O/sweep_amdkit.json" --budget-s "${SWEEP_TORCH_BUDGET_S:-190}" \
    "$O/sweep_torch.json" > "$O/sweep_torch.log" 2>&1 || tail -n 20 "$O/sweep_torch.log"
  grep -E "first compile|FAILED|budget" "$O/sweep_torch.log" | tail -n 50
  python3 bench/sweep_render.py "$O/sweep_amdkit.json" "$O/sweep_torch.json" --out "$O" || true
fi
if [ "${SWEEP_RING:-1}" != 0 ]; then
  ./build/bench_sweep --budget-s "${SWEEP_RING_BUDGET_S:-90}" --cols "${SWEEP_RING_COLS:-640,3000,5120,12288,24576,100000}" \
    --rows "${SWEEP_RING_ROWS:-8,512,2048,8192,32768}" "$O/sweep_ring_amdkit.json" > "$O/sweep_ring_amdkit.log" 2>&1 || rc=1
  tail -n 5 "$O/sweep_ring_amdkit.log"
  if [ $HAVE_TORCH = 1 ]; then
    python3 bench/sweep_torch.py --match "$O/sweep_ring_amdkit.json" --budget-s "${SWEEP_RING_BUDGET_S:-90}" \
      "$O/sweep_ring_torch.json" > "$O/sweep_ring_torch.log" 2>&1 || tail -n 20 "$O/sweep_ring_torch.log"
    grep -E "first compile|FAILED|budget" "$O/sweep_ring_torch.log" | tail -n 20
    python3 bench/sweep_render.py "$O/sweep_ring_amdkit.json" "$O/sweep_ring_torch.json" --out "$O" --prefix sweep_ring || true
  fi
fi
if [ "${SWEEP_VARIANTS:-0}" = 1 ]; then
  bash bench/sweep_variants.sh "$O"
  python3 bench/sweep_variants.py "$O"/variants_*.json --md "$O/variants.md" > /dev/null || true
fi
exit $rc
