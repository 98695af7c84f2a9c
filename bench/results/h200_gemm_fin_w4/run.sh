#!/bin/bash
set -u
C=bench/results/h200_gemm_fin_w4/cases.tsv
export AMDKIT_CACHE_DIR=/tmp/akc
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile kernels tests bench tools examples /tmp/old/; git show "${OLD:-HEAD~1}":amdkit.h > /tmp/old/amdkit.h
( cd /tmp/old && make -s -j6 build/bench_gemm_sweep > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
make -s -j8 build/bench_gemm_sweep build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $? $SECONDS s"
wait
./build/bench_gemm_sweep --cases $C $OUT/w_new.json > $OUT/w_new.log 2>&1 &
/tmp/old/build/bench_gemm_sweep --cases $C $OUT/w_old.json > $OUT/w_old.log 2>&1; wait; echo "warm $SECONDS"
for r in 1 2; do for t in old new; do
  b=/tmp/$t/build; [ $t = new ] && b=./build
  timeout 120 $b/bench_gemm_sweep --cases $C $OUT/sw_$t$r.json > $OUT/sw_$t$r.log 2>&1; echo "sw $t$r rc $? $SECONDS s"
done; done
grep -ciE "fail|wrong" $OUT/sw_*[0-9].log
timeout 60 python3 bench/peer_torch_gemm_sweep.py $C $OUT/sw_torch.json --no-compile > $OUT/sw_torch.log 2>&1; echo "torch rc $? $SECONDS s"
grep -E "^(s_nn_1024x1024x4096|d_nt_8x11008|g_nn_4x4096|f_nn_512x512)" $C > /tmp/mc.tsv
timeout 150 compute-sanitizer --tool memcheck ./build/bench_gemm_sweep --cases /tmp/mc.tsv /tmp/x.json > $OUT/memcheck_fin.log 2>&1; echo "memcheck rc $? $SECONDS"; tail -1 $OUT/memcheck_fin.log
for t in decode_path gemv_path ffma_path hopper_tma_path; do
  AKT_ONLY=$t timeout 200 ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_$t.log 2>&1; echo "$t rc $? $SECONDS s"; tail -1 $OUT/suite_$t.log
done
printf "s_nn_1024x1024x4096_bf16\tbf16\t1024\t1024\t4096\t1\t0\t0\tnone\n" > /tmp/one.tsv
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum --kernel-name regex:ak_gemm --launch-skip 6 --launch-count 2 ./build/bench_gemm_sweep --cases /tmp/one.tsv /tmp/o2.json > $OUT/ncu_new.txt 2>&1; grep -E "ak_gemm|duration|inst_executed" $OUT/ncu_new.txt
cd $OUT && tar czf all.tgz *.json *.log && rm -f *.json *.log
