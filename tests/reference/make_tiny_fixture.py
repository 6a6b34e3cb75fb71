#!/usr/bin/env python3
"""Write the tiny-model reference fixture used by the C++ tests.

Usage:
    /usr/bin/python3 tests/reference/make_tiny_fixture.py [--out tests/data/tiny_model] [--seed 1234]

Deterministic: the model is initialised with torch.manual_seed(seed) on CPU,
tokens/targets come from numpy.random.default_rng(seed).  Output (all small):

  config.json                 vocab_size, context_length, d_model, d_ff, num_layers, num_heads, rope_theta
  model.pt                    torch.save(model.state_dict())  (fp32, zipfile format)
  params/<key>.npy            the same fp32 parameters as .npy (to check the .pt loader)
  tokens.npy, targets.npy     int64 [2, 12]
  logits.npy                  float32 [2, 12, vocab]: computed with a float64 copy of the model
  logits_fp32.npy             float32 [2, 12, vocab]: computed by the fp32 model (what PyTorch fp32 gives)
  loss.json / loss.npy        loss computed in float64 (loss.npy: float64 scalar); loss.json also has the fp32 loss
  grads_fp64/<key>.npy        float64 gradients of the float64 loss w.r.t. each parameter
  model_after_adamw.pt        state_dict after ONE reference AdamW step (defaults) in float32
  adamw_fp32/<key>.npy        float32 parameters after that step (same values as model_after_adamw.pt)
  adamw_fp64/<key>.npy        float64 parameters after the same step done entirely in float64
  manifest.json               keys, shapes, file list, hyper-parameters, torch version, diagnostics

Parameter files are named <state_dict key>.npy, e.g. params/layers.0.attn.q_proj.weight.npy.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_model as rm  # noqa: E402

CONFIG = dict(vocab_size=97, context_length=16, d_model=32, d_ff=96, num_layers=2, num_heads=4,
              rope_theta=10000.0)
BATCH, SEQ = 2, 12
ADAMW = dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)


def build(seed: int) -> rm.BasicsTransformerLM:
    torch.manual_seed(seed)
    c = CONFIG
    return rm.BasicsTransformerLM(c["vocab_size"], c["context_length"], c["d_model"], c["num_layers"],
                                  c["num_heads"], c["d_ff"], c["rope_theta"])


def save_tensor_dir(path: str, tensors: dict, dtype) -> None:
    os.makedirs(path, exist_ok=True)
    for old in os.listdir(path):
        if old.endswith(".npy"):
            os.remove(os.path.join(path, old))
    for k, v in tensors.items():
        np.save(os.path.join(path, k + ".npy"), v.detach().cpu().numpy().astype(dtype))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "data", "tiny_model")))
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)  # deterministic CPU reductions

    model = build(args.seed)
    keys = list(model.state_dict().keys())
    assert keys == rm.expected_state_dict_keys(CONFIG["num_layers"]), keys

    rng = np.random.default_rng(args.seed)
    tokens_np = rng.integers(0, CONFIG["vocab_size"], size=(BATCH, SEQ), dtype=np.int64)
    targets_np = rng.integers(0, CONFIG["vocab_size"], size=(BATCH, SEQ), dtype=np.int64)
    tokens = torch.from_numpy(tokens_np)
    targets = torch.from_numpy(targets_np)

    # ---- checkpoint + inputs ------------------------------------------------
    torch.save(model.state_dict(), os.path.join(args.out, "model.pt"))
    save_tensor_dir(os.path.join(args.out, "params"), model.state_dict(), np.float32)
    np.save(os.path.join(args.out, "tokens.npy"), tokens_np)
    np.save(os.path.join(args.out, "targets.npy"), targets_np)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
        f.write("\n")

    # ---- float64 reference: logits, loss, grads, one AdamW step --------------
    model64 = rm.float64_copy(model)
    logits64 = model64(tokens)
    loss64 = rm.cross_entropy(logits64, targets)
    loss64.backward()
    grads64 = {k: p.grad.detach().clone() for k, p in model64.named_parameters()}
    opt64 = rm.AdamW(model64.parameters(), **ADAMW)
    opt64.step()
    after64 = {k: v.detach().clone() for k, v in model64.state_dict().items()}

    np.save(os.path.join(args.out, "logits.npy"), logits64.detach().numpy().astype(np.float32))
    np.save(os.path.join(args.out, "loss.npy"), np.array(loss64.item(), dtype=np.float64))
    save_tensor_dir(os.path.join(args.out, "grads_fp64"), grads64, np.float64)
    save_tensor_dir(os.path.join(args.out, "adamw_fp64"), after64, np.float64)

    # ---- float32 "as a user would": forward, loss, backward, one AdamW step --
    logits32 = model(tokens)
    loss32 = rm.cross_entropy(logits32, targets)
    np.save(os.path.join(args.out, "logits_fp32.npy"), logits32.detach().numpy().astype(np.float32))
    opt = rm.AdamW(model.parameters(), **ADAMW)
    model.zero_grad(set_to_none=True)
    loss32.backward()
    grads32 = {k: p.grad.detach().clone() for k, p in model.named_parameters()}
    opt.step()
    after32 = model.state_dict()
    torch.save(after32, os.path.join(args.out, "model_after_adamw.pt"))
    save_tensor_dir(os.path.join(args.out, "adamw_fp32"), after32, np.float32)

    # ---- diagnostics --------------------------------------------------------
    l64 = logits64.detach()
    logits_rel = ((logits32.detach().double() - l64).norm() / l64.norm()).item()
    worst_adamw = max((after32[k].double() - after64[k]).abs().max().item() for k in keys)
    worst_grad_rel = max(((grads32[k].double() - grads64[k]).norm() / grads64[k].norm().clamp_min(1e-300)).item()
                         for k in keys)
    min_abs_grad = min(g[g != 0].abs().min().item() for g in grads64.values() if (g != 0).any())
    zero_grad_elems = int(sum((g == 0).sum().item() for g in grads64.values()))

    with open(os.path.join(args.out, "loss.json"), "w") as f:
        json.dump({"loss_fp64": loss64.item(), "loss_fp32": loss32.item(),
                   "note": "mean over all positions of -log_softmax(logits)[target]; loss_fp64 from a float64 "
                           "copy of model.pt, loss_fp32 from the fp32 model"}, f, indent=2)
        f.write("\n")

    manifest = {
        "description": "Tiny BasicsTransformerLM reference fixture (see tests/reference/make_tiny_fixture.py)",
        "seed": args.seed,
        "torch_version": torch.__version__,
        "numpy_version": np.__version__,
        "config": CONFIG,
        "batch": BATCH,
        "seq": SEQ,
        "adamw": {"lr": ADAMW["lr"], "betas": list(ADAMW["betas"]), "eps": ADAMW["eps"],
                  "weight_decay": ADAMW["weight_decay"], "steps": 1},
        "keys": keys,
        "shapes": {k: list(v.shape) for k, v in after32.items()},
        "files": {
            "checkpoint": "model.pt",
            "checkpoint_after_adamw": "model_after_adamw.pt",
            "params_fp32_dir": "params",
            "tokens": "tokens.npy",
            "targets": "targets.npy",
            "logits_from_fp64": "logits.npy",
            "logits_from_fp32": "logits_fp32.npy",
            "loss": "loss.json",
            "loss_fp64_npy": "loss.npy",
            "grads_fp64_dir": "grads_fp64",
            "adamw_fp32_dir": "adamw_fp32",
            "adamw_fp64_dir": "adamw_fp64",
        },
        "diagnostics": {
            "fp32_vs_fp64_logits_rel_err": logits_rel,
            "fp32_vs_fp64_loss_abs_err": abs(loss32.item() - loss64.item()),
            "fp32_vs_fp64_grad_worst_rel_err": worst_grad_rel,
            "fp32_vs_fp64_adamw_worst_abs_err": worst_adamw,
            "min_nonzero_abs_grad_fp64": min_abs_grad,
            "exactly_zero_grad_elements": zero_grad_elems,
        },
        "suggested_tolerances": {
            "logits_rel_err": 1e-5,
            "loss_abs_err": 1e-5,
            "grads_rel_err_per_tensor": 1e-4,
            "adamw_abs_err": 2e-5,
            "note": "the first AdamW step is ~lr*sign(g) except where |g| ~ eps/sqrt(1-b2) ~ 3e-7 "
                    "(eps regime): there fp32 gradient noise moves the update by a few 1e-6",
        },
    }
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")

    print(f"wrote fixture to {args.out}")
    print(f"  loss fp64 {loss64.item():.10f}  fp32 {loss32.item():.10f}")
    for k, v in manifest["diagnostics"].items():
        print(f"  {k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
