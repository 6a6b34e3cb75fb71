#!/usr/bin/env bash
# Two runs given the same --csv (and --json) at once, as two jobs of a CI matrix can be: each
# rewrites the files after every row through a temporary of its own, neither fails, and the files
# are always one run's whole table, never a mix or a torn file.
# Usage: run_concurrent_csv.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

contexts=$(seq -s, 8 4 96)  # 23 configurations, a rewrite of both files after each
declare -A pids
for run in a b; do
  "$cli" bench --model tiny --context "$contexts" --batch 1 --mode forward --warmup 0 --steps 1 --seed 7 \
    --csv same.csv --json same.json --quiet >"$run.out" 2>"$run.err" &
  pids[$run]=$!
done
# While they run, every read of the file is a whole table: a header and whole rows.
torn=0
while kill -0 "${pids[a]}" 2>/dev/null || kill -0 "${pids[b]}" 2>/dev/null; do
  if [ -f same.csv ]; then
    awk -F, 'NR == 1 { n = NF; if ($1 != "model") bad = 1; next } NF != n { bad = 1 } END { exit bad }' same.csv || torn=1
  fi
  sleep 0.05
done
for run in a b; do
  wait "${pids[$run]}" || fail "run $run exited $?: $(cat "$run.err")"
done
[ "$torn" = 0 ] || fail "a reader saw a torn table"
[ "$(tail -n +2 same.csv | wc -l)" = 23 ] || fail "the final table is not one run's 23 rows: $(cat same.csv)"
python3 -c "import json; r = json.load(open('same.json')); assert len(r['entries']) == 23, len(r['entries'])" ||
  fail "the run record is not one whole run"
ls ./*.partial 2>/dev/null && fail "temporaries were left behind"
echo "PASS"
