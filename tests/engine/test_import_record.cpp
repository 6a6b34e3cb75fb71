// A torch.profiler trace and a CUDA memory snapshot as Stepscope run records
// (imports/import_record.h), against what the committed fixtures say independently: the trace's
// own deviceProperties and ProfilerStep#N spans as tests/reference/torch_trace_summary.py reads
// them (trace_cuda.expected.json), the snapshot's peak as tests/reference/memory_snapshot_summary.py
// replays it (snapshot_cuda.expected.json); then the record's round trip through JSON, how an
// import's bench row reads, and files that are not profiles.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdio>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "experiments/bench/bench_schema.h"
#include "imports/import_record.h"
#include "imports/memory_snapshot.h"
#include "imports/torch_trace.h"
#include "snapshot_test_support.h"
#include "test_support.h"

using namespace stepscope;
using imports::ImportError;
using imports::ProfileKind;

namespace {

const std::string kTrace = stepscope::testing::data_path("torch_profiles/trace_cuda.json.gz");
const std::string kSnapshot = stepscope::testing::data_path("torch_profiles/snapshot_cuda.pickle");

nlohmann::json read_json(const std::string& relative) {
  std::ifstream in(stepscope::testing::data_path(relative));
  return nlohmann::json::parse(in);
}

const RunRecord& trace_fixture() {
  static const RunRecord record = imports::import_profile(kTrace, ProfileKind::torch_trace);
  return record;
}

std::string temp_file(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "import_record_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string sniff_error(const std::string& path) {
  try {
    imports::sniff_profile(path);
  } catch (const ImportError& e) {
    return e.what();
  }
  return "";
}

std::string value_of(const RunInputs& inputs, const std::string& key) {
  for (const auto& [k, v] : inputs.values) {
    if (k == key) return v;
  }
  return "";
}

}  // namespace

TEST(ImportRecord, ATraceIsOneEntryWithItsDeviceStepsKernelsAndOperators) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto want = read_json("torch_profiles/trace_cuda.expected.json");
  const auto fixture = read_json("torch_profiles/fixtures_cuda.json");
  const RunRecord& record = trace_fixture();
  EXPECT_EQ(record.inputs.experiment, "import");
  EXPECT_EQ(value_of(record.inputs, "file"), kTrace);
  EXPECT_EQ(value_of(record.inputs, "kind"), "torch.profiler trace");
  ASSERT_EQ(record.entries.size(), 1u);
  const BenchResult& r = record.entries[0].result;
  EXPECT_EQ(r.imported_from, kTrace);
  EXPECT_TRUE(is_import(r));
  EXPECT_EQ(r.device_name, fixture["device"].get<std::string>()) << "deviceProperties' name";
  EXPECT_EQ(to_string(r.config.device), "cuda:0");
  EXPECT_EQ(describe(r), "import: trace_cuda.json.gz (cuda:0)");
  // Steps: ProfilerStep#2 and #3, each its CPU span; no phases made up.
  ASSERT_EQ(r.steps.size(), want["steps"].size());
  int64_t spans = 0;
  for (const auto& s : r.steps) {
    spans += s.total_ns;
    EXPECT_EQ(s.forward_ns + s.backward_ns + s.optimizer_ns, 0);
  }
  EXPECT_NEAR(static_cast<double>(spans), want["measured_cpu_us"].get<double>() * 1000.0, 2.0);
  EXPECT_EQ(r.total.count, 2);
  EXPECT_NEAR(r.total.mean_ms * 2, want["measured_cpu_us"].get<double>() / 1000.0, 1e-6);
  EXPECT_EQ(r.forward.count + r.backward.count + r.optimizer.count, 0);
  EXPECT_EQ(r.config.measured_steps, 2);
  ASSERT_TRUE(r.kernel_profile);
  EXPECT_EQ(r.kernel_profile->measured_steps, 2);
  EXPECT_EQ(r.kernel_profile->steps.size(), want["step_usage"].size()) << "GPU span and busy time per step";
  ASSERT_TRUE(r.operator_profile);
  EXPECT_EQ(r.operator_profile->operators.size(), want["operators"].size());
  EXPECT_EQ(r.peak_memory_bytes, -1) << "the trace recorded no memory";
  EXPECT_NE(r.message.find("no forward, backward or optimizer phases"), std::string::npos) << r.message;
  // baseTimeNanoseconds + the first step's start, as a date.
  EXPECT_TRUE(std::regex_match(record.environment.started_at, std::regex("20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z")))
      << record.environment.started_at;
  ASSERT_TRUE(record.outcome);
  EXPECT_EQ(record.outcome->status, RunStatus::ok);
}

// The bench row of an import names it by its file and leaves out what only our runs have.
TEST(ImportRecord, AnImportsBenchRowLeavesOutOurModelSettings) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto& schema = bench_schema();
  const auto values = schema.values(trace_fixture().entries[0].result);
  const auto columns = schema.columns();
  for (size_t c = 0; c < columns.size(); ++c) {
    const std::string& key = columns[c].key;
    SCOPED_TRACE(key);
    if (key == "model") {
      EXPECT_EQ(schema::text_of(values[c]), "import: trace_cuda.json.gz (cuda:0)");
    } else if (key == "context" || key == "batch" || key == "precision" || key == "mode" || key == "attention" ||
               key == "engine" || key == "d_model" || key == "layers" || key == "parameters" ||
               key == "tokens_per_s" || key == "mfu" || key == "achieved_tflops" || key == "flops_per_step") {
      EXPECT_TRUE(schema::is_missing(values[c]));
    } else if (key == "total_mean_ms" || key == "device_name" || key == "device" || key == "timer") {
      EXPECT_FALSE(schema::is_missing(values[c]));
    }
  }
}

TEST(ImportRecord, TheRecordReadsBackAsAnImport) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const RunRecord& record = trace_fixture();
  const RunRecord back = read_run_record(write_run_record(record));
  EXPECT_EQ(back.inputs, record.inputs);
  ASSERT_EQ(back.entries.size(), 1u);
  const BenchResult& r = back.entries[0].result;
  EXPECT_EQ(r.imported_from, kTrace);
  EXPECT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.device_name, record.entries[0].result.device_name);
  EXPECT_EQ(r.total.count, 2);
  ASSERT_TRUE(r.kernel_profile);
  EXPECT_EQ(r.kernel_profile->ranges.size(), record.entries[0].result.kernel_profile->ranges.size());
  // Our own runs' records carry no such member.
  RunRecord ours;
  ours.entries.push_back({});
  EXPECT_EQ(write_run_record(ours).find("imported_from"), std::string::npos);
}

TEST(ImportRecord, ASnapshotIsAnEntryPerDeviceWithItsTimelineAndPeak) {
  const auto want = read_json("torch_profiles/snapshot_cuda.expected.json")["devices"];
  const RunRecord record = imports::import_profile(kSnapshot, ProfileKind::memory_snapshot);
  EXPECT_EQ(value_of(record.inputs, "kind"), "memory snapshot");
  ASSERT_EQ(record.entries.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& entry = record.entries[i];
    const BenchResult& r = entry.result;
    SCOPED_TRACE("device " + std::to_string(want[i]["device"].get<int>()));
    EXPECT_EQ(r.config.device.index, want[i]["device"].get<int>());
    EXPECT_EQ(r.peak_memory_bytes, want[i]["peak_bytes"].get<int64_t>()) << "memory_viz's peak, to the byte";
    ASSERT_TRUE(entry.timeline);
    EXPECT_EQ(entry.timeline, r.memory_timeline);
    const auto* peak = stepscope::testing::overall(*entry.timeline);
    ASSERT_NE(peak, nullptr);
    EXPECT_EQ(peak->allocated_bytes, want[i]["peak_bytes"].get<int64_t>());
    EXPECT_EQ(entry.timeline->baseline_bytes, want[i]["before_recording_bytes"].get<int64_t>());
    EXPECT_EQ(entry.timeline->points.size(), want[i]["alloc"].get<size_t>() + want[i]["free_completed"].get<size_t>());
    // The largest allocations are named by the frame that made them, the user's own first.
    ASSERT_FALSE(entry.timeline->largest.empty());
    size_t framed = 0;
    for (const auto& a : entry.timeline->largest) {
      if (std::regex_match(a.phase, std::regex("[^/]+\\.py:[0-9]+ in .+"))) ++framed;  // file name, line, function
    }
    EXPECT_GT(framed, entry.timeline->largest.size() / 2);
    EXPECT_TRUE(r.steps.empty()) << "a snapshot times no steps";
    EXPECT_EQ(r.total.count, 0);
    EXPECT_EQ(describe(r), "import: snapshot_cuda.pickle (cuda:" + std::to_string(r.config.device.index) + ")");
  }
  // It reads back, timeline and all.
  const RunRecord back = read_run_record(write_run_record(record));
  ASSERT_EQ(back.entries.size(), record.entries.size());
  ASSERT_TRUE(back.entries[0].timeline);
  EXPECT_EQ(back.entries[0].result.peak_memory_bytes, record.entries[0].result.peak_memory_bytes);
  EXPECT_EQ(back.entries[0].timeline->largest.size(), record.entries[0].timeline->largest.size());
}

TEST(ImportRecord, SniffingReadsContentNotNames) {
  EXPECT_EQ(imports::sniff_profile(kSnapshot), ProfileKind::memory_snapshot);
  if (imports::reads_gzip()) EXPECT_EQ(imports::sniff_profile(kTrace), ProfileKind::torch_trace);
  // A run record named like a trace is a run record; a trace named .pickle is a trace.
  RunRecord ours;
  ours.entries.push_back({});
  EXPECT_EQ(imports::sniff_profile(temp_file("run.trace.json", write_run_record(ours))), ProfileKind::run_record);
  EXPECT_EQ(imports::sniff_profile(temp_file("t.pickle", R"( {"schemaVersion": 1, "traceEvents": []})")),
            ProfileKind::torch_trace);
  EXPECT_EQ(imports::sniff_profile(temp_file("bare.json", R"([{"ph": "X"}])")), ProfileKind::torch_trace);
  EXPECT_EQ(imports::sniff_profile(temp_file("late.json", R"({"meta": 1, "traceEvents": []})")), ProfileKind::torch_trace);
}

TEST(ImportRecord, WhatIsNoProfileIsRefusedByName) {
  EXPECT_NE(sniff_error("/nonexistent/t.json").find("/nonexistent/t.json: no such file"), std::string::npos);
  EXPECT_NE(sniff_error(::testing::TempDir()).find("a folder"), std::string::npos);
  const std::string empty = temp_file("empty.json", "");
  EXPECT_EQ(sniff_error(empty), empty + ": the file is empty");
  const std::string text = temp_file("notes.txt", "hello");
  EXPECT_NE(sniff_error(text).find(text + ": not a Stepscope run record, a torch.profiler trace"), std::string::npos);
  const std::string other = temp_file("other.json", R"({"name": "x"})");
  EXPECT_NE(sniff_error(other).find("its first member is \"name\""), std::string::npos);
  // A truncated trace and a damaged pickle: the readers' messages, naming the file.
  const std::string truncated = temp_file("cut.json", R"({"traceEvents": [{"ph": "X", "cat": "kernel")");
  try {
    imports::import_profile(truncated, ProfileKind::torch_trace);
    FAIL() << "a truncated trace was imported";
  } catch (const ImportError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(truncated + ":", 0), 0u) << e.what();
  }
  const std::string pickle = temp_file("cut.pickle", std::string("\x80\x04\x95", 3));
  try {
    imports::import_profile(pickle, ProfileKind::memory_snapshot);
    FAIL() << "a damaged pickle was imported";
  } catch (const ImportError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(pickle, 0), 0u) << e.what();
  }
}

// A snapshot's progress moves while its pickle is decoded (most of the work), not only at the
// stages' ends, and a cancel there stops it.
TEST(ImportRecord, ASnapshotReportsProgressWhileItsPickleIsDecoded) {
  imports::ImportOptions options;
  std::vector<double> seen;
  options.progress = [&](double f) {
    seen.push_back(f);
    return true;
  };
  imports::import_profile(kSnapshot, ProfileKind::memory_snapshot, options);
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), 1.0);
  const auto decoding = std::count_if(seen.begin(), seen.end(), [](double f) { return f > 0.0 && f < 0.6; });
  EXPECT_GE(decoding, 2) << "progress during the decoding";
  int calls = 0;
  options.progress = [&](double f) { return !(f > 0.0 && f < 0.6 && ++calls == 1); };
  EXPECT_THROW(imports::import_profile(kSnapshot, ProfileKind::memory_snapshot, options), imports::ImportCancelled);
}

TEST(ImportRecord, CancellingStopsTheImport) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  imports::ImportOptions options;
  int calls = 0;
  options.progress = [&](double) { return ++calls < 2; };
  EXPECT_THROW(imports::import_profile(kTrace, ProfileKind::torch_trace, options), imports::ImportCancelled);
  options.progress = [](double) { return false; };
  EXPECT_THROW(imports::import_profile(kSnapshot, ProfileKind::memory_snapshot, options), imports::ImportCancelled);
}
