#!/usr/bin/env python3
"""report_check - bench/report.py's fast_p logic on synthetic bench JSON (no GPU):
a clear win, a clear loss, a tie (interval across p), an entry whose check
failed, an unchecked one, a missing peer, summary-only (approximate) entries,
and the attention / gemm families with their suite-checked labels.
Prints `N passed, N failed` last; exit 1 on any failure."""
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import report  # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("  FAIL %s" % what)


def samples(med, spread, n, seed):
    r = random.Random(seed)
    return [med * (1.0 + spread * (r.random() - 0.5)) for _ in range(n)]


def amd_rec(name, med, spread=0.01, n=200, correct=True, seed=1):
    t = samples(med, spread, n, seed)
    rec = {"name": name, "dtype": "f32", "shape": [1, 1024], "median": sorted(t)[n // 2], "num_trials": n,
           "times": t, "gbps": 100.0, "roofline_fraction": 0.95}
    if correct is not None:
        rec["correct"] = correct
        rec["max_abs_err"] = 0.0 if correct else 3.5
        rec["err_tol_ratio"] = 0.0 if correct else 35000.0
    return rec


def peer_rec(name, impl, med, spread=0.01, n=200, seed=2):
    t = samples(med, spread, n, seed)
    return {"name": name, "dtype": "f32", "shape": [1, 1024], "impl": impl, "median": sorted(t)[n // 2],
            "num_trials": n, "times": t}


amd = {"hardware": "X", "device": "x:0", "backend": "cpu", "copy_gbps": 100.0, "results": [
    amd_rec("win", 1.0),                      # eager 2.5 ms: a clear win at p = 0, 1, 1.5, 2
    amd_rec("loss", 1.0),                     # eager 0.5 ms: a clear loss at p >= 1
    amd_rec("tie", 1.0, spread=0.06),         # eager 1.0 ms, both noisy: a tie at p = 1
    amd_rec("bad", 1.0, correct=False),       # check failed: never counted, however fast
    amd_rec("unchecked", 1.0, correct=None),  # no "correct" field: incorrect
    amd_rec("nopeer", 1.0),                   # no eager entry: not in the eager denominator
]}
tor = {"hardware": "X", "device": "x:0", "results": [
    peer_rec("win", "torch_eager", 2.5), peer_rec("loss", "torch_eager", 0.5),
    peer_rec("tie", "torch_eager", 1.0, spread=0.06), peer_rec("bad", "torch_eager", 5.0),
    peer_rec("unchecked", "torch_eager", 5.0),
    peer_rec("win", "torch_compile", 1.6), peer_rec("nopeer", "torch_compile", 3.0),
]}

text, fast, entries = report.build_report(amd, [tor])
by = {e.key[0]: e for e in entries}
ci = lambda n: by[n].ci["torch_eager"]  # noqa: E731
check(report.classify(by["win"].correct, ci("win"), 2.0) == "win", "clear win is a win at p=2")
check(report.classify(by["loss"].correct, ci("loss"), 1.0) == "loss", "clear loss is a loss at p=1")
check(report.classify(by["loss"].correct, ci("loss"), 0.0) == "win", "a correct slower kernel still wins at p=0")
check(ci("tie")[1] < 1.0 < ci("tie")[2], "tie: interval [%.3f, %.3f] contains 1" % (ci("tie")[1], ci("tie")[2]))
check(report.classify(by["tie"].correct, ci("tie"), 1.0) == "tie", "tie is a tie at p=1")
check(report.classify(by["bad"].correct, ci("bad"), 1.0) == "incorrect", "failed check is incorrect")
check(not by["unchecked"].correct and by["unchecked"].check == "unchecked", "no correct field: unchecked")
check(by["nopeer"].ci["torch_eager"] is None, "missing peer: no eager comparison")
fe = fast[("ops", "torch_eager")]
check(fe["n"] == 5, "eager denominator = 5 joined entries (got %d)" % fe["n"])
check(fe["correct"] == 3, "3 correct joined entries (got %d)" % fe["correct"])
p = dict(zip(report.PS, fe["per_p"]))
check(p[0.0]["win"] == 3 and p[0.0]["incorrect"] == 2, "fast_0 = correctness rate 3/5: %r" % p[0.0])
check(p[1.0] == {"win": 1, "tie": 1, "loss": 1, "incorrect": 2}, "p=1: 1 win, 1 tie, 1 loss, 2 incorrect: %r" % p[1.0])
check(p[2.0]["win"] == 1 and p[2.0]["tie"] == 0, "p=2: the 2.5x entry only: %r" % p[2.0])
fc = fast[("ops", "torch_compile")]
check(fc["n"] == 2, "compile denominator = 2 (got %d)" % fc["n"])
check(dict(zip(report.PS, fc["per_p"]))[1.5]["win"] == 2, "compile p=1.5: the 1.6x and 3x entries win")
check(dict(zip(report.PS, fc["per_p"]))[2.0]["win"] == 1, "compile p=2: the nopeer entry (3x) wins")
gm = fe["geomean"]
check(abs(gm - (2.5 * 0.5 * 1.0 * 5.0 * 5.0) ** 0.2) < 0.05, "geomean over the 5 joined entries (%.3f)" % gm)
check("fast_2" in text and "+1t" in text, "markdown shows fast_2 and the tie count")
check("unchecked" in text and "FAILED check" in text, "markdown labels the unchecked and failed entries")
# more trials shrink the interval: a 0.5% difference is a tie with 20 trials, a win with 20000 (low noise)
small = report.speedup_ci(report.Timing({"median": 1.0, "times": samples(1.0, 0.02, 20, 5)}, "median", 0.95),
                          report.Timing({"median": 1.005, "times": samples(1.005, 0.02, 20, 6)}, "median", 0.95), 0.95)
big = report.speedup_ci(report.Timing({"median": 1.0, "times": samples(1.0, 0.02, 20000, 7)}, "median", 0.95),
                        report.Timing({"median": 1.005, "times": samples(1.005, 0.02, 20000, 8)}, "median", 0.95), 0.95)
check(report.classify(True, small, 1.0) == "tie", "0.5%% faster, 20 noisy trials: tie %r" % (small,))
check(report.classify(True, big, 1.0) == "win", "0.5%% faster, 20000 trials: win %r" % (big,))
# --margin: a 0.5% win with tight intervals is a win with no margin, a tie inside a 1% band
check(report.classify(True, big, 1.0, 0.0) == "win" and report.classify(True, big, 1.0, 0.01) == "tie",
      "margin 0.01 turns a 0.5%% win into a tie %r" % (big,))
check(report.classify(True, (0.5, 0.49, 0.51, False), 1.0, 0.01) == "loss", "a clear loss stays a loss with a margin")
# summary statistics only: normal approximation, marked approximate
t = report.Timing({"median": 2.0, "std": 0.1, "num_trials": 100}, "median", 0.95)
check(t.approx and 1.97 < t.lo < 2.0 < t.hi < 2.03, "summary-only interval (%.4f, %.4f)" % (t.lo, t.hi))
t1 = report.Timing({"median": 2.0, "num_trials": 1}, "median", 0.95)
check(t1.lo == 0.0 and t1.hi == float("inf"), "one trial, no std: unbounded interval")
lo_c, hi_c = report.median_ci(list(range(1, 101)), 0.95)[1:]
check(40 <= lo_c <= 41 and 60 <= hi_c <= 62, "order-statistic interval of 1..100: [%s, %s]" % (lo_c, hi_c))

# attention and gemm families: suite-checked only when the caller / the file says so
att = {"amdkit": {"hardware": "X", "results": [
    {"name": "attention_prefill", "path": "auto", "dtype": "f16", "shape": {"batch": 1, "causal": False},
     "median": 1.0, "std": 0.001, "num_trials": 50},
    {"name": "attention_prefill", "path": "simt", "dtype": "f16", "shape": {"batch": 1, "causal": False},
     "median": 9.0, "std": 0.001, "num_trials": 5}]},
       "torch": {"results": [
           {"name": "attention_prefill", "impl": "torch_eager", "dtype": "f16", "shape": {"causal": False, "batch": 1},
            "median": 0.5, "std": 0.001, "num_trials": 50}]}}
gemm = {"hardware": "X", "correct": True, "results": [
    {"name": "g1", "dtype": "bf16", "m": 1, "n": 2, "k": 3, "batch": 1, "path": "wgmma", "median": 1.0, "std": 0.001,
     "num_trials": 100, "torch_eager": {"median": 1.2, "std": 0.001, "num_trials": 100}, "torch_compile": None}]}
text2, fast2, ent2 = report.build_report(amd, [tor], att, gemm, suite_correct=())
fa = fast2[("attention", "torch_eager")]
check(fa["n"] == 1 and fa["correct"] == 0, "attention without --suite-correct: 1 kernel (simt row not counted), unchecked")
check("UNCHECKED" in text2, "attention unchecked is labelled")
fg = fast2[("gemm", "torch_eager")]
check(fg["correct"] == 1 and dict(zip(report.PS, fg["per_p"]))[1.0]["win"] == 1, "gemm: file's correct=true, 1.2x wins")
check(fast2[("gemm", "torch_compile")]["n"] == 0, "gemm without a compile peer: no compile kernels")
check(fast2[("all", "torch_eager")]["n"] == 7, "all = 5 ops + 1 attention + 1 gemm (got %d)" % fast2[("all", "torch_eager")]["n"])
text3, fast3, _ = report.build_report(amd, [tor], att, gemm, suite_correct=("attention",))
check(fast3[("attention", "torch_eager")]["correct"] == 1 and "suite-checked" in text3,
      "--suite-correct attention: counted, labelled suite-checked")

# the command line: --correct-all is gone, --json writes the classes, a bad input is exit 2
d = tempfile.mkdtemp()
pa, pt, pj = os.path.join(d, "a.json"), os.path.join(d, "t.json"), os.path.join(d, "f.json")
json.dump(amd, open(pa, "w"))
json.dump(tor, open(pt, "w"))
cmd = [sys.executable, os.path.join(HERE, "..", "bench", "report.py")]
r = subprocess.run(cmd + [pa, pt, "--json", pj], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
check(r.returncode == 0, "report.py runs (rc %d: %s)" % (r.returncode, r.stderr[-300:]))
js = json.load(open(pj))
row = [x for x in js["fast_p"] if x["set"] == "ops" and x["peer"] == "torch_eager"][0]
check(abs(row["fast_1"] - 0.2) < 1e-9 and row["counts_1"]["tie"] == 1, "JSON fast_1 = 1/5 with 1 tie: %r" % row)
r = subprocess.run(cmd + [pa, pt, "--correct-all"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
check(r.returncode != 0, "--correct-all is no longer accepted")
open(pt, "w").write("{not json")
r = subprocess.run(cmd + [pa, pt], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
check(r.returncode == 2, "unreadable peer file: exit 2 (got %d)" % r.returncode)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
