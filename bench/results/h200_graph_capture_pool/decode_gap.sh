#!/bin/bash
# where the decode GEMM's end-to-end time goes (from the repository root with OUT set): the sweep's flushed single calls
# one by one vs replayed from a graph (bench_graph, 25 distinct weights a sequence)
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
make -s -j16 build/bench_gemm_sweep build/bench_graph > $OUT/build.log 2>&1; echo "build rc $? $SECONDS s"
printf 'dec_1x4096x4096\tbf16\t1\t4096\t4096\t1\t0\t0\tnone\ndec_8x4096x4096\tbf16\t8\t4096\t4096\t1\t0\t0\tnone\ndec_1x8192x8192\tbf16\t1\t8192\t8192\t1\t0\t0\tnone\ndec_8x11008x4096\tbf16\t8\t11008\t4096\t1\t0\t0\tnone\ndec_1x14336x4096\tbf16\t1\t14336\t4096\t1\t0\t0\tnone\n' > /tmp/cases.tsv
./build/bench_gemm_sweep --cases /tmp/cases.tsv $OUT/sweep.json > $OUT/sweep.log 2>&1; echo "sweep rc $? $SECONDS s"
for h in 4096 8192; do
  ./build/bench_graph --quick --hidden $h $OUT/graph_$h.json > $OUT/graph_$h.log 2>&1; echo "graph $h rc $? $SECONDS s"
done
timeout 150 ncu --clock-control none -k regex:ak_gemm --launch-count 60 --metrics gpu__time_duration.sum ./build/bench_gemm_sweep --cases /tmp/cases.tsv /tmp/x.json > $OUT/ncu.log 2>&1; echo "ncu rc $? $SECONDS s"
tail -n 30 $OUT/sweep.log; cat $OUT/graph_*.log | tail -n 40
