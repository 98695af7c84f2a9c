#!/bin/bash
# Not kept: the variants this call measured are described in bench/NOTES.md ("Exact f32 with few rows").
# The gemvn kernel (exact f32, at most 16 rows, B stored K x N) with 2, 4 and 8 column threads of 4 columns a block
# (8, 16, 32 columns: 32-, 64-, 128-byte runs of each row of B a block reads). From the repository root with OUT set;
# .dev/amdkit_ct4.h and .dev/amdkit_ct8.h are this tree's amdkit.h with the kernel's CT and the host's grid edited.
# Then the final form of the arg ops' trees: the reductions' GPU suites, memcheck, and argmax >= 64 MiB.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
for v in ct4 ct8; do
  rm -rf /tmp/$v; mkdir -p /tmp/$v; cp -r Makefile kernels tests bench tools examples /tmp/$v/; cp .dev/amdkit_$v.h /tmp/$v/amdkit.h
  ( cd /tmp/$v && make -s -j6 build/bench_gemm_sweep > /tmp/b_$v.log 2>&1; echo "$v build rc $?" ) &
done
make -s -j8 build/bench_gemm_sweep build/amdkit_tests build/bench_sweep > /tmp/b_base.log 2>&1; echo "base build rc $?"
wait
F=fewrows_,tall_tn_8192x16x8192_f32,tall_tn_4096x1x14336_f32
./build/bench_gemm_sweep --filter $F --list $OUT/g_cases.tsv $OUT/g_warm.json > $OUT/g_warm.log 2>&1; echo "warm rc $? $SECONDS s"
for r in 1 2; do
  for v in base ct4 ct8; do
    b=./build; [ $v != base ] && b=/tmp/$v/build
    timeout 60 $b/bench_gemm_sweep --filter $F $OUT/g_$v$r.json > $OUT/g_$v$r.log 2>&1; echo "g $v$r rc $? $SECONDS s"
  done
done
grep -ciE "fail|wrong" $OUT/g_*[12].log
timeout 90 python3 bench/peer_torch_gemm_sweep.py $OUT/g_cases.tsv $OUT/g_torch.json --no-compile > $OUT/g_torch.log 2>&1; echo "torch rc $? $SECONDS s"
timeout 60 ./build/bench_sweep --budget-s 40 --rows 2048,8192,32768 --cols 5120,12288,24576,100000 --ops argmax,argmin $OUT/am.json > $OUT/am.log 2>&1; echo "argmax rc $? $SECONDS s"
timeout 100 ./build/amdkit_tests --gpu gpu_reduce gpu_axis > $OUT/gpu_reduce.log 2>&1; echo "gpu_reduce gpu_axis rc $? $SECONDS s"
AKT_ONLY=reduce timeout 100 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_reduce > $OUT/memcheck_reduce.log 2>&1; echo "memcheck rc $? $SECONDS s"
tail -n 2 $OUT/memcheck_reduce.log
