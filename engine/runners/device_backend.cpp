#include "runners/device_backend.h"

#include "core/config_error.h"
#include "compat/torch_compat.h"
#include "core/device.h"

namespace stepscope {

void check_device(const Device& device) {
  if (device.is_cpu()) return;
  const int index = device.ordinal();
  if (!compat::built_with_cuda()) {
    throw ConfigError("device '" + to_string(device) + "' needs a CUDA build; this one uses a CPU-only LibTorch (" +
                      compat::libtorch_version() + ")",
                      "device");
  }
  const int count = compat::cuda_device_count();
  if (index >= count) {
    throw ConfigError("device '" + to_string(device) + "' not found: " + std::to_string(count) + " CUDA device(s) visible",
                      "device");
  }
}

std::unique_ptr<DeviceBackend> make_device_backend(const Device& device) {
  check_device(device);
  if (device.is_cpu()) return make_cpu_backend();
#ifdef STEPSCOPE_WITH_CUDA
  return make_cuda_backend(device.ordinal());
#else
  return nullptr;
#endif
}

c10::Device torch_device(const Device& device) {
  if (device.is_cpu()) return c10::Device(c10::kCPU);
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(device.index));
}

int64_t allocated_bytes_now(const Device& device) {
#ifdef STEPSCOPE_WITH_CUDA
  if (device.is_cuda()) return cuda_allocated_bytes(device.ordinal());
#endif
  (void)device;
  return -1;
}

std::string runtime_versions() {
  std::string text = "LibTorch " + compat::libtorch_version();
#ifdef STEPSCOPE_WITH_CUDA
  return text + cuda_versions();
#else
  return text + ", CPU build";
#endif
}

std::vector<DeviceDescription> available_devices() {
  std::vector<DeviceDescription> devices;
  const auto cpu = make_cpu_backend();
  devices.push_back({"cpu", cpu->name(), -1});
#ifdef STEPSCOPE_WITH_CUDA
  for (auto& d : cuda_devices()) devices.push_back(std::move(d));
#endif
  return devices;
}

}  // namespace stepscope
