#include "widgets/distributed_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include <algorithm>
#include <cmath>

#include "distributed/worker_launcher.h"
#include "widgets/form_fields.h"

namespace stepscope::views {

namespace {

QLineEdit* list_field(const QString& text, const QString& tip) {
  auto* field = new QLineEdit(text);
  field->setMinimumWidth(field->fontMetrics().horizontalAdvance(QStringLiteral("1,10,100,1000")) + 16);
  set_help(field, tip);
  return field;
}

}  // namespace

DistributedForm::DistributedForm(QWidget* parent) : QWidget(parent) {
  qRegisterMetaType<DistributedRequest>();
  auto* variant_row = new QWidget;
  auto* variant_layout = new QHBoxLayout(variant_row);
  variant_layout->setContentsMargins(0, 0, 0, 0);
  for (distributed::DdpVariant variant : distributed::all_ddp_variants()) {
    auto* box = new QCheckBox(QString::fromStdString(distributed::to_string(variant)));
    box->setChecked(true);
    variants_.push_back(box);
    variant_layout->addWidget(box);
  }
  variant_box(distributed::DdpVariant::naive)->setToolTip(tr("One all-reduce per gradient after backward"));
  variant_box(distributed::DdpVariant::flat)->setToolTip(tr("One all-reduce of all gradients flattened, after backward"));
  variant_box(distributed::DdpVariant::overlap)->setToolTip(tr("An asynchronous all-reduce per gradient as backward makes it"));
  variant_box(distributed::DdpVariant::bucketed)->setToolTip(tr("Asynchronous all-reduces of gradient buckets, each when full"));
  buckets_ = list_field(QStringLiteral("1,10,100"), tr("Bucket sizes in MiB (bucketed only), a comma list"));
  world_sizes_ = list_field(QStringLiteral("2"), tr("Local worker processes (ranks), a comma list: one run each"));
  backend_ = new QComboBox;
  backend_->addItem(QStringLiteral("gloo"), static_cast<int>(CommBackend::gloo));
  backend_->addItem(QStringLiteral("nccl"), static_cast<int>(CommBackend::nccl));
  device_ = new QComboBox;
  precision_ = new QComboBox;
  for (Precision p : {Precision::fp32, Precision::bf16, Precision::fp16}) {
    precision_->addItem(QString::fromStdString(to_string(p)), static_cast<int>(p));
  }
  set_help(precision_, tr("fp32, or bf16 autocast with fp32 master weights and gradients"));
  model_ = new QComboBox;
  for (const std::string& name : model_preset_names()) model_->addItem(QString::fromStdString(name));
  model_->setCurrentIndex(std::max(0, model_->findText(QStringLiteral("tiny"))));
  set_help(model_, tr("Model preset: the handout's sizes, or the tiny ones that run in seconds on a CPU"));
  context_ = help_spin(1, 1 << 20, 256, tr("Tokens per sequence"));
  batch_ = help_spin(1, 1 << 20, 4, tr("Sequences per rank; the global batch is this times the ranks"));
  warmup_ = help_spin(0, 1000000, 1, tr("Warm-up steps, not measured"));
  steps_ = help_spin(0, 1000000, 5, tr("Measured steps"));
  check_ = new QCheckBox(tr("check"));
  check_->setToolTip(tr("--check: then train one process on the whole global batches and report the largest "
                        "parameter difference"));
  run_ = new QPushButton(tr("Run"));
  run_->setObjectName("distributedRunButton");
  error_ = make_error_line();

  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  const auto add = [&](const QString& label, QWidget* w) { return add_labelled_column(grid, label, w); };
  add(tr("Variants"), variant_row);
  add(tr("Buckets (MiB)"), buckets_);
  add(tr("Ranks"), world_sizes_);
  add(tr("Backend"), backend_);
  add(tr("Model"), model_);
  add(tr("Context"), context_);
  add(tr("Batch/rank"), batch_);
  add(tr("Precision"), precision_);
  add(tr("Warm-up"), warmup_);
  add(tr("Steps"), steps_);
  add(tr("Device"), device_);
  add(QString(), check_);
  const int run_column = grid->columnCount();
  grid->addWidget(run_, 1, run_column);
  grid->addWidget(error_, 2, 0, 1, run_column + 1);
  set_devices({{"cpu", "CPU", -1}});

  for (QCheckBox* box : variants_) connect(box, &QCheckBox::toggled, this, &DistributedForm::refresh);
  for (QLineEdit* field : {buckets_, world_sizes_}) connect(field, &QLineEdit::textChanged, this, &DistributedForm::refresh);
  for (QComboBox* box : {backend_, device_, model_, precision_}) {
    connect(box, &QComboBox::currentIndexChanged, this, &DistributedForm::refresh);
  }
  for (QSpinBox* box : {context_, batch_, warmup_, steps_}) connect(box, &QSpinBox::valueChanged, this, &DistributedForm::refresh);
  connect(run_, &QPushButton::clicked, this, [this] {
    if (running_) {
      emit cancel_requested();
    } else if (const auto r = request()) {
      emit run_requested(*r);
    }
  });
  refresh();
}

void DistributedForm::set_devices(const std::vector<DeviceChoice>& devices) {
  device_->clear();
  device_->addItem(QStringLiteral("cpu - CPU"), QStringLiteral("cpu"));
  const bool gpus = std::any_of(devices.begin(), devices.end(), [](const DeviceChoice& d) { return d.id != "cpu"; });
  if (gpus) device_->addItem(tr("cuda - each rank its own GPU"), QStringLiteral("cuda"));
}

std::optional<DistributedRequest> DistributedForm::request(QString* error, std::string* field) const {
  DistributedRequest r;
  try {
    r.spec.variants.clear();
    for (size_t i = 0; i < variants_.size(); ++i) {
      if (variants_[i]->isChecked()) r.spec.variants.push_back(distributed::all_ddp_variants()[i]);
    }
    if (r.spec.variants.empty()) throw ConfigError("choose at least one variant", "variant");
    const bool bucketed = variant_box(distributed::DdpVariant::bucketed)->isChecked();
    r.spec.bucket_mbs.clear();
    if (bucketed) {
      r.spec.bucket_mbs = parse_number_list(buckets_->text(), "bucket-mb", "bucket sizes",
                                            "a positive number of MiB (give a comma list, e.g. 1,10,100)",
                                            std::nextafter(0.0, 1.0), 1 << 20, false);
    }
    const std::string ranks = "a whole number from 1 to " + std::to_string(distributed::kMaxLocalWorkers);
    r.world_sizes.clear();
    for (double n : parse_number_list(world_sizes_->text(), "nproc", "ranks", ranks, 1, distributed::kMaxLocalWorkers, true)) {
      r.world_sizes.push_back(static_cast<int64_t>(n));
    }
    DdpConfig& base = r.spec.base;
    base.backend = static_cast<CommBackend>(backend_->currentData().toInt());
    base.device = device_->currentData().toString().toStdString();
    base.model = model_preset(model_->currentText().toStdString());
    base.context = context_->value();
    base.batch = batch_->value();
    base.precision = static_cast<Precision>(precision_->currentData().toInt());
    base.warmup_steps = warmup_->value();
    base.measured_steps = steps_->value();
    base.check = check_->isChecked();
    for (int64_t n : r.world_sizes) {
      for (const DdpConfig& c : expand(r.spec, static_cast<int>(n))) validate(c);
    }
  } catch (const ConfigError& e) {
    if (error) *error = QString::fromStdString(e.what());
    if (field) *field = e.field();
    return std::nullopt;
  }
  return r;
}

std::vector<QWidget*> DistributedForm::all_fields() const {
  std::vector<QWidget*> out{buckets_, world_sizes_, backend_, device_, model_, context_, batch_, precision_, warmup_, steps_};
  out.insert(out.end(), variants_.begin(), variants_.end());
  return out;
}

std::vector<QWidget*> DistributedForm::fields_for(const std::string& key) const {
  if (key == "variant") return {variants_.begin(), variants_.end()};
  const std::pair<const char*, QWidget*> fields[] = {
      {"bucket-mb", buckets_}, {"nproc", world_sizes_}, {"backend", backend_},  {"device", device_},
      {"context", context_},   {"context_length", context_}, {"batch", batch_}, {"warmup", warmup_},
      {"steps", steps_},       {"precision", precision_}};
  for (const auto& [name, widget] : fields) {
    if (key == name) return {widget};
  }
  return {model_};  // what is left is the model's own shape
}

void DistributedForm::refresh() {
  QString error;
  std::string key;
  const auto r = request(&error, &key);
  show_form_check(error_, run_, all_fields(), r ? std::vector<QWidget*>() : fields_for(key), error, r.has_value(),
                  running_);
  buckets_->setEnabled(!running_ && variant_box(distributed::DdpVariant::bucketed)->isChecked());
}

void DistributedForm::set_running(bool running) {
  running_ = running;
  show_form_running(all_fields(), run_, running);
  check_->setEnabled(!running);
  refresh();
}

QString DistributedForm::error_text() const { return error_->text(); }

}  // namespace stepscope::views
