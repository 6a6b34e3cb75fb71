// What the runners need from a device: a step clock, synchronisation, memory figures.
// The CPU implementation is always built; the CUDA one only against a CUDA LibTorch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <c10/core/Device.h>

#include "runners/allocator_history.h"
#include "runners/bench_types.h"

namespace stepscope {

// Marks phase boundaries inside one step and returns their durations once the step ended.
class StepClock {
 public:
  virtual ~StepClock() = default;
  virtual void start() = 0;
  virtual void end_forward() = 0;
  virtual void end_backward() = 0;
  virtual void end_optimizer() = 0;
  // Waits for the device, then reads the marks made since start().
  virtual StepTiming finish(StepMode mode) = 0;
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual c10::Device device() const = 0;
  virtual std::string name() const = 0;
  virtual std::string timer_name() const = 0;
  virtual std::unique_ptr<StepClock> make_clock() = 0;
  virtual void synchronize() = 0;
  // Peak bytes allocated since the last reset (the caching allocator's own count on a GPU).
  virtual void reset_peak_memory() = 0;
  virtual int64_t peak_memory_bytes() = 0;
  // Bytes allocated now (blocks in use, as the allocator counts them).
  virtual int64_t allocated_memory_bytes() = 0;
  // The allocator's own history for memory_viz, or nullptr where there is none (the CPU).
  virtual std::unique_ptr<AllocatorHistory> record_allocator_history(size_t /*max_entries*/) { return nullptr; }
  // Gives cached blocks back, after a run or an out-of-memory error.
  virtual void release_cached_memory() = 0;
};

// Throws ConfigError when the device does not exist in this build or on this machine.
std::unique_ptr<DeviceBackend> make_device_backend(const std::string& device);

std::unique_ptr<DeviceBackend> make_cpu_backend();
#ifdef STEPSCOPE_WITH_CUDA
std::unique_ptr<DeviceBackend> make_cuda_backend(int index);
#endif

}  // namespace stepscope
