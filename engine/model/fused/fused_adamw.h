// AdamW over parameters that live in one flat fp32 buffer: one kernel reads param, grad, m, v
// once and writes param, m, v once (28 bytes a parameter with fp32 gradients), and in the same
// pass refreshes the bf16/fp16 copy of the weights the forward computes with. The step count
// lives on the device, so the update can be captured in a CUDA graph and replayed.
// Same rule as model/adamw.h (decoupled weight decay after the Adam step).
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

#include "model/adamw.h"

namespace stepscope::fused {

// One update. params, m, v: flat fp32 [n] contiguous; grads[i] covers params[offsets[i],
// offsets[i] + grads[i].numel()) (fp32, bf16 or fp16, contiguous; an undefined grad leaves its
// range as it is); step: int64 [1] on params' device, incremented by one before the update;
// compute_copy: undefined, or [n] bf16/fp16 written with the updated params.
void fused_adamw_update(const at::Tensor& params, const std::vector<at::Tensor>& grads,
                        const std::vector<int64_t>& offsets, const at::Tensor& m, const at::Tensor& v,
                        const at::Tensor& step, const at::Tensor& compute_copy, const AdamWOptions& options);
// The LibTorch reference (any device), same contract.
void fused_adamw_update_reference(const at::Tensor& params, const std::vector<at::Tensor>& grads,
                                  const std::vector<int64_t>& offsets, const at::Tensor& m, const at::Tensor& v,
                                  const at::Tensor& step, const at::Tensor& compute_copy,
                                  const AdamWOptions& options);

// The optimizer of the fused engine: `parameters` are views into `flat` (in any order), the
// gradient of each is read where autograd left it (parameters[i].grad()).
class FusedAdamW {
 public:
  // Throws std::invalid_argument for out-of-range hyper-parameters, or when a parameter is not a
  // contiguous view of `flat`.
  FusedAdamW(at::Tensor flat, std::vector<at::Tensor> parameters, at::Tensor compute_copy, AdamWOptions options = {});
  void step();
  const AdamWOptions& options() const { return options_; }
  const at::Tensor& first_moment() const { return m_; }   // flat, like the parameters
  const at::Tensor& second_moment() const { return v_; }
  int64_t step_count() const;  // reads the device counter (synchronises)

 private:
  at::Tensor flat_, compute_copy_, m_, v_, step_;
  std::vector<at::Tensor> parameters_;
  std::vector<int64_t> offsets_;
  AdamWOptions options_;
};

}  // namespace stepscope::fused
