#!/usr/bin/env bash
# red's first device run (session 3, H100): before (main at 8147937, the repo root) vs after (.dev/red = the red branch
# at 7706b70) on every cell < 1 MiB of the reductions / cross-entropy / transpose, + transposes with edge tiles,
# GPU tests, PyTorch eager on the same cells, and the --force variant runs behind the row-op table's new rows.
# Run from the repo root with the branch copied to .dev/red (see /work/COORD.md). 103 s on the H100.
set -u
R=/tmp/r; mkdir -p $R; T0=$(date +%s)
el(){ echo "[$(( $(date +%s)-T0 ))s] $*" | tee -a $R/times.log; }
pk(){ tar czf $OUT/r.tgz -C $R . ; }
left(){ x=$(( $1 - ($(date +%s)-T0) )); [ $x -lt 5 ] && x=5; echo $x; }
export AMDKIT_CACHE_DIR=/tmp/akc
(make -s -j8 build/bench_sweep > $R/build_before.log 2>&1; echo rc $? >> $R/build_before.log) & P1=$!
(cd .dev/red && make -s -j8 build/bench_sweep > $R/build_after.log 2>&1; echo rc $? >> $R/build_after.log) & P2=$!
wait $P1 $P2; el built
(cd .dev/red && nice make -s -j8 build/amdkit_tests > $R/build_tests.log 2>&1; echo rc $? >> $R/build_tests.log) &
A=.dev/red/build/bench_sweep; B=./build/bench_sweep
OPS=sum,mean,max,min,argmax,argmin,cross_entropy,cross_entropy_mean,transpose
$A --ops $OPS --max-bytes 1048576 --budget-s 20 $R/A_small.json > $R/A_small.log 2>&1; el A_small $?
$B --ops $OPS --max-bytes 1048576 --budget-s 20 $R/B_small.json > $R/B_small.log 2>&1; el B_small $?
pk
TPG="--ops transpose --rows 4096,16384,65536 --cols 127,1000,50257 --max-bytes 1073741824 --budget-s 10"
$A $TPG $R/A_tp.json > $R/A_tp.log 2>&1; el A_tp $?
$B $TPG $R/B_tp.json > $R/B_tp.log 2>&1; el B_tp $?
python3 - <<'PY'
import json
a=json.load(open('/tmp/r/A_small.json')); b=json.load(open('/tmp/r/A_tp.json'))
a['results']+=b['results']; json.dump(a,open('/tmp/r/A_all.json','w'))
PY
pk
wait; el tests_built
(cd .dev/red && timeout $(left 100) ./build/amdkit_tests --gpu gpu_reduce gpu_rowop gpu_elementwise > $R/tests.log 2>&1; echo rc $? >> $R/tests.log)
el tests
pk
PYTHONUNBUFFERED=1 timeout $(left 118) python3 bench/sweep_torch.py --match $R/A_all.json --impl eager $R/E.json > $R/E.log 2>&1; el torch $?
pk
V="--dtypes f32,bf16 --budget-s 6"
$A --ops cross_entropy_mean $V --rows 1,16,256,1024 --cols 32,127,1000,4096,8192,32768,128256 \
   --force "-1,0,0;6,1024,256;6,1024,64;6,512,256" $R/V3.json > $R/V3.log 2>&1; el V3 $?
$A --ops sum,argmax $V --rows 1,16,256 --cols 16384,32768,50257,128256 \
   --force "-1,0,0;4,1024,256;5,256,16;5,256,8" $R/V2.json > $R/V2.log 2>&1; el V2 $?
$A --ops sum,argmax,cross_entropy $V --rows 1,16,256,1024,4096,65536 --cols 32,127,1000,4096 --max-bytes 16777216 \
   --force "4,0,256;4,1024,256;4,2048,256;4,0,32" $R/V1.json > $R/V1.log 2>&1; el V1 $?
$A --ops cross_entropy --dtypes f32 --budget-s 6 --rows 1024,4096 --cols 32768,50257 --max-bytes 1073741824 \
   --force "4,1024,256;4,1024,512;4,1024,1024" $R/V4.json > $R/V4.log 2>&1; el V4 $?
pk
