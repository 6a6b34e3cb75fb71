#!/usr/bin/env bash
# The two short sanitizer calls after call 2 (H100, 23:23 and 23:24 UTC), as run.
# 1. The paired build on the paired case:
P=.device/kc_pair/flash_kernel_check
for tool in racecheck memcheck; do
  extra=""; [ $tool = racecheck ] && extra="--racecheck-report hazard"
  timeout 100 compute-sanitizer --tool $tool $extra $P --filter "fastest  bf16 causal d=64  b=1 h=140 sq=257" > $OUT/$tool.txt 2>&1
done
# 2. Base (919dc62) and the paired build on an unpaired backward whose stage ring wraps (6 query
#    steps for key tile 0):
for b in base pair; do
  timeout 80 compute-sanitizer --tool racecheck --racecheck-report hazard .device/kc_$b/flash_kernel_check \
    --filter "fastest  bf16 causal d=64  b=1 h=1 sq=700 sk=1000" > $OUT/race_$b.txt 2>&1
done
