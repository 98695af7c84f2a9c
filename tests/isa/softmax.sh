# ISA rules of the softmax family (sourced by tests/isa_check.sh, see tests/isa_lib.sh). The slab path
# (ak_softmax_slab_<dt>) exists to move narrow unaligned rows with 16-byte accesses: 128-bit global loads and
# stores, and 128-bit LDS writes / reads of the run in shared memory. The common no-scratch check follows.
isa_require 'global_load_(dwordx4|b128)' "16-byte loads of the run of rows" ak_softmax_slab_bf16
isa_require 'global_store_(dwordx4|b128)' "16-byte stores of the run of rows" ak_softmax_slab_bf16
isa_require 'ds_(write|store)_b128' "16-byte LDS writes of the run" ak_softmax_slab_f16
isa_require 'ds_(read|load)_b128' "16-byte LDS reads of the run" ak_softmax_slab_f16
