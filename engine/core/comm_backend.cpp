#include "core/comm_backend.h"

#include "core/config_error.h"

namespace stepscope {

std::string to_string(CommBackend backend) { return backend == CommBackend::nccl ? "nccl" : "gloo"; }

CommBackend parse_comm_backend(const std::string& text) {
  if (text == "gloo") return CommBackend::gloo;
  if (text == "nccl") return CommBackend::nccl;
  throw ConfigError("unknown backend '" + text + "' (use gloo for CPUs or nccl for GPUs)", "backend");
}

}  // namespace stepscope
