#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <ATen/Parallel.h>

#include "profiling/allocation_meter.h"
#include "runners/cpu_threads.h"
#include "runners/device_backend.h"

namespace stepscope {

namespace {

// The kernel's MemAvailable: what can be allocated without swapping; -1 where /proc has none.
int64_t memory_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return -1;
}

class SteadyStepClock final : public StepClock {
 public:
  void start() override { marks_[0] = now(); }
  void end_forward() override { marks_[1] = now(); }
  void end_backward() override { marks_[2] = now(); }
  void end_optimizer() override { marks_[3] = now(); }
  StepTiming finish(StepMode mode) override {
    StepTiming t;
    t.forward_ns = marks_[1] - marks_[0];
    int64_t last = marks_[1];
    if (runs_backward(mode)) {
      t.backward_ns = marks_[2] - marks_[1];
      last = marks_[2];
    }
    if (runs_optimizer(mode)) {
      t.optimizer_ns = marks_[3] - marks_[2];
      last = marks_[3];
    }
    t.total_ns = last - marks_[0];
    return t;
  }

 private:
  static int64_t now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  int64_t marks_[4] = {0, 0, 0, 0};
};

// CPU work is synchronous, so a steady clock around each phase measures it. The CPU
// allocator keeps no statistics, so an allocation meter counts from the backend's creation:
// create it on the thread that runs the work, before the model.
class CpuBackend final : public DeviceBackend {
 public:
  c10::Device device() const override { return c10::Device(c10::kCPU); }
  std::string name() const override {
    const int threads = cpu_threads();
    const int cores = cpu_core_count();
    return "CPU (" + std::to_string(threads) + (threads == 1 ? " thread of " : " threads of ") +
           std::to_string(cores) + (cores == 1 ? " core)" : " cores)");
  }
  std::string timer_name() const override { return "steady-clock"; }
  std::unique_ptr<StepClock> make_clock() override { return std::make_unique<SteadyStepClock>(); }
  void synchronize() override {}
  void reset_peak_memory() override { meter_.reset_peak(); }
  int64_t peak_memory_bytes() override { return meter_.peak_bytes(); }
  int64_t allocated_memory_bytes() override { return meter_.current_bytes(); }
  int64_t available_memory_bytes() override { return memory_available_bytes(); }
  void release_cached_memory() override {}

 private:
  AllocationMeter meter_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace stepscope
