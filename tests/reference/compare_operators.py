#!/usr/bin/env python3
"""Our operator profile (`bench --profile ops`: STEM.CONFIG.operators.csv) against torch.profiler's
key_averages on the same model (operator_profile_reference.py's CSV), per measured step: ours
from the rows' Calls against Calls/Step, PyTorch's from its CSV's Steps column (or --torch-steps
for a CSV without one).

Both sides are summed per operator name (over ranges and input shapes: our rows are per range,
key_averages' are not). Only operators are compared: ATen operators ("aten::...") and autograd
nodes ("...Backward0"); record_function ranges, which key_averages lists as rows too, and our
"(outside operators)" rows are left out. The check is the issue's: the operators that take most
GPU time (self: the kernels each launched itself) are the same on both sides, and each one's
self GPU time is within --tolerance of PyTorch's. Self CPU times are printed beside them but not
checked: the Python process pays its own interpreter and dispatch costs. Where PyTorch recorded
no GPU time (a CPU run), the check is only that the operators taking most self CPU time on
PyTorch's side are present on ours, their calls shown side by side (the mirror model is the
engine's op for op in the layers; its loss and optimizer differ by a few element-wise calls).

Usage: compare_operators.py --ours ours.CONFIG.operators.csv --torch torch_operators.csv
           [--torch-steps N] [--top 8] [--tolerance 0.10] [--markdown FILE]
Exit status 0 when the check holds, 1 when it does not.
"""
import argparse
import collections
import csv
import re
import sys

OPERATOR = re.compile(r"^(\w+::\w|.*Backward\d*$)")


def measured_steps(path, given):
    """Ours: Calls over Calls/Step of any called row; PyTorch's: its Steps column, else `given`."""
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("Steps"):
                return int(row["Steps"])
            if row.get("Calls/Step") and float(row["Calls/Step"]) > 0:
                return round(int(row["Calls"]) / float(row["Calls/Step"]))
    if given is None:
        sys.exit(f"{path}: no Steps or Calls/Step column to tell its measured steps; give --torch-steps")
    return given


def totals(path, name_column, steps):
    """Per operator name and measured step: calls, self GPU ns, self CPU ns."""
    by_name = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            name = row[name_column]
            if not OPERATOR.match(name):
                continue
            t = by_name[name]
            t[0] += int(row["Calls"]) / steps
            t[1] += float(row["Self GPU (ns)"] or 0) / steps
            t[2] += float(row["Self CPU (ns)"] or 0) / steps
    return by_name


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ours", required=True)
    ap.add_argument("--torch", required=True)
    ap.add_argument("--torch-steps", type=int, help="PyTorch's measured steps, for a CSV without a Steps column")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("--markdown")
    args = ap.parse_args()
    ours_steps = measured_steps(args.ours, None)
    torch_steps = measured_steps(args.torch, args.torch_steps)
    ours = totals(args.ours, "Operator", ours_steps)
    torch = totals(args.torch, "Operator", torch_steps)
    on_gpu = sum(v[1] for v in torch.values()) > 0
    key = 1 if on_gpu else 2  # self GPU, or self CPU on a CPU run
    top_torch = sorted(torch, key=lambda n: -torch[n][key])[: args.top]
    top_ours = sorted(ours, key=lambda n: -ours[n][key])[: args.top]
    lines = [f"Per measured step (ours over {ours_steps}, PyTorch's over {torch_steps}).", "",
             f"| operator | calls ours / torch | self GPU ms ours | torch | ours / torch | self CPU ms ours | torch |",
             "|---|---|---:|---:|---:|---:|---:|"]
    ok = True
    for name in top_torch:
        t = torch[name]
        o = ours.get(name)
        if o is None:
            lines.append(f"| {name} | - / {t[0]:g} | missing | {t[1] / 1e6:.3f} | - | - | {t[2] / 1e6:.3f} |")
            ok = False
            continue
        if on_gpu:
            ratio = o[1] / t[1] if t[1] > 0 else float("nan")
            within = t[1] > 0 and abs(ratio - 1) <= args.tolerance
            verdict = f"{ratio:.3f}{'' if within else ' ✗'}"
        else:
            within = True
            verdict = "calls equal" if o[0] == t[0] else "calls differ"
        ok = ok and within
        lines.append(f"| {name} | {o[0]:g} / {t[0]:g} | {o[1] / 1e6:.3f} | {t[1] / 1e6:.3f} | {verdict} "
                     f"| {o[2] / 1e6:.3f} | {t[2] / 1e6:.3f} |")
    same_top = set(top_torch) == set(top_ours)
    if on_gpu:
        ok = ok and same_top  # CPU times rank differently in a Python process: not checked there
    gpu_ours = sum(v[1] for v in ours.values())
    gpu_torch = sum(v[1] for v in torch.values())
    lines.append("")
    lines.append(f"Top {args.top} by self {'GPU' if on_gpu else 'CPU'} time, the same operators on both sides: {'yes' if same_top else 'no'}"
                 + ("" if same_top else f" (ours only: {sorted(set(top_ours) - set(top_torch))}; "
                                        f"torch only: {sorted(set(top_torch) - set(top_ours))})"))
    lines.append(f"Self GPU time of all operators a step: ours {gpu_ours / 1e6:.3f} ms, torch {gpu_torch / 1e6:.3f} ms "
                 f"({gpu_ours / gpu_torch:.3f})" if gpu_torch > 0 else "No GPU time on PyTorch's side.")
    lines.append(f"Check ({f'each within {args.tolerance:.0%} of PyTorch' + chr(39) + 's, same top operators' if on_gpu else 'present on both sides'}): "
                 f"{'holds' if ok else 'FAILS'}")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
