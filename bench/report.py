#!/usr/bin/env python3
"""report - compares amdkit's kernels (bench/bench_ops.c JSON) with the PyTorch peer
(bench/peer_torch.py JSON) and prints a markdown report.

    python3 bench/report.py AMDKIT.json TORCH.json [TORCH2.json ...] [--out report.md]
                            [--correct-all] [--strict] [--stat median|mean] [--min-frac 0.9]

Entries are joined by (name, dtype, shape). Several TORCH files are merged
(a later file wins on the same entry), e.g. an eager run and a compile run.

- The table: op, dtype, shape, amdkit time, its GB/s and fraction of the copy
  bandwidth measured in the amdkit run, the torch eager and torch.compile times,
  and the speedups (peer time / amdkit time; > 1 means amdkit is faster). Times
  are the median of the trials (--stat mean: the mean, as KernelBench does).
  "-" means no peer entry; "n/a" a peer entry with no time (its error is listed).
- fast_p, as KernelBench defines it: the fraction of kernels that are correct AND
  faster than the peer by a factor > p (speedup > p), for p = 0, 1, 1.5, against
  eager and against torch.compile. fast_0 is the correctness rate. The
  denominator is the kernels that have both an amdkit and a peer time; with
  --strict, peer entries with no amdkit result (an amdkit kernel that failed or
  was not run) count too, as incorrect.
- Correctness: an amdkit entry's "correct" boolean when bench_ops.c wrote one;
  an entry without it counts as correct only with --correct-all (pass it after
  the GPU suites, which check every kernel against its CPU reference, passed),
  otherwise as incorrect.
- Targets missed: amdkit entries below --min-frac (default 0.9) of the copy
  bandwidth, entries slower than eager (speedup < 1), incorrect entries, and
  entries without a peer time.

Standard library only. Exit status 0, or 2 when an input cannot be read.
"""
import argparse
import json
import math
import sys

PS = (0.0, 1.0, 1.5)
PEERS = (("torch_eager", "eager"), ("torch_compile", "torch.compile"))


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if isinstance(doc, list):
        doc = {"results": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("results", []), list):
        raise ValueError("%s: not a bench JSON (no results list)" % path)
    return doc


def key_of(r):
    shape = r.get("shape")
    if isinstance(shape, list):
        shape = tuple(shape)
    return (r.get("name"), r.get("dtype"), shape)


def num(x):
    """A finite positive float, or None."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    x = float(x)
    return x if math.isfinite(x) and x > 0 else None


def fmt_shape(shape):
    if isinstance(shape, (list, tuple)):
        return "x".join(str(s) for s in shape)
    return str(shape)


def fmt(x, spec, none="-"):
    return none if x is None else format(x, spec)


def fmt_speed(s):
    return "-" if s is None else "%.2fx" % s


def build_report(amd, torch_docs, correct_all=False, strict=False, stat="median", min_frac=0.9):
    lines = []
    out = lines.append
    copy_amd = num(amd.get("copy_gbps"))
    peer = {}
    for d in torch_docs:
        for r in d.get("results", []):
            peer[key_of(r) + (r.get("impl"),)] = r

    out("# amdkit vs PyTorch: memory-bound kernels")
    out("")
    out("- amdkit: %s (%s, backend %s), copy bandwidth %s GB/s%s" % (
        amd.get("hardware", "?"), amd.get("device", "?"), amd.get("backend", "?"),
        fmt(copy_amd, ".1f", "?"), ", --quick (numbers mean nothing)" if amd.get("quick") else ""))
    for d in torch_docs:
        out("- PyTorch: %s (%s), torch %s, CUDA %s, copy bandwidth %s GB/s%s" % (
            d.get("hardware", "?"), d.get("device", "?"), d.get("torch_version", "?"), d.get("cuda_version", "?"),
            fmt(num(d.get("copy_gbps")), ".1f", "?"), ", --quick" if d.get("quick") else ""))
        if d.get("hardware") and amd.get("hardware") and d.get("hardware") != amd.get("hardware"):
            out("- WARNING: the peer ran on %s, amdkit on %s: the speedups compare different GPUs" %
                (d.get("hardware"), amd.get("hardware")))
        if bool(d.get("quick")) != bool(amd.get("quick")):
            out("- WARNING: one run used --quick and the other did not: shapes differ, most entries will not join")
    out("- times: %s of the trials in ms; speedup = peer time / amdkit time (> 1: amdkit faster); "
        "%% copy = amdkit GB/s / the copy bandwidth of the amdkit run" % stat)

    rows, seen = [], set()
    n_unknown_correct = 0
    for r in amd.get("results", []):
        k = key_of(r)
        if k in seen:
            continue
        seen.add(k)
        a_ms = num(r.get(stat))
        gbps = num(r.get("gbps"))
        frac = r.get("roofline_fraction")
        frac = num(frac) if frac is not None else None
        if frac is None and gbps is not None and copy_amd:
            frac = gbps / copy_amd
        if isinstance(r.get("correct"), bool):
            correct = r["correct"]
        else:
            correct = bool(correct_all)
            n_unknown_correct += 1
        row = {"key": k, "ms": a_ms, "gbps": gbps, "frac": frac, "correct": correct and a_ms is not None,
               "failed_check": r.get("correct") is False, "peer": {}}
        for impl, _ in PEERS:
            p = peer.get(k + (impl,))
            if p is None:
                row["peer"][impl] = (None, None, "missing")
                continue
            p_ms = num(p.get(stat))
            err = p.get("error") if p_ms is None else None
            sp = p_ms / a_ms if (p_ms is not None and a_ms is not None) else None
            row["peer"][impl] = (p_ms, sp, err or ("no time" if p_ms is None else None))
        rows.append(row)
    amd_keys = seen
    peer_only = sorted({pk[:3] for pk in peer if pk[:3] not in amd_keys}, key=lambda k: (str(k[0]), str(k[1]), str(k[2])))

    if n_unknown_correct:
        out("- correctness: %d of %d amdkit entries carry no \"correct\" field; counted as %s" % (
            n_unknown_correct, len(rows),
            "correct (--correct-all: the GPU suites passed)" if correct_all
            else "INCORRECT (pass --correct-all once the GPU suites passed)"))
    out("")
    out("| op | dtype | shape | amdkit ms | GB/s | % copy | eager ms | compile ms | vs eager | vs compile |")
    out("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        name, dtype, shape = row["key"]
        cells = [str(name), str(dtype), fmt_shape(shape), fmt(row["ms"], ".4f", "n/a"), fmt(row["gbps"], ".1f"),
                 fmt(None if row["frac"] is None else 100.0 * row["frac"], ".1f")]
        for impl, _ in PEERS:
            p_ms, _, err = row["peer"][impl]
            cells.append(fmt(p_ms, ".4f", "-" if err == "missing" else "n/a"))
        for impl, _ in PEERS:
            cells.append(fmt_speed(row["peer"][impl][1]))
        if row["failed_check"]:
            cells[0] += " (incorrect)"
        out("| " + " | ".join(cells) + " |")

    # fast_p
    out("")
    out("## fast_p (correct and faster than the peer by more than p)")
    out("")
    out("| peer | kernels | " + " | ".join("fast_%g" % p for p in PS) + " | geomean speedup |")
    out("|---|---:|" + "---:|" * len(PS) + "---:|")
    fast = {}
    for impl, label in PEERS:
        speeds = [(row["correct"], row["peer"][impl][1]) for row in rows if row["peer"][impl][1] is not None]
        extra = 0
        if strict:
            extra = sum(1 for k in peer_only if num((peer.get(k + (impl,)) or {}).get(stat)) is not None)
        n = len(speeds) + extra
        vals = []
        for p in PS:
            c = sum(1 for ok, s in speeds if ok and s > p)
            vals.append((c, n))
        fast[impl] = vals
        gm = math.exp(sum(math.log(s) for _, s in speeds) / len(speeds)) if speeds else None
        cells = ["%.3f (%d/%d)" % (c / n, c, n) if n else "-" for c, n in vals]
        out("| %s | %d | %s | %s |" % (label, n, " | ".join(cells), fmt_speed(gm)))

    # targets missed
    out("")
    out("## Targets missed")
    out("")
    slow_bw = [row for row in rows if row["frac"] is None or row["frac"] < min_frac]
    out("### Below %.0f%% of the copy bandwidth (%d)" % (100 * min_frac, len(slow_bw)))
    for row in slow_bw:
        out("- %s %s %s: %s GB/s, %s of copy" % (
            row["key"][0], row["key"][1], fmt_shape(row["key"][2]), fmt(row["gbps"], ".1f", "?"),
            "?" if row["frac"] is None else "%.1f%%" % (100 * row["frac"])))
    for impl, label in PEERS:
        slow = [row for row in rows if row["peer"][impl][1] is not None and row["peer"][impl][1] < 1.0]
        out("")
        out("### Slower than %s (%d)%s" % ("PyTorch eager" if impl == "torch_eager" else label, len(slow),
                                            "" if impl == "torch_eager" else " (for information)"))
        for row in slow:
            p_ms, sp, _ = row["peer"][impl]
            out("- %s %s %s: amdkit %.4f ms vs %s %.4f ms (%.2fx)" % (
                row["key"][0], row["key"][1], fmt_shape(row["key"][2]), row["ms"], label, p_ms, sp))
    bad = [row for row in rows if not row["correct"]]
    out("")
    out("### Not counted as correct (%d)" % len(bad))
    for row in bad:
        out("- %s %s %s" % (row["key"][0], row["key"][1], fmt_shape(row["key"][2])))
    nopeer = [(row, impl, label) for row in rows for impl, label in PEERS if row["peer"][impl][1] is None]
    out("")
    out("### No comparison (%d)" % len(nopeer))
    for row, impl, label in nopeer:
        p_ms, _, err = row["peer"][impl]
        why = "no amdkit time" if row["ms"] is None else ("no %s entry" % label if err == "missing"
                                                           else "%s: %s" % (label, err))
        out("- %s %s %s: %s" % (row["key"][0], row["key"][1], fmt_shape(row["key"][2]), why))
    if peer_only:
        out("")
        out("### Peer entries without an amdkit result (%d)%s" % (
            len(peer_only), ": counted as incorrect in fast_p (--strict)" if strict else ""))
        for k in peer_only:
            out("- %s %s %s" % (k[0], k[1], fmt_shape(k[2])))
    return "\n".join(lines) + "\n", fast


def main(argv=None):
    ap = argparse.ArgumentParser(description="amdkit vs PyTorch report (markdown) from bench_ops.c and peer_torch.py JSON")
    ap.add_argument("amdkit", metavar="AMDKIT.json")
    ap.add_argument("torch", metavar="TORCH.json", nargs="+")
    ap.add_argument("--out", metavar="report.md", help="also write the report to this file")
    ap.add_argument("--correct-all", action="store_true",
                    help="entries without a \"correct\" field count as correct (the GPU suites passed)")
    ap.add_argument("--strict", action="store_true",
                    help="fast_p also counts peer entries with no amdkit result, as incorrect")
    ap.add_argument("--stat", choices=("median", "mean"), default="median", help="time statistic (default median)")
    ap.add_argument("--min-frac", type=float, default=0.9, help="copy-bandwidth target (default 0.9)")
    a = ap.parse_args(argv)
    try:
        amd = load(a.amdkit)
        tds = [load(p) for p in a.torch]
    except (OSError, ValueError) as e:
        print("report: %s" % e, file=sys.stderr)
        return 2
    text, _ = build_report(amd, tds, a.correct_all, a.strict, a.stat, a.min_frac)
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
