// One model, optimizer and random batch, and the step that every runner times:
// forward (+ loss), backward, optimizer, in the chosen precision.
#pragma once

#include <memory>

#include "model/adamw.h"
#include "model/loss_scaler.h"
#include "model/transformer_lm.h"
#include "profiling/allocation_recorder.h"
#include "runners/bench_types.h"
#include "runners/device_backend.h"

namespace stepscope {

class TrainingStep {
 public:
  // Builds the model (fp32 master weights) on `device`, seeded from config.seed.
  // Throws ConfigError when the precision is not available on that device.
  TrainingStep(const BenchConfig& config, c10::Device device);

  // Runs one step of config.mode, marking phase ends on `clock`. Gradients from the
  // previous step are dropped first (outside the timed region).
  void run(StepClock& clock);

  // Throws ConfigError when `device` has no autocast for `precision` in this LibTorch.
  static void check_precision(Precision precision, c10::Device device);

  // Tells the recorder which live allocations hold parameters, gradients, optimizer state
  // and the batch. Call after construction and after each step (gradients are new each step).
  void label_memory(profiling::AllocationRecorder& recorder) const;

  TransformerLM& model() { return model_; }
  int64_t skipped_steps() const { return scaler_ ? scaler_->skipped_steps() : 0; }

 private:
  BenchConfig config_;
  c10::Device device_;
  TransformerLM model_{nullptr};
  std::vector<at::Tensor> parameters_;
  std::unique_ptr<AdamW> optimizer_;
  std::unique_ptr<LossScaler> scaler_;
  at::Tensor inputs_, targets_;
};

}  // namespace stepscope
