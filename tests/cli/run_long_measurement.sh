#!/usr/bin/env bash
# A healthy measurement that outlasts --timeout is not a hang: local workers say they are alive
# every second whatever they are doing, and --timeout bounds each collective instead. The
# iterations are calibrated so that one measured row (all its iterations, timed together, with no
# progress event between them) takes at least three times --timeout.
# Usage: run_long_measurement.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c; exit }' "$1"; }

timeout_s=2
"$cli" collectives --nproc 2 --sizes 16MB --warmup 1 --iters 5 --quiet --csv calibrate.csv || fail "calibration exited $?"
time_us=$(col calibrate.csv time_us)
iters=$(awk -v t="$time_us" -v limit="$timeout_s" 'BEGIN { n = int(3.5 * limit * 1e6 / t) + 1; print (n < 10 ? 10 : n) }')
# The calibration runs on a machine shared with other tests: a run that came out shorter than
# three times --timeout is repeated with more iterations, until one is long enough.
for attempt in 1 2 3; do
  "$cli" collectives --nproc 2 --sizes 16MB --warmup 0 --iters "$iters" --timeout "$timeout_s" --quiet --csv long.csv \
    2>long.err || fail "a measurement of $iters iterations (${time_us} us each) with --timeout $timeout_s exited $?: $(cat long.err)"
  # The measured row's own time: its iterations' mean times their number.
  took=$(awk -v t="$(col long.csv time_us)" -v n="$iters" 'BEGIN { printf "%.1f", t * n / 1e6 }')
  echo "$iters iterations measured in one row of $took s, with --timeout $timeout_s"
  awk -v t="$took" -v l="$timeout_s" 'BEGIN { exit !(t >= 3 * l) }' && break
  [ "$attempt" = 3 ] && fail "three runs were shorter than three times --timeout"
  iters=$(awk -v n="$iters" -v t="$took" -v l="$timeout_s" 'BEGIN { print int(n * 4 * l / t) + 1 }')
done
[ "$(col long.csv status)" = ok ] || fail "the row: $(cat long.csv)"
echo "PASS"
