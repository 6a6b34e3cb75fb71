// Two runs side by side: one row per item and measure, with A, B, their difference and ratio,
// and a note saying why a figure is missing. Built from the engine's result types by the
// compare_* functions below.
#pragma once

#include <optional>
#include <vector>

#include "models/table_model.h"
#include "profiling/kernel_profile.h"
#include "profiling/memory_timeline.h"
#include "schema/row_pairing.h"
#include "schema/table.h"

namespace stepscope::views {

struct ComparisonRow {
  QString item;     // "small, Context 128 → 256, Batch 4, fp32, train", a kernel name, a peak label
  QString measure;  // "Step (ms)", "total time", "allocated"
  schema::ColumnKind unit = schema::ColumnKind::real;
  std::optional<double> a, b;  // missing where one run lacks the item or did not measure it
  QString note = {};           // why A or B is missing: "B ran without the memory profiler"
};

class ComparisonModel : public TableModel {
  Q_OBJECT

 public:
  enum Column { Item, Measure, A, B, Difference, Ratio, Note, ColumnCount };
  explicit ComparisonModel(QObject* parent = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  void set_rows(std::vector<ComparisonRow> rows);
  const std::vector<ComparisonRow>& rows() const { return rows_; }

 protected:
  Cell cell(int row, int column) const override;

 private:
  std::vector<ComparisonRow> rows_;
};

// Why a run has no data of one kind (no such configuration, no profiler): said beside every
// figure that leaves missing. Empty where that run has it.
struct Absence {
  QString a, b;
};

// Any two tables of one schema: rows paired by their identity columns, also across a changed
// setting (schema/row_pairing.h), one comparison per numeric measure column that either row
// has a value in.
std::vector<ComparisonRow> compare_tables(const schema::Table& a, const schema::Table& b);
// What names a row of `table`: its identity columns, e.g. "small, Context 256, Batch 4, fp32, train".
QString identity_of(const schema::Table& table, size_t row);
// What names a pair: the identity, a changed setting as "Context 128 → 256".
QString identity_of(const schema::Table& a, const schema::Table& b, const schema::RowPair& pair);
// "Context 128 → 256, Precision fp32 → bf16"; empty without changes.
QString changes_text(const schema::Table& a, const std::vector<schema::SettingChange>& changes);
// Kernels of one range matched by name (full, demangled): total time and instances per step.
std::vector<ComparisonRow> compare_kernels(const profiling::KernelProfile* a, const profiling::KernelProfile* b,
                                           const std::string& range, const Absence& absent = {});
// Peaks matched by label: allocated bytes, and each category's bytes where either run holds some.
std::vector<ComparisonRow> compare_memory_peaks(const profiling::MemoryTimeline* a, const profiling::MemoryTimeline* b,
                                                const Absence& absent = {});

}  // namespace stepscope::views
