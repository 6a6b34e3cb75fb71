// Where a run's numbers were taken; every run record says what produced it.
#pragma once

#include <string>

namespace stepscope {

struct RunEnvironment {
  std::string stepscope_version;
  std::string libtorch_version;
  std::string command_line;
  std::string started_at;  // ISO 8601, UTC
  // Other Stepscope runs that ran during this one (experiments/run_registry.h describe()):
  // its timings may be slower than alone. Empty when none did.
  std::string concurrent_runs = {};
};

}  // namespace stepscope
