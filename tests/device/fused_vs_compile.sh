#!/usr/bin/env bash
# One device call (1 GPU, H100, at most 10 minutes) for issue 37: our fused engine against
# torch.compile, the seeds' torch_compile problem (b). The CUDA build with the carried Debian
# packages, the fused kernels' GPU tests, then per model x precision (training step, batch 4,
# 5 warm-up and 10 measured steps): ours with --engine eager,fused; the course's model in PyTorch
# eager, under torch.compile(model) and under torch.compile(model, mode="reduce-overhead")
# (tests/reference/bench_reference.py, one process per run and model, each with a timeout); ours
# again for the card's drift; and $OUT/compare_compile.md (tests/reference/compare_compile.py).
#
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/fused_vs_compile.sh
# Environment (all optional):
#   MODELS=small,medium,large,xl,2.7B  CONTEXT=256 (a comma list works)  BATCH=4  PRECISIONS=fp32,bf16
#   SKIP_BUILD=1   reuse build/ (a warm machine's); builds anyway when build/bin/stepscope-cli is missing
#   SKIP_TESTS=1   no GPU tests             SKIP_OURS=1   no stepscope bench (PyTorch's side only)
#   TORCH_RUNS="reference compile compile-ro"  runs of bench_reference.py, in this order per model;
#                  a run is BASE[+loss][+fused-adamw], BASE one of reference, fused, compile,
#                  compile-ro; +loss adds --compile-loss, +fused-adamw --optimizer torch-fused
#   BUDGET_S=555   wall seconds for the whole script; torch runs that no longer fit are skipped
#                  (said in the table), and ours-again only runs when its first run's time is left
#   REF_TIMEOUT=120 COMPILE_TIMEOUT=240 OURS_TIMEOUT=240 TEST_TIMEOUT=240  caps of one process (seconds)
#   BENCH_EXTRA="" extra flags for stepscope-cli bench (both runs)
#   DEVICE=cuda    (cpu only for a dry run of the script's flow on a machine without a GPU)
# The compilation is in the warm-up and takes most of a compile run (each model compiles twice
# per run, fp32 and bf16); Inductor's caches are kept in TORCHINDUCTOR_CACHE_DIR
# (/tmp/stepscope-inductor), so a later call on the same warm machine compiles faster. The whole
# sweep is unlikely to fit in one call: models are done in order and what no longer fits is
# skipped and named in the table. Split it over calls made back to back (a machine stays warm
# only briefly; SKIP_BUILD=1 builds anyway on a fresh one):
#   MODELS=small,medium tests/device/fused_vs_compile.sh
#   SKIP_BUILD=1 SKIP_TESTS=1 MODELS=large,xl tests/device/fused_vs_compile.sh
#   SKIP_BUILD=1 SKIP_TESTS=1 MODELS=2.7B tests/device/fused_vs_compile.sh
# and join the calls' details.tgz CSVs with compare_compile.py (it takes several files a label).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/c"
source "$(dirname "$0")/common.sh"
T0=$(date +%s)
BUDGET_S=${BUDGET_S:-555}
MODELS=${MODELS:-small,medium,large,xl,2.7B}
CONTEXT=${CONTEXT:-256}
BATCH=${BATCH:-4}
PRECISIONS=${PRECISIONS:-fp32,bf16}
TORCH_RUNS=${TORCH_RUNS:-reference compile compile-ro}
REF_TIMEOUT=${REF_TIMEOUT:-120}
COMPILE_TIMEOUT=${COMPILE_TIMEOUT:-240}
OURS_TIMEOUT=${OURS_TIMEOUT:-240}
BENCH_EXTRA=${BENCH_EXTRA:-}
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-/tmp/stepscope-inductor}
DEVICE=${DEVICE:-cuda}
common="--context $CONTEXT --batch $BATCH --precision $PRECISIONS --mode train --warmup 5 --steps 10 --device $DEVICE"
left() { echo $((BUDGET_S - ($(date +%s) - T0))); }
rows_of() { if [ -s "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }
statuses=()  # --status LABEL:MODEL=TEXT for compare_compile.py

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' \
  2>&1 | tee -a "$OUT/gpu.txt"
echo "commit $(run_commit); $(nproc) CPUs" | tee -a "$OUT/gpu.txt"
log "models $MODELS, context $CONTEXT, batch $BATCH, $PRECISIONS, train; torch runs: $TORCH_RUNS; budget ${BUDGET_S}s"

# --- build and the fused kernels' GPU tests
if [ "${SKIP_BUILD:-0}" = 1 ] && [ -x "$cli" ]; then
  log "build skipped (SKIP_BUILD=1, $cli there)"
else
  [ "${SKIP_BUILD:-0}" = 1 ] && log "SKIP_BUILD=1 but no $cli on this machine: building"
  build_with_deps stepscope-cli stepscope_gpu_tests || log "build FAILED (PyTorch's side still runs)"
fi
if [ "${SKIP_TESTS:-0}" != 1 ] && [ -x build/bin/stepscope_gpu_tests ]; then
  log "GPU tests: Fused*:*Fused*"
  timeout -k 10 ${TEST_TIMEOUT:-240} build/bin/stepscope_gpu_tests --gtest_filter='Fused*:*Fused*' >"$OUT/gpu_tests.log" 2>&1
  echo "gpu tests exit $? ($(grep -c '^\[       OK \]' "$OUT/gpu_tests.log") ok, $(grep -c '^\[  SKIPPED \]' \
    "$OUT/gpu_tests.log") skipped, $(grep -c '^\[  FAILED  \]' "$OUT/gpu_tests.log") failed)" | tee -a "$OUT/summary.txt"
  grep -a '^\[  FAILED  \]' "$OUT/gpu_tests.log" | head -20 | tee -a "$OUT/summary.txt"
fi

# --- ours: eager and fused in one process
have_ours=0
[ "${SKIP_OURS:-0}" != 1 ] && [ -x "$cli" ] && have_ours=1
engine_flag=""
if [ $have_ours = 1 ]; then
  if $cli bench --help 2>&1 | grep -q -- '--engine'; then
    engine_flag="--engine eager,fused"
  else
    log "this stepscope-cli has no --engine: ours is eager only"
  fi
fi
ours_s=0
ours_bench() {  # CSV-STEM: ours, eager and fused, every model; sets ours_s
  local t=$OURS_TIMEOUT start
  start=$(date +%s)
  [ $(($(left) - 15)) -lt $t ] && t=$(($(left) - 15))
  if [ $t -lt 10 ]; then log "ours ($1) skipped: ${t}s of budget"; return 1; fi
  log "stepscope bench $engine_flag --model $MODELS $common $BENCH_EXTRA (timeout ${t}s)"
  timeout -k 10 $t $cli bench $engine_flag --model "$MODELS" $common $BENCH_EXTRA --quiet --csv "$OUT/c/$1.csv" \
    >"$OUT/c/$1.log" 2>&1
  echo "stepscope ($1) exit $?, $(rows_of "$OUT/c/$1.csv") row(s)" | tee -a "$OUT/summary.txt"
  grep -a -m3 -i "error" "$OUT/c/$1.log" | cut -c1-300 | tee -a "$OUT/summary.txt"
  ours_s=$(($(date +%s) - start))
}
[ $have_ours = 1 ] && ours_bench ours

# --- PyTorch: per model, each run in its own process
run_args() {  # RUN -> bench_reference.py flags
  local base=${1%%+*} args=""
  case $base in
    reference) args="--variant reference" ;;
    fused) args="--variant fused" ;;
    compile) args="--variant compile" ;;
    compile-ro) args="--variant compile-reduce-overhead" ;;
    *) return 1 ;;
  esac
  case "$1" in *+loss*) args="$args --compile-loss" ;; esac
  case "$1" in *+fused-adamw*) args="$args --optimizer torch-fused" ;; esac
  echo "$args"
}
label_of() { [ "$1" = reference ] && echo eager || echo "$1"; }
torch_specs=()
for model in ${MODELS//,/ }; do
  for run in $TORCH_RUNS; do
    label=$(label_of "$run")
    args=$(run_args "$run") || { log "unknown torch run '$run' (skipped)"; continue; }
    cap=$COMPILE_TIMEOUT
    case $run in reference* | fused*) cap=$REF_TIMEOUT ;; esac
    reserve=$((ours_s + 25))  # ours again and the table
    t=$(($(left) - reserve))
    [ $t -gt $cap ] && t=$cap
    if [ $t -lt 30 ]; then
      log "torch $run $model skipped: ${t}s of budget left for it"
      statuses+=(--status "$label:$model=skipped")
      continue
    fi
    csv="$OUT/c/torch_${run//+/_}_$model.csv"
    log "torch $run $model: bench_reference.py $args (timeout ${t}s)"
    timeout -k 10 $t python3 tests/reference/bench_reference.py --model "$model" $common $args --csv "$csv" \
      >"${csv%.csv}.log" 2>&1
    status=$?
    echo "torch $run $model exit $status: $(tail -n +2 "$csv" 2>/dev/null | cut -d, -f4,6,7 | tr '\n' ' ')" |
      tee -a "$OUT/summary.txt"
    grep -a -m3 "Error\|error:" "${csv%.csv}.log" | cut -c1-300 | tee -a "$OUT/summary.txt"
    case $status in
      124 | 137) statuses+=(--status "$label:$model=timeout") ;;
      0) ;;
      *) statuses+=(--status "$label:$model=exit $status") ;;
    esac
    torch_specs+=(--torch "$label=$csv")
  done
done

# --- ours again (drift), if its time is left
again=()
if [ $have_ours = 1 ]; then
  if [ $(($(left) - 20)) -ge $((ours_s + ours_s / 5)) ]; then
    ours_bench ours_again && [ -s "$OUT/c/ours_again.csv" ] && again=(--ours-again "$OUT/c/ours_again.csv")
  else
    log "ours again skipped: $(left)s left, the first run took ${ours_s}s"
  fi
fi

# --- the table
ours=()
[ -s "$OUT/c/ours.csv" ] && ours=(--ours "$OUT/c/ours.csv")
log "compare_compile.py"
python3 tests/reference/compare_compile.py ${ours[@]+"${ours[@]}"} ${again[@]+"${again[@]}"} \
  ${torch_specs[@]+"${torch_specs[@]}"} ${statuses[@]+"${statuses[@]}"} \
  --markdown "$OUT/compare_compile.md" >/dev/null 2>"$OUT/c/compare.err"
echo "compare exit $?" | tee -a "$OUT/summary.txt"
cat "$OUT/c/compare.err"

# Few files come back: the CSVs and logs go in one archive.
log "done in $(($(date +%s) - T0))s"
keep="summary.txt gpu.txt gpu_tests.log compare_compile.md details.tgz"
(cd "$OUT" && tar -czf /tmp/details.tgz --exclude=details.tgz ./* && mv /tmp/details.tgz . &&
  for f in *; do case " $keep " in *" $f "*) ;; *) rm -rf "$f" ;; esac; done)
cat "$OUT/compare_compile.md" 2>/dev/null
