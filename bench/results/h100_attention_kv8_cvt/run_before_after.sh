#!/bin/bash
# The before / after run of this directory, from the repository root with OUT set: the 8-bit decode entries
# of bench_attention for a previous build (OLD_DIR: its amdkit.h and attention_mma.hip) and this one, twice in
# turn, then the gpu_attention suite's 8-bit cases (MC=1: also under compute-sanitizer memcheck).
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile amdkit.h kernels tests bench tools examples /tmp/old/ 2>/dev/null
cp "$OLD_DIR/amdkit.h" /tmp/old/amdkit.h; cp "$OLD_DIR/attention_mma.hip" /tmp/old/kernels/attention_mma.hip
( cd /tmp/old && make -s -j7 build/amdkit build/bench_attention > /tmp/old_build.log 2>&1 ) &
make -s -j8 build/amdkit build/bench_attention build/amdkit_tests 2>&1 | tail -3
wait; tail -3 /tmp/old_build.log
for hd in 128 64 256; do
  timeout 100 ./build/amdkit compile kernels/attention_mma.hip --kernel ak_attn_mmadec${hd}_e4m3_bf16 --arch sm_90 -DAK_AMMA_ONLY=$hd > /tmp/c_$hd.log 2>&1 &
  timeout 100 /tmp/old/build/amdkit compile /tmp/old/kernels/attention_mma.hip --kernel ak_attn_mmadec${hd}_e4m3_bf16 --arch sm_90 -DAK_AMMA_ONLY=$hd > /tmp/o_$hd.log 2>&1 &
done
wait
echo compiled
for r in 1 2; do
  timeout 100 /tmp/old/build/bench_attention --decode --trials 20 --filter kv8 $OUT/old$r.json > $OUT/old$r.log 2>&1; echo old$r $?
  timeout 100 ./build/bench_attention --decode --trials 20 --filter kv8 $OUT/new$r.json > $OUT/new$r.log 2>&1; echo new$r $?
done
AKT_ONLY=kv8 timeout 200 ./build/amdkit_tests --gpu gpu_attention > $OUT/suite.log 2>&1; echo suite $?; tail -3 $OUT/suite.log
if [ "${MC:-0}" = 1 ]; then
AKT_ONLY=kv8 timeout 250 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_attention > $OUT/memcheck.log 2>&1; echo memcheck $?; tail -3 $OUT/memcheck.log
fi
