#!/usr/bin/env bash
# The DDP experiments as users run them, on Gloo: 2 local workers from --nproc, all four
# variants on the tiny model, each checked against one process (fp32: 1e-5).
# Usage: run_ddp_ranks.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

"$cli" ddp --nproc 2 --model tiny --context 16 --batch 2 --variant naive,flat,overlap,bucketed --bucket-mb 1 \
  --steps 2 --warmup 1 --check --quiet --csv out.csv || fail "ddp exited $?"
head -n 1 out.csv | grep -q '^variant,bucket_mb,nproc,backend,' || fail "header: $(head -n 1 out.csv)"
rows=$(tail -n +2 out.csv | wc -l)
[ "$rows" = 4 ] || fail "wrote $rows rows, not 4: $(cat out.csv)"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { d = $col["max_param_diff"]; s = $col["status"]
    if (d == "" || d + 0 > 1e-5 || s != "ok" || $col["nproc"] != 2) { bad = 1; print "bad row: " $0 }
    seen[$col["variant"]] = 1 }
  END { exit bad || !("naive" in seen) || !("flat" in seen) || !("overlap" in seen) || !("bucketed" in seen) }' \
  out.csv || fail "a variant did not match one process: $(cat out.csv)"
echo "PASS"
