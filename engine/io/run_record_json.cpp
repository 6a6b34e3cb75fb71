#include "io/run_record_json.h"

#include "core/config_error.h"
#include "experiments/bench/bench_schema.h"
#include "io/output_file.h"
#include "io/input_file.h"
#include "io/run_record_codec.h"
#include "io/run_record_legacy.h"
#include "io/table_json.h"

namespace stepscope {

namespace {

using nlohmann::json;
using run_record_codec::read;
using run_record_codec::Writer;

const char* const kRunFormat = "stepscope-run";
const char* const kBenchFormat = "stepscope-bench";  // the CLI's --json before version 2

json write_entry(const Writer& writer, const RunRecordEntry& entry) {
  const auto& schema = bench_schema();
  json out = {{"config", writer.write(entry.result.config)},
              {"row", row_to_json(schema.columns(), schema.values(entry.result))},
              {"steps_ns", writer.write(entry.result.steps)},
              {"kernel_profile", writer.write(entry.result.kernel_profile)},
              {"operator_profile", writer.write(entry.result.operator_profile)},
              {"timeline", writer.write(entry.timeline)}};
  if (is_import(entry.result)) out["imported_from"] = entry.result.imported_from;  // imports only
  // The profilers' own steps, where they had them (a GPU): the row shows their mean only.
  if (entry.result.profiled.count > 0) out["profiled"] = writer.write(entry.result.profiled);
  return out;
}

RunRecordEntry read_entry(const JsonAt& at) {
  RunRecordEntry entry;
  BenchResult& r = entry.result;
  if (at.value().is_object() && at.value().contains("imported_from")) read(at.member("imported_from"), r.imported_from);
  read(at.member("config"), r.config);
  read(at.member("steps_ns"), r.steps);  // before the row: a phase's count is its steps'
  read_stored_fields(at.member("row"), bench_schema(), r);
  read(at.member("kernel_profile"), r.kernel_profile);
  // Added within version 3: absent in earlier files, read as null.
  if (at.value().is_object() && at.value().contains("operator_profile")) {
    read(at.member("operator_profile"), r.operator_profile);
  }
  if (at.value().is_object() && at.value().contains("profiled")) read(at.member("profiled"), r.profiled);
  read(at.member("timeline"), entry.timeline);
  return entry;
}

json write_inputs(const RunInputs& inputs) {
  json values = json::object();
  for (const auto& [key, text] : inputs.values) values[key] = text;
  return {{"experiment", inputs.experiment}, {"values", values}};
}

RunInputs read_inputs(const JsonAt& at) {
  RunInputs inputs;
  inputs.experiment = read_string(at.member("experiment"));
  const JsonAt values = at.member("values");
  if (!values.value().is_object()) values.fail("expected an object of input texts");
  for (const auto& [key, text] : values.value().items()) {
    inputs.values.emplace_back(key, read_string(values.member(key)));
  }
  return inputs;
}

json write_ending(const std::optional<RunEnding>& ended) {
  if (!ended) return nullptr;
  return {{"status", to_string(ended->status)}, {"planned", ended->planned}};
}

std::optional<RunEnding> read_ending(const JsonAt& root) {
  if (!root.value().is_object() || !root.value().contains("outcome") || root.value().at("outcome").is_null()) {
    return std::nullopt;
  }
  const JsonAt at = root.member("outcome");
  RunEnding ended;
  read(at.member("status"), ended.status);
  read(at.member("planned"), ended.planned);
  return ended;
}

// Version 2 is version 3 without the inputs.
RunRecord read_run_v2(const JsonAt& root, bool with_inputs) {
  RunRecord record;
  read(root.member("environment"), record.environment);
  if (with_inputs) record.inputs = read_inputs(root.member("inputs"));
  const JsonAt entries = root.member("entries");
  for (size_t i = 0; i < entries.array_size(); ++i) record.entries.push_back(read_entry(entries.element(i)));
  const JsonAt tables = root.member("tables");
  for (size_t i = 0; i < tables.array_size(); ++i) record.tables.push_back(table_from_json(tables.element(i)));
  record.outcome = read_ending(root);
  return record;
}

// Format and version first: a newer file's other changes should not be reported as errors.
RunRecord read_by_format(const JsonAt& root) {
  const JsonAt format = root.member("format");
  const std::string name = read_string(format);
  const JsonAt version = root.member("version");
  const int64_t number = read_int64(version);
  if (name == kBenchFormat) {
    if (number != 1) version.fail("stepscope-bench files have version 1 only, not " + std::to_string(number));
    return run_record_legacy::read_bench_v1(root);  // no timelines in that format
  }
  if (name != kRunFormat) {
    format.fail(std::string("expected \"") + kRunFormat + "\" (or the older \"" + kBenchFormat + "\"), got \"" +
                name + "\"");
  }
  if (number > kRunRecordVersion) {
    version.fail(std::to_string(number) + " is newer than this build reads (" + std::to_string(kRunRecordVersion) +
                 "); open it with a newer Stepscope");
  }
  if (number < 1) version.fail("no version " + std::to_string(number) + " exists");
  if (number == 1) return run_record_legacy::read_run_v1(root);
  return read_run_v2(root, number >= 3);
}

// Every configuration must be one this build could run: a shared file with batch -5 is refused.
RunRecord read_any(const JsonAt& root) {
  RunRecord record = read_by_format(root);
  for (size_t i = 0; i < record.entries.size(); ++i) {
    auto& entry = record.entries[i];
    entry.result.memory_timeline = entry.timeline;
    try {
      validate(entry.result.config);
    } catch (const ConfigError& e) {
      throw JsonReadError("entries[" + std::to_string(i) + "].config" + (e.field().empty() ? "" : "." + e.field()) +
                          ": " + e.what());
    }
  }
  return record;
}

}  // namespace

json to_json(const RunRecord& record, size_t max_timeline_points) {
  const Writer writer(max_timeline_points);
  json entries = json::array();
  for (const auto& entry : record.entries) entries.push_back(write_entry(writer, entry));
  json tables = json::array();
  for (const auto& table : record.tables) tables.push_back(table_to_json(table));
  return {{"format", kRunFormat},
          {"version", kRunRecordVersion},
          {"environment", writer.write(record.environment)},
          {"inputs", write_inputs(record.inputs)},
          {"entries", entries},
          {"tables", tables},
          {"outcome", write_ending(record.outcome)}};
}

RunRecord run_record_from_json(const json& document) {
  try {
    return read_any(JsonAt(document, ""));
  } catch (const JsonReadError& e) {
    throw RunRecordError(e.what());
  }
}

std::string write_run_record(const RunRecord& record, size_t max_timeline_points) {
  return to_json(record, max_timeline_points).dump(-1, ' ', false, json::error_handler_t::replace);
}

RunRecord read_run_record(const std::string& text) {
  json document;
  try {
    document = parse_json_bounded(text);  // a bounded document, not 18 times the text's size
  } catch (const json::exception& e) {
    throw RunRecordError(std::string("malformed JSON: ") + e.what());
  } catch (const JsonReadError& e) {
    throw RunRecordError(e.what());
  }
  return run_record_from_json(document);
}

void write_run_record_file(const std::string& path, const RunRecord& record, size_t max_timeline_points) {
  const std::string text = write_run_record(record, max_timeline_points);
  try {
    replace_file(path, [&](std::ostream& out) { out << text; });
  } catch (const FileWriteError& e) {
    throw RunRecordError(e.what());
  }
}

RunRecord read_run_record_file(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path, "a run file");
  } catch (const InputFileError& e) {
    throw RunRecordError(e.what());
  }
  try {
    return read_run_record(text);
  } catch (const RunRecordError& e) {
    throw RunRecordError(path + ": " + e.what());
  }
}

}  // namespace stepscope
