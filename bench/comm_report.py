"""Merge bench_comm.c's and comm_torch.py's JSON into one result file and a
table: bus bandwidth of amdkit (NCCL/RCCL through amdkit) beside
torch.distributed at every size, the ratio, and the targets (>= 0.95x
at every size >= 1 MiB; enqueue overhead < 2 us).

    python3 bench/comm_report.py comm_amdkit.json comm_torch.json --json out.json --md out.md
"""
import argparse
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("amdkit")
    ap.add_argument("torch")
    ap.add_argument("--json", required=True)
    ap.add_argument("--md", required=True)
    a = ap.parse_args()
    ak = json.load(open(a.amdkit))
    th = json.load(open(a.torch)) if a.torch else None
    tmap = {(r["op"], r["bytes"]): r for r in (th or {}).get("collectives", [])}
    lines = [f"# Collectives on {ak['ranks']} x {ak['device']}", "",
             f"amdkit: {ak['library']}; torch: {th['library'] if th else 'not run'}", "",
             "| op | bytes | amdkit busbw GB/s | torch busbw GB/s | ratio |", "|---|---:|---:|---:|---:|"]
    worst = None
    for r in ak["collectives"]:
        t = tmap.get((r["op"], r["bytes"]))
        ratio = r["busbw_GBps"] / t["busbw_GBps"] if t and t["busbw_GBps"] > 0 else None
        r["torch_busbw_GBps"] = t["busbw_GBps"] if t else None
        r["torch_mean_ms"] = t["mean"] if t else None
        r["ratio_vs_torch"] = ratio
        if ratio is not None and r["bytes"] >= (1 << 20) and (worst is None or ratio < worst[0]):
            worst = (ratio, r["op"], r["bytes"])
        lines.append(f"| {r['op']} | {r['bytes']} | {r['busbw_GBps']:.2f} | {t['busbw_GBps'] if t else float('nan'):.2f} | "
                     f"{ratio if ratio is not None else float('nan'):.3f} |")
    e = ak.get("enqueue_us", {})
    lines += ["", f"enqueue one all-reduce: amdkit {e.get('amdkit')} us, library call {e.get('library')} us, overhead {e.get('overhead')} us (target < 2 us)"]
    if worst:
        lines.append(f"lowest ratio at >= 1 MiB: {worst[0]:.3f} ({worst[1]}, {worst[2]} bytes); target >= 0.95")
    if ak.get("peer_copy"):
        lines += ["", "| peer copy bytes | direct GB/s | staged GB/s | same-device GB/s |", "|---:|---:|---:|---:|"]
        for p in ak["peer_copy"]:
            lines.append(f"| {p['bytes']} | {p['direct_GBps']} | {p['staged_GBps']} | {p['same_device_GBps']} |")
    out = dict(ak)
    out["torch"] = th
    out["summary"] = dict(lowest_ratio_ge_1MiB=worst[0] if worst else None, enqueue_overhead_us=e.get("overhead"))
    json.dump(out, open(a.json, "w"), indent=1)
    open(a.md, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
