#pragma once
// Run records with every field set to a distinctive value, compared by run_record_expect_same.h.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "io/run_record_json.h"
#include "run_record_expect_same.h"

namespace stepscope::run_record_test {

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
  r.profiled = {7.25, 0.125, 7.0, 7.25, 7.5, 2};  // the profilers' own steps
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
