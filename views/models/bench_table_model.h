// Benchmark results, one row per configuration: the bench schema's columns (what the CLI's
// CSV holds), the results kept for the charts beside the table.
#pragma once

#include <vector>

#include "models/schema_table_model.h"
#include "runners/bench_types.h"

namespace stepscope::views {

class BenchTableModel : public SchemaTableModel {
  Q_OBJECT

 public:
  explicit BenchTableModel(QObject* parent = nullptr);

  void set_results(std::vector<BenchResult> results);
  // A sweep's next result, as it finishes.
  void append_result(BenchResult result);
  void append_results(std::vector<BenchResult> results);
  void clear();
  const std::vector<BenchResult>& results() const { return results_; }
  const BenchResult& result(int row) const { return results_[static_cast<size_t>(row)]; }
  // The column of a bench schema key; -1 when there is none.
  int column_of(const std::string& key) const { return table().column_index(key); }

 protected:
  QString tooltip(int row, int column) const override;

 private:
  std::vector<BenchResult> results_;
};

}  // namespace stepscope::views
