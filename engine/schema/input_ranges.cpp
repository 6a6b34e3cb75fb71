#include "schema/input_ranges.h"

#include "core/config_error.h"
#include "schema/input_text.h"
#include "schema/size_text.h"

namespace stepscope::schema {

namespace {

// An end of the range, in the field's kind.
int64_t read_end(const InputField& field, const std::string& text, const std::string& item) {
  const auto value = field.kind == InputKind::size ? parse_size_bytes(text) : read_whole_number(text);
  if (!value) {
    throw ConfigError("'" + text + "' in range '" + item + "' is not " +
                          (field.kind == InputKind::size ? "a size" : "an integer"),
                      field.key);
  }
  return *value;
}

}  // namespace

std::vector<std::string> expand_input_range(const InputField& field, const std::string& item) {
  // Only numbers have ranges: ".." in a path or a name is text.
  const size_t dots = item.find("..");
  if (dots == std::string::npos || (field.kind != InputKind::integer && field.kind != InputKind::size)) return {item};
  const std::string form = "(use FIRST..LAST, FIRST..LAST xFACTOR or FIRST..LAST +STEP)";
  if (!field.list) throw ConfigError("'" + item + "': a range needs a field that takes a list", field.key);
  const std::string first_text = trimmed_input(item.substr(0, dots));
  std::string rest = trimmed_input(item.substr(dots + 2));
  // The step follows the last value after a space: "4096 x2", "32 +8".
  char op = '+';
  int64_t step = 1;
  const size_t space = rest.find_first_of(" \t");
  if (space != std::string::npos) {
    const std::string step_text = trimmed_input(rest.substr(space));
    rest = trimmed_input(rest.substr(0, space));
    const auto amount = step_text.size() > 1 ? read_whole_number(step_text.substr(1)) : std::nullopt;
    if ((step_text[0] != 'x' && step_text[0] != '*' && step_text[0] != '+') || !amount) {
      throw ConfigError("'" + item + "' is not a range " + form, field.key);
    }
    op = step_text[0] == '+' ? '+' : 'x';
    step = *amount;
    if ((op == 'x' && step < 2) || (op == '+' && step < 1)) {
      throw ConfigError("range '" + item + "' needs a factor of at least 2 or a step of at least 1", field.key);
    }
  }
  if (first_text.empty() || rest.empty()) throw ConfigError("'" + item + "' is not a range " + form, field.key);
  const int64_t first = read_end(field, first_text, item);
  const int64_t last = read_end(field, rest, item);
  if (last < first) throw ConfigError("range '" + item + "' ends below its start", field.key);
  if (op == 'x' && first < 1) throw ConfigError("range '" + item + "' multiplies from " + first_text, field.key);
  std::vector<std::string> values;
  for (int64_t v = first; v <= last;) {
    if (values.size() == kMaxRangeValues) {
      throw ConfigError("range '" + item + "' gives more than " + std::to_string(kMaxRangeValues) + " values",
                        field.key);
    }
    values.push_back(std::to_string(v));
    // Stop before the next value would pass `last` (or overflow).
    if (op == 'x' ? v > last / step : v > last - step) break;
    v = op == 'x' ? v * step : v + step;
  }
  return values;
}

}  // namespace stepscope::schema
