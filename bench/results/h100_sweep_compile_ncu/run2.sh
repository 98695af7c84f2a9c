# Second half: the same kind of cells under the sweep's own protocol (flush fill + 50 us spin + events), with
# nsys (kernel start / duration on the GPU timeline: the gap after the spin, the kernel's duration with the
# flush's dirty L2) and ncu --cache-control none (kernel duration without ncu's cache flush). H100, one call.
set -u
mkdir -p /tmp/w && tar -xzf "${TREE:-.dev/tree.tgz}" -C /tmp/w && cd /tmp/w || exit 1
T0=$(date +%s); say() { echo "== $* at $(( $(date +%s) - T0 )) s"; }
export AMDKIT_CACHE_DIR=/tmp/w/build/gpu-cache PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R; trap "cd \$OUT && tar -czf run2.tgz r" TERM
make -s -j12 build/bench_sweep > /tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }
say built; which nsys ncu
A="--ops sum,argmax,transpose,softmax,rmsnorm,cross_entropy_mean --dtypes f32,f16 --rows 256,4096 --cols 4096,32768 --max-bytes 67108864"
./build/bench_sweep $A $R/plain.json > $R/plain.log 2>&1; say plain
if which nsys > /dev/null; then
  timeout 60 nsys profile -t cuda -o /tmp/p -f true ./build/bench_sweep $A /tmp/n.json > $R/nsys.log 2>&1
  nsys stats -r cuda_gpu_trace -f csv -o /tmp/s /tmp/p.nsys-rep >> $R/nsys.log 2>&1; gzip -c /tmp/s*gpu_trace*.csv > $R/nsys_gpu_trace.csv.gz
  cp /tmp/n.json $R/nsys_run.json; say nsys
fi
timeout 60 ncu --clock-control none --cache-control none --csv --metrics gpu__time_duration.sum,dram__bytes_write.sum,dram__bytes_read.sum \
  -k regex:'^ak_(softmax|reduce|norm|xent|transpose)' ./build/bench_sweep --ops sum,transpose,softmax --dtypes f32,f16 --rows 256,4096 --cols 4096 /tmp/c.json > $R/ncu_nocache.csv 2>&1; say ncu
cd $OUT && tar -czf run2.tgz r && rm -rf r
