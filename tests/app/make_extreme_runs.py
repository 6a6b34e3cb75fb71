#!/usr/bin/env python3
"""Writes run files with extreme but finite values, one per chart kind, from real CLI records.

Usage: make_extreme_runs.py BENCH.json ATTENTION.json ALLREDUCE.json DDP.json OUTDIR
BENCH.json: a bench run with --profile memory; the others as their commands write them.
"""
import json
import os
import sys

HUGE = 1e308
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def load(path):
    with open(path) as f:
        return json.load(f)


def save(document, out, name):
    with open(os.path.join(out, name), "w") as f:
        json.dump(document, f)


def set_column(document, schema, key, value):
    for table in document["tables"]:
        if table["schema"] == schema:
            for row in table["rows"]:
                row[key] = value


def main(bench, attention, allreduce, ddp, out):
    os.makedirs(out, exist_ok=True)
    # Benchmark bars, step times and the sweep: a phase of 1e308 ms.
    doc = load(bench)
    for key in ("total_mean_ms", "forward_mean_ms", "backward_mean_ms", "forward_std_ms"):
        doc["entries"][0]["row"][key] = HUGE
    save(doc, out, "bench_huge_ms.json")
    # Memory timeline at int64's ends, categories adding up past int64; a kernel share of 1e308 %.
    doc = load(bench)
    entry = doc["entries"][0]
    points = entry["timeline"]["points"]
    points[0]["time_ns"] = INT64_MIN
    points[-1]["time_ns"] = INT64_MAX
    for category in points[-1]["bytes_by_category"]:
        points[-1]["bytes_by_category"][category] = INT64_MAX
    points[-1]["allocated_bytes"] = INT64_MAX
    entry["kernel_profile"]["ranges"] = [
        {"range": "forward", "gpu_time_ns": 100, "kernels": [],
         "categories": [{"category": "matrix multiply", "total_ns": 100, "instances": 1, "percent": HUGE}]},
        {"range": "backward", "gpu_time_ns": 100, "kernels": [],
         "categories": [{"category": "matrix multiply", "total_ns": 100, "instances": 1, "percent": 60.0}]}]
    entry["kernel_profile"]["gpu_activity_recorded"] = True
    save(doc, out, "memory_and_kernels.json")
    # Attention: forward + backward of 1e308 ms; a sequence of 2^63 - 1.
    doc = load(attention)
    set_column(doc, "attention", "fwd_bwd_ms", HUGE)
    save(doc, out, "attention_huge_ms.json")
    doc = load(attention)
    set_column(doc, "attention", "seq", INT64_MAX)
    save(doc, out, "attention_huge_seq.json")
    # Collectives: a bus bandwidth of 1e308 GB/s.
    doc = load(allreduce)
    set_column(doc, "collective", "busbw_gbps", HUGE)
    save(doc, out, "collective_huge_busbw.json")
    # DDP: a step of 1e308 ms; a timeline span ending at 1e308 ms.
    doc = load(ddp)
    set_column(doc, "ddp", "step_ms", HUGE)
    set_column(doc, "ddp.timeline", "end_ms", HUGE)
    save(doc, out, "ddp_huge_ms.json")


if __name__ == "__main__":
    main(*sys.argv[1:6])
