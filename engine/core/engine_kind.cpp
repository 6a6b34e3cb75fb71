#include "core/engine_kind.h"

#include "core/config_error.h"

namespace stepscope {

std::string to_string(EngineKind engine) {
  switch (engine) {
    case EngineKind::eager: return "eager";
    case EngineKind::fused: return "fused";
  }
  return "?";
}

EngineKind parse_engine_kind(const std::string& text) {
  if (text == "eager") return EngineKind::eager;
  if (text == "fused") return EngineKind::fused;
  throw ConfigError("unknown engine '" + text + "' (use eager or fused)", "engine");
}

}  // namespace stepscope
