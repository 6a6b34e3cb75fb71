#!/usr/bin/env bash
# base: 919dc62 (the Hopper backward's dQ writer waits for its last reduces to land before the
# CTA exits); new: that wait dropped (each reduce has read its staging area already). Both
# sm_90a-only builds (docs/results/2026-11-26-h100-forward-trims/scripts/build_sm90a.sh) carried in .device/. The Hopper-path kernel check of new,
# new against base in interleaved rounds, then per-kernel durations (ncu, one metric) of ours
# and SDPA's backward at 256 heads of 512 rows, where the backward is furthest behind cuDNN.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s); new=.device/kc_new/flash_kernel_check; base=.device/kc_base/flash_kernel_check
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" | tee -a $D/log.txt; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > $D/gpu.txt
for t in bf16 f16; do
  stamp "kcheck new fastest $t"
  timeout 100 $new --filter "fastest  $t" > /tmp/kc_$t.txt 2>&1; rc=$?
  { echo "new $t rc $rc"; tail -1 /tmp/kc_$t.txt; grep -a 'FAIL\|ERROR' /tmp/kc_$t.txt | head -5; } | tee -a $D/kcheck.txt
done
stamp "new vs base, 3 rounds"
OUT=/tmp/kb timeout 200 tests/device/kernel_builds_rounds.sh 3 "128 512 64 causal" "256 512 64 causal" \
  "128 1024 64 causal" "128 512 128 causal" "256 512 128 causal" "128 1024 128 causal" "16 4096 128 causal" \
  "16 16384 64 causal" -- $base $new > /dev/null 2>&1
cp /tmp/kb/kernel_builds/table.txt $D/builds.txt; cp /tmp/kb/kernel_builds/runs.txt $D/runs.txt; cat $D/builds.txt
for sh in "256 512 128" "256 512 64"; do
  set -- $sh
  stamp "ncu durations h$1 s$2 d$3: ours (new), then SDPA"
  timeout 60 ncu --clock-control none --print-units base --metrics gpu__time_duration.sum --csv $new --bench-one $1 $2 $3 causal 3 bf16 fastest \
    > /tmp/ncu_ours.csv 2>/dev/null
  timeout 90 ncu --clock-control none --print-units base --metrics gpu__time_duration.sum --csv python3 tests/reference/sdpa_kernel_bench.py $1 $2 $3 causal 3 bf16 \
    > /tmp/ncu_sdpa.csv 2>/dev/null
  for f in ours sdpa; do
    python3 - /tmp/ncu_$f.csv "$f h$1 s$2 d$3" <<'PY' | tee -a $D/ncu_durations.txt
import collections, csv, statistics, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, body = rows[0], rows[1:]
k, v = head.index("Kernel Name"), head.index("Metric Value")
d = collections.OrderedDict()
for r in body:
    d.setdefault(r[k][:70], []).append(float(r[v].replace(",", "")))
print(sys.argv[2])
for name, xs in d.items():
    print(f"  {len(xs):3} x {statistics.median(xs) / 1000:9.1f} us (median)  {name}")
PY
  done
done
stamp "done"
