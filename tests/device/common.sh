# Shared by the device scripts: logging, the build, and alternated runs with and without a flag.
# Source it after setting OUT.
export PYTHONUNBUFFERED=1
cli=build/bin/stepscope-cli

log() { echo "== $(date +%H:%M:%S) $*" | tee -a "$OUT/summary.txt"; }

# The commit this tree is: STEPSCOPE_COMMIT when the caller says (a device's copy of the working
# tree may carry a stale .git), else git's HEAD.
run_commit() { echo "${STEPSCOPE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo 'not recorded') (from .git)}"; }

build_for_device() {
  log "build"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; return 1; }
  cmake --build build --target stepscope-cli stepscope_gpu_tests >"$OUT/build.log" 2>&1 ||
    { grep -a -B2 -A8 "error" "$OUT/build.log" | head -60; return 1; }
}

# overhead DIR "FLAG" BENCH-ARGS...: the benchmark without and with FLAG, alternated twice;
# prints step-time and peak-memory ratios.
overhead() {
  local dir=$1 flag=$2
  shift 2
  for round in 1 2; do
    $cli bench "$@" --quiet --csv "$dir/plain$round.csv"
    $cli bench "$@" $flag --quiet --csv "$dir/flagged$round.csv"
  done
  rm -f "$dir"/flagged*.memory_snapshot.pickle
  python3 - "$dir" <<'PY' | tee -a "$OUT/summary.txt"
import csv, sys
d = sys.argv[1]
row = lambda f: next(csv.DictReader(open(f)))
for r in (1, 2):
    a, b = row(f"{d}/plain{r}.csv"), row(f"{d}/flagged{r}.csv")
    ta, tb = float(a["total_mean_ms"]), float(b["total_mean_ms"])
    pa, pb = int(a["peak_memory_bytes"]), int(b["peak_memory_bytes"])
    print(f"round {r}: step {ta:.2f} -> {tb:.2f} ms (ratio {tb / ta:.4f}); "
          f"peak {pa / 2**30:.3f} -> {pb / 2**30:.3f} GiB (ratio {pb / pa:.4f})")
PY
}

# The CUDA build with the carried Debian packages (.deps-debs: GoogleTest, nlohmann-json), for
# sm_90a; `targets` default to the command line and the GPU tests.
build_with_deps() {
  local targets=${*:-stepscope-cli stepscope_gpu_tests}
  mkdir -p build/deps && for d in .deps-debs/*.deb; do dpkg -x "$d" build/deps; done
  # Gloo process groups where the Gloo headers were carried (tests/device/gloo_headers.sh).
  local gloo=STEPSCOPE_GLOO_INCLUDE_DIR-NOTFOUND
  [ -d .deps-gloo/gloo ] && gloo=$PWD/.deps-gloo
  log "build"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEPSCOPE_DEPS_PREFIX="$PWD/build/deps/usr" \
    -DSTEPSCOPE_CUDA_ARCHITECTURES=90a -DSTEPSCOPE_GLOO_INCLUDE_DIR="$gloo" >"$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; return 1; }
  grep -a "NCCL\|nccl\|Gloo" "$OUT/configure.log" | tee -a "$OUT/summary.txt"
  cmake --build build --target $targets >"$OUT/build.log" 2>&1 && return 0
  grep -a -B2 -A12 "error" "$OUT/build.log" | head -80
  [ "$gloo" != STEPSCOPE_GLOO_INCLUDE_DIR-NOTFOUND ] || return 1
  log "build failed with the carried Gloo headers; again without Gloo process groups"
  cmake build -DSTEPSCOPE_GLOO_INCLUDE_DIR=STEPSCOPE_GLOO_INCLUDE_DIR-NOTFOUND >>"$OUT/configure.log" 2>&1 &&
    cmake --build build --target $targets >"$OUT/build2.log" 2>&1 ||
    { grep -a -B2 -A12 "error" "$OUT/build2.log" | head -40; return 1; }
}

# ddp_variants_against_torch MODEL RANKS: the training step on one GPU (ours, bench, and
# PyTorch's), the DDP variants on RANKS GPUs with the overlap picture, and PyTorch's DDP (25 MB
# buckets) on as many; the seeds' setting (context 128, 16 sequences a rank, fp32) into $OUT/d.
ddp_variants_against_torch() {
  local model=$1 ranks=$2 ctx=128 batch=16
  log "single-GPU step, $model ctx $ctx batch $batch fp32: ours (bench) and PyTorch"
  timeout 150 $cli bench --model $model --context $ctx --batch $batch --precision fp32 --mode train --device cuda \
    --warmup 2 --steps 5 --quiet --csv "$OUT/d/single_ours.csv"
  echo "bench exit $?" | tee -a "$OUT/summary.txt"
  timeout 150 python3 tests/reference/ddp_reference.py --model $model --context $ctx --batch $batch --warmup 2 \
    --steps 5 --csv "$OUT/d/single_torch.csv" >"$OUT/d/single_torch.log" 2>&1
  echo "torch single exit $?" | tee -a "$OUT/summary.txt"
  log "DDP variants x$ranks with the overlap picture"
  timeout 300 $cli ddp --device cuda --nproc $ranks --model $model --context $ctx --batch $batch --precision fp32 \
    --variant naive,flat,overlap,bucketed --bucket-mb 1,10,25,100,1000 --warmup 2 --steps 5 --timeout 120 --quiet \
    --csv "$OUT/d/ddp.csv" --json "$OUT/d/ddp.json" --trace "$OUT/d/ddp_trace.json"
  echo "ddp exit $?" | tee -a "$OUT/summary.txt"
  [ "$ranks" -ge 2 ] || return 0
  timeout 150 python3 -m torch.distributed.run --standalone --nproc-per-node $ranks tests/reference/ddp_reference.py \
    --model $model --context $ctx --batch $batch --warmup 2 --steps 5 --csv "$OUT/d/torch_ddp.csv" \
    >"$OUT/d/torch_ddp.log" 2>&1
  echo "torch ddp exit $?" | tee -a "$OUT/summary.txt"
}

# The application on a GPU machine, which has no Qt: Debian 12's Qt 6 packages (made by
# tests/device/fetch_qt_debs.sh into .qt-debs/, carried to the device) unpacked into a prefix,
# offscreen on a 1920 x 1080 screen with the carried DejaVu fonts; then the build of `targets`
# against them and the machine's CUDA LibTorch (with the carried .deps-debs where present).
use_carried_qt() {
  local prefix=/tmp/stepscope-qt
  if [ ! -f "$prefix/.unpacked" ]; then
    mkdir -p "$prefix"
    for deb in .qt-debs/*.deb; do dpkg -x "$deb" "$prefix"; done
    touch "$prefix/.unpacked"
  fi
  local lib="$prefix/usr/lib/x86_64-linux-gnu"
  # Debian 12 keeps some libraries (libdbus) in /lib, the rest in /usr/lib.
  export LD_LIBRARY_PATH="$lib:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export QT_PLUGIN_PATH="$lib/qt6/plugins"
  echo '{"screens":[{"name":"s","x":0,"y":0,"width":1920,"height":1080,"logicalDpi":96,"logicalBaseDpi":96,"dpr":1}]}' \
    >"$prefix/screen.json"
  export QT_QPA_PLATFORM="offscreen:configfile=$prefix/screen.json"
  cat >"$prefix/fonts.conf" <<CONF
<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$prefix/usr/share/fonts</dir><cachedir>$prefix/fontcache</cachedir></fontconfig>
CONF
  export FONTCONFIG_FILE="$prefix/fonts.conf"
}
build_app_with_carried_qt() {
  use_carried_qt
  local prefix=/tmp/stepscope-qt lib=/tmp/stepscope-qt/usr/lib/x86_64-linux-gnu torch_cmake deps=""
  torch_cmake="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
  if [ -d .deps-debs ]; then
    mkdir -p build/deps && for d in .deps-debs/*.deb; do dpkg -x "$d" build/deps; done
    deps="-DSTEPSCOPE_DEPS_PREFIX=$PWD/build/deps/usr"
  fi
  # What the carried libraries need that neither they nor this machine provide.
  for so in "$lib"/*.so.* "$lib"/qt6/plugins/platforms/libqoffscreen.so "$lib"/qt6/plugins/sqldrivers/*.so; do
    ldd "$so" 2>/dev/null | grep "not found"
  done | sort -u | tee -a "$OUT/summary.txt"
  log "build with Qt from $prefix: ${*:-stepscope stepscope-cli}"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTorch_DIR="$torch_cmake/Torch" $deps \
    -DSTEPSCOPE_CUDA_ARCHITECTURES=90a -DQt6_DIR="$lib/cmake/Qt6" \
    -DCMAKE_PREFIX_PATH="$torch_cmake;$lib/cmake;$prefix/usr" >"$OUT/configure.log" 2>&1 ||
    { tail -40 "$OUT/configure.log"; return 1; }
  grep -i "qt 6\|command line only" "$OUT/configure.log" | tee -a "$OUT/summary.txt"
  cmake --build build --target ${*:-stepscope stepscope-cli} >"$OUT/build.log" 2>&1 ||
    { grep -a -B2 -A8 "error" "$OUT/build.log" | head -60; return 1; }
  ldd build/bin/stepscope | grep "not found" | tee -a "$OUT/summary.txt"
  return 0
}
