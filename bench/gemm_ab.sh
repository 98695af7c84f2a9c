#!/bin/bash
# A GEMM change against the tree before it, in one GPU call (from the repository root, OUT set):
#   bash bench/gemm_ab.sh CASES [OLD]
# builds bench_gemm_sweep from this tree and from OLD's amdkit.h (a commit, default HEAD~1; the file
# .dev/amdkit_old.h when OLD=file), one warm-up pass of each, then CASES (bench_gemm_sweep --cases format) twice,
# alternated (OUT/sw_old1, sw_new1, sw_old2, sw_new2 .json/.log), and PyTorch eager on the same cells
# (OUT/sw_torch.json). Read with:
#   python3 bench/results/h200_gemvn_narrow/compare.py sw old,new --dir DIR --torch DIR/sw_torch.json
set -u
C=$1; OLD=${2:-HEAD~1}
export AMDKIT_CACHE_DIR=${AMDKIT_CACHE_DIR:-/tmp/akc}
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r Makefile kernels tests bench tools examples /tmp/old/
if [ "$OLD" = file ]; then cp .dev/amdkit_old.h /tmp/old/amdkit.h; else git show "$OLD":amdkit.h > /tmp/old/amdkit.h; fi
( cd /tmp/old && make -s -j6 build/bench_gemm_sweep > /tmp/b_old.log 2>&1; echo "old build rc $?" ) &
make -s -j8 build/bench_gemm_sweep build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $? $SECONDS s"
wait
./build/bench_gemm_sweep --cases "$C" /tmp/w_new.json > /tmp/w_new.log 2>&1 &
/tmp/old/build/bench_gemm_sweep --cases "$C" /tmp/w_old.json > /tmp/w_old.log 2>&1; wait; echo "warm $SECONDS s"
for r in 1 2; do for t in old new; do
  b=/tmp/$t/build; [ $t = new ] && b=./build
  timeout 120 $b/bench_gemm_sweep --cases "$C" $OUT/sw_$t$r.json > $OUT/sw_$t$r.log 2>&1; echo "sw $t$r rc $? $SECONDS s"
done; done
grep -ciE "fail|wrong" $OUT/sw_*[0-9].log
timeout 150 python3 bench/peer_torch_gemm_sweep.py "$C" $OUT/sw_torch.json --no-compile > $OUT/sw_torch.log 2>&1; echo "torch rc $? $SECONDS s"
