// The DistributedOptimizer implementations, each in its own file, and what they share.
#pragma once

#include <memory>
#include <unordered_set>
#include <vector>

#include "distributed/sharding/distributed_optimizer.h"

namespace stepscope::distributed::detail {

std::unique_ptr<DistributedOptimizer> make_replicated_optimizer();
std::unique_ptr<DistributedOptimizer> make_parameter_sharded_optimizer(Communicator& comm);
std::unique_ptr<DistributedOptimizer> make_zero1_optimizer(const GradientSync& sync, Communicator& comm);
std::unique_ptr<DistributedOptimizer> make_fused_replicated_optimizer(at::Tensor flat, std::vector<at::Tensor> parameters,
                                                                      at::Tensor compute_copy, AdamWOptions options);

// Throws std::invalid_argument for an undefined parameter or one already in `known` (which
// gains the new ones).
void check_new_parameters(const std::vector<at::Tensor>& parameters, std::unordered_set<const void*>& known);
// The bytes of the moments `optimizer` allocated so far, and those moments.
int64_t moment_bytes(const AdamW& optimizer);
void append_moments(const AdamW& optimizer, std::vector<at::Tensor>& out);

}  // namespace stepscope::distributed::detail
