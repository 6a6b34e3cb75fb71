// One case of an experiment (a configuration of a sweep), as the harness drives it: prepare,
// warm-up steps, measured steps, then the result. In the spirit of nccl-tests' testColl: a
// case says what one step is; the harness owns timing order, out-of-memory, cancel, progress
// and observers, the same for every experiment.
#pragma once

#include <string>

#include "core/device.h"
#include "experiments/observer.h"
#include "runners/bench_types.h"

namespace stepscope {

class DeviceBackend;

struct StepContext {
  int index = 0;  // warm-up steps first, then measured ones, then the profilers' own, numbered on
  bool warmup = false;
  bool profiled = false;  // one of the profilers' own steps (ObserverSpec::own_steps): not a measured one
  profiling::AllocationRecorder* memory = nullptr;  // with a memory observer: mark phases and label here
};

// How a case ended, for it to record.
struct CaseEnd {
  RunStatus status = RunStatus::ok;
  std::string message;  // why it failed, ran out of memory or was cancelled
  int measured_steps = 0;
  Observation observation;
};

class ExperimentCase {
 public:
  virtual ~ExperimentCase() = default;
  // "small ctx 256 b 4 fp32 train": how progress lines and people name the case.
  virtual std::string label() const = 0;
  virtual Device device() const = 0;
  virtual int warmup_steps() const { return 0; }
  virtual int measured_steps() const { return 1; }
  virtual ObserverSpec observers() const { return {}; }
  // Throws ConfigError when the case cannot run here (before anything is built).
  virtual void check(DeviceBackend& /*backend*/) {}
  // Builds what the steps need; may run out of memory (a result, not an error).
  virtual void prepare(DeviceBackend& backend, profiling::AllocationRecorder* memory) = 0;
  virtual void run_step(const StepContext& step) = 0;
  // After the measured steps, the device synchronised: read peaks and counters.
  virtual void after_measuring(DeviceBackend& /*backend*/) {}
  // Drops what prepare built, so the harness can hand the memory back.
  virtual void release() {}
  virtual void finish(CaseEnd end) = 0;
};

}  // namespace stepscope
