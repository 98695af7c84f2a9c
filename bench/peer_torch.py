#!/usr/bin/env python3
"""peer_torch - times the operations of bench/bench_ops.c with PyTorch (the peer).

    python3 bench/peer_torch.py [--quick] [--match AMDKIT.json] [--filter SUBSTR[,SUBSTR...]]
                                [--dtype LABEL[,LABEL...]]
                                [--impl eager|compile|both] [--trials N | --min-trials N --max-trials N]
                                [--ci W] [--max-s S] [--warmup N]
                                [--seed N] [--budget-s S] [--no-hide-launch] [--dry] OUT.json

Same operations, dtypes and shapes as bench_ops.c, same protocol, same JSON:

- every entry gets fresh random inputs (torch.randn on the device, never zeros;
  integer class targets from torch.randint), then `--warmup` untimed calls
  (for torch.compile the first one compiles), then timed calls, each
  between a pair of CUDA events on the current stream, with the L2 flushed before
  each trial by writing a scratch buffer of twice the device's L2 (outside the
  timed region), and a spin kernel queued after the flush keeps the GPU busy
  while Python queues the call, so the host dispatch time (large for
  torch.compile's guards at small sizes) is not timed (--no-hide-launch: time
  it too, as plain KernelBench does);
- the same stopping rule as bench_ops.c: trials repeat until the 95% interval
  of the median (order statistics at ranks n/2 -+ 1.96 sqrt(n)/2) is narrower
  than --ci of the median (default 0.01), at least --min-trials (100) and at
  most --max-trials (2000) trials or --max-s seconds (2) per entry ("stop":
  "ci" | "max_trials" | "time_cap"); --trials N: exactly N; --quick: 10;
- median, mean, std (population), min and max in ms, every trial ("times", for
  bench/report.py's speedup intervals), "ci95"; GB/s = bytes / median;
  roofline_fraction = GB/s / the device-to-device copy bandwidth measured in the
  same run (a 1 GiB tensor copy_, which PyTorch runs as a D2D memcpy, counted as
  read + write, the same as bench_ops.c);
- bytes moved, as in bench_ops.c: every input read once plus every output
  written once (an in/out tensor such as y of axpy counts twice); casts count
  the source and the destination element sizes; reductions read x and write one
  value per row (4 bytes, 8 for argmax/argmin); layernorm and rmsnorm also count
  their weight (and bias) once; cross-entropy counts the logits, the int64
  targets and the loss (rows floats for reduction none, one for mean/sum).
  With --match, the "bytes" of each bench_ops.c entry are taken as they are,
  so both sides divide the same number.
- each op runs twice: "torch_eager", and "torch_compile" (torch.compile, mode
  default, dynamic=False, dynamo reset before each entry so no entry recompiles
  another's graph). An impl that fails (compile error, out of memory) is written
  with null times and an "error" string; the run goes on.

Ops (the PyTorch call used as the peer; math in fp32 for f16/bf16 like amdkit):
  fill: y.fill_(1.5)             copy: y.copy_(x)            cast: x.to(dst)
  quant_row / quant_block / quant_tensor: s = amax(|x|) / 448 over each row / 1 x 128 block / the tensor (1 where
    the amax is 0), q = (x / s).clamp(-448, 448).to(float8_e4m3fn), returns (q, s); quant_tensor_delayed: the same
    codes with s = 1/64, returns (q, amax(|x|))
  axpy: y.add_(x, alpha=1e-3)    scale: torch.mul(x, 0.75)   add/mul: torch.add/mul(x, y)
  relu, sigmoid, tanh: torch.*   leaky_relu: F.leaky_relu(x, 0.01)   silu: F.silu
  gelu: F.gelu (erf)             gelu_tanh: F.gelu(x, approximate='tanh')
  elu: F.elu(x, 1.0)  selu: torch.selu  hardsigmoid, softplus, softsign, hardswish, mish: F.*
  hardtanh: F.hardtanh(x, -1, 1)
  transpose: x.t().contiguous()  (x rows x cols)
  sum/mean: torch.sum/mean(x, [dim=-1,] dtype=float32)  (amdkit writes fp32 for any input)
  max/min: torch.amax/amin(x[, dim=-1])   argmax/argmin: torch.argmax/argmin(x[, dim=-1])
    (rows == 1, or a name ending in _all/_whole: over the whole tensor; else the last dim)
  softmax / log_softmax: F.softmax / F.log_softmax(x, dim=-1)
  layernorm: F.layer_norm(x, (cols,), weight, bias, eps=1e-5)
  rmsnorm: F.rms_norm(x, (cols,), weight, eps=1e-5) (a manual fp32 version if absent)
  cross_entropy: F.cross_entropy(logits, targets, reduction=none|mean|sum, ignore_index=-100)
  sum_axis0 / max_axis0: torch.sum(x, 0, dtype=float32) / torch.amax(x, 0)
  normalize_l2 / normalize_l1: F.normalize(x, p, dim=1, eps=1e-12)
  rms_channels: v = x.view(R, 64, C / 64); v / sqrt(mean(v * v, dim=1, keepdim) + 1e-5)
  bcast_row_mul: x * w (w of shape [1, cols])   triu: torch.triu(x)
  max_pool2d / avg_pool2d: F.*_pool2d(x.view(R, 1, C / 512, 512), 2)
  batch_norm: F.batch_norm(x.view(R / 64, 64, C), training=True)   group_norm / instance_norm: F.group_norm(., 8 / 64)
  cumprod: torch.cumprod   cumsum_reverse: cumsum of the flipped rows, flipped back
  mse_loss, smooth_l1_loss, kl_div_loss (batchmean), triplet_margin_loss: F.*; hinge_loss: mean(clamp(1 - x t, 0))
  rand_uniform / rand_normal: torch.rand / torch.randn(rows, cols, generator=<a cuda generator>)
  dropout: F.dropout(x, p=0.1, training=True)   cumsum: torch.cumsum(x, dim=-1)
  topk_k<K>: torch.topk(x, K, dim=-1, largest=True, sorted=True)  (values + int64 indices)
    (reduction from the name: *_mean, *_sum, else none; random targets, every 17th
    row ignored like bench_ops.c's setup_xent)
  add_layernorm / add_rmsnorm: h = x + r; y = F.layer_norm(h, ...) / F.rms_norm(h, ...);
    returns (h, y) ([rows, cols] = tokens x hidden)
  rope_neox / rope_interleaved: Hugging Face's apply_rotary_pos_emb written in torch ops
    (q * cos + rotate_half(q) * sin; interleaved: the even / odd lanes), x of
    [tokens, heads, 128] ([rows, cols] = tokens x heads * 128), cos / sin of the
    positions 0..tokens-1 (theta 500000) computed before timing in the dtype
    (HF computes them once per forward and shares them across layers, so only the
    per-layer application is timed; amdkit's op computes them in every call)
  embedding: F.embedding(idx, table), table rows x cols, idx a random permutation of
    0..rows-1 (int64; every table row read once, as bench_ops.c)
  permute: x.view(B, S, H, 128).permute(0, 2, 1, 3).contiguous() (S 1024, 16 when
    rows < 1024; B = rows / S; H = cols / 128), with .to(dst) for a "src->dst" dtype

Entries: the built-in list mirrors bench_ops.c (names, dtype labels "f32",
"f16", "bf16", "f32->f16", shapes [rows, cols], --quick shapes). With
--match AMDKIT.json (a bench_ops.c result file) the entries are exactly those of
that file, in its order and with its shapes and bytes; entries whose op or dtype
this script does not know are listed as skipped, never an error.

JSON: {"tool", "hardware", "device", "backend": "torch", "torch_version",
"cuda_version", "quick", "seed", "copy_gbps", "results": [ {"name", "dtype",
"shape", "impl": "torch_eager"|"torch_compile", "mean", "std", "min", "max",
"median", "num_trials", "ci95", "stop", "hardware", "device", "bytes", "gbps",
"roofline_fraction", "times"[, "error"]}, ... ]}, times in ms. The file is rewritten
after every entry, so an interrupted run leaves what it measured.

--dry prints the plan (and what --match would skip) without importing torch.
--budget-s stops starting new entries after S seconds (e.g. under a time limit).
"""
import argparse
import json
import math
import os
import random
import statistics
import sys
import time

EW_N = 256 << 20      # element-wise: 256M elements (bench_ops.c EW_N)
EW_Q = 1 << 20        # --quick (bench_ops.c EW_Q)
ROWS_FULL = (65536, 4096)   # row ops
ROWS_QUICK = (64, 1000)
WIDE_FULL = (4096, 393216)  # the KernelBench-wide softmax
WIDE_QUICK = (4, 40000)

ESIZE = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i64": 8, "fp8_e4m3": 1}   # i32 / i64: permute casts only; fp8: quant_*
FLOATS = ("f32", "f16", "bf16")

# parameters of the bench_ops.c run functions
FILL_VALUE = 1.5
AXPY_ALPHA = 1e-3
SCALE_ALPHA = 0.75
LEAKY_SLOPE = 0.01
NORM_EPS = 1e-5
IGNORE_INDEX = -100
RMS_ADD_EPS = 1e-6        # bench_ops.c's add_rmsnorm
ROPE_HEAD_DIM = 128
ROPE_THETA = 500000.0
PERM_SEQ, PERM_QSEQ, PERM_HEAD_DIM = 1024, 16, 128
# fp8 scaled casts (bench_ops.c's ak_quantize rows, e4m3): per row / 1 x 128 block / tensor with the scales computed,
# and per tensor with a given scale (delayed scaling) and the amax computed
QUANT = ("quant_row", "quant_block", "quant_tensor", "quant_tensor_delayed")
# and the way back (ak_dequantize): e4m3 codes (uniform over the non-NaN codes) times a scale per row ((1 + r % 7)
# / 64) or the tensor's (1 / 64), rounded to f32 / f16 / bf16
DEQUANT = ("dequant_row", "dequant_tensor")
FP8_MAX = 448.0
QUANT_DELAYED_SCALE = 1.0 / 64.0
LLM = ("add_layernorm", "add_rmsnorm", "rope_neox", "rope_interleaved", "embedding", "permute")
# along an axis (bench_ops.c's names): reductions over the rows (dim 0), vector norms of the rows, RMS over 64
# channels of [rows][64][cols / 64], a row operand broadcast over the rows, triu
AXIS = ("sum_axis0", "max_axis0", "normalize_l2", "normalize_l1", "rms_channels", "bcast_row_mul", "triu")
# pooling (2x2 / 2 of each row as a (cols / 512) x 512 plane), batch / group / instance norm (rows = batch x 64
# channels), scans, losses (bench_ops.c's names)
MORE = ("max_pool2d", "avg_pool2d", "batch_norm", "group_norm", "instance_norm", "cumprod", "cumsum_reverse", "mse_loss",
        "smooth_l1_loss", "kl_div_loss", "hinge_loss", "triplet_margin_loss")

UNARY = ("relu", "leaky_relu", "sigmoid", "tanh", "silu", "gelu", "gelu_tanh", "elu", "selu", "hardsigmoid",
         "hardtanh", "softplus", "softsign", "hardswish", "mish")
REDUCE = ("sum", "mean", "max", "min", "argmax", "argmin")
# io = arrays of rows*cols elements moved (input reads + output writes), as bench_ops.c
IO = {"fill": 1, "copy": 2, "axpy": 3, "scale": 2, "add": 3, "mul": 3, "transpose": 2,
      "softmax": 2, "log_softmax": 2}
for _u in UNARY:
    IO[_u] = 2


class Plan(object):
    """One entry: what to run and how many bytes it moves."""

    def __init__(self, name, dtype, kind, rows, cols, params=None, nbytes=None):
        self.name = name          # as in bench_ops.c (join key)
        self.dtype = dtype        # label as in bench_ops.c ("f16", "f32->bf16")
        self.kind = kind          # op this script runs
        self.rows, self.cols = int(rows), int(cols)
        self.params = dict(params or {})
        src, _, dst = dtype.partition("->")
        self.src, self.dst = src, (dst or src)
        if kind in REDUCE and "whole" not in self.params:
            self.params["whole"] = self.rows == 1   # rows = 1: over the whole tensor
        self.bytes = float(nbytes) if nbytes is not None else default_bytes(self)

    @property
    def n(self):
        return self.rows * self.cols

    @property
    def shape(self):
        return [self.rows, self.cols]


def default_bytes(p):
    """Bytes moved, the bench_ops.c way (see the module doc)."""
    n, es = p.n, ESIZE[p.src]
    k = p.kind
    if k == "cast":
        return float(n * (ESIZE[p.src] + ESIZE[p.dst]))
    if k in QUANT:
        groups = p.rows if k == "quant_row" else p.rows * ((p.cols + 127) // 128) if k == "quant_block" else 1
        return float(n * (es + 1) + 4 * groups + (4 if k == "quant_tensor_delayed" else 0))
    if k in DEQUANT:
        return float(n * (1 + ESIZE[p.dst]) + 4 * (p.rows if k == "dequant_row" else 1))
    if k in IO:
        return float(IO[k] * n * es)
    if k in REDUCE:
        outs = 1 if p.params.get("whole") else p.rows
        return float(n * es + outs * (8 if k.startswith("arg") else 4))
    if k == "layernorm":
        return float(2 * n * es + 2 * p.cols * es)
    if k == "rmsnorm":
        return float(2 * n * es + p.cols * es)
    if k in ("rand_uniform", "rand_normal"):
        return float(n * es)
    if k in ("dropout", "cumsum"):
        return float(2 * n * es)
    if k == "topk":
        return float(n * es + p.rows * p.params["k"] * (es + 8))
    if k == "cross_entropy":
        out = p.rows * 4 if p.params.get("reduction", "none") == "none" else 4
        return float(n * es + p.rows * 8 + out)
    if k == "add_layernorm":
        return float(4 * n * es + 2 * p.cols * es)
    if k == "add_rmsnorm":
        return float(4 * n * es + p.cols * es)
    if k in ("rope_neox", "rope_interleaved", "embedding"):
        return float(2 * n * es + p.rows * 8)
    if k == "permute":
        return float(n * (ESIZE[p.src] + ESIZE[p.dst]))
    if k in ("sum_axis0", "max_axis0"):
        return float(n * es + p.cols * 4)
    if k in ("normalize_l2", "normalize_l1", "rms_channels", "triu"):
        return float(2 * n * es)
    if k == "bcast_row_mul":
        return float((2 * n + p.cols) * es)
    if k in ("max_pool2d", "avg_pool2d"):
        return float((n + n // 4) * es)
    if k in ("batch_norm", "group_norm", "instance_norm", "cumprod", "cumsum_reverse", "mse_loss", "smooth_l1_loss",
             "kl_div_loss", "hinge_loss"):
        return float(2 * n * es)
    if k == "triplet_margin_loss":
        return float(3 * n * es)
    raise ValueError("no byte count for " + k)


def builtin_plans(quick):
    """The entries of bench/bench_ops.c, same names, dtype labels, shapes and bytes."""
    ew = (1, EW_Q) if quick else (1, EW_N)
    rows = ROWS_QUICK if quick else ROWS_FULL
    wide = WIDE_QUICK if quick else WIDE_FULL
    tr = (1000, 1003) if quick else (16384, 16384)
    plans = []

    def three(name, shape, **params):
        for t in FLOATS:
            plans.append(Plan(name, t, name, shape[0], shape[1], params))

    three("fill", ew)
    three("copy", ew)
    for a, b in (("f32", "f16"), ("f16", "f32"), ("f32", "bf16"), ("bf16", "f32"),
                 ("f16", "bf16"), ("bf16", "f16")):
        plans.append(Plan("cast", a + "->" + b, "cast", ew[0], ew[1]))
    for name in QUANT:
        for t in FLOATS:
            plans.append(Plan(name, t + "->fp8_e4m3", name, *((64, 1000) if quick else (8192, 8192))))
    for name in ("axpy", "scale", "add", "mul") + UNARY:
        three(name, ew)
    three("transpose", tr)
    # reductions (whole tensor, then along the last dim), softmax, norms, cross-entropy
    for name in REDUCE:
        if name == "argmin":
            continue
        three(name, ew)      # whole tensor (rows = 1)
        three(name, rows)    # along the last dimension
    for name in ("softmax", "log_softmax"):
        three(name, rows)
    three("softmax", wide)
    three("layernorm", rows)
    three("rmsnorm", rows)
    # along an axis (bench_ops.c's shapes)
    three("sum_axis0", (1000, 1003) if quick else (16384, 16384))
    three("max_axis0", (1000, 1003) if quick else (16384, 16384))
    three("sum_axis0", (4000, 7) if quick else (262144, 64))
    three("normalize_l2", rows)
    three("normalize_l1", (4, 70000) if quick else (4096, 65536))
    three("rms_channels", (4, 6400) if quick else (256, 1048576))
    three("bcast_row_mul", (1000, 1003) if quick else (16384, 16384))
    three("triu", (300, 301) if quick else (8192, 8192))
    three("max_pool2d", (4, 65536) if quick else (8192, 65536))
    three("avg_pool2d", (4, 65536) if quick else (8192, 65536))
    for name in ("batch_norm", "group_norm", "instance_norm"):
        three(name, (64, 1000) if quick else (4096, 16384))
    three("cumprod", (64, 1000) if quick else (4096, 4096))
    three("cumsum_reverse", (64, 1000) if quick else (4096, 4096))
    for name in ("mse_loss", "smooth_l1_loss", "kl_div_loss", "hinge_loss"):
        three(name, (64, 1000) if quick else (16384, 16384))
    three("triplet_margin_loss", (64, 1000) if quick else (32768, 8192))
    for red in ("none", "mean"):
        for t in FLOATS:
            plans.append(Plan("cross_entropy" if red == "none" else "cross_entropy_mean", t,
                              "cross_entropy", rows[0], rows[1], {"reduction": red}))
    # LLM building blocks (bench_ops.c shapes)
    q = quick
    three("add_layernorm", rows if q else (4096, 4096))
    three("add_rmsnorm", rows if q else (4096, 4096))
    three("rope_neox", (64, 1024) if q else (4096, 4096))
    three("rope_interleaved", (64, 1024) if q else (4096, 4096))
    three("embedding", (64, 1000) if q else (8192, 4096))
    three("permute", (64, 1024) if q else (8192, 4096))
    for a, b in (("f32", "bf16"), ("bf16", "f32"), ("i32", "i64"), ("i64", "i32")):
        plans.append(Plan("permute", a + "->" + b, "permute", *((64, 1024) if q else (8192, 4096))))
    # random numbers, dropout, cumsum, top-k (bench_ops.c's shapes)
    sq = (64, 1000) if quick else (4096, 4096)
    for name in ("rand_uniform", "rand_normal", "dropout", "cumsum"):
        three(name, sq)
    for t in ("f32", "bf16"):
        plans.append(Plan("cumsum", t, "cumsum", *((4, 40000) if quick else (64, 1048576))))
    vocab = (2, 8192) if quick else (256, 128256)
    for k, shape in ((8, sq), (50, vocab), (1024, vocab)):
        for t in FLOATS:
            plans.append(Plan("topk_k%d" % k, t, "topk", shape[0], shape[1], {"k": k}))
    return plans


_ALIASES = {
    "layer_norm": "layernorm", "rms_norm": "rmsnorm", "logsoftmax": "log_softmax",
    "xent": "cross_entropy", "crossentropy": "cross_entropy", "cross_entropy_loss": "cross_entropy",
    "gelu_erf": "gelu", "geluerf": "gelu", "gelutanh": "gelu_tanh", "leakyrelu": "leaky_relu",
    "swish": "silu", "binary_add": "add", "binary_mul": "mul", "t": "transpose",
}


def resolve(name, dtype, shape, nbytes=None):
    """Map a bench_ops.c entry (name, dtype label, [rows, cols]) to a Plan, or
    (None, reason) when this script does not know how to run it."""
    if not isinstance(shape, (list, tuple)) or len(shape) != 2:
        return None, "shape is not [rows, cols]"
    try:
        rows, cols = int(shape[0]), int(shape[1])
    except (TypeError, ValueError):
        return None, "shape is not integers"
    if rows < 1 or cols < 1:
        return None, "empty shape"
    src, arrow, dst = str(dtype).partition("->")
    if src not in ESIZE or (arrow and dst not in ESIZE):
        return None, "dtype %s not supported" % dtype
    base = str(name).strip().lower().replace("-", "_")
    params = {}
    whole = None
    if base.startswith("reduce_"):
        base = base[len("reduce_"):]
    for suf, w in (("_all", True), ("_whole", True), ("_full", True), ("_tensor", True),
                   ("_rows", False), ("_row", False), ("_last", False), ("_lastdim", False),
                   ("_last_dim", False), ("_dim", False)):
        if base.endswith(suf) and base[:-len(suf)] in REDUCE:
            base, whole = base[:-len(suf)], w
            break
    for pre in ("cross_entropy", "xent", "crossentropy"):
        if base.startswith(pre):
            rest = base[len(pre):].strip("_")
            if rest in ("", "none", "mean", "sum"):
                params["reduction"] = rest or "none"
                base = "cross_entropy"
            break
    base = _ALIASES.get(base, base)
    if base in ("softmax_wide", "softmax_online", "softmax_large"):
        base = "softmax"
    if base in QUANT:
        if src not in FLOATS or dst != "fp8_e4m3":
            return None, "dtype %s not supported for %s" % (dtype, base)
    elif base in DEQUANT:
        if src != "fp8_e4m3" or dst not in FLOATS:
            return None, "dtype %s not supported for %s" % (dtype, base)
    elif (src not in FLOATS or (arrow and dst not in FLOATS)) and base != "permute":
        return None, "dtype %s not supported for %s" % (dtype, base)
    if arrow and base not in ("cast", "permute") + QUANT + DEQUANT:
        if base == "copy" or base == "convert":
            base = "cast"
        else:
            return None, "%s with two dtypes" % name
    if base == "cast" and not arrow:
        return None, "cast without a src->dst dtype"
    if base.startswith("topk_k") and base[len("topk_k"):].isdigit():
        params["k"] = int(base[len("topk_k"):])
        base = "topk"
    known = set(IO) | set(REDUCE) | set(QUANT) | set(DEQUANT) | {"cast", "layernorm", "rmsnorm", "cross_entropy", "rand_uniform",
                                     "rand_normal", "dropout", "cumsum", "topk"} | set(LLM) | set(AXIS) | set(MORE)
    if base not in known:
        return None, "unknown op"
    if base in REDUCE and whole is not None:
        params["whole"] = whole
    try:
        return Plan(name, str(dtype), base, rows, cols, params, nbytes), None
    except (ValueError, KeyError) as e:
        return None, str(e)


def plans_from_match(path):
    with open(path) as f:
        doc = json.load(f)
    plans, skipped, seen = [], [], set()
    for r in doc.get("results", []):
        key = (r.get("name"), r.get("dtype"), tuple(r.get("shape") or ()))
        if key in seen:
            continue
        seen.add(key)
        p, why = resolve(r.get("name"), r.get("dtype"), r.get("shape"), r.get("bytes"))
        if p is None:
            skipped.append((key, why))
        else:
            plans.append(p)
    return plans, skipped, doc


# ---- torch side (imported only when timing) ----------------------------------

def build(p, torch, F, dev):
    """Fresh random inputs and the function to time: returns (inputs, fn)."""
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "i32": torch.int32,
           "i64": torch.int64}
    dt, R, C, k = tdt.get(p.src, torch.uint8), p.rows, p.cols, p.kind

    def rnd(*shape):
        if not dt.is_floating_point:
            return torch.randint(-(1 << 30), 1 << 30, shape, device=dev, dtype=dt)
        return torch.randn(*shape, device=dev, dtype=dt)

    if k == "fill":
        return (rnd(R, C),), lambda y: y.fill_(FILL_VALUE)
    if k == "copy":
        return (rnd(R, C), rnd(R, C)), lambda x, y: y.copy_(x)
    if k == "cast":
        dst = tdt[p.dst]
        return (rnd(R, C),), lambda x: x.to(dst)
    if k in DEQUANT:
        c = torch.randint(0, 256, (R, C), device=dev, dtype=torch.uint8)
        q = torch.where((c & 0x7F) == 0x7F, c - 1, c).view(torch.float8_e4m3fn)
        if k == "dequant_row":
            s = ((1 + torch.arange(R, device=dev) % 7).float() / 64.0).view(R, 1)
        else:
            s = torch.tensor(1.0 / 64.0, device=dev)
        dst = tdt[p.dst]
        return (q, s), lambda q, s: (q.float() * s).to(dst)
    if k in QUANT:
        f8 = torch.float8_e4m3fn

        def codes(xf, s):   # x / s saturated to the format's range, rounded to e4m3
            return (xf / s).clamp(-FP8_MAX, FP8_MAX).to(f8)

        def scale_of(amax):   # amax / 448, 1 where the amax is 0 (as ak_quantize)
            return torch.where(amax > 0, amax / FP8_MAX, torch.ones_like(amax))

        if k == "quant_row":
            def fn(x):
                xf = x.float()
                s = scale_of(xf.abs().amax(dim=-1, keepdim=True))
                return codes(xf, s), s
        elif k == "quant_block":
            if C % 128:
                raise ValueError("quant_block: cols %d not a multiple of 128" % C)

            def fn(x):
                xf = x.float().view(R, C // 128, 128)
                s = scale_of(xf.abs().amax(dim=-1, keepdim=True))
                return codes(xf, s).view(R, C), s
        elif k == "quant_tensor":
            def fn(x):
                xf = x.float()
                s = scale_of(xf.abs().amax())
                return codes(xf, s), s
        else:
            def fn(x):
                return codes(x.float(), QUANT_DELAYED_SCALE), x.abs().amax().float()
        return (rnd(R, C),), fn
    if k == "axpy":
        return (rnd(R, C), rnd(R, C)), lambda x, y: y.add_(x, alpha=AXPY_ALPHA)
    if k == "scale":
        return (rnd(R, C),), lambda x: torch.mul(x, SCALE_ALPHA)
    if k == "add":
        return (rnd(R, C), rnd(R, C)), lambda x, y: torch.add(x, y)
    if k == "mul":
        return (rnd(R, C), rnd(R, C)), lambda x, y: torch.mul(x, y)
    unary = {
        "relu": lambda x: torch.relu(x),
        "leaky_relu": lambda x: F.leaky_relu(x, LEAKY_SLOPE),
        "sigmoid": lambda x: torch.sigmoid(x),
        "tanh": lambda x: torch.tanh(x),
        "silu": lambda x: F.silu(x),
        "gelu": lambda x: F.gelu(x),
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "elu": lambda x: F.elu(x, alpha=1.0),
        "selu": lambda x: torch.selu(x),
        "hardsigmoid": lambda x: F.hardsigmoid(x),
        "hardtanh": lambda x: F.hardtanh(x, -1.0, 1.0),
        "softplus": lambda x: F.softplus(x),
        "softsign": lambda x: F.softsign(x),
        "hardswish": lambda x: F.hardswish(x),
        "mish": lambda x: F.mish(x),
        "transpose": lambda x: x.t().contiguous(),
        "softmax": lambda x: F.softmax(x, dim=-1),
        "log_softmax": lambda x: F.log_softmax(x, dim=-1),
    }
    if k in unary:
        return (rnd(R, C),), unary[k]
    if k == "sum_axis0":
        return (rnd(R, C),), lambda x: torch.sum(x, dim=0, dtype=torch.float32)
    if k == "max_axis0":
        return (rnd(R, C),), lambda x: torch.amax(x, dim=0).float()
    if k == "normalize_l2":
        return (rnd(R, C),), lambda x: F.normalize(x, p=2.0, dim=1, eps=1e-12)
    if k == "normalize_l1":
        return (rnd(R, C),), lambda x: F.normalize(x, p=1.0, dim=1, eps=1e-12)
    if k == "rms_channels":
        def rms(x):
            v = x.view(R, 64, C // 64)
            return v / torch.sqrt(torch.mean(v * v, dim=1, keepdim=True) + 1e-5)
        return (rnd(R, C),), rms
    if k == "bcast_row_mul":
        return (rnd(R, C), rnd(1, C)), lambda x, w: x * w
    if k == "triu":
        return (rnd(R, C),), lambda x: torch.triu(x)
    if k in ("max_pool2d", "avg_pool2d"):
        pool = F.max_pool2d if k == "max_pool2d" else F.avg_pool2d
        return (rnd(R, C),), lambda x: pool(x.view(R, 1, C // 512, 512), 2)
    if k == "batch_norm":
        rm = torch.zeros(64, device=dev, dtype=torch.float32)
        rv = torch.ones(64, device=dev, dtype=torch.float32)
        return (rnd(R, C),), lambda x: F.batch_norm(x.view(R // 64, 64, C), rm.to(x.dtype), rv.to(x.dtype), training=True,
                                                    momentum=0.1, eps=1e-5)
    if k in ("group_norm", "instance_norm"):
        g = 8 if k == "group_norm" else 64
        return (rnd(R, C),), lambda x: F.group_norm(x.view(R // 64, 64, C), g, eps=1e-5)
    if k == "cumprod":
        return (rnd(R, C),), lambda x: torch.cumprod(x, dim=-1)
    if k == "cumsum_reverse":
        return (rnd(R, C),), lambda x: torch.cumsum(x.flip(-1), dim=-1).flip(-1)
    if k == "mse_loss":
        return (rnd(R, C), rnd(R, C)), lambda x, t: F.mse_loss(x, t)
    if k == "smooth_l1_loss":
        return (rnd(R, C), rnd(R, C)), lambda x, t: F.smooth_l1_loss(x, t)
    if k == "kl_div_loss":
        return (rnd(R, C), rnd(R, C)), lambda x, t: F.kl_div(x, t, reduction="batchmean")
    if k == "hinge_loss":
        return (rnd(R, C), rnd(R, C)), lambda x, t: torch.mean(torch.clamp(1 - x * t, min=0))
    if k == "triplet_margin_loss":
        return (rnd(R, C), rnd(R, C), rnd(R, C)), lambda a, p_, n_: F.triplet_margin_loss(a, p_, n_)
    if k in REDUCE:
        f32 = torch.float32
        if p.params.get("whole"):
            fn = {"sum": lambda x: torch.sum(x, dtype=f32),
                  "mean": lambda x: torch.mean(x, dtype=f32),
                  "max": lambda x: torch.amax(x),
                  "min": lambda x: torch.amin(x),
                  "argmax": lambda x: torch.argmax(x),
                  "argmin": lambda x: torch.argmin(x)}[k]
        else:
            fn = {"sum": lambda x: torch.sum(x, dim=-1, dtype=f32),
                  "mean": lambda x: torch.mean(x, dim=-1, dtype=f32),
                  "max": lambda x: torch.amax(x, dim=-1),
                  "min": lambda x: torch.amin(x, dim=-1),
                  "argmax": lambda x: torch.argmax(x, dim=-1),
                  "argmin": lambda x: torch.argmin(x, dim=-1)}[k]
        return (rnd(R, C),), fn
    if k == "layernorm":
        eps = p.params.get("eps", NORM_EPS)
        return (rnd(R, C), rnd(C), rnd(C)), lambda x, w, b: F.layer_norm(x, (C,), w, b, eps)
    if k == "rmsnorm":
        eps = p.params.get("eps", NORM_EPS)
        if hasattr(F, "rms_norm"):
            fn = lambda x, w: F.rms_norm(x, (C,), w, eps)
        else:
            def fn(x, w):
                xf = x.float()
                return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w
        return (rnd(R, C), rnd(C)), fn
    if k in ("rand_uniform", "rand_normal"):
        g = torch.Generator(device=dev)
        g.manual_seed(1234)
        f = torch.rand if k == "rand_uniform" else torch.randn
        return (), lambda: f(R, C, device=dev, dtype=dt, generator=g)
    if k == "dropout":
        return (rnd(R, C),), lambda x: F.dropout(x, p=0.1, training=True)
    if k == "cumsum":
        return (rnd(R, C),), lambda x: torch.cumsum(x, dim=-1)
    if k == "topk":
        kk = p.params["k"]
        return (rnd(R, C),), lambda x: torch.topk(x, kk, dim=-1, largest=True, sorted=True)
    if k == "cross_entropy":
        red = p.params.get("reduction", "none")
        t = torch.randint(0, C, (R,), device=dev, dtype=torch.int64)
        t[16::17] = IGNORE_INDEX      # every 17th row ignored, as bench_ops.c's setup_xent
        return (rnd(R, C), t), lambda x, t: F.cross_entropy(x, t, reduction=red, ignore_index=IGNORE_INDEX)
    if k == "add_layernorm":
        def fn(x, r, w, b):
            h = x + r
            return h, F.layer_norm(h, (C,), w, b, NORM_EPS)
        return (rnd(R, C), rnd(R, C), rnd(C), rnd(C)), fn
    if k == "add_rmsnorm":
        def fn(x, r, w):
            h = x + r
            if hasattr(F, "rms_norm"):
                return h, F.rms_norm(h, (C,), w, RMS_ADD_EPS)
            hf = h.float()
            return h, (hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + RMS_ADD_EPS)).to(h.dtype) * w
        return (rnd(R, C), rnd(R, C), rnd(C)), fn
    if k in ("rope_neox", "rope_interleaved"):
        D = ROPE_HEAD_DIM
        H = C // D
        pos = torch.arange(R, device=dev, dtype=torch.int64)
        inv_freq = 1.0 / (ROPE_THETA ** (torch.arange(0, D, 2, device=dev, dtype=torch.int64).float() / D))
        freqs = pos[:, None].float() * inv_freq[None, :]              # [T, D/2], fp32 like HF
        x = rnd(R, H, D)
        if k == "rope_neox":
            emb = torch.cat((freqs, freqs), dim=-1)
            cos, sin = emb.cos().to(dt)[:, None, :], emb.sin().to(dt)[:, None, :]

            def rotate_half(q):
                return torch.cat((-q[..., D // 2:], q[..., :D // 2]), dim=-1)

            return (x, cos, sin), lambda q, c, s: q * c + rotate_half(q) * s
        cos, sin = freqs.cos().to(dt)[:, None, :], freqs.sin().to(dt)[:, None, :]

        def rope_gptj(q, c, s):
            q1, q2 = q[..., 0::2], q[..., 1::2]
            return torch.stack((q1 * c - q2 * s, q2 * c + q1 * s), dim=-1).flatten(-2)

        return (x, cos, sin), rope_gptj
    if k == "embedding":
        idx = torch.randperm(R, device=dev, dtype=torch.int64)
        return (idx, rnd(R, C)), lambda i, t: F.embedding(i, t)
    if k == "permute":
        S = PERM_SEQ if R >= PERM_SEQ else PERM_QSEQ
        D = PERM_HEAD_DIM
        B, H = R // S, C // D
        dst = tdt[p.dst]
        if dst == dt:
            return (rnd(B, S, H, D),), lambda x: x.permute(0, 2, 1, 3).contiguous()
        return (rnd(B, S, H, D),), lambda x: x.permute(0, 2, 1, 3).to(dst).contiguous()
    raise ValueError("no torch op for " + k)


def median_ci95(t):
    """Distribution-free 95% interval of the median of sorted t (bench_ops.c's ranks)."""
    n = len(t)
    half = 1.959964 * n ** 0.5 / 2.0
    j = int(math.floor(n / 2.0 - half))
    k = int(math.ceil(n / 2.0 + half)) + 1
    return t[max(j, 1) - 1], t[min(k, n) - 1]


def summarize(times):
    t = sorted(times)
    lo, hi = median_ci95(t)
    return {"mean": statistics.fmean(t) if hasattr(statistics, "fmean") else statistics.mean(t),
            "std": statistics.pstdev(t) if len(t) > 1 else 0.0,
            "min": t[0], "max": t[-1], "median": statistics.median(t), "num_trials": len(t), "ci95": [lo, hi]}


class Timer(object):
    """Warm-up, then trials between CUDA events with the L2 flushed before each.

    Host overhead is kept out of the timed region: before the start event a
    spin kernel (torch.cuda._sleep) keeps the GPU busy for longer than the
    host needs to queue one call (measured after the warm-up, x2, at least
    50 us), so the events time the GPU work of the call and not the Python /
    dynamo dispatch in front of it (bench_ops.c launches from C, whose few
    microseconds hide behind the L2 flush). --no-hide-launch turns this off.
    """

    def __init__(self, torch, warmup, trials, flush_bytes, hide_launch=True, max_trials=None, ci=0.01, max_s=2.0):
        self.torch = torch
        self.warmup, self.trials = warmup, trials      # trials: the minimum
        self.max_trials = max(trials, max_trials or trials)
        self.ci, self.max_s = ci, max_s
        self.last_stop = None
        self.scratch = torch.empty(flush_bytes, dtype=torch.uint8, device="cuda")
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)
        self.cycles_per_ms = None
        self.last_hide_ms = 0.0
        if hide_launch:
            try:  # calibrate the spin kernel: cycles per ms on this GPU
                torch.cuda._sleep(1000)
                torch.cuda.synchronize()
                best = None
                for _ in range(3):
                    self.start.record()
                    torch.cuda._sleep(2000000)
                    self.end.record()
                    self.end.synchronize()
                    ms = self.start.elapsed_time(self.end)
                    best = ms if best is None else min(best, ms)
                if best and best > 0:
                    self.cycles_per_ms = 2000000.0 / best
            except Exception:  # noqa: BLE001 - no _sleep: time without hiding
                self.cycles_per_ms = None

    def run(self, fn, args):
        torch = self.torch
        for _ in range(self.warmup):
            fn(*args)
        torch.cuda.synchronize()
        cycles = 0
        self.last_hide_ms = 0.0
        if self.cycles_per_ms:
            host = None
            for _ in range(3):                    # host time to queue one call
                t0 = time.perf_counter()
                fn(*args)
                dt = time.perf_counter() - t0
                torch.cuda.synchronize()
                host = dt if host is None else min(host, dt)
            hide_ms = min(max(0.05, 2.0 * host * 1e3), 50.0)
            self.last_hide_ms = hide_ms
            cycles = int(hide_ms * self.cycles_per_ms)
        times = []
        self.last_stop = "max_trials"
        t0 = time.time()
        for i in range(self.max_trials):
            self.scratch.fill_(i & 0xFF)          # L2 flush, outside the timed region
            if cycles:
                torch.cuda._sleep(cycles)         # GPU busy while the host queues the call
            self.start.record()
            fn(*args)
            self.end.record()
            self.end.synchronize()
            times.append(self.start.elapsed_time(self.end))
            n = len(times)
            if n >= self.trials and n < self.max_trials and (n - self.trials) % 25 == 0:
                t = sorted(times)
                med = t[n // 2] if n % 2 else 0.5 * (t[n // 2 - 1] + t[n // 2])
                lo, hi = median_ci95(t)
                if med > 0 and hi - lo <= self.ci * med:
                    self.last_stop = "ci"
                    break
                if time.time() - t0 >= self.max_s:
                    self.last_stop = "time_cap"
                    break
        return times


def write_json(path, head, results):
    doc = dict(head)
    doc["results"] = results
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def r6(x):
    return None if x is None else round(float(x), 6)


def main(argv=None):
    ap = argparse.ArgumentParser(description="PyTorch peer of bench/bench_ops.c (KernelBench-style timing, JSON out)")
    ap.add_argument("out", nargs="?", help="output JSON (required unless --dry)")
    ap.add_argument("--quick", action="store_true", help="small shapes, 10 trials (harness check)")
    ap.add_argument("--match", metavar="AMDKIT.json",
                    help="time exactly the entries (names, shapes, bytes) of this bench_ops.c result")
    ap.add_argument("--filter", metavar="SUBSTR[,SUBSTR...]",
                    help="only entries whose name contains one of these substrings")
    ap.add_argument("--dtype", metavar="LABEL[,LABEL...]", help="only these dtype labels (f32, f16, f32->bf16, ...)")
    ap.add_argument("--impl", choices=("eager", "compile", "both"), default="both")
    ap.add_argument("--trials", type=int, default=None, help="exactly this many timed trials (--quick: 10)")
    ap.add_argument("--min-trials", type=int, default=100, help="at least this many trials (default 100)")
    ap.add_argument("--max-trials", type=int, default=2000, help="at most this many trials (default 2000)")
    ap.add_argument("--ci", type=float, default=0.01,
                    help="stop once the 95%% interval of the median is narrower than this fraction of it (0.01)")
    ap.add_argument("--max-s", type=float, default=2.0, help="stop an entry's trials after this many seconds (2)")
    ap.add_argument("--warmup", type=int, default=None, help="untimed calls first (default 5, --quick 1)")
    ap.add_argument("--seed", type=int, default=None, help="RNG seed (default: fresh, recorded in the JSON)")
    ap.add_argument("--budget-s", type=float, default=None,
                    help="start no new entry after this many seconds (what was measured is written)")
    ap.add_argument("--no-hide-launch", action="store_true",
                    help="do not hide the host dispatch time behind a spin kernel (see Timer)")
    ap.add_argument("--dry", action="store_true", help="print the plan; do not import torch")
    a = ap.parse_args(argv)
    if not a.dry and not a.out:
        ap.error("OUT.json is required")
    if a.trials and a.trials > 0:
        trials = max_trials = a.trials
    elif a.quick:
        trials = max_trials = 10
    else:
        trials, max_trials = max(1, a.min_trials), max(1, a.min_trials, a.max_trials)
    warmup = a.warmup if a.warmup is not None and a.warmup >= 0 else (1 if a.quick else 5)
    impls = {"eager": ["torch_eager"], "compile": ["torch_compile"],
             "both": ["torch_eager", "torch_compile"]}[a.impl]

    skipped = []
    if a.match:
        plans, skipped, _ = plans_from_match(a.match)
    else:
        plans = builtin_plans(a.quick)
    if a.dtype:
        dts = a.dtype.split(",")
        plans = [p for p in plans if p.dtype in dts]
    if a.filter:
        subs = [f for f in a.filter.split(",") if f]
        plans = [p for p in plans if any(f in p.name for f in subs)]

    if a.dry:
        print("peer_torch plan: %d entries x %s, %d..%d trials, %d warm-up%s" %
              (len(plans), "+".join(impls), trials, max_trials, warmup, " (--match %s)" % a.match if a.match else ""))
        for p in plans:
            extra = " ".join("%s=%s" % kv for kv in sorted(p.params.items()))
            print("  %-16s %-10s %-18s %-14s %14.0f bytes %s" %
                  (p.name, p.dtype, "[%d, %d]" % (p.rows, p.cols), p.kind, p.bytes, extra))
        for key, why in skipped:
            print("  skip %-11s %-10s %-18s (%s)" % (key[0], key[1], list(key[2]), why))
        return 0

    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # noqa: BLE001
        print("peer_torch: cannot import torch: %s" % e, file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("peer_torch: torch.cuda is not available", file=sys.stderr)
        return 1
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 2 ** 31)
    torch.manual_seed(seed)
    dev = torch.device("cuda", torch.cuda.current_device())
    props = torch.cuda.get_device_properties(dev)
    hardware = props.name
    device = "cuda:%d" % dev.index
    l2 = int(getattr(props, "L2_cache_size", 0) or 0)
    flush = 2 * l2 if l2 > 0 else (128 << 20)
    timer = Timer(torch, warmup, trials, flush, hide_launch=not a.no_hide_launch, max_trials=max_trials,
                  ci=a.ci, max_s=a.max_s)
    t_start = time.time()
    print("peer_torch on %s (%s), torch %s, CUDA %s, %d..%d trials (95%% interval of the median < %g%% or %g s), "
          "L2 flush %d MiB, seed %d" % (hardware, device, torch.__version__, torch.version.cuda, trials, max_trials,
                                        100 * a.ci, a.max_s, flush >> 20, seed))
    for key, why in skipped:
        print("skip %-12s %-10s %-16s (%s)" % (key[0], key[1], list(key[2]), why))

    # copy bandwidth, same protocol as bench_ops.c (D2D memcpy, read + write)
    nb = (8 << 20) if a.quick else (1 << 30)
    src = torch.empty(nb, dtype=torch.uint8, device=dev).fill_(1)
    dst = torch.empty_like(src)
    cs = summarize(timer.run(lambda s, d: d.copy_(s), (src, dst)))
    copy_gbps = 2.0 * nb / (cs["median"] * 1e-3) / 1e9
    del src, dst
    torch.cuda.empty_cache()
    print("%-12s %-10s %-16s %10.4f ms %9.1f GB/s (copy roofline)" % ("memcpy_d2d", "u8", "", cs["median"], copy_gbps))

    head = {"tool": "amdkit peer_torch", "hardware": hardware, "device": device, "backend": "torch",
            "torch_version": torch.__version__, "cuda_version": torch.version.cuda,
            "quick": bool(a.quick), "seed": seed, "trials": trials, "max_trials": max_trials, "ci_width": a.ci,
            "max_s": a.max_s, "warmup": warmup,
            "l2_flush_bytes": flush, "launch_hidden": bool(timer.cycles_per_ms),
            "copy_gbps": round(copy_gbps, 2),
            "copy_median_ms": r6(cs["median"]), "compile_mode": "default"}
    if a.match:
        head["matched"] = a.match
    results = []
    failures = 0
    for p in plans:
        if a.budget_s is not None and time.time() - t_start > a.budget_s:
            print("peer_torch: --budget-s %.0f reached; %s and later entries not run" % (a.budget_s, p.name))
            head["stopped_at"] = {"name": p.name, "dtype": p.dtype, "shape": p.shape}
            break
        for impl in impls:
            rec = {"name": p.name, "dtype": p.dtype, "shape": p.shape, "impl": impl}
            stats, err, times = None, None, None
            args = fn = None
            try:
                args, fn = build(p, torch, F, dev)
                if impl == "torch_compile":
                    torch._dynamo.reset()
                    fn = torch.compile(fn, dynamic=False)
                times = timer.run(fn, args)
                stats = summarize(times)
            except Exception as e:  # noqa: BLE001 - record and go on
                err = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
            finally:
                args = fn = None
                try:
                    torch.cuda.synchronize()
                    torch.cuda.empty_cache()
                except Exception:  # noqa: BLE001 - a sticky CUDA error shows up in the next entry
                    pass
            label = "%s %s" % (impl.replace("torch_", ""), p.dtype)
            shape = "[%d, %d]" % (p.rows, p.cols)
            if stats is None:
                failures += 1
                for f in ("mean", "std", "min", "max", "median", "num_trials", "gbps", "roofline_fraction"):
                    rec[f] = None
                rec.update({"hardware": hardware, "device": device, "bytes": p.bytes, "error": err[:500]})
                print("%-12s %-16s %-16s FAILED: %s" % (p.name, label, shape, err[:200]))
            else:
                gbps = p.bytes / (stats["median"] * 1e-3) / 1e9
                rec.update({k: r6(stats[k]) for k in ("mean", "std", "min", "max", "median")})
                rec.update({"num_trials": stats["num_trials"], "ci95": [r6(v) for v in stats["ci95"]],
                            "stop": timer.last_stop, "hardware": hardware, "device": device,
                            "bytes": p.bytes, "gbps": round(gbps, 2), "launch_hide_ms": r6(timer.last_hide_ms),
                            "roofline_fraction": round(gbps / copy_gbps, 4) if copy_gbps > 0 else 0.0,
                            "times": [float("%.6g" % v) for v in times]})
                print("%-12s %-16s %-16s %10.4f ms [%.4f, %.4f] %5d trials (%s) %9.1f GB/s %6.1f%% of copy" %
                      (p.name, label, shape, stats["median"], stats["ci95"][0], stats["ci95"][1], stats["num_trials"],
                       timer.last_stop, gbps, 100.0 * gbps / copy_gbps if copy_gbps > 0 else 0))
            results.append(rec)
            sys.stdout.flush()
        write_json(a.out, head, results)
    write_json(a.out, head, results)
    print("wrote %s (%d results, %d failed, %.0f s)" % (a.out, len(results), failures, time.time() - t_start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
