// The element type a precision's tensors have (inputs of the attention sweep, buffers of the
// collective benchmark).
#pragma once

#include <c10/core/ScalarType.h>

#include "runners/bench_types.h"

namespace stepscope {

inline c10::ScalarType scalar_type_of(Precision precision) {
  switch (precision) {
    case Precision::bf16: return c10::kBFloat16;
    case Precision::fp16: return c10::kHalf;
    case Precision::fp32: return c10::kFloat;
  }
  return c10::kFloat;
}

}  // namespace stepscope
