// How the DDP experiments keep AdamW's state (issue 12), by name: on every rank, or each
// state on one rank only (the seeds' whole-parameter design, or ZeRO stage 1). No LibTorch.
#pragma once

#include <string>
#include <vector>

namespace stepscope::dist {

enum class OptimizerSharding {
  none,     // "adamw": every rank holds and updates every parameter's state
  sharded,  // the seeds': parameters assigned whole to ranks by size; owners step and broadcast
  zero1,    // ZeRO-1: gradients reduce-scattered into even shards; shards stepped, all-gathered
};

std::string to_string(OptimizerSharding sharding);
// Throws ConfigError (field "optimizer") listing the known names.
OptimizerSharding parse_optimizer_sharding(const std::string& text);
std::vector<OptimizerSharding> all_optimizer_shardings();

}  // namespace stepscope::dist
