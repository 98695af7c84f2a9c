#!/usr/bin/env bash
# `amdkit run|bench|tune` beyond the README walkthrough (tests/walkthrough.sh):
# argument specs and their errors (exit 2 with a message naming the problem,
# never a crash), initial values (range, @file raw and .npy, sizes checked),
# .npy output (shape, dtype, bf16 widened to f32), --compare (medians with an
# interval; equal runs are not called a speedup) and its errors, the tune
# budget and --retune, and on the cpu backend that bench and tune say what they
# time and tune stores no choice. Runs on whatever backend AUTO picks; make test
# sets AMDKIT_BACKEND=cpu. Prints `N passed, N failed` last.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
A=${AMDKIT_BIN:-$ROOT/build/amdkit}
T=${PROTO_TMP:-$ROOT/build/proto-cli}
rm -rf "$T"; mkdir -p "$T"; cd "$T"
export AMDKIT_CACHE_DIR=$T/cache
passed=0; failed=0
ok()  { passed=$((passed+1)); echo "  ok   $1"; }
bad() { failed=$((failed+1)); echo "  FAIL $1"; [ -f out.txt ] && sed 's/^/       /' out.txt | tail -n 8; }
# expect NAME RC PATTERN -- command...: exit status RC and PATTERN (grep -E) in stdout+stderr
expect() {
  local name=$1 want=$2 pat=$3; shift 4
  "$@" > out.txt 2>&1; local rc=$?
  if [ "$rc" = "$want" ] && grep -Eq -- "$pat" out.txt; then ok "$name"; else echo "       (exit $rc, wanted $want; pattern: $pat)"; bad "$name"; fi
}

cat > k.hip <<'EOF'
extern "C" __global__ void copy(int n, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
extern "C" __global__ void copy16(int n, const unsigned short* x, unsigned short* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
EOF
cat > ref.c <<'EOF'
#include "amdkit.h"
#include <string.h>
void copy_cpu(const ak_launch_info* info, void** args) {
    int n = *(int*)args[0];
    (void)info;
    memcpy(*(void**)args[2], *(void**)args[1], (size_t)n * 4);
}
void copy16_cpu(const ak_launch_info* info, void** args) {
    int n = *(int*)args[0];
    (void)info;
    memcpy(*(void**)args[2], *(void**)args[1], (size_t)n * 2);
}
EOF
cc -std=c99 -shared -fPIC -I"$ROOT" ref.c -o ref.so || { echo "0 passed, 1 failed"; exit 1; }
RUN="$A run k.hip --kernel copy --grid cdiv(n,64) --block 64 --arg n=i32:6"
CPU="--cpu ref.so:copy_cpu"

# --- good paths ---
expect "run: range into a 2x3 .npy (shape, dtype) and raw .bin" 0 "wrote y.bin" -- \
  $RUN --arg x=in:f32[2x3]:range --arg y=out:f32[2,3]:zeros $CPU --out y=y.npy --out 2=y.bin
if head -c 128 y.npy | grep -q "'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" && [ "$(stat -c %s y.npy)" = 152 ] &&
   [ "$(od -An -tf4 -v y.bin | xargs)" = "0 1 2 3 4 5" ]; then ok "y.npy header (2, 3) <f4, y.bin holds 0..5"; else bad "y.npy header (2, 3) <f4, y.bin holds 0..5"; fi
expect "run: @y.npy and @y.bin as inputs" 0 "wrote z.bin" -- \
  $RUN --arg x=in:f32[6]:@y.npy --arg y=f32[6]:@y.bin $CPU --out y=z.bin
cmp -s y.bin z.bin && ok "the .npy input round-trips" || bad "the .npy input round-trips"
expect "run: bf16 .npy output is widened to <f4" 0 "wrote b.npy" -- \
  $A run k.hip --kernel copy16 --grid 1 --block 64 --arg n=i32:5 --arg x=in:bf16[5]:range --arg y=bf16[5]:zeros --cpu ref.so:copy16_cpu --out y=b.npy
if head -c 128 b.npy | grep -q "'descr': '<f4'.*'shape': (5,)" && [ "$(tail -c 20 b.npy | od -An -tf4 -v | xargs)" = "0 1 2 3 4" ]; then
  ok "bf16 .npy holds 0..4 as f32"; else bad "bf16 .npy holds 0..4 as f32"; fi

# --- argument spec errors: exit 2, message names the problem ---
expect "unknown type" 2 "unknown type 'f33'" -- $RUN --arg x=f33[6]:rand --arg y=f32[6]:zeros $CPU
expect "scalar of a buffer-only type" 2 "buffer type" -- $RUN --arg x=f16:1 --arg y=f32[6]:zeros $CPU
expect "missing dims" 2 "expected \[DIMS\]" -- $RUN --arg "x=f32[:rand" --arg y=f32[6]:zeros $CPU
expect "zero dimension" 2 "integers >= 1" -- $RUN --arg "x=f32[0]:rand" --arg y=f32[6]:zeros $CPU
expect "huge buffer" 2 "over 2\^40|over 1 TiB" -- $RUN --arg "x=f32[1048576x1048576x16]:rand" --arg y=f32[6]:zeros $CPU
expect "unknown initial value" 2 "unknown initial value" -- $RUN --arg x=f32[6]:random --arg y=f32[6]:zeros $CPU
expect "i32 out of range" 2 "out of range for i32" -- $A run k.hip --kernel copy --grid 1 --block 1 --arg n=i32:4294967296 --arg x=f32[6]:rand --arg y=f32[6]:zeros $CPU
expect "i32 needs an integer" 2 "needs an integer" -- $A run k.hip --kernel copy --grid 1 --block 1 --arg n=i32:1.5 --arg x=f32[6]:rand --arg y=f32[6]:zeros $CPU
expect "unknown name in an expression" 2 "unknown name 'm'" -- $RUN --arg x=f32[m]:rand --arg y=f32[6]:zeros $CPU
expect "name used before it is defined" 2 "unknown name 'n'" -- $A run k.hip --kernel copy --grid 1 --block 1 --arg x=f32[n]:rand --arg n=i32:6 --arg y=f32[6]:zeros $CPU
expect "division by zero in --grid" 2 "division by zero" -- $A run k.hip --kernel copy --grid 'n/0' --block 64 --arg n=i32:6 --arg x=f32[6]:rand --arg y=f32[6]:zeros $CPU
expect "expression syntax" 2 "missing '\)'" -- $A run k.hip --kernel copy --grid '(n+1' --block 64 --arg n=i32:6 --arg x=f32[6]:rand --arg y=f32[6]:zeros $CPU
expect "two arguments with one name" 2 "two arguments are named 'x'" -- $RUN --arg x=f32[6]:rand --arg x=f32[6]:zeros $CPU
expect "--out of an unknown argument" 2 "no buffer argument" -- $RUN --arg x=f32[6]:rand --arg y=f32[6]:zeros $CPU --out q=q.bin
expect "run --help: usage, exit 0" 0 "usage: amdkit run FILE.hip" -- $A run --help
expect "bench with nothing: usage, exit 2" 2 "usage: amdkit bench" -- $A bench
expect "missing --kernel" 2 "are required" -- $A run k.hip --grid 1 --block 1 --arg n=i32:6
expect "unknown option" 2 "unknown or misplaced argument '--bogus'" -- $RUN --bogus
expect "bench option given to run" 2 "unknown or misplaced argument '--trials'" -- $RUN --trials 3

# --- input files, libraries, backends: exit 1 ---
head -c 20 /dev/zero > short.bin
expect "@file of the wrong size" 1 "has 20 bytes; f32\[6 elements\] needs exactly 24" -- $RUN --arg x=f32[6]:@short.bin --arg y=f32[6]:zeros $CPU
expect "@file.npy of another dtype" 1 "the argument wants 6 of '<f8'" -- $RUN --arg x=f64[6]:@y.npy --arg y=f32[6]:zeros $CPU
expect "@missing file" 1 "cannot read nothere.bin" -- $RUN --arg x=f32[6]:@nothere.bin --arg y=f32[6]:zeros $CPU
expect "--cpu library missing" 1 "cannot load ./nolib.so" -- $RUN --arg x=f32[6]:rand --arg y=f32[6]:zeros --cpu nolib.so:f
expect "--cpu function missing" 1 "has no function 'nofunc'" -- $RUN --arg x=f32[6]:rand --arg y=f32[6]:zeros --cpu ref.so:nofunc
BACKEND=$("$A" info 2>/dev/null | sed -n 's/^backend: //p')
if [ "$BACKEND" = cpu ]; then
  expect "cpu backend without --cpu says what to do" 1 "pass --cpu LIB.so:FUNCTION" -- $RUN --arg x=f32[6]:rand --arg y=f32[6]:zeros
fi

# --- bench ---
expect "bench --json" 0 "wrote b.json" -- $A bench k.hip --kernel copy --grid 'cdiv(n,64)' --block 64 --arg n=i32:1000 \
  --arg x=in:f32[n]:rand --arg y=out:f32[n]:zeros $CPU --trials 5 --warmup 1 --bytes '2*bytes(x)' --json b.json --name mycopy
grep -q '"name": "mycopy"' b.json && grep -q '"num_trials": 5,' b.json && ok "bench JSON: name and num_trials" || bad "bench JSON: name and num_trials"
grep -qE '"times": \[[0-9.]+(, [0-9.]+){4}\]' b.json && ok "bench JSON: the 5 trial times" || bad "bench JSON: the 5 trial times"
echo '{"nothing": 1}' > nomean.json
expect "--compare without a median" 1 "has no positive \"median\"" -- $A bench k.hip --kernel copy --grid 1 --block 64 --arg n=i32:6 \
  --arg x=f32[6]:rand --arg y=f32[6]:zeros $CPU --trials 2 --compare nomean.json
# a record whose mean (1.5) is far from its median (about 1.0): the ratio is of the medians, with an interval
python3 - <<'PY'
import json
t = [1.0] * 30 + [1.0 + i / 1000.0 for i in range(40)]
json.dump({"name": "a", "median": 1.01, "mean": 1.5, "times": sorted(t)[:-1] + [40.0]}, open("same_a.json", "w"))
PY
expect "--compare: medians with a 95% interval" 0 "speedup vs same_a.json: [0-9.]+x \(its median 1.00[0-9]+ ms / this median [0-9.]+ ms\), 95% interval \[[0-9.]+, [0-9.]+\]" -- \
  $A bench k.hip --kernel copy --grid 'cdiv(n,64)' --block 64 --arg n=i32:1000 --arg x=in:f32[n]:rand --arg y=out:f32[n]:zeros \
  $CPU --trials 20 --warmup 1 --compare same_a.json
echo '{"median": 2.0}' > notimes.json
expect "--compare without trial times: no interval, says why" 0 "no interval \(the other record has under 5 trial times\)" -- \
  $A bench k.hip --kernel copy --grid 1 --block 64 --arg n=i32:6 --arg x=f32[6]:rand --arg y=f32[6]:zeros $CPU --trials 5 \
  --compare notimes.json
A_MED=$(python3 -c "import json; print(json.load(open('b.json'))['median'])")
expect "--compare of a record with itself: 1.000x, no difference" 0 "speedup vs b.json: [0-9.]+x .*interval .*: (no difference these trials can show|faster|slower)" -- \
  $A bench k.hip --kernel copy --grid 'cdiv(n,64)' --block 64 --arg n=i32:1000 --arg x=in:f32[n]:rand --arg y=out:f32[n]:zeros \
  $CPU --trials 5 --warmup 1 --compare b.json
if [ "$BACKEND" = cpu ]; then
  expect "cpu backend: bench says it timed the C implementation" 0 "cpu backend: these are timings of the C implementation" -- \
    $A bench k.hip --kernel copy --grid 1 --block 64 --arg n=i32:6 --arg x=f32[6]:rand --arg y=f32[6]:zeros $CPU --trials 2
fi
expect "--bytes with an unknown buffer" 2 "no buffer argument named 'q'" -- $A bench k.hip --kernel copy --grid 1 --block 64 --arg n=i32:6 \
  --arg x=f32[6]:rand --arg y=f32[6]:zeros $CPU --trials 2 --bytes 'bytes(q)'

# --- tune ---
TUNE="$A tune k.hip --kernel copy --grid cdiv(n,B) --block B --arg n=i32:1000 --arg x=in:f32[n]:rand --arg y=out:f32[n]:zeros $CPU --trials 2"
expect "tune: budget of 2 variants" 0 "tuned: 2 variants timed" -- $TUNE --tune B=32,64,128,256 --max-variants 2
expect "tune: a variant over 1024 threads is left out" 0 "left out: block \(2048,1,1\) has over 1024 threads" -- $TUNE --tune B=2048,64
if [ "$BACKEND" = cpu ]; then
  expect "tune, cpu backend: says the timings cannot choose" 0 "every variant runs the same C implementation" -- $TUNE --tune B=2048,64
  expect "tune, cpu backend: no choice stored, the same problem tunes again" 0 "tuned: 1 variants timed, 0 rejected, of 2 in the space; not stored \(cpu backend\)" -- $TUNE --tune B=2048,64
else
  expect "tune: same problem again is a stored choice" 0 "from the stored choice: 0 variants timed" -- $TUNE --tune B=2048,64
fi
expect "tune: --retune times again" 0 "tuned: 1 variants timed" -- $TUNE --tune B=2048,64 --retune
expect "tune: another --shape-key tunes again" 0 "tuned: 1 variants timed" -- $TUNE --tune B=2048,64 --shape-key other
expect "tune: no --tune" 2 "at least one --tune" -- $A tune k.hip --kernel copy --grid 1 --block 1 --arg n=i32:6
expect "tune: bad --tune" 2 "expected NAME=V1,V2" -- $TUNE --tune B
expect "tune: bad parameter name" 1 "is not a macro name" -- $TUNE --tune 9B=1,2
expect "tune: every variant left out" 1 "no variant to try" -- $TUNE --tune B=2048,4096

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
