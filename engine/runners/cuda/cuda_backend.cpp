// CUDA device backend: CUDA events for phase times, the caching allocator for memory.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include "core/device.h"
#include "runners/cuda/cuda_allocator_history.h"
#include "runners/device_backend.h"

namespace stepscope {

namespace {

int64_t elapsed_ns(const at::cuda::CUDAEvent& from, const at::cuda::CUDAEvent& to) {
  return static_cast<int64_t>(static_cast<double>(from.elapsed_time(to)) * 1e6);
}

// Events are recorded on the current stream, so the marks cost no synchronisation;
// finish() waits for the last one.
class CudaEventStepClock final : public StepClock {
 public:
  CudaEventStepClock() {
    for (auto& event : events_) event = std::make_unique<at::cuda::CUDAEvent>(cudaEventDefault);
  }
  void start() override { record(0); }
  void end_forward() override { record(1); }
  void end_backward() override { record(2); }
  void end_optimizer() override { record(3); }
  StepTiming finish(StepMode mode) override {
    const int last = runs_optimizer(mode) ? 3 : runs_backward(mode) ? 2 : 1;
    events_[last]->synchronize();
    StepTiming t;
    t.forward_ns = elapsed_ns(*events_[0], *events_[1]);
    if (runs_backward(mode)) t.backward_ns = elapsed_ns(*events_[1], *events_[2]);
    if (runs_optimizer(mode)) t.optimizer_ns = elapsed_ns(*events_[2], *events_[3]);
    t.total_ns = elapsed_ns(*events_[0], *events_[last]);
    return t;
  }

 private:
  void record(int i) { events_[i]->record(at::cuda::getCurrentCUDAStream()); }
  std::unique_ptr<at::cuda::CUDAEvent> events_[4];
};

class CudaBackend final : public DeviceBackend {
 public:
  explicit CudaBackend(int index) : index_(static_cast<c10::DeviceIndex>(index)), guard_(index_) {
    // The CUDA context and caching allocator start lazily, with the first tensor; start them
    // now, so the allocator's history can be recorded before the model exists.
    at::empty({1}, at::TensorOptions().device(device()));
  }
  c10::Device device() const override { return c10::Device(c10::kCUDA, index_); }
  std::string name() const override { return at::cuda::getDeviceProperties(index_)->name; }
  std::string timer_name() const override { return "cuda-events"; }
  std::unique_ptr<StepClock> make_clock() override { return std::make_unique<CudaEventStepClock>(); }
  void synchronize() override { C10_CUDA_CHECK(cudaDeviceSynchronize()); }
  void reset_peak_memory() override { c10::cuda::CUDACachingAllocator::resetPeakStats(index_); }
  int64_t peak_memory_bytes() override {
    // Index 0 of every statistic array is the aggregate over pool types.
    return c10::cuda::CUDACachingAllocator::getDeviceStats(index_).allocated_bytes[0].peak;
  }
  int64_t total_memory_bytes() override {
    return static_cast<int64_t>(at::cuda::getDeviceProperties(index_)->totalGlobalMem);
  }
  int64_t available_memory_bytes() override {
    c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(index_));
    size_t free = 0, total = 0;
    C10_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    const auto& stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index_);
    return static_cast<int64_t>(free) + stats.reserved_bytes[0].current - stats.allocated_bytes[0].current;
  }
  int64_t allocated_memory_bytes() override {
    return c10::cuda::CUDACachingAllocator::getDeviceStats(index_).allocated_bytes[0].current;
  }
  std::unique_ptr<AllocatorHistory> record_allocator_history(size_t max_entries) override {
    return record_cuda_allocator_history(max_entries);
  }
  void release_cached_memory() override {
    synchronize();
    c10::cuda::CUDACachingAllocator::emptyCache();
  }

 private:
  c10::DeviceIndex index_;
  c10::cuda::CUDAGuard guard_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_cuda_backend(int index) { return std::make_unique<CudaBackend>(index); }

int64_t cuda_allocated_bytes(int ordinal) {
  const auto index = static_cast<c10::DeviceIndex>(ordinal);
  try {
    return c10::cuda::CUDACachingAllocator::getDeviceStats(index).allocated_bytes[0].current;
  } catch (const c10::Error&) {
    return 0;  // the allocator starts with the first tensor: nothing allocated yet
  }
}

std::string cuda_versions() {
  int runtime = 0, driver = 0;
  C10_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  C10_CUDA_CHECK(cudaDriverGetVersion(&driver));
  const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  return ", CUDA runtime " + version(runtime) + ", driver supports CUDA " + version(driver);
}

std::vector<DeviceDescription> cuda_devices() {
  std::vector<DeviceDescription> devices;
  const int count = static_cast<int>(at::cuda::device_count());
  for (int i = 0; i < count; ++i) {
    const auto* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(i));
    devices.push_back({to_string(Device{DeviceKind::cuda, i}), p->name, static_cast<int64_t>(p->totalGlobalMem)});
  }
  return devices;
}

}  // namespace stepscope
