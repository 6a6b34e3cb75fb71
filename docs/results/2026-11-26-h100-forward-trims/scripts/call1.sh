#!/usr/bin/env bash
# new: the uncommitted forward trims left by the session cut off on 2026-11-25 (the persistent
# kernel's counter reset by its last CTA, the one-compare causal mask, descriptors by offset,
# stepped stages, the stmatrix epilogue with fast rcp/log, tiles mapped once by the scheduler);
# base: 88f1fba. Both built on the CPU machine (new: tests/kernels/build_check.sh, sm_80 + sm_90a;
# base: sm_90a only) and carried in .device/. Checks new on the Hopper path, sanitizers on
# --small, new against base and against SDPA in interleaved rounds.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s); new=.device/kc_new/flash_kernel_check; base=.device/kc_base/flash_kernel_check
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" | tee -a $D/log.txt; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > $D/gpu.txt
shapes=("128 512 64 causal" "128 1024 64 causal" "128 2048 64 causal" "256 512 64 causal" "128 512 128 causal"
        "256 512 128 causal" "64 1024 128 causal" "128 1024 128 full" "16 4096 128 causal" "16 16384 64 causal")
for t in bf16 f16; do
  stamp "kcheck new fastest $t"
  timeout 100 $new --filter "fastest  $t" > /tmp/kc_$t.txt 2>&1; rc=$?
  { echo "new $t rc $rc"; tail -1 /tmp/kc_$t.txt; grep -a 'FAIL\|ERROR' /tmp/kc_$t.txt | head -5; } | tee -a $D/kcheck.txt
done
stamp "racecheck"
timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard $new --small > /tmp/rc.txt 2>&1; echo "rc $?" >> /tmp/rc.txt
grep -a 'RACECHECK SUMMARY\|^rc\|passed\|cases' /tmp/rc.txt | tail -4 | tee $D/race.txt
stamp "memcheck"
timeout 80 compute-sanitizer --tool memcheck $new --small > /tmp/mc.txt 2>&1; echo "rc $?" >> /tmp/mc.txt
grep -a 'ERROR SUMMARY\|^rc\|passed\|cases' /tmp/mc.txt | tail -4 | tee $D/mem.txt
stamp "new vs base, 3 rounds"
OUT=/tmp/ab AGAINST=$base timeout 200 tests/device/kernels_vs_sdpa_rounds.sh $new 3 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/ab/kernels_vs_sdpa/table.txt $D/new_vs_base.txt; cat $D/new_vs_base.txt
stamp "new vs sdpa, 1 round"
OUT=/tmp/sd timeout 90 tests/device/kernels_vs_sdpa_rounds.sh $new 1 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/sd/kernels_vs_sdpa/table.txt $D/new_vs_sdpa.txt; cat $D/new_vs_sdpa.txt
stamp "done"
