// The optimizer of data-parallel training with its state kept on every rank or sharded (issue
// 12): AdamW's update rule over parameter groups with their own hyper-parameters, where a
// group can be added during training (unfreezing layers: parameters in no group are left as
// they are). Every rank calls every method in the same order (they communicate).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/ddp/gradient_sync.h"
#include "distributed/sharding/optimizer_sharding.h"
#include "model/adamw.h"

namespace stepscope::distributed {

struct ParameterGroup {
  std::vector<at::Tensor> parameters;
  AdamWOptions options;
};

class DistributedOptimizer {
 public:
  virtual ~DistributedOptimizer() = default;
  virtual OptimizerSharding sharding() const = 0;
  // One update of every grouped parameter from the step's mean gradients: the parameters'
  // own (none, sharded) or this rank's shards of `sync` (zero1, whose sync reduce-scatters).
  // Afterwards every rank holds the same parameters; with zero1's gathers deferred to the next
  // forward pass (below), once those have run.
  virtual void step(const GradientSync& sync) = 0;
  // Throws std::invalid_argument for a parameter already in a group, or (zero1) one the
  // gradient sync does not reduce.
  virtual void add_param_group(ParameterGroup group) = 0;
  // zero1: from now on step() leaves the all-gathers of the updated shares to the next forward
  // pass, where they run under its compute. begin_forward() starts them in forward order,
  // before_stage(s) waits for those holding parameters of stage s (and stages before) and copies
  // them into the parameters, finish_pending() completes all. `stage_of_parameter` is aligned
  // with all_parameters (TransformerLM::parameter_stages). The others have nothing to defer.
  virtual void defer_gathers_to_forward(std::vector<int> /*stage_of_parameter*/) {}
  virtual void begin_forward() {}
  virtual void before_stage(int /*stage*/) {}
  virtual void finish_pending() {}
  // Bytes of optimizer state this rank holds now (AdamW's moments).
  virtual int64_t state_bytes() const = 0;
  // The tensors of that state (for the memory profiler's labels).
  virtual std::vector<at::Tensor> state_tensors() const = 0;
};

// `sync`: the gradient sync whose mean gradients it steps from (zero1 maps its shards back to
// the sync's parameters, needs it to reduce-scatter, and moves those parameters into buffers
// laid out as the sync's units: std::invalid_argument otherwise); `groups`: the parameters
// the optimizer updates.
std::unique_ptr<DistributedOptimizer> make_distributed_optimizer(OptimizerSharding sharding, const GradientSync& sync,
                                                                 std::vector<ParameterGroup> groups,
                                                                 Communicator& comm);

// The fused engine's optimizer without sharding (OptimizerSharding::none): `parameters`, every
// one a view of `flat` (FusedTransformerLM::flat_parameters), updated by one FusedAdamW pass that
// also writes `compute_copy` (undefined: the matmuls read the parameters themselves). One group
// only: add_param_group throws std::invalid_argument. The sharded optimizers run the fused
// engine's parameters as any others' (then its compute copy is refreshed after their step).
std::unique_ptr<DistributedOptimizer> make_fused_distributed_optimizer(at::Tensor flat, std::vector<at::Tensor> parameters,
                                                                       at::Tensor compute_copy, AdamWOptions options = {});

}  // namespace stepscope::distributed
