#!/bin/bash
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
make -s -j14 build/amdkit build/bench_attention 2>&1 | tail -3
B=./build/bench_attention
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu | head -1)
$NCU --version | tail -1
f="decode_kv8 bf16 kv fp8_e4m3 b32 hq32 hkv8 sq1 skv4096 d128"
timeout 200 "$NCU" --clock-control none --kernel-name regex:"mmadec" --launch-skip 2 --launch-count 1 --section SourceCounters --print-details all \
    $B --decode --bf16 --trials 1 --filter "$f" > $OUT/src.txt 2>&1; echo "details exit $?"
timeout 200 "$NCU" --clock-control none --kernel-name regex:"mmadec" --launch-skip 2 --launch-count 1 --section SourceCounters --page source --print-source sass --csv \
    $B --decode --bf16 --trials 1 --filter "$f" > /tmp/sass.csv 2>&1; echo "source exit $?"
gzip -c /tmp/sass.csv > $OUT/sass.csv.gz; ls -la $OUT
grep -iE 'excessive|sectors' $OUT/src.txt | head -30
