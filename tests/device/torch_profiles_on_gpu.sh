#!/usr/bin/env bash
# A user's own PyTorch profiles and our operator profiler, on a GPU, in one call:
# 1. with GPU_TESTS=1, the GPU tests of the profilers (CUPTI's external correlation ties kernels
#    to operators; step 3 checks the same end to end);
# 2. a torch.profiler trace and a CUDA memory snapshot of a PyTorch training loop made here
#    (tests/reference/make_torch_profile_fixtures.py), imported by stepscope-cli and checked
#    against the standard-library summaries of the same files (kernel counts and totals per name,
#    the snapshot's peak), then opened in the application offscreen with every tab exported
#    (window_kernels.png, window_operators.png, window_memory.png);
# 3. `bench --profile ops` on the small model (train, fp32 and bf16) against torch.profiler's
#    key_averages on the engine's mirror model (tests/reference/compare_operators.py);
# 4. the overhead of --profile ops: the step without and with it, alternated twice (small and xl).
# Usage (GPU machine, repository root, .qt-debs and .deps-debs carried): tests/device/torch_profiles_on_gpu.sh
# Environment: SKIP_BUILD=1 reuses build/ (a warm machine's); GPU_TESTS=1; OVERHEAD_MODELS="small xl".
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/stepscope-device}
t="$OUT/t"
mkdir -p "$t"
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee -a "$OUT/gpu.txt"
echo "commit $(run_commit)" | tee -a "$OUT/gpu.txt"
export XDG_CONFIG_HOME="$t/config"
if [ "${SKIP_BUILD:-0}" = 1 ] && [ -x build/bin/stepscope ]; then
  use_carried_qt
else
  build_app_with_carried_qt stepscope stepscope-cli $([ "${GPU_TESTS:-0}" = 1 ] && echo stepscope_gpu_tests) || exit 1
fi

if [ "${GPU_TESTS:-0}" = 1 ]; then
  log "GPU tests of the profilers"
  timeout 240 build/bin/stepscope_gpu_tests --gtest_filter='*Profil*:*Operator*:*Cupti*' >"$t/gpu_tests.log" 2>&1
  echo "gpu tests exit $? ($(grep -c '^\[       OK \]' "$t/gpu_tests.log") ok, $(grep -c '^\[  FAILED  \]' \
    "$t/gpu_tests.log") failed)" | tee -a "$OUT/summary.txt"
  grep -a '^\[  FAILED  \]' "$t/gpu_tests.log" | head | tee -a "$OUT/summary.txt"
fi

log "PyTorch's own files: a trace and a snapshot of a training loop, made now"
python3 tests/reference/make_torch_profile_fixtures.py --out "$t/fx" --device cuda >"$t/fixtures.log" 2>&1
echo "fixtures exit $?: $(ls "$t/fx" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
python3 tests/reference/torch_trace_summary.py "$t/fx/trace_cuda.json.gz" --out "$t/trace_summary.json"
python3 tests/reference/memory_snapshot_summary.py "$t/fx/snapshot_cuda.pickle" >"$t/snapshot_summary.json"
$cli import "$t/fx/trace_cuda.json.gz" --csv "$t/trace.csv" --json "$t/trace_record.json" >"$t/import_trace.log" 2>&1
echo "import trace exit $?" | tee -a "$OUT/summary.txt"
$cli import "$t/fx/snapshot_cuda.pickle" --csv "$t/snapshot.csv" >"$t/import_snapshot.log" 2>&1
echo "import snapshot exit $?" | tee -a "$OUT/summary.txt"
python3 tests/reference/check_import_against_summary.py --kernels "$t/trace.kernels.csv" \
  --trace-summary "$t/trace_summary.json" --peaks "$t/snapshot.cuda0.memory_peaks.csv" \
  --snapshot-summary "$t/snapshot_summary.json" | tee -a "$OUT/summary.txt"

log "the application opens both (offscreen), every tab exported"
for f in trace_cuda.json.gz snapshot_cuda.pickle; do
  timeout 120 build/bin/stepscope --history "$t/history.sqlite" --open-file "$t/fx/$f" --export "$t/app_${f%%.*}" \
    --quit >"$t/app_${f%%.*}.log" 2>&1
  echo "app $f exit $?: $(ls "$t/app_${f%%.*}" 2>/dev/null | grep -c png) screenshots" | tee -a "$OUT/summary.txt"
done

log "operators: ours (bench --profile ops) against key_averages, small train"
for p in fp32 bf16; do
  args="--model small --context 256 --batch 4 --mode train --precision $p --warmup 5 --steps 10"
  timeout 120 $cli bench $args --device cuda --profile kernels,ops --quiet --csv "$t/ops_$p.csv" >"$t/ops_$p.log" 2>&1
  echo "ours $p exit $?" | tee -a "$OUT/summary.txt"
  timeout 120 python3 tests/reference/operator_profile_reference.py $args --csv "$t/torch_ops_$p.csv" | tee -a "$OUT/summary.txt"
  python3 tests/reference/compare_operators.py --ours "$t/ops_$p.small-ctx256-b4-$p-train.operators.csv" \
    --torch "$t/torch_ops_$p.csv" --markdown "$t/compare_operators_$p.md" | tee -a "$OUT/summary.txt"
done

for model in ${OVERHEAD_MODELS:-small xl}; do
  log "overhead of --profile ops: $model train fp32, without / with, twice"
  mkdir -p "$t/overhead_$model"
  overhead "$t/overhead_$model" "--profile ops" --model $model --context 256 --batch 4 --mode train --precision fp32 \
    --warmup 5 --steps 10 --device cuda
done

log "done"
# Few files come back: the screenshots and the tables, the rest in one archive.
mkdir -p "$OUT/shots"
cp "$t"/app_trace_cuda/window_kernels.png "$t"/app_trace_cuda/window_operators.png \
  "$t"/app_snapshot_cuda/window_memory.png "$OUT/shots/" 2>/dev/null
cp "$t"/compare_operators_*.md "$OUT/" 2>/dev/null
rm -rf "$t/fx" "$t/config"
(cd "$OUT" && tar -czf details.tgz t && rm -rf t)
