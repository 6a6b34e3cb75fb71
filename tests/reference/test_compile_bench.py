#!/usr/bin/env python3
"""Checks of the torch.compile side of the benchmark: bench_reference.py's compile variants
(with a stand-in torch.compile, so they run on PyTorch 1.13 and on a CPU) and
compare_compile.py on small hand-made CSVs.

Run:  /usr/bin/python3 tests/reference/test_compile_bench.py      (unittest)
  or  python3 -m pytest tests/reference/test_compile_bench.py
"""

import contextlib
import csv
import io
import os
import sys
import tempfile
import unittest
from unittest import mock

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_reference as br  # noqa: E402
import compare_compile as cc  # noqa: E402

TORCH2 = br.compile_unsupported() is None


class FakeCompile:
    """torch.compile stand-in: records what it wrapped and with which options, runs it eagerly."""

    def __init__(self):
        self.calls = []

    def __call__(self, fn, **options):
        self.calls.append((fn, options))

        def compiled(*args, **kwargs):
            return fn(*args, **kwargs)
        return compiled


class CompileVariants(unittest.TestCase):
    def setUp(self):
        quiet = mock.patch.object(br, "log", lambda msg: None)  # no per-step lines
        quiet.start()
        self.addCleanup(quiet.stop)

    def run_config(self, variant, compile_loss=False, warmup=1, steps=2, mode="train"):
        fake, marks = FakeCompile(), []
        with mock.patch.object(torch, "compile", fake, create=True), \
                mock.patch.object(br, "cudagraph_step_marker", lambda: (lambda: marks.append(1))):
            total, phases, peak, info = br.run_config("tiny", 8, 2, "fp32", mode, warmup, steps,
                                                      torch.device("cpu"), 0, variant=variant,
                                                      compile_loss=compile_loss)
        return fake, marks, total, phases, peak, info

    def test_compile_wraps_the_model_alone(self):
        fake, marks, total, phases, peak, info = self.run_config("compile")
        self.assertEqual(len(fake.calls), 1)
        wrapped, options = fake.calls[0]
        self.assertIsInstance(wrapped, torch.nn.Module)  # the model; the loss stays eager
        self.assertEqual(options, {})
        self.assertEqual(marks, [])  # no cudagraph step marks without reduce-overhead
        self.assertEqual(len(total), 2)
        self.assertEqual([len(p) for p in phases], [2, 2, 2])
        self.assertIsNone(peak)
        self.assertEqual(info["warmup"], br.MIN_COMPILE_WARMUP)  # raised from 1: compilation is warm-up

    def test_reduce_overhead_marks_every_step(self):
        fake, marks, total, *_, info = self.run_config("compile-reduce-overhead", warmup=4, steps=3)
        self.assertEqual(fake.calls[0][1], {"mode": "reduce-overhead"})
        self.assertEqual(info["warmup"], 4)
        self.assertEqual(len(marks), 4 + 3)
        self.assertEqual(len(total), 3)

    def test_compile_loss_wraps_model_and_loss(self):
        fake, *_ = self.run_config("compile", compile_loss=True, mode="forward")
        wrapped, _ = fake.calls[0]
        self.assertNotIsInstance(wrapped, torch.nn.Module)
        # the wrapped function returns the course's loss of the model
        torch.manual_seed(0)
        model = br.rm.build_model("tiny", context_length=8, seed=0)
        x = torch.randint(0, 10000, (2, 8))
        with mock.patch.object(torch, "compile", lambda f, **o: f, create=True):
            fn, compiled = br.build_loss_fn(model, "compile", True)
            self.assertEqual(compiled, "model+loss")
            torch.testing.assert_close(fn(x, x), br.rm.cross_entropy(model(x), x))

    def test_eager_variants_do_not_compile(self):
        fake, marks, total, *_ = self.run_config("reference", warmup=0, steps=1)
        self.assertEqual(fake.calls, [])
        self.assertEqual(marks, [])
        self.assertEqual(len(total), 1)

    def test_rows_say_what_ran(self):
        row = br.make_row("tiny", 8, 2, "fp32", "train", "ok", [1.0, 2.0], [[0.5, 1.0]], None,
                          dict(variant="compile", compiled="model", optimizer="reference", warmup=3, warmup_s=12.345,
                               message=""))
        self.assertEqual((row["variant"], row["compiled"], row["optimizer"], row["warmup"], row["warmup_s"]),
                         ("compile", "model", "reference", "3", "12.3"))
        failed = br.make_row("tiny", 8, 2, "fp32", "train", "failed", info=dict(variant="compile", message="X: y"))
        self.assertEqual((failed["status"], failed["message"], failed["total_mean_ms"]), ("failed", "X: y", ""))

    def test_oom_is_found_behind_a_compiler_error(self):
        try:
            try:
                raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
            except RuntimeError as inner:
                raise ValueError("backend compiler failed") from inner
        except ValueError as exc:
            self.assertTrue(br.is_oom(exc))
        self.assertFalse(br.is_oom(ValueError("backend compiler failed")))

    @unittest.skipIf(TORCH2, "this PyTorch has torch.compile")
    def test_clear_message_without_pytorch_2(self):
        err = io.StringIO()
        with mock.patch.object(sys, "argv", ["bench_reference.py", "--variant", "compile", "--device", "cpu"]), \
                contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as done:
            br.main()
        self.assertEqual(done.exception.code, 2)
        self.assertIn("torch.compile needs PyTorch 2", err.getvalue())

    def test_compile_loss_needs_a_compile_variant(self):
        err = io.StringIO()
        with mock.patch.object(sys, "argv", ["bench_reference.py", "--compile-loss", "--device", "cpu"]), \
                contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as done:
            br.main()
        self.assertEqual(done.exception.code, 2)
        self.assertIn("--compile-loss needs --variant compile", err.getvalue())


def ref_row(model, precision, status, total, variant, compiled="model", optimizer="reference", warmup_s="40.0",
            message=""):
    row = {c: "" for c in br.COLUMNS}
    row.update(model=model, context="256", batch="4", precision=precision, mode="train", status=status,
               total_mean_ms=total, forward_mean_ms="1", backward_mean_ms="2", optimizer_mean_ms="3",
               peak_memory_bytes=str(2**30), variant=variant, compiled=compiled, optimizer=optimizer,
               warmup_s=warmup_s, message=message)
    return row


class CompareCompile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, fields, rows):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            for r in rows:
                w.writerow(r)
        return path

    def ours(self, name, rows, engine_column=True):
        fields = ["model", "context", "batch", "precision", "mode"] + (["engine"] if engine_column else []) + \
                 ["status", "total_mean_ms", "forward_mean_ms", "backward_mean_ms", "optimizer_mean_ms",
                  "flops_per_step", "peak_tflops", "mfu", "peak_memory_bytes"]
        out = []
        for model, precision, engine, status, total, mfu in rows:
            r = dict(model=model, context="256", batch="4", precision=precision, mode="train", status=status,
                     total_mean_ms=total, forward_mean_ms="1", backward_mean_ms="2", optimizer_mean_ms="3",
                     flops_per_step="1e12", peak_tflops="100", mfu=mfu, peak_memory_bytes=str(2**31))
            if engine_column:
                r["engine"] = engine
            out.append(r)
        return self.write(name, fields, out)

    def table(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
                mock.patch.object(sys, "argv", ["compare_compile.py"] + list(args)):
            self.assertEqual(cc.main(), 0)
        return out.getvalue()

    def line_of(self, text, *cells):
        for line in text.splitlines():
            if line.startswith("| " + " | ".join(cells) + " |"):
                return [c.strip() for c in line.strip("|").split("|")]
        self.fail(f"no row {cells} in\n{text}")

    def test_table(self):
        ours = self.ours("ours.csv", [("small", "fp32", "eager", "ok", "44.5", "0.3"),
                                      ("small", "fp32", "fused", "ok", "25", "0.4"),
                                      ("small", "bf16", "fused", "ok", "30", "0.05"),
                                      ("xl", "bf16", "fused", "OOM", "", "")])
        again = self.ours("again.csv", [("small", "fp32", "fused", "ok", "25.5", "0.4")])
        eager = self.write("eager.csv", br.COLUMNS, [ref_row("small", "fp32", "ok", "56.6", "reference", "-")])
        comp = self.write("c_small.csv", br.COLUMNS, [ref_row("small", "fp32", "ok", "29.7", "compile"),
                                                      ref_row("small", "bf16", "ok", "26.8", "compile")])
        comp_xl = self.write("c_xl.csv", br.COLUMNS, [ref_row("xl", "bf16", "failed", "", "compile",
                                                              message="BackendCompilerFailed: x")])
        ro = self.write("ro.csv", br.COLUMNS, [ref_row("small", "fp32", "ok", "31", "compile-reduce-overhead"),
                                               ref_row("small", "bf16", "ok", "20", "compile-reduce-overhead")])
        text = self.table("--ours", ours, "--ours-again", again, "--torch", f"eager={eager}",
                          "--torch", f"compile={comp}", "--torch", f"compile={comp_xl}",
                          "--torch", f"compile-ro={ro}", "--torch", f"compile-ro={self.dir.name}/missing.csv",
                          "--status", "compile-ro:xl=timeout", "--status", "eager:*=skipped")
        fp32 = self.line_of(text, "small", "256", "4", "fp32", "train")
        # ours eager, ours fused (second run), torch eager, compile, compile-ro, best, ratio, drift, MFU, compile MFU
        self.assertEqual(fp32[5:15], ["44.50", "25.00 (25.50)", "56.60", "29.70", "31.00", "29.70 (compile)",
                                      "0.842", "+2.0 %", "40.0 %", "33.7 %"])
        bf16 = self.line_of(text, "small", "256", "4", "bf16", "train")
        self.assertEqual(bf16[5:12], ["-", "30.00", "skipped", "26.80", "20.00", "20.00 (compile-ro)", "1.500"])
        xl = self.line_of(text, "xl", "256", "4", "bf16", "train")
        self.assertEqual(xl[5:11], ["-", "OOM", "skipped", "failed", "timeout", "-"])
        self.assertIn("Fused at most best compile (fused / best compile <= 1): 1 of 2 rows", text)
        self.assertIn("- slower: small 256 4 bf16 train: 1.500x", text)
        self.assertIn("- compile: variant compile, compiled model, optimizer reference "
                      "(notes: BackendCompilerFailed: x)", text)
        self.assertIn("- compile-ro, xl: timeout", text)
        second = text.split("## Phases")[1]
        p = self.line_of(second, "small", "256", "4", "fp32", "train")
        self.assertEqual(p[5:10], ["1.00 / 2.00 / 3.00"] * 3 + ["2.00 / 2.00 / 1.00 / 1.00", "40 / 40"])

    def test_other_compile_runs_and_old_csvs(self):
        ours = self.ours("ours.csv", [("small", "bf16", "", "ok", "50", "")], engine_column=False)
        comp = self.write("c.csv", br.COLUMNS, [ref_row("small", "bf16", "ok", "26.8", "compile")])
        extra = self.write("x.csv", br.COLUMNS, [ref_row("small", "bf16", "ok", "15", "compile-reduce-overhead",
                                                         "model+loss", "torch-fused")])
        empty = os.path.join(self.dir.name, "empty.csv")
        open(empty, "w").close()
        text = self.table("--ours", ours, "--torch", f"compile={comp}", "--torch", f"compile-ro+fused-adamw={extra}",
                          "--torch", f"compile-ro={empty}")
        self.assertIn("| compile-ro+fused-adamw ms |", text)
        row = self.line_of(text, "small", "256", "4", "bf16", "train")
        self.assertEqual(row[5], "50.00")  # no engine column: eager
        self.assertEqual(row[6], "-")
        self.assertEqual(row[-2:], ["15.00 (compile-ro+fused-adamw)", "-"])
        self.assertIn("ours: no fused rows", text)
        self.assertIn("compiled model+loss, optimizer torch-fused", text)

    def test_bad_arguments(self):
        for args in (["--torch", "nolabel"], ["--status", "compile=x"]):
            with contextlib.redirect_stderr(io.StringIO()), mock.patch.object(sys, "argv", ["cc"] + args), \
                    self.assertRaises(SystemExit) as done:
                cc.main()
            self.assertEqual(done.exception.code, 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
