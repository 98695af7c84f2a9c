# exploration: time NVRTC-built cubins of axis kernels (landed + variants) beside torch eager and the library,
# KernelBench's timer (L2 flush by a 256 MiB scratch write outside the events, median)
import ctypes, sys, os, struct
import torch
here = os.path.dirname(os.path.abspath(__file__))
cu = ctypes.CDLL("libcuda.so.1")
torch.cuda.init(); torch.zeros(1, device="cuda")
mod = ctypes.c_void_p()
img = open(os.path.join(here, "var.cubin"), "rb").read()
assert cu.cuModuleLoadData(ctypes.byref(mod), img) == 0
fns = {}
def fn(name):
    if name not in fns:
        f = ctypes.c_void_p(); r = cu.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()); assert r == 0, (name, r)
        fns[name] = f
    return fns[name]
def launch(name, g, b, x, O, R, I, rchunk, splits, scale, outv, outi):
    args = [ctypes.c_uint64(x), ctypes.c_int64(O), ctypes.c_int64(R), ctypes.c_int64(I), ctypes.c_int64(rchunk),
            ctypes.c_int64(splits), ctypes.c_float(scale), ctypes.c_uint64(outv), ctypes.c_uint64(outi)]
    params = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.byref(a), ctypes.c_void_p) for a in args])
    r = cu.cuLaunchKernel(fn(name), g[0], g[1], 1, b[0], b[1], 1, 0, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), params, None)
    assert r == 0, (name, r)
scratch = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
def timeit(f, trials, warm=2):
    for _ in range(warm): f()
    torch.cuda.synchronize(); ts = []
    for _ in range(trials):
        torch.cuda.synchronize(); scratch.zero_()
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); f(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); return ts[len(ts) // 2], ts[0]
lib = None
if len(sys.argv) > 1:
    sys.path.insert(0, os.path.join(sys.argv[1], "bench", "kernelbench")); import run as KR
    lib = KR.Amdkit(os.path.join(sys.argv[1], "build", "libamdkit_kb.so"))
RED = {"sum": 0, "argmax": 4}
CUS = torch.cuda.get_device_properties(0).multi_processor_count
def shape_run(B, R, I, trials, sumv, argv):
    x = torch.rand(B, R, I, device="cuda"); ncols = B * I
    ysum = torch.empty(B, I, device="cuda"); yi = torch.empty(B, I, device="cuda", dtype=torch.int64)
    yv = torch.empty(B, I, device="cuda")
    rs = torch.sum(x, dim=1); ra = torch.argmax(x, dim=1); rn = torch.argmin(x, dim=1)
    tag = "%dx%dx%d" % (B, R, I)
    rows = []
    def rec(name, f, chk):
        ysum.zero_(); yi.zero_()
        t = timeit(f, trials); ok = chk()
        print("%-14s %-40s med %.4f min %.4f %s" % (tag, name, t[0], t[1], "" if ok else "WRONG"), flush=True)
    rec("torch.sum", lambda: torch.sum(x, dim=1), lambda: True)
    rec("torch.argmax", lambda: torch.argmax(x, dim=1), lambda: True)
    if lib:
        for op, y, ref in (("sum", ysum, rs), ("argmax", yi, ra)):
            rec("lib " + op, lambda: lib.ak_reduce_axes(RED[op], 0, ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(y.data_ptr()), 3, KR.sizes(B, R, I), 2, None),
                (lambda y=y, ref=ref: bool(torch.allclose(y, ref, atol=1e-4, rtol=1e-4)) if y.dtype == torch.float32 else bool(torch.equal(y, ref))))
    for (kn, bw, P, cap) in sumv:
        tiles = (ncols + bw - 1) // bw; g = min(tiles, CUS * max(1, 1024 // (bw * P))) if cap else tiles
        rec("%s bw%d P%d g%d" % (kn, bw, P, g), lambda: launch(kn, (g, 1), (bw, P), x.data_ptr(), B, R, I, R, 1, 1.0, ysum.data_ptr(), 0),
            lambda: bool(torch.allclose(ysum, rs, atol=1e-4, rtol=1e-4)))
    for (kn, bw, P, cap) in argv:
        tiles = (ncols + bw - 1) // bw
        if P == 0: P = 1; tiles = (ncols + bw - 1) // bw
        g = min(tiles, CUS * max(1, 1024 // (bw * P))) if cap else tiles
        ref = rn if "argmin" in kn else ra
        rec("%s bw%d P%d g%d" % (kn, bw, P, g), lambda: launch(kn, (g, 1), (bw, P), x.data_ptr(), B, R, I, R, 1, 1.0, yv.data_ptr(), yi.data_ptr()),
            lambda ref=ref: bool(torch.equal(yi, ref)))
    del x; torch.cuda.empty_cache()
big_sum = [("ak_axred_sum_f32", 256, 4, 1), ("ak_axred_sum_f32", 256, 4, 0), ("ak_axred_sum_f32", 128, 8, 1), ("ak_axred_sum_f32", 128, 8, 0),
           ("ak_axred_sum_f32", 512, 2, 1), ("ak_axred_sum_f32", 512, 2, 0), ("ak_axred_sum_f32", 64, 16, 0), ("ak_axred_sum_f32", 256, 2, 0),
           ("x_sum_u8", 256, 4, 0), ("x_sum_u16", 256, 4, 0), ("x_sum_u16", 256, 4, 1), ("x_sum_u16a4", 256, 4, 0), ("x_sum_u16", 128, 8, 0),
           ("ak_axred_sum_f32", 256, 4, 1), ("ak_axred_sum_f32", 256, 4, 0)]
big_arg = [("ak_axred_argmax_f32", 256, 0, 0), ("x_argmaxseq_u8", 256, 0, 0), ("x_argmax_u8", 256, 4, 0), ("x_argmax_u8", 256, 4, 1),
           ("x_argmax_u8", 128, 8, 0), ("x_argmax_u16", 256, 4, 0), ("x_argmax_u16", 256, 2, 0), ("x_argmax_u8", 256, 2, 0), ("x_argmin_u8", 256, 4, 0),
           ("ak_axred_argmax_f32", 256, 0, 0), ("x_argmax_u8", 256, 4, 0)]
if os.environ.get("XNCU"):
    x = torch.rand(128, 4096, 4095, device="cuda"); ys = torch.empty(128, 4095, device="cuda"); yi = torch.empty(128, 4095, device="cuda", dtype=torch.int64)
    launch("ak_axred_sum_f32", (132, 1), (256, 4), x.data_ptr(), 128, 4096, 4095, 4096, 1, 1.0, ys.data_ptr(), 0)
    launch("ak_axred_sum_f32", (2048, 1), (256, 4), x.data_ptr(), 128, 4096, 4095, 4096, 1, 1.0, ys.data_ptr(), 0)
    launch("ak_axred_argmax_f32", (2048, 1), (256, 1), x.data_ptr(), 128, 4096, 4095, 4096, 1, 1.0, 0, yi.data_ptr())
    launch("x_argmax_u8", (2048, 1), (256, 4), x.data_ptr(), 128, 4096, 4095, 4096, 1, 1.0, 0, yi.data_ptr())
    torch.cuda.synchronize(); sys.exit(0)
shape_run(128, 4096, 4095, 12, [("ak_axred_sum_f32", 256, 4, 0), ("x_sum_u16", 256, 4, 0)], big_arg)
mid_sum = [("ak_axred_sum_f32", 256, 4, 1), ("ak_axred_sum_f32", 256, 4, 0), ("ak_axred_sum_f32", 128, 8, 0), ("x_sum_u16", 256, 4, 0)]
mid_arg = [("ak_axred_argmax_f32", 256, 0, 0), ("x_argmaxseq_u8", 256, 0, 0), ("x_argmax_u8", 256, 4, 0), ("x_argmax_u8", 256, 2, 0), ("x_argmax_u8", 128, 8, 0), ("x_argmax_u16", 256, 4, 0)]
shape_run(16, 4096, 4095, 20, mid_sum, mid_arg)
shape_run(1024, 256, 1024, 20, mid_sum[:2], mid_arg)
shape_run(4096, 64, 64, 30, [("ak_axred_sum_f32", 256, 2, 1), ("ak_axred_sum_f32", 256, 2, 0)],
          [("ak_axred_argmax_f32", 256, 0, 0), ("x_argmaxseq_u8", 256, 0, 0), ("x_argmax_u8", 256, 2, 0), ("x_argmax_u8", 256, 1, 0), ("x_argmax_u8", 128, 2, 0)])
