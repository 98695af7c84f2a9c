#!/usr/bin/env bash
# `make gpu-check`: on a machine with a GPU, in one go: build, device info,
# the demo, every gpu_* suite (each kernel against its CPU reference on the
# device), the runtime and kernel benchmarks, and the PyTorch peer benchmark.
# Logs and JSON go to build/gpu-check-PART; when $OUT is set (the device tool's
# output folder, which returns at most 8 files) the JSON results, the report
# and a tarball of all logs are copied there. Prints `N passed, N failed` last.
# GPU_CHECK_PART=check|bench|kernelbench|all (default all): `check` = build, info, demo,
# GPU suites, walkthrough, runtime/ops benchmarks with the PyTorch peer;
# `bench` = the attention and GEMM benchmarks with their PyTorch peers;
# `kernelbench` = bench/kernelbench/run.py: KernelBench level 1 through amdkit,
# checked against eager and timed beside eager and torch.compile
# (GPU_CHECK_KB_PROBLEMS, default 1-100, e.g. 19-53 then 88-100 then 1-18 in
# three commands; GPU_CHECK_KB_TRIALS, default 100; no problem starts past
# GPU_CHECK_KB_END seconds into the part, default 540). Each part fits one
# 10-minute device command; run `check` first (it builds).
set -u
cd "$(dirname "$0")/.."
DEST=${OUT:-}
PART=${GPU_CHECK_PART:-all}
case "$PART" in check|bench|kernelbench|all) ;; *) echo "gpu_check: GPU_CHECK_PART must be check, bench, kernelbench or all (got '$PART')"; exit 2 ;; esac
want() { [ "$PART" = all ] || [ "$PART" = "$1" ]; }
OUT=build/gpu-check-$PART
rm -rf "$OUT"; mkdir -p "$OUT"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
QUICK=${GPU_CHECK_QUICK:-0}
passed=0; failed=0; failures=""
run() { # name, command... (output to $OUT/name.log, tail shown on failure)
  local name=$1; shift
  local t0=$(date +%s)
  if "$@" > "$OUT/$name.log" 2>&1; then passed=$((passed+1)); echo "  ok   $name ($(( $(date +%s)-t0 )) s)"
  else failed=$((failed+1)); failures="$failures $name"; echo "  FAIL $name ($(( $(date +%s)-t0 )) s)"; tail -n 30 "$OUT/$name.log" | sed 's/^/       /'; fi
}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/nvidia-smi.txt" 2>&1 || true
run build make -s -j8 all
if [ "$QUICK" = "1" ]; then BQ=--quick; else BQ=; fi
if want check; then
rm -f build/gpu-suites.status
run info ./build/amdkit info
./build/amdkit info --json > "$OUT/info.json" 2>/dev/null || true
run hip-forced-fails bash -c '! AMDKIT_BACKEND=hip ./build/amdkit info'
AMDKIT_BACKEND=hip ./build/amdkit info > "$OUT/hip-forced.log" 2>&1 || true
run demo ./build/amdkit demo
run gpu-suites ./build/amdkit_tests --gpu
grep -E "passed, .* failed|FAIL" "$OUT/gpu-suites.log" | tail -n 20
# the bench part counts kernels as correct only when this build's GPU suites passed
case " $failures " in *" gpu-suites "*) echo failed ;; *) echo passed ;; esac > build/gpu-suites.status
run cache-second-run-compiles-nothing bash tests/second_run.sh
# one GPU of the several-device path: the tensor-parallel example as one rank (NCCL communicator of one), checked against one device
run tp-linear-1gpu env NCCL_NVLS_ENABLE=0 ./build/tp_linear --ranks 1 --batch 257 --in 1031 --hidden 2053 --out 517
# the README's prototyping walkthrough as written, on the GPU (checked against C), and the CLI's edges
run walkthrough bash tests/walkthrough.sh
cp build/walkthrough/log "$OUT/walkthrough-commands.log" 2>/dev/null || true
run proto-cli bash tests/proto_cli.sh
run bench-runtime ./build/bench_runtime $BQ "$OUT/bench_runtime.json"
# bench_ops checks every entry against the CPU reference in the same run ("correct" per entry; exit 3 if one is wrong)
run bench-ops ./build/bench_ops $BQ --max-s 1 "$OUT/bench_ops.json"
if command -v python3 >/dev/null && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null && [ -f bench/peer_torch.py ]; then
  # the peer starts no new entry past GPU_CHECK_TORCH_END seconds into the part (default 520: the check part then
  # fits one 10-minute device command; an H200 run of session 4 had its torch.compile entries cut by the command's
  # limit instead, and lost the report); entries it did not reach are reported as not timed
  TB=$(( ${GPU_CHECK_TORCH_END:-520} - SECONDS )); [ $TB -lt 60 ] && TB=60
  run bench-torch python3 bench/peer_torch.py $BQ --max-s 1 --budget-s $TB --match "$OUT/bench_ops.json" "$OUT/bench_torch.json"
  run report python3 bench/report.py "$OUT/bench_ops.json" "$OUT/bench_torch.json" --out "$OUT/report.md" --json "$OUT/fastp_ops.json"
fi
fi
if want bench; then
# attention (issue 12): amdkit and PyTorch SDPA on the same shapes, one JSON with both and the table
run bench-attention ./build/bench_attention $BQ "$OUT/bench_attention_amdkit.json"
if [ -f "$OUT/bench_attention_amdkit.json" ] && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  run bench-attention-torch python3 bench/peer_attention.py --match "$OUT/bench_attention_amdkit.json" "$OUT/bench_attention.json"
  sed -n '/^| entry/,$p' "$OUT/bench-attention-torch.log"
fi
# GEMM (issue 11): bench_gemm + the PyTorch peer (eager, torch.compile) on the same shapes, joined into one JSON + table
run bench-gemm ./build/bench_gemm $BQ "$OUT/bench_gemm.json"
if [ -f "$OUT/bench_gemm.json" ] && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  run bench-gemm-torch python3 bench/peer_torch_gemm.py $BQ "$OUT/torch_gemm.json"
  GC=; [ "$(cat build/gpu-suites.status 2>/dev/null)" = passed ] && [ build/gpu-suites.status -nt build/amdkit_tests ] && GC=--correct
  run bench-gemm-report python3 bench/gemm_report.py "$OUT/bench_gemm.json" "$OUT/torch_gemm.json" $GC --json "$OUT/gemm_results.json" --md "$OUT/gemm_report.md"
  cat "$OUT/gemm_report.md" 2>/dev/null
fi
# fast_p over the whole kernel set (ops from the check part, attention, GEMM); attention/GEMM cannot check
# their own output: they count as correct (labelled suite-checked) only when this build's GPU suites passed
CK=build/gpu-check-check
if [ -f $CK/bench_ops.json ] && [ -f $CK/bench_torch.json ] && [ -f "$OUT/bench_attention.json" ] && [ -f "$OUT/gemm_results.json" ]; then
  SC=; [ "$(cat build/gpu-suites.status 2>/dev/null)" = passed ] && [ build/gpu-suites.status -nt build/amdkit_tests ] && SC=--suite-correct=attention,gemm
  run report-all python3 bench/report.py $CK/bench_ops.json $CK/bench_torch.json --attention "$OUT/bench_attention.json" --gemm "$OUT/gemm_results.json" $SC --out "$OUT/report_all.md" --json "$OUT/fastp_all.json"
  sed -n '/^## fast_p/,/^## Entries/p' "$OUT/report_all.md"
fi
fi
if want kernelbench; then
# KernelBench level 1 (issue: every problem through amdkit ops, correct against eager, timed beside eager and
# torch.compile; convolutions are listed as not expressible); results-*.json, baselines, fast_p, summary.md
if command -v python3 >/dev/null && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  TB=$(( ${GPU_CHECK_KB_END:-540} - SECONDS )); [ $TB -lt 60 ] && TB=60
  run kernelbench python3 bench/kernelbench/run.py --problems "${GPU_CHECK_KB_PROBLEMS:-1-100}" \
    --trials "${GPU_CHECK_KB_TRIALS:-100}" --budget-s $TB --lib build/libamdkit_kb.so --out "$OUT/kernelbench"
  cat "$OUT/kernelbench/summary.md" 2>/dev/null
else
  echo "  kernelbench: skipped (no PyTorch with CUDA)"
fi
fi
tail -n 40 "$OUT/bench-runtime.log" 2>/dev/null
[ -f "$OUT/report.md" ] && cat "$OUT/report.md"
[ -n "$failures" ] && echo "failed:$failures"
if [ -n "$DEST" ]; then
  mkdir -p "$DEST"
  # the device tool returns at most 8 files: the results (at most 7) and one tarball of every log
  for f in info.json bench_runtime.json bench_ops.json bench_torch.json report.md bench_attention.json gemm_results.json; do [ -f "$OUT/$f" ] && cp "$OUT/$f" "$DEST/"; done
  # kernelbench: its results (every problem and trial; `run.py merge` rebuilds the rest), fast_p and the table
  for f in "$OUT"/kernelbench/results-*.json "$OUT/kernelbench/fastp.json" "$OUT/kernelbench/summary.md" "$OUT/kernelbench/baseline_amdkit.json"; do
    [ -f "$f" ] && cp "$f" "$DEST/"
  done
  tar czf "$DEST/gpu-check-$PART-logs.tgz" -C build "gpu-check-$PART"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
