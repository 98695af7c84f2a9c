#!/bin/bash
# The Hopper TMA kernel on rows that are not whole 32-byte sectors (k or n of 1000, 5000, ...), the tree before
# (.dev/amdkit_old.h) against this one: from the repository root with OUT set. Both trees built, a warm-up pass,
# then cases.tsv twice alternated (sw_old1, sw_new1, sw_old2, sw_new2), PyTorch eager on the same cells,
# compute-sanitizer memcheck on two copied cells, and gpu_gemm's hopper_tma_path (the copies' correctness cases).
# The forced_* files came from `bench_gemm_sweep --cases forced_cases.tsv [--force 0|2]` on the tree before.
# Read with: python3 bench/results/h200_gemvn_narrow/compare.py sw old,new --dir DIR --torch DIR/sw_torch.json
set -u
D=bench/results/h200_gemm_sectors
C=$D/cases.tsv
export AMDKIT_CACHE_DIR=/tmp/akc
bash bench/gemm_ab.sh "$C" file
printf 'm_nn_3000x5000x1000_bf16\tbf16\t3000\t5000\t1000\t1\t0\t0\tnone\nm_tn_3000x5000x1000_bf16\tbf16\t3000\t5000\t1000\t1\t1\t1\tnone\n' > /tmp/one.tsv
timeout 120 compute-sanitizer --tool memcheck ./build/bench_gemm_sweep --cases /tmp/one.tsv /tmp/x.json > $OUT/memcheck_bench.log 2>&1; echo "memcheck rc $? $SECONDS"
AKT_ONLY=hopper_tma_path timeout 250 ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_hopper.log 2>&1; echo "hopper_tma_path rc $? $SECONDS s"; tail -2 $OUT/suite_hopper.log
cd $OUT && tar czf all.tgz *.json *.log && rm -f *.json *.log
