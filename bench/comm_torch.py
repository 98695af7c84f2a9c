"""torch.distributed (NCCL) peer of bench/bench_comm.c: all-reduce (sum) and
all-gather of f32 from 8 KiB to --max bytes, one process per GPU (mp.spawn),
timed the same way: per trial, every rank times `iters` back-to-back calls on
its current stream with CUDA events after a barrier; a trial's time is the
slowest rank's; five trials. busbw as nccl-tests computes it.

    python3 bench/comm_torch.py [--ranks N] [--max BYTES] out.json
"""
import argparse
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

TRIALS = 5


def iters_for(b, quick):
    if quick:
        return 3
    return max(10, min(1000, int(1e9 / b)))


def worker(rank, n, maxb, quick, port, q):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n, device_id=torch.device("cuda", rank))
    rows = []
    for op in ("all_reduce", "all_gather"):
        b = 8 << 10
        while b <= maxb:
            count = b // 4 if op == "all_reduce" else b // 4 // n
            send = torch.full((count,), float(rank + 1), device="cuda", dtype=torch.float32)
            recv = torch.empty(count * (1 if op == "all_reduce" else n), device="cuda", dtype=torch.float32)

            def call():
                if op == "all_reduce":
                    dist.all_reduce(send)   # in place, like NCCL's usual use
                else:
                    dist.all_gather_into_tensor(recv, send)

            for _ in range(3):
                call()
            torch.cuda.synchronize()
            it = iters_for(b, quick)
            ms = []
            for _ in range(TRIALS):
                dist.barrier()
                torch.cuda.synchronize()
                e0 = torch.cuda.Event(enable_timing=True)
                e1 = torch.cuda.Event(enable_timing=True)
                e0.record()
                for _ in range(it):
                    call()
                e1.record()
                e1.synchronize()
                t = torch.tensor([e0.elapsed_time(e1)], device="cuda")
                dist.all_reduce(t, op=dist.ReduceOp.MAX)
                ms.append(t.item() / it)
            if rank == 0:
                mean = sum(ms) / len(ms)
                sd = (sum((x - mean) ** 2 for x in ms) / (len(ms) - 1)) ** 0.5
                alg = b / (mean * 1e-3) / 1e9
                bus = alg * (2.0 * (n - 1) / n if op == "all_reduce" else (n - 1) / n)
                rows.append(dict(op=op, dtype="f32", bytes=b, mean=mean, std=sd, min=min(ms), max=max(ms), num_trials=TRIALS,
                                 iters_per_trial=it, unit="ms", algbw_GBps=alg, busbw_GBps=bus))
                print(f"torch {op:11s} {b:12d} {mean * 1e3:10.1f} {alg:10.2f} {bus:10.2f}", flush=True)
            del send, recv
            b *= 2
    if rank == 0:
        q.put(rows)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=0)
    ap.add_argument("--max", type=int, default=4 << 30)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("out")
    a = ap.parse_args()
    n = a.ranks or torch.cuda.device_count()
    maxb = (1 << 20) if a.quick else a.max
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    port = 29500 + os.getpid() % 1000
    procs = [ctx.Process(target=worker, args=(r, n, maxb, a.quick, port, q)) for r in range(n)]
    for p in procs:
        p.start()
    rows = q.get(timeout=480)
    for p in procs:
        p.join()
    props = torch.cuda.get_device_properties(0)
    out = dict(hardware=props.name, device=props.name, ranks=n, backend="torch.distributed nccl",
               library=f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}", collectives=rows)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    return 0 if all(p.exitcode == 0 for p in procs) else 1


if __name__ == "__main__":
    sys.exit(main())
