# ISA rules of the llm family (RoPE; sourced by tests/isa_check.sh, see tests/isa_lib.sh). The
# vector path moves 4 elements per access: 128-bit global accesses for f32, 64-bit for f16 / bf16.
# The common no-scratch check follows.
isa_require 'global_load_(dwordx4|b128)' "16-byte f32 loads of the vector path" ak_rope_f32
isa_require 'global_store_(dwordx4|b128)' "16-byte f32 stores of the vector path" ak_rope_f32
isa_require 'global_load_(dwordx2|b64)' "8-byte bf16 loads of the vector path" ak_rope_bf16
isa_require 'global_store_(dwordx2|b64)' "8-byte bf16 stores of the vector path" ak_rope_bf16
# the grouped walk of interleaved halves (ak_ropeg_<dt>) moves 8 halves per access: 128-bit
isa_require 'global_load_(dwordx4|b128)' "16-byte bf16 loads of the grouped path" ak_ropeg_bf16
isa_require 'global_store_(dwordx4|b128)' "16-byte bf16 stores of the grouped path" ak_ropeg_bf16
