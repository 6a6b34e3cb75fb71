#!/usr/bin/env python3
"""What a torch.profiler Chrome trace says the GPU ran in its profiled steps, computed with the
standard library alone: the independent reference of Stepscope's trace importer.

A kernel (cat "kernel") or copy/set ("gpu_memcpy", "gpu_memset") counts when the CUDA call
that launched it (the "cuda_runtime"/"cuda_driver" event with the same args.correlation)
started inside a ProfilerStep#N annotation's span. Prints JSON: the steps; per kernel name its
count and total duration in microseconds (the trace's own units, summed as written); per step
the GPU span (first start to last end of its kernels and copies) and busy time (their union);
the count and total of copies and sets.

Usage: torch_trace_summary.py TRACE.json[.gz] [--out FILE]
"""
import argparse
import gzip
import json


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        document = json.load(f)
    return document["traceEvents"] if isinstance(document, dict) else document


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--out")
    args = parser.parse_args()
    events = [e for e in load(args.trace) if isinstance(e, dict) and e.get("ph") == "X"]
    steps = []
    for e in events:
        name = e.get("name", "")
        if e.get("cat") == "user_annotation" and name.startswith("ProfilerStep#") and name[13:].isdigit():
            steps.append((int(name[13:]), e["ts"], e["ts"] + e["dur"]))
    launches = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launches[e["args"]["correlation"]] = e["ts"]

    def step_of(event):
        start = launches.get(event.get("args", {}).get("correlation"))
        if start is None:
            return None
        for number, first, last in steps:
            if first <= start < last:
                return number
        return None

    kernels = {}
    copies = {"count": 0, "total_us": 0.0}
    intervals = {}
    for e in events:
        cat = e.get("cat")
        if cat not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        step = step_of(e)
        if step is None:
            continue
        intervals.setdefault(step, []).append((e["ts"], e["ts"] + e["dur"]))
        if cat == "kernel":
            k = kernels.setdefault(e["name"], {"count": 0, "total_us": 0.0})
            k["count"] += 1
            k["total_us"] += e["dur"]
        else:
            copies["count"] += 1
            copies["total_us"] += e["dur"]
    usage = []
    for step in sorted(intervals):
        spans = sorted(intervals[step])
        busy, reach = 0.0, spans[0][0]
        for start, end in spans:
            if end > max(start, reach):
                busy += end - max(start, reach)
            reach = max(reach, end)
        usage.append({"step": step, "span_us": reach - spans[0][0], "busy_us": busy, "activities": len(spans)})
    result = {"steps": sorted(s[0] for s in steps), "kernels": kernels, "copies_and_sets": copies, "step_usage": usage}
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
