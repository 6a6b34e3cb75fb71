#pragma once
// The torch.<Type>Storage class names torch.save uses for each tensor dtype.
#include <optional>
#include <string>
#include <vector>

#include <c10/core/ScalarType.h>

namespace stepscope {

// "FloatStorage" for kFloat, ...; nullptr for a dtype we do not serialize.
const char* storage_name_for(c10::ScalarType dtype);
// Inverse of storage_name_for; nullopt for an unknown name.
std::optional<c10::ScalarType> dtype_for_storage_name(const std::string& name);
// Every name above, for messages that list what is known.
std::vector<std::string> storage_names();

}  // namespace stepscope
