# ncu of representative torch.compile-target misses (bench/NOTES.md "Where torch.compile is ahead, measured"):
# amdkit's kernels through bench_sweep (one cell per invocation), Inductor's through torch.compile(dynamic=True)
# warmed on 1024 x 4096 as sweep_torch.py does, each cell's call inside an NVTX range. H100, one device call.
# TREE: the source tree packed as a tarball (git ls-files), unpacked to /tmp/w and built there; output under $OUT.
set -u; trap "cd \$OUT && tar -czf ncu.tgz r" TERM
mkdir -p /tmp/w && tar -xzf "${TREE:-.dev/tree.tgz}" -C /tmp/w && cd /tmp/w || exit 1
T0=$(date +%s); say() { echo "== $* at $(( $(date +%s) - T0 )) s"; }
export AMDKIT_CACHE_DIR=/tmp/w/build/gpu-cache PYTHONUNBUFFERED=1
CELLS="sum:f32:4096x4096 sum:f32:256x32768 argmax:f32:256x50257 argmax:bf16:1024x50257 cross_entropy_mean:f32:256x4096 cross_entropy:f32:256x4096 transpose:f16:256x4096 transpose:f32:16384x64 transpose:f16:16x400000 softmax:f32:256x4096 rmsnorm:f32:256x8192 layernorm:f32:256x4096"
cat > /tmp/t.py <<'PY'
import sys, torch
sys.path.insert(0, "bench")
from sweep_torch import op_fn, make_args, setup_torch
torch, F = setup_torch()
tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
fns = {}
for cell in sys.argv[1:]:
    op, dt, rc = cell.split(":"); R, C = (int(v) for v in rc.split("x"))
    if (op, dt) not in fns:
        fns[op, dt] = torch.compile(op_fn(op, torch, F), dynamic=True)
        xw = torch.randn(1024, 4096, device="cuda", dtype=tdt[dt]); w = torch.randn(4096, device="cuda", dtype=tdt[dt])
        fns[op, dt](*make_args(op, xw, w, w, torch))
    x = torch.randn(R, C, device="cuda", dtype=tdt[dt]); w = torch.randn(max(C, 4096), device="cuda", dtype=tdt[dt])
    args = make_args(op, x, w, w, torch)
    for _ in range(3):
        fns[op, dt](*args)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("cell")
    fns[op, dt](*args)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(cell, "ok")
PY
timeout 110 python3 /tmp/t.py $CELLS > /tmp/warm.log 2>&1 &
WP=$!
make -s -j12 build/bench_sweep > /tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }
say built
wait $WP; tail -3 /tmp/warm.log; say "inductor warm"
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,smsp__inst_executed.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct
R=$OUT/r; mkdir -p $R
for c in $CELLS; do
  IFS=: read op dt rc <<< "$c"; r=${rc%x*}; k=${rc#*x}
  timeout 15 ncu --clock-control none --csv --metrics $M -k regex:'^ak_(softmax|log_softmax|reduce|norm|rms|xent|transpose)' \
    --launch-count 4 ./build/bench_sweep --ops $op --dtypes $dt --rows $r --cols $k /tmp/x_$op$dt$rc.json \
    > $R/ak_${op}_${dt}_$rc.csv 2> $R/ak_${op}_${dt}_$rc.err
  python3 -c "import json,sys; [print(r[\"op\"], r[\"variant\"], r[\"median\"]) for r in json.load(open(sys.argv[1]))[\"results\"]]" /tmp/x_$op$dt$rc.json >> $R/ak_${op}_${dt}_$rc.err 2>&1
done
say "amdkit ncu"
timeout 80 ncu --clock-control none --csv --metrics $M --nvtx --nvtx-include "cell/" python3 /tmp/t.py $CELLS \
  > $R/inductor.csv 2> $R/inductor.err
say "inductor ncu"; tail -2 $R/inductor.err
cp /tmp/warm.log $R/
cd $OUT && tar -czf ncu.tgz r && rm -rf r
