#include "models/step_gpu_usage_model.h"

#include <string>
#include <utility>

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> step_columns() {
  const QString ns = QStringLiteral("Shown in adaptive units; exact and exported in ns");
  return {
      {"Step", true},
      {"Span (ns)", true, "First GPU activity start to last end within the step; " + ns, "Span"},
      {"Busy (ns)", true, "Union of kernel and copy intervals; " + ns, "Busy"},
      {"Idle (ns)", true, "Gaps between kernels (span - busy); " + ns, "Idle"},
      {"Busy (%)", true, "Busy time of the span"},
      {"Kernels", true},
      {"Avg Kernel (ns)", true, ns, "Avg Kernel"},
      {"Launch Bound", false, "yes: the gaps outweigh the work, kernel launches bound the step"},
  };
}

}  // namespace

StepGpuUsageModel::StepGpuUsageModel(QObject* parent) : KeyedTableModel(step_columns(), parent) {}

void StepGpuUsageModel::set_profile(const profiling::KernelProfile& profile) {
  std::vector<Item> items;
  for (size_t i = 0; i < profile.steps.size(); ++i) {
    items.push_back({static_cast<int>(i), std::to_string(profile.steps[i].step)});
  }
  std::vector<profiling::StepGpuUsage> steps = profile.steps;
  update_items(std::move(items), [&] { steps_ = std::move(steps); });
}

TableModel::Cell StepGpuUsageModel::cell(int row, int column) const {
  const profiling::StepGpuUsage& s = steps_[static_cast<size_t>(item(row))];
  switch (column) {
    case Step: return integer_cell(s.step);
    case Span: return duration_cell(s.span_ns);
    case Busy: return duration_cell(s.busy_ns);
    case Idle: return duration_cell(s.idle_ns);
    case BusyPercent:
      // As the CLI computes it: 0 for a step without GPU activity.
      return percent_cell(s.span_ns > 0 ? 100.0 * static_cast<double>(s.busy_ns) / static_cast<double>(s.span_ns)
                                        : 0.0);
    case Kernels: return integer_cell(s.kernels);
    case AvgKernel: return duration_cell(s.mean_kernel_ns);
    case LaunchBound: return text_cell(s.launch_bound ? QStringLiteral("yes") : QStringLiteral("no"));
    default: return {};
  }
}

}  // namespace stepscope::views
