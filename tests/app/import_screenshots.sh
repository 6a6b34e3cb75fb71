#!/usr/bin/env bash
# The application with PyTorch's own files opened (--open-file), in a window under Xvfb with a
# window manager, at each screen size: the committed torch.profiler trace (the window brings the
# Kernels tab forward, then the Benchmark tab with Ctrl+1) and CUDA memory snapshot (the Memory
# tab), as a user who opened them sees them.
# Usage: tests/app/import_screenshots.sh BUILD_DIR OUT_DIR [WxH ...]   (default 1280x720 1920x1080)
# Needs xvfb-run, openbox, xdotool and ImageMagick's import.
set -euo pipefail
build=$(realpath "$1")
out=$(realpath -m "$2")
shift 2
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1280x720 1920x1080)
data=$(realpath "$(dirname "$0")/../data/torch_profiles")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
for size in "${sizes[@]}"; do
  for file in trace_cuda.json.gz snapshot_cuda.pickle; do
    name=${file%%.*}
    echo "$file at $size" >&2
    export XDG_CONFIG_HOME="$work/config-$size-$name"  # a first session: default geometry and splitters
    xvfb-run -a -s "-screen 0 ${size}x24" bash -c '
      openbox >/dev/null 2>&1 &
      sleep 1
      "$0" --history "$1/history-$2.sqlite" --open-file "$3" >"$1/app-$2-$5.log" 2>&1 &
      app=$!
      for i in $(seq 60); do xdotool search --name "^Stepscope" >/dev/null 2>&1 && break; sleep 0.5; done
      sleep 5
      win=$(xdotool search --name "^Stepscope" | head -1)
      xdotool windowactivate --sync "$win" 2>/dev/null || xdotool windowfocus "$win" 2>/dev/null || true
      sleep 1
      import -window root "$4/import-$2-$5.png"
      if [ "$5" = trace_cuda ]; then
        xdotool key ctrl+1
        sleep 1.5
        import -window root "$4/import-$2-$5-benchmark.png"
      fi
      kill $app
    ' "$build/bin/stepscope" "$work" "$size" "$data/$file" "$out" "$name"
  done
done
ls "$out" >&2
