// The run panel: the step benchmark's form (its inputs as declared, lists making a sweep),
// with the experiment's own widget under it: what the run needs (parameters, FLOP per step,
// memory by kind), whether it fits the device chosen and how long it will take. Its runs fill the result tabs.
#pragma once

#include <QWidget>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runners/bench_types.h"
#include "widgets/experiment_form.h"

class QLabel;

namespace stepscope::views {

class RunPanel : public QWidget {
  Q_OBJECT

 public:
  // `bench`: the step benchmark's descriptor (outlives the panel).
  explicit RunPanel(const ExperimentDescriptor& bench, QWidget* parent = nullptr);

  ExperimentForm& form() const { return *form_; }
  void set_devices(const std::vector<DeviceChoice>& devices);
  // The inputs of a run (the history's, the command line's), to look at or run again.
  void set_values(const schema::InputValues& values);
  // One configuration's inputs (a run recorded before runs kept their inputs).
  void set_config(const BenchConfig& config);
  // The configurations the form describes (several for a sweep); empty, with error_text()
  // saying why and the field at fault framed, when they cannot run.
  std::vector<BenchConfig> configs() const;
  void set_running(bool running);
  // The FLOP/s of the last run on each device (by its id, "cpu", "cuda:0"), from which the
  // panel says how long the configurations will take.
  void set_paces(std::map<std::string, double> flops_per_second);
  bool is_running() const { return form_->is_running(); }
  // What the panel shows under the fields (for tests and the status bar).
  QString estimate_text() const;
  QString error_text() const { return form_->error_text(); }
  bool fits_device() const { return fits_; }

 signals:
  void run_requested(const stepscope::schema::InputValues& values);
  void cancel_requested();
  void config_changed();

 private:
  void refresh();

  ExperimentForm* form_;
  QLabel* estimate_;
  std::vector<DeviceChoice> devices_;
  std::map<std::string, double> paces_;
  std::vector<BenchConfig> configs_;  // of the form as it is, checked
  bool fits_ = true;
};

}  // namespace stepscope::views
