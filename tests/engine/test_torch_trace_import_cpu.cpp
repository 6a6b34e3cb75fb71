// A CPU-only torch.profiler trace written by PyTorch 1.13 without Kineto (Debian's python3-torch;
// the committed fixture trace_cpu.json.gz, made by tests/reference/make_torch_profile_fixtures.py
// --device cpu): a bare JSON array of events without "cat", integer microseconds, no input shapes.
// Checked against two independent readings of the same profile:
// - tests/reference/torch_trace_summary.py, which reads the file with Python's json module alone
//   (trace_cpu.expected.json): the steps, every operator group's calls and CPU times, the
//   annotations' CPU time per range, to the microsecond (the file's own unit, so exactly);
// - torch.profiler's own key_averages().table() of the same profile, by name
//   (key_averages_by_name_cpu.txt): calls, CPU total and self CPU of every operator, within half
//   the last digit it prints, once the few operators outside the steps (which it counts and the
//   steps do not) are added back.
// Then crafted legacy traces for what the fixture holds too rarely to pin down by hand: equal
// spans, an operator that starts inside another but ends after it, malformed events.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "imports/import_record.h"
#include "imports/legacy_trace_events.h"
#include "imports/torch_trace.h"
#include "imports/torch_trace_profile.h"
#include "imports/trace_operators.h"
#include "test_support.h"

using namespace stepscope;
using profiling::OperatorStats;

namespace {

const std::string kCpuTrace = stepscope::testing::data_path("torch_profiles/trace_cpu.json.gz");

nlohmann::json expected() {
  std::ifstream in(stepscope::testing::data_path("torch_profiles/trace_cpu.expected.json"));
  return nlohmann::json::parse(in);
}

const imports::TorchTrace& fixture() {
  static const imports::TorchTrace trace = imports::read_torch_trace(kCpuTrace);
  return trace;
}

const profiling::OperatorProfile& fixture_operators() {
  static const profiling::OperatorProfile profile = imports::trace_operator_profile(fixture());
  return profile;
}

// The trace's whole microseconds in ns: what the importer must hold, exactly.
int64_t us_to_ns(const nlohmann::json& us) { return std::llround(us.get<double>() * 1000.0); }

std::string key_of(const std::vector<std::string>& path, const std::string& name, const std::string& shapes) {
  std::string key;
  for (const auto& p : path) key += p + "/";
  return key + "|" + name + "|" + shapes;
}

struct PrintedTime {
  double ns = 0;
  double half_digit_ns = 0;  // half the last digit printed: how far the printed value may be off
};

// "2.203ms", "-3.000us", "1.2s" as key_averages prints them.
PrintedTime printed_time(const std::string& text) {
  std::smatch m;
  static const std::regex form("(-?[0-9]+)\\.?([0-9]*)(ms|us|s)");
  if (!std::regex_match(text, m, form)) throw std::runtime_error("not a time: " + text);
  const double scale = m[3] == "us" ? 1e3 : m[3] == "ms" ? 1e6 : 1e9;
  return {std::stod(text) * scale, 0.5 * scale * std::pow(10.0, -static_cast<double>(m[2].length()))};
}

struct KeyAveragesRow {
  std::string name;
  PrintedTime self_cpu, cpu_total;
  int64_t calls = 0;
};

// The rows of key_averages().table() (columns split by runs of two spaces or more): Name, Self
// CPU %, Self CPU, CPU total %, CPU total, CPU time avg, # of Calls.
std::vector<KeyAveragesRow> key_averages_by_name() {
  std::ifstream in(stepscope::testing::data_path("torch_profiles/key_averages_by_name_cpu.txt"));
  std::vector<KeyAveragesRow> rows;
  const std::regex gap("\\s{2,}");
  const std::regex count("[0-9]+");
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    const std::string trimmed = line.substr(first, line.find_last_not_of(' ') - first + 1);
    std::vector<std::string> cells(std::sregex_token_iterator(trimmed.begin(), trimmed.end(), gap, -1), {});
    if (cells.size() != 7 || !std::regex_match(cells[6], count)) continue;
    rows.push_back({cells[0], printed_time(cells[2]), printed_time(cells[4]), std::stoll(cells[6])});
  }
  return rows;
}

std::string temp_file(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "trace_cpu_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

// What the file holds, as read: no categories, no GPU, no CUDA calls, no shapes, one thread.
TEST(TorchTraceImportCpu, TheLegacyLayoutIsReadByItsEventsNames) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto want = expected();
  const auto& trace = fixture();
  EXPECT_EQ(trace.uncategorized_events, want["uncategorized_events"].get<int64_t>());
  EXPECT_EQ(trace.skipped_events, 0);
  EXPECT_EQ(trace.events, static_cast<int64_t>(trace.ranges.size() + trace.operators.size()));
  EXPECT_TRUE(trace.activities.empty());
  EXPECT_TRUE(trace.api_calls.empty());
  EXPECT_TRUE(trace.devices.empty());
  EXPECT_FALSE(trace.input_shapes_recorded);
  EXPECT_EQ(trace.base_time_ns, -1);
  EXPECT_EQ(trace.threads, std::vector<std::string>{"CPU functions/1"});
  std::set<std::string> annotations;
  for (const auto& r : trace.ranges) annotations.insert(r.name);
  EXPECT_EQ(annotations, (std::set<std::string>{"ProfilerStep#1", "ProfilerStep#2", "train_step", "forward", "backward",
                                                 "optimizer", "Optimizer.step#AdamW.step",
                                                 "Optimizer.zero_grad#AdamW.zero_grad"}));
  const auto steps = imports::trace_steps(trace);
  EXPECT_FALSE(steps.whole_trace);
  std::vector<int> numbers;
  for (const auto& s : steps.steps) numbers.push_back(s.number);
  EXPECT_EQ(numbers, want["steps"].get<std::vector<int>>()) << "1.13 names its two active steps #1 and #2";
}

TEST(TorchTraceImportCpu, EveryOperatorGroupMatchesThePythonReading) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto want = expected();
  const auto& profile = fixture_operators();
  std::map<std::string, const OperatorStats*> got;
  for (const auto& op : profile.operators) got[key_of(op.range_path, op.name, op.input_shapes)] = &op;
  ASSERT_EQ(got.size(), want["operators"].size()) << "the same groups, no more";
  for (const auto& w : want["operators"]) {
    const std::string key =
        key_of(w["range_path"].get<std::vector<std::string>>(), w["name"], w["input_shapes"].get<std::string>());
    SCOPED_TRACE(key);
    ASSERT_TRUE(got.count(key));
    const OperatorStats& op = *got.at(key);
    EXPECT_EQ(op.input_shapes, "[]") << "the trace records none";
    EXPECT_EQ(op.calls, w["calls"].get<int64_t>());
    EXPECT_EQ(op.total_cpu_ns, us_to_ns(w["total_cpu_us"]));
    EXPECT_EQ(op.self_cpu_ns, us_to_ns(w["self_cpu_us"]));
    EXPECT_EQ(op.self_gpu_ns, 0);
    EXPECT_EQ(op.total_gpu_ns, 0);
    EXPECT_TRUE(op.kernels.empty());
  }
  EXPECT_EQ(profile.operator_calls, want["operator_calls"].get<int64_t>());
  EXPECT_EQ(profile.measured_cpu_ns, us_to_ns(want["measured_cpu_us"]));
  EXPECT_EQ(profile.measured_steps, 2);
  EXPECT_EQ(profile.unattributed_kernels, 0u);
  EXPECT_FALSE(profile.gpu_activity_recorded);
  EXPECT_NE(profile.source_message.find("CPU-only"), std::string::npos) << profile.source_message;
}

// torch.profiler's own table: per operator name, our groups of the steps summed over their paths,
// plus what started outside the steps (the profiler's own aten::zeros between steps), is what
// key_averages counted: the calls exactly, CPU total and self CPU to the printed digit. Its self
// CPU is negative where the whole microseconds make two children overlap; ours is the same.
TEST(TorchTraceImportCpu, OperatorTotalsAreKeyAverages) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  struct Sum {
    int64_t calls = 0;
    double total_cpu_ns = 0, self_cpu_ns = 0;
  };
  std::map<std::string, Sum> ours;
  for (const auto& op : fixture_operators().operators) {
    Sum& s = ours[op.name];
    s.calls += op.calls;
    s.total_cpu_ns += static_cast<double>(op.total_cpu_ns);
    s.self_cpu_ns += static_cast<double>(op.self_cpu_ns);
  }
  const auto want = expected();
  for (const auto& [name, o] : want["operators_outside_steps"].items()) {
    Sum& s = ours[name];
    s.calls += o["calls"].get<int64_t>();
    s.total_cpu_ns += o["total_cpu_us"].get<double>() * 1000.0;
    s.self_cpu_ns += o["self_cpu_us"].get<double>() * 1000.0;
  }
  std::set<std::string> compared;
  bool negative = false;
  for (const auto& row : key_averages_by_name()) {
    if (!imports::names_an_operator(row.name)) continue;  // annotations: ranges here, not operators
    SCOPED_TRACE(row.name);
    ASSERT_TRUE(ours.count(row.name));
    const Sum& s = ours.at(row.name);
    EXPECT_EQ(s.calls, row.calls);
    EXPECT_NEAR(s.total_cpu_ns, row.cpu_total.ns, row.cpu_total.half_digit_ns);
    EXPECT_NEAR(s.self_cpu_ns, row.self_cpu.ns, row.self_cpu.half_digit_ns);
    negative = negative || row.self_cpu.ns < 0;
    compared.insert(row.name);
  }
  EXPECT_GE(compared.size(), 100u) << "every operator name the table prints";
  for (const auto& [name, s] : ours) EXPECT_TRUE(compared.count(name)) << name << " is not in the table";
  EXPECT_TRUE(negative) << "the fixture holds overlapping siblings (whole microseconds)";
}

// The annotations are ranges: per range and its parent the instances and CPU time, as the Python
// reading nests them; the notes say what kind of trace it was.
TEST(TorchTraceImportCpu, AnnotationsAreRangesAndTheNotesSayCpuOnly) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto want = expected();
  const auto imported = imports::profile_torch_trace(fixture());
  const auto& profile = imported.profile;
  EXPECT_EQ(profile.measured_steps, 2);
  EXPECT_FALSE(profile.gpu_activity_recorded);
  EXPECT_EQ(profile.unattributed_kernels, 0u);
  std::map<std::pair<std::string, std::string>, const profiling::RangeCpuTiming*> got;
  for (const auto& r : profile.cpu_ranges) got[{r.range, r.parent}] = &r;
  ASSERT_EQ(got.size(), want["cpu_ranges"].size());
  for (const auto& w : want["cpu_ranges"]) {
    SCOPED_TRACE(w["range"].get<std::string>() + " in " + w["parent"].get<std::string>());
    const auto it = got.find({w["range"], w["parent"]});
    ASSERT_NE(it, got.end());
    EXPECT_EQ(it->second->instances, w["instances"].get<int64_t>());
    EXPECT_EQ(it->second->total_ns, us_to_ns(w["total_us"]));
  }
  std::string notes;
  for (const auto& n : imported.notes) notes += n + "\n";
  EXPECT_NE(notes.find("events without a category (PyTorch's profiler without Kineto"), std::string::npos) << notes;
  EXPECT_NE(notes.find("records no input shapes"), std::string::npos) << notes;
  EXPECT_NE(imported.notes.back().find("no GPU activity in the trace (a CPU-only profile)"), std::string::npos)
      << notes;
}

TEST(TorchTraceImportCpu, ImportProfileMakesACpuRunRecordWithOperators) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto want = expected();
  EXPECT_EQ(imports::sniff_profile(kCpuTrace), imports::ProfileKind::torch_trace) << "a gzip'd bare array";
  const RunRecord record = imports::import_profile(kCpuTrace, imports::ProfileKind::torch_trace);
  ASSERT_EQ(record.entries.size(), 1u);
  const BenchResult& r = record.entries[0].result;
  EXPECT_EQ(to_string(r.config.device), "cpu");
  EXPECT_EQ(r.device_name, "CPU");
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].total_ns + r.steps[1].total_ns, us_to_ns(want["measured_cpu_us"]));
  ASSERT_TRUE(r.operator_profile);
  EXPECT_EQ(r.operator_profile->operators.size(), want["operators"].size());
  EXPECT_EQ(r.operator_profile->operator_calls, want["operator_calls"].get<int64_t>());
  ASSERT_TRUE(r.kernel_profile);
  EXPECT_FALSE(r.kernel_profile->gpu_activity_recorded);
  EXPECT_NE(r.message.find("no GPU activity in the trace (a CPU-only profile)"), std::string::npos) << r.message;
  ASSERT_TRUE(record.outcome);
  EXPECT_EQ(record.outcome->status, RunStatus::ok) << "a CPU-only trace is no error";
}

// The name rule agrees with the categories Kineto writes: on PyTorch 2.11's trace every "cpu_op"
// name is an operator's and every "user_annotation" name an annotation's.
TEST(TorchTraceImportCpu, TheNameRuleGivesKinetosOwnCategories) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto trace = imports::read_torch_trace(stepscope::testing::data_path("torch_profiles/trace_cuda.json.gz"));
  EXPECT_EQ(trace.uncategorized_events, 0);
  EXPECT_GT(trace.operator_names.size(), 100u);
  for (const auto& name : trace.operator_names) EXPECT_TRUE(imports::names_an_operator(name)) << name;
  for (const auto& r : trace.ranges) EXPECT_FALSE(imports::names_an_operator(r.name)) << r.name;
  for (const char* op : {"aten::mm", "autograd::engine::evaluate_function: MmBackward0",
                         "torch::autograd::AccumulateGrad", "MmBackward0", "CopyBackwards", "detach", "detach_"}) {
    EXPECT_TRUE(imports::names_an_operator(op)) << op;
  }
  for (const char* annotation : {"train_step", "ProfilerStep#12", "Optimizer.step#AdamW.step", "Backward", "",
                                 "my backward", "::x", "detach it"}) {
    EXPECT_FALSE(imports::names_an_operator(annotation)) << annotation;
  }
}

namespace {

nlohmann::json legacy(const std::string& name, int64_t ts, int64_t dur) {
  return {{"name", name}, {"ph", "X"}, {"ts", ts}, {"dur", dur}, {"tid", 1}, {"pid", "CPU functions"}, {"args", {}}};
}

}  // namespace

// Hand-computed: a step holding "my_block"; aten::linear and aten::matmul over the same span (the
// first in the file holds the second); aten::mm in aten::matmul; aten::add starting inside
// aten::matmul but ending after it (not nested, as key_averages has it); aten::empty at the end of
// aten::linear, inside aten::add; detach in AddBackward0; aten::zeros after the step.
TEST(TorchTraceImportCpu, ACraftedLegacyTraceNestsAsKeyAveragesDoes) {
  nlohmann::json e = nlohmann::json::array();
  e.push_back(legacy("ProfilerStep#3", 0, 100));
  e.push_back(legacy("my_block", 10, 80));
  e.push_back(legacy("aten::linear", 20, 30));
  e.push_back(legacy("aten::matmul", 20, 30));
  e.push_back(legacy("aten::mm", 22, 20));
  e.push_back(legacy("aten::add", 45, 10));
  e.push_back(legacy("aten::empty", 50, 0));
  e.push_back(legacy("AddBackward0", 60, 10));
  e.push_back(legacy("detach", 62, 2));
  e.push_back(legacy("aten::zeros", 200, 5));
  const auto trace = imports::read_torch_trace_text(e.dump(), "legacy.json");
  EXPECT_EQ(trace.uncategorized_events, 10);
  EXPECT_EQ(trace.ranges.size(), 2u);
  EXPECT_EQ(trace.operators.size(), 8u);
  const auto profile = imports::trace_operator_profile(trace);
  std::map<std::string, const OperatorStats*> got;
  for (const auto& op : profile.operators) {
    EXPECT_EQ(op.range_path, std::vector<std::string>{"my_block"}) << op.name;
    got[op.name] = &op;
  }
  ASSERT_EQ(got.size(), 7u) << "aten::zeros is outside the step";
  const std::map<std::string, std::pair<int64_t, int64_t>> want = {  // total, self in µs
      {"aten::linear", {30, 0}}, {"aten::matmul", {30, 10}}, {"aten::mm", {20, 20}},  {"aten::add", {10, 10}},
      {"aten::empty", {0, 0}},   {"AddBackward0", {10, 8}},  {"detach", {2, 2}}};
  for (const auto& [name, times] : want) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(got.count(name));
    EXPECT_EQ(got[name]->calls, 1);
    EXPECT_EQ(got[name]->total_cpu_ns, times.first * 1000);
    EXPECT_EQ(got[name]->self_cpu_ns, times.second * 1000);
  }
  EXPECT_EQ(profile.operator_calls, 7);
  EXPECT_EQ(profile.measured_steps, 1);
  EXPECT_EQ(profile.measured_cpu_ns, 100000);
  const auto steps = imports::trace_steps(trace);
  ASSERT_EQ(steps.steps.size(), 1u);
  EXPECT_EQ(steps.steps[0].number, 3);
}

// Malformed events are skipped and counted, never fatal to the reader; a file with nothing a
// trace holds is refused by the import, naming the file; what 1.13's exporter writes unescaped
// (a name with a quote) is refused as JSON, naming the file.
TEST(TorchTraceImportCpu, WhatIsNotALegacyTraceIsRefusedSayingWhy) {
  const auto trace = imports::read_torch_trace_text(
      R"([{"ph": "X", "ts": 1, "dur": 2, "name": 5}, {"ph": "X", "ts": 1, "dur": 2},
          {"ph": "X", "ts": 1, "dur": 2, "name": "aten::add", "cat": 7}, {"ph": "X", "ts": 1, "dur": 2, "name": ""}])",
      "odd.json");
  EXPECT_EQ(trace.events, 4);
  EXPECT_EQ(trace.skipped_events, 4);
  EXPECT_EQ(trace.uncategorized_events, 0);
  try {
    imports::require_trace_events(trace, "odd.json");
    ADD_FAILURE() << "a trace of nothing was taken";
  } catch (const imports::TraceImportError& e) {
    EXPECT_NE(std::string(e.what()).find("odd.json: none of its 4 trace events"), std::string::npos) << e.what();
  }
  const std::string other = temp_file("list.json", R"([{"a": 1}, {"b": 2}])");
  try {
    imports::import_profile(other, imports::sniff_profile(other));
    ADD_FAILURE() << "a JSON list of something else was imported";
  } catch (const imports::ImportError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(other + ": none of its 2 trace events", 0), 0u) << e.what();
  }
  const std::string quoted = temp_file(
      "quoted.json", R"([{"name": "say "hi"", "ph": "X", "ts": 1, "dur": 2, "tid": 1, "pid": "CPU functions"}])");
  try {
    imports::import_profile(quoted, imports::ProfileKind::torch_trace);
    ADD_FAILURE() << "invalid JSON was imported";
  } catch (const imports::ImportError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(quoted + ": not valid JSON at byte", 0), 0u) << e.what();
  }
  std::remove(other.c_str());
  std::remove(quoted.c_str());
}
