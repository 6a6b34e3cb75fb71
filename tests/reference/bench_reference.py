#!/usr/bin/env python3
"""PyTorch side of the Stepscope benchmark table: eager, and torch.compile for the seeds' torch_compile.

Same protocol as `stepscope-cli bench`:

    python3 tests/reference/bench_reference.py --model small,medium --context 256 --batch 4 \
        --precision fp32,bf16 --mode forward,forward-backward,train --warmup 5 --steps 10 \
        --device cuda [--csv out.csv] [--seed 0] [--variant reference|fused|mirror|compile|
        compile-reduce-overhead] [--compile-loss] [--optimizer reference|torch-fused]

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
CSV columns: see COLUMNS below (empty string for phases a mode does not have);
the last six say what ran: variant, compiled ("-", "model" or "model+loss"), optimizer,
warmup (warm-up steps run), warmup_s (their wall time, compilation included) and message.

Variants (--variant; the model and update rule are the course's in every one):
  reference  the course's model and per-parameter AdamW, as written (eager).
  fused      torch.softmax, F.cross_entropy and a multi-tensor AdamW with the same rule.
  mirror     the engine's operators and chunked AdamW (engine_mirror.py).
  compile    the seeds' torch_compile problem (b): the reference model wrapped as
             torch.compile(model); the loss (the course's cross-entropy) and the
             reference AdamW stay eager, outside the compiled region.
  compile-reduce-overhead
             the same with torch.compile(model, mode="reduce-overhead"): Inductor plus
             CUDA graphs (cudagraph trees) for the forward and the backward.
Compile variants need PyTorch 2 (they exit with status 2 and "torch.compile needs
PyTorch 2" on 1.x).  Their protocol, beside the common one above:
  * the compiled module is made once per configuration (torch._dynamo.reset() between
    configurations, so each compiles afresh; Inductor's on-disk caches are kept);
  * compilation happens at the first call, so it is inside the warm-up: at least 3
    warm-up steps are run (--warmup is raised to 3 when lower), so that with
    reduce-overhead cudagraph trees also warm up (step 1), record (step 2) and replay
    (step 3 on) before the measured steps; warmup_s reports the warm-up's wall time,
    compilation included;
  * reduce-overhead: torch.compiler.cudagraph_mark_step_begin() before each step's
    forward, so each step is a new cudagraph generation.  No output is cloned: the
    logits (or the loss) are consumed within their step, and the gradients that the
    replayed backward leaves in p.grad are read by the optimizer in the same step and
    dropped by zero_grad(set_to_none=True) before the next replay overwrites them;
  * --compile-loss compiles model + loss as one function (the course's cross-entropy
    fused into the graph) instead of the model alone; the CSV's `compiled` column says
    which ("model" or "model+loss");
  * a compilation error other than OOM writes a row with status "failed" and the error
    in `message` and goes on to the next configuration; graphs compiled during the
    measured steps (a recompilation) are reported in `message`.
--optimizer reference|torch-fused (any variant): reference = the variant's own AdamW
(the course's per-parameter AdamW for reference and the compile variants, uncompiled,
as the seeds' problem measures it); torch-fused = torch.optim.AdamW(fused=True) with the
same hyper-parameters (lr 1e-3, betas 0.9/0.999, eps 1e-8, weight decay 0.01): PyTorch's
fused multi-tensor kernel (_fused_adamw_), for timing the compiled model with a fast
optimizer.  Its update differs from the reference's in two small ways that do not change
the work (it is a timing option, not a correctness reference):
PyTorch decays first, p *= 1 - lr*wd, then p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps);
the reference steps first, p -= lr*sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps), then
decays, p -= lr*wd*p (so its decay also scales the step by 1 - lr*wd, and its eps
acts as eps/sqrt(1-b2^t) in PyTorch's form).  Same bytes and arithmetic per parameter.
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
           "optimizer_mean_ms", "optimizer_std_ms", "tokens_per_s", "peak_memory_bytes",
           # what ran: the variant, what torch.compile wrapped ("-" for eager variants), the
           # optimizer, the warm-up steps run and their wall time (compilation included), a note
           "variant", "compiled", "optimizer", "warmup", "warmup_s", "message"]
MODES = ("forward", "forward-backward", "train")
VARIANTS = ("reference", "fused", "mirror", "compile", "compile-reduce-overhead")
COMPILE_VARIANTS = ("compile", "compile-reduce-overhead")
OPTIMIZERS = ("reference", "torch-fused")
MIN_COMPILE_WARMUP = 3  # compile at step 1; reduce-overhead: cudagraph warm-up, record, then replay
PRECISIONS = ("fp32", "bf16")

_OOM_TYPES = tuple(t for t in (getattr(torch.cuda, "OutOfMemoryError", None),
                               getattr(torch, "OutOfMemoryError", None)) if t is not None)


def is_oom(exc: BaseException) -> bool:
    """OOM, also when torch.compile wraps it (BackendCompilerFailed and the like chain it)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if _OOM_TYPES and isinstance(exc, _OOM_TYPES):
            return True
        if isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower():
            return True
        exc = exc.__cause__ or exc.__context__
    return False


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


def compile_unsupported():
    """Why torch.compile cannot run here (None when it can)."""
    try:
        major = int(torch.__version__.split(".")[0])
    except ValueError:
        major = 0
    if major < 2 or not hasattr(torch, "compile"):
        return f"torch.compile needs PyTorch 2 (this is torch {torch.__version__})"
    return None


def torch_fused_adamw(params):
    """PyTorch's AdamW as one fused multi-tensor kernel, with the reference's hyper-parameters."""
    return torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, fused=True)


def torch_fused_unsupported(device: torch.device):
    """Why torch.optim.AdamW(fused=True) cannot run on `device` (None when one step on a tiny tensor works)."""
    try:
        p = torch.zeros(4, device=device, requires_grad=True)
        p.grad = torch.ones_like(p)
        torch_fused_adamw([p]).step()
    except (TypeError, RuntimeError, ValueError) as exc:
        return (f"--optimizer torch-fused needs torch.optim.AdamW(fused=True) on {device.type} (PyTorch 2.0+ on "
                f"CUDA, 2.4+ on the CPU; this is torch {torch.__version__}): {str(exc).splitlines()[0][:160]}")
    return None


def cudagraph_step_marker():
    """torch.compiler.cudagraph_mark_step_begin (or its older home in Inductor)."""
    mark = getattr(getattr(torch, "compiler", None), "cudagraph_mark_step_begin", None)
    if mark is None:
        from torch._inductor import cudagraph_trees  # PyTorch 2.0
        mark = cudagraph_trees.mark_step_begin
    return mark


def compiled_graph_count():
    """Graphs Dynamo has compiled in this process (None where the counter is not there)."""
    try:
        from torch._dynamo.utils import counters
        return int(counters["stats"]["unique_graphs"])
    except Exception:  # noqa: BLE001 -- a private counter; only informative
        return None


def build_loss_fn(model, variant, compile_loss):
    """(x, y) -> loss for one configuration, and what torch.compile wraps ("-", "model" or "model+loss").

    Eager variants and the seeds' compile protocol look the cross-entropy up once, here; the
    compile variants wrap the model alone (loss eager, outside the compiled region) unless
    compile_loss, which compiles the model and the loss as one function."""
    cross_entropy = rm.cross_entropy
    if variant not in COMPILE_VARIANTS:
        return (lambda x, y: cross_entropy(model(x), y)), "-"
    options = {"mode": "reduce-overhead"} if variant == "compile-reduce-overhead" else {}
    if compile_loss:
        def model_and_loss(x, y):
            return cross_entropy(model(x), y)
        return torch.compile(model_and_loss, **options), "model+loss"
    compiled_model = torch.compile(model, **options)
    return (lambda x, y: cross_entropy(compiled_model(x), y)), "model"


def run_config(size, context, batch, precision, mode, warmup, steps, device, seed, variant="reference",
               compile_loss=False, optimizer_name="reference"):
    """Times one configuration; returns (total_ms, phase_ms, peak, info) where info holds
    warmup (the steps run), warmup_s (their wall time, compilation included) and message."""
    cfg = rm.PRESETS[size]
    torch.manual_seed(seed)
    model = rm.BasicsTransformerLM(cfg["vocab_size"], max(context, cfg["context_length"]), cfg["d_model"],
                                   cfg["num_layers"], cfg["num_heads"], cfg["d_ff"], rm.ROPE_THETA,
                                   device=device, dtype=torch.float32)
    optimizer = torch_fused_adamw(model.parameters()) if optimizer_name == "torch-fused" \
        else rm.AdamW(model.parameters())
    loss_fn, _ = build_loss_fn(model, variant, compile_loss)
    mark_step = cudagraph_step_marker() if variant == "compile-reduce-overhead" else None
    if variant in COMPILE_VARIANTS and warmup < MIN_COMPILE_WARMUP:
        log(f"    warm-up raised from {warmup} to {MIN_COMPILE_WARMUP} steps (compilation and CUDA-graph recording)")
        warmup = MIN_COMPILE_WARMUP
    gen = torch.Generator(device=device)
    gen.manual_seed(seed + 1)
    x = torch.randint(0, cfg["vocab_size"], (batch, context), device=device, dtype=torch.int64, generator=gen)
    y = torch.randint(0, cfg["vocab_size"], (batch, context), device=device, dtype=torch.int64, generator=gen)
    cuda = device.type == "cuda"
    timer = Timer(device)
    n_phases = {"forward": 1, "forward-backward": 2, "train": 3}[mode]
    phase_ms = [[] for _ in range(n_phases)]
    total_ms = []
    info = dict(warmup=warmup, warmup_s=0.0, message="")
    graphs_before = None
    warmup_start = time.perf_counter()

    for step in range(warmup + steps):
        if step == warmup:
            if cuda:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
            info["warmup_s"] = time.perf_counter() - warmup_start
            graphs_before = compiled_graph_count() if variant in COMPILE_VARIANTS else None
        model.zero_grad(set_to_none=True)
        if mark_step is not None:
            mark_step()  # a new cudagraph generation: last step's outputs may be overwritten
        timer.new_step()
        timer.mark()
        if precision == "bf16":
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                loss = loss_fn(x, y)
        else:
            loss = loss_fn(x, y)
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
    if graphs_before is not None:
        graphs_after = compiled_graph_count()
        if graphs_after is not None and graphs_after > graphs_before:
            info["message"] = f"{graphs_after - graphs_before} graph(s) compiled during the measured steps"
            log(f"    warning: {info['message']}")
    return total_ms, phase_ms, peak, info


def stats(values):
    std = statistics.stdev(values) if len(values) > 1 else float("nan")
    return dict(mean=statistics.mean(values), std=std, min=min(values), median=statistics.median(values),
                max=max(values))


def make_row(size, context, batch, precision, mode, status, total_ms=None, phase_ms=None, peak=None, info=None):
    """info: variant, compiled, optimizer, warmup, warmup_s, message (any subset)."""
    row = {c: "" for c in COLUMNS}
    row.update(model=size, context=context, batch=batch, precision=precision, mode=mode, status=status)
    for k, v in (info or {}).items():
        if k in row:
            row[k] = fmt(v, 1) if k == "warmup_s" else str(v)
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


def free_memory(device: torch.device, compiled: bool = False) -> None:
    if compiled:
        import torch._dynamo  # noqa: F401 -- lazily imported by torch
        torch._dynamo.reset()  # the next configuration compiles afresh; frees cudagraph trees' pools
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
    ap.add_argument("--variant", default="reference", choices=VARIANTS,
                    help="reference: the staff code's hand-written softmax, cross-entropy and per-parameter AdamW; "
                         "fused: torch.softmax, F.cross_entropy and a multi-tensor AdamW with the same rule; "
                         "mirror: the engine's operators and chunked AdamW (engine_mirror.py); "
                         "compile: torch.compile(reference model), loss and AdamW eager (the seeds' torch_compile); "
                         "compile-reduce-overhead: torch.compile(model, mode='reduce-overhead') (CUDA graphs)")
    ap.add_argument("--compile-loss", action="store_true",
                    help="compile variants: compile model + cross-entropy as one function instead of the model alone")
    ap.add_argument("--optimizer", default="reference", choices=OPTIMIZERS,
                    help="reference: the variant's own AdamW (the course's per-parameter one for reference and "
                         "compile); torch-fused: torch.optim.AdamW(fused=True), same hyper-parameters")
    args = ap.parse_args()
    compiling = args.variant in COMPILE_VARIANTS
    if compiling:
        why = compile_unsupported()
        if why:
            ap.error(f"--variant {args.variant}: {why}")
    elif args.compile_loss:
        ap.error("--compile-loss needs --variant compile or compile-reduce-overhead")
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
    if args.optimizer == "torch-fused":
        why = torch_fused_unsupported(device)
        if why:
            ap.error(why)
    tf32 = rm.disable_tf32()
    compiled_what = "-" if not compiling else ("model+loss" if args.compile_loss else "model")
    info = dict(variant=args.variant, compiled=compiled_what, optimizer=args.optimizer)
    log(f"bench_reference: torch {torch.__version__}, device {device}"
        + (f" ({torch.cuda.get_device_name()})" if device.type == "cuda" else "") + f", {tf32}; "
        + f"variant {args.variant}, compiled {compiled_what}, optimizer {args.optimizer}")

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
                        failure = None  # (status, message)
                        row = None
                        warmup = max(args.warmup, MIN_COMPILE_WARMUP) if compiling else args.warmup
                        try:
                            total_ms, phase_ms, peak, run_info = run_config(
                                size, context, args.batch, precision, mode, args.warmup, args.steps, device,
                                args.seed, variant=args.variant, compile_loss=args.compile_loss,
                                optimizer_name=args.optimizer)
                            row = make_row(size, context, args.batch, precision, mode, "ok", total_ms,
                                           phase_ms, peak, dict(info, **run_info))
                        except Exception as exc:  # noqa: BLE001
                            first_line = (str(exc).strip().splitlines() or [""])[0][:300]
                            if is_oom(exc):
                                failure = ("OOM", "")
                                log(f"    OOM: {first_line[:200]}")
                            elif compiling:  # a compiler error: keep the row, go on
                                failure = ("failed", f"{type(exc).__name__}: {first_line}")
                                log(f"    failed: {failure[1]}")
                            else:
                                raise
                        # the exception (and the frames holding model/optimizer) is released here
                        if failure:
                            n_fail += 1
                            row = make_row(size, context, args.batch, precision, mode, failure[0],
                                           info=dict(info, warmup=warmup, message=failure[1]))
                        free_memory(device, compiled=compiling)
                        writer.writerow(row)
                        out.flush()
                        if row["status"] == "ok":
                            log(f"    total {row['total_mean_ms']} ± {row['total_std_ms']} ms, "
                                f"{row['tokens_per_s']} tokens/s, peak {row['peak_memory_bytes'] or '-'} B"
                                + (f", warm-up {row['warmup_s']} s" if compiling else ""))
    finally:
        if out is not sys.stdout:
            out.close()
    log(f"done ({n_fail} OOM or failed row(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
