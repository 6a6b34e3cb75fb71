#!/usr/bin/env bash
# A/B of two flash_kernel_check builds on one GPU: their --bench tables alternated ROUNDS times
# (the clock under the power cap drifts within a call, so each side sees every phase of it),
# then each shape's times side by side. Usage: tests/device/kernel_ab.sh OLD NEW [ROUNDS]
set -uo pipefail
old=$1 new=$2 rounds=${3:-2}
out=${OUT:-/tmp/stepscope-device}/kernel_ab
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  "$old" --bench >"$out/old$r.txt" 2>&1
  "$new" --bench >"$out/new$r.txt" 2>&1
done
python3 - "$out" "$rounds" <<'PY'
import re, sys
d, rounds = sys.argv[1], int(sys.argv[2])
line = re.compile(r"^(\S+\s+\S+ \S+ b=\d+ h=\d+ s=\d+ d=\d+) \| forward ([\d.]+) ms.*\| backward ([\d.]+) ms")
def table(path):
    out = {}
    for text in open(path):
        m = line.match(text.strip())
        if m: out[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return out
old = [table(f"{d}/old{r}.txt") for r in range(1, rounds + 1)]
new = [table(f"{d}/new{r}.txt") for r in range(1, rounds + 1)]
print(f"{'shape':48} {'fwd old':>16} {'fwd new':>16} {'bwd old':>16} {'bwd new':>16}")
for shape in old[0]:
    cell = lambda runs, i: "/".join(f"{t[shape][i]:.3f}" for t in runs if shape in t)
    print(f"{shape:48} {cell(old, 0):>16} {cell(new, 0):>16} {cell(old, 1):>16} {cell(new, 1):>16}")
PY
