#include "models/bench_table_model.h"

#include <utility>

#include "experiments/bench/bench_schema.h"

namespace stepscope::views {

BenchTableModel::BenchTableModel(QObject* parent) : SchemaTableModel(bench_schema().columns(), parent) {}

void BenchTableModel::set_results(std::vector<BenchResult> results) {
  std::vector<std::vector<schema::Value>> rows;
  for (const auto& r : results) rows.push_back(bench_schema().values(r));
  results_ = std::move(results);
  set_rows(std::move(rows));
}

void BenchTableModel::append_result(BenchResult result) {
  auto row = bench_schema().values(result);
  results_.push_back(std::move(result));
  append_row(std::move(row));
}

void BenchTableModel::append_results(std::vector<BenchResult> results) {
  std::vector<std::vector<schema::Value>> rows;
  rows.reserve(results.size());
  for (auto& r : results) {
    rows.push_back(bench_schema().values(r));
    results_.push_back(std::move(r));
  }
  append_rows(std::move(rows));
}

void BenchTableModel::clear() { set_results({}); }

QString BenchTableModel::tooltip(int row, int column) const {
  const BenchResult& r = result(row);
  const std::string& key = table().columns[static_cast<size_t>(column)].key;
  if (key == "model") return QString::fromStdString(describe(r) + (r.device_name.empty() ? "" : " on " + r.device_name));
  if (key == "message") return QString::fromStdString(r.message);
  return {};
}

}  // namespace stepscope::views
