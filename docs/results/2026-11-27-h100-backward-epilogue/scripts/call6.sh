#!/usr/bin/env bash
# Call 6: ncu --set full (source-level stall sampling) of the d128 backward main kernel at short rows
# (ours and cuDNN's) and at long rows (ours), for the next step's design.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
K=.device/kc_li/flash_kernel_check; chmod +x $K
mkdir -p $OUT/n
prof() {  # name kernel-regex cmd...
  local name=$1 rx=$2; shift 2
  timeout 150 ncu --clock-control none --set full --import-source yes --kernel-name regex:$rx --launch-skip 2 --launch-count 1 \
    -o $OUT/n/$name "$@" > $OUT/n/$name.log 2>&1
  echo "$name rc $?" | tee -a $OUT/summary.txt
  ncu -i $OUT/n/$name.ncu-rep --page details --print-details all > $OUT/n/$name.details.txt 2>&1
  ncu -i $OUT/n/$name.ncu-rep --page source --csv --print-source sass > $OUT/n/$name.sass.csv 2>&1
  ncu -i $OUT/n/$name.ncu-rep --page source --csv --print-source cuda > $OUT/n/$name.cuda.csv 2>&1
  grep -a -E "Duration|Stall|Warp Cycles Per Issued" $OUT/n/$name.details.txt | head -12 | tee -a $OUT/summary.txt
}
prof ours_s512 flash_backward_sm90_kernel $K --bench-one 256 512 128 causal 3 bf16 fastest
prof cudnn_s512 bprop python3 tests/reference/sdpa_kernel_bench.py 256 512 128 causal 3 bf16
prof ours_s16k flash_backward_sm90_kernel $K --bench-one 16 16384 128 causal 3 bf16 fastest
prof ours_fwd_s512 flash_forward_sm90 $K --bench-one 256 512 64 causal 3 bf16 fastest
prof cudnn_fwd_s512 fprop python3 tests/reference/sdpa_kernel_bench.py 256 512 64 causal 3 bf16
ls -la $OUT/n | tee -a $OUT/summary.txt
cd $OUT && tar czf ncu.tgz n && rm -rf n
