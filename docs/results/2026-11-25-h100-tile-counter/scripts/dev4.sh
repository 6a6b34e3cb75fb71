#!/usr/bin/env bash
# ncu of the one-tile Hopper forward at the leaderboard shape (16 x 16384 d64 causal), base
# (88f1fba) against new (dev3's kernels): where new's 3 % goes. Plus base's SASS with line info.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" >> $D/log.txt; }
mkdir -p /tmp/pack
for v in base new; do
  stamp "ncu $v"
  n=${v}_16_16384_64
  timeout 120 ncu --clock-control none --kernel-name "regex:flash_forward_sm90" --launch-skip 2 --launch-count 1 --set full -o /tmp/$n -f kcheck_$v/flash_kernel_check --bench-one 16 16384 64 causal 3 bf16 fastest > /tmp/pack/$n.log 2>&1
  ncu --import /tmp/$n.ncu-rep --page details > /tmp/pack/$n.details.txt 2>&1
  ncu --import /tmp/$n.ncu-rep --page source --print-source sass --csv > /tmp/pack/$n.sass.csv 2>/dev/null
  ncu --import /tmp/$n.ncu-rep --page raw --csv > /tmp/pack/$n.raw.csv 2>&1
done
stamp "sass"
mkdir -p /tmp/xb && cd /tmp/xb && cuobjdump -xelf all $OLDPWD/kcheck_base/flash_kernel_check > /dev/null 2>&1
nvdisasm -g -c /tmp/xb/flash_forward.sm_90a.cubin > /tmp/pack/base_forward.sass 2>&1
cd /tmp/pack && tar czf $D/pack.tgz . && ls -la >> $D/log.txt
stamp "done"
