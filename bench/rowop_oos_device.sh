#!/usr/bin/env bash
# One device run that checks the row-op model out of sample (widths its constants were never fit on) and measures
# the group variant (the rows kernel with a group that is a multiple of the wave, not a power of two) beside every
# other candidate: bench_sweep --force runs the model (-1) and each variant on every cell (each checked against the
# CPU reference), then sweep_torch times PyTorch eager on the model's cells and a per-cell static torch.compile on
# those of >= ROWOP_OOS_STATIC_ROWS (16384) rows (compiled first by parallel --warm --static shards, before any timing).
#   bash bench/rowop_oos_device.sh OUTDIR      (env: ROWOP_OOS_COLS / _ROWS / _MAX_BYTES / _TAG / _STATIC_ROWS /
#   _STATIC_S; ROWOP_OOS_GRID=1 first re-measures the earlier model run's grid and the odd 3001-wide softmax cells
#   with the group variant beside the others, so the model's cells test has every pick measured in one run)
set -u
cd "$(dirname "$0")/.."
O=${1:-build/rowop_oos}
L=${ROWOP_OOS_LOGS:-$O}
mkdir -p "$O" "$L"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
export PYTHONUNBUFFERED=1
COLS=${ROWOP_OOS_COLS:-4608,4999,5120,5632,6144,10240,12288,14336,20000}
ROWS=${ROWOP_OOS_ROWS:-1,256,2048,16384,65536}
MAXB=${ROWOP_OOS_MAX_BYTES:-536870912}
T=${ROWOP_OOS_TAG:-oos}                 # output names: rowop_${T}_*.json
SR=${ROWOP_OOS_STATIC_ROWS:-16384}      # static compile on cells of at least this many rows
OPS=softmax,layernorm,rmsnorm
# the cells bench_sweep will time (its --max-bytes rule: rows x cols x dtype size), for the static-compile warm-up
python3 - "$O/cells.json" "$COLS" "$ROWS" "$MAXB" "$SR" <<'PY'
import json, sys
out, cols, rows, maxb, sr = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(","), int(sys.argv[4]), int(sys.argv[5])
es = {"f32": 4, "bf16": 2}
res = [{"op": op, "dtype": dt, "rows": int(r), "cols": int(c)} for op in ("softmax", "layernorm", "rmsnorm")
       for dt in es for r in rows for c in cols if int(r) >= sr and int(r) * int(c) * es[dt] <= maxb]
json.dump({"results": res}, open(out, "w"))
print("static-compile cells: %d" % len(res))
PY
pids=
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
  python3 bench/sweep_torch.py --warm --static --match "$O/cells.json" --ops $OPS --dtypes f32,bf16 --shard $i/12 \
    > "$L/warm_$i.log" 2>&1 & pids="$pids $!"
done
{ [ -x build/bench_sweep ] && [ -x build/amdkit_tests ]; } || make -s -j8 build/bench_sweep build/amdkit_tests > "$L/build.log" 2>&1 ||
  { tail -n 30 "$L/build.log"; exit 1; }
for p in $pids; do wait $p; done
tail -q -n 1 "$L"/warm_*.log
./build/amdkit_tests ${ROWOP_OOS_SUITES:-gpu_rowop} > "$L/gpu_suites.log" 2>&1; grep -E "FAIL|passed" "$L/gpu_suites.log" | tail -n 12
if [ "${ROWOP_OOS_GRID:-0}" = 1 ]; then
  G="./build/bench_sweep --dtypes f32,bf16 --cols 768,1000,3000,5120,12288 --rows 256,4096,8192,32768 --max-bytes 536870912"
  $G --ops layernorm,rmsnorm --force "-1,0,0;0,128,0;0,128,16;3,128,0;3,256,0;3,512,0;3,1024,0;8,0,0" \
    "$O/rowop_model_grid_norm.json" > "$L/grid_norm.log" 2>&1
  $G --ops softmax --force "-1,0,0;0,128,0;0,128,16;1,128,0;3,256,0;3,512,0;3,1024,0;8,0,0" \
    "$O/rowop_model_grid_softmax.json" > "$L/grid_softmax.log" 2>&1
  ./build/bench_sweep --dtypes f32,f16,bf16 --cols 3001 --rows 64,1024,16384,65536 --ops softmax,log_softmax \
    --force "-1,0,0;0,128,0;7,64,2048;7,128,4096;7,128,8192;7,256,16384;7,256,8192;3,256,0;8,0,0" \
    "$O/rowop_model_grid_slab.json" > "$L/grid_slab.log" 2>&1
  tail -n 1 "$L"/grid_*.log
fi
B="./build/bench_sweep --dtypes f32,bf16 --cols $COLS --rows $ROWS --max-bytes $MAXB"
$B --ops layernorm,rmsnorm \
  --force "-1,0,0;0,128,0;3,256,0;3,512,0;3,1024,0;8,0,0;8,512,0" "$O/rowop_${T}_norm.json" > "$L/norm.log" 2>&1
$B --ops softmax \
  --force "-1,0,0;0,128,0;1,128,0;3,256,0;3,512,0;8,0,0;8,512,0" "$O/rowop_${T}_softmax.json" > "$L/softmax.log" 2>&1
tail -n 2 "$L"/norm.log "$L"/softmax.log
python3 - "$O" "$T" "$SR" <<'PY'
import json, sys
o, t, sr = sys.argv[1], sys.argv[2], int(sys.argv[3])
res = []
for n in ("norm", "softmax"):
    d = json.load(open("%s/rowop_%s_%s.json" % (o, t, n)))
    res += [r for r in d["results"] if r.get("force") == "-1,0,0"]
d["results"] = res
json.dump(d, open("%s/model_cells.json" % o, "w"))
d["results"] = [r for r in res if r["rows"] >= sr]
json.dump(d, open("%s/model_cells_big.json" % o, "w"))
PY
python3 bench/sweep_torch.py --match "$O/model_cells.json" --impl eager --ops $OPS --dtypes f32,bf16 --budget-s 40 \
  "$O/rowop_${T}_torch_eager.json" > "$L/torch_eager.log" 2>&1 || tail -n 20 "$L/torch_eager.log"
python3 bench/sweep_torch.py --match "$O/model_cells_big.json" --static --impl compile --ops $OPS --dtypes f32,bf16 \
  --budget-s ${ROWOP_OOS_STATIC_S:-120} "$O/rowop_${T}_torch_static.json" > "$L/torch_static.log" 2>&1 ||
  tail -n 20 "$L/torch_static.log"
grep -E "budget|FAILED|results" "$L"/torch_*.log | tail -n 10
rm -f "$O/model_cells.json" "$O/model_cells_big.json" "$O/cells.json"
