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
prefix=/tmp/stepscope-qt
if [ ! -f "$prefix/.unpacked" ]; then
  mkdir -p "$prefix"
  for deb in .qt-debs/*.deb; do dpkg -x "$deb" "$prefix"; done
  touch "$prefix/.unpacked"
fi
lib="$prefix/usr/lib/x86_64-linux-gnu"
# Debian 12 keeps some libraries (libdbus) in /lib, the rest in /usr/lib.
export LD_LIBRARY_PATH="$lib:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_PLUGIN_PATH="$lib/qt6/plugins"
# Offscreen, on a 1920 x 1080 screen: the window opens as it would on a desktop of that size.
echo '{"screens":[{"name":"s","x":0,"y":0,"width":1920,"height":1080,"logicalDpi":96,"logicalBaseDpi":96,"dpr":1}]}' \
  >"$prefix/screen.json"
export QT_QPA_PLATFORM="offscreen:configfile=$prefix/screen.json"
export XDG_CONFIG_HOME="$OUT/gui/config"  # a first session: default geometry and splitters
# Fonts: the carried DejaVu family, through a fontconfig file of our own.
cat >"$prefix/fonts.conf" <<CONF
<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$prefix/usr/share/fonts</dir><cachedir>$prefix/fontcache</cachedir></fontconfig>
CONF
export FONTCONFIG_FILE="$prefix/fonts.conf"
torch_cmake="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
# What the carried libraries need that neither they nor this machine provide.
for so in "$lib"/*.so.* "$lib"/qt6/plugins/platforms/libqoffscreen.so "$lib"/qt6/plugins/sqldrivers/*.so; do ldd "$so" 2>/dev/null | grep "not found"; done | sort -u |
  tee -a "$OUT/summary.txt"

log "build with Qt from $prefix"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTorch_DIR="$torch_cmake/Torch" \
  -DQt6_DIR="$lib/cmake/Qt6" -DCMAKE_PREFIX_PATH="$torch_cmake;$lib/cmake;$prefix/usr" >"$OUT/configure.log" 2>&1 ||
  { tail -40 "$OUT/configure.log"; exit 1; }
grep -i "qt 6\|command line only" "$OUT/configure.log" | tee -a "$OUT/summary.txt"
cmake --build build --target stepscope stepscope-cli >"$OUT/build.log" 2>&1 ||
  { grep -a -B2 -A8 "error" "$OUT/build.log" | head -60; exit 1; }
ldd build/bin/stepscope | grep "not found" | tee -a "$OUT/summary.txt"

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
