#!/usr/bin/env bash
# Run files whose values are finite but extreme (busbw 1e308 GB/s, 1e308 ms in the attention,
# DDP and benchmark tables, a sequence of 2^63 - 1, memory times at int64's ends, a kernel share
# of 1e308 %) open, show and export every chart without crashing, within 2 GB of peak RSS;
# the tables still hold the values. Usage: run_extreme_values.sh APP CLI WORKDIR
set -u
app=$1
cli=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data

"$cli" bench --model tiny --context 16 --batch 1 --warmup 0 --steps 2 --mode train --profile memory,kernels --quiet \
  --json bench.json >/dev/null || fail "bench exited $?"
"$cli" attention --seq 40 --d 16 --batch 1 --steps 2 --quiet --json attention.json >/dev/null || fail "attention exited $?"
"$cli" collectives --nproc 2 --sizes 4KB --iters 2 --quiet --json allreduce.json >/dev/null || fail "allreduce exited $?"
"$cli" ddp --nproc 2 --model tiny --context 16 --batch 2 --variant naive --warmup 0 --steps 1 --quiet --json ddp.json \
  >/dev/null || fail "ddp exited $?"
python3 "$here/make_extreme_runs.py" bench.json attention.json allreduce.json ddp.json extreme || fail "editing the files"

limit_kb=2000000  # 2 GB
for file in extreme/*.json; do
  name=$(basename "$file" .json)
  /usr/bin/time -f '%M %e' -o "$name.rss" "$app" --history history.sqlite --open-file "$file" --export "out_$name" \
    --quit 2>"$name.err"
  rc=$?
  read -r rss_kb seconds < <(tail -1 "$name.rss")
  echo "$name: exit $rc, peak RSS ${rss_kb} kB, ${seconds} s"
  [ "$rc" = 0 ] || fail "$name: exit $rc, stderr: $(cat "$name.err")"
  [ "$rss_kb" -lt "$limit_kb" ] || fail "$name: peak RSS ${rss_kb} kB"
  # Each file's charts; an experiment the file did not measure is skipped, not exported empty.
  case $name in
    bench_huge_ms) pngs="sweep benchmark_phases benchmark_steps memory_timeline"; absent=attention_time ;;
    memory_and_kernels) pngs="sweep benchmark_phases benchmark_steps memory_timeline kernel_categories"; absent=ddp_overlap ;;
    attention_*) pngs="attention_time attention_memory"; absent=benchmark_phases ;;
    collective_*) pngs="communication_busbw"; absent=attention_time ;;
    ddp_*) pngs="ddp_step_breakdown ddp_overlap"; absent=communication_busbw ;;
    *) fail "$name: no charts listed for it" ;;
  esac
  for png in $pngs; do
    [ -s "out_$name/$png.png" ] || fail "$name: no $png.png"
  done
  [ ! -e "out_$name/$absent.png" ] || fail "$name: $absent.png exported for an experiment not in the file"
done
# The tables keep what the charts leave out.
# The Collectives tab's table exports as its schema, collective.csv (communication.csv before
# the tab was built from the experiment's descriptor).
grep -q ',1e+308,' out_collective_huge_busbw/collective.csv || fail "busbw left the table"
grep -q ',9223372036854775807,' out_attention_huge_seq/attention.csv || fail "seq left the table"
grep -q ',1e+308,' out_ddp_huge_ms/ddp.csv || fail "step_ms left the table"
echo "PASS"
