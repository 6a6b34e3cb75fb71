#!/usr/bin/env python3
"""How much longer backward's kernels run while a gradient collective runs beside them.

Reads the overlap picture of `stepscope-cli ddp --csv F` (F's stem + .timeline.csv: one step's
CUPTI kernels per rank, lane "compute" or "communication") and prints, per row and rank, the
backward's kernel time, the collectives' kernel time and, for the kernels that take most of
backward, their mean duration alone against overlapped by any collective kernel.

Usage: overlap_kernel_slowdown.py FILE.timeline.csv [--rank 0] [--top 8]
"""
import argparse
import collections
import csv


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("timeline")
    parser.add_argument("--rank", default="0")
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args()
    rows = collections.defaultdict(list)
    with open(args.timeline) as f:
        for r in csv.DictReader(f):
            if r["rank"] == args.rank:
                key = ", ".join(f"{k} {r[k]}" for k in ("variant", "bucket_mb", "engine", "reduce_dtype") if r.get(k))
                rows[key].append(r)
    for key, events in rows.items():
        span = lambda r: (float(r["start_ms"]), float(r["end_ms"]))
        comm = sorted(span(r) for r in events if r["lane"] != "compute")
        backward = [r for r in events if r["lane"] == "compute" and r["name"].startswith("backward")]

        def overlapped(start, end):
            return any(s < end and e > start for s, e in comm)

        per_kernel = collections.defaultdict(lambda: {"alone": [], "overlapped": []})
        for r in backward:
            start, end = span(r)
            name = r["name"].split(": ", 1)[-1]
            per_kernel[name]["overlapped" if overlapped(start, end) else "alone"].append(end - start)
        total = sum(e - s for r in backward for s, e in [span(r)])
        print(f"{key}, rank {args.rank}: backward kernels {total:.2f} ms, {len(comm)} collective kernels "
              f"{sum(e - s for s, e in comm):.2f} ms")
        ranked = sorted(per_kernel.items(), key=lambda kv: -sum(kv[1]["alone"] + kv[1]["overlapped"]))
        for name, t in ranked[:args.top]:
            mean = lambda xs: sum(xs) / len(xs) * 1000 if xs else float("nan")
            ratio = mean(t["overlapped"]) / mean(t["alone"]) if t["alone"] and t["overlapped"] else float("nan")
            print(f"  {name[:60]:60s} alone {len(t['alone']):4d} x {mean(t['alone']):7.1f} us | overlapped "
                  f"{len(t['overlapped']):4d} x {mean(t['overlapped']):7.1f} us | x{ratio:.2f}")


if __name__ == "__main__":
    main()
