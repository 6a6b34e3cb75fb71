#!/usr/bin/env python3
"""Ours against SDPA, cell by cell, in attention sweep CSVs: the cells where flash is behind
(by the mean or the median of the passes) and, per file, the count behind, the geometric mean
of the ratios and the worst ratio, forward and backward apart.
Usage: flash_vs_sdpa_cells.py [--only-summary] CSV..."""
import csv
import math
import os
import sys


def cells(path):
    rows = {}
    for r in csv.DictReader(open(path)):
        rows[(r["impl"], r["batch"], r["heads"], r["d"], r["seq"], r["precision"])] = r
    for (impl, b, h, d, s, p), r in rows.items():
        o = rows.get(("sdpa", b, h, d, s, p))
        if impl != "flash" or not o or r["status"] != "ok" or o["status"] != "ok":
            continue
        yield (h, d, s, p), r, o


def main(args):
    only_summary = "--only-summary" in args
    for path in (a for a in args if a != "--only-summary"):
        if not os.path.exists(path):
            continue
        name = os.path.basename(path)
        stats = {ph: {"n": 0, "mean_behind": 0, "median_behind": 0, "logs": [], "worst": 0.0} for ph in ("fwd", "bwd")}
        for (h, d, s, p), r, o in cells(path):
            for ph in ("fwd", "bwd"):
                mean = float(r[f"{ph}_ms"]) / float(o[f"{ph}_ms"])
                med = float(r[f"{ph}_median_ms"]) / float(o[f"{ph}_median_ms"])
                st = stats[ph]
                st["n"] += 1
                st["mean_behind"] += mean > 1
                st["median_behind"] += med > 1
                st["logs"].append(math.log(med))
                st["worst"] = max(st["worst"], med)
                if not only_summary and (mean > 1 or med > 1):
                    print(f"behind SDPA {name} h{h} d{d} s{s} {p} {ph}: mean {r[ph + '_ms'][:7]}/{o[ph + '_ms'][:7]} "
                          f"({mean:.2f}x) median {r[ph + '_median_ms'][:7]}/{o[ph + '_median_ms'][:7]} ({med:.2f}x)")
        for ph, st in stats.items():
            if st["n"]:
                geo = math.exp(sum(st["logs"]) / st["n"])
                print(f"{name} {ph}: {st['n']} cells, behind by mean {st['mean_behind']}, by median "
                      f"{st['median_behind']}; median ratios geo-mean {geo:.2f}x, worst {st['worst']:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
