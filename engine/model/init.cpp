#include "model/init.h"

#include <cmath>

#include <torch/torch.h>

namespace stepscope {

void truncated_normal_(at::Tensor& tensor, double std) {
  torch::NoGradGuard no_grad;
  const double bound = 3.0;  // in units of std
  const auto normal_cdf = [](double x) { return 0.5 * (1.0 + std::erf(x / std::sqrt(2.0))); };
  const double low = normal_cdf(-bound);
  const double high = normal_cdf(bound);
  tensor.uniform_(2.0 * low - 1.0, 2.0 * high - 1.0);
  tensor.erfinv_();
  tensor.mul_(std * std::sqrt(2.0));
  tensor.clamp_(-bound * std, bound * std);
}

double linear_init_std(int64_t d_in, int64_t d_out) { return std::sqrt(2.0 / static_cast<double>(d_in + d_out)); }

}  // namespace stepscope
