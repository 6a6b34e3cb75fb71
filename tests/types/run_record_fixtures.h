#pragma once
// A run record with every field set to a distinctive value, and a field-by-field comparison
// written independently of the writer's field lists (so a field the writer forgets fails).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "io/run_record_json.h"

namespace stepscope::run_record_test {

// Same bits, so -0.0 differs from 0.0; any NaN equals any NaN.
inline bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

#define RR_EQ(a, b, field) EXPECT_EQ((a).field, (b).field) << #field
#define RR_DOUBLE(a, b, field) \
  EXPECT_TRUE(same_double((a).field, (b).field)) << #field << ": " << (a).field << " vs " << (b).field

inline void expect_same(const ModelConfig& a, const ModelConfig& b) {
  RR_EQ(a, b, name);
  RR_EQ(a, b, vocab_size);
  RR_EQ(a, b, context_length);
  RR_EQ(a, b, d_model);
  RR_EQ(a, b, d_ff);
  RR_EQ(a, b, num_layers);
  RR_EQ(a, b, num_heads);
  RR_DOUBLE(a, b, rope_theta);
}

inline void expect_same(const BenchConfig& a, const BenchConfig& b) {
  SCOPED_TRACE("config");
  expect_same(a.model, b.model);
  RR_EQ(a, b, batch);
  RR_EQ(a, b, context);
  RR_EQ(a, b, precision);
  RR_EQ(a, b, mode);
  RR_EQ(a, b, warmup_steps);
  RR_EQ(a, b, measured_steps);
  RR_EQ(a, b, device);
  RR_EQ(a, b, seed);
  RR_DOUBLE(a, b, peak_tflops);
  RR_EQ(a, b, profile_kernels);
  RR_EQ(a, b, profile_memory);
  RR_EQ(a, b, memory_event_limit);
  RR_EQ(a, b, profile_operators);
}

inline void expect_same(const PhaseStats& a, const PhaseStats& b, const char* phase) {
  SCOPED_TRACE(phase);
  RR_DOUBLE(a, b, mean_ms);
  RR_DOUBLE(a, b, std_ms);
  RR_DOUBLE(a, b, min_ms);
  RR_DOUBLE(a, b, median_ms);
  RR_DOUBLE(a, b, max_ms);
  RR_EQ(a, b, count);
}

inline void expect_same(const profiling::KernelStats& a, const profiling::KernelStats& b) {
  RR_EQ(a, b, name);
  RR_EQ(a, b, short_name);
  RR_EQ(a, b, category);
  RR_EQ(a, b, instances);
  RR_EQ(a, b, total_ns);
  RR_EQ(a, b, min_ns);
  RR_EQ(a, b, max_ns);
  RR_DOUBLE(a, b, mean_ns);
  RR_DOUBLE(a, b, median_ns);
  RR_DOUBLE(a, b, stddev_ns);
  RR_DOUBLE(a, b, time_percent);
  RR_DOUBLE(a, b, instances_per_step);
}

inline void expect_same(const profiling::CategoryShare& a, const profiling::CategoryShare& b) {
  RR_EQ(a, b, category);
  RR_EQ(a, b, total_ns);
  RR_EQ(a, b, instances);
  RR_DOUBLE(a, b, percent);
}

inline void expect_same(const profiling::RangeKernelSummary& a, const profiling::RangeKernelSummary& b) {
  RR_EQ(a, b, range);
  RR_EQ(a, b, gpu_time_ns);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) expect_same(a.kernels[i], b.kernels[i]);
  ASSERT_EQ(a.categories.size(), b.categories.size());
  for (size_t i = 0; i < a.categories.size(); ++i) expect_same(a.categories[i], b.categories[i]);
}

inline void expect_same(const profiling::StepGpuUsage& a, const profiling::StepGpuUsage& b) {
  RR_EQ(a, b, step);
  RR_EQ(a, b, span_ns);
  RR_EQ(a, b, busy_ns);
  RR_EQ(a, b, idle_ns);
  RR_EQ(a, b, kernels);
  RR_DOUBLE(a, b, mean_kernel_ns);
  RR_EQ(a, b, launch_bound);
}

inline void expect_same(const profiling::RangeCpuTiming& a, const profiling::RangeCpuTiming& b) {
  RR_EQ(a, b, range);
  RR_EQ(a, b, instances);
  RR_EQ(a, b, total_ns);
  RR_DOUBLE(a, b, mean_ns);
  RR_EQ(a, b, parent);
}

inline void expect_same(const profiling::KernelProfile& a, const profiling::KernelProfile& b) {
  SCOPED_TRACE("kernel_profile");
  ASSERT_EQ(a.ranges.size(), b.ranges.size());
  for (size_t i = 0; i < a.ranges.size(); ++i) expect_same(a.ranges[i], b.ranges[i]);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) expect_same(a.steps[i], b.steps[i]);
  ASSERT_EQ(a.cpu_ranges.size(), b.cpu_ranges.size());
  for (size_t i = 0; i < a.cpu_ranges.size(); ++i) expect_same(a.cpu_ranges[i], b.cpu_ranges[i]);
  RR_EQ(a, b, measured_steps);
  RR_EQ(a, b, dropped_records);
  RR_EQ(a, b, unattributed_kernels);
  RR_EQ(a, b, untimed_records);
  RR_EQ(a, b, gpu_activity_recorded);
  RR_EQ(a, b, source_message);
}

inline void expect_same(const profiling::MemoryPoint& a, const profiling::MemoryPoint& b) {
  RR_EQ(a, b, time_ns);
  RR_EQ(a, b, bytes_by_category);
  RR_EQ(a, b, allocated_bytes);
  RR_EQ(a, b, reserved_bytes);
  RR_EQ(a, b, band);
}

inline void expect_same(const profiling::PhaseBand& a, const profiling::PhaseBand& b) {
  RR_EQ(a, b, phase);
  RR_EQ(a, b, step);
  RR_EQ(a, b, warmup);
  RR_EQ(a, b, start_ns);
  RR_EQ(a, b, end_ns);
}

inline void expect_same(const profiling::MemoryPeak& a, const profiling::MemoryPeak& b) {
  RR_EQ(a, b, label);
  RR_EQ(a, b, time_ns);
  RR_EQ(a, b, allocated_bytes);
  RR_EQ(a, b, reserved_bytes);
  RR_EQ(a, b, bytes_by_category);
  RR_EQ(a, b, step);
  RR_EQ(a, b, warmup);
}

inline void expect_same(const profiling::LargeAllocation& a, const profiling::LargeAllocation& b) {
  RR_EQ(a, b, bytes);
  RR_EQ(a, b, count);
  RR_EQ(a, b, category);
  RR_EQ(a, b, phase);
}

// Everything but the points, which decimation may thin out.
inline void expect_same_except_points(const profiling::MemoryTimeline& a, const profiling::MemoryTimeline& b) {
  SCOPED_TRACE("timeline");
  ASSERT_EQ(a.bands.size(), b.bands.size());
  for (size_t i = 0; i < a.bands.size(); ++i) expect_same(a.bands[i], b.bands[i]);
  ASSERT_EQ(a.peaks.size(), b.peaks.size());
  for (size_t i = 0; i < a.peaks.size(); ++i) expect_same(a.peaks[i], b.peaks[i]);
  ASSERT_EQ(a.largest.size(), b.largest.size());
  for (size_t i = 0; i < a.largest.size(); ++i) expect_same(a.largest[i], b.largest[i]);
  RR_EQ(a, b, peak_reserved_bytes);
  RR_EQ(a, b, baseline_bytes);
  RR_EQ(a, b, unknown_frees);
  RR_EQ(a, b, unknown_freed_bytes);
  RR_EQ(a, b, implicit_frees);
  RR_EQ(a, b, unmatched_labels);
  RR_EQ(a, b, dropped_events);
  RR_EQ(a, b, event_limit);
  RR_EQ(a, b, truncated);
}

inline void expect_same(const profiling::MemoryTimeline& a, const profiling::MemoryTimeline& b) {
  expect_same_except_points(a, b);
  SCOPED_TRACE("timeline points");
  ASSERT_EQ(a.points.size(), b.points.size());
  for (size_t i = 0; i < a.points.size(); ++i) expect_same(a.points[i], b.points[i]);
}

inline void expect_same(const profiling::OperatorStats& a, const profiling::OperatorStats& b) {
  SCOPED_TRACE("operator " + a.name);
  RR_EQ(a, b, range_path);
  RR_EQ(a, b, name);
  RR_EQ(a, b, input_shapes);
  RR_EQ(a, b, calls);
  RR_EQ(a, b, total_cpu_ns);
  RR_EQ(a, b, self_cpu_ns);
  RR_EQ(a, b, self_gpu_ns);
  RR_EQ(a, b, total_gpu_ns);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    RR_EQ(a.kernels[i], b.kernels[i], name);
    RR_EQ(a.kernels[i], b.kernels[i], short_name);
    RR_EQ(a.kernels[i], b.kernels[i], category);
    RR_EQ(a.kernels[i], b.kernels[i], launches);
    RR_EQ(a.kernels[i], b.kernels[i], total_ns);
  }
}

inline void expect_same(const profiling::OperatorProfile& a, const profiling::OperatorProfile& b) {
  SCOPED_TRACE("operator_profile");
  ASSERT_EQ(a.operators.size(), b.operators.size());
  for (size_t i = 0; i < a.operators.size(); ++i) expect_same(a.operators[i], b.operators[i]);
  RR_EQ(a, b, measured_steps);
  RR_EQ(a, b, measured_cpu_ns);
  RR_EQ(a, b, operator_calls);
  RR_EQ(a, b, dropped_calls);
  RR_EQ(a, b, unattributed_kernels);
  RR_EQ(a, b, gpu_activity_recorded);
  RR_EQ(a, b, source_message);
}

// The written fields; trace, allocator_snapshot and allocation_log are not written.
inline void expect_same(const BenchResult& a, const BenchResult& b) {
  expect_same(a.config, b.config);
  RR_EQ(a, b, status);
  RR_EQ(a, b, message);
  RR_EQ(a, b, device_name);
  RR_EQ(a, b, timer);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    RR_EQ(a.steps[i], b.steps[i], forward_ns);
    RR_EQ(a.steps[i], b.steps[i], backward_ns);
    RR_EQ(a.steps[i], b.steps[i], optimizer_ns);
    RR_EQ(a.steps[i], b.steps[i], total_ns);
  }
  expect_same(a.total, b.total, "total");
  expect_same(a.forward, b.forward, "forward");
  expect_same(a.backward, b.backward, "backward");
  expect_same(a.optimizer, b.optimizer, "optimizer");
  RR_EQ(a, b, parameters);
  RR_DOUBLE(a, b, tokens_per_second);
  RR_DOUBLE(a, b, flops_per_step);
  RR_DOUBLE(a, b, achieved_tflops);
  RR_DOUBLE(a, b, peak_tflops);
  RR_DOUBLE(a, b, mfu);
  RR_EQ(a, b, peak_memory_bytes);
  RR_EQ(a, b, skipped_steps);
  ASSERT_EQ(a.kernel_profile == nullptr, b.kernel_profile == nullptr);
  if (a.kernel_profile) expect_same(*a.kernel_profile, *b.kernel_profile);
  ASSERT_EQ(a.operator_profile == nullptr, b.operator_profile == nullptr);
  if (a.operator_profile) expect_same(*a.operator_profile, *b.operator_profile);
}

inline void expect_same(const RunRecord& a, const RunRecord& b) {
  RR_EQ(a, b, environment.stepscope_version);
  RR_EQ(a, b, environment.libtorch_version);
  RR_EQ(a, b, environment.command_line);
  RR_EQ(a, b, environment.started_at);
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (size_t i = 0; i < a.entries.size(); ++i) {
    SCOPED_TRACE("entry " + std::to_string(i));
    expect_same(a.entries[i].result, b.entries[i].result);
    ASSERT_EQ(a.entries[i].timeline == nullptr, b.entries[i].timeline == nullptr);
    if (a.entries[i].timeline) expect_same(*a.entries[i].timeline, *b.entries[i].timeline);
  }
}

#undef RR_EQ
#undef RR_DOUBLE

inline profiling::CategoryBytes category_bytes(int64_t base) {
  profiling::CategoryBytes bytes{};
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = base * static_cast<int64_t>(i + 2) + 7;
  return bytes;
}

// Integers past 2^53 (where a double would round them), the extremes of every integer type,
// doubles that need all 17 digits, a subnormal, -0.0, NaN and infinities, and text with
// quotes, control characters and non-ASCII letters. Each result keeps the invariants a real
// one has (a phase has a value per measured step it ran in; what a run did not measure is
// unknown), because a record stores its rows as the CSV does.
inline BenchResult ok_result() {
  BenchResult r;
  auto& c = r.config;
  c.model = {"médium \"7\"", 50257, 2048, 1024, 4096, 24, 16, 500000.5};
  c.batch = 7;
  c.context = 1536;
  c.precision = Precision::bf16;
  c.mode = StepMode::train;
  c.warmup_steps = 3;
  c.measured_steps = 11;
  c.device = Device{DeviceKind::cuda, 1};  // written "cuda:1"
  c.seed = std::numeric_limits<uint64_t>::max() - 58;
  c.peak_tflops = 989.5;
  c.profile_kernels = true;
  c.profile_memory = true;
  c.memory_event_limit = 123456789012;
  c.profile_operators = true;
  r.status = RunStatus::ok;
  r.message = "line one\nline two\t\x01 \\ \"quoted\"";
  r.device_name = "NVIDIA H100 80GB HBM3 — Ünïcode";
  r.timer = "cuda-events";
  r.steps = {{9007199254740993, 2, 3, 9007199254740999}, {-5, 0, std::numeric_limits<int64_t>::max(), 17}};
  r.total = {1.0 / 3.0, 0.1, 4.9e-324, 2.5, 1e300, 2};
  r.forward = {0.2, 0.30000000000000004, -0.0, 1.5, 7.25, 2};
  r.backward = {3.14159, 2.71828, 1.41421, 1.73205, 2.23606, 2};
  r.optimizer = {1e-12, 2e-12, 3e-12, 4e-12, 5e-12, 2};
  r.parameters = 123456789012345;
  r.tokens_per_second = 98765.4321;
  r.flops_per_step = 1.2345678901234567e15;
  r.achieved_tflops = 456.78901234567891;
  r.peak_tflops = 989.4;
  r.mfu = 0.4616576923;
  r.peak_memory_bytes = 81604378624;
  r.skipped_steps = 2;

  auto profile = std::make_shared<profiling::KernelProfile>();
  profiling::RangeKernelSummary window;
  window.range = "measured window";
  window.gpu_time_ns = 987654321987;
  window.kernels = {{"void ampere_sgemm_128x64_tn<float>(int, float*)", "ampere_sgemm_128x64_tn",
                     profiling::KernelCategory::matrix_multiply, 44, 880000, 15000, 25000, 20000.5, 19999.25,
                     1234.5678, 61.25, 4.4},
                    {"flash_fwd_kernel", "flash_fwd_kernel", profiling::KernelCategory::attention, 12, 120000, 9000,
                     11000, 10000.0, 10000.0, 0.0, 8.5, 1.2}};
  window.categories = {{profiling::KernelCategory::matrix_multiply, 880000, 44, 61.25},
                       {profiling::KernelCategory::memory, 1000, 3, 0.07}};
  profiling::RangeKernelSummary softmax;
  softmax.range = "softmax";
  softmax.gpu_time_ns = 5555;
  softmax.kernels = {{"softmax_warp_forward", "softmax_warp_forward", profiling::KernelCategory::softmax, 5, 5555,
                      1000, 1200, 1111.0, 1100.0, 70.5, 100.0, 0.5}};
  softmax.categories = {{profiling::KernelCategory::softmax, 5555, 5, 100.0}};
  profile->ranges = {window, softmax};
  profile->steps = {{0, 1000000, 900000, 100000, 40, 22500.5, false}, {1, 2000000, 500000, 1500000, 41, 12195.1, true}};
  profile->cpu_ranges = {{"forward", 11, 33000000, 3000000.0}, {"optimizer step", 10, 5000, 500.0, "step"}};
  profile->measured_steps = 11;
  profile->dropped_records = std::numeric_limits<uint64_t>::max();
  profile->unattributed_kernels = 3;
  profile->untimed_records = 4;
  profile->gpu_activity_recorded = true;
  profile->source_message = "CUPTI: buffer of 8 MiB";
  r.kernel_profile = profile;
  auto operators = std::make_shared<profiling::OperatorProfile>();
  profiling::OperatorStats mm;
  mm.range_path = {"forward", "attention", "attention scores"};
  mm.name = "aten::bmm";
  mm.input_shapes = "[[64, 1024, 64], [64, 64, 1024]]";
  mm.calls = 9007199254740993;
  mm.total_cpu_ns = 123456789;
  mm.self_cpu_ns = 23456789;
  mm.self_gpu_ns = 4444;
  mm.total_gpu_ns = 5555;
  mm.kernels = {{"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(Params)",
                 "Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>",
                 profiling::KernelCategory::matrix_multiply, 18, 4000},
                {"[CUDA memset]", "[CUDA memset]", profiling::KernelCategory::memory, 2, 444}};
  profiling::OperatorStats outside;
  outside.range_path = {"backward"};
  outside.name = profiling::kOutsideOperators;
  outside.self_gpu_ns = outside.total_gpu_ns = 77;
  outside.kernels = {{"fused \"ü\" kernel", "fused", profiling::KernelCategory::other, 1, 77}};
  operators->operators = {mm, outside};
  operators->measured_steps = 11;
  operators->measured_cpu_ns = std::numeric_limits<int64_t>::max();
  operators->operator_calls = 12345;
  operators->dropped_calls = std::numeric_limits<uint64_t>::max();
  operators->unattributed_kernels = 3;
  operators->gpu_activity_recorded = true;
  operators->source_message = "CUPTI: \"note\"";
  r.operator_profile = operators;
  // Not written: a record of the run keeps none of these.
  r.trace = std::make_shared<profiling::TraceWindow>();
  r.allocator_snapshot = std::make_shared<const std::string>("\x80\x02 pickle");
  r.allocation_log = std::make_shared<profiling::AllocationLog>();
  return r;
}

inline std::shared_ptr<profiling::MemoryTimeline> sample_timeline() {
  auto t = std::make_shared<profiling::MemoryTimeline>();
  t->points = {{1000, category_bytes(10), 123, -1, -1},
               {2000, category_bytes(20), 456, 4096, 0},
               {3000, category_bytes(30), 9007199254740993, 9007199254740995, 1},
               {4000, category_bytes(5), 78, 8192, 2}};
  t->bands = {{"forward", 0, true, 1500, 2500}, {"backward", 0, true, 2500, 3500}, {"step end", 1, false, 3500, 4000}};
  t->peaks = {{"forward", 2000, 456, 4096, category_bytes(20), 0, true},
              {"overall", 3000, 9007199254740993, 9007199254740995, category_bytes(30), 1, false}};
  t->largest = {{1 << 20, 6, profiling::MemoryCategory::activation, "attention"},
                {4096, 1, profiling::MemoryCategory::optimizer_state, ""}};
  t->peak_reserved_bytes = 9007199254740995;
  t->baseline_bytes = 65536;
  t->unknown_frees = 9;
  t->unknown_freed_bytes = std::numeric_limits<int64_t>::max();
  t->implicit_frees = 2;
  t->unmatched_labels = 1;
  t->dropped_events = 12;
  t->event_limit = 1000000;
  t->truncated = true;
  return t;
}

inline BenchResult oom_result() {
  BenchResult r;
  r.config.model = with_context(model_preset("2.7B"), 1024);
  r.config.context = 1024;
  r.config.precision = Precision::fp16;
  r.config.device = Device{DeviceKind::cuda, -1};  // written "cuda", no index added
  r.status = RunStatus::out_of_memory;
  r.message = "CUDA out of memory. Tried to allocate 2.00 GiB";
  r.device_name = "NVIDIA H100 80GB HBM3";
  r.parameters = 2700000000;
  r.flops_per_step = 3.5e16;
  r.peak_tflops = 989.4;
  r.mfu = -1;  // unknown: not measured
  return r;
}

inline BenchResult cancelled_result() {
  BenchResult r;
  r.config.model = model_preset("small");
  r.config.mode = StepMode::forward;
  r.status = RunStatus::cancelled;
  r.message = "cancelled by the user";
  r.mfu = std::nan("");
  r.achieved_tflops = -HUGE_VAL;
  r.tokens_per_second = HUGE_VAL;  // not meaningful, but must survive
  r.steps = {{100, 0, 0, 100}};
  r.total = {1e-4, 0, 1e-4, 1e-4, 1e-4, 1};
  r.forward = {1e-4, 0, 1e-4, 1e-4, 1e-4, 1};
  return r;
}

inline RunRecord sample_record() {
  RunRecord record;
  record.environment = {"0.9.1-dev", "2.5.1+cu124", "stepscope bench --sweep \"ctx=256,1024\"",
                        "2025-01-02T03:04:05Z"};
  record.entries = {{ok_result(), sample_timeline()}, {oom_result(), nullptr}, {cancelled_result(), nullptr}};
  return record;
}

}  // namespace stepscope::run_record_test
