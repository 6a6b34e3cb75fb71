#include "io/torch_storage_types.h"

namespace stepscope {
namespace {

struct Entry {
  c10::ScalarType dtype;
  const char* name;
};

constexpr Entry kTable[] = {
    {c10::ScalarType::Float, "FloatStorage"},   {c10::ScalarType::Double, "DoubleStorage"},
    {c10::ScalarType::Half, "HalfStorage"},     {c10::ScalarType::BFloat16, "BFloat16Storage"},
    {c10::ScalarType::Long, "LongStorage"},     {c10::ScalarType::Int, "IntStorage"},
    {c10::ScalarType::Short, "ShortStorage"},   {c10::ScalarType::Char, "CharStorage"},
    {c10::ScalarType::Byte, "ByteStorage"},     {c10::ScalarType::Bool, "BoolStorage"},
};

}  // namespace

const char* storage_name_for(c10::ScalarType dtype) {
  for (const auto& e : kTable)
    if (e.dtype == dtype) return e.name;
  return nullptr;
}

std::optional<c10::ScalarType> dtype_for_storage_name(const std::string& name) {
  for (const auto& e : kTable)
    if (name == e.name) return e.dtype;
  return std::nullopt;
}

std::vector<std::string> storage_names() {
  std::vector<std::string> names;
  for (const auto& e : kTable) names.emplace_back(e.name);
  return names;
}

}  // namespace stepscope
