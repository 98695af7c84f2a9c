#!/usr/bin/env bash
# One device run for the 8-bit K / V decode kernels: the compile cache warmed
# in parallel (every head size of the attention_mma family), the decode
# entries of bench_attention (bf16 and 8-bit K / V, contiguous and paged; the
# copy roofline of the same run) for a previous build and this one, ncu on
# the b64 x 8192-key 8-bit kernel of both, then the gpu_attention suite's
# 8-bit cases. Binaries built on another x86-64 machine and carried.
#   bash bench/attn_kv8_device.sh OUTDIR [OLD_DIR]
# OLD_DIR: a tree with build/bench_attention and kernels/attention_mma.hip of
# the build to compare with (optional).
set -u
cd "$(dirname "$0")/.."
O=${1:-build/kv8-run}
OLD=${2:-}
mkdir -p "$O"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | head -1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
# compile cache: one module per head size (the cache keys a module without the kernel name)
for hd in 128 32 64 80 96 160 192 256; do
  ./build/amdkit compile kernels/attention_mma.hip --kernel ak_attn_mmadec${hd}_e4m3_bf16 --arch sm_90 \
    -DAK_AMMA_ONLY=$hd > "$O/compile_$hd.log" 2>&1 &
done
if [ -n "$OLD" ]; then
  ./build/amdkit compile "$OLD/kernels/attention_mma.hip" --kernel ak_attn_mmadec128_e4m3_bf16 --arch sm_90 \
    -DAK_AMMA_ONLY=128 > "$O/compile_old.log" 2>&1
  echo "old compile done at $(( $(date +%s) - T0 )) s"
  timeout 120 "$OLD/build/bench_attention" --trials 20 --filter "sq1 skv" "$O/before.json" > "$O/before.log" 2>&1
  echo "before: exit $? at $(( $(date +%s) - T0 )) s"
fi
wait
echo "compiles done at $(( $(date +%s) - T0 )) s"; grep -h "sm_90 " "$O"/compile_*.log | head -12
timeout 120 ./build/bench_attention --trials 20 --filter "sq1 skv" "$O/after.json" > "$O/after.log" 2>&1
echo "after: exit $? at $(( $(date +%s) - T0 )) s"
if [ -n "$NCU" ]; then
  for side in new old; do
    B=./build/bench_attention; [ $side = old ] && B="$OLD/build/bench_attention"
    [ $side = old ] && [ -z "$OLD" ] && continue
    timeout 90 "$NCU" --clock-control none --kernel-name regex:mmadec128_e4m3 --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
      --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
      --section InstructionStats --section SourceCounters -o "$O/ncu_$side" \
      "$B" --trials 1 --filter "b64 hq32 hkv8 sq1 skv8192" > "$O/ncu_$side.log" 2>&1
    echo "ncu $side: exit $? at $(( $(date +%s) - T0 )) s"
    "$NCU" -i "$O/ncu_$side.ncu-rep" --page details --print-units base > "$O/ncu_$side.txt" 2>&1
  done
fi
AKT_ONLY=kv8 timeout 150 ./build/amdkit_tests gpu_attention > "$O/gpu_attention_kv8.log" 2>&1
echo "suite: exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAIL|fail" "$O/gpu_attention_kv8.log" | head; tail -n 2 "$O/gpu_attention_kv8.log"
echo "== before"; [ -n "$OLD" ] && grep -E "copy roofline| ms" "$O/before.log"
echo "== after"; grep -E "copy roofline| ms" "$O/after.log"
for side in old new; do
  [ -f "$O/ncu_$side.txt" ] || continue
  echo "== ncu $side"
  grep -E "^ +(Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Limit (Registers|Shared Mem)|Issue Slots Busy|No Eligible|Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|Executed Instructions|Grid Size|Dynamic Shared Memory Per Block) " "$O/ncu_$side.txt" | head -20
done
