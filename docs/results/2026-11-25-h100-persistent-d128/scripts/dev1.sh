#!/usr/bin/env bash
# A: d128 persistent with 2 K/V stages and O in its own buffer; B: two Q buffers (O in Q rows), 2 stages at d128, 4 at d64.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" >> $D/log.txt; }
d128=("32 2048 128 causal" "64 1024 128 causal" "64 2048 128 causal" "128 512 128 causal" "128 1024 128 causal" "128 2048 128 causal" "256 512 128 causal" "128 1024 128 full")
d64=("64 2048 64 causal" "128 512 64 causal" "128 1024 64 causal" "128 2048 64 causal" "256 512 64 causal")
stamp "A vs main"
OUT=/tmp/abA AGAINST=kcheck_main/flash_kernel_check timeout 150 tests/device/kernels_vs_sdpa_rounds.sh kcheck_A/flash_kernel_check 2 "${d128[@]}" > /dev/null 2>&1
cp /tmp/abA/kernels_vs_sdpa/table.txt $D/A_vs_main.txt
stamp "B vs main"
OUT=/tmp/abB AGAINST=kcheck_main/flash_kernel_check timeout 200 tests/device/kernels_vs_sdpa_rounds.sh kcheck_B/flash_kernel_check 2 "${d128[@]}" "${d64[@]}" > /dev/null 2>&1
cp /tmp/abB/kernels_vs_sdpa/table.txt $D/B_vs_main.txt
for v in A B; do
  stamp "kcheck $v"
  timeout 100 kcheck_$v/flash_kernel_check --filter "fastest  bf16" > /tmp/kc_$v.txt 2>&1; rc=$?
  { echo "$v bf16 rc $rc"; tail -1 /tmp/kc_$v.txt; grep -a 'FAIL' /tmp/kc_$v.txt | head -5; } >> $D/kcheck.txt
done
stamp "racecheck B"
timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard kcheck_B/flash_kernel_check --small > /tmp/rc.txt 2>&1; echo "rc $?" >> /tmp/rc.txt
{ grep -a 'RACECHECK SUMMARY\|cases\|^rc' /tmp/rc.txt | tail -4; grep -a -m1 -B2 -A20 'Error: Race' /tmp/rc.txt; } > $D/race_B.txt
stamp "done"
