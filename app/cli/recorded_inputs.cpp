#include "cli/recorded_inputs.h"

#include <sstream>

#include "cli/experiment_command.h"
#include "core/config_error.h"
#include "registry/experiment_registry.h"
#include "schema/input_arguments.h"

namespace stepscope::cli {

namespace {

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

bool starts_with(const std::vector<std::string>& words, size_t at, const std::vector<std::string>& prefix) {
  if (words.size() < at + prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (words[at + i] != prefix[i]) return false;
  }
  return true;
}

}  // namespace

const ExperimentDescriptor* experiment_of_command_line(const std::string& command_line,
                                                       std::vector<std::string>* arguments) {
  const std::vector<std::string> words = words_of(command_line);
  if (words.empty() || words.front().find("stepscope-cli") == std::string::npos) return nullptr;
  for (const auto& d : experiment_registry()) {
    const bool former = !d.former_command.empty() && starts_with(words, 1, d.former_command);
    if (!starts_with(words, 1, d.command) && !former) continue;
    const size_t length = former ? d.former_command.size() : d.command.size();
    if (arguments != nullptr) arguments->assign(words.begin() + 1 + static_cast<long>(length), words.end());
    return &d;
  }
  return nullptr;
}

std::optional<RecordedInputs> recorded_inputs(const RunRecord& record) {
  try {
    if (!record.inputs.experiment.empty()) {
      const ExperimentDescriptor* d = find_experiment(record.inputs.experiment);
      if (d == nullptr) return std::nullopt;
      RecordedInputs recorded{d, schema::InputValues(*d->inputs)};
      for (const auto& [key, text] : record.inputs.values) {
        if (d->inputs->find(key) == nullptr) return std::nullopt;  // a newer build's input
        recorded.values.set(key, text);
      }
      return recorded;
    }
    std::vector<std::string> args;
    const ExperimentDescriptor* d = experiment_of_command_line(record.environment.command_line, &args);
    if (d == nullptr) return std::nullopt;
    // The command line holds the outputs too (--csv, --json, ...): only the inputs are kept.
    RecordedInputs recorded{d, schema::InputValues(*d->inputs)};
    for (size_t i = 0; i < args.size(); ++i) {
      std::string name = args[i], value;
      const bool inline_value = name.find('=') != std::string::npos;
      if (inline_value) value = name.substr(name.find('=') + 1), name = name.substr(0, name.find('='));
      const std::string key = name.rfind("--", 0) == 0 ? name.substr(2) : "";
      const schema::InputField* option = command_inputs(*d).find(key);
      const bool flag = option != nullptr && option->kind == schema::InputKind::flag;
      if (!inline_value && !flag && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) value = args[++i];
      const schema::InputField* field = d->inputs->find(key);
      if (field == nullptr) continue;
      if (flag) {
        recorded.values.set_flag(field->key, true);
      } else {
        recorded.values.set(field->key, value);
      }
    }
    return recorded;
  } catch (const ConfigError&) {
    return std::nullopt;
  }
}

}  // namespace stepscope::cli
