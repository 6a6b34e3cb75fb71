// A projection whose weight is computed with in one type and learnt in another: y = x C^T with
// C the compute copy (bf16 under mixed precision, refreshed by the optimizer, so the forward
// casts nothing), while dW goes to the fp32 master parameters. Several masters that are row
// blocks of one matrix (q | k | v, w1 | w3) make one matmul, and their gradients are row blocks
// of one dW.
#pragma once

#include <functional>
#include <vector>

#include <ATen/core/Tensor.h>

namespace stepscope::fused {

// x: [..., in] in compute's dtype; compute: [out, in]; masters: fp32 leaves whose rows, in
// order, make up `out` (their values are compute's). Differentiable in x and the masters.
// `dweight_out`: undefined, or a contiguous [out, in] tensor of compute's dtype that backward
// writes dW into (overwriting it) instead of handing fp32 gradients to autograd: the masters
// then get no autograd gradient, and no fp32 copy of dW is made. `written` (with dweight_out):
// called on autograd's thread once backward has queued dW's product into dweight_out (DDP
// starts the rows' all-reduce from there); it must outlive the backward.
at::Tensor fused_linear(const at::Tensor& x, const at::Tensor& compute, const std::vector<at::Tensor>& masters,
                        const at::Tensor& dweight_out = at::Tensor(),
                        const std::function<void()>* written = nullptr);

}  // namespace stepscope::fused
