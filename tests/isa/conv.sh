# ISA rules of the conv family (sourced by tests/isa_check.sh per target; see tests/isa_lib.sh).
# The implicit-GEMM matrix-core kernels must really use the matrix instructions of their generation
# (MFMA on CDNA: f16, bf16, exact f32; WMMA on RDNA3 / RDNA4: f16, bf16); the FMA tile and the
# depthwise kernel none. The common check after this one asserts no scratch / VGPR spills.
case $ARCH in
  gfx908|gfx90a|gfx940|gfx941|gfx942|gfx950)
    isa_require 'v_mfma_f32_32x32x(8|16)_?f16' "f16 MFMA" ak_conv_igemm_mma_f16
    isa_require 'v_mfma_f32_32x32x(4|8|16)_?bf16' "bf16 MFMA (gfx908 32x32x4bf16, gfx90a/94x _1k, gfx950 x16)" ak_conv_igemm_mma_bf16
    isa_require 'v_mfma_f32_32x32x2_?f32' "exact f32 MFMA" ak_conv_igemm_mma_f32
    ;;
  gfx11*|gfx12*)
    isa_require 'v_wmma_f32_16x16x16_f16' "f16 WMMA" ak_conv_igemm_mma_f16
    isa_require 'v_wmma_f32_16x16x16_bf16' "bf16 WMMA" ak_conv_igemm_mma_bf16
    ;;
esac
isa_forbid 'v_mfma|v_wmma' "the FMA tile uses FMAs only" ak_conv_igemm_simt_f16
isa_forbid 'v_mfma|v_wmma' "the depthwise kernel uses FMAs only" ak_conv_dw_bf16
