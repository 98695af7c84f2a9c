"""The decode-like sequence of bench/bench_graph.c in PyTorch, timed the same
way (wall time of `reps` back-to-back sequences ending in one synchronize, the
median of 7 runs): eager one by one, and captured once into a
torch.cuda.CUDAGraph and replayed. Joins bench_graph's JSON with these figures.
    python3 bench/graph_torch.py AMDKIT.json OUT.json"""
import json, sys, time
import torch
import torch.nn.functional as F

src, out = sys.argv[1], sys.argv[2]
a = json.load(open(src))
H, L, reps = a["hidden"], a["layers"], a["reps"]
dev = torch.device("cuda")
g = torch.Generator(device="cpu").manual_seed(0)
dt = torch.float32 if a.get("dtype") == "f32" or a["sequence"].endswith("f32") else torch.bfloat16
x = (torch.rand(1, H, generator=g) * 2 - 1).to(dev, dt)
w = ((torch.rand(L, H, H, generator=g) * 2 - 1) * 0.05).to(dev, dt)
wn = torch.ones(H, device=dev, dtype=dt)
y = torch.empty(1, H, device=dev, dtype=dt)
rms = getattr(F, "rms_norm", None)

hh = torch.zeros(1, H, device=dev, dtype=dt)

def ops(kinds):
    # kinds: 1 rmsnorm, 2 mm, 4 silu, 8 add (15: the whole sequence), as in bench_graph.c
    for l in range(L):
        h_ = hh
        if kinds & 1:
            h_ = rms(x, (H,), wn, 1e-6) if rms is not None else x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * wn
        if kinds & 2:
            torch.mm(h_, w[l], out=y)
        if kinds & 4:
            F.silu(y, inplace=True)
        if kinds & 8:
            x.add_(y)

def decode():
    ops(15)

s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        decode()
torch.cuda.current_stream().wait_stream(s)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    decode()
torch.cuda.synchronize()

def timed(fn):
    t = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
        t.append((time.perf_counter() - t0) / reps * 1e6)
    return sorted(t)[3]

eager = timed(decode)
replay = timed(graph.replay)
per_op = {}
for i, name in enumerate(["rmsnorm", "gemm", "silu", "add"]):
    gk = torch.cuda.CUDAGraph()
    with torch.cuda.stream(s):
        ops(1 << i)
    torch.cuda.synchronize()
    with torch.cuda.graph(gk):
        ops(1 << i)
    torch.cuda.synchronize()
    per_op[name] = {"eager": round(timed(lambda: ops(1 << i)) / L, 2), "graph": round(timed(gk.replay) / L, 2)}
a.update({"torch_per_op_us": per_op,"torch_version": torch.__version__, "torch_rms_norm": rms is not None,
          "torch_eager_us": round(eager, 2), "torch_graph_us": round(replay, 2),
          "torch_graph_speedup": round(eager / replay, 2),
          "amdkit_graph_vs_torch_graph": round(replay / a["amdkit_graph_us"], 2)})
json.dump(a, open(out, "w"), indent=1)
print("| sequence (%d ops) | one by one us | graph replay us | speedup |" % a["ops"])
print("|---|---|---|---|")
print("| amdkit | %.1f | %.1f | %.2fx |" % (a["amdkit_direct_us"], a["amdkit_graph_us"], a["amdkit_graph_speedup"]))
print("| PyTorch %s | %.1f | %.1f | %.2fx |" % (torch.__version__, eager, replay, eager / replay))
print("| us per op (alone) | amdkit one by one | amdkit replayed | torch eager | torch replayed |")
print("|---|---|---|---|---|")
for name in ["rmsnorm", "gemm", "silu", "add"]:
    ak = a.get("amdkit_per_op_us", {}).get(name, {})
    print("| %s | %s | %s | %.2f | %.2f |" % (name, ak.get("direct", "-"), ak.get("graph", "-"), per_op[name]["eager"], per_op[name]["graph"]))
