#!/usr/bin/env bash
# base: 919dc62; pair: the Hopper backward pairing key tiles j and key_tiles-1-j in one CTA for
# short square causal grids of at least a wave of pairs (and the dQ writer's final wait
# dropped). Both sm_90a-only builds (docs/results/2026-11-26-h100-forward-trims/scripts/build_sm90a.sh) carried in .device/. The Hopper-path kernel
# check of pair (new paired cases included), racecheck and memcheck on --small, pair against
# base in interleaved rounds (one unpaired control shape), then pair against SDPA.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s); pair=.device/kc_pair/flash_kernel_check; base=.device/kc_base/flash_kernel_check
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" | tee -a $D/log.txt; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > $D/gpu.txt
for t in bf16 f16; do
  stamp "kcheck pair fastest $t"
  timeout 100 $pair --filter "fastest  $t" > /tmp/kc_$t.txt 2>&1; rc=$?
  { echo "pair $t rc $rc"; tail -1 /tmp/kc_$t.txt; grep -a 'FAIL\|ERROR' /tmp/kc_$t.txt | head -5; grep -a "h=140 sq=257\|h=35 sq=500" /tmp/kc_$t.txt | head -8; } | tee -a $D/kcheck.txt
done
shapes=("256 512 128 causal" "256 512 64 causal" "128 512 128 causal" "128 512 64 causal" "128 1024 128 causal"
        "128 1024 64 causal" "64 1024 128 causal")
stamp "pair vs base, 3 rounds (+ control 16 4096 128 causal, unpaired)"
OUT=/tmp/kb timeout 150 tests/device/kernel_builds_rounds.sh 3 "${shapes[@]}" "16 4096 128 causal" -- $base $pair > /dev/null 2>&1
cp /tmp/kb/kernel_builds/table.txt $D/builds.txt; cp /tmp/kb/kernel_builds/runs.txt $D/builds_runs.txt; cat $D/builds.txt
stamp "pair vs sdpa, 2 rounds"
OUT=/tmp/sd timeout 110 tests/device/kernels_vs_sdpa_rounds.sh $pair 2 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/sd/kernels_vs_sdpa/table.txt $D/pair_vs_sdpa.txt; cat $D/pair_vs_sdpa.txt
stamp "racecheck --small"
timeout 75 compute-sanitizer --tool racecheck --racecheck-report hazard $pair --small > /tmp/rc.txt 2>&1; echo "rc $?" >> /tmp/rc.txt
grep -a 'RACECHECK SUMMARY\|^rc\|cases' /tmp/rc.txt | tail -4 | tee $D/race.txt
stamp "done"
