#!/usr/bin/env bash
# The final tree (9676dc7): run_issue10.sh's kernel-check stage with the full build (sm_80 + sm_90a,
# tests/kernels/build_check.sh, built on the CPU machine), the GPU tests, then kernels against SDPA.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$OUT; t0=$(date +%s); K=kcheck_full/flash_kernel_check
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*" | tee -a $D/summary.txt; }
mkdir -p build/deps && for d in .deps-debs/*.deb; do dpkg -x "$d" build/deps; done
(cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTEPSCOPE_DEPS_PREFIX="$PWD/build/deps/usr" \
   -DSTEPSCOPE_CUDA_ARCHITECTURES=90a >$D/configure.log 2>&1 &&
 cmake --build build --target stepscope_gpu_tests >$D/build.log 2>&1; echo $? >$D/build.rc) &
bpid=$!
stamp "kernel check (every case)"
timeout 300 $K > $D/kcheck.log 2>&1; echo "kernel check exit $?" | tee -a $D/summary.txt
grep -a -E "FAIL|ERROR" $D/kcheck.log | head -20 | tee -a $D/summary.txt; tail -1 $D/kcheck.log | tee -a $D/summary.txt
stamp "bench"
timeout 60 $K --bench > $D/kbench.log 2>&1; cat $D/kbench.log >> $D/summary.txt
for tool in memcheck racecheck; do
  stamp "$tool --small"
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 $K --small > $D/sanitizer_$tool.log 2>&1
  echo "compute-sanitizer $tool exit $?: $(grep -a -E 'ERROR SUMMARY|RACECHECK SUMMARY' $D/sanitizer_$tool.log | tail -1)" | tee -a $D/summary.txt
  tail -2 $D/sanitizer_$tool.log | head -1 >> $D/summary.txt
done
wait $bpid; stamp "build exit $(cat $D/build.rc)"
build/bin/stepscope_gpu_tests --gtest_filter='FlashAttention*' > $D/gpu_tests.log 2>&1
grep -a -E "OK \]|FAILED|PASSED|Failure" $D/gpu_tests.log | head -20 | tee -a $D/summary.txt
left=$(( 560 - ($(date +%s) - t0) )); stamp "kernels vs SDPA, ${left} s"
[ $left -gt 30 ] && OUT=/tmp/sd timeout $left tests/device/kernels_vs_sdpa_rounds.sh $K 2 "16 16384 64 causal" "128 512 128 causal" "128 1024 128 causal" \
  "128 2048 128 causal" "256 512 128 causal" "64 1024 128 causal" "32 1024 128 causal" "128 512 64 causal" "128 1024 64 causal" > /dev/null 2>&1
cp /tmp/sd/kernels_vs_sdpa/table.txt $D/final_vs_sdpa.txt 2>/dev/null
stamp "done"
