#!/usr/bin/env python3
"""Plain-PyTorch reference of the CS336 assignment-2 "basics" Transformer LM.

Written from the facts in shared/reference/model.md, in the eager, readable
style of the course's staff package (no einops / jaxtyping needed):

* Linear: no bias, weight [d_out, d_in], y = x W^T, trunc-normal init
  std = sqrt(2 / (d_in + d_out)) cut at +-3 std.
* Embedding: weight [vocab, d_model], trunc-normal std 1 cut at +-3.
* RMSNorm: eps 1e-5, upcast to fp32, x * rsqrt(mean(x^2) + eps) * weight,
  cast back to the input dtype.
* RoPE: interleaved pairs (x[..., 0::2], x[..., 1::2]), theta 10000,
  freq_i = theta^(-2i/d_head); cos/sin cache is a NON-persistent buffer.
* Causal multi-head self-attention with a hand-written max-subtracted
  softmax and -inf masking; SwiGLU FFN; pre-norm blocks; ln_final; lm_head.
* Hand-written max-stabilised cross-entropy (mean over all positions).
* Reference AdamW (decoupled decay applied AFTER the Adam update, eps added
  to sqrt(v) without bias correction of v inside the denominator).

Works with PyTorch 1.13 (CPU) and PyTorch 2.x (CUDA).  Only torch is needed.
"""

from __future__ import annotations

import copy
import math
from typing import Iterable, Optional

import torch
import torch.nn as nn

__all__ = [
    "Linear",
    "Embedding",
    "RMSNorm",
    "RotaryEmbedding",
    "softmax",
    "log_softmax",
    "cross_entropy",
    "silu",
    "scaled_dot_product_attention",
    "CausalMultiHeadSelfAttention",
    "SwiGLU",
    "TransformerBlock",
    "BasicsTransformerLM",
    "AdamW",
    "PRESETS",
    "build_model",
    "expected_state_dict_keys",
    "float64_copy",
    "disable_tf32",
]


# --------------------------------------------------------------------------
# Presets (vocab 10000 for the benchmark sizes, as in the handout)
# --------------------------------------------------------------------------
PRESETS = {
    # tiny and mini match stepscope's CPU presets.
    "tiny": dict(d_model=64, d_ff=256, num_layers=2, num_heads=4, vocab_size=10000, context_length=256),
    "mini": dict(d_model=256, d_ff=1024, num_layers=4, num_heads=8, vocab_size=10000, context_length=256),
    "small": dict(d_model=768, d_ff=3072, num_layers=12, num_heads=12, vocab_size=10000, context_length=1024),
    "medium": dict(d_model=1024, d_ff=4096, num_layers=24, num_heads=16, vocab_size=10000, context_length=1024),
    "large": dict(d_model=1280, d_ff=5120, num_layers=36, num_heads=20, vocab_size=10000, context_length=1024),
    "xl": dict(d_model=1600, d_ff=6400, num_layers=48, num_heads=25, vocab_size=10000, context_length=1024),
    "2.7B": dict(d_model=2560, d_ff=10240, num_layers=32, num_heads=32, vocab_size=10000, context_length=1024),
}
ROPE_THETA = 10000.0


# --------------------------------------------------------------------------
# Functional pieces
# --------------------------------------------------------------------------
def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Max-subtracted softmax.  Rows that are entirely -inf are not expected
    (causal attention always sees at least the diagonal)."""
    x_max = torch.amax(x, dim=dim, keepdim=True)
    x_exp = torch.exp(x - x_max)
    return x_exp / torch.sum(x_exp, dim=dim, keepdim=True)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Max-stabilised log-softmax: (x - max) - log(sum(exp(x - max)))."""
    x_max = torch.amax(x, dim=dim, keepdim=True)
    shifted = x - x_max
    return shifted - torch.log(torch.sum(torch.exp(shifted), dim=dim, keepdim=True))


def cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean over every position of -log_softmax(logits)[target].

    logits: [..., vocab]; targets: [...] int64.  No upcast (like the staff code):
    under bf16 autocast the loss is computed in the logits' dtype."""
    neg_log_probs = -log_softmax(logits, dim=-1)
    picked = torch.gather(neg_log_probs, -1, targets.unsqueeze(-1)).squeeze(-1)
    return torch.mean(picked)


def silu(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(x)


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: Optional[torch.Tensor] = None
) -> torch.Tensor:
    """softmax(Q K^T / sqrt(d_k)) V; mask True = keep, False = set to -inf."""
    d_k = k.shape[-1]
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, v)


# --------------------------------------------------------------------------
# Modules
# --------------------------------------------------------------------------
class Linear(nn.Module):
    """y = x W^T, W: [d_out, d_in], no bias."""

    def __init__(self, d_in: int, d_out: int, device=None, dtype=None):
        super().__init__()
        self.d_in = d_in
        self.d_out = d_out
        std = math.sqrt(2.0 / (d_in + d_out))
        self.weight = nn.Parameter(torch.empty(d_out, d_in, device=device, dtype=dtype))
        nn.init.trunc_normal_(self.weight, mean=0.0, std=std, a=-3.0 * std, b=3.0 * std)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, self.weight.t())

    def extra_repr(self) -> str:
        return f"d_in={self.d_in}, d_out={self.d_out}"


class Embedding(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, device=None, dtype=None):
        super().__init__()
        self.vocab_size = vocab_size
        self.d_model = d_model
        self.weight = nn.Parameter(torch.empty(vocab_size, d_model, device=device, dtype=dtype))
        nn.init.trunc_normal_(self.weight, mean=0.0, std=1.0, a=-3.0, b=3.0)

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        return self.weight[token_ids]

    def extra_repr(self) -> str:
        return f"vocab_size={self.vocab_size}, d_model={self.d_model}"


class RMSNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model, device=device, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        in_dtype = x.dtype
        x = x.to(torch.float32) if in_dtype != torch.float64 else x  # upcast (keep fp64 for the fp64 reference)
        rms = torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)
        out = x * rms * self.weight
        return out.to(in_dtype)


class RotaryEmbedding(nn.Module):
    """Interleaved RoPE.  The cos/sin cache [context_length, dim/2] is a
    non-persistent buffer, so it never appears in state_dict()."""

    def __init__(self, context_length: int, dim: int, theta: float = ROPE_THETA, device=None,
                 dtype: torch.dtype = torch.float32):
        super().__init__()
        assert dim % 2 == 0, "RoPE needs an even head dimension"
        self.context_length = context_length
        self.dim = dim
        self.theta = theta
        cos, sin = self._make_cache(context_length, dim, theta, device, dtype)
        self.register_buffer("cos_cached", cos, persistent=False)
        self.register_buffer("sin_cached", sin, persistent=False)

    @staticmethod
    def _make_cache(context_length, dim, theta, device, dtype):
        # Same arithmetic as the staff code: arange(0, d, 2)/d, theta^-that,
        # outer product with positions, cos / sin -- all in `dtype`.
        exponents = torch.arange(0, dim, 2, device=device, dtype=dtype) / dim
        inv_freq = theta ** (-exponents)
        positions = torch.arange(context_length, device=device, dtype=dtype)
        angles = torch.outer(positions, inv_freq)  # [context, dim/2]
        return torch.cos(angles), torch.sin(angles)

    def rebuild_cache(self, dtype: torch.dtype) -> None:
        """Recompute cos/sin directly in `dtype` (used for the float64 reference)."""
        cos, sin = self._make_cache(self.context_length, self.dim, self.theta, self.cos_cached.device, dtype)
        self.cos_cached = cos
        self.sin_cached = sin

    def forward(self, x: torch.Tensor, token_positions: torch.Tensor) -> torch.Tensor:
        # x: [..., seq, dim]; token_positions: [seq] (or broadcastable [..., seq])
        cos = self.cos_cached[token_positions]  # [..., seq, dim/2]
        sin = self.sin_cached[token_positions]
        x1 = x[..., 0::2]
        x2 = x[..., 1::2]
        x1_rot = cos * x1 - sin * x2
        x2_rot = sin * x1 + cos * x2
        # write back interleaved: (x1'_0, x2'_0, x1'_1, x2'_1, ...)
        return torch.stack((x1_rot, x2_rot), dim=-1).flatten(-2)


class CausalMultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, positional_encoder: RotaryEmbedding, device=None,
                 dtype=None):
        super().__init__()
        assert d_model % num_heads == 0, "d_model must be divisible by num_heads"
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_head = d_model // num_heads
        self.q_proj = Linear(d_model, d_model, device=device, dtype=dtype)
        self.k_proj = Linear(d_model, d_model, device=device, dtype=dtype)
        self.v_proj = Linear(d_model, d_model, device=device, dtype=dtype)
        self.output_proj = Linear(d_model, d_model, device=device, dtype=dtype)
        self.positional_encoder = positional_encoder  # shared module, no persistent state

    def _split_heads(self, x: torch.Tensor) -> torch.Tensor:
        # "b s (h d) -> b h s d"
        *lead, seq, _ = x.shape
        x = x.reshape(*lead, seq, self.num_heads, self.d_head)
        return x.transpose(-3, -2)

    def _merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        # "b h s d -> b s (h d)"
        x = x.transpose(-3, -2)
        *lead, seq, _, _ = x.shape
        return x.reshape(*lead, seq, self.d_model)

    def forward(self, x: torch.Tensor, token_positions: Optional[torch.Tensor] = None) -> torch.Tensor:
        seq = x.shape[-2]
        q = self._split_heads(self.q_proj(x))
        k = self._split_heads(self.k_proj(x))
        v = self._split_heads(self.v_proj(x))
        if token_positions is None:
            token_positions = torch.arange(seq, device=x.device)
        q = self.positional_encoder(q, token_positions)
        k = self.positional_encoder(k, token_positions)
        positions = torch.arange(seq, device=x.device)
        causal_mask = positions.view(-1, 1) >= positions.view(1, -1)  # query i sees keys j <= i
        attn = scaled_dot_product_attention(q, k, v, mask=causal_mask)
        return self.output_proj(self._merge_heads(attn))


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_ff: int, device=None, dtype=None):
        super().__init__()
        self.w1 = Linear(d_model, d_ff, device=device, dtype=dtype)
        self.w2 = Linear(d_ff, d_model, device=device, dtype=dtype)
        self.w3 = Linear(d_model, d_ff, device=device, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, d_model: int, num_heads: int, d_ff: int, positional_encoder: RotaryEmbedding,
                 device=None, dtype=None):
        super().__init__()
        self.attn = CausalMultiHeadSelfAttention(d_model, num_heads, positional_encoder, device=device,
                                                 dtype=dtype)
        self.ffn = SwiGLU(d_model, d_ff, device=device, dtype=dtype)
        self.ln1 = RMSNorm(d_model, device=device, dtype=dtype)
        self.ln2 = RMSNorm(d_model, device=device, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x + self.attn(self.ln1(x))
        return h + self.ffn(self.ln2(h))


class BasicsTransformerLM(nn.Module):
    def __init__(self, vocab_size: int, context_length: int, d_model: int, num_layers: int, num_heads: int,
                 d_ff: int, rope_theta: float = ROPE_THETA, device=None, dtype=None):
        super().__init__()
        self.vocab_size = vocab_size
        self.context_length = context_length
        self.d_model = d_model
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.d_ff = d_ff
        self.rope_theta = rope_theta
        # Parameter creation order (embedding, layers..., ln_final, lm_head)
        # fixes what a given torch seed produces.
        self.token_embeddings = Embedding(vocab_size, d_model, device=device, dtype=dtype)
        rope = RotaryEmbedding(context_length, d_model // num_heads, rope_theta, device=device)
        self.layers = nn.ModuleList(
            [TransformerBlock(d_model, num_heads, d_ff, rope, device=device, dtype=dtype) for _ in range(num_layers)]
        )
        self.ln_final = RMSNorm(d_model, device=device, dtype=dtype)
        self.lm_head = Linear(d_model, vocab_size, device=device, dtype=dtype)

    @property
    def rope(self) -> RotaryEmbedding:
        return self.layers[0].attn.positional_encoder

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        seq = token_ids.shape[-1]
        if seq > self.context_length:
            raise ValueError(f"sequence length {seq} exceeds context_length {self.context_length}")
        x = self.token_embeddings(token_ids)
        for layer in self.layers:
            x = layer(x)
        x = self.ln_final(x)
        return self.lm_head(x)

    def config(self) -> dict:
        return dict(vocab_size=self.vocab_size, context_length=self.context_length, d_model=self.d_model,
                    d_ff=self.d_ff, num_layers=self.num_layers, num_heads=self.num_heads,
                    rope_theta=self.rope_theta)


def build_model(preset: str, context_length: Optional[int] = None, seed: Optional[int] = None, device=None,
                dtype=None) -> BasicsTransformerLM:
    cfg = dict(PRESETS[preset])
    if context_length is not None:
        cfg["context_length"] = context_length
    if seed is not None:
        torch.manual_seed(seed)
    return BasicsTransformerLM(cfg["vocab_size"], cfg["context_length"], cfg["d_model"], cfg["num_layers"],
                               cfg["num_heads"], cfg["d_ff"], ROPE_THETA, device=device, dtype=dtype)


def expected_state_dict_keys(num_layers: int) -> list:
    keys = ["token_embeddings.weight"]
    for i in range(num_layers):
        keys += [f"layers.{i}.attn.{n}.weight" for n in ("q_proj", "k_proj", "v_proj", "output_proj")]
        keys += [f"layers.{i}.ffn.{n}.weight" for n in ("w1", "w2", "w3")]
        keys += [f"layers.{i}.ln1.weight", f"layers.{i}.ln2.weight"]
    keys += ["ln_final.weight", "lm_head.weight"]
    return keys


def float64_copy(model: BasicsTransformerLM) -> BasicsTransformerLM:
    """A float64 copy with the RoPE cache recomputed in float64 (not just cast)."""
    m = copy.deepcopy(model).double()
    m.rope.rebuild_cache(torch.float64)
    return m


def _get_attr(obj, name):
    # torch.backends.cuda.matmul raises AssertionError (not AttributeError) for unknown names
    try:
        return getattr(obj, name)
    except (AttributeError, AssertionError):
        return None


def disable_tf32() -> str:
    """Make fp32 matmuls/convolutions true fp32 (no TF32) on any PyTorch version.

    PyTorch >= 2.9 has the fp32_precision API (the allow_tf32 flags are being
    deprecated and must not be mixed with it); older versions only have
    allow_tf32 / set_float32_matmul_precision.  Returns a short description."""
    done = []
    matmul = torch.backends.cuda.matmul
    if _get_attr(matmul, "fp32_precision") is not None:
        try:
            matmul.fp32_precision = "ieee"
            done.append("cuda.matmul.fp32_precision=ieee")
            conv = _get_attr(torch.backends.cudnn, "conv")
            if conv is not None and _get_attr(conv, "fp32_precision") is not None:
                conv.fp32_precision = "ieee"
                done.append("cudnn.conv.fp32_precision=ieee")
        except Exception as e:  # depends on the version
            done = [f"fp32_precision API failed ({e})"]
    if not done or "failed" in done[0]:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        done.append("allow_tf32=False")
    return ", ".join(done)


# --------------------------------------------------------------------------
# Reference AdamW
# --------------------------------------------------------------------------
class AdamW(torch.optim.Optimizer):
    """Reference AdamW, per-parameter loop.

    state: m, v, t (t = 1 on the first step)
      m = b1 m + (1 - b1) g
      v = b2 v + (1 - b2) g^2
      a_t = lr sqrt(1 - b2^t) / (1 - b1^t)
      p = p - a_t m / (sqrt(v) + eps)
      p = p - lr wd p              (decoupled decay, applied after the update)
    The arithmetic is done in the same order as the plain expressions above
    (m, v updated in place to avoid holding two copies of the state)."""

    def __init__(self, params: Iterable, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.01):
        if lr < 0:
            raise ValueError(f"invalid learning rate {lr}")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"invalid betas {betas}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr = group["lr"]
            beta1, beta2 = group["betas"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state["t"] = 1
                    state["m"] = torch.zeros_like(p)
                    state["v"] = torch.zeros_like(p)
                t = state["t"]
                m = state["m"]
                v = state["v"]
                # m = b1*m + (1-b1)*g
                m.mul_(beta1).add_(grad * (1.0 - beta1))
                # v = b2*v + (1-b2)*g^2
                v.mul_(beta2).add_((grad * grad) * (1.0 - beta2))
                alpha_t = lr * math.sqrt(1.0 - beta2 ** t) / (1.0 - beta1 ** t)
                # p = p - a_t * m / (sqrt(v) + eps)
                p.sub_((m * alpha_t) / (torch.sqrt(v) + eps))
                # p = p - lr * wd * p
                p.sub_(p * (lr * weight_decay))
                state["t"] = t + 1
        return loss
