#!/usr/bin/env bash
# GPU side of the robustness work: the CUDA build with the memory pre-check, the GPU tests
# alone, real runs the pre-check must let through, and a hopeless one it must refuse at once.
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/memory_precheck_on_gpu.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"
mkdir -p build/deps && for d in .deps-debs/*.deb; do dpkg -x "$d" build/deps; done
log "build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEPSCOPE_DEPS_PREFIX="$PWD/build/deps/usr" \
  >"$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
cmake --build build --target stepscope-cli stepscope_gpu_tests stepscope_engine_tests >"$OUT/build.log" 2>&1 ||
  { grep -a -B2 -A8 "error" "$OUT/build.log" | head -40; exit 1; }
build/bin/stepscope_gpu_tests 2>&1 | grep -a -E "OK \]|FAILED|PASSED" | tee -a "$OUT/summary.txt"
build/bin/stepscope_engine_tests --gtest_filter='MemoryPrecheck*:SizeLimits*:OutputFile*' 2>&1 | tail -1 | tee -a "$OUT/summary.txt"
log "runs the pre-check must let through: 2.7B bf16 and xl fp32 training (H100, 80 GB)"
$cli bench --model 2.7B,xl --precision bf16,fp32 --mode train --warmup 1 --steps 2 --device cuda --quiet \
  --csv "$OUT/through.csv" 2>&1 | tail -3
cut -d, -f1,9,10,16,17 "$OUT/through.csv" | tee -a "$OUT/summary.txt"
log "a hopeless one: 2.7B at batch 64 x 2048, refused at once"
start=$(date +%s%N)
$cli bench --model 2.7B --context 2048 --batch 64 --warmup 0 --steps 1 --device cuda --quiet --csv "$OUT/hopeless.csv"
echo "milliseconds $(( ($(date +%s%N) - start) / 1000000 ))" | tee -a "$OUT/summary.txt"
python3 -c "import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); print(r['status'], r['message'])" "$OUT/hopeless.csv" | tee -a "$OUT/summary.txt"
log "done"
