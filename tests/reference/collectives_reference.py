#!/usr/bin/env python3
"""PyTorch's side of `stepscope-cli collectives`: torch.distributed's all-reduce, reduce-scatter,
all-gather and broadcast timed as nccl-tests and Stepscope time them, on the same GPUs (NCCL) or
CPUs (Gloo).

    torchrun --standalone --nproc-per-node 2 tests/reference/collectives_reference.py \
        --backend nccl --ops allreduce,reducescatter,allgather,broadcast \
        --sizes 1MB,10MB,100MB,1GB --dtype fp32 --warmup 5 --iters 20 --csv ref.csv

Sizes are nccl-tests' (and Stepscope's): the buffer every rank reduces or receives in full, that
is the tensor (all-reduce, broadcast from rank 0), reduce-scatter's input, all-gather's output;
the element count is rounded down to a multiple of the ranks where each rank owns a slice.
Per op and size: `warmup` collectives, a barrier, then `iters` collectives (async_op=False, as
torch.distributed users call them), timed between two CUDA events on the current stream (NCCL)
or by the wall clock (Gloo, whose collectives return when done); time = elapsed / iters, the
slowest rank's (all-reduced max). algbw = size / time (the nominal size); busbw = algbw x 2(n-1)/n (all-reduce),
(n-1)/n (reduce-scatter, all-gather) or 1 (broadcast). Gloo has no reduce-scatter: that op is
passed over there, with a line on stderr; its all-gather fills the output's slices (all_gather). Sizes take KB, MB, GB (10^3) or KiB, MiB, GiB (2^10).
Rank 0 writes the CSV:
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
OPS = ("allreduce", "reducescatter", "allgather", "broadcast")


def size_bytes(text: str) -> int:
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).upper() not in UNITS:
        raise SystemExit(f"--sizes: cannot read '{text}'")
    return int(float(m.group(1)) * UNITS[m.group(2).upper()])


def bus_factor(op: str, n: int) -> float:
    return {"allreduce": 2 * (n - 1) / n, "reducescatter": (n - 1) / n, "allgather": (n - 1) / n}.get(op, 1.0)


def collective(op: str, count: int, n: int, dtype, device):
    """The op as a call without arguments, on buffers made once for the warm-ups and the timing."""
    if op == "allreduce":
        x = torch.ones(count, dtype=dtype, device=device)
        return lambda: dist.all_reduce(x)
    if op == "broadcast":
        x = torch.ones(count, dtype=dtype, device=device)
        return lambda: dist.broadcast(x, src=0)
    full = torch.ones(count, dtype=dtype, device=device)
    part = torch.ones(count // n, dtype=dtype, device=device)
    if op == "reducescatter":
        return lambda: dist.reduce_scatter_tensor(part, full)
    if device == "cpu":  # Gloo gathers into a list: here the output's slices, in place
        slices = list(full.chunk(n))
        return lambda: dist.all_gather(slices, part)
    return lambda: dist.all_gather_into_tensor(full, part)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="nccl", choices=["nccl", "gloo"])
    p.add_argument("--ops", default="allreduce", help="comma-separated: " + ", ".join(OPS))
    p.add_argument("--sizes", default="1MB,10MB,100MB,1GB")
    p.add_argument("--dtype", default="fp32", choices=sorted(DTYPES))
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--csv", default="")
    a = p.parse_args()
    ops = a.ops.split(",")
    for op in ops:
        if op not in OPS:
            raise SystemExit(f"--ops: '{op}' is not one of {', '.join(OPS)}")
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
    element = torch.tensor([], dtype=dtype).element_size()
    rows = []
    for op in ops:
        if op == "reducescatter" and not gpu:
            if dist.get_rank() == 0:
                print("reducescatter: Gloo has none; passed over", file=sys.stderr)
            continue
        for size in (size_bytes(s) for s in a.sizes.split(",")):
            count = size // element
            if op in ("reducescatter", "allgather"):
                count -= count % n
            run = collective(op, count, n, dtype, device)
            for _ in range(a.warmup):
                run()
            dist.barrier()
            if gpu:
                torch.cuda.synchronize()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
            else:
                t0 = time.perf_counter()
            for _ in range(a.iters):
                run()
            if gpu:
                end.record()
                torch.cuda.synchronize()
                per_iter_ms = start.elapsed_time(end) / a.iters
            else:
                per_iter_ms = (time.perf_counter() - t0) * 1e3 / a.iters
            ms = torch.tensor([per_iter_ms], device=device, dtype=torch.float64)
            dist.all_reduce(ms, op=dist.ReduceOp.MAX)
            time_us = ms.item() * 1e3
            algbw = size / (time_us * 1e3)  # GB/s, of the nominal size as nccl-tests and ours
            rows.append([op, a.backend, n, size, count, a.dtype, f"{time_us:.3f}", f"{algbw:.3f}",
                         f"{algbw * bus_factor(op, n):.3f}"])
            del run
            if gpu:
                torch.cuda.empty_cache()
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
