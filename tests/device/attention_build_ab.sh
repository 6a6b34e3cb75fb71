#!/usr/bin/env bash
# A/B of a host-side change on the attention sweep's short rows: builds the command line from
# this tree ("new"), reverse-applies PATCH and rebuilds ("old"; only what PATCH touches
# recompiles), then runs both, alternated, on causal bf16 rows against SDPA in the same runs, and
# prints each cell's forward and backward medians. The GPU tests run on the new build.
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/attention_build_ab.sh PATCH [ROUNDS]
set -uo pipefail
patch_file=$1 rounds=${2:-2}
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/ab"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"

build_with_deps || exit 1
build/bin/stepscope_gpu_tests --gtest_filter='FlashAttention*' >"$OUT/gpu_tests.log" 2>&1
grep -a -E "OK \]|FAILED|PASSED|Failure" "$OUT/gpu_tests.log" | tee -a "$OUT/summary.txt"
cp build/bin/stepscope-cli /tmp/cli-new
(git apply -R "$patch_file" 2>/dev/null || patch -R -p1 <"$patch_file") >"$OUT/unpatch.log" 2>&1 ||
  { log "could not reverse $patch_file"; cat "$OUT/unpatch.log"; exit 1; }
log "rebuild without the change"
cmake --build build --target stepscope-cli >"$OUT/build_old.log" 2>&1 || { tail -30 "$OUT/build_old.log"; exit 1; }
cp build/bin/stepscope-cli /tmp/cli-old

sweep() {  # BINARY CSV: the one-head rows the seeds' flash_benchmarking table starts with
  "$1" attention --impl sdpa,flash --batch 1 --d 16,64,128 --seq 128,256,512,1024,2048 --precision bf16 \
    --causal --warmup 10 --steps 100 --device cuda --quiet --csv "$2"
}
log "short rows, old and new alternated $rounds times"
for r in $(seq 1 "$rounds"); do
  sweep /tmp/cli-old "$OUT/ab/old$r.csv"
  sweep /tmp/cli-new "$OUT/ab/new$r.csv"
done
python3 - "$OUT/ab" "$rounds" <<'PY' | tee -a "$OUT/summary.txt"
import csv, sys
d, rounds = sys.argv[1], int(sys.argv[2])
def load(path):
    return {(r["impl"], r["d"], r["seq"]): r for r in csv.DictReader(open(path))}
runs = {side: [load(f"{d}/{side}{r}.csv") for r in range(1, rounds + 1)] for side in ("old", "new")}
print("median ms per round; ratio = flash / sdpa of the same run")
for ph in ("fwd", "bwd"):
    print(f"{ph}: {'d':>4} {'seq':>5} | " + " | ".join(f"{s} flash/sdpa (ratio)" for s in ("old", "new")))
    for key in runs["old"][0]:
        if key[0] != "flash": continue
        cells = []
        for side in ("old", "new"):
            parts = []
            for run in runs[side]:
                f, s = run[key], run[("sdpa",) + key[1:]]
                fm, sm = float(f[f"{ph}_median_ms"]), float(s[f"{ph}_median_ms"])
                parts.append(f"{fm:.4f}/{sm:.4f} ({fm / sm:.2f})")
            cells.append(" ".join(parts))
        print(f"{ph}: {key[1]:>4} {key[2]:>5} | " + " | ".join(cells))
PY
log "done"
