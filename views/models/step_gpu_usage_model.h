// GPU busy and idle time per measured step: whether the GPU or kernel launches bound a step.
#pragma once

#include <vector>

#include "models/keyed_table_model.h"
#include "profiling/kernel_profile.h"

namespace stepscope::views {

// One row per step of the profile, matched by step number when a newer profile comes.
class StepGpuUsageModel : public KeyedTableModel {
  Q_OBJECT

 public:
  enum Column { Step, Span, Busy, Idle, BusyPercent, Kernels, AvgKernel, LaunchBound, ColumnCount };

  explicit StepGpuUsageModel(QObject* parent = nullptr);

  // Keeps a copy of the profile's steps.
  void set_profile(const profiling::KernelProfile& profile);

 protected:
  Cell cell(int row, int column) const override;

 private:
  std::vector<profiling::StepGpuUsage> steps_;
};

}  // namespace stepscope::views
