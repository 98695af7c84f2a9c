#!/usr/bin/env bash
# One device run for attention: a smoke run of every path (time-limited: a
# hung kernel must not eat the run), the gpu_attention suite, bench_attention
# (default entries with the auto and mma.sync paths, or --sweep) and the
# PyTorch SDPA peer in the same run, with the joined table.
#   bash bench/attn_device.sh [OUTDIR] [--sweep]     (default build/attn-run)
# Uses build/amdkit_tests and build/bench_attention when present (built on
# another x86-64 machine and carried), else builds them. ATTN_SKIP_SUITE=1
# skips the suite; ATTN_TRIALS (default 10) trials per entry.
set -u
cd "$(dirname "$0")/.."
O=${1:-build/attn-run}; shift || true
MODE=${1:-}
mkdir -p "$O"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
export PYTHONUNBUFFERED=1
T0=$(date +%s)
[ -x build/amdkit_tests ] && [ -x build/bench_attention ] || make -s -j16 build/amdkit_tests build/bench_attention || exit 1
nvidia-smi -L 2>/dev/null | head -2
FORCE=
if ! timeout 60 ./build/bench_attention --quick --path all > "$O/smoke.log" 2>&1; then
  echo "smoke run failed (exit $?): the suite runs with the Hopper kernel off"; tail -n 5 "$O/smoke.log"; FORCE=1
fi
echo "smoke done at $(( $(date +%s) - T0 )) s"; tail -n 4 "$O/smoke.log"
if [ "${ATTN_SKIP_SUITE:-0}" != 1 ]; then
  if [ -n "$FORCE" ]; then export AKT_ATTN_FORCE_MMA=1; fi
  timeout 240 ./build/amdkit_tests gpu_attention > "$O/gpu_attention.log" 2>&1
  echo "suite exit $? at $(( $(date +%s) - T0 )) s"
  grep -E 'FAIL' "$O/gpu_attention.log" | head -n 20; tail -n 1 "$O/gpu_attention.log"
  unset AKT_ATTN_FORCE_MMA
fi
P=all; [ -n "$FORCE" ] && P=mma
timeout 200 ./build/bench_attention $MODE --path $P --trials "${ATTN_TRIALS:-10}" "$O/bench_attention.json" > "$O/bench_attention.log" 2>&1
echo "bench exit $? at $(( $(date +%s) - T0 )) s"; cat "$O/bench_attention.log"
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  timeout 200 python3 bench/peer_attention.py --eager-only --trials "${ATTN_TRIALS:-10}" --match "$O/bench_attention.json" \
    "$O/attention_peer.json" > "$O/peer.log" 2>&1
  echo "peer exit $? at $(( $(date +%s) - T0 )) s"; sed -n '/^| entry/,$p' "$O/peer.log"
fi
