#include "schema/input_values.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "core/config_error.h"
#include "schema/input_ranges.h"
#include "schema/input_text.h"
#include "schema/size_text.h"

namespace stepscope::schema {

namespace {


// "a, b or c".
std::string listed(const std::vector<std::string>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) out += i + 1 == choices.size() ? " or " : ", ";
    out += choices[i];
  }
  return out;
}

bool read_integer(const std::string& text, int64_t& value) {
  const auto read = read_whole_number(text);
  if (read) value = *read;
  return read.has_value();
}

void check_range(const InputField& field, const std::string& item, int64_t value) {
  if (value < field.min_integer) {
    throw ConfigError(item + " is too small (at least " + std::to_string(field.min_integer) + ")", field.key);
  }
  if (value > field.max_integer) {
    throw ConfigError("at most " + std::to_string(field.max_integer) + " (got " + item + ")", field.key);
  }
}

}  // namespace

std::vector<std::string> split_input_list(const std::string& key, const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = trimmed_input(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) throw ConfigError("empty item in list '" + text + "'", key);
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

void check_input_item(const InputField& field, const std::string& item) {
  switch (field.kind) {
    case InputKind::integer: {
      int64_t value = 0;
      if (!read_integer(item, value)) throw ConfigError("'" + item + "' is not an integer", field.key);
      check_range(field, item, value);
      break;
    }
    case InputKind::number: {
      char* end = nullptr;
      const double value = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0' || !std::isfinite(value) || value <= field.min_number) {
        throw ConfigError("'" + item + "' is not a positive number", field.key);
      }
      break;
    }
    case InputKind::size: {
      const auto bytes = parse_size_bytes(item);
      if (!bytes) {
        throw ConfigError("'" + item + "' is not a size (use bytes, or a number with KB, MB, GB, KiB, MiB or GiB)",
                          field.key);
      }
      check_range(field, item, *bytes);
      break;
    }
    case InputKind::choice: {
      if (field.check) break;  // its own parser says what it accepts
      bool known = false;
      for (const auto& choice : field.choices) known = known || choice == item;
      if (!known) {
        const std::string noun = field.noun.empty() ? field.key : field.noun;
        throw ConfigError("unknown " + noun + " '" + item + "' (use " + listed(field.choices) + ")", field.key);
      }
      break;
    }
    case InputKind::text:
    case InputKind::path:
    case InputKind::flag: break;
  }
  if (field.check) {
    try {
      field.check(item);
    } catch (const ConfigError& e) {
      throw ConfigError(e.what(), field.key);
    }
  }
}

InputValues::InputValues() {
  static const InputSchema none;
  schema_ = &none;
}

void InputValues::set(const std::string& key, const std::string& text) {
  const InputField& field = schema_->at(key);
  if (field.kind == InputKind::flag) {
    set_flag(key, true);
    return;
  }
  const std::string value = trimmed_input(text);
  if (value.empty()) throw ConfigError("needs a value", key);
  if (!field.list) {
    expand_input_range(field, value);  // refuses a range here, saying it needs a list
    check_input_item(field, value);
    given_[key] = value;
    return;
  }
  std::string joined;
  for (const auto& typed : split_input_list(key, value)) {
    for (const auto& item : expand_input_range(field, typed)) {
      check_input_item(field, item);
      joined += (joined.empty() ? "" : ",") + item;
    }
  }
  given_[key] = joined;
}

void InputValues::set_flag(const std::string& key, bool on) {
  if (schema_->at(key).kind != InputKind::flag) throw std::logic_error("input '" + key + "' is not a flag");
  if (on) {
    given_[key] = "";
  } else {
    given_.erase(key);
  }
}

void InputValues::clear(const std::string& key) {
  schema_->at(key);
  given_.erase(key);
}

std::string InputValues::text(const std::string& key) const {
  const InputField& field = schema_->at(key);
  const auto it = given_.find(key);
  return it != given_.end() ? it->second : field.default_text;
}

std::vector<std::string> InputValues::items(const std::string& key) const {
  const std::string value = text(key);
  if (value.empty()) return {};
  if (!schema_->at(key).list) return {value};
  return split_input_list(key, value);
}

int64_t InputValues::integer(const std::string& key) const {
  const auto values = integers(key);
  if (values.size() != 1) throw std::logic_error("input '" + key + "' has no single integer");
  return values.front();
}

std::vector<int64_t> InputValues::integers(const std::string& key) const {
  std::vector<int64_t> out;
  for (const auto& item : items(key)) {
    int64_t value = 0;
    if (!read_integer(item, value)) throw ConfigError("'" + item + "' is not an integer", key);
    out.push_back(value);
  }
  return out;
}

double InputValues::number(const std::string& key) const {
  const auto values = numbers(key);
  if (values.size() != 1) throw std::logic_error("input '" + key + "' has no single number");
  return values.front();
}

std::vector<double> InputValues::numbers(const std::string& key) const {
  std::vector<double> out;
  for (const auto& item : items(key)) {
    char* end = nullptr;
    const double parsed = std::strtod(item.c_str(), &end);
    if (*end != '\0') throw ConfigError("'" + item + "' is not a number", key);
    out.push_back(parsed);
  }
  return out;
}

int64_t InputValues::bytes(const std::string& key) const {
  const auto values = sizes(key);
  if (values.size() != 1) throw std::logic_error("input '" + key + "' has no single size");
  return values.front();
}

std::vector<int64_t> InputValues::sizes(const std::string& key) const {
  std::vector<int64_t> out;
  for (const auto& item : items(key)) {
    const auto value = parse_size_bytes(item);
    if (!value) throw ConfigError("'" + item + "' is not a size", key);
    out.push_back(*value);
  }
  return out;
}

bool InputValues::flag(const std::string& key) const {
  schema_->at(key);
  return given_.count(key) > 0 || schema_->at(key).default_text == "1";
}

std::vector<std::pair<std::string, std::string>> InputValues::given_values() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& field : schema_->fields) {
    const auto it = given_.find(field.key);
    if (it != given_.end()) out.emplace_back(field.key, it->second);
  }
  return out;
}

}  // namespace stepscope::schema
