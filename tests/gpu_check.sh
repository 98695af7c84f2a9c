#!/usr/bin/env bash
# `make gpu-check`: on a machine with a GPU, in one go: build, device info,
# the demo, every gpu_* suite (each kernel against its CPU reference on the
# device), the runtime and kernel benchmarks, and the PyTorch peer benchmark.
# Logs and JSON go to build/gpu-check-PART; when $OUT is set (the device tool's
# output folder, which returns at most 8 files) the JSON results, the report
# and a tarball of all logs are copied there. Prints `N passed, N failed` last.
# GPU_CHECK_PART=check|bench|kernelbench|sanitize|all (default all = check + bench + kernelbench):
# `check` = build, info, demo, GPU suites, walkthrough, runtime/ops benchmarks
# with the PyTorch peer; `bench` = the attention and GEMM benchmarks with their
# PyTorch peers; `sanitize` = every gpu_* suite under NVIDIA's compute-sanitizer
# (memcheck, racecheck, synccheck, initcheck), see below. Each part fits one
# 10-minute device command; run `check` first (it builds everything).
#
# The sanitize part builds the test runner only, finds compute-sanitizer (PATH,
# $CUDA_HOME/bin, /usr/local/cuda/bin, /usr/local/cuda-*/bin, or
# $COMPUTE_SANITIZER; none is a failure that says where it looked) and runs each
# gpu_* suite as its own process under each tool, with a time budget: the part
# ends by GPU_CHECK_SANITIZE_END seconds (default 540) after it started;
# the suites run once without a tool first (GPU_CHECK_SANITIZE_WARM=0 skips it) so
# the kernels are compiled into the disk cache before any tool runs; memcheck
# gets 40% of what is left after that, the other three an equal
# share of the rest; within a tool each suite gets a share of the tool's
# remaining time in proportion to its warm-up seconds (a suite that runs over is cut and reported as cut,
# never as clean; GPU_CHECK_SANITIZE_SUITES="gpu_gemm gpu_attention" and
# GPU_CHECK_SANITIZE_TOOLS="racecheck" pick a subset for a second call; with GPU_CHECK_SANITIZE_WARM=0,
# GPU_CHECK_SANITIZE_WEIGHTS=LOG takes the suites' seconds from an earlier `amdkit_tests` log instead).
# memcheck runs every test; racecheck, synccheck and initcheck
# run a third of each suite's tests each (AKT_SAMPLE=0/3, 1/3, 2/3: the three
# together cover every test once); GPU_CHECK_SANITIZE_SAMPLE=1 runs every test
# under every tool. memcheck and initcheck run with AMDKIT_POOL=off (contexts
# that take the environment allocate each buffer from the driver, so a read
# past a buffer's end or of memory nobody wrote is seen, not hidden inside a
# pool segment; gpu_runtime's pool tests enable the pool themselves);
# GPU_CHECK_SANITIZE_POOL=on keeps the pool. Results: sanitize_summary.md and .json (tool, suite,
# status clean / no-gpu-work / errors / cut / tests-failed / unsupported, error count (less the API errors
# that the tests in tests/sanitize_expected.txt provoke on purpose), the
# runner's counts, seconds) in $OUT, every log in the tarball. A suite x tool
# is a failure when the tool reports an error or the suite fails under it.
#
# `kernelbench` = bench/kernelbench/run.py: KernelBench level 1 through amdkit,
# checked against eager and timed beside eager and torch.compile
# (GPU_CHECK_KB_PROBLEMS, default 1-100, e.g. 19-53 then 88-100 then 1-18 in
# three commands; GPU_CHECK_KB_TRIALS, default 100; no problem starts past
# GPU_CHECK_KB_END seconds into the part, default 540).
set -u
cd "$(dirname "$0")/.."
DEST=${OUT:-}
PART=${GPU_CHECK_PART:-all}
case "$PART" in check|bench|kernelbench|sanitize|all) ;; *) echo "gpu_check: GPU_CHECK_PART must be check, bench, kernelbench, sanitize or all (got '$PART')"; exit 2 ;; esac
want() { [ "$1" != sanitize ] && [ "$PART" = all ] || [ "$PART" = "$1" ]; }
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
if [ "$PART" = sanitize ]; then run build make -s -j8 build/amdkit_tests; else run build make -s -j8 all; fi
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
  # fits one 10-minute device command; cut by the command's limit instead, the part loses the report); entries it
  # did not reach are reported as not timed
  TB=$(( ${GPU_CHECK_TORCH_END:-520} - SECONDS )); [ $TB -lt 60 ] && TB=60
  run bench-torch python3 bench/peer_torch.py $BQ --max-s 1 --budget-s $TB --match "$OUT/bench_ops.json" "$OUT/bench_torch.json"
  run report python3 bench/report.py "$OUT/bench_ops.json" "$OUT/bench_torch.json" --out "$OUT/report.md" --json "$OUT/fastp_ops.json"
fi
fi
if want bench; then
# attention: amdkit and PyTorch SDPA on the same shapes, one JSON with both and the table
run bench-attention ./build/bench_attention $BQ "$OUT/bench_attention_amdkit.json"
if [ -f "$OUT/bench_attention_amdkit.json" ] && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  run bench-attention-torch python3 bench/peer_attention.py --match "$OUT/bench_attention_amdkit.json" "$OUT/bench_attention.json"
  sed -n '/^| entry/,$p' "$OUT/bench-attention-torch.log"
fi
# GEMM: the sweep (bench_gemm_sweep: every layout, f16 / bf16 / f32 / TF32 / fp8, batched, decode, gemv, fused epilogues,
# each cell checked) + the PyTorch peer on the same cells (eager, torch.compile), joined into one JSON + table
run bench-gemm ./build/bench_gemm_sweep $BQ --list "$OUT/gemm_cases.tsv" "$OUT/bench_gemm_sweep.json"
if [ -f "$OUT/bench_gemm_sweep.json" ] && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  run bench-gemm-torch python3 bench/peer_torch_gemm_sweep.py "$OUT/gemm_cases.tsv" "$OUT/torch_gemm_sweep.json"
  GC=; [ "$(cat build/gpu-suites.status 2>/dev/null)" = passed ] && [ build/gpu-suites.status -nt build/amdkit_tests ] && GC=--correct
  run bench-gemm-report python3 bench/gemm_sweep_report.py "$OUT/bench_gemm_sweep.json" "$OUT/torch_gemm_sweep.json" \
    --json "$OUT/gemm_sweep.json" --md "$OUT/gemm_report.md" --joined "$OUT/gemm_results.json" $GC
  cat "$OUT/gemm_report.md" 2>/dev/null
fi
# graph replay: a decode-like sequence of 100 small ops issued one by one against one ak_graph_launch, PyTorch
# (eager, torch.cuda.CUDAGraph) beside it (bench_graph checks the replay's output against the direct calls)
run bench-graph ./build/bench_graph $BQ "$OUT/bench_graph_amdkit.json"
if [ -f "$OUT/bench_graph_amdkit.json" ] && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  run bench-graph-torch python3 bench/graph_torch.py "$OUT/bench_graph_amdkit.json" "$OUT/bench_graph.json"
  sed -n '/^| sequence/,$p' "$OUT/bench-graph-torch.log"
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
if want sanitize; then
# ---- every gpu_* suite under compute-sanitizer's four tools, within a time budget ----
SAN_END=${GPU_CHECK_SANITIZE_END:-540}
CS=${COMPUTE_SANITIZER:-}
if [ -z "$CS" ]; then
  for c in "$(command -v compute-sanitizer 2>/dev/null)" ${CUDA_HOME:+$CUDA_HOME/bin/compute-sanitizer} /usr/local/cuda/bin/compute-sanitizer \
           $(ls -d /usr/local/cuda-*/bin/compute-sanitizer 2>/dev/null | sort -rV) /opt/nvidia/compute-sanitizer/compute-sanitizer; do
    [ -n "$c" ] && [ -x "$c" ] && { CS=$c; break; }
  done
fi
SUM_MD=$OUT/sanitize_summary.md; SUM_JSON=$OUT/sanitize_summary.json
SUITES=${GPU_CHECK_SANITIZE_SUITES:-$(grep -oE 'X\(gpu_[a-z_0-9]+\)' tests/test_main.c | sed -E 's/X\((.*)\)/\1/')}
TOOLS=${GPU_CHECK_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
{ echo "# compute-sanitizer over the GPU suites"; echo
  echo "- host: $(hostname), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "- compute-sanitizer: ${CS:-not found}"; echo "- budget: the part ends by ${SAN_END} s"
  echo "- AMDKIT_POOL under memcheck and initcheck: ${GPU_CHECK_SANITIZE_POOL:-off}; under racecheck and synccheck: on"; echo
  echo "| tool | suite | sample | status | errors | tests (runner) | seconds |"; echo "|---|---|---|---|---|---|---|"; } > "$SUM_MD"
echo "[" > "$SUM_JSON"; first=1
san_clean=0; san_bad=0; san_cut=0
row() { # tool suite sample status errors tests secs
  echo "| $1 | $2 | $3 | $4 | $5 | $6 | $7 |" >> "$SUM_MD"
  [ $first = 1 ] || echo "," >> "$SUM_JSON"; first=0
  printf '  {"tool": "%s", "suite": "%s", "sample": "%s", "status": "%s", "errors": %s, "tests": "%s", "seconds": %s}' "$1" "$2" "$3" "$4" "$5" "$6" "$7" >> "$SUM_JSON"
  echo "  $1 $2 [$3]: $4, $5 errors, $6, $7 s"
}
# API errors a test provokes on purpose (tests/sanitize_expected.txt names those tests): the "Program hit ..."
# reports of a log whose host backtrace passes through one of them; and a library's own probes ("lib LIB API"
# lines there): a report on that API call whose first frame past libcuda is inside LIB
expected_api() {
  awk -v list="$(grep -v '^#' tests/sanitize_expected.txt 2>/dev/null | grep -v '^lib ' | awk 'NF {print $1 "@" $2}' | tr '\n' ' ')" \
      -v libs="$(grep '^lib ' tests/sanitize_expected.txt 2>/dev/null | awk '{print $2 "@" $3}' | tr '\n' ' ')" '
    BEGIN { n = split(list, t, " "); for (i = 1; i <= n; i++) { split(t[i], p, "@"); test[i] = p[1]; tapi[i] = p[2] }
            m = split(libs, l, " "); for (i = 1; i <= m; i++) { split(l[i], p, "@"); lib[i] = p[1]; api[i] = p[2] } }
    /^========= Program hit/ { inrep = 1; hit = 0; first = ""; line = $0; next }
    inrep && /Host Frame:/ { for (i = 1; i <= n; i++) if (index($0, " " test[i] " ") && (tapi[i] == "" || index(line, "call to " tapi[i] "."))) hit = 1
                             if (first == "" && !index($0, "libcuda.so")) first = $0; next }
    inrep && /^========= *$/ { for (i = 1; i <= m; i++) if (index(first, " in " lib[i]) && index(line, "call to " api[i] ".")) hit = 1
                               if (hit) c++; inrep = 0; next }
    END { print c + 0 }' "$1"
}
if [ -z "$CS" ]; then
  echo "  FAIL sanitize: compute-sanitizer not found (looked on PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin, /usr/local/cuda-*/bin, /opt/nvidia/compute-sanitizer; set COMPUTE_SANITIZER=PATH)"
  row all all - missing 0 - 0; failed=$((failed+1)); failures="$failures sanitize-missing"
elif [ ! -x build/amdkit_tests ]; then
  echo "  FAIL sanitize: build/amdkit_tests was not built"; row all all - not-built 0 - 0; failed=$((failed+1)); failures="$failures sanitize-build"
else
  "$CS" --version > "$OUT/sanitize-version.log" 2>&1 || true
  # warm-up: the suites once without a tool, so every kernel is compiled into the disk cache and the runs
  # under the tools load code objects instead of compiling (NVRTC under a tool is what used to eat the budget)
  if [ "${GPU_CHECK_SANITIZE_WARM:-1}" = 1 ]; then
    t0=$SECONDS; timeout $(( (SAN_END - SECONDS) / 2 )) ./build/amdkit_tests $SUITES > "$OUT/sanitize-warm.log" 2>&1
    echo "  warm-up (every suite once, no tool): $(( SECONDS - t0 )) s, $(grep -E '^[0-9]+ passed' "$OUT/sanitize-warm.log" | tail -n 1)"
  fi
  # a suite's share of a tool's time follows its warm-up seconds (at least 2 s): the long suites (attention,
  # GEMM) get the time they need, the short ones finish early and leave theirs to the next
  WLOG=${GPU_CHECK_SANITIZE_WEIGHTS:-$OUT/sanitize-warm.log}
  suite_weight() { local w; w=$(grep -oE "\(suite $1: [0-9]+" "$WLOG" 2>/dev/null | grep -oE '[0-9]+$' | head -n 1)
                   [ -n "$w" ] && [ "$w" -ge 2 ] || w=2; echo $w; }
  ntools=$(echo $TOOLS | wc -w); tooli=0
  for tool in $TOOLS; do
    case $tool in memcheck|racecheck|synccheck|initcheck) ;; *) echo "  unknown tool '$tool' (memcheck racecheck synccheck initcheck)"; san_bad=$((san_bad+1)); continue ;; esac
    now=$SECONDS; left=$(( SAN_END - now ))
    if [ $tooli = 0 ] && [ $ntools -gt 1 ] && [ $tool = memcheck ]; then share=$(( left * 2 / 5 )); else share=$(( left / (ntools - tooli) )); fi
    tool_end=$(( now + share )); tooli=$((tooli+1))
    if [ $tool = memcheck ] || [ "${GPU_CHECK_SANITIZE_SAMPLE:-3}" = 1 ]; then sample=0/1
    else case $tool in racecheck) sample=0/3 ;; synccheck) sample=1/3 ;; initcheck) sample=2/3 ;; esac; fi
    extra=; [ $tool = memcheck ] && extra="--leak-check no"
    pool=on; { [ $tool = memcheck ] || [ $tool = initcheck ]; } && pool=${GPU_CHECK_SANITIZE_POOL:-off}
    wleft=0; for suite in $SUITES; do wleft=$(( wleft + $(suite_weight $suite) )); done
    for suite in $SUITES; do
      w=$(suite_weight $suite)
      budget=$(( (tool_end - SECONDS) * w / wleft )); wleft=$(( wleft - w ))
      [ $budget -lt 5 ] && budget=$(( tool_end - SECONDS ))   # a short share: what is left of the tool's time
      log=$OUT/sanitize-$tool-$suite.log
      if [ $budget -lt 5 ]; then row $tool $suite $sample cut 0 "not run (no time left)" 0; san_cut=$((san_cut+1)); continue; fi
      t0=$SECONDS
      AMDKIT_POOL=$pool AKT_SAMPLE=$sample timeout --signal=INT --kill-after=15 $budget "$CS" --tool $tool $extra --error-exitcode 86 --print-limit 50 \
        ./build/amdkit_tests $suite > "$log" 2>&1
      rc=$?; secs=$(( SECONDS - t0 ))
      nerr=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+$')
      [ -n "$nerr" ] || nerr=$(grep -cE '^========= +(Invalid|Race|Barrier|Uninitialized|Program hit|Error|Warning|Unspecified|Out-of-range|Misaligned|Address|Malloc|Free|Device|Host API)' "$log")
      tests=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1); [ -n "$tests" ] || tests="no summary"
      expd=$(expected_api "$log"); nerr=$(( ${nerr:-0} - expd )); [ $nerr -ge 0 ] || nerr=0
      [ $rc = 86 ] && [ $nerr = 0 ] && rc=0    # only the API errors the tests provoke on purpose
      if grep -qiE 'Device not supported|Unable to find injection library' "$log"; then
        st=unsupported; san_bad=$((san_bad+1))
      elif grep -q 'Target application terminated before first instrumented API call' "$log" && echo "$tests" | grep -qE ' 0 failed$'; then
        st=no-gpu-work; nerr=0; san_clean=$((san_clean+1))   # the sampled tests of this suite made no GPU call
      elif [ $rc = 124 ] || [ $rc = 137 ] || [ $rc = 130 ]; then
        if [ "${nerr:-0}" -gt 0 ]; then st=errors; san_bad=$((san_bad+1)); else st=cut; san_cut=$((san_cut+1)); fi
      elif [ $rc = 86 ] || [ "${nerr:-0}" -gt 0 ]; then st=errors; san_bad=$((san_bad+1))
      elif [ $rc = 0 ]; then st=clean; san_clean=$((san_clean+1))
      else st=tests-failed; san_bad=$((san_bad+1)); fi
      row $tool $suite $sample $st ${nerr:-0} "$tests" $secs
      [ $st = errors ] || [ $st = tests-failed ] || [ $st = unsupported ] && grep -E '^=========' "$log" | head -n 12 | sed 's/^/       /'
    done
  done
  { echo; echo "clean $san_clean, with errors or failing $san_bad, cut by the budget $san_cut (suite x tool)"; } >> "$SUM_MD"
  if [ $san_bad -gt 0 ]; then failed=$((failed+1)); failures="$failures sanitize"; else passed=$((passed+1)); fi
fi
echo "]" >> "$SUM_JSON"
echo "sanitize: clean $san_clean, errors/failing $san_bad, cut $san_cut (suite x tool); summary in $SUM_MD"
fi
if want kernelbench; then
# KernelBench level 1 (every problem through amdkit ops, correct against eager, timed beside eager and
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
  # the results and one tarball of every log (the device tool returns a limited number of files)
  for f in info.json bench_runtime.json bench_ops.json bench_torch.json report.md bench_attention.json gemm_results.json \
           sanitize_summary.md sanitize_summary.json; do [ -f "$OUT/$f" ] && cp "$OUT/$f" "$DEST/"; done
  # kernelbench: its results (every problem and trial; `run.py merge` rebuilds the rest), fast_p and the table
  for f in "$OUT"/kernelbench/results-*.json "$OUT/kernelbench/fastp.json" "$OUT/kernelbench/summary.md" "$OUT/kernelbench/baseline_amdkit.json"; do
    [ -f "$f" ] && cp "$f" "$DEST/"
  done
  tar czf "$DEST/gpu-check-$PART-logs.tgz" -C build "gpu-check-$PART"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
