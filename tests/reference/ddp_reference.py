#!/usr/bin/env python3
"""PyTorch's DDP on the reference model: the step time `stepscope-cli ddp` is compared with.

    torchrun --standalone --nproc-per-node 2 tests/reference/ddp_reference.py \
        --model xl --context 128 --batch 4 --precision fp32 --warmup 3 --steps 10 [--bucket-mb 25] [--csv F]

Each rank: the reference model (fp32 parameters, seeded alike) wrapped in
torch.nn.parallel.DistributedDataParallel (bucket_cap_mb, default 25 as PyTorch's; gradient
as bucket view off), the reference update rule with multi-tensor kernels (bench_reference's
ForeachAdamW, as the engine's AdamW), its own seeded batch of `batch` sequences. A step:
zero_grad (set_to_none), forward + loss (bf16 autocast for --precision bf16), backward (DDP
all-reduces its buckets as they fill), optimizer step, torch.cuda.synchronize(); timed on the
host with time.perf_counter around the step. Step time: mean over the measured steps, the
slowest rank's. With --nproc-per-node 1 no DDP wrapper: the single-GPU step. Rank 0 writes
impl,nproc,model,context,batch,precision,bucket_mb,step_ms,step_std_ms.
"""

import argparse
import csv
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_reference as br  # noqa: E402
import reference_model as rm  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="xl")
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--precision", default="fp32", choices=["fp32", "bf16"])
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--bucket-mb", type=float, default=25.0)
    p.add_argument("--csv", default="")
    a = p.parse_args()
    rm.disable_tf32()
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1:
        dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    rank = dist.get_rank() if world > 1 else 0
    device = torch.device("cuda", local_rank)
    model = rm.build_model(a.model, context_length=a.context, seed=0, device=device, dtype=torch.float32)
    optimizer = br.ForeachAdamW(model.parameters())
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank],
                                                          bucket_cap_mb=a.bucket_mb)
    vocab = rm.PRESETS[a.model]["vocab_size"]
    gen = torch.Generator(device=device)
    gen.manual_seed(1000 + rank)
    x = torch.randint(0, vocab, (a.batch, a.context), device=device, generator=gen)
    y = torch.randint(0, vocab, (a.batch, a.context), device=device, generator=gen)
    times = []
    for step in range(a.warmup + a.steps):
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=a.precision == "bf16"):
            loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, vocab).float(), y.reshape(-1))
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()
        if step >= a.warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    mean = torch.tensor([statistics.mean(times)], device=device, dtype=torch.float64)
    if world > 1:
        dist.all_reduce(mean, op=dist.ReduceOp.MAX)
    if rank == 0:
        out = open(a.csv, "w", newline="") if a.csv else sys.stdout
        w = csv.writer(out)
        w.writerow(["impl", "nproc", "model", "context", "batch", "precision", "bucket_mb", "step_ms", "step_std_ms"])
        w.writerow(["pytorch-ddp" if world > 1 else "pytorch-1gpu", world, a.model, a.context, a.batch, a.precision,
                    a.bucket_mb if world > 1 else "", f"{mean.item():.3f}",
                    f"{statistics.stdev(times):.3f}" if len(times) > 1 else ""])
        if a.csv:
            out.close()
    if world > 1:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
