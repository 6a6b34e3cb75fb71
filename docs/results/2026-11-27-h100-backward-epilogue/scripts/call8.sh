#!/usr/bin/env bash
# Call 8: e69eb50: the sanitizers on --small (kc_epi, sm_90a build of the same kernels) while the
# project builds, then run_issue10.sh's build, GPU tests and sweeps (SKIP_KERNEL_CHECK=1).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
N=.device/kc_epi/flash_kernel_check; chmod +x $N
mkdir -p $OUT
( for tool in memcheck racecheck; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $N --small >/tmp/small_$tool.log 2>&1
    echo "compute-sanitizer $tool --small exit $?: $(grep -a -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/small_$tool.log | tail -1) :: $(tail -1 /tmp/small_$tool.log)" >>/tmp/sanitizers.txt
  done ) &
SKIP_KERNEL_CHECK=1 bash tests/device/run_issue10.sh >/tmp/run.log 2>&1
wait
cp /tmp/run.log /tmp/sanitizers.txt $OUT/; tar czf $OUT/small_sanitizers.tgz -C /tmp small_memcheck.log small_racecheck.log; cat /tmp/sanitizers.txt
grep -a -E "^== |exit|OK \]|PASSED|FAILED|^model|behind|cells" /tmp/run.log | head -60
