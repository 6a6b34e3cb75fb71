#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; K=kcheck_v5/flash_kernel_check
shapes=()
for d in 64 128; do for s in 512 1024 2048; do for h in 32 64 128 256; do shapes+=("$h $s $d causal"); done; done; done
shapes+=("64 1024 64 full" "64 1024 128 full" "256 512 64 full" "256 512 128 full")
OUT=/tmp/ab AGAINST=kcheck_main/flash_kernel_check timeout 420 tests/device/kernels_vs_sdpa_rounds.sh $K 2 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/ab/kernels_vs_sdpa/table.txt $D/matrix_v5.txt
