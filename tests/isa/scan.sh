# ISA rules of the scan family (tests/isa_lib.sh). Its cross-lane code is ballots (SGPR masks and
# popcounts) and one read of a wave-uniform lane (top-k's aggregated histogram add: the leader's
# bin), which the compiler lowers to v_readfirstlane_b32 (ROCm 6.4) or v_readlane / ds_bpermute, not to DPP: the common shuffle
# check does not apply; what the top-k kernels need is checked here instead.
ISA_NO_SHUFFLES="ballots + wave-uniform lane reads (v_readfirstlane_b32, some ds_bpermute_b32) only"
for k in ak_topk_f32 ak_topk_f16 ak_topk_bf16; do
  isa_require 'v_readlane_b32|v_readfirstlane_b32|ds_bpermute_b32' "top-k reads the wave leader's histogram bin" "$k"
  isa_require 's_bcnt1_i32_b(32|64)|v_bcnt_u32_b32|v_mbcnt_(lo|hi)_u32_b32' "top-k ranks equal keys with ballot popcounts" "$k"
  isa_require 'ds_add_u32|ds_add_rtn_u32' "shared-memory histogram atomics" "$k"
done
# the row split over several blocks (few rows): each block's shared histogram is merged into the row's global one
for k in ak_topk_mb_pass_f32 ak_topk_mb_pass_f16 ak_topk_mb_pass_bf16; do
  isa_require 'ds_add_u32|ds_add_rtn_u32' "shared-memory histogram atomics" "$k"
  isa_require 'global_atomic_add|flat_atomic_add|buffer_atomic_add' "histogram merged with global atomics" "$k"
done
