#!/usr/bin/env python3
"""sweep_misses - every cell of a shape sweep that misses a target, mapped to the explanation of its group.

    python3 bench/sweep_misses.py SWEEP.json [--notes bench/NOTES.md] [--md OUT.md] [--check]

SWEEP.json is sweep_render.py's joined file (bench/results/<name>.json: one record per cell with the amdkit
result, the torch timings, the speedups and the targets met). Every cell is at target or its miss is
explained in bench/NOTES.md; this tool makes that checkable:
  - GROUPS below (one row per group of cells that miss for one reason: id, target, which cells) is the only
    place a group is defined; bench/NOTES.md explains each group under a line that starts with "**<id>**"
    (what the cells measure, what was tried, why they are still short);
  - every missed (cell, target) pair is assigned to the first group whose definition matches it;
  - --check fails (exit 1) when a missed pair matches no group, or a group used by a miss has no
    explanation in the notes. Groups that match no miss are listed as met (a fix landed).
Targets: copy85 (>= 85% of copy where the cell moves >= 64 MiB), eager1 (>= 1.0x PyTorch eager; for cells
< 1 MiB this is the latency target), compile98 (>= 0.98x torch.compile), copy90 (>= 90% of a same-size copy,
>= 64 MiB). --targets names the ones mapped and checked (default: all four; a sweep rendered before
compile98 / copy90 existed has no such targets, so only its copy85 / eager1 misses count). A wrong result is never
explained away: it always fails --check.
Pure Python, no dependencies.
"""
import argparse
import json
import math
import os
import re
import sys

MIB = 1 << 20
INF = float("inf")
ROWOPS = ("softmax", "log_softmax")
NORMS = ("layernorm", "rmsnorm")
REDS = ("sum", "mean", "max", "min")
ARGS = ("argmax", "argmin")
XENT = ("cross_entropy", "cross_entropy_mean")

# One row per group (a dict): id, target (None: any), ops / dtypes (None: any), cols / rows [lo, hi],
# mib [lo, hi) of the cell's traffic, eager [lo, hi) speedup over eager, same: the cell reaches at least
# this fraction of a same-size copy timed with the same protocol (bench_sweep.c "frac_same"), title.
# target: one target, a tuple of them, or None (any). floor {target: lo}: the group holds a miss of that target
# only down to lo of the target's own measure (FLOOR_OF: x compile for compile98, the same-size copy fraction for
# copy90), a little under the deepest miss measured when its cause was: a deeper one is a new miss, not this group.
# First match wins, so the narrow rows come first.
def G(gid, title, target=None, ops=None, dtypes=None, cols=(1, INF), rows=(1, INF), mib=(0, INF), eager=None,
      same=None, vector=False, floor=None):
    return {"id": gid, "title": title, "target": target, "ops": ops, "dtypes": dtypes, "cols": cols, "rows": rows,
            "mib": mib, "eager": eager, "same": same, "vector": vector, "floor": floor or {}}


FLOOR_OF = {"compile98": lambda c: c.get("speedup_compile"), "copy90": lambda c: c["amdkit"].get("frac_same"),
            "eager1": lambda c: c.get("speedup_eager"), "copy85": lambda c: c["amdkit"].get("frac")}


HALVES = ("f16", "bf16")
CE = ("copy85", "eager1")
BW = ("copy85", "copy90")  # a bandwidth shortfall: against the 1 GiB copy and the same-size copy
GROUPS = [
    # --- against torch.compile (compile98; bench/NOTES.md "Where torch.compile is ahead, measured") ---
    G("C1", "transpose of a vector: torch.compile's x.t().contiguous() is a view, no kernel", "compile98",
      ("transpose",), vector=True, floor={"compile98": 0.10}),
    G("C2", "< 1 MiB: a call's floor; ours runs a longer serial path per warp (ncu)", "compile98", mib=(0, 1),
      floor={"compile98": 0.40}),
    G("C3", "transpose >= 1 MiB: the flush's write-back; 16-row / 127-column tiles partly empty", "compile98",
      ("transpose",), mib=(1, INF), floor={"compile98": 0.25}),
    G("C4", "reductions / argmax >= 1 MiB: the kernel ties Inductor's on clean caches, pays the flush's "
            "write-back; segments: a second launch", "compile98", ARGS + REDS, mib=(1, INF), floor={"compile98": 0.70}),
    G("C5", "cross-entropy >= 1 MiB: per-row kernel ~1 us slower; mean adds a one-block launch", "compile98", XENT,
      mib=(1, INF), floor={"compile98": 0.60}),
    G("C6", "softmax / norms >= 1 MiB, mostly 16-512 rows: one 256-512 thread block per row, 21-41% occupancy",
      "compile98", ROWOPS + NORMS, mib=(1, INF), floor={"compile98": 0.70}),
    # --- the measurement itself (lead) ---
    G("N1", "within 5% of eager: inside the run-to-run spread of the ratio", "eager1", eager=(0.95, 1.0)),
    G("D1", ">= 85% of a same-size copy under the same protocol (64-256 MiB: the copy itself is at 74-97% of the "
            "1 GiB copy)", "copy85", same=0.85),
    # --- transpose ---
    G("S1", "transpose of a vector (rows or cols == 1): torch returns a view", "eager1", ("transpose",), vector=True),
    G("T1", "transpose: tiles partly empty (16 rows, 127 columns)", CE + ("copy90",), ("transpose",),
      floor={"copy90": 0.80}),
    # --- small tensors and few rows (reductions / xent, softmax / norms) ---
    G("S2", "cross-entropy mean over 2-16 rows: one block too slow, two launches too long", "eager1",
      ("cross_entropy_mean",), rows=(2, 16)),
    G("M2", "softmax f16/bf16 at 127 columns: scalar path of the rows kernel", "eager1", ROWOPS, HALVES, cols=(127, 127)),
    G("S3", "reductions / argmax < 1 MiB: launch + round trips", "eager1", ARGS + REDS, mib=(0, 1)),
    G("S4", "softmax / norms < 1 MiB: launch floor", "eager1", ROWOPS + NORMS, mib=(0, 1)),
    # --- wide rows (first match wins, narrow rows first) ---
    G("W2", "softmax f32 8193..16384: two-pass wide/512", "eager1", ROWOPS, ("f32",), cols=(8193, 16384)),
    G("W3", "softmax halves 16385..131072: two-pass wide/512", "eager1", ROWOPS, HALVES, cols=(16385, 131072)),
    G("W4", "softmax f32 few rows: split barrier", "eager1", ROWOPS, ("f32",), cols=(16385, 65536), rows=(1, 256)),
    G("W5e", "norms f32 very wide: ~1.0x eager", "eager1", NORMS, ("f32",), cols=(65537, INF), rows=(1024, INF)),
    G("W9", "softmax / norms, 16-1024 rows, 1-64 MiB", "eager1", ROWOPS + NORMS, cols=(4096, 65536), rows=(1, 1024),
      mib=(1, 64)),
    G("W5", "norms past 16384 columns: second pass from HBM", BW, NORMS, cols=(16385, INF), floor={"copy90": 0.50}),
    G("W6", "norms 8193..16384: ramp / tail at 1024-4096 rows", BW, NORMS, cols=(8193, 16384), floor={"copy90": 0.65}),
    G("W7", "softmax wide: two reads or a barrier", BW, ROWOPS, cols=(8193, INF), floor={"copy90": 0.50}),
    G("W8", "rows kernel at 4096..8192 columns, 64-256 MiB: launch / ramp / tail", BW, ROWOPS + NORMS,
      cols=(4096, 8192), floor={"copy90": 0.75}),
    # --- the rest >= 1 MiB ---
    G("R1", "reductions / argmax / cross-entropy >= 1 MiB", CE + ("copy90",), ARGS + REDS + XENT, mib=(1, INF),
      floor={"copy90": 0.50}),
    G("M1", "softmax / norms on rows narrower than 4096, >= 1 MiB", CE + ("copy90",), ROWOPS + NORMS, cols=(1, 4095),
      mib=(1, INF), floor={"copy90": 0.80}),
]


def target_ok(g, target):
    t = g["target"]
    return t is None or t == target or (isinstance(t, tuple) and target in t)


def in_range(v, r):
    return r[0] <= v <= r[1]


def match(g, cell, target):
    if not target_ok(g, target):
        return False
    if g["ops"] is not None and cell["op"] not in g["ops"]:
        return False
    if g["dtypes"] is not None and cell["dtype"] not in g["dtypes"]:
        return False
    if not in_range(cell["cols"], g["cols"]) or not in_range(cell["rows"], g["rows"]):
        return False
    m = cell["bytes"] / MIB
    if not (g["mib"][0] <= m < g["mib"][1]):
        return False
    if g["eager"] is not None:
        s = cell.get("speedup_eager")
        if s is None or not (g["eager"][0] <= s < g["eager"][1]):
            return False
    if g["same"] is not None and (cell["amdkit"].get("frac_same") or 0) < g["same"]:
        return False
    if g["vector"] and cell["rows"] != 1 and cell["cols"] != 1:
        return False
    if target in g["floor"]:
        v = FLOOR_OF[target](cell)
        if v is None or v < g["floor"][target]:
            return False
    return True


def misses(cells, targets=("copy85", "eager1")):
    """(cell, target) for every named target a cell misses; wrong cells come back as (cell, 'correct')."""
    out = []
    for c in cells:
        if not c["amdkit"].get("correct"):
            out.append((c, "correct"))
            continue
        for t, ok in sorted(c.get("targets", {}).items()):
            if not ok and t in targets:
                out.append((c, t))
    return out


def explained_ids(notes_path):
    ids = set()
    if notes_path and os.path.exists(notes_path):
        with open(notes_path) as f:
            for line in f:
                m = re.match(r"\s*(?:[-*]\s+)?\*\*([A-Z][0-9]+)\*\*", line)
                if m:
                    ids.add(m.group(1))
    return ids


def span(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    lo, hi = min(vals), max(vals)
    return (fmt % lo) if lo == hi else (fmt % lo) + "-" + (fmt % hi)


def main(argv=None):
    ap = argparse.ArgumentParser(description="map every sweep miss to its explained group")
    ap.add_argument("sweep")
    ap.add_argument("--notes", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "NOTES.md"))
    ap.add_argument("--md", default=None, help="write the group table (markdown) here")
    ap.add_argument("--check", action="store_true", help="exit 1 on an unexplained miss")
    ap.add_argument("--targets", default="copy85,eager1,compile98,copy90",
                    help="targets to map (copy85, eager1, compile98, copy90)")
    a = ap.parse_args(argv)
    targets = tuple(t for t in a.targets.split(",") if t)
    with open(a.sweep) as f:
        sw = json.load(f)
    cells = sw["cells"]
    ms = misses(cells, targets)
    notes = explained_ids(a.notes)
    by = {g["id"]: [] for g in GROUPS}
    wrong, loose = [], []
    for c, t in ms:
        if t == "correct":
            wrong.append(c)
            continue
        g = next((g for g in GROUPS if match(g, c, t)), None)
        if g is None:
            loose.append((c, t))
        else:
            by[g["id"]].append((c, t))
    tot = {t: sum(1 for c in cells if t in c.get("targets", {})) for t in targets}
    met = {t: sum(1 for c in cells if c.get("targets", {}).get(t)) for t in targets}
    names = {"copy85": ">= 85% of copy (>= 64 MiB)", "eager1": ">= 1.0x eager", "compile98": ">= 0.98x torch.compile",
             "copy90": ">= 90% of a same-size copy (>= 64 MiB)"}
    lines = ["# Sweep misses by group: %s" % sw.get("hardware", "?"), "",
             "%d cells; %s; wrong: %d" % (len(cells), "; ".join("%s: %d of %d met" % (names.get(t, t), met[t], tot[t])
                                                               for t in targets), len(wrong)), "",
             "| group | misses (%s) | ops | cols | rows | MiB | %% copy | x eager | x compile | explained |" %
             " / ".join(targets), "|---|---|---|---|---|---|---|---|---|---|"]
    bad = []
    for g in GROUPS:
        lst = by[g["id"]]
        if not lst:
            if any(target_ok(g, t) for t in targets):
                lines.append("| %s %s | 0 (met) | | | | | | | | |" % (g["id"], g["title"]))
            continue
        cs = [c for c, _ in lst]
        has = g["id"] in notes
        if not has:
            bad.append("group %s (%d misses) has no '**%s**' explanation in %s" % (g["id"], len(lst), g["id"],
                                                                                 a.notes))
        lines.append("| %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g["id"], g["title"], " / ".join(str(sum(1 for _, t in lst if t == x)) for x in targets),
            ", ".join(sorted({c["op"] for c in cs})), span([c["cols"] for c in cs], "%d"),
            span([c["rows"] for c in cs], "%d"), span([c["bytes"] / MIB for c in cs], "%.2g"),
            span([100 * (c["amdkit"]["frac"] or 0) for c in cs], "%.0f"),
            span([c.get("speedup_eager") for c in cs], "%.2f"), span([c.get("speedup_compile") for c in cs], "%.2f"),
            "yes" if has else "NO"))
    lines.append("")
    if wrong:
        bad.append("%d wrong results (never explained away)" % len(wrong))
        lines += ["## Wrong results", ""] + ["- %s %s %d x %d" % (c["op"], c["dtype"], c["rows"], c["cols"])
                                            for c in wrong] + [""]
    if loose:
        bad.append("%d missed (cell, target) pairs match no group" % len(loose))
        lines += ["## Misses that match no group", ""] + [
            "- %s %s %d x %d: %s (%.0f%% copy, x eager %s, x compile %s)" % (
                c["op"], c["dtype"], c["rows"], c["cols"], t, 100 * (c["amdkit"]["frac"] or 0),
                c.get("speedup_eager"), c.get("speedup_compile")) for c, t in loose] + [""]
    text = "\n".join(lines)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text + "\n")
    print(text)
    for b in bad:
        print("sweep_misses: " + b, file=sys.stderr)
    if a.check and bad:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
