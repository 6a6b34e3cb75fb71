#include "core/precision.h"

#include "core/config_error.h"

namespace stepscope {

std::string to_string(Precision precision) {
  switch (precision) {
    case Precision::fp32: return "fp32";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
  }
  return "?";
}

Precision parse_precision(const std::string& text) {
  if (text == "fp32") return Precision::fp32;
  if (text == "bf16") return Precision::bf16;
  if (text == "fp16") return Precision::fp16;
  throw ConfigError("unknown precision '" + text + "' (use fp32, bf16 or fp16)", "precision");
}

}  // namespace stepscope
