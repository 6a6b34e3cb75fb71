#include "schema/input_field.h"

#include <stdexcept>

namespace stepscope::schema {

const InputField* InputSchema::find(const std::string& key) const {
  for (const auto& field : fields) {
    if (field.key == key) return &field;
  }
  return nullptr;
}

const InputField& InputSchema::at(const std::string& key) const {
  if (const InputField* field = find(key)) return *field;
  throw std::logic_error("no input '" + key + "' in this schema");
}

std::string to_string(InputKind kind) {
  switch (kind) {
    case InputKind::integer: return "integer";
    case InputKind::number: return "number";
    case InputKind::size: return "size";
    case InputKind::choice: return "choice";
    case InputKind::text: return "text";
    case InputKind::path: return "path";
    case InputKind::flag: return "flag";
  }
  return "?";
}

}  // namespace stepscope::schema
