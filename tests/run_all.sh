#!/usr/bin/env bash
# `make test`: every check that runs without a GPU, each step counted, and
# `N passed, N failed` as the last line.
#   1. the C test suites (cpu backend + offline compiles with the real hipRTC and NVRTC)
#   2. the same suites under AddressSanitizer + UndefinedBehaviorSanitizer; tests/ti_races.c under ThreadSanitizer
#   3. the header alone as C99 and C++11 (gcc and clang), with AMDKIT_STATIC, -Wall -Wextra -pedantic -Werror
#   4. the HIP/hipRTC and CUDA/NVRTC prototypes type-checked against the real headers (+ a self-test that a wrong one fails)
#   5. the embedded kernel sources match kernels/ (make gen-check)
#   6. every kernel family compiled for gfx940 with clang-15 and disassembled
#   7. the demo runs (cpu backend)
set -u
cd "$(dirname "$0")/.."
B=build
mkdir -p $B/logs
passed=0; failed=0; failures=""
step() { # name, command...
  local name=$1; shift
  if "$@" > "$B/logs/$name.log" 2>&1; then passed=$((passed+1)); echo "  ok   $name"
  else failed=$((failed+1)); failures="$failures $name"; echo "  FAIL $name (log: $B/logs/$name.log)"; tail -n 25 "$B/logs/$name.log" | sed 's/^/       /'; fi
}
# count a runner's own "N passed, N failed" line into the totals
suite() { # name, command...
  local name=$1; shift
  "$@" > "$B/logs/$name.log" 2>&1; local rc=$?
  local line; line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$B/logs/$name.log" | tail -n 1)
  local p f
  p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
  [ -n "$line" ] || { p=0; f=1; }
  [ $rc -ne 0 ] && [ "$f" = "0" ] && f=1
  passed=$((passed+p)); failed=$((failed+f))
  grep -E '^\s+FAIL|^  FAIL' "$B/logs/$name.log" | head -n 40
  echo "  $name: $p passed, $f failed (log: $B/logs/$name.log)"
  [ "$f" = "0" ] || failures="$failures $name"
}

echo "== dependencies"
bash tests/deps.sh || { echo "0 passed, 1 failed"; exit 1; }

echo "== build"
step build make -s all
echo "== test suites (cpu backend, real offline compilers)"
suite suites ./$B/amdkit_tests
echo "== sanitizers (ASan + UBSan)"
step build-asan make -s $B/amdkit_tests_asan
suite suites-asan env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 LSAN_OPTIONS=suppressions=tests/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 AKT_TMP=$B/tmp-asan ./$B/amdkit_tests_asan
echo "== races (ThreadSanitizer: context identity, prelude id)"
step races-tsan bash -c "gcc -std=c99 -Wall -Wextra -Werror -O1 -g -fsanitize=thread tests/tsan_races.c -o $B/tsan_races -ldl -lpthread -lm && TSAN_OPTIONS=halt_on_error=1 ./$B/tsan_races"
echo "== header builds"
for cc in gcc clang; do
  step "header-c99-$cc" $cc -std=c99 -Wall -Wextra -pedantic -Werror -c tests/header_check.c -o $B/header_c99_$cc.o
  step "header-c99-static-$cc" $cc -std=c99 -Wall -Wextra -pedantic -Werror -DAMDKIT_STATIC -c tests/header_check.c -o $B/header_static_$cc.o
done
for cxx in g++ clang++; do
  step "header-cxx11-$cxx" $cxx -std=c++11 -Wall -Wextra -pedantic -Werror -x c++ -c tests/header_check.c -o $B/header_cxx_$cxx.o
done
step header-allocator-hooks gcc -std=c99 -Wall -Wextra -pedantic -Werror -DAKT_HOOKS -c tests/header_check.c -o $B/header_hooks.o
step header-allocator-partial-rejected bash -c "! gcc -std=c99 -DAKT_PARTIAL_HOOKS -c tests/header_check.c -o /dev/null 2>/dev/null"
echo "== prototypes against the real headers"
step typecheck-hip gcc -D_GNU_SOURCE -std=c99 -Wall -Wextra -Werror -Wno-unused-function -c tests/typecheck_hip.c -o /dev/null
step typecheck-cuda gcc -D_GNU_SOURCE -std=c99 -Wall -Wextra -Werror -Wno-unused-function -I/usr/local/cuda/include -c tests/typecheck_cuda.c -o /dev/null
step typecheck-detects-wrong-prototype bash -c "! gcc -D_GNU_SOURCE -DAK_TYPECHECK_EXPECT_FAIL -std=c99 -Wall -Wextra -Werror -Wno-unused-function -c tests/typecheck_hip.c -o /dev/null 2>/dev/null && ! gcc -D_GNU_SOURCE -DAK_TYPECHECK_EXPECT_FAIL -std=c99 -Wall -Wextra -Werror -Wno-unused-function -I/usr/local/cuda/include -c tests/typecheck_cuda.c -o /dev/null 2>/dev/null"
echo "== generated kernel sources"
step gen-check make -s gen-check
echo "== gfx940 (clang-15) + disassembly"
suite gfx940 bash tests/check_gfx940.sh $B/amdkit $B/gfx940
echo "== demo (cpu)"
step demo env AMDKIT_BACKEND=cpu ./$B/amdkit demo

[ -n "$failures" ] && echo "failed steps:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
