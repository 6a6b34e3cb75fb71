#!/usr/bin/env bash
# A CUDA build's installed tree runs with the LibTorch of the PyTorch it was built against, with
# no LD_LIBRARY_PATH: `cmake --install` of stepscope-cli, its RUNPATH, and the installed binary's
# version and a tiny GPU benchmark, started from a clean environment.
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/install_tree_on_gpu.sh
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
echo "commit $(run_commit)" | tee -a "$OUT/summary.txt"
build_with_deps stepscope-cli stepscope_docs stepscope_changelog || exit 1
prefix=$(mktemp -d)
cmake --install build --prefix "$prefix" >"$OUT/install.log" 2>&1
echo "install exit $?: $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
readelf -d "$prefix/bin/stepscope-cli" | grep -i "runpath\|rpath" | tee -a "$OUT/summary.txt"
env -i PATH=/usr/bin:/bin HOME="$HOME" NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
  "$prefix/bin/stepscope-cli" version 2>&1 | tee -a "$OUT/summary.txt"
env -i PATH=/usr/bin:/bin HOME="$HOME" NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
  "$prefix/bin/stepscope-cli" bench --model tiny --context 32 --batch 2 --warmup 1 --steps 2 --device cuda --quiet \
  --csv "$OUT/tiny_gpu.csv" 2>&1 | tail -3 | tee -a "$OUT/summary.txt"
echo "bench exit ${PIPESTATUS[0]}" | tee -a "$OUT/summary.txt"
cut -d, -f1-3,13-19 "$OUT/tiny_gpu.csv" 2>/dev/null | tee -a "$OUT/summary.txt"
rm -rf "$prefix"
