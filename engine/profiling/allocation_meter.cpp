#include "profiling/allocation_meter.h"

#include <atomic>

#include <c10/core/Allocator.h>

#include "compat/torch_compat.h"

namespace stepscope {

class AllocationTally final : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void* /*ptr*/, int64_t alloc_size, compat::ReportedBytes /*total_allocated*/,
                         compat::ReportedBytes /*total_reserved*/, c10::Device /*device*/) override {
    const int64_t now = current_.fetch_add(alloc_size) + alloc_size;
    int64_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
  }
  bool memoryProfilingEnabled() const override { return true; }

  int64_t current() const { return current_.load(); }
  int64_t peak() const { return peak_.load(); }
  void reset_peak() { peak_.store(current_.load()); }

 private:
  std::atomic<int64_t> current_{0};
  std::atomic<int64_t> peak_{0};
};

AllocationMeter::AllocationMeter()
    : tally_(std::make_shared<AllocationTally>()), guard_(c10::DebugInfoKind::PROFILER_STATE, tally_) {}

AllocationMeter::~AllocationMeter() = default;

int64_t AllocationMeter::current_bytes() const { return tally_->current(); }
int64_t AllocationMeter::peak_bytes() const { return tally_->peak(); }
void AllocationMeter::reset_peak() { tally_->reset_peak(); }

}  // namespace stepscope
