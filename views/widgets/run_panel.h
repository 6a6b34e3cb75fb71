// The run panel: which model, shape, precision, mode, steps, device and profilers; checked
// as the user types, with an estimate of what the run needs and whether it fits the device.
#pragma once

#include <QWidget>

#include <optional>
#include <string>
#include <vector>

#include "runners/bench_types.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace stepscope::views {

struct DeviceChoice {
  std::string id;             // "cpu", "cuda:0", ...
  std::string name;           // "NVIDIA H200", "CPU (16 threads)"
  int64_t memory_bytes = -1;  // total device memory; -1 unknown (the CPU)
};

class RunPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RunPanel(QWidget* parent = nullptr);

  void set_devices(const std::vector<DeviceChoice>& devices);
  // Fills the fields; a preset's name selects the preset, any other name is a custom model.
  void set_config(const BenchConfig& config);
  // The configuration in the fields, or nothing with `error` saying what is wrong and `field`
  // the key of the field at fault (ConfigError::field).
  std::optional<BenchConfig> config(QString* error = nullptr, std::string* field = nullptr) const;
  // While a run goes the fields are locked and Run becomes Cancel.
  void set_running(bool running);
  bool is_running() const { return running_; }
  // What the panel shows under the fields (for tests and the status bar).
  QString estimate_text() const;
  QString error_text() const;
  bool fits_device() const { return fits_; }

 signals:
  void run_requested(const stepscope::BenchConfig& config);
  void cancel_requested();
  void config_changed();

 private:
  void on_preset_changed();
  void refresh();
  void on_run_clicked();
  const DeviceChoice* selected_device() const;
  std::vector<QWidget*> fields_for(const std::string& key) const;

  QComboBox* preset_;
  QSpinBox *d_model_, *d_ff_, *layers_, *heads_, *vocab_;
  QSpinBox *context_, *batch_, *warmup_, *steps_;
  QComboBox *precision_, *mode_, *device_, *attention_;
  QCheckBox *profile_kernels_, *profile_memory_;
  QLabel *estimate_, *error_;
  QPushButton* run_;
  std::vector<DeviceChoice> devices_;
  bool running_ = false;
  bool fits_ = true;
};

}  // namespace stepscope::views
