#!/bin/bash
# The split-K finish against the tree before it, on the H200 (from the repository root, OUT set):
# OLD=<commit before> bash bench/results/h200_gemm_fin_nodiv/run.sh   (C=<cases> for another list)
# bench/gemm_ab.sh's A/B, then compute-sanitizer memcheck on four split cells, gpu_gemm's split tests and ncu's
# time and instruction count of the Hopper kernel and the finish on bf16 1024 x 1024 x 4096.
set -u
C=${C:-bench/results/h200_gemm_fin_nodiv/cases.tsv}
export AMDKIT_CACHE_DIR=/tmp/akc
bash bench/gemm_ab.sh "$C" "${OLD:-HEAD~1}"
grep -E "^(s_nn_1024x1024x4096|d_nt_8x11008|g_nn_4x4096|f_nn_512x512)" $C > /tmp/mc.tsv
timeout 150 compute-sanitizer --tool memcheck ./build/bench_gemm_sweep --cases /tmp/mc.tsv /tmp/x.json > $OUT/memcheck_fin.log 2>&1; echo "memcheck rc $? $SECONDS"; tail -1 $OUT/memcheck_fin.log
for t in decode_path gemv_path ffma_path hopper_tma_path; do
  AKT_ONLY=$t timeout 200 ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_$t.log 2>&1; echo "$t rc $? $SECONDS s"; tail -1 $OUT/suite_$t.log
done
printf "s_nn_1024x1024x4096_bf16\tbf16\t1024\t1024\t4096\t1\t0\t0\tnone\n" > /tmp/one.tsv
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum --kernel-name regex:ak_gemm --launch-skip 6 --launch-count 2 ./build/bench_gemm_sweep --cases /tmp/one.tsv /tmp/o2.json > $OUT/ncu_new.txt 2>&1; grep -E "ak_gemm|duration|inst_executed" $OUT/ncu_new.txt
