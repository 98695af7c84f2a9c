#!/usr/bin/env bash
# The README's example (its first ```c block) builds as C99 with -Werror, runs
# on the cpu backend and prints the expected values; with a pool too small for
# its buffer it reports the error and exits 1 instead of crashing.
set -eu
T=$(mktemp -d "${TMPDIR:-/tmp}/akreadme.XXXXXX")
trap 'rm -rf "$T"' EXIT
awk '/^```c$/{f=1; next} /^```$/{if (f) exit} f' README.md > "$T/app.c"
grep -q 'AMDKIT_IMPLEMENTATION' "$T/app.c"
cp amdkit.h "$T/"
(cd "$T" && cc -std=c99 -Wall -Wextra -Werror app.c -o app -ldl -lpthread -lm)
export AMDKIT_CACHE_DIR=$T/cache AMDKIT_BACKEND=cpu
out=$("$T/app"); echo "$out"
echo "$out" | grep -q 'x\[0..3\] = 3 3 3 3 (expected 3)'
set +e
AMDKIT_POOL_SIZE=2m "$T/app" > "$T/small.txt" 2>&1; rc=$?
set -e
cat "$T/small.txt"
[ $rc -eq 1 ] && grep -q 'out of memory' "$T/small.txt"
echo "1 passed, 0 failed"
