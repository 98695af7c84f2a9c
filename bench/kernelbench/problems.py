"""KernelBench level 1, written for bench/kernelbench/run.py: each problem's
shapes, input distributions and init arguments as the public problem files
(KernelBench/level1/<N>_<name>.py) give them, its forward in PyTorch (the
reference), and the same computation through amdkit's ops (ctypes calls on
the CUDA tensors' device pointers; outputs allocated with torch.empty, as
eager allocates its own).

A problem is Problem(num, file, how, make): make(torch, ak, dtype, device)
returns (inputs, reference(*inputs), amdkit(*inputs)); make None: not
expressible with amdkit's ops yet (how says why).
"""

# amdkit.h enum values (tests/kernelbench_check.py holds them to the header)
F32, F16, BF16 = 0, 1, 2
OP = {"relu": 1, "leaky_relu": 2, "sigmoid": 3, "tanh": 4, "silu": 5, "gelu": 6, "gelu_tanh": 7, "elu": 8, "selu": 9,
      "hardsigmoid": 10, "hardtanh": 11, "softplus": 12, "softsign": 13}
RED = {"sum": 0, "mean": 1, "max": 2, "min": 3, "argmax": 4, "argmin": 5}
BIN_MUL = 2
NORM = {"l1": 0, "l2": 1, "mean_abs": 2, "rms": 3}
LOSS = {"mse": 0, "l1": 1, "huber": 2, "smooth_l1": 3, "kl": 4, "hinge": 5}
LOSS_RED = {"none": 0, "mean": 1, "sum": 2, "batchmean": 3}
TARGET_FULL, TARGET_ROW = 0, 1
LOSS_PROB_INPUT = 2
SCAN_SUM, SCAN_PROD = 0, 1
SCAN_EXCLUSIVE, SCAN_REVERSE = 1, 2
POOL_MAX, POOL_AVG = 0, 1


class Problem(object):
    def __init__(self, num, file, how, make):
        self.num, self.file, self.how, self.make = num, file, how, make


def akdt(torch, dt):
    return {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16}[dt]


def p(t):
    return t.data_ptr()


# ---- matrix multiplications (1-18) -------------------------------------------------------------------------------

def gemm_problem(m, k, n, ta=False, tb=False, batch=0, post=None):
    """C = op(A) op(B): A stored [k, m] when ta, B stored [n, k] when tb; batch > 0: [batch, ...] (torch.bmm)."""
    def make(torch, ak, dt, dev):
        ashape = (k, m) if ta else (m, k)
        bshape = (n, k) if tb else (k, n)
        if batch:
            ashape, bshape = (batch,) + ashape, (batch,) + bshape
        A = torch.rand(ashape, device=dev, dtype=dt)
        B = torch.rand(bshape, device=dev, dtype=dt)
        if post == "triu":
            A, B = torch.triu(A), torch.triu(B)
        elif post == "tril":
            A, B = torch.tril(A), torch.tril(B)
        elif post == "sym":
            A, B = (A + A.T) / 2, (B + B.T) / 2
        d = akdt(torch, dt)

        def ref(A, B):
            a = A.transpose(-1, -2) if ta else A
            b = B.transpose(-1, -2) if tb else B
            c = torch.bmm(a, b) if batch else torch.matmul(a, b)
            if post == "triu":
                c = torch.triu(c)
            elif post == "tril":
                c = torch.tril(c)
            return c

        def run(A, B):
            C = torch.empty(((batch,) if batch else ()) + (m, n), device=dev, dtype=dt)
            ak.kb_gemm(d, p(A), p(B), p(C), m, n, k, int(ta), int(tb), max(batch, 1), m * k, k * n, m * n, 1.0, None)
            if post in ("triu", "tril"):
                ak.ak_triangular(d, p(C), p(C), 1, m, n, 0, 1 if post == "triu" else 0, None)
            return C
        return [A, B], ref, run
    return make


def matvec(torch, ak, dt, dev):
    M, K = 256 * 8, 131072 * 8
    A = torch.rand(M, K, device=dev, dtype=dt)
    B = torch.rand(K, 1, device=dev, dtype=dt)
    d = akdt(torch, dt)

    def run(A, B):
        C = torch.empty(M, 1, device=dev, dtype=dt)
        ak.kb_gemm(d, p(A), p(B), p(C), M, 1, K, 0, 0, 1, 0, 0, 0, 1.0, None)
        return C
    return [A, B], lambda A, B: torch.matmul(A, B), run


def scalar_mul(torch, ak, dt, dev):
    M, N = 16384 * 4, 4096 * 4
    A = torch.rand(M, N, device=dev, dtype=dt)
    d = akdt(torch, dt)

    def run(A):
        C = torch.empty_like(A)
        ak.ak_scale(d, p(A), p(C), A.numel(), 3.14, None)
        return C
    return [A], lambda A: A * 3.14, run


def tensor3_matmul(torch, ak, dt, dev):
    N, M, K, L = 16, 1024, 2048, 768
    A = torch.rand(N, M, K, device=dev, dtype=dt)
    B = torch.rand(K, L, device=dev, dtype=dt)
    d = akdt(torch, dt)

    def run(A, B):
        C = torch.empty(N, M, L, device=dev, dtype=dt)
        ak.kb_gemm(d, p(A), p(B), p(C), N * M, L, K, 0, 0, 1, 0, 0, 0, 1.0, None)
        return C
    return [A, B], lambda A, B: torch.matmul(A, B), run


def tensor4_matmul(torch, ak, dt, dev):
    b, i, j, l, k = 8, 256, 512, 256, 768
    A = torch.rand(b, i, j, l, device=dev, dtype=dt)
    B = torch.rand(l, k, device=dev, dtype=dt)
    d = akdt(torch, dt)

    def run(A, B):
        C = torch.empty(b, i, j, k, device=dev, dtype=dt)
        ak.kb_gemm(d, p(A), p(B), p(C), b * i * j, k, l, 0, 0, 1, 0, 0, 0, 1.0, None)
        return C
    return [A, B], lambda A, B: torch.einsum("bijl,lk->bijk", A, B), run


def diag_matmul(torch, ak, dt, dev):
    M = N = 4096
    A = torch.rand(N, device=dev, dtype=dt)
    B = torch.rand(N, M, device=dev, dtype=dt)
    d = akdt(torch, dt)

    def run(A, B):
        C = torch.empty_like(B)
        ak.ak_binary_broadcast(BIN_MUL, d, p(B), p(A), p(C), 2, sizes(N, M), sizes(N, 1), None)
        return C
    return [A, B], lambda A, B: A.unsqueeze(1) * B, run


def sizes(*v):
    import ctypes
    return (ctypes.c_size_t * len(v))(*v)


# ---- activations (19-32, 88) ----------------------------------------------------------------------------------

def unary_problem(op, ref_fn, p1=0.0, p2=0.0, shape=(4096, 393216)):
    def make(torch, ak, dt, dev):
        x = torch.rand(shape, device=dev, dtype=dt)
        d = akdt(torch, dt)

        def run(x):
            y = torch.empty_like(x)
            ak.ak_unary2(OP[op], d, p(x), p(y), x.numel(), p1, p2, None)
            return y
        return [x], (lambda x: ref_fn(torch, x)), run
    return make


def softmax_problem(log):
    def make(torch, ak, dt, dev):
        x = torch.rand(4096, 393216, device=dev, dtype=dt)
        d = akdt(torch, dt)

        def run(x):
            y = torch.empty_like(x)
            ak.ak_softmax(d, p(x), p(y), x.shape[0], x.shape[1], 1 if log else 0, None)
            return y
        ref = (lambda x: torch.log_softmax(x, dim=1)) if log else (lambda x: torch.softmax(x, dim=1))
        return [x], ref, run
    return make


# ---- normalisation (33-40) --------------------------------------------------------------------------------------

def batchnorm(torch, ak, dt, dev):
    N, C, H, W = 64, 64, 512, 512
    x = torch.rand(N, C, H, W, device=dev, dtype=dt)
    bn = torch.nn.BatchNorm2d(C).to(device=dev, dtype=dt)   # training mode, as the problem's module
    w = torch.ones(C, device=dev, dtype=dt)
    b = torch.zeros(C, device=dev, dtype=dt)
    rm = torch.zeros(C, device=dev, dtype=torch.float32)
    rv = torch.ones(C, device=dev, dtype=torch.float32)
    d = akdt(torch, dt)

    def run(x):
        y = torch.empty_like(x)
        ak.ak_batch_norm(d, p(x), p(y), N, C, H * W, p(w), p(b), p(rm), p(rv), 1, 0.1, 1e-5, None)
        return y
    return [x], (lambda x: bn(x)), run


def group_norm_problem(groups, affine):
    def make(torch, ak, dt, dev):
        N, C, H, W = 112, 64, 512, 512
        x = torch.rand(N, C, H, W, device=dev, dtype=dt)
        if groups == C:
            mod = torch.nn.InstanceNorm2d(C).to(device=dev, dtype=dt)
        else:
            mod = torch.nn.GroupNorm(groups, C).to(device=dev, dtype=dt)
        w = torch.ones(C, device=dev, dtype=dt)
        b = torch.zeros(C, device=dev, dtype=dt)
        d = akdt(torch, dt)

        def run(x):
            y = torch.empty_like(x)
            ak.ak_group_norm(d, p(x), p(y), N, C, H * W, groups, p(w) if affine else None, p(b) if affine else None,
                             1e-5, None)
            return y
        return [x], (lambda x: mod(x)), run
    return make


def rmsnorm_dim1(torch, ak, dt, dev):
    N, C, H, W = 112, 64, 512, 512
    x = torch.rand(N, C, H, W, device=dev, dtype=dt)
    d = akdt(torch, dt)

    def run(x):
        y = torch.empty_like(x)
        ak.ak_normalize(NORM["rms"], d, p(x), p(y), N, C, H * W, 1e-5, None)
        return y
    return [x], (lambda x: x / torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + 1e-5)), run


def frobenius(torch, ak, dt, dev):
    x = torch.rand(112, 64, 512, 512, device=dev, dtype=dt)
    d = akdt(torch, dt)

    def run(x):
        y = torch.empty_like(x)
        ak.ak_normalize(NORM["l2"], d, p(x), p(y), 1, x.numel(), 1, 0.0, None)
        return y
    return [x], (lambda x: x / torch.norm(x, p="fro")), run


def vecnorm_problem(kind):
    def make(torch, ak, dt, dev):
        x = torch.rand(32768, 65535, device=dev, dtype=dt)
        d = akdt(torch, dt)

        def run(x):
            y = torch.empty_like(x)
            ak.ak_normalize(NORM[kind], d, p(x), p(y), x.shape[0], x.shape[1], 1, 0.0, None)
            return y
        if kind == "mean_abs":
            ref = lambda x: x / torch.mean(torch.abs(x), dim=1, keepdim=True)   # noqa: E731
        else:
            ref = lambda x: x / torch.norm(x, p=2, dim=1, keepdim=True)   # noqa: E731
        return [x], ref, run
    return make


def layernorm(torch, ak, dt, dev):
    N, C, H, W = 16, 64, 256, 256
    x = torch.rand(N, C, H, W, device=dev, dtype=dt)
    ln = torch.nn.LayerNorm((C, H, W)).to(device=dev, dtype=dt)
    w = torch.ones(C * H * W, device=dev, dtype=dt)
    b = torch.zeros(C * H * W, device=dev, dtype=dt)
    d = akdt(torch, dt)

    def run(x):
        y = torch.empty_like(x)
        ak.ak_layernorm(d, p(x), p(w), p(b), p(y), N, C * H * W, 1e-5, None)
        return y
    return [x], (lambda x: ln(x)), run


# ---- pooling (41-46) -------------------------------------------------------------------------------------------------

def pool_problem(kind, ndim, shape, k, s, pad, dil):
    def make(torch, ak, dt, dev):
        x = torch.rand(shape, device=dev, dtype=dt)
        nn = torch.nn
        if kind == POOL_MAX:
            mod = [None, nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d][ndim](kernel_size=k, stride=s, padding=pad, dilation=dil)
        else:
            mod = [None, nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d][ndim](kernel_size=k, stride=s, padding=pad)
        d = akdt(torch, dt)
        out_shape = tuple(mod(x[:1, :1]).shape[2:])
        spatial = shape[2:]

        def run(x):
            y = torch.empty(shape[:2] + out_shape, device=dev, dtype=dt)
            ak.kb_pool(kind, d, ndim, shape[0], shape[1], sizes(*spatial), k, s or 0, pad, dil, 0, 1, p(x), p(y), None,
                       None)
            return y
        return [x], (lambda x: mod(x)), run
    return make


# ---- reductions over a dimension (47-49, 51-53) -----------------------------------------------------------------

def reduce_problem(op, keepdim):
    def make(torch, ak, dt, dev):
        B, D1, D2 = 128, 4096, 4095
        x = torch.rand(B, D1, D2, device=dev, dtype=dt)
        d = akdt(torch, dt)
        arg = op in ("argmax", "argmin")

        def run(x):
            y = torch.empty((B, 1, D2) if keepdim else (B, D2), device=dev, dtype=torch.int64 if arg else torch.float32)
            ak.ak_reduce_axes(RED[op], d, p(x), p(y), 3, sizes(B, D1, D2), 2, None)
            return y
        ref = {"sum": lambda x: torch.sum(x, dim=1, keepdim=True), "mean": lambda x: torch.mean(x, dim=1),
               "max": lambda x: torch.max(x, dim=1)[0], "min": lambda x: torch.min(x, dim=1)[0],
               "argmax": lambda x: torch.argmax(x, dim=1), "argmin": lambda x: torch.argmin(x, dim=1)}[op]
        return [x], ref, run
    return make


# ---- scans (89-93) ---------------------------------------------------------------------------------------------------------

def scan_problem(kind):
    def make(torch, ak, dt, dev):
        R = C = 32768
        x = torch.rand(R, C, device=dev, dtype=dt)
        d = akdt(torch, dt)
        inputs = [x]
        if kind == "masked":
            inputs.append(torch.randint(0, 2, x.shape, device=dev).bool())
        op = SCAN_PROD if kind == "prod" else SCAN_SUM
        flags = SCAN_REVERSE if kind == "reverse" else SCAN_EXCLUSIVE if kind == "exclusive" else 0

        def run(x, mask=None):
            y = torch.empty_like(x)
            ak.ak_scan(op, d, p(x), p(mask) if mask is not None else None, p(y), R, C, flags, None)
            return y
        ref = {"sum": lambda x: torch.cumsum(x, dim=1), "prod": lambda x: torch.cumprod(x, dim=1),
               "reverse": lambda x: torch.cumsum(x.flip(1), dim=1).flip(1),
               "exclusive": lambda x: torch.cat((torch.zeros_like(x.select(1, 0).unsqueeze(1)),
                                                 torch.cumsum(x.narrow(dim=1, start=0, length=x.size(1) - 1), dim=1)), dim=1),
               "masked": lambda x, m: torch.cumsum(x * m, dim=1)}[kind]
        return inputs, ref, run
    return make


# ---- losses (94-100) --------------------------------------------------------------------------------------------------------

def loss_problem(kind):
    def make(torch, ak, dt, dev):
        F = torch.nn.functional
        d = akdt(torch, dt)
        out = lambda: torch.empty((), device=dev, dtype=torch.float32)   # noqa: E731
        if kind in ("mse", "smooth_l1"):
            R = C = 32768
            scale = torch.rand((), device=dev)
            x = (torch.rand(R, C, device=dev) * scale).to(dt)
            t = torch.rand(R, C, device=dev, dtype=dt)

            def run(x, t):
                y = out()
                ak.ak_loss(LOSS[kind], d, p(x), p(t), TARGET_FULL, p(y), R, C, 1.0, 0, LOSS_RED["mean"], None)
                return y
            ref = (lambda x, t: torch.mean((x - t) ** 2)) if kind == "mse" else (lambda x, t: F.smooth_l1_loss(x, t))
            return [x, t], ref, run
        if kind == "xent":
            R, C = 32768, 4096
            x = torch.rand(R, C, device=dev, dtype=dt)
            t = torch.randint(0, C, (R,), device=dev)

            def run(x, t):
                y = out()
                ak.ak_cross_entropy(d, p(x), p(t), p(y), R, C, -100, LOSS_RED["mean"], None)
                return y
            return [x, t], (lambda x, t: F.cross_entropy(x, t)), run
        if kind == "kl":
            R = C = 8192 * 2
            scale = torch.rand((), device=dev)
            x = (torch.rand(R, C, device=dev) * scale).softmax(dim=-1).to(dt)
            t = torch.rand(R, C, device=dev).softmax(dim=-1).to(dt)

            def run(x, t):
                y = out()
                ak.ak_loss(LOSS["kl"], d, p(x), p(t), TARGET_FULL, p(y), R, C, 0.0, LOSS_PROB_INPUT, LOSS_RED["batchmean"],
                           None)
                return y
            return [x, t], (lambda x, t: F.kl_div(torch.log(x), t, reduction="batchmean")), run
        if kind == "triplet":
            R, C = 32768, 8192
            scale = torch.rand((), device=dev)
            a = (torch.rand(R, C, device=dev) * scale).to(dt)
            pz = torch.rand(R, C, device=dev, dtype=dt)
            n = torch.rand(R, C, device=dev, dtype=dt)
            lossfn = torch.nn.TripletMarginLoss(margin=1.0)

            def run(a, pz, n):
                y = out()
                ak.ak_triplet_margin_loss(d, p(a), p(pz), p(n), p(y), R, C, 1.0, 2.0, 1e-6, 0, LOSS_RED["mean"], None)
                return y
            return [a, pz, n], (lambda a, pz, n: lossfn(a, pz, n)), run
        if kind == "hinge":
            R = C = 32768
            x = torch.rand(R, C, device=dev, dtype=dt)
            t = (torch.randint(0, 2, (R,), device=dev).float() * 2 - 1).to(dt)   # broadcast over the rows (a [C] row)

            def run(x, t):
                y = out()
                ak.ak_loss(LOSS["hinge"], d, p(x), p(t), TARGET_ROW, p(y), R, C, 1.0, 0, LOSS_RED["mean"], None)
                return y
            return [x, t], (lambda x, t: torch.mean(torch.clamp(1 - x * t, min=0))), run
        raise ValueError(kind)
    return make


def sdpa(torch, ak, dt, dev):
    """softmax(Q K^T / sqrt(d)) V with head_dim 1024 (past ak_attention's 256): two batched GEMMs around a row softmax."""
    B, H, S, D = 32, 32, 512, 1024
    Q = torch.rand(B, H, S, D, device=dev, dtype=dt)
    K = torch.rand(B, H, S, D, device=dev, dtype=dt)
    V = torch.rand(B, H, S, D, device=dev, dtype=dt)
    d = akdt(torch, dt)

    def run(Q, K, V):
        s = torch.empty(B, H, S, S, device=dev, dtype=dt)
        o = torch.empty(B, H, S, D, device=dev, dtype=dt)
        ak.kb_gemm(d, p(Q), p(K), p(s), S, S, D, 0, 1, B * H, S * D, S * D, S * S, 1.0 / D ** 0.5, None)
        ak.ak_softmax(d, p(s), p(s), B * H * S, S, 0, None)
        ak.kb_gemm(d, p(s), p(V), p(o), S, D, S, 0, 0, B * H, S * S, S * D, S * D, 1.0, None)
        return o
    return [Q, K, V], (lambda Q, K, V: torch.nn.functional.scaled_dot_product_attention(Q, K, V)), run


# ---- convolutions (50, 54-87) ------------------------------------------------------------------------------------------

def conv_out(mod, spatial):
    """torch's output extents of a ConvNd / ConvTransposeNd module on an input of these spatial extents."""
    out = []
    for j, n in enumerate(spatial):
        k, s, pd, d = mod.kernel_size[j], mod.stride[j], mod.padding[j], mod.dilation[j]
        if mod.transposed:
            out.append((n - 1) * s - 2 * pd + d * (k - 1) + mod.output_padding[j] + 1)
        else:
            out.append((n + 2 * pd - d * (k - 1) - 1) // s + 1)
    return tuple(out)


def ak_conv_module(ak, torch, mod, x, dt, dev):
    """y = mod(x) through ak_conv: the module's own weight, bias, stride, padding, dilation, groups, output_padding."""
    spatial = tuple(x.shape[2:])
    nd = len(spatial)
    out = conv_out(mod, spatial)
    y = torch.empty((x.shape[0], mod.out_channels) + out, device=dev, dtype=dt)
    op = tuple(mod.output_padding) if mod.transposed else (0,) * nd
    ak.kb_conv(akdt(torch, dt), nd, int(mod.transposed), x.shape[0], mod.in_channels, mod.out_channels, mod.groups,
               sizes(*spatial), sizes(*mod.kernel_size), sizes(*mod.stride), sizes(*mod.padding), sizes(*mod.dilation),
               sizes(*op), p(x), p(mod.weight), p(mod.bias) if mod.bias is not None else None, p(y), None)
    return y


def conv_problem(build, shape):
    """build(nn) -> the problem's module(s) as its __init__ makes them (a list: applied in order, as 86's depthwise
    then pointwise); shape: get_inputs' torch.rand shape."""
    def make(torch, ak, dt, dev):
        mods = build(torch.nn)
        mods = [m.to(device=dev, dtype=dt) for m in (mods if isinstance(mods, list) else [mods])]
        x = torch.rand(shape, device=dev, dtype=dt)

        def ref(x):
            with torch.no_grad():
                for m in mods:
                    x = m(x)
            return x

        def run(x):
            for m in mods:
                x = ak_conv_module(ak, torch, m, x, dt, dev)
            return x
        return [x], ref, run
    return make


# ---- the table ------------------------------------------------------------------------------------------------------------------
_T = [
    (1, "1_Square_matrix_multiplication_.py", "ak_gemm 4096^3", gemm_problem(4096, 4096, 4096)),
    (2, "2_Standard_matrix_multiplication_.py", "ak_gemm", gemm_problem(2048, 8192, 4096)),
    (3, "3_Batched_matrix_multiplication.py", "ak_gemm batched", gemm_problem(512, 1024, 2048, batch=128)),
    (4, "4_Matrix_vector_multiplication_.py", "ak_gemm n = 1", matvec),
    (5, "5_Matrix_scalar_multiplication.py", "ak_scale", scalar_mul),
    (6, "6_Matmul_with_large_K_dimension_.py", "ak_gemm", gemm_problem(256, 131072 * 4, 256)),
    (7, "7_Matmul_with_small_K_dimension_.py", "ak_gemm", gemm_problem(32768, 64, 32768)),
    (8, "8_Matmul_with_irregular_shapes_.py", "ak_gemm", gemm_problem(8205, 2949, 5921)),
    (9, "9_Tall_skinny_matrix_multiplication_.py", "ak_gemm", gemm_problem(32768, 32, 32768)),
    (10, "10_3D_tensor_matrix_multiplication.py", "ak_gemm (m = N x M)", tensor3_matmul),
    (11, "11_4D_tensor_matrix_multiplication.py", "ak_gemm (m = b x i x j)", tensor4_matmul),
    (12, "12_Matmul_with_diagonal_matrices_.py", "ak_binary_broadcast (column operand)", diag_matmul),
    (13, "13_Matmul_for_symmetric_matrices.py", "ak_gemm", gemm_problem(4096, 4096, 4096, post="sym")),
    (14, "14_Matmul_for_upper_triangular_matrices.py", "ak_gemm + ak_triangular (in place)",
     gemm_problem(4096, 4096, 4096, post="triu")),
    (15, "15_Matmul_for_lower_triangular_matrices.py", "ak_gemm + ak_triangular (in place)",
     gemm_problem(4096, 4096, 4096, post="tril")),
    (16, "16_Matmul_with_transposed_A.py", "ak_gemm trans_a", gemm_problem(2048, 8192, 4096, ta=True)),
    (17, "17_Matmul_with_transposed_B.py", "ak_gemm trans_b", gemm_problem(2048, 8192, 4096, tb=True)),
    (18, "18_Matmul_with_transposed_both.py", "ak_gemm trans_a trans_b", gemm_problem(2048, 8192, 4096, ta=True, tb=True)),
    (19, "19_ReLU.py", "ak_unary relu", unary_problem("relu", lambda t, x: t.relu(x))),
    (20, "20_LeakyReLU.py", "ak_unary leaky_relu 0.01",
     unary_problem("leaky_relu", lambda t, x: t.nn.functional.leaky_relu(x, negative_slope=0.01), 0.01)),
    (21, "21_Sigmoid.py", "ak_unary sigmoid", unary_problem("sigmoid", lambda t, x: t.sigmoid(x))),
    (22, "22_Tanh.py", "ak_unary tanh", unary_problem("tanh", lambda t, x: t.tanh(x))),
    (23, "23_Softmax.py", "ak_softmax", softmax_problem(False)),
    (24, "24_LogSoftmax.py", "ak_softmax log", softmax_problem(True)),
    (25, "25_Swish.py", "ak_unary silu", unary_problem("silu", lambda t, x: x * t.sigmoid(x))),
    (26, "26_GELU_.py", "ak_unary gelu", unary_problem("gelu", lambda t, x: t.nn.functional.gelu(x))),
    (27, "27_SELU_.py", "ak_unary selu", unary_problem("selu", lambda t, x: t.selu(x))),
    (28, "28_HardSigmoid.py", "ak_unary hardsigmoid",
     unary_problem("hardsigmoid", lambda t, x: t.nn.functional.hardsigmoid(x))),
    (29, "29_Softplus.py", "ak_unary softplus", unary_problem("softplus", lambda t, x: t.nn.functional.softplus(x))),
    (30, "30_Softsign.py", "ak_unary softsign", unary_problem("softsign", lambda t, x: x / (1 + t.abs(x)))),
    (31, "31_ELU.py", "ak_unary elu alpha 1", unary_problem("elu", lambda t, x: t.nn.functional.elu(x, alpha=1.0), 1.0)),
    (32, "32_HardTanh.py", "ak_unary2 hardtanh [-1, 1]",
     unary_problem("hardtanh", lambda t, x: t.nn.functional.hardtanh(x, min_val=-1.0, max_val=1.0), -1.0, 1.0)),
    (33, "33_BatchNorm.py", "ak_batch_norm (training, running statistics)", batchnorm),
    (34, "34_InstanceNorm.py", "ak_group_norm groups = channels", group_norm_problem(64, False)),
    (35, "35_GroupNorm_.py", "ak_group_norm 8 groups", group_norm_problem(8, True)),
    (36, "36_RMSNorm_.py", "ak_normalize rms over dim 1", rmsnorm_dim1),
    (37, "37_FrobeniusNorm_.py", "ak_normalize l2 over everything", frobenius),
    (38, "38_L1Norm_.py", "ak_normalize mean |x| over dim 1", vecnorm_problem("mean_abs")),
    (39, "39_L2Norm_.py", "ak_normalize l2 over dim 1", vecnorm_problem("l2")),
    (40, "40_LayerNorm.py", "ak_layernorm over 64 x 256 x 256", layernorm),
    (41, "41_Max_Pooling_1D.py", "ak_pool max 1-D", pool_problem(POOL_MAX, 1, (64, 192, 65536), 8, 1, 4, 3)),
    (42, "42_Max_Pooling_2D.py", "ak_pool max 2-D", pool_problem(POOL_MAX, 2, (32, 64, 512, 512), 4, 1, 1, 1)),
    (43, "43_Max_Pooling_3D.py", "ak_pool max 3-D", pool_problem(POOL_MAX, 3, (16, 32, 128, 128, 128), 3, 2, 1, 3)),
    (44, "44_Average_Pooling_1D.py", "ak_pool avg 1-D", pool_problem(POOL_AVG, 1, (64, 128, 65536), 8, 1, 4, 1)),
    (45, "45_Average_Pooling_2D.py", "ak_pool avg 2-D", pool_problem(POOL_AVG, 2, (16, 64, 2048, 2048), 11, None, 0, 1)),
    (46, "46_Average_Pooling_3D.py", "ak_pool avg 3-D", pool_problem(POOL_AVG, 3, (16, 32, 128, 128, 256), 3, 2, 1, 1)),
    (47, "47_Sum_reduction_over_a_dimension.py", "ak_reduce_axes sum", reduce_problem("sum", True)),
    (48, "48_Mean_reduction_over_a_dimension.py", "ak_reduce_axes mean", reduce_problem("mean", False)),
    (49, "49_Max_reduction_over_a_dimension.py", "ak_reduce_axes max", reduce_problem("max", False)),
    (51, "51_Argmax_over_a_dimension.py", "ak_reduce_axes argmax", reduce_problem("argmax", False)),
    (52, "52_Argmin_over_a_dimension.py", "ak_reduce_axes argmin", reduce_problem("argmin", False)),
    (53, "53_Min_reduction_over_a_dimension.py", "ak_reduce_axes min", reduce_problem("min", False)),
    (88, "88_MinGPTNewGelu.py", "ak_unary gelu_tanh", unary_problem(
        "gelu_tanh", lambda t, x: 0.5 * x * (1.0 + t.tanh((2.0 / 3.141592653589793) ** 0.5 * (x + 0.044715 * t.pow(x, 3.0)))),
        shape=(8192, 8192))),
    (89, "89_cumsum.py", "ak_scan sum", scan_problem("sum")),
    (90, "90_cumprod.py", "ak_scan prod", scan_problem("prod")),
    (91, "91_cumsum_reverse.py", "ak_scan sum reverse", scan_problem("reverse")),
    (92, "92_cumsum_exclusive.py", "ak_scan sum exclusive", scan_problem("exclusive")),
    (93, "93_masked_cumsum.py", "ak_scan sum masked", scan_problem("masked")),
    (94, "94_MSELoss.py", "ak_loss mse mean", loss_problem("mse")),
    (95, "95_CrossEntropyLoss.py", "ak_cross_entropy mean", loss_problem("xent")),
    (96, "96_HuberLoss.py", "ak_loss smooth_l1 mean", loss_problem("smooth_l1")),
    (97, "97_ScaledDotProductAttention.py", "ak_gemm + ak_softmax + ak_gemm (head_dim 1024)", sdpa),
    (98, "98_KLDivLoss.py", "ak_loss kl (log inside) batchmean", loss_problem("kl")),
    (99, "99_TripletMarginLoss.py", "ak_triplet_margin_loss mean", loss_problem("triplet")),
    (100, "100_HingeLoss.py", "ak_loss hinge (row target) mean", loss_problem("hinge")),
]
C = conv_problem
_CONVS = [
    (50, "50_conv_standard_2D__square_input__square_kernel.py",
     C(lambda nn: nn.Conv2d(in_channels=3, out_channels=96, kernel_size=11, stride=4, padding=2), (256, 3, 224, 224))),
    (54, "54_conv_standard_3D__square_input__square_kernel.py",
     C(lambda nn: nn.Conv3d(3, 64, (3, 3, 3), bias=False), (16, 3, 64, 64, 64))),
    (55, "55_conv_standard_2D__asymmetric_input__square_kernel.py",
     C(lambda nn: nn.Conv2d(64, 128, (3, 3), bias=False), (8, 64, 512, 1024))),
    (56, "56_conv_standard_2D__asymmetric_input__asymmetric_kernel.py",
     C(lambda nn: nn.Conv2d(64, 128, (5, 7), bias=False), (8, 64, 512, 256))),
    (57, "57_conv_transposed_2D__square_input__square_kernel.py",
     C(lambda nn: nn.ConvTranspose2d(64, 64, 3, bias=False), (8, 64, 1024, 1024))),
    (58, "58_conv_transposed_3D__asymmetric_input__asymmetric_kernel.py",
     C(lambda nn: nn.ConvTranspose3d(32, 16, (3, 5, 7), bias=False), (16, 32, 16, 32, 64))),
    (59, "59_conv_standard_3D__asymmetric_input__square_kernel.py",
     C(lambda nn: nn.Conv3d(3, 64, (3, 3, 1), bias=False), (16, 3, 256, 256, 10))),
    (60, "60_conv_standard_3D__square_input__asymmetric_kernel.py",
     C(lambda nn: nn.Conv3d(3, 64, (3, 5, 7), bias=False), (16, 3, 64, 64, 64))),
    (61, "61_conv_transposed_3D__square_input__square_kernel.py",
     C(lambda nn: nn.ConvTranspose3d(48, 48, (3, 3, 3), bias=False), (8, 48, 64, 64, 64))),
    (62, "62_conv_standard_2D__square_input__asymmetric_kernel.py",
     C(lambda nn: nn.Conv2d(32, 64, (5, 9), bias=False), (8, 32, 512, 512))),
    (63, "63_conv_standard_2D__square_input__square_kernel.py",
     C(lambda nn: nn.Conv2d(16, 128, (3, 3), bias=False), (16, 16, 1024, 1024))),
    (64, "64_conv_transposed_1D.py", C(lambda nn: nn.ConvTranspose1d(128, 128, 3, bias=False), (64, 128, 65536))),
    (65, "65_conv_transposed_2D__square_input__asymmetric_kernel.py",
     C(lambda nn: nn.ConvTranspose2d(64, 64, (3, 7), bias=False), (8, 64, 512, 512))),
    (66, "66_conv_standard_3D__asymmetric_input__asymmetric_kernel.py",
     C(lambda nn: nn.Conv3d(3, 64, (3, 5, 7), bias=False), (8, 3, 16, 128, 128))),
    (67, "67_conv_standard_1D.py", C(lambda nn: nn.Conv1d(64, 128, 3, bias=False), (32, 64, 131072))),
    (68, "68_conv_transposed_3D__square_input__asymmetric_kernel.py",
     C(lambda nn: nn.ConvTranspose3d(32, 64, (3, 5, 5), bias=False), (16, 32, 64, 64, 64))),
    (69, "69_conv_transposed_2D__asymmetric_input__asymmetric_kernel.py",
     C(lambda nn: nn.ConvTranspose2d(64, 128, (3, 5), bias=False), (64, 64, 128, 256))),
    (70, "70_conv_transposed_3D__asymmetric_input__square_kernel.py",
     C(lambda nn: nn.ConvTranspose3d(48, 24, (3, 3, 3), bias=False), (8, 48, 96, 96, 96))),
    (71, "71_conv_transposed_2D__asymmetric_input__square_kernel.py",
     C(lambda nn: nn.ConvTranspose2d(32, 32, 3, bias=False), (8, 32, 512, 1024))),
    (72, "72_conv_transposed_3D_asymmetric_input_asymmetric_kernel___strided_padded_grouped_.py",
     C(lambda nn: nn.ConvTranspose3d(32, 32, (3, 5, 7), stride=(2, 2, 2), padding=(1, 2, 3), output_padding=(1, 1, 1),
                                     groups=4, bias=False), (8, 32, 12, 24, 48))),
    (73, "73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped.py",
     C(lambda nn: nn.ConvTranspose3d(32, 32, (3, 3, 3), stride=2, padding=1, groups=4, bias=False), (4, 32, 32, 64, 128))),
    (74, "74_conv_transposed_1D_dilated.py",
     C(lambda nn: nn.ConvTranspose1d(32, 64, 5, stride=1, padding=0, dilation=3, bias=False), (32, 32, 131072))),
    (75, "75_conv_transposed_2D_asymmetric_input_asymmetric_kernel_strided__grouped____padded____dilated__.py",
     C(lambda nn: nn.ConvTranspose2d(32, 64, (3, 5), stride=(2, 3), padding=(1, 2), dilation=(2, 1), groups=4, bias=False),
       (16, 32, 128, 256))),
    (76, "76_conv_standard_1D_dilated_strided__.py",
     C(lambda nn: nn.Conv1d(64, 128, 3, stride=3, dilation=4, bias=False), (64, 64, 524280))),
    (77, "77_conv_transposed_3D_square_input_square_kernel___padded____dilated____strided__.py",
     C(lambda nn: nn.ConvTranspose3d(32, 64, (3, 3, 3), stride=2, padding=1, dilation=2, bias=False), (16, 32, 16, 32, 32))),
    (78, "78_conv_transposed_2D_asymmetric_input_asymmetric_kernel___padded__.py",
     C(lambda nn: nn.ConvTranspose2d(32, 32, (3, 7), stride=(1, 1), padding=(1, 3), bias=False), (8, 32, 512, 1024))),
    (79, "79_conv_transposed_1D_asymmetric_input_square_kernel___padded____strided____dilated__.py",
     C(lambda nn: nn.ConvTranspose1d(32, 64, 3, stride=2, padding=1, dilation=2, bias=False), (16, 32, 131072))),
    (80, "80_conv_standard_2D_square_input_asymmetric_kernel___dilated____padded__.py",
     C(lambda nn: nn.Conv2d(32, 64, (5, 9), stride=1, padding=(2, 4), dilation=(2, 3), bias=False), (8, 32, 512, 512))),
    (81, "81_conv_transposed_2D_asymmetric_input_square_kernel___dilated____padded____strided__.py",
     C(lambda nn: nn.ConvTranspose2d(32, 64, 3, stride=5, padding=1, dilation=2, bias=False), (16, 32, 64, 128))),
    (82, "82_conv_depthwise_2D_square_input_square_kernel.py",
     C(lambda nn: nn.Conv2d(64, 64, 3, stride=1, padding=0, groups=64, bias=False), (16, 64, 512, 512))),
    (83, "83_conv_depthwise_2D_square_input_asymmetric_kernel.py",
     C(lambda nn: nn.Conv2d(8, 8, kernel_size=(3, 1), stride=1, padding=0, dilation=1, groups=8, bias=False), (64, 8, 512, 512))),
    (84, "84_conv_depthwise_2D_asymmetric_input_square_kernel.py",
     C(lambda nn: nn.Conv2d(128, 128, kernel_size=(3, 3), stride=1, padding=0, groups=128, bias=False), (64, 128, 256, 512))),
    (85, "85_conv_depthwise_2D_asymmetric_input_asymmetric_kernel.py",
     C(lambda nn: nn.Conv2d(128, 128, (3, 7), stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=128, bias=False),
       (32, 128, 128, 256))),
    (86, "86_conv_depthwise_separable_2D.py",
     C(lambda nn: [nn.Conv2d(64, 64, 3, stride=1, padding=1, dilation=1, groups=64, bias=False),
                   nn.Conv2d(64, 128, kernel_size=1, bias=False)], (16, 64, 512, 512))),
    (87, "87_conv_pointwise_2D.py",
     C(lambda nn: nn.Conv2d(64, 128, kernel_size=1, stride=1, padding=0, bias=False), (16, 64, 1024, 1024))),
]
PROBLEMS = sorted([Problem(n, f, h, m) for n, f, h, m in _T] +
                  [Problem(n, f, "ak_conv" + (" (depthwise, then pointwise)" if n == 86 else ""), m) for n, f, m in _CONVS],
                  key=lambda q: q.num)
assert len(PROBLEMS) == 100 and len({q.num for q in PROBLEMS}) == 100
