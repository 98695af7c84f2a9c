#!/bin/bash
# Not kept: the staged kernel this call measured is described in bench/NOTES.md ("Exact f32 with few rows"); it is not in the tree.
# The gemvn kernel with A staged in shared memory, k in chunks of 512. From the repository root with OUT set: the
# tree before (.dev/amdkit_old.h, this tree's bench sources) in /tmp/old built beside; gpu_gemm's gemv_path and
# turned_path while the old tree warms its cells; the few-rows f32 cells (direct and transposed) and the f32 gemv and
# tall cells for old and new, twice, alternated; the PyTorch peer on the same cells; memcheck of gemv_path and
# turned_path; then the whole gpu_gemm suite.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile kernels tests bench tools examples /tmp/old/; cp .dev/amdkit_old.h /tmp/old/amdkit.h
( cd /tmp/old && make -s -j6 build/bench_gemm_sweep > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
make -s -j8 build/bench_gemm_sweep build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $?"
wait
F=fewrows_,tall_nn_11008x8x4096_f32,tall_tn_8192x16x8192_f32,tall_tn_4096x1x14336_f32,tall_nt_20000x2x3000_f32,gemv_nn_8192x1x8192_f32,gemv_nt_1x11008x4096_f32
/tmp/old/build/bench_gemm_sweep --filter $F $OUT/fr_oldw.json > $OUT/fr_oldw.log 2>&1 &
AKT_ONLY=gemv_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_gemv.log 2>&1; echo "gemv_path rc $? $SECONDS s"
AKT_ONLY=turned_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_turned.log 2>&1; echo "turned_path rc $? $SECONDS s"
./build/bench_gemm_sweep --filter $F --list $OUT/fr_cases.tsv $OUT/fr_neww.json > $OUT/fr_neww.log 2>&1; echo "new warm rc $? $SECONDS s"
wait; echo "warm done $SECONDS s"
for r in 1 2; do
  for t in old new; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    timeout 60 $b/bench_gemm_sweep --filter $F $OUT/fr_$t$r.json > $OUT/fr_$t$r.log 2>&1; echo "fr $t$r rc $? $SECONDS s"
  done
done
grep -ciE "fail|wrong" $OUT/fr_*[12].log
timeout 90 python3 bench/peer_torch_gemm_sweep.py $OUT/fr_cases.tsv $OUT/fr_torch.json --no-compile > $OUT/fr_torch.log 2>&1; echo "torch rc $? $SECONDS s"
AKT_ONLY=gemv_path timeout 120 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_gemm > $OUT/memcheck_gemv.log 2>&1; echo "memcheck gemv rc $? $SECONDS s"
AKT_ONLY=turned_path timeout 150 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_gemm > $OUT/memcheck_turned.log 2>&1; echo "memcheck turned rc $? $SECONDS s"
tail -n 1 $OUT/memcheck_gemv.log $OUT/memcheck_turned.log
timeout 200 ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_gemm.log 2>&1; echo "gpu_gemm rc $? $SECONDS s"
tail -n 2 $OUT/suite_gemm.log
