#include "widgets/experiment_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "core/config_error.h"
#include "experiments/common_inputs.h"
#include "models/schema_table_model.h"
#include "widgets/input_form.h"
#include "widgets/result_table.h"

namespace stepscope::views {

namespace {

// "d_model" names the input "d-model": engine checks name fields as the structs do.
std::string input_key(const schema::InputSchema& inputs, std::string field) {
  if (inputs.find(field) != nullptr) return field;
  for (char& c : field) c = c == '_' ? '-' : c;
  return inputs.find(field) != nullptr ? field : std::string();
}

// The items of a choice list's default that this build or machine cannot run (sdpa where
// LibTorch has none): each asked alone, the rest at their defaults, of the descriptor's check;
// one it refuses naming that input is left out of the default the form ticks, with the reason.
void mark_unavailable_defaults(const ExperimentDescriptor& d, InputForm& form) {
  if (!d.check) return;
  for (const schema::InputField& input : d.inputs->fields) {
    if (input.hidden || input.kind != schema::InputKind::choice || !input.list || input.default_text.empty()) continue;
    for (const std::string& choice : schema::split_input_list(input.key, input.default_text)) {
      schema::InputValues alone(*d.inputs);
      try {
        alone.set(input.key, choice);
        d.check(alone);
      } catch (const ConfigError& e) {
        if (input_key(*d.inputs, e.field()) == input.key) {
          form.set_unavailable_choice(input.key, choice, QString::fromStdString(e.what()));
        }
      } catch (const std::exception&) {
        // Not about this choice: the form's check says what is wrong once it is ticked.
      }
    }
  }
}

// The form and its reading as wide as they would be on their own (QScrollArea's own hint
// stops at 36 characters and squeezes a reading beside an empty form).
class FormScroll : public QScrollArea {
 public:
  QSize sizeHint() const override {
    if (widget() == nullptr) return QScrollArea::sizeHint();
    return widget()->sizeHint() + QSize(verticalScrollBar()->sizeHint().width(), 0);
  }
};

}  // namespace

ExperimentView::ExperimentView(const ExperimentDescriptor& descriptor, ResultView* charts, QWidget* parent)
    : ResultView(parent), descriptor_(descriptor), charts_(charts) {
  qRegisterMetaType<schema::InputValues>();
  std::vector<std::string> left_out;
  if (descriptor.runs_as_ranks) {
    for (const auto& input : descriptor.inputs->fields) {
      if (input.kind == schema::InputKind::path) left_out.push_back(input.key);
    }
  }
  form_ = new InputForm(*descriptor.inputs, nullptr, left_out);
  mark_unavailable_defaults(descriptor, *form_);
  run_ = new QPushButton(tr("Run"));
  run_->setObjectName("run");
  status_ = new QLabel;
  status_->setObjectName("experimentStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  reading_ = new QLabel;
  reading_->setWordWrap(true);
  reading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  reading_->hide();

  table_tabs_ = new QTabWidget;
  table_tabs_->setDocumentMode(true);
  for (const auto& table : descriptor.tables) {
    auto* model = new SchemaTableModel(table.columns, this);
    models_.push_back(model);
    QString name = QString::fromStdString(table.schema);
    name.replace('.', '_');
    table_tabs_->addTab(new ResultTable(model, name), QString::fromStdString(table.schema));
  }
  table_tabs_->tabBar()->setVisible(models_.size() > 1);

  auto* controls = new QHBoxLayout;
  controls->addWidget(run_);
  controls->addWidget(status_, 1);
  auto* left = new QWidget;
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  left_layout->addWidget(form_);
  left_layout->addLayout(controls);
  left_layout->addWidget(reading_);
  left_layout->addStretch(1);

  auto* results = new QSplitter(Qt::Vertical);
  if (charts_ != nullptr) results->addWidget(charts_);
  results->addWidget(table_tabs_);
  // A long form (the DDP experiments') scrolls where the window is short, rather than make it taller.
  auto* form_scroll = new FormScroll;
  form_scroll->setObjectName("formScroll");
  form_scroll->setWidget(left);
  form_scroll->setWidgetResizable(true);
  form_scroll->setFrameShape(QFrame::NoFrame);
  form_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  form_scroll->setMinimumWidth(left->minimumSizeHint().width() + form_scroll->verticalScrollBar()->sizeHint().width());
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(form_scroll);
  split->addWidget(results);
  split->setStretchFactor(1, 1);
  // Charts want the width: the form starts at its narrowest (its fields in fewer columns).
  if (charts_ != nullptr) split->setSizes({left->minimumSizeHint().width(), 4 * left->minimumSizeHint().width()});
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);

  connect(form_, &InputForm::changed, this, [this] {
    if (!running_) run_->setEnabled(checked_values().has_value());
  });
  connect(run_, &QPushButton::clicked, this, [this] {
    if (running_) {
      emit cancel_requested();
    } else {
      request_run();
    }
  });
  run_->setEnabled(checked_values().has_value());
}

std::optional<schema::InputValues> ExperimentView::checked_values() {
  try {
    schema::InputValues values = form_->values();
    try {
      if (descriptor_.check) descriptor_.check(values);
      if (descriptor_.runs_as_ranks) check_local_ranks(values);
    } catch (const ConfigError& e) {
      form_->show_error(input_key(*descriptor_.inputs, e.field()), QString::fromStdString(e.what()));
      return std::nullopt;
    }
    form_->show_error("", {});
    return values;
  } catch (const ConfigError&) {
    return std::nullopt;  // the form frames the field it read
  }
}

bool ExperimentView::request_run() {
  if (running_) return false;
  const auto values = checked_values();
  if (!values) {
    const QString why = tr("Cannot run: %1").arg(form_->error_text());
    show_status(why);
    emit run_refused(why);
    return false;
  }
  emit run_requested(*values);
  return true;
}

void ExperimentView::set_devices(const std::vector<DeviceChoice>& devices) {
  QStringList ids, names;
  for (const auto& d : devices) {
    ids << QString::fromStdString(d.id);
    names << QString::fromStdString(d.name);
  }
  form_->set_device_choices(ids, names);
}

void ExperimentView::set_running(bool running) {
  running_ = running;
  form_->set_running(running);
  run_->setText(running ? tr("Cancel") : tr("Run"));
  run_->setEnabled(running || checked_values().has_value());
}

void ExperimentView::show_status(const QString& text) { status_->setText(text); }

QString ExperimentView::status_text() const { return status_->text(); }

void ExperimentView::set_values(const schema::InputValues& values) { form_->set_values(values); }

void ExperimentView::clear() {
  for (auto* model : models_) model->clear();
  reading_->clear();
  reading_->hide();
  if (charts_ != nullptr) {
    charts_->clear();
    if (!linked_.empty()) charts_->show_tables(linked_);
  }
}

void ExperimentView::show_linked_tables(const std::vector<schema::Table>& tables) {
  linked_ = tables;
  if (charts_ != nullptr) charts_->show_tables(linked_);
}

void ExperimentView::prepare_export() {
  if (charts_ != nullptr) charts_->prepare_export();
}

void ExperimentView::show_tables(const std::vector<schema::Table>& tables) {
  std::vector<schema::Table> own;
  for (const auto& table : tables) {
    for (size_t i = 0; i < descriptor_.tables.size(); ++i) {
      if (table.schema != descriptor_.tables[i].schema) continue;
      models_[i]->set_table(table);
      own.push_back(models_[i]->table());
    }
  }
  if (own.empty()) return;
  const std::string reading = descriptor_.reading ? descriptor_.reading(own) : "";
  reading_->setText(QString::fromStdString(reading));
  reading_->setVisible(!reading.empty());
  if (charts_ != nullptr) charts_->show_tables(own);
}

std::vector<NamedTable> ExperimentView::tables() const {
  std::vector<NamedTable> out;
  for (size_t i = 0; i < models_.size(); ++i) {
    QString name = QString::fromStdString(descriptor_.tables[i].schema);
    name.replace('.', '_');
    out.push_back({name, models_[i]});
  }
  if (charts_ != nullptr) {
    for (const auto& t : charts_->tables()) out.push_back(t);
  }
  return out;
}

std::vector<NamedChart> ExperimentView::charts() const {
  return charts_ != nullptr ? charts_->charts() : std::vector<NamedChart>{};
}

QString ExperimentView::reading() const { return reading_->text(); }

}  // namespace stepscope::views
