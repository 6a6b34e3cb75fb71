#!/usr/bin/env bash
# 2 x H200: issue 12's device script on 8bb5595 (ZeRO-1 gathering in place), then every GPU
# test, then compute-sanitizer on the Hopper forward as committed in 0fcb840 (the
# flash_kernel_check build carried in .device/varA, sm_90a), on GPU 0.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT
nvidia-smi topo -m > /tmp/topo.txt 2>&1
timeout 330 tests/device/run_issue12.sh > /tmp/issue12.log 2>&1; echo "issue12 exit $?"; cp /tmp/topo.txt $D/
cat $D/summary.txt
echo "== all GPU tests"
timeout 120 build/bin/stepscope_gpu_tests > /tmp/gpu_tests.log 2>&1; echo "gpu tests exit $?"
grep -a -E "OK \]|FAILED|PASSED|SKIPPED" /tmp/gpu_tests.log | tail -30
echo "== sanitizers, Hopper forward of 0fcb840"
export CUDA_VISIBLE_DEVICES=0
timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard .device/varA/flash_kernel_check --small > /tmp/rc.txt 2>&1; echo "racecheck rc $?"
grep -a 'RACECHECK SUMMARY\|cases' /tmp/rc.txt | tail -2
timeout 60 compute-sanitizer --tool memcheck .device/varA/flash_kernel_check --small > /tmp/mc.txt 2>&1; echo "memcheck rc $?"
grep -a 'ERROR SUMMARY\|cases' /tmp/mc.txt | tail -2
