#!/usr/bin/env bash
# The real ROCm 6.4 hipRTC (Debian sid's libhiprtc6 / libamdhip64-6 / comgr 3)
# in a chroot, since those packages need sid's glibc:
#   tests/check_rocm64.sh BUILD_DIR
# 1. creates the chroot, or reuses it when complete (a stamp file), outside
#    the clone: $AMDKIT_ROCM64_CHROOT, default /var/cache/amdkit/rocm64-sid;
#    debootstrap --variant=minbase from the mirror the host's apt already uses
#    (/etc/apt/sources.list, /etc/apt/sources.list.d/*.list|*.sources), then
#    libamdhip64-dev (ROCm 6.4 headers), llvm-21 (llvm-objdump-21) and
#    rocm-device-libs-21 inside;
# 2. copies amdkit's binaries in (BUILD_DIR/ak_compile_matrix, amdkit,
#    ak_symbols, the ISA scripts) and, inside, compiles every embedded kernel
#    family for every AMD row of the architecture table that the loaded comgr
#    lists, through ak_compile_offline on libhiprtc.so.6 (2 processes), and
#    prints the family x target table; the targets in $REQUIRED must all be ok;
# 3. the ISA checks (tests/isa_check.sh) on every code object, and a planted
#    wrong AK_WAVE that they must catch;
# 4. the ROCm 6.4 side of the runtime: `nm -D` finds every symbol amdkit
#    resolves in libamdhip64.so.6 / libhiprtc.so.6 / libamd_comgr.so.3, the
#    prototypes type-check against the ROCm 6.4 headers (R0600 gcnArchName
#    offset), `amdkit info` loads the hip backend there and says why there is
#    no device, and `amdkit compile` rejects a kernel name the code object
#    lacks.
# Exit 77 (skipped) with the reason on the last line when it cannot run (not
# root, no debootstrap, no mirror or network); tests/run_all.sh makes a skip a
# failure on CI (CI=true). Else "N passed, N failed" last.
set -u
B=${1:-build}
B=$(cd "$B" && pwd)
mkdir -p "$B/logs"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${AMDKIT_ROCM64_CHROOT:-/var/cache/amdkit/rocm64-sid}
STAMP="$ROOT/.amdkit-rocm64-complete"
BOOT_PKGS="libhiprtc6,libamdhip64-6,libhiprtc-builtins6"
EXTRA_PKGS="libamdhip64-dev llvm-21 rocm-device-libs-21"
REQUIRED=${AMDKIT_ROCM64_REQUIRED:-gfx906,gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1031,gfx1032,gfx1034,gfx1035,gfx1036,gfx1100,gfx1101,gfx1102,gfx1103,gfx1150,gfx1151,gfx1152,gfx1200,gfx1201}
APT="apt-get -o Acquire::Check-Valid-Until=false -o Dpkg::Use-Pty=0 -qq"
skip() { echo "rocm64: SKIPPED: $*"; echo "skipped: $*"; exit 77; }
t0=$(date +%s)

# --- the mirror the host's apt uses (never a host name written here) --------
host_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i+1) !~ /security/ && $i !~ /security/) print $i; break } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822 stanzas: the URIs of a "Types: deb" stanza whose suites are not -security
    awk 'BEGIN { RS = ""; FS = "\n" }
         { t = ""; u = ""; s = ""
           for (i = 1; i <= NF; i++) {
             if ($i ~ /^Types:/) t = $i; else if ($i ~ /^URIs:/) u = $i; else if ($i ~ /^Suites:/) s = $i }
           if (t ~ /(^|[ \t])deb([ \t]|$)/ && s !~ /security/ && u !~ /security/) { sub(/^URIs:[ \t]*/, "", u); split(u, a, /[ \t]+/); print a[1] } }' "$f"
  done
}

# --- create or reuse the chroot ----------------------------------------------
ensure_chroot() {
  if [ -f "$STAMP" ]; then echo "rocm64: reusing $ROOT ($(cat "$STAMP"))"; return 0; fi
  [ "$(id -u)" = 0 ] || skip "not root: creating the ROCm 6.4 chroot at $ROOT needs root (debootstrap, chroot)"
  command -v debootstrap >/dev/null 2>&1 || skip "debootstrap is not installed (tests/deps.sh installs it as root)"
  command -v chroot >/dev/null 2>&1 || skip "chroot is not available"
  local mirror
  mirror=$(host_mirror | head -n 1)
  [ -n "$mirror" ] || skip "no Debian mirror found in the host's apt sources (/etc/apt/sources.list, sources.list.d)"
  mkdir -p "$(dirname "$ROOT")" || skip "cannot create $(dirname "$ROOT")"
  if [ ! -x "$ROOT/usr/bin/apt-get" ] || [ ! -e "$ROOT/usr/lib/x86_64-linux-gnu/libhiprtc.so.6" ]; then
    echo "rocm64: debootstrap sid from $mirror into $ROOT.tmp (about 1 minute, 650 MB)"
    rm -rf "$ROOT.tmp"
    if ! debootstrap --variant=minbase --include="$BOOT_PKGS" sid "$ROOT.tmp" "$mirror" > "$B/logs/rocm64-debootstrap.log" 2>&1; then
      tail -n 5 "$B/logs/rocm64-debootstrap.log"
      rm -rf "$ROOT.tmp"
      skip "debootstrap of sid from $mirror failed (no network to the mirror?): see $B/logs/rocm64-debootstrap.log"
    fi
    rm -rf "$ROOT"
    mv "$ROOT.tmp" "$ROOT"
  fi
  echo "rocm64: installing $EXTRA_PKGS inside"
  # sid's Release file is past its Valid-Until date on snapshot mirrors: hence Check-Valid-Until=false
  if ! chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive LC_ALL=C sh -c "$APT update && $APT install -y --no-install-recommends $EXTRA_PKGS" \
       > "$B/logs/rocm64-apt.log" 2>&1; then
    tail -n 5 "$B/logs/rocm64-apt.log"
    skip "apt-get install $EXTRA_PKGS inside $ROOT failed: see $B/logs/rocm64-apt.log"
  fi
  echo "sid, $(chroot "$ROOT" dpkg-query -W -f '${Package} ${Version}, ' libhiprtc6 libamdhip64-dev llvm-21 2>/dev/null)created $(date -u +%F)" > "$STAMP"
}

mkdir -p "$(dirname "$ROOT")" 2>/dev/null
exec 9> "${ROOT}.lock" 2>/dev/null || { mkdir -p "$(dirname "$ROOT")" 2>/dev/null; exec 9> "${ROOT}.lock" 2>/dev/null; } ||
  { [ -f "$STAMP" ] || skip "cannot create $ROOT.lock (not root?): the ROCm 6.4 chroot does not exist yet"; }
command -v flock >/dev/null 2>&1 && flock 9
ensure_chroot
[ "$(id -u)" = 0 ] || skip "not root: running binaries inside the chroot $ROOT needs root (chroot)"
t1=$(date +%s)

# --- copy amdkit in ------------------------------------------------------------
for f in ak_compile_matrix ak_symbols ak_launch_plans amdkit; do [ -x "$B/$f" ] || { echo "rocm64: $B/$f is missing (make all $B/ak_compile_matrix $B/ak_symbols $B/ak_launch_plans)"; echo "0 passed, 1 failed"; exit 1; }; done
W=/tmp/amdkit-rocm64.$$
HW="$ROOT$W"
trap 'rm -rf "$HW"' EXIT
mkdir -p "$HW/isa" "$HW/out" "$HW/planted" "$HW/src"
cp "$B/ak_compile_matrix" "$B/ak_symbols" "$B/amdkit" "$HERE/isa_lib.sh" "$HERE/isa_check.sh" "$HERE/launch_plan_check.sh" "$HERE/one_kernel_check.sh" "$HW/"
cp "$HERE"/isa/*.sh "$HERE"/isa/*.txt "$HERE"/isa/*.awk "$HW/isa/" 2>/dev/null
"$B/amdkit" kernels --dump "$HW/src" > /dev/null
# AMD_COMGR_CACHE=0: real compiles every time (the times in the table are compile times, as on a fresh CI machine)
in_chroot() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LC_ALL=C AMD_COMGR_CACHE=0 AMDKIT_CACHE_DIR="$W/cache" "$@"; }
pass=0; fail=0
check() { # name, then the command; its output goes to the log
  local name=$1; shift
  if "$@"; then pass=$((pass+1)); echo "  ok   $name"; else fail=$((fail+1)); echo "  FAIL $name"; fi
}

echo "== ROCm 6.4 (chroot $ROOT): every embedded kernel family x every AMD target comgr lists (ak_compile_offline, hipRTC)"
# (developers: AMDKIT_ROCM64_ARCH=gfx90a,gfx1100 AMDKIT_ROCM64_FAMILY=reduce AMDKIT_ROCM64_REQUIRED=gfx90a for a quick run)
in_chroot "$W/ak_compile_matrix" --out "$W/out" --jobs 2 --require "$REQUIRED" --arch "${AMDKIT_ROCM64_ARCH:-amd}" \
  ${AMDKIT_ROCM64_FAMILY:+--family "$AMDKIT_ROCM64_FAMILY"} > "$HW/matrix.txt" 2>&1; rc=$?
cat "$HW/matrix.txt"
cp "$HW/matrix.txt" "$B/rocm64-matrix.txt" 2>/dev/null
check "rocm64 compile matrix (required: $REQUIRED)" [ $rc -eq 0 ]
t2=$(date +%s)

echo "== ISA checks (llvm-objdump-21): wave size, AK_WAVE marker, exec/vcc width, shuffle lowering, tests/isa/<family>.sh"
in_chroot bash "$W/isa_check.sh" "$W/out" "$W/src" > "$HW/isa.txt" 2>&1; rc=$?
cat "$HW/isa.txt"
check "rocm64 ISA checks" [ $rc -eq 0 ]
# the code objects, their metadata and the matrix families' disassembly stay in the build folder
# (tools/amd_isa_table.py reads them)
rm -rf "$B/rocm64-co"; mkdir -p "$B/rocm64-co"
cp "$HW"/out/*.co "$HW"/out/*.txt "$HW"/out/*.meta "$B/rocm64-co/" 2>/dev/null
cp "$HW"/out/gemm*.s "$HW"/out/attention_mma.*.s "$B/rocm64-co/" 2>/dev/null

echo "== launch plans: every launch the ops would make per target (build/ak_launch_plans, from the planners) vs the code objects"
plans_check() {
  # --coverage on the full run: every kernel of the embedded families is launched by some plan (or named as never planned)
  local cov=""
  [ -z "${AMDKIT_ROCM64_ARCH:-}" ] && cov=--coverage
  "$B/ak_launch_plans" --arch "${AMDKIT_ROCM64_ARCH:-amd}" $cov > "$HW/plans.txt" 2> "$HW/plans.err" || { sed 's/^/    /' "$HW/plans.err"; return 1; }
  sed 's/^/    /' "$HW/plans.err"
  cp "$HW/plans.txt" "$B/rocm64-plans.txt" 2>/dev/null
  in_chroot bash "$W/launch_plan_check.sh" "$W/plans.txt" "$W/out" rocm6.4 > "$HW/plans-check.txt" 2>&1; local rc=$?
  sed 's/^/  /' "$HW/plans-check.txt"
  return $rc
}
check "launch plans within .max_flat_workgroup_size, LDS, wave size, no scratch (tests/launch_plan_check.sh)" plans_check
check "planted launch-plan mismatches caught (block, LDS, wave)" in_chroot bash "$W/launch_plan_check.sh" --plant "$W/plans.txt" "$W/out" rocm6.4
one_kernel() {
  # a kernel of each family compiled alone (-DAK_KSEL), as a first call on the device compiles it, vs the whole family
  local t=${AMDKIT_ROCM64_ONE:-gfx942,gfx1100}
  in_chroot bash "$W/one_kernel_check.sh" "$W/ak_compile_matrix" "$W/plans.txt" "$W/out" "$t" "$W/src" "$W/one" > "$HW/one-kernel.txt" 2>&1; local rc=$?
  sed 's/^/  /' "$HW/one-kernel.txt"
  return $rc
}
[ -s "$HW/plans.txt" ] && check "one-kernel programs match their families' kernels (tests/one_kernel_check.sh)" one_kernel

echo "== a planted wrong AK_WAVE (64 on wave32 gfx1100, 32 on wave64 gfx90a) must be caught"
planted_caught() {
  local a=$1 w=$2 d="$W/planted/$1"
  in_chroot "$W/ak_compile_matrix" --out "$d" --family reduce --arch "$a" -UAK_WAVE -DAK_WAVE=$w > "$HW/planted-$a.txt" 2>&1 || { cat "$HW/planted-$a.txt"; return 1; }
  if in_chroot bash "$W/isa_check.sh" "$d" "$W/src" > "$HW/planted-isa-$a.txt" 2>&1; then
    echo "    NOT caught: AK_WAVE=$w on $a passed the ISA check"; return 1
  fi
  grep -E "FAIL" "$HW/planted-isa-$a.txt" | head -n 2 | cut -c1-200 | sed 's/^/    caught: /'
  grep -q "built with AK_WAVE=$w" "$HW/planted-isa-$a.txt"
}
check "planted AK_WAVE=64 on gfx1100 caught" planted_caught gfx1100 64
check "planted AK_WAVE=32 on gfx90a caught" planted_caught gfx90a 32

echo "== nm -D: every symbol amdkit resolves exists in the ROCm 6.4 libraries"
nm_check() {
  local lib sym req file missing=0 L=/usr/lib/x86_64-linux-gnu
  while read -r lib sym req; do
    case $lib in hip) file=$L/libamdhip64.so.6 ;; hiprtc) file=$L/libhiprtc.so.6 ;; comgr) file=$L/libamd_comgr.so.3 ;; *) continue ;; esac
    # the host's nm reads the chroot's libraries (minbase sid has no binutils)
    if ! nm -D --defined-only "$ROOT$file" | awk '{print $NF}' | sed 's/@.*//' | grep -qx "$sym"; then
      [ "$req" = required ] && { echo "    missing: $sym in $file ($req)"; missing=$((missing+1)); } || echo "    absent (optional): $sym in $file"
    fi
  done < <("$B/ak_symbols")
  echo "    $(("$B/ak_symbols") | grep -cE '^(hip|hiprtc|comgr) ') symbols checked, $missing required missing"
  [ $missing -eq 0 ]
}
check "nm -D libamdhip64.so.6 libhiprtc.so.6 libamd_comgr.so.3" nm_check

echo "== the hip backend's load path on ROCm 6.4 (no GPU here)"
info_check() {
  in_chroot "$W/amdkit" info > "$HW/info.txt" 2>&1
  grep -E "^  (hip|cuda|cpu) |compiler|found via" "$HW/info.txt" | sed 's/^/    /'
  grep -qE "libamdhip64\.so\.6" "$HW/info.txt" && grep -qiE "no device|no ROCm-capable device" "$HW/info.txt" &&
    grep -qE "compiler +hipRTC 6\.4\.[0-9]+ .*libhiprtc\.so\.6" "$HW/info.txt" && grep -q "found via" "$HW/info.txt"
}
check "amdkit info loads libamdhip64.so.6, reports hipRTC 6.4 from libhiprtc.so.6, says why there is no device" info_check

echo "== a kernel name that is not in the code object is an error"
nope_check() {
  cp "$HERE/../kernels/elementwise.hip" "$HW/elementwise.hip"
  if in_chroot "$W/amdkit" compile "$W/elementwise.hip" --kernel ak_no_such_kernel --arch gfx942 > "$HW/nope.txt" 2>&1; then
    sed 's/^/    /' "$HW/nope.txt"; echo "    amdkit compile --kernel ak_no_such_kernel succeeded"; return 1
  fi
  sed 's/^/    /' "$HW/nope.txt" | cut -c1-220 | head -n 2
  grep -q "AK_ERROR_NOT_FOUND: kernel 'ak_no_such_kernel' is not in the code object" "$HW/nope.txt"
}
check "amdkit compile --kernel ak_no_such_kernel fails (gfx942, ROCm 6.4)" nope_check

echo "== prototypes and struct offsets against the ROCm 6.4 headers"
typecheck_check() {
  # the host's gcc and libc headers, ROCm 6.4's hip/ headers (found first through -I)
  rm -rf "$B/rocm64-inc"; mkdir -p "$B/rocm64-inc"
  ln -s "$ROOT/usr/include/hip" "$B/rocm64-inc/hip"
  grep -h "define HIP_VERSION_[MP]" "$ROOT/usr/include/hip/hip_version.h" | awk '{printf "    %s %s\n", $2, $3}'
  gcc -D_GNU_SOURCE -std=c99 -Wall -Wextra -Werror -Wno-unused-function -I "$B/rocm64-inc" \
      -c "$HERE/typecheck_hip.c" -o /dev/null 2>&1 | head -n 20
  [ "${PIPESTATUS[0]}" -eq 0 ] || return 1
  # the method catches a wrong prototype with these headers too
  ! gcc -D_GNU_SOURCE -DAK_TYPECHECK_EXPECT_FAIL -std=c99 -Wall -Wextra -Werror -Wno-unused-function -I "$B/rocm64-inc" \
      -c "$HERE/typecheck_hip.c" -o /dev/null 2>/dev/null
}
check "typecheck_hip.c against ROCm 6.4's hip_runtime_api.h/hiprtc.h (R0600 gcnArchName at 1160)" typecheck_check

t3=$(date +%s)
echo "rocm64: chroot $((t1-t0)) s, compile matrix $((t2-t1)) s, checks $((t3-t2)) s, total $((t3-t0)) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
