// What the runners need from a device: a step clock, synchronisation, memory figures.
// The CPU implementation is always built; the CUDA one only against a CUDA LibTorch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "core/device.h"
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
  // The device's memory; -1 where unknown (the CPU).
  virtual int64_t total_memory_bytes() { return -1; }
  // What a new run could still allocate: free device memory and the cache's unused blocks on a
  // GPU, MemAvailable on the CPU; -1 where unknown.
  virtual int64_t available_memory_bytes() { return -1; }
  // The allocator's own history for memory_viz, or nullptr where there is none (the CPU).
  virtual std::unique_ptr<AllocatorHistory> record_allocator_history(size_t /*max_entries*/) { return nullptr; }
  // Gives cached blocks back, after a run or an out-of-memory error.
  virtual void release_cached_memory() = 0;
};

// A device a run can use, as pickers and status bars show it.
struct DeviceDescription {
  std::string id;  // "cpu", "cuda:0", ...
  std::string name;
  int64_t memory_bytes = -1;
};
// The CPU, then every CUDA device this build can see.
std::vector<DeviceDescription> available_devices();
// What LibTorch has allocated on `device` now (the caching allocator's count); -1 for the CPU,
// whose allocator keeps no count.
int64_t allocated_bytes_now(const Device& device);
// "LibTorch 2.11.0, CUDA runtime 13.0, driver supports CUDA 13.0" (or "LibTorch 1.13.1, CPU build").
std::string runtime_versions();

// Throws ConfigError (field "device") when the device does not exist in this build or on this
// machine: call it before a tensor moves to a device the user named, whose own error is no message.
void check_device(const Device& device);
// Throws as check_device does.
std::unique_ptr<DeviceBackend> make_device_backend(const Device& device);
// The LibTorch device for `device`: the one place a Device becomes a c10::Device ("cuda" stays
// the current GPU, without an index).
c10::Device torch_device(const Device& device);

std::unique_ptr<DeviceBackend> make_cpu_backend();
#ifdef STEPSCOPE_WITH_CUDA
std::unique_ptr<DeviceBackend> make_cuda_backend(int index);
// Names and memory from the device properties, without creating a context on each.
std::vector<DeviceDescription> cuda_devices();
int64_t cuda_allocated_bytes(int ordinal);
std::string cuda_versions();  // ", CUDA runtime 13.0, driver supports CUDA 13.0" 
#endif

}  // namespace stepscope
