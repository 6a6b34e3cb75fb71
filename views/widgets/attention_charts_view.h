// The Attention tab's charts, above its table in the experiment's tab (ExperimentView): forward
// + backward time and memory in use before the backward against the sequence length (log-log,
// one line per implementation, OOM marked on the x axis), with a head dim and precision filter.
// Drawn from the attention table it is given; the table, the form and the memory reading are
// the experiment tab's.
#pragma once

#include <vector>

#include "schema/table.h"
#include "widgets/result_view.h"

class QComboBox;
class QLabel;

namespace stepscope::views {

class SweepChartView;

class AttentionChartsView : public ResultView {
  Q_OBJECT

 public:
  explicit AttentionChartsView(QWidget* parent = nullptr);

  void clear() override;
  // The attention table of a run (live, as rows arrive, or a stored record's); others are not its.
  void show_tables(const std::vector<schema::Table>& tables) override;
  // The table is the experiment tab's to export; the charts are these.
  std::vector<NamedTable> tables() const override { return {}; }
  std::vector<NamedChart> charts() const override;

  const schema::Table& table() const { return table_; }
  const SweepChartView& time_chart() const { return *time_chart_; }
  const SweepChartView& memory_chart() const { return *memory_chart_; }
  // Charts show one head dim / precision, or all (0 / empty).
  void set_chart_filter(int64_t head_dim, const QString& precision);
  // What the line above the charts says about them ("" when the charts speak for themselves).
  QString note() const;

 private:
  void redraw_charts();
  void refill_filters();

  schema::Table table_;
  SweepChartView *time_chart_, *memory_chart_;
  QComboBox *head_dim_filter_, *precision_filter_;
  QLabel* note_;
  bool user_filtered_ = false;  // someone chose the charts' filter: keep it
};

}  // namespace stepscope::views
