#include "runners/device_backend.h"

#include "compat/torch_compat.h"
#include "core/device.h"

namespace stepscope {

void check_device(const std::string& device) {
  const int index = device_ordinal(device);
  if (index < 0) return;
  if (!compat::built_with_cuda()) {
    throw ConfigError("device '" + device + "' needs a CUDA build; this one uses a CPU-only LibTorch (" +
                      compat::libtorch_version() + ")",
                      "device");
  }
  const int count = compat::cuda_device_count();
  if (index >= count) {
    throw ConfigError("device '" + device + "' not found: " + std::to_string(count) + " CUDA device(s) visible",
                      "device");
  }
}

std::unique_ptr<DeviceBackend> make_device_backend(const std::string& device) {
  check_device(device);
  const int index = device_ordinal(device);
  if (index < 0) return make_cpu_backend();
#ifdef STEPSCOPE_WITH_CUDA
  return make_cuda_backend(index);
#else
  return nullptr;
#endif
}

int64_t allocated_bytes_now(const std::string& device) {
#ifdef STEPSCOPE_WITH_CUDA
  if (const Device d = parse_device(device); d.is_cuda()) return cuda_allocated_bytes(d.ordinal());
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
