#!/usr/bin/env python3
"""Small profiles of a user's PyTorch training loop, as PyTorch itself writes them: fixtures for
Stepscope's importer (`stepscope-cli import`, `stepscope --open-file`).

The loop is what a student of the course writes: the reference Transformer (tiny preset,
vocabulary 256, context 32, batch 2), cross-entropy, torch.optim.AdamW, each step inside
record_function("train_step") with "forward", "backward" and "optimizer" ranges under it.

Writes into --out:
- trace_<device>.json.gz: torch.profiler's Chrome trace (export_chrome_trace) of two active steps
  after a wait and a warm-up (2.x: ProfilerStep#2, #3, with input shapes; 1.13 without Kineto: #1,
  #2, a bare list, no shapes); on a GPU its kernels, memcpys and the ac2g flows to their launches;
- snapshot_cuda.pickle (GPU only): torch.cuda.memory._dump_snapshot() after three steps whose
  allocations were recorded (_record_memory_history) only once the model and its first batch
  existed, so blocks alive before recording began are in the snapshot's segments, not its trace;
- key_averages_<device>.txt: torch.profiler's own table by operator and input shape (to check the
  operator view against); on the CPU also key_averages_by_name_cpu.txt, every name, any shapes;
- fixtures_<device>.json: torch version, device, what was run.

Usage: make_torch_profile_fixtures.py --out DIR [--device cuda|cpu] [--steps 3]
Works with PyTorch 1.13 (CPU, Debian's python3-torch) and 2.x (CUDA).
"""
import argparse
import gzip
import json
import os
import shutil
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_model import build_model, cross_entropy  # noqa: E402

CONTEXT = 32
BATCH = 2
VOCAB = 256


def batch(generator, device):
    ids = torch.randint(VOCAB, (BATCH, CONTEXT + 1), generator=generator).to(device)
    return ids[:, :-1], ids[:, 1:]


def build(device):
    torch.manual_seed(0)
    model = build_model("tiny", context_length=CONTEXT, device=device)
    # The preset's 10000-token vocabulary only makes the fixture bigger.
    model.token_embeddings.weight.data = model.token_embeddings.weight.data[:VOCAB].clone()
    model.lm_head.weight.data = model.lm_head.weight.data[:VOCAB].clone()
    return model, torch.optim.AdamW(model.parameters(), lr=1e-3)


def train_step(model, optimizer, inputs, targets):
    with record_function("train_step"):
        with record_function("forward"):
            loss = cross_entropy(model(inputs).reshape(-1, VOCAB), targets.reshape(-1))
        with record_function("backward"):
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
        with record_function("optimizer"):
            optimizer.step()
    return loss


def step_names(trace):
    """The ProfilerStep#N the trace holds: 2.x names the two active steps #2 and #3, 1.13 #1 and #2
    (its prof.step() names a step by the one before)."""
    with gzip.open(trace, "rt") as f:
        document = json.load(f)
    events = document["traceEvents"] if isinstance(document, dict) else document  # 1.13 without Kineto: a list
    return sorted({e["name"] for e in events if e.get("name", "").startswith("ProfilerStep#")},
                  key=lambda n: int(n[13:]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--steps", type=int, default=3, help="steps of the recorded memory history (GPU)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    device = torch.device(args.device)
    gpu = device.type == "cuda"
    generator = torch.Generator().manual_seed(1)
    model, optimizer = build(device)

    # The trace: wait 1, warm-up 1, active 2 (ProfilerStep#2 and #3).
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else [])
    plain = os.path.join(args.out, f"trace_{args.device}.json")
    with profile(activities=activities, record_shapes=True, schedule=schedule(wait=1, warmup=1, active=2),
                 on_trace_ready=lambda p: p.export_chrome_trace(plain)) as prof:
        for _ in range(4):
            train_step(model, optimizer, *batch(generator, device))
            prof.step()
    with open(plain, "rb") as f, gzip.open(plain + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(plain)
    sort = "self_cuda_time_total" if gpu else "self_cpu_time_total"
    with open(os.path.join(args.out, f"key_averages_{args.device}.txt"), "w") as f:
        f.write(prof.key_averages(group_by_input_shape=True).table(sort_by=sort, row_limit=60, max_name_column_width=60))
    if not gpu:
        # A trace PyTorch wrote without Kineto (1.13's CPU builds) holds no input shapes: its
        # operators are checked against this table, every name, whatever its shapes.
        with open(os.path.join(args.out, f"key_averages_by_name_{args.device}.txt"), "w") as f:
            f.write(prof.key_averages().table(sort_by=sort, row_limit=-1, max_name_column_width=80))

    snapshot = None
    if gpu:
        # Recording starts with the model, its optimizer state and a batch already alive.
        inputs, targets = batch(generator, device)
        torch.cuda.synchronize()
        torch.cuda.memory._record_memory_history(stacks="python", max_entries=200000)
        for _ in range(args.steps):
            train_step(model, optimizer, inputs, targets)
            inputs, targets = batch(generator, device)
        torch.cuda.synchronize()
        snapshot = os.path.join(args.out, "snapshot_cuda.pickle")
        torch.cuda.memory._dump_snapshot(snapshot)
        torch.cuda.memory._record_memory_history(enabled=None)

    meta = {"torch": torch.__version__, "device": torch.cuda.get_device_name() if gpu else "cpu",
            "model": "reference Transformer, tiny preset, vocabulary 256", "context": CONTEXT, "batch": BATCH,
            "optimizer": "torch.optim.AdamW", "trace_steps": ", ".join(step_names(plain + ".gz")),
            "snapshot_steps": args.steps if gpu else 0}
    with open(os.path.join(args.out, f"fixtures_{args.device}.json"), "w") as f:
        json.dump(meta, f, indent=1)
    for name in sorted(os.listdir(args.out)):
        print(name, os.path.getsize(os.path.join(args.out, name)))


if __name__ == "__main__":
    main()
