#!/usr/bin/env bash
# One device call for sharding and the planner (issue 12):
#  - the CUDA build and the distributed GPU tests;
#  - DDP with each optimizer (adamw, sharded, zero1) over NCCL on every GPU there is, with the
#    memory per rank (--profile-memory) and --check; on 2+ GPUs the xl model (the seeds'
#    setting), else the small one on one rank (the NCCL paths of reduce-scatter, all-gather and
#    broadcast);
#  - the planner's closed loop: for the presets, planned fp32 weights, gradients and AdamW state
#    against the memory profiler's bytes in a training step.
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/sharded_optimizers_and_planner.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/d" "$OUT/p"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
gpus=$(nvidia-smi -L | wc -l)
log "$gpus GPU(s)"
build_with_deps || exit 1
log "GPU tests (distributed)"
build/bin/stepscope_gpu_tests --gtest_filter='*Ddp*' >"$OUT/gpu_tests.log" 2>&1
grep -a -E "OK \]|FAILED|PASSED|Failure|Expected|Which is" "$OUT/gpu_tests.log" | head -30 | tee -a "$OUT/summary.txt"

ranks=1 model=small batch=8
[ "$gpus" -ge 2 ] && ranks=$gpus model=xl batch=16
log "DDP x$ranks $model ctx 128 batch $batch: adamw, sharded, zero1; memory per rank"
timeout 420 $cli ddp --device cuda --nproc $ranks --model $model --context 128 --batch $batch --precision fp32 \
  --variant bucketed --bucket-mb 25 --optimizer adamw,sharded,zero1 --zero1-gather step-end,next-forward \
  --warmup 2 --steps 5 --profile-memory --check \
  --timeout 120 --quiet --csv "$OUT/d/ddp.csv" --json "$OUT/d/ddp.json"
echo "ddp exit $?" | tee -a "$OUT/summary.txt"
python3 - "$OUT/d" <<'PY' | tee -a "$OUT/summary.txt"
import csv, os, sys
d = sys.argv[1]
rows = lambda f: list(csv.DictReader(open(os.path.join(d, f)))) if os.path.exists(os.path.join(d, f)) else []
for r in rows("ddp.csv"):
    print(f"ddp {r['optimizer']:8} {r.get('zero1_gather', ''):12} x{r['nproc']} {r['status']}: step {r['step_ms']:.8} ms, fwd {r['forward_ms']:.7} bwd {r['backward_ms']:.7} "
          f"optimizer {r['optimizer_ms']:.7} ms, "
          f"state {int(r['optimizer_state_bytes'] or 0) / 2**30:.3f} GiB, max |param diff| {r['max_param_diff']} {r['message'][:80]}")
GiB = 2**30
for r in rows("ddp.memory.csv"):
    print(f"memory {r['optimizer']:8} {r.get('zero1_gather', ''):12} rank {r['rank']} {r['point']:22} live {int(r['total_bytes']) / GiB:7.3f} GiB: params "
          f"{int(r['parameter_bytes']) / GiB:.3f} grads {int(r['gradient_bytes']) / GiB:.3f} state "
          f"{int(r['optimizer_state_bytes']) / GiB:.3f} act {int(r['activation_bytes']) / GiB:.3f} "
          f"tmp {int(r['temporary_bytes']) / GiB:.3f} other {int(r['other_bytes']) / GiB:.3f}")
PY

log "planner closed loop: planned against measured (fp32 train step, batch 4, ctx 128)"
for m in small medium large xl; do
  timeout 120 $cli bench --model $m --context 128 --batch 4 --mode train --device cuda --warmup 1 --steps 2 \
    --profile memory --quiet --csv "$OUT/p/bench_$m.csv" >/dev/null 2>&1
  $cli plan --model $m --quiet --json "$OUT/p/plan_$m.json" >/dev/null
done
python3 - "$OUT/p" <<'PY' | tee -a "$OUT/summary.txt"
# Per category: the allocator's blocks (highest), the same tensors at their own sizes, and the
# allocator's rounding between them; the tensors should equal the plan to the byte.
import csv, glob, json, os, sys
d = sys.argv[1]
for m in ("small", "medium", "large", "xl"):
    cats = glob.glob(os.path.join(d, f"bench_{m}.*memory_categories.csv"))
    if not cats or not os.path.exists(os.path.join(d, f"plan_{m}.json")):
        print(m, "missing"); continue
    rows = {r["Category"]: r for r in csv.DictReader(open(cats[0]))}
    plan = json.load(open(os.path.join(d, f"plan_{m}.json")))
    for cat, p in (("parameter", "master_weights_bytes"), ("gradient", "gradients_bytes"),
                   ("optimizer state", "optimizer_state_bytes")):
        planned = int(plan[p])
        blocks, tensors = int(rows[cat]["Highest (bytes)"]), int(rows[cat]["Highest as tensors (bytes)"])
        print(f"plan {m:6} {p:22} planned {planned:>13} blocks {blocks:>13} (+{(blocks - planned) / planned * 100:.3f} %) "
              f"tensors {tensors:>13} rounding {blocks - tensors:>10} tensors-planned {tensors - planned} "
              f"{'EXACT' if tensors == planned else 'DIFFERS'}")
PY
log "done"
tar czf /tmp/sharding-planner-results.tgz -C "$OUT" --exclude=summary.txt --exclude='*memory_timeline*' --exclude='*.json' . &&
  find "$OUT" -mindepth 1 -not -name summary.txt -delete && mv /tmp/sharding-planner-results.tgz "$OUT/"
