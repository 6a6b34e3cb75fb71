// A run of the app's History (history/history_layout.h) read by the command line: `compare
// history:12 ...`. Through SQLite's C library, read-only: the command line builds without Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "io/run_record_json.h"

namespace stepscope::cli {

// "history:12" -> 12; none for anything else. Throws CliError for "history:" with no id or one
// that is not a positive integer.
std::optional<int64_t> history_run_id(const std::string& argument);

// Run `run` of the History database `path`. Throws CliError naming the file (missing, not a
// Stepscope history, newer than this build, no such run, an unreadable record) or saying that
// this build reads no History (built without SQLite).
RunRecord read_history_run(const std::string& path, int64_t run);

}  // namespace stepscope::cli
