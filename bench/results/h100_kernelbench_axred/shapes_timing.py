# usage: shapes_timing.py TREE LIB VARIANTS(def,1,2,4) [torch]
# AXRED_SHAPES="BxRxI:op,op:trials:f32|f16;..." replaces the shape list below (the later calls' lists are in
# results/h100_kernelbench_axred2/README.md)
import sys, os, ctypes
import torch
tree, lib, variants = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
with_torch = len(sys.argv) > 4
sys.path.insert(0, os.path.join(tree, "bench", "kernelbench"))
import run as KR
ak = KR.Amdkit(lib)
dev = "cuda"
scratch = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
RED = {"sum": 0, "mean": 1, "max": 2, "min": 3, "argmax": 4, "argmin": 5}
shapes = [((16, 4096, 4095), ["sum", "argmax"], 10, 0),
          ((16, 4096, 4095), ["sum", "argmax"], 10, 1),
          ((16, 4096, 512), ["sum", "argmax"], 20, 0),
          ((1024, 256, 1024), ["sum", "argmax"], 20, 0),
          ((64, 1000, 37), ["sum", "argmax"], 30, 0),
          ((8, 50000, 8), ["sum", "argmax"], 30, 0),
          ((4096, 64, 64), ["sum", "argmax"], 30, 0),
          ((1000, 500, 2), ["sum", "argmax"], 30, 0),
          ((32, 300, 16), ["sum", "argmax"], 30, 0)]
if os.environ.get("AXRED_SHAPES"):
    shapes = []
    for e in os.environ["AXRED_SHAPES"].split(";"):
        dims, ops, trials, dt = e.split(":")
        shapes.append((tuple(int(v) for v in dims.split("x")), ops.split(","), int(trials), 1 if dt == "f16" else 0))
def med(t):
    t = sorted(t); return t[len(t) // 2]
for shp, ops, trials, dtc in shapes:
    B, R, I = shp
    x = torch.rand(B, R, I, device=dev, dtype=torch.float16 if dtc else torch.float32)
    for op in ops:
        arg = op.startswith("arg")
        y = torch.empty((B, I), device=dev, dtype=torch.int64 if arg else torch.float32)
        ref = getattr(torch, op)(x, dim=1)
        if op in ("max", "min"): ref = ref[0]
        def run():
            ak.ak_reduce_axes(RED[op], dtc, ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(y.data_ptr()), 3, KR.sizes(B, R, I), 2, None)
        res = []
        for v in variants:
            if v == "def": os.environ.pop("AK_AXRED_PIECES", None)
            else: os.environ["AK_AXRED_PIECES"] = v
            y.zero_()
            t = KR.time_calls(torch, run, [], trials, 2, scratch)
            ok = bool(torch.equal(ref, y)) if arg else bool(torch.allclose(ref.float(), y, atol=1e-2 if dtc else 1e-4, rtol=1e-2 if dtc else 1e-4))
            res.append("%s=%.4f%s" % (v, med(t), "" if ok else "(WRONG)"))
        if with_torch:
            f = (lambda: getattr(torch, op)(x, dim=1))
            t = KR.time_calls(torch, f, [], trials, 2, scratch)
            res.append("torch=%.4f" % med(t))
        gb = x.numel() * x.element_size() / 1e9
        print("%-18s %-4s %-7s %s  (%.3f GB)" % (str(shp), "f16" if dtc else "f32", op, " ".join(res), gb), flush=True)
    del x
    torch.cuda.empty_cache()
