#include "widgets/attention_sweep_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include <algorithm>

#include "widgets/form_fields.h"

namespace stepscope::views {

namespace {

QLineEdit* list_field(const QString& text, const QString& tip) {
  auto* field = new QLineEdit(text);
  field->setMinimumWidth(field->fontMetrics().horizontalAdvance(QStringLiteral("256,1024,4096,16384")) + 16);
  set_help(field, tip);
  return field;
}

// "16, 32,64" -> {16, 32, 64}; throws ConfigError naming `key` for anything else.
std::vector<int64_t> parse_list(const QString& text, const std::string& key, const std::string& what) {
  std::vector<int64_t> out;
  for (const QString& part : text.split(QLatin1Char(','))) {
    const QString item = part.trimmed();
    bool ok = false;
    const qlonglong value = item.toLongLong(&ok);
    if (!ok || value <= 0) {
      throw ConfigError(what + ": '" + item.toStdString() + "' is not a positive whole number (give a comma list, "
                        "e.g. 256,1024)", key);
    }
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  return out;
}

const AttentionImpl kImpls[] = {AttentionImpl::naive, AttentionImpl::sdpa, AttentionImpl::flash};
const Precision kPrecisions[] = {Precision::fp32, Precision::bf16, Precision::fp16};

}  // namespace

AttentionSweepForm::AttentionSweepForm(QWidget* parent) : QWidget(parent) {
  qRegisterMetaType<AttentionSweepSpec>();
  auto* impl_row = new QHBoxLayout;
  for (AttentionImpl impl : kImpls) {
    auto* box = new QCheckBox(QString::fromStdString(to_string(impl)));
    box->setChecked(impl != AttentionImpl::sdpa);
    box->setToolTip(impl == AttentionImpl::naive  ? tr("softmax(QK^T/sqrt(d))V in LibTorch ops; keeps the s x s probabilities")
                    : impl == AttentionImpl::sdpa ? tr("LibTorch's scaled_dot_product_attention (LibTorch 2.x)")
                                                  : tr("Stepscope's FlashAttention-2: CUDA kernels on a GPU, the tiled reference on the CPU"));
    impls_.push_back(box);
    impl_row->addWidget(box);
  }
  auto* precision_row = new QHBoxLayout;
  for (Precision p : kPrecisions) {
    auto* box = new QCheckBox(QString::fromStdString(to_string(p)));
    box->setChecked(p == Precision::fp32);
    precisions_.push_back(box);
    precision_row->addWidget(box);
  }
  batch_ = help_spin(1, 1 << 20, 8, tr("Batch size (the seeds use 8)"));
  heads_ = help_spin(1, 4096, 1, tr("Heads; 1 is the seeds' (batch, seq, d) inputs with no head dimension"));
  head_dims_ = list_field(QStringLiteral("16,32,64,128"), tr("Head dims, a comma list"));
  seqs_ = list_field(QStringLiteral("256,1024,4096"), tr("Sequence lengths, a comma list (the seeds: 256 to 16384)"));
  causal_ = new QCheckBox(tr("causal"));
  causal_->setToolTip(tr("Top-left causal mask: query i sees keys 0..i"));
  warmup_ = help_spin(0, 100000, 2, tr("Warm-up passes, not measured"));
  steps_ = help_spin(1, 100000, 10, tr("Measured forward and backward passes (the seeds use 100)"));
  rounds_ = help_spin(0, 100000, 0,
                      tr("Rounds the passes are split into, the implementations of a shape taking turns so that a "
                         "drift of the machine falls on all of them alike; auto: 5 when comparing implementations"));
  rounds_->setSpecialValueText(tr("auto"));
  device_ = new QComboBox;
  run_ = new QPushButton(tr("Run"));
  run_->setObjectName("attentionRunButton");
  error_ = make_error_line();

  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  const auto add = [&](const QString& label, QWidget* w) { return add_labelled_column(grid, label, w); };
  auto* impls = new QWidget;
  impls->setLayout(impl_row);
  impl_row->setContentsMargins(0, 0, 0, 0);
  auto* precisions = new QWidget;
  precisions->setLayout(precision_row);
  precision_row->setContentsMargins(0, 0, 0, 0);
  add(tr("Implementations"), impls);
  add(tr("Batch"), batch_);
  add(tr("Heads"), heads_);
  add(tr("Head dims"), head_dims_);
  add(tr("Sequence lengths"), seqs_);
  add(tr("Precisions"), precisions);
  add(QString(), causal_);
  add(tr("Warm-up"), warmup_);
  add(tr("Passes"), steps_);
  add(tr("Rounds"), rounds_);
  add(tr("Device"), device_);
  const int run_column = grid->columnCount();
  grid->addWidget(run_, 1, run_column);
  grid->addWidget(error_, 2, 0, 1, run_column + 1);
  grid->setColumnStretch(3, 1);
  grid->setColumnStretch(4, 2);
  set_devices({{"cpu", "CPU", -1}});

  for (QCheckBox* box : impls_) connect(box, &QCheckBox::toggled, this, &AttentionSweepForm::refresh);
  for (QCheckBox* box : precisions_) connect(box, &QCheckBox::toggled, this, &AttentionSweepForm::refresh);
  for (QSpinBox* box : {batch_, heads_, warmup_, steps_, rounds_}) {
    connect(box, &QSpinBox::valueChanged, this, &AttentionSweepForm::refresh);
  }
  for (QLineEdit* field : {head_dims_, seqs_}) connect(field, &QLineEdit::textChanged, this, &AttentionSweepForm::refresh);
  connect(device_, &QComboBox::currentIndexChanged, this, &AttentionSweepForm::refresh);
  connect(run_, &QPushButton::clicked, this, [this] {
    if (running_) {
      emit cancel_requested();
    } else if (const auto s = spec()) {
      emit run_requested(*s);
    }
  });
  refresh();
}

void AttentionSweepForm::set_devices(const std::vector<DeviceChoice>& devices) {
  device_->clear();
  for (const auto& d : devices) {
    device_->addItem(QString::fromStdString(d.id + " - " + d.name), QString::fromStdString(d.id));
  }
}

QCheckBox* AttentionSweepForm::impl_box(AttentionImpl impl) const { return impls_[static_cast<size_t>(impl)]; }
QCheckBox* AttentionSweepForm::precision_box(Precision p) const {
  const auto at = std::find(std::begin(kPrecisions), std::end(kPrecisions), p) - std::begin(kPrecisions);
  return precisions_[static_cast<size_t>(at)];
}

std::optional<AttentionSweepSpec> AttentionSweepForm::spec(QString* error, std::string* field) const {
  AttentionSweepSpec s;
  try {
    s.impls.clear();
    for (AttentionImpl impl : kImpls) {
      if (impl_box(impl)->isChecked()) s.impls.push_back(impl);
    }
    if (s.impls.empty()) throw ConfigError("choose at least one implementation", "impl");
    s.precisions.clear();
    for (Precision p : kPrecisions) {
      if (precision_box(p)->isChecked()) s.precisions.push_back(p);
    }
    if (s.precisions.empty()) throw ConfigError("choose at least one precision", "precision");
    s.head_dims = parse_list(head_dims_->text(), "d", "head dims");
    s.seqs = parse_list(seqs_->text(), "seq", "sequence lengths");
    s.base.batch = batch_->value();
    s.base.heads = heads_->value();
    s.base.causal = causal_->isChecked();
    s.base.warmup_steps = warmup_->value();
    s.base.measured_steps = steps_->value();
    s.rounds = rounds_->value();
    s.base.device = device_->currentData().toString().toStdString();
    validate_rounds(s);
    for (const AttentionConfig& c : expand(s)) validate(c);
  } catch (const ConfigError& e) {
    if (error) *error = QString::fromStdString(e.what());
    if (field) *field = e.field();
    return std::nullopt;
  }
  return s;
}

std::vector<QWidget*> AttentionSweepForm::all_fields() const {
  std::vector<QWidget*> out{batch_, heads_, head_dims_, seqs_, warmup_, steps_, rounds_, device_};
  out.insert(out.end(), impls_.begin(), impls_.end());
  out.insert(out.end(), precisions_.begin(), precisions_.end());
  return out;
}

std::vector<QWidget*> AttentionSweepForm::fields_for(const std::string& key) const {
  if (key == "impl") return {impls_.begin(), impls_.end()};
  if (key == "precision") return {precisions_.begin(), precisions_.end()};
  const std::pair<const char*, QWidget*> fields[] = {{"batch", batch_}, {"heads", heads_}, {"d", head_dims_},
                                                     {"seq", seqs_},     {"warmup", warmup_}, {"steps", steps_},
                                                     {"rounds", rounds_}, {"device", device_}};
  for (const auto& [name, widget] : fields) {
    if (key == name) return {widget};
  }
  return {};
}

void AttentionSweepForm::refresh() {
  QString error;
  std::string key;
  const auto s = spec(&error, &key);
  show_form_check(error_, run_, all_fields(), s ? std::vector<QWidget*>() : fields_for(key), error, s.has_value(),
                  running_);
}

void AttentionSweepForm::set_running(bool running) {
  running_ = running;
  show_form_running(all_fields(), run_, running);
  causal_->setEnabled(!running);
  refresh();
}

QString AttentionSweepForm::error_text() const { return error_->text(); }

}  // namespace stepscope::views
