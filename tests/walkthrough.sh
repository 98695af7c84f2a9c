#!/usr/bin/env bash
# The README's "Prototype a kernel" walkthrough, run exactly as written: every
# ```sh block between <!-- walkthrough:begin --> and <!-- walkthrough:end -->,
# in order, in one shell, with HOME pointed at a fresh folder (so `make install
# PREFIX=$HOME/.local` and the default compile cache land there). Then checks
# what the walkthrough promises:
#   - the installed amdkit, amdkit.h, kernels and amdkit.pc are in place, and the
#     commands ran from a directory outside the repository;
#   - run checked the kernel against C (on a GPU: PASSED) and wrote y.npy;
#   - bench printed mean/median and GB/s, its JSON has the KernelBench-style
#     fields, --compare printed a speedup;
#   - the second `amdkit tune` timed nothing and chose the same variant (on the
#     cpu backend: both say the timings cannot choose and store no choice);
#   - make uninstall removes what make install put there.
# On a GPU (not the cpu backend) it also checks that a wrong kernel fails the
# check with exit status 1, and loads y.npy with NumPy when NumPy is there.
# Backend: whatever AUTO picks (make test sets AMDKIT_BACKEND=cpu).
# Prints `N passed, N failed` last.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
T=${WALK_TMP:-$ROOT/build/walkthrough}
rm -rf "$T"
mkdir -p "$T/home"
passed=0; failed=0
ok()   { passed=$((passed+1)); echo "  ok   $1"; }
bad()  { failed=$((failed+1)); echo "  FAIL $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

awk '/<!-- walkthrough:begin -->/{on=1; next} /<!-- walkthrough:end -->/{on=0}
     on && /^```sh$/{inb=1; next} inb && /^```$/{inb=0; next} on && inb{print}' README.md > "$T/walkthrough.sh"
check "README has the walkthrough" test -s "$T/walkthrough.sh"
check "walkthrough has run, bench and two tune commands" \
  bash -c "grep -q '^amdkit run ' '$T/walkthrough.sh' && grep -q '^amdkit bench ' '$T/walkthrough.sh' && [ \$(grep -c '^amdkit tune ' '$T/walkthrough.sh') = 2 ]"

# a machine without pkg-config (some GPU hosts): a stand-in that reads amdkit.pc, said so in the log
REAL_PKGCONFIG=1
if ! command -v pkg-config >/dev/null 2>&1; then
  REAL_PKGCONFIG=0
  mkdir -p "$T/bin"
  cat > "$T/bin/pkg-config" <<'PC'
#!/bin/sh
# stand-in for pkg-config --cflags/--libs amdkit (this machine has no pkg-config)
pc=""; for d in $(echo "$PKG_CONFIG_PATH" | tr ':' ' '); do [ -f "$d/amdkit.pc" ] && pc="$d/amdkit.pc" && break; done
[ -n "$pc" ] || { echo "pkg-config stand-in: amdkit.pc not found" >&2; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc"); out=""
for a in "$@"; do
  case "$a" in
    --cflags) out="$out $(sed -n 's/^Cflags: //p' "$pc" | sed "s|\${includedir}|$prefix/include|")" ;;
    --libs) out="$out $(sed -n 's/^Libs: //p' "$pc")" ;;
  esac
done
echo $out
PC
  chmod +x "$T/bin/pkg-config"
  export PATH="$T/bin:$PATH"
  echo "  (no pkg-config on this machine: the walkthrough uses a stand-in reading amdkit.pc)"
fi
# as a user would: fresh HOME, default cache, from the repository root
( export HOME="$T/home"; unset AMDKIT_CACHE_DIR XDG_CACHE_HOME; cd "$ROOT" || exit 1; set -e -x; . "$T/walkthrough.sh" ) > "$T/log" 2>&1
rc=$?
check "walkthrough commands all succeed (log: $T/log)" test $rc -eq 0
[ $rc -eq 0 ] || tail -n 30 "$T/log" | sed 's/^/       /'
P=$T/home/.local
W=$T/home/proto
check "installed: bin/amdkit, include/amdkit.h, share/amdkit/kernels, lib/pkgconfig/amdkit.pc" \
  test -x "$P/bin/amdkit" -a -f "$P/include/amdkit.h" -a -f "$P/share/amdkit/kernels/elementwise.hip" -a -f "$P/lib/pkgconfig/amdkit.pc"
[ $REAL_PKGCONFIG = 1 ] && check "pkg-config gives -I<prefix>/include -ldl -lpthread -lm" \
  bash -c "[ \"\$(PKG_CONFIG_PATH='$P/lib/pkgconfig' pkg-config --cflags --libs amdkit | xargs)\" = '-I$P/include -ldl -lpthread -lm' ]"
check "the commands used the installed amdkit outside the repository" \
  bash -c "grep -Eq '^\++ cd $T/home/proto$' '$T/log' && grep -Eq '^\++ amdkit tune ' '$T/log' && cd / && HOME='$T/home' '$P/bin/amdkit' info > /dev/null"
backend=$(HOME="$T/home" "$P/bin/amdkit" info 2>/dev/null | sed -n 's/^backend: //p')
echo "  (backend: ${backend:-?})"
if [ "$backend" = "cpu" ]; then
  check "run: the C version ran (cpu backend)" grep -q "check: cpu backend, the C implementation ran" "$T/log"
else
  check "run: checked against C and PASSED" grep -q "check vs saxpy_cpu.so:saxpy_cpu: PASSED" "$T/log"
fi
check "run wrote y.npy (NumPy magic, <f4, 4194304 elements)" \
  bash -c "head -c 6 '$W/y.npy' | grep -q NUMPY && head -c 128 '$W/y.npy' | grep -q \"'descr': '<f4'.*'shape': (4194304,)\" && [ \$(stat -c %s '$W/y.npy') = \$((128 + 4*4194304)) ]"
check "bench printed mean/median and GB/s" bash -c "grep -q 'median .* ms  mean' '$T/log' && grep -q 'GB/s' '$T/log' && grep -q 'TFLOP/s' '$T/log'"
check "bench JSON has mean std min max num_trials hardware device" \
  bash -c "for k in mean std min max num_trials hardware device median gbps; do grep -q \"\\\"\$k\\\": \" '$W/block256.json' || exit 1; done"
check "bench --compare printed a speedup" grep -q "speedup vs block256.json: [0-9.]*x" "$T/log"
chosen=$(grep '^chosen: ' "$T/log")
check "tune chose twice" test "$(echo "$chosen" | wc -l)" = 2
if [ "$backend" = "cpu" ]; then
  # the cpu backend times the same C function for every variant: it says so, stores nothing, the second tune times again
  check "cpu backend: tune says the timings cannot choose and stores no choice" \
    bash -c "grep -q 'every variant runs the same C implementation' '$T/log' && [ \$(grep -c '^tuned: [1-9][0-9]* variants timed.*not stored (cpu backend)' '$T/log') = 2 ]"
else
  check "second tune chose the same variant" test "$(echo "$chosen" | sed -n 1p | cut -d' ' -f2-)" = "$(echo "$chosen" | sed -n 2p | cut -d' ' -f2-)"
  check "first tune timed variants and stored the choice, second timed nothing" \
    bash -c "grep -q '^tuned: [1-9][0-9]* variants timed.*choice stored' '$T/log' && grep -q '^from the stored choice: 0 variants timed' '$T/log' && \
             [ \$(grep -c '^  \[[0-9]*/[0-9]*\] variant' '$T/log') -ge 1 ] && \
             awk '/^chosen: /{n++} n==1 && /^  \[[0-9]+\/[0-9]+\] variant/{bad=1} END{exit bad}' '$T/log'"
fi

if [ -n "$backend" ] && [ "$backend" != "cpu" ]; then
  ( export HOME="$T/home" PATH="$P/bin:$PATH"; cd "$W" &&
    sed 's/a \* x\[i\] + y\[i\]/a * x[i] - y[i]/' saxpy.hip > wrong.hip &&
    amdkit run wrong.hip --kernel saxpy --grid 'cdiv(n,256)' --block 256 --arg n=i32:100003 --arg a=f32:2.5 \
      --arg x=in:f32[n]:rand --arg y=f32[n]:rand --cpu saxpy_cpu.so:saxpy_cpu ) > "$T/wrong.log" 2>&1
  rc=$?
  check "GPU: a wrong kernel fails the check (exit 1, worst element named)" \
    bash -c "[ $rc = 1 ] && grep -q 'FAILED  max abs error .* worst at y\[' '$T/wrong.log'"
  if python3 -c "import numpy" 2>/dev/null; then
    check "GPU: y.npy loads with NumPy and matches a*x+y's shape" \
      python3 -c "import numpy as np; y = np.load('$W/y.npy'); assert y.shape == (4194304,) and y.dtype == np.float32 and np.isfinite(y).all()"
  fi
fi

( cd "$ROOT" && make -s uninstall PREFIX="$P" ) > "$T/uninstall.log" 2>&1
check "make uninstall removes amdkit, amdkit.h, the kernels and amdkit.pc" \
  bash -c "! [ -e '$P/bin/amdkit' ] && ! [ -e '$P/include/amdkit.h' ] && ! [ -e '$P/share/amdkit' ] && ! [ -e '$P/lib/pkgconfig/amdkit.pc' ]"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
