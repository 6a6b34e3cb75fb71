#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; K=kcheck_v5/flash_kernel_check
shapes=("128 512 64 causal" "128 1024 64 causal" "128 2048 64 causal" "128 1024 64 full" "64 1024 64 causal" "32 2048 64 causal" "128 512 128 causal" "128 1024 128 causal" "64 2048 128 causal" "128 1024 128 full" "48 4096 64 causal")
OUT=/tmp/ab AGAINST=kcheck_main/flash_kernel_check timeout 220 tests/device/kernels_vs_sdpa_rounds.sh $K 3 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/ab/kernels_vs_sdpa/table.txt $D/ab_v5.txt
timeout 100 $K --filter "fastest  bf16" > /tmp/kc.txt 2>&1; echo "rc $?" >> /tmp/kc.txt
{ tail -2 /tmp/kc.txt; grep -a 'FAIL\|wrong' /tmp/kc.txt | head; } > $D/kc_v5.txt
timeout 90 compute-sanitizer --tool memcheck $K --small > /tmp/mc.txt 2>&1; echo "rc $?" >> /tmp/mc.txt
timeout 150 compute-sanitizer --tool racecheck $K --small > /tmp/rc.txt 2>&1; echo "rc $?" >> /tmp/rc.txt
{ echo memcheck; tail -3 /tmp/mc.txt; echo racecheck; grep -a 'hazard\|RACECHECK SUMMARY' /tmp/rc.txt | sort | uniq -c | head; tail -3 /tmp/rc.txt; } > $D/san_v5.txt
OUT=/tmp/sd timeout 100 tests/device/kernels_vs_sdpa_rounds.sh $K 2 "128 512 64 causal" "128 1024 64 causal" "128 2048 64 causal" "128 1024 64 full" "128 512 128 causal" "128 1024 128 causal" > /dev/null 2>&1
cp /tmp/sd/kernels_vs_sdpa/table.txt $D/sdpa_v5.txt
