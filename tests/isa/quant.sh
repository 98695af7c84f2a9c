# ISA rules of the quant family (sourced by tests/isa_check.sh per target; see tests/isa_lib.sh).
# The one-pass tensor kernel (computed scale): the held part in 16-byte loads, the blocks' maxima folded by an
# atomic max, their arrival counted by an atomic add and waited for with s_sleep (ak_coop_arrive_wait).
isa_require 'global_load_(dwordx4|b128)' "the held vectors in 16-byte loads" ak_quant_tensor_bf16_e4m3
isa_require '(global|flat)_atomic_(umax|max_u32)' "the blocks' amax folded by an atomic max" ak_quant_tensor_bf16_e4m3
isa_require '(global|flat)_atomic_add' "the blocks' arrival counted" ak_quant_tensor_f32_e4m3
isa_require 's_sleep' "the wait for every block" ak_quant_tensor_f16_e5m2_fnuz
# Dequantise: 16-bit y from 16 codes in one 16-byte load (widths a multiple of 16) or 8 in an 8-byte load, stored in
# 16-byte vectors; f32 y from 4 codes in a 4-byte load, stored in 16-byte vectors.
isa_require 'global_load_(dwordx4|b128)' "16 codes in one 16-byte load" ak_dequant_e4m3_bf16
isa_require 'global_load_(dwordx2|b64)' "8 codes in one 8-byte load" ak_dequant_e4m3_bf16
isa_require 'global_store_(dwordx4|b128)' "16-bit y in 16-byte stores" ak_dequant_e5m2_fnuz_f16
isa_require 'global_store_(dwordx4|b128)' "f32 y in 16-byte stores" ak_dequant_e4m3_f32
# Rows held in registers and 1 x 128 blocks: 16-byte vectors. The common no-scratch check follows.
isa_require 'global_load_(dwordx4|b128)' "rows in 16-byte vectors" ak_quant_row_bf16_e4m3
isa_require 'global_load_(dwordx4|b128)' "1 x 128 blocks in 16-byte vectors" ak_quant_block_f16_e4m3
