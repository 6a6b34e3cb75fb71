#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "io/bench_export.h"
#include "io/csv_writer.h"
#include "runners/gpu_peaks.h"
#include "runners/step_benchmark.h"

namespace stepscope {
namespace {

BenchResult sample_result() {
  BenchResult r;
  r.config.model = model_preset("small");
  r.config.mode = StepMode::forward_backward;
  r.device_name = "NVIDIA H100 80GB HBM3";
  r.steps = {{1000000, 2000000, 0, 3000000}, {3000000, 4000000, 0, 7000000}};
  r.peak_memory_bytes = 123456789;
  summarize(r);
  return r;
}

TEST(CsvWriter, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(1.0 / 3.0), "0.3333333333333333");  // shortest that reads back
}

TEST(BenchExport, CsvRowLinesUpWithTheHeader) {
  const auto r = sample_result();
  const auto header = bench_csv_header();
  const auto row = bench_csv_row(r);
  ASSERT_EQ(header.size(), row.size());
  const auto column = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return row[i];
    }
    return std::string("<missing>");
  };
  EXPECT_EQ(column("model"), "small");
  EXPECT_EQ(column("mode"), "forward-backward");
  EXPECT_EQ(column("status"), "ok");
  EXPECT_EQ(column("total_mean_ms"), "5");
  EXPECT_EQ(column("forward_median_ms"), "2");
  EXPECT_EQ(column("optimizer_mean_ms"), "");  // not run in this mode
  EXPECT_EQ(column("peak_memory_bytes"), "123456789");
  EXPECT_EQ(column("tokens_per_s"), format_number(1024 / 0.005));
  EXPECT_EQ(column("peak_tflops"), "66.9");
  EXPECT_EQ(column("mfu"), format_number(r.achieved_tflops / 66.9));
}

TEST(BenchExport, OomRowKeepsConfigurationAndBlanksTheNumbers) {
  BenchResult r;
  r.config.model = model_preset("2.7B");
  r.status = RunStatus::out_of_memory;
  r.message = "CUDA out of memory, tried to allocate 2 GiB";
  summarize(r);
  std::ostringstream out;
  write_bench_csv(out, {r});
  const std::string text = out.str();
  EXPECT_NE(text.find("2.7B,2560,10240,32,32,10000,256,4,fp32,train,cpu,,,5,0,OOM,,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"CUDA out of memory, tried to allocate 2 GiB\""), std::string::npos);
}

TEST(BenchExport, JsonHasNumbersStepsAndEnvironment) {
  std::ostringstream out;
  write_bench_json(out, {sample_result()}, RunEnvironment{"0.1.0", "2.11.0", "stepscope-cli bench", "2026-11-21T00:00:00Z"});
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["environment"]["libtorch_version"], "2.11.0");
  const auto& row = doc["results"][0];
  EXPECT_EQ(row["model"], "small");
  EXPECT_DOUBLE_EQ(row["total_mean_ms"].get<double>(), 5.0);
  EXPECT_TRUE(row["optimizer_mean_ms"].is_null());
  EXPECT_EQ(row["steps_ns"].size(), 2u);
  EXPECT_EQ(row["steps_ns"][1]["backward_ns"], 4000000);
}

TEST(GpuPeaks, LooksUpByNameAndPrecision) {
  EXPECT_DOUBLE_EQ(peak_tflops("NVIDIA H100 80GB HBM3", Precision::bf16), 989.4);
  EXPECT_DOUBLE_EQ(peak_tflops("NVIDIA H100 PCIe", Precision::fp32), 51.2);
  EXPECT_DOUBLE_EQ(peak_tflops("NVIDIA H200", Precision::fp16), 989.4);
  EXPECT_DOUBLE_EQ(peak_tflops("NVIDIA A100-SXM4-80GB", Precision::fp32), 19.5);
  EXPECT_DOUBLE_EQ(peak_tflops("Some Future GPU", Precision::bf16), 0.0);
}

}  // namespace
}  // namespace stepscope
