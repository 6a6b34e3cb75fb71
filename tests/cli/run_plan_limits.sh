#!/usr/bin/env bash
# Plan prints no saturated number as a result. 2^24 sequences of 2^24 tokens of the
# small model hold ~4e24 bytes of activations; the engine's estimate saturates at 2^63 - 1, and
# per token the plan said 32768 B (9.2e18 / 2^48). Usage: run_plan_limits.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
field() { grep -oE "\"$1\": *[0-9][0-9.e+]*" "$2" | head -1 | sed 's/.*: *//'; }

"$cli" plan --model small --batch 16777216 --context 16777216 --quiet --json huge.json >/dev/null ||
  fail "plan exited $?"
activations=$(field activations_bytes huge.json)
per_token=$(field activations_per_token_bytes huge.json)
awk -v a="$activations" -v t="$per_token" 'BEGIN {
  tokens = 2 ^ 48
  if (a < 1e24) { print "activations " a " look saturated"; exit 1 }
  if (t * tokens < a * 0.999999 || t * tokens > a * 1.000001) { print "per token " t " x 2^48 is not " a; exit 1 }
}' || fail "activations $activations, per token $per_token"
grep -q 9223372036854775807 huge.json && fail "a saturated int64 in the plan"
grep -q -- '-9223372036854775808' huge.json && fail "a wrapped int64 in the plan"
echo "PASS"
