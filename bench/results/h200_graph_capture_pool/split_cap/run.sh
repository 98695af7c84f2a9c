#!/bin/bash
# The decode GEMM's split cap (at least 4 or 8 chunks of 64 k rows a split) on small bf16 shapes and on bench_graph at
# 512 wide: this tree and .dev/amdkit_s8.h (the cap line changed to chunks / 8), two runs each. From the repository root, OUT set.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
for v in s8; do
  rm -rf /tmp/$v; mkdir -p /tmp/$v; cp -r Makefile kernels tests bench tools examples /tmp/$v/; cp .dev/amdkit_$v.h /tmp/$v/amdkit.h
  ( cd /tmp/$v && make -s -j6 build/bench_gemm_sweep build/bench_graph > /tmp/b_$v.log 2>&1; echo "$v build rc $?" ) &
done
make -s -j10 build/bench_gemm_sweep build/bench_graph > /tmp/b_new.log 2>&1; echo "new build rc $? $SECONDS s"
wait
printf 'd_1x512x512\tbf16\t1\t512\t512\t1\t0\t0\tnone\nd_1x768x768\tbf16\t1\t768\t768\t1\t0\t0\tnone\nd_1x1024x1024\tbf16\t1\t1024\t1024\t1\t0\t0\tnone\nd_4x1024x1024\tbf16\t4\t1024\t1024\t1\t0\t0\tnone\nd_1x2048x2048\tbf16\t1\t2048\t2048\t1\t0\t0\tnone\nd_8x2048x2048\tbf16\t8\t2048\t2048\t1\t0\t0\tnone\nd_1x1536x1536\tbf16\t1\t1536\t1536\t1\t0\t0\tnone\nd_16x512x512\tbf16\t16\t512\t512\t1\t0\t0\tnone\nd_1x512x512t\tbf16\t1\t512\t512\t1\t0\t1\tnone\nd_1x4096x1024\tbf16\t1\t4096\t1024\t1\t0\t0\tnone\nd_1x1024x4096\tbf16\t1\t1024\t4096\t1\t0\t0\tnone\n' > /tmp/c.tsv
for r in 1 2; do
  for t in new s8; do
    d=.; [ $t = s8 ] && d=/tmp/s8
    ( cd $d && ./build/bench_gemm_sweep --cases /tmp/c.tsv $OUT/sw_${t}_$r.json > $OUT/sw_${t}_$r.log 2>&1 ); echo "sweep $t $r rc $? $SECONDS s"
    ( cd $d && ./build/bench_graph --quick --hidden 512 $OUT/g_${t}_$r.json > $OUT/g_${t}_$r.log 2>&1 ); echo "graph $t $r rc $? $SECONDS s"
  done
done
for t in new s8; do echo "== $t"; grep -h "^d_" $OUT/sw_${t}_*.log | sort | awk '{print $1, $2, $NF, $(NF-3)}'; grep -h "100 ops\|gemm " $OUT/g_${t}_*.log; done
