// Which implementation of the training step runs: `eager`, the reference model op by op (the
// kernel table the seeds profile and teach), or `fused`, the same mathematics with fused
// kernels, fused projections and a fused optimizer (the counterpart of torch.compile).
#pragma once

#include <string>

namespace stepscope {

enum class EngineKind { eager, fused };

std::string to_string(EngineKind engine);
// Throws ConfigError("engine") naming the accepted values.
EngineKind parse_engine_kind(const std::string& text);

}  // namespace stepscope
