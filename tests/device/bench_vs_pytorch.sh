#!/usr/bin/env bash
# One device call for the engine foundation: build against python3's CUDA LibTorch, run
# every test (GPU-labelled ones included), compare a PyTorch-written checkpoint, then the
# benchmark table of stepscope and of PyTorch eager measured back to back on the same GPU.
# Usage (on the GPU machine, repository root): tests/device/bench_vs_pytorch.sh [all|check|bench|fixture]
set -uo pipefail
what=${1:-all}
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
log() { echo "== $(date +%H:%M:%S) $*" | tee -a "$OUT/summary.txt"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee -a "$OUT/gpu.txt"

ls -d /usr/include/gtest /usr/include/nlohmann 2>&1 | tee -a "$OUT/gpu.txt"

if [ "$what" = all ] || [ "$what" = check ]; then
  # The README's test command, as on any machine (offline: .deps-debs is carried along).
  log "./dev.sh test (build + every test, GPU included)"
  time ./dev.sh test >"$OUT/ctest.log" 2>&1
  echo "dev.sh test exit $?" | tee -a "$OUT/summary.txt"
  grep -a -E "error:|tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest.log" | head -30 | tee -a "$OUT/summary.txt"
  log "checkpoint written by PyTorch $(python3 -c 'import torch;print(torch.__version__)') -> stepscope check on cuda"
  python3 tests/reference/compare_checkpoint.py --cli build/bin/stepscope-cli --workdir /tmp/cmp --size small \
    --device cuda --cli-extra "--device cuda" >"$OUT/compare_checkpoint.log" 2>&1
  echo "compare_checkpoint exit $?" | tee -a "$OUT/summary.txt"
  tail -25 "$OUT/compare_checkpoint.log" >>"$OUT/summary.txt"
  cp /tmp/cmp/compare_checkpoint.json "$OUT/" 2>/dev/null
fi

if [ "$what" != check ]; then  # incremental: a warm machine keeps build/ between calls
  log "configure + build (stepscope-cli, engine tests)"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEPSCOPE_DEPS_PREFIX="$PWD/build/deps/usr" >"$OUT/configure.log" 2>&1
  mkdir -p build/deps && for deb in .deps-debs/*.deb; do dpkg -x "$deb" build/deps; done 2>/dev/null
  cmake --build build --target stepscope-cli stepscope_engine_tests >"$OUT/build.log" 2>&1 ||
    { grep -a -A5 "error" "$OUT/build.log" | head -60; exit 1; }
  build/bin/stepscope_engine_tests --gtest_filter="BenchSweep.*:CsvWriter.*" 2>&1 | tail -4 | tee -a "$OUT/summary.txt"
fi
grep -a "Stepscope:" build/CMakeCache.txt "$OUT/configure.log" 2>/dev/null | head -3

if [ "$what" = all ] || [ "$what" = bench ]; then
  models=${MODELS:-small,medium,large,xl,2.7B}
  common="--model $models --context 256 --batch 4 --precision fp32,bf16 --mode forward,forward-backward,train --warmup 5 --steps 10 --device cuda"
  # Ours first and last, so the spread between the two runs shows the drift of the card.
  log "stepscope bench: $common"
  build/bin/stepscope-cli bench $common --csv "$OUT/ours.csv" --json "$OUT/ours.json" 2>"$OUT/ours.log"
  echo "stepscope exit $?" | tee -a "$OUT/summary.txt"
  log "PyTorch eager bench, the reference code: same table"
  python3 tests/reference/bench_reference.py $common --csv "$OUT/pytorch.csv" 2>"$OUT/pytorch.log"
  echo "pytorch exit $?" | tee -a "$OUT/summary.txt"
  log "PyTorch eager bench, fused softmax/cross-entropy and multi-tensor AdamW: same table"
  python3 tests/reference/bench_reference.py $common --variant fused --csv "$OUT/pytorch_fused.csv" 2>"$OUT/pytorch_fused.log"
  echo "pytorch fused exit $?" | tee -a "$OUT/summary.txt"
  log "stepscope bench again"
  build/bin/stepscope-cli bench $common --csv "$OUT/ours_again.csv" --quiet
  python3 tests/reference/compare_bench.py --ours "$OUT/ours.csv" --reference "$OUT/pytorch.csv" \
    --markdown "$OUT/compare.md" | tee -a "$OUT/summary.txt"
  python3 tests/reference/compare_bench.py --ours "$OUT/ours_again.csv" --reference "$OUT/pytorch_fused.csv" \
    --markdown "$OUT/compare_fused.md" | tail -3 | tee -a "$OUT/summary.txt"
fi
if [ "$what" = fixture ] || [ "$what" = bench ]; then
  log "tiny checkpoint written by PyTorch $(python3 -c 'import torch;print(torch.__version__)') for the CPU tests"
  python3 tests/reference/make_tiny_fixture.py --out /tmp/tiny_torch2 >"$OUT/fixture.log" 2>&1
  tar -czf "$OUT/tiny_torch2.tgz" -C /tmp tiny_torch2
fi
# Few files come back: bundle the details.
log "done"
keep="summary.txt compare.md compare_fused.md tiny_torch2.tgz details.tgz"
(cd "$OUT" && tar -czf /tmp/details.tgz --exclude=tiny_torch2.tgz ./* && mv /tmp/details.tgz . &&
  for f in *; do case " $keep " in *" $f "*) ;; *) rm -rf "$f" ;; esac; done)
