// The values of an experiment's inputs, checked against its InputSchema as they are set:
// what the CLI parsed, what the form holds, what a run record stores. Each value is kept as
// the text people typed (lists joined by commas), so it goes back to argv and files as it
// came; the typed getters read it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "schema/input_field.h"

namespace stepscope::schema {

class InputValues {
 public:
  // `schema` must outlive the values (descriptors' schemas are static).
  explicit InputValues(const InputSchema& schema) : schema_(&schema) {}
  // Values of no inputs (what a queued signal's argument starts as).
  InputValues();

  const InputSchema& schema() const { return *schema_; }

  // Sets `key` from `text` as typed ("1, 2,4" keeps "1,2,4"). Throws ConfigError(key) when
  // the text is not a value of the field: "'x' is not an integer", "0 is too small (at least
  // 1)", "unknown precision 'x' (use fp32, bf16 or fp16)".
  void set(const std::string& key, const std::string& text);
  void set_flag(const std::string& key, bool on);
  // Back to the default.
  void clear(const std::string& key);
  bool given(const std::string& key) const { return given_.count(key) > 0; }

  // As given, else the default ("" when there is none).
  std::string text(const std::string& key) const;
  std::vector<std::string> items(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  std::vector<int64_t> integers(const std::string& key) const;
  double number(const std::string& key) const;
  std::vector<double> numbers(const std::string& key) const;
  int64_t bytes(const std::string& key) const;
  std::vector<int64_t> sizes(const std::string& key) const;
  bool flag(const std::string& key) const;

  // The given values in the schema's order: (key, text); a flag's text is "".
  std::vector<std::pair<std::string, std::string>> given_values() const;

  bool operator==(const InputValues& other) const { return schema_ == other.schema_ && given_ == other.given_; }
  bool operator!=(const InputValues& other) const { return !(*this == other); }

 private:
  const InputSchema* schema_;
  std::map<std::string, std::string> given_;
};

// "a,b,c": a spec's list as a value's text, each item written by `name`.
template <class T, class Name>
std::string join_items(const std::vector<T>& items, Name name) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + name(item);
  return out;
}

// One item of `field` checked; throws ConfigError(field.key) saying what is wrong with it.
void check_input_item(const InputField& field, const std::string& item);
// `text` split on commas with the spaces around each item trimmed; throws ConfigError(key)
// for an empty item.
std::vector<std::string> split_input_list(const std::string& key, const std::string& text);

}  // namespace stepscope::schema
