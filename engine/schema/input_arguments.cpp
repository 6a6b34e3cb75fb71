#include "schema/input_arguments.h"

#include <set>

#include "core/config_error.h"

namespace stepscope::schema {

std::string option_prefix(const std::string& field) { return field.empty() ? "" : "--" + field + ": "; }

ParsedArguments parse_arguments(const InputSchema& schema, const std::string& command,
                                const std::vector<std::string>& args) {
  ParsedArguments parsed{InputValues(schema), false};
  std::set<std::string> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    if (name == "-h") name = "--help";
    if (name.rfind("--", 0) != 0) {
      throw ConfigError("unexpected argument '" + name + "' for '" + command + "' (options start with --)");
    }
    std::string value;
    bool inline_value = false;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    const std::string key = name.substr(2);
    if (key == "help") {
      if (inline_value) throw ConfigError("option --help takes no value");
      parsed.help = true;
      continue;
    }
    const InputField* field = schema.find(key);
    if (field == nullptr) {
      // A command of stepscope-cli ("bench"), or a program of its own ("stepscope").
      const std::string help = command.rfind("stepscope", 0) == 0 ? command : "stepscope-cli " + command;
      throw ConfigError("unknown option '" + name + "' for '" + command + "' (see " + help + " --help)");
    }
    if (field->kind == InputKind::flag) {
      if (inline_value) throw ConfigError("option " + name + " takes no value", key);
      parsed.values.set_flag(key, true);
      continue;
    }
    if (!seen.insert(key).second) throw ConfigError("option " + name + " is given twice", key);
    if (!inline_value) {
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) {
        throw ConfigError("option " + name + " needs a value", key);
      }
      value = args[++i];
    }
    if (value.empty()) throw ConfigError("option " + name + " has an empty value", key);
    try {
      parsed.values.set(key, value);
    } catch (const ConfigError& e) {
      throw ConfigError(option_prefix(key) + e.what(), key);
    }
  }
  if (parsed.help) return parsed;
  for (const auto& field : schema.fields) {
    if (field.required && !parsed.values.given(field.key)) {
      throw ConfigError("--" + field.key + " is required", field.key);
    }
  }
  return parsed;
}

std::vector<std::string> to_arguments(const InputValues& values) {
  std::vector<std::string> args;
  for (const auto& [key, text] : values.given_values()) {
    args.push_back("--" + key);
    if (values.schema().at(key).kind != InputKind::flag) args.push_back(text);
  }
  return args;
}

}  // namespace stepscope::schema
