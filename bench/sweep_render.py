#!/usr/bin/env python3
"""sweep_render - joins bench_sweep.c's JSON with sweep_torch.py's and draws the heat maps.

    python3 bench/sweep_render.py SWEEP_AMDKIT.json [SWEEP_TORCH.json] [--out DIR] [--prefix NAME]

Writes into DIR (default: the amdkit file's folder):
  NAME.json      one record per cell: op, dtype, rows, cols, bytes, amdkit (median ms, frac of copy,
                 correct, err, variant), torch_eager / torch_compile (median ms, frac), speedups
                 (eager median / amdkit median, compile median / amdkit median) and the targets met;
  NAME_copy.svg  per op (a row of panels) x dtype (a column): rows x cols grid, % of the copy
                 bandwidth (cells moving < 64 MiB in grey text: no bandwidth target there);
  NAME_eager.svg the same grid, speedup over PyTorch eager (and NAME_compile.svg over torch.compile);
  NAME.md        the counts per target and the cells that miss one.
Targets (the shape sweep's, README.md): copy85 >= 85% of copy where the cell moves >= 64 MiB; eager1 >= 1.0x eager
on every cell (cells < 1 MiB: no slower than eager); compile98 >= 0.98x torch.compile on every cell timed with it;
copy90 >= 90% of a same-size copy timed under the same protocol ("frac_same", cells moving >= 64 MiB). A cell
whose amdkit result was wrong counts as a miss of all.
Pure Python (SVG is text): no matplotlib needed.
"""
import argparse
import json
import math
import os
import sys

MIB = 1 << 20
BIG = 64 * MIB
SMALL = 1 * MIB


def load(path):
    with open(path) as f:
        return json.load(f)


def join(am, tr):
    torch = {}
    if tr:
        for r in tr.get("results", []):
            if r.get("median"):
                torch[(r["op"], r["dtype"], r["rows"], r["cols"], r["impl"])] = r
    out = []
    for r in am["results"]:
        key = (r["op"], r["dtype"], r["rows"], r["cols"])
        rec = {"op": r["op"], "dtype": r["dtype"], "rows": r["rows"], "cols": r["cols"], "bytes": r["bytes"],
               "amdkit": {k: r.get(k) for k in ("median", "min", "frac", "gbps", "correct", "err", "variant",
                                                 "trials", "copy_same_ms", "frac_same")}}
        for impl in ("torch_eager", "torch_compile"):
            t = torch.get(key + (impl,))
            if t:
                rec[impl] = {"median": t["median"], "frac": t.get("frac")}
                rec["speedup_" + impl[6:]] = round(t["median"] / r["median"], 4) if r["median"] > 0 else None
        ok = bool(r.get("correct"))
        t = {}
        if r["bytes"] >= BIG:
            t["copy85"] = ok and r["frac"] >= 0.85
        if "speedup_eager" in rec:
            t["eager1"] = ok and rec["speedup_eager"] >= 1.0
        if rec.get("speedup_compile") is not None:
            t["compile98"] = ok and rec["speedup_compile"] >= 0.98
        if r["bytes"] >= BIG and r.get("frac_same"):
            t["copy90"] = ok and r["frac_same"] >= 0.90
        rec["targets"] = t
        out.append(rec)
    return out


def color_frac(v):
    """% of copy: red (<= 40%) .. yellow (70%) .. green (>= 95%)"""
    x = max(0.0, min(1.0, (v - 0.4) / 0.55))
    if x < 0.55:
        k = x / 0.55
        return (230, int(80 + 150 * k), 70)
    k = (x - 0.55) / 0.45
    return (int(230 - 170 * k), int(230 - 40 * k), int(70 + 20 * k))


def color_speed(v):
    """speedup: red (<= 0.5x) .. white (1x) .. green (>= 4x), log scale"""
    if v <= 0:
        return (200, 200, 200)
    l = math.log2(v)
    if l < 0:
        k = min(1.0, -l)
        return (255, int(255 - 170 * k), int(255 - 170 * k))
    k = min(1.0, l / 2.0)
    return (int(255 - 190 * k), int(255 - 70 * k), int(255 - 180 * k))


def fmt_n(n):
    return "%dk" % (n // 1000) if n >= 10000 else str(n)


def svg(recs, metric, title, path, rows_axis, cols_axis):
    ops = []
    for r in recs:
        if r["op"] not in ops:
            ops.append(r["op"])
    dts = [d for d in ("f32", "f16", "bf16") if any(r["dtype"] == d for r in recs)]
    by = {(r["op"], r["dtype"], r["rows"], r["cols"]): r for r in recs}
    cw, ch, lm, tm = 40, 16, 48, 30
    pw = lm + cw * len(cols_axis) + 16
    ph = tm + ch * len(rows_axis) + 22
    W, H = pw * len(dts) + 10, ph * len(ops) + 40
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="6" y="18" font-size="13">%s</text>' % title]
    for oi, op in enumerate(ops):
        for di, dt in enumerate(dts):
            x0, y0 = di * pw + 6, oi * ph + 40
            o.append('<text x="%d" y="%d" font-size="11" font-weight="bold">%s %s</text>' % (x0, y0 + 10, op, dt))
            for ci, c in enumerate(cols_axis):
                o.append('<text x="%d" y="%d" font-size="8" text-anchor="middle">%s</text>' %
                         (x0 + lm + ci * cw + cw // 2, y0 + tm - 4, fmt_n(c)))
            for ri, rw in enumerate(rows_axis):
                yy = y0 + tm + ri * ch
                o.append('<text x="%d" y="%d" font-size="8" text-anchor="end">%s</text>' %
                         (x0 + lm - 3, yy + 11, fmt_n(rw)))
                for ci, c in enumerate(cols_axis):
                    r = by.get((op, dt, rw, c))
                    xx = x0 + lm + ci * cw
                    if r is None:
                        o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="#f4f4f4"/>' % (xx, yy, cw - 1,
                                                                                               ch - 1))
                        continue
                    ok = r["amdkit"]["correct"]
                    if metric == "copy":
                        v = r["amdkit"]["frac"] or 0.0
                        fill, label = color_frac(v), "%d" % round(100 * v)
                        dim = r["bytes"] < BIG
                    else:
                        v = r.get("speedup_" + metric)
                        if v is None:
                            o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="#e0e0e0"/>' %
                                     (xx, yy, cw - 1, ch - 1))
                            continue
                        fill, label = color_speed(v), "%.2f" % v
                        dim = False
                    if dim:
                        fill = tuple(int(0.5 * f + 0.5 * 245) for f in fill)
                    o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="rgb(%d,%d,%d)"%s/>' %
                             (xx, yy, cw - 1, ch - 1, fill[0], fill[1], fill[2],
                              '' if ok else ' stroke="black" stroke-width="2"'))
                    o.append('<text x="%d" y="%d" font-size="9" text-anchor="middle" fill="%s">%s</text>' %
                             (xx + cw // 2, yy + 11, "#888" if dim else "black", label if ok else "ERR"))
    o.append('</svg>')
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def summary(recs, am, tr, path):
    n = len(recs)
    wrong = [r for r in recs if not r["amdkit"]["correct"]]
    big = [r for r in recs if "copy85" in r["targets"]]
    big_miss = [r for r in big if not r["targets"]["copy85"]]
    sp = [r for r in recs if "eager1" in r["targets"]]
    sp_miss = [r for r in sp if not r["targets"]["eager1"]]
    small = [r for r in sp if r["bytes"] < SMALL]
    small_miss = [r for r in small if not r["targets"]["eager1"]]
    sc = [r for r in recs if r.get("speedup_compile")]
    cm = [r for r in recs if "compile98" in r["targets"]]
    cm_miss = [r for r in cm if not r["targets"]["compile98"]]
    c9 = [r for r in recs if "copy90" in r["targets"]]
    c9_miss = [r for r in c9 if not r["targets"]["copy90"]]
    lines = ["# Shape sweep: %s" % am.get("hardware", "?"), "",
             "copy bandwidth %.0f GB/s (amdkit run), %s; torch %s" %
             (am.get("copy_gbps", 0), "grid rows %s x cols %s, tensors <= %d MiB" %
              (am.get("rows"), am.get("cols"), am.get("max_bytes", 0) >> 20), (tr or {}).get("torch_version", "-")),
             "",
             "| target | cells | met | missed |", "|---|---|---|---|",
             "| correct (CPU reference) | %d | %d | %d |" % (n, n - len(wrong), len(wrong)),
             "| >= 85%% of copy (moves >= 64 MiB) | %d | %d | %d |" % (len(big), len(big) - len(big_miss), len(big_miss)),
             "| >= 1.0x eager | %d | %d | %d |" % (len(sp), len(sp) - len(sp_miss), len(sp_miss)),
             "| < 1 MiB: >= 1.0x eager | %d | %d | %d |" % (len(small), len(small) - len(small_miss),
                                                            len(small_miss)),
             "| >= 0.98x torch.compile | %d | %d | %d |" % (len(cm), len(cm) - len(cm_miss), len(cm_miss)),
             "| >= 90%% of a same-size copy (moves >= 64 MiB) | %d | %d | %d |" % (len(c9), len(c9) - len(c9_miss),
                                                                             len(c9_miss)),
             ""]
    if sc:
        g = math.exp(sum(math.log(r["speedup_compile"]) for r in sc) / len(sc))
        ge = math.exp(sum(math.log(r["speedup_eager"]) for r in sp) / len(sp)) if sp else 0
        lines += ["geomean speedup: %.2fx over eager (%d cells), %.2fx over torch.compile (%d cells)" %
                  (ge, len(sp), g, len(sc)), ""]

    def row(r):
        return "| %s | %s | %d x %d | %.1f | %.1f%% | %s | %s | %s | %s | %s |" % (
            r["op"], r["dtype"], r["rows"], r["cols"], r["bytes"] / MIB, 100 * (r["amdkit"]["frac"] or 0),
            "%.1f%%" % (100 * r["amdkit"]["frac_same"]) if r["amdkit"].get("frac_same") else "-",
            "%.2f" % r["speedup_eager"] if r.get("speedup_eager") else "-",
            "%.2f" % r["speedup_compile"] if r.get("speedup_compile") else "-",
            "ok" if r["amdkit"]["correct"] else "WRONG (%.1e)" % (r["amdkit"]["err"] or 0), r["amdkit"]["variant"] or "")
    head = ["| op | dtype | shape | MiB | % copy | % same-size copy | x eager | x compile | check | variant |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for name, lst in (("Wrong results", wrong), ("Below 85% of copy (>= 64 MiB)", big_miss),
                      ("Slower than eager", sp_miss), ("Below 0.98x torch.compile", cm_miss),
                      ("Below 90% of a same-size copy (>= 64 MiB)", c9_miss)):
        lines += ["## %s (%d)" % (name, len(lst)), ""]
        if lst:
            lines += head + [row(r) for r in sorted(lst, key=lambda r: (r["op"], r["dtype"], r["rows"], r["cols"]))]
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description="join + draw the shape sweep")
    ap.add_argument("amdkit")
    ap.add_argument("torch", nargs="?")
    ap.add_argument("--out", default=None)
    ap.add_argument("--prefix", default="sweep")
    a = ap.parse_args(argv)
    am = load(a.amdkit)
    tr = load(a.torch) if a.torch and os.path.exists(a.torch) else None
    out = a.out or os.path.dirname(os.path.abspath(a.amdkit))
    os.makedirs(out, exist_ok=True)
    recs = join(am, tr)
    rows_axis, cols_axis = am["rows"], am["cols"]
    p = os.path.join(out, a.prefix)
    hw = am.get("hardware", "?")
    svg(recs, "copy", "amdkit %% of copy bandwidth (%s, %.0f GB/s; grey: < 64 MiB moved, black frame: wrong)" %
        (hw, am.get("copy_gbps", 0)), p + "_copy.svg", rows_axis, cols_axis)
    if tr:
        svg(recs, "eager", "amdkit speedup over PyTorch eager (%s, torch %s)" % (hw, tr.get("torch_version")),
            p + "_eager.svg", rows_axis, cols_axis)
        svg(recs, "compile", "amdkit speedup over torch.compile(dynamic=True) (%s)" % hw, p + "_compile.svg",
            rows_axis, cols_axis)
    with open(p + ".json", "w") as f:
        json.dump({"hardware": hw, "copy_gbps": am.get("copy_gbps"), "torch_version": (tr or {}).get("torch_version"),
                   "rows": rows_axis, "cols": cols_axis, "max_bytes": am.get("max_bytes"), "cells": recs}, f)
        f.write("\n")
    lines = summary(recs, am, tr, p + ".md")
    print("\n".join(lines[:16]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
