#!/usr/bin/env python3
"""Compare one of our precision tables with precision_reference.py's.

Usage:
    python3 tests/reference/compare_precision.py OURS.csv THEIRS.csv [--model toy] [--precision bf16]

The table is recognised by its columns:
* accumulation (case,accumulator,addend,method,...,result,...,abs_error): rows are matched on
  `case`; accumulator, addend and method must be equal, and result, abs_error (and additions,
  exact when both files have them) equal once printed with 9 significant digits.
  Explanations are ours only and not compared.
* autocast (tensor,kind,dtype): rows are matched on tensor plus whichever of model,
  precision, device both files have; kind and dtype must be equal, and the rows must come
  in the same order. --model / --precision keep only those rows of a file that has the column
  (so a one-run file of ours compares with the reference's file of every run).

Every difference is printed; exit status 1 when there is any (or when a table is empty
after filtering), 0 when the tables agree, 2 for unreadable input.
"""

import argparse
import csv
import sys

ACCUMULATION = dict(key=("case",), equal=("accumulator", "addend", "method"),
                    numeric=("additions", "result", "exact", "abs_error"), ordered=False)
AUTOCAST = dict(key=("tensor",), optional_key=("model", "precision", "device"), equal=("kind", "dtype"),
                numeric=(), ordered=True)


def read(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows = [normalise({k: (v or "").strip() for k, v in r.items() if k}) for r in reader]
            return list(reader.fieldnames or []), rows
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)  # not 1: that means the tables differ


def kind_of(columns, path):
    if "case" in columns:
        return ACCUMULATION
    if "tensor" in columns:
        return AUTOCAST
    print(f"error: {path}: neither an accumulation (case,...) nor an autocast (tensor,...) table", file=sys.stderr)
    sys.exit(2)


# Spellings either side may use for the same thing: "bfloat16" or "bf16", "torch.float32" or "float32".
SHORT_PRECISION = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32"}


def normalise(row):
    for c in ("precision",):
        if c in row:
            row[c] = SHORT_PRECISION.get(row[c].replace("torch.", ""), row[c])
    for c in ("dtype", "accumulator", "addend"):
        if c in row:
            row[c] = row[c].replace("torch.", "")
    return row


def g9(text):
    try:
        return "%.9g" % float(text)
    except ValueError:
        return text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ours")
    parser.add_argument("theirs")
    parser.add_argument("--model", help="keep only rows of this model (files with a model column)")
    parser.add_argument("--precision", help="keep only rows of this precision (files with a precision column)")
    args = parser.parse_args()

    (ours_cols, ours), (theirs_cols, theirs) = read(args.ours), read(args.theirs)
    spec = kind_of(ours_cols, args.ours)
    if kind_of(theirs_cols, args.theirs) is not spec:
        print("error: the two files hold different tables", file=sys.stderr)
        sys.exit(2)

    def keep(rows, columns):
        precision = SHORT_PRECISION.get(args.precision, args.precision)
        for column, wanted in (("model", args.model), ("precision", precision)):
            if wanted and column in columns:
                rows = [r for r in rows if r[column] == wanted]
        return rows

    ours, theirs = keep(ours, ours_cols), keep(theirs, theirs_cols)
    key_cols = spec["key"] + tuple(c for c in spec.get("optional_key", ()) if c in ours_cols and c in theirs_cols)
    for cols, path in ((ours_cols, args.ours), (theirs_cols, args.theirs)):
        missing = [c for c in spec["key"] + spec["equal"] if c not in cols]
        if missing:
            print(f"error: {path}: missing column(s) {', '.join(missing)}", file=sys.stderr)
            sys.exit(2)

    problems = []
    if not ours or not theirs:
        problems.append(f"empty table after filtering: ours {len(ours)} rows, theirs {len(theirs)} rows")

    def index(rows, side):
        out = {}
        for r in rows:
            k = tuple(r[c] for c in key_cols)
            if k in out:
                problems.append(f"{side}: duplicate row {k}")
            out[k] = r
        return out

    ours_by, theirs_by = index(ours, "ours"), index(theirs, "theirs")
    label = lambda k: " / ".join(k)  # noqa: E731
    for k in ours_by:
        if k not in theirs_by:
            problems.append(f"{label(k)}: only in ours")
    for k in theirs_by:
        if k not in ours_by:
            problems.append(f"{label(k)}: only in theirs")

    numeric = [c for c in spec["numeric"] if c in ours_cols and c in theirs_cols]
    for k, mine in ours_by.items():
        other = theirs_by.get(k)
        if other is None:
            continue
        for c in spec["equal"]:
            if mine[c] != other[c]:
                problems.append(f"{label(k)}: {c} ours {mine[c]!r}, theirs {other[c]!r}")
        for c in numeric:
            if g9(mine[c]) != g9(other[c]):
                problems.append(f"{label(k)}: {c} ours {mine[c]}, theirs {other[c]}")

    if spec["ordered"]:
        common = set(ours_by) & set(theirs_by)
        ours_order = [k for k in ours_by if k in common]
        theirs_order = [k for k in theirs_by if k in common]
        if ours_order != theirs_order:
            first = next(i for i, (a, b) in enumerate(zip(ours_order, theirs_order)) if a != b)
            problems.append(f"order differs from row {first + 1}: ours {label(ours_order[first])}, "
                            f"theirs {label(theirs_order[first])}")

    for p in problems:
        print(p)
    print(f"{len(ours_by)} rows ours, {len(theirs_by)} rows theirs: "
          + (f"{len(problems)} difference(s)" if problems else "the tables agree"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
