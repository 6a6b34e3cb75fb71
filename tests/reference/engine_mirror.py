"""The engine's model and optimizer, op for op, in PyTorch: for checks that need both sides
to run the same kernels and make the same allocations (kernel summaries, peak memory).

- EngineMirrorLM: the engine's TransformerLM (engine/model/*.cpp): F.linear, its RMSNorm and
  RoPE arithmetic, in-place -inf masking, torch.softmax, F.silu; its range names as
  record_function annotations (free when no profiler runs).
- ChunkedAdamW: engine/model/adamw.cpp: the reference update rule with multi-tensor kernels
  over chunks of at most 128M elements, so its temporaries stay about one parameter's size.
Initial values are not the engine's (they do not change kernels or allocations).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import reference_model as rm

record = torch.profiler.record_function


def weight(*shape, device):
    return nn.Parameter(torch.randn(*shape, device=device) * 0.02)


class RMSNorm(nn.Module):
    def __init__(self, d, device):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d, device=device))

    def forward(self, x):
        x32 = x.to(torch.float32)
        inv_rms = torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-5)
        return (self.weight * (x32 * inv_rms)).to(x.dtype)


class Rope:
    def __init__(self, context, d_head, device):
        exponents = torch.arange(0, d_head, 2, dtype=torch.float32) / d_head
        angles = torch.outer(torch.arange(context, dtype=torch.float32), torch.pow(rm.ROPE_THETA, -exponents))
        self.cos, self.sin = torch.cos(angles).to(device), torch.sin(angles).to(device)

    def __call__(self, x):
        s = x.shape[-2]
        cos, sin = self.cos.narrow(0, 0, s), self.sin.narrow(0, 0, s)
        even, odd = x[..., 0::2], x[..., 1::2]
        return torch.stack([cos * even - sin * odd, sin * even + cos * odd], -1).flatten(-2).to(x.dtype)


class Block(nn.Module):
    def __init__(self, d_model, d_ff, heads, device):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (weight(d_model, d_model, device=device) for _ in range(4))
        self.w1, self.w3 = weight(d_ff, d_model, device=device), weight(d_ff, d_model, device=device)
        self.w2 = weight(d_model, d_ff, device=device)
        self.ln1, self.ln2 = RMSNorm(d_model, device), RMSNorm(d_model, device)

    def attention(self, x, rope, future):
        b, s, d = x.shape
        d_head = d // self.heads
        split = lambda t: t.view(b, s, self.heads, d_head).transpose(1, 2)  # noqa: E731
        q, k, v = rope(split(F.linear(x, self.q))), rope(split(F.linear(x, self.k))), split(F.linear(x, self.v))
        with record("attention scores"):
            scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_head)
            scores.masked_fill_(future, float("-inf"))
        with record("softmax"):
            probabilities = torch.softmax(scores, -1)
        with record("final matmul"):
            mixed = torch.matmul(probabilities, v)
        return F.linear(mixed.transpose(1, 2).reshape(b, s, d), self.o)

    def forward(self, x, rope, future):
        with record("norm"):
            normed = self.ln1(x)
        with record("attention"):
            h = x + self.attention(normed, rope, future)
        with record("norm"):
            normed = self.ln2(h)
        with record("feed-forward"):
            return h + F.linear(F.silu(F.linear(normed, self.w1)) * F.linear(normed, self.w3), self.w2)


class EngineMirrorLM(nn.Module):
    def __init__(self, cfg, context, device):
        super().__init__()
        d = cfg["d_model"]
        self.embedding = weight(cfg["vocab_size"], d, device=device)
        self.blocks = nn.ModuleList(Block(d, cfg["d_ff"], cfg["num_heads"], device) for _ in range(cfg["num_layers"]))
        self.ln_final = RMSNorm(d, device)
        self.lm_head = weight(cfg["vocab_size"], d, device=device)
        self.rope = Rope(max(context, cfg["context_length"]), d // cfg["num_heads"], device)

    def forward(self, ids):
        s = ids.shape[1]
        future = torch.ones(s, s, dtype=torch.bool, device=ids.device).triu(1)
        x = F.embedding(ids, self.embedding)
        for block in self.blocks:
            x = block(x, self.rope, future)
        with record("norm"):
            x = self.ln_final(x)
        with record("lm head"):
            return F.linear(x, self.lm_head)


class ChunkedAdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, chunk_elements=128 << 20):
        self.params = list(params)
        self.lr, (self.b1, self.b2), self.eps, self.wd = lr, betas, eps, weight_decay
        self.chunk_elements = chunk_elements
        self.m = [None] * len(self.params)
        self.v = [None] * len(self.params)
        self.t = 0

    @torch.no_grad()
    def step(self):
        self.t += 1
        live = [i for i, p in enumerate(self.params) if p.grad is not None]
        for i in live:
            if self.m[i] is None:
                self.m[i] = torch.zeros_like(self.params[i])
                self.v[i] = torch.zeros_like(self.params[i])
        chunk, size = [], 0
        for i in live:
            if chunk and size + self.params[i].numel() > self.chunk_elements:
                self._update(chunk)
                chunk, size = [], 0
            chunk.append(i)
            size += self.params[i].numel()
        if chunk:
            self._update(chunk)

    def _update(self, indices):
        params = [self.params[i] for i in indices]
        grads = [p.grad for p in params]
        m = [self.m[i] for i in indices]
        v = [self.v[i] for i in indices]
        torch._foreach_mul_(m, self.b1)
        torch._foreach_add_(m, grads, alpha=1 - self.b1)
        torch._foreach_mul_(v, self.b2)
        torch._foreach_addcmul_(v, grads, grads, value=1 - self.b2)
        step_size = self.lr * math.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        denominators = torch._foreach_sqrt(v)
        torch._foreach_add_(denominators, self.eps)
        torch._foreach_addcdiv_(params, m, denominators, value=-step_size)
        torch._foreach_mul_(params, 1 - self.lr * self.wd)
