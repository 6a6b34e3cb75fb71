#!/usr/bin/env bash
# The collective benchmark as users run it, on Gloo: local workers from --nproc (2, 4 and 6
# ranks), every collective right; two ranks started by hand with torchrun's variables (what
# torchrun or srun does on a cluster); and a worker killed mid-run ending the run with a message
# naming it, within seconds, with no process left behind (the workers sharing --threads).
# Usage: run_collective_ranks.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# 1. Every collective on 2 ranks, and all-reduce on 4 and 6.
"$cli" collectives --nproc 2 --op allreduce,reducescatter,allgather,broadcast --sizes 4KB,1MiB --dtype fp32,fp16 \
  --warmup 1 --iters 3 --quiet --csv two.csv || fail "2 ranks exited $?"
rows=$(tail -n +2 two.csv | wc -l)
[ "$rows" = 16 ] || fail "2 ranks wrote $rows rows, not 16"
awk -F, 'NR > 1 && ($10 != "0" || $11 != "ok") { bad = 1; print "bad row: " $0 } END { exit bad }' two.csv ||
  fail "a collective came out wrong"
"$cli" collectives --nproc 4,6 --sizes 100KB --warmup 1 --iters 2 --quiet --csv many.csv || fail "4 and 6 ranks exited $?"
awk -F, 'NR > 1 { ranks[$3] = 1; if ($10 != "0" || $11 != "ok") bad = 1 } END { exit bad || !(4 in ranks) || !(6 in ranks) }' \
  many.csv || fail "4 and 6 ranks: $(cat many.csv)"

# 2. Two ranks started with torchrun's variables: rank 0 writes the table.
port=$(( 20000 + RANDOM % 20000 ))
for rank in 0 1; do
  MASTER_ADDR=127.0.0.1 MASTER_PORT=$port RANK=$rank WORLD_SIZE=2 LOCAL_RANK=$rank LOCAL_WORLD_SIZE=2 \
    "$cli" collectives --sizes 64KB --warmup 1 --iters 2 --quiet --csv "torchrun$rank.csv" &
  pids[$rank]=$!
done
wait "${pids[0]}" || fail "torchrun-style rank 0 exited $?"
wait "${pids[1]}" || fail "torchrun-style rank 1 exited $?"
grep -q '^allreduce,gloo,2,64000,16000,fp32,.*,0,ok,' torchrun0.csv || fail "torchrun-style table: $(cat torchrun0.csv)"
[ ! -e torchrun1.csv ] || fail "rank 1 wrote a table too"

# 3. A worker killed mid-run: the run ends, names the rank, keeps nothing running.
"$cli" collectives --nproc 2 --threads 4 --sizes 1MiB --warmup 0 --iters 100000 --csv killed.csv 2>killed.err &
launcher=$!
workers=""
for _ in $(seq 1 100); do
  workers=$(pgrep -P "$launcher" | tr '\n' ' ')
  [ "$(echo $workers | wc -w)" = 2 ] && break
  sleep 0.1
done
[ "$(echo $workers | wc -w)" = 2 ] || fail "no workers appeared: $workers"
# The ranks share the job's threads: 4 between 2 ranks is 2 each, not 4 each.
for pid in $workers; do
  args=$(tr '\0' ' ' <"/proc/$pid/cmdline")
  case "$args" in *" --threads 2 "*) ;; *) fail "worker $pid was not given its share of the threads: $args" ;; esac
done
sleep 2  # into the measured iterations
victim=$(echo $workers | awk '{print $2}')
kill -9 "$victim"
start=$(date +%s)
wait "$launcher"
status=$?
took=$(( $(date +%s) - start ))
[ "$status" = 1 ] || fail "exit status $status after a killed worker, not 1: $(cat killed.err)"
[ "$took" -le 15 ] || fail "took $took s to end after a killed worker"
grep -q "was killed by signal 9" killed.err || fail "no message naming the killed rank: $(cat killed.err)"
for pid in $workers; do
  kill -0 "$pid" 2>/dev/null && fail "worker $pid is still running"
done
echo "PASS"
