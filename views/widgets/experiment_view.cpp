#include "widgets/experiment_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "core/config_error.h"
#include "experiments/common_inputs.h"
#include "models/schema_table_model.h"
#include "widgets/experiment_form.h"
#include "widgets/failure_banner.h"
#include "widgets/input_form.h"
#include "widgets/result_table.h"

namespace stepscope::views {

ExperimentView::ExperimentView(const ExperimentDescriptor& descriptor, ResultView* charts, QWidget* parent)
    : ResultView(parent), descriptor_(descriptor), charts_(charts) {
  qRegisterMetaType<schema::InputValues>();
  ExperimentForm::Options options;
  options.columns = {2, 4};  // two where the window is narrow: the charts keep their width
  if (descriptor.runs_as_ranks) {
    for (const auto& input : descriptor.inputs->fields) {
      if (input.kind == schema::InputKind::path) options.left_out.push_back(input.key);
    }
  }
  form_ = new ExperimentForm(descriptor, options);
  if (descriptor.runs_as_ranks) form_->set_extra_check(check_local_ranks);
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
    auto* result_table = new ResultTable(model, name);
    result_table->set_empty_text(tr("No rows yet. Set the inputs on the left and press Run: each configuration "
                                    "of %1 adds a row here as it finishes.")
                                     .arg(QString::fromStdString(descriptor.name)));
    table_tabs_->addTab(result_table, QString::fromStdString(table.schema));
  }
  table_tabs_->tabBar()->setVisible(models_.size() > 1);

  form_->add_widget(reading_);  // scrolls with the fields; Run stays in view under them

  failure_ = new FailureBanner;
  auto* split_results = new QSplitter(Qt::Vertical);
  if (charts_ != nullptr) split_results->addWidget(charts_);
  split_results->addWidget(table_tabs_);
  // The failure above the results: seen with the rows it left, not only in the status bar.
  auto* results = new QWidget;
  auto* results_layout = new QVBoxLayout(results);
  results_layout->setContentsMargins(0, 0, 0, 0);
  results_layout->addWidget(failure_);
  results_layout->addWidget(split_results, 1);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(form_);
  split->addWidget(results);
  split->setStretchFactor(1, 1);
  // Charts want the width: the form starts at its narrowest (its fields in fewer columns).
  if (charts_ != nullptr) split->setSizes({form_->minimumSizeHint().width(), 4 * form_->minimumSizeHint().width()});
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);

  connect(form_, &ExperimentForm::run_requested, this, &ExperimentView::run_requested);
  connect(form_, &ExperimentForm::cancel_requested, this, &ExperimentView::cancel_requested);
  connect(form_, &ExperimentForm::run_refused, this, &ExperimentView::run_refused);
}

void ExperimentView::set_devices(const std::vector<DeviceChoice>& devices) { form_->set_devices(devices); }

bool ExperimentView::request_run() { return form_->request_run(); }

void ExperimentView::set_running(bool running) { form_->set_running(running); }

bool ExperimentView::is_running() const { return form_->is_running(); }

void ExperimentView::show_status(const QString& text) { form_->show_status(text); }

QString ExperimentView::status_text() const { return form_->status_text(); }

void ExperimentView::set_values(const schema::InputValues& values) { form_->set_values(values); }

InputForm* ExperimentView::form() const { return form_->form(); }

void ExperimentView::show_failure(const QString& message) {
  failure_->show_failure(QString::fromStdString(descriptor_.name), message);
}

QString ExperimentView::failure_text() const { return failure_->shown_text(); }

void ExperimentView::clear() {
  failure_->dismiss();
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
