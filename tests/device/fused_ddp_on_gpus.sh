#!/usr/bin/env bash
# One device call on 2 GPUs for the fused engine's DDP goal (issue 37): xl bf16, context 256,
# batch 4 per GPU, bucketed 25 MB. Our single-GPU fused step, our DDP (eager and fused under CUDA
# graphs, fp32 and bf16 gradient reduction; fused without graphs) and PyTorch's DDP on as many
# GPUs, in that order, into $OUT.
# Usage (GPU machine with 2 GPUs, repository root, .deps-debs carried): tests/device/fused_ddp_on_gpus.sh
# Environment: MODEL=xl PRECISION=bf16 CONTEXT=256 BATCH=4 SKIP_BUILD=1 (reuse a warm build/)
#   CHECK_MODEL=small (DDP x2 --check rows of every variant under graphs first; empty: none)
#   NCCL_CHANNELS=8,4 (also fused bf16 rows with NCCL_MAX_NCHANNELS at each)
#   GPU_TESTS='DdpCuda.*:FusedEngineCuda.*' (the gtest filter run first; empty: none)
#   DDP_ENGINES=eager,fused (the engines of the fp32- and bf16-reduction rows)
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/d"
source "$(dirname "$0")/common.sh"
MODEL=${MODEL:-xl} PRECISION=${PRECISION:-bf16} CONTEXT=${CONTEXT:-256} BATCH=${BATCH:-4}
shape="--model $MODEL --context $CONTEXT --batch $BATCH --precision $PRECISION"
nvidia-smi --query-gpu=name,memory.total --format=csv | tee "$OUT/gpu.txt"
echo "commit $(run_commit)" | tee -a "$OUT/gpu.txt"
if [ "${SKIP_BUILD:-0}" != 1 ] || [ ! -x "$cli" ]; then build_with_deps || exit 1; fi
if [ -n "${GPU_TESTS-DdpCuda.*:FusedEngineCuda.*}" ] && [ -x build/bin/stepscope_gpu_tests ]; then
  log "GPU tests ${GPU_TESTS-DdpCuda.*:FusedEngineCuda.*}"
  timeout 300 build/bin/stepscope_gpu_tests --gtest_filter="${GPU_TESTS-DdpCuda.*:FusedEngineCuda.*}" \
    >"$OUT/gpu_tests.log" 2>&1
  echo "gpu tests exit $?" | tee -a "$OUT/summary.txt"
  grep -aE "^\[  (FAILED|PASSED|  OK|SKIPPED) |Failure|Expected|Which is|actual" "$OUT/gpu_tests.log" | head -60 | tee -a "$OUT/summary.txt"
fi
if [ -n "${CHECK_MODEL-small}" ]; then
  # Gradients reduced in the compute type: bucketed then reduces in the model's gradient buffer.
  log "DDP x2 fused under CUDA graphs against one process (--check), every variant, ${CHECK_MODEL-small} fp32 and bf16"
  for p in fp32 bf16; do
    timeout 200 $cli ddp --device cuda --nproc 2 --model ${CHECK_MODEL-small} --context 128 --batch 2 --precision $p \
      --reduce-dtype $p \
      --variant naive,flat,overlap,bucketed --bucket-mb 25 --engine fused --warmup 2 --steps 3 --check --timeout 120 \
      --quiet --csv "$OUT/d/check_$p.csv"
    echo "ddp check $p exit $?" | tee -a "$OUT/summary.txt"
    python3 -c "import csv,sys; [print(r['variant'], r['precision'], 'graphs', r['cuda_graphs'], 'max_param_diff', r['max_param_diff'], r['status'], r['message'][:100]) for r in csv.DictReader(open(sys.argv[1]))]" \
      "$OUT/d/check_$p.csv" | tee -a "$OUT/summary.txt"
  done
fi
log "single GPU: ours, eager and fused ($shape train)"
timeout 120 $cli bench $shape --mode train --engine eager,fused --warmup 5 --steps 10 --device cuda --quiet \
  --csv "$OUT/d/single.csv"
echo "single exit $?" | tee -a "$OUT/summary.txt"
log "DDP x2 bucketed 25 MiB: eager and fused (CUDA graphs), gradients reduced in fp32, then in bf16"
for reduce in fp32 bf16; do
  timeout 200 $cli ddp --device cuda --nproc 2 $shape --variant bucketed --bucket-mb 25 --engine ${DDP_ENGINES:-eager,fused} \
    --reduce-dtype $reduce --warmup 3 --steps 10 --timeout 120 --quiet --csv "$OUT/d/ddp_$reduce.csv"
  echo "ddp $reduce exit $?" | tee -a "$OUT/summary.txt"
done
log "DDP x2 fused without CUDA graphs (bf16 reduction): what the graphs save"
timeout 200 $cli ddp --device cuda --nproc 2 $shape --variant bucketed --bucket-mb 25 --engine fused --cuda-graphs off \
  --reduce-dtype bf16 --warmup 3 --steps 10 --timeout 120 --quiet --csv "$OUT/d/ddp_nographs.csv"
echo "ddp no graphs exit $?" | tee -a "$OUT/summary.txt"
if [ -n "${NCCL_CHANNELS:-}" ]; then
  for ch in ${NCCL_CHANNELS//,/ }; do
    log "DDP x2 fused bf16 reduction, NCCL limited to $ch channels (fewer SMs taken from backward)"
    NCCL_MAX_NCHANNELS=$ch NCCL_MIN_NCHANNELS=1 timeout 200 $cli ddp --device cuda --nproc 2 $shape --variant bucketed \
      --bucket-mb 25 --engine fused --reduce-dtype bf16 --warmup 3 --steps 10 --timeout 120 --quiet \
      --csv "$OUT/d/ddp_channels$ch.csv"
    echo "ddp channels $ch exit $?" | tee -a "$OUT/summary.txt"
  done
fi
log "PyTorch DDP x2 (25 MB buckets)"
timeout 150 python3 -m torch.distributed.run --standalone --nproc-per-node 2 tests/reference/ddp_reference.py \
  --model $MODEL --context $CONTEXT --batch $BATCH --precision $PRECISION --warmup 3 --steps 10 \
  --csv "$OUT/d/torch_ddp.csv" >"$OUT/d/torch_ddp.log" 2>&1
echo "torch ddp exit $?" | tee -a "$OUT/summary.txt"
python3 - "$OUT/d" <<'PY' | tee -a "$OUT/summary.txt"
import csv, sys, os
d = sys.argv[1]
def rows(name):
    p = os.path.join(d, name)
    return list(csv.DictReader(open(p))) if os.path.exists(p) else []
single = {r.get("engine", "eager"): r for r in rows("single.csv")}
for e, r in single.items():
    phases = ", ".join(f"{k.split('_')[0]} {float(r[k]):.2f}" for k in ("forward_mean_ms", "backward_mean_ms",
                                                                        "optimizer_mean_ms") if r.get(k))
    print(f"single GPU {e}: {r['total_mean_ms']} ms ({phases}) ({r['status']})")
for name in ["ddp_fp32.csv", "ddp_bf16.csv", "ddp_nographs.csv"] + sorted(
        f for f in os.listdir(d) if f.startswith("ddp_channels") and f.endswith(".csv") and "." not in f[:-4]):
    for r in rows(name):
        step = r.get("step_ms") or "?"
        base = single.get(r.get("engine", "eager"), {}).get("total_mean_ms")
        ratio = f"{float(step) / float(base):.3f}x single" if base and step != "?" else ""
        phases = ", ".join(f"{k[:-3]} {float(r[k]):.2f}" for k in ("forward_ms", "backward_ms", "exposed_comm_ms",
                                                                    "optimizer_ms") if r.get(k))
        print(f"{name[:-4]}: DDP x2 {r.get('engine')} reduce {r.get('reduce_dtype')} graphs {r.get('cuda_graphs')}: "
              f"step {step} ms {ratio} ({phases}) ({r.get('status')} {r.get('message', '')[:160]})")
for r in rows("torch_ddp.csv"):
    print("PyTorch DDP:", {k: v for k, v in r.items() if "ms" in k or k in ("ranks", "status")})
PY
# One archive of the tables (the device tool brings back a limited number of files).
tar czf "$OUT/tables.tgz" -C "$OUT" d && rm -rf "$OUT/d"
