#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; K=kcheck_v6/flash_kernel_check
shapes=()
for d in 64 128; do for hs in "32 1024" "64 512" "64 1024" "32 2048" "64 2048" "128 512" "128 1024" "128 2048" "256 512"; do shapes+=("$hs $d causal"); done; done
shapes+=("128 1024 64 full" "128 1024 128 full")
OUT=/tmp/ab AGAINST=kcheck_main/flash_kernel_check timeout 300 tests/device/kernels_vs_sdpa_rounds.sh $K 2 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/ab/kernels_vs_sdpa/table.txt $D/matrix_v6.txt
timeout 150 compute-sanitizer --tool racecheck --racecheck-report hazard $K --small > /tmp/rc.txt 2>&1; echo "rc $?" >> /tmp/rc.txt
{ grep -a 'RACECHECK SUMMARY\|cases' /tmp/rc.txt | tail -3; grep -a -m1 -B2 -A25 'Error: Race\|hazard' /tmp/rc.txt; } > $D/race_v6.txt
gzip -c /tmp/rc.txt > $D/race_full.txt.gz
OUT=/tmp/sd timeout 60 tests/device/kernels_vs_sdpa_rounds.sh $K 1 "128 512 64 causal" "128 1024 64 causal" "128 512 128 causal" "128 1024 128 causal" "32 1024 64 causal" > /dev/null 2>&1
cp /tmp/sd/kernels_vs_sdpa/table.txt $D/sdpa_v6.txt
