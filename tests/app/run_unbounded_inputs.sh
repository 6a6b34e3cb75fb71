#!/usr/bin/env bash
# Inputs that never end or are far too large: the application refuses them with a message naming
# the file, quickly and without growing (peak RSS under 2 GB). A file is told by its first 64 KiB
# (imports::sniff_profile): /dev/zero and a sparse 1 GB file of garbage are neither a run record
# nor a PyTorch profile; 120 MiB of [0,0,...] reads as a bare array of trace events, streamed
# event by event, that holds no trace event. (Run records past the reader's limits:
# run_large_file_e2e, run_extreme_values.)
# Usage: run_unbounded_inputs.sh APP WORKDIR
set -u
app=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data

# A gigabyte of garbage that costs no disk: a sparse file with some bytes at each end.
truncate -s 1G garbage.json
printf '\x89garbage{[' | dd of=garbage.json conv=notrunc status=none
printf 'more garbage' | dd of=garbage.json bs=1 seek=$(( (1 << 30) - 12 )) conv=notrunc status=none

# Within the size limit but two bytes per value: its parse stops at 16 million values.
python3 -c "import sys; sys.stdout.write('[' + '0,' * (60 << 20) + '0]')" > zeros.json

limit_kb=2000000  # 2 GB
for input in /dev/zero "$work/garbage.json" "$work/zeros.json"; do
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o rss.txt "$app" --history history.sqlite --open-file "$input" --quit 2>err.txt
  rc=$?
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  rss_kb=$(tail -1 rss.txt)
  echo "$input: exit $rc, peak RSS ${rss_kb} kB, ${seconds} s"
  [ "$rc" = 1 ] || fail "$input: exit $rc (expected 1), stderr: $(cat err.txt)"
  grep -q "stepscope: $input.*\(not a Stepscope run record, a torch.profiler trace\|no \"traceEvents\" array\)" err.txt ||
    fail "$input: stderr: $(cat err.txt)"
  [ "$rss_kb" -lt "$limit_kb" ] || fail "$input: peak RSS ${rss_kb} kB"
done
echo "PASS"
