#include "imports/legacy_trace_events.h"

#include <array>

namespace stepscope::imports {

namespace {

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "aten::", "autograd::", "torch::": an identifier, then "::".
bool has_namespace(std::string_view name) {
  size_t i = 0;
  while (i < name.size() && identifier_char(name[i])) ++i;
  return i > 0 && name.substr(i, 2) == "::";
}

// "MmBackward0", "CopyBackwards": an identifier ending in Backward, Backwards, then digits.
bool autograd_node(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!identifier_char(c)) return false;
  }
  size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  const std::string_view stem = name.substr(0, end);
  const auto ends_with = [&](std::string_view suffix) {
    return stem.size() > suffix.size() && stem.substr(stem.size() - suffix.size()) == suffix;
  };
  return ends_with("Backward") || ends_with("Backwards");
}

}  // namespace

bool names_an_operator(std::string_view name) {
  // LibTorch's RECORD_FUNCTION calls without a namespace (autograd's VariableTypeManual).
  constexpr std::array<std::string_view, 2> kBare = {"detach", "detach_"};
  for (std::string_view bare : kBare) {
    if (name == bare) return true;
  }
  return has_namespace(name) || autograd_node(name);
}

}  // namespace stepscope::imports
