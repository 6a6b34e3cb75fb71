#include "profiling/input_shapes_text.h"

#include <charconv>

namespace stepscope::profiling {

void append_input_shapes_text(std::string& out, const compat::InputShapes& shapes) {
  char digits[24];
  out += '[';
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i > 0) out += ", ";
    out += '[';
    for (size_t d = 0; d < shapes[i].size(); ++d) {
      if (d > 0) out += ", ";
      const auto end = std::to_chars(digits, digits + sizeof digits, shapes[i][d]).ptr;
      out.append(digits, end);
    }
    out += ']';
  }
  out += ']';
}

std::string input_shapes_text(const compat::InputShapes& shapes) {
  std::string out;
  append_input_shapes_text(out, shapes);
  return out;
}

}  // namespace stepscope::profiling
