#!/usr/bin/env python3
"""Our per-range kernel summary against torch.profiler's on the same model.

Usage:
    compare_profile.py --ours A.kernels.csv [--ours-again B.kernels.csv]
                       --torch T.csv [--torch-again U.csv] [--markdown OUT.md]

OURS: the kernels CSV of `stepscope-cli bench --profile kernels` (Range, Instances,
Total Time (ns), Name, ...). TORCH: the CSV of profile_reference.py. Both cover the same
number of measured steps. The "again" files are second runs of each side in the same
call: their differences are the run-to-run noise against which ours/torch is judged.

Per range: distinct kernels on each side and how many are common; instances (both sides
must agree exactly); total GPU time of each side; ours/torch; the noise, i.e. the larger
of |run1/run2 - 1| on either side. Then, per range, the kernels that differ in count.
Exit status 1 when a range's instance counts differ or the time ratio leaves
1 +- max(3 x noise, 5 %); 0 otherwise.
"""
import argparse
import collections
import csv
import sys


def load(path):
    """{range: {kernel name: (instances, total ns)}}"""
    table = collections.defaultdict(dict)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            table[row["Range"]][row["Name"]] = (int(row["Instances"]), float(row["Total Time (ns)"]))
    return table


def total(kernels):
    return sum(ns for _, ns in kernels.values()), sum(n for n, _ in kernels.values())


def drift(a, b, name):
    if b is None or name not in a or name not in b:
        return 0.0
    ta, tb = total(a[name])[0], total(b[name])[0]
    return abs(ta / tb - 1.0) if tb else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--ours-again")
    ap.add_argument("--torch", required=True)
    ap.add_argument("--torch-again")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    ours, torch_side = load(args.ours), load(args.torch)
    ours2 = load(args.ours_again) if args.ours_again else None
    torch2 = load(args.torch_again) if args.torch_again else None

    lines = ["| Range | kernels ours / torch / common | instances ours / torch | GPU time ours (us) | "
             "torch (us) | ours / torch | noise | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    details, failures = [], 0
    for name in sorted(set(ours) & set(torch_side), key=lambda r: (r != "measured window", r)):
        a, b = ours[name], torch_side[name]
        (ta, na), (tb, nb) = total(a), total(b)
        ratio = ta / tb if tb else float("inf")
        noise = max(drift(ours, ours2, name), drift(torch_side, torch2, name))
        tolerance = max(3 * noise, 0.05)
        ok = na == nb and abs(ratio - 1.0) <= tolerance
        failures += not ok
        common = len(set(a) & set(b))
        lines.append(f"| {name} | {len(a)} / {len(b)} / {common} | {na} / {nb} | {ta / 1e3:.1f} | {tb / 1e3:.1f} | "
                     f"{ratio:.3f} | {noise:.3f} | {'agree' if ok else 'DIFFER'} |")
        for kernel in sorted(set(a) | set(b)):
            ca, cb = a.get(kernel, (0, 0))[0], b.get(kernel, (0, 0))[0]
            if ca != cb:
                details.append(f"- {name}: {ca} ours vs {cb} torch: `{kernel[:140]}`")
    only = sorted(set(ours) ^ set(torch_side))
    text = "\n".join(lines)
    if details:
        text += "\n\nKernels whose instance counts differ:\n" + "\n".join(details)
    if only:
        text += "\n\nRanges on one side only: " + ", ".join(only)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
