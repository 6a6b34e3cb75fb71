#!/usr/bin/env python3
"""Peak memory of our engine against PyTorch's on the same configurations.

Usage:
    compare_memory.py --ours OURS.csv --mirror MIRROR.csv --reference REF.csv [--fused FUSED.csv]
                      [--markdown OUT.md]

OURS: `stepscope-cli bench ... --profile memory --csv OURS.csv`; the per-configuration
OURS.<label>.memory_peaks.csv files beside it give our timeline's highest measured point.
MIRROR / REF / FUSED: bench_reference.py (--variant mirror / reference / fused) CSVs, whose
peak_memory_bytes is torch.cuda.max_memory_allocated() over the measured steps. The mirror runs
the engine's operators in PyTorch, so it makes the same allocations; the reference is the
course's model (hand-written softmax and cross-entropy, per-parameter AdamW).

Per (model, context, batch, precision, mode): our allocator peak, our timeline's highest measured
peak, and each PyTorch peak with ours / it. A row agrees when |ours/mirror - 1| <= 5 %.
Prints a markdown table; exit status 0.
"""
import argparse
import csv
import os
import sys

KEY = ("model", "context", "batch", "precision", "mode")
MEASURED_PEAKS = ("forward", "backward", "before optimizer step", "optimizer step", "after optimizer step")


def rows(path):
    if not path:
        return {}
    with open(path, newline="") as f:
        return {tuple(r[k] for k in KEY): r for r in csv.DictReader(f)}


def timeline_peak(ours_csv, key):
    model, context, batch, precision, mode = key
    stem = os.path.splitext(ours_csv)[0]
    path = f"{stem}.{model}-ctx{context}-b{batch}-{precision}-{mode}.memory_peaks.csv"
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        values = [float(r["Allocated (bytes)"]) for r in csv.DictReader(f) if r["Peak"] in MEASURED_PEAKS]
    return max(values) if values else None


def peak(row):
    if row is None:
        return None, "-"
    if row.get("status") != "ok":
        return None, row.get("status") or "?"
    return float(row["peak_memory_bytes"]), None


def gib(x):
    return f"{x / 2**30:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--mirror", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--fused")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    ours = rows(args.ours)
    others = [("mirror", rows(args.mirror)), ("reference", rows(args.reference))]
    if args.fused:
        others.append(("fused", rows(args.fused)))
    header = "| model | context | precision | mode | ours allocator GiB | ours timeline GiB |"
    for name, _ in others:
        header += f" {name} GiB | ours / {name} |"
    lines = [header + " within 5 % of mirror |", "|---|---:|---|---|" + "---:|" * (2 + 2 * len(others)) + "---|"]
    agree = compared = 0
    for key in sorted(ours, key=lambda k: (k[0], int(k[1]), k[3], k[4])):
        o, o_status = peak(ours[key])
        t = timeline_peak(args.ours, key) if o is not None else None
        line = f"| {key[0]} | {key[1]} | {key[3]} | {key[4]} | {o_status or gib(o)} | {gib(t) if t else '-'} |"
        verdict = "-"
        for name, table in others:
            p, p_status = peak(table.get(key))
            ratio = f"{o / p:.3f}" if o is not None and p is not None else "-"
            line += f" {p_status or gib(p)} | {ratio} |"
            if name == "mirror":
                if o is not None and p is not None:
                    compared += 1
                    ok = abs(o / p - 1) <= 0.05
                    agree += ok
                    verdict = "yes" if ok else "no"
                elif o_status == "OOM" and p_status == "OOM":
                    verdict = "both OOM"
        lines.append(line + f" {verdict} |")
    lines.append("")
    lines.append(f"{agree} of {compared} configurations that ran on both sides agree with the mirror within 5 %.")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
