#!/usr/bin/env bash
# new: dev2 plus descriptors by offset, stepped stages, the mask range, the stmatrix epilogue with fast rcp/log, tiles mapped once by the scheduler; base: 88f1fba.
# Kernel check (Hopper path, bf16 and f16), new vs base in rounds, then ncu of new at
# 128 x 512 d64 causal with its source, and the kernel's SASS with line info.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" >> $D/log.txt; }
shapes=("128 512 64 causal" "128 1024 64 causal" "128 2048 64 causal" "256 512 64 causal" "128 512 128 causal" "256 512 128 causal" "64 1024 128 causal" "16 4096 128 causal" "16 16384 64 causal")
for t in bf16 f16; do
  stamp "kcheck new $t"
  timeout 90 kcheck_new/flash_kernel_check --filter "fastest  $t" > /tmp/kc_$t.txt 2>&1; rc=$?
  { echo "new $t rc $rc"; tail -1 /tmp/kc_$t.txt; grep -a 'FAIL\|ERROR' /tmp/kc_$t.txt | head -5; } >> $D/kcheck.txt
done
stamp "new vs base"
OUT=/tmp/ab AGAINST=kcheck_base/flash_kernel_check timeout 200 tests/device/kernels_vs_sdpa_rounds.sh kcheck_new/flash_kernel_check 3 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/ab/kernels_vs_sdpa/table.txt $D/new_vs_base.txt
stamp "new vs sdpa"
OUT=/tmp/sd timeout 100 tests/device/kernels_vs_sdpa_rounds.sh kcheck_new/flash_kernel_check 1 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/sd/kernels_vs_sdpa/table.txt $D/new_vs_sdpa.txt
stamp "racecheck"
timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard kcheck_new/flash_kernel_check --small > /tmp/rc.txt 2>&1; echo "rc $?" >> /tmp/rc.txt
{ grep -a 'RACECHECK SUMMARY\|cases\|^rc' /tmp/rc.txt | tail -4; grep -a -m1 -B2 -A20 'Error: Race' /tmp/rc.txt; } > $D/race.txt
stamp "ncu"
n=ours_128_512_64
timeout 60 ncu --clock-control none --kernel-name "regex:flash_forward" --launch-skip 2 --launch-count 1 --set full --import-source yes -o /tmp/$n -f kcheck_new/flash_kernel_check --bench-one 128 512 64 causal 3 bf16 fastest > /tmp/$n.log 2>&1
mkdir -p /tmp/pack
ncu --import /tmp/$n.ncu-rep --page details > /tmp/pack/$n.details.txt 2>&1
ncu --import /tmp/$n.ncu-rep --page source --print-source sass --csv > /tmp/pack/$n.sass.csv 2>/dev/null
stamp "sass"
cd /tmp && cuobjdump -xelf all $OLDPWD/kcheck_new/flash_kernel_check > /tmp/pack/xelf.log 2>&1
for c in /tmp/flash_forward*.cubin; do nvdisasm -g -c "$c" > /tmp/pack/$(basename $c).sass 2>&1; done
cd /tmp/pack && tar czf $D/pack.tgz . && ls -la >> $D/log.txt
stamp "done"
