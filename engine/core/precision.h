// The numeric precision a run computes in: fp32, or bf16/fp16 (autocast with fp32 master
// weights in a training step; the element type of inputs and buffers elsewhere).
#pragma once

#include <string>

namespace stepscope {

enum class Precision { fp32, bf16, fp16 };

std::string to_string(Precision precision);
// Throws ConfigError("precision") naming the accepted values.
Precision parse_precision(const std::string& text);

}  // namespace stepscope
