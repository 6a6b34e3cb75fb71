// Which CUDA runtime and driver calls start GPU work, by the names CUPTI gives them: what
// kernels and copies are attributed through. Everything else (cudaGetDevice, event records,
// ...) never has activity of its own.
#pragma once

#include <string>

namespace stepscope::profiling {

// Kernel launches (runtime, driver, graphs), copies and sets.
inline bool starts_gpu_work(const std::string& api_name) {
  for (const char* part : {"Launch", "Memcpy", "Memset"}) {
    if (api_name.find(part) != std::string::npos) return true;
  }
  return false;
}

// A graph launch: many kernels share its correlation id.
inline bool launches_graph(const std::string& api_name) { return api_name.find("Graph") != std::string::npos; }

}  // namespace stepscope::profiling
