#!/bin/bash
# ncu of ak_gemm_gemvn4_f32 on 1 x 4096 x 4096 and 1 x 14336 x 4096 f32 (cuBLAS on the first:
# ../h200_gemvn_narrow/ncu_torch_1x4096x4096.txt); from the repository root with OUT set
export AMDKIT_CACHE_DIR=/tmp/akc
make -s -j16 build/bench_gemm_sweep > /tmp/b.log 2>&1 || { tail /tmp/b.log; exit 1; }
for s in 4096 14336; do
  printf 'p_nn_1x%sx4096_f32\tf32\t1\t%s\t4096\t1\t0\t0\tnone\n' $s $s > /tmp/p1.tsv
  ./build/bench_gemm_sweep --cases /tmp/p1.tsv /tmp/w.json > /dev/null 2>&1
  timeout 200 ncu --clock-control none --kernel-name regex:"gemvn|decode_fin" --launch-skip 6 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis \
    --section LaunchStats ./build/bench_gemm_sweep --cases /tmp/p1.tsv /tmp/x1.json > $OUT/ncu_1x${s}x4096.txt 2>&1
  echo "ncu $s rc $? $SECONDS s"
done
