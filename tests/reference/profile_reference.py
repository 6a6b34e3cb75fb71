#!/usr/bin/env python3
"""PyTorch's own profiler (torch.profiler / Kineto) on the model our engine runs, for
checking our CUPTI kernel summaries against an independent collector.

The model is engine_mirror.py's, the engine's operators one for one, so both sides launch
the same ATen and cuBLAS kernels. Ranges are record_function annotations
with the engine's names. A kernel belongs to the annotations that were open when the
runtime call that launched it ran (matched by Kineto's correlation id): the same rule as
the engine, implemented here independently from the exported Chrome trace.

Usage (GPU machine): profile_reference.py --model small --context 256 --mode forward \
    --warmup 5 --steps 10 --csv torch_kernels.csv
Writes: Range,Instances,Total Time (ns),Name -- "measured window" covers all measured steps.
"""
import argparse
import collections
import csv
import json
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_model as rm  # noqa: E402
from engine_mirror import ChunkedAdamW, EngineMirrorLM, record  # noqa: E402

RANGES = ("forward", "loss", "backward", "optimizer step", "norm", "attention", "feed-forward", "lm head",
          "attention scores", "softmax", "final matmul")


def copy_name(event):
    """Kineto's memcpy/memset events under the engine's names for them."""
    if event.get("cat") == "gpu_memset":
        return "[CUDA memset]"
    kind = event["name"]
    for kineto, ours in (("HtoD", "Host-to-Device"), ("DtoH", "Device-to-Host"), ("DtoD", "Device-to-Device")):
        if kineto in kind:
            return f"[CUDA memcpy {ours}]"
    return "[CUDA memcpy]"


def kernels_by_range(trace_path, measured_steps):
    with open(trace_path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
    launches = {e["args"]["correlation"]: e["ts"] for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    annotations = [e for e in events if e.get("cat") == "user_annotation"]
    steps = [e for e in annotations if e["name"] == "measured step"]
    if len(steps) != measured_steps:
        cats = sorted({e.get("cat") for e in events})
        raise SystemExit(f"found {len(steps)} measured steps in the trace, expected {measured_steps} (categories: {cats})")

    def open_at(span, ts):
        return span["ts"] <= ts <= span["ts"] + span["dur"]

    table = collections.defaultdict(lambda: [0, 0.0])
    unattributed = 0
    for event in gpu:
        launched = launches.get(event.get("args", {}).get("correlation"))
        if launched is None:
            unattributed += 1
            continue
        if not any(open_at(s, launched) for s in steps):
            continue
        name = event["name"] if event["cat"] == "kernel" else copy_name(event)
        ranges = {"measured window"} | {a["name"] for a in annotations if a["name"] in RANGES and open_at(a, launched)}
        for r in ranges:
            row = table[(r, name)]
            row[0] += 1
            row[1] += event["dur"] * 1000.0  # us -> ns
    return table, unattributed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="small", choices=sorted(rm.PRESETS))
    ap.add_argument("--context", type=int, default=256)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--mode", default="forward", choices=["forward", "forward-backward", "train"])
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--csv", required=True)
    args = ap.parse_args()
    rm.disable_tf32()
    device = torch.device("cuda")
    cfg = rm.PRESETS[args.model]
    torch.manual_seed(0)
    model = EngineMirrorLM(cfg, args.context, device)
    optimizer = ChunkedAdamW(model.parameters()) if args.mode == "train" else None
    x = torch.randint(0, cfg["vocab_size"], (args.batch, args.context), device=device)
    y = torch.randint(0, cfg["vocab_size"], (args.batch, args.context), device=device)

    def step(name):
        model.zero_grad(set_to_none=True)
        with record(name):
            with record("forward"):
                logits = model(x)
                with record("loss"):
                    loss = F.cross_entropy(logits.reshape(-1, cfg["vocab_size"]), y.reshape(-1))
            if args.mode != "forward":
                with record("backward"):
                    loss.backward()
            if optimizer is not None:
                with record("optimizer step"):
                    optimizer.step()
            torch.cuda.synchronize()

    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(args.warmup):
            step("warm-up step")
        for _ in range(args.steps):
            step("measured step")
    trace = os.path.join(tempfile.mkdtemp(), "torch_trace.json")
    prof.export_chrome_trace(trace)
    table, unattributed = kernels_by_range(trace, args.steps)
    with open(args.csv, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["Range", "Instances", "Total Time (ns)", "Name"])
        for (range_name, kernel), (count, total) in sorted(table.items(), key=lambda kv: (kv[0][0], -kv[1][1])):
            out.writerow([range_name, count, f"{total:.0f}", kernel])
    print(f"wrote {args.csv}: {len(table)} (range, kernel) rows from torch {torch.__version__}; "
          f"{unattributed} GPU events without a launch record")


if __name__ == "__main__":
    main()
