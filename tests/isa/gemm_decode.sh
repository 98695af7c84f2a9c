# ISA rules of the gemm_decode family (sourced by tests/isa_check.sh per target; see tests/isa_lib.sh). The
# matrix-vector kernel reads each row of the matrix in 16-byte loads (ak_ld8_last: two a step in flight; f32 two
# loads per 8 elements), every type. The common no-scratch check follows (for both kernels).
isa_require 'global_load_(dwordx4|b128)' "the matrix rows in 16-byte loads (f32)" ak_gemm_gemv_f32
isa_require 'global_load_(dwordx4|b128)' "the matrix rows in 16-byte loads (f16)" ak_gemm_gemv_f16
isa_require 'global_load_(dwordx4|b128)' "the matrix rows in 16-byte loads (bf16)" ak_gemm_gemv_bf16
# The few-rows kernels (ak_gemm_gemvn: 128 columns a block, ak_gemm_gemvn32: 32): B's rows in 16-byte loads, the
# staged chunk of A read from LDS 16 bytes at a time (4 rows of A a read), fp32 FMAs.
for k in ak_gemm_gemvn_f32 ak_gemm_gemvn32_f32; do
    isa_require 'global_load_(dwordx4|b128)' "B's rows in 16-byte loads" $k
    isa_require 'ds_(read|load)_b128' "A's staged chunk read 16 bytes at a time" $k
    isa_require 'v_(fmac|fma|pk_fma)_f32' "fp32 FMAs" $k
done
# The 512-thread few-rows kernel (ak_gemm_gemvn4: at most 4 rows, 32 columns) and its half-size form (gemvn4h): B's
# rows and A's in 16-byte loads, fp32 FMAs.
for k in ak_gemm_gemvn4_f32 ak_gemm_gemvn4h_f32; do
    isa_require 'global_load_(dwordx4|b128)' "B's and A's rows in 16-byte loads" $k
    isa_require 'v_(fmac|fma|pk_fma)_f32' "fp32 FMAs" $k
done
