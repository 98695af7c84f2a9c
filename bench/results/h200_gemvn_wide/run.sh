#!/bin/bash
# The gemvn kernel with 128-column blocks and A staged a chunk at a time. .dev/amdkit_old.h was the header before:
# the 8-column kernel for final_*.json and variants_*.json, this kernel with split-K for a batch of 1 only for
# batch_*.json (files renamed from fr_* / sw_* after the calls; batch_*_torch.json from the call before the last; variants_* came from headers .dev/amdkit_{a,b,d,e}.h
# described in bench/NOTES.md, not kept). From the
# repository root with OUT set: the tree before (.dev/amdkit_old.h, this tree's bench sources) in /tmp/old built beside; gpu_gemm's gemv_path and
# turned_path while the old tree warms its cells; the few-rows f32 cells (direct and transposed) and the f32 gemv and
# tall cells for old and new, twice, alternated; the PyTorch peer on the same cells; memcheck of gemv_path and
# turned_path (MEMCHECK=0: not); SWEEP=1: the drawn shapes of sweep_cases.tsv too; variant headers .dev/amdkit_$v.h for v in $VARIANTS beside old and new; the whole gpu_gemm suite with FULL=1; TORCH=0: no PyTorch peer.
set -u
F=fewrows_,tall_nn_11008x8x4096_f32,tall_tn_8192x16x8192_f32,tall_tn_4096x1x14336_f32,tall_nt_20000x2x3000_f32,gemv_nn_8192x1x8192_f32,gemv_nt_1x11008x4096_f32
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile kernels tests bench tools examples /tmp/old/; cp .dev/amdkit_old.h /tmp/old/amdkit.h
( cd /tmp/old && make -s -j6 build/bench_gemm_sweep > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
for v in ${VARIANTS:-}; do  # variant headers .dev/amdkit_$v.h, measured beside old and new
  rm -rf /tmp/$v; mkdir -p /tmp/$v; cp -r Makefile kernels tests bench tools examples /tmp/$v/; cp .dev/amdkit_$v.h /tmp/$v/amdkit.h
  ( cd /tmp/$v && make -s -j4 build/bench_gemm_sweep > /tmp/b_$v.log 2>&1; echo "$v build rc $?" ) &
done
make -s -j8 build/bench_gemm_sweep build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $?"
wait
for v in ${VARIANTS:-}; do /tmp/$v/build/bench_gemm_sweep --filter $F $OUT/fr_${v}w.json > $OUT/fr_${v}w.log 2>&1; done
/tmp/old/build/bench_gemm_sweep --filter $F $OUT/fr_oldw.json > $OUT/fr_oldw.log 2>&1 &
AKT_ONLY=gemv_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_gemv.log 2>&1; echo "gemv_path rc $? $SECONDS s"
AKT_ONLY=turned_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_turned.log 2>&1; echo "turned_path rc $? $SECONDS s"
./build/bench_gemm_sweep --filter $F --list $OUT/fr_cases.tsv $OUT/fr_neww.json > $OUT/fr_neww.log 2>&1; echo "new warm rc $? $SECONDS s"
wait; echo "warm done $SECONDS s"
for r in 1 2; do
  for t in old new ${VARIANTS:-}; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    timeout 60 $b/bench_gemm_sweep --filter $F $OUT/fr_$t$r.json > $OUT/fr_$t$r.log 2>&1; echo "fr $t$r rc $? $SECONDS s"
  done
done
grep -ciE "fail|wrong" $OUT/fr_*[12].log
[ "${TORCH:-1}" = 1 ] && timeout 90 python3 bench/peer_torch_gemm_sweep.py $OUT/fr_cases.tsv $OUT/fr_torch.json --no-compile > $OUT/fr_torch.log 2>&1; echo "torch rc $? $SECONDS s"
# SWEEP=1: the drawn few-rows shapes of sweep_cases.tsv (old and new twice, alternated, then the peer)
if [ "${SWEEP:-0}" = 1 ]; then
  S=bench/results/h200_gemvn_wide/sweep_cases.tsv
  /tmp/old/build/bench_gemm_sweep --cases $S $OUT/sw_oldw.json > $OUT/sw_oldw.log 2>&1
  ./build/bench_gemm_sweep --cases $S $OUT/sw_neww.json > $OUT/sw_neww.log 2>&1; echo "sweep warm $SECONDS s"
  for r in 1 2; do
    for t in old new; do
      b=/tmp/$t/build; [ $t = new ] && b=./build
      timeout 120 $b/bench_gemm_sweep --cases $S $OUT/sw_$t$r.json > $OUT/sw_$t$r.log 2>&1; echo "sw $t$r rc $? $SECONDS s"
    done
  done
  grep -ciE "fail|wrong" $OUT/sw_*[12].log
  [ "${TORCH:-1}" = 1 ] && timeout 150 python3 bench/peer_torch_gemm_sweep.py $S $OUT/sw_torch.json --no-compile > $OUT/sw_torch.log 2>&1; echo "sweep torch rc $? $SECONDS s"
fi
[ "${MEMCHECK:-1}" = 1 ] && AKT_ONLY=gemv_path timeout 120 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_gemm > $OUT/memcheck_gemv.log 2>&1; echo "memcheck gemv rc $? $SECONDS s"
[ "${MEMCHECK:-1}" = 1 ] && AKT_ONLY=turned_path timeout 150 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_gemm > $OUT/memcheck_turned.log 2>&1; echo "memcheck turned rc $? $SECONDS s"
[ "${MEMCHECK:-1}" = 1 ] && tail -n 1 $OUT/memcheck_gemv.log $OUT/memcheck_turned.log
[ "${FULL:-0}" = 1 ] && timeout 200 ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_gemm.log 2>&1; echo "gpu_gemm rc $? $SECONDS s"
[ "${FULL:-0}" = 1 ] && tail -n 2 $OUT/suite_gemm.log
cd $OUT && tar czf all.tgz *.json *.log *.tsv && rm -f *.json *.log
