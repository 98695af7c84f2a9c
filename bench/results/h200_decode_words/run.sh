#!/bin/bash
# The 16-bit decode kernel with B without 16-byte rows (16-byte cp.async of the aligned pieces around each row into a
# ring, shifted into the swizzled tile) against the tree before, from the repository root with OUT set: the
# h200_decode_unaligned script on this directory's cases.tsv (un_: no 16-byte rows in B or A; f1_: A without them, B
# with; al_: both with). Trees: this one (new), .dev/amdkit_old.h (the tree before), .dev/amdkit_$v.h for v in
# $VARIANTS; TESTS=0, PEER=0 and ROUNDS as that script says.
# Read with: python3 bench/results/h200_gemvn_narrow/compare.py sw old,new --dir DIR --torch DIR/sw_torch.json
D=bench/results/h200_decode_words exec bash bench/results/h200_decode_unaligned/run.sh "$@"
