#!/usr/bin/env bash
# SIGINT or SIGTERM to one rank of a job, as a cluster's scheduler or a user sends it: the rank
# tells the others and leaves at once, every process of the job is gone within 5 s, the message
# names the rank and the signal, and the rows measured before it stay in the CSV. With local
# workers (--nproc 2 and 4) and with ranks started by hand with torchrun's variables.
# Usage: run_rank_signals.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Many rows of a few hundred milliseconds each: a signal lands in the middle of the run.
sizes=$(printf '1MB,%.0s' $(seq 1 40))
sizes=${sizes%,}

rows_of() { [ -f "$1" ] && tail -n +2 "$1" | wc -l || echo 0; }
wait_for_rows() {  # FILE: until it has a row (30 s at most)
  for _ in $(seq 1 300); do
    [ "$(rows_of "$1")" -ge 1 ] && return 0
    sleep 0.1
  done
  return 1
}
pid_of_rank() {  # PARENT RANK: the worker of the launcher PARENT whose RANK is RANK
  for pid in $(pgrep -P "$1"); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "RANK=$2" && { echo "$pid"; return 0; }
  done
  return 1
}
all_gone() {  # PIDS...: within 5 s
  for _ in $(seq 1 50); do
    local alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && return 0
    sleep 0.1
  done
  return 1
}

# 1. Local workers: a signal to one worker ends the run, naming it; the launcher keeps the rows.
launched() {  # NPROC RANK SIGNAL NUMBER NAME
  local nproc=$1 rank=$2 signal=$3 number=$4 name=$5 out="local$1.csv"
  "$cli" collectives --nproc "$nproc" --sizes "$sizes" --warmup 0 --iters 50 --csv "$out" 2>"local$nproc.err" &
  local launcher=$!
  wait_for_rows "$out" || fail "$nproc workers: no row appeared: $(cat "local$nproc.err")"
  local workers victim
  workers=$(pgrep -P "$launcher" | tr '\n' ' ')
  victim=$(pid_of_rank "$launcher" "$rank") || fail "$nproc workers: no worker of rank $rank among $workers"
  local before start
  before=$(rows_of "$out")
  start=$(now)
  kill "-$signal" "$victim"
  # shellcheck disable=SC2086
  all_gone "$launcher" $workers || fail "$nproc workers: processes left 5 s after SIG$signal to rank $rank"
  wait "$launcher"
  local status=$?
  echo "$nproc workers, SIG$signal to rank $rank: all gone in $(elapsed "$start") s, exit $status"
  [ "$status" = 1 ] || fail "$nproc workers: exit $status after SIG$signal to a worker: $(cat "local$nproc.err")"
  grep -q "rank $rank was killed by signal $number ($name)" "local$nproc.err" ||
    fail "$nproc workers: the message does not name rank $rank and SIG$signal: $(cat "local$nproc.err")"
  [ "$(rows_of "$out")" -ge "$before" ] || fail "$nproc workers: rows measured before the signal were lost"
  [ "$(rows_of "$out")" -lt 40 ] || fail "$nproc workers: the run was not cut short"
}
launched 2 1 INT 2 Interrupt
launched 4 2 TERM 15 Terminated

# 2. Ranks started by hand (torchrun's variables): SIGTERM to rank 1 ends rank 0 at once.
port=$(( 20000 + RANDOM % 20000 ))
for rank in 0 1; do
  MASTER_ADDR=127.0.0.1 MASTER_PORT=$port RANK=$rank WORLD_SIZE=2 LOCAL_RANK=$rank LOCAL_WORLD_SIZE=2 \
    "$cli" collectives --sizes "$sizes" --warmup 0 --iters 50 --quiet --csv torchrun.csv 2>"torchrun$rank.err" &
  pids[$rank]=$!
done
wait_for_rows torchrun.csv || fail "torchrun-style: no row appeared: $(cat torchrun0.err)"
start=$(now)
kill -TERM "${pids[1]}"
all_gone "${pids[0]}" "${pids[1]}" || fail "torchrun-style: ranks left 5 s after SIGTERM to rank 1"
wait "${pids[0]}"; status0=$?
wait "${pids[1]}"; status1=$?
echo "torchrun-style, SIGTERM to rank 1: both gone in $(elapsed "$start") s, exits $status0 and $status1"
[ "$status1" = 143 ] || fail "rank 1 exited $status1, not by SIGTERM (143): $(cat torchrun1.err)"
[ "$status0" = 3 ] || fail "rank 0 exited $status0, not 3 (ended by another rank): $(cat torchrun0.err)"
grep -q "rank 0 stops: rank 1 received SIGTERM (Terminated)" torchrun0.err || fail "rank 0 said: $(cat torchrun0.err)"
grep -q "rank 1 received SIGTERM (Terminated); stopping now" torchrun1.err || fail "rank 1 said: $(cat torchrun1.err)"
[ "$(rows_of torchrun.csv)" -ge 1 ] || fail "torchrun-style: the rows were lost"
echo "PASS"
