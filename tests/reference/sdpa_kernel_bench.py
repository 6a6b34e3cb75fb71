#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention timed as `flash_kernel_check --bench` times our kernels.

Same shapes and types (batch 1, layout (batch, heads, seq, d)), same normal inputs, 3 warm-up runs
then 20 back-to-back repetitions between two CUDA events; the backward pass is
torch.autograd.grad on a retained graph (fresh gradients, nothing accumulated). Also the forward
timed after a synchronised backward, as the sweep's passes run. Prints one line per shape in
the kernel bench's format, so the two outputs line up in one device call.

usage: sdpa_kernel_bench.py                       (needs a CUDA device)
       sdpa_kernel_bench.py HEADS SEQ D causal|full [REPS [bf16|f16|f32]]  one shape (for ncu)
"""
import sys

import torch
import torch.nn.functional as F

SHAPES = [  # (heads, seq, head_dim, causal[, dtype]), the kernel bench's list
    (16, 16384, 64, True),
    (16, 8192, 64, True),
    (16, 4096, 128, True),
    (16, 8192, 128, True),
    (16, 16384, 128, True),
    (1, 65536, 128, True),
    (16, 4096, 128, False),
    (16, 1024, 64, True),
    (1, 1024, 64, True, "f32"),
    (1, 4096, 128, True, "f32"),
    (16, 4096, 64, True, "f32"),
    (16, 4096, 128, True, "f32"),
]
REPS = 20


def time_ms(run):
    for _ in range(3):
        run()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(REPS):
        run()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / REPS


DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def bench(heads, seq, d, causal, dtype="bf16"):
    g = torch.Generator(device="cuda").manual_seed(7)
    shape = (1, heads, seq, d)
    q, k, v, do = (torch.randn(shape, device="cuda", dtype=DTYPES[dtype], generator=g) for _ in range(4))
    q.requires_grad_(True)
    k.requires_grad_(True)
    v.requires_grad_(True)
    with torch.no_grad():
        fwd = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    bwd = time_ms(lambda: torch.autograd.grad(o, (q, k, v), do, retain_graph=True))
    after = 0.0
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(10):
        torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
        torch.cuda.synchronize()
        start.record()
        with torch.no_grad():
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        stop.record()
        stop.synchronize()
        after += start.elapsed_time(stop) / 10
    flops = 4.0 * heads * seq * seq * d * (0.5 if causal else 1.0)
    print(f"sdpa     {dtype} {'causal' if causal else 'full'} b=1 h={heads} s={seq} d={d} | "
          f"forward {fwd:.3f} ms {flops / fwd * 1e-9:.1f} TFLOP/s | backward {bwd:.3f} ms "
          f"{2.5 * flops / bwd * 1e-9:.1f} TFLOP/s | forward after a backward {after:.3f} ms", flush=True)


def main():
    if not torch.cuda.is_available():
        print("sdpa_kernel_bench.py: no CUDA device", file=sys.stderr)
        return 2
    global REPS
    if len(sys.argv) in (5, 6, 7):
        REPS = int(sys.argv[5]) if len(sys.argv) >= 6 else REPS
        dtype = sys.argv[6] if len(sys.argv) == 7 else "bf16"
        if dtype not in DTYPES:
            print(f"sdpa_kernel_bench.py: dtype is one of {', '.join(DTYPES)}", file=sys.stderr)
            return 2
        bench(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "causal", dtype)
        return 0
    for shape in SHAPES:
        bench(*shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
