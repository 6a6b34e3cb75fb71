#include "widgets/communication_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "charts/collective_chart_data.h"
#include "charts/sweep_chart_view.h"
#include "experiments/collectives/collective_schema.h"
#include "core/config_error.h"
#include "models/schema_table_model.h"
#include "widgets/form_fields.h"
#include "widgets/result_table.h"

namespace stepscope::views {

namespace {

const CollectiveOp kOps[] = {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                             CollectiveOp::broadcast};
const Precision kDtypes[] = {Precision::fp32, Precision::bf16, Precision::fp16};

QLineEdit* list_field(const QString& text, const QString& tip) {
  auto* field = new QLineEdit(text);
  set_help(field, tip);
  return field;
}

template <class Item>
QWidget* check_row(const Item* items, size_t count, std::vector<QCheckBox*>& boxes, Item checked) {
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  for (size_t i = 0; i < count; ++i) {
    auto* box = new QCheckBox(QString::fromStdString(to_string(items[i])));
    box->setChecked(items[i] == checked);
    boxes.push_back(box);
    layout->addWidget(box);
  }
  return row;
}

}  // namespace

CommunicationView::CommunicationView(QWidget* parent) : ResultView(parent) {
  qRegisterMetaType<CommunicationRequest>();
  backend_ = new QComboBox;
  backend_->addItem(QStringLiteral("gloo"), static_cast<int>(CommBackend::gloo));
  backend_->addItem(QStringLiteral("nccl"), static_cast<int>(CommBackend::nccl));
  device_ = new QComboBox;
  world_sizes_ = list_field(QStringLiteral("2"), tr("Local worker processes, a comma list: one run each"));
  sizes_ = list_field(QStringLiteral("1MB,10MB,100MB"), tr("Sizes: bytes, or KB, MB, GB (10^3) or KiB, MiB, GiB (2^10)"));
  warmup_ = help_spin(0, 10000, 5, tr("Warm-up iterations"));
  iters_ = help_spin(1, 100000, 20, tr("Measured iterations"));
  run_ = new QPushButton(tr("Run"));
  run_->setObjectName("communicationRunButton");
  error_ = make_error_line();

  auto* form = new QGridLayout;
  const auto add = [&](const QString& label, QWidget* w) { return add_labelled_column(form, label, w); };
  add(tr("Backend"), backend_);
  add(tr("Ranks"), world_sizes_);
  add(tr("Collectives"), check_row(kOps, std::size(kOps), ops_, CollectiveOp::all_reduce));
  add(tr("Sizes"), sizes_);
  add(tr("Types"), check_row(kDtypes, std::size(kDtypes), dtypes_, Precision::fp32));
  add(tr("Warm-up"), warmup_);
  add(tr("Iterations"), iters_);
  add(tr("Device"), device_);
  const int run_column = form->columnCount();
  form->addWidget(run_, 1, run_column);
  form->addWidget(error_, 2, 0, 1, run_column + 1);
  form->setColumnStretch(3, 1);

  model_ = new SchemaTableModel(collective_schema().columns(), this);
  chart_ = new SweepChartView(tr("Bus bandwidth against size"));
  chart_->setLogScale(true);
  add_png_export_menu(chart_, QStringLiteral("communication_busbw"));
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(chart_);
  splitter->addWidget(new ResultTable(model_, QStringLiteral("communication")));
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(splitter, 1);
  set_devices({{"cpu", "CPU", -1}});
  chart_->setData(build_collective_chart_data(model_->table()));

  for (QCheckBox* box : ops_) connect(box, &QCheckBox::toggled, this, &CommunicationView::refresh);
  for (QCheckBox* box : dtypes_) connect(box, &QCheckBox::toggled, this, &CommunicationView::refresh);
  for (QLineEdit* field : {world_sizes_, sizes_}) connect(field, &QLineEdit::textChanged, this, &CommunicationView::refresh);
  for (QSpinBox* box : {warmup_, iters_}) connect(box, &QSpinBox::valueChanged, this, &CommunicationView::refresh);
  for (QComboBox* box : {backend_, device_}) connect(box, &QComboBox::currentIndexChanged, this, &CommunicationView::refresh);
  connect(run_, &QPushButton::clicked, this, [this] {
    if (running_) {
      emit cancel_requested();
    } else if (const auto r = request()) {
      emit run_requested(*r);
    }
  });
  refresh();
}

void CommunicationView::set_devices(const std::vector<DeviceChoice>& devices) {
  device_->clear();
  device_->addItem(QStringLiteral("cpu - CPU"), QStringLiteral("cpu"));
  const bool gpus = std::any_of(devices.begin(), devices.end(), [](const DeviceChoice& d) { return d.id != "cpu"; });
  if (gpus) device_->addItem(tr("cuda - each rank its own GPU"), QStringLiteral("cuda"));
}

std::optional<CommunicationRequest> CommunicationView::request(QString* error, std::string* field) const {
  CommunicationRequest r;
  try {
    r.world_sizes.clear();
    for (const QString& part : world_sizes_->text().split(QLatin1Char(','))) {
      bool ok = false;
      const int n = part.trimmed().toInt(&ok);
      if (!ok || n < 1 || n > 256) throw ConfigError("ranks: '" + part.trimmed().toStdString() + "' is not between 1 and 256", "nproc");
      r.world_sizes.push_back(n);
    }
    r.spec.sizes_bytes.clear();
    for (const QString& part : sizes_->text().split(QLatin1Char(','))) {
      const auto bytes = parse_size_bytes(part.trimmed().toStdString());
      if (!bytes) throw ConfigError("sizes: '" + part.trimmed().toStdString() + "' is not a size (e.g. 4096, 1MB, 1MiB)", "sizes");
      r.spec.sizes_bytes.push_back(*bytes);
    }
    r.spec.ops.clear();
    for (size_t i = 0; i < ops_.size(); ++i) {
      if (ops_[i]->isChecked()) r.spec.ops.push_back(kOps[i]);
    }
    if (r.spec.ops.empty()) throw ConfigError("choose at least one collective", "op");
    r.spec.dtypes.clear();
    for (size_t i = 0; i < dtypes_.size(); ++i) {
      if (dtypes_[i]->isChecked()) r.spec.dtypes.push_back(kDtypes[i]);
    }
    if (r.spec.dtypes.empty()) throw ConfigError("choose at least one element type", "dtype");
    r.spec.base.backend = static_cast<CommBackend>(backend_->currentData().toInt());
    r.spec.base.device = device_->currentData().toString().toStdString();
    r.spec.base.warmup_iters = warmup_->value();
    r.spec.base.iters = iters_->value();
    for (int64_t n : r.world_sizes) {
      for (const auto& c : expand(r.spec, static_cast<int>(n))) validate(c);
    }
  } catch (const ConfigError& e) {
    if (error) *error = QString::fromStdString(e.what());
    if (field) *field = e.field();
    return std::nullopt;
  }
  return r;
}

std::vector<QWidget*> CommunicationView::fields() const {
  std::vector<QWidget*> out{backend_, device_, world_sizes_, sizes_, warmup_, iters_};
  out.insert(out.end(), ops_.begin(), ops_.end());
  out.insert(out.end(), dtypes_.begin(), dtypes_.end());
  return out;
}

void CommunicationView::refresh() {
  QString error;
  std::string key;
  const auto r = request(&error, &key);
  std::vector<QWidget*> wrong;
  if (!r) {
    if (key == "nproc") wrong = {world_sizes_};
    if (key == "sizes") wrong = {sizes_};
    if (key == "op") wrong = {ops_.begin(), ops_.end()};
    if (key == "dtype") wrong = {dtypes_.begin(), dtypes_.end()};
    if (key == "backend") wrong = {backend_, device_};
    if (key == "iters") wrong = {iters_};
    if (key == "warmup") wrong = {warmup_};
  }
  show_form_check(error_, run_, fields(), wrong, error, r.has_value(), running_);
}

void CommunicationView::set_running(bool running) {
  running_ = running;
  show_form_running(fields(), run_, running);
  refresh();
}

QString CommunicationView::error_text() const { return error_->text(); }

void CommunicationView::clear() {
  model_->clear();
  chart_->setData(build_collective_chart_data(model_->table()));
}

void CommunicationView::show_tables(const std::vector<schema::Table>& tables) {
  for (const auto& table : tables) {
    if (table.schema != collective_schema().id) continue;
    model_->set_table(table);
    chart_->setData(build_collective_chart_data(model_->table()));
  }
}

std::vector<NamedTable> CommunicationView::tables() const { return {{QStringLiteral("communication"), model_}}; }

std::vector<NamedChart> CommunicationView::charts() const { return {{QStringLiteral("communication_busbw"), chart_}}; }

}  // namespace stepscope::views
