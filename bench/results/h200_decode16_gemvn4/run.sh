#!/bin/bash
# The few-rows kernels (ak_gemm_gemvn4 / gemvn4h) at 16 bits against the decode kernel, from the repository root with
# OUT set. Trees: .dev/amdkit_old.h (the tree before), this one (new), .dev/amdkit_b2.h and .dev/amdkit_b3.h: this
# tree with kernel.diff applied to kernels/gemm_decode.hip (`make gen`) and host_routing.c inserted (b2: 512 threads,
# b3: 256 threads at 2 blocks an SM; unsplit, B stored K x N with 16-byte rows, m <= 4). cases.tsv (the sweep's
# dec_nn_ cells and 6 held-out ones), every tree twice, alternated; PyTorch eager on the same cells.
# Read with: python3 bench/results/h200_gemvn_narrow/compare.py d old,new,b2,b3 --dir bench/results/h200_decode16_gemvn4 --torch bench/results/h200_decode16_gemvn4/d_torch.json
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
D=bench/results/h200_decode16_gemvn4
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
for v in old b2 b3; do
  rm -rf /tmp/$v; mkdir -p /tmp/$v; cp -r Makefile kernels tests bench tools examples /tmp/$v/; cp .dev/amdkit_$v.h /tmp/$v/amdkit.h
  ( cd /tmp/$v && make -s -j4 build/bench_gemm_sweep > /tmp/b_$v.log 2>&1; echo "$v build rc $?" ) &
done
make -s -j8 build/bench_gemm_sweep > /tmp/b_new.log 2>&1; echo "new build rc $? $SECONDS s"
wait
for t in old new b2 b3; do b=/tmp/$t/build; [ $t = new ] && b=./build; $b/bench_gemm_sweep --cases $D/cases.tsv $OUT/w_$t.json > $OUT/w_$t.log 2>&1; done
for r in 1 2; do
  for t in old new b2 b3; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    timeout 60 $b/bench_gemm_sweep --cases $D/cases.tsv $OUT/d_$t$r.json > $OUT/d_$t$r.log 2>&1; echo "d $t$r rc $? $SECONDS s"
  done
done
grep -ciE "fail|wrong" $OUT/d_*[0-9].log
timeout 100 python3 bench/peer_torch_gemm_sweep.py $D/cases.tsv $OUT/d_torch.json --no-compile > $OUT/d_torch.log 2>&1; echo "torch rc $? $SECONDS s"
