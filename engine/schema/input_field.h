// An experiment's input, declared once: what the CLI parses and its usage lists, what the
// app's form shows and checks as it is typed, what a worker's argv carries and what a run
// record stores. The key is the option (`--batch`), the form field's name and the `field`
// of every ConfigError about it.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace stepscope::schema {

enum class InputKind {
  integer,  // whole number in [min, max]
  number,   // real number > 0 (or >= min where min_number says)
  size,     // bytes, with or without a unit: 4096, 512KB, 1MiB
  choice,   // one of `choices`
  text,     // free text, checked by `check` where given
  path,     // a file or folder
  flag,     // present or not; takes no value
};

struct InputField {
  std::string key;    // "batch": --batch, the ConfigError's field
  std::string label;  // "Batch size": the form's label
  InputKind kind = InputKind::text;
  std::string help;  // the usage's line and the form's tooltip
  // As the user would type it ("4", "naive,flash", "10MB"); empty: not set unless given.
  std::string default_text = {};
  bool list = false;  // a sweep axis: a comma list of values, one run each
  std::string group = "run";  // the usage's section and the form's box: "model", "run", "output"
  std::string value_name = "N";  // how the usage names the value: N, P, FILE
  int64_t min_integer = 1;  // integer and size kinds
  int64_t max_integer = std::numeric_limits<int64_t>::max();
  double min_number = 0;  // number kind: values must be greater than this
  std::vector<std::string> choices = {};  // choice kind, in the order the usage lists them
  std::string noun = {};  // "precision": "unknown precision 'x' (use fp32, bf16 or fp16)"
  std::string unit = {};  // shown beside the form's field: "ms", "bytes"
  bool required = false;
  // Extra check of one item (a list's each): throws ConfigError with a message. For a choice,
  // it replaces the check against `choices` (the engine's own parser, with its message).
  std::function<void(const std::string&)> check = {};
  // Internal (what a launcher passes its workers): parsed, but in no usage and no form.
  bool hidden = false;
  // The default said in words where the text alone would mislead ("sdpa where available").
  std::string default_note = {};
};

struct InputSchema {
  std::vector<InputField> fields;
  // Null for a key the schema lacks.
  const InputField* find(const std::string& key) const;
  // Throws std::logic_error for a key the schema lacks: a programming error.
  const InputField& at(const std::string& key) const;
};

std::string to_string(InputKind kind);

}  // namespace stepscope::schema
