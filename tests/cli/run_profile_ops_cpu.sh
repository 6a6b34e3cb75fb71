#!/usr/bin/env bash
# bench --profile ops on the CPU as users run it: the operator tables beside the CSV, the
# operator profile in the run record, the calls in the Perfetto trace; checked by Python's
# standard library reading the files (not by our readers): the operators' self CPU time per
# step within 10 % of the step's CPU time (the record's), softmax once a layer and step in its
# range, per-step columns the totals over the steps, and no kernel rows without a GPU. Then
# --profile kernels,ops writes both profiles' files.
# Usage: run_profile_ops_cpu.sh CLI WORKDIR
set -u
cli=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

"$cli" bench --model tiny --context 32 --batch 2 --mode train --warmup 1 --steps 2 --profile ops \
  --csv run.csv --json run.json 2>err.txt >/dev/null || fail "bench exited $?: $(cat err.txt)"
stem=run.tiny-ctx32-b2-fp32-train
for suffix in operators.csv operator_kernels.csv trace.json; do
  [ -f "$stem.$suffix" ] || fail "missing $stem.$suffix; stderr: $(cat err.txt)"
done
[ ! -e "$stem.kernels.csv" ] || fail "kernel tables without --profile kernels"
grep -q "^operators: $stem.{operators,operator_kernels}.csv and .trace.json" err.txt || fail "no files line: $(cat err.txt)"
grep -q "operators without kernels" err.txt || fail "does not say why there are no kernels: $(cat err.txt)"
grep -q "of the steps'" err.txt || fail "no digest: $(cat err.txt)"

python3 - "$stem" <<'PY' || fail "file checks"
import csv, json, sys
stem = sys.argv[1]
with open(stem + ".operators.csv", newline="") as f:
    rows = list(csv.DictReader(f))
record = json.load(open("run.json"))
profile = record["entries"][0]["operator_profile"]
assert record["entries"][0]["config"]["profile_operators"] is True
steps = profile["measured_steps"]
assert steps == 2, steps
self_cpu = sum(int(r["Self CPU (ns)"]) for r in rows)
share = self_cpu / profile["measured_cpu_ns"]
print(f"self CPU {self_cpu / steps / 1e6:.3f} ms a step, {100 * share:.1f} % of the step's CPU time")
assert 0.9 <= share <= 1.1, share
softmax = [r for r in rows if r["Operator"] == "aten::softmax"]
assert [r["Range"] for r in softmax] == ["forward/attention/softmax"], softmax
assert int(softmax[0]["Calls"]) == 2 * steps, softmax  # once a layer (2) and step
for r in rows:
    assert float(r["Calls/Step"]) == round(int(r["Calls"]) / steps, 3), r
    assert abs(float(r["Self CPU/Step (ns)"]) - int(r["Self CPU (ns)"]) / steps) <= 0.05, r
    assert r["Self GPU (ns)"] == "" and r["Kernels"] == "", r  # no GPU activity: missing, not 0
    assert int(r["Self CPU (ns)"]) <= int(r["Total CPU (ns)"]), r
assert sum(int(r["Calls"]) for r in rows) == profile["operator_calls"]
with open(stem + ".operator_kernels.csv", newline="") as f:
    assert len(list(csv.reader(f))) == 1, "kernel rows on a CPU"
trace = json.load(open(stem + ".trace.json"))
ops = [e for e in trace["traceEvents"] if e.get("cat") == "cpu_op"]
assert len(ops) >= profile["operator_calls"], (len(ops), profile["operator_calls"])  # warm-up's too
assert any(e["name"] == "aten::mm" and "input shapes" in e["args"] for e in ops)
PY

"$cli" bench --model tiny --context 32 --batch 2 --mode forward --warmup 1 --steps 1 --profile kernels,ops \
  --csv both.csv --quiet >/dev/null 2>err2.txt || fail "kernels,ops exited $?: $(cat err2.txt)"
for suffix in kernels.csv cpu_ranges.csv operators.csv operator_kernels.csv trace.json; do
  [ -f both.tiny-ctx32-b2-fp32-forward.$suffix ] || fail "kernels,ops: missing .$suffix"
done
echo PASS
