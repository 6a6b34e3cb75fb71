#!/usr/bin/env python3
"""One line per row of the DDP device runs' CSV files in DIR, for the call's summary:
single_ours.csv (stepscope-cli bench), single_torch.csv and torch_ddp.csv (ddp_reference.py),
ddp.csv and zero.csv (stepscope-cli ddp; each step against our single-GPU step), zero.memory.csv
(live memory per rank before the optimizer step), ddp.ranks.csv and zero.ranks.csv (each rank's own
times: the straggler picture, the rank that computes longest and how long the others wait for it)
and ddp.timeline.csv (spans per lane; the first communication spans' names). Files that are
missing are passed over.

usage: summarize_ddp.py DIR
"""
import collections
import csv
import os
import sys


def rows(d, name):
    path = os.path.join(d, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def stragglers(what, ranks):
    """Per row: each rank's forward + backward, its exposed communication (the wait at the
    collectives, in which a fast rank waits for the slowest) and its step."""
    rows_of = collections.defaultdict(list)
    for r in ranks:
        rows_of[(r["variant"], r["bucket_mb"], r.get("optimizer", ""))].append(r)
    for (variant, bucket, optimizer), rs in rows_of.items():
        rs.sort(key=lambda r: int(r["rank"]))
        compute = [float(r["forward_ms"]) + float(r["backward_ms"]) for r in rs if r["forward_ms"]]
        exposed = [float(r["exposed_comm_ms"]) for r in rs if r["exposed_comm_ms"]]
        if not compute or len(compute) != len(exposed):
            continue
        steps = [float(r["step_ms"]) for r in rs]
        slow = max(range(len(compute)), key=compute.__getitem__)
        print(f"ranks {what} {variant:9} {bucket or '-':>6} MiB {optimizer:6}: fwd+bwd "
              f"{' '.join(f'{c:.1f}' for c in compute)} ms (spread {max(compute) - min(compute):.1f}, longest rank {slow}); "
              f"exposed comm {' '.join(f'{e:.1f}' for e in exposed)} ms; step "
              f"{' '.join(f'{s:.1f}' for s in steps)} ms")


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
    for name in ("ddp.ranks.csv", "zero.ranks.csv"):
        stragglers(name[:-10], rows(d, name))
    timeline = rows(d, "ddp.timeline.csv")
    if timeline:
        spans = collections.Counter((r["variant"], r["bucket_mb"], r["rank"], r["lane"]) for r in timeline)
        print("timeline spans per (variant, bucket, rank, lane):", dict(spans))
        print("first communication spans:", [r["name"] for r in timeline if r["lane"] == "communication"][:3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
