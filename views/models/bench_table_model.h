// Benchmark results, one row per configuration run: what the CLI's bench CSV holds, the
// phases shown as mean ± std.
#pragma once

#include <vector>

#include "models/table_model.h"
#include "runners/bench_types.h"

namespace stepscope::views {

// Headers are the CLI's bench CSV column names; a phase column's exact value is its mean,
// as in that CSV's *_mean_ms column. A phase the mode does not run, and anything a run that
// failed or ran out of memory did not measure, shows "-".
class BenchTableModel : public TableModel {
  Q_OBJECT

 public:
  enum Column {
    Model,
    Context,
    Batch,
    Precision,
    Mode,
    Status,
    Total,
    Forward,
    Backward,
    Optimizer,
    TokensPerSecond,
    Mfu,
    PeakMemory,
    Message,
    ColumnCount,
  };

  explicit BenchTableModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;

  void set_results(std::vector<BenchResult> results);
  // A sweep's next result, as it finishes.
  void append_result(BenchResult result);
  void clear();
  const std::vector<BenchResult>& results() const { return results_; }
  const BenchResult& result(int row) const { return results_[static_cast<size_t>(row)]; }

 protected:
  Cell cell(int row, int column) const override;
  QString tooltip(int row, int column) const override;

 private:
  std::vector<BenchResult> results_;
};

}  // namespace stepscope::views
