"""Reading bench CSVs (ours from `stepscope-cli bench --csv`, PyTorch's from bench_reference.py),
shared by compare_bench.py and compare_compile.py so both read cells and rows the same way.

Columns are read by name, so a file may have extra ones; rows are joined on KEY.
"""

import csv
import math

KEY = ("model", "context", "batch", "precision", "mode")


class MissingColumns(Exception):
    """A CSV lacks columns a script needs; `empty` when it has no header at all."""

    def __init__(self, path, missing, empty):
        super().__init__(f"{path}: missing column(s) {', '.join(missing)}")
        self.empty = empty


def read_rows(path, need=("status", "total_mean_ms")):
    """The rows (dicts by column name) of a CSV with KEY and `need`.

    Raises FileNotFoundError, or MissingColumns: each script decides what a bad file means to it.
    """
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames or []
        missing = [k for k in KEY + tuple(need) if k not in fields]
        if missing:
            raise MissingColumns(path, missing, empty=not fields)
        return list(reader)


def key_of(r):
    """The join key of a row: KEY's cells, stripped."""
    return tuple(str(r.get(k, "")).strip() for k in KEY)


def num(v):
    """Float from a CSV cell; None for empty / missing / non-numeric / NaN."""
    if v is None:
        return None
    v = str(v).strip()
    if not v:
        return None
    try:
        x = float(v)
    except ValueError:
        return None
    return None if math.isnan(x) else x


def status(r):
    """A row's status: its cell, else "ok" when it has a total time, "?" otherwise; None for no row."""
    if r is None:
        return None
    s = (r.get("status") or "").strip()
    return s if s else ("ok" if num(r.get("total_mean_ms")) is not None else "?")
