#!/usr/bin/env bash
# The flash kernels of this tree against those of OLD_TREE (another commit's engine/ and
# tests/kernels/, e.g. from `git archive`): each built by its own tests/kernels/build_check.sh on
# every core, timed; this tree's self-check; then both --bench tables alternated ROUNDS times
# (kernel_ab.sh), forward and backward per shape. What a change to how the kernels are built
# (translation units, flags) costs or gains, on the GPU and in the build.
# Usage (GPU machine, repository root): tests/device/kernel_trees_ab.sh OLD_TREE [ROUNDS]
set -uo pipefail
old_tree=$1 rounds=${2:-2}
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$OUT/summary.txt"

build() {  # NAME TREE: flash_kernel_check of TREE into /tmp/kernels-NAME, timed
  local start end
  start=$(date +%s.%N)
  (cd "$2" && tests/kernels/build_check.sh "/tmp/kernels-$1") >"$OUT/build_$1.log" 2>&1 ||
    { log "$1: build failed"; tail -30 "$OUT/build_$1.log"; return 1; }
  end=$(date +%s.%N)
  log "$1: kernels built in $(python3 -c "print(f'{$end - $start:.1f}')") s with $(nproc) cores"
}
build old "$old_tree" || exit 1
build new "$PWD" || exit 1
/tmp/kernels-new/flash_kernel_check >"$OUT/self_check.log" 2>&1
log "new: self-check exit $?: $(tail -n 2 "$OUT/self_check.log" | tr '\n' ' ')"
OUT=$OUT tests/device/kernel_ab.sh /tmp/kernels-old/flash_kernel_check /tmp/kernels-new/flash_kernel_check "$rounds" |
  tee -a "$OUT/summary.txt"
