// How the DDP experiments keep AdamW's state (issue 12), by name: on every rank, or each
// state on one rank only (the seeds' whole-parameter design, or ZeRO stage 1). No LibTorch.
#pragma once

#include <string>
#include <vector>

namespace stepscope::distributed {

enum class OptimizerSharding {
  none,     // "adamw": every rank holds and updates every parameter's state
  sharded,  // the seeds': parameters assigned whole to ranks by size; owners step and broadcast
  zero1,    // ZeRO-1: gradients reduce-scattered into even shards; shards stepped, all-gathered
};

// When ZeRO-1 all-gathers the updated parameter shares: at the end of the optimizer step,
// batch by batch under the next batch's update (as DeepSpeed's stage 1), or in the next forward
// pass, each waited for just before the first layer that uses it (as FSDP's prefetch).
enum class Zero1Gathers { step_end, next_forward };

std::string to_string(OptimizerSharding sharding);
std::string to_string(Zero1Gathers gathers);
// Throws ConfigError (field "zero1-gather"): step-end or next-forward.
Zero1Gathers parse_zero1_gathers(const std::string& text);
// Throws ConfigError (field "optimizer") listing the known names.
OptimizerSharding parse_optimizer_sharding(const std::string& text);
std::vector<OptimizerSharding> all_optimizer_shardings();

}  // namespace stepscope::distributed
