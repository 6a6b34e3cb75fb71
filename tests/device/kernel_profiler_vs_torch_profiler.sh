#!/usr/bin/env bash
# Kernel profiling on a GPU: the GPU tests; profiling overhead (xl train step, with and
# without --profile kernels, alternated); our small-model forward summary against
# torch.profiler on the same model in the same call (each side twice, for the noise);
# the seeds' tables for small and 2.7B; our NVTX ranges under nsys when it is installed.
# Usage (GPU machine, repository root): tests/device/kernel_profiler_vs_torch_profiler.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/p"
source "$(dirname "$0")/common.sh"
build_for_device || exit 1
build/bin/stepscope_gpu_tests >"$OUT/p/gpu_tests.log" 2>&1; tail -3 "$OUT/p/gpu_tests.log" | tee -a "$OUT/summary.txt"

log "small forward: ours vs torch.profiler, twice each"
small="--model small --context 256 --mode forward --warmup 5 --steps 10"
for run in 1 2; do
  $cli bench $small --device cuda --profile kernels --csv "$OUT/p/small_fwd$run.csv" --quiet
  python3 tests/reference/profile_reference.py $small --csv "$OUT/p/torch_small_fwd$run.csv" | tee -a "$OUT/summary.txt"
done
stem=small-ctx256-b4-fp32-forward
python3 tests/reference/compare_profile.py --ours "$OUT/p/small_fwd1.$stem.kernels.csv" \
  --ours-again "$OUT/p/small_fwd2.$stem.kernels.csv" --torch "$OUT/p/torch_small_fwd1.csv" \
  --torch-again "$OUT/p/torch_small_fwd2.csv" --markdown "$OUT/p/compare_profile.md" | tee -a "$OUT/summary.txt"

log "overhead: xl train, fp32, without / with --profile kernels, twice"
overhead "$OUT/p" "--profile kernels" --model xl --context 256 --batch 4 --mode train --warmup 5 --steps 10 \
  --device cuda

log "seeds' tables: small and 2.7B, forward and train (digest on the terminal)"
for model in small 2.7B; do
  $cli bench --model $model --context 256 --mode forward,train --warmup 5 --steps 10 --device cuda \
    --profile kernels --csv "$OUT/p/seeds_$model.csv" 2>"$OUT/p/seeds_$model.digest.txt"
  grep -v "measuring\|warm-up" "$OUT/p/seeds_$model.digest.txt" | tee -a "$OUT/summary.txt"
done

nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
if [ -n "$nsys" ]; then
  log "nsys: our NVTX ranges"
  "$nsys" profile -t cuda,nvtx -o "$OUT/p/nsys_small" $cli bench $small --device cuda --quiet >"$OUT/p/nsys.log" 2>&1
  "$nsys" stats -r nvtx_sum "$OUT/p/nsys_small.nsys-rep" 2>&1 | head -30 | tee -a "$OUT/summary.txt"
  rm -f "$OUT"/p/nsys_small.*
else
  log "nsys: not installed on this machine"
fi
rm -f "$OUT"/p/*.trace.json "$OUT"/p/*.partial
(cd "$OUT" && tar -czf profile_results.tgz p && rm -rf p)
log "done"
