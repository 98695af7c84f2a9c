#!/usr/bin/env bash
# One device run that checks the row-op model (amdkit.h _ak_rowop_model) at widths off the sweep's grid
# (bench/NOTES.md "Row-op model"): bench_sweep --force runs the model (-1), the measured table it replaced (-2) and
# every candidate variant on each cell, while sweep_torch --warm fills the torch.compile caches; then
# sweep_torch --impl compile times the same cells. Then bench/rowop_model.py OUT/*.json prints the comparison.
#   bash bench/rowop_model_device.sh OUTDIR
set -u
cd "$(dirname "$0")/.."
O=${1:-build/rowop_model}
L=${ROWOP_MODEL_LOGS:-$O}   # logs (the device tool brings back few files: put them elsewhere)
mkdir -p "$O" "$L"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
export PYTHONUNBUFFERED=1
[ -x build/bench_sweep ] || make -s build/bench_sweep || exit 1
COLS=768,1000,3000,5120,12288,50257
TOPS=softmax,layernorm,rmsnorm,argmax
pids=
for i in 0 1 2 3; do
  python3 bench/sweep_torch.py --warm --ops $TOPS --dtypes f32,bf16 --shard $i/4 > "$L/warm_$i.log" 2>&1 & pids="$pids $!"
done
B="./build/bench_sweep --dtypes f32,bf16 --cols $COLS --max-bytes 536870912"
$B --ops layernorm,rmsnorm --rows 256,4096,8192,32768 \
  --force "-1,0,0;-2,0,0;0,128,0;0,128,16;3,128,0;3,256,0;3,512,0;3,1024,0" "$O/rowop_model_norm.json" > "$L/norm.log" 2>&1
$B --ops softmax --rows 256,4096,8192,32768 \
  --force "-1,0,0;-2,0,0;0,128,0;0,128,16;1,128,0;3,256,0;3,512,0;3,1024,0" "$O/rowop_model_softmax.json" > "$L/softmax.log" 2>&1
$B --ops argmax,sum --rows 1,256,2048,32768 \
  --force "-1,0,0;-2,0,0;4,1024,64;4,1024,256;4,1024,1024;5,256,8;5,256,16" "$O/rowop_model_reduce.json" > "$L/reduce.log" 2>&1
./build/bench_sweep --dtypes f32,bf16 --ops cross_entropy_mean --rows 64,1024 --cols 64,1000 \
  --force "-1,0,0;-2,0,0;6,512,256;6,1024,256;4,1024,256" "$O/rowop_model_xent.json" > "$L/xent.log" 2>&1
tail -n 3 "$L"/norm.log "$L"/softmax.log "$L"/reduce.log "$L"/xent.log
for p in $pids; do wait $p; done
tail -q -n 1 "$L"/warm_*.log
# the model's cells only (one per shape), for PyTorch
python3 - "$O" <<'PY'
import json, sys
o = sys.argv[1]
res = []
for n in ("norm", "softmax", "reduce"):
    d = json.load(open("%s/rowop_model_%s.json" % (o, n)))
    res += [r for r in d["results"] if r.get("force") == "-1,0,0"]
d["results"] = res
json.dump(d, open("%s/model_cells.json" % o, "w"))
PY
python3 bench/sweep_torch.py --match "$O/model_cells.json" --impl compile --ops $TOPS --dtypes f32,bf16 --budget-s 90 \
  "$O/rowop_model_torch.json" > "$L/torch.log" 2>&1 || tail -n 20 "$L/torch.log"
grep -E "first compile|FAILED|budget" "$L/torch.log" | tail -n 20
rm -f "$O/model_cells.json"
