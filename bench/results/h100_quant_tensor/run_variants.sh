#!/bin/bash
# The two-pass tensor cast (ak_quantize, AK_QUANT_TENSOR with the scale computed) before and after, from the
# repository root with OUT set: headers in .dev (amdkit_old.h: the tree before; amdkit_rev.h: the second pass
# reads the tiles last first; amdkit_cs.h: that, with streaming (evict-first) loads and code stores in the
# second pass), each built in its own copy of the tree; bench_ops's quant_tensor entries for each, in turn,
# twice (the first round checked against the CPU reference); then gpu_quant on the two new builds.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
for v in old rev cs; do
  rm -rf /tmp/$v; mkdir -p /tmp/$v; cp -r Makefile amdkit.h kernels tests bench tools examples /tmp/$v/ 2>/dev/null
  cp .dev/amdkit_$v.h /tmp/$v/amdkit.h
  t=build/bench_ops; [ $v != old ] && t="$t build/amdkit_tests"
  ( cd /tmp/$v && make -s -j5 $t > /tmp/build_$v.log 2>&1; echo "$v build rc $?" ) &
done
wait
for r in 1 2; do
  chk=""; [ $r = 2 ] && chk=--no-check
  for v in old rev cs; do
    timeout 150 /tmp/$v/build/bench_ops --filter quant_tensor --max-s 0.5 $chk $OUT/${v}$r.json > $OUT/${v}$r.log 2>&1; echo "$v$r rc $?"
  done
done
for v in rev cs; do
  ( cd /tmp/$v && AKT_ONLY=quant timeout 120 ./build/amdkit_tests --gpu gpu_quant > $OUT/suite_$v.log 2>&1; echo "suite $v rc $?"; tail -2 $OUT/suite_$v.log )
done
( cd $OUT && tar czf variants.tgz *.json *.log && rm -f *.json *.log )
