// The kernels' element type of a LibTorch tensor, for the launch glue (the only code that sees
// both): fp16 and bf16 by name, anything else as fp32 (callers check the kernels take the type).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include "kernels/flash_attention_args.h"

namespace stepscope::kernels {

inline ElementType element_type_of(c10::ScalarType type) {
  switch (type) {
    case c10::kHalf: return ElementType::f16;
    case c10::kBFloat16: return ElementType::bf16;
    default: return ElementType::f32;
  }
}

inline ElementType element_type_of(const at::Tensor& t) { return element_type_of(t.scalar_type()); }

}  // namespace stepscope::kernels
