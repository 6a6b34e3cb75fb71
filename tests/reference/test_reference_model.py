#!/usr/bin/env python3
"""Self-checks of reference_model.py against the formulas in model.md.

Run:  /usr/bin/python3 tests/reference/test_reference_model.py      (unittest)
  or  python3 -m pytest tests/reference/test_reference_model.py

Independent checks (numpy float64 re-implementations written from the
formulas, not from reference_model.py): state_dict keys, init statistics,
RMSNorm, interleaved RoPE pair rotation, causal attention, a full numpy
forward pass, cross-entropy = -log softmax at target, AdamW by hand on a
2-element tensor, and consistency of tests/data/tiny_model with the code.
"""

import json
import math
import os
import sys
import unittest

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_model as rm  # noqa: E402

FIXTURE = os.path.normpath(os.path.join(HERE, "..", "data", "tiny_model"))


# ---------------------------------------------------------------------------
# numpy float64 re-implementation (from model.md only)
# ---------------------------------------------------------------------------
def np_rmsnorm(x, w, eps=1e-5):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def np_rope(x, theta=10000.0):
    """x: [..., seq, d]; rotate pair (x[2i], x[2i+1]) at position p by p*theta^(-2i/d)."""
    seq, d = x.shape[-2], x.shape[-1]
    out = np.empty_like(x)
    for p in range(seq):
        for i in range(d // 2):
            ang = p * theta ** (-2.0 * i / d)
            c, s = math.cos(ang), math.sin(ang)
            a = x[..., p, 2 * i]
            b = x[..., p, 2 * i + 1]
            out[..., p, 2 * i] = c * a - s * b
            out[..., p, 2 * i + 1] = s * a + c * b
    return out


def np_attention(x, wq, wk, wv, wo, heads, theta):
    b, s, dm = x.shape
    dh = dm // heads

    def split(t):
        return t.reshape(b, s, heads, dh).transpose(0, 2, 1, 3)

    q = np_rope(split(x @ wq.T), theta)
    k = np_rope(split(x @ wk.T), theta)
    v = split(x @ wv.T)
    out = np.zeros_like(q)
    for i in range(s):
        sc = q[:, :, i : i + 1, :] @ k[:, :, : i + 1, :].transpose(0, 1, 3, 2) / math.sqrt(dh)  # keys 0..i
        sc = sc - sc.max(-1, keepdims=True)
        p = np.exp(sc)
        p /= p.sum(-1, keepdims=True)
        out[:, :, i : i + 1, :] = p @ v[:, :, : i + 1, :]
    return out.transpose(0, 2, 1, 3).reshape(b, s, dm) @ wo.T


def np_forward(sd, tokens, cfg):
    P = {k: v.detach().double().numpy() for k, v in sd.items()}
    x = P["token_embeddings.weight"][tokens]
    for i in range(cfg["num_layers"]):
        L = f"layers.{i}."
        h = np_rmsnorm(x, P[L + "ln1.weight"])
        x = x + np_attention(h, P[L + "attn.q_proj.weight"], P[L + "attn.k_proj.weight"],
                             P[L + "attn.v_proj.weight"], P[L + "attn.output_proj.weight"],
                             cfg["num_heads"], cfg["rope_theta"])
        h = np_rmsnorm(x, P[L + "ln2.weight"])
        a = h @ P[L + "ffn.w1.weight"].T
        g = a / (1.0 + np.exp(-a))
        x = x + (g * (h @ P[L + "ffn.w3.weight"].T)) @ P[L + "ffn.w2.weight"].T
    x = np_rmsnorm(x, P["ln_final.weight"])
    return x @ P["lm_head.weight"].T


def np_loss(logits, targets):
    m = logits.max(-1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(-1)) + m[..., 0]
    picked = np.take_along_axis(logits, targets[..., None], -1)[..., 0]
    return float(np.mean(lse - picked))


def tiny_cfg():
    return dict(vocab_size=53, context_length=16, d_model=24, d_ff=40, num_layers=2, num_heads=3,
                rope_theta=10000.0)


def make(cfg, seed=0):
    torch.manual_seed(seed)
    return rm.BasicsTransformerLM(cfg["vocab_size"], cfg["context_length"], cfg["d_model"], cfg["num_layers"],
                                  cfg["num_heads"], cfg["d_ff"], cfg["rope_theta"])


class TestStructure(unittest.TestCase):
    def test_state_dict_keys(self):
        for preset in ("tiny",):
            m = rm.build_model(preset, seed=0)
            keys = list(m.state_dict().keys())
            self.assertEqual(keys, rm.expected_state_dict_keys(rm.PRESETS[preset]["num_layers"]))
            self.assertFalse(any("cos" in k or "sin" in k or "rope" in k or "positional" in k for k in keys))
        cfg = tiny_cfg()
        m = make(cfg)
        sd = m.state_dict()
        d, f, v = cfg["d_model"], cfg["d_ff"], cfg["vocab_size"]
        self.assertEqual(tuple(sd["token_embeddings.weight"].shape), (v, d))
        self.assertEqual(tuple(sd["lm_head.weight"].shape), (v, d))
        self.assertEqual(tuple(sd["layers.0.ffn.w1.weight"].shape), (f, d))
        self.assertEqual(tuple(sd["layers.0.ffn.w3.weight"].shape), (f, d))
        self.assertEqual(tuple(sd["layers.0.ffn.w2.weight"].shape), (d, f))
        self.assertEqual(tuple(sd["layers.1.attn.output_proj.weight"].shape), (d, d))
        self.assertEqual(tuple(sd["ln_final.weight"].shape), (d,))
        # RoPE shared by all layers and never persisted
        self.assertIs(m.layers[0].attn.positional_encoder, m.layers[1].attn.positional_encoder)

    def test_preset_param_counts(self):
        # closed form: 2*V*d + L*(4 d^2 + 3 d dff + 2 d) + d
        for name, c in rm.PRESETS.items():
            d, f, L, V = c["d_model"], c["d_ff"], c["num_layers"], c["vocab_size"]
            n = 2 * V * d + L * (4 * d * d + 3 * d * f + 2 * d) + d
            if name == "tiny":
                self.assertEqual(sum(p.numel() for p in rm.build_model(name).parameters()), n)
            self.assertEqual(d % c["num_heads"], 0)

    def test_init_statistics(self):
        torch.manual_seed(0)
        lin = rm.Linear(300, 500)
        std = math.sqrt(2.0 / 800)
        w = lin.weight.detach()
        self.assertLessEqual(w.abs().max().item(), 3 * std + 1e-7)
        # truncated N(0,1) at +-3 has std 0.98654
        self.assertAlmostEqual(w.std().item() / std, 0.98654, delta=0.01)
        self.assertAlmostEqual(w.mean().item(), 0.0, delta=3 * std / math.sqrt(w.numel()) * 3)
        emb = rm.Embedding(400, 300).weight.detach()
        self.assertLessEqual(emb.abs().max().item(), 3.0)
        self.assertAlmostEqual(emb.std().item(), 0.98654, delta=0.01)
        norm = rm.RMSNorm(7)
        self.assertTrue(torch.equal(norm.weight.detach(), torch.ones(7)))


class TestComponents(unittest.TestCase):
    def test_linear_is_x_wT(self):
        torch.manual_seed(1)
        lin = rm.Linear(5, 3)
        x = torch.randn(2, 4, 5)
        np.testing.assert_allclose(lin(x).detach().numpy(), x.numpy() @ lin.weight.detach().numpy().T,
                                   rtol=1e-5, atol=1e-6)

    def test_rmsnorm_formula(self):
        torch.manual_seed(2)
        norm = rm.RMSNorm(8)
        with torch.no_grad():
            norm.weight.copy_(torch.randn(8))
        x = torch.randn(3, 5, 8, dtype=torch.float64)
        np.testing.assert_allclose(norm.double()(x).detach().numpy(),
                                   np_rmsnorm(x.numpy(), norm.weight.detach().numpy()), rtol=1e-12)
        # bf16 input: computed in fp32, returned in bf16
        norm32 = rm.RMSNorm(8)
        xb = torch.randn(4, 8).to(torch.bfloat16)
        yb = norm32(xb)
        self.assertEqual(yb.dtype, torch.bfloat16)
        ref = np_rmsnorm(xb.float().double().numpy(), np.ones(8))
        np.testing.assert_allclose(yb.detach().float().numpy(), ref, rtol=1e-2, atol=1e-2)

    def test_rope_pair_rotation(self):
        d, seq = 8, 6
        rope = rm.RotaryEmbedding(16, d, 10000.0)
        rope.rebuild_cache(torch.float64)
        x = torch.randn(2, 3, seq, d, dtype=torch.float64)
        y = rope(x, torch.arange(seq))
        np.testing.assert_allclose(y.numpy(), np_rope(x.numpy()), rtol=1e-12, atol=1e-12)
        # explicit single pair: position 3, pair i=1 of e_2 -> (cos a, sin a) at (2, 3), a = 3 * 10000^(-2/8)
        e = torch.zeros(1, seq, d, dtype=torch.float64)
        e[0, 3, 2] = 1.0
        r = rope(e, torch.arange(seq))[0, 3]
        a = 3 * 10000.0 ** (-2.0 / 8)
        self.assertAlmostEqual(r[2].item(), math.cos(a), places=12)
        self.assertAlmostEqual(r[3].item(), math.sin(a), places=12)
        self.assertEqual(r.abs().sum().item() - abs(r[2].item()) - abs(r[3].item()), 0.0)
        # position 0 is the identity; norms preserved; q.k depends only on relative position
        np.testing.assert_allclose(y[..., 0, :].numpy(), x[..., 0, :].numpy())
        np.testing.assert_allclose(y.norm(dim=-1).numpy(), x.norm(dim=-1).numpy(), rtol=1e-12)
        q, k = torch.randn(d, dtype=torch.float64), torch.randn(d, dtype=torch.float64)
        Q = rope(q.expand(16, d), torch.arange(16))
        K = rope(k.expand(16, d), torch.arange(16))
        self.assertAlmostEqual((Q[5] @ K[2]).item(), (Q[13] @ K[10]).item(), places=10)
        # fp32 cache close to the exact one
        rope32 = rm.RotaryEmbedding(16, d, 10000.0)
        self.assertLess((rope32.cos_cached.double() - rope.cos_cached).abs().max().item(), 1e-6)

    def test_softmax_and_attention_causal(self):
        torch.manual_seed(3)
        s = torch.tensor([[1000.0, 999.0, float("-inf")]])
        p = rm.softmax(s)
        self.assertTrue(torch.isfinite(p).all())
        self.assertAlmostEqual(p[0, 0].item(), 1 / (1 + math.exp(-1)), places=6)
        self.assertEqual(p[0, 2].item(), 0.0)
        cfg = tiny_cfg()
        m = rm.float64_copy(make(cfg))
        attn = m.layers[0].attn
        x = torch.randn(2, 7, cfg["d_model"], dtype=torch.float64)
        y = attn(x)
        ref = np_attention(x.numpy(), *(getattr(attn, n).weight.detach().numpy()
                                        for n in ("q_proj", "k_proj", "v_proj", "output_proj")),
                           cfg["num_heads"], cfg["rope_theta"])
        np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-10, atol=1e-12)

    def test_model_causality(self):
        cfg = tiny_cfg()
        m = make(cfg, seed=4).double()
        tok = torch.randint(0, cfg["vocab_size"], (2, 10))
        base = m(tok).detach()
        for k in (0, 4, 9):
            t2 = tok.clone()
            t2[:, k] = (t2[:, k] + 7) % cfg["vocab_size"]
            out = m(t2).detach()
            self.assertTrue(torch.equal(out[:, :k], base[:, :k]), f"position {k} leaked backwards")
            self.assertGreater((out[:, k] - base[:, k]).abs().max().item(), 1e-6)

    def test_full_forward_matches_numpy(self):
        cfg = tiny_cfg()
        m = make(cfg, seed=5)
        tok = torch.randint(0, cfg["vocab_size"], (2, 9))
        ref = np_forward(m.state_dict(), tok.numpy(), cfg)
        out64 = rm.float64_copy(m)(tok).detach().numpy()
        np.testing.assert_allclose(out64, ref, rtol=1e-10, atol=1e-10)
        out32 = m(tok).detach().double().numpy()
        self.assertLess(np.linalg.norm(out32 - ref) / np.linalg.norm(ref), 1e-5)

    def test_cross_entropy(self):
        torch.manual_seed(6)
        logits = torch.randn(3, 5, 11, dtype=torch.float64) * 4
        targets = torch.randint(0, 11, (3, 5))
        loss = rm.cross_entropy(logits, targets)
        direct = -torch.log_softmax(logits, -1).gather(-1, targets[..., None]).mean()
        self.assertAlmostEqual(loss.item(), direct.item(), places=12)
        self.assertAlmostEqual(loss.item(), np_loss(logits.numpy(), targets.numpy()), places=12)
        self.assertAlmostEqual(loss.item(), torch.nn.functional.cross_entropy(logits.reshape(-1, 11),
                                                                              targets.reshape(-1)).item(), places=12)
        # stability with huge logits
        big = torch.tensor([[1e4, 0.0, -1e4]], dtype=torch.float32)
        self.assertAlmostEqual(rm.cross_entropy(big, torch.tensor([1])).item(), 1e4, places=2)
        self.assertTrue(math.isfinite(rm.cross_entropy(big, torch.tensor([0])).item()))


class TestAdamW(unittest.TestCase):
    def test_two_steps_by_hand(self):
        lr, b1, b2, eps, wd = 1e-2, 0.9, 0.999, 1e-8, 0.1
        p = torch.nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
        opt = rm.AdamW([p], lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd)
        grads = [[0.5, -3.0], [-1.0, 0.25]]
        x = [1.0, -2.0]
        m = [0.0, 0.0]
        v = [0.0, 0.0]
        for t, g in enumerate(grads, start=1):
            p.grad = torch.tensor(g, dtype=torch.float64)
            opt.step()
            a = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            for i in range(2):
                m[i] = b1 * m[i] + (1 - b1) * g[i]
                v[i] = b2 * v[i] + (1 - b2) * g[i] ** 2
                x[i] = x[i] - a * m[i] / (math.sqrt(v[i]) + eps)
                x[i] = x[i] - lr * wd * x[i]
            self.assertAlmostEqual(p[0].item(), x[0], places=14)
            self.assertAlmostEqual(p[1].item(), x[1], places=14)
            self.assertEqual(opt.state[p]["t"], t + 1)
        # concrete numbers for step 1 (lr 1e-2): 1 - 1e-2*(~1) then decay
        self.assertTrue(torch.allclose(opt.state[p]["m"], torch.tensor(m, dtype=torch.float64)))

    def test_defaults_and_skip_none_grad(self):
        p = torch.nn.Parameter(torch.ones(3))
        q = torch.nn.Parameter(torch.ones(3))
        opt = rm.AdamW([p, q])
        g = opt.param_groups[0]
        self.assertEqual((g["lr"], g["betas"], g["eps"], g["weight_decay"]), (1e-3, (0.9, 0.999), 1e-8, 0.01))
        p.grad = torch.tensor([1.0, -1.0, 0.0])
        opt.step()
        self.assertNotIn(q, opt.state)
        self.assertTrue(torch.equal(q.detach(), torch.ones(3)))
        # first step = lr*sign(g) (up to eps), then decay by (1 - lr*wd)
        exp = [(1 - 1e-3) * (1 - 1e-5), (1 + 1e-3) * (1 - 1e-5), 1 - 1e-5]
        np.testing.assert_allclose(p.detach().numpy(), exp, rtol=1e-6)


@unittest.skipUnless(os.path.isfile(os.path.join(FIXTURE, "manifest.json")), "fixture not generated")
class TestFixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(FIXTURE, "config.json")) as f:
            cls.cfg = json.load(f)
        cls.sd = torch.load(os.path.join(FIXTURE, "model.pt"), map_location="cpu")
        cls.tokens = torch.from_numpy(np.load(os.path.join(FIXTURE, "tokens.npy")))
        cls.targets = torch.from_numpy(np.load(os.path.join(FIXTURE, "targets.npy")))

    def model(self):
        c = self.cfg
        m = rm.BasicsTransformerLM(c["vocab_size"], c["context_length"], c["d_model"], c["num_layers"],
                                   c["num_heads"], c["d_ff"], c["rope_theta"])
        m.load_state_dict(self.sd)
        return m

    def test_files_and_dtypes(self):
        self.assertEqual(self.tokens.dtype, torch.int64)
        self.assertEqual(tuple(self.tokens.shape), (2, 12))
        self.assertEqual(self.targets.dtype, torch.int64)
        logits = np.load(os.path.join(FIXTURE, "logits.npy"))
        self.assertEqual(logits.dtype, np.float32)
        self.assertEqual(logits.shape, (2, 12, self.cfg["vocab_size"]))
        for k, v in self.sd.items():
            self.assertEqual(v.dtype, torch.float32)
            np.testing.assert_array_equal(np.load(os.path.join(FIXTURE, "params", k + ".npy")), v.numpy())

    def test_logits_and_loss(self):
        ref_logits = np_forward(self.sd, self.tokens.numpy(), self.cfg)
        stored = np.load(os.path.join(FIXTURE, "logits.npy"))
        np.testing.assert_allclose(stored, ref_logits.astype(np.float32), rtol=1e-6, atol=1e-6)
        loss = float(np.load(os.path.join(FIXTURE, "loss.npy")))
        self.assertAlmostEqual(loss, np_loss(ref_logits, self.targets.numpy()), places=10)
        with open(os.path.join(FIXTURE, "loss.json")) as f:
            self.assertAlmostEqual(json.load(f)["loss_fp64"], loss, places=12)

    def test_adamw_step(self):
        m = self.model()
        opt = rm.AdamW(m.parameters())
        rm.cross_entropy(m(self.tokens), self.targets).backward()
        opt.step()
        after = torch.load(os.path.join(FIXTURE, "model_after_adamw.pt"), map_location="cpu")
        for k, v in m.state_dict().items():
            torch.testing.assert_close(v, after[k], rtol=0, atol=2e-6)
            np.testing.assert_array_equal(np.load(os.path.join(FIXTURE, "adamw_fp32", k + ".npy")), after[k].numpy())
            a64 = np.load(os.path.join(FIXTURE, "adamw_fp64", k + ".npy"))
            self.assertEqual(a64.dtype, np.float64)
            self.assertLess(np.abs(a64 - v.double().numpy()).max(), 2e-5)
            # the step really moved the parameter by ~lr
            before = self.sd[k].double().numpy()
            self.assertLess(np.abs(a64 - before).max(), 1.1e-3 + 1e-5 * np.abs(before).max())

    def test_grads_fp64(self):
        m = rm.float64_copy(self.model())
        rm.cross_entropy(m(self.tokens), self.targets).backward()
        for k, p in m.named_parameters():
            g = np.load(os.path.join(FIXTURE, "grads_fp64", k + ".npy"))
            np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-9, atol=1e-14)


if __name__ == "__main__":
    unittest.main(verbosity=2)
