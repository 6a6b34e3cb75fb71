#!/usr/bin/env python3
"""End-to-end checkpoint check of stepscope-cli against the PyTorch reference.

Usage:
    python3 tests/reference/compare_checkpoint.py --cli build/bin/stepscope-cli --workdir DIR \
        [--size small] [--device cuda] [--batch 4] [--seq 256] [--seed 0] [--cli-extra "..."]

Steps:
  1. build the reference model (preset --size, seeded, initialised on CPU so
     the weights do not depend on the device), save DIR/model.pt with
     torch.save(model.state_dict()) in the running PyTorch version;
  2. write DIR/tokens.npy and DIR/targets.npy (int64 [batch, seq], seeded);
  3. run  CLI check --checkpoint model.pt --tokens tokens.npy --targets targets.npy
              --out logits.npy --heads H --adamw-step-out after.pt  [cli-extra...]
     (cwd = DIR) and parse the stdout line `loss <value>`;
  4. compute the same thing in PyTorch fp32 on --device with TF32 disabled
     (and, unless --no-fp64, a float64 run as ground truth), take one reference
     AdamW step (defaults) and compare:
       logits  relative error ||ours - torch|| / ||torch||     <= --logits-tol (1e-4)
       loss    |ours - torch| / |torch|                          <= --loss-tol   (1e-5)
       after.pt per tensor: max abs error                        <= --adamw-atol (1e-4)
                            relative error of the update delta   <= --adamw-update-rtol (1e-3)
Prints a table, writes DIR/compare_checkpoint.json, exits 1 on failure
(2 if the CLI itself fails or its outputs are missing).
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_model as rm  # noqa: E402


def torch_load(path: str):
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except TypeError:  # PyTorch < 1.13 has no weights_only
        return torch.load(path, map_location="cpu")
    except Exception:
        return torch.load(path, map_location="cpu", weights_only=False)


def as_state_dict(obj) -> dict:
    if isinstance(obj, dict):
        return obj
    if hasattr(obj, "state_dict"):
        return obj.state_dict()
    raise TypeError(f"after.pt holds a {type(obj).__name__}, expected a state_dict")


def parse_loss(stdout: str):
    for line in stdout.splitlines():
        parts = line.strip().split()
        if len(parts) == 2 and parts[0] == "loss":
            try:
                return float(parts[1])
            except ValueError:
                pass
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="path to stepscope-cli")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--size", default="small", choices=sorted(rm.PRESETS))
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cli-extra", default="", help="extra arguments appended to the CLI command (shlex-split)")
    ap.add_argument("--timeout", type=float, default=1200.0)
    ap.add_argument("--no-fp64", action="store_true", help="skip the float64 ground-truth run")
    ap.add_argument("--logits-tol", type=float, default=1e-4)
    ap.add_argument("--loss-tol", type=float, default=1e-5)
    ap.add_argument("--adamw-atol", type=float, default=1e-4)
    ap.add_argument("--adamw-update-rtol", type=float, default=1e-3)
    args = ap.parse_args()

    workdir = os.path.abspath(args.workdir)
    os.makedirs(workdir, exist_ok=True)
    cli = os.path.abspath(args.cli)
    device = torch.device(args.device)
    tf32_note = rm.disable_tf32()
    cfg = dict(rm.PRESETS[args.size])
    if args.seq > cfg["context_length"]:
        cfg["context_length"] = args.seq

    # 1. model (CPU init -> deterministic for a seed), checkpoint
    torch.manual_seed(args.seed)
    model_cpu = rm.BasicsTransformerLM(cfg["vocab_size"], cfg["context_length"], cfg["d_model"], cfg["num_layers"],
                                       cfg["num_heads"], cfg["d_ff"], rm.ROPE_THETA)
    ckpt = os.path.join(workdir, "model.pt")
    torch.save(model_cpu.state_dict(), ckpt)
    before = {k: v.detach().clone() for k, v in model_cpu.state_dict().items()}

    # 2. inputs
    rng = np.random.default_rng(args.seed + 1)
    tokens_np = rng.integers(0, cfg["vocab_size"], size=(args.batch, args.seq), dtype=np.int64)
    targets_np = rng.integers(0, cfg["vocab_size"], size=(args.batch, args.seq), dtype=np.int64)
    np.save(os.path.join(workdir, "tokens.npy"), tokens_np)
    np.save(os.path.join(workdir, "targets.npy"), targets_np)

    # 3. our CLI
    logits_path = os.path.join(workdir, "logits.npy")
    after_path = os.path.join(workdir, "after.pt")
    for p in (logits_path, after_path):
        if os.path.exists(p):
            os.remove(p)
    cmd = [cli, "check", "--checkpoint", "model.pt", "--tokens", "tokens.npy", "--targets", "targets.npy",
           "--out", "logits.npy", "--heads", str(cfg["num_heads"]), "--adamw-step-out", "after.pt"]
    cmd += shlex.split(args.cli_extra)
    print("running:", " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=args.timeout)
    cli_s = time.perf_counter() - t0
    with open(os.path.join(workdir, "cli_stdout.txt"), "w") as f:
        f.write(proc.stdout)
    with open(os.path.join(workdir, "cli_stderr.txt"), "w") as f:
        f.write(proc.stderr)
    our_loss = parse_loss(proc.stdout)
    problems = []
    if proc.returncode != 0:
        problems.append(f"CLI exited with {proc.returncode}")
    if our_loss is None:
        problems.append("no `loss <value>` line on the CLI's stdout")
    for p in (logits_path, after_path):
        if not os.path.isfile(p):
            problems.append(f"missing {os.path.basename(p)}")
    if problems:
        print("CLI FAILED: " + "; ".join(problems), file=sys.stderr)
        print("--- stdout (tail) ---\n" + proc.stdout[-3000:], file=sys.stderr)
        print("--- stderr (tail) ---\n" + proc.stderr[-3000:], file=sys.stderr)
        with open(os.path.join(workdir, "compare_checkpoint.json"), "w") as f:
            json.dump({"passed": False, "cli_failed": problems, "command": cmd}, f, indent=2)
        return 2

    # 4. PyTorch reference on the device
    tokens = torch.from_numpy(tokens_np).to(device)
    targets = torch.from_numpy(targets_np).to(device)
    model = rm.BasicsTransformerLM(cfg["vocab_size"], cfg["context_length"], cfg["d_model"], cfg["num_layers"],
                                   cfg["num_heads"], cfg["d_ff"], rm.ROPE_THETA, device=device)
    model.load_state_dict(before)
    logits_t = model(tokens)
    loss_t = rm.cross_entropy(logits_t, targets)
    loss_t.backward()
    ref_logits = logits_t.detach().double().cpu()
    ref_loss = loss_t.item()
    del logits_t
    opt = rm.AdamW(model.parameters())
    opt.step()
    ref_after = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    del model, opt, loss_t
    if device.type == "cuda":
        torch.cuda.empty_cache()

    truth_logits = truth_loss = None
    if not args.no_fp64:
        m64 = rm.BasicsTransformerLM(cfg["vocab_size"], cfg["context_length"], cfg["d_model"], cfg["num_layers"],
                                     cfg["num_heads"], cfg["d_ff"], rm.ROPE_THETA, device=device,
                                     dtype=torch.float64)
        m64.rope.rebuild_cache(torch.float64)
        m64.load_state_dict(before)
        with torch.no_grad():
            l64 = m64(tokens)
            truth_loss = rm.cross_entropy(l64, targets).item()
            truth_logits = l64.cpu()
        del m64, l64
        if device.type == "cuda":
            torch.cuda.empty_cache()

    # --- comparisons ---------------------------------------------------------
    ours_logits = torch.from_numpy(np.load(logits_path)).double()
    ok = True
    rows = []  # (check, value, tolerance, pass)
    if tuple(ours_logits.shape) != tuple(ref_logits.shape):
        rows.append(("logits shape", f"{tuple(ours_logits.shape)} vs {tuple(ref_logits.shape)}", "equal", False))
        ok = False
    else:
        rel = ((ours_logits - ref_logits).norm() / ref_logits.norm()).item()
        mx = (ours_logits - ref_logits).abs().max().item()
        rows.append(("logits rel err (ours vs torch fp32)", rel, args.logits_tol, rel <= args.logits_tol))
        rows.append(("logits max abs err (ours vs torch fp32)", mx, None, True))
        if truth_logits is not None:
            rows.append(("logits rel err (ours vs fp64)",
                         ((ours_logits - truth_logits).norm() / truth_logits.norm()).item(), None, True))
            rows.append(("logits rel err (torch fp32 vs fp64)",
                         ((ref_logits - truth_logits).norm() / truth_logits.norm()).item(), None, True))
    loss_rel = abs(our_loss - ref_loss) / abs(ref_loss)
    rows.append(("loss rel err (ours vs torch fp32)", loss_rel, args.loss_tol, loss_rel <= args.loss_tol))

    ours_after = as_state_dict(torch_load(after_path))
    per_tensor = []
    missing = [k for k in ref_after if k not in ours_after]
    extra = [k for k in ours_after if k not in ref_after]
    if missing or extra:
        rows.append(("after.pt keys", f"missing {missing[:3]}.. extra {extra[:3]}..", "equal", False))
    for k, ref in ref_after.items():
        if k not in ours_after:
            continue
        ours = ours_after[k].detach().cpu()
        if tuple(ours.shape) != tuple(ref.shape):
            per_tensor.append(dict(key=k, shape_mismatch=[list(ours.shape), list(ref.shape)], passed=False))
            continue
        o, r, b = ours.double(), ref.double(), before[k].double()
        diff = (o - r).abs()
        upd_ref = r - b
        upd_err = ((o - b) - upd_ref).norm().item() / max(upd_ref.norm().item(), 1e-30)
        entry = dict(key=k, dtype=str(ours.dtype).replace("torch.", ""),
                     max_abs_err=diff.max().item(),
                     rel_err=(diff.norm() / r.norm().clamp_min(1e-30)).item(),
                     update_rel_err=upd_err)
        entry["passed"] = bool(entry["max_abs_err"] <= args.adamw_atol and upd_err <= args.adamw_update_rtol)
        per_tensor.append(entry)
    good = [e for e in per_tensor if "max_abs_err" in e]
    if good:
        worst_abs = max(good, key=lambda e: e["max_abs_err"])
        worst_rel = max(good, key=lambda e: e["rel_err"])
        worst_upd = max(good, key=lambda e: e["update_rel_err"])
        rows.append((f"after.pt worst max abs err [{worst_abs['key']}]", worst_abs["max_abs_err"], args.adamw_atol,
                     worst_abs["max_abs_err"] <= args.adamw_atol))
        rows.append((f"after.pt worst rel err [{worst_rel['key']}]", worst_rel["rel_err"], None, True))
        rows.append((f"after.pt worst update rel err [{worst_upd['key']}]", worst_upd["update_rel_err"],
                     args.adamw_update_rtol, worst_upd["update_rel_err"] <= args.adamw_update_rtol))
    bad_shapes = [e["key"] for e in per_tensor if "shape_mismatch" in e]
    if bad_shapes:
        rows.append(("after.pt shape mismatches", ", ".join(bad_shapes[:5]), "none", False))
    ok = ok and all(r[3] for r in rows)

    # --- report --------------------------------------------------------------
    print()
    print(f"compare_checkpoint: size={args.size} batch={args.batch} seq={args.seq} device={device} "
          f"torch={torch.__version__} ({tf32_note}); CLI took {cli_s:.1f}s")
    print(f"loss: ours {our_loss:.10f}  torch fp32 {ref_loss:.10f}"
          + (f"  fp64 {truth_loss:.10f}" if truth_loss is not None else ""))
    w = max(len(r[0]) for r in rows)
    print(f"{'check'.ljust(w)}  {'value':>12}  {'tolerance':>10}  result")
    print("-" * (w + 34))
    for name, val, tol, passed in rows:
        v = f"{val:12.3e}" if isinstance(val, float) else f"{str(val):>12}"
        t = f"{tol:10.1e}" if isinstance(tol, float) else f"{(tol or ''):>10}"
        print(f"{name.ljust(w)}  {v}  {t}  {'ok' if passed else 'FAIL'}")
    failed_tensors = [e["key"] for e in per_tensor if not e["passed"]]
    if failed_tensors:
        print(f"tensors failing the AdamW check ({len(failed_tensors)}): {', '.join(failed_tensors[:10])}")
    print("RESULT:", "PASS" if ok else "FAIL")

    summary = dict(passed=ok, size=args.size, batch=args.batch, seq=args.seq, seed=args.seed, device=str(device),
                   torch_version=torch.__version__, tf32=tf32_note, command=cmd, cli_seconds=cli_s,
                   loss=dict(ours=our_loss, torch_fp32=ref_loss, fp64=truth_loss),
                   checks=[dict(check=r[0], value=r[1], tolerance=r[2], passed=bool(r[3])) for r in rows],
                   adamw_per_tensor=per_tensor)
    with open(os.path.join(workdir, "compare_checkpoint.json"), "w") as f:
        json.dump(summary, f, indent=2)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
