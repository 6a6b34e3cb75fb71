#!/usr/bin/env bash
# Kernel profiling on a GPU: the GPU tests; profiling overhead (xl train step, with and
# without --profile kernels, alternated); our small-model forward summary against
# torch.profiler on the same model in the same call; the seeds' tables for small and 2.7B.
# Usage (GPU machine, repository root): tests/device/run_issue3.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/p"
export PYTHONUNBUFFERED=1
log() { echo "== $(date +%H:%M:%S) $*" | tee -a "$OUT/summary.txt"; }
cli=build/bin/stepscope-cli

log "build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build --target stepscope-cli stepscope_gpu_tests >"$OUT/build.log" 2>&1 ||
  { grep -a -B2 -A8 "error" "$OUT/build.log" | head -60; exit 1; }
build/bin/stepscope_gpu_tests 2>&1 | tail -3 | tee -a "$OUT/summary.txt"

log "overhead: xl train, fp32, without / with --profile kernels, twice"
common="--model xl --context 256 --batch 4 --mode train --warmup 5 --steps 10 --device cuda --quiet"
for round in 1 2; do
  $cli bench $common --csv "$OUT/p/plain$round.csv"
  $cli bench $common --profile kernels --csv "$OUT/p/profiled$round.csv"
done
python3 - "$OUT/p" <<'PY' | tee -a "$OUT/summary.txt"
import csv, sys
d = sys.argv[1]
mean = lambda f: float(next(csv.DictReader(open(f)))["total_mean_ms"])
for r in (1, 2):
    a, b = mean(f"{d}/plain{r}.csv"), mean(f"{d}/profiled{r}.csv")
    print(f"round {r}: plain {a:.2f} ms, profiled {b:.2f} ms, overhead ratio {b / a:.4f}")
PY

log "small forward: ours vs torch.profiler"
$cli bench --model small --context 256 --mode forward --warmup 5 --steps 10 --device cuda --profile kernels \
  --csv "$OUT/p/small_fwd.csv" --quiet
python3 tests/reference/profile_reference.py --model small --context 256 --mode forward --warmup 5 --steps 10 \
  --csv "$OUT/p/torch_small_fwd.csv" | tee -a "$OUT/summary.txt"

log "seeds' tables: small and 2.7B, forward and train"
for model in small 2.7B; do
  $cli bench --model $model --context 256 --mode forward,train --warmup 5 --steps 10 --device cuda \
    --profile kernels --csv "$OUT/p/seeds_$model.csv" --quiet
done
rm -f "$OUT"/p/*.trace.json.partial
(cd "$OUT" && tar -czf profile_results.tgz p && rm -rf p)
log "done"
