#!/usr/bin/env bash
# The README's "Use it" program is examples/hello.c: the README's first ```c block must be that file, byte
# for byte (one source of truth). It builds as C99 with -Werror as a user builds it (amdkit.h beside it), runs
# on the cpu backend and prints the expected values; with a pool too small for its buffer it reports the error
# and exits 1 instead of crashing.
set -eu
cd "$(dirname "$0")/.."
T=$(mktemp -d "${TMPDIR:-/tmp}/akreadme.XXXXXX")
trap 'rm -rf "$T"' EXIT
awk '/^```c$/{f=1; next} /^```$/{if (f) exit} f' README.md > "$T/readme.c"
if ! cmp -s "$T/readme.c" examples/hello.c; then
  diff -u examples/hello.c "$T/readme.c" | head -n 40
  echo "readme_check: README.md's first C block differs from examples/hello.c (copy the file into the README)"
  echo "0 passed, 1 failed"; exit 1
fi
cp examples/hello.c amdkit.h "$T/"
(cd "$T" && cc -std=c99 -Wall -Wextra -Werror hello.c -o hello -ldl -lpthread -lm)
export AMDKIT_CACHE_DIR=$T/cache AMDKIT_BACKEND=cpu
out=$("$T/hello"); echo "$out"
echo "$out" | grep -q 'x\[0..3\] = 3 3 3 3 (expected 3)'
set +e
AMDKIT_POOL_SIZE=2m "$T/hello" > "$T/small.txt" 2>&1; rc=$?
set -e
cat "$T/small.txt"
[ $rc -eq 1 ] && grep -q 'out of memory' "$T/small.txt"
echo "2 passed, 0 failed"
