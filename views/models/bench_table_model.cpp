#include "models/bench_table_model.h"

#include <utility>

#include "models/format.h"

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> bench_columns() {
  const QString phase = QStringLiteral("Mean ± standard deviation over the measured steps; exact and exported: the mean");
  return {
      {"model", false, {}, "Model"},
      {"context", true, {}, "Context"},
      {"batch", true, {}, "Batch"},
      {"precision", false, {}, "Precision"},
      {"mode", false, {}, "Mode"},
      {"status", false, {}, "Status"},
      {"total_mean_ms", true, "Whole step (ms). " + phase, "Step (ms)"},
      {"forward_mean_ms", true, "Forward pass (ms). " + phase, "Forward (ms)"},
      {"backward_mean_ms", true, "Backward pass (ms). " + phase, "Backward (ms)"},
      {"optimizer_mean_ms", true, "Optimizer step (ms). " + phase, "Optimizer (ms)"},
      {"tokens_per_s", true, "Tokens per second", "Tokens/s"},
      {"mfu", true, "Model FLOPs utilisation; shown in %, exact and exported as a fraction", "MFU"},
      {"peak_memory_bytes", true, "Peak memory during the measured steps; shown in MiB, exact and exported in bytes", "Peak memory"},
      {"message", false, {}, "Message"},
  };
}

const PhaseStats& phase_of(const BenchResult& r, int column) {
  switch (column) {
    case BenchTableModel::Forward: return r.forward;
    case BenchTableModel::Backward: return r.backward;
    case BenchTableModel::Optimizer: return r.optimizer;
    default: return r.total;
  }
}

QString text_of(const std::string& text) { return QString::fromStdString(text); }

}  // namespace

BenchTableModel::BenchTableModel(QObject* parent) : TableModel(bench_columns(), parent) {}

int BenchTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(results_.size());
}

void BenchTableModel::set_results(std::vector<BenchResult> results) {
  beginResetModel();
  results_ = std::move(results);
  endResetModel();
}

void BenchTableModel::append_result(BenchResult result) {
  beginInsertRows({}, rowCount(), rowCount());
  results_.push_back(std::move(result));
  endInsertRows();
}

void BenchTableModel::clear() { set_results({}); }

TableModel::Cell BenchTableModel::cell(int row, int column) const {
  const BenchResult& r = result(row);
  // As the CLI decides: a phase the mode does not run has no steps; a failed run measured none.
  const bool measured = r.total.count > 0;
  switch (column) {
    case Model: return text_cell(text_of(r.config.model.name));
    case Context: return integer_cell(r.config.context);
    case Batch: return integer_cell(r.config.batch);
    case Precision: return text_cell(text_of(to_string(r.config.precision)));
    case Mode: return text_cell(text_of(to_string(r.config.mode)));
    case Status: return text_cell(text_of(to_string(r.status)));
    case Total:
    case Forward:
    case Backward:
    case Optimizer: {
      const PhaseStats& stats = phase_of(r, column);
      if (stats.count == 0) return missing_cell();
      return {format_mean_std(stats.mean_ms, stats.std_ms), stats.mean_ms};
    }
    case TokensPerSecond:
      if (!measured) return missing_cell();
      return {QString::number(r.tokens_per_second, 'f', 0), r.tokens_per_second};
    case Mfu:
      if (!measured || r.mfu < 0) return missing_cell();
      return {format_percent(100.0 * r.mfu), r.mfu};
    case PeakMemory: return bytes_cell(r.peak_memory_bytes);
    case Message: return text_cell(text_of(r.message));
    default: return {};
  }
}

QString BenchTableModel::tooltip(int row, int column) const {
  const BenchResult& r = result(row);
  switch (column) {
    case Model: return text_of(describe(r.config) + (r.device_name.empty() ? "" : " on " + r.device_name));
    case Message: return text_of(r.message);
    default: return {};
  }
}

}  // namespace stepscope::views
