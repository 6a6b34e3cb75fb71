// The kernels of one range of a kernel profile, with the columns of Nsight Systems'
// cuda_gpu_kern_sum (and of the CLI's kernel summary CSV).
#pragma once

#include <string>
#include <vector>

#include "models/range_summary_model.h"

namespace stepscope::views {

// Durations show in adaptive units ("1.23 ms") and are exact in ns. Name shows the short
// name (templates and arguments folded) or the full one; its tooltip is always the full name.
class KernelTableModel : public RangeSummaryModel {
  Q_OBJECT

 public:
  enum Column {
    TimePercent,
    TotalTime,
    Instances,
    Avg,
    Med,
    Min,
    Max,
    StdDev,
    InstancesPerStep,
    Category,
    Name,
    ColumnCount,
  };

  explicit KernelTableModel(QObject* parent = nullptr);

  // Short names by default; a kernel without a short name shows its full name either way.
  void set_short_names(bool short_names);
  bool short_names() const { return short_names_; }

  // The kernel a row shows, and the name its Name cell shows: for KernelFilterProxy, which
  // sorts and filters on them directly, and for detail panes.
  const profiling::KernelStats& kernel(int row) const;
  const std::string& shown_name(const profiling::KernelStats& kernel) const;

 protected:
  Cell cell(int row, int column) const override;
  QString tooltip(int row, int column) const override;
  std::vector<Item> items_of(const profiling::RangeKernelSummary& summary) const override;

 private:
  bool short_names_ = true;
};

}  // namespace stepscope::views
