#include "core/device.h"

#include "core/config_error.h"

namespace stepscope {

Device parse_device(const std::string& text) {
  if (text == "cpu") return {DeviceKind::cpu, -1};
  if (text == "cuda") return {DeviceKind::cuda, -1};
  const std::string prefix = "cuda:";
  const std::string digits = text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : "";
  // At most three digits: no machine has a thousand GPUs, and the number cannot overflow.
  if (digits.empty() || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos) {
    throw ConfigError("unknown device '" + text + "' (use cpu, cuda or cuda:N)", "device");
  }
  return {DeviceKind::cuda, std::stoi(digits)};
}

std::string to_string(const Device& device) {
  if (device.is_cpu()) return "cpu";
  return device.index < 0 ? "cuda" : "cuda:" + std::to_string(device.index);
}

}  // namespace stepscope
