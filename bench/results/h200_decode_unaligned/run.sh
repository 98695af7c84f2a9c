#!/bin/bash
# The 16-bit decode kernel on operands without 16-byte rows (plain loads) against the tree before (which ran the
# mma.sync tile kernels or the gemv kernel there): from the repository root with OUT set. Trees: this one (new),
# .dev/amdkit_old.h (the tree before), and .dev/amdkit_$v.h for v in $VARIANTS (bench/NOTES.md's section on this
# path names the forms measured). gpu_gemm's decode_path, gemv_path and turned_path first (TESTS=0: not), decode_path under
# compute-sanitizer memcheck and initcheck; then every tree on cases.tsv (un_: no 16-byte rows; al_: 16-byte rows,
# the path before), ROUNDS rounds (default 2) alternated; PyTorch eager on every cell (PEER=0: not).
# Read with: python3 bench/results/h200_gemvn_narrow/compare.py sw old,new --dir DIR --torch DIR/sw_torch.json
set -u
D=${D:-bench/results/h200_decode_unaligned} # another directory's cases.tsv with D set
C=$D/cases.tsv
export AMDKIT_CACHE_DIR=/tmp/akc
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | head -1
for v in old ${VARIANTS:-}; do
  rm -rf /tmp/$v; mkdir -p /tmp/$v; cp -r Makefile kernels tests bench tools examples /tmp/$v/; cp .dev/amdkit_$v.h /tmp/$v/amdkit.h
  ( cd /tmp/$v && make -s -j4 build/bench_gemm_sweep > /tmp/b_$v.log 2>&1; echo "$v build rc $?" ) &
done
make -s -j8 build/bench_gemm_sweep build/amdkit_tests > /tmp/b_new.log 2>&1; echo "new build rc $? $SECONDS s"
wait
if [ "${TESTS:-1}" = 1 ]; then
  for t in decode_path gemv_path turned_path; do
    AKT_ONLY=$t timeout 200 ./build/amdkit_tests --gpu gpu_gemm > $OUT/suite_$t.log 2>&1; echo "$t rc $? $SECONDS s"
  done
  for tool in memcheck initcheck; do
    AKT_ONLY=decode_path timeout 200 compute-sanitizer --tool $tool ./build/amdkit_tests --gpu gpu_gemm > $OUT/${tool}_decode.log 2>&1
    echo "$tool decode_path rc $? $SECONDS s"
  done
  tail -n 1 $OUT/suite_*.log $OUT/*check_decode.log
fi
for t in old new ${VARIANTS:-}; do
  b=/tmp/$t/build; [ $t = new ] && b=./build
  $b/bench_gemm_sweep --cases $C $OUT/w_$t.json > $OUT/w_$t.log 2>&1
done
echo "warm done $SECONDS s"
for r in $(seq 1 ${ROUNDS:-2}); do
  for t in old new ${VARIANTS:-}; do
    b=/tmp/$t/build; [ $t = new ] && b=./build
    timeout 90 $b/bench_gemm_sweep --cases $C $OUT/sw_$t$r.json > $OUT/sw_$t$r.log 2>&1; echo "sw $t$r rc $? $SECONDS s"
  done
done
grep -ciE "fail|wrong" $OUT/sw_*[0-9].log
[ "${PEER:-1}" = 1 ] && { timeout 150 python3 bench/peer_torch_gemm_sweep.py $C $OUT/sw_torch.json --no-compile > $OUT/sw_torch.log 2>&1; echo "torch rc $? $SECONDS s"; }
cd $OUT && tar czf all.tgz *.json *.log && rm -f *.json *.log
