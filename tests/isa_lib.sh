# tests/isa_lib.sh - assertions on an AMD code object's disassembly and
# metadata, for tests/isa_check.sh and the per-family rules in tests/isa/.
#
# A family's rules live in tests/isa/<family>.sh; isa_check.sh sources that
# file once per built target with these set:
#   FAMILY  the family ("gemm")          ARCH  the processor ("gfx942")
#   WAVE    the wave size the table gives that processor (32 or 64)
#   ISA_S   the disassembly (llvm-objdump -d), ISA_META the metadata notes
#           (llvm-readelf --notes), ISA_SYMS the symbol table (llvm-objdump -t)
# and the file calls the functions below; each records a failure with its
# reason (the cell then fails) and never exits. Example (tests/isa/gemm.sh):
#   case $ARCH in
#     gfx908|gfx90a|gfx942|gfx950) isa_require 'v_mfma_' "MFMA on CDNA" ;;
#     gfx11*|gfx12*)               isa_require 'v_wmma_' "WMMA on RDNA3/4" ;;
#   esac
#   isa_forbid 'scratch_|buffer_store.*off, s\[0:3\]' "no scratch access"
# Every family also gets, after its rules: no scratch/spills in any kernel
# (isa_no_scratch), unless the rules set ISA_ALLOW_SCRATCH="reason".
#
#   isa_require REGEX WHY [KERNEL]   an instruction matching REGEX (grep -E, on
#                                    the mnemonic + operands) must appear, in
#                                    KERNEL's body when given
#   isa_forbid REGEX WHY [KERNEL]    no instruction may match
#   isa_count REGEX [KERNEL]         prints how many instructions match
#   isa_no_scratch [KERNEL]          .private_segment_fixed_size 0 and no VGPR spills
#                                    (SGPR spills go to VGPR lanes: reported, not a failure)
#   isa_meta KERNEL FIELD            prints a metadata field of a kernel (".vgpr_count")
#   isa_kernels                      prints the kernel names in the code object

ISA_FAILS=""; ISA_NOTES=""
isa_fail() { ISA_FAILS="$ISA_FAILS; $*"; }

# instructions of the whole object, or of one kernel's body (label to s_endpgm)
isa_body() {
  if [ -n "${1:-}" ]; then
    if [ -d "${ISA_S}.k" ]; then
      [ -f "${ISA_S}.k/$1.insn" ] && cat "${ISA_S}.k/$1.insn"
    else
      isa_kernel_s "$1" | sed -e 's@//.*@@' | grep -E '^\s+[a-z]'
    fi
  elif [ -n "${ISA_I:-}" ]; then cat "$ISA_I"   # the instructions, filtered once by isa_check.sh
  else sed -e 's@//.*@@' "$ISA_S" | grep -E '^\s+[a-z]'; fi
}
# one kernel's disassembly lines as objdump printed them (addresses, encodings, comments)
isa_kernel_s() {
  if [ -d "${ISA_S}.k" ]; then
    [ -f "${ISA_S}.k/$1.s" ] && cat "${ISA_S}.k/$1.s"
  else
    awk -v k="<$1>:" 'index($0, k) { on = 1; next } on && /^[0-9a-f]+ <.*>:/ { on = 0 } on' "$ISA_S"
  fi
}
# the address of a kernel's first instruction (hex, as objdump prints it), empty when it is not in the object
isa_kernel_addr() {
  if [ -f "${ISA_S}.k/index" ]; then awk -v k="$1" '$1 == k { print $2; exit }' "${ISA_S}.k/index"
  else grep -m1 "^[0-9a-f]* <$1>:" "$ISA_S" | awk '{print $1}'; fi
}
# isa_check.sh calls this once per code object: every kernel's body in ${ISA_S}.k/<kernel>.s (raw)
# and .insn (instructions only), and the metadata of every kernel in ISA_MD, so that the per-kernel
# functions above and below read a small file or a shell variable instead of the whole object
isa_prepare() {
  rm -rf "${ISA_S}.k"; mkdir -p "${ISA_S}.k" || return 1
  awk -v d="${ISA_S}.k" '
    /^[0-9a-f]+ <.*>:/ { if (raw) { close(raw); close(ins) } n = $0; sub(/^[0-9a-f]+ </, "", n); sub(/>:.*/, "", n)
                         raw = d "/" n ".s"; ins = d "/" n ".insn"; printf "" > raw; printf "" > ins
                         print n, $1 > (d "/index"); next }
    raw { print > raw; l = $0; sub(/\/\/.*/, "", l); if (l ~ /^[ \t]+[a-z]/) print l > ins }' "$ISA_S"
  ISA_MD=(); ISA_KN=()
  local n k v
  # (a file, not a process substitution: the ROCm chroot has no /dev/fd)
  awk '
    /^  - / { b++ }
    /^(  - |    )\.[a-z_]+:/ { key = $0; sub(/^(  - |    )/, "", key); sub(/:.*/, "", key)
                               if (key == ".name") { nm[b] = $NF; ord[++no] = b }
                               val[b, key] = $NF; keys[b] = keys[b] " " key }
    END { for (i = 1; i <= no; i++) { x = ord[i]; print nm[x], ".name", nm[x]
            m = split(keys[x], ks, " ")
            for (j = 1; j <= m; j++) if (ks[j] != ".name" && !seen[x, ks[j]]++) print nm[x], ks[j], val[x, ks[j]] } }' \
    "$ISA_META" > "${ISA_S}.k/meta" || return 1
  while read -r n k v; do
    [ "$k" = .name ] && ISA_KN+=("$n")
    ISA_MD["$n $k"]=$v
  done < "${ISA_S}.k/meta"
  # every kernel the notes name must be in the table (else the per-kernel checks would check nothing)
  [ ${#ISA_KN[@]} -eq "$(grep -cE '^(  - |    )\.name:' "$ISA_META")" ] || return 1
  ISA_MD_FOR=$ISA_META
}
declare -A ISA_MD=(); ISA_KN=(); ISA_MD_FOR=""
isa_count() { isa_body "${2:-}" | grep -cE "$1"; }
isa_require() {
  [ "$(isa_count "$1" "${3:-}")" -gt 0 ] || isa_fail "no /$1/ ${3:+in $3 }($2)"
}
isa_forbid() {
  local n; n=$(isa_count "$1" "${3:-}")
  [ "$n" -eq 0 ] || isa_fail "$n x /$1/ ${3:+in $3 }($2)"
}
isa_kernels() {
  if [ "$ISA_MD_FOR" = "$ISA_META" ]; then [ ${#ISA_KN[@]} -eq 0 ] || printf '%s\n' "${ISA_KN[@]}"
  else grep -E '^(  - |    )\.name:' "$ISA_META" | awk '{print $NF}'; fi
}
# metadata field of one kernel (kernel-level keys are indented 4, a kernel's block starts at "  - ")
isa_meta() {
  if [ "$ISA_MD_FOR" = "$ISA_META" ]; then printf '%s\n' "${ISA_MD["$1 $2"]-}"; return; fi
  awk -v k="$1" -v f="$2" '
    /^  - / { if (hit) { print val; exit } hit = 0; val = "" }
    /^(  - |    )\.[a-z_]+:/ { key = $0; sub(/^(  - |    )/, "", key); sub(/:.*/, "", key)
                               if (key == ".name" && $NF == k) hit = 1
                               if (key == f) val = $NF }
    END { if (hit) print val }' "$ISA_META" | head -n 1
}
# isa_meta_v VAR KERNEL FIELD: the same, into VAR (no subshell: for loops over every kernel)
isa_meta_v() {
  if [ "$ISA_MD_FOR" = "$ISA_META" ]; then printf -v "$1" '%s' "${ISA_MD["$2 $3"]-}"
  else printf -v "$1" '%s' "$(isa_meta "$2" "$3")"; fi
}
isa_no_scratch() {
  local k v ns=0 maxs=0
  for k in ${1:-$(isa_kernels)}; do
    isa_meta_v v "$k" .private_segment_fixed_size; [ "${v:-0}" = "0" ] || isa_fail "$k uses $v bytes of scratch"
    isa_meta_v v "$k" .vgpr_spill_count; [ "${v:-0}" = "0" ] || isa_fail "$k spills $v VGPRs"
    isa_meta_v v "$k" .sgpr_spill_count; [ "${v:-0}" = "0" ] || { ns=$((ns+1)); [ "$v" -gt $maxs ] && maxs=$v; }
  done
  [ $ns -eq 0 ] || ISA_NOTES="$ISA_NOTES; $ns kernels spill up to $maxs SGPRs to VGPR lanes"
}

# The wave size checks every family gets (tests/isa_check.sh):
# 1. every kernel's .wavefront_size is the table's wave for ARCH;
# 2. the prelude's marker symbol ak_built_for_wave<N> says the host injected
#    AK_WAVE=<the same N>;
# 3. lane masks have the wave's width: wave32 code uses exec_lo / vcc_lo,
#    *_saveexec_b32, compares (ballots) into one SGPR and selects on one
#    SGPR; wave64 code exec / vcc, *_b64, SGPR pairs. No instruction of the
#    other width may appear (code with no masks at all, an empty kernel,
#    passes). One exception in wave32 code: a scalar (s_*) instruction that
#    names the whole vcc pair without exec, e.g. `s_xor_b64 vcc, vcc, s[72:73]`
#    after `s_add_u32 vcc_lo` / `s_addc_u32 vcc_hi`: there the register
#    allocator uses vcc as a spare SGPR pair for 64-bit integer data (a signed
#    64-bit division's sign fix, a 64-bit address shift), not as a lane mask.
#    A vcc lane mask of the wrong width still shows: vector compares and
#    carries write it (v_*), branches read it (s_cbranch_vcc*), and those stay
#    counted, as does any 64-bit exec.
isa_wave() {
  local want=$1 k w marker n w64
  for k in $(isa_kernels); do
    isa_meta_v w "$k" .wavefront_size
    [ "$w" = "$want" ] || isa_fail "$k has .wavefront_size ${w:-?}, the table says wave$want for $ARCH"
  done
  marker=$(grep -oE 'ak_built_for_wave[0-9]+' "$ISA_SYMS" | head -n 1)
  if [ -z "$marker" ]; then isa_fail "no ak_built_for_wave marker symbol (not built with the prelude?)"
  elif [ "$marker" != "ak_built_for_wave$want" ]; then isa_fail "built with AK_WAVE=${marker#ak_built_for_wave} but $ARCH runs wave$want"; fi
  if [ "$want" = 32 ]; then
    w64=$(isa_body | grep -E '(\bexec\b|\bvcc\b)|_saveexec_b64\b' | grep -vE '(exec|vcc)_(lo|hi)')
    n=$( { printf '%s\n' "$w64" | grep -vE '^\s*s_[a-z0-9_]+_[bu]64\s'; printf '%s\n' "$w64" | grep -E '^\s*s_[a-z0-9_]+_[bu]64\s' | grep -E 'exec'; } |
       grep -c .)
    [ "$n" -eq 0 ] || isa_fail "wave32 code with $n instructions on 64-bit exec/vcc"
    isa_forbid 'v_cmp_[a-z0-9_]+_e64 (s\[[0-9]+:[0-9]+\]|vcc),' "wave32 compares/ballots write one SGPR"
    isa_forbid 'v_cndmask_b32_e64 .*, (s\[[0-9]+:[0-9]+\]|vcc)\s*$' "wave32 selects read one SGPR"
  else
    # vcc_lo / vcc_hi may appear in wave64 code as plain SGPRs under register pressure (seen in
    # the gemm family on gfx908/gfx90a, ROCm 6.4): only exec halves and 32-bit saveexec count
    # the lane id of 64 lanes reads both exec halves (v_mbcnt_lo_u32_b32 x, exec_lo then v_mbcnt_hi_u32_b32 x,
    # exec_hi: the compiler's own idiom, e.g. its wave reduction before a uniform-address atomic): allowed in
    # lo / hi pairs, nothing else may touch half of exec
    n=$(isa_body | grep -E 'exec_(lo|hi)\b|_saveexec_b32\b' | grep -cvE 'v_mbcnt_(lo_u32_b32 .*exec_lo|hi_u32_b32 .*exec_hi)\b')
    [ "$n" -eq 0 ] || isa_fail "$n x /exec_(lo|hi)|_saveexec_b32/ outside the v_mbcnt lane-id pair (wave64 code uses 64-bit exec)"
    n=$(isa_body | grep -cE 'v_mbcnt_lo_u32_b32 .*exec_lo\b'); w=$(isa_body | grep -cE 'v_mbcnt_hi_u32_b32 .*exec_hi\b')
    [ "$n" -eq "$w" ] || isa_fail "$n v_mbcnt_lo on exec_lo but $w v_mbcnt_hi on exec_hi (a 32-lane id in wave64 code)"
    isa_forbid 'v_cmp_[a-z0-9_]+_e64 (s[0-9]+|vcc_lo|vcc_hi),' "wave64 compares/ballots write an SGPR pair"
    isa_forbid 'v_cndmask_b32_e64 .*, (s[0-9]+|vcc_lo)\s*$' "wave64 selects read an SGPR pair"
  fi
}
# the family source uses the prelude's cross-lane primitives: they must lower
# to cross-lane instructions (their lane masks are checked by isa_wave)
isa_wave_shuffles() {
  isa_require 'ds_bpermute_b32|ds_swizzle|v_permlane|row_|quad_perm|dpp' "the prelude's shuffles lower to cross-lane instructions"
}
