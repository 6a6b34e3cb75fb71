#include "profiling/allocation_recorder.h"

#include <chrono>

#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "compat/torch_compat.h"
#include "profiling/range_recorder.h"

namespace stepscope::profiling {

int64_t steady_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class AllocationLogSink final : public c10::MemoryReportingInfoBase {
 public:
  // `previous` is the hook installed before (it outlives this one: guards nest).
  AllocationLogSink(int64_t event_limit, c10::MemoryReportingInfoBase* previous) : previous_(previous) {
    log_.event_limit = event_limit;
  }

  void reportMemoryUsage(void* ptr, int64_t alloc_size, compat::ReportedBytes total_allocated,
                         compat::ReportedBytes total_reserved, c10::Device device) override {
    if (previous_) previous_->reportMemoryUsage(ptr, alloc_size, total_allocated, total_reserved, device);
    AllocationEvent event;
    event.time_ns = steady_clock_ns();
    event.address = reinterpret_cast<uint64_t>(ptr);
    event.bytes = alloc_size;
    event.reserved_bytes = device.is_cuda() ? static_cast<int64_t>(total_reserved) : -1;
    event.device = device.is_cuda() ? device.index() : -1;
    // The caching allocator serves a block from the pool of the current stream.
    if (device.is_cuda()) event.stream = c10::impl::getDeviceGuardImpl(device.type())->getStream(device).id();
    event.phase = current_range_name();
    std::lock_guard<std::mutex> lock(mutex_);
    if (static_cast<int64_t>(log_.events.size()) >= log_.event_limit) {
      ++log_.dropped_events;
      return;
    }
    event.step = step_;
    event.warmup = warmup_;
    log_.events.push_back(std::move(event));
  }
  bool memoryProfilingEnabled() const override { return true; }

  void set_step(int step, bool warmup) {
    std::lock_guard<std::mutex> lock(mutex_);
    step_ = step;
    warmup_ = warmup;
  }
  void mark_phase(const char* phase) {
    std::lock_guard<std::mutex> lock(mutex_);
    log_.phases.push_back({steady_clock_ns(), phase, step_, warmup_});
  }
  void label(const void* address, MemoryCategory category, int64_t tensor_bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    log_.labels.push_back({steady_clock_ns(), reinterpret_cast<uint64_t>(address), category, tensor_bytes});
  }
  void note_baseline(int device, int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    log_.baselines.push_back({steady_clock_ns(), device, bytes});
  }
  AllocationLog log() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return log_;
  }

 private:
  c10::MemoryReportingInfoBase* previous_;
  mutable std::mutex mutex_;
  AllocationLog log_;
  int step_ = -1;
  bool warmup_ = false;
};

AllocationRecorder::AllocationRecorder(int64_t event_limit)
    : sink_(std::make_shared<AllocationLogSink>(
          event_limit, dynamic_cast<c10::MemoryReportingInfoBase*>(
                           c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE)))),
      guard_(c10::DebugInfoKind::PROFILER_STATE, sink_) {}

AllocationRecorder::~AllocationRecorder() = default;

void AllocationRecorder::set_step(int step, bool warmup) { sink_->set_step(step, warmup); }
void AllocationRecorder::mark_phase(const char* phase) { sink_->mark_phase(phase); }
void AllocationRecorder::label(const void* address, MemoryCategory category, int64_t tensor_bytes) {
  sink_->label(address, category, tensor_bytes);
}
void AllocationRecorder::note_baseline(int device, int64_t bytes) { sink_->note_baseline(device, bytes); }
AllocationLog AllocationRecorder::log() const { return sink_->log(); }

}  // namespace stepscope::profiling
