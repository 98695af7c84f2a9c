#!/bin/bash
# Decode split rule: the host's split count as host-only variants of one tree (the kernels are the same, so they
# compile once): splits = 1 (s1), floor(2 cus / column blocks) (s2), ceil(cus / blocks) (c1), ceil(1.5 cus / blocks)
# (c2); the call before this one ran 4 (main then), 3 and 2 an SM the same way, with the PyTorch peer.
set -u
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
for d in s1 s2 c1 c2; do rm -rf /tmp/$d; mkdir -p /tmp/$d; cp -r Makefile amdkit.h kernels tests bench tools examples /tmp/$d/ 2>/dev/null; done
sed -i 's|size_t splits = (size_t)4 \* (size_t)cus / per, kper;|size_t splits = 1 + 0 * per, kper;|' /tmp/s1/amdkit.h
sed -i 's|size_t splits = (size_t)4 \* (size_t)cus / per, kper;|size_t splits = (size_t)2 * (size_t)cus / per, kper;|' /tmp/s2/amdkit.h
sed -i 's|size_t splits = (size_t)4 \* (size_t)cus / per, kper;|size_t splits = ((size_t)cus + per - 1) / per, kper;|' /tmp/c1/amdkit.h
sed -i 's|size_t splits = (size_t)4 \* (size_t)cus / per, kper;|size_t splits = ((size_t)3 * (size_t)cus / 2 + per - 1) / per, kper;|' /tmp/c2/amdkit.h
grep -c "size_t splits = 1 + 0" /tmp/s1/amdkit.h; grep -c "(size_t)cus + per - 1" /tmp/c1/amdkit.h; grep -c "cus / 2 + per" /tmp/c2/amdkit.h
for d in s1 s2 c1 c2; do ( cd /tmp/$d && make -s -j4 build/bench_gemm_sweep > /tmp/b_$d.log 2>&1; echo "$d build rc $?" ) & done
make -s -j4 build/bench_gemm_sweep > /tmp/b_new.log 2>&1; echo "new build rc $?"
wait
F=dec_,tall_nn_11008,tall_nt_11008,tall_tt_14336,gemv_tn_14336
./build/bench_gemm_sweep --filter $F --list $OUT/sp_cases.tsv $OUT/sp_w.json > $OUT/sp_w.log 2>&1; echo "warm rc $? $SECONDS s"
for r in 1 2; do
  for t in s2 s1 c1 c2; do
    b=/tmp/$t/build
    timeout 80 $b/bench_gemm_sweep --filter $F $OUT/sp_$t$r.json > $OUT/sp_$t$r.log 2>&1; echo "sp $t$r rc $? $SECONDS s"
  done
done
