// The configuration the GPU tests profile: a model small enough for seconds, large enough to
// launch every kind of kernel the big ones do.
#pragma once

#include "runners/bench_types.h"

namespace stepscope::testing {

inline BenchConfig mini_gpu_train_config(int measured_steps) {
  BenchConfig c;
  c.model = model_preset("mini");
  c.model.context_length = 128;
  c.context = 128;
  c.mode = StepMode::train;
  c.warmup_steps = 1;
  c.measured_steps = measured_steps;
  c.device = Device{DeviceKind::cuda, -1};
  return c;
}

}  // namespace stepscope::testing
