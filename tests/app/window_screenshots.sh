#!/usr/bin/env bash
# Every tab of the real application after real CPU runs, in a window under Xvfb with a window
# manager (what a user sees, decorations and all, not an offscreen grab), at each screen size.
# The runs are made by stepscope-cli (bench sweep with both profilers, attention, collectives
# and DDP over 2 Gloo ranks, the precision lab) and opened side by side with --open-file; the
# tabs are switched with Ctrl+1..9 and 0 as a user would.
# Usage: tests/app/window_screenshots.sh BUILD_DIR OUT_DIR [WxH ...]   (default 1280x720 1920x1080)
# Needs xvfb-run, openbox, xdotool and ImageMagick's import.
set -euo pipefail
build=$(realpath "$1")
out=$(realpath -m "$2")
shift 2
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1280x720 1920x1080)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cli="$build/bin/stepscope-cli"
q=(--quiet)
echo "runs, into $work" >&2
"$cli" bench --model tiny --context 64,256 --batch 2 --engine eager,fused --mode train --warmup 1 --steps 3 \
  --profile kernels,memory --csv "$work/bench.csv" --json "$work/bench.json" "${q[@]}"
"$cli" attention --impl naive,flash --d 16,64 --seq 64,128,256,512 --batch 2 --warmup 1 --steps 5 \
  --csv "$work/attention.csv" --json "$work/attention.json" "${q[@]}"
"$cli" collectives --nproc 2 --sizes 64KB,1MB,8MB --warmup 2 --iters 5 \
  --csv "$work/collectives.csv" --json "$work/collectives.json" "${q[@]}"
"$cli" ddp --nproc 2 --model tiny --context 64 --batch 2 --warmup 1 --steps 3 --bucket-mb 0.1,1 \
  --csv "$work/ddp.csv" --json "$work/ddp.json" "${q[@]}"
"$cli" precision accumulate --csv "$work/accumulate.csv" --json "$work/accumulate.json" "${q[@]}"
# LibTorch 1.13's CPU autocast fails on the toy model's LayerNorm: then the tab shows accumulation.
autocast=""
if "$cli" precision autocast --csv "$work/autocast.csv" --json "$work/autocast.json" "${q[@]}"; then
  autocast="$work/autocast.json,"
fi
files="$work/accumulate.json,$autocast$work/attention.json,$work/collectives.json,$work/ddp.json,$work/bench.json"
tabs=(benchmark kernels operators memory sweep attention collectives ddp precision planner)
for size in "${sizes[@]}"; do
  echo "window at $size" >&2
  export XDG_CONFIG_HOME="$work/config-$size"  # a first session: default geometry and splitters
  xvfb-run -a -s "-screen 0 ${size}x24" bash -c '
    openbox >/dev/null 2>&1 &
    sleep 1
    "$0" --history "$1/history-$2.sqlite" --open-file "$3" >"$1/app-$2.log" 2>&1 &
    app=$!
    for i in $(seq 60); do xdotool search --name "^Stepscope" >/dev/null 2>&1 && break; sleep 0.5; done
    sleep 4
    win=$(xdotool search --name "^Stepscope" | head -1)
    xdotool windowactivate --sync "$win" 2>/dev/null || xdotool windowfocus "$win" 2>/dev/null || true
    n=1
    for tab in $5; do
      xdotool key "ctrl+$((n % 10))"  # the tenth tab is Ctrl+0
      sleep 1.5
      import -window root "$4/cpu-$2-$n-$tab.png"
      n=$((n + 1))
    done
    kill $app
  ' "$build/bin/stepscope" "$work" "$size" "$files" "$out" "${tabs[*]}"
done
ls "$out" >&2
