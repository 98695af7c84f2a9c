#!/bin/bash
# The tensor cast with its scale computed: the two-kernel form (.dev/amdkit_old.h, the tree before, built in
# /tmp/old) against the one-pass kernel (this tree), from the repository root with OUT set: bench_ops's
# quant_tensor entries for each, in turn, twice (the first round checked against the CPU reference); gpu_quant
# and its memcheck; then PyTorch (eager and torch.compile) on the same entries.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile amdkit.h kernels tests bench tools examples /tmp/old/ 2>/dev/null
cp .dev/amdkit_old.h /tmp/old/amdkit.h
( cd /tmp/old && make -s -j6 build/bench_ops > /tmp/build_old.log 2>&1; echo "old build rc $?" ) &
make -s -j10 build/bench_ops build/amdkit_tests > /tmp/build_new.log 2>&1; echo "new build rc $?"
wait
for r in 1 2; do
  chk=""; [ $r = 2 ] && chk=--no-check
  timeout 120 /tmp/old/build/bench_ops --filter quant_tensor --max-s 0.5 $chk $OUT/old$r.json > $OUT/old$r.log 2>&1; echo "old$r rc $?"
  timeout 120 ./build/bench_ops --filter quant_tensor --max-s 0.5 $chk $OUT/new$r.json > $OUT/new$r.log 2>&1; echo "new$r rc $?"
done
timeout 120 ./build/amdkit_tests --gpu gpu_quant > $OUT/suite.log 2>&1; echo "suite rc $?"; tail -2 $OUT/suite.log
timeout 200 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_quant > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; tail -3 $OUT/memcheck.log
timeout 200 python3 bench/peer_torch.py --impl both --match $OUT/new1.json --filter quant_tensor --max-s 0.5 $OUT/torch.json > $OUT/torch.log 2>&1; echo "torch rc $?"
( cd $OUT && tar czf onepass.tgz *.json *.log && rm -f *.json *.log )
