// The Distributed tab: the DDP experiments' form, their table, each row's step split into
// forward, backward, exposed communication and optimizer, the overlap picture of a chosen row
// (per rank: compute and communication lanes), and the bucket overhead model read against the
// run when a collective benchmark's all-reduce rows are at hand (every number beside its
// formula, predicted against measured overhead per bucketed row).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "widgets/distributed_form.h"
#include "widgets/result_view.h"

class QComboBox;
class QLabel;

namespace stepscope::views {

class DdpStepChartView;
class RankTimelineView;
class SchemaTableModel;

class DistributedView : public ResultView {
  Q_OBJECT

 public:
  explicit DistributedView(QWidget* parent = nullptr);

  DistributedForm* form() const { return form_; }
  void set_devices(const std::vector<DeviceChoice>& devices);
  std::optional<DistributedRequest> request(QString* error = nullptr, std::string* field = nullptr) const;
  void set_running(bool running);

  void clear() override;
  void add_outcome(const RunOutcome&) override {}
  // Takes the "ddp", "ddp.timeline", "ddp.memory" and "collective" tables among `tables` (others are left
  // alone, and a table not among them keeps what it showed): live as rows arrive, or a record's.
  void show_tables(const std::vector<schema::Table>& tables) override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;

  const SchemaTableModel& model() const { return *model_; }
  const SchemaTableModel& timeline_model() const { return *timeline_model_; }
  const SchemaTableModel& memory_model() const { return *memory_model_; }
  const DdpStepChartView& step_chart() const { return *step_chart_; }
  const RankTimelineView& timeline() const { return *timeline_; }
  QComboBox* timeline_selector() const { return row_selector_; }
  QString reading() const;

 signals:
  void run_requested(const stepscope::views::DistributedRequest& request);
  void cancel_requested();

 private:
  void refill_row_selector();
  void redraw_timeline();
  void redraw_reading();

  DistributedForm* form_;
  SchemaTableModel *model_, *timeline_model_, *memory_model_;
  schema::Table collectives_;
  DdpStepChartView* step_chart_;
  RankTimelineView* timeline_;
  QComboBox* row_selector_;
  QLabel* reading_;
};

}  // namespace stepscope::views
