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

Nesting is key_averages' (profiler_util's _populate_cpu_children): an operator is nested in
another when it lies within it; one that starts inside but ends after is not; of two with the
same span the first in the file holds the second.

A trace written by PyTorch without Kineto (1.13's CPU builds: a bare list of events without "cat")
is read by names: an event is an operator when its name has a namespace ("aten::", "autograd::"),
is an autograd node ("...Backward0") or is "detach"/"detach_"; otherwise it is a record_function
annotation. For such a CPU-only trace, --key-averages TABLE checks this reading against
torch.profiler's own table of the same profile (key_averages().table(), by name): per operator
over the whole trace, the calls exactly and the CPU total and self CPU time within half the last
digit the table prints; per annotation the calls and CPU total. It also writes, for the importer's
tests, "cpu_ranges" (per annotation and its parent, ProfilerStep#N named "step": the instances
starting in the steps and their total time) and "operators_outside_steps" (per name, the calls and
times of the operators that start outside every step, which key_averages counts and the steps do
not).

Usage: torch_trace_summary.py TRACE.json[.gz] [--out FILE] [--key-averages TABLE.txt]
"""
import argparse
import gzip
import json
import re
import sys

# Names of operators in a trace without categories (see above).
OPERATOR_NAME = re.compile(r"^(\w+::.*|\w+Backwards?\d*|detach_?)$")


def kind_of(event):
    """The event's category: its "cat", or, without one, "cpu_op" or "user_annotation" by name."""
    if "cat" in event:
        return event["cat"]
    return "cpu_op" if OPERATOR_NAME.match(event.get("name", "")) else "user_annotation"


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        document = json.load(f)
    return document["traceEvents"] if isinstance(document, dict) else document


def shapes_text(dims):
    return json.dumps(dims, separators=(", ", ": "))


def nest_operators(ops):
    """Direct children per thread as key_averages nests them (an operator's "_parent"); returns
    the time of each operator's direct children by id(operator). Python's sort is stable: ops in
    file order keep it at equal spans."""
    children_us = {}
    by_thread = {}
    for op in ops:
        by_thread.setdefault(op["tid"], []).append(op)
    for thread_ops in by_thread.values():
        thread_ops.sort(key=lambda o: (o["ts"], -o["dur"]))
        stack = []
        for op in thread_ops:
            end = op["ts"] + op["dur"]
            # Closed before it starts, or ends before it does (so it is not within).
            while stack and (stack[-1]["ts"] + stack[-1]["dur"] <= op["ts"] or
                             stack[-1]["ts"] + stack[-1]["dur"] < end):
                stack.pop()
            if stack:
                parent = stack[-1]
                children_us[id(parent)] = children_us.get(id(parent), 0.0) + op["dur"]
                op["_parent"] = parent
            stack.append(op)
    return children_us


def cpu_ranges(events, steps):
    """Per (annotation, parent annotation) the instances starting in a step and their time, as
    Stepscope's CPU ranges table has them: ProfilerStep#N named "step", nesting by [ts, ts + dur)
    on each thread, the first in the file first at equal spans."""
    def in_steps(ts):
        return any(first <= ts < last for _, first, last in steps)

    by_thread = {}
    for e in events:
        if kind_of(e) == "user_annotation":
            by_thread.setdefault(e["tid"], []).append(e)
    out = {}
    for annotations in by_thread.values():
        annotations.sort(key=lambda a: (a["ts"], -a["dur"]))
        stack = []
        for a in annotations:
            while stack and stack[-1]["ts"] + max(stack[-1]["dur"], 0.001) <= a["ts"]:
                stack.pop()
            name = "step" if a["name"].startswith("ProfilerStep#") else a["name"]
            parent = stack[-1]["_range"] if stack else ""
            a["_range"] = name
            stack.append(a)
            if in_steps(a["ts"]):
                r = out.setdefault((name, parent), {"range": name, "parent": parent, "instances": 0, "total_us": 0.0})
                r["instances"] += 1
                r["total_us"] += a["dur"]
    return sorted(out.values(), key=lambda r: (r["range"], r["parent"]))


def outside_steps(events, steps):
    """Per operator name, the calls and CPU times of those starting outside every step."""
    ops = [e for e in events if kind_of(e) == "cpu_op"]
    children_us = nest_operators(ops)
    out = {}
    for op in ops:
        if any(first <= op["ts"] < last for _, first, last in steps):
            continue
        o = out.setdefault(op["name"], {"calls": 0, "total_cpu_us": 0.0, "self_cpu_us": 0.0})
        o["calls"] += 1
        o["total_cpu_us"] += op["dur"]
        o["self_cpu_us"] += op["dur"] - children_us.get(id(op), 0.0)
    return out


def table_us(text):
    """"2.203ms", "60.222us", "1.2s" -> (microseconds, half the last printed digit in us)."""
    match = re.fullmatch(r"(-?[0-9.]+)(ms|us|s)", text)  # negative where siblings overlap (whole us)
    scale = {"us": 1.0, "ms": 1e3, "s": 1e6}[match.group(2)]
    decimals = len(match.group(1).partition(".")[2])
    return float(match.group(1)) * scale, 0.5 * scale * 10 ** -decimals


def check_key_averages(events, table_path):
    """This reading of the whole trace against key_averages().table() by name; the differences."""
    ops = [e for e in events if kind_of(e) == "cpu_op"]
    children_us = nest_operators(ops)
    ours = {}
    for e in events:
        name = "ProfilerStep*" if e["name"].startswith("ProfilerStep#") else e["name"]
        o = ours.setdefault(name, {"calls": 0, "total": 0.0, "self": 0.0, "operator": kind_of(e) == "cpu_op"})
        o["calls"] += 1
        o["total"] += e["dur"]
        o["self"] += e["dur"] - children_us.get(id(e), 0.0)
    rows = set()
    problems = []
    with open(table_path) as f:
        for line in f:
            cells = re.split(r"\s{2,}", line.strip())
            if len(cells) < 7 or not re.fullmatch(r"\d+", cells[6]):
                continue
            rows.add(cells[0])
            name, calls = cells[0], int(cells[6])
            (self_us, self_tol), (total_us, total_tol) = table_us(cells[2]), table_us(cells[4])
            o = ours.get(name)
            if o is None:
                problems.append(f"{name}: in the table ({calls} calls), not in the trace")
                continue
            if o["calls"] != calls or abs(o["total"] - total_us) > total_tol or (
                    o["operator"] and abs(o["self"] - self_us) > self_tol):
                problems.append(f"{name}: trace {o['calls']} calls, {o['total']:.3f} us, self {o['self']:.3f} us; "
                                f"table {calls}, {cells[4]}, self {cells[2]}")
    if not rows:
        problems.append(f"{table_path}: no rows read")
    problems += [f"{name}: in the trace, not in the table" for name in sorted(set(ours) - rows)]
    print(f"key_averages: {len(rows)} rows of {table_path}, {sum(o['operator'] for o in ours.values())} operator "
          f"names in the trace; {len(problems)} difference(s)", file=sys.stderr)
    return problems


def operators(events, steps, step_of):
    """The "operators", "outside_operators", "operator_calls" and "measured_cpu_us" members."""
    annotations = {}
    for e in events:
        if kind_of(e) == "user_annotation":
            annotations.setdefault(e["tid"], []).append(e)
    step_threads = {e["tid"] for e in events
                    if kind_of(e) == "user_annotation" and e["name"].startswith("ProfilerStep#")}
    step_thread = next(iter(step_threads)) if len(step_threads) == 1 else None

    def path_at(tid, ts):
        own = annotations.get(tid) or annotations.get(step_thread, [])
        open_ = [a for a in own if a["ts"] <= ts < a["ts"] + a["dur"] and not a["name"].startswith("ProfilerStep#")]
        open_.sort(key=lambda a: (a["ts"], -a["dur"]))
        return [a["name"] for a in open_]

    def in_steps(ts):
        return any(first <= ts < last for _, first, last in steps)

    ops = [e for e in events if kind_of(e) == "cpu_op" and in_steps(e["ts"])]
    children_us = nest_operators(ops)
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
    parser.add_argument("--key-averages", help="torch.profiler's key_averages().table() of the same CPU-only profile")
    args = parser.parse_args()
    events = [e for e in load(args.trace) if isinstance(e, dict) and e.get("ph") == "X"]
    steps = []
    for e in events:
        name = e.get("name", "")
        if kind_of(e) == "user_annotation" and name.startswith("ProfilerStep#") and name[13:].isdigit():
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
    result["cpu_ranges"] = cpu_ranges(events, steps)
    result["operators_outside_steps"] = outside_steps(events, steps)
    result["uncategorized_events"] = sum(1 for e in events if "cat" not in e)
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    if args.key_averages:
        problems = check_key_averages(events, args.key_averages)
        for p in problems[:30]:
            print("  " + p, file=sys.stderr)
        verdict = "key_averages agrees" if not problems else f"key_averages: {len(problems)} difference(s)"
        print(verdict, file=sys.stderr)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
