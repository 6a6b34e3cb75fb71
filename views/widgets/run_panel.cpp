#include "widgets/run_panel.h"

#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

#include "core/config_error.h"
#include "core/device.h"
#include "experiments/bench/bench_duration.h"
#include "experiments/bench/bench_inputs.h"
#include "model/flops.h"
#include "runners/memory_estimate.h"
#include "schema/value_format.h"

namespace stepscope::views {

namespace {

QString size_text(int64_t bytes) { return QString::fromStdString(schema::bytes_text(static_cast<double>(bytes))); }

QString count(double value) {
  const char* units[] = {"", "K", "M", "G", "T", "P"};
  int unit = 0;
  while (value >= 1000.0 && unit < 5) {
    value /= 1000.0;
    ++unit;
  }
  return QString::number(value, 'f', unit == 0 ? 0 : 2) + units[unit];
}

// What one configuration needs, in a line or two.
QString needs(const BenchConfig& c, const MemoryEstimate& e) {
  const double flops = step_matmul_flops(c.model, c.batch, c.context, runs_backward(c.mode));
  return QObject::tr("<b>%1</b> parameters, <b>%2</b>FLOP per step (matrix multiplies)<br>"
                     "memory, estimated: weights %3, gradients %4, optimizer state %5, "
                     "activations %6; peak about <b>%7</b>")
      .arg(count(static_cast<double>(e.parameters)), count(flops), size_text(e.weight_bytes),
           size_text(e.gradient_bytes), size_text(e.optimizer_bytes), size_text(e.activation_bytes),
           size_text(e.peak_bytes));
}

}  // namespace

RunPanel::RunPanel(const ExperimentDescriptor& bench, QWidget* parent) : QWidget(parent) {
  // Its CSV files' options are the command line's; the tabs export their own tables.
  ExperimentForm::Options options;
  options.left_out = {"short-names", "memory-points"};
  options.columns = {1, 2};  // a side panel: the result tabs keep the width
  form_ = new ExperimentForm(bench, options);
  estimate_ = new QLabel;
  estimate_->setObjectName("memoryEstimate");
  estimate_->setWordWrap(true);
  estimate_->setTextFormat(Qt::RichText);
  form_->add_widget(estimate_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 0, 6, 6);  // in a dock, which has no margins of its own
  layout->addWidget(form_);
  connect(form_, &ExperimentForm::changed, this, [this] { refresh(); });
  connect(form_, &ExperimentForm::run_requested, this, &RunPanel::run_requested);
  connect(form_, &ExperimentForm::cancel_requested, this, &RunPanel::cancel_requested);
  // The embedded default: a model the CPU steps in a moment.
  schema::InputValues start(*bench.inputs);
  start.set("model", "tiny");
  form_->set_values(start);
}

void RunPanel::set_devices(const std::vector<DeviceChoice>& devices) {
  devices_ = devices;
  form_->set_devices(devices);
}

void RunPanel::set_values(const schema::InputValues& values) { form_->set_values(values); }

void RunPanel::set_config(const BenchConfig& config) { form_->set_values(bench_values(config)); }

void RunPanel::set_paces(std::map<std::string, double> flops_per_second) {
  paces_ = std::move(flops_per_second);
  refresh();
}

std::vector<BenchConfig> RunPanel::configs() const { return configs_; }

void RunPanel::set_running(bool running) { form_->set_running(running); }

QString RunPanel::estimate_text() const { return estimate_->text(); }

void RunPanel::refresh() {
  configs_.clear();
  fits_ = true;
  if (const auto values = form_->checked_values()) {
    try {
      configs_ = expand(bench_spec(*values));
    } catch (const ConfigError& e) {
      form_->form()->show_error(input_key(*form_->descriptor().inputs, e.field()), QString::fromStdString(e.what()));
    }
  }
  if (configs_.empty()) {
    estimate_->clear();
    emit config_changed();
    return;
  }
  // A sweep is said by its largest configuration: the one that decides whether it fits.
  size_t largest = 0;
  std::vector<MemoryEstimate> estimates;
  for (size_t i = 0; i < configs_.size(); ++i) {
    estimates.push_back(estimate_memory(configs_[i]));
    if (estimates[i].peak_bytes > estimates[largest].peak_bytes) largest = i;
  }
  const BenchConfig& c = configs_[largest];
  const MemoryEstimate& e = estimates[largest];
  QString text = needs(c, e);
  if (configs_.size() > 1) {
    text = tr("<b>%1</b> configurations; the largest, %2:<br>")
               .arg(configs_.size())
               .arg(QString::fromStdString(describe(c)).toHtmlEscaped()) +
           text;
  }
  const int ordinal = c.device.ordinal();
  for (const DeviceChoice& device : devices_) {
    const bool chosen = parse_device(device.id).ordinal() == ordinal;
    if (chosen && device.memory_bytes > 0 && e.peak_bytes > device.memory_bytes) {
      fits_ = false;
      text += tr("<br><span style='color:#b00020'>will not fit %1 (%2): expect an out-of-memory result</span>")
                  .arg(QString::fromStdString(device.name), size_text(device.memory_bytes));
    }
  }
  const std::string device = to_string(c.device);
  const auto pace = paces_.find(device);
  if (pace != paces_.end() && pace->second > 0) {
    const double seconds = estimated_run_seconds(configs_, pace->second);
    text += tr("<br>takes about <b>%1</b> at the pace of the last run on %2 (%3FLOP/s)")
                .arg(QString::fromStdString(schema::duration_ns_text(seconds * 1e9)), QString::fromStdString(device),
                     count(pace->second));
  } else {
    text += tr("<br>how long it takes: known after a first run on %1").arg(QString::fromStdString(device));
  }
  estimate_->setText(text);
  emit config_changed();
}

}  // namespace stepscope::views
