#include "registry/experiment_registry.h"

#include "experiments/attention/attention_descriptor.h"
#include "experiments/bench/bench_descriptor.h"
#include "experiments/collectives/collective_descriptor.h"
#include "experiments/ddp/ddp_descriptor.h"
#include "experiments/precision/precision_descriptors.h"
#include "planner/plan_descriptor.h"

namespace stepscope {

const std::vector<ExperimentDescriptor>& experiment_registry() {
  static const std::vector<ExperimentDescriptor> registry{
      bench_descriptor(),
      attention_descriptor(),
      precision::accumulate_descriptor(),
      precision::autocast_descriptor(),
      collective_descriptor(),
      ddp_descriptor(),
      planner::plan_descriptor(),
  };
  return registry;
}

const ExperimentDescriptor* find_experiment(const std::string& id) {
  for (const auto& descriptor : experiment_registry()) {
    if (descriptor.id == id) return &descriptor;
  }
  return nullptr;
}

}  // namespace stepscope
