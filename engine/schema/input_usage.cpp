#include "schema/input_usage.h"

#include <sstream>
#include <vector>

#include "schema/input_ranges.h"

namespace stepscope::schema {

namespace {

constexpr size_t kHelpColumn = 29;  // where every option's help starts

std::string default_of(const InputField& field) {
  if (!field.default_note.empty()) return " (default " + field.default_note + ")";
  if (field.default_text.empty() || field.kind == InputKind::flag) return "";
  if (field.help.find("default") != std::string::npos) return "";
  return " (default " + field.default_text + ")";
}

}  // namespace

std::string option_synopsis(const InputField& field) {
  std::string out = "--" + field.key;
  if (field.kind == InputKind::flag) return out;
  out += " " + field.value_name;
  if (field.list) out += "[," + field.value_name + "...]";
  return out;
}

std::string usage_text(const InputSchema& schema, const UsageText& text) {
  std::ostringstream out;
  out << "usage: " << text.synopsis << "\n";
  if (!text.description.empty()) out << "\n" << text.description;
  std::vector<std::string> groups;
  for (const auto& field : schema.fields) {
    if (field.hidden) continue;
    bool known = false;
    for (const auto& g : groups) known = known || g == field.group;
    if (!known) groups.push_back(field.group);
  }
  for (const auto& group : groups) {
    out << "\n" << group << ":\n";
    for (const auto& field : schema.fields) {
      if (field.group != group || field.hidden) continue;
      std::string line = "  " + option_synopsis(field);
      line += line.size() + 1 < kHelpColumn ? std::string(kHelpColumn - line.size(), ' ') : "\n" + std::string(kHelpColumn, ' ');
      std::string help = field.help + default_of(field);
      if (field.required) help += " (required)";
      // Continuation lines of the help start at its column.
      for (size_t nl = help.find('\n'); nl != std::string::npos; nl = help.find('\n', nl + 1)) {
        help.insert(nl + 1, std::string(kHelpColumn, ' '));
      }
      out << line << help << "\n";
    }
  }
  bool ranges = false;
  for (const auto& field : schema.fields) {
    ranges = ranges || (field.list && !field.hidden && (field.kind == InputKind::integer || field.kind == InputKind::size));
  }
  if (ranges) out << "\n" << kRangeHelp << "\n";
  if (!text.epilogue.empty()) out << "\n" << text.epilogue;
  return out.str();
}

}  // namespace stepscope::schema
