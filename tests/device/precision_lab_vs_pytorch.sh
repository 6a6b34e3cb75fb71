#!/usr/bin/env bash
# One device call for the experiment harness and the precision lab: the README's test command
# (GPU tests included) on the refactored engine; the precision lab's tables against PyTorch on
# the same GPU; a profiled benchmark through the harness, written as a run record.
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/precision_lab_vs_pytorch.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/p"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee -a "$OUT/gpu.txt"

log "./dev.sh test (build + every test, GPU included)"
./dev.sh test >"$OUT/ctest.log" 2>&1
echo "dev.sh test exit $?" | tee -a "$OUT/summary.txt"
grep -a -E "error:|tests passed|tests failed|\*\*\*Failed|Skipped" "$OUT/ctest.log" | head -30 | tee -a "$OUT/summary.txt"

log "precision lab: ours against PyTorch $(python3 -c 'import torch;print(torch.__version__)') on cuda"
python3 tests/reference/precision_reference.py --device cuda --precision fp16,bf16 --model toy,transformer \
  --preset tiny --accumulation-csv "$OUT/p/torch_accumulation.csv" --autocast-csv "$OUT/p/torch_autocast.csv" \
  >"$OUT/p/torch.log" 2>&1 || tail -20 "$OUT/p/torch.log"
$cli precision accumulate --csv "$OUT/p/ours_accumulation.csv" 2>"$OUT/p/ours_accumulation.txt"
python3 tests/reference/compare_precision.py "$OUT/p/ours_accumulation.csv" "$OUT/p/torch_accumulation.csv" 2>&1 |
  tee -a "$OUT/summary.txt"
for precision in fp16 bf16; do
  for model in toy tiny; do
    theirs=$([ "$model" = toy ] && echo toy || echo transformer)
    $cli precision autocast --model $model --precision $precision --device cuda \
      --csv "$OUT/p/ours_${model}_$precision.csv" --json "$OUT/p/ours_${model}_$precision.json" \
      2>"$OUT/p/ours_${model}_$precision.txt"
    echo "autocast $model $precision: exit $?" | tee -a "$OUT/summary.txt"
    python3 tests/reference/compare_precision.py "$OUT/p/ours_${model}_$precision.csv" "$OUT/p/torch_autocast.csv" \
      --model $theirs --precision $precision 2>&1 | tee -a "$OUT/summary.txt"
  done
done
cat "$OUT/p/ours_toy_fp16.txt" >>"$OUT/summary.txt"

log "harness on the GPU: small train with both profilers, as a run record"
$cli bench --model small --context 256 --mode forward,train --precision bf16 --warmup 2 --steps 5 --device cuda \
  --profile kernels,memory --csv "$OUT/p/bench.csv" --json "$OUT/p/bench.json" 2>"$OUT/p/bench.txt"
echo "bench exit $?" | tee -a "$OUT/summary.txt"
python3 - "$OUT/p/bench.json" "$OUT/p/bench.csv" <<'PY' | tee -a "$OUT/summary.txt"
import csv, json, sys
record = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
print("record", record["format"], "version", record["version"], "entries", len(record["entries"]))
for entry, row in zip(record["entries"], rows):
    r = entry["row"]
    same = all(str(r[k]) == v or (r[k] is None and v == "") or (isinstance(r[k], float) and float(v) == r[k])
               for k, v in row.items())
    peaks = [p["label"] for p in entry["timeline"]["peaks"]] if entry["timeline"] else []
    kernels = sum(len(x["kernels"]) for x in entry["kernel_profile"]["ranges"]) if entry["kernel_profile"] else 0
    print(f"{r['mode']}: {r['total_mean_ms']:.2f} ms, peak {r['peak_memory_bytes']} B, row equals CSV: {same}, "
          f"kernel rows {kernels}, peaks {peaks}")
PY
rm -f "$OUT"/p/*.partial "$OUT"/p/*.memory_snapshot.pickle "$OUT"/p/*.trace.json
(cd "$OUT" && tar -czf precision_lab_results.tgz p && rm -rf p)
log "done"
