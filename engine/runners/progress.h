// How a runner reports progress and learns that the user cancelled. The app turns the
// callbacks into queued Qt signals; the CLI prints them.
#pragma once

#include <atomic>
#include <string>

#include "profiling/kernel_profile.h"

namespace stepscope {

struct Progress {
  int config_index = 0;  // which configuration of a sweep (0-based)
  int config_count = 1;
  std::string config_label;
  std::string phase;    // "building model", "warm-up", "measuring", "done"
  int step = 0;         // steps finished in this phase
  int steps_in_phase = 0;
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void on_progress(const Progress& progress) = 0;
  // A fresh kernel summary while a profiled run goes (a few times a second), called on the
  // profiler's thread: hand it over, do not block.
  virtual void on_kernel_profile(const profiling::KernelProfile& /*profile*/) {}
};

// Set from any thread; runners check it between steps.
class CancelFlag {
 public:
  void cancel() { cancelled_.store(true); }
  // For the next run of whoever owns the flag.
  void reset() { cancelled_.store(false); }
  bool is_cancelled() const { return cancelled_.load(); }

 private:
  std::atomic<bool> cancelled_{false};
};

}  // namespace stepscope
