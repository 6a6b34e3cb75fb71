#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; K=kcheck_new/flash_kernel_check
for t in bf16 f16; do
  s=$(date +%s); timeout 100 $K --filter "fastest  $t" > /tmp/kc_$t.txt 2>&1; rc=$?
  { echo "$t rc $rc in $(( $(date +%s) - s )) s"; tail -1 /tmp/kc_$t.txt; grep -a 'FAIL' /tmp/kc_$t.txt | head -5; } >> $D/kc_new.txt
done
OUT=/tmp/sd timeout 40 tests/device/kernels_vs_sdpa_rounds.sh $K 1 "16 16384 64 causal" "128 1024 64 causal" "128 512 128 causal" > /dev/null 2>&1
cp /tmp/sd/kernels_vs_sdpa/table.txt $D/sdpa_new.txt
