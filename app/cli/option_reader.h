// The pieces every command's option parser shares: `--name value` / `--name=value` pairs and
// switches, comma lists and checked numbers. Every mistake is a CliError naming the option.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_options.h"

namespace stepscope::cli {

class OptionReader {
 public:
  // Rejects unknown, repeated and value-less options.
  OptionReader(const std::string& command, const std::vector<std::string>& args,
               const std::set<std::string>& with_value, const std::set<std::string>& switches);
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  std::string get(const std::string& key, const std::string& fallback = "") const {
    const auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
  }

 private:
  std::map<std::string, std::string> values_;
};

std::vector<std::string> split_list(const std::string& option, const std::string& text);
int64_t parse_integer(const std::string& option, const std::string& text, int64_t minimum);
double parse_positive_number(const std::string& option, const std::string& text);
std::vector<int64_t> parse_integer_list(const std::string& option, const std::string& text);
// "4096", "512KB", "1MB", "1GB" (powers of 10), "1KiB", "1MiB", "1GiB" (powers of 2); positive.
int64_t parse_size_bytes(const std::string& option, const std::string& text);

// Turns the engine's ConfigError into a CliError naming the option.
template <typename Parse>
auto parse_with(const std::string& option, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const ConfigError& error) {
    throw CliError("--" + option + ": " + error.what());
  }
}

}  // namespace stepscope::cli
