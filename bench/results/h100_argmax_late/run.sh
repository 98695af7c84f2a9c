#!/usr/bin/env bash
# The arg ops' late index (kernels/reduce.hip): the reductions of every dtype over the held-out ring's rows and
# widths, the tree before (.dev/amdkit_old.h built in /tmp/old) and this one, alternated twice, PyTorch eager and
# torch.compile on the same cells, then the GPU suites of the row and axis reductions and their memcheck.
#   bash bench/results/h100_argmax_late/run.sh OUTDIR      (device: nvidia-h100-x1)
set -u
cd "$(dirname "$0")/../../.."
O=${1:-build/argmax_late}; mkdir -p "$O" && O=$(cd "$O" && pwd)
export AMDKIT_CACHE_DIR=$PWD/build/gpu-cache
make -s build/bench_sweep build/amdkit_tests || exit 1
rm -rf /tmp/old && mkdir -p /tmp/old && cp -r Makefile kernels bench tests tools examples /tmp/old/ && cp .dev/amdkit_old.h /tmp/old/amdkit.h
(cd /tmp/old && AMDKIT_CACHE_DIR=/tmp/old/cache make -s build/bench_sweep) || exit 1
CELLS="--rows ${ROWS:-512,2048,8192,32768} --cols ${COLS:-3000,5120,12288,24576,100000} --ops ${OPS:-argmax,argmin,sum,max}"
for r in 1 2; do
  (cd /tmp/old && AMDKIT_CACHE_DIR=/tmp/old/cache ./build/bench_sweep --budget-s 60 $CELLS "$O/old$r.json") > "$O/old$r.log" 2>&1
  ./build/bench_sweep --budget-s 60 $CELLS "$O/new$r.json" > "$O/new$r.log" 2>&1
done
python3 bench/sweep_torch.py --match "$O/new1.json" --ops argmax,argmin,sum,max --budget-s 150 "$O/torch.json" > "$O/torch.log" 2>&1 || tail -n 5 "$O/torch.log"
./build/amdkit_tests --gpu gpu_reduce gpu_axis > "$O/gpu.log" 2>&1; tail -n 3 "$O/gpu.log"
AKT_ONLY=reduce compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_reduce > "$O/memcheck.log" 2>&1; tail -n 3 "$O/memcheck.log"
