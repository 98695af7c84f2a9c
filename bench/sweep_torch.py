#!/usr/bin/env python3
"""sweep_torch - the PyTorch side of bench/bench_sweep.c: the same cells, timed
with PyTorch eager and torch.compile in the same run.

    python3 bench/sweep_torch.py --match SWEEP.json [--budget-s S] [--impl eager|compile|both] OUT.json
    python3 bench/sweep_torch.py --warm --shard I/N [--ops a,b] [--dtypes f32,..]

--match: time exactly the cells of a bench_sweep.c result (ops, dtypes, rows x cols, and its byte
counts, so both sides divide the same number). Protocol: bench/peer_torch.py's Timer (CUDA events,
L2 flushed before each trial, the host dispatch hidden behind a spin kernel), 2 warm-ups, then
25 trials (10 past 0.5 ms, 5 past 5 ms), median. Inputs: one random tensor per dtype (torch.randn)
of the largest cell, each cell a view of its prefix; weights / biases random; cross-entropy
targets random with every 17th row ignored (-100), as bench_sweep.c.

torch.compile: ONE compiled function per op x dtype with dynamic shapes (dynamic=True), so the
grid does not recompile per cell (dynamo still specializes sizes 0 and 1: rows = 1 / cols = 1
cells compile their own graph). Before an op x dtype's cells, the compiled function runs once on a
mid-size input (1024 x 4096) so its compile and Triton autotuning see a realistic shape.
--static: instead, every cell gets its own torch.compile(dynamic=False) after a dynamo reset (the
function a user who compiles one model shape gets; Inductor then specialises the row width, which
the dynamic function cannot): a few seconds of compiling per cell, so for rings and spot checks
rather than the whole grid. The compile happens in the untimed calls before the trials.

--warm compiles (and runs once on small inputs) every op x dtype of a shard, to fill the inductor
and Triton caches on disk while bench_sweep runs (bench/sweep_device.sh): the timing run then
loads the compiled kernels instead of compiling them. It times nothing. --warm --static --match
CELLS.json does the same for the per-cell static compile of those cells (at their shapes: run it
before, not beside, the timings).

Ops (the PyTorch calls; math in fp32 for f16 / bf16 like amdkit where torch allows it):
  softmax / log_softmax: F.softmax / F.log_softmax(x, -1)
  layernorm: F.layer_norm(x, (C,), w, b, 1e-5); rmsnorm: F.rms_norm(x, (C,), w, 1e-5)
  sum / mean: torch.sum / mean(x, -1, dtype=float32); max / min: torch.amax / amin(x, -1)
  argmax / argmin: torch.argmax / argmin(x, -1)
  cross_entropy / cross_entropy_mean: F.cross_entropy(x, t, reduction=none / mean, ignore_index=-100)
  transpose: x.t().contiguous()

JSON: {"tool", "hardware", "torch_version", "copy_gbps", "results": [{"op", "dtype", "rows",
"cols", "impl": "torch_eager" | "torch_compile", "median", "min", "mean", "std", "trials", "bytes",
"gbps", "frac"[, "error"]}]}; rewritten after every op x dtype.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

OPS = ("softmax", "log_softmax", "layernorm", "rmsnorm", "sum", "mean", "max", "min", "argmax", "argmin",
       "cross_entropy", "cross_entropy_mean", "transpose")
DTYPES = ("f32", "f16", "bf16")
WARM_SHAPES = ((1024, 4096), (1, 4096), (1024, 1), (1, 1))


def op_fn(op, torch, F):
    f32 = torch.float32
    if op == "softmax":
        return lambda x: F.softmax(x, -1)
    if op == "log_softmax":
        return lambda x: F.log_softmax(x, -1)
    if op == "layernorm":
        return lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)
    if op == "rmsnorm":
        return lambda x, w: F.rms_norm(x, (x.shape[-1],), w, 1e-5)
    if op == "sum":
        return lambda x: torch.sum(x, -1, dtype=f32)
    if op == "mean":
        return lambda x: torch.mean(x, -1, dtype=f32)
    if op == "max":
        return lambda x: torch.amax(x, -1)
    if op == "min":
        return lambda x: torch.amin(x, -1)
    if op == "argmax":
        return lambda x: torch.argmax(x, -1)
    if op == "argmin":
        return lambda x: torch.argmin(x, -1)
    if op == "cross_entropy":
        return lambda x, t: F.cross_entropy(x, t, reduction="none", ignore_index=-100)
    if op == "cross_entropy_mean":
        return lambda x, t: F.cross_entropy(x, t, reduction="mean", ignore_index=-100)
    if op == "transpose":
        return lambda x: x.t().contiguous()
    raise ValueError(op)


def make_args(op, x, big_w, big_b, torch):
    R, C = x.shape
    if op == "layernorm":
        return (x, big_w[:C], big_b[:C])
    if op == "rmsnorm":
        return (x, big_w[:C])
    if op.startswith("cross_entropy"):
        t = torch.randint(0, C, (R,), device=x.device, dtype=torch.int64)
        t[16::17] = -100
        return (x, t)
    return (x,)


def setup_torch():
    import torch
    import torch.nn.functional as F
    import torch._dynamo
    cfg = torch._dynamo.config
    for name in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                 "accumulated_recompile_limit"):
        if hasattr(cfg, name):
            setattr(cfg, name, 256)
    return torch, F


def warm(a):
    torch, F = setup_torch()
    i, n = (int(v) for v in a.shard.split("/"))
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    if a.static:  # --warm --static --match CELLS.json: compile (and run once) each cell of the shard at its shape
        with open(a.match) as f:
            cells = [c for c in json.load(f)["results"] if c["op"] in a.ops and c["dtype"] in a.dtypes]
        t0 = time.time()
        for k, c in enumerate(cells):
            if k % n != i:
                continue
            R, C, dt = c["rows"], c["cols"], c["dtype"]
            try:
                torch._dynamo.reset()
                fn = torch.compile(op_fn(c["op"], torch, F), dynamic=False)
                x = torch.randn(R, C, device="cuda", dtype=tdt[dt])
                w = torch.randn(max(C, 4096), device="cuda", dtype=tdt[dt])
                fn(*make_args(c["op"], x, w, w, torch))
                torch.cuda.synchronize()
                del x, w
            except Exception as e:  # noqa: BLE001
                print("warm %s %s %dx%d: %s" % (c["op"], dt, R, C, str(e).splitlines()[0][:200]))
        print("sweep_torch --warm --static %s: %.0f s" % (a.shard, time.time() - t0))
        return 0
    jobs = [(op, dt) for op in a.ops for dt in a.dtypes]
    t0 = time.time()
    for k, (op, dt) in enumerate(jobs):
        if k % n != i:
            continue
        fn = torch.compile(op_fn(op, torch, F), dynamic=True)
        w = torch.randn(4096, device="cuda", dtype=tdt[dt])
        b = torch.randn(4096, device="cuda", dtype=tdt[dt])
        for (R, C) in WARM_SHAPES:
            x = torch.randn(R, C, device="cuda", dtype=tdt[dt])
            try:
                fn(*make_args(op, x, w, b, torch))
            except Exception as e:  # noqa: BLE001
                print("warm %s %s %dx%d: %s" % (op, dt, R, C, str(e).splitlines()[0][:200]))
        torch.cuda.synchronize()
    print("sweep_torch --warm %s: %.0f s" % (a.shard, time.time() - t0))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?")
    ap.add_argument("--match", help="bench_sweep.c JSON whose cells to time")
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--shard", default="0/1")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--dtypes", default=",".join(DTYPES))
    ap.add_argument("--impl", choices=("eager", "compile", "both"), default="both")
    ap.add_argument("--budget-s", type=float, default=None)
    ap.add_argument("--static", action="store_true", help="torch.compile(dynamic=False) per cell")
    a = ap.parse_args(argv)
    a.ops = [o for o in a.ops.split(",") if o]
    a.dtypes = [d for d in a.dtypes.split(",") if d]
    if a.warm:
        return warm(a)
    if not a.match or not a.out:
        ap.error("--match SWEEP.json and OUT.json are required")
    with open(a.match) as f:
        ref = json.load(f)
    cells = [r for r in ref["results"] if r["op"] in a.ops and r["dtype"] in a.dtypes]
    torch, F = setup_torch()
    from peer_torch import Timer, summarize
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    dev = torch.device("cuda", torch.cuda.current_device())
    props = torch.cuda.get_device_properties(dev)
    l2 = int(getattr(props, "L2_cache_size", 0) or 0)
    timer = Timer(torch, 2, 25, 2 * l2 if l2 > 0 else (128 << 20))
    t0 = time.time()
    nb = 1 << 30
    src = torch.empty(nb, dtype=torch.uint8, device=dev).fill_(1)
    dst = torch.empty_like(src)
    cs = summarize(timer.run(lambda s, d: d.copy_(s), (src, dst)))
    copy_gbps = 2.0 * nb / (cs["median"] * 1e-3) / 1e9
    del src, dst
    head = {"tool": "amdkit sweep_torch", "hardware": props.name, "torch_version": torch.__version__,
            "copy_gbps": round(copy_gbps, 2), "matched": os.path.basename(a.match),
            "compile": "torch.compile(dynamic=False), one function per cell" if a.static else
                       "torch.compile(dynamic=True), one function per op x dtype"}
    print("sweep_torch on %s, torch %s, copy %.1f GB/s, %d cells" % (props.name, torch.__version__, copy_gbps,
                                                                        len(cells)))
    impls = {"eager": ["torch_eager"], "compile": ["torch_compile"], "both": ["torch_eager", "torch_compile"]}[a.impl]
    results = []
    groups = []
    for c in cells:
        key = (c["op"], c["dtype"])
        if not groups or groups[-1][0] != key:
            groups.append((key, []))
        groups[-1][1].append(c)
    stopped = False
    for (op, dt), gc in groups:
        if stopped:
            break
        maxn = max(c["rows"] * c["cols"] for c in gc)
        maxc = max(c["cols"] for c in gc)
        torch.cuda.empty_cache()
        big = torch.randn(maxn, device=dev, dtype=tdt[dt])
        bw = torch.randn(max(maxc, 4096), device=dev, dtype=tdt[dt])
        bb = torch.randn(max(maxc, 4096), device=dev, dtype=tdt[dt])
        fns = {"torch_eager": op_fn(op, torch, F)}
        tc = time.time()
        if not a.static:  # --static compiles per cell below
            try:
                fns["torch_compile"] = torch.compile(op_fn(op, torch, F), dynamic=True)
                R, C = (1024, 4096) if maxn >= 1024 * 4096 else (gc[-1]["rows"], gc[-1]["cols"])
                fns["torch_compile"](*make_args(op, big[:R * C].view(R, C), bw, bb, torch))
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001
                print("compile %s %s: %s" % (op, dt, str(e).splitlines()[0][:200]))
        print("%s %s: %d cells, first compile %.1f s" % (op, dt, len(gc), time.time() - tc))
        for c in gc:
            if a.budget_s is not None and time.time() - t0 > a.budget_s:
                print("sweep_torch: --budget-s %.0f reached at %s %s [%d, %d]" % (a.budget_s, op, dt, c["rows"],
                                                                                   c["cols"]))
                head["stopped_at"] = [op, dt, c["rows"], c["cols"]]
                stopped = True
                break
            R, C = c["rows"], c["cols"]
            x = big[:R * C].view(R, C)
            args = make_args(op, x, bw, bb, torch)
            if a.static and "torch_compile" in impls:
                torch._dynamo.reset()
                fns["torch_compile"] = torch.compile(op_fn(op, torch, F), dynamic=False)
            for impl in impls:
                rec = {"op": op, "dtype": dt, "rows": R, "cols": C, "impl": impl, "bytes": c["bytes"]}
                fn = fns.get(impl)
                try:
                    if fn is None:
                        raise RuntimeError("no compiled function")
                    est = summarize(timer_probe(timer, torch, fn, args))
                    timer.trials = 5 if est["median"] > 5.0 else 10 if est["median"] > 0.5 else 25
                    st = summarize(timer.run(fn, args))
                    rec.update({k: round(st[k], 6) for k in ("median", "min", "mean", "std")})
                    rec["trials"] = st["num_trials"]
                    rec["gbps"] = round(c["bytes"] / (st["median"] * 1e-3) / 1e9, 2)
                    rec["frac"] = round(rec["gbps"] / copy_gbps, 4)
                except Exception as e:  # noqa: BLE001
                    rec["error"] = ("%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip()
                                                else ""))[:300]
                    print("%s %s [%d, %d] %s FAILED: %s" % (op, dt, R, C, impl, rec["error"][:150]))
                    try:
                        torch.cuda.synchronize()
                    except Exception:  # noqa: BLE001
                        pass
                results.append(rec)
        del big, bw, bb, fns
        write(a.out, head, results)
    write(a.out, head, results)
    print("sweep_torch: %d results, %.0f s -> %s" % (len(results), time.time() - t0, a.out))
    return 0


def timer_probe(timer, torch, fn, args):
    """two untimed calls then one timed one (no flush): the order of magnitude, to pick the trial count"""
    for _ in range(2):
        fn(*args)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn(*args)
    e.record()
    e.synchronize()
    return [s.elapsed_time(e)]


def write(path, head, results):
    doc = dict(head)
    doc["results"] = results
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f)
        f.write("\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
