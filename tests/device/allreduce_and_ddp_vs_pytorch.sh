#!/usr/bin/env bash
# One device call for distributed (issue 11): the CUDA build with NCCL process groups and the GPU
# tests; then, on every GPU the machine has (1 or more):
#  - stepscope-cli collectives with NCCL against torch.distributed.all_reduce, same sizes, same call;
#  - the DDP variants on the xl model (the seeds' setting: context 128, 16 sequences per rank) with
#    the overlap picture, against PyTorch's DDP (25 MB buckets) and the single-GPU step (ours and
#    PyTorch's) with the same per-GPU batch.
# With one GPU only the one-rank rows run (NCCL and CUPTI paths, single-GPU steps).
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/allreduce_and_ddp_vs_pytorch.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/c" "$OUT/d"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
log "$gpus GPU(s)"

build_with_deps || exit 1
log "GPU tests (distributed)"
build/bin/stepscope_gpu_tests --gtest_filter='*Ddp*:*Nccl*:*Collective*' >"$OUT/gpu_tests.log" 2>&1
grep -a -E "OK \]|FAILED|PASSED|Failure|SKIPPED" "$OUT/gpu_tests.log" | head -30 | tee -a "$OUT/summary.txt"

ranks=1
[ "$gpus" -ge 2 ] && ranks=$gpus
sizes=1MB,10MB,100MB,1GB
log "all-reduce: ours (NCCL, c10d) and torch.distributed, $ranks rank(s), $sizes"
timeout 120 $cli collectives --device cuda --nproc $ranks --sizes $sizes --dtype fp32 --warmup 5 --iters 20 --quiet \
  --csv "$OUT/c/ours.csv" --json "$OUT/c/ours.json"
echo "ours exit $?" | tee -a "$OUT/summary.txt"
timeout 120 python3 -m torch.distributed.run --standalone --nproc-per-node $ranks tests/reference/collectives_reference.py \
  --sizes $sizes --dtype fp32 --warmup 5 --iters 20 --csv "$OUT/c/torch.csv" >"$OUT/c/torch.log" 2>&1
echo "torch exit $?" | tee -a "$OUT/summary.txt"
if [ "$ranks" -ge 2 ]; then
  timeout 100 $cli collectives --device cuda --nproc $ranks --op allreduce,reducescatter,allgather,broadcast \
    --sizes 1MB,100MB --dtype bf16 --quiet --csv "$OUT/c/ops_bf16.csv"
  echo "ops exit $?" | tee -a "$OUT/summary.txt"
fi
python3 - "$OUT/c" <<'PY' | tee -a "$OUT/summary.txt"
import csv, os, sys
d = sys.argv[1]
rows = lambda f: list(csv.DictReader(open(os.path.join(d, f)))) if os.path.exists(os.path.join(d, f)) else []
torch = {int(r["size_bytes"]): r for r in rows("torch.csv")}
for r in rows("ours.csv"):
    t = torch.get(int(r["size_bytes"]))
    ratio = float(r["busbw_gbps"]) / float(t["busbw_gbps"]) if t and float(t["busbw_gbps"]) > 0 else float("nan")
    print(f"allreduce x{r['nproc']} {int(r['size_bytes']):>11} B: ours {float(r['time_us']):10.1f} us busbw "
          f"{float(r['busbw_gbps']):7.1f} GB/s wrong {r['wrong']}; torch "
          f"{t and float(t['time_us']) or 0:10.1f} us busbw {t and float(t['busbw_gbps']) or 0:7.1f}; ratio {ratio:.3f}")
for r in rows("ops_bf16.csv"):
    print(f"{r['op']:14} bf16 x{r['nproc']} {r['size_bytes']:>10} B {float(r['time_us']):9.1f} us busbw {float(r['busbw_gbps']):7.1f} wrong {r['wrong']}")
PY

ddp_variants_against_torch "${DDP_MODEL:-xl}" $ranks
python3 tests/device/summarize_ddp.py "$OUT/d" | tee -a "$OUT/summary.txt"
log "done"
tar czf /tmp/allreduce-ddp-results.tgz -C "$OUT" --exclude=summary.txt . &&
  find "$OUT" -mindepth 1 -not -name summary.txt -delete && mv /tmp/allreduce-ddp-results.tgz "$OUT/"
