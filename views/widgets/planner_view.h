// The Planner tab: the planner's declared inputs as a form (views/widgets/experiment_form.h),
// and its own widget, the plan: memory per device, the FSDP size that fits, the Scaling Book's
// batch, each with its formula, recomputed as the form is typed; and, for a finished run, the
// planned parameter, gradient and optimizer-state bytes beside what the memory profiler measured.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiments/experiment_descriptor.h"
#include "planner/plan.h"
#include "planner/plan_schema.h"
#include "widgets/result_view.h"

class QLabel;

namespace stepscope::views {

class ExperimentForm;
class SchemaTableModel;

class PlannerView : public BenchResultsView {
  Q_OBJECT

 public:
  // `plan`: the planner's descriptor (outlives the view).
  explicit PlannerView(const ExperimentDescriptor& plan, QWidget* parent = nullptr);

  ExperimentForm& form() const { return *form_; }
  // The plan of the form as it is; nothing while a field is refused.
  const std::optional<planner::Plan>& plan() const { return plan_; }
  const SchemaTableModel& plan_model() const { return *plan_model_; }
  const SchemaTableModel& measured_model() const { return *measured_model_; }
  QString measured_caption() const;
  // A measured all-reduce line for the DDP bucket model (the form's --allreduce file, here
  // given as its fit); nothing removes it.
  void set_all_reduce(std::optional<AllReduceFit> fit);

  // A finished run's measured bytes per device beside the plan's (set the form to the run's
  // model and layout first). Kept until clear(), and compared again whenever the plan changes.
  void show_measured(const planner::MeasuredState& measured, const QString& run = {});
  void show_measured(double parameter_bytes, double gradient_bytes, double optimizer_state_bytes,
                     const QString& run = {});

  // A new run forgets the measured side; the plan stays.
  void clear() override;
  // A finished step benchmark with the memory profiler: the form takes its model, batch,
  // context and precision, and the measured side its parameter, gradient and optimizer-state
  // bytes (each category's highest).
  void add_outcome(const RunOutcome& outcome) override;
  // A record's "plan" and "plan.measured" tables, as written.
  void show_tables(const std::vector<schema::Table>& tables) override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override { return {}; }

 signals:
  // The form gave a new plan (or refused one: plan() is then empty).
  void plan_changed();

 private:
  void replan();
  void compare();
  // The chosen model's shape as the shape fields' placeholders: what typing one changes.
  void show_model_shape();

  ExperimentForm* form_;
  SchemaTableModel *plan_model_, *measured_model_;
  QLabel* measured_caption_;
  std::optional<planner::Plan> plan_;
  std::optional<planner::MeasuredState> measured_;
  std::optional<AllReduceFit> all_reduce_;
};

}  // namespace stepscope::views
