// The Planner tab: memory per device, the FSDP size that fits, the Scaling Book's batch, each
// with its formula, recomputed as the form is typed; and, for a finished run, the planned
// parameter, gradient and optimizer-state bytes beside what the memory profiler measured.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/plan.h"
#include "planner/plan_schema.h"
#include "widgets/result_view.h"

class QLabel;

namespace stepscope::views {

class PlannerForm;
class SchemaTableModel;

class PlannerView : public ResultView {
  Q_OBJECT

 public:
  explicit PlannerView(QWidget* parent = nullptr);

  PlannerForm& form() const { return *form_; }
  // The plan of the form as it is; nothing while a field is refused.
  const std::optional<planner::Plan>& plan() const { return plan_; }
  const SchemaTableModel& plan_model() const { return *plan_model_; }
  const SchemaTableModel& measured_model() const { return *measured_model_; }
  QString measured_caption() const;

  // A finished run's measured bytes per device beside the plan's (the form's request: set it
  // to the run's model and layout first with form().set_request()). Kept until clear(), and
  // compared again whenever the plan changes.
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

  PlannerForm* form_;
  SchemaTableModel *plan_model_, *measured_model_;
  QLabel* measured_caption_;
  std::optional<planner::Plan> plan_;
  std::optional<planner::MeasuredState> measured_;
  QString measured_run_;
};

}  // namespace stepscope::views
