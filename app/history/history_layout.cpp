#include "history/history_layout.h"

#include <cstdlib>

namespace stepscope::history {

const char* state_name(RunState state) {
  switch (state) {
    case RunState::incomplete: return "incomplete";
    case RunState::complete: return "complete";
    case RunState::cancelled: return "cancelled";
    case RunState::failed: return "failed";
  }
  return "incomplete";
}

RunState state_from_name(const std::string& name) {
  for (RunState s : {RunState::incomplete, RunState::complete, RunState::cancelled, RunState::failed}) {
    if (name == state_name(s)) return s;
  }
  return RunState::incomplete;
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

RunRecord stored_run_record(const std::string& head, RunState state, size_t planned,
                            const std::vector<std::string>& entries) {
  RunRecord record = read_run_record(head);
  // As the history keeps it: a run saved to a file says how it ended.
  record.outcome = ending_of(state, planned);
  for (const auto& text : entries) {
    RunRecord one = read_run_record(text);
    for (auto& entry : one.entries) record.entries.push_back(std::move(entry));
  }
  return record;
}

std::string default_history_file() {
  const char* data = std::getenv("XDG_DATA_HOME");
  std::string dir;
  if (data != nullptr && *data == '/') {
    dir = data;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    dir = std::string(home) + "/.local/share";
  } else {
    return "";
  }
  return dir + "/Stepscope/Stepscope/history.sqlite";
}

}  // namespace stepscope::history
