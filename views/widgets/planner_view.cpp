#include "widgets/planner_view.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

#include "models/schema_table_model.h"
#include "profiling/memory_timeline.h"
#include "widgets/run_outcome.h"
#include "widgets/planner_form.h"
#include "widgets/result_table.h"

namespace stepscope::views {

PlannerView::PlannerView(QWidget* parent) : ResultView(parent) {
  form_ = new PlannerForm;
  plan_model_ = new SchemaTableModel(planner::plan_schema().columns(), this);
  measured_model_ = new SchemaTableModel(planner::measured_schema().columns(), this);
  measured_caption_ = new QLabel(tr("Planned beside measured: finish a run with the memory profiler"));
  measured_caption_->setWordWrap(true);

  auto* measured = new QWidget;
  auto* measured_layout = new QVBoxLayout(measured);
  measured_layout->setContentsMargins(0, 0, 0, 0);
  measured_layout->addWidget(measured_caption_);
  measured_layout->addWidget(new ResultTable(measured_model_, QStringLiteral("plan_measured")));
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(new ResultTable(plan_model_, QStringLiteral("plan")));
  splitter->addWidget(measured);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(form_);
  layout->addWidget(splitter, 1);

  connect(form_, &PlannerForm::changed, this, &PlannerView::replan);
  replan();
}

void PlannerView::replan() {
  plan_.reset();
  if (const auto request = form_->request()) {
    try {
      plan_ = planner::make_plan(*request);
    } catch (const ConfigError&) {
      // request() checked every field; nothing left to frame
    }
  }
  if (plan_) {
    plan_model_->set_table(planner::plan_table(*plan_));
  } else {
    plan_model_->clear();
  }
  compare();
  emit plan_changed();
}

void PlannerView::compare() {
  if (!measured_ || !plan_) {
    measured_model_->clear();
    return;
  }
  measured_model_->set_table(planner::measured_table(*plan_, *measured_));
}

void PlannerView::show_measured(const planner::MeasuredState& measured, const QString& run) {
  measured_ = measured;
  measured_run_ = run;
  measured_caption_->setText(run.isEmpty() ? tr("Planned beside measured")
                                           : tr("Planned beside measured: %1").arg(run));
  compare();
}

void PlannerView::show_measured(double parameter_bytes, double gradient_bytes, double optimizer_state_bytes,
                                const QString& run) {
  show_measured(planner::MeasuredState{parameter_bytes, gradient_bytes, optimizer_state_bytes}, run);
}

QString PlannerView::measured_caption() const { return measured_caption_->text(); }

void PlannerView::add_outcome(const RunOutcome& outcome) {
  if (!outcome.result || !outcome.timeline || outcome.result->status != RunStatus::ok) return;
  const BenchConfig& c = outcome.result->config;
  planner::PlanRequest request;
  try {
    request.model = planner::plan_model(c.model);
  } catch (const ConfigError&) {
    return;  // a shape the planner does not take: nothing to compare
  }
  request.batch = c.batch;
  request.context = c.context;
  request.precisions.activations = c.precision;
  form_->set_request(request);
  using profiling::MemoryCategory;
  const profiling::CategoryBytes highest = profiling::highest_by_category(*outcome.timeline);
  const auto bytes = [&](MemoryCategory category) {
    return static_cast<double>(highest[profiling::category_index(category)]);
  };
  const auto tensor_bytes = [&](MemoryCategory category) -> std::optional<double> {
    const int64_t b = outcome.timeline->highest_tensor_bytes_by_category[profiling::category_index(category)];
    return b >= 0 ? std::optional<double>(static_cast<double>(b)) : std::nullopt;
  };
  planner::MeasuredState measured;
  measured.parameter_bytes = bytes(MemoryCategory::parameter);
  measured.parameter_tensor_bytes = tensor_bytes(MemoryCategory::parameter);
  if (runs_backward(c.mode)) {
    measured.gradient_bytes = bytes(MemoryCategory::gradient);
    measured.gradient_tensor_bytes = tensor_bytes(MemoryCategory::gradient);
  }
  if (c.mode == StepMode::train) {
    measured.optimizer_state_bytes = bytes(MemoryCategory::optimizer_state);
    measured.optimizer_state_tensor_bytes = tensor_bytes(MemoryCategory::optimizer_state);
  }
  show_measured(measured, QString::fromStdString(describe(c)));
}

void PlannerView::clear() {
  measured_.reset();
  measured_run_.clear();
  measured_caption_->setText(tr("Planned beside measured: finish a run with the memory profiler"));
  compare();
}

void PlannerView::show_tables(const std::vector<schema::Table>& tables) {
  for (const auto& table : tables) {
    if (table.schema == planner::plan_schema().id) plan_model_->set_table(table);
    if (table.schema == planner::measured_schema().id) measured_model_->set_table(table);
  }
}

std::vector<NamedTable> PlannerView::tables() const {
  return {{QStringLiteral("plan"), plan_model_}, {QStringLiteral("plan_measured"), measured_model_}};
}

}  // namespace stepscope::views
