// Files of earlier builds still open: "stepscope-run" version 1 (history databases, shared
// run files) and "stepscope-bench" version 1 (the CLI's --json). The documents below are
// written out in those formats' layouts, as earlier builds wrote them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "io/run_record_json.h"

namespace stepscope {
namespace {

const char* const kRunV1 = R"json({
  "format": "stepscope-run", "version": 1,
  "environment": {"stepscope_version": "0.1.0", "libtorch_version": "2.11.0",
                  "command_line": "stepscope (desktop)", "started_at": "2026-11-21T12:00:00Z"},
  "entries": [{
    "result": {
      "config": {"model": {"name": "tiny", "vocab": 1000, "context_length": 64, "d_model": 64, "d_ff": 256,
                           "layers": 2, "heads": 4, "rope_theta": 10000.0},
                 "batch": 4, "context": 64, "precision": "fp32", "mode": "forward", "warmup": 1,
                 "measured_steps": 2, "device": "cpu", "seed": 7, "peak_tflops": 0.0,
                 "profile_kernels": false, "profile_memory": false, "memory_event_limit": 1000000},
      "status": "ok", "message": "", "device_name": "CPU (x86_64, 2 threads)", "timer": "steady-clock",
      "steps_ns": [{"forward_ns": 1000000, "backward_ns": 0, "optimizer_ns": 0, "total_ns": 1000000},
                   {"forward_ns": 3000000, "backward_ns": 0, "optimizer_ns": 0, "total_ns": 3000000}],
      "total": {"mean_ms": 2.0, "std_ms": 1.4142135623730951, "min_ms": 1.0, "median_ms": 2.0, "max_ms": 3.0, "count": 2},
      "forward": {"mean_ms": 2.0, "std_ms": 1.4142135623730951, "min_ms": 1.0, "median_ms": 2.0, "max_ms": 3.0, "count": 2},
      "backward": {"mean_ms": 0.0, "std_ms": 0.0, "min_ms": 0.0, "median_ms": 0.0, "max_ms": 0.0, "count": 0},
      "optimizer": {"mean_ms": 0.0, "std_ms": 0.0, "min_ms": 0.0, "median_ms": 0.0, "max_ms": 0.0, "count": 0},
      "parameters": 230464, "tokens_per_s": 128000.0, "flops_per_step": 58720256.0, "achieved_tflops": 2.9e-05,
      "peak_tflops": 0.0, "mfu": -1.0, "peak_memory_bytes": -1, "skipped_steps": 0, "kernel_profile": null
    },
    "timeline": null
  }]
})json";

const char* const kBenchV1 = R"json({
  "format": "stepscope-bench", "version": 1,
  "environment": {"stepscope_version": "0.1.0", "libtorch_version": "1.13.1",
                  "command_line": "stepscope-cli bench --model tiny", "started_at": "2026-11-21T12:00:00Z"},
  "results": [{
    "model": "tiny", "d_model": 64, "d_ff": 256, "layers": 2, "heads": 4, "vocab": 1000, "context": 64,
    "batch": 4, "precision": "fp32", "mode": "train", "device": "cpu", "device_name": "CPU", "timer": "steady-clock",
    "warmup": 1, "steps": 2, "status": "ok",
    "total_mean_ms": 6, "total_std_ms": 1.5, "total_min_ms": 5, "total_median_ms": 6, "total_max_ms": 7,
    "forward_mean_ms": 2, "forward_std_ms": 0.5, "forward_min_ms": 1.5, "forward_median_ms": 2, "forward_max_ms": 2.5,
    "backward_mean_ms": 3, "backward_std_ms": 0.5, "backward_min_ms": 2.5, "backward_median_ms": 3, "backward_max_ms": 3.5,
    "optimizer_mean_ms": 1, "optimizer_std_ms": 0.5, "optimizer_min_ms": 0.5, "optimizer_median_ms": 1, "optimizer_max_ms": 1.5,
    "tokens_per_s": 42666.666666666664, "parameters": 230464, "flops_per_step": 176160768, "achieved_tflops": 2.9e-05,
    "peak_tflops": null, "mfu": null, "peak_memory_bytes": null, "skipped_steps": 0, "message": null,
    "steps_ns": [{"forward_ns": 1500000, "backward_ns": 2500000, "optimizer_ns": 1000000, "total_ns": 5000000},
                 {"forward_ns": 2500000, "backward_ns": 3500000, "optimizer_ns": 1000000, "total_ns": 7000000}]
  }]
})json";

TEST(RunRecordLegacy, ReadsRunVersion1) {
  const RunRecord record = read_run_record(kRunV1);
  EXPECT_EQ(record.environment.command_line, "stepscope (desktop)");
  ASSERT_EQ(record.entries.size(), 1u);
  const BenchResult& r = record.entries[0].result;
  EXPECT_EQ(r.config.model.name, "tiny");
  EXPECT_EQ(r.config.seed, 7u);
  EXPECT_EQ(r.config.mode, StepMode::forward);
  EXPECT_EQ(r.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(r.total.mean_ms, 2.0);
  EXPECT_EQ(r.total.count, 2);
  EXPECT_EQ(r.backward.count, 0);
  EXPECT_EQ(r.peak_memory_bytes, -1);
  EXPECT_FALSE(record.entries[0].timeline);
  EXPECT_TRUE(record.tables.empty());
}

TEST(RunRecordLegacy, ReadsTheCliJsonOfEarlierBuilds) {
  const RunRecord record = read_run_record(kBenchV1);
  EXPECT_EQ(record.environment.libtorch_version, "1.13.1");
  ASSERT_EQ(record.entries.size(), 1u);
  const BenchResult& r = record.entries[0].result;
  EXPECT_EQ(r.config.model.name, "tiny");
  EXPECT_EQ(r.config.model.d_ff, 256);
  EXPECT_EQ(r.config.model.context_length, 64);
  EXPECT_EQ(r.config.mode, StepMode::train);
  EXPECT_EQ(r.config.warmup_steps, 1);
  EXPECT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[1].backward_ns, 3500000);
  EXPECT_DOUBLE_EQ(r.optimizer.max_ms, 1.5);
  EXPECT_EQ(r.optimizer.count, 2);
  EXPECT_DOUBLE_EQ(r.tokens_per_second, 42666.666666666664);
  EXPECT_LT(r.mfu, 0);                 // null: unknown
  EXPECT_EQ(r.peak_memory_bytes, -1);  // null: unknown
  EXPECT_EQ(r.message, "");
}

TEST(RunRecordLegacy, BadValuesInOldFilesNameTheirPath) {
  auto document = nlohmann::json::parse(kBenchV1);
  document["results"][0]["precision"] = "fp8";
  try {
    run_record_from_json(document);
    FAIL() << "no error";
  } catch (const RunRecordError& e) {
    EXPECT_NE(std::string(e.what()).find("results[0].precision: unknown precision 'fp8'"), std::string::npos)
        << e.what();
  }
  document = nlohmann::json::parse(kBenchV1);
  document["version"] = 2;
  EXPECT_THROW(run_record_from_json(document), RunRecordError);
}

}  // namespace
}  // namespace stepscope
