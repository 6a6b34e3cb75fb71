#include "runners/engine_model.h"

#include <optional>

#include <torch/torch.h>

#include "compat/torch_compat.h"
#include "model/loss.h"
#include "profiling/range_recorder.h"

namespace stepscope {

EngineModel::EngineModel(EngineKind engine, const ModelConfig& config, Precision precision, uint64_t seed,
                         const c10::Device& device)
    : precision_(precision) {
  torch::manual_seed(seed);
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  if (engine == EngineKind::fused) {
    const auto compute = precision == Precision::bf16   ? at::kBFloat16
                         : precision == Precision::fp16 ? at::kHalf
                                                        : at::kFloat;
    fused_ = std::make_shared<FusedTransformerLM>(config, options, compute);
  } else {
    eager_ = TransformerLM(config, options);
  }
}

torch::nn::Module& EngineModel::module() {
  if (fused_) return *fused_;
  return *eager_;
}

std::vector<int> EngineModel::parameter_stages() const {
  return fused_ ? fused_->parameter_stages() : eager_->parameter_stages();
}

void EngineModel::set_before_stage(std::function<void(int)> hook) {
  if (fused_) {
    fused_->set_before_stage(std::move(hook));
  } else {
    eager_->set_before_stage(std::move(hook));
  }
}

at::Tensor EngineModel::loss(const at::Tensor& inputs, const at::Tensor& targets) {
  if (fused_) return fused_->loss(inputs, targets);  // computes in its own types: no autocast
  std::optional<compat::AutocastGuard> autocast;
  if (precision_ == Precision::bf16) autocast.emplace(inputs.device().type(), at::kBFloat16);
  if (precision_ == Precision::fp16) autocast.emplace(inputs.device().type(), at::kHalf);
  const auto logits = eager_(inputs);
  profiling::ScopedRange range("loss");
  return mean_cross_entropy(logits, targets);
}

at::Tensor EngineModel::copy_to_refresh() const {
  if (!fused_) return at::Tensor();
  const at::Tensor& copy = fused_->compute_copy();
  return copy.data_ptr() == fused_->flat_parameters().data_ptr() ? at::Tensor() : copy;
}

}  // namespace stepscope
