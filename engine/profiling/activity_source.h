// Where GPU activity records come from: CUPTI on a CUDA build, a synthetic source in tests.
// Everything above this interface (attribution, summaries, exports) runs on the CPU.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "profiling/activity_records.h"

namespace stepscope::profiling {

class ActivitySource {
 public:
  virtual ~ActivitySource() = default;
  virtual std::string name() const = 0;
  // Begins collecting; false, with the reason in `why_not`, where it cannot (no GPU,
  // insufficient privileges for the profiling interface, another profiler attached).
  virtual bool start(std::string& why_not) = 0;
  // Ends collecting after handing over everything still buffered.
  virtual void stop() = 0;
  // Hands over the buffers whose records are all complete, so take() sees them. Forcing
  // out a buffer that is still filling would lose the timestamps of kernels in flight;
  // stop() does that, once, when the work is done.
  virtual void flush_completed() = 0;
  // The records completed since the last call. Called from one thread at a time.
  virtual ActivityBatch take() = 0;
  // Now, on the clock of the records.
  virtual int64_t now_ns() const = 0;
  // Tags the CUDA calls the calling thread makes from now until the matching pop with `id`
  // (CUPTI's external correlation): the batches' correlations then tie those calls, and so
  // their kernels, to it. Pushes nest per thread; the innermost id tags. Called on any thread
  // the operator profiler sees, hot: a source that cannot tag does nothing.
  virtual void push_correlation(uint64_t /*id*/) {}
  virtual void pop_correlation() {}
};

// CUPTI's activity API in CUDA builds; nullptr in CPU builds.
std::unique_ptr<ActivitySource> make_cupti_activity_source();

}  // namespace stepscope::profiling
