// What a run-history database holds and how a stored run becomes a run record, without Qt: the
// app keeps the History through Qt SQL (run_history.h), and the command line, which builds where
// Qt does not, reads it through SQLite's own library (cli/history_record.h).
//
// Layout (version 2): meta(key, value) with ('format', "stepscope-history") and ('version', "2");
// runs(id, started_at, label, device, state, environment, ran, planned, figures), where
// `environment` is the run's own record (its environment, inputs and tables, no entries) and
// `state` one of the state names below; entries(run_id, position, record), each a record
// holding one configuration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/run_record_json.h"

namespace stepscope::history {

inline constexpr const char* kHistoryFormat = "stepscope-history";
inline constexpr int kHistoryVersion = 2;  // 2: each run's digest (configurations ran and asked, key figures)

enum class RunState { incomplete, complete, cancelled, failed };
// "incomplete", "complete", "cancelled", "failed": as the database writes them.
const char* state_name(RunState state);
// An unknown name reads as incomplete.
RunState state_from_name(const std::string& name);
// How a run that ended is kept: failed wins over cancelled.
RunState ended_state(bool failed, bool cancelled);
// How a record says its run ended, as the history keeps it (none: complete, as files of builds
// that did not say); and back, none for a run still incomplete.
RunState state_of(const std::optional<RunEnding>& ended);
std::optional<RunEnding> ending_of(RunState state, size_t planned);

// A stored run as one record: its own record (`head`), how it ended, and its entries' records in
// position order. Throws RunRecordError.
RunRecord stored_run_record(const std::string& head, RunState state, size_t planned,
                            const std::vector<std::string>& entries);

// Where the app keeps the History unless told otherwise, on Linux (what Qt's AppDataLocation
// gives for organisation and application "Stepscope"): $XDG_DATA_HOME, else ~/.local/share,
// then Stepscope/Stepscope/history.sqlite. Empty when neither variable is set.
std::string default_history_file();

}  // namespace stepscope::history
