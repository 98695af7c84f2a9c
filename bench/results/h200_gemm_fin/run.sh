#!/bin/bash
# The split-K finish kernels (ak_gemm_decode_fin_*, ak_gemm_splitk_fin_*) with rows on grid y, from the repository
# root with OUT set. TREE=old also builds .dev/amdkit_old.h (the tree before) and times it on the same cells,
# alternated (the vector4/ call); without it (the final call) this tree alone: gpu_gemm's decode_path, gemv_path,
# ffma_path and hopper_tma_path (every split-K path and epilogue), memcheck on four split cells, cases.tsv twice,
# PyTorch eager. sw_old* here are the tree before from the vector4/ call, the call just before on the same kind.
# Read with: python3 bench/results/h200_gemvn_narrow/compare.py sw old,new --dir DIR --torch DIR/sw_torch.json
set -u
C=bench/results/h200_gemm_fin/cases.tsv
export AMDKIT_CACHE_DIR=/tmp/akc
if [ "${TREE:-}" = old ]; then
  rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile kernels tests bench tools examples /tmp/old/; cp .dev/amdkit_old.h /tmp/old/amdkit.h
  ( cd /tmp/old && make -s -j6 build/bench_gemm_sweep > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
fi
make -s -j8 build/bench_gemm_sweep build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $? $SECONDS s"
wait
for t in decode_path gemv_path ffma_path hopper_tma_path; do
  AKT_ONLY=$t timeout 150 ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_$t.log 2>&1; echo "$t rc $? $SECONDS s"; tail -1 $OUT/suite_$t.log
done
grep -E "^(s_nn_1024x1024x4096|d_nt_8x11008|g_nn_16x1024|f_nn_512x512)" $C > /tmp/mc.tsv
timeout 60 compute-sanitizer --tool memcheck ./build/bench_gemm_sweep --cases /tmp/mc.tsv /tmp/x.json > $OUT/memcheck_fin.log 2>&1; echo "memcheck rc $? $SECONDS"
for r in 1 2; do for t in ${TREE:-} new; do
  b=/tmp/$t/build; [ $t = new ] && b=./build
  timeout 60 $b/bench_gemm_sweep --cases $C $OUT/sw_$t$r.json > $OUT/sw_$t$r.log 2>&1; echo "sw $t$r rc $? $SECONDS s"
done; done
timeout 60 python3 bench/peer_torch_gemm_sweep.py $C $OUT/sw_torch.json --no-compile > $OUT/sw_torch.log 2>&1; echo "torch rc $? $SECONDS s"
cd $OUT && tar czf all.tgz *.json *.log && rm -f *.json *.log
