#!/usr/bin/env bash
# One device run for the decode kernels (16-bit and 8-bit K / V): the compile
# cache warmed in parallel (head sizes 64 / 128 / 256 of the attention_mma
# family), then by MODE:
#   profile: ncu (--clock-control none) of the decode kernel and its split
#            combine at b32 x 4096 (contiguous and 16-row pages) and b64 x 8192,
#            bf16 and e4m3 K / V, plus a split-count sweep of those shapes;
#   measure: bench_attention --decode --bf16 (every decode shape, JSON), the
#            PyTorch SDPA side (peer_attention.py --eager-only) and a torch
#            device-to-device copy of each entry's K / V bytes, then the
#            gpu_attention suite.
# Binaries built on another x86-64 machine and carried. Files straight into
# OUTDIR (at most 8): run.log, decode.json, peer.json, ncu.txt, suite.log.
#   bash bench/attn_decode_device.sh OUTDIR profile|measure [OLD_DIR]
# OLD_DIR (measure): a tree with build/bench_attention and kernels/attention_mma.hip
# of the build to compare with (its decode entries go to before.json).
set -u
cd "$(dirname "$0")/.."
O=${1:-build/decode-run}
MODE=${2:-measure}
OLD=${3:-}
mkdir -p "$O"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
L="$O/run.log"
T0=$(date +%s)
say() { echo "$* at $(( $(date +%s) - T0 )) s" | tee -a "$L"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | head -1 | tee -a "$L"
for hd in 128 64 256; do
  timeout 100 ./build/amdkit compile kernels/attention_mma.hip --kernel ak_attn_mmadec${hd}_e4m3_bf16 --arch sm_90 \
    -DAK_AMMA_ONLY=$hd > "/tmp/dec_compile_$hd.log" 2>&1 &
  [ -n "$OLD" ] && timeout 100 ./build/amdkit compile "$OLD/kernels/attention_mma.hip" --kernel ak_attn_mmadec${hd}_e4m3_bf16 \
    --arch sm_90 -DAK_AMMA_ONLY=$hd > "/tmp/dec_compile_old_$hd.log" 2>&1 &
done
wait
say "compiles done"
B=./build/bench_attention
if [ "$MODE" = profile ]; then
  for sp in 0 1 2 3 4 6 8; do
    for f in "b32 hq32 hkv8 sq1 skv4096 d128" "b64 hq32 hkv8 sq1 skv8192 d128"; do
      timeout 40 $B --decode --bf16 --trials 10 --splits $sp --filter "$f" 2>&1 | grep " ms " | sed "s/^/splits=$sp /" >> "$L"
    done
    say "splits $sp"
  done
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  for f in "decode bf16 b32 hq32 hkv8 sq1 skv4096 d128" "decode_kv8 bf16 kv fp8_e4m3 b32 hq32 hkv8 sq1 skv4096 d128" \
           "decode_paged bf16 b32" "decode_kv8_paged bf16 kv fp8_e4m3 b32" \
           "decode bf16 b64 hq32 hkv8 sq1 skv8192 d128" "decode_kv8 bf16 kv fp8_e4m3 b64 hq32 hkv8 sq1 skv8192 d128"; do
    echo "=== $f" >> "$O/ncu.txt"
    timeout 60 "$NCU" --clock-control none --kernel-name regex:"mmadec|combine" --launch-skip 2 --launch-count 2 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
      --section SchedulerStats --section WarpStateStats --print-units base \
      $B --decode --bf16 --trials 1 --filter "$f" >> "$O/ncu.txt" 2>&1
    say "ncu '$f': exit $?"
  done
  grep -E "^ +(Duration|DRAM Throughput|Memory Throughput|dram__bytes|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Issue Slots Busy|No Eligible|Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|Grid Size|Waves Per SM)|^===|attn_|combine" "$O/ncu.txt" | head -150
  grep -E "splits=" "$L" | awk '{print $1, $2, $3, $(NF-6), $(NF-3), $(NF-1), $NF}' 
else
  if [ -n "$OLD" ]; then
    timeout 150 "$OLD/build/bench_attention" --decode --bf16 --trials 20 "$O/before.json" >> "$L" 2>&1
    say "bench before: exit $?"
  fi
  timeout 150 $B --decode --bf16 --trials 20 "$O/decode.json" >> "$L" 2>&1
  say "bench: exit $?"
  AKT_ONLY=kv8 timeout 150 ./build/amdkit_tests gpu_attention > "$O/suite_kv8.log" 2>&1
  say "suite kv8: exit $?"
  PYTHONUNBUFFERED=1 timeout 120 python3 bench/peer_attention.py --match "$O/decode.json" --eager-only --trials 20 \
    "$O/peer.json" >> "$L" 2>&1
  say "peer: exit $?"
  PYTHONUNBUFFERED=1 timeout 60 python3 - "$O/decode.json" >> "$L" 2>&1 <<'EOF'
import json, sys, torch
r = json.load(open(sys.argv[1]))
seen = set()
for e in r["results"]:
    nb = int(e["kv_bytes"])
    if nb in seen: continue
    seen.add(nb)
    a = torch.empty(nb, dtype=torch.uint8, device="cuda"); b = torch.empty_like(a)
    fl = torch.empty(100 << 20, dtype=torch.uint8, device="cuda")
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    ts = []
    for i in range(23):
        fl.fill_(i); ev[0].record(); b.copy_(a); ev[1].record(); torch.cuda.synchronize()
        if i >= 3: ts.append(ev[0].elapsed_time(ev[1]))
    ts.sort(); m = ts[len(ts) // 2]
    print("torch copy %12d bytes: %.4f ms, %.1f GB/s (read + write)" % (nb, m, 2 * nb / m / 1e6))
    del a, b
EOF
  say "copy: exit $?"
  # the split counts the plan chose before its 8-bit one-wave rule, on the shapes where the rule changes it
  for f in "fp8_e4m3 b8 hq32 hkv8 sq1 skv32768 d128:6" "fp8_e4m3 b1 hq32 hkv8 sq1 skv131072 d128:49" \
           "fp8_e4m3 b16 hq32 hkv8 sq1 skv3000 d128:3" "fp8_e4m3 b32 hq32 hkv8 sq1 skv4096 d128:3"; do
    timeout 40 $B --decode --bf16 --trials 20 --splits ${f##*:} --filter "${f%:*}" 2>&1 | grep " ms " | \
      sed "s/^/splits=${f##*:} /" >> "$L"
  done
  say "split sweep"
  grep -E "FAIL|fail" "$O/suite_kv8.log" | head; tail -n 2 "$O/suite_kv8.log"
  grep -E "copy roofline| ms|torch copy" "$L"
  AKT_ONLY=${SUITE_ONLY:-} timeout ${SUITE_S:-200} ./build/amdkit_tests gpu_attention > "$O/suite.log" 2>&1
  say "suite: exit $?"
  grep -E "FAIL|fail" "$O/suite.log" | head; tail -n 2 "$O/suite.log"
fi
