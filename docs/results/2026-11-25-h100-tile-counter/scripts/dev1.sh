#!/usr/bin/env bash
# new: the persistent forward's counter reset by its last CTA (no memset before each launch);
# base: 88f1fba. Checks new on the Hopper path, A/B new vs base and new vs SDPA on short rows,
# then ncu of ours and cuDNN at 128 x 512 d64 causal.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" >> $D/log.txt; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > $D/gpu.txt
shapes=("128 512 64 causal" "128 1024 64 causal" "128 2048 64 causal" "256 512 64 causal" "128 512 128 causal" "256 512 128 causal" "64 1024 128 causal" "128 1024 128 full")
for t in bf16 f16; do
  stamp "kcheck new $t"
  timeout 90 kcheck_new/flash_kernel_check --filter "fastest  $t" > /tmp/kc_$t.txt 2>&1; rc=$?
  { echo "new $t rc $rc"; tail -1 /tmp/kc_$t.txt; grep -a 'FAIL\|ERROR' /tmp/kc_$t.txt | head -5; } >> $D/kcheck.txt
done
stamp "new vs base"
OUT=/tmp/ab AGAINST=kcheck_base/flash_kernel_check timeout 170 tests/device/kernels_vs_sdpa_rounds.sh kcheck_new/flash_kernel_check 3 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/ab/kernels_vs_sdpa/table.txt $D/new_vs_base.txt
stamp "new vs sdpa"
OUT=/tmp/sd timeout 120 tests/device/kernels_vs_sdpa_rounds.sh kcheck_new/flash_kernel_check 2 "${shapes[@]}" > /dev/null 2>&1
cp /tmp/sd/kernels_vs_sdpa/table.txt $D/new_vs_sdpa.txt
stamp "ncu"
mkdir -p $D/ncu
prof() { # name regex command...
  local name=$1 regex=$2; shift 2
  timeout 60 ncu --clock-control none --kernel-name "regex:$regex" --launch-skip 2 --launch-count 1 --set full -o /tmp/$name -f "$@" > /tmp/$name.log 2>&1
  ncu --import /tmp/$name.ncu-rep --page details > $D/ncu/$name.details.txt 2>&1
  ncu --import /tmp/$name.ncu-rep --page raw --csv > /tmp/$name.raw.csv 2>&1
  python3 - /tmp/$name.raw.csv > $D/ncu/$name.stalls.txt <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
if len(rows) < 3: print("no rows"); sys.exit()
head, vals = rows[0], rows[2]
for h, v in zip(head, vals):
    if ("smsp__pcsamp_warps_issue_stalled" in h and not h.endswith("not_issued")) or "gpu__time_duration.sum" in h \
       or "sm__pipe_tensor_op_hmma_cycles_active.avg.pct" in h or "sm__inst_executed_pipe_xu" in h or "smsp__cycles_active.avg" in h \
       or "sm__throughput.avg.pct" in h or "dram__throughput.avg.pct" in h or "launch__grid_size" in h or "sm__cycles_elapsed.avg.per_second" in h:
        print(f"{h}: {v}")
PY
}
prof ours_128_512_64 "flash_forward" kcheck_new/flash_kernel_check --bench-one 128 512 64 causal 3 bf16 fastest
prof cudnn_128_512_64 "fprop" python3 tests/reference/sdpa_kernel_bench.py 128 512 64 causal 3 bf16
prof ours_256_512_128 "flash_forward" kcheck_new/flash_kernel_check --bench-one 256 512 128 causal 3 bf16 fastest
prof cudnn_256_512_128 "fprop" python3 tests/reference/sdpa_kernel_bench.py 256 512 128 causal 3 bf16
stamp "done"
