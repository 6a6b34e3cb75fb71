#!/usr/bin/env bash
# The desktop application on a GPU machine, which has no Qt: Debian 12's Qt 6 packages (made
# by tests/device/fetch_qt_debs.sh into .qt-debs/, carried to the device) are unpacked into a prefix,
# the app is built against them and the machine's CUDA LibTorch, and it runs the xl model's
# bf16 training step with kernel and memory profiling offscreen, exporting every table and
# chart and a screenshot of each tab; then a four-model sweep for the Sweep tab.
# Usage (GPU machine, repository root, with .qt-debs/ carried): tests/device/gui_on_gpu.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/gui"
source "$(dirname "$0")/common.sh"
export XDG_CONFIG_HOME="$OUT/gui/config"  # a first session: default geometry and splitters
build_app_with_carried_qt stepscope stepscope-cli || exit 1

log "xl train bf16, kernels and memory, in the real application"
build/bin/stepscope --history "$OUT/gui/history.sqlite" --model xl --context 256 --batch 4 --precision bf16 \
  --mode train --warmup 3 --steps 5 --device cuda --profile kernels,memory --run \
  --export "$OUT/gui/export" --screenshot "$OUT/gui/window.png" --quit >"$OUT/gui/app.log" 2>&1
echo "exit status $?" | tee -a "$OUT/summary.txt"
tail -5 "$OUT/gui/app.log" | tee -a "$OUT/summary.txt"
ls "$OUT/gui/export" | tee -a "$OUT/summary.txt"
head -3 "$OUT/gui/export/benchmark.csv" "$OUT/gui/export/kernels.csv" | cut -c1-200 | tee -a "$OUT/summary.txt"
log "a sweep in the real application: small to xl, bf16 train, kernel profiling"
build/bin/stepscope --history "$OUT/gui/history.sqlite" --model small,medium,large,xl --context 256 --batch 4 \
  --precision bf16 --mode train --warmup 3 --steps 5 --device cuda --profile kernels --run \
  --export "$OUT/gui/sweep" --quit >"$OUT/gui/sweep.log" 2>&1
echo "exit status $?" | tee -a "$OUT/summary.txt"
cut -d, -f1-8 "$OUT/gui/sweep/sweep.csv" | tee -a "$OUT/summary.txt"
log "attention on the GPU, measured by the CLI, opened in the application"
$cli attention --device cuda --impl naive,sdpa,flash --d 64,128 --seq 1024,2048,4096,8192,16384 --precision bf16 \
  --batch 4 --warmup 5 --steps 20 --quiet --csv "$OUT/gui/attention.csv" --json "$OUT/gui/attention.json"
echo "exit status $?" | tee -a "$OUT/summary.txt"
build/bin/stepscope --history "$OUT/gui/history.sqlite" --open-file "$OUT/gui/attention.json" \
  --export "$OUT/gui/attention" --quit >"$OUT/gui/attention.log" 2>&1
echo "exit status $?" | tee -a "$OUT/summary.txt"
rm -f "$OUT/gui/history.sqlite"
(cd "$OUT" && tar -czf gui_results.tgz gui && rm -rf gui)
log "done"
