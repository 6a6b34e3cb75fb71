// The form tests' demo schema and helpers: about the size of an experiment's inputs, and how a
// test reads and types into the form.
#pragma once

#include <QCheckBox>
#include <QLineEdit>
#include <QTest>

#include "core/config_error.h"
#include "schema/input_values.h"
#include "widgets/input_form.h"

namespace stepscope::views::input_form_fixtures {

using schema::InputField;
using schema::InputKind;


// About the size of an experiment's: 21 visible inputs in 3 groups, and a hidden one.
inline schema::InputSchema demo_schema() {
  std::vector<InputField> f;
  f.push_back({"impl", "Implementations", InputKind::choice, "naive, sdpa or flash", "naive,sdpa,flash", true, "run",
               "I"});
  f.back().choices = {"naive", "sdpa", "flash"};
  f.back().default_note = "naive,flash, and sdpa where available";
  f.push_back({"batch", "Batch", InputKind::integer, "batch size", "8", false, "run", "N"});
  f.push_back({"seq", "Sequence lengths", InputKind::integer, "sequence lengths, one run each", "256,1024", true, "run",
               "N"});
  f.back().max_integer = 65536;
  f.push_back({"precision", "Precisions", InputKind::choice, "fp32, bf16 or fp16 inputs", "fp32", true, "run", "P"});
  f.back().choices = {"fp32", "bf16", "fp16"};
  f.back().noun = "precision";
  f.push_back({"causal", "Causal", InputKind::flag, "top-left causal mask", "", false, "run", ""});
  f.push_back({"warmup", "Warm-up passes", InputKind::integer, "warm-up passes, not measured", "5", false, "run", "N"});
  f.back().min_integer = 0;
  f.push_back({"steps", "Measured passes", InputKind::integer, "measured passes", "100", false, "run", "N"});
  f.push_back({"rounds", "Rounds", InputKind::integer,
               "split the passes into N rounds, the implementations taking\nturns round by round", "", false, "run",
               "N"});
  f.push_back({"lr", "Learning rate", InputKind::number, "AdamW's learning rate", "0.001", false, "run", "X"});
  f.push_back({"device", "Device", InputKind::text, "cpu, cuda or cuda:N", "cpu", false, "run", "D"});
  f.back().check = [](const std::string& t) {
    if (t != "cpu" && t != "cuda" && t.rfind("cuda:", 0) != 0) throw ConfigError("unknown device '" + t + "'");
  };
  f.push_back({"rank", "Rank", InputKind::flag, "a worker's own flag", "", false, "run", ""});
  f.back().hidden = true;
  f.push_back({"model", "Model", InputKind::choice, "a preset", "tiny", false, "model", "NAME"});
  f.back().choices = {"tiny", "mini", "small", "medium"};
  f.push_back({"context", "Context", InputKind::integer, "tokens per sequence", "256", false, "model", "N"});
  f.push_back({"d-model", "Width", InputKind::integer, "model width", "", false, "model", "N"});
  f.push_back({"layers", "Layers", InputKind::integer, "layers", "", false, "model", "N"});
  f.push_back({"bucket", "Bucket sizes", InputKind::size, "gradient bucket sizes", "1MiB,25MiB", true, "model", "S"});
  f.push_back({"backend", "Backend", InputKind::choice, "gloo (CPU tensors) or nccl (GPUs)", "", false, "model", "B"});
  f.back().choices = {"gloo", "nccl"};
  f.back().default_note = "gloo, nccl with --device cuda";
  f.push_back({"timeout", "Timeout", InputKind::integer, "seconds the ranks may take to meet", "60", false, "model",
               "S"});
  f.back().unit = "s";
  f.push_back({"csv", "CSV file", InputKind::path, "the rows as CSV", "", false, "output", "F"});
  f.push_back({"trace", "Trace file", InputKind::path, "a Perfetto trace", "", false, "output", "F"});
  f.push_back({"profile-memory", "Profile memory", InputKind::flag, "record each rank's allocations", "", false,
               "output", ""});
  f.push_back({"note", "Note", InputKind::text, "a note stored with the run", "", false, "output", "T"});
  return {f};
}

inline const schema::InputSchema& demo() {
  static const schema::InputSchema schema = demo_schema();
  return schema;
}

// What the schema says about `text` for `key`: the message InputValues::set throws, or "".
inline QString schema_error(const std::string& key, const std::string& text) {
  schema::InputValues scratch(demo());
  try {
    scratch.set(key, text);
  } catch (const ConfigError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

QLineEdit* line(const InputForm& form, const std::string& key) { return qobject_cast<QLineEdit*>(form.field(key)); }

inline QCheckBox* choice_box(const InputForm& form, const std::string& key, const std::string& choice) {
  return form.field(key)->findChild<QCheckBox*>(QString::fromStdString(key + ":" + choice));
}

bool framed(const InputForm& form, const std::string& key) { return form.field(key)->property("invalid").toBool(); }

// The ConfigError values() throws, or one with the field "(none)".
inline ConfigError values_error(const InputForm& form) {
  try {
    form.values();
  } catch (const ConfigError& e) {
    return e;
  }
  return ConfigError("no error", "(none)");
}

inline void type_into(QLineEdit* field, const QString& text) {
  field->clear();
  QTest::keyClicks(field, text);
}

}  // namespace stepscope::views::input_form_fixtures
