#include "io/dtype_overflow.h"

#include <cstdio>

#include <ATen/ATen.h>

namespace stepscope {

std::optional<double> first_overflow(const at::Tensor& values, at::ScalarType target) {
  if (!values.defined() || values.numel() == 0) return std::nullopt;
  if (!at::isFloatingType(values.scalar_type()) || !at::isFloatingType(target)) return std::nullopt;
  // The conversion itself says what overflows, rounding at the type's edge included.
  const at::Tensor source = values.contiguous().reshape({-1});
  const at::Tensor overflowed = at::isinf(source.to(target)).logical_and(at::isfinite(source));
  const at::Tensor at_fault = source.masked_select(overflowed);
  if (at_fault.numel() == 0) return std::nullopt;
  return at_fault[0].item<double>();
}

std::string overflow_text(double value, at::ScalarType target) {
  double largest = 1.7976931348623157e308;
  const char* name = "float64";
  switch (target) {
    case at::kHalf: largest = 65504.0, name = "float16"; break;
    case at::kBFloat16: largest = 3.3895313892515355e38, name = "bfloat16"; break;
    case at::kFloat: largest = 3.4028234663852886e38, name = "float32"; break;
    default: break;
  }
  char text[160];
  std::snprintf(text, sizeof text, "%.10g, beyond %s's range (largest finite %.6g)", value, name, largest);
  return text;
}

}  // namespace stepscope
