// What watches a case while the harness runs it: the kernel and operator profiler and the
// allocation recorder are observers, so they work with every experiment. Observers attach what they
// saw to the case's Observation.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "profiling/kernel_profile.h"
#include "profiling/memory_events.h"
#include "profiling/operator_profile.h"
#include "profiling/trace_window.h"

namespace stepscope::profiling {
class AllocationRecorder;
}

namespace stepscope {

class DeviceBackend;
class ProgressSink;

// What the observers of one case saw.
struct Observation {
  std::shared_ptr<const profiling::KernelProfile> kernel_profile;
  std::shared_ptr<const profiling::TraceWindow> trace;
  std::shared_ptr<const profiling::OperatorProfile> operator_profile;
  std::shared_ptr<const std::string> allocator_snapshot;  // memory_viz pickle, GPUs only
  std::shared_ptr<const profiling::AllocationLog> allocation_log;
  std::string message;  // the first problem an observer met; the case's numbers still stand
};

class Observer {
 public:
  virtual ~Observer() = default;
  // Before the case prepares anything. With ObserverSpec::own_steps the kernel and operator
  // profilers wait for before_own_steps() instead.
  virtual void before_case() {}
  // The measured steps are over and timed: the profilers that trace steps of their own start
  // now; the others have seen all they report (the memory timeline ends with the measured steps).
  virtual void before_own_steps() {}
  virtual void before_step(int /*index*/, bool /*warmup*/) {}
  // The case's steps are over (or failed) and what it built is gone; the device is idle.
  virtual void after_case(Observation& /*observation*/) {}
  // The recorder a case marks phases and labels in, when this observer keeps one.
  virtual profiling::AllocationRecorder* allocation_recorder() { return nullptr; }
};

// Which observers a case asks for.
struct ObserverSpec {
  bool kernels = false;  // CUPTI kernel summaries by range (CPU range timings without a GPU)
  bool memory = false;   // every allocation and free, for the memory timeline
  int64_t memory_event_limit = 1000000;
  bool operators = false;  // ATen operators per range (RecordFunction), with their kernels on a GPU
  // The kernel and operator profilers trace steps of their own, as many again after the measured
  // ones, which are timed untraced: on a GPU, tracing every operator and launch costs 1-4 us a
  // call (CUPTI's share alone 1-2.5 us), which nearly doubles a launch-bound step.
  bool own_steps = false;
};

// Built before the case prepares anything, so the memory observer sees every allocation.
std::vector<std::unique_ptr<Observer>> make_observers(const ObserverSpec& spec, DeviceBackend& backend,
                                                      ProgressSink* sink, Observation& observation);

}  // namespace stepscope
