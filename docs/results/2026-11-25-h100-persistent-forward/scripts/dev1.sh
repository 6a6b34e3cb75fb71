#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > $D/gpu.txt
shapes=("128 512 128 causal" "128 1024 64 causal" "128 1024 128 causal" "128 2048 64 causal" "64 2048 128 causal" "128 1024 64 full" "128 1024 128 full" "16 16384 64 causal" "48 4096 64 causal" "16 8192 128 causal" "16 4096 128 causal")
for v in v3 v4; do
  OUT=/tmp/ab_$v AGAINST=kcheck_main/flash_kernel_check timeout 200 tests/device/kernels_vs_sdpa_rounds.sh kcheck_$v/flash_kernel_check 3 "${shapes[@]}" > /dev/null 2>&1
  cp /tmp/ab_$v/kernels_vs_sdpa/table.txt $D/ab_$v.txt
  cp /tmp/ab_$v/kernels_vs_sdpa/runs.txt $D/runs_$v.txt
done
timeout 120 kcheck_v4/flash_kernel_check --filter "fastest  bf16" > /tmp/kc_v4.txt 2>&1; echo "rc $?" >> /tmp/kc_v4.txt
tail -5 /tmp/kc_v4.txt > $D/kc_v4_tail.txt; grep -ai 'fail\|wrong\|error' /tmp/kc_v4.txt | head -20 >> $D/kc_v4_tail.txt
