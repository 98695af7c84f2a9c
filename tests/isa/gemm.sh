# ISA rules of the gemm family (sourced by tests/isa_check.sh per target; see tests/isa_lib.sh).
# The matrix-core kernels must really use the matrix instructions of their generation, the SIMT
# kernels none; the common check after this one asserts no scratch / VGPR spills in any kernel.
case $ARCH in
  gfx908|gfx90a|gfx940|gfx941|gfx942|gfx950)
    isa_require 'v_mfma_f32_32x32x(8|16)_?f16' "f16 MFMA" ak_gemm_mma_l_f16
    isa_require 'v_mfma_f32_32x32x(4|8|16)_?bf16' "bf16 MFMA (gfx908 32x32x4bf16, gfx90a/94x _1k, gfx950 x16)" ak_gemm_mma_l_bf16
    isa_require 'v_mfma_f32_32x32x2_?f32' "exact f32 MFMA" ak_gemm_mma_l_f32
    isa_require 'v_mfma_f32_32x32x(8|16)_?f16' "f16 MFMA (small tile)" ak_gemm_mma_s_f16
    case $ARCH in gfx94*) isa_require 'v_mfma_f32_32x32x4_?xf32' "xf32 MFMA on gfx94x" ak_gemm_mma_l_x32 ;; esac
    # int8: 32x32x8i8 (gfx908 / gfx90a), 32x32x16_i8 (gfx94x), 32x32x32_i8 (gfx950)
    case $ARCH in
      gfx908|gfx90a) i8re='v_mfma_i32_32x32x8_?i8' ;;
      gfx950) i8re='v_mfma_i32_32x32x32_i8' ;;
      *) i8re='v_mfma_i32_32x32x16_i8' ;;
    esac
    for k in ak_gemm_i8_l_f16 ak_gemm_i8_l_bf16 ak_gemm_i8_s_f16 ak_gemm_i8_s_bf16; do isa_require "$i8re" "int8 MFMA" $k; done
    ;;
  gfx11*|gfx12*)
    isa_require 'v_wmma_f32_16x16x16_f16' "f16 WMMA" ak_gemm_mma_l_f16
    isa_require 'v_wmma_f32_16x16x16_bf16' "bf16 WMMA" ak_gemm_mma_l_bf16
    isa_require 'v_wmma_f32_16x16x16_f16' "f16 WMMA (small tile)" ak_gemm_mma_s_f16
    for k in ak_gemm_i8_l_f16 ak_gemm_i8_l_bf16 ak_gemm_i8_s_f16 ak_gemm_i8_s_bf16; do
      isa_require 'v_wmma_i32_16x16x16_iu8' "int8 WMMA" $k
    done
    ;;
esac
isa_forbid 'v_mfma|v_wmma' "the SIMT kernel uses FMAs only" ak_gemm_simt_l_f16
isa_forbid 'v_mfma|v_wmma' "the decode kernel uses FMAs only" ak_gemm_skinny_bf16
# Known, not yet fixed (bench/NOTES.md, GEMM): the FMA kernels (SIMT 8x8 micro-tile, decode, the
# generic fallback of the wgmma kernels) spill VGPRs to scratch on every AMD target under ROCm 6.4
# (gfx942: ak_gemm_simt_l_f16/bf16 96 VGPRs). The matrix-core kernels of CDNA must stay
# scratch-free in their own code (the int8 ones too): checked here kernel by kernel, then the family-wide check is waived.
# The epilogue is a called function (ak_gemm_epi, __noinline__: one copy instead of one per accumulator);
# with the whole activation list in it, ROCm 6.4 saves one callee-saved VGPR in its frame on gfx908 / gfx90a
# (8 bytes, once per tile's epilogue). So: no VGPR spills, no scratch access in the kernel body (the k
# loop), and at most 16 bytes of private segment, all of it the epilogue's frame.
case $ARCH in
  gfx908|gfx90a|gfx940|gfx941|gfx942|gfx950)
    for k in $(isa_kernels); do
      case $k in ak_gemm_mma_[ls]_*|ak_gemm_i8_[ls]_*)
        v=$(isa_meta "$k" .vgpr_spill_count); [ "${v:-0}" = "0" ] || isa_fail "$k spills $v VGPRs"
        v=$(isa_meta "$k" .private_segment_fixed_size); [ "${v:-0}" -le 16 ] || isa_fail "$k uses $v bytes of scratch"
        n=$(isa_body "$k" | grep -cE 'scratch_(load|store)|buffer_(load|store)_[a-z0-9]+ .*, s\[0:3\], s(32|33)\b')
        [ "$n" -eq 0 ] || isa_fail "$k reads or writes scratch $n times in its own code (the k loop must not)" ;;
      esac
    done ;;
esac
ISA_ALLOW_SCRATCH="gemm FMA kernels spill on $ARCH (known, bench/NOTES.md GEMM)"
