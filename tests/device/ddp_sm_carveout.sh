#!/usr/bin/env bash
# One device call on 2 GPUs: what an SM carve-out for the matmuls does to the fused DDP step
# (xl bf16, context 256, batch 4 a GPU, bucketed 25 MiB, bf16 reduction, CUDA graphs). Without
# one, backward's GEMMs next to NCCL's kernels run 2-3x longer (they spill a second wave onto the
# SMs the collective holds). Our single-GPU fused step, then DDP x2 at each CARVEOUTS value N,
# NCCL limited to N CTAs (NCCL_MAX_CTAS) where N > 0, into $OUT/summary.txt and $OUT/carveout.tgz.
# Usage (GPU machine with 2 GPUs, repository root, .deps-debs carried): tests/device/ddp_sm_carveout.sh
# Environment: CARVEOUTS="0 8 16 24" MODEL=xl SKIP_BUILD=1 (reuse a warm build/)
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/s"
source "$(dirname "$0")/common.sh"
MODEL=${MODEL:-xl}
shape="--model $MODEL --context 256 --batch 4 --precision bf16"
nvidia-smi --query-gpu=name,memory.total --format=csv | tee "$OUT/gpu.txt"
echo "commit $(run_commit)" | tee -a "$OUT/gpu.txt"
if [ "${SKIP_BUILD:-0}" != 1 ] || [ ! -x "$cli" ]; then build_with_deps stepscope-cli || exit 1; fi
log "single GPU fused ($shape train)"
timeout 90 $cli bench $shape --mode train --engine fused --warmup 5 --steps 10 --device cuda --quiet \
  --csv "$OUT/s/single.csv"
echo "single exit $?" | tee -a "$OUT/summary.txt"
for n in ${CARVEOUTS:-0 8 16 24}; do
  log "DDP x2 fused bf16 reduction, matmuls leave $n SMs"
  limit=()
  [ "$n" -gt 0 ] && limit=(env NCCL_MAX_CTAS=$n)
  timeout 100 "${limit[@]}" $cli ddp --device cuda --nproc 2 $shape --variant bucketed --bucket-mb 25 --engine fused \
    --reduce-dtype bf16 --sm-carveout $n --warmup 3 --steps 10 --timeout 90 --quiet --csv "$OUT/s/carveout$n.csv"
  echo "carveout $n exit $?" | tee -a "$OUT/summary.txt"
done
python3 - "$OUT/s" <<'PY' | tee -a "$OUT/summary.txt"
import csv, glob, os, sys
d = sys.argv[1]
single = next(csv.DictReader(open(os.path.join(d, "single.csv"))), None) if os.path.exists(os.path.join(d, "single.csv")) else None
base = float(single["total_mean_ms"]) if single else None
if single:
    print(f"single fused: {base:.2f} ms (forward {float(single['forward_mean_ms']):.2f}, backward "
          f"{float(single['backward_mean_ms']):.2f}, optimizer {float(single['optimizer_mean_ms']):.2f})")
for path in sorted(glob.glob(os.path.join(d, "carveout*.csv")), key=lambda p: int(p.split("carveout")[1].split(".")[0])):
    if ".ranks" in path or ".timeline" in path:
        continue
    for r in csv.DictReader(open(path)):
        step = r.get("step_ms") or ""
        ratio = f"{float(step) / base:.3f}x single" if step and base else ""
        print(f"carve-out {r.get('sm_carveout')}: step {step} ms {ratio} (forward {r.get('forward_ms')}, backward "
              f"{r.get('backward_ms')}, exposed {r.get('exposed_comm_ms')}, optimizer {r.get('optimizer_ms')}) "
              f"{r.get('status')} {r.get('message', '')[:120]}")
PY
tar czf "$OUT/carveout.tgz" -C "$OUT" s && rm -rf "$OUT/s"
