#!/usr/bin/env bash
# The seeds' short flash_benchmarking rows (batch 1, causal, seq 128..1024, d 16..128, bf16 and
# fp32; 0.1 ms passes, host-bound), flash against SDPA: the passes back to back per
# implementation (--rounds 1) against interleaved rounds (--rounds 10), each with either
# implementation first, twice. Counts the cells where ours is behind in each sweep.
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/short_rows_rounds.sh
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/a"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader | tee "$OUT/gpu.txt"
log "build"
mkdir -p build/deps && for d in .deps-debs/*.deb; do dpkg -x "$d" build/deps; done
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEPSCOPE_DEPS_PREFIX="$PWD/build/deps/usr" \
  -DSTEPSCOPE_CUDA_ARCHITECTURES=90a >"$OUT/configure.log" 2>&1 &&
  cmake --build build --target stepscope-cli stepscope_gpu_tests >"$OUT/build.log" 2>&1 ||
  { grep -a -B2 -A12 "error" "$OUT/build.log" | head -60; exit 1; }
build/bin/stepscope_gpu_tests --gtest_filter='FlashAttention*' >"$OUT/gpu_tests.log" 2>&1
grep -a -E "OK \]|FAILED|PASSED|Failure" "$OUT/gpu_tests.log" | head -30 | tee -a "$OUT/summary.txt"
files=()
for repeat in 1 2; do
  for rounds in 1 10; do
    for order in flash,sdpa sdpa,flash; do
      f="$OUT/a/short_r${rounds}_${order/,/_}_${repeat}.csv"
      log "rounds $rounds, --impl $order, repeat $repeat"
      timeout 100 $cli attention --impl $order --batch 1 --d 16,32,64,128 --seq 128,256,512,1024 \
        --precision bf16,fp32 --causal --warmup 10 --steps 100 --rounds $rounds --device cuda --quiet --csv "$f"
      echo "exit $?" | tee -a "$OUT/summary.txt"
      files+=("$f")
    done
  done
done
python3 tests/device/flash_vs_sdpa_cells.py "${files[@]}" >"$OUT/a/behind.txt"
grep -v "^behind" "$OUT/a/behind.txt" | tee -a "$OUT/summary.txt"
log "done"
(cd "$OUT" && tar czf /tmp/short-rows.tgz a *.log gpu.txt) && rm -rf "$OUT/a" "$OUT"/*.log && mv /tmp/short-rows.tgz "$OUT/"
