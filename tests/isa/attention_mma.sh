# ISA rules for kernels/attention_mma.hip (sourced by tests/isa_check.sh for
# every AMD target built in the ROCm 6.4 chroot; helpers from tests/isa_lib.sh).
# Every attention kernel of a matrix target must run S = Q K^T and O += P V
# on the matrix units: MFMA on CDNA, WMMA on RDNA3 / RDNA4. Targets without
# matrix instructions (gfx906, gfx103x) carry empty kernels the host never
# launches (it runs kernels/attention.hip there). No scratch (the default).
case $ARCH in
  gfx908|gfx90a|gfx940|gfx941|gfx942|gfx950)
    for k in $(isa_kernels); do isa_require 'v_mfma_f32_32x32' "MFMA attention (S = Q K^T, O += P V)" "$k"; done ;;
  gfx11*|gfx12*)
    for k in $(isa_kernels); do isa_require 'v_wmma_f32_16x16x16' "WMMA attention (S = Q K^T, O += P V)" "$k"; done ;;
esac
