#!/usr/bin/env python3
"""Side-by-side table of our benchmark CSV and the PyTorch-eager one.

Usage:
    python3 tests/reference/compare_bench.py --ours OURS.csv --reference REF.csv [--markdown OUT.md]

Rows are joined on (model, context, batch, precision, mode); columns are read
by name, so OURS.csv may have extra columns.  The markdown table has, per row:
model, context, batch, precision, mode, ours total mean±std, PyTorch total mean±std,
ratio PyTorch/ours (>1: ours is faster) and the per-phase means side by side
(ours / PyTorch).  OOM rows show OOM; rows present on one side only show "-".
Last line: how many rows ours is slower beyond noise, i.e.
ours_mean - ref_mean > max(ours_std, ref_std).
Prints to stdout; with --markdown also writes the file.  Exit status 0.
"""

import argparse
import sys

from bench_csv import MissingColumns, key_of, num, read_rows, status

MODE_ORDER = {"forward": 0, "forward-backward": 1, "train": 2}
SIZE_ORDER = {"tiny": 0, "small": 1, "medium": 2, "large": 3, "xl": 4, "2.7B": 5}
PREC_ORDER = {"fp32": 0, "bf16": 1}


def read(path):
    """{key: row} of a CSV; exits with a message for missing columns."""
    try:
        rows_in = read_rows(path)
    except MissingColumns as e:
        sys.exit(str(e))
    rows = {}
    for r in rows_in:
        key = key_of(r)
        if key in rows:
            print(f"warning: {path}: duplicate row {key}, keeping the last", file=sys.stderr)
        rows[key] = r
    return rows


def ms(r, col):
    x = num(r.get(col)) if r is not None else None
    return None if x is None else x


def fmt_ms(x):
    if x is None:
        return "-"
    return f"{x:.1f}" if x >= 100 else (f"{x:.2f}" if x >= 1 else f"{x:.3f}")


def fmt_total(r):
    st = status(r)
    if st is None:
        return "-"
    if st != "ok":
        return st
    mean, std = ms(r, "total_mean_ms"), ms(r, "total_std_ms")
    if mean is None:
        return "-"
    return f"{fmt_ms(mean)} ± {fmt_ms(std) if std is not None else '?'}"


def sort_key(key):
    model, context, batch, precision, mode = key
    try:
        c, b = int(context), int(batch)
    except ValueError:
        c, b = 0, 0
    return (SIZE_ORDER.get(model, 99), model, c, b, PREC_ORDER.get(precision, 9), precision,
            MODE_ORDER.get(mode, 9), mode)


def build_table(ours, ref):
    header = ["model", "context", "batch", "precision", "mode", "ours total ms (mean ± std)",
              "PyTorch total ms (mean ± std)", "PyTorch/ours", "forward ms ours / PyTorch",
              "backward ms ours / PyTorch", "optimizer ms ours / PyTorch", "peak GiB ours / PyTorch"]
    slower, compared = [], 0
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * 5 + ["---:"] * 7) + "|"]
    for key in sorted(set(ours) | set(ref), key=sort_key):
        o, r = ours.get(key), ref.get(key)
        so, sr = status(o), status(r)
        ratio = "-"
        if so == "ok" and sr == "ok":
            om, rmn = ms(o, "total_mean_ms"), ms(r, "total_mean_ms")
            if om and rmn is not None:
                ratio = f"{rmn / om:.3f}"
                compared += 1
                noise = max(ms(o, "total_std_ms") or 0.0, ms(r, "total_std_ms") or 0.0)
                if om - rmn > noise:
                    slower.append((key, om, rmn, noise))
        elif so == "OOM" or sr == "OOM":
            ratio = "OOM" if so == sr else ("ours OOM" if so == "OOM" else ("PyTorch OOM" if sr == "OOM" else "-"))
        phases = []
        for ph in ("forward", "backward", "optimizer"):
            a = ms(o, f"{ph}_mean_ms") if so == "ok" else None
            b = ms(r, f"{ph}_mean_ms") if sr == "ok" else None
            phases.append("-" if a is None and b is None else f"{fmt_ms(a)} / {fmt_ms(b)}")
        peaks = [ms(o, "peak_memory_bytes") if so == "ok" else None, ms(r, "peak_memory_bytes") if sr == "ok" else None]
        memory = "-" if peaks == [None, None] else " / ".join(
            "-" if p is None else f"{p / 2**30:.2f}" for p in peaks)
        lines.append("| " + " | ".join(list(key) + [fmt_total(o), fmt_total(r), ratio] + phases + [memory]) + " |")
    lines.append("")
    lines.append(f"Ours slower than PyTorch beyond noise (ours_mean - ref_mean > max(ours_std, ref_std)): "
                 f"{len(slower)} of {compared} compared rows.")
    for key, om, rmn, noise in slower:
        lines.append(f"- {' '.join(key)}: ours {fmt_ms(om)} ms vs PyTorch {fmt_ms(rmn)} ms (noise {fmt_ms(noise)})")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args()
    text = build_table(read(args.ours), read(args.reference))
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
