#!/bin/bash
# Products with n <= 16 < m run as C^T = B^T A^T on the decode / skinny / gemvn kernels. From the repository root
# with OUT set: the tree before (.dev/amdkit_old.h, with this tree's bench_gemm_sweep.c) in /tmp/old built beside;
# gpu_gemm's turned_path and decode_path (correctness, and the kernels compiled) while the old tree warms its cells;
# the tall / gemv / two decode cells of bench_gemm_sweep for old and new, twice, alternated; the PyTorch peer on the
# same cells; compute-sanitizer memcheck on turned_path; then the whole gpu_gemm suite.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile amdkit.h kernels tests bench tools examples /tmp/old/ 2>/dev/null
cp .dev/amdkit_old.h /tmp/old/amdkit.h
( cd /tmp/old && make -s -j6 build/bench_gemm_sweep > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
make -s -j8 build/bench_gemm_sweep build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $?"
wait
F=tall_,gemv_,dec_nn_8x11008x4096,dec_nt_8x11008x4096
/tmp/old/build/bench_gemm_sweep --filter $F $OUT/tl_oldw.json > $OUT/tl_oldw.log 2>&1 &
AKT_ONLY=turned_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_turned.log 2>&1; echo "turned_path rc $? $SECONDS s"
AKT_ONLY=decode_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_decode.log 2>&1; echo "decode_path rc $? $SECONDS s"
./build/bench_gemm_sweep --filter $F --list $OUT/tl_cases.tsv $OUT/tl_neww.json > $OUT/tl_neww.log 2>&1; echo "new warm rc $? $SECONDS s"
wait; echo "warm done $SECONDS s"; grep -ciE " FAIL" $OUT/tl_*w.log
for r in 1 2; do
  for t in old new; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    timeout 60 $b/bench_gemm_sweep --filter $F $OUT/tl_$t$r.json > $OUT/tl_$t$r.log 2>&1; echo "tl $t$r rc $? $SECONDS s"
  done
done
timeout 90 python3 bench/peer_torch_gemm_sweep.py $OUT/tl_cases.tsv $OUT/tl_torch.json --no-compile > $OUT/tl_torch.log 2>&1; echo "torch rc $? $SECONDS s"
AKT_ONLY=turned_path timeout 150 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_gemm > $OUT/memcheck_turned.log 2>&1; echo "memcheck rc $? $SECONDS s"
timeout 200 ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_gemm.log 2>&1; echo "gpu_gemm rc $? $SECONDS s"
