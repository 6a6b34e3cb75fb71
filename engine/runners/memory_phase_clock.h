// A step clock that also marks the phase boundaries in the allocation record, so the memory
// timeline knows where each step's forward, backward and optimizer step begin.
#pragma once

#include "profiling/allocation_recorder.h"
#include "profiling/step_ranges.h"
#include "runners/device_backend.h"

namespace stepscope {

class MemoryPhaseClock final : public StepClock {
 public:
  MemoryPhaseClock(StepClock& inner, profiling::AllocationRecorder& recorder, StepMode mode)
      : inner_(inner), recorder_(recorder), mode_(mode) {}
  void start() override {
    recorder_.mark_phase(profiling::step_ranges::kForward);
    inner_.start();
  }
  void end_forward() override {
    inner_.end_forward();
    if (runs_backward(mode_)) recorder_.mark_phase(profiling::step_ranges::kBackward);
  }
  void end_backward() override {
    inner_.end_backward();
    if (runs_optimizer(mode_)) recorder_.mark_phase(profiling::step_ranges::kOptimizerStep);
  }
  void end_optimizer() override { inner_.end_optimizer(); }
  StepTiming finish(StepMode mode) override {
    const StepTiming timing = inner_.finish(mode);
    recorder_.mark_phase(profiling::step_ranges::kStepEnd);
    return timing;
  }

 private:
  StepClock& inner_;
  profiling::AllocationRecorder& recorder_;
  StepMode mode_;
};

}  // namespace stepscope
