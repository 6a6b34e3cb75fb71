#include "experiments/bench/step_benchmark_case.h"

#include <torch/torch.h>

#include "experiments/memory_precheck.h"
#include "runners/memory_estimate.h"
#include "profiling/range_recorder.h"
#include "profiling/step_ranges.h"
#include "runners/device_backend.h"
#include "runners/memory_phase_clock.h"
#include "experiments/bench/step_benchmark.h"
#include "runners/training_step.h"

namespace stepscope {

StepBenchmarkCase::StepBenchmarkCase(BenchConfig config) : config_(std::move(config)) {
  validate(config_);
  result_.config = config_;
}

StepBenchmarkCase::~StepBenchmarkCase() = default;

std::string StepBenchmarkCase::label() const { return describe(config_); }

ObserverSpec StepBenchmarkCase::observers() const {
  return {config_.profile_kernels, config_.profile_memory, config_.memory_event_limit, config_.profile_operators,
          profiles_in_own_steps(config_)};
}

void StepBenchmarkCase::check(DeviceBackend& backend) {
  result_.device_name = backend.name();
  result_.timer = backend.timer_name();
  TrainingStep::check_precision(config_.precision, backend.device(), config_.engine);
}

void StepBenchmarkCase::prepare(DeviceBackend& backend, profiling::AllocationRecorder* memory) {
  const MemoryEstimate e = estimate_memory(config_);
  refuse_if_clearly_too_large(e.peak_bytes, backend.available_memory_bytes(), config_.device,
                              "weights, gradients, optimizer state and activations of " + describe(config_));
  step_ = std::make_unique<TrainingStep>(config_, backend.device());
  if (memory) step_->label_memory(*memory);
  clock_ = backend.make_clock();
}

// One step inside a "step" range, so its kernels are attributed to it.
void StepBenchmarkCase::run_step(const StepContext& context) {
  StepTiming timing;
  if (!context.memory) {
    {
      profiling::ScopedRange range(profiling::step_ranges::kStep);
      step_->run(*clock_);
    }
    timing = clock_->finish(config_.mode);
  } else {
    context.memory->set_step(context.index, context.warmup);
    MemoryPhaseClock phases(*clock_, *context.memory, config_.mode);
    {
      profiling::ScopedRange range(profiling::step_ranges::kStep);
      step_->run(phases);
    }
    timing = phases.finish(config_.mode);
    step_->label_memory(*context.memory);  // gradients are new each step
    context.memory->set_step(-1, false);
  }
  if (context.profiled) {
    profiled_ns_.push_back(timing.total_ns);
  } else if (!context.warmup) {
    result_.steps.push_back(timing);
    if (config_.record_losses) result_.losses.push_back(step_->last_loss());
  }
}

void StepBenchmarkCase::after_measuring(DeviceBackend& backend) {
  result_.peak_memory_bytes = backend.peak_memory_bytes();
  result_.skipped_steps = step_->skipped_steps();
  result_.cuda_graphs_used = step_->uses_cuda_graphs();
  graphs_note_ = step_->cuda_graphs_refusal();
  if (config_.engine == EngineKind::fused && config_.device.is_cpu()) {
    graphs_note_ = "fused on the CPU: its operations run their LibTorch references (the fused kernels are CUDA's)";
  }
  if (result_.cuda_graphs_used && (config_.profile_memory || config_.profile_kernels || config_.profile_operators)) {
    graphs_note_ = std::string("CUDA graphs: ") +
                   (config_.profile_memory ? "memory was allocated when the step was captured in warm-up; "
                                             "the measured steps replay it and allocate nothing. "
                                           : "") +
                   (config_.profile_kernels ? "kernels are attributed to the phase whose graph ran them. " : "") +
                   (config_.profile_operators ? "replays run no operators: their kernels are listed under " +
                                                    std::string(profiling::kOutsideOperators) + " of the phase; " +
                                                    "--cuda-graphs off shows the operators."
                                              : "");
    while (!graphs_note_.empty() && graphs_note_.back() == ' ') graphs_note_.pop_back();
  }
}

void StepBenchmarkCase::release() {
  clock_.reset();
  step_.reset();
}

void StepBenchmarkCase::finish(CaseEnd end) {
  result_.status = end.status;
  result_.message = !end.message.empty() ? end.message : end.observation.message;
  if (end.status == RunStatus::ok && !graphs_note_.empty()) {
    result_.message = result_.message.empty() ? graphs_note_ : result_.message + "; " + graphs_note_;
  }
  result_.kernel_profile = std::move(end.observation.kernel_profile);
  result_.trace = std::move(end.observation.trace);
  result_.operator_profile = std::move(end.observation.operator_profile);
  result_.allocation_log = std::move(end.observation.allocation_log);
  result_.allocator_snapshot = std::move(end.observation.allocator_snapshot);
  if (result_.allocation_log) {
    profiling::TimelineOptions options;
    options.include_warmup = false;  // peaks and largest allocations of the measured steps
    options.device = config_.device.ordinal();
    result_.memory_timeline = std::make_shared<const profiling::MemoryTimeline>(
        profiling::build_memory_timeline(*result_.allocation_log, options));
  }
  summarize(result_);
  result_.profiled = summarize_ns(profiled_ns_);
}

}  // namespace stepscope
