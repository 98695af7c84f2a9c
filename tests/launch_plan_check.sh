#!/usr/bin/env bash
# The host's launch plans against the code objects:
#   tests/launch_plan_check.sh PLANS DIR [LABEL]
#   tests/launch_plan_check.sh --plant PLANS DIR [LABEL]
# PLANS: what build/ak_launch_plans prints (one line per distinct launch the
# ops would make on a target, from the real planners:
# "<target> <wave> <lds_bytes> <family> <kernel> <block> <dynamic LDS>").
# DIR: code objects <family>.<target>.co and targets.txt, as
# tests/ak_compile_matrix.c writes them (any compiler: ROCm 6.4 in the
# chroot, ROCm 5.2 on the host, clang-15).
# For every planned launch whose code object is in DIR, from the kernel's
# metadata (llvm-readelf --notes):
#   - the kernel is in the code object;
#   - block <= .max_flat_workgroup_size (HIP refuses a larger launch);
#   - .group_segment_fixed_size (static LDS) + the dynamic LDS of the launch
#     <= the architecture's LDS per workgroup (the table's lds_bytes);
#   - .wavefront_size = the AK_WAVE the host compiled and planned with;
#   - no scratch (.private_segment_fixed_size 0) and no VGPR spills, except
#     the kernels named in tests/isa/scratch_waivers.txt (with the reason);
#     a waiver's target regex is matched against "<target>@<LABEL>" (LABEL:
#     the compiler, e.g. rocm6.4), so a waiver can name one compiler.
# Prints one line per target and "N passed, N failed" last; each failing
# launch is named with the numbers.
# --plant: the check must catch planted mismatches: on the first target of
# DIR, one launch's block is raised past its .max_flat_workgroup_size, one's
# dynamic LDS past the LDS, one's wave flipped (64 <-> 32); each must be
# reported, by kernel name. Prints what was caught; exit 0 when all were.
set -u
if [ "${1:-}" = "--plant" ]; then
  PLANS=$2; DIR=$3; LABEL=${4:-}
  P=$(mktemp); trap 'rm -f "$P" "$P.out"' EXIT
  # three distinct launches of built families on the first target that has them (a family run alone, such as
  # the matrix attention, has none on targets without matrix instructions)
  for tgt in $(awk '{print $1}' "$DIR/targets.txt"); do
    fams=" $(for co in "$DIR"/*."$tgt".co; do basename "$co" ".$tgt.co"; done | tr '\n' ' ')"
    awk -v t="$tgt" -v fams="$fams" '$1 == t && index(fams, " " $4 " ")' "$PLANS" | head -n 3 > "$P.pick"
    [ "$(wc -l < "$P.pick")" = 3 ] && break
  done
  [ "$(wc -l < "$P.pick")" = 3 ] || { echo "  FAIL planted: fewer than 3 launches of built families on every target"; rm -f "$P.pick"; exit 1; }
  k1=$(sed -n 1p "$P.pick" | awk '{print $5}'); k2=$(sed -n 2p "$P.pick" | awk '{print $5}'); k3=$(sed -n 3p "$P.pick" | awk '{print $5}')
  awk -v t="$tgt" -v k1="$k1" -v k2="$k2" -v k3="$k3" '
    $1 == t && $5 == k1 { $6 = 2048 }
    $1 == t && $5 == k2 { $7 = $3 + 16 }
    $1 == t && $5 == k3 { $2 = ($2 == 64 ? 32 : 64); $6 = $2 * 2 }
    { print }' "$PLANS" > "$P"
  rm -f "$P.pick"
  if bash "$0" "$P" "$DIR" "$LABEL" > "$P.out" 2>&1; then echo "    NOT caught: the planted plans passed"; exit 1; fi
  ok=1
  grep -q "$k1: block 2048 > .max_flat_workgroup_size" "$P.out" && echo "    caught: $(grep -m1 "$k1: block 2048" "$P.out" | sed 's/^ *//')" || { echo "    NOT caught: block 2048 for $k1"; ok=0; }
  grep -q "$k2: static LDS .* bytes of LDS on" "$P.out" && echo "    caught: $(grep -m1 "$k2: static LDS" "$P.out" | sed 's/^ *//')" || { echo "    NOT caught: dynamic LDS past the LDS for $k2"; ok=0; }
  grep -q "$k3: .wavefront_size" "$P.out" && echo "    caught: $(grep -m1 "$k3: .wavefront_size" "$P.out" | sed 's/^ *//')" || { echo "    NOT caught: a flipped wave for $k3"; ok=0; }
  [ $ok = 1 ]; exit
fi
PLANS=$1
DIR=$2
LABEL=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
WAIVERS="$HERE/isa/scratch_waivers.txt"
if [ -z "${ISA_LLVM_SUFFIX+x}" ]; then
  ISA_LLVM_SUFFIX=""
  for v in 21 20 19 18 17 15; do command -v llvm-readelf-$v >/dev/null 2>&1 && { ISA_LLVM_SUFFIX=-$v; break; }; done
fi
READELF=llvm-readelf$ISA_LLVM_SUFFIX
command -v "$READELF" >/dev/null 2>&1 || { echo "launch_plan_check: $READELF not found"; echo "0 passed, 1 failed"; exit 1; }
[ -s "$PLANS" ] || { echo "launch_plan_check: no plans in $PLANS"; echo "0 passed, 1 failed"; exit 1; }
pass=0; fail=0
# the waivers: "<kernel regex> <target regex> <reason...>" (comments and blank lines skipped)
for tgt in $(awk '{print $1}' "$DIR/targets.txt" 2>/dev/null | sort -u); do
  meta="$DIR/launch-meta.$tgt.txt"
  : > "$meta"
  for co in "$DIR"/*."$tgt".co; do
    [ -f "$co" ] || continue
    fam=$(basename "$co" ".$tgt.co")
    # one line per kernel: family name max_flat static_lds scratch wave vgpr_spills
    "$READELF" --notes "$co" 2>/dev/null | awk -f "$HERE/isa/kernel_meta.awk" | awk -v fam="$fam" '{ print fam, $1, $2, $3, $4, $5, $6 }' >> "$meta"
  done
  [ -s "$meta" ] || continue
  waive_re=$( [ -f "$WAIVERS" ] && grep -vE '^\s*(#|$)' "$WAIVERS" | awk -v t="$tgt@$LABEL" 't ~ ("^(" $2 ")$") {print $1}' | paste -sd'|' )
  out=$(awk -v tgt="$tgt" -v waive="$waive_re" '
    NR == FNR { m[$1 " " $2] = $0; mf[$2] = $3; gs[$2] = $4; ps[$2] = $5; wv[$2] = $6; vs[$2] = ($7 == "?" ? 0 : $7); fams[$1] = 1; next }
    $1 != tgt { next }
    {
      wave = $2; lds = $3; fam = $4; k = $5; blk = $6; dyn = $7
      if (!(fam in fams)) { skipped++; next }
      n++
      if (!((fam " " k) in m)) { print "FAIL " k ": planned (block " blk ") but not in " fam "." tgt ".co"; bad++; next }
      if (mf[k] == "?" || blk + 0 > mf[k] + 0) { print "FAIL " k ": block " blk " > .max_flat_workgroup_size " mf[k] " (the launch would be refused)"; bad++ }
      if (gs[k] + dyn > lds + 0) { print "FAIL " k ": static LDS " gs[k] " + dynamic " dyn " = " gs[k] + dyn " bytes > " lds " bytes of LDS on " tgt; bad++ }
      if (wv[k] != wave) { print "FAIL " k ": .wavefront_size " wv[k] ", the host compiled and planned it for wave" wave; bad++ }
      if (blk % wave != 0) { print "FAIL " k ": block " blk " is not a whole number of wave" wave "s"; bad++ }
      if ((ps[k] + 0 > 0 || vs[k] + 0 > 0) && !(waive != "" && k ~ ("^(" waive ")$"))) {
        print "FAIL " k ": " ps[k] " bytes of scratch, " vs[k] " VGPR spills (not waived in tests/isa/scratch_waivers.txt)"; bad++ }
      if (ps[k] + 0 > 0 && waive != "" && k ~ ("^(" waive ")$")) wv_n[k] = 1
      kern[k] = 1
    }
    END {
      nk = 0; for (x in kern) nk++; nw = 0; for (x in wv_n) nw++
      printf "SUMMARY %d launches of %d kernels checked%s%s\n", n, nk, nw ? ", " nw " kernels with waived scratch" : "", skipped ? ", " skipped " launches of families not built here" : "" }
  ' "$meta" "$PLANS")
  summary=$(echo "$out" | grep '^SUMMARY' | sed 's/^SUMMARY //')
  fails=$(echo "$out" | grep '^FAIL' | awk '!seen[$0]++' || true)
  if [ -z "$fails" ]; then pass=$((pass+1)); echo "  ok   $tgt launch plans: $summary"
  else fail=$((fail+1)); echo "  FAIL $tgt launch plans: $summary"; echo "$fails" | head -n 40 | sed 's/^FAIL /         /'; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ $((pass + fail)) -gt 0 ]
