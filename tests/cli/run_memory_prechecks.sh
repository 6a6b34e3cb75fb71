#!/usr/bin/env bash
# Configurations far beyond this machine's memory are out-of-memory results within seconds,
# and no process passes 2 GB resident on the way: the collective benchmark (per rank x the
# ranks on this machine), the DDP experiments (2^24 and the bench's estimate) and the precision
# lab's autocast on a Transformer. Peak RSS is the largest of the command's processes, workers
# included (RUSAGE_CHILDREN of a python3 parent).
# Usage: run_memory_prechecks.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# measured NAME ARGS...: runs the CLI; NAME.out, NAME.err, NAME.status, NAME.rss (MiB), NAME.s
measured() {
  local name=$1
  shift
  python3 - "$name" "$cli" "$@" <<'PY'
import resource, subprocess, sys, time
name, command = sys.argv[1], sys.argv[2:]
start = time.monotonic()
with open(name + ".out", "w") as out, open(name + ".err", "w") as err:
    status = subprocess.call(command, stdout=out, stderr=err)
took = time.monotonic() - start
rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
for suffix, value in (("status", status), ("rss", "%.0f" % rss_mib), ("s", "%.1f" % took)):
    open(name + "." + suffix, "w").write(str(value))
PY
  echo "$name: exit $(cat "$name.status"), $(cat "$name.s") s, peak RSS $(cat "$name.rss") MiB"
  [ "$(cat "$name.rss")" -lt 2048 ] || fail "$name passed 2 GB resident: $(cat "$name.rss") MiB"
  awk -v t="$(cat "$name.s")" 'BEGIN { exit !(t < 60) }' || fail "$name took $(cat "$name.s") s"
}

# The collective benchmark: 4 ranks of 100 GB all-reduce buffers on this machine.
measured allreduce collectives --nproc 4 --sizes 100GB --warmup 0 --iters 1 --quiet
[ "$(cat allreduce.status)" = 0 ] || fail "allreduce exited $(cat allreduce.status): $(cat allreduce.err)"
grep -q ',OOM,.*"not started: needs about .* (4 ranks on this machine' allreduce.out ||
  fail "allreduce row: $(cat allreduce.out) $(cat allreduce.err)"

# DDP: a batch no machine holds, on 2 ranks; then one past 2^24, refused as bench refuses it.
measured ddp ddp --nproc 2 --model tiny --batch 100000 --variant flat --warmup 0 --steps 1 --quiet
[ "$(cat ddp.status)" = 0 ] || fail "ddp exited $(cat ddp.status): $(cat ddp.err)"
grep -q ',OOM,.*not started: needs about .* (2 ranks on this machine' ddp.out || fail "ddp row: $(cat ddp.out) $(cat ddp.err)"
"$cli" ddp --batch 16777217 2>ddp_limit.err
[ $? = 2 ] && grep -q -- "--batch: batch size 16777217 is too large (at most 16777216)" ddp_limit.err ||
  fail "ddp --batch 2^24+1: $(cat ddp_limit.err)"

# The precision lab: the 2.7B model at 64 x 1024 tokens, and a batch beyond any machine.
measured autocast precision autocast --model 2.7B --batch 64 --context 1024 --quiet
[ "$(cat autocast.status)" = 1 ] || fail "autocast exited $(cat autocast.status): $(cat autocast.err)"
grep -q "precision autocast: OOM: not started: needs about" autocast.err || fail "autocast said: $(cat autocast.err)"
measured autocast_batch precision autocast --model small --batch 100000 --quiet
grep -q "precision autocast: OOM: not started" autocast_batch.err || fail "autocast --batch 100000 said: $(cat autocast_batch.err)"
for option in batch context; do
  "$cli" precision autocast --model small "--$option" 16777217 2>limit.err
  [ $? = 2 ] && grep -q -- "--$option: .* 16777217 is too large (at most 16777216)" limit.err ||
    fail "precision --$option 2^24+1: $(cat limit.err)"
done
echo "PASS"
