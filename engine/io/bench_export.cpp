#include "io/bench_export.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "io/csv_writer.h"

namespace stepscope {

namespace {

const char* const kPhases[] = {"total", "forward", "backward", "optimizer"};
const char* const kStats[] = {"mean", "std", "min", "median", "max"};

const PhaseStats& phase(const BenchResult& r, int i) {
  switch (i) {
    case 0: return r.total;
    case 1: return r.forward;
    case 2: return r.backward;
    default: return r.optimizer;
  }
}

std::vector<double> values(const PhaseStats& s) { return {s.mean_ms, s.std_ms, s.min_ms, s.median_ms, s.max_ms}; }

std::string number_or_blank(double value, bool known) { return known ? format_number(value) : ""; }

// CSV cells become JSON numbers where they are numbers and null where they are blank.
nlohmann::json json_value(const std::string& header, const std::string& cell) {
  if (cell.empty()) return nullptr;
  static const char* const kText[] = {"model", "precision", "mode", "device", "device_name", "timer", "status",
                                      "message"};
  for (const char* name : kText) {
    if (header == name) return cell;
  }
  size_t used = 0;
  try {
    const double value = std::stod(cell, &used);
    if (used != cell.size()) return cell;
    if (value == std::floor(value) && std::fabs(value) < 9.0e15) return static_cast<int64_t>(value);
    return value;
  } catch (const std::exception&) {
  }
  return cell;
}

}  // namespace

std::vector<std::string> bench_csv_header() {
  std::vector<std::string> header = {"model",  "d_model", "d_ff",        "layers", "heads",  "vocab",
                                     "context", "batch",  "precision",   "mode",   "device", "device_name",
                                     "timer",   "warmup", "steps",       "status"};
  for (const char* p : kPhases) {
    for (const char* s : kStats) header.push_back(std::string(p) + "_" + s + "_ms");
  }
  for (const char* extra : {"tokens_per_s", "parameters", "flops_per_step", "achieved_tflops", "peak_tflops", "mfu",
                            "peak_memory_bytes", "skipped_steps", "message"}) {
    header.emplace_back(extra);
  }
  return header;
}

std::vector<std::string> bench_csv_row(const BenchResult& r) {
  const auto& c = r.config;
  std::vector<std::string> row = {c.model.name,
                                  std::to_string(c.model.d_model),
                                  std::to_string(c.model.d_ff),
                                  std::to_string(c.model.num_layers),
                                  std::to_string(c.model.num_heads),
                                  std::to_string(c.model.vocab_size),
                                  std::to_string(c.context),
                                  std::to_string(c.batch),
                                  to_string(c.precision),
                                  to_string(c.mode),
                                  c.device,
                                  r.device_name,
                                  r.timer,
                                  std::to_string(c.warmup_steps),
                                  std::to_string(r.steps.size()),
                                  to_string(r.status)};
  for (int i = 0; i < 4; ++i) {
    const auto& stats = phase(r, i);
    for (double v : values(stats)) row.push_back(number_or_blank(v, stats.count > 0));
  }
  const bool measured = r.total.count > 0;
  row.push_back(number_or_blank(r.tokens_per_second, measured));
  row.push_back(std::to_string(r.parameters));
  row.push_back(format_number(r.flops_per_step));
  row.push_back(number_or_blank(r.achieved_tflops, measured));
  row.push_back(number_or_blank(r.peak_tflops, r.peak_tflops > 0));
  row.push_back(number_or_blank(r.mfu, measured && r.mfu >= 0));
  row.push_back(r.peak_memory_bytes >= 0 ? std::to_string(r.peak_memory_bytes) : "");
  row.push_back(std::to_string(r.skipped_steps));
  row.push_back(r.message);
  return row;
}

void write_bench_csv(std::ostream& out, const std::vector<BenchResult>& results) {
  CsvWriter csv(out);
  csv.write_row(bench_csv_header());
  for (const auto& r : results) csv.write_row(bench_csv_row(r));
}

void write_bench_json(std::ostream& out, const std::vector<BenchResult>& results, const RunEnvironment& env) {
  nlohmann::json doc;
  doc["format"] = "stepscope-bench";
  doc["version"] = 1;
  doc["environment"] = {{"stepscope_version", env.stepscope_version},
                        {"libtorch_version", env.libtorch_version},
                        {"command_line", env.command_line},
                        {"started_at", env.started_at}};
  const auto header = bench_csv_header();
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : results) {
    const auto fields = bench_csv_row(r);
    nlohmann::json row;
    for (size_t i = 0; i < header.size(); ++i) row[header[i]] = json_value(header[i], fields[i]);
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& s : r.steps) {
      steps.push_back({{"forward_ns", s.forward_ns},
                       {"backward_ns", s.backward_ns},
                       {"optimizer_ns", s.optimizer_ns},
                       {"total_ns", s.total_ns}});
    }
    row["steps_ns"] = steps;
    rows.push_back(row);
  }
  doc["results"] = rows;
  out << doc.dump(2) << '\n';
}

}  // namespace stepscope
