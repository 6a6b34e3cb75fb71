#include "experiments/experiment_descriptor.h"

namespace stepscope {

std::string ExperimentDescriptor::command_text() const {
  std::string out;
  for (const auto& word : command) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace stepscope
