# ISA rules of the random family (tests/isa_lib.sh): the Philox transforms are bit-identical with
# the cpu backend only if every float step is an IEEE fma / mul / add. No hardware approximation
# (log, exp, sin, cos, sqrt, rsq, rcp) may appear, and the fused multiply-adds must be there.
isa_forbid 'v_(log|exp|sin|cos|sqrt|rsq|rcp)_(f32|legacy_f32|clamp_f32)' "Box-Muller's ln/sqrt/sincos are fma-only (bit-identical with the C reference)"
isa_require 'v_(fma|fmac|pk_fma)_f32' "the transforms are written as fused multiply-adds" ak_rand_normal_f32
# 16-byte stores of 4 f32 values per counter
isa_require 'global_store_dwordx4|global_store_b128' "one 16-byte store per counter (f32)" ak_rand_uniform_f32
