#include "core/progress.h"

namespace stepscope {

std::string to_string(RunPhase phase) {
  switch (phase) {
    case RunPhase::preparing: return "preparing";
    case RunPhase::warmup: return "warm-up";
    case RunPhase::measuring: return "measuring";
    case RunPhase::profiling: return "profiling";
    case RunPhase::done: return "done";
  }
  return "?";
}

bool is_stepping(RunPhase phase) { return phase == RunPhase::warmup || phase == RunPhase::measuring || phase == RunPhase::profiling;
}

}  // namespace stepscope
