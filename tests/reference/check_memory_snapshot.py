#!/usr/bin/env python3
"""Checks a memory snapshot written by `stepscope-cli bench --profile memory` on a GPU.

Usage (GPU machine): check_memory_snapshot.py SNAPSHOT.pickle PEAKS.csv [--html OUT.html]

1. It loads with Python's pickle and has what torch.cuda.memory._dump_snapshot writes:
   segments and per-device traces of alloc / free events.
2. memory_viz renders it (torch.cuda._memory_viz.trace_plot, what the web page runs).
3. Replaying the trace (alloc +size, free_completed -size, from the blocks live at the
   first entry) gives the highest allocated total; it is compared with the "overall" peak of
   our own timeline (PEAKS.csv), which comes from c10's memory-reporting hook instead.
Exit status 1 when a check fails.
"""
import argparse
import csv
import pickle
import sys


def replayed_peak(snapshot, device=0):
    trace = snapshot["device_traces"][device]
    live = {}
    total = 0
    peak = 0
    for entry in trace:
        action = entry["action"]
        if action == "alloc":
            live[entry["addr"]] = entry["size"]
            total += entry["size"]
            peak = max(peak, total)
        elif action == "free_completed" and entry["addr"] in live:
            total -= live.pop(entry["addr"])
    return peak, len(trace)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("snapshot")
    ap.add_argument("peaks")
    ap.add_argument("--html")
    args = ap.parse_args()
    with open(args.snapshot, "rb") as f:
        snapshot = pickle.load(f)
    missing = [k for k in ("segments", "device_traces") if k not in snapshot]
    if missing:
        print(f"FAIL: snapshot lacks {missing}; keys: {sorted(snapshot)}")
        return 1
    peak, entries = replayed_peak(snapshot)
    actions = sorted({e["action"] for e in snapshot["device_traces"][0]})
    print(f"snapshot: {len(snapshot['segments'])} segments, {entries} trace entries on device 0, actions {actions}")
    if entries == 0:
        print("FAIL: no trace entries")
        return 1
    from torch.cuda import _memory_viz
    html = _memory_viz.trace_plot(snapshot)
    if args.html:
        with open(args.html, "w") as f:
            f.write(html)
    print(f"memory_viz trace_plot: {len(html)} characters of HTML")
    with open(args.peaks, newline="") as f:
        rows = {row["Peak"]: row for row in csv.DictReader(f)}
    ours = float(rows["overall"]["Allocated (bytes)"])
    print(f"highest allocated: snapshot trace {peak / 2**20:.1f} MiB, our timeline {ours / 2**20:.1f} MiB, "
          f"ratio {ours / peak:.4f}")
    return 0 if abs(ours / peak - 1) <= 0.01 else 1


if __name__ == "__main__":
    sys.exit(main())
