#!/bin/bash
# The decode entries of bench_attention (16-bit and 8-bit K / V, bf16 q) and PyTorch SDPA eager on the same shapes
# in one call, from the repository root with OUT set (8-bit entries: SDPA over bf16 K / V of the same shape, what
# a user without an 8-bit kernel runs).
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
make -s -j12 build/bench_attention > /tmp/build.log 2>&1; echo "build rc $?"
timeout 200 ./build/bench_attention --decode --bf16 --trials 20 --filter decode $OUT/amdkit.json > $OUT/amdkit.log 2>&1; echo "bench rc $?"
timeout 250 python3 bench/peer_attention.py --match $OUT/amdkit.json --eager-only $OUT/both.json > $OUT/peer.log 2>&1; echo "peer rc $?"
tail -40 $OUT/peer.log
