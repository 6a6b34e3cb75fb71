#!/usr/bin/env python3
"""What memory_viz's "Active Memory Timeline" shows of a CUDA memory snapshot, per device, as JSON:
the independent reference for Stepscope's snapshot importer (engine/imports/). Standard library only.

Usage: memory_snapshot_summary.py SNAPSHOT.pickle [--largest 5]

The snapshot is what torch.cuda.memory._snapshot() returns and _dump_snapshot() pickles: a dict
with "segments" and "device_traces" (PyTorch 2.x), or a bare list of segments (1.13, no trace).
It is unpickled with no globals allowed: a snapshot holds only dicts, lists, strings and numbers.

The replay is memory_viz's (process_alloc_data in torch/utils/viz/MemoryViz.js), written anew:
- the counted actions are "alloc" (+ its size) and the free that completes a block
  ("free_completed"; memory_viz folds a "free_requested" directly followed by its
  "free_completed" into one "free", which counts once in the same place);
- a free whose alloc is not in the trace was alive before recording began: its size (the free
  entry's) is alive from the start;
- so is every "active_allocated" block in the device's segments whose address no alloc still
  alive at the end of the trace holds, at its requested_size (its size in snapshots without one);
- the peak is the highest total after an action (the level before the first action is not one);
  when the trace has no action but such blocks exist, memory_viz draws one of them as the only
  action, so the peak is their total.
Per device it prints: the counts of alloc and free_completed entries; the bytes (and blocks)
alive before recording began; the peak, with the index in the device's trace of the entry that
first reached it (-1 when no entry did); the bytes alive at the end; and the largest
allocations alive at the peak (size descending, then address ascending).
"""
import argparse
import json
import pickle
import sys


class PlainUnpickler(pickle.Unpickler):
    """Refuses every global: nothing in a memory snapshot needs one."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"not a memory snapshot: the pickle asks for {module}.{name}")


def block_addresses(segment):
    """(address, block) per block; PyTorch 1.13 gives no block address: it is the segment's plus
    the sizes of the blocks before it."""
    address = segment["address"]
    for block in segment["blocks"]:
        yield block.get("address", address), block
        address += block["size"]


def block_requested_size(block):
    if "requested_size" in block:
        return block["requested_size"]
    history = block.get("history")
    if history:
        return history[0]["real_size"]
    return block["size"]


def summarize_device(snapshot, device, largest):
    trace = snapshot["device_traces"][device] if device < len(snapshot["device_traces"]) else []
    # Elements: [size, address, start, end]; start/end are action numbers (None: before
    # recording / still alive). Actions: (element, +1 alloc or -1 free, trace index).
    elements = []
    actions = []
    live_alloc = {}  # address -> element of an alloc not freed yet
    counts = {"alloc": 0, "free_completed": 0}
    before = []
    for index, entry in enumerate(trace):
        action = entry["action"]
        if action == "alloc":
            counts["alloc"] += 1
            elements.append([entry["size"], entry["addr"], len(actions), None])
            live_alloc[entry["addr"]] = len(elements) - 1
            actions.append((len(elements) - 1, +1, index))
        elif action == "free_completed":
            counts["free_completed"] += 1
            element = live_alloc.pop(entry["addr"], None)
            if element is None:
                elements.append([entry["size"], entry["addr"], None, None])
                element = len(elements) - 1
                before.append(element)
            elements[element][3] = len(actions)
            actions.append((element, -1, index))
    for segment in snapshot["segments"]:
        if segment["device"] != device:
            continue
        for address, block in block_addresses(segment):
            if block["state"] == "active_allocated" and address not in live_alloc:
                elements.append([block_requested_size(block), address, None, None])
                before.append(len(elements) - 1)

    before_bytes, before_blocks = sum(elements[e][0] for e in before), len(before)
    if not actions and before:
        first = before.pop(0)
        elements[first][2] = 0
        actions.append((first, +1, -1))

    total = sum(elements[e][0] for e in before)
    peak, peak_action = 0, -1
    for number, (element, sign, _) in enumerate(actions):
        total += sign * elements[element][0]
        if total > peak:
            peak, peak_action = total, number

    def alive_at(number, element):
        _, _, start, end = elements[element]
        return (start is None or start <= number) and (end is None or end > number)

    at_peak = [e for e in range(len(elements)) if peak_action >= 0 and alive_at(peak_action, e)]
    at_peak.sort(key=lambda e: (-elements[e][0], elements[e][1]))
    return {
        "device": device,
        "alloc": counts["alloc"],
        "free_completed": counts["free_completed"],
        "before_recording_bytes": before_bytes,
        "before_recording_blocks": before_blocks,
        "peak_bytes": peak,
        "peak_entry": actions[peak_action][2] if peak_action >= 0 else -1,
        "final_bytes": total,
        "largest_at_peak": [{"size": elements[e][0], "address": elements[e][1]} for e in at_peak[:largest]],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot")
    parser.add_argument("--largest", type=int, default=5)
    args = parser.parse_args()
    with open(args.snapshot, "rb") as f:
        snapshot = PlainUnpickler(f).load()
    if isinstance(snapshot, list):  # PyTorch 1.13: segments only
        snapshot = {"segments": snapshot, "device_traces": []}
    devices = sorted({s["device"] for s in snapshot["segments"]} | set(range(len(snapshot["device_traces"]))))
    json.dump({"devices": [summarize_device(snapshot, d, args.largest) for d in devices]}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
