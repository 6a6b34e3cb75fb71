#!/usr/bin/env bash
# Our flash kernels against PyTorch's SDPA kernel by kernel, in interleaved rounds: each round
# runs every shape once per side (`flash_kernel_check --bench-one` and
# `tests/reference/sdpa_kernel_bench.py`, same inputs and repetitions), the side that goes first
# alternating by round. Under the H100's power cap the clock drifts within a call, so back-to-back
# tables favour whichever side ran in the better phase; rounds spread the drift over both.
# (nvidia-smi's clock and power readings lag by 100 ms and more, too coarse for kernels of a few
# milliseconds between host setup, so no clock column.)
# Usage (GPU machine, repository root):
#   tests/device/kernels_vs_sdpa_rounds.sh KCHECK_BINARY [ROUNDS ["HEADS SEQ D causal|full" ...]]
# (batch 1; without shapes, the issue's d64/d128 rows from s4096 at 16 heads and one long head).
# AGAINST=OTHER_KCHECK_BINARY measures against that build of our kernels instead of SDPA (the
# A/B of a change); KPATH=portable takes our portable kernels on both of our sides. The table
# is rewritten after every round (table.txt), so a call cut short keeps the rounds it finished.
set -uo pipefail
kcheck=$1 rounds=${2:-5}
against=${AGAINST:-sdpa}
kpath=${KPATH:-fastest}
out=${OUT:-/tmp/stepscope-device}/kernels_vs_sdpa
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
reps=50
shapes=("16 4096 64 causal" "16 8192 64 causal" "16 16384 64 causal"
        "16 4096 128 causal" "16 8192 128 causal" "16 16384 128 causal" "1 65536 128 causal")
if [ $# -gt 2 ]; then shapes=("${@:3}"); fi

summarize() {
python3 - "$out/runs.txt" "$against" <<'PY'
import collections, re, statistics, sys
times = collections.defaultdict(lambda: {"fwd": [], "bwd": []})
order = []
for line in open(sys.argv[1]):
    fields = line.rstrip("\n").split("|", 3)
    r, sh, side, text = fields if len(fields) == 4 else (fields + ["", "", "", ""])[:4]
    m = re.search(r"\| forward ([\d.]+) ms.*?\| backward ([\d.]+) ms", text)
    if not m:
        print(f"round {r} {sh} {side}: no result: {text[:120]}")
        continue
    if sh not in order: order.append(sh)
    times[(sh, side)]["fwd"].append(float(m.group(1)))
    times[(sh, side)]["bwd"].append(float(m.group(2)))
med = statistics.median
name = "sdpa" if sys.argv[2] == "sdpa" else "base"
print(f"{'shape (bf16, b 1)':22} {'fwd ours':>9} {'fwd ' + name:>9} {'ratio':>6} {'bwd ours':>9} {'bwd ' + name:>9} {'ratio':>6}"
      "  ratio per round: fwd | bwd")
for sh in order:
    a, b = times[(sh, "flash")], times[(sh, "other")]
    if not (a["bwd"] and b["bwd"]):
        continue
    fwd_rounds = " ".join(f"{x / y:.3f}" for x, y in zip(a["fwd"], b["fwd"]))
    bwd_rounds = " ".join(f"{x / y:.3f}" for x, y in zip(a["bwd"], b["bwd"]))
    print(f"{sh:22} {med(a['fwd']):9.3f} {med(b['fwd']):9.3f} {med(a['fwd']) / med(b['fwd']):6.3f}"
          f" {med(a['bwd']):9.3f} {med(b['bwd']):9.3f} {med(a['bwd']) / med(b['bwd']):6.3f}  {fwd_rounds} | {bwd_rounds}")
print(f"ratio: ours / {name}, medians over the rounds (below 1: ours is faster)")
PY
}

: >"$out/runs.txt"
for r in $(seq 0 $((rounds - 1))); do
  for sh in "${shapes[@]}"; do
    sides=(flash other)
    (( r % 2 == 1 )) && sides=(other flash)
    for side in "${sides[@]}"; do
      if [ "$side" = flash ]; then
        line=$("$kcheck" --bench-one $sh $reps bf16 "$kpath" 2>&1 | grep -a '| forward')
      elif [ "$against" != sdpa ]; then
        line=$("$against" --bench-one $sh $reps bf16 "$kpath" 2>&1 | grep -a '| forward')
      else
        line=$(python3 tests/reference/sdpa_kernel_bench.py $sh $reps bf16 2>&1 | grep -a '| forward')
      fi
      echo "$r|$sh|$side|$line" >>"$out/runs.txt"
    done
  done
  summarize >"$out/table.txt"
done
cat "$out/table.txt"
