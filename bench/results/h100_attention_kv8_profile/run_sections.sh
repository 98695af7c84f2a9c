#!/bin/bash
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s -j14 build/amdkit build/bench_attention 2>&1 | tail -3
B=./build/bench_attention
timeout 100 ./build/amdkit compile kernels/attention_mma.hip --kernel ak_attn_mmadec128_e4m3_bf16 --arch sm_90 -DAK_AMMA_ONLY=128 > /tmp/c.log 2>&1
timeout 60 $B --decode --bf16 --trials 10 --filter "kv8" 2>&1 | grep " ms " | head -20
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu | head -1)
for f in "decode_kv8 bf16 kv fp8_e4m3 b32 hq32 hkv8 sq1 skv4096 d128" "decode_kv8_paged bf16 kv fp8_e4m3 b32" "decode_kv8 bf16 kv fp8_e4m3 b64 hq32 hkv8 sq1 skv8192 d128" "decode bf16 b32 hq32 hkv8 sq1 skv4096 d128"; do
  echo "=== $f" >> $OUT/ncu.txt
  timeout 90 "$NCU" --clock-control none --kernel-name regex:"mmadec|combine" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section LaunchStats \
    --section SchedulerStats --section WarpStateStats --section SourceCounters --print-units base \
    $B --decode --bf16 --trials 1 --filter "$f" >> $OUT/ncu.txt 2>&1
  echo "ncu $f exit $?"
done
grep -E "^ +(Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit Rate|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Issue Slots Busy|No Eligible|Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|Grid Size|Block Size|Waves Per SM|Executed Instructions  )|^===|  ak_attn" $OUT/ncu.txt | head -120
