#!/usr/bin/env bash
# Fuzz amdkit's input parsers: tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#   `make test` runs every target for 5 s, `make fuzz` for 300 s (FUZZ_SECONDS=...).
# Targets are the folders of tests/fuzz/corpus/ (the seeds of each harness,
# tests/fuzz/fuzz_NAME.c, listed in fuzz_main.c). With clang's libFuzzer
# (Debian: libclang-rt-14-dev) the runs are coverage-guided under ASan + UBSan;
# without it, tests/fuzz/driver.c mutates the seeds (gcc, ASan + UBSan).
# New inputs collect in build/fuzz/corpus/NAME (kept between runs); a crash is
# saved as build/fuzz/crashes/NAME-* and fails the run. Replay one with
#   AKF_TARGET=NAME build/fuzz/amdkit_fuzz-libfuzzer FILE   (or amdkit_fuzz-driver FILE)
# Prints the executions per target and `N passed, N failed` last.
set -u
cd "$(dirname "$0")/../.."
secs=${1:-5}; shift || true
B=build/fuzz
mkdir -p $B/crashes
targets=${*:-$(ls tests/fuzz/corpus)}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
src="tests/fuzz/fuzz_main.c"
deps="$src tests/fuzz/fuzz_*.c amdkit.h"
# one binary per engine: build/fuzz/amdkit_fuzz-libfuzzer or -driver
build() { # engine
  local out=$B/amdkit_fuzz-$1
  if [ -x $out ] && [ -z "$(find $deps tests/fuzz/driver.c -newer $out 2>/dev/null | head -n 1)" ]; then return 0; fi
  rm -f $out
  if [ "$1" = libfuzzer ]; then
    command -v clang >/dev/null 2>&1 && clang -std=c99 -g -O1 -fsanitize=fuzzer $SAN $src -o $out -ldl -lpthread -lm > $B/build-$1.log 2>&1
  else
    ${CC:-cc} -std=c99 -g -O1 $SAN $src tests/fuzz/driver.c -o $out -ldl -lpthread -lm > $B/build-$1.log 2>&1
  fi
}
# AKF_ENGINE=driver forces the plain driver (what a machine without libFuzzer gets)
if [ "${AKF_ENGINE:-}" != driver ] && build libfuzzer; then engine=libfuzzer
elif build driver; then engine=driver
else echo "fuzz: build failed (logs: $B/build-*.log)"; tail -n 20 $B/build-driver.log; echo "0 passed, 1 failed"; exit 1; fi
passed=0; failed=0
for t in $targets; do
  [ -d tests/fuzz/corpus/$t ] || { echo "fuzz: no corpus folder tests/fuzz/corpus/$t"; failed=$((failed+1)); continue; }
  mkdir -p $B/corpus/$t
  log=$B/$t.log
  AKF_TARGET=$t ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ./$B/amdkit_fuzz-$engine -max_total_time=$secs -max_len=4096 -print_final_stats=1 -timeout=10 \
    -artifact_prefix=$B/crashes/$t- $B/corpus/$t tests/fuzz/corpus/$t > $log 2>&1
  rc=$?
  execs=$(grep -E '^stat::number_of_executed_units' $log | tail -n 1 | awk '{print $2}')
  ncorp=$(ls $B/corpus/$t | wc -l)
  if [ $rc -eq 0 ]; then
    passed=$((passed+1)); echo "  ok   $t: ${execs:-?} executions in ${secs} s ($engine), $ncorp inputs kept in $B/corpus/$t"
  else
    failed=$((failed+1)); echo "  FAIL $t: exit $rc after ${execs:-?} executions ($engine); log $log"
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written|input written' $log | head -n 10 | sed 's/^/       /'
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
