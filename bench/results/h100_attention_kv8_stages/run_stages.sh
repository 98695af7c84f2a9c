#!/bin/bash
# The 8-bit decode with 3 (this tree) / 4 / 5 cp.async stages of codes a warp, from the repository root with OUT
# set: .dev/amdkit_st4.h and amdkit_st5.h are this tree with AK_AMMA_F8_ST and the host's shared memory for it
# changed (not kept in the repository); each built in its own copy; bench_attention's 8-bit decode entries for
# each, in turn, twice. The same call re-ran gpu_quant, its memcheck and the quant_tensor bench on this tree.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
for v in st4 st5; do
  rm -rf /tmp/$v; mkdir -p /tmp/$v; cp -r Makefile amdkit.h kernels tests bench tools examples /tmp/$v/ 2>/dev/null
  cp .dev/amdkit_$v.h /tmp/$v/amdkit.h
  ( cd /tmp/$v && make -s -j4 build/bench_attention > /tmp/build_$v.log 2>&1; echo "$v build rc $?" ) &
done
make -s -j8 build/bench_ops build/amdkit_tests build/bench_attention > /tmp/build_new.log 2>&1; echo "new build rc $?"
wait
timeout 100 ./build/amdkit_tests --gpu gpu_quant > $OUT/suite.log 2>&1; echo "suite rc $?"; tail -1 $OUT/suite.log
timeout 150 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_quant > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; tail -2 $OUT/memcheck.log
timeout 100 ./build/bench_ops --filter quant_tensor --max-s 0.5 $OUT/quant.json > $OUT/quant.log 2>&1; echo "quant rc $?"; tail -1 $OUT/quant.log
for r in 1 2; do
  timeout 80 ./build/bench_attention --decode --bf16 --trials 20 --filter fp8 $OUT/st3_$r.json > $OUT/st3_$r.log 2>&1; echo "st3 $r $?"
  for v in st4 st5; do
    timeout 80 /tmp/$v/build/bench_attention --decode --bf16 --trials 20 --filter fp8 $OUT/${v}_$r.json > $OUT/${v}_$r.log 2>&1; echo "$v $r $?"
  done
done
( cd $OUT && tar czf call4.tgz *.json *.log && rm -f *.json *.log )
