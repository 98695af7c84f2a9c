#!/usr/bin/env bash
# The measurements behind the row-op model (amdkit.h _ak_rowop_model, calibrated on the table _ak_rowop_table):
# bench_sweep with --force over the shapes where the variants compete (amdkit only; each result records its
# "force" triple variant,block,param; -1 = the model's choice, -2 = the table's). Outputs OUTDIR/variants_*.json.
#   bash bench/sweep_variants.sh [OUTDIR]
set -u
cd "$(dirname "$0")/.."
O=${1:-build/sweep}
mkdir -p "$O"
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-$PWD/build/gpu-cache}
make -s build/bench_sweep || exit 1
B=./build/bench_sweep
# softmax / norms on wide rows: rows in registers, split blocks, two-pass, one block per row (256/512/1024 threads)
$B --ops softmax,layernorm --dtypes f32,bf16 --rows 256,1024,4096,16384 --cols 4096,8192,16384,32768,50257,128256 \
   --max-bytes 1073741824 --force "-1,0,0;0,128,0;1,128,0;1,256,0;2,0,0;3,256,0;3,512,0;3,1024,0" \
   "$O/variants_wide.json" > "$O/variants_wide.log" 2>&1; echo "variants_wide rc $?"
# narrow rows of the streaming kernels: small inputs widened to 0 (off) / 1024 / 2048 threads per CU, 256 or 32 bytes
# per thread (the table's STREAM rows: block = threads per CU, param = bytes per thread)
$B --ops sum,argmax,cross_entropy --dtypes f32,bf16 --rows 1,16,256,1024,4096,65536 --cols 32,127,1000,4096 \
   --max-bytes 16777216 --force "4,0,256;4,1024,256;4,2048,256;4,0,32" "$O/variants_stream.json" \
   > "$O/variants_stream.log" 2>&1
echo "variants_stream rc $?"
# few wide rows: the widened stream kernel vs segments (CUs x 16 / x 8) + combine
$B --ops sum,argmax --dtypes f32,bf16 --rows 1,16,256 --cols 16384,32768,50257,128256 \
   --force "-1,0,0;4,1024,256;5,256,16;5,256,8" "$O/variants_segments.json" > "$O/variants_segments.log" 2>&1
echo "variants_segments rc $?"
# cross-entropy on wide f32 rows: 256 / 512 / 1024 bytes per thread (G 1024 / 512 / 256 at 50257 columns)
$B --ops cross_entropy --dtypes f32 --rows 1024,4096 --cols 32768,50257 --max-bytes 1073741824 \
   --force "4,1024,256;4,1024,512;4,1024,1024" "$O/variants_xent_wide.json" > "$O/variants_xent_wide.log" 2>&1
echo "variants_xent_wide rc $?"
$B --ops softmax,rmsnorm --dtypes f32,bf16 --rows 1,16,256,4096,65536 --cols 32,127,768,1000,4096,16384 \
   --force "-1,0,0;0,128,0;0,128,2;0,128,4;0,128,8;0,256,0" "$O/variants_rows.json" > "$O/variants_rows.log" 2>&1
echo "variants_rows rc $?"
$B --ops cross_entropy_mean --dtypes f32,bf16 --rows 1,16,256,1024 --cols 32,127,1000,4096,8192,32768,128256 \
   --force "-1,0,0;4,1024,256;6,1024,256;6,512,256" "$O/variants_xent.json" > "$O/variants_xent.log" 2>&1
echo "variants_xent rc $?"
