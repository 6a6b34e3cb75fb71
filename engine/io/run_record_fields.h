// The JSON member names of a run record, listed once per struct for writing and reading
// alike: fields(visit, s, Of<T>{}) calls visit("name", s.member) for every member kept, with
// `s` const when writing. Names follow bench_export's where they mean the same thing
// ("warmup", "vocab", "layers", "heads", "tokens_per_s", "steps_ns", ...). Internal to
// run_record_json.cpp.
#pragma once

#include <type_traits>

#include "io/run_record_json.h"

namespace stepscope::run_record_fields {

template <class T>
struct Of {};

// A member newer than records already written: reading one without it keeps the default.
struct AddedLater {};
inline constexpr AddedLater kAddedLater{};

template <class V, class S>
void fields(V& v, S& s, Of<RunEnvironment>) {
  v("stepscope_version", s.stepscope_version);
  v("libtorch_version", s.libtorch_version);
  v("command_line", s.command_line);
  v("started_at", s.started_at);
  v("concurrent_runs", s.concurrent_runs, kAddedLater);
}

template <class V, class S>
void fields(V& v, S& s, Of<ModelConfig>) {
  v("name", s.name);
  v("vocab", s.vocab_size);
  v("context_length", s.context_length);
  v("d_model", s.d_model);
  v("d_ff", s.d_ff);
  v("layers", s.num_layers);
  v("heads", s.num_heads);
  v("rope_theta", s.rope_theta);
  v("attention", s.attention, kAddedLater);
}

template <class V, class S>
void fields(V& v, S& s, Of<BenchConfig>) {
  v("model", s.model);
  v("batch", s.batch);
  v("context", s.context);
  v("precision", s.precision);
  v("mode", s.mode);
  v("warmup", s.warmup_steps);
  v("measured_steps", s.measured_steps);  // bench_export's "steps" counts the timings taken
  v("device", s.device);
  v("seed", s.seed);
  v("peak_tflops", s.peak_tflops);
  v("profile_kernels", s.profile_kernels);
  v("profile_memory", s.profile_memory);
  v("memory_event_limit", s.memory_event_limit);
  v("engine", s.engine, kAddedLater);
  v("cuda_graphs", s.cuda_graphs, kAddedLater);
  v("profile_operators", s.profile_operators, kAddedLater);
}

template <class V, class S>
void fields(V& v, S& s, Of<StepTiming>) {
  v("forward_ns", s.forward_ns);
  v("backward_ns", s.backward_ns);
  v("optimizer_ns", s.optimizer_ns);
  v("total_ns", s.total_ns);
}

template <class V, class S>
void fields(V& v, S& s, Of<PhaseStats>) {
  v("mean_ms", s.mean_ms);
  v("std_ms", s.std_ms);
  v("min_ms", s.min_ms);
  v("median_ms", s.median_ms);
  v("max_ms", s.max_ms);
  v("count", s.count);
}

template <class V, class S>
void fields(V& v, S& s, Of<BenchResult>) {
  v("config", s.config);
  v("status", s.status);
  v("message", s.message);
  v("device_name", s.device_name);
  v("timer", s.timer);
  v("steps_ns", s.steps);
  v("total", s.total);
  v("forward", s.forward);
  v("backward", s.backward);
  v("optimizer", s.optimizer);
  v("parameters", s.parameters);
  v("tokens_per_s", s.tokens_per_second);
  v("flops_per_step", s.flops_per_step);
  v("achieved_tflops", s.achieved_tflops);
  v("peak_tflops", s.peak_tflops);
  v("mfu", s.mfu);
  v("peak_memory_bytes", s.peak_memory_bytes);
  v("skipped_steps", s.skipped_steps);
  v("losses", s.losses, kAddedLater);
  v("max_loss_diff", s.max_loss_diff, kAddedLater);
  v("cuda_graphs_used", s.cuda_graphs_used, kAddedLater);
  v("kernel_profile", s.kernel_profile);
  v("operator_profile", s.operator_profile, kAddedLater);
  // trace, allocator_snapshot and allocation_log: left out (see run_record_json.h).
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::KernelStats>) {
  v("name", s.name);
  v("short_name", s.short_name);
  v("category", s.category);
  v("instances", s.instances);
  v("total_ns", s.total_ns);
  v("min_ns", s.min_ns);
  v("max_ns", s.max_ns);
  v("mean_ns", s.mean_ns);
  v("median_ns", s.median_ns);
  v("stddev_ns", s.stddev_ns);
  v("time_percent", s.time_percent);
  v("instances_per_step", s.instances_per_step);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::CategoryShare>) {
  v("category", s.category);
  v("total_ns", s.total_ns);
  v("instances", s.instances);
  v("percent", s.percent);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::RangeKernelSummary>) {
  v("range", s.range);
  v("gpu_time_ns", s.gpu_time_ns);
  v("kernels", s.kernels);
  v("categories", s.categories);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::StepGpuUsage>) {
  v("step", s.step);
  v("span_ns", s.span_ns);
  v("busy_ns", s.busy_ns);
  v("idle_ns", s.idle_ns);
  v("kernels", s.kernels);
  v("mean_kernel_ns", s.mean_kernel_ns);
  v("launch_bound", s.launch_bound);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::RangeCpuTiming>) {
  v("range", s.range);
  v("instances", s.instances);
  v("total_ns", s.total_ns);
  v("mean_ns", s.mean_ns);
  v("parent", s.parent, kAddedLater);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::KernelProfile>) {
  v("ranges", s.ranges);
  v("steps", s.steps);
  v("cpu_ranges", s.cpu_ranges);
  v("measured_steps", s.measured_steps);
  v("dropped_records", s.dropped_records);
  v("unattributed_kernels", s.unattributed_kernels);
  v("untimed_records", s.untimed_records);
  v("gpu_activity_recorded", s.gpu_activity_recorded);
  v("source_message", s.source_message);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::OperatorKernel>) {
  v("name", s.name);
  v("short_name", s.short_name);
  v("category", s.category);
  v("launches", s.launches);
  v("total_ns", s.total_ns);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::OperatorStats>) {
  v("range_path", s.range_path);
  v("name", s.name);
  v("input_shapes", s.input_shapes);
  v("calls", s.calls);
  v("total_cpu_ns", s.total_cpu_ns);
  v("self_cpu_ns", s.self_cpu_ns);
  v("self_gpu_ns", s.self_gpu_ns);
  v("total_gpu_ns", s.total_gpu_ns);
  v("kernels", s.kernels);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::OperatorProfile>) {
  v("operators", s.operators);
  v("measured_steps", s.measured_steps);
  v("measured_cpu_ns", s.measured_cpu_ns);
  v("operator_calls", s.operator_calls);
  v("dropped_calls", s.dropped_calls);
  v("unattributed_kernels", s.unattributed_kernels);
  v("gpu_activity_recorded", s.gpu_activity_recorded);
  v("source_message", s.source_message);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::MemoryPoint>) {
  v("time_ns", s.time_ns);
  v("bytes_by_category", s.bytes_by_category);
  v("allocated_bytes", s.allocated_bytes);
  v("reserved_bytes", s.reserved_bytes);
  v("band", s.band);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::PhaseBand>) {
  v("phase", s.phase);
  v("step", s.step);
  v("warmup", s.warmup);
  v("start_ns", s.start_ns);
  v("end_ns", s.end_ns);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::MemoryPeak>) {
  v("label", s.label);
  v("time_ns", s.time_ns);
  v("allocated_bytes", s.allocated_bytes);
  v("reserved_bytes", s.reserved_bytes);
  v("bytes_by_category", s.bytes_by_category);
  v("step", s.step);
  v("warmup", s.warmup);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::LargeAllocation>) {
  v("bytes", s.bytes);
  v("count", s.count);
  v("category", s.category);
  v("phase", s.phase);
}

template <class V, class S>
void fields(V& v, S& s, Of<profiling::MemoryTimeline>) {
  v("points", s.points);
  v("bands", s.bands);
  v("peaks", s.peaks);
  v("largest", s.largest);
  v("peak_reserved_bytes", s.peak_reserved_bytes);
  v("baseline_bytes", s.baseline_bytes);
  v("unknown_frees", s.unknown_frees);
  v("unknown_freed_bytes", s.unknown_freed_bytes);
  v("implicit_frees", s.implicit_frees);
  v("unmatched_labels", s.unmatched_labels);
  v("dropped_events", s.dropped_events);
  v("event_limit", s.event_limit);
  v("truncated", s.truncated);
  v("highest_tensor_bytes_by_category", s.highest_tensor_bytes_by_category, kAddedLater);
}

template <class V, class S>
void fields(V& v, S& s, Of<RunRecordEntry>) {
  v("result", s.result);
  v("timeline", s.timeline);
}

template <class V, class S>
void fields(V& v, S& s, Of<RunRecord>) {
  v("environment", s.environment);
  v("entries", s.entries);
}

// The field list of S, whether S is const or not.
template <class V, class S>
void visit_fields(V& v, S& s) {
  fields(v, s, Of<std::remove_const_t<S>>{});
}

}  // namespace stepscope::run_record_fields
