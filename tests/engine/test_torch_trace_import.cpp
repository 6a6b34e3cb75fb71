// The torch.profiler trace importer against tests/reference/torch_trace_summary.py, which reads
// the same file with Python's json module alone (its output for the committed fixture is
// trace_cuda.expected.json): per kernel name the count (exact) and total time (to the
// microsecond), per step the GPU span and busy time; then the annotations as ranges, traces
// without steps or without GPU work, and files that are not traces.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "imports/torch_trace.h"
#include "imports/torch_trace_profile.h"
#include "profiling/step_ranges.h"
#include "test_support.h"

using namespace stepscope;
using imports::TraceImportError;

namespace {

const std::string kFixture = "torch_profiles/trace_cuda.json.gz";

nlohmann::json expected() {
  std::ifstream in(stepscope::testing::data_path("torch_profiles/trace_cuda.expected.json"));
  return nlohmann::json::parse(in);
}

const imports::ImportedTraceProfile& fixture_profile() {
  static const imports::ImportedTraceProfile profile =
      imports::profile_torch_trace(imports::read_torch_trace(stepscope::testing::data_path(kFixture)));
  return profile;
}

std::string error_of(const std::string& text) {
  try {
    imports::read_torch_trace_text(text, "t.json");
  } catch (const TraceImportError& e) {
    return e.what();
  }
  return "";
}

// A minimal trace: a step on thread 1 holding "forward", whose launch starts one kernel.
std::string small_trace(bool with_step) {
  nlohmann::json events = nlohmann::json::array();
  if (with_step) {
    events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#7"}, {"pid", 1}, {"tid", 1},
                      {"ts", 100.0}, {"dur", 100.0}});
  }
  events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "forward"}, {"pid", 1}, {"tid", 1}, {"ts", 110.0},
                    {"dur", 50.0}});
  events.push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"pid", 1}, {"tid", 1},
                    {"ts", 120.0}, {"dur", 5.0}, {"args", {{"correlation", 9}}}});
  events.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "my_kernel"}, {"pid", 0}, {"tid", 7}, {"ts", 130.0},
                    {"dur", 2.5}, {"args", {{"correlation", 9}, {"device", 0}, {"stream", 7}}}});
  events.push_back({{"ph", "f"}, {"cat", "ac2g"}, {"name", "ac2g"}, {"id", 9}, {"ts", 130.0}});
  return nlohmann::json{{"schemaVersion", 1}, {"traceEvents", events}}.dump();
}

}  // namespace

TEST(TorchTraceImport, KernelCountsAndTimesMatchThePythonReading) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto want = expected();
  const auto& imported = fixture_profile();
  const auto* window = profiling::find_range(imported.profile, profiling::step_ranges::kMeasuredWindow);
  ASSERT_NE(window, nullptr);
  std::map<std::string, const profiling::KernelStats*> got;
  int64_t copies = 0;
  for (const auto& k : window->kernels) {
    if (k.category == profiling::KernelCategory::memory) {
      copies += k.instances;
    } else {
      got[k.name] = &k;
    }
  }
  EXPECT_EQ(got.size(), want["kernels"].size()) << "the same kernel names, no more";
  for (const auto& [name, k] : want["kernels"].items()) {
    SCOPED_TRACE(name.substr(0, 120));
    ASSERT_TRUE(got.count(name));
    EXPECT_EQ(got[name]->instances, k["count"].get<int64_t>());
    EXPECT_NEAR(static_cast<double>(got[name]->total_ns), k["total_us"].get<double>() * 1000.0, 1000.0)
        << "to the microsecond";
  }
  EXPECT_EQ(copies, want["copies_and_sets"]["count"].get<int64_t>());
  EXPECT_EQ(imported.profile.measured_steps, static_cast<int>(want["steps"].size()));
  EXPECT_EQ(imported.profile.unattributed_kernels, 0u);
}

TEST(TorchTraceImport, StepsGpuSpanAndBusyTimeMatchThePythonReading) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto want = expected()["step_usage"];
  const auto& steps = fixture_profile().profile.steps;
  ASSERT_EQ(steps.size(), want.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(steps[i].step));
    EXPECT_EQ(steps[i].step, want[i]["step"].get<int>());
    EXPECT_EQ(steps[i].kernels, want[i]["activities"].get<int64_t>());
    EXPECT_NEAR(static_cast<double>(steps[i].span_ns), want[i]["span_us"].get<double>() * 1000.0, 1000.0);
    EXPECT_NEAR(static_cast<double>(steps[i].busy_ns), want[i]["busy_us"].get<double>() * 1000.0, 1000.0);
    EXPECT_TRUE(steps[i].launch_bound) << "a tiny model: the GPU waits for launches most of the step";
  }
}

// The user's record_function ranges are ranges: the three phases of the loop split the GPU time
// of "train_step" between them, inside the whole window.
TEST(TorchTraceImport, AnnotationsAreRangesThatNest) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  const auto& profile = fixture_profile().profile;
  const auto* window = profiling::find_range(profile, profiling::step_ranges::kMeasuredWindow);
  const auto* step = profiling::find_range(profile, "train_step");
  ASSERT_TRUE(window && step);
  int64_t phases = 0;
  for (const char* name : {"forward", "backward", "optimizer"}) {
    const auto* range = profiling::find_range(profile, name);
    ASSERT_NE(range, nullptr) << name;
    EXPECT_GT(range->gpu_time_ns, 0) << name;
    phases += range->gpu_time_ns;
  }
  EXPECT_EQ(phases, step->gpu_time_ns) << "every kernel of train_step ran in one of its three ranges";
  EXPECT_LE(step->gpu_time_ns, window->gpu_time_ns);
  EXPECT_GT(step->gpu_time_ns, window->gpu_time_ns * 9 / 10);
  std::set<std::string> parents;
  for (const auto& r : profile.cpu_ranges) {
    if (r.range == "forward") parents.insert(r.parent);
  }
  EXPECT_EQ(parents, std::set<std::string>{"train_step"});
}

TEST(TorchTraceImport, ReadsTheFileInOnePassWithProgress) {
  if (!imports::reads_gzip()) GTEST_SKIP() << "this build reads no gzip";
  double last = -1;
  imports::TraceReadOptions options;
  options.progress = [&](double fraction) {
    EXPECT_GE(fraction, last);
    last = fraction;
    return true;
  };
  const auto trace = imports::read_torch_trace(stepscope::testing::data_path(kFixture), options);
  EXPECT_DOUBLE_EQ(last, 1.0);
  EXPECT_EQ(trace.devices, std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
  EXPECT_GT(trace.operators.size(), 1000u);
  EXPECT_EQ(trace.schema_version, "1");
}

TEST(TorchTraceImport, AStepTracedKernelIsAttributedToItsAnnotation) {
  const auto profile = imports::profile_torch_trace(imports::read_torch_trace_text(small_trace(true)));
  ASSERT_EQ(profile.profile.measured_steps, 1);
  const auto* forward = profiling::find_range(profile.profile, "forward");
  ASSERT_NE(forward, nullptr);
  ASSERT_EQ(forward->kernels.size(), 1u);
  EXPECT_EQ(forward->kernels[0].name, "my_kernel");
  EXPECT_EQ(forward->kernels[0].total_ns, 2500);
  ASSERT_EQ(profile.profile.steps.size(), 1u);
  EXPECT_EQ(profile.profile.steps[0].step, 7);
  EXPECT_TRUE(profile.notes.empty());
}

TEST(TorchTraceImport, ATraceWithoutStepsIsOneStepAndSaysSo) {
  const auto profile = imports::profile_torch_trace(imports::read_torch_trace_text(small_trace(false)));
  EXPECT_EQ(profile.profile.measured_steps, 1);
  const auto* forward = profiling::find_range(profile.profile, "forward");
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(forward->kernels.at(0).instances, 1);
  ASSERT_EQ(profile.notes.size(), 1u);
  EXPECT_NE(profile.notes[0].find("no ProfilerStep"), std::string::npos);
}

TEST(TorchTraceImport, ABareArrayOfEventsIsATraceToo) {
  const auto document = nlohmann::json::parse(small_trace(true));
  const auto trace = imports::read_torch_trace_text(document["traceEvents"].dump());
  EXPECT_EQ(trace.activities.size(), 1u);
  EXPECT_EQ(trace.ranges.size(), 2u);
}

TEST(TorchTraceImport, ACpuOnlyTraceHasRangesAndNoKernels) {
  auto document = nlohmann::json::parse(small_trace(true));
  auto& events = document["traceEvents"];
  events.erase(events.begin() + 2, events.end());  // no launch, no kernel, no flow
  const auto profile = imports::profile_torch_trace(imports::read_torch_trace_text(document.dump()));
  EXPECT_FALSE(profile.profile.gpu_activity_recorded);
  ASSERT_FALSE(profile.notes.empty());
  EXPECT_NE(profile.notes.back().find("no GPU activity"), std::string::npos);
  ASSERT_EQ(profile.profile.cpu_ranges.size(), 2u);  // the step and forward, with their times
}

TEST(TorchTraceImport, WhatIsNotATraceIsRefusedSayingWhy) {
  EXPECT_NE(error_of("{\"a\": 1}").find("no \"traceEvents\""), std::string::npos);
  EXPECT_NE(error_of("{\"traceEvents\": [{\"ph\": \"X\"").find("t.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("hello").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("").find("t.json"), std::string::npos);
  // Events of unknown shapes are skipped and counted, never fatal.
  const auto trace = imports::read_torch_trace_text(R"({"traceEvents": [1, "x", {"ph": "X", "ts": "late"}, {}]})");
  EXPECT_EQ(trace.events, 4);
  EXPECT_EQ(trace.skipped_events, 4);
  try {
    imports::read_torch_trace("/nonexistent/trace.json");
    ADD_FAILURE() << "a missing file was read";
  } catch (const TraceImportError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/trace.json"), std::string::npos);
  }
}

TEST(TorchTraceImport, AProgressCallbackCancels) {
  const std::string path = ::testing::TempDir() + "/stepscope_long_trace.json";
  {
    std::ofstream out(path);
    out << "{\"traceEvents\": [";
    for (int i = 0; i < 40000; ++i) {
      out << (i ? "," : "") << "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, "
          << "\"ts\": " << i << ", \"dur\": 1}";
    }
    out << "]}";
  }
  imports::TraceReadOptions options;
  int calls = 0;
  options.progress = [&](double) { return ++calls < 2; };
  try {
    imports::read_torch_trace(path, options);
    ADD_FAILURE() << "not cancelled";
  } catch (const TraceImportError& e) {
    EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
  }
  EXPECT_EQ(calls, 2);
  std::remove(path.c_str());
}

TEST(TorchTraceImport, StepNumbersComeFromProfilerStepNames) {
  EXPECT_EQ(imports::profiler_step_number("ProfilerStep#0"), 0);
  EXPECT_EQ(imports::profiler_step_number("ProfilerStep#12"), 12);
  EXPECT_EQ(imports::profiler_step_number("ProfilerStep#"), -1);
  EXPECT_EQ(imports::profiler_step_number("ProfilerStep#1a"), -1);
  EXPECT_EQ(imports::profiler_step_number("train_step"), -1);
}
