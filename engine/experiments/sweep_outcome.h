// How a sweep of configurations ends, the same for every table experiment: its rows published
// as they come, failed at its first failed row, cancelled when cut short (the rows measured
// kept); out of memory is a row's result, not the sweep's failure.
#pragma once

#include <string>
#include <vector>

#include "experiments/experiment_descriptor.h"
#include "schema/schema.h"

namespace stepscope {

// `Row` has `status`, `message` and `config`, and `describe(config)` names the configuration.
template <class Row>
class SweepOutcome {
 public:
  SweepOutcome(const schema::Schema<Row>& schema, size_t configs, const TablePublisher& publish)
      : schema_(schema), configs_(configs), publish_(publish) {}

  void add(const Row& row) {
    rows_.push_back(row);
    if (publish_) publish_({schema_.table(rows_)});
    if (row.status == RunStatus::failed && outcome_.status == RunStatus::ok) {
      outcome_.status = RunStatus::failed;
      outcome_.message = describe(row.config) + ": " + row.message;
    }
  }

  ExperimentOutcome finish(const CancelFlag* cancel) {
    if (cancel != nullptr && cancel->is_cancelled() && outcome_.status == RunStatus::ok) {
      outcome_.status = RunStatus::cancelled;
      outcome_.message = std::to_string(rows_.size()) + " of " + std::to_string(configs_) + " configuration(s) written";
    }
    outcome_.tables = {schema_.table(rows_)};
    outcome_.configurations = configs_;
    return outcome_;
  }

 private:
  const schema::Schema<Row>& schema_;
  size_t configs_;
  const TablePublisher& publish_;
  std::vector<Row> rows_;
  ExperimentOutcome outcome_;
};

}  // namespace stepscope
