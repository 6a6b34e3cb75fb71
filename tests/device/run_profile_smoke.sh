#!/usr/bin/env bash
# Quick GPU check of kernel profiling: build the CLI and GPU tests, run the GPU tests, then
# profile the small model's forward pass and show the top kernels per range.
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build --target stepscope-cli stepscope_gpu_tests >"$OUT/build.log" 2>&1 ||
  { grep -a -B2 -A8 "error" "$OUT/build.log" | head -80; exit 1; }
build/bin/stepscope_gpu_tests 2>&1 | tee "$OUT/gpu_tests.log" | grep -E "OK|FAILED|Failure|Expected|Which|error" | head -30
build/bin/stepscope-cli bench --model small --context 256 --mode forward --warmup 2 --steps 5 --device cuda \
  --profile kernels --csv "$OUT/small_fwd.csv" 2>&1 | tail -6
head -12 "$OUT"/small_fwd.small-ctx256-b4-fp32-forward.kernels.csv | cut -c1-200
cat "$OUT"/small_fwd.small-ctx256-b4-fp32-forward.categories.csv | head -12
cat "$OUT"/small_fwd.small-ctx256-b4-fp32-forward.gpu_steps.csv
