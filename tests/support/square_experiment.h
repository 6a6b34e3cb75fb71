// A made-up table experiment, declared here alone: a schema, a case and a descriptor. The CLI
// and app tests show that it gets a whole command and a whole tab with no other file touched.
#pragma once

#include <string>
#include <vector>

#include "experiments/experiment_case.h"
#include "experiments/experiment_descriptor.h"
#include "experiments/harness.h"
#include "schema/schema.h"

namespace stepscope::testing_support {

struct SquareRow {
  int64_t n = 0;
  int64_t square = 0;
  RunStatus status = RunStatus::ok;
};

inline schema::Schema<SquareRow> make_square_schema() {
  using schema::Column;
  using schema::ColumnKind;
  using schema::ColumnRole;
  using schema::Value;
  schema::Schema<SquareRow> s{"test.squares", {}};
  s.fields.push_back({Column{"n", "n", ColumnKind::integer, ColumnRole::identity},
                      [](const SquareRow& r) { return Value(r.n); }});
  s.fields.push_back({Column{"square", "n²", ColumnKind::integer, ColumnRole::measure},
                      [](const SquareRow& r) { return Value(r.square); }});
  s.fields.push_back({Column{"status", "Status", ColumnKind::text, ColumnRole::detail},
                      [](const SquareRow& r) { return Value(to_string(r.status)); }});
  return s;
}

inline const schema::Schema<SquareRow>& square_schema() {
  static const schema::Schema<SquareRow> s = make_square_schema();
  return s;
}

class SquareCase final : public ExperimentCase {
 public:
  explicit SquareCase(int64_t n) : n_(n) {}
  std::string label() const override { return "n " + std::to_string(n_); }
  Device device() const override { return Device{}; }
  int measured_steps() const override { return 2; }
  void prepare(DeviceBackend&, profiling::AllocationRecorder*) override {}
  void run_step(const StepContext&) override { row_.square = n_ * n_; }
  void finish(CaseEnd end) override {
    row_.n = n_;
    row_.status = end.status;
  }
  SquareRow row() const { return row_; }

 private:
  int64_t n_;
  SquareRow row_;
};

inline const schema::InputSchema& square_inputs() {
  static const schema::InputSchema inputs = [] {
    schema::InputSchema schema;
    schema.fields.push_back({"n", "Numbers", schema::InputKind::integer, "the numbers to square", "1,2,3", true, "run", "N"});
    return schema;
  }();
  return inputs;
}

inline ExperimentDescriptor square_descriptor() {
  ExperimentDescriptor d;
  d.id = "test.squares";
  d.command = {"squares"};
  d.name = "Squares";
  d.summary = "square numbers";
  d.inputs = &square_inputs();
  d.usage = {"stepscope-cli squares [options]", "Squares each number.\n", "Exit status: 0 ok.\n"};
  d.tables = {square_schema().table({})};
  d.run = [](const schema::InputValues& values, ProgressSink* progress, const CancelFlag* cancel,
             const TablePublisher& publish) {
    std::vector<SquareRow> rows;
    std::vector<SquareCase> cases;
    for (int64_t n : values.integers("n")) cases.emplace_back(n);
    std::vector<ExperimentCase*> pointers;
    for (auto& c : cases) pointers.push_back(&c);
    run_cases(pointers, progress, cancel, [&](int index) {
      rows.push_back(cases[static_cast<size_t>(index)].row());
      if (publish) publish({square_schema().table(rows)});
    });
    return ExperimentOutcome{RunStatus::ok, "", {square_schema().table(rows)}};
  };
  return d;
}

}  // namespace stepscope::testing_support
