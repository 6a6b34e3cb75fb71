#!/usr/bin/env bash
# Communication and DDP on more than 2 GPUs (issue 13), in two parts for two calls on one warm
# machine (each part fits a call's 10 minutes; the second reuses the first's build):
#   comm  the CUDA build (with Gloo process groups from the carried .deps-gloo headers), the
#         distributed GPU tests, then the seeds' all-reduce table: fp32, 1 MB to 1 GB, 2, 4 and
#         6 ranks; NCCL on GPUs where the machine has a GPU per rank (ours must refuse the rest
#         clearly), Gloo on the host's CPUs; each row against torch.distributed.all_reduce run
#         in the same call with the same sizes, warm-ups and iterations.
#   ddp   the xl DDP variants on every GPU (the seeds' setting: context 128, 16 sequences a
#         rank) with PyTorch's DDP and both single-GPU steps, then DDP against ZeRO-1 with the
#         memory per rank.
# Usage (GPU machine, repository root, .deps-debs and .deps-gloo carried):
#   tests/device/run_issue13.sh comm|ddp
set -uo pipefail
part=${1:?usage: run_issue13.sh comm|ddp}
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/c" "$OUT/d"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"
gpus=$(nvidia-smi -L | wc -l)
if [ "$part" = comm ]; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
  nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
  lscpu | grep -E "^Model name|^CPU\(s\)|^Socket|^NUMA node\(s\)" | tee -a "$OUT/summary.txt"
fi
log "$gpus GPU(s), $(nproc) CPU(s), part $part"
build_with_deps || exit 1

# table BACKEND: ours against torch's rows of c/BACKEND_*.csv, one line per rank count and size.
table() {
  python3 - "$OUT/c" "$1" <<'PY' | tee -a "$OUT/summary.txt"
import csv, glob, os, sys
d, backend = sys.argv[1], sys.argv[2]
def rows(pattern):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, pattern))):
        for r in csv.DictReader(open(f)):
            out[(int(r["nproc"]), int(r["size_bytes"]))] = r
    return out
ours, torch = rows(f"{backend}_ours_*.csv"), rows(f"{backend}_torch_*.csv")
for key in sorted(set(ours) | set(torch)):
    o, t = ours.get(key), torch.get(key)
    ob = float(o["busbw_gbps"]) if o and o.get("busbw_gbps") else float("nan")
    tb = float(t["busbw_gbps"]) if t else float("nan")
    print(f"{backend} x{key[0]} {key[1]:>11} B: ours {float(o['time_us']) if o else float('nan'):11.1f} us "
          f"busbw {ob:7.2f} GB/s wrong {o['wrong'] if o else '-'} {o['status'] if o else 'missing'}; "
          f"torch {float(t['time_us']) if t else float('nan'):11.1f} us busbw {tb:7.2f}; ours/torch busbw {ob / tb:.3f}")
PY
}

if [ "$part" = comm ]; then
  log "GPU tests (distributed)"
  build/bin/stepscope_gpu_tests --gtest_filter='*Ddp*:*Nccl*:*Collective*' >"$OUT/gpu_tests.log" 2>&1
  grep -a -E "OK \]|FAILED|PASSED|Failure" "$OUT/gpu_tests.log" | head -30 | tee -a "$OUT/summary.txt"
  sizes=1MB,10MB,100MB,1GB
  for n in 2 4 6; do
    if [ "$n" -gt "$gpus" ]; then
      log "NCCL x$n: more ranks than GPUs; ours must refuse with a clear error"
      $cli allreduce --device cuda --nproc $n --sizes 1MB --quiet >/dev/null 2>"$OUT/c/nccl_refusal_$n.txt"
      echo "exit $? (2 expected): $(cat "$OUT/c/nccl_refusal_$n.txt")" | tee -a "$OUT/summary.txt"
      continue
    fi
    log "NCCL x$n: ours, then torch.distributed"
    timeout 150 $cli allreduce --device cuda --nproc $n --sizes $sizes --dtype fp32 --warmup 5 --iters 20 --quiet \
      --csv "$OUT/c/nccl_ours_$n.csv" --json "$OUT/c/nccl_ours_$n.json"
    echo "ours exit $?" | tee -a "$OUT/summary.txt"
    timeout 150 python3 -m torch.distributed.run --standalone --nproc-per-node $n tests/reference/allreduce_reference.py \
      --backend nccl --sizes $sizes --dtype fp32 --warmup 5 --iters 20 --csv "$OUT/c/nccl_torch_$n.csv" \
      >"$OUT/c/nccl_torch_$n.log" 2>&1
    echo "torch exit $?" | tee -a "$OUT/summary.txt"
  done
  table nccl
  for n in 2 4 6; do
    log "Gloo x$n on the CPUs: ours, then torch.distributed"
    timeout 200 $cli allreduce --device cpu --backend gloo --nproc $n --sizes $sizes --dtype fp32 --warmup 2 \
      --iters 10 --timeout 120 --quiet --csv "$OUT/c/gloo_ours_$n.csv"
    echo "ours exit $?" | tee -a "$OUT/summary.txt"
    timeout 200 python3 -m torch.distributed.run --standalone --nproc-per-node $n tests/reference/allreduce_reference.py \
      --backend gloo --sizes $sizes --dtype fp32 --warmup 2 --iters 10 --csv "$OUT/c/gloo_torch_$n.csv" \
      >"$OUT/c/gloo_torch_$n.log" 2>&1
    echo "torch exit $?" | tee -a "$OUT/summary.txt"
  done
  table gloo
fi

if [ "$part" = ddp ]; then
  model=xl ctx=128 batch=16
  log "single-GPU step, $model ctx $ctx batch $batch fp32: ours (bench) and PyTorch"
  timeout 150 $cli bench --model $model --context $ctx --batch $batch --precision fp32 --mode train --device cuda \
    --warmup 2 --steps 5 --quiet --csv "$OUT/d/single_ours.csv"
  echo "bench exit $?" | tee -a "$OUT/summary.txt"
  timeout 150 python3 tests/reference/ddp_reference.py --model $model --context $ctx --batch $batch --warmup 2 --steps 5 \
    --csv "$OUT/d/single_torch.csv" >"$OUT/d/single_torch.log" 2>&1
  echo "torch single exit $?" | tee -a "$OUT/summary.txt"
  log "DDP variants x$gpus with the overlap picture"
  timeout 300 $cli ddp --device cuda --nproc $gpus --model $model --context $ctx --batch $batch --precision fp32 \
    --variant naive,flat,overlap,bucketed --bucket-mb 1,10,25,100,1000 --warmup 2 --steps 5 --timeout 120 --quiet \
    --csv "$OUT/d/ddp.csv" --trace "$OUT/d/ddp_trace.json"
  echo "ddp exit $?" | tee -a "$OUT/summary.txt"
  timeout 150 python3 -m torch.distributed.run --standalone --nproc-per-node $gpus tests/reference/ddp_reference.py \
    --model $model --context $ctx --batch $batch --warmup 2 --steps 5 --csv "$OUT/d/torch_ddp.csv" \
    >"$OUT/d/torch_ddp.log" 2>&1
  echo "torch ddp exit $?" | tee -a "$OUT/summary.txt"
  log "DDP + AdamW against ZeRO-1 x$gpus, bucketed 25 MiB, memory per rank"
  timeout 200 $cli ddp --device cuda --nproc $gpus --model $model --context $ctx --batch $batch --precision fp32 \
    --variant bucketed --bucket-mb 25 --optimizer adamw,zero1 --warmup 2 --steps 5 --profile-memory --check \
    --timeout 120 --quiet --csv "$OUT/d/zero.csv"
  echo "zero exit $?" | tee -a "$OUT/summary.txt"
  python3 - "$OUT/d" <<'PY' | tee -a "$OUT/summary.txt"
import csv, os, sys
d = sys.argv[1]
rows = lambda f: list(csv.DictReader(open(os.path.join(d, f)))) if os.path.exists(os.path.join(d, f)) else []
single = [float(r["total_mean_ms"]) for r in rows("single_ours.csv") if r.get("total_mean_ms")]
for r in rows("single_ours.csv"): print("ours single GPU:", r.get("status"), r.get("total_mean_ms"), "ms")
for f in ("single_torch.csv", "torch_ddp.csv"):
    for r in rows(f): print(r["impl"], "x" + r["nproc"], r["step_ms"], "ms +-", r["step_std_ms"])
for f in ("ddp.csv", "zero.csv"):
    for r in rows(f):
        ratio = f"{float(r['step_ms']) / single[0]:.3f}x single" if single and r["step_ms"] else ""
        print(f"{f[:-4]} {r['variant']:9} {r['bucket_mb'] or '-':>6} MiB {r['optimizer']:6} x{r['nproc']} {r['status']}: "
              f"step {r['step_ms']:.8} fwd {r['forward_ms']:.7} bwd {r['backward_ms']:.7} comm {r['comm_ms']:.7} "
              f"exposed {r['exposed_comm_ms']:.7} opt {r['optimizer_ms']:.7} {ratio} "
              f"diff {r.get('max_param_diff', '')} {r['message'][:80]}")
GiB = 2**30
for r in rows("zero.memory.csv"):
    if r["point"] == "before_optimizer_step":
        print(f"memory {r['optimizer']:6} rank {r['rank']} before the optimizer step: live "
              f"{int(r['total_bytes']) / GiB:.3f} GiB, state {int(r['optimizer_state_bytes']) / GiB:.3f}")
PY
fi
if [ "$part" = ddp ]; then
  log "Gloo x6 and x4 again at 1 and 10 MB, 50 iterations, torch first this time"
  for n in 6 4; do
    timeout 60 python3 -m torch.distributed.run --standalone --nproc-per-node $n tests/reference/allreduce_reference.py \
      --backend gloo --sizes 1MB,10MB --dtype fp32 --warmup 5 --iters 50 --csv "$OUT/c/gloo_torch_$n.csv" \
      >"$OUT/c/gloo_torch_$n.log" 2>&1
    timeout 60 $cli allreduce --device cpu --backend gloo --nproc $n --sizes 1MB,10MB --dtype fp32 --warmup 5 \
      --iters 50 --quiet --csv "$OUT/c/gloo_ours_$n.csv"
  done
  table gloo
fi
log "done ($part)"
# At most 8 files come back: one archive beside the summary.
tar czf /tmp/issue13-$part.tgz -C "$OUT" --exclude=summary.txt . &&
  find "$OUT" -mindepth 1 -not -name summary.txt -delete && mv /tmp/issue13-$part.tgz "$OUT/"
