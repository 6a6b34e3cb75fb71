#!/usr/bin/env python3
"""`stepscope-cli import`'s CSVs against the independent summaries of the same files
(torch_trace_summary.py's and memory_snapshot_summary.py's JSON): for profiles made on the spot,
where no expected file was committed.

- trace: per kernel name of the measured window, the count exactly and the total time within
  1 us (the trace's own unit; ours is summed in ns from the same microsecond values);
- snapshot: the overall peak of each device to the byte.

Usage: check_import_against_summary.py --kernels STEM.kernels.csv --trace-summary trace.json
       check_import_against_summary.py --peaks STEM.cudaD.memory_peaks.csv --snapshot-summary snap.json [--device D]
Prints what differs; exit status 1 when anything does.
"""
import argparse
import csv
import json
import sys


def check_trace(kernels_csv, summary_json):
    expected = json.load(open(summary_json))["kernels"]
    ours = {}
    with open(kernels_csv, newline="") as f:
        for row in csv.DictReader(f):
            if row["Range"] == "measured window" and not row["Name"].startswith("[CUDA mem"):
                ours[row["Name"]] = (int(row["Instances"]), int(row["Total Time (ns)"]))
    problems = []
    for name, e in expected.items():
        o = ours.get(name)
        if o is None:
            problems.append(f"missing in ours: {name[:100]} ({e['count']} launches)")
        elif o[0] != e["count"] or abs(o[1] / 1000 - e["total_us"]) > 1.0:
            problems.append(f"{name[:100]}: ours {o[0]} x, {o[1] / 1000:.3f} us; summary {e['count']} x, "
                            f"{e['total_us']:.3f} us")
    for name in set(ours) - set(expected):
        problems.append(f"only in ours: {name[:100]}")
    print(f"trace: {len(expected)} kernel names in the summary, {len(ours)} in ours, "
          f"{sum(e['count'] for e in expected.values())} launches; {len(problems)} difference(s)")
    return problems


def check_snapshot(peaks_csv, summary_json, device):
    devices = {d["device"]: d for d in json.load(open(summary_json))["devices"]}
    with open(peaks_csv, newline="") as f:
        overall = [r for r in csv.DictReader(f) if r["Peak"] == "overall"]
    if device not in devices or not overall:
        return [f"no device {device} in the summary or no overall peak in {peaks_csv}"]
    ours, theirs = int(overall[0]["Allocated (bytes)"]), devices[device]["peak_bytes"]
    print(f"snapshot device {device}: peak ours {ours:,} B, summary {theirs:,} B")
    return [] if ours == theirs else [f"peak differs: ours {ours}, summary {theirs}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels")
    ap.add_argument("--trace-summary")
    ap.add_argument("--peaks")
    ap.add_argument("--snapshot-summary")
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args()
    problems = []
    if args.kernels and args.trace_summary:
        problems += check_trace(args.kernels, args.trace_summary)
    if args.peaks and args.snapshot_summary:
        problems += check_snapshot(args.peaks, args.snapshot_summary, args.device)
    for p in problems[:30]:
        print("  " + p)
    print("agrees" if not problems else f"{len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
