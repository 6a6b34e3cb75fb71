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
#   tests/device/multi_gpu_comm_and_ddp.sh comm|ddp
set -uo pipefail
part=${1:?usage: multi_gpu_comm_and_ddp.sh comm|ddp}
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

# allreduce_against_torch BACKEND RANKS WARMUP ITERS [SIZES [torch-first]]: ours and
# torch.distributed.all_reduce, fp32, the same sizes and counts, into c/BACKEND_{ours,torch}_RANKS.csv.
allreduce_against_torch() {
  local backend=$1 n=$2 warmup=$3 iters=$4 sizes=${5:-1MB,10MB,100MB,1GB} order=${6:-ours-first}
  local device=cpu; [ "$backend" = nccl ] && device=cuda
  log "$backend x$n: ours and torch.distributed ($order)"
  run_ours() {
    timeout 200 $cli collectives --device $device --backend $backend --nproc $n --sizes $sizes --dtype fp32 \
      --warmup $warmup --iters $iters --timeout 120 --quiet --csv "$OUT/c/${backend}_ours_$n.csv"
    echo "ours exit $?" | tee -a "$OUT/summary.txt"
  }
  run_torch() {
    timeout 200 python3 -m torch.distributed.run --standalone --nproc-per-node $n tests/reference/collectives_reference.py \
      --backend $backend --sizes $sizes --dtype fp32 --warmup $warmup --iters $iters \
      --csv "$OUT/c/${backend}_torch_$n.csv" >"$OUT/c/${backend}_torch_$n.log" 2>&1
    echo "torch exit $?" | tee -a "$OUT/summary.txt"
  }
  if [ "$order" = torch-first ]; then run_torch; run_ours; else run_ours; run_torch; fi
}

if [ "$part" = comm ]; then
  log "GPU tests (distributed)"
  build/bin/stepscope_gpu_tests --gtest_filter='*Ddp*:*Nccl*:*Collective*' >"$OUT/gpu_tests.log" 2>&1
  grep -a -E "OK \]|FAILED|PASSED|Failure" "$OUT/gpu_tests.log" | head -30 | tee -a "$OUT/summary.txt"
  for n in 2 4 6; do
    if [ "$n" -gt "$gpus" ]; then
      log "NCCL x$n: more ranks than GPUs; ours must refuse with a clear error"
      $cli collectives --device cuda --nproc $n --sizes 1MB --quiet >/dev/null 2>"$OUT/c/nccl_refusal_$n.txt"
      echo "exit $? (2 expected): $(cat "$OUT/c/nccl_refusal_$n.txt")" | tee -a "$OUT/summary.txt"
      continue
    fi
    allreduce_against_torch nccl $n 5 20
  done
  table nccl
  for n in 2 4 6; do allreduce_against_torch gloo $n 2 10; done
  table gloo
fi

if [ "$part" = ddp ]; then
  ddp_variants_against_torch xl $gpus
  model=xl ctx=128 batch=16
  log "DDP + AdamW against ZeRO-1 x$gpus, bucketed 25 MiB, memory per rank"
  timeout 200 $cli ddp --device cuda --nproc $gpus --model $model --context $ctx --batch $batch --precision fp32 \
    --variant bucketed --bucket-mb 25 --optimizer adamw,zero1 --warmup 2 --steps 5 --profile-memory --check \
    --timeout 120 --quiet --csv "$OUT/d/zero.csv"
  echo "zero exit $?" | tee -a "$OUT/summary.txt"
  python3 tests/device/summarize_ddp.py "$OUT/d" | tee -a "$OUT/summary.txt"
  log "Gloo x6 and x4 again at 1 and 10 MB, 50 iterations, torch first this time"
  for n in 6 4; do allreduce_against_torch gloo $n 5 50 1MB,10MB torch-first; done
  table gloo
fi
log "done ($part)"
# At most 8 files come back: one archive beside the summary.
tar czf /tmp/multi-gpu-$part.tgz -C "$OUT" --exclude=summary.txt . &&
  find "$OUT" -mindepth 1 -not -name summary.txt -delete && mv /tmp/multi-gpu-$part.tgz "$OUT/"
