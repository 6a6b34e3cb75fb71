#!/usr/bin/env python3
"""Our eager and fused engines beside PyTorch eager and torch.compile (issue 37's table).

Usage:
    python3 tests/reference/compare_compile.py --ours OURS.csv [--ours-again AGAIN.csv]
        --torch eager=REF.csv --torch compile=COMPILE.csv --torch compile-ro=RO.csv
        [--torch LABEL=FILE ...] [--status LABEL:MODEL=TEXT ...] [--markdown OUT.md]

OURS / AGAIN: `stepscope-cli bench --engine eager,fused ... --csv` (columns by name, as
engine/experiments/bench/bench_schema.cpp writes them: model, context, batch, precision,
mode, engine, status, total_mean_ms, forward_mean_ms, ..., flops_per_step, peak_tflops,
mfu (a fraction), peak_memory_bytes).  A file without an `engine` column is read as eager.
AGAIN is the same command run after PyTorch's, for the card's drift.
--torch LABEL=FILE: bench_reference.py CSVs.  Labels with a meaning here: eager
(--variant reference), compile (--variant compile), compile-ro (--variant
compile-reduce-overhead).  Any other label (say compile-ro+fused-adamw for a run with
--optimizer torch-fused) gets its own column; labels starting with "compile" also count
towards "best compile, any run".  A label may be given several files (one per model, say);
rows are joined on (model, context, batch, precision, mode), the last file winning.
--status LABEL:MODEL=TEXT fills that label's missing cells of MODEL with TEXT (the device
script says "timeout" or "skipped" there); LABEL may be ours, and MODEL may be *.

Table 1, per configuration: total mean ms of ours eager, ours fused (the second run in
brackets), PyTorch eager, compile, compile-ro, the best of compile and compile-ro (the
seeds' protocol: the course's AdamW, uncompiled), fused / best compile (below 1: fused is
faster), the fused drift (second run / first - 1), fused MFU and best compile's MFU (the
same FLOPs over its time, against the peak our row names).  Table 2: the phases (forward,
backward, optimizer) of fused and best compile, peak memory, and the compile runs' warm-up
seconds (compilation included).  Non-ok rows show their status (OOM, failed...); missing
ones "-".  Then how many rows fused is at most best compile, and what each torch run
compiled and with which optimizer.  Prints to stdout; --markdown also writes the file.
Exit status 0 (2 for unreadable input).
"""

import argparse
import sys

import bench_csv
from bench_csv import key_of, num, status

SIZE_ORDER = {"tiny": 0, "mini": 1, "small": 2, "medium": 3, "large": 4, "xl": 5, "2.7B": 6}
PREC_ORDER = {"fp32": 0, "bf16": 1, "fp16": 2}
MODE_ORDER = {"forward": 0, "forward-backward": 1, "train": 2}
SEEDS_COMPILE = ("compile", "compile-ro")  # best compile: the faster of these two
PHASES = ("forward", "backward", "optimizer")


def warn(msg):
    print(f"compare_compile: {msg}", file=sys.stderr)


def read_rows(path):
    """The rows of a CSV; none (with a warning) for a missing or empty file, exit 2 for other columns."""
    try:
        return bench_csv.read_rows(path)
    except FileNotFoundError:
        warn(f"{path}: no such file, skipped")
    except bench_csv.MissingColumns as e:
        if not e.empty:
            warn(str(e))
            sys.exit(2)
        warn(f"{path}: empty, skipped")
    return []


def read_ours(paths):
    """{engine: {key: row}} from our bench CSVs."""
    out = {}
    for path in paths or []:
        for r in read_rows(path):
            engine = (r.get("engine") or "eager").strip() or "eager"
            out.setdefault(engine, {})[key_of(r)] = r
    return out


def read_torch(specs):
    """{label: {key: row}}, labels in the order first given."""
    out = {}
    for spec in specs or []:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            warn(f"--torch wants LABEL=FILE, got {spec!r}")
            sys.exit(2)
        rows = out.setdefault(label, {})
        for r in read_rows(path):
            rows[key_of(r)] = r
    return out


def parse_status(specs):
    """{(label, model): text} from LABEL:MODEL=TEXT."""
    out = {}
    for spec in specs or []:
        head, sep, text = spec.partition("=")
        label, sep2, model = head.partition(":")
        if not sep or not sep2 or not label or not model:
            warn(f"--status wants LABEL:MODEL=TEXT, got {spec!r}")
            sys.exit(2)
        out[(label, model)] = text
    return out


def ok_value(r, col):
    return num(r.get(col)) if status(r) == "ok" else None


def fmt_ms(x):
    if x is None:
        return "-"
    return f"{x:.1f}" if x >= 100 else (f"{x:.2f}" if x >= 1 else f"{x:.3f}")


def fmt_pct(x):
    return "-" if x is None else f"{100 * x:.1f} %"


class Cells:
    """What a missing or failed cell says: the row's status, a --status note, or '-'."""

    def __init__(self, notes):
        self.notes = notes

    def total(self, label, key, r):
        st = status(r)
        if st is None:
            return self.notes.get((label, key[0])) or self.notes.get((label, "*")) or "-"
        if st != "ok":
            return st
        return fmt_ms(num(r.get("total_mean_ms")))


def best_of(torch_rows, labels, key):
    """(label, ms) of the fastest ok row among labels, or (None, None)."""
    best = (None, None)
    for label in labels:
        ms = ok_value(torch_rows.get(label, {}).get(key), "total_mean_ms")
        if ms is not None and (best[1] is None or ms < best[1]):
            best = (label, ms)
    return best


def sort_key(key):
    model, context, batch, precision, mode = key
    try:
        c, b = int(context), int(batch)
    except ValueError:
        c, b = 0, 0
    return (SIZE_ORDER.get(model, 99), model, c, b, PREC_ORDER.get(precision, 9), precision,
            MODE_ORDER.get(mode, 9), mode)


def mfu_of(flops_row, ms):
    """MFU of a step of `ms` doing flops_row's FLOPs against its peak (None when unknown)."""
    if flops_row is None or ms is None or ms <= 0:
        return None
    flops, peak = num(flops_row.get("flops_per_step")), num(flops_row.get("peak_tflops"))
    if not flops or not peak:
        return None
    return flops / (ms / 1e3) / (peak * 1e12)


def build(ours, again, torch_rows, notes, mode_filter=None):
    cells = Cells(notes)
    eager, fused = ours.get("eager", {}), ours.get("fused", {})
    eager2, fused2 = again.get("eager", {}), again.get("fused", {})
    extra = [label for label in torch_rows if label not in ("eager",) + SEEDS_COMPILE]
    all_compile = [label for label in torch_rows if label.startswith("compile")]
    any_run = bool(set(all_compile) - set(SEEDS_COMPILE))  # compiled runs beyond the seeds' two
    keys = set(eager) | set(fused)
    for rows in torch_rows.values():
        keys |= set(rows)
    if mode_filter:
        keys = {k for k in keys if k[4] in mode_filter}
    keys = sorted(keys, key=sort_key)

    def ours_cell(label, key, first, second):
        text = cells.total(label, key, first.get(key))
        s2 = second.get(key)
        if s2 is not None:
            text += f" ({cells.total(label, key, s2)})"
        return text

    head = ["model", "context", "batch", "precision", "mode", "ours eager ms", "ours fused ms", "PyTorch eager ms",
            "compile ms", "compile-ro ms"] + [f"{label} ms" for label in extra] + \
           ["best compile ms", "fused / best compile", "fused drift", "fused MFU", "best compile MFU"]
    if any_run:
        head += ["best compile, any run ms", "fused / it"]
    lines = ["## Step time, mean ms (ours: first run, second in brackets)", "",
             "| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 5 + ["---:"] * (len(head) - 5)) + "|"]
    verdicts = []
    for key in keys:
        row = list(key)
        row.append(ours_cell("ours", key, eager, eager2))
        row.append(ours_cell("ours", key, fused, fused2))
        for label in ("eager",) + SEEDS_COMPILE + tuple(extra):
            row.append(cells.total(label, key, torch_rows.get(label, {}).get(key)))
        best_label, best_ms = best_of(torch_rows, SEEDS_COMPILE, key)
        row.append("-" if best_ms is None else f"{fmt_ms(best_ms)} ({best_label})")
        f_ms = ok_value(fused.get(key), "total_mean_ms")
        ratio = f_ms / best_ms if f_ms is not None and best_ms else None
        row.append("-" if ratio is None else f"{ratio:.3f}")
        f2_ms = ok_value(fused2.get(key), "total_mean_ms")
        row.append("-" if f_ms is None or f2_ms is None else f"{100 * (f2_ms / f_ms - 1):+.1f} %")
        mfu = ok_value(fused.get(key), "mfu")
        row.append(fmt_pct(mfu))
        flops_row = fused.get(key) or eager.get(key)
        row.append(fmt_pct(mfu_of(flops_row, best_ms)))
        if any_run:
            any_label, any_ms = best_of(torch_rows, all_compile, key)
            row.append("-" if any_ms is None else f"{fmt_ms(any_ms)} ({any_label})")
            row.append("-" if f_ms is None or not any_ms else f"{f_ms / any_ms:.3f}")
        if ratio is not None:
            verdicts.append((key, ratio))
        lines.append("| " + " | ".join(row) + " |")

    lines += ["", "## Phases (mean ms: forward / backward / optimizer), peak memory and compile warm-up", ""]
    head2 = ["model", "context", "batch", "precision", "mode", "ours eager", "ours fused", "best compile",
             "peak GiB: ours eager / fused / PyTorch eager / best compile", "warm-up s: " + (" / ".join(all_compile) or "no compile run")]
    lines += ["| " + " | ".join(head2) + " |", "|" + "|".join(["---"] * 5 + ["---:"] * 5) + "|"]

    def phases(r):
        if status(r) != "ok":
            return "-"
        return " / ".join(fmt_ms(num(r.get(f"{p}_mean_ms"))) for p in PHASES)

    def gib(r):
        b = ok_value(r, "peak_memory_bytes") if r is not None else None
        return "-" if b is None else f"{b / 2**30:.2f}"

    for key in keys:
        best_label, _ = best_of(torch_rows, SEEDS_COMPILE, key)
        best_row = torch_rows.get(best_label, {}).get(key) if best_label else None
        peaks = " / ".join(gib(r) for r in (eager.get(key), fused.get(key), torch_rows.get("eager", {}).get(key),
                                            best_row))
        warm = " / ".join(
            (lambda r: "-" if r is None or num(r.get("warmup_s")) is None else f"{num(r.get('warmup_s')):.0f}")(
                torch_rows.get(label, {}).get(key)) for label in all_compile) or "-"
        lines.append("| " + " | ".join(list(key) + [phases(eager.get(key)), phases(fused.get(key)),
                                                     phases(best_row), peaks, warm]) + " |")

    lines.append("")
    at_most = [k for k, r in verdicts if r <= 1.0]
    lines.append(f"Fused at most best compile (fused / best compile <= 1): {len(at_most)} of {len(verdicts)} rows "
                 "with both measured.")
    for key, ratio in verdicts:
        if ratio > 1.0:
            lines.append(f"- slower: {' '.join(key)}: {ratio:.3f}x")
    lines.append("")
    for label, rows in torch_rows.items():
        seen = sorted({(r.get("variant") or "?", r.get("compiled") or "?", r.get("optimizer") or "?")
                       for r in rows.values()})
        what = "; ".join(f"variant {v}, compiled {c}, optimizer {o}" for v, c, o in seen) or "no rows"
        notes_of = sorted({(r.get("message") or "").strip() for r in rows.values()} - {""})
        lines.append(f"- {label}: {what}" + (f" (notes: {' | '.join(notes_of)})" if notes_of else ""))
    if not fused:
        lines.append("- ours: no fused rows (no `engine` column, or the binary has no --engine)")
    for (label, model), text in sorted(notes.items()):
        lines.append(f"- {label}, {model}: {text}")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", nargs="*", default=[], help="our bench CSV(s)")
    ap.add_argument("--ours-again", nargs="*", default=[], help="our bench CSV(s) of the second run")
    ap.add_argument("--torch", action="append", default=[], metavar="LABEL=FILE")
    ap.add_argument("--status", action="append", default=[], metavar="LABEL:MODEL=TEXT")
    ap.add_argument("--mode", default="", help="comma list of modes to keep (default: all)")
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args()
    modes = {m.strip() for m in args.mode.split(",") if m.strip()}
    text = build(read_ours(args.ours), read_ours(args.ours_again), read_torch(args.torch), parse_status(args.status),
                 modes)
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
