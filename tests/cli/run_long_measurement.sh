#!/usr/bin/env bash
# A healthy measurement that outlasts --timeout is not a hang: local workers say they are alive
# every second whatever they are doing, and --timeout bounds each collective instead. The
# iterations are calibrated so that one measured row takes at least three times --timeout.
# Usage: run_long_measurement.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c; exit }' "$1"; }

timeout_s=2
"$cli" allreduce --nproc 2 --sizes 16MB --warmup 1 --iters 5 --quiet --csv calibrate.csv || fail "calibration exited $?"
time_us=$(col calibrate.csv time_us)
iters=$(awk -v t="$time_us" -v limit="$timeout_s" 'BEGIN { n = int(3.5 * limit * 1e6 / t) + 1; print (n < 10 ? 10 : n) }')
start=$(date +%s.%N)
"$cli" allreduce --nproc 2 --sizes 16MB --warmup 0 --iters "$iters" --timeout "$timeout_s" --quiet --csv long.csv 2>long.err ||
  fail "a measurement of $iters iterations (${time_us} us each) with --timeout $timeout_s exited $?: $(cat long.err)"
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "$iters iterations of $time_us us: $took s with --timeout $timeout_s"
awk -v t="$took" -v l="$timeout_s" 'BEGIN { exit !(t >= 3 * l) }' || fail "the run took $took s, not three times --timeout"
[ "$(col long.csv status)" = ok ] || fail "the row: $(cat long.csv)"
echo "PASS"
