#!/usr/bin/env python3
"""PyTorch's side of `stepscope-cli collectives`: torch.distributed.all_reduce timed as
nccl-tests and Stepscope time it, on the same GPUs (NCCL) or CPUs (Gloo).

    torchrun --standalone --nproc-per-node 2 tests/reference/allreduce_reference.py \
        --backend nccl --sizes 1MB,10MB,100MB,1GB --dtype fp32 --warmup 5 --iters 20 --csv ref.csv

Per size: a tensor of size bytes on GPU LOCAL_RANK (NCCL) or in memory (Gloo), `warmup`
all-reduces, a barrier, then `iters` all-reduces (async_op=False, as torch.distributed users call
it), timed between two CUDA events on the current stream (NCCL) or by the wall clock (Gloo, whose
all-reduce returns when done); time = elapsed / iters, the slowest rank's (all-reduced max).
algbw = size / time, busbw = algbw * 2(n-1)/n (nccl-tests' all-reduce factor). Sizes take KB,
MB, GB (10^3) or KiB, MiB, GiB (2^10). Rank 0 writes the CSV:
op,backend,nproc,size_bytes,count,type,time_us,algbw_gbps,busbw_gbps
"""

import argparse
import csv
import os
import re
import sys
import time

import torch
import torch.distributed as dist

UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30}
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def size_bytes(text: str) -> int:
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).upper() not in UNITS:
        raise SystemExit(f"--sizes: cannot read '{text}'")
    return int(float(m.group(1)) * UNITS[m.group(2).upper()])


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="nccl", choices=["nccl", "gloo"])
    p.add_argument("--sizes", default="1MB,10MB,100MB,1GB")
    p.add_argument("--dtype", default="fp32", choices=sorted(DTYPES))
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--csv", default="")
    a = p.parse_args()
    gpu = a.backend == "nccl"
    if gpu:
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    else:
        dist.init_process_group("gloo")
    device = "cuda" if gpu else "cpu"
    n = dist.get_world_size()
    dtype = DTYPES[a.dtype]
    rows = []
    for size in (size_bytes(s) for s in a.sizes.split(",")):
        count = size // torch.tensor([], dtype=dtype).element_size()
        x = torch.ones(count, dtype=dtype, device=device)
        for _ in range(a.warmup):
            dist.all_reduce(x)
        dist.barrier()
        if gpu:
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        else:
            t0 = time.perf_counter()
        for _ in range(a.iters):
            dist.all_reduce(x)
        if gpu:
            end.record()
            torch.cuda.synchronize()
            per_iter_ms = start.elapsed_time(end) / a.iters
        else:
            per_iter_ms = (time.perf_counter() - t0) * 1e3 / a.iters
        ms = torch.tensor([per_iter_ms], device=device, dtype=torch.float64)
        dist.all_reduce(ms, op=dist.ReduceOp.MAX)
        time_us = ms.item() * 1e3
        algbw = size / (time_us * 1e3)  # GB/s
        rows.append(["allreduce", a.backend, n, size, count, a.dtype, f"{time_us:.3f}", f"{algbw:.3f}",
                     f"{algbw * 2 * (n - 1) / n:.3f}"])
        del x
    if dist.get_rank() == 0:
        out = open(a.csv, "w", newline="") if a.csv else sys.stdout
        w = csv.writer(out)
        w.writerow(["op", "backend", "nproc", "size_bytes", "count", "type", "time_us", "algbw_gbps", "busbw_gbps"])
        w.writerows(rows)
        if a.csv:
            out.close()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
