#!/usr/bin/env bash
# `make test-sanitize` (and two steps of `make check`): the test runner built
# with sanitizers.
#   asan  every cpu-backend suite (the offline compiles with the real hipRTC
#         and NVRTC included: two families, a plain and a matrix-core one, for
#         every target) under AddressSanitizer + UndefinedBehaviorSanitizer
#         + LeakSanitizer
#   tsan  the threaded suites (compile cache, its API, the pool, contexts,
#         races, harden: 2 processes x 16 threads on one cache, 16 threads on
#         one pool / one context) under ThreadSanitizer; any report fails
# No argument: both. Prints `N passed, N failed` last (summed).
set -u
cd "$(dirname "$0")/.."
B=build
TSAN_SUITES="cache cache_api pool pool_internals context races harden multi"
parts=${1:-"asan tsan"}
mkdir -p $B/logs
passed=0; failed=0
run() { # name, command...
  local name=$1; shift
  local log=$B/logs/sanitize-$name.log
  mkdir -p $B/logs
  "$@" > "$log" 2>&1; local rc=$?
  local line p f
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
  [ -n "$line" ] || { p=0; f=1; }
  # a sanitizer report (exit code 66, or "ERROR: ...Sanitizer") fails the part even if every test passed
  if [ $rc -ne 0 ] || grep -qE '^(==[0-9]+==)?ERROR: (Address|Leak|Thread)Sanitizer|^WARNING: ThreadSanitizer|runtime error:' "$log"; then
    [ "$f" = "0" ] && f=1
    grep -E -A 30 'ERROR: (Address|Leak|Thread)Sanitizer|WARNING: ThreadSanitizer|runtime error:' "$log" | head -n 60
  fi
  grep -E '^\s+FAIL' "$log" | head -n 20
  echo "  $name: $p passed, $f failed (log: $log)"
  passed=$((passed+p)); failed=$((failed+f))
}
for part in $parts; do
  case $part in
    asan)
      if make -s $B/amdkit_tests_asan > $B/logs/sanitize-build-asan.log 2>&1; then
        run asan env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
          LSAN_OPTIONS=suppressions=tests/lsan.supp:print_suppressions=0 \
          UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 AKT_TMP=$B/tmp-asan AKT_COMPILE_FAMILIES=cast,gemm_decode ./$B/amdkit_tests_asan
      else echo "  asan: build failed (log: $B/logs/sanitize-build-asan.log)"; tail -n 20 $B/logs/sanitize-build-asan.log; failed=$((failed+1)); fi ;;
    tsan)
      if make -s $B/amdkit_tests_tsan > $B/logs/sanitize-build-tsan.log 2>&1; then
        # exitcode=66: a race report fails the run; die_after_fork=0: the cache
        # tests fork writer processes from a threaded parent
        run tsan env TSAN_OPTIONS=halt_on_error=0:exitcode=66:second_deadlock_stack=1:die_after_fork=0 \
          AKT_TMP=$B/tmp-tsan ./$B/amdkit_tests_tsan $TSAN_SUITES
      else echo "  tsan: build failed (log: $B/logs/sanitize-build-tsan.log)"; tail -n 20 $B/logs/sanitize-build-tsan.log; failed=$((failed+1)); fi ;;
    *) echo "sanitize.sh: unknown part '$part' (asan, tsan)"; failed=$((failed+1)) ;;
  esac
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
