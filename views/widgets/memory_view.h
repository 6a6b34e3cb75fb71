// The Memory tab: the active-memory timeline (stacked by category, phase bands, peaks),
// the peaks per phase, and the largest allocations above a size threshold.
#pragma once

#include "widgets/result_view.h"

class QLabel;
class QSlider;

namespace stepscope::views {

class LargestAllocationsModel;
class MemoryChartView;
class MemoryPeaksModel;
class OutcomeSelector;

class MemoryView : public BenchResultsView {
  Q_OBJECT

 public:
  explicit MemoryView(QWidget* parent = nullptr);
  void clear() override;
  void add_outcome(const RunOutcome& outcome) override;
  void prepare_export() override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void refresh();
  void show_outcome(const RunOutcome* outcome);
  void on_threshold_changed(int position);

  OutcomeSelector* selector_;
  QLabel* note_;
  QSlider* threshold_;
  QLabel* threshold_label_;
  MemoryChartView* chart_;
  MemoryPeaksModel* peaks_;
  LargestAllocationsModel* largest_;
  bool stale_ = false;  // the selection changed while hidden
};

}  // namespace stepscope::views
