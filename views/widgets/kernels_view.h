// The Kernels tab: where a profiled step's time goes. On a GPU, the live kernel summary of a
// range (nsys' cuda_gpu_kern_sum) with range, text and category filters, the category roll-up,
// and GPU busy time per step. Where no GPU kernels were recorded (a CPU run), the CPU time of
// each range per step (forward, backward, optimizer step and the ranges inside them) and a
// stacked bar of the step by phase and of each phase by range. Either way the shown
// configuration's Perfetto trace exports from here and from the File menu.
#pragma once

#include "models/bench_run_progress.h"
#include "widgets/result_view.h"

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;

namespace stepscope::views {

class CategoryShareModel;
class KernelChartView;
class KernelFilterProxy;
class KernelTableModel;
class OutcomeSelector;
class RangePhaseChartView;
class RangeTimeModel;
class ResultTable;
class StepGpuUsageModel;

class KernelsView : public BenchResultsView {
  Q_OBJECT

 public:
  explicit KernelsView(QWidget* parent = nullptr);
  void clear() override;
  void add_outcome(const RunOutcome& outcome) override;
  void begin_run(const std::vector<BenchConfig>& configs) override;
  void end_run() override;
  void show_live_profile(std::shared_ptr<const profiling::KernelProfile> profile) override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;
  QList<QAction*> file_actions() const override;

  KernelTableModel& kernel_model() { return *kernels_; }
  KernelFilterProxy& kernel_proxy() { return *proxy_; }
  const RangeTimeModel& range_time_model() const { return *range_times_; }
  const RangePhaseChartView& range_phase_chart() const { return *range_chart_; }
  const ResultTable& kernel_table() const { return *kernel_table_; }
  const ResultTable& range_table() const { return *range_table_; }
  // True while the CPU range page shows (no GPU kernels recorded), false for the kernel page.
  bool shows_cpu_ranges() const;
  QString note() const;
  // The shown configuration's Perfetto (Chrome JSON) trace into `path`; false with `error`
  // when it has none (no kernel profiler, or a run reopened from the history) or it cannot be written.
  bool export_trace(const QString& path, QString* error) const;

 private:
  void show_profile(std::shared_ptr<const profiling::KernelProfile> profile);
  void show_cpu_ranges(const profiling::KernelProfile& profile);
  void show_page(int page);
  void refresh_ranges();
  void refresh_trace_action();
  void ask_trace_path();

  OutcomeSelector* selector_;
  QWidget* kernel_controls_;
  QComboBox* range_;
  QLineEdit* filter_;
  QComboBox* category_;
  QCheckBox* short_names_;
  QLabel* note_;
  QStackedWidget* pages_;
  KernelTableModel* kernels_;
  KernelFilterProxy* proxy_;
  CategoryShareModel* categories_;
  StepGpuUsageModel* steps_;
  ResultTable* kernel_table_;
  KernelChartView* category_chart_;
  RangeTimeModel* range_times_;
  ResultTable* range_table_;
  RangePhaseChartView* range_chart_;
  QAction* export_trace_;
  std::shared_ptr<const profiling::KernelProfile> live_;
  BenchRunProgress run_;
};

}  // namespace stepscope::views
