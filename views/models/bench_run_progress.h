// The step benchmark's run in progress as the result tabs follow it: its configurations and how
// many have finished, so that a tab whose profile is still to come can say what is coming and
// when, rather than how to ask for a profile the run already asked for. Empty outside a run.
#pragma once

#include <vector>

#include "runners/bench_types.h"

namespace stepscope::views {

class BenchRunProgress {
 public:
  void begin(std::vector<BenchConfig> configs) {
    configs_ = std::move(configs);
    finished_ = 0;
  }
  void config_finished() { ++finished_; }
  void end() { configs_.clear(); }
  // The configuration running now; nullptr outside a run.
  const BenchConfig* running() const { return finished_ < configs_.size() ? &configs_[finished_] : nullptr; }

 private:
  std::vector<BenchConfig> configs_;
  size_t finished_ = 0;
};

}  // namespace stepscope::views
