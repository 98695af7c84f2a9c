#!/usr/bin/env python3
"""peer_torch_gemm - the PyTorch peer of bench/bench_gemm.c: same cases, layouts and protocol.

    python3 bench/peer_torch_gemm.py [--quick] [--compile-filter SUBSTR] OUT.json

Each case: A (batch, M, K) and W (batch, N, K) random in [-1, 1) on the device,
y = A @ W^T (torch.matmul on W.transpose(-1, -2), i.e. the nn.Linear layout,
which cuBLAS runs as a TN GEMM), for the fused case y = gelu(A @ W^T + b) as
three ops. fp32: torch.backends.cuda.matmul.allow_tf32 False (exact), tf32
cases True. "torch_eager" runs every case; "torch_compile" (torch.compile,
dynamic=False) runs the fused-epilogue cases and the 4096 square ones (for a
lone matmul it calls the same cuBLAS kernel as eager). Timing: 3 warm-ups, then
10..100 trials between CUDA events with the L2 flushed before each (a 2x L2
scratch write, untimed). JSON: {"results": [{"name", "impl", "mean", "std",
"min", "max", "median", "num_trials", "hardware", "device", "tflops"}]}.
"""
import json, sys, time
import torch
import torch.nn.functional as F

def cases(quick):
    out = []
    for i, s in enumerate([1024, 2048, 4096, 8192]):
        s = (64 << (i // 2)) if quick else s
        for d in ["f16", "bf16", "f32", "tf32"]:
            out.append((f"gemm_square_{s}_{d}", d, s, s, s, 1, 0))
    if not quick:
        for m in [1, 16, 4096, 16384]:
            for n, k in [(4096, 4096), (14336, 4096), (4096, 14336), (128256, 4096)]:
                out.append((f"gemm_llm_m{m}_n{n}_k{k}_bf16", "bf16", m, n, k, 1, 0))
        for n, k in [(4096, 4096), (14336, 4096), (4096, 14336), (128256, 4096)]:
            out.append((f"gemm_bias_gelu_m4096_n{n}_k{k}_bf16", "bf16", 4096, n, k, 1, 1))
    for d in ["f16", "bf16"]:
        b, m = (4, 64) if quick else (64, 512)
        out.append((f"gemm_batched_{b}x{m}x{m}x64_{d}", d, m, m, 64, b, 0))
    return out

DT = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "tf32": torch.float32}

def main():
    quick = "--quick" in sys.argv
    out = [a for a in sys.argv[1:] if not a.startswith("--")][-1]
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    l2 = getattr(props, "L2_cache_size", 50 << 20) or (50 << 20)
    scratch = torch.empty(2 * l2, dtype=torch.uint8, device=dev)
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    res = []
    def timeit(fn):
        for _ in range(3): fn()
        torch.cuda.synchronize()
        e0.record(); fn(); e1.record(); e1.synchronize()
        ms = e0.elapsed_time(e1)
        trials = 3 if quick else max(10, min(100, int(300 / max(ms, 1e-3))))
        ts = []
        for i in range(trials):
            scratch.fill_(i & 0xFF)
            e0.record(); fn(); e1.record(); e1.synchronize()
            ts.append(e0.elapsed_time(e1))
        ts.sort()
        n = len(ts); mean = sum(ts) / n
        return dict(mean=mean, std=(sum((t - mean) ** 2 for t in ts) / n) ** 0.5, min=ts[0], max=ts[-1],
                    median=ts[n // 2] if n % 2 else 0.5 * (ts[n // 2 - 1] + ts[n // 2]), num_trials=n,
                    times=[float("%.6g" % t) for t in ts])   # samples: bench/report.py's intervals
    for name, d, m, n, k, b, epi in cases(quick):
        torch.backends.cuda.matmul.allow_tf32 = (d == "tf32")
        dt = DT[d]
        try:
            A = torch.rand(b, m, k, device=dev, dtype=dt) * 2 - 1
            W = torch.rand(b, n, k, device=dev, dtype=dt) * 2 - 1
            bias = torch.rand(n, device=dev, dtype=dt) * 2 - 1
            if b == 1: A, W = A[0], W[0]
        except RuntimeError as e:
            print(name, "alloc failed", e); continue
        if epi:
            def f(A=A, W=W, bias=bias): return F.gelu(torch.matmul(A, W.transpose(-1, -2)) + bias)
        else:
            def f(A=A, W=W): return torch.matmul(A, W.transpose(-1, -2))
        impls = [("torch_eager", f)]
        if epi or (m == 4096 and n == 4096 and k == 4096 and not quick):
            torch._dynamo.reset()
            impls.append(("torch_compile", torch.compile(f, dynamic=False)))
        for impl, fn in impls:
            try:
                s = timeit(fn)
            except Exception as e:  # noqa
                res.append(dict(name=name, impl=impl, error=str(e)[:200])); print(name, impl, "failed", str(e)[:200]); continue
            tf = 2.0 * m * n * k * b / (s["median"] * 1e-3) / 1e12
            res.append(dict(name=name, impl=impl, hardware=props.name, device="sm_%d%d" % (props.major, props.minor), tflops=tf, **s))
            print("%-44s %-14s %10.4f ms %8.1f TF/s" % (name, impl, s["median"], tf), flush=True)
        del A, W, bias
        torch.cuda.empty_cache()
    with open(out, "w") as fh:
        json.dump({"tool": "peer_torch_gemm", "torch": torch.__version__, "results": res}, fh, indent=1)

if __name__ == "__main__":
    main()
