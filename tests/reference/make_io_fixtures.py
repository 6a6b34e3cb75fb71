#!/usr/bin/python3
"""Creates the small I/O fixtures in tests/data/io/ and their expected values.

Run with Debian's /usr/bin/python3 (torch 1.13 + numpy). Deterministic (seeded).
expected.json holds, per fixture, the tensors in file order as
{"name", "dtype", "shape", "values"} with values flattened in C order and
computed here by Python, so the C++ tests compare against an independent
reference. bool values are 0/1; bf16/f16 values are exact as Python floats.
"""
import collections
import io
import json
import os
import pickle
import sys

import numpy as np
import torch
import torch.nn as nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "io")


def describe(t):
    t = t.detach()
    if t.dtype == torch.bool:
        values = t.to(torch.int64).flatten().tolist()
    elif t.is_floating_point():
        values = t.to(torch.float64).flatten().tolist()
    else:
        values = t.to(torch.int64).flatten().tolist()
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": values}


def describe_sd(sd):
    return [dict(name=k, **describe(v)) for k, v in sd.items()]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(6, 4)
        self.block = nn.Sequential(nn.Linear(4, 5), nn.LayerNorm(5))
        self.head = nn.Linear(5, 3, bias=False)
        self.register_buffer("steps", torch.tensor(7))


def mixed_dtypes():
    g = torch.Generator().manual_seed(7)
    base = torch.arange(30, dtype=torch.float32).reshape(5, 6) / 4
    other = torch.arange(20, dtype=torch.int32).reshape(4, 5)
    d = collections.OrderedDict()
    d["f32"] = torch.randn(2, 3, generator=g)
    d["f64"] = torch.randn(3, generator=g, dtype=torch.float64)
    d["f16"] = torch.randn(4, generator=g).half()
    d["bf16"] = torch.randn(2, 2, generator=g).bfloat16()
    d["i64"] = torch.tensor([-(2 ** 40), -1, 0, 5, 2 ** 62])
    d["i32"] = torch.tensor([-(2 ** 31), 3, 2 ** 31 - 1], dtype=torch.int32)
    d["i16"] = torch.tensor([[-32768, 1], [2, 32767]], dtype=torch.int16)
    d["i8"] = torch.tensor([-128, 0, 127], dtype=torch.int8)
    d["u8"] = torch.tensor([0, 1, 200, 255], dtype=torch.uint8)
    d["bool"] = torch.tensor([[True, False, True], [False, False, True]])
    d["scalar"] = torch.tensor(3.5)
    d["empty"] = torch.zeros(0, 3)
    d["view_base"] = base
    d["view"] = base[1:, ::2].t()  # shape (3, 4), stride (2, 6), offset 6; shares view_base's storage
    d["int_window"] = other[1:3, 2:]  # only the view is saved, but torch.save stores all 20 ints
    d["expanded"] = torch.tensor([1.0, 2.0, 3.0]).expand(2, 3)  # stride (0, 1)
    assert d["view"].stride() == (2, 6) and d["view"].storage_offset() == 6
    assert d["int_window"].storage_offset() == 7
    return d


def save_like_torch2(sd, path):
    """Emulates what PyTorch 2.x writes: 7-argument _rebuild_tensor_v2 (with the
    metadata dict) and a 'byteorder' record. Same zip layout as torch.save."""
    storages = collections.OrderedDict()

    def persistent_id(obj):
        if isinstance(obj, torch.storage.TypedStorage):
            key = storages.setdefault(obj._cdata, (str(len(storages)), obj))[0]
            return ("storage", getattr(torch, obj.pickle_storage_type()), key, "cpu", obj.size())
        return None

    def reduce_tensor(t):
        args = (t.storage(), t.storage_offset(), tuple(t.size()), t.stride(), False,
                collections.OrderedDict(), {})
        return (torch._utils._rebuild_tensor_v2, args)

    buf = io.BytesIO()
    p = pickle.Pickler(buf, protocol=2)
    p.persistent_id = persistent_id
    p.dispatch_table = {torch.Tensor: reduce_tensor}
    p.dump(sd)
    w = torch._C.PyTorchFileWriter(path)
    w.write_record("data.pkl", buf.getvalue(), len(buf.getvalue()))
    w.write_record("byteorder", "little", len("little"))
    for key, s in storages.values():
        nbytes = s.size() * s.element_size()
        w.write_record("data/" + key, s.data_ptr(), nbytes)
    w.write_end_of_file()


def save_legacy(obj, path):
    """Pre-1.6 (non-zip) torch.save format. Its storage keys are str(address);
    map them to a fixed string so the file is the same on every run."""
    import builtins

    class StrMeta(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, builtins.str)

    class StableStr(metaclass=StrMeta):
        def __new__(cls, x=""):
            return "1" if isinstance(x, int) else builtins.str(x)

    torch.serialization.str = StableStr
    try:
        torch.save(obj, path, _use_new_zipfile_serialization=False)
    finally:
        del torch.serialization.str
    assert torch.equal(torch.load(path)["w"], obj["w"])


def load_torch2_style(path):
    orig = torch._utils._rebuild_tensor_v2
    torch._utils._rebuild_tensor_v2 = lambda *a: orig(*a[:6])
    try:
        return torch.load(path)
    finally:
        torch._utils._rebuild_tensor_v2 = orig


def npy_fixtures(rng):
    a = collections.OrderedDict()
    a["f32_2x3.npy"] = rng.standard_normal((2, 3)).astype(np.float32)
    a["f64_4.npy"] = rng.standard_normal(4)
    a["f16_3x2.npy"] = rng.standard_normal((3, 2)).astype(np.float16)
    a["i64_2x2.npy"] = np.array([[-(2 ** 40), 0], [2 ** 62, -7]], dtype=np.int64)
    a["i32_5.npy"] = np.array([-(2 ** 31), -1, 0, 1, 2 ** 31 - 1], dtype=np.int32)
    a["i16_2x2x2.npy"] = np.arange(-4, 4, dtype=np.int16).reshape(2, 2, 2) * 1000
    a["i8_3.npy"] = np.array([-128, 0, 127], dtype=np.int8)
    a["u8_4.npy"] = np.array([0, 1, 128, 255], dtype=np.uint8)
    a["bool_2x3.npy"] = np.array([[True, False, True], [False, True, True]])
    a["scalar_f64.npy"] = np.array(2.5)
    a["empty_0x5.npy"] = np.zeros((0, 5), dtype=np.float32)
    a["fortran_f32_3x4.npy"] = np.asfortranarray(rng.standard_normal((3, 4)).astype(np.float32))
    a["fortran_i16_2x3x4.npy"] = np.asfortranarray(np.arange(24, dtype=np.int16).reshape(2, 3, 4))
    expected = {}
    for name, arr in a.items():
        np.save(os.path.join(OUT, name), arr)
        expected[name] = describe(torch.from_numpy(np.array(arr, order="C")))  # keeps 0-d arrays 0-d
    # Format 2.0 header, written explicitly.
    v2 = rng.standard_normal((2, 2)).astype(np.float32)
    with open(os.path.join(OUT, "v2_f32_2x2.npy"), "wb") as f:
        np.lib.format.write_array(f, v2, version=(2, 0))
    expected["v2_f32_2x2.npy"] = describe(torch.from_numpy(v2))
    # Arrays the reader must refuse.
    np.save(os.path.join(OUT, "bad_bigendian_f4.npy"), np.arange(3, dtype=">f4"))
    np.save(os.path.join(OUT, "bad_object.npy"), np.array([1, "a"], dtype=object))
    np.save(os.path.join(OUT, "bad_complex64.npy"), np.zeros(2, dtype=np.complex64))
    return expected


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(1234)
    expected = {}

    net = Net()
    sd = net.state_dict()
    assert hasattr(sd, "_metadata")
    torch.save(sd, os.path.join(OUT, "module_state_dict.pt"))
    expected["module_state_dict.pt"] = describe_sd(sd)
    torch.save(sd, os.path.join(OUT, "module_proto4.pt"), pickle_protocol=4)
    expected["module_proto4.pt"] = describe_sd(sd)

    mixed = mixed_dtypes()
    torch.save(mixed, os.path.join(OUT, "mixed_dtypes.pt"))
    expected["mixed_dtypes.pt"] = describe_sd(mixed)

    save_like_torch2(sd, os.path.join(OUT, "module_torch2_style.pt"))
    expected["module_torch2_style.pt"] = describe_sd(sd)

    save_legacy({"w": torch.ones(2)}, os.path.join(OUT, "legacy_format.pt"))

    # The fixtures must load in Python exactly as described.
    for name in ["module_state_dict.pt", "module_proto4.pt", "mixed_dtypes.pt", "module_torch2_style.pt"]:
        path = os.path.join(OUT, name)
        got = load_torch2_style(path) if "torch2" in name else torch.load(path)
        assert describe_sd(got) == expected[name], name

    expected["npy"] = npy_fixtures(np.random.default_rng(1234))
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote fixtures to", os.path.normpath(OUT), file=sys.stderr)


if __name__ == "__main__":
    main()
