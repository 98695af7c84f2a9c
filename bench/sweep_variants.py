#!/usr/bin/env python3
"""sweep_variants - reads bench_sweep.c results run with --force (bench/sweep_variants.sh) and prints, per
op x dtype x shape, the model's own choice (force -1,0,0; -2,0,0: the measured table) beside every forced
variant (% of copy, correct), and the best one: the evidence for amdkit.h's _ak_rowop_model (bench/rowop_model.py
compares the model with the best over several files).

    python3 bench/sweep_variants.py OUTDIR/variants_*.json [--md OUT.md]
Variants (the force triple V,B,P): 0 rows, 1 split, 2 twopass, 3 wide, 4 stream, 5 segments, 6 small;
B = block, P = param (see amdkit.h _AK_ROW_VARIANT_*).
"""
import argparse
import collections
import json
import sys

NAMES = ["rows", "split", "twopass", "wide", "stream", "segments", "small"]


def label(force):
    v, b, p = (int(x) for x in force.split(","))
    return "table" if v < 0 else "%s/%d/%d" % (NAMES[v] if v < len(NAMES) else v, b, p)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--md")
    a = ap.parse_args(argv)
    cells = collections.OrderedDict()
    for f in a.files:
        with open(f) as fh:
            d = json.load(fh)
        for r in d["results"]:
            key = (r["op"], r["dtype"], r["rows"], r["cols"])
            cells.setdefault(key, []).append(r)
    out = ["| op | dtype | shape | table (% copy) | best | best % copy | every variant (% copy; ! = wrong) |",
           "|---|---|---|---|---|---|---|"]
    for (op, dt, R, C), rs in cells.items():
        table = [r for r in rs if r.get("force", "-1,0,0").startswith("-1")]
        ok = [r for r in rs if r["correct"]]
        best = max(ok, key=lambda r: r["frac"]) if ok else None
        tf = table[0]["frac"] if table else None
        allv = " ".join("%s:%d%s" % (label(r.get("force", "-1,0,0")), round(100 * r["frac"]), "" if r["correct"] else "!")
                        for r in rs)
        out.append("| %s | %s | %d x %d | %s | %s | %s | %s |" % (
            op, dt, R, C, "%d" % round(100 * tf) if tf is not None else "-",
            label(best.get("force", "-1,0,0")) if best else "-", "%d" % round(100 * best["frac"]) if best else "-", allv))
    text = "\n".join(out) + "\n"
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
