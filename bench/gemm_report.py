#!/usr/bin/env python3
"""gemm_report - joins bench_gemm.c's JSON and peer_torch_gemm.py's into one
results file and a markdown table (ratios, fast_p).

    python3 bench/gemm_report.py AMDKIT.json TORCH.json [--correct] --json OUT.json --md OUT.md

ratio = torch median / amdkit median (> 1: amdkit faster). fast_p (KernelBench):
the fraction of cases that are correct (--correct: the gpu_gemm suite passed in
the same run) with ratio > p, against torch eager.
"""
import json, sys

def main():
    args = sys.argv[1:]
    ak = json.load(open(args[0])); pt = json.load(open(args[1]))
    correct = "--correct" in args
    jout = args[args.index("--json") + 1]; mout = args[args.index("--md") + 1]
    peer = {}
    for r in pt["results"]:
        if "median" in r: peer[(r["name"], r["impl"])] = r
    rows, joined = [], []
    for r in ak["results"]:
        e = peer.get((r["name"], "torch_eager")); c = peer.get((r["name"], "torch_compile"))
        re_ = e["median"] / r["median"] if e else None
        rc = c["median"] / r["median"] if c else None
        j = dict(r); j["torch_eager"] = e; j["torch_compile"] = c; j["ratio_vs_eager"] = re_; j["ratio_vs_compile"] = rc
        joined.append(j)
        bw = (" (B at %.0f%% of copy)" % (100 * r["b_read_copy_fraction"])) if r["m"] <= 16 else ""
        rows.append("| %s | %s | %.1f | %.1f%%%s | %s | %s | %s | %s |" % (
            r["name"], r["path"], r["tflops"], 100 * r["roofline_fraction"], bw,
            "%.1f" % e["tflops"] if e else "-", "%.2fx" % re_ if re_ else "-",
            "%.1f" % c["tflops"] if c else "-", "%.2fx" % rc if rc else "-"))
    ratios = [j["ratio_vs_eager"] for j in joined if j["ratio_vs_eager"]]
    fast = {p: (sum(1 for x in ratios if correct and x > p) / len(ratios) if ratios else 0) for p in (0.5, 0.8, 1.0, 1.2)}
    json.dump({"tool": "gemm_report", "hardware": ak.get("hardware"), "device": ak.get("device"), "copy_gbps": ak.get("copy_gbps"),
               "torch": pt.get("torch"), "correct": correct, "fast_p_vs_eager": fast, "results": joined}, open(jout, "w"), indent=1)
    with open(mout, "w") as f:
        f.write("GEMM on %s (%s), copy bandwidth %.0f GB/s, torch %s; correct (gpu_gemm suite passed): %s\n\n" % (
            ak.get("hardware"), ak.get("device"), ak.get("copy_gbps") or 0, pt.get("torch"), correct))
        f.write("| case | path | amdkit TF/s | % of peak | eager TF/s | vs eager | compile TF/s | vs compile |\n|---|---|---|---|---|---|---|---|\n")
        f.write("\n".join(rows) + "\n\n")
        f.write("fast_p vs eager: " + ", ".join("fast_%.1f = %.2f" % (p, v) for p, v in fast.items()) + "\n")
    print(open(mout).read())

if __name__ == "__main__":
    main()
