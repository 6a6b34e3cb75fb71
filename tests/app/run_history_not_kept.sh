#!/usr/bin/env bash
# A history that cannot keep an opened run file says so: corrupt, truncated, foreign, a folder,
# or locked by another process's write transaction. The file is shown and exported all the
# same (exit 0), and stderr says "not kept in the history" with the reason.
# Usage: run_history_not_kept.sh APP CLI WORKDIR
set -u
app=$1
cli=$2
work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data

"$cli" bench --model tiny --context 16 --batch 1 --warmup 0 --steps 1 --mode forward --quiet --json run.json \
  >/dev/null || fail "bench exited $?"

# Opens run.json with `history` as the history; stderr in err.txt.
open_with() {
  "$app" --history "$1" --open-file run.json --export "export_$2" --quit 2>err.txt
  local rc=$?
  [ "$rc" = 0 ] || fail "$2: exit $rc, stderr: $(cat err.txt)"
  [ -s "export_$2/benchmark.csv" ] || fail "$2: nothing exported"
}
expect_unkept() {
  grep -q "stepscope: not kept in the history: .*$2" err.txt || fail "$1: stderr: $(cat err.txt)"
}

# A good history keeps the file, silently.
open_with good.sqlite good
! grep -q "history" err.txt || fail "a good history: stderr: $(cat err.txt)"
[ "$(sqlite3 good.sqlite 'SELECT COUNT(*) FROM runs')" = 1 ] || fail "the good history kept no run"

echo "this is not a database" > corrupt.sqlite
open_with corrupt.sqlite corrupt
expect_unkept corrupt "is not a Stepscope run history"

head -c 3000 good.sqlite > truncated.sqlite
open_with truncated.sqlite truncated
expect_unkept truncated "truncated.sqlite"

sqlite3 foreign.sqlite 'CREATE TABLE songs (title TEXT)'
open_with foreign.sqlite foreign
expect_unkept foreign "it has no Stepscope metadata"

mkdir folder.sqlite
open_with folder.sqlite folder
expect_unkept folder "folder.sqlite"

# Another process holds the write lock past the busy timeout: the import fails and says so,
# and leaves no empty run behind.
python3 - good.sqlite <<'PY' > locker.txt &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(60)
PY
locker=$!
for _ in $(seq 100); do grep -q locked locker.txt && break; sleep 0.1; done
open_with good.sqlite locked
kill "$locker"
wait "$locker" 2>/dev/null
expect_unkept locked "locked"
[ "$(sqlite3 good.sqlite 'SELECT COUNT(*) FROM runs')" = 1 ] || fail "the locked import left a run behind"
echo "PASS"
