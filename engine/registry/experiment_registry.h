// Every experiment Stepscope runs, in the order stepscope-cli lists them and the app shows
// them (the planner too). A new table experiment is one engine folder and one line in
// experiment_registry.cpp. The top of the engine: it knows every experiment.
#pragma once

#include <string>
#include <vector>

#include "experiments/experiment_descriptor.h"

namespace stepscope {

const std::vector<ExperimentDescriptor>& experiment_registry();
// Null for an id no experiment has.
const ExperimentDescriptor* find_experiment(const std::string& id);

}  // namespace stepscope
