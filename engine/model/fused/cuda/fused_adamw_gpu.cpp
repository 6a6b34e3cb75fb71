#include "model/fused/cuda/fused_adamw_gpu.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "kernels/element_type_of.h"
#include "kernels/cuda/fused/fused_adamw_kernels.h"

namespace stepscope::fused {

void fused_adamw_update_gpu(const at::Tensor& params, const std::vector<at::Tensor>& grads,
                            const std::vector<int64_t>& offsets, const at::Tensor& m, const at::Tensor& v,
                            const at::Tensor& step, const at::Tensor& compute_copy, const AdamWOptions& options) {
  const c10::cuda::CUDAGuard guard(params.device());
  std::vector<kernels::FusedAdamWGrad> table;
  table.reserve(grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined() || grads[i].numel() == 0) continue;
    table.push_back({grads[i].data_ptr(), kernels::element_type_of(grads[i]), offsets[i], grads[i].numel()});
  }
  kernels::FusedAdamWArgs args;
  args.params = params.data_ptr<float>();
  args.exp_avg = m.data_ptr<float>();
  args.exp_avg_sq = v.data_ptr<float>();
  args.numel = params.numel();
  if (compute_copy.defined()) {
    args.compute_copy = compute_copy.data_ptr();
    args.copy_type = kernels::element_type_of(compute_copy);
  }
  args.step = step.data_ptr<int64_t>();
  args.grads = table.data();
  args.grad_count = static_cast<int64_t>(table.size());
  args.lr = options.lr;
  args.beta1 = options.beta1;
  args.beta2 = options.beta2;
  args.eps = options.eps;
  args.weight_decay = options.weight_decay;
  // Cached by LibTorch: no runtime query per step (or inside a graph capture).
  args.multiprocessors = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  kernels::fused_adamw_cuda(args, c10::cuda::getCurrentCUDAStream().stream());
}

}  // namespace stepscope::fused
