#include "runners/step_benchmark.h"

#include <torch/torch.h>

#include "compat/torch_compat.h"
#include "profiling/kernel_profiler.h"
#include "runners/device_backend.h"
#include "runners/memory_phase_clock.h"
#include "runners/training_step.h"

namespace stepscope {

namespace {

class Reporter {
 public:
  Reporter(ProgressSink* sink, const BenchConfig& config) : sink_(sink) {
    progress_.config_label = describe(config);
  }
  void phase(const std::string& name, int steps) {
    progress_.phase = name;
    progress_.step = 0;
    progress_.steps_in_phase = steps;
    send();
  }
  void step_done() {
    ++progress_.step;
    send();
  }

 private:
  void send() {
    if (sink_) sink_->on_progress(progress_);
  }
  ProgressSink* sink_;
  Progress progress_;
};

bool cancelled(const CancelFlag* cancel) { return cancel && cancel->is_cancelled(); }

std::unique_ptr<profiling::KernelProfiler> make_profiler(const BenchConfig& config, const DeviceBackend& backend,
                                                         ProgressSink* progress) {
  if (!config.profile_kernels) return nullptr;
  auto source = backend.device().is_cuda() ? profiling::make_cupti_activity_source() : nullptr;
  auto profiler = std::make_unique<profiling::KernelProfiler>(std::move(source));
  if (progress) profiler->subscribe([progress](const profiling::KernelProfile& p) { progress->on_kernel_profile(p); });
  return profiler;
}

// Who watches a step: the kernel profiler and the allocation recorder, either may be absent.
struct StepObservers {
  profiling::KernelProfiler* kernels = nullptr;
  profiling::AllocationRecorder* memory = nullptr;
};

// One step inside a "step" range, so its kernels are attributed to it; returns its timing.
StepTiming run_step(TrainingStep& step, StepClock& clock, StepMode mode, const StepObservers& observers, int index,
                    bool warmup) {
  if (observers.kernels) observers.kernels->begin_step(index, warmup);
  if (!observers.memory) {
    {
      profiling::ScopedRange range("step");
      step.run(clock);
    }
    return clock.finish(mode);
  }
  observers.memory->set_step(index, warmup);
  MemoryPhaseClock phases(clock, *observers.memory, mode);
  {
    profiling::ScopedRange range("step");
    step.run(phases);
  }
  const StepTiming timing = phases.finish(mode);
  step.label_memory(*observers.memory);
  observers.memory->set_step(-1, false);
  return timing;
}

}  // namespace

void check_runnable(const BenchConfig& config) {
  validate(config);
  const auto backend = make_device_backend(config.device);
  TrainingStep::check_precision(config.precision, backend->device());
}

BenchResult run_step_benchmark(const BenchConfig& config, ProgressSink* progress, const CancelFlag* cancel) {
  validate(config);
  auto backend = make_device_backend(config.device);
  BenchResult result;
  result.config = config;
  result.device_name = backend->name();
  result.timer = backend->timer_name();
  Reporter report(progress, config);
  auto profiler = make_profiler(config, *backend, progress);
  // Installed after the backend's own memory hook, which it keeps feeding.
  auto memory = config.profile_memory ? std::make_unique<profiling::AllocationRecorder>(config.memory_event_limit)
                                      : nullptr;
  if (memory) {
    const auto device = backend->device();
    const int64_t before = backend->allocated_memory_bytes();
    if (before > 0) memory->note_baseline(device.is_cuda() ? device.index() : -1, before);
  }
  std::unique_ptr<AllocatorHistory> history;
  if (memory) {
    try {
      history = backend->record_allocator_history(static_cast<size_t>(config.memory_event_limit));
    } catch (const std::exception& error) {
      result.message = "the allocator's history could not be recorded: " + compat::error_message(error);
    }
  }
  const StepObservers observers{profiler.get(), memory.get()};
  try {
    report.phase("building model", 0);
    if (profiler) profiler->start();
    TrainingStep step(config, backend->device());
    if (memory) step.label_memory(*memory);
    auto clock = backend->make_clock();
    report.phase("warm-up", config.warmup_steps);
    for (int i = 0; i < config.warmup_steps && !cancelled(cancel); ++i) {
      run_step(step, *clock, config.mode, observers, i, /*warmup=*/true);
      report.step_done();
    }
    backend->synchronize();
    backend->reset_peak_memory();
    report.phase("measuring", config.measured_steps);
    for (int i = 0; i < config.measured_steps && !cancelled(cancel); ++i) {
      result.steps.push_back(run_step(step, *clock, config.mode, observers, config.warmup_steps + i, false));
      report.step_done();
    }
    result.peak_memory_bytes = backend->peak_memory_bytes();
    result.skipped_steps = step.skipped_steps();
    if (cancelled(cancel)) {
      result.status = RunStatus::cancelled;
      result.message = "cancelled after " + std::to_string(result.steps.size()) + " measured step(s)";
    }
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& error) {
    result.status = compat::is_out_of_memory(error) ? RunStatus::out_of_memory : RunStatus::failed;
    result.message = compat::error_message(error);
  }
  if (profiler) {
    try {
      backend->synchronize();  // every kernel finished, so each record has its timestamps
      result.kernel_profile = std::make_shared<profiling::KernelProfile>(profiler->finish());
      result.trace = std::make_shared<profiling::TraceWindow>(profiler->trace());
    } catch (const std::exception& error) {
      if (result.message.empty()) result.message = "kernel profiling failed: " + compat::error_message(error);
    }
  }
  if (memory) result.allocation_log = std::make_shared<profiling::AllocationLog>(memory->log());
  if (history) {
    // Taken after an out-of-memory error too, when it shows what filled the device.
    try {
      result.allocator_snapshot = std::make_shared<const std::string>(history->snapshot_pickle());
    } catch (const std::exception& error) {
      if (result.message.empty()) result.message = "memory snapshot failed: " + compat::error_message(error);
    }
    history.reset();
  }
  // The model, optimizer and activations are gone with `step`; hand their blocks back
  // so that the next configuration of a sweep starts from an empty cache.
  try {
    backend->release_cached_memory();
  } catch (const std::exception& error) {
    if (result.message.empty()) result.message = "releasing memory failed: " + compat::error_message(error);
  }
  report.phase("done", 0);
  summarize(result);
  return result;
}

}  // namespace stepscope
