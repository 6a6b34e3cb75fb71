// What a GPU kernel does, from its name: the categories of KernelProfile's roll-up.
#pragma once

#include <string>

#include "profiling/kernel_profile.h"

namespace stepscope::profiling {

// The category of a kernel from its demangled name (or of a copy/set from its record name,
// "Memcpy HtoD", "Memset"). The rules are in kernel_category.cpp.
KernelCategory classify_kernel(const std::string& demangled_name);

}  // namespace stepscope::profiling
