// How an experiment reports progress and learns that the user cancelled. The app turns the
// callbacks into queued Qt signals; the CLI prints them.
#pragma once

#include <atomic>
#include <string>

namespace stepscope {

namespace profiling {
struct KernelProfile;
}

// Where a case is; the harness moves every case through these in order.
// `profiling`: the profilers' own steps after the measured ones (a GPU's kernel and operator
// tracing slows the steps it watches, so they are not the timed ones; see observer.h).
enum class RunPhase { preparing, warmup, measuring, profiling, done };
// "preparing", "warm-up", "measuring", "profiling", "done": what people read.
std::string to_string(RunPhase phase);
bool is_stepping(RunPhase phase);

struct Progress {
  int config_index = 0;  // which case of the run (0-based): units done
  int config_count = 1;  // cases in the run: units in all
  std::string config_label;
  RunPhase phase = RunPhase::preparing;
  int step = 0;  // steps finished in this phase
  int steps_in_phase = 0;
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void on_progress(const Progress& progress) = 0;
  // A fresh kernel summary while a profiled case goes (a few times a second), called on the
  // profiler's thread: hand it over, do not block.
  virtual void on_kernel_profile(const profiling::KernelProfile& /*profile*/) {}
};

// Set from any thread; the harness checks it between steps.
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
