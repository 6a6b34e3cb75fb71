// How a measured case (a row) ended. Out of memory is a result, not a failure.
#pragma once

#include <string>

namespace stepscope {

enum class RunStatus { ok, out_of_memory, failed, cancelled };

// "ok", "OOM", "failed", "cancelled": as result tables write it.
std::string to_string(RunStatus status);
// Throws ConfigError naming the accepted values.
RunStatus parse_run_status(const std::string& text);

}  // namespace stepscope
