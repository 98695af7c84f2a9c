#!/usr/bin/env bash
# red's second device run (session 3, H100, 19 s): the red branch at 71343ba (the final table), run from the repo root with the branch in .dev/red.
# red's second device run: the final table (after) on the cells its rows changed; every cell checked on the GPU
set -u
R=/tmp/r; mkdir -p $R; T0=$(date +%s)
el(){ echo "[$(( $(date +%s)-T0 ))s] $*" | tee -a $R/times.log; }
export AMDKIT_CACHE_DIR=/tmp/akc
cd .dev/red && make -s -j16 build/bench_sweep > $R/build.log 2>&1; el built $?
./build/bench_sweep --ops cross_entropy_mean,sum,argmax,cross_entropy --rows 1,16,256,1024,4096,16384 \
  --cols 1,32,127,1000,4096,8192,16384,32768,50257 --max-bytes 4194304 --budget-s 14 $R/F.json > $R/F.log 2>&1; el F $?
./build/bench_sweep --ops cross_entropy,cross_entropy_mean --dtypes f32 --rows 1024,4096 --cols 50257 \
  --max-bytes 1073741824 --budget-s 4 $R/G.json > $R/G.log 2>&1; el G $?
tar czf $OUT/r2.tgz -C $R .
tail -3 $R/F.log $R/G.log
