#include "attention/attention_types.h"

#include "core/config_error.h"
#include "core/size_limits.h"
#include "core/device.h"

namespace stepscope {

std::string to_string(AttentionImpl impl) {
  switch (impl) {
    case AttentionImpl::naive: return "naive";
    case AttentionImpl::sdpa: return "sdpa";
    case AttentionImpl::flash: return "flash";
  }
  return "naive";
}

AttentionImpl parse_attention_impl(const std::string& text) {
  for (AttentionImpl impl : {AttentionImpl::naive, AttentionImpl::sdpa, AttentionImpl::flash}) {
    if (text == to_string(impl)) return impl;
  }
  throw ConfigError("unknown attention implementation '" + text + "' (use naive, sdpa or flash)", "impl");
}

void validate(const AttentionConfig& c) {
  const auto require = [](bool ok, const std::string& message, const char* field) {
    if (!ok) throw ConfigError(message, field);
  };
  require(c.batch >= 1 && c.batch <= kMaxDimension, "batch must be between 1 and " + std::to_string(kMaxDimension),
          "batch");
  require(c.heads >= 1 && c.heads <= kMaxDimension, "heads must be between 1 and " + std::to_string(kMaxDimension),
          "heads");
  require(c.head_dim >= 1 && c.head_dim <= 65536, "head dim (d) must be between 1 and 65536", "d");
  require(c.seq >= 1 && c.seq <= kMaxDimension, "sequence length must be between 1 and " + std::to_string(kMaxDimension),
          "seq");
  require(c.warmup_steps >= 0, "warm-up steps cannot be negative", "warmup");
  require(c.measured_steps >= 1, "measured steps must be at least 1", "steps");
  // One tensor of batch x heads x seq x d elements must be addressable.
  const double elements = static_cast<double>(c.batch) * static_cast<double>(c.heads) * static_cast<double>(c.seq) *
                          static_cast<double>(c.head_dim);
  require(elements < 9.0e18, "batch x heads x seq x d is too large to address", "seq");
}

std::string describe(const AttentionConfig& c) {
  std::string text = to_string(c.impl) + " b " + std::to_string(c.batch) + " h " + std::to_string(c.heads) + " d " +
                     std::to_string(c.head_dim) + " seq " + std::to_string(c.seq) + " " + to_string(c.precision);
  if (c.causal) text += " causal";
  return text;
}

}  // namespace stepscope
