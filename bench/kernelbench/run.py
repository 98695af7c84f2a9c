#!/usr/bin/env python3
"""kernelbench/run - KernelBench level 1 (100 single-operator problems) through
amdkit's ops, checked against PyTorch eager and timed beside eager and
torch.compile in the same process.

    python3 bench/kernelbench/run.py [--problems 1-18,19-32,...] [--precision fp32|fp16|bf16]
                                     [--trials N] [--warmup N] [--no-compile] [--budget-s S]
                                     [--lib build/libamdkit_kb.so] [--out DIR] [--list]
    python3 bench/kernelbench/run.py merge DIR/results-*.json --out DIR

Problems (bench/kernelbench/problems.py): each level-1 problem at KernelBench's
own shapes (the public problem files' get_inputs / get_init_inputs: the same
shapes, distributions, init arguments and the module's default state, e.g. a
BatchNorm2d in training mode), written here as three callables: the inputs,
the PyTorch reference (the problem's forward), and the amdkit version (ops of
amdkit.h through ctypes on the same CUDA tensors: amdkit's cuda backend uses
the device's primary context, the one PyTorch uses, so device pointers pass
as they are). A problem amdkit cannot express is listed with the reason
("not_expressible"), never faked or timed (none is, today).

Correctness (KernelBench's rule): torch.allclose(reference, amdkit,
atol=rtol=tol) with tol 1e-4 for fp32, 1e-2 for fp16 / bf16 (KernelBench's
get_tolerance_for_precision), on the inputs of this run, before any timing,
the reference computed with TF32 off (exact(): PyTorch's default rounds the
inputs of fp32 cuDNN convolutions to TF32; the timed eager and compiled runs
keep PyTorch's defaults);
max |difference| is recorded. An amdkit call that fails is an error entry.

Timing (KernelBench's time_execution_with_cuda_event): per trial, synchronize,
flush the L2 by writing a 256 MiB scratch tensor, CUDA events around one call
on the current stream, synchronize; --warmup calls first (for torch.compile
the first compiles: dynamo reset per problem, mode default, dynamic=False).
The same protocol for torch eager, torch.compile and amdkit. Host dispatch is
inside the events for all three, as in KernelBench. The implementations take
their trials in turn (trial k of each, the order rotated every trial), so a
slow stretch of the GPU (clocks after the correctness pass, a neighbour's
load) lands on all of them: timed one after the other with 5 trials, the
same relu kernel read 0.86-0.94x eager there and 1.00x alone.

Output (--out, default build/kernelbench): results-<tag>.json (every
problem: status, correctness, the three timings with every trial), and from
all results files in DIR (or those given to `merge`):
  baseline_amdkit.json, baseline_torch_eager.json, baseline_torch_compile.json
    KernelBench's baseline format: {"level1": {"<file>.py": {"mean", "std",
    "min", "max", "num_trials", "hardware", "device"}}} (ms);
  kb_amdkit_ops.json, kb_torch_ops.json: the bench_ops / peer_torch formats,
    so `python3 bench/report.py kb_amdkit_ops.json kb_torch_ops.json` gives the
    usual per-entry table and fast_p;
  fastp.json + summary.md: fast_0 / fast_1 / fast_1.5 / fast_2 against eager
    and torch.compile as bench/report.py computes them (median speedup with
    its order-statistic interval; win / tie / loss / incorrect), over the
    problems run and over all 100 (a problem not run, not expressible or
    incorrect counts as not fast).
Exit status 0 when every run problem is correct, 1 otherwise, 2 on a usage error.
"""
import argparse
import ctypes
import glob
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "bench"))

TOL = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2}
IMPLS = ("amdkit", "torch_eager", "torch_compile")


def parse_ranges(spec):
    out = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def build_lib(path):
    """Compile bench/kernelbench/kb_shim.c (amdkit + flat wrappers) into a shared library when it is missing or
    older than amdkit.h / the shim."""
    src = os.path.join(HERE, "kb_shim.c")
    hdr = os.path.join(ROOT, "amdkit.h")
    if os.path.exists(path) and os.path.getmtime(path) >= max(os.path.getmtime(src), os.path.getmtime(hdr)):
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-std=c99", "-O2", "-shared", "-fPIC", src, "-o", path, "-ldl", "-lpthread", "-lm"]
    print("building %s: %s" % (path, " ".join(cmd)), flush=True)
    subprocess.check_call(cmd)


class Amdkit(object):
    """The ctypes side: one context, argument types of every op the problems call."""

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        V, Z, I, F, L, U = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_float, ctypes.c_int64, ctypes.c_uint
        sig = {
            "ak_context_create": [V, ctypes.POINTER(V)],
            "ak_unary2": [V, I, I, V, V, Z, F, F, V],
            "ak_scale": [V, I, V, V, Z, F, V],
            "ak_softmax": [V, I, V, V, Z, Z, I, V],
            "ak_layernorm": [V, I, V, V, V, V, Z, Z, F, V],
            "ak_reduce_axes": [V, I, I, V, V, Z, ctypes.POINTER(Z), ctypes.c_uint32, V],
            "ak_normalize": [V, I, I, V, V, Z, Z, Z, F, V],
            "ak_binary_broadcast": [V, I, I, V, V, V, Z, ctypes.POINTER(Z), ctypes.POINTER(Z), V],
            "ak_triangular": [V, I, V, V, Z, Z, Z, L, I, V],
            "ak_batch_norm": [V, I, V, V, Z, Z, Z, V, V, V, V, I, F, F, V],
            "ak_group_norm": [V, I, V, V, Z, Z, Z, Z, V, V, F, V],
            "ak_cumsum": [V, I, V, V, Z, Z, I, V],
            "ak_scan": [V, I, I, V, V, V, Z, Z, U, V],
            "ak_loss": [V, I, I, V, V, I, V, Z, Z, F, U, I, V],
            "ak_triplet_margin_loss": [V, I, V, V, V, V, Z, Z, F, F, F, I, I, V],
            "ak_cross_entropy": [V, I, V, V, V, Z, Z, L, I, V],
            "kb_gemm": [V, I, V, V, V, Z, Z, Z, I, I, Z, Z, Z, Z, F, V],
            "kb_pool": [V, I, I, I, Z, Z, ctypes.POINTER(Z), Z, Z, Z, Z, I, I, V, V, V, V],
            "kb_conv": [V, I, I, I, Z, Z, Z, Z] + [ctypes.POINTER(Z)] * 6 + [V, V, V, V, V],
            "ak_pool_trim": [V],
        }
        for name, args in sig.items():
            f = getattr(lib, name)
            f.argtypes = args
            f.restype = ctypes.c_int
        lib.ak_last_error.restype = ctypes.c_char_p
        lib.ak_last_error.argtypes = []
        self.ctx = ctypes.c_void_p()
        self.check(lib.ak_context_create(None, ctypes.byref(self.ctx)), "ak_context_create")

    def check(self, r, what):
        if r != 0:
            raise RuntimeError("%s failed (%d): %s" % (what, r, self.lib.ak_last_error().decode(errors="replace")))

    def __getattr__(self, name):
        f = getattr(self.lib, name)

        def call(*args):
            self.check(f(self.ctx, *args), name)
        return call


def sizes(*v):
    return (ctypes.c_size_t * len(v))(*v)


def compare(torch, ref, out, tol, chunk=1 << 28):
    """(torch.allclose(ref, out, atol=tol, rtol=tol), max |ref - out|) in chunks of 2^28 elements (the outputs
    reach 6 GiB: whole-tensor temporaries would double the memory)."""
    if tuple(ref.shape) != tuple(out.shape):
        return False, float("inf")
    r, o = ref.reshape(-1), out.reshape(-1)
    ok, md = True, 0.0
    for i in range(0, r.numel(), chunk):
        a, b = r[i:i + chunk], o[i:i + chunk]
        if not a.is_floating_point():
            ok = ok and bool(torch.equal(a, b))
            md = max(md, float((a - b).abs().max().item()))
            continue
        ok = ok and bool(torch.allclose(a, b, atol=tol, rtol=tol))
        d = (a.float() - b.float()).abs()
        md = max(md, float(torch.nan_to_num(d, nan=float("inf")).max().item()))
    return ok, md


def exact(torch, fn, args):
    """fn(*args) with TF32 off in cuDNN and cuBLAS: the correctness reference is the problem's fp32 definition
    (PyTorch's default lets cuDNN convolutions round fp32 inputs to TF32, an error of ~1e-3 that KernelBench's
    1e-4 tolerance would hold against an exact implementation). Timings run at PyTorch's defaults."""
    cudnn, mm = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    try:
        return fn(*args)
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = cudnn, mm


def time_calls(torch, fn, args, trials, warmup, scratch):
    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(trials):
        torch.cuda.synchronize()
        scratch.zero_()    # the L2 flush of KernelBench's timer (outside the events)
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn(*args)
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return times


def stats(times, hardware, device):
    n = len(times)
    m = sum(times) / n
    std = math.sqrt(sum((t - m) ** 2 for t in times) / n)
    srt = sorted(times)
    med = srt[n // 2] if n % 2 else 0.5 * (srt[n // 2 - 1] + srt[n // 2])
    return {"mean": m, "std": std, "min": srt[0], "max": srt[-1], "median": med, "num_trials": n, "hardware": hardware,
            "device": device, "times": times}


def run(argv):
    ap = argparse.ArgumentParser(prog="run.py", description="KernelBench level 1 through amdkit (see the module doc)")
    ap.add_argument("--problems", default="1-100")
    ap.add_argument("--precision", default="fp32", choices=sorted(TOL))
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--budget-s", type=float, default=0.0, help="start no problem after S seconds (0: no limit)")
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "libamdkit_kb.so"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "kernelbench"))
    ap.add_argument("--tag", default=None, help="results-<tag>.json (default: the problem spec)")
    ap.add_argument("--list", action="store_true", help="list the problems and what amdkit runs for each, then exit")
    a = ap.parse_args(argv)
    import problems as P
    want = parse_ranges(a.problems)
    if a.list:
        for p in P.PROBLEMS:
            if p.num in want:
                print("%3d %-70s %s" % (p.num, p.file, p.how if p.make else "NOT EXPRESSIBLE: " + p.how))
        return 0
    import torch
    if not torch.cuda.is_available():
        print("run.py: no CUDA device for PyTorch", file=sys.stderr)
        return 2
    build_lib(a.lib)
    ak = Amdkit(a.lib)
    dev = torch.device("cuda:0")
    torch.cuda.set_device(dev)
    hardware = torch.cuda.get_device_name(dev)
    device = "cuda:0"
    dt = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[a.precision]
    tol = TOL[a.precision]
    scratch = torch.empty((32, 1024, 1024), dtype=torch.int64, device=dev)   # 256 MiB, as KernelBench
    os.makedirs(a.out, exist_ok=True)
    tag = a.tag or a.problems.replace(",", "_")
    res = {"tool": "bench/kernelbench/run.py", "precision": a.precision, "hardware": hardware, "device": device,
           "torch": torch.__version__, "trials": a.trials, "warmup": a.warmup, "tolerance": tol, "problems": {}}
    t0 = time.time()
    bad = 0
    for p in P.PROBLEMS:
        if p.num not in want:
            continue
        rec = {"num": p.num, "how": p.how}
        res["problems"][p.file] = rec
        if not p.make:
            rec["status"] = "not_expressible"
            print("%3d %-52s not expressible: %s" % (p.num, p.file, p.how), flush=True)
            continue
        if a.budget_s and time.time() - t0 > a.budget_s:
            rec["status"] = "not_run"
            rec["why"] = "budget (--budget-s %g) spent" % a.budget_s
            continue
        torch.manual_seed(1000 + p.num)
        try:
            inputs, ref_fn, ak_fn = p.make(torch, ak, dt, dev)
        except Exception as e:   # noqa: BLE001 - an input or setup failure is reported, the run goes on
            rec["status"] = "error"
            rec["error"] = "setup: %r" % (e,)
            bad += 1
            print("%3d %-52s setup error %r" % (p.num, p.file, e), flush=True)
            continue
        line = "%3d %-52s" % (p.num, p.file)
        # correctness first, on this run's inputs
        try:
            ref = exact(torch, ref_fn, inputs)
            out = ak_fn(*inputs)
            torch.cuda.synchronize()
            if out.dtype != ref.dtype:
                out = out.to(ref.dtype)
            ok, md = compare(torch, ref, out, tol)
            rec["max_abs_diff"] = md
            rec["correct"] = ok
            if not ok:
                rec["shape_ref"], rec["shape_amdkit"] = list(ref.shape), list(out.shape)
            del ref, out
        except Exception as e:   # noqa: BLE001
            rec["status"] = "error"
            rec["error"] = repr(e)
            rec["correct"] = False
            bad += 1
            print(line + " amdkit error: %r" % (e,), flush=True)
            del inputs
            torch.cuda.empty_cache()
            continue
        rec["status"] = "ok"
        if not rec["correct"]:
            bad += 1
        torch.cuda.empty_cache()
        timings = {}
        fns = {}
        for impl in IMPLS:
            if impl == "torch_compile" and a.no_compile:
                continue
            try:
                if impl == "amdkit":
                    fn = ak_fn
                elif impl == "torch_eager":
                    fn = ref_fn
                else:
                    torch._dynamo.reset()
                    fn = torch.compile(ref_fn, dynamic=False)
                time_calls(torch, fn, inputs, 0, a.warmup, scratch)   # warm up (torch.compile: compile)
                fns[impl] = fn
            except Exception as e:   # noqa: BLE001
                timings[impl] = {"error": repr(e)[:500]}
            torch.cuda.empty_cache()
        times = {impl: [] for impl in fns}
        for t in range(a.trials):
            order = list(fns)
            order = order[t % len(order):] + order[:t % len(order)] if order else order
            for impl in order:
                if impl in timings:
                    continue
                try:
                    times[impl] += time_calls(torch, fns[impl], inputs, 1, 0, scratch)
                except Exception as e:   # noqa: BLE001
                    timings[impl] = {"error": repr(e)[:500]}
        for impl in fns:
            if impl not in timings:
                timings[impl] = stats(times[impl], hardware, device)
        del fns
        torch.cuda.empty_cache()
        rec["timings"] = timings
        ak.ak_pool_trim()
        del inputs
        torch.cuda.empty_cache()

        def ms(impl):
            t = timings.get(impl) or {}
            return ("%8.3f" % t["median"]) if "median" in t else "       -"
        sp = ""
        if "median" in timings.get("amdkit", {}) and "median" in timings.get("torch_eager", {}):
            sp = " %5.2fx eager" % (timings["torch_eager"]["median"] / timings["amdkit"]["median"])
        if "median" in timings.get("amdkit", {}) and "median" in timings.get("torch_compile", {}):
            sp += " %5.2fx compile" % (timings["torch_compile"]["median"] / timings["amdkit"]["median"])
        print(line + " %s  ak %s eager %s compile %s ms%s" % ("ok  " if rec["correct"] else "WRONG", ms("amdkit"),
                                                                ms("torch_eager"), ms("torch_compile"), sp), flush=True)
    res["wall_s"] = time.time() - t0
    path = os.path.join(a.out, "results-%s.json" % tag)
    with open(path, "w") as f:
        json.dump(res, f, indent=1)
    print("wrote %s" % path)
    summarize(sorted(glob.glob(os.path.join(a.out, "results-*.json"))), a.out)
    return 0 if bad == 0 else 1


def summarize(paths, out):
    """Merge results files (a later one wins on the same problem; one run with --no-compile keeps an earlier
    file's torch.compile timing) into the baseline files, the report.py inputs, fast_p and summary.md."""
    import problems as P
    import report as R
    merged, meta = {}, {}
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        meta = {k: d.get(k) for k in ("precision", "hardware", "device", "torch")}
        for k, v in d.get("problems", {}).items():
            if v.get("status") == "not_run" and k in merged:
                continue
            prev = merged.get(k, {}).get("timings", {})
            if "torch_compile" in prev and "torch_compile" not in v.get("timings", {}):
                # a later run without torch.compile (--no-compile) keeps the earlier run's compile timing
                v = dict(v, timings=dict(v.get("timings", {}), torch_compile=prev["torch_compile"]))
            merged[k] = v
    base = {impl: {"level1": {}} for impl in IMPLS}
    ops_a, ops_t = {"results": [], "hardware": meta.get("hardware"), "device": meta.get("device")}, {"results": []}
    for p in P.PROBLEMS:
        rec = merged.get(p.file)
        if not rec or rec.get("status") != "ok":
            continue
        for impl in IMPLS:
            t = (rec.get("timings") or {}).get(impl)
            if not t or "mean" not in t:
                continue
            base[impl]["level1"][p.file] = {k: round(t[k], 4) if isinstance(t[k], float) else t[k]
                                            for k in ("mean", "std", "min", "max", "num_trials", "hardware", "device")}
            row = {"name": p.file, "dtype": meta.get("precision"), "shape": [p.num]}
            row.update({k: t[k] for k in ("median", "mean", "std", "min", "max", "num_trials", "times")})
            if impl == "amdkit":
                row["correct"] = bool(rec.get("correct"))
                ops_a["results"].append(row)
            else:
                row["impl"] = impl
                ops_t["results"].append(row)
    os.makedirs(out, exist_ok=True)
    for impl in IMPLS:
        with open(os.path.join(out, "baseline_%s.json" % impl), "w") as f:
            json.dump(base[impl], f, indent=1)
    for name, doc in (("kb_amdkit_ops.json", ops_a), ("kb_torch_ops.json", ops_t)):
        with open(os.path.join(out, name), "w") as f:
            json.dump(doc, f)
    # fast_p the report.py way, per peer, over the problems run and over all 100
    conf = 0.95
    fast = {}
    lines = ["# KernelBench level 1 through amdkit (%s, %s)" % (meta.get("hardware"), meta.get("precision")), ""]
    counts = {"ok": 0, "correct": 0, "not_expressible": 0, "error": 0, "not_run": 0}
    for p in P.PROBLEMS:
        rec = merged.get(p.file)
        st = "not_run" if rec is None else rec.get("status", "not_run")
        if not p.make:
            st = "not_expressible"
        counts[st] = counts.get(st, 0) + 1
        if st == "ok" and rec.get("correct"):
            counts["correct"] += 1
    for impl in ("torch_eager", "torch_compile"):
        per = {}
        for pv in R.PS:
            per["%g" % pv] = {"win": 0, "tie": 0, "loss": 0, "incorrect": 0, "not_timed": 0}
        logs = []
        for p in P.PROBLEMS:
            rec = merged.get(p.file)
            ta = tp = None
            if rec and rec.get("status") == "ok":
                ta = R.Timing((rec.get("timings") or {}).get("amdkit"), "median", conf)
                tp = R.Timing((rec.get("timings") or {}).get(impl), "median", conf)
            ci = R.speedup_ci(ta, tp, conf) if ta and tp else None
            for pv in R.PS:
                if ci is None:
                    per["%g" % pv]["not_timed"] += 1
                else:
                    per["%g" % pv][R.classify(bool(rec.get("correct")), ci, pv)] += 1
            if ci is not None:
                logs.append(math.log(ci[0]))
        timed = len(logs)
        fast[impl] = {
            "timed": timed,
            "geomean_speedup": math.exp(sum(logs) / timed) if timed else None,
            "per_p": per,
            "fast_p_over_timed": {k: (v["win"] / timed if timed else None) for k, v in per.items()},
            "fast_p_over_100": {k: v["win"] / 100.0 for k, v in per.items()},
            "ties": {k: v["tie"] for k, v in per.items()},
        }
    doc = {"counts": counts, "fast_p": fast, "precision": meta.get("precision"), "hardware": meta.get("hardware"),
           "confidence": conf}
    with open(os.path.join(out, "fastp.json"), "w") as f:
        json.dump(doc, f, indent=1)
    lines.append("problems: %d run and correct, %d run in all, %d not expressible, %d errors, %d not run"
                 % (counts["correct"], counts["ok"], counts["not_expressible"], counts["error"], counts["not_run"]))
    lines.append("")
    lines.append("| peer | timed | geomean | fast_0 | fast_1 (ties) | fast_1.5 | fast_2 | fast_1 over 100 |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for impl in ("torch_eager", "torch_compile"):
        fi = fast[impl]
        g = fi["fast_p_over_timed"]
        gm = fi["geomean_speedup"]

        def f2(v):
            return "-" if v is None else "%.3f" % v
        lines.append("| %s | %d | %s | %s | %s (%d) | %s | %s | %.2f |" % (
            impl, fi["timed"], "-" if gm is None else "%.2fx" % gm, f2(g.get("0")), f2(g.get("1")), fi["ties"].get("1", 0),
            f2(g.get("1.5")), f2(g.get("2")), fi["fast_p_over_100"].get("1", 0.0)))
    lines.append("")
    lines.append("| # | problem | status | amdkit ms | eager ms | compile ms | vs eager | vs compile |")
    lines.append("|---:|---|---|---:|---:|---:|---:|---:|")
    for p in P.PROBLEMS:
        rec = merged.get(p.file)
        st = "not expressible" if not p.make else ("not run" if rec is None else rec.get("status"))
        tm = (rec or {}).get("timings") or {}

        def med(impl):
            t = tm.get(impl) or {}
            return t.get("median")
        a, e, c = med("amdkit"), med("torch_eager"), med("torch_compile")
        if rec and rec.get("status") == "ok" and not rec.get("correct"):
            st = "WRONG (max diff %.3g)" % rec.get("max_abs_diff", float("nan"))
        lines.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
            p.num, p.file, st, "-" if a is None else "%.3f" % a, "-" if e is None else "%.3f" % e,
            "-" if c is None else "%.3f" % c, "-" if not (a and e) else "%.2fx" % (e / a),
            "-" if not (a and c) else "%.2fx" % (c / a)))
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[:8]))
    print("wrote %s/{baseline_*.json,kb_*_ops.json,fastp.json,summary.md}" % out)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "merge":
        ap = argparse.ArgumentParser(prog="run.py merge")
        ap.add_argument("files", nargs="+")
        ap.add_argument("--out", required=True)
        a = ap.parse_args(argv[1:])
        summarize(a.files, a.out)
        return 0
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
