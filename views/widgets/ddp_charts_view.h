// The DDP experiments' charts and reading (the DDP tab, above its tables): each row's
// step split into forward, backward, exposed communication and optimizer; the overlap picture
// of a chosen row (per rank: compute and communication lanes); and the bucket overhead model
// read against the run when a collective benchmark's all-reduce rows are at hand (every number
// beside its formula, predicted against measured overhead per bucketed row). Drawn from the
// tables it is given; the form and the tables are the experiment's ExperimentView's.
#pragma once

#include <QPointer>

#include "charts/rank_timeline_view.h"
#include "schema/table.h"
#include "widgets/result_view.h"

class QComboBox;
class QLabel;

namespace stepscope::views {

class DdpStepChartView;

class DdpChartsView : public ResultView {
  Q_OBJECT

 public:
  explicit DdpChartsView(QWidget* parent = nullptr);

  void clear() override;
  // Takes the "ddp", "ddp.timeline" and "collective" tables among `tables` (others are left
  // alone, and a table not among them keeps what it drew): live as rows arrive, or a record's.
  void show_tables(const std::vector<schema::Table>& tables) override;
  std::vector<NamedTable> tables() const override { return {}; }
  std::vector<NamedChart> charts() const override;

  const DdpStepChartView& step_chart() const { return *step_chart_; }
  const RankTimelineView& timeline() const { return *timeline_; }
  QComboBox* timeline_selector() const { return row_selector_; }
  // The overlap picture in a window of its own (opened, or raised when open), sized for its
  // lanes within the screen; it follows the chosen row until closed.
  RankTimelineView* open_overlap_window();
  // The bucket overhead model, or what it needs.
  QString reading() const;

 private:
  void refill_row_selector();
  void redraw_timeline();
  void redraw_reading();

  schema::Table ddp_, timeline_table_, collectives_;
  DdpStepChartView* step_chart_;
  RankTimelineView* timeline_;
  QPointer<RankTimelineView> window_timeline_;  // the open window's, if any
  QComboBox* row_selector_;
  QLabel* reading_;
};

}  // namespace stepscope::views
