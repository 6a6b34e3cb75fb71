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
export QT_QPA_PLATFORM=offscreen
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
rm -f "$OUT/gui/history.sqlite"
(cd "$OUT" && tar -czf gui_results.tgz gui && rm -rf gui)
log "done"
