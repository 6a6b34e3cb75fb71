#!/usr/bin/env bash
# Memory profiling on a GPU.
#   checks: the GPU tests; the memory_viz snapshot (pickle, memory_viz, replayed peak); recording
#           overhead on the xl training step (time and peak, with and without --profile memory,
#           alternated); the analytic check on 2.7B at context 256.
#   table:  the handout's memory table (2.7B, batch 4, context 128/256/512, forward-only and full
#           step, fp32 and bf16) from ours against torch.cuda.max_memory_allocated() of PyTorch
#           running the engine's operators (mirror), the course's reference model, and its fused
#           variant, in the same call.
# Usage (GPU machine, repository root): tests/device/memory_profiler_vs_pytorch.sh checks|table|all
set -uo pipefail
what=${1:-all}
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/m"
source "$(dirname "$0")/common.sh"
build_for_device || exit 1

if [ "$what" = checks ] || [ "$what" = all ]; then
  build/bin/stepscope_gpu_tests >"$OUT/m/gpu_tests.log" 2>&1; tail -3 "$OUT/m/gpu_tests.log" | tee -a "$OUT/summary.txt"
  grep -B3 -A12 "Failure" "$OUT/m/gpu_tests.log" | head -60

  log "memory_viz snapshot: small train"
  $cli bench --model small --context 256 --mode train --warmup 2 --steps 3 --device cuda --profile memory \
    --csv "$OUT/m/snap.csv" 2>&1 | grep -v "measuring\|warm-up" | tee -a "$OUT/summary.txt"
  s="$OUT/m/snap.small-ctx256-b4-fp32-train"
  ls -la "$s.memory_snapshot.pickle" | tee -a "$OUT/summary.txt"
  python3 tests/reference/check_memory_snapshot.py "$s.memory_snapshot.pickle" "$s.memory_peaks.csv" \
    --html "$OUT/m/snapshot_trace.html" 2>&1 | tee -a "$OUT/summary.txt"
  rm -f "$s.memory_snapshot.pickle"

  log "recording overhead: xl train, fp32, without / with --profile memory, twice"
  overhead "$OUT/m" "--profile memory" --model xl --context 256 --batch 4 --mode train --warmup 5 --steps 10 \
    --device cuda

  log "analytic check: 2.7B train, context 256"
  $cli bench --model 2.7B --context 256 --mode train --warmup 2 --steps 3 --device cuda --profile memory \
    --csv "$OUT/m/analytic.csv" --quiet
  rm -f "$OUT"/m/analytic*.memory_snapshot.pickle
  python3 tests/reference/check_memory_analytic.py "$OUT/m/analytic.csv" 2>&1 | tee -a "$OUT/summary.txt"
fi

if [ "$what" = table ] || [ "$what" = all ]; then
  flags="--model 2.7B --context 128,256,512 --batch 4 --precision fp32,bf16 --mode forward,train --warmup 2 --steps 3 --device cuda"
  log "ours: $flags --profile memory"
  $cli bench $flags --profile memory --csv "$OUT/m/ours.csv" --quiet
  rm -f "$OUT"/m/ours*.memory_snapshot.pickle
  log "PyTorch: the engine's mirror, the reference and its fused variant; same flags"
  for variant in mirror reference fused; do
    python3 tests/reference/bench_reference.py $flags --variant $variant --csv "$OUT/m/pytorch_$variant.csv" \
      2>"$OUT/m/pytorch_$variant.log"
  done
  python3 tests/reference/compare_memory.py --ours "$OUT/m/ours.csv" --mirror "$OUT/m/pytorch_mirror.csv" \
    --reference "$OUT/m/pytorch_reference.csv" --fused "$OUT/m/pytorch_fused.csv" \
    --markdown "$OUT/m/compare_memory.md" | tee -a "$OUT/summary.txt"
fi
rm -f "$OUT"/m/*.partial
(cd "$OUT" && tar -czf memory_results.tgz m && rm -rf m)
log "done"
