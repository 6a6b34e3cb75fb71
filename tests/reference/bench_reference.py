#!/usr/bin/env python3
"""PyTorch-eager side of the Stepscope benchmark table.

Same protocol as `stepscope-cli bench`:

    python3 tests/reference/bench_reference.py --model small,medium --context 256 --batch 4 \
        --precision fp32,bf16 --mode forward,forward-backward,train --warmup 5 --steps 10 \
        --device cuda [--csv out.csv] [--seed 0]

Per configuration: build the reference model (fp32 parameters) and the
reference AdamW, a seeded random int64 batch (torch.randint over the vocab),
then for every step (warm-up steps first, not recorded):
    model.zero_grad(set_to_none=True)                      (untimed)
    e0; forward + loss; e1; [loss.backward(); e2]; [optimizer.step(); e3]
    torch.cuda.synchronize()
forward      = forward + loss with autograd enabled (no backward)
forward-backward = + backward;  train = + optimizer step.
bf16 = torch.autocast('cuda', dtype=torch.bfloat16) around forward + loss
only (fp32 master weights).  Phase time = event difference; total = last
event - e0.  torch.cuda.reset_peak_memory_stats() after the warm-up;
peak = torch.cuda.max_memory_allocated() after the measured steps.  TF32 off.
Statistics over the measured steps: mean, sample std (n-1), min, median, max (ms).
OOM -> a row with status OOM, memory freed, next configuration.
--device cpu uses time.perf_counter (peak memory left empty).
CSV columns: see COLUMNS below (empty string for phases a mode does not have).
"""

import argparse
import csv
import gc
import math
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_model as rm  # noqa: E402
import engine_mirror  # noqa: E402

COLUMNS = ["model", "context", "batch", "precision", "mode", "status",
           "total_mean_ms", "total_std_ms", "total_min_ms", "total_median_ms", "total_max_ms",
           "forward_mean_ms", "forward_std_ms", "backward_mean_ms", "backward_std_ms",
           "optimizer_mean_ms", "optimizer_std_ms", "tokens_per_s", "peak_memory_bytes"]
MODES = ("forward", "forward-backward", "train")
PRECISIONS = ("fp32", "bf16")

_OOM_TYPES = tuple(t for t in (getattr(torch.cuda, "OutOfMemoryError", None),
                               getattr(torch, "OutOfMemoryError", None)) if t is not None)


def is_oom(exc: BaseException) -> bool:
    if _OOM_TYPES and isinstance(exc, _OOM_TYPES):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def fmt(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}"


class Timer:
    """Marks points in a step: CUDA events on a GPU, perf_counter on the CPU."""

    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"

    def new_step(self):
        self.marks = []

    def mark(self):
        if self.cuda:
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            self.marks.append(e)
        else:
            self.marks.append(time.perf_counter())

    def finish(self):
        """Synchronise and return the phase durations (ms) between consecutive marks and the total."""
        if self.cuda:
            torch.cuda.synchronize()
            phases = [self.marks[i].elapsed_time(self.marks[i + 1]) for i in range(len(self.marks) - 1)]
            total = self.marks[0].elapsed_time(self.marks[-1])
        else:
            phases = [(self.marks[i + 1] - self.marks[i]) * 1e3 for i in range(len(self.marks) - 1)]
            total = (self.marks[-1] - self.marks[0]) * 1e3
        return phases, total


class ForeachAdamW(torch.optim.Optimizer):
    """The reference update rule (decay after the Adam step) with multi-tensor kernels."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay))
        self.t = 0

    @torch.no_grad()
    def step(self, closure=None):
        self.t += 1
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            grads = [p.grad for p in params]
            for p in params:
                if not self.state[p]:
                    self.state[p]["m"] = torch.zeros_like(p)
                    self.state[p]["v"] = torch.zeros_like(p)
            m = [self.state[p]["m"] for p in params]
            v = [self.state[p]["v"] for p in params]
            b1, b2 = group["betas"]
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            torch._foreach_mul_(m, b1)
            torch._foreach_add_(m, grads, alpha=1 - b1)
            torch._foreach_mul_(v, b2)
            torch._foreach_addcmul_(v, grads, grads, value=1 - b2)
            step_size = lr * math.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
            denom = torch._foreach_sqrt(v)
            torch._foreach_add_(denom, eps)
            torch._foreach_addcdiv_(params, m, denom, value=-step_size)
            torch._foreach_mul_(params, 1 - lr * wd)


def use_fused_variant():
    """Same model and update rule, with PyTorch's fused softmax and cross-entropy: isolates
    what Python dispatch costs from what the reference's hand-written kernels cost."""
    rm.softmax = lambda x, dim=-1: torch.softmax(x, dim=dim)
    rm.cross_entropy = lambda logits, targets: torch.nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
    rm.AdamW = ForeachAdamW


def use_mirror_variant():
    """The engine's own operators and chunked AdamW (engine_mirror.py): the same kernels and
    allocations as the engine, for comparing peak memory like for like."""
    use_fused_variant()
    rm.BasicsTransformerLM = lambda vocab, context, d_model, layers, heads, d_ff, theta, device, dtype: \
        engine_mirror.EngineMirrorLM(dict(vocab_size=vocab, d_model=d_model, num_layers=layers, num_heads=heads,
                                          d_ff=d_ff, context_length=context), context, device)
    rm.AdamW = engine_mirror.ChunkedAdamW


def run_config(size, context, batch, precision, mode, warmup, steps, device, seed):
    cfg = rm.PRESETS[size]
    torch.manual_seed(seed)
    model = rm.BasicsTransformerLM(cfg["vocab_size"], max(context, cfg["context_length"]), cfg["d_model"],
                                   cfg["num_layers"], cfg["num_heads"], cfg["d_ff"], rm.ROPE_THETA,
                                   device=device, dtype=torch.float32)
    optimizer = rm.AdamW(model.parameters())
    gen = torch.Generator(device=device)
    gen.manual_seed(seed + 1)
    x = torch.randint(0, cfg["vocab_size"], (batch, context), device=device, dtype=torch.int64, generator=gen)
    y = torch.randint(0, cfg["vocab_size"], (batch, context), device=device, dtype=torch.int64, generator=gen)
    cuda = device.type == "cuda"
    timer = Timer(device)
    n_phases = {"forward": 1, "forward-backward": 2, "train": 3}[mode]
    phase_ms = [[] for _ in range(n_phases)]
    total_ms = []

    for step in range(warmup + steps):
        if step == warmup:
            if cuda:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
        model.zero_grad(set_to_none=True)
        timer.new_step()
        timer.mark()
        if precision == "bf16":
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                loss = rm.cross_entropy(model(x), y)
        else:
            loss = rm.cross_entropy(model(x), y)
        timer.mark()
        if mode != "forward":
            loss.backward()
            timer.mark()
        if mode == "train":
            optimizer.step()
            timer.mark()
        phases, total = timer.finish()
        del loss
        if step >= warmup:
            for i, p in enumerate(phases):
                phase_ms[i].append(p)
            total_ms.append(total)
        log(f"    step {step + 1}/{warmup + steps}{' (warm-up)' if step < warmup else ''}: {total:.3f} ms")

    peak = torch.cuda.max_memory_allocated() if cuda else None
    return total_ms, phase_ms, peak


def stats(values):
    std = statistics.stdev(values) if len(values) > 1 else float("nan")
    return dict(mean=statistics.mean(values), std=std, min=min(values), median=statistics.median(values),
                max=max(values))


def make_row(size, context, batch, precision, mode, status, total_ms=None, phase_ms=None, peak=None):
    row = {c: "" for c in COLUMNS}
    row.update(model=size, context=context, batch=batch, precision=precision, mode=mode, status=status)
    if status != "ok":
        return row
    t = stats(total_ms)

    def f(v):
        return "" if v != v else fmt(v)  # NaN (single step) -> empty

    row.update(total_mean_ms=f(t["mean"]), total_std_ms=f(t["std"]), total_min_ms=f(t["min"]),
               total_median_ms=f(t["median"]), total_max_ms=f(t["max"]))
    for name, values in zip(("forward", "backward", "optimizer"), phase_ms):
        s = stats(values)
        row[f"{name}_mean_ms"] = f(s["mean"])
        row[f"{name}_std_ms"] = f(s["std"])
    row["tokens_per_s"] = fmt(batch * context / (t["mean"] / 1000.0), 1)
    row["peak_memory_bytes"] = "" if peak is None else str(int(peak))
    return row


def free_memory(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def split_list(s: str):
    return [p.strip() for p in s.split(",") if p.strip()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="small", help=f"comma list of presets: {','.join(rm.PRESETS)}")
    ap.add_argument("--context", default="256", help="context length (comma list allowed)")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--precision", default="fp32", help="comma list of fp32,bf16")
    ap.add_argument("--mode", default="forward,forward-backward,train", help="comma list of " + ",".join(MODES))
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--csv", default=None, help="output CSV file (default: stdout)")
    ap.add_argument("--variant", default="reference", choices=["reference", "fused", "mirror"],
                    help="reference: the staff code's hand-written softmax, cross-entropy and per-parameter AdamW; "
                         "fused: torch.softmax, F.cross_entropy and a multi-tensor AdamW with the same rule; "
                         "mirror: the engine's operators and chunked AdamW (engine_mirror.py)")
    args = ap.parse_args()
    if args.variant == "fused":
        use_fused_variant()
    elif args.variant == "mirror":
        use_mirror_variant()

    sizes = split_list(args.model)
    contexts = [int(c) for c in split_list(args.context)]
    precisions = split_list(args.precision)
    modes = split_list(args.mode)
    for s in sizes:
        if s not in rm.PRESETS:
            ap.error(f"unknown model {s!r}; choose from {', '.join(rm.PRESETS)}")
    for p in precisions:
        if p not in PRECISIONS:
            ap.error(f"unknown precision {p!r}")
    for m in modes:
        if m not in MODES:
            ap.error(f"unknown mode {m!r}")
    if args.steps < 1:
        ap.error("--steps must be >= 1")

    device = torch.device(args.device)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            ap.error("CUDA is not available (use --device cpu)")
        torch.cuda.set_device(device.index or 0)
    tf32 = rm.disable_tf32()
    log(f"bench_reference: torch {torch.__version__}, device {device}"
        + (f" ({torch.cuda.get_device_name()})" if device.type == "cuda" else "") + f", {tf32}")

    out = open(args.csv, "w", newline="") if args.csv else sys.stdout
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    out.flush()
    n_fail = 0
    try:
        for size in sizes:
            for context in contexts:
                for precision in precisions:
                    for mode in modes:
                        log(f"[{size} ctx={context} batch={args.batch} {precision} {mode}] "
                            f"warmup {args.warmup}, steps {args.steps}")
                        oom = False
                        row = None
                        try:
                            total_ms, phase_ms, peak = run_config(size, context, args.batch, precision, mode,
                                                                  args.warmup, args.steps, device, args.seed)
                            row = make_row(size, context, args.batch, precision, mode, "ok", total_ms,
                                           phase_ms, peak)
                        except Exception as exc:  # noqa: BLE001
                            if not is_oom(exc):
                                raise
                            oom = True
                            log(f"    OOM: {str(exc).splitlines()[0][:200]}")
                        # the exception (and the frames holding model/optimizer) is released here
                        if oom:
                            n_fail += 1
                            row = make_row(size, context, args.batch, precision, mode, "OOM")
                        free_memory(device)
                        writer.writerow(row)
                        out.flush()
                        if row["status"] == "ok":
                            log(f"    total {row['total_mean_ms']} ± {row['total_std_ms']} ms, "
                                f"{row['tokens_per_s']} tokens/s, peak {row['peak_memory_bytes'] or '-'} B")
    finally:
        if out is not sys.stdout:
            out.close()
    log(f"done ({n_fail} OOM row(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
