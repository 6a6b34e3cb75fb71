#!/usr/bin/env bash
# No command writes over one of its own inputs. Every command that reads files (check,
# attention check, plan --allreduce, compare) refuses an output naming an input in each spelling (the
# same path, ./x, a/../x, a symbolic link, a hard link) with exit status 2 and a message naming
# both options, before anything runs: the input stays byte for byte, no other output appears.
# (bench, precision, allreduce and ddp read no files.) Usage: run_outputs_not_inputs.sh CLI DATA WORKDIR
set -u
cli=$1
data=$2
work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p in pristine
cp "$data/tiny_model/model.pt" "$data/tiny_model/tokens.npy" "$data/tiny_model/targets.npy" in/
cp "$data/tiny_model/logits.npy" in/q.npy  # float32 (2, 12, 97): attention inputs
echo '{"not": "read"}' > in/run.json
cp in/* pristine/

# spellings FILE: the five ways to name in/FILE (the links are made here, in in/).
spellings() {
  rm -f "in/link_$1" "in/hard_$1"
  ln -s "$1" "in/link_$1"
  ln "in/$1" "in/hard_$1"
  echo "in/$1 ./in/$1 in/../in/$1 in/link_$1 in/hard_$1"
}

# refused OUTPUT_OPTION INPUT_OPTION INPUT_FILE ARGS...: exit 2, both options named, input intact.
refused() {
  local output=$1 input=$2 file=$3
  shift 3
  rm -f err.txt
  "$cli" "$@" >/dev/null 2>err.txt
  local rc=$?
  [ $rc -eq 2 ] || fail "exit $rc for $*: $(cat err.txt)"
  grep -q -- "$output and $input name the same file" err.txt || fail "message for $*: $(cat err.txt)"
  cmp -s "in/$file" "pristine/$file" || fail "$file changed by $*"
  [ -L "in/link_$file" ] || fail "in/link_$file is no longer a link after $*"
  if ls in/*.partial new.* 2>/dev/null | grep -q .; then fail "$* left $(ls in/*.partial new.* 2>/dev/null)"; fi
}

check_base=(check --checkpoint in/model.pt --tokens in/tokens.npy --targets in/targets.npy --heads 4)
for file_option in model.pt:--checkpoint tokens.npy:--tokens targets.npy:--targets; do
  file=${file_option%%:*}
  option=${file_option#*:}
  for name in $(spellings "$file"); do
    refused --out "$option" "$file" "${check_base[@]}" --out "$name" --adamw-step-out new.pt
    refused --adamw-step-out "$option" "$file" "${check_base[@]}" --adamw-step-out "$name" --out new.npy
  done
done
# The input named through the link itself, the output by its plain name.
refused --out --tokens tokens.npy check --checkpoint in/model.pt --tokens in/link_tokens.npy --heads 4 --out in/tokens.npy

# attention check writes DIR/o.npy and DIR/lse.npy (and dq, dk, dv with --do). An input at in/o.npy,
# named in each spelling, with --out in:
cp in/q.npy in/o.npy && cp in/q.npy pristine/o.npy
for name in $(spellings o.npy); do
  refused --out --k o.npy attention check --q in/q.npy --k "$name" --v in/q.npy --out in
done
# The folder in each spelling, the input at in/lse.npy:
cp in/q.npy in/lse.npy && cp in/q.npy pristine/lse.npy
spellings lse.npy >/dev/null
for dir in in ./in in/../in; do
  refused --out --v lse.npy attention check --q in/q.npy --k in/q.npy --v "$dir/lse.npy" --out "$dir"
done
# Outputs that are a symbolic link and a hard link to an input elsewhere:
spellings q.npy >/dev/null
rm -rf out && mkdir out && ln -s ../in/q.npy out/o.npy
refused --out --q q.npy attention check --q in/q.npy --k in/o.npy --v in/o.npy --out out
rm -rf out && mkdir out && ln in/q.npy out/lse.npy
refused --out --q q.npy attention check --q in/q.npy --k in/o.npy --v in/o.npy --out out
rm -rf out
# --do's gradients: an input at in/dv.npy clashes with --do, and is no clash without it.
cp in/q.npy in/dv.npy && cp in/q.npy pristine/dv.npy && spellings dv.npy >/dev/null
refused --out --do dv.npy attention check --q in/q.npy --k in/q.npy --v in/q.npy --do in/dv.npy --out in
"$cli" attention check --q in/q.npy --k in/q.npy --v in/dv.npy --impl naive --out in >/dev/null 2>err.txt ||
  fail "attention check with an input at DIR/dv.npy and no --do: $(cat err.txt)"
cmp -s in/dv.npy pristine/dv.npy || fail "in/dv.npy changed"

# plan reads a run record with --allreduce.
for name in $(spellings run.json); do
  refused --json --allreduce run.json plan --allreduce "$name" --json "$name" --quiet
  refused --csv --allreduce run.json plan --allreduce in/run.json --csv "$name" --quiet
done

# compare reads two run records, A and B (named so in its messages).
for name in $(spellings run.json); do
  refused --json A run.json compare "$name" in/other.json --json "$name" --quiet
  refused --csv B run.json compare in/other.json "$name" --csv "$name" --quiet
done

# The same commands with outputs elsewhere run.
"$cli" "${check_base[@]}" --out new.npy --adamw-step-out new.pt >/dev/null 2>err.txt || fail "check: $(cat err.txt)"
for file in model.pt tokens.npy targets.npy; do cmp -s "in/$file" "pristine/$file" || fail "$file changed"; done
"$cli" attention check --q in/q.npy --k in/q.npy --v in/q.npy --impl naive --out out >/dev/null 2>err.txt ||
  fail "attention check: $(cat err.txt)"
[ -f out/o.npy ] && [ -f out/lse.npy ] || fail "attention check wrote $(ls out)"
echo "PASS"
