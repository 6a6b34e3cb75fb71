#!/usr/bin/env bash
# Ranks of one job started by hand with torchrun's variables, as torchrun or srun starts them
# on a cluster, where things go wrong before the first collective: ranks started with different
# options or worlds, a MASTER_PORT held by something else, a peer that never starts, a rank
# whose options its node refuses. Every rank ends within --timeout (+ 5 s) with a message that
# names what was wrong, never with Gloo's internals or a silent hang.
# Usage: run_rank_rendezvous.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
new_port() { echo $(( 20000 + RANDOM % 20000 )); }

# rank NAME RANK WORLD PORT ARGS...: one rank in the background, its stderr in NAME.err.
rank() {
  local name=$1 r=$2 world=$3 port=$4
  shift 4
  MASTER_ADDR=127.0.0.1 MASTER_PORT=$port RANK=$r WORLD_SIZE=$world LOCAL_RANK=$r LOCAL_WORLD_SIZE=$world \
    "$cli" collectives "$@" 2>"$name.err" >"$name.out" &
  last_pid=$!
}
expect() {  # NAME PID STATUS LIMIT_S PATTERN: exits with STATUS within LIMIT_S, stderr matching
  local name=$1 pid=$2 want=$3 limit=$4 pattern=$5 start=$6
  wait "$pid"
  local status=$?
  local t
  t=$(took "$start")
  echo "$name: exit $status after $t s"
  [ "$status" = "$want" ] || fail "$name exited $status, not $want: $(cat "$name.err")"
  awk -v t="$t" -v l="$limit" 'BEGIN { exit !(t <= l) }' || fail "$name took $t s, more than $limit"
  grep -qE -- "$pattern" "$name.err" || fail "$name said: $(cat "$name.err")"
}

# 1. One option differs: both ranks end with exit 2 naming it and the ranks, within --timeout.
port=$(new_port); start=$(now)
rank sizes0 0 2 "$port" --sizes 64KB --iters 2 --timeout 10; p0=$last_pid
rank sizes1 1 2 "$port" --sizes 128KB --iters 2 --timeout 10; p1=$last_pid
expect sizes0 "$p0" 2 10 "different settings: --sizes \(rank 0: 64000, rank 1: 128000\)" "$start"
expect sizes1 "$p1" 2 10 "different settings: --sizes \(rank 0: 64000, rank 1: 128000\)" "$start"
port=$(new_port); start=$(now)
rank iters0 0 2 "$port" --sizes 64KB --iters 2 --timeout 10; p0=$last_pid
rank iters1 1 2 "$port" --sizes 64KB --iters 3 --dtype fp16 --timeout 10; p1=$last_pid
expect iters0 "$p0" 2 10 "--dtype \(rank 0: fp32, rank 1: fp16\); --iters \(rank 0: 2, rank 1: 3\)" "$start"
expect iters1 "$p1" 2 10 "--dtype \(rank 0: fp32, rank 1: fp16\)" "$start"

# 2. Ranks disagreeing on WORLD_SIZE.
port=$(new_port); start=$(now)
rank world0 0 2 "$port" --sizes 64KB --iters 2 --timeout 10; p0=$last_pid
MASTER_ADDR=127.0.0.1 MASTER_PORT=$port RANK=1 WORLD_SIZE=3 LOCAL_RANK=1 LOCAL_WORLD_SIZE=3 \
  "$cli" collectives --sizes 64KB --iters 2 --timeout 10 2>world1.err >/dev/null &
p1=$!
expect world0 "$p0" 2 10 "WORLD_SIZE \(rank 0: 2, rank 1: 3\)" "$start"
expect world1 "$p1" 2 10 "WORLD_SIZE \(rank 0: 2, rank 1: 3\)" "$start"

# 3. A peer that never starts: rank 0 says at once what it waits for, and names it at --timeout.
port=$(new_port); start=$(now)
rank alone 0 2 "$port" --sizes 64KB --iters 2 --timeout 3; p0=$last_pid
expect alone "$p0" 1 8 "rank 1 of 2, which never joined" "$start"
grep -q "rank 0: waiting for 1 of 2 ranks at 127.0.0.1:$port" alone.err || fail "no waiting line: $(cat alone.err)"
# And a rank 1 whose rank 0 never starts.
port=$(new_port); start=$(now)
rank orphan 1 2 "$port" --sizes 64KB --iters 2 --timeout 3; p1=$last_pid
expect orphan "$p1" 1 8 "127.0.0.1:$port" "$start"

# 4. MASTER_PORT held by a listener that is not the job's store (it accepts and says nothing).
port=$(new_port)
python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port)); s.listen(16)
held = []
while True:
    c, _ = s.accept(); held.append(c)
" &
squatter=$!
sleep 0.5
start=$(now)
rank held1 1 2 "$port" --sizes 64KB --iters 2 --timeout 3; p1=$last_pid
expect held1 "$p1" 1 8 "127.0.0.1:$port" "$start"
start=$(now)
rank held0 0 2 "$port" --sizes 64KB --iters 2 --timeout 3; p0=$last_pid
expect held0 "$p0" 1 8 "could not serve the rendezvous at 127.0.0.1:$port" "$start"
kill "$squatter"

# 5. A rank whose node refuses its --csv, or its options, tells the others, which end with it.
port=$(new_port); start=$(now)
rank csv0 0 2 "$port" --sizes 64KB --iters 2 --timeout 20 --csv ok.csv; p0=$last_pid
rank csv1 1 2 "$port" --sizes 64KB --iters 2 --timeout 20 --csv /nonexistent-folder/x.csv; p1=$last_pid
expect csv1 "$p1" 2 20 "--csv: cannot write /nonexistent-folder/x.csv" "$start"
expect csv0 "$p0" 2 20 "rank 1 cannot run: --csv: cannot write /nonexistent-folder/x.csv" "$start"
awk -v t="$(took "$start")" 'BEGIN { exit !(t < 10) }' || fail "rank 0 waited for its --timeout to learn of rank 1"
port=$(new_port); start=$(now)
rank opt0 0 2 "$port" --sizes 64KB --iters 2 --timeout 20; p0=$last_pid
rank opt1 1 2 "$port" --sizes 1XB --iters 2 --timeout 20; p1=$last_pid
expect opt0 "$p0" 2 10 "rank 1 cannot run: --sizes: '1XB' is not a size" "$start"
expect opt1 "$p1" 2 10 "--sizes: '1XB' is not a size" "$start"

# 6. A world past the experiments' limit names the launcher's variable, not --nproc.
WORLD_SIZE=100000 RANK=0 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29999 \
  "$cli" collectives 2>big.err
[ $? = 2 ] || fail "WORLD_SIZE=100000 exited $?"
grep -q "WORLD_SIZE is 100000, out of range (1 to 4096)" big.err || fail "WORLD_SIZE=100000 said: $(cat big.err)"
grep -q -- "--nproc" big.err && fail "WORLD_SIZE=100000 blamed --nproc: $(cat big.err)"
echo "PASS"
