# ISA rules of the gemm_fp8 family (sourced by tests/isa_check.sh per target; see tests/isa_lib.sh).
# Each kernel ak_gemm_fp8_<tile>_<A><B> (e4 = e4m3 = fp8, e5 = e5m2 = bf8) must run on the target's fp8
# matrix instruction for its pair of formats, in its k loop (the shortest backward-branch range holding
# matrix instructions, tests/isa/loop.awk), with the count the tile plans per 64-code k step:
#   gfx94x: v_mfma_f32_32x32x16_<a>_<b> (FNUZ), 4 k16 steps x the wave's 32x32 blocks (large 2 x 2, small 1 x 2);
#   gfx950: v_mfma_scale_f32_32x32x64_f8f6f4 (or its unscaled form; OCP), one k64 step x the same blocks, with
#           the formats in its cbsz / blgp fields (0 e4m3, 1 e5m2: printed only when not 0);
#   gfx12:  v_wmma_f32_16x16x16_<a>_<b> (OCP), 4 k16 steps x the wave's 16x16 tiles (large 4 x 2, small 2 x 2).
# No other matrix instruction in a kernel. Every other target has no fp8 matrix instruction: the plain loop
# (never launched: the host refuses fp8 there), no MFMA / WMMA, no scratch, no spills.
# Scratch on the fp8 targets: the epilogue is a called function (ak_gemm_fp8_epi, __noinline__, as kernels/gemm.hip's
# ak_gemm_epi); ROCm 6.4 saves callee-saved registers in its frame on gfx94x / gfx950 (8 bytes, once per slab of the
# epilogue). So there: no VGPR spills, no scratch access in the kernel body (the k loop included), at most 16 bytes of
# private segment, all of it the epilogue's frame; the family-wide check is waived after these kernel-by-kernel ones.
for k in $(isa_kernels); do
  case $k in ak_gemm_fp8_*) ;; *) continue ;; esac
  ab=${k##*_}; tile=${k#ak_gemm_fp8_}; tile=${tile%%_*}
  fa=fp8; [ "${ab:0:2}" = e5 ] && fa=bf8
  fb=fp8; [ "${ab:2:2}" = e5 ] && fb=bf8
  case $ARCH in
    gfx940|gfx941|gfx942) mi="v_mfma_f32_32x32x16_${fa}_${fb}"; per=16; [ "$tile" = s ] && per=8 ;;
    gfx950) mi='v_mfma_(scale_)?f32_32x32x64_f8f6f4'; per=4; [ "$tile" = s ] && per=2 ;;
    gfx1200|gfx1201) mi="v_wmma_f32_16x16x16_${fa}_${fb}"; per=32; [ "$tile" = s ] && per=16 ;;
    *) isa_forbid 'v_mfma|v_wmma' "$ARCH has no fp8 matrix instruction: the plain loop" "$k"; isa_no_scratch "$k"; continue ;;
  esac
  v=$(isa_meta "$k" .vgpr_spill_count); [ "${v:-0}" = "0" ] || isa_fail "$k spills $v VGPRs"
  v=$(isa_meta "$k" .private_segment_fixed_size); [ "${v:-0}" -le 16 ] || isa_fail "$k uses $v bytes of scratch"
  n=$(isa_body "$k" | grep -cE 'scratch_(load|store)|buffer_(load|store)_[a-z0-9]+ .*, s\[0:3\], s(32|33)\b')
  [ "$n" -eq 0 ] || isa_fail "$k reads or writes scratch $n times in its own code"
  isa_require "$mi" "the fp8 matrix instruction of $ARCH for ${ab}" "$k"
  n=$(isa_body "$k" | grep -E 'v_mfma|v_wmma' | grep -cvE "$mi"); [ "$n" -eq 0 ] || isa_fail "$k: $n matrix instructions other than /$mi/"
  if [ "$ARCH" = gfx950 ]; then
    # the formats: cbsz (A) and blgp (B) are 1 for e5m2, absent (0) for e4m3
    want=""; [ $fa = bf8 ] && want="cbsz:1"; n=$(isa_body "$k" | grep -E "$mi" | grep -c 'cbsz:1')
    if [ -n "$want" ]; then [ "$n" -gt 0 ] || isa_fail "$k: A is e5m2 but no f8f6f4 MFMA has cbsz:1"; else [ "$n" -eq 0 ] || isa_fail "$k: A is e4m3 but $n f8f6f4 MFMAs have cbsz:1"; fi
    n=$(isa_body "$k" | grep -E "$mi" | grep -c 'blgp:1')
    if [ $fb = bf8 ]; then [ "$n" -gt 0 ] || isa_fail "$k: B is e5m2 but no f8f6f4 MFMA has blgp:1"; else [ "$n" -eq 0 ] || isa_fail "$k: B is e4m3 but $n f8f6f4 MFMAs have blgp:1"; fi
  fi
  base=$(grep -m1 "^[0-9a-f]* <$k>:" "$ISA_S" | awk '{print $1}')
  [ -n "$base" ] || { isa_fail "$k: no code"; continue; }
  loop=$(awk -v k="<$k>:" 'index($0, k) { on = 1; next } on && /^[0-9a-f]+ <.*>:/ { on = 0 } on' "$ISA_S" |
         awk -v kbase=$((16#$base)) -v mm='v_mfma|v_wmma' -f "$HERE/isa/loop.awk")
  [ -n "$loop" ] || { isa_fail "$k: no k loop with matrix instructions"; continue; }
  n=$(printf '%s\n' "$loop" | grep -cE "$mi"); [ "$n" -eq "$per" ] || isa_fail "$k: $n x /$mi/ in the k loop, $per planned"
  n=$(printf '%s\n' "$loop" | grep -cE 'scratch_|buffer_(load|store)'); [ "$n" -eq 0 ] || isa_fail "$k: $n scratch / buffer accesses in the k loop"
done
ISA_ALLOW_SCRATCH="gemm_fp8: checked kernel by kernel above (the epilogue call frame on gfx94x / gfx950)"
