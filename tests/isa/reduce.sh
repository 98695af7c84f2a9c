# ISA rules of the reduce family (tests/isa_lib.sh): every row reduction reads its rows in 16-byte loads (8
# elements of any dtype a vector); the arg ops' trees pick the extreme and its position by compare + select
# (v_cmp and v_cndmask), not by the max instructions, whose order on NaN / +-0 is not torch's.
for op in sum max min argmax argmin; do
  for dt in f32 f16 bf16; do
    isa_require 'global_load_dwordx4|global_load_b128|buffer_load_dwordx4|buffer_load_b128' "rows read in 16-byte vectors" "ak_reduce_${op}_${dt}"
  done
done
for dt in f32 f16 bf16; do
  isa_require 'v_cmp_(gt|ngt|nle|lt|nlt|nge)_f32' "the tree's compares" "ak_reduce_argmax_${dt}"
  isa_require 'v_cmp_(gt|ngt|nle|lt|nlt|nge)_f32' "the tree's compares" "ak_reduce_argmin_${dt}"
  isa_require 'v_cndmask_b32' "the tree's selects" "ak_reduce_argmax_${dt}"
done
