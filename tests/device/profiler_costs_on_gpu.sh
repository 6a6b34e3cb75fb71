#!/usr/bin/env bash
# What profiling costs, piece by piece, on a launch-bound step and on a large one:
# 1. tests/device/profiler_cost_probe.cpp: host ns per operator call for the clocks, RecordFunction,
#    each CUPTI activity kind, external correlation, CUPTI's callback API and the operator recorder;
# 2. bench on MODELS (small, then xl) train fp32: off, --profile kernels, --profile kernels,ops,
#    alternated (small: ROUNDS times of STEPS steps; xl: twice, 10 steps), with the kernels and
#    operators each run found, and their profiled steps (the profilers' own, after the measured
#    ones): what tracing cost them;
# 3. the operators of the small model's profiled steps against key_averages, and torch.profiler's
#    own cost on the same steps (tests/reference/operator_profile_reference.py).
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/profiler_costs_on_gpu.sh
# Environment: SKIP_BUILD=1, SKIP_PROBE=1, MODELS ("small xl"), ROUNDS (3), STEPS (30), BIG_ROUNDS (2),
# REF_STEPS (STEPS).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/stepscope-device}
t="$OUT/t"; mkdir -p "$t"
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"
echo "commit $(run_commit)" | tee -a "$OUT/gpu.txt"
if [ "${SKIP_BUILD:-0}" != 1 ] || [ ! -x $cli ]; then
  build_with_deps stepscope-cli profiler_cost_probe stepscope_gpu_tests || exit 1
fi
log "GPU tests of the profilers"
timeout 240 build/bin/stepscope_gpu_tests --gtest_filter='*Profil*:*Operator*:*Cupti*' >"$t/gpu_tests.log" 2>&1
echo "gpu tests exit $? ($(grep -c '^\[       OK \]' "$t/gpu_tests.log") ok, $(grep -c '^\[  FAILED  \]' \
  "$t/gpu_tests.log") failed)" | tee -a "$OUT/summary.txt"
grep -a '^\[  FAILED  \]' "$t/gpu_tests.log" | head | tee -a "$OUT/summary.txt"
if [ "${SKIP_PROBE:-0}" != 1 ]; then
  log "per-call costs"
  timeout 180 build/bin/profiler_cost_probe 2>&1 | tee -a "$OUT/summary.txt" || true
fi
bench() {  # NAME FLAGS...   (env from the caller)
  local name=$1; shift
  timeout 200 $cli bench $args "$@" --quiet --csv "$t/$name.csv" >"$t/$name.log" 2>&1
  python3 - "$t" "$name" <<'PY' | tee -a "$OUT/summary.txt"
import csv, glob, sys
d, name = sys.argv[1], sys.argv[2]
try:
    row = next(csv.DictReader(open(f"{d}/{name}.csv")))
    step = float(row["total_mean_ms"])
except Exception as e:
    print(f"{name}: failed ({e})"); sys.exit()
extra = ""
for f in glob.glob(f"{d}/{name}.*.kernels.csv"):
    rows = list(csv.DictReader(open(f)))
    window = [r for r in rows if r.get("Range") == "measured window"]
    extra += (f"; kernels {sum(int(r['Instances']) for r in window)} launches, "
              f"{sum(int(r['Total Time (ns)']) for r in window) / 1e6:.2f} ms GPU, {len({r.get('Range') for r in rows})} ranges")
for f in glob.glob(f"{d}/{name}.*.operators.csv"):
    rows = list(csv.DictReader(open(f)))
    extra += f"; operators {sum(int(r['Calls']) for r in rows)} calls"
if row.get("profiled_step_ms"):
    extra += f"; profiled steps {float(row['profiled_step_ms']):.2f} ms ({float(row['profiler_slowdown']):.3f}x)"
print(f"{name}: {step:.2f} ms{extra}")
PY
}
for model in ${MODELS:-small xl}; do
  # The small model is launch-bound (what tracing slows most); xl is not.
  if [ $model = small ]; then steps=${STEPS:-30} rounds=${ROUNDS:-3}; else steps=10 rounds=${BIG_ROUNDS:-2}; fi
  args="--model $model --context 256 --batch 4 --mode train --precision fp32 --warmup 5 --steps $steps --device cuda"
  for round in $(seq 1 $rounds); do
    log "$model, round $round: off, --profile kernels, --profile kernels,ops"
    bench ${model}_off_$round
    bench ${model}_kernels_$round --profile kernels
    bench ${model}_ops_$round --profile kernels,ops
  done
done
grep -a -h "warning\|unattributed\|dropped" "$t"/*.log | sort | uniq -c | head -20 | tee -a "$OUT/summary.txt"
log "operators of the profiled steps against key_averages (and torch.profiler's own overhead), small train fp32"
ref="--model small --context 256 --batch 4 --mode train --precision fp32 --warmup 5 --steps ${REF_STEPS:-${STEPS:-30}}"
timeout 200 python3 tests/reference/operator_profile_reference.py $ref --csv "$t/torch_ops.csv" 2>&1 | tail -1 |
  tee -a "$OUT/summary.txt"
ours=$(ls "$t"/small_ops_1.*.operators.csv 2>/dev/null | head -1)
[ -n "$ours" ] && python3 tests/reference/compare_operators.py --ours "$ours" --torch "$t/torch_ops.csv" \
  --markdown "$OUT/compare_operators.md" | tail -4 | tee -a "$OUT/summary.txt"
log done
(cd "$OUT" && tar -czf details.tgz t && rm -rf t)
