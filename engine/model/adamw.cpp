#include "model/adamw.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include <torch/torch.h>

namespace stepscope {

namespace {
void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("AdamW: " + message);
}
}  // namespace

void check_adamw_options(const AdamWOptions& o) {
  require(o.lr >= 0.0, "learning rate must be >= 0");
  require(o.beta1 >= 0.0 && o.beta1 < 1.0, "beta1 must be in [0, 1)");
  require(o.beta2 >= 0.0 && o.beta2 < 1.0, "beta2 must be in [0, 1)");
  require(o.eps >= 0.0, "eps must be >= 0");
  require(o.weight_decay >= 0.0, "weight decay must be >= 0");
  require(o.chunk_elements > 0, "chunk size must be positive");
}

AdamW::AdamW(std::vector<at::Tensor> parameters, AdamWOptions options)
    : parameters_(std::move(parameters)), options_(options) {
  check_adamw_options(options_);
  m_.resize(parameters_.size());
  v_.resize(parameters_.size());
  t_.assign(parameters_.size(), 0);
}

void AdamW::step() {
  torch::NoGradGuard no_grad;
  // Parameters that share a step count share a bias correction, so one batch of
  // multi-tensor kernels updates all of them instead of several launches per tensor.
  std::map<int64_t, std::vector<size_t>> by_step;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const auto& grad = parameters_[i].grad();
    if (!grad.defined()) continue;
    if (!m_[i].defined()) {
      m_[i] = torch::zeros_like(parameters_[i], at::MemoryFormat::Preserve);
      v_[i] = torch::zeros_like(parameters_[i], at::MemoryFormat::Preserve);
    }
    by_step[++t_[i]].push_back(i);
  }
  for (const auto& [t, indices] : by_step) {
    // Chunks bound the multi-tensor temporaries (sqrt(v) + eps) to about the size of the
    // largest parameter, as a per-parameter loop would need: no extra copy of the model.
    std::vector<size_t> chunk;
    int64_t chunk_elements = 0;
    for (size_t i : indices) {
      if (!chunk.empty() && chunk_elements + parameters_[i].numel() > options_.chunk_elements) {
        update(chunk, t);
        chunk.clear();
        chunk_elements = 0;
      }
      chunk.push_back(i);
      chunk_elements += parameters_[i].numel();
    }
    if (!chunk.empty()) update(chunk, t);
  }
}

void AdamW::update(const std::vector<size_t>& indices, int64_t t) {
  std::vector<at::Tensor> params, grads, m, v;
  for (size_t i : indices) {
    params.push_back(parameters_[i]);
    grads.push_back(parameters_[i].grad());
    m.push_back(m_[i]);
    v.push_back(v_[i]);
  }
  adamw_update(std::move(params), std::move(grads), std::move(m), std::move(v), t, options_);
}

void adamw_update(std::vector<at::Tensor> params, std::vector<at::Tensor> grads, std::vector<at::Tensor> m,
                  std::vector<at::Tensor> v, int64_t t, const AdamWOptions& o) {
  at::_foreach_mul_(m, c10::Scalar(o.beta1));
  at::_foreach_add_(m, grads, c10::Scalar(1.0 - o.beta1));
  at::_foreach_mul_(v, c10::Scalar(o.beta2));
  at::_foreach_addcmul_(v, grads, grads, c10::Scalar(1.0 - o.beta2));
  const double step_size = o.lr * std::sqrt(1.0 - std::pow(o.beta2, static_cast<double>(t))) /
                           (1.0 - std::pow(o.beta1, static_cast<double>(t)));
  auto denominators = at::_foreach_sqrt(v);
  at::_foreach_add_(denominators, c10::Scalar(o.eps));
  at::_foreach_addcdiv_(params, m, denominators, c10::Scalar(-step_size));
  if (o.weight_decay != 0.0) at::_foreach_mul_(params, c10::Scalar(1.0 - o.lr * o.weight_decay));
}

void AdamW::zero_grad() {
  for (auto& p : parameters_) {
    if (p.grad().defined()) p.mutable_grad() = at::Tensor();
  }
}

}  // namespace stepscope
