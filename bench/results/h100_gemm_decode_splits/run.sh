#!/bin/bash
# The decode kernel's split rule at 2 blocks an SM (was 4), from the repository root with OUT set: the tree before
# (.dev/amdkit_old.h) in /tmp/old built beside; gpu_gemm's decode_path and turned_path; the decode cells of
# bench_gemm_sweep (and the transposed ones), old and new alternated twice; the PyTorch peer on the same cells;
# compute-sanitizer memcheck on decode_path and turned_path. run_variants.sh is the two calls before this one
# (the rule as 1, 1.5, 2, 3 and 4 blocks an SM, host-only variants of one tree).
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile amdkit.h kernels tests bench tools examples /tmp/old/ 2>/dev/null
cp .dev/amdkit_old.h /tmp/old/amdkit.h
( cd /tmp/old && make -s -j6 build/bench_gemm_sweep > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
make -s -j8 build/bench_gemm_sweep build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $?"
wait
F=dec_,tall_nn_11008,tall_nt_11008,tall_tt_14336,gemv_tn_14336
AKT_ONLY=decode_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_decode.log 2>&1; echo "decode_path rc $? $SECONDS s"
AKT_ONLY=turned_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_turned.log 2>&1; echo "turned_path rc $? $SECONDS s"
./build/bench_gemm_sweep --filter $F --list $OUT/dc_cases.tsv $OUT/dc_neww.json > $OUT/dc_neww.log 2>&1; echo "new warm rc $? $SECONDS s"
for r in 1 2; do
  for t in old new; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    timeout 80 $b/bench_gemm_sweep --filter $F $OUT/dc_$t$r.json > $OUT/dc_$t$r.log 2>&1; echo "dc $t$r rc $? $SECONDS s"
  done
done
timeout 100 python3 bench/peer_torch_gemm_sweep.py $OUT/dc_cases.tsv $OUT/dc_torch.json --no-compile > $OUT/dc_torch.log 2>&1; echo "torch rc $? $SECONDS s"
AKT_ONLY=decode_path timeout 100 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_gemm > $OUT/memcheck_decode.log 2>&1; echo "memcheck decode rc $? $SECONDS s"
AKT_ONLY=turned_path timeout 150 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_gemm > $OUT/memcheck_turned.log 2>&1; echo "memcheck turned rc $? $SECONDS s"
