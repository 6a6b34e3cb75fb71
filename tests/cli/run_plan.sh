#!/usr/bin/env bash
# The planner as users run it, against the seeds' XXL answers (communication_accounting (a),
# (b); /work/shared/seeds 004): 2 x 16384 x 53248 x 126 = 219,848,638,464 parameters; fp32
# master weights, gradients and AdamW state: 16 B each = 3276 GiB, 41 GPUs of 80 GiB; bf16
# activations 2 x 126 x (16384 + 53248) = 17,547,264 B per token; a 95 GiB device with half the
# activations sharded needs N_FSDP > 34 (35), in GB (95e9 B) 38. Then planned against measured.
# Usage: run_plan.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

"$cli" plan --model xxl-ffn --quiet --csv xxl.csv --json xxl.json || fail "plan exited $?"
# A number field of the JSON (formulas come as text under the same names elsewhere).
field() { grep -oE "\"$1\": *[0-9][0-9.e+]*" "$2" | head -1 | sed 's/.*: *//; s/\.0$//'; }
[ "$(field parameters xxl.json)" = 219848638464 ] || fail "parameters: $(field parameters xxl.json)"
[ "$(field master_weights_bytes xxl.json)" = 879394553856 ] || fail "weights: $(field master_weights_bytes xxl.json)"
[ "$(field optimizer_state_bytes xxl.json)" = 1758789107712 ] || fail "adam: $(field optimizer_state_bytes xxl.json)"
[ "$(field activations_per_token_bytes xxl.json)" = 17547264 ] || fail "activations: $(field activations_per_token_bytes xxl.json)"
[ "$(field devices_80gib xxl.json)" = 41 ] || fail "80 GiB GPUs: $(field devices_80gib xxl.json)"
[ "$(field fsdp_to_fit xxl.json)" = 38 ] || fail "FSDP for 95 GB: $(field fsdp_to_fit xxl.json)"
"$cli" plan --model xxl-ffn --device-memory 95GiB --quiet --json gib.json >/dev/null || fail "95GiB exited $?"
[ "$(field fsdp_to_fit gib.json)" = 35 ] || fail "FSDP for 95 GiB: $(field fsdp_to_fit gib.json)"
grep -q '^master_weights,.*= 879 GB' xxl.csv || fail "formula beside the number: $(grep master_weights xxl.csv)"
# zero1 over 2 data-parallel ranks halves the optimizer state and nothing else.
"$cli" plan --model xl --dp 2 --zero1 --quiet --json xl.json >/dev/null || fail "xl exited $?"
[ "$(field optimizer_state_bytes xl.json)" = "$(field master_weights_bytes xl.json)" ] ||
  fail "zero1 x2: state $(field optimizer_state_bytes xl.json) vs weights $(field master_weights_bytes xl.json)"
# Closed loop: for the presets a CPU runs in seconds, the planner's fp32 weights, gradients and
# AdamW state equal what the memory profiler measures in a training step (each category's
# highest live bytes; the CPU allocator adds no rounding to these tensors).
for model in tiny mini; do
  "$cli" bench --model $model --context 16 --batch 2 --mode train --warmup 1 --steps 1 --profile memory --quiet \
    --csv bench_$model.csv >/dev/null || fail "bench $model exited $?"
  "$cli" plan --model $model --quiet --json plan_$model.json >/dev/null || fail "plan $model exited $?"
  measured=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { for (k in want) if ($col[k] + 0 > best[k]) best[k] = $col[k] + 0 }
    BEGIN { want["parameter (bytes)"]; want["gradient (bytes)"]; want["optimizer state (bytes)"] }
    END { printf "%d %d %d", best["parameter (bytes)"], best["gradient (bytes)"], best["optimizer state (bytes)"] }' \
    bench_$model.$model-ctx16-b2-fp32-train.memory_peaks.csv)
  planned="$(field master_weights_bytes plan_$model.json) $(field gradients_bytes plan_$model.json) $(field optimizer_state_bytes plan_$model.json)"
  [ "$measured" = "$planned" ] || fail "$model: measured $measured, planned $planned"
  # The categories table: the same highest bytes, and as tensors (the labelled tensors' own
  # sizes), with no allocator rounding on the CPU.
  as_tensors=$(awk -F, '$1 == "parameter" { p = $3 } $1 == "gradient" { g = $3 } $1 == "optimizer state" { o = $3 }
    $1 ~ /^(parameter|gradient|optimizer state)$/ && $4 != "0" { bad = bad " " $1 "=" $4 }
    END { printf "%s %s %s%s", p, g, o, bad }' bench_$model.$model-ctx16-b2-fp32-train.memory_categories.csv)
  [ "$as_tensors" = "$planned" ] || fail "$model: as tensors (and non-zero rounding) $as_tensors, planned $planned"
done
echo "PASS"
