#include "experiments/harness.h"

#include <torch/torch.h>

#include "core/config_error.h"
#include "compat/torch_compat.h"
#include "experiments/memory_precheck.h"
#include "runners/device_backend.h"

namespace stepscope {

namespace {

class Reporter {
 public:
  Reporter(ProgressSink* sink, const std::string& label, CasePosition position) : sink_(sink) {
    progress_.config_label = label;
    progress_.config_index = position.index;
    progress_.config_count = position.count;
  }
  void phase(RunPhase phase, int steps) {
    progress_.phase = phase;
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

}  // namespace

void run_case(ExperimentCase& c, CasePosition position, ProgressSink* progress, const CancelFlag* cancel) {
  auto backend = make_device_backend(c.device());
  c.check(*backend);
  Reporter report(progress, c.label(), position);
  CaseEnd end;
  const ObserverSpec spec = c.observers();
  auto observers = make_observers(spec, *backend, progress, end.observation);
  profiling::AllocationRecorder* memory = nullptr;
  for (auto& o : observers) {
    if (!memory) memory = o->allocation_recorder();
  }
  const auto run_steps = [&](int first, int count, bool warmup, bool profiled = false) {
    for (int i = 0; i < count && !cancelled(cancel); ++i) {
      for (auto& o : observers) o->before_step(first + i, warmup);
      c.run_step({first + i, warmup, profiled, profiled ? nullptr : memory});
      if (!warmup && !profiled) ++end.measured_steps;
      report.step_done();
    }
  };
  try {
    report.phase(RunPhase::preparing, 0);
    for (auto& o : observers) o->before_case();
    c.prepare(*backend, memory);
    report.phase(RunPhase::warmup, c.warmup_steps());
    run_steps(0, c.warmup_steps(), true);
    backend->synchronize();
    backend->reset_peak_memory();
    report.phase(RunPhase::measuring, c.measured_steps());
    run_steps(c.warmup_steps(), c.measured_steps(), false);
    backend->synchronize();
    if (spec.own_steps && (spec.kernels || spec.operators) && !cancelled(cancel)) {
      for (auto& o : observers) o->before_own_steps();
      memory = nullptr;  // the memory observer has stopped
      report.phase(RunPhase::profiling, c.measured_steps());
      run_steps(c.warmup_steps() + c.measured_steps(), c.measured_steps(), false, true);
      backend->synchronize();
    }
    c.after_measuring(*backend);
    if (cancelled(cancel)) {
      end.status = RunStatus::cancelled;
      end.message = "cancelled after " + std::to_string(end.measured_steps) + " measured step(s)";
    }
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& error) {
    const bool refused = dynamic_cast<const EstimatedOutOfMemory*>(&error) != nullptr;
    end.status = refused || compat::is_out_of_memory(error) ? RunStatus::out_of_memory : RunStatus::failed;
    end.message = compat::error_message(error);
  }
  c.release();
  for (auto& o : observers) o->after_case(end.observation);
  observers.clear();
  // What the case built is gone; hand its blocks back so that the next case starts from an
  // empty cache.
  try {
    backend->release_cached_memory();
  } catch (const std::exception& error) {
    if (end.observation.message.empty()) end.observation.message = "releasing memory failed: " + compat::error_message(error);
  }
  report.phase(RunPhase::done, 0);
  c.finish(std::move(end));
}

void run_cases(const std::vector<ExperimentCase*>& cases, ProgressSink* progress, const CancelFlag* cancel,
               const std::function<void(int)>& after_case) {
  const int count = static_cast<int>(cases.size());
  for (int i = 0; i < count; ++i) {
    if (cancelled(cancel)) break;
    run_case(*cases[static_cast<size_t>(i)], {i, count}, progress, cancel);
    if (after_case) after_case(i);
  }
}

}  // namespace stepscope
