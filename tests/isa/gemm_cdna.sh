# ISA rules of the gemm_cdna family (sourced by tests/isa_check.sh per target; see tests/isa_lib.sh).
# The kernels have a body on gfx94x / gfx950 only (empty elsewhere: the host never picks them there).
# The design they must keep (kernels/gemm_cdna.hip), checked on the k loop of every kernel (the
# shortest backward-branch range holding MFMAs, tests/isa/loop.awk):
#   32 MFMAs of the generation (gfx94x 32x32x8, gfx950 32x32x16) a k tile, 16-byte global loads
#   (global_load_dwordx4 only), fragment reads ds_read_b128 only, the k-contiguous operands written
#   with ds_write_b128; one s_barrier; no v_accvgpr_read/write/mov copies, no v_readlane/v_writelane
#   (SGPR spills), no scratch; the global loads issued before the loop's first MFMA and at least 8
#   MFMAs issued before the first vmcnt wait (the loads of tile k + 1 overlap the MFMAs of tile k),
#   no `s_waitcnt vmcnt(0)` right before an MFMA.
# Kernel-wide: no scratch (private segment 0), no VGPR or SGPR spills, LDS = the two stages (gfx94x 48 KiB,
# gfx950 96 KiB), at most 512 VGPR + AGPR: one wave per SIMD, the occupancy planned (one 256-thread
# block a CU).
case $ARCH in
  gfx940|gfx941|gfx942|gfx950)
    case $ARCH in gfx950) mf='v_mfma_f32_32x32x16_(f16|bf16)'; lds=98304 ;; *) mf='v_mfma_f32_32x32x8_(f16|bf16)'; lds=49152 ;; esac
    for k in $(isa_kernels); do
      base=$(isa_kernel_addr "$k")
      [ -n "$base" ] || { isa_fail "$k: no code"; continue; }
      loop=$(isa_kernel_s "$k" |
             awk -v kbase=$((16#$base)) -f "$HERE/isa/loop.awk")
      [ -n "$loop" ] || { isa_fail "$k: no k loop with MFMAs"; continue; }
      n=$(printf '%s\n' "$loop" | grep -cE "$mf"); [ "$n" -eq 32 ] || isa_fail "$k: $n x /$mf/ in the k loop, 32 planned"
      n=$(printf '%s\n' "$loop" | grep -cE 'v_mfma' ); [ "$n" -eq 32 ] || isa_fail "$k: $n MFMAs in the k loop, 32 planned"
      n=$(printf '%s\n' "$loop" | grep -cE 'v_accvgpr_(read|write|mov)'); [ "$n" -eq 0 ] || isa_fail "$k: $n accvgpr copies in the k loop"
      n=$(printf '%s\n' "$loop" | grep -cE 'v_(readlane|writelane)'); [ "$n" -eq 0 ] || isa_fail "$k: $n v_readlane/v_writelane in the k loop"
      n=$(printf '%s\n' "$loop" | grep -cE 'scratch_|buffer_(load|store)'); [ "$n" -eq 0 ] || isa_fail "$k: $n scratch / buffer accesses in the k loop"
      n=$(printf '%s\n' "$loop" | grep -cE 'global_load_dwordx4'); [ "$n" -gt 0 ] || isa_fail "$k: no 16-byte global loads in the k loop"
      n=$(printf '%s\n' "$loop" | grep -E 'global_load' | grep -cvE 'global_load_dwordx4'); [ "$n" -eq 0 ] || isa_fail "$k: $n global loads narrower than 16 bytes in the k loop"
      n=$(printf '%s\n' "$loop" | grep -E 'ds_read' | grep -cvE 'ds_read_b128'); [ "$n" -eq 0 ] || isa_fail "$k: $n LDS reads narrower than ds_read_b128 in the k loop"
      case $k in ak_gemm_cdna_kk_*)
        n=$(printf '%s\n' "$loop" | grep -E 'ds_write' | grep -cvE 'ds_write_b128'); [ "$n" -eq 0 ] || isa_fail "$k: $n LDS writes narrower than ds_write_b128 (k-contiguous operands)" ;;
      esac
      n=$(printf '%s\n' "$loop" | grep -cE 's_barrier'); [ "$n" -eq 1 ] || isa_fail "$k: $n barriers in the k loop, 1 planned"
      # the loads of tile k + 1 are in flight under the MFMAs of tile k
      r=$(printf '%s\n' "$loop" | awk -v mf="$mf" '$1 ~ /global_load/ { if (!mm) pre++; gl++ } $0 ~ mf { mm++ }
            /s_waitcnt.*vmcnt/ { if (!w) { w = 1; before = mm } } END { print pre + 0, gl + 0, before + 0 }')
      read -r gl_pre gl_all mf_before <<< "$r"
      [ "$gl_pre" -eq "$gl_all" ] || isa_fail "$k: $((gl_all - gl_pre)) of $gl_all global loads issued after the k loop's first MFMA"
      [ "$mf_before" -ge 8 ] || isa_fail "$k: only $mf_before MFMAs issued before the first vmcnt wait of the k loop (the loads must overlap the MFMAs)"
      n=$(printf '%s\n' "$loop" | awk -v mf="$mf" '$0 ~ mf && prev ~ /s_waitcnt.*vmcnt\(0\)/ { c++ } { prev = $0 } END { print c + 0 }')
      [ "$n" -eq 0 ] || isa_fail "$k: $n MFMAs right after s_waitcnt vmcnt(0)"
      v=$(isa_meta "$k" .private_segment_fixed_size); [ "${v:-0}" = "0" ] || isa_fail "$k uses $v bytes of scratch"
      v=$(isa_meta "$k" .vgpr_spill_count); [ "${v:-0}" = "0" ] || isa_fail "$k spills $v VGPRs"
      v=$(isa_meta "$k" .sgpr_spill_count); [ "${v:-0}" = "0" ] || isa_fail "$k spills $v SGPRs (to VGPR lanes)"
      v=$(isa_meta "$k" .group_segment_fixed_size); [ "${v:-0}" = "$lds" ] || isa_fail "$k has ${v:-?} bytes of LDS, $lds planned"
      v=$(isa_meta "$k" .vgpr_count); [ "${v:-999}" -le 512 ] || isa_fail "$k: ${v:-?} VGPR + AGPR, more than one wave a SIMD allows"
      v=$(isa_meta "$k" .max_flat_workgroup_size); [ "${v:-0}" = "256" ] || isa_fail "$k: .max_flat_workgroup_size ${v:-?}, the host launches 256"
    done ;;
esac
