// A projection whose weight is computed with in one type and learnt in another: y = x C^T with
// C the compute copy (bf16 under mixed precision, refreshed by the optimizer, so the forward
// casts nothing), while dW goes to the fp32 master parameters. Several masters that are row
// blocks of one matrix (q | k | v, w1 | w3) make one matmul, and their gradients are row blocks
// of one dW.
#pragma once

#include <vector>

#include <ATen/core/Tensor.h>

namespace stepscope::fused {

// x: [..., in] in compute's dtype; compute: [out, in]; masters: fp32 leaves whose rows, in
// order, make up `out` (their values are compute's). Differentiable in x and the masters.
at::Tensor fused_linear(const at::Tensor& x, const at::Tensor& compute, const std::vector<at::Tensor>& masters);

}  // namespace stepscope::fused
