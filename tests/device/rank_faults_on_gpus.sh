#!/usr/bin/env bash
# A job's faults on NCCL, as tests/cli/run_rank_{signals,rendezvous}.sh and run_memory_prechecks.sh
# check them on Gloo: the CUDA build against LibTorch 2.x (TCPStore, the agreement, the
# supervisor), a healthy 2-GPU all-reduce and DDP run, ranks started with different options,
# SIGTERM to one rank (local workers and ranks started by hand), and configurations beyond the
# GPUs' memory as OOM rows. Needs 2 GPUs.
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/rank_faults_on_gpus.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/f"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
build_with_deps stepscope-cli stepscope_gpu_tests || exit 1
cd "$OUT/f" || exit 1
cli=$OLDPWD/build/bin/stepscope-cli
verdict() { echo "$1: $2" | tee -a "$OUT/summary.txt"; }
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

log "GPU tests of the distributed path"
timeout 300 "$OLDPWD/build/bin/stepscope_gpu_tests" --gtest_filter='DdpCuda.*:CudaEngine.OutOfMemory*' >gpu_tests.log 2>&1
verdict "gpu tests" "exit $? ($(grep -c '^\[       OK \]' gpu_tests.log) ok, $(grep -c '^\[  FAILED  \]' gpu_tests.log) failed)"

log "healthy runs on NCCL"
timeout 120 $cli collectives --device cuda --nproc 2 --sizes 1MB,100MB --iters 10 --quiet --csv healthy.csv 2>healthy.err
verdict "allreduce x2" "exit $?: $(tail -n +2 healthy.csv | cut -d, -f1-4,9-11 | tr '\n' ' ')"
timeout 200 $cli ddp --device cuda --nproc 2 --model small --context 128 --batch 4 --variant bucketed --steps 3 \
  --quiet --csv ddp.csv 2>ddp.err
verdict "ddp x2" "exit $?: $(tail -n +2 ddp.csv | head -1 | cut -c1-160)"

log "ranks started with different options"
port=29611; start=$(now)
for r in 0 1; do
  MASTER_ADDR=127.0.0.1 MASTER_PORT=$port RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 timeout 60 \
    $cli collectives --device cuda --sizes "$(( (r + 1) * 64 ))KB" --timeout 20 --quiet 2>"differ$r.err" >/dev/null &
  p[$r]=$!
done
wait "${p[0]}"; s0=$?; wait "${p[1]}"; s1=$?
verdict "differing --sizes" "exits $s0 and $s1 after $(took "$start") s; rank 0: $(tail -1 differ0.err)"

log "SIGTERM to one of 2 local workers on NCCL"
sizes=$(printf '256MB,%.0s' $(seq 1 60)); sizes=${sizes%,}
$cli collectives --device cuda --nproc 2 --sizes "$sizes" --warmup 0 --iters 50 --csv local.csv 2>local.err &
launcher=$!
for _ in $(seq 1 600); do [ "$(tail -n +2 local.csv 2>/dev/null | wc -l)" -ge 1 ] && break; sleep 0.1; done
workers=$(pgrep -P $launcher | tr '\n' ' ')
victim=""
for pid in $workers; do tr '\0' '\n' <"/proc/$pid/environ" | grep -qx RANK=1 && victim=$pid; done
rows=$(tail -n +2 local.csv | wc -l); start=$(now)
kill -TERM "$victim"
wait $launcher; status=$?
left=0; for pid in $workers; do kill -0 "$pid" 2>/dev/null && left=1; done
verdict "local SIGTERM" "exit $status after $(took "$start") s, workers left: $left, rows $rows -> $(tail -n +2 local.csv | wc -l); $(grep 'ranks:' local.err)"

log "SIGTERM to rank 1 of 2 started by hand on NCCL"
port=29613
for r in 0 1; do
  MASTER_ADDR=127.0.0.1 MASTER_PORT=$port RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 \
    $cli collectives --device cuda --sizes "$sizes" --warmup 0 --iters 50 --quiet --csv byhand.csv 2>"byhand$r.err" &
  p[$r]=$!
done
for _ in $(seq 1 600); do [ "$(tail -n +2 byhand.csv 2>/dev/null | wc -l)" -ge 1 ] && break; sleep 0.1; done
start=$(now); kill -TERM "${p[1]}"
wait "${p[0]}"; s0=$?; wait "${p[1]}"; s1=$?
verdict "by-hand SIGTERM" "exits $s0 and $s1 after $(took "$start") s; rank 0: $(tail -1 byhand0.err)"

log "beyond the GPUs' memory"
start=$(now)
timeout 120 $cli collectives --device cuda --nproc 2 --sizes 500GB --warmup 0 --iters 1 --quiet >oom_allreduce.csv 2>oom.err
verdict "allreduce 500 GB" "exit $? after $(took "$start") s: $(tail -n +2 oom_allreduce.csv | cut -d, -f11,15 | cut -c1-200)"
start=$(now)
timeout 200 $cli ddp --device cuda --nproc 2 --model 2.7B --context 2048 --batch 64 --variant flat --warmup 0 --steps 1 \
  --quiet >oom_ddp.csv 2>>oom.err
verdict "ddp 2.7B b64" "exit $? after $(took "$start") s: $(tail -n +2 oom_ddp.csv | grep -o 'OOM.*' | cut -c1-200)"
