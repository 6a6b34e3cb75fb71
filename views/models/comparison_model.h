// Two runs side by side: one row per item and measure, with A, B, their difference and ratio.
// Built from the engine's result types by the compare_* functions below.
#pragma once

#include <optional>
#include <vector>

#include "models/table_model.h"
#include "profiling/kernel_profile.h"
#include "profiling/memory_timeline.h"
#include "runners/bench_types.h"

namespace stepscope::views {

enum class ComparedUnit { milliseconds, nanoseconds, bytes, count, per_second };

struct ComparisonRow {
  QString item;     // "small ctx 256 b 4 fp32 train", a kernel name, a peak label
  QString measure;  // "step (ms)", "total time", "allocated"
  ComparedUnit unit = ComparedUnit::count;
  std::optional<double> a, b;  // missing where one run lacks the item or did not measure it
};

class ComparisonModel : public TableModel {
  Q_OBJECT

 public:
  enum Column { Item, Measure, A, B, Difference, Ratio, ColumnCount };
  explicit ComparisonModel(QObject* parent = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  void set_rows(std::vector<ComparisonRow> rows);
  const std::vector<ComparisonRow>& rows() const { return rows_; }

 protected:
  Cell cell(int row, int column) const override;

 private:
  std::vector<ComparisonRow> rows_;
};

// Configurations are matched by their description (model, context, batch, precision, mode);
// per configuration: the step and each phase (mean ms), tokens/s and peak memory.
std::vector<ComparisonRow> compare_benchmarks(const std::vector<BenchResult>& a, const std::vector<BenchResult>& b);
// Kernels of one range matched by name (full, demangled): total time and instances per step.
std::vector<ComparisonRow> compare_kernels(const profiling::KernelProfile* a, const profiling::KernelProfile* b,
                                           const std::string& range);
// Peaks matched by label: allocated bytes, and each category's bytes where either run holds some.
std::vector<ComparisonRow> compare_memory_peaks(const profiling::MemoryTimeline* a, const profiling::MemoryTimeline* b);

}  // namespace stepscope::views
