#include "core/step_mode.h"

#include "core/config_error.h"

namespace stepscope {

std::string to_string(StepMode mode) {
  switch (mode) {
    case StepMode::forward: return "forward";
    case StepMode::forward_backward: return "forward-backward";
    case StepMode::train: return "train";
  }
  return "?";
}

StepMode parse_step_mode(const std::string& text) {
  if (text == "forward") return StepMode::forward;
  if (text == "forward-backward") return StepMode::forward_backward;
  if (text == "train") return StepMode::train;
  throw ConfigError("unknown mode '" + text + "' (use forward, forward-backward or train)", "mode");
}

}  // namespace stepscope
