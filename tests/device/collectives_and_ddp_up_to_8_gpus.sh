#!/usr/bin/env bash
# The four collectives at 2, 4, 6 and 8 NCCL ranks, and DDP and ZeRO-1 on every GPU, each beside
# PyTorch in the same call; in two parts for two calls on one warm machine (the second reuses the
# first's build, so every measurement shares one call):
#   build    the CUDA build and the distributed GPU tests.
#   measure  all-reduce, reduce-scatter, all-gather and broadcast, fp32, 1 MB to 1 GB, at every
#            even rank count from 2 up to the GPUs there are (at most 8), ours and
#            tests/reference/collectives_reference.py alternating which goes first; then the xl
#            DDP variants (the seeds' setting: context 128, 16 sequences a rank) on every GPU with
#            PyTorch's DDP and both single-GPU steps, DDP against ZeRO-1 with memory per rank, and
#            each rank's own times (who waits for whom: the straggler picture).
# Work that would not end inside the call's 10 minutes is passed over and said so in the summary.
# Usage (GPU machine, repository root, .deps-debs carried):
#   tests/device/collectives_and_ddp_up_to_8_gpus.sh build|measure
set -uo pipefail
part=${1:?usage: collectives_and_ddp_up_to_8_gpus.sh build|measure}
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/c" "$OUT/d"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"
gpus=$(nvidia-smi -L | wc -l)
log "$gpus GPU(s), $(nproc) CPU(s), part $part, commit $(run_commit)"

if [ "$part" = build ]; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
  nvidia-smi topo -m | tee "$OUT/topo.txt"
  build_with_deps || exit 1
  log "GPU tests (distributed)"
  build/bin/stepscope_gpu_tests --gtest_filter='*Ddp*:*Nccl*:*Collective*' >"$OUT/gpu_tests.log" 2>&1
  grep -a -E "OK \]|FAILED|PASSED|Failure|SKIPPED" "$OUT/gpu_tests.log" | tail -40 | tee -a "$OUT/summary.txt"
  log "done (build)"
  exit 0
fi
[ "$part" = measure ] || { echo "unknown part '$part'" >&2; exit 2; }
[ -x "$cli" ] || { log "no $cli: run the build part first on this warm machine"; exit 1; }

started=$SECONDS
# fits SECONDS: whether that much more still ends inside the call (570 s, room for the archive).
fits() { [ $((SECONDS - started + $1)) -le 570 ] || { log "passed over (would not end in the call): $2"; return 1; }; }

ops=allreduce,reducescatter,allgather,broadcast
sizes=1MB,10MB,100MB,1GB
ours() {
  local t0=$SECONDS
  timeout 150 $cli collectives --device cuda --backend nccl --nproc $1 --op $ops --sizes $sizes --dtype fp32 \
    --warmup 5 --iters 20 --timeout 120 --quiet --csv "$OUT/c/ours_$1.csv"
  echo "ours x$1 exit $? in $((SECONDS - t0)) s" | tee -a "$OUT/summary.txt"
}
theirs() {
  local t0=$SECONDS
  timeout 150 python3 -m torch.distributed.run --standalone --nproc-per-node $1 tests/reference/collectives_reference.py \
    --backend nccl --ops $ops --sizes $sizes --dtype fp32 --warmup 5 --iters 20 --csv "$OUT/c/torch_$1.csv" \
    >"$OUT/c/torch_$1.log" 2>&1
  echo "torch x$1 exit $? in $((SECONDS - t0)) s" | tee -a "$OUT/summary.txt"
}
turn=0
for n in 2 4 6 8; do
  [ "$n" -le "$gpus" ] || { log "NCCL x$n: more ranks than GPUs ($gpus), not run"; continue; }
  fits 90 "collectives x$n and the rest" || break
  if [ $((turn % 2)) -eq 0 ]; then log "collectives x$n: ours, then torch"; ours $n; theirs $n
  else log "collectives x$n: torch, then ours"; theirs $n; ours $n; fi
  turn=$((turn + 1))
done
python3 - "$OUT/c" <<'PY' | tee -a "$OUT/summary.txt"
import csv, glob, os, sys
d = sys.argv[1]
def rows(prefix):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, prefix + "_*.csv"))):
        for r in csv.DictReader(open(f)):
            out[(r["op"], int(r["nproc"]), int(r["size_bytes"]))] = r
    return out
ours, torch = rows("ours"), rows("torch")
order = {"allreduce": 0, "reducescatter": 1, "allgather": 2, "broadcast": 3}
num = lambda r, k: float(r[k]) if r and r.get(k) else float("nan")
for key in sorted(set(ours) | set(torch), key=lambda k: (order[k[0]], k[1], k[2])):
    o, t = ours.get(key), torch.get(key)
    print(f"{key[0]:13} x{key[1]} {key[2]:>10} B: ours {num(o, 'time_us'):9.1f} us busbw {num(o, 'busbw_gbps'):7.2f} "
          f"wrong {o['wrong'] if o else '-'} {o['status'] if o else 'missing'}; torch {num(t, 'time_us'):9.1f} us "
          f"busbw {num(t, 'busbw_gbps'):7.2f}; time ours/torch {num(o, 'time_us') / num(t, 'time_us'):.3f}")
PY

if fits 240 "the DDP variants against PyTorch's DDP"; then
  ddp_variants_against_torch xl $gpus
fi
if fits 90 "DDP against ZeRO-1"; then
  log "DDP + AdamW against ZeRO-1 x$gpus, bucketed 25 MiB, memory per rank"
  timeout 150 $cli ddp --device cuda --nproc $gpus --model xl --context 128 --batch 16 --precision fp32 \
    --variant bucketed --bucket-mb 25 --optimizer adamw,zero1 --warmup 2 --steps 5 --profile-memory --check \
    --timeout 120 --quiet --csv "$OUT/d/zero.csv"
  echo "zero exit $?" | tee -a "$OUT/summary.txt"
fi
python3 tests/device/summarize_ddp.py "$OUT/d" | tee -a "$OUT/summary.txt"
log "done (measure)"
# At most 8 files come back: one archive beside the summary.
tar czf /tmp/collectives-ddp.tgz -C "$OUT" --exclude=summary.txt . &&
  find "$OUT" -mindepth 1 -not -name summary.txt -delete && mv /tmp/collectives-ddp.tgz "$OUT/"
