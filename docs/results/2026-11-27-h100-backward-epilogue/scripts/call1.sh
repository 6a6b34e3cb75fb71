#!/usr/bin/env bash
# Call 1: the syncwarp fix under racecheck, the Hopper kernel check, fix vs base rounds, ncu vs cuDNN.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p $OUT/race $OUT/kc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
B=.device/kc_base/flash_kernel_check; F=.device/kc_fix/flash_kernel_check
chmod +x $B $F
race() {  # name binary filter
  local t0=$(date +%s.%N)
  timeout 90 compute-sanitizer --tool racecheck --racecheck-report hazard $2 --filter "$3" >$OUT/race/$1.txt 2>&1
  local rc=$?
  echo "racecheck $1 rc $rc $(python3 -c "import time;print(f'{time.time()-$t0:.1f} s')") :: $(grep -a 'RACECHECK SUMMARY' $OUT/race/$1.txt | tail -1) :: $(grep -a 'cases,' $OUT/race/$1.txt)" | tee -a $OUT/summary.txt
}
race fix_wrap_d64 $F "fastest  bf16 causal d=64  b=1 h=1 sq=700 sk=1000"
race base_wrap_d64 $B "fastest  bf16 causal d=64  b=1 h=1 sq=700 sk=1000"
race fix_pair_d64 $F "fastest  bf16 causal d=64  b=1 h=140 sq=257"
race fix_wrap_d128 $F "fastest  f16  causal d=128 b=1 h=1 sq=700 sk=1000"
race fix_pair2_d64 $F "fastest  f16  causal d=64  b=2 h=35 sq=500"
timeout 60 compute-sanitizer --tool memcheck $F --filter "fastest  bf16 causal d=64  b=1 h=1 sq=700 sk=1000" >$OUT/race/memcheck_wrap.txt 2>&1
echo "memcheck wrap rc $? $(grep -a 'ERROR SUMMARY' $OUT/race/memcheck_wrap.txt)" | tee -a $OUT/summary.txt
for ty in bf16 f16; do
  timeout 100 $F --filter "fastest  $ty" >$OUT/kc/$ty.txt 2>&1
  echo "kernel check fastest $ty rc $? :: $(grep -a -c FAIL $OUT/kc/$ty.txt) FAIL lines :: $(tail -1 $OUT/kc/$ty.txt)" | tee -a $OUT/summary.txt
done
timeout 150 tests/device/kernel_builds_rounds.sh 3 "256 512 64 causal" "256 512 128 causal" "128 1024 128 causal" "16 16384 64 causal" -- $B $F
cat $OUT/kernel_builds/table.txt | tee -a $OUT/summary.txt
timeout 170 tests/device/backward_vs_cudnn_ncu.sh $F "256 512 128 causal" "16 16384 128 causal"
echo "ncu rc $?" >> $OUT/summary.txt
cat $OUT/backward_vs_cudnn/table.txt >> $OUT/summary.txt
cd $OUT && tar czf details.tgz race kc kernel_builds backward_vs_cudnn && rm -rf race kc kernel_builds backward_vs_cudnn
