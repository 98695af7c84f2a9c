#!/bin/bash
# cold first calls, old (whole families) vs new (one kernel a program), each in an empty cache
# on the GPU machine: CUDA_CACHE_DISABLE=1 bash bench/results/h200_cold_first_call/run.sh (OLD=<commit> for the whole-family build)
# CUDA_CACHE_DISABLE=1: the driver keeps no JIT cache between processes, so every compile is measured
set -u
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile kernels tests bench tools examples /tmp/old/; git show "${OLD:-HEAD~1}":amdkit.h > /tmp/old/amdkit.h
(cd /tmp/old && make -s -j12 build/bench_gemm_sweep > /tmp/b_old.log 2>&1; echo "old build rc $?")
make -s -j12 build/bench_gemm_sweep > /tmp/b_new.log 2>&1; echo "new build rc $? $SECONDS s"
while read -r line; do
  name=$(echo "$line" | cut -f1); printf '%s\n' "$line" > /tmp/one.tsv
  for v in new old; do
    if [ $v = old ]; then bin=/tmp/old/build/bench_gemm_sweep; else bin=./build/bench_gemm_sweep; fi
    rm -rf /tmp/cc; t0=$(date +%s%N)
    AMDKIT_CACHE_DIR=/tmp/cc timeout 150 $bin --cases /tmp/one.tsv /tmp/o_$v.json > $OUT/cold_${name}_$v.log 2>&1; rc=$?
    t1=$(date +%s%N); echo "$name $v rc $rc $(( (t1 - t0) / 1000000 )) ms"
  done
done < bench/results/h200_cold_first_call/cases.tsv
cd $OUT && tar czf all.tgz *.log && rm -f *.log
