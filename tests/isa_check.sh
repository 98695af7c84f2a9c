#!/usr/bin/env bash
# ISA checks of AMD code objects: tests/isa_check.sh DIR [SRCDIR]
# DIR holds <family>.<target>.co, targets.txt ("<target> <wave>") and
# families.txt ("<family> <kernels...>"), as tests/ak_compile_matrix.c writes
# them; SRCDIR the family sources (`amdkit kernels --dump SRCDIR`).
# For every code object: every kernel of the family is in it, the wave size
# checks of tests/isa_lib.sh (metadata, the AK_WAVE marker, exec/vcc width,
# shuffle lowering where the family uses the prelude's cross-lane primitives),
# then the family's own rules from tests/isa/<family>.sh when that file exists,
# then: no scratch / spills in any kernel (a family's rules may set
# ISA_ALLOW_SCRATCH="why" to waive that).
# Needs llvm-objdump / llvm-readelf (ISA_LLVM_SUFFIX, default: the newest of
# -21, -20, -19, -18, -17, -15 found). Prints one line per code object and
# "N passed, N failed" last.
set -u
DIR=$1
SRC=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/isa_lib.sh"
if [ -z "${ISA_LLVM_SUFFIX+x}" ]; then
  ISA_LLVM_SUFFIX=""
  for v in 21 20 19 18 17 15; do command -v llvm-objdump-$v >/dev/null 2>&1 && { ISA_LLVM_SUFFIX=-$v; break; }; done
fi
OBJDUMP=llvm-objdump$ISA_LLVM_SUFFIX
READELF=llvm-readelf$ISA_LLVM_SUFFIX
command -v "$OBJDUMP" >/dev/null 2>&1 && command -v "$READELF" >/dev/null 2>&1 ||
  { echo "isa_check: $OBJDUMP / $READELF not found"; echo "0 passed, 1 failed"; exit 1; }
# one code object: prints its line ("  ok ..." / "  FAIL ...")
check_cell() { # FAMILY ARCH WAVE uses_shuffles names...
  local FAMILY=$1 ARCH=$2 WAVE=$3 uses_shuffles=$4; shift 4
  local names="$*" co="$DIR/$FAMILY.$ARCH.co" k nk xl
  ISA_S="$DIR/$FAMILY.$ARCH.s"; ISA_META="$DIR/$FAMILY.$ARCH.meta"; ISA_SYMS="$DIR/$FAMILY.$ARCH.syms"
  ISA_FAILS=""
  "$OBJDUMP" -d --mcpu="${ARCH%%:*}" "$co" > "$ISA_S" 2>&1 || isa_fail "$OBJDUMP -d failed"
  sed -e 's@//.*@@' "$ISA_S" | grep -E '^\s+[a-z]' > "$ISA_S.insn"; ISA_I="$ISA_S.insn"
  "$READELF" --notes "$co" > "$ISA_META" 2>&1 || isa_fail "$READELF --notes failed"
  "$OBJDUMP" -t "$co" > "$ISA_SYMS" 2>&1 || isa_fail "$OBJDUMP -t failed"
  isa_prepare || isa_fail "cannot split the disassembly into ${ISA_S}.k"
  for k in $names; do
    [ -f "${ISA_S}.k/$k.s" ] || isa_fail "kernel $k not in the code object"
  done
  # the family's own rules first: they may waive a common check with a reason
  # (ISA_NO_SHUFFLES="why": no cross-lane code on AMD; ISA_ALLOW_SCRATCH="why")
  ISA_ALLOW_SCRATCH=""; ISA_NO_SHUFFLES=""; ISA_NOTES=""
  if [ -f "$HERE/isa/$FAMILY.sh" ]; then . "$HERE/isa/$FAMILY.sh"; fi
  isa_wave "$WAVE"
  # kernels compiled empty on this target (a family whose code is #if'ed to other targets): no shuffles expected
  nk=$(echo $names | wc -w)
  [ -z "$ISA_NO_SHUFFLES" ] && [ "$(grep -cvE 's_nop|s_code_end' "$ISA_I")" -le $((4 * nk)) ] && ISA_NO_SHUFFLES="kernels are empty on $ARCH"
  [ "$uses_shuffles" = 1 ] && [ -z "$ISA_NO_SHUFFLES" ] && isa_wave_shuffles "$WAVE"
  [ -n "$ISA_ALLOW_SCRATCH" ] || isa_no_scratch
  rm -rf "${ISA_S}.k"
  if [ -z "$ISA_FAILS" ]; then
    xl=$(isa_body | grep -oE 'ds_bpermute_b32|ds_swizzle_b32|v_permlane[a-z0-9_]*' | sort | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}')
    echo "  ok   $ARCH $FAMILY: wave$WAVE, $(grep -cvE 's_nop|s_code_end' "$ISA_I") instructions${xl:+, cross-lane: $xl}${ISA_NO_SHUFFLES:+ (no shuffles: $ISA_NO_SHUFFLES)}${ISA_NOTES:+ (note:${ISA_NOTES#;})}"
  else
    echo "  FAIL $ARCH $FAMILY:${ISA_FAILS#;}"
  fi
}

# the code objects are checked ISA_JOBS at a time (default: the processors), printed in order
JOBS=${ISA_JOBS:-$(nproc 2>/dev/null || echo 2)}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/isa_check.XXXXXX") || { echo "isa_check: mktemp failed"; echo "0 passed, 1 failed"; exit 1; }
trap 'rm -rf "$TMPD"' EXIT
i=0
while read -r FAMILY names; do
  uses_shuffles=0
  if [ -n "$SRC" ] && [ -f "$SRC/$FAMILY.hip" ] &&
     sed -n '/^#line 1 /,$p' "$SRC/$FAMILY.hip" | grep -qE '\bak_(warp|block|group)_[a-z]+|\bak_shfl|\bak_ballot'; then
    uses_shuffles=1
  fi
  while read -r ARCH WAVE; do
    [ -f "$DIR/$FAMILY.$ARCH.co" ] || continue
    i=$((i+1))
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    check_cell "$FAMILY" "$ARCH" "$WAVE" "$uses_shuffles" $names > "$TMPD/$(printf '%05d' $i)" 2>&1 < /dev/null &
  done < "$DIR/targets.txt"
done < "$DIR/families.txt"
wait
pass=0; fail=0
for f in "$TMPD"/*; do
  [ -f "$f" ] || continue
  cat "$f"
  if grep -q '^  ok   ' "$f" && ! grep -q '^  FAIL ' "$f"; then pass=$((pass+1)); else fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
