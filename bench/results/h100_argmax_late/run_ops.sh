#!/bin/bash
# bench_ops' argmax entries (whole tensor and rows, f32 / f16 / bf16): the tree before the arg ops' trees
# (.dev/amdkit_old.h = the tree at the commit before, this tree's bench sources) and this one, alternated twice,
# then PyTorch eager and torch.compile on the same entries. From the repository root with OUT set.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile kernels tests bench tools examples /tmp/old/; cp .dev/amdkit_old.h /tmp/old/amdkit.h
( cd /tmp/old && make -s -j6 build/bench_ops > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
make -s -j8 build/bench_ops > /tmp/b_new.log 2>&1; echo "new build rc $?"
wait
for r in 1 2; do
  for t in old new; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    timeout 100 $b/bench_ops --filter argmax --max-s 1 $OUT/ops_$t$r.json > $OUT/ops_$t$r.log 2>&1; echo "ops $t$r rc $? $SECONDS s"
  done
done
timeout 150 python3 bench/peer_torch.py --filter argmax --impl both --max-s 1 $OUT/ops_torch.json > $OUT/ops_torch.log 2>&1; echo "torch rc $? $SECONDS s"
