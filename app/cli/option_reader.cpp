#include "cli/option_reader.h"

#include "experiments/collectives/collective_sweep_spec.h"

#include <cctype>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace stepscope::cli {

OptionReader::OptionReader(const std::string& command, const std::vector<std::string>& args,
                           const std::set<std::string>& with_value, const std::set<std::string>& switches) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::string value;
    bool has_inline_value = false;
    if (name.rfind("--", 0) != 0 && name != "-h") {
      throw CliError("unexpected argument '" + name + "' for '" + command + "' (options start with --)");
    }
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline_value = true;
    }
    if (name == "-h") name = "--help";
    const std::string key = name.substr(2);
    if (switches.count(key)) {
      if (has_inline_value) throw CliError("option " + name + " takes no value");
      values_[key] = "1";
      continue;
    }
    if (!with_value.count(key)) {
      throw CliError("unknown option '" + name + "' for '" + command + "' (see stepscope-cli " + command +
                     " --help)");
    }
    if (values_.count(key)) throw CliError("option " + name + " is given twice");
    if (!has_inline_value) {
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) {
        throw CliError("option " + name + " needs a value");
      }
      value = args[++i];
    }
    if (value.empty()) throw CliError("option " + name + " has an empty value");
    values_[key] = value;
  }
}

std::vector<std::string> split_list(const std::string& option, const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty()) throw CliError("--" + option + ": empty item in list '" + text + "'");
    items.push_back(item);
  }
  if (!text.empty() && text.back() == ',') throw CliError("--" + option + ": empty item in list '" + text + "'");
  return items;
}

int64_t parse_integer(const std::string& option, const std::string& text, int64_t minimum) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) {
    throw CliError("--" + option + ": '" + text + "' is not an integer");
  }
  if (value < minimum) {
    throw CliError("--" + option + ": " + text + " is too small (at least " + std::to_string(minimum) + ")");
  }
  return value;
}

double parse_positive_number(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value) || value <= 0) {
    throw CliError("--" + option + ": '" + text + "' is not a positive number");
  }
  return value;
}

std::vector<int64_t> parse_integer_list(const std::string& option, const std::string& text) {
  std::vector<int64_t> values;
  for (const auto& item : split_list(option, text)) values.push_back(parse_integer(option, item, 1));
  return values;
}

int64_t parse_size_bytes(const std::string& option, const std::string& text) {
  if (const auto bytes = stepscope::parse_size_bytes(text)) return *bytes;
  throw CliError("--" + option + ": '" + text + "' is not a size (use bytes, or a number with KB, MB, GB, KiB, MiB or GiB)");
}

}  // namespace stepscope::cli
