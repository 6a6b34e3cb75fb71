// The library collectives go through: Gloo (CPU tensors, any machine) or NCCL (GPUs).
#pragma once

#include <string>

namespace stepscope {

enum class CommBackend { gloo, nccl };

std::string to_string(CommBackend backend);
// Throws ConfigError("backend") naming the accepted values.
CommBackend parse_comm_backend(const std::string& text);

}  // namespace stepscope
