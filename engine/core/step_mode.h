// What a training step runs: the forward pass, forward and backward, or a whole step with
// the optimizer.
#pragma once

#include <string>

namespace stepscope {

enum class StepMode { forward, forward_backward, train };

std::string to_string(StepMode mode);
// Throws ConfigError("mode") naming the accepted values.
StepMode parse_step_mode(const std::string& text);

}  // namespace stepscope
