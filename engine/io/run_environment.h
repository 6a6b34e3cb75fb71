// Where a run's numbers were taken; every run record says what produced it.
#pragma once

#include <string>

namespace stepscope {

struct RunEnvironment {
  std::string stepscope_version;
  std::string libtorch_version;
  std::string command_line;
  std::string started_at;  // ISO 8601, UTC
};

}  // namespace stepscope
