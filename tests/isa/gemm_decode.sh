# ISA rules of the gemm_decode family (sourced by tests/isa_check.sh per target; see tests/isa_lib.sh). The
# matrix-vector kernel reads each row of the matrix in 16-byte loads (ak_ld8_last: two a step in flight; f32 two
# loads per 8 elements), every type. The common no-scratch check follows.
isa_require 'global_load_(dwordx4|b128)' "the matrix rows in 16-byte loads (f32)" ak_gemm_gemv_f32
isa_require 'global_load_(dwordx4|b128)' "the matrix rows in 16-byte loads (f16)" ak_gemm_gemv_f16
isa_require 'global_load_(dwordx4|b128)' "the matrix rows in 16-byte loads (bf16)" ak_gemm_gemv_bf16
