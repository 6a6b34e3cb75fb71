// Kernel and copy names as summaries show them, interned: a run launches the same few hundred
// kernels thousands of times, so attribution compares small ids and each name is demangled,
// shortened and classified once.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiling/activity_records.h"
#include "profiling/kernel_profile.h"

namespace stepscope::profiling {

struct KernelName {
  std::string name;  // demangled, or "[CUDA memcpy ...]" for copies
  std::string short_name;
  KernelCategory category = KernelCategory::other;
};

class KernelNameTable {
 public:
  // The id of a kernel by the (mangled) name the source reported.
  uint32_t kernel(const std::string& reported_name);
  uint32_t copy_or_set(MemoryOperation operation);
  const KernelName& operator[](uint32_t id) const { return names_[id]; }

 private:
  uint32_t intern(const std::string& reported_name, bool is_memory);

  std::vector<KernelName> names_;                      // by id
  std::unordered_map<std::string, uint32_t> ids_;     // by the name the source reported
};

}  // namespace stepscope::profiling
