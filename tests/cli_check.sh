#!/usr/bin/env bash
# The command-line tool as a new user meets it (`make test` step cli), its
# conventions for every command: `amdkit CMD --help` prints that command's
# usage on stdout with exit 0; an unknown option is refused on stderr with
# exit 2; errors go to stderr; no arguments is usage on stderr with exit 2;
# -V / --version. And: compile -o, compile errors on stderr, an unreadable
# file said why, cache stats from the disk, cache purge saying what it removed,
# kernels --dump creating its directory, AMDKIT_DEVICE past the device count.
set -u
B=${1:-build/amdkit}
T=$(mktemp -d "${TMPDIR:-/tmp}/akcli.XXXXXX")
trap 'rm -rf "$T"' EXIT
export AMDKIT_CACHE_DIR=$T/cache AMDKIT_BACKEND=cpu
pass=0; fail=0
check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then pass=$((pass+1)); echo "  ok   $what"; else fail=$((fail+1)); echo "  FAIL $what"; fi
}
run() { # command... -> $T/out, $T/err, $rc
  "$@" > "$T/out" 2> "$T/err"; rc=$?
}
run "$B" --help;     check "--help: stdout, exit 0" test $rc -eq 0 -a -s "$T/out" -a ! -s "$T/err"
grep -q 'amdkit compile' "$T/out"; check "--help lists the commands" test $? -eq 0
run "$B";            check "no arguments: usage on stderr, exit 2" test $rc -eq 2 -a ! -s "$T/out" -a -s "$T/err"
check "no arguments: the usage lists the commands" grep -q 'amdkit compile' "$T/err"
run "$B" --version;  check "--version" grep -q "^amdkit [0-9]" "$T/out"
v=$(sed -n 's/^amdkit //p' "$T/out")
check "--version is AK_VERSION_STRING and CHANGELOG.md has its section" \
  bash -c "grep -q '^#define AK_VERSION_STRING \"$v\"' \"$(dirname "$0")/../amdkit.h\" && grep -q '^## $v\$' \"$(dirname "$0")/../CHANGELOG.md\""
run "$B" -V;         check "-V is --version" bash -c "[ $rc -eq 0 ] && grep -q '^amdkit [0-9]' '$T/out'"
for c in info arch compile cache kernels demo run bench tune; do
  run "$B" $c --help
  check "$c --help: its own usage on stdout, exit 0" bash -c "[ $rc -eq 0 ] && [ ! -s '$T/err' ] && grep -q 'amdkit $c' '$T/out' && ! grep -q 'amdkit kernels' '$T/out' || [ $c = kernels ]"
  run "$B" $c -h
  check "$c -h is --help" bash -c "[ $rc -eq 0 ] && grep -q 'amdkit $c' '$T/out'"
done
for c in info arch compile cache kernels demo run bench tune; do
  run "$B" $c --bogus
  check "$c --bogus: refused on stderr, exit 2" bash -c "[ $rc -eq 2 ] && [ ! -s '$T/out' ] && grep -q -- '--bogus' '$T/err'"
done
run "$B" cache stats --bogus; check "cache stats --bogus: exit 2" test $rc -eq 2
run "$B" arch gfx90a sm_90;   check "arch with two names: exit 2" test $rc -eq 2
run "$B" compile "$T/nope.hip" --kernel k --arch sm_80
check "compile of a missing file says why, exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'nope.hip: No such file' '$T/err'"
printf 'extern "C" __global__ void k(float* x) { x[0] = 1.0f }\n' > "$T/bad.hip"
run "$B" compile "$T/bad.hip" --kernel k --arch sm_80
check "compile error: on stderr with the log, exit 1" bash -c "[ $rc -eq 1 ] && grep -q 'AK_ERROR_COMPILATION' '$T/err' && grep -q 'expected' '$T/err' && ! grep -q error '$T/out'"
run "$B" frobnicate; check "unknown command: exit 2" test $rc -eq 2
check "unknown command is named" grep -q "unknown command 'frobnicate'" "$T/err"
run "$B" compile kernels/elementwise.hip --arch sm_80
check "compile without --kernel: exit 2, names --kernel" bash -c "[ $rc -eq 2 ] && grep -q -- '--kernel' '$T/err'"
run "$B" compile kernels/elementwise.hip --kernel ak_fill_f32
check "compile without --arch names --arch" grep -q -- '--arch' "$T/err"
run "$B" compile kernels/elementwise.hip --kernel ak_fill_f32 --arch sm_80 -o "$T/fill.cubin"
check "compile -o writes the code object" bash -c "[ $rc -eq 0 ] && [ -s '$T/fill.cubin' ] && [ \"\$(head -c 4 '$T/fill.cubin' | od -An -c | tr -d ' ')\" = '177ELF' ]"
run "$B" compile kernels/elementwise.hip --kernel ak_fill_f32 --arch sm_80,sm_90 -o "$T/one.co"
check "compile -o with several targets and no %t: exit 2" test $rc -eq 2
run "$B" cache stats
check "cache stats counts the disk entry" grep -qE '^on disk +1 entries' "$T/out"
check "cache stats shows oldest/newest" grep -q '^newest' "$T/out"
run "$B" cache purge
check "cache purge says what it removed" bash -c "[ $rc -eq 0 ] && grep -qE '^removed 1 entries, [0-9]+ bytes' '$T/out'"
run "$B" cache stats
check "cache stats after purge: empty" grep -qE '^on disk +0 entries' "$T/out"
run "$B" kernels --dump "$T/dump/sub"
check "kernels --dump creates the directory" test $rc -eq 0 -a -s "$T/dump/sub/elementwise.hip"
touch "$T/afile"
run "$B" kernels --dump "$T/afile/x"
check "kernels --dump into a file: says why" bash -c "[ $rc -ne 0 ] && grep -q 'cannot create directory' '$T/err'"
run env AMDKIT_DEVICE=3 "$B" info
check "AMDKIT_DEVICE=3 on one device: an error" bash -c "[ $rc -ne 0 ] && grep -q 'device 3' '$T/err'"
run "$B" info
check "info: matrix_cores the same in text and JSON" bash -c "v=\$(grep -E '^  matrix_cores ' '$T/out' | awk '{print \$2}'); \
  \"$B\" info --json | grep -q \"\\\"matrix_cores\\\":\\\"\$v\\\"\""
check "info: every config line keeps its three columns apart (no overflow)" \
  bash -c "awk '/^config /{on=1; next} on && !/^  /{on=0} on' '$T/out' > '$T/cfg' && [ \$(wc -l < '$T/cfg') -ge 20 ] && \
           ! grep -vE '^  [a-z0-9_]+  +[^ ].*  +AMDKIT_[A-Z0-9_]+\$' '$T/cfg'"
check "info: a backend not tried says why" bash -c "! grep -E '^  (hip|cuda) +not tried *\$' '$T/out'"
check "info on the cpu backend reports the offline compilers" grep -qE '^  compiler +.*(hipRTC|NVRTC)' "$T/out"
run env AMDKIT_POOL_SIZE=-5 "$B" info
check "AMDKIT_POOL_SIZE=-5 names the variable" grep -q "AMDKIT_POOL_SIZE='-5'" "$T/err"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
