#!/usr/bin/env bash
# Builds and runs tests/device/attention_host_probe.cpp: the host's time per short attention
# backward, ours against SDPA's, and our wrapper's share.
# Usage (GPU machine, repository root, .deps-debs carried): tests/device/run_attention_host_probe.sh [REPS]
set -uo pipefail
OUT=${OUT:-/tmp/stepscope-device}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/common.sh"
build_with_deps attention_host_probe || exit 1
log "host probe"
for round in 1 2; do build/bin/attention_host_probe "${1:-500}" 2>&1 | tee -a "$OUT/summary.txt"; done
