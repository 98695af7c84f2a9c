# ISA rules of the layout family (sourced by tests/isa_check.sh per target; see tests/isa_lib.sh).
# The 16-byte unit kernels (a contiguous slice, a permute that keeps the innermost dimension, an
# embedding row) must move their data with 128-bit global accesses; the f32 -> f16 cast walks
# 4 f32 (16 bytes) per unit on the vector path. The common no-scratch check follows.
LD128='global_load_(dwordx4|b128)'
ST128='global_store_(dwordx4|b128)'
isa_require "$LD128" "16-byte loads of the u128 copy" ak_copy_nd_u128
isa_require "$ST128" "16-byte stores of the u128 copy" ak_copy_nd_u128
isa_require "$LD128" "16-byte loads of the u128 gather" ak_embedding_u128
isa_require "$ST128" "16-byte stores of the u128 gather" ak_embedding_u128
isa_require "$LD128" "16-byte f32 loads of the vector cast" ak_copy_cast_f32_f16
isa_require "$ST128" "16-byte f32 stores of the vector cast" ak_copy_cast_bf16_f32
