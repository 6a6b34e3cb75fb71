#include "widgets/planner_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "experiments/collectives/collective_sweep_spec.h"
#include "planner/plan_validate.h"
#include "widgets/form_fields.h"

namespace stepscope::views {

namespace {

const QString kCustom = QStringLiteral("custom");
const Precision kPrecisions[] = {Precision::fp32, Precision::bf16, Precision::fp16};
// The model's shape fields: editing one makes the model custom.
const char* const kShapeKeys[] = {"d_model", "d_ff", "layers", "heads", "vocab"};

int64_t whole_number(const QLineEdit* line, const std::string& key, const std::string& what) {
  bool ok = false;
  const qlonglong value = line->text().trimmed().toLongLong(&ok);
  if (!ok) throw ConfigError(what + ": '" + line->text().trimmed().toStdString() + "' is not a whole number", key);
  return value;
}

double real_number(const QLineEdit* line, const std::string& key, const std::string& what) {
  bool ok = false;
  const double value = line->text().trimmed().toDouble(&ok);
  if (!ok || !std::isfinite(value)) {
    throw ConfigError(what + ": '" + line->text().trimmed().toStdString() + "' is not a number", key);
  }
  return value;
}

QString number(double value) { return QString::number(value, 'g', 12); }

// "95GB", "80GiB", or plain bytes: what parse_size_bytes reads back.
QString size_field_text(double bytes) {
  const auto whole = static_cast<qlonglong>(std::llround(bytes));
  if (whole % 1000000000 == 0) return QString::number(whole / 1000000000) + QStringLiteral("GB");
  if (whole % (qlonglong{1} << 30) == 0) return QString::number(whole >> 30) + QStringLiteral("GiB");
  return QString::number(whole);
}

}  // namespace

PlannerForm::PlannerForm(QWidget* parent) : QWidget(parent) {
  model_ = new QComboBox;
  for (const auto& name : planner::plan_model_names()) model_->addItem(QString::fromStdString(name));
  model_->addItem(kCustom);
  set_help(model_, tr("A preset, the seeds' XXL (FFN-only blocks), or a custom shape"));
  blocks_ = new QComboBox;
  for (auto kind : {planner::BlockKind::transformer, planner::BlockKind::ffn_only}) {
    blocks_->addItem(QString::fromStdString(planner::to_string(kind)), static_cast<int>(kind));
  }
  set_help(blocks_, tr("ffn-only: blocks of two linear layers and nothing else (the seeds' XXL)"));

  auto* model_box = new QGroupBox(tr("Model"));
  auto* model_grid = new QGridLayout(model_box);
  const auto place = [](QGridLayout* grid, int at, const QString& label, QWidget* w) {
    grid->addWidget(new QLabel(label), 0, at);
    grid->addWidget(w, 1, at);
  };
  place(model_grid, 0, tr("Model"), model_);
  place(model_grid, 1, tr("Blocks"), blocks_);
  place(model_grid, 2, tr("d_model"), add_line("d_model", "768", tr("Model width")));
  place(model_grid, 3, tr("d_ff"), add_line("d_ff", "3072", tr("Feed-forward width")));
  place(model_grid, 4, tr("Layers"), add_line("layers", "12", tr("Transformer layers, or FFN blocks")));
  place(model_grid, 5, tr("Heads"), add_line("heads", "12", tr("Attention heads (Transformer only)")));
  place(model_grid, 6, tr("Vocab"), add_line("vocab", "10000", tr("Vocabulary (Transformer only)")));
  place(model_grid, 7, tr("Batch"), add_line("batch", "1", tr("Sequences per device")));
  place(model_grid, 8, tr("Context"), add_line("context", "1", tr("Tokens per sequence; 1 x 1 is one token")));

  auto* precision_box_group = new QGroupBox(tr("Precisions"));
  auto* precision_grid = new QGridLayout(precision_box_group);
  master_ = precision_box(Precision::fp32, tr("Master weights"));
  gradients_ = precision_box(Precision::fp32, tr("Accumulated gradients"));
  optimizer_ = precision_box(Precision::fp32, tr("AdamW's two moments"));
  activations_ = precision_box(Precision::bf16, tr("Activations saved for backward (16-bit: autocast)"));
  communication_ = precision_box(Precision::bf16, tr("Gradients on the wire (DDP bucket model)"));
  place(precision_grid, 0, tr("Weights"), master_);
  place(precision_grid, 1, tr("Gradients"), gradients_);
  place(precision_grid, 2, tr("Optimizer"), optimizer_);
  place(precision_grid, 3, tr("Activations"), activations_);
  place(precision_grid, 4, tr("Communication"), communication_);

  auto* layout_box = new QGroupBox(tr("Layout and device"));
  auto* layout_grid = new QGridLayout(layout_box);
  place(layout_grid, 0, tr("DP"), add_line("dp", "1", tr("Data-parallel replicas")));
  place(layout_grid, 1, tr("FSDP"), add_line("fsdp", "1", tr("Shards weights, gradients, optimizer state and a fraction of activations")));
  place(layout_grid, 2, tr("TP"), add_line("tp", "1", tr("Tensor-parallel size (with sequence parallelism)")));
  place(layout_grid, 3, tr("Activations sharded"),
        add_line("activation_fraction", "0.5", tr("Fraction of activations FSDP shards (the seeds' (b): half)")));
  zero1_ = new QCheckBox(tr("ZeRO-1"));
  set_help(zero1_, tr("Split the optimizer state over the DP ranks too (the seeds' sharded optimizer)"));
  place(layout_grid, 4, tr("Optimizer"), zero1_);
  place(layout_grid, 5, tr("Device memory"),
        add_line("device_memory", "95GB", tr("GB (10^9) or GiB (2^30): a TPU v5p holds 95GB")));

  auto* book_box = new QGroupBox(tr("TPU Scaling Book (forward pass)"));
  auto* book_grid = new QGridLayout(book_box);
  place(book_grid, 0, tr("W_ici (B/s)"), add_line("w_ici", "1.8e11", tr("ICI bandwidth: 2 x 9e10 bytes/s on a v5p")));
  place(book_grid, 1, tr("C (FLOP/s)"), add_line("c_flops", "4.6e14", tr("bf16 FLOPs/s per chip: 4.6e14 on a v5p")));
  place(book_grid, 2, tr("M_X"), add_line("m_x", "2", tr("Mesh axes the FSDP dimension spans")));
  place(book_grid, 3, tr("M_Y"), add_line("m_y", "1", tr("Mesh axes the TP dimension spans")));
  place(book_grid, 4, tr("X"), add_line("x", "16", tr("FSDP dimension")));
  place(book_grid, 5, tr("Y"), add_line("y", "4", tr("TP dimension")));

  error_ = new QLabel;
  error_->setStyleSheet(QStringLiteral("color: #b00020;"));
  error_->setVisible(false);
  error_->setWordWrap(true);

  auto* rows = new QGridLayout;
  rows->addWidget(model_box, 0, 0, 1, 2);
  rows->addWidget(precision_box_group, 1, 0);
  rows->addWidget(layout_box, 1, 1);
  rows->addWidget(book_box, 2, 0, 1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(rows);
  layout->addWidget(error_);

  connect(model_, &QComboBox::currentIndexChanged, this, &PlannerForm::on_model_chosen);
  connect(blocks_, &QComboBox::activated, this, [this] { model_->setCurrentText(kCustom); });
  connect(blocks_, &QComboBox::currentIndexChanged, this, &PlannerForm::refresh);
  for (const char* key : kShapeKeys) {
    connect(lines_.at(key), &QLineEdit::textEdited, this, [this] {
      const QSignalBlocker block(model_);  // keep the edited values
      model_->setCurrentText(kCustom);
    });
  }
  connect(zero1_, &QCheckBox::toggled, this, &PlannerForm::refresh);
  for (QComboBox* box : {master_, gradients_, optimizer_, activations_, communication_}) {
    connect(box, &QComboBox::currentIndexChanged, this, &PlannerForm::refresh);
  }
  model_->setCurrentText(QString::fromStdString(planner::kXxlFfnName));
  on_model_chosen();
}

QLineEdit* PlannerForm::add_line(const std::string& key, const QString& text, const QString& tip) {
  auto* line = new QLineEdit(text);
  line->setObjectName(QString::fromStdString("planner_" + key));
  set_help(line, tip);
  lines_[key] = line;
  connect(line, &QLineEdit::textChanged, this, &PlannerForm::refresh);
  return line;
}

QComboBox* PlannerForm::precision_box(Precision value, const QString& tip) {
  auto* box = new QComboBox;
  for (Precision p : kPrecisions) box->addItem(QString::fromStdString(to_string(p)), static_cast<int>(p));
  box->setCurrentIndex(box->findData(static_cast<int>(value)));
  set_help(box, tip);
  return box;
}

void PlannerForm::on_model_chosen() {
  if (model_->currentText() == kCustom) {
    refresh();
    return;
  }
  const auto m = planner::plan_model(model_->currentText().toStdString());
  const QSignalBlocker block(blocks_);
  blocks_->setCurrentIndex(blocks_->findData(static_cast<int>(m.blocks)));
  for (const auto& [key, value] : {std::pair{"d_model", m.d_model}, {"d_ff", m.d_ff}, {"layers", m.layers},
                                   {"heads", m.heads}, {"vocab", m.vocab}}) {
    const QSignalBlocker quiet(lines_.at(key));
    lines_.at(key)->setText(QString::number(value));
  }
  refresh();
}

std::optional<planner::PlanRequest> PlannerForm::request(QString* error, std::string* field) const {
  planner::PlanRequest r;
  try {
    const auto line = [this](const char* key) { return lines_.at(key); };
    if (model_->currentText() != kCustom) {
      r.model = planner::plan_model(model_->currentText().toStdString());
    } else {
      r.model.name = kCustom.toStdString();
      r.model.blocks = static_cast<planner::BlockKind>(blocks_->currentData().toInt());
      r.model.d_model = whole_number(line("d_model"), "d_model", "d_model");
      r.model.d_ff = whole_number(line("d_ff"), "d_ff", "d_ff");
      r.model.layers = whole_number(line("layers"), "layers", "layers");
      r.model.heads = whole_number(line("heads"), "heads", "heads");
      r.model.vocab = whole_number(line("vocab"), "vocab", "vocab");
    }
    r.batch = whole_number(line("batch"), "batch", "batch");
    r.context = whole_number(line("context"), "context", "context");
    r.precisions.master_weights = static_cast<Precision>(master_->currentData().toInt());
    r.precisions.gradients = static_cast<Precision>(gradients_->currentData().toInt());
    r.precisions.optimizer_state = static_cast<Precision>(optimizer_->currentData().toInt());
    r.precisions.activations = static_cast<Precision>(activations_->currentData().toInt());
    r.precisions.communication = static_cast<Precision>(communication_->currentData().toInt());
    r.layout.data_parallel = whole_number(line("dp"), "dp", "DP");
    r.layout.fsdp = whole_number(line("fsdp"), "fsdp", "FSDP");
    r.layout.tensor_parallel = whole_number(line("tp"), "tp", "TP");
    r.layout.shard_optimizer_over_dp = zero1_->isChecked();
    r.layout.fsdp_activation_fraction = real_number(line("activation_fraction"), "activation_fraction", "activations sharded");
    const std::string memory = line("device_memory")->text().remove(QLatin1Char(' ')).toStdString();
    const auto bytes = parse_size_bytes(memory);
    if (!bytes) throw ConfigError("device memory: '" + memory + "' is not a size (e.g. 95GB, 80GiB)", "device_memory");
    r.device_memory_bytes = static_cast<double>(*bytes);
    r.scaling_book.w_ici_Bps = real_number(line("w_ici"), "w_ici", "W_ici");
    r.scaling_book.c_flops = real_number(line("c_flops"), "c_flops", "C");
    r.scaling_book.m_x = real_number(line("m_x"), "m_x", "M_X");
    r.scaling_book.m_y = real_number(line("m_y"), "m_y", "M_Y");
    r.scaling_book.x = whole_number(line("x"), "x", "X");
    r.scaling_book.y = whole_number(line("y"), "y", "Y");
    r.all_reduce = all_reduce_;
    planner::validate(r);
  } catch (const ConfigError& e) {
    if (error) *error = QString::fromStdString(e.what());
    if (field) *field = e.field();
    return std::nullopt;
  }
  return r;
}

void PlannerForm::set_request(const planner::PlanRequest& r) {
  {
    const QSignalBlocker block(this);  // one changed() at the end
    const auto& names = planner::plan_model_names();
    const bool known = std::find(names.begin(), names.end(), r.model.name) != names.end() &&
                       [&] {
                         const auto preset = planner::plan_model(r.model.name);
                         return preset.d_model == r.model.d_model && preset.d_ff == r.model.d_ff &&
                                preset.layers == r.model.layers && preset.heads == r.model.heads &&
                                preset.vocab == r.model.vocab && preset.blocks == r.model.blocks;
                       }();
    model_->setCurrentText(known ? QString::fromStdString(r.model.name) : kCustom);
    blocks_->setCurrentIndex(blocks_->findData(static_cast<int>(r.model.blocks)));
    const auto set = [this](const char* key, const QString& text) { lines_.at(key)->setText(text); };
    set("d_model", QString::number(r.model.d_model));
    set("d_ff", QString::number(r.model.d_ff));
    set("layers", QString::number(r.model.layers));
    set("heads", QString::number(r.model.heads));
    set("vocab", QString::number(r.model.vocab));
    set("batch", QString::number(r.batch));
    set("context", QString::number(r.context));
    for (auto [box, p] : {std::pair{master_, r.precisions.master_weights}, {gradients_, r.precisions.gradients},
                          {optimizer_, r.precisions.optimizer_state}, {activations_, r.precisions.activations},
                          {communication_, r.precisions.communication}}) {
      box->setCurrentIndex(box->findData(static_cast<int>(p)));
    }
    set("dp", QString::number(r.layout.data_parallel));
    set("fsdp", QString::number(r.layout.fsdp));
    set("tp", QString::number(r.layout.tensor_parallel));
    set("activation_fraction", number(r.layout.fsdp_activation_fraction));
    zero1_->setChecked(r.layout.shard_optimizer_over_dp);
    set("device_memory", size_field_text(r.device_memory_bytes));
    set("w_ici", number(r.scaling_book.w_ici_Bps));
    set("c_flops", number(r.scaling_book.c_flops));
    set("m_x", number(r.scaling_book.m_x));
    set("m_y", number(r.scaling_book.m_y));
    set("x", QString::number(r.scaling_book.x));
    set("y", QString::number(r.scaling_book.y));
    all_reduce_ = r.all_reduce;
  }
  refresh();
}

void PlannerForm::set_all_reduce(std::optional<AllReduceFit> fit) {
  all_reduce_ = fit;
  refresh();
}

QWidget* PlannerForm::field(const std::string& key) const {
  if (key == "model") return model_;
  if (key == "blocks") return blocks_;
  const auto it = lines_.find(key);
  return it == lines_.end() ? nullptr : it->second;
}

QString PlannerForm::error_text() const { return error_->text(); }

void PlannerForm::refresh() {
  QString error;
  std::string key;
  const auto r = request(&error, &key);
  error_->setText(r ? QString() : error);
  error_->setVisible(!r.has_value());
  std::vector<QWidget*> all{model_, blocks_};
  for (const auto& [name, line] : lines_) all.push_back(line);
  std::vector<QWidget*> wrong;
  if (QWidget* w = r ? nullptr : field(key)) wrong.push_back(w);
  flag_fields(all, wrong, error);
  emit changed();
}

}  // namespace stepscope::views
