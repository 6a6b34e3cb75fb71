#include "model/fused/cuda/cross_entropy_rows_gpu.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include "kernels/element_type_of.h"
#include "kernels/cuda/fused/cross_entropy_rows_kernels.h"

namespace stepscope::fused {

void cross_entropy_rows_gpu(at::Tensor& logits, const at::Tensor& targets, at::Tensor& losses, double grad_scale) {
  const c10::cuda::CUDAGuard guard(logits.device());
  // The kernel walks each row in 16-byte packs: the elements of a row must be adjacent and rows
  // must not overlap; rows may start anywhere (an unaligned start is walked as a scalar head).
  const bool rows_fit = (logits.stride(1) == 1 || logits.size(1) == 1) &&
                        (logits.size(0) <= 1 || logits.stride(0) >= logits.size(1));
  at::Tensor work = rows_fit ? logits : logits.contiguous();
  const at::Tensor targets_c = targets.is_contiguous() ? targets : targets.contiguous();
  at::Tensor losses_c = losses.is_contiguous() ? losses : at::empty({losses.size(0)}, losses.options());

  kernels::CrossEntropyRowsArgs args;
  args.type = kernels::element_type_of(work);
  args.rows = work.size(0);
  args.vocab = work.size(1);
  args.row_stride = work.size(0) > 1 ? work.stride(0) : work.size(1);
  args.logits = work.data_ptr();
  args.targets = targets_c.data_ptr<int64_t>();
  args.losses = losses_c.data_ptr<float>();
  args.grad_scale = static_cast<float>(grad_scale);
  kernels::cross_entropy_rows_cuda(args, c10::cuda::getCurrentCUDAStream().stream());

  if (!losses_c.is_same(losses)) losses.copy_(losses_c);
  if (grad_scale != 0 && !work.is_same(logits)) logits.copy_(work);
}

}  // namespace stepscope::fused
