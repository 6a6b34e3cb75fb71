#include "core/run_status.h"

#include "core/config_error.h"

namespace stepscope {

std::string to_string(RunStatus status) {
  switch (status) {
    case RunStatus::ok: return "ok";
    case RunStatus::out_of_memory: return "OOM";
    case RunStatus::failed: return "failed";
    case RunStatus::cancelled: return "cancelled";
  }
  return "?";
}

RunStatus parse_run_status(const std::string& text) {
  for (RunStatus status : {RunStatus::ok, RunStatus::out_of_memory, RunStatus::failed, RunStatus::cancelled}) {
    if (to_string(status) == text) return status;
  }
  throw ConfigError("unknown status '" + text + "' (use ok, OOM, failed or cancelled)");
}

}  // namespace stepscope
