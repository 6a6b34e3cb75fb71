#!/usr/bin/env bash
# The DDP experiments as users run them, on Gloo: 2 local workers from --nproc, all four
# variants on the tiny model, each checked against one process (fp32: 1e-5); each rank's own rows
# and the overlap picture beside the CSV, and the picture as a trace with a process per rank; 4 and
# 6 ranks.
# Usage: run_ddp_ranks.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

"$cli" ddp --nproc 2 --model tiny --context 16 --batch 2 --variant naive,flat,overlap,bucketed --bucket-mb 1 \
  --steps 2 --warmup 1 --check --quiet --csv out.csv --trace trace.json || fail "ddp exited $?"
head -n 1 out.csv | grep -q '^variant,bucket_mb,optimizer,zero1_gather,engine,reduce_dtype,nproc,rank,backend,' ||
  fail "header: $(head -n 1 out.csv)"
rows=$(tail -n +2 out.csv | wc -l)
[ "$rows" = 4 ] || fail "wrote $rows rows, not 4: $(cat out.csv)"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { d = $col["max_param_diff"]; s = $col["status"]
    if (d == "" || d + 0 > 1e-5 || s != "ok" || $col["nproc"] != 2) { bad = 1; print "bad row: " $0 }
    seen[$col["variant"]] = 1 }
  END { exit bad || !("naive" in seen) || !("flat" in seen) || !("overlap" in seen) || !("bucketed" in seen) }' \
  out.csv || fail "a variant did not match one process: $(cat out.csv)"
# Each rank's own row: ranks 0 and 1 of every variant.
[ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } { print $1 "/" $col["rank"] }' out.ranks.csv |
  sort -u | wc -l)" = 8 ] ||
  fail "rank rows: $(cat out.ranks.csv)"
# The picture: both ranks, every variant, compute phases and communication spans.
for lane in compute communication; do
  for rank in 0 1; do
    [ "$(awk -F, -v l=$lane -v r=$rank 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
           $col["lane"] == l && $col["rank"] == r { print $1 }' out.timeline.csv | sort -u | wc -l)" = 4 ] ||
      fail "timeline lacks $lane spans of rank $rank for some variant: $(head -5 out.timeline.csv)"
  done
done
grep -q '"name":"rank 0"' trace.json && grep -q '"name":"rank 1"' trace.json || fail "trace: no process per rank"
# A run longer than --timeout whose steps are far shorter: every rank says it is alive every
# second (rank 1 prints no rows at all), so none is taken for hung.
"$cli" ddp --nproc 2 --model tiny --context 16 --batch 2 --variant flat,bucketed --bucket-mb 1 --steps 40 --warmup 1 \
  --timeout 4 --quiet --csv long.csv || fail "a run longer than --timeout exited $?"
# 4 and 6 ranks (the seeds' world sizes), each still matching one process.
"$cli" ddp --nproc 4,6 --model tiny --context 16 --batch 1 --variant bucketed --bucket-mb 0.05 --steps 1 --warmup 0 \
  --check --quiet --csv many.csv || fail "4 and 6 ranks exited $?"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } { print $col["nproc"] }' many.csv | tr '\n' ' ' |
  grep -q '^4 6 $' || fail "4 and 6 ranks: $(cat many.csv)"
[ "$(tail -n +2 many.ranks.csv | wc -l)" = 10 ] || fail "rank rows of 4 and 6 ranks: $(cat many.ranks.csv)"
# The fused engine beside eager (one flat parameter buffer, FusedAdamW unsharded, ZeRO-1's
# gathers refreshing its compute copy in the next forward), each matching one process of its
# engine; eager and fused rows side by side.
"$cli" ddp --nproc 2 --model tiny --context 16 --batch 2 --variant overlap,bucketed --bucket-mb 0.05 \
  --optimizer adamw,zero1 --zero1-gather next-forward --engine eager,fused --steps 2 --warmup 1 --check --quiet \
  --csv fused.csv || fail "--engine eager,fused exited $?"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { d = $col["max_param_diff"]; if (d == "" || d + 0 > 1e-5 || $col["status"] != "ok") { bad = 1; print "bad row: " $0 }
    e = e $col["engine"] " " }
  END { if (e != "eager fused eager fused eager fused eager fused ") { print "engines: " e; bad = 1 }; exit bad }' \
  fused.csv || fail "fused rows: $(cat fused.csv)"
# Sharded optimizer state at 3 ranks (sizes that 3 does not divide): same parameters as one
# process, zero1 with its gathers at the step's end and in the next forward pass; the largest
# rank holds a third of the state with zero1, and with the seeds' whole parameters a third up to
# one parameter (tiny's embedding and output layer are 23 % each).
"$cli" ddp --nproc 3 --model tiny --context 16 --batch 1 --variant overlap --optimizer adamw,sharded,zero1 \
  --zero1-gather step-end,next-forward --steps 2 --warmup 0 --check --quiet --csv sharded.csv ||
  fail "sharded optimizers exited $?"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { d = $col["max_param_diff"]; if (d == "" || d + 0 > 1e-5 || $col["status"] != "ok") { bad = 1; print "bad row: " $0 }
    state[$col["optimizer"]] = $col["optimizer_state_bytes"]
    if ($col["optimizer"] == "zero1") timing[$col["zero1_gather"]] = 1 }
  END { r = state["zero1"] / state["adamw"]; s = state["sharded"] / state["adamw"]
        if (r < 0.33 || r > 0.34 || s < 0.33 || s > 0.57) { print "state shares " r " " s; bad = 1 }
        if (!("step-end" in timing) || !("next-forward" in timing)) { print "zero1 gather timings missing"; bad = 1 }
        exit bad }' sharded.csv || fail "sharded optimizers: $(cat sharded.csv)"
# Memory per rank (the seeds' optimizer_state_sharding_accounting): right before the optimizer
# step, the seeds' sharded design holds half of AdamW's state and the rank's live memory is lower
# by at least 80 % of that half; ZeRO-1 holds half the state too, and its reduce-scattered
# gradient shards live in the gradient buffer (no more gradient bytes than plain DDP, beyond the
# buffer's padding to the ranks), so its live memory is lower by as much.
"$cli" ddp --nproc 2 --model tiny --context 16 --batch 1 --variant flat --optimizer adamw,sharded,zero1 --steps 1 \
  --warmup 1 --profile-memory --quiet --csv memory.csv || fail "--profile-memory exited $?"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["point"] == "before_optimizer_step" && $col["rank"] == 0 {
    state[$col["optimizer"]] = $col["optimizer_state_bytes"]; live[$col["optimizer"]] = $col["total_bytes"]
    grad[$col["optimizer"]] = $col["gradient_bytes"] }
  END { half = state["adamw"] / 2
        if (state["adamw"] <= 0 || state["sharded"] > half * 1.3 || state["zero1"] > half * 1.01 ||
            live["adamw"] - live["sharded"] < 0.8 * half || grad["zero1"] - grad["adamw"] > 64 ||
            live["adamw"] - live["zero1"] < 0.8 * half) {
          print "state " state["adamw"] " " state["sharded"] " " state["zero1"] " live " live["adamw"] " " live["sharded"] \
            " " live["zero1"] " gradients " grad["adamw"] " " grad["zero1"]; exit 1 } }' \
  memory.memory.csv || fail "memory per rank: $(cat memory.memory.csv)"
# Without a --csv file the memory profile is not dropped: it goes beside stepscope-ddp.csv, as
# bench's profiles do, and stderr says where.
mkdir -p stdout && (cd stdout && "$cli" ddp --nproc 2 --model tiny --context 16 --batch 1 --variant flat --steps 1 \
  --warmup 0 --profile-memory >table.csv 2>run.err) || fail "--profile-memory to stdout exited $?"
[ "$(tail -n +2 stdout/stepscope-ddp.memory.csv | wc -l)" -ge 6 ] || fail "no memory profile without --csv: $(ls stdout)"
grep -q "the memory profile is in stepscope-ddp.memory.csv" stdout/run.err || fail "not said where: $(cat stdout/run.err)"
echo "PASS"
