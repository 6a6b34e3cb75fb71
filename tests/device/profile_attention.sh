#!/usr/bin/env bash
# Nsight Compute on single flash-attention kernels: where one launch spends its issue slots and
# stalls, for the shapes named on the command line. Builds the kernels' standalone check and
# profiles its --bench-one launches (ncu replays one launch per kernel name).
# Usage (GPU machine, repository root):
#   tests/device/profile_attention.sh "HEADS SEQ D causal|full TYPE PATH KERNEL_REGEX" ...
# e.g. "1 1024 128 causal f32 fastest flash_forward_mma_kernel"
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT/ncu"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"

check=${KCHECK:-/tmp/kcheck}
if [ ! -x "$check/flash_kernel_check" ]; then
  tests/kernels/build_check.sh "$check" >"$OUT/ncu/kcheck_build.log" 2>&1 || { tail -30 "$OUT/ncu/kcheck_build.log"; exit 1; }
fi

n=0
for spec in "$@"; do
  read -r heads seq d mode type path regex <<<"$spec"
  n=$((n + 1))
  name="$n-h${heads}-s${seq}-d${d}-${mode}-${type}-${path}"
  log "ncu $name ($regex)"
  # The third launch of the kernel: the first two warm the caches and the clocks.
  ncu --clock-control none --kernel-name "regex:$regex" --launch-skip 2 --launch-count 1 --set full \
    --import-source yes -o "$OUT/ncu/$name" -f \
    "$check/flash_kernel_check" --bench-one "$heads" "$seq" "$d" "$mode" 3 "$type" "$path" >"$OUT/ncu/$name.run.log" 2>&1
  echo "ncu exit $?" >>"$OUT/ncu/$name.run.log"
  ncu --import "$OUT/ncu/$name.ncu-rep" --page details >"$OUT/ncu/$name.details.txt" 2>&1
  ncu --import "$OUT/ncu/$name.ncu-rep" --page source --print-source sass --csv >"$OUT/ncu/$name.sass.csv" 2>/dev/null
  python3 - "$OUT/ncu/$name.sass.csv" <<'PY' >"$OUT/ncu/$name.hot.txt" 2>&1
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
head_i = next((i for i, r in enumerate(rows) if any("Source" == c for c in r)), None)
if head_i is None:
    print("no source table"); sys.exit()
head, body = rows[head_i], rows[head_i + 1:]
def col(prefix):
    return next((i for i, c in enumerate(head) if c.startswith(prefix)), None)
src, stall, nis, execd = col("Source"), col("Warp Stall Sampling (All"), col("Warp Stall Sampling (Not"), col("Instructions Executed")
num = lambda r, i: float(r[i].replace(",", "")) if i is not None and i < len(r) and r[i] not in ("", "-") else 0.0
total = sum(num(r, stall) for r in body) or 1
by_op, executed = collections.Counter(), collections.Counter()
for r in body:
    op = r[src].split()[0] if r[src].split() else "?"
    if op.startswith("@"): op = r[src].split()[1]
    op = op.split(".")[0]
    by_op[op] += num(r, stall)
    executed[op] += num(r, execd)
print(f"stall samples {total:.0f}; instructions executed {sum(executed.values()):.0f}")
print("by opcode (share of stall samples, instructions executed):")
for op, v in by_op.most_common(25):
    print(f"  {op:12} {100 * v / total:5.1f} %  {executed[op]:12.0f}")
print("hottest instructions:")
for r in sorted(body, key=lambda r: -num(r, stall))[:40]:
    print(f"  {100 * num(r, stall) / total:5.2f} % (not issued {100 * num(r, nis) / total:5.2f} %)  {r[src][:110]}")
PY
  rm -f "$OUT/ncu/$name.sass.csv" "$OUT/ncu/$name.ncu-rep"  # large; the text pages stay
  grep -a -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Ipc A|Compute \(SM\) Thr|Memory Thr|One or More Eligible|Warp Cycles Per Issued" \
    "$OUT/ncu/$name.details.txt" | head -20 | sed "s/^/$name: /" | tee -a "$OUT/summary.txt"
done
# Few files come back from a device call: the text pages in one archive.
(cd "$OUT" && tar czf ncu-pages.tgz ncu && rm -rf ncu)
