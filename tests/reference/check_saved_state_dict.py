#!/usr/bin/python3
"""Checks that PyTorch's torch.load reads a state_dict file written by the C++ engine.

Usage:
  check_saved_state_dict.py FILE.pt --fixture mixed_dtypes.pt [--expected tests/data/io/expected.json]
      compares with the Python-computed values of that fixture in expected.json
      (key order, dtype, shape, every value exactly);
  check_saved_state_dict.py FILE.pt --npy-dir DIR
      compares each entry KEY with DIR/KEY.npy (values exactly; bfloat16 via float32).

The C++ test StateDictFile.ResavedFixturesReloadIdentically writes cpp_<fixture> files
into $STEPSCOPE_IO_EXPORT_DIR. Uses weights_only=True where torch.load supports it.
Exit status 0 when everything matches.
"""
import argparse
import collections
import inspect
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_io_fixtures import describe  # noqa: E402  (one description of a tensor for both scripts)


def load(path):
    if "weights_only" in inspect.signature(torch.load).parameters:
        return torch.load(path, map_location="cpu", weights_only=True), True
    return torch.load(path, map_location="cpu"), False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--fixture", help="entry of expected.json to compare with")
    ap.add_argument("--expected", default=os.path.join(HERE, "..", "data", "io", "expected.json"))
    ap.add_argument("--npy-dir", help="directory with KEY.npy reference arrays")
    args = ap.parse_args()
    if bool(args.fixture) == bool(args.npy_dir):
        ap.error("give exactly one of --fixture and --npy-dir")

    sd, weights_only = load(args.file)
    errors = []
    if not isinstance(sd, collections.OrderedDict):
        errors.append(f"loaded a {type(sd).__name__}, not an OrderedDict")
    for k, v in sd.items():
        if not isinstance(v, torch.Tensor) or v.device.type != "cpu":
            errors.append(f"{k}: not a CPU tensor")

    if args.fixture:
        with open(args.expected) as f:
            expected = json.load(f)[args.fixture]
        if [e["name"] for e in expected] != list(sd.keys()):
            errors.append(f"keys differ: {list(sd.keys())} vs {[e['name'] for e in expected]}")
        for e in expected:
            if e["name"] in sd:
                got = describe(sd[e["name"]])
                for field in ("dtype", "shape", "values"):
                    if got[field] != e[field]:
                        errors.append(f"{e['name']}: {field} differs: {got[field]!r} vs {e[field]!r}")
    else:
        for k, v in sd.items():
            ref = np.load(os.path.join(args.npy_dir, k + ".npy"))
            got = v.float() if v.dtype == torch.bfloat16 else v
            if list(got.shape) != list(ref.shape) or not np.array_equal(got.numpy(), ref):
                errors.append(f"{k}: differs from {k}.npy")

    print(f"torch {torch.__version__}, weights_only={weights_only}: {args.file}: "
          f"{len(sd)} tensors, {'OK' if not errors else 'MISMATCH'}")
    for e in errors:
        print("  " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
