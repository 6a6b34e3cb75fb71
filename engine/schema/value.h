// One cell of a result table: missing (not measured, does not apply), an integer, a real
// number or text. Kept exact; formatting happens only at the edges (value_format.h).
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <string>
#include <variant>

namespace stepscope::schema {

using Value = std::variant<std::monostate, int64_t, double, std::string>;

inline bool is_missing(const Value& value) { return std::holds_alternative<std::monostate>(value); }
// The number in a numeric cell; nothing for missing or text cells.
std::optional<double> number_of(const Value& value);
// The integer a value holds; 0 for anything else (an empty cell, text, a real).
int64_t integer_of(const Value& value);
// The text of a text cell; "" otherwise.
const std::string& text_of(const Value& value);

// Missing where `known` is false: most measures exist only for runs that measured something.
template <class T>
Value value_if(bool known, T value) {
  if (!known) return std::monostate{};
  if constexpr (std::is_integral_v<T>) {
    return static_cast<int64_t>(value);
  } else {
    return value;
  }
}

}  // namespace stepscope::schema
