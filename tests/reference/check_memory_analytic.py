#!/usr/bin/env python3
"""The analytic check of a memory profile: what the configuration implies, in the timeline.

Usage: check_memory_analytic.py RUN.csv   (from `stepscope-cli bench --mode train --profile memory --csv RUN.csv`)

For every fp32 train row of RUN.csv, from RUN.<label>.memory_peaks.csv ("after optimizer
step") and RUN.<label>.largest_allocations.csv:
- parameter, gradient and AdamW state bytes against 4, 4 and 8 bytes per parameter. The CUDA
  caching allocator hands out 512-byte multiples, and a request over 1 MiB may get up to
  1 MiB more rather than split off a remainder it cannot reuse, so the timeline may exceed
  the exact figure by at most that much per tensor (9 per layer, 3 more for the model);
- the residual stream, batch x context x d_model x 4 bytes: allocations of exactly that size
  (rounded to 512 bytes) in the forward pass, at least one per layer.
Exit status 1 when a check fails.
"""
import csv
import os
import sys

MIB = 2**20


def main():
    run = sys.argv[1]
    stem = os.path.splitext(run)[0]
    failures = 0
    with open(run, newline="") as f:
        configs = [r for r in csv.DictReader(f) if r["mode"] == "train" and r["precision"] == "fp32" and r["status"] == "ok"]
    for c in configs:
        label = f"{c['model']}-ctx{c['context']}-b{c['batch']}-{c['precision']}-{c['mode']}"
        params, layers = int(c["parameters"]), int(c["layers"])
        with open(f"{stem}.{label}.memory_peaks.csv", newline="") as f:
            after = next(r for r in csv.DictReader(f) if r["Peak"] == "after optimizer step")
        tensors = 9 * layers + 3
        for column, per_param in (("parameter", 4), ("gradient", 4), ("optimizer state", 8)):
            got = int(after[f"{column} (bytes)"])
            exact = per_param * params
            slack = (per_param // 4) * tensors * MIB
            ok = exact <= got <= exact + slack
            failures += not ok
            print(f"{label}: {column}: {got / MIB:.2f} MiB in the timeline, {per_param} x {params} parameters = "
                  f"{exact / MIB:.2f} MiB (+{(got - exact) / MIB:.2f} MiB allocator rounding) {'ok' if ok else 'FAIL'}")
        residual = int(c["batch"]) * int(c["context"]) * int(c["d_model"]) * 4
        rounded = (residual + 511) // 512 * 512
        with open(f"{stem}.{label}.largest_allocations.csv", newline="") as f:
            groups = [r for r in csv.DictReader(f) if int(r["Bytes"]) == rounded]
        forward_count = sum(int(r["Count"]) for r in groups if r["Category"] == "activation")
        steps = int(c["steps"])
        ok = forward_count >= layers * steps
        failures += not ok
        print(f"{label}: residual stream {c['batch']} x {c['context']} x {c['d_model']} x 4 B = {residual / MIB:.2f} MiB; "
              f"{forward_count} allocations of that size in {steps} measured steps "
              f"({forward_count / steps:.0f} per step, {layers} layers) {'ok' if ok else 'FAIL'}")
        for g in groups:
            print(f"    {g['Count']:>6} x {int(g['Bytes']) / MIB:.2f} MiB  {g['Category']:<12} {g['Phase']}")
    if not configs:
        print("no fp32 train rows to check")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
