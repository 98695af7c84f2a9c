#!/bin/bash
# ak_dequantize (e4m3 codes -> f32 / f16 / bf16, per tensor and per row) before and after its vector form, from the
# repository root with OUT set: .dev/amdkit_old.h (the tree before) built in /tmp/old beside this tree; bench_ops's
# dequant entries for each, in turn, twice (the first round checked against the CPU reference); gpu_quant and its
# memcheck; PyTorch (eager and torch.compile) on the same entries.
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
  timeout 100 /tmp/old/build/bench_ops --filter dequant --max-s 0.5 $chk $OUT/dq_old$r.json > $OUT/dq_old$r.log 2>&1; echo "old$r rc $?"
  timeout 100 ./build/bench_ops --filter dequant --max-s 0.5 $chk $OUT/dq_new$r.json > $OUT/dq_new$r.log 2>&1; echo "new$r rc $?"
done
timeout 100 ./build/amdkit_tests --gpu gpu_quant > $OUT/dq_suite.log 2>&1; echo "suite rc $?"; tail -1 $OUT/dq_suite.log
timeout 150 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_quant > $OUT/dq_memcheck.log 2>&1; echo "memcheck rc $?"; tail -2 $OUT/dq_memcheck.log
timeout 150 python3 bench/peer_torch.py --impl both --match $OUT/dq_new1.json --filter dequant --max-s 0.5 $OUT/dq_torch.json > $OUT/dq_torch.log 2>&1; echo "torch rc $?"
( cd $OUT && tar czf dequant.tgz *.json *.log && rm -f *.json *.log )
