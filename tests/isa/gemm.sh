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
    ;;
  gfx11*|gfx12*)
    isa_require 'v_wmma_f32_16x16x16_f16' "f16 WMMA" ak_gemm_mma_l_f16
    isa_require 'v_wmma_f32_16x16x16_bf16' "bf16 WMMA" ak_gemm_mma_l_bf16
    isa_require 'v_wmma_f32_16x16x16_f16' "f16 WMMA (small tile)" ak_gemm_mma_s_f16
    ;;
esac
isa_forbid 'v_mfma|v_wmma' "the SIMT kernel uses FMAs only" ak_gemm_simt_l_f16
isa_forbid 'v_mfma|v_wmma' "the decode kernel uses FMAs only" ak_gemm_skinny_bf16
# Known, not yet fixed (bench/NOTES.md, GEMM): the FMA kernels (SIMT 8x8 micro-tile, decode, the
# generic fallback of the wgmma kernels) spill VGPRs to scratch on every AMD target under ROCm 6.4
# (gfx942: ak_gemm_simt_l_f16/bf16 96 VGPRs). The matrix-core kernels of CDNA must stay
# scratch-free: checked here kernel by kernel, then the family-wide check is waived.
case $ARCH in
  gfx908|gfx90a|gfx940|gfx941|gfx942|gfx950)
    for k in $(isa_kernels); do
      case $k in ak_gemm_mma_[ls]_*) isa_no_scratch "$k" ;; esac
    done ;;
esac
ISA_ALLOW_SCRATCH="gemm FMA kernels spill on $ARCH (known, bench/NOTES.md GEMM)"
