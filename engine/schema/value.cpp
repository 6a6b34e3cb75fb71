#include "schema/value.h"

namespace stepscope::schema {

int64_t integer_of(const Value& value) {
  return std::holds_alternative<int64_t>(value) ? std::get<int64_t>(value) : 0;
}

std::optional<double> number_of(const Value& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return std::nullopt;
}

const std::string& text_of(const Value& value) {
  static const std::string empty;
  const auto* s = std::get_if<std::string>(&value);
  return s ? *s : empty;
}

}  // namespace stepscope::schema
