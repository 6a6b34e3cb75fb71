#!/usr/bin/env bash
# Our Hopper backward's main kernel beside cuDNN's (SDPA) under Nsight Compute, the same shape and
# inputs: duration, SM and memory throughput, DRAM bytes and the L2 hit rate, so that a gap at a
# shape says whether it is the tensor work or the memory traffic (cuDNN's helpers are timed by
# the kernel benches; this compares the main kernels). One launch each, the third (the first two
# warm caches and clocks), sections SpeedOfLight and MemoryWorkloadAnalysis (short replays).
# Usage (GPU machine, repository root):
#   tests/device/backward_vs_cudnn_ncu.sh KCHECK_BINARY "HEADS SEQ D causal|full" ...
# (KCHECK_BINARY: tests/kernels/build_check.sh's flash_kernel_check; bf16, batch 1.)
set -uo pipefail
kcheck=$1; shift
out=${OUT:-/tmp/stepscope-device}/backward_vs_cudnn
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis)
for shape in "$@"; do
  read -r heads seq d mode <<<"$shape"
  name="h${heads}-s${seq}-d${d}-${mode}"
  ncu --clock-control none --kernel-name regex:flash_backward_sm90_kernel --launch-skip 2 --launch-count 1 \
    "${sections[@]}" --page details "$kcheck" --bench-one "$heads" "$seq" "$d" "$mode" 3 bf16 fastest \
    >"$out/$name.ours.txt" 2>&1
  ncu --clock-control none --kernel-name regex:bprop --launch-skip 2 --launch-count 1 \
    "${sections[@]}" --page details python3 tests/reference/sdpa_kernel_bench.py "$heads" "$seq" "$d" "$mode" 3 bf16 \
    >"$out/$name.cudnn.txt" 2>&1
  python3 - "$out/$name.ours.txt" "$out/$name.cudnn.txt" "$name" <<'PY' | tee -a "$out/table.txt"
import re, sys
wanted = ["Duration", "Compute (SM) Throughput", "Memory Throughput", "DRAM Throughput", "L1/TEX Hit Rate",
          "L2 Hit Rate", "Mem Busy", "Max Bandwidth", "Mem Pipes Busy"]
def read(path):
    values = {}
    for line in open(path, errors="replace"):
        m = re.match(r"\s+(.+?)\s{2,}(\S+)\s+([\d.,]+)\s*$", line)
        if m and m.group(1) in wanted:  # Memory Throughput comes in % and, later, Gbyte/s
            values.setdefault(m.group(1), []).append(f"{m.group(3)} {m.group(2)}")
    return {k: " / ".join(v) for k, v in values.items()}
ours, cudnn = read(sys.argv[1]), read(sys.argv[2])
print(f"{sys.argv[3]}: main kernel, ours | cuDNN")
for key in wanted:
    if key in ours or key in cudnn:
        print(f"  {key:26} {ours.get(key, '-'):>18} | {cudnn.get(key, '-')}")
PY
done
