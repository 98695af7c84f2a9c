#!/bin/bash
# The 128 x 64 Hopper tile in 2-CTA clusters (--force 8) against the same tile alone (--force 7), one binary,
# alternated (H200; from the repository root, OUT set; cases: the 128 x 64 study's):
#   bash bench/results/h200_gemm_cluster/run.sh
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
C=bench/results/h200_gemm_n64/cases.tsv
make -s -j16 build/bench_gemm_sweep build/amdkit_tests
./build/bench_gemm_sweep --force 8 --cases $C /tmp/w1.json > /dev/null; ./build/bench_gemm_sweep --force 7 --cases $C /tmp/w2.json > /dev/null
for r in 1 2; do
  ./build/bench_gemm_sweep --force 7 --cases $C $OUT/sw_old$r.json > $OUT/sw_old$r.log 2>&1
  ./build/bench_gemm_sweep --force 8 --cases $C $OUT/sw_new$r.json > $OUT/sw_new$r.log 2>&1
done
python3 bench/peer_torch_gemm_sweep.py $C $OUT/sw_torch.json --no-compile > $OUT/sw_torch.log 2>&1
./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_gpu_gemm.log 2>&1
grep -E "^(s_nn_1024x1024x4096|s_nn_768x1000|b_nn_8x1000)" $C > /tmp/mc.tsv
compute-sanitizer --tool memcheck ./build/bench_gemm_sweep --force 8 --cases /tmp/mc.tsv /tmp/x.json > $OUT/memcheck_c64.log 2>&1
printf "s_nn_1024x1024x4096_bf16\tbf16\t1024\t1024\t4096\t1\t0\t0\tnone\n" > /tmp/one.tsv
ncu --clock-control none --set full --import-source no --kernel-name regex:ak_gemm_sm90 --launch-skip 3 --launch-count 1 \
  ./build/bench_gemm_sweep --force 8 --cases /tmp/one.tsv /tmp/o3.json > $OUT/ncu_c64.txt 2>&1
