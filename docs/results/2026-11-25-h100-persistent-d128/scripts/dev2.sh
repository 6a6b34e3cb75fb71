#!/usr/bin/env bash
# A2: A with the persistent kernel on every grid of one wave or more (A: three waves, rows <= 2048).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" >> $D/log.txt; }
stamp "A2 vs A"
OUT=/tmp/ab2 AGAINST=kcheck_A/flash_kernel_check timeout 150 tests/device/kernels_vs_sdpa_rounds.sh kcheck_A2/flash_kernel_check 2 \
  "32 1024 128 causal" "64 512 128 causal" "16 2048 128 causal" "16 4096 128 causal" "48 4096 128 causal" "16 8192 128 causal" "16 16384 128 causal" "64 1024 128 full" > /dev/null 2>&1
cp /tmp/ab2/kernels_vs_sdpa/table.txt $D/A2_vs_A.txt
stamp "A vs sdpa"
OUT=/tmp/sd timeout 200 tests/device/kernels_vs_sdpa_rounds.sh kcheck_A/flash_kernel_check 2 "16 16384 64 causal" "128 512 64 causal" "128 1024 64 causal" "128 2048 64 causal" \
  "128 512 128 causal" "128 1024 128 causal" "128 2048 128 causal" "256 512 128 causal" "64 1024 128 causal" > /dev/null 2>&1
cp /tmp/sd/kernels_vs_sdpa/table.txt $D/A_vs_sdpa.txt
stamp "kcheck A f16"
timeout 100 kcheck_A/flash_kernel_check --filter "fastest  f16" > /tmp/kc.txt 2>&1; rc=$?
{ echo "A f16 rc $rc"; tail -1 /tmp/kc.txt; grep -a 'FAIL' /tmp/kc.txt | head -5; } >> $D/kcheck.txt
for tool in memcheck racecheck; do
  stamp "$tool A"
  timeout 120 compute-sanitizer --tool $tool kcheck_A/flash_kernel_check --small > /tmp/$tool.txt 2>&1; echo "rc $?" >> /tmp/$tool.txt
  { grep -a 'SUMMARY\|cases\|^rc' /tmp/$tool.txt | tail -4; grep -a -m1 -B2 -A20 'Error' /tmp/$tool.txt; } > $D/${tool}_A.txt
done
stamp "done"
