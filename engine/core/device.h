// Where a run computes: the CPU or a CUDA GPU. Configurations carry this parsed value; the
// text people type ("cpu", "cuda", "cuda:1") is read and written only at the edges (inputs,
// run records, CSV, argv), through parse_device and to_string, which round-trip it exactly.
#pragma once

#include <string>

namespace stepscope {

enum class DeviceKind { cpu, cuda };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = -1;  // N of "cuda:N"; -1 for the CPU and for "cuda" (the current GPU)

  bool is_cpu() const { return kind == DeviceKind::cpu; }
  bool is_cuda() const { return kind == DeviceKind::cuda; }
  // As allocation events and timelines number devices: -1 for the CPU, N for "cuda:N", 0 for "cuda".
  int ordinal() const { return is_cpu() ? -1 : (index < 0 ? 0 : index); }
  bool operator==(const Device& other) const { return kind == other.kind && index == other.index; }
  bool operator!=(const Device& other) const { return !(*this == other); }
};

// "cpu", "cuda" or "cuda:N" (at most three digits); throws ConfigError("device") for anything else.
Device parse_device(const std::string& text);
// The text parse_device reads back: to_string(parse_device(t)) == t for every valid t.
std::string to_string(const Device& device);

}  // namespace stepscope
