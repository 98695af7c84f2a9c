# ISA rules of the norm family (sourced by tests/isa_check.sh per target; see tests/isa_lib.sh).
# The residual form (ak_add_norm_<dt>, RES = true) reads x and r and writes h with the same
# 16-byte accesses as the plain row kernel on its vector path. The common no-scratch check follows.
isa_require 'global_load_(dwordx4|b128)' "16-byte loads of x / r" ak_add_norm_f16
isa_require 'global_store_(dwordx4|b128)' "16-byte stores of h / y" ak_add_norm_bf16
isa_require 'global_load_(dwordx4|b128)' "16-byte loads of x / r" ak_add_norm_wide_f32
