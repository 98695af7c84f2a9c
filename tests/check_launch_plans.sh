#!/usr/bin/env bash
# The launch-plan check against the host's ROCm 5.2 hipRTC (inside
# libamdhip64.so.5): every embedded kernel family compiled for gfx906, gfx908,
# gfx90a and gfx1030 (tests/ak_compile_matrix.c, compile cache in
# BUILD_DIR/cache-plans52, so only changed families recompile), every launch
# the ops would make there (build/ak_launch_plans) held to the code objects'
# metadata (tests/launch_plan_check.sh, label rocm5.2), and planted
# mismatches that must be caught; on the first target, a kernel of each family
# compiled alone as a first call on the device compiles it has its whole
# family's metadata (tests/one_kernel_check.sh). The ROCm 6.4 targets get the same check in
# tests/check_rocm64.sh.
#   tests/check_launch_plans.sh BUILD_DIR        prints "N passed, N failed" last
set -u
B=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
T=${AMDKIT_PLANS52_ARCH:-gfx906,gfx908,gfx90a,gfx1030}
pass=0; fail=0
check() { local name=$1; shift; if "$@"; then pass=$((pass+1)); echo "  ok   $name"; else fail=$((fail+1)); echo "  FAIL $name"; fi; }
for f in ak_compile_matrix ak_launch_plans; do
  [ -x "$B/$f" ] || { echo "check_launch_plans: $B/$f is missing (make $B/$f)"; echo "0 passed, 1 failed"; exit 1; }
done
O="$B/plans52"
rm -rf "$O"; mkdir -p "$O"
echo "== every family x $T (ROCm 5.2 hipRTC on the host)"
AMDKIT_CACHE_DIR="$B/cache-plans52" "$B/ak_compile_matrix" --out "$O/co" --jobs 2 --arch "$T" --require "$T" > "$O/matrix.txt" 2>&1; rc=$?
cat "$O/matrix.txt"
if [ $rc -ne 0 ] && grep -qiE "hipRTC.*not (found|available)|no hipRTC|cannot load" "$O/matrix.txt"; then
  echo "check_launch_plans: no ROCm 5.2 hipRTC on this host"; echo "0 passed, 1 failed"; exit 1
fi
check "compile matrix ($T)" [ $rc -eq 0 ]
echo "== launch plans (build/ak_launch_plans) vs the code objects"
"$B/ak_launch_plans" --arch "$T" > "$O/plans.txt" 2> "$O/plans.err"; rc=$?
cat "$O/plans.err"
check "ak_launch_plans --arch $T" [ $rc -eq 0 ]
check "launch plans within .max_flat_workgroup_size, LDS, wave size, no scratch" bash "$HERE/launch_plan_check.sh" "$O/plans.txt" "$O/co" rocm5.2
check "planted launch-plan mismatches caught (block, LDS, wave)" bash "$HERE/launch_plan_check.sh" --plant "$O/plans.txt" "$O/co" rocm5.2
echo "== a kernel compiled alone (-DAK_KSEL, what a first call on the device compiles) vs its whole family (tests/one_kernel_check.sh)"
check "one-kernel programs match their families' kernels (${T%%,*})" bash "$HERE/one_kernel_check.sh" "$B/ak_compile_matrix" "$O/plans.txt" "$O/co" "${T%%,*}" "$HERE/../kernels" "$O/one-kernel"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
