#include "io/run_record_digest.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "experiments/bench/bench_schema.h"

namespace stepscope {

schema::Table main_table(const RunRecord& record) {
  if (!record.entries.empty() || record.tables.empty()) {
    std::vector<BenchResult> results;
    results.reserve(record.entries.size());
    for (const auto& entry : record.entries) results.push_back(entry.result);
    return bench_schema().table(results);
  }
  return record.tables.front();
}

RunDigest digest_run(const RunRecord& record, const ExperimentDescriptor* experiment,
                     const schema::InputValues* inputs, size_t planned) {
  const schema::Table table = main_table(record);
  RunDigest digest;
  digest.ran = table.rows.size();
  digest.planned = planned;
  // The device as asked ("cuda:0"); some tables' device column names the hardware instead.
  if (inputs != nullptr && inputs->schema().find("device") != nullptr) digest.device = inputs->text("device");
  const int device = table.column_index("device");
  if (digest.device.empty() && device >= 0 && !table.rows.empty()) {
    digest.device = schema::text_of(table.rows.front()[static_cast<size_t>(device)]);
  }
  if (experiment == nullptr) return digest;
  for (const auto& key : experiment->headline) {
    const int column = table.column_index(key);
    if (column < 0) continue;
    KeyFigure figure{table.columns[static_cast<size_t>(column)].label, table.columns[static_cast<size_t>(column)].kind};
    bool any = false;
    for (const auto& row : table.rows) {
      const auto value = schema::number_of(row[static_cast<size_t>(column)]);
      if (!value || !std::isfinite(*value)) continue;
      figure.low = any ? std::min(figure.low, *value) : *value;
      figure.high = any ? std::max(figure.high, *value) : *value;
      any = true;
    }
    if (any) digest.figures.push_back(figure);
  }
  return digest;
}

std::string write_key_figures(const std::vector<KeyFigure>& figures) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : figures) {
    out.push_back({{"label", f.label}, {"kind", schema::to_string(f.kind)}, {"low", f.low}, {"high", f.high}});
  }
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<KeyFigure> read_key_figures(const std::string& text) {
  std::vector<KeyFigure> figures;
  const auto document = nlohmann::json::parse(text, nullptr, false);
  if (!document.is_array()) return figures;
  for (const auto& f : document) {
    const auto member = [&](const char* key) {
      return f.is_object() ? f.value(key, nlohmann::json()) : nlohmann::json();
    };
    if (!member("label").is_string() || !member("low").is_number() || !member("high").is_number()) {
      continue;
    }
    const auto kind = schema::parse_column_kind(f.value("kind", std::string()));
    figures.push_back({f["label"].get<std::string>(), kind.value_or(schema::ColumnKind::real), f["low"].get<double>(),
                       f["high"].get<double>()});
  }
  return figures;
}

}  // namespace stepscope
