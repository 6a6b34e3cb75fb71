#!/usr/bin/env python3
"""torch.profiler's operator table (key_averages) on the model our engine runs: the independent
reference for `stepscope-cli bench --profile ops`.

The model and optimizer are engine_mirror.py's, the engine's operators one for one, with its
range names as record_function annotations; the step protocol is the benchmark's (warm-up steps
outside the profiler, then the measured ones inside it). Operators are grouped by name and input
shapes, as key_averages(group_by_input_shape=True) does; GPU time is the time of the kernels an
operator launched itself (self) and with its nested operators (total), as torch.profiler
attributes them through the launches' correlation ids.

Usage (GPU machine, or a CPU with --device cpu): operator_profile_reference.py --model small \
    --context 256 --batch 4 --mode train --warmup 5 --steps 10 --csv torch_operators.csv
Writes, per (operator, input shapes), totals over the measured steps:
    Operator,Input Shapes,Calls,Self CPU (ns),Total CPU (ns),Self GPU (ns),Total GPU (ns)
and prints the measured steps' wall time beside the sum of self CPU times.
"""
import argparse
import csv
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_model as rm  # noqa: E402
from engine_mirror import ChunkedAdamW, EngineMirrorLM, record  # noqa: E402


def device_time(event, self_time):
    """Self or total GPU microseconds of a key_averages row, under PyTorch 1.x's and 2.x's names."""
    for name in (("self_device_time_total", "self_cuda_time_total") if self_time
                 else ("device_time_total", "cuda_time_total")):
        if hasattr(event, name):
            return getattr(event, name)
    return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="small", choices=sorted(rm.PRESETS))
    ap.add_argument("--context", type=int, default=256)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--mode", default="train", choices=["forward", "forward-backward", "train"])
    ap.add_argument("--precision", default="fp32", choices=["fp32", "bf16"])
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--csv", required=True)
    args = ap.parse_args()
    rm.disable_tf32()
    device = torch.device(args.device)
    cfg = rm.PRESETS[args.model]
    torch.manual_seed(0)
    model = EngineMirrorLM(cfg, args.context, device)
    optimizer = ChunkedAdamW(model.parameters()) if args.mode == "train" else None
    x = torch.randint(0, cfg["vocab_size"], (args.batch, args.context), device=device)
    y = torch.randint(0, cfg["vocab_size"], (args.batch, args.context), device=device)
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)

    def step():
        model.zero_grad(set_to_none=True)
        with record("step"):
            with record("forward"):
                with torch.autocast(args.device, dtype=torch.bfloat16, enabled=args.precision == "bf16"):
                    logits = model(x)
                    with record("loss"):
                        loss = F.cross_entropy(logits.reshape(-1, cfg["vocab_size"]).float(), y.reshape(-1))
            if args.mode != "forward":
                with record("backward"):
                    loss.backward()
            if optimizer is not None:
                with record("optimizer step"):
                    optimizer.step()
            sync()

    for _ in range(args.warmup):
        step()
    # The same steps unprofiled first: torch.profiler's own overhead, the reference for ours.
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    plain_ns = (time.perf_counter() - start) * 1e9
    activities = [torch.profiler.ProfilerActivity.CPU]
    if args.device == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        start = time.perf_counter()
        for _ in range(args.steps):
            step()
        wall_ns = (time.perf_counter() - start) * 1e9
    rows = prof.key_averages(group_by_input_shape=True)
    with open(args.csv, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["Operator", "Input Shapes", "Calls", "Self CPU (ns)", "Total CPU (ns)", "Self GPU (ns)",
                      "Total GPU (ns)", "Steps"])
        for e in sorted(rows, key=lambda e: -e.self_cpu_time_total):
            out.writerow([e.key, str(e.input_shapes), e.count, f"{e.self_cpu_time_total * 1000:.0f}",
                          f"{e.cpu_time_total * 1000:.0f}", f"{device_time(e, True) * 1000:.0f}",
                          f"{device_time(e, False) * 1000:.0f}", args.steps])
    self_cpu = sum(e.self_cpu_time_total for e in rows) * 1000
    print(f"wrote {args.csv}: {len(rows)} (operator, shapes) rows from torch {torch.__version__}; "
          f"{args.steps} measured steps of {wall_ns / args.steps / 1e6:.2f} ms wall, "
          f"self CPU summed {self_cpu / args.steps / 1e6:.2f} ms a step; unprofiled {plain_ns / args.steps / 1e6:.2f} ms "
          f"(torch.profiler's overhead {wall_ns / plain_ns:.3f}x)")


if __name__ == "__main__":
    main()
