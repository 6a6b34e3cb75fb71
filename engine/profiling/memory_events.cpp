#include "profiling/memory_events.h"

namespace stepscope::profiling {

std::string to_string(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::parameter: return "parameter";
    case MemoryCategory::gradient: return "gradient";
    case MemoryCategory::optimizer_state: return "optimizer state";
    case MemoryCategory::activation: return "activation";
    case MemoryCategory::temporary: return "temporary";
    case MemoryCategory::input: return "input";
    case MemoryCategory::other: return "other";
  }
  return "other";
}

std::vector<MemoryCategory> all_memory_categories() {
  return {MemoryCategory::parameter,  MemoryCategory::gradient,  MemoryCategory::optimizer_state,
          MemoryCategory::activation, MemoryCategory::temporary, MemoryCategory::input,
          MemoryCategory::other};
}

}  // namespace stepscope::profiling
