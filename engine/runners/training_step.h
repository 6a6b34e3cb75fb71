// One model, optimizer and random batch, and the step that every runner times:
// forward (+ loss), backward, optimizer, in the chosen precision and engine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "model/adamw.h"
#include "model/loss_scaler.h"
#include "profiling/allocation_recorder.h"
#include "runners/bench_types.h"
#include "runners/device_backend.h"
#include "runners/step_graphs.h"

namespace stepscope {

class EngineModel;
namespace fused {
class FusedAdamW;
}

class TrainingStep {
 public:
  // Builds the model (an EngineModel: fp32 master weights) on `device`, seeded from config.seed:
  // the same initial weights for either engine. Throws ConfigError when the precision is not
  // available.
  TrainingStep(const BenchConfig& config, c10::Device device);
  ~TrainingStep();

  // Runs one step of config.mode, marking phase ends on `clock`. Gradients from the
  // previous step are dropped first (outside the timed region).
  void run(StepClock& clock);

  // Throws ConfigError when `engine` cannot run `precision` on `device` in this LibTorch
  // (eager needs autocast for it; fused computes in that type without autocast).
  static void check_precision(Precision precision, c10::Device device, EngineKind engine = EngineKind::eager);

  // Tells the recorder which live allocations hold parameters, gradients, optimizer state
  // and the batch. Call after construction and after each step (gradients are new each step).
  void label_memory(profiling::AllocationRecorder& recorder) const;

  // The model's parameters with the reference's names, for either engine.
  torch::nn::Module& module();
  int64_t skipped_steps() const { return scaler_ ? scaler_->skipped_steps() : 0; }
  // The last step's loss (reads it from the device).
  double last_loss() const;
  // Whether steps replay CUDA graphs (from the second step on), and if they were asked for
  // but cannot, why not ("" otherwise).
  bool uses_cuda_graphs() const { return graphs_ != nullptr; }
  const std::string& cuda_graphs_refusal() const { return graphs_refusal_; }

 private:
  at::Tensor forward_loss();
  void optimizer_step();
  void next_batch(int64_t step);
  void capture_graphs();
  void replay_graphs(StepClock& clock);

  BenchConfig config_;
  std::unique_ptr<EngineModel> model_;  // either engine's: parameters, loss, the fused model
  std::vector<at::Tensor> parameters_;
  std::unique_ptr<AdamW> optimizer_;
  std::unique_ptr<fused::FusedAdamW> fused_optimizer_;
  std::unique_ptr<LossScaler> scaler_;
  at::Tensor inputs_, targets_, loss_;
  std::unique_ptr<StepGraphs> graphs_;
  std::string graphs_refusal_;
  at::Tensor graph_loss_;  // the loss tensor the forward graph writes
  int64_t steps_run_ = 0;
};

}  // namespace stepscope
