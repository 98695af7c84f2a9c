#!/bin/bash
# The split sweep (every count, the plan's first) of the 8-bit decode on listed and held-out shapes, and the
# ncu profile of b32 x 4096 (sections; source counters per SASS line as CSV). From the repository root, OUT set.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
make -s -j14 build/amdkit build/bench_attention 2>&1 | tail -3
for hd in 128 64 256; do
  timeout 100 ./build/amdkit compile kernels/attention_mma.hip --kernel ak_attn_mmadec${hd}_e4m3_bf16 --arch sm_90 -DAK_AMMA_ONLY=$hd > /tmp/c_$hd.log 2>&1 &
done
wait
timeout 250 ./build/bench_attention --decode --bf16 --trials 10 --filter kv8 --splits 0,1,2,3,4,5,6,8,12,16,24 \
  --shape 32,32,8,4096,128 --shape 16,32,8,3000,128 --shape 1,32,8,131072,128 --shape 64,32,8,8192,128 \
  --shape 8,32,8,32768,128 --shape 32,32,8,8192,64 --shape 32,32,8,4096,256 --shape 4,32,8,16384,128 \
  > $OUT/splits.log 2>&1; echo splits $?
timeout 100 ./build/bench_attention --decode --bf16 --trials 10 --filter kv8 --splits 0,1,2,3,4,5,6,8,12,16,24 \
  --shape 48,32,8,2048,128 --shape 2,32,4,50000,128 --shape 12,32,8,6000,128 --shape 128,32,8,1024,128 \
  > $OUT/splits2.log 2>&1; echo splits2 $?
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu | head -1)
f="decode_kv8 bf16 kv fp8_e4m3 b32 hq32 hkv8 sq1 skv4096 d128"
timeout 200 "$NCU" --clock-control none --kernel-name regex:"mmadec" --launch-skip 2 --launch-count 1 --section SourceCounters --page source --print-source sass --csv \
    ./build/bench_attention --decode --bf16 --trials 1 --filter "$f" > /tmp/sass.csv 2>&1; echo "source exit $?"
gzip -c /tmp/sass.csv > $OUT/sass.csv.gz
timeout 200 "$NCU" --clock-control none --kernel-name regex:"mmadec" --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --print-units base \
    ./build/bench_attention --decode --bf16 --trials 1 --filter "$f" > $OUT/ncu.txt 2>&1; echo "sections exit $?"
