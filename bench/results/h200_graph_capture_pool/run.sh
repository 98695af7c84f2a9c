#!/bin/bash
# The pool during a graph capture: gpu_graph's pool_growth case on the tree before (.dev/amdkit_old.h: amdkit.h of
# the parent commit, `git show HEAD~1:amdkit.h`) and on this one, gpu_graph under compute-sanitizer memcheck, and
# bench_graph (bf16 at 4096 and 512 wide, f32 at 4096; the tree before cannot capture the 4096-wide sequence).
# From the repository root with OUT set.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile kernels tests bench tools examples /tmp/old/; cp .dev/amdkit_old.h /tmp/old/amdkit.h
( cd /tmp/old && make -s -j6 build/amdkit_tests build/bench_graph > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
make -s -j10 build/amdkit_tests build/bench_graph > $OUT/build.log 2>&1; echo "new build rc $? $SECONDS s"
wait
echo "== old tree, the new test"; ( cd /tmp/old && AKT_ONLY=pool_growth timeout 120 ./build/amdkit_tests --gpu gpu_graph ) > $OUT/old_pool_growth.log 2>&1; echo "rc $?"; tail -n 12 $OUT/old_pool_growth.log
echo "== new tree, gpu_graph"; timeout 200 ./build/amdkit_tests --gpu gpu_graph > $OUT/suite_gpu_graph.log 2>&1; echo "rc $?"; tail -n 5 $OUT/suite_gpu_graph.log
timeout 200 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_graph > $OUT/memcheck_gpu_graph.log 2>&1; echo "memcheck rc $?"; tail -n 3 $OUT/memcheck_gpu_graph.log
echo "== old bench_graph 4096"; ( cd /tmp/old && ./build/bench_graph --quick --hidden 4096 /tmp/og.json 2>&1 | tail -n 3 )
for h in 4096 512; do ./build/bench_graph --quick --hidden $h $OUT/graph_$h.json > $OUT/graph_$h.log 2>&1; echo "graph $h rc $? $SECONDS s"; tail -n 12 $OUT/graph_$h.log; done
./build/bench_graph --quick --hidden 4096 --f32 $OUT/graph_4096_f32.json > $OUT/graph_4096_f32.log 2>&1; echo "graph f32 4096 rc $?"; tail -n 12 $OUT/graph_4096_f32.log
