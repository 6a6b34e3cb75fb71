// Small helpers shared by the engine tests.
#pragma once

#include <string>

#include <torch/torch.h>

namespace stepscope::testing {

inline std::string data_path(const std::string& relative) { return std::string(STEPSCOPE_TEST_DATA_DIR) + "/" + relative; }

// ||a - b|| / ||b|| in float64.
inline double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  const auto a64 = a.to(torch::kFloat64).cpu();
  const auto b64 = b.to(torch::kFloat64).cpu();
  return (a64 - b64).norm().item<double>() / b64.norm().item<double>();
}

inline double max_abs_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64).cpu() - b.to(torch::kFloat64).cpu()).abs().max().item<double>();
}

}  // namespace stepscope::testing
