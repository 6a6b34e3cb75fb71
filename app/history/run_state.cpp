// How a stored run ended (its state as the history writes it, and as a record's outcome) and
// what its line in the History sums up to, apart from the database that keeps them.
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

QString to_text(RunState state) {
  switch (state) {
    case RunState::incomplete: return QStringLiteral("incomplete");
    case RunState::complete: return QStringLiteral("complete");
    case RunState::cancelled: return QStringLiteral("cancelled");
    case RunState::failed: return QStringLiteral("failed");
  }
  return QStringLiteral("incomplete");
}

RunState ended_state(bool failed, bool cancelled) {
  return failed ? RunState::failed : cancelled ? RunState::cancelled : RunState::complete;
}

RunState state_of(const std::optional<RunEnding>& ended) {
  if (!ended) return RunState::complete;
  return ended_state(ended->status == RunStatus::failed, ended->status == RunStatus::cancelled);
}

std::optional<RunEnding> ending_of(RunState state, size_t planned) {
  switch (state) {
    case RunState::incomplete: return std::nullopt;
    case RunState::complete: return RunEnding{RunStatus::ok, planned};
    case RunState::cancelled: return RunEnding{RunStatus::cancelled, planned};
    case RunState::failed: return RunEnding{RunStatus::failed, planned};
  }
  return std::nullopt;
}

}  // namespace stepscope::history
