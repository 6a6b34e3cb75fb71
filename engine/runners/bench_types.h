// Configuration and result of the end-to-end step benchmark; plain data shared by the
// runner, the exporters, the CLI and the views.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <memory>

#include "core/device.h"
#include "core/engine_kind.h"
#include "core/phase_stats.h"
#include "core/precision.h"
#include "core/run_status.h"
#include "core/step_mode.h"
#include "model/model_config.h"
#include "profiling/kernel_profile.h"
#include "profiling/operator_profile.h"
#include "profiling/memory_events.h"
#include "profiling/memory_timeline.h"
#include "profiling/trace_window.h"

namespace stepscope {

struct BenchConfig {
  ModelConfig model;
  int64_t batch = 4;
  int64_t context = 256;
  Precision precision = Precision::fp32;
  StepMode mode = StepMode::train;
  EngineKind engine = EngineKind::eager;
  bool cuda_graphs = true;  // fused on a GPU: replay the step as CUDA graphs after warm-up
  // Each measured step's loss into BenchResult::losses (a sync a step), each step on a fresh batch
  // drawn from the seed (a token stream both engines see alike) instead of one repeated batch.
  bool record_losses = false;
  int warmup_steps = 5;
  int measured_steps = 10;
  Device device;  // the CPU by default
  uint64_t seed = 0;
  double peak_tflops = 0.0;  // 0: look the device up
  bool profile_kernels = false;  // CUPTI kernel summaries by range (CPU range timings without a GPU)
  bool profile_memory = false;   // every allocation and free, for the memory timeline
  bool profile_operators = false;  // ATen operators per range, and on a GPU the kernels each launched
  int64_t memory_event_limit = 1000000;
};

// Throws ConfigError for a configuration that cannot run (the model's own checks,
// non-positive batch/context/steps, negative warm-up).
void validate(const BenchConfig& config);
// Whether the kernel and operator profilers trace steps of their own after the measured ones,
// which then run untraced (experiments/observer.h, ObserverSpec::own_steps): on a GPU, where
// tracing every launch would slow the timed steps. On the CPU they watch the measured steps.
bool profiles_in_own_steps(const BenchConfig& config);
// Steps a configuration runs: warm-up, measured, and the profilers' own.
int total_steps(const BenchConfig& config);
// "small ctx 256 b 4 fp32 forward": how people and progress lines name a configuration.
std::string describe(const BenchConfig& config);

// One measured step, in nanoseconds; phases a mode does not run are 0.
struct StepTiming {
  int64_t forward_ns = 0;
  int64_t backward_ns = 0;
  int64_t optimizer_ns = 0;
  int64_t total_ns = 0;
};

struct BenchResult {
  BenchConfig config;
  RunStatus status = RunStatus::ok;
  std::string message;      // why it failed / ran out of memory
  std::string device_name;  // "NVIDIA H100 80GB HBM3", "CPU (x86_64, 2 threads)"
  std::string timer;        // "cuda-events" or "steady-clock"
  std::vector<StepTiming> steps;
  PhaseStats total, forward, backward, optimizer;
  // The whole step in the profilers' own steps (profiles_in_own_steps): against `total`, what
  // tracing cost; count 0 where the profilers watched the measured steps or did not run.
  PhaseStats profiled;
  int64_t parameters = 0;
  double tokens_per_second = 0;
  double flops_per_step = 0;
  double achieved_tflops = 0;
  double peak_tflops = 0;  // 0 when unknown
  double mfu = -1;         // model FLOPs utilisation in [0, 1]; < 0 when the peak is unknown
  int64_t peak_memory_bytes = -1;  // during the measured steps; < 0 when unknown
  int64_t skipped_steps = 0;       // fp16 steps the loss scaler skipped
  // The loss of every measured step (with a check against another engine: bench --check).
  std::vector<double> losses;
  // bench --check: the largest |loss - eager loss| / |eager loss| over the steps, on the fused
  // row of a pair run from the same weights and batch; < 0 when not checked.
  double max_loss_diff = -1;
  bool cuda_graphs_used = false;  // the measured steps replayed CUDA graphs
  // With config.profile_kernels: the summaries, and the raw records of the run's end for a trace.
  std::shared_ptr<const profiling::KernelProfile> kernel_profile;
  std::shared_ptr<const profiling::TraceWindow> trace;
  // With config.profile_operators: operators per range, with their kernels on a GPU.
  std::shared_ptr<const profiling::OperatorProfile> operator_profile;
  // With config.profile_memory on a GPU: the caching allocator's snapshot for memory_viz.
  std::shared_ptr<const std::string> allocator_snapshot;
  // With config.profile_memory: every allocation and free from model creation on.
  std::shared_ptr<const profiling::AllocationLog> allocation_log;
  // Derived from allocation_log once, by the engine: the measured steps' active memory.
  std::shared_ptr<const profiling::MemoryTimeline> memory_timeline;
  // A profile PyTorch wrote and Stepscope imported (engine/imports/import_record.h): that file,
  // as given; empty for Stepscope's own runs. An import's config tells only its device and
  // steps: no model, batch, precision or mode of ours ran.
  std::string imported_from;
};

bool is_import(const BenchResult& result);
// How people and views name a result: describe(config) for our runs; an import by its file
// and device, "import: trace_cuda.json.gz (cuda:0)".
std::string describe(const BenchResult& result);

bool runs_backward(StepMode mode);
bool runs_optimizer(StepMode mode);

}  // namespace stepscope
