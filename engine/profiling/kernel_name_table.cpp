#include "profiling/kernel_name_table.h"

#include "profiling/kernel_category.h"
#include "profiling/kernel_names.h"

namespace stepscope::profiling {

uint32_t KernelNameTable::kernel(const std::string& reported_name) { return intern(reported_name, false); }

uint32_t KernelNameTable::copy_or_set(MemoryOperation operation) {
  return intern(memory_activity_name(operation), true);
}

uint32_t KernelNameTable::intern(const std::string& reported_name, bool is_memory) {
  const auto [it, inserted] = ids_.try_emplace(reported_name, static_cast<uint32_t>(names_.size()));
  if (inserted) {
    KernelName k;
    k.name = is_memory ? reported_name : demangle_kernel_name(reported_name);
    k.short_name = is_memory ? k.name : short_kernel_name(k.name);
    k.category = is_memory ? KernelCategory::memory : classify_kernel(k.name);
    names_.push_back(std::move(k));
  }
  return it->second;
}

}  // namespace stepscope::profiling
