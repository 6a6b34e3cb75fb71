#!/usr/bin/env bash
# Call 7: dK/dV through shared memory (kc_epi) against the current head (kc_all): kernel check,
# sanitizers, interleaved rounds, and against SDPA.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p $OUT/race $OUT/kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
B=.device/kc_all/flash_kernel_check; N=.device/kc_epi/flash_kernel_check
chmod +x $B $N
for ty in bf16 f16; do
  timeout 100 $N --filter "fastest  $ty" >$OUT/kc/$ty.txt 2>&1
  echo "kernel check fastest $ty rc $? :: $(grep -a -c FAIL $OUT/kc/$ty.txt) FAIL :: $(tail -1 $OUT/kc/$ty.txt)" | tee -a $OUT/summary.txt
done
grep -a FAIL $OUT/kc/*.txt | head -5 | tee -a $OUT/summary.txt
san() {  # tool name filter
  timeout 60 compute-sanitizer --tool $1 $N --filter "$3" >$OUT/race/$1_$2.txt 2>&1
  echo "$1 $2 rc $? :: $(grep -a -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/race/$1_$2.txt | tail -1) :: $(grep -a 'cases,' $OUT/race/$1_$2.txt)" | tee -a $OUT/summary.txt
}
san racecheck pair_d64 "fastest  bf16 causal d=64  b=1 h=140 sq=257"
san racecheck wrap_d128 "fastest  f16  causal d=128 b=1 h=1 sq=700 sk=1000"
san racecheck wrap_d64 "fastest  bf16 full   d=64  b=1 h=1 sq=700 sk=1000"
san memcheck pair_d64 "fastest  bf16 causal d=64  b=1 h=140 sq=257"
san memcheck wrap_d128 "fastest  f16  causal d=128 b=1 h=1 sq=700 sk=1000"
timeout 220 tests/device/kernel_builds_rounds.sh 3 "256 512 64 causal" "128 512 64 causal" "256 512 128 causal" "128 1024 128 causal" "16 16384 64 causal" "16 16384 128 causal" "16 4096 128 full" -- $B $N
cat $OUT/kernel_builds/table.txt | tee -a $OUT/summary.txt
timeout 150 tests/device/kernels_vs_sdpa_rounds.sh $N 2 "256 512 64 causal" "256 512 128 causal" "128 1024 128 causal" "16 16384 128 causal"
cat $OUT/kernels_vs_sdpa/table.txt | tee -a $OUT/summary.txt
cd $OUT && tar czf details.tgz race kc kernel_builds kernels_vs_sdpa && rm -rf race kc kernel_builds kernels_vs_sdpa
