#!/bin/bash
# The 128 x 64 Hopper tile (H200; from the repository root, OUT set).
#   forced:  bash bench/results/h200_gemm_n64/run.sh forced   (the plan against --force 7 in one binary, alternated)
#   planned: OLD=<commit before> bash bench/results/h200_gemm_n64/run.sh planned   (the tree before against this one)
# Both: PyTorch eager on the same cells (sw_torch.json); read with
#   python3 bench/results/h200_gemvn_narrow/compare.py sw old,new --dir DIR --torch DIR/sw_torch.json
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
C=bench/results/h200_gemm_n64/cases.tsv
if [ "${1:-forced}" = planned ]; then
  grep -E "^(d_nt_1x4096|g_nn_16x1024|f_nn_512)" bench/results/h200_gemm_fin_nodiv/cases.tsv | cat $C - > /tmp/c12.tsv
  bash bench/gemm_ab.sh /tmp/c12.tsv "${OLD:-HEAD~1}"
  timeout 280 ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_gpu_gemm.log 2>&1; echo "gpu_gemm rc $?"
  exit 0
fi
make -s -j16 build/bench_gemm_sweep build/amdkit_tests
./build/bench_gemm_sweep --cases $C /tmp/w1.json > /dev/null; ./build/bench_gemm_sweep --force 7 --cases $C /tmp/w2.json > /dev/null
for r in 1 2; do
  ./build/bench_gemm_sweep --cases $C $OUT/sw_old$r.json > $OUT/sw_old$r.log 2>&1
  ./build/bench_gemm_sweep --force 7 --cases $C $OUT/sw_new$r.json > $OUT/sw_new$r.log 2>&1
done
python3 bench/peer_torch_gemm_sweep.py $C $OUT/sw_torch.json --no-compile > $OUT/sw_torch.log 2>&1
AKT_ONLY=hopper_tma_path ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_hopper.log 2>&1
grep -E "^(s_nn_1024x1024x4096|s_nn_768x1000|b_nn_8x1000)" $C > /tmp/mc.tsv
compute-sanitizer --tool memcheck ./build/bench_gemm_sweep --force 7 --cases /tmp/mc.tsv /tmp/x.json > $OUT/memcheck.log 2>&1
printf "s_nn_1024x1024x4096_bf16\tbf16\t1024\t1024\t4096\t1\t0\t0\tnone\n" > /tmp/one.tsv
ncu --clock-control none --set full --import-source no --kernel-name regex:ak_gemm_sm90 --launch-skip 3 --launch-count 1 \
  ./build/bench_gemm_sweep --force 7 --cases /tmp/one.tsv /tmp/o3.json > $OUT/ncu_n64.txt 2>&1
