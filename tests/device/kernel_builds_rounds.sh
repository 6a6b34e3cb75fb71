#!/usr/bin/env bash
# Several flash_kernel_check builds on one GPU in interleaved rounds: each round runs every
# shape once per build (`--bench-one`, batch 1, bf16, the fastest path), the builds' order
# rotating by round so that none always runs in the same phase of the power-capped clock.
# Prints each build's median forward and backward ms per shape and their ratio to the first
# build. The table is rewritten after every round (table.txt), so a call cut short keeps the
# rounds it finished.
# Usage (GPU machine, repository root):
#   tests/device/kernel_builds_rounds.sh ROUNDS "HEADS SEQ D causal|full" [...] -- BUILD1 BUILD2 [...]
set -uo pipefail
rounds=$1; shift
shapes=(); while [ $# -gt 0 ] && [ "$1" != -- ]; do shapes+=("$1"); shift; done
shift; builds=("$@")
out=${OUT:-/tmp/stepscope-device}/kernel_builds
mkdir -p "$out"; : >"$out/runs.txt"
reps=${REPS:-50}
for r in $(seq 0 $((rounds - 1))); do
  for sh in "${shapes[@]}"; do
    n=${#builds[@]}
    for k in $(seq 0 $((n - 1))); do
      b=$(( (k + r) % n ))
      line=$("${builds[$b]}" --bench-one $sh $reps bf16 fastest 2>&1 | grep -a '| forward')
      echo "$r|$sh|$b|$line" >>"$out/runs.txt"
    done
  done
  python3 - "$out/runs.txt" "${builds[@]}" >"$out/table.txt" <<'PY'
import collections, re, statistics, sys
runs, names = sys.argv[1], sys.argv[2:]
t = collections.defaultdict(lambda: ([], []))
order = []
for line in open(runs):
    r, sh, b, text = (line.rstrip("\n").split("|", 3) + ["", "", "", ""])[:4]
    m = re.search(r"\| forward ([\d.]+) ms.*?\| backward ([\d.]+) ms", text)
    if not m: print(f"round {r} {sh} build {b}: no result: {text[:100]}"); continue
    if sh not in order: order.append(sh)
    t[(sh, int(b))][0].append(float(m.group(1))); t[(sh, int(b))][1].append(float(m.group(2)))
med = statistics.median
for i, n in enumerate(names): print(f"build {i}: {n}")
print(f"{'shape (bf16, b 1)':22}" + "".join(f" {'fwd ' + str(i):>8} {'ratio':>6}" for i in range(len(names)))
      + "".join(f" {'bwd ' + str(i):>8}" for i in range(len(names))))
for sh in order:
    if not t[(sh, 0)][0]: continue
    f0 = med(t[(sh, 0)][0])
    cells = "".join(f" {med(t[(sh, i)][0]):8.4f} {med(t[(sh, i)][0]) / f0:6.3f}" if t[(sh, i)][0] else " " * 16 for i in range(len(names)))
    bw = "".join(f" {med(t[(sh, i)][1]):8.4f}" if t[(sh, i)][1] else " " * 9 for i in range(len(names)))
    print(f"{sh:22}{cells}{bw}")
print("ms, medians over the rounds; ratio: forward over build 0's")
PY
done
cat "$out/table.txt"
