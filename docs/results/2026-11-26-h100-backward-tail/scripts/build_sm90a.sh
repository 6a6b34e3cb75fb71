#!/usr/bin/env bash
# build_check.sh for sm_90a only, no lineinfo, for trees with flash_tile_counters.cpp (0fcb840 on): tree dir, out dir
set -e
tree=$1; out=$2; mkdir -p $out; cd $tree
flags=(-O3 -std=c++17 -Iengine -gencode arch=compute_90a,code=sm_90a)
objs=()
for src in engine/kernels/flash_attention_args.cpp engine/kernels/cuda/flash_forward.cu engine/kernels/cuda/sm90_tensor_map.cpp engine/kernels/cuda/flash_tile_counters.cpp engine/kernels/cuda/flash_backward.cu engine/kernels/cuda/flash_attention_tf32.cu tests/kernels/attention_reference_cpu.cpp tests/kernels/flash_kernel_check.cu; do
  o=$out/$(basename ${src%.*}).o; objs+=($o); /usr/local/cuda/bin/nvcc "${flags[@]}" -c $src -o $o & done
wait
/usr/local/cuda/bin/nvcc "${flags[@]}" "${objs[@]}" -o $out/flash_kernel_check
