#include "distributed/sharding/optimizer_sharding.h"

#include "core/config_error.h"

namespace stepscope::distributed {

std::string to_string(OptimizerSharding sharding) {
  switch (sharding) {
    case OptimizerSharding::none: return "adamw";
    case OptimizerSharding::sharded: return "sharded";
    case OptimizerSharding::zero1: return "zero1";
  }
  return "adamw";
}

OptimizerSharding parse_optimizer_sharding(const std::string& text) {
  for (OptimizerSharding s : all_optimizer_shardings()) {
    if (text == to_string(s)) return s;
  }
  throw ConfigError("unknown optimizer '" + text + "' (adamw, sharded, zero1)", "optimizer");
}

std::string to_string(Zero1Gathers gathers) {
  return gathers == Zero1Gathers::next_forward ? "next-forward" : "step-end";
}

Zero1Gathers parse_zero1_gathers(const std::string& text) {
  for (Zero1Gathers g : {Zero1Gathers::step_end, Zero1Gathers::next_forward}) {
    if (text == to_string(g)) return g;
  }
  throw ConfigError("unknown zero1 gather timing '" + text + "' (step-end, next-forward)", "zero1-gather");
}

std::vector<OptimizerSharding> all_optimizer_shardings() {
  return {OptimizerSharding::none, OptimizerSharding::sharded, OptimizerSharding::zero1};
}

}  // namespace stepscope::distributed
