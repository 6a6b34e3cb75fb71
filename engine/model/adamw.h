// AdamW with the reference's update rule: decoupled weight decay applied after the Adam step.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace stepscope {

struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
  // Elements updated by one batch of multi-tensor kernels. The batch's temporary
  // (sqrt(v) + eps) is this large, so it bounds the optimizer's extra memory (512 MiB of fp32,
  // against a whole copy of the model unbatched); large batches keep the kernels' grids full.
  int64_t chunk_elements = int64_t{128} << 20;
};

// One AdamW update of `params` in place, step t (from 1) of their moments m and v (updated in
// place), with `grads`: the rule of AdamW::step on any tensors (slices of parameters too, as a
// sharded optimizer updates). Multi-tensor kernels; the lists are of equal length and shapes.
void adamw_update(std::vector<at::Tensor> params, std::vector<at::Tensor> grads, std::vector<at::Tensor> m,
                  std::vector<at::Tensor> v, int64_t t, const AdamWOptions& options);
// Throws std::invalid_argument for out-of-range hyper-parameters.
void check_adamw_options(const AdamWOptions& options);

class AdamW {
 public:
  // Throws std::invalid_argument for out-of-range hyper-parameters.
  AdamW(std::vector<at::Tensor> parameters, AdamWOptions options = {});

  // One update of every parameter that has a gradient:
  //   m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;  a_t = lr sqrt(1-b2^t) / (1-b1^t)
  //   p -= a_t m / (sqrt(v) + eps);  p -= lr * wd * p
  void step();
  // Drops the gradients (set to undefined, like set_to_none=True).
  void zero_grad();

  const AdamWOptions& options() const { return options_; }
  // The state of parameter i: first and second moments (undefined before its first step) and its t.
  const at::Tensor& first_moment(size_t i) const { return m_[i]; }
  const at::Tensor& second_moment(size_t i) const { return v_[i]; }
  int64_t step_count(size_t i) const { return t_[i]; }
  size_t size() const { return parameters_.size(); }

 private:
  void update(const std::vector<size_t>& indices, int64_t t);

  std::vector<at::Tensor> parameters_;
  AdamWOptions options_;
  std::vector<at::Tensor> m_, v_;
  std::vector<int64_t> t_;
};

}  // namespace stepscope
