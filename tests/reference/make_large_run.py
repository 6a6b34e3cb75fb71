"""Writes a run record of N configurations from a one-configuration record made by
`stepscope-cli bench --json`: the entry repeated with batch sizes 1..N, so each row is distinct.
Used to check that opening a large run file stays fast (docs/RELIABILITY.md).

usage: make_large_run.py ONE.json N OUT.json"""
import json
import sys


def main():
    source, count, target = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    record = json.load(open(source))
    entry = record["entries"][0]
    text = json.dumps(entry, separators=(",", ":"))
    entries = []
    for batch in range(1, count + 1):
        e = json.loads(text)
        e["config"]["batch"] = batch
        e["row"]["batch"] = batch
        entries.append(e)
    record["entries"] = entries
    json.dump(record, open(target, "w"), separators=(",", ":"))


if __name__ == "__main__":
    main()
