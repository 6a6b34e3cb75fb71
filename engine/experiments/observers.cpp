#include <torch/torch.h>

#include "compat/operator_callbacks.h"
#include "compat/torch_compat.h"
#include "experiments/observer.h"
#include "core/progress.h"
#include "profiling/allocation_recorder.h"
#include "profiling/kernel_profiler.h"
#include "runners/device_backend.h"

namespace stepscope {

namespace {

void note(Observation& observation, const std::string& what, const std::exception& error) {
  if (observation.message.empty()) observation.message = what + ": " + compat::error_message(error);
}

// CUPTI kernel summaries on a GPU; range timings only on the CPU. With operators, LibTorch's
// operators per range too, sharing the ranges and the activity source, so that each kernel is
// attributed to the operator that launched it.
class KernelObserver final : public Observer {
 public:
  KernelObserver(const ObserverSpec& spec, DeviceBackend& backend, ProgressSink* sink)
      : spec_(spec), backend_(backend) {
    auto source = backend.device().is_cuda() ? profiling::make_cupti_activity_source() : nullptr;
    profiling::ProfilerOptions options;
    options.operators = spec.operators;
    profiler_ = std::make_unique<profiling::KernelProfiler>(std::move(source), options);
    if (sink && spec.kernels) {
      profiler_->subscribe([sink](const profiling::KernelProfile& p) { sink->on_kernel_profile(p); });
    }
  }
  void before_case() override {
    if (!spec_.own_steps) start();
  }
  void before_own_steps() override {
    if (spec_.own_steps) start();
  }
  void before_step(int index, bool warmup) override { profiler_->begin_step(index, warmup); }
  void after_case(Observation& observation) override {
    callbacks_.reset();  // no operator runs now: the case's steps are over
    if (!started_) return;  // the case ended before the profilers' own steps
    try {
      backend_.synchronize();  // every kernel finished, so each record has its timestamps
      auto kernels = std::make_shared<profiling::KernelProfile>(profiler_->finish());
      if (spec_.kernels) observation.kernel_profile = std::move(kernels);
      if (spec_.operators) {
        observation.operator_profile = std::make_shared<profiling::OperatorProfile>(profiler_->operator_profile());
      }
      observation.trace = std::make_shared<profiling::TraceWindow>(profiler_->trace());
    } catch (const std::exception& error) {
      note(observation, spec_.kernels ? "kernel profiling failed" : "operator profiling failed", error);
    }
  }

 private:
  void start() {
    profiler_->start();
    started_ = true;
    if (auto* recorder = profiler_->operator_recorder()) {
      callbacks_ = std::make_unique<compat::OperatorCallbacks>(*recorder, recorder->wants_input_shapes());
    }
  }

  ObserverSpec spec_;
  DeviceBackend& backend_;
  std::unique_ptr<profiling::KernelProfiler> profiler_;
  std::unique_ptr<compat::OperatorCallbacks> callbacks_;
  bool started_ = false;
};

// Every allocation and free, and on a GPU the caching allocator's own history for memory_viz,
// until the measured steps end: the profilers' own steps after them are not in the timeline.
class MemoryObserver final : public Observer {
 public:
  MemoryObserver(const ObserverSpec& spec, DeviceBackend& backend, Observation& observation)
      : recorder_(std::make_unique<profiling::AllocationRecorder>(spec.memory_event_limit)),
        observation_(observation) {
    const auto device = backend.device();
    const int64_t before = backend.allocated_memory_bytes();
    if (before > 0) recorder_->note_baseline(device.is_cuda() ? device.index() : -1, before);
    try {
      history_ = backend.record_allocator_history(static_cast<size_t>(spec.memory_event_limit));
    } catch (const std::exception& error) {
      note(observation, "the allocator's history could not be recorded", error);
    }
  }
  profiling::AllocationRecorder* allocation_recorder() override { return recorder_.get(); }
  void before_own_steps() override { stop(); }
  void after_case(Observation& /*observation*/) override { stop(); }

 private:
  void stop() {
    if (!recorder_) return;
    observation_.allocation_log = std::make_shared<profiling::AllocationLog>(recorder_->log());
    recorder_.reset();  // hears no more allocations
    if (!history_) return;
    // Taken after an out-of-memory error too, when it shows what filled the device.
    try {
      observation_.allocator_snapshot = std::make_shared<const std::string>(history_->snapshot_pickle());
    } catch (const std::exception& error) {
      note(observation_, "memory snapshot failed", error);
    }
    history_.reset();
  }

  std::unique_ptr<profiling::AllocationRecorder> recorder_;
  std::unique_ptr<AllocatorHistory> history_;
  Observation& observation_;  // the harness's, which outlives its observers
};

}  // namespace

std::vector<std::unique_ptr<Observer>> make_observers(const ObserverSpec& spec, DeviceBackend& backend,
                                                      ProgressSink* sink, Observation& observation) {
  std::vector<std::unique_ptr<Observer>> observers;
  if (spec.kernels || spec.operators) observers.push_back(std::make_unique<KernelObserver>(spec, backend, sink));
  // Installed after the backend's own memory hook, which it keeps feeding.
  if (spec.memory) observers.push_back(std::make_unique<MemoryObserver>(spec, backend, observation));
  return observers;
}

}  // namespace stepscope
