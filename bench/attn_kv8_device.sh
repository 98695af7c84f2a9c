#!/usr/bin/env bash
# One device run for the 8-bit K / V decode kernels: the compile cache warmed
# in parallel (every head size of the attention_mma family), the decode
# entries of bench_attention at b64 x 8192 and b32 x 4096 keys (bf16 and
# 8-bit K / V, contiguous and paged; the copy roofline of the same run) for
# a previous build and this one, ncu on the b64 8-bit kernel of both
# (KV8_NCU=1), then the gpu_attention suite's 8-bit cases. Binaries built on
# another x86-64 machine and carried. At most 8 files in OUTDIR (run.log,
# suite.log, {before,after}_{b64,b32}.json, ncu_{old,new}.txt); about 100 s
# without ncu once the binaries are there.
#   bash bench/attn_kv8_device.sh OUTDIR [OLD_DIR]
# OLD_DIR: a tree with build/bench_attention and kernels/attention_mma.hip of
# the build to compare with (optional).
set -u
cd "$(dirname "$0")/.."
O=${1:-build/kv8-run}
OLD=${2:-}
mkdir -p "$O"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
L="$O/run.log"
T0=$(date +%s)
say() { echo "$* at $(( $(date +%s) - T0 )) s" | tee -a "$L"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | head -1 | tee -a "$L"
# compile cache: one module per head size (the cache keys a module without the kernel name)
for hd in 128 32 64 80 96 160 192 256; do
  timeout 100 ./build/amdkit compile kernels/attention_mma.hip --kernel ak_attn_mmadec${hd}_e4m3_bf16 --arch sm_90 \
    -DAK_AMMA_ONLY=$hd > "/tmp/kv8_compile_$hd.log" 2>&1 &
done
bench() {  # bench BINARY TAG
  for f in "b64 hq32 hkv8 sq1 skv8192" "b32 hq32 hkv8 sq1 skv4096"; do
    local j; j="$O/$2_$(echo "$f" | cut -d' ' -f1).json"
    timeout 60 "$1" --trials 20 --filter "$f" "$j" >> "$L" 2>&1
    say "$2 '$f': exit $?"
  done
}
if [ -n "$OLD" ]; then
  timeout 60 ./build/amdkit compile "$OLD/kernels/attention_mma.hip" --kernel ak_attn_mmadec128_e4m3_bf16 --arch sm_90 \
    -DAK_AMMA_ONLY=128 >> "$L" 2>&1
  say "old compile done"
  bench "$OLD/build/bench_attention" before
fi
wait
say "compiles done"; cat /tmp/kv8_compile_*.log | grep "sm_90 " >> "$L"
bench ./build/bench_attention after
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ "${KV8_NCU:-0}" = 1 ] && [ -n "$NCU" ]; then
  for side in new old; do
    B=./build/bench_attention; [ $side = old ] && B="$OLD/build/bench_attention"
    [ $side = old ] && [ -z "$OLD" ] && continue
    timeout 60 "$NCU" --clock-control none --kernel-name regex:mmadec128_e4m3 --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
      --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats \
      --print-units base "$B" --trials 1 --filter "decode_kv8 bf16 kv fp8_e4m3 b64" > "$O/ncu_$side.txt" 2>&1
    say "ncu $side: exit $?"
  done
fi
AKT_ONLY=kv8 timeout 150 ./build/amdkit_tests gpu_attention > "$O/suite.log" 2>&1
say "suite: exit $?"
grep -E "FAIL|fail" "$O/suite.log" | head; tail -n 2 "$O/suite.log"
grep -E "copy roofline| ms" "$L"
for side in old new; do
  [ -f "$O/ncu_$side.txt" ] || continue
  echo "== ncu $side"
  grep -E "^ +(Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Limit (Registers|Shared Mem)|Issue Slots Busy|No Eligible|Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|Executed Instructions|Grid Size|Dynamic Shared Memory Per Block) " "$O/ncu_$side.txt" | head -20
done
