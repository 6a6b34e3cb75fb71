#pragma once
// A field-by-field comparison of run records, written independently of the writer's field lists
// (so a field the writer forgets fails); the sample records are in run_record_fixtures.h.
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
  expect_same(a.profiled, b.profiled, "profiled");
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

}  // namespace stepscope::run_record_test
