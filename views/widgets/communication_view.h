// The Communication tab: the collective benchmark's form (backend, world sizes, collectives,
// sizes, element types, iterations, device; checked as typed), its table (nccl-tests' columns)
// and bus bandwidth against size, one line per collective and world size, log-log.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiments/collectives/collective_sweep_spec.h"
#include "widgets/result_view.h"
#include "widgets/run_panel.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace stepscope::views {

class SchemaTableModel;
class SweepChartView;

struct CommunicationRequest {
  CollectiveSweepSpec spec;
  std::vector<int64_t> world_sizes{2};  // one run of local workers per value
};

class CommunicationView : public ResultView {
  Q_OBJECT

 public:
  explicit CommunicationView(QWidget* parent = nullptr);

  void set_devices(const std::vector<DeviceChoice>& devices);
  // The run in the fields, or nothing with `error` naming the field (`field`: its key).
  std::optional<CommunicationRequest> request(QString* error = nullptr, std::string* field = nullptr) const;
  void set_running(bool running);

  void clear() override;
  void add_outcome(const RunOutcome&) override {}
  void show_tables(const std::vector<schema::Table>& tables) override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;

  const SchemaTableModel& model() const { return *model_; }
  const SweepChartView& chart() const { return *chart_; }
  QLineEdit* sizes_field() const { return sizes_; }
  QLineEdit* world_sizes_field() const { return world_sizes_; }
  QSpinBox* iters_field() const { return iters_; }
  QPushButton* run_button() const { return run_; }
  QString error_text() const;

 signals:
  void run_requested(const stepscope::views::CommunicationRequest& request);
  void cancel_requested();

 private:
  void refresh();
  std::vector<QWidget*> fields() const;

  QComboBox *backend_, *device_;
  QLineEdit *world_sizes_, *sizes_;
  std::vector<QCheckBox*> ops_, dtypes_;
  QSpinBox *warmup_, *iters_;
  QPushButton* run_;
  QLabel* error_;
  SchemaTableModel* model_;
  SweepChartView* chart_;
  bool running_ = false;
};

}  // namespace stepscope::views

Q_DECLARE_METATYPE(stepscope::views::CommunicationRequest)
