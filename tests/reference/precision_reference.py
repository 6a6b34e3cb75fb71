#!/usr/bin/env python3
"""PyTorch's answers to the handout's mixed-precision questions, for comparison with
engine/experiments/precision (compare with compare_precision.py).

Two CSV tables:

* accumulation: the handout's mixed_precision_accumulation snippets (0.01 added 1000 times
  with fp32 / fp16 / bf16 accumulators and addends), then Kahan and pairwise sums in fp16 and
  bf16, all with 0-dim tensor arithmetic on the CPU, as the handout runs them.
  Columns: case,accumulator,addend,method,additions,result,exact,abs_error (%.9g).
* autocast: benchmarking_mixed_precision: the dtype of every parameter, module output (forward
  hooks), the logits, the loss and every gradient, with forward and loss under
  torch.autocast and backward after it. Models: the handout's ToyModel and the reference
  Transformer (reference_model.py). Columns: model,precision,tensor,kind,dtype.

Usage:
    python3 tests/reference/precision_reference.py [--device cuda] [--precision fp16,bf16]
        [--model toy,transformer] [--accumulation-csv FILE] [--autocast-csv FILE]

Without the *-csv options both tables go to stdout, separated by an empty line. A
model/precision the device cannot autocast is reported on stderr and left out.
"""

import argparse
import csv
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_model as rm  # noqa: E402

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
SHORT = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}

# The C++ side's sizes (engine/experiments/precision/toy_model.h, autocast_dtypes.h).
TOY_IN, TOY_OUT = 10, 5


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def g9(x):
    return "%.9g" % x


# ---------------------------------------------------------------------------------------------
# Accumulation
# ---------------------------------------------------------------------------------------------
def naive_sum(acc, add, n, value, convert=False):
    s = torch.tensor(0, dtype=acc)
    for _ in range(n):
        x = torch.tensor(value, dtype=add)
        if convert:
            x = x.type(acc)
        s += x
    return s


def kahan_sum(dtype, n, value):
    # Every variable a 0-dim tensor of `dtype`: each operation rounds to it.
    x = torch.tensor(value, dtype=dtype)
    s = torch.tensor(0, dtype=dtype)
    c = torch.tensor(0, dtype=dtype)
    for _ in range(n):
        y = x - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def pairwise_sum(values):
    # Recursive halving, first half n // 2 long: the C++ side's tree, node for node.
    n = values.shape[0]
    if n == 1:
        return values[0]
    half = n // 2
    return pairwise_sum(values[:half]) + pairwise_sum(values[half:])


def accumulation_rows(n=1000, value=0.01):
    f32 = torch.float32
    runs = [("fp32+=fp32", f32, "float32", "naive", lambda: naive_sum(f32, f32, n, value))]
    for low in (torch.float16, torch.bfloat16):
        s = SHORT[low]
        runs.append((f"{s}+={s}", low, dtype_name(low), "naive", lambda low=low: naive_sum(low, low, n, value)))
        runs.append((f"fp32+={s}", f32, dtype_name(low), "naive", lambda low=low: naive_sum(f32, low, n, value)))
        if low == torch.float16:
            runs.append(("fp32+=fp16->fp32", f32, "float16->float32", "naive",
                         lambda low=low: naive_sum(f32, low, n, value, convert=True)))
    for low in (torch.float16, torch.bfloat16):
        s = SHORT[low]
        runs.append((f"{s} kahan", low, dtype_name(low), "kahan", lambda low=low: kahan_sum(low, n, value)))
        runs.append((f"{s} pairwise", low, dtype_name(low), "pairwise",
                     lambda low=low: pairwise_sum(torch.full((n,), value, dtype=low))))
    rows = []
    exact = n * value
    for name, acc, addend, method, run in runs:
        result = run().item()
        rows.append(dict(case=name, accumulator=dtype_name(acc), addend=addend, method=method, additions=n,
                         result=g9(result), exact=g9(exact), abs_error=g9(abs(result - exact))))
    return rows


# ---------------------------------------------------------------------------------------------
# Autocast
# ---------------------------------------------------------------------------------------------
class ToyModel(nn.Module):
    """The handout's model, verbatim."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, 10, bias=False)
        self.ln = nn.LayerNorm(10)
        self.fc2 = nn.Linear(10, out_features, bias=False)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = self.relu(self.fc1(x))
        x = self.ln(x)
        x = self.fc2(x)
        return x


def toy_setup(args, device):
    model = ToyModel(TOY_IN, TOY_OUT).to(device)
    x = torch.randn(args.batch, TOY_IN).to(device)
    targets = torch.randint(TOY_OUT, (args.batch,)).to(device)
    return model, ["fc1", "relu", "ln", "fc2"], x, lambda logits: F.cross_entropy(logits, targets)


def transformer_setup(args, device):
    cfg = dict(rm.PRESETS[args.preset])
    cfg["vocab_size"] = args.vocab
    cfg["context_length"] = args.context_length
    model = rm.BasicsTransformerLM(cfg["vocab_size"], cfg["context_length"], cfg["d_model"], cfg["num_layers"],
                                   cfg["num_heads"], cfg["d_ff"], rm.ROPE_THETA, device=device)
    modules = ["token_embeddings"]
    for i in range(cfg["num_layers"]):
        modules += [f"layers.{i}.ln1", f"layers.{i}.attn", f"layers.{i}.ln2", f"layers.{i}.ffn", f"layers.{i}"]
    modules += ["ln_final", "lm_head"]
    tokens = torch.randint(args.vocab, (args.batch, args.context)).to(device)
    targets = torch.randint(args.vocab, (args.batch, args.context)).to(device)
    # The engine's loss (engine/model/loss.cpp): F.cross_entropy over all positions.
    loss = lambda logits: F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))  # noqa: E731
    return model, modules, tokens, loss


def autocast_active(device_type):
    try:
        return torch.is_autocast_enabled(device_type)  # PyTorch >= 2.4
    except TypeError:
        return torch.is_autocast_cpu_enabled() if device_type == "cpu" else torch.is_autocast_enabled()


def autocast_rows(model_name, precision, args):
    device = torch.device(args.device)
    torch.manual_seed(args.seed)
    setup = toy_setup if model_name == "toy" else transformer_setup
    model, module_names, inputs, loss_fn = setup(args, device)

    outputs = []  # in the order the hooks fire: execution order

    def hook(name):
        def record(_module, _inputs, output):
            outputs.append((f"{name} output", output.dtype))
        return record

    handles = [model.get_submodule(name).register_forward_hook(hook(name)) for name in module_names]
    rows = []
    with torch.autocast(device_type=device.type, dtype=DTYPES[precision]):
        # An unsupported dtype only warns and leaves autocast off: fp32 rows would look like an answer.
        if not autocast_active(device.type):
            raise RuntimeError(f"torch {torch.__version__} has no {dtype_name(DTYPES[precision])} autocast "
                               f"on {device.type}")
        for name, p in model.named_parameters():
            rows.append((name, "parameter", p.dtype))
        logits = model(inputs)
        loss = loss_fn(logits)
    loss.backward()
    for handle in handles:
        handle.remove()

    rows += [(name, "activation", dtype) for name, dtype in outputs]
    rows.append(("logits", "logits", logits.dtype))
    rows.append(("loss", "loss", loss.dtype))
    for name, p in model.named_parameters():
        rows.append((f"{name}.grad", "gradient", p.grad.dtype if p.grad is not None else None))
    return [dict(model=model_name, precision=precision, tensor=t, kind=k,
                 dtype=dtype_name(d) if d is not None else "none") for t, k, d in rows]


# ---------------------------------------------------------------------------------------------
def write(rows, columns, out):
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                        help="device for the autocast table (the accumulation runs on the CPU, as the handout's)")
    parser.add_argument("--precision", default="fp16,bf16", help="comma-separated: fp16, bf16")
    parser.add_argument("--model", default="toy,transformer", help="comma-separated: toy, transformer")
    parser.add_argument("--preset", default="tiny", choices=sorted(rm.PRESETS), help="transformer shape")
    parser.add_argument("--vocab", type=int, default=10000)
    parser.add_argument("--context-length", type=int, default=256, help="the transformer's context_length")
    parser.add_argument("--context", type=int, default=16, help="tokens per sequence fed to the transformer")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--accumulation-csv", help="write the accumulation table here instead of stdout")
    parser.add_argument("--autocast-csv", help="write the autocast table here instead of stdout")
    args = parser.parse_args()

    precisions = [p.strip() for p in args.precision.split(",") if p.strip()]
    models = [m.strip() for m in args.model.split(",") if m.strip()]
    for p in precisions:
        if p not in ("fp16", "bf16"):
            parser.error(f"unknown precision {p!r} (fp16 or bf16)")
    for m in models:
        if m not in ("toy", "transformer"):
            parser.error(f"unknown model {m!r} (toy or transformer)")
    print(f"# torch {torch.__version__}, autocast on {args.device}", file=sys.stderr)

    accumulation = accumulation_rows()
    autocast = []
    for m in models:
        for p in precisions:
            try:
                autocast += autocast_rows(m, p, args)
            except RuntimeError as e:  # e.g. no fp16 autocast, or a kernel refusing a dtype mix
                print(f"# {m} {p} on {args.device}: {str(e).splitlines()[0]}", file=sys.stderr)

    acc_cols = ["case", "accumulator", "addend", "method", "additions", "result", "exact", "abs_error"]
    cast_cols = ["model", "precision", "tensor", "kind", "dtype"]
    for rows, cols, path in ((accumulation, acc_cols, args.accumulation_csv), (autocast, cast_cols, args.autocast_csv)):
        if path:
            with open(path, "w", newline="") as f:
                write(rows, cols, f)
    if not args.accumulation_csv:
        write(accumulation, acc_cols, sys.stdout)
    if not args.autocast_csv:
        if not args.accumulation_csv:
            print()
        write(autocast, cast_cols, sys.stdout)


if __name__ == "__main__":
    main()
