#!/usr/bin/env python3
"""kernelbench_check - what bench/kernelbench/run.py can be checked for without a GPU:
1. the enum values problems.py mirrors equal amdkit.h's (parsed from the header);
2. the 100 level-1 problems are there once each, every expressible one has a callable, the rest say why;
3. kb_shim.c builds as a shared library and exports every function run.py declares (nm -D);
4. run.py's summary (baseline JSON, report.py inputs, fast_p) on synthetic results: known wins / ties / losses
   come out as bench/report.py classifies them, and a wrong problem never counts as fast.
Prints `N passed, N failed` last; exit 1 on a failure."""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench", "kernelbench"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import problems as P   # noqa: E402
import run as RUN      # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


hdr = open(os.path.join(ROOT, "amdkit.h")).read()


def enum_value(name):
    m = re.search(r"\b%s\s*=\s*(\d+)" % re.escape(name), hdr)
    return int(m.group(1)) if m else None


def define_value(name):
    m = re.search(r"#define %s (\d+)u?\b" % re.escape(name), hdr)
    return int(m.group(1)) if m else None


# 1. enums
for k, v in P.OP.items():
    check(enum_value("AK_OP_" + k.upper()) == v, "unary op %s = %d" % (k, v))
for k, v in P.RED.items():
    check(enum_value("AK_REDUCE_" + k.upper()) == v, "reduce op %s = %d" % (k, v))
check(enum_value("AK_OP_MUL") == P.BIN_MUL, "binary mul")
for k, v in P.NORM.items():
    check(enum_value("AK_NORM_" + k.upper()) == v, "norm kind %s" % k)
for k, v in {"mse": "MSE", "l1": "L1", "huber": "HUBER", "smooth_l1": "SMOOTH_L1", "kl": "KL_DIV", "hinge": "HINGE"}.items():
    check(enum_value("AK_LOSS_" + v) == P.LOSS[k], "loss op %s" % k)
for k, v in P.LOSS_RED.items():
    check(enum_value("AK_LOSS_" + k.upper()) == v, "loss reduction %s" % k)
check(enum_value("AK_TARGET_FULL") == P.TARGET_FULL and enum_value("AK_TARGET_ROW") == P.TARGET_ROW, "loss target layout")
check(define_value("AK_LOSS_PROB_INPUT") == P.LOSS_PROB_INPUT, "AK_LOSS_PROB_INPUT")
check(enum_value("AK_SCAN_SUM") == P.SCAN_SUM and enum_value("AK_SCAN_PROD") == P.SCAN_PROD, "scan ops")
check(define_value("AK_SCAN_EXCLUSIVE") == P.SCAN_EXCLUSIVE and define_value("AK_SCAN_REVERSE") == P.SCAN_REVERSE, "scan flags")
check(enum_value("AK_POOL_MAX") == P.POOL_MAX and enum_value("AK_POOL_AVG") == P.POOL_AVG, "pool kinds")
check(enum_value("AK_F32") == P.F32 and enum_value("AK_F16") == P.F16 and enum_value("AK_BF16") == P.BF16, "dtypes")

# 2. the table
nums = sorted(q.num for q in P.PROBLEMS)
check(nums == list(range(1, 101)), "problems 1..100 once each")
check(all(q.file.startswith("%d_" % q.num) and q.file.endswith(".py") for q in P.PROBLEMS), "file names")
check(all(q.make is None or callable(q.make) for q in P.PROBLEMS), "makers callable")
check(all(q.make is not None or "not expressible" in q.how for q in P.PROBLEMS), "unexpressible problems say why")

# 3. the shared library
with tempfile.TemporaryDirectory() as d:
    lib = os.path.join(d, "libamdkit_kb.so")
    try:
        RUN.build_lib(lib)
        ok = os.path.exists(lib)
    except Exception as e:   # noqa: BLE001
        print(e)
        ok = False
    check(ok, "kb_shim.c builds")
    if ok:
        syms = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True).stdout
        src = open(os.path.join(ROOT, "bench", "kernelbench", "run.py")).read()
        names = set(re.findall(r'"((?:ak|kb)_[a-z0-9_]+)": \[', src))
        check(len(names) >= 15, "run.py declares its functions")
        for n in sorted(names | {"ak_last_error"}):
            check(re.search(r"\bT %s$" % n, syms, re.M) is not None, "libamdkit_kb.so exports %s" % n)

# 4. the summary on synthetic results
with tempfile.TemporaryDirectory() as d:
    def t(ms, n=50):
        times = [ms * (1 + 0.001 * ((i % 7) - 3)) for i in range(n)]
        return RUN.stats(times, "H", "cuda:0")
    probs = {}
    # 19: 2x faster than eager and compile; 20: a tie with eager; 21: slower; 22: wrong but fast; 50 (conv) absent
    probs["19_ReLU.py"] = {"status": "ok", "correct": True, "timings": {"amdkit": t(1.0), "torch_eager": t(2.0), "torch_compile": t(2.0)}}
    probs["20_LeakyReLU.py"] = {"status": "ok", "correct": True, "timings": {"amdkit": t(1.0), "torch_eager": t(1.0), "torch_compile": t(0.5)}}
    probs["21_Sigmoid.py"] = {"status": "ok", "correct": True, "timings": {"amdkit": t(2.0), "torch_eager": t(1.0), "torch_compile": t(1.0)}}
    probs["22_Tanh.py"] = {"status": "ok", "correct": False, "timings": {"amdkit": t(0.1), "torch_eager": t(1.0), "torch_compile": t(1.0)}}
    probs["23_Softmax.py"] = {"status": "error", "error": "x"}
    with open(os.path.join(d, "results-x.json"), "w") as f:
        json.dump({"precision": "fp32", "hardware": "H", "device": "cuda:0", "problems": probs}, f)
    RUN.summarize([os.path.join(d, "results-x.json")], d)
    fp = json.load(open(os.path.join(d, "fastp.json")))
    e = fp["fast_p"]["torch_eager"]
    check(e["timed"] == 4, "four problems timed (%s)" % e["timed"])
    check(e["per_p"]["1"] == {"win": 1, "tie": 1, "loss": 1, "incorrect": 1, "not_timed": 96}, "fast_1 classes %s" % e["per_p"]["1"])
    check(abs(e["fast_p_over_100"]["1"] - 0.01) < 1e-12, "fast_1 over 100")
    check(e["per_p"]["0"]["win"] == 3 and e["per_p"]["0"]["incorrect"] == 1, "fast_0: every correct one wins")
    check(fp["counts"]["not_expressible"] == 0 and fp["counts"]["correct"] == 3, "counts %s" % fp["counts"])
    base = json.load(open(os.path.join(d, "baseline_amdkit.json")))
    r = base["level1"].get("19_ReLU.py", {})
    check(set(r) == {"mean", "std", "min", "max", "num_trials", "hardware", "device"} and r["num_trials"] == 50, "baseline format")
    check("23_Softmax.py" not in base["level1"], "an error has no baseline entry")
    # report.py reads the ops files as it reads bench_ops / peer_torch output
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "report.py"), os.path.join(d, "kb_amdkit_ops.json"),
                          os.path.join(d, "kb_torch_ops.json"), "--json", os.path.join(d, "rep.json")], capture_output=True, text=True)
    check(out.returncode == 0 and os.path.exists(os.path.join(d, "rep.json")), "report.py reads kb_*_ops.json: %s" % out.stderr[-300:])
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
