# ISA rules for kernels/attention_mma.hip (sourced by tests/isa_check.sh for
# every AMD target built in the ROCm 6.4 chroot; helpers from tests/isa_lib.sh).
# Every attention kernel of a matrix target with an AMD path (head sizes 64
# and 128) must run S = Q K^T and O += P V on the matrix units: MFMA on CDNA,
# WMMA on RDNA3 / RDNA4. The other head sizes are NVIDIA-only (empty kernels
# on AMD, which the host never launches there), as are the 8-bit K / V decode
# kernels (ak_attn_mmadec<HD>_<e4m3|e5m2>_*) and all kernels on targets
# without matrix instructions (gfx906, gfx103x: the host runs
# kernels/attention.hip). No scratch (the default).
amd_kernels=$(isa_kernels | grep -E '^ak_attn_mma(dec|gen)?(64|128)_(f16|bf16)$')
case $ARCH in
  gfx908|gfx90a|gfx940|gfx941|gfx942|gfx950)
    for k in $amd_kernels; do isa_require 'v_mfma_f32_32x32' "MFMA attention (S = Q K^T, O += P V)" "$k"; done ;;
  gfx11*|gfx12*)
    for k in $amd_kernels; do isa_require 'v_wmma_f32_16x16x16' "WMMA attention (S = Q K^T, O += P V)" "$k"; done ;;
esac
