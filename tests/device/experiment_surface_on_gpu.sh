#!/usr/bin/env bash
# The experiments' one surface on a GPU: the CUDA build against LibTorch 2.x (the layers moved,
# descriptors, input schemas), every GPU test, the engine and CLI suites, and each experiment
# through its descriptor on cuda: bench, attention, precision autocast, collectives and ddp on
# one NCCL rank, plan; each run's --json reopened for its inputs.
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/experiment_surface_on_gpu.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/runs"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
build_with_deps stepscope-cli stepscope_gpu_tests stepscope_engine_tests stepscope_cli_tests || exit 1
root=$PWD
cli=$root/build/bin/stepscope-cli
verdict() { echo "$1: $2" | tee -a "$OUT/summary.txt"; }
gtest() {  # NAME BINARY: runs a suite, says how many passed and failed
  timeout 900 "$root/build/bin/$2" >"$OUT/$1.log" 2>&1
  verdict "$1" "exit $? ($(grep -c '^\[       OK \]' "$OUT/$1.log") ok, $(grep -c '^\[  SKIPPED \]' "$OUT/$1.log") skipped, $(grep -c '^\[  FAILED  \]' "$OUT/$1.log") failed)"
  grep -a '^\[  FAILED  \]' "$OUT/$1.log" | head -20 | tee -a "$OUT/summary.txt"
}

log "suites"
gtest gpu_tests stepscope_gpu_tests
# The engine suite's distributed tests need Gloo process groups: without the Gloo headers
# carried (tests/device/gloo_headers.sh), the CPU CI runs them, not this machine.
if grep -q "no Gloo headers" "$OUT/configure.log"; then
  verdict engine_tests "not run: this build has no Gloo process groups (the CPU CI runs them)"
else
  gtest engine_tests stepscope_engine_tests
fi
gtest cli_tests stepscope_cli_tests

cd "$OUT/runs" || exit 1
run() {  # NAME ARGS...: one experiment through its descriptor, its run record kept
  local name=$1
  shift
  timeout 300 "$cli" "$@" --csv "$name.csv" --json "$name.json" >"$name.out" 2>"$name.err"
  local status=$?
  verdict "$name" "exit $status, $(($(wc -l <"$name.csv") - 1)) row(s); inputs kept: $(python3 -c "import json,sys; d=json.load(open('$name.json')); print(d.get('inputs'))" 2>&1)"
  [ $status -eq 0 ] || tail -5 "$name.err" | tee -a "$OUT/summary.txt"
}
log "experiments on cuda"
run bench bench --model small --context 256 --batch 4 --precision bf16 --attention naive,flash --device cuda --warmup 2 --steps 5
run attention attention --impl naive,sdpa,flash --d 64 --seq 1024,4096 --batch 4 --precision bf16 --device cuda --steps 20
run autocast precision autocast --model small --precision bf16 --device cuda
run collectives collectives --device cuda --nproc 1 --sizes 1MB,64MB --iters 5
run ddp ddp --device cuda --nproc 1 --model tiny --context 64 --batch 2 --variant bucketed --steps 2
run plan plan --model xl --dp 8 --fsdp 4
log "done"
