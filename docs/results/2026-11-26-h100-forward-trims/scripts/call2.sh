#!/usr/bin/env bash
# Where call 1's 3 % at 16 x 16384 d64 comes from: four sm_90a-only builds (no lineinfo) in
# interleaved rounds: base 88f1fba; new90 = the trims whole; varB = the trims without the
# descriptors by offset; varA = varB also without the stepped stage ring. Then the Hopper-path
# kernel check of varA and varB.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" | tee -a $D/log.txt; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > $D/gpu.txt
stamp "rounds"
OUT=/tmp/kb timeout 260 tests/device/kernel_builds_rounds.sh 3 "16 16384 64 causal" "128 512 64 causal" "256 512 64 causal" \
  "128 1024 64 causal" "128 512 128 causal" "16 8192 64 causal" "16 4096 128 causal" -- \
  .device/base/flash_kernel_check .device/new90/flash_kernel_check .device/varB/flash_kernel_check .device/varA/flash_kernel_check > /dev/null 2>&1
cp /tmp/kb/kernel_builds/table.txt $D/builds.txt; cp /tmp/kb/kernel_builds/runs.txt $D/runs.txt; cat $D/builds.txt
for v in varA varB; do for t in bf16 f16; do
  stamp "kcheck $v fastest $t"
  timeout 60 .device/$v/flash_kernel_check --filter "fastest  $t" > /tmp/kc.txt 2>&1; rc=$?
  { echo "$v $t rc $rc"; tail -1 /tmp/kc.txt; grep -a 'FAIL\|ERROR' /tmp/kc.txt | head -5; } | tee -a $D/kcheck.txt
done; done
stamp "done"
