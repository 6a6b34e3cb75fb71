#pragma once

#include <ATen/core/Tensor.h>

namespace stepscope {

// Fills `tensor` in place from N(0, std^2) truncated at +-3 std, by inverse-CDF sampling
// as PyTorch's trunc_normal_ does (works on any device, no rejection loop).
void truncated_normal_(at::Tensor& tensor, double std);

// The reference's initialisation for a [d_out, d_in] projection: std = sqrt(2 / (d_in + d_out)).
double linear_init_std(int64_t d_in, int64_t d_out);

}  // namespace stepscope
