// The Precision tab: the handout's two precision questions, run here. Accumulation: the sums
// of 0.01 in each precision and method. Autocast: the dtype of every tensor of a model under
// autocast. Each table with its plain-language reading, exportable like every table.
#pragma once

#include <string>
#include <vector>

#include "widgets/result_view.h"
#include "widgets/run_panel.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace stepscope::views {

class SchemaTableModel;

class PrecisionView : public ResultView {
  Q_OBJECT

 public:
  explicit PrecisionView(QWidget* parent = nullptr);

  void set_devices(const std::vector<DeviceChoice>& devices);
  // While an experiment runs its buttons are disabled.
  void set_running(bool running);

  // The window shows one run: a new one, or a record opened, replaces these tables too.
  void clear() override;
  void add_outcome(const RunOutcome&) override {}
  void show_tables(const std::vector<schema::Table>& tables) override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override { return {}; }

  const SchemaTableModel& accumulation_model() const { return *accumulation_; }
  const SchemaTableModel& autocast_model() const { return *autocast_; }
  QString accumulation_reading() const;
  QString autocast_reading() const;

 signals:
  void accumulation_requested();
  // model: "toy" or a preset; precision: "bf16" or "fp16"; device: "cpu", "cuda:0", ...
  void autocast_requested(const QString& model, const QString& precision, const QString& device);

 private:
  SchemaTableModel* accumulation_;
  SchemaTableModel* autocast_;
  QLabel *accumulation_reading_, *autocast_reading_;
  QComboBox *model_, *precision_, *device_;
  QPushButton *accumulate_button_, *autocast_button_;
};

}  // namespace stepscope::views
