#!/bin/bash
# ak_dequantize in units (16 / 8 / 4 codes a unit, a pair a thread; the row by a multiply), from the repository root with OUT set:
# .dev/amdkit_old.h (the tree before: 16 codes a thread for 16-bit y, f32 element by element) and .dev/amdkit_cur.h (8-code
# units for 16-bit y) built in /tmp beside this tree; warm-up, then bench_ops's dequant entries of each, in turn, twice
# (this tree also once checked against the CPU reference); gpu_quant. dq_torch.json: bench/peer_torch.py on the same
# entries, from the call before (same kind of machine).
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
for d in old cur; do rm -rf /tmp/$d; mkdir -p /tmp/$d; cp -r Makefile amdkit.h kernels tests bench tools examples /tmp/$d/ 2>/dev/null; done
cp .dev/amdkit_old.h /tmp/old/amdkit.h; cp .dev/amdkit_cur.h /tmp/cur/amdkit.h
( cd /tmp/old && make -s -j5 build/bench_ops > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
( cd /tmp/cur && make -s -j5 build/bench_ops > /tmp/b_cur.log 2>&1; echo "cur build rc $?" ) &
make -s -j6 build/bench_ops build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $?"
wait
/tmp/old/build/bench_ops --filter dequant --max-s 0.3 --no-check $OUT/w_old.json > /dev/null 2>&1 &
/tmp/cur/build/bench_ops --filter dequant --max-s 0.3 --no-check $OUT/w_cur.json > /dev/null 2>&1 &
./build/bench_ops --filter dequant --max-s 0.5 $OUT/dq_new1.json > $OUT/dq_new1.log 2>&1; echo "dq new1 rc $? $SECONDS"
wait
for r in 2 3; do
  for t in old cur new; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    $b/bench_ops --filter dequant --max-s 0.5 --no-check $OUT/dq_$t$r.json > $OUT/dq_$t$r.log 2>&1; echo "dq $t$r rc $? $SECONDS"
  done
done
./build/amdkit_tests --gpu gpu_quant > $OUT/suite_q.log 2>&1; echo "suite rc $? $SECONDS"; tail -1 $OUT/suite_q.log
