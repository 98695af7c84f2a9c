#!/bin/bash
# ncu of the gemvn kernel and its finishing pass on 1 x 4096 x 4096 f32, and of PyTorch (cuBLAS) on the same product; from the repository root with OUT set
export AMDKIT_CACHE_DIR=/tmp/akc
make -s -j16 build/bench_gemm_sweep > /tmp/b.log 2>&1 || { tail /tmp/b.log; exit 1; }
printf 'p_nn_1x4096x4096_f32\tf32\t1\t4096\t4096\t1\t0\t0\tnone\n' > /tmp/p1.tsv
./build/bench_gemm_sweep --cases /tmp/p1.tsv /tmp/w.json > /dev/null 2>&1
timeout 200 ncu --clock-control none --kernel-name regex:"gemvn|decode_fin" --launch-skip 6 --launch-count 2 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis \
  --section LaunchStats ./build/bench_gemm_sweep --cases /tmp/p1.tsv /tmp/x1.json > $OUT/ncu_1x4096x4096.txt 2>&1
echo "ncu ak rc $? $SECONDS s"
cat > /tmp/t.py <<'PY'
import torch
x = torch.randn(1, 4096, device='cuda'); w = torch.randn(4096, 4096, device='cuda')
torch.backends.cuda.matmul.allow_tf32 = False
for _ in range(8): y = x @ w
torch.cuda.synchronize()
PY
timeout 200 ncu --clock-control none --launch-skip 5 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis \
  --section LaunchStats python3 /tmp/t.py > $OUT/ncu_torch_1x4096x4096.txt 2>&1
echo "ncu torch rc $? $SECONDS s"
