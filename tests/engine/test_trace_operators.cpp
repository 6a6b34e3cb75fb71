// The operators of an imported torch.profiler trace against two independent readings of the
// committed fixture (PyTorch 2.11 on an H100):
// - tests/reference/torch_trace_summary.py (trace_cuda.expected.json, "operators"), which reads the
//   same file with Python's json module and ties kernels to operators by the "External id" the
//   launch carries, where Stepscope ties them by the launch's enclosing operator;
// - torch.profiler's own key_averages(group_by_input_shape=True) table of the same profile
//   (key_averages_cuda.txt), where it groups as we do.
// Then crafted traces for what the fixture does not hold: autograd's thread, kernels launched
// outside every operator or every step.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "imports/torch_trace.h"
#include "imports/trace_operators.h"
#include "test_support.h"

using namespace stepscope;
using profiling::OperatorStats;

namespace {

nlohmann::json expected() {
  std::ifstream in(stepscope::testing::data_path("torch_profiles/trace_cuda.expected.json"));
  return nlohmann::json::parse(in);
}

const profiling::OperatorProfile& fixture_operators() {
  static const profiling::OperatorProfile profile = imports::trace_operator_profile(
      imports::read_torch_trace(stepscope::testing::data_path("torch_profiles/trace_cuda.json.gz")));
  return profile;
}

std::string key_of(const std::vector<std::string>& path, const std::string& name, const std::string& shapes) {
  std::string key;
  for (const auto& p : path) key += p + "/";
  return key + "|" + name + "|" + shapes;
}

std::map<std::string, const OperatorStats*> by_key(const profiling::OperatorProfile& profile) {
  std::map<std::string, const OperatorStats*> out;
  for (const auto& op : profile.operators) out[key_of(op.range_path, op.name, op.input_shapes)] = &op;
  return out;
}

constexpr double kMicrosecond = 1000.0;  // ns: the trace writes times to the nanosecond, in µs

// "2.203ms", "60.222us", "1.2s" -> ns.
double table_ns(const std::string& text) {
  const double value = std::stod(text);
  if (text.size() > 2 && text.compare(text.size() - 2, 2, "ms") == 0) return value * 1e6;
  if (text.size() > 2 && text.compare(text.size() - 2, 2, "us") == 0) return value * 1e3;
  return value * 1e9;
}

struct KeyAveragesRow {
  std::string name, shapes;
  double self_cpu_ns = 0, cpu_total_ns = 0, self_cuda_ns = 0, cuda_total_ns = 0;
  int64_t calls = 0;
};

// The operator rows of torch.profiler's table (columns split by runs of two spaces or more).
std::vector<KeyAveragesRow> key_averages() {
  std::ifstream in(stepscope::testing::data_path("torch_profiles/key_averages_cuda.txt"));
  std::vector<KeyAveragesRow> rows;
  const std::regex gap("\\s{2,}");
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    const std::string trimmed = line.substr(first, line.find_last_not_of(' ') - first + 1);
    std::vector<std::string> cells(std::sregex_token_iterator(trimmed.begin(), trimmed.end(), gap, -1), {});
    if (cells.size() < 12 || cells[0].rfind("aten::", 0) != 0) continue;
    rows.push_back({cells[0], cells[11], table_ns(cells[2]), table_ns(cells[4]), table_ns(cells[6]),
                    table_ns(cells[8]), std::stoll(cells[10])});
  }
  return rows;
}

}  // namespace

TEST(TraceOperators, EveryOperatorGroupMatchesThePythonReading) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto want = expected();
  const auto& profile = fixture_operators();
  const auto got = by_key(profile);
  ASSERT_EQ(got.size(), want["operators"].size()) << "the same groups, no more";
  for (const auto& w : want["operators"]) {
    const std::string key =
        key_of(w["range_path"].get<std::vector<std::string>>(), w["name"], w["input_shapes"].get<std::string>());
    SCOPED_TRACE(key);
    ASSERT_TRUE(got.count(key));
    const OperatorStats& op = *got.at(key);
    EXPECT_EQ(op.calls, w["calls"].get<int64_t>());
    EXPECT_NEAR(op.total_cpu_ns, w["total_cpu_us"].get<double>() * 1000.0, kMicrosecond);
    EXPECT_NEAR(op.self_cpu_ns, w["self_cpu_us"].get<double>() * 1000.0, kMicrosecond);
    EXPECT_NEAR(op.self_gpu_ns, w["self_gpu_us"].get<double>() * 1000.0, kMicrosecond);
    EXPECT_NEAR(op.total_gpu_ns, w["total_gpu_us"].get<double>() * 1000.0, kMicrosecond);
    ASSERT_EQ(op.kernels.size(), w["kernels"].size());
    for (const auto& k : op.kernels) {
      // The reference names copies and sets by their event category.
      const std::string name = k.category != profiling::KernelCategory::memory ? k.name
                               : k.name.rfind("[CUDA memset", 0) == 0          ? "gpu_memset"
                                                                               : "gpu_memcpy";
      ASSERT_TRUE(w["kernels"].contains(name)) << name.substr(0, 100);
      EXPECT_EQ(k.launches, w["kernels"][name]["count"].get<int64_t>());
      EXPECT_NEAR(k.total_ns, w["kernels"][name]["total_us"].get<double>() * 1000.0, kMicrosecond);
    }
  }
  EXPECT_TRUE(want["outside_operators"].empty()) << "every kernel of this loop is launched by an operator";
  EXPECT_EQ(profile.operator_calls, want["operator_calls"].get<int64_t>());
  EXPECT_NEAR(profile.measured_cpu_ns, want["measured_cpu_us"].get<double>() * 1000.0, kMicrosecond);
  EXPECT_EQ(profile.measured_steps, 2);
  EXPECT_EQ(profile.unattributed_kernels, 0u);
  EXPECT_TRUE(profile.gpu_activity_recorded);
}

// The loop's phases are paths: the forward's operators under train_step/forward, the backward's
// (run on autograd's thread, which has no annotations) under train_step/backward.
TEST(TraceOperators, RangePathsFollowTheAnnotationsAndAutogradsThread) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  std::map<std::string, int64_t> calls_by_path;
  for (const auto& op : fixture_operators().operators) {
    std::string path;
    for (const auto& p : op.range_path) path += "/" + p;
    calls_by_path[path] += op.calls;
    EXPECT_GE(op.total_cpu_ns, op.self_cpu_ns) << op.name;
    EXPECT_GE(op.total_gpu_ns, op.self_gpu_ns) << op.name;
  }
  EXPECT_GT(calls_by_path["/train_step/forward"], 100);
  EXPECT_GT(calls_by_path["/train_step/backward"], 100);
  EXPECT_GT(calls_by_path["/train_step/optimizer/Optimizer.step#AdamW.step"], 10);
  for (const auto& [path, n] : calls_by_path) EXPECT_EQ(path.find("ProfilerStep"), std::string::npos) << path;
}

// torch.profiler's own table: calls, CPU total, self CUDA and CUDA total of each operator and
// input shapes it prints, summed over our paths, to the microsecond it prints. Its Self CPU
// also leaves out the CUDA runtime calls an operator made (its launches): ours less those (the
// reference's launch_cpu_us) is its Self CPU.
TEST(TraceOperators, TopOperatorsMatchKeyAverages) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  struct Sum {
    int64_t calls = 0;
    double total_cpu = 0, self_cpu = 0, self_gpu = 0, total_gpu = 0, launches = 0;
  };
  std::map<std::pair<std::string, std::string>, Sum> ours;
  for (const auto& op : fixture_operators().operators) {
    Sum& s = ours[{op.name, op.input_shapes}];
    s.calls += op.calls;
    s.total_cpu += op.total_cpu_ns;
    s.self_cpu += op.self_cpu_ns;
    s.self_gpu += op.self_gpu_ns;
    s.total_gpu += op.total_gpu_ns;
  }
  const auto want = expected();  // alive for the loop: a member of a temporary would not be
  for (const auto& w : want["operators"]) {
    ours[{w["name"].get<std::string>(), w["input_shapes"].get<std::string>()}].launches +=
        w["launch_cpu_us"].get<double>() * 1000.0;
  }
  const double printed = 1.5 * kMicrosecond;  // the table prints 3 decimals of µs or ms
  int compared = 0;
  for (const auto& row : key_averages()) {
    SCOPED_TRACE(row.name + " " + row.shapes);
    const auto it = ours.find({row.name, row.shapes});
    if (it == ours.end()) {
      // key_averages prints a tensor list's shapes as []: "aten::cat [[], []]". We keep them.
      EXPECT_NE(row.shapes.find("[]"), std::string::npos);
      continue;
    }
    const Sum& s = it->second;
    if (row.name == "aten::div" && row.shapes == "[[2, 32, 64], []]") {
      // aten::div(Scalar) calls aten::div(Tensor) with the same shapes: key_averages folds a call
      // nested in one of the same name into it (profiler_util's _remove_dup_nodes), we count both.
      EXPECT_EQ(s.calls, 2 * row.calls);
      EXPECT_NEAR(s.self_cpu - s.launches, row.self_cpu_ns, printed) << "the same time, in one call or two";
      EXPECT_NEAR(s.self_gpu, row.self_cuda_ns, printed);
      continue;
    }
    ++compared;
    EXPECT_EQ(s.calls, row.calls);
    EXPECT_NEAR(s.total_cpu, row.cpu_total_ns, printed);
    EXPECT_NEAR(s.self_cpu - s.launches, row.self_cpu_ns, printed);
    EXPECT_NEAR(s.self_gpu, row.self_cuda_ns, printed);
    EXPECT_NEAR(s.total_gpu, row.cuda_total_ns, printed);
  }
  EXPECT_GE(compared, 25) << "the table's operator rows";
}

namespace {

nlohmann::json event(const char* cat, const std::string& name, int tid, double ts, double dur,
                     nlohmann::json args = nlohmann::json::object()) {
  return {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 1}, {"tid", tid}, {"ts", ts}, {"dur", dur}, {"args", args}};
}

nlohmann::json kernel(const std::string& name, double ts, double dur, int correlation) {
  return event("kernel", name, 7, ts, dur, {{"correlation", correlation}, {"device", 0}, {"stream", 7}});
}

nlohmann::json launch(int tid, double ts, int correlation) {
  return event("cuda_runtime", "cudaLaunchKernel", tid, ts, 2.0, {{"correlation", correlation}});
}

// A step on thread 1 with "forward" holding aten::linear > aten::mm (one kernel) and a launch
// outside every operator; autograd's thread 2 runs MmBackward0 > aten::mm during "backward"; a
// kernel launched after the step.
profiling::OperatorProfile crafted() {
  nlohmann::json e = nlohmann::json::array();
  e.push_back(event("user_annotation", "ProfilerStep#4", 1, 0.0, 1000.0));
  e.push_back(event("user_annotation", "forward", 1, 10.0, 400.0));
  e.push_back(event("cpu_op", "aten::linear", 1, 20.0, 100.0, {{"Input Dims", {{4, 8}, {8, 8}}}}));
  e.push_back(event("cpu_op", "aten::mm", 1, 30.0, 60.0, {{"Input Dims", {{4, 8}, {8, 8}}}}));
  e.push_back(launch(1, 40.0, 1));
  e.push_back(kernel("gemm_a", 50.0, 5.0, 1));
  e.push_back(launch(1, 200.0, 2));  // no operator open
  e.push_back(kernel("fused_b", 210.0, 3.0, 2));
  e.push_back(event("user_annotation", "backward", 1, 500.0, 400.0));
  e.push_back(event("cpu_op", "MmBackward0", 2, 510.0, 50.0));
  e.push_back(event("cpu_op", "aten::mm", 2, 520.0, 20.0, {{"Input Dims", {{4, 8}, {8, 8}}}}));
  e.push_back(launch(2, 525.0, 3));
  e.push_back(kernel("gemm_a", 530.0, 7.0, 3));
  e.push_back(launch(1, 1500.0, 4));  // after the step
  e.push_back(kernel("late", 1510.0, 1.0, 4));
  return imports::trace_operator_profile(
      imports::read_torch_trace_text(nlohmann::json{{"traceEvents", e}}.dump(), "crafted.json"));
}

}  // namespace

TEST(TraceOperators, NestingSelfTimesAndKernelsOfACraftedTrace) {
  const auto profile = crafted();
  const auto got = by_key(profile);
  const auto* linear = got.at(key_of({"forward"}, "aten::linear", "[[4, 8], [8, 8]]"));
  const auto* mm = got.at(key_of({"forward"}, "aten::mm", "[[4, 8], [8, 8]]"));
  EXPECT_EQ(linear->total_cpu_ns, 100000);
  EXPECT_EQ(linear->self_cpu_ns, 40000) << "100 µs less the 60 of aten::mm";
  EXPECT_EQ(linear->self_gpu_ns, 0);
  EXPECT_EQ(linear->total_gpu_ns, 5000) << "its aten::mm's kernel";
  EXPECT_EQ(mm->self_gpu_ns, 5000);
  ASSERT_EQ(mm->kernels.size(), 1u);
  EXPECT_EQ(mm->kernels[0].name, "gemm_a");
  EXPECT_EQ(mm->kernels[0].launches, 1);
  // Autograd's thread has no annotations: its operators take the steps' thread's.
  const auto* backward_mm = got.at(key_of({"backward"}, "aten::mm", "[[4, 8], [8, 8]]"));
  EXPECT_EQ(backward_mm->self_gpu_ns, 7000);
  EXPECT_EQ(got.at(key_of({"backward"}, "MmBackward0", "[]"))->total_gpu_ns, 7000);
  // A kernel launched outside every operator, under the pseudo-operator of its path.
  const auto* outside = got.at(key_of({"forward"}, profiling::kOutsideOperators, ""));
  EXPECT_EQ(outside->calls, 0);
  EXPECT_EQ(outside->self_gpu_ns, 3000);
  ASSERT_EQ(outside->kernels.size(), 1u);
  EXPECT_EQ(outside->kernels[0].name, "fused_b");
  EXPECT_EQ(profile.unattributed_kernels, 1u) << "the kernel launched after the step";
  EXPECT_EQ(profile.operator_calls, 4);
  EXPECT_EQ(profile.measured_steps, 1);
  EXPECT_EQ(profile.measured_cpu_ns, 1000000);
  EXPECT_EQ(profile.operators.front().name, "aten::mm") << "largest self CPU first (60 + 20 µs over two paths: 60)";
}

TEST(TraceOperators, ACpuOnlyTraceHasOperatorsAndSaysWhyNoKernels) {
  nlohmann::json e = nlohmann::json::array();
  e.push_back(event("cpu_op", "aten::add", 1, 0.0, 10.0, {{"Input Dims", {{2}, {2}}}}));
  const auto profile = imports::trace_operator_profile(
      imports::read_torch_trace_text(nlohmann::json{{"traceEvents", e}}.dump(), "cpu.json"));
  ASSERT_EQ(profile.operators.size(), 1u);
  EXPECT_EQ(profile.operators[0].input_shapes, "[[2], [2]]");
  EXPECT_EQ(profile.operators[0].range_path, std::vector<std::string>{});
  EXPECT_FALSE(profile.gpu_activity_recorded);
  EXPECT_NE(profile.source_message.find("CPU-only"), std::string::npos);
  EXPECT_EQ(profile.measured_steps, 1) << "no ProfilerStep#N: the whole trace is one step";
}
