// The operator recorder on the CPU without LibTorch: nesting and self time per thread, input
// shapes as key_averages prints them, the range of a call (an autograd-like thread's placed in
// the step thread's), the correlation ids pushed for CUDA calls, the bound on memory; and the
// profiler end to end with a synthetic activity source that tags launches as CUPTI does.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include <sstream>

#include "io/chrome_trace_export.h"
#include "profiling/input_shapes_text.h"
#include "profiling/kernel_profiler.h"
#include "profiling/operator_recorder.h"
#include "profiling/range_recorder.h"

namespace stepscope::profiling {
namespace {

// Records the correlation pushes and pops it is asked for, in order.
class CorrelationLog final : public ActivitySource {
 public:
  std::string name() const override { return "log"; }
  bool start(std::string&) override { return true; }
  void stop() override {}
  void flush_completed() override {}
  ActivityBatch take() override { return {}; }
  int64_t now_ns() const override { return 0; }
  void push_correlation(uint64_t id) override { events.push_back(static_cast<int64_t>(id)); }
  void pop_correlation() override { events.push_back(-1); }
  std::vector<int64_t> events;  // an id pushed, or -1 for a pop
};

const std::string& text(const std::vector<std::string>& strings, uint32_t id) { return strings.at(id); }

TEST(InputShapesText, AsKeyAveragesPrintsThem) {
  EXPECT_EQ(input_shapes_text({}), "[]");
  EXPECT_EQ(input_shapes_text({{4096, 768}, {768, 3072}}), "[[4096, 768], [768, 3072]]");
  EXPECT_EQ(input_shapes_text({{8, 768}, {}, {}}), "[[8, 768], [], []]");
  EXPECT_EQ(input_shapes_text({{-1}}), "[[-1]]");
}

TEST(OperatorRecorder, NestsCallsPerThreadAndTagsTheirCudaCalls) {
  int64_t tick = 0;
  CorrelationLog log;
  OperatorRecorder recorder([&tick] { return tick += 10; }, {}, &log);
  const compat::InputShapes shapes{{4, 8}, {8, 8}};
  std::string backward = "MmBackward0";  // a name LibTorch builds per call: not a literal
  recorder.operator_begin("aten::linear", nullptr);      // 10
  recorder.operator_begin("aten::matmul", nullptr);      // 20
  recorder.operator_begin("aten::mm", &shapes);          // 30
  recorder.operator_end("aten::mm");                     // 40
  recorder.operator_end("aten::matmul");                 // 50
  recorder.operator_begin(backward.c_str(), &shapes);    // 60
  recorder.operator_end(backward.c_str());               // 70
  recorder.operator_end("aten::linear");                 // 80
  recorder.operator_end("aten::never_began");            // ignored
  const auto batch = recorder.drain();
  ASSERT_EQ(batch.calls.size(), 4u);  // in the order they ended
  const auto& mm = batch.calls[0];
  const auto& matmul = batch.calls[1];
  const auto& node = batch.calls[2];
  const auto& linear = batch.calls[3];
  EXPECT_EQ(text(batch.strings, mm.name), "aten::mm");
  EXPECT_EQ(text(batch.strings, mm.input_shapes), "[[4, 8], [8, 8]]");
  EXPECT_EQ(text(batch.strings, matmul.input_shapes), "");
  EXPECT_EQ(text(batch.strings, node.name), "MmBackward0");
  EXPECT_EQ(node.input_shapes, mm.input_shapes) << "the same text is one string";
  EXPECT_EQ(text(batch.strings, linear.name), "aten::linear");
  EXPECT_EQ(mm.parent_id, matmul.id);
  EXPECT_EQ(matmul.parent_id, linear.id);
  EXPECT_EQ(node.parent_id, linear.id);
  EXPECT_EQ(linear.parent_id, 0u);
  EXPECT_EQ(mm.start_ns, 30);
  EXPECT_EQ(mm.end_ns, 40);
  EXPECT_EQ(matmul.nested_ns, 10);
  EXPECT_EQ(matmul.self_ns(), 20);
  EXPECT_EQ(linear.duration_ns(), 70);
  EXPECT_EQ(linear.nested_ns, 40);  // matmul's 30 and the node's 10
  EXPECT_EQ(linear.self_ns(), 30);
  EXPECT_EQ(mm.thread_id, current_thread_id());
  const std::vector<int64_t> tags{static_cast<int64_t>(linear.id), static_cast<int64_t>(matmul.id),
                                  static_cast<int64_t>(mm.id),     -1,
                                  -1,                              static_cast<int64_t>(node.id),
                                  -1,                              -1};
  EXPECT_EQ(log.events, tags);
  // Strings are handed over once; later batches number on.
  recorder.operator_begin("aten::mm", nullptr);
  recorder.operator_end("aten::mm");
  recorder.operator_begin("aten::add", nullptr);
  recorder.operator_end("aten::add");
  const auto next = recorder.drain();
  ASSERT_EQ(next.strings.size(), 1u);
  EXPECT_EQ(next.strings[0], "aten::add");
  EXPECT_EQ(next.calls[0].name, mm.name);
  EXPECT_EQ(next.calls[1].name, batch.strings.size());
}

TEST(OperatorRecorder, KeepsTheBoundAndCountsWhatItDrops) {
  OperatorRecorderOptions options;
  options.max_pending_calls = 2;
  OperatorRecorder recorder([] { return 1; }, options);
  for (int i = 0; i < 5; ++i) {
    recorder.operator_begin("aten::add", nullptr);
    recorder.operator_end("aten::add");
  }
  auto batch = recorder.drain();
  EXPECT_EQ(batch.calls.size(), 2u);
  EXPECT_EQ(batch.dropped_calls, 3u);
  recorder.operator_begin("aten::add", nullptr);
  recorder.operator_end("aten::add");
  batch = recorder.drain();
  EXPECT_EQ(batch.calls.size(), 1u) << "a drain makes room again";
  EXPECT_EQ(batch.dropped_calls, 0u);
}

TEST(OperatorRecorder, ShapesAreLeftOutWhenNotWanted) {
  OperatorRecorderOptions options;
  options.input_shapes = false;
  OperatorRecorder recorder([] { return 1; }, options);
  const compat::InputShapes shapes{{2, 3}};
  recorder.operator_begin("aten::mm", &shapes);
  recorder.operator_end("aten::mm");
  EXPECT_EQ(recorder.drain().calls.at(0).input_shapes, 0u);
}

TEST(OperatorRecorder, ACallOnAThreadWithoutRangesIsInTheStepThreadsRange) {
  RangeRecorder ranges;
  set_active_range_recorder(&ranges);
  OperatorRecorder recorder([] { return 1; });
  uint64_t forward_id = 0, inner_id = 0;
  {
    ScopedRange step("step");
    ScopedRange forward("forward");
    forward_id = current_range_id();
    recorder.operator_begin("aten::mm", nullptr);
    recorder.operator_end("aten::mm");
    // Autograd's device thread marks no ranges: its calls belong where the step thread is.
    std::thread other([&] {
      recorder.operator_begin("MmBackward0", nullptr);
      recorder.operator_end("MmBackward0");
    });
    other.join();
    {
      ScopedRange inner("softmax");
      inner_id = current_range_id();
    }
    EXPECT_EQ(current_range_id(), forward_id) << "the innermost again once softmax closed";
  }
  recorder.operator_begin("aten::zero_", nullptr);
  recorder.operator_end("aten::zero_");
  set_active_range_recorder(nullptr);
  const auto batch = recorder.drain();
  ASSERT_EQ(batch.calls.size(), 3u);
  EXPECT_NE(forward_id, 0u);
  EXPECT_NE(inner_id, forward_id);
  EXPECT_EQ(batch.calls[0].range_id, forward_id);
  EXPECT_EQ(batch.calls[1].range_id, forward_id);
  EXPECT_NE(batch.calls[1].thread_id, batch.calls[0].thread_id);
  EXPECT_EQ(batch.calls[2].range_id, 0u) << "outside every range";
}

// Tags launches with the innermost correlation id pushed on the launching thread, as CUPTI's
// external correlation does; a counter clock.
class TaggingSource final : public ActivitySource {
 public:
  std::string name() const override { return "tagging"; }
  bool start(std::string&) override { return true; }
  void stop() override {}
  void flush_completed() override {}
  ActivityBatch take() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(batch_, ActivityBatch());
  }
  int64_t now_ns() const override { return clock_.fetch_add(10); }
  void push_correlation(uint64_t id) override { stack().push_back(id); }
  void pop_correlation() override { stack().pop_back(); }
  void launch(const char* kernel_name, int64_t duration) {
    const int64_t at = now_ns();
    std::lock_guard<std::mutex> lock(mutex_);
    const uint32_t correlation = ++correlation_;
    if (!stack().empty()) batch_.correlations.push_back({correlation, stack().back()});
    batch_.api.push_back({"cudaLaunchKernel", at, at + 1, 777, correlation, false});
    KernelRecord k;
    k.name = kernel_name;
    k.start_ns = at + 5;
    k.end_ns = at + 5 + duration;
    k.correlation_id = correlation;
    batch_.kernels.push_back(k);
  }

 private:
  static std::vector<uint64_t>& stack() {
    thread_local std::vector<uint64_t> ids;
    return ids;
  }
  mutable std::atomic<int64_t> clock_{1000};
  std::mutex mutex_;
  ActivityBatch batch_;
  uint32_t correlation_ = 0;
};

TEST(KernelProfiler, AttributesKernelsToTheOperatorsThatLaunchedThem) {
  auto source = std::make_unique<TaggingSource>();
  TaggingSource* fake = source.get();
  ProfilerOptions options;
  options.publish_interval_ms = 5;
  options.operators = true;
  KernelProfiler profiler(std::move(source), options);
  EXPECT_EQ(profiler.operator_recorder(), nullptr) << "made when the profile starts";
  profiler.start();
  OperatorRecorder* recorder = profiler.operator_recorder();
  ASSERT_NE(recorder, nullptr);
  const compat::InputShapes shapes{{4, 8}, {8, 8}};
  for (int step = 0; step < 3; ++step) {
    profiler.begin_step(step, step == 0);
    ScopedRange s("step");
    ScopedRange f("forward");
    recorder->operator_begin("aten::linear", nullptr);
    recorder->operator_begin("aten::mm", &shapes);
    fake->launch("ampere_sgemm_128x64_tn", 7);
    recorder->operator_end("aten::mm");
    recorder->operator_end("aten::linear");
    fake->launch("our_fused_kernel", 3);  // outside every operator
  }
  profiler.finish();
  const OperatorProfile p = profiler.operator_profile();
  EXPECT_EQ(p.measured_steps, 2);
  EXPECT_EQ(p.operator_calls, 4);
  EXPECT_TRUE(p.gpu_activity_recorded);
  EXPECT_EQ(p.unattributed_kernels, 0u);
  const OperatorStats* mm = nullptr;
  const OperatorStats* linear = nullptr;
  const OperatorStats* outside = nullptr;
  for (const auto& op : p.operators) {
    EXPECT_EQ(op.range_path, std::vector<std::string>{"forward"}) << op.name << ": paths start below the step";
    if (op.name == "aten::mm") mm = &op;
    if (op.name == "aten::linear") linear = &op;
    if (op.name == kOutsideOperators) outside = &op;
  }
  ASSERT_TRUE(mm && linear && outside);
  EXPECT_EQ(mm->input_shapes, "[[4, 8], [8, 8]]");
  EXPECT_EQ(mm->calls, 2) << "the warm-up step's call is left out";
  ASSERT_EQ(mm->kernels.size(), 1u);
  EXPECT_EQ(mm->kernels[0].launches, 2);
  EXPECT_EQ(mm->self_gpu_ns, 14);
  EXPECT_EQ(linear->self_gpu_ns, 0);
  EXPECT_EQ(linear->total_gpu_ns, 14);
  EXPECT_EQ(outside->self_gpu_ns, 6);

  // The trace: the calls as CPU slices, each kernel naming the call it was launched in.
  const TraceWindow window = profiler.trace();
  EXPECT_EQ(window.operator_calls.size(), 6u);
  std::ostringstream out;
  write_chrome_trace(out, window, "test");
  const auto trace = nlohmann::json::parse(out.str());
  int ops = 0, tagged = 0, untagged = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("cat", "") == "cpu_op") {
      ++ops;
      if (e["name"] == "aten::mm") EXPECT_EQ(e["args"]["input shapes"], "[[4, 8], [8, 8]]");
    }
    if (e.value("cat", "") == "kernel") {
      if (e["args"].contains("operator")) {
        EXPECT_EQ(e["args"]["operator"], "aten::mm");
        ++tagged;
      } else {
        ++untagged;
      }
    }
  }
  EXPECT_EQ(ops, 6);
  EXPECT_EQ(tagged, 3);
  EXPECT_EQ(untagged, 3);
}

TEST(KernelProfiler, WithoutOperatorsItKeepsNoRecorder) {
  KernelProfiler profiler(nullptr);
  profiler.start();
  EXPECT_EQ(profiler.operator_recorder(), nullptr);
  profiler.finish();
  EXPECT_TRUE(profiler.operator_profile().operators.empty());
}

}  // namespace
}  // namespace stepscope::profiling
