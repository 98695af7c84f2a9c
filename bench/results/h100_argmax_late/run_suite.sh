#!/bin/bash
# The reductions' GPU suites with the last-axis argmax / argmin cases (gpu_axis test_gpu_reduce_rows_ties), and
# that test under memcheck. From the repository root with OUT set.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
make -s -j8 build/amdkit_tests > /tmp/b.log 2>&1; echo "build rc $?"
timeout 150 ./build/amdkit_tests --gpu gpu_axis gpu_reduce > $OUT/suite_axis_reduce.log 2>&1; echo "gpu_axis gpu_reduce rc $? $SECONDS s"
tail -n 3 $OUT/suite_axis_reduce.log
AKT_ONLY=rows_ties timeout 200 compute-sanitizer --tool memcheck ./build/amdkit_tests --gpu gpu_axis > $OUT/memcheck_rows_ties.log 2>&1; echo "memcheck rc $? $SECONDS s"
tail -n 3 $OUT/memcheck_rows_ties.log
