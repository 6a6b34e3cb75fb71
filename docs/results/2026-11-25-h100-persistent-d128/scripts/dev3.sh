#!/usr/bin/env bash
# The final tree: run_issue10.sh without its kernel-check stage (run next call with a carried build), then the d128 rule at 1.2-1.5 waves against cea241a.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" >> $D/log.txt; }
stamp "run_issue10 (SKIP_KERNEL_CHECK)"
SKIP_KERNEL_CHECK=1 OUT=/tmp/i10 timeout 420 tests/device/run_issue10.sh > $D/run_issue10.out 2>&1; echo "rc $?" >> $D/log.txt
cp /tmp/i10/summary.txt $D/; cp /tmp/i10/*.tgz $D/ 2>/dev/null
stamp "final vs main at 1.2-1.5 waves, d128"
OUT=/tmp/ab3 AGAINST=kcheck_main/flash_kernel_check timeout 100 tests/device/kernels_vs_sdpa_rounds.sh kcheck_F/flash_kernel_check 2 \
  "20 1024 128 causal" "24 1024 128 causal" "40 512 128 causal" "20 1024 128 full" > /dev/null 2>&1
cp /tmp/ab3/kernels_vs_sdpa/table.txt $D/F_vs_main_low_waves.txt
stamp "done"
