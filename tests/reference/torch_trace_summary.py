#!/usr/bin/env python3
"""What a torch.profiler Chrome trace says the GPU ran in its profiled steps, computed with the
standard library alone: the independent reference of Stepscope's trace importer.

A kernel (cat "kernel") or copy/set ("gpu_memcpy", "gpu_memset") counts when the CUDA call
that launched it (the "cuda_runtime"/"cuda_driver" event with the same args.correlation)
started inside a ProfilerStep#N annotation's span. Prints JSON: the steps; per kernel name its
count and total duration in microseconds (the trace's own units, summed as written); per step
the GPU span (first start to last end of its kernels and copies) and busy time (their union);
the count and total of copies and sets.

Also the operators (cat "cpu_op") of the profiled steps, as Stepscope's operator view groups
them: per (annotation path, operator name, "Input Dims") the calls, total CPU time, self CPU
time (total less the operators nested directly in it on the same thread), and the GPU time of
the kernels each launched. A kernel belongs to the operator whose "External id" its launch
carries (the runtime event's args; Stepscope ties them by the launch's enclosing operator
instead); kernels whose launch names no operator are listed per path as "outside operators".
The annotation path is the record_function annotations (ProfilerStep#N left out) open at the
operator's start on its own thread, or, on a thread without annotations (autograd's), on the
thread of the steps. "launch_cpu_us": the time of the CUDA runtime/driver calls the operator
made itself (by External id), which torch.profiler's key_averages also takes out of Self CPU.

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


def shapes_text(dims):
    return json.dumps(dims, separators=(", ", ": "))


def operators(events, steps, step_of):
    """The "operators", "outside_operators", "operator_calls" and "measured_cpu_us" members."""
    annotations = {}
    for e in events:
        if e.get("cat") == "user_annotation":
            annotations.setdefault(e["tid"], []).append(e)
    step_threads = {e["tid"] for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")}
    step_thread = next(iter(step_threads)) if len(step_threads) == 1 else None

    def path_at(tid, ts):
        own = annotations.get(tid) or annotations.get(step_thread, [])
        open_ = [a for a in own if a["ts"] <= ts < a["ts"] + a["dur"] and not a["name"].startswith("ProfilerStep#")]
        open_.sort(key=lambda a: (a["ts"], -a["dur"]))
        return [a["name"] for a in open_]

    def in_steps(ts):
        return any(first <= ts < last for _, first, last in steps)

    ops = [e for e in events if e.get("cat") == "cpu_op" and in_steps(e["ts"])]
    # Direct children on the same thread, by nesting of [ts, ts + dur].
    children_us = {}
    by_thread = {}
    for op in ops:
        by_thread.setdefault(op["tid"], []).append(op)
    for thread_ops in by_thread.values():
        thread_ops.sort(key=lambda o: (o["ts"], -o["dur"]))
        stack = []
        for op in thread_ops:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= op["ts"]:
                stack.pop()
            if stack:
                parent = stack[-1]
                children_us[id(parent)] = children_us.get(id(parent), 0.0) + op["dur"]
                op["_parent"] = parent
            stack.append(op)
    by_external = {op["args"]["External id"]: op for op in ops if "External id" in op.get("args", {})}
    launches = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launches[e["args"]["correlation"]] = e

    groups = {}

    def group_of(op):
        key = (tuple(path_at(op["tid"], op["ts"])), op["name"], shapes_text(op["args"].get("Input Dims", [])))
        if key not in groups:
            groups[key] = {"range_path": list(key[0]), "name": key[1], "input_shapes": key[2], "calls": 0,
                           "total_cpu_us": 0.0, "self_cpu_us": 0.0, "self_gpu_us": 0.0, "total_gpu_us": 0.0,
                           "launch_cpu_us": 0.0, "kernels": {}}
        return groups[key]

    for op in ops:
        g = group_of(op)
        g["calls"] += 1
        g["total_cpu_us"] += op["dur"]
        g["self_cpu_us"] += op["dur"] - children_us.get(id(op), 0.0)
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver"):
            op = by_external.get(e.get("args", {}).get("External id"))
            if op is not None:
                group_of(op)["launch_cpu_us"] += e["dur"]
    outside = {}
    for e in events:
        cat = e.get("cat")
        if cat not in ("kernel", "gpu_memcpy", "gpu_memset") or step_of(e) is None:
            continue
        launch = launches[e["args"]["correlation"]]
        op = by_external.get(launch["args"].get("External id"))
        name = e["name"] if cat == "kernel" else cat
        if op is None:
            path = tuple(path_at(launch["tid"], launch["ts"]))
            kernels = outside.setdefault(path, {})
        else:
            g = group_of(op)
            g["self_gpu_us"] += e["dur"]
            kernels = g["kernels"]
            while op is not None:  # the operator and every one it is nested in
                group_of(op)["total_gpu_us"] += e["dur"]
                op = op.get("_parent")
        k = kernels.setdefault(name, {"count": 0, "total_us": 0.0})
        k["count"] += 1
        k["total_us"] += e["dur"]
    ordered = sorted(groups.values(), key=lambda g: (g["range_path"], g["name"], g["input_shapes"]))
    return {"operators": ordered,
            "outside_operators": [{"range_path": list(p), "kernels": k} for p, k in sorted(outside.items())],
            "operator_calls": len(ops),
            "measured_cpu_us": sum(last - first for _, first, last in steps)}


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
    result.update(operators(events, steps, step_of))
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
