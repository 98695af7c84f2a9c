#!/usr/bin/env python3
"""peer_torch_gemm_fp8 - the PyTorch peer of bench/bench_gemm_fp8.c: same cases, layouts and protocol.

    python3 bench/peer_torch_gemm_fp8.py [--quick] OUT.json

Each case: A (M, K) and W (N, K) float8_e4m3fn on the device, y = torch._scaled_mm(A, W.t(),
scale_a, scale_b, out_dtype=bfloat16) (cuBLASLt's fp8 GEMM; W.t() is the column-major
operand it wants), scales f32: per tensor (1 x 1) or rowwise (M x 1 and 1 x N). Timing:
3 warm-ups, then 10..100 trials (about 0.2 s) between CUDA events with the L2 flushed
before each. Also bf16 torch.matmul(A, W.t()) at the squares (the 16-bit baseline).
"""
import json, sys
import torch

def cases(quick):
    out = []
    for i, s in enumerate([2048, 4096, 6144, 8192]):
        s = (256 << (i // 2)) if quick else s
        for r in (0, 1):
            out.append(("fp8_square_%d_%s" % (s, "rowwise" if r else "tensor"), s, s, s, r))
    if not quick:
        for m in [1, 16, 128, 2048, 16384]:
            for n, k in [(4096, 4096), (14336, 4096), (4096, 14336)]:
                out.append(("fp8_llm_m%d_n%d_k%d_rowwise" % (m, n, k), m, n, k, 1))
    return out

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
        trials = 3 if quick else max(10, min(100, int(200 / max(ms, 1e-3))))
        ts = []
        for i in range(trials):
            scratch.fill_(i & 0xFF)
            e0.record(); fn(); e1.record(); e1.synchronize()
            ts.append(e0.elapsed_time(e1))
        ts.sort()
        n = len(ts); mean = sum(ts) / n
        return dict(mean=mean, std=(sum((t - mean) ** 2 for t in ts) / n) ** 0.5, min=ts[0], max=ts[-1],
                    median=ts[n // 2] if n % 2 else 0.5 * (ts[n // 2 - 1] + ts[n // 2]), num_trials=n,
                    times=[float("%.6g" % t) for t in ts])
    for name, m, n, k, rw in cases(quick):
        A = (torch.rand(m, k, device=dev) * 2 - 1).to(torch.float8_e4m3fn)
        W = (torch.rand(n, k, device=dev) * 2 - 1).to(torch.float8_e4m3fn)
        sa = (torch.rand(m, 1, device=dev) + 0.5) if rw else torch.tensor(1.1, device=dev)
        sb = (torch.rand(1, n, device=dev) + 0.5) if rw else torch.tensor(0.9, device=dev)
        impls = [("torch_scaled_mm", lambda A=A, W=W, sa=sa, sb=sb: torch._scaled_mm(A, W.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16))]
        if m == n == k and not rw:
            Ab, Wb = A.to(torch.bfloat16), W.to(torch.bfloat16)
            impls.append(("torch_bf16", lambda Ab=Ab, Wb=Wb: torch.matmul(Ab, Wb.t())))
        for impl, fn in impls:
            try:
                s = timeit(fn)
            except Exception as e:  # noqa
                res.append(dict(name=name, impl=impl, error=str(e)[:300])); print(name, impl, "failed", str(e)[:300]); continue
            tf = 2.0 * m * n * k / (s["median"] * 1e-3) / 1e12
            res.append(dict(name=name, impl=impl, hardware=props.name, device="sm_%d%d" % (props.major, props.minor), tflops=tf, **s))
            print("%-44s %-16s %10.4f ms %8.1f TF/s" % (name, impl, s["median"], tf), flush=True)
        del A, W
        torch.cuda.empty_cache()
    with open(out, "w") as fh:
        json.dump({"tool": "peer_torch_gemm_fp8", "torch": torch.__version__, "results": res}, fh, indent=1)

if __name__ == "__main__":
    main()
