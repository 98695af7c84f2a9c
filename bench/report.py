#!/usr/bin/env python3
"""report - amdkit's kernels against PyTorch (eager and torch.compile): the
per-entry table, and fast_p over the whole kernel set, as KernelBench defines
it, with confidence intervals.

    python3 bench/report.py AMDKIT.json TORCH.json [TORCH2.json ...]
                            [--attention ATTENTION.json] [--gemm GEMM.json]
                            [--suite-correct FAMILY[,FAMILY]] [--out report.md] [--json fastp.json]
                            [--strict] [--stat median|mean] [--min-frac 0.9] [--conf 0.95]

Inputs:
- AMDKIT.json (bench/bench_ops.c) and TORCH.json (bench/peer_torch.py --match
  AMDKIT.json; several files are merged, a later one wins on the same entry):
  the memory-bound kernels ("ops"), joined by (name, dtype, shape, impl).
- --attention: bench/peer_attention.py's file ({"amdkit": ..., "torch": ...});
  only the rows the library picks by itself (path "auto") are kernels of the
  set; forced paths (simt) are alternatives, listed but not counted.
- --gemm: bench/gemm_sweep_report.py --joined file (each result carries its
  torch_eager / torch_compile record).

Correctness, recorded per entry (an entry counts in fast_p only when it is
correct in the same run that timed it):
- ops: bench_ops.c checks every entry's output against the CPU reference (the
  same ak_* call on a cpu-backend context, on the same inputs and shape, rows or
  elements subsampled for big entries) and writes "correct" and the error; an
  entry without that field is "unchecked" and counts as incorrect.
- attention, gemm: their benchmarks do not check their own output; their GPU
  suites (gpu_attention, gpu_gemm: every path against the CPU reference on odd
  shapes) do. A gemm file's "correct": true (gemm_sweep_report.py --correct: gpu_gemm
  passed in the same gpu-check run) or --suite-correct FAMILY (the caller says
  that family's suite passed on this build) marks those entries "suite-checked":
  counted as correct, and labelled so in every table. Without either they are
  "unchecked" (incorrect).

Speedup = peer time / amdkit time (> 1: amdkit faster), from the median of the
trials (--stat mean: the mean). Its confidence interval (--conf, default 95%):
- both sides carry their samples ("times", bench_ops.c / peer_torch.py): the
  order-statistic interval of each median at confidence sqrt(conf) (distribution
  free: ranks n/2 -+ z sqrt(n)/2 of the sorted samples), then
  [peer_lo / amdkit_hi, peer_hi / amdkit_lo]: the ratio lies in it whenever both
  medians lie in theirs, so with probability >= conf (independent runs);
- otherwise (summary statistics only: older files, attention, gemm) a normal
  approximation: median -+ z * 1.2533 * std / sqrt(n) (marked "~" in the tables).

For each p in 0, 1, 1.5, 2 an entry is a WIN (correct and the whole interval
above p), a TIE (correct and the interval contains p: the runs cannot tell), a
LOSS (correct, interval below p) or INCORRECT. fast_p = wins / kernels, ties
reported beside it (wins + ties is the most fast_p could be); kernels = entries
with both an amdkit and a peer time (--strict: also peer entries without an
amdkit result, as incorrect). The geometric mean of the speedup is over the same
kernels (correct or not; the count of correct ones is beside it).

Targets missed (ops): entries below --min-frac (default 0.9) of the copy
bandwidth, entries slower than eager (a loss at p = 1), incorrect entries,
entries without a peer time.

Standard library only. Exit status 0, or 2 when an input cannot be read.
"""
import argparse
import json
import math
import sys

PS = (0.0, 1.0, 1.5, 2.0)
PEERS = (("torch_eager", "eager"), ("torch_compile", "torch.compile"))
FAMILIES = ("ops", "attention", "gemm")


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if isinstance(doc, list):
        doc = {"results": doc}
    if not isinstance(doc, dict):
        raise ValueError("%s: not a bench JSON" % path)
    return doc


def results_of(doc, path):
    res = doc.get("results", [])
    if not isinstance(res, list):
        raise ValueError("%s: not a bench JSON (no results list)" % path)
    return [r for r in res if isinstance(r, dict)]


def freeze(x):
    if isinstance(x, list):
        return tuple(freeze(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted((k, freeze(v)) for k, v in x.items()))
    return x


def key_of(r):
    return (r.get("name"), r.get("dtype"), freeze(r.get("shape")))


def num(x):
    """A finite positive float, or None."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    x = float(x)
    return x if math.isfinite(x) and x > 0 else None


# ---- statistics ---------------------------------------------------------------

def z_of(conf):
    """Two-sided standard normal quantile for confidence conf (0 < conf < 1)."""
    lo, hi = 0.0, 10.0
    target = 1.0 - (1.0 - conf) / 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if 0.5 * (1.0 + math.erf(mid / math.sqrt(2.0))) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def median_ci(samples, conf):
    """(median, lo, hi): order-statistic interval of the median, distribution free."""
    t = sorted(samples)
    n = len(t)
    med = t[n // 2] if n % 2 else 0.5 * (t[n // 2 - 1] + t[n // 2])
    z = z_of(conf)
    half = z * math.sqrt(n) / 2.0
    j = int(math.floor(n / 2.0 - half))          # 1-based rank of the lower bound
    k = int(math.ceil(n / 2.0 + half)) + 1       # 1-based rank of the upper bound
    lo = t[max(j, 1) - 1]
    hi = t[min(k, n) - 1]
    return med, lo, hi


class Timing(object):
    """One side's time: point estimate and its interval at confidence `conf`."""

    def __init__(self, rec, stat, conf):
        self.ms = num(rec.get(stat)) if rec else None
        self.lo = self.hi = None
        self.approx = False
        self.n = 0
        conf = math.sqrt(conf)        # each side at sqrt(conf): both hold together with probability >= conf
        if self.ms is None:
            return
        times = rec.get("times")
        samples = [float(v) for v in times if num(v) is not None] if isinstance(times, list) else []
        if len(samples) >= 5 and stat == "median":
            self.ms, self.lo, self.hi = median_ci(samples, conf)
            self.n = len(samples)
            return
        n = rec.get("num_trials")
        std = rec.get("std")
        if isinstance(samples, list) and len(samples) >= 5:
            n = len(samples)
            m = sum(samples) / n
            std = math.sqrt(sum((v - m) ** 2 for v in samples) / n)
        n = int(n) if isinstance(n, (int, float)) and not isinstance(n, bool) and n >= 1 else 1
        std = float(std) if isinstance(std, (int, float)) and not isinstance(std, bool) and std >= 0 else None
        self.n = n
        self.approx = True
        if std is None or n < 2:      # nothing to say: an unbounded interval
            self.lo, self.hi = 0.0, float("inf")
            return
        half = z_of(conf) * (1.2533 if stat == "median" else 1.0) * std / math.sqrt(n)
        self.lo, self.hi = max(self.ms - half, 0.0), self.ms + half


def speedup_ci(a, p, conf):
    """(speedup, lo, hi, approx) of peer p over amdkit a, or None."""
    if a.ms is None or p.ms is None:
        return None
    sp = p.ms / a.ms
    lo = p.lo / a.hi if a.hi not in (None, float("inf")) and a.hi > 0 else 0.0
    hi = p.hi / a.lo if a.lo else float("inf")
    return sp, min(lo, sp), max(hi, sp), a.approx or p.approx


def classify(correct, ci, p, margin=0.0):
    """'win' | 'tie' | 'loss' | 'incorrect' for threshold p (ci = (sp, lo, hi, approx)); with a margin m,
    the band [p (1 - m), p (1 + m)] counts as p (a win needs lo > p (1 + m))."""
    if not correct:
        return "incorrect"
    _, lo, hi, _ = ci
    if lo > p * (1.0 + margin):
        return "win"
    if hi <= p * (1.0 - margin):
        return "loss"
    return "tie"


# ---- loading the families -----------------------------------------------------

class Entry(object):
    def __init__(self, family, key, label, rec, correct, check, stat, conf):
        self.family, self.key, self.label = family, key, label
        self.rec = rec
        self.a = Timing(rec, stat, conf)
        self.correct = bool(correct) and self.a.ms is not None
        self.check = check            # "checked" | "suite-checked" | "unchecked" | "FAILED check"
        self.peer = {}                # impl -> (Timing or None, error or None)
        self.ci = {}                  # impl -> speedup_ci or None


def ops_entries(amd, torch_docs, stat, conf):
    peer = {}
    for d in torch_docs:
        for r in results_of(d, "torch"):
            peer[key_of(r) + (r.get("impl"),)] = r
    out, seen = [], set()
    for r in results_of(amd, "amdkit"):
        k = key_of(r)
        if k in seen:
            continue
        seen.add(k)
        c = r.get("correct")
        if isinstance(c, bool):
            check = "checked" if c else "FAILED check"
            correct = c
        else:
            check, correct = "unchecked", False
        e = Entry("ops", k, "%s %s %s" % (k[0], k[1], fmt_shape(r.get("shape"))), r, correct, check, stat, conf)
        for impl, _ in PEERS:
            p = peer.get(k + (impl,))
            if p is None:
                e.peer[impl] = (None, "missing")
            else:
                t = Timing(p, stat, conf)
                e.peer[impl] = (t, None if t.ms is not None else (p.get("error") or "no time"))
        out.append(e)
    peer_only = sorted({pk[:3] for pk in peer if pk[:3] not in seen}, key=lambda k: tuple(str(x) for x in k))
    return out, peer, peer_only


def attention_entries(doc, suite_ok, stat, conf):
    amd = doc.get("amdkit") or {}
    tor = doc.get("torch") or {}
    peer = {}
    for r in results_of(tor, "attention torch"):
        peer[key_of(r) + (r.get("impl"),)] = r
    out, alt = [], []
    for r in results_of(amd, "attention amdkit"):
        if r.get("path", "auto") != "auto":
            alt.append(r)
            continue
        k = key_of(r)
        sh = r.get("shape") or {}
        label = "%s %s b%s hq%s hkv%s sq%s skv%s d%s%s" % (
            r.get("name"), r.get("dtype"), sh.get("batch"), sh.get("heads_q"), sh.get("heads_kv"), sh.get("seq_q"),
            sh.get("seq_kv"), sh.get("head_dim"), " causal" if sh.get("causal") else "")
        e = Entry("attention", k, label, r, suite_ok, "suite-checked" if suite_ok else "unchecked", stat, conf)
        for impl, _ in PEERS:
            p = peer.get(k + (impl,))
            if p is None:
                e.peer[impl] = (None, "missing")
            else:
                t = Timing(p, stat, conf)
                e.peer[impl] = (t, None if t.ms is not None else (p.get("error") or "no time"))
        out.append(e)
    return out, alt


def gemm_entries(doc, suite_ok, stat, conf):
    ok = suite_ok or doc.get("correct") is True
    out = []
    for r in results_of(doc, "gemm"):
        k = (r.get("name"), r.get("dtype"), ("m", r.get("m")), ("n", r.get("n")), ("k", r.get("k")),
             ("batch", r.get("batch")))
        label = "%s (%s)" % (r.get("name"), r.get("path", "?"))
        e = Entry("gemm", k, label, r, ok, "suite-checked" if ok else "unchecked", stat, conf)
        for impl, _ in PEERS:
            p = r.get(impl)
            if not isinstance(p, dict):
                e.peer[impl] = (None, "missing")
            else:
                t = Timing(p, stat, conf)
                e.peer[impl] = (t, None if t.ms is not None else (p.get("error") or "no time"))
        out.append(e)
    return out


# ---- formatting ---------------------------------------------------------------

def fmt_shape(shape):
    if isinstance(shape, (list, tuple)):
        return "x".join(str(s) for s in shape)
    return str(shape)


def fmt(x, spec, none="-"):
    return none if x is None else format(x, spec)


def fmt_ci(ci):
    if ci is None:
        return "-"
    sp, lo, hi, approx = ci
    h = "inf" if hi == float("inf") else "%.2f" % hi
    return "%s%.2fx [%.2f, %s]" % ("~" if approx else "", sp, lo, h)


def fast_table(entries, impl, strict_extra=0, margin=0.0, timing_only=False):
    """Per p: (wins, ties, losses, incorrect); n; geomean; correct count (timing_only: correctness ignored)."""
    joined = [e for e in entries if e.ci.get(impl) is not None]
    n = len(joined) + strict_extra
    per_p = []
    for p in PS:
        cls = [classify(e.correct or timing_only, e.ci[impl], p, margin) for e in joined]
        per_p.append({c: cls.count(c) for c in ("win", "tie", "loss", "incorrect")})
    gm = math.exp(sum(math.log(e.ci[impl][0]) for e in joined) / len(joined)) if joined else None
    return {"n": n, "per_p": per_p, "geomean": gm, "correct": sum(1 for e in joined if e.correct),
            "approx": sum(1 for e in joined if e.ci[impl][3])}


def build_report(amd, torch_docs, attention=None, gemm=None, suite_correct=(), strict=False, stat="median",
                 min_frac=0.9, conf=0.95, margin=0.0):
    lines = []
    out = lines.append
    ops, peer, peer_only = ops_entries(amd, torch_docs, stat, conf) if amd is not None else ([], {}, [])
    att, att_alt = attention_entries(attention, "attention" in suite_correct, stat, conf) if attention else ([], [])
    gem = gemm_entries(gemm, "gemm" in suite_correct, stat, conf) if gemm else []
    allent = ops + att + gem
    for e in allent:
        for impl, _ in PEERS:
            t, _ = e.peer[impl]
            e.ci[impl] = speedup_ci(e.a, t, conf) if t is not None else None

    copy_amd = num(amd.get("copy_gbps")) if amd else None
    out("# amdkit vs PyTorch: fast_p over the kernel set")
    out("")
    if amd is not None:
        out("- ops (bench_ops.c): %s (%s, backend %s), copy bandwidth %s GB/s%s" % (
            amd.get("hardware", "?"), amd.get("device", "?"), amd.get("backend", "?"),
            fmt(copy_amd, ".1f", "?"), ", --quick (numbers mean nothing)" if amd.get("quick") else ""))
    for d in torch_docs:
        out("- PyTorch (peer_torch.py): %s (%s), torch %s, CUDA %s, copy bandwidth %s GB/s%s" % (
            d.get("hardware", "?"), d.get("device", "?"), d.get("torch_version", "?"), d.get("cuda_version", "?"),
            fmt(num(d.get("copy_gbps")), ".1f", "?"), ", --quick" if d.get("quick") else ""))
        if amd is not None and d.get("hardware") and amd.get("hardware") and d.get("hardware") != amd.get("hardware"):
            out("- WARNING: the peer ran on %s, amdkit on %s: the speedups compare different GPUs" %
                (d.get("hardware"), amd.get("hardware")))
        if amd is not None and bool(d.get("quick")) != bool(amd.get("quick")):
            out("- WARNING: one run used --quick and the other did not: shapes differ, most entries will not join")
    if attention:
        a = attention.get("amdkit") or {}
        out("- attention (bench_attention.c + peer_attention.py): %s, %d library entries (path auto; %d forced-path "
            "rows not counted); correctness: %s" % (
                a.get("hardware", "?"), len(att), len(att_alt),
                "suite-checked (--suite-correct attention: the gpu_attention suite passed on this build)"
                if "attention" in suite_correct else "UNCHECKED (no per-entry check; pass --suite-correct attention "
                                                     "once the gpu_attention suite passed)"))
    if gemm:
        ok = "gemm" in suite_correct or gemm.get("correct") is True
        out("- gemm (bench_gemm_sweep.c + peer_torch_gemm_sweep.py via gemm_sweep_report.py --joined): %s, %d entries; correctness: %s" % (
            gemm.get("hardware", "?"), len(gem),
            "suite-checked (%s)" % ("--suite-correct gemm" if "gemm" in suite_correct
                                    else "the file's \"correct\": gpu_gemm passed in the same gpu-check run")
            if ok else "UNCHECKED (the file's \"correct\" is not true)"))
    out("- speedup = peer %s / amdkit %s (> 1: amdkit faster), [%g%% interval]; \"~\": the interval is a normal "
        "approximation from summary statistics (no samples in that file)" % (stat, stat, 100 * conf))
    for d in torch_docs:
        ca, cp = num(amd.get("copy_gbps")) if amd else None, num(d.get("copy_gbps"))
        if ca and cp:
            out("- run-to-run drift: the same device-to-device copy measured %.2f%% %s in the peer's process "
                "(the intervals hold one run's sampling noise, not this; --margin adds a band around p)" % (
                    100 * abs(cp / ca - 1), "slower" if cp < ca else "faster"))
    n_checked = sum(1 for e in ops if e.check in ("checked", "FAILED check"))
    if ops:
        out("- ops correctness: %d of %d entries checked against the CPU reference in the same run, %d failed, "
            "%d carry no check (counted as incorrect)" % (
                n_checked, len(ops), sum(1 for e in ops if e.check == "FAILED check"),
                sum(1 for e in ops if e.check == "unchecked")))

    # fast_p
    out("")
    out("## fast_p (KernelBench: correct in the same run AND speedup > p)")
    out("")
    out("A win needs the whole %g%% interval above p%s; a tie is an interval reaching p (the timing cannot "
        "tell); fast_p counts wins only, `+t` gives the ties (fast_p could be at most (wins + ties) / kernels)." %
        (100 * conf, " (1 + %g)" % margin if margin else ""))
    out("")
    out("| set | peer | kernels | correct | " + " | ".join("fast_%g" % p for p in PS) + " | geomean speedup |")
    out("|---|---|---:|---:|" + "---:|" * len(PS) + "---:|")
    fast = {}
    groups = [(f, [e for e in allent if e.family == f]) for f in FAMILIES]
    groups = [(f, es) for f, es in groups if es]
    if len(groups) > 1:
        groups.append(("all", allent))
    for fam, es in groups:
        for impl, label in PEERS:
            extra = 0
            if strict and fam in ("ops", "all"):
                extra = sum(1 for k in peer_only if num((peer.get(k + (impl,)) or {}).get(stat)) is not None)
            ft = fast_table(es, impl, extra, margin)
            fast[(fam, impl)] = ft
            cells = []
            for c in ft["per_p"]:
                n = ft["n"]
                cells.append("%.3f (%d/%d) +%dt" % (c["win"] / n, c["win"], n, c["tie"]) if n else "-")
            out("| %s | %s | %d | %d | %s | %s%s |" % (fam, label, ft["n"], ft["correct"], " | ".join(cells),
                                                     fmt(ft["geomean"], ".3f"), "x" if ft["geomean"] else ""))
    out("")
    out("Timing alone, for information (NOT fast_p: correctness ignored, so unchecked entries show what their "
        "intervals say): wins / ties / losses at p = 1.")
    out("")
    out("| set | peer | kernels | wins | ties | losses |")
    out("|---|---|---:|---:|---:|---:|")
    for fam, es in groups:
        for impl, label in PEERS:
            ft = fast_table(es, impl, 0, margin, timing_only=True)
            c = ft["per_p"][PS.index(1.0)]
            out("| %s | %s | %d | %d | %d | %d |" % (fam, label, ft["n"], c["win"], c["tie"], c["loss"]))
    out("")

    # per-entry table
    out("## Entries")
    out("")
    out("| set | entry | check | amdkit ms | GB/s | %% copy | eager ms | compile ms | vs eager [%g%%] | vs compile [%g%%] "
        "| class vs eager (p=1) |" % (100 * conf, 100 * conf))
    out("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for e in allent:
        gbps = num(e.rec.get("gbps"))
        frac = num(e.rec.get("roofline_fraction"))
        if frac is None and gbps is not None and copy_amd and e.family == "ops":
            frac = gbps / copy_amd
        cells = [e.family, e.label, e.check + (": %s" % fmt_err(e.rec) if e.family == "ops" and
                                               e.check != "unchecked" else ""),
                 fmt(e.a.ms, ".4f", "n/a"), fmt(gbps, ".1f"), fmt(None if frac is None else 100 * frac, ".1f")]
        for impl, _ in PEERS:
            t, err = e.peer[impl]
            cells.append(fmt(t.ms if t else None, ".4f", "-" if err == "missing" else "n/a"))
        for impl, _ in PEERS:
            cells.append(fmt_ci(e.ci[impl]))
        cells.append(classify(e.correct, e.ci["torch_eager"], 1.0, margin) if e.ci["torch_eager"] else "-")
        out("| " + " | ".join(cells) + " |")
    if att_alt:
        out("")
        out("Forced-path attention rows (alternatives to the library's choice, not counted): " + "; ".join(
            "%s %s %s %.3f ms" % (r.get("name"), r.get("dtype"), r.get("path"), r.get(stat) or 0) for r in att_alt))

    # targets missed (ops)
    out("")
    out("## Targets missed")
    out("")
    slow_bw = [e for e in ops if num(e.rec.get("roofline_fraction")) is None or e.rec["roofline_fraction"] < min_frac]
    out("### ops below %.0f%% of the copy bandwidth (%d)" % (100 * min_frac, len(slow_bw)))
    for e in slow_bw:
        fr = num(e.rec.get("roofline_fraction"))
        out("- %s: %s GB/s, %s of copy" % (e.label, fmt(num(e.rec.get("gbps")), ".1f", "?"),
                                         "?" if fr is None else "%.1f%%" % (100 * fr)))
    for impl, label in PEERS:
        for what, want in (("slower than", "loss"), ("tied with", "tie")):
            es = [e for e in allent if e.ci[impl] is not None and e.correct and
                  classify(True, e.ci[impl], 1.0, margin) == want]
            out("")
            out("### %s %s (%d)%s" % (what.capitalize(), label, len(es),
                                      "" if impl == "torch_eager" and want == "loss" else " (for information)"))
            for e in es:
                out("- %s %s: amdkit %.4f ms vs %.4f ms: %s" % (e.family, e.label, e.a.ms, e.peer[impl][0].ms,
                                                               fmt_ci(e.ci[impl])))
    bad = [e for e in allent if not e.correct]
    out("")
    out("### Not counted as correct (%d)" % len(bad))
    for e in bad:
        out("- %s %s: %s%s" % (e.family, e.label, e.check if e.a.ms is not None else "no amdkit time",
                               (" (%s)" % fmt_err(e.rec, True)) if e.check == "FAILED check" else ""))
    nopeer = [(e, impl, label) for e in allent for impl, label in PEERS if e.ci[impl] is None]
    out("")
    out("### No comparison (%d)" % len(nopeer))
    for e, impl, label in nopeer:
        t, err = e.peer[impl]
        why = "no amdkit time" if e.a.ms is None else ("no %s entry" % label if err == "missing"
                                                        else "%s: %s" % (label, err))
        out("- %s %s: %s" % (e.family, e.label, why))
    if peer_only:
        out("")
        out("### Peer entries without an amdkit result (%d)%s" % (
            len(peer_only), ": counted as incorrect in fast_p (--strict)" if strict else ""))
        for k in peer_only:
            out("- %s %s %s" % (k[0], k[1], fmt_shape(k[2])))
    return "\n".join(lines) + "\n", fast, allent


def fmt_err(rec, detail=False):
    """'err 1.2e-06 = 0.012 tol' (worst absolute error, worst error / tolerance); detail: which values."""
    m = rec.get("max_abs_err")
    r = rec.get("err_tol_ratio")
    s = "err %s" % (fmt(m, ".2g", "?") if isinstance(m, (int, float)) else "?")
    if isinstance(r, (int, float)):
        s += " = %.2g tol" % r
    if detail and rec.get("check_detail"):
        s += "; %s values, %s" % (rec.get("checked", "?"), rec["check_detail"])
    return s


def summary_json(fast, entries, conf, margin=0.0):
    doc = {"conf": conf, "margin": margin, "ps": list(PS), "fast_p": [], "entries": []}
    for (fam, impl), ft in sorted(fast.items()):
        row = {"set": fam, "peer": impl, "kernels": ft["n"], "correct": ft["correct"], "geomean": ft["geomean"],
               "approx_intervals": ft["approx"]}
        for p, c in zip(PS, ft["per_p"]):
            row["fast_%g" % p] = c["win"] / ft["n"] if ft["n"] else None
            row["counts_%g" % p] = c
        doc["fast_p"].append(row)
    for e in entries:
        d = {"set": e.family, "entry": e.label, "check": e.check, "correct": e.correct, "amdkit_ms": e.a.ms}
        for impl, _ in PEERS:
            ci = e.ci[impl]
            d[impl] = None if ci is None else {"speedup": ci[0], "lo": ci[1], "hi": None if ci[2] == float("inf")
                                               else ci[2], "approx": ci[3],
                                               "class": {"%g" % p: classify(e.correct, ci, p, margin) for p in PS}}
        doc["entries"].append(d)
    return doc


def main(argv=None):
    ap = argparse.ArgumentParser(description="amdkit vs PyTorch: per-entry table and fast_p with confidence intervals")
    ap.add_argument("amdkit", metavar="AMDKIT.json")
    ap.add_argument("torch", metavar="TORCH.json", nargs="*", help="peer_torch.py results (none: no ops comparison)")
    ap.add_argument("--attention", metavar="ATTENTION.json", help="peer_attention.py's joined file")
    ap.add_argument("--gemm", metavar="GEMM.json", help="gemm_sweep_report.py --joined file")
    ap.add_argument("--suite-correct", metavar="FAMILY[,FAMILY]", default="",
                    help="attention and/or gemm: that family's GPU suite passed on this build; its entries "
                         "(which their benchmark cannot check) count as correct, labelled suite-checked")
    ap.add_argument("--out", metavar="report.md", help="also write the report to this file")
    ap.add_argument("--json", metavar="fastp.json", help="write fast_p and the per-entry classes as JSON")
    ap.add_argument("--strict", action="store_true",
                    help="fast_p also counts peer entries with no amdkit result, as incorrect")
    ap.add_argument("--stat", choices=("median", "mean"), default="median", help="time statistic (default median)")
    ap.add_argument("--min-frac", type=float, default=0.9, help="copy-bandwidth target (default 0.9)")
    ap.add_argument("--conf", type=float, default=0.95, help="confidence of the speedup intervals (default 0.95)")
    ap.add_argument("--margin", type=float, default=0.0,
                    help="equivalence band: speedups within p (1 -+ M) count as ties too (default 0: the interval "
                         "alone); the intervals hold the sampling noise of one run, not run-to-run drift")
    a = ap.parse_args(argv)
    suite = tuple(s for s in a.suite_correct.split(",") if s)
    for s in suite:
        if s not in ("attention", "gemm"):
            ap.error("--suite-correct takes attention and/or gemm (ops check themselves), not %r" % s)
    if not 0.5 <= a.conf < 1.0:
        ap.error("--conf must be in [0.5, 1)")
    if not 0.0 <= a.margin < 0.5:
        ap.error("--margin must be in [0, 0.5)")
    try:
        amd = load(a.amdkit)
        results_of(amd, a.amdkit)
        tds = [load(p) for p in a.torch]
        for p, d in zip(a.torch, tds):
            results_of(d, p)
        att = load(a.attention) if a.attention else None
        gem = load(a.gemm) if a.gemm else None
    except (OSError, ValueError) as e:
        print("report: %s" % e, file=sys.stderr)
        return 2
    text, fast, entries = build_report(amd, tds, att, gem, suite, a.strict, a.stat, a.min_frac, a.conf, a.margin)
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary_json(fast, entries, a.conf, a.margin), f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
