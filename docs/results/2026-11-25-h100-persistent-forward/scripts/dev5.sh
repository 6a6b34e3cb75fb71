#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; K=kcheck_v7/flash_kernel_check
timeout 150 compute-sanitizer --tool racecheck --racecheck-report hazard $K --small > /tmp/rc.txt 2>&1; echo "rc $?" >> /tmp/rc.txt
{ echo racecheck; grep -a 'RACECHECK SUMMARY\|cases\|^rc' /tmp/rc.txt | tail -4; grep -a -m3 -A3 'Error: Potential' /tmp/rc.txt; } > $D/san_v7.txt
timeout 90 compute-sanitizer --tool memcheck $K --small > /tmp/mc.txt 2>&1; echo "rc $?" >> /tmp/mc.txt
{ echo memcheck; tail -3 /tmp/mc.txt; } >> $D/san_v7.txt
timeout 100 $K --filter "fastest  bf16" > /tmp/kc.txt 2>&1; echo "rc $?" >> /tmp/kc.txt
{ tail -2 /tmp/kc.txt; grep -a 'FAIL\|wrong' /tmp/kc.txt | head; } > $D/kc_v7.txt
OUT=/tmp/ab AGAINST=kcheck_v6/flash_kernel_check timeout 100 tests/device/kernels_vs_sdpa_rounds.sh $K 2 "128 512 64 causal" "128 1024 64 causal" "256 512 64 causal" "128 1024 128 causal" "64 2048 128 causal" "128 1024 64 full" > /dev/null 2>&1
cp /tmp/ab/kernels_vs_sdpa/table.txt $D/ab_v7_v6.txt
