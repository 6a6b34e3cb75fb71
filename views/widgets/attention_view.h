// The Attention tab: the sweep's form, its table (OOM rows marked), forward + backward time and
// memory before the backward against the sequence length (log-log, one line per
// implementation), and the reading: the smallest configuration that ran out of memory with
// its accounting, formula beside number, and how the memory kept for the backward grows.
#pragma once

#include <string>
#include <vector>

#include "widgets/attention_sweep_form.h"
#include "widgets/result_view.h"

class QComboBox;
class QLabel;

namespace stepscope::views {

class SchemaTableModel;
class SweepChartView;

class AttentionView : public ResultView {
  Q_OBJECT

 public:
  explicit AttentionView(QWidget* parent = nullptr);

  AttentionSweepForm* form() const { return form_; }

  void clear() override;
  void add_outcome(const RunOutcome&) override {}
  // The attention table of a run (live, as rows arrive, or a stored record's).
  void show_tables(const std::vector<schema::Table>& tables) override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;

  const SchemaTableModel& model() const { return *model_; }
  const SweepChartView& time_chart() const { return *time_chart_; }
  const SweepChartView& memory_chart() const { return *memory_chart_; }
  QString reading() const;
  // Charts show one head dim / precision, or all (0 / empty).
  void set_chart_filter(int64_t head_dim, const QString& precision);

 private:
  void redraw_charts();
  void refill_filters();

  AttentionSweepForm* form_;
  SchemaTableModel* model_;
  SweepChartView *time_chart_, *memory_chart_;
  QComboBox *head_dim_filter_, *precision_filter_;
  QLabel* reading_;
  bool user_filtered_ = false;  // someone chose the charts' filter: keep it
};

}  // namespace stepscope::views
