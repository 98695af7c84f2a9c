#!/usr/bin/env bash
# Fuzz amdkit's input parsers: tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#   `make check` runs every target for 5 s, `make fuzz` for 300 s (FUZZ_SECONDS=...).
# Two kinds of harness, both found here:
#   - a target of the shared binary: tests/fuzz/fuzz_NAME.c defining
#     `static int akf_NAME(...)`, listed in fuzz_main.c's AKF_TARGETS (one build
#     for all of them);
#   - a standalone harness: tests/fuzz/fuzz_NAME.c defining
#     LLVMFuzzerTestOneInput itself (and including amdkit.h's implementation),
#     built into its own binary.
# Seeds: tests/fuzz/corpus/NAME/ (optional for standalone harnesses). With
# clang's libFuzzer (Debian: libclang-rt-14-dev) runs are coverage-guided
# under ASan + UBSan; without it (or AKF_ENGINE=driver) tests/fuzz/driver.c
# mutates the seeds (any C compiler, ASan + UBSan). New inputs collect in
# build/fuzz/corpus/NAME (kept between runs); a crash is saved as
# build/fuzz/crashes/NAME-* and fails the run. Replay one with
#   AKF_TARGET=NAME build/fuzz/amdkit_fuzz-libfuzzer FILE   (shared binary)
#   build/fuzz/fuzz_NAME-libfuzzer FILE                      (standalone)
# Prints the executions per target and `N passed, N failed` last.
set -u
cd "$(dirname "$0")/../.."
secs=${1:-5}; shift || true
B=build/fuzz
mkdir -p $B/crashes
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
LIBS="-ldl -lpthread -lm"
# harnesses that write files (cache_entry) do it under TMPDIR: memory, where there is /dev/shm
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
standalone() { grep -l 'LLVMFuzzerTestOneInput *(' tests/fuzz/fuzz_*.c 2>/dev/null | grep -v 'fuzz_main.c' | sed -E 's|.*/fuzz_(.*)\.c|\1|'; }
is_standalone() { grep -q 'LLVMFuzzerTestOneInput *(' tests/fuzz/fuzz_$1.c 2>/dev/null; }
all_targets=$( { ls tests/fuzz/corpus 2>/dev/null; standalone; } | sort -u)
targets=${*:-$all_targets}
# build SRC OUT ENGINE: libfuzzer (clang) or driver (any compiler + driver.c); skipped when up to date
build() {
  local src=$1 out=$2 eng=$3
  if [ -x $out ] && [ -z "$(find $src tests/fuzz/*.c amdkit.h examples/*.c -newer $out 2>/dev/null | head -n 1)" ]; then return 0; fi
  rm -f $out
  if [ "$eng" = libfuzzer ]; then
    command -v clang >/dev/null 2>&1 && clang -std=c99 -g -O1 -fsanitize=fuzzer $SAN $src -o $out $LIBS > $out.log 2>&1
  else
    ${CC:-cc} -std=c99 -g -O1 $SAN $src tests/fuzz/driver.c -o $out $LIBS > $out.log 2>&1
  fi
}
# binary for a target: prints "PATH ENGINE" (libFuzzer first unless AKF_ENGINE=driver)
binary() {
  local src base
  if is_standalone $1; then src=tests/fuzz/fuzz_$1.c; base=$B/fuzz_$1; else src=tests/fuzz/fuzz_main.c; base=$B/amdkit_fuzz; fi
  if [ "${AKF_ENGINE:-}" != driver ] && build $src $base-libfuzzer libfuzzer; then echo "$base-libfuzzer libfuzzer"; return 0; fi
  if build $src $base-driver driver; then echo "$base-driver driver"; return 0; fi
  echo "fuzz: cannot build $src (logs: $base-*.log)" >&2; tail -n 15 $base-driver.log >&2
  return 1
}
passed=0; failed=0
for t in $targets; do
  if ! is_standalone $t && [ ! -d tests/fuzz/corpus/$t ]; then
    echo "  FAIL $t: no harness (tests/fuzz/fuzz_$t.c) or corpus (tests/fuzz/corpus/$t)"; failed=$((failed+1)); continue
  fi
  if ! bin=$(binary $t); then failed=$((failed+1)); continue; fi
  set -- $bin
  exe=$1; engine=$2
  mkdir -p $B/corpus/$t
  seeds=""; [ -d tests/fuzz/corpus/$t ] && seeds=tests/fuzz/corpus/$t
  log=$B/$t.log
  AKF_TARGET=$t ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ./$exe -max_total_time=$secs -max_len=4096 -print_final_stats=1 -timeout=10 \
    -artifact_prefix=$B/crashes/$t- $B/corpus/$t $seeds > $log 2>&1
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
