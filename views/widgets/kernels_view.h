// The Kernels tab: the live kernel summary of a range (nsys' cuda_gpu_kern_sum) with
// range, text and category filters, the category roll-up, and GPU busy time per step.
#pragma once

#include "widgets/result_view.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace stepscope::views {

class CategoryShareModel;
class KernelChartView;
class KernelFilterProxy;
class KernelTableModel;
class OutcomeSelector;
class ResultTable;
class StepGpuUsageModel;

class KernelsView : public BenchResultsView {
  Q_OBJECT

 public:
  explicit KernelsView(QWidget* parent = nullptr);
  void clear() override;
  void add_outcome(const RunOutcome& outcome) override;
  void show_live_profile(std::shared_ptr<const profiling::KernelProfile> profile) override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;

  KernelTableModel& kernel_model() { return *kernels_; }
  KernelFilterProxy& kernel_proxy() { return *proxy_; }

 private:
  void show_profile(std::shared_ptr<const profiling::KernelProfile> profile);
  void refresh_ranges();

  OutcomeSelector* selector_;
  QComboBox* range_;
  QLineEdit* filter_;
  QComboBox* category_;
  QCheckBox* short_names_;
  QLabel* note_;
  KernelTableModel* kernels_;
  KernelFilterProxy* proxy_;
  CategoryShareModel* categories_;
  StepGpuUsageModel* steps_;
  ResultTable* kernel_table_;
  KernelChartView* category_chart_;
  std::shared_ptr<const profiling::KernelProfile> live_;
};

}  // namespace stepscope::views
