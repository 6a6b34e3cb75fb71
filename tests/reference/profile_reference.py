#!/usr/bin/env python3
"""PyTorch's own profiler on the model our engine runs, for comparing kernel summaries.

The model is the reference (reference_model.py) with the engine's operator choices
(in-place -inf masking, torch.softmax, F.cross_entropy), so both sides launch the same
ATen kernels. Ranges are record_function annotations with the engine's names; a kernel belongs to the
annotations open when the runtime call that launched it ran (Kineto's correlation ids).

Usage (GPU machine): profile_reference.py --model small --context 256 --mode forward \
    --warmup 5 --steps 10 --csv torch_kernels.csv
Writes: Range,Instances,Total Time (ns),Name -- "measured window" for all measured steps.
"""
import argparse
import collections
import csv
import json
import math
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_model as rm  # noqa: E402

RANGES = ("forward", "backward", "optimizer step", "attention scores", "softmax", "final matmul")


def engine_attention(self, x, token_positions=None):
    """The engine's attention: same math, the engine's kernels and range names."""
    b, s, _ = x.shape
    q, k, v = (self._split_heads(p(x)) for p in (self.q_proj, self.k_proj, self.v_proj))
    positions = torch.arange(s, device=x.device)
    q, k = self.positional_encoder(q, positions), self.positional_encoder(k, positions)
    with torch.profiler.record_function("attention scores"):
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        future = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        scores.masked_fill_(future, float("-inf"))
    with torch.profiler.record_function("softmax"):
        probabilities = torch.softmax(scores, dim=-1)
    with torch.profiler.record_function("final matmul"):
        mixed = torch.matmul(probabilities, v)
    return self.output_proj(self._merge_heads(mixed))


def kernels_by_range(trace_path, measured_steps):
    """Attributes each kernel to the annotations open when its launch call ran (matched by
    the launch's correlation id), the way the engine does it, independently implemented."""
    with open(trace_path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
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
    for kernel in kernels:
        launched = launches.get(kernel.get("args", {}).get("correlation"))
        if launched is None or not any(open_at(s, launched) for s in steps):
            continue
        names = {"measured window"} | {a["name"] for a in annotations if a["name"] in RANGES and open_at(a, launched)}
        for name in names:
            row = table[(name, kernel["name"])]
            row[0] += 1
            row[1] += kernel["dur"] * 1000.0  # us -> ns
    return table


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="small")
    ap.add_argument("--context", type=int, default=256)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--mode", default="forward", choices=["forward", "forward-backward", "train"])
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--csv", required=True)
    args = ap.parse_args()
    rm.disable_tf32()
    rm.CausalMultiHeadSelfAttention.forward = engine_attention
    device = torch.device("cuda")
    cfg = rm.PRESETS[args.model]
    torch.manual_seed(0)
    model = rm.BasicsTransformerLM(cfg["vocab_size"], max(args.context, cfg["context_length"]), cfg["d_model"],
                                   cfg["num_layers"], cfg["num_heads"], cfg["d_ff"], rm.ROPE_THETA, device=device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # replaced below when training
    if args.mode == "train":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_reference import ForeachAdamW
        optimizer = ForeachAdamW(model.parameters())
    x = torch.randint(0, cfg["vocab_size"], (args.batch, args.context), device=device)
    y = torch.randint(0, cfg["vocab_size"], (args.batch, args.context), device=device)

    def step(name):
        model.zero_grad(set_to_none=True)
        with torch.profiler.record_function(name):
            with torch.profiler.record_function("forward"):
                loss = F.cross_entropy(model(x).reshape(-1, cfg["vocab_size"]), y.reshape(-1))
            if args.mode != "forward":
                with torch.profiler.record_function("backward"):
                    loss.backward()
            if args.mode == "train":
                with torch.profiler.record_function("optimizer step"):
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
    table = kernels_by_range(trace, args.steps)
    with open(args.csv, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["Range", "Instances", "Total Time (ns)", "Name"])
        for (range_name, kernel), (count, total) in sorted(table.items(), key=lambda kv: (kv[0][0], -kv[1][1])):
            out.writerow([range_name, count, f"{total:.0f}", kernel])
    print(f"wrote {args.csv}: {len(table)} (range, kernel) rows from torch {torch.__version__}")


if __name__ == "__main__":
    main()
