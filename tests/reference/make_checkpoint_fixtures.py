#!/usr/bin/python3
"""Creates the checkpoint fixtures (storages that must load right or be refused) in tests/data/io/ and checkpoints.json.

Run with Debian's /usr/bin/python3 (python3-torch 1.13 + numpy). Deterministic (seeded).

Loaded right (values in checkpoints.json, written here by Python, compared exactly):
  net_float64.pt, net_float16.pt, net_bfloat16.pt   torch.save of a module's state_dict in that
      dtype, with values float32 cannot hold exactly (0.1, 1e-310) or fp16's edges (65504, 2^-24).
  deflated_consistent.pt   a state_dict whose records are deflated (zip tools may recompress).
Refused, naming the tensor (the state_dict key in checkpoints.json):
  double_holds_float.pt    pickle says DoubleStorage, the record holds float32 data (half the bytes)
  half_holds_float.pt      pickle says HalfStorage, the record holds float32 data (twice the bytes)
  bogus_storage_class.pt   pickle names torch.BogusStorage
  record_too_short.pt, record_too_long.pt   FloatStorage of 6 elements, records of 20 and 28 bytes
  deflated_record_too_large.pt   the record of a 6-element FloatStorage inflates to 64 MiB of
      zeros (a 64 kB file): refused before it is inflated.
Attention inputs a narrower precision cannot hold (refused by `attention check`, naming the value):
  f64_beyond_f32_1x2x2.npy   float64 with 1e300 (float32's largest is 3.4e38)
  f32_beyond_f16_1x2x2.npy   float32 with 70000 (fp16's largest is 65504)
"""
import collections
import io
import json
import os
import pickle
import sys
import zipfile

import numpy as np
import torch
import torch.nn as nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "io")


def describe(t):
    t = t.detach()
    values = t.to(torch.float64 if t.is_floating_point() else torch.int64).flatten().tolist()
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": values}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(6, 4)
        self.head = nn.Linear(4, 3)
        self.register_buffer("edges", torch.zeros(4))
        self.register_buffer("steps", torch.tensor(7))


def net_state(dtype):
    torch.manual_seed(34)
    net = Net().to(dtype)
    with torch.no_grad():
        if dtype == torch.float16:
            net.edges.copy_(torch.tensor([65504.0, -65504.0, 2.0 ** -24, 0.1]))
        elif dtype == torch.bfloat16:
            net.edges.copy_(torch.tensor([3.3895313892515355e38, -1.0e-38, 2.0 ** -133, 0.1]))
        else:
            net.edges.copy_(torch.tensor([0.1, 1e-310, 1e300, -2.0 ** -1074], dtype=torch.float64))
    return net.state_dict()


def pickled(tensors, storage_class, numel_of):
    """data.pkl of an OrderedDict of tensors, each with its own storage named by `storage_class`."""
    keys = {}

    def persistent_id(obj):
        if isinstance(obj, torch.storage.TypedStorage):
            key = keys.setdefault(obj._cdata, str(len(keys)))
            return ("storage", storage_class, key, "cpu", numel_of(obj))
        return None

    def reduce_tensor(t):
        args = (t.storage(), t.storage_offset(), tuple(t.size()), t.stride(), False, collections.OrderedDict())
        return (torch._utils._rebuild_tensor_v2, args)

    buf = io.BytesIO()
    p = pickle.Pickler(buf, protocol=2)
    p.persistent_id = persistent_id
    p.dispatch_table = {torch.Tensor: reduce_tensor}
    p.dump(collections.OrderedDict(tensors))
    return buf.getvalue()


def write_archive(path, pkl, records, deflate=False):
    """A torch.save zip: archive/data.pkl, archive/version, archive/data/<key> holding `records`."""
    if not deflate:
        w = torch._C.PyTorchFileWriter(path)
        w.write_record("data.pkl", pkl, len(pkl))
        for key, data in records:
            w.write_record("data/" + key, data, len(data))
        w.write_end_of_file()
        return
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in [("data.pkl", pkl), ("version", b"3\n")] + [("data/" + k, d) for k, d in records]:
            info = zipfile.ZipInfo("archive/" + name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def float_bytes(t):
    return t.contiguous().numpy().tobytes()


def main():
    os.makedirs(OUT, exist_ok=True)
    expected = {"loads": {}, "refused": {}}
    for dtype, name in [(torch.float64, "net_float64.pt"), (torch.float16, "net_float16.pt"),
                        (torch.bfloat16, "net_bfloat16.pt")]:
        sd = net_state(dtype)
        torch.save(sd, os.path.join(OUT, name))
        back = torch.load(os.path.join(OUT, name))
        assert all(torch.equal(back[k], v) for k, v in sd.items()), name
        expected["loads"][name] = [dict(name=k, **describe(v)) for k, v in sd.items()]

    w = torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4 + 0.5
    plain = lambda s: s.size()  # noqa: E731  the storage's element count, as torch.save writes it

    deflated = collections.OrderedDict(w=w, b=torch.tensor([1.5, -2.0]))
    write_archive(os.path.join(OUT, "deflated_consistent.pt"), pickled(deflated, torch.FloatStorage, plain),
                  [("0", float_bytes(w)), ("1", float_bytes(deflated["b"]))], deflate=True)
    assert torch.equal(torch.load(os.path.join(OUT, "deflated_consistent.pt"))["w"], w)
    expected["loads"]["deflated_consistent.pt"] = [dict(name=k, **describe(v)) for k, v in deflated.items()]

    one = collections.OrderedDict(w=w)
    cases = {
        "double_holds_float.pt": (torch.DoubleStorage, float_bytes(w), "need 48"),
        "half_holds_float.pt": (torch.HalfStorage, float_bytes(w), "need 12"),
        "record_too_short.pt": (torch.FloatStorage, float_bytes(w)[:20], "holds 20 bytes"),
        "record_too_long.pt": (torch.FloatStorage, float_bytes(w) + b"\0\0\0\0", "holds 28 bytes"),
    }
    for name, (cls, data, says) in cases.items():
        write_archive(os.path.join(OUT, name), pickled(one, cls, plain), [("0", data)])
        expected["refused"][name] = {"tensor": "w", "says": says}

    class BogusStorage:  # a class torch never had, pickled as torch.BogusStorage
        pass

    BogusStorage.__module__, BogusStorage.__qualname__ = "torch", "BogusStorage"
    torch.BogusStorage = BogusStorage
    try:
        write_archive(os.path.join(OUT, "bogus_storage_class.pt"), pickled(one, BogusStorage, plain),
                      [("0", float_bytes(w))])
    finally:
        del torch.BogusStorage
    expected["refused"]["bogus_storage_class.pt"] = {"tensor": "w", "says": "unknown storage class torch.BogusStorage"}

    write_archive(os.path.join(OUT, "deflated_record_too_large.pt"), pickled(one, torch.FloatStorage, plain),
                  [("0", bytes(64 << 20))], deflate=True)
    expected["refused"]["deflated_record_too_large.pt"] = {"tensor": "w", "says": "holds 67108864 bytes"}

    np.save(os.path.join(OUT, "f64_beyond_f32_1x2x2.npy"), np.array([[[0.5, 1e300], [-2.0, 3.0]]]))
    np.save(os.path.join(OUT, "f32_beyond_f16_1x2x2.npy"), np.array([[[0.5, 70000.0], [-2.0, 3.0]]], dtype=np.float32))

    with open(os.path.join(OUT, "checkpoints.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote checkpoint fixtures to", os.path.normpath(OUT), file=sys.stderr)


if __name__ == "__main__":
    main()
