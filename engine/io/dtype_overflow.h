// Values a narrower floating type cannot hold: a float64 input of 1e300 becomes inf in float32,
// and every result computed from it NaN or inf, with nothing said. Readers of user files check
// before they narrow, and refuse naming the value.
#pragma once

#include <optional>
#include <string>

#include <ATen/core/Tensor.h>

namespace stepscope {

// The first finite value of `values` (in C order) that becomes infinite as `target`; nullopt
// when every value fits, or when either type is not floating point.
std::optional<double> first_overflow(const at::Tensor& values, at::ScalarType target);

// "1e+300, beyond float32's range (largest finite 3.40282e+38)", for messages.
std::string overflow_text(double value, at::ScalarType target);

}  // namespace stepscope
