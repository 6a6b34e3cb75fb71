#!/usr/bin/env bash
# Call 2: every consumer thread arrives on empty[s] (kc_all): racecheck, kernel check, rounds vs base.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p $OUT/race $OUT/kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
B=.device/kc_base/flash_kernel_check; A=.device/kc_all/flash_kernel_check
chmod +x $B $A
race() {
  local t0=$(date +%s)
  timeout 90 compute-sanitizer --tool racecheck --racecheck-report hazard $2 --filter "$3" >$OUT/race/$1.txt 2>&1
  echo "racecheck $1 rc $? $(( $(date +%s) - t0 )) s :: $(grep -a 'RACECHECK SUMMARY' $OUT/race/$1.txt | tail -1) :: $(grep -a 'cases,' $OUT/race/$1.txt)" | tee -a $OUT/summary.txt
}
race all_wrap_d64 $A "fastest  bf16 causal d=64  b=1 h=1 sq=700 sk=1000"
race all_wrap_d128 $A "fastest  f16  causal d=128 b=1 h=1 sq=700 sk=1000"
race all_pair_d64 $A "fastest  bf16 causal d=64  b=1 h=140 sq=257"
for ty in bf16 f16; do
  timeout 100 $A --filter "fastest  $ty" >$OUT/kc/$ty.txt 2>&1
  echo "kernel check fastest $ty rc $? :: $(tail -1 $OUT/kc/$ty.txt)" | tee -a $OUT/summary.txt
done
timeout 200 tests/device/kernel_builds_rounds.sh 3 "256 512 64 causal" "128 512 64 causal" "256 512 128 causal" "128 1024 128 causal" "16 16384 64 causal" "16 16384 128 causal" -- $B $A
cat $OUT/kernel_builds/table.txt | tee -a $OUT/summary.txt
cd $OUT && tar czf details.tgz race kc kernel_builds && rm -rf race kc kernel_builds
