#!/usr/bin/env python3
"""gemm_fp8_report - joins bench_gemm_fp8.c's JSON and peer_torch_gemm_fp8.py's into one
results file and a markdown table.

    python3 bench/gemm_fp8_report.py AMDKIT.json TORCH.json [--correct] --json OUT.json --md OUT.md

ratio = torch._scaled_mm median / amdkit median (> 1: amdkit faster); --correct: the
gpu_gemm_fp8 suite passed in the same run.
"""
import json, sys

def main():
    args = sys.argv[1:]
    ak = json.load(open(args[0])); pt = json.load(open(args[1]))
    correct = "--correct" in args
    jout = args[args.index("--json") + 1]; mout = args[args.index("--md") + 1]
    peer = {(r["name"], r["impl"]): r for r in pt["results"] if "median" in r}
    rows, joined = [], []
    for r in ak["results"]:
        e = peer.get((r["name"], "torch_scaled_mm")); b = peer.get((r["name"], "torch_bf16"))
        ratio = e["median"] / r["median"] if e else None
        j = dict(r); j["torch_scaled_mm"] = e; j["torch_bf16"] = b; j["ratio_vs_scaled_mm"] = ratio
        joined.append(j)
        bw = (" (W at %.0f%% of copy)" % (100 * r["b_read_copy_fraction"])) if r["m"] <= 16 else ""
        rows.append("| %s | %s | %.1f | %.1f%%%s | %s | %s | %s |" % (
            r["name"], r["kernel"], r["tflops"], 100 * r["roofline_fraction"], bw,
            "%.1f" % e["tflops"] if e else "-", "%.2fx" % ratio if ratio else "-", "%.1f" % b["tflops"] if b else "-"))
    big = [j["ratio_vs_scaled_mm"] for j in joined if j["ratio_vs_scaled_mm"] and j["m"] >= 4096 and j["n"] >= 4096 and j["k"] >= 4096]
    json.dump({"tool": "gemm_fp8_report", "hardware": ak.get("hardware"), "device": ak.get("device"), "copy_gbps": ak.get("copy_gbps"),
               "torch": pt.get("torch"), "correct": correct,
               "min_ratio_4096_up": min(big) if big else None, "results": joined}, open(jout, "w"), indent=1)
    with open(mout, "w") as f:
        f.write("FP8 GEMM (e4m3 x e4m3 -> bf16, y = A W^T) on %s (%s), copy bandwidth %.0f GB/s, torch %s; correct (gpu_gemm_fp8 suite "
                "passed in the same run): %s\n\n" % (ak.get("hardware"), ak.get("device"), ak.get("copy_gbps") or 0, pt.get("torch"), correct))
        f.write("| case | amdkit kernel | amdkit TF/s | % of fp8 peak | torch._scaled_mm TF/s | vs _scaled_mm | torch bf16 TF/s |\n"
                "|---|---|---|---|---|---|---|\n")
        f.write("\n".join(rows) + "\n\n")
        f.write("smallest ratio vs torch._scaled_mm at m, n, k >= 4096: %s\n" % ("%.2fx" % min(big) if big else "-"))
    print(open(mout).read())

if __name__ == "__main__":
    main()
