import sys, os, torch, ctypes
sys.path.insert(0, os.path.join(os.getcwd(), "bench", "kernelbench"))
import run as R
import problems as P
lib = os.path.join(os.getcwd(), "build", "libamdkit_kb.so")
R.build_lib(lib)
ak = R.Amdkit(lib)
N = 4096
a = torch.rand(N, N, device="cuda"); b = torch.rand(N, N, device="cuda"); c = torch.empty(N, N, device="cuda")
d = P.akdt(torch, torch.float32)
def ours():
    ak.kb_gemm(d, P.p(a), P.p(b), P.p(c), N, N, N, 0, 0, 1, 0, 0, 0, 1.0, None)
def theirs():
    return a @ b
for f in (ours, theirs, ours, theirs):
    f()
torch.cuda.synchronize()
