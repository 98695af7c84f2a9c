#!/bin/bash
# The matrix-vector kernel's matrix loads evict-first (ld.global.cs), from the repository root with OUT set: .dev/amdkit_old.h
# (the tree before) in /tmp/old and a variant with 4 steps in flight instead of 2 (v4) built beside this tree; the
# gemv cells of bench_gemm_sweep warmed in the three at once, then each in turn, twice; KernelBench 4 (fp32, fp16) for old
# and new; the PyTorch peer on the same cells. (The same call timed the dequantise entries: see h100_dequant_units.)
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
for d in old v4; do rm -rf /tmp/$d; mkdir -p /tmp/$d; cp -r Makefile amdkit.h kernels tests bench tools examples /tmp/$d/ 2>/dev/null; done
cp .dev/amdkit_old.h /tmp/old/amdkit.h
sed -i 's/enum { U = 2 };/enum { U = 4 };/' /tmp/v4/kernels/gemm_decode.hip
( cd /tmp/v4 && make -s build/akgen >/dev/null 2>&1 && ./build/akgen amdkit.h kernels && make -s -j5 build/bench_gemm_sweep > /tmp/b_v4.log 2>&1; echo "v4 build rc $?" ) &
( cd /tmp/old && make -s -j5 build/bench_ops build/bench_gemm_sweep > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
make -s -j6 build/bench_ops build/bench_gemm_sweep > /tmp/b_new.log 2>&1; echo "new build rc $?"
wait
F=gemv,splitk_nn_256x1,splitk_nt_1x512
# warm the kernel cache of the three trees at once (compiles are CPU work); checked against the CPU reference
/tmp/old/build/bench_gemm_sweep --filter $F $OUT/gv_oldw.json > $OUT/gv_oldw.log 2>&1 &
./build/bench_gemm_sweep --filter $F --list $OUT/gv_cases.tsv $OUT/gv_neww.json > $OUT/gv_neww.log 2>&1 &
/tmp/v4/build/bench_gemm_sweep --filter $F $OUT/gv_v4w.json > $OUT/gv_v4w.log 2>&1 &
/tmp/old/build/bench_ops --filter dequant --max-s 0.5 $OUT/dq_old1.json > $OUT/dq_old1.log 2>&1; echo "dq old1 rc $?"
./build/bench_ops --filter dequant --max-s 0.5 $OUT/dq_new1.json > $OUT/dq_new1.log 2>&1; echo "dq new1 rc $?"
wait; echo "warm done $SECONDS s"; grep -c " ok\|correct" $OUT/gv_*w.log; grep -iE "wrong|fail" $OUT/gv_*w.log | head
/tmp/old/build/bench_ops --filter dequant --max-s 0.5 --no-check $OUT/dq_old2.json > $OUT/dq_old2.log 2>&1; echo "dq old2 rc $?"
./build/bench_ops --filter dequant --max-s 0.5 --no-check $OUT/dq_new2.json > $OUT/dq_new2.log 2>&1; echo "dq new2 rc $?"
for r in 1 2; do
  for t in old new v4; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    timeout 60 $b/bench_gemm_sweep --filter $F $OUT/gv_$t$r.json > $OUT/gv_$t$r.log 2>&1; echo "gv $t$r rc $? $SECONDS s"
  done
done
for p in fp32 fp16; do
  for t in old new; do
    dir=/tmp/old; [ $t = new ] && dir=$PWD
    ( cd $dir && timeout 90 python3 bench/kernelbench/run.py --problems 4 --precision $p --trials 5 --warmup 1 --no-compile --out $OUT/kb_${t}_$p > $OUT/kb_${t}_$p.log 2>&1; echo "kb $t $p rc $? $SECONDS s" )
  done
done
timeout 60 python3 bench/peer_torch.py --impl both --match $OUT/dq_new1.json --filter dequant --max-s 0.5 $OUT/dq_torch.json > $OUT/dq_torch.log 2>&1; echo "dq torch rc $?"
timeout 60 python3 bench/peer_torch_gemm_sweep.py $OUT/gv_cases.tsv $OUT/gv_torch.json --no-compile > $OUT/gv_torch.log 2>&1; echo "gv torch rc $? $SECONDS s"
