#!/usr/bin/env bash
# Builds tests/kernels/flash_kernel_check (the flash kernels' standalone self-check) with nvcc
# for sm_80 and sm_90a (Hopper's wgmma kernels need the "a" target). Run from the repository root:
#   tests/kernels/build_check.sh OUTPUT_DIR     then   OUTPUT_DIR/flash_kernel_check [--small|--bench]
# (SM90A_ONLY=1: sm_90a alone, see below)
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTPUT_DIR" >&2
  exit 2
fi
out="$1"
mkdir -p "$out"
nvcc="${NVCC:-nvcc}"
if ! command -v "$nvcc" >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  nvcc=/usr/local/cuda/bin/nvcc
fi

flags=(-O3 -std=c++17 -lineinfo -Xcompiler -Wall -Iengine
       -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a)
# SM90A_ONLY=1: Hopper code only and no line info, half the build time, for A/B builds of the
# Hopper kernels (every build of one comparison made the same way).
if [[ "${SM90A_ONLY:-0}" == 1 ]]; then
  flags=(-O3 -std=c++17 -Xcompiler -Wall -Iengine -gencode arch=compute_90a,code=sm_90a)
fi
# The kernel variants are one translation unit each (engine/kernels/cuda/instantiations/).
sources=(engine/kernels/flash_attention_args.cpp
         engine/kernels/cuda/flash_forward.cu
         engine/kernels/cuda/flash_tile_counters.cpp
         engine/kernels/cuda/sm90_tensor_map.cpp
         engine/kernels/cuda/flash_backward.cu
         engine/kernels/cuda/instantiations/*.cu
         tests/kernels/attention_reference_cpu.cpp
         tests/kernels/flash_kernel_check.cu)

# Compile the units in parallel, as many at a time as there are cores (JOBS to change), then link.
jobs_max="${JOBS:-$(nproc)}"
rm -f "$out/.failed"
objects=()
for src in "${sources[@]}"; do
  obj="$out/$(basename "${src%.*}").o"
  objects+=("$obj")
  while (( $(jobs -rp | wc -l) >= jobs_max )); do wait -n || true; done
  { "$nvcc" "${flags[@]}" -c "$src" -o "$obj" || touch "$out/.failed"; } &
done
wait
if [[ -e "$out/.failed" ]]; then
  echo "build_check.sh: compilation failed" >&2
  exit 1
fi
"$nvcc" "${flags[@]}" "${objects[@]}" -o "$out/flash_kernel_check"
echo "built $out/flash_kernel_check"
