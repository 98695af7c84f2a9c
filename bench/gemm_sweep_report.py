#!/usr/bin/env python3
"""gemm_sweep_report - join bench_gemm_sweep (amdkit) and peer_torch_gemm_sweep (PyTorch) results of one run.

    python3 bench/gemm_sweep_report.py AMDKIT.json TORCH.json --json OUT.json --md OUT.md [--joined OUT.json [--correct]]

Per cell: amdkit's kernel and path, its median and TF/s, each PyTorch impl's median, the ratio
amdkit / best eager peer (speed: peer time over amdkit time, > 1 = amdkit faster) and, for the
fused-epilogue cells, over torch.compile; decode cells (m <= 16) also the bytes of B read per
second as a fraction of the device-to-device copy bandwidth. A cell counts only if both sides
passed their correctness check. Targets (bench/NOTES.md): >= 0.9x for 16-bit cells with every
dim >= 2048, >= 0.8x odd / medium and batched, decode >= 85% of copy, epilogue >= 1.1x eager and
>= 1.0x compile, exact f32 >= 0.9x, TF32 >= 0.8x; fp8 (fp8: precise accumulation vs torch._scaled_mm
use_fast_accum=False, fp8fast vs use_fast_accum=True; the peer's record is "torch_eager") >= 0.9x with
every dim >= 2048, decode >= 85% of copy; i8 (vs torch._int_mm, int32 out; row_scale: vs _int_mm + the
scaling, unfused) >= 0.8x.
--joined: each amdkit cell with its torch_eager / torch_compile records (bench/report.py --gemm reads
it, fast_p over every kernel family); --correct marks the file as suite-checked (tests/gpu_check.sh
passes it when this build's gpu_gemm suite passed in the same run).
"""
import json, sys


def target(c):
    if c["dtype"] == "i8":  # int8 vs torch._int_mm (m > 16 there)
        return ("eager", 0.8)
    if c["dtype"].startswith("fp8"):  # the scaled GEMM vs torch._scaled_mm with the same accumulation mode
        return ("copy", 0.85) if c["m"] <= 16 else ("eager", 0.9 if min(c["m"], c["n"], c["k"]) >= 2048 else 0.8)
    if c["m"] <= 16:
        return ("copy", 0.85)
    if c["epilogue"] != "none":
        return ("eager", 1.1)
    if c["dtype"] == "f32":
        return ("eager", 0.9)
    if c["dtype"] == "tf32":
        return ("eager", 0.8)
    if min(c["m"], c["n"], c["k"]) >= 2048 and c["batch"] == 1:
        return ("eager", 0.9)
    return ("eager", 0.8)


def load(path):
    """A JSON file; one cut short inside its results list (a run that hit its time limit) is closed first."""
    text = open(path).read()
    try:
        return json.loads(text)
    except ValueError:
        return json.loads(text.rstrip().rstrip(",") + "\n]}")


def main():
    a = load(sys.argv[1])
    t = load(sys.argv[2])
    out_json = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    out_md = sys.argv[sys.argv.index("--md") + 1] if "--md" in sys.argv else None
    copy = t.get("copy_gbps") or a.get("copy_gbps") or 0
    peers = {}
    for r in t["results"]:
        peers.setdefault(r["name"], {})[r["impl"]] = r
    rows, misses = [], 0
    for c in a["results"]:
        if "error" in c:
            rows.append(dict(name=c["name"], error=c["error"]))
            continue
        p = peers.get(c["name"], {})
        e, co = p.get("torch_eager"), p.get("torch_compile")
        row = dict(name=c["name"], dtype=c["dtype"], m=c["m"], n=c["n"], k=c["k"], batch=c["batch"], ta=c["ta"], tb=c["tb"],
                   epilogue=c["epilogue"], kernel=c["kernel"], path=c["path"], amdkit_ms=c["median"], amdkit_tflops=c["tflops"],
                   amdkit_correct=c["correct"], hardware=c["hardware"], device=c["device"])
        if e and "median" in e:
            row.update(torch_eager_ms=e["median"], torch_eager_tflops=e["tflops"], torch_correct=e.get("correct"),
                       vs_eager=e["median"] / c["median"])
        if co and "median" in co:
            row.update(torch_compile_ms=co["median"], vs_compile=co["median"] / c["median"])
        if c["m"] <= 16 and copy:
            row["b_copy_fraction"] = c["b_gbps"] / copy
            if e and "median" in e:
                row["torch_b_copy_fraction"] = e.get("b_gbps", 0) / copy
        kind, goal = target(c)
        val = row.get("b_copy_fraction") if kind == "copy" else row.get("vs_eager")
        row["target"] = "%s >= %.2f" % ("B read / copy" if kind == "copy" else "vs eager", goal)
        row["meets"] = bool(val is not None and val >= goal and c["correct"])
        if c["epilogue"] != "none" and "vs_compile" in row:
            row["meets"] = row["meets"] and row["vs_compile"] >= 1.0
        misses += 0 if row["meets"] else 1
        rows.append(row)
    doc = dict(tool="gemm_sweep_report", hardware=a.get("hardware"), device=a.get("device"), torch=t.get("torch"),
               copy_gbps=copy, cells=len(rows), misses=misses, results=rows)
    if out_json:
        json.dump(doc, open(out_json, "w"), indent=1)
    if "--joined" in sys.argv:
        joined = []
        for c in a["results"]:
            if "error" in c:
                continue
            j = dict(c)
            for impl in ("torch_eager", "torch_compile"):
                j[impl] = peers.get(c["name"], {}).get(impl)
            joined.append(j)
        json.dump(dict(tool="gemm_sweep_report", hardware=a.get("hardware"), device=a.get("device"), torch=t.get("torch"),
                       copy_gbps=copy, correct="--correct" in sys.argv, results=joined),
                  open(sys.argv[sys.argv.index("--joined") + 1], "w"), indent=1)
    lines = ["| cell | kernel | amdkit ms | TF/s | torch ms | vs eager | vs compile | B/copy | target | ok |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append("| %s | error | | | | | | | | no |" % r["name"])
            continue
        lines.append("| %s | %s | %.4f | %.1f | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r["kernel"], r["amdkit_ms"], r["amdkit_tflops"],
            "%.4f" % r["torch_eager_ms"] if "torch_eager_ms" in r else "-",
            "%.2fx" % r["vs_eager"] if "vs_eager" in r else "-",
            "%.2fx" % r["vs_compile"] if "vs_compile" in r else "-",
            "%.0f%%" % (100 * r["b_copy_fraction"]) if "b_copy_fraction" in r else "-",
            r["target"], ("yes" if r["meets"] else "**no**") + ("" if r["amdkit_correct"] else " (WRONG)")))
    md = "\n".join(["GEMM sweep on %s (%s), PyTorch %s, copy %.0f GB/s: %d cells, %d below target" % (
        doc["hardware"], doc["device"], doc["torch"], copy, len(rows), misses), ""] + lines) + "\n"
    if out_md:
        open(out_md, "w").write(md)
    print(md)


if __name__ == "__main__":
    main()
