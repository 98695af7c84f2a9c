#!/bin/bash
# The gemvn kernels against the tree before: from the repository root with OUT set. Trees: this one (new),
# .dev/amdkit_old.h (the tree before the change measured), and variants of this tree in .dev/amdkit_$v.h for v in
# $VARIANTS (those of bench/NOTES.md's sections on the 32-column and 512-thread forms; the calls' files in this
# directory and in ../h200_gemvn_rows4). gpu_gemm's gemv_path and turned_path first (TESTS=0: not); then every
# tree on cases.tsv (and heldout_cases.tsv with HELD=1), ROUNDS rounds (default 2) alternated; the PyTorch peer on
# the cells named in $PEER (a bench_gemm_sweep filter, default nsmall_; PEER=all: every cell); MEMCHECK=1:
# compute-sanitizer memcheck of gemv_path and turned_path.
set -u
C=/tmp/cases.tsv
cat bench/results/h200_gemvn_narrow/cases.tsv > $C
[ "${HELD:-0}" = 1 ] && cat bench/results/h200_gemvn_narrow/heldout_cases.tsv >> $C
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
for v in old ${VARIANTS:-}; do
  rm -rf /tmp/$v; mkdir -p /tmp/$v; cp -r Makefile kernels tests bench tools examples /tmp/$v/; cp .dev/amdkit_$v.h /tmp/$v/amdkit.h
  ( cd /tmp/$v && make -s -j4 build/bench_gemm_sweep > /tmp/b_$v.log 2>&1; echo "$v build rc $?" ) &
done
make -s -j8 build/bench_gemm_sweep build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $? $SECONDS s"
wait
/tmp/old/build/bench_gemm_sweep --cases $C $OUT/c_oldw.json > $OUT/c_oldw.log 2>&1 &
if [ "${TESTS:-1}" = 1 ]; then
  AKT_ONLY=gemv_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_gemv.log 2>&1; echo "gemv_path rc $? $SECONDS s"
  AKT_ONLY=turned_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_turned.log 2>&1; echo "turned_path rc $? $SECONDS s"
fi
./build/bench_gemm_sweep --cases $C $OUT/c_neww.json > $OUT/c_neww.log 2>&1; echo "new warm rc $? $SECONDS s"
wait
for v in ${VARIANTS:-}; do /tmp/$v/build/bench_gemm_sweep --cases $C $OUT/c_${v}w.json > $OUT/c_${v}w.log 2>&1; done
echo "warm done $SECONDS s"
for r in $(seq 1 ${ROUNDS:-2}); do
  for t in old new ${VARIANTS:-}; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    timeout 90 $b/bench_gemm_sweep --cases $C $OUT/sw_$t$r.json > $OUT/sw_$t$r.log 2>&1; echo "sw $t$r rc $? $SECONDS s"
  done
done
grep -ciE "fail|wrong" $OUT/sw_*[0-9].log
F=${PEER:-nsmall_}; [ "$F" = all ] && F=_
./build/bench_gemm_sweep --cases $C --filter $F --list $OUT/peer_cases.tsv > /dev/null 2>&1
timeout 150 python3 bench/peer_torch_gemm_sweep.py $OUT/peer_cases.tsv $OUT/sw_torch.json --no-compile > $OUT/sw_torch.log 2>&1; echo "torch rc $? $SECONDS s"
if [ "${MEMCHECK:-0}" = 1 ]; then
  AKT_ONLY=gemv_path timeout 150 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_gemm > $OUT/memcheck_gemv.log 2>&1; echo "memcheck gemv rc $? $SECONDS s"
  AKT_ONLY=turned_path timeout 150 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_gemm > $OUT/memcheck_turned.log 2>&1; echo "memcheck turned rc $? $SECONDS s"
  tail -n 1 $OUT/memcheck_gemv.log $OUT/memcheck_turned.log
fi
tail -n 1 $OUT/suite_*.log 2>/dev/null
cd $OUT && tar czf all.tgz *.json *.log *.tsv && rm -f *.json *.log *.tsv
