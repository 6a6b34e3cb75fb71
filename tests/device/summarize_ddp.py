#!/usr/bin/env python3
"""One line per row of the DDP device runs' CSV files in DIR, for the call's summary:
single_ours.csv (stepscope-cli bench), single_torch.csv and torch_ddp.csv (ddp_reference.py),
ddp.csv and zero.csv (stepscope-cli ddp; each step against our single-GPU step), zero.memory.csv
(live memory per rank before the optimizer step) and ddp.timeline.csv (spans per lane; the
first communication spans' names). Files that are missing are passed over.

usage: summarize_ddp.py DIR
"""
import collections
import csv
import os
import sys


def rows(d, name):
    path = os.path.join(d, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def main() -> int:
    d = sys.argv[1]
    single = [float(r["total_mean_ms"]) for r in rows(d, "single_ours.csv") if r.get("total_mean_ms")]
    for r in rows(d, "single_ours.csv"):
        print("ours single GPU:", r.get("status"), r.get("total_mean_ms"), "ms")
    for name in ("single_torch.csv", "torch_ddp.csv"):
        for r in rows(d, name):
            print(r["impl"], "x" + r["nproc"], r["step_ms"], "ms +-", r["step_std_ms"])
    for name in ("ddp.csv", "zero.csv"):
        for r in rows(d, name):
            ratio = f"{float(r['step_ms']) / single[0]:.3f}x single" if single and r["step_ms"] else ""
            print(f"{name[:-4]} {r['variant']:9} {r['bucket_mb'] or '-':>6} MiB {r.get('optimizer', ''):6} "
                  f"x{r['nproc']} {r['status']}: step {r['step_ms']:.8} fwd {r['forward_ms']:.7} "
                  f"bwd {r['backward_ms']:.7} comm {r['comm_ms']:.7} exposed {r['exposed_comm_ms']:.7} "
                  f"opt {r['optimizer_ms']:.7} {ratio} diff {r.get('max_param_diff', '')} {r['message'][:80]}")
    gib = 2**30
    for r in rows(d, "zero.memory.csv"):
        if r["point"] == "before_optimizer_step":
            print(f"memory {r['optimizer']:6} rank {r['rank']} before the optimizer step: live "
                  f"{int(r['total_bytes']) / gib:.3f} GiB, state {int(r['optimizer_state_bytes']) / gib:.3f}")
    timeline = rows(d, "ddp.timeline.csv")
    if timeline:
        spans = collections.Counter((r["variant"], r["bucket_mb"], r["rank"], r["lane"]) for r in timeline)
        print("timeline spans per (variant, bucket, rank, lane):", dict(spans))
        print("first communication spans:", [r["name"] for r in timeline if r["lane"] == "communication"][:3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
