// Operators of a profiled run as plain data for exporters, views and comparisons: per ATen
// operator called inside a range, its calls and CPU time (total and self, as torch.profiler's
// key_averages reports them), grouped by input shapes, and the GPU kernels it launched. Built
// from LibTorch's RecordFunction callbacks on our runs, and from a torch.profiler trace's
// cpu_op events on imported ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiling/kernel_profile.h"

namespace stepscope::profiling {

// A kernel (or copy, or set) as launched by one operator, summed over the measured steps.
struct OperatorKernel {
  std::string name;        // demangled, full; "[CUDA memcpy HtoD]" for copies
  std::string short_name;  // templates and arguments folded
  KernelCategory category = KernelCategory::other;
  int64_t launches = 0;
  int64_t total_ns = 0;  // GPU time
};

// One operator name with one input-shape signature inside one range path, summed over the
// measured steps (key_averages(group_by_input_shape=True), per range).
struct OperatorStats {
  // The ranges open around the call, outermost first, from the step's phase down:
  // {"forward", "attention", "softmax"}; imported traces: the record_function annotations.
  // Empty outside every range. Operators that autograd runs on its own threads are placed in
  // the ranges open at that moment on the thread that runs the steps ({"backward"}).
  std::vector<std::string> range_path;
  std::string name;          // "aten::mm"; a backward node's own name ("MmBackward0") is kept too
  std::string input_shapes;  // "[[4096, 768], [768, 3072]]", as key_averages prints them; "[]" for none
  int64_t calls = 0;
  int64_t total_cpu_ns = 0;  // entry to exit, nested operators included
  int64_t self_cpu_ns = 0;   // total minus the operators nested in it on the same thread
  int64_t self_gpu_ns = 0;   // the kernels it launched itself
  int64_t total_gpu_ns = 0;  // with those its nested operators launched
  std::vector<OperatorKernel> kernels;  // launched by it itself, by total time, largest first
};

// A pseudo-operator under which a range lists the kernels launched outside every operator
// (our own fused kernels, CUDA graph replays), so that each kernel is accounted for once.
inline constexpr const char* kOutsideOperators = "(outside operators)";

struct OperatorProfile {
  std::vector<OperatorStats> operators;  // by self CPU time, largest first
  int measured_steps = 0;
  int64_t measured_cpu_ns = 0;   // the measured steps' CPU time (their "step" ranges summed)
  int64_t operator_calls = 0;    // in the measured steps
  uint64_t dropped_calls = 0;    // beyond the recorder's bound: left out of every figure
  uint64_t unattributed_kernels = 0;  // kernels launched outside every range
  bool gpu_activity_recorded = false;
  std::string source_message;  // e.g. why CUPTI could not run, or "CPU: no kernels"
};

}  // namespace stepscope::profiling
