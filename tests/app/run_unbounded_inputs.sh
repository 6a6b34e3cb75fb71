#!/usr/bin/env bash
# Inputs that never end or are far too large: the application refuses them by their size, with
# a message naming the file and the limit, quickly and without growing (peak RSS under 2 GB);
# /dev/zero is read only up to the limit, a sparse 1 GB file of garbage not at all, and 120 MiB
# of [0,0,...] only until its parse holds 16 million values.
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
  grep -q "stepscope: $input.*\(a run file is read up to 128 MiB\|more than 16000000 values and keys\)" err.txt ||
    fail "$input: stderr: $(cat err.txt)"
  [ "$rss_kb" -lt "$limit_kb" ] || fail "$input: peak RSS ${rss_kb} kB"
done
echo "PASS"
