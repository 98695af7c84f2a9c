#!/usr/bin/env python3
"""amdkit from Python through ctypes: libamdkit.so (`make install`, or `make build/libamdkit.so`) runs a softmax
on whatever backend the machine has (AMDKIT_BACKEND=cpu: the C reference) and checks it against Python's math.

    python3 examples/ctypes_softmax.py [path/to/libamdkit.so]

Only the calls used here are declared; every ak_ function returns an ak_result (0 = AK_OK) and
ak_last_error() says why one failed. Exit status 0 when the result matches."""
import ctypes
import math
import os
import random
import sys

here = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build", "libamdkit.so")
ak = ctypes.CDLL(path)

c_void_pp = ctypes.POINTER(ctypes.c_void_p)
ak.ak_last_error.restype = ctypes.c_char_p
ak.ak_backend_name.restype = ctypes.c_char_p
ak.ak_backend_name.argtypes = [ctypes.c_int]
ak.ak_context_create.argtypes = [ctypes.c_void_p, c_void_pp]
ak.ak_context_destroy.argtypes = [ctypes.c_void_p]
ak.ak_malloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, c_void_pp]
ak.ak_free.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
ak.ak_memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
ak.ak_softmax.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                          ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
ak.ak_context_device.restype = ctypes.c_void_p
ak.ak_context_device.argtypes = [ctypes.c_void_p]
AK_F32, AK_H2D, AK_D2H = 0, 1, 2


def check(r, what):
    if r != 0:
        sys.exit("%s: %s" % (what, ak.ak_last_error().decode()))


ctx = ctypes.c_void_p()
check(ak.ak_context_create(None, ctypes.byref(ctx)), "ak_context_create")   # NULL config: defaults + environment
backend = ctypes.cast(ak.ak_context_device(ctx), ctypes.POINTER(ctypes.c_int))[0]   # ak_device_info.backend

rows, cols = 3, 1000
rng = random.Random(7)
x = (ctypes.c_float * (rows * cols))(*[rng.uniform(-4, 4) for _ in range(rows * cols)])
y = (ctypes.c_float * (rows * cols))()
nbytes = ctypes.sizeof(x)
dx, dy = ctypes.c_void_p(), ctypes.c_void_p()
check(ak.ak_malloc(ctx, nbytes, None, ctypes.byref(dx)), "ak_malloc")
check(ak.ak_malloc(ctx, nbytes, None, ctypes.byref(dy)), "ak_malloc")
check(ak.ak_memcpy(ctx, dx, x, nbytes, AK_H2D), "ak_memcpy")
check(ak.ak_softmax(ctx, AK_F32, dx, dy, rows, cols, 0, None), "ak_softmax")
check(ak.ak_memcpy(ctx, y, dy, nbytes, AK_D2H), "ak_memcpy")      # waits for the kernel

worst = 0.0
for r in range(rows):
    row = x[r * cols:(r + 1) * cols]
    m = max(row)
    s = sum(math.exp(v - m) for v in row)
    for c in range(cols):
        worst = max(worst, abs(y[r * cols + c] - math.exp(row[c] - m) / s))
ak.ak_free(ctx, dx)
ak.ak_free(ctx, dy)
ak.ak_context_destroy(ctx)
ok = worst < 1e-6
print("softmax %dx%d on the %s backend through ctypes: max abs error %.2e vs Python's math: %s"
      % (rows, cols, ak.ak_backend_name(backend).decode(), worst, "ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
