#!/bin/bash
# ak_dequantize per tensor in the largest unit whatever the width (one scale: no unit straddles a group), from the
# repository root with OUT set: .dev/amdkit_old.h (the tree before: the unit chosen by the width for every mode) built
# in /tmp beside this tree; warm-up, then bench_ops's dequant entries of each, in turn, three times (this tree also
# once checked against the CPU reference); PyTorch eager and torch.compile on the same entries; gpu_quant and its
# memcheck.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile kernels tests bench tools examples /tmp/old/; cp .dev/amdkit_old.h /tmp/old/amdkit.h
( cd /tmp/old && make -s -j6 build/bench_ops > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
make -s -j8 build/bench_ops build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $?"
wait
/tmp/old/build/bench_ops --filter dequant --max-s 0.3 --no-check $OUT/w_old.json > /dev/null 2>&1 &
./build/bench_ops --filter dequant --max-s 0.5 $OUT/dq_new1.json > $OUT/dq_new1.log 2>&1; echo "dq new1 rc $? $SECONDS"
wait
for r in 2 3 4; do
  for t in old new; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    $b/bench_ops --filter dequant --max-s 0.5 --no-check $OUT/dq_$t$r.json > $OUT/dq_$t$r.log 2>&1; echo "dq $t$r rc $? $SECONDS"
  done
done
timeout 150 python3 bench/peer_torch.py --impl both --match $OUT/dq_new1.json --filter dequant --max-s 0.5 $OUT/dq_torch.json > $OUT/dq_torch.log 2>&1; echo "torch rc $? $SECONDS"
./build/amdkit_tests --gpu gpu_quant > $OUT/suite_q.log 2>&1; echo "suite rc $? $SECONDS"; tail -1 $OUT/suite_q.log
timeout 200 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_quant > $OUT/memcheck_q.log 2>&1; echo "memcheck rc $? $SECONDS"; tail -1 $OUT/memcheck_q.log
