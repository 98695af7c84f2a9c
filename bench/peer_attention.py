#!/usr/bin/env python3
"""peer_attention - PyTorch scaled_dot_product_attention (eager and torch.compile)
on the shapes of bench/bench_attention.c, and the comparison table.

    python3 bench/peer_attention.py --match AMDKIT.json [--trials N] [--eager-only] OUT.json

OUT.json holds both sides: {"amdkit": <the bench_attention.c file>, "torch":
{... "results": [...]}, "table": [markdown lines]}.

For every entry of the amdkit result file (its shapes, dtypes and its "auto"
rows): q, k, v from torch.randn (B, H, S, D) on the device, then 3 warm-up
calls and N timed calls (default 20, decode 50), each between CUDA events with
the L2 flushed before it (a write over twice the L2, untimed), median and the
rest in ms; TF/s and GB/s counted exactly as bench_attention.c does
(4 * b * hq * sq * skv * d, halved for causal; decode: bytes of K and V).
Impls: "torch_eager" = F.scaled_dot_product_attention(q, k, v,
is_causal=..., enable_gqa=hq != hkv) and "torch_compile" = the same call under
torch.compile (dynamo reset per entry). Causal with seq_q != seq_kv: SDPA's
is_causal is top-left aligned, amdkit's bottom-right (FlashAttention 2), so
those rows pass an explicit bottom-right boolean mask to torch (its time is
what a user of that convention pays). An impl that fails is written with
null times and an "error" string.

Entries in the BSHD layout give torch transposed (B, S, H, D) views (what a
caller holding that layout passes); paged decode is compared with SDPA over
contiguous K / V of the same size; packed (varlen) entries have no torch
side: the table compares them with amdkit's equal-length entry.

Last, a table: amdkit vs eager and compile per entry (every path the amdkit
file holds), with the targets (prefill >= 0.9x SDPA for head_dim 64 / 128 at
seq >= 1024, >= 0.8x otherwise; decode, contiguous or paged, >= 85% of copy
bandwidth; packed within 10% of the equal-length TF/s), and for the prefill
entries a grid of x SDPA by seq, causal and head_dim.
"""
import json
import sys
import torch
import torch.nn.functional as F


def timeit(fn, n, flush):
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    ts = []
    for i in range(3 + n):
        flush.fill_(i & 0xFF)
        s.record()
        fn()
        e.record()
        e.synchronize()
        if i >= 3:
            ts.append(s.elapsed_time(e))
    ts.sort()
    m = len(ts)
    mean = sum(ts) / m
    std = (sum((t - mean) ** 2 for t in ts) / m) ** 0.5
    med = ts[m // 2] if m % 2 else 0.5 * (ts[m // 2 - 1] + ts[m // 2])
    return {"mean": mean, "std": std, "min": ts[0], "max": ts[-1], "median": med, "num_trials": m,
            "times": [float("%.6g" % t) for t in ts]}   # samples: bench/report.py's intervals


def main():
    args = sys.argv[1:]
    match = None
    trials = 0
    out = None
    impls = ("torch_eager", "torch_compile")
    i = 0
    while i < len(args):
        if args[i] == "--match":
            match = args[i + 1]; i += 2
        elif args[i] == "--eager-only":
            impls = ("torch_eager",); i += 1
        elif args[i] == "--trials":
            trials = int(args[i + 1]); i += 2
        else:
            out = args[i]; i += 1
    if not match or not out:
        print(__doc__)
        return 2
    ours = json.load(open(match))
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    flush = torch.empty(2 * getattr(props, "L2_cache_size", 50 << 20), dtype=torch.uint8, device=dev)
    res = []
    dts = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    seen = set()
    for r in ours["results"]:
        sh = r["shape"]
        key = (r["name"], r["dtype"], json.dumps(sh, sort_keys=True))
        if r.get("path") != "auto" or key in seen:
            continue
        seen.add(key)
        b, hq, hkv, sq, skv, d = sh["batch"], sh["heads_q"], sh["heads_kv"], sh["seq_q"], sh["seq_kv"], sh["head_dim"]
        causal = sh["causal"]
        if sh.get("varlen"):
            continue  # packed sequences: compared with amdkit's own equal-length entry (the table)
        dt = dts[r["dtype"]]
        torch.manual_seed(0)
        if sh.get("layout") == "bshd":  # what a caller holding [b][s][h][d] passes: transposed views
            q = torch.randn(b, sq, hq, d, device=dev, dtype=dt).transpose(1, 2)
            k = torch.randn(b, skv, hkv, d, device=dev, dtype=dt).transpose(1, 2)
            v = torch.randn(b, skv, hkv, d, device=dev, dtype=dt).transpose(1, 2)
        else:
            q = torch.randn(b, hq, sq, d, device=dev, dtype=dt)
            k = torch.randn(b, hkv, skv, d, device=dev, dtype=dt)
            v = torch.randn(b, hkv, skv, d, device=dev, dtype=dt)
        mask = None
        if causal and sq != skv:
            i_ = torch.arange(sq, device=dev)[:, None]
            j_ = torch.arange(skv, device=dev)[None, :]
            mask = j_ <= i_ + (skv - sq)
        gqa = hq != hkv

        def call(q=q, k=k, v=v, mask=mask, causal=causal, gqa=gqa):
            if mask is not None:
                return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=gqa)
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)

        decode = "decode" in r["name"]
        n = trials or (50 if decode else 20)
        flops = 4.0 * b * hq * sq * skv * d * (0.5 if causal else 1.0)
        kvb = 2.0 * b * hkv * skv * d * q.element_size()
        for impl in impls:
            row = {"name": r["name"], "impl": impl, "dtype": r["dtype"], "shape": sh,
                   "hardware": torch.cuda.get_device_name(dev), "device": "cuda:0"}
            try:
                if impl == "torch_compile":
                    torch._dynamo.reset()
                    fn = torch.compile(call, dynamic=False)
                else:
                    fn = call
                with torch.no_grad():
                    st = timeit(fn, n, flush)
                row.update(st)
                row["tflops"] = flops / (st["median"] * 1e-3) / 1e12
                if decode:
                    row["kv_bytes"] = kvb
                    row["gbps"] = kvb / (st["median"] * 1e-3) / 1e9
                    row["roofline_fraction"] = row["gbps"] / ours["copy_gbps"] if ours.get("copy_gbps") else None
            except Exception as ex:  # noqa: BLE001 - report and go on
                row.update({"mean": None, "std": None, "min": None, "max": None, "median": None,
                            "num_trials": 0, "error": str(ex)[:300]})
            res.append(row)
            print("%-14s %-4s %-13s %s %s" % (r["name"], r["dtype"], impl, json.dumps(sh),
                                              ("%.4f ms %.1f TF/s" % (row["median"], row["tflops"]))
                                              if row.get("median") else row.get("error")), flush=True)
        del q, k, v
        torch.cuda.empty_cache()
    peer = {"tool": "peer_attention", "hardware": torch.cuda.get_device_name(dev), "device": "cuda:0",
            "backend": "torch", "torch_version": torch.__version__, "cuda_version": torch.version.cuda,
            "copy_gbps": ours.get("copy_gbps"), "results": res}

    # comparison table (x eager / x compile: torch time / amdkit time, > 1 means amdkit is faster). Targets:
    # prefill >= 0.9x SDPA for head_dim 64 / 128 at seq >= 1024, >= 0.8x for the other head sizes; decode
    # (contiguous or paged) >= 85% of the copy bandwidth in K / V bytes; packed sequences within 10% of the
    # equal-length entry's TF/s.
    table = ["| entry | dtype | path | kernel | amdkit ms | TF/s | GB/s (% copy) | eager ms | x eager | compile ms | x compile | target |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    eq = {}
    for r in ours["results"]:
        if r["name"].endswith("_eqlen") and r.get("path") == "auto":
            eq[(r["dtype"], r["shape"]["head_dim"])] = r
    grid = {}
    for r in ours["results"]:
        sh = r["shape"]
        mine = {p["impl"]: p for p in res if p["name"] == r["name"] and p["dtype"] == r["dtype"] and p["shape"] == sh}
        e = mine.get("torch_eager", {}).get("median")
        c = mine.get("torch_compile", {}).get("median")
        decode = "decode" in r["name"]
        best = min([x for x in (e, c) if x] or [float("inf")])
        ratio = best / r["median"] if best != float("inf") else 0
        if decode:
            ok = (r.get("roofline_fraction") or 0) >= 0.85
            tgt = "%s (>=85%% copy)" % ("met" if ok else "MISS")
            gb = "%.0f (%.0f%%)" % (r["gbps"], 100 * r["roofline_fraction"])
        elif sh.get("varlen"):
            ref = eq.get((r["dtype"], sh["head_dim"]))
            rr = r["tflops"] / ref["tflops"] if ref and ref.get("tflops") else 0
            tgt = "%s (%.2fx the equal-length TF/s, >= 0.9)" % ("met" if rr >= 0.9 else "MISS", rr)
            gb = ""
        else:
            need = 0.9 if sh["head_dim"] in (64, 128) and sh["seq_q"] >= 1024 else 0.8
            ok = e is not None and e / r["median"] >= need
            tgt = "%s (>=%.1fx SDPA)" % ("met" if ok else "MISS", need)
            gb = ""
            if r.get("path") == "auto" and e:
                grid[(sh["seq_q"], sh["head_dim"], sh["causal"], r["dtype"])] = e / r["median"]
        lbl = "%s b%d hq%d hkv%d sq%d skv%d d%d%s%s%s" % (
            r["name"], sh["batch"], sh["heads_q"], sh["heads_kv"], sh["seq_q"], sh["seq_kv"], sh["head_dim"],
            " causal" if sh["causal"] else "", " " + sh["layout"] if sh.get("layout", "bhsd") != "bhsd" else "",
            " page%d" % sh["page"] if sh.get("page") else " varlen" if sh.get("varlen") else "")
        table.append("| %s | %s | %s | %s | %.3f | %.1f | %s | %s | %s | %s | %s | %s |" % (
            lbl, r["dtype"], r.get("path", ""), r.get("kernel", ""), r["median"], r["tflops"], gb,
            "%.3f" % e if e else "-", "%.2f" % (e / r["median"]) if e else "-",
            "%.3f" % c if c else "-", "%.2f" % (c / r["median"]) if c else "-", tgt))
    # heat map of the prefill ratio to SDPA (eager): rows seq x causal, columns head_dim
    if grid:
        dims = sorted({k[1] for k in grid})
        table += ["", "x SDPA (eager time / amdkit time), prefill, auto path:", "",
                  "| seq | causal | dtype | " + " | ".join("d%d" % x for x in dims) + " |",
                  "|---|---|---|" + "---|" * len(dims)]
        for sq_, cz, dt_ in sorted({(k[0], k[2], k[3]) for k in grid}):
            table.append("| %d | %s | %s | " % (sq_, "yes" if cz else "no", dt_) + " | ".join(
                "%.2f" % grid[(sq_, x, cz, dt_)] if (sq_, x, cz, dt_) in grid else "-" for x in dims) + " |")
    print("\n" + "\n".join(table))
    # one file with both sides (the device tool returns few files)
    json.dump({"amdkit": ours, "torch": peer, "table": table}, open(out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
