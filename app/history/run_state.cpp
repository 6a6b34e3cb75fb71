// What a stored run's line in the History sums up to, and its state's text, apart from the
// database that keeps them.
#include "history/run_history.h"

#include "cli/recorded_inputs.h"
#include "registry/experiment_registry.h"

namespace stepscope::history {

namespace {

// The experiment whose tables a record holds, for records that name none: the step
// benchmark's configurations, or the experiment whose main table has the record's first schema.
const ExperimentDescriptor* experiment_by_content(const RunRecord& record) {
  if (!record.entries.empty()) return find_experiment("bench");
  if (record.tables.empty()) return nullptr;
  for (const auto& d : experiment_registry()) {
    if (!d.tables.empty() && d.tables.front().schema == record.tables.front().schema) return &d;
  }
  return nullptr;
}

}  // namespace

RunDigest digest_record(const RunRecord& record, size_t planned) {
  const auto recorded = cli::recorded_inputs(record);
  const ExperimentDescriptor* experiment = recorded ? recorded->experiment : experiment_by_content(record);
  return digest_run(record, experiment, recorded ? &recorded->values : nullptr, planned);
}

QString to_text(RunState state) { return QString::fromLatin1(state_name(state)); }

}  // namespace stepscope::history
