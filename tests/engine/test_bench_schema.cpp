#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "experiments/bench/bench_schema.h"
#include "io/csv_writer.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"
#include "schema/value_format.h"
#include "runners/gpu_peaks.h"
#include "experiments/bench/step_benchmark.h"

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

std::string bench_csv(const std::vector<BenchResult>& results) {
  std::ostringstream out;
  write_table_csv(out, bench_schema().table(results));
  return out.str();
}

TEST(CsvWriter, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(1.0 / 3.0), "0.3333333333333333");  // shortest that reads back
}

// The columns scripts read since the first release, in their order: the schema must keep them.
TEST(BenchSchema, CsvHeaderIsTheDocumentedOne) {
  std::string header;
  for (const auto& name : csv_header(bench_schema().columns())) header += (header.empty() ? "" : ",") + name;
  std::string phases;
  for (const char* p : {"total", "forward", "backward", "optimizer"}) {
    for (const char* s : {"mean", "std", "min", "median", "max"}) phases += std::string(p) + "_" + s + "_ms,";
  }
  EXPECT_EQ(header, "model,d_model,d_ff,layers,heads,vocab,context,batch,precision,mode,attention,engine,device,device_name,timer,"
                    "warmup,steps,status," + phases +
                    "tokens_per_s,parameters,flops_per_step,achieved_tflops,peak_tflops,mfu,peak_memory_bytes,"
                    "profiled_step_ms,profiler_slowdown,cuda_graphs,max_loss_diff,skipped_steps,message");
}

TEST(BenchSchema, CsvRowLinesUpWithTheHeader) {
  const auto r = sample_result();
  const auto columns = bench_schema().columns();
  const auto header = csv_header(columns);
  const auto row = csv_row(columns, bench_schema().values(r));
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

TEST(BenchSchema, OomRowKeepsConfigurationAndBlanksTheNumbers) {
  BenchResult r;
  r.config.model = model_preset("2.7B");
  r.status = RunStatus::out_of_memory;
  r.message = "CUDA out of memory, tried to allocate 2 GiB";
  summarize(r);
  const std::string text = bench_csv({r});
  EXPECT_NE(text.find("2.7B,2560,10240,32,32,10000,256,4,fp32,train,naive,eager,cpu,,,5,0,OOM,,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"CUDA out of memory, tried to allocate 2 GiB\""), std::string::npos);
}

TEST(BenchSchema, RunRecordRowHoldsTheCsvColumnsAsNumbers) {
  RunRecord record{RunEnvironment{"0.1.0", "2.11.0", "stepscope-cli bench", "2026-11-21T00:00:00Z"}, {}, {}};
  record.entries.push_back({sample_result(), nullptr});
  const auto doc = to_json(record);
  EXPECT_EQ(doc["environment"]["libtorch_version"], "2.11.0");
  const auto& row = doc["entries"][0]["row"];
  EXPECT_EQ(row.size(), bench_schema().fields.size());
  EXPECT_EQ(row["model"], "small");
  EXPECT_DOUBLE_EQ(row["total_mean_ms"].get<double>(), 5.0);
  EXPECT_TRUE(row["optimizer_mean_ms"].is_null());
  EXPECT_EQ(row["peak_memory_bytes"], 123456789);
  EXPECT_EQ(doc["entries"][0]["steps_ns"].size(), 2u);
  EXPECT_EQ(doc["entries"][0]["steps_ns"][1]["backward_ns"], 4000000);
}

// What a CSV says and what the record reads back as must be the same row, cell for cell.
TEST(BenchSchema, RecordReadsBackToTheSameCsv) {
  BenchResult oom;
  oom.config.model = model_preset("2.7B");
  oom.status = RunStatus::out_of_memory;
  oom.message = "CUDA out of memory, tried to allocate 2 GiB";
  summarize(oom);
  const std::vector<BenchResult> results{sample_result(), oom};
  RunRecord record;
  for (const auto& r : results) record.entries.push_back({r, nullptr});
  const RunRecord back = read_run_record(write_run_record(record));
  std::vector<BenchResult> read;
  for (const auto& e : back.entries) read.push_back(e.result);
  EXPECT_EQ(bench_csv(read), bench_csv(results));
  EXPECT_EQ(read[0].total.count, 2);
  EXPECT_EQ(read[0].optimizer.count, 0);
}

// The profilers' own steps: their mean step, and its ratio to the measured step (5 ms here).
TEST(BenchSchema, ProfiledStepsShowWhatTracingCost) {
  BenchResult r = sample_result();
  const auto columns = bench_schema().columns();
  const auto cell = [&](const BenchResult& result, const std::string& key) {
    const auto header = csv_header(columns);
    const auto row = csv_row(columns, bench_schema().values(result));
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == key) return row[i];
    }
    return std::string("<missing>");
  };
  EXPECT_EQ(cell(r, "profiled_step_ms"), "") << "no own steps: blank, not 0";
  EXPECT_EQ(cell(r, "profiler_slowdown"), "");
  r.profiled = summarize_ns({8000000, 9000000});
  EXPECT_EQ(cell(r, "profiled_step_ms"), "8.5");
  EXPECT_EQ(cell(r, "profiler_slowdown"), "1.7");
  RunRecord record;
  record.entries.push_back({r, nullptr});
  const RunRecord back = read_run_record(write_run_record(record));
  EXPECT_DOUBLE_EQ(back.entries[0].result.profiled.mean_ms, 8.5);
  EXPECT_EQ(back.entries[0].result.profiled.count, 2);
}

TEST(BenchSchema, ProfilersHaveStepsOfTheirOwnOnAGpuOnly) {
  BenchConfig c;
  c.warmup_steps = 2;
  c.measured_steps = 5;
  c.profile_operators = true;
  EXPECT_FALSE(profiles_in_own_steps(c)) << "the CPU: they watch the measured steps";
  EXPECT_EQ(total_steps(c), 7);
  c.device = parse_device("cuda:0");
  EXPECT_TRUE(profiles_in_own_steps(c));
  EXPECT_EQ(total_steps(c), 12);
  c.profile_operators = false;
  c.profile_memory = true;
  EXPECT_FALSE(profiles_in_own_steps(c)) << "the memory profiler costs the steps nothing";
  c.profile_kernels = true;
  EXPECT_TRUE(profiles_in_own_steps(c));
}

TEST(BenchSchema, DisplayShowsMeanAndSpreadAndMissingAsDash) {
  const auto table = bench_schema().table({sample_result()});
  const int total = table.column_index("total_mean_ms");
  const int optimizer = table.column_index("optimizer_mean_ms");
  const int mfu = table.column_index("mfu");
  ASSERT_GE(total, 0);
  EXPECT_EQ(schema::display_cell(table, 0, static_cast<size_t>(total)), "5.00 \u00b1 2.83 ms");
  EXPECT_EQ(schema::display_cell(table, 0, static_cast<size_t>(optimizer)), "-");
  EXPECT_NE(schema::display_cell(table, 0, static_cast<size_t>(mfu)).find('%'), std::string::npos);
}

TEST(BenchSchema, ExtremeValuesAreWrittenWholeNotCut) {
  // 1e308 has 309 fixed digits: cut to a buffer it would read as 1e62; it is written exactly.
  EXPECT_EQ(schema::display_text(schema::Value(1e308), schema::ColumnKind::milliseconds), "1e+305 s");
  EXPECT_EQ(schema::csv_text(schema::Value(-1e308), schema::CsvNumberFormat{3, false, 0}), "-1e+308");
  EXPECT_EQ(schema::csv_text(schema::Value(1.5e16), schema::CsvNumberFormat{0, false, 0}), "15000000000000000");
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
