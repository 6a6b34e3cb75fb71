#!/usr/bin/env bash
# Memory profiling on a GPU: the GPU tests, then the handout's memory table (2.7B, batch 4,
# context 128/256/512, forward-only and full step, fp32 and bf16) from our memory timeline and
# the caching allocator, against torch.cuda.max_memory_allocated() of PyTorch in the same call.
# Usage (GPU machine, repository root): tests/device/run_issue4.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/m"
export PYTHONUNBUFFERED=1
log() { echo "== $(date +%H:%M:%S) $*" | tee -a "$OUT/summary.txt"; }

log "build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build --target stepscope-cli stepscope_gpu_tests >"$OUT/build.log" 2>&1 ||
  { grep -a -B2 -A8 "error" "$OUT/build.log" | head -60; exit 1; }
build/bin/stepscope_gpu_tests 2>&1 | tail -3 | tee -a "$OUT/summary.txt"

flags="--model 2.7B --context 128,256,512 --batch 4 --precision fp32,bf16 --mode forward,train --warmup 2 --steps 3 --device cuda"
log "ours: $flags --profile memory"
build/bin/stepscope-cli bench $flags --profile memory --csv "$OUT/m/ours.csv" --quiet
log "PyTorch reference and fused variant: same flags"
python3 tests/reference/bench_reference.py $flags --csv "$OUT/m/pytorch.csv" 2>"$OUT/m/pytorch.log"
python3 tests/reference/bench_reference.py $flags --variant fused --csv "$OUT/m/pytorch_fused.csv" 2>"$OUT/m/fused.log"
python3 tests/reference/compare_bench.py --ours "$OUT/m/ours.csv" --reference "$OUT/m/pytorch.csv" \
  --markdown "$OUT/m/compare.md" | tee -a "$OUT/summary.txt"
python3 tests/reference/compare_bench.py --ours "$OUT/m/ours.csv" --reference "$OUT/m/pytorch_fused.csv" \
  --markdown "$OUT/m/compare_fused.md" >/dev/null
(cd "$OUT" && tar -czf memory_results.tgz m && rm -rf m)
log "done"
