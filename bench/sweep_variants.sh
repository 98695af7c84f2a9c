#!/usr/bin/env bash
# The measurements behind the row-op table (amdkit.h _ak_rowop_table): bench_sweep with --force over the
# shapes where the variants compete (amdkit only; each result records its "force" triple
# variant,block,param; -1 = the table's choice). Outputs OUTDIR/variants_*.json.
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
# narrow rows of the streaming kernels: bytes per thread 16 / 32 / 64 / 256; softmax/norm registers: per-thread elements
$B --ops sum,argmax,cross_entropy --dtypes f32,bf16 --rows 1,16,256,4096,65536 --cols 1,32,64,127,768,1000,4096 \
   --force "-1,0,0;4,256,16;4,256,32;4,256,64;4,256,256" "$O/variants_stream.json" > "$O/variants_stream.log" 2>&1
echo "variants_stream rc $?"
$B --ops softmax,rmsnorm --dtypes f32,bf16 --rows 1,16,256,4096,65536 --cols 32,127,768,1000,4096,16384 \
   --force "-1,0,0;0,128,0;0,128,2;0,128,4;0,128,8;0,256,0" "$O/variants_rows.json" > "$O/variants_rows.log" 2>&1
echo "variants_rows rc $?"
$B --ops cross_entropy_mean --dtypes f32,bf16 --rows 1,16,256,1024 --cols 32,127,1000,4096,32768 \
   --force "-1,0,0;4,256,256;6,1024,256" "$O/variants_xent.json" > "$O/variants_xent.log" 2>&1
echo "variants_xent rc $?"
