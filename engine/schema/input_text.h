// The text of an input as the schema reads it: spaces around it dropped, whole numbers read
// strictly (all of the text, in range). Shared by values and ranges.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace stepscope::schema {

inline std::string trimmed_input(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

inline std::optional<int64_t> read_whole_number(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) return std::nullopt;
  return value;
}

}  // namespace stepscope::schema
