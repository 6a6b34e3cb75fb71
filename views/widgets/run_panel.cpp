#include "widgets/run_panel.h"

#include "core/device.h"
#include "schema/value_format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

#include "model/flops.h"
#include "runners/memory_estimate.h"
#include "widgets/form_fields.h"

namespace stepscope::views {

namespace {

constexpr const char* kCustom = "custom";

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

}  // namespace

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
  preset_ = new QComboBox;
  for (const auto& name : model_preset_names()) preset_->addItem(QString::fromStdString(name));
  preset_->addItem(kCustom);
  preset_->setToolTip(tr("The handout's five sizes, the tiny CPU presets, or a custom shape"));
  d_model_ = help_spin(1, 65536, 768, tr("Model width (d_model); a multiple of the number of heads"));
  d_ff_ = help_spin(1, 262144, 3072, tr("Feed-forward width (d_ff)"));
  layers_ = help_spin(1, 1024, 12, tr("Transformer blocks"));
  heads_ = help_spin(1, 1024, 12, tr("Attention heads"));
  vocab_ = help_spin(2, 1000000, 10000, tr("Vocabulary size"));
  context_ = help_spin(1, 1 << 20, 256, tr("Tokens per sequence"));
  batch_ = help_spin(1, 1 << 16, 4, tr("Sequences per step"));
  warmup_ = help_spin(0, 100000, 5, tr("Steps run before measuring (compilation, caches, autotuning)"));
  steps_ = help_spin(1, 1000000, 10, tr("Steps measured"));
  precision_ = new QComboBox;
  precision_->addItem(tr("fp32"), static_cast<int>(Precision::fp32));
  precision_->addItem(tr("bf16 mixed (autocast)"), static_cast<int>(Precision::bf16));
  precision_->addItem(tr("fp16 mixed (autocast, loss scaling)"), static_cast<int>(Precision::fp16));
  attention_ = new QComboBox;
  attention_->setObjectName("attentionBox");
  attention_->addItem(tr("naive"), static_cast<int>(AttentionImpl::naive));
  attention_->addItem(tr("sdpa (LibTorch 2.x)"), static_cast<int>(AttentionImpl::sdpa));
  attention_->addItem(tr("flash (Stepscope's FlashAttention-2)"), static_cast<int>(AttentionImpl::flash));
  attention_->setToolTip(tr("How the model computes attention: naive keeps the context x context probabilities"));
  mode_ = new QComboBox;
  mode_->addItem(tr("forward"), static_cast<int>(StepMode::forward));
  mode_->addItem(tr("forward + backward"), static_cast<int>(StepMode::forward_backward));
  mode_->addItem(tr("training step"), static_cast<int>(StepMode::train));
  mode_->setCurrentIndex(2);
  device_ = new QComboBox;
  profile_kernels_ = new QCheckBox(tr("kernels (CUPTI; CPU range times without a GPU)"));
  profile_memory_ = new QCheckBox(tr("memory (every allocation and free)"));
  estimate_ = new QLabel;
  estimate_->setWordWrap(true);
  estimate_->setTextFormat(Qt::RichText);
  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #b00020;");
  error_->setObjectName("runPanelError");
  run_ = new QPushButton(tr("Run"));
  run_->setObjectName("runButton");
  run_->setDefault(true);

  auto* model_box = new QGroupBox(tr("Model"));
  auto* model_form = new QFormLayout(model_box);
  model_form->addRow(tr("Preset"), preset_);
  model_form->addRow(tr("d_model"), d_model_);
  model_form->addRow(tr("d_ff"), d_ff_);
  model_form->addRow(tr("Layers"), layers_);
  model_form->addRow(tr("Heads"), heads_);
  model_form->addRow(tr("Vocabulary"), vocab_);
  model_form->addRow(tr("Attention"), attention_);
  auto* run_box = new QGroupBox(tr("Step"));
  auto* run_form = new QFormLayout(run_box);
  run_form->addRow(tr("Context"), context_);
  run_form->addRow(tr("Batch"), batch_);
  run_form->addRow(tr("Precision"), precision_);
  run_form->addRow(tr("Mode"), mode_);
  run_form->addRow(tr("Warm-up steps"), warmup_);
  run_form->addRow(tr("Measured steps"), steps_);
  run_form->addRow(tr("Device"), device_);
  auto* profile_box = new QGroupBox(tr("Profilers"));
  auto* profile_layout = new QVBoxLayout(profile_box);
  profile_layout->addWidget(profile_kernels_);
  profile_layout->addWidget(profile_memory_);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(model_box);
  layout->addWidget(run_box);
  layout->addWidget(profile_box);
  layout->addWidget(estimate_);
  layout->addWidget(error_);
  layout->addWidget(run_);
  layout->addStretch(1);

  set_devices({{"cpu", "CPU", -1}});
  preset_->setCurrentText("tiny");
  on_preset_changed();
  connect(preset_, &QComboBox::currentIndexChanged, this, [this] { on_preset_changed(); });
  for (QSpinBox* box : {d_model_, d_ff_, layers_, heads_, vocab_, context_, batch_, warmup_, steps_}) {
    connect(box, &QSpinBox::valueChanged, this, [this] { refresh(); });
  }
  for (QComboBox* box : {precision_, mode_, device_, attention_}) {
    connect(box, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  }
  for (QCheckBox* box : {profile_kernels_, profile_memory_}) {
    connect(box, &QCheckBox::toggled, this, [this] { refresh(); });
  }
  connect(run_, &QPushButton::clicked, this, [this] { on_run_clicked(); });
}

void RunPanel::set_devices(const std::vector<DeviceChoice>& devices) {
  const QSignalBlocker block(device_);
  devices_ = devices;
  device_->clear();
  for (const auto& d : devices_) {
    QString label = QString::fromStdString(d.id) + " - " + QString::fromStdString(d.name);
    if (d.memory_bytes > 0) label += QStringLiteral(" (%1)").arg(size_text(d.memory_bytes));
    device_->addItem(label, QString::fromStdString(d.id));
  }
  refresh();
}

void RunPanel::on_preset_changed() {
  const bool custom = preset_->currentText() == kCustom;
  for (QSpinBox* box : {d_model_, d_ff_, layers_, heads_, vocab_}) box->setEnabled(custom && !running_);
  if (!custom) {
    const ModelConfig m = model_preset(preset_->currentText().toStdString());
    for (auto [box, value] : {std::pair{d_model_, m.d_model}, {d_ff_, m.d_ff}, {layers_, m.num_layers},
                              {heads_, m.num_heads}, {vocab_, m.vocab_size}}) {
      const QSignalBlocker block(box);
      box->setValue(static_cast<int>(value));
    }
  }
  refresh();
}

void RunPanel::set_config(const BenchConfig& c) {
  {
    const QSignalBlocker block(preset_);
    const int index = preset_->findText(QString::fromStdString(c.model.name));
    preset_->setCurrentIndex(index >= 0 ? index : preset_->findText(kCustom));
  }
  for (auto [box, value] : {std::pair{d_model_, c.model.d_model}, {d_ff_, c.model.d_ff},
                            {layers_, c.model.num_layers}, {heads_, c.model.num_heads}, {vocab_, c.model.vocab_size},
                            {context_, c.context}, {batch_, c.batch}, {warmup_, int64_t{c.warmup_steps}},
                            {steps_, int64_t{c.measured_steps}}}) {
    const QSignalBlocker block(box);
    box->setValue(static_cast<int>(value));
  }
  precision_->setCurrentIndex(precision_->findData(static_cast<int>(c.precision)));
  mode_->setCurrentIndex(mode_->findData(static_cast<int>(c.mode)));
  attention_->setCurrentIndex(attention_->findData(static_cast<int>(c.model.attention)));
  // "cuda" is the first GPU, as the engine reads it.
  const std::string device_id = to_string(Device{c.device.kind, c.device.ordinal()});
  const int device = device_->findData(QString::fromStdString(device_id));
  if (device >= 0) device_->setCurrentIndex(device);
  profile_kernels_->setChecked(c.profile_kernels);
  profile_memory_->setChecked(c.profile_memory);
  on_preset_changed();
}

std::optional<BenchConfig> RunPanel::config(QString* error, std::string* field) const {
  BenchConfig c;
  const bool custom = preset_->currentText() == kCustom;
  c.model = custom ? ModelConfig() : model_preset(preset_->currentText().toStdString());
  c.model.name = preset_->currentText().toStdString();
  c.model.d_model = d_model_->value();
  c.model.d_ff = d_ff_->value();
  c.model.num_layers = layers_->value();
  c.model.num_heads = heads_->value();
  c.model.vocab_size = vocab_->value();
  c.model.attention = static_cast<AttentionImpl>(attention_->currentData().toInt());
  c.context = context_->value();
  c.model = with_context(c.model, c.context);  // as the CLI does
  c.batch = batch_->value();
  c.precision = static_cast<Precision>(precision_->currentData().toInt());
  c.mode = static_cast<StepMode>(mode_->currentData().toInt());
  c.warmup_steps = warmup_->value();
  c.measured_steps = steps_->value();
  c.profile_kernels = profile_kernels_->isChecked();
  c.profile_memory = profile_memory_->isChecked();
  try {
    c.device = parse_device(device_->currentData().toString().toStdString());
    validate(c);
  } catch (const ConfigError& e) {
    if (error) *error = QString::fromStdString(e.what());
    if (field) *field = e.field();
    return std::nullopt;
  }
  return c;
}

const DeviceChoice* RunPanel::selected_device() const {
  const int i = device_->currentIndex();
  return i >= 0 && i < static_cast<int>(devices_.size()) ? &devices_[static_cast<size_t>(i)] : nullptr;
}

// The widgets of a field the engine names by key (ConfigError::field).
std::vector<QWidget*> RunPanel::fields_for(const std::string& key) const {
  const std::pair<const char*, std::vector<QWidget*>> fields[] = {
      {"d_model", {d_model_}}, {"heads", {heads_, d_model_}}, {"d_ff", {d_ff_}},   {"layers", {layers_}},
      {"vocab", {vocab_}},      {"context", {context_}},       {"batch", {batch_}}, {"warmup", {warmup_}},
      {"steps", {steps_}},      {"device", {device_}},         {"precision", {precision_}}, {"mode", {mode_}}};
  for (const auto& [name, widgets] : fields) {
    if (key == name) return widgets;
  }
  return {};
}

void RunPanel::refresh() {
  QString error;
  std::string key;
  const auto c = config(&error, &key);
  error_->setText(c ? QString() : error);
  error_->setVisible(!c.has_value());
  // The field at fault gets a red frame and the message as its tooltip.
  const auto wrong = c ? std::vector<QWidget*>() : fields_for(key);
  flag_fields({d_model_, d_ff_, layers_, heads_, vocab_, context_, batch_, warmup_, steps_, device_, precision_, mode_},
              wrong, error);
  fits_ = true;
  if (c) {
    const MemoryEstimate e = estimate_memory(*c);
    const double flops = step_matmul_flops(c->model, c->batch, c->context, runs_backward(c->mode));
    QString text = tr("<b>%1</b> parameters, <b>%2</b>FLOP per step (matrix multiplies)<br>"
                      "memory, estimated: weights %3, gradients %4, optimizer state %5, "
                      "activations %6; peak about <b>%7</b>")
                       .arg(count(static_cast<double>(e.parameters)), count(flops), size_text(e.weight_bytes),
                            size_text(e.gradient_bytes), size_text(e.optimizer_bytes), size_text(e.activation_bytes),
                            size_text(e.peak_bytes));
    const DeviceChoice* device = selected_device();
    if (device && device->memory_bytes > 0 && e.peak_bytes > device->memory_bytes) {
      fits_ = false;
      text += tr("<br><span style='color:#b00020'>will not fit %1 (%2): expect an out-of-memory result</span>")
                  .arg(QString::fromStdString(device->name), size_text(device->memory_bytes));
    }
    estimate_->setText(text);
  } else {
    estimate_->clear();
  }
  run_->setEnabled(running_ || c.has_value());
  emit config_changed();
}

void RunPanel::on_run_clicked() {
  if (running_) {
    emit cancel_requested();
    return;
  }
  if (const auto c = config()) emit run_requested(*c);
}

void RunPanel::set_running(bool running) {
  running_ = running;
  for (QWidget* w : std::initializer_list<QWidget*>{preset_, attention_, context_, batch_, warmup_, steps_, precision_, mode_,
                                                     device_, profile_kernels_, profile_memory_}) {
    w->setEnabled(!running);
  }
  const bool custom = preset_->currentText() == kCustom;
  for (QSpinBox* box : {d_model_, d_ff_, layers_, heads_, vocab_}) box->setEnabled(custom && !running);
  run_->setText(running ? tr("Cancel") : tr("Run"));
  run_->setEnabled(true);
}

QString RunPanel::estimate_text() const { return estimate_->text(); }
QString RunPanel::error_text() const { return error_->text(); }

}  // namespace stepscope::views
