#!/usr/bin/env python3
"""peer_torch_gemm_sweep - the PyTorch peer of bench/bench_gemm_sweep.c: the same cells, same protocol.

    python3 bench/peer_torch_gemm_sweep.py CASES.tsv OUT.json [--no-compile] [--compile-filter SUB[,SUB..]]

CASES.tsv comes from `bench_gemm_sweep --list`: name dtype m n k batch ta tb epi.
A is stored (batch, m, k) or, when ta, (batch, k, m) and used transposed (a view:
cuBLAS gets the transpose flag, no copy); B likewise ((k, n), or (n, k) when tb).
batch 1: torch.matmul; batch > 1: torch.bmm. Epilogue cells (tb = 1: the
nn.Linear weight) time F.linear(x, W, b) + the activation as separate ops
("torch_eager") and the same function under torch.compile ("torch_compile").
fp32: allow_tf32 False (exact) or True (tf32 cells). fp8 / fp8fast cells (ta 0, tb 1):
A (m, k) and W (n, k) float8_e4m3fn, torch._scaled_mm(A, W.t(), scale_a, scale_b,
out_dtype=bfloat16, use_fast_accum=False / True), scales f32 in [0.5, 1.5): one each
(tensor_scale) or (m, 1) and (1, n) (row_scale). Each cell's result is
checked on 64 sampled outputs against a float64 product. i8 cells (ta 0, tb 1):
A (m, k) and W (n, k) int8, torch._int_mm(A, W.t()) -> int32 (its constraints:
m > 16, k and n multiples of 8); with row_scale the int32 result times sa (m, 1)
sb (1, n) to bfloat16 (eager: _int_mm then the scaling, torch has no fused int8
dequantising matmul). Timing: 3 warm-ups,
then up to 50 trials (about 0.2 s) between CUDA events with the L2 flushed
before each (a 2x L2 scratch write, untimed); the median.
"""
import json, sys
import torch
import torch.nn.functional as F

DT = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "tf32": torch.float32}
ACT = {"bias_gelu_tanh": lambda y: F.gelu(y, approximate="tanh"), "bias_gelu": F.gelu, "bias_silu": F.silu,
       "bias_relu": F.relu}


def sample_rows(m, n, dev):
    """The 64 (row, column) pairs a quantised cell checks, the same for every cell of a shape."""
    g = torch.Generator().manual_seed(1)
    return torch.randint(0, m, (64,), generator=g).to(dev), torch.randint(0, n, (64,), generator=g).to(dev)


def quant_cell(name, label, op, m, n, k, props, timeit, res, build, **extra):
    """Runs one quantised cell (record impl "torch_eager"): build() returns (fn, check), check(y) -> the sampled
    check's verdict; fn is then timed. A failure anywhere is recorded as the cell's error."""
    try:
        fn, check = build()
        y = fn()
        ok = check(y)
        del y
        s = timeit(fn)
    except Exception as e:  # noqa
        res.append(dict(name=name, impl="torch_eager", error=str(e)[:200]))
        print(name, "torch_eager failed", str(e)[:200])
        return
    tf = 2.0 * m * n * k / (s["median"] * 1e-3) / 1e12
    bgb = n * k / (s["median"] * 1e-3) / 1e9 if m <= 16 else 0.0
    res.append(dict(name=name, impl="torch_eager", op=op, correct=ok, hardware=props.name,
                    device="sm_%d%d" % (props.major, props.minor), tflops=tf, b_gbps=bgb, **extra, **s))
    print("%-44s %-14s %9.4f ms %8.1f TF/s %s" % (name, label, s["median"], tf, "ok" if ok else "FAIL"), flush=True)


def fp8_cell(name, d, m, n, k, epi, dev, props, timeit, res):
    """One fp8 cell: torch._scaled_mm with the accumulation mode of the cell."""
    fast = d == "fp8fast"
    rows = epi == "row_scale"

    def build():
        A = (torch.rand(m, k, device=dev) * 2 - 1).to(torch.float8_e4m3fn)
        W = (torch.rand(n, k, device=dev) * 2 - 1).to(torch.float8_e4m3fn)
        sa = (torch.rand(m, 1, device=dev) + 0.5) if rows else (torch.rand((), device=dev) + 0.5)
        sb = (torch.rand(1, n, device=dev) + 0.5) if rows else (torch.rand((), device=dev) + 0.5)

        def fn():
            return torch._scaled_mm(A, W.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=fast)

        def check(y):
            mi, nj = sample_rows(m, n, dev)
            a64, b64 = A[mi].double(), W[nj].double()
            sc = (sa.reshape(-1)[mi if rows else 0] * sb.reshape(-1)[nj if rows else 0]).double()
            ref = (a64 * b64).sum(-1) * sc
            mag = (a64 * b64).abs().sum(-1) * sc + 1
            return bool(((y.double()[mi, nj] - ref).abs() <= 1e-2 * mag).all())
        return fn, check
    quant_cell(name, "_scaled_mm", "torch._scaled_mm", m, n, k, props, timeit, res, build, use_fast_accum=fast)


def i8_cell(name, m, n, k, epi, dev, props, timeit, res):
    """One int8 cell: torch._int_mm (int32 out), or with row_scale its result scaled to bf16."""
    rows = epi == "row_scale"

    def build():
        A = torch.randint(-128, 128, (m, k), device=dev, dtype=torch.int8)
        W = torch.randint(-128, 128, (n, k), device=dev, dtype=torch.int8)
        sa = torch.rand(m, 1, device=dev) + 0.5
        sb = torch.rand(1, n, device=dev) + 0.5
        if rows:
            def fn():
                return (torch._int_mm(A, W.t()) * sa * sb).to(torch.bfloat16)
        else:
            def fn():
                return torch._int_mm(A, W.t())

        def check(y):
            mi, nj = sample_rows(m, n, dev)
            ref = (A[mi].long() * W[nj].long()).sum(-1)
            if not rows:
                return bool((y[mi, nj].long() == ref).all())
            sc = (sa.reshape(-1)[mi] * sb.reshape(-1)[nj]).double()
            mag = (A[mi].double() * W[nj].double()).abs().sum(-1) * sc + 1
            return bool(((y.double()[mi, nj] - ref.double() * sc).abs() <= 1e-2 * mag).all())
        return fn, check
    quant_cell(name, "_int_mm", "torch._int_mm" + (" + scale" if rows else ""), m, n, k, props, timeit, res, build)


def main():
    argv = sys.argv[1:]
    cfilter = None
    if "--compile-filter" in argv:
        i = argv.index("--compile-filter")
        cfilter = argv[i + 1].split(",")
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    cases_path, out = args[0], args[1]
    compile_ok = "--no-compile" not in argv
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    l2 = getattr(props, "L2_cache_size", 50 << 20) or (50 << 20)
    scratch = torch.empty(2 * l2, dtype=torch.uint8, device=dev)
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    copy = torch.empty(1 << 29, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(copy)
    for _ in range(3):
        dst.copy_(copy)
    torch.cuda.synchronize()
    e0.record()
    for _ in range(10):
        dst.copy_(copy)
    e1.record(); e1.synchronize()
    copy_gbps = 2 * copy.numel() * 10 / (e0.elapsed_time(e1) * 1e-3) / 1e9
    del copy, dst
    res = []

    def dump():
        with open(out, "w") as fh:
            json.dump({"tool": "peer_torch_gemm_sweep", "torch": torch.__version__, "copy_gbps": copy_gbps, "results": res}, fh, indent=1)

    def timeit(fn):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        e0.record(); fn(); e1.record(); e1.synchronize()
        ms = e0.elapsed_time(e1)
        trials = max(5, min(50, int(200 / max(ms, 1e-3))))
        ts = []
        for i in range(trials):
            scratch.fill_(i & 0xFF)
            e0.record(); fn(); e1.record(); e1.synchronize()
            ts.append(e0.elapsed_time(e1))
        ts.sort()
        n = len(ts); mean = sum(ts) / n
        return dict(mean=mean, std=(sum((t - mean) ** 2 for t in ts) / n) ** 0.5, min=ts[0], max=ts[-1],
                    median=ts[n // 2] if n % 2 else 0.5 * (ts[n // 2 - 1] + ts[n // 2]), num_trials=n)

    for line in open(cases_path):
        f = line.split()
        if len(f) < 9:
            continue
        name, d, m, n, k, b, ta, tb, epi = f[0], f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6]), int(f[7]), f[8]
        torch.backends.cuda.matmul.allow_tf32 = (d == "tf32")
        if d == "i8":
            i8_cell(name, m, n, k, epi, dev, props, timeit, res)
            torch.cuda.empty_cache()
            dump()
            continue
        if d.startswith("fp8"):
            fp8_cell(name, d, m, n, k, epi, dev, props, timeit, res)
            torch.cuda.empty_cache()
            dump()
            continue
        dt = DT[d]
        try:
            A = torch.rand(b, k, m, device=dev, dtype=dt) * 2 - 1 if ta else torch.rand(b, m, k, device=dev, dtype=dt) * 2 - 1
            B = torch.rand(b, n, k, device=dev, dtype=dt) * 2 - 1 if tb else torch.rand(b, k, n, device=dev, dtype=dt) * 2 - 1
            bias = torch.rand(n, device=dev, dtype=dt) * 2 - 1
        except RuntimeError as e:
            print(name, "alloc failed", e)
            continue
        opA = A.transpose(-1, -2) if ta else A
        opB = B.transpose(-1, -2) if tb else B
        impls = []
        if epi != "none":
            act = ACT[epi]
            x, W = opA[0], B[0]  # F.linear wants W stored (n, k): tb = 1 cells

            def fe(x=x, W=W, bias=bias, act=act):
                return act(F.linear(x, W, bias))
            impls.append(("torch_eager", fe))
            if compile_ok and (cfilter is None or any(c in name for c in cfilter)):
                torch._dynamo.reset()
                impls.append(("torch_compile", torch.compile(fe, dynamic=False)))
        elif b == 1:
            a0, b0 = opA[0], opB[0]
            impls.append(("torch_eager", lambda a0=a0, b0=b0: torch.matmul(a0, b0)))
        else:
            impls.append(("torch_eager", lambda opA=opA, opB=opB: torch.bmm(opA, opB)))
        # correctness of the peer itself (64 sampled outputs of the last batch, float64)
        y = impls[0][1]()
        y = y if y.dim() == 3 else y.unsqueeze(0)
        g = torch.Generator().manual_seed(1)
        mi = torch.randint(0, m, (64,), generator=g).to(dev)
        nj = torch.randint(0, n, (64,), generator=g).to(dev)
        a64 = opA[-1][mi].double()
        b64 = opB[-1][:, nj].t().double()
        ref = (a64 * b64).sum(-1)
        mag = (a64 * b64).abs().sum(-1) + 1
        if epi != "none":
            ref = ACT[epi](ref + bias.double()[nj])
        got = y[-1].double()[mi, nj]
        tol = {"f32": 1e-5, "tf32": 3e-3}.get(d, 1e-2)
        ok = bool(((got - ref).abs() <= tol * mag).all())
        del y
        for impl, fn in impls:
            try:
                s = timeit(fn)
            except Exception as e:  # noqa
                res.append(dict(name=name, impl=impl, error=str(e)[:200]))
                print(name, impl, "failed", str(e)[:200])
                continue
            tf = 2.0 * m * n * k * b / (s["median"] * 1e-3) / 1e12
            bgb = (n * k * b * A.element_size()) / (s["median"] * 1e-3) / 1e9 if m <= 16 else 0.0
            res.append(dict(name=name, impl=impl, correct=ok, hardware=props.name, device="sm_%d%d" % (props.major, props.minor),
                            tflops=tf, b_gbps=bgb, **s))
            print("%-44s %-14s %9.4f ms %8.1f TF/s %s" % (name, impl, s["median"], tf, "ok" if ok else "FAIL"), flush=True)
        del A, B, bias, opA, opB, impls
        torch.cuda.empty_cache()
        dump()  # after every cell: a run cut short keeps what it measured
    dump()


if __name__ == "__main__":
    main()
