#!/usr/bin/env bash
# What a first call compiles on the device against what the checks compile:
#   tests/one_kernel_check.sh MATRIX PLANS DIR TARGETS SRC OUT
# A family whose kernels start with AK_KONLY (kernels/prelude.hip) is compiled
# at run time a kernel at a time (amdkit.h _ak_op_kernel_ex adds
# -DAK_KSEL=<kernel>); the compile matrix, the launch-plan check and the ISA
# rules build it whole (DIR/<family>.<target>.co from MATRIX, the
# build/ak_compile_matrix binary). For each such family (SRC/<family>.hip: the
# kernels folder, or `amdkit kernels --dump`) and each of TARGETS (comma list),
# the first kernel PLANS (build/ak_launch_plans) launches on the target is
# compiled alone (MATRIX -DAK_KSEL=<kernel>, into OUT) and its
# metadata (llvm-readelf --notes through tests/isa/kernel_meta.awk:
# .max_flat_workgroup_size, .group_segment_fixed_size,
# .private_segment_fixed_size, .wavefront_size, .vgpr_spill_count,
# .vgpr_count, .sgpr_count) must equal the same kernel's in
# the whole family's code object, so the checks hold for the program a user
# runs; another kernel of the one-kernel program must be its trap alone (fewer VGPRs).
# Planted: the first checked kernel compiled under another kernel's AK_KSEL
# (its body a trap) must differ. Prints "N passed, N failed" last.
set -u
MATRIX=$1; PLANS=$2; DIR=$3; TARGETS=$4; SRC=$5; O=$6
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${ISA_LLVM_SUFFIX+x}" ]; then
  ISA_LLVM_SUFFIX=""
  for v in 21 20 19 18 17 15; do command -v llvm-readelf-$v >/dev/null 2>&1 && { ISA_LLVM_SUFFIX=-$v; break; }; done
fi
READELF=llvm-readelf$ISA_LLVM_SUFFIX
command -v "$READELF" >/dev/null 2>&1 || { echo "one_kernel_check: $READELF not found"; echo "0 passed, 1 failed"; exit 1; }
rm -rf "$O"; mkdir -p "$O"
pass=0; fail=0
# "<kernel> max_flat static_lds scratch wave spills vgpr sgpr" for every kernel of a code object
meta() { "$READELF" --notes "$1" 2>/dev/null | awk -f "$HERE/isa/kernel_meta.awk"; }
for T in ${TARGETS//,/ }; do
for src in "$SRC"/*.hip; do
  fam=$(basename "$src" .hip)
  # a family that puts its kernels under AK_KONLY (a dumped source starts with the prelude, which defines it)
  grep -v '^#define AK_KONLY' "$src" | grep -qE 'AK_KONLY\((NAME|ak_)' || continue
  [ "$fam" = prelude ] && continue
  whole="$DIR/$fam.$T.co"
  k=$(awk -v t="$T" -v f="$fam" '$1 == t && $4 == f { print $5; exit }' "$PLANS")
  if [ ! -f "$whole" ] || [ -z "$k" ]; then echo "  --   $T $fam: no whole code object or no launch there (not checked)"; continue; fi
  "$MATRIX" --out "$O/$fam.$T" --arch "$T" --family "$fam" "-DAK_KSEL=$k" > "$O/$fam.$T.log" 2>&1
  one="$O/$fam.$T/$fam.$T.co"
  if [ ! -f "$one" ]; then fail=$((fail+1)); echo "  FAIL $T $fam: $k alone did not compile"; tail -n 5 "$O/$fam.$T.log" | sed 's/^/       /'; continue; fi
  a=$(meta "$whole" | awk -v k="$k" '$1 == k'); b=$(meta "$one" | awk -v k="$k" '$1 == k')
  other=$(meta "$one" | awk -v k="$k" '$1 != k { print; exit }')
  whole_other=$(meta "$whole" | awk -v n="$(echo "$other" | awk '{print $1}')" '$1 == n')
  if [ -z "$a" ] || [ "$a" != "$b" ]; then
    fail=$((fail+1)); echo "  FAIL $T $fam: $k alone differs from the whole family's"; echo "       whole: $a"; echo "       alone: $b"
  elif [ -n "$other" ] && [ "$(echo "$other" | awk '{print $7}')" -ge "$(echo "$whole_other" | awk '{print $7}')" ] && \
       [ "$(echo "$whole_other" | awk '{print $7}')" -gt 8 ]; then
    fail=$((fail+1)); echo "  FAIL $T $fam: the other kernels of $k's program keep their bodies ($other)"
  else
    pass=$((pass+1)); echo "  ok   $T $fam: $k alone = whole (max_flat lds scratch wave spills vgpr sgpr: ${a#* })"
    [ -z "${planted:-}" ] && [ -n "$other" ] && planted="$T $fam $k ${other%% *}"
  fi
done
done
if [ -n "${planted:-}" ]; then
  read -r T fam k o <<< "$planted"
  "$MATRIX" --out "$O/planted" --arch "$T" --family "$fam" "-DAK_KSEL=$o" > "$O/planted.log" 2>&1
  a=$(meta "$DIR/$fam.$T.co" | awk -v k="$k" '$1 == k'); b=$(meta "$O/planted/$fam.$T.co" 2>/dev/null | awk -v k="$k" '$1 == k')
  if [ -n "$b" ] && [ "$a" != "$b" ]; then pass=$((pass+1)); echo "  ok   planted: $k under -DAK_KSEL=$o differs ($b)"
  else fail=$((fail+1)); echo "  FAIL planted: $k under -DAK_KSEL=$o was not told apart from the whole family's ($b)"; fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
