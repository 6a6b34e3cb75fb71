#include "widgets/planner_view.h"

#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

#include "models/schema_table_model.h"
#include "profiling/memory_timeline.h"
#include "widgets/run_outcome.h"
#include "core/config_error.h"
#include "planner/plan_inputs.h"
#include "widgets/experiment_form.h"
#include "widgets/result_table.h"

namespace stepscope::views {

PlannerView::PlannerView(const ExperimentDescriptor& plan, QWidget* parent) : BenchResultsView(parent) {
  ExperimentForm::Options options;
  options.left_out = {"allreduce"};  // a file of the command line's; here set_all_reduce
  options.columns = {3, 6};
  options.run_button = false;  // the plan follows the form
  form_ = new ExperimentForm(plan, options);
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
  // The form scrolls where the window is short; the plan takes the height it can.
  auto* form_scroll = new QScrollArea;
  form_scroll->setObjectName("formScroll");
  form_scroll->setWidget(form_);
  form_scroll->setWidgetResizable(true);
  form_scroll->setFrameShape(QFrame::NoFrame);
  form_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  form_scroll->setMinimumHeight(120);
  auto* page = new QSplitter(Qt::Vertical);
  page->addWidget(form_scroll);
  page->addWidget(splitter);
  page->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(page, 1);

  connect(form_, &ExperimentForm::changed, this, &PlannerView::replan);
  replan();
}

void PlannerView::replan() {
  plan_.reset();
  show_model_shape();
  if (const auto values = form_->checked_values()) {
    try {
      planner::PlanRequest request = planner::plan_request(*values);
      request.all_reduce = all_reduce_;
      plan_ = planner::make_plan(request);
    } catch (const ConfigError& e) {
      form_->form()->show_error(input_key(*form_->descriptor().inputs, e.field()), QString::fromStdString(e.what()));
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

void PlannerView::show_model_shape() {
  std::optional<planner::PlanModel> model;
  try {
    schema::InputValues values(*form_->descriptor().inputs);
    const schema::InputValues typed = form_->form()->values();
    if (typed.given("model")) values.set("model", typed.text("model"));
    model = planner::plan_model(values.text("model"));
  } catch (const std::exception&) {
    // The model field says what is wrong; the shape fields show no model's numbers.
  }
  const std::pair<const char*, int64_t> shape[] = {{"d-model", model ? model->d_model : 0},
                                                   {"d-ff", model ? model->d_ff : 0},
                                                   {"layers", model ? model->layers : 0},
                                                   {"heads", model ? model->heads : 0},
                                                   {"vocab", model ? model->vocab : 0}};
  const bool ffn_only = model && model->blocks == planner::BlockKind::ffn_only;
  for (const auto& [key, value] : shape) {
    const bool unused = ffn_only && (std::string(key) == "heads" || std::string(key) == "vocab");  // no attention, no embedding
    form_->form()->set_placeholder(key, model && !unused ? QString::number(value) : QString());
  }
}

void PlannerView::set_all_reduce(std::optional<AllReduceFit> fit) {
  all_reduce_ = fit;
  replan();
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
  if (is_import(*outcome.result)) return;  // an imported profile's model is none the planner knows
  const BenchConfig& c = outcome.result->config;
  // The run's model (a preset by name, else its shape), batch, context and precision.
  schema::InputValues values(*form_->descriptor().inputs);
  try {
    const planner::PlanModel model = planner::plan_model(c.model);
    const std::vector<std::string> presets = model_preset_names();  // one list: begin and end of the same
    const bool preset = std::find(presets.begin(), presets.end(), c.model.name) != presets.end();
    if (preset) {
      values.set("model", c.model.name);
    } else {
      values.set("blocks", "transformer");  // the default model is the seeds' FFN-only one
      values.set("d-model", std::to_string(model.d_model));
      values.set("d-ff", std::to_string(model.d_ff));
      values.set("layers", std::to_string(model.layers));
      values.set("heads", std::to_string(model.heads));
      values.set("vocab", std::to_string(model.vocab));
    }
    values.set("batch", std::to_string(c.batch));
    values.set("context", std::to_string(c.context));
    values.set("activations", to_string(c.precision));
  } catch (const ConfigError&) {
    return;  // a shape the planner does not take: nothing to compare
  }
  form_->set_values(values);
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
