// The tab of an experiment declared by a descriptor: its form (built from the input schema,
// checked as typed, together by the descriptor's check), Run/Cancel, the progress line, its
// tables (one sub-tab each, side tables included) and reading, and the experiment's charts
// where a view of them is given. One class for every table experiment (hotspot's way: the
// generic widget owns the Qt plumbing). An item of a choice list's default that the
// descriptor's check refuses on its own here (sdpa where LibTorch has none) is left out of the
// default the form ticks, its tooltip saying why.
//
// A job of ranks (runs_as_ranks) runs here as local workers of stepscope-cli, which write no
// files of their own: each --nproc value is checked against what one machine starts, and
// path inputs (files the command line's launcher writes, such as ddp --trace) get no field.
#pragma once

#include <QString>

#include <memory>
#include <optional>
#include <vector>

#include "experiments/experiment_descriptor.h"
#include "widgets/result_view.h"
#include "widgets/experiment_form.h"

class QLabel;
class QPushButton;
class QTabWidget;

namespace stepscope::views {

class SchemaTableModel;

class ExperimentView : public ResultView {
  Q_OBJECT

 public:
  // `descriptor` outlives the view. `charts` (optional, owned) shows the experiment's charts;
  // it receives the tables too.
  explicit ExperimentView(const ExperimentDescriptor& descriptor, ResultView* charts = nullptr,
                          QWidget* parent = nullptr);

  const ExperimentDescriptor& descriptor() const { return descriptor_; }
  InputForm* form() const;
  void set_devices(const std::vector<DeviceChoice>& devices);
  // While it runs the form is disabled and Run reads Cancel.
  void set_running(bool running);
  bool is_running() const;
  // Progress and outcomes, under the form.
  void show_status(const QString& text);
  QString status_text() const;
  // How a run that did not finish ended, above its tables (which keep the rows it measured),
  // until the next run of this tab or another record clears the tab.
  void show_failure(const QString& message);
  QString failure_text() const;
  // A run reopened from the history: its inputs, to look at or run again.
  void set_values(const schema::InputValues& values);
  // Presses Run as a user would: false (the form saying why) when the inputs cannot run.
  bool request_run();

  void clear() override;
  // The tables of this experiment's schemas among `tables`; others are not its own. The charts
  // and the reading get them as the tables show them (columns matched by key).
  void show_tables(const std::vector<schema::Table>& tables) override;
  // Tables another experiment measured that this one's charts read beside its own (the DDP
  // bucket overhead model fits the all-reduce rows the Collectives tab measured). They stay
  // through clear() (a new run, another record) until the next ones come; not exported.
  void show_linked_tables(const std::vector<schema::Table>& tables);
  void prepare_export() override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;
  QString reading() const;
  const SchemaTableModel& table_model(size_t index) const { return *models_.at(index); }

 signals:
  void run_requested(const stepscope::schema::InputValues& values);
  void cancel_requested();
  // Run was pressed (or request_run called) for inputs that cannot run: why, as the status says.
  void run_refused(const QString& why);

 private:
  const ExperimentDescriptor& descriptor_;
  ResultView* charts_;
  ExperimentForm* form_;
  QLabel* reading_;
  class FailureBanner* failure_;
  QTabWidget* table_tabs_;
  std::vector<SchemaTableModel*> models_;
  std::vector<schema::Table> linked_;
};

}  // namespace stepscope::views
